#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The netlink fuzzer (nl_fuzz.py, driven by the YAML spec) for a bounded
# time, twice: as root in a fresh network namespace, and as an unprivileged
# user (nobody) in a user and network namespace of its own (unshare -Urn),
# where it is root of the namespace and holds CAP_NET_ADMIN over it only.
# Each run also forks a dumper, a namespace-teardown loop and attackers
# without CAP_NET_ADMIN over the fuzzed namespace (see nl_fuzz.py).
# Afterwards tmctl must still work in the fuzzed namespace.  The kernel's
# own reports (KASAN, lockdep, WARN, leaks) fail the VM run.
#
#   FUZZ_TIME   seconds for both runs together (default 70: 40 + 30)
#   FUZZ_SEED   seed of the root run (the userns run takes seed + 1);
#               default random, printed
#
# A failure prints the seed, the step, the request bytes and the command
# that replays it (nl_fuzz.py --seed N --steps M --mode root|userns).

source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip python3 unshare setpriv
require_module

FUZZ_TIME=${FUZZ_TIME:-70}
seed=${FUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
[[ $FUZZ_TIME =~ ^[0-9]+$ ]] || { echo "FUZZ_TIME: not a number"; exit 1; }
t_root=$((FUZZ_TIME * 4 / 7))
t_user=$((FUZZ_TIME - t_root))
fuzz=$TM_TOP/selftests/nl_fuzz.py
log_info "seed $seed, ${t_root}s as root, ${t_user}s in a user namespace"

ns=''
setup_ns ns || exit "$ksft_fail"

ip netns exec "$ns" python3 "$fuzz" --seed "$seed" --time "$t_root" \
	--mode root
check_err $? "nl_fuzz.py --seed $seed --mode root failed"
log_test "netlink fuzz as root (seed $seed, ${t_root}s)"

# HOME and the cwd must be readable by nobody.
(cd / && HOME=/tmp setpriv --reuid=65534 --regid=65534 --clear-groups \
	unshare -Urn python3 "$fuzz" --seed "$((seed + 1))" \
	--time "$t_user" --mode userns)
check_err $? "nl_fuzz.py --seed $((seed + 1)) --mode userns failed"
log_test "netlink fuzz as nobody in its own user+net namespace (seed $((seed + 1)))"

# The module still answers tmctl in the fuzzed namespace.
out=$("$TMCTL" -n "$ns" table add after family ip hook input 2>&1 &&
	"$TMCTL" -n "$ns" table list 2>&1)
check_err $? "tmctl after the fuzz: $out"
grep -qw after <<<"$out"
check_err $? "tmctl table list after the fuzz: $out"
log_test "tmctl works after the fuzz"

exit "$EXIT_STATUS"
