#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Health checks of the SRv6 load balancer's backends (Documentation/
# srv6-lb.rst, "Health checks"), on srlb_lb.sh's network: client, lb, srv1
# to srv3, service web (VIP fd00:100::1 port 8080, choices 2) probing its
# backends every 200 ms (timeout 150 ms, rise 2, fall 2) with a listener
# check; the servers accept every connection offered first.
#
# Each server breaks in its own way while connections arrive, and within
# a bound (fall x interval plus a timeout, and the emulation's slack) it is
# down: no new connection is offered to it, every new one completes, the
# monitor shows it; fixed, it is up again and takes connections:
# - srv1's listener killed: down, "no-listener";
# - srv2's SID unbound: down, "unbound" (its End returns the probe as is);
#   the flows steered to it are forgotten (a long connection's);
# - srv3's link down: down ("timeout"), until the link is back.
# Also: a probe answer with a wrong cookie, sent from the SR domain, is
# refused and changes nothing; health settings are checked.

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_srlb.sh"

require_root
require_cmd ip socat python3 timeout ss
require_module

PORT=8080
PORTS=("$PORT")
# The seconds a change may take to show: fall x interval + timeout is
# 0.55 s; emulated, the probes' work and the VM's timers run late.
BOUND=${HEALTH_BOUND:-5}

TMP=$(mktemp -d)
MON_PID=

test_cleanup()
{
	[ -n "$MON_PID" ] && kill "$MON_PID" 2>/dev/null
}

setup()
{
	setup_srlb -s net.ipv6.conf.all.keep_addr_on_down=1 3 &&
		lb_web health-interval 200ms health-timeout 150ms \
			health-rise 2 health-fall 2 health-listener &&
		policies add always always always
}

# backend_word I WORD: the word after WORD on server I's backend line.
backend_word()
{
	tm_lb lb service show web |
		awk -v s="$(sid_of "$1")" -v w="$2" '$1 == "backend" && $2 == s {
			for (i = 3; i < NF; i++)
				if ($i == w) print $(i + 1) }'
}

# health I: "up" or "down", server I's backend health at lb.
health()
{
	backend_word "$1" health
}

# why I: why server I's last failed probe failed.
why()
{
	backend_word "$1" why
}

# bkc I NAME: a figure of server I's backend line ("flows", "probes").
bkc()
{
	tm_lb lb service show web | grep "backend $(sid_of "$1") " |
		number_after "$2"
}

# went I STATE: server I's backend went STATE within BOUND seconds (and
# says how long it took); the connections meanwhile are the caller's.
went()
{
	local t0=$EPOCHREALTIME got

	got=$(poll_until "$BOUND" = "$2" health "$1")
	expect_eq "s$1's health" "$got" "$2"
	log_info "s$1 $2 after $(awk -v a="$t0" -v b="$EPOCHREALTIME" \
		'BEGIN { printf "%.1f", b - a }') s"
}

# served_without I: 30 new connections all complete, none reaches s<I>.
served_without()
{
	local out

	out=$(tally 30)
	expect_eq "new connections that reached s$1 (down)" \
		"$(tallied "s$1" <<<"$out")" 0
	expect_eq "failed new connections, s$1 down" "$(tallied bad <<<"$out")" 0
}

# served_with I: s<I> takes some of 30 new connections again.
served_with()
{
	local out

	out=$(tally 30)
	[ "$(tallied "s$1" <<<"$out")" -gt 0 ]
	check_err $? "s$1 takes no new connection once up ($out)"
	expect_eq "failed new connections, s$1 up" "$(tallied bad <<<"$out")" 0
}

# monitored I STATE: the monitor printed server I going STATE.
monitored()
{
	poll_until 5 -gt 0 grep -c "health web $(sid_of "$1") $2" \
		"$TMP/monitor" >/dev/null
	grep -q "health web $(sid_of "$1") $2" "$TMP/monitor"
	check_err $? "no monitor event of s$1 going $2: $(cat "$TMP/monitor")"
}

test_all_up()
{
	local i f=() p=()

	tm_lb monitor >"$TMP/monitor" 2>&1 &
	MON_PID=$!
	# The probes started with the service, before the SIDs were bound
	# and the listeners up: those failed.
	for i in 1 2 3; do
		poll_eq "s$i's health" up health "$i"
		f[i]=$(bkc "$i" failed)
		p[i]=$(bkc "$i" probes)
	done
	sleep 2
	for i in 1 2 3; do
		[ "$(bkc "$i" probes)" -ge $((p[i] + 5)) ] 2>/dev/null
		check_err $? "s$i probed $(bkc "$i" probes) times after ${p[i]}, 2 s later"
		expect_eq "s$i's failed probes, 2 s later" "$(bkc "$i" failed)" \
			"${f[i]}"
	done
	served_with 1
	log_test "health checks: every backend answers its probes, up"
}

test_listener()
{
	kill "${LISTENERS[0]}"
	wait "${LISTENERS[0]}" 2>/dev/null
	went 1 down
	expect_eq "why s1 is down" "$(why 1)" no-listener
	monitored 1 down
	served_without 1
	ip netns exec "${SRV[1]}" socat -t 15 \
		"TCP6-LISTEN:$PORT,bind=[$VIP],fork,reuseaddr" \
		SYSTEM:"echo s1; cat" 2>/dev/null &
	LISTENERS[0]=$!
	went 1 up
	monitored 1 up
	served_with 1
	log_test "s1's listener killed: down (no-listener), no new connection to it; back: up"
}

test_unbound()
{
	local s i t long=

	# A long connection to s2 (the first candidate takes it). Its source
	# port picks the candidates: about one in three tries reaches s2, so
	# 40 tries all miss it once in ten million runs (8 missed it once in
	# 26: CI, 2026-12-07).
	for ((t = 1; t <= 40; t++)); do
		long_open "$t"
		s=$(long_server "$t")
		if [ "$s" = s2 ]; then
			long=$t
			break
		fi
		long_close "$t"
	done
	[ -n "$long" ]
	check_err $? "no long connection of $((t - 1)) reached s2"
	log_info "a long connection reached s2 at try $t"
	i=$(bkc 2 flows)
	[ "${i:-0}" -gt 0 ] 2>/dev/null
	check_err $? "lb steers no flow to s2 ($i)"
	tm_srv 2 sid del "$(sid_of 2)"
	check_err $? "unbind s2's SID"
	went 2 down
	expect_eq "why s2 is down" "$(why 2)" unbound
	monitored 2 down
	expect_eq "flows lb steers to s2, down" "$(bkc 2 flows)" 0
	served_without 2
	[ -n "$long" ] && long_close "$long"
	tm_srv 2 sid add "$(sid_of 2)" accept policy always
	check_err $? "bind s2's SID again"
	went 2 up
	monitored 2 up
	served_with 2
	log_test "s2's SID unbound: down (unbound), its flows forgotten; bound: up"
}

test_link()
{
	ip -n "${SRV[3]}" link set veth0 down
	went 3 down
	log_info "s3 down: why $(why 3)"
	monitored 3 down
	served_without 3
	# The link's routes went with it.
	ip -n "${SRV[3]}" link set veth0 up &&
		ip -n "${SRV[3]}" -6 route replace default via fd00:3::1 &&
		ip -n "${SRV[3]}" -6 route replace "$(sid_of 3)/128" \
			encap seg6local action End dev veth0
	check_err $? "s3's link and routes back"
	went 3 up
	monitored 3 up
	served_with 3
	log_test "s3's link down: down, no new connection to it; up again: up"
}

# A probe answer from the SR domain without the cookie: refused.
test_spoof()
{
	local r f

	r=$(lbc web refused)
	f=$(bkc 1 failed)
	ip netns exec "${SRV[1]}" python3 - "$LB_SID" "$(sid_of 1)" "$VIP" \
		<<'EOF'
import socket
import struct
import sys

lbsid, sid, vip = (socket.inet_pton(socket.AF_INET6, a) for a in sys.argv[1:])
s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_RAW)
for cookie in range(1, 51):
    for tag in (0x5205, 0x5207):
        # SRH [LB SID, s1's SID] at segments left 0, next header 59.
        srh = struct.pack("!BBBBBBH", 59, 4, 4, 0, 1, 0, tag) + lbsid + sid
        probe = struct.pack("=Q", cookie) + vip + struct.pack("!HBBI", 8080, 6, 1, 0)
        payload = srh + probe
        hdr = struct.pack("!IHBB", 6 << 28, len(payload), 43, 64) + lbsid + lbsid
        s.sendto(hdr + payload, (sys.argv[1], 0))
EOF
	poll_gt "answers refused at lb" "$r" lbc web refused
	expect_eq "s1's health after 100 forged answers" "$(health 1)" up
	log_info "s1: failed probes $f -> $(bkc 1 failed)"
	log_test "forged probe answers (wrong cookies) are refused, change nothing"
}

test_settings()
{
	local err

	err=$(tm_lb lb service add bad vip fd00:100::9 sid fd00:1b::9 tcp \
		port 1 health-interval 200ms health-timeout 300ms 2>&1)
	check_fail $? "a timeout longer than the interval"
	log_info "$err"
	err=$(tm_lb lb service add bad vip fd00:100::9 sid fd00:1b::9 tcp \
		port 1 health-interval 50ms 2>&1)
	check_fail $? "an interval of 50 ms"
	log_info "$err"
	tm_lb lb service show bad >/dev/null 2>&1
	check_fail $? "a service made of refused settings"
	tm_lb lb service show web | grep -q "health-interval 200ms"
	check_err $? "the service lists its health checks"
	log_test "health settings: bad ones refused with a reason, good ones listed"
}

srlb_start

test_all_up
test_listener
test_unbound
test_link
test_spoof
test_settings

exit "$EXIT_STATUS"
