#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Set rules on real packets: a host firewall in ns2's input (policy drop)
# whose rules hold sets of ports, prefixes and protocols; each set rule is
# one rule with one counter, listed as written, replaced and saved whole.
#
#   +-----------------------+          +-------------------------------+
#   | ns1 (client)          |          | ns2 (server)                  |
#   |   veth1 10.0.1.1/24   +----------+   veth2 10.0.1.2/24           |
#   |         fd00:1::1/64  |          |         fd00:1::2/64          |
#   |                       |          |   TCP listeners 22 80 443     |
#   |                       |          |   1000; table "fw": inet,     |
#   +-----------------------+          |   input, policy drop          |
#                                      +-------------------------------+

source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip socat timeout
require_module

ns1='' ns2=''
setup_ns ns1 ns2 || exit "$ksft_fail"
TMP=$(mktemp -d)
veth_pair "$ns1" "$ns2" || exit "$ksft_fail"

LISTENERS=()
for p in 22 80 443 1000; do
	ip netns exec "$ns2" socat TCP6-LISTEN:"$p",ipv6only=0,fork,reuseaddr \
		SYSTEM:"echo ok" &
	LISTENERS+=($!)
done

cleanup()
{
	kill "${LISTENERS[@]}" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$TMP"
	cleanup_ns
}
trap cleanup EXIT

tm()
{
	"$TMCTL" -n "$ns2" "$@"
}

# field NAME: the value of "NAME N" in the text of table fw.
field()
{
	tm table show fw | tr ' ' '\n' | sed -n "/^$1\$/{n;p;q}"
}

wait_listeners()
{
	local _

	for _ in $(seq 50); do
		ip netns exec "$ns2" bash -c 'exec 3<>/dev/tcp/127.0.0.1/1000' \
			2>/dev/null && return 0
		sleep 0.2
	done
	return 1
}

test_firewall()
{
	local out

	tm table add fw family inet hook input policy drop
	check_err $? "table add fw"
	tm rule add fw id 1 ct state established,related accept &&
	tm rule add fw id 2 src '{ 10.0.1.1, 10.0.2.0/24 }' proto tcp \
		dport '{ 22, 80, 443-445 }' accept &&
	tm rule add fw id 3 src '{fd00:1::1}' proto '{ tcp, udp }' \
		dport 80 accept &&
	tm rule add fw id 4 proto icmpv6 icmp-type 133-136 accept
	check_err $? "the firewall's rules"
	expect_eq "IPv4 to 22" "$(tcp_probe "$ns1" 10.0.1.2 22)" ok
	expect_eq "IPv4 to 80" "$(tcp_probe "$ns1" 10.0.1.2 80)" ok
	expect_eq "IPv4 to 443" "$(tcp_probe "$ns1" 10.0.1.2 443)" ok
	expect_eq "IPv4 to 1000, in no set" "$(tcp_probe "$ns1" 10.0.1.2 1000)" timeout
	expect_eq "IPv6 to 80" "$(tcp_probe "$ns1" fd00:1::2 80)" ok
	expect_eq "IPv6 to 22, not in rule 3's set" \
		"$(tcp_probe "$ns1" fd00:1::2 22)" timeout
	expect_eq "one counter for rule 2's six entries: three SYNs" \
		"$(rule_packets "$ns2" fw 2)" 3
	expect_eq "rule 3: one SYN" "$(rule_packets "$ns2" fw 3)" 1
	log_test "set rules let in what their sets hold and nothing else"

	out=$(tm rule get fw id 2)
	[[ $out == *"src { 10.0.1.1, 10.0.2.0/24 }"* &&
	   $out == *"dport { 22, 80, 443-445 }"* ]]
	check_err $? "rule 2 lists as written ($out)"
	out=$(tm rule get fw id 3)
	[[ $out == *"src { fd00:1::1 }"* && $out == *"proto { tcp, udp }"* ]]
	check_err $? "rule 3 lists as written ($out)"
	expect_eq "rules" "$(field rules)" 4
	expect_eq "entries: 1 + 2 x 3 + 1 x 2 + 1" "$(field entries)" 10
	log_test "listed as written, entries counted"
}

test_replace()
{
	tm rule replace fw id 2 src '{ 10.0.1.0/24 }' proto tcp \
		dport '{ 1000 }' accept
	check_err $? "rule replace"
	expect_eq "after the replace, 1000" "$(tcp_probe "$ns1" 10.0.1.2 1000)" ok
	expect_eq "after the replace, 22" "$(tcp_probe "$ns1" 10.0.1.2 22)" timeout
	expect_eq "counter kept through the replace" "$(rule_packets "$ns2" fw 2)" 4
	expect_eq "entries" "$(field entries)" 5
	log_test "a set rule replaced whole"
}

test_ruleset()
{
	local before after file=$TMP/sets.ruleset

	before=$(tm -s list ruleset)
	tm -s list ruleset >"$file"
	check_err $? "list ruleset"
	tm flush ruleset
	check_err $? "flush ruleset"
	tm -f "$file"
	check_err $? "the saved ruleset read back"
	after=$(tm -s list ruleset)
	expect_eq "the same ruleset" "$after" "$before"
	expect_eq "IPv4 to 1000 after the restore" \
		"$(tcp_probe "$ns1" 10.0.1.2 1000)" ok
	log_test "list ruleset reads back with its sets"
}

test_refusals()
{
	local out

	out=$(tm rule add fw id 9 sport "{ $(seq -s , 1 65) }" \
		dport "{ $(seq -s , 1 64) }" accept 2>&1)
	check_fail $? "65 x 64 entries"
	[[ $out == *"4160 entries"*"more than 4096"* ]]
	check_err $? "the bound named ($out)"
	out=$(tm rule add fw id 9 src '{ 10.0.0.1/8 }' accept 2>&1)
	check_fail $? "host bits in a set"
	[[ $out == *"host bits set past /8"* ]]
	check_err $? "the value named ($out)"
	log_test "refusals: the bound, a bad value"
}

wait_listeners || { echo "listeners did not start"; exit "$ksft_fail"; }
test_firewall
test_replace
test_ruleset
test_refusals
exit "$EXIT_STATUS"
