#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark: packets per second through a drop table of N rules at
# prerouting, with each engine (tuplemerge, tss, linear), an nftables chain
# holding the same rules, and an empty table, all with policy drop.
#
# The rules (two sets, below) all drop; nft gets the same rules, in the
# same order, converted by cb2nft.awk or written by gen_rules.awk.  pktgen injects UDP packets into the
# receive path of a dummy device (xmit_mode netif_receive:
# netif_receive_skb() in pktgen's thread, so its rate is the rate of the
# receive path up to the drop), with random addresses and ports, for
# DURATION seconds per configuration.  Most packets match no rule: the
# worst case of TupleMerge (no early exit) and of a chain (every rule
# evaluated).  Every configuration pays pktgen's cost of building each
# packet, which makes the fast ones look closer to each other than they
# are.  Run in the VM: make vm-bench.

source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/lib_pktgen.sh"

require_root
require_cmd ip awk nft modprobe
require_module

N=${N:-10000}
DURATION=${DURATION:-8}
HERE=$(dirname "$0")
DEV=tmb0
TMP=$(mktemp -d)

cleanup()
{
	pktgen_stop
	"$TMCTL" table del bench 2>/dev/null
	nft delete table ip bench 2>/dev/null
	ip link del $DEV 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

pktgen_dummy $DEV 0

# run NAME: pktgen for DURATION s; prints NAME pps.
run()
{
	echo "$1 $(pktgen_pps $DEV "$DURATION")"
}

TMGEN=$TM_TOP/tools/classbench/tmgen
[ -x "$TMGEN" ] || skip "no $TMGEN (make -C tools/classbench tmgen)"

# Two rule sets: "acl", a tmgen acl set, whose wildcard rules catch random
# packets early in the list (rule ~1700 of 10000 here), and "plain",
# gen_rules.awk's set, which random packets mostly miss, so that a chain
# evaluates every rule.  Its rules do not overlap, so nft can also hold
# them as one verdict map of concatenated intervals (nft-vmap), the
# fastest form nft has for them.
"$TMGEN" rules --type acl --count "$N" --seed 1 >"$TMP/acl.cb" ||
	exit "$ksft_fail"
awk -F'\t' -v table=bench -v hook=prerouting -v policy=drop -v act=drop \
	-f "$HERE/cb2nft.awk" "$TMP/acl.cb" >"$TMP/acl.nft"
awk -v n="$N" -v fmt=tmctl -v table=bench -v act=drop \
	-f "$HERE/gen_rules.awk" >"$TMP/plain.tm"
awk -v n="$N" -v fmt=nft -v table=bench -v act=drop -v hook=prerouting \
	-v policy=drop -f "$HERE/gen_rules.awk" >"$TMP/plain.nft"
awk -v n="$N" -v fmt=nftmap -v table=bench -v act=drop -v hook=prerouting \
	-v policy=drop -f "$HERE/gen_rules.awk" >"$TMP/plain.nftmap"

load()
{
	if [ "$1" = acl ]; then
		"$TMCTL" import bench "$TMP/acl.cb" drop
	else
		"$TMCTL" -f "$TMP/plain.tm"
	fi
}

for set in acl plain; do
	{
		"$TMCTL" table add bench family ip hook prerouting policy drop
		run empty-table
		"$TMCTL" table del bench
		for eng in tuplemerge tss linear; do
			"$TMCTL" table add bench family ip hook prerouting \
				policy drop engine $eng max-tuples 65535 || exit 1
			load $set || exit 1
			run "$eng"
			"$TMCTL" table show bench >&2
			"$TMCTL" table del bench
		done
		nft -f "$TMP/$set.nft" || exit 1
		run nft-chain
		nft delete table ip bench
		if [ -e "$TMP/$set.nftmap" ]; then
			nft -f "$TMP/$set.nftmap" || exit 1
			run nft-vmap
			nft delete table ip bench
		fi
	} >"$TMP/pps"

	echo "# $N-rule drop table ($set set) at prerouting, pktgen netif_receive, $DURATION s each (emulated VM: compare ratios)"
	awk '
		{ name[NR] = $1; pps[NR] = $2; if ($1 == "nft-chain") nft = $2; if ($1 == "empty-table") base = $2 }
		END {
			printf "%-14s %12s %12s %12s\n", "config", "pps", "vs empty", "vs nft"
			for (i = 1; i <= NR; i++)
				printf "%-14s %12d %11.2fx %11.1fx\n", name[i], pps[i], pps[i] / base, pps[i] / nft
		}' "$TMP/pps"
done
