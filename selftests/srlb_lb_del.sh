#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Deleting load-balancer services waits for no grace period per service:
# 808c634 ran rcu_barrier() for every lb service del answered EBUSY (under
# the namespace's lock, so any user with a service could stall every other
# command of the namespace and, the barrier being global, every CPU's
# callbacks), synchronize_rcu() for every service deleted, and for every
# service at namespace exit (cleanup_net).
#
#  1. 200 EBUSY deletes of a service a rule names, from one netlink socket
#     (selftests/tmnl.py), against 200 gets of the same service: as fast,
#     within a factor of 3 plus 0.5 s (808c634: a barrier each).
#  2. A service deleted right after its rule: no EBUSY (the rule's
#     reference goes when it is unpublished, not after a grace period).
#  3. 200 services deleted one by one, then a namespace with 200 services
#     deleted (the runner checks the kernel log).

source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip python3
require_module

lb=''
setup_ns lb || exit "$ksft_fail"
N=200

tm_lb()
{
	"$TMCTL" -n "$lb" "$@"
}

# timed CMD N [ATTRS...]: send request CMD N times from one socket; prints
# "seconds ok refused".
timed()
{
	ip netns exec "$lb" python3 - "$(dirname "$0")" "$@" <<'EOF'
import sys
import time

sys.path.insert(0, sys.argv[1])
import tmnl

cmd, n, args = sys.argv[2], int(sys.argv[3]), sys.argv[4:]
spec = tmnl.load_spec()
nl = tmnl.Genl()
fam = nl.family_id("tuplemerge")
ok = bad = 0
start = time.monotonic()
for i in range(n):
    a = [x.replace("{i}", str(i)) for x in args]
    rc, _, _ = tmnl.request(nl, fam, spec, cmd, a)
    if rc:
        bad += 1
    else:
        ok += 1
print("%.3f %d %d" % (time.monotonic() - start, ok, bad))
EOF
}

# services N: services s0 ... s(N-1); prints "seconds ok refused".
services()
{
	timed lb-service-new "$1" "lb-name=s{i}" "lb-vip=fd00:100::1:{i}" \
		"lb-sid=fd00:1b::1:{i}"
}

TMP=$(mktemp -d)

test_ebusy()
{
	local t_get t_del ok bad

	tm_lb table add lbt family ip6 hook prerouting &&
		tm_lb lb service add web vip fd00:100::1 sid fd00:1b::1 &&
		tm_lb rule add lbt id 1 dst fd00:100::1/128 lb web
	check_err $? "service web and its rule"
	read -r t_get ok bad <<<"$(timed lb-service-get "$N" lb-name=web)"
	expect_eq "gets answered" "$ok" "$N"
	read -r t_del ok bad <<<"$(timed lb-service-del "$N" lb-name=web)"
	expect_eq "deletes refused (EBUSY)" "$bad" "$N"
	log_info "$N gets: $t_get s; $N EBUSY deletes: $t_del s"
	awk -v d="$t_del" -v g="$t_get" 'BEGIN { exit !(d <= 3 * g + 0.5) }'
	check_err $? "EBUSY deletes took $t_del s against $t_get s for gets"
	log_test "EBUSY service deletes wait for no RCU barrier"
}

test_del_after_rule()
{
	tm_lb rule del lbt id 1
	check_err $? "rule del"
	tm_lb lb service del web
	check_err $? "service del right after its last rule"
	log_test "a service deleted right after its rule"
}

test_many()
{
	local t ok bad

	read -r t ok bad <<<"$(services "$N")"
	expect_eq "services made" "$ok" "$N"
	read -r t ok bad <<<"$(timed lb-service-del "$N" "lb-name=s{i}")"
	expect_eq "services deleted" "$ok" "$N"
	log_info "$N services deleted one by one: $t s"
	expect_eq "services left" "$(tm_lb lb service show | grep -c '^service ')" 0
	read -r t ok bad <<<"$(services "$N")"
	expect_eq "services made again" "$ok" "$N"
	# Its exit (cleanup_net) forgets them all, with one sweep.
	ip netns del "$lb"
	check_err $? "ip netns del"
	NS_LIST=()
	log_test "$N services deleted, then a namespace holding $N"
}

test_ebusy
test_del_after_rule
test_many
rm -rf "$TMP"

exit "$EXIT_STATUS"
