// SPDX-License-Identifier: GPL-2.0
/*
 * test_classbench: tests of the ClassBench reader and writer and of tmgen.
 *
 *	test_classbench [-g TMGEN] [-d DIR]	run the tests
 *	test_classbench -t FILE...		time the parsing of files
 *
 * This file owns the tests: round trips of hand-made and generated rules and
 * traces, tmgen's determinism, shape and usage errors, the exact messages
 * for malformed lines, the flags field (ignored by default, TCP flags and
 * ICMP type and code with CB_HONOUR_FLAGS), and, when DIR (default
 * /work/shared/classbench, or $CLASSBENCH_DIR) holds ClassBench files,
 * parsing them in both modes; they are optional.
 * Files named *_trace are traces, the others rule files.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "classbench.h"

#define __printf(a, b)	__attribute__((format(printf, a, b)))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define MAX_TMP		64

static unsigned int passed, failed;
static const char *tmgen = "./tmgen";
static const char *cb_dir = "/work/shared/classbench";
static char tmp_dir[64];
static char *tmp_files[MAX_TMP];
static unsigned int n_tmp;

static __printf(2, 3)
bool check(bool ok, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		passed++;
		return true;
	}
	failed++;
	fputs("FAIL: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return false;
}

/* A path in the temporary directory, removed at exit. */
static const char *tmp_path(const char *name)
{
	unsigned int i;
	char *p;

	if (asprintf(&p, "%s/%s", tmp_dir, name) < 0)
		exit(2);
	for (i = 0; i < n_tmp; i++) {
		if (!strcmp(tmp_files[i], p)) {
			free(p);
			return tmp_files[i];
		}
	}
	if (n_tmp == MAX_TMP) {
		fprintf(stderr, "test_classbench: too many temporary files\n");
		exit(2);
	}
	tmp_files[n_tmp++] = p;
	return p;
}

static void tmp_cleanup(void)
{
	while (n_tmp) {
		n_tmp--;
		unlink(tmp_files[n_tmp]);
		free(tmp_files[n_tmp]);
	}
	if (tmp_dir[0])
		rmdir(tmp_dir);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(2);
	}
}

/* The whole file in a malloc()ed string; NULL if unreadable. */
static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	if (getdelim(&buf, &len, '\0', f) < 0) {
		free(buf);
		buf = calloc(1, 1);
	}
	fclose(f);
	return buf;
}

static bool same_text(const char *a, const char *b)
{
	char *x = read_text(a), *y = read_text(b);
	bool same = x && y && !strcmp(x, y);

	free(x);
	free(y);
	return same;
}

static bool rule_eq(const struct tm_rule *a, const struct tm_rule *b)
{
	return a->id == b->id && a->priority == b->priority &&
	       a->action == b->action && a->family == b->family &&
	       a->src_len == b->src_len && a->dst_len == b->dst_len &&
	       a->proto == b->proto && a->proto_any == b->proto_any &&
	       a->sport_lo == b->sport_lo && a->sport_hi == b->sport_hi &&
	       a->dport_lo == b->dport_lo && a->dport_hi == b->dport_hi &&
	       a->tcp_flags_mask == b->tcp_flags_mask &&
	       a->tcp_flags == b->tcp_flags &&
	       !memcmp(&a->src, &b->src, sizeof(a->src)) &&
	       !memcmp(&a->dst, &b->dst, sizeof(a->dst));
}

static bool key_eq(const struct tm_key *a, const struct tm_key *b)
{
	return a->family == b->family && a->sport == b->sport &&
	       a->dport == b->dport && a->proto == b->proto &&
	       a->tcp_flags == b->tcp_flags &&
	       !memcmp(&a->src, &b->src, sizeof(a->src)) &&
	       !memcmp(&a->dst, &b->dst, sizeof(a->dst));
}

/* Index of the first rule that differs, or n when all are equal. */
static size_t rules_diff(const struct cb_ruleset *a,
			 const struct cb_ruleset *b)
{
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (!rule_eq(&a->rules[i], &b->rules[i]))
			return i;
	return a->n;
}

static size_t trace_diff(const struct cb_trace *a, const struct cb_trace *b)
{
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (!key_eq(&a->keys[i], &b->keys[i]) ||
		    a->rule[i] != b->rule[i])
			return i;
	return a->n;
}

/*
 * Write rs to path, read it back into *back with the read options opts;
 * false (and a failure) if not.
 */
static bool rules_via(const char *path, const struct cb_ruleset *rs,
		      unsigned int opts, struct cb_ruleset *back)
{
	char err[256];
	FILE *f = fopen(path, "w");
	int ret;

	ret = f ? cb_write_rules(f, rs->rules, rs->n) : -1;
	if (f && fclose(f))
		ret = -1;
	if (!check(!ret, "writing %s", path))
		return false;
	return check(!cb_read_rules_opt(path, back, opts, err, sizeof(err)),
		     "reading back %s: %s", path, err);
}

static bool trace_via(const char *path, const struct cb_trace *t,
		      unsigned int opts, struct cb_trace *back)
{
	char err[256];
	FILE *f = fopen(path, "w");
	int ret;

	ret = f ? cb_write_trace(f, t->keys, t->rule, t->n) : -1;
	if (f && fclose(f))
		ret = -1;
	if (!check(!ret, "writing %s", path))
		return false;
	return check(!cb_read_trace_opt(path, back, opts, err, sizeof(err)),
		     "reading back %s: %s", path, err);
}

static void check_rules_round_trip(const char *what,
				   const struct cb_ruleset *rs,
				   unsigned int opts)
{
	struct cb_ruleset back = { 0 };
	size_t d;

	if (rules_via(tmp_path("rt.rules"), rs, opts, &back)) {
		d = rules_diff(rs, &back);
		check(d == rs->n, "%s: rules differ at %zu (%zu/%zu)",
		      what, d, rs->n, back.n);
	}
	cb_ruleset_free(&back);
}

static void check_trace_round_trip(const char *what,
				   const struct cb_trace *t, unsigned int opts)
{
	struct cb_trace back = { 0 };
	size_t d;

	if (trace_via(tmp_path("rt.trace"), t, opts, &back)) {
		d = trace_diff(t, &back);
		check(d == t->n, "%s: keys differ at %zu (%zu/%zu)",
		      what, d, t->n, back.n);
	}
	cb_trace_free(&back);
}

/* A small deterministic generator for the hand-made sets. */
static u32 lcg(u64 *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (u32)(*s >> 32);
}

static void random_rule(u64 *s, u8 family, struct tm_rule *r)
{
	unsigned int max = family == TM_AF_INET ? 32 : 128;
	int i;

	memset(r, 0, sizeof(*r));
	r->family = family;
	for (i = 0; i < 4; i++) {
		r->src.w[i] = lcg(s);
		r->dst.w[i] = lcg(s);
	}
	r->src_len = (u8)(lcg(s) % (max + 1));
	r->dst_len = (u8)(lcg(s) % (max + 1));
	cb_addr_mask(&r->src, family, r->src_len);
	cb_addr_mask(&r->dst, family, r->dst_len);
	r->sport_lo = (u16)lcg(s);
	r->sport_hi = (u16)(r->sport_lo + lcg(s) % (65536 - r->sport_lo));
	r->dport_lo = (u16)(lcg(s) % 3 ? 0 : lcg(s));
	r->dport_hi = (u16)(r->dport_lo + lcg(s) % (65536 - r->dport_lo));
	r->proto_any = lcg(s) % 4 == 0;
	r->proto = r->proto_any ? 0 : (u8)lcg(s);
}

static void push_numbered(struct cb_ruleset *rs, struct tm_rule *r)
{
	r->id = (u32)rs->n + 1;
	r->priority = (u32)rs->n;
	r->action = r->id;
	if (cb_ruleset_push(rs, r)) {
		fprintf(stderr, "test_classbench: out of memory\n");
		exit(2);
	}
}

static void test_hand_rules(void)
{
	struct cb_ruleset rs = { 0 };
	struct tm_rule r;
	u64 s = 42;
	int i;

	memset(&r, 0, sizeof(r));
	r.family = TM_AF_INET;
	r.sport_hi = 65535;
	r.dport_hi = 65535;
	r.proto_any = 1;
	push_numbered(&rs, &r);
	r.family = TM_AF_INET6;
	push_numbered(&rs, &r);
	memset(&r.src, 0xff, sizeof(r.src));
	memset(&r.dst, 0xff, sizeof(r.dst));
	r.src_len = 128;
	r.dst_len = 128;
	r.proto_any = 0;
	r.proto = 255;
	r.sport_lo = 65535;
	r.dport_hi = 0;
	push_numbered(&rs, &r);
	for (i = 0; i < 2000; i++) {
		random_rule(&s, i % 3 ? TM_AF_INET : TM_AF_INET6, &r);
		push_numbered(&rs, &r);
	}
	check_rules_round_trip("hand-made rules", &rs, 0);
	cb_ruleset_free(&rs);
}

static void test_hand_trace(void)
{
	struct cb_trace t = { 0 };
	struct tm_key k;
	u64 s = 7;
	int i, j;

	for (i = 0; i < 1000; i++) {
		memset(&k, 0, sizeof(k));
		k.family = i % 2 ? TM_AF_INET : TM_AF_INET6;
		for (j = 0; j < (k.family == TM_AF_INET ? 1 : 4); j++) {
			k.src.w[j] = i < 4 ? -(u32)(i / 2) : lcg(&s);
			k.dst.w[j] = lcg(&s);
		}
		k.sport = i < 4 ? (u16)-(i / 2) : (u16)lcg(&s);
		k.dport = (u16)lcg(&s);
		k.proto = (u8)lcg(&s);
		if (cb_trace_push(&t, &k, i < 4 ? -(u32)(i / 2) : lcg(&s)))
			exit(2);
	}
	check_trace_round_trip("hand-made trace", &t, 0);
	cb_trace_free(&t);
}

/* Comments, blank lines, CRLF, no flags, host bits, "lo:hi" spacing. */
static void test_lenient(void)
{
	const char *path = tmp_path("lenient.rules");
	struct cb_ruleset rs = { 0 };
	char err[256];
	struct tm_rule *r;

	write_text(path,
		   "# a comment\n\n"
		   "@10.1.2.3/8\t10.1.2.3/32\t0:65535\t80 : 80\t0x06/0xff\r\n"
		   "  \t\n"
		   "  @2001:db8::1/32  ::/0 1 :2  3:  4  0x11/0x00  0x0/0x0\n");
	if (!check(!cb_read_rules(path, &rs, err, sizeof(err)),
		   "lenient file: %s", err) ||
	    !check(rs.n == 2, "lenient file: %zu rules, want 2", rs.n))
		goto out;
	r = rs.rules;
	check(r[0].id == 3 && r[0].priority == 0 && r[0].action == 3 &&
	      r[1].id == 5 && r[1].priority == 1,
	      "lenient file: ids %u %u priorities %u %u", r[0].id, r[1].id,
	      r[0].priority, r[1].priority);
	check(r[0].src.w[0] == 0x0a000000 && r[0].src_len == 8 &&
	      r[0].dst.w[0] == 0x0a010203 && !r[0].proto_any &&
	      r[0].proto == 6 && r[0].sport_hi == 65535 &&
	      r[0].dport_lo == 80, "lenient file: rule 1 fields");
	check(r[1].family == TM_AF_INET6 && r[1].src.w[0] == 0x20010db8 &&
	      !r[1].src.w[3] && r[1].src_len == 32 && !r[1].dst_len &&
	      r[1].proto_any && !r[1].proto && r[1].sport_lo == 1 &&
	      r[1].sport_hi == 2 && r[1].dport_lo == 3 && r[1].dport_hi == 4,
	      "lenient file: rule 2 fields");
out:
	cb_ruleset_free(&rs);
}

static void test_io_errors(void)
{
	struct cb_ruleset rs = { 0 };
	struct cb_trace t = { 0 };
	char err[256];
	int ret;

	ret = cb_read_rules("/nonexistent/x", &rs, err, sizeof(err));
	check(ret == -1 && !rs.rules && !rs.n &&
	      !strcmp(err, "/nonexistent/x: No such file or directory"),
	      "missing rule file: %d '%s'", ret, err);
	ret = cb_read_trace("/nonexistent/y", &t, err, sizeof(err));
	check(ret == -1 && !t.keys &&
	      !strcmp(err, "/nonexistent/y: No such file or directory"),
	      "missing trace file: %d '%s'", ret, err);
}

/* One malformed line: its text, and the column and message expected. */
struct bad_case {
	bool trace;
	const char *line;
	unsigned int col;
	const char *msg;
};

#define HF	CB_HONOUR_FLAGS

#define GOOD_RULE "@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x06/0xFF\n"
#define GOOD_KEY "16909060 84281096 1000 80 6 0 1\n"

static const struct bad_case bad_cases[] = {
	{ false, "@10.0.0.0/33\t0.0.0.0/0\t0 : 65535\t0 : 65535\t0x00/0x00",
	  2, "prefix length 33 out of range 0..32: '10.0.0.0/33'" },
	{ false, "@1.2.3/24\t0.0.0.0/0\t0 : 65535\t0 : 65535\t0x00/0x00",
	  2, "bad source address: '1.2.3/24'" },
	{ false, "@1.2.3.4/32\t1.2.3.256/32\t0 : 65535\t0 : 65535\t0x00/0x00",
	  13, "bad destination address: '1.2.3.256/32'" },
	{ false, "@1.2.3.4/32\t5.6.7.8/32\t0 : 65535",
	  33, "missing destination port range: ''" },
	{ false, "@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t90 : 80\t0x06/0xFF",
	  34, "destination port range has low > high: '90 : 80'" },
	{ false, "@1.2.3.4/32\t5.6.7.8/32\t0 : 70000\t80 : 80\t0x06/0xFF",
	  28, "source port out of range 0..65535: '70000'" },
	{ false, "@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x06/0x0F",
	  42, "bad protocol mask, expected 0xFF or 0x00: '0x06/0x0F'" },
	{ false, "@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x06/0xFF\t"
	  "0x0000/0x0000\tjunk",
	  66, "trailing garbage: 'junk'" },
	{ false, "1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x06/0xFF",
	  1, "rule does not start with '@': '1.2.3.4/32'" },
	{ false, "@1.2.3.4\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x06/0xFF",
	  2, "missing '/LEN' in source prefix: '1.2.3.4'" },
	{ false, "  @2001:db8::/129\t::/0\t0 : 65535\t80 : 80\t0x06/0xFF",
	  4, "prefix length 129 out of range 0..128: '2001:db8::/129'" },
	{ false, "@2001:db8::/32\t1.2.3.4/32\t0 : 65535\t80 : 80\t0x06/0xFF",
	  16, "destination address family differs from source: '1.2.3.4/32'" },
	{ false, "@2001:db8:::1/64\t::/0\t0 : 65535\t80 : 80\t0x06/0xFF",
	  2, "bad source address: '2001:db8:::1/64'" },
	{ false, "@1.2.3.4/32\t5.6.7.8/32\t0 65535\t80 : 80\t0x06/0xFF",
	  24, "missing ':' in source port range: '0'" },
	{ false, "@1.2.3.4/32\t5.6.7.8/32\t0 : 6553x\t80 : 80\t0x06/0xFF",
	  28, "bad source port: '6553x'" },
	{ false, "@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x100/0xFF",
	  42, "protocol out of range 0x00..0xff: '0x100/0xFF'" },
	{ false, "@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x06/0xFF\t"
	  "0x0000/0x",
	  52, "bad TCP flags, expected 0xFLAGS/0xMASK: '0x0000/0x'" },
	{ false, "@1.2.3.4/3a\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x06/0xFF",
	  2, "bad source prefix length: '1.2.3.4/3a'" },
	{ false, "@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 :",
	  38, "missing destination port: ''" },
	{ true, "1 2 3 4 6 0", 12, "missing rule number: ''" },
	{ true, "1 2 70000 4 6 0 1", 5,
	  "source port out of range 0..65535: '70000'" },
	{ true, "4294967296 2 3 4 6 0 1", 1,
	  "bad source address: '4294967296'" },
	{ true, "2001:db8::1\t5\t3\t4\t6\t0\t1", 13,
	  "destination address family differs from source: '5'" },
	{ true, "1 2 3 4 256 0 1", 9, "protocol out of range 0..255: '256'" },
	{ true, "1 2 3 4 6 0 1 x", 15, "trailing garbage: 'x'" },
	{ true, "1 2 3 4 -6 0 1", 9, "bad protocol: '-6'" },
	{ true, "1 2001:db8::zz 3 4 6 0 1", 3,
	  "bad destination address: '2001:db8::zz'" },
	{ false, "@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x06/0xFF\t"
	  "0x10000/0x0000", 52,
	  "bad TCP flags, expected 0xFLAGS/0xMASK: '0x10000/0x0000'" },
	{ true, "1 2 3 4 6 4294967296 1", 11,
	  "flags out of range 0..4294967295: '4294967296'" },
};

/* Rule lines malformed with CB_HONOUR_FLAGS only. */
static const struct bad_case flags_bad_cases[] = {
	{ false, "@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x06/0xFF\t"
	  "0x1000/0x1080", 52,
	  "TCP flags mask has bits in the low byte: '0x1000/0x1080'" },
	{ false, "@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x06/0xFF\t"
	  "0x1200/0x1000", 52,
	  "flags value has bits outside its mask: '0x1200/0x1000'" },
	{ false, "@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x11/0xFF\t"
	  "0x0100/0x0000", 52,
	  "flags value has bits outside its mask: '0x0100/0x0000'" },
	{ false, "@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t0 : 65535\t0x01/0xFF\t"
	  "0x1000/0xf000", 54,
	  "ICMP type mask not 0xff or 0x00: '0x1000/0xf000'" },
	{ false, "@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t0 : 65535\t0x01/0xFF\t"
	  "0x0803/0xff0f", 54,
	  "ICMP code mask not 0xff or 0x00: '0x0803/0xff0f'" },
	{ false, "@1.2.3.4/32\t5.6.7.8/32\t0 : 1023\t0 : 65535\t0x01/0xFF\t"
	  "0x0800/0xff00", 53,
	  "ICMP type needs source port range 0 : 65535: '0x0800/0xff00'" },
	{ false, "@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x01/0xFF\t"
	  "0x0003/0x00ff", 52,
	  "ICMP code needs destination port range 0 : 65535: '0x0003/0x00ff'" },
	{ false, "@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x11/0xFF\t"
	  "0x1000/0x1000", 52,
	  "flags mask on a protocol other than TCP or ICMP: '0x1000/0x1000'" },
	{ false, "@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t80 : 80\t0x06/0x00\t"
	  "0x1000/0x1000", 52,
	  "flags mask on a protocol other than TCP or ICMP: '0x1000/0x1000'" },
	{ false, "@2001:db8::/32\t::/0\t0 : 65535\t0 : 65535\t0x01/0xFF\t"
	  "0x0800/0xff00", 51,
	  "flags mask on a protocol other than TCP or ICMP: '0x0800/0xff00'" },
	{ false, "@1.2.3.4/32\t5.6.7.8/32\t0 : 65535\t0 : 65535\t0x3a/0xFF\t"
	  "0x8000/0xff00", 54,
	  "flags mask on a protocol other than TCP or ICMP: '0x8000/0xff00'" },
};

static void test_bad_case(const struct bad_case *c, unsigned int opts,
			  unsigned int i)
{
	const char *path = tmp_path(c->trace ? "bad.trace" : "bad.rules");
	struct cb_ruleset rs = { 0 };
	struct cb_trace t = { 0 };
	char text[512], err[512], want[512];
	int ret;

	snprintf(text, sizeof(text), "# line 1\n%s%s\n",
		 c->trace ? GOOD_KEY : GOOD_RULE, c->line);
	write_text(path, text);
	snprintf(want, sizeof(want), "%s:3:%u: %s", path, c->col, c->msg);
	err[0] = '\0';
	if (c->trace)
		ret = cb_read_trace_opt(path, &t, opts, err, sizeof(err));
	else
		ret = cb_read_rules_opt(path, &rs, opts, err, sizeof(err));
	check(ret == -1 && !strcmp(err, want) && !rs.n && !t.n,
	      "bad case %u%s: got %d '%s', want '%s'", i,
	      opts ? " (flags)" : "", ret, err, want);
	/* Only what the flags mean is wrong: ignored by default. */
	if (!opts || c->trace)
		return;
	ret = cb_read_rules(path, &rs, err, sizeof(err));
	check(!ret && rs.n == 2 && !rs.rules[1].tcp_flags_mask,
	      "bad case %u (flags) by default: got %d '%s'", i, ret,
	      ret ? err : "");
	cb_ruleset_free(&rs);
}

static void test_bad_lines(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad_cases); i++)
		test_bad_case(&bad_cases[i], 0, i);
	for (i = 0; i < ARRAY_SIZE(flags_bad_cases); i++)
		test_bad_case(&flags_bad_cases[i], HF, i);
}

/* A rule line of the flags tests, and what CB_HONOUR_FLAGS makes of it. */
struct flags_rule_case {
	bool v6;
	u16 port[4];		/* sport lo, hi, dport lo, hi in the file */
	const char *proto;
	const char *flags;	/* NULL: no flags field */
	u8 mask, value;		/* tcp_flags_mask, tcp_flags wanted */
	u16 want[4];		/* port ranges wanted */
};

static const struct flags_rule_case flags_rule_cases[] = {
	{ false, { 0, 65535, 21, 21 }, "0x06/0xFF", "0x1000/0x1000",
	  0x10, 0x10, { 0, 65535, 21, 21 } },
	{ false, { 0, 65535, 21, 21 }, "0x06/0xFF", "0x0000/0x0200",
	  0x02, 0, { 0, 65535, 21, 21 } },
	{ false, { 1, 2, 0, 65535 }, "0x06/0xFF", "0x0200/0x1200",
	  0x12, 0x02, { 1, 2, 0, 65535 } },
	{ true, { 0, 65535, 0, 65535 }, "0x06/0xFF", "0xff00/0xff00",
	  0xff, 0xff, { 0, 65535, 0, 65535 } },
	{ false, { 0, 65535, 80, 80 }, "0x06/0xFF", "0x0000/0x0000",
	  0, 0, { 0, 65535, 80, 80 } },
	{ false, { 0, 65535, 80, 80 }, "0x06/0xFF", NULL,
	  0, 0, { 0, 65535, 80, 80 } },
	{ false, { 0, 65535, 0, 65535 }, "0x01/0xFF", "0x0800/0xff00",
	  0, 0, { 8, 8, 0, 65535 } },
	{ false, { 0, 65535, 0, 65535 }, "0x01/0xFF", "0x0303/0xffff",
	  0, 0, { 3, 3, 3, 3 } },
	{ false, { 0, 65535, 0, 65535 }, "0x01/0xFF", "0x0003/0x00ff",
	  0, 0, { 0, 65535, 3, 3 } },
	{ false, { 0, 65535, 0, 65535 }, "0x01/0xFF", "0xffff/0xffff",
	  0, 0, { 255, 255, 255, 255 } },
	{ false, { 10, 20, 30, 40 }, "0x01/0xFF", "0x0000/0x0000",
	  0, 0, { 10, 20, 30, 40 } },
	{ true, { 0, 65535, 0, 65535 }, "0x3a/0xFF", "0x8000/0xff00",
	  0, 0, { 128, 128, 0, 65535 } },
	{ false, { 53, 53, 0, 65535 }, "0x11/0xFF", "0x0000/0x0000",
	  0, 0, { 53, 53, 0, 65535 } },
	{ true, { 0, 65535, 0, 65535 }, "0x00/0x00", "0x0000/0x0000",
	  0, 0, { 0, 65535, 0, 65535 } },
};

static bool ports_are(const struct tm_rule *r, const u16 *p)
{
	return r->sport_lo == p[0] && r->sport_hi == p[1] &&
	       r->dport_lo == p[2] && r->dport_hi == p[3];
}

/* Each mapping of CB_HONOUR_FLAGS, the default, and the writer's output. */
static void test_flags_rules(void)
{
	const char *path = tmp_path("flags.rules");
	const struct flags_rule_case *fc;
	struct cb_ruleset hon = { 0 }, def = { 0 };
	char text[4096], err[256];
	size_t i, len = 0;

	text[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(flags_rule_cases); i++) {
		fc = &flags_rule_cases[i];
		len += snprintf(text + len, sizeof(text) - len,
				"@%s\t%s\t%u : %u\t%u : %u\t%s%s%s\n",
				fc->v6 ? "2001:db8::/32" : "1.2.3.4/32",
				fc->v6 ? "::/0" : "5.6.7.8/32", fc->port[0],
				fc->port[1], fc->port[2], fc->port[3],
				fc->proto, fc->flags ? "\t" : "",
				fc->flags ? fc->flags : "");
	}
	write_text(path, text);
	if (!check(!cb_read_rules_opt(path, &hon, HF, err, sizeof(err)),
		   "flags rules honoured: %s", err) ||
	    !check(!cb_read_rules(path, &def, err, sizeof(err)),
		   "flags rules by default: %s", err) ||
	    !check(hon.n == ARRAY_SIZE(flags_rule_cases) && def.n == hon.n,
		   "flags rules: %zu and %zu rules", hon.n, def.n))
		goto out;
	for (i = 0; i < hon.n; i++) {
		fc = &flags_rule_cases[i];
		check(hon.rules[i].tcp_flags_mask == fc->mask &&
		      hon.rules[i].tcp_flags == fc->value &&
		      ports_are(&hon.rules[i], fc->want),
		      "flags rule %zu honoured: flags 0x%02x/0x%02x ports %u:%u %u:%u",
		      i, hon.rules[i].tcp_flags, hon.rules[i].tcp_flags_mask,
		      hon.rules[i].sport_lo, hon.rules[i].sport_hi,
		      hon.rules[i].dport_lo, hon.rules[i].dport_hi);
		check(!def.rules[i].tcp_flags_mask && !def.rules[i].tcp_flags &&
		      ports_are(&def.rules[i], fc->port),
		      "flags rule %zu by default: flags 0x%02x/0x%02x ports %u:%u %u:%u",
		      i, def.rules[i].tcp_flags, def.rules[i].tcp_flags_mask,
		      def.rules[i].sport_lo, def.rules[i].sport_hi,
		      def.rules[i].dport_lo, def.rules[i].dport_hi);
	}
	check_rules_round_trip("flags rules honoured", &hon, HF);
	check_rules_round_trip("flags rules by default", &def, 0);
out:
	cb_ruleset_free(&hon);
	cb_ruleset_free(&def);
}

/* A trace line of the flags tests, and what CB_HONOUR_FLAGS makes of it. */
struct flags_key_case {
	const char *line;
	u8 tcp_flags;
	u16 sport, dport;
};

/*
 * FLAGS as ClassBench packs its rules' field: 268439552 = 0x10001000 (ACK
 * set), 33559040 = 0x02001200 (SYN set, ACK clear), 512 = 0x00000200 (SYN
 * clear), 134283008 = 0x0800ff00 (ICMP type 8, any code), 50593791 =
 * 0x0303ffff (type 3, code 3), 2147548928 = 0x8000ff00 (ICMPv6 type 128).
 */
static const struct flags_key_case flags_key_cases[] = {
	{ "1 2 1000 80 6 268439552 1", 0x10, 1000, 80 },
	{ "1 2 1000 80 6 33559040 1", 0x02, 1000, 80 },
	{ "1 2 1000 80 6 512 1", 0, 1000, 80 },
	{ "1 2 1000 80 6 4294967295 1", 0xff, 1000, 80 },
	{ "1 2 1000 80 6 0 1", 0, 1000, 80 },
	{ "1 2 65535 0 1 134283008 1", 0, 8, 0 },
	{ "1 2 0 65535 1 50593791 1", 0, 3, 3 },
	{ "1 2 5 6 1 4294967295 1", 0, 255, 255 },
	{ "1 2 5 6 1 0 1", 0, 0, 0 },
	{ "2001:db8::1 ::2 1 2 58 2147548928 1", 0, 128, 0 },
	{ "2001:db8::1 ::2 1 2 1 2147548928 1", 0, 1, 2 },
	{ "1 2 7 9 58 134283008 1", 0, 7, 9 },
	{ "1 2 53 53 17 4294967295 1", 0, 53, 53 },
	{ "1 2 53 53 0 268439552 1", 0, 53, 53 },
};

static void test_flags_trace(void)
{
	const char *path = tmp_path("flags.trace");
	const struct flags_key_case *fc;
	struct cb_trace hon = { 0 }, def = { 0 };
	char text[4096], err[256], *p;
	size_t i, len = 0;
	unsigned int sp, dp;

	for (i = 0; i < ARRAY_SIZE(flags_key_cases); i++)
		len += snprintf(text + len, sizeof(text) - len, "%s\n",
				flags_key_cases[i].line);
	write_text(path, text);
	if (!check(!cb_read_trace_opt(path, &hon, HF, err, sizeof(err)),
		   "flags trace honoured: %s", err) ||
	    !check(!cb_read_trace(path, &def, err, sizeof(err)),
		   "flags trace by default: %s", err) ||
	    !check(hon.n == ARRAY_SIZE(flags_key_cases) && def.n == hon.n,
		   "flags trace: %zu and %zu headers", hon.n, def.n))
		goto out;
	for (i = 0; i < hon.n; i++) {
		fc = &flags_key_cases[i];
		check(hon.keys[i].tcp_flags == fc->tcp_flags &&
		      hon.keys[i].sport == fc->sport &&
		      hon.keys[i].dport == fc->dport,
		      "flags key '%s' honoured: flags 0x%02x ports %u %u",
		      fc->line, hon.keys[i].tcp_flags, hon.keys[i].sport,
		      hon.keys[i].dport);
		/* By default: the SP and DP columns, no flags. */
		p = strchr(strchr(fc->line, ' ') + 1, ' ');
		check(sscanf(p, "%u %u", &sp, &dp) == 2 &&
		      !def.keys[i].tcp_flags && def.keys[i].sport == sp &&
		      def.keys[i].dport == dp,
		      "flags key '%s' by default: flags 0x%02x ports %u %u",
		      fc->line, def.keys[i].tcp_flags, def.keys[i].sport,
		      def.keys[i].dport);
	}
	check_trace_round_trip("flags trace honoured", &hon, HF);
	check_trace_round_trip("flags trace by default", &def, 0);
out:
	cb_trace_free(&hon);
	cb_trace_free(&def);
}

/* cb_rule_match() checks the TCP flags under their mask. */
static void test_flags_match(void)
{
	static const struct {
		u8 mask, value, key;
		bool match;
	} cases[] = {
		{ 0x12, 0x02, 0x02, true }, { 0x12, 0x02, 0x03, true },
		{ 0x12, 0x02, 0x12, false }, { 0x12, 0x02, 0x00, false },
		{ 0x10, 0x10, 0xff, true }, { 0x02, 0x00, 0x02, false },
		{ 0x02, 0x00, 0xfd, true }, { 0, 0, 0xff, true },
	};
	struct tm_rule r = { .family = TM_AF_INET, .proto = 6,
			     .sport_hi = 65535, .dport_hi = 65535 };
	struct tm_key k = { .family = TM_AF_INET, .proto = 6 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		r.tcp_flags_mask = cases[i].mask;
		r.tcp_flags = cases[i].value;
		k.tcp_flags = cases[i].key;
		check(cb_rule_match(&r, &k) == cases[i].match,
		      "rule flags 0x%02x/0x%02x, key 0x%02x: match %d",
		      cases[i].value, cases[i].mask, cases[i].key,
		      !cases[i].match);
	}
}

/* Random TCP rules with flags and ICMP headers: written, read back. */
static void test_flags_round_trip(void)
{
	struct cb_ruleset rs = { 0 }, back = { 0 };
	struct cb_trace t = { 0 };
	struct tm_rule r;
	static const u8 protos[] = { 6, 1, 58, 17 };
	struct tm_key k;
	size_t i, set = 0;
	u64 s = 99;

	for (i = 0; i < 1000; i++) {
		random_rule(&s, i % 3 ? TM_AF_INET : TM_AF_INET6, &r);
		if (i % 2) {
			r.proto_any = 0;
			r.proto = 6;
			r.tcp_flags_mask = (u8)lcg(&s);
			r.tcp_flags = (u8)lcg(&s) & r.tcp_flags_mask;
		}
		push_numbered(&rs, &r);
	}
	check_rules_round_trip("random TCP flags", &rs, HF);
	/* By default the flags written are read and ignored. */
	if (rules_via(tmp_path("rt.rules"), &rs, 0, &back))
		for (i = 0; i < back.n; i++)
			set += back.rules[i].tcp_flags_mask ||
			       back.rules[i].tcp_flags;
	check(back.n == rs.n && !set, "random TCP flags by default: %zu set",
	      set);
	for (i = 0; i < 1000; i++) {
		memset(&k, 0, sizeof(k));
		k.family = i % 3 ? TM_AF_INET : TM_AF_INET6;
		k.src.w[0] = lcg(&s);
		k.dst.w[0] = lcg(&s);
		k.proto = protos[i % ARRAY_SIZE(protos)];
		k.sport = (u16)lcg(&s);
		k.dport = (u16)lcg(&s);
		if (k.proto == 6) {
			k.tcp_flags = (u8)lcg(&s);
		} else if (k.proto == (k.family == TM_AF_INET ? 1 : 58)) {
			k.sport &= 0xff;
			k.dport &= 0xff;
		}
		if (cb_trace_push(&t, &k, (u32)i))
			exit(2);
	}
	check_trace_round_trip("random TCP flags, ICMP types", &t, HF);
	cb_ruleset_free(&rs);
	cb_ruleset_free(&back);
	cb_trace_free(&t);
}

/* Run tmgen with args, stdout to out (if not NULL); its exit status. */
static int run_tmgen(const char *args, const char *out)
{
	char cmd[1024];
	int st;

	snprintf(cmd, sizeof(cmd), "'%s' %s >'%s' 2>'%s'", tmgen, args,
		 out ? out : "/dev/null", tmp_path("tmgen.err"));
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static bool read_rules_ok(const char *path, struct cb_ruleset *rs,
			  unsigned int opts)
{
	char err[512];

	return check(!cb_read_rules_opt(path, rs, opts, err, sizeof(err)),
		     "reading %s: %s", path, err);
}

static bool read_trace_ok(const char *path, struct cb_trace *t,
			  unsigned int opts)
{
	char err[512];

	return check(!cb_read_trace_opt(path, t, opts, err, sizeof(err)),
		     "reading %s: %s", path, err);
}

static int cmp_u32(u32 a, u32 b)
{
	return a < b ? -1 : a > b;
}

static int rule_cmp(const void *pa, const void *pb)
{
	const struct tm_rule *a = pa, *b = pb;
	int d = memcmp(&a->src, &b->src, sizeof(a->src));

	if (!d)
		d = memcmp(&a->dst, &b->dst, sizeof(a->dst));
	if (!d)
		d = cmp_u32((u32)a->src_len << 8 | a->dst_len,
			    (u32)b->src_len << 8 | b->dst_len);
	if (!d)
		d = cmp_u32((u32)a->proto_any << 8 | a->proto,
			    (u32)b->proto_any << 8 | b->proto);
	if (!d)
		d = cmp_u32((u32)a->sport_lo << 16 | a->sport_hi,
			    (u32)b->sport_lo << 16 | b->sport_hi);
	if (!d)
		d = cmp_u32((u32)a->dport_lo << 16 | a->dport_hi,
			    (u32)b->dport_lo << 16 | b->dport_hi);
	return d;
}

static size_t count_dups(const struct cb_ruleset *rs)
{
	struct tm_rule *c = malloc(rs->n * sizeof(*c) + 1);
	size_t i, dups = 0;

	if (!c)
		exit(2);
	memcpy(c, rs->rules, rs->n * sizeof(*c));
	qsort(c, rs->n, sizeof(*c), rule_cmp);
	for (i = 1; i < rs->n; i++)
		dups += !rule_cmp(&c[i - 1], &c[i]);
	free(c);
	return dups;
}

/* Percent of rules with a source (or destination) prefix of length len. */
static unsigned int pct_len(const struct cb_ruleset *rs, bool dst, u8 len)
{
	size_t i, n = 0;

	for (i = 0; i < rs->n; i++)
		n += (dst ? rs->rules[i].dst_len : rs->rules[i].src_len) == len;
	return (unsigned int)(100 * n / (rs->n ? rs->n : 1));
}

static void check_shape(const char *type, int family,
			const struct cb_ruleset *rs)
{
	u8 host = family == 4 ? 32 : 128;

	if (!strcmp(type, "acl"))
		check(pct_len(rs, true, host) >= 30,
		      "acl/%d: %u%% host destinations", family,
		      pct_len(rs, true, host));
	if (!strcmp(type, "fw"))
		check(pct_len(rs, false, 0) >= 20,
		      "fw/%d: %u%% wildcard sources", family,
		      pct_len(rs, false, 0));
	if (family == 6)
		check(pct_len(rs, false, 64) + pct_len(rs, true, 64) > 0 &&
		      pct_len(rs, false, 48) + pct_len(rs, true, 48) > 0,
		      "%s/6: no /48 or /64 prefixes", type);
}

static void test_tmgen_rules(const char *type, int family)
{
	const char *a = tmp_path("gen.a"), *b = tmp_path("gen.b");
	const char *c = tmp_path("gen.c");
	struct cb_ruleset rs = { 0 }, back = { 0 };
	char args[128];
	size_t d;

	snprintf(args, sizeof(args),
		 "rules --type %s --family %d --count 3000 --seed 9",
		 type, family);
	if (!check(!run_tmgen(args, a), "tmgen %s", args) ||
	    !read_rules_ok(a, &rs, 0))
		return;
	check(rs.n == 3000, "%s/%d: %zu rules", type, family, rs.n);
	check(!count_dups(&rs), "%s/%d: %zu duplicates", type, family,
	      count_dups(&rs));
	check_shape(type, family, &rs);
	if (rules_via(b, &rs, 0, &back)) {
		d = rules_diff(&rs, &back);
		check(d == rs.n, "%s/%d: round trip differs at %zu", type,
		      family, d);
		check(same_text(a, b), "%s/%d: rewritten file differs", type,
		      family);
	}
	check(!run_tmgen(args, c) && same_text(a, c),
	      "%s/%d: same seed, different output", type, family);
	snprintf(args, sizeof(args),
		 "rules --type %s --family %d --count 3000 --seed 10",
		 type, family);
	check(!run_tmgen(args, c) && !same_text(a, c),
	      "%s/%d: other seed, same output", type, family);
	cb_ruleset_free(&rs);
	cb_ruleset_free(&back);
}

/*
 * Headers that do not match the rule their RULE column names: rule id
 * RULE (tmgen, base 1) or the rule at index RULE (ClassBench, base 0).
 */
static size_t trace_mismatches(const struct cb_ruleset *rs,
			       const struct cb_trace *t, unsigned int base)
{
	size_t i, bad = 0;
	u64 r;

	for (i = 0; i < t->n; i++) {
		r = (u64)t->rule[i] - base;
		bad += r >= rs->n || (base && rs->rules[r].id != t->rule[i]) ||
		       !cb_rule_match(&rs->rules[r], &t->keys[i]);
	}
	return bad;
}

static size_t repeats(const struct cb_trace *t)
{
	size_t i, n = 0;

	for (i = 1; i < t->n; i++)
		n += key_eq(&t->keys[i - 1], &t->keys[i]) &&
		     t->rule[i - 1] == t->rule[i];
	return n;
}

/* Whether every rule is used exactly n times. */
static bool uniform_use(const struct cb_ruleset *rs,
			const struct cb_trace *t, unsigned int n)
{
	unsigned int *use = calloc(rs->n + 1, sizeof(*use));
	bool ok = !!use;
	size_t i;

	for (i = 0; ok && i < t->n; i++)
		if (t->rule[i] <= rs->n)
			use[t->rule[i]]++;
	for (i = 1; ok && i <= rs->n; i++)
		ok = use[i] == n;
	free(use);
	return ok;
}

static void test_tmgen_trace(const char *type, int family)
{
	const char *r = tmp_path("tr.rules"), *tf = tmp_path("tr.trace");
	struct cb_ruleset rs = { 0 };
	struct cb_trace t = { 0 };
	char args[256];

	snprintf(args, sizeof(args),
		 "rules --type %s --family %d --count 1000 --seed 4",
		 type, family);
	if (!check(!run_tmgen(args, r), "tmgen %s", args) ||
	    !read_rules_ok(r, &rs, 0))
		return;
	snprintf(args, sizeof(args), "trace --rules '%s' --count 20000", r);
	if (check(!run_tmgen(args, tf), "tmgen %s", args) &&
	    read_trace_ok(tf, &t, 0)) {
		check(t.n == 20000 && !trace_mismatches(&rs, &t, 1),
		      "%s/%d trace: %zu headers, %zu mismatches", type, family,
		      t.n, trace_mismatches(&rs, &t, 1));
		check(repeats(&t) > 200, "%s/%d trace: %zu repeats, no bursts",
		      type, family, repeats(&t));
		check_trace_round_trip("generated trace", &t, 0);
	}
	cb_trace_free(&t);
	snprintf(args, sizeof(args),
		 "trace --rules '%s' --count 3000 --shuffle --seed 5", r);
	if (check(!run_tmgen(args, tf), "tmgen %s", args) &&
	    read_trace_ok(tf, &t, 0))
		check(t.n == 3000 && !trace_mismatches(&rs, &t, 1) &&
		      uniform_use(&rs, &t, 3) && repeats(&t) < 30,
		      "%s/%d shuffled trace", type, family);
	cb_trace_free(&t);
	cb_ruleset_free(&rs);
}

static void test_tmgen_usage(void)
{
	static const char * const bad[] = {
		"", "frob", "rules --type acl", "rules --type xyz --count 5",
		"rules --type acl --count 0", "rules --type acl --count 5x",
		"rules --type acl --count 5 --family 5",
		"rules --type acl --count 5 --shuffle",
		"rules --type acl --count 5 extra", "trace --count 5",
		"trace --rules /nonexistent --count 5", "rules --count",
	};
	unsigned int i;
	char *msg;
	int st;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		st = run_tmgen(bad[i], NULL);
		msg = read_text(tmp_path("tmgen.err"));
		check(st == 1 && msg && !strncmp(msg, "tmgen: ", 7),
		      "tmgen %s: status %d, message '%s'", bad[i], st,
		      msg ? msg : "");
		free(msg);
	}
}

static void test_tmgen(void)
{
	static const char * const types[] = { "acl", "fw", "ipc" };
	struct stat st;
	unsigned int i;

	if (stat(tmgen, &st)) {
		check(false, "%s not found (use -g)", tmgen);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		test_tmgen_rules(types[i], 4);
		test_tmgen_rules(types[i], 6);
		test_tmgen_trace(types[i], 4 + 2 * (i == 1));
	}
	test_tmgen_usage();
}

/* Lines that are not blank or comments. */
static size_t count_lines(const char *path)
{
	char *text = read_text(path), *p, *q;
	size_t n = 0;

	for (p = text; p && *p; p = q + !!*q) {
		q = strchrnul(p, '\n');
		p += strspn(p, " \t\r");
		n += p < q && *p != '#';
	}
	free(text);
	return n;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The rules with TCP flags. */
static size_t flagged(const struct cb_ruleset *rs)
{
	size_t i, n = 0;

	for (i = 0; i < rs->n; i++)
		n += rs->rules[i].tcp_flags_mask != 0;
	return n;
}

static void test_real_rules(const char *name, struct cb_ruleset *rs,
			    unsigned int opts)
{
	char path[512];
	double t0;

	snprintf(path, sizeof(path), "%s/%s", cb_dir, name);
	t0 = now();
	if (!read_rules_ok(path, rs, opts))
		return;
	printf("  %s: %zu rules parsed in %.1f ms%s\n", name, rs->n,
	       (now() - t0) * 1e3, opts ? ", flags honoured" : "");
	check(rs->n == count_lines(path), "%s: %zu rules, %zu lines", name,
	      rs->n, count_lines(path));
	check(opts ? flagged(rs) > 0 : !flagged(rs),
	      "%s: %zu rules with TCP flags", name, flagged(rs));
	check_rules_round_trip(name, rs, opts);
}

static void test_real_trace(const char *name, const struct cb_ruleset *rs,
			    unsigned int opts)
{
	struct cb_trace t = { 0 };
	char path[512];

	snprintf(path, sizeof(path), "%s/%s_trace", cb_dir, name);
	if (access(path, R_OK) || !read_trace_ok(path, &t, opts))
		return;
	check(t.n == count_lines(path), "%s_trace: %zu headers", name, t.n);
	/*
	 * Unlike README.md says, RULE is the 0-based index in these files.
	 * Flags honoured, a header also has its rule's TCP flags, or ICMP
	 * type and code.
	 */
	check(!trace_mismatches(rs, &t, 0),
	      "%s_trace: %zu headers do not match their rule%s", name,
	      trace_mismatches(rs, &t, 0), opts ? " (flags honoured)" : "");
	check_trace_round_trip(name, &t, opts);
	cb_trace_free(&t);
}

static void test_real_files(void)
{
	static const char * const names[] = {
		"acl1_1000", "fw1_1000", "ipc1_1000", "acl1_10000",
		"fw1_10000", "ipc1_10000", "acl1_100000",
	};
	struct cb_ruleset rs = { 0 };
	char path[512];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", cb_dir, names[i]);
		if (access(path, R_OK)) {
			printf("  SKIP %s (not present)\n", path);
			continue;
		}
		test_real_rules(names[i], &rs, 0);
		if (rs.n)
			test_real_trace(names[i], &rs, 0);
		cb_ruleset_free(&rs);
		test_real_rules(names[i], &rs, HF);
		if (rs.n)
			test_real_trace(names[i], &rs, HF);
		cb_ruleset_free(&rs);
	}
}

/* -t: parse the files given and print the time taken. */
static int time_files(int argc, char **argv)
{
	struct cb_ruleset rs = { 0 };
	struct cb_trace t = { 0 };
	char err[512];
	size_t len, n;
	double t0;
	int i, ret;

	for (i = 0; i < argc; i++) {
		len = strlen(argv[i]);
		t0 = now();
		if (len > 6 && !strcmp(argv[i] + len - 6, "_trace"))
			ret = cb_read_trace(argv[i], &t, err, sizeof(err));
		else
			ret = cb_read_rules(argv[i], &rs, err, sizeof(err));
		if (ret) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		n = rs.n + t.n;
		printf("%s: %zu lines in %.1f ms\n", argv[i], n,
		       (now() - t0) * 1e3);
		cb_ruleset_free(&rs);
		cb_trace_free(&t);
	}
	return 0;
}

static void run_tests(void)
{
	snprintf(tmp_dir, sizeof(tmp_dir), "/tmp/test_classbench.XXXXXX");
	if (!mkdtemp(tmp_dir)) {
		perror("mkdtemp");
		exit(2);
	}
	atexit(tmp_cleanup);
	test_hand_rules();
	test_hand_trace();
	test_lenient();
	test_io_errors();
	test_bad_lines();
	test_flags_rules();
	test_flags_trace();
	test_flags_match();
	test_flags_round_trip();
	test_tmgen();
	test_real_files();
}

int main(int argc, char **argv)
{
	const char *env = getenv("CLASSBENCH_DIR");
	int c;

	if (env && *env)
		cb_dir = env;
	while ((c = getopt(argc, argv, "g:d:t")) != -1) {
		switch (c) {
		case 'g':
			tmgen = optarg;
			break;
		case 'd':
			cb_dir = optarg;
			break;
		case 't':
			return time_files(argc - optind, argv + optind);
		default:
			fputs("usage: test_classbench [-g TMGEN] [-d DIR]\n"
			      "       test_classbench -t FILE...\n", stderr);
			return 2;
		}
	}
	run_tests();
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
