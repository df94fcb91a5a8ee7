#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The SRv6 load balancer end to end (Documentation/srv6-lb.rst): the
# module in the load balancer's namespace sends each new TCP connection
# through the candidates of an SRH it inserts; the module in each server's
# namespace accepts it or passes it on (srlb_accept.sh tests that side
# alone); the accepting server reports itself with its SYN-ACK, through the
# load balancer, which then steers the connection straight to it; the
# server's later replies go directly to the client.
#
#                  +--------------------------+
#                  | client                   |
#                  |   veth0 fd00:c::2/64     |
#                  +------------+-------------+
#                               |
#  +----------------------------+-----------------------------+
#  | lb                    vc fd00:c::1/64                    |
#  |   forwarding on; fc00:i::/64 via fd00:i::2 (i = 1, 2, 3) |
#  |   table lbt (ip6, prerouting):                           |
#  |     dst VIP tcp dport 8080 -> lb web   (LB SID fd00:1b::1) |
#  |     dst VIP tcp dport 8081 -> lb aging (LB SID fd00:1b::2) |
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
# Every server: lo fd00:100::1/128 (the VIP), default via fd00:i::1 (so
# reports to the LB SIDs reach lb), "fc00:i::100/128 encap seg6local action
# End dev veth0" bound with tmctl sid add, and socat on [VIP]:8080 and
# [VIP]:8081 answering with its name ("s1"), then echoing what it reads.
# Both services hunt through all three servers (choices 3); "aging" has
# timeouts of 1-2 s.  Every link has the default MTU, 1500: the SRH does
# not fit a full-sized packet of the client, which lb answers with Packet
# Too Big.

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_srlb.sh"

require_root
require_cmd ip socat python3 timeout ss
require_module

LB_SID2=fd00:1b::2
PORT=8080
PORT2=8081
PORTS=("$PORT" "$PORT2")

TMP=$(mktemp -d)

# steered_flows: how many of web's flows lb steers to a known server.
steered_flows()
{
	tm_lb lb flows show web 2>/dev/null | grep -c " state steer "
}

# lb_config: the services, their backends and rules on lb.
lb_config()
{
	local i

	tm_lb lb service add web vip "$VIP" sid "$LB_SID" tcp port "$PORT" \
		choices 3 &&
		tm_lb lb service add aging vip "$VIP" sid "$LB_SID2" tcp \
			port "$PORT2" choices 3 idle-timeout 2 fin-timeout 1 \
			syn-timeout 1 || return 1
	for i in 1 2 3; do
		tm_lb lb backend add web "$(sid_of "$i")" &&
			tm_lb lb backend add aging "$(sid_of "$i")" || return 1
	done
	tm_lb rule add lbt id 1 dst "$VIP/128" proto tcp dport "$PORT" \
		lb web &&
		tm_lb rule add lbt id 2 dst "$VIP/128" proto tcp dport "$PORT2" \
			lb aging
}

setup()
{
	setup_srlb 3 &&
		tm_lb table add lbt family ip6 hook prerouting &&
		lb_config
}

# conns N: N short connections; prints the server of each (one line each,
# "bad" for a connection that failed or came back wrong).
conns()
{
	local i out

	for ((i = 0; i < $1; i++)); do
		out=$(connect)
		case "$out" in
		s[123]$'\n'hello) echo "${out%%$'\n'*}" ;;
		*) echo bad ;;
		esac
	done
}

# The client of the transfer tests: "bulk N" sends N random bytes at once
# and reads them back; "until FILE" sends 1000 bytes every 50 ms until FILE
# exists (at most 50 s), each echoed before the next.  Prints "SERVER ok
# BYTES" once everything came back unchanged, else what went wrong.
cat >"$TMP/client.py" <<'EOF'
import os
import socket
import sys
import time

vip, port, mode, arg = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
s = socket.create_connection((vip, port), timeout=20)
f = s.makefile("rb")
name = f.readline().strip().decode()

def readn(n):
    buf = f.read(n)
    if len(buf) != n:
        sys.exit("%s short echo: %d of %d bytes" % (name, len(buf), n))
    return buf

if mode == "bulk":
    data = os.urandom(int(arg))
    s.sendall(data)
    s.shutdown(socket.SHUT_WR)
    total = len(data)
    if readn(total) != data:
        sys.exit(name + " echo differs")
else:
    end = time.monotonic() + 50
    total = 0
    while not os.path.exists(arg) and time.monotonic() < end:
        data = os.urandom(1000)
        s.sendall(data)
        if readn(len(data)) != data:
            sys.exit(name + " echo differs")
        total += len(data)
        time.sleep(0.05)
    s.shutdown(socket.SHUT_WR)
if f.read(1):
    sys.exit(name + " extra bytes")
print(name, "ok", total)
EOF

client_py()
{
	ip netns exec "$client" timeout 60 python3 "$TMP/client.py" "$VIP" "$@"
}

test_always()
{
	local got hunts

	policies add always never never
	if [ "$RET" -ne 0 ]; then
		log_test "always at s1: s1 takes every connection"
		log_info "no SID could be bound: nothing else can work"
		exit "$EXIT_STATUS"
	fi
	hunts=$(lbc web hunts)
	got=$(conns 10 | sort | uniq -c | awk '{ print $2 "=" $1 }' | xargs)
	expect_eq "servers of 10 connections" "$got" "s1=10"
	poll_eq "s1 accepted" 10 sidc 1 accepted
	expect_eq "lb hunts" "$(lbc web hunts)" $((hunts + 10))
	# Each SYN-ACK reported s1 to lb, which learnt it.
	[ "$(lbc web learned)" -ge 10 ] 2>/dev/null
	check_err $? "lb learned $(lbc web learned) servers, not 10"
	log_test "always at s1: s1 takes every connection"
}

test_never()
{
	local got forced passed

	policies replace never never never
	forced=$(sum_sidc forced)
	passed=$(sum_sidc passed)
	got=$(conns 12)
	expect_eq "failed connections" "$(grep -c bad <<<"$got")" 0
	# Each went through all 3 candidates: the last one took it.
	poll_eq "connections forced on the last candidate" $((forced + 12)) \
		sum_sidc forced
	expect_eq "connections passed on" "$(sum_sidc passed)" $((passed + 24))
	log_info "servers: $(sort <<<"$got" | uniq -c | xargs)"
	log_test "never everywhere: every connection on its last candidate"
}

test_conns()
{
	local n i got=()

	policies replace "conns 2" "conns 2" "conns 2"
	for i in 1 2 3; do
		poll_eq "s$i conns-now" 0 sidc "$i" conns-now
	done
	for n in 1 2 3 4 5 6; do
		long_open "$n"
		got+=("$(long_server "$n")")
	done
	expect_eq "servers of 6 long connections" \
		"$(printf '%s\n' "${got[@]}" | sort | xargs)" "s1 s1 s2 s2 s3 s3"
	for i in 1 2 3; do
		poll_eq "s$i conns-now" 2 sidc "$i" conns-now
	done
	for n in 1 2 3 4 5 6; do
		long_echo "$n" "data$n"
		check_err $? "connection $n: no echo of data$n"
	done
	long_close 1 2 3 4 5 6
	check_err $? "the connections did not end within 10 s"
	for i in 1 2 3; do
		poll_eq "s$i conns-now after close" 0 sidc "$i" conns-now
	done
	log_test "conns 2 (SR_c): two connections on each server"
}

# The server reports through lb until lb steers the flow to it; then its
# replies go straight to the client.
test_sticky()
{
	local s i reports steered line

	policies replace always always always
	long_open 7
	s=$(long_server 7)
	i=${s#s}
	case "$i" in
	[123]) ;;
	*) check_err 1 "long connection 7 not answered ('$s')"
	   log_test "stickiness and direct return"
	   return ;;
	esac
	long_echo 7 first
	check_err $? "connection 7: no first echo"
	reports=$(sidc "$i" reports)
	steered=$(lbc web steered)
	for w in a b c d e f g h; do
		long_echo 7 "word$w"
		check_err $? "connection 7: no echo of word$w"
	done
	expect_eq "reports of s$i during 8 echoes" "$(sidc "$i" reports)" \
		"$reports"
	[ "$(lbc web steered)" -ge $((steered + 8)) ] 2>/dev/null
	check_err $? "lb steered $(lbc web steered), not 8 more than $steered"
	line=$(tm_lb lb flows show web | grep " state steer ")
	grep -q " server $(sid_of "$i") " <<<"$line"
	check_err $? "lb flow not steered to s$i: '$line'"
	long_close 7
	check_err $? "connection 7 did not end"
	log_test "stickiness: steered to s$i, replies direct, not reported"
}

# Removing a backend: its connections stay, new ones go elsewhere.
test_backend_del()
{
	local s i got refused

	policies replace always always always
	long_open 8
	s=$(long_server 8)
	i=${s#s}
	tm_lb lb backend del web "$(sid_of "$i")"
	check_err $? "backend del $(sid_of "$i")"
	long_echo 8 still
	check_err $? "connection 8 lost with its backend removed"
	got=$(conns 8)
	expect_eq "connections on the removed $s" "$(grep -cx "$s" <<<"$got")" 0
	expect_eq "failed connections" "$(grep -c bad <<<"$got")" 0
	# Its close too: the removed server's FIN, a report, reaches the
	# client and is not refused.
	refused=$(lbc web refused)
	long_close 8
	check_err $? "connection 8 did not end"
	expect_eq "reports refused during the close of connection 8" \
		"$(lbc web refused)" "$refused"
	tm_lb lb backend add web "$(sid_of "$i")"
	check_err $? "backend add $(sid_of "$i")"
	log_test "backend del: $s keeps its connection, gets no new one"
}

test_mtu()
{
	local out big

	policies replace always always always
	big=$(lbc web too-big)
	out=$(client_py "$PORT" bulk 300000 2>&1)
	[[ "$out" =~ ^s[123]\ ok\ 300000$ ]]
	check_err $? "300000 bytes both ways: '$out'"
	[ "$(lbc web too-big)" -gt "$big" ] 2>/dev/null
	check_err $? "lb sent no Packet Too Big ($(lbc web too-big))"
	log_test "MTU: Packet Too Big leaves room for the SRH, data intact"
}

test_aging()
{
	local expired rec s

	policies replace always always always
	expired=$(lbc aging expired)
	[ "$(connect "$PORT2")" != "" ]
	check_err $? "no connection to port $PORT2"
	# FIN seen: the flow goes within fin-timeout 1 s (and the 1 s GC).
	poll_eq "aging flows after a closed connection" 0 lbc aging flows
	[ "$(lbc aging expired)" -gt "$expired" ] 2>/dev/null
	check_err $? "no flow counted expired"

	rec=$(lbc aging recoveries)
	long_open 9 "$PORT2"
	s=$(long_server 9)
	long_echo 9 before
	check_err $? "connection 9: no echo"
	poll_eq "aging flows once idle for 2 s" 0 lbc aging flows
	# lb forgot it: the data hunts, and only its server takes it.
	long_echo 9 after
	check_err $? "connection 9: no echo after lb forgot the flow"
	[ "$(lbc aging recoveries)" -gt "$rec" ] 2>/dev/null
	check_err $? "no recovery counted"
	tm_lb lb flows show aging | grep -q " state steer server "
	check_err $? "the recovered flow is not steered: $(tm_lb lb flows show aging)"
	long_close 9
	log_test "idle and closed flows age out; $s recovers its idle flow"
}

# A transfer survives lb forgetting its flows, then lb's whole
# configuration going and coming back (a restart).  The transfer goes on
# until lb has recovered it after each: its data, not its end, crosses both.
test_restart()
{
	local pid out rec

	policies replace always always always
	rm -f "$TMP/stop"
	# Only the transfer's flow from here on.
	tm_lb lb flows flush web
	rec=$(lbc web recoveries)
	client_py "$PORT" until "$TMP/stop" >"$TMP/trickle" 2>&1 &
	pid=$!
	poll_gt "web flows steered before the flush" 0 steered_flows
	tm_lb lb flows flush web
	check_err $? "lb flows flush web"
	poll_gt "web recoveries after the flush" "$rec" lbc web recoveries
	tm_lb rule del lbt id 1 && tm_lb rule del lbt id 2 &&
		tm_lb lb service del web && tm_lb lb service del aging
	check_err $? "removing lb's configuration"
	sleep 1
	lb_config
	check_err $? "configuring lb again"
	poll_gt "web recoveries after the restart" 0 lbc web recoveries
	touch "$TMP/stop"
	wait "$pid"
	out=$(cat "$TMP/trickle")
	[[ "$out" =~ ^s[123]\ ok\ [0-9]+$ ]]
	check_err $? "transfer across the restart: '$out'"
	log_test "lb restart mid-transfer: the connection lives on"
}

# Packets to an LB SID that are not well-formed reports: dropped, counted.
send_bad_reports()
{
	ip netns exec "${SRV[1]}" python3 - fd00:1::2 "$LB_SID" "$VIP" \
		fd00:c::2 "$(sid_of 1)" "$PORT" <<'EOF'
import socket
import struct
import sys

def addr(a):
    return socket.inet_pton(socket.AF_INET6, a)

src, lb, vip, client, sid = (addr(a) for a in sys.argv[1:6])
port = int(sys.argv[6])
tcp = struct.pack("!HHIIBBHHH", port, 40000, 1, 1, 5 << 4, 0x12, 65535, 0, 0)

def packet(saddr, tag, left, segs):
    srh = struct.pack("!BBBBBBH", 6, 2 * len(segs), 4, left, len(segs) - 1,
                      0, tag)
    payload = srh + b"".join(segs) + tcp
    return (struct.pack("!IHBB", 6 << 28, len(payload), 43, 64) +
            saddr + lb + payload)

REPORT = 0x5204
pkts = [
    packet(vip, 0, 2, [client, sid, lb]),                # not a report
    packet(vip, REPORT, 1, [client, lb]),                 # 2 segments
    packet(vip, REPORT, 3, [client, sid, sid, lb]),       # 4 segments
    packet(src, REPORT, 2, [client, sid, lb]),            # not from the VIP
]
s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_RAW)
for p in pkts:
    s.sendto(p, (sys.argv[2], 0))
EOF
}

test_malformed()
{
	local bad

	bad=$(lbc web malformed)
	send_bad_reports
	check_err $? "python3 could not send the crafted reports"
	poll_eq "lb malformed" $((bad + 4)) lbc web malformed
	[ "$(conns 1)" != bad ]
	check_err $? "no connection after the malformed reports"
	log_test "malformed reports to the LB SID dropped and counted"
}

# What the configuration refuses, with the reason.
test_errors()
{
	local out

	out=$(tm_lb lb service del web 2>&1)
	check_fail $? "service del of a service a rule uses"
	[[ "$out" == *"in use"* ]]
	check_err $? "service in use: '$out'"
	out=$(tm_lb rule add lbt id 9 dst "$VIP/128" lb nosuch 2>&1)
	check_fail $? "rule for a service that does not exist"
	[[ "$out" == *"No load-balancer service"* ]]
	check_err $? "no such service: '$out'"
	tm_lb table add inp family ip6 hook input >/dev/null 2>&1
	out=$(tm_lb rule add inp id 1 dst "$VIP/128" lb web 2>&1)
	check_fail $? "lb rule in an input table"
	[[ "$out" == *"prerouting"* ]]
	check_err $? "lb rule at input: '$out'"
	tm_lb table del inp >/dev/null 2>&1
	out=$(tm_lb lb service add other vip fd00:200::1 sid "$LB_SID" 2>&1)
	check_fail $? "a second service with the same LB SID"
	out=$(tm_lb lb backend add web "$(sid_of 1)" 2>&1)
	check_fail $? "a backend twice"
	out=$(tm_lb lb service add other vip fd00:200::1 sid fd00:1b::9 \
		table-size 65536 2>&1)
	check_fail $? "a table size that is not a prime"
	[[ "$out" == *prime* ]]
	check_err $? "table size: '$out'"
	log_test "configuration errors refused with their reason"
}

srlb_start

test_always
test_never
test_conns
test_sticky
test_backend_del
test_mtu
test_aging
test_malformed
test_errors
test_restart

exit "$EXIT_STATUS"
