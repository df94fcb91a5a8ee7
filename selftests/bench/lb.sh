#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark of the SRv6 load balancer's data path (Documentation/srv6-lb.rst),
# in packets per second, ratios taken in one run:
#
#  1. Forwarding at the load balancer, against plain IPv6 forwarding of the
#     same packets: 256 TCP flows of 60-byte ACKs to the VIP, sent by
#     tmblast (tools/bench/) from a veth; lb forwards them out of a dummy
#     device, whose transmit count is the rate.  Configurations: no table;
#     a prerouting table whose rule accepts them; the lb rule with every
#     flow's server known (STEER: SRH of 3 segments inserted); the lb rule
#     with the flows forgotten (RECOVER: hunting through 2 candidates, SRH
#     of 4 segments); SYNs hunting (CONNECT).
#  2. The flow table's size: forwarding of the 256 steered flows with
#     100, 10K, 1M (LB_SCALE, commas between) other flows in the table
#     (half-open flows, one per SYN that tmblast -F sent from
#     fd00:e::/64), against the first; and the flow setup rate: SYNs each
#     of a new flow, hunting (each one allocates and inserts a flow),
#     against plain forwarding of the same SYNs.  10M flows need a guest
#     of 4 GB (VM_MEM=4096).
#  3. The acceptance decision at a server: SYNs hunting through a
#     candidate SID that passes them on (End forwards them to the next
#     candidate, out of a dummy device), with the SID unbound (the hook runs
#     and finds nothing) and bound with the policies that refuse: never,
#     load (reported above the threshold), backlog (a listener lookup).
#     The decision's cost per SYN is the difference of the times per packet.
#
#            gen (tmblast)
#          g0 |        | g1
#          vg |        | vs
#    lb ------+        +------ srv
#    out0 (dummy)              out1 (dummy)
#
# Run in the VM: make vm-bench (or selftests/vm/run.sh -P ... bench/lb.sh).

source "$(dirname "$0")/../lib.sh"

require_root
require_cmd ip python3
require_module

DURATION=${DURATION:-5}
BLAST=${BLAST:-$TM_TOP/build/bench/tmblast}
[ -x "$BLAST" ] || skip "no $BLAST (make -C tools/bench)"

VIP=fd00:100::1
LB_SID=fd00:1b::1
SID=fc00:9::100
NEXT=fc00:9::200
TMP=$(mktemp -d)

gen='' lb='' srv=''
setup_ns gen lb srv || exit "$ksft_fail"

cleanup()
{
	cleanup_ns
	rm -rf "$TMP"
}

setup()
{
	local ns

	for ns in "$gen" "$lb" "$srv"; do
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0 || return 1
	done
	ip link add g0 netns "$gen" type veth peer name vg netns "$lb" &&
		ip link add g1 netns "$gen" type veth peer name vs netns "$srv" &&
		ip -n "$gen" link set g0 up && ip -n "$gen" link set g1 up &&
		ip -n "$lb" link set vg up && ip -n "$srv" link set vs up &&
		ip -n "$lb" addr add fd00:a::1/64 dev vg nodad &&
		ip -n "$srv" addr add fd00:d::1/64 dev vs nodad || return 1
	for ns in "$lb" "$srv"; do
		ip -n "$ns" link add out0 type dummy &&
			ip -n "$ns" link set out0 up &&
			ip -n "$ns" addr add fd00:b::1/64 dev out0 nodad &&
			ip -n "$ns" -6 neigh add fd00:b::2 \
				lladdr 02:00:00:00:00:02 nud permanent dev out0 &&
			ip netns exec "$ns" sysctl -qw \
				net.ipv6.conf.all.forwarding=1 || return 1
	done
	ip -n "$lb" -6 route add "$VIP/128" via fd00:b::2 dev out0 &&
		ip -n "$lb" -6 route add fc00::/16 via fd00:b::2 dev out0 &&
		ip -n "$srv" -6 route add "$NEXT/128" via fd00:b::2 dev out0 &&
		ip -n "$srv" -6 route add "$SID/128" \
			encap seg6local action End dev vs
}

# The packets, as tmblast reads them: 256 flows from fd00:a::1:I port
# 40000 + I to the VIP's port 8080; one SYN from fd00:e::1 port 1000, that
# tmblast -F makes many flows of.
python3 - "$TMP" "$VIP" "$LB_SID" "$SID" "$NEXT" <<'EOF'
import socket
import struct
import sys

out = sys.argv[1]
vip, lbsid, sid, nxt = (socket.inet_pton(socket.AF_INET6, a)
                        for a in sys.argv[2:6])


def client(i):
    return socket.inet_pton(socket.AF_INET6, "fd00:a::1:%x" % i)


def ip6(src, dst, nh, payload):
    return struct.pack("!IHBB", 6 << 28, len(payload), nh, 64) + src + dst + payload


def tcp(sport, dport, flags):
    return struct.pack("!HHIIBBHHH", sport, dport, 1, 1, 5 << 4, flags,
                       65535, 0, 0)


def srh(segs, left, tag, nh=6):
    return struct.pack("!BBBBBBH", nh, 2 * len(segs), 4, left,
                       len(segs) - 1, 0, tag) + b"".join(segs)


def write(name, pkts):
    with open("%s/%s" % (out, name), "wb") as f:
        for p in pkts:
            f.write(struct.pack("!H", len(p)) + p)


ACK, SYN, SYNACK = 0x10, 0x02, 0x12
flows = range(256)
write("ack", [ip6(client(i), vip, 6, tcp(40000 + i, 8080, ACK))
              for i in flows])
write("syn", [ip6(client(i), vip, 6, tcp(40000 + i, 8080, SYN))
              for i in flows])
write("newsyn", [ip6(socket.inet_pton(socket.AF_INET6, "fd00:e::1"), vip, 6,
                     tcp(1000, 8080, SYN))])
# Each backend (fc00:1::1, 2, 3) reports each flow: a SYN-ACK.  The load
# balancer takes the first report of one of the flow's candidates and
# refuses the others.
write("report", [ip6(vip, lbsid, 43,
                     srh([client(i), socket.inet_pton(
                         socket.AF_INET6, "fc00:%d::1" % s), lbsid],
                         2, 0x5204) + tcp(8080, 40000 + i, SYNACK))
                 for i in flows for s in (1, 2, 3)])
# SYNs hunting through SID, the first of 2 candidates (NEXT the last).
write("hunt", [ip6(client(i), sid, 43,
                   srh([vip, lbsid, nxt, sid], 3, 0x5201) +
                   tcp(40000 + i, 8080, SYN))
               for i in flows])
EOF

# rate NS FILE [TMBLAST_ARG...]: the packets per second out0 of NS
# transmitted while tmblast sent FILE for DURATION s (from g0 to lb, or g1
# to srv).
rate()
{
	local ns=$1 file=$2 dev peer before after out secs

	shift 2
	if [ "$ns" = "$lb" ]; then dev=g0 peer=vg; else dev=g1 peer=vs; fi
	before=$(ip netns exec "$ns" cat /sys/class/net/out0/statistics/tx_packets)
	out=$(ip netns exec "$gen" "$BLAST" -i "$dev" \
		-m "$(ip netns exec "$ns" cat "/sys/class/net/$peer/address")" \
		-f "$TMP/$file" -t "$DURATION" "$@") || return 1
	after=$(ip netns exec "$ns" cat /sys/class/net/out0/statistics/tx_packets)
	secs=$(sed -n 's/.* in \([0-9.]*\) s.*/\1/p' <<<"$out")
	awk -v n=$((after - before)) -v s="$secs" 'BEGIN { printf "%.0f\n", n / s }'
}

# row NAME PPS BASE: a line of the table, with the ratio to BASE.
row()
{
	awk -v name="$1" -v pps="$2" -v base="$3" 'BEGIN {
		printf "%-40s %10d pps  %5.2fx\n", name, pps,
			(base > 0 ? pps / base : 0) }'
}

# cost NAME PPS BASE: a line with the extra time per packet over BASE.
cost()
{
	awk -v name="$1" -v pps="$2" -v base="$3" 'BEGIN {
		printf "%-40s %10d pps  %+7.0f ns/packet\n", name, pps,
			(pps > 0 && base > 0) ? 1e9 / pps - 1e9 / base : 0 }'
}

tm_lb()
{
	"$TMCTL" -n "$lb" "$@"
}

setup || { echo "FAIL: network setup"; exit "$ksft_fail"; }

# Each configuration is measured ROUNDS times, interleaved with the others
# so that a slow spell of the emulator hits them all; the best rate counts.
ROUNDS=${ROUNDS:-3}
declare -A BEST

# measure KEY NS FILE PREP...: one more rate for KEY, after PREP.
measure()
{
	local key=$1 ns=$2 file=$3 r

	shift 3
	"$@" || exit "$ksft_fail"
	r=$(rate "$ns" "$file")
	[ "${r:-0}" -gt "${BEST[$key]:-0}" ] && BEST[$key]=$r
}

lb_none()
{
	tm_lb table del pre 2>/dev/null
	return 0
}

lb_accept()
{
	lb_none
	tm_lb table add pre family ip6 hook prerouting &&
		tm_lb rule add pre id 1 dst "$VIP/128" proto tcp dport 8080 accept
}

lb_rule()
{
	lb_none
	tm_lb table add pre family ip6 hook prerouting &&
		tm_lb rule add pre id 1 dst "$VIP/128" proto tcp dport 8080 lb web
}

# blast FILE N: N packets of FILE from gen to lb, each once.
blast()
{
	ip netns exec "$gen" "$BLAST" -i g0 \
		-m "$(ip netns exec "$lb" cat /sys/class/net/vg/address)" \
		-f "$TMP/$1" -n "$2" >/dev/null
}

# lb_steer: every flow's server known: its SYN hunted (a report is taken
# only for a flow the load balancer remembers), then the reports.
lb_steer()
{
	lb_rule && tm_lb lb flows flush web && blast syn 256 &&
		blast report 768 &&
		[ "$(tm_lb lb flows show web | grep -c ' state steer ')" = 256 ]
}

lb_forget()
{
	lb_rule && tm_lb lb flows flush web
}

tm_lb lb service add web vip "$VIP" sid "$LB_SID" tcp port 8080 &&
	tm_lb lb backend add web fc00:1::1 &&
	tm_lb lb backend add web fc00:2::1 &&
	tm_lb lb backend add web fc00:3::1 || exit "$ksft_fail"
for ((round = 0; round < ROUNDS; round++)); do
	measure plain "$lb" ack lb_none
	measure accept "$lb" ack lb_accept
	measure steer "$lb" ack lb_steer
	measure recover "$lb" ack lb_forget
	measure syn "$lb" syn lb_forget
done
echo "# load balancer: 256 TCP flows, 74-byte frames, best of $ROUNDS x $DURATION s"
row "plain IPv6 forwarding" "${BEST[plain]}" "${BEST[plain]}"
row "prerouting table, accept rule" "${BEST[accept]}" "${BEST[plain]}"
row "lb, server known (steer, 3 segments)" "${BEST[steer]}" "${BEST[plain]}"
row "lb, flows forgotten (recover, k=2)" "${BEST[recover]}" "${BEST[plain]}"
row "lb, SYNs (connect, k=2)" "${BEST[syn]}" "${BEST[plain]}"
tm_lb lb service show web | sed 's/^/# /'

# fill N: web's flows: the 256 steered ones and N half-open others.
fill()
{
	local n=$1 got

	lb_steer || return 1
	ip netns exec "$gen" "$BLAST" -i g0 \
		-m "$(ip netns exec "$lb" cat /sys/class/net/vg/address)" \
		-f "$TMP/newsyn" -n "$n" -F "$n" >/dev/null || return 1
	got=$(tm_lb lb service show web | awk '$1 == "flows" { print $2 }')
	echo "# table: $got flows ($n SYNs of new flows sent)"
}

# The service again, with room for 16M flows that do not age meanwhile.
lb_none
tm_lb lb service del web &&
	tm_lb lb service add web vip "$VIP" sid "$LB_SID" tcp port 8080 \
		max-flows 16777216 syn-timeout 3600 idle-timeout 3600 &&
	tm_lb lb backend add web fc00:1::1 &&
	tm_lb lb backend add web fc00:2::1 &&
	tm_lb lb backend add web fc00:3::1 || exit "$ksft_fail"
declare -A SCALED
read -ra SCALE <<<"${LB_SCALE//,/ }"
[ "${#SCALE[@]}" -gt 0 ] || SCALE=(100 10000 1000000)
for n in "${SCALE[@]}"; do
	fill "$n" || exit "$ksft_fail"
	for ((round = 0; round < ROUNDS; round++)); do
		r=$(rate "$lb" ack)
		[ "${r:-0}" -gt "${SCALED[$n]:-0}" ] && SCALED[$n]=$r
	done
done
for ((round = 0; round < ROUNDS; round++)); do
	lb_none
	r=$(rate "$lb" newsyn -F 4000000000)
	[ "${r:-0}" -gt "${BEST[synplain]:-0}" ] && BEST[synplain]=$r
	lb_forget || exit "$ksft_fail"
	r=$(rate "$lb" newsyn -F 4000000000)
	[ "${r:-0}" -gt "${BEST[synnew]:-0}" ] && BEST[synnew]=$r
done
echo "# load balancer: 256 steered flows among others in the table, best of $ROUNDS x $DURATION s"
base=${SCALED[${SCALE[0]}]}
for n in "${SCALE[@]}"; do
	row "lb steer, $n other flows in the table" "${SCALED[$n]}" "$base"
done
echo "# flow setup: SYNs each of a new flow, best of $ROUNDS x $DURATION s"
row "plain IPv6 forwarding of the SYNs" "${BEST[synplain]}" "${BEST[synplain]}"
row "lb, each SYN a new flow (hunt, k=2)" "${BEST[synnew]}" "${BEST[synplain]}"
tm_lb lb service show web | sed 's/^/# /'
lb_none
tm_lb lb service del web

tm_srv()
{
	"$TMCTL" -n "$srv" "$@"
}

srv_none()
{
	tm_srv sid del "$SID" 2>/dev/null
	return 0
}

srv_never()
{
	srv_none
	tm_srv sid add "$SID" accept policy never
}

srv_load()
{
	srv_none
	tm_srv sid add "$SID" accept policy load 10 &&
		tm_srv sid load "$SID" 50
}

srv_backlog()
{
	srv_none
	tm_srv sid add "$SID" accept policy backlog 1
}

# The lwtunnel key is global and stays on: End alone is measured first.
key=$(cat /proc/sys/net/netfilter/nf_hooks_lwtunnel 2>/dev/null)
for ((round = 0; round < ROUNDS; round++)); do
	measure unhooked "$srv" hunt true
done
tm_srv sid add fc00:9::999 accept policy always || exit "$ksft_fail"
for ((round = 0; round < ROUNDS; round++)); do
	measure unbound "$srv" hunt srv_none
	measure never "$srv" hunt srv_never
	measure load "$srv" hunt srv_load
	measure backlog "$srv" hunt srv_backlog
done
echo "# server: SYNs through a candidate that passes them on, best of $ROUNDS x $DURATION s"
row "End, module's hook off (key was ${key:-?})" "${BEST[unhooked]}" \
	"${BEST[unhooked]}"
cost "End, hook on, this SID not bound" "${BEST[unbound]}" "${BEST[unhooked]}"
cost "never" "${BEST[never]}" "${BEST[unbound]}"
cost "load 10 (reported 50)" "${BEST[load]}" "${BEST[unbound]}"
cost "backlog 1 (no listener)" "${BEST[backlog]}" "${BEST[unbound]}"
exit 0
