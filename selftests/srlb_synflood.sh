#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The SRv6 load balancer's flow state under a flood of spoofed SYNs
# (Documentation/srv6-lb.rst, "Security model"): flows are bounded per
# service (max-flows) and per namespace (module parameter lb_max_flows),
# charged to the memory cgroup of the service's creator, and half-open
# flows (no server yet, or no packet of the client since the server
# answered) are evicted first, oldest first, when full.
#
# The topology of srlb_lb.sh: client -- lb -- srv1, srv2, srv3 (s3 unused).
# Service web (port 8080, choices 2, max-flows 100, SYN timeout 60 s: the
# flood's flows do not age out during the test); the flood comes from the
# client's link with sources in fd00:dead::/64 (lb routes them to a black
# hole).  The servers answer the flood's SYNs: each is reported, so lb
# learns its server, but no client ACK follows.
#
#  1. Three established connections, then 400 spoofed SYNs: web holds at
#     most 100 flows, the flood's evicted each other ("evicted"), the
#     established ones are still steered and carry data.
#  2. New good connections during the flood are remembered (steered)
#     and served (808c634: not remembered, "full").
#  3. lb_max_flows 150 and a second service, flooded: the namespace holds
#     at most 150 flows, the established ones stay.
#  4. The flow table grows (rhashtable): a service with room for twice
#     SCALE_FLOWS flows (default 20000), flooded with that many SYNs,
#     remembers one flow for each SYN that reached it, none refused or
#     evicted; a dump lists each once; a flush forgets them all;
#     BLAST_FLOWS (default 200000) SYNs of new flows as fast as tmblast
#     sends them: flows the ageing's walks found new are not aged out
#     (expired 0: the walk once read the time at its start, and a flow
#     added during a walk of many looked idle for ever); dumps running
#     while a flood adds flows and the service is deleted end cleanly (the
#     runner fails on any kernel warning).
#  5. With memory cgroups: a service made from a cgroup with memory.max a
#     little above its use, flooded: its flows are charged there, and past
#     memory.max they are not remembered ("ns-full").

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_srlb.sh"

require_root
require_cmd ip socat python3 timeout ss
require_module

LB_SID2=fd00:1b::2
LB_SID3=fd00:1b::3
PORT=8080
PORT2=8082
PORT3=8083
PORTS=("$PORT" "$PORT2" "$PORT3")
PARAM=/sys/module/tuplemerge/parameters/lb_max_flows

BLAST=${BLAST:-$TM_TOP/build/bench/tmblast}

TMP=$(mktemp -d)
MAX0=$(cat "$PARAM" 2>/dev/null)

test_cleanup()
{
	[ -n "$MAX0" ] && echo "$MAX0" >"$PARAM"
}

# steered_cport SERVICE CPORT: lb's flow of that client port, if steered.
steered_cport()
{
	tm_lb lb flows show "$1" 2>/dev/null |
		grep -E " cport $2 .* state (steer|closing) "
}

setup()
{
	setup_srlb 3 fd00:dead::/64 &&
		policies add always always always || return 1
	tm_lb table add lbt family ip6 hook prerouting &&
		tm_lb lb service add web vip "$VIP" sid "$LB_SID" tcp \
			port "$PORT" choices 2 max-flows 100 syn-timeout 60 &&
		tm_lb lb backend add web "$(sid_of 1)" &&
		tm_lb lb backend add web "$(sid_of 2)" &&
		tm_lb rule add lbt id 1 dst "$VIP/128" proto tcp dport "$PORT" \
			lb web || return 1
}

# flood PORT N: N SYNs to VIP:PORT from random sources of fd00:dead::/64.
flood()
{
	ip netns exec "$client" python3 - "$VIP" "$1" "$2" <<'EOF'
import os
import socket
import struct
import sys

vip = socket.inet_pton(socket.AF_INET6, sys.argv[1])
port, n = int(sys.argv[2]), int(sys.argv[3])
s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_RAW)
pre = socket.inet_pton(socket.AF_INET6, "fd00:dead::")[:8]
for i in range(n):
    src = pre + os.urandom(8)
    sport = 1024 + i % 60000
    tcp = struct.pack("!HHIIBBHHH", sport, port, i, 0, 5 << 4, 0x02,
                      65535, 0, 0)
    # The checksum over the pseudo-header: the servers' TCP answers.
    ph = src + vip + struct.pack("!II", len(tcp), 6)
    data = ph + tcp
    c = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while c >> 16:
        c = (c & 0xffff) + (c >> 16)
    tcp = tcp[:16] + struct.pack("!H", ~c & 0xffff) + tcp[18:]
    pkt = struct.pack("!IHBB", 6 << 28, len(tcp), 6, 64) + src + vip + tcp
    s.sendto(pkt, (sys.argv[1], 0))
EOF
}

test_established()
{
	local n hunts evicted steered flows

	for n in 1 2 3; do
		long_open "$n"
		[ -n "$(long_server "$n")" ]
		check_err $? "long connection $n not answered"
		long_echo "$n" "before$n"
		check_err $? "long connection $n: no echo before the flood"
	done
	hunts=$(lbc web hunts)
	evicted=$(lbc web evicted)
	evicted=${evicted:-0}
	flood "$PORT" 400
	check_err $? "python3 could not send the flood"
	poll_until 20 -ge $((hunts + 400)) lbc web hunts >/dev/null
	flows=$(lbc web flows)
	[ "$flows" -le 100 ] 2>/dev/null
	check_err $? "web holds $flows flows, more than max-flows 100"
	[ "$(lbc web evicted)" -ge $((evicted + 250)) ] 2>/dev/null
	check_err $? "web evicted $(lbc web evicted) flows, not 250 more than $evicted"
	steered=$(lbc web steered)
	for n in 1 2 3; do
		long_echo "$n" "after$n"
		check_err $? "long connection $n: no echo after the flood"
	done
	[ "$(lbc web steered)" -ge $((steered + 3)) ] 2>/dev/null
	check_err $? "the established connections were not steered after the flood"
	log_info "web: flows $flows, evicted $(lbc web evicted), full $(lbc web full)"
	log_test "SYN flood: bounded, the flood evicts itself, established flows stay"
}

test_good_during_flood()
{
	local pid i got ok=0 kept=0 full

	full=$(lbc web full)
	# After the flood: the table is full of its half-open flows.
	for i in 1 2 3 4 5; do
		got=$(connect_from $((43000 + i)))
		case "$got" in
		s[12]) ok=$((ok + 1)) ;;
		esac
		[ -n "$(steered_cport web $((43000 + i)))" ] && kept=$((kept + 1))
	done
	expect_eq "good connections served after the flood" "$ok" 5
	expect_eq "good connections remembered after the flood" "$kept" 5
	log_info "web full $full -> $(lbc web full)"
	# During one.
	ok=0 kept=0
	flood "$PORT" 3000 &
	pid=$!
	for i in 1 2 3 4 5; do
		got=$(connect_from $((43100 + i)))
		case "$got" in
		s[12]) ok=$((ok + 1)) ;;
		esac
		[ -n "$(steered_cport web $((43100 + i)))" ] && kept=$((kept + 1))
	done
	wait "$pid"
	expect_eq "good connections served during the flood" "$ok" 5
	log_info "good connections remembered during the flood: $kept of 5"
	log_test "SYN flood: new good connections served and remembered"
}

test_netns_cap()
{
	local n total hunts ev

	if [ ! -w "$PARAM" ]; then
		check_err 1 "no module parameter lb_max_flows"
		log_test "namespace cap: lb_max_flows"
		return
	fi
	echo 150 >"$PARAM"
	tm_lb lb service add other vip "$VIP" sid "$LB_SID2" tcp \
		port "$PORT2" choices 2 syn-timeout 60 &&
		tm_lb lb backend add other "$(sid_of 1)" &&
		tm_lb rule add lbt id 2 dst "$VIP/128" proto tcp \
			dport "$PORT2" lb other
	check_err $? "service other"
	hunts=$(lbc other hunts)
	ev=$(( $(lbc web evicted) + $(lbc other evicted) ))
	flood "$PORT2" 300
	poll_until 20 -ge $((hunts + 300)) lbc other hunts >/dev/null
	total=$(( $(lbc web flows) + $(lbc other flows) ))
	[ "$total" -le 150 ] 2>/dev/null
	check_err $? "the namespace holds $total flows, more than lb_max_flows 150"
	[ $(( $(lbc web evicted) + $(lbc other evicted) )) -ge $((ev + 150)) ]
	check_err $? "not 150 flows evicted for room in the namespace"
	for n in 1 2 3; do
		long_echo "$n" "capped$n"
		check_err $? "long connection $n: no echo after the second flood"
	done
	log_info "web flows $(lbc web flows), other flows $(lbc other flows) evicted $(lbc other evicted) ns-full $(lbc other ns-full)"
	echo "$MAX0" >"$PARAM"
	log_test "namespace cap lb_max_flows: at most 150 flows, established stay"
}

# The figures of flows not remembered or forgotten, as one line.
refusals()
{
	echo "full $(lbc "$1" full) ns-full $(lbc "$1" ns-full)" \
		"evicted $(lbc "$1" evicted) expired $(lbc "$1" expired)"
}

# blast PORT N: N SYNs to VIP:PORT, each of a new flow (from
# fd00:dead::1:0 plus its number), sent by tmblast from the client's link.
blast()
{
	python3 - "$TMP/syn" "$VIP" "$1" <<'EOF' || return 1
import socket, struct, sys
src = socket.inet_pton(socket.AF_INET6, "fd00:dead::1:0")
vip = socket.inet_pton(socket.AF_INET6, sys.argv[2])
tcp = struct.pack("!HHIIBBHHH", 1000, int(sys.argv[3]), 1, 0, 5 << 4, 0x02,
                  65535, 0, 0)
data = src + vip + struct.pack("!II", len(tcp), 6) + tcp
c = sum(struct.unpack("!%dH" % (len(data) // 2), data))
while c >> 16:
    c = (c & 0xffff) + (c >> 16)
tcp = tcp[:16] + struct.pack("!H", ~c & 0xffff) + tcp[18:]
pkt = struct.pack("!IHBB", 6 << 28, len(tcp), 6, 64) + src + vip + tcp
open(sys.argv[1], "wb").write(struct.pack("!H", len(pkt)) + pkt)
EOF
	ip netns exec "$client" "$BLAST" -i veth0 \
		-m "$(ip netns exec "$lb" cat /sys/class/net/vc/address)" \
		-f "$TMP/syn" -n "$2" -F "$2" >/dev/null
}

test_table_scale()
{
	local n=${SCALE_FLOWS:-20000} m=${BLAST_FLOWS:-200000} hunts flows shown
	local pid i

	tm_lb rule del lbt id 2 && tm_lb lb service del other &&
		tm_lb lb service add big vip "$VIP" sid "$LB_SID2" tcp \
			port "$PORT2" choices 2 max-flows $((n + m)) \
			syn-timeout 3600 fin-timeout 3600 &&
		tm_lb lb backend add big "$(sid_of 1)" &&
		tm_lb lb backend add big "$(sid_of 2)" &&
		tm_lb rule add lbt id 2 dst "$VIP/128" proto tcp \
			dport "$PORT2" lb big
	check_err $? "service big"
	flood "$PORT2" "$n"
	check_err $? "python3 could not send the flood"
	poll_until 30 -ge "$n" lbc big hunts >/dev/null
	hunts=$(lbc big hunts)
	# A hunt is counted before its flow is added: the last may be on
	# their way.
	flows=$(poll_until 10 -ge "$hunts" lbc big flows)
	log_info "big: $n SYNs sent, $hunts hunted, $flows flows, $(refusals big)"
	[ "$hunts" -ge $((n * 9 / 10)) ] 2>/dev/null
	check_err $? "only $hunts of $n SYNs reached the load balancer"
	expect_eq "big's flows, one per SYN hunted" "$flows" "$hunts"
	expect_eq "big's refusals" "$(refusals big)" \
		"full 0 ns-full 0 evicted 0 expired 0"
	shown=$(tm_lb lb flows show big | awk '{ print $3, $5 }' | sort)
	expect_eq "flows dumped" "$(wc -l <<<"$shown")" "$flows"
	expect_eq "flows dumped twice" "$(uniq -d <<<"$shown" | wc -l)" 0
	tm_lb lb flows flush big
	check_err $? "lb flows flush big"
	expect_eq "big's flows after a flush" "$(lbc big flows)" 0
	expect_eq "flows dumped after a flush" \
		"$(tm_lb lb flows show big | wc -l)" 0
	if [ -x "$BLAST" ]; then
		hunts=$(lbc big hunts)
		blast "$PORT2" "$m"
		check_err $? "tmblast could not send $m SYNs"
		hunts=$(($(poll_until 30 -ge $((hunts + m)) lbc big hunts) - hunts))
		flows=$(poll_until 10 -ge "$hunts" lbc big flows)
		log_info "big: $m SYNs blasted, $hunts hunted, $flows flows, $(refusals big)"
		[ "$hunts" -ge $((m / 2)) ] 2>/dev/null
		check_err $? "only $hunts of $m blasted SYNs reached the load balancer"
		expect_eq "big's flows, one per SYN blasted and hunted" \
			"$flows" "$hunts"
		expect_eq "big's refusals after the blast" "$(refusals big)" \
			"full 0 ns-full 0 evicted 0 expired 0"
		tm_lb lb flows flush big
	else
		check_err 1 "no $BLAST (make tools)"
	fi
	# Dumps of a table that grows, and of a service that goes.
	flood "$PORT2" 5000 &
	pid=$!
	for i in 1 2 3 4 5 6; do
		tm_lb lb flows show >/dev/null 2>&1
	done
	wait "$pid"
	tm_lb lb flows show >/dev/null 2>&1 &
	pid=$!
	tm_lb rule del lbt id 2 && tm_lb lb service del big
	check_err $? "service big deleted with its flows"
	wait "$pid"
	expect_eq "flows left of big" \
		"$(tm_lb lb flows show | grep -c "^big ")" 0
	log_test "flow table: $n flows remembered and dumped once, flushed, dumped while growing"
}

test_memcg()
{
	local cur nsfull flows

	if ! memcg_new lbflows; then
		[ "$RET" -ne 0 ] && log_test "memory cgroup"
		return
	fi
	# The service's creator is in the cgroup: its flows are charged there.
	in_memcg "$CG" "$TMCTL" -n "$lb" lb service add capped vip "$VIP" \
		sid "$LB_SID3" tcp port "$PORT3" choices 2 syn-timeout 60 &&
		tm_lb lb backend add capped "$(sid_of 2)" &&
		tm_lb rule add lbt id 3 dst "$VIP/128" proto tcp \
			dport "$PORT3" lb capped
	check_err $? "service capped, made from $CG"
	cur=$(memcg_pinned "$CG")
	echo $((cur + 65536)) >"$CG/memory.max"
	nsfull=$(lbc capped ns-full)
	flood "$PORT3" 3000
	sleep 1
	flows=$(lbc capped flows)
	log_info "capped: memory.current $cur -> $(cat "$CG/memory.current"), max $((cur + 65536)), flows $flows, ns-full $(lbc capped ns-full)"
	[ "$(cat "$CG/memory.current")" -gt $((cur + 8192)) ] 2>/dev/null
	check_err $? "the flows were not charged to the service's creator"
	# 64 KiB hold 341 flows, and a CPU's bytes charged ahead < 4 KiB more.
	[ "$flows" -le 400 ] 2>/dev/null
	check_err $? "$flows flows of 192 bytes fit in 64 KiB above memory.current"
	[ "$(lbc capped ns-full)" -gt "${nsfull:-0}" ] 2>/dev/null
	check_err $? "no flow refused at memory.max (ns-full $(lbc capped ns-full))"
	tm_lb rule del lbt id 3 && tm_lb lb service del capped
	log_test "memory cgroup: flows charged to the service's creator, bounded by memory.max"
}

srlb_start

test_established
test_good_during_flood
test_netns_cap
test_table_scale
test_memcg
long_close 1 2 3

exit "$EXIT_STATUS"
