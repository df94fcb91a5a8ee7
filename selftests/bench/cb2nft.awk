# SPDX-License-Identifier: GPL-2.0
#
# cb2nft.awk: a ClassBench rule file as one nft chain, first line first,
# every rule with the action ACT, so that nft holds the rules
# `tmctl import TABLE FILE ACT` loads.
#
#   awk -F'\t' -v table=bench -v hook=prerouting -v policy=drop -v act=drop \
#       -f cb2nft.awk RULES
function ports(lohi, what,    a) {
	split(lohi, a, / : /)
	if (a[1] == 0 && a[2] == 65535)
		return ""
	return " th " what " " (a[1] == a[2] ? a[1] : a[1] "-" a[2])
}
BEGIN {
	printf "table ip %s {\n\tchain c {\n\t\ttype filter hook %s priority 0; policy %s;\n", table, hook, policy
}
/^@/ {
	sub(/^@/, "", $1)
	r = ""
	if ($1 !~ /\/0$/)
		r = r " ip saddr " $1
	if ($2 !~ /\/0$/)
		r = r " ip daddr " $2
	split($5, p, "/")
	if (p[2] == "0xFF")
		r = r " meta l4proto " sprintf("%d", strtonum_hex(p[1]))
	r = r ports($3, "sport") ports($4, "dport")
	printf "\t\t%s %s\n", substr(r, 2), act
}
END {
	print "\t}\n}"
}
function strtonum_hex(s,    i, c, v) {
	v = 0
	s = tolower(substr(s, 3))
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1)) - 1
		v = v * 16 + c
	}
	return v
}
