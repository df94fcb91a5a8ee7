#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The RFC 8754 HMAC TLV on the load balancer <-> server packets
# (Documentation/srv6-lb.rst, "HMAC"): with "hmac KEYID" on a service and
# on the servers' SIDs, and the seg6 HMAC key ("ip sr hmac set") in each
# namespace, every SRH the load balancer inserts and every report carries
# an HMAC TLV that the other end checks.
#
# The topology of srlb_lb.sh (lib_srlb.sh's lb_topology):
# client -- lb -- srv1, srv2, srv3.  Service web (port 8080, choices 2,
# hmac 1) has the backends s1 and s2, both with policy never and hmac 1:
# every connection hunts through both (the first passes it on, its kernel
# End checking the HMAC too; the last takes it).  Service plain (port
# 8081, no hmac) has s3 alone, a SID without hmac.  s3 has no key: it is
# also the sender of the forged packets.
#
#  1. Connections to web work through two candidates, the SRHs carry the
#     HMAC flag, nothing is counted hmac-bad.
#  2. plain: as without this feature, no HMAC TLV on the wire.
#  3. Reports forged for a live steered connection (its 5-tuple; a RST
#     naming its server without an HMAC TLV, one naming the other server
#     with a wrong HMAC): dropped and
#     counted hmac-bad at lb, the flow keeps its server, the connection
#     carries on.
#  4. Hunting SYNs forged to s1 without a valid HMAC: not accepted,
#     counted hmac-bad at s1.
#  5. lb's key differs from the servers': connections fail, the servers
#     count hmac-bad; lb without the key: they fail, lb counts hmac-nokey.

source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib_srlb.sh"

require_root
require_cmd ip socat python3 timeout ss nft
require_module

LB_SID2=fd00:1b::2
PORT=8080
PORT2=8081
PORTS=("$PORT" "$PORT2")
CLIENT=fd00:c::2
KEY=1
SECRET=tm-hmac-secret

TMP=$(mktemp -d)

# hmac_key NS [SECRET]: set NS's seg6 HMAC key KEY (no SECRET: delete it).
hmac_key()
{
	printf '%s\n' "${2:-}" | ip -n "$1" sr hmac set "$KEY" sha256 \
		>/dev/null 2>&1
}

# sum2 COUNTER: the counter of s1's SID plus s2's.
sum2()
{
	echo $(($(sidc 1 "$1") + $(sidc 2 "$1")))
}

# hflag I: packets with an SRH with the HMAC flag that reached srvI.
hflag()
{
	ip netns exec "${SRV[$1]}" nft list counter inet hm hflag |
		number_after packets
}

setup()
{
	local i

	setup_srlb 3 || return 1
	for i in 1 2 3; do
		ip netns exec "${SRV[i]}" nft -f - <<EOF || return 1
table inet hm {
	counter hflag { }
	chain pre {
		type filter hook prerouting priority -300;
		ip6 nexthdr 43 @nh,364,1 1 counter name hflag
	}
}
EOF
	done
	hmac_key "$lb" "$SECRET" && hmac_key "${SRV[1]}" "$SECRET" &&
		hmac_key "${SRV[2]}" "$SECRET" || return 1
	tm_lb table add lbt family ip6 hook prerouting &&
		tm_lb lb service add web vip "$VIP" sid "$LB_SID" tcp \
			port "$PORT" choices 2 hmac "$KEY" &&
		tm_lb lb backend add web "$(sid_of 1)" &&
		tm_lb lb backend add web "$(sid_of 2)" &&
		tm_lb lb service add plain vip "$VIP" sid "$LB_SID2" tcp \
			port "$PORT2" choices 1 &&
		tm_lb lb backend add plain "$(sid_of 3)" &&
		tm_lb rule add lbt id 1 dst "$VIP/128" proto tcp dport "$PORT" \
			lb web &&
		tm_lb rule add lbt id 2 dst "$VIP/128" proto tcp dport "$PORT2" \
			lb plain || return 1
	for i in 1 2; do
		tm_srv "$i" sid add "$(sid_of "$i")" accept policy never \
			hmac "$KEY" || return 1
	done
	tm_srv 3 sid add "$(sid_of 3)" accept policy always
}

# served GOT: check_err unless GOT is s1 or s2.
served()
{
	case "$1" in
	s1 | s2) ;;
	*) check_err 1 "$2 served by '$1', not s1/s2" ;;
	esac
}

test_good()
{
	local passed forced learned i

	passed=$(sum2 passed)
	forced=$(sum2 forced)
	learned=$(lbc web learned)
	for i in 1 2 3; do
		served "$(connect_from $((42000 + i)))" "connection $i"
	done
	[ "$(sum2 passed)" -ge $((passed + 3)) ] && \
		[ "$(sum2 forced)" -ge $((forced + 3)) ]
	check_err $? "not through two candidates: passed $(sum2 passed), forced $(sum2 forced)"
	[ "$(lbc web learned)" -ge $((learned + 3)) ]
	check_err $? "lb learned $(lbc web learned), not 3 more than $learned"
	[ "$(hflag 1)" -gt 0 ] && [ "$(hflag 2)" -gt 0 ]
	check_err $? "no SRH with the HMAC flag at s1 ($(hflag 1)) or s2 ($(hflag 2))"
	expect_eq "web hmac-bad" "$(lbc web hmac-bad)" 0
	expect_eq "s1 + s2 hmac-bad" "$(sum2 hmac-bad)" 0
	expect_eq "web hmac-nokey" "$(lbc web hmac-nokey)" 0
	log_test "hmac: connections through 2 candidates, signed and verified"
}

test_plain()
{
	expect_eq "plain service answered by" \
		"$(connect_from 42100 "$PORT2")" s3
	expect_eq "SRHs with the HMAC flag at s3" "$(hflag 3)" 0
	expect_eq "plain hmac-bad" "$(lbc plain hmac-bad)" 0
	log_test "no hmac: unchanged, no HMAC TLV"
}

test_forged_report()
{
	local srv other p flow bad refused got

	long_open 1
	srv=$(long_server 1)
	served "$srv" "connection 1"
	p=$(ip netns exec "$client" ss -Htn state established \
		"dst [$VIP]:$PORT" | awk '{ n = split($3, a, ":"); print a[n]; exit }')
	flow=$(poll_until 10 != "" flow_of web "$p")
	[[ "$flow" == *" state steer "* ]]
	check_err $? "connection 1 (port '$p') not steered at lb: '$flow'"
	other=$((3 - ${srv#s}))
	bad=$(lbc web hmac-bad)
	refused=$(lbc web refused)
	# Naming its own server: taken without HMAC (the flow closing).
	srlb_report "${SRV[3]}" "$LB_SID" "$PORT" "$p" \
		"$(sid_of "${srv#s}")" --flags R
	check_err $? "forged report (no HMAC) not sent"
	srlb_report "${SRV[3]}" "$LB_SID" "$PORT" "$p" "$(sid_of "$other")" \
		--flags R --hmac "$KEY:not-the-secret"
	check_err $? "forged report (wrong HMAC) not sent"
	poll_eq "web hmac-bad after 2 forged reports" $((bad + 2)) \
		lbc web hmac-bad
	expect_eq "web refused (dropped before)" "$(lbc web refused)" \
		"$refused"
	got=$(flow_of web "$p")
	expect_eq "connection 1's flow" "${got% idle *}" "${flow% idle *}"
	long_echo 1 still
	check_err $? "connection 1 broken by the forged reports"
	long_close 1
	log_test "hmac: forged reports dropped and counted, the flow unchanged"
}

test_forged_hunt()
{
	local bad forced conns
	local -a pkt_args

	bad=$(sidc 1 hmac-bad)
	forced=$(sidc 1 forced)
	conns=$(sidc 1 conns-now)
	pkt_args=(--src "$CLIENT" --sid "$(sid_of 1)" --vip "$VIP" \
		--lb "$LB_SID" --port "$PORT" --sport 43001 --flags S)
	ip netns exec "${SRV[3]}" python3 "$(dirname "$0")/srlb_pkt.py" send \
		"${pkt_args[@]}"
	check_err $? "forged SYN (no HMAC) not sent"
	ip netns exec "${SRV[3]}" python3 "$(dirname "$0")/srlb_pkt.py" send \
		"${pkt_args[@]}" --hmac "$KEY:not-the-secret"
	check_err $? "forged SYN (wrong HMAC) not sent"
	poll_eq "s1 hmac-bad after 2 forged SYNs" $((bad + 2)) sidc 1 hmac-bad
	expect_eq "s1 forced" "$(sidc 1 forced)" "$forced"
	expect_eq "s1 conns-now" "$(sidc 1 conns-now)" "$conns"
	log_test "hmac: forged hunting SYNs not accepted by the server"
}

# try CPORT: a connection attempt that gives up after 4 s; its answer.
try()
{
	printf 'hello\n' | ip netns exec "$client" timeout 4 \
		socat -t 2 - "TCP6:[$VIP]:$PORT,sourceport=$1" 2>/dev/null |
		head -n 1
}

test_mismatch()
{
	local bad nokey

	bad=$(sum2 hmac-bad)
	hmac_key "$lb" "another-secret"
	check_err $? "lb: ip sr hmac set $KEY (another secret)"
	expect_eq "connection with mismatched keys" "$(try 44001)" ""
	[ "$(sum2 hmac-bad)" -gt "$bad" ]
	check_err $? "servers' hmac-bad $(sum2 hmac-bad), not above $bad"
	nokey=$(lbc web hmac-nokey)
	hmac_key "$lb"
	expect_eq "lb's key deleted" "$(ip -n "$lb" sr hmac show)" ""
	expect_eq "connection without lb's key" "$(try 44002)" ""
	[ "$(lbc web hmac-nokey)" -gt "$nokey" ]
	check_err $? "lb hmac-nokey $(lbc web hmac-nokey), not above $nokey"
	hmac_key "$lb" "$SECRET"
	served "$(connect_from 44003)" "connection with the keys back"
	log_test "hmac: mismatched or missing keys fail, counted"
}

srlb_start

test_good
test_plain
test_forged_report
test_forged_hunt
test_mismatch

exit "$EXIT_STATUS"
