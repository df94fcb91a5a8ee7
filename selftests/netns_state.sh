#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Per network namespace state of the tuplemerge module.
#
#   +---------------+   +---------------+
#   | ns1           |   | ns2           |
#   |  table t1     |   |  table t1, t2 |
#   +---------------+   +---------------+
#
# Tables created in one namespace are invisible in the other, names and
# generation numbers are per namespace, a namespace can die with tables in
# it, and only CAP_NET_ADMIN over a namespace's user namespace may change
# its tables.

source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip unshare setpriv
require_module

ns1='' ns2=''
setup_ns ns1 ns2 || exit "$ksft_fail"

tm()
{
	"$TMCTL" "$@"
}

table_names()
{
	tm -n "$1" table list | awk '{ print $2 }' | sort | tr '\n' ' '
}

stat_field()
{
	tm -n "$1" stats | awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'
}

test_isolation()
{
	tm -n "$ns1" table add t1 family ip
	check_err $? "table add t1 in ns1"
	expect_eq "ns1 tables" "$(table_names "$ns1")" "t1 "
	expect_eq "ns2 tables" "$(table_names "$ns2")" ""
	log_test "a table is visible only in its namespace"

	tm -n "$ns2" table add t1 family ip6 && tm -n "$ns2" table add t2
	check_err $? "table add t1, t2 in ns2"
	expect_eq "ns2 tables" "$(table_names "$ns2")" "t1 t2 "
	expect_eq "ns1 family of t1" "$(tm -n "$ns1" table show t1 | awk '{ print $4 }')" "ip"
	expect_eq "ns2 family of t1" "$(tm -n "$ns2" table show t1 | awk '{ print $4 }')" "ip6"
	log_test "the same name in two namespaces names two tables"

	expect_eq "ns1 table count" "$(stat_field "$ns1" tables)" 1
	expect_eq "ns2 table count" "$(stat_field "$ns2" tables)" 2
	expect_eq "ns1 generation" "$(stat_field "$ns1" generation)" 1
	expect_eq "ns2 generation" "$(stat_field "$ns2" generation)" 2
	log_test "counters and generation are per namespace"

	tm -n "$ns2" table del t1
	check_err $? "table del t1 in ns2"
	expect_eq "ns1 tables" "$(table_names "$ns1")" "t1 "
	expect_eq "ns2 tables" "$(table_names "$ns2")" "t2 "
	log_test "deleting in one namespace leaves the other alone"
}

test_errors()
{
	local out rc

	out=$(tm -n "$ns1" table add t1 2>&1)
	rc=$?
	expect_eq "exit code of a duplicate add" "$rc" 2
	[[ "$out" == *"already exists"* ]]
	check_err $? "no extack message for a duplicate: '$out'"
	out=$(tm -n "$ns2" table del t1 2>&1)
	rc=$?
	expect_eq "exit code of deleting a missing table" "$rc" 2
	[[ "$out" == *"No table with this name"* ]]
	check_err $? "no extack message for a missing table: '$out'"
	expect_eq "ns1 tables after errors" "$(table_names "$ns1")" "t1 "
	expect_eq "ns1 generation after errors" "$(stat_field "$ns1" generation)" 1
	log_test "refused changes report why and change nothing"
}

test_permissions()
{
	local rc

	ip netns exec "$ns1" setpriv --reuid=65534 --regid=65534 \
		--clear-groups "$TMCTL" table add nobody 2>/dev/null
	rc=$?
	expect_eq "exit code for an unprivileged user" "$rc" 2
	ip netns exec "$ns1" unshare -U -r "$TMCTL" table add userns 2>/dev/null
	rc=$?
	expect_eq "exit code for root of a child user namespace" "$rc" 2
	# Reads too, as in nftables: rules and comments are the admin's.
	ip netns exec "$ns1" setpriv --reuid=65534 --regid=65534 \
		--clear-groups "$TMCTL" table list >/dev/null 2>&1
	rc=$?
	expect_eq "exit code of table list for an unprivileged user" "$rc" 2
	expect_eq "ns1 tables" "$(table_names "$ns1")" "t1 "
	log_test "only CAP_NET_ADMIN over the namespace changes or reads tables"

	out=$(unshare -U -r -n sh -c "\"$TMCTL\" table add mine && \"$TMCTL\" table list")
	check_err $? "root of a new user namespace in its own netns"
	expect_eq "tables of the private namespace" "$(echo "$out" | awk '{ print $2 }')" "mine"
	log_test "a user namespace owns the tables of its own network namespace"
}

test_netns_exit()
{
	local i

	for i in 1 2 3 4 5; do
		tm -n "$ns1" table add "extra$i" || check_err 1 "table add extra$i"
	done
	ip netns del "$ns1"
	check_err $? "deleting ns1 with 6 tables"
	expect_eq "ns2 tables" "$(table_names "$ns2")" "t2 "
	log_test "a namespace dies with its tables; others keep theirs"
}

test_isolation
test_errors
test_permissions
test_netns_exit
exit "$EXIT_STATUS"
