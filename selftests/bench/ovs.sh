#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark: the TupleMerge paper's deployment claim ("at least one order
# of magnitude faster than OVS TSS") checked against Open vSwitch's kernel
# datapath, in one run: packets per second of pktgen's random UDP headers
# (as bench/pps.sh sends them) through
#
#   empty-table   a tuplemerge drop table without rules (the path's cost)
#   tm-SET        the same table holding N tmgen rules of SET (SETS: acl
#                 and fw), tmctl import
#   ovs-1flow     an OVS bridge holding one flow that drops everything: one
#                 megaflow, every packet a hit of the kernel's flow cache
#   ovs-SET       the bridge holding the same N rules as OpenFlow flows
#                 (cb2ovs.awk: port ranges as value/mask blocks), below
#                 them a drop: the headers are random, so that packets miss
#                 the megaflow cache and go up to ovs-vswitchd's classifier,
#                 unless a megaflow wide enough was made for an earlier one
#
# For OVS "pps" is the rate the kernel datapath took the packets at; a
# packet that missed the cache is classified only if its upcall reached
# ovs-vswitchd ("lost" counts those that did not): "classified" is the
# rate of packets that got their verdict, hits plus upcalls not lost, from
# the datapath's counters.  Every drop table classifies every packet.
# Run in the VM: make vm-bench (VM_BENCH=bench/ovs.sh for this one only).

source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/lib_pktgen.sh"

require_root
require_cmd ip awk modprobe
require_module

N=${N:-10000}
SETS=${SETS:-acl fw}
DURATION=${DURATION:-8}
HERE=$(dirname "$0")
DEV=tmb0
TMP=$(mktemp -d)
export OVS_RUNDIR=$TMP OVS_LOGDIR=$TMP OVS_DBDIR=$TMP

cleanup()
{
	pktgen_stop
	"$TMCTL" table del bench 2>/dev/null
	if [ -S "$TMP/db.sock" ]; then
		ovs-vsctl --if-exists del-br br0 2>/dev/null
		ovs-appctl -t ovs-vswitchd exit 2>/dev/null
		ovs-appctl -t ovsdb-server exit 2>/dev/null
	fi
	ip link del $DEV 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

for c in ovsdb-tool ovsdb-server ovs-vswitchd ovs-vsctl ovs-ofctl ovs-appctl; do
	command -v $c >/dev/null ||
		skip "no $c (openvswitch-switch: tools/deps.sh bench)"
done
modprobe openvswitch || skip "no openvswitch module"
TMGEN=$TM_TOP/tools/classbench/tmgen
[ -x "$TMGEN" ] || skip "no $TMGEN (make -C tools/classbench tmgen)"

pktgen_dummy $DEV 0

# The datapath's counters: "hit missed lost".
dp_stats()
{
	ovs-appctl dpctl/show system@ovs-system |
		awk '/lookups:/ { for (i = 2; i <= 4; i++) { split($i, a, ":"); printf "%s ", a[2] } print "" }'
}

# run NAME: pktgen for DURATION s; prints NAME pps classified-pps.
run()
{
	local before after pps

	if [ "${1#ovs}" = "$1" ]; then
		pps=$(pktgen_pps $DEV "$DURATION")
		echo "$1 $pps $pps"
		return
	fi
	before=$(dp_stats)
	pps=$(pktgen_pps $DEV "$DURATION")
	after=$(dp_stats)
	echo "$1 $pps $before $after" |
		awk -v d="$DURATION" '{ printf "%s %d %d %d %d\n", $1, $2,
			($6 - $3 + ($7 - $4) - ($8 - $5)) / d, $7 - $4, $8 - $5 }'
	echo "# $1: $(ovs-appctl dpctl/dump-flows system@ovs-system | wc -l) megaflows at the end" >&2
}

for set in $SETS; do
	"$TMGEN" rules --type "$set" --count "$N" --seed 1 >"$TMP/$set.cb" ||
		exit "$ksft_fail"
	awk -F'\t' -v act=drop -f "$HERE/cb2ovs.awk" "$TMP/$set.cb" \
		>"$TMP/$set.ovs" || exit "$ksft_fail"
done

{
	"$TMCTL" table add bench family ip hook prerouting policy drop || exit 1
	run empty-table
	for set in $SETS; do
		"$TMCTL" import bench "$TMP/$set.cb" drop || exit 1
		run "tm-$set"
		"$TMCTL" rule flush bench || exit 1
	done
	"$TMCTL" table del bench

	ovsdb-tool create "$TMP/conf.db" /usr/share/openvswitch/vswitch.ovsschema ||
		exit 1
	ovsdb-server "$TMP/conf.db" --remote="punix:$TMP/db.sock" \
		--pidfile --detach --log-file -vconsole:off || exit 1
	ovs-vsctl --no-wait init || exit 1
	ovs-vswitchd --pidfile --detach --log-file -vconsole:off || exit 1
	# The device becomes the bridge's port: its packets no longer reach
	# netfilter, hence the tuplemerge runs first.
	ovs-vsctl add-br br0 -- set bridge br0 fail-mode=secure || exit 1
	ovs-vsctl add-port br0 $DEV || exit 1
	ovs-ofctl add-flow br0 "priority=0,actions=drop" || exit 1
	run ovs-1flow
	for set in $SETS; do
		t0=$(date +%s%N)
		ovs-ofctl -vconsole:off add-flows br0 "$TMP/$set.ovs" || exit 1
		echo "# ovs-$set: $(ovs-ofctl dump-flows br0 | grep -c priority) flows," \
		     "added in $((($(date +%s%N) - t0) / 1000000)) ms" >&2
		ovs-appctl dpctl/del-flows system@ovs-system
		run "ovs-$set"
		ovs-ofctl del-flows br0 || exit 1
		ovs-ofctl add-flow br0 "priority=0,actions=drop" || exit 1
	done
} >"$TMP/pps"

echo "# $N-rule tmgen sets (seed 1), random UDP headers, pktgen netif_receive, $DURATION s each (emulated VM: compare ratios)"
awk '
	{ name[NR] = $1; pps[NR] = $2; cl[NR] = $3; up[NR] = $4; lost[NR] = $5
	  if ($1 == "empty-table") base = $3; if ($1 ~ /^tm-/) tm[substr($1, 4)] = $3 }
	END {
		printf "%-12s %10s %12s %10s %10s %9s %10s\n", "config", "pps",
			"classified", "vs empty", "tm vs it", "upcalls", "lost"
		for (i = 1; i <= NR; i++) {
			set = name[i]; sub(/^(tm|ovs)-/, "", set)
			printf "%-12s %10d %12d %9.2fx %9s %9s %10s\n", name[i], pps[i],
				cl[i], cl[i] / base,
				(set in tm) && cl[i] ? sprintf("%.1fx", tm[set] / cl[i]) : "-",
				up[i] == "" ? "-" : up[i], lost[i] == "" ? "-" : lost[i]
		}
	}' "$TMP/pps"
