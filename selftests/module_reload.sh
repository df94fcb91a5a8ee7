#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Load and unload the module 100 times, with and without namespaces holding
# tables and SID bindings at unload time (and namespaces dying with them),
# and while packets flow through tables full of rules with a transaction
# open.  The VM runner fails the run if the kernel logs a
# warning, a leaked slab object or a list corruption meanwhile.

source "$(dirname "$0")/lib.sh"

CYCLES=${CYCLES:-100}

require_root
require_cmd ip insmod rmmod nft
[ -n "$TM_KO" ] || skip "TM_KO not set: the module file is needed to reload it"

cleanup()
{
	cleanup_ns
	[ -d /sys/module/tuplemerge ] || insmod "$TM_KO"
}

reload()
{
	if [ -d /sys/module/tuplemerge ]; then
		rmmod tuplemerge || return 1
	fi
	insmod "$TM_KO"
}

test_plain_cycles()
{
	local i fails=0 rc

	for ((i = 0; i < CYCLES; i++)); do
		reload || fails=$((fails + 1))
	done
	expect_eq "failed load/unload cycles" "$fails" 0
	"$TMCTL" stats >/dev/null
	check_err $? "tmctl after $CYCLES reloads"
	# Not loaded: the kernel tries to load it for the family (it is not
	# installed in the guest, so that fails) and tmctl exits with 3; had
	# it been installed, it would be loaded and tmctl would succeed.
	rmmod tuplemerge
	"$TMCTL" stats >/dev/null 2>&1
	rc=$?
	if [ -d /sys/module/tuplemerge ]; then
		expect_eq "tmctl exit status, module loaded on demand" "$rc" 0
	else
		expect_eq "tmctl exit status without the module" "$rc" 3
		insmod "$TM_KO"
	fi
	log_test "$CYCLES insmod/rmmod cycles"
}

# lb_service NS I: a service with a backend, named by a prerouting rule.
lb_service()
{
	"$TMCTL" -n "$1" lb service add web vip "fd00:$2::80" sid "fd00:$2::1b" &&
		"$TMCTL" -n "$1" lb backend add web "fc00:$2::100" &&
		"$TMCTL" -n "$1" table add "pre$2" family ip6 hook prerouting &&
		"$TMCTL" -n "$1" rule add "pre$2" dst "fd00:$2::80/128" lb web
}

test_unload_with_state()
{
	local i fails=0 ns

	for ((i = 0; i < 10; i++)); do
		setup_ns ns || { fails=$((fails + 1)); continue; }
		"$TMCTL" -n "$ns" table add "t$i" || fails=$((fails + 1))
		"$TMCTL" table add "init$i" || fails=$((fails + 1))
		# SID bindings hold a hook and a connection table too.
		"$TMCTL" -n "$ns" sid add "fc00:$i::100" accept policy always ||
			fails=$((fails + 1))
		# So do load-balancer services, which rules hold references to.
		lb_service "$ns" "$i" || fails=$((fails + 1))
		reload || fails=$((fails + 1))
		[ -z "$("$TMCTL" -n "$ns" table list)" ] || fails=$((fails + 1))
		[ -z "$("$TMCTL" -n "$ns" sid show)" ] || fails=$((fails + 1))
		[ -z "$("$TMCTL" -n "$ns" lb service show)" ] ||
			fails=$((fails + 1))
		# And a namespace that dies with a binding frees it.
		"$TMCTL" -n "$ns" sid add "fc00:$i::200" accept policy never ||
			fails=$((fails + 1))
		lb_service "$ns" "$i" || fails=$((fails + 1))
		cleanup_ns
	done
	expect_eq "failures" "$fails" 0
	log_test "unload with tables, SIDs and services in live namespaces frees them"
}

# ns1 --veth-- ns2: UDP and ping floods into ns2, whose table has 2000
# rules; a transaction holds a copy of the table, and the module goes.
#
# An nft prerouting chain in a third namespace keeps the kernel's
# nf_hooks_needed static key for IPv4 prerouting on, so that unloading
# does not patch kernel text (ip_rcv()'s jump label) while packets go
# through it: under QEMU's TCG the other vCPU can still run a stale
# translation holding the temporary int3 and oops on it (seen once on
# 6.12, in ip_rcv(), with nothing of this module on the stack).  What is
# tested is this module's unload, not the emulator's text patching.
test_unload_under_traffic()
{
	local i fails=0 ns1 ns2 keep pids rules

	rules=$(mktemp)
	for i in $(seq 1 2000); do
		echo "rule add t id $i src 10.$((i / 256)).$((i % 256)).0/24 proto udp dport $((i % 100 + 1000)) drop"
	done >"$rules"
	echo "rule add t id 3000 proto udp dport 9 count" >>"$rules"
	for ((i = 0; i < 3; i++)); do
		setup_ns ns1 ns2 keep || { fails=$((fails + 1)); continue; }
		ip netns exec "$keep" nft add table ip keep &&
			ip netns exec "$keep" nft add chain ip keep pre \
				'{ type filter hook prerouting priority 0; }' ||
			fails=$((fails + 1))
		veth_pair "$ns1" "$ns2" || fails=$((fails + 1))
		"$TMCTL" -n "$ns2" table add t family ip hook prerouting &&
			"$TMCTL" -n "$ns2" -f "$rules" || fails=$((fails + 1))
		# A transaction left open by a client that is still there
		# (started first: Python starts slowly under the floods).
		ip netns exec "$ns2" python3 -c '
import sys, time
sys.path.insert(0, sys.argv[1])
import tmnl
spec = tmnl.load_spec(); nl = tmnl.Genl(); fam = nl.family_id("tuplemerge")
txn = tmnl.request(nl, fam, spec, "txn-begin", [])[1][0]["txn-id"]
tmnl.request(nl, fam, spec, "rule-new", ["table-name=t", "txn-id=%d" % txn])
print("open", flush=True)
time.sleep(120)' "$TM_TOP/selftests" >"$rules.txn" 2>&1 &
		pids=$!
		for _ in $(seq 300); do
			grep -q open "$rules.txn" && break
			sleep 0.2
		done
		grep -q open "$rules.txn" || fails=$((fails + 1))
		ip netns exec "$ns1" ping -q -f -w 30 10.0.1.2 >/dev/null 2>&1 &
		pids="$pids $!"
		ip netns exec "$ns1" bash -c 'exec 3>/dev/udp/10.0.1.2/9;
			while echo x >&3; do :; done' 2>/dev/null &
		pids="$pids $!"
		sleep 2
		[ "$("$TMCTL" -n "$ns2" rule get t id 3000 |
		     sed -n 's/.* packets \([0-9]*\) .*/\1/p')" -gt 0 ] ||
			fails=$((fails + 1))
		reload || fails=$((fails + 1))
		# shellcheck disable=SC2086 # a list of pids
		kill $pids 2>/dev/null
		wait 2>/dev/null
		cleanup_ns
	done
	rm -f "$rules" "$rules.txn"
	expect_eq "failures" "$fails" 0
	log_test "unload while packets flow and a transaction is open"
}

test_plain_cycles
test_unload_with_state
test_unload_under_traffic
exit "$EXIT_STATUS"
