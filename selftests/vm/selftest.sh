#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/vm/selftest.sh - the VM runner's own test.
#
# A runner that passes broken code proves nothing.  This builds the module
# twice more with a fault injected (kmod/Kbuild: TM_FAULT) and checks that
# run.sh fails on each, for the right reason, while the same test passes
# with the real module:
#
#   warn_init   a WARN() in module init: the run fails on the kernel log
#   leak_netns  tables of a dying namespace are never freed: the slab cache
#               still has objects when the module is unloaded
#
# First, without a VM, the log check itself: every "bad:" line of
# selftests/vm/klog-samples (the reports of KASAN, KFENCE, lockdep, RCU,
# DEBUG_ATOMIC_SLEEP, DEBUG_OBJECTS, ...) must fail a run, no "good:" line
# may.
#
# On the debug kernel (KVER 6.12-debug), also selftests/vm/probe/tm_probe.ko,
# loaded with each of its bugs, must fail the run on its detector's report:
# KASAN, KFENCE, lockdep, DEBUG_ATOMIC_SLEEP, PROVE_RCU.
#
# Usage: selftests/vm/selftest.sh [KVER]      (default 6.1)

set -u

VMDIR=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
TOP=$(dirname "$(dirname "$VMDIR")")
KVER=${1:-6.1}
TEST=netns_state.sh
passed=0
failed=0

krel=$(make -s --no-print-directory -C "$TOP" krel-"$KVER")
if [ -z "$krel" ]; then
	echo "selftest: no kernel headers for $KVER (run make deps)"
	exit 1
fi

report()
{
	if [ "$1" -eq 0 ]; then
		echo "ok - $2"
		passed=$((passed + 1))
	else
		echo "not ok - $2"
		failed=$((failed + 1))
	fi
}

# build FAULT: the module with FAULT injected ("" for none); prints its path.
build()
{
	local dir=$TOP/build/selftest-${1:-none}

	make -s --no-print-directory -C "$TOP" module-"$KVER" MODBUILD="$dir" \
		${1:+TM_FAULT=$1} >&2 || return 1
	echo "$dir/$krel/kmod/tuplemerge.ko"
}

# expect FAULT WANT_RC PATTERN: run the test with that module.
expect()
{
	local fault=$1 want=$2 pattern=$3 ko out rc

	ko=$(build "$fault") || {
		report 1 "${fault:-real module}: build"
		return
	}
	out=$("$VMDIR/run.sh" -k "$krel" -m "$ko" "$TEST" 2>&1)
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "$out" | tail -n 20 | sed 's/^/#   /'
		report 1 "${fault:-real module}: run.sh exit $rc, want $want"
		return
	fi
	if [ -n "$pattern" ] && ! grep -qE "$pattern" <<<"$out"; then
		echo "$out" | tail -n 20 | sed 's/^/#   /'
		report 1 "${fault:-real module}: no \"$pattern\" in the output"
		return
	fi
	report 0 "${fault:-real module}: run.sh exit $rc${pattern:+, reports \"$pattern\"}"
}

# klog_samples: run.sh -L on each sample line.
klog_samples()
{
	local line kind want n=0 bad=0 tmp

	tmp=$(mktemp)
	while IFS= read -r line; do
		case $line in
		bad:\ *) kind=bad want=1 ;;
		good:\ *) kind=good want=0 ;;
		*) continue ;;
		esac
		printf '%s\n' "${line#*: }" >"$tmp"
		"$VMDIR/run.sh" -L "$tmp" >/dev/null
		if [ $? -ne "$want" ]; then
			echo "#   $kind line judged wrong: ${line#*: }"
			bad=$((bad + 1))
		fi
		n=$((n + 1))
	done <"$VMDIR/klog-samples"
	rm -f "$tmp"
	report "$bad" "log check: $n sample lines of klog-samples judged right"
}

# probe BUG PATTERN: tm_probe.ko bug=BUG must fail the run with PATTERN.
probe()
{
	local bug=$1 pattern=$2 out rc

	out=$("$VMDIR/run.sh" -k "$krel" -T 300 \
		-e "insmod $probe_ko bug=$bug; rmmod tm_probe" 2>&1)
	rc=$?
	if [ "$rc" -ne 1 ] || ! grep -qE "$pattern" <<<"$out"; then
		echo "$out" | tail -n 20 | sed 's/^/#   /'
		report 1 "tm_probe bug=$bug: run.sh exit $rc, want 1 and \"$pattern\""
		return
	fi
	report 0 "tm_probe bug=$bug: run.sh exit 1, reports \"$pattern\""
}

klog_samples
echo "# VM runner self-test on $krel with $TEST"
case $KVER in
*-debug)
	probe_dir=$TOP/build/probe-$krel
	mkdir -p "$probe_dir"
	cp -asf "$VMDIR"/probe/* "$probe_dir"/
	probe_ko=$probe_dir/tm_probe.ko
	if make -s -C "$TOP/build/vm-debug/obj" M="$probe_dir" modules >&2; then
		probe kasan "BUG: KASAN: slab-out-of-bounds in tm_probe_kasan"
		probe kfence "BUG: KFENCE: use-after-free read in tm_probe_kfence"
		probe lockdep "WARNING: possible circular locking dependency"
		probe atomic_sleep "BUG: sleeping function called from invalid context"
		probe rcu "WARNING: suspicious RCU usage"
	else
		report 1 "tm_probe: build against the debug kernel"
	fi
	;;
esac
# TM_SELFTEST_FAULTS_ONLY=1 (make check, right after the suites passed
# with the real module): only the modules broken on purpose.
[ "${TM_SELFTEST_FAULTS_ONLY:-0}" = 1 ] || expect "" 0 ""
expect warn_init 1 "WARNING: .*main\\.c:[0-9]+ tm_init"
expect leak_netns 1 "still has objects|Objects remaining"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
