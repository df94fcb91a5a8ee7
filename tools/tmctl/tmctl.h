/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tmctl internals: the command table, the netlink session with the module
 * (nl.c), text and JSON output (out.c), and one handler file per object.
 */
#ifndef _TMCTL_H
#define _TMCTL_H

#include <stdbool.h>
#include <stdint.h>
#include <libmnl/libmnl.h>
#include <linux/tuplemerge.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define __printf(a, b)	__attribute__((format(printf, a, b)))

/* Exit codes, documented in tmctl(8). */
enum {
	TMCTL_OK = 0,
	TMCTL_EPARSE = 1,	/* bad command line or batch file */
	TMCTL_EKERNEL = 2,	/* the kernel refused the request */
	TMCTL_ENOMOD = 3,	/* the tuplemerge module is not loaded */
};

struct tmctl {
	bool json;
	const char *netns;
};

extern struct tmctl tmctl;

/* Report a usage or parse error naming the offending token; returns 1. */
__printf(1, 2) int tm_parse_error(const char *fmt, ...);
bool tm_matches(const char *arg, const char *keyword);

/* nl.c */
typedef int (*tm_msg_cb)(const struct nlmsghdr *nlh, void *data);
struct nlmsghdr *tm_nl_request(char *buf, uint8_t cmd, uint16_t flags);
int tm_nl_talk(struct nlmsghdr *nlh, tm_msg_cb cb, void *data,
	       const char *what);
int tm_nl_parse(const struct nlmsghdr *nlh, const struct nlattr **tb);

/* out.c: one object per line in text mode, a JSON array with -j. */
void tm_out_begin_list(void);
void tm_out_end_list(void);
void tm_out_begin_object(void);
void tm_out_end_object(void);
void tm_out_str(const char *key, const char *val);
void tm_out_u64(const char *key, uint64_t val);
void tm_out_s64(const char *key, int64_t val);

/* Object handlers: argv starts after the object name. */
int tm_do_table(int argc, char **argv);
int tm_do_stats(int argc, char **argv);

#endif /* _TMCTL_H */
