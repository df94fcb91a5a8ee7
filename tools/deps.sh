#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install every build and test dependency of tuplemerge on Debian bookworm.
# Idempotent: packages already present are left alone, and apt-get update runs
# only when a package is missing.  Used by `make deps`, `make demo`,
# `make check` and .ci/run.
#
#   tools/deps.sh              what `make check` needs
#   tools/deps.sh debug-kernel also what building the debug guest kernel
#                              needs (`make vm-check KVER=6.12-debug`):
#                              the kernel's build tools; `make check` does
#                              not need them (Debian's linux-source-6.12,
#                              the kernel's source, is in the default set:
#                              `make spec-check` takes the netlink schemas
#                              and ynl from it)
#   tools/deps.sh bench        also what the kernel benchmarks compare
#                              with (`make vm-bench`): Open vSwitch for
#                              selftests/bench/ovs.sh.  On a machine where
#                              systemd runs and lets packages start
#                              services, installing it enables and starts
#                              openvswitch-switch.service

set -eu

export DEBIAN_FRONTEND=noninteractive

# prometheus is there for /usr/bin/promtool ("promtool check metrics" of
# tmctl metrics, tools/tmctl/test_metrics.sh and selftests/metrics.sh),
# which no smaller package holds.  It is the server's package: on a machine
# where systemd runs and lets packages start services, installing it
# enables and starts prometheus.service (listening on port 9090, scraping
# itself); nothing here stops or disables it.  --no-install-recommends
# leaves prometheus-node-exporter out.

# Debian's meta packages name the current ABI of each kernel series;
# resolve them now so that the module is built for the exact kernel the VM
# runner boots.
resolve()
{
	apt-cache depends "$1" 2>/dev/null |
		awk '/Depends:/ { print $2; exit }'
}

pkgs=(
	build-essential make gcc-12 pkg-config libmnl-dev liburcu-dev
	libjansson-dev
	clang libclang-rt-14-dev valgrind
	sparse shellcheck linux-source-6.1 linux-source-6.12 python3-jsonschema
	dkms kmod cpio busybox-static qemu-system-x86
	iproute2 iputils-ping nftables iptables socat python3 python3-yaml
	ethtool gnuplot-nox
	debhelper dh-dkms dpkg-dev fakeroot lintian systemd man-db
	prometheus
)

missing()
{
	local p

	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || echo "$p"
	done
}

updated=0
update_once()
{
	[ "$updated" = 1 ] && return 0
	apt-get update -qq
	updated=1
}

# The header packages need a fresh package list to be resolved at all.
if [ -z "$(resolve linux-headers-amd64)" ]; then
	update_once
fi
h61=$(resolve linux-headers-amd64)
h612=$(resolve linux-headers-6.12-amd64)
if [ -z "$h61" ] || [ -z "$h612" ]; then
	echo "deps: cannot resolve the 6.1 and 6.12 header packages" \
	     "(linux-headers-amd64, linux-headers-6.12-amd64)" >&2
	exit 1
fi
pkgs+=("$h61" "$h612")

for what in "$@"; do
	case $what in
	debug-kernel)
		pkgs+=(flex bison bc libelf-dev libssl-dev xz-utils rsync) ;;
	bench)
		pkgs+=(openvswitch-switch) ;;
	*)
		echo "deps: unknown set '$what' (known: debug-kernel, bench)" >&2
		exit 2 ;;
	esac
done

mapfile -t todo < <(missing "${pkgs[@]}")
if [ "${#todo[@]}" -eq 0 ]; then
	echo "deps: all ${#pkgs[@]} packages present"
	exit 0
fi

update_once
echo "deps: installing ${todo[*]}"
apt-get install -y -qq --no-install-recommends "${todo[@]}"
