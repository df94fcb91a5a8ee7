// SPDX-License-Identifier: GPL-2.0
/*
 * The work of TupleMerge splits, counted at the core's hook points rather
 * than timed: a bucket of rules that differ only in port ranges, which no
 * split can shorten, must not cost a split attempt on every insert (each
 * attempt scores every candidate tuple on every rule of the bucket).  Also
 * a few ordinary splits, small enough to run under valgrind, which checks
 * that choosing a split reads no uninitialised memory.  And the tuple
 * list's copies, counted the same way: with a thousand tuples (TSS), the
 * changes that alter a tuple's list entry copy the list once per about
 * sqrt(tuples) of them, not each time.  And where a split leaves the best
 * ranked of its movers (tm_split_keep()), and a new tuple taking in the
 * tuples it covers (tm_merge_into()).  Prints the work done.  Built
 * without sanitizers, for valgrind (make check-valgrind).
 *
 * Usage: test_split_cost [--rules N]
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"
#include "shim.h"

static unsigned int passed, failed;

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

static unsigned long evals, scored;

static unsigned long copies, copied;

static void count(enum tm_hook_point p, u64 v)
{
	if (p == TM_HOOK_SPLIT_EVAL) {
		evals++;
		scored += v;
	} else if (p == TM_HOOK_LIST_COPY) {
		copies++;
		copied += v;
	}
}

static void shuffle(u32 *a, u32 n, struct rng *g)
{
	u32 i, j, t;

	for (i = n - 1; i > 0; i--) {
		j = rng_below(g, i + 1);
		t = a[i];
		a[i] = a[j];
		a[j] = t;
	}
}

static void addr(struct tm_addr *a, u8 family, u32 v)
{
	memset(a, 0, sizeof(*a));
	if (family == TM_AF_INET) {
		a->w[0] = v;
	} else {
		a->w[0] = 0x20010db8;
		a->w[3] = v;
	}
}

/*
 * @n rules of one source prefix and protocol, port ranges all different:
 * one bucket, and every candidate (the prefix's own length, each port,
 * the protocol) leaves it whole.  Four candidates per attempt; attempts at
 * 49 rules and then each time the bucket has doubled: at most
 * 4 x (49 + 98 + ... + n) < 8n rules scored.
 */
static void long_bucket(u8 family, u32 n)
{
	const char *fam = family == TM_AF_INET ? "ipv4" : "ipv6";
	struct tm_params p;
	struct tm_stats st;
	struct tm_cls *cls;
	struct tm_rule r;
	u32 i, bad = 0;

	tm_params_default(&p);
	cls = tm_cls_create(&p);
	if (!cls)
		abort();
	tm_cls_set_private(cls, true);
	evals = 0;
	scored = 0;
	tm_hook_fn = count;
	for (i = 0; i < n; i++) {
		memset(&r, 0, sizeof(r));
		r.id = i + 1;
		r.priority = i;
		r.family = family;
		r.src_len = family == TM_AF_INET ? 28 : 112;
		addr(&r.src, family, 0x0a090000);
		r.sport_lo = i % 60000;
		r.sport_hi = i % 60000 + 1 + i / 60000;
		r.dport_hi = 65535;
		r.proto = 17;
		bad += tm_cls_insert(cls, &r) != 0;
	}
	tm_hook_fn = NULL;
	tm_cls_stats(cls, &st);
	printf("  %s: %u rules, one bucket of %u: %lu scorings of %lu rules, %.1f per insert\n",
	       fam, n, st.max_chain, evals, scored, (double)scored / n);
	check(!bad && st.max_chain == n && scored <= 8ULL * n,
	      "%s: a bucket of %u rules no split shortens: %lu rules scored (bound %u)",
	      fam, n, scored, 8 * n);
	tm_cls_destroy(cls);
}

/*
 * Ordinary splits: rules of one host pair with exact destination ports
 * split by port; those of 16 hosts by source prefix.  Every rule is found.
 */
static void some_splits(u8 family)
{
	const char *fam = family == TM_AF_INET ? "ipv4" : "ipv6";
	struct tm_params p;
	struct tm_stats st;
	struct tm_cls *cls;
	struct tm_rule r;
	struct tm_key k;
	u32 i, bad = 0;
	const char *why;

	tm_params_default(&p);
	cls = tm_cls_create(&p);
	if (!cls)
		abort();
	for (i = 0; i < 300; i++) {
		memset(&r, 0, sizeof(r));
		r.id = i + 1;
		r.priority = i;
		r.family = family;
		r.src_len = family == TM_AF_INET ? 32 : 128;
		addr(&r.src, family, 0x0a010000 | (i < 150 ? 1 : i % 16));
		r.sport_hi = 65535;
		r.dport_lo = 1000 + i;
		r.dport_hi = i < 150 ? 1000 + i : 65535;
		r.proto_any = 1;
		bad += tm_cls_insert(cls, &r) != 0;
	}
	for (i = 0; i < 300; i++) {
		const struct tm_rule *got;

		memset(&k, 0, sizeof(k));
		k.family = family;
		addr(&k.src, family, 0x0a010000 | (i < 150 ? 1 : i % 16));
		k.dport = 1000 + i;
		rcu_read_lock();
		got = tm_cls_lookup(cls, &k);
		/* The lowest id of the rules that match. */
		bad += !got || got->id > i + 1;
		rcu_read_unlock();
	}
	tm_cls_stats(cls, &st);
	bad += tm_cls_verify(cls, &why) != 0;
	check(!bad && st.splits,
	      "%s: %u splits, every rule found, invariants hold", fam,
	      st.splits);
	tm_cls_destroy(cls);
}

struct seen_tuple {
	u32 n;
	struct tm_tuple_info ti[4];
};

static int note_tuple(const struct tm_tuple_info *ti, void *arg)
{
	struct seen_tuple *st = arg;

	if (st->n < 4)
		st->ti[st->n] = *ti;
	st->n++;
	return 0;
}

/* @cls answers @k with the rule of id @id. */
static bool answers(struct tm_cls *cls, const struct tm_key *k, u32 id)
{
	const struct tm_rule *got;
	bool ok;

	rcu_read_lock();
	got = tm_cls_lookup(cls, k);
	ok = got && got->id == id;
	rcu_read_unlock();
	return ok;
}

/* Host @host of destination network @i: a /24, or an IPv6 /96. */
static void dst_net(struct tm_addr *a, u8 family, u32 i, u32 host)
{
	addr(a, family, 0x14000000 | i << 8 | host);
	if (family == TM_AF_INET6) {
		a->w[2] = 0x14000000 | i << 8;
		a->w[3] = host;
	}
}

/*
 * A split leaves the best ranked of its movers behind: rule A (priority
 * 100, TCP, any destination) makes the tuple src/28 dst/0 (IPv6 /112),
 * rules 1..9 (priorities 1..9, one destination /24 or /96 each) join its
 * bucket; at 9 rules over c = 8 the bucket splits by destination length,
 * A cannot move, and of rules 1..8 the three best ((8 - 1) / 2, half the
 * room left) stay where they are, so the new tuple's bound is rule 4's,
 * not rule 1's (a lookup probes a tuple only if its answer ranks after
 * the bound).  Rule 9 then goes to the new tuple.  Every rule is found.
 */
static void split_keeps_best(u8 family)
{
	const char *fam = family == TM_AF_INET ? "ipv4" : "ipv6";
	u32 dlen = family == TM_AF_INET ? 24 : 96;
	struct seen_tuple seen = { 0 };
	struct tm_params p;
	struct tm_cls *cls;
	struct tm_rule r;
	struct tm_key k;
	u32 i, bad = 0;
	const char *why;

	tm_params_default(&p);
	p.collide = 8;
	cls = tm_cls_create(&p);
	if (!cls)
		abort();
	for (i = 0; i < 10; i++) {
		memset(&r, 0, sizeof(r));
		r.id = i + 1;
		r.priority = i ? i : 100;
		r.family = family;
		r.src_len = family == TM_AF_INET ? 32 : 128;
		addr(&r.src, family, 0x0a000001);
		if (i) {
			r.dst_len = dlen;
			dst_net(&r.dst, family, i, 0);
			r.proto_any = 1;
		} else {
			r.proto = 6;
		}
		r.sport_hi = 65535;
		r.dport_hi = 65535;
		bad += tm_cls_insert(cls, &r) != 0;
	}
	for (i = 0; i < 10; i++) {
		memset(&k, 0, sizeof(k));
		k.family = family;
		addr(&k.src, family, 0x0a000001);
		if (i)
			dst_net(&k.dst, family, i, 5);
		else
			addr(&k.dst, family, 0x1e000001);
		k.proto = i ? 17 : 6;
		bad += !answers(cls, &k, i + 1);
	}
	bad += tm_cls_verify(cls, &why) != 0;
	tm_cls_tuples(cls, note_tuple, &seen);
	printf("  %s: %u tuples:", fam, seen.n);
	for (i = 0; i < seen.n && i < 4; i++)
		printf(" dst/%u %u rules best %u;", seen.ti[i].dst_len,
		       seen.ti[i].rules, seen.ti[i].best_priority);
	putchar('\n');
	check(!bad && seen.n == 2 && seen.ti[0].dst_len == 0 &&
	      seen.ti[0].rules == 4 && seen.ti[0].best_priority == 1 &&
	      seen.ti[1].dst_len == dlen && seen.ti[1].rules == 6 &&
	      seen.ti[1].best_priority == 4,
	      "%s: a split keeps its 3 best movers, the new tuple's bound is the 4th's",
	      fam);
	tm_cls_destroy(cls);
}

/*
 * Rule @i of merge_covered() (or a key it matches, @host in its source
 * prefix): hosts 0..19, then the /16 (/64) source.
 */
static void merge_addrs(u8 family, u32 i, u32 host, struct tm_addr *src,
			struct tm_addr *dst)
{
	if (i < 20) {
		addr(src, family, 0x0a000001 | i << 16);
		addr(dst, family, 0x14000001 | i);
		return;
	}
	addr(src, family, (family == TM_AF_INET ? 0x0a630000 : 0) | host);
	if (family == TM_AF_INET6)
		src->w[1] = 0x63;
}

/*
 * A new tuple takes in the tuples it covers: 20 host rules (tuple src/28
 * dst/28, IPv6 /112 /112) inserted best first, then a rule for a /16 (IPv6
 * /64) and any destination, whose new tuple (src/15 or /56, dst/0) covers
 * theirs and holds them in one bucket of 20, under half of c: one tuple
 * of 21 rules is left (tm_merge_into()), and every rule is found.
 */
static void merge_covered(u8 family)
{
	const char *fam = family == TM_AF_INET ? "ipv4" : "ipv6";
	struct seen_tuple seen = { 0 };
	struct tm_params p;
	struct tm_stats st;
	struct tm_cls *cls;
	struct tm_rule r;
	struct tm_key k;
	u32 i, bad = 0;
	const char *why;

	tm_params_default(&p);
	cls = tm_cls_create(&p);
	if (!cls)
		abort();
	for (i = 0; i < 21; i++) {
		memset(&r, 0, sizeof(r));
		r.id = i + 1;
		r.priority = i;
		r.family = family;
		if (i < 20) {
			r.src_len = family == TM_AF_INET ? 32 : 128;
			r.dst_len = r.src_len;
		} else {
			r.src_len = family == TM_AF_INET ? 16 : 64;
		}
		merge_addrs(family, i, 0, &r.src, &r.dst);
		r.sport_hi = 65535;
		r.dport_hi = 65535;
		r.proto_any = 1;
		bad += tm_cls_insert(cls, &r) != 0;
	}
	for (i = 0; i < 21; i++) {
		memset(&k, 0, sizeof(k));
		k.family = family;
		merge_addrs(family, i, 5, &k.src, &k.dst);
		bad += !answers(cls, &k, i + 1);
	}
	bad += tm_cls_verify(cls, &why) != 0;
	tm_cls_tuples(cls, note_tuple, &seen);
	tm_cls_stats(cls, &st);
	printf("  %s: %u tuples, the first src/%u dst/%u of %u rules; %u merges, %u splits\n",
	       fam, seen.n, seen.ti[0].src_len, seen.ti[0].dst_len,
	       seen.ti[0].rules, st.merges, st.splits);
	check(!bad && seen.n == 1 && seen.ti[0].rules == 21 &&
	      seen.ti[0].dst_len == 0 && st.merges == 1 && !st.splits,
	      "%s: a new tuple takes in the tuple it covers, every rule found, one merge counted",
	      fam);
	tm_cls_destroy(cls);
}

/*
 * TSS with a tuple per (source, destination) prefix length pair: 33 x 33
 * (IPv4) or 33 x 33 of the lengths 0, 4, ..., 128 (IPv6), three rules each
 * at random priorities, inserted in random order, then deleted in random
 * order.  New tuples, better and worse bounds, new hash tables and emptied
 * tuples all change list entries; the entries copied per change stay
 * under 4 sqrt(tuples) (a copy per change would be about tuples / 2).
 * All the rules match everything: one bucket per tuple.
 */
static void many_tuples(u8 family)
{
	const char *fam = family == TM_AF_INET ? "ipv4" : "ipv6";
	u32 step = family == TM_AF_INET ? 1 : 4, nt = 33 * 33, n = 3 * nt;
	u32 *order = calloc(n, sizeof(*order));
	u32 *prio = calloc(n, sizeof(*prio));
	struct rng g = { .s = 0x9e3779b97f4a7c15ULL };
	unsigned long changes = 0;
	struct tm_params p;
	struct tm_cls *cls;
	struct tm_rule r;
	u32 i, bad = 0;
	const char *why;
	double bound;
	int err;

	if (!order || !prio)
		abort();
	tm_params_default(&p);
	p.engine = TM_ENGINE_TSS;
	cls = tm_cls_create(&p);
	if (!cls)
		abort();
	tm_cls_set_private(cls, true);
	for (i = 0; i < n; i++) {
		order[i] = i;
		prio[i] = i;
	}
	shuffle(prio, n, &g);
	shuffle(order, n, &g);
	copies = 0;
	copied = 0;
	tm_hook_fn = count;
	for (i = 0; i < n; i++) {
		u32 x = order[i], t = x % nt;

		memset(&r, 0, sizeof(r));
		r.id = x + 1;
		r.priority = prio[x];
		r.family = family;
		r.src_len = t / 33 * step;
		r.dst_len = t % 33 * step;
		r.sport_hi = 65535;
		r.dport_hi = 65535;
		r.proto_any = 1;
		err = tm_cls_insert(cls, &r);
		if (err && !bad++)
			printf("  %s: insert of rule %u: %d\n", fam, r.id, err);
		changes++;
	}
	if (tm_cls_verify(cls, &why)) {
		printf("  %s: %s\n", fam, why);
		bad++;
	}
	shuffle(order, n, &g);
	for (i = 0; i < n; i++) {
		bad += tm_cls_delete(cls, order[i] + 1) != 0;
		changes++;
	}
	tm_hook_fn = NULL;
	bad += tm_cls_verify(cls, &why) != 0;
	bound = 4 * 33;		/* sqrt(nt) */
	printf("  %s: %u tuples, %lu changes: %lu list copies of %lu entries, %.1f per change\n",
	       fam, nt, changes, copies, copied, (double)copied / changes);
	check(!bad && copied <= bound * changes,
	      "%s: %u tuples: %.1f list entries copied per change (bound %.0f)",
	      fam, nt, (double)copied / changes, bound);
	tm_cls_destroy(cls);
	free(order);
	free(prio);
}

int main(int argc, char **argv)
{
	u32 n = 2000;

	if (argc == 3 && !strcmp(argv[1], "--rules"))
		n = strtoul(argv[2], NULL, 0);
	rcu_register_thread();
	tm_rcu_sync = true;
	some_splits(TM_AF_INET);
	some_splits(TM_AF_INET6);
	split_keeps_best(TM_AF_INET);
	split_keeps_best(TM_AF_INET6);
	merge_covered(TM_AF_INET);
	merge_covered(TM_AF_INET6);
	long_bucket(TM_AF_INET, n);
	long_bucket(TM_AF_INET6, n);
	many_tuples(TM_AF_INET);
	many_tuples(TM_AF_INET6);
	rcu_unregister_thread();
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
