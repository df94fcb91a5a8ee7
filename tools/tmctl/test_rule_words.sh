#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_rule_words.sh [TEST_RULE_WORDS [TMCTL]]: the rule word table of
# rule_words.c both ways, without a kernel.  Each case is parsed as a rule
# command, made into a request, and the request's attributes printed as a
# reply: the text line and the JSON object must be the expected ones (for
# the first 18, the output of the code before the table), errors must
# name the word.  Then every printed line, read back, must print the same
# line again: what rule list prints is a batch file.  And the JSON objects,
# read by tmctl -c -e -j -f (json.c, whose rule members must follow the
# table), must make the same rules.
# Prints one line per failure and "N passed, N failed" at the end.

set -u

RW=$(realpath "${1:-$(dirname "$0")/../../build/tmctl/test_rule_words}")
TMCTL=$(realpath "${2:-$(dirname "$0")/tmctl}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

passed=0
failed=0

# compare NAME WANT GOT
compare()
{
	if [ "$2" = "$3" ]; then
		passed=$((passed + 1))
		return
	fi
	failed=$((failed + 1))
	echo "FAIL: $1"
	diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") | sed 's/^/  /'
}

cat > "$tmp/cases" <<'CASES'
add t id 1 priority 10 src 10.0.0.0/8 dst 192.168.1.1 sport 1024-65535 dport 80 proto tcp accept
add t id 2 priority 0 family ip6 drop
add t id 3 priority 5 src 2001:db8::/32 proto udp reject with port-unreachable
add t id 4 priority 5 dst ::1 reject
add t id 5 priority 7 comment "a b" cookie 99 mark 0x2a
add t id 6 priority 1 proto 200 count packets 10 bytes 1000
add t id 7 priority 1 lb web
del t id 9
add t id 10 priority 3 iif 1 accept
replace t id 3 priority 2 family ip src 0.0.0.0/0 accept reset-counters
add t id 11 pri 4 sp 22 acc
add t id 12 priority 1 src 10.1.2.3/32 family ip sport 0-65535 accept
del t id 1 priority 3
add t id 1 accept drop
replace t id 1 re
add t id 1 src 10.0.0.0/8 dst ::/0 accept
add t id 1 family inet src 10.0.0.0/8 accept
add t id 1 comment "x
add t id 20 priority 1 proto tcp ct state established,related tcp-flags syn,ack,rst,fin syn accept
add t id 21 priority 1 proto icmp icmp-type 8 icmp-code 0-3 accept
add t id 22 priority 1 meta mark 0x10/0xf0 dscp 10-12,46 fragment first,later drop
add t id 23 priority 1 meta mark 5 accept
add t id 24 priority 1 proto tcp tcp-flags syn,ack none accept
add t id 25 priority 1 ct state new,invalid,untracked dscp 0,63 fragment none count
CASES

cat > "$tmp/want" <<'WANT'
rule add t id 1 priority 10 src 10.0.0.0/8 dst 192.168.1.1 sport 1024-65535 dport 80 proto tcp accept
{"table":"t","id":1,"priority":10,"src":"10.0.0.0/8","dst":"192.168.1.1/32","sport_min":1024,"sport_max":65535,"dport_min":80,"dport_max":80,"proto":6,"action":"accept"}
rule add t id 2 priority 0 family ip6 drop
{"table":"t","id":2,"priority":0,"family":"ip6","action":"drop"}
rule add t id 3 priority 5 src 2001:db8::/32 proto udp reject with port-unreachable
{"table":"t","id":3,"priority":5,"src":"2001:db8::/32","proto":17,"action":"reject","reject":"port-unreachable"}
rule add t id 4 priority 5 dst ::1 reject
{"table":"t","id":4,"priority":5,"dst":"::1/128","action":"reject","reject":"auto"}
rule add t id 5 priority 7 comment "a b" cookie 99 mark 0x2a
{"table":"t","id":5,"priority":7,"comment":"a b","cookie":99,"action":"mark","mark":42}
rule add t id 6 priority 1 proto 200 count
{"table":"t","id":6,"priority":1,"proto":200,"action":"count"}
rule add t id 7 priority 1 lb web
{"table":"t","id":7,"priority":1,"action":"lb","lb_service":"web"}
rule del t id 9
{"table":"t","id":9}
rule add t id 10 priority 3 iif lo accept
{"table":"t","id":10,"priority":3,"iif":"lo","iif_index":1,"action":"accept"}
rule replace t id 3 priority 2 family ip accept
{"table":"t","id":3,"priority":2,"family":"ip","src":"0.0.0.0/0","action":"accept"}
rule add t id 11 priority 4 sport 22 accept
{"table":"t","id":11,"priority":4,"sport_min":22,"sport_max":22,"action":"accept"}
rule add t id 12 priority 1 src 10.1.2.3 accept
{"table":"t","id":12,"priority":1,"family":"ip","src":"10.1.2.3/32","sport_min":0,"sport_max":65535,"action":"accept"}
error
error
error
error
error
error
rule add t id 20 priority 1 proto tcp ct state established,related tcp-flags fin,syn,rst,ack syn accept
{"table":"t","id":20,"priority":1,"proto":6,"ct_state":"established,related","tcp_flags_mask":"fin,syn,rst,ack","tcp_flags":"syn","action":"accept"}
rule add t id 21 priority 1 proto icmp icmp-type 8 icmp-code 0-3 accept
{"table":"t","id":21,"priority":1,"proto":1,"icmp_type_min":8,"icmp_type_max":8,"icmp_code_min":0,"icmp_code_max":3,"action":"accept"}
rule add t id 22 priority 1 meta mark 0x10/0xf0 dscp 10-12,46 fragment first,later drop
{"table":"t","id":22,"priority":1,"meta_mark":16,"meta_mark_mask":240,"dscp":"10-12,46","fragment":"first,later","action":"drop"}
rule add t id 23 priority 1 meta mark 0x5 accept
{"table":"t","id":23,"priority":1,"meta_mark":5,"meta_mark_mask":4294967295,"action":"accept"}
rule add t id 24 priority 1 proto tcp tcp-flags syn,ack none accept
{"table":"t","id":24,"priority":1,"proto":6,"tcp_flags_mask":"syn,ack","tcp_flags":"none","action":"accept"}
rule add t id 25 priority 1 ct state invalid,new,untracked dscp 0,63 fragment none count
{"table":"t","id":25,"priority":1,"ct_state":"invalid,new,untracked","dscp":"0,63","fragment":"none","action":"count"}
WANT

cat > "$tmp/want_err" <<'WANT'
tmctl: rule: unknown keyword 'priority'
tmctl: rule: second action 'drop', the rule already has 'accept'
tmctl: rule: ambiguous keyword 're' (reject, reset-counters)
tmctl: rule: '::/0': IPv6 destination but IPv4 source
tmctl: rule: '10.0.0.0/8': a family inet rule matches no address (use family ip or ip6)
tmctl: rule: comment has a control character
WANT

"$RW" < "$tmp/cases" > "$tmp/out" 2> "$tmp/err"
compare "cases: text and JSON" "$(cat "$tmp/want")" "$(cat "$tmp/out")"
compare "cases: errors" "$(cat "$tmp/want_err")" "$(cat "$tmp/err")"

# Each text line once more: the same line.
grep '^rule ' "$tmp/out" > "$tmp/text"
sed 's/^rule //' "$tmp/text" | "$RW" 2>&1 | grep -v '^{' > "$tmp/again"
compare "text reads back" "$(cat "$tmp/text")" "$(cat "$tmp/again")"
while read -r line; do
	compare "one line: $line" "$line" \
		"$("$RW" <<< "${line#rule }" 2>&1 | head -1)"
done < "$tmp/text"

# The JSON of every "rule add" as a JSON file: the same rules again.
awk '/^rule add /{ getline json; print json }' "$tmp/out" > "$tmp/objects"
{
	echo '{"tables": [{"name": "t", "rules": ['
	paste -sd, "$tmp/objects"
	echo ']}]}'
} > "$tmp/rules.json"
"$TMCTL" -c -e -j -f "$tmp/rules.json" 2> "$tmp/json_err" |
	sed -n 's/^rule //p' > "$tmp/json_words"
"$RW" < "$tmp/json_words" 2>&1 | grep '^rule ' > "$tmp/json_text"
compare "JSON reads back" "$(grep '^rule add ' "$tmp/text")" \
	"$(cat "$tmp/json_text")"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
