#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# queue, log and trace on real packets; the checks are in actions.py (one
# Python process), this sets up the namespaces:
#
#   ns1 veth1 10.0.1.1/24 ---- ns2 veth2 10.0.1.2/24, table "t": inet,
#                                  input, policy accept

source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip python3 dmesg sysctl
require_module

ns1='' ns2=''
setup_ns ns1 ns2 || exit "$ksft_fail"
veth_pair "$ns1" "$ns2" || exit "$ksft_fail"
TMP=$(mktemp -d)

# nf_log_syslog logs other namespaces' packets only when told to.
all_netns=$(sysctl -n net.netfilter.nf_log_all_netns 2>/dev/null || echo 0)

cleanup()
{
	sysctl -qw net.netfilter.nf_log_all_netns="$all_netns" 2>/dev/null
	rm -rf "$TMP"
	cleanup_ns
}
trap cleanup EXIT

modprobe nf_log_syslog 2>/dev/null
sysctl -qw net.netfilter.nf_log_all_netns=1 ||
	{ echo "cannot set nf_log_all_netns"; exit "$ksft_skip"; }
"$TMCTL" -n "$ns2" table add t family inet hook input policy accept ||
	exit "$ksft_fail"
ip netns exec "$ns2" env NS1="$ns1" python3 "$TM_TOP/selftests/actions.py"
EXIT_STATUS=$?

# The same through tmctl: its words, and tmctl monitor trace.
tm()
{
	"$TMCTL" -n "$ns2" "$@"
}

test_tmctl()
{
	local out mon=$TMP/trace pid

	tm rule add t id 20 proto udp dport 7020 log prefix "tmsh: " trace drop
	check_err $? "rule add with log and trace"
	out=$(tm rule get t id 20)
	[[ $out == *' drop log prefix "tmsh: " trace'* ]]
	check_err $? "listed with its log and trace ($out)"
	tm rule add t id 21 proto udp dport 7021 queue 9 bypass
	check_err $? "rule add queue 9 bypass"
	[[ $(tm rule get t id 21) == *' queue 9 bypass'* ]]
	check_err $? "listed with its queue"
	tm monitor trace >"$mon" &
	pid=$!
	sleep 1
	ip netns exec "$ns1" bash -c 'echo x >/dev/udp/10.0.1.2/7020'
	sleep 1
	kill "$pid"
	wait "$pid" 2>/dev/null
	out=$(grep '^trace ' "$mon")
	[[ $out == "trace t rule 20 hook input verdict drop len "* &&
	   $out == *" src 10.0.1.1 dst 10.0.1.2 proto udp sport "*" dport 7020 iif veth2"* ]]
	check_err $? "tmctl monitor trace names the rule and the packet ($out)"
	log_test "tmctl: log, trace and queue words; monitor trace"
}

test_tmctl
exit "$EXIT_STATUS"
