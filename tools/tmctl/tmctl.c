// SPDX-License-Identifier: GPL-2.0
/*
 * tmctl: configure the tuplemerge module.
 *
 *	tmctl [-j] [-n NETNS] OBJECT VERB [ARGS...]
 *
 * This file owns the global options, the network namespace switch and the
 * dispatch to the object handlers.  See tmctl(8).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tmctl.h"

#define TMCTL_VERSION "0.1.0"

struct tmctl tmctl;

int tm_parse_error(const char *fmt, ...)
{
	va_list ap;

	fputs("tmctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return TMCTL_EPARSE;
}

/* @arg abbreviates @keyword, as in ip(8): "del" for "delete". */
bool tm_matches(const char *arg, const char *keyword)
{
	size_t len = strlen(arg);

	return len && len <= strlen(keyword) && !strncmp(arg, keyword, len);
}

static void tm_usage(FILE *f)
{
	fprintf(f,
		"Usage: tmctl [OPTIONS] OBJECT VERB [ARGS...]\n"
		"\n"
		"Objects and verbs:\n"
		"  table add NAME [family ip|ip6|inet] [hook HOOK] [priority N]\n"
		"            [policy accept|drop] [engine tuplemerge|tss|linear]\n"
		"            HOOK: prerouting, input (default), forward, output,\n"
		"            postrouting\n"
		"  table del NAME\n"
		"  table list\n"
		"  table show [NAME]\n"
		"  stats\n"
		"\n"
		"Options:\n"
		"  -j, --json          print JSON\n"
		"  -n, --netns NETNS   run in network namespace NETNS (ip netns)\n"
		"  -V, --version       print the version\n"
		"  -h, --help          print this help\n"
		"\n"
		"Exit status: 0 ok, 1 parse error, 2 refused by the kernel,\n"
		"3 module not loaded.\n");
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
	{ "stats", tm_do_stats },
};

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "netns", required_argument, NULL, 'n' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	unsigned int i;
	int c;

	while ((c = getopt_long(argc, argv, "+jn:Vh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			tmctl.json = true;
			break;
		case 'n':
			tmctl.netns = optarg;
			break;
		case 'V':
			printf("tmctl %s\n", TMCTL_VERSION);
			return TMCTL_OK;
		case 'h':
			tm_usage(stdout);
			return TMCTL_OK;
		default:
			tm_usage(stderr);
			return TMCTL_EPARSE;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1) {
		tm_usage(stderr);
		return TMCTL_EPARSE;
	}
	if (tmctl.netns && tm_enter_netns(tmctl.netns))
		return TMCTL_EPARSE;

	for (i = 0; i < ARRAY_SIZE(tm_objects); i++) {
		if (tm_matches(argv[0], tm_objects[i].name))
			return tm_objects[i].handler(argc - 1, argv + 1);
	}
	return tm_parse_error("unknown object '%s' (try: tmctl -h)", argv[0]);
}
