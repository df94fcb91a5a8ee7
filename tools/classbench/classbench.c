// SPDX-License-Identifier: GPL-2.0
/*
 * ClassBench rule and trace files (formats in classbench.h).  This file owns
 * the line scanner, the field parsers and their error messages, the two
 * writers, the growable arrays and the reference match function.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classbench.h"

#define __printf(a, b)	__attribute__((format(printf, a, b)))

/* Longest token quoted in an error message. */
#define CB_TOKEN_MAX	120

/* Where the parser is: one line of one file, and where errors go. */
struct cb_ctx {
	const char *path;
	unsigned long line;	/* 1-based */
	const char *bol;	/* first byte of the line */
	const char *eol;	/* one past its last byte, '\n' excluded */
	const char *p;		/* next byte to parse */
	char *err;
	size_t errlen;
	unsigned int opts;	/* CB_HONOUR_FLAGS */
};

/* The bytes [s, e) of the current line. */
struct cb_tok {
	const char *s;
	const char *e;
};

/* Per-line parser: 0, or -1 with the error message written. */
typedef int (*cb_line_fn)(struct cb_ctx *c, void *out);

static __printf(3, 4)
void cb_append(char *buf, size_t len, const char *fmt, ...)
{
	size_t used;
	va_list ap;

	if (!buf || !len)
		return;
	used = strnlen(buf, len);
	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

/* Report "FILE:LINE:COL: what: 'TOKEN'" about token t; return -1. */
static __printf(3, 4)
int cb_fail(struct cb_ctx *c, struct cb_tok t, const char *fmt, ...)
{
	size_t used;
	va_list ap;
	int n;

	if (!c->err || !c->errlen)
		return -1;
	snprintf(c->err, c->errlen, "%s:%lu:%ld: ", c->path, c->line,
		 (long)(t.s - c->bol) + 1);
	used = strlen(c->err);
	if (used + 1 < c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err + used, c->errlen - used, fmt, ap);
		va_end(ap);
	}
	n = t.e - t.s > CB_TOKEN_MAX ? CB_TOKEN_MAX : (int)(t.e - t.s);
	cb_append(c->err, c->errlen, ": '%.*s'", n, t.s);
	return -1;
}

static bool cb_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' ||
	       ch == '\f';
}

static void cb_skip(struct cb_ctx *c)
{
	while (c->p < c->eol && cb_blank(*c->p))
		c->p++;
}

/* The next blank-separated word; empty at the end of the line. */
static struct cb_tok cb_word(struct cb_ctx *c)
{
	struct cb_tok t;

	cb_skip(c);
	t.s = c->p;
	while (c->p < c->eol && !cb_blank(*c->p))
		c->p++;
	t.e = c->p;
	return t;
}

/* Decimal digits only; the value saturates above 2^40 (beyond any limit). */
static bool cb_dec(const char *s, const char *e, u64 *v)
{
	u64 x = 0;

	if (s == e)
		return false;
	for (; s < e; s++) {
		if (*s < '0' || *s > '9')
			return false;
		if (x < 1ULL << 40)
			x = x * 10 + (u64)(*s - '0');
	}
	*v = x;
	return true;
}

static int cb_xdigit(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* "0x" and hex digits; saturates like cb_dec(). */
static bool cb_hex(const char *s, const char *e, u64 *v)
{
	u64 x = 0;
	int d;

	if (e - s < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return false;
	for (s += 2; s < e; s++) {
		d = cb_xdigit(*s);
		if (d < 0)
			return false;
		if (x < 1ULL << 40)
			x = x * 16 + (u64)d;
	}
	*v = x;
	return true;
}

/* Dotted quad, each part 1 to 3 digits and at most 255. */
static bool cb_ipv4(const char *s, const char *e, u32 *v)
{
	const char *q;
	u32 x = 0;
	u64 part;
	int i;

	for (i = 0; i < 4; i++) {
		for (q = s; q < e && *q != '.'; q++)
			;
		if (q - s > 3 || !cb_dec(s, q, &part) || part > 255)
			return false;
		x = x << 8 | (u32)part;
		if (i < 3 && q == e)
			return false;
		s = q + 1;
	}
	if (q != e)
		return false;
	*v = x;
	return true;
}

static bool cb_ipv6(const char *s, const char *e, struct tm_addr *a)
{
	char buf[INET6_ADDRSTRLEN];
	unsigned char b[16];
	size_t n = e - s;
	int i;

	if (n >= sizeof(buf) || memchr(s, '\0', n))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (inet_pton(AF_INET6, buf, b) != 1)
		return false;
	for (i = 0; i < 4; i++)
		a->w[i] = (u32)b[4 * i] << 24 | (u32)b[4 * i + 1] << 16 |
			  (u32)b[4 * i + 2] << 8 | b[4 * i + 3];
	return true;
}

/* A dotted IPv4 or a textual IPv6 address (it has a ':'). */
static bool cb_addr(const char *s, const char *e, u8 *family,
		    struct tm_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (memchr(s, ':', e - s)) {
		*family = TM_AF_INET6;
		return cb_ipv6(s, e, a);
	}
	*family = TM_AF_INET;
	return cb_ipv4(s, e, &a->w[0]);
}

/* "ADDR/LEN"; the source sets *family, the destination must agree. */
static int cb_prefix(struct cb_ctx *c, const char *what, u8 *family,
		     struct tm_addr *a, u8 *len)
{
	struct cb_tok t = cb_word(c);
	const char *slash;
	unsigned int max;
	u8 fam;
	u64 l;

	if (t.s == t.e)
		return cb_fail(c, t, "missing %s prefix", what);
	slash = memchr(t.s, '/', t.e - t.s);
	if (!slash)
		return cb_fail(c, t, "missing '/LEN' in %s prefix", what);
	if (!cb_addr(t.s, slash, &fam, a))
		return cb_fail(c, t, "bad %s address", what);
	if (*family && fam != *family)
		return cb_fail(c, t, "%s address family differs from source",
			       what);
	max = fam == TM_AF_INET ? 32 : 128;
	if (!cb_dec(slash + 1, t.e, &l))
		return cb_fail(c, t, "bad %s prefix length", what);
	if (l > max)
		return cb_fail(c, t, "prefix length %.*s out of range 0..%u",
			       (int)(t.e - slash - 1), slash + 1, max);
	*family = fam;
	*len = (u8)l;
	cb_addr_mask(a, fam, *len);
	return 0;
}

/* A port number: the bytes up to a blank or ':'. */
static int cb_port(struct cb_ctx *c, const char *what, u16 *port)
{
	struct cb_tok t;
	u64 v;

	cb_skip(c);
	t.s = c->p;
	while (c->p < c->eol && !cb_blank(*c->p) && *c->p != ':')
		c->p++;
	t.e = c->p;
	if (t.s == t.e)
		return cb_fail(c, t, "missing %s port", what);
	if (!cb_dec(t.s, t.e, &v))
		return cb_fail(c, t, "bad %s port", what);
	if (v > 65535)
		return cb_fail(c, t, "%s port out of range 0..65535", what);
	*port = (u16)v;
	return 0;
}

/* "LO : HI", blanks around ':' optional. */
static int cb_range(struct cb_ctx *c, const char *what, u16 *lo, u16 *hi)
{
	struct cb_tok t;

	cb_skip(c);
	t.s = c->p;
	t.e = c->p;
	if (c->p == c->eol)
		return cb_fail(c, t, "missing %s port range", what);
	if (cb_port(c, what, lo))
		return -1;
	t.e = c->p;
	cb_skip(c);
	if (c->p == c->eol || *c->p != ':')
		return cb_fail(c, t, "missing ':' in %s port range", what);
	c->p++;
	if (cb_port(c, what, hi))
		return -1;
	t.e = c->p;
	if (*lo > *hi)
		return cb_fail(c, t, "%s port range has low > high", what);
	return 0;
}

/* "0xPROTO/0xMASK" with a mask of 0xFF (exact) or 0x00 (any). */
static int cb_proto(struct cb_ctx *c, struct tm_rule *r)
{
	struct cb_tok t = cb_word(c);
	const char *slash;
	u64 v, m;

	if (t.s == t.e)
		return cb_fail(c, t, "missing protocol");
	slash = memchr(t.s, '/', t.e - t.s);
	if (!slash || !cb_hex(t.s, slash, &v) ||
	    !cb_hex(slash + 1, t.e, &m))
		return cb_fail(c, t, "bad protocol, expected 0xPROTO/0xMASK");
	if (v > 0xff)
		return cb_fail(c, t, "protocol out of range 0x00..0xff");
	if (m != 0xff && m != 0)
		return cb_fail(c, t,
			       "bad protocol mask, expected 0xFF or 0x00");
	r->proto_any = !m;
	r->proto = m ? (u8)v : 0;
	return 0;
}

/* ICMP for the family: protocol 1 for IPv4, 58 (ICMPv6) for IPv6. */
static bool cb_icmp(u8 family, u8 proto)
{
	return (family == TM_AF_INET && proto == 1) ||
	       (family == TM_AF_INET6 && proto == 58);
}

/* An ICMP type (high byte) and code (low byte) into the port ranges. */
static int cb_icmp_flags(struct cb_ctx *c, struct cb_tok t, struct tm_rule *r,
			 unsigned int v, unsigned int m)
{
	unsigned int tmask = m >> 8, cmask = m & 0xff;

	if (tmask && tmask != 0xff)
		return cb_fail(c, t, "ICMP type mask not 0xff or 0x00");
	if (cmask && cmask != 0xff)
		return cb_fail(c, t, "ICMP code mask not 0xff or 0x00");
	if (tmask && (r->sport_lo || r->sport_hi != 65535))
		return cb_fail(c, t,
			       "ICMP type needs source port range 0 : 65535");
	if (cmask && (r->dport_lo || r->dport_hi != 65535))
		return cb_fail(c, t,
			       "ICMP code needs destination port range 0 : 65535");
	if (tmask) {
		r->sport_lo = (u16)(v >> 8);
		r->sport_hi = r->sport_lo;
	}
	if (cmask) {
		r->dport_lo = (u16)(v & 0xff);
		r->dport_hi = r->dport_lo;
	}
	return 0;
}

/*
 * The optional flags field "0xVALUE/0xMASK": checked, and ignored unless
 * CB_HONOUR_FLAGS (TCP flags, or ICMP type and code, see classbench.h).
 */
static int cb_flags(struct cb_ctx *c, struct tm_rule *r)
{
	struct cb_tok t = cb_word(c);
	const char *slash;
	u64 v, m;

	if (t.s == t.e)
		return 0;
	slash = memchr(t.s, '/', t.e - t.s);
	if (!slash || !cb_hex(t.s, slash, &v) ||
	    !cb_hex(slash + 1, t.e, &m) || v > 0xffff || m > 0xffff)
		return cb_fail(c, t, "bad TCP flags, expected 0xFLAGS/0xMASK");
	if (!(c->opts & CB_HONOUR_FLAGS))
		return 0;
	if (v & ~m)
		return cb_fail(c, t, "flags value has bits outside its mask");
	if (!m)
		return 0;
	if (!r->proto_any && r->proto == 6) {
		if (m & 0xff)
			return cb_fail(c, t,
				       "TCP flags mask has bits in the low byte");
		r->tcp_flags_mask = (u8)(m >> 8);
		r->tcp_flags = (u8)(v >> 8);
		return 0;
	}
	if (!r->proto_any && cb_icmp(r->family, r->proto))
		return cb_icmp_flags(c, t, r, (unsigned int)v,
				     (unsigned int)m);
	return cb_fail(c, t, "flags mask on a protocol other than TCP or ICMP");
}

static int cb_end(struct cb_ctx *c)
{
	struct cb_tok t = cb_word(c);

	if (t.s != t.e)
		return cb_fail(c, t, "trailing garbage");
	return 0;
}

static int cb_oom(struct cb_ctx *c)
{
	if (c->err && c->errlen)
		snprintf(c->err, c->errlen, "%s:%lu: out of memory", c->path,
			 c->line);
	return -1;
}

static int cb_rule_line(struct cb_ctx *c, void *out)
{
	struct cb_ruleset *rs = out;
	struct tm_rule r;

	memset(&r, 0, sizeof(r));
	if (*c->p != '@')
		return cb_fail(c, cb_word(c), "rule does not start with '@'");
	c->p++;
	if (cb_prefix(c, "source", &r.family, &r.src, &r.src_len) ||
	    cb_prefix(c, "destination", &r.family, &r.dst, &r.dst_len) ||
	    cb_range(c, "source", &r.sport_lo, &r.sport_hi) ||
	    cb_range(c, "destination", &r.dport_lo, &r.dport_hi) ||
	    cb_proto(c, &r) || cb_flags(c, &r) || cb_end(c))
		return -1;
	r.id = (u32)c->line;
	r.priority = (u32)rs->n;
	r.action = r.id;
	if (cb_ruleset_push(rs, &r))
		return cb_oom(c);
	return 0;
}

/* A trace address: decimal 32-bit, dotted IPv4 or textual IPv6. */
static int cb_trace_addr(struct cb_ctx *c, const char *what, u8 *family,
			 struct tm_addr *a)
{
	struct cb_tok t = cb_word(c);
	u64 v = 0;
	bool ok;
	u8 fam;

	if (t.s == t.e)
		return cb_fail(c, t, "missing %s address", what);
	if (memchr(t.s, ':', t.e - t.s) || memchr(t.s, '.', t.e - t.s)) {
		ok = cb_addr(t.s, t.e, &fam, a);
	} else {
		memset(a, 0, sizeof(*a));
		fam = TM_AF_INET;
		ok = cb_dec(t.s, t.e, &v) && v <= 0xffffffffULL;
		a->w[0] = (u32)v;
	}
	if (!ok)
		return cb_fail(c, t, "bad %s address", what);
	if (*family && fam != *family)
		return cb_fail(c, t, "%s address family differs from source",
			       what);
	*family = fam;
	return 0;
}

static int cb_trace_num(struct cb_ctx *c, const char *what, u64 max,
			u64 *v)
{
	struct cb_tok t = cb_word(c);

	if (t.s == t.e)
		return cb_fail(c, t, "missing %s", what);
	if (!cb_dec(t.s, t.e, v))
		return cb_fail(c, t, "bad %s", what);
	if (*v > max)
		return cb_fail(c, t, "%s out of range 0..%llu", what,
			       (unsigned long long)max);
	return 0;
}

static int cb_trace_line(struct cb_ctx *c, void *out)
{
	u64 sp, dp, proto, flags, rule;
	struct cb_trace *tr = out;
	struct tm_key k;

	memset(&k, 0, sizeof(k));
	if (cb_trace_addr(c, "source", &k.family, &k.src) ||
	    cb_trace_addr(c, "destination", &k.family, &k.dst) ||
	    cb_trace_num(c, "source port", 65535, &sp) ||
	    cb_trace_num(c, "destination port", 65535, &dp) ||
	    cb_trace_num(c, "protocol", 255, &proto) ||
	    cb_trace_num(c, "flags", 0xffffffffULL, &flags) ||
	    cb_trace_num(c, "rule number", 0xffffffffULL, &rule) ||
	    cb_end(c))
		return -1;
	k.sport = (u16)sp;
	k.dport = (u16)dp;
	k.proto = (u8)proto;
	if (c->opts & CB_HONOUR_FLAGS) {
		/* The packet's flags are the high 16 bits: see classbench.h. */
		if (k.proto == 6) {
			k.tcp_flags = (u8)(flags >> 24);
		} else if (cb_icmp(k.family, k.proto)) {
			k.sport = (u16)(flags >> 24);
			k.dport = (u16)((flags >> 16) & 0xff);
		}
	}
	if (cb_trace_push(tr, &k, (u32)rule))
		return cb_oom(c);
	return 0;
}

static void cb_ioerr(char *err, size_t errlen, const char *path, int e)
{
	if (err && errlen)
		snprintf(err, errlen, "%s: %s", path, strerror(e ? e : EIO));
}

/* The whole file ("-": stdin) in one buffer; NULL with err set. */
static char *cb_slurp(const char *path, size_t *len, char *err,
		      size_t errlen)
{
	bool std = !strcmp(path, "-");
	FILE *f = std ? stdin : fopen(path, "rb");
	size_t cap = 1 << 16, n = 0;
	char *buf = NULL, *nb;

	if (!f) {
		cb_ioerr(err, errlen, path, errno);
		return NULL;
	}
	for (;;) {
		nb = cap ? realloc(buf, cap) : NULL;
		if (!nb) {
			errno = ENOMEM;
			break;
		}
		buf = nb;
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		cap = cap * 2 > cap ? cap * 2 : 0;
	}
	if (!nb || ferror(f)) {
		cb_ioerr(err, errlen, path, errno);
		free(buf);
		buf = NULL;
	}
	if (!std)
		fclose(f);
	*len = n;
	return buf;
}

/* Feed every line that is not blank or a comment to fn. */
static int cb_read(const char *path, cb_line_fn fn, void *out,
		   unsigned int opts, char *err, size_t errlen)
{
	struct cb_ctx c = { .path = path, .err = err, .errlen = errlen,
			    .opts = opts };
	const char *end, *nl;
	size_t len;
	char *buf;

	buf = cb_slurp(path, &len, err, errlen);
	if (!buf)
		return -1;
	end = buf + len;
	for (c.bol = buf; c.bol < end; c.bol = c.eol + 1) {
		nl = memchr(c.bol, '\n', end - c.bol);
		c.eol = nl ? nl : end;
		c.line++;
		c.p = c.bol;
		cb_skip(&c);
		if (c.p == c.eol || *c.p == '#')
			continue;
		if (fn(&c, out)) {
			free(buf);
			return -1;
		}
	}
	free(buf);
	return 0;
}

int cb_read_rules_opt(const char *path, struct cb_ruleset *out,
		      unsigned int opts, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (cb_read(path, cb_rule_line, out, opts, err, errlen)) {
		cb_ruleset_free(out);
		return -1;
	}
	return 0;
}

int cb_read_trace_opt(const char *path, struct cb_trace *out,
		      unsigned int opts, char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (cb_read(path, cb_trace_line, out, opts, err, errlen)) {
		cb_trace_free(out);
		return -1;
	}
	return 0;
}

int cb_read_rules(const char *path, struct cb_ruleset *out, char *err,
		  size_t errlen)
{
	return cb_read_rules_opt(path, out, 0, err, errlen);
}

int cb_read_trace(const char *path, struct cb_trace *out, char *err,
		  size_t errlen)
{
	return cb_read_trace_opt(path, out, 0, err, errlen);
}

/* Text form of an address; false for an unknown family. */
static bool cb_fmt_addr(char *buf, size_t len, u8 family,
			const struct tm_addr *a)
{
	unsigned char b[16];
	int i;

	if (family == TM_AF_INET) {
		snprintf(buf, len, "%u.%u.%u.%u", a->w[0] >> 24,
			 (a->w[0] >> 16) & 0xff, (a->w[0] >> 8) & 0xff,
			 a->w[0] & 0xff);
		return true;
	}
	if (family != TM_AF_INET6)
		return false;
	for (i = 0; i < 16; i++)
		b[i] = (unsigned char)(a->w[i / 4] >> (24 - 8 * (i % 4)));
	return !!inet_ntop(AF_INET6, b, buf, (socklen_t)len);
}

static int cb_write_rule(FILE *f, const struct tm_rule *r)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];

	if (!cb_fmt_addr(src, sizeof(src), r->family, &r->src) ||
	    !cb_fmt_addr(dst, sizeof(dst), r->family, &r->dst)) {
		errno = EINVAL;
		return -1;
	}
	/* TCP flags in the high byte, as CB_HONOUR_FLAGS reads them. */
	if (fprintf(f, "@%s/%u\t%s/%u\t%u : %u\t%u : %u\t0x%02x/0x%s\t"
		    "0x%02x00/0x%02x00\n", src, r->src_len, dst, r->dst_len,
		    r->sport_lo, r->sport_hi, r->dport_lo, r->dport_hi,
		    r->proto_any ? 0 : r->proto,
		    r->proto_any ? "00" : "FF", r->tcp_flags,
		    r->tcp_flags_mask) < 0)
		return -1;
	return 0;
}

int cb_write_rules(FILE *f, const struct tm_rule *rules, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (cb_write_rule(f, &rules[i]))
			return -1;
	return fflush(f) || ferror(f) ? -1 : 0;
}

/*
 * The FLAGS column that CB_HONOUR_FLAGS reads back as @k's TCP flags or
 * ICMP type and code (a rule's field packed, see classbench.h), or 0.
 */
static u32 cb_key_flags(const struct tm_key *k)
{
	if (k->proto == 6 && k->tcp_flags)
		return (u32)k->tcp_flags << 24 | 0xff00;
	if (cb_icmp(k->family, k->proto) && (k->sport || k->dport) &&
	    k->sport <= 0xff && k->dport <= 0xff)
		return (u32)k->sport << 24 | (u32)k->dport << 16 | 0xffff;
	return 0;
}

static int cb_write_key(FILE *f, const struct tm_key *k, u32 rule)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	int ret;

	if (k->family == TM_AF_INET) {
		ret = fprintf(f, "%u\t%u\t%u\t%u\t%u\t%u\t%u\n",
			      k->src.w[0], k->dst.w[0], k->sport, k->dport,
			      k->proto, cb_key_flags(k), rule);
		return ret < 0 ? -1 : 0;
	}
	if (!cb_fmt_addr(src, sizeof(src), k->family, &k->src) ||
	    !cb_fmt_addr(dst, sizeof(dst), k->family, &k->dst)) {
		errno = EINVAL;
		return -1;
	}
	ret = fprintf(f, "%s\t%s\t%u\t%u\t%u\t%u\t%u\n", src, dst,
		      k->sport, k->dport, k->proto, cb_key_flags(k), rule);
	return ret < 0 ? -1 : 0;
}

int cb_write_trace(FILE *f, const struct tm_key *keys, const u32 *rule,
		   size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (cb_write_key(f, &keys[i], rule ? rule[i] : 0))
			return -1;
	return fflush(f) || ferror(f) ? -1 : 0;
}

/* The next capacity of a growing array, 0 on overflow. */
static size_t cb_next_cap(size_t cap, size_t elem)
{
	size_t n = cap ? cap * 2 : 256;

	if (n < cap || n > (size_t)-1 / elem)
		return 0;
	return n;
}

int cb_ruleset_push(struct cb_ruleset *rs, const struct tm_rule *r)
{
	struct tm_rule *nr;
	size_t cap;

	if (rs->n == rs->cap) {
		cap = cb_next_cap(rs->cap, sizeof(*nr));
		nr = cap ? realloc(rs->rules, cap * sizeof(*nr)) : NULL;
		if (!nr) {
			errno = ENOMEM;
			return -1;
		}
		rs->rules = nr;
		rs->cap = cap;
	}
	rs->rules[rs->n++] = *r;
	return 0;
}

int cb_trace_push(struct cb_trace *t, const struct tm_key *k, u32 rule)
{
	struct tm_key *nk;
	size_t cap;
	u32 *nr;

	if (t->n == t->cap) {
		cap = cb_next_cap(t->cap, sizeof(*nk));
		nk = cap ? realloc(t->keys, cap * sizeof(*nk)) : NULL;
		if (!nk)
			goto nomem;
		t->keys = nk;
		nr = realloc(t->rule, cap * sizeof(*nr));
		if (!nr)
			goto nomem;
		t->rule = nr;
		t->cap = cap;
	}
	t->keys[t->n] = *k;
	t->rule[t->n++] = rule;
	return 0;
nomem:
	errno = ENOMEM;
	return -1;
}

void cb_ruleset_free(struct cb_ruleset *rs)
{
	free(rs->rules);
	memset(rs, 0, sizeof(*rs));
}

void cb_trace_free(struct cb_trace *t)
{
	free(t->keys);
	free(t->rule);
	memset(t, 0, sizeof(*t));
}

void cb_addr_mask(struct tm_addr *a, u8 family, unsigned int len)
{
	unsigned int i, words = family == TM_AF_INET6 ? 4 : 1;

	for (i = 0; i < 4; i++) {
		if (i >= words || len <= 32 * i)
			a->w[i] = 0;
		else if (len < 32 * (i + 1))
			a->w[i] &= ~0U << (32 * (i + 1) - len);
	}
}

static bool cb_prefix_match(const struct tm_addr *p, u8 family,
			    unsigned int len, const struct tm_addr *a)
{
	struct tm_addr m = *a;

	cb_addr_mask(&m, family, len);
	return !memcmp(&m, p, sizeof(m));
}

bool cb_rule_match(const struct tm_rule *r, const struct tm_key *k)
{
	return r->family == k->family &&
	       cb_prefix_match(&r->src, r->family, r->src_len, &k->src) &&
	       cb_prefix_match(&r->dst, r->family, r->dst_len, &k->dst) &&
	       k->sport >= r->sport_lo && k->sport <= r->sport_hi &&
	       k->dport >= r->dport_lo && k->dport <= r->dport_hi &&
	       (r->proto_any || r->proto == k->proto) &&
	       (k->tcp_flags & r->tcp_flags_mask) == r->tcp_flags;
}
