#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SIDs unbound under a SYN flood (issue 14, item 2).  A SYN that found its
# SID just before the unbind must not add a connection after the unbind
# swept the SID's connections: such a connection would point to the freed
# SID, and the last unbind (or the aging) would decrement its freed
# `conns`.  Nor may the last unbind of the namespace, which frees the
# connection table, leave connections behind.
#
#   client  veth1 fd00:1::1/64 -------- veth2 fd00:1::2/64  srv
#                                                          VIP fd00:100::1 on lo
#                                    fc00:1::100, fc00:1::200: seg6local End
#
# The client floods fc00:1::100 with SYNs from fd00:dead::/64 (nobody
# answers their SYN-ACKs: the connections stay half-open), with an SRH
# that makes the SID the last candidate, which takes them.  Meanwhile the
# server binds and unbinds fc00:1::100 in a loop, first with fc00:1::200
# bound all along (the hooks stay), then with both (the last unbind takes
# the hooks and the table down every time).  Then every SID goes, the slab
# caches are validated, and the kernel log must show no report.  Best run
# with "-A slub_debug=FZP" (selftests/vm/run.sh): freed objects poisoned,
# so a write after the free is seen.

source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip socat python3 timeout nft
require_module

DURATION=${DURATION:-12}
VIP=fd00:100::1
LB_SID=fd00:1b::1
SID_A=fc00:1::100
SID_B=fc00:1::200
PORT=8080

client='' srv='' keep=''
setup_ns client srv keep || exit "$ksft_fail"
veth_pair "$client" "$srv" || exit "$ksft_fail"

TMP=$(mktemp -d)
PIDS=()
cleanup()
{
	kill "${PIDS[@]}" 2>/dev/null
	ip netns pids "$srv" 2>/dev/null | xargs -r kill 2>/dev/null
	wait 2>/dev/null
	cleanup_ns
	rm -rf "$TMP"
}

tm()
{
	"$TMCTL" -n "$srv" "$@"
}

ip -n "$srv" addr add "$VIP/128" dev lo nodad &&
	ip -n "$srv" -6 route add default via fd00:1::1 &&
	ip netns exec "$srv" sysctl -qw net.ipv6.conf.all.forwarding=1 &&
	ip -n "$srv" -6 route add "$SID_A/128" encap seg6local action End \
		dev veth2 &&
	ip -n "$srv" -6 route add "$SID_B/128" encap seg6local action End \
		dev veth2 &&
	ip -n "$client" -6 route add fc00:1::/64 via fd00:1::2 ||
	exit "$ksft_fail"
# IPv6 LOCAL_IN and LOCAL_OUT hooks in a namespace of their own, kept all
# along, so that the module's hooks coming and going (second phase) do not
# flip the kernel's global nf_hooks_needed static keys: on 6.12 under TCG
# that text patching, under a flood through seg6_local_input(), ended in
# "Oops: int3" at its NF_HOOK site.  The module's own unhook path runs all
# the same.
ip netns exec "$keep" nft -f - <<EOF || exit "$ksft_fail"
table ip6 keep {
	chain in { type filter hook input priority 0; }
	chain out { type filter hook output priority 0; }
}
EOF
ip netns exec "$srv" socat "TCP6-LISTEN:$PORT,bind=[$VIP],fork,reuseaddr" \
	SYSTEM:"cat" 2>/dev/null &
PIDS+=($!)

# flood SECONDS: SYNs at SID_A in the background; $TMP/sent gets the count.
flood()
{
	ip netns exec "$client" python3 "$(dirname "$0")/srlb_pkt.py" flood \
		--src fd00:dead:: --sid "$SID_A" --vip "$VIP" --lb "$LB_SID" \
		--port "$PORT" --time "$1" >"$TMP/sent" &
	PIDS+=($!)
	FLOOD=$!
}

# cycle SECONDS SIDS...: bind and unbind SIDS in a loop for SECONDS, from
# one tmnl.py (fast); prints the number of rounds.
cycle()
{
	ip netns exec "$srv" python3 - "$(dirname "$0")" "$@" <<'EOF'
import sys
import time

sys.path.insert(0, sys.argv[1])
import tmnl  # noqa: E402

deadline, sids = time.time() + float(sys.argv[2]), sys.argv[3:]
spec = tmnl.load_spec()
nl = tmnl.Genl()
fam = nl.family_id("tuplemerge")


def req(cmd, *args):
    rc, _, error = tmnl.request(nl, fam, spec, cmd, list(args))
    if rc:
        sys.exit("%s %s: %s" % (cmd, args, error))


n = 0
while time.time() < deadline:
    for sid in sids:
        req("sid-new", "sid-addr=" + sid, "sid-policy=1")
    for sid in sids:
        req("sid-del", "sid-addr=" + sid)
    n += 1
print(n)
EOF
}

# The kernel log from here on is this test's.
dmesg_from=$(dmesg | wc -l)

tm sid add "$SID_B" accept policy always
check_err $? "sid add $SID_B"
flood $((DURATION + 2))
# The flood reaches the SID: it accepts SYNs.
tm sid add "$SID_A" accept policy always
check_err $? "sid add $SID_A"
accepted=0
for ((i = 0; i < 50; i++)); do
	accepted=$(tm sid show "$SID_A" | awk '{
		for (i = 1; i < NF; i++)
			if ($i == "accepted") { print $(i + 1); exit }
	}')
	[ "${accepted:-0}" -gt 100 ] && break
	sleep 0.2
done
[ "${accepted:-0}" -gt 100 ] 2>/dev/null
check_err $? "the flood did not reach $SID_A: accepted '$accepted'"
tm sid del "$SID_A"
check_err $? "sid del $SID_A"

n=$(cycle $((DURATION / 2)) "$SID_A")
check_err $? "binding and unbinding $SID_A failed"
log_info "$n binds and unbinds of $SID_A, $SID_B bound"
tm sid del "$SID_B"
check_err $? "sid del $SID_B"
n=$(cycle $((DURATION / 2)) "$SID_A" "$SID_B")
check_err $? "binding and unbinding both SIDs failed"
log_info "$n binds and unbinds of both SIDs"

wait "$FLOOD"
log_info "$(cat "$TMP/sent") SYNs sent"
# Any half-open connection left goes with the last SID.
tm sid add "$SID_A" accept policy always && tm sid add "$SID_B" accept policy always
check_err $? "sid add after the flood"
tm sid del "$SID_A" && tm sid del "$SID_B"
check_err $? "sid del after the flood"
sleep 1
# A free object written to is reported when its cache is validated (with
# slub_debug's poisoning), else when it is allocated again.
for f in /sys/kernel/slab/*/validate; do
	echo 1 >"$f" 2>/dev/null
done
sleep 1
bad=$(dmesg | tail -n +"$((dmesg_from + 1))" |
      grep -E 'BUG|Poison|corrupt|Redzone|WARNING|Oops|general protection' |
      head -n 5)
expect_eq "kernel reports" "$bad" ""
log_test "SIDs unbound under a SYN flood: no use after free"

exit "$EXIT_STATUS"
