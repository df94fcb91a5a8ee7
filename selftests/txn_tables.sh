#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tables in transactions: a batch file creates, deletes and replaces whole
# tables (flush ruleset included), with SIDs and load-balancer services,
# in one step, while packets flow.
#
#   ns1 (veth1 10.0.1.1) ---- (veth2 10.0.1.2) ns2: tables, and an nft
#                                              chain after them that
#                                              counts what got through
#
# A UDP flood from ns1 to port 9 of ns2, which every configuration here
# drops: a datagram that reaches nft's counter met no table that drops
# it, i.e. a moment with the old table gone and the new one not there.
# Applying the same change one command at a time shows that moment (the
# check that this test can fail); a file never does, nor does a file that
# fails at its last line, which leaves the listing byte-identical and the
# generation where it was.

source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip nft python3
require_module

: "${TXN_RULES:=2000}"

ns1=''
ns2=''
setup_ns ns1 ns2 || exit "$ksft_fail"
TMP=$(mktemp -d)
FLOOD=
cleanup()
{
	[ -z "$FLOOD" ] || kill "$FLOOD" 2>/dev/null
	wait 2>/dev/null
	cleanup_ns
	rm -rf "$TMP"
}

tm()
{
	"$TMCTL" -n "$ns2" "$@"
}

# Datagrams to port 9 that no table dropped, since leak_reset.
LEAK_BASE=0
leak_count()
{
	ip netns exec "$ns2" nft list chain ip watch in |
		sed -n 's/.*udp dport 9 counter packets \([0-9]*\).*/\1/p'
}

leaked()
{
	echo $(($(leak_count) - LEAK_BASE))
}

leak_reset()
{
	LEAK_BASE=$(leak_count)
}

flood_start()
{
	ip netns exec "$ns1" bash -c 'exec 3>/dev/udp/10.0.1.2/9;
		while echo x >&3; do :; done' 2>/dev/null &
	FLOOD=$!
}

flood_stop()
{
	kill "$FLOOD" 2>/dev/null
	wait "$FLOOD" 2>/dev/null
	FLOOD=
}

# The configuration "fw" with rules 1..N (rule 1 drops UDP port 9), a
# SID, a service and a table naming it, as a file that first flushes the
# whole ruleset; $2 a last line to add.
fw_file()
{
	{
		echo "flush ruleset"
		echo "sid add fc00:9::1 accept policy conns 4"
		echo "lb service add web vip fd00:100::1 sid fd00:1b::1 tcp port 80"
		echo "lb backend add web fc00:1::100"
		echo "lb backend add web fc00:2::100 weight 2"
		echo "table add lbt family ip6 hook prerouting"
		echo "rule add lbt id 1 dst fd00:100::1/128 proto tcp dport 80 lb web"
		echo "table add fw family ip hook input"
		echo "rule add fw id 1 proto udp dport 9 drop"
		awk -v n="$TXN_RULES" 'BEGIN {
			for (i = 2; i <= n; i++)
				printf "rule add fw id %d src 10.%d.%d.0/24 proto tcp dport %d drop\n",
					i, int(i / 256) % 256, i % 256, 1 + i % 60000
		}'
		echo "table add other family ip6 hook output policy accept"
		[ -z "$2" ] || echo "$2"
	} >"$1"
}

rule1_packets()
{
	tm rule get fw id 1 | sed -n 's/.* packets \([0-9]*\) .*/\1/p'
}

setup()
{
	veth_pair "$ns1" "$ns2" || return 1
	ip netns exec "$ns2" nft -f - <<-'EOF' || return 1
	table ip watch {
		chain in {
			type filter hook input priority 100;
			udp dport 9 counter
		}
	}
	EOF
	fw_file "$TMP/fw"
	tm -f "$TMP/fw"
}

# What the test is about: one command at a time does leak.
test_commands_leak()
{
	local line

	flood_start
	sleep 1
	leak_reset
	printf '%s\n' "table add fw family ip hook input" \
		"rule add fw id 1 proto udp dport 9 drop" \
		"table add other family ip6 hook output policy accept" >"$TMP/cmds"
	for _ in 1 2 3 4 5; do
		tm flush ruleset
		while IFS= read -r line; do
			eval "tm $line"
		done <"$TMP/cmds"
	done
	sleep 0.5
	flood_stop
	if [ "$(leaked)" -gt 0 ]; then
		log_info "one command at a time: $(leaked) datagrams got through"
	else
		log_info "one command at a time: no datagram got through (the flood was too slow to see it)"
	fi
	# Back to the whole configuration.
	tm -f "$TMP/fw"
	check_err $? "restoring fw"
	log_test "setup: flood, nft counter behind the tables"
}

test_replace_atomic()
{
	local i before

	tm list ruleset >"$TMP/before"
	flood_start
	sleep 1
	leak_reset
	before=$(rule1_packets)
	for i in 1 2 3; do
		tm -f "$TMP/fw"
		check_err $? "replacing the ruleset (round $i)"
	done
	sleep 0.5
	flood_stop
	expect_eq "datagrams through while the ruleset was replaced 3 times" \
		"$(leaked)" 0
	tm list ruleset | cmp -s - "$TMP/before"
	check_err $? "the new ruleset lists differently: $(tm list ruleset | diff - "$TMP/before" | head -3)"
	expect_eq "tables" "$(tm table list | wc -l)" 3
	# The replacement is a new table: its counters started at zero.
	[ "$(rule1_packets)" -gt 0 ]
	check_err $? "the new table does not classify (rule 1 has no packets)"
	log_info "rule 1 of the old table had $before packets"
	log_test "flush ruleset + tables + $TXN_RULES rules in a file: no packet sees no table"
}

# fail_last KIND LINE: the file fails at LINE, its last; nothing changes.
fail_last()
{
	local kind=$1 line=$2 g out rc last

	fw_file "$TMP/bad" "$line"
	last=$(wc -l <"$TMP/bad")
	tm list ruleset >"$TMP/before"
	g=$(generation "$ns2")
	flood_start
	sleep 1
	leak_reset
	out=$(tm -f "$TMP/bad" 2>&1)
	rc=$?
	sleep 0.5
	flood_stop
	expect_eq "$kind: exit status" "$rc" 2
	[[ "$out" == *"$TMP/bad:$last:"* ]]
	check_err $? "$kind: the error names line $last: $out"
	tm list ruleset | cmp -s - "$TMP/before"
	check_err $? "$kind: the listing changed"
	expect_eq "$kind: generation" "$(generation "$ns2")" "$g"
	expect_eq "$kind: datagrams through during the failed load" \
		"$(leaked)" 0
	expect_eq "$kind: tables (none left behind)" "$(tm stats | head -1 | cut -d' ' -f2)" 3
}

test_fail_last()
{
	fail_last "duplicate rule id" "rule add fw id 1 proto tcp drop"
	fail_last "existing table" "table add other"
	fail_last "unknown table" "table del nosuch"
	fail_last "rule of an unknown table" "rule add gone id 1 drop"
	fail_last "SID bound twice" "sid add fc00:9::1 accept policy always"
	fail_last "unknown SID" "sid del fc00:8::1"
	fail_last "service VIP taken" \
		"lb service add web2 vip fd00:100::1 sid fd00:1b::2 tcp port 80"
	fail_last "unknown backend" "lb backend del web fc00:7::100"
	fail_last "service in use" "lb service del web"
	log_test "a file failing at its last line changes nothing, traffic sees the old tables"
}

# A table an open transaction creates: hooked, invisible, passing packets.
test_pending()
{
	ip netns exec "$ns2" python3 - "$TM_TOP/selftests" "$TMCTL" "$ns1" \
		"$ns2" <<'EOF'
import subprocess, sys
sys.path.insert(0, sys.argv[1])
import tmnl
tmctl, ns1, ns2 = sys.argv[2:5]
spec = tmnl.load_spec(); nl = tmnl.Genl(); fam = nl.family_id("tuplemerge")
fails = []

def check(what, ok):
    if not ok:
        fails.append(what)

def run(*args):
    p = subprocess.run(list(args), capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr

def ping():
    return run("ip", "netns", "exec", ns1, "ping", "-c", "1", "-W", "2",
               "10.0.1.2")[0] == 0

def listed(name):
    out = run(tmctl, "table", "list")[1]
    return any(l.startswith("table %s " % name) for l in out.splitlines())

def req(cmd, *args):
    return tmnl.request(nl, fam, spec, cmd, list(args))

txn = req("txn-begin")[1][0]["txn-id"]
rc, _, err = req("table-new", "table-name=p", "table-family=1",
                 "table-hook=1", "table-policy=1", "txn-id=%d" % txn)
check("table-new in a transaction: %s" % err, rc == 0)
# A rule for something else: ICMP meets the policy, drop.
rc, _, err = req("rule-new", "table-name=p", "rule-id=1", "rule-proto=17",
                 "rule-dport-min=5555", "txn-id=%d" % txn)
check("rule-new in the pending table: %s" % err, rc == 0)
check("pending table listed", not listed("p"))
rc, out = run(tmctl, "table", "add", "p")
check("table add of a pending name: %d %s" % (rc, out),
      rc == 2 and "Another open transaction is creating" in out)
rc, out = run(tmctl, "rule", "add", "p", "id", "2", "drop")
check("rule add outside the transaction: %d %s" % (rc, out),
      rc == 2 and "No table" in out)
check("a pending drop table dropped a ping", ping())
rc, _, err = req("txn-commit", "txn-id=%d" % txn)
check("commit: %s" % err, rc == 0)
check("committed table not listed", listed("p"))
check("the committed drop table let a ping through", not ping())

# Deleted in a transaction that is never committed: still there.
nl2 = tmnl.Genl()
txn = tmnl.request(nl2, fam, spec, "txn-begin", [])[1][0]["txn-id"]
rc, _, err = tmnl.request(nl2, fam, spec, "table-del",
                          ["table-name=p", "txn-id=%d" % txn])
check("table-del in a transaction: %s" % err, rc == 0)
check("a table deleted by an open transaction let a ping through",
      not ping())
rc, _, err = tmnl.request(nl2, fam, spec, "table-new",
                          ["table-name=q", "txn-id=%d" % txn])
nl2.sock.close()
check("closing the socket: p gone or q there",
      listed("p") and not listed("q"))
check("p after the aborted delete let a ping through", not ping())
rc, out = run(tmctl, "table", "add", "q")
check("q's name free again: %d %s" % (rc, out), rc == 0)
run(tmctl, "table", "del", "q")
run(tmctl, "table", "del", "p")
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
EOF
	check_err $? "pending tables"
	log_test "a table of an open transaction: hooked, passing, nobody else's"
}

test_limit()
{
	local g out

	tm flush ruleset
	for ((i = 0; i < 256; i++)); do
		echo "table add t$i family ip hook forward"
	done >"$TMP/many"
	tm -f "$TMP/many"
	check_err $? "256 tables in a file"
	{ echo "flush ruleset"; cat "$TMP/many"; } >"$TMP/again"
	tm -f "$TMP/again"
	check_err $? "replacing 256 tables by 256 in one file"
	expect_eq "tables" "$(tm stats | head -1 | cut -d' ' -f2)" 256
	g=$(generation "$ns2")
	{ cat "$TMP/again"; echo "table add one-more"; } >"$TMP/toomany"
	out=$(tm -f "$TMP/toomany" 2>&1)
	expect_eq "exit for 257 tables" "$?" 2
	[[ "$out" == *"toomany:258:"*"Too many tables"* ]]
	check_err $? "the 257th table's line: $out"
	expect_eq "generation after the refused file" \
		"$(generation "$ns2")" "$g"
	tm flush ruleset
	log_test "the table limit counts what a file deletes as gone"
}

test_check_and_refusals()
{
	local g out rc

	tm -f "$TMP/fw" || check_err 1 "fw"
	tm list ruleset >"$TMP/before"
	g=$(generation "$ns2")
	tm -c -f "$TMP/fw"
	check_err $? "-c -f of a good file with tables"
	tm list ruleset | cmp -s - "$TMP/before"
	check_err $? "-c -f changed the listing"
	expect_eq "generation after -c -f" "$(generation "$ns2")" "$g"
	printf 'table add x\nsid load fc00:9::1 3\n' >"$TMP/sid"
	out=$(tm -f "$TMP/sid" 2>&1)
	rc=$?
	expect_eq "exit for a sid load line" "$rc" 1
	[[ "$out" == *"sid:2:5: error: 'load' in a file"* ]]
	check_err $? "sid load line refused: $out"
	tm list ruleset | cmp -s - "$TMP/before"
	check_err $? "the refused file changed the listing"
	printf 'flush ruleset\ntable add x\n' >"$TMP/flush"
	tm -f "$TMP/flush"
	check_err $? "flush ruleset in a file with SIDs and services"
	expect_eq "listing after flush ruleset and one table" \
		"$(tm list ruleset | cut -d' ' -f1-3)" "table add x"
	tm -f "$TMP/fw"
	check_err $? "fw again"
	printf 'table flush fw\n' >"$TMP/tflush"
	tm -f "$TMP/tflush"
	check_err $? "table flush in a file"
	expect_eq "fw's rules after table flush" "$(tm rule list fw | wc -l)" 0
	log_test "-c -f; state lines refused; flush ruleset in a file takes everything"
}

setup
check_err $? "setup"
test_commands_leak
test_replace_atomic
test_fail_last
test_pending
test_limit
test_check_and_refusals
exit "$EXIT_STATUS"
