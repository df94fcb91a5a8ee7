// SPDX-License-Identifier: GPL-2.0
/*
 * Brute-force oracle and random rules/packets for the core's tests; see
 * oracle.h.  Deliberately naive: an unsorted array scanned in full.
 */
#include <stdlib.h>
#include <string.h>

#include "oracle.h"

void oracle_init(struct oracle *o)
{
	memset(o, 0, sizeof(*o));
}

void oracle_free(struct oracle *o)
{
	free(o->r);
	free(o->s);
	memset(o, 0, sizeof(*o));
}

int oracle_find(const struct oracle *o, u32 id)
{
	unsigned int i;

	for (i = 0; i < o->n; i++)
		if (o->r[i].id == id)
			return i;
	return -1;
}

static void oset_put(struct oset *dst, const struct oset *os)
{
	if (os)
		*dst = *os;
	else
		memset(dst, 0, sizeof(*dst));
}

int oracle_insert_set(struct oracle *o, const struct tm_rule *r,
		      const struct oset *os)
{
	if (oracle_find(o, r->id) >= 0)
		return -EEXIST;
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 256;
		o->r = realloc(o->r, o->cap * sizeof(*o->r));
		o->s = realloc(o->s, o->cap * sizeof(*o->s));
		if (!o->r || !o->s)
			abort();
	}
	o->r[o->n] = *r;
	oset_put(&o->s[o->n], os);
	o->n++;
	return 0;
}

int oracle_insert(struct oracle *o, const struct tm_rule *r)
{
	return oracle_insert_set(o, r, NULL);
}

int oracle_delete(struct oracle *o, u32 id)
{
	int i = oracle_find(o, id);

	if (i < 0)
		return -ENOENT;
	o->n--;
	o->r[i] = o->r[o->n];
	o->s[i] = o->s[o->n];
	return 0;
}

int oracle_replace_set(struct oracle *o, const struct tm_rule *r,
		       const struct oset *os)
{
	int i = oracle_find(o, r->id);

	if (i < 0)
		return -ENOENT;
	o->r[i] = *r;
	oset_put(&o->s[i], os);
	return 0;
}

int oracle_replace(struct oracle *o, const struct tm_rule *r)
{
	return oracle_replace_set(o, r, NULL);
}

const struct tm_rule_set *oset_core(const struct oset *os,
				    struct tm_rule_set *s)
{
	if (!os || !(os->nsrc || os->ndst || os->nsport || os->ndport ||
		     os->nproto))
		return NULL;
	s->src = os->src;
	s->dst = os->dst;
	s->sport = os->sport;
	s->dport = os->dport;
	s->proto = os->proto;
	s->nsrc = os->nsrc;
	s->ndst = os->ndst;
	s->nsport = os->nsport;
	s->ndport = os->ndport;
	s->nproto = os->nproto;
	return s;
}

const struct oset *oracle_sets(const struct oracle *o,
			       const struct tm_rule *r)
{
	const struct oset *os = &o->s[r - o->r];

	return os->nsrc || os->ndst || os->nsport || os->ndport ||
	       os->nproto ? os : NULL;
}

/* Does @a fall in the prefix @p/@len?  Word by word, from the top. */
static bool prefix_has(const struct tm_addr *p, unsigned int len,
		       const struct tm_addr *a)
{
	unsigned int w;

	for (w = 0; len; w++) {
		unsigned int take = len < 32 ? len : 32;
		u64 m = ((1ULL << take) - 1) << (32 - take);

		if ((p->w[w] ^ a->w[w]) & m)
			return false;
		len -= take;
	}
	return true;
}

/* Is @v one of the values of @set (bit v each), an empty set all? */
static bool set_has(u64 set, unsigned int v)
{
	unsigned int i;

	if (!set)
		return true;
	for (i = 0; i < 64; i++)
		if ((set & (1ULL << i)) && i == v)
			return true;
	return false;
}

/* Do the bits of @v under @mask equal @want? */
static bool masked_eq(u32 v, u32 mask, u32 want)
{
	unsigned int i;

	for (i = 0; i < 32; i++)
		if ((mask >> i & 1) && (v >> i & 1) != (want >> i & 1))
			return false;
	return true;
}

/* One of the @n prefixes @p holds @a; none given: the rule's own. */
static bool any_prefix(const struct tm_set_prefix *p, unsigned int n,
		       const struct tm_addr *own, unsigned int own_len,
		       const struct tm_addr *a)
{
	unsigned int i;

	if (!n)
		return prefix_has(own, own_len, a);
	for (i = 0; i < n; i++)
		if (prefix_has(&p[i].addr, p[i].len, a))
			return true;
	return false;
}

static bool any_range(const struct tm_set_range *p, unsigned int n,
		      u16 own_lo, u16 own_hi, u16 v)
{
	unsigned int i;

	if (!n)
		return own_lo <= v && v <= own_hi;
	for (i = 0; i < n; i++)
		if (p[i].lo <= v && v <= p[i].hi)
			return true;
	return false;
}

static bool any_proto(const u8 *p, unsigned int n, const struct tm_rule *r,
		      u8 v)
{
	unsigned int i;

	if (!n)
		return r->proto_any || r->proto == v;
	for (i = 0; i < n; i++)
		if (p[i] == v)
			return true;
	return false;
}

bool oracle_matches_set(const struct tm_rule *r, const struct oset *os,
			const struct tm_key *k)
{
	static const struct oset none;

	if (!os)
		os = &none;
	return r->family == k->family &&
	       any_prefix(os->src, os->nsrc, &r->src, r->src_len, &k->src) &&
	       any_prefix(os->dst, os->ndst, &r->dst, r->dst_len, &k->dst) &&
	       any_range(os->sport, os->nsport, r->sport_lo, r->sport_hi,
			 k->sport) &&
	       any_range(os->dport, os->ndport, r->dport_lo, r->dport_hi,
			 k->dport) &&
	       any_proto(os->proto, os->nproto, r, k->proto) &&
	       (r->iif == 0 || r->iif == k->iif) &&
	       (r->oif == 0 || r->oif == k->oif) &&
	       masked_eq(k->mark, r->mark_mask, r->mark) &&
	       masked_eq(k->tcp_flags, r->tcp_flags_mask, r->tcp_flags) &&
	       set_has(r->ct_set, k->ct) && set_has(r->frag_set, k->frag) &&
	       set_has(r->dscp_set, k->dscp);
}

bool oracle_matches(const struct tm_rule *r, const struct tm_key *k)
{
	return oracle_matches_set(r, NULL, k);
}

const struct tm_rule *oracle_lookup(const struct oracle *o,
				    const struct tm_key *k)
{
	const struct tm_rule *best = NULL;
	unsigned int i;

	for (i = 0; i < o->n; i++) {
		const struct tm_rule *r = &o->r[i];

		if (!oracle_matches_set(r, &o->s[i], k))
			continue;
		if (!best || r->priority < best->priority ||
		    (r->priority == best->priority && r->id < best->id))
			best = r;
	}
	return best;
}

u64 rng_next(struct rng *g)
{
	g->s ^= g->s >> 12;
	g->s ^= g->s << 25;
	g->s ^= g->s >> 27;
	return g->s * 2685821657736338717ULL;
}

u32 rng_below(struct rng *g, u32 n)
{
	return (u32)((rng_next(g) >> 32) * n >> 32);
}

/* Address pools: a few blocks, so that prefixes nest and collide. */
static const u32 pool4[] = {
	0x0a000000, 0x0a000100, 0x0a010000, 0xc0a80000, 0xc0a80101,
	0xac100000, 0x01020304, 0xffffffff, 0x00000000, 0x80000000,
};

static const u16 pool_ports[] = { 0, 1, 22, 53, 80, 443, 1023, 1024,
				  8080, 65534, 65535 };

static void gen_addr(struct rng *g, u8 family, struct tm_addr *a)
{
	unsigned int i;

	memset(a, 0, sizeof(*a));
	if (family == TM_AF_INET) {
		a->w[0] = pool4[rng_below(g, 10)];
		if (rng_below(g, 2))
			a->w[0] ^= rng_below(g, 256) << (rng_below(g, 4) * 8);
		return;
	}
	a->w[0] = 0x20010db8;
	a->w[1] = rng_below(g, 4) << 16;
	for (i = 2; i < 4; i++)
		a->w[i] = rng_below(g, 3) ? pool4[rng_below(g, 10)] :
			  (u32)rng_next(g);
	if (!rng_below(g, 8))
		a->w[0] = (u32)rng_next(g);
}

static void mask_addr(struct tm_addr *a, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < 4; i++) {
		if (len >= 32 * (i + 1))
			continue;
		a->w[i] = len <= 32 * i ? 0 :
			  a->w[i] & (~0u << (32 - (len - 32 * i)));
	}
}

static u8 gen_len(struct rng *g, u8 family)
{
	static const u8 l4[] = { 0, 8, 16, 24, 28, 31, 32 };
	static const u8 l6[] = { 0, 32, 48, 56, 64, 96, 127, 128 };

	if (rng_below(g, 4) == 0)
		return rng_below(g, family == TM_AF_INET ? 33 : 129);
	return family == TM_AF_INET ? l4[rng_below(g, 7)] : l6[rng_below(g, 8)];
}

static void gen_range(struct rng *g, u16 *lo, u16 *hi)
{
	u16 a, b;

	switch (rng_below(g, 4)) {
	case 0:
		*lo = 0;
		*hi = 65535;
		return;
	case 1:
		*lo = *hi = pool_ports[rng_below(g, 11)];
		return;
	default:
		a = pool_ports[rng_below(g, 11)];
		b = rng_below(g, 2) ? pool_ports[rng_below(g, 11)] :
				      (u16)rng_next(g);
		*lo = a < b ? a : b;
		*hi = a < b ? b : a;
	}
}

/*
 * Interfaces: one rule in 8 has an iif, an oif or both, from 1..3, so that
 * rules differing only there share buckets.
 */
static void gen_ifaces(struct rng *g, struct tm_rule *r)
{
	u32 which;

	if (rng_below(g, 8))
		return;
	which = 1 + rng_below(g, 3);
	if (which & 1)
		r->iif = 1 + rng_below(g, 3);
	if (which & 2)
		r->oif = 1 + rng_below(g, 3);
}

/* A non-empty subset of @all, mostly one or two values. */
static u64 gen_set(struct rng *g, unsigned int nvalues)
{
	u64 set = 1ULL << rng_below(g, nvalues);

	if (rng_below(g, 2))
		set |= 1ULL << rng_below(g, nvalues);
	if (!rng_below(g, 4))
		set |= rng_next(g) & ((nvalues < 64 ? 1ULL << nvalues : 0) - 1);
	return set;
}

static const u32 pool_marks[] = { 0, 1, 2, 0x10, 0x110, 0xffffffff };
static const u8 pool_dscp[] = { 0, 10, 26, 46, 63 };

/*
 * The fields of a stateful firewall: one rule in 6 has some, each on its
 * own, from small pools so that keys and rules meet.
 */
static void gen_extras(struct rng *g, struct tm_rule *r)
{
	static const u32 masks[] = { 0x1, 0xff, 0xffffffff, 0xf0 };
	static const u8 flag_masks[] = {
		TM_TCP_SYN | TM_TCP_ACK | TM_TCP_RST | TM_TCP_FIN,
		TM_TCP_SYN, TM_TCP_ACK, TM_TCP_SYN | TM_TCP_ACK,
	};
	unsigned int lo, hi;

	if (rng_below(g, 6))
		return;
	if (rng_below(g, 2))
		r->ct_set = rng_below(g, 2) ? 1 << TM_CT_ESTABLISHED |
					      1 << TM_CT_RELATED :
			    gen_set(g, TM_CT_MAX + 1);
	if (!rng_below(g, 3)) {
		r->mark_mask = masks[rng_below(g, 4)];
		r->mark = pool_marks[rng_below(g, 6)] & r->mark_mask;
	}
	if (!rng_below(g, 3)) {
		lo = pool_dscp[rng_below(g, 5)];
		hi = rng_below(g, 2) ? lo : lo + rng_below(g, 64 - lo);
		for (; lo <= hi; lo++)
			r->dscp_set |= 1ULL << lo;
	}
	if (!rng_below(g, 3))
		r->frag_set = gen_set(g, TM_FRAG_MAX + 1);
	if (!r->proto_any && r->proto == 6 && rng_below(g, 2)) {
		r->tcp_flags_mask = flag_masks[rng_below(g, 4)];
		r->tcp_flags = (u8)rng_next(g) & r->tcp_flags_mask;
	}
}

void gen_rule(struct rng *g, u8 family, u32 id, struct tm_rule *r)
{
	/*
	 * The extra fields from a stream of their own, so that the 5-tuples
	 * drawn from @g are those drawn before they existed: the sets the
	 * tests were tuned on (nested splits, collisions) stay the same.
	 */
	struct rng x = { .s = g->s ^ 0x9e3779b97f4a7c15ULL };

	memset(r, 0, sizeof(*r));
	r->id = id;
	r->priority = rng_below(g, 4) ? rng_below(g, 1000) : rng_below(g, 4);
	r->family = family;
	r->src_len = gen_len(g, family);
	r->dst_len = gen_len(g, family);
	gen_addr(g, family, &r->src);
	gen_addr(g, family, &r->dst);
	mask_addr(&r->src, r->src_len);
	mask_addr(&r->dst, r->dst_len);
	gen_range(g, &r->sport_lo, &r->sport_hi);
	gen_range(g, &r->dport_lo, &r->dport_hi);
	if (rng_below(g, 3) == 0)
		r->proto_any = 1;
	else
		r->proto = rng_below(g, 3) ? 6 : rng_below(g, 2) ? 17 : 0;
	r->action = rng_next(g);
	gen_ifaces(g, r);
	gen_extras(&x, r);
}

/* One to three values, now and then OSET_MAX. */
static unsigned int gen_set_size(struct rng *g)
{
	return rng_below(g, 16) ? 1 + rng_below(g, 3) : OSET_MAX;
}

void gen_rule_set(struct rng *g, u8 family, u32 id, struct tm_rule *r,
		  struct oset *os)
{
	static const u8 protos[] = { 6, 17, 0, 1 };
	unsigned int i, fields;
	struct rng y;

	gen_rule(g, family, id, r);
	y.s = g->s ^ 0x6a09e667f3bcc909ULL;
	memset(os, 0, sizeof(*os));
	if (rng_below(&y, 4))
		return;
	/* Fields with a set: bits 0..4, src, dst, sport, dport, proto. */
	do {
		fields = rng_below(&y, 32);
	} while (!fields || __builtin_popcount(fields) > 3);
	/* TCP flags need every entry's protocol to be tcp. */
	if (r->tcp_flags_mask)
		fields &= ~16u;
	if (fields & 1) {
		os->nsrc = gen_set_size(&y);
		for (i = 0; i < os->nsrc; i++) {
			os->src[i].len = gen_len(&y, family);
			gen_addr(&y, family, &os->src[i].addr);
			mask_addr(&os->src[i].addr, os->src[i].len);
		}
	}
	if (fields & 2) {
		os->ndst = gen_set_size(&y);
		for (i = 0; i < os->ndst; i++) {
			os->dst[i].len = gen_len(&y, family);
			gen_addr(&y, family, &os->dst[i].addr);
			mask_addr(&os->dst[i].addr, os->dst[i].len);
		}
	}
	if (fields & 4) {
		os->nsport = gen_set_size(&y);
		for (i = 0; i < os->nsport; i++)
			gen_range(&y, &os->sport[i].lo, &os->sport[i].hi);
	}
	if (fields & 8) {
		os->ndport = gen_set_size(&y);
		for (i = 0; i < os->ndport; i++)
			gen_range(&y, &os->dport[i].lo, &os->dport[i].hi);
	}
	if (fields & 16) {
		os->nproto = 1 + rng_below(&y, 3);
		for (i = 0; i < os->nproto; i++)
			os->proto[i] = protos[rng_below(&y, 4)];
	}
}

void gen_key_set(struct rng *g, u8 family, const struct tm_rule *r,
		 const struct oset *os, struct tm_key *k)
{
	struct tm_rule e = *r;
	unsigned int i;

	if (os && os->nsrc) {
		i = rng_below(g, os->nsrc);
		e.src = os->src[i].addr;
		e.src_len = os->src[i].len;
	}
	if (os && os->ndst) {
		i = rng_below(g, os->ndst);
		e.dst = os->dst[i].addr;
		e.dst_len = os->dst[i].len;
	}
	if (os && os->nsport) {
		i = rng_below(g, os->nsport);
		e.sport_lo = os->sport[i].lo;
		e.sport_hi = os->sport[i].hi;
	}
	if (os && os->ndport) {
		i = rng_below(g, os->ndport);
		e.dport_lo = os->dport[i].lo;
		e.dport_hi = os->dport[i].hi;
	}
	if (os && os->nproto) {
		e.proto = os->proto[rng_below(g, os->nproto)];
		e.proto_any = 0;
	}
	gen_key(g, family, &e, k);
}

/* One value of @set (any value below @n when empty). */
static unsigned int pick_in(struct rng *g, u64 set, unsigned int n)
{
	unsigned int v, tries;

	if (!set)
		return rng_below(g, n);
	for (tries = 0; tries < 256; tries++) {
		v = rng_below(g, n);
		if (set >> v & 1)
			return v;
	}
	for (v = 0; !(set >> v & 1); v++)
		;
	return v;
}

/*
 * The extra fields of a key: inside @r's when given, else anywhere.  TCP
 * flags only for TCP, as the module fills them.
 */
static void gen_key_extras(struct rng *g, const struct tm_rule *r,
			   struct tm_key *k)
{
	static const struct tm_rule any;

	if (!r)
		r = &any;
	k->ct = pick_in(g, r->ct_set, TM_CT_MAX + 1);
	k->frag = pick_in(g, r->frag_set, TM_FRAG_MAX + 1);
	k->dscp = r->dscp_set || rng_below(g, 2) ?
		  pick_in(g, r->dscp_set, 64) : pool_dscp[rng_below(g, 5)];
	k->mark = pool_marks[rng_below(g, 6)];
	if (r->mark_mask)
		k->mark = (k->mark & ~r->mark_mask) | r->mark;
	if (k->proto == 6)
		k->tcp_flags = ((u8)rng_next(g) & ~r->tcp_flags_mask) |
			       r->tcp_flags;
}

/* Interfaces of a key: 0 (none) to 3, or those of @r when given. */
static void gen_key_ifaces(struct rng *g, const struct tm_rule *r,
			   struct tm_key *k)
{
	k->iif = r && r->iif ? r->iif : rng_below(g, 4);
	k->oif = r && r->oif ? r->oif : rng_below(g, 4);
}

static void fill_host(struct rng *g, struct tm_addr *a, unsigned int len,
		      unsigned int bits)
{
	unsigned int i;

	for (i = 0; i < bits / 32; i++) {
		u32 keep = len >= 32 * (i + 1) ? ~0u : len <= 32 * i ? 0 :
			   ~0u << (32 - (len - 32 * i));
		u32 rnd = rng_below(g, 2) ? (u32)rng_next(g) :
			  rng_below(g, 2) ? 0 : ~0u;

		a->w[i] = (a->w[i] & keep) | (rnd & ~keep);
	}
}

void gen_key(struct rng *g, u8 family, const struct tm_rule *r,
	     struct tm_key *k)
{
	unsigned int bits = family == TM_AF_INET ? 32 : 128;
	/* The extra fields from their own stream, as in gen_rule(). */
	struct rng x = { .s = g->s ^ 0xd1b54a32d192ed03ULL };

	memset(k, 0, sizeof(*k));
	k->family = family;
	if (!r) {
		struct tm_rule tmp;

		gen_rule(g, family, 0, &tmp);
		r = &tmp;
		k->src = r->src;
		k->dst = r->dst;
		fill_host(g, &k->src, rng_below(g, bits + 1), bits);
		fill_host(g, &k->dst, rng_below(g, bits + 1), bits);
		k->sport = rng_below(g, 2) ? pool_ports[rng_below(g, 11)] :
					     (u16)rng_next(g);
		k->dport = pool_ports[rng_below(g, 11)];
		k->proto = rng_below(g, 2) ? 6 : 17;
		gen_key_ifaces(g, NULL, k);
		gen_key_extras(&x, NULL, k);
		return;
	}
	k->src = r->src;
	k->dst = r->dst;
	fill_host(g, &k->src, r->src_len, bits);
	fill_host(g, &k->dst, r->dst_len, bits);
	k->sport = r->sport_lo + rng_below(g, r->sport_hi - r->sport_lo + 1);
	k->dport = r->dport_lo + rng_below(g, r->dport_hi - r->dport_lo + 1);
	if (rng_below(g, 2))
		k->sport = rng_below(g, 2) ? r->sport_lo : r->sport_hi;
	k->proto = r->proto_any ? rng_below(g, 256) : r->proto;
	/*
	 * Now and then on other interfaces, or other extra fields: @r fails,
	 * worse rules may not.
	 */
	gen_key_ifaces(g, rng_below(g, 4) ? r : NULL, k);
	gen_key_extras(&x, rng_below(&x, 4) ? r : NULL, k);
}

bool rule_eq(const struct tm_rule *a, const struct tm_rule *b)
{
	return a->id == b->id && a->priority == b->priority &&
	       a->family == b->family && a->src_len == b->src_len &&
	       a->dst_len == b->dst_len && a->proto == b->proto &&
	       a->proto_any == b->proto_any && a->sport_lo == b->sport_lo &&
	       a->sport_hi == b->sport_hi && a->dport_lo == b->dport_lo &&
	       a->dport_hi == b->dport_hi && a->action == b->action &&
	       a->iif == b->iif && a->oif == b->oif &&
	       a->mark == b->mark && a->mark_mask == b->mark_mask &&
	       a->dscp_set == b->dscp_set && a->ct_set == b->ct_set &&
	       a->frag_set == b->frag_set &&
	       a->tcp_flags_mask == b->tcp_flags_mask &&
	       a->tcp_flags == b->tcp_flags &&
	       !memcmp(&a->src, &b->src, sizeof(a->src)) &&
	       !memcmp(&a->dst, &b->dst, sizeof(a->dst));
}
