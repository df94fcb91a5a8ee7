#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The packet fuzzer (pkt_fuzz.py) against every packet path of the module,
# in the topology of srlb_lb.sh plus IPv4 and classifier tables on lb:
#
#                  +---------------------------------+
#                  | client   veth0 fd00:c::2/64      |
#                  |                10.9.0.2/24       |
#                  +---------------+-----------------+
#                                  |  <- AF_PACKET "client"
#  +-------------------------------+---------------------------------+
#  | lb   vc fd00:c::1/64, 10.9.0.1/24; forwarding on                 |
#  |   lbt (ip6, prerouting): dst VIP tcp dport 8080 -> lb web         |
#  |       (LB SID fd00:1b::1, backends fc00:{1,2,3}::100, choices 3) |
#  |     dst VIP udp dport 8080 -> lb dgram (LB SID fd00:1b::2, same) |
#  |   c4 (ip, input, tss), c6 (ip6, input, linear), cin (inet,       |
#  |   forward): port ranges, count, mark, drop, reject rules          |
#  |   v1 fd00:1::1/64 -> AF_PACKET "direct"    v2, v3                 |
#  +---------+-----------------------+-----------------------+--------+
#            |  <- AF_PACKET "server" |                       |
#  +---------+------+        +--------+-------+      +--------+-------+
#  | srv1 (s1)      |        | srv2 (s2)      |      | srv3 (s3)      |
#  | SID fc00:1::100|        | SID fc00:2::100|      | SID fc00:3::100|
#  +----------------+        +----------------+      +----------------+
#
# Servers as in srlb_lb.sh: the VIP on lo, the SID routed with End and
# bound with "tmctl sid add ... accept" (policies always, conns 4, never),
# socat on [VIP]:8080.  Packets: broken hunting SRHs at s1's SID, through
# lb and straight from lb's side of the link; broken reports at the LB
# SID from s1's side; odd TCP/UDP/extension headers at the VIP through the
# lb rule; odd IPv4 and IPv6 at lb's own addresses (the classifier tables).
#
# Then: a real connection through the load balancer still works, the
# malformed counters of s1's SID and of the service moved (at least by the
# known-malformed packets sent first), and the classifier tables saw
# packets.  The kernel's own reports fail the VM run.
#
#   FUZZ_TIME   seconds of fuzzing (default 45)
#   FUZZ_SEED   seed (default random, printed); the packets sent are in
#               $TM_RESULTS/pkt_fuzz-SEED.log (hex, one a line)

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_srlb.sh"

require_root
require_cmd ip socat python3 timeout ss
require_module

FUZZ_TIME=${FUZZ_TIME:-45}
seed=${FUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
[[ $FUZZ_TIME =~ ^[0-9]+$ ]] || { echo "FUZZ_TIME: not a number"; exit 1; }

PORT=8080
PORTS=("$PORT")

TMP=$(mktemp -d)

lookups()
{
	tm_lb table show "$1" 2>/dev/null | number_after lookups
}

mac_of()
{
	ip -n "$1" link show "$2" | awk '/link\/ether/ { print $2 }'
}

setup()
{
	local i

	setup_srlb 3 &&
		ip -n "$client" addr add 10.9.0.2/24 dev veth0 &&
		ip -n "$lb" addr add 10.9.0.1/24 dev vc &&
		ip netns exec "$lb" sysctl -qw net.ipv4.ip_forward=1 || return 1
	policies add always "conns 4" never || return 1
	tm_lb table add lbt family ip6 hook prerouting &&
		tm_lb lb service add web vip "$VIP" sid "$LB_SID" tcp \
			port "$PORT" choices 3 || return 1
	# UDP to the same VIP and port: its datagrams hunt in two passes.
	tm_lb lb service add dgram vip "$VIP" sid fd00:1b::2 udp \
		port "$PORT" choices 3 || return 1
	for i in 1 2 3; do
		tm_lb lb backend add web "$(sid_of "$i")" &&
			tm_lb lb backend add dgram "$(sid_of "$i")" || return 1
	done
	tm_lb rule add lbt id 1 dst "$VIP/128" proto tcp dport "$PORT" lb web &&
		tm_lb rule add lbt id 2 dst "$VIP/128" proto udp dport "$PORT" \
			lb dgram &&
		tm_lb table add c4 family ip hook input engine tss &&
		tm_lb table add c6 family ip6 hook input engine linear &&
		tm_lb table add cin family inet hook forward policy accept ||
		return 1
	tm_lb -f - <<-EOF
	rule add c4 id 1 src 10.9.0.0/24 proto tcp dport 1000-2000 count
	rule add c4 id 2 proto udp dport 7000-7999 reject
	rule add c4 id 3 proto tcp dport 7000-7999 reject with tcp-reset
	rule add c4 id 4 proto udp sport 0-1023 mark 0x7
	rule add c4 id 5 proto 47 drop
	rule add c6 id 1 src fd00:c::/64 proto udp dport 53 count
	rule add c6 id 2 proto tcp dport 7000-7999 reject
	rule add c6 id 3 proto udp dport 7000-7999 reject with port-unreachable
	rule add c6 id 4 dst fd00:c::1/128 proto 58 count
	rule add c6 id 5 proto tcp dport 1000-1500 drop
	rule add cin id 1 proto tcp dport 8081 count
	rule add cin id 2 dst fc00::/16 count
	rule add cin id 3 proto udp drop
	EOF
}

# The known-malformed packets of srlb_accept.sh and srlb_lb.sh, sent first
# so that the counters must move whatever the random ones do.
send_known_bad()
{
	ip netns exec "$client" python3 - fd00:c::2 "$(sid_of 1)" "$VIP" \
		"$LB_SID" "$(sid_of 3)" fd00:1::2 "${SRV[1]}" <<'EOF'
import ctypes
import os
import socket
import struct
import sys

def addr(a):
    return socket.inet_pton(socket.AF_INET6, a)

src, sid, vip, lb, s3, srv = (addr(a) for a in sys.argv[1:7])
tcp = struct.pack("!HHIIBBHHH", 40001, 8080, 1, 0, 5 << 4, 0x02, 65535, 0,
                  0)

def packet(saddr, daddr, tag, hdrlen, left, last, segs):
    srh = struct.pack("!BBBBBBH", 6, hdrlen, 4, left, last, 0, tag)
    payload = srh + b"".join(segs) + tcp
    return (struct.pack("!IHBB", 6 << 28, len(payload), 43, 64) +
            saddr + daddr + payload)

segs = [vip, lb, s3, sid]
to_sid = [packet(src, sid, 0x5201, 8, 7, 3, segs),       # SL past the list
          packet(src, sid, 0x5201, 8, 3, 7, segs),       # last past it
          packet(src, sid, 0x5201, 4, 3, 3, segs)]       # hdrlen short
s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_RAW)
for p in to_sid:
    s.sendto(p, (sys.argv[2], 0))
# Reports from s1's namespace: 2 and 4 segments, not from the VIP.
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open("/run/netns/" + sys.argv[7], os.O_RDONLY)
libc.setns(fd, 0x40000000)
client = src
reports = [packet(vip, lb, 0x5204, 4, 1, 1, [client, lb]),
           packet(vip, lb, 0x5204, 8, 3, 3, [client, sid, sid, lb]),
           packet(srv, lb, 0x5204, 6, 2, 2, [client, sid, lb])]
s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_RAW)
for p in reports:
    s.sendto(p, (sys.argv[4], 0))
EOF
}

srlb_start

out=$(connect "$PORT")
[[ $out == s[123]$'\n'hello ]]
check_err $? "connection before the fuzz: '$out'"
log_test "a connection through the load balancer before the fuzz"

sid_bad0=$(sidc 1 malformed)
lb_bad0=$(lbc web malformed)
send_known_bad
check_err $? "python3 could not send the known-malformed packets"
poll_gt "s1 malformed after the known-bad SRHs" "$((sid_bad0 + 2))" \
	sidc 1 malformed
poll_gt "web malformed after the known-bad reports" "$((lb_bad0 + 2))" \
	lbc web malformed
log_test "known-malformed SRHs and reports counted"

log="${TM_RESULTS:-$TMP}/pkt_fuzz-$seed.log"
log_info "seed $seed, ${FUZZ_TIME}s, packets in $log"
sid_bad1=$(sidc 1 malformed)
lb_bad1=$(lbc web malformed)
hunts1=$(lbc web hunts)
ip netns exec "$client" python3 "$TM_TOP/selftests/pkt_fuzz.py" \
	--seed "$seed" --time "$FUZZ_TIME" --log "$log" \
	--port "client=$client:veth0:$(mac_of "$lb" vc)" \
	--port "server=${SRV[1]}:veth0:$(mac_of "$lb" v1)" \
	--port "direct=$lb:v1:$(mac_of "${SRV[1]}" veth0)" \
	--addr vip="$VIP" --addr lbsid="$LB_SID" \
	--addr s1="$(sid_of 1)" --addr s2="$(sid_of 2)" \
	--addr s3="$(sid_of 3)" --addr client=fd00:c::2 \
	--addr srv1=fd00:1::2 --addr lb6=fd00:c::1 \
	--addr c4=10.9.0.2 --addr lb4=10.9.0.1
check_err $? "pkt_fuzz.py --seed $seed failed"
log_test "packet fuzz (seed $seed, ${FUZZ_TIME}s)"

# The module is still well: real connections, counters that moved.
sleep 1
good=0
for _ in 1 2 3 4 5; do
	out=$(connect "$PORT")
	[[ $out == s[123]$'\n'hello ]] && good=$((good + 1))
done
expect_eq "connections through the load balancer after the fuzz" "$good" 5
log_test "the load balancer and the servers still serve connections"

sid_bad2=$(sidc 1 malformed)
lb_bad2=$(lbc web malformed)
hunts2=$(lbc web hunts)
log_info "s1 malformed $sid_bad1 -> $sid_bad2, web malformed $lb_bad1 -> $lb_bad2, web hunts $hunts1 -> $hunts2"
[ "${sid_bad2:-0}" -gt "${sid_bad1:-0}" ]
check_err $? "s1's malformed counter did not move: $sid_bad1 -> $sid_bad2"
[ "${lb_bad2:-0}" -gt "${lb_bad1:-0}" ]
check_err $? "web's malformed counter did not move: $lb_bad1 -> $lb_bad2"
[ "${hunts2:-0}" -gt "${hunts1:-0}" ]
check_err $? "web's hunts did not move: $hunts1 -> $hunts2"
for t in c4 c6 cin; do
	n=$(lookups "$t")
	log_info "table $t: ${n:-?} lookups"
	[ "${n:-0}" -gt 0 ]
	check_err $? "table $t saw no packet"
done
log_test "malformed counters moved; the classifier tables saw the packets"

exit "$EXIT_STATUS"
