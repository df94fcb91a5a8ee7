#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`, run inside the VM by selftests/vm/run.sh with the module
# loaded: shows, step by step, what tuplemerge does today: tables, rules,
# batches, errors.

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

step "rules decide, the lowest priority first"
run "$TMCTL" -n "$red" table add filter family ip policy accept
run "$TMCTL" -n "$red" rule add filter id 10 priority 10 dst 127.0.0.1 proto icmp drop
run "$TMCTL" -n "$red" rule add filter id 5 priority 5 src 127.0.0.2 proto icmp accept
run ip netns exec "$red" ping -c 1 -W 1 -I 127.0.0.2 127.0.0.1
echo "(from 127.0.0.2 rule 5 accepts: the ping passes)"
run ip netns exec "$red" ping -c 1 -W 1 127.0.0.1
echo "(from 127.0.0.1 rule 10 drops it)"
run "$TMCTL" -n "$red" rule list filter
run "$TMCTL" -n "$red" rule lookup filter src 127.0.0.1 dst 127.0.0.1 proto icmp

step "batches apply all their lines or none"
printf 'rule flush filter\nrule add filter id 1 proto udp drop\nrule add filter id 1 proto tcp drop\n' >/tmp/demo.batch
run cat /tmp/demo.batch
run "$TMCTL" -n "$red" -f /tmp/demo.batch
run "$TMCTL" -n "$red" rule list filter
echo "(line 3 reuses id 1: nothing changed, the old rules still classify)"

step "errors say what is wrong"
run "$TMCTL" -n "$blue" table add filter
run "$TMCTL" -n "$blue" table add x family ipx
run "$TMCTL" -n "$red" rule add filter src 10.0.0.1/8 drop
echo "(exit codes: 0 ok, 1 parse error, 2 kernel refused, 3 module not loaded)"
exit 0
