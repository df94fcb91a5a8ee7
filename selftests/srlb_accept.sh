#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Connection-acceptance SIDs, the server side of the SRv6 load balancer
# (see "Connection-acceptance SIDs" in include/uapi/linux/tuplemerge.h).
# The client's route to the VIP puts an SRH (inline) on every packet, which
# hunts through the SIDs of s1, s2 and s3 in that order.  Each server routes
# its SID with the stock seg6local End; the module's hook, run by seg6local
# at LOCAL_IN before End, either takes the packet (SRH removed, destination
# the VIP, delivered to the server's listener) or lets End pass it on to the
# next server.  s3, the last candidate (segments left 2), always takes it.
# The servers answer the client directly, without an SRH.
#
#                  +--------------------------+
#                  | client                   |
#                  |   veth0 fd00:c::2/64     |
#                  +------------+-------------+
#                               |
#  +----------------------------+-----------------------------+
#  | router                vc fd00:c::1/64                    |
#  |   forwarding on; fc00:i::/64 via fd00:i::2 (i = 1, 2, 3) |
#  |   v1 fd00:1::1/64     v2 fd00:2::1/64    v3 fd00:3::1/64 |
#  +--------+-------------------+------------------+----------+
#           |                   |                  |
#  +--------+-------+  +--------+-------+  +-------+--------+
#  | srv1 ("s1")    |  | srv2 ("s2")    |  | srv3 ("s3")    |
#  |  veth0         |  |  veth0         |  |  veth0         |
#  |   fd00:1::2/64 |  |   fd00:2::2/64 |  |   fd00:3::2/64 |
#  |  SID           |  |  SID           |  |  SID           |
#  |   fc00:1::100  |  |   fc00:2::100  |  |   fc00:3::100  |
#  +----------------+  +----------------+  +----------------+
#
# Every server: lo fd00:100::1/128 (the VIP), default via fd00:i::1,
# forwarding on, "fc00:i::100/128 encap seg6local action End dev veth0", and
# socat listening on [fd00:100::1]:8080 that answers with its name ("s1"),
# then echoes what it reads.
#
# The router is the namespace lb of lib_srlb.sh's setup_srlb, with no load
# balancer configured.
#
# The client: default via fd00:c::1, and fd00:100::1/128 encap seg6 mode
# inline, whose SRH is
#	segments[4] fc00:1::100	s1, the first destination (segments left 4)
#	segments[3] fc00:2::100	s2
#	segments[2] fc00:3::100	s3, the last candidate (segments left 2)
#	segments[1] fd00:1b::1	the load balancer's SID, never reached
#	segments[0] fd00:100::1	the VIP
#
# A connection from the client sends "hello" and tells which server took
# it: "s1\nhello" is s1's answer with the data echoed.  Long-lived
# connections stay open while the policies change, and carry data later.

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_srlb.sh"

require_root
require_cmd ip socat python3 timeout ss
require_module

PORT=8080
PORTS=("$PORT")

TMP=$(mktemp -d)

# expect_counter I NAME WANT: one check that a counter of server I's SID
# is WANT, polled for up to 10 s (a counter may lag its packets a little).
expect_counter()
{
	poll_eq "s$1 $2" "$3" sidc "$1" "$2"
}

setup()
{
	setup_srlb 3 &&
		ip -n "$client" -6 route add "$VIP/128" encap seg6 mode inline \
			segs "$(sid_of 1),$(sid_of 2),$(sid_of 3),$LB_SID" \
			via fd00:c::1 dev veth0
}

# expect_conns N NAME: one check that N connections in a row are each
# answered by server NAME, with their data echoed.  Gives up at the second
# that is not (a connection that fails takes 30 s).
expect_conns()
{
	local n=$1 name=$2 i out bad=0 example=

	for ((i = 0; i < n && bad < 2; i++)); do
		out=$(connect)
		if [ "$out" != "$name"$'\n'hello ]; then
			[ "$bad" -eq 0 ] && example=${out//$'\n'/\\n}
			bad=$((bad + 1))
		fi
	done
	[ "$bad" -eq 0 ]
	check_err $? "$bad of the first $i of $n connections not answered by $name (one got '$example')"
}

# send_crafted: from the client, one TCP SYN to s1's SID with each SRH
# below (tag 0), all from one python3, built by srlb_pkt.py's packet().
# The TCP checksum is valid, over the final destination (segments[0], the
# VIP).
#  1. segments left 7, last entry 4: beyond the segment list	malformed
#  2. header length 248 bytes, 108 in the packet after the IPv6 header
#								malformed
#  3. header length 40 bytes (2 segments), last entry 4		malformed
#  4. well formed, segments left 1: s1's SID in the load balancer's
#     place, so no candidate: not a hunting packet.  Neither taken nor
#     counted as malformed: left to End, which drops it (its next
#     destination, the VIP, is local, and End never delivers locally).
#  5. 18 segments (16 candidates), one more than the module judges
#								malformed
MALFORMED_SENT=4
send_crafted()
{
	ip netns exec "$client" python3 - "$(dirname "$0")" fd00:c::2 \
		"$(sid_of 1)" "$VIP" "$LB_SID" "$(sid_of 3)" "$(sid_of 2)" \
		"$PORT" <<'EOF'
import socket
import sys

sys.path.insert(0, sys.argv[1])
from srlb_pkt import FLAGS, addr, packet  # noqa: E402

src, sid, vip, lb, s3, s2 = (addr(a) for a in sys.argv[2:8])
port = int(sys.argv[8])


def syn(sport, segs, **bad):
    """bad: the SRH's hdrlen or left (segments left), if malformed."""
    return packet(src, sid, segs, 0, sport, port, FLAGS["S"], 1000, 0, **bad)


segs = [vip, lb, s3, s2, sid]
pkts = [
    syn(40001, segs, left=7),
    syn(40002, segs, hdrlen=30),
    syn(40003, segs, hdrlen=4),
    syn(40004, [vip, sid]),
    syn(40005, [vip, lb] + [s3] * 15 + [sid]),
]
s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_RAW)
for p in pkts:
    s.sendto(p, (sys.argv[3], 0))
EOF
}

test_always()
{
	policies add always never never
	if [ "$RET" -ne 0 ]; then
		log_test "always: s1 takes every new connection"
		log_info "no SID could be bound: nothing else can work"
		exit "$EXIT_STATUS"
	fi
	expect_conns 10 s1
	expect_counter 1 accepted 10
	log_test "always: s1 takes every new connection"
}

test_never()
{
	local forced passed1 passed2

	policies replace never never never
	# A replace keeps the counters.
	expect_counter 1 accepted 10
	forced=$(sidc 3 forced)
	passed1=$(sidc 1 passed)
	passed2=$(sidc 2 passed)
	expect_conns 10 s3
	expect_counter 3 forced $((forced + 10))
	expect_counter 1 passed $((passed1 + 10))
	expect_counter 2 passed $((passed2 + 10))
	log_test "never everywhere: the last candidate, s3, takes them"
}

test_conns()
{
	local n got=()

	policies replace "conns 2" "conns 2" never
	# The connections of the first test are closed: none counts.
	expect_counter 1 conns-now 0
	for n in 1 2 3 4 5; do
		long_open "$n"
		check_err $? "long-lived connection $n not started"
		got+=("$(long_server "$n")")
	done
	expect_eq "servers of connections 1 to 5" "${got[*]}" "s1 s1 s2 s2 s3"
	expect_counter 1 conns-now 2
	expect_counter 2 conns-now 2
	for n in 1 2 3 4 5; do
		[ -n "${got[n - 1]}" ] || continue
		long_echo "$n" "data$n"
		check_err $? "connection $n: no echo of data$n"
	done
	long_close 1 2 3 4 5
	check_err $? "the connections did not end within 10 s"
	expect_counter 1 conns-now 0
	expect_counter 2 conns-now 0
	log_test "conns 2 (SR_c): 2 connections on s1, 2 on s2, then s3"
}

test_sticky()
{
	local steered

	policies replace always never never
	long_open 6
	check_err $? "long-lived connection 6 not started"
	expect_eq "connection 6 answered by" "$(long_server 6)" s1
	long_echo 6 before
	check_err $? "connection 6: no echo before the replace"
	steered=$(sidc 1 steered)
	tm_srv 1 sid replace "$(sid_of 1)" accept policy never
	check_err $? "s1: sid replace to never"
	long_echo 6 after
	check_err $? "connection 6: no echo after s1 became never"
	[ "$(sidc 1 steered)" -gt "${steered:-0}" ] 2>/dev/null
	check_err $? "s1 steered did not grow from '$steered': $(sidc 1 steered)"
	expect_conns 1 s3
	long_close 6
	check_err $? "connection 6 did not end within 10 s"
	log_test "replaced by never: s1 keeps its connection, new go to s3"
}

test_malformed()
{
	local malformed

	policies replace always never never
	malformed=$(sidc 1 malformed)
	send_crafted
	check_err $? "python3 could not send the crafted packets"
	# Sent after them: once it is answered, they have all arrived.
	expect_conns 1 s1
	expect_counter 1 malformed $((malformed + MALFORMED_SENT))
	log_test "malformed SRHs dropped and counted, s1 still takes SYNs"
}

# The load policy follows what the application reports (sid load).
test_load()
{
	policies replace "load 50" never never
	tm_srv 1 sid load "$(sid_of 1)" 10
	check_err $? "s1: sid load 10"
	expect_counter 1 load-now 10
	expect_conns 3 s1
	tm_srv 1 sid load "$(sid_of 1)" 80
	check_err $? "s1: sid load 80"
	expect_counter 1 load-now 80
	expect_conns 3 s3
	tm_srv 1 sid load "$(sid_of 1)" 49
	expect_conns 1 s1
	log_test "load 50: s1 takes connections while its reported load is below"
}

# dyn_milli: s1's dyn threshold in thousandths (JSON dyn_milli).
dyn_milli()
{
	tm_srv 1 -j sid show "$(sid_of 1)" |
		python3 -c 'import json, sys; print(json.load(sys.stdin).get("dyn_milli"))'
}

# dyn_replay C NAME...: the dyn threshold (thousandths) from C (in 1/65536)
# after s1's decisions as the first of 3 candidates: NAME s1 accepted, any
# other passed (s2 never takes one); the rule of accept.c, step 1/8 of a
# connection times (1/3 - accepted), within 1 and 2.
dyn_replay()
{
	local c=$1 name

	shift
	for name in "$@"; do
		if [ "$name" = s1 ]; then
			c=$((c + 8192 / 3 - 8192))
		else
			c=$((c + 8192 / 3))
		fi
		[ "$c" -lt 65536 ] && c=65536
		[ "$c" -gt 131072 ] && c=131072
	done
	echo $((c * 1000 / 65536)) "$c"
}

# names N: N connections one after the other, each over (the server's FIN
# sent: connect reads to the end) before the next; the name of the server
# of each ("" for none).
names()
{
	local i out

	for ((i = 0; i < $1; i++)); do
		out=$(connect)
		echo "${out%%$'\n'*}"
	done | xargs
}

# dyn 2 at s1, the first of 3 candidates: 13 short connections, each
# taken (none counts when the next comes), lower its threshold from 2 to 1
# (12 would) and no further; with a long connection counting, its
# decisions (the first passed at exactly 1, then taken with the
# threshold's fraction) move it as the rule says, replayed from which
# server answered each connection.
test_dyn()
{
	local got want c out
	local -a n1 n2

	policies replace "dyn 2" never always
	expect_eq "s1's dyn threshold at first" "$(dyn_milli)" 2000
	read -ra n1 <<<"$(names 13)"
	expect_eq "13 connections, none counting at the next" "${n1[*]}" \
		"$(printf 's1 %.0s' $(seq 13) | xargs)"
	read -r want c <<<"$(dyn_replay 131072 "${n1[@]}")"
	expect_eq "s1's dyn threshold after taking 13" "$(dyn_milli)" "$want"
	expect_eq "... which is its floor" "$want" 1000
	long_open 7
	expect_eq "a long connection" "$(long_server 7)" s1
	read -ra n2 <<<"$(names 8)"
	[[ ${n2[0]} == s3 && ${#n2[@]} -eq 8 && ${n2[*]} != *s2* ]]
	check_err $? "8 connections with one counting at s1: '${n2[*]}'"
	read -r want c <<<"$(dyn_replay "$c" s1 "${n2[@]}")"
	got=$(dyn_milli)
	# The first passed at exactly 1 (a rise); later ones may take it back
	# to 1 (taken at a small fraction): the replay says where it is.
	expect_eq "s1's dyn threshold replayed from '${n2[*]}'" "$got" "$want"
	long_close 7
	check_err $? "the long connection did not end within 10 s"
	out=$(tm_srv 1 sid replace "$(sid_of 1)" accept policy dyn 16385 2>&1)
	[[ $? -ne 0 && $out == *"1..16384"* ]]
	check_err $? "dyn 16385: '$out'"
	log_test "dyn 2: s1's threshold falls to 1 taking all, rises passing (${got}m)"
}

test_del()
{
	local i out rc

	for i in 1 2 3; do
		tm_srv "$i" sid del "$(sid_of "$i")"
		check_err $? "s$i: sid del $(sid_of "$i")"
	done
	# End alone passes the SYN by s1, s2 and s3 to the load balancer's
	# SID, which the router has no route to.
	out=$(CONNECT_TIMEOUT=5 connect)
	rc=$?
	check_fail "$rc" "a connection succeeded with no SID bound"
	expect_eq "answer with no SID bound" "${out//$'\n'/\\n}" ""
	for i in 1 2 3; do
		out=$(tm_srv "$i" sid show)
		check_err $? "s$i: sid show"
		expect_eq "s$i: sid show after sid del" "$out" ""
	done
	log_test "sid del: End alone passes connections by every server"
}

srlb_start

test_always
test_never
test_conns
test_sticky
test_malformed
test_load
test_dyn
test_del

exit "$EXIT_STATUS"
