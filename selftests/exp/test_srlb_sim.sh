#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# srlb_sim against what queueing theory knows of its model: with one
# candidate (random), or a first candidate that always accepts (sr16384),
# each server is an M/G/1 queue served in order, whose mean response time
# is E[S] + lambda E[S^2] / (2 (1 - rho)) (Pollaczek-Khinchine), and with
# exponential service its median and p99 are ln(2) and ln(100) over
# (1 - rho).  dyn 1 can only be SR_1: the same requests give the same
# figures.

SIM=${SIM:-../../build/exp/srlb_sim}
passed=0
failed=0

# field LINE NAME
field()
{
	sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1"
}

# near WHAT GOT WANT TOLERANCE (relative)
near()
{
	if python3 -c "import sys; g, w, t = map(float, sys.argv[1:]); sys.exit(abs(g - w) > t * w)" "$2" "$3" "$4"; then
		echo "ok: $1: $2 (theory $3)"
		passed=$((passed + 1))
	else
		echo "FAIL: $1: $2, theory $3 (tolerance $4)"
		failed=$((failed + 1))
	fi
}

for rho in 0.5 0.8; do
	out=$("$SIM" -d exp -l $rho -r 2000000 -s 7 random sr16384) || exit 1
	for mode in random sr16384; do
		line=$(grep "mode=$mode " <<<"$out")
		near "exp $mode $rho mean" "$(field "$line" mean)" \
			"$(python3 -c "print(1 / (1 - $rho))")" 0.03
		near "exp $mode $rho median" "$(field "$line" p50)" \
			"$(python3 -c "import math; print(math.log(2) / (1 - $rho))")" 0.03
		near "exp $mode $rho p99" "$(field "$line" p99)" \
			"$(python3 -c "import math; print(math.log(100) / (1 - $rho))")" 0.03
	done
done

# wiki: 85 % exponential of mean 0.4, 15 % bounded Pareto (1.5, 1.7, 85).
es2=$(python3 -c '
a, lo, hi = 1.5, 1.7, 85
norm = a * lo ** a / (1 - (lo / hi) ** a)
bp2 = norm * (hi ** (2 - a) - lo ** (2 - a)) / (2 - a)
print(0.85 * 2 * 0.4 ** 2 + 0.15 * bp2)')
out=$("$SIM" -d wiki -l 0.5 -r 4000000 -s 7 random) || exit 1
near "wiki random 0.5 mean" "$(field "$out" mean)" \
	"$(python3 -c "print(1 + 0.5 * $es2 / (2 * 0.5))")" 0.05

out=$("$SIM" -d exp -l 0.9 -r 200000 -s 3 sr1 dyn1) || exit 1
a=$(grep "mode=sr1 " <<<"$out" | cut -d' ' -f2-)
b=$(grep "mode=dyn1 " <<<"$out" | cut -d' ' -f2-)
if [ "$a" = "$b" ]; then
	echo "ok: dyn1 is sr1"
	passed=$((passed + 1))
else
	echo "FAIL: dyn1 '$b' is not sr1 '$a'"
	failed=$((failed + 1))
fi

# Bad input: a clear error, exit 2.
for bad in "-l 1 random" "-l 0.5x random" "-n 4.5 random" "-r -5 random" \
	   "-d pareto random" "sr0" "dyn2.5" "sr2k9"; do
	# shellcheck disable=SC2086
	err=$("$SIM" $bad 2>&1 >/dev/null)
	rc=$?
	if [ $rc -eq 2 ] && [[ $err == srlb_sim:* ]]; then
		echo "ok: '$bad' refused: $err"
		passed=$((passed + 1))
	else
		echo "FAIL: '$bad': exit $rc, '$err'"
		failed=$((failed + 1))
	fi
done
echo "test_srlb_sim: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
