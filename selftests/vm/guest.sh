#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/vm/guest.sh - test driver inside the test VM.
#
# Started by selftests/vm/init, chrooted into the read-only host root, as
#	guest.sh RUNDIR
# where RUNDIR is the writable results share (same path as on the host)
# holding vm.conf (TM_TOP, TM_KO) and "tests" (one "path<TAB>name" a line).
#
# Owns what happens in the guest: exports the test environment, loads the
# module, runs each test with its timeout and prints KTAP/TAP, unloads the
# module, and leaves in RUNDIR: tap (result lines), harness (failures that
# are not test results), logs/, dmesg (the whole kernel log) and, last of
# all, exitcode (the exit marker: 0 pass, 1 fail, 4 skip).

set -u

RUN=${1:?usage: guest.sh RUNDIR}

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp
export LANG=C.UTF-8
export TERM=${TERM:-dumb}

TM_TOP=
TM_KO=
TM_TIMEOUT=
# shellcheck source=/dev/null
. "$RUN/vm.conf"

# -E TMCTL=PATH runs another tmctl (make check: the packaged one).
TMCTL=${TMCTL:-$TM_TOP/tools/tmctl/tmctl}
KVER=$(uname -r)
TM_RESULTS=$RUN
export TM_KO TM_TOP TMCTL KVER TM_RESULTS

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4
DEFAULT_TIMEOUT=300

logdir=/run/tm-vm/logs
mkdir -p "$logdir" "$RUN/logs"
: >"$RUN/tap"
: >"$RUN/harness"

# Follow the kernel log from the start of the ring buffer into the share,
# so that it survives a later crash and early messages are not overwritten.
stdbuf -oL dmesg --follow >"$RUN/dmesg" 2>&1 &
dmesg_pid=$!

result()
{
	echo "$1"
	echo "$1" >>"$RUN/tap"
}

harness_fail()
{
	echo "# FAIL: $1"
	echo "$1" >>"$RUN/harness"
}

# Run a command, its output as TAP diagnostics; returns its status.
run_quoted()
{
	local out rc

	out=$("$@" 2>&1)
	rc=$?
	[ -z "$out" ] || printf '%s\n' "$out" | sed -e 's/^/# /'
	return $rc
}

# kselftest-style settings: "timeout=N" in the test's directory, else in
# selftests/; 0 means no timeout.  run.sh -t overrides them (TM_TIMEOUT).
test_timeout()
{
	local f t

	if [ -n "$TM_TIMEOUT" ]; then
		echo "$TM_TIMEOUT"
		return
	fi
	for f in "$(dirname "$1")/settings" "$TM_TOP/selftests/settings"; do
		[ -r "$f" ] || continue
		t=$(sed -n 's/^timeout=\([0-9]\+\)[[:space:]]*$/\1/p' "$f" | tail -n 1)
		if [ -n "$t" ]; then
			echo "$t"
			return
		fi
	done
	echo "$DEFAULT_TIMEOUT"
}

run_test()
{
	local num=$1 path=$2 name=$3
	local log t pid rc t0

	t=$(test_timeout "$path")
	t0=$SECONDS
	log=$logdir/$(printf %02d "$num")-${name//\//_}.log
	: >"$log"

	# timeout(1) puts the test in a process group of its own: kill what
	# it leaves behind once it is done so nothing holds the module.
	timeout -k 10 "$t" bash "$path" </dev/null >>"$log" 2>&1 &
	pid=$!
	tail -n +1 -s 0.2 --pid="$pid" -f "$log" | sed -u 's/^/# /'
	wait "$pid"
	rc=$?
	kill -KILL -- "-$pid" 2>/dev/null
	cp "$log" "$RUN/logs/" 2>/dev/null
	# What each test costs, for keeping make check's budget.
	echo "# $name: $((SECONDS - t0)) s"

	case $rc in
	"$KSFT_PASS")
		result "ok $num $name" ;;
	"$KSFT_SKIP")
		result "ok $num $name # SKIP" ;;
	124 | 137)
		result "not ok $num $name # TIMEOUT $t seconds" ;;
	*)
		result "not ok $num $name # exit=$rc" ;;
	esac
}

tests=()
names=()
while IFS=$'\t' read -r path name; do
	[ -n "$path" ] || continue
	tests+=("$path")
	names+=("${name:-$(basename "$path")}")
done <"$RUN/tests"
ntests=${#tests[@]}

echo "# guest: kernel $KVER, up $(cut -d ' ' -f 1 /proc/uptime) s"
echo "TAP version 13"
echo "1..$ntests"

modname=
insmod_ok=1
if [ -n "$TM_KO" ]; then
	modname=$(basename "$TM_KO" .ko)
	modname=${modname//-/_}
	# The kernel modules it needs (nf_reject_*), from the guest's tree.
	for dep in $(modinfo -F depends "$TM_KO" | tr , ' '); do
		echo "# modprobe $dep"
		run_quoted modprobe "$dep" || insmod_ok=0
	done
	echo "# insmod $TM_KO"
	if [ $insmod_ok -eq 0 ] || ! run_quoted insmod "$TM_KO"; then
		insmod_ok=0
	fi
	if [ $insmod_ok -eq 0 ] && [ "$ntests" -eq 0 ]; then
		harness_fail "insmod $TM_KO failed"
	fi
fi

# QEMU's TCG and the kernel's text patching: a static key that flips
# while the other vCPU runs the code it patches can leave that vCPU on a
# stale translation holding the temporary int3, which oopses ("Oops: int3"
# in ip_rcv() or a softirq, nothing of ours on the stack; twice on 6.12,
# in module_reload.sh).  Tracing jump_label_update() over the first tests
# showed the keys that flip: netfilter's per-hook keys, as tables and nft
# chains come and go, and netstamp_needed_key (ping's SO_TIMESTAMP).  A
# namespace of the harness holds them all on for the whole run, as any
# machine with a firewall and a timestamping socket does: the tests still
# register and unregister every hook of theirs, only the kernel's text
# stays put.
hold_static_keys()
{
	local ns=tm-vm-hold fam hook

	ip netns add "$ns" || return 1
	ip -n "$ns" link set lo up
	{
		for fam in ip ip6; do
			echo "table $fam hold {"
			for hook in prerouting input forward output postrouting; do
				echo "chain $hook { type filter hook $hook priority 0; }"
			done
			echo "}"
		done
	} | ip netns exec "$ns" nft -f - || return 1
	ip netns exec "$ns" nft -f - <<-'EOF' 2>/dev/null
	table netdev hold {
		chain in { type filter hook ingress device lo priority 0; }
		chain out { type filter hook egress device lo priority 0; }
	}
	EOF
	# SO_TIMESTAMP (29), kept by a process outside the tests' groups.
	ip netns exec "$ns" setsid python3 -c '
import signal, socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 29, 1)
signal.pause()' </dev/null >/dev/null 2>&1 &
}

hold_static_keys || harness_fail "cannot hold the kernel's static keys on"

cd "$TM_TOP/selftests" || harness_fail "cannot cd to $TM_TOP/selftests"

for ((i = 0; i < ntests; i++)); do
	if [ $insmod_ok -eq 0 ]; then
		result "not ok $((i + 1)) ${names[i]} # insmod failed"
		continue
	fi
	run_test "$((i + 1))" "${tests[i]}" "${names[i]}"
done

# A test that leaks a module reference is a bug: unloading must work.
if [ -n "$modname" ] && [ -d "/sys/module/$modname" ]; then
	if ! run_quoted rmmod "$modname"; then
		harness_fail "rmmod $modname failed (refcnt $(cat "/sys/module/$modname/refcnt" 2>/dev/null))"
	fi
fi

pass=$(grep -c '^ok ' "$RUN/tap")
skip=$(grep -c '^ok .* # SKIP' "$RUN/tap")
fail=$(grep -c '^not ok ' "$RUN/tap")
pass=$((pass - skip))
nharness=$(grep -c . "$RUN/harness")

if [ "$fail" -gt 0 ] || [ "$nharness" -gt 0 ]; then
	rc=$KSFT_FAIL
elif [ "$pass" -eq 0 ]; then
	rc=$KSFT_SKIP
else
	rc=$KSFT_PASS
fi

# Let the log follower catch up, then stop it.
sleep 0.5
kill "$dmesg_pid" 2>/dev/null
wait "$dmesg_pid" 2>/dev/null

echo "# guest: $pass passed, $fail failed, $skip skipped, exit $rc"
echo "$pass $fail $skip" >"$RUN/counts"
sync
echo "$rc" >"$RUN/exitcode"
exit "$rc"
