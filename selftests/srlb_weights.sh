#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Weights and draining at the SRv6 load balancer (Documentation/srv6-lb.rst,
# "Draining and weights"), on srlb_lb.sh's network: client, lb, srv1 to
# srv3, service web (VIP fd00:100::1 port 8080, choices 2) whose servers
# accept every connection offered first (policy always).
#
# - weight 0 drains: a long connection to the drained server carries on
#   and closes cleanly, no new connection reaches it; weight 1 brings it
#   back;
# - weights 1:3 (and 0 for srv3) split new connections about 1:3;
# - one tmctl -f transaction of ten backend changes builds one table;
# - every backend draining: a new connection is dropped (counted).

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_srlb.sh"

require_root
require_cmd ip socat python3 timeout ss
require_module

PORT=8080
PORTS=("$PORT")
NEW=${SRLB_CONNS:-400}

TMP=$(mktemp -d)

setup()
{
	setup_srlb 3 && lb_web &&
		policies add always always always
}

tables()
{
	lbc web tables
}

test_drain()
{
	local s i out t

	long_open 1
	s=$(long_server 1)
	[[ $s == s[123] ]]
	check_err $? "the long connection's server: '$s'"
	i=${s#s}
	t=$(tables)
	tm_lb lb backend set web "$(sid_of "$i")" weight 0
	check_err $? "lb backend set weight 0"
	expect_eq "one table for the change" "$(tables)" $((t + 1))
	tm_lb lb service show web | grep -q "backend $(sid_of "$i") weight 0"
	check_err $? "the drained backend is listed with weight 0"
	out=$(tally 30)
	expect_eq "new connections that reached the drained $s" \
		"$(tallied "$s" <<<"$out")" 0
	expect_eq "failed connections while draining" \
		"$(tallied bad <<<"$out")" 0
	long_echo 1 "still-there"
	check_err $? "the drained server's connection carries on"
	long_close 1
	check_err $? "the drained server's connection closes"
	tm_lb lb backend set web "$(sid_of "$i")" weight 1
	check_err $? "lb backend set weight 1"
	out=$(tally 30)
	[ "$(tallied "$s" <<<"$out")" -gt 0 ]
	check_err $? "$s takes new connections again ($out)"
	log_test "weight 0 drains $s: its connection carries on, no new one; weight 1 brings it back"
}

test_reweight()
{
	local out n1 n2 n3

	tm_lb lb backend set web "$(sid_of 1)" weight 1 &&
		tm_lb lb backend set web "$(sid_of 2)" weight 3 &&
		tm_lb lb backend set web "$(sid_of 3)" weight 0
	check_err $? "weights 1, 3, 0"
	out=$(tally "$NEW")
	n1=$(tallied s1 <<<"$out")
	n2=$(tallied s2 <<<"$out")
	n3=$(tallied s3 <<<"$out")
	log_info "$NEW connections: s1 $n1, s2 $n2, s3 $n3"
	expect_eq "failed connections" "$(tallied bad <<<"$out")" 0
	expect_eq "connections to s3 (weight 0)" "$n3" 0
	# A quarter to s1: 100 of 400, 4.6 standard deviations either way.
	[ "$n1" -ge $((NEW * 15 / 100)) ] && [ "$n1" -le $((NEW * 35 / 100)) ]
	check_err $? "s1 took $n1 of $NEW, not about a quarter"
	log_test "weights 1:3:0 split $NEW new connections $n1:$n2:$n3"
}

test_txn()
{
	local t i w

	t=$(tables)
	{
		for w in 2 3 4; do
			for i in 1 2 3; do
				echo "lb backend set web $(sid_of "$i") weight $w"
			done
		done
		echo "lb backend add web fc00:9::100 weight 0"
	} >"$TMP/ten.tm"
	"$TMCTL" -n "$lb" -f "$TMP/ten.tm"
	check_err $? "tmctl -f of ten backend changes"
	expect_eq "tables built by the transaction" "$(tables)" $((t + 1))
	tm_lb lb service show web | grep -q "backend $(sid_of 3) weight 4"
	check_err $? "the last weight of each backend stays"
	tm_lb lb backend del web fc00:9::100
	expect_eq "one more for a change alone" "$(tables)" $((t + 2))
	log_test "ten backend changes in one transaction build one table"
}

test_all_drained()
{
	local d i out

	for i in 1 2 3; do
		tm_lb lb backend set web "$(sid_of "$i")" weight 0 ||
			check_err 1 "drain $i"
	done
	d=$(lbc web dropped)
	out=$(CONNECT_TIMEOUT=3 connect)
	expect_eq "a connection with every backend draining" "$out" ""
	[ "$(lbc web dropped)" -gt "${d:-0}" ]
	check_err $? "its SYN counted dropped ($(lbc web dropped), was $d)"
	for i in 1 2 3; do
		tm_lb lb backend set web "$(sid_of "$i")" weight 1 ||
			check_err 1 "undrain $i"
	done
	out=$(connect)
	[[ $out == s[123]$'\n'hello ]]
	check_err $? "a connection once they are back ($out)"
	log_test "every backend draining: new connections dropped, counted"
}

test_refusals()
{
	local out

	out=$(tm_lb lb backend set web fc00:8::100 weight 1 2>&1)
	[[ $? -ne 0 && $out == *"no such backend"* ]]
	check_err $? "set of an unknown backend: '$out'"
	! out=$(tm_lb lb backend set nosuch "$(sid_of 1)" weight 1 2>&1)
	check_err $? "set in an unknown service: '$out'"
	log_test "lb backend set of unknown backends and services refused"
}

srlb_start
test_drain
test_reweight
test_txn
test_all_drained
test_refusals
exit "$EXIT_STATUS"
