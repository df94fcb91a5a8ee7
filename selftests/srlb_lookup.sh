#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The load balancer's per-backend figures and "lb flows lookup"
# (Documentation/srv6-lb.rst, "Counters"), on srlb_lb.sh's network:
# client, lb, srv1 to srv3, service web (VIP fd00:100::1 port 8080,
# choices 2); srv1 passes every connection on (policy never), srv2 and srv3
# take every one offered (always), so a connection whose first candidate
# is srv1 is taken by its last candidate (forced), any other by its first.
#
# - N real connections (SRLB_CONNS, default 50): lb flows lookup of each
#   names the server that answered it, and candidates where that server
#   stands as the policies say; the servers' own counters (srv1's passed,
#   what each took) agree with the lookups; each backend's learned, flows
#   and forced (taken as the last candidate) agree with where the
#   connections went (a client port the kernel gave twice is one flow, and
#   two connections the policies decided);
# - a client port used again at once (the first connection reset): the
#   new connection hunts, and the policies decide it;
# - a connection never made: candidates, no state; bad lookups refused;
# - draining: the backend's state, its flows stay, no lookup offers it;
#   lb flows flush empties every backend's flows, learned stays; a
#   backend removed and added again starts from 0;
# - tmctl metrics carries the figures;
# - a service of 256 backends, with their figures, in a dump and a get;
# - affinity src (service aff, port 8081): 20 connections of one client
#   from different ports reach one server, its lookups give one row
#   whatever the port, and clients' rows differ.
# - a VIP prefix (service pfx, fd00:200::/64 port 8082, the servers with
#   the prefix local and listeners on any address): connections to three
#   of its addresses are answered, each flow is remembered with the address
#   it went to, and lookups with dst name the server that answered; VIPs
#   that overlap it refused, one beside it taken; lookups without dst or
#   outside the prefix refused; the load balancer's SID may not be in it.

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_srlb.sh"

require_root
require_cmd ip socat python3 timeout ss
require_module

PORT=8080
PORTS=("$PORT" 8081)
N=${SRLB_CONNS:-50}

TMP=$(mktemp -d)

setup()
{
	setup_srlb 3 && lb_web idle-timeout 600 fin-timeout 600 &&
		policies add never always always
}

# bkf I NAME: figure NAME ("flows", "learned", "forced") of backend I.
bkf()
{
	tm_lb lb service show web | grep "backend $(sid_of "$1") " |
		number_after "$2"
}

# lookup SPORT: lb flows lookup of the client's port SPORT, in JSON.
lookup()
{
	tm_lb -j lb flows lookup web src "${CLIENT:-fd00:c::2}" sport "$1"
}

test_connections()
{
	local i out before=() took=() passed t1 t2 t3 f1 f2 f3 first n1 n2 n3

	# What each server took: by its policy, or as the last candidate.
	for i in 1 2 3; do
		before[i]=$(($(sidc "$i" accepted) + $(sidc "$i" forced)))
	done
	passed=$(sidc 1 passed)
	# One line per connection: "SPORT SERVER" ("bad" for a failure).
	conns_of "$PORT" "$N" >"$TMP/conns"
	expect_eq "connections that failed" "$(grep -c bad "$TMP/conns")" 0
	while read -r sport _; do
		lookup "$sport" || echo '{}'
	done <"$TMP/conns" >"$TMP/lookups"
	for i in 1 2 3; do
		took[i]=$(($(sidc "$i" accepted) + $(sidc "$i" forced) - before[i]))
	done
	# Per server: connections, and those it took as last candidate, as
	# the lookups say; then the lines of disagreements.
	out=$(python3 - "$TMP/conns" "$TMP/lookups" <<'EOF'
import json, sys
conns = [l.split() for l in open(sys.argv[1])]
looks = [json.loads(l) for l in open(sys.argv[2])]
sid = {"s%d" % i: "fc00:%d::100" % i for i in (1, 2, 3)}
taken = {s: 0 for s in sid}
forced = {s: 0 for s in sid}
ports = {s: set() for s in sid}
s1_first = 0
bad = []
for (sport, name), lk in zip(conns, looks):
    c = lk.get("candidates", [])
    if lk.get("server") != sid.get(name) or lk.get("state") not in \
            ("steer", "closing") or lk.get("cport") != int(sport):
        bad.append("port %s went to %s, lookup says %s" % (sport, name, lk))
        continue
    want = c[-1] if c and c[0] == sid["s1"] else (c[0] if c else None)
    if len(c) != 2 or len(set(c)) != 2 or lk["server"] != want:
        bad.append("port %s: %s is not where the candidates %s lead" %
                   (sport, name, c))
        continue
    taken[name] += 1
    ports[name].add(sport)
    s1_first += c[0] == sid["s1"]
    forced[name] += c[0] == sid["s1"]
print(" ".join(str(taken[s]) for s in sorted(sid)),
      " ".join(str(forced[s]) for s in sorted(sid)), s1_first,
      " ".join(str(len(ports[s])) for s in sorted(sid)))
for b in bad:
    print(b)
EOF
	)
	read -r t1 t2 t3 f1 f2 f3 first n1 n2 n3 <<<"$(head -n 1 <<<"$out")"
	expect_eq "lookups that disagree with the connections" \
		"$(tail -n +2 <<<"$out")" ""
	log_info "servers s1 s2 s3: took $t1 $t2 $t3, as last candidate $f1 $f2 $f3; s1 first $first"
	expect_eq "connections counted" $((t1 + t2 + t3)) "$N"
	[ "$first" -gt 0 ] && [ "$first" -lt "$N" ]
	check_err $? "rows with s1 first: $first of $N (some, not all)"
	expect_eq "s1's passed, as the lookups say" \
		$(($(sidc 1 passed) - passed)) "$first"
	expect_eq "what the servers took, as the lookups say" \
		"${took[1]} ${took[2]} ${took[3]}" "$t1 $t2 $t3"
	expect_eq "backends' learned" \
		"$(bkf 1 learned) $(bkf 2 learned) $(bkf 3 learned)" \
		"$t1 $t2 $t3"
	expect_eq "backends' flows (client ports)" \
		"$(bkf 1 flows) $(bkf 2 flows) $(bkf 3 flows)" "$n1 $n2 $n3"
	expect_eq "backends' forced" \
		"$(bkf 1 forced) $(bkf 2 forced) $(bkf 3 forced)" "$f1 $f2 $f3"
	expect_eq "the service's flows, the backends' together" \
		"$(lbc web flows)" $((n1 + n2 + n3))
	log_test "lb flows lookup and the backends' figures agree with $N connections"
}

# A client that resets a connection and at once connects again from the
# same port (as a kernel may give it): the load balancer still remembers
# the first (closing, FIN timeout 600 s), the server too (its socket gone);
# the second is a new connection all the same, which hunts and which the
# servers' policies decide (before, it went straight to the first's server
# as a known flow, by no policy).
test_port_reuse()
{
	local sport=4321 hunts took names

	hunts=$(lbc web hunts)
	took=$(($(sum_sidc accepted) + $(sum_sidc forced)))
	names=$(ip netns exec "$client" python3 - "$VIP" "$PORT" "$sport" <<'EOF'
import socket, struct, sys
vip, port, sport = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
names = []
for _ in range(2):
    s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("::", sport))
    s.settimeout(10)
    try:
        s.connect((vip, port))
        s.sendall(b"hello\n")
        names.append(s.makefile().readline().strip() or "bad")
    except OSError:
        names.append("bad")
    # A reset: no TIME_WAIT, the port is free at once.
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()
print(" ".join(names))
EOF
)
	[[ $names =~ ^s[123]\ s[123]$ ]]
	check_err $? "two connections from port $sport: '$names'"
	expect_eq "hunts of the two connections" $(($(lbc web hunts) - hunts)) 2
	expect_eq "new connections the servers decided" \
		$(($(sum_sidc accepted) + $(sum_sidc forced) - took)) 2
	log_test "a client port used again at once: the new connection hunts, the policies decide"
}

test_lookup_unknown()
{
	local out

	out=$(tm_lb lb flows lookup web src fd00:c::99 sport 1)
	[[ $out == "web client fd00:c::99 cport 1 vip fd00:100::1 vport 8080 candidates fc00:"*",fc00:"*" state none server - idle -" ]]
	check_err $? "lookup of a connection never made: '$out'"
	out=$(tm_lb lb flows lookup web src fd00:c::99 sport 1 dport 8080)
	check_err $? "dport the service's port"
	out=$(tm_lb lb flows lookup web src fd00:c::99 sport 1 dport 8081 2>&1)
	[[ $? -ne 0 && $out == *"does not serve this port"* ]]
	check_err $? "another port: '$out'"
	out=$(tm_lb lb flows lookup nosuch src fd00:c::99 sport 1 2>&1)
	[[ $? -ne 0 && $out == *"No load-balancer service"* ]]
	check_err $? "an unknown service: '$out'"
	out=$(tm_lb lb flows lookup web src fd00:c::99 2>&1)
	[[ $? -ne 0 && $out == *"missing 'sport N'"* ]]
	check_err $? "no sport: '$out'"
	out=$(tm_lb lb flows lookup web src 10.0.0.1 sport 1 2>&1)
	[[ $? -ne 0 && $out == *"not IPv4"* ]]
	check_err $? "an IPv4 client: '$out'"
	log_test "lb flows lookup: a connection never made, bad lookups refused"
}

test_drain()
{
	local flows learned p out n=0

	flows=$(bkf 2 flows)
	learned=$(bkf 2 learned)
	tm_lb lb backend set web "$(sid_of 2)" weight 0
	check_err $? "drain s2"
	tm_lb lb service show web | grep -q "backend $(sid_of 2) weight 0 state draining flows $flows learned $learned "
	check_err $? "s2 draining, its figures kept: $(tm_lb lb service show web | grep "$(sid_of 2)")"
	for p in $(seq 2000 2029); do
		out=$(tm_lb lb flows lookup web src fd00:c::99 sport "$p")
		[[ $out == *"$(sid_of 2)"* ]] && n=$((n + 1))
	done
	expect_eq "lookups offering the draining s2" "$n" 0
	tm_lb lb backend set web "$(sid_of 2)" weight 1
	expect_eq "s2's learned after it is back" "$(bkf 2 learned)" "$learned"
	tm_lb lb service show web | grep -q "backend $(sid_of 2) weight 1 state active "
	check_err $? "s2 active again"
	log_test "draining shows, keeps the backend's figures, offers it to no lookup"
}

test_flush_readd()
{
	local l1 l2

	l2=$(bkf 2 learned)
	tm_lb lb flows flush web
	expect_eq "backends' flows after a flush" \
		"$(bkf 1 flows) $(bkf 2 flows) $(bkf 3 flows)" "0 0 0"
	expect_eq "s2's learned after a flush" "$(bkf 2 learned)" "$l2"
	l1=$(tm_lb metrics | grep "^tuplemerge_lb_backend_learned_total{.*service=\"web\",backend=\"$(sid_of 2)\"}" |
		awk '{ print $2 }')
	expect_eq "s2's learned in the metrics" "$l1" "$l2"
	tm_lb lb backend del web "$(sid_of 3)" &&
		tm_lb lb backend add web "$(sid_of 3)"
	check_err $? "s3 removed and added again"
	expect_eq "s3's figures added again" \
		"$(bkf 3 flows) $(bkf 3 learned) $(bkf 3 forced)" "0 0 0"
	log_test "a flush empties the backends' flows; a backend added again starts from 0"
}

test_many_backends()
{
	local out

	{
		echo "lb service add big vip fd00:200::1 sid fd00:1b::2 tcp port 80"
		awk 'BEGIN { for (i = 1; i <= 256; i++)
			printf "lb backend add big fc00:ff::%x\n", i }'
	} >"$TMP/big.tm"
	"$TMCTL" -n "$lb" -f "$TMP/big.tm"
	check_err $? "a service of 256 backends"
	expect_eq "backends listed by the dump" \
		"$(tm_lb lb service show | grep -c "^	backend fc00:ff::.* learned 0 ")" 256
	expect_eq "backends listed by the service's get" \
		"$(tm_lb lb service show big | grep -c "^	backend fc00:ff::")" 256
	out=$(tm_lb -j lb service show | python3 -c '
import json, sys
s = [x for x in json.load(sys.stdin) if x["name"] == "big"][0]
print(len(s["backends"]), sum(b["flows"] + b["learned"] for b in s["backends"]))')
	expect_eq "backends and their figures in JSON" "$out" "256 0"
	out=$(tm_lb lb backend add big fc00:ff::101 2>&1)
	[[ $? -ne 0 && $out == *"Too many backends"* ]]
	check_err $? "a 257th backend: '$out'"
	out=$(tm_lb lb flows lookup big src fd00:c::2 sport 1)
	[[ $out == *" candidates fc00:ff::"*",fc00:ff::"*" state none "* ]]
	check_err $? "a lookup among 256 backends: '$out'"
	tm_lb lb service del big
	check_err $? "delete the service of 256 backends"
	log_test "a service of 256 backends and their figures, dumped and got"
}

# candidates SERVICE SRC SPORT: the candidates lb flows lookup prints.
candidates()
{
	tm_lb lb flows lookup "$1" src "$2" sport "$3" |
		sed -n 's/.* candidates \([^ ]*\) .*/\1/p'
}

test_affinity()
{
	local out p i

	tm_lb lb service add aff vip "$VIP" sid fd00:1b::3 tcp port 8081 \
		affinity src &&
		for i in 1 2 3; do
			tm_lb lb backend add aff "$(sid_of "$i")" || break
		done &&
		tm_lb rule add lbt id 2 dst "$VIP/128" proto tcp dport 8081 lb aff
	check_err $? "service aff, affinity src"
	tm_lb lb service show aff | grep -q "^service aff .* affinity src "
	check_err $? "aff listed with affinity src"
	tm_lb lb service show web | grep -q "^service web .* affinity none "
	check_err $? "web listed with affinity none"
	out=$(conns_of 8081 20 | awk '{ print $2 }' | sort | uniq -c)
	[[ $(wc -l <<<"$out") -eq 1 && $out != *bad* ]]
	check_err $? "20 connections of one client: $(tr -s ' \n' ' ' <<<"$out")"
	expect_eq "aff's rows of one client, 20 ports" \
		"$(for p in $(seq 3000 3019); do candidates aff fd00:c::2 "$p"; done |
		   sort -u | wc -l)" 1
	[ "$(for i in $(seq 1 20); do candidates aff "fd00:c::1:$i" 1; done |
	     sort -u | wc -l)" -gt 1 ]
	check_err $? "aff's rows of 20 clients all alike"
	[ "$(for p in $(seq 3000 3019); do candidates web fd00:c::2 "$p"; done |
	     sort -u | wc -l)" -gt 1 ]
	check_err $? "web's (affinity none) rows of one client's 20 ports all alike"
	log_test "affinity src: one client's connections reach one server, its rows one"
}

# A VIP prefix: fd00:200::/64 on port 8082.
test_vip_prefix()
{
	local i v p name out err=0 end=$((SECONDS + 20))

	for i in 1 2 3; do
		ip -n "${SRV[i]}" -6 route add local fd00:200::/64 dev lo &&
			ip netns exec "${SRV[i]}" socat -t 15 \
				TCP6-LISTEN:8082,fork,reuseaddr \
				SYSTEM:"echo s$i; cat" 2>/dev/null &
		LISTENERS+=($!)
	done
	# Its flows must outlive the test: a closed one would age out after
	# the default fin-timeout (10 s), before the slowest guests list them.
	tm_lb lb service add pfx vip fd00:200::/64 sid fd00:1b::4 tcp \
		port 8082 idle-timeout 600 fin-timeout 600 &&
		for i in 1 2 3; do
			tm_lb lb backend add pfx "$(sid_of "$i")" || break
		done &&
		tm_lb rule add lbt id 3 dst fd00:200::/64 proto tcp dport 8082 \
			lb pfx
	check_err $? "service pfx, vip fd00:200::/64"
	tm_lb lb service show pfx | grep -q "^service pfx vip fd00:200::/64 "
	check_err $? "pfx listed with its prefix: $(tm_lb lb service show pfx | head -1)"
	for i in 1 2 3; do
		until ip netns exec "${SRV[i]}" ss -Hltn "sport = :8082" |
		      grep -q . || [ "$SECONDS" -ge "$end" ]; do
			sleep 0.2
		done
	done
	for v in fd00:200::1 fd00:200::5:0 fd00:200::ffff:ffff:ffff:ffff; do
		VIP=$v conns_of 8082 3 | sed "s/^/$v /"
	done >"$TMP/pfx"
	expect_eq "connections to the prefix unanswered" \
		"$(grep -c bad "$TMP/pfx")" 0
	while read -r v p name; do
		out=$(tm_lb -j lb flows lookup pfx src fd00:c::2 sport "$p" \
			dst "$v")
		python3 -c '
import json, sys
l = json.loads(sys.argv[1])
want = "fc00:%s::100" % sys.argv[3][1:]
sys.exit(l["vip"] != sys.argv[2] or l["server"] != want or
	 l["state"] not in ("steer", "closing") or
	 want not in l["candidates"])' \
			"$out" "$v" "$name" || {
			err=1
			echo "# $v port $p answered by $name; lookup $out"
		}
	done <"$TMP/pfx"
	check_err "$err" "lookups with dst name the servers that answered"
	expect_eq "flows of pfx by VIP" \
		"$(tm_lb lb flows show pfx | awk '{ print $7 }' | sort | uniq -c |
		   awk '{ print $2, $1 }' | xargs)" \
		"fd00:200::1 3 fd00:200::5:0 3 fd00:200::ffff:ffff:ffff:ffff 3"
	out=$(tm_lb lb service add x vip fd00:200::/96 sid fd00:1b::5 tcp \
		port 8082 2>&1)
	[[ $? -ne 0 && $out == *"Another service serves this VIP and port"* ]]
	check_err $? "a prefix inside pfx's: '$out'"
	out=$(tm_lb lb service add x vip fd00::/16 sid 2001:db8:1b::5 tcp \
		port 0 2>&1)
	[[ $? -ne 0 && $out == *"Another service serves this VIP and port"* ]]
	check_err $? "a prefix holding pfx's, any port: '$out'"
	tm_lb lb service add x vip fd00:201::/64 sid fd00:1b::5 tcp port 8082 &&
		tm_lb lb service del x
	check_err $? "a prefix beside pfx's"
	out=$(tm_lb lb service add x vip fd00:300::/64 sid fd00:300::1 2>&1)
	[[ $? -ne 0 && $out == *"SID cannot be the VIP, or in its prefix"* ]]
	check_err $? "the LB SID in the VIP prefix: '$out'"
	out=$(tm_lb lb flows lookup pfx src fd00:c::2 sport 1 2>&1)
	[[ $? -ne 0 && $out == *"the connection's VIP is needed"* ]]
	check_err $? "a lookup of pfx without dst: '$out'"
	out=$(tm_lb lb flows lookup pfx src fd00:c::2 sport 1 \
		dst fd00:201::1 2>&1)
	[[ $? -ne 0 && $out == *"does not serve this VIP"* ]]
	check_err $? "a lookup of pfx outside its prefix: '$out'"
	log_test "VIP prefix fd00:200::/64: three of its addresses served, looked up, no overlap"
}

srlb_start
test_connections
test_port_reuse
test_lookup_unknown
test_drain
test_flush_readd
test_affinity
test_vip_prefix
test_many_backends
exit "$EXIT_STATUS"
