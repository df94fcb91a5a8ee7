#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The SRLB experiment (Documentation/srlb-experiment.rst): response times
# of a service behind the SRv6 load balancer, with the servers choosing
# (SR_c, the accept-queue policy) or not (one random candidate), under
# open-loop Poisson load.  Runs in the VM, as root:
#
#	selftests/vm/run.sh -P -k RELEASE -m KO exp/srlb_exp.sh
#
# Topology: client -- lb -- s1..sN (lib_srlb.sh's setup_srlb, the network of
# srlb_lb.sh with SERVERS servers; somaxconn 4096 in every namespace).
# Each server runs httpd.py with WORKERS workers that accept() only when
# free; a request's service time, drawn by loadgen.py, is a sleep, so the
# emulated CPU is not what is measured.  Capacity is SERVERS * WORKERS /
# MEAN requests per second; each load is a fraction of it.
#
# Modes (MODES, space separated):
#	random		choices 1: the flow's one candidate takes it (a
#			consistent-hash, i.e. random, load balancer)
#	srC		choices K, policy conns C (SR_c: the first candidate
#			takes it while it has fewer than C connections open)
#	backlogB	choices K, policy backlog B (while fewer than B
#			connections wait in the accept queue)
#	dynN		choices K, policy dyn N (SR_c with a threshold each
#			server adapts between 1 and N)
#
# Environment (defaults in brackets): DISTS [exp wiki], LOADS [0.5 0.7 0.8
# 0.9 0.95], MODES [random sr4 sr6 sr8 backlog1], CHOICES (K) [2],
# SERVERS [4, at most 16],
# WORKERS [4], MEAN [200] ms, DURATION [60] s per run, SEED [1], OUT [exp/
# in the VM run's directory]: results.csv, table.rst and the plots
# (report.py) go there.
# Other parameters: selftests/vm/run.sh -P ... -e 'LOADS=0.9 MODES="random
# sr4" selftests/exp/srlb_exp.sh'.

source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../lib_srlb.sh"

require_root
require_cmd ip python3 timeout ss
require_module

DISTS=${DISTS:-exp wiki}
LOADS=${LOADS:-0.5 0.7 0.8 0.9 0.95}
MODES=${MODES:-random sr4 sr6 sr8 backlog1}
CHOICES=${CHOICES:-2}
WORKERS=${WORKERS:-4}
MEAN=${MEAN:-200}
DURATION=${DURATION:-60}
SEED=${SEED:-1}
# In the VM, the run's directory is the writable one (build/vm/RELEASE/
# runs/STAMP/exp on the host).
OUT=${OUT:-${TM_RESULTS:+$TM_RESULTS/exp}}
OUT=${OUT:-$TM_TOP/build/exp}
HERE=$(cd "$(dirname "$0")" && pwd)
NSRV=${SERVERS:-4}
PORT=80

if ! [[ $NSRV =~ ^[0-9]+$ ]] || [ "$NSRV" -lt 1 ] || [ "$NSRV" -gt 16 ]; then
	echo "srlb_exp: SERVERS must be 1..16, not '$NSRV'" >&2
	exit "$ksft_fail"
fi
# The scratch directory lib_srlb.sh's cleanup removes (unused here).
TMP=$(mktemp -d)

setup()
{
	local i

	setup_srlb -s net.core.somaxconn=4096 "$NSRV" || return 1
	for i in "${!SRV[@]}"; do
		tm_srv "$i" sid add "$(sid_of "$i")" accept policy always ||
			return 1
		ip netns exec "${SRV[i]}" python3 "$HERE/httpd.py" "$VIP" \
			"$PORT" "$WORKERS" "s$i" >"$OUT/httpd$i.log" 2>&1 &
	done
	tm_lb table add pre family ip6 hook prerouting
}

# lb_mode CHOICES: the service, afresh (no flows), with CHOICES candidates.
lb_mode()
{
	local i

	tm_lb rule del pre id 1 2>/dev/null
	tm_lb lb service del web 2>/dev/null
	tm_lb lb service add web vip "$VIP" sid "$LB_SID" tcp port "$PORT" \
		choices "$1" || return 1
	for i in "${!SRV[@]}"; do
		tm_lb lb backend add web "$(sid_of "$i")" || return 1
	done
	tm_lb rule add pre id 1 dst "$VIP/128" proto tcp dport "$PORT" lb web
}

# srv_policy WORDS...: every server's SID gets this policy.
srv_policy()
{
	local i

	for i in "${!SRV[@]}"; do
		tm_srv "$i" sid replace "$(sid_of "$i")" accept policy "$@" ||
			return 1
	done
}

mode()
{
	case "$1" in
	random) lb_mode 1 && srv_policy always ;;
	sr[0-9]*) lb_mode "$CHOICES" && srv_policy conns "${1#sr}" ;;
	backlog[0-9]*) lb_mode "$CHOICES" &&
		srv_policy backlog "${1#backlog}" ;;
	dyn[0-9]*) lb_mode "$CHOICES" && srv_policy dyn "${1#dyn}" ;;
	*) echo "srlb_exp: unknown mode '$1'" >&2; return 1 ;;
	esac
}

# httpd_ready: every server's httpd.py says it is ready, within 30 s.
httpd_ready()
{
	local end=$((SECONDS + 30)) i

	for i in "${!SRV[@]}"; do
		until grep -q ready "$OUT/httpd$i.log" 2>/dev/null; do
			[ "$SECONDS" -lt "$end" ] || return 1
			sleep 0.2
		done
	done
}

mkdir -p "$OUT" || exit "$ksft_fail"
: >"$OUT/results.csv"
setup || { echo "FAIL: network setup"; exit "$ksft_fail"; }
httpd_ready || { echo "FAIL: servers not ready"; exit "$ksft_fail"; }
capacity=$(awk -v n="$NSRV" -v w="$WORKERS" -v m="$MEAN" \
	'BEGIN { print n * w * 1000 / m }')
echo "# $NSRV servers x $WORKERS workers, mean service $MEAN ms:" \
	"capacity $capacity requests/s; $DURATION s per run"
for dist in $DISTS; do
	for rho in $LOADS; do
		rate=$(awk -v c="$capacity" -v r="$rho" 'BEGIN { print c * r }')
		for m in $MODES; do
			mode "$m" || exit "$ksft_fail"
			ip netns exec "$client" timeout $((DURATION + 300)) \
				python3 "$HERE/loadgen.py" "$VIP" "$PORT" "$rate" \
				"$DURATION" "$dist" "$MEAN" "$SEED" \
				"$dist,$m,$rho" >>"$OUT/results.csv" ||
				{ echo "FAIL: loadgen $dist $m $rho"; exit "$ksft_fail"; }
			echo "# $dist load $rho $m: $(grep -c "^$dist,$m,$rho," \
				"$OUT/results.csv") requests"
		done
	done
done
python3 "$HERE/report.py" "$OUT/results.csv" "$OUT" | sed 's/^/# /'
