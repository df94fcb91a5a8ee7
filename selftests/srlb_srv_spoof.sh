#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What an off-path sender can do to a server's connection-acceptance SID
# (issue 14, items 3 and 5; Documentation/srv6-lb.rst, "Server-side
# security"): it sends packets to the SID with an SRH and the 5-tuple of a
# live connection, but it does not know the connection's sequence numbers.
#
#   client  veth1 fd00:1::1/64 -------- veth2 fd00:1::2/64  srv
#     lo fd00:ac::1 ("the attacker")                       VIP fd00:100::1 on lo
#     VIP via srv, encap seg6 inline                      SID fc00:1::100: End
#       [VIP, fd00:1b::1 (LB), SID]
#
# The client's route puts an SRH (tag 0, SID last candidate) on its
# packets, so the server takes its connections and answers directly.
#   - report: a CONNECT-tagged (or RECOVER-tagged) packet of the
#     connection naming the attacker as its load balancer must not make
#     the server's replies report to the attacker: the connection still
#     carries data, and nothing reaches the attacker's address;
#   - conns: a RST or a FIN with a wrong sequence number does not end the
#     connection's count (sid show conns-now), its real close does;
#   - half-open: a flood of SYNs nobody completes is forgotten within
#     seconds (conns-now back to 0), and connections succeed meanwhile;
#   - slow handshake: one that completes after the half-open timeout (the
#     server retransmitted its SYN-ACK) still counts;
#   - memory cgroup: the connections a flood makes are charged to whoever
#     bound the first SID, and bounded by its memory.max.

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_srlb.sh"

require_root
require_cmd ip socat python3 timeout ss nft
require_module

SID=fc00:1::100
ATTACKER=fd00:ac::1
PORT=8080

client='' srv=''
setup_ns client srv || exit "$ksft_fail"
veth_pair "$client" "$srv" || exit "$ksft_fail"
TMP=$(mktemp -d)

tm()
{
	"$TMCTL" -n "$srv" "$@"
}

# conns: the SID's conns-now.
conns()
{
	tm sid show "$SID" | number_after conns-now
}

# pkt ARGS...: srlb_pkt.py from the client (the source address is the
# client's unless ARGS say otherwise).
pkt()
{
	ip netns exec "$client" python3 "$(dirname "$0")/srlb_pkt.py" "$@" \
		--sid "$SID" --vip "$VIP" --port "$PORT"
}

# cport N: the client port of long-lived connection N (the only one open).
cport()
{
	ip netns exec "$client" ss -Htn state established "dst [$VIP]" |
		awk '{ n = split($3, a, ":"); print a[n]; exit }'
}

ip -n "$srv" addr add "$VIP/128" dev lo nodad &&
	ip -n "$client" addr add "$ATTACKER/128" dev lo nodad &&
	ip -n "$srv" -6 route add default via fd00:1::1 &&
	ip netns exec "$srv" sysctl -qw net.ipv6.conf.all.forwarding=1 &&
	ip -n "$srv" -6 route add "$SID/128" encap seg6local action End \
		dev veth2 &&
	ip -n "$client" -6 route add "$SID/128" via fd00:1::2 &&
	ip -n "$client" -6 route add "$VIP/128" encap seg6 mode inline \
		segs "$SID,$LB_SID" via fd00:1::2 dev veth1 ||
	exit "$ksft_fail"
# What reaches the attacker's address.
ip netns exec "$client" nft -f - <<EOF || exit "$ksft_fail"
table inet spoof {
	counter attacker { }
	chain pre {
		type filter hook prerouting priority -300;
		ip6 daddr $ATTACKER counter name attacker
	}
}
EOF
ip netns exec "$srv" socat -t 15 \
	"TCP6-LISTEN:$PORT,bind=[$VIP],fork,reuseaddr" SYSTEM:"echo s1; cat" \
	2>/dev/null &
LISTENERS+=($!)
until ip netns exec "$srv" ss -Hltn "sport = :$PORT" | grep -q .; do
	sleep 0.2
done

attacker_pkts()
{
	ip netns exec "$client" nft list counter inet spoof attacker |
		number_after packets
}

test_report()
{
	local p tag

	tm sid add "$SID" accept policy always
	check_err $? "sid add $SID"
	long_open 1
	expect_eq "connection 1 answered by" "$(long_server 1)" s1
	p=$(cport)
	[ -n "$p" ]
	check_err $? "no client port for connection 1"
	for tag in 0x5201 0x5202; do
		# An ACK of the connection, wrong numbers, the attacker as LB.
		pkt send --src fd00:1::1 --lb "$ATTACKER" --tag "$tag" \
			--sport "$p" --flags A --seq 0x12345678 --ack 0x9abcdef0 \
			--count 3
		check_err $? "spoofed packet (tag $tag) not sent"
		long_echo 1 "after$tag"
		check_err $? "no echo after the spoofed packet of tag $tag"
	done
	expect_eq "packets to the attacker" "$(attacker_pkts)" 0
	long_close 1
	check_err $? "connection 1 did not end"
	log_test "a spoofed CONNECT or RECOVER does not move a connection's reports"
}

test_conns()
{
	local p flags

	tm sid replace "$SID" accept policy conns 5
	check_err $? "sid replace conns 5"
	poll_eq "conns-now before" 0 conns
	long_open 2
	expect_eq "connection 2 answered by" "$(long_server 2)" s1
	poll_eq "conns-now, connection 2 open" 1 conns
	p=$(cport)
	for flags in R RA F FA; do
		pkt send --src fd00:1::1 --lb "$LB_SID" --tag 0x5203 \
			--sport "$p" --flags "$flags" --seq 0x12345678 \
			--ack 0x9abcdef0 --count 3
		check_err $? "spoofed $flags not sent"
	done
	# The aging runs once a second: give it three.
	sleep 3
	expect_eq "conns-now after spoofed RSTs and FINs" "$(conns)" 1
	long_echo 2 still
	check_err $? "connection 2 broken by the spoofed packets"
	long_close 2
	check_err $? "connection 2 did not end"
	poll_eq "conns-now after the real close" 0 conns
	# A connection the server aborts (its socket destroyed, a RST sent)
	# ends its count too.
	long_open 3
	expect_eq "connection 3 answered by" "$(long_server 3)" s1
	poll_eq "conns-now, connection 3 open" 1 conns
	ip netns exec "$srv" ss -K state established "src [$VIP]:$PORT" \
		>/dev/null 2>&1
	if ip netns exec "$srv" ss -Htn state established \
		"src [$VIP]:$PORT" | grep -q .; then
		log_info "ss -K destroyed nothing (no CONFIG_INET_DIAG_DESTROY): abort part skipped"
	else
		poll_eq "conns-now after the server's abort" 0 conns
	fi
	long_close 3
	log_test "spoofed RSTs and FINs do not end a connection's count"
}

test_half_open()
{
	local out

	tm sid replace "$SID" accept policy conns 100000
	check_err $? "sid replace conns 100000"
	pkt flood --src fd00:dead:: --lb "$LB_SID" --tag 0 --flows 2000 \
		--time 4 >"$TMP/sent" &
	LONG_PID+=($!)
	sleep 1
	out=$(connect "$PORT")
	expect_eq "a connection during the flood" "${out//$'\n'/\\n}" 's1\nhello'
	wait "${LONG_PID[-1]}"
	log_info "$(cat "$TMP/sent") SYNs sent, $(conns) connections counted"
	expect_eq "conns-now 10 s after the flood" \
		"$(poll_until 10 = 0 conns)" 0
	log_test "half-open connections of a SYN flood are forgotten within seconds"
}

# A client whose handshake takes longer than the half-open timeout (its
# ACKs lost for 5 s, so that the server's request socket retransmits its
# SYN-ACK): the connection still counts once it is established.
test_slow_handshake()
{
	tm sid replace "$SID" accept policy always
	check_err $? "sid replace always"
	ip netns exec "$client" nft -f - <<-EOF
	table inet slow {
		chain out {
			type filter hook output priority 0;
			tcp dport $PORT tcp flags & syn == 0 drop
		}
	}
	EOF
	check_err $? "nft: drop the client's ACKs"
	long_open 4
	sleep 5
	ip netns exec "$client" nft delete table inet slow
	expect_eq "slow connection answered by" "$(long_server 4)" s1
	long_echo 4 slow
	check_err $? "slow connection: no echo"
	poll_eq "conns-now once the slow handshake completed" 1 conns
	long_close 4
	poll_eq "conns-now after it closed" 0 conns
	log_test "a handshake slower than the half-open timeout still counts"
}

# The connections of a namespace are charged to the memory cgroup of
# whoever bound its first SID: there, a flood of SYNs pins no more than
# memory.max.
test_memcg()
{
	local cur cur2 max peak now slack out

	memcg_new sflows || {
		[ "$RET" -ne 0 ] && log_test "memory cgroup"
		return
	}
	# The last SID goes, with the table; the next one is the first again.
	tm sid del "$SID"
	in_memcg "$CG" "$TMCTL" -n "$srv" sid add "$SID" accept policy always
	check_err $? "sid add $SID from $CG"
	cur=$(memcg_pinned "$CG")
	max=$((cur + 65536))
	echo "$max" >"$CG/memory.max"
	# memory.peak also saw tmctl itself: sample memory.current instead.
	pkt flood --src fd00:bad:: --lb "$LB_SID" --tag 0 --flows 3000 \
		--time 3 >"$TMP/sent" &
	peak=0
	while kill -0 $! 2>/dev/null; do
		cur2=$(cat "$CG/memory.current")
		[ "$cur2" -gt "$peak" ] && peak=$cur2
		sleep 0.1
	done
	wait $!
	now=$(cat "$CG/memory.current")
	log_info "$(cat "$TMP/sent") SYNs of 3000 connections (192 bytes each): memory.current $cur -> $now, at most $peak, max $max"
	[ "$peak" -gt $((cur + 8192)) ] 2>/dev/null
	check_err $? "the connections were not charged to the SID's binder"
	# What the connections pin, once the flood has stopped.
	[ "$now" -le "$max" ] 2>/dev/null
	check_err $? "memory.current $now above memory.max $max after the flood"
	# A sample may also see a charge being tried: the kernel adds a CPU's
	# batch (64 pages) to the count, compares it with memory.max and takes
	# it back when over (page_counter_try_charge()); CI once sampled
	# exactly max + 64 pages.
	slack=$(($(nproc) * 64 * $(getconf PAGESIZE)))
	[ "$peak" -le $((max + slack)) ] 2>/dev/null
	check_err $? "memory.current $peak above memory.max $max and the batches being tried"
	out=$(connect "$PORT")
	expect_eq "a connection at memory.max" "${out//$'\n'/\\n}" 's1\nhello'
	log_test "memory cgroup: connections charged to the SID's binder, bounded"
}

test_report
test_conns
# Before the flood: its half-open connections fill the listener's SYN
# queue, and SYN cookies retransmit no SYN-ACK.
test_slow_handshake
test_half_open
test_memcg

exit "$EXIT_STATUS"
