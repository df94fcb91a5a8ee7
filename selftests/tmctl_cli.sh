#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tmctl against the real module: monitor prints every kind of event, import
# loads a ClassBench file as one transaction (and names the bad line of a
# broken one, changing nothing), JSON output parses, stats add up, -e
# prints the id the kernel assigned, and a long batch that fails late
# changes nothing.
#
#   ns1: tables "t" (inet, input), "cb" and "big" (ip, forward); no traffic

source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip python3 timeout
require_module

ns1=''
setup_ns ns1 || exit "$ksft_fail"
TMP=$(mktemp -d)
MON=
cleanup()
{
	[ -n "$MON" ] && kill "$MON" 2>/dev/null
	wait 2>/dev/null
	cleanup_ns
	rm -rf "$TMP"
}

tm()
{
	"$TMCTL" -n "$ns1" "$@"
}

test_monitor()
{
	local out

	tm monitor >"$TMP/mon" 2>&1 &
	MON=$!
	sleep 1
	tm table add t family inet hook input policy accept
	tm rule add t id 5 proto tcp dport 22 drop
	tm rule replace t id 5 proto tcp dport 2222 drop
	printf 'rule add t id 6 proto udp accept\nrule add t id 7 drop\n' >"$TMP/b"
	tm -f "$TMP/b"
	tm rule del t id 6
	tm rule flush t
	tm table del t
	sleep 1
	kill "$MON"
	wait "$MON" 2>/dev/null
	MON=
	out=$(cat "$TMP/mon")
	for want in "table add t family inet hook input" \
		    "rule add t id 5 priority 0 family inet dport 22 proto tcp drop" \
		    "rule replace t id 5 priority 0 family inet dport 2222 proto tcp drop" \
		    "commit table t ops 2" \
		    "rule del t id 6" \
		    "rule flush t" \
		    "table del t"; do
		[[ "$out" == *"$want"* ]]
		check_err $? "monitor: no '$want' in: $out"
	done
	log_test "monitor shows table, rule and commit events"
}

test_import()
{
	local out rc

	tm table add cb family ip hook forward policy accept
	printf '@10.0.0.0/8\t192.168.1.1/32\t0 : 65535\t22 : 22\t0x06/0xFF\t0x0000/0x0000\n@0.0.0.0/0\t0.0.0.0/0\t1024 : 2047\t0 : 65535\t0x11/0xFF\t0x0000/0x0000\n@1.2.3.4/32\t0.0.0.0/0\t0 : 65535\t0 : 65535\t0x00/0x00\t0x0000/0x0000\n' >"$TMP/cb"
	tm import cb "$TMP/cb" drop
	check_err $? "import"
	out=$(tm -s rule list cb)
	expect_eq "imported rules" "$out" "rule add cb id 1 priority 0 src 10.0.0.0/8 dst 192.168.1.1 dport 22 proto tcp drop
rule add cb id 2 priority 1 family ip sport 1024-2047 proto udp drop
rule add cb id 3 priority 2 src 1.2.3.4 drop"
	printf '@10.0.0.0/8\t1.1.1.1/32\t0 : 65535\t22 : 22\t0x06/0xFF\t0x0000/0x0000\n@10.0.0.0/33\t0.0.0.0/0\t0 : 65535\t0 : 65535\t0x00/0x00\t0x0000/0x0000\n' >"$TMP/bad"
	out=$(tm import cb "$TMP/bad" 2>&1)
	rc=$?
	expect_eq "exit of a bad import" "$rc" 1
	[[ "$out" == *"$TMP/bad:2:2: prefix length 33"* ]]
	check_err $? "bad import names the line: $out"
	out=$(tm import cb "$TMP/cb" 2>&1)
	rc=$?
	expect_eq "exit of an import over used ids" "$rc" 2
	# Its three rules went in one message: each refusal at its line.
	expect_eq "errors of an import over used ids" "$out" \
"$TMP/cb:1: error: Rule id already in use in this table (File exists)
$TMP/cb:2: error: Rule id already in use in this table (File exists)
$TMP/cb:3: error: Rule id already in use in this table (File exists)"
	expect_eq "rules after failed imports" "$(tm -s rule list cb | wc -l)" 3
	log_test "import of ClassBench files is one transaction"
}

test_json_stats()
{
	local out

	out=$(tm -e rule add cb proto icmp count)
	[[ "$out" == "rule add cb id 4 "* ]]
	check_err $? "echo of an assigned id: $out"
	tm -j rule list cb >"$TMP/rules.json" &&
		tm -j table list >"$TMP/tables.json" &&
		tm -j stats >"$TMP/stats.json" &&
		tm -j rule lookup cb src 10.1.1.1 dst 192.168.1.1 proto tcp dport 22 >"$TMP/lookup.json"
	check_err $? "tmctl -j"
	out=$(python3 - "$TMP" <<-'EOF'
	import json, sys
	d = sys.argv[1]
	rules = json.load(open(d + "/rules.json"))
	tables = json.load(open(d + "/tables.json"))
	stats = json.load(open(d + "/stats.json"))
	lookup = json.load(open(d + "/lookup.json"))
	print(len(rules), [r["id"] for r in rules], rules[0]["action"],
	      tables[0]["rules"], lookup["match"], lookup["id"],
	      stats["tables"])
	EOF
	)
	expect_eq "JSON" "$out" "4 [1, 2, 3, 4] drop 4 True 1 1"
	log_test "JSON output of rules, tables, stats and lookups"
}

# tmctl -f sends what it has parsed while it parses the rest: a bad line
# or a refused one near the end of a long file must still change nothing.
test_long_batch()
{
	local out rc before gen

	tm table add big family ip hook forward policy accept
	awk 'BEGIN { for (i = 1; i <= 3000; i++)
		printf "rule add big id %d src 10.%d.%d.0/24 drop\n", i, i / 256, i % 256 }' >"$TMP/big"
	tm -f "$TMP/big"
	check_err $? "load of 3000 rules"
	before=$(tm -s rule list big | md5sum)
	gen=$(tm stats | head -1)
	expect_eq "rules loaded" "$(tm -s rule list big | wc -l)" 3000
	{
		echo "rule flush big"
		sed -e 's/ drop$/ accept/' -e '2500s|/24|/33|' "$TMP/big"
	} >"$TMP/big-bad"
	out=$(tm -f "$TMP/big-bad" 2>&1)
	rc=$?
	expect_eq "exit of a long batch with a bad line" "$rc" 1
	[[ "$out" == *"$TMP/big-bad:2501:"*"prefix length 33"* ]]
	check_err $? "long batch names its bad line: $out"
	{
		echo "rule flush big"
		sed -e 's/ drop$/ accept/' -e '2800s/id 2800/id 7/' "$TMP/big"
	} >"$TMP/big-dup"
	out=$(tm -f "$TMP/big-dup" 2>&1)
	rc=$?
	expect_eq "exit of a long batch with a refused line" "$rc" 2
	[[ "$out" == *"$TMP/big-dup:2801: error: Rule id already in use"* ]]
	check_err $? "long batch names its refused line: $out"
	expect_eq "rules after failed long batches" \
		"$(tm -s rule list big | md5sum)" "$before"
	expect_eq "generation after failed long batches" \
		"$(tm stats | head -1)" "$gen"
	tm table del big
	log_test "a long batch with a bad or refused line changes nothing"
}

# tmctl -f packs the rules of a table many to a message (TM_A_RULE nests):
# each refusal still names its line, and its word (iif: no input interface
# at an output hook), and a message refused in part changes nothing.
test_batch_messages()
{
	local out rc

	tm table add out family ip hook output
	awk 'BEGIN { print "rule flush out"
		for (i = 1; i <= 200; i++) {
			id = i
			if (i == 10 || i == 40) id = 3
			if (i == 149) id = 1
			printf "rule add out id %d dport %d %sdrop\n", id, i,
				i == 30 ? "iif lo " : ""
		} }' >"$TMP/out-bad"
	out=$(tm -f "$TMP/out-bad" 2>&1)
	rc=$?
	expect_eq "exit of a batch with refused rules" "$rc" 2
	expect_eq "errors of a batch with refused rules" "$out" \
"$TMP/out-bad:11: error: Rule id already in use in this table (File exists)
$TMP/out-bad:31:33: error: Packets have no input interface at the table's hook (Invalid argument)
$TMP/out-bad:41: error: Rule id already in use in this table (File exists)
$TMP/out-bad:150: error: Rule id already in use in this table (File exists)"
	expect_eq "rules after the refused batch" "$(tm rule list out)" ""
	out=$(sed -e '/iif/d' -e 's/id 3 dport \(10\|40\) /id 100\1 dport \1 /' \
		-e 's/id 1 dport 149 /id 1149 dport 149 /' "$TMP/out-bad" |
		tm -v -f - 2>&1)
	check_err $? "the batch without its refused rules: $out"
	[[ "$out" =~ 200\ requests\ in\ ([0-9]+)\ messages ]] &&
		[ "${BASH_REMATCH[1]}" -lt 10 ]
	check_err $? "200 requests in fewer than 10 messages: $out"
	expect_eq "rules of the batch" "$(tm rule list out | wc -l)" 199
	tm table del out
	log_test "rules many to a message: each refusal at its line and word"
}

test_monitor
test_import
test_json_stats
test_long_batch
test_batch_messages

exit "$EXIT_STATUS"
