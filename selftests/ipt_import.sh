#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tmctl import --format iptables-save against iptables itself: a random
# INPUT chain (ipt_import.py gen, IPT_RULES rules, 300 by default) loaded
# with iptables-restore in one namespace and imported into a tuplemerge
# table in another; the same random frames (IPT_PACKETS, 10000) sent to
# both, and the ids their raw sockets see after the input hook compared:
# they must be the same packets.  Then IPv6, half as many of each.
# Conntrack, marks (set in mangle by DSCP) and NOTRACK (GRE, in raw) are
# the same on both sides.
#
#   +--------------------+  a1 -- in0  +-------------------------------+
#   | snd                +-------------+ ipt: iptables-restore, INPUT  |
#   |  AF_PACKET frames  |             +-------------------------------+
#   |  on a1 and b1      |  b1 -- in0  +-------------------------------+
#   |                    +-------------+ tm: table fw, hook input,     |
#   +--------------------+             |     policy accept, imported   |
#                                      +-------------------------------+
#   Both: 10.0.0.0/8 (a local route) and fd00:aa::/124 (16 addresses)
#   local, dummy0, rp_filter off.

source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip python3 iptables-restore ip6tables-restore iptables ip6tables
require_module

PY=$(dirname "$0")/ipt_import.py
PACKETS=${IPT_PACKETS:-10000}
RULES=${IPT_RULES:-300}
SEED=${IPT_SEED:-$(( $(date +%s) % 100000 ))}
tmp=$(mktemp -d)

snd='' ipt='' tmns=''
setup_ns snd ipt tmns || exit "$ksft_fail"

RECEIVERS=()
cleanup()
{
	kill "${RECEIVERS[@]}" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
	cleanup_ns
}
trap cleanup EXIT

# receiver NS PEER: in0 in NS, cabled to PEER in snd, set up to take any
# packet to 10.0.0.0/8 and fd00:aa::/124, with the same mangle and raw
# rules.
receiver()
{
	local ns=$1 peer=$2 mac fam ipt

	ip link add "$peer" netns "$snd" type veth peer name in0 netns "$ns" &&
	ip -n "$snd" link set "$peer" up &&
	ip -n "$ns" link set in0 up &&
	ip -n "$ns" link add dummy0 type dummy &&
	ip -n "$ns" addr add 10.255.0.2/24 dev in0 &&
	ip -n "$ns" addr add fd00:ff::2/64 dev in0 nodad &&
	ip -n "$ns" route add local 10.0.0.0/8 dev lo || return 1
	for i in {0..15}; do
		printf 'addr add fd00:aa::%x/128 dev lo nodad\n' "$i"
	done | ip -n "$ns" -b - || return 1
	# Replies (resets, echo replies, unreachables) go back to snd.
	mac=$(ip netns exec "$snd" cat "/sys/class/net/$peer/address")
	ip -n "$ns" neigh add 10.255.0.1 lladdr "$mac" dev in0 nud permanent &&
	ip -n "$ns" neigh add fd00:ff::1 lladdr "$mac" dev in0 nud permanent &&
	ip -n "$ns" route add default via 10.255.0.1 &&
	ip -n "$ns" -6 route add default via fd00:ff::1 || return 1
	ip netns exec "$ns" sysctl -qw net.ipv4.conf.all.rp_filter=0 \
		net.ipv4.conf.in0.rp_filter=0 || return 1
	for fam in 4 6; do
		ipt=iptables
		[ $fam = 6 ] && ipt=ip6tables
		ip netns exec "$ns" "$ipt" -t mangle -A PREROUTING \
			-m dscp --dscp 10 -j MARK --set-mark 0x15 &&
		ip netns exec "$ns" "$ipt" -t mangle -A PREROUTING \
			-m dscp --dscp 46 -j MARK --set-mark 0x2a &&
		ip netns exec "$ns" "$ipt" -t raw -A PREROUTING -p 47 \
			-j CT --notrack || return 1
	done
}

receiver "$ipt" a1 && receiver "$tmns" b1
check_err $? "namespaces, links, routes, mangle and raw rules"
log_test "setup"
[ "$RET" = 0 ] || exit "$EXIT_STATUS"

tm()
{
	"$TMCTL" -n "$tmns" "$@"
}

# run FAMILY RULES COUNT: one chain of RULES rules, COUNT packets, compared.
run()
{
	local fam=$1 nrules=$2 n=$3 fmt=iptables-save restore=iptables-restore
	local tfam=ip rules="$tmp/rules.v$1" spec="$tmp/spec.v$1" pid_a pid_b
	local hit total delivered a b

	if [ "$fam" = 6 ]; then
		fmt=ip6tables-save restore=ip6tables-restore tfam=ip6
	fi
	python3 "$PY" gen "$SEED" "$nrules" "$fam" "$rules" "$spec"
	check_err $? "gen"
	ip netns exec "$ipt" "$restore" <"$rules"
	check_err $? "$restore"
	tm table add "fw$fam" family "$tfam" hook input policy accept &&
	tm import --format "$fmt" "fw$fam" "$rules" INPUT
	check_err $? "tmctl import --format $fmt"
	[ "$RET" = 0 ] || { log_test "IPv$fam: import"; return; }

	rm -f "$tmp"/ready.*
	ip netns exec "$ipt" python3 "$PY" recv "$fam" "$tmp/ipt.ids" \
		"$tmp/ready.a" &
	pid_a=$!
	ip netns exec "$tmns" python3 "$PY" recv "$fam" "$tmp/tm.ids" \
		"$tmp/ready.b" &
	pid_b=$!
	RECEIVERS=("$pid_a" "$pid_b")
	for _ in $(seq 100); do
		[ -e "$tmp/ready.a" ] && [ -e "$tmp/ready.b" ] && break
		sleep 0.1
	done
	a=$(ip netns exec "$ipt" cat /sys/class/net/in0/address)
	b=$(ip netns exec "$tmns" cat /sys/class/net/in0/address)
	ip netns exec "$snd" python3 "$PY" send "$SEED" "$n" "$fam" "$spec" \
		"a1=$a" "b1=$b"
	check_err $? "send"
	sleep 2
	kill -TERM "$pid_a" "$pid_b"
	wait "$pid_a" "$pid_b"
	RECEIVERS=()
	python3 "$PY" compare "$tmp/ipt.ids" "$tmp/tm.ids" "$n"
	check_err $? "the same packets delivered (seed $SEED)"

	# Not a vacuous agreement: some of each, and many rules taking part.
	delivered=$(wc -l <"$tmp/ipt.ids")
	[ "$delivered" -gt $((n / 10)) ] && [ "$delivered" -lt $((n * 9 / 10)) ]
	check_err $? "between a tenth and nine tenths delivered ($delivered)"
	total=$(tm -s rule list "fw$fam" | wc -l)
	hit=$(tm rule list "fw$fam" | grep -vc ' packets 0 ')
	log_info "IPv$fam: $hit of $total table rules took packets"
	[ "$hit" -gt $((total / 4)) ]
	check_err $? "a quarter of the rules or more took packets ($hit of $total)"
	if [ "$RET" != 0 ]; then
		cp "$rules" "/tmp/ipt_import.rules.v$fam" 2>/dev/null
		log_info "rules kept in /tmp/ipt_import.rules.v$fam"
	fi
	log_test "IPv$fam: $nrules random iptables rules, $n packets, same verdicts"
}

log_info "seed $SEED (IPT_SEED=$SEED to run it again)"
run 4 "$RULES" "$PACKETS"
run 6 $((RULES / 2)) $((PACKETS / 2))

exit "$EXIT_STATUS"
