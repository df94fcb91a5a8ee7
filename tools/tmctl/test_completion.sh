#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test_completion.sh: the bash completion of tmctl (tmctl.bash-completion),
# called as bash calls it (COMP_WORDS, COMP_CWORD) with a stand-in tmctl
# that lists two tables and two load-balancer services, and each COMPREPLY
# compared with the words expected.  Prints one line per failure and "N passed, N failed".

set -u

here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The stand-in: "table list" and "lb service list" print what the real
# one prints.
cat > "$tmp/tmctl" <<'EOF'
#!/bin/sh
case "$*" in
"table list" | "-n blue table list")
	echo "table filter family inet hook input priority 0 policy accept engine tuplemerge rules 3 handle 1"
	echo "table edge family ip6 hook prerouting priority 0 policy drop engine tss rules 0 handle 2"
	;;
"lb service list" | "-n blue lb service list")
	echo "service web vip 2001:db8::80 tcp port 80 sid fc00:ff::1 choices 2 table-size 65537"
	printf '\tmax-flows 1048576 idle-timeout 40 fin-timeout 10 syn-timeout 5\n'
	printf '\thealth-interval 1s health-timeout 500ms health-rise 2 health-fall 3\n'
	printf '\tbackend fc00:1::100 weight 1\n'
	printf '\tflows 0 hunts 0 recoveries 0 steered 0 reports 0 learned 0 expired 0 full 0 dropped 0 too-big 0 malformed 0\n'
	echo "service dns vip 2001:db8::53 tcp port any sid fc00:ff::2 choices 2 table-size 65537"
	printf '\tmax-flows 1048576 idle-timeout 40 fin-timeout 10 syn-timeout 5\n'
	;;
*)
	exit 2
	;;
esac
EOF
chmod +x "$tmp/tmctl"

# shellcheck source=tmctl.bash-completion
source "$here/tmctl.bash-completion"

passed=0
failed=0
rule_kw="id priority family src dst sport dport proto iif oif ct tcp-flags icmp-type icmp-code meta dscp fragment comment cookie accept drop reject mark count lb queue bypass log prefix level group rate trace"

# expect "COMMAND LINE" "WORDS...": complete the last word of the line
# (a trailing space completes a new, empty word).
expect()
{
	local line=$1 want=$2 got

	read -r -a COMP_WORDS <<< "$line"
	COMP_WORDS[0]=$tmp/tmctl
	[[ "$line" == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_tmctl
	got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | xargs)
	want=$(printf '%s\n' "$want" | tr ' ' '\n' | sort | xargs)
	if [ "$got" = "$want" ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: '$line': got '$got', want '$want'"
	fi
}

expect "tmctl " "table rule counters stats sid lb monitor metrics import list save flush"
expect "tmctl r" "rule"
expect "tmctl --j" "--json"
expect "tmctl -j " "table rule counters stats sid lb monitor metrics import list save flush"
expect "tmctl table " "add del flush list show"
expect "tmctl table del " "filter edge"
expect "tmctl table show f" "filter"
expect "tmctl table add t " \
	"family hook priority policy engine collide max-rules max-tuples"
expect "tmctl table add t hook " \
	"prerouting input forward output postrouting"
expect "tmctl table add t engine t" "tuplemerge tss"
expect "tmctl t a t policy " "accept drop"
expect "tmctl rule " "add replace del flush list show get lookup"
expect "tmctl rule add " "filter edge"
expect "tmctl -n blue rule list e" "edge"
expect "tmctl rule add filter s" "src sport"
expect "tmctl rule add filter proto " \
	"tcp udp icmp icmpv6 sctp udplite dccp gre esp ah"
expect "tmctl rule add filter proto tcp dport 22 a" "accept"
expect "tmctl rule add filter iif l" "lo"
expect "tmctl rule add filter reject w" "with"
expect "tmctl rule add filter reject with " \
	"tcp-reset port-unreachable host-unreachable admin-prohibited"
expect "tmctl rule replace filter id 1 r" "rate reject reset-counters"
expect "tmctl rule add filter log level " "emerg alert crit err warn notice info debug"
expect "tmctl monitor " "trace"
expect "tmctl rule add filter src " ""
expect "tmctl rule del filter " "id"
expect "tmctl rule lookup filter " \
	"src dst sport dport proto iif oif ct tcp-flags mark dscp fragment icmp-type icmp-code"
expect "tmctl rule add filter ct " "state"
expect "tmctl rule add filter ct state " \
	"new established related invalid untracked"
expect "tmctl rule add filter meta " "mark"
expect "tmctl rule add filter fragment " "none first later"
expect "tmctl rule add filter d" "dst dport dscp drop"
# Sets: the values of their keyword, however the braces are spaced.
expect "tmctl rule add filter proto { " \
	"tcp udp icmp icmpv6 sctp udplite dccp gre esp ah"
expect "tmctl rule add filter proto { tcp, u" "udp udplite"
expect "tmctl rule add filter proto {tcp,u" "{tcp,udp {tcp,udplite"
expect "tmctl rule add filter proto {i" "{icmp {icmpv6"
expect "tmctl rule add filter proto { tcp " ", }"
expect "tmctl rule add filter proto { tcp, udp } a" "accept"
expect "tmctl rule add filter proto {tcp,udp} " "$rule_kw"
expect "tmctl rule replace filter id 1 dport { 22, " ""
expect "tmctl rule add filter src { 10.0.0.0/8, " ""
expect "tmctl r l filter " ""
expect "tmctl counters " "reset"
expect "tmctl counters reset " "filter edge"
expect "tmctl counters reset filter " "id"
expect "tmctl list " "ruleset"
expect "tmctl flush " "ruleset"
expect "tmctl save " ""
expect "tmctl import " "--format filter edge"
expect "tmctl import --format " "classbench iptables-save ip6tables-save"
expect "tmctl import --format ip6" "ip6tables-save"
expect "tmctl import --format iptables-save " "filter edge"
expect "tmctl import --format iptables-save filter d" "$(cd "$tmp" && compgen -f -- d)"
expect "tmctl import filter d" "$(cd "$tmp" && compgen -f -- d)"
expect "tmctl import filter x " "accept drop reject mark count lb"
expect "tmctl si" "sid"
expect "tmctl s" "stats sid save"
expect "tmctl sid " "add replace del load show list"
expect "tmctl sid add " ""
expect "tmctl sid add fc00::1 " "accept"
expect "tmctl sid replace fc00::1 a" "accept"
expect "tmctl sid add fc00::1 accept " "policy"
expect "tmctl sid add fc00::1 accept policy " "always never conns backlog load dyn"
expect "tmctl sid r fc00::1 acc pol b" "backlog"
expect "tmctl sid r fc00::1 acc pol l" "load"
expect "tmctl sid add fc00::1 accept policy conns " ""
expect "tmctl sid add fc00::1 accept policy always " "hmac idle-timeout close-timeout syn-timeout udp-timeout"
expect "tmctl sid add fc00::1 accept policy conns 5 " "hmac idle-timeout close-timeout syn-timeout udp-timeout"
expect "tmctl sid add fc00::1 accept policy dyn 8 " "hmac idle-timeout close-timeout syn-timeout udp-timeout"
expect "tmctl sid add fc00::1 accept policy never hmac " ""
expect "tmctl sid add fc00::1 accept policy never hmac 3 " "idle-timeout close-timeout syn-timeout udp-timeout"
expect "tmctl sid add fc00::1 accept policy load 9 idle-timeout " ""
expect "tmctl sid add fc00::1 accept policy load 9 idle-timeout 120 u" "udp-timeout"
expect "tmctl sid add fc00::1 accept policy load 9 idle-timeout 120 udp-timeout 120 " "hmac close-timeout syn-timeout"
expect "tmctl sid add fc00::1 accept policy load 9 idle 120 c 120 " "hmac syn-timeout udp-timeout"
# bash splits an IPv6 address at its colons (COMP_WORDBREAKS).
expect "tmctl sid add fc00 :: 1 " "accept"
expect "tmctl sid add fc00 :: acc " "accept"
expect "tmctl sid add fc00 :: " ""
expect "tmctl sid add fc00 : 1 :: 100 accept " "policy"
expect "tmctl sid add fc00::1 drop " ""
expect "tmctl sid del fc00::1 " ""
expect "tmctl sid show " ""
expect "tmctl l" "lb list"
expect "tmctl lb " "service backend flows"
expect "tmctl lb s" "service"
expect "tmctl lb service " "add del show list"
expect "tmctl lb service del " "web dns"
expect "tmctl lb s sh w" "web"
expect "tmctl -n blue lb service show d" "dns"
expect "tmctl lb service list " ""
expect "tmctl lb service add " ""
expect "tmctl lb service add web " \
	"vip sid tcp udp port affinity choices table-size max-flows idle-timeout fin-timeout syn-timeout hmac health-interval health-timeout health-rise health-fall health-listener"
expect "tmctl lb service add web h" \
	"hmac health-interval health-timeout health-rise health-fall health-listener"
expect "tmctl lb service add web health-interval " ""
expect "tmctl lb service add web health-interval 1s health-l" "health-listener"
expect "tmctl lb service add web health-listener health-r" "health-rise"
expect "tmctl lb service add web affinity " "none src"
expect "tmctl lb service add web affinity s" "src"
expect "tmctl lb service add web vip " ""
expect "tmctl lb service add web vip 2001 : db8 :: 80 s" "sid syn-timeout"
expect "tmctl lb service add web vip 2001 : db8 :: " ""
expect "tmctl lb service add web tcp p" "port"
expect "tmctl lb service add web u" "udp"
expect "tmctl lb service add web choices " ""
expect "tmctl lb backend " "add del set"
expect "tmctl lb backend set " "web dns"
expect "tmctl lb backend set web fc00::1 " "weight"
expect "tmctl lb backend add " "web dns"
expect "tmctl lb backend add web " ""
expect "tmctl lb backend add web fc00 : 1 :: 100 " "weight"
expect "tmctl lb backend add web fc00::1 w" "weight"
expect "tmctl lb backend add web fc00 :: " ""
expect "tmctl lb backend add web fc00::1 weight " ""
expect "tmctl lb backend del web fc00::1 " ""
expect "tmctl lb flows " "show flush lookup"
expect "tmctl lb flows flush " "web dns"
expect "tmctl lb flows lookup " "web dns"
expect "tmctl lb flows lookup web " "src sport dst dport"
expect "tmctl lb flows lookup web d" "dst dport"
expect "tmctl lb flows lookup web dst " ""
expect "tmctl lb flows lookup web src " ""
expect "tmctl lb flows lookup web src 2001 : db8 :: " ""
expect "tmctl lb flows lookup web src 2001:db8::1 s" "src sport"
expect "tmctl lb flows lookup web sport " ""
expect "tmctl lb f s " "web dns"
expect "tmctl lb flows show web " ""
expect "tmctl rule add filter dst 2001:db8::80 lb " "web dns"
expect "tmctl import filter x lb " "web dns"
touch "$tmp/metrics.prom"
expect "tmctl m" "monitor metrics"
expect "tmctl me" "metrics"
expect "tmctl metrics " "no-rules output"
expect "tmctl metrics n" "no-rules"
expect "tmctl metrics no-rules " "output"
expect "tmctl me no o $tmp/met" "$tmp/metrics.prom"
expect "tmctl metrics output x " "no-rules"
expect "tmctl metrics output x no-rules " ""
expect "tmctl -n blue metrics o $tmp/m" "$tmp/metrics.prom"
touch "$tmp/batch.rules"
expect "tmctl -f $tmp/bat" "$tmp/batch.rules"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
