// SPDX-License-Identifier: GPL-2.0
/*
 * The words of tmctl commands: the error messages about a word (its
 * command, its file position or its JSON key); keywords and their
 * abbreviations, numbers, prefixes, port ranges, protocols and devices,
 * each with an error message naming the offending word; the names of the ABI's enums; and the text
 * forms that rule listings print, which these parsers read back.
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tmctl.h"

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

bool tm_matches(const char *arg, const char *keyword)
{
	size_t len = strlen(arg);

	return len && len <= strlen(keyword) && !strncmp(arg, keyword, len);
}

void *tm_grow(void *p, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 64;

	if (need <= *cap)
		return p;
	while (n < need)
		n *= 2;
	p = realloc(p, n * elem);
	if (!p) {
		fputs("tmctl: out of memory\n", stderr);
		exit(TMCTL_EPARSE);
	}
	*cap = n;
	return p;
}

struct tm_words tm_words_shift(const struct tm_words *w, int n)
{
	struct tm_words s = *w;

	if (n > s.argc)
		n = s.argc;
	s.argv += n;
	if (s.pos)
		s.pos += n;
	if (s.keys)
		s.keys += n;
	s.argc -= n;
	return s;
}

int tm_werror(const struct tm_words *w, int i, const char *fmt, ...)
{
	va_list ap;

	if (w->path) {
		const char *key = w->keys && i < w->argc ? w->keys[i] : NULL;

		fprintf(stderr, "%s: %s%s%s: error: ", w->file, w->path,
			key ? "." : "", key ? key : "");
	} else if (w->file) {
		const struct tm_pos *p = i < w->argc ? &w->pos[i] : &w->end;

		fprintf(stderr, "%s:%u:%u: error: ", w->file, p->line, p->col);
	} else {
		fprintf(stderr, "tmctl: %s: ", w->what);
	}
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return TMCTL_EPARSE;
}

const char * const tm_family_names[TM_FAMILY_MAX + 1] = {
	[TM_FAMILY_IPV4] = "ip",
	[TM_FAMILY_IPV6] = "ip6",
	[TM_FAMILY_INET] = "inet",
};

const char * const tm_hook_names[TM_HOOK_MAX + 1] = {
	[TM_HOOK_PREROUTING] = "prerouting",
	[TM_HOOK_INPUT] = "input",
	[TM_HOOK_FORWARD] = "forward",
	[TM_HOOK_OUTPUT] = "output",
	[TM_HOOK_POSTROUTING] = "postrouting",
};

const char * const tm_policy_names[TM_POLICY_MAX + 1] = {
	[TM_POLICY_ACCEPT] = "accept",
	[TM_POLICY_DROP] = "drop",
};

const char * const tm_engine_names[TM_ENG_MAX + 1] = {
	[TM_ENG_TUPLEMERGE] = "tuplemerge",
	[TM_ENG_TSS] = "tss",
	[TM_ENG_LINEAR] = "linear",
};

const char * const tm_action_names[TM_ACT_MAX + 1] = {
	[TM_ACT_ACCEPT] = "accept",
	[TM_ACT_DROP] = "drop",
	[TM_ACT_REJECT] = "reject",
	[TM_ACT_MARK] = "mark",
	[TM_ACT_COUNT] = "count",
	[TM_ACT_LB] = "lb",
};

const char * const tm_reject_names[TM_REJECT_MAX + 1] = {
	[TM_REJECT_AUTO] = "auto",
	[TM_REJECT_TCP_RESET] = "tcp-reset",
	[TM_REJECT_PORT_UNREACH] = "port-unreachable",
	[TM_REJECT_HOST_UNREACH] = "host-unreachable",
	[TM_REJECT_ADMIN] = "admin-prohibited",
};

const char * const tm_ct_state_names[TM_CT_STATE_MAX + 1] = {
	[TM_CT_STATE_INVALID] = "invalid",
	[TM_CT_STATE_NEW] = "new",
	[TM_CT_STATE_ESTABLISHED] = "established",
	[TM_CT_STATE_RELATED] = "related",
	[TM_CT_STATE_UNTRACKED] = "untracked",
};

const char * const tm_fragment_names[TM_FRAGMENT_MAX + 1] = {
	[TM_FRAGMENT_NONE] = "none",
	[TM_FRAGMENT_FIRST] = "first",
	[TM_FRAGMENT_LATER] = "later",
};

/* The TCP header's flags, bit 0 first, as nftables names them. */
const char * const tm_tcp_flag_names[8] = {
	"fin", "syn", "rst", "psh", "ack", "urg", "ecn", "cwr",
};

/* IP protocols known by name; any other is printed as its number. */
static const struct {
	const char *name;
	uint8_t proto;
} tm_protos[] = {
	{ "tcp", 6 },
	{ "udp", 17 },
	{ "icmp", 1 },
	{ "icmpv6", 58 },
	{ "sctp", 132 },
	{ "udplite", 136 },
	{ "dccp", 33 },
	{ "gre", 47 },
	{ "esp", 50 },
	{ "ah", 51 },
};

const char *tm_name(const char * const *names, unsigned int n,
		    unsigned int i)
{
	return i < n && names[i] ? names[i] : "?";
}

const char *tm_af_name(uint8_t af)
{
	return af == 4 ? "IPv4" : "IPv6";
}

const char *tm_family_name(unsigned int i)
{
	return tm_name(tm_family_names, ARRAY_SIZE(tm_family_names), i);
}

const char *tm_hook_name(unsigned int i)
{
	return tm_name(tm_hook_names, ARRAY_SIZE(tm_hook_names), i);
}

const char *tm_policy_name(unsigned int i)
{
	return tm_name(tm_policy_names, ARRAY_SIZE(tm_policy_names), i);
}

const char *tm_engine_name(unsigned int i)
{
	return tm_name(tm_engine_names, ARRAY_SIZE(tm_engine_names), i);
}

const char *tm_action_name(unsigned int i)
{
	return tm_name(tm_action_names, ARRAY_SIZE(tm_action_names), i);
}

const char *tm_reject_name(unsigned int i)
{
	return tm_name(tm_reject_names, ARRAY_SIZE(tm_reject_names), i);
}

int tm_keyword(const struct tm_words *w, int i, const struct tm_keyword *kw,
	       unsigned int n)
{
	const char *arg = w->argv[i];
	int found = -1, count = 0;
	unsigned int k;
	char list[256];
	size_t used = 0;

	/* Compare the first bytes inline: batches parse millions of words. */
	for (k = 0; k < n; k++)
		if (arg[0] == kw[k].name[0] && !strcmp(arg, kw[k].name))
			return k;
	list[0] = '\0';
	for (k = 0; k < n; k++) {
		if (!tm_matches(arg, kw[k].name))
			continue;
		if (!count++)
			found = k;
		if (used < sizeof(list))
			used += snprintf(list + used, sizeof(list) - used,
					 "%s%s", used ? ", " : "",
					 kw[k].name);
	}
	if (count == 1)
		return found;
	if (count)
		tm_werror(w, i, "ambiguous keyword '%s' (%s)", arg, list);
	else
		tm_werror(w, i, "unknown keyword '%s'", arg);
	return -1;
}

int tm_parse_name(const struct tm_words *w, int i, const char *what,
		  const char * const *names, unsigned int first,
		  unsigned int last, uint8_t *val)
{
	char list[256];
	size_t used = 0;
	unsigned int k;

	for (k = first; k <= last; k++) {
		if (names[k] && !strcmp(w->argv[i], names[k])) {
			*val = k;
			return 0;
		}
	}
	list[0] = '\0';
	for (k = first; k <= last && used < sizeof(list); k++)
		used += snprintf(list + used, sizeof(list) - used, "%s%s",
				 k == first ? "" : k == last ? " or " : ", ",
				 names[k]);
	return tm_werror(w, i, "unknown %s '%s' (expected %s)", what,
			 w->argv[i], list);
}

/* Decimal, or hex after 0x; no sign, no blanks.  false on overflow too. */
static bool tm_strtou64(const char *s, uint64_t *val)
{
	unsigned int base = 10, d;
	uint64_t v = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return false;
		if (v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	*val = v;
	return true;
}

int tm_parse_u64(const struct tm_words *w, int i, const char *what,
		 uint64_t min, uint64_t max, uint64_t *val)
{
	if (!tm_strtou64(w->argv[i], val) || *val < min || *val > max)
		return tm_werror(w, i, "bad %s '%s' (expected %llu..%llu)",
				 what, w->argv[i], (unsigned long long)min,
				 (unsigned long long)max);
	return 0;
}

int tm_parse_u32(const struct tm_words *w, int i, const char *what,
		 uint32_t min, uint32_t max, uint32_t *val)
{
	uint64_t v;

	if (tm_parse_u64(w, i, what, min, max, &v))
		return TMCTL_EPARSE;
	*val = (uint32_t)v;
	return 0;
}

int tm_parse_s32(const struct tm_words *w, int i, const char *what,
		 int32_t *val)
{
	const char *arg = w->argv[i];
	bool neg = arg[0] == '-';
	uint64_t v;

	if (!tm_strtou64(arg + neg, &v) ||
	    v > (uint64_t)INT32_MAX + neg)
		return tm_werror(w, i, "bad %s '%s' (expected %d..%d)", what,
				 arg, INT32_MIN, INT32_MAX);
	*val = neg ? (int32_t)(-(int64_t)v) : (int32_t)v;
	return 0;
}

const char *tm_ms_str(uint32_t ms, char *buf, size_t len)
{
	if (ms % 1000)
		snprintf(buf, len, "%ums", ms);
	else
		snprintf(buf, len, "%us", ms / 1000);
	return buf;
}

int tm_parse_ms(const struct tm_words *w, int i, const char *what,
		uint32_t min, uint32_t max, uint32_t *ms)
{
	const char *arg = w->argv[i];
	size_t n = strspn(arg, "0123456789");
	const char *unit = arg + n;
	char lo[16], hi[16];
	uint64_t v = 0;
	size_t k;

	/* Digits past max stop: v stays above it, and far from overflow. */
	for (k = 0; k < n && v <= max; k++)
		v = 10 * v + (uint64_t)(arg[k] - '0');
	if (!*unit || !strcmp(unit, "s"))
		v *= 1000;
	else if (strcmp(unit, "ms"))
		n = 0;
	if (!n || v < min || v > max)
		return tm_werror(w, i, "bad %s '%s' (expected %s..%s)", what,
				 arg, tm_ms_str(min, lo, sizeof(lo)),
				 tm_ms_str(max, hi, sizeof(hi)));
	*ms = (uint32_t)v;
	return 0;
}

int tm_parse_table(const struct tm_words *w, int i)
{
	if (i >= w->argc)
		return tm_werror(w, i, "missing table name");
	if (!w->argv[i][0])
		return tm_werror(w, i, "table name is empty");
	if (strlen(w->argv[i]) >= TM_NAME_MAX)
		return tm_werror(w, i,
				 "table name '%s' is longer than %d bytes",
				 w->argv[i], TM_NAME_MAX - 1);
	return 0;
}

/* Clear the bits of @p past its length; whether any was set. */
static bool tm_prefix_mask(struct tm_prefix *p)
{
	unsigned int bytes = p->af == 4 ? 4 : 16, i, keep;
	bool changed = false;
	uint8_t m;

	for (i = 0; i < bytes; i++) {
		keep = p->len > 8 * i ? p->len - 8 * i : 0;
		m = keep >= 8 ? 0xff : (uint8_t)(0xff00 >> keep);
		if (p->addr[i] & ~m)
			changed = true;
		p->addr[i] &= m;
	}
	return changed;
}

const char *tm_prefix_str(const struct tm_prefix *p, bool host_short,
			  char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];
	unsigned int max = p->af == 4 ? 32 : 128;

	if (!inet_ntop(p->af == 4 ? AF_INET : AF_INET6, p->addr, a, sizeof(a)))
		snprintf(a, sizeof(a), "?");
	if (host_short && p->len == max)
		snprintf(buf, len, "%s", a);
	else
		snprintf(buf, len, "%s/%u", a, p->len);
	return buf;
}

int tm_parse_prefix(const struct tm_words *w, int i, bool prefix,
		    struct tm_prefix *p)
{
	const char *arg = w->argv[i], *slash = strchr(arg, '/');
	size_t alen = slash ? (size_t)(slash - arg) : strlen(arg);
	char a[INET6_ADDRSTRLEN], fixed[INET6_ADDRSTRLEN + 8];
	unsigned int max;
	uint64_t len;

	memset(p, 0, sizeof(*p));
	if (slash && !prefix)
		return tm_werror(w, i,
				 "'%s': expected an address, not a prefix",
				 arg);
	if (alen >= sizeof(a))
		goto bad;
	memcpy(a, arg, alen);
	a[alen] = '\0';
	if (strchr(a, ':')) {
		p->af = 6;
		if (inet_pton(AF_INET6, a, p->addr) != 1)
			goto bad;
	} else {
		p->af = 4;
		if (inet_pton(AF_INET, a, p->addr) != 1)
			goto bad;
	}
	max = p->af == 4 ? 32 : 128;
	p->len = max;
	if (!slash)
		return 0;
	if (slash[1] < '0' || slash[1] > '9' || !tm_strtou64(slash + 1, &len))
		return tm_werror(w, i, "'%s': bad prefix length '%s'", arg,
				 slash + 1);
	if (len > max)
		return tm_werror(w, i,
				 "'%s': prefix length %llu out of range 0..%u",
				 arg, (unsigned long long)len, max);
	p->len = (uint8_t)len;
	if (tm_prefix_mask(p))
		return tm_werror(w, i,
				 "'%s': host bits set past /%u, did you mean %s?",
				 arg, p->len,
				 tm_prefix_str(p, false, fixed, sizeof(fixed)));
	return 0;
bad:
	return tm_werror(w, i, "'%s': not an IPv4 or IPv6 %s", arg,
			 prefix ? "prefix" : "address");
}

/* A port: decimal only, as printed.  0, -1 (not a number), -2 (range). */
static int tm_port(const char *s, const char *e, uint16_t *port)
{
	uint32_t v = 0;

	if (s == e)
		return -1;
	for (; s < e; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (v <= 65535)
			v = v * 10 + (uint32_t)(*s - '0');
	}
	if (v > 65535)
		return -2;
	*port = (uint16_t)v;
	return 0;
}

int tm_parse_ports(const struct tm_words *w, int i, uint16_t *lo,
		   uint16_t *hi)
{
	const char *arg = w->argv[i], *dash = strchr(arg, '-');
	const char *end = arg + strlen(arg);
	int err;

	if (!dash) {
		err = tm_port(arg, end, lo);
		*hi = *lo;
	} else {
		err = tm_port(arg, dash, lo);
		if (!err)
			err = tm_port(dash + 1, end, hi);
	}
	if (err == -2)
		return tm_werror(w, i, "'%s': port out of range 0..65535",
				 arg);
	if (err)
		return tm_werror(w, i,
				 "'%s': bad port (expected 0..65535 or LOW-HIGH)",
				 arg);
	if (*lo > *hi)
		return tm_werror(w, i,
				 "'%s': empty port range, %u is above %u",
				 arg, *lo, *hi);
	return 0;
}

/* A decimal number 0..max, all of [s, e): 0, -1 not one, -2 too big. */
static int tm_small(const char *s, const char *e, unsigned int max,
		    unsigned int *v)
{
	uint64_t n = 0;

	if (s == e)
		return -1;
	for (; s < e; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (n <= max)
			n = n * 10 + (uint64_t)(*s - '0');
	}
	if (n > max)
		return -2;
	*v = (unsigned int)n;
	return 0;
}

/* N or LO-HI in [s, e), each 0..max: the error reported, or 0. */
static int tm_range_in(const struct tm_words *w, int i, const char *s,
		       const char *e, const char *what, unsigned int max,
		       unsigned int *lo, unsigned int *hi)
{
	const char *dash = memchr(s, '-', (size_t)(e - s));
	int err;

	if (!dash) {
		err = tm_small(s, e, max, lo);
		*hi = *lo;
	} else {
		err = tm_small(s, dash, max, lo);
		if (!err)
			err = tm_small(dash + 1, e, max, hi);
	}
	if (err == -2)
		return tm_werror(w, i, "'%.*s': %s out of range 0..%u",
				 (int)(e - s), s, what, max);
	if (err)
		return tm_werror(w, i,
				 "'%.*s': bad %s (expected 0..%u or LOW-HIGH)",
				 (int)(e - s), s, what, max);
	if (*lo > *hi)
		return tm_werror(w, i, "'%.*s': empty %s range, %u is above %u",
				 (int)(e - s), s, what, *lo, *hi);
	return 0;
}

int tm_parse_range(const struct tm_words *w, int i, const char *what,
		   unsigned int max, uint16_t *lo, uint16_t *hi)
{
	const char *arg = w->argv[i];
	unsigned int l, h;

	if (tm_range_in(w, i, arg, arg + strlen(arg), what, max, &l, &h))
		return TMCTL_EPARSE;
	*lo = (uint16_t)l;
	*hi = (uint16_t)h;
	return 0;
}

int tm_parse_num_set(const struct tm_words *w, int i, const char *what,
		     unsigned int max, uint64_t *set)
{
	const char *s = w->argv[i], *comma;
	unsigned int lo, hi;

	*set = 0;
	do {
		comma = strchrnul(s, ',');
		if (tm_range_in(w, i, s, comma, what, max, &lo, &hi))
			return TMCTL_EPARSE;
		for (; lo <= hi; lo++)
			*set |= 1ULL << lo;
		s = comma + 1;
	} while (*comma);
	return 0;
}

int tm_parse_set(const struct tm_words *w, int i, const char *what,
		 const char * const *names, unsigned int n, uint64_t *set)
{
	const char *s = w->argv[i], *comma;
	char list[256];
	size_t used = 0, len;
	unsigned int k;

	*set = 0;
	do {
		comma = strchrnul(s, ',');
		len = (size_t)(comma - s);
		for (k = 0; k < n; k++)
			if (names[k] && strlen(names[k]) == len &&
			    !strncmp(s, names[k], len))
				break;
		if (k == n) {
			list[0] = '\0';
			for (k = 0; k < n && used < sizeof(list); k++)
				used += snprintf(list + used,
						 sizeof(list) - used, "%s%s",
						 k ? ", " : "", names[k]);
			return tm_werror(w, i,
					 "'%s': unknown %s '%.*s' (expected %s, comma-separated)",
					 w->argv[i], what, (int)len, s, list);
		}
		*set |= 1ULL << k;
		s = comma + 1;
	} while (*comma);
	return 0;
}

int tm_parse_tcp_flags(const struct tm_words *w, int i, uint8_t *flags)
{
	uint64_t set;

	*flags = 0;
	if (!strcmp(w->argv[i], "none"))
		return 0;
	if (tm_parse_set(w, i, "TCP flag", tm_tcp_flag_names, 8, &set))
		return TMCTL_EPARSE;
	*flags = (uint8_t)set;
	return 0;
}

const char *tm_set_str(uint64_t set, const char * const *names,
		       unsigned int n, char *buf, size_t len)
{
	size_t used = 0;
	unsigned int k;

	buf[0] = '\0';
	for (k = 0; k < 64 && used < len; k++) {
		if (!(set >> k & 1))
			continue;
		if (k < n && names[k])
			used += snprintf(buf + used, len - used, "%s%s",
					 used ? "," : "", names[k]);
		else
			used += snprintf(buf + used, len - used, "%s%u",
					 used ? "," : "", k);
	}
	return buf;
}

const char *tm_num_set_str(uint64_t set, char *buf, size_t len)
{
	unsigned int lo, hi;
	size_t used = 0;

	buf[0] = '\0';
	for (lo = 0; lo < 64 && used < len; lo = hi + 1) {
		if (!(set >> lo & 1)) {
			hi = lo;
			continue;
		}
		for (hi = lo; hi < 63 && (set >> (hi + 1) & 1); hi++)
			;
		if (hi == lo)
			used += snprintf(buf + used, len - used, "%s%u",
					 used ? "," : "", lo);
		else
			used += snprintf(buf + used, len - used, "%s%u-%u",
					 used ? "," : "", lo, hi);
	}
	return buf;
}

int tm_parse_proto(const struct tm_words *w, int i, uint8_t *proto)
{
	const char *arg = w->argv[i];
	unsigned int k;
	uint64_t v;

	for (k = 0; k < ARRAY_SIZE(tm_protos); k++) {
		if (!strcmp(arg, tm_protos[k].name)) {
			*proto = tm_protos[k].proto;
			return 0;
		}
	}
	if (arg[0] >= '0' && arg[0] <= '9' && tm_strtou64(arg, &v)) {
		if (v > 255)
			return tm_werror(w, i,
					 "protocol %s out of range 0..255",
					 arg);
		*proto = (uint8_t)v;
		return 0;
	}
	return tm_werror(w, i,
			 "unknown protocol '%s' (expected tcp, udp, icmp, icmpv6, sctp, udplite, dccp, gre, esp, ah or 0..255)",
			 arg);
}

const char *tm_proto_name(uint8_t proto, char *buf, size_t len)
{
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(tm_protos); k++)
		if (tm_protos[k].proto == proto)
			return tm_protos[k].name;
	snprintf(buf, len, "%u", proto);
	return buf;
}

int tm_parse_dev(const struct tm_words *w, int i, uint32_t *ifindex)
{
	const char *arg = w->argv[i];
	uint64_t v;

	if (!arg[0])
		return tm_werror(w, i, "device name is empty");
	if (strlen(arg) >= IF_NAMESIZE)
		return tm_werror(w, i,
				 "device name '%s' is longer than %d bytes",
				 arg, IF_NAMESIZE - 1);
	*ifindex = if_nametoindex(arg);
	if (*ifindex)
		return 0;
	/* A gone device is listed by its index: read it back. */
	if (arg[0] >= '1' && arg[0] <= '9' && tm_strtou64(arg, &v) &&
	    v <= INT32_MAX) {
		*ifindex = (uint32_t)v;
		return 0;
	}
	return tm_werror(w, i, "unknown device '%s'", arg);
}

const char *tm_dev_name(uint32_t ifindex, char *buf, size_t len)
{
	char name[IF_NAMESIZE];

	if (if_indextoname(ifindex, name))
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "%u", ifindex);
	return buf;
}

/* Whether @s must be quoted to be read back as one word. */
static bool tm_needs_quotes(const char *s)
{
	if (!*s || *s == '#')
		return true;
	for (; *s; s++) {
		unsigned char c = *s;

		if (c <= ' ' || c == '"' || c == '\'' || c == '\\' || c == 0x7f)
			return true;
	}
	return false;
}

void tm_print_word(FILE *f, const char *s)
{
	if (!tm_needs_quotes(s)) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fputc('\\', f);
		/* A control character cannot be read back: never sent. */
		fputc(c < ' ' || c == 0x7f ? '?' : c, f);
	}
	fputc('"', f);
}

char *tm_read_file(const char *path, size_t *lenp)
{
	bool std = !strcmp(path, "-");
	FILE *f = std ? stdin : fopen(path, "rb");
	size_t cap = 0, len = 0, n;
	char *text = NULL;

	if (!f) {
		tm_parse_error("%s: %s", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		text = tm_grow(text, &cap, len + 65536, 1);
		n = fread(text + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0)
			break;
	}
	text[len] = '\0';
	if (ferror(f)) {
		tm_parse_error("%s: %s", path, strerror(errno));
		free(text);
		text = NULL;
	}
	if (!std)
		fclose(f);
	if (lenp)
		*lenp = len;
	return text;
}
