#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Load and unload the module 100 times, with and without namespaces holding
# tables at unload time.  The VM runner fails the run if the kernel logs a
# warning, a leaked slab object or a list corruption meanwhile.

source "$(dirname "$0")/lib.sh"

CYCLES=${CYCLES:-100}

require_root
require_cmd ip insmod rmmod
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
	local i fails=0

	for ((i = 0; i < CYCLES; i++)); do
		reload || fails=$((fails + 1))
	done
	expect_eq "failed load/unload cycles" "$fails" 0
	"$TMCTL" stats >/dev/null
	check_err $? "tmctl after $CYCLES reloads"
	log_test "$CYCLES insmod/rmmod cycles"
}

test_unload_with_state()
{
	local i fails=0 ns

	for ((i = 0; i < 10; i++)); do
		setup_ns ns || { fails=$((fails + 1)); continue; }
		"$TMCTL" -n "$ns" table add "t$i" || fails=$((fails + 1))
		"$TMCTL" table add "init$i" || fails=$((fails + 1))
		reload || fails=$((fails + 1))
		[ -z "$("$TMCTL" -n "$ns" table list)" ] || fails=$((fails + 1))
		cleanup_ns
	done
	expect_eq "failures" "$fails" 0
	log_test "unload with tables in live namespaces frees them"
}

test_plain_cycles
test_unload_with_state
exit "$EXIT_STATUS"
