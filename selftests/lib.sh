#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers shared by the tuplemerge selftests, in the spirit of the kernel's
# tools/testing/selftests/net/lib.sh: kselftest exit codes, one line per
# check (log_test), network namespaces that are always cleaned up, and the
# paths of the module and tmctl handed in by the VM runner.

# shellcheck disable=SC2034 # used by the tests that source this file
ksft_pass=0
ksft_fail=1
ksft_skip=4

# Set by selftests/vm/guest.sh; sensible defaults for running by hand.
: "${TM_TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
: "${TMCTL:=$TM_TOP/tools/tmctl/tmctl}"
: "${TM_KO:=}"

RET=0		# result of the checks of the current log_test
# shellcheck disable=SC2034 # the exit status of the sourcing test
EXIT_STATUS=0	# result of the whole script
NS_LIST=()
MEMCG_LIST=()

check_err()
{
	local err=$1 msg=$2

	if [ "$RET" -eq 0 ] && [ "$err" -ne 0 ]; then
		RET=$err
		retmsg=$msg
	fi
}

check_fail()
{
	local err=$1 msg=$2

	if [ "$RET" -eq 0 ] && [ "$err" -eq 0 ]; then
		RET=1
		retmsg=$msg
	fi
}

# log_test DESCRIPTION: report the checks made since the last log_test.
log_test()
{
	local desc=$1

	if [ "$RET" -ne 0 ]; then
		EXIT_STATUS=$ksft_fail
		printf "TEST: %-60s [FAIL]\n" "$desc"
		[ -n "${retmsg:-}" ] && printf "\t%s\n" "$retmsg"
	else
		printf "TEST: %-60s [ OK ]\n" "$desc"
	fi
	RET=0
	retmsg=
}

log_info()
{
	echo "INFO: $*"
}

# expect_eq WHAT GOT WANT: one check comparing two strings.
expect_eq()
{
	if [ "$2" != "$3" ]; then
		check_err 1 "$1: got '$2', want '$3'"
	fi
}

skip()
{
	echo "SKIP: $*"
	exit "$ksft_skip"
}

require_root()
{
	[ "$(id -u)" -eq 0 ] || skip "needs root"
}

require_cmd()
{
	local c

	for c in "$@"; do
		command -v "$c" >/dev/null || skip "needs $c"
	done
}

# The module is loaded by the VM runner; a test never runs without it.
require_module()
{
	[ -d /sys/module/tuplemerge ] && return 0
	if [ -n "$TM_KO" ]; then
		insmod "$TM_KO" || { echo "FAIL: insmod $TM_KO"; exit "$ksft_fail"; }
		return 0
	fi
	skip "tuplemerge module not loaded and TM_KO not set"
}

# generation NS: the generation of NS's configuration (tmctl stats).
generation()
{
	"$TMCTL" -n "$1" stats | sed -n 's/.*generation \([0-9]*\).*/\1/p' |
		head -1
}

# How long a probe waits for an answer before it calls the packet dropped:
# the debug kernel (KASAN, lockdep) answers a first connection in more
# than 2 s under emulation.
PROBE_TIMEOUT=2
[[ $(uname -r) == *tmdebug* ]] && PROBE_TIMEOUT=6

# tcp_probe NS DST PORT [SOCAT-OPTIONS]: "ok" when a connection from
# namespace NS to DST:PORT gets the listener's line "ok", else "timeout".
tcp_probe()
{
	local addr=$2

	[[ $addr == *:* ]] && addr="[$addr]"
	if ip netns exec "$1" timeout "$PROBE_TIMEOUT" \
		socat -t 2 -T 2 - "TCP:$addr:$3${4:+,$4}" </dev/null 2>/dev/null |
		grep -qx ok; then
		echo ok
	else
		echo timeout
	fi
}

# rule_packets NS TABLE ID: the packet counter of a rule.
rule_packets()
{
	"$TMCTL" -n "$1" rule get "$2" id "$3" |
		sed -n 's/.* packets \([0-9]*\) bytes [0-9]*$/\1/p'
}

# setup_ns VAR...: create one namespace per variable name, with a unique
# name stored in that variable, loopback up; all removed by cleanup_ns.
setup_ns()
{
	local var name

	for var in "$@"; do
		name="$var-$(mktemp -u XXXXXX)"
		ip netns add "$name" || return 1
		ip -n "$name" link set lo up || return 1
		NS_LIST+=("$name")
		printf -v "$var" '%s' "$name"
	done
}

# veth_pair NS1 NS2: veth1 in NS1 (10.0.1.1/24, fd00:1::1/64) cabled to
# veth2 in NS2 (10.0.1.2/24, fd00:1::2/64), both up.
veth_pair()
{
	ip link add veth1 netns "$1" type veth peer name veth2 netns "$2" &&
		ip -n "$1" addr add 10.0.1.1/24 dev veth1 &&
		ip -n "$2" addr add 10.0.1.2/24 dev veth2 &&
		ip -n "$1" addr add fd00:1::1/64 dev veth1 nodad &&
		ip -n "$2" addr add fd00:1::2/64 dev veth2 nodad &&
		ip -n "$1" link set veth1 up &&
		ip -n "$2" link set veth2 up
}

# memcg_new NAME: a new memory cgroup (cgroup2) for the test, its path in
# CG; false when there is none (no memory controller: logged; or mkdir
# failed: an error of the current test).  Removed by cleanup_ns.
memcg_new()
{
	local root=/sys/fs/cgroup

	grep -q "^[^ ]* $root cgroup2 " /proc/mounts ||
		mount -t cgroup2 none "$root" 2>/dev/null
	if ! grep -qw memory "$root/cgroup.controllers" 2>/dev/null; then
		log_info "no cgroup2 memory controller: memcg part skipped"
		return 1
	fi
	echo +memory >"$root/cgroup.subtree_control" 2>/dev/null
	CG=$root/tm-$1-$$
	if ! mkdir "$CG"; then
		check_err 1 "mkdir $CG"
		CG=
		return 1
	fi
	MEMCG_LIST+=("$CG")
}

# memcg_pinned CG: CG's memory.current without what it can give back.
# memory.current also counts CG's page cache (tmctl read over the 9p share)
# and the pages a CPU charged ahead for CG (up to 64 per CPU); both make
# room for more kernel objects at memory.max than memory.max minus a plain
# memory.current leaves.  memory.high 0 drains the charge ahead and
# reclaims the page cache.
memcg_pinned()
{
	echo 0 >"$1/memory.high" && echo max >"$1/memory.high"
	cat "$1/memory.current"
}

# in_memcg CG CMD...: run CMD in memory cgroup CG.
in_memcg()
{
	# shellcheck disable=SC2016 # $$ and $1 are the inner shell's
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$@"
}

# cleanup_ns: remove the namespaces (setup_ns), then the memory cgroups
# (memcg_new) of the test.
cleanup_ns()
{
	local ns cg

	for ns in "${NS_LIST[@]}"; do
		ip netns del "$ns" 2>/dev/null
	done
	NS_LIST=()
	for cg in "${MEMCG_LIST[@]}"; do
		rmdir "$cg" 2>/dev/null
	done
	MEMCG_LIST=()
}

# Tests that need more cleanup define cleanup() and call cleanup_ns in it.
cleanup()
{
	cleanup_ns
}

trap 'cleanup' EXIT
