#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tmctl list ruleset (save) and flush ruleset: every object of a namespace
# is listed as the commands that make it, with every parameter, and those
# commands make the same configuration again.
#
#   ns1: tables "edge" (ip6, prerouting, every parameter), "filter" (inet)
#        and "bulk" (ip, forward, RULESET_RULES rules, 100000 by default);
#        SIDs with four policies, two services with backends; no traffic
#
# The listing is restored as it is by one tmctl -f (SIDs, services,
# tables and rules in one transaction), and the JSON listing by one
# tmctl -j -f; either way the same text and the same JSON list back.
# tmctl -c -f checks files in the kernel without changing anything.

source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip python3
require_module

: "${RULESET_RULES:=100000}"

ns1=''
setup_ns ns1 || exit "$ksft_fail"
TMP=$(mktemp -d)
cleanup()
{
	cleanup_ns
	rm -rf "$TMP"
}

tm()
{
	"$TMCTL" -n "$ns1" "$@"
}

# Every kind of object, each parameter off its default somewhere.
make_config()
{
	tm sid add fc00:1::100 accept policy always &&
	tm sid add fc00:2::100 accept policy never &&
	tm sid add fc00:3::100 accept policy conns 8 hmac 7 &&
	tm sid add fc00:4::100 accept policy backlog 4 idle-timeout 120 \
		close-timeout 5 syn-timeout 4 udp-timeout 300 &&
	tm lb service add web vip fd00:100::1 sid fd00:1b::1 tcp port 8080 \
		choices 3 table-size 251 max-flows 1000 idle-timeout 60 \
		fin-timeout 5 syn-timeout 2 hmac 9 &&
	tm lb backend add web fc00:1::100 &&
	tm lb backend add web fc00:2::100 weight 3 &&
	tm lb backend add web fc00:3::100 weight 65535 &&
	tm lb service add dns vip fd00:100::53 sid fd00:1b::2 &&
	tm lb backend add dns fc00:4::100 &&
	tm table add edge family ip6 hook prerouting priority -150 \
		policy drop engine tss collide 8 max-rules 5000 \
		max-tuples 100 &&
	tm table add filter family inet engine linear &&
	tm table add bulk family ip hook forward &&
	tm rule add edge id 1 priority 7 dst fd00:100::1/128 proto tcp \
		dport 8080 lb web &&
	tm rule add edge id 2 src fe80::/10 sport 1000-2000 proto udp \
		comment "link local, with spaces" cookie 42 accept &&
	tm rule add edge id 3 iif lo proto icmpv6 mark 0x2a &&
	tm rule add filter id 9 family ip6 proto tcp reject with tcp-reset &&
	tm rule add filter id 10 src 10.0.0.0/8 dst 192.168.1.1 \
		proto 47 count &&
	tm rule add filter id 11 family inet dport 22 drop &&
	awk -v n="$RULESET_RULES" 'BEGIN {
		for (i = 1; i <= n; i++)
			printf "rule add bulk id %d src 10.%d.%d.0/24 dport %d drop\n",
				i, int(i / 256) % 256, i % 256, 1 + i % 60000
	}' >"$TMP/bulk" &&
	tm -f "$TMP/bulk"
}

# Apply a listing: one file, one transaction.
restore()
{
	tm -f "$1"
}

count()
{
	grep -c "^$1 " "$2"
}

test_list()
{
	local want=$((6 + RULESET_RULES))

	LAP=$SECONDS
	tm list ruleset >"$TMP/a"
	check_err $? "list ruleset failed"
	lap "list ruleset, $RULESET_RULES rules"
	expect_eq "sid lines" "$(count sid "$TMP/a")" 4
	expect_eq "service lines" "$(count 'lb service' "$TMP/a")" 2
	expect_eq "backend lines" "$(count 'lb backend' "$TMP/a")" 4
	expect_eq "table lines" "$(count table "$TMP/a")" 3
	expect_eq "rule lines" "$(count rule "$TMP/a")" "$want"
	grep -qx 'table add edge family ip6 hook prerouting priority -150 policy drop engine tss collide 8 max-rules 5000 max-tuples 100' "$TMP/a"
	check_err $? "edge's parameters: $(grep '^table add edge' "$TMP/a")"
	grep -q '^lb service add web .*choices 3.*table-size 251.*syn-timeout 2.*hmac 9' "$TMP/a"
	check_err $? "web's parameters: $(grep '^lb service add web' "$TMP/a")"
	grep -qx 'lb backend add web fc00:2::100 weight 3' "$TMP/a"
	check_err $? "web's weights: $(grep '^lb backend add web' "$TMP/a")"
	# SIDs by address, whatever order the kernel's hash table has.
	expect_eq "SIDs sorted" "$(grep '^sid ' "$TMP/a" | cut -d' ' -f3 | xargs)" \
		"fc00:1::100 fc00:2::100 fc00:3::100 fc00:4::100"
	grep -qx 'sid add fc00:3::100 accept policy conns 8 hmac 7' "$TMP/a"
	check_err $? "a SID's policy: $(grep '^sid add fc00:3' "$TMP/a")"
	grep -qx 'sid add fc00:4::100 accept policy backlog 4 idle-timeout 120 close-timeout 5 syn-timeout 4 udp-timeout 300' "$TMP/a"
	check_err $? "a SID's timeouts: $(grep '^sid add fc00:4' "$TMP/a")"
	# Rules name services: SIDs and services come first, then each
	# table with its rules.
	expect_eq "first table right after the last service line" \
		"$(grep -n -m1 '^table ' "$TMP/a" | cut -d: -f1)" \
		"$(( $(grep -n '^lb ' "$TMP/a" | tail -1 | cut -d: -f1) + 1 ))"
	expect_eq "edge's rules right after it" \
		"$(sed -n '/^table add edge/{n;p;}' "$TMP/a" | cut -d' ' -f1-3)" \
		"rule add edge"
	tm save | cmp -s - "$TMP/a"
	check_err $? "save differs from list ruleset"
	tm -s list ruleset | cmp -s - "$TMP/a"
	check_err $? "-s changes list ruleset"
	log_test "list ruleset prints every object with every parameter"
}

test_json()
{
	LAP=$SECONDS
	tm -j list ruleset >"$TMP/a.json"
	check_err $? "-j list ruleset failed"
	lap "-j list ruleset"
	python3 - "$TMP/a.json" "$RULESET_RULES" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["version"] == 1, r.get("version")
assert len(r["sids"]) == 4, r["sids"]
svc = {s["name"]: s for s in r["services"]}
assert sorted(svc) == ["dns", "web"], svc
assert len(svc["web"]["backends"]) == 3, svc["web"]
assert svc["web"]["choices"] == 3 and svc["web"]["hmac"] == 9, svc["web"]
t = {x["name"]: x for x in r["tables"]}
assert sorted(t) == ["bulk", "edge", "filter"], t.keys()
e = t["edge"]
assert (e["family"], e["hook"], e["priority"], e["policy"], e["engine"],
        e["collide"], e["max_rules"], e["max_tuples"]) == \
       ("ip6", "prerouting", -150, "drop", "tss", 8, 5000, 100), e
assert "lookups" not in e and "rules" in e, e
assert len(t["bulk"]["rules"]) == int(sys.argv[2]), len(t["bulk"]["rules"])
assert all("packets" not in x for x in e["rules"]), e["rules"]
EOF
	check_err $? "JSON listing: $(head -c 300 "$TMP/a.json")"
	log_test "-j list ruleset: one versioned object, tables hold rules"
}

test_flush_restore()
{
	local gen

	tm flush ruleset
	check_err $? "flush ruleset failed"
	tm list ruleset >"$TMP/empty"
	expect_eq "listing after flush ruleset" "$(wc -c <"$TMP/empty")" 0
	expect_eq "tables after flush ruleset" "$(tm stats | head -1 | cut -d' ' -f2)" 0
	LAP=$SECONDS
	restore "$TMP/a"
	check_err $? "restoring the listing failed"
	lap "tmctl -f of the listing"
	tm list ruleset >"$TMP/b"
	cmp -s "$TMP/a" "$TMP/b"
	check_err $? "listing after restore differs: $(diff "$TMP/a" "$TMP/b" | head -5)"
	tm -j list ruleset | cmp -s - "$TMP/a.json"
	check_err $? "JSON listing after restore differs"
	gen=$(tm stats | head -1)
	tm list ruleset >/dev/null
	expect_eq "generation after a listing" "$(tm stats | head -1)" "$gen"
	log_test "flush ruleset empties; the listing restores the same state"
}

test_json_restore()
{
	tm flush ruleset
	check_err $? "flush ruleset failed"
	LAP=$SECONDS
	tm -j -f "$TMP/a.json"
	check_err $? "restoring the JSON listing failed"
	lap "tmctl -j -f of the JSON listing"
	tm list ruleset | cmp -s - "$TMP/a"
	check_err $? "text listing after the JSON restore differs: $(tm list ruleset | diff - "$TMP/a" | head -5)"
	tm -j list ruleset | cmp -s - "$TMP/a.json"
	check_err $? "JSON listing after the JSON restore differs"
	# The commands the JSON stands for are the text listing's.
	tm -c -e -j -f "$TMP/a.json" | cmp -s - "$TMP/a"
	check_err $? "-c -e -j -f differs from the text listing: $(tm -c -e -j -f "$TMP/a.json" | diff - "$TMP/a" | head -5)"
	# A controller's replacement: flush_ruleset, from standard input.
	LAP=$SECONDS
	sed '1s/^{/{"flush_ruleset": true, /' "$TMP/a.json" | tm -j -f -
	check_err $? "a replacement with flush_ruleset from stdin failed"
	lap "tmctl -j -f - with flush_ruleset over the same configuration"
	tm list ruleset | cmp -s - "$TMP/a"
	check_err $? "listing after the replacement differs"
	log_test "-j -f of the JSON listing restores the same state"
}

# tmctl -c -f with the module: the kernel checks every line in a
# transaction that is then aborted.
test_check_file()
{
	local gen out rc

	gen=$(tm stats | head -1)
	printf 'rule add filter id 12 dport 23 drop\nrule add edge id 1 proto udp drop\n' \
		>"$TMP/dup"
	out=$(tm -c -f "$TMP/dup" 2>&1)
	rc=$?
	expect_eq "exit of -c -f with a duplicate id" "$rc" 2
	[[ "$out" == *"$TMP/dup:2: error: Rule id already in use"* ]]
	check_err $? "-c -f names the duplicate id's line: $out"
	printf 'rule add edge id 20 dst fd00:100::2 proto tcp lb nosuch\n' \
		>"$TMP/nosvc"
	out=$(tm -c -f "$TMP/nosvc" 2>&1)
	rc=$?
	expect_eq "exit of -c -f with an unknown service" "$rc" 2
	[[ "$out" == *"$TMP/nosvc:1:"*"No load-balancer service with this name"* ]]
	check_err $? "-c -f names the unknown service: $out"
	printf 'rule add filter id 12 dport 23 drop\nrule flush bulk\n' \
		>"$TMP/good"
	tm -c -f "$TMP/good"
	check_err $? "-c -f refused a good file"
	tm list ruleset | cmp -s - "$TMP/a"
	check_err $? "-c -f changed the configuration"
	expect_eq "generation after -c -f" "$(tm stats | head -1)" "$gen"
	log_test "-c -f: the kernel checks every line, nothing changes"
}

test_errors()
{
	local out

	out=$(tm list tables 2>&1)
	expect_eq "exit of 'list tables'" "$?" 1
	[[ "$out" == *"expected 'list ruleset'"* ]]
	check_err $? "list tables: $out"
	out=$(tm flush 2>&1)
	expect_eq "exit of 'flush'" "$?" 1
	out=$(tm save extra 2>&1)
	expect_eq "exit of 'save extra'" "$?" 1
	log_test "list, save and flush refuse bad arguments"
}

# The seconds since the last lap, for the log: the steps' costs at scale.
LAP=$SECONDS
lap()
{
	log_info "$1: $((SECONDS - LAP)) s"
	LAP=$SECONDS
}

log_info "tmctl: $TMCTL ($("$TMCTL" -V))"
make_config
check_err $? "building the configuration failed"
lap "the configuration, commands and a file of $RULESET_RULES rules"
log_test "a configuration with every kind of object"
test_list
test_json
test_flush_restore
test_json_restore
test_check_file
test_errors

exit "$EXIT_STATUS"
