#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark: the classifier's lookups in the kernel against the same code in
# userspace, on the same rules and trace, in one VM run.  For each tmgen
# set (10,000 rules, seed 1; a trace of KEYS headers): tmbench times the
# tuplemerge engine in userspace (single lookups, and bulk, 64 a call) and
# writes the rules, the trace and its answers (-k); tm_kbench.ko
# (selftests/kbench/, make kbench-KVER) builds the same classifier in the
# kernel, checks every answer against userspace's (loading fails on one
# wrong answer) and times the same lookups, bottom halves off as in the
# netfilter hook.  Prints ns per lookup and kernel over userspace; then
# checks that a file with one answer changed is refused.  Run in
# the VM: make vm-bench (VM_BENCH=bench/kbench.sh for this one only).

source "$(dirname "$0")/../lib.sh"

require_root
require_cmd awk insmod rmmod dmesg python3

KEYS=${KEYS:-20000}
PASSES=${PASSES:-50}
SETS=${SETS:-acl fw ipc acl6}
TMGEN=$TM_TOP/tools/classbench/tmgen
TMBENCH=$TM_TOP/build/bench/tmbench
KO=$TM_TOP/build/$(uname -r)/kbench/tm_kbench.ko
TMP=$(mktemp -d)
trap 'rmmod tm_kbench 2>/dev/null; rm -rf "$TMP"' EXIT

[ -x "$TMGEN" ] || skip "no $TMGEN (make -C tools/classbench tmgen)"
[ -x "$TMBENCH" ] || skip "no $TMBENCH (make -C tools/bench)"
[ -e "$KO" ] || skip "no $KO (make kbench-KVER)"

# The columns of tmbench's tuplemerge line: ns/pkt (trace) and bulk.
user_ns()
{
	awk '$1 == "tuplemerge" { print $3, $8 }' "$1"
}

for set in $SETS; do
	type=${set%6}
	fam=4
	[ "$type" != "$set" ] && fam=6
	"$TMGEN" rules --type "$type" --family "$fam" --count 10000 --seed 1 \
		>"$TMP/$set" || exit "$ksft_fail"
	"$TMGEN" trace --rules "$TMP/$set" --count "$KEYS" --seed 1 \
		>"$TMP/$set.trace" || exit "$ksft_fail"
	"$TMBENCH" -e tuplemerge -r "$PASSES" -k "$TMP/$set.blob" \
		"$TMP/$set" "$TMP/$set.trace" >"$TMP/$set.user" ||
		{ cat "$TMP/$set.user"; exit "$ksft_fail"; }
	dmesg -C
	if ! insmod "$KO" blob="$TMP/$set.blob" passes="$PASSES"; then
		dmesg | grep tm_kbench
		echo "tm_kbench refused $set (a wrong answer, or a bad file)" >&2
		exit "$ksft_fail"
	fi
	rmmod tm_kbench
	line=$(dmesg | grep 'tm_kbench: engine' | tail -1)
	[ -n "$line" ] || { echo "tm_kbench printed nothing for $set" >&2; exit "$ksft_fail"; }
	echo "$set $(user_ns "$TMP/$set.user") $line"
done >"$TMP/all"

# The module's check can fail: one answer changed, the load is refused.
python3 - "$TMP/acl.blob" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
rsz, ksz, nr, nk = struct.unpack_from("<4I", b, 8)
at = 24 + nr * rsz + nk * ksz
struct.pack_into("<I", b, at, struct.unpack_from("<I", b, at)[0] ^ 1)
open(sys.argv[1], "wb").write(b)
PY
if insmod "$KO" blob="$TMP/acl.blob" passes=1 2>/dev/null; then
	rmmod tm_kbench
	echo "tm_kbench took a file with a wrong answer" >&2
	exit "$ksft_fail"
fi
dmesg | grep -q 'tm_kbench: engine .* wrong 1 ' ||
	{ echo "tm_kbench did not count the wrong answer" >&2; exit "$ksft_fail"; }

echo "# tuplemerge lookups, 10,000-rule tmgen sets (seed 1), $KEYS headers, $PASSES passes (emulated VM: compare ratios)"
awk '{
	for (i = 4; i <= NF; i++) {
		if ($i == "single_ps") ks = $(i + 1) / 1000
		if ($i == "bulk_ps") kb = $(i + 1) / 1000
		if ($i == "wrong") w = $(i + 1)
	}
	if (!hdr++)
		printf "%-6s %10s %10s %8s %10s %10s %8s %6s\n", "set", "user ns",
			"kernel ns", "k/u", "user bulk", "kern bulk", "k/u", "wrong"
	printf "%-6s %10.1f %10.1f %7.2fx %10.1f %10.1f %7.2fx %6d\n", $1, $2, ks,
		ks / $2, $3, kb, kb / $3, w
}' "$TMP/all"
