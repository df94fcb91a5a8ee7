# SPDX-License-Identifier: GPL-2.0
#
# gen_rules.awk: N ClassBench-like IPv4 rules, first match wins, written as
# a tmctl batch (fmt=tmctl), an nft ruleset (fmt=nft) or an iptables-restore
# file (fmt=ipt), so that the three tools load the same policy; or as one
# nft verdict map of concatenated intervals (fmt=nftmap: saddr . daddr .
# protocol . sport . dport), the fastest way nft has to hold a policy whose
# rules do not overlap, as these do not for n up to 12,288 (the three kinds
# differ in protocol, and rules of a kind in address).  The protocol is
# "ip protocol": nft 1.0.6 turns "meta l4proto" in a concatenation into a
# one-byte byteorder that Linux 6.12 refuses (EOPNOTSUPP).
#
#   awk -v n=100000 -v fmt=tmctl -v table=t -v hook=input -f gen_rules.awk
#
# Optional: -v policy=drop (nft chain policy), -v act=drop (every rule's
# action, for a drop table).
#
# Rules (i = 1..n, in order): every 3rd a host -> /24 TCP rule on one
# destination port, dropped; then /24 sources with a UDP source port range,
# accepted; then /16 destinations for ICMP, dropped.  Source prefixes come
# from 10.0.0.0/8 and never repeat.
function src_host(i) { return "10." int(i / 65536) % 256 "." int(i / 256) % 256 "." i % 256 }
function src_net(i) { return "10." int(i / 256) % 256 "." i % 256 ".0/24" }
function a(x) { return act == "" ? x : act }
BEGIN {
	if (hook == "")
		hook = "input"
	if (fmt == "nft") {
		printf "table ip %s {\n\tchain c {\n\t\ttype filter hook %s priority 0; policy %s;\n", table, hook, policy == "" ? "accept" : policy
	} else if (fmt == "nftmap") {
		printf "table ip %s {\n\tmap m {\n\t\ttype ipv4_addr . ipv4_addr . inet_proto . inet_service . inet_service : verdict\n\t\tflags interval\n\t\telements = {\n", table
	} else if (fmt == "ipt") {
		print "*filter"
		print ":INPUT ACCEPT [0:0]"
	} else {
		print "rule flush " table
	}
	for (i = 1; i <= n; i++) {
		k = i % 3
		if (fmt == "nftmap") {
			if (k == 0)
				printf "\t\t\t%s . 192.168.%d.0/24 . tcp . 0-65535 . %d : %s,\n", src_host(i), i % 256, i % 1000 + 1, a("drop")
			else if (k == 1)
				printf "\t\t\t%s . 0.0.0.0/0 . udp . 1000-2000 . 0-65535 : %s,\n", src_net(i), a("accept")
			else
				printf "\t\t\t0.0.0.0/0 . 172.%d.%d.0/24 . icmp . 0-65535 . 0-65535 : %s,\n", 16 + i % 16, int(i / 16) % 256, a("drop")
		} else if (fmt == "nft") {
			if (k == 0)
				printf "\t\tip saddr %s ip daddr 192.168.%d.0/24 tcp dport %d %s\n", src_host(i), i % 256, i % 1000 + 1, a("drop")
			else if (k == 1)
				printf "\t\tip saddr %s udp sport 1000-2000 %s\n", src_net(i), a("accept")
			else
				printf "\t\tip daddr 172.%d.%d.0/24 ip protocol icmp %s\n", 16 + i % 16, int(i / 16) % 256, a("drop")
		} else if (fmt == "ipt") {
			if (k == 0)
				printf "-A INPUT -s %s/32 -d 192.168.%d.0/24 -p tcp --dport %d -j %s\n", src_host(i), i % 256, i % 1000 + 1, toupper(a("drop"))
			else if (k == 1)
				printf "-A INPUT -s %s -p udp --sport 1000:2000 -j %s\n", src_net(i), toupper(a("accept"))
			else
				printf "-A INPUT -d 172.%d.%d.0/24 -p icmp -j %s\n", 16 + i % 16, int(i / 16) % 256, toupper(a("drop"))
		} else {
			if (k == 0)
				printf "rule add %s id %d src %s dst 192.168.%d.0/24 dport %d proto tcp %s\n", table, i, src_host(i), i % 256, i % 1000 + 1, a("drop")
			else if (k == 1)
				printf "rule add %s id %d src %s sport 1000-2000 proto udp %s\n", table, i, src_net(i), a("accept")
			else
				printf "rule add %s id %d dst 172.%d.%d.0/24 proto icmp %s\n", table, i, 16 + i % 16, int(i / 16) % 256, a("drop")
		}
	}
	if (fmt == "nft")
		print "\t}\n}"
	else if (fmt == "nftmap")
		printf "\t\t}\n\t}\n\tchain c {\n\t\ttype filter hook %s priority 0; policy %s;\n\t\tip saddr . ip daddr . ip protocol . th sport . th dport vmap @m\n\t}\n}\n", hook, policy == "" ? "accept" : policy
	else if (fmt == "ipt")
		print "COMMIT"
}
