#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark of the SRv6 load balancer under a flood of spoofed SYNs
# (Documentation/srv6-lb.rst, "Security model"): the rate of good TCP
# connections completed per second (connect, read the server's greeting,
# close: one at a time, from one client) without a flood, then while a
# flood of SYNs from random sources of fd00:dead::/64 (FLOOD_PPS a second,
# lb routes the sources to a black hole) hits the same service.  The
# service remembers at most MAX_FLOWS flows, fewer than the flood sends in
# a run: the servers answer every spoofed SYN, so each is reported, but no
# client ACK follows; such half-open flows are evicted first.  Printed: the
# two rates, their ratio, and the service's counters (how many good
# connections lb remembered, "full", "evicted").  Ratios only: TCG timings
# are emulated.
#
#   client ---- lb ---- srv1, srv2	(the topology of srlb_lb.sh)
#
# Run in the VM: make vm-bench VM_BENCH=bench/synflood.sh (or
# selftests/vm/run.sh -P ... bench/synflood.sh).

source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../lib_srlb.sh"

require_root
require_cmd ip python3
require_module

DURATION=${DURATION:-10}
FLOOD_PPS=${FLOOD_PPS:-2000}
MAX_FLOWS=${MAX_FLOWS:-1000}
PORT=8080

TMP=$(mktemp -d)

setup()
{
	local i

	setup_srlb 2 fd00:dead::/64 &&
		policies add always always || return 1
	for i in "${!SRV[@]}"; do
		ip netns exec "${SRV[i]}" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(4096)
while True:
    c, _ = s.accept()
    try:
        c.sendall(sys.argv[3].encode() + b"\n")
    except OSError:
        pass
    c.close()
' "$VIP" "$PORT" "s$i" &
	done
	tm_lb table add lbt family ip6 hook prerouting &&
		tm_lb lb service add web vip "$VIP" sid "$LB_SID" tcp \
			port "$PORT" choices 2 max-flows "$MAX_FLOWS" &&
		tm_lb lb backend add web "$(sid_of 1)" &&
		tm_lb lb backend add web "$(sid_of 2)" &&
		tm_lb rule add lbt id 1 dst "$VIP/128" proto tcp dport "$PORT" \
			lb web
}

# good SECS: good connections, one at a time, for SECS seconds; prints
# "completed failed seconds".
good()
{
	ip netns exec "$client" python3 - "$VIP" "$PORT" "$1" <<'EOF'
import socket
import sys
import time

vip, port, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
ok = bad = 0
start = time.monotonic()
while time.monotonic() - start < secs:
    try:
        s = socket.create_connection((vip, port), timeout=3)
        line = s.makefile("rb").readline()
        s.close()
        if line.startswith(b"s"):
            ok += 1
        else:
            bad += 1
    except OSError:
        bad += 1
print(ok, bad, "%.3f" % (time.monotonic() - start))
EOF
}

# flood SECS PPS: spoofed SYNs to the VIP for SECS seconds, PPS a second.
flood()
{
	ip netns exec "$client" python3 - "$VIP" "$PORT" "$1" "$2" <<'EOF'
import os
import socket
import struct
import sys
import time

vip = socket.inet_pton(socket.AF_INET6, sys.argv[1])
port, secs, pps = int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_RAW)
pre = socket.inet_pton(socket.AF_INET6, "fd00:dead::")[:8]
start = time.monotonic()
n = 0
while True:
    now = time.monotonic() - start
    if now >= secs:
        break
    if n >= pps * now:
        time.sleep(0.001)
        continue
    src = pre + os.urandom(8)
    tcp = struct.pack("!HHIIBBHHH", 1024 + n % 60000, port, n, 0, 5 << 4,
                      0x02, 65535, 0, 0)
    data = src + vip + struct.pack("!II", len(tcp), 6) + tcp
    c = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while c >> 16:
        c = (c & 0xffff) + (c >> 16)
    tcp = tcp[:16] + struct.pack("!H", ~c & 0xffff) + tcp[18:]
    s.sendto(struct.pack("!IHBB", 6 << 28, len(tcp), 6, 64) + src + vip +
             tcp, (sys.argv[1], 0))
    n += 1
print(n)
EOF
}

rate()
{
	awk -v n="$1" -v s="$2" 'BEGIN { printf "%.1f", n / s }'
}

setup || { echo "FAIL: network setup"; exit "$ksft_fail"; }
sleep 1
good 2 >/dev/null

read -r ok0 bad0 secs0 <<<"$(good "$DURATION")"
flood "$((DURATION + 2))" "$FLOOD_PPS" >"$TMP/sent" &
pid=$!
sleep 2
full=$(lbc web full) evicted=$(lbc web evicted)
evicted=${evicted:-0}
read -r ok1 bad1 secs1 <<<"$(good "$DURATION")"
wait "$pid"
r0=$(rate "$ok0" "$secs0")
r1=$(rate "$ok1" "$secs1")
printf "%-44s %8s conn/s  (%d ok, %d failed)\n" "good connections, no flood" \
	"$r0" "$ok0" "$bad0"
printf "%-44s %8s conn/s  (%d ok, %d failed)  %.2fx\n" \
	"good connections, $FLOOD_PPS spoofed SYN/s" "$r1" "$ok1" "$bad1" \
	"$(awk -v a="$r1" -v b="$r0" 'BEGIN { print b ? a / b : 0 }')"
# Counters 808c634 did not have print as "-".
evicted1=$(lbc web evicted)
printf "flood: %s SYNs sent; web: flows %s (max %s), full +%s, evicted +%s\n" \
	"$(cat "$TMP/sent")" "$(lbc web flows)" "$MAX_FLOWS" \
	"$(( $(lbc web full) - full ))" \
	"$([ -n "$evicted1" ] && echo $((evicted1 - evicted)) || echo -)"
exit 0
