#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/vm/debug-kernel.sh - build the debug guest kernel of the VM runner.
#
# Builds Debian's linux-source-6.12 (the package, installed by
# `tools/deps.sh debug-kernel`) with KASAN, KFENCE, lockdep (PROVE_LOCKING,
# PROVE_RCU), DEBUG_ATOMIC_SLEEP, DEBUG_OBJECTS, DEBUG_LIST, DEBUG_NET, ...
# from a minimal configuration: `make allnoconfig` plus
# selftests/vm/debug.config.  Everything stays under OUT (default
# <repo>/build/vm-debug):
#
#   OUT/src/           the unpacked source (once per source version)
#   OUT/obj/           the object tree (make O=), the KDIR modules build against
#   OUT/REL/kernel/    what the runner boots: boot/vmlinuz-REL and
#                      lib/modules/REL (modules_install, depmod), .ok when whole
#
# REL is the kernel release, e.g. 6.12.117-tmdebug.  The configuration is
# made again only when debug.config or the source changes; make rebuilds
# what that changes.  The build is resumable: with -l LOCK it runs in
# chunks of at most -t seconds, each holding the lock file LOCK (flock), so
# that on a shared machine other jobs get their turn between chunks.
#
# Usage:
#   selftests/vm/debug-kernel.sh [-o OUT] [-l LOCK] [-t CHUNK_S] [-j JOBS] [-r]
#
#   -r   print the release of the built kernel and exit (nothing is built;
#        exit 1 if there is none)
#
# Prints the release as its last line.

set -u

SELF=$(readlink -f "${BASH_SOURCE[0]}")
VMDIR=$(dirname "$SELF")
TOP=$(dirname "$(dirname "$VMDIR")")
FRAGMENT=$VMDIR/debug.config
TARBALL=/usr/src/linux-source-6.12.tar.xz

out=$TOP/build/vm-debug
lock=
chunk=900
jobs=$(nproc)
print_only=0

die()
{
	echo "debug-kernel: error: $*" >&2
	exit 1
}

msg()
{
	echo "debug-kernel: $*" >&2
}

while getopts "o:l:t:j:rh" opt; do
	case $opt in
	o) out=$OPTARG ;;
	l) lock=$OPTARG ;;
	t) chunk=$OPTARG ;;
	j) jobs=$OPTARG ;;
	r) print_only=1 ;;
	h) sed -n '/^# Usage:/,/^# Prints/{s/^# \{0,1\}//;p}' "$SELF"; exit 0 ;;
	*) exit 2 ;;
	esac
done
[[ $chunk =~ ^[1-9][0-9]*$ ]] || die "-t wants seconds"
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "-j wants a number"

mkdir -p "$out" || die "cannot create $out"
out=$(readlink -f "$out")
src=$out/src
obj=$out/obj

release()
{
	sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' \
		"$obj/include/generated/utsrelease.h" 2>/dev/null
}

if [ $print_only -eq 1 ]; then
	rel=$(release)
	[ -n "$rel" ] && [ -e "$out/$rel/kernel/.ok" ] || exit 1
	echo "$rel"
	exit 0
fi

# Runs "$@", in chunks under the lock when there is one: a chunk that times
# out is started again (make carries on where it stopped).
chunked()
{
	local rc n=0

	if [ -z "$lock" ]; then
		"$@"
		return
	fi
	while :; do
		n=$((n + 1))
		msg "chunk $n (at most ${chunk}s, under $lock): $*"
		flock "$lock" timeout --foreground -k 30 "$chunk" "$@"
		rc=$?
		[ "$rc" -eq 124 ] || return "$rc"
	done
}

# Runs "$@" once under the lock, if any (for short steps that cannot resume).
locked()
{
	if [ -n "$lock" ]; then
		flock "$lock" "$@"
	else
		"$@"
	fi
}

t0=$(date +%s)

# --- source -------------------------------------------------------------
[ -r "$TARBALL" ] ||
	die "$TARBALL missing: run 'bash tools/deps.sh debug-kernel'"
stamp=$(stat -c '%s %Y' "$TARBALL")
if [ "$(cat "$src/.tm-unpacked" 2>/dev/null)" != "$stamp" ]; then
	msg "unpacking $TARBALL"
	rm -rf "$src" "$src.tmp" "$obj"
	mkdir -p "$src.tmp" || die "mkdir $src.tmp"
	locked tar -xJf "$TARBALL" -C "$src.tmp" --strip-components=1 ||
		die "cannot unpack $TARBALL"
	echo "$stamp" >"$src.tmp/.tm-unpacked"
	mv "$src.tmp" "$src" || die "cannot move $src.tmp"
fi

# --- configuration: allnoconfig + debug.config, checked ------------------
kmake=(make -C "$src" O="$obj" ARCH=x86_64 -j"$jobs")
want=$(sha256sum "$FRAGMENT" "$src/.tm-unpacked" | sha256sum | cut -d ' ' -f 1)
if [ "$(cat "$obj/.tm-config" 2>/dev/null)" != "$want" ] ||
   [ ! -f "$obj/.config" ]; then
	msg "configuring: allnoconfig + ${FRAGMENT#"$TOP"/}"
	mkdir -p "$obj" || die "mkdir $obj"
	rm -f "$obj/.tm-config"
	# Seconds of CPU: not worth a turn of the lock.
	"${kmake[@]}" -s allnoconfig >/dev/null || die "allnoconfig failed"
	(cd "$src" && ARCH=x86_64 scripts/kconfig/merge_config.sh -m \
		-O "$obj" "$obj/.config" "$FRAGMENT" >/dev/null) ||
		die "merge_config.sh failed"
	"${kmake[@]}" -s olddefconfig >/dev/null || die "olddefconfig failed"
	# Every option asked for must have made it (a dependency missing
	# from the fragment drops it silently otherwise).
	lost=
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) ;;
		'# CONFIG_'*' is not set')
			sym=${line#\# }
			sym=${sym%% *}
			grep -q "^$sym=" "$obj/.config" && lost+=" $line"
			continue
			;;
		*) continue ;;
		esac
		grep -qxF "$line" "$obj/.config" || lost+=" $line"
	done <"$FRAGMENT"
	[ -z "$lost" ] || die "options lost by olddefconfig:$lost"
	echo "$want" >"$obj/.tm-config"
fi

# --- build ----------------------------------------------------------------
msg "building in $obj (-j$jobs)"
chunked "${kmake[@]}" -s bzImage modules || die "kernel build failed"
rel=$(release)
[ -n "$rel" ] || die "no release in $obj/include/generated/utsrelease.h"

# --- install what the runner boots --------------------------------------
kdir=$out/$rel/kernel
image=$obj/arch/x86/boot/bzImage
if [ ! -e "$kdir/.ok" ] || [ "$image" -nt "$kdir/.ok" ] ||
   [ "$obj/.config" -nt "$kdir/.ok" ]; then
	msg "installing $rel into ${kdir#"$TOP"/}"
	rm -rf "$kdir" "$kdir.tmp"
	mkdir -p "$kdir.tmp/boot" || die "mkdir $kdir.tmp"
	cp "$image" "$kdir.tmp/boot/vmlinuz-$rel" || die "cannot copy bzImage"
	cp "$obj/.config" "$kdir.tmp/boot/config-$rel"
	cp "$obj/System.map" "$kdir.tmp/boot/System.map-$rel"
	"${kmake[@]}" -s INSTALL_MOD_PATH="$kdir.tmp" DEPMOD=true \
		modules_install >/dev/null || die "modules_install failed"
	rm -f "$kdir.tmp/lib/modules/$rel/build" "$kdir.tmp/lib/modules/$rel/source"
	depmod -b "$kdir.tmp" "$rel" || die "depmod failed"
	mv "$kdir.tmp" "$kdir" || die "cannot move $kdir.tmp"
	touch "$kdir/.ok"
fi
msg "kernel $rel ready after $(($(date +%s) - t0)) s"
echo "$rel"
