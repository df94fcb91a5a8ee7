// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the input is a stream of operations (insert, delete,
 * replace, lookup, verify) on one classifier, mirrored on the oracle; any
 * difference, invariant failure or sanitizer report is a crash.  The first
 * byte picks the engine and family, and whether allocations fail.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"
#include "shim.h"

struct input {
	const u8 *p;
	size_t n;
};

static u8 take(struct input *in)
{
	u8 b = 0;

	if (in->n) {
		b = *in->p++;
		in->n--;
	}
	return b;
}

static u32 take32(struct input *in)
{
	return take(in) | take(in) << 8 | take(in) << 16 | (u32)take(in) << 24;
}

/* Addresses from a few bytes, so that the fuzzer reaches overlaps fast. */
static void take_addr(struct input *in, u8 family, struct tm_addr *a)
{
	u8 b = take(in);

	memset(a, 0, sizeof(*a));
	a->w[0] = family == TM_AF_INET ? 0x0a000000 | b << 8 | take(in) :
		  0x20010db8;
	if (family == TM_AF_INET6) {
		a->w[1] = b;
		a->w[3] = take(in);
	}
}

static void take_rule(struct input *in, u8 family, struct tm_rule *r)
{
	unsigned int full = family == TM_AF_INET ? 32 : 128, i;
	u8 b;

	memset(r, 0, sizeof(*r));
	r->family = family;
	r->id = take(in) % 64;
	r->priority = take(in) % 16;
	r->src_len = take(in) % (full + 1);
	r->dst_len = take(in) % (full + 1);
	take_addr(in, family, &r->src);
	take_addr(in, family, &r->dst);
	for (i = 0; i < 4; i++) {
		unsigned int lo = 32 * i;

		if (r->src_len <= lo)
			r->src.w[i] = 0;
		else if (r->src_len < lo + 32)
			r->src.w[i] &= ~0u << (32 - (r->src_len - lo));
		if (r->dst_len <= lo)
			r->dst.w[i] = 0;
		else if (r->dst_len < lo + 32)
			r->dst.w[i] &= ~0u << (32 - (r->dst_len - lo));
	}
	r->sport_lo = take(in) % 4;
	r->sport_hi = r->sport_lo + take(in) % 3;
	r->dport_lo = take(in) % 8;
	r->dport_hi = take(in) & 1 ? r->dport_lo : 65535;
	r->proto_any = take(in) & 1;
	r->proto = r->proto_any ? 0 : 6 + take(in) % 2;
	r->action = r->id;
	/* One rule in 8 has an iif and/or an oif, from 1..3. */
	b = take(in);
	if (!(b & 7)) {
		r->iif = (b >> 3) % 4;
		r->oif = (b >> 5) % 4;
		if (!r->iif && !r->oif)
			r->iif = 1;
	}
	/* One rule in 4 has other extra fields, from a few values each. */
	b = take(in);
	if (!(b & 3)) {
		r->ct_set = (b >> 2) & 0x1f;
		b = take(in);
		r->frag_set = b & 7;
		r->mark_mask = b & 8 ? 0x3 : 0;
		r->mark = r->mark_mask & (b >> 4);
		r->dscp_set = (b & 0x40) ? 0x3ULL << (take(in) % 4) : 0;
		if (!r->proto_any && r->proto == 6 && (b & 0x80)) {
			b = take(in);
			r->tcp_flags_mask = b & 0x17;
			r->tcp_flags = (b >> 3) & r->tcp_flags_mask;
		}
	}
}

/*
 * One rule in 4 is a set rule: one to three values in each field a byte
 * picks, from few values, so that they overlap each other and the rules.
 */
static void take_set(struct input *in, u8 family, const struct tm_rule *r,
		     struct oset *os)
{
	u8 b = take(in), full = family == TM_AF_INET ? 32 : 128;
	unsigned int i;

	memset(os, 0, sizeof(*os));
	if (b & 3)
		return;
	if (b & 0x04) {
		os->nsrc = 1 + take(in) % 3;
		for (i = 0; i < os->nsrc; i++) {
			take_addr(in, family, &os->src[i].addr);
			os->src[i].len = full;
		}
	}
	if (b & 0x08) {
		os->ndst = 1 + take(in) % 3;
		for (i = 0; i < os->ndst; i++) {
			take_addr(in, family, &os->dst[i].addr);
			os->dst[i].len = take(in) & 1 ? full : full - 8;
			os->dst[i].addr.w[family == TM_AF_INET ? 0 : 3] &=
				os->dst[i].len == full ? ~0u : ~0xffu;
		}
	}
	if (b & 0x10) {
		os->nsport = 1 + take(in) % 3;
		for (i = 0; i < os->nsport; i++) {
			os->sport[i].lo = take(in) % 4;
			os->sport[i].hi = os->sport[i].lo + take(in) % 2;
		}
	}
	if (b & 0x20) {
		os->ndport = 1 + take(in) % 3;
		for (i = 0; i < os->ndport; i++) {
			os->dport[i].lo = take(in) % 8;
			os->dport[i].hi = os->dport[i].lo;
		}
	}
	/* TCP flags need every entry's protocol to be tcp. */
	if ((b & 0x40) && !r->tcp_flags_mask) {
		os->nproto = 1 + take(in) % 2;
		for (i = 0; i < os->nproto; i++)
			os->proto[i] = 6 + take(in) % 2;
	}
}

static void take_key(struct input *in, u8 family, struct tm_key *k)
{
	u8 b;

	memset(k, 0, sizeof(*k));
	k->family = family;
	take_addr(in, family, &k->src);
	take_addr(in, family, &k->dst);
	k->sport = take(in) % 6;
	k->dport = take(in) % 10;
	k->proto = 6 + take(in) % 2;
	/* Interfaces 0 (none) to 3. */
	b = take(in);
	k->iif = b % 4;
	k->oif = (b >> 2) % 4;
	/* Extra fields from a few values, so that they meet the rules'. */
	k->ct = (b >> 4) % (TM_CT_MAX + 1);
	b = take(in);
	k->frag = b % (TM_FRAG_MAX + 1);
	k->mark = (b >> 2) & 3;
	k->dscp = (b >> 4) % 6;
	k->tcp_flags = k->proto == 6 ? take(in) & 0x17 : 0;
}

/* @a, the classifier's answer to @k, is the oracle's @b. */
static void check_answer(const struct oracle *o, const struct tm_rule *a,
			 const struct tm_rule *b, const struct tm_key *k)
{
	/* Of a set rule, any entry that matches. */
	if ((a || b) &&
	    (!a || !b ||
	     (oracle_sets(o, b) ?
	      a->id != b->id || a->action != b->action ||
	      !oracle_matches(a, k) : !rule_eq(a, b)))) {
		fprintf(stderr, "lookup: got %u want %u\n",
			a ? a->id : 0, b ? b->id : 0);
		abort();
	}
}

/*
 * A bulk lookup of 1 to 2 x TM_LOOKUP_BULK_MAX keys from the input, a key
 * of the other family now and then: the oracle's answers.
 */
static void check_bulk(struct input *in, struct tm_cls *cls,
		       const struct oracle *o, u8 family)
{
	static struct tm_key k[2 * TM_LOOKUP_BULK_MAX];
	static const struct tm_rule *got[2 * TM_LOOKUP_BULK_MAX];
	unsigned int i, n = 1 + take(in) % (2 * TM_LOOKUP_BULK_MAX);
	u8 other = family == TM_AF_INET ? TM_AF_INET6 : TM_AF_INET;

	for (i = 0; i < n; i++)
		take_key(in, take(in) % 8 ? family : other, &k[i]);
	rcu_read_lock();
	tm_cls_lookup_bulk(cls, k, n, got);
	for (i = 0; i < n; i++)
		check_answer(o, got[i], oracle_lookup(o, &k[i]), &k[i]);
	rcu_read_unlock();
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct input in = { data, size };
	u8 mode = take(&in), family;
	struct tm_params p;
	struct tm_cls *cls;
	struct oracle o;
	const char *why;
	static bool registered;

	if (!registered) {
		rcu_register_thread();
		tm_rcu_sync = true;
		registered = true;
	}
	tm_params_default(&p);
	p.engine = mode % 3;
	p.collide = 1 + (mode >> 4) % 4;
	family = mode & 8 ? TM_AF_INET6 : TM_AF_INET;
	tm_alloc_fail_every = mode & 4 ? 3 : 0;
	cls = tm_cls_create(&p);
	if (!cls)
		return 0;
	tm_cls_set_private(cls, mode & 0x40);
	oracle_init(&o);
	while (in.n) {
		u8 op = take(&in) % 6;
		const struct tm_rule *a, *b;
		struct tm_rule_set set;
		struct tm_rule r;
		struct tm_key k;
		struct oset os;
		int got, want;

		switch (op) {
		case 0:
			take_rule(&in, family, &r);
			take_set(&in, family, &r, &os);
			got = tm_cls_insert_set(cls, &r, oset_core(&os, &set));
			want = got == -ENOMEM ? -ENOMEM :
			       oracle_insert_set(&o, &r, &os);
			break;
		case 1:
			r.id = take(&in) % 64;
			got = tm_cls_delete(cls, r.id);
			want = oracle_delete(&o, r.id);
			break;
		case 2:
			take_rule(&in, family, &r);
			take_set(&in, family, &r, &os);
			got = tm_cls_replace_set(cls, &r, oset_core(&os, &set));
			want = got == -ENOMEM ? -ENOMEM :
			       oracle_replace_set(&o, &r, &os);
			break;
		case 3:
			take_key(&in, family, &k);
			rcu_read_lock();
			a = tm_cls_lookup(cls, &k);
			b = oracle_lookup(&o, &k);
			check_answer(&o, a, b, &k);
			rcu_read_unlock();
			continue;
		case 4:
			check_bulk(&in, cls, &o, family);
			continue;
		default:
			if (!tm_alloc_fail_every && tm_cls_verify(cls, &why)) {
				fprintf(stderr, "verify: %s\n", why);
				abort();
			}
			continue;
		}
		if (got != want) {
			fprintf(stderr, "op %u: got %d want %d\n", op, got, want);
			abort();
		}
	}
	tm_alloc_fail_every = 0;
	tm_cls_destroy(cls);
	oracle_free(&o);
	return 0;
}
