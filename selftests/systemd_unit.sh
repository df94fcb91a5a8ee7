#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/systemd/tuplemerge.service: what its start, reload and stop do to
# the configuration.  systemd is not PID 1 in the test VM, so the test
# reads the ExecStart=, ExecReload= and ExecStop= command lines from the
# unit and runs them itself, as systemd would (in order, up to the first
# that fails, standard input from /dev/null), with /usr/sbin/tmctl
# replaced by "$TMCTL -n NS" and /etc/tuplemerge.conf by the test's file.
# The unit's sandboxing (ProtectSystem=, ...) is not reproduced.
#
#   ns1  the unit's namespace: configurations with two tables and their
#        rules, a SID and a load-balancer service with two backends and
#        an lb rule (the addresses of ruleset.sh); no traffic
#   ref  the reference: each configuration applied once with tmctl -f
#        and listed gives the listing the unit must leave in ns1
#
#   a) ExecStart applies the file: the listing is the reference's, and has
#      the objects of the file (its lines less comments and flush ruleset)
#   b) the file edited (a rule dropped, a table added, the SID's policy
#      changed), ExecReload: the listing is the new file's
#   c) a file whose last line the kernel refuses (a duplicate rule id),
#      ExecReload: exit 2, naming that line; the listing and the
#      generation are those from before
#   d) ExecStop: nothing left
#   e) ExecStart twice in a row: the same state as once (the file's
#      flush ruleset)

source "$(dirname "$0")/lib.sh"

require_root
require_cmd ip awk
require_module

UNIT=$TM_TOP/tools/systemd/tuplemerge.service
# The paths in the unit that the test replaces.
UNIT_TMCTL=/usr/sbin/tmctl
UNIT_CONF=/etc/tuplemerge.conf

[ -f "$UNIT" ] || { echo "FAIL: no $UNIT"; exit "$ksft_fail"; }

ns1='' ref=''
setup_ns ns1 ref || exit "$ksft_fail"
TMP=$(mktemp -d)
CONF=$TMP/tuplemerge.conf
cleanup()
{
	cleanup_ns
	rm -rf "$TMP"
}

tm()
{
	local ns=$1

	shift
	"$TMCTL" -n "$ns" "$@"
}

# unit_exec KEY: the command lines of KEY= in the unit's [Service]
# section, one a line, in order; an empty KEY= empties the list, as in
# systemd.
unit_exec()
{
	awk -v key="$1" '
		/^[ \t]*[#;]/ { next }
		/^[ \t]*\[/ { sect = $1; next }
		sect == "[Service]" && match($0, "^[ \t]*" key "[ \t]*=") {
			v = substr($0, RLENGTH + 1)
			sub(/^[ \t]+/, "", v)
			sub(/[ \t]+$/, "", v)
			if (v == "")
				n = 0
			else
				cmd[n++] = v
		}
		END { for (i = 0; i < n; i++) print cmd[i] }' "$UNIT"
}

# run_exec KEY: run the unit's KEY= commands in ns1, as above; their
# output goes to $TMP/out, the status of the first that failed (or 0) is
# returned.  A command that is not the unit's tmctl (another program, or
# a systemd prefix such as "-" that changes what a failure means) is a
# failure of the test: it would have to learn it.
run_exec()
{
	local key=$1 line i
	local -a argv

	: >"$TMP/out"
	unit_exec "$key" >"$TMP/exec-$key"
	if [ ! -s "$TMP/exec-$key" ]; then
		echo "$UNIT has no $key=" >>"$TMP/out"
		return 127
	fi
	while IFS= read -r line; do
		read -ra argv <<<"$line"
		if [ "${argv[0]}" != "$UNIT_TMCTL" ]; then
			echo "$key=$line: not a $UNIT_TMCTL command" >>"$TMP/out"
			return 127
		fi
		for i in "${!argv[@]}"; do
			[ "${argv[i]}" = "$UNIT_CONF" ] && argv[i]=$CONF
		done
		"$TMCTL" -n "$ns1" "${argv[@]:1}" </dev/null >>"$TMP/out" 2>&1 ||
			return
	done <"$TMP/exec-$key"
}

# expect_file FILE: the reference listing for configuration FILE, in
# $TMP/FILE.want: FILE applied once, alone, in ref.
expect_file()
{
	tm "$ref" flush ruleset &&
	tm "$ref" -f "$TMP/$1" &&
	tm "$ref" list ruleset >"$TMP/$1.want"
}

# kinds FILE: how many objects of each kind (sid, lb service, lb backend,
# table, rule) FILE makes: its lines less comments, blank lines and
# flush ruleset; a listing is such a file too.
kinds()
{
	grep -vE '^[[:space:]]*(#|$)' "$1" | grep -vx 'flush ruleset' |
		awk '{ n[$1 == "lb" ? $1 " " $2 : $1]++ }
		     END { for (k in n) print k, n[k] }' | sort | xargs
}

# listed NAME: ns1's listing into $TMP/NAME.
listed()
{
	tm "$ns1" list ruleset >"$TMP/$1"
	check_err $? "list ruleset failed"
}

# The first configuration: two tables with rules, a SID, a service with
# two backends and the rule that names it.
cat >"$TMP/conf1" <<'EOF'
flush ruleset

# a server's SID
sid add fc00:1::100 accept policy conns 8

# the load balancer
lb service add web vip fd00:100::1 sid fd00:1b::1 tcp port 8080 choices 2
lb backend add web fc00:1::100
lb backend add web fc00:2::100 weight 3
table add edge family ip6 hook prerouting
rule add edge id 1 dst fd00:100::1/128 proto tcp dport 8080 lb web
rule add edge id 2 src fe80::/10 sport 1000-2000 proto udp accept

# the host
table add filter family inet hook input policy drop
rule add filter id 10 src 10.0.0.0/8 proto tcp dport 22 accept
rule add filter id 11 proto tcp dport 80 accept
rule add filter id 12 dport 1000-2000 proto udp comment "games" reject
EOF

# The file edited: rule 11 dropped, a table added, the SID's policy
# changed.
sed -e '/^rule add filter id 11 /d' \
    -e 's/^sid add fc00:1::100 accept policy conns 8$/sid add fc00:1::100 accept policy backlog 4/' \
	"$TMP/conf1" >"$TMP/conf2"
cat >>"$TMP/conf2" <<'EOF'

table add out family ip hook output
rule add out id 1 dst 192.0.2.0/24 proto tcp dport 25 reject
EOF

# The edited file and a last line the kernel refuses: rule 10 of filter
# is there already.
cp "$TMP/conf2" "$TMP/conf3"
echo 'rule add filter id 10 proto tcp dport 23 drop' >>"$TMP/conf3"

# The unit runs no command the test does not run (ExecStartPre=, ...),
# and its start and reload apply the configuration file.
test_unit()
{
	local key others

	for key in ExecStart ExecReload ExecStop; do
		log_info "$key=$(unit_exec "$key" | paste -sd';')"
	done
	others=$(grep -oE '^[[:space:]]*Exec[A-Za-z]*[[:space:]]*=' "$UNIT" |
		tr -d ' \t=' | grep -vxE 'Exec(Start|Reload|Stop)')
	expect_eq "Exec keys the test does not run" "$others" ""
	for key in ExecStart ExecReload; do
		unit_exec "$key" | grep -q " $UNIT_CONF\$"
		check_err $? "$key= does not apply $UNIT_CONF"
	done
	log_test "the unit runs the commands the test runs"
}

test_start()
{
	cp "$TMP/conf1" "$CONF"
	run_exec ExecStart
	check_err $? "ExecStart failed: $(cat "$TMP/out")"
	listed start
	[ -s "$TMP/start" ]
	check_err $? "nothing listed after ExecStart"
	cmp -s "$TMP/start" "$TMP/conf1.want"
	check_err $? "listing after ExecStart: $(diff "$TMP/conf1.want" "$TMP/start" | head -5)"
	expect_eq "objects after ExecStart" "$(kinds "$TMP/start")" \
		"$(kinds "$TMP/conf1")"
	log_test "a) ExecStart applies the file"
}

test_reload()
{
	cp "$TMP/conf2" "$CONF"
	run_exec ExecReload
	check_err $? "ExecReload failed: $(cat "$TMP/out")"
	listed reload
	cmp -s "$TMP/reload" "$TMP/conf2.want"
	check_err $? "listing after ExecReload: $(diff "$TMP/conf2.want" "$TMP/reload" | head -5)"
	expect_eq "objects after ExecReload" "$(kinds "$TMP/reload")" \
		"$(kinds "$TMP/conf2")"
	grep -q '^rule add filter id 11 ' "$TMP/reload"
	check_fail $? "rule 11, dropped from the file, is still there"
	grep -q '^sid add fc00:1::100 accept policy backlog 4' "$TMP/reload"
	check_err $? "the SID's new policy: $(grep '^sid ' "$TMP/reload")"
	grep -q '^table add out ' "$TMP/reload"
	check_err $? "table out, added to the file, is missing"
	log_test "b) ExecReload applies the edited file"
}

test_reload_bad()
{
	local gen rc lines

	listed before
	gen=$(tm "$ns1" stats | head -1)
	cp "$TMP/conf3" "$CONF"
	lines=$(wc -l <"$CONF")
	run_exec ExecReload
	rc=$?
	expect_eq "exit of ExecReload with a refused line" "$rc" 2
	grep -q "^$CONF:$lines:.*error: " "$TMP/out"
	check_err $? "the error names line $lines: $(cat "$TMP/out")"
	listed after
	cmp -s "$TMP/before" "$TMP/after"
	check_err $? "a refused file changed the listing: $(diff "$TMP/before" "$TMP/after" | head -5)"
	expect_eq "stats after a refused file" "$(tm "$ns1" stats | head -1)" \
		"$gen"
	log_test "c) a refused file changes nothing (exit 2)"
}

test_stop()
{
	run_exec ExecStop
	check_err $? "ExecStop failed: $(cat "$TMP/out")"
	listed stop
	expect_eq "bytes listed after ExecStop" "$(wc -c <"$TMP/stop")" 0
	expect_eq "tables after ExecStop" \
		"$(tm "$ns1" stats | head -1 | cut -d' ' -f2)" 0
	log_test "d) ExecStop leaves nothing"
}

test_start_twice()
{
	cp "$TMP/conf1" "$CONF"
	run_exec ExecStart
	check_err $? "first ExecStart failed: $(cat "$TMP/out")"
	listed once
	run_exec ExecStart
	check_err $? "second ExecStart failed: $(cat "$TMP/out")"
	listed twice
	cmp -s "$TMP/once" "$TMP/conf1.want"
	check_err $? "listing after one ExecStart: $(diff "$TMP/conf1.want" "$TMP/once" | head -5)"
	cmp -s "$TMP/twice" "$TMP/once"
	check_err $? "listing after two: $(diff "$TMP/once" "$TMP/twice" | head -5)"
	log_test "e) ExecStart twice leaves what once does"
}

log_info "tmctl: $TMCTL ($("$TMCTL" -V)), unit: $UNIT"
expect_file conf1 && expect_file conf2
check_err $? "the configurations, applied with tmctl -f in ref, failed"
log_test "reference listings of the configurations"
[ "$EXIT_STATUS" = 0 ] || exit "$EXIT_STATUS"
test_unit
test_start
test_reload
test_reload_bad
test_stop
test_start_twice

exit "$EXIT_STATUS"
