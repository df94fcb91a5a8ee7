#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tmbench and make bench-scale, end to end on small generated sets (a few
# seconds; `make -C tools/bench check`): every engine's sampled lookups
# agree with the reference, the JSON says so, the rte_acl peer agrees too
# or says it is unavailable, a bad peer name is refused, -k writes what
# tm_kbench.ko reads, and scale.sh draws its picture from a 1K set.

set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
tmbench=$top/build/bench/tmbench
tmgen=$top/tools/classbench/tmgen
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0

ok()
{
	if [ "$1" = 0 ]; then
		echo "ok: $2"
		pass=$((pass + 1))
	else
		echo "not ok: $2"
		fail=$((fail + 1))
	fi
}

# A JSON holds $2 engines and peers, and every one but the linear engine
# (the reference itself) checked a sample and got 0 wrong.
json_ok()
{
	python3 - "$1" "$2" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
runs = j["engines"] + j.get("peers", [])
want = int(sys.argv[2])
bad = [r for r in runs if r.get("engine") != "linear" and
       (r["wrong"] or not r["checked"])]
sys.exit(1 if bad or len(runs) != want else 0)
PY
}

for fam in 4 6; do
	"$tmgen" rules --type acl --family "$fam" --count 2000 --seed 3 \
		> "$tmp/acl$fam"
	"$tmgen" trace --rules "$tmp/acl$fam" --count 20000 --seed 3 \
		> "$tmp/acl$fam.trace"
	"$tmbench" -e tuplemerge,tss,linear -r 1 -j "$tmp/acl$fam.json" \
		"$tmp/acl$fam" "$tmp/acl$fam.trace" > "$tmp/out" 2>&1
	rc=$?
	json_ok "$tmp/acl$fam.json" 3
	ok $((rc || $?)) "tmbench IPv$fam: three engines, 0 wrong in the JSON"
done

# The peer: it agrees with the reference, or it says it is missing.
"$tmbench" -e tuplemerge -r 1 -p rte_acl -j "$tmp/peer.json" "$tmp/acl4" \
	"$tmp/acl4.trace" > "$tmp/out" 2>&1
rc=$?
if grep -q "peer rte_acl unavailable" "$tmp/out"; then
	json_ok "$tmp/peer.json" 1
	ok $((rc || $?)) "tmbench -p rte_acl: unavailable in this build, said so"
else
	json_ok "$tmp/peer.json" 2
	ok $((rc || $?)) "tmbench -p rte_acl: 0 wrong"
	"$tmbench" -e tuplemerge -r 1 -p rte_acl "$tmp/acl6" \
		"$tmp/acl6.trace" > "$tmp/out" 2>&1
	grep -q "rte_acl: rule id .*only IPv4" "$tmp/out"
	ok $? "tmbench -p rte_acl: IPv6 rules refused with a reason"
fi
"$tmbench" -p nosuch "$tmp/acl4" > "$tmp/out" 2>&1
rc=$?
grep -q "unknown peer" "$tmp/out"
ok $(( !rc || $? )) "tmbench -p nosuch: refused, exit status $rc"

# -k: tm_kbench.ko's file holds every rule and header, and its answers are
# the first rule (the ids are line numbers) that matches the header, by a
# scan of the rule file of its own on a sample of the headers.
"$tmbench" -e tuplemerge -r 1 -k "$tmp/acl4.blob" "$tmp/acl4" \
	"$tmp/acl4.trace" > "$tmp/out" 2>&1
rc=$?
python3 - "$tmp/acl4.blob" "$tmp/acl4" "$tmp/acl4.trace" <<'PY'
import ipaddress, struct, sys
b = open(sys.argv[1], "rb").read()
magic, rsz, ksz, nr, nk = struct.unpack_from("<8s4I", b)
rules = []
for line in open(sys.argv[2]):
    f = line[1:].rstrip("\n").split("\t")
    sp, dp = ([int(x) for x in f[i].split(" : ")] for i in (2, 3))
    pv, pm = (int(x, 16) for x in f[4].split("/"))
    rules.append((ipaddress.ip_network(f[0]), ipaddress.ip_network(f[1]),
                  sp, dp, pv, pm))
keys = [[int(x) for x in l.split()] for l in open(sys.argv[3]) if l.strip()]
ans = struct.unpack_from("<%dI" % nk, b, 24 + nr * rsz + nk * ksz)
def first(k):
    s, d = ipaddress.ip_address(k[0]), ipaddress.ip_address(k[1])
    for i, (rs, rd, sp, dp, pv, pm) in enumerate(rules):
        if (s in rs and d in rd and sp[0] <= k[2] <= sp[1] and
                dp[0] <= k[3] <= dp[1] and k[4] & pm == pv & pm):
            return i + 1
    return 0xffffffff
ok = (magic == b"TMKBLOB1" and nr == len(rules) and nk == len(keys) and
      len(b) == 24 + nr * rsz + nk * (ksz + 4) and
      all(ans[i] == first(keys[i]) for i in range(0, nk, 40)))
sys.exit(0 if ok else 1)
PY
ok $((rc || $?)) "tmbench -k: the rules, the headers and first-match answers"

SCALE_SIZES=1000 SCALE_TYPES=acl SCALE_FAMILIES=4 SCALE_RUNS=1 \
	SCALE_OUT="$tmp/scale" SCALE_PNG="$tmp/scale.png" \
	"$here/scale.sh" > "$tmp/out" 2>&1
rc=$?
[ -s "$tmp/scale.png" ] && [ "$(wc -l < "$tmp/scale/acl-v4.dat")" = 2 ]
ok $((rc || $?)) "scale.sh: a 1K set measured and drawn"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
