// SPDX-License-Identifier: GPL-2.0
/*
 * Lookups concurrent with changes: one writer, several readers, every
 * engine, IPv4 and IPv6.  The rules live in lanes (one address block each),
 * so that a packet of a lane depends only on that lane's rules.  Before
 * each change of a lane the writer records, in a ring, what every probe
 * packet of the lane must get after it; then it makes the change and
 * publishes the lane's step number.  A reader notes the step before and
 * after its lookup and checks that the answer is one the lane gave at some
 * step in between: a lookup never returns what no rule set gave (see the
 * contract in kmod/core/tm_cls.h).  Runs under ASan and UBSan, which also
 * catch a reader touching memory freed too early.  Then TupleMerge splits
 * under lookups, with a long bucket to widen the window (run_split()).
 *
 * Usage: test_concurrency [--seconds S]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "oracle.h"
#include "shim.h"

#define LANES		32
#define RULES		6	/* per lane */
#define PKTS		8	/* probe packets per lane */
#define RING		256	/* steps of answers kept per lane */
#define READERS		2

struct lane {
	u32 step;			/* changes made, published last */
	u32 ans[RING][PKTS];		/* ans[s % RING]: answers after step s */
	struct tm_key pkt[PKTS];
	struct oracle o;
};

static struct lane lanes[LANES];
static struct tm_cls *cls;
static int stop;		/* read and written with __atomic */
static unsigned long lookups[READERS], bad[READERS], skipped[READERS];
static u8 family;

static void lane_addr(struct tm_addr *a, unsigned int lane, u32 host)
{
	memset(a, 0, sizeof(*a));
	if (family == TM_AF_INET) {
		a->w[0] = 0x0a000000 | lane << 16 | (host & 0xffff);
	} else {
		a->w[0] = 0x20010db8;
		a->w[1] = lane << 16;
		a->w[3] = host;
	}
}

/* A random rule inside lane @l: the lane's /16 (or /48) and longer. */
static void lane_rule(struct rng *g, unsigned int l, u32 id,
		      struct tm_rule *r)
{
	unsigned int base = family == TM_AF_INET ? 16 : 48;
	unsigned int full = family == TM_AF_INET ? 32 : 128;
	unsigned int len = base + rng_below(g, full - base + 1);
	unsigned int i;

	gen_rule(g, family, id, r);
	r->src_len = len;
	lane_addr(&r->src, l, rng_below(g, 4) << 8 | rng_below(g, 4));
	for (i = 0; i < 4; i++) {
		unsigned int lo = 32 * i;

		if (len <= lo)
			r->src.w[i] = 0;
		else if (len < lo + 32)
			r->src.w[i] &= ~0u << (32 - (len - lo));
	}
	r->priority = rng_below(g, 8);
}

static void record(struct lane *ln, u32 step)
{
	unsigned int p;

	for (p = 0; p < PKTS; p++) {
		const struct tm_rule *r = oracle_lookup(&ln->o, &ln->pkt[p]);

		__atomic_store_n(&ln->ans[step % RING][p], r ? r->id : 0,
				 __ATOMIC_RELAXED);
	}
}

static void *writer(void *arg)
{
	struct rng g = { .s = 77 + family };
	unsigned long changes = 0;
	struct tm_rule r;

	rcu_register_thread();
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		unsigned int l = rng_below(&g, LANES), j = rng_below(&g, RULES);
		struct lane *ln = &lanes[l];
		u32 id = l * 100 + j + 1, step = ln->step;
		bool present = oracle_find(&ln->o, id) >= 0;
		int err, op = rng_below(&g, 3);

		lane_rule(&g, l, id, &r);
		/* What the lane answers after this change, recorded first. */
		if (present && op == 0)
			oracle_delete(&ln->o, id);
		else if (present)
			oracle_replace(&ln->o, &r);
		else
			oracle_insert(&ln->o, &r);
		record(ln, step + 1);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		if (present && op == 0)
			err = tm_cls_delete(cls, id);
		else if (present)
			err = tm_cls_replace(cls, &r);
		else
			err = tm_cls_insert(cls, &r);
		if (err) {
			fprintf(stderr, "change of id %u failed: %d\n", id, err);
			abort();
		}
		__atomic_store_n(&ln->step, step + 1, __ATOMIC_RELEASE);
		changes++;
	}
	tm_rcu_flush();
	rcu_unregister_thread();
	return (void *)changes;
}

/*
 * Reader 0 looks up one packet of a lane at a time, reader 1 all the
 * lane's packets in one tm_cls_lookup_bulk().
 */
static void *reader(void *arg)
{
	long me = (long)arg;
	struct rng g = { .s = 1000 + me };

	rcu_register_thread();
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		unsigned int l = rng_below(&g, LANES), p = rng_below(&g, PKTS);
		unsigned int i, n = me == 1 ? PKTS : 1;
		const struct tm_rule *r[PKTS];
		struct lane *ln = &lanes[l];
		u32 s1, s2, s, got[PKTS];

		if (n > 1)
			p = 0;
		s1 = __atomic_load_n(&ln->step, __ATOMIC_ACQUIRE);
		rcu_read_lock();
		if (n > 1)
			tm_cls_lookup_bulk(cls, ln->pkt, n, r);
		else
			r[0] = tm_cls_lookup(cls, &ln->pkt[p]);
		for (i = 0; i < n; i++)
			got[i] = r[i] ? r[i]->id : 0;
		rcu_read_unlock();
		s2 = __atomic_load_n(&ln->step, __ATOMIC_ACQUIRE);
		lookups[me] += n;
		if (s2 - s1 > RING / 2) {
			skipped[me] += n;
			continue;
		}
		for (i = 0; i < n; i++) {
			bool ok = false;

			/* The change after s2 may have been under way too. */
			for (s = s1; s != s2 + 2 && !ok; s++)
				ok = __atomic_load_n(&ln->ans[s % RING][p + i],
						     __ATOMIC_RELAXED) == got[i];
			if (!ok && bad[me]++ < 5)
				fprintf(stderr, "lane %u packet %u: id %u, not of steps %u..%u%s\n",
					l, p + i, got[i], s1, s2 + 1,
					n > 1 ? " (bulk)" : "");
		}
	}
	rcu_unregister_thread();
	return NULL;
}

static int run(u8 engine, u8 fam, double seconds)
{
	static const char * const names[] = { "tuplemerge", "tss", "linear" };
	unsigned long total = 0, wrong = 0, skip = 0, changes;
	pthread_t w, rd[READERS];
	struct tm_params p;
	struct rng g = { .s = 5 };
	struct timespec ts;
	unsigned int l, i;
	void *ret;

	family = fam;
	tm_params_default(&p);
	p.engine = engine;
	cls = tm_cls_create(&p);
	memset(lanes, 0, sizeof(lanes));
	for (l = 0; l < LANES; l++) {
		oracle_init(&lanes[l].o);
		for (i = 0; i < PKTS; i++) {
			struct tm_key *k = &lanes[l].pkt[i];

			gen_key(&g, family, NULL, k);
			lane_addr(&k->src, l, rng_below(&g, 4) << 8 |
				  rng_below(&g, 4));
		}
		record(&lanes[l], 0);
	}
	memset(lookups, 0, sizeof(lookups));
	memset(bad, 0, sizeof(bad));
	memset(skipped, 0, sizeof(skipped));
	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
	pthread_create(&w, NULL, writer, NULL);
	for (i = 0; i < READERS; i++)
		pthread_create(&rd[i], NULL, reader, (void *)(long)i);
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(w, &ret);
	changes = (unsigned long)ret;
	for (i = 0; i < READERS; i++) {
		pthread_join(rd[i], NULL);
		total += lookups[i];
		wrong += bad[i];
		skip += skipped[i];
	}
	tm_cls_destroy(cls);
	for (l = 0; l < LANES; l++)
		oracle_free(&lanes[l].o);
	printf("%s: %s %s: %lu changes, %lu lookups (%lu unchecked), %lu impossible\n",
	       wrong || !changes || !total ? "FAIL" : "ok", names[engine],
	       fam == TM_AF_INET ? "ipv4" : "ipv6", changes, total, skip,
	       wrong);
	return wrong || !changes || !total;
}

/*
 * Splits under lookups.  A long bucket that no split can shorten (LONG
 * rules that differ only in port ranges, matching none of the packets
 * below) sits in the first tuple every lookup probes, so that a lookup
 * spends a while between taking the tuple list and probing the others.
 * The writer cycles: the rules B_0..B_(NB-1), one per packet, all in one
 * bucket, go in one by one, so that the last one overflows the bucket and
 * a split moves them all to a new tuple (in every other cycle an anchor
 * rule that cannot move keeps the old tuple, so that only the bucket
 * moves); then they go out again.  Every op is a step of a fixed schedule,
 * so a reader knows which B_i are in at each step: a lookup for packet i
 * that overlapped only steps with B_i in (a steady one) must return B_i,
 * not a miss.
 */
#define LONG		400
#define NB		49
#define CYCLE		(2 * NB + 2)	/* anchor, NB in, NB out, anchor */

static struct tm_key bkey[NB];
static u32 sstep;		/* ops done, published last */

static void split_rule(struct tm_rule *r, u32 id, u32 host, u16 dlo,
		       u16 dhi)
{
	memset(r, 0, sizeof(*r));
	r->id = id;
	r->priority = id;
	r->family = family;
	r->src_len = family == TM_AF_INET ? 32 : 128;
	lane_addr(&r->src, 1, host);
	r->sport_hi = 65535;
	r->dport_lo = dlo;
	r->dport_hi = dhi;
	r->proto_any = 1;
}

/* Whether B_i is in after @s ops of the schedule. */
static bool b_in(u32 s, u32 i)
{
	u32 o = s % CYCLE;

	return o > 1 + i && o <= NB + 1 + i;
}

static void *split_writer(void *arg)
{
	unsigned long cycles = 0;
	struct tm_rule r;
	u32 s = 0, o, i;
	int err;

	rcu_register_thread();
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		for (o = 0; o < CYCLE; o++, s++) {
			bool anchor = cycles & 1;

			err = 0;
			if (o == 0 && anchor) {
				split_rule(&r, 100, family == TM_AF_INET ?
					   0x100 : 0x10000, 0, 10);
				err = tm_cls_insert(cls, &r);
			} else if (o == CYCLE - 1 && anchor) {
				err = tm_cls_delete(cls, 100);
			} else if (o >= 1 && o <= NB) {
				i = o - 1;
				split_rule(&r, 1 + i, i % 16, 2000 + i,
					   2000 + i);
				err = tm_cls_insert(cls, &r);
			} else if (o > NB && o <= 2 * NB) {
				err = tm_cls_delete(cls, o - NB);
			}
			if (err) {
				fprintf(stderr, "split op %u failed: %d\n", o,
					err);
				abort();
			}
			__atomic_store_n(&sstep, s + 1, __ATOMIC_RELEASE);
		}
		cycles++;
	}
	tm_rcu_flush();
	rcu_unregister_thread();
	return (void *)cycles;
}

/* Reader 1 looks up four packets at a time, in bulk. */
static void *split_reader(void *arg)
{
	long me = (long)arg;
	struct rng g = { .s = 2000 + me };

	rcu_register_thread();
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		unsigned int j, n = me == 1 ? 4 : 1;
		const struct tm_rule *r[4];
		struct tm_key k[4];
		u32 i[4], s1, s2, s, got;

		for (j = 0; j < n; j++) {
			i[j] = rng_below(&g, NB);
			k[j] = bkey[i[j]];
		}
		s1 = __atomic_load_n(&sstep, __ATOMIC_ACQUIRE);
		rcu_read_lock();
		if (n > 1)
			tm_cls_lookup_bulk(cls, k, n, r);
		else
			r[0] = tm_cls_lookup(cls, &k[0]);
		for (j = 0; j < n; j++)
			i[j] |= (r[j] ? r[j]->id : 0) << 16;
		rcu_read_unlock();
		s2 = __atomic_load_n(&sstep, __ATOMIC_ACQUIRE);
		for (j = 0; j < n; j++) {
			u32 b = i[j] & 0xffff;
			bool ok = false, all_in = true;

			got = i[j] >> 16;
			lookups[me]++;
			/* The op after s2 may have been under way: s2 + 1. */
			for (s = s1; s != s2 + 2; s++) {
				ok |= got == (b_in(s, b) ? 1 + b : 0);
				all_in &= b_in(s, b);
			}
			skipped[me] += !all_in;
			if (!ok && bad[me]++ < 5)
				fprintf(stderr, "packet of B_%u: got %u over ops %u..%u%s\n",
					b, got, s1, s2 + 1,
					n > 1 ? " (bulk)" : "");
		}
	}
	rcu_unregister_thread();
	return NULL;
}

static int run_split(u8 fam, double seconds)
{
	unsigned long total = 0, wrong = 0, part = 0, cycles;
	pthread_t w, rd[READERS];
	struct tm_params p;
	struct timespec ts;
	struct tm_stats st;
	struct tm_rule r;
	void *ret;
	u32 i;

	family = fam;
	tm_params_default(&p);
	cls = tm_cls_create(&p);
	for (i = 0; i < LONG; i++) {
		memset(&r, 0, sizeof(r));
		r.id = 1000 + i;
		r.family = family;
		/* Destination 10/8 or 2001:db8::/32, every packet's. */
		r.dst_len = family == TM_AF_INET ? 8 : 32;
		r.dst.w[0] = family == TM_AF_INET ? 0x0a000000 : 0x20010db8;
		r.sport_hi = 65535;
		r.dport_lo = i;
		r.dport_hi = 1000 + i;
		r.proto_any = 1;
		if (tm_cls_insert(cls, &r))
			abort();
	}
	for (i = 0; i < NB; i++) {
		memset(&bkey[i], 0, sizeof(bkey[i]));
		bkey[i].family = family;
		lane_addr(&bkey[i].src, 1, i % 16);
		lane_addr(&bkey[i].dst, 2, i);
		bkey[i].sport = 1024 + i;
		bkey[i].dport = 2000 + i;
		bkey[i].proto = 17;
	}
	sstep = 0;
	memset(lookups, 0, sizeof(lookups));
	memset(bad, 0, sizeof(bad));
	memset(skipped, 0, sizeof(skipped));
	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
	pthread_create(&w, NULL, split_writer, NULL);
	for (i = 0; i < READERS; i++)
		pthread_create(&rd[i], NULL, split_reader, (void *)(long)i);
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(w, &ret);
	cycles = (unsigned long)ret;
	for (i = 0; i < READERS; i++) {
		pthread_join(rd[i], NULL);
		total += lookups[i];
		wrong += bad[i];
		part += skipped[i];
	}
	tm_cls_stats(cls, &st);
	tm_cls_destroy(cls);
	printf("%s: tuplemerge %s: %lu cycles, %u splits, %lu lookups (%lu steady), %lu bad\n",
	       wrong || !cycles || total == part ? "FAIL" : "ok",
	       fam == TM_AF_INET ? "ipv4" : "ipv6", cycles, st.splits, total,
	       total - part, wrong);
	return wrong || !cycles || total == part;
}

int main(int argc, char **argv)
{
	double seconds = 1.0;
	int failed = 0, passed = 0, e, f;

	if (argc == 3 && !strcmp(argv[1], "--seconds"))
		seconds = atof(argv[2]);
	rcu_register_thread();
	for (e = 0; e <= TM_ENGINE_MAX; e++) {
		for (f = 0; f < 2; f++) {
			if (run(e, f ? TM_AF_INET6 : TM_AF_INET, seconds))
				failed++;
			else
				passed++;
		}
	}
	for (f = 0; f < 2; f++) {
		if (run_split(f ? TM_AF_INET6 : TM_AF_INET, seconds))
			failed++;
		else
			passed++;
	}
	tm_rcu_flush();
	rcu_barrier();
	rcu_unregister_thread();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
