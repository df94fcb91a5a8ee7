#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_metrics.sh [TEST_METRICS [TMCTL]]: tmctl metrics without a kernel.
# The label value escaping case by case (test_metrics escape); made-up
# replies of every dump (test_metrics dump: names with a double quote, a
# backslash, a newline and bytes that are not UTF-8, objects given twice)
# printed exactly as expected, with no-rules and with a netns label; every
# output checked for what promtool does not check (each family's HELP and
# TYPE once and before its samples, its samples together, no series
# twice, counters named _total) and by `promtool check metrics` (Debian
# package prometheus; skipped with a note when it is not installed); and
# "tmctl metrics output FILE" leaving no file behind when it cannot dump.
# Prints one line per failure and "N passed, N failed" at the end.
#
# test_metrics.sh -c FILE...: only the checks of an output (the VM test
# selftests/metrics.sh uses them on real dumps); exit 0 when they pass.

set -u

passed=0
failed=0

# structure FILE: the rules of the format that promtool does not check.
structure()
{
	awk '
	function bad(msg) {
		printf "%s:%d: %s\n", FILENAME, FNR, msg
		errors++
	}
	/^# HELP / {
		if ($3 in family)
			bad("family " $3 " again")
		family[$3] = 1
		help = $3
		cur = ""
		next
	}
	/^# TYPE / {
		if ($3 != help)
			bad("TYPE of " $3 " not right after its HELP")
		if ($4 != "counter" && $4 != "gauge")
			bad("type " $4)
		if ($4 == "counter" && $3 !~ /_total$/)
			bad("counter " $3 " not named _total")
		cur = $3
		help = ""
		next
	}
	/^#/ {
		bad("a comment that is no HELP or TYPE")
		next
	}
	{
		name = $0
		sub(/[{ ].*/, "", name)
		if (name != cur)
			bad("sample of " name " outside its family")
		if (name !~ /^tuplemerge_[a-z0-9_]+$/)
			bad("name " name)
		if (!match($0, / [0-9]+$/)) {
			bad("no value")
			next
		}
		series = substr($0, 1, RSTART - 1)
		if (series in seen)
			bad("series twice: " series)
		seen[series] = 1
		samples++
	}
	END {
		if (!samples)
			bad("no sample")
		exit errors != 0
	}' "$1"
}

# promtool_check FILE: promtool check metrics, or a note when missing.
promtool_check()
{
	if ! command -v promtool >/dev/null; then
		echo "SKIP: promtool check metrics $1: promtool is not installed (Debian package prometheus)"
		return 0
	fi
	promtool check metrics < "$1"
}

# check_output NAME FILE: both checks of an output.
check_output()
{
	local out

	if out=$(structure "$2" 2>&1); then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $1: structure"
		printf '%s\n' "$out" | sed 's/^/  /'
	fi
	if out=$(promtool_check "$2" 2>&1); then
		passed=$((passed + 1))
		[ -n "$out" ] && echo "$out"
	else
		failed=$((failed + 1))
		echo "FAIL: $1: promtool check metrics"
		printf '%s\n' "$out" | sed 's/^/  /'
	fi
}

if [ "${1:-}" = -c ]; then
	shift
	for f in "$@"; do
		check_output "$f" "$f"
	done
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ]
	exit
fi

TM=$(realpath "${1:-$(dirname "$0")/../../build/tmctl/test_metrics}")
TMCTL=$(realpath "${2:-$(dirname "$0")/tmctl}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# compare NAME WANT GOT
compare()
{
	if [ "$2" = "$3" ]; then
		passed=$((passed + 1))
		return
	fi
	failed=$((failed + 1))
	echo "FAIL: $1"
	diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") | sed 's/^/  /'
}

# The escaping, case by case.
"$TM" escape > "$tmp/escape"
compare "escape: every case" "" "$(grep -v '^ok ' "$tmp/escape")"
compare "escape: cases run" 16 "$(grep -c '^ok ' "$tmp/escape")"

# Every dump, made up; U+FFFD for each byte that is not UTF-8.
cat > "$tmp/want" <<'WANT'
# HELP tuplemerge_tables Tables in the network namespace.
# TYPE tuplemerge_tables gauge
tuplemerge_tables 2
# HELP tuplemerge_generation Generation of the namespace's configuration, one more at each change.
# TYPE tuplemerge_generation gauge
tuplemerge_generation 42
# HELP tuplemerge_table_info A table's family, hook, priority, policy and engine as labels; always 1.
# TYPE tuplemerge_table_info gauge
tuplemerge_table_info{table="filter",family="inet",hook="input",priority="-10",policy="drop",engine="tuplemerge"} 1
tuplemerge_table_info{table="we\"ird\\name\nx�é",family="ip",hook="forward",priority="0",policy="accept",engine="linear"} 1
# HELP tuplemerge_table_rules Rules in the table.
# TYPE tuplemerge_table_rules gauge
tuplemerge_table_rules{table="filter"} 3
tuplemerge_table_rules{table="we\"ird\\name\nx�é"} 1
# HELP tuplemerge_table_max_rules Rules the table may hold (max-rules).
# TYPE tuplemerge_table_max_rules gauge
tuplemerge_table_max_rules{table="filter"} 1048576
tuplemerge_table_max_rules{table="we\"ird\\name\nx�é"} 1048576
# HELP tuplemerge_table_tuples Tuples (hash tables) holding the table's rules.
# TYPE tuplemerge_table_tuples gauge
tuplemerge_table_tuples{table="filter"} 2
tuplemerge_table_tuples{table="we\"ird\\name\nx�é"} 2
# HELP tuplemerge_table_max_tuples Tuples the table may have per address family (max-tuples).
# TYPE tuplemerge_table_max_tuples gauge
tuplemerge_table_max_tuples{table="filter"} 4096
tuplemerge_table_max_tuples{table="we\"ird\\name\nx�é"} 4096
# HELP tuplemerge_table_memory_bytes Memory used by the table's rules, in bytes.
# TYPE tuplemerge_table_memory_bytes gauge
tuplemerge_table_memory_bytes{table="filter"} 768
tuplemerge_table_memory_bytes{table="we\"ird\\name\nx�é"} 256
# HELP tuplemerge_table_lookups_total Packets the table classified.
# TYPE tuplemerge_table_lookups_total counter
tuplemerge_table_lookups_total{table="filter"} 1000
tuplemerge_table_lookups_total{table="we\"ird\\name\nx�é"} 0
# HELP tuplemerge_table_matches_total Packets the table classified that a rule matched; the others got its policy.
# TYPE tuplemerge_table_matches_total counter
tuplemerge_table_matches_total{table="filter"} 500
tuplemerge_table_matches_total{table="we\"ird\\name\nx�é"} 0
# HELP tuplemerge_table_probes_total Tuples probed by the table's lookups; divided by lookups, probes per packet.
# TYPE tuplemerge_table_probes_total counter
tuplemerge_table_probes_total{table="filter"} 1500
tuplemerge_table_probes_total{table="we\"ird\\name\nx�é"} 0
# HELP tuplemerge_rule_packets_total Packets the rule won.
# TYPE tuplemerge_rule_packets_total counter
tuplemerge_rule_packets_total{table="filter",id="1",family="inet",action="accept",comment="say \"hi\" \\ now"} 10
tuplemerge_rule_packets_total{table="filter",id="2",family="ip",action="drop"} 0
tuplemerge_rule_packets_total{table="filter",id="3",family="ip6",action="count",comment="two\nlines �( ��"} 18446744073709551615
tuplemerge_rule_packets_total{table="we\"ird\\name\nx�é",id="7",family="ip",action="reject"} 1
# HELP tuplemerge_rule_bytes_total Bytes of the packets the rule won.
# TYPE tuplemerge_rule_bytes_total counter
tuplemerge_rule_bytes_total{table="filter",id="1",family="inet",action="accept",comment="say \"hi\" \\ now"} 840
tuplemerge_rule_bytes_total{table="filter",id="2",family="ip",action="drop"} 0
tuplemerge_rule_bytes_total{table="filter",id="3",family="ip6",action="count",comment="two\nlines �( ��"} 5
tuplemerge_rule_bytes_total{table="we\"ird\\name\nx�é",id="7",family="ip",action="reject"} 60
# HELP tuplemerge_sid_info A SID's acceptance policy as a label; always 1.
# TYPE tuplemerge_sid_info gauge
tuplemerge_sid_info{sid="fc00:1::100",policy="conns"} 1
tuplemerge_sid_info{sid="fc00:2::100",policy="always"} 1
# HELP tuplemerge_sid_threshold The threshold N of the SID's conns, backlog or load policy.
# TYPE tuplemerge_sid_threshold gauge
tuplemerge_sid_threshold{sid="fc00:1::100"} 8
# HELP tuplemerge_sid_connections Connections the SID accepted and has not seen close.
# TYPE tuplemerge_sid_connections gauge
tuplemerge_sid_connections{sid="fc00:1::100"} 3
tuplemerge_sid_connections{sid="fc00:2::100"} 3
# HELP tuplemerge_sid_load The load the application last reported for the SID (sid load).
# TYPE tuplemerge_sid_load gauge
tuplemerge_sid_load{sid="fc00:1::100"} 0
tuplemerge_sid_load{sid="fc00:2::100"} 0
# HELP tuplemerge_sid_accepted_total New connections the SID accepted by its policy.
# TYPE tuplemerge_sid_accepted_total counter
tuplemerge_sid_accepted_total{sid="fc00:1::100"} 1000
tuplemerge_sid_accepted_total{sid="fc00:2::100"} 2000
# HELP tuplemerge_sid_passed_total New connections the SID passed on to the next candidate.
# TYPE tuplemerge_sid_passed_total counter
tuplemerge_sid_passed_total{sid="fc00:1::100"} 1001
tuplemerge_sid_passed_total{sid="fc00:2::100"} 2001
# HELP tuplemerge_sid_forced_total New connections the SID accepted as the last candidate.
# TYPE tuplemerge_sid_forced_total counter
tuplemerge_sid_forced_total{sid="fc00:1::100"} 1002
tuplemerge_sid_forced_total{sid="fc00:2::100"} 2002
# HELP tuplemerge_sid_steered_total Packets of connections the SID knows, taken.
# TYPE tuplemerge_sid_steered_total counter
tuplemerge_sid_steered_total{sid="fc00:1::100"} 1003
tuplemerge_sid_steered_total{sid="fc00:2::100"} 2003
# HELP tuplemerge_sid_unknown_total Non-SYN packets of connections the SID does not know.
# TYPE tuplemerge_sid_unknown_total counter
tuplemerge_sid_unknown_total{sid="fc00:1::100"} 1004
tuplemerge_sid_unknown_total{sid="fc00:2::100"} 2004
# HELP tuplemerge_sid_malformed_total Packets the SID dropped for a bad SRH.
# TYPE tuplemerge_sid_malformed_total counter
tuplemerge_sid_malformed_total{sid="fc00:1::100"} 1005
tuplemerge_sid_malformed_total{sid="fc00:2::100"} 2005
# HELP tuplemerge_sid_reports_total Replies the SID sent through the load balancer.
# TYPE tuplemerge_sid_reports_total counter
tuplemerge_sid_reports_total{sid="fc00:1::100"} 1010
tuplemerge_sid_reports_total{sid="fc00:2::100"} 2010
# HELP tuplemerge_sid_hmac_bad_total Load balancer packets the SID dropped, their HMAC missing or wrong.
# TYPE tuplemerge_sid_hmac_bad_total counter
tuplemerge_sid_hmac_bad_total{sid="fc00:1::100"} 1011
tuplemerge_sid_hmac_bad_total{sid="fc00:2::100"} 2011
# HELP tuplemerge_sid_hmac_nokey_total Packets the SID dropped, its HMAC key not set.
# TYPE tuplemerge_sid_hmac_nokey_total counter
tuplemerge_sid_hmac_nokey_total{sid="fc00:1::100"} 1012
tuplemerge_sid_hmac_nokey_total{sid="fc00:2::100"} 2012
# HELP tuplemerge_lb_info A load-balancer service's VIP, port (0: any) and SID as labels; always 1.
# TYPE tuplemerge_lb_info gauge
tuplemerge_lb_info{service="web",vip="2001:db8::80",port="80",sid="fc00:ff::1"} 1
tuplemerge_lb_info{service="a\"b",vip="2001:db8:80::/48",port="0",sid="fc00:ff::2"} 1
# HELP tuplemerge_lb_backends Backends (servers' SIDs) of the service.
# TYPE tuplemerge_lb_backends gauge
tuplemerge_lb_backends{service="web"} 2
tuplemerge_lb_backends{service="a\"b"} 0
# HELP tuplemerge_lb_backend_weight The weight of a backend of the service.
# TYPE tuplemerge_lb_backend_weight gauge
tuplemerge_lb_backend_weight{service="web",backend="fc00:1::100"} 1
tuplemerge_lb_backend_weight{service="web",backend="fc00:2::100"} 2
# HELP tuplemerge_lb_backend_up 1 when the backend's health checks find it up, 0 when down.
# TYPE tuplemerge_lb_backend_up gauge
tuplemerge_lb_backend_up{service="web",backend="fc00:1::100"} 1
tuplemerge_lb_backend_up{service="web",backend="fc00:2::100"} 0
# HELP tuplemerge_lb_backend_probes_total Health check probes sent to the backend.
# TYPE tuplemerge_lb_backend_probes_total counter
tuplemerge_lb_backend_probes_total{service="web",backend="fc00:1::100"} 50
tuplemerge_lb_backend_probes_total{service="web",backend="fc00:2::100"} 100
# HELP tuplemerge_lb_backend_probes_failed_total Health check probes of the backend that failed.
# TYPE tuplemerge_lb_backend_probes_failed_total counter
tuplemerge_lb_backend_probes_failed_total{service="web",backend="fc00:1::100"} 0
tuplemerge_lb_backend_probes_failed_total{service="web",backend="fc00:2::100"} 3
# HELP tuplemerge_lb_backend_transitions_total Times the backend went down or up.
# TYPE tuplemerge_lb_backend_transitions_total counter
tuplemerge_lb_backend_transitions_total{service="web",backend="fc00:1::100"} 0
tuplemerge_lb_backend_transitions_total{service="web",backend="fc00:2::100"} 1
# HELP tuplemerge_lb_flows Flows the service remembers.
# TYPE tuplemerge_lb_flows gauge
tuplemerge_lb_flows{service="web"} 8
tuplemerge_lb_flows{service="a\"b"} 0
# HELP tuplemerge_lb_max_flows Flows the service may remember (max-flows).
# TYPE tuplemerge_lb_max_flows gauge
tuplemerge_lb_max_flows{service="web"} 1048576
tuplemerge_lb_max_flows{service="a\"b"} 1048576
# HELP tuplemerge_lb_hunts_total New connections the service sent hunting through candidates.
# TYPE tuplemerge_lb_hunts_total counter
tuplemerge_lb_hunts_total{service="web"} 100
tuplemerge_lb_hunts_total{service="a\"b"} 100
# HELP tuplemerge_lb_recoveries_total Packets of flows the service did not know, sent hunting for their server.
# TYPE tuplemerge_lb_recoveries_total counter
tuplemerge_lb_recoveries_total{service="web"} 101
tuplemerge_lb_recoveries_total{service="a\"b"} 101
# HELP tuplemerge_lb_steered_total Packets the service sent to the server it learned.
# TYPE tuplemerge_lb_steered_total counter
tuplemerge_lb_steered_total{service="web"} 102
tuplemerge_lb_steered_total{service="a\"b"} 102
# HELP tuplemerge_lb_reports_total Server replies the service forwarded.
# TYPE tuplemerge_lb_reports_total counter
tuplemerge_lb_reports_total{service="web"} 103
tuplemerge_lb_reports_total{service="a\"b"} 103
# HELP tuplemerge_lb_learned_total Flows whose server the service learned.
# TYPE tuplemerge_lb_learned_total counter
tuplemerge_lb_learned_total{service="web"} 104
tuplemerge_lb_learned_total{service="a\"b"} 104
# HELP tuplemerge_lb_expired_total Flows the service aged out.
# TYPE tuplemerge_lb_expired_total counter
tuplemerge_lb_expired_total{service="web"} 105
tuplemerge_lb_expired_total{service="a\"b"} 105
# HELP tuplemerge_lb_full_total Flows the service did not remember, its flow table full.
# TYPE tuplemerge_lb_full_total counter
tuplemerge_lb_full_total{service="web"} 106
tuplemerge_lb_full_total{service="a\"b"} 106
# HELP tuplemerge_lb_dropped_total Packets the service dropped: no backend, not its VIP or port, or no memory.
# TYPE tuplemerge_lb_dropped_total counter
tuplemerge_lb_dropped_total{service="web"} 107
tuplemerge_lb_dropped_total{service="a\"b"} 107
# HELP tuplemerge_lb_too_big_total Packets too big with the SRH, answered with an ICMPv6 Packet Too Big.
# TYPE tuplemerge_lb_too_big_total counter
tuplemerge_lb_too_big_total{service="web"} 108
tuplemerge_lb_too_big_total{service="a\"b"} 108
# HELP tuplemerge_lb_malformed_total Bad reports the service dropped.
# TYPE tuplemerge_lb_malformed_total counter
tuplemerge_lb_malformed_total{service="web"} 109
tuplemerge_lb_malformed_total{service="a\"b"} 109
# HELP tuplemerge_lb_refused_total Reports the service refused (no such flow, or not from a candidate).
# TYPE tuplemerge_lb_refused_total counter
tuplemerge_lb_refused_total{service="web"} 110
tuplemerge_lb_refused_total{service="a\"b"} 110
# HELP tuplemerge_lb_evicted_total Half-open flows the service evicted for room.
# TYPE tuplemerge_lb_evicted_total counter
tuplemerge_lb_evicted_total{service="web"} 111
tuplemerge_lb_evicted_total{service="a\"b"} 111
# HELP tuplemerge_lb_netns_full_total Flows the service did not remember, the namespace's limit reached.
# TYPE tuplemerge_lb_netns_full_total counter
tuplemerge_lb_netns_full_total{service="web"} 112
tuplemerge_lb_netns_full_total{service="a\"b"} 112
# HELP tuplemerge_lb_hmac_bad_total Reports the service dropped, their HMAC missing or wrong.
# TYPE tuplemerge_lb_hmac_bad_total counter
tuplemerge_lb_hmac_bad_total{service="web"} 113
tuplemerge_lb_hmac_bad_total{service="a\"b"} 113
# HELP tuplemerge_lb_hmac_nokey_total Packets the service dropped, its HMAC key not set.
# TYPE tuplemerge_lb_hmac_nokey_total counter
tuplemerge_lb_hmac_nokey_total{service="web"} 114
tuplemerge_lb_hmac_nokey_total{service="a\"b"} 114
WANT
"$TM" dump > "$tmp/all"
compare "dump: the output" "$(cat "$tmp/want")" "$(cat "$tmp/all")"
check_output "dump" "$tmp/all"

# no-rules: the same less the rules' families.
"$TM" dump no-rules > "$tmp/norules"
compare "dump no-rules: no rule family, the rest the same" \
	"$(grep -v '^\(# [A-Z]* \)\?tuplemerge_rule_' "$tmp/all")" \
	"$(cat "$tmp/norules")"
check_output "dump no-rules" "$tmp/norules"

# -n NETNS: a netns label first on every sample.
"$TM" dump netns 'blue "x"' > "$tmp/netns"
label='netns="blue \\"x\\""'
compare "dump netns: every sample labelled" \
	"$(grep -v '^#' "$tmp/all" |
	   sed -e "/{/!s/ /{$label} /" -e "/{netns=/!s/{/{$label,/")" \
	"$(grep -v '^#' "$tmp/netns")"
check_output "dump netns" "$tmp/netns"

# A write that fails (a full disk) is an error, not a short output.
"$TM" dump > /dev/full
compare "dump to a full disk: an error" 1 "$?"

# The structure check finds what it looks for.
not_structure()
{
	printf '%b' "$2" > "$tmp/bad"
	if structure "$tmp/bad" >/dev/null; then
		failed=$((failed + 1))
		echo "FAIL: the structure check misses $1"
	else
		passed=$((passed + 1))
	fi
}
H='# HELP tuplemerge_a_total A.\n# TYPE tuplemerge_a_total counter\n'
G='# HELP tuplemerge_g G.\n# TYPE tuplemerge_g gauge\ntuplemerge_g 1\n'
not_structure "a series twice" \
	"$H"'tuplemerge_a_total{x="1"} 1\ntuplemerge_a_total{x="1"} 2\n'
not_structure "a family apart" \
	"$H"'tuplemerge_a_total 1\n'"$G"'tuplemerge_a_total{x="2"} 2\n'
not_structure "a family twice" \
	"$H"'tuplemerge_a_total 1\n'"$H"'tuplemerge_a_total{x="2"} 2\n'
not_structure "a counter without _total" \
	'# HELP tuplemerge_c C.\n# TYPE tuplemerge_c counter\ntuplemerge_c 1\n'
not_structure "a sample before its HELP" 'tuplemerge_g 1\n'"$G"

# tmctl metrics output FILE: without the module (exit 3), no file, no
# temporary file; with it (a machine that has it), a file that passes.
mkdir "$tmp/out"
"$TMCTL" metrics output "$tmp/out/tuplemerge.prom" 2> "$tmp/err"
rc=$?
if [ "$rc" = 3 ]; then
	compare "output, no module: nothing written" "" "$(ls -A "$tmp/out")"
	compare "output, no module: the message" \
		"tmctl: the tuplemerge module is not loaded (try: modprobe tuplemerge)" \
		"$(cat "$tmp/err")"
else
	compare "output, with the module: exit 0" 0 "$rc"
	compare "output, with the module: the file alone" tuplemerge.prom \
		"$(ls -A "$tmp/out")"
	check_output "tmctl metrics output" "$tmp/out/tuplemerge.prom"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
