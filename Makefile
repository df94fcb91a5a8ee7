# SPDX-License-Identifier: GPL-2.0
#
# tuplemerge: build, test and install.  `make help` lists the targets.
#
#   make                     module for KDIR (default: Debian 6.1 headers) + tmctl
#   make check               everything CI runs (README's test command)
#   make vm-check KVER=6.12  selftests inside a booted 6.12 kernel
#   make vm-check KVER=6.12-debug   ... inside a locally built debug kernel
#   make vm-fuzz FUZZ_TIME=600      the fuzzers for longer (KVER=...)
#   make deb                 Debian packages tuplemerge-dkms, -tools in build/deb
#
# Kernel series supported: Debian's 6.1 and 6.12 LTS.

VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)

# Newest installed Debian headers of a series ("6.1", "6.12") or a release.
headers_of = $(or $(wildcard /usr/src/linux-headers-$(1)),$(lastword \
	$(shell ls -d /usr/src/linux-headers-$(1).*-amd64 2>/dev/null | sort -V)))
release_of = $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' \
	$(1)/include/generated/utsrelease.h 2>/dev/null)

KDIR ?= $(call headers_of,6.1)
KVER ?= 6.1
KVERS ?= 6.1 6.12

# Where a kernel's module is built for the VM: build/<release>/kmod/
# (MODBUILD moves it, for the runner's self-test).
BUILD := $(CURDIR)/build
MODBUILD ?= $(BUILD)
# The debug guest kernel (KVER=6.12-debug, release 6.12.N-tmdebug), built
# by selftests/vm/debug-kernel.sh; its object tree is the KDIR.
DEBUG_OUT := $(BUILD)/vm-debug
vm_kdir = $(if $(filter %-debug %-tmdebug,$(1)),$(DEBUG_OUT)/obj,$(call \
	headers_of,$(1)))
vm_krel = $(call release_of,$(call vm_kdir,$(1)))
vm_ko = $(MODBUILD)/$(call vm_krel,$(1))/kmod/tuplemerge.ko

# $(call shadow_build,DIR,KDIR,ARGS): an out-of-tree build in DIR, a shadow
# tree of symlinks, so that builds for several kernels never overwrite each
# other or the in-tree build.
define shadow_build
	@mkdir -p $(1)
	@cp -asf $(CURDIR)/Kbuild $(CURDIR)/dkms.conf $(CURDIR)/kmod \
		$(CURDIR)/include $(1)/
	$(MAKE) -C $(2) M=$(1) $(3) modules
endef

TMCTL := tools/tmctl/tmctl
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= /usr/share/bash-completion/completions

# Fail early with a hint when the headers are missing.
need_kdir = $(if $(wildcard $(1)/Makefile),,$(error no kernel headers \
	for '$(2)' (looked for $(1)); run `make deps` or pass KDIR=))

.PHONY: all modules tools check sparse check-core check-style vm-check vm-check-all \
	vm-selftest vm-bench modules-all bench install dkms-install dkms-uninstall \
	style sparse clean clean-modules deps demo demo-run help vm-debug-kernel vm-bench-run \
	install-tools install-dkms-src deb vm-fuzz srlb-sim \
	vm-run bench-scale

all: modules tools

modules:
	$(call need_kdir,$(KDIR),KDIR)
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

tools:
	$(MAKE) -C tools/tmctl
	$(MAKE) -C tools/bench tmblast

# The module the VM loads, one per kernel.  Warnings are errors here: this
# is what `make check` holds the code to.
$(MODBUILD)/%/kmod/tuplemerge.ko: FORCE
	$(call need_kdir,$(call vm_kdir,$*),$*)
	$(call shadow_build,$(MODBUILD)/$*,$(call vm_kdir,$*),W=1 \
		KCFLAGS=-Werror $(if $(TM_FAULT),TM_FAULT=$(TM_FAULT)))
	@# Debug info makes insmod 15x slower under TCG: keep it aside.
	@if objdump -h $@ | grep -q '\.debug_info'; then \
		objcopy --only-keep-debug $@ $@.debug && strip --strip-debug $@; \
	fi

FORCE:

module-%:
	$(call need_kdir,$(call vm_kdir,$*),$*)
	$(MAKE) $(call vm_ko,$*)

modules-all: $(addprefix module-,$(KVERS))

# tm_kbench.ko, kmod/core's lookups timed in the kernel (selftests/kbench/,
# for bench/kbench.sh): build/<release>/kbench/, a shadow tree of that
# directory and of kmod/core's sources, warnings as errors.
vm_kbench = $(MODBUILD)/$(call vm_krel,$(1))/kbench/tm_kbench.ko
kbench-%:
	$(call need_kdir,$(call vm_kdir,$*),$*)
	@mkdir -p $(dir $(call vm_kbench,$*))
	@cp -asf $(CURDIR)/selftests/kbench/* $(CURDIR)/kmod/core/* \
		$(dir $(call vm_kbench,$*))
	$(MAKE) -C $(call vm_kdir,$*) M=$(patsubst %/,%,$(dir $(call vm_kbench,$*))) \
		W=1 KCFLAGS=-Werror modules
	@strip --strip-debug $(call vm_kbench,$*)

# The exact release of a series, for scripts: make -s krel-6.12
krel-%:
	@echo $(call vm_krel,$*)

# vm-check and vm-fuzz: the kernel (for a debug KVER), the module, then
# the run, in a make of its own that sees the release just built.
vm_prepare = $(if $(filter %-debug,$(KVER)),$(MAKE) vm-debug-kernel)
vm-check: tools
	$(vm_prepare)
	$(MAKE) module-$(KVER)
	$(MAKE) --no-print-directory vm-run RUN_ARGS="$(TESTS)"

# VM_TMCTL=PATH: the tests use that tmctl (make check: the packaged one).
# VM_ENV="VAR=VALUE ...": the tests' environment (e.g. CYCLES=30).
# VM_MEM=MB: the guest's memory (default 2048).
VM_TMCTL ?=
VM_ENV ?=
VM_MEM ?=
vm_mem = $(if $(VM_MEM),-M $(VM_MEM))
vm-run:
	$(call need_kdir,$(call vm_kdir,$(KVER)),$(KVER))
	selftests/vm/run.sh -k $(call vm_krel,$(KVER)) -m $(call vm_ko,$(KVER)) \
		$(if $(VM_TMCTL),-E TMCTL=$(VM_TMCTL)) $(vm_mem) \
		$(foreach e,$(VM_ENV),-E $(e)) $(RUN_ARGS)

# The debug guest kernel: Debian's linux-source-6.12 (installed now, not by
# `make check`) with KASAN, KFENCE, lockdep, ... from a minimal config
# (selftests/vm/debug.config), cached in build/vm-debug/ and rebuilt when
# the config changes.  CPU_LOCK=FILE builds in chunks of DEBUG_CHUNK
# seconds, each holding FILE (flock), for a machine shared with others.
CPU_LOCK ?=
DEBUG_CHUNK ?= 900
vm-debug-kernel:
	bash tools/deps.sh debug-kernel
	selftests/vm/debug-kernel.sh -o $(DEBUG_OUT) \
		$(if $(CPU_LOCK),-l $(CPU_LOCK) -t $(DEBUG_CHUNK))

# The fuzzers (selftests/nl_fuzz.sh, selftests/pkt_fuzz.sh) for FUZZ_TIME
# seconds each (make check runs them for about a minute); FUZZ_SEED
# replays a run.
FUZZ_TIME ?= 600
FUZZ_SEED ?=
VM_FUZZ ?= nl_fuzz.sh pkt_fuzz.sh
vm-fuzz: tools
	$(vm_prepare)
	$(MAKE) module-$(KVER)
	$(MAKE) --no-print-directory vm-run RUN_ARGS="-t $$(($(FUZZ_TIME) + 600)) \
		-E FUZZ_TIME=$(FUZZ_TIME) $(if $(FUZZ_SEED),-E FUZZ_SEED=$(FUZZ_SEED)) \
		$(VM_FUZZ)"

# The kernel benchmarks (selftests/bench/), in one VM run, so that their
# ratios compare like with like; figures in Documentation/performance.rst.
# bench/ovs.sh needs Open vSwitch: vm-bench installs it (tools/deps.sh bench).
VM_BENCH ?= bench/load.sh bench/latency.sh bench/pps.sh bench/stateful.sh \
	bench/lb.sh bench/ovs.sh bench/kbench.sh
vm-bench: tools
	tools/deps.sh bench
	$(MAKE) module-$(KVER) kbench-$(KVER)
	$(MAKE) -C tools/classbench SANITIZE= tmgen
	$(MAKE) -C tools/bench
	$(MAKE) --no-print-directory vm-bench-run

vm-bench-run:
	$(call need_kdir,$(call vm_kdir,$(KVER)),$(KVER))
	selftests/vm/run.sh -P -k $(call vm_krel,$(KVER)) -m $(call vm_ko,$(KVER)) \
		$(vm_mem) $(foreach e,$(VM_ENV),-E $(e)) $(VM_BENCH)

vm-check-all: tools
	@for v in $(KVERS); do $(MAKE) --no-print-directory vm-check KVER=$$v || exit 1; done

# The runner's own test: modules broken on purpose must fail the run.
vm-selftest: tools
	selftests/vm/selftest.sh $(KVER)

# The classification core and the ClassBench tools, in userspace, under
# ASan/UBSan: directed, differential (1M operations per engine and family),
# concurrency, forced split races, work bounds, valgrind and fuzzing;
# tmctl's parser, rule words, metrics (with promtool) and bash completion.
# No VM, no kernel headers.
check-core:
	$(MAKE) -j2 --output-sync=target -C selftests/core check
	$(MAKE) -C tools/classbench check
	$(MAKE) -C tools/bench check
	$(MAKE) -C tools/tmctl check
	$(MAKE) -C selftests/exp check

# The README's test command.  Dependencies first, in their own step, so that
# the rest sees the headers they install.  The 6.12 suite runs the tmctl
# of the package make deb built.
#
# Every selftest runs on both kernels, the long ones shorter, so that CI
# stays under an hour: module_reload.sh cycles 15 times (not 100), the
# fuzzers run 20 s (not 70 and 45), churn.sh and split_race.sh 12 s (not
# 40 and 30).  The 100,000-rule tests and ipt_import.sh's 10,000 packets
# run in full on 6.12 only (20,000 rules, 4,000 packets on 6.1), and the
# SRLB experiment, a measurement more than a kernel check, is left to 6.12,
# at load 0.9 only (its one assertion) with points of 20 s (not 0.5 and
# 0.9, 30 s).
# `make vm-check KVER=6.1` (or 6.12) runs them all in full.  The runner's
# self-test runs only its broken modules: the suites have just shown a good
# one passing.
CHECK_ENV := CYCLES=15 FUZZ_TIME=20 DURATION=12 SRLB_EXP_DURATION=20 \
	SRLB_EXP_LOADS=0.9
CHECK61_ENV := $(CHECK_ENV) N=20000 RULESET_RULES=20000 IPT_PACKETS=4000 \
	IPT_RULES=200
CHECK61_TESTS = $(filter-out lib% srlb_experiment.sh,\
	$(notdir $(wildcard selftests/*.sh)))
check:
	bash tools/deps.sh
	$(MAKE) check-style check-core modules-all tools deb
	$(MAKE) vm-check KVER=6.1 VM_ENV="$(CHECK61_ENV)" \
		TESTS="$(CHECK61_TESTS)"
	$(MAKE) vm-check KVER=6.12 VM_ENV="$(CHECK_ENV)" \
		VM_TMCTL=$(DEB_DIR)/root/usr/sbin/tmctl
	TM_SELFTEST_FAULTS_ONLY=1 $(MAKE) vm-selftest
	$(MAKE) demo-run

check-style: style sparse

# Userspace benchmark of the engines: `make bench BENCH_RULES=FILE
# [BENCH_TRACE=FILE]`.  Without a rule file, a generated 10K acl-like set.
BENCH_RULES ?=
BENCH_TRACE ?=
bench:
	$(MAKE) -C tools/bench
	$(MAKE) -C tools/classbench SANITIZE= tmgen
	@if [ -z "$(BENCH_RULES)" ]; then \
		tools/classbench/tmgen rules --type acl --count 10000 --seed 1 \
			> $(BUILD)/bench-acl-10k && \
		tools/classbench/tmgen trace --rules $(BUILD)/bench-acl-10k \
			--count 100000 --seed 1 > $(BUILD)/bench-acl-10k-trace && \
		build/bench/tmbench $(BUILD)/bench-acl-10k \
			$(BUILD)/bench-acl-10k-trace; \
	else \
		build/bench/tmbench $(BENCH_RULES) $(BENCH_TRACE); \
	fi

# How TupleMerge's lookup, update and memory costs grow from 1K to 1M
# rules (tools/bench/scale.sh; about 6 minutes): a gnuplot picture,
# Documentation/scaling.png, and the figures in build/bench-scale/.
bench-scale:
	$(MAKE) -C tools/bench
	$(MAKE) -C tools/classbench SANITIZE= tmgen
	tools/bench/scale.sh

# The dyn policy against every static threshold in the simulation of the
# SRLB experiment (selftests/exp/srlb_sim.c; about 15 minutes on 2 cores):
# `make srlb-sim [SIM_ARGS="--dists exp --seeds 2"]`.
SIM_ARGS ?=
srlb-sim:
	$(MAKE) -C selftests/exp
	python3 selftests/exp/srlb_sim.py $(SIM_ARGS)

# DESTDIR stages the install elsewhere (packaging); depmod runs on the result.
install: modules install-tools
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(if $(DESTDIR),INSTALL_MOD_PATH=$(DESTDIR)) \
		modules_install
	depmod $(if $(DESTDIR),-b $(DESTDIR)) -a $(call release_of,$(KDIR))

# tmctl, its man page and completion, the netlink spec where the
# kernel's ynl looks for specs (/usr/share/ynl/specs), boot
# persistence: tuplemerge.service (not enabled here: `systemctl enable
# tuplemerge`), with the path of the tmctl installed, and the example
# /etc/tuplemerge.conf, and the metrics for node_exporter:
# tuplemerge-metrics.service and .timer (not enabled either).  A plain install never overwrites an existing
# /etc/tuplemerge.conf, an administrator's; a staged one (DESTDIR, the
# package, where it is a conffile) always holds the example.
YNLSPECDIR ?= $(PREFIX)/share/ynl/specs
SYSTEMDUNITDIR ?= /lib/systemd/system
TMCONF := /etc/tuplemerge.conf
install-tools: tools
	install -D -m 0755 $(TMCTL) $(DESTDIR)$(SBINDIR)/tmctl
	install -D -m 0644 tools/tmctl/tmctl.8 $(DESTDIR)$(MANDIR)/man8/tmctl.8
	install -D -m 0644 tools/tmctl/tmctl-json.5 \
		$(DESTDIR)$(MANDIR)/man5/tmctl-json.5
	install -D -m 0644 tools/tmctl/tmctl.bash-completion \
		$(DESTDIR)$(BASHCOMPDIR)/tmctl
	install -D -m 0644 Documentation/netlink/specs/tuplemerge.yaml \
		$(DESTDIR)$(YNLSPECDIR)/tuplemerge.yaml
	mkdir -p $(DESTDIR)$(SYSTEMDUNITDIR)
	for u in tuplemerge.service tuplemerge-metrics.service; do \
		sed 's|/usr/sbin/tmctl|$(SBINDIR)/tmctl|g' tools/systemd/$$u \
			>$(DESTDIR)$(SYSTEMDUNITDIR)/$$u && \
		chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/$$u || exit 1; \
	done
	install -m 0644 tools/systemd/tuplemerge-metrics.timer \
		$(DESTDIR)$(SYSTEMDUNITDIR)/tuplemerge-metrics.timer
	@if [ -z "$(DESTDIR)" ] && [ -e $(TMCONF) ]; then \
		echo "install-tools: $(TMCONF) exists, left as it is"; \
	else \
		echo "install -D -m 0644 tools/systemd/tuplemerge.conf $(DESTDIR)$(TMCONF)"; \
		install -D -m 0644 tools/systemd/tuplemerge.conf $(DESTDIR)$(TMCONF); \
	fi

# DKMS rebuilds the module for every kernel installed later.  DKMS_KVER
# picks the kernel (default: the running one, as dkms does).
DKMS_SRC := /usr/src/tuplemerge-$(VERSION)
DKMS_FILES := Kbuild Makefile dkms.conf $(shell git ls-files kmod include \
	2>/dev/null || find kmod include -name '*.[ch]' -o -name Kbuild)
# The module's source as DKMS wants it, under $(DESTDIR)/usr/src.
install-dkms-src:
	rm -rf $(DESTDIR)$(DKMS_SRC) && mkdir -p $(DESTDIR)$(DKMS_SRC)
	tar -cf - $(DKMS_FILES) | tar -xf - -C $(DESTDIR)$(DKMS_SRC)

dkms-install:
	-dkms remove -m tuplemerge -v $(VERSION) --all >/dev/null 2>&1
	$(MAKE) --no-print-directory install-dkms-src DESTDIR=
	dkms add -m tuplemerge -v $(VERSION)
	dkms build -m tuplemerge -v $(VERSION) $(if $(DKMS_KVER),-k $(DKMS_KVER))
	dkms install -m tuplemerge -v $(VERSION) $(if $(DKMS_KVER),-k $(DKMS_KVER))

# The Debian packages tuplemerge-dkms and tuplemerge-tools, built from a
# copy of the tracked files in build/deb/ (dpkg-buildpackage writes to
# the parent directory), then checked: lintian, their contents, and a
# DKMS build of the packaged source for each of KVERS.
DEB_DIR := $(BUILD)/deb
deb:
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)/tuplemerge-$(VERSION)
	git ls-files -z | xargs -0 tar -cf - | \
		tar -xf - -C $(DEB_DIR)/tuplemerge-$(VERSION)
	cd $(DEB_DIR)/tuplemerge-$(VERSION) && \
		DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -us -uc -b
	bash tools/deb-check.sh $(DEB_DIR) $(VERSION) \
		$(foreach v,$(KVERS),$(call headers_of,$(v)))
	dpkg-deb -x $(DEB_DIR)/tuplemerge-tools_$(VERSION)_*.deb $(DEB_DIR)/root

dkms-uninstall:
	-dkms remove -m tuplemerge -v $(VERSION) --all
	rm -rf $(DKMS_SRC)

# checkpatch.pl is shipped only inside Debian's linux-source package.
CHECKPATCH := $(BUILD)/checkpatch/scripts/checkpatch.pl
$(CHECKPATCH):
	@test -f /usr/src/linux-source-6.1.tar.xz || \
		{ echo "style: linux-source-6.1 missing, run make deps"; exit 1; }
	@mkdir -p $(BUILD)/checkpatch
	tar -xJf /usr/src/linux-source-6.1.tar.xz -C $(BUILD)/checkpatch \
		--strip-components=1 linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
	@touch $@

# The netlink ABI against its YAML spec (Documentation/kernel.rst): the
# kernel's JSON schemas of the specs (Documentation/netlink/) and ynl
# (tools/net/ynl/, whose cli.py selftests/ynl_cli.sh runs), and the
# kernel-doc of make style, from Debian's linux-source-6.12, extracted once
# into build/linux-6.12; then
# tools/spec-check.py, and its own test.  Part of check-style.
LINUX612_TAR ?= /usr/src/linux-source-6.12.tar.xz
LINUX612 := $(BUILD)/linux-6.12
$(LINUX612)/.stamp: $(wildcard $(LINUX612_TAR))
	@test -f $(LINUX612_TAR) || \
		{ echo "spec-check: linux-source-6.12 missing, run make deps"; exit 1; }
	rm -rf $(LINUX612) && mkdir -p $(LINUX612)
	tar -xJf $(LINUX612_TAR) -C $(LINUX612) --strip-components=1 \
		linux-source-6.12/Documentation/netlink \
		linux-source-6.12/tools/net/ynl \
		linux-source-6.12/scripts/kernel-doc
	@touch $@

.PHONY: spec-check
spec-check: $(LINUX612)/.stamp
	tools/spec-check.py --ksrc $(LINUX612)
	KSRC=$(LINUX612) bash tools/test_spec_check.sh

check-style: spec-check

C_SOURCES = $(shell git ls-files '*.c' '*.h' 2>/dev/null)
SH_SOURCES = $(shell git ls-files '*.sh' .ci/run selftests/vm/init 2>/dev/null)

# Userspace has no compiler_attributes.h (tools define __printf themselves)
# and must use libFuzzer's CamelCase entry point.
# kernel-doc of 6.12 (-Wall: undescribed members and return values too) on
# the module and the uapi; the DOC: sections copied into Documentation/
# must be up to date (tools/doc-sync.sh).
KERNELDOC := $(LINUX612)/scripts/kernel-doc
style: $(CHECKPATCH) $(LINUX612)/.stamp
	$(CHECKPATCH) --strict --no-tree --quiet --show-types \
		--ignore FILE_PATH_CHANGES \
		-f $(filter-out tools/% selftests/%,$(C_SOURCES))
	$(CHECKPATCH) --strict --no-tree --quiet --show-types \
		--ignore FILE_PATH_CHANGES,PREFER_DEFINED_ATTRIBUTE_MACRO,CAMELCASE \
		-f $(filter tools/% selftests/%,$(C_SOURCES))
	shellcheck -x $(SH_SOURCES)
	$(KERNELDOC) -none -Wall -Werror $(filter kmod/% include/%,$(C_SOURCES))
	KERNELDOC=$(KERNELDOC) tools/doc-sync.sh -c

sparse: $(addprefix sparse-,$(KVERS))

sparse-%:
	$(call need_kdir,$(call vm_kdir,$*),$*)
	$(call shadow_build,$(BUILD)/sparse-$(call vm_krel,$*),$(call vm_kdir,$*),\
		C=2 CF="-Wsparse-error -D__CHECK_ENDIAN__")

clean-modules:
	$(if $(wildcard $(KDIR)/Makefile),$(MAKE) -C $(KDIR) M=$(CURDIR) clean)

clean: clean-modules
	$(MAKE) -C tools/tmctl clean
	$(MAKE) -C selftests/exp clean
	rm -rf $(BUILD)/[0-9]* $(BUILD)/sparse-* $(BUILD)/selftest-*
	@# build/vm-debug (the debug kernel, ~1 hour to build) stays: rm -rf it.

deps:
	bash tools/deps.sh

# Like check: the dependencies first, then a make of its own, whose
# $(call vm_krel,...) sees the headers they installed.
demo:
	bash tools/deps.sh
	$(MAKE) --no-print-directory demo-run

demo-run: tools module-$(KVER)
	$(MAKE) -C tools/classbench SANITIZE= tmgen
	selftests/vm/run.sh -k $(call vm_krel,$(KVER)) -m $(call vm_ko,$(KVER)) \
		-e "bash $(CURDIR)/selftests/vm/demo.sh"

help:
	@sed -n 's/^#   //p' Makefile
	@echo "targets: all modules tools check check-core vm-check vm-check-all"
	@echo "         vm-selftest vm-bench vm-fuzz vm-debug-kernel bench install"
	@echo "         install-tools dkms-install deb style sparse clean deps demo"
	@echo "         srlb-sim bench-scale kbench-KVER"
	@echo "variables: KDIR=headers dir, KVER=6.1|6.12|6.12-debug|release,"
	@echo "           TESTS=..., FUZZ_TIME=s, FUZZ_SEED=n, CPU_LOCK=file"
