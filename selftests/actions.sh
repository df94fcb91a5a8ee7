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

# nf_log_syslog logs other namespaces' packets only when told to.
all_netns=$(sysctl -n net.netfilter.nf_log_all_netns 2>/dev/null || echo 0)

cleanup()
{
	sysctl -qw net.netfilter.nf_log_all_netns="$all_netns" 2>/dev/null
	cleanup_ns
}
trap cleanup EXIT

modprobe nf_log_syslog 2>/dev/null
sysctl -qw net.netfilter.nf_log_all_netns=1 ||
	{ echo "cannot set nf_log_all_netns"; exit "$ksft_skip"; }
"$TMCTL" -n "$ns2" table add t family inet hook input policy accept ||
	exit "$ksft_fail"
ip netns exec "$ns2" env NS1="$ns1" python3 "$TM_TOP/selftests/actions.py"
