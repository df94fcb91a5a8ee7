// SPDX-License-Identifier: GPL-2.0
/*
 * Lookups racing a TupleMerge split, with the interleaving forced through
 * the test hooks (kmod/core/tm_platform.h) instead of left to chance:
 *
 *	reader				writer
 *	------				------
 *	lookup takes the tuple list
 *	  (stops)
 *					insert the rule that overflows a bucket
 *					  split: R in the new tuple,
 *					  R out of the old tuple
 *					  (stops)
 *	lookup probes the tuples,
 *	returns
 *					  (goes on)
 *
 * The reader's packet is one of R's, and its answer must be what the
 * classifier gave for it before the insert or after it: a split moves
 * rules, it never takes one away.  The reader takes its list either before
 * the insert or once the split has put its first rule in the new tuple (so
 * that the new tuple's hash table may still grow under it), and the writer
 * stops after each moved rule in turn.
 *
 * Scenarios, IPv4 and IPv6: a whole tuple moved to a new one; a bucket
 * moved to a new tuple; a bucket moved to a tuple that exists and grows on
 * the way; and random rule sets with small collision limits, among which
 * nested splits (a split whose new tuple overflows and splits again).
 * Each insert is first run once to learn which rules its splits move.
 * Then the same race with each allocation of the insert failing in turn.
 *
 * Usage: test_split_race [--quick]
 * Prints one line per check and "N passed, N failed" at the end.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The reader thread and its handshakes with the writer (main). */
static sem_t start, listed, go, done;
static struct tm_cls *rd_cls;
static struct tm_key rd_key;
static u32 rd_got;
static bool rd_arm;		/* the next list taken by the reader stops */
static __thread bool is_reader;

#define NMOVED	4096

/* What the writer does at its hook points. */
static struct {
	int when;		/* reader takes its list: 0 before, 1 in split */
	u32 drop_at;		/* stop after this split drop (0, 1, ...) */
	u32 drops;
	bool started, released;
	/* learning run: the rules moved */
	bool record;
	u32 moved[NMOVED];
	u32 nmoved;
} w;

static void *reader(void *arg)
{
	const struct tm_rule *r;

	is_reader = true;
	rcu_register_thread();
	for (;;) {
		sem_wait(&start);
		if (!rd_cls)
			break;
		rcu_read_lock();
		r = tm_cls_lookup(rd_cls, &rd_key);
		rd_got = r ? r->id : 0;
		rcu_read_unlock();
		sem_post(&done);
	}
	rcu_unregister_thread();
	return NULL;
}

/* Start the reader's lookup; return once it holds its tuple list. */
static void reader_start(void)
{
	rd_arm = true;
	sem_post(&start);
	sem_wait(&listed);
	w.started = true;
}

/* Let the reader finish; return once it has its answer. */
static void reader_finish(void)
{
	w.released = true;
	sem_post(&go);
	sem_wait(&done);
}

static void hook(enum tm_hook_point p, u64 v)
{
	if (is_reader) {
		if (p == TM_HOOK_LOOKUP_LIST && rd_arm) {
			rd_arm = false;
			sem_post(&listed);
			sem_wait(&go);
		}
		return;
	}
	if (p == TM_HOOK_SPLIT_DROP && w.record &&
	    w.nmoved < NMOVED)
		w.moved[w.nmoved++] = v;
	if (p == TM_HOOK_SPLIT_ADD && w.when == 1 && !w.started &&
	    !w.record)
		reader_start();
	if (p == TM_HOOK_SPLIT_DROP && w.drops++ == w.drop_at &&
	    w.started && !w.released)
		reader_finish();
}

struct scen {
	char name[64];
	u8 family;
	u8 collide;
	struct tm_rule *r;	/* rules installed first */
	u32 n;
	struct tm_rule trig;	/* the insert that splits */
	u32 want_splits;	/* 0: any */
};

#define SEED	4242

static struct tm_cls *scen_cls(const struct scen *s)
{
	struct tm_params p;
	struct tm_cls *cls;
	u32 i;

	tm_params_default(&p);
	if (s->collide)
		p.collide = s->collide;
	/* Same hash seed every time: the same buckets, the same splits. */
	tm_test_seed = SEED;
	cls = tm_cls_create(&p);
	if (!cls)
		abort();
	for (i = 0; i < s->n; i++) {
		if (tm_cls_insert(cls, &s->r[i])) {
			fprintf(stderr, "%s: setup insert %u failed\n",
				s->name, i);
			abort();
		}
	}
	return cls;
}

static const struct tm_rule *scen_rule(const struct scen *s, u32 id)
{
	u32 i;

	for (i = 0; i < s->n; i++)
		if (s->r[i].id == id)
			return &s->r[i];
	return s->trig.id == id ? &s->trig : NULL;
}

static u32 answer(const struct oracle *o, const struct tm_key *k)
{
	const struct tm_rule *r = oracle_lookup(o, k);

	return r ? r->id : 0;
}

/* Run @s once; returns the number of splits the trigger made. */
static u32 scen_learn(const struct scen *s)
{
	struct tm_cls *cls = scen_cls(s);
	struct tm_stats a, b;

	tm_cls_stats(cls, &a);
	memset(&w, 0, sizeof(w));
	w.record = true;
	if (tm_cls_insert(cls, &s->trig))
		abort();
	w.record = false;
	tm_cls_stats(cls, &b);
	tm_cls_destroy(cls);
	return b.splits - a.splits;
}

/*
 * The forced interleaving for each moved rule (at most @max of them, spread
 * over the moves) and both times the reader can take its list.
 */
static void scen_race(const struct scen *s, u32 max, struct rng *g)
{
	u32 moved[NMOVED], nmoved, i, when, runs = 0, wrong = 0, unreached = 0;
	u32 splits = scen_learn(s), step;
	struct oracle o;

	nmoved = w.nmoved;
	memcpy(moved, w.moved, nmoved * sizeof(moved[0]));
	if (!nmoved) {
		check(false, "%s: the insert moves no rule", s->name);
		return;
	}
	oracle_init(&o);
	for (i = 0; i < s->n; i++)
		oracle_insert(&o, &s->r[i]);
	step = nmoved > max ? nmoved / max : 1;
	for (i = 0; i < nmoved; i += step) {
		const struct tm_rule *r = scen_rule(s, moved[i]);
		u32 before, after;
		struct tm_key k;

		gen_key(g, s->family, r, &k);
		k.iif = r->iif;
		k.oif = r->oif;
		before = answer(&o, &k);
		oracle_insert(&o, &s->trig);
		after = answer(&o, &k);
		oracle_delete(&o, s->trig.id);
		for (when = 0; when < 2; when++) {
			struct tm_cls *cls = scen_cls(s);
			const char *why;

			memset(&w, 0, sizeof(w));
			w.when = when;
			w.drop_at = i;
			rd_cls = cls;
			rd_key = k;
			if (when == 0)
				reader_start();
			if (tm_cls_insert(cls, &s->trig))
				abort();
			if (!w.started || !w.released) {
				/* The interleaving did not happen: a bug here. */
				unreached++;
				if (!w.started)
					reader_start();
				reader_finish();
			}
			runs++;
			if (rd_got != before && rd_got != after) {
				if (wrong++ < 3)
					printf("  %s: rule %u moved, list %s: got %u, want %u/%u\n",
					       s->name, moved[i],
					       when ? "in split" : "before",
					       rd_got, before, after);
			}
			if (tm_cls_verify(cls, &why)) {
				printf("  %s: verify: %s\n", s->name, why);
				wrong++;
			}
			tm_cls_destroy(cls);
		}
	}
	oracle_free(&o);
	check(!wrong && !unreached &&
	      (!s->want_splits || splits == s->want_splits),
	      "%s: %u splits moving %u rules, %u forced lookups, %u wrong, %u not forced",
	      s->name, splits, nmoved, runs, wrong, unreached);
}

/*
 * Allocation failures in the middle of the split: the insert either fails
 * and changes nothing, or moves fewer rules; either way the reader racing
 * it (list taken before, stopped after the first rule left its tuple) gets
 * an answer of before or after, and every rule is found afterwards.
 */
static void scen_nomem(const struct scen *s, struct rng *g)
{
	u32 f, nallocs, runs = 0, wrong = 0, refused = 0, first, i;
	struct tm_cls *cls = scen_cls(s);
	unsigned long a0 = tm_alloc_count;
	struct oracle o, o2;
	struct tm_key k;
	u32 before, after;

	memset(&w, 0, sizeof(w));
	w.record = true;
	if (tm_cls_insert(cls, &s->trig))
		abort();
	nallocs = tm_alloc_count - a0;
	first = w.moved[0];
	tm_cls_destroy(cls);
	oracle_init(&o);
	for (i = 0; i < s->n; i++)
		oracle_insert(&o, &s->r[i]);
	oracle_init(&o2);
	for (i = 0; i < s->n; i++)
		oracle_insert(&o2, &s->r[i]);
	oracle_insert(&o2, &s->trig);
	gen_key(g, s->family, scen_rule(s, first), &k);
	k.iif = scen_rule(s, first)->iif;
	k.oif = scen_rule(s, first)->oif;
	before = answer(&o, &k);
	after = answer(&o2, &k);
	for (f = 1; f <= nallocs; f++) {
		const struct oracle *now;
		const char *why;
		int err;

		cls = scen_cls(s);
		memset(&w, 0, sizeof(w));
		rd_cls = cls;
		rd_key = k;
		reader_start();
		tm_alloc_fail_at = tm_alloc_count + f;
		err = tm_cls_insert(cls, &s->trig);
		tm_alloc_fail_at = 0;
		if (!w.released)
			reader_finish();
		runs++;
		refused += err != 0;
		now = err ? &o : &o2;
		if ((err && err != -ENOMEM) ||
		    (rd_got != before && rd_got != (err ? before : after))) {
			printf("  %s: alloc %u failed: insert %d, reader got %u, want %u/%u\n",
			       s->name, f, err, rd_got, before, after);
			wrong++;
		}
		if (tm_cls_verify(cls, &why)) {
			printf("  %s: allocation %u failed: verify: %s\n",
			       s->name, f, why);
			wrong++;
		}
		for (i = 0; i < now->n; i++) {
			const struct tm_rule *r;
			struct tm_key k2;

			gen_key(g, s->family, &now->r[i], &k2);
			rcu_read_lock();
			r = tm_cls_lookup(cls, &k2);
			if ((r ? r->id : 0) != answer(now, &k2)) {
				printf("  %s: alloc %u failed: insert %d, rule %u: %u, not %u\n",
				       s->name, f, err, now->r[i].id,
				       r ? r->id : 0, answer(now, &k2));
				wrong++;
			}
			rcu_read_unlock();
		}
		tm_cls_destroy(cls);
	}
	oracle_free(&o);
	oracle_free(&o2);
	check(!wrong && refused < runs,
	      "%s, allocations failing: %u runs (%u inserts refused), %u wrong",
	      s->name, runs, refused, wrong);
}

static void addr_of(struct tm_addr *a, u8 family, u32 net, u32 host)
{
	memset(a, 0, sizeof(*a));
	if (family == TM_AF_INET) {
		a->w[0] = net << 8 | host;
	} else {
		a->w[0] = 0x20010db8;
		a->w[1] = net;
		a->w[3] = host;
	}
}

/*
 * A rule of bucket @net: source @net.(@i mod 16) as a host prefix (all in
 * one bucket of the relaxed tuple, which hashes /28 or /112), any
 * destination, destination port @dlo..@dhi.
 */
static void bucket_rule(struct tm_rule *r, u8 family, u32 id, u32 net, u32 i,
			u16 dlo, u16 dhi)
{
	memset(r, 0, sizeof(*r));
	r->id = id;
	r->priority = id;
	r->family = family;
	r->src_len = family == TM_AF_INET ? 32 : 128;
	addr_of(&r->src, family, net, i % 16);
	r->sport_hi = 65535;
	r->dport_lo = dlo;
	r->dport_hi = dhi;
	r->proto_any = 1;
	r->action = id;
}

static void directed(u8 family, u32 max)
{
	const char *fam = family == TM_AF_INET ? "ipv4" : "ipv6";
	static struct tm_rule r[200];
	struct rng g = { .s = 99 + family };
	struct scen s;
	u32 i, n;

	/* 48 rules in a bucket, the 49th moves the whole tuple. */
	memset(&s, 0, sizeof(s));
	snprintf(s.name, sizeof(s.name), "%s whole tuple", fam);
	s.family = family;
	for (i = 0; i < 48; i++)
		bucket_rule(&r[i], family, 100 + i, 0x0a0100, i, 2000 + i,
			    2000 + i);
	s.r = r;
	s.n = 48;
	bucket_rule(&s.trig, family, 148, 0x0a0100, 48, 2048, 2048);
	scen_race(&s, max, &g);
	scen_nomem(&s, &g);

	/* An anchor that cannot move keeps the tuple: the bucket moves. */
	snprintf(s.name, sizeof(s.name), "%s bucket to a new tuple", fam);
	bucket_rule(&r[48], family, 1, 0x0a0101, 0, 0, 100);
	s.n = 49;
	scen_race(&s, max, &g);

	/*
	 * Bucket Y (48 rules) in first, then bucket X splits to the new
	 * tuple; then a rule that stays, in Y, moves Y's 48 to that tuple,
	 * whose hash table grows on the way.
	 */
	snprintf(s.name, sizeof(s.name), "%s bucket to a growing tuple", fam);
	n = 0;
	bucket_rule(&r[n++], family, 1, 0x0a0101, 0, 0, 100);
	for (i = 0; i < 48; i++, n++)
		bucket_rule(&r[n], family, 200 + i, 0x0a0102, i, 3000 + i,
			    3000 + i);
	for (i = 0; i < 49; i++, n++)
		bucket_rule(&r[n], family, 100 + i, 0x0a0100, i, 2000 + i,
			    2000 + i);
	s.n = n;
	bucket_rule(&s.trig, family, 300, 0x0a0102, 48, 0, 1);
	scen_race(&s, max, &g);
	scen_nomem(&s, &g);

	/*
	 * Nested: G (20 rules of one host, exact source ports), Q (9 other
	 * hosts) and P (a prefix shorter than a host, covering G's host)
	 * share a bucket.  Z's split made a host tuple, where H (40 rules of
	 * G's host, port ranges) went.  The 20th P rule splits the bucket:
	 * G and Q move to the host tuple, G overflows H's bucket there, and
	 * that splits again by source port.  G and Q rank after the host
	 * tuple's best (Z's first rule), so all of them move: a split keeps
	 * back those that would better its target's bound (tm_split_keep()).
	 */
	snprintf(s.name, sizeof(s.name), "%s nested split", fam);
	n = 0;
	bucket_rule(&r[n], family, 1, 0x0a0106, 0, 0, 100);
	r[n++].src_len = family == TM_AF_INET ? 28 : 112;
	for (i = 0; i < 20; i++, n++) {
		bucket_rule(&r[n], family, 250 + i, 0x0a0104, 1, i, 1000 + i);
		r[n].sport_lo = 2000 + i;
		r[n].sport_hi = 2000 + i;
	}
	for (i = 0; i < 9; i++, n++)
		bucket_rule(&r[n], family, 270 + i, 0x0a0104, 2 + i, i,
			    1000 + i);
	for (i = 0; i < 49; i++, n++)
		bucket_rule(&r[n], family, 200 + i, 0x0a0105, i, i, 1000 + i);
	for (i = 0; i < 40; i++, n++)
		bucket_rule(&r[n], family, 300 + i, 0x0a0104, 1, i, 1000 + i);
	for (i = 0; i < 20; i++, n++) {
		bucket_rule(&r[n], family, 400 + i, 0x0a0104, 0, i, 1000 + i);
		r[n].src_len = family == TM_AF_INET ? 30 : 126;
	}
	s.trig = r[--n];
	s.n = n;
	s.want_splits = 2;
	scen_race(&s, max, &g);
	scen_nomem(&s, &g);
}

/*
 * Random rule sets and small collision limits: the first insert that
 * splits twice (nested), or else the last one that split, is the trigger.
 */
static void random_sets(u8 family, u32 count, u32 max)
{
	const char *fam = family == TM_AF_INET ? "ipv4" : "ipv6";
	static struct tm_rule r[400];
	u32 c, nested = 0;

	for (c = 0; c < count; c++) {
		struct rng g = { .s = 1000 + c * 7 + family };
		struct tm_stats a, b;
		struct tm_cls *cls;
		struct scen s;
		u32 i, last = 0;

		memset(&s, 0, sizeof(s));
		s.family = family;
		s.collide = 2 + c % 7;
		s.r = r;
		/* One classifier, grown as scen_cls() would grow it. */
		cls = scen_cls(&s);
		for (i = 0; i < 300; i++) {
			gen_rule(&g, family, i + 1, &r[i]);
			tm_cls_stats(cls, &a);
			if (tm_cls_insert(cls, &r[i]))
				abort();
			tm_cls_stats(cls, &b);
			if (b.splits != a.splits)
				last = i;
			if (b.splits - a.splits > 1)
				break;
		}
		tm_cls_destroy(cls);
		if (!last)
			continue;
		nested += i < 300;
		s.n = last;
		s.trig = r[last];
		snprintf(s.name, sizeof(s.name),
			 "%s random set %u (collide %u, %u rules)", fam, c,
			 s.collide, s.n);
		scen_race(&s, max, &g);
	}
	check(nested > 0, "%s random sets: %u of %u triggers split twice",
	      fam, nested, count);
}

int main(int argc, char **argv)
{
	bool quick = argc == 2 && !strcmp(argv[1], "--quick");
	u32 max = quick ? 6 : 24, sets = quick ? 10 : 40;
	pthread_t rd;
	int f;

	/* A hang here is a handshake gone wrong: fail instead. */
	alarm(300);
	rcu_register_thread();
	sem_init(&start, 0, 0);
	sem_init(&listed, 0, 0);
	sem_init(&go, 0, 0);
	sem_init(&done, 0, 0);
	tm_hook_fn = hook;
	pthread_create(&rd, NULL, reader, NULL);
	for (f = 0; f < 2; f++) {
		directed(f ? TM_AF_INET6 : TM_AF_INET, max);
		random_sets(f ? TM_AF_INET6 : TM_AF_INET, sets, max);
	}
	rd_cls = NULL;
	sem_post(&start);
	pthread_join(rd, NULL);
	tm_hook_fn = NULL;
	tm_rcu_flush();
	rcu_barrier();
	rcu_unregister_thread();
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
