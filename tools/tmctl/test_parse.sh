#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_parse.sh [TMCTL]: tmctl's parser, without a kernel.  Batch files run
# through `tmctl -c -f` (parse only) and command lines whose errors are
# found before any netlink traffic; each check compares the exit status and
# the exact error lines (FILE:LINE:COL for batch files).  A command that
# reached the kernel would exit 3 (no module) or 2 and fail its check.
# Prints one line per failure and "N passed, N failed" at the end.

set -u

TMCTL=$(realpath "${1:-$(dirname "$0")/tmctl}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

passed=0
failed=0

# check NAME RC STDERR ARGS...: run tmctl ARGS, compare rc and stderr.
check()
{
	local name=$1 want_rc=$2 want_err=$3 err rc

	shift 3
	err=$("$TMCTL" "$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" = "$want_rc" ] && [ "$err" = "$want_err" ]; then
		passed=$((passed + 1))
		return
	fi
	failed=$((failed + 1))
	echo "FAIL: $name"
	echo "  command: tmctl $*"
	echo "  got exit $rc:"
	printf '%s\n' "$err" | sed 's/^/    /'
	echo "  want exit $want_rc:"
	printf '%s\n' "$want_err" | sed 's/^/    /'
}

# ok NAME ARGS...: a command that must parse (with -c) silently.
ok()
{
	local name=$1

	shift
	check "$name" 0 "" -c "$@"
}

# bad NAME MESSAGE ARGS...: a command line refused with one message,
# with and without -c (a parse error comes before any netlink traffic).
bad()
{
	local name=$1 msg=$2

	shift 2
	check "$name" 1 "tmctl: $msg" "$@"
	check "$name (-c)" 1 "tmctl: $msg" -c "$@"
}

# A batch file using every form of the syntax.
cat > good.batch <<'EOF'
# tmctl batch file: every form of the syntax

rule add filter id 1 priority 10 src 10.0.0.0/8 dst 192.168.1.1 \
	sport 1024-65535 dport 22 proto tcp accept
rule add filter id 2 family ip6 src 2001:db8::/32 dst ::1 proto icmpv6 drop
rule add filter id 3 family inet proto udp dport 53 count
rule add filter id 4 src 0.0.0.0/0 reject
rule add filter id 5 proto 6 reject with tcp-reset
rule add filter id 6 reject with port-unreachable
rule add filter id 7 reject with host-unreachable
rule add filter id 8 reject with admin-prohibited
rule add filter id 9 mark 0xff00
rule add filter id 10 mark 42
rule add filter id 11 lb web
rule add filter id 12 iif lo oif lo accept
rule add filter id 13 comment "two words" cookie 0xdeadbeef accept
rule add filter id 14 comment 'single # quoted' accept   # trailing
rule add filter id 15 comment "esc \" and \\ inside" accept
rule add filter id 16 comment "" accept
rule add filter id 17 comment no\ quotes\ here accept
rule add filter id 18 proto gre accept packets 12 bytes 3456
rule add "table name" id 1 accept
rule add filter id 19 src 10.1.0.0/16 dport 0-65535 proto 255 \
	comment "continued \
line" accept
rule add filter pri 5 pro sctp dp 80 acc
rule add filter proto udplite accept
rule add filter proto dccp accept
rule add filter proto esp accept
rule add filter proto ah accept
rule add filter proto icmp drop
rule add filter src 10.0.0.1 dst 10.0.0.2/32 accept
rule add filter src ::/0 dst fe80::1/128 accept
rule add filter id 2147483647 priority 4294967295 cookie 18446744073709551615 accept
   rule replace filter id 1 src 10.0.0.0/8 drop reset-counters
rule replace filter id 2 accept
rule del filter id 3
rule delete filter id 4
rule d filter id 5
r a filter id 20 accept
rule flush filter
EOF
# No module on the host: -c -f parses only, and says so.
check "good batch file" 0 "good.batch: parsed only, not checked by the kernel: the tuplemerge module is not loaded" -c -f good.batch

# The same with CRLF line ends.
sed 's/$/\r/' good.batch > crlf.batch
check "good batch file, CRLF" 0 "crlf.batch: parsed only, not checked by the kernel: the tuplemerge module is not loaded" -c -f crlf.batch

# Empty and comment-only files.
: > empty.batch
check "empty batch file" 0 "empty.batch: parsed only, not checked by the kernel: the tuplemerge module is not loaded" -c -f empty.batch
printf '# nothing\n\n   \n# else\n' > comments.batch
check "comment-only batch file" 0 "comments.batch: parsed only, not checked by the kernel: the tuplemerge module is not loaded" -c -f comments.batch

# Every bad line is reported, in order, at the column of its bad word.
cat > bad.batch <<'EOF'
rule add t id 1 accept
rule add t id 4 proto tcpp accept
rule add t id 5 src 10.0.0.1/8 \
   dst 1.2.3.4/33 accept
lb service add x
rule frob t
rule add t id 6 comment "unterminated
rule add t id 7
rule add t id 8 src 10.0.0.300 accept
   rule add t id 11 sport 90-80 accept
rule add t sport 70000 accept
rule add t dport 1-2-3 accept
rule add t mark 0x1g
rule add t mark 4294967296
rule add t foo 1 accept
rule add t d 1.2.3.4 accept
rule add t src 10.0.0.0/8 dst ::1 accept
rule add t family ip6 src 10.0.0.0/8 accept
rule add t family inet dst 10.0.0.0/8 accept
rule add t accept drop
rule add t src 1.2.3.4 src 1.2.3.5 accept
EOF
cat > bad.expect <<'EOF'
bad.batch:2:23: error: unknown protocol 'tcpp' (expected tcp, udp, icmp, icmpv6, sctp, udplite, dccp, gre, esp, ah or 0..255)
bad.batch:3:21: error: '10.0.0.1/8': host bits set past /8, did you mean 10.0.0.0/8?
bad.batch:5:17: error: missing 'vip ADDR' (the service's IPv6 address)
bad.batch:6:6: error: unknown rule command 'frob' (add, replace, del or flush)
bad.batch:7:25: error: unterminated " quote
bad.batch:8:16: error: missing action (accept, drop, reject, mark, count, lb or queue)
bad.batch:9:21: error: '10.0.0.300': not an IPv4 or IPv6 prefix
bad.batch:10:27: error: '90-80': empty port range, 90 is above 80
bad.batch:11:18: error: '70000': port out of range 0..65535
bad.batch:12:18: error: '1-2-3': bad port (expected 0..65535 or LOW-HIGH)
bad.batch:13:17: error: bad mark '0x1g' (expected 0..4294967295)
bad.batch:14:17: error: bad mark '4294967296' (expected 0..4294967295)
bad.batch:15:12: error: unknown keyword 'foo'
bad.batch:16:12: error: ambiguous keyword 'd' (dst, dport, dscp, drop)
bad.batch:17:31: error: '::1': IPv6 destination but IPv4 source
bad.batch:18:27: error: '10.0.0.0/8': IPv4 prefix in a family ip6 rule
bad.batch:19:28: error: '10.0.0.0/8': a family inet rule matches no address (use family ip or ip6)
bad.batch:20:19: error: second action 'drop', the rule already has 'accept'
bad.batch:21:24: error: src given twice
EOF
check "bad batch file" 1 "$(cat bad.expect)" -c -f bad.batch

# Tables and flush ruleset in a file.
cat > tables.batch <<'EOF'
flush ruleset
table add x family ip hook forward priority -5 policy drop collide 4
table add y famly ip
table frob x
table del x y
table flush
flush tables
sid add fc00::1 accept policy always
frob
EOF
cat > tables.expect <<'EOF'
tables.batch:3:13: error: unknown keyword 'famly'
tables.batch:4:7: error: unknown table command 'frob' (add, del or flush)
tables.batch:5:13: error: unexpected 'y'
tables.batch:6:12: error: missing table name
tables.batch:7:7: error: expected 'flush ruleset'
tables.batch:9:1: error: 'frob': a batch file holds flush ruleset, table, rule, sid and lb commands
EOF
check "tables in a batch file" 1 "$(cat tables.expect)" -c -f tables.batch

# SIDs and load-balancer services in a file: the whole configuration.
cat > objects.batch <<'EOF'
flush ruleset
sid add fc00:1::100 accept policy always
sid add fc00:3::100 accept policy conns 8 hmac 7
sid replace fc00:3::100 accept policy backlog 4
sid add fc00:5::100 accept policy always idle-timeout 120 close-timeout 5 \
	syn-timeout 4 udp-timeout 300
sid replace fc00:5::100 accept policy never udp-timeout 86400
sid del fc00:1::100
lb service add web vip fd00:100::1 sid fd00:1b::1 tcp port 8080 \
	choices 3 table-size 251 max-flows 1000 idle-timeout 60 \
	fin-timeout 5 syn-timeout 2 hmac 9
lb backend add web fc00:1::100
lb backend add web fc00:2::100 weight 3
lb backend del web fc00:1::100
lb service del web
lb ser a dns vip fd00:100::53 sid fd00:1b::2
lb b a dns fc00:4::100
lb service add api vip fd00:100::2 sid fd00:1b::3 health-interval 2s \
	health-timeout 500ms health-rise 3 health-fall 2 health-listener
lb service add quic vip fd00:100::2 sid fd00:1b::4 udp port 443
lb service add anycast vip fd00:200::/64 sid fd00:1b::5 tcp port 80
table add lbt family ip6 hook prerouting
rule add lbt dst fd00:100::53 proto tcp dport 53 lb dns
EOF
check "SIDs and services in a batch file" 0 \
	"objects.batch: parsed only, not checked by the kernel: the tuplemerge module is not loaded" \
	-c -f objects.batch

cat > badobjects.batch <<'EOF'
sid load fc00::1 5
sid show
sid frob fc00::1
sid add fc00::1 accept
sid del fc00::1 extra
lb flows flush web
lb service show
lb service frob web
lb frob add web
lb backend add web
lb backend del web fc00::1 weight 2
lb service del web extra
lb backend set web fc00::1
lb service add web vip fd00::1 sid 10.0.0.1
flush ruleset now
lb service add web vip fd00::1 sid fd00::2 health-rise 2
lb service add web vip fd00::1 sid fd00::2 health-interval 1 health-timeout 1001ms
lb service add web vip fd00::1 sid fd00::2 udp port 53 tcp
EOF
cat > badobjects.expect <<'EOF'
badobjects.batch:1:5: error: 'load' in a file: a file holds configuration (add, replace, del, flush), not state or listings; run it as a command
badobjects.batch:2:5: error: 'show' in a file: a file holds configuration (add, replace, del, flush), not state or listings; run it as a command
badobjects.batch:3:5: error: unknown sid command 'frob' (add, replace or del)
badobjects.batch:4:23: error: missing 'policy POLICY' (always, never, conns N, backlog N, load N or dyn N)
badobjects.batch:5:17: error: unexpected 'extra'
badobjects.batch:6:4: error: 'flows' in a file: a file holds configuration (add, replace, del, flush), not state or listings; run it as a command
badobjects.batch:7:12: error: 'show' in a file: a file holds configuration (add, replace, del, flush), not state or listings; run it as a command
badobjects.batch:8:12: error: unknown service command 'frob' (add or del)
badobjects.batch:9:4: error: expected 'lb service' or 'lb backend'
badobjects.batch:10:19: error: missing backend SID (an IPv6 address)
badobjects.batch:11:28: error: unexpected 'weight'
badobjects.batch:12:20: error: unexpected 'extra'
badobjects.batch:13:27: error: missing 'weight W' (0 drains the backend)
badobjects.batch:14:36: error: '10.0.0.1': a SID is an IPv6 address, not IPv4
badobjects.batch:15:15: error: unexpected 'now'
badobjects.batch:16:44: error: health-rise needs health-interval
badobjects.batch:17:77: error: bad health-timeout '1001ms': longer than health-interval '1'
badobjects.batch:18:56: error: a service is either tcp or udp
EOF
check "bad SID and service lines in a batch file" 1 \
	"$(cat badobjects.expect)" -c -f badobjects.batch

# A VIP: an IPv6 address or a prefix with no host bits, /1 to /128.
cat > badvips.batch <<'EOF'
lb service add web vip fd00:100::1/64 sid fd00:1b::1
lb service add web vip 10.0.0.0/8 sid fd00:1b::1
lb service add web vip ::/0 sid fd00:1b::1
lb service add web vip fd00::/129 sid fd00:1b::1
lb service add web vip fd00::/ sid fd00:1b::1
EOF
cat > badvips.expect <<'EOF'
badvips.batch:1:24: error: 'fd00:100::1/64': host bits set past /64, did you mean fd00:100::/64?
badvips.batch:2:24: error: '10.0.0.0/8': a VIP is an IPv6 address or prefix, not IPv4
badvips.batch:3:24: error: '::/0': a VIP prefix is /1 to /128
badvips.batch:4:24: error: 'fd00::/129': prefix length 129 out of range 0..128
badvips.batch:5:24: error: 'fd00::/': bad prefix length ''
EOF
check "bad VIPs in a batch file" 1 "$(cat badvips.expect)" -c -f badvips.batch

# A SID's timeouts: seconds, 1..86400, each once, no unit.
cat > badtimeouts.batch <<'EOF'
sid add fc00::1 accept policy always idle-timeout 0
sid add fc00::1 accept policy always idle-timeout 5 idle-timeout 6
sid add fc00::1 accept policy always udp-timeout
sid add fc00::1 accept policy always syn-timeout 3s
sid add fc00::1 accept policy always close-timeout 86401
sid replace fc00::1 accept policy conns 2 idle-timeout -1
EOF
cat > badtimeouts.expect <<'EOF'
badtimeouts.batch:1:51: error: bad idle-timeout '0' (expected 1..86400)
badtimeouts.batch:2:53: error: idle-timeout given twice
badtimeouts.batch:3:38: error: 'udp-timeout' needs a value
badtimeouts.batch:4:50: error: bad syn-timeout '3s' (expected 1..86400)
badtimeouts.batch:5:52: error: bad close-timeout '86401' (expected 1..86400)
badtimeouts.batch:6:56: error: bad idle-timeout '-1' (expected 1..86400)
EOF
check "bad SID timeouts in a batch file" 1 \
	"$(cat badtimeouts.expect)" -c -f badtimeouts.batch

# Sets ("src { A, B }"): every spacing of the braces and commas, a set
# over continued lines; each mistake at the column of its word, or of its
# value in a word of several.
cat > sets.batch <<'EOF'
rule add t id 1 src { 10.0.0.0/8, 192.168.0.0/16 } dport { 22, 80, 443-445 } proto { tcp, udp } accept
rule add t id 2 src {10.0.0.0/8,192.168.0.0/16} dst {10.1.2.3} sport {1024-65535,7} accept
rule add t id 3 dport "{ 22,80 }" proto {tcp} drop
rule add t id 4 dst { 2001:db8::/32 ,fe80::/10} proto { 58 , 200} count
rule add t id 5 dst {2001:db8::/32 , fe80::/10 } sport{ 1 ,2 ,3} accept
rule add t id 6 family ip6 dst { \
	::1, \
	2001:db8::/64 \
} accept
rule replace t id 6 proto { tcp } dport { 22 } reject with tcp-reset
EOF
check "sets in a batch file" 0 "sets.batch: parsed only, not checked by the kernel: the tuplemerge module is not loaded" -c -f sets.batch
cat > badsets.batch <<'EOF'
rule add t src { } accept
rule add t src {10.0.0.0/8,10.0.0.300} accept
rule add t dport { 22, 80,
rule add t dport { 22 , , 80 } accept
rule add t dport {22,} accept
rule add t src { 10.0.0.0/8 accept
rule add t iif { lo } accept
rule add t src { 10.0.0.0/8, ::1 } accept
rule add t src { 10.0.0.0/8 } dst { 10.1.0.0/16, ::1 } accept
rule add t src {10.0.0.0/8,::1} accept
rule add t family ip6 dst { 10.0.0.0/8 } accept
rule add t proto {tcp,udp,foo} accept
rule add t src "{ 10.0.0.0/8, 10.0.0.1/8 }" accept
rule add t dport { 22 80 } accept
rule add t dport {22}x accept
rule add t dport 22,80 accept
EOF
cat > badsets.expect <<'EOF'
badsets.batch:1:16: error: '{': empty src set
badsets.batch:2:28: error: '10.0.0.300': not an IPv4 or IPv6 prefix
badsets.batch:3:18: error: '{': missing '}' closing the dport set
badsets.batch:4:25: error: ',': stray ',' in the dport set
badsets.batch:5:21: error: '{22,}': stray ',' in the dport set
badsets.batch:6:29: error: 'accept': missing '}' closing the src set before it
badsets.batch:7:16: error: '{': iif takes no set (sets are for src, dst, sport, dport and proto)
badsets.batch:8:30: error: '::1': IPv6 prefix in a src set of IPv4 prefixes
badsets.batch:9:50: error: '::1': IPv6 prefix in a dst set of IPv4 prefixes
badsets.batch:10:28: error: '::1': IPv6 prefix in a src set of IPv4 prefixes
badsets.batch:11:29: error: '10.0.0.0/8': IPv4 prefix in a family ip6 rule
badsets.batch:12:27: error: unknown protocol 'foo' (expected tcp, udp, icmp, icmpv6, sctp, udplite, dccp, gre, esp, ah or 0..255)
badsets.batch:13:16: error: '10.0.0.1/8': host bits set past /8, did you mean 10.0.0.0/8?
badsets.batch:14:23: error: '80': expected ',' or '}' in the dport set
badsets.batch:15:22: error: '{22}x': unexpected 'x' after the dport set
badsets.batch:16:18: error: '22,80': a set of values is written in braces: dport { V, V }
EOF
check "bad sets in a batch file" 1 "$(cat badsets.expect)" -c -f badsets.batch

# A continued line's words are reported on their own line.
printf 'rule add t id 1 \\\n  src 10.0.0.0/8 \\\n  dst ::2 accept\n' > cont.batch
check "error on a continuation line" 1 \
	"cont.batch:3:7: error: '::2': IPv6 destination but IPv4 source" \
	-c -f cont.batch

# Quoting and escapes make one word: the messages show it.
cat > quote.batch <<'EOF'
rule add t proto "tc p" accept
rule add t proto 'a"b' accept
rule add t proto "x\"y\\z" accept
rule add t proto a\ b accept
rule add t proto "" accept
rule add t proto '' accept
rule add t comment 'unterminated accept
rule add t proto x"y z"w accept
EOF
cat > quote.expect <<'EOF'
quote.batch:1:18: error: unknown protocol 'tc p' (expected tcp, udp, icmp, icmpv6, sctp, udplite, dccp, gre, esp, ah or 0..255)
quote.batch:2:18: error: unknown protocol 'a"b' (expected tcp, udp, icmp, icmpv6, sctp, udplite, dccp, gre, esp, ah or 0..255)
quote.batch:3:18: error: unknown protocol 'x"y\z' (expected tcp, udp, icmp, icmpv6, sctp, udplite, dccp, gre, esp, ah or 0..255)
quote.batch:4:18: error: unknown protocol 'a b' (expected tcp, udp, icmp, icmpv6, sctp, udplite, dccp, gre, esp, ah or 0..255)
quote.batch:5:18: error: unknown protocol '' (expected tcp, udp, icmp, icmpv6, sctp, udplite, dccp, gre, esp, ah or 0..255)
quote.batch:6:18: error: unknown protocol '' (expected tcp, udp, icmp, icmpv6, sctp, udplite, dccp, gre, esp, ah or 0..255)
quote.batch:7:20: error: unterminated ' quote
quote.batch:8:18: error: unknown protocol 'xy zw' (expected tcp, udp, icmp, icmpv6, sctp, udplite, dccp, gre, esp, ah or 0..255)
EOF
check "quotes and escapes" 1 "$(cat quote.expect)" -c -f quote.batch

# Values that cannot be sent.
long=$(printf 'c%.0s' {1..128})
cat > limits.batch <<EOF
rule add t comment "$long" accept
rule add t comment "tab	inside" accept
rule add t iif nosuchdev0 accept
rule add t oif abcdefghijklmnopq accept
rule add abcdefghijklmnopqrstuvwxyz0123456 accept
rule add t id 2147483648 accept
rule add t lb "" 
rule add t reject with
rule add t reject with foo
EOF
cat > limits.expect <<'EOF'
limits.batch:1:20: error: comment is longer than 127 bytes
limits.batch:2:20: error: comment has a control character
limits.batch:3:16: error: unknown device 'nosuchdev0'
limits.batch:4:16: error: device name 'abcdefghijklmnopq' is longer than 15 bytes
limits.batch:5:10: error: table name 'abcdefghijklmnopqrstuvwxyz0123456' is longer than 31 bytes
limits.batch:6:15: error: bad rule id '2147483648' (expected 1..2147483647)
limits.batch:7:15: error: lb service name is empty
limits.batch:8:19: error: 'with' needs a reject type
limits.batch:9:24: error: unknown reject type 'foo' (expected tcp-reset, port-unreachable, host-unreachable or admin-prohibited)
EOF
check "limits" 1 "$(cat limits.expect)" -c -f limits.batch

# Verbs and their required words.
cat > verbs.batch <<'EOF'
rule replace t accept
rule replace t id 1
rule del t
rule del t id 3 src 1.2.3.4
rule flush t x
rule flush
rule
rule add t accept reset-counters
rule add t id
EOF
cat > verbs.expect <<'EOF'
verbs.batch:1:22: error: missing 'id N' (rule replace needs the rule id)
verbs.batch:2:20: error: missing action (accept, drop, reject, mark, count, lb or queue)
verbs.batch:3:11: error: missing 'id N' (rule del needs the rule id)
verbs.batch:4:17: error: unknown keyword 'src'
verbs.batch:5:14: error: unexpected 'x'
verbs.batch:6:11: error: missing table name
verbs.batch:7:5: error: missing rule command (add, replace, del or flush)
verbs.batch:8:19: error: unknown keyword 'reset-counters'
verbs.batch:9:12: error: 'id' needs a value
EOF
check "verbs" 1 "$(cat verbs.expect)" -c -f verbs.batch

# At most 20 errors, then one line.
for i in $(seq 1 25); do echo "rule add t id $i bogus"; done > many.batch
{
	for i in $(seq 1 20); do
		printf 'many.batch:%d:%d: error: unknown keyword '"'"'bogus'"'"'\n' \
			"$i" $((16 + ${#i}))
	done
	echo "many.batch: error: too many errors, stopped"
} > many.expect
check "error cap" 1 "$(cat many.expect)" -c -f many.batch
head -n 20 many.batch > many20.batch
sed 's/^many\.batch/many20.batch/; /too many errors/d' many.expect > many20.expect
check "exactly 20 errors: all read, nothing stopped" 1 \
	"$(cat many20.expect)" -c -f many20.batch

# stdin, missing files, -f with a command.
check "stdin" 1 "<stdin>:1:12: error: unknown keyword 'x'" \
	-c -f - < <(echo "rule add t x")
check "stdin, good" 0 "<stdin>: parsed only, not checked by the kernel: the tuplemerge module is not loaded" -c -f - < <(echo "rule add t accept")
check "missing file" 1 "tmctl: nofile: No such file or directory" \
	-c -f nofile
check "-f and a command" 1 "tmctl: -f FILE takes no command, got 'rule'" \
	-f good.batch rule list t
printf 'rule add t prot\0o tcp accept\n' > nul.batch
check "NUL byte" 1 "nul.batch:1:16: error: NUL byte" -c -f nul.batch

# JSON files (tmctl -j -f, tmctl-json(5)): the format of tmctl -j list
# ruleset, each object made into the words of its text command, parsed by
# the text parsers.  The configuration of selftests/ruleset.sh, with every
# key list ruleset prints; "dns" has the defaults, "bulk" the rest.
cat > good.json <<'EOF'
{
	"version": 1,
	"sids": [
		{"sid": "fc00:1::100", "policy": "always",
		 "idle_timeout": 60, "close_timeout": 2, "syn_timeout": 3,
		 "udp_timeout": 30},
		{"sid": "fc00:2::100", "policy": "never"},
		{"sid": "fc00:3::100", "policy": "conns", "threshold": 8,
		 "hmac": 7},
		{"sid": "fc00:4::100", "policy": "backlog", "threshold": 4,
		 "idle_timeout": 120, "close_timeout": 5, "syn_timeout": 4,
		 "udp_timeout": 300}
	],
	"services": [
		{"name": "web", "vip": "fd00:100::1", "proto": "tcp",
		 "port": 8080, "sid": "fd00:1b::1", "affinity": "src",
		 "choices": 3,
		 "table_size": 251, "max_flows": 1000, "idle_timeout": 60,
		 "fin_timeout": 5, "syn_timeout": 2, "hmac": 9,
		 "health_interval_ms": 1500, "health_timeout_ms": 500,
		 "health_rise": 2, "health_fall": 3, "health_listener": true,
		 "backends": [
			{"sid": "fc00:1::100", "weight": 1},
			{"sid": "fc00:2::100", "weight": 3},
			{"sid": "fc00:3::100", "weight": 65535}
		 ]},
		{"name": "dns", "vip": "fd00:100::53", "sid": "fd00:1b::2",
		 "proto": "udp",
		 "backends": [{"sid": "fc00:4::100"}]}
	],
	"tables": [
		{"name": "edge", "family": "ip6", "hook": "prerouting",
		 "priority": -150, "policy": "drop", "engine": "tss",
		 "collide": 8, "max_rules": 5000, "max_tuples": 100,
		 "rules": [
			{"table": "edge", "id": 1, "priority": 7,
			 "family": "ip6", "dst": "fd00:100::1/128",
			 "dport_min": 8080, "dport_max": 8080, "proto": 6,
			 "action": "lb", "lb_service": "web"},
			{"table": "edge", "id": 2, "priority": 0,
			 "family": "ip6", "src": "fe80::/10",
			 "sport_min": 1000, "sport_max": 2000, "proto": 17,
			 "comment": "link local, with spaces", "cookie": 42,
			 "action": "accept"},
			{"table": "edge", "id": 3, "priority": 0,
			 "family": "ip6", "proto": 58, "iif": "lo",
			 "iif_index": 1, "action": "mark", "mark": 42}
		 ]},
		{"name": "filter", "family": "inet", "hook": "input",
		 "priority": 0, "policy": "accept", "engine": "tuplemerge",
		 "rules": [
			{"table": "filter", "id": 9, "priority": 0,
			 "family": "ip6", "proto": 6, "action": "reject",
			 "reject": "tcp-reset"},
			{"table": "filter", "id": 10, "priority": 0,
			 "family": "ip", "src": "10.0.0.0/8",
			 "dst": "192.168.1.1/32", "proto": 47,
			 "action": "count"},
			{"table": "filter", "id": 11, "priority": 0,
			 "family": "inet", "dport_min": 22, "dport_max": 22,
			 "action": "drop"},
			{"table": "filter", "id": 12, "priority": 0,
			 "family": "inet", "comment": "say \"hi\" and 'bye'",
			 "action": "reject", "reject": "auto"}
		 ]},
		{"name": "bulk", "family": "ip", "hook": "forward",
		 "priority": 0, "policy": "accept", "engine": "linear",
		 "rules": [
			{"table": "bulk", "id": 1, "priority": 0, "family": "ip",
			 "src": "10.0.1.0/24", "dport_min": 2, "dport_max": 2,
			 "action": "drop"},
			{"table": "bulk", "id": 2, "priority": 0, "family": "ip",
			 "oif": "lo", "oif_index": 1,
			 "cookie": 18446744073709551615, "action": "mark",
			 "mark": 4294967295, "packets": 12, "bytes": 3456}
		 ]}
	]
}
EOF
# The same configuration as a text file: what tmctl list ruleset prints
# (the last rule with the counters of rule list).
cat > good-json.batch <<'EOF'
sid add fc00:1::100 accept policy always
sid add fc00:2::100 accept policy never
sid add fc00:3::100 accept policy conns 8 hmac 7
sid add fc00:4::100 accept policy backlog 4 idle-timeout 120 close-timeout 5 syn-timeout 4 udp-timeout 300
lb service add web vip fd00:100::1 sid fd00:1b::1 tcp port 8080 affinity src choices 3 table-size 251 max-flows 1000 idle-timeout 60 fin-timeout 5 syn-timeout 2 hmac 9 health-interval 1500ms health-timeout 500ms health-rise 2 health-fall 3 health-listener
lb backend add web fc00:1::100 weight 1
lb backend add web fc00:2::100 weight 3
lb backend add web fc00:3::100 weight 65535
lb service add dns vip fd00:100::53 sid fd00:1b::2 udp
lb backend add dns fc00:4::100
table add edge family ip6 hook prerouting priority -150 policy drop engine tss collide 8 max-rules 5000 max-tuples 100
rule add edge id 1 priority 7 dst fd00:100::1 dport 8080 proto tcp lb web
rule add edge id 2 priority 0 src fe80::/10 sport 1000-2000 proto udp comment "link local, with spaces" cookie 42 accept
rule add edge id 3 priority 0 family ip6 proto icmpv6 iif lo mark 0x2a
table add filter family inet hook input priority 0 policy accept engine tuplemerge
rule add filter id 9 priority 0 family ip6 proto tcp reject with tcp-reset
rule add filter id 10 priority 0 src 10.0.0.0/8 dst 192.168.1.1 proto gre count
rule add filter id 11 priority 0 family inet dport 22 drop
rule add filter id 12 priority 0 family inet comment "say \"hi\" and 'bye'" reject
table add bulk family ip hook forward priority 0 policy accept engine linear
rule add bulk id 1 priority 0 src 10.0.1.0/24 dport 2 drop
rule add bulk id 2 priority 0 family ip oif lo cookie 18446744073709551615 mark 0xffffffff packets 12 bytes 3456
EOF
json_parsed="parsed only, not checked by the kernel: the tuplemerge module is not loaded"
check "JSON file, every object and key" 0 "good.json: $json_parsed" \
	-c -j -f good.json
check "its text form" 0 "good-json.batch: $json_parsed" \
	-c -f good-json.batch
# One line, as list ruleset prints it.
tr -d '\n\t' < good.json > line.json
check "JSON file on one line" 0 "line.json: $json_parsed" -c -j -f line.json
check "JSON file on stdin" 0 "<stdin>: $json_parsed" -c -j -f - < good.json

# words NAME FILE WANT: tmctl -c -e -j -f FILE prints the commands the
# JSON file stands for: the same words as the text file WANT.
words()
{
	local got

	got=$("$TMCTL" -c -e -j -f "$2" 2>/dev/null)
	if [ "$got" = "$(cat "$3")" ]; then
		passed=$((passed + 1))
		return
	fi
	failed=$((failed + 1))
	echo "FAIL: $1"
	diff <(printf '%s\n' "$got") "$3" | sed 's/^/    /'
}
words "JSON objects make the words of the text" good.json good-json.batch
words "one-line JSON, the same words" line.json good-json.batch

# Emission order: flush ruleset, SIDs, services, tables, whatever the
# order of the members.
cat > order.json <<'EOF'
{"tables": [{"rules": [{"action": "accept", "id": 1}], "name": "t"}],
 "services": [{"backends": [{"sid": "fc00::2"}], "sid": "fd00::2",
	       "vip": "fd00::1", "name": "s"}],
 "sids": [{"policy": "always", "sid": "fc00::2"}],
 "flush_ruleset": true, "version": 1}
EOF
cat > order.expect <<'EOF'
flush ruleset
sid add fc00::2 accept policy always
lb service add s vip fd00::1 sid fd00::2
lb backend add s fc00::2
table add t
rule add t id 1 accept
EOF
words "emission order, flush_ruleset" order.json order.expect

# What sid show -j prints reads back: the counters are read and ignored.
cat > sidshow.json <<'EOF'
{"sids": [{"sid": "fc00:5::100", "policy": "load", "threshold": 50,
	   "conns": 1, "load": 20, "accepted": 3, "passed": 0, "forced": 0,
	   "steered": 12, "unknown": 0, "malformed": 0, "reports": 7,
	   "hmac_bad": 0, "hmac_nokey": 0}]}
EOF
cat > sidshow.expect <<'EOF'
sid add fc00:5::100 accept policy load 50 conns-now 1 load-now 20 accepted 3 passed 0 forced 0 steered 12 unknown 0 malformed 0 reports 7 hmac-bad 0 hmac-nokey 0
EOF
words "SID counters, policy load" sidshow.json sidshow.expect
cat > siddyn.json <<'EOF'
{"sids": [{"sid": "fc00:6::100", "policy": "dyn", "threshold": 8,
	   "idle_timeout": 60, "close_timeout": 2, "syn_timeout": 3,
	   "udp_timeout": 30, "conns": 2, "load": 0, "dyn_milli": 3250,
	   "accepted": 9}]}
EOF
cat > siddyn.expect <<'EOF'
sid add fc00:6::100 accept policy dyn 8 conns-now 2 load-now 0 accepted 9
EOF
words "SID counters, policy dyn: dyn_milli read, no word" siddyn.json \
	siddyn.expect

# Sets are arrays: of strings (prefixes; ports, "P" or "LO-HI", integers
# too) and of integers (protocols), made into the text's sets.
cat > sets.json <<'EOF'
{"tables": [{"name": "t", "rules": [
	{"id": 1, "src": ["10.0.0.0/8", "192.168.0.0/16"],
	 "dport": ["22", "80", "443-445"], "proto": [6, 17],
	 "action": "accept"},
	{"id": 2, "family": "ip6", "dst": ["::1/128", "2001:db8::/32"],
	 "sport": [1024, "2000-3000"], "action": "drop"},
	{"id": 3, "family": "ip6", "proto": [58], "action": "count"},
	{"id": 4, "family": "ip", "src": ["0.0.0.0/0"], "action": "accept"}]}]}
EOF
cat > sets-json.expect <<'EOF'
table add t
rule add t id 1 src { 10.0.0.0/8, 192.168.0.0/16 } dport { 22, 80, 443-445 } proto { tcp, udp } accept
rule add t id 2 dst { ::1, 2001:db8::/32 } sport { 1024, 2000-3000 } drop
rule add t id 3 family ip6 proto { icmpv6 } count
rule add t id 4 src { 0.0.0.0/0 } accept
EOF
words "sets in a JSON file" sets.json sets-json.expect
check "sets in a JSON file parse" 0 "sets.json: $json_parsed" \
	-c -j -f sets.json
cat > badsets.json <<'EOF'
{"tables": [{"name": "t", "rules": [
	{"src": ["10.0.0.0/8", 5], "action": "accept"},
	{"src": ["10.0.0.0/8,10.1.0.0/16"], "action": "accept"},
	{"dport": [22, "80", true], "proto": ["tcp"], "action": "accept"},
	{"dport": [], "action": "accept"},
	{"dport": ["70000"], "action": "accept"},
	{"src": ["10.0.0.0/8", "::1"], "action": "accept"},
	{"proto": [6, 300], "action": "accept"},
	{"dport": [22], "dport_min": 1, "dport_max": 2, "action": "accept"},
	{"src": 5, "action": "accept"},
	{"sport": "22", "action": "accept"},
	{"dst": ["10.0.0.1/8"], "action": "accept"}]}]}
EOF
cat > badsets-json.expect <<'EOF'
badsets.json: tables[0].rules[0].src[1]: error: expected a string, not an integer
badsets.json: tables[0].rules[1].src[0]: error: '10.0.0.0/8,10.1.0.0/16': a value of a set is one word, without blanks, ',', '{' or '}'
badsets.json: tables[0].rules[2].dport[2]: error: expected a string or an integer, not a boolean
badsets.json: tables[0].rules[2].proto[0]: error: expected an integer, not a string
badsets.json: tables[0].rules[3].dport: error: '{': empty dport set
badsets.json: tables[0].rules[4].dport[0]: error: '70000': port out of range 0..65535
badsets.json: tables[0].rules[5].src[1]: error: '::1': IPv6 prefix in a src set of IPv4 prefixes
badsets.json: tables[0].rules[6].proto[1]: error: protocol 300 out of range 0..255
badsets.json: tables[0].rules[7].dport: error: dport given twice
badsets.json: tables[0].rules[8].src: error: expected a string or an array (a set), not an integer
badsets.json: tables[0].rules[9].sport: error: expected an array, not a string
badsets.json: tables[0].rules[10].dst[0]: error: '10.0.0.1/8': host bits set past /8, did you mean 10.0.0.0/8?
EOF
check "bad sets in a JSON file" 1 "$(cat badsets-json.expect)" \
	-c -j -f badsets.json
check "SID counters parse" 0 "sidshow.json: $json_parsed" -c -j -f sidshow.json
printf '{"flush_ruleset": false, "tables": []}' > noflush.json
: > empty.expect
words "flush_ruleset false" noflush.json empty.expect
printf '{}' > empty.json
check "empty JSON object" 0 "empty.json: $json_parsed" -c -j -f empty.json
words "empty JSON object, no command" empty.json empty.expect

# The document's errors: JSON syntax at LINE:COL (jansson's message),
# the rest at the path of the member.
printf '{"version": 2, "tables": 5}' > v2.json
check "version 2" 1 \
	"v2.json: version: error: unsupported version 2 (this tmctl reads version 1)" \
	-c -j -f v2.json
printf '{"version": "1"}' > vstr.json
check "version as a string" 1 \
	'vstr.json: version: error: unsupported version "1" (this tmctl reads version 1)' \
	-c -j -f vstr.json
printf '{"tables": [{"name": "t",\n  "rules": [{"id": 1, "action": "drop",}]}]}' \
	> syntax.json
check "JSON syntax error" 1 \
	"syntax.json:2:40: error: string or '}' expected near '}'" \
	-c -j -f syntax.json
printf '{"sids": [], "sids": []}' > dup.json
check "a member twice" 1 \
	"dup.json:1:19: error: duplicate object key near '\"sids\"'" \
	-c -j -f dup.json
printf '[]' > array.json
check "top level not an object" 1 \
	"array.json: error: expected an object, not an array" \
	-c -j -f array.json
: > nothing.json
check "empty JSON file" 1 \
	"nothing.json:1:0: error: '[' or '{' expected near end of file" \
	-c -j -f nothing.json
cat > types.json <<'EOF'
{"sids": [{"sid": "fc00::1", "policy": "conns", "threshold": "8"},
	  {"sid": ["fc00::2"], "policy": "always"}, 7],
 "services": {"name": "s"},
 "tables": [{"name": "t", "priority": 1.5, "rules": [
	{"id": 1, "comment": "a\u0000b", "action": "drop"},
	{"id": 2, "action": "drop", "frob": 1},
	{"id": 3, "table": "u", "action": "drop"},
	{"id": 4, "action": "jump"},
	{"id": 5, "dport_min": 80, "action": "drop"},
	{"id": 6, "mark": null, "action": "mark"}]},
	{"family": "ip", "rules": [{"action": "drop"}]}],
 "flush_ruleset": 1, "comment": "x"}
EOF
cat > types.expect <<'EOF'
types.json: comment: error: unknown member 'comment' of the top level (expected version, flush_ruleset, sids, services or tables)
types.json: flush_ruleset: error: expected true or false, not an integer
types.json: sids[0].threshold: error: expected an integer, not a string
types.json: sids[1].sid: error: expected a string, not an array
types.json: sids[2]: error: expected an object, not an integer
types.json: services: error: expected an array, not an object
types.json: tables[0].priority: error: expected an integer, not a number with a fraction or an exponent
types.json: tables[0].rules[0].comment: error: a string with a NUL character (\u0000)
types.json: tables[0].rules[1].frob: error: unknown member 'frob' of a rule (expected table, id, priority, family, src, dst, sport, sport_min, sport_max, dport, dport_min, dport_max, proto, iif, iif_index, oif, oif_index, ct_state, tcp_flags_mask, tcp_flags, icmp_type_min, icmp_type_max, icmp_code_min, icmp_code_max, meta_mark, meta_mark_mask, dscp, fragment, comment, cookie, action, reject, mark, lb_service, queue, queue_bypass, log, log_prefix, log_level, log_group, log_rate, trace, packets or bytes)
types.json: tables[0].rules[2].table: error: 'u' is not the table the rule is in, 't'
types.json: tables[0].rules[3].action: error: unknown action 'jump' (expected accept, drop, reject, mark, count, lb or queue)
types.json: tables[0].rules[4].dport_min: error: dport_min without dport_max (a range has both, equal for one port)
types.json: tables[0].rules[5].mark: error: expected an integer, not null
types.json: tables[1]: error: missing member 'name' (the table's name)
EOF
check "JSON members of the wrong type or unknown" 1 "$(cat types.expect)" \
	-c -j -f types.json

# Values the text parsers refuse, reported at PATH.KEY.
cat > values.json <<'EOF'
{"sids": [{"sid": "10.0.0.1", "policy": "always"},
	  {"sid": "fc00::1", "policy": "conns", "hmac": 3}],
 "services": [{"name": "web", "vip": "fd00::1", "sid": "fd00::2",
	       "proto": "sctp",
	       "backends": [{"sid": "fc00::1", "weight": 65536}]}],
 "tables": [{"name": "t", "collide": 0, "rules": [
	{"dport_min": 70000, "dport_max": 70000, "action": "drop"},
	{"sport_min": 90, "sport_max": 80, "action": "drop"},
	{"src": "10.0.0.300", "action": "accept"},
	{"family": "ip6", "src": "10.0.0.0/8", "action": "accept"},
	{"id": 7},
	{"cookie": 18446744073709551616, "action": "accept"},
	{"action": "reject", "reject": "later"},
	{"action": "accept", "mark": 5}]}]}
EOF
cat > values.expect <<'EOF'
values.json: sids[0].sid: error: '10.0.0.1': a SID is an IPv6 address, not IPv4
values.json: sids[1]: error: policy conns needs a number N (1..4294967295)
values.json: services[0].proto: error: unknown service protocol 'sctp' (expected tcp or udp)
values.json: services[0].backends[0].weight: error: bad weight '65536' (expected 0..65535)
values.json: tables[0].collide: error: bad collide '0' (expected 1..128)
values.json: tables[0].rules[0].dport_min: error: '70000': port out of range 0..65535
values.json: tables[0].rules[1].sport_min: error: '90-80': empty port range, 90 is above 80
values.json: tables[0].rules[2].src: error: '10.0.0.300': not an IPv4 or IPv6 prefix
values.json: tables[0].rules[3].src: error: '10.0.0.0/8': IPv4 prefix in a family ip6 rule
values.json: tables[0].rules[4]: error: missing action (accept, drop, reject, mark, count, lb or queue)
values.json: tables[0].rules[5].cookie: error: bad cookie '18446744073709551616' (expected 0..18446744073709551615)
values.json: tables[0].rules[6].reject: error: unknown reject type 'later' (expected tcp-reset, port-unreachable, host-unreachable or admin-prohibited)
values.json: tables[0].rules[7].mark: error: second action 'mark', the rule already has 'accept'
EOF
check "JSON values refused by the text parsers" 1 "$(cat values.expect)" \
	-c -j -f values.json
check "JSON on stdin, an error" 1 \
	"<stdin>: tables[0].rules[1].id: error: bad rule id '0' (expected 1..2147483647)" \
	-c -j -f - < <(printf '{"tables": [{"name": "t", "rules": [{"action": "drop"}, {"id": 0, "action": "drop"}]}]}')

# The same mistake in a text file and in a JSON file: the same message.
# same_error NAME TEXT-LINE JSON: compare the messages after the place.
same_error()
{
	local t j

	printf '%s\n' "$2" > same.batch
	printf '%s\n' "$3" > same.json
	t=$("$TMCTL" -c -f same.batch 2>&1 | sed 's/^same\.batch:[0-9:]*: //')
	j=$("$TMCTL" -c -j -f same.json 2>&1 | sed 's/^same\.json: [^:]*: //')
	if [ -n "$t" ] && [ "$t" = "$j" ]; then
		passed=$((passed + 1))
		return
	fi
	failed=$((failed + 1))
	echo "FAIL: same error: $1"
	echo "  text: $t"
	echo "  JSON: $j"
}
same_error "bad prefix" "rule add t src 10.0.0.1/8 accept" \
	'{"tables": [{"name": "t", "rules": [{"src": "10.0.0.1/8", "action": "accept"}]}]}'
same_error "port" "rule add t dport 65536 drop" \
	'{"tables": [{"name": "t", "rules": [{"dport_min": 65536, "dport_max": 65536, "action": "drop"}]}]}'
same_error "protocol" "rule add t proto 256 drop" \
	'{"tables": [{"name": "t", "rules": [{"proto": 256, "action": "drop"}]}]}'
same_error "mark" "rule add t mark 4294967296" \
	'{"tables": [{"name": "t", "rules": [{"action": "mark", "mark": 4294967296}]}]}'
same_error "family" "rule add t family inet dst 10.0.0.0/8 accept" \
	'{"tables": [{"name": "t", "rules": [{"family": "inet", "dst": "10.0.0.0/8", "action": "accept"}]}]}'
same_error "device" "rule add t iif nosuchdev0 accept" \
	'{"tables": [{"name": "t", "rules": [{"iif": "nosuchdev0", "action": "accept"}]}]}'
same_error "comment" "rule add t comment \"tab	inside\" accept" \
	'{"tables": [{"name": "t", "rules": [{"comment": "tab\tinside", "action": "accept"}]}]}'
same_error "table name" "table add abcdefghijklmnopqrstuvwxyz0123456" \
	'{"tables": [{"name": "abcdefghijklmnopqrstuvwxyz0123456"}]}'
same_error "table hook" "table add t hook ingress" \
	'{"tables": [{"name": "t", "hook": "ingress"}]}'
same_error "SID threshold" "sid add fc00::1 accept policy backlog 0" \
	'{"sids": [{"sid": "fc00::1", "policy": "backlog", "threshold": 0}]}'
same_error "SID timeout" "sid add fc00::1 accept policy always udp-timeout 0" \
	'{"sids": [{"sid": "fc00::1", "policy": "always", "udp_timeout": 0}]}'
same_error "service port" "lb service add web vip fd00::1 sid fd00::2 port 65536" \
	'{"services": [{"name": "web", "vip": "fd00::1", "sid": "fd00::2", "port": 65536}]}'
same_error "service name" "lb service add abcdefghijklmnopqrstuvwxyz012345 vip fd00::1 sid fd00::2" \
	'{"services": [{"name": "abcdefghijklmnopqrstuvwxyz012345", "vip": "fd00::1", "sid": "fd00::2"}]}'
same_error "health interval" "lb service add web vip fd00::1 sid fd00::2 health-interval 50ms" \
	'{"services": [{"name": "web", "vip": "fd00::1", "sid": "fd00::2", "health_interval_ms": 50}]}'
same_error "health timeout" "lb service add web vip fd00::1 sid fd00::2 health-interval 1000ms health-timeout 1001ms" \
	'{"services": [{"name": "web", "vip": "fd00::1", "sid": "fd00::2", "health_interval_ms": 1000, "health_timeout_ms": 1001}]}'
same_error "health listener alone" "lb service add web vip fd00::1 sid fd00::2 health-listener" \
	'{"services": [{"name": "web", "vip": "fd00::1", "sid": "fd00::2", "health_listener": true}]}'
same_error "backend weight" "lb backend add web fc00::1 weight 65536" \
	'{"services": [{"name": "web", "vip": "fd00::1", "sid": "fd00::2", "backends": [{"sid": "fc00::1", "weight": 65536}]}]}'
same_error "a set's port" "rule add t dport { 22, 65536 } drop" \
	'{"tables": [{"name": "t", "rules": [{"dport": ["22", "65536"], "action": "drop"}]}]}'
same_error "a set's families" "rule add t src { 10.0.0.0/8, ::/0 } drop" \
	'{"tables": [{"name": "t", "rules": [{"src": ["10.0.0.0/8", "::/0"], "action": "drop"}]}]}'
same_error "a set and the family" "rule add t family ip dst { ::1 } drop" \
	'{"tables": [{"name": "t", "rules": [{"family": "ip", "dst": ["::1"], "action": "drop"}]}]}'

# At most 20 errors, then one line, as for text files.
{
	printf '{"tables": [{"name": "t", "rules": [{"id": 1, "bogus": 1}'
	for i in $(seq 2 25); do
		printf ', {"id": %d, "bogus": 1}' "$i"
	done
	printf ']}]}\n'
} > many.json
{
	for i in $(seq 0 19); do
		printf "many.json: tables[0].rules[%d].bogus: error: unknown member 'bogus' of a rule (expected table, id, priority, family, src, dst, sport, sport_min, sport_max, dport, dport_min, dport_max, proto, iif, iif_index, oif, oif_index, ct_state, tcp_flags_mask, tcp_flags, icmp_type_min, icmp_type_max, icmp_code_min, icmp_code_max, meta_mark, meta_mark_mask, dscp, fragment, comment, cookie, action, reject, mark, lb_service, queue, queue_bypass, log, log_prefix, log_level, log_group, log_rate, trace, packets or bytes)\n" "$i"
	done
	echo "many.json: error: too many errors, stopped"
} > many-json.expect
check "JSON error cap" 1 "$(cat many-json.expect)" -c -j -f many.json
# Exactly 20: all read, nothing said to be stopped.
sed 's/, {"id": 2[1-5], "bogus": 1}//g' many.json > many20.json
sed 's/^many\.json/many20.json/; /too many errors/d' many-json.expect \
	> many20-json.expect
check "JSON, exactly 20 errors: all read, nothing stopped" 1 \
	"$(cat many20-json.expect)" -c -j -f many20.json
# Errors of the text parser (the commands made, then refused): the same.
for n in 20 21; do
	{
		printf '{"sids": [{"sid": "fc00::1", "policy": "frob"}'
		for i in $(seq 2 "$n"); do
			printf ', {"sid": "fc00::%d", "policy": "frob"}' "$i"
		done
		printf ']}\n'
	} > refused$n.json
	for i in $(seq 0 19); do
		printf "refused$n.json: sids[%d].policy: error: unknown policy 'frob' (expected always, never, conns, backlog, load or dyn)\n" "$i"
	done > refused$n.expect
done
echo "refused21.json: error: too many errors, stopped" >> refused21.expect
check "JSON, 20 refused commands: nothing stopped" 1 \
	"$(cat refused20.expect)" -c -j -f refused20.json
check "JSON, 21 refused commands: stopped" 1 \
	"$(cat refused21.expect)" -c -j -f refused21.json

# Command lines: errors found before any netlink traffic.
ok "rule add, every field" rule add t id 7 priority 3 src 10.0.0.0/8 \
	dst 192.168.0.0/16 sport 1-1023 dport 443 proto tcp iif lo \
	comment "a comment" cookie 99 mark 0x10
ok "rule replace" rule replace t id 7 drop reset-counters
ok "rule del" rule del t id 7
ok "rule flush" rule flush t
ok "rule list" rule list t
ok "rule show" rule show t
ok "rule get" rule get t id 1
ok "rule lookup" rule lookup t src 10.0.0.1 dst 10.0.0.2 sport 1 \
	dport 2 proto udp iif lo oif lo
ok "rule lookup, IPv6" rule lookup t src ::1 dst 2001:db8::1
ok "counters reset" counters reset t
ok "counters reset id" counters reset t id 3
ok "table add, every option" table add t family ip6 hook forward \
	priority -100 policy drop engine tss collide 16 max-rules 1000 \
	max-tuples 64
ok "table add, abbreviated" table add t fam ip hoo output pri 5 pol accept
ok "stats" stats
ok "metrics" metrics
ok "metrics, every keyword" metrics no-rules output m.prom
ok "metrics, abbreviated" me no o m.prom
bad "m is still monitor" "monitor: unexpected 'x' (monitor [trace])" m x
bad "metrics, unknown keyword" "metrics: unknown keyword 'rules'" \
	metrics rules
bad "metrics, output without its file" "metrics: 'output' needs a file" \
	metrics output
bad "metrics, output twice" "metrics: output given twice" \
	metrics output a.prom output b.prom
bad "metrics, an empty file name" "metrics: output file name is empty" \
	metrics output ""
bad "metrics -j" "metrics: Prometheus text has no JSON form: drop -j" \
	-j metrics
bad "metrics -s" "metrics: -s does not apply (no-rules leaves rules out)" \
	-s metrics
ok "list ruleset" list ruleset
ok "list ruleset, abbreviated" li rules
ok "save" save
ok "flush ruleset" flush ruleset

bad "list what" "list: expected 'list ruleset'" list tables
bad "list nothing" "list: expected 'list ruleset'" list
bad "save extra" "save: unexpected 'x'" save x
bad "flush what" "flush: expected 'flush ruleset'" flush ruleset now

bad "unknown keyword" "rule add: unknown keyword 'foo'" \
	rule add t foo 1 accept
bad "unknown protocol" "rule add: unknown protocol 'tcpp' (expected tcp, udp, icmp, icmpv6, sctp, udplite, dccp, gre, esp, ah or 0..255)" \
	rule add t proto tcpp accept
bad "protocol range" "rule add: protocol 256 out of range 0..255" \
	rule add t proto 256 accept
bad "bad prefix" "rule add: '10.0.0.300': not an IPv4 or IPv6 prefix" \
	rule add t src 10.0.0.300 accept
bad "bad IPv6 prefix" "rule add: '2001:db8:::1/64': not an IPv4 or IPv6 prefix" \
	rule add t dst 2001:db8:::1/64 accept
bad "host bits" "rule add: '10.0.0.1/8': host bits set past /8, did you mean 10.0.0.0/8?" \
	rule add t src 10.0.0.1/8 accept
bad "host bits, IPv6" "rule add: '2001:db8::1/32': host bits set past /32, did you mean 2001:db8::/32?" \
	rule add t dst 2001:db8::1/32 accept
bad "prefix length" "rule add: '::/129': prefix length 129 out of range 0..128" \
	rule add t src ::/129 accept
bad "bad prefix length" "rule add: '10.0.0.0/-1': bad prefix length '-1'" \
	rule add t src 10.0.0.0/-1 accept
bad "bad port" "rule add: 'ssh': bad port (expected 0..65535 or LOW-HIGH)" \
	rule add t dport ssh accept
bad "port range" "rule add: '65536': port out of range 0..65535" \
	rule add t sport 65536 accept
bad "lo > hi" "rule add: '90-80': empty port range, 90 is above 80" \
	rule add t sport 90-80 accept
bad "open range" "rule add: '80-': bad port (expected 0..65535 or LOW-HIGH)" \
	rule add t dport 80- accept
bad "bad mark" "rule add: bad mark '-1' (expected 0..4294967295)" \
	rule add t mark -1
bad "mark without value" "rule add: 'mark' needs a value" rule add t mark
# The stateful matches.
ok "ct state, tcp-flags" rule add t proto tcp ct state established,related \
	tcp-flags syn,ack,rst,fin syn accept
ok "icmp, meta mark, dscp, fragment" rule add t proto icmp icmp-type 8 \
	icmp-code 0-3 meta mark 0x10/0xf0 dscp 10-12,46 fragment first,later drop
bad "ct without state" "rule add: 'established': expected 'ct state'" \
	rule add t ct established accept
bad "ct state alone" "rule add: 'ct' needs 2 more words" rule add t ct state
bad "unknown ct state" "rule add: 'new,bogus': unknown connection state 'bogus' (expected invalid, new, established, related, untracked, comma-separated)" \
	rule add t ct state new,bogus accept
bad "flags outside the mask" "rule add: 'syn,ack': flags outside the mask 'syn'" \
	rule add t proto tcp tcp-flags syn syn,ack accept
bad "empty flags mask" "rule add: 'none': a TCP flags mask has a flag" \
	rule add t proto tcp tcp-flags none none accept
bad "meta mark outside its mask" "rule add: '3/1': mark bits outside the mask" \
	rule add t meta mark 3/1 accept
bad "meta without mark" "rule add: 'dscp': expected 'meta mark'" \
	rule add t meta dscp 1 accept
bad "dscp range" "rule add: '64': DSCP out of range 0..63" \
	rule add t dscp 10,64 accept
bad "icmp type range" "rule add: '256': ICMP type out of range 0..255" \
	rule add t proto icmp icmp-type 256 accept
ok "log rate at the maximum" rule add t log rate 1000000/second accept
bad "log rate past the maximum" "rule add: bad log rate '1000001' (expected 1..1000000)" \
	rule add t log rate 1000001 accept
bad "log rate/second past the maximum" "rule add: bad log rate '2147483648/second' (expected N or N/second, N 1..1000000)" \
	rule add t log rate 2147483648/second accept
bad "fragment kind" "rule add: 'middle': unknown fragment kind 'middle' (expected none, first, later, comma-separated)" \
	rule add t fragment middle accept
bad "missing action" "rule add: missing action (accept, drop, reject, mark, count, lb or queue)" \
	rule add t src 10.0.0.0/8
bad "missing table" "rule add: missing table name" rule add
bad "family mix" "rule add: '::1': IPv6 destination but IPv4 source" \
	rule add t src 10.0.0.0/8 dst ::1 accept
# Sets, as a shell splits them.
ok "sets, spaced" rule add t src '{' 10.0.0.0/8, 192.168.0.0/16 '}' \
	dport '{' 22, 80, 443-445 '}' proto '{' tcp, udp '}' accept
ok "sets, attached" rule add t src '{10.0.0.0/8,192.168.0.0/16}' \
	dport '{ 22,80 }' proto '{tcp}' accept
bad "empty set" "rule add: '{': empty src set" rule add t src '{' '}' accept
bad "set without '}'" "rule add: '{': missing '}' closing the dport set" \
	rule add t dport '{' 22, 80
bad "stray ','" "rule add: '22,': stray ',' in the dport set" \
	rule add t dport '{' 22, '}' accept
bad "a set for iif" "rule add: '{': iif takes no set (sets are for src, dst, sport, dport and proto)" \
	rule add t iif '{' lo '}' accept
bad "families of a set" "rule add: '::1': IPv6 prefix in a dst set of IPv4 prefixes" \
	rule add t dst '{' 10.0.0.0/8, ::1 '}' accept
bad "a set's value" "rule add: '80-70': empty port range, 80 is above 70" \
	rule add t sport '{' 1, 80-70 '}' accept
bad "513 values" "rule add: '513': more than 512 values in the rule's sets" \
	rule add t dport "{ $(seq -s , 1 513) }" accept
bad "bad family" "rule add: unknown family 'ipv4' (expected ip, ip6 or inet)" \
	rule add t family ipv4 accept
bad "unknown device" "rule add: unknown device 'nosuchdev0'" \
	rule add t iif nosuchdev0 accept
bad "bad id" "rule add: bad rule id '1x' (expected 1..2147483647)" \
	rule add t id 1x accept
bad "bad cookie" "rule add: bad cookie '18446744073709551616' (expected 0..18446744073709551615)" \
	rule add t cookie 18446744073709551616 accept
bad "replace without id" "rule replace: missing 'id N' (rule replace needs the rule id)" \
	rule replace t accept
bad "del without id" "rule del: missing 'id N' (rule del needs the rule id)" \
	rule del t
bad "get without id" "rule get: missing 'id N'" rule get t
bad "get, bad keyword" "rule get: unknown keyword 'x'" rule get t x 1
bad "list, extra word" "rule list: unexpected 'x'" rule list t x
bad "lookup prefix" "rule lookup: '10.0.0.0/8': expected an address, not a prefix" \
	rule lookup t src 10.0.0.0/8 dst 10.0.0.1
bad "lookup families" "rule lookup: '::1': IPv6 destination but IPv4 source" \
	rule lookup t dst ::1 src 10.0.0.1
bad "lookup without dst" "rule lookup: missing 'dst ADDR'" \
	rule lookup t src 10.0.0.1
bad "lookup port" "rule lookup: bad port '1-2' (expected 0..65535)" \
	rule lookup t src 10.0.0.1 dst 10.0.0.2 sport 1-2
bad "unknown rule verb" "rule: unknown command 'frob' (add, del, replace, flush, list, get, lookup)" \
	rule frob
bad "counters verb" "counters: unknown command 'clear' (reset)" \
	counters clear t
bad "counters id" "counters reset: bad rule id '0' (expected 1..2147483647)" \
	counters reset t id 0
bad "table ambiguous" "table add: ambiguous keyword 'p' (priority, policy)" \
	table add t p 1
bad "table priority" "table add: bad priority '2147483648' (expected -2147483648..2147483647)" \
	table add t priority 2147483648
bad "table collide" "table add: bad collide '0' (expected 1..128)" \
	table add t collide 0
bad "table max-rules" "table add: bad max-rules '16777217' (expected 1..16777216)" \
	table add t max-rules 16777217
bad "table max-tuples" "table add: bad max-tuples '65536' (expected 1..65535)" \
	table add t max-tuples 65536
bad "table twice" "table add: hook given twice" \
	table add t hook input hook output
bad "table name" "table add: table name 'abcdefghijklmnopqrstuvwxyz0123456' is longer than 31 bytes" \
	table add abcdefghijklmnopqrstuvwxyz0123456
bad "unknown object" "unknown object 'frob' (try: tmctl -h)" frob

# sid: connection-acceptance SIDs, parsed before any netlink traffic.
ok "sid add, conns" sid add fc00:1::100 accept policy conns 4
ok "sid add, always" sid add fc00::1 accept policy always
ok "sid add, abbreviated" si a fc00::1 acc pol never
ok "sid replace, backlog" sid replace 2001:db8::1 accept policy backlog 4294967295
ok "sid del" sid del fc00::1
ok "sid add, load" sid add fc00::1 accept policy load 50
ok "sid add, dyn" sid add fc00::1 accept policy dyn 8
ok "sid replace, dyn max" sid replace fc00::1 accept policy dyn 16384
bad "sid, dyn without N" "sid add: policy dyn needs a number N (1..16384)" \
	sid add fc00::1 accept policy dyn
bad "sid, dyn 0" "sid add: bad dyn threshold '0' (expected 1..16384)" \
	sid add fc00::1 accept policy dyn 0
bad "sid, dyn too big" "sid add: bad dyn threshold '16385' (expected 1..16384)" \
	sid add fc00::1 accept policy dyn 16385
ok "sid show line of dyn reads back" sid add fc00::1 accept policy dyn 8 \
	conns-now 2 load-now 0 dyn-now 3.250 accepted 9
bad "sid, dyn-now not N.NNN" "sid add: bad dyn-now '3.25' (expected N.NNN)" \
	sid add fc00::1 accept policy dyn 8 dyn-now 3.25
ok "sid load" sid load fc00::1 0
ok "sid load, max" sid load fc00::1 4294967295
ok "sid show" sid show
ok "sid show SID" sid show fc00::1
ok "sid list" sid list
ok "sid alone" sid
ok "sid show line reads back" sid add fc00:1::100 accept policy conns 4 \
	conns-now 1 accepted 3 passed 0 forced 0 steered 12 unknown 0 \
	malformed 0 reports 7

bad "sid, bad SID" "sid add: 'fc00::zz': not an IPv6 address" \
	sid add fc00::zz accept policy always
bad "sid, IPv4 SID" "sid add: '10.0.0.1': a SID is an IPv6 address, not IPv4" \
	sid add 10.0.0.1 accept policy always
bad "sid, prefix" "sid del: 'fc00::/64': not an IPv6 address" \
	sid del fc00::/64
bad "sid, missing SID" "sid add: missing SID (an IPv6 address)" sid add
bad "sid, missing action" "sid add: missing action (accept)" \
	sid add fc00::1
bad "sid, unknown action" "sid add: unknown action 'drop' (expected accept)" \
	sid add fc00::1 drop policy always
bad "sid, missing policy" "sid add: missing 'policy POLICY' (always, never, conns N, backlog N, load N or dyn N)" \
	sid add fc00::1 accept
bad "sid, policy without value" "sid add: 'policy' needs a value" \
	sid add fc00::1 accept policy
bad "sid, unknown policy" "sid add: unknown policy 'sometimes' (expected always, never, conns, backlog, load or dyn)" \
	sid add fc00::1 accept policy sometimes
bad "sid, policy abbreviated" "sid add: unknown policy 'alw' (expected always, never, conns, backlog, load or dyn)" \
	sid add fc00::1 accept policy alw
bad "sid, conns without N" "sid add: policy conns needs a number N (1..4294967295)" \
	sid add fc00::1 accept policy conns
bad "sid, backlog without N" "sid replace: policy backlog needs a number N (1..4294967295)" \
	sid replace fc00::1 accept policy backlog steered 1
bad "sid, conns 0" "sid add: bad conns threshold '0' (expected 1..4294967295)" \
	sid add fc00::1 accept policy conns 0
bad "sid load without N" "sid load: missing the load N (0..4294967295)" \
	sid load fc00::1
bad "sid load too big" "sid load: bad load '4294967296' (expected 0..4294967295)" \
	sid load fc00::1 4294967296
bad "sid load, extra word" "sid load: unexpected 'x'" \
	sid load fc00::1 5 x
bad "sid, load without N" "sid add: policy load needs a number N (1..4294967295)" \
	sid add fc00::1 accept policy load
bad "sid, backlog too big" "sid add: bad backlog threshold '4294967296' (expected 1..4294967295)" \
	sid add fc00::1 accept policy backlog 4294967296
bad "sid, always with N" "sid add: unexpected '5': policy always takes no number" \
	sid add fc00::1 accept policy always 5
bad "sid, never with N" "sid replace: unexpected '0': policy never takes no number" \
	sid replace fc00::1 accept policy never 0
bad "sid, word after policy" "sid add: unknown keyword 'foo'" \
	sid add fc00::1 accept policy conns 4 foo
bad "sid, policy twice" "sid add: policy given twice" \
	sid add fc00::1 accept policy always policy never
bad "sid, ambiguous" "sid add: ambiguous keyword 'p' (policy, passed)" \
	sid add fc00::1 accept p always
ok "sid add, hmac" sid add fc00::1 accept policy conns 4 hmac 1
ok "sid replace, hmac before policy" sid replace fc00::1 accept hmac 4294967295 \
	policy always
bad "sid, hmac 0" "sid add: bad hmac '0' (expected 1..4294967295)" \
	sid add fc00::1 accept policy always hmac 0
bad "sid, hmac without id" "sid add: 'hmac' needs a value" \
	sid add fc00::1 accept policy always hmac
bad "sid del, extra word" "sid del: unexpected 'accept'" \
	sid del fc00::1 accept
bad "sid show, bad SID" "sid show: 'host': not an IPv6 address" sid show host
bad "sid show, extra word" "sid show: unexpected 'x'" sid show fc00::1 x
bad "sid verb" "sid: unknown command 'set' (add, replace, del, show, list)" \
	sid set fc00::1

# lb: load-balancer services, parsed before any netlink traffic.
lbs=(vip 2001:db8::80 sid fc00:ff::1)
ok "lb service add, minimal" lb service add web "${lbs[@]}"
ok "lb service add, every option" lb service add web vip 2001:db8::80 \
	sid fc00:ff::1 tcp port 80 choices 8 table-size 1048573 \
	max-flows 16777216 idle-timeout 40 fin-timeout 10 syn-timeout 5
ok "lb service add, port 0 and limits" lb service add web "${lbs[@]}" port 0 \
	choices 1 table-size 2 max-flows 1 idle-timeout 86400
ok "lb service add, port 65535" lb service add web "${lbs[@]}" port 65535
ok "lb service add, hmac" lb service add web "${lbs[@]}" hmac 1
ok "lb service add, affinity src" lb service add web "${lbs[@]}" affinity src
ok "lb service add, affinity none" lb service add web "${lbs[@]}" aff none
bad "lb service add, bad affinity" "lb service add: unknown affinity 'dst' (expected none or src)" \
	lb service add web "${lbs[@]}" affinity dst
bad "lb service add, affinity twice" "lb service add: affinity given twice" \
	lb service add web "${lbs[@]}" affinity src affinity none
bad "lb service add, hmac 0" "lb service add: bad hmac '0' (expected 1..4294967295)" \
	lb service add web "${lbs[@]}" hmac 0
ok "lb service add, abbreviated" lb s a web vi 2001:db8::80 si fc00:ff::1 \
	tc po 443 c 2 ta 65537 m 100 i 1 fin 1 sy 1
ok "lb service add, health checks" lb service add web "${lbs[@]}" \
	health-interval 1s health-timeout 500ms health-rise 2 health-fall 3 \
	health-listener
ok "lb service add, health-interval alone" lb service add web "${lbs[@]}" \
	health-interval 2
ok "lb service add, health limits" lb service add web "${lbs[@]}" \
	health-interval 100ms health-timeout 1ms health-rise 1 health-fall 100
ok "lb service add, health limits, high" lb service add web "${lbs[@]}" \
	health-interval 3600s health-timeout 3600000ms health-rise 100 \
	health-fall 1
ok "lb service add, health abbreviated" lb s a web "${lbs[@]}" \
	health-i 1s health-t 1s health-r 1 health-f 1 health-l
bad "lb, health-interval too short" "lb service add: bad health-interval '99ms' (expected 100ms..3600s)" \
	lb service add web "${lbs[@]}" health-interval 99ms
bad "lb, health-interval too long" "lb service add: bad health-interval '3601' (expected 100ms..3600s)" \
	lb service add web "${lbs[@]}" health-interval 3601
bad "lb, health-interval 0" "lb service add: bad health-interval '0s' (expected 100ms..3600s)" \
	lb service add web "${lbs[@]}" health-interval 0s
bad "lb, health-interval unit" "lb service add: bad health-interval '1m' (expected 100ms..3600s)" \
	lb service add web "${lbs[@]}" health-interval 1m
bad "lb, health-interval fraction" "lb service add: bad health-interval '1.5s' (expected 100ms..3600s)" \
	lb service add web "${lbs[@]}" health-interval 1.5s
bad "lb, health-interval no digits" "lb service add: bad health-interval 'ms' (expected 100ms..3600s)" \
	lb service add web "${lbs[@]}" health-interval ms
bad "lb, health-interval huge" "lb service add: bad health-interval '18446744073709551616s' (expected 100ms..3600s)" \
	lb service add web "${lbs[@]}" health-interval 18446744073709551616s
bad "lb, health-timeout 0" "lb service add: bad health-timeout '0ms' (expected 1ms..3600s)" \
	lb service add web "${lbs[@]}" health-interval 1s health-timeout 0ms
bad "lb, health-timeout past the interval" "lb service add: bad health-timeout '2s': longer than health-interval '1500ms'" \
	lb service add web "${lbs[@]}" health-interval 1500ms health-timeout 2s
bad "lb, health-rise 0" "lb service add: bad health-rise '0' (expected 1..100)" \
	lb service add web "${lbs[@]}" health-interval 1s health-rise 0
bad "lb, health-fall 101" "lb service add: bad health-fall '101' (expected 1..100)" \
	lb service add web "${lbs[@]}" health-interval 1s health-fall 101
bad "lb, health-timeout alone" "lb service add: health-timeout needs health-interval" \
	lb service add web "${lbs[@]}" health-timeout 1s
bad "lb, health-listener alone" "lb service add: health-listener needs health-interval" \
	lb service add web "${lbs[@]}" health-listener
bad "lb, health-listener twice" "lb service add: health-listener given twice" \
	lb service add web "${lbs[@]}" health-interval 1 health-listener health-l
bad "lb, ambiguous health keyword" "lb service add: ambiguous keyword 'health' (health-interval, health-timeout, health-rise, health-fall, health-listener)" \
	lb service add web "${lbs[@]}" health 1s
ok "lb service add, longest name" lb service add \
	abcdefghijklmnopqrstuvwxyz01234 "${lbs[@]}"
ok "lb service del" lb service del web
ok "lb service show" lb service show
ok "lb service show NAME" lb service show web
ok "lb service list" lb service list
ok "lb service alone" lb service
ok "lb alone" lb
ok "lb backend add" lb backend add web fc00:1::100
ok "lb backend add, weight" lb backend add web fc00:1::100 weight 65535
ok "lb backend add, weight 1" lb b a web fc00:1::100 w 1
ok "lb backend del" lb backend delete web fc00:1::100
ok "lb flows show" lb flows show
ok "lb flows show NAME" lb flows show web
ok "lb flows alone" lb flows
ok "lb flows flush" lb flows flush web
ok "lb flows lookup" lb flows lookup web src 2001:db8::1 sport 40000
ok "lb flows lookup, dport" lb flows lookup web sport 1 src 2001:db8::1 dport 8080
ok "lb flows lookup, abbreviated" lb f l web src 2001:db8::1 sport 0
ok "lb flows lookup, dst" lb flows lookup web src 2001:db8::1 sport 1 dst 2001:db8:80::5
bad "lb flows lookup, dst prefix" "lb flows lookup: '2001:db8:80::/48': not an IPv6 address" \
	lb flows lookup web src 2001:db8::1 sport 1 dst 2001:db8:80::/48
ok "rule action lb" rule add t dst 2001:db8::80/128 proto tcp dport 80 lb web

bad "lb, bad VIP" "lb service add: '2001:db8::zz': not an IPv6 address or prefix" \
	lb service add web vip 2001:db8::zz sid fc00:ff::1
bad "lb, IPv4 VIP" "lb service add: '192.0.2.80': a VIP is an IPv6 address or prefix, not IPv4" \
	lb service add web vip 192.0.2.80 sid fc00:ff::1
ok "lb, VIP prefix" lb service add web vip 2001:db8:80::/48 sid fc00:ff::1
ok "lb, VIP /128" lb service add web vip 2001:db8::80/128 sid fc00:ff::1
bad "lb, VIP prefix with host bits" "lb service add: '2001:db8:80::1/48': host bits set past /48, did you mean 2001:db8:80::/48?" \
	lb service add web vip 2001:db8:80::1/48 sid fc00:ff::1
bad "lb, bad SID" "lb service add: 'lb1': not an IPv6 address" \
	lb service add web vip 2001:db8::80 sid lb1
bad "lb, IPv4 SID" "lb service add: '10.0.0.1': a SID is an IPv6 address, not IPv4" \
	lb service add web vip 2001:db8::80 sid 10.0.0.1
bad "lb, missing vip" "lb service add: missing 'vip ADDR' (the service's IPv6 address)" \
	lb service add web sid fc00:ff::1 port 80
bad "lb, missing sid" "lb service add: missing 'sid LBSID' (the load balancer's own SID)" \
	lb service add web vip 2001:db8::80 tcp
bad "lb, missing name" "lb service add: missing service name" lb service add
bad "lb, empty name" "lb service add: service name is empty" \
	lb service add "" "${lbs[@]}"
bad "lb, name too long" "lb service add: service name 'abcdefghijklmnopqrstuvwxyz012345' is longer than 31 bytes" \
	lb service add abcdefghijklmnopqrstuvwxyz012345 "${lbs[@]}"
bad "lb, choices 0" "lb service add: bad choices '0' (expected 1..8)" \
	lb service add web "${lbs[@]}" choices 0
bad "lb, choices 9" "lb service add: bad choices '9' (expected 1..8)" \
	lb service add web "${lbs[@]}" choices 9
bad "lb, bad port" "lb service add: bad port '65536' (expected 0..65535)" \
	lb service add web "${lbs[@]}" port 65536
bad "lb, port range" "lb service add: bad port '80-81' (expected 0..65535)" \
	lb service add web "${lbs[@]}" port 80-81
bad "lb, table-size not prime" "lb service add: bad table-size '65536': not a prime (next prime: 65537)" \
	lb service add web "${lbs[@]}" table-size 65536
bad "lb, table-size too big" "lb service add: bad table-size '1048576' (expected 2..1048573)" \
	lb service add web "${lbs[@]}" table-size 1048576
bad "lb, max-flows" "lb service add: bad max-flows '16777217' (expected 1..16777216)" \
	lb service add web "${lbs[@]}" max-flows 16777217
bad "lb, idle-timeout 0" "lb service add: bad idle-timeout '0' (expected 1..86400)" \
	lb service add web "${lbs[@]}" idle-timeout 0
bad "lb, fin-timeout" "lb service add: bad fin-timeout '10s' (expected 1..86400)" \
	lb service add web "${lbs[@]}" fin-timeout 10s
bad "lb, syn-timeout" "lb service add: bad syn-timeout '86401' (expected 1..86400)" \
	lb service add web "${lbs[@]}" syn-timeout 86401
bad "lb, unknown keyword" "lb service add: unknown keyword 'sctp'" \
	lb service add web "${lbs[@]}" sctp
bad "lb, tcp and udp" "lb service add: a service is either tcp or udp" \
	lb service add web "${lbs[@]}" udp tcp
bad "lb, ambiguous keyword" "lb service add: ambiguous keyword 's' (sid, syn-timeout)" \
	lb service add web vip 2001:db8::80 s fc00:ff::1
bad "lb, keyword twice" "lb service add: vip given twice" \
	lb service add web "${lbs[@]}" vip 2001:db8::81
bad "lb, tcp twice" "lb service add: tcp given twice" \
	lb service add web "${lbs[@]}" tcp tcp
bad "lb, no value" "lb service add: 'choices' needs a value" \
	lb service add web "${lbs[@]}" choices
bad "lb del, extra word" "lb service del: unexpected 'now'" \
	lb service del web now
bad "lb del, no name" "lb service del: missing service name" lb service del
bad "lb show, extra word" "lb service show: unexpected 'x'" \
	lb service show web x
bad "lb show, name too long" "lb service show: service name 'abcdefghijklmnopqrstuvwxyz012345' is longer than 31 bytes" \
	lb service show abcdefghijklmnopqrstuvwxyz012345
bad "lb list, a name" "lb service list: unexpected 'web'" lb service list web
bad "lb backend, no SID" "lb backend add: missing backend SID (an IPv6 address)" \
	lb backend add web
bad "lb backend, bad SID" "lb backend add: 'fc00:1::100::1': not an IPv6 address" \
	lb backend add web fc00:1::100::1
bad "lb backend, IPv4 SID" "lb backend del: '10.0.0.1': a SID is an IPv6 address, not IPv4" \
	lb backend del web 10.0.0.1
ok "lb backend add, weight 0 (draining)" lb backend add web fc00:1::100 weight 0
ok "lb backend set" lb backend set web fc00:1::100 weight 0
ok "lb backend set, abbreviated" lb b s web fc00:1::100 w 3
bad "lb backend set, no weight" "lb backend set: missing 'weight W' (0 drains the backend)" \
	lb backend set web fc00:1::100
bad "lb backend set, weight too big" "lb backend set: bad weight '65536' (expected 0..65535)" \
	lb backend set web fc00:1::100 weight 65536
bad "lb backend, weight too big" "lb backend add: bad weight '65536' (expected 0..65535)" \
	lb backend add web fc00:1::100 weight 65536
bad "lb backend, weight without value" "lb backend add: 'weight' needs a value" \
	lb backend add web fc00:1::100 weight
bad "lb backend, weight twice" "lb backend add: weight given twice" \
	lb backend add web fc00:1::100 weight 1 weight 2
bad "lb backend, unknown keyword" "lb backend add: unknown keyword 'priority'" \
	lb backend add web fc00:1::100 priority 1
bad "lb backend del, weight" "lb backend del: unexpected 'weight'" \
	lb backend del web fc00:1::100 weight 1
bad "lb backend, name too long" "lb backend add: service name 'abcdefghijklmnopqrstuvwxyz012345' is longer than 31 bytes" \
	lb backend add abcdefghijklmnopqrstuvwxyz012345 fc00:1::100
bad "lb flows flush, no name" "lb flows flush: missing service name" \
	lb flows flush
bad "lb flows show, extra word" "lb flows show: unexpected 'x'" \
	lb flows show web x
bad "lb object" "lb: unknown object 'pool' (service, backend, flows)" \
	lb pool add web
bad "lb service verb" "lb service: unknown command 'set' (add, del, show, list)" \
	lb service set web
bad "lb backend verb" "lb backend: unknown command 'show' (add, del, set)" \
	lb backend show web
bad "lb backend alone" "lb backend: missing command (add, del, set)" lb backend
bad "lb flows verb" "lb flows: unknown command 'del' (show, flush, lookup)" \
	lb flows del web
bad "lb flows lookup, no name" "lb flows lookup: missing service name" \
	lb flows lookup
bad "lb flows lookup, no src" "lb flows lookup: missing 'src ADDR' (the client's IPv6 address)" \
	lb flows lookup web sport 1
bad "lb flows lookup, no sport" "lb flows lookup: missing 'sport N' (the client's port)" \
	lb flows lookup web src 2001:db8::1
bad "lb flows lookup, IPv4" "lb flows lookup: '10.0.0.1': a client address is an IPv6 address, not IPv4" \
	lb flows lookup web src 10.0.0.1 sport 1
bad "lb flows lookup, port" "lb flows lookup: bad port '65536' (expected 0..65535)" \
	lb flows lookup web src 2001:db8::1 sport 65536
bad "lb flows lookup, twice" "lb flows lookup: sport given twice" \
	lb flows lookup web src 2001:db8::1 sport 1 sport 2
bad "lb flows lookup, no value" "lb flows lookup: 'dport' needs a value" \
	lb flows lookup web src 2001:db8::1 sport 1 dport
bad "lb flows lookup, keyword" "lb flows lookup: unknown keyword 'proto'" \
	lb flows lookup web src 2001:db8::1 sport 1 proto tcp
bad "rule lb, name too long" "rule add: lb service name is longer than 31 bytes" \
	rule add t lb abcdefghijklmnopqrstuvwxyz012345
bad "rule lb, no name" "rule add: 'lb' needs a value" rule add t lb

# import: the ClassBench reader's errors and the action words.
printf '@10.0.0.0/8\t0.0.0.0/0\t0 : 65535\t80 : 80\t0x06/0xFF\n' > cb.rules
printf '@::/0\t2001:db8::/32\t0 : 65535\t0 : 65535\t0x00/0x00\n' >> cb.rules
ok "import" import t cb.rules
ok "import with an action" import t cb.rules mark 0x5
printf '@10.0.0.0/8\t0.0.0.0/0\t0 : 65535\t80 : 80\t0x06/0xFF\nx\n' > cb.bad
bad "import, bad file" "import: cb.bad:2:1: rule does not start with '@': 'x'" \
	import t cb.bad
bad "import, no file" "import: nofile: No such file or directory" \
	import t nofile
bad "import, a match" "import: only an action may follow the file, the rest comes from it" \
	import t cb.rules src 10.0.0.0/8 drop
bad "import, bad action" "import: unknown keyword 'frob'" import t cb.rules frob

# import --format iptables-save: the rules one chain makes (-c -e prints
# them), then the errors, each naming its line and token.
cat > fw.v4 <<'EOF'
# Generated by iptables-save v1.8.9 (nf_tables) on Thu Dec  3 20:00:00 2026
*mangle
:PREROUTING ACCEPT [0:0]
-A PREROUTING -p udp -j MARK --set-xmark 0x7/0xffffffff
COMMIT
*filter
:INPUT DROP [0:0]
:FORWARD DROP [0:0]
:OUTPUT ACCEPT [0:0]
:LAN - [0:0]
[12:3456] -A INPUT -i lo -j ACCEPT
-A INPUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
-A INPUT -m state --state INVALID -j DROP
-A INPUT -p icmp -m icmp --icmp-type 3/4 -j ACCEPT
-A INPUT -p icmp -m icmp --icmp-type echo-request -j ACCEPT
-A INPUT -p tcp -m tcp --dport 22 --tcp-flags FIN,SYN,RST,ACK SYN -m comment --comment "ssh \"in\"" -j ACCEPT
-A INPUT -s 10.0.0.0/8 -p udp -m multiport --dports 53,123,5000:5100 -j ACCEPT
-A INPUT -s 192.168.1.0/24 -p tcp -m tcp --syn -m limit --limit 20/sec -j LOG --log-prefix "syn: " --log-level 6
-A INPUT -s 192.168.0.0/16 -p tcp -j REJECT --reject-with tcp-reset
-A INPUT -p tcp -m tcp --sport 1024: --dport 8080 -j NFQUEUE --queue-num 3 --queue-bypass
-A INPUT -m mark --mark 0x10/0xf0 -m dscp --dscp 0x2e -j ACCEPT
-A INPUT -f -j DROP
-A INPUT -d 10.1.2.3/32 -j RETURN
-A INPUT -p tcp -j NFLOG --nflog-group 5 --nflog-prefix dropped
-A FORWARD -j DROP
-A LAN -p tcp -j MARK --set-mark 0x3
-A LAN -s 10.0.0.0/8 -p udp -j DROP
COMMIT
EOF
# ipt_out NAME WANT FORMAT TABLE FILE [CHAIN]: the rules printed.
ipt_out()
{
	local name=$1 want=$2 got

	shift 2
	if got=$("$TMCTL" -c -e import --format "$@" 2>&1) &&
		[ "$got" = "$want" ]; then
		passed=$((passed + 1))
		return
	fi
	failed=$((failed + 1))
	echo "FAIL: $name"
	diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | sed 's/^/    /'
}
ipt_out "iptables-save, filter INPUT" \
'rule add fw id 1 priority 10 family ip iif lo accept
rule add fw id 2 priority 20 family ip ct state related,established accept
rule add fw id 3 priority 30 family ip ct state invalid drop
rule add fw id 4 priority 40 family ip proto icmp icmp-type 3 icmp-code 4 accept
rule add fw id 5 priority 50 family ip proto icmp icmp-type 8 accept
rule add fw id 6 priority 60 family ip proto tcp dport 22 tcp-flags fin,syn,rst,ack syn comment "ssh \"in\"" accept
rule add fw id 7 priority 70 family ip src 10.0.0.0/8 proto udp dport {53,123,5000-5100} accept
rule add fw id 8 priority 80 family ip src 192.168.1.0/24 proto tcp tcp-flags fin,syn,rst,ack syn reject with tcp-reset log prefix "syn: " level 6 rate 20
rule add fw id 9 priority 90 family ip src 192.168.0.0/16 proto tcp reject with tcp-reset
rule add fw id 10 priority 100 family ip proto tcp sport 1024-65535 dport 8080 queue 3 bypass
rule add fw id 11 priority 110 family ip meta mark 0x10/0xf0 dscp 46 accept
rule add fw id 12 priority 120 family ip fragment later drop
rule add fw id 13 priority 130 family ip dst 10.1.2.3/32 drop
rule add fw id 14 priority 140 family ip proto tcp drop log group 5 prefix dropped rate 1000000
rule add fw id 15 priority 150 family ip comment "policy of INPUT" drop' \
	iptables-save fw fw.v4 INPUT
ipt_out "iptables-save, mangle, MARK to the policy" \
'rule add m id 1 priority 10 family ip proto udp mark 0x7
rule add m id 2 priority 20 family ip comment "policy of PREROUTING" accept' \
	iptables-save m fw.v4 mangle:PREROUTING
ipt_out "iptables-save, a user chain: its end is the table's policy" \
'rule add u id 1 priority 10 family ip proto tcp mark 0x3
rule add u id 2 priority 20 family ip src 10.0.0.0/8 proto udp drop' \
	iptables-save u fw.v4 LAN
printf '*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -s 2001:db8::/32 -p ipv6-icmp -m icmp6 --icmpv6-type 128 -j ACCEPT\n-A INPUT -p tcp -m tcp --dport 22 -j LOG\n-A INPUT -p tcp -m tcp --dport 22 -j DROP\nCOMMIT\n' > fw.v6
ipt_out "ip6tables-save, the one chain, LOG into the next rule" \
'rule add t id 1 priority 10 family ip6 src 2001:db8::/32 proto icmpv6 icmp-type 128 accept
rule add t id 2 priority 20 family ip6 proto tcp dport 22 drop log rate 1000000
rule add t id 3 priority 30 family ip6 proto tcp dport 22 drop
rule add t id 4 priority 40 family ip6 comment "policy of INPUT" accept' \
	ip6tables-save t fw.v6

# ipt_bad NAME MESSAGE RULES...: a chain INPUT (policy ACCEPT) of RULES
# refused with MESSAGE, with and without -c; line 4 is the first rule.
ipt_bad()
{
	local name=$1 msg=$2

	shift 2
	{
		printf '*filter\n:INPUT ACCEPT [0:0]\n:USER - [0:0]\n'
		printf '%s\n' "$@"
		printf 'COMMIT\n'
	} > bad.v4
	check "$name" 1 "bad.v4:$msg" import --format iptables-save t bad.v4 INPUT
	check "$name (-c)" 1 "bad.v4:$msg" -c import --format iptables-save t \
		bad.v4 INPUT
}
ipt_bad "ipt negation" "4:10: error: '!': a negated match cannot be imported (a rule matches, it does not exclude)" \
	'-A INPUT ! -s 10.0.0.0/8 -j DROP'
ipt_bad "ipt jump" "4:27: error: 'USER': a jump to another chain cannot be imported; import that chain into a table of its own" \
	'-A INPUT -s 10.0.0.0/8 -j USER'
ipt_bad "ipt target" "4:13: error: 'CT': target that cannot be imported (ACCEPT, DROP, REJECT, RETURN, LOG, NFLOG, NFQUEUE, MARK)" \
	'-A INPUT -j CT --notrack'
ipt_bad "ipt match" "4:13: error: '-m recent': match that cannot be imported" \
	'-A INPUT -m recent --set -j DROP'
ipt_bad "ipt option" "4:24: error: '--tcp-option': option of -m tcp that cannot be imported" \
	'-A INPUT -p tcp -m tcp --tcp-option 2 -j DROP'
ipt_bad "ipt LOG, part of its packets next" "4:41: error: the packets of this LOG go on to line 5, which matches only some of them: a table takes one rule per packet, so its packets must all meet the same next rule" \
	'-A INPUT -p tcp -m tcp --dport 80:90 -j LOG' \
	'-A INPUT -p tcp -m tcp --dport 80 -j DROP'
ipt_bad "ipt logged twice" "4:13: error: its packets are logged again at line 5: a rule logs once" \
	'-A INPUT -j LOG' '-A INPUT -j NFLOG --nflog-group 2' '-A INPUT -j DROP'
ipt_bad "ipt MARK then NFQUEUE" "4:13: error: its packets go on to NFQUEUE at line 5: a rule cannot set a mark and queue" \
	'-A INPUT -j MARK --set-mark 1' '-A INPUT -j NFQUEUE'
ipt_bad "ipt MARK mask" "4:30: error: '0x1/0xff': a mark rule sets all 32 bits; a mask cannot be imported" \
	'-A INPUT -j MARK --set-xmark 0x1/0xff'
ipt_bad "ipt prefix" "4:13: error: '10.0.0.0/33': a prefix length 0..32, not a mask" \
	'-A INPUT -s 10.0.0.0/33 -j DROP'
ipt_bad "ipt family" "4:13: error: '::1': not an IPv4 address (the other family's import format reads it)" \
	'-A INPUT -s ::1 -j DROP'
ipt_bad "ipt wildcard" "4:13: error: 'eth+': interface wildcards cannot be imported (rules match an interface's index)" \
	'-A INPUT -i eth+ -j DROP'
ipt_bad "ipt port" "4:32: error: '99999': a port or a range A:B of ports 0..65535 (services by number)" \
	'-A INPUT -p tcp -m tcp --dport 99999 -j DROP'
ipt_bad "ipt reject" "4:34: error: 'icmp-host-prohibited': this answer cannot be imported (port, host or address unreachable, admin prohibited, tcp-reset)" \
	'-A INPUT -j REJECT --reject-with icmp-host-prohibited'
ipt_bad "ipt limit" "4:27: error: -m limit: only a LOG or NFLOG rule's rate can be imported" \
	'-A INPUT -m limit --limit 5/sec -j ACCEPT'
ipt_bad "ipt limit unit" "4:27: error: '5/min': a log rate is N/second (1..1000000), one line at least" \
	'-A INPUT -m limit --limit 5/min -j LOG'
ipt_bad "ipt quote" "4:31: error: missing '\"' closing the string" \
	'-A INPUT -m comment --comment "open -j DROP'
ipt_bad "ipt flags" "4:36: error: 'SYN,FOO': unknown TCP flag 'FOO' (FIN, SYN, RST, PSH, ACK, URG, ECE, CWR, ALL or NONE)" \
	'-A INPUT -p tcp -m tcp --tcp-flags SYN,FOO SYN -j DROP'
ipt_bad "ipt state" "4:33: error: 'DNAT': state 'DNAT' cannot be imported (INVALID, NEW, ESTABLISHED, RELATED or UNTRACKED)" \
	'-A INPUT -m conntrack --ctstate DNAT -j DROP'
ipt_bad "ipt target option" "4:45: error: '--bogus': option of ACCEPT that cannot be imported" \
	'-A INPUT -p tcp -m tcp --dport 22 -j ACCEPT --bogus'
ipt_bad "ipt comment, tmctl's check" "4:31: error: comment is longer than 127 bytes" \
	"-A INPUT -m comment --comment $(printf 'c%.0s' {1..128}) -j ACCEPT"
check "ipt no chain" 1 "fw.v4: error: no chain OUTPUT2 in table filter" \
	import --format iptables-save t fw.v4 OUTPUT2
check "ipt chain to name" 1 "fw.v4:11:14: error: rules of filter:INPUT after those of mangle:PREROUTING: name the chain to import" \
	import --format iptables-save t fw.v4
check "ipt other family" 1 "fw.v4:1:16: error: output of iptables-save: import it with --format iptables-save" \
	import --format ip6tables-save t fw.v4
bad "import, unknown format" "import: unknown format 'pf' (expected classbench, iptables-save or ip6tables-save)" \
	import --format pf t fw.v4

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
