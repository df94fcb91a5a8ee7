#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 100,000 rules loaded with one tmctl -f transaction list back exactly as
# they were written: every id, priority, prefix, port range, protocol and
# action, in id order, across the many parts of the netlink dump.
#
#   ns1: table "t" (inet, input, policy accept), no traffic

source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip awk cmp
require_module

N=${N:-100000}
ns1=''
setup_ns ns1 || exit "$ksft_fail"
TMP=$(mktemp -d)
trap 'cleanup_ns; rm -rf "$TMP"' EXIT

# The rules, written as `tmctl rule list` prints them: IPv4 hosts and
# prefixes, IPv6 prefixes, single ports and ranges, four actions.
awk -v n="$N" 'BEGIN {
	for (i = 1; i <= n; i++) {
		a = int(i / 65536) % 256; b = int(i / 256) % 256; c = i % 256
		p = "rule add t id " i " priority " (i % 977)
		if (i % 4 == 0)
			print p " src 10." a "." b "." c " dst 192.168." c ".0/24 dport " (i % 1000 + 1) " proto tcp drop"
		else if (i % 4 == 1)
			print p " src 10." a "." b ".0/24 sport 1000-2000 proto udp accept"
		else if (i % 4 == 2)
			printf "%s src fd00:%x:%x::/48 dst fd01::/16 sport 1024-65535 dport 443 proto tcp count\n", p, a, b * 256 + c
		else
			print p " dst 10." b ".0.0/16 proto icmp mark 0x" sprintf("%x", i)
	}
}' >"$TMP/rules"

since()
{
	awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'
}

"$TMCTL" -n "$ns1" table add t family inet policy accept || exit "$ksft_fail"
start=$(date +%s.%N)
"$TMCTL" -n "$ns1" -f "$TMP/rules"
check_err $? "tmctl -f of $N rules"
log_info "loaded $N rules in $(since "$start") s"
start=$(date +%s.%N)
"$TMCTL" -n "$ns1" -s rule list t >"$TMP/listed" 2>"$TMP/err"
check_err $? "tmctl rule list: $(head -3 "$TMP/err")"
log_info "listed them in $(since "$start") s"
expect_eq "rules listed" "$(wc -l <"$TMP/listed")" "$N"
cmp -s "$TMP/rules" "$TMP/listed"
check_err $? "listing differs: $(diff "$TMP/rules" "$TMP/listed" | head -4)"
expect_eq "rule count of the table" \
	"$("$TMCTL" -n "$ns1" table show t | awk '{ for (i = 1; i < NF; i++) if ($i == "rules") print $(i + 1) }')" "$N"
log_test "a dump of $N rules matches what was loaded"

exit "$EXIT_STATUS"
