#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers of the SRv6 load-balancing selftests (srlb_*.sh, pkt_fuzz.sh,
# bench/synflood.sh, exp/srlb_exp.sh), sourced after lib.sh.  The
# addresses are those of srlb_lb.sh: VIP fd00:100::1 and LB_SID fd00:1b::1
# are set here (a test may change them), server I's SID is sid_of I.
# setup_srlb N makes the namespaces client, lb and srv1 to srvN (SRV[1] to
# SRV[N]) and the network between them; a test that makes its own
# namespaces defines
#	client		the client's namespace
#	lb		the load balancer's namespace (lb_topology, tm_lb, lbc)
#	SRV		the servers' namespaces, indexes 1 to N
# The test defines
#	PORT		the port of the VIP the client connects to
#	PORTS		the ports every server listens on (the VIP's)
#	TMP		a scratch directory
#	setup		for srlb_start: the topology, SIDs, services
# and may define CLIENT (the client's address, default fd00:c::2; set it
# for srlb_report) and test_cleanup (run by cleanup first).  The helpers
# keep LISTENERS (the servers' socat), LONG_PID and LONG_FD (long-lived
# connections: the client's socat, the fifo feeding it).
# shellcheck disable=SC2154 # PORT, PORTS, TMP: the test's

VIP=fd00:100::1
# shellcheck disable=SC2034 # the tests'
LB_SID=fd00:1b::1
client='' lb=''
SRV=()
LISTENERS=()
LONG_PID=()
LONG_FD=()

cleanup()
{
	local ns

	declare -F test_cleanup >/dev/null && test_cleanup
	kill "${LONG_PID[@]}" "${LISTENERS[@]}" 2>/dev/null
	# The socat children that served connections, and anything left.
	for ns in "${NS_LIST[@]}"; do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
	done
	wait 2>/dev/null
	cleanup_ns
	rm -rf "$TMP"
}

# sid_of I: the SID of server I.
sid_of()
{
	echo "fc00:$1::100"
}

# tm_srv I ARGS...: tmctl in the namespace of server I.
tm_srv()
{
	local i=$1

	shift
	"$TMCTL" -n "${SRV[i]}" "$@"
}

# tm_lb ARGS...: tmctl in the load balancer's namespace.
tm_lb()
{
	"$TMCTL" -n "$lb" "$@"
}

# lbc SERVICE NAME: a counter of a service ("flows", "hunts", ...), not of
# one of its backends (their lines have "flows", "learned" too).
lbc()
{
	tm_lb lb service show "$1" 2>/dev/null | grep -v "^	backend " |
		number_after "$2"
}

# sidc I NAME: a counter of server I's SID ("accepted", "reports", ...).
sidc()
{
	tm_srv "$1" sid show "$(sid_of "$1")" 2>/dev/null | number_after "$2"
}

# sum_sidc NAME: the sum of a counter over the three servers.
sum_sidc()
{
	echo $(( $(sidc 1 "$1") + $(sidc 2 "$1") + $(sidc 3 "$1") ))
}

# flow_of SERVICE CPORT: lb's flow of the client's port, or nothing.
flow_of()
{
	tm_lb lb flows show "$1" 2>/dev/null | grep " cport $2 "
}

# lb_topology [-s NAME=VALUE]... [PREFIX...]: the network of srlb_lb.sh
# (drawn there): the client (CLIENT, default fd00:c::2/64) on veth0 to lb's
# vc fd00:c::1/64; lb forwards, and reaches server i (every index of SRV)
# on vi fd00:i::1/64 by its veth0 fd00:i::2/64, with a route to
# fc00:i::/64 by it.  Every server holds the VIP on lo, routes by lb,
# forwards, and has the End route of its SID (sid_of I).  Every namespace
# gets the sysctl settings NAME=VALUE; each PREFIX becomes a blackhole
# route on lb.
lb_topology()
{
	local i ns prefix sysctls=()

	while [ "${1:-}" = -s ]; do
		sysctls+=("$2")
		shift 2
	done
	# No DAD, for the link-local addresses either: a router whose
	# link-local address is tentative sends no neighbour solicitation
	# for the packets it forwards.
	for ns in "${NS_LIST[@]}"; do
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0 "${sysctls[@]}" ||
			return 1
	done
	ip link add veth0 netns "$client" type veth peer name vc netns "$lb" &&
		ip -n "$client" addr add "${CLIENT:-fd00:c::2}/64" dev veth0 \
			nodad &&
		ip -n "$lb" addr add fd00:c::1/64 dev vc nodad &&
		ip -n "$client" link set veth0 up &&
		ip -n "$lb" link set vc up &&
		ip netns exec "$lb" sysctl -qw net.ipv6.conf.all.forwarding=1 &&
		ip -n "$client" -6 route add default via fd00:c::1 || return 1
	for prefix in "$@"; do
		ip -n "$lb" -6 route add blackhole "$prefix" || return 1
	done
	for i in "${!SRV[@]}"; do
		ns=${SRV[i]}
		ip link add "v$i" netns "$lb" type veth peer name veth0 netns "$ns" &&
			ip -n "$lb" addr add "fd00:$i::1/64" dev "v$i" nodad &&
			ip -n "$ns" addr add "fd00:$i::2/64" dev veth0 nodad &&
			ip -n "$lb" link set "v$i" up &&
			ip -n "$ns" link set veth0 up &&
			ip -n "$lb" -6 route add "fc00:$i::/64" via "fd00:$i::2" &&
			ip -n "$ns" addr add "$VIP/128" dev lo nodad &&
			ip -n "$ns" -6 route add default via "fd00:$i::1" &&
			ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.forwarding=1 &&
			ip -n "$ns" -6 route add "$(sid_of "$i")/128" \
				encap seg6local action End dev veth0 || return 1
	done
}

# setup_srlb [-s NAME=VALUE]... N [PREFIX...]: the namespaces client, lb
# and srv1 to srvN (also SRV[1] to SRV[N]), and the network of srlb_lb.sh
# between them: lb_topology, given the -s settings and the PREFIXes.  No
# SID is bound.
setup_srlb()
{
	local opts=() i n v

	while [ "${1:-}" = -s ]; do
		opts+=(-s "$2")
		shift 2
	done
	n=$1
	shift
	setup_ns client lb || return 1
	SRV=()
	for ((i = 1; i <= n; i++)); do
		setup_ns "srv$i" || return 1
		v=srv$i
		SRV[i]=${!v}
	done
	lb_topology "${opts[@]}" "$@"
}

# lb_web [OPTION...]: on lb, table lbt (ip6, prerouting) and service web
# (VIP, LB_SID, tcp port PORT, choices 2 and the lb service add OPTIONs)
# with servers 1 to 3 as backends, and rule 1 sending it PORT.
# shellcheck disable=SC2120,SC2153 # the OPTIONs are optional; PORT the test's
lb_web()
{
	local i

	tm_lb table add lbt family ip6 hook prerouting &&
		tm_lb lb service add web vip "$VIP" sid "$LB_SID" tcp \
			port "$PORT" choices 2 "$@" || return 1
	for i in 1 2 3; do
		tm_lb lb backend add web "$(sid_of "$i")" || return 1
	done
	tm_lb rule add lbt id 1 dst "$VIP/128" proto tcp dport "$PORT" lb web
}

# srlb_start: the test's setup, then the servers' listeners (PORTS),
# started and listening; the test ends (ksft_fail) when either fails.
srlb_start()
{
	setup || { echo "FAIL: network setup"; exit "$ksft_fail"; }
	start_listeners
	wait_ready || {
		echo "FAIL: addresses or listeners not ready"
		exit "$ksft_fail"
	}
}

# srlb_report NS LBSID SPORT CPORT SERVER [ARGS...]: from NS, a
# well-formed report (source the VIP, SYN-ACK) of CLIENT:CPORT -> VIP:SPORT
# naming SERVER; ARGS go to srlb_pkt.py (e.g. --hmac KEYID:SECRET).
srlb_report()
{
	local ns=$1 lbsid=$2 sport=$3 cport=$4 server=$5

	shift 5
	ip netns exec "$ns" python3 "$(dirname "$0")/srlb_pkt.py" report \
		--src "$VIP" --vip "$VIP" --lb "$lbsid" --sid "$server" \
		--client "${CLIENT:-fd00:c::2}" --port "$sport" --sport "$cport" \
		--seq 1000 --ack 1 "$@"
}

# number_after NAME: the number after the word NAME in stdin.
number_after()
{
	awk -v name="$1" '{
		for (i = 1; i < NF; i++)
			if ($i == name && $(i + 1) ~ /^[0-9]+$/) {
				print $(i + 1)
				exit
			}
	}'
}

# poll_until SECS OP VALUE CMD...: what CMD prints, once "[ OUT OP VALUE ]"
# holds or SECS seconds have gone by, polled every 0.2 s.
poll_until()
{
	local end=$((SECONDS + $1)) op=$2 want=$3 got

	shift 3
	while :; do
		got=$("$@")
		test "$got" "$op" "$want" 2>/dev/null && break
		[ "$SECONDS" -lt "$end" ] || break
		sleep 0.2
	done
	echo "$got"
}

# poll_eq WHAT WANT CMD...: one check that CMD prints WANT, polled 10 s.
poll_eq()
{
	local what=$1 want=$2

	shift 2
	expect_eq "$what" "$(poll_until 10 = "$want" "$@")" "$want"
}

# poll_gt WHAT MIN CMD...: one check that CMD prints a number above MIN,
# polled 20 s.
poll_gt()
{
	local what=$1 min=$2 got

	shift 2
	got=$(poll_until 20 -gt "$min" "$@")
	[ "$got" -gt "$min" ] 2>/dev/null
	check_err $? "$what: '$got', not above $min"
}

# policies VERB POLICY...: "sid VERB" of each server's SID, accepting with
# the next POLICY (words of "accept policy"), one per server; fails (and
# says so in RET) when one of them does.
policies()
{
	local verb=$1 i p words rc=0

	shift
	for i in "${!SRV[@]}"; do
		p=$1
		shift
		read -ra words <<<"$p"
		tm_srv "$i" sid "$verb" "$(sid_of "$i")" accept policy \
			"${words[@]}" && continue
		rc=1
		check_err 1 "s$i: sid $verb $(sid_of "$i") accept policy $p"
	done
	return "$rc"
}

start_listeners()
{
	local i port

	for i in "${!SRV[@]}"; do
		for port in "${PORTS[@]}"; do
			# -t 15: once the client's FIN is in, socat waits that long
			# (not 0.5 s) for the shell, slow to start when the host is
			# busy, to echo and exit; else the answer is cut.
			ip netns exec "${SRV[i]}" socat -t 15 \
				"TCP6-LISTEN:$port,bind=[$VIP],fork,reuseaddr" \
				SYSTEM:"echo s$i; cat" 2>/dev/null &
			LISTENERS+=($!)
		done
	done
}

# wait_ready: every address usable and every listener listening, in 20 s
# (the first start of socat reads it from the host over 9p).
wait_ready()
{
	local end=$((SECONDS + 20)) ns i port

	for ns in "${NS_LIST[@]}"; do
		while [ -n "$(ip -n "$ns" -6 addr show tentative)" ]; do
			[ "$SECONDS" -lt "$end" ] || return 1
			sleep 0.2
		done
	done
	for i in "${!SRV[@]}"; do
		for port in "${PORTS[@]}"; do
			until ip netns exec "${SRV[i]}" ss -Hltn "sport = :$port" |
			      grep -q .; do
				[ "$SECONDS" -lt "$end" ] || return 1
				sleep 0.2
			done
		done
	done
}

# connect [PORT]: one short connection that sends "hello"; prints the
# answer (the server's name, then "hello").  It gives up after
# CONNECT_TIMEOUT seconds (default 30).
# shellcheck disable=SC2120 # PORT is optional
connect()
{
	# -t 15: the server's greeting comes from a shell it forks, slow
	# to start under emulation when the host is busy.
	printf 'hello\n' | ip netns exec "$client" \
		timeout "${CONNECT_TIMEOUT:-30}" \
		socat -t 15 - "TCP6:[$VIP]:${1:-$PORT}" 2>/dev/null
}

# conns_of PORT N: N new connections to the VIP's PORT from one process in
# the client, one after the other, each reading the server's name; prints
# "SPORT NAME" for each ("0 bad" for a failure).
conns_of()
{
	ip netns exec "$client" python3 - "$VIP" "$1" "$2" <<'EOF'
import socket, sys
vip, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for _ in range(n):
    name, sport = "bad", 0
    try:
        with socket.create_connection((vip, port), timeout=10) as s:
            sport = s.getsockname()[1]
            s.sendall(b"hello\n")
            name = s.makefile().readline().strip() or "bad"
    except OSError:
        pass
    print(sport, name)
EOF
}

# tally N: N new connections to PORT (conns_of); prints "NAME COUNT" for
# each server that answered, "bad COUNT" for the failures.
tally()
{
	conns_of "$PORT" "$1" | awk '{ print $2 }' | sort | uniq -c |
		awk '{ print $2, $1 }'
}

# tallied NAME: NAME's count in tally's output on stdin, 0 if absent.
tallied()
{
	awk -v n="$1" '$1 == n { c = $2 } END { print c + 0 }'
}

# connect_from CPORT [PORT]: a connection from the client's port CPORT;
# prints the server's name ("s1") or nothing.
connect_from()
{
	printf 'hello\n' | ip netns exec "$client" timeout 20 \
		socat -t 10 - "TCP6:[$VIP]:${2:-$PORT},sourceport=$1" \
		2>/dev/null | head -n 1
}

# long_open N [PORT]: open long-lived connection N: a socat in the client
# that sends what long_echo writes into a fifo and leaves what it gets in
# $TMP/outN.
long_open()
{
	local n=$1 port=${2:-$PORT} fd

	mkfifo "$TMP/in$n" || return 1
	: >"$TMP/out$n"
	(
		# Only this shell may hold the other fifos open for writing,
		# else closing them would not end their connections.
		for fd in "${LONG_FD[@]}"; do
			exec {fd}>&-
		done
		exec ip netns exec "$client" socat -t 5 - "TCP6:[$VIP]:$port" \
			<"$TMP/in$n" >"$TMP/out$n" 2>"$TMP/err$n"
	) &
	LONG_PID[n]=$!
	# Read-write: opening never blocks, even if socat is gone.
	exec {fd}<>"$TMP/in$n"
	LONG_FD[n]=$fd
}

# long_server N: the name that answered connection N (waits up to 10 s).
long_server()
{
	local end=$((SECONDS + 10)) line=

	until read -r line <"$TMP/out$1" && [ -n "$line" ]; do
		[ "$SECONDS" -lt "$end" ] || break
		sleep 0.2
	done
	echo "$line"
}

# long_echo N WORD: send WORD on connection N; true once it came back
# (within 10 s).
long_echo()
{
	local end=$((SECONDS + 10))

	printf '%s\n' "$2" >&"${LONG_FD[$1]}" || return 1
	until grep -qx "$2" "$TMP/out$1"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.2
	done
}

# long_close N...: end connections N... as a client does (its FIN first,
# then the server's), and wait up to 10 s for their socat to exit.
long_close()
{
	local n fd end=$((SECONDS + 10))

	for n in "$@"; do
		fd=${LONG_FD[n]:-}
		[ -n "$fd" ] || continue
		exec {fd}>&-
		unset "LONG_FD[n]"
	done
	for n in "$@"; do
		[ -n "${LONG_PID[n]:-}" ] || continue
		while kill -0 "${LONG_PID[n]}" 2>/dev/null; do
			[ "$SECONDS" -lt "$end" ] || return 1
			sleep 0.2
		done
		wait "${LONG_PID[n]}" 2>/dev/null
		unset "LONG_PID[n]"
	done
}
