// SPDX-License-Identifier: GPL-2.0
/*
 * The classifier interface: what a rule is and when it matches, parameter
 * and rule checks, the id index, and the dispatch of every operation to the
 * engine of the classifier (tm_linear.c, tm_tuple.c).
 */
#include "tm_internal.h"

void tm_params_default(struct tm_params *p)
{
	memset(p, 0, sizeof(*p));
	p->engine = TM_ENGINE_TUPLEMERGE;
	/*
	 * Defaults measured on the ClassBench acl1, fw1 and ipc1 sets (see
	 * Documentation/performance.rst); the theory is in tm_tuple.c.
	 *
	 * Collision limit c: the paper's code uses 10, VPP 39.  Lower means
	 * shorter chains but more tuples, and every tuple costs every lookup
	 * a probe: 48 gave the fewest probes per lookup on the three sets
	 * (2.7, 3.4 and 4.4), with buckets scanned in rank order and left at
	 * the first match.
	 */
	p->collide = 48;
	/*
	 * Prefix gap: a new tuple hashes only the longer address when the
	 * other is shorter (the reference code allows 4 bits of difference):
	 * fewer, more general tuples, whose collisions the splits resolve.
	 */
	p->gap = 0;
	/*
	 * New tuples hash addresses only: a tuple that hashed an exact port
	 * would turn away every rule with a port range, and fw-like sets
	 * would need two tuples for each address shape.  A split adds the
	 * port or the protocol when it tells the colliding rules apart.
	 */
	p->hash = 0;
}

int tm_params_check(const struct tm_params *p, const char **why)
{
	if (p->engine > TM_ENGINE_MAX) {
		*why = "unknown engine";
		return -EINVAL;
	}
	if (p->engine == TM_ENGINE_TUPLEMERGE && (p->collide < 1 ||
						  p->collide > 128)) {
		*why = "collision limit out of range 1..128";
		return -EINVAL;
	}
	if (p->gap > 128) {
		*why = "prefix gap out of range 0..128";
		return -EINVAL;
	}
	if (p->hash & ~(TM_HASH_SPORT | TM_HASH_DPORT | TM_HASH_PROTO)) {
		*why = "unknown hashed field";
		return -EINVAL;
	}
	return 0;
}

bool tm_prefix_clean(const struct tm_addr *a, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < 4; i++)
		if (a->w[i] & ~tm_mask_word(len, i))
			return false;
	return true;
}

static int tm_rule_fault(struct tm_rule_fault *f, enum tm_rule_part part,
			 const char *why)
{
	f->part = part;
	f->why = why;
	return -EINVAL;
}

int tm_rule_check(const struct tm_rule *r, struct tm_rule_fault *f)
{
	const char *too_long;
	unsigned int max;

	if (r->family != TM_AF_INET && r->family != TM_AF_INET6)
		return tm_rule_fault(f, TM_RP_RULE,
				     "Rule family must be IPv4 or IPv6");
	max = r->family == TM_AF_INET ? 32 : 128;
	too_long = r->family == TM_AF_INET ?
		   "Prefix length out of range 0..32 for IPv4" :
		   "Prefix length out of range 0..128 for IPv6";
	if (r->src_len > max)
		return tm_rule_fault(f, TM_RP_SRC_LEN, too_long);
	if (r->dst_len > max)
		return tm_rule_fault(f, TM_RP_DST_LEN, too_long);
	if (!tm_prefix_clean(&r->src, r->src_len))
		return tm_rule_fault(f, TM_RP_SRC,
				     "Address has bits set past its prefix length");
	if (!tm_prefix_clean(&r->dst, r->dst_len))
		return tm_rule_fault(f, TM_RP_DST,
				     "Address has bits set past its prefix length");
	if (r->sport_lo > r->sport_hi)
		return tm_rule_fault(f, TM_RP_SPORT,
				     "Port range with its low end above its high end");
	if (r->dport_lo > r->dport_hi)
		return tm_rule_fault(f, TM_RP_DPORT,
				     "Port range with its low end above its high end");
	if (r->proto_any > 1 || (r->proto_any && r->proto))
		return tm_rule_fault(f, TM_RP_PROTO,
				     "Protocol both any and given");
	/*
	 * Any iif and oif is valid: 0 is any interface, and an ifindex that
	 * names no device (yet) is only a rule that matches no packet.  So
	 * is any DSCP set: the bits past 63 are never a key's.
	 */
	if (r->mark & ~r->mark_mask)
		return tm_rule_fault(f, TM_RP_MARK,
				     "Mark value has bits outside its mask");
	if (r->ct_set >> (TM_CT_MAX + 1))
		return tm_rule_fault(f, TM_RP_CT, "Unknown connection state");
	if (r->frag_set >> (TM_FRAG_MAX + 1))
		return tm_rule_fault(f, TM_RP_FRAG, "Unknown fragment kind");
	if (r->tcp_flags & ~r->tcp_flags_mask)
		return tm_rule_fault(f, TM_RP_TCP_FLAGS,
				     "TCP flags value has flags outside its mask");
	if (r->tcp_flags_mask && (r->proto_any || r->proto != 6))
		return tm_rule_fault(f, TM_RP_TCP_FLAGS,
				     "A TCP flags match needs protocol tcp");
	return 0;
}

static bool tm_rule_set_any(const struct tm_rule_set *s)
{
	return s && (s->nsrc || s->ndst || s->nsport || s->ndport ||
		     s->nproto);
}

u32 tm_rule_set_entries(const struct tm_rule_set *s)
{
	u16 n[5];
	u64 p = 1;
	u32 i;

	if (!s)
		return 1;
	n[0] = s->nsrc;
	n[1] = s->ndst;
	n[2] = s->nsport;
	n[3] = s->ndport;
	n[4] = s->nproto;
	for (i = 0; i < 5; i++) {
		if (!n[i])
			continue;
		p *= n[i];
		if (p > TM_RULE_ENTRIES_MAX)
			return TM_RULE_ENTRIES_MAX + 1;
	}
	return p;
}

/* Entry @i: the digits of @i, in the bases of the set sizes, pick values. */
void tm_rule_set_entry(const struct tm_rule *r, const struct tm_rule_set *s,
		       u32 i, struct tm_rule *out)
{
	*out = *r;
	if (!s)
		return;
	if (s->nsrc) {
		out->src = s->src[i % s->nsrc].addr;
		out->src_len = s->src[i % s->nsrc].len;
		i /= s->nsrc;
	}
	if (s->ndst) {
		out->dst = s->dst[i % s->ndst].addr;
		out->dst_len = s->dst[i % s->ndst].len;
		i /= s->ndst;
	}
	if (s->nsport) {
		out->sport_lo = s->sport[i % s->nsport].lo;
		out->sport_hi = s->sport[i % s->nsport].hi;
		i /= s->nsport;
	}
	if (s->ndport) {
		out->dport_lo = s->dport[i % s->ndport].lo;
		out->dport_hi = s->dport[i % s->ndport].hi;
		i /= s->ndport;
	}
	if (s->nproto) {
		out->proto = s->proto[i % s->nproto];
		out->proto_any = 0;
	}
}

static_assert(TM_RULE_ENTRIES_MAX == 4096, "the message names the bound");

/*
 * Each entry is checked whole: a field can be valid alone and not with the
 * value of another set (tcp-flags with a protocol set holding udp).
 */
int tm_rule_set_check(const struct tm_rule *r, const struct tm_rule_set *s,
		      struct tm_rule_fault *f)
{
	u32 i, n = tm_rule_set_entries(s);
	struct tm_rule e;
	int err;

	if (n > TM_RULE_ENTRIES_MAX)
		return tm_rule_fault(f, TM_RP_SETS,
				     "Sets expand to more than 4096 entries (their cross product)");
	for (i = 0; i < n; i++) {
		tm_rule_set_entry(r, s, i, &e);
		err = tm_rule_check(&e, f);
		if (err)
			return err;
	}
	return 0;
}

bool tm_rule_has_extra(const struct tm_rule *r)
{
	return r->iif || r->oif || r->mark_mask || r->dscp_set || r->ct_set ||
	       r->frag_set || r->tcp_flags_mask;
}

/* A set of values, bit 1 << value each, admits @v; 0 admits all. */
static bool tm_set_has(u64 set, unsigned int v)
{
	return !set || (v < 64 && (set >> v & 1));
}

bool tm_rule_extra_match(const struct tm_rule *r, const struct tm_key *k)
{
	return (!r->iif || r->iif == k->iif) &&
	       (!r->oif || r->oif == k->oif) &&
	       (k->mark & r->mark_mask) == r->mark &&
	       (k->tcp_flags & r->tcp_flags_mask) == r->tcp_flags &&
	       tm_set_has(r->ct_set, k->ct) &&
	       tm_set_has(r->frag_set, k->frag) &&
	       tm_set_has(r->dscp_set, k->dscp);
}

bool tm_rule_matches(const struct tm_rule *r, const struct tm_key *k)
{
	unsigned int i, nw = r->family == TM_AF_INET ? 1 : 4;

	if (k->family != r->family)
		return false;
	for (i = 0; i < nw; i++) {
		if ((k->src.w[i] & tm_mask_word(r->src_len, i)) != r->src.w[i] ||
		    (k->dst.w[i] & tm_mask_word(r->dst_len, i)) != r->dst.w[i])
			return false;
	}
	return k->sport >= r->sport_lo && k->sport <= r->sport_hi &&
	       k->dport >= r->dport_lo && k->dport <= r->dport_hi &&
	       (r->proto_any || k->proto == r->proto) &&
	       tm_rule_extra_match(r, k);
}

/* The id index: a chained hash table that grows with the rule count. */

static u32 tm_id_slot(const struct tm_cls *cls, u32 id)
{
	return (id * 0x9e3779b1u) >> 7 & cls->ids_mask;
}

static struct tm_rrec *tm_id_find(const struct tm_cls *cls, u32 id)
{
	struct tm_rrec *rr = cls->ids[tm_id_slot(cls, id)];

	while (rr && rr->rule.id != id)
		rr = rr->id_next;
	return rr;
}

/* Best effort: if the bigger index cannot be allocated, chains grow. */
static void tm_id_grow(struct tm_cls *cls)
{
	u32 i, old_mask = cls->ids_mask, mask = old_mask * 2 + 1;
	struct tm_rrec **old = cls->ids, **ids;

	ids = tm_vzalloc(sizeof(*ids) * (mask + 1));
	if (!ids)
		return;
	cls->ids = ids;
	cls->ids_mask = mask;
	for (i = 0; i <= old_mask; i++) {
		while (old[i]) {
			struct tm_rrec *rr = old[i];
			u32 slot = tm_id_slot(cls, rr->rule.id);

			old[i] = rr->id_next;
			rr->id_next = ids[slot];
			ids[slot] = rr;
		}
	}
	tm_vfree(old);
}

static void tm_id_add(struct tm_cls *cls, struct tm_rrec *rr)
{
	u32 slot = tm_id_slot(cls, rr->rule.id);

	rr->id_next = cls->ids[slot];
	cls->ids[slot] = rr;
	if (++cls->nrules > cls->ids_mask)
		tm_id_grow(cls);
}

static void tm_id_del(struct tm_cls *cls, struct tm_rrec *rr)
{
	struct tm_rrec **pp = &cls->ids[tm_id_slot(cls, rr->rule.id)];

	while (*pp != rr)
		pp = &(*pp)->id_next;
	*pp = rr->id_next;
	cls->nrules--;
}

#define TM_IDS_INIT	64

/* Free the rest of the set rule @rr (if it is one) with its entries. */
static void tm_rset_free(struct tm_cls *cls, struct tm_rrec *rr)
{
	struct tm_rset *rs = rr->set;
	u32 i;

	if (!rs)
		return;
	for (i = 1; i < rs->n; i++)
		tm_retire(&cls->v4, rs->more[i - 1], rcu);
	cls->set_bytes -= rs->bytes;
	tm_vfree(rs);
	rr->set = NULL;
}

/* Copy @len bytes of @src (NULL when 0) to *@p and step past them. */
static void *tm_rset_copy(char **p, const void *src, size_t len)
{
	void *dst = *p;

	if (!len)
		return NULL;
	memcpy(dst, src, len);
	*p += len;
	return dst;
}

/* A copy of the sets @s for @n entries: the tm_rset of a new set rule. */
static struct tm_rset *tm_rset_new(struct tm_cls *cls,
				   const struct tm_rule_set *s, u32 n)
{
	size_t psz = sizeof(struct tm_set_prefix);
	size_t rsz = sizeof(struct tm_set_range);
	size_t bytes = sizeof(struct tm_rset) +
		       (n - 1) * sizeof(struct tm_rrec *) +
		       (s->nsrc + s->ndst) * psz +
		       (s->nsport + s->ndport) * rsz + s->nproto;
	struct tm_rset *rs = tm_vzalloc(bytes);
	char *p;

	if (!rs)
		return NULL;
	rs->n = n;
	rs->bytes = bytes;
	rs->set = *s;
	p = (char *)&rs->more[n - 1];
	rs->set.src = tm_rset_copy(&p, s->src, s->nsrc * psz);
	rs->set.dst = tm_rset_copy(&p, s->dst, s->ndst * psz);
	rs->set.sport = tm_rset_copy(&p, s->sport, s->nsport * rsz);
	rs->set.dport = tm_rset_copy(&p, s->dport, s->ndport * rsz);
	rs->set.proto = tm_rset_copy(&p, s->proto, s->nproto);
	cls->set_bytes += bytes;
	return rs;
}

struct tm_cls *tm_cls_create(const struct tm_params *p)
{
	struct tm_cls *cls;
	const char *why;

	if (tm_params_check(p, &why))
		return NULL;
	cls = tm_zalloc(sizeof(*cls));
	if (!cls)
		return NULL;
	cls->ids = tm_vzalloc(sizeof(*cls->ids) * TM_IDS_INIT);
	if (!cls->ids) {
		tm_free(cls);
		return NULL;
	}
	cls->ids_mask = TM_IDS_INIT - 1;
	cls->p = *p;
	cls->seed = tm_random_u32();
	cls->v4.seed = cls->seed;
	cls->v6.seed = cls->seed;
	cls->v4.family = TM_AF_INET;
	cls->v4.nw = 1;
	cls->v6.family = TM_AF_INET6;
	cls->v6.nw = 4;
	return cls;
}

static bool tm_is_linear(const struct tm_cls *cls)
{
	return cls->p.engine == TM_ENGINE_LINEAR;
}

void tm_cls_destroy(struct tm_cls *cls)
{
	u32 i;

	if (!cls)
		return;
	if (tm_is_linear(cls)) {
		tm_linear_destroy(&cls->v4);
		tm_linear_destroy(&cls->v6);
	} else {
		tm_tuple_destroy(&cls->v4);
		tm_tuple_destroy(&cls->v6);
	}
	for (i = 0; i <= cls->ids_mask; i++) {
		if (!(i % 1024))
			tm_cond_resched();
		while (cls->ids[i]) {
			struct tm_rrec *rr = cls->ids[i];

			cls->ids[i] = rr->id_next;
			tm_rset_free(cls, rr);
			tm_retire(&cls->v4, rr, rcu);
		}
	}
	tm_vfree(cls->ids);
	tm_retire(&cls->v4, cls, rcu);
}

void tm_cls_set_private(struct tm_cls *cls, bool priv)
{
	cls->v4.priv = priv;
	cls->v6.priv = priv;
}

/* Make a rule record and place it; on failure nothing is changed. */
static int tm_place(struct tm_cls *cls, const struct tm_rule *r,
		    struct tm_rrec **out)
{
	struct tm_fam *f = tm_fam_of(cls, r->family);
	struct tm_rrec *rr;
	int err;

	rr = tm_zalloc(sizeof(*rr));
	if (!rr)
		return -ENOMEM;
	rr->rule = *r;
	if (tm_is_linear(cls))
		err = tm_linear_insert(f, rr);
	else
		err = tm_tuple_insert(cls, f, rr);
	if (err) {
		tm_free(rr);
		return err;
	}
	f->rules++;
	*out = rr;
	return 0;
}

static void tm_unplace(struct tm_cls *cls, struct tm_rrec *rr)
{
	struct tm_fam *f = tm_fam_of(cls, rr->rule.family);

	if (tm_is_linear(cls))
		tm_linear_remove(f, rr);
	else
		tm_tuple_remove(cls, f, rr);
	f->rules--;
	tm_retire(f, rr, rcu);
}

/* Entry @i of the rule whose first entry is @rr. */
static struct tm_rrec *tm_entry(struct tm_rrec *rr, u32 i)
{
	return i ? rr->set->more[i - 1] : rr;
}

/*
 * Remove the entries of the rule @rr, one step each, and free them.  As
 * many steps as entries: deletes never fail, and each entry's removal is
 * atomic for lookups on its own.
 */
static void tm_unplace_all(struct tm_cls *cls, struct tm_rrec *rr)
{
	struct tm_rset *rs = rr->set;
	u32 i = rs ? rs->n : 1;

	while (i--) {
		tm_write_begin(cls);
		tm_unplace(cls, tm_entry(rr, i));
		tm_write_end(cls);
		if (!(i % 256))
			tm_cond_resched();
	}
	if (rs) {
		cls->set_bytes -= rs->bytes;
		tm_vfree(rs);
	}
}

/*
 * Place every entry of the rule @r, @s, one step each; *@out is the first.
 * On failure, those placed are removed again and nothing is left.
 */
static int tm_place_all(struct tm_cls *cls, const struct tm_rule *r,
			const struct tm_rule_set *s, struct tm_rrec **out)
{
	u32 i, n = tm_rule_set_entries(s);
	struct tm_rset *rs = NULL;
	struct tm_rrec *rr, *first = NULL;
	struct tm_rule e;
	int err;

	if (tm_rule_set_any(s)) {
		rs = tm_rset_new(cls, s, n);
		if (!rs)
			return -ENOMEM;
		s = &rs->set;
	}
	for (i = 0; i < n; i++) {
		tm_rule_set_entry(r, s, i, &e);
		tm_write_begin(cls);
		err = tm_place(cls, &e, &rr);
		tm_write_end(cls);
		if (err)
			goto undo;
		if (i)
			rs->more[i - 1] = rr;
		else
			first = rr;
		if (!(i % 256))
			tm_cond_resched();
	}
	first->set = rs;
	*out = first;
	return 0;
undo:
	if (i) {
		/* What was placed, without the entries that were not. */
		if (rs)
			rs->n = i;
		first->set = rs;
		tm_unplace_all(cls, first);
	} else if (rs) {
		cls->set_bytes -= rs->bytes;
		tm_vfree(rs);
	}
	return err;
}

/* Entries @r, @s would add to @cls, past its max_rules: -ENOSPC. */
static int tm_room(const struct tm_cls *cls, const struct tm_rule_set *s,
		   u32 leaving)
{
	u32 n = tm_rule_set_entries(s), used = tm_cls_entries(cls) - leaving;

	if (cls->p.max_rules && (used >= cls->p.max_rules ||
				 n > cls->p.max_rules - used))
		return -ENOSPC;
	return 0;
}

int tm_cls_insert_set(struct tm_cls *cls, const struct tm_rule *r,
		      const struct tm_rule_set *s)
{
	struct tm_rule_fault fault;
	struct tm_rrec *rr;
	int err;

	err = tm_rule_set_check(r, s, &fault);
	if (err)
		return err;
	if (tm_id_find(cls, r->id))
		return -EEXIST;
	err = tm_room(cls, s, 0);
	if (err)
		return err;
	err = tm_place_all(cls, r, s, &rr);
	if (err)
		return err;
	tm_id_add(cls, rr);
	return 0;
}

int tm_cls_insert(struct tm_cls *cls, const struct tm_rule *r)
{
	return tm_cls_insert_set(cls, r, NULL);
}

int tm_cls_delete(struct tm_cls *cls, u32 id)
{
	struct tm_rrec *rr = tm_id_find(cls, id);

	if (!rr)
		return -ENOENT;
	tm_id_del(cls, rr);
	tm_unplace_all(cls, rr);
	return 0;
}

/*
 * The new entries are placed before the old ones are removed: a lookup
 * meanwhile may see both, and whichever it returns is the answer of the
 * classifier either before or after the replacement (they rank the same).
 * Placing and removing are separate steps for lookups (see
 * tm_write_next()), so that none sees a removal without the placements.
 */
int tm_cls_replace_set(struct tm_cls *cls, const struct tm_rule *r,
		       const struct tm_rule_set *s)
{
	struct tm_rrec *old = tm_id_find(cls, r->id), *rr;
	struct tm_rule_fault fault;
	int err;

	err = tm_rule_set_check(r, s, &fault);
	if (err)
		return err;
	if (!old)
		return -ENOENT;
	err = tm_room(cls, s, old->set ? old->set->n : 1);
	if (err)
		return err;
	err = tm_place_all(cls, r, s, &rr);
	if (err)
		return err;
	tm_id_del(cls, old);
	tm_unplace_all(cls, old);
	tm_id_add(cls, rr);
	return 0;
}

int tm_cls_replace(struct tm_cls *cls, const struct tm_rule *r)
{
	return tm_cls_replace_set(cls, r, NULL);
}

const struct tm_rule *tm_cls_find(const struct tm_cls *cls, u32 id)
{
	struct tm_rrec *rr = tm_id_find(cls, id);

	return rr ? &rr->rule : NULL;
}

const struct tm_rule_set *tm_cls_find_set(const struct tm_cls *cls, u32 id)
{
	struct tm_rrec *rr = tm_id_find(cls, id);

	return rr && rr->set ? &rr->set->set : NULL;
}

/* @ents only with @probes; the linear engine's entries are its probes. */
static __always_inline const struct tm_rule *
tm_lookup_once(const struct tm_cls *cls, const struct tm_key *key,
	       u32 *probes, u32 *ents)
{
	const struct tm_rule *r;

	if (unlikely(tm_is_linear(cls))) {
		r = tm_linear_lookup(key->family == TM_AF_INET ?
				     &cls->v4 : &cls->v6, key, probes);
		if (ents)
			*ents = *probes;
		return r;
	}
	if (likely(key->family == TM_AF_INET))
		return tm_tuple_lookup4(&cls->v4, key, probes, ents);
	return tm_tuple_lookup6(&cls->v6, key, probes, ents);
}

static __always_inline const struct tm_rule *
tm_lookup(const struct tm_cls *cls, const struct tm_key *key, u32 *probes,
	  u32 *ents)
{
	const struct tm_rule *r;
	u32 seq;

	do {
		seq = tm_read_begin(cls);
		if (probes)
			*probes = 0;
		if (ents)
			*ents = 0;
		r = tm_lookup_once(cls, key, probes, ents);
	} while (unlikely(tm_read_again(cls, seq)));
	return r;
}

const struct tm_rule *tm_cls_lookup(const struct tm_cls *cls,
				    const struct tm_key *key)
{
	return tm_lookup(cls, key, NULL, NULL);
}

const struct tm_rule *tm_cls_lookup_probes(const struct tm_cls *cls,
					   const struct tm_key *key,
					   u32 *probes)
{
	return tm_lookup(cls, key, probes, NULL);
}

const struct tm_rule *tm_cls_lookup_cost(const struct tm_cls *cls,
					 const struct tm_key *key,
					 struct tm_lookup_cost *cost)
{
	return tm_lookup(cls, key, &cost->probes, &cost->entries);
}

void tm_cls_lookup_bulk(const struct tm_cls *cls, const struct tm_key *keys,
			unsigned int n, const struct tm_rule **res)
{
	u8 idx4[TM_LOOKUP_BULK_MAX], idx6[TM_LOOKUP_BULK_MAX];
	unsigned int i, m, n4, n6;
	u32 seq;

	for (; n; n -= m, keys += m, res += m) {
		m = n < TM_LOOKUP_BULK_MAX ? n : TM_LOOKUP_BULK_MAX;
		n4 = 0;
		n6 = 0;
		for (i = 0; i < m; i++) {
			if (likely(keys[i].family == TM_AF_INET))
				idx4[n4++] = i;
			else
				idx6[n6++] = i;
		}
		/* As tm_lookup(), for the whole batch. */
		do {
			seq = tm_read_begin(cls);
			if (unlikely(tm_is_linear(cls))) {
				for (i = 0; i < m; i++)
					res[i] = tm_lookup_once(cls, &keys[i],
								NULL, NULL);
			} else {
				if (n4)
					tm_tuple_lookup_bulk4(&cls->v4, keys,
							      idx4, n4, res);
				if (n6)
					tm_tuple_lookup_bulk6(&cls->v6, keys,
							      idx6, n6, res);
			}
		} while (unlikely(tm_read_again(cls, seq)));
	}
}

int tm_cls_for_each(const struct tm_cls *cls,
		    int (*fn)(const struct tm_rule *r, void *arg), void *arg)
{
	struct tm_rrec *rr;
	u32 i;
	int ret;

	for (i = 0; i <= cls->ids_mask; i++) {
		/* As long as the rules: a flush, a copy, a dump's ids. */
		if (!(i % 1024))
			tm_cond_resched();
		for (rr = cls->ids[i]; rr; rr = rr->id_next) {
			ret = fn(&rr->rule, arg);
			if (ret)
				return ret;
		}
	}
	return 0;
}

u32 tm_cls_rules(const struct tm_cls *cls)
{
	return cls->nrules;
}

u32 tm_cls_entries(const struct tm_cls *cls)
{
	return cls->v4.rules + cls->v6.rules;
}

void tm_cls_stats(const struct tm_cls *cls, struct tm_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->rules = cls->nrules;
	st->entries = tm_cls_entries(cls);
	st->splits = cls->splits;
	st->merges = cls->merges;
	st->bytes = sizeof(*cls) + sizeof(*cls->ids) * (cls->ids_mask + 1) +
		    sizeof(struct tm_rrec) * st->entries + cls->set_bytes;
	if (tm_is_linear(cls)) {
		tm_linear_stats(&cls->v4, st);
		tm_linear_stats(&cls->v6, st);
	} else {
		tm_tuple_stats(&cls->v4, st);
		st->tuples4 = st->tuples;
		tm_tuple_stats(&cls->v6, st);
		st->tuples6 = st->tuples - st->tuples4;
	}
}

int tm_cls_tuples(const struct tm_cls *cls,
		  int (*fn)(const struct tm_tuple_info *ti, void *arg),
		  void *arg)
{
	if (tm_is_linear(cls))
		return 0;
	return tm_tuple_walk(&cls->v4, fn, arg) ?:
	       tm_tuple_walk(&cls->v6, fn, arg);
}

/* The id index against the families' counts and the set rules' entries. */
static int tm_ids_verify(const struct tm_cls *cls, const char **why)
{
	u32 i, j, heads = 0, entries = 0;
	u64 set_bytes = 0;
	struct tm_rrec *rr;

	for (i = 0; i <= cls->ids_mask; i++) {
		for (rr = cls->ids[i]; rr; rr = rr->id_next) {
			heads++;
			entries++;
			if (!rr->set)
				continue;
			set_bytes += rr->set->bytes;
			entries += rr->set->n - 1;
			if (rr->set->n != tm_rule_set_entries(&rr->set->set)) {
				*why = "set rule entry count is not its cross product";
				return -EUCLEAN;
			}
			for (j = 1; j < rr->set->n; j++) {
				if (rr->set->more[j - 1]->rule.id != rr->rule.id ||
				    rr->set->more[j - 1]->set) {
					*why = "set rule entry of another rule";
					return -EUCLEAN;
				}
			}
		}
	}
	if (heads != cls->nrules || entries != tm_cls_entries(cls) ||
	    set_bytes != cls->set_bytes) {
		*why = "rule count of the families differs from the index";
		return -EUCLEAN;
	}
	return 0;
}

int tm_cls_verify(const struct tm_cls *cls, const char **why)
{
	int err;

	err = tm_ids_verify(cls, why);
	if (err)
		return err;
	if (tm_is_linear(cls)) {
		err = tm_linear_verify(&cls->v4, why);
		return err ?: tm_linear_verify(&cls->v6, why);
	}
	err = tm_tuple_verify(cls, &cls->v4, why);
	return err ?: tm_tuple_verify(cls, &cls->v6, why);
}
