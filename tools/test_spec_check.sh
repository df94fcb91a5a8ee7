#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_spec_check.sh: tools/spec-check.py can fail.  The inputs it reads (the
# YAML spec, the uapi header, kmod/, tmctl's nl.c) are copied to a temporary
# tree; the unmodified copy must pass, and each copy with one mutation seeded
# (a uapi value shifted, a policy type changed, an attribute of an operation
# missing from its policy, a tmctl type changed, a key the schema does not
# know, ...) must fail with a line naming what differs, one the unmodified
# copy did not print.  Prints one line per case and "N passed, N failed".
#
#   KSRC=DIR tools/test_spec_check.sh
#
# KSRC: the Linux 6.12 sources holding Documentation/netlink/ (default
# build/linux-6.12, which `make spec-check` extracts).

# shellcheck disable=SC2016 # $1, ${1}: the perl substitutions' own
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
KSRC=${KSRC:-$top/build/linux-6.12}
check=$top/tools/spec-check.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

passed=0
failed=0

pass()
{
	echo "ok: $1"
	passed=$((passed + 1))
}

fail()
{
	echo "FAIL: $1"
	shift
	[ $# -gt 0 ] && printf '\t%s\n' "$@"
	failed=$((failed + 1))
}

if [ ! -d "$KSRC/Documentation/netlink" ]; then
	fail "no $KSRC/Documentation/netlink (make spec-check extracts it)"
	echo "$passed passed, $failed failed"
	exit 1
fi

# The pristine copy: only what spec-check.py reads.
base=$tmp/base
mkdir -p "$base/Documentation/netlink/specs" "$base/include/uapi/linux" \
	"$base/tools/tmctl"
cp "$top/Documentation/netlink/specs/tuplemerge.yaml" \
	"$base/Documentation/netlink/specs/"
cp "$top/include/uapi/linux/tuplemerge.h" "$base/include/uapi/linux/"
cp "$top/tools/tmctl/nl.c" "$base/tools/tmctl/"
cp -r "$top/kmod" "$base/kmod"

run()
{
	/usr/bin/python3 "$check" --top "$1" --ksrc "$KSRC" >"$2" 2>&1
}

run "$base" "$tmp/base.out"
rc=$?
summary=$(tail -n 1 "$tmp/base.out")
ok_re='^spec-check: [0-9]+ attributes, [0-9]+ commands, [0-9]+ policies'
ok_re+=' checked, 0 errors$'
if [ "$rc" -eq 0 ] && [[ "$summary" =~ $ok_re ]]; then
	pass "unmodified copy passes ($summary)"
else
	mapfile -t out <"$tmp/base.out"
	fail "unmodified copy: exit $rc" "${out[@]}"
fi

# mutate DESC PATTERN FILES PERL: a fresh copy, the perl substitution PERL
# (perl -0pi: the whole file at once) applied to FILES (relative to the
# copy; "kmod" is every C file of kmod/ but kmod/core), then spec-check.py
# must exit 1 and print a line matching the extended regex PATTERN that
# the unmodified copy did not print.
mutate()
{
	local desc=$1 pattern=$2 files=$3 expr=$4 t=$tmp/t rc f
	local -a list out

	rm -rf "$t" && cp -r "$base" "$t"
	if [ "$files" = kmod ]; then
		mapfile -t list < <(find "$t/kmod" -path "$t/kmod/core" -prune \
			-o -name '*.[ch]' -print)
	else
		list=("$t/$files")
	fi
	for f in "${list[@]}"; do
		perl -0pi -e "$expr" "$f" || { fail "$desc: perl failed"; return; }
	done
	if diff -r -q "$base" "$t" >/dev/null; then
		fail "$desc: the mutation changed nothing (the source moved on?)"
		return
	fi
	run "$t" "$tmp/t.out"
	rc=$?
	mapfile -t out < <(grep -vxF -f "$tmp/base.out" "$tmp/t.out")
	if [ "$rc" -ne 1 ]; then
		fail "$desc: exit $rc, want 1" "${out[@]}"
	elif ! printf '%s\n' "${out[@]}" | grep -Eq -- "$pattern"; then
		fail "$desc: no new line matches /$pattern/" "${out[@]}"
	else
		pass "$desc: $(printf '%s\n' "${out[@]}" | grep -E -m 1 -- "$pattern")"
	fi
}

uapi=include/uapi/linux/tuplemerge.h
spec=Documentation/netlink/specs/tuplemerge.yaml

mutate "uapi attribute value shifted" \
	'tuplemerge\.h:[0-9]+: TM_A_PAD = 2, the spec .* gives 1' \
	"$uapi" 's/^(\tTM_A_PAD),$/$1 = 2,/m'
mutate "uapi const changed" \
	'tuplemerge\.h:[0-9]+: TM_LB_MAX_CHOICES is 9, the spec .* says 8' \
	"$uapi" 's/^(#define TM_LB_MAX_CHOICES\s+)8$/${1}9/m'
mutate "uapi #define the spec lacks" \
	'#define TM_SPARE is not in the spec' \
	"$uapi" 's/^(#define TM_NAME_MAX\s+32\n)/$1#define TM_SPARE\t1\n/m'
mutate "spec enum value changed" \
	'TM_SRLB_TAG_CONNECT = 20993, the spec .* gives 21249' \
	"$spec" 's/(name: connect\n\s+value: )0x5201/${1}0x5301/'
mutate "policy type changed" \
	'genl\.c:[0-9]+: .*\[TM_A_SID_LOAD\]: type NLA_U16, .* wants NLA_U32' \
	kmod 's/(\[TM_A_SID_LOAD\] = \{ \.type = )NLA_U32/${1}NLA_U16/'
mutate "policy bound inside a TM_POLICY_ macro changed" \
	'\[TM_A_TABLE_NAME\] \(from TM_POLICY_NAME, .*length \.\.32, .* gives \.\.31' \
	kmod 's/(\[TM_A_TABLE_NAME\] = \{ \.type = NLA_NUL_STRING, \.len = )TM_NAME_MAX - 1/${1}TM_NAME_MAX/'
mutate "spec check changed" \
	'\[TM_A_TABLE_COLLIDE\]: bounds 1\.\.128, .* gives 1\.\.64' \
	"$spec" 's/(name: table-collide\n(?:.*\n){0,4}?\s+max: )128/${1}64/'
mutate "operation attribute missing from its policy" \
	'tm_rule_lookup_policy \(policy of TM_CMD_RULE_LOOKUP\): no entry for TM_A_KEY_PROTO' \
	kmod 's/\n\t\[TM_A_KEY_PROTO\] = \{ \.type = NLA_U8 \},//'
mutate "operation flags changed" \
	'TM_CMD_SID_LOAD: \.flags GENL_ADMIN_PERM, the spec .* says GENL_UNS_ADMIN_PERM' \
	kmod 's/(\.cmd = TM_CMD_SID_LOAD,[^}]*\.flags = )GENL_UNS_ADMIN_PERM/${1}GENL_ADMIN_PERM/'
mutate "tmctl type changed" \
	'nl\.c:[0-9]+: tm_attr_types\[TM_A_LB_PORT\] = MNL_TYPE_U32, .* wants MNL_TYPE_U16' \
	tools/tmctl/nl.c 's/(\[TM_A_LB_PORT\] = )MNL_TYPE_U16/${1}MNL_TYPE_U32/'
mutate "key the schema does not know" \
	'tuplemerge\.yaml:[0-9]+: schema genetlink-legacy\.yaml: .*bogus-key' \
	"$spec" 's/^(\s+)(name: rule-mark\n)/$1$2$1bogus-key: 1\n/m'

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
