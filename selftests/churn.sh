#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Rules change continuously while traffic flows, and no packet gets a
# verdict that neither the old nor the new rule set would give.
#
#   ns1: veth1 10.0.1.1 --- ns2: veth2 10.0.1.2
#        sender: UDP to ports 1000      table "t" (ip, prerouting, accept)
#        and 3000, counted              nft inet "seen" (input, after t):
#                                       counts what passed, drops it
#
# Whatever the churn, every rule set the table ever holds accepts port 1000
# and drops port 3000, though through different rules:
#   set A: drop 3000 (id 1); 1000 passes by the policy
#   set B: accept 1000 (id 2, priority 1) above drop 900-1100 (id 3,
#          priority 5); drop 2500-3500 (id 4)
#   plus ~1000 filler rules of many prefix lengths, different in A and B,
#   so that each commit swaps very different TupleMerge tables.
# Three writers run at once: transactions flipping A <-> B (tmctl -f), a
# loop replacing rule 2 of B between two versions that both accept 1000
# (a replace must never expose rule 3 alone), and a loop adding and
# deleting rules that do not touch ports 1000 and 3000.  At the end, nft
# must have seen every packet sent to 1000 and none sent to 3000.

source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip nft
require_module

DURATION=${DURATION:-40}
ns1='' ns2=''
setup_ns ns1 ns2 || exit "$ksft_fail"
veth_pair "$ns1" "$ns2" || exit "$ksft_fail"

TMP=$(mktemp -d)
PIDS=()
cleanup()
{
	touch "$TMP/stop"
	kill "${PIDS[@]}" 2>/dev/null
	wait 2>/dev/null
	cleanup_ns
	rm -rf "$TMP"
}

tm()
{
	"$TMCTL" -n "$ns2" "$@"
}

# filler SEED: ~1000 rules that never match ports 1000 or 3000.
filler()
{
	local seed=$1 i len dst

	for i in $(seq 100 1099); do
		len=$(( (i * 7 + seed) % 17 + 8 ))
		dst=10.0.0.0/$len
		[ "$len" -ge 16 ] && dst=10.$((i % 200)).0.0/$len
		echo "rule add t id $i priority $((i % 50)) src 172.$(( (i + seed) % 16 + 16 )).$((i % 256)).0/24 dst $dst proto udp dport $((4000 + i % 500)) drop"
	done
}

{
	echo "rule flush t"
	echo "rule add t id 1 proto udp dport 3000 drop"
	filler 1
} >"$TMP/A"
{
	echo "rule flush t"
	echo "rule add t id 2 priority 1 proto udp dport 1000 accept"
	echo "rule add t id 3 priority 5 proto udp dport 900-1100 drop"
	echo "rule add t id 4 proto udp dport 2500-3500 drop"
	filler 2
} >"$TMP/B"

ip netns exec "$ns2" nft -f - <<EOF || exit "$ksft_fail"
table inet seen {
	counter p1000 { }
	counter p3000 { }
	chain in {
		type filter hook input priority 100;
		udp dport 1000 counter name p1000 drop
		udp dport 3000 counter name p3000 drop
	}
}
EOF

tm table add t family ip hook prerouting policy accept || exit "$ksft_fail"
tm -f "$TMP/B" || exit "$ksft_fail"

seen()
{
	ip netns exec "$ns2" nft list counter inet seen "p$1" |
		sed -n 's/.*packets \([0-9]*\).*/\1/p'
}

# The sender: UDP to 1000 and 3000 in turns until told to stop.
sender()
{
	local n=0

	exec 3>/dev/udp/10.0.1.2/1000 4>/dev/udp/10.0.1.2/3000 || exit 1
	while [ ! -e "$TMP/stop" ]; do
		if ! { echo x >&3 && echo x >&4; }; then
			break
		fi
		n=$((n + 1))
	done
	echo "$n" >"$TMP/sent"
}

flipper()
{
	local n=0

	while [ ! -e "$TMP/stop" ]; do
		tm -f "$TMP/A" || { echo "flip to A failed" >"$TMP/error"; break; }
		tm -f "$TMP/B" || { echo "flip to B failed" >"$TMP/error"; break; }
		n=$((n + 2))
	done
	echo "$n" >"$TMP/flips"
}

# Replace rule 2 when set B is in; fails harmlessly while A is.
replacer()
{
	local n=0

	while [ ! -e "$TMP/stop" ]; do
		tm rule replace t id 2 priority 1 proto udp dport 999-1001 accept \
			2>/dev/null && n=$((n + 1))
		tm rule replace t id 2 priority 1 proto udp dport 1000 accept \
			2>/dev/null && n=$((n + 1))
	done
	echo "$n" >"$TMP/replaces"
}

adder()
{
	local n=0

	while [ ! -e "$TMP/stop" ]; do
		tm rule add t id 5000 priority 0 proto udp dport 2000 drop \
			2>/dev/null && n=$((n + 1))
		tm rule del t id 5000 2>/dev/null && n=$((n + 1))
	done
	echo "$n" >"$TMP/adds"
}

ip netns exec "$ns1" bash -c "$(declare -f sender); TMP=$TMP; sender" &
PIDS+=($!)
flipper &
PIDS+=($!)
replacer &
PIDS+=($!)
adder &
PIDS+=($!)
sleep "$DURATION"
touch "$TMP/stop"
wait "${PIDS[@]}"
PIDS=()

sent=$(cat "$TMP/sent" 2>/dev/null)
log_info "sent $sent packets to each port;" \
	"$(cat "$TMP/flips") A/B commits, $(cat "$TMP/replaces") replaces," \
	"$(cat "$TMP/adds") adds and deletes"
[ -z "$(cat "$TMP/error" 2>/dev/null)" ]
check_err $? "$(cat "$TMP/error" 2>/dev/null)"
[ "${sent:-0}" -gt 100 ]
check_err $? "the sender sent only ${sent:-0} packets"
[ "$(cat "$TMP/flips")" -ge 4 ]
check_err $? "only $(cat "$TMP/flips") commits"
expect_eq "packets to port 1000 that passed" "$(seen 1000)" "$sent"
expect_eq "packets to port 3000 that passed" "$(seen 3000)" 0
log_test "no packet saw a rule set that was never committed"

exit "$EXIT_STATUS"
