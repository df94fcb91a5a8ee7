#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# How TupleMerge's costs grow with the rule count (`make bench-scale`):
# tmgen sets of 1K, 10K, 100K and 1M rules (acl, fw and ipc; IPv4 and
# IPv6; seed 1), each timed by tmbench on a tmgen trace of 100,000 headers,
# SCALE_RUNS times (default 2, the best of each figure kept: this
# machine's timings vary from run to run), then ns per lookup, us per
# insert and bytes per rule drawn against the rule count (gnuplot, PNG).
# Every lookup sample must agree with the reference (tmbench's
# wrong/checked), or the run fails.
#
#   SCALE_SIZES="1000 10000"  SCALE_TYPES="acl"  SCALE_FAMILIES="4"
#   SCALE_OUT=DIR (sets, traces, JSON, data; default build/bench-scale)
#   SCALE_PNG=FILE (default Documentation/scaling.png)
#
# About 6 minutes on the project's 2-core machine; the sets are kept in
# SCALE_OUT and reused.

set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
out=${SCALE_OUT:-$top/build/bench-scale}
png=${SCALE_PNG:-$top/Documentation/scaling.png}
read -r -a sizes <<< "${SCALE_SIZES:-1000 10000 100000 1000000}"
read -r -a types <<< "${SCALE_TYPES:-acl fw ipc}"
read -r -a fams <<< "${SCALE_FAMILIES:-4 6}"
runs=${SCALE_RUNS:-2}
tmgen=$top/tools/classbench/tmgen
tmbench=$top/build/bench/tmbench

for tool in "$tmgen" "$tmbench"; do
	[ -x "$tool" ] || { echo "scale.sh: $tool missing (make bench-scale builds it)" >&2; exit 1; }
done
command -v gnuplot >/dev/null ||
	{ echo "scale.sh: gnuplot missing (make deps installs gnuplot-nox)" >&2; exit 1; }
mkdir -p "$out"

# One data file per series: rules ns/pkt ns/shuf ns/bulk us/ins us/del
# B/rule tuples probes.
wrong=0
series=()
for fam in "${fams[@]}"; do
	for type in "${types[@]}"; do
		name=$type-v$fam
		series+=("$name")
		printf '# rules ns_trace ns_shuffled ns_bulk us_insert us_delete bytes_per_rule tuples probes\n' \
			> "$out/$name.dat"
		for n in "${sizes[@]}"; do
			rules=$out/$name-$n
			[ -s "$rules" ] ||
				"$tmgen" rules --type "$type" --family "$fam" \
					--count "$n" --seed 1 > "$rules"
			[ -s "$rules.trace" ] ||
				"$tmgen" trace --rules "$rules" --count 100000 \
					--seed 1 > "$rules.trace"
			for ((r = 1; r <= runs; r++)); do
				"$tmbench" -e tuplemerge -j "$rules.$r.json" \
					"$rules" "$rules.trace" | tail -n 1 |
					sed "s/^/$name $n run $r: /"
			done
			python3 - "$runs" "$rules" >> "$out/$name.dat" <<'EOF' || wrong=1
import json, sys
runs = [json.load(open(f"{sys.argv[2]}.{r}.json"))
        for r in range(1, int(sys.argv[1]) + 1)]
es = [j["engines"][0] for j in runs]
best = lambda k: min(e[k] for e in es)
print(runs[0]["rules"], best("ns_per_lookup"), best("ns_per_lookup_shuffled"),
      best("ns_per_lookup_bulk"), best("us_insert"), best("us_delete"),
      es[0]["bytes_per_rule"], es[0]["tuples"], es[0]["avg_probes"])
for r, e in enumerate(es, 1):
    if e["wrong"] or not e["checked"]:
        print(f"{sys.argv[2]} run {r}: {e['wrong']} wrong of "
              f"{e['checked']} checked", file=sys.stderr)
        sys.exit(1)
EOF
		done
	done
done

plots()
{
	local col=$1 s sep=""

	for s in "${series[@]}"; do
		printf '%s"%s/%s.dat" using 1:%s with linespoints title "%s"' \
			"$sep" "$out" "$s" "$col" "$s"
		sep=", "
	done
}

gnuplot <<EOF
set terminal pngcairo size 1500,480 font ",10"
set output "$png"
set multiplot layout 1,3 title "TupleMerge (tmbench, tmgen sets and traces, seed 1; best of $runs runs)"
set logscale x
set autoscale xfix
set offsets graph 0.05, graph 0.05, 0, 0
set format x "%.0s%c"
set yrange [0:*]
set xlabel "rules"
set grid
set key top left
set ylabel "ns per lookup (trace, one at a time)"
plot $(plots 2)
set ylabel "us per insert (whole set, random order)"
plot $(plots 5)
set key bottom right
set ylabel "bytes per rule (everything)"
plot $(plots 7)
unset multiplot
EOF
echo "scale.sh: data in $out/*.dat, picture $png"
exit "$wrong"
