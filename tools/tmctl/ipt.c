// SPDX-License-Identifier: GPL-2.0
/*
 * tmctl import --format iptables-save|ip6tables-save TABLE FILE [CHAIN]:
 * one chain of iptables-save output loaded into a table as first-match
 * rules, in one transaction.
 *
 * Reading.  Each "-A CHAIN" line of the chain is split into tokens, with
 * iptables-save's quoting, and read option by option into a struct
 * ipt_rule: the words of "rule add" its match makes (each with the place
 * of the token it comes from, so that an error points into the file), the
 * same match as prefixes and ranges, and its target.
 *
 * Resolving.  A chain walks its rules in order: a packet may pass LOG,
 * NFLOG and MARK, which go on, before the rule that decides.  A table
 * takes one rule per packet, so each rule gets its effect, what happens
 * to the packets it matches: its own target's if it decides, else that
 * of the next rule all of its packets reach (the first later rule that
 * shares a packet with it must match all of its packets), plus its log
 * or mark.  The walk goes from the end of the chain up, so that the next
 * rule's effect is known.  A rule that only some of its packets would
 * reach next is an error, naming both lines.
 *
 * Writing.  Rule I (0-based) gets id I + 1 and priority 10 (I + 1);
 * a base chain's policy, when the table's differs (or is not known), a
 * last rule.  The words go through tm_rule_parse() as a typed rule's do,
 * so values are checked where every rule's are.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tmctl.h"

/* Priorities leave room for rules added between the imported ones. */
#define IPT_PRIO_STEP	10
/* LOG with no -m limit: every packet, as iptables, within the kernel's. */
#define IPT_LOG_RATE	TM_LOG_RATE_MAX
/* Words of one rule's match, at most: each field once. */
#define IPT_WORDS_MAX	40
/* Ports of a multiport match, at most (iptables takes 15). */
#define IPT_PORTS_MAX	64

enum ipt_target {
	IPT_ACCEPT,
	IPT_DROP,
	IPT_REJECT,
	IPT_QUEUE,
	IPT_RETURN,
	/* they go on */
	IPT_LOG,
	IPT_MARK,
};

struct ipt_range {
	uint16_t lo, hi;
};

/* A match as the overlap checks see it; 0 or empty fields match all. */
struct ipt_match {
	uint8_t src[16], dst[16];
	uint8_t src_len, dst_len;
	int proto;			/* -1: any */
	struct ipt_range *sport, *dport;
	unsigned int nsport, ndport;	/* 0: any */
	const char *iif, *oif;
	uint8_t ct;
	uint8_t tcp_mask, tcp_val;
	struct ipt_range itype, icode;	/* 0..255: any */
	uint32_t mark, mark_mask;
	uint64_t dscp;
	uint8_t frag;
};

struct ipt_word {
	char *s;
	struct tm_pos pos;
};

struct ipt_rule {
	unsigned int line;
	struct ipt_match m;
	struct ipt_word w[IPT_WORDS_MAX];	/* its match's words */
	unsigned int nw;
	enum ipt_target target;
	struct ipt_word tw[8];			/* its target's words */
	unsigned int ntw;
	const char *tname;			/* its target, as written */
	struct tm_pos tpos;			/* of its target's name */
	uint32_t rate;				/* -m limit, N a second */
	struct tm_pos rate_pos;
	/* its effect, once resolved: the rules whose targets make it */
	int act, log, mark;			/* -1: none (act: policy) */
	bool mark_accept;			/* marks what ACCEPT takes */
};

struct ipt_import {
	const char *path;
	char *text;
	struct tm_pos pos;		/* of the token being read */
	uint8_t af;			/* 4 or 6 */
	const char *table;		/* tuplemerge's */
	char *ipt_table, *chain;	/* iptables' */
	/* of the chain: IPT_ACCEPT, IPT_DROP, or -1 for a user chain */
	int policy;
	struct tm_pos policy_pos;
	int table_policy;		/* TM_POLICY_*, -1 not known */
	int table_family;		/* TM_FAMILY_*, -1 not known */
	char **chains;			/* declared in the table read */
	size_t nchains, chains_cap;
	struct ipt_rule *rules;
	size_t n, cap;
	/* the requests made, and their words */
	struct tm_rule_req *reqs;
	struct tm_words *words;
	size_t nreqs;
	char **strs;			/* strings to free */
	size_t nstrs, strs_cap;
};

static struct ipt_import *ipt;

__printf(3, 4) static int ipt_error(const struct tm_pos *pos, unsigned int line,
				    const char *fmt, ...)
{
	va_list ap;

	if (pos)
		fprintf(stderr, "%s:%u:%u: error: ", ipt->path, pos->line,
			pos->col);
	else if (line)
		fprintf(stderr, "%s:%u: error: ", ipt->path, line);
	else
		fprintf(stderr, "%s: error: ", ipt->path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return TMCTL_EPARSE;
}

static void *ipt_keep(void *s)
{
	if (!s) {
		fprintf(stderr, "tmctl: import: out of memory\n");
		exit(TMCTL_EPARSE);
	}
	ipt->strs = tm_grow(ipt->strs, &ipt->strs_cap, ipt->nstrs + 1,
			    sizeof(*ipt->strs));
	ipt->strs[ipt->nstrs++] = s;
	return s;
}

__printf(1, 2) static char *ipt_fmt(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return ipt_keep(n < 0 ? NULL : s);
}

/* Add word @s, made by the token at @pos, to @w. */
static int ipt_word(struct ipt_word *w, unsigned int *n, unsigned int max,
		    const struct tm_pos *pos, const char *s)
{
	if (*n >= max)
		return ipt_error(pos, 0, "too many matches in one rule");
	w[*n].s = (char *)s;
	w[*n].pos = *pos;
	(*n)++;
	return 0;
}

/* The tokens of a line. */
struct ipt_toks {
	char *s[256];
	struct tm_pos pos[256];
	unsigned int n;
};

/*
 * Split @line (number @lno) at blanks; "..." is one token, in which a
 * backslash takes the next byte as it is, as iptables-save writes them.
 * The tokens are written over the line.
 */
static int ipt_split(char *line, unsigned int lno, struct ipt_toks *t)
{
	char *p = line, *out;

	t->n = 0;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return 0;
		if (t->n == ARRAY_SIZE(t->s))
			return ipt_error(NULL, lno, "too many words");
		t->pos[t->n].line = lno;
		t->pos[t->n].col = (unsigned int)(p - line) + 1;
		out = p;
		t->s[t->n++] = out;
		while (*p && *p != ' ' && *p != '\t') {
			if (*p != '"') {
				*out++ = *p++;
				continue;
			}
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && p[1])
					p++;
				*out++ = *p;
			}
			if (!*p)
				return ipt_error(&t->pos[t->n - 1], 0,
						 "missing '\"' closing the string");
			p++;
		}
		if (*p)
			p++;
		*out = '\0';
	}
}

/* Reading one rule's options. */
struct ipt_rd {
	struct ipt_toks *t;
	unsigned int k;			/* next token */
	struct ipt_rule *r;
	const char *module;		/* the last -m */
	bool dscp, mark, limit;
};

static int ipt_value(struct ipt_rd *rd, const char *opt, char **val,
		     struct tm_pos *pos)
{
	*val = NULL;
	*pos = rd->t->pos[rd->k - 1];
	if (rd->k >= rd->t->n)
		return ipt_error(&rd->t->pos[rd->k - 1], 0,
				 "'%s' needs a value", opt);
	*pos = rd->t->pos[rd->k];
	*val = rd->t->s[rd->k++];
	return 0;
}

static int ipt_match_word(struct ipt_rd *rd, const struct tm_pos *pos,
			  const char *s)
{
	return ipt_word(rd->r->w, &rd->r->nw, ARRAY_SIZE(rd->r->w), pos, s);
}

static int ipt_target_word(struct ipt_rd *rd, const struct tm_pos *pos,
			   const char *s)
{
	return ipt_word(rd->r->tw, &rd->r->ntw, ARRAY_SIZE(rd->r->tw), pos, s);
}

static bool ipt_number(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoul(s, &end, 0);
	return !*end && !errno && *v <= max;
}

/* -s/-d: ADDR[/LEN], iptables-save's form (the mask as a length). */
static int ipt_prefix(struct ipt_rd *rd, const char *val,
		      const struct tm_pos *pos, uint8_t *addr, uint8_t *len)
{
	unsigned int bits = ipt->af == 4 ? 32 : 128;
	const char *slash = strchr(val, '/');
	char host[INET6_ADDRSTRLEN];
	unsigned long l = bits;
	size_t n = slash ? (size_t)(slash - val) : strlen(val);

	if (n >= sizeof(host))
		return ipt_error(pos, 0, "'%s': not an IPv%u address", val,
				 ipt->af);
	memcpy(host, val, n);
	host[n] = '\0';
	if (inet_pton(ipt->af == 4 ? AF_INET : AF_INET6, host, addr) != 1)
		return ipt_error(pos, 0, "'%s': not an IPv%u address%s", val,
				 ipt->af,
				 strchr(host, ipt->af == 4 ? ':' : '.') ?
				 " (the other family's import format reads it)" :
				 "");
	if (slash && !ipt_number(slash + 1, bits, &l))
		return ipt_error(pos, 0,
				 "'%s': a prefix length 0..%u, not a mask", val,
				 bits);
	*len = (uint8_t)l;
	return 0;
}

/* A port or a range "A:B" (":B", "A:"), into "A-B" and @rg. */
static int ipt_port(const char *s, size_t n, const struct tm_pos *pos,
		    struct ipt_range *rg)
{
	char buf[16], *colon;
	unsigned long lo = 0, hi = 65535;

	if (n >= sizeof(buf))
		goto bad;
	memcpy(buf, s, n);
	buf[n] = '\0';
	colon = strchr(buf, ':');
	if (colon)
		*colon = '\0';
	if ((buf[0] || !colon) && !ipt_number(buf, 65535, &lo))
		goto bad;
	if (!colon)
		hi = lo;
	else if (colon[1] && !ipt_number(colon + 1, 65535, &hi))
		goto bad;
	if (lo > hi)
		goto bad;
	rg->lo = (uint16_t)lo;
	rg->hi = (uint16_t)hi;
	return 0;
bad:
	return ipt_error(pos, 0,
			 "'%.*s': a port or a range A:B of ports 0..65535 (services by number)",
			 (int)n, s);
}

static const char *ipt_range_str(const struct ipt_range *rg)
{
	if (rg->lo == rg->hi)
		return ipt_fmt("%u", rg->lo);
	return ipt_fmt("%u-%u", rg->lo, rg->hi);
}

/* --sport, --dport, and multiport's --sports and --dports (@list). */
static int ipt_ports(struct ipt_rd *rd, const char *opt, bool dst, bool list)
{
	struct ipt_range **rgp = dst ? &rd->r->m.dport : &rd->r->m.sport;
	unsigned int *n = dst ? &rd->r->m.ndport : &rd->r->m.nsport;
	unsigned int max = list ? IPT_PORTS_MAX : 1;
	struct ipt_range *rg;
	struct tm_pos pos;
	const char *p, *e;
	char *val, *word;
	size_t used = 0, len;
	unsigned int i;

	if (ipt_value(rd, opt, &val, &pos))
		return TMCTL_EPARSE;
	if (*n)
		return ipt_error(&pos, 0, "'%s': the %s ports are given twice",
				 opt, dst ? "destination" : "source");
	rg = (struct ipt_range *)ipt_keep(calloc(max, sizeof(*rg)));
	*rgp = rg;
	for (p = val; ; p = e + 1) {
		e = list ? strchrnul(p, ',') : p + strlen(p);
		if (*n == max)
			return ipt_error(&pos, 0, "'%s': more than %u ports",
					 val, max);
		if (ipt_port(p, (size_t)(e - p), &pos, &rg[*n]))
			return TMCTL_EPARSE;
		(*n)++;
		if (!*e)
			break;
	}
	if (ipt_match_word(rd, &pos, dst ? "dport" : "sport"))
		return TMCTL_EPARSE;
	if (*n == 1)
		return ipt_match_word(rd, &pos, ipt_range_str(&rg[0]));
	len = 2 + *n * 12;
	word = ipt_keep(malloc(len));
	word[used++] = '{';
	for (i = 0; i < *n; i++)
		used += (size_t)snprintf(word + used, len - used, "%s%s",
					 i ? "," : "", ipt_range_str(&rg[i]));
	snprintf(word + used, len - used, "}");
	return ipt_match_word(rd, &pos, word);
}

/* iptables' TCP flag names, in tm_tcp_flag_names' order. */
static const char * const ipt_tcp_flags[] = {
	"FIN", "SYN", "RST", "PSH", "ACK", "URG", "ECE", "CWR",
};

/* "SYN,ACK", "ALL" (the six of RFC 793), "NONE". */
static int ipt_tcp_flag_list(const char *val, const struct tm_pos *pos,
			     uint8_t *flags)
{
	const char *p, *e;
	unsigned int i;

	*flags = 0;
	if (!strcmp(val, "NONE"))
		return 0;
	if (!strcmp(val, "ALL")) {
		*flags = 0x3f;
		return 0;
	}
	for (p = val; ; p = e + 1) {
		e = strchrnul(p, ',');
		for (i = 0; i < ARRAY_SIZE(ipt_tcp_flags); i++)
			if (strlen(ipt_tcp_flags[i]) == (size_t)(e - p) &&
			    !strncasecmp(p, ipt_tcp_flags[i], (size_t)(e - p)))
				break;
		if (i == ARRAY_SIZE(ipt_tcp_flags))
			return ipt_error(pos, 0,
					 "'%s': unknown TCP flag '%.*s' (FIN, SYN, RST, PSH, ACK, URG, ECE, CWR, ALL or NONE)",
					 val, (int)(e - p), p);
		*flags |= (uint8_t)(1u << i);
		if (!*e)
			return 0;
	}
}

static const char *ipt_tcp_flag_str(uint8_t flags)
{
	char buf[64];
	size_t used = 0;
	unsigned int i;

	if (!flags)
		return "none";
	buf[0] = '\0';
	for (i = 0; i < 8; i++)
		if (flags & (1u << i))
			used += (size_t)snprintf(buf + used, sizeof(buf) - used,
						 "%s%s", used ? "," : "",
						 tm_tcp_flag_names[i]);
	return ipt_fmt("%s", buf);
}

static int ipt_tcp_flags_words(struct ipt_rd *rd, const struct tm_pos *pos,
			       uint8_t mask, uint8_t val)
{
	if (rd->r->m.tcp_mask)
		return ipt_error(pos, 0, "TCP flags are matched twice");
	rd->r->m.tcp_mask = mask;
	rd->r->m.tcp_val = val;
	if (ipt_match_word(rd, pos, "tcp-flags") ||
	    ipt_match_word(rd, pos, ipt_tcp_flag_str(mask)))
		return TMCTL_EPARSE;
	return ipt_match_word(rd, pos, ipt_tcp_flag_str(val));
}

/* --tcp-flags MASK COMP */
static int ipt_tcp_flags_opt(struct ipt_rd *rd)
{
	struct tm_pos pos, pos2;
	char *mask, *comp;
	uint8_t m, v;

	if (ipt_value(rd, "--tcp-flags", &mask, &pos) ||
	    ipt_value(rd, "--tcp-flags", &comp, &pos2) ||
	    ipt_tcp_flag_list(mask, &pos, &m) ||
	    ipt_tcp_flag_list(comp, &pos2, &v))
		return TMCTL_EPARSE;
	if (!m)
		return ipt_error(&pos, 0, "'%s': an empty TCP flags mask",
				 mask);
	/* iptables matches (flags & MASK) == COMP: COMP beyond MASK never. */
	if (v & ~m)
		return ipt_error(&pos2, 0,
				 "'%s': flags outside the mask '%s' never match",
				 comp, mask);
	return ipt_tcp_flags_words(rd, &pos, m, v);
}

static const char * const ipt_ct_states[] = {
	[TM_CT_STATE_INVALID] = "INVALID",
	[TM_CT_STATE_NEW] = "NEW",
	[TM_CT_STATE_ESTABLISHED] = "ESTABLISHED",
	[TM_CT_STATE_RELATED] = "RELATED",
	[TM_CT_STATE_UNTRACKED] = "UNTRACKED",
};

/* --ctstate / --state LIST */
static int ipt_ct_opt(struct ipt_rd *rd, const char *opt)
{
	char buf[128], *val;
	struct tm_pos pos;
	const char *p, *e;
	size_t used = 0;
	unsigned int i;

	if (ipt_value(rd, opt, &val, &pos))
		return TMCTL_EPARSE;
	if (rd->r->m.ct)
		return ipt_error(&pos, 0, "connection states are matched twice");
	buf[0] = '\0';
	for (p = val; ; p = e + 1) {
		e = strchrnul(p, ',');
		for (i = 0; i < ARRAY_SIZE(ipt_ct_states); i++)
			if (ipt_ct_states[i] &&
			    strlen(ipt_ct_states[i]) == (size_t)(e - p) &&
			    !strncasecmp(p, ipt_ct_states[i], (size_t)(e - p)))
				break;
		if (i == ARRAY_SIZE(ipt_ct_states))
			return ipt_error(&pos, 0,
					 "'%s': state '%.*s' cannot be imported (INVALID, NEW, ESTABLISHED, RELATED or UNTRACKED)",
					 val, (int)(e - p), p);
		if (!(rd->r->m.ct & (1u << i)))
			used += (size_t)snprintf(buf + used,
						 sizeof(buf) - used, "%s%s",
						 used ? "," : "",
						 tm_ct_state_names[i]);
		rd->r->m.ct |= (uint8_t)(1u << i);
		if (!*e)
			break;
	}
	if (ipt_match_word(rd, &pos, "ct") ||
	    ipt_match_word(rd, &pos, "state"))
		return TMCTL_EPARSE;
	return ipt_match_word(rd, &pos, ipt_fmt("%s", buf));
}

/* ICMP and ICMPv6 types by name, for files written by hand. */
static const struct {
	const char *name;
	uint8_t af, type;
	int code;	/* -1: any */
} ipt_icmp_names[] = {
	{ "echo-reply", 4, 0, -1 },
	{ "destination-unreachable", 4, 3, -1 },
	{ "network-unreachable", 4, 3, 0 },
	{ "host-unreachable", 4, 3, 1 },
	{ "protocol-unreachable", 4, 3, 2 },
	{ "port-unreachable", 4, 3, 3 },
	{ "fragmentation-needed", 4, 3, 4 },
	{ "source-quench", 4, 4, -1 },
	{ "redirect", 4, 5, -1 },
	{ "echo-request", 4, 8, -1 },
	{ "router-advertisement", 4, 9, -1 },
	{ "router-solicitation", 4, 10, -1 },
	{ "time-exceeded", 4, 11, -1 },
	{ "parameter-problem", 4, 12, -1 },
	{ "timestamp-request", 4, 13, -1 },
	{ "timestamp-reply", 4, 14, -1 },
	{ "destination-unreachable", 6, 1, -1 },
	{ "packet-too-big", 6, 2, -1 },
	{ "time-exceeded", 6, 3, -1 },
	{ "parameter-problem", 6, 4, -1 },
	{ "echo-request", 6, 128, -1 },
	{ "echo-reply", 6, 129, -1 },
	{ "router-solicitation", 6, 133, -1 },
	{ "router-advertisement", 6, 134, -1 },
	{ "neighbour-solicitation", 6, 135, -1 },
	{ "neighbor-solicitation", 6, 135, -1 },
	{ "neighbour-advertisement", 6, 136, -1 },
	{ "neighbor-advertisement", 6, 136, -1 },
};

/* --icmp-type / --icmpv6-type TYPE[/CODE] or a name. */
static int ipt_icmp_opt(struct ipt_rd *rd, const char *opt)
{
	unsigned long type, code = 0;
	struct ipt_match *m = &rd->r->m;
	bool has_code = false;
	struct tm_pos pos;
	char *val, *slash;
	unsigned int i;

	if (ipt_value(rd, opt, &val, &pos))
		return TMCTL_EPARSE;
	if (m->itype.lo || m->itype.hi != 255)
		return ipt_error(&pos, 0, "ICMP types are matched twice");
	if (!strcmp(val, "any"))
		return 0;
	for (i = 0; i < ARRAY_SIZE(ipt_icmp_names); i++) {
		if (ipt_icmp_names[i].af == ipt->af &&
		    !strcmp(val, ipt_icmp_names[i].name)) {
			type = ipt_icmp_names[i].type;
			has_code = ipt_icmp_names[i].code >= 0;
			code = has_code ? (unsigned long)ipt_icmp_names[i].code : 0;
			goto found;
		}
	}
	slash = strchr(val, '/');
	if (slash)
		*slash = '\0';
	if (!ipt_number(val, 255, &type) ||
	    (slash && !ipt_number(slash + 1, 255, &code))) {
		if (slash)
			*slash = '/';
		return ipt_error(&pos, 0,
				 "'%s': an ICMP%s type 0..255[/code 0..255] or a known name",
				 val, ipt->af == 6 ? "v6" : "");
	}
	if (slash)
		*slash = '/';
	has_code = slash;
found:
	m->itype = (struct ipt_range){ (uint16_t)type, (uint16_t)type };
	if (ipt_match_word(rd, &pos, "icmp-type") ||
	    ipt_match_word(rd, &pos, ipt_fmt("%lu", type)))
		return TMCTL_EPARSE;
	if (!has_code)
		return 0;
	m->icode = (struct ipt_range){ (uint16_t)code, (uint16_t)code };
	if (ipt_match_word(rd, &pos, "icmp-code"))
		return TMCTL_EPARSE;
	return ipt_match_word(rd, &pos, ipt_fmt("%lu", code));
}

/* -p NAME|NUMBER; "all" is any. */
static int ipt_proto_opt(struct ipt_rd *rd, const char *opt)
{
	struct protoent *pe;
	unsigned long p;
	struct tm_pos pos;
	char *val;

	if (ipt_value(rd, opt, &val, &pos))
		return TMCTL_EPARSE;
	if (!strcmp(val, "all") || !strcmp(val, "0"))
		return 0;
	if (!strcmp(val, "icmpv6") || !strcmp(val, "ipv6-icmp")) {
		p = IPPROTO_ICMPV6;
	} else if (!ipt_number(val, 255, &p)) {
		pe = getprotobyname(val);
		if (!pe)
			return ipt_error(&pos, 0, "'%s': unknown protocol", val);
		p = (unsigned long)pe->p_proto;
	}
	rd->r->m.proto = (int)p;
	if (ipt_match_word(rd, &pos, "proto"))
		return TMCTL_EPARSE;
	switch (p) {
	case IPPROTO_TCP:
		return ipt_match_word(rd, &pos, "tcp");
	case IPPROTO_UDP:
		return ipt_match_word(rd, &pos, "udp");
	case IPPROTO_ICMP:
		return ipt_match_word(rd, &pos, "icmp");
	case IPPROTO_ICMPV6:
		return ipt_match_word(rd, &pos, "icmpv6");
	}
	return ipt_match_word(rd, &pos, ipt_fmt("%lu", p));
}

/* -i/-o NAME: exact names only. */
static int ipt_dev_opt(struct ipt_rd *rd, const char *opt, bool out)
{
	struct tm_pos pos;
	char *val;

	if (ipt_value(rd, opt, &val, &pos))
		return TMCTL_EPARSE;
	if (val[0] && val[strlen(val) - 1] == '+')
		return ipt_error(&pos, 0,
				 "'%s': interface wildcards cannot be imported (rules match an interface's index)",
				 val);
	if (out)
		rd->r->m.oif = val;
	else
		rd->r->m.iif = val;
	if (ipt_match_word(rd, &pos, out ? "oif" : "iif"))
		return TMCTL_EPARSE;
	return ipt_match_word(rd, &pos, val);
}

/* -m mark --mark VALUE[/MASK] */
static int ipt_mark_opt(struct ipt_rd *rd)
{
	unsigned long v, mk = UINT32_MAX;
	struct tm_pos pos;
	char *val, *slash;
	bool ok;

	if (ipt_value(rd, "--mark", &val, &pos))
		return TMCTL_EPARSE;
	slash = strchr(val, '/');
	if (slash)
		*slash = '\0';
	ok = ipt_number(val, UINT32_MAX, &v) &&
	     (!slash || (ipt_number(slash + 1, UINT32_MAX, &mk) && mk));
	if (slash)
		*slash = '/';
	if (!ok)
		return ipt_error(&pos, 0, "'%s': a mark VALUE[/MASK], 32 bits",
				 val);
	rd->r->m.mark = (uint32_t)(v & mk);
	rd->r->m.mark_mask = (uint32_t)mk;
	if (ipt_match_word(rd, &pos, "meta") ||
	    ipt_match_word(rd, &pos, "mark"))
		return TMCTL_EPARSE;
	return ipt_match_word(rd, &pos, ipt_fmt("0x%lx/0x%lx", v & mk, mk));
}

/* -m dscp --dscp N (decimal or 0x) */
static int ipt_dscp_opt(struct ipt_rd *rd)
{
	struct tm_pos pos;
	unsigned long d;
	char *val;

	if (ipt_value(rd, "--dscp", &val, &pos))
		return TMCTL_EPARSE;
	if (!ipt_number(val, 63, &d))
		return ipt_error(&pos, 0, "'%s': a DSCP 0..63", val);
	rd->r->m.dscp = 1ull << d;
	if (ipt_match_word(rd, &pos, "dscp"))
		return TMCTL_EPARSE;
	return ipt_match_word(rd, &pos, ipt_fmt("%lu", d));
}

/* -m limit --limit N/second: a log rule's rate. */
static int ipt_limit_opt(struct ipt_rd *rd)
{
	static const char * const units[] = { "s", "sec", "second" };
	struct tm_pos pos;
	unsigned long n;
	char *val, *slash;
	unsigned int i;

	if (ipt_value(rd, "--limit", &val, &pos))
		return TMCTL_EPARSE;
	slash = strchr(val, '/');
	for (i = 0; slash && i < ARRAY_SIZE(units); i++)
		if (!strcmp(slash + 1, units[i]))
			break;
	if (slash)
		*slash = '\0';
	if (!slash || i == ARRAY_SIZE(units) ||
	    !ipt_number(val, TM_LOG_RATE_MAX, &n) || !n) {
		if (slash)
			*slash = '/';
		return ipt_error(&pos, 0,
				 "'%s': a log rate is N/second (1..%u), one line at least",
				 val, TM_LOG_RATE_MAX);
	}
	*slash = '/';
	rd->r->rate = (uint32_t)n;
	rd->r->rate_pos = pos;
	return 0;
}

static const struct {
	const char *ipt, *tm;
} ipt_rejects[] = {
	{ "icmp-port-unreachable", "port-unreachable" },
	{ "icmp6-port-unreachable", "port-unreachable" },
	{ "port-unreach", "port-unreachable" },
	{ "icmp-host-unreachable", "host-unreachable" },
	{ "icmp6-addr-unreachable", "host-unreachable" },
	{ "addr-unreach", "host-unreachable" },
	{ "icmp-admin-prohibited", "admin-prohibited" },
	{ "icmp6-adm-prohibited", "admin-prohibited" },
	{ "adm-prohibited", "admin-prohibited" },
	{ "tcp-reset", "tcp-reset" },
};

static const char * const ipt_levels[] = {
	"emerg", "alert", "crit", "error", "warning", "notice", "info", "debug",
};

/* The options of -j TARGET, to the end of the line. */
static int ipt_target_opts(struct ipt_rd *rd, const char *target)
{
	struct ipt_rule *r = rd->r;
	bool nflog = !strcmp(target, "NFLOG");
	struct tm_pos pos;
	unsigned long n;
	char *opt, *val;
	unsigned int i;

	while (rd->k < rd->t->n) {
		opt = rd->t->s[rd->k++];
		if (r->target == IPT_REJECT && !strcmp(opt, "--reject-with")) {
			if (ipt_value(rd, opt, &val, &pos))
				return TMCTL_EPARSE;
			for (i = 0; i < ARRAY_SIZE(ipt_rejects); i++)
				if (!strcmp(val, ipt_rejects[i].ipt))
					break;
			if (i == ARRAY_SIZE(ipt_rejects))
				return ipt_error(&pos, 0,
						 "'%s': this answer cannot be imported (port, host or address unreachable, admin prohibited, tcp-reset)",
						 val);
			r->ntw = 1;
			if (ipt_target_word(rd, &pos, "with") ||
			    ipt_target_word(rd, &pos, ipt_rejects[i].tm))
				return TMCTL_EPARSE;
		} else if (r->target == IPT_QUEUE && !strcmp(opt, "--queue-num")) {
			if (ipt_value(rd, opt, &val, &pos))
				return TMCTL_EPARSE;
			if (!ipt_number(val, 65535, &n))
				return ipt_error(&pos, 0,
						 "'%s': a queue 0..65535", val);
			r->tw[1].s = val;
			r->tw[1].pos = pos;
		} else if (r->target == IPT_QUEUE &&
			   !strcmp(opt, "--queue-bypass")) {
			pos = rd->t->pos[rd->k - 1];
			if (ipt_target_word(rd, &pos, "bypass"))
				return TMCTL_EPARSE;
		} else if (r->target == IPT_LOG && !nflog &&
			   !strcmp(opt, "--log-prefix")) {
			if (ipt_value(rd, opt, &val, &pos) ||
			    ipt_target_word(rd, &pos, "prefix") ||
			    ipt_target_word(rd, &pos, val))
				return TMCTL_EPARSE;
		} else if (r->target == IPT_LOG && !nflog &&
			   !strcmp(opt, "--log-level")) {
			if (ipt_value(rd, opt, &val, &pos))
				return TMCTL_EPARSE;
			if (ipt_number(val, 7, &n))
				val = ipt_fmt("%lu", n);
			for (i = 0; i < ARRAY_SIZE(ipt_levels); i++)
				if (!strcmp(val, ipt_levels[i]))
					val = ipt_fmt("%u", i);
			if (ipt_target_word(rd, &pos, "level") ||
			    ipt_target_word(rd, &pos, val))
				return TMCTL_EPARSE;
		} else if (nflog && !strcmp(opt, "--nflog-group")) {
			if (ipt_value(rd, opt, &val, &pos))
				return TMCTL_EPARSE;
			if (!ipt_number(val, 65535, &n))
				return ipt_error(&pos, 0,
						 "'%s': an nflog group 0..65535",
						 val);
			r->tw[2].s = val;
			r->tw[2].pos = pos;
		} else if (nflog && !strcmp(opt, "--nflog-prefix")) {
			if (ipt_value(rd, opt, &val, &pos) ||
			    ipt_target_word(rd, &pos, "prefix") ||
			    ipt_target_word(rd, &pos, val))
				return TMCTL_EPARSE;
		} else if (r->target == IPT_MARK &&
			   (!strcmp(opt, "--set-xmark") ||
			    !strcmp(opt, "--set-mark"))) {
			unsigned long v, mk = UINT32_MAX;
			char *slash;
			bool ok;

			if (ipt_value(rd, opt, &val, &pos))
				return TMCTL_EPARSE;
			slash = strchr(val, '/');
			if (slash)
				*slash = '\0';
			ok = ipt_number(val, UINT32_MAX, &v) &&
			     (!slash || ipt_number(slash + 1, UINT32_MAX, &mk));
			if (slash)
				*slash = '/';
			if (!ok)
				return ipt_error(&pos, 0,
						 "'%s': a mark VALUE[/MASK], 32 bits",
						 val);
			if (mk != UINT32_MAX)
				return ipt_error(&pos, 0,
						 "'%s': a mark rule sets all 32 bits; a mask cannot be imported",
						 val);
			r->tw[1].s = ipt_fmt("0x%lx", v);
			r->tw[1].pos = pos;
		} else {
			return ipt_error(&rd->t->pos[rd->k - 1], 0,
					 "'%s': option of %s that cannot be imported",
					 opt, target);
		}
	}
	if (r->target == IPT_MARK && !r->tw[1].s)
		return ipt_error(&r->tpos, 0, "MARK without --set-xmark");
	return 0;
}

/* A chain of the table being read ("-j NAME" jumps to it). */
static bool ipt_chain_known(const char *name)
{
	size_t i;

	for (i = 0; i < ipt->nchains; i++)
		if (!strcmp(ipt->chains[i], name))
			return true;
	return false;
}

/* -j TARGET [OPTIONS] */
static int ipt_target(struct ipt_rd *rd)
{
	struct ipt_rule *r = rd->r;
	struct tm_pos pos;
	char *val;

	if (ipt_value(rd, "-j", &val, &pos))
		return TMCTL_EPARSE;
	r->tpos = pos;
	r->tname = val;
	r->ntw = 1;
	r->tw[0].pos = pos;
	if (!strcmp(val, "ACCEPT")) {
		r->target = IPT_ACCEPT;
		r->tw[0].s = "accept";
	} else if (!strcmp(val, "DROP")) {
		r->target = IPT_DROP;
		r->tw[0].s = "drop";
	} else if (!strcmp(val, "REJECT")) {
		/* iptables' default answer, for TCP too */
		r->target = IPT_REJECT;
		r->tw[0].s = "reject";
		r->ntw = 3;
		r->tw[1] = (struct ipt_word){ "with", pos };
		r->tw[2] = (struct ipt_word){ "port-unreachable", pos };
	} else if (!strcmp(val, "NFQUEUE")) {
		r->target = IPT_QUEUE;
		r->tw[0].s = "queue";
		r->ntw = 2;
		r->tw[1] = (struct ipt_word){ "0", pos };
	} else if (!strcmp(val, "RETURN")) {
		r->target = IPT_RETURN;
		r->ntw = 0;
	} else if (!strcmp(val, "LOG")) {
		r->target = IPT_LOG;
		r->tw[0].s = "log";
	} else if (!strcmp(val, "NFLOG")) {
		r->target = IPT_LOG;
		r->tw[0].s = "log";
		r->ntw = 3;
		r->tw[1] = (struct ipt_word){ "group", pos };
		r->tw[2] = (struct ipt_word){ "0", pos };
	} else if (!strcmp(val, "MARK")) {
		r->target = IPT_MARK;
		r->tw[0].s = "mark";
		r->ntw = 2;
		r->tw[1] = (struct ipt_word){ NULL, pos };
	} else if (ipt_chain_known(val)) {
		return ipt_error(&pos, 0,
				 "'%s': a jump to another chain cannot be imported; import that chain into a table of its own",
				 val);
	} else {
		return ipt_error(&pos, 0,
				 "'%s': target that cannot be imported (ACCEPT, DROP, REJECT, RETURN, LOG, NFLOG, NFQUEUE, MARK)",
				 val);
	}
	if (ipt_target_opts(rd, val))
		return TMCTL_EPARSE;
	if (rd->limit && r->target != IPT_LOG)
		return ipt_error(&r->rate_pos, 0,
				 "-m limit: only a LOG or NFLOG rule's rate can be imported");
	return 0;
}

static bool ipt_is(const char *opt, const char *a, const char *b)
{
	return !strcmp(opt, a) || (b && !strcmp(opt, b));
}

/* The options of "-A CHAIN ..." from token @k. */
static int ipt_read_rule(struct ipt_toks *t, unsigned int k,
			 struct ipt_rule *r)
{
	struct ipt_rd rd = { .t = t, .k = k, .r = r };
	const char *mod, *opt;
	struct tm_pos pos;
	char *val;
	int err;

	r->m.proto = -1;
	r->m.itype.hi = 255;
	r->m.icode.hi = 255;
	r->act = -1;
	r->log = -1;
	r->mark = -1;
	r->target = IPT_RETURN;	/* no -j: nothing but counting */
	r->line = t->pos[0].line;
	while (rd.k < t->n) {
		pos = t->pos[rd.k];
		opt = t->s[rd.k++];
		mod = rd.module ? rd.module : "";
		if (!strcmp(opt, "!")) {
			return ipt_error(&pos, 0,
					 "'!': a negated match cannot be imported (a rule matches, it does not exclude)");
		} else if (ipt_is(opt, "-s", "--source") ||
			   ipt_is(opt, "-d", "--destination")) {
			bool dst = opt[1] == 'd' || opt[2] == 'd';

			if (ipt_value(&rd, opt, &val, &pos) ||
			    ipt_prefix(&rd, val, &pos,
				       dst ? r->m.dst : r->m.src,
				       dst ? &r->m.dst_len : &r->m.src_len) ||
			    ipt_match_word(&rd, &pos, dst ? "dst" : "src") ||
			    ipt_match_word(&rd, &pos, val))
				return TMCTL_EPARSE;
		} else if (ipt_is(opt, "-p", "--protocol")) {
			err = ipt_proto_opt(&rd, opt);
		} else if (ipt_is(opt, "-i", "--in-interface")) {
			err = ipt_dev_opt(&rd, opt, false);
		} else if (ipt_is(opt, "-o", "--out-interface")) {
			err = ipt_dev_opt(&rd, opt, true);
		} else if (ipt_is(opt, "-f", "--fragment") && ipt->af == 4) {
			r->m.frag = 1u << TM_FRAGMENT_LATER;
			err = ipt_match_word(&rd, &pos, "fragment") ||
			      ipt_match_word(&rd, &pos, "later");
		} else if (ipt_is(opt, "-m", "--match")) {
			static const char * const known[] = {
				"tcp", "udp", "multiport", "conntrack",
				"state", "icmp", "icmp6", "comment", "mark",
				"dscp", "limit",
			};
			unsigned int i;

			if (ipt_value(&rd, opt, &val, &pos))
				return TMCTL_EPARSE;
			for (i = 0; i < ARRAY_SIZE(known); i++)
				if (!strcmp(val, known[i]))
					break;
			if (i == ARRAY_SIZE(known))
				return ipt_error(&pos, 0,
						 "'-m %s': match that cannot be imported",
						 val);
			rd.module = val;
			continue;
		} else if ((!strcmp(mod, "tcp") || !strcmp(mod, "udp")) &&
			   (ipt_is(opt, "--sport", "--source-port") ||
			    ipt_is(opt, "--dport", "--destination-port"))) {
			err = ipt_ports(&rd, opt, strstr(opt, "d") == opt + 2 ||
					strstr(opt, "destination"), false);
		} else if (!strcmp(mod, "multiport") &&
			   (ipt_is(opt, "--sports", "--source-ports") ||
			    ipt_is(opt, "--dports", "--destination-ports"))) {
			err = ipt_ports(&rd, opt, opt[2] == 'd', true);
		} else if (!strcmp(mod, "tcp") && !strcmp(opt, "--tcp-flags")) {
			err = ipt_tcp_flags_opt(&rd);
		} else if (!strcmp(mod, "tcp") && !strcmp(opt, "--syn")) {
			/* --tcp-flags FIN,SYN,RST,ACK SYN */
			err = ipt_tcp_flags_words(&rd, &pos, 0x17, 0x02);
		} else if ((!strcmp(mod, "conntrack") &&
			    !strcmp(opt, "--ctstate")) ||
			   (!strcmp(mod, "state") && !strcmp(opt, "--state"))) {
			err = ipt_ct_opt(&rd, opt);
		} else if ((!strcmp(mod, "icmp") && ipt->af == 4 &&
			    !strcmp(opt, "--icmp-type")) ||
			   (!strcmp(mod, "icmp6") && ipt->af == 6 &&
			    !strcmp(opt, "--icmpv6-type"))) {
			err = ipt_icmp_opt(&rd, opt);
		} else if (!strcmp(mod, "comment") &&
			   !strcmp(opt, "--comment")) {
			if (ipt_value(&rd, opt, &val, &pos))
				return TMCTL_EPARSE;
			err = ipt_match_word(&rd, &pos, "comment") ||
			      ipt_match_word(&rd, &pos, val);
		} else if (!strcmp(mod, "mark") && !strcmp(opt, "--mark")) {
			err = ipt_mark_opt(&rd);
		} else if (!strcmp(mod, "dscp") && !strcmp(opt, "--dscp")) {
			err = ipt_dscp_opt(&rd);
		} else if (!strcmp(mod, "limit") && !strcmp(opt, "--limit")) {
			rd.limit = true;
			err = ipt_limit_opt(&rd);
		} else if (ipt_is(opt, "-j", "--jump")) {
			return ipt_target(&rd);
		} else if (ipt_is(opt, "-g", "--goto")) {
			return ipt_error(&pos, 0,
					 "'%s': a goto to another chain cannot be imported",
					 opt);
		} else {
			return ipt_error(&pos, 0, "'%s': %s%s%s that cannot be imported",
					 opt, rd.module ? "option of -m " : "option",
					 rd.module ? rd.module : "",
					 rd.module ? "" : "");
		}
		if (err)
			return TMCTL_EPARSE;
	}
	if (rd.limit)
		return ipt_error(&r->rate_pos, 0,
				 "-m limit: only a LOG or NFLOG rule's rate can be imported");
	return 0;
}

/* "# Generated by ip6tables-save ..." read as iptables-save's, or back. */
static int ipt_header(void)
{
	const char *other = ipt->af == 4 ? "ip6tables-save" : "iptables-save";
	const char *p = ipt->text;
	size_t n = strlen(other);

	if (strncmp(p, "# Generated by ", 15))
		return 0;
	p += 15;
	if (strncmp(p, other, n) || (p[n] != ' ' && p[n] != '\n'))
		return 0;
	return ipt_error(&(struct tm_pos){ 1, 16 }, 0,
			 "output of %s: import it with --format %s", other,
			 other);
}

/*
 * Without a chain named: the one chain of the file with rules, as
 * "TABLE:CHAIN".  Read from a copy, as splitting writes over a line.
 */
static int ipt_pick_chain(const char **want)
{
	char *copy = ipt_keep(strdup(ipt->text)), *line, *next, *table = "";
	char *found = NULL;
	unsigned int lno = 0;
	struct ipt_toks t;

	for (line = copy; line; line = next) {
		lno++;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (ipt_split(line, lno, &t))
			return TMCTL_EPARSE;
		if (t.n && t.s[0][0] == '*')
			table = t.s[0] + 1;
		if (t.n && t.s[0][0] == '[' && t.n > 1) {
			t.s[0] = t.s[1];
			t.s[1] = t.n > 2 ? t.s[2] : "";
			t.pos[1] = t.pos[2];
		}
		if (t.n < 2 || (strcmp(t.s[0], "-A") &&
				strcmp(t.s[0], "--append")))
			continue;
		if (!found) {
			found = ipt_fmt("%s:%s", table, t.s[1]);
		} else if (strncmp(found, table, strlen(table)) ||
			   found[strlen(table)] != ':' ||
			   strcmp(found + strlen(table) + 1, t.s[1])) {
			return ipt_error(&t.pos[1], 0,
					 "rules of %s:%s after those of %s: name the chain to import",
					 table, t.s[1], found);
		}
	}
	if (!found)
		return ipt_error(NULL, 0, "no rules (no -A line)");
	*want = found;
	return 0;
}

/*
 * Reading the file: the rules of chain @want ("TABLE:CHAIN", or "CHAIN"
 * of the filter table, or NULL for the one chain with rules) and its
 * policy.
 */
static int ipt_read(const char *want)
{
	const char *want_table = "filter", *want_chain, *colon;
	char *line, *next, *cur_table = NULL;
	unsigned int lno = 0;
	bool found = false;
	struct ipt_toks t;

	if (ipt_header())
		return TMCTL_EPARSE;
	if (!want && ipt_pick_chain(&want))
		return TMCTL_EPARSE;
	want_chain = want;
	colon = strchr(want, ':');
	if (colon) {
		want_table = ipt_fmt("%.*s", (int)(colon - want), want);
		want_chain = colon + 1;
	}
	ipt->ipt_table = (char *)want_table;
	ipt->chain = (char *)want_chain;
	ipt->policy = -1;
	for (line = ipt->text; line; line = next) {
		lno++;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (ipt_split(line, lno, &t))
			return TMCTL_EPARSE;
		if (!t.n || t.s[0][0] == '#')
			continue;
		if (t.s[0][0] == '*') {
			cur_table = t.s[0] + 1;
			continue;
		}
		if (!strcmp(t.s[0], "COMMIT")) {
			cur_table = NULL;
			continue;
		}
		if (!cur_table)
			return ipt_error(&t.pos[0], 0,
					 "'%s' outside a table ('*filter' ... 'COMMIT')",
					 t.s[0]);
		if (strcmp(cur_table, want_table))
			continue;
		if (t.s[0][0] == ':') {
			ipt->chains = tm_grow(ipt->chains, &ipt->chains_cap,
					      ipt->nchains + 1,
					      sizeof(*ipt->chains));
			ipt->chains[ipt->nchains++] = t.s[0] + 1;
			if (strcmp(t.s[0] + 1, want_chain))
				continue;
			found = true;
			ipt->policy_pos = t.pos[t.n > 1];
			if (t.n > 1 && !strcmp(t.s[1], "ACCEPT"))
				ipt->policy = IPT_ACCEPT;
			else if (t.n > 1 && !strcmp(t.s[1], "DROP"))
				ipt->policy = IPT_DROP;
			else if (t.n < 2 || strcmp(t.s[1], "-"))
				return ipt_error(&ipt->policy_pos, 0,
						 "'%s': a chain's policy is ACCEPT, DROP or '-'",
						 t.n > 1 ? t.s[1] : "");
			continue;
		}
		/* iptables-save -c: "[PACKETS:BYTES] -A ..." */
		if (t.s[0][0] == '[' && t.n > 1) {
			t.n--;
			memmove(t.s, t.s + 1, t.n * sizeof(t.s[0]));
			memmove(t.pos, t.pos + 1, t.n * sizeof(t.pos[0]));
		}
		if (strcmp(t.s[0], "-A") && strcmp(t.s[0], "--append"))
			return ipt_error(&t.pos[0], 0,
					 "'%s': iptables-save output has -A lines here",
					 t.s[0]);
		if (t.n < 2)
			return ipt_error(&t.pos[0], 0, "-A without a chain");
		if (strcmp(t.s[1], want_chain))
			continue;
		if (!found)
			return ipt_error(&t.pos[1], 0,
					 "rules of chain %s before its ':%s' line",
					 want_chain, want_chain);
		if (ipt->n >= TM_RULE_ID_MAX - 1)
			return ipt_error(&t.pos[0], 0, "more rules than ids");
		ipt->rules = tm_grow(ipt->rules, &ipt->cap, ipt->n + 1,
				     sizeof(*ipt->rules));
		memset(&ipt->rules[ipt->n], 0, sizeof(ipt->rules[0]));
		/* The tokens point into the text, which lives on. */
		if (ipt_read_rule(&t, 2, &ipt->rules[ipt->n]))
			return TMCTL_EPARSE;
		ipt->n++;
	}
	if (!found)
		return ipt_error(NULL, 0, "no chain %s in table %s",
				 want_chain, want_table);
	return 0;
}

/* Overlaps and covers: two matches share a packet; one has all of another's. */

static bool ipt_bits_eq(const uint8_t *a, const uint8_t *b, unsigned int len)
{
	unsigned int i = len / 8, rest = len % 8;

	if (memcmp(a, b, i))
		return false;
	return !rest || !((a[i] ^ b[i]) & (uint8_t)(0xff00 >> rest));
}

static bool ipt_pfx_overlap(const uint8_t *a, uint8_t alen, const uint8_t *b,
			    uint8_t blen)
{
	return ipt_bits_eq(a, b, alen < blen ? alen : blen);
}

/* @a (length @alen) holds @b. */
static bool ipt_pfx_covers(const uint8_t *a, uint8_t alen, const uint8_t *b,
			   uint8_t blen)
{
	return alen <= blen && ipt_bits_eq(a, b, alen);
}

static bool ipt_range_overlap(const struct ipt_range *a,
			      const struct ipt_range *b)
{
	return a->lo <= b->hi && b->lo <= a->hi;
}

static bool ipt_range_covers(const struct ipt_range *a,
			     const struct ipt_range *b)
{
	return a->lo <= b->lo && b->hi <= a->hi;
}

static bool ipt_ports_overlap(const struct ipt_range *a, unsigned int na,
			      const struct ipt_range *b, unsigned int nb)
{
	unsigned int i, j;

	if (!na || !nb)
		return true;
	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			if (ipt_range_overlap(&a[i], &b[j]))
				return true;
	return false;
}

/* Each of @b's ranges within one of @a's: less than all it could be. */
static bool ipt_ports_cover(const struct ipt_range *a, unsigned int na,
			    const struct ipt_range *b, unsigned int nb)
{
	unsigned int i, j;

	if (!na)
		return true;
	if (!nb)
		return false;
	for (j = 0; j < nb; j++) {
		for (i = 0; i < na; i++)
			if (ipt_range_covers(&a[i], &b[j]))
				break;
		if (i == na)
			return false;
	}
	return true;
}

static bool ipt_str_overlap(const char *a, const char *b)
{
	return !a || !b || !strcmp(a, b);
}

static bool ipt_str_covers(const char *a, const char *b)
{
	return !a || (b && !strcmp(a, b));
}

/* Sets of bits, 0 for all. */
static bool ipt_bits_overlap(uint64_t a, uint64_t b)
{
	return !a || !b || (a & b);
}

static bool ipt_bits_cover(uint64_t a, uint64_t b)
{
	return !a || (b && !(b & ~a));
}

/* Bits under a mask (TCP flags, marks), mask 0 for all. */
static bool ipt_masked_overlap(uint32_t av, uint32_t am, uint32_t bv,
			       uint32_t bm)
{
	return !((am & bm) & (av ^ bv));
}

static bool ipt_masked_cover(uint32_t av, uint32_t am, uint32_t bv,
			     uint32_t bm)
{
	return !(am & ~bm) && !((av ^ bv) & am);
}

static bool ipt_overlap(const struct ipt_match *a, const struct ipt_match *b)
{
	return ipt_pfx_overlap(a->src, a->src_len, b->src, b->src_len) &&
	       ipt_pfx_overlap(a->dst, a->dst_len, b->dst, b->dst_len) &&
	       (a->proto < 0 || b->proto < 0 || a->proto == b->proto) &&
	       ipt_ports_overlap(a->sport, a->nsport, b->sport, b->nsport) &&
	       ipt_ports_overlap(a->dport, a->ndport, b->dport, b->ndport) &&
	       ipt_str_overlap(a->iif, b->iif) &&
	       ipt_str_overlap(a->oif, b->oif) &&
	       ipt_bits_overlap(a->ct, b->ct) &&
	       ipt_masked_overlap(a->tcp_val, a->tcp_mask, b->tcp_val,
				  b->tcp_mask) &&
	       ipt_range_overlap(&a->itype, &b->itype) &&
	       ipt_range_overlap(&a->icode, &b->icode) &&
	       ipt_masked_overlap(a->mark, a->mark_mask, b->mark,
				  b->mark_mask) &&
	       ipt_bits_overlap(a->dscp, b->dscp) &&
	       ipt_bits_overlap(a->frag, b->frag);
}

/* Every packet @b matches, @a matches. */
static bool ipt_covers(const struct ipt_match *a, const struct ipt_match *b)
{
	return ipt_pfx_covers(a->src, a->src_len, b->src, b->src_len) &&
	       ipt_pfx_covers(a->dst, a->dst_len, b->dst, b->dst_len) &&
	       (a->proto < 0 || a->proto == b->proto) &&
	       ipt_ports_cover(a->sport, a->nsport, b->sport, b->nsport) &&
	       ipt_ports_cover(a->dport, a->ndport, b->dport, b->ndport) &&
	       ipt_str_covers(a->iif, b->iif) &&
	       ipt_str_covers(a->oif, b->oif) &&
	       ipt_bits_cover(a->ct, b->ct) &&
	       ipt_masked_cover(a->tcp_val, a->tcp_mask, b->tcp_val,
				b->tcp_mask) &&
	       ipt_range_covers(&a->itype, &b->itype) &&
	       ipt_range_covers(&a->icode, &b->icode) &&
	       ipt_masked_cover(a->mark, a->mark_mask, b->mark,
				b->mark_mask) &&
	       ipt_bits_cover(a->dscp, b->dscp) &&
	       ipt_bits_cover(a->frag, b->frag);
}

/*
 * Each rule's effect, from the last up: see the head of the file.  A rule
 * that goes on takes that of the first later rule sharing a packet with
 * it, which must match all of its packets, or the chain's policy.
 */
static int ipt_resolve(void)
{
	struct ipt_rule *r, *nx;
	size_t i, j;

	for (i = ipt->n; i-- > 0;) {
		r = &ipt->rules[i];
		if (r->target == IPT_RETURN)
			continue;
		if (r->target != IPT_LOG && r->target != IPT_MARK) {
			r->act = (int)i;
			continue;
		}
		for (j = i + 1; j < ipt->n; j++)
			if (ipt_overlap(&ipt->rules[j].m, &r->m))
				break;
		if (j < ipt->n) {
			nx = &ipt->rules[j];
			if (!ipt_covers(&nx->m, &r->m))
				return ipt_error(&r->tpos, 0,
						 "the packets of this %s go on to line %u, which matches only some of them: a table takes one rule per packet, so its packets must all meet the same next rule",
						 r->tname, nx->line);
			r->act = nx->act;
			r->log = nx->log;
			r->mark = nx->mark;
		}
		if (r->target == IPT_LOG) {
			if (r->log >= 0)
				return ipt_error(&r->tpos, 0,
						 "its packets are logged again at line %u: a rule logs once",
						 ipt->rules[r->log].line);
			r->log = (int)i;
		} else if (r->mark < 0) {
			/* A later MARK sets the mark last: it stays. */
			r->mark = (int)i;
		}
	}
	return 0;
}

static void ipt_add_words(struct ipt_word *out, unsigned int *n,
			  const struct ipt_word *w, unsigned int nw)
{
	memcpy(out + *n, w, nw * sizeof(*w));
	*n += nw;
}

/* The words of the action a rule's effect makes, into @out. */
static int ipt_action_words(struct ipt_rule *r, struct ipt_word *out,
			    unsigned int *n, const struct tm_pos *pos)
{
	const struct ipt_rule *act = r->act >= 0 ? &ipt->rules[r->act] : NULL;
	const struct ipt_rule *mark = r->mark >= 0 ? &ipt->rules[r->mark] : NULL;
	enum ipt_target t = act ? act->target : (enum ipt_target)ipt->policy;
	static const char * const policy_words[] = {
		[IPT_ACCEPT] = "accept",
		[IPT_DROP] = "drop",
	};

	if (mark && t == IPT_QUEUE)
		return ipt_error(&mark->tpos, 0,
				 "its packets go on to NFQUEUE at line %u: a rule cannot set a mark and queue",
				 act->line);
	if (mark && (t == IPT_ACCEPT || (!act && ipt->policy < 0))) {
		/*
		 * Mark, then the table's policy: for a user chain's end, or
		 * for ACCEPT if the table's is accept (ipt_check_table()).
		 */
		ipt_add_words(out, n, mark->tw, mark->ntw);
		r->mark_accept = t == IPT_ACCEPT;
	} else if (act) {
		/* a dropped packet's mark is seen by nothing */
		ipt_add_words(out, n, act->tw, act->ntw);
	} else {
		out[*n].s = ipt->policy < 0 ? "count" :
			    (char *)policy_words[ipt->policy];
		out[*n].pos = *pos;
		(*n)++;
	}
	if (r->log >= 0) {
		const struct ipt_rule *log = &ipt->rules[r->log];

		ipt_add_words(out, n, log->tw, log->ntw);
		out[*n].s = "rate";
		out[*n].pos = log->tpos;
		out[*n + 1].s = ipt_fmt("%u", log->rate ? log->rate :
					IPT_LOG_RATE);
		out[*n + 1].pos = log->rate ? log->rate_pos : log->tpos;
		*n += 2;
	}
	return 0;
}

/* The requests: rule I's words, and what tm_rule_parse() made of them. */
#define IPT_REQ_WORDS	(16 + IPT_WORDS_MAX + 16)

struct ipt_req {
	char *argv[IPT_REQ_WORDS];
	struct tm_pos pos[IPT_REQ_WORDS];
	int argc;
	struct tm_rule_req req;
};

static struct ipt_req *ipt_reqs;
static size_t ipt_nreqs;

static void ipt_put_word(struct ipt_req *q, const char *s,
			 const struct tm_pos *pos)
{
	q->argv[q->argc] = (char *)s;
	q->pos[q->argc++] = *pos;
}

static struct tm_words ipt_req_words(struct ipt_req *q)
{
	return (struct tm_words){
		.argv = q->argv, .pos = q->pos, .argc = q->argc,
		.what = "import", .file = ipt->path,
		.end = q->pos[q->argc - 1],
	};
}

/* "TABLE id I+1 priority P family F", made by line @line. */
static void ipt_head(struct ipt_req *q, size_t i, unsigned int line)
{
	struct tm_pos pos = { line, 1 };

	ipt_put_word(q, ipt->table, &pos);
	ipt_put_word(q, "id", &pos);
	ipt_put_word(q, ipt_fmt("%zu", i + 1), &pos);
	ipt_put_word(q, "priority", &pos);
	ipt_put_word(q, ipt_fmt("%zu", (i + 1) * IPT_PRIO_STEP), &pos);
	ipt_put_word(q, "family", &pos);
	ipt_put_word(q, ipt->af == 4 ? "ip" : "ip6", &pos);
}

/* Every request's words and parse; errors reported, all of them. */
static int ipt_write(void)
{
	struct ipt_word act[24];
	bool last = ipt->policy >= 0;
	struct tm_words w;
	unsigned int na, k;
	int bad = 0;
	size_t i;

	ipt_nreqs = ipt->n + last;
	ipt_reqs = calloc(ipt_nreqs ? ipt_nreqs : 1, sizeof(*ipt_reqs));
	if (!ipt_reqs)
		ipt_keep(NULL);
	for (i = 0; i < ipt->n; i++) {
		struct ipt_rule *r = &ipt->rules[i];
		struct ipt_req *q = &ipt_reqs[i];
		struct tm_pos pos = { r->line, 1 };

		ipt_head(q, i, r->line);
		for (k = 0; k < r->nw; k++)
			ipt_put_word(q, r->w[k].s, &r->w[k].pos);
		na = 0;
		if (ipt_action_words(r, act, &na, &pos)) {
			bad++;
			continue;
		}
		for (k = 0; k < na; k++)
			ipt_put_word(q, act[k].s, &act[k].pos);
		w = ipt_req_words(q);
		if (tm_rule_parse(&w, TM_VERB_ADD, &q->req))
			bad++;
	}
	if (last) {
		struct ipt_req *q = &ipt_reqs[ipt->n];

		ipt_head(q, ipt->n, ipt->policy_pos.line);
		ipt_put_word(q, "comment", &ipt->policy_pos);
		ipt_put_word(q, ipt_fmt("policy of %s", ipt->chain),
			     &ipt->policy_pos);
		ipt_put_word(q, ipt->policy == IPT_ACCEPT ? "accept" : "drop",
			     &ipt->policy_pos);
		w = ipt_req_words(q);
		if (tm_rule_parse(&w, TM_VERB_ADD, &q->req))
			bad++;
	}
	return bad ? TMCTL_EPARSE : 0;
}

/*
 * What the table's policy changes: a base chain's policy is a last rule
 * only if it differs, and a MARK that goes on to be accepted is a mark
 * rule only if the table's policy accepts.
 */
static int ipt_check_table(void)
{
	int policy = ipt->policy == IPT_ACCEPT ? TM_POLICY_ACCEPT :
						 TM_POLICY_DROP;
	size_t i;

	for (i = 0; i < ipt->n; i++) {
		const struct ipt_rule *r = &ipt->rules[i];

		if (r->mark_accept && ipt->table_policy == TM_POLICY_DROP)
			return ipt_error(&ipt->rules[r->mark].tpos, 0,
					 "its packets go on to be accepted, but a mark rule hands them to the table's policy, and table %s drops",
					 ipt->table);
	}
	if (ipt->policy >= 0 && ipt->table_policy == policy) {
		tm_rule_req_free(&ipt_reqs[ipt->n].req);
		ipt_nreqs--;
	}
	return 0;
}

static struct nlmsghdr *ipt_txn_put(void *ctx, size_t i, char *buf,
				    struct tm_attr_map *map)
{
	struct nlmsghdr *nlh;

	nlh = tm_nl_put_header(buf, tm_nl_family(), TM_CMD_RULE_NEW, 0);
	tm_rule_put(nlh, &ipt_reqs[i].req, map);
	return nlh;
}

static void ipt_txn_error(void *ctx, size_t i, const struct tm_nlerr *e,
			  const struct tm_attr_map *map)
{
	const struct ipt_req *q = &ipt_reqs[i];
	int word = map ? tm_attr_map_word(map, e->offs) : -1;

	if (word >= 0 && word < q->argc)
		fprintf(stderr, "%s:%u:%u: error: ", ipt->path,
			q->pos[word].line, q->pos[word].col);
	else
		fprintf(stderr, "%s:%u: error: ", ipt->path, q->pos[0].line);
	tm_nl_print_reason(stderr, e);
	fputc('\n', stderr);
}

static int ipt_table_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TM_A_MAX + 1];

	if (tm_nl_parse(nlh, tb) < 0)
		return MNL_CB_ERROR;
	if (tb[TM_A_TABLE_POLICY])
		ipt->table_policy = mnl_attr_get_u8(tb[TM_A_TABLE_POLICY]);
	if (tb[TM_A_TABLE_FAMILY])
		ipt->table_family = mnl_attr_get_u8(tb[TM_A_TABLE_FAMILY]);
	return MNL_CB_OK;
}

/* The table's family and policy, which the rules must fit. */
static int ipt_table_info(void)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	int ret;

	nlh = tm_nl_request(buf, TM_CMD_TABLE_GET, 0);
	mnl_attr_put_strz(nlh, TM_A_TABLE_NAME, ipt->table);
	ret = tm_nl_talk(nlh, ipt_table_cb, NULL, "import");
	if (ret)
		return ret;
	if (ipt->table_family == (ipt->af == 4 ? TM_FAMILY_IPV6 :
						 TM_FAMILY_IPV4))
		return tm_parse_error("import: table %s is %s, the rules of %s are IPv%u",
				      ipt->table,
				      tm_family_names[ipt->table_family],
				      ipt->path, ipt->af);
	return 0;
}

static void ipt_echo(void)
{
	size_t i;
	int k;

	for (i = 0; i < ipt_nreqs; i++) {
		fputs("rule add", stdout);
		for (k = 0; k < ipt_reqs[i].argc; k++) {
			putchar(' ');
			tm_print_word(stdout, ipt_reqs[i].argv[k]);
		}
		putchar('\n');
	}
}

static void ipt_free(void)
{
	size_t i;

	for (i = 0; i < ipt_nreqs; i++)
		tm_rule_req_free(&ipt_reqs[i].req);
	free(ipt_reqs);
	for (i = 0; i < ipt->nstrs; i++)
		free(ipt->strs[i]);
	free(ipt->strs);
	free(ipt->rules);
	free(ipt->chains);
	free(ipt->text);
}

/* import --format iptables-save|ip6tables-save TABLE FILE [CHAIN] */
int tm_import_iptables(int argc, char **argv, unsigned int af)
{
	struct ipt_import imp = {
		.af = (uint8_t)af,
		.table_policy = -1,
		.table_family = -1,
	};
	struct tm_txn_ops ops = {
		.put = ipt_txn_put,
		.error = ipt_txn_error,
	};
	struct tm_words w = { .argv = argv, .argc = argc, .what = "import" };
	bool kernel;
	int ret;

	if (tm_parse_table(&w, 0))
		return TMCTL_EPARSE;
	if (argc < 2)
		return tm_werror(&w, 1, "missing iptables-save file");
	if (argc > 3)
		return tm_werror(&w, 3, "unexpected '%s' after the chain",
				 argv[3]);
	ipt = &imp;
	imp.table = argv[0];
	imp.path = argv[1];
	imp.text = tm_read_file(argv[1], NULL);
	if (!imp.text)
		return TMCTL_EPARSE;
	/* The file's errors first, then the table's family and policy. */
	ret = ipt_read(argc > 2 ? argv[2] : NULL);
	if (!ret)
		ret = ipt_resolve();
	if (!ret)
		ret = ipt_write();
	kernel = !tmctl.check || tm_nl_module_loaded();
	if (!ret && kernel)
		ret = ipt_table_info();
	if (!ret && kernel)
		ret = ipt_check_table();
	if (!ret && tmctl.echo)
		ipt_echo();
	if (!ret && kernel && ipt_nreqs) {
		ops.n = ipt_nreqs;
		ops.dry_run = tmctl.check;
		ret = tm_txn_run(&ops, argv[1]);
	}
	if (!ret && tmctl.verbose)
		fprintf(stderr, "%s: %zu rules of %s:%s, %zu table rules%s\n",
			imp.path, imp.n, imp.ipt_table, imp.chain, ipt_nreqs,
			kernel ? "" : " (parsed only: the tuplemerge module is not loaded)");
	ipt_free();
	ipt = NULL;
	return ret;
}
