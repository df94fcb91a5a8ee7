#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark: loading N ClassBench-like IPv4 rules (gen_rules.awk, first
# match wins) into an empty table with `tmctl -f` (one transaction),
# `nft -f` (one nft chain), `iptables-restore` (Debian's nft backend) and
# `iptables-legacy-restore`, each one process timed from start to exit in
# a fresh namespace where its table (and nft's chain) already exists.
# Prints seconds, rules/s and the ratio to tmctl.  Then BIG rules
# (1,000,000; 0 for none) with `tmctl -f` alone: seconds, rules/s, the
# table's own count of its bytes and what the machine's available memory
# lost.  Run in the VM: make vm-bench.

source "$(dirname "$0")/../lib.sh"

require_root
require_cmd ip awk nft iptables-restore iptables-legacy-restore
require_module

N=${N:-100000}
BIG=${BIG:-1000000}
HERE=$(dirname "$0")
TMP=$(mktemp -d)
trap 'cleanup_ns; rm -rf "$TMP"' EXIT

# iptables-legacy needs its tables' modules; nothing loads them on demand.
modprobe iptable_filter 2>/dev/null

for f in tmctl nft ipt; do
	awk -v n="$N" -v fmt=$f -v table=t -f "$HERE/gen_rules.awk" >"$TMP/$f"
done

now() { date +%s.%N; }

# timed NAME SETUP CMD...: in a fresh namespace, run the bash command SETUP,
# then time CMD from start to exit; print NAME seconds.  Each tool's table
# (and nft's chain) is made by SETUP, so that every timed command is one
# process loading the rules into an existing, empty table.
timed()
{
	local name=$1 setup=$2 ns='' t0 t1

	shift 2
	setup_ns ns || return 1
	ip netns exec "$ns" bash -c "$setup" || { echo "$name setup failed" >&2; return 1; }
	t0=$(now)
	ip netns exec "$ns" "$@" || { echo "$name failed" >&2; return 1; }
	t1=$(now)
	awk -v n="$name" -v a="$t0" -v b="$t1" 'BEGIN { printf "%s %.3f\n", n, b - a }'
	cleanup_ns
}

{
	timed tmctl "'$TMCTL' table add t family ip" "$TMCTL" -f "$TMP/tmctl"
	timed nft "nft add table ip t && nft add chain ip t c '{ type filter hook input priority 0; policy accept; }'" \
		nft -f "$TMP/nft"
	timed iptables-restore "" iptables-restore "$TMP/ipt"
	timed iptables-legacy-restore "" iptables-legacy-restore "$TMP/ipt"
} >"$TMP/times"

echo "# loading $N rules (emulated VM: compare ratios, not seconds)"
awk -v n="$N" '
	{ name[NR] = $1; t[NR] = $2 }
	END {
		printf "%-26s %10s %12s %10s\n", "tool", "seconds", "rules/s", "vs tmctl"
		for (i = 1; i <= NR; i++)
			printf "%-26s %10.2f %12.0f %9.1fx\n", name[i], t[i], n / t[i], t[i] / t[1]
	}' "$TMP/times"

[ "$BIG" -gt 0 ] || exit 0
awk -v n="$BIG" -v fmt=tmctl -v table=t -f "$HERE/gen_rules.awk" >"$TMP/big"
avail() { awk '/^MemAvailable:/ { print $2 * 1024 }' /proc/meminfo; }
setup_ns ns || exit "$ksft_fail"
ip netns exec "$ns" "$TMCTL" table add t family ip || exit "$ksft_fail"
m0=$(avail)
t0=$(now)
ip netns exec "$ns" "$TMCTL" -f "$TMP/big" || { echo "tmctl -f of $BIG rules failed" >&2; exit "$ksft_fail"; }
t1=$(now)
m1=$(avail)
read -r rules bytes <<<"$(ip netns exec "$ns" "$TMCTL" table show t |
	awk '{ for (i = 1; i < NF; i++) { if ($i == "rules") r = $(i + 1); if ($i == "bytes") b = $(i + 1) } }
	     END { print r, b }')"
[ "$rules" = "$BIG" ] || { echo "the table holds $rules rules, not $BIG" >&2; exit "$ksft_fail"; }
echo "# loading $BIG rules with tmctl -f (one transaction)"
awk -v n="$BIG" -v a="$t0" -v b="$t1" -v by="$bytes" -v m="$((m0 - m1))" 'BEGIN {
	printf "%-10s %10s %12s %14s %12s %14s %12s\n", "rules", "seconds", "rules/s",
		"table bytes", "B/rule", "memory lost", "B/rule"
	printf "%-10d %10.2f %12.0f %14d %12.0f %14d %12.0f\n", n, b - a, n / (b - a),
		by, by / n, m, m / n
}'
