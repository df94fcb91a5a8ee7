#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What an unprivileged user can do (issue 14), checked with priv.py:
#
# - nobody, in root's namespace: every command, do and dump, gets EPERM,
#   and joining the events group too (the root of a child user namespace
#   likewise);
# - nobody as root of its own user+net namespace (unshare -Urn): tables
#   and rules work, but the first SID, which would switch the global
#   nf_hooks_lwtunnel key on, gets EPERM with an extack, and the key stays
#   off (net.netfilter.nf_hooks_lwtunnel reads the key);  once root bound
#   a SID (key on), the same user binds SIDs;
# - backend weights 0..65535 are taken (new and set) without a WARN,
#   65536 and 4294967295 get ERANGE;
# - a Maglev build with weights 65535 and 1 on the largest table finishes
#   in bounded time, without a soft lockup (the runner judges the log);
# - nobody in a memory cgroup (memory.max 48M: Python itself takes some)
#   cannot pin more than that: rule dumps left open (each holding the
#   table's ids, charged since this fix) are refused, or the task is
#   OOM-killed, before they pin 3 x 48M; memory.peak <= max.
#
# The SID test must run before anything binds a SID in this VM: the key,
# once on, stays on.

source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip python3 unshare setpriv
require_module

PRIV=$TM_TOP/selftests/priv.py
MAGLEV_LIMIT=${MAGLEV_LIMIT:-60}

# nobody, HOME and cwd readable by it.
as_nobody()
{
	(cd / && HOME=/tmp setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$@")
}

lwt_key()
{
	local f=/proc/sys/net/netfilter/nf_hooks_lwtunnel

	# 6.1 keeps the sysctl in nf_conntrack.
	[ -e "$f" ] || modprobe -q nf_conntrack 2>/dev/null
	cat "$f" 2>/dev/null || echo missing
}

test_sid_key()
{
	local key out

	key=$(lwt_key)
	if [ "$key" != 0 ]; then
		log_info "nf_hooks_lwtunnel is '$key' before the test: SID part skipped"
		return
	fi
	as_nobody unshare -Urn python3 "$PRIV" userns
	check_err $? "priv.py userns"
	expect_eq "nf_hooks_lwtunnel after the refused SID" "$(lwt_key)" 0
	log_test "nobody's own namespace cannot switch the lwtunnel key on"

	out=$("$TMCTL" -n "$ns" sid add fc00:1::1 accept policy always 2>&1)
	check_err $? "root: sid add: $out"
	expect_eq "nf_hooks_lwtunnel after root's SID" "$(lwt_key)" 1
	log_test "root switches the key on by binding a SID"

	as_nobody unshare -Urn python3 "$PRIV" sid-ok
	check_err $? "priv.py sid-ok"
	"$TMCTL" -n "$ns" sid del fc00:1::1
}

test_no_cap()
{
	local out

	out=$("$TMCTL" -n "$ns" table add t family ip hook input 2>&1 &&
		"$TMCTL" -n "$ns" rule add t id 1 proto tcp dport 22 accept \
			comment secret 2>&1)
	check_err $? "root: $out"
	log_test "root's table with a rule"
	(cd / && HOME=/tmp ip netns exec "$ns" setpriv --reuid=65534 \
		--regid=65534 --clear-groups python3 "$PRIV" no-cap)
	check_err $? "priv.py no-cap as nobody"
	(cd / && ip netns exec "$ns" unshare -Ur python3 "$PRIV" no-cap)
	check_err $? "priv.py no-cap as root of a child user namespace"
	out=$("$TMCTL" -n "$ns" rule list t 2>&1)
	[[ $out == *secret* ]]
	check_err $? "root's rule changed: $out"
	log_test "no reads, dumps or events without CAP_NET_ADMIN"
}

test_weights()
{
	local before after

	before=$(dmesg | grep -c 'WARNING:')
	as_nobody unshare -Urn python3 "$PRIV" weights
	check_err $? "priv.py weights"
	after=$(dmesg | grep -c 'WARNING:')
	expect_eq "kernel warnings" "$after" "$before"
	log_test "weights: no WARN in the kernel log"
}

test_maglev()
{
	local before after

	before=$(dmesg | grep -c 'soft lockup')
	as_nobody unshare -Urn python3 "$PRIV" maglev "$MAGLEV_LIMIT"
	check_err $? "priv.py maglev"
	after=$(dmesg | grep -c 'soft lockup')
	expect_eq "soft lockups" "$after" "$before"
	log_test "Maglev build: no soft lockup"
}

test_memcg()
{
	local max=$((48 << 20)) rules=30000 peak rc

	if ! memcg_new priv; then
		[ "$RET" -ne 0 ] && log_test "memcg"
		return
	fi
	echo "$max" >"$CG/memory.max"
	echo 0 >"$CG/memory.swap.max" 2>/dev/null
	(
		echo "$BASHPID" >"$CG/cgroup.procs" || exit 98
		ulimit -n 4096
		as_nobody unshare -Urn python3 "$PRIV" memcg "$rules" \
			$((3 * max))
	)
	rc=$?
	# Killed by the cgroup's OOM killer is a refusal too.
	[ "$rc" -eq 137 ] && log_info "priv.py memcg OOM-killed (fine)" && rc=0
	check_err "$rc" "priv.py memcg exited with $rc"
	log_info "memory.events: $(tr '\n' ' ' <"$CG/memory.events")"
	peak=$(cat "$CG/memory.peak" 2>/dev/null || cat "$CG/memory.current")
	[ "$peak" -le "$max" ]
	check_err $? "memory.peak $peak above memory.max $max"
	log_test "nobody in a 48M memory cgroup pins no more than 48M"
}

ns=''
setup_ns ns || exit "$ksft_fail"
test_sid_key
test_no_cap
test_weights
test_maglev
test_memcg
exit "$EXIT_STATUS"
