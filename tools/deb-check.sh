#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/deb-check.sh DEBDIR VERSION KDIR...: check the packages `make deb`
# built in DEBDIR: one version everywhere (debian/changelog, dkms.conf,
# the packages, tmctl -V, the module's modinfo), lintian without errors,
# the files each package must hold, tuplemerge.service and
# tuplemerge-metrics.service and .timer (systemd-analyze verify clean,
# neither enabled nor started by the maintainer scripts) and
# /etc/tuplemerge.conf (a conffile that the packaged tmctl parses), and a
# DKMS build of the packaged module source for each kernel header tree
# KDIR, in a private DKMS tree (nothing is installed on the machine).

set -u
debdir=$1 version=$2
shift 2
fail=0 checks=0

check()
{
	checks=$((checks + 1))
	if [ "$1" != 0 ]; then
		echo "deb-check: FAIL: $2"
		fail=$((fail + 1))
	fi
}

top=$(cd "$(dirname "$0")/.." && pwd)
changelog=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
[ "$changelog" = "$version" ]
check $? "debian/changelog says $changelog, dkms.conf $version"

dkms_deb=$debdir/tuplemerge-dkms_${version}_all.deb
tools_debs=("$debdir"/tuplemerge-tools_"${version}"_*.deb)
tools_deb=${tools_debs[0]}
[ -f "$dkms_deb" ] && [ -f "$tools_deb" ]
check $? "packages missing in $debdir: $(ls "$debdir")"
[ "$fail" = 0 ] || { echo "deb-check: $checks checks, $fail failed"; exit 1; }

out=$(lintian --fail-on error "$debdir"/*.changes 2>&1)
check $? "lintian reports errors: $out"
[ -n "$out" ] && printf 'lintian: %s\n' "$out" | head -20

# The files each package must hold.
contents()
{
	dpkg-deb -c "$1" | awk '{ print $6 }' | sed 's|^\./|/|'
}
for f in /usr/sbin/tmctl /usr/share/man/man8/tmctl.8.gz \
	 /usr/share/man/man5/tmctl-json.5.gz \
	 /usr/share/bash-completion/completions/tmctl \
	 /usr/share/ynl/specs/tuplemerge.yaml \
	 /lib/systemd/system/tuplemerge.service /etc/tuplemerge.conf \
	 /lib/systemd/system/tuplemerge-metrics.service \
	 /lib/systemd/system/tuplemerge-metrics.timer; do
	contents "$tools_deb" | grep -qx "$f"
	check $? "tuplemerge-tools lacks $f"
done
src=/usr/src/tuplemerge-$version
for f in dkms.conf Makefile Kbuild kmod/Kbuild kmod/main.c kmod/core/tm_cls.c \
	 kmod/srv6/srv6.h kmod/netlink/genl.c kmod/classifier/rule.c \
	 include/uapi/linux/tuplemerge.h; do
	contents "$dkms_deb" | grep -qx "$src/$f"
	check $? "tuplemerge-dkms lacks $src/$f"
done
dpkg-deb -f "$dkms_deb" Depends | grep -q dkms
check $? "tuplemerge-dkms does not depend on dkms"
dpkg-deb -I "$dkms_deb" postinst 2>/dev/null | grep -q dkms
check $? "tuplemerge-dkms has no dkms postinst"
dpkg-deb -I "$tools_deb" conffiles 2>/dev/null | grep -qx /etc/tuplemerge.conf
check $? "/etc/tuplemerge.conf is not a conffile of tuplemerge-tools:\
 $(dpkg-deb -I "$tools_deb" conffiles 2>&1)"
# dh_installsystemd --no-enable --no-start --no-stop-on-upgrade: the units
# that have an [Install] section, tuplemerge.service and
# tuplemerge-metrics.timer, are registered (the "don't enable" snippet),
# and no unit is ever started, stopped or restarted (deb-systemd-invoke)
# by a maintainer script.
scripts=$(for s in preinst postinst prerm postrm; do
	dpkg-deb -I "$tools_deb" "$s" 2>/dev/null
done)
for u in tuplemerge.service tuplemerge-metrics.timer; do
	grep -q "deb-systemd-helper debian-installed '$u'" <<<"$scripts" &&
		! grep -q deb-systemd-invoke <<<"$scripts"
	check $? "tuplemerge-tools' maintainer scripts enable or start $u,\
 or do not register it"
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$tools_deb" "$tmp/tools"
[ "$("$tmp/tools/usr/sbin/tmctl" -V)" = "tmctl $version" ]
check $? "packaged tmctl -V says '$("$tmp/tools/usr/sbin/tmctl" -V)'"

# The packaged units, verified in the extracted package as their root,
# so that their commands (/usr/sbin/tmctl) are the package's; man finds
# tmctl(8) of Documentation= there too.  The machine's targets and slices
# are copied beside them, as a system has them: the default dependencies
# of the metrics units name sysinit.target, timers.target, ...  Unknown
# keys and bad values are only warnings for systemd-analyze (exit 0):
# clean means no output either.
cp -r "$tmp/tools" "$tmp/root"
cp -n /lib/systemd/system/*.target /lib/systemd/system/*.slice \
	"$tmp/root/lib/systemd/system/"
for u in tuplemerge.service tuplemerge-metrics.service \
	 tuplemerge-metrics.timer; do
	out=$(MANPATH=$tmp/root/usr/share/man systemd-analyze verify \
		--root="$tmp/root" "$u" 2>&1) && [ -z "$out" ]
	check $? "systemd-analyze verify $u: $out"
done

# The packaged example configuration parses with the packaged tmctl.  In
# a network namespace of its own when possible: with the module loaded,
# -c checks the file in the kernel against that (empty) namespace, never
# against the machine's configuration.
netns=()
unshare -rn true 2>/dev/null && netns=(unshare -rn)
out=$("${netns[@]}" "$tmp/tools/usr/sbin/tmctl" -c \
	-f "$tmp/tools/etc/tuplemerge.conf" 2>&1)
check $? "packaged tmctl -c -f /etc/tuplemerge.conf: $out"

# DKMS builds the packaged source, as its postinst would, for each kernel.
dpkg-deb -x "$dkms_deb" "$tmp/dkms"
for kdir in "$@"; do
	krel=$(sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' \
		"$kdir/include/generated/utsrelease.h")
	mkdir -p "$tmp/tree-$krel"
	log=$tmp/dkms-$krel.log
	dkms add -m tuplemerge -v "$version" --sourcetree "$tmp/dkms/usr/src" \
		--dkmstree "$tmp/tree-$krel" >"$log" 2>&1 &&
	dkms build -m tuplemerge -v "$version" -k "$krel" \
		--kernelsourcedir "$kdir" --sourcetree "$tmp/dkms/usr/src" \
		--dkmstree "$tmp/tree-$krel" >>"$log" 2>&1
	check $? "dkms build for $krel: $(tail -5 "$log")"
	ko=$(find "$tmp/tree-$krel" -name 'tuplemerge.ko*' | head -1)
	[ -n "$ko" ] && [ "$(modinfo -F version "$ko")" = "$version" ]
	check $? "dkms-built module for $krel: '${ko:-none}' version $(modinfo -F version "$ko" 2>/dev/null)"
	[ -n "$ko" ] && echo "deb-check: dkms built $krel: $(modinfo -F vermagic "$ko")"
done

echo "deb-check: $checks checks, $fail failed"
[ "$fail" = 0 ]
