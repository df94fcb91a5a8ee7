// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the classification core in userspace, for every engine and both
 * address families:
 *
 *   directed     every field and edge, errors, equal priorities, tuples
 *                emptied and rules' tuples changed by replace, interfaces
 *   differential random insert/delete/replace/lookup against the oracle
 *   invariants   after churn: tm_cls_verify(), every rule reachable, tuple
 *                count bounded
 *   nomem        allocation failures: the failing change reports -ENOMEM
 *                and the classifier is exactly as before
 *
 * Usage: test_core [--ops N] [--seed S] [--engine 0|1|2] [--quick]
 * Prints one line per check and "N passed, N failed" at the end.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"
#include "shim.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

static unsigned int passed, failed;
static const char * const engine_names[] = { "tuplemerge", "tss", "linear" };

static __attribute__((format(printf, 2, 3)))
void check(bool ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("%s: ", ok ? "ok" : "FAIL");
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
	if (ok)
		passed++;
	else
		failed++;
}

static struct tm_cls *new_cls(u8 engine)
{
	struct tm_params p;
	struct tm_cls *cls;

	tm_params_default(&p);
	p.engine = engine;
	cls = tm_cls_create(&p);
	if (!cls) {
		fprintf(stderr, "tm_cls_create failed\n");
		exit(1);
	}
	return cls;
}

static void set_addr(struct tm_addr *a, u8 family, u32 hi, u32 lo)
{
	memset(a, 0, sizeof(*a));
	if (family == TM_AF_INET) {
		a->w[0] = lo;
	} else {
		a->w[0] = hi;
		a->w[3] = lo;
	}
}

static void any_rule(struct tm_rule *r, u8 family, u32 id, u32 prio)
{
	memset(r, 0, sizeof(*r));
	r->id = id;
	r->priority = prio;
	r->family = family;
	r->sport_hi = 65535;
	r->dport_hi = 65535;
	r->proto_any = 1;
	r->action = id;
}

static void key_of(struct tm_key *k, u8 family, u32 src, u32 dst, u16 sp,
		   u16 dp, u8 proto)
{
	memset(k, 0, sizeof(*k));
	k->family = family;
	set_addr(&k->src, family, 0x20010db8, src);
	set_addr(&k->dst, family, 0x20010db8, dst);
	k->sport = sp;
	k->dport = dp;
	k->proto = proto;
}

static u32 hit(struct tm_cls *cls, const struct tm_key *k)
{
	const struct tm_rule *r;
	u32 id;

	rcu_read_lock();
	r = tm_cls_lookup(cls, k);
	id = r ? r->id : 0;
	rcu_read_unlock();
	return id;
}

/*
 * Deleting the last rule of a tuple removes the tuple: a rule for a source
 * host, then one for a destination host, which fits no tuple made for the
 * first (relaxed or not) and makes a tuple of its own, one that does not
 * cover the first's either (TupleMerge would merge them: tm_merge_into()).
 */
static void test_last_of_tuple(u8 engine, u8 family)
{
	const char *en = engine_names[engine];
	const char *fam = family == TM_AF_INET ? "ipv4" : "ipv6";
	struct tm_cls *cls = new_cls(engine);
	struct tm_stats st;
	struct tm_rule r;
	struct tm_key k;
	const char *why;

	any_rule(&r, family, 1, 1);
	r.src_len = family == TM_AF_INET ? 32 : 128;
	set_addr(&r.src, family, 0x20010db8, 7);
	r.proto_any = 0;
	r.proto = 6;
	check(!tm_cls_insert(cls, &r), "%s %s: insert a host rule", en, fam);
	any_rule(&r, family, 2, 2);
	r.dst_len = family == TM_AF_INET ? 32 : 128;
	set_addr(&r.dst, family, 0x20010db8, 9);
	check(!tm_cls_insert(cls, &r), "%s %s: insert a destination rule", en,
	      fam);
	tm_cls_stats(cls, &st);
	check(st.tuples == 2, "%s %s: two tuples (%u)", en, fam, st.tuples);
	check(!tm_cls_delete(cls, 2), "%s %s: delete the destination rule",
	      en, fam);
	tm_cls_stats(cls, &st);
	check(st.tuples == 1, "%s %s: its tuple is gone (%u left)", en, fam,
	      st.tuples);
	key_of(&k, family, 7, 8, 1, 2, 6);
	check(hit(cls, &k) == 1, "%s %s: the host rule still matches", en, fam);
	check(!tm_cls_delete(cls, 1), "%s %s: delete the host rule", en, fam);
	tm_cls_stats(cls, &st);
	check(st.tuples == 0 && !hit(cls, &k) && !tm_cls_verify(cls, &why),
	      "%s %s: no tuple left, nothing matches", en, fam);
	tm_cls_destroy(cls);
}

static u32 hit_if(struct tm_cls *cls, struct tm_key *k, u32 iif, u32 oif)
{
	k->iif = iif;
	k->oif = oif;
	return hit(cls, k);
}

/*
 * The stateful fields, each in a rule that shares a bucket with a
 * catch-all (same 5-tuple): the rule matches exactly the keys its field
 * admits, the others fall to the catch-all; then each edge of the field.
 */
static void test_extras(u8 engine, u8 family)
{
	const char *en = engine_names[engine];
	const char *fam = family == TM_AF_INET ? "ipv4" : "ipv6";
	struct tm_cls *cls = new_cls(engine);
	struct tm_rule_fault fault;
	struct tm_rule r;
	struct tm_key k;
	const char *why;

	/* 9: the catch-all behind them all, tcp. */
	any_rule(&r, family, 9, 9);
	r.proto_any = 0;
	r.proto = 6;
	check(!tm_cls_insert(cls, &r), "%s %s: insert the catch-all", en, fam);

	/* 1: ct state established,related. */
	r.id = 1;
	r.priority = 1;
	r.ct_set = 1 << TM_CT_ESTABLISHED | 1 << TM_CT_RELATED;
	check(!tm_cls_insert(cls, &r), "%s %s: insert ct est,rel", en, fam);
	key_of(&k, family, 1, 2, 1000, 22, 6);
	k.ct = TM_CT_ESTABLISHED;
	check(hit(cls, &k) == 1, "%s %s: established hits", en, fam);
	k.ct = TM_CT_RELATED;
	check(hit(cls, &k) == 1, "%s %s: related hits", en, fam);
	k.ct = TM_CT_NEW;
	check(hit(cls, &k) == 9, "%s %s: new passes", en, fam);
	k.ct = TM_CT_INVALID;
	check(hit(cls, &k) == 9, "%s %s: no conntrack (invalid) passes", en,
	      fam);
	k.ct = TM_CT_UNTRACKED;
	check(hit(cls, &k) == 9, "%s %s: untracked passes", en, fam);

	/* 2: tcp-flags syn,ack,rst,fin syn (a first SYN), ct new. */
	r.id = 2;
	r.priority = 2;
	r.ct_set = 0;
	r.tcp_flags_mask = TM_TCP_SYN | TM_TCP_ACK | TM_TCP_RST | TM_TCP_FIN;
	r.tcp_flags = TM_TCP_SYN;
	check(!tm_cls_insert(cls, &r), "%s %s: insert tcp-flags syn", en, fam);
	k.ct = TM_CT_NEW;
	k.tcp_flags = TM_TCP_SYN;
	check(hit(cls, &k) == 2, "%s %s: a SYN hits", en, fam);
	k.tcp_flags = TM_TCP_SYN | TM_TCP_ECE | TM_TCP_CWR;
	check(hit(cls, &k) == 2, "%s %s: a SYN with ECN hits (outside the mask)",
	      en, fam);
	k.tcp_flags = TM_TCP_SYN | TM_TCP_ACK;
	check(hit(cls, &k) == 9, "%s %s: a SYN-ACK passes", en, fam);
	k.tcp_flags = 0;
	check(hit(cls, &k) == 9, "%s %s: no flag passes", en, fam);

	/* 3: mark 0x10/0xf0. */
	r.id = 3;
	r.priority = 3;
	r.tcp_flags_mask = 0;
	r.tcp_flags = 0;
	r.mark = 0x10;
	r.mark_mask = 0xf0;
	check(!tm_cls_insert(cls, &r), "%s %s: insert mark 0x10/0xf0", en,
	      fam);
	k.mark = 0x1f;
	check(hit(cls, &k) == 3, "%s %s: mark 0x1f hits", en, fam);
	k.mark = 0x20;
	check(hit(cls, &k) == 9, "%s %s: mark 0x20 passes", en, fam);
	k.mark = 0;

	/* 4: dscp 10-12 and 46. */
	r.id = 4;
	r.priority = 4;
	r.mark = 0;
	r.mark_mask = 0;
	r.dscp_set = 7ULL << 10 | 1ULL << 46;
	check(!tm_cls_insert(cls, &r), "%s %s: insert dscp 10-12,46", en, fam);
	k.dscp = 12;
	check(hit(cls, &k) == 4, "%s %s: dscp 12 hits", en, fam);
	k.dscp = 46;
	check(hit(cls, &k) == 4, "%s %s: dscp 46 hits", en, fam);
	k.dscp = 13;
	check(hit(cls, &k) == 9, "%s %s: dscp 13 passes", en, fam);
	k.dscp = 63;
	check(hit(cls, &k) == 9, "%s %s: dscp 63 passes", en, fam);
	k.dscp = 0;

	/* 5: fragment later. */
	r.id = 5;
	r.priority = 5;
	r.dscp_set = 0;
	r.frag_set = 1 << TM_FRAG_LATER;
	check(!tm_cls_insert(cls, &r), "%s %s: insert fragment later", en,
	      fam);
	k.frag = TM_FRAG_LATER;
	check(hit(cls, &k) == 5, "%s %s: a later fragment hits", en, fam);
	k.frag = TM_FRAG_FIRST;
	check(hit(cls, &k) == 9, "%s %s: a first fragment passes", en, fam);
	k.frag = TM_FRAG_NONE;

	/* Replace 5 by a rule without extra fields: it matches everything. */
	r.frag_set = 0;
	check(!tm_cls_replace(cls, &r) && hit(cls, &k) == 5,
	      "%s %s: the replacement without extra fields matches", en, fam);
	check(!tm_cls_delete(cls, 5) && hit(cls, &k) == 9,
	      "%s %s: deleted, the catch-all again", en, fam);
	check(!tm_cls_verify(cls, &why), "%s %s: invariants hold", en, fam);

	/* Refused, naming the part. */
	any_rule(&r, family, 20, 1);
	r.mark = 3;
	r.mark_mask = 1;
	check(tm_cls_insert(cls, &r) == -EINVAL &&
	      tm_rule_check(&r, &fault) && fault.part == TM_RP_MARK,
	      "%s %s: mark bits outside the mask refused", en, fam);
	any_rule(&r, family, 20, 1);
	r.tcp_flags_mask = TM_TCP_SYN;
	r.tcp_flags = TM_TCP_SYN;
	check(tm_cls_insert(cls, &r) == -EINVAL &&
	      tm_rule_check(&r, &fault) && fault.part == TM_RP_TCP_FLAGS,
	      "%s %s: tcp flags without protocol tcp refused", en, fam);
	r.proto_any = 0;
	r.proto = 6;
	r.tcp_flags = TM_TCP_ACK;
	check(tm_cls_insert(cls, &r) == -EINVAL &&
	      tm_rule_check(&r, &fault) && fault.part == TM_RP_TCP_FLAGS,
	      "%s %s: tcp flags value outside the mask refused", en, fam);
	any_rule(&r, family, 20, 1);
	r.ct_set = 1 << (TM_CT_MAX + 1);
	check(tm_cls_insert(cls, &r) == -EINVAL &&
	      tm_rule_check(&r, &fault) && fault.part == TM_RP_CT,
	      "%s %s: unknown ct state refused", en, fam);
	any_rule(&r, family, 20, 1);
	r.frag_set = 1 << (TM_FRAG_MAX + 1);
	check(tm_cls_insert(cls, &r) == -EINVAL &&
	      tm_rule_check(&r, &fault) && fault.part == TM_RP_FRAG,
	      "%s %s: unknown fragment kind refused", en, fam);
	check(!tm_cls_find(cls, 20) && !tm_cls_verify(cls, &why),
	      "%s %s: refusals changed nothing", en, fam);
	tm_cls_destroy(cls);
}

/*
 * Interfaces: a better rule that fails only on its interface gives way to
 * a worse one, in another tuple (iif) or in the same bucket (oif, and rules
 * that differ only by iif); a key without an interface matches only rules
 * without one.
 */
static void test_ifaces(u8 engine, u8 family)
{
	const char *en = engine_names[engine];
	const char *fam = family == TM_AF_INET ? "ipv4" : "ipv6";
	unsigned int full = family == TM_AF_INET ? 32 : 128;
	struct tm_cls *cls = new_cls(engine);
	struct tm_stats st;
	struct tm_rule r;
	struct tm_key k;
	struct tm_rule_fault fault;
	const char *why;

	/* iif: a host rule on interface 2 before a /0 on any. */
	any_rule(&r, family, 1, 1);
	r.src_len = full;
	set_addr(&r.src, family, 0x20010db8, 7);
	r.iif = 2;
	check(!tm_cls_insert(cls, &r), "%s %s: insert host rule iif 2", en, fam);
	any_rule(&r, family, 2, 2);
	check(!tm_cls_insert(cls, &r), "%s %s: insert /0 any iif", en, fam);
	key_of(&k, family, 7, 8, 1, 2, 6);
	check(hit_if(cls, &k, 1, 0) == 2, "%s %s: iif 1 passes the iif 2 rule",
	      en, fam);
	check(hit_if(cls, &k, 2, 0) == 1, "%s %s: iif 2 hits the iif 2 rule",
	      en, fam);
	check(hit_if(cls, &k, 2, 5) == 1, "%s %s: an oif changes nothing",
	      en, fam);
	check(hit_if(cls, &k, 0, 0) == 2, "%s %s: no iif passes the iif 2 rule",
	      en, fam);
	check(!tm_cls_delete(cls, 1) && !tm_cls_delete(cls, 2),
	      "%s %s: delete them", en, fam);

	/* oif: the same, with both rules in one bucket. */
	any_rule(&r, family, 3, 1);
	r.dst_len = full;
	set_addr(&r.dst, family, 0x20010db8, 8);
	r.oif = 2;
	check(!tm_cls_insert(cls, &r), "%s %s: insert host rule oif 2", en, fam);
	r.id = 4;
	r.priority = 2;
	r.oif = 0;
	check(!tm_cls_insert(cls, &r), "%s %s: the same rule, any oif", en,
	      fam);
	check(hit_if(cls, &k, 0, 1) == 4, "%s %s: oif 1 passes the oif 2 rule",
	      en, fam);
	check(hit_if(cls, &k, 0, 2) == 3, "%s %s: oif 2 hits the oif 2 rule",
	      en, fam);
	check(hit_if(cls, &k, 3, 0) == 4, "%s %s: no oif passes the oif 2 rule",
	      en, fam);
	check(!tm_cls_delete(cls, 3) && !tm_cls_delete(cls, 4),
	      "%s %s: delete them", en, fam);

	/* One bucket: rules that differ only by iif, then a catch-all. */
	any_rule(&r, family, 10, 1);
	r.src_len = full;
	r.dst_len = full;
	set_addr(&r.src, family, 0x20010db8, 7);
	set_addr(&r.dst, family, 0x20010db8, 8);
	r.proto_any = 0;
	r.proto = 6;
	r.iif = 1;
	check(!tm_cls_insert(cls, &r), "%s %s: insert iif 1", en, fam);
	r.id = 11;
	r.priority = 2;
	r.iif = 2;
	check(!tm_cls_insert(cls, &r), "%s %s: the same rule, iif 2", en, fam);
	r.id = 12;
	r.priority = 3;
	r.iif = 0;
	check(!tm_cls_insert(cls, &r), "%s %s: the same rule, any iif", en,
	      fam);
	tm_cls_stats(cls, &st);
	check(engine == TM_ENGINE_LINEAR || (st.nodes == 1 && st.max_chain == 3),
	      "%s %s: one bucket of 3 (%u buckets, chain %u)", en, fam,
	      st.nodes, st.max_chain);
	check(hit_if(cls, &k, 1, 0) == 10, "%s %s: iif 1 in the bucket", en,
	      fam);
	check(hit_if(cls, &k, 2, 0) == 11, "%s %s: iif 2 in the bucket", en,
	      fam);
	check(hit_if(cls, &k, 3, 0) == 12 && hit_if(cls, &k, 0, 0) == 12,
	      "%s %s: iif 3 and none fall to the catch-all", en, fam);

	/* Both interfaces, and a replace that moves one. */
	r.id = 13;
	r.priority = 0;
	r.iif = 3;
	r.oif = 0xffffffff;
	check(!tm_rule_check(&r, &fault) && !tm_cls_insert(cls, &r),
	      "%s %s: insert iif 3 oif 0xffffffff", en, fam);
	check(hit_if(cls, &k, 3, 0xffffffff) == 13 &&
	      hit_if(cls, &k, 3, 1) == 12 && hit_if(cls, &k, 0, 0xffffffff) == 12,
	      "%s %s: both interfaces must match", en, fam);
	r.id = 11;
	r.priority = 2;
	r.iif = 0;
	r.oif = 1;
	check(!tm_cls_replace(cls, &r), "%s %s: replace iif 2 by oif 1", en,
	      fam);
	check(hit_if(cls, &k, 2, 0) == 12 && hit_if(cls, &k, 2, 1) == 11 &&
	      hit_if(cls, &k, 1, 1) == 10,
	      "%s %s: the replacement matches on oif only", en, fam);
	check(!tm_cls_delete(cls, 10) && hit_if(cls, &k, 1, 0) == 12,
	      "%s %s: delete iif 1, iif 1 falls to the catch-all", en, fam);
	check(!tm_cls_verify(cls, &why), "%s %s: interface invariants hold",
	      en, fam);
	tm_cls_destroy(cls);
}

/* Directed tests of one engine and family. */
static void test_sets(u8 engine, u8 family);

/* A rule 0.0.0.0/0 -> @dst/@dlen from @src/8, IPv4. */
static void split_rule(struct tm_cls *cls, u32 id, u32 src, u32 dst,
		       u8 dlen)
{
	struct tm_rule r;

	any_rule(&r, TM_AF_INET, id, id);
	r.src_len = 8;
	r.src.w[0] = src;
	r.dst_len = dlen;
	r.dst.w[0] = dst;
	if (tm_cls_insert(cls, &r))
		printf("  insert of split rule %u failed\n", id);
}

/*
 * A bucket over the collision limit moves to a tuple there is when that
 * shortens it enough, rather than to a new one: each tuple costs every
 * lookup whose answer ranks after its best a probe.  The tuple (8, 0)
 * gets a bucket of 40 rules from 11/8 to /16s; a bucket of rules to /12s
 * splits to a new tuple (8, 12); ten more rules from 11/8 to /10s make the
 * first bucket overflow.  Moving its /16 rules to a new tuple (8, 16)
 * would leave the shortest bucket (the ten /10 rules), but (8, 12) holds
 * them in buckets of 16 at most: no third tuple.
 */
static void test_split_to_existing(void)
{
	struct tm_cls *cls = new_cls(TM_ENGINE_TUPLEMERGE);
	struct tm_stats st;
	const char *why;
	struct tm_key k;
	u32 i, bad = 0;

	split_rule(cls, 1, 0x0a000000, 0, 0);
	for (i = 0; i < 40; i++)
		split_rule(cls, 100 + i, 0x0b000000, 0x14000000 | i << 16, 16);
	for (i = 0; i < 49; i++)
		split_rule(cls, 200 + i, 0x0c000000, i << 20, 12);
	tm_cls_stats(cls, &st);
	check(st.tuples == 2 && st.splits == 1,
	      "tuplemerge ipv4: a new tuple for a bucket no tuple shortens: %u tuples, %u splits",
	      st.tuples, st.splits);
	for (i = 0; i < 10; i++)
		split_rule(cls, 300 + i, 0x0b000000, 0x14000000 | i << 22, 10);
	tm_cls_stats(cls, &st);
	check(st.tuples == 2 && st.splits == 2,
	      "tuplemerge ipv4: a bucket an existing tuple shortens moves there: %u tuples, %u splits",
	      st.tuples, st.splits);
	for (i = 0; i < 40; i++) {
		key_of(&k, TM_AF_INET, 0x0b000001, 0x14000001 | i << 16, 1, 1,
		       6);
		bad += hit(cls, &k) != 100 + i;
	}
	check(!bad && !tm_cls_verify(cls, &why),
	      "tuplemerge ipv4: the moved rules still answer (%u wrong)", bad);
	tm_cls_destroy(cls);
}

/*
 * What tm_cls_lookup_cost() counts: three rules of one source prefix and
 * dest port ranges 100-199, 200-299, 300-399 share one tuple and one
 * bucket (TSS and TupleMerge), so a lookup probes one tuple and compares
 * the entries up to its answer, all three when none matches; a source of
 * another prefix finds no bucket.  The linear engine checks rules: its
 * probes and entries are the rules it compared.
 */
static void test_lookup_cost(u8 engine, u8 family)
{
	static const struct {
		u32 src;
		u16 dport;
		u32 id, entries;	/* entries: TSS and TupleMerge */
		u32 linear;		/* rules the linear engine checks */
	} cases[] = {
		{ 0x0a010203, 350, 3, 3, 3 },
		{ 0x0a010203, 150, 1, 1, 1 },
		{ 0x0a010203, 500, 0, 3, 3 },
		{ 0x0b010203, 150, 0, 0, 3 },
	};
	const char *en = engine_names[engine];
	const char *fam = family == TM_AF_INET ? "ipv4" : "ipv6";
	struct tm_cls *cls = new_cls(engine);
	struct tm_lookup_cost c;
	const struct tm_rule *hit;
	u32 i, id, probes, entries;
	struct tm_rule r;
	struct tm_key k;

	for (i = 0; i < 3; i++) {
		any_rule(&r, family, i + 1, i + 1);
		r.src_len = family == TM_AF_INET ? 8 : 32;
		set_addr(&r.src, family, 0x20010db8, 0x0a000000);
		if (family == TM_AF_INET6)
			r.src.w[3] = 0;
		r.dport_lo = 100 * (i + 1);
		r.dport_hi = 100 * (i + 1) + 99;
		if (tm_cls_insert(cls, &r))
			abort();
	}
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		key_of(&k, family, cases[i].src, 0x14000001, 1234,
		       cases[i].dport, 6);
		/* IPv6: another prefix, past TupleMerge's /28 too. */
		if (family == TM_AF_INET6 && cases[i].src != 0x0a010203)
			k.src.w[0] += 0x100000;
		memset(&c, 0xff, sizeof(c));
		rcu_read_lock();
		hit = tm_cls_lookup_cost(cls, &k, &c);
		rcu_read_unlock();
		probes = 1;
		entries = cases[i].entries;
		if (engine == TM_ENGINE_LINEAR) {
			probes = cases[i].linear;
			entries = probes;
		}
		id = hit ? hit->id : 0;
		check(id == cases[i].id && c.probes == probes &&
		      c.entries == entries,
		      "%s %s: lookup cost, dport %u: rule %u, %u probes, %u entries (want %u, %u)",
		      en, fam, cases[i].dport, id, c.probes, c.entries, probes,
		      entries);
	}
	tm_cls_destroy(cls);
}

static void test_directed(u8 engine, u8 family)
{
	const char *en = engine_names[engine];
	const char *fam = family == TM_AF_INET ? "ipv4" : "ipv6";
	unsigned int full = family == TM_AF_INET ? 32 : 128;
	struct tm_cls *cls = new_cls(engine);
	struct tm_rule r;
	struct tm_key k;
	struct tm_rule_fault fault;
	const char *why;

	key_of(&k, family, 0x0a000001, 0x0a000002, 1234, 80, 6);
	check(!hit(cls, &k), "%s %s: empty classifier matches nothing", en, fam);

	/* /0 everywhere matches every packet. */
	any_rule(&r, family, 100, 100);
	check(!tm_cls_insert(cls, &r), "%s %s: insert /0", en, fam);
	check(hit(cls, &k) == 100, "%s %s: /0 matches", en, fam);
	check(tm_cls_insert(cls, &r) == -EEXIST, "%s %s: duplicate id refused",
	      en, fam);

	/* A full-length host prefix, lower priority value wins. */
	any_rule(&r, family, 10, 10);
	r.src_len = full;
	set_addr(&r.src, family, 0x20010db8, 0x0a000001);
	check(!tm_cls_insert(cls, &r), "%s %s: insert /%u", en, fam, full);
	check(hit(cls, &k) == 10, "%s %s: /%u host matches", en, fam, full);
	key_of(&k, family, 0x0a000003, 0x0a000002, 1234, 80, 6);
	check(hit(cls, &k) == 100, "%s %s: /%u host does not match a neighbour",
	      en, fam, full);

	/* Port edges: 0 and 65535, single ports, ranges. */
	any_rule(&r, family, 20, 5);
	r.sport_lo = 0;
	r.sport_hi = 0;
	check(!tm_cls_insert(cls, &r), "%s %s: insert sport 0", en, fam);
	any_rule(&r, family, 21, 5);
	r.dport_lo = 65535;
	r.dport_hi = 65535;
	check(!tm_cls_insert(cls, &r), "%s %s: insert dport 65535", en, fam);
	any_rule(&r, family, 22, 6);
	r.dport_lo = 1000;
	r.dport_hi = 2000;
	check(!tm_cls_insert(cls, &r), "%s %s: insert dport 1000-2000", en, fam);
	key_of(&k, family, 1, 2, 0, 80, 17);
	check(hit(cls, &k) == 20, "%s %s: sport 0 matches", en, fam);
	key_of(&k, family, 1, 2, 1, 65535, 17);
	check(hit(cls, &k) == 21, "%s %s: dport 65535 matches", en, fam);
	key_of(&k, family, 1, 2, 1, 65534, 17);
	check(hit(cls, &k) == 100, "%s %s: dport 65534 does not", en, fam);
	key_of(&k, family, 1, 2, 1, 1000, 17);
	check(hit(cls, &k) == 22, "%s %s: range low end", en, fam);
	key_of(&k, family, 1, 2, 1, 2000, 17);
	check(hit(cls, &k) == 22, "%s %s: range high end", en, fam);
	key_of(&k, family, 1, 2, 1, 2001, 17);
	check(hit(cls, &k) == 100, "%s %s: past the range", en, fam);

	/* Protocol exact versus any. */
	any_rule(&r, family, 30, 4);
	r.proto_any = 0;
	r.proto = 132;
	check(!tm_cls_insert(cls, &r), "%s %s: insert proto 132", en, fam);
	key_of(&k, family, 1, 2, 1, 3, 132);
	check(hit(cls, &k) == 30, "%s %s: exact protocol matches", en, fam);
	key_of(&k, family, 1, 2, 1, 3, 131);
	check(hit(cls, &k) == 100, "%s %s: other protocol falls through", en,
	      fam);

	/* Equal priorities: the lower id wins, whatever the insert order. */
	any_rule(&r, family, 41, 3);
	r.dport_lo = 7;
	r.dport_hi = 7;
	check(!tm_cls_insert(cls, &r), "%s %s: insert id 41 prio 3", en, fam);
	any_rule(&r, family, 40, 3);
	r.dport_lo = 5;
	r.dport_hi = 9;
	check(!tm_cls_insert(cls, &r), "%s %s: insert id 40 prio 3", en, fam);
	key_of(&k, family, 1, 2, 1, 7, 6);
	check(hit(cls, &k) == 40, "%s %s: equal priority, lower id wins", en,
	      fam);
	check(!tm_cls_delete(cls, 40), "%s %s: delete id 40", en, fam);
	check(hit(cls, &k) == 41, "%s %s: then id 41", en, fam);

	/* Replace that changes the tuple and the answer. */
	any_rule(&r, family, 41, 3);
	r.dst_len = family == TM_AF_INET ? 24 : 120;
	set_addr(&r.dst, family, 0x20010db8, 0x0a000000);
	check(!tm_cls_replace(cls, &r), "%s %s: replace id 41 with a /%u",
	      en, fam, r.dst_len);
	check(hit(cls, &k) == 100, "%s %s: old fields of 41 gone", en, fam);
	key_of(&k, family, 1, 0x0a000099, 1, 7, 6);
	check(hit(cls, &k) == 41, "%s %s: new fields of 41 match", en, fam);
	check(tm_cls_find(cls, 41) && tm_cls_find(cls, 41)->dst_len == r.dst_len,
	      "%s %s: find returns the replacement", en, fam);

	/* Errors change nothing. */
	check(tm_cls_delete(cls, 999) == -ENOENT, "%s %s: delete missing id",
	      en, fam);
	r.id = 999;
	check(tm_cls_replace(cls, &r) == -ENOENT, "%s %s: replace missing id",
	      en, fam);
	any_rule(&r, family, 50, 1);
	r.src_len = full + 1;
	check(tm_cls_insert(cls, &r) == -EINVAL &&
	      tm_rule_check(&r, &fault) && fault.part == TM_RP_SRC_LEN &&
	      strstr(fault.why, "Prefix length"),
	      "%s %s: prefix too long refused", en, fam);
	any_rule(&r, family, 50, 1);
	r.dst_len = full + 1;
	check(tm_cls_insert(cls, &r) == -EINVAL &&
	      tm_rule_check(&r, &fault) && fault.part == TM_RP_DST_LEN,
	      "%s %s: destination prefix too long refused", en, fam);
	any_rule(&r, family, 50, 1);
	r.src_len = 8;
	set_addr(&r.src, family, 0x20010db8, 0x0a000001);
	check(tm_cls_insert(cls, &r) == -EINVAL &&
	      tm_rule_check(&r, &fault) && fault.part == TM_RP_SRC &&
	      strstr(fault.why, "bits set past"),
	      "%s %s: host bits refused", en, fam);
	any_rule(&r, family, 50, 1);
	r.dport_lo = 2;
	r.dport_hi = 1;
	check(tm_cls_insert(cls, &r) == -EINVAL &&
	      tm_rule_check(&r, &fault) && fault.part == TM_RP_DPORT,
	      "%s %s: port lo > hi refused", en, fam);
	any_rule(&r, family, 50, 1);
	r.family = 7;
	check(tm_cls_insert(cls, &r) == -EINVAL &&
	      tm_rule_check(&r, &fault) && fault.part == TM_RP_RULE,
	      "%s %s: bad family refused", en, fam);
	check(!tm_cls_find(cls, 50) && !tm_cls_verify(cls, &why),
	      "%s %s: refused inserts left nothing", en, fam);

	/* Keys of the other family never match. */
	key_of(&k, family == TM_AF_INET ? TM_AF_INET6 : TM_AF_INET, 1, 2, 1,
	       7, 6);
	check(!hit(cls, &k), "%s %s: other family matches nothing", en, fam);

	check(!tm_cls_verify(cls, &why), "%s %s: invariants hold", en, fam);
	tm_cls_destroy(cls);
	if (engine != TM_ENGINE_LINEAR)
		test_last_of_tuple(engine, family);
	if (engine == TM_ENGINE_TUPLEMERGE && family == TM_AF_INET)
		test_split_to_existing();
	test_ifaces(engine, family);
	test_extras(engine, family);
	test_sets(engine, family);
	test_lookup_cost(engine, family);
}

/* Set rules: entries, answers, refusals, bounds, replace and delete. */
static void test_sets(u8 engine, u8 family)
{
	const char *en = engine_names[engine];
	const char *fam = family == TM_AF_INET ? "ipv4" : "ipv6";
	static struct tm_set_range big_sp[65], big_dp[241];
	struct tm_set_prefix src[2], bad[1];
	struct tm_set_range dport[3] = { { 22, 22 }, { 80, 81 },
					 { 443, 443 } };
	u8 proto[2] = { 6, 17 };
	const struct tm_rule_set *got;
	struct tm_rule_fault fault;
	struct tm_rule r, p, e;
	struct tm_rule_set s;
	struct tm_params prm;
	struct tm_cls *cls;
	struct tm_stats st;
	const char *why;
	u32 i, ok, wrong;
	struct tm_key k;
	int err;

	cls = new_cls(engine);
	memset(&s, 0, sizeof(s));
	memset(src, 0, sizeof(src));
	set_addr(&src[0].addr, family, 0x20010db8, 0x0a000100);
	src[0].len = family == TM_AF_INET ? 24 : 120;
	set_addr(&src[1].addr, family, 0x20010db8, 0xc0a80000);
	src[1].len = family == TM_AF_INET ? 16 : 112;
	s.src = src;
	s.nsrc = 2;
	s.dport = dport;
	s.ndport = 3;
	s.proto = proto;
	s.nproto = 2;
	any_rule(&r, family, 7, 50);
	check(tm_rule_set_entries(&s) == 12 &&
	      !tm_cls_insert_set(cls, &r, &s),
	      "%s %s sets: 2 x 3 x 2 inserted", en, fam);
	tm_cls_stats(cls, &st);
	check(st.rules == 1 && st.entries == 12 && tm_cls_rules(cls) == 1 &&
	      tm_cls_entries(cls) == 12,
	      "%s %s sets: one rule of 12 entries (%u, %u)", en, fam,
	      st.rules, st.entries);
	got = tm_cls_find_set(cls, 7);
	check(got && got != &s && got->src != src && got->nsrc == 2 &&
	      !memcmp(got->src, src, sizeof(src)) && got->ndport == 3 &&
	      !memcmp(got->dport, dport, sizeof(dport)) &&
	      got->nproto == 2 && !memcmp(got->proto, proto, 2) &&
	      !got->ndst && !got->nsport,
	      "%s %s sets: kept as given, in a copy", en, fam);
	/* Every combination hits; the gaps between values miss. */
	ok = 0;
	wrong = 0;
	for (i = 0; i < 12; i++) {
		tm_rule_set_entry(&r, &s, i, &e);
		key_of(&k, family, 0, 5, 1000, e.dport_hi, e.proto);
		k.src = e.src;
		k.src.w[family == TM_AF_INET ? 0 : 3] |= 7;
		ok += hit(cls, &k) == 7;
		k.dport = e.dport_hi + 1;
		wrong += hit(cls, &k) == 7 && k.dport != 80 + 1;
	}
	key_of(&k, family, 0x0a000107, 5, 1000, 80, 1);
	wrong += hit(cls, &k) != 0;
	key_of(&k, family, 0x0a000207, 5, 1000, 80, 6);
	wrong += hit(cls, &k) != 0;
	check(ok == 12 && !wrong,
	      "%s %s sets: all 12 entries match, nothing else (%u, %u)",
	      en, fam, ok, wrong);
	/* A better plain rule wins where it overlaps, the set elsewhere. */
	any_rule(&p, family, 3, 10);
	p.dport_lo = 443;
	p.dport_hi = 443;
	check(!tm_cls_insert(cls, &p), "%s %s sets: plain rule beside",
	      en, fam);
	key_of(&k, family, 0x0a000107, 5, 1000, 443, 17);
	ok = hit(cls, &k) == 3;
	key_of(&k, family, 0x0a000107, 5, 1000, 22, 17);
	ok += hit(cls, &k) == 7;
	check(ok == 2, "%s %s sets: the better rule wins", en, fam);
	check(!tm_cls_verify(cls, &why), "%s %s sets: invariants", en, fam);
	/* An entry that is wrong refuses the rule, naming its part. */
	memset(bad, 0, sizeof(bad));
	set_addr(&bad[0].addr, family, 0x20010db8, 0x0a000101);
	bad[0].len = family == TM_AF_INET ? 24 : 120;
	s.src = bad;
	s.nsrc = 1;
	any_rule(&e, family, 9, 1);
	err = tm_cls_insert_set(cls, &e, &s);
	check(err == -EINVAL && !tm_rule_set_check(&e, NULL, &fault) &&
	      tm_rule_set_check(&e, &s, &fault) == -EINVAL &&
	      fault.part == TM_RP_SRC && tm_cls_entries(cls) == 13 &&
	      !tm_cls_find(cls, 9),
	      "%s %s sets: host bits in a set refused, nothing added", en,
	      fam);
	s.src = src;
	s.nsrc = 2;
	e.tcp_flags_mask = TM_TCP_SYN;
	err = tm_rule_set_check(&e, &s, &fault);
	check(err == -EINVAL && fault.part == TM_RP_TCP_FLAGS &&
	      tm_cls_insert_set(cls, &e, &s) == -EINVAL,
	      "%s %s sets: tcp-flags with udp in the protocol set refused",
	      en, fam);
	/* The bound: 64 x 64 entries, and no more. */
	for (i = 0; i < 241; i++) {
		big_dp[i].lo = 1000 + i;
		big_dp[i].hi = 1000 + i;
		if (i < 65)
			big_sp[i] = big_dp[i];
	}
	memset(&s, 0, sizeof(s));
	s.sport = big_sp;
	s.nsport = 64;
	s.dport = big_dp;
	s.ndport = 64;
	any_rule(&e, family, 11, 60);
	err = tm_cls_insert_set(cls, &e, &s);
	key_of(&k, family, 1, 2, 1063, 1063, 6);
	check(!err && tm_cls_entries(cls) == 13 + 4096 && hit(cls, &k) == 11,
	      "%s %s sets: 4096 entries taken (%d)", en, fam, err);
	s.nsport = 17;
	s.ndport = 241;
	e.id = 12;
	err = tm_rule_set_check(&e, &s, &fault);
	check(err == -EINVAL && fault.part == TM_RP_SETS &&
	      tm_rule_set_entries(&s) == TM_RULE_ENTRIES_MAX + 1 &&
	      tm_cls_insert_set(cls, &e, &s) == -EINVAL &&
	      !tm_cls_find(cls, 12),
	      "%s %s sets: 17 x 241 refused: %s", en, fam, fault.why);
	s.nsport = 65;
	s.ndport = 241;
	check(tm_rule_set_entries(&s) == TM_RULE_ENTRIES_MAX + 1,
	      "%s %s sets: the product saturates", en, fam);
	/* Replace: set by plain, plain by set; then delete. */
	any_rule(&e, family, 11, 60);
	check(!tm_cls_replace(cls, &e) && tm_cls_entries(cls) == 14 &&
	      !tm_cls_find_set(cls, 11),
	      "%s %s sets: replaced by a plain rule", en, fam);
	memset(&s, 0, sizeof(s));
	s.dport = dport;
	s.ndport = 3;
	check(!tm_cls_replace_set(cls, &e, &s) &&
	      tm_cls_entries(cls) == 16 && tm_cls_find_set(cls, 11),
	      "%s %s sets: replaced by a set rule", en, fam);
	check(!tm_cls_delete(cls, 7) && tm_cls_entries(cls) == 4 &&
	      tm_cls_rules(cls) == 2 && !tm_cls_verify(cls, &why),
	      "%s %s sets: deleted whole", en, fam);
	key_of(&k, family, 0x0a000107, 5, 1000, 22, 6);
	check(hit(cls, &k) == 11, "%s %s sets: the next rule answers", en,
	      fam);
	tm_cls_destroy(cls);

	/* max_rules counts entries. */
	tm_params_default(&prm);
	prm.engine = engine;
	prm.max_rules = 5;
	cls = tm_cls_create(&prm);
	any_rule(&e, family, 1, 1);
	err = tm_cls_insert_set(cls, &e, &s);
	check(!err && tm_cls_entries(cls) == 3, "%s %s sets: 3 of 5 entries",
	      en, fam);
	e.id = 2;
	check(tm_cls_insert_set(cls, &e, &s) == -ENOSPC &&
	      !tm_cls_insert(cls, &e) && tm_cls_entries(cls) == 4,
	      "%s %s sets: past max-rules refused, a plain rule fits", en,
	      fam);
	e.id = 1;
	s.ndport = 2;
	check(!tm_cls_replace_set(cls, &e, &s) && tm_cls_entries(cls) == 3,
	      "%s %s sets: a replace counts the entries it frees", en, fam);
	tm_cls_destroy(cls);
}

struct churn {
	u8 engine, family;
	unsigned long ops, lookups, mismatches, errors, inserts, deletes,
		      replaces, set_rules, bulk;
	u32 max_rules;
};

/*
 * The classifier's answer @got is the oracle's @want.  For a set rule,
 * @got is one of its entries: the rule's id, priority and action, and
 * fields that match @k by the oracle's own logic.
 */
static bool same_answer(const struct oracle *o, const struct tm_rule *got,
			const struct tm_rule *want, const struct tm_key *k)
{
	if (!got || !want)
		return got == want;
	if (!oracle_sets(o, want))
		return rule_eq(got, want);
	return got->id == want->id && got->priority == want->priority &&
	       got->action == want->action && oracle_matches(got, k);
}

/* Lookups of @cls and @o agree on @k; prints the first mismatches. */
static bool agree(struct churn *c, struct tm_cls *cls, struct oracle *o,
		  const struct tm_key *k)
{
	const struct tm_rule *got, *want = oracle_lookup(o, k);
	bool ok;

	rcu_read_lock();
	got = tm_cls_lookup(cls, k);
	ok = same_answer(o, got, want, k);
	rcu_read_unlock();
	c->lookups++;
	if (!ok && c->mismatches++ < 5)
		printf("  mismatch: %s %s got id %u want id %u\n",
		       engine_names[c->engine],
		       c->family == TM_AF_INET ? "ipv4" : "ipv6",
		       got ? got->id : 0, want ? want->id : 0);
	return ok;
}

/* A key inside one of @o's rules (three times in four), or anywhere. */
static void key_near(struct rng *g, u8 family, const struct oracle *o,
		     struct tm_key *k)
{
	u32 i;

	if (!o->n || !rng_below(g, 4)) {
		gen_key(g, family, NULL, k);
		return;
	}
	i = rng_below(g, o->n);
	gen_key_set(g, family, &o->r[i], &o->s[i], k);
}

/*
 * A bulk lookup of 1 to 2 x TM_LOOKUP_BULK_MAX keys (more than one batch),
 * about one in eight of the other family (which the classifier has no rule
 * of): each answer must be the oracle's, and the single lookup's.
 */
static void agree_bulk(struct churn *c, struct rng *g, struct tm_cls *cls,
		       struct oracle *o)
{
	static struct tm_key k[2 * TM_LOOKUP_BULK_MAX];
	static const struct tm_rule *got[2 * TM_LOOKUP_BULK_MAX];
	u8 other = c->family == TM_AF_INET ? TM_AF_INET6 : TM_AF_INET;
	unsigned int i, n = 1 + rng_below(g, 2 * TM_LOOKUP_BULK_MAX);

	for (i = 0; i < n; i++) {
		if (rng_below(g, 8))
			key_near(g, c->family, o, &k[i]);
		else
			gen_key(g, other, NULL, &k[i]);
	}
	rcu_read_lock();
	tm_cls_lookup_bulk(cls, k, n, got);
	for (i = 0; i < n; i++) {
		const struct tm_rule *want = oracle_lookup(o, &k[i]);
		const struct tm_rule *one = tm_cls_lookup(cls, &k[i]);

		c->lookups++;
		if ((same_answer(o, got[i], want, &k[i]) && got[i] == one) ||
		    c->mismatches++ >= 5)
			continue;
		printf("  bulk mismatch: %s %s key %u of %u: got id %u want id %u single %u\n",
		       engine_names[c->engine],
		       k[i].family == TM_AF_INET ? "ipv4" : "ipv6", i, n,
		       got[i] ? got[i]->id : 0, want ? want->id : 0,
		       one ? one->id : 0);
	}
	rcu_read_unlock();
	c->bulk++;
}

/*
 * One random operation, mirrored on the oracle.  Ids come from a pool a
 * little larger than the target size, so inserts sometimes hit taken ids
 * and deletes missing ones.
 */
static void churn_op(struct churn *c, struct rng *g, struct tm_cls *cls,
		     struct oracle *o)
{
	u32 pool = c->max_rules + c->max_rules / 4;
	u32 op = rng_below(g, 100), id = 1 + rng_below(g, pool);
	bool fill = o->n < c->max_rules / 2;
	struct tm_rule_set set;
	struct tm_rule r;
	struct oset os;
	struct tm_key k;
	int want, got;

	c->ops++;
	if (op >= 50 && !fill) {
		/* About a tenth of the lookups in bulk. */
		if (rng_below(g, 256)) {
			key_near(g, c->family, o, &k);
			agree(c, cls, o, &k);
		} else {
			agree_bulk(c, g, cls, o);
		}
		return;
	}
	if (op < 25 || fill) {
		gen_rule_set(g, c->family, id, &r, &os);
		want = oracle_insert_set(o, &r, &os);
		got = tm_cls_insert_set(cls, &r, oset_core(&os, &set));
		c->inserts++;
		c->set_rules += got == 0 && os.nsrc + os.ndst + os.nsport +
					    os.ndport + os.nproto;
	} else if (op < 38) {
		want = oracle_delete(o, id);
		got = tm_cls_delete(cls, id);
		c->deletes++;
	} else {
		if (o->n && rng_below(g, 4))
			id = o->r[rng_below(g, o->n)].id;
		gen_rule_set(g, c->family, id, &r, &os);
		want = oracle_replace_set(o, &r, &os);
		got = tm_cls_replace_set(cls, &r, oset_core(&os, &set));
		c->replaces++;
	}
	if (got != want && c->errors++ < 5)
		printf("  %s %s op %lu: returned %d, oracle %d\n",
		       engine_names[c->engine],
		       c->family == TM_AF_INET ? "ipv4" : "ipv6", c->ops, got,
		       want);
}

/* Every rule: a packet inside it that only it (or worse rules) covers. */
static unsigned int check_reachable(struct churn *c, struct rng *g,
				    struct tm_cls *cls, struct oracle *o,
				    unsigned int *shadowed)
{
	unsigned int i, t, bad = 0;
	struct tm_key k;

	*shadowed = 0;
	for (i = 0; i < o->n; i++) {
		bool found = false;

		for (t = 0; t < 64 && !found; t++) {
			gen_key_set(g, c->family, &o->r[i], &o->s[i], &k);
			if (oracle_lookup(o, &k) != &o->r[i])
				continue;
			found = true;
			if (hit(cls, &k) != o->r[i].id)
				bad++;
		}
		*shadowed += !found;
	}
	return bad;
}

/* Entries of @o's rules: the product of their set sizes. */
static u32 oracle_entries(const struct oracle *o)
{
	u32 i, n = 0;

	for (i = 0; i < o->n; i++) {
		const struct oset *os = &o->s[i];

		n += (os->nsrc ?: 1) * (os->ndst ?: 1) * (os->nsport ?: 1) *
		     (os->ndport ?: 1) * (os->nproto ?: 1);
	}
	return n;
}

/* The exact tuple of an entry: prefix lengths, exact ports, any proto. */
struct shape {
	u8 slen, dlen, sp, dp, any;
};

static void shape_add(struct shape *sh, unsigned int *n, struct shape x)
{
	unsigned int i;

	for (i = 0; i < *n; i++)
		if (!memcmp(&sh[i], &x, sizeof(x)))
			return;
	sh[(*n)++] = x;
}

/*
 * Distinct exact tuples of the rule set's entries: the tuples TSS needs,
 * and a bound TupleMerge must stay well under.
 */
static unsigned int count_tuples(const struct oracle *o)
{
	unsigned int i, j, n = 0;
	struct shape *sh = calloc(oracle_entries(o) + 1, sizeof(*sh));

	for (i = 0; i < o->n; i++) {
		const struct tm_rule *r = &o->r[i];
		const struct oset *os = &o->s[i];
		unsigned int ns = os->nsrc ?: 1, nd = os->ndst ?: 1;
		unsigned int nsp = os->nsport ?: 1, ndp = os->ndport ?: 1;
		unsigned int np = os->nproto ?: 1;

		for (j = 0; j < ns * nd * nsp * ndp * np; j++) {
			unsigned int a = j % ns, b = j / ns % nd;
			unsigned int c = j / ns / nd % nsp;
			unsigned int d = j / ns / nd / nsp % ndp;
			struct shape x = {
				.slen = os->nsrc ? os->src[a].len : r->src_len,
				.dlen = os->ndst ? os->dst[b].len : r->dst_len,
				.sp = os->nsport ?
				      os->sport[c].lo == os->sport[c].hi :
				      r->sport_lo == r->sport_hi,
				.dp = os->ndport ?
				      os->dport[d].lo == os->dport[d].hi :
				      r->dport_lo == r->dport_hi,
				.any = os->nproto ? 0 : r->proto_any,
			};

			shape_add(sh, &n, x);
		}
	}
	free(sh);
	return n;
}

static void test_churn(u8 engine, u8 family, unsigned long ops, u64 seed)
{
	struct churn c = { .engine = engine, .family = family };
	const char *en = engine_names[engine];
	const char *fam = family == TM_AF_INET ? "ipv4" : "ipv6";
	struct rng g = { .s = seed * 2 + 1 + engine * 7 + family };
	unsigned int bad, shadowed, tuples, verify_fail = 0;
	struct tm_cls *cls = new_cls(engine);
	struct oracle o;
	struct tm_stats st;
	const char *why = NULL;
	unsigned long i;

	/* IPv6 runs as the module's transaction copies do: frees at once. */
	tm_cls_set_private(cls, family == TM_AF_INET6);

	/*
	 * The linear engine copies its array on every change, and TSS probes
	 * every exact tuple (about a thousand here): keep those smaller.
	 */
	c.max_rules = engine == TM_ENGINE_TUPLEMERGE ? 600 : 300;
	oracle_init(&o);
	for (i = 0; i < ops; i++) {
		churn_op(&c, &g, cls, &o);
		if (i % 20000 == 0 && tm_cls_verify(cls, &why) &&
		    verify_fail++ < 3)
			printf("  verify after %lu ops: %s\n", i, why);
		/* Now and then, grow well past the usual size. */
		if (i % 250000 == 125000)
			c.max_rules *= 4;
		if (i % 250000 == 200000)
			c.max_rules /= 4;
	}
	check(!c.errors && c.set_rules,
	      "%s %s%s differential: %lu ops (%lu ins, %lu del, %lu repl, %lu set rules)",
	      en, fam, family == TM_AF_INET6 ? " private" : "", c.ops,
	      c.inserts, c.deletes, c.replaces, c.set_rules);
	check(!c.mismatches && c.bulk,
	      "%s %s differential: %lu lookups (%lu bulk calls), %lu mismatches",
	      en, fam, c.lookups, c.bulk, c.mismatches);
	check(!verify_fail && !tm_cls_verify(cls, &why),
	      "%s %s invariants during and after churn%s%s", en, fam,
	      why ? ": " : "", why ? why : "");
	bad = check_reachable(&c, &g, cls, &o, &shadowed);
	check(!bad, "%s %s every rule reachable: %u rules, %u not, %u shadowed",
	      en, fam, o.n, bad, shadowed);
	tm_cls_stats(cls, &st);
	tuples = count_tuples(&o);
	check(st.rules == o.n && st.entries == oracle_entries(&o) &&
	      st.tuples <= tuples &&
	      (engine != TM_ENGINE_TUPLEMERGE || st.tuples <= tuples / 4),
	      "%s %s stats: %u rules, %u entries, %u exact tuples, %u tuples, chain %u, %u splits, %llu B",
	      en, fam, st.rules, st.entries, tuples, st.tuples, st.max_chain, st.splits,
	      (unsigned long long)st.bytes);
	tm_cls_destroy(cls);
	oracle_free(&o);
}

/* With allocations failing at random, changes fail cleanly. */
static void test_nomem(u8 engine, u8 family, u64 seed)
{
	struct churn c = { .engine = engine, .family = family };
	const char *en = engine_names[engine];
	const char *fam = family == TM_AF_INET ? "ipv4" : "ipv6";
	struct rng g = { .s = seed * 3 + 5 + engine + family };
	struct tm_cls *cls = new_cls(engine);
	unsigned long i, nomem = 0, wrong = 0, del_fail = 0;
	struct tm_rule_set set;
	struct tm_stats st;
	struct oracle o;
	struct tm_rule r;
	struct oset os;
	struct tm_key k;
	const char *why;
	int err;

	tm_cls_set_private(cls, family == TM_AF_INET6);
	oracle_init(&o);
	tm_alloc_failed = 0;
	tm_alloc_fail_every = 5;
	for (i = 0; i < 30000; i++) {
		u32 id = 1 + rng_below(&g, 400);
		u32 op = rng_below(&g, 10);

		if (op < 5) {
			gen_rule_set(&g, family, id, &r, &os);
			err = tm_cls_insert_set(cls, &r, oset_core(&os, &set));
			if (!err)
				oracle_insert_set(&o, &r, &os);
		} else if (op < 7) {
			err = tm_cls_delete(cls, id);
			del_fail += err && err != -ENOENT;
			if (!err)
				oracle_delete(&o, id);
		} else if (op < 8) {
			gen_rule_set(&g, family, id, &r, &os);
			err = tm_cls_replace_set(cls, &r, oset_core(&os, &set));
			if (!err)
				oracle_replace_set(&o, &r, &os);
		} else {
			key_near(&g, family, &o, &k);
			wrong += !agree(&c, cls, &o, &k);
			continue;
		}
		nomem += err == -ENOMEM;
	}
	tm_alloc_fail_every = 0;
	for (i = 0; i < 5000; i++) {
		key_near(&g, family, &o, &k);
		wrong += !agree(&c, cls, &o, &k);
	}
	tm_cls_stats(cls, &st);
	check(!tm_cls_verify(cls, &why), "%s %s nomem: invariants hold",
	      en, fam);
	check(nomem && !del_fail && !wrong && st.rules == o.n &&
	      st.entries == oracle_entries(&o),
	      "%s %s nomem: %lu allocs failed, %lu changes refused, %lu deletes failed, %lu wrong",
	      en, fam, tm_alloc_failed, nomem, del_fail, wrong);
	tm_cls_destroy(cls);
	oracle_free(&o);
}

int main(int argc, char **argv)
{
	unsigned long ops = 1000000;
	int i, only_engine = -1;
	u64 seed = 1;
	u8 e, f;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ops") && i + 1 < argc) {
			ops = strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--engine") && i + 1 < argc) {
			only_engine = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			seed = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--quick")) {
			ops = 20000;
		} else {
			fprintf(stderr,
				"usage: %s [--ops N] [--seed S] [--engine E] [--quick]\n",
				argv[0]);
			return 2;
		}
	}
	rcu_register_thread();
	for (e = 0; e <= TM_ENGINE_MAX; e++) {
		if (only_engine >= 0 && e != only_engine)
			continue;
		for (f = 0; f < 2; f++) {
			test_directed(e, f ? TM_AF_INET6 : TM_AF_INET);
			test_churn(e, f ? TM_AF_INET6 : TM_AF_INET, ops, seed);
			test_nomem(e, f ? TM_AF_INET6 : TM_AF_INET, seed);
		}
	}
	tm_rcu_flush();
	rcu_barrier();
	rcu_unregister_thread();
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
