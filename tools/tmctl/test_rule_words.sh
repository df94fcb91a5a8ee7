#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_rule_words.sh [TEST_RULE_WORDS [TMCTL]]: the rule word table of
# rule_words.c both ways, without a kernel.  Each case is parsed as a rule
# command, made into a request, and the request's attributes printed as a
# reply: the text line and the JSON object must be the expected ones (for
# the first 18, the output of the code before the table), errors must
# name the word.  The same for rules with sets ("src { A, B }"): every
# keyword that takes one, one value and many, 512 in all, every spacing
# of the braces and commas, every error, and which word the attributes of
# a request are mapped to (for the kernel's extack); and how a table's
# classifier entries print (a set rule has several).  Then every printed
# line, read back, must print the same line again: what rule list prints
# is a batch file.  And the JSON objects, read by tmctl -c -e -j -f
# (json.c, whose rule members must follow the table), must make the same
# rules.
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
add t id 26 priority 1 proto udp dport 53 queue 3 bypass
add t id 27 priority 1 log prefix "in: " level warn rate 5/second drop
add t id 28 priority 1 trace log group 2 queue 0
add t id 29 priority 1 log rate 10 accept
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
rule add t id 26 priority 1 dport 53 proto udp queue 3 bypass
{"table":"t","id":26,"priority":1,"dport_min":53,"dport_max":53,"proto":17,"action":"queue","queue":3,"queue_bypass":true}
rule add t id 27 priority 1 drop log prefix "in: " level warn rate 5/second
{"table":"t","id":27,"priority":1,"action":"drop","log":true,"log_prefix":"in: ","log_level":"warn","log_rate":5}
rule add t id 28 priority 1 queue 0 log group 2 trace
{"table":"t","id":28,"priority":1,"action":"queue","queue":0,"log":true,"log_group":2,"trace":true}
rule add t id 29 priority 1 accept log
{"table":"t","id":29,"priority":1,"action":"accept","log":true,"log_rate":10}
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

# Sets: the words of each keyword that takes one, spaced as a shell or a
# batch file may split them; printed back as nftables writes them.
cat > "$tmp/sets" <<'CASES'
add t id 30 src { 10.0.0.0/8, 192.168.0.0/16 } dport { 22, 80, 443-445 } proto { tcp, udp } accept
add t id 31 src {10.0.0.0/8,192.168.0.0/16} dst {10.1.2.3} sport {1024-65535,7} accept
add t id 32 dport "{ 22,80 }" proto {tcp} drop
add t id 33 dst { 2001:db8::/32 ,fe80::/10} proto { 58 , 200} count
add t id 34 dst {2001:db8::/32 , fe80::/10 } sport{ 1 ,2 ,3} accept
add t id 35 family ip6 sport {0-65535} dst { ::1 } accept
add t id 36 family ip src { 0.0.0.0/0 } accept
replace t id 37 proto { tcp } dport { 22 } reject with tcp-reset
add t id 38 comment "{ not, a set }" lb "{web}"
add t id 39 src { 10.0.0.0/8 } dst 10.1.0.0/16 sport 5 dport { 6 } proto udp accept
add t id 42 dp{22,80} pro{ tcp } acc
CASES
cat > "$tmp/sets_want" <<'WANT'
rule add t id 30 src { 10.0.0.0/8, 192.168.0.0/16 } dport { 22, 80, 443-445 } proto { tcp, udp } accept
{"table":"t","id":30,"src":["10.0.0.0/8","192.168.0.0/16"],"dport":["22","80","443-445"],"proto":[6,17],"action":"accept"}
rule add t id 31 src { 10.0.0.0/8, 192.168.0.0/16 } dst { 10.1.2.3 } sport { 1024-65535, 7 } accept
{"table":"t","id":31,"src":["10.0.0.0/8","192.168.0.0/16"],"dst":["10.1.2.3/32"],"sport":["1024-65535","7"],"action":"accept"}
rule add t id 32 dport { 22, 80 } proto { tcp } drop
{"table":"t","id":32,"dport":["22","80"],"proto":[6],"action":"drop"}
rule add t id 33 dst { 2001:db8::/32, fe80::/10 } proto { icmpv6, 200 } count
{"table":"t","id":33,"dst":["2001:db8::/32","fe80::/10"],"proto":[58,200],"action":"count"}
rule add t id 34 dst { 2001:db8::/32, fe80::/10 } sport { 1, 2, 3 } accept
{"table":"t","id":34,"dst":["2001:db8::/32","fe80::/10"],"sport":["1","2","3"],"action":"accept"}
rule add t id 35 dst { ::1 } sport { 0-65535 } accept
{"table":"t","id":35,"family":"ip6","dst":["::1/128"],"sport":["0-65535"],"action":"accept"}
rule add t id 36 src { 0.0.0.0/0 } accept
{"table":"t","id":36,"family":"ip","src":["0.0.0.0/0"],"action":"accept"}
rule replace t id 37 dport { 22 } proto { tcp } reject with tcp-reset
{"table":"t","id":37,"dport":["22"],"proto":[6],"action":"reject","reject":"tcp-reset"}
rule add t id 38 comment "{ not, a set }" lb {web}
{"table":"t","id":38,"comment":"{ not, a set }","action":"lb","lb_service":"{web}"}
rule add t id 39 src { 10.0.0.0/8 } dst 10.1.0.0/16 sport 5 dport { 6 } proto udp accept
{"table":"t","id":39,"src":["10.0.0.0/8"],"dst":"10.1.0.0/16","sport_min":5,"sport_max":5,"dport":["6"],"proto":17,"action":"accept"}
rule add t id 42 dport { 22, 80 } proto { tcp } accept
{"table":"t","id":42,"dport":["22","80"],"proto":[6],"action":"accept"}
WANT
"$RW" < "$tmp/sets" > "$tmp/sets_out" 2> "$tmp/sets_err"
compare "sets: text and JSON" "$(cat "$tmp/sets_want")" \
	"$(cat "$tmp/sets_out")"
compare "sets: no error" "" "$(cat "$tmp/sets_err")"

# 512 values: in one set (IPv6, the largest request), and in all the
# sets of a rule (504 x 8 = 4032 entries).
v6=() v4=() v6w=() v4j=()
for i in $(seq 1 512); do
	v6+=("2001:db8::$(printf %x "$i"),")
	v6w+=("\"2001:db8::$(printf %x "$i")/128\"")
done
for i in $(seq 0 503); do
	v4+=("10.0.$((i / 256)).$((i % 256)),")
	v4j+=("\"10.0.$((i / 256)).$((i % 256))/32\"")
done
protos="tcp, udp, icmp, sctp, udplite, dccp, gre, esp"
big6="${v6[*]}"
big6="dst { ${big6%,} }"
big4="${v4[*]}"
big4="src { ${big4%,} } proto { $protos }"
# One value more: the 513th is named.
over6="${big6%\}}, 2001:db8::201 }"
over4="${big4%\}}} dport { 1 }"
printf '%s\n' "add t id 40 $big6 accept" "add t id 41 $big4 drop" \
	> "$tmp/big"
{
	echo "rule add t id 40 $big6 accept"
	echo "{\"table\":\"t\",\"id\":40,\"dst\":[$(IFS=,; echo "${v6w[*]}")],\"action\":\"accept\"}"
	echo "rule add t id 41 $big4 drop"
	echo "{\"table\":\"t\",\"id\":41,\"src\":[$(IFS=,; echo "${v4j[*]}")],\"proto\":[6,17,1,132,136,33,47,50],\"action\":\"drop\"}"
} > "$tmp/big_want"
"$RW" < "$tmp/big" > "$tmp/big_out" 2>&1
compare "sets: 512 values" "$(cat "$tmp/big_want")" "$(cat "$tmp/big_out")"

# Every mistake in a set, the word it names.
cat > "$tmp/set_errors" <<CASES
add t src { } accept
add t src {} accept
add t src { 10.0.0.0/8 accept
add t src { 10.0.0.0/8
add t dport { 22,, 80 } accept
add t dport { , 22 } accept
add t dport { 22, } accept
add t iif { lo } accept
add t iif{lo} accept
add t comment{x} accept
add t mark { 1 }
add t ct { state } new accept
add t src { 10.0.0.0/8, ::1 } accept
add t src { 10.0.0.0/8 } dst { ::1 } accept
add t family ip6 dst { 10.0.0.0/8 } accept
add t family inet src { ::/0 } accept
add t proto { tcp, tcpp } accept
add t dport { 22, 90-80 } accept
add t src {10.0.0.0/8,10.0.0.1/8} accept
add t dport { 22 80 } accept
add t dport {22}x accept
add t dport 22,80 accept
add t dport { 22, { 80 } } accept
add t dport { 22 } dport 80 accept
add t sport { 70000 } accept
add t $over6 accept
add t $over4 accept
add t sport { $(seq -s ', ' 1 65) } dport { $(seq -s ', ' 1 64) } accept
CASES
cat > "$tmp/set_errors_want" <<'WANT'
tmctl: rule: '{': empty src set
tmctl: rule: '{}': empty src set
tmctl: rule: 'accept': missing '}' closing the src set before it
tmctl: rule: '{': missing '}' closing the src set
tmctl: rule: '22,,': stray ',' in the dport set
tmctl: rule: ',': stray ',' in the dport set
tmctl: rule: '22,': stray ',' in the dport set
tmctl: rule: '{': iif takes no set (sets are for src, dst, sport, dport and proto)
tmctl: rule: 'iif{lo}': iif takes no set (sets are for src, dst, sport, dport and proto)
tmctl: rule: 'comment{x}': comment takes no set (sets are for src, dst, sport, dport and proto)
tmctl: rule: '{': mark takes no set (sets are for src, dst, sport, dport and proto)
tmctl: rule: '{': ct takes no set (sets are for src, dst, sport, dport and proto)
tmctl: rule: '::1': IPv6 prefix in a src set of IPv4 prefixes
tmctl: rule: '::1': IPv6 destination but IPv4 source
tmctl: rule: '10.0.0.0/8': IPv4 prefix in a family ip6 rule
tmctl: rule: '::/0': a family inet rule matches no address (use family ip or ip6)
tmctl: rule: unknown protocol 'tcpp' (expected tcp, udp, icmp, icmpv6, sctp, udplite, dccp, gre, esp, ah or 0..255)
tmctl: rule: '90-80': empty port range, 90 is above 80
tmctl: rule: '10.0.0.1/8': host bits set past /8, did you mean 10.0.0.0/8?
tmctl: rule: '80': expected ',' or '}' in the dport set
tmctl: rule: '{22}x': unexpected 'x' after the dport set
tmctl: rule: '22,80': a set of values is written in braces: dport { V, V }
tmctl: rule: '{': a '{' inside the dport set
tmctl: rule: dport given twice
tmctl: rule: '70000': port out of range 0..65535
tmctl: rule: '2001:db8::201': more than 512 values in the rule's sets
tmctl: rule: '1': more than 512 values in the rule's sets
tmctl: rule: '{': the rule's sets make 4160 entries (their cross product), more than 4096
WANT
"$RW" < "$tmp/set_errors" > "$tmp/set_errors_out" 2> "$tmp/set_errors_err"
compare "sets: errors" "$(cat "$tmp/set_errors_want")" \
	"$(cat "$tmp/set_errors_err")"
compare "sets: every error refused" \
	"$(sed 's/.*/error/' "$tmp/set_errors")" "$(cat "$tmp/set_errors_out")"

# The word each attribute of a request is mapped to ("WORD(" a nest ")"):
# each value of a set maps its element, the set its '{'.
cat > "$tmp/map" <<'CASES'
map add t id 5 src { 10.0.0.0/8, 10.1.0.0/16 } dport {22,80} proto tcp accept
CASES
cat > "$tmp/map_want" <<'WANT'
t 5 {( 10.0.0.0/8,( 10.0.0.0/8, 10.0.0.0/8, ) 10.1.0.0/16( 10.1.0.0/16 10.1.0.0/16 ) ) {22,80}( {22,80}( {22,80} {22,80} ) {22,80}( {22,80} {22,80} ) ) tcp accept
WANT
"$RW" < "$tmp/map" > "$tmp/map_out" 2>&1
compare "sets: the words of the attributes" "$(cat "$tmp/map_want")" \
	"$(cat "$tmp/map_out")"
cat "$tmp/sets_out" "$tmp/big_out" >> "$tmp/out"

# A table's classifier entries: in the text when a set rule makes them
# more than the rules (a table without one prints as before), in JSON
# always.
printf '%s\n' "table t 3 3" "table t 2 4099" "table t 5" > "$tmp/tables"
cat > "$tmp/tables_want" <<'WANT'
table t rules 3
{"table":"t","rules":3,"entries":3}
table t rules 2 entries 4099
{"table":"t","rules":2,"entries":4099}
table t rules 5
{"table":"t","rules":5}
WANT
"$RW" < "$tmp/tables" > "$tmp/tables_out" 2>&1
compare "table entries" "$(cat "$tmp/tables_want")" "$(cat "$tmp/tables_out")"

# Each text line once more: the same line.
grep '^rule ' "$tmp/out" > "$tmp/text"
sed 's/^rule //' "$tmp/text" | "$RW" 2>&1 | grep -v '^{' > "$tmp/again"
compare "text reads back" "$(cat "$tmp/text")" "$(cat "$tmp/again")"
while read -r line; do
	compare "one line: ${line:0:70}" "$line" \
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
