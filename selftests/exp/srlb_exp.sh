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
# Modes (MODES, space separated; a suffix kK sets the choices of one mode,
# e.g. sr2k3, dyn8k3):
#	random		choices 1: the flow's one candidate takes it (a
#			consistent-hash, i.e. random, load balancer)
#	srC		choices K, policy conns C (SR_c: the first candidate
#			takes it while it has fewer than C connections open)
#	backlogB	choices K, policy backlog B (while fewer than B
#			connections wait in the accept queue)
#	dynN		choices K, policy dyn N (SR_c with a threshold each
#			server adapts between 1 and N)
#
# One mode at a time, on the same servers; or, with PARALLEL=1, all the
# modes of a load at once, each on SERVERS servers of its own behind its
# own service (port 80, 81, ...), with the same arrivals and service times
# (same seed): the run takes one DURATION per load instead of one per
# mode and load, and every mode sees the same emulated machine at the same
# time.  The guest's CPU use during each run is printed: the service
# times are sleeps, so the modes compete for the CPU only for the packets
# and the sockets, and a busy CPU would delay them all alike.
#
# Environment (defaults in brackets): DISTS [exp wiki], LOADS [0.5 0.7 0.8
# 0.9 0.95], MODES [random sr4 sr6 sr8 backlog1], CHOICES (K) [2],
# SERVERS [4; SERVERS x modes at most 64 with PARALLEL], WORKERS [4],
# MEAN [200] ms, DURATION [60] s per run, WARMUP [0] s of load before each
# run whose requests are not counted, PARALLEL [0], SEED [1], OUT [exp/
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
WARMUP=${WARMUP:-0}
PARALLEL=${PARALLEL:-0}
SEED=${SEED:-1}
# In the VM, the run's directory is the writable one (build/vm/RELEASE/
# runs/STAMP/exp on the host).
OUT=${OUT:-${TM_RESULTS:+$TM_RESULTS/exp}}
OUT=${OUT:-$TM_TOP/build/exp}
HERE=$(cd "$(dirname "$0")" && pwd)
NSRV=${SERVERS:-4}
PORT=80

read -ra modes <<<"$MODES"
groups=1
[ "$PARALLEL" = 1 ] && groups=${#modes[@]}
for m in "${modes[@]}"; do
	if ! [[ $m =~ ^(random|(sr|backlog|dyn)[0-9]+(k([1-9]|1[0-6]))?)$ ]]; then
		echo "srlb_exp: unknown mode '$m'" >&2
		exit "$ksft_fail"
	fi
done
if [ "$(printf '%s\n' "${modes[@]}" | sort | uniq -d)" ]; then
	echo "srlb_exp: a mode given twice in '$MODES'" >&2
	exit "$ksft_fail"
fi
if ! [[ $NSRV =~ ^[0-9]+$ ]] || [ "$NSRV" -lt 1 ] ||
	[ $((NSRV * groups)) -gt 64 ]; then
	echo "srlb_exp: SERVERS must be 1..64 in all ($groups group(s))," \
		"not '$NSRV'" >&2
	exit "$ksft_fail"
fi
# The scratch directory lib_srlb.sh's cleanup removes (unused here).
TMP=$(mktemp -d)

# group_of I: the group (0, 1, ...) of server I; its mode's port is
# PORT + the group.
group_of()
{
	echo $((($1 - 1) / NSRV))
}

# group_servers G: the indexes of group G's servers.
group_servers()
{
	seq $(($1 * NSRV + 1)) $((($1 + 1) * NSRV))
}

setup()
{
	local i

	setup_srlb -s net.core.somaxconn=4096 $((NSRV * groups)) || return 1
	for i in "${!SRV[@]}"; do
		tm_srv "$i" sid add "$(sid_of "$i")" accept policy always ||
			return 1
		ip netns exec "${SRV[i]}" python3 "$HERE/httpd.py" "$VIP" \
			$((PORT + $(group_of "$i"))) "$WORKERS" "s$i" \
			>"$OUT/httpd$i.log" 2>&1 &
	done
	tm_lb table add pre family ip6 hook prerouting
}

# lb_mode G CHOICES: group G's service, afresh (no flows), with CHOICES
# candidates: web (webG after the first), port PORT + G, its own SID, the
# group's servers as backends.
lb_mode()
{
	local g=$1 name=web${1#0} i

	tm_lb rule del pre id $((g + 1)) 2>/dev/null
	tm_lb lb service del "$name" 2>/dev/null
	tm_lb lb service add "$name" vip "$VIP" sid "${LB_SID%1}$((g + 1))" \
		tcp port $((PORT + g)) choices "$2" || return 1
	for i in $(group_servers "$g"); do
		tm_lb lb backend add "$name" "$(sid_of "$i")" || return 1
	done
	tm_lb rule add pre id $((g + 1)) dst "$VIP/128" proto tcp \
		dport $((PORT + g)) lb "$name"
}

# srv_policy G WORDS...: the SID of every server of group G gets this
# policy.
srv_policy()
{
	local g=$1 i

	shift
	for i in $(group_servers "$g"); do
		tm_srv "$i" sid replace "$(sid_of "$i")" accept policy "$@" ||
			return 1
	done
}

# mode G MODE: group G set up for MODE.
mode()
{
	local g=$1 m=$2 k=$CHOICES

	if [[ $2 =~ ^(.*[0-9])k([0-9]+)$ ]]; then
		m=${BASH_REMATCH[1]} k=${BASH_REMATCH[2]}
	fi
	case "$m" in
	random) lb_mode "$g" 1 && srv_policy "$g" always ;;
	sr*) lb_mode "$g" "$k" && srv_policy "$g" conns "${m#sr}" ;;
	backlog*) lb_mode "$g" "$k" && srv_policy "$g" backlog "${m#backlog}" ;;
	dyn*) lb_mode "$g" "$k" && srv_policy "$g" dyn "${m#dyn}" ;;
	*) return 1 ;;
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

# cpu_ticks: the guest's busy and total CPU ticks so far.
cpu_ticks()
{
	awk '$1 == "cpu" { t = 0; for (i = 2; i <= NF; i++) t += $i
			   print t - $5 - $6, t; exit }' /proc/stat
}

# sid_words I: server I's SID counters accepted, passed, forced and its
# dyn threshold (0 without the dyn policy).
sid_words()
{
	tm_srv "$1" sid show "$(sid_of "$1")" 2>/dev/null | awk '{
		for (i = 1; i < NF; i++)
			if ($i ~ /^(accepted|passed|forced|dyn-now)$/)
				v[$i] = $(i + 1)
	} END {
		print v["accepted"] + 0, v["passed"] + 0, v["forced"] + 0,
		      v["dyn-now"] + 0
	}'
}

declare -A SEEN
# decisions G MODE: what group G's servers decided since the last call:
# the connections they took (hunts: accepted, or forced on the last
# candidate), the passes per connection (with k = 2, 1 - that is the
# share of first offers taken), the last candidates' forced takes, and
# the dyn thresholds.
decisions()
{
	local g=$1 i a p f c a0 p0 f0 hunts=0 pass=0 forced=0 cs=""

	for i in $(group_servers "$g"); do
		read -r a p f c <<<"$(sid_words "$i")"
		read -r a0 p0 f0 <<<"${SEEN[$i]:-0 0 0}"
		SEEN[$i]="$a $p $f"
		hunts=$((hunts + a - a0 + f - f0)) pass=$((pass + p - p0))
		forced=$((forced + f - f0))
		[[ $2 == dyn* ]] && cs+=" $c"
	done
	echo "# $dist load $rho $2: $hunts connections, passes per" \
		"connection $(awk -v h="$hunts" -v p="$pass" \
			'BEGIN { printf "%.2f", h ? p / h : 0 }')," \
		"forced $forced${cs:+; dyn thresholds$cs}"
}

# run DIST RHO RATE G:MODE...: each MODE on group G at once, its requests
# appended to results.csv.
run()
{
	local dist=$1 rho=$2 rate=$3 gm g m busy0 total0 busy1 total1 rc=0
	local pids=()

	shift 3
	for gm in "$@"; do
		mode "${gm%%:*}" "${gm#*:}" || return 1
	done
	read -r busy0 total0 <<<"$(cpu_ticks)"
	for gm in "$@"; do
		g=${gm%%:*} m=${gm#*:}
		ip netns exec "$client" timeout $((WARMUP + DURATION + 300)) \
			python3 "$HERE/loadgen.py" "$VIP" $((PORT + g)) "$rate" \
			"$DURATION" "$dist" "$MEAN" "$SEED" "$dist,$m,$rho" \
			"$WARMUP" >"$OUT/run$g.csv" &
		pids+=($!)
	done
	for g in "${pids[@]}"; do
		wait "$g" || rc=1
	done
	read -r busy1 total1 <<<"$(cpu_ticks)"
	for gm in "$@"; do
		g=${gm%%:*} m=${gm#*:}
		cat "$OUT/run$g.csv" >>"$OUT/results.csv" && rm "$OUT/run$g.csv"
		echo "# $dist load $rho $m: $(grep -c "^$dist,$m,$rho," \
			"$OUT/results.csv") requests"
		decisions "$g" "$m"
	done
	echo "# $dist load $rho: guest CPU $(((busy1 - busy0) * 100 /
		(total1 - total0 + 1)))% busy"
	[ "$rc" = 0 ] || echo "FAIL: loadgen $dist $rho $*"
	return "$rc"
}

mkdir -p "$OUT" || exit "$ksft_fail"
: >"$OUT/results.csv"
setup || { echo "FAIL: network setup"; exit "$ksft_fail"; }
httpd_ready || { echo "FAIL: servers not ready"; exit "$ksft_fail"; }
capacity=$(awk -v n="$NSRV" -v w="$WORKERS" -v m="$MEAN" \
	'BEGIN { print n * w * 1000 / m }')
echo "# $NSRV servers x $WORKERS workers, mean service $MEAN ms:" \
	"capacity $capacity requests/s; $DURATION s per run" \
	"(after $WARMUP s of warm-up)$([ "$groups" -gt 1 ] &&
		echo ", $groups modes at once")"
for dist in $DISTS; do
	for rho in $LOADS; do
		rate=$(awk -v c="$capacity" -v r="$rho" 'BEGIN { print c * r }')
		if [ "$groups" -gt 1 ]; then
			gms=()
			for g in "${!modes[@]}"; do
				gms+=("$g:${modes[g]}")
			done
			run "$dist" "$rho" "$rate" "${gms[@]}" || exit "$ksft_fail"
		else
			for m in "${modes[@]}"; do
				run "$dist" "$rho" "$rate" "0:$m" || exit "$ksft_fail"
			done
		fi
	done
done
python3 "$HERE/report.py" "$OUT/results.csv" "$OUT" | sed 's/^/# /'
