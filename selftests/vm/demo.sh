#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`, run inside the VM by selftests/vm/run.sh with the module
# loaded: shows, step by step, what tuplemerge does today.

# shellcheck source=selftests/lib.sh
source "$(dirname "$0")/../lib.sh"

require_module

step()
{
	printf '\n### %s\n' "$*"
}

run()
{
	printf '$ %s\n' "$*"
	"$@"
}

blue='' red=''
setup_ns blue red || exit "$ksft_fail"

step "the module is loaded in kernel $(uname -r)"
run grep -E '^tuplemerge ' /proc/modules

step "each network namespace has its own tables"
run "$TMCTL" -n "$blue" table add filter family inet
run "$TMCTL" -n "$blue" table add edge family ip6
run "$TMCTL" -n "$red" table add filter family ip
run "$TMCTL" -n "$blue" table list
run "$TMCTL" -n "$red" table list
run "$TMCTL" -n "$blue" -j table list
run "$TMCTL" -n "$blue" stats

step "errors say what is wrong"
run "$TMCTL" -n "$blue" table add filter
run "$TMCTL" -n "$blue" table add x family ipx
echo "(exit codes: 0 ok, 1 parse error, 2 kernel refused, 3 module not loaded)"
exit 0
