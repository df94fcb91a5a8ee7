#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A DROP rule that stays installed drops every datagram of its flow while
# TupleMerge splits keep moving it from table to table.
#
#   ns1: veth1 10.0.1.1 --- ns2: veth2 10.0.1.2
#        sender: UDP flood     table "t" (ip, prerouting, accept):
#        to port 5000            rule 1: src 10.0.1.1 dport 5000 drop
#                              nft inet "seen" (input, after t): counts
#                              what got through to port 5000, drops it
#
# Rule 1 is always installed, in one of two forms that both drop the flood:
# v1 (dport 5000, exact) and v2 (dport 5000-5001, a range).  A writer
# cycles through single, live changes (no transaction):
#   1. replace rule 1 by v1: it joins the bucket of 10.0.1.0/28 in the
#      (/28, any) table, as v2 is there;
#   2. add 48 fillers (src 10.0.1.1, dport 6000..6047): the bucket
#      overflows and a split moves the whole table, rule 1 first, to a new
#      table that also hashes the destination port;
#   3. replace rule 1 by v2, which that table cannot hold: a new (/28, any)
#      table takes it (the writer checks the table count says so: the
#      split did happen);
#   4. delete the fillers: the port table goes, back to the start.
# A long bucket of 1500 rules that match no datagram of the flood (port
# ranges below 2500, any source, 10/8) sits in the first table each lookup
# probes, so that a lookup spends a while between taking the table list and
# probing rule 1's table: the window in which a split that drops rule 1
# from its old table before lookups can see the new one lets a datagram
# through.  At the end nft must have seen none, and the table's lookups
# must equal its matches.

source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip nft python3
require_module

DURATION=${DURATION:-30}
LONG=${LONG:-1500}
ns1='' ns2=''
setup_ns ns1 ns2 || exit "$ksft_fail"
veth_pair "$ns1" "$ns2" || exit "$ksft_fail"

TMP=$(mktemp -d)
PIDS=()
cleanup()
{
	touch "$TMP/stop"
	kill "${PIDS[@]}" 2>/dev/null
	wait 2>/dev/null
	cleanup_ns
	rm -rf "$TMP"
}

tm()
{
	"$TMCTL" -n "$ns2" "$@"
}

ip netns exec "$ns2" nft -f - <<EOF || exit "$ksft_fail"
table inet seen {
	counter p5000 { }
	chain in {
		type filter hook input priority 100;
		udp dport 5000 counter name p5000 drop
	}
}
EOF

tm table add t family ip hook prerouting policy accept || exit "$ksft_fail"
{
	for j in $(seq 0 $((LONG - 1))); do
		echo "rule add t id $((10000 + j)) priority 0 dst 10.0.0.0/8 dport $((j % 1500))-$((j % 1500 + 1000)) accept"
	done
	echo "rule add t id 1 priority 10 src 10.0.1.1/32 dport 5000-5001 drop"
} >"$TMP/setup"
tm -f "$TMP/setup" || exit "$ksft_fail"

# The writer: single requests through tmnl.py (one process, so that the
# changes come fast), checking what each cycle did.
cat >"$TMP/writer.py" <<'EOF'
import os
import sys
import time

sys.path.insert(0, sys.argv[1])
import tmnl  # noqa: E402

tmp, deadline = sys.argv[2], time.time() + float(sys.argv[3])
spec = tmnl.load_spec()
nl = tmnl.Genl()
fam = nl.family_id("tuplemerge")


def req(cmd, *args):
    rc, replies, error = tmnl.request(nl, fam, spec, cmd,
                                      ["table-name=t"] + list(args))
    if rc:
        open(tmp + "/error", "w").write("%s %s: %s\n" % (cmd, args, error))
        sys.exit(1)
    return replies


def rule1(dmax):
    req("rule-set", "rule-id=1", "rule-priority=10", "rule-src=10.0.1.1",
        "rule-src-len=32", "rule-dport-min=5000",
        "rule-dport-max=%d" % dmax, "rule-action=1")


def tuples():
    return req("table-get")[0]["table-tuples"]


cycles = split = 0
while time.time() < deadline and not os.path.exists(tmp + "/stop"):
    rule1(5000)
    for i in range(48):
        req("rule-new", "rule-id=%d" % (100 + i), "rule-priority=%d" % (100 + i),
            "rule-src=10.0.1.1", "rule-src-len=32",
            "rule-dport-min=%d" % (6000 + i), "rule-dport-max=%d" % (6000 + i),
            "rule-action=1")
    rule1(5001)
    # long bucket's, fillers' with port, rule 1's: the split did happen
    split += tuples() == 3
    for i in range(48):
        req("rule-del", "rule-id=%d" % (100 + i))
    cycles += 1
open(tmp + "/cycles", "w").write("%d %d\n" % (cycles, split))
EOF

# The sender: datagrams to port 5000 until told to stop.
cat >"$TMP/sender.py" <<'EOF'
import os
import socket
import sys

tmp = sys.argv[1]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.connect(("10.0.1.2", 5000))
n = 0
while not os.path.exists(tmp + "/stop"):
    for _ in range(1000):
        s.send(b"x")
    n += 1000
open(tmp + "/sent", "w").write("%d\n" % n)
EOF

seen()
{
	ip netns exec "$ns2" nft list counter inet seen p5000 |
		sed -n 's/.*packets \([0-9]*\).*/\1/p'
}

ip netns exec "$ns1" python3 "$TMP/sender.py" "$TMP" &
PIDS+=($!)
ip netns exec "$ns2" python3 "$TMP/writer.py" "$TM_TOP/selftests" "$TMP" \
	"$DURATION"
touch "$TMP/stop"
wait "${PIDS[@]}"
PIDS=()

read -r cycles split <"$TMP/cycles" 2>/dev/null
sent=$(cat "$TMP/sent" 2>/dev/null)
stats=$(tm -j stats | python3 -c '
import json, sys
t = [x for x in json.load(sys.stdin)["table_stats"] if x["table"] == "t"][0]
print(t["lookups"], t["matches"])')
lookups=${stats% *} matches=${stats#* }
log_info "$sent datagrams sent, $cycles cycles ($split with the split seen)," \
	"$lookups lookups, $matches matches"
[ -z "$(cat "$TMP/error" 2>/dev/null)" ]
check_err $? "writer: $(cat "$TMP/error" 2>/dev/null)"
[ "${cycles:-0}" -ge 3 ] && [ "$split" = "$cycles" ]
check_err $? "$split of ${cycles:-0} cycles split the bucket (want all, at least 3)"
[ "${sent:-0}" -ge 10000 ]
check_err $? "the sender sent only ${sent:-0} datagrams"
log_test "splits move the DROP rule under a flood"

expect_eq "datagrams to port 5000 that got through" "$(seen)" 0
[ "${lookups:-0}" -gt 0 ]
check_err $? "no table stats ('$stats')"
expect_eq "table lookups that matched no rule" \
	"$((${lookups:-0} - ${matches:-0}))" 0
log_test "no datagram gets through while its DROP rule moves"

exit "$EXIT_STATUS"
