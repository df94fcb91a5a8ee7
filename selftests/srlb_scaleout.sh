#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two SRv6 load balancers serving one VIP with no state shared
# (Documentation/srv6-lb.rst, "Recovery"): a router splits the client's
# flows between lb1 and lb2 by ECMP (layer-4 hash); both have the same
# backends, so their consistent-hash tables give a flow the same
# candidates.  A live connection moved from one load balancer to the other
# (the router's route changed under it) reaches the other, which does not
# know it: it hunts with RECOVER, the server that knows the connection
# takes it and reports itself to its new load balancer, and the connection
# carries on.
#
#                         client  fd00:c::2
#                           |
#                   rtr   fd00:c::1
#      VIP via fd00:e1::2 (lb1) and fd00:e2::2 (lb2), ECMP
#             |                         |
#   lb1  fd00:e1::2              lb2  fd00:e2::2
#        fd00:5::1 (sw)               fd00:5::2 (sw)
#        LB SID fd00:1b::1            LB SID fd00:1b::2
#             |                         |
#   sw: a bridge --+-------------+------------+
#                  |             |            |
#            srv1 fd00:5::11  srv2 fd00:5::12  srv3 fd00:5::13
#            SID fc00:1::100  SID fc00:2::100  SID fc00:3::100
#
# Servers: VIP on lo, default via lb1 (their direct replies go back
# through lb1 and rtr), fd00:1b::2 via lb2 (reports to lb2), socat on
# [VIP]:8080 answering with its name, then echoing.  Both load balancers:
# service web, choices 3, the three servers as backends, and a prerouting
# rule sending the VIP's port 8080 to it.

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_srlb.sh"

require_root
require_cmd ip socat timeout ss
require_module

PORT=8080
PORTS=("$PORT")

client='' rtr='' lb1='' lb2='' sw='' srv1='' srv2='' srv3=''
setup_ns client rtr lb1 lb2 sw srv1 srv2 srv3 || exit "$ksft_fail"
SRV=([1]="$srv1" [2]="$srv2" [3]="$srv3")
LB=([1]="$lb1" [2]="$lb2")

TMP=$(mktemp -d)

# tm_lbi I ARGS...: tmctl in load balancer I.
tm_lbi()
{
	local i=$1

	shift
	"$TMCTL" -n "${LB[i]}" "$@"
}

# lbic I NAME: a counter of load balancer I's service.
lbic()
{
	tm_lbi "$1" lb service show web 2>/dev/null | grep -v "^	backend " |
		number_after "$2"
}

# vip_via I...: the router's route to the VIP: through these load
# balancers (two: ECMP).
vip_via()
{
	local i hops=()

	for i in "$@"; do
		hops+=(nexthop via "fd00:e$i::2" dev "e$i")
	done
	ip -n "$rtr" -6 route replace "$VIP/128" "${hops[@]}"
}

setup()
{
	local i ns

	for ns in "${NS_LIST[@]}"; do
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0 || return 1
	done
	ip link add veth0 netns "$client" type veth peer name c0 netns "$rtr" &&
		ip -n "$client" addr add fd00:c::2/64 dev veth0 nodad &&
		ip -n "$rtr" addr add fd00:c::1/64 dev c0 nodad &&
		ip -n "$client" link set veth0 up && ip -n "$rtr" link set c0 up &&
		ip -n "$client" -6 route add default via fd00:c::1 &&
		ip netns exec "$rtr" sysctl -qw net.ipv6.conf.all.forwarding=1 \
			net.ipv6.fib_multipath_hash_policy=1 &&
		ip -n "$sw" link add br0 type bridge &&
		ip -n "$sw" link set br0 up || return 1
	for i in 1 2; do
		ns=${LB[i]}
		ip link add "e$i" netns "$rtr" type veth peer name up0 netns "$ns" &&
			ip -n "$rtr" addr add "fd00:e$i::1/64" dev "e$i" nodad &&
			ip -n "$ns" addr add "fd00:e$i::2/64" dev up0 nodad &&
			ip -n "$rtr" link set "e$i" up && ip -n "$ns" link set up0 up &&
			ip link add "l$i" netns "$sw" type veth peer name dn0 netns "$ns" &&
			ip -n "$sw" link set "l$i" master br0 up &&
			ip -n "$ns" addr add "fd00:5::$i/64" dev dn0 nodad &&
			ip -n "$ns" link set dn0 up &&
			ip -n "$ns" -6 route add default via "fd00:e$i::1" &&
			ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.forwarding=1 ||
			return 1
	done
	for i in 1 2 3; do
		ns=${SRV[i]}
		ip link add "s$i" netns "$sw" type veth peer name veth0 netns "$ns" &&
			ip -n "$sw" link set "s$i" master br0 up &&
			ip -n "$ns" addr add "fd00:5::1$i/64" dev veth0 nodad &&
			ip -n "$ns" link set veth0 up &&
			ip -n "$ns" addr add "$VIP/128" dev lo nodad &&
			ip -n "$ns" -6 route add default via fd00:5::1 &&
			ip -n "$ns" -6 route add fd00:1b::2/128 via fd00:5::2 &&
			ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.forwarding=1 &&
			ip -n "$ns" -6 route add "$(sid_of "$i")/128" \
				encap seg6local action End dev veth0 &&
			ip -n "$lb1" -6 route add "fc00:$i::/64" via "fd00:5::1$i" &&
			ip -n "$lb2" -6 route add "fc00:$i::/64" via "fd00:5::1$i" ||
			return 1
	done
	for i in 1 2; do
		tm_lbi "$i" lb service add web vip "$VIP" sid "fd00:1b::$i" \
			tcp port "$PORT" choices 3 &&
			tm_lbi "$i" lb backend add web fc00:1::100 &&
			tm_lbi "$i" lb backend add web fc00:2::100 &&
			tm_lbi "$i" lb backend add web fc00:3::100 &&
			tm_lbi "$i" table add pre family ip6 hook prerouting &&
			tm_lbi "$i" rule add pre dst "$VIP/128" proto tcp \
				dport "$PORT" lb web || return 1
	done
	vip_via 1 2
}

# Both load balancers take flows: 16 connections, each completed by one
# server, some through each load balancer (all on one: 2^-15 odds).
test_split()
{
	local i out bad=0 h1 h2

	policies add always always always
	for ((i = 0; i < 16; i++)); do
		out=$(connect "$PORT")
		case "$out" in
		s[123]$'\n'hello) ;;
		*) bad=$((bad + 1)) ;;
		esac
	done
	expect_eq "failed connections" "$bad" 0
	h1=$(lbic 1 hunts)
	h2=$(lbic 2 hunts)
	[ "${h1:-0}" -gt 0 ] && [ "${h2:-0}" -gt 0 ] &&
		[ $((h1 + h2)) -eq 16 ]
	check_err $? "connections hunted by lb1: '$h1', lb2: '$h2', want both and 16 in all"
	log_test "ECMP splits connections between lb1 and lb2"
}

# A live connection moves to the load balancer that never saw it.
test_move()
{
	local s from to n rec server

	long_open 1
	s=$(long_server 1)
	long_echo 1 before
	check_err $? "no echo before the move (answered by '$s')"
	from=
	for n in 1 2; do
		tm_lbi "$n" lb flows show web | grep -q " state steer " &&
			from=$n
	done
	if [ -z "$from" ]; then
		check_err 1 "neither load balancer steers the connection"
		log_test "a live connection moves from one load balancer to the other"
		return
	fi
	to=$((3 - from))
	rec=$(lbic "$to" recoveries)
	vip_via "$to"
	check_err $? "route to the VIP via lb$to only"
	for n in 1 2 3; do
		long_echo 1 "after$n"
		check_err $? "no echo of after$n through lb$to"
	done
	[ "$(lbic "$to" recoveries)" -gt "${rec:-0}" ] 2>/dev/null
	check_err $? "lb$to recovered nothing ($(lbic "$to" recoveries))"
	server=$(tm_lbi "$to" lb flows show web | grep " state steer " |
		 sed -n 's/.* server \([^ ]*\) .*/\1/p')
	expect_eq "server lb$to learned" "$server" "$(sid_of "${s#s}")"
	long_close 1
	check_err $? "the connection did not end"
	vip_via 1 2
	log_test "a live connection moves from lb$from to lb$to, $s keeps it"
}

srlb_start

test_split
test_move

exit "$EXIT_STATUS"
