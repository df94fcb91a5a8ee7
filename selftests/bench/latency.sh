#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark: the kernel's latency for one rule add and one rule delete
# (single requests, not transactions) in a table with 0 rules and with N
# rules, measured by ftrace's function_graph tracer around the netlink
# handlers tm_nl_rule_new and tm_nl_rule_del (the kernel's own work, not
# tmctl's start-up).  Prints mean, median and p99 in microseconds and the
# ratio N / 0.  Run in the VM: make vm-bench.

source "$(dirname "$0")/../lib.sh"

require_root
require_cmd ip awk
require_module

N=${N:-100000}
OPS=${OPS:-200}
HERE=$(dirname "$0")
TR=/sys/kernel/tracing
TMP=$(mktemp -d)
ns=''
trap 'echo nop >$TR/current_tracer 2>/dev/null; cleanup_ns; rm -rf "$TMP"' EXIT

[ -e $TR/current_tracer ] || mount -t tracefs nodev $TR ||
	skip "no tracefs"
grep -qw function_graph $TR/available_tracers || skip "no function_graph"

setup_ns ns || exit "$ksft_fail"
tm() { "$TMCTL" -n "$ns" "$@"; }

# A batch adding then deleting OPS rules one request at a time: tmctl runs
# each line of a plain script, so use a loop of single commands.
ops()
{
	local i

	for ((i = 0; i < OPS; i++)); do
		tm rule add t id $((2000000 + i)) src 198.18.$((i / 256)).$((i % 256)) proto udp dport 53 drop
	done
	for ((i = 0; i < OPS; i++)); do
		tm rule del t id $((2000000 + i))
	done
}

# measure LABEL: trace ops() and print LABEL add|del mean median p99.
measure()
{
	echo 0 >$TR/tracing_on
	echo function_graph >$TR/current_tracer
	echo 1 >$TR/max_graph_depth
	echo 'tm_nl_rule_new tm_nl_rule_del' >$TR/set_graph_function
	echo >$TR/trace
	echo 1 >$TR/tracing_on
	ops
	echo 0 >$TR/tracing_on
	awk '/tm_nl_rule_(new|del)/ {
		for (i = 2; i <= NF; i++)
			if ($i == "us") {
				print (/rule_new/ ? "add" : "del"), $(i - 1)
				break
			}
	}' $TR/trace >"$TMP/durations"
	for op in add del; do
		awk -v o=$op '$1 == o { print $2 }' "$TMP/durations" | sort -n |
			awk -v label="$1" -v op=$op '
			{ x[NR] = $1; s += $1 }
			END {
				if (!NR)
					exit
				p = int(NR * 0.99)
				printf "%s %s %.1f %.1f %.1f %d\n", label, op, s / NR,
				       x[int((NR + 1) / 2)], x[(p > 0) ? p : 1], NR
			}'
	done
	echo nop >$TR/current_tracer
}

tm table add t family ip || exit "$ksft_fail"
measure 0 >"$TMP/res"
awk -v n="$N" -v fmt=tmctl -v table=t -f "$HERE/gen_rules.awk" >"$TMP/rules"
tm -f "$TMP/rules" || exit "$ksft_fail"
measure "$N" >>"$TMP/res"

echo "# single-rule latency in the kernel, $OPS requests each (emulated VM)"
awk '
	{ mean[$1, $2] = $3; med[$1, $2] = $4; p99[$1, $2] = $5; cnt[$1, $2] = $6; sizes[$1] = 1 }
	END {
		printf "%-8s %-4s %10s %10s %10s %6s\n", "rules", "op", "mean_us", "median_us", "p99_us", "n"
		split("add del", o, " ")
		for (k = 1; k <= 2; k++)
			for (s in sizes)
				printf "%-8s %-4s %10.1f %10.1f %10.1f %6d\n", s, o[k], mean[s, o[k]], med[s, o[k]], p99[s, o[k]], cnt[s, o[k]]
	}' "$TMP/res"
awk -v n="$N" '
	{ med[$1, $2] = $4 }
	END {
		printf "ratio %d / 0 rules (median): add %.2fx, del %.2fx\n", n, med[n, "add"] / med[0, "add"], med[n, "del"] / med[0, "del"]
	}' "$TMP/res"
