#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pktgen for the benchmarks (sourced after lib.sh): random UDP headers injected into the
# receive path of a dummy device (xmit_mode netif_receive:
# netif_receive_skb() in pktgen's thread, so that its rate is the rate of
# the receive path up to the packet's end), and their rate.

PG=/proc/net/pktgen

# pktgen_dummy DEV PORT_MIN [PGCMD...]: make the dummy device DEV
# (198.18.0.1/24) and point pktgen at it: 60-byte packets to 198.18.0.1
# from random sources in 1.0.0.0-223.255.255.255, random ports from
# PORT_MIN, then the extra pktgen commands.  Exits on failure.
pktgen_dummy()
{
	local dev=$1 min=$2 cmd

	shift 2
	modprobe pktgen || skip "no pktgen"
	ip link add "$dev" type dummy || exit "${ksft_fail:-1}"
	ip link set "$dev" up
	ip addr add 198.18.0.1/24 dev "$dev"
	echo rem_device_all >$PG/kpktgend_0
	echo "add_device $dev" >$PG/kpktgend_0
	for cmd in "xmit_mode netif_receive" "count 0" "pkt_size 60" \
		   "dst 198.18.0.1" "dst_mac $(cat "/sys/class/net/$dev/address")" \
		   "src_min 1.0.0.0" "src_max 223.255.255.255" \
		   "udp_src_min $min" "udp_src_max 65535" \
		   "udp_dst_min $min" "udp_dst_max 65535" \
		   "flag IPSRC_RND" "flag UDPSRC_RND" "flag UDPDST_RND" "$@"; do
		echo "$cmd" >"$PG/$dev" ||
			{ echo "pktgen: '$cmd' refused" >&2; exit "${ksft_fail:-1}"; }
	done
}

# pktgen_pps DEV SECONDS: send for SECONDS, print the packets per second.
pktgen_pps()
{
	echo start >$PG/pgctrl &
	sleep "$2"
	echo stop >$PG/pgctrl
	wait
	awk '/pps/ { for (i = 1; i <= NF; i++) if ($i ~ /pps$/) { sub(/pps/, "", $i); print $i } }' \
		"$PG/$1"
}

# pktgen_stop: for cleanups.
pktgen_stop()
{
	echo stop >$PG/pgctrl 2>/dev/null
}
