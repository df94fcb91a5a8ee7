#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Tables attached to netfilter hooks: a table's default policy decides the
# fate of real packets at its hook, for its address family only, and
# deleting the table (or its namespace) detaches it.
#
#   +-----------------------+          +-----------------------+
#   | ns1                   |          | ns2                   |
#   |   veth1 10.0.1.1/24   +----------+   veth2 10.0.1.2/24   |
#   |         fd00:1::1/64  |          |         fd00:1::2/64  |
#   +-----------------------+          +-----------------------+
#
# Rules come with the rule commands; this checks the policies.

source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip ping
require_module

ns1='' ns2=''
setup_ns ns1 ns2 || exit "$ksft_fail"
veth_pair "$ns1" "$ns2" || exit "$ksft_fail"

tm()
{
	"$TMCTL" "$@"
}

# reach 4|6: does a ping from ns1 to ns2 get an answer?
reach()
{
	local dst=10.0.1.2

	[ "$1" = 6 ] && dst=fd00:1::2
	ip netns exec "$ns1" ping -"$1" -c 1 -W 2 "$dst" >/dev/null 2>&1
}

expect_reach()
{
	reach "$1"
	check_err $? "IPv$1 ping blocked, should pass"
}

expect_blocked()
{
	reach "$1"
	check_fail $? "IPv$1 ping passed, should be dropped"
}

test_baseline()
{
	expect_reach 4
	expect_reach 6
	log_test "no table: IPv4 and IPv6 pass"
}

test_family()
{
	tm -n "$ns2" table add f4 family ip hook input policy drop
	check_err $? "table add f4"
	expect_blocked 4
	expect_reach 6
	log_test "an ip table on input with policy drop drops IPv4 only"

	tm -n "$ns2" table del f4
	check_err $? "table del f4"
	expect_reach 4
	log_test "deleting the table detaches it"

	tm -n "$ns2" table add f6 family ip6 policy drop
	check_err $? "table add f6"
	expect_reach 4
	expect_blocked 6
	tm -n "$ns2" table del f6
	log_test "an ip6 table drops IPv6 only"

	tm -n "$ns2" table add both family inet policy drop
	check_err $? "table add both"
	expect_blocked 4
	expect_blocked 6
	tm -n "$ns2" table del both
	expect_reach 4
	expect_reach 6
	log_test "an inet table covers both families"
}

test_hooks()
{
	local out

	tm -n "$ns2" table add open family inet policy accept
	expect_reach 4
	expect_reach 6
	tm -n "$ns2" table del open
	log_test "policy accept lets packets through"

	tm -n "$ns1" table add out family ip hook output priority -10 policy drop
	check_err $? "table add out"
	expect_blocked 4
	expect_reach 6
	out=$(tm -n "$ns1" table show out)
	[[ "$out" == "table out family ip hook output priority -10 policy drop engine tuplemerge rules 0 handle 1 tuples 0 bytes "*" lookups "[1-9]*" collide 48 max-rules 1048576 max-tuples 4096" ]]
	check_err $? "table show: $out"
	tm -n "$ns1" table del out
	expect_reach 4
	log_test "a table on output drops what its namespace sends"

	tm -n "$ns2" table add pre family ip hook prerouting engine linear policy drop
	expect_blocked 4
	tm -n "$ns2" table del pre
	tm -n "$ns1" table add post family ip6 hook postrouting engine tss policy drop
	expect_blocked 6
	tm -n "$ns1" table del post
	expect_reach 4
	expect_reach 6
	log_test "prerouting and postrouting hooks, every engine"
}

test_errors()
{
	local out rc

	out=$(tm -n "$ns2" table add bad hook sideways 2>&1)
	rc=$?
	expect_eq "exit code of a bad hook" "$rc" 1
	[[ "$out" == *"unknown hook 'sideways'"* ]]
	check_err $? "no message naming the bad hook: '$out'"
	out=$(tm -n "$ns2" table add bad priority 99999999999 2>&1)
	expect_eq "exit code of a bad priority" "$?" 1
	expect_eq "tables after refused adds" "$(tm -n "$ns2" table list)" ""
	log_test "bad table options are refused with the offending token"
}

test_netns_exit()
{
	tm -n "$ns2" table add dying family inet policy drop
	check_err $? "table add dying"
	ip netns del "$ns2"
	check_err $? "netns del with a hooked table"
	log_test "a namespace dies with its hooked tables"
}

test_baseline
test_family
test_hooks
test_errors
test_netns_exit
exit "$EXIT_STATUS"
