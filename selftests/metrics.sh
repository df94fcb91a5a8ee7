#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tmctl metrics on real counters: pings and datagrams through a table's
# rules, then the Prometheus metrics must give each rule the packets and
# bytes that rule list gives it, the table its rules and matches, the
# service its backends; each output passes the checks of
# tools/tmctl/test_metrics.sh -c (HELP and TYPE once, a family's samples
# together, no series twice) and promtool check metrics.  The comments
# hold what label values escape: a double quote and a backslash (from
# tmctl, which refuses control characters) and a newline (a rule made
# through tmnl.py, as the kernel takes any byte).  output FILE, no-rules,
# the netns label of -n, the command of tuplemerge-metrics.service.
#
#   +-----------------------+          +-------------------------------+
#   | ns1 (client)          |          | ns2 (server)                  |
#   |   veth1 10.0.1.1/24   +----------+   veth2 10.0.1.2/24           |
#   |         fd00:1::1/64  |          |         fd00:1::2/64          |
#   +-----------------------+          |   table "fw": inet, input,    |
#                                      |   policy accept, rules 1-5;   |
#                                      |   service "web", 2 backends   |
#                                      +-------------------------------+
#
#   rule 1: ICMP echo requests, count, comment: say "hi" \ there
#   rule 2: ICMPv6 echo requests, accept
#   rule 3: UDP to port 9, drop, comment: udp 9
#   rule 4: TCP to port 22, accept (no packet)
#   rule 5: TCP to port 23, accept (no packet), comment: two\nlines "q" \
#
# A SID is bound only when the global nf_hooks_lwtunnel key is on already:
# the first SID switches it on for good, which priv.sh wants to see.

source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip ping python3 awk
require_module

CHECK=$TM_TOP/tools/tmctl/test_metrics.sh
UNIT=$TM_TOP/tools/systemd/tuplemerge-metrics.service

ns1='' ns2=''
setup_ns ns1 ns2 || exit "$ksft_fail"
veth_pair "$ns1" "$ns2" || exit "$ksft_fail"
TMP=$(mktemp -d)
cleanup()
{
	cleanup_ns
	rm -rf "$TMP"
}

tm()
{
	"$TMCTL" -n "$ns2" "$@"
}

# The label every series has with -n.
NETNS="netns=\"$ns2\""
COMMENT1='say "hi" \ there'
COMMENT5=$'two\nlines "q" \\'

# value FILE SERIES: the value of the sample SERIES in FILE, or nothing
# (SERIES through the environment: awk -v would take its backslashes).
value()
{
	SERIES=$2 awk '
		BEGIN { s = ENVIRON["SERIES"] " " }
		substr($0, 1, length(s)) == s { print $NF }' "$1"
}

# rule_series FILE METRIC ID: the series of METRIC of rule ID of fw.
rule_series()
{
	grep -F "$2{$NETNS,table=\"fw\",id=\"$3\"," "$1" | sed 's/ [0-9]*$//'
}

# checked NAME FILE: test_metrics.sh -c (structure, promtool).
checked()
{
	local out

	out=$("$CHECK" -c "$2" 2>&1)
	check_err $? "$1: $out"
	[[ $out == *SKIP:* ]] && log_info "$1: ${out%%$'\n'*}"
}

setup()
{
	tm table add fw family inet hook input policy accept &&
	tm rule add fw id 1 proto icmp icmp-type 8 comment "$COMMENT1" count &&
	tm rule add fw id 2 proto icmpv6 icmp-type 128 accept &&
	tm rule add fw id 3 proto udp dport 9 comment "udp 9" drop &&
	tm rule add fw id 4 proto tcp dport 22 accept &&
	ip netns exec "$ns2" python3 "$TM_TOP/selftests/tmnl.py" rule-new \
		table-name=fw rule-id=5 rule-proto=6 rule-dport-min=23 \
		rule-comment="$COMMENT5" >/dev/null &&
	tm lb service add web vip fd00:100::1 sid fd00:1b::1 tcp port 8080 &&
	tm lb backend add web fc00:1::100 &&
	tm lb backend add web fc00:2::100 weight 3
}

traffic()
{
	local _

	ip netns exec "$ns1" ping -c 3 -i 0.2 -W 2 10.0.1.2 >/dev/null &&
	ip netns exec "$ns1" ping -6 -c 2 -i 0.2 -W 2 fd00:1::2 >/dev/null ||
		return 1
	for _ in 1 2 3 4; do
		ip netns exec "$ns1" bash -c 'echo x >/dev/udp/10.0.1.2/9' ||
			return 1
	done
}

test_counters()
{
	local list m id p b want sum=0

	setup
	check_err $? "table, rules (one through tmnl.py), service"
	traffic
	check_err $? "pings and datagrams"
	list=$(tm rule list fw)
	tm metrics >"$TMP/all"
	check_err $? "tmctl metrics"
	m=$TMP/all
	for id in 1 2 3 4 5; do
		p=$(sed -n "s/^rule add fw id $id .* packets \([0-9]*\) bytes [0-9]*$/\1/p" <<<"$list")
		b=$(sed -n "s/^rule add fw id $id .* bytes \([0-9]*\)$/\1/p" <<<"$list")
		want=$(echo "3 2 4 0 0" | cut -d' ' -f"$id")
		expect_eq "rule $id: packets listed" "$p" "$want"
		expect_eq "rule $id: packets" \
			"$(value "$m" "$(rule_series "$m" tuplemerge_rule_packets_total "$id")")" "$p"
		expect_eq "rule $id: bytes" \
			"$(value "$m" "$(rule_series "$m" tuplemerge_rule_bytes_total "$id")")" "$b"
		sum=$((sum + ${p:-0}))
	done
	[ "$(value "$m" "$(rule_series "$m" tuplemerge_rule_bytes_total 1)")" -ge 3 ]
	check_err $? "rule 1 has bytes"
	expect_eq "tables" "$(value "$m" "tuplemerge_tables{$NETNS}")" 1
	expect_eq "table rules" \
		"$(value "$m" "tuplemerge_table_rules{$NETNS,table=\"fw\"}")" 5
	expect_eq "table matches: the rules' packets" \
		"$(value "$m" "tuplemerge_table_matches_total{$NETNS,table=\"fw\"}")" \
		"$sum"
	[ "$(value "$m" "tuplemerge_table_lookups_total{$NETNS,table=\"fw\"}")" -ge "$sum" ]
	check_err $? "table lookups, at least the matches"
	expect_eq "table info" "$(value "$m" "tuplemerge_table_info{$NETNS,table=\"fw\",family=\"inet\",hook=\"input\",priority=\"0\",policy=\"accept\",engine=\"tuplemerge\"}")" 1
	log_test "metrics: each rule's packets and bytes as rule list has them"

	expect_eq "comment with a quote and a backslash" \
		"$(grep -c -F 'comment="say \"hi\" \\ there"}' "$m")" 2
	expect_eq "comment with a newline, a quote and a backslash" \
		"$(grep -c -F 'comment="two\nlines \"q\" \\"}' "$m")" 2
	expect_eq "comment label only when set" \
		"$(rule_series "$m" tuplemerge_rule_packets_total 2 | grep -c comment)" 0
	expect_eq "every series with the netns label" \
		"$(grep -v '^#' "$m" | grep -c -v -F "{$NETNS")" 0
	checked "tmctl metrics" "$m"
	log_test "metrics: escaped comments, labels, structure and promtool"

	expect_eq "service backends" \
		"$(value "$m" "tuplemerge_lb_backends{$NETNS,service=\"web\"}")" 2
	expect_eq "backend weight" \
		"$(value "$m" "tuplemerge_lb_backend_weight{$NETNS,service=\"web\",backend=\"fc00:2::100\"}")" 3
	expect_eq "service info" \
		"$(value "$m" "tuplemerge_lb_info{$NETNS,service=\"web\",vip=\"fd00:100::1\",port=\"8080\",sid=\"fd00:1b::1\"}")" 1
	expect_eq "service hunts" \
		"$(value "$m" "tuplemerge_lb_hunts_total{$NETNS,service=\"web\"}")" 0
	log_test "metrics: a load-balancer service and its backends"
}

test_sid()
{
	local key m=$TMP/sid

	key=$(cat /proc/sys/net/netfilter/nf_hooks_lwtunnel 2>/dev/null)
	if [ "$key" != 1 ]; then
		log_info "nf_hooks_lwtunnel is '$key': no SID bound here, SID metrics left to test_metrics.sh"
		return
	fi
	tm sid add fc00:1::100 accept policy conns 8
	check_err $? "sid add"
	tm metrics >"$m"
	check_err $? "tmctl metrics"
	expect_eq "sid info" "$(value "$m" "tuplemerge_sid_info{$NETNS,sid=\"fc00:1::100\",policy=\"conns\"}")" 1
	expect_eq "sid threshold" "$(value "$m" "tuplemerge_sid_threshold{$NETNS,sid=\"fc00:1::100\"}")" 8
	expect_eq "sid accepted" "$(value "$m" "tuplemerge_sid_accepted_total{$NETNS,sid=\"fc00:1::100\"}")" 0
	checked "tmctl metrics with a SID" "$m"
	tm sid del fc00:1::100
	log_test "metrics: a SID"
}

test_output()
{
	local out rc line
	local -a cmd

	(umask 022 && tm metrics output "$TMP/out/tuplemerge.prom") 2>"$TMP/err"
	rc=$?
	expect_eq "output into a missing directory: exit" "$rc" 1
	[[ $(cat "$TMP/err") == *"cannot create a file beside '$TMP/out/tuplemerge.prom': No such file or directory"* ]]
	check_err $? "the message names the file: $(cat "$TMP/err")"

	mkdir "$TMP/out"
	echo "old" >"$TMP/out/tuplemerge.prom"
	(umask 022 && tm metrics output "$TMP/out/tuplemerge.prom")
	check_err $? "metrics output FILE"
	expect_eq "only the file is left" "$(ls -A "$TMP/out")" tuplemerge.prom
	expect_eq "its mode" "$(stat -c %a "$TMP/out/tuplemerge.prom")" 644
	expect_eq "its rule series, those of stdout" \
		"$(grep rule_ "$TMP/out/tuplemerge.prom")" \
		"$(tm metrics | grep rule_)"
	checked "metrics output FILE" "$TMP/out/tuplemerge.prom"
	log_test "metrics output FILE: replaced whole, 0644, nothing left beside"

	tm metrics no-rules >"$TMP/norules"
	check_err $? "metrics no-rules"
	expect_eq "no rule series" "$(grep -c rule_ "$TMP/norules")" 0
	expect_eq "the table's still" \
		"$(value "$TMP/norules" "tuplemerge_table_rules{$NETNS,table=\"fw\"}")" 5
	checked "metrics no-rules" "$TMP/norules"
	out=$("$TMCTL" metrics 2>&1 | grep -c -F "{$NETNS")
	expect_eq "without -n, no netns label" "$out" 0
	log_test "metrics no-rules; no netns label without -n"

	# The unit's command, its tmctl and directory replaced by the test's.
	# No process substitution: the VM has no /dev/fd.
	line=$(sed -n 's/^ExecStart=//p' "$UNIT" |
		sed "s|/usr/sbin/tmctl|$TMCTL -n $ns2|; s|/var/lib/prometheus/node-exporter/|$TMP/out/|")
	read -r -a cmd <<<"$line"

	rm -f "$TMP/out/tuplemerge.prom"
	"${cmd[@]}"
	check_err $? "the unit's ExecStart: ${cmd[*]}"
	expect_eq "the unit's file" "$(ls -A "$TMP/out")" tuplemerge.prom
	expect_eq "the unit's file has the rules" \
		"$(grep -c '^tuplemerge_rule_packets_total' "$TMP/out/tuplemerge.prom")" 5
	checked "the unit's file" "$TMP/out/tuplemerge.prom"
	log_test "tuplemerge-metrics.service's command writes the file"
}

test_counters
test_sid
test_output
exit "$EXIT_STATUS"
