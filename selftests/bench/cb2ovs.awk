# SPDX-License-Identifier: GPL-2.0
#
# cb2ovs.awk: a ClassBench rule file as OpenFlow flows for ovs-ofctl
# add-flows, first line first (the highest priority), every flow with the
# action ACT, so that Open vSwitch holds the rules `tmctl import TABLE
# FILE ACT` loads.
#
#   awk -F'\t' -v act=drop -f cb2ovs.awk RULES >FLOWS
#
# OpenFlow matches a port by value and mask, not by range: a port range
# becomes the fewest aligned blocks that cover it exactly (at most 30), and
# a rule one flow per pair of source and destination blocks, as the
# TupleMerge paper expanded ranges for Open vSwitch.  OpenFlow matches
# ports only for a given protocol: a rule of any protocol that names ports
# becomes a TCP flow and a UDP flow; a rule of another protocol (ICMP)
# that names ports cannot be written and is counted on stderr, then
# written without its ports.  The flags field is left out, as tmctl import
# leaves it out without -f.
function blocks(lo, hi, out,    n, size) {
	n = 0
	while (lo <= hi) {
		size = 1
		while (lo % (size * 2) == 0 && lo + size * 2 - 1 <= hi)
			size *= 2
		out[++n] = (size == 65536) ? "" : sprintf("0x%04x/0x%04x", lo, 65536 - size)
		lo += size
	}
	return n
}
function hex(s,    i, v) {
	v = 0
	s = tolower(substr(s, 3))
	for (i = 1; i <= length(s); i++)
		v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
BEGIN {
	if (act == "")
		act = "drop"
}
/^@/ {
	sub(/^@/, "", $1)
	prio = 65000 - NR
	if (prio < 1) {
		print "cb2ovs: more rules than OpenFlow priorities" > "/dev/stderr"
		exit 1
	}
	m = ""
	if ($1 !~ /\/0$/)
		m = m ",nw_src=" $1
	if ($2 !~ /\/0$/)
		m = m ",nw_dst=" $2
	split($3, sp, / : /)
	split($4, dp, / : /)
	ns = blocks(sp[1] + 0, sp[2] + 0, sb)
	nd = blocks(dp[1] + 0, dp[2] + 0, db)
	ported = sb[1] != "" || db[1] != ""
	split($5, p, "/")
	proto = hex(p[1])
	if (hex(p[2]) == 0) {
		if (ported)
			np = split("tcp udp", kind, " ")
		else
			np = split("ip", kind, " ")
	} else if (proto == 6 || proto == 17) {
		np = 1
		kind[1] = proto == 6 ? "tcp" : "udp"
	} else {
		np = 1
		kind[1] = "ip,nw_proto=" proto
		if (ported) {
			unported++
			ns = nd = 1
			sb[1] = db[1] = ""
		}
	}
	for (k = 1; k <= np; k++)
		for (i = 1; i <= ns; i++)
			for (j = 1; j <= nd; j++) {
				f = "priority=" prio "," kind[k] m
				if (sb[i] != "")
					f = f ",tp_src=" sb[i]
				if (db[j] != "")
					f = f ",tp_dst=" db[j]
				print f ",actions=" act
				flows++
			}
	delete sb
	delete db
}
END {
	printf "cb2ovs: %d rules, %d flows, %d rules of a portless protocol with ports\n",
		NR, flows, unported > "/dev/stderr"
}
