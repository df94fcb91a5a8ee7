#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark: packets per second through a stateful host firewall of N rules
# (10000) at the input hook, policy drop: "ct state established,related
# accept", "ct state invalid drop", echo requests, then N - 3 rules that
# let new connections in (SYN-only TCP from a /24 to a port, UDP from a /24
# to a port, TCP SYNs to a set of three ports of the host).  The same
# policy as a tuplemerge table, as an nftables chain of the same rules in
# the same order, and as an nftables chain holding them in two sets of
# concatenations (ip saddr . port, interval: the way an nft user would
# write it for speed); and an empty table with policy drop, the floor.
#
# pktgen injects UDP packets into the receive path of a dummy device
# (netif_receive) to a local address, from random sources and ports:
# conntrack sees each (new, as no reply ever comes; 1000 packets per flow,
# so that the conntrack table does not fill), and they match no rule but
# the policy: every rule of the chain is evaluated, and the table probes
# every tuple.  A table keeping conntrack on (a ct rule at output) is
# loaded for every configuration.  Run in the VM: make vm-bench
# VM_BENCH=bench/stateful.sh; compare ratios, not absolute figures.

source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/lib_pktgen.sh"

require_root
require_cmd ip awk nft modprobe
require_module

N=${N:-10000}
DURATION=${DURATION:-8}
DEV=tmb0
TMP=$(mktemp -d)

cleanup()
{
	pktgen_stop
	"$TMCTL" table del fw 2>/dev/null
	nft delete table ip fw 2>/dev/null
	nft delete table ip ctkeep 2>/dev/null
	ip link del $DEV 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

pktgen_dummy $DEV 1 "flows 256" "flowlen 1000"
nft -f - <<EOF || exit "$ksft_fail"
table ip ctkeep {
	chain o {
		type filter hook output priority 0; policy accept;
		ct state new counter
	}
}
EOF

# run NAME: pktgen for DURATION s; prints NAME pps.
run()
{
	echo "$1 $(pktgen_pps $DEV "$DURATION")"
}

# The policy: fmt=tmctl (a batch), nft (a chain of rules) or nftset (the
# same in sets).  Rule i (4..N): k = i % 3: 0 TCP SYNs from 10.a.b.0/24 to
# port p, 1 UDP from 10.a.b.0/24 to port p, 2 TCP SYNs to the host on
# ports {p, p+1, p+2}.
gen()
{
	awk -v n="$N" -v fmt="$1" '
	function net(i) { return "10." int(i / 256) % 256 "." i % 256 ".0/24" }
	function port(i) { return 1024 + i % 50000 }
	BEGIN {
		syn = "tcp flags & (fin | syn | rst | ack) == syn"
		if (fmt == "tmctl") {
			print "table add fw family ip hook input policy drop"
			print "rule add fw id 1 ct state established,related accept"
			print "rule add fw id 2 ct state invalid drop"
			print "rule add fw id 3 proto icmp icmp-type 8 accept"
		} else {
			print "table ip fw {"
			if (fmt == "nftset") {
				print "\tset t { type ipv4_addr . inet_service; flags interval; elements = {"
				for (i = 4; i <= n; i++)
					if (i % 3 == 0)
						printf "\t\t%s . %d,\n", net(i), port(i)
				print "\t} }"
				print "\tset u { type ipv4_addr . inet_service; flags interval; elements = {"
				for (i = 4; i <= n; i++)
					if (i % 3 == 1)
						printf "\t\t%s . %d,\n", net(i), port(i)
				print "\t} }"
				print "\tset h { type inet_service; elements = {"
				for (i = 4; i <= n; i++)
					if (i % 3 == 2)
						printf "\t\t%d, %d, %d,\n", port(i), port(i) + 1, port(i) + 2
				print "\t} }"
			}
			print "\tchain c {"
			print "\t\ttype filter hook input priority 0; policy drop;"
			print "\t\tct state established,related accept"
			print "\t\tct state invalid drop"
			print "\t\ticmp type echo-request accept"
		}
		if (fmt == "nftset") {
			print "\t\t" syn " ip saddr . tcp dport @t accept"
			print "\t\tip saddr . udp dport @u accept"
			print "\t\tip daddr 198.18.0.1 " syn " tcp dport @h accept"
			n = 0
		}
		for (i = 4; i <= n; i++) {
			k = i % 3
			p = port(i)
			if (fmt == "tmctl") {
				if (k == 0)
					printf "rule add fw id %d src %s proto tcp tcp-flags fin,syn,rst,ack syn dport %d accept\n", i, net(i), p
				else if (k == 1)
					printf "rule add fw id %d src %s proto udp dport %d accept\n", i, net(i), p
				else
					printf "rule add fw id %d dst 198.18.0.1 proto tcp tcp-flags fin,syn,rst,ack syn dport { %d, %d, %d } accept\n", i, p, p + 1, p + 2
			} else if (k == 0) {
				printf "\t\tip saddr %s %s tcp dport %d accept\n", net(i), syn, p
			} else if (k == 1) {
				printf "\t\tip saddr %s udp dport %d accept\n", net(i), p
			} else {
				printf "\t\tip daddr 198.18.0.1 %s tcp dport { %d, %d, %d } accept\n", syn, p, p + 1, p + 2
			}
		}
		if (fmt != "tmctl")
			print "\t}\n}"
	}'
}

gen tmctl >"$TMP/fw.tm"
gen nft >"$TMP/fw.nft"
gen nftset >"$TMP/fwset.nft"

{
	"$TMCTL" table add fw family ip hook input policy drop || exit 1
	run empty-table
	"$TMCTL" table del fw
	for eng in tuplemerge tss; do
		sed "1s/\$/ engine $eng max-tuples 65535/" "$TMP/fw.tm" |
			"$TMCTL" -f - || exit 1
		run "$eng"
		"$TMCTL" table show fw >&2
		"$TMCTL" table del fw
	done
	nft -f "$TMP/fw.nft" || exit 1
	run nft-chain
	nft delete table ip fw
	nft -f "$TMP/fwset.nft" || exit 1
	run nft-sets
	nft delete table ip fw
} >"$TMP/pps"

echo "# $N-rule stateful firewall at input (ct state, SYN-only, sets), policy drop, pktgen netif_receive to a local address, new UDP flows, $DURATION s each (emulated VM: compare ratios)"
awk '
	{ name[NR] = $1; pps[NR] = $2; if ($1 == "nft-chain") nft = $2; if ($1 == "empty-table") base = $2 }
	END {
		printf "%-14s %12s %12s %12s\n", "config", "pps", "vs empty", "vs nft"
		for (i = 1; i <= NR; i++)
			printf "%-14s %12d %11.2fx %11.1fx\n", name[i], pps[i], pps[i] / base, pps[i] / nft
	}' "$TMP/pps"
