#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# UDP services at the SRv6 load balancer (Documentation/srv6-lb.rst, "UDP"),
# on srlb_lb.sh's network: client, lb, srv1 to srv3, service dns (VIP
# fd00:100::1, udp port 5353, choices 2, health checks with a listener
# check) beside service web (tcp, the same port).  Each server answers a
# datagram "W" with "sI W" from a UDP socket on [VIP]:5353.
#
# - a flow of one datagram counts in conns 3 s, one whose client sent
#   another after the server's answer until it idles, whether that
#   datagram was steered or hunted again (the load balancer forgot the
#   flow); a flow the server never answers only 3 s, however many
#   datagrams it has;
# - the policies: conns 2, no server takes more than two flows by its
#   policy, and each counts the flows it has in conns; always, each new
#   flow lands on its first candidate; never, on its last;
# - a flow stays on its server: its replies report once, then the load
#   balancer steers it and the replies go straight to the client;
# - the load balancer forgets its flows (a restart) while a flow's server
#   is its last candidate and the first would now take a new flow: the
#   next datagram still reaches the flow's server (the hunt's first pass),
#   and the load balancer learns it again;
# - a server's UDP socket closed: the health check (listener) takes it
#   down, no new flow reaches it; open again: up;
# - udp-timeout 2 at the servers: every flow, those they had too, is
#   forgotten within seconds of its last datagram (by default, 30 s);
# - the TCP service on the same VIP and port still works;
# - bad services refused with the reason: tcp and udp at once; more
#   choices than an HMAC-signed UDP hunt holds.

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_srlb.sh"

require_root
require_cmd ip socat python3 timeout ss
require_module

PORT=5353
PORTS=("$PORT")
N=${SRLB_UDP_FLOWS:-20}
UDP_SERVERS=()

TMP=$(mktemp -d)

test_cleanup()
{
	kill "${UDP_SERVERS[@]}" 2>/dev/null
}

setup()
{
	setup_srlb 3 && lb_web || return 1
	tm_lb lb service add dns vip "$VIP" sid fd00:1b::2 udp port "$PORT" \
		choices 2 health-interval 200ms health-timeout 150ms \
		health-rise 2 health-fall 2 health-listener || return 1
	for i in 1 2 3; do
		tm_lb lb backend add dns "$(sid_of "$i")" || return 1
	done
	tm_lb rule add lbt id 2 dst "$VIP/128" proto udp dport "$PORT" lb dns &&
		policies add always always always
}

# udp_server I: server I's UDP echo on [VIP]:PORT, answering "sI WORD"
# (nothing to a WORD that starts with "quiet").
udp_server()
{
	ip netns exec "${SRV[$1]}" python3 - "$VIP" "$PORT" "s$1" <<'EOF' &
import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.bind((sys.argv[1], int(sys.argv[2])))
name = sys.argv[3].encode()
while True:
    data, peer = s.recvfrom(2048)
    if not data.startswith(b"quiet"):
        s.sendto(name + b" " + data, peer)
EOF
	UDP_SERVERS[$1]=$!
}

# udp_ready I: server I's UDP socket is bound (within 20 s).
udp_ready()
{
	local end=$((SECONDS + 20))

	until ip netns exec "${SRV[$1]}" ss -Hlun "sport = :$PORT" | grep -q .; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.2
	done
}

# udp_ask SPORT WORD...: from the client's port SPORT, each WORD as a
# datagram to the VIP; prints "SPORT NAME" per WORD ("SPORT bad" when no
# answer came, after three tries; "SPORT quiet" for a WORD that starts
# with "quiet", sent once without waiting).  SPORT +P: a flow of two
# datagrams per WORD (the second confirming it), from ports P, P + 1, ...
# (never an ephemeral port: one a server or lb still remembers would be an
# old flow).
udp_ask()
{
	local sport=$1

	shift
	ip netns exec "$client" python3 - "$VIP" "$PORT" "$sport" "$@" <<'EOF'
import socket, sys
vip, port = sys.argv[1], int(sys.argv[2])
each = sys.argv[3].startswith("+")
sport = int(sys.argv[3].lstrip("+"))

def ask(s, word):
    if word.startswith("quiet"):
        s.sendto(word.encode(), (vip, port))
        return "quiet"
    for _ in range(3):
        s.sendto(word.encode(), (vip, port))
        try:
            data = s.recv(2048).decode().split()
        except socket.timeout:
            continue
        if len(data) == 2 and data[1] == word:
            return data[0]
    return "bad"

fixed = None
if not each:
    fixed = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    fixed.bind(("::", sport))
    fixed.settimeout(2)
for word in sys.argv[4:]:
    if fixed:
        print(sport, ask(fixed, word))
        continue
    with socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as s:
        s.bind(("::", sport))
        sport += 1
        s.settimeout(2)
        name = ask(s, word)
        again = ask(s, word + "+")
        print(s.getsockname()[1], name if again == name else "bad")
EOF
}

# udp_flows N: N new flows of two datagrams each ("SPORT NAME" per flow),
# from ports no flow used before.
NEXT_SPORT=42000
udp_flows()
{
	local words=() i

	for ((i = 0; i < $1; i++)); do
		words+=("w$i")
	done
	udp_ask "+$NEXT_SPORT" "${words[@]}"
	NEXT_SPORT=$((NEXT_SPORT + $1))
}

# lookup SPORT: lb flows lookup of dns for the client's port, in JSON.
lookup()
{
	tm_lb -j lb flows lookup dns src "${CLIENT:-fd00:c::2}" sport "$1"
}

# placed WHICH: of the flows in $TMP/flows ("SPORT NAME"), those whose
# server is not their WHICH (first or last) candidate, one line each.
placed()
{
	local sport name

	while read -r sport name; do
		echo "$sport $name $(lookup "$sport")"
	done <"$TMP/flows" | python3 -c '
import json, sys
which = sys.argv[1]
for line in sys.stdin:
    sport, name, lk = line.split(" ", 2)
    lk = json.loads(lk)
    c = lk.get("candidates", [])
    want = c[0] if which == "first" else c[-1]
    got = "fc00:%s::100" % name[1:] if name.startswith("s") else name
    if len(c) != 2 or got != want or lk.get("server") != want:
        print("port %s answered by %s; lookup %s" % (sport, name, lk))
' "$1"
}

# conns_now: the servers' conns together.
conns_now()
{
	echo $(( $(sidc 1 conns-now) + $(sidc 2 conns-now) + $(sidc 3 conns-now) ))
}

# Flows of one datagram (anyone can send one, from any address) count only
# 3 s; a datagram of its client after the server answered makes a flow
# count until it idles, steered or hunting again (the load balancer keeps
# a flow of one datagram only its syn-timeout, 5 s: a slow client's next
# query hunts).  Datagrams the server never answers count 3 s.
test_unconfirmed()
{
	local p got born

	expect_eq "conns before any flow" "$(conns_now)" 0
	udp_ask 41006 quiet1 quiet2 quiet3 >/dev/null
	for p in 41000 41001 41002 41003 41004 41005; do
		udp_ask "$p" one >>"$TMP/one"
	done
	born=$SECONDS
	expect_eq "answers to one-datagram flows" "$(grep -c bad "$TMP/one")" 0
	# 41000's second datagram steered; 41001's hunts.
	udp_ask 41000 two >/dev/null
	tm_lb lb flows flush dns
	check_err $? "lb flows flush dns"
	udp_ask 41001 two >/dev/null
	got=$(conns_now)
	[ "$got" -ge 2 ] && [ "$got" -le 7 ]
	check_err $? "conns of 7 flows, two confirmed: $got"
	# The youngest unconfirmed flow is 3 s old, and aged (once a
	# second), 5 s after it came: then conns holds, the confirmed ones.
	while [ "$SECONDS" -lt $((born + 5)) ]; do
		sleep 0.5
	done
	expect_eq "conns once the unconfirmed ones are 3 s old" \
		"$(poll_until 10 -le 2 conns_now)" 2
	sleep 2
	expect_eq "conns 2 s later" "$(conns_now)" 2
	log_test "UDP flows count 3 s unless their client sends another datagram after an answer"
}

test_policies()
{
	local i acc=() forced=() conns=() out

	# Each server's counters before: the flows of test_unconfirmed (two
	# of them confirmed, counting for 30 s) are there already.
	for i in 1 2 3; do
		acc[i]=$(sidc "$i" accepted)
		forced[i]=$(sidc "$i" forced)
		conns[i]=$(sidc "$i" conns-now)
	done
	policies replace "conns 2" "conns 2" "conns 2"
	udp_flows 12 >"$TMP/flows"
	expect_eq "flows unanswered (conns 2)" "$(grep -c bad "$TMP/flows")" 0
	for i in 1 2 3; do
		acc[i]=$(($(sidc "$i" accepted) - acc[i]))
		forced[i]=$(($(sidc "$i" forced) - forced[i]))
		[ "${acc[i]}" -le $((2 - conns[i])) ]
		check_err $? "s$i took ${acc[i]} flows by its policy conns 2 (${conns[i]} before)"
		expect_eq "s$i's conns: the flows it took" "$(sidc "$i" conns-now)" \
			$((conns[i] + acc[i] + forced[i]))
	done
	out="${acc[*]} / ${forced[*]}"
	expect_eq "flows taken in all" \
		$((acc[1] + acc[2] + acc[3] + forced[1] + forced[2] + forced[3])) 12
	log_info "conns 2: taken by policy / as last candidate: $out"
	policies replace always always always
	udp_flows "$N" >"$TMP/flows"
	expect_eq "flows unanswered (always)" "$(grep -c bad "$TMP/flows")" 0
	expect_eq "flows not on their first candidate (always)" \
		"$(placed first)" ""
	policies replace never never never
	udp_flows "$N" >"$TMP/flows"
	expect_eq "flows unanswered (never)" "$(grep -c bad "$TMP/flows")" 0
	expect_eq "flows not on their last candidate (never)" \
		"$(placed last)" ""
	policies replace always always always
	log_test "policies conns 2, always and never place new UDP flows"
}

test_sticky()
{
	local sport=40000 names s i reports steered

	udp_ask "$sport" a >"$TMP/one"
	s=$(awk '{ print $2 }' "$TMP/one")
	[[ $s == s[123] ]]
	check_err $? "the flow's first answer: '$s'"
	i=${s#s}
	reports=$(sidc "$i" reports)
	steered=$(lbc dns steered)
	names=$(udp_ask "$sport" b c d e f | awk '{ print $2 }' | sort -u)
	expect_eq "servers that answered the flow" "$names" "$s"
	expect_eq "the flow at lb" \
		"$(lookup "$sport" | python3 -c 'import json,sys; l = json.load(sys.stdin); print(l["state"], l["server"])')" \
		"steer $(sid_of "$i")"
	expect_eq "datagrams lb steered" $(($(lbc dns steered) - steered)) 5
	expect_eq "replies reported after the first" \
		$(($(sidc "$i" reports) - reports)) 0
	log_test "a UDP flow stays on $s; once steered its replies go straight back"
}

test_recover()
{
	local sport=40001 s first f took names

	policies replace never never never
	udp_ask "$sport" a >"$TMP/flows"
	expect_eq "the flow on its last candidate" "$(placed last)" ""
	s=$(awk '{ print $2 }' "$TMP/flows")
	first=$(lookup "$sport" | python3 -c 'import json,sys; print(json.load(sys.stdin)["candidates"][0])')
	f=${first#fc00:}
	f=${f%%::*}
	# The load balancer restarts: it forgets every flow.  The first
	# candidate would now take a new flow.
	tm_lb lb flows flush dns
	check_err $? "lb flows flush dns"
	expect_eq "the flow at lb after the flush" \
		"$(lookup "$sport" | python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])')" \
		None
	policies replace always always always
	took=$(sidc "$f" accepted)
	names=$(udp_ask "$sport" b c d | awk '{ print $2 }' | sort -u)
	expect_eq "servers that answered the flow after the restart" \
		"$names" "$s"
	expect_eq "flows its first candidate s$f took meanwhile" \
		$(($(sidc "$f" accepted) - took)) 0
	expect_eq "the flow at lb, learned again" \
		"$(lookup "$sport" | python3 -c 'import json,sys; l = json.load(sys.stdin); print(l["state"], l["server"])')" \
		"steer fc00:${s#s}::100"
	log_test "lb forgets a UDP flow on its last candidate: it still reaches $s"
}

# health I: "up" or "down", server I's backend health in dns.
health()
{
	tm_lb lb service show dns |
		awk -v s="$(sid_of "$1")" '$1 == "backend" && $2 == s {
			for (i = 3; i < NF; i++)
				if ($i == "health") print $(i + 1) }'
}

test_health()
{
	local out

	kill "${UDP_SERVERS[3]}"
	wait "${UDP_SERVERS[3]}" 2>/dev/null
	expect_eq "s3 after its socket closed" "$(poll_until 10 = down health 3)" down
	tm_lb lb service show dns | grep "backend $(sid_of 3) " |
		grep -q "why no-listener"
	check_err $? "why s3 is down: $(tm_lb lb service show dns | grep "backend $(sid_of 3) ")"
	udp_flows "$N" >"$TMP/flows"
	out=$(awk '{ print $2 }' "$TMP/flows" | sort | uniq -c | tr -s ' ' | tr '\n' ,)
	expect_eq "new flows unanswered or on s3 ($out)" \
		"$(grep -c -e bad -e s3 "$TMP/flows")" 0
	udp_server 3
	udp_ready 3 || check_err 1 "s3's UDP socket again"
	expect_eq "s3 with its socket again" "$(poll_until 10 = up health 3)" up
	log_test "a server's UDP socket closed: down (no-listener), no new flow to it; open: up"
}

# The servers' udp-timeout: their flows forgotten that long after their
# last datagram (the default, 30 s, keeps them past this test).
test_udp_timeout()
{
	local t got

	policies replace "always udp-timeout 2" "always udp-timeout 2" \
		"always udp-timeout 2"
	expect_eq "sid show, a timeout not the default" \
		"$(tm_srv 1 -s sid show "$(sid_of 1)")" \
		"sid add $(sid_of 1) accept policy always udp-timeout 2"
	expect_eq "sid show -j, every timeout" \
		"$(tm_srv 1 -j -s sid show "$(sid_of 1)" | python3 -c '
import json, sys
s = json.load(sys.stdin)
print(s["idle_timeout"], s["close_timeout"], s["syn_timeout"], s["udp_timeout"])')" \
		"60 2 3 2"
	udp_flows 3 >"$TMP/flows"
	expect_eq "flows unanswered (udp-timeout 2)" "$(grep -c bad "$TMP/flows")" 0
	got=$(conns_now)
	[ "$got" -ge 3 ]
	check_err $? "conns right after 3 new flows: $got"
	t=$SECONDS
	expect_eq "conns 10 s after the last datagram" \
		"$(poll_until 10 = 0 conns_now)" 0
	log_info "the flows forgotten $((SECONDS - t)) s after their last datagram"
	policies replace always always always
	log_test "udp-timeout 2: the servers forget idle UDP flows 2 s after"
}

test_tcp_beside()
{
	local hunts

	hunts=$(lbc dns hunts)
	[[ $(connect) == s[123]* ]]
	check_err $? "a TCP connection to web, on the same VIP and port"
	expect_eq "dns hunts for a TCP connection" $(($(lbc dns hunts) - hunts)) 0
	log_test "the TCP service on the same VIP and port still works"
}

test_refused()
{
	local out

	out=$(tm_lb lb service add x vip fd00:100::9 sid fd00:1b::9 tcp udp 2>&1)
	[[ $? -ne 0 && $out == *"either tcp or udp"* ]]
	check_err $? "tcp and udp at once: '$out'"
	out=$(tm_lb lb service add x vip fd00:100::9 sid fd00:1b::9 udp \
		choices 7 hmac 1 2>&1)
	[[ $? -ne 0 && $out == *"at most 6 choices"* ]]
	check_err $? "a UDP service with hmac and choices 7: '$out'"
	tm_lb lb service add x vip fd00:100::9 sid fd00:1b::9 udp choices 8 &&
		tm_lb lb service show x | grep -q " udp "
	check_err $? "a UDP service with 8 choices"
	tm_lb lb service del x
	log_test "bad UDP services refused with the reason"
}

srlb_start
for i in 1 2 3; do
	udp_server "$i"
done
for i in 1 2 3; do
	udp_ready "$i" || { echo "FAIL: UDP servers not ready"; exit "$ksft_fail"; }
done
# Every backend up before the flows (rise 2 x 200 ms).
for i in 1 2 3; do
	poll_until 10 = up health "$i" >/dev/null
done

test_unconfirmed
test_policies
test_sticky
test_recover
test_health
test_udp_timeout
test_tcp_beside
test_refused

exit "$EXIT_STATUS"
