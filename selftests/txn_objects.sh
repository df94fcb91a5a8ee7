#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SIDs and load-balancer services in transactions.  The kernel's rules for
# what a transaction creates, changes and deletes are checked request by
# request in txn_objects.py (through tmnl.py, a raw client); this script
# checks what a user sees with tmctl files:
#
#   ns1 (veth1 fd00:1::1) ---- (veth2 fd00:1::2) ns2: the load balancer,
#   a client sending SYNs       service web, VIP fd00:100::1 port 80,
#   to [fd00:100::1]:80         candidates routed to a dummy device
#
#   - a whole configuration (SIDs, services, backends, tables, rules) in
#     one file, listed back as written;
#   - loaded again (flush ruleset, then the file: what the unit's reload
#     does), a service and a SID stay the same objects: the load
#     balancer's flows and counters and a SID's reported load are still
#     there; a service whose parameters changed is a new one (no flow);
#   - tmctl flush ruleset empties the namespace.

source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip python3 socat timeout
require_module

ns1=''
ns2=''
setup_ns ns1 ns2 || exit "$ksft_fail"
TMP=$(mktemp -d)
cleanup()
{
	cleanup_ns
	rm -rf "$TMP"
}

tm()
{
	"$TMCTL" -n "$ns2" "$@"
}

# The load balancer's configuration, $1 the service's idle timeout.
config()
{
	cat <<-EOF
	flush ruleset
	sid add fc00:9::1 accept policy conns 4
	sid add fc00:8::1 accept policy always hmac 3
	lb service add web vip fd00:100::1 sid fd00:1b::1 tcp port 80 syn-timeout 600 idle-timeout $1
	lb backend add web fc00:1::100
	lb backend add web fc00:2::100 weight 2
	lb service add dns vip fd00:100::53 sid fd00:1b::2
	lb backend add dns fc00:3::100
	table add lbt family ip6 hook prerouting
	rule add lbt id 1 dst fd00:100::1/128 proto tcp dport 80 lb web
	rule add lbt id 2 dst fd00:100::53/128 proto tcp dport 53 lb dns
	table add filter family inet hook input
	rule add filter id 1 proto tcp dport 22 accept
	EOF
}

setup()
{
	veth_pair "$ns1" "$ns2" || return 1
	ip -n "$ns1" -6 route add fd00:100::/64 via fd00:1::2 || return 1
	ip netns exec "$ns2" sysctl -qw net.ipv6.conf.all.forwarding=1 ||
		return 1
	# The candidates lead nowhere: a SYN hunts, nobody answers.
	ip -n "$ns2" link add dummy0 type dummy &&
		ip -n "$ns2" link set dummy0 up &&
		ip -n "$ns2" -6 route add fc00::/16 dev dummy0
}

# A client's SYNs to the VIP, until the load balancer remembers the flow
# (the first may wait for neighbour discovery).
syn()
{
	local try

	for try in 1 2 3; do
		ip netns exec "$ns1" timeout 5 socat -u /dev/null \
			"TCP6:[fd00:100::1]:80,connect-timeout=4" 2>/dev/null
		[ "$(flows)" -ge 1 ] && return 0
		log_info "no flow after SYN round $try: $(tm lb service show web | tr '\n' ' ')"
	done
	return 1
}

flows()
{
	tm lb flows show web | grep -c 'fd00:1::1'
}

hunts()
{
	tm -j lb service show web | python3 -c \
		'import json, sys; print(json.load(sys.stdin)[0]["hunts"])'
}

test_whole_file()
{
	config 40 >"$TMP/conf"
	tm -f "$TMP/conf"
	check_err $? "a file with every kind of object"
	tm list ruleset >"$TMP/a"
	expect_eq "lines listed" "$(wc -l <"$TMP/a")" 12
	for l in "sid add fc00:8::1 accept policy always hmac 3" \
		 "lb backend add web fc00:2::100 weight 2" \
		 "rule add lbt id 2 priority 0 dst fd00:100::53 dport 53 proto tcp lb dns"; do
		grep -qxF "$l" "$TMP/a"
		check_err $? "'$l' not in the listing: $(cat "$TMP/a")"
	done
	log_test "one file: SIDs, services, backends, tables and rules"
}

test_reload_keeps()
{
	local g h

	syn
	expect_eq "flows after a client's SYN" "$(flows)" 1
	h=$(hunts)
	[ "$h" -ge 1 ]
	check_err $? "hunts after a SYN: $h"
	tm sid load fc00:9::1 7
	tm list ruleset >"$TMP/before"
	g=$(generation "$ns2")
	tm -f "$TMP/conf"
	check_err $? "loading the same file again"
	tm list ruleset | cmp -s - "$TMP/before"
	check_err $? "the listing changed"
	expect_eq "flows after loading the same file" "$(flows)" 1
	expect_eq "hunts after loading the same file" "$(hunts)" "$h"
	tm sid show fc00:9::1 | grep -q ' load-now 7 '
	check_err $? "the SID's load after the reload: $(tm sid show fc00:9::1)"
	[ "$(generation "$ns2")" -gt "$g" ]
	check_err $? "the reload did not move the generation"
	# Another policy for the SID: still the same binding.
	sed -i 's/conns 4/conns 9/' "$TMP/conf"
	tm -f "$TMP/conf"
	check_err $? "a new SID policy"
	tm sid show fc00:9::1 | grep -q 'policy conns 9 .*load-now 7 '
	check_err $? "the SID after a new policy: $(tm sid show fc00:9::1)"
	# Another idle timeout: another service, the flows start again.
	config 50 >"$TMP/conf"
	tm -f "$TMP/conf"
	check_err $? "a service with another idle timeout"
	expect_eq "flows of the new service" "$(flows)" 0
	expect_eq "hunts of the new service" "$(hunts)" 0
	log_test "loaded again, a SID and a service keep their state"
}

test_flush()
{
	tm flush ruleset
	check_err $? "flush ruleset"
	expect_eq "listing after flush ruleset" "$(tm list ruleset | wc -c)" 0
	log_test "tmctl flush ruleset empties the namespace"
}

setup
check_err $? "setup"
log_test "setup: client, load balancer"
ip netns exec "$ns2" python3 "$TM_TOP/selftests/txn_objects.py"
check_err $? "txn_objects.py: see its lines above"
log_test "the kernel's rules for SIDs and services (txn_objects.py)"
test_whole_file
test_reload_keeps
test_flush
exit "$EXIT_STATUS"
