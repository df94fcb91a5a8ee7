#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A short run of the SRLB experiment (exp/srlb_exp.sh, Documentation/
# srlb-experiment.rst): two loads, a random load balancer and SR_4, 15 s
# each, exponential service times.  Checks that it completes, that every
# request was answered and that it writes its table and plots; it asserts
# no ordering of the modes, which the emulator's noise would make flaky at
# this length.

source "$(dirname "$0")/lib.sh"

require_root
require_cmd python3
require_module

OUT=$(mktemp -d)
cleanup()
{
	rm -rf "$OUT"
}

OUT=$OUT DISTS=exp LOADS="0.5 0.9" MODES="random sr4" DURATION=15 \
	bash "$(dirname "$0")/exp/srlb_exp.sh"
check_err $? "the experiment did not complete"
rows=$(grep -cE '^0\.(50|90) +(random|sr4) ' "$OUT/table.rst" 2>/dev/null)
expect_eq "rows of the table (2 loads x 2 modes)" "$rows" 4
failed=$(awk '$1 ~ /^0\./ { f += $4 } END { print f + 0 }' "$OUT/table.rst")
expect_eq "requests not answered" "$failed" 0
answered=$(grep -cE ',s[1-4]$' "$OUT/results.csv")
[ "${answered:-0}" -gt 100 ]
check_err $? "only '$answered' requests answered"
for f in load-exp.png cdf-exp.png; do
	[ -s "$OUT/$f" ]
	check_err $? "no plot $f"
done
log_test "short SRLB experiment: $answered requests, table and plots"
exit "$EXIT_STATUS"
