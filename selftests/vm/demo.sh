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
run "$TMCTL" -n "$blue" table add edge family ip6 hook prerouting engine tss
run "$TMCTL" -n "$red" table add filter family ip policy drop
run "$TMCTL" -n "$blue" table list
run "$TMCTL" -n "$red" table list
run "$TMCTL" -n "$blue" -j table list
run "$TMCTL" -n "$blue" stats

step "a table's policy decides at its netfilter hook"
run ip netns exec "$blue" ping -c 1 -W 1 127.0.0.1
echo "(blue has no drop table: the ping above passes)"
run ip netns exec "$red" ping -c 1 -W 1 127.0.0.1
echo "(red's ip table drops on input: the ping above gets no answer)"
run "$TMCTL" -n "$red" table del filter
run ip netns exec "$red" ping -c 1 -W 1 127.0.0.1

step "errors say what is wrong"
run "$TMCTL" -n "$blue" table add filter
run "$TMCTL" -n "$blue" table add x family ipx
echo "(exit codes: 0 ok, 1 parse error, 2 kernel refused, 3 module not loaded)"
exit 0
