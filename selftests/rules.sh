#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Rules decide the fate of real packets: verdicts for IPv4 and IPv6, port
# ranges, priorities, interfaces, every action, counters, lookups, and
# atomic batches that leave the old rules in place when one line is bad.
#
#   +-----------------------+          +-----------------------------+
#   | ns1 (client)          |          | ns2 (server)                |
#   |   veth1 10.0.1.1/24   +----------+   veth2 10.0.1.2/24         |
#   |         fd00:1::1/64  |          |         fd00:1::2/64        |
#   +-----------------------+          |   TCP listeners (socat):    |
#                                      |   1000 1500 2000 3000       |
#                                      |   table "t": inet, input    |
#                                      +-----------------------------+
#
# A TCP connection from ns1 tells what happened to its SYN: "ok" (it got
# through and the listener answered), "refused" (TCP reset or ICMP port
# unreachable), "unreach" (ICMP host unreachable), "prohibited" (ICMPv6
# administratively prohibited) or "timeout" (dropped).

source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip socat timeout nft
require_module

PORTS=(1000 1500 2000 3000)
ns1='' ns2=''
setup_ns ns1 ns2 || exit "$ksft_fail"
veth_pair "$ns1" "$ns2" || exit "$ksft_fail"
# Every reject answers at once: no ICMP rate limit, so no SYN is resent.
ip netns exec "$ns2" sysctl -qw net.ipv4.icmp_ratelimit=0 \
	net.ipv6.icmp.ratelimit=0

LISTENERS=()
for p in "${PORTS[@]}"; do
	ip netns exec "$ns2" socat TCP6-LISTEN:"$p",ipv6only=0,fork,reuseaddr \
		SYSTEM:"echo ok" &
	LISTENERS+=($!)
done

cleanup()
{
	kill "${LISTENERS[@]}" 2>/dev/null
	wait 2>/dev/null
	cleanup_ns
}

TMP=$(mktemp -d)
trap 'cleanup; rm -rf "$TMP"' EXIT

tm()
{
	"$TMCTL" -n "$ns2" "$@"
}

# probe 4|6 PORT: what happens to a connection from ns1 to ns2:PORT.
probe()
{
	local dst=10.0.1.2 out

	[ "$1" = 6 ] && dst=fd00:1::2
	out=$(ip netns exec "$ns1" timeout "$PROBE_TIMEOUT" bash -c \
		"exec 3<>/dev/tcp/$dst/$2 && read -r -t 2 line <&3 && echo \$line" 2>&1)
	case $? in
	0)	[ "$out" = ok ] && echo ok || echo "garbage: $out" ;;
	124)	echo timeout ;;
	*)	case $out in
		*"Connection refused"*)	echo refused ;;
		*"No route to host"*)	echo unreach ;;
		*"Permission denied"*)	echo prohibited ;;
		*)			echo "error: $out" ;;
		esac ;;
	esac
}

# expect 4|6 PORT WANT: one check of probe's answer.
expect()
{
	expect_eq "IPv$1 port $2" "$(probe "$1" "$2")" "$3"
}

# settled_packets TABLE ID: the packet counter once it has not moved for
# half a second (at most 5 s).
settled_packets()
{
	local i last now

	last=$(rule_packets "$ns2" "$1" "$2")
	for i in $(seq 10); do
		sleep 0.5
		now=$(rule_packets "$ns2" "$1" "$2")
		[ "$now" = "$last" ] && break
		last=$now
	done
	echo "$last"
}

wait_listeners()
{
	local i

	for i in $(seq 50); do
		[ "$(probe 4 3000)" = ok ] && return 0
		sleep 0.2
	done
	return 1
}

test_verdicts()
{
	tm table add t family inet hook input policy accept
	check_err $? "table add t"
	tm rule add t id 10 src 10.0.1.1 proto tcp dport 1000 drop
	check_err $? "rule add IPv4"
	tm rule add t id 11 src fd00:1::1 proto tcp dport 1500 drop
	check_err $? "rule add IPv6"
	expect 4 1000 timeout
	expect 4 1500 ok
	expect 6 1000 ok
	expect 6 1500 timeout
	log_test "IPv4 and IPv6 rules drop their own family's packets"

	tm rule add t id 12 proto tcp dport 2000 drop
	check_err $? "rule add inet"
	expect 4 2000 timeout
	expect 6 2000 timeout
	expect 4 3000 ok
	log_test "a rule with no address covers both families of an inet table"

	tm rule del t id 10 && tm rule del t id 11 && tm rule del t id 12
	check_err $? "rule del"
	expect 4 1000 ok
	expect 6 1500 ok
	expect 4 2000 ok
	log_test "deleted rules no longer match the next packet"
}

test_ranges()
{
	tm rule add t id 20 proto tcp dport 1000-1500 drop
	check_err $? "rule add range"
	expect 4 1000 timeout
	expect 4 1500 timeout
	expect 6 1500 timeout
	expect 4 2000 ok
	tm rule replace t id 20 proto tcp dport 1001-1999 drop
	check_err $? "rule replace range"
	expect 4 1000 ok
	expect 4 1500 timeout
	expect 4 2000 ok
	tm rule replace t id 20 proto tcp sport 0-1023 drop
	expect 4 1500 ok
	tm rule replace t id 20 proto udp dport 1000-3000 drop
	expect 4 1500 ok
	tm rule del t id 20
	log_test "port ranges: inclusive ends, source ports, protocol"
}

test_priorities()
{
	tm rule add t id 30 priority 10 src 10.0.1.0/24 drop
	tm rule add t id 31 priority 5 src 10.0.1.1 proto tcp dport 1000 accept
	check_err $? "rule add"
	expect 4 1000 ok
	expect 4 1500 timeout
	tm rule replace t id 31 priority 20 src 10.0.1.1 proto tcp dport 1000 accept
	expect 4 1000 timeout
	# Equal priorities: the lower id wins.
	tm rule replace t id 31 priority 10 src 10.0.1.1 proto tcp dport 1000 accept
	expect 4 1000 timeout
	tm rule add t id 29 priority 10 src 10.0.1.1 proto tcp dport 1000 accept
	expect 4 1000 ok
	tm rule flush t
	check_err $? "rule flush"
	expect 4 1500 ok
	log_test "priorities: lower wins, then lower id; flush"
}

test_interfaces()
{
	local lo

	tm rule add t id 40 iif veth2 proto tcp dport 1000 drop
	check_err $? "rule add iif veth2"
	tm rule add t id 41 iif lo proto tcp dport 1500 drop
	check_err $? "rule add iif lo"
	expect 4 1000 timeout
	expect 4 1500 ok
	lo=$(ip netns exec "$ns2" timeout 2 bash -c \
		'exec 3<>/dev/tcp/127.0.0.1/1500' 2>&1; echo $?)
	expect_eq "from ns2 itself (lo) to 1500" "${lo##*$'\n'}" 124
	tm rule flush t
	log_test "input interface: veth2 and lo told apart"
}

test_actions()
{
	local marked n

	tm rule add t id 50 proto tcp dport 1000 reject
	tm rule add t id 51 proto tcp dport 1500 reject with host-unreachable
	tm rule add t id 52 proto tcp dport 2000 reject with admin-prohibited
	check_err $? "rule add reject"
	expect 4 1000 refused
	expect 6 1000 refused
	expect 4 1500 unreach
	expect 6 1500 unreach
	expect 6 2000 prohibited
	expect_eq "reject counter" "$(rule_packets "$ns2" t 50)" 2
	tm rule replace t id 50 proto tcp dport 1000 reject with port-unreachable
	expect 4 1000 refused
	tm rule replace t id 50 proto tcp dport 1000 reject with tcp-reset
	expect 6 1000 refused
	# Kept over the replaces (a SYN may be sent twice before the ICMP).
	n=$(rule_packets "$ns2" t 50)
	[ "$n" -ge 4 ] && [ "$n" -le 6 ]
	check_err $? "reject counter after replaces: $n, want 4..6"
	tm rule flush t
	log_test "reject: TCP reset, port/host unreachable, prohibited"

	# mark then the policy (accept): an nft chain after ours sees it.
	ip netns exec "$ns2" nft -f - <<-EOF
	table inet mk {
		counter seen { }
		chain in {
			type filter hook input priority 10;
			meta mark 0x42 counter name seen
		}
	}
	EOF
	tm rule add t id 53 proto tcp dport 1000 mark 0x42
	check_err $? "rule add mark"
	expect 4 1000 ok
	expect 4 1500 ok
	marked=$(ip netns exec "$ns2" nft list counter inet mk seen |
		 sed -n 's/.*packets \([0-9]*\).*/\1/p')
	[ "${marked:-0}" -ge 3 ]
	check_err $? "nft saw $marked packets with mark 0x42, want >= 3"
	ip netns exec "$ns2" nft delete table inet mk
	tm rule flush t
	log_test "mark sets skb->mark, then the table's policy applies"

	tm table add d family ip hook input policy drop
	tm rule add d id 1 proto tcp dport 2000 count
	tm rule add d id 2 proto tcp dport 3000 accept
	check_err $? "rule add count"
	expect 4 2000 timeout
	expect 4 3000 ok
	[ "$(rule_packets "$ns2" d 1)" -ge 1 ]
	check_err $? "count rule counted $(rule_packets "$ns2" d 1)"
	expect 6 2000 ok
	tm table del d
	log_test "count counts, then the policy (drop) applies; accept"
}

test_counters()
{
	local out

	tm rule add t id 60 proto tcp dport 1000 accept comment "web front" cookie 0xfeed
	expect 4 1000 ok
	out=$(tm rule get t id 60)
	[[ "$out" == *"packets "[1-9]*" bytes "[1-9]* ]]
	check_err $? "counters after a connection: $out"
	[[ "$out" == *'comment "web front"'* && "$out" == *"cookie "* ]]
	check_err $? "comment and cookie: $out"
	settled_packets t 60 >/dev/null
	tm counters reset t id 60
	expect_eq "after reset" "$(rule_packets "$ns2" t 60)" 0
	expect 4 1000 ok
	# The connection's last segments may still be on their way: wait
	# for the count to settle, then move the rule off port 1000 so that
	# nothing late can change it.
	out=$(settled_packets t 60)
	tm rule replace t id 60 proto tcp dport 1001 accept
	expect_eq "kept on replace" "$(rule_packets "$ns2" t 60)" "$out"
	tm rule replace t id 60 proto tcp dport 1001 accept reset-counters
	expect_eq "reset-counters" "$(rule_packets "$ns2" t 60)" 0
	tm rule flush t
	log_test "counters: per rule, reset, kept or reset on replace"
}

test_lookup()
{
	local out

	tm rule add t id 70 priority 1 src 10.0.1.0/24 proto tcp dport 1000-2000 drop
	tm rule add t id 71 priority 2 proto tcp accept
	out=$(tm rule lookup t src 10.0.1.1 dst 10.0.1.2 proto tcp sport 40000 dport 1500)
	[[ "$out" == *"id 70 "* ]]
	check_err $? "lookup: $out"
	out=$(tm rule lookup t src 10.0.1.1 dst 10.0.1.2 proto tcp dport 2001)
	[[ "$out" == *"id 71 "* ]]
	check_err $? "lookup: $out"
	out=$(tm rule lookup t src fd00::1 dst fd00::2 proto udp dport 53)
	[[ "$out" == "no match: policy accept"* ]]
	check_err $? "lookup miss: $out"
	tm rule flush t
	log_test "lookup names the rule a packet would hit"
}

test_batch()
{
	local before after i rc

	{
		echo "# a policy of 200 rules"
		for i in $(seq 100 299); do
			echo "rule add t id $i src 10.9.$((i % 256)).0/24 drop"
		done
		echo "rule add t id 300 proto tcp dport 1000 drop"
	} >"$TMP/good"
	tm -f "$TMP/good"
	check_err $? "tmctl -f good"
	expect 4 1000 timeout
	before=$(tm -s rule list t)
	expect_eq "rules loaded" "$(wc -l <<<"$before")" 201

	# Kernel refusal in the middle: nothing of the batch is applied.
	{
		echo "rule flush t"
		echo "rule add t id 1 proto tcp dport 1500 drop"
		echo "rule add t id 1 proto tcp dport 2000 drop"
	} >"$TMP/dup"
	out=$(tm -f "$TMP/dup" 2>&1)
	rc=$?
	expect_eq "exit of a refused batch" "$rc" 2
	[[ "$out" == "$TMP/dup:3:"*"Rule id already in use"* ]]
	check_err $? "error names the line: $out"
	after=$(tm -s rule list t)
	expect_eq "rules after the refused batch" "$after" "$before"
	expect 4 1000 timeout
	expect 4 1500 ok

	# Parse error: nothing is sent.
	printf 'rule flush t\nrule add t id 5 dport 70000 drop\n' >"$TMP/bad"
	out=$(tm -f "$TMP/bad" 2>&1)
	rc=$?
	expect_eq "exit of a bad file" "$rc" 1
	[[ "$out" == "$TMP/bad:2:"* ]]
	check_err $? "parse error names the line: $out"
	expect_eq "rules after the bad file" "$(tm -s rule list t)" "$before"

	# The listing is itself a batch: flush + reload gives the same rules.
	{ echo "rule flush t"; echo "$before"; } >"$TMP/again"
	tm -f "$TMP/again"
	check_err $? "reload of the listing"
	expect_eq "rules after reload" "$(tm -s rule list t)" "$before"
	tm rule flush t
	log_test "batches are atomic: a bad line leaves the old rules"
}

wait_listeners || { echo "listeners did not start"; exit "$ksft_fail"; }
test_verdicts
test_ranges
test_priorities
test_interfaces
test_actions
test_counters
test_lookup
test_batch

exit "$EXIT_STATUS"
