#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The stateful matches on real packets: a host firewall in ns2's input
# (policy drop) that lets replies and SSH-like SYNs in and nothing else,
# ICMP and ICMPv6 types, a mark set by nft and matched here, DSCP,
# untracked packets (nft notrack), and fragments seen before reassembly;
# then the kernel's refusals and lookups by the new key fields.
#
#   +-----------------------+          +-------------------------------+
#   | ns1 (client)          |          | ns2 (server)                  |
#   |   veth1 10.0.1.1/24   +----------+   veth2 10.0.1.2/24           |
#   |         fd00:1::1/64  |          |         fd00:1::2/64          |
#   |   TCP listener 5000   |          |   TCP listeners 22 1000 3000  |
#   +-----------------------+          |   3001 4000; table "fw": inet,|
#                                      |   input, policy drop          |
#                                      +-------------------------------+

source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip socat timeout nft ping
require_module

ns1='' ns2=''
setup_ns ns1 ns2 || exit "$ksft_fail"
veth_pair "$ns1" "$ns2" || exit "$ksft_fail"

LISTENERS=()
for p in 22 1000 3000 3001 4000; do
	ip netns exec "$ns2" socat TCP6-LISTEN:"$p",ipv6only=0,fork,reuseaddr \
		SYSTEM:"echo ok" &
	LISTENERS+=($!)
done
ip netns exec "$ns1" socat TCP6-LISTEN:5000,ipv6only=0,fork,reuseaddr \
	SYSTEM:"echo ok" &
LISTENERS+=($!)

cleanup()
{
	kill "${LISTENERS[@]}" 2>/dev/null
	wait 2>/dev/null
	cleanup_ns
}
trap cleanup EXIT

tm()
{
	"$TMCTL" -n "$ns2" "$@"
}

wait_listeners()
{
	local _

	for _ in $(seq 50); do
		ip netns exec "$ns1" bash -c 'exec 3<>/dev/tcp/10.0.1.2/3000' \
			2>/dev/null && return 0
		sleep 0.2
	done
	return 1
}

test_firewall()
{
	local syn est

	tm table add fw family inet hook input policy drop
	check_err $? "table add fw"
	tm rule add fw id 1 ct state established,related accept &&
	tm rule add fw id 2 proto tcp tcp-flags syn,ack,rst,fin syn dport 22 accept &&
	tm rule add fw id 3 proto icmp icmp-type 8 accept &&
	tm rule add fw id 4 proto icmpv6 icmp-type 128 accept &&
	tm rule add fw id 5 proto icmpv6 icmp-type 133-136 accept
	check_err $? "the firewall's rules"
	expect_eq "IPv4 to 22 (a SYN)" "$(tcp_probe "$ns1" 10.0.1.2 22)" ok
	expect_eq "IPv6 to 22" "$(tcp_probe "$ns1" fd00:1::2 22)" ok
	expect_eq "IPv4 to 1000" "$(tcp_probe "$ns1" 10.0.1.2 1000)" timeout
	expect_eq "IPv6 to 1000" "$(tcp_probe "$ns1" fd00:1::2 1000)" timeout
	syn=$(rule_packets "$ns2" fw 2)
	est=$(rule_packets "$ns2" fw 1)
	expect_eq "SYNs the SYN rule took" "$syn" 2
	[ "${est:-0}" -ge 4 ]
	check_err $? "the rest of the connections went by the ct rule ($est)"
	# ns2 as a client: the SYN-ACK coming back is established.
	expect_eq "from ns2, the reply is let in" \
		"$(tcp_probe "$ns2" 10.0.1.1 5000)" ok
	log_test "ct state established,related and a SYN-only rule: replies and SSH-like SYNs, nothing else"

	ip netns exec "$ns1" ping -c 1 -W 2 10.0.1.2 >/dev/null
	check_err $? "ping"
	ip netns exec "$ns1" ping -6 -c 1 -W 2 fd00:1::2 >/dev/null
	check_err $? "ping -6"
	[ "$(rule_packets "$ns2" fw 3)" = 1 ] && [ "$(rule_packets "$ns2" fw 4)" = 1 ]
	check_err $? "one echo request each by its ICMP type rule"
	tm rule replace fw id 3 proto icmp icmp-type 0 accept
	ip netns exec "$ns1" ping -c 1 -W 1 10.0.1.2 >/dev/null
	check_fail $? "an echo request with only echo replies accepted"
	tm rule replace fw id 3 proto icmp icmp-type 8 accept
	check_err $? "rule 3 back to echo requests"
	log_test "ICMP and ICMPv6 types"
}

test_mark()
{
	ip netns exec "$ns2" nft -f - <<-EOF
	table ip marks {
		chain pre {
			type filter hook prerouting priority -150;
			tcp dport 3000 meta mark set 0x1f
		}
	}
	EOF
	check_err $? "nft marks"
	tm rule add fw id 10 proto tcp meta mark 0x10/0xf0 accept
	check_err $? "rule add meta mark"
	expect_eq "marked by nft" "$(tcp_probe "$ns1" 10.0.1.2 3000)" ok
	expect_eq "not marked" "$(tcp_probe "$ns1" 10.0.1.2 1000)" timeout
	log_test "a mark set by nft, matched under a mask"
}

test_dscp()
{
	tm rule add fw id 11 proto tcp dport 4000 dscp 46 accept
	check_err $? "rule add dscp"
	expect_eq "DSCP 46 (tos 0xb8)" \
		"$(tcp_probe "$ns1" 10.0.1.2 4000 tos=184)" ok
	expect_eq "DSCP 0" "$(tcp_probe "$ns1" 10.0.1.2 4000)" timeout
	expect_eq "IPv6 DSCP 46" \
		"$(tcp_probe "$ns1" fd00:1::2 4000 ipv6-tclass=184)" ok
	log_test "DSCP, IPv4 and IPv6"
}

# Untracked: nft's notrack (raw priority) on both directions of port 3001;
# rule 12 lets in only untracked packets to it.
test_untracked()
{
	ip netns exec "$ns2" nft -f - <<-EOF
	table inet raw {
		chain pre {
			type filter hook prerouting priority -300;
			tcp dport 3001 notrack
		}
		chain out {
			type filter hook output priority -300;
			tcp sport 3001 notrack
		}
	}
	EOF
	check_err $? "nft notrack"
	expect_eq "no rule for untracked yet" \
		"$(tcp_probe "$ns1" 10.0.1.2 3001)" timeout
	tm rule add fw id 12 proto tcp dport 3001 ct state untracked accept
	check_err $? "rule add ct state untracked"
	expect_eq "IPv4 untracked" "$(tcp_probe "$ns1" 10.0.1.2 3001)" ok
	expect_eq "IPv6 untracked" "$(tcp_probe "$ns1" fd00:1::2 3001)" ok
	[ "$(rule_packets "$ns2" fw 12)" -ge 6 ]
	check_err $? "rule 12 took the connections' packets"
	tm rule replace fw id 12 proto tcp dport 3001 ct state new accept
	expect_eq "ct state new does not take them" \
		"$(tcp_probe "$ns1" 10.0.1.2 3001)" timeout
	log_test "ct state untracked, after nft notrack"
}

# Before defragmentation (nf_defrag at -400), a ping of 3000 bytes is a
# first fragment and two later ones.
test_fragments()
{
	local fam dst ping

	tm table add pre family inet hook prerouting priority -450 \
		policy accept
	check_err $? "table add pre"
	tm rule add pre id 1 fragment first count &&
	tm rule add pre id 2 fragment later count &&
	tm rule add pre id 3 src 10.0.1.1 proto icmp fragment none count
	check_err $? "rule add fragment"
	for fam in 4 6; do
		dst=10.0.1.2
		ping=(ping -c 1 -W 2 -s 3000)
		if [ $fam = 6 ]; then
			dst=fd00:1::2
			ping=(ping -6 -c 1 -W 2 -s 3000)
		fi
		tm counters reset pre
		ip netns exec "$ns1" "${ping[@]}" "$dst" >/dev/null
		check_err $? "IPv$fam ping of 3000 bytes"
		expect_eq "IPv$fam first fragments" "$(rule_packets "$ns2" pre 1)" 1
		expect_eq "IPv$fam later fragments" "$(rule_packets "$ns2" pre 2)" 2
	done
	tm counters reset pre
	ip netns exec "$ns1" ping -c 1 -W 2 10.0.1.2 >/dev/null
	expect_eq "a small ping is no fragment" "$(rule_packets "$ns2" pre 3)" 1
	expect_eq "nor first" "$(rule_packets "$ns2" pre 1)" 0
	log_test "fragment first, later, none, before reassembly"
}

# refused WHAT MESSAGE ARGS...: tmctl ARGS fails with MESSAGE in stderr.
refused()
{
	local what=$1 want=$2 out

	shift 2
	if out=$(tm "$@" 2>&1) || [[ $out != *"$want"* ]]; then
		check_err 1 "$what: got '$out'"
	fi
}

test_refusals()
{
	local before

	tm table add early family ip hook prerouting priority -300 \
		policy accept
	check_err $? "table add early"
	before=$(generation "$ns2")
	refused "ct before conntrack" "runs before conntrack" \
		rule add early id 1 ct state new drop
	refused "ICMP type for tcp" "ICMP type and code need protocol" \
		rule add fw id 30 proto tcp icmp-type 8 accept
	refused "ports for icmp" "ICMP has no ports" \
		rule add fw id 30 proto icmp dport 8 accept
	refused "tcp-flags for udp" "A TCP flags match needs protocol tcp" \
		rule add fw id 30 proto udp tcp-flags syn syn accept
	expect_eq "nothing changed" "$(generation "$ns2")" "$before"
	log_test "refusals name the field and change nothing"
}

test_lookup()
{
	local out

	out=$(tm rule lookup fw src 10.0.1.1 dst 10.0.1.2 proto tcp \
		sport 40000 dport 9 ct established)
	[[ $out == "rule add fw id 1 "* ]]
	check_err $? "an established packet: rule 1 ($out)"
	out=$(tm rule lookup fw src 10.0.1.1 dst 10.0.1.2 proto tcp \
		sport 40000 dport 22 ct new tcp-flags syn,ecn)
	[[ $out == "rule add fw id 2 "* ]]
	check_err $? "a new SYN to 22: rule 2 ($out)"
	out=$(tm rule lookup fw src 10.0.1.1 dst 10.0.1.2 proto tcp \
		sport 40000 dport 22 ct new tcp-flags syn,ack)
	[[ $out == "no match: policy drop"* ]]
	check_err $? "a SYN-ACK to 22: no rule ($out)"
	out=$(tm rule lookup fw src 10.0.1.1 dst 10.0.1.2 proto tcp \
		sport 1 dport 9 mark 0x13)
	[[ $out == "rule add fw id 10 "* ]]
	check_err $? "mark 0x13: rule 10 ($out)"
	out=$(tm rule list fw | grep ' id 2 ')
	[[ $out == *"proto tcp tcp-flags fin,syn,rst,ack syn accept"* ]]
	check_err $? "rule 2 lists as written ($out)"
	log_test "lookups by state, flags and mark; listing"
}

wait_listeners || { echo "listeners did not start"; exit "$ksft_fail"; }
test_firewall
test_mark
test_dscp
test_untracked
test_fragments
test_refusals
test_lookup
exit "$EXIT_STATUS"
