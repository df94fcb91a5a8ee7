#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The family driven by the kernel's own netlink client: ynl's cli.py of
# Linux 6.12 (build/linux-6.12/tools/net/ynl, extracted by `make
# spec-check`) reads Documentation/netlink/specs/tuplemerge.yaml and
# nothing else of ours, so what it sends and decodes is what the spec says.
#
#   +--------------------------------------------------+
#   | ns1                                              |
#   |   table "t": inet, input                         |
#   |     rule 1: src 10.1.0.0/16 proto 6 dport 80 drop|
#   |     rule 2: src 2001:db8::/32 accept "ynl"       |
#   +--------------------------------------------------+
#
# A table and an IPv4 and an IPv6 rule made by cli.py come back in its
# dumps, addresses printed as text (the spec's display hints); lookups name
# the expected rules; a rule with a prefix length past 128 gets an extack
# that names rule-src-len; tmctl lists and looks up the same rules.  cli.py
# takes binary attributes as hex strings.  Each cli.py run starts Python
# (seconds under the emulated VM): few of them.

source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip
require_module

KSRC=$TM_TOP/build/linux-6.12
CLI=$KSRC/tools/net/ynl/cli.py
SCHEMA=$KSRC/Documentation/netlink/genetlink-legacy.yaml
SPEC=$TM_TOP/Documentation/netlink/specs/tuplemerge.yaml
if [ ! -f "$CLI" ] || [ ! -f "$SCHEMA" ]; then
	skip "no $KSRC (make spec-check extracts it from linux-source-6.12)"
fi
/usr/bin/python3 -c 'import yaml, jsonschema' 2>/dev/null ||
	skip "/usr/bin/python3 lacks yaml or jsonschema"

ns1=''
setup_ns ns1 || exit "$ksft_fail"

# The host's root is read-only in the VM: no __pycache__.
export PYTHONDONTWRITEBYTECODE=1

# ynl ARGS...: cli.py in ns1, JSON out.  The first run validates the spec
# with the kernel's schema too; the others skip that (a second of Python).
schema=(--schema "$SCHEMA")
ynl()
{
	ip netns exec "$ns1" /usr/bin/python3 "$CLI" --spec "$SPEC" \
		"${schema[@]}" --output-json "$@"
}

tm()
{
	"$TMCTL" -n "$ns1" "$@"
}

# expect_in WHAT TEXT PATTERN...: each fixed string PATTERN is in TEXT.
expect_in()
{
	local what=$1 text=$2 p

	shift 2
	for p in "$@"; do
		[[ "$text" == *"$p"* ]] || check_err 1 "$what: no '$p' in: $text"
	done
}

test_create()
{
	local out

	# One process, three requests in one send, in order.
	out=$(ynl --multi table-new \
		'{"table-name": "t", "table-family": "inet", "table-hook": "input"}' \
		--multi rule-new \
		'{"table-name": "t", "rule-id": 1, "rule-src": "0a010000",
		  "rule-src-len": 16, "rule-proto": 6, "rule-dport-min": 80,
		  "rule-dport-max": 80, "rule-action": "drop"}' \
		--multi rule-new \
		'{"table-name": "t", "rule-id": 2,
		  "rule-src": "20010db8000000000000000000000000",
		  "rule-src-len": 32, "rule-action": "accept",
		  "rule-comment": "ynl"}' 2>&1)
	check_err $? "cli.py table-new, rule-new x2: $out"
	schema=(--no-schema)
	log_test "cli.py (spec valid under the 6.12 schema) makes a table and rules"
}

test_dumps()
{
	local out

	out=$(ynl --dump table-get 2>&1)
	check_err $? "dump table-get: $out"
	expect_in "table dump" "$out" '"table-name": "t"' \
		'"table-family": "inet"' '"table-hook": "input"' \
		'"table-policy": "accept"' '"table-rules": 2'
	log_test "cli.py dumps the table with its enums by name"

	RULES=$(ynl --dump rule-get --json '{"table-name": "t"}' 2>&1)
	check_err $? "dump rule-get: $RULES"
	expect_in "rule dump" "$RULES" '"rule-id": 1' '"rule-id": 2' \
		'"rule-src": "10.1.0.0"' '"rule-src-len": 16' \
		'"rule-dport-min": 80' '"rule-action": "drop"' \
		'"rule-src": "2001:db8::"' '"rule-src-len": 32' \
		'"rule-action": "accept"' '"rule-comment": "ynl"'
	log_test "cli.py dumps IPv4 and IPv6 rules, addresses as text"
}

# lookup SRC DST: the rule-id cli.py's rule-lookup returns (hex addresses).
lookup()
{
	local out

	out=$(ynl --do rule-lookup --json "{\"table-name\": \"t\",
		\"key-src\": \"$1\", \"key-dst\": \"$2\", \"key-proto\": 6,
		\"key-sport\": 40000, \"key-dport\": 80}" 2>&1)
	if [[ "$out" =~ \"rule-id\":\ ([0-9]+) ]]; then
		echo "${BASH_REMATCH[1]}"
	else
		echo "none: $out"
	fi
}

test_lookup()
{
	local id out

	id=$(lookup 0a010203 0a000001)
	expect_eq "IPv4 lookup" "$id" 1
	out=$(tm rule lookup t src 10.1.2.3 dst 10.0.0.1 proto tcp \
		sport 40000 dport 80)
	[[ "$out" == *"id $id "* ]]
	check_err $? "tmctl lookup says '$out', cli.py rule $id"
	id=$(lookup 20010db8000000000000000000000005 \
		20010db8000000000000000000000001)
	expect_eq "IPv6 lookup" "$id" 2
	log_test "cli.py's rule-lookup names the rule tmctl's lookup does"
}

test_tmctl()
{
	local list ids srcs lens i line

	list=$(tm -s rule list t)
	check_err $? "tmctl rule list t"
	# The rules of the dump, in id order: each src/len as tmctl prints it.
	# (No process substitution: the guest has no /dev/fd.)
	mapfile -t ids <<<"$(grep -o '"rule-id": [0-9]*' <<<"$RULES" |
		cut -d' ' -f2)"
	mapfile -t srcs <<<"$(grep -o '"rule-src": "[^"]*"' <<<"$RULES" |
		cut -d'"' -f4)"
	mapfile -t lens <<<"$(grep -o '"rule-src-len": [0-9]*' <<<"$RULES" |
		cut -d' ' -f2)"
	expect_eq "rules in the dump" "${#ids[@]} ${#srcs[@]} ${#lens[@]}" \
		"2 2 2"
	for i in "${!ids[@]}"; do
		line=$(grep -E "^rule add t id ${ids[$i]} " <<<"$list")
		[[ "$line" == *" src ${srcs[$i]}/${lens[$i]} "* ]]
		check_err $? "rule ${ids[$i]}: cli.py ${srcs[$i]}/${lens[$i]}, tmctl '$line'"
	done
	log_test "tmctl lists the addresses cli.py dumped"
}

test_extack()
{
	local out rc

	out=$(ynl --do rule-new --json '{"table-name": "t", "rule-id": 3,
		"rule-src": "0a000000", "rule-src-len": 200}' 2>&1)
	rc=$?
	expect_eq "exit code of cli.py on a refused request" "$rc" 1
	expect_in "error printed by cli.py" "$out" "Netlink error:" \
		"'msg': " "'bad-attr': '.rule-src-len'"
	out=$(tm rule list t | wc -l)
	expect_eq "rules after the refused request" "$out" 2
	log_test "a bad rule-src-len: the extack names the attribute"
}

# Several rules in one rule-new, each a "rule" nest: each applied or
# refused on its own; rule attributes both at the top level and in nests
# are refused.
test_nests()
{
	local out rc

	out=$(ynl --do rule-new --json '{"table-name": "t", "rule": [
		{"rule-id": 3, "rule-proto": 17, "rule-action": "drop"},
		{"rule-id": 1, "rule-proto": 6},
		{"rule-id": 4, "rule-proto": 1, "rule-comment": "nest"}]}' 2>&1)
	rc=$?
	expect_eq "exit code of cli.py with one nest refused" "$rc" 1
	expect_in "error of the refused nest" "$out" "Rule id already in use" \
		"'bad-attr': '.rule'"
	out=$(tm -s rule list t)
	expect_in "rules of the nests around the refused one" "$out" \
		"rule add t id 3 priority 0 family inet proto udp drop" \
		"rule add t id 4 priority 0 family inet proto icmp comment nest accept"
	expect_eq "rules after the nests" "$(wc -l <<<"$out")" 4
	out=$(ynl --do rule-new --json '{"table-name": "t", "rule-id": 5,
		"rule": [{"rule-id": 6}]}' 2>&1)
	rc=$?
	expect_eq "exit code of cli.py on top-level and nested rules" "$rc" 1
	expect_in "error of top-level and nested rules" "$out" \
		"both at the top level and in TM_A_RULE nests"
	expect_eq "rules after the mixed request" "$(tm rule list t | wc -l)" 4
	tm rule del t id 3 && tm rule del t id 4
	log_test "rule-new with several rule nests: each on its own"
}

test_delete()
{
	local out

	out=$(ynl --do table-del --json '{"table-name": "t"}' 2>&1)
	check_err $? "table-del: $out"
	expect_eq "tables after table-del" "$(tm table list)" ""
	log_test "cli.py deletes the table"
}

RULES=
test_create
test_dumps
test_lookup
test_tmctl
test_extack
test_nests
test_delete
exit "$EXIT_STATUS"
