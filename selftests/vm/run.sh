#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/vm/run.sh - run the selftests in a QEMU (TCG) VM on a Debian kernel.
#
# Owns the host side of the VM runner: resolves the kernel release, fetches
# and caches the guest kernel (apt-get download + dpkg-deb -x, never
# installed on the host) and the initramfs (busybox-static, 9p modules and
# selftests/vm/init), boots QEMU with the host root shared read-only over
# 9p plus a writable results share, streams the serial console, and judges
# the run from the TAP results and the guest's kernel log.
#
# Usage:
#   selftests/vm/run.sh [-k KVER] [-m MODULE.ko] [-c CACHEDIR]
#                       [-T TOTAL_TIMEOUT_S] [-t TEST_TIMEOUT_S]
#                       [-E NAME=VALUE]... [-A KARG]... [-e CMD] [-P]
#                       [-M MB] [TEST...]
#   selftests/vm/run.sh -L LOGFILE
#
#   -k KVER   kernel: "6.1" (default) or "6.12" (newest installed
#             /usr/src/linux-headers-<series>.*-amd64), or a full release
#             such as 6.1.0-57-amd64; "6.12-debug" or its release
#             (6.12.N-tmdebug) is the debug kernel built locally by
#             selftests/vm/debug-kernel.sh (KASAN, KFENCE, lockdep, ...),
#             booted from <repo>/build/vm-debug/<release>/kernel instead
#             of a kernel fetched from Debian
#   -m KO     module built for that kernel, insmod'ed before the tests and
#             rmmod'ed after them (default: load nothing)
#   -c DIR    cache directory (default: <repo>/build/vm, one subdirectory
#             per release; logs of the last runs in <release>/runs/)
#   -T SECS   timeout for the whole VM (default: sum of the per-test
#             timeouts from selftests/settings + margin)
#   -t SECS   timeout of each test, instead of its settings file's
#   -E N=V    set the environment variable N to V for the tests (e.g.
#             FUZZ_TIME=600 for the fuzzers); repeatable
#   -e CMD    run the bash command CMD in the guest instead of the tests,
#             with no timeout but the VM's (-T)
#   -A KARG   add KARG to the guest kernel's command line; a slub_debug=
#             one replaces the default slub_debug=FZ (e.g. slub_debug=FZP
#             to poison freed objects: a write after free is reported as
#             "Object corrupt"/"Poison overwritten"); repeatable
#   -P        performance run (benchmarks): boot without slub_debug, which
#             sends every slab allocation down its slow path
#   -M MB     the guest's memory (default 2048)
#   TEST      selftest scripts: paths, or names relative to selftests/
#             (default: every selftests/*.sh but lib*.sh)
#   -L FILE   judge FILE as a guest kernel log, as a run's is judged, and
#             exit: 1 (and the lines) when it shows a problem, else 0
#
# Exit status (kselftest): 0 pass, 1 fail, 4 everything skipped.  A run
# also fails when the guest's kernel log shows warnings, oopses, slab
# corruption, stalls, leaks etc., when the module cannot be unloaded at the
# end, or when the guest never finishes.  The last line of output is
# "N passed, N failed, N skipped".

set -u

export PATH=$PATH:/usr/local/sbin:/usr/sbin:/sbin
export LC_COLLATE=C

SELF=$(readlink -f "${BASH_SOURCE[0]}")
VMDIR=$(dirname "$SELF")
TOP=$(dirname "$(dirname "$VMDIR")")

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

DEFAULT_TIMEOUT=300
BOOT_MARGIN=120		# boot, module load/unload, power off
TEST_MARGIN=15		# per test: timeout -k, log copying
KEEP_RUNS=10

# watchdog_thresh=60 and rcu_cpu_stall_timeout=120: under TCG a vCPU is a
# host thread that the host may not run for tens of seconds (seen twice: a
# "soft lockup" of 22 s in clear_page_erms, from a user page fault, with
# every test passing).  The detectors still report a CPU stuck for 2
# minutes, which a real lockup would reach; shorter ones are the host's.
APPEND_BASE="console=ttyS0 panic=-1 quiet slub_debug=FZ watchdog_thresh=60"
APPEND_BASE+=" rcupdate.rcu_cpu_stall_timeout=120"

# Kernel log lines that make a run fail.  The debug kernel's detectors
# report as "BUG: KASAN: ...", "BUG: KFENCE: ...", "WARNING: possible
# circular locking dependency detected" (and lockdep's other WARNINGs),
# "WARNING: suspicious RCU usage", "BUG: sleeping function called from
# invalid context", "ODEBUG: ..." (then a WARNING): the first two lines
# catch them, the rest names them for the reader.  selftests/vm/selftest.sh
# checks this against selftests/vm/klog-samples.
KLOG_BAD='WARNING:|\bBUG[: ]|Oops|general protection fault|Kernel panic'
KLOG_BAD+='|rcu: INFO:|detected stall|refcount_t:|list_add corruption'
KLOG_BAD+='|list_del corruption|UBSAN:|KASAN:|Call Trace:'
KLOG_BAD+='|still has objects|unreferenced object'
KLOG_BAD+='|KFENCE:|possible circular locking|possible recursive locking'
KLOG_BAD+='|inconsistent lock state|suspicious RCU usage'
KLOG_BAD+='|sleeping function called from invalid context|ODEBUG: .*object'
KLOG_BAD+='|DEBUG_LOCKS_WARN_ON|blocked for more than|kernel BUG at'
KLOG_BAD+='|stack-protector:|corrupted stack end|slab-out-of-bounds'
KLOG_BAD+='|scheduling while atomic|to become free|ref_tracker: .* users at'

# Serial console clean-up: CRs, the firmware's banner and terminal resets
# (which the kernel's first line may follow on the same line).
CONSOLE_SED='s/\r$//
s/\x1bc/\n/g
s/\x1b\[[0-9;?]*[A-Za-z]//g
s/^\n*//
/^SeaBIOS (version /d
s/^Booting from ROM\.*\n*//
/^$/d'

msg()
{
	echo "vm: $*"
}

# Setup failure: nothing was tested.
die()
{
	echo "vm: error: $*" >&2
	echo "0 passed, 1 failed, 0 skipped"
	exit $KSFT_FAIL
}

usage()
{
	sed -n '/^# Usage:/,/^# Exit status/{/^# Exit status/d;s/^# \{0,1\}//;p}' "$SELF" >&2
	exit "$1"
}

kver=6.1
ko=
cache=
total=
cmd=
have_cmd=0
test_to=
envs=()
extra_append=

# judge_klog FILE...: the lines of the kernel logs that fail a run.
# A memory cgroup's OOM kill (its report has a Call Trace) is the cgroup
# working, not a kernel problem: priv.sh provokes one.  The report runs
# from "invoked oom-killer" to "Memory cgroup out of memory: Killed"; a
# global OOM ("Out of memory: Killed") is kept.
drop_memcg_oom()
{
	awk '/invoked oom-killer:/ { n = 0; inoom = 1 }
	     inoom { buf[n++] = $0
		     if ($0 ~ /Memory cgroup out of memory: Killed process/) {
			     inoom = 0; n = 0
		     } else if ($0 ~ /Out of memory: Killed process/) {
			     for (i = 0; i < n; i++) print buf[i]
			     inoom = 0; n = 0
		     }
		     next }
	     { print }
	     END { for (i = 0; i < n; i++) print buf[i] }'
}

judge_klog()
{
	cat "$@" 2>/dev/null | drop_memcg_oom | grep -E "$KLOG_BAD" |
		awk '!seen[$0]++'
}

while getopts "k:m:c:T:t:E:A:e:PM:L:h" opt; do
	case $opt in
	L)
		bad=$(judge_klog "$OPTARG")
		[ -z "$bad" ] && exit 0
		echo "$bad"
		exit 1
		;;
	k) kver=$OPTARG ;;
	m) ko=$OPTARG ;;
	c) cache=$OPTARG ;;
	T) total=$OPTARG ;;
	t) test_to=$OPTARG ;;
	E)
		[[ $OPTARG =~ ^[A-Z_][A-Z0-9_]*= ]] || {
			echo "vm: -E wants NAME=VALUE" >&2
			usage 2
		}
		envs+=("$OPTARG")
		;;
	A)
		[[ $OPTARG =~ ^[A-Za-z0-9_.-]+(=[][A-Za-z0-9_.,:=-]*)?$ ]] || {
			echo "vm: -A wants one kernel parameter" >&2
			usage 2
		}
		[[ $OPTARG == slub_debug=* ]] &&
			APPEND_BASE=${APPEND_BASE/ slub_debug=FZ/}
		extra_append+=" $OPTARG"
		;;
	e) cmd=$OPTARG; have_cmd=1 ;;
	P) APPEND_BASE=${APPEND_BASE/ slub_debug=FZ/} ;;
	M)
		if ! [[ $OPTARG =~ ^[0-9]+$ ]] || [ "$OPTARG" -lt 512 ]; then
			echo "vm: -M wants megabytes, at least 512" >&2
			usage 2
		fi
		mem=$OPTARG
		;;
	h) usage 0 ;;
	*) usage 2 ;;
	esac
done
shift $((OPTIND - 1))

if [ $have_cmd -eq 1 ] && [ $# -gt 0 ]; then
	echo "vm: -e and TEST... exclude each other" >&2
	usage 2
fi
if [ -n "$total" ] && ! [[ $total =~ ^[1-9][0-9]*$ ]]; then
	echo "vm: -T wants a number of seconds" >&2
	usage 2
fi
if [ -n "$test_to" ] && ! [[ $test_to =~ ^[1-9][0-9]*$ ]]; then
	echo "vm: -t wants a number of seconds" >&2
	usage 2
fi

# Paths end up on the kernel command line, in QEMU options and in vm.conf.
check_path()
{
	case $1 in
	*[[:space:],\'\"\\]*)
		die "unsupported character (blank, comma, quote) in path '$1'" ;;
	esac
}

shq()
{
	printf "'%s'" "${1//\'/\'\\\'\'}"
}

# The debug kernel's build (selftests/vm/debug-kernel.sh).
DEBUG_OUT=${TM_DEBUG_OUT:-$TOP/build/vm-debug}

# "6.1" -> newest installed 6.1.x headers' release; "6.12-debug" -> the
# locally built debug kernel's; full releases as is.
resolve_release()
{
	local want=$1 d h

	case $want in
	*.*-debug)
		h=$("$VMDIR/debug-kernel.sh" -o "$DEBUG_OUT" -r) || return
		[[ $h == "${want%-debug}".* ]] && echo "$h"
		return
		;;
	*-*)
		echo "$want"
		return
		;;
	esac
	[[ $want =~ ^[0-9]+\.[0-9]+$ ]] || return
	# "6.1.[0-9]*" cannot match 6.12.x.
	for d in /usr/src/linux-headers-"$want".[0-9]*-amd64; do
		h=$d/include/generated/utsrelease.h
		[ -r "$h" ] || continue
		sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$h"
	done | sort -V | tail -n 1
}

apt_updated=0
apt_update()
{
	[ $apt_updated -eq 0 ] || return 0
	apt_updated=1
	msg "apt-get update"
	apt-get update -qq
}

apt_opts=()
[ "$(id -u)" -ne 0 ] || apt_opts=(-o APT::Sandbox::User=root)

ensure_host_tools()
{
	local c missing=

	for c in qemu-system-x86_64 cpio depmod modprobe; do
		command -v "$c" >/dev/null || missing+=" $c"
	done
	if [ ! -x /bin/busybox ] ||
	   [ "$(dpkg-query -W -f='${db:Status-Status}' busybox-static 2>/dev/null)" != installed ]; then
		missing+=" busybox-static"
	fi
	[ -n "$missing" ] || return 0

	msg "missing:$missing; installing them"
	[ "$(id -u)" -eq 0 ] || die "need root to install:$missing"
	apt_update || die "apt-get update failed"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends qemu-system-x86 busybox-static cpio kmod ||
		die "apt-get install failed"
}

# Guest kernel: $KDIR/boot/vmlinuz-$REL and $KDIR/lib/modules/$REL.
fetch_kernel()
{
	local dl=$CDIR/dl tmp=$KDIR.tmp deb

	[ -e "$KDIR/.ok" ] && return
	rm -rf "$KDIR" "$tmp" "$dl"
	mkdir -p "$dl"
	msg "fetching linux-image-$REL"
	if ! (cd "$dl" && apt-get "${apt_opts[@]}" download "linux-image-$REL"); then
		apt_update || die "apt-get update failed"
		(cd "$dl" && apt-get "${apt_opts[@]}" download "linux-image-$REL") ||
			die "cannot download linux-image-$REL"
	fi
	deb=$(find "$dl" -maxdepth 1 -name "linux-image-*.deb" | head -n 1)
	[ -n "$deb" ] || die "apt-get download left no .deb"
	dpkg-deb -x "$deb" "$tmp" || die "dpkg-deb -x $deb failed"
	if [ ! -d "$tmp/lib/modules/$REL" ] && [ -d "$tmp/usr/lib/modules/$REL" ]; then
		ln -s usr/lib "$tmp/lib"
	fi
	[ -f "$tmp/boot/vmlinuz-$REL" ] || die "no boot/vmlinuz-$REL in $deb"
	[ -d "$tmp/lib/modules/$REL" ] || die "no lib/modules/$REL in $deb"
	depmod -b "$tmp" "$REL" || die "depmod failed"
	mv "$tmp" "$KDIR" || die "cannot move $tmp"
	touch "$KDIR/.ok"
	rm -rf "$dl"
}

decompress_ko()
{
	local src=$1 dst=$2

	case $src in
	*.ko)
		cp "$src" "$dst" ;;
	*.ko.xz)
		if command -v xz >/dev/null; then
			xz -dc "$src" >"$dst"
		else
			busybox unxz -c "$src" >"$dst"
		fi
		;;
	*.ko.zst)
		zstd -qdc "$src" >"$dst" ;;
	*.ko.gz)
		gzip -dc "$src" >"$dst" ;;
	*)
		false ;;
	esac
}

# Rebuilt when one of its inputs is newer than it.
build_initramfs()
{
	local cpio=$CDIR/initramfs.cpio stage=$CDIR/initramfs.d
	local deps m kind path name n=0 builtin=0 f stale=0
	local -A seen=()

	if [ -s "$cpio" ]; then
		for f in "$VMDIR/init" "$SELF" /bin/busybox "$KDIR/.ok"; do
			[ "$f" -nt "$cpio" ] && stale=1
		done
		[ $stale -eq 1 ] || return 0
	fi
	msg "building initramfs for $REL"

	deps=
	for m in 9p 9pnet_virtio virtio_pci; do
		deps+=$(modprobe -d "$KDIR" -S "$REL" --show-depends "$m") ||
			die "modprobe --show-depends $m failed"
		deps+=$'\n'
	done

	rm -rf "$stage"
	mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,mods} \
		"$stage"/{newroot,hosttmp,results} || die "mkdir $stage failed"
	cp /bin/busybox "$stage/bin/busybox" || die "cannot copy busybox"
	install -m 755 "$VMDIR/init" "$stage/init" || die "cannot copy init"

	while read -r kind path _; do
		# "builtin NAME" lines: nothing to load
		if [ "$kind" = builtin ]; then
			builtin=$((builtin + 1))
			continue
		fi
		[ "$kind" = insmod ] || continue
		name=$(basename "$path")
		name=${name%%.ko*}
		[ -z "${seen[$name]:-}" ] || continue
		seen[$name]=1
		n=$((n + 1))
		decompress_ko "$path" "$stage/mods/$(printf %02d $n)-$name.ko" ||
			die "cannot unpack $path"
	done <<<"$deps"
	[ $((n + builtin)) -gt 0 ] || die "no 9p modules found for $REL"

	(cd "$stage" && find . -mindepth 1 | sort |
		cpio -o -H newc -R 0:0 --quiet) >"$cpio.tmp" ||
		die "cpio failed"
	mv "$cpio.tmp" "$cpio"
	rm -rf "$stage"
}

test_timeout()
{
	local f t

	for f in "$(dirname "$1")/settings" "$TOP/selftests/settings"; do
		[ -r "$f" ] || continue
		t=$(sed -n 's/^timeout=\([0-9]\+\)[[:space:]]*$/\1/p' "$f" | tail -n 1)
		if [ -n "$t" ]; then
			echo "$t"
			return
		fi
	done
	echo "$DEFAULT_TIMEOUT"
}

# Guest paths under /tmp are hidden by the guest's tmpfs unless exposed.
expose=()
expose_path()
{
	local p=$1

	[ "$(dirname "$p")" = /tmp ] || p=$(dirname "$p")
	[ -d "$1" ] && p=$1
	case $p in
	/tmp/*) expose+=("$p") ;;
	esac
}

# --- resolve what to run ------------------------------------------------

REL=$(resolve_release "$kver")
if [ -z "$REL" ] && [[ $kver == *-debug ]]; then
	die "no debug kernel for '$kver' in $DEBUG_OUT: build it with 'make vm-debug-kernel'"
fi
[ -n "$REL" ] || die "no kernel release for '$kver' (no /usr/src/linux-headers-$kver.*-amd64?)"
[[ $REL =~ ^[0-9A-Za-z.+~_-]+$ ]] || die "bad kernel release '$REL'"

[ -n "$cache" ] || cache=$TOP/build/vm
mkdir -p "$cache" || die "cannot create $cache"
cache=$(readlink -f "$cache")
CDIR=$cache/$REL
KDIR=$CDIR/kernel
# A kernel built here (the debug kernel) is booted from its build, not
# fetched from Debian.
local_kernel=0
case $REL in
*-tmdebug)
	local_kernel=1
	KDIR=$DEBUG_OUT/$REL/kernel
	# Every KASAN report, not only the first.
	APPEND_BASE+=" kasan_multi_shot"
	[ -e "$KDIR/.ok" ] ||
		die "no debug kernel $REL in $KDIR: build it with 'make vm-debug-kernel'"
	;;
esac
check_path "$CDIR"
check_path "$TOP"

if [ -n "$ko" ]; then
	[ -f "$ko" ] || die "no module $ko"
	ko=$(readlink -f "$ko")
	check_path "$ko"
	vermagic=$(modinfo -F vermagic "$ko" 2>/dev/null)
	[ "${vermagic%% *}" = "$REL" ] ||
		die "$ko is built for '${vermagic%% *}', not $REL"
	expose_path "$ko"
fi

expose_path "$TOP"

tests=()
if [ $have_cmd -eq 0 ]; then
	if [ $# -eq 0 ]; then
		for f in "$TOP"/selftests/*.sh; do
			[ -f "$f" ] && [[ "${f##*/}" != lib*.sh ]] && tests+=("$f")
		done
	fi
	for t in "$@"; do
		if [ -f "$t" ]; then
			tests+=("$(readlink -f "$t")")
		elif [ -f "$TOP/selftests/$t" ]; then
			tests+=("$(readlink -f "$TOP/selftests/$t")")
		else
			die "no test '$t' (neither a file nor in $TOP/selftests)"
		fi
	done
fi

# --- cache: host tools, guest kernel, initramfs --------------------------

ensure_host_tools
# Mount point for the guest kernel's modules in the shared host root.
if [ ! -d /lib/modules ]; then
	mkdir -p /lib/modules 2>/dev/null || die "/lib/modules is missing on the host"
fi
mkdir -p "$CDIR" || die "cannot create $CDIR"
exec {lockfd}>"$CDIR/.lock"
flock "$lockfd"
[ $local_kernel -eq 1 ] || fetch_kernel
build_initramfs
flock -u "$lockfd"

# --- per-run results share --------------------------------------------------

# Keep the logs of the last runs; a run holds a lock on its .lock while it
# is going on, so that a concurrent run does not delete its directory.
prune_runs()
{
	local old=("$CDIR"/runs/*/) d n

	[ -d "${old[0]}" ] || return 0
	n=$((${#old[@]} - KEEP_RUNS + 1))
	[ $n -gt 0 ] || return 0
	for d in "${old[@]:0:n}"; do
		if [ -e "$d/.lock" ] && ! flock -n "$d/.lock" true; then
			continue
		fi
		rm -rf "$d"
	done
}

mkdir -p "$CDIR/runs"
prune_runs
RUN=$(mktemp -d "$CDIR/runs/$(date +%Y%m%d-%H%M%S).XXXXXX") ||
	die "cannot create a run directory"
chmod 755 "$RUN"
exec {runlockfd}>"$RUN/.lock"
flock "$runlockfd"

if [ $have_cmd -eq 1 ]; then
	printf '%s\n' "$cmd" >"$RUN/cmd.sh"
	# No limit of its own: the VM's (-T, else an hour) bounds it.
	echo timeout=0 >"$RUN/settings"
	tests=("$RUN/cmd.sh")
fi

: >"$RUN/tests"
sum=0
for t in "${tests[@]}"; do
	check_path "$t"
	[ "$t" = "$RUN/cmd.sh" ] || expose_path "$t"
	case $t in
	"$RUN/cmd.sh") name=cmd ;;
	"$TOP/selftests/"*) name=${t#"$TOP/selftests/"} ;;
	*) name=$(basename "$t") ;;
	esac
	printf '%s\t%s\n' "$t" "$name" >>"$RUN/tests"
	tt=${test_to:-$(test_timeout "$t")}
	[ "$tt" -gt 0 ] || tt=3600
	sum=$((sum + tt + TEST_MARGIN))
done
[ -n "$total" ] || total=$((BOOT_MARGIN + sum))

{
	echo "TM_TOP=$(shq "$TOP")"
	echo "TM_KO=$(shq "$ko")"
	echo "TM_MODDIR=$(shq "$KDIR/lib/modules")"
	echo "TM_GUEST=$(shq "$VMDIR/guest.sh")"
	echo "TM_EXPOSE=$(shq "${expose[*]}")"
	echo "TM_TIMEOUT=$(shq "$test_to")"
	for e in "${envs[@]}"; do
		echo "export ${e%%=*}=$(shq "${e#*=}")"
	done
} >"$RUN/vm.conf"

# --- boot --------------------------------------------------------------------

qemu=(
	qemu-system-x86_64
	-accel "tcg,thread=multi" -cpu max -smp 2 -m "${mem:-2048}"
	-nographic -no-reboot -nic none
	-kernel "$KDIR/boot/vmlinuz-$REL"
	-initrd "$CDIR/initramfs.cpio"
	-append "$APPEND_BASE$extra_append tm.run=$RUN"
	-virtfs "local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap"
	-virtfs "local,path=$RUN,mount_tag=results,security_model=none"
)

msg "booting $REL (${#tests[@]} test(s), timeout ${total}s, logs in $RUN)"
# The VM runs in the background so that a signal to this script stops it
# at once (the trap forwards it to timeout(1), which forwards it to QEMU).
interrupted=0
stop_vm()
{
	interrupted=1
	[ -s "$RUN/.vm.pid" ] && kill -TERM "$(cat "$RUN/.vm.pid")" 2>/dev/null
}

t0=$(date +%s%N)
{
	(
		echo "$BASHPID" >"$RUN/.vm.pid"
		exec timeout --foreground -k 10 "$total" "${qemu[@]}"
	) </dev/null 2>&1
	echo $? >"$RUN/.vm.status"
} | sed -u -e "$CONSOLE_SED" | tee "$RUN/console.log" &
pipe_pid=$!
trap stop_vm INT TERM HUP
while ! wait "$pipe_pid" && kill -0 "$pipe_pid" 2>/dev/null; do
	:	# interrupted by a signal: wait for the VM to stop
done
trap - INT TERM HUP
qrc=
[ -s "$RUN/.vm.status" ] && read -r qrc <"$RUN/.vm.status"
rm -f "$RUN/.vm.pid" "$RUN/.vm.status"
t1=$(date +%s%N)
elapsed=$(((t1 - t0) / 1000000))
msg "$REL: VM ran $((elapsed / 1000)).$(printf %03d $((elapsed % 1000))) s"

# --- verdict -------------------------------------------------------------------

failures=()

pass=0
fail=0
skip=0
if [ -f "$RUN/tap" ]; then
	pass=$(grep -c '^ok ' "$RUN/tap")
	skip=$(grep -c '^ok .* # SKIP' "$RUN/tap")
	fail=$(grep -c '^not ok ' "$RUN/tap")
	pass=$((pass - skip))
fi

if [ -s "$RUN/harness" ]; then
	while read -r line; do
		failures+=("$line")
	done <"$RUN/harness"
fi

guest_rc=
[ -s "$RUN/exitcode" ] && read -r guest_rc <"$RUN/exitcode"
if [ -z "$guest_rc" ]; then
	if [ $interrupted -eq 1 ]; then
		why="interrupted"
	elif [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
		why="timed out after ${total}s"
	elif grep -q 'Kernel panic' "$RUN/console.log"; then
		why="the guest kernel panicked"
	elif [ -s "$RUN/init-error" ]; then
		why="init failed: $(head -n 1 "$RUN/init-error")"
	else
		why="qemu exited with status ${qrc:-unknown}"
	fi
	done_tests=$((pass + fail + skip))
	failures+=("guest never wrote its exit marker ($why) after $done_tests of ${#tests[@]} test(s)")
elif [ "$guest_rc" = "$KSFT_FAIL" ] && [ "$fail" -eq 0 ] && [ ${#failures[@]} -eq 0 ]; then
	failures+=("guest reported failure")
fi

# Kernel messages: the guest's log follower and, for what happened after
# it stopped (panic), the kernel lines of the console.
klog_bad=$(judge_klog "$RUN/dmesg" \
	<(grep -E '^\[ *[0-9]+\.[0-9]+\] ' "$RUN/console.log"))
if [ -n "$klog_bad" ]; then
	failures+=("kernel log shows problems:")
fi

for f in "${failures[@]}"; do
	msg "FAIL: $f"
done
if [ -n "$klog_bad" ]; then
	head -n 100 <<<"$klog_bad" | while IFS= read -r line; do
		echo "vm:   $line"
	done
	msg "full kernel log: $RUN/dmesg"
fi

fail=$((fail + ${#failures[@]}))
if [ "$fail" -gt 0 ]; then
	rc=$KSFT_FAIL
elif [ "$pass" -eq 0 ]; then
	rc=$KSFT_SKIP
else
	rc=$KSFT_PASS
fi

echo "$pass passed, $fail failed, $skip skipped"
exit $rc
