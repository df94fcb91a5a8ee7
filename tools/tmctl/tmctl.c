// SPDX-License-Identifier: GPL-2.0
/*
 * tmctl: configure the tuplemerge module.
 *
 *	tmctl [OPTIONS] OBJECT VERB [ARGS...]
 *	tmctl [OPTIONS] -f FILE
 *
 * This file owns the global options, the usage text (the only copy), the
 * network namespace switch and the dispatch to the object handlers.
 * See tmctl(8).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tmctl.h"

/* From dkms.conf, by the Makefile: one version for every part. */
#ifndef TMCTL_VERSION
#error "TMCTL_VERSION is not defined: build with tools/tmctl/Makefile"
#endif

struct tmctl tmctl;

void tm_usage(FILE *f)
{
	fprintf(f,
		"Usage: tmctl [OPTIONS] OBJECT VERB [ARGS...]\n"
		"       tmctl [OPTIONS] -f FILE\n"
		"       tmctl [OPTIONS] -j -f FILE   (JSON: tmctl-json(5))\n"
		"\n"
		"Tables:\n"
		"  table add NAME [family ip|ip6|inet] [hook HOOK] [priority N]\n"
		"            [policy accept|drop] [engine tuplemerge|tss|linear]\n"
		"            [collide N] [max-rules N] [max-tuples N]\n"
		"            HOOK: prerouting, input (default), forward, output,\n"
		"            postrouting\n"
		"  table del NAME\n"
		"  table flush NAME\n"
		"  table list\n"
		"  table show [NAME]\n"
		"\n"
		"Rules:\n"
		"  rule add TABLE [id N] MATCH... ACTION\n"
		"  rule replace TABLE id N MATCH... ACTION [reset-counters]\n"
		"  rule del TABLE id N\n"
		"  rule flush TABLE\n"
		"  rule list TABLE                    (also: rule show TABLE)\n"
		"  rule get TABLE id N\n"
		"  rule lookup TABLE src ADDR dst ADDR [sport N] [dport N]\n"
		"              [proto PROTO] [iif DEV] [oif DEV]\n"
		"  MATCH: [priority N] [family ip|ip6|inet] [src PREFIX]\n"
		"         [dst PREFIX] [sport P|LO-HI] [dport P|LO-HI]\n"
		"         [proto PROTO] [iif DEV] [oif DEV] [comment TEXT]\n"
		"         [cookie N]\n"
		"  src, dst, sport, dport and proto also take a set of values:\n"
		"         { V, V... }, as dport { 22, 80, 443-445 }\n"
		"  PROTO: tcp, udp, icmp, icmpv6, sctp, udplite, dccp, gre, esp,\n"
		"         ah, or a number\n"
		"  ACTION: accept | drop | count | mark VALUE | lb SERVICE |\n"
		"          reject [with tcp-reset|port-unreachable|\n"
		"                       host-unreachable|admin-prohibited]\n"
		"  A trailing 'packets N bytes N' (as rule list prints) is\n"
		"  accepted and ignored.\n"
		"\n"
		"SIDs (SRv6 connection acceptance, server side):\n"
		"  sid add SID accept policy POLICY [hmac KEYID]\n"
		"  sid replace SID accept policy POLICY [hmac KEYID]\n"
		"  sid load SID N                     (the application's load)\n"
		"  sid del SID\n"
		"  sid show [SID]                     (also: sid list)\n"
		"  SID: an IPv6 address routed with seg6local End\n"
		"  POLICY: always | never | conns N | backlog N | load N\n"
		"          (N: 1..4294967295)\n"
		"  KEYID: a seg6 HMAC key id (ip sr hmac), 1..4294967295\n"
		"\n");
	fprintf(f,
		"Load balancer (SRv6, LB side):\n"
		"  lb service add NAME vip ADDR sid LBSID [tcp] [port PORT]\n"
		"                 [affinity none|src] [choices K]\n"
		"                 [table-size N] [max-flows N]\n"
		"                 [idle-timeout SEC] [fin-timeout SEC]\n"
		"                 [syn-timeout SEC] [hmac KEYID]\n"
		"                 [health-interval TIME [health-timeout TIME]\n"
		"                  [health-rise N] [health-fall N]\n"
		"                  [health-listener]]\n"
		"  lb service del NAME\n"
		"  lb service show [NAME]             (also: lb service list)\n"
		"  lb backend add NAME SID [weight W]\n"
		"  lb backend set NAME SID weight W   (weight 0 drains)\n"
		"  lb backend del NAME SID\n"
		"  lb flows show [NAME]\n"
		"  lb flows flush NAME\n"
		"  lb flows lookup NAME src ADDR sport N [dport N]\n"
		"  ADDR, LBSID, SID: IPv6 addresses\n"
		"  Defaults: tcp, port 0 (any), choices 2 (1..%u),\n"
		"  table-size %u (a prime, up to %u),\n"
		"  max-flows %u (up to %u), idle-timeout %u, fin-timeout %u,\n"
		"  syn-timeout %u (seconds), weight 1 (1..65535)\n"
		"  Health checks (none without health-interval): TIME is N or Ns\n"
		"  (seconds) or Nms; health-interval %ums..%us, health-timeout\n"
		"  1ms..the interval (default %us, or the interval if shorter),\n"
		"  health-rise %u, health-fall %u (1..%u)\n"
		"  Rules send packets to a service with the action 'lb NAME'.\n"
		"\n",
		TM_LB_MAX_CHOICES, TM_LB_TABLE_SIZE_DEFAULT, TM_LB_TABLE_SIZE_MAX,
		TM_LB_MAX_FLOWS_DEFAULT, TM_LB_MAX_FLOWS_LIMIT,
		TM_LB_IDLE_TIMEOUT_DEFAULT, TM_LB_FIN_TIMEOUT_DEFAULT,
		TM_LB_SYN_TIMEOUT_DEFAULT, TM_LB_HEALTH_INTERVAL_MIN,
		TM_LB_HEALTH_INTERVAL_MAX / 1000,
		TM_LB_HEALTH_TIMEOUT_DEFAULT / 1000,
		TM_LB_HEALTH_RISE_DEFAULT, TM_LB_HEALTH_FALL_DEFAULT,
		TM_LB_HEALTH_COUNT_MAX);
	fprintf(f,
		"The whole configuration:\n"
		"  list ruleset                       (also: save) every object, as\n"
		"                                     the commands that make it\n"
		"  flush ruleset                      delete every table, service\n"
		"                                     and SID\n"
		"\n"
		"Other objects:\n"
		"  counters reset TABLE [id N]\n"
		"  stats\n"
		"  monitor [trace]\n"
		"  metrics [no-rules] [output FILE]   Prometheus text format; FILE\n"
		"                                     replaced in one step\n"
		"  import TABLE FILE [ACTION]     ClassBench rules, one transaction\n"
		"  import --format iptables-save|ip6tables-save TABLE FILE [[T:]CHAIN]\n"
		"                                     one iptables chain, one\n"
		"                                     transaction\n"
		"\n"
		"Options:\n"
		"  -f, --file FILE     apply the rule commands of FILE ('-': stdin)\n"
		"                      as one transaction\n"
		"  -c, --check         change nothing: -f files are checked by the\n"
		"                      kernel (a transaction then aborted) when\n"
		"                      the module is loaded; the rest is parsed only\n"
		"  -e, --echo          print the rule an add or replace made\n"
		"                      (-c -j -f: the commands of FILE)\n"
		"  -s, --no-counters   rule, SID and service listings without counters\n"
		"  -j, --json          print JSON; with -f, read FILE as JSON\n"
		"  -n, --netns NETNS   run in network namespace NETNS (ip netns)\n"
		"  -v, --verbose       print summaries on stderr\n"
		"  -V, --version       print the version\n"
		"  -h, --help          print this help\n"
		"\n"
		"Keywords may be abbreviated.  Exit status: 0 ok, 1 parse error,\n"
		"2 refused by the kernel, 3 module not loaded.  See tmctl(8).\n");
}

static int tm_enter_netns(const char *name)
{
	char path[256];
	int fd;

	if (strchr(name, '/'))
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tm_parse_error("cannot open network namespace '%s': %s",
				      name, strerror(errno));
	if (setns(fd, CLONE_NEWNET) < 0) {
		close(fd);
		return tm_parse_error("cannot enter network namespace '%s': %s",
				      name, strerror(errno));
	}
	close(fd);
	return 0;
}

static const struct {
	const char *name;
	int (*handler)(int argc, char **argv);
} tm_objects[] = {
	{ "table", tm_do_table },
	{ "rule", tm_do_rule },
	{ "counters", tm_do_counters },
	{ "stats", tm_do_stats },
	{ "sid", tm_do_sid },
	{ "lb", tm_do_lb },
	{ "monitor", tm_do_monitor },
	{ "metrics", tm_do_metrics },
	{ "import", tm_do_import },
	{ "list", tm_do_list },
	{ "save", tm_do_save },
	{ "flush", tm_do_flush },
};

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "file", required_argument, NULL, 'f' },
		{ "check", no_argument, NULL, 'c' },
		{ "echo", no_argument, NULL, 'e' },
		{ "no-counters", no_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "netns", required_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	const char *file = NULL;
	unsigned int i;
	int c;

	while ((c = getopt_long(argc, argv, "+f:cesjn:vVh", opts,
				NULL)) != -1) {
		switch (c) {
		case 'f':
			file = optarg;
			break;
		case 'c':
			tmctl.check = true;
			break;
		case 'e':
			tmctl.echo = true;
			break;
		case 's':
			tmctl.no_counters = true;
			break;
		case 'j':
			tmctl.json = true;
			break;
		case 'n':
			tmctl.netns = optarg;
			break;
		case 'v':
			tmctl.verbose = true;
			break;
		case 'V':
			printf("tmctl %s\n", TMCTL_VERSION);
			return TMCTL_OK;
		case 'h':
			tm_usage(stdout);
			return TMCTL_OK;
		default:
			fputs("Try 'tmctl --help'.\n", stderr);
			return TMCTL_EPARSE;
		}
	}
	argc -= optind;
	argv += optind;
	if (file && argc > 0)
		return tm_parse_error("-f FILE takes no command, got '%s'",
				      argv[0]);
	if (!file && argc < 1) {
		tm_usage(stderr);
		return TMCTL_EPARSE;
	}
	/* Devices are names of the target namespace: switch first. */
	if (tmctl.netns && tm_enter_netns(tmctl.netns))
		return TMCTL_EPARSE;
	if (file)
		return tm_do_batch(file);

	for (i = 0; i < ARRAY_SIZE(tm_objects); i++) {
		if (tm_matches(argv[0], tm_objects[i].name))
			return tm_objects[i].handler(argc - 1, argv + 1);
	}
	return tm_parse_error("unknown object '%s' (try: tmctl -h)", argv[0]);
}
