// SPDX-License-Identifier: GPL-2.0
/*
 * tmgen: generate ClassBench-like rule sets and packet header traces.
 *
 *	tmgen rules --type acl|fw|ipc [--family 4|6] --count N [--seed S]
 *	tmgen trace --rules FILE --count N [--seed S] [--shuffle]
 *		    [--burst-max N]
 *
 * Our own design, written from scratch; it follows the published shape of
 * ClassBench's seeds, not their numbers or code.  This file owns the random
 * generator, the three rule profiles, the address model, the duplicate
 * filter and the trace generator.
 *
 * Rules.  Each prefix gets a length class (any, block, site, subnet, small,
 * host) drawn from the profile of its direction, then a length in that class
 * (IPv4 /8-/15, /16-/23, /24-/26, /27-/31, /32; IPv6 /20-/47, /48-/56,
 * /57-/64, /80-/127, /128, each with favourite lengths such as /32, /48,
 * /56, /64).  Addresses come from a four-level hierarchy (IPv4 8.8.8.8 bits,
 * IPv6 32.16.16.64 bits, 2000::/3): each level picks one of a fixed pool of
 * children with a skew towards the first ones, and the child's bits are a
 * hash of the path, so that rules share address blocks and overlap the way
 * real filter sets do.  Some addresses are copied from one of the previous
 * rules (runs of rules about one host or net).  Ports are any, a common
 * service, another exact port, 1024-65535, a narrow or a wide range;
 * protocols TCP, UDP, ICMP, GRE, another one or any.  Duplicates (same
 * fields) are dropped and drawn again, so exactly N rules come out.
 *
 * Traces.  A header is a random point of a random rule (random host bits,
 * random ports in the ranges, the rule's protocol or a random one when it is
 * any); the RULE column is that rule's id.  By default each header is
 * repeated in a burst of ceil(b / u^(1/a)) copies, u uniform in (0, 1],
 * a = 1, b = 0.1 (temporal locality), at most --burst-max (N / 10).  With
 * --shuffle, every rule is used in turn, N / rules times, and the headers
 * are shuffled uniformly, without bursts.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classbench.h"

#define TMGEN_MAX_COUNT		10000000ULL
#define PARETO_A		1.0
#define PARETO_B		0.1
#define REUSE_WINDOW		16
#define TRACE_CHUNK		4096

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

/* xoshiro256**, seeded through splitmix64. */
struct rng {
	u64 s[4];
};

enum { LEN_ANY, LEN_BLOCK, LEN_SITE, LEN_SUBNET, LEN_SMALL, LEN_HOST, LEN_N };
enum {
	PORT_ANY, PORT_WELL, PORT_HIGH, PORT_EPHEM, PORT_NARROW, PORT_WIDE,
	PORT_N
};

enum { PR_TCP, PR_UDP, PR_ICMP, PR_GRE, PR_OTHER, PR_ANY, PR_N };

/* The shape of one kind of filter set; all weights in percent. */
struct profile {
	const char *name;
	u8 src_len[LEN_N];
	u8 dst_len[LEN_N];
	u8 sport[PORT_N];
	u8 dport[PORT_N];
	u8 proto[PR_N];
	u8 reuse;		/* address copied from one of the last rules */
	u8 exact;		/* fully specified TCP or UDP 5-tuple */
};

static const struct profile profiles[] = {
	{
		.name = "acl",
		.src_len = { 15, 2, 8, 10, 20, 45 },
		.dst_len = { 3, 2, 10, 15, 20, 50 },
		.sport = { 96, 1, 0, 3, 0, 0 },
		.dport = { 25, 40, 20, 8, 5, 2 },
		.proto = { 80, 7, 3, 0, 1, 9 },
		.reuse = 35,
		.exact = 2,
	}, {
		.name = "fw",
		.src_len = { 35, 8, 12, 15, 10, 20 },
		.dst_len = { 20, 8, 10, 15, 12, 35 },
		.sport = { 75, 12, 3, 8, 1, 1 },
		.dport = { 30, 45, 5, 10, 5, 5 },
		.proto = { 52, 30, 4, 5, 1, 8 },
		.reuse = 25,
		.exact = 3,
	}, {
		.name = "ipc",
		.src_len = { 10, 4, 18, 30, 12, 26 },
		.dst_len = { 8, 4, 18, 30, 10, 30 },
		.sport = { 78, 12, 4, 3, 2, 1 },
		.dport = { 48, 30, 8, 7, 5, 2 },
		.proto = { 27, 37, 2, 1, 2, 31 },
		.reuse = 20,
		.exact = 12,
	},
};

/* Lengths of a class: t1 with p1 %, t2 with p2 %, else lo..hi uniform. */
struct len_range {
	u8 lo, hi, t1, p1, t2, p2;
};

static const struct len_range len4[LEN_N] = {
	[LEN_ANY] = { 0, 0, 0, 100, 0, 0 },
	[LEN_BLOCK] = { 8, 15, 8, 40, 12, 10 },
	[LEN_SITE] = { 16, 23, 16, 35, 22, 15 },
	[LEN_SUBNET] = { 24, 26, 24, 60, 25, 20 },
	[LEN_SMALL] = { 27, 31, 31, 40, 30, 20 },
	[LEN_HOST] = { 32, 32, 32, 100, 0, 0 },
};

static const struct len_range len6[LEN_N] = {
	[LEN_ANY] = { 0, 0, 0, 100, 0, 0 },
	[LEN_BLOCK] = { 20, 47, 32, 50, 40, 10 },
	[LEN_SITE] = { 48, 56, 48, 45, 56, 30 },
	[LEN_SUBNET] = { 57, 64, 64, 75, 60, 10 },
	[LEN_SMALL] = { 80, 127, 127, 30, 120, 20 },
	[LEN_HOST] = { 128, 128, 128, 100, 0, 0 },
};

/* Address hierarchy: bits per level and the skew of each level's pool. */
static const u8 level_bits4[4] = { 8, 8, 8, 8 };
static const u8 level_bits6[4] = { 32, 16, 16, 64 };
static const double level_skew[4] = { 2.0, 2.0, 1.5, 1.0 };

/* Services, most popular first. */
static const u16 well_known[] = {
	80, 443, 53, 25, 22, 21, 23, 110, 143, 123, 161, 135, 139, 445,
	69, 88, 20, 162, 179, 389, 111, 137, 138, 514, 515, 520, 543, 544,
	587, 636, 749, 750, 873, 993, 995, 465,
};

static const u16 high_ports[] = {
	1521, 8080, 1433, 3306, 1723, 3389, 5060, 1526, 8443, 1214, 2049,
	5432, 6000, 1080, 3128, 1701, 1812, 1813, 2105, 5900, 9100, 1434,
	5061, 6346, 8000, 9003, 5530, 5631, 14753, 1194,
};

/* Common wide ranges. */
static const u16 wide_ranges[][2] = {
	{ 0, 1023 }, { 1, 65535 }, { 32768, 65535 }, { 49152, 65535 },
	{ 0, 32767 }, { 1025, 65535 }, { 5000, 65535 }, { 10000, 65535 },
};

static const u16 narrow_widths[] = { 1, 2, 3, 5, 7, 15, 63, 99 };
static const u8 other_protos[] = { 50, 51, 89, 103, 132, 41 };

/* Rule generator state. */
struct gen {
	struct rng rng;
	const struct profile *prof;
	const struct len_range *lens;
	const u8 *level_bits;
	u32 pool[4];		/* children per level */
	u64 salt;
	u8 family;
	struct cb_ruleset rs;
	u32 *slot;		/* duplicate filter: rule index + 1, 0 free */
	size_t mask;
};

static u64 mix64(u64 x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static void rng_seed(struct rng *r, u64 seed)
{
	int i;

	for (i = 0; i < 4; i++) {
		seed += 0x9e3779b97f4a7c15ULL;
		r->s[i] = mix64(seed);
	}
}

static u64 rotl(u64 x, int k)
{
	return x << k | x >> (64 - k);
}

static u64 rng_next(struct rng *r)
{
	u64 *s = r->s;
	u64 res = rotl(s[1] * 5, 7) * 9;
	u64 t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

/* Uniform in [0, n), n > 0, without modulo bias. */
static u64 rng_below(struct rng *r, u64 n)
{
	u64 lim = -n % n;
	u64 x;

	do {
		x = rng_next(r);
	} while (x < lim);
	return x % n;
}

/* Uniform in [0, 1). */
static double rng_unit(struct rng *r)
{
	return ldexp((double)(rng_next(r) >> 11), -53);
}

static bool rng_pct(struct rng *r, unsigned int pct)
{
	return rng_below(r, 100) < pct;
}

/* In [0, n), skewed towards 0: floor(n * u^k). */
static u64 rng_skew(struct rng *r, u64 n, double k)
{
	u64 i = (u64)((double)n * pow(rng_unit(r), k));

	return i < n ? i : n - 1;
}

/* Index of a weight, with probability proportional to it. */
static unsigned int rng_pick(struct rng *r, const u8 *w, unsigned int n)
{
	unsigned int i, total = 0;
	u64 x;

	for (i = 0; i < n; i++)
		total += w[i];
	x = rng_below(r, total);
	for (i = 0; x >= w[i]; i++)
		x -= w[i];
	return i;
}

static u8 gen_len(struct gen *g, unsigned int cls)
{
	const struct len_range *l = &g->lens[cls];
	u64 x = rng_below(&g->rng, 100);

	if (x < l->p1)
		return l->t1;
	if (x < (u64)l->p1 + l->p2)
		return l->t2;
	return (u8)(l->lo + rng_below(&g->rng, l->hi - l->lo + 1));
}

/* Store the low n bits of v at bit pos of a (bit 0: the top of w[0]). */
static void put_bits(struct tm_addr *a, unsigned int pos, unsigned int n,
		     u64 v)
{
	unsigned int i, p;

	for (i = 0; i < n; i++) {
		p = pos + i;
		a->w[p / 32] |= (u32)(v >> (n - 1 - i) & 1) << (31 - p % 32);
	}
}

/* An address of the hierarchy of direction dir, masked to len. */
static void gen_addr(struct gen *g, unsigned int dir, u8 len,
		     struct tm_addr *a)
{
	u64 path = mix64(g->salt + dir), idx;
	unsigned int i, pos = 0;

	memset(a, 0, sizeof(*a));
	for (i = 0; i < 4 && pos < len; i++) {
		idx = rng_skew(&g->rng, g->pool[i], level_skew[i]);
		path = mix64(path ^ (idx << 2 | i));
		put_bits(a, pos, g->level_bits[i], path);
		pos += g->level_bits[i];
	}
	if (g->family == TM_AF_INET6)
		a->w[0] = (a->w[0] & 0x1fffffff) | 0x20000000;
	cb_addr_mask(a, g->family, len);
}

/* One side of a rule: a copy of a recent rule's prefix or a new one. */
static void gen_side(struct gen *g, unsigned int dir, int cls,
		     struct tm_addr *a, u8 *len)
{
	size_t n = g->rs.n, back;
	const struct tm_rule *old;

	if (n && rng_pct(&g->rng, g->prof->reuse)) {
		back = rng_below(&g->rng, n < REUSE_WINDOW ? n : REUSE_WINDOW);
		old = &g->rs.rules[n - 1 - back];
		*a = dir ? old->dst : old->src;
		*len = dir ? old->dst_len : old->src_len;
		if (cls < 0 || *len == g->lens[cls].hi)
			return;
	}
	if (cls < 0)
		cls = (int)rng_pick(&g->rng, dir ? g->prof->dst_len :
				    g->prof->src_len, LEN_N);
	*len = gen_len(g, (unsigned int)cls);
	gen_addr(g, dir, *len, a);
}

static u16 gen_service(struct gen *g, bool high)
{
	if (high)
		return high_ports[rng_skew(&g->rng, ARRAY_SIZE(high_ports),
					   1.5)];
	return well_known[rng_skew(&g->rng, ARRAY_SIZE(well_known), 1.5)];
}

static void gen_narrow(struct gen *g, u16 *lo, u16 *hi)
{
	u32 w = narrow_widths[rng_below(&g->rng, ARRAY_SIZE(narrow_widths))];

	*lo = gen_service(g, rng_pct(&g->rng, 50));
	*hi = *lo + w > 65535 ? 65535 : (u16)(*lo + w);
}

static void gen_wide(struct gen *g, u16 *lo, u16 *hi)
{
	u16 a, b;

	if (rng_pct(&g->rng, 50)) {
		a = (u16)rng_below(&g->rng, ARRAY_SIZE(wide_ranges));
		*lo = wide_ranges[a][0];
		*hi = wide_ranges[a][1];
		return;
	}
	a = (u16)rng_below(&g->rng, 65536);
	b = (u16)rng_below(&g->rng, 65536);
	*lo = a < b ? a : b;
	*hi = a < b ? b : a;
}

static void gen_ports(struct gen *g, const u8 *w, u16 *lo, u16 *hi)
{
	switch (rng_pick(&g->rng, w, PORT_N)) {
	case PORT_ANY:
		*lo = 0;
		*hi = 65535;
		break;
	case PORT_WELL:
		*lo = gen_service(g, false);
		*hi = *lo;
		break;
	case PORT_HIGH:
		*lo = rng_pct(&g->rng, 30) ?
		      (u16)(1024 + rng_below(&g->rng, 64512)) :
		      gen_service(g, true);
		*hi = *lo;
		break;
	case PORT_EPHEM:
		*lo = 1024;
		*hi = 65535;
		break;
	case PORT_NARROW:
		gen_narrow(g, lo, hi);
		break;
	default:
		gen_wide(g, lo, hi);
		break;
	}
}

static void gen_proto(struct gen *g, struct tm_rule *r)
{
	static const u8 fixed[PR_N] = { 6, 17, 1, 47, 0, 0 };
	unsigned int cls = rng_pick(&g->rng, g->prof->proto, PR_N);

	r->proto_any = cls == PR_ANY;
	r->proto = fixed[cls];
	if (cls == PR_OTHER)
		r->proto = other_protos[rng_below(&g->rng,
						  ARRAY_SIZE(other_protos))];
}

/* A fully specified 5-tuple: host to host, exact ports, TCP or UDP. */
static void gen_exact(struct gen *g, struct tm_rule *r)
{
	gen_side(g, 0, LEN_HOST, &r->src, &r->src_len);
	gen_side(g, 1, LEN_HOST, &r->dst, &r->dst_len);
	r->proto = rng_pct(&g->rng, 60) ? 6 : 17;
	r->sport_lo = (u16)(1024 + rng_below(&g->rng, 64512));
	r->sport_hi = r->sport_lo;
	r->dport_lo = gen_service(g, rng_pct(&g->rng, 30));
	r->dport_hi = r->dport_lo;
}

static void gen_rule(struct gen *g, struct tm_rule *r)
{
	const struct profile *p = g->prof;
	bool ports;

	memset(r, 0, sizeof(*r));
	r->family = g->family;
	if (rng_pct(&g->rng, p->exact)) {
		gen_exact(g, r);
		return;
	}
	gen_side(g, 0, -1, &r->src, &r->src_len);
	gen_side(g, 1, -1, &r->dst, &r->dst_len);
	gen_proto(g, r);
	if (r->proto_any)
		ports = rng_pct(&g->rng, 20);
	else
		ports = r->proto == 6 || r->proto == 17;
	r->sport_hi = 65535;
	r->dport_hi = 65535;
	if (!ports)
		return;
	gen_ports(g, p->sport, &r->sport_lo, &r->sport_hi);
	gen_ports(g, p->dport, &r->dport_lo, &r->dport_hi);
}

static u64 rule_hash(const struct tm_rule *r)
{
	u64 h = mix64((u64)r->family | (u64)r->src_len << 8 |
		      (u64)r->dst_len << 16 | (u64)r->proto << 24 |
		      (u64)r->proto_any << 32);
	int i;

	for (i = 0; i < 4; i++)
		h = mix64(h ^ ((u64)r->src.w[i] << 32 | r->dst.w[i]));
	return mix64(h ^ ((u64)r->sport_lo << 48 | (u64)r->sport_hi << 32 |
			  (u64)r->dport_lo << 16 | r->dport_hi));
}

/* Same fields, whatever the id, priority and action. */
static bool rule_same(const struct tm_rule *a, const struct tm_rule *b)
{
	return a->family == b->family && a->src_len == b->src_len &&
	       a->dst_len == b->dst_len && a->proto == b->proto &&
	       a->proto_any == b->proto_any &&
	       a->sport_lo == b->sport_lo && a->sport_hi == b->sport_hi &&
	       a->dport_lo == b->dport_lo && a->dport_hi == b->dport_hi &&
	       !memcmp(&a->src, &b->src, sizeof(a->src)) &&
	       !memcmp(&a->dst, &b->dst, sizeof(a->dst));
}

/* The filter slot of r: free (0) or holding an equal rule. */
static u32 *dedup_slot(struct gen *g, const struct tm_rule *r)
{
	size_t i = rule_hash(r) & g->mask;

	while (g->slot[i] && !rule_same(&g->rs.rules[g->slot[i] - 1], r))
		i = (i + 1) & g->mask;
	return &g->slot[i];
}

static int gen_init(struct gen *g, const struct profile *p, u8 family,
		    u64 count, u64 seed)
{
	size_t cap = 16;
	u32 blocks = (u32)(sqrt((double)count) / 2);

	memset(g, 0, sizeof(*g));
	rng_seed(&g->rng, seed);
	g->salt = mix64(seed ^ 0x5a17u);
	g->prof = p;
	g->family = family;
	g->lens = family == TM_AF_INET ? len4 : len6;
	g->level_bits = family == TM_AF_INET ? level_bits4 : level_bits6;
	g->pool[0] = blocks < 4 ? 4 : blocks > 1024 ? 1024 : blocks;
	g->pool[1] = 16;
	g->pool[2] = 64;
	g->pool[3] = family == TM_AF_INET ? 256 : 65536;
	while (cap < 2 * count)
		cap *= 2;
	g->mask = cap - 1;
	g->slot = calloc(cap, sizeof(*g->slot));
	return g->slot ? 0 : -1;
}

/* Exactly count distinct rules in g->rs, ids 1.., priorities 0... */
static int gen_rules(struct gen *g, u64 count)
{
	u64 tries = 0, limit = 100 * count + 1000;
	struct tm_rule r;
	u32 *slot;

	while (g->rs.n < count) {
		if (++tries > limit) {
			fprintf(stderr,
				"tmgen: %zu distinct rules in %llu tries\n",
				g->rs.n, (unsigned long long)limit);
			return -1;
		}
		gen_rule(g, &r);
		slot = dedup_slot(g, &r);
		if (*slot)
			continue;
		r.id = (u32)g->rs.n + 1;
		r.priority = (u32)g->rs.n;
		r.action = r.id;
		if (cb_ruleset_push(&g->rs, &r)) {
			fprintf(stderr, "tmgen: out of memory\n");
			return -1;
		}
		*slot = r.id;
	}
	return 0;
}

/* A random point of the prefix. */
static void gen_point(struct rng *rng, u8 family, const struct tm_addr *p,
		      u8 len, struct tm_addr *out)
{
	struct tm_addr m;
	int i;

	memset(&m, 0xff, sizeof(m));
	cb_addr_mask(&m, family, len);
	memset(out, 0, sizeof(*out));
	for (i = 0; i < (family == TM_AF_INET6 ? 4 : 1); i++)
		out->w[i] = p->w[i] | ((u32)rng_next(rng) & ~m.w[i]);
}

static u8 gen_any_proto(struct rng *rng)
{
	u64 x = rng_below(rng, 100);

	if (x < 50)
		return 6;
	if (x < 80)
		return 17;
	if (x < 90)
		return 1;
	return (u8)rng_below(rng, 256);
}

static void gen_key(struct rng *rng, const struct tm_rule *r,
		    struct tm_key *k)
{
	memset(k, 0, sizeof(*k));
	k->family = r->family;
	gen_point(rng, r->family, &r->src, r->src_len, &k->src);
	gen_point(rng, r->family, &r->dst, r->dst_len, &k->dst);
	k->sport = (u16)(r->sport_lo +
			 rng_below(rng, (u64)r->sport_hi - r->sport_lo + 1));
	k->dport = (u16)(r->dport_lo +
			 rng_below(rng, (u64)r->dport_hi - r->dport_lo + 1));
	k->proto = r->proto_any ? gen_any_proto(rng) : r->proto;
}

/* Trace output, written in chunks. */
struct sink {
	struct tm_key keys[TRACE_CHUNK];
	u32 rule[TRACE_CHUNK];
	size_t n;
	int err;
};

static void sink_flush(struct sink *s)
{
	if (s->n && !s->err && cb_write_trace(stdout, s->keys, s->rule, s->n))
		s->err = errno ? errno : EIO;
	s->n = 0;
}

static void sink_put(struct sink *s, const struct tm_key *k, u32 rule)
{
	s->keys[s->n] = *k;
	s->rule[s->n++] = rule;
	if (s->n == TRACE_CHUNK)
		sink_flush(s);
}

/* Burst length: ceil(b / u^(1/a)), u in (0, 1], between 1 and max. */
static u64 pareto_burst(struct rng *rng, u64 max)
{
	double u = 1.0 - rng_unit(rng);
	double x = ceil(PARETO_B / pow(u, 1.0 / PARETO_A));

	if (!(x < (double)max))
		return max;
	return x < 1.0 ? 1 : (u64)x;
}

static void trace_bursts(struct rng *rng, const struct cb_ruleset *rs,
			 u64 count, u64 burst_max, struct sink *s)
{
	const struct tm_rule *r;
	struct tm_key k;
	u64 done = 0, n;

	while (done < count) {
		r = &rs->rules[rng_below(rng, rs->n)];
		gen_key(rng, r, &k);
		n = pareto_burst(rng, burst_max);
		if (n > count - done)
			n = count - done;
		for (done += n; n; n--)
			sink_put(s, &k, r->id);
	}
}

static int trace_shuffled(struct rng *rng, const struct cb_ruleset *rs,
			  u64 count, struct sink *s)
{
	u32 *pick = malloc(count * sizeof(*pick)), t;
	struct tm_key k;
	u64 i, j;

	if (!pick)
		return -1;
	for (i = 0; i < count; i++)
		pick[i] = (u32)(i % rs->n);
	for (i = count - 1; i > 0; i--) {
		j = rng_below(rng, i + 1);
		t = pick[i];
		pick[i] = pick[j];
		pick[j] = t;
	}
	for (i = 0; i < count; i++) {
		gen_key(rng, &rs->rules[pick[i]], &k);
		sink_put(s, &k, rs->rules[pick[i]].id);
	}
	free(pick);
	return 0;
}

/* Command line. */
struct opts {
	const char *type;
	const char *rules;
	u64 family;
	u64 count;
	u64 seed;
	u64 burst_max;
	bool shuffle;
};

static void help(FILE *f)
{
	fputs("usage: tmgen rules --type acl|fw|ipc [--family 4|6] --count N\n"
	      "                   [--seed S]\n"
	      "       tmgen trace --rules FILE --count N [--seed S]\n"
	      "                   [--shuffle] [--burst-max N]\n", f);
}

static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "tmgen: %s: '%s'\n", what, arg);
	fprintf(stderr, "Try 'tmgen --help'.\n");
	return -1;
}

static int parse_num(const char *opt, const char *s, u64 min, u64 max,
		     u64 *v)
{
	unsigned long long x;
	char msg[96];
	char *end;

	errno = 0;
	x = strtoull(s, &end, 10);
	if (*s < '0' || *s > '9' || *end || errno || x < min || x > max) {
		snprintf(msg, sizeof(msg), "%s expects a number in %llu..%llu",
			 opt, (unsigned long long)min, (unsigned long long)max);
		return usage_error(msg, s);
	}
	*v = x;
	return 0;
}

static int parse_opt(int c, const char *arg, struct opts *o)
{
	switch (c) {
	case 't':
		o->type = arg;
		return 0;
	case 'f':
		if (strcmp(arg, "4") && strcmp(arg, "6"))
			return usage_error("--family expects 4 or 6", arg);
		o->family = (u64)(arg[0] - '0');
		return 0;
	case 'n':
		return parse_num("--count", arg, 1, TMGEN_MAX_COUNT,
				 &o->count);
	case 's':
		return parse_num("--seed", arg, 0, ~0ULL, &o->seed);
	case 'r':
		o->rules = arg;
		return 0;
	case 'b':
		return parse_num("--burst-max", arg, 1, TMGEN_MAX_COUNT,
				 &o->burst_max);
	case 'S':
		o->shuffle = true;
		return 0;
	}
	return -1;
}

/* The options of a command; allowed: the letters of those it takes. */
static int parse_args(int argc, char **argv, const char *allowed,
		      struct opts *o)
{
	static const struct option lopts[] = {
		{ "type", required_argument, NULL, 't' },
		{ "family", required_argument, NULL, 'f' },
		{ "count", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ "rules", required_argument, NULL, 'r' },
		{ "burst-max", required_argument, NULL, 'b' },
		{ "shuffle", no_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	char name[32];
	int c, li;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", lopts, &li)) != -1) {
		if (c == '?' && optopt)
			return usage_error("option needs an argument",
					   argv[optind - 1]);
		if (c == '?')
			return usage_error("unknown option", argv[optind - 1]);
		if (!strchr(allowed, c)) {
			snprintf(name, sizeof(name), "--%s", lopts[li].name);
			return usage_error("option not valid here", name);
		}
		if (parse_opt(c, optarg, o))
			return -1;
	}
	if (optind < argc)
		return usage_error("unexpected argument", argv[optind]);
	if (!o->count)
		return usage_error("missing option", "--count");
	return 0;
}

static int cmd_rules(int argc, char **argv)
{
	struct opts o = { .family = 4, .seed = 1 };
	const struct profile *p = NULL;
	struct gen g;
	size_t i;
	int ret;

	if (parse_args(argc, argv, "tfns", &o))
		return 1;
	for (i = 0; o.type && i < ARRAY_SIZE(profiles); i++)
		if (!strcmp(o.type, profiles[i].name))
			p = &profiles[i];
	if (!p) {
		usage_error("--type expects acl, fw or ipc",
			    o.type ? o.type : "");
		return 1;
	}
	if (gen_init(&g, p, o.family == 4 ? TM_AF_INET : TM_AF_INET6,
		     o.count, o.seed)) {
		fprintf(stderr, "tmgen: out of memory\n");
		return 1;
	}
	ret = gen_rules(&g, o.count);
	if (!ret && cb_write_rules(stdout, g.rs.rules, g.rs.n)) {
		fprintf(stderr, "tmgen: write error: %s\n", strerror(errno));
		ret = -1;
	}
	free(g.slot);
	cb_ruleset_free(&g.rs);
	return ret ? 1 : 0;
}

static int run_trace(const struct opts *o, const struct cb_ruleset *rs)
{
	struct sink *s = calloc(1, sizeof(*s));
	struct rng rng;
	int ret = 0;

	if (!s)
		return -1;
	rng_seed(&rng, o->seed);
	if (o->shuffle)
		ret = trace_shuffled(&rng, rs, o->count, s);
	else
		trace_bursts(&rng, rs, o->count, o->burst_max, s);
	sink_flush(s);
	if (s->err) {
		fprintf(stderr, "tmgen: write error: %s\n",
			strerror(s->err));
		ret = -1;
	} else if (ret) {
		fprintf(stderr, "tmgen: out of memory\n");
	}
	free(s);
	return ret;
}

static int cmd_trace(int argc, char **argv)
{
	struct opts o = { .seed = 1 };
	struct cb_ruleset rs = { 0 };
	char err[512];
	int ret;

	if (parse_args(argc, argv, "nsrbS", &o))
		return 1;
	if (!o.rules) {
		usage_error("missing option", "--rules");
		return 1;
	}
	if (!o.burst_max)
		o.burst_max = o.count / 10 ? o.count / 10 : 1;
	if (cb_read_rules(o.rules, &rs, err, sizeof(err))) {
		fprintf(stderr, "tmgen: %s\n", err);
		return 1;
	}
	if (!rs.n) {
		fprintf(stderr, "tmgen: %s: no rules\n", o.rules);
		return 1;
	}
	ret = run_trace(&o, &rs);
	cb_ruleset_free(&rs);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	static char obuf[1 << 16];

	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	if (argc < 2) {
		fprintf(stderr, "tmgen: missing command\n");
		help(stderr);
		return 1;
	}
	if (!strcmp(argv[1], "rules"))
		return cmd_rules(argc - 1, argv + 1);
	if (!strcmp(argv[1], "trace"))
		return cmd_trace(argc - 1, argv + 1);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		help(stdout);
		return 0;
	}
	usage_error("unknown command (rules, trace)", argv[1]);
	return 1;
}
