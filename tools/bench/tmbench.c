// SPDX-License-Identifier: GPL-2.0
/*
 * tmbench: benchmark of the classification engines on a ClassBench-format
 * rule file and trace.
 *
 *	tmbench [-e ENGINES] [-p PEER] [-c COLLIDE] [-r REPEAT] [-j JSON]
 *		[-k FILE] [-t] [-f] RULES [TRACE]
 *
 * For each engine (default: tuplemerge,tss,linear): build time, ns per
 * lookup and Mpps on the trace as given (ClassBench locality) and on the
 * same headers shuffled, insert and delete cost measured by deleting and
 * re-inserting the whole set in random order, bytes per rule, tuples (the
 * hash tables of the tuple engines) and average tuples probed.  Lookups
 * are checked against the linear engine on a sample, before and after the
 * churn (above 200,000 rules, against a scan of the rules in rank order,
 * on a sample of 4e9 / rules lookups).  Without TRACE, one is made by
 * drawing a random header inside each rule, shuffled.  -t lists the
 * tuples of the tuple engines.
 *
 * -p rte_acl (--peer) also builds DPDK's rte_acl from the same rules (the
 * lower (priority, id) wins, as ours) and prints its build time and ns per
 * packet, 64 packets per call, in the bulk columns, its answers checked
 * against the reference like ours; tmbench built without DPDK's
 * development files says the peer is unavailable (peer.c).
 *
 * -k FILE writes the rules, the trace and the tuplemerge engine's answers
 * for tm_kbench.ko (selftests/kbench/), which times the same lookups in
 * the kernel and checks its answers against these.
 *
 * -f honours the flags field of the rules and of the trace
 * (CB_HONOUR_FLAGS, classbench.h): TCP rules get their TCP flags, ICMP
 * rules their type and code (in the port ranges), headers the flags of
 * the rule they were made from.  Without it, the field is ignored: the
 * 5-tuple only.  The first line and the JSON say which.  Without TRACE
 * and with -f, a TCP header's flags are drawn at random but for those its
 * rule fixes, from a generator of their own, so that both modes draw the
 * same 5-tuples; an ICMP rule's type and code are drawn below 256 when
 * its range allows.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "classbench.h"
#include "peer.h"
#include "shim.h"
#include "tm_kblob.h"

#define SAMPLE_MAX	20000	/* lookups checked against the linear engine */
/*
 * Above this many rules, the reference is a scan of the rules in rank
 * order (building the linear engine copies its array at each insert:
 * O(n^2)), and the sample shrinks so that it scans SCAN_WORK rules.
 */
#define REF_ENGINE_MAX	200000
#define SCAN_WORK	4000000000.0
#define LINEAR_MAX	50000	/* lookups timed for the linear engine */
#define BULK		TM_LOOKUP_BULK_MAX	/* keys per bulk lookup */

static const char * const engine_names[] = {
	[TM_ENGINE_TUPLEMERGE] = "tuplemerge",
	[TM_ENGINE_TSS] = "tss",
	[TM_ENGINE_LINEAR] = "linear",
};

struct result {
	const char *engine;
	double build_ms, ns_trace, ns_shuffled, us_insert, us_delete;
	double ns_bulk, ns_bulk_shuffled;	/* tm_cls_lookup_bulk(), x64 */
	double probes, ents, bytes_per_rule;	/* per lookup: tuples, entries */
	/* After the churn: the rules inserted again in random order. */
	double churn_probes, churn_ents, churn_ns;
	u32 churn_tuples;
	u32 tuples, max_chain, splits, merges, rules;
	unsigned long checked, wrong;
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static u64 rng_state = 0x243f6a8885a308d3ULL;
static u64 flags_rng_state = 0x13198a2e03707344ULL;	/* make_trace() */

static u64 rng_next(u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static u64 rng(void)
{
	return rng_next(&rng_state);
}

static void shuffle(void *base, size_t n, size_t size)
{
	char tmp[sizeof(struct tm_rule) > sizeof(struct tm_key) ?
		 sizeof(struct tm_rule) : sizeof(struct tm_key)];
	char *a = base;
	size_t i, j;

	for (i = n; i > 1; i--) {
		j = rng() % i;
		memcpy(tmp, a + (i - 1) * size, size);
		memcpy(a + (i - 1) * size, a + j * size, size);
		memcpy(a + j * size, tmp, size);
	}
}

static void die(const char *msg)
{
	fprintf(stderr, "tmbench: %s\n", msg);
	exit(1);
}

static int gap = -1, hash = -1;	/* -1: the default */

static int parse_hash(const char *arg)
{
	int h = 0;

	if (strstr(arg, "sport"))
		h |= TM_HASH_SPORT;
	if (strstr(arg, "dport"))
		h |= TM_HASH_DPORT;
	if (strstr(arg, "proto"))
		h |= TM_HASH_PROTO;
	return h;
}

static struct tm_cls *build(u8 engine, u8 collide, const struct tm_rule *r,
			    size_t n)
{
	struct tm_params p;
	struct tm_cls *cls;
	char msg[128];
	size_t i;
	int err;

	tm_params_default(&p);
	p.engine = engine;
	if (collide)
		p.collide = collide;
	if (gap >= 0)
		p.gap = gap;
	if (hash >= 0)
		p.hash = hash;
	cls = tm_cls_create(&p);
	if (!cls)
		die("cannot create a classifier (bad parameters?)");
	for (i = 0; i < n; i++) {
		err = tm_cls_insert(cls, &r[i]);
		if (err) {
			snprintf(msg, sizeof(msg), "insert of rule id %u: %s",
				 r[i].id, strerror(-err));
			die(msg);
		}
	}
	return cls;
}

/* Average ns per lookup over @n keys, @repeat passes. */
static double time_lookups(const struct tm_cls *cls, const struct tm_key *k,
			   size_t n, int repeat, u64 *sum)
{
	double t0, t1;
	size_t i;
	int rep;

	t0 = now_ns();
	for (rep = 0; rep < repeat; rep++) {
		for (i = 0; i < n; i++) {
			const struct tm_rule *r;

			if (!(i & 1023))
				rcu_read_lock();
			r = tm_cls_lookup(cls, &k[i]);
			*sum += r ? r->id : 0;
			if ((i & 1023) == 1023 || i == n - 1)
				rcu_read_unlock();
		}
	}
	t1 = now_ns();
	return (t1 - t0) / ((double)n * repeat);
}

/* Average ns per lookup, tm_cls_lookup_bulk() of BULK keys at a time. */
static double time_lookups_bulk(const struct tm_cls *cls,
				const struct tm_key *k, size_t n, int repeat,
				u64 *sum)
{
	const struct tm_rule *r[BULK];
	double t0, t1;
	size_t i, j, m;
	int rep;

	t0 = now_ns();
	for (rep = 0; rep < repeat; rep++) {
		for (i = 0; i < n; i += m) {
			m = n - i < BULK ? n - i : BULK;
			if (!(i & 1023))
				rcu_read_lock();
			tm_cls_lookup_bulk(cls, &k[i], m, r);
			for (j = 0; j < m; j++)
				*sum += r[j] ? r[j]->id : 0;
			if (((i + m) & 1023) < m || i + m == n)
				rcu_read_unlock();
		}
	}
	t1 = now_ns();
	return (t1 - t0) / ((double)n * repeat);
}

/* The reference answers: the linear engine, or a scan of the rules. */
struct ref {
	struct tm_cls *cls;
	const struct tm_rule **rules;	/* by rank, when !cls */
	size_t n, sample;
};

static const struct tm_rule *ref_lookup(const struct ref *ref,
					const struct tm_key *k)
{
	size_t i;

	if (ref->cls)
		return tm_cls_lookup(ref->cls, k);
	for (i = 0; i < ref->n; i++)
		if (tm_rule_matches(ref->rules[i], k))
			return ref->rules[i];
	return NULL;
}

static void ref_init(struct ref *ref, const struct tm_rule *r, size_t n)
{
	size_t i;

	memset(ref, 0, sizeof(*ref));
	ref->n = n;
	ref->sample = SAMPLE_MAX;
	if (n <= REF_ENGINE_MAX) {
		ref->cls = build(TM_ENGINE_LINEAR, 0, r, n);
		return;
	}
	ref->rules = malloc(n * sizeof(*ref->rules));
	if (!ref->rules)
		die("out of memory");
	for (i = 0; i < n; i++)
		ref->rules[i] = &r[i];
	qsort(ref->rules, n, sizeof(*ref->rules), rule_rank_cmp);
	if (SCAN_WORK / n < ref->sample)
		ref->sample = SCAN_WORK / n;
}

static void ref_free(struct ref *ref)
{
	tm_cls_destroy(ref->cls);
	free(ref->rules);
}

/*
 * A sample of the keys looked up in @cls, one by one and in bulk (BULK at
 * a time), and in the reference @ref: every answer must be @ref's.
 */
static void check_sample(const struct tm_cls *cls, const struct ref *ref,
			 const struct tm_key *k, size_t n, struct result *res)
{
	size_t i, m = 0, step = n > ref->sample ? n / ref->sample : 1;
	const struct tm_rule **bulk;
	struct tm_key *keys;

	keys = malloc((n / step + 1) * sizeof(*keys));
	bulk = malloc((n / step + 1) * sizeof(*bulk));
	if (!keys || !bulk)
		die("out of memory");
	for (i = 0; i < n; i += step)
		keys[m++] = k[i];
	rcu_read_lock();
	for (i = 0; i < m; i += BULK)
		tm_cls_lookup_bulk(cls, &keys[i], m - i < BULK ? m - i : BULK,
				   &bulk[i]);
	for (i = 0; i < m; i++) {
		const struct tm_rule *a = tm_cls_lookup(cls, &keys[i]);
		const struct tm_rule *b = ref_lookup(ref, &keys[i]);
		u32 want = b ? b->id : 0;

		res->checked++;
		if ((a ? a->id : 0) != want ||
		    (bulk[i] ? bulk[i]->id : 0) != want)
			res->wrong++;
	}
	rcu_read_unlock();
	free(keys);
	free(bulk);
}

/* Average probes and bucket entries compared per lookup. */
static void avg_cost(const struct tm_cls *cls, const struct tm_key *k,
		     size_t n, double *probes, double *ents)
{
	size_t i, step = n > 100000 ? n / 100000 : 1, m = 0;
	struct tm_lookup_cost c;
	u64 p = 0, e = 0;

	rcu_read_lock();
	for (i = 0; i < n; i += step, m++) {
		tm_cls_lookup_cost(cls, &k[i], &c);
		p += c.probes;
		e += c.entries;
	}
	rcu_read_unlock();
	*probes = m ? (double)p / m : 0;
	*ents = m ? (double)e / m : 0;
}

/* Delete every rule, then insert them all again, both in random order. */
static void churn(struct tm_cls *cls, const struct tm_rule *rules, size_t n,
		  struct result *res)
{
	struct tm_rule *order = malloc(n * sizeof(*order));
	double t0;
	size_t i;

	if (!order)
		die("out of memory");
	memcpy(order, rules, n * sizeof(*order));
	shuffle(order, n, sizeof(*order));
	t0 = now_ns();
	for (i = 0; i < n; i++)
		if (tm_cls_delete(cls, order[i].id))
			die("a delete failed while deleting every rule");
	res->us_delete = (now_ns() - t0) / n / 1e3;
	shuffle(order, n, sizeof(*order));
	t0 = now_ns();
	for (i = 0; i < n; i++)
		if (tm_cls_insert(cls, &order[i]))
			die("an insert failed while inserting them again");
	res->us_insert = (now_ns() - t0) / n / 1e3;
	free(order);
}

static int print_tuple(const struct tm_tuple_info *ti, void *arg)
{
	printf("  table ipv%c src/%-3u dst/%-3u sport %-5s dport %-5s proto %-5s",
	       ti->family == TM_AF_INET ? '4' : '6', ti->src_len, ti->dst_len,
	       ti->sport ? "exact" : "-", ti->dport ? "exact" : "-",
	       ti->proto ? "exact" : "-");
	printf(" rules %6u buckets %6u slots %6u best prio %u\n", ti->rules,
	       ti->buckets, ti->slots, ti->best_priority);
	return 0;
}

static bool show_tuples;

static void run_engine(u8 engine, u8 collide, const struct cb_ruleset *rs,
		       const struct tm_key *trace, const struct tm_key *shuf,
		       size_t n, int repeat, const struct ref *ref,
		       struct result *res)
{
	size_t nt = engine == TM_ENGINE_LINEAR && n > LINEAR_MAX ?
		    LINEAR_MAX : n;
	struct tm_cls *cls;
	struct tm_stats st;
	u64 sum = 0;
	bool churned;
	double t0;

	memset(res, 0, sizeof(*res));
	res->engine = engine_names[engine];
	t0 = now_ns();
	cls = build(engine, collide, rs->rules, rs->n);
	res->build_ms = (now_ns() - t0) / 1e6;
	if (ref)
		check_sample(cls, ref, trace, n, res);
	/* Warm up, then time. */
	time_lookups(cls, trace, nt, 1, &sum);
	res->ns_trace = time_lookups(cls, trace, nt, repeat, &sum);
	res->ns_shuffled = time_lookups(cls, shuf, nt, repeat, &sum);
	res->ns_bulk = time_lookups_bulk(cls, trace, nt, repeat, &sum);
	res->ns_bulk_shuffled = time_lookups_bulk(cls, shuf, nt, repeat, &sum);
	avg_cost(cls, trace, nt, &res->probes, &res->ents);
	if (show_tuples)
		tm_cls_tuples(cls, print_tuple, NULL);
	tm_cls_stats(cls, &st);
	res->tuples = st.tuples;
	res->max_chain = st.max_chain;
	res->rules = st.rules;
	res->bytes_per_rule = st.rules ? (double)st.bytes / st.rules : 0;
	churned = engine != TM_ENGINE_LINEAR || rs->n <= 20000;
	if (churned)
		churn(cls, rs->rules, rs->n, res);
	tm_cls_stats(cls, &st);
	res->splits = st.splits;
	res->merges = st.merges;
	/* The same rules, inserted in random order this time. */
	if (churned) {
		res->churn_tuples = st.tuples;
		avg_cost(cls, trace, nt, &res->churn_probes, &res->churn_ents);
		res->churn_ns = time_lookups(cls, trace, nt, repeat, &sum);
	}
	if (churned && show_tuples) {
		printf("  after the churn (random order): %u tuples, %.2f probes, %.2f entries",
		       res->churn_tuples, res->churn_probes, res->churn_ents);
		printf(", %.1f ns; %u splits, %u merges\n", res->churn_ns,
		       res->splits, res->merges);
		tm_cls_tuples(cls, print_tuple, NULL);
	}
	if (ref)
		check_sample(cls, ref, shuf, n, res);
	tm_cls_destroy(cls);
	if (sum == 42)
		putchar(' ');	/* keep the lookups */
}

/* A peer's figures: build, then batches on the trace and shuffled. */
struct peer_result {
	const char *name;
	double build_ms, ns_trace, ns_shuffled;
	unsigned int batch;
	unsigned long checked, wrong;
	bool ok;
};

static double time_peer(struct peer *p, u32 *ids, size_t n, int repeat,
			u64 *sum)
{
	double t0;
	int rep;

	t0 = now_ns();
	for (rep = 0; rep < repeat; rep++) {
		peer_run(p, ids);
		*sum += ids[n / 2];
	}
	return (now_ns() - t0) / ((double)n * repeat);
}

static void check_peer(const u32 *ids, const struct ref *ref,
		       const struct tm_key *k, size_t n,
		       struct peer_result *res)
{
	size_t i, step = n > ref->sample ? n / ref->sample : 1;

	for (i = 0; i < n; i += step) {
		const struct tm_rule *b = ref_lookup(ref, &k[i]);

		res->checked++;
		res->wrong += ids[i] != (b ? b->id : 0);
	}
}

/* Build the peer, time it and check it on @trace, then on @shuf. */
static void run_peer(const char *name, const struct cb_ruleset *rs,
		     const struct tm_key *trace, const struct tm_key *shuf,
		     size_t n, int repeat, const struct ref *ref,
		     struct peer_result *res)
{
	const struct tm_key *in[] = { trace, shuf };
	double *ns[] = { &res->ns_trace, &res->ns_shuffled };
	struct peer *p;
	u64 sum = 0;
	char err[256];
	unsigned int k;
	double t0;
	u32 *ids;

	memset(res, 0, sizeof(*res));
	res->name = name;
	ids = calloc(n, sizeof(*ids));
	if (!ids)
		die("out of memory");
	t0 = now_ns();
	p = peer_build(name, rs->rules, rs->n, err, sizeof(err));
	res->build_ms = (now_ns() - t0) / 1e6;
	for (k = 0; k < 2; k++) {
		if (!p || peer_load(p, in[k], n, err, sizeof(err))) {
			printf("%-10s %s\n", name, err);
			goto out;
		}
		peer_run(p, ids);
		check_peer(ids, ref, in[k], n, res);
		*ns[k] = time_peer(p, ids, n, repeat, &sum);
	}
	res->batch = peer_batch(p);
	res->ok = true;
	printf("%-10s %9.1f %9s %7s %9s %7s %8.1f %8.1f %8s %8s %8s %6s %6s %6s %6s %lu/%lu\n",
	       name, res->build_ms, "-", "-", "-", "-", res->ns_trace,
	       res->ns_shuffled, "-", "-", "-", "-", "-", "-", "-", res->wrong,
	       res->checked);
out:
	if (sum == 42)
		putchar(' ');	/* keep the lookups */
	peer_free(p);
	free(ids);
}

/* A value in [lo, hi]; one below 256 if @byte and the range has one. */
static u16 draw(u16 lo, u16 hi, bool byte)
{
	if (byte && lo <= 0xff && hi > 0xff)
		hi = 0xff;
	return lo + rng() % (hi - lo + 1);
}

/*
 * No trace given: one header inside each rule, in random order.  With
 * @flags (-f), with the rule's TCP flags, ICMP type and code.
 */
static void make_trace(const struct cb_ruleset *rs, struct cb_trace *t,
		       bool flags)
{
	size_t i;

	for (i = 0; i < rs->n; i++) {
		const struct tm_rule *r = &rs->rules[i];
		unsigned int bits = r->family == TM_AF_INET ? 32 : 128, w;
		struct tm_key k = { .family = r->family };
		bool icmp;

		k.src = r->src;
		k.dst = r->dst;
		for (w = 0; w < bits / 32; w++) {
			unsigned int sl = r->src_len, dl = r->dst_len;
			u32 sm = sl >= 32 * (w + 1) ? ~0u : sl <= 32 * w ? 0 :
				 ~0u << (32 - (sl - 32 * w));
			u32 dm = dl >= 32 * (w + 1) ? ~0u : dl <= 32 * w ? 0 :
				 ~0u << (32 - (dl - 32 * w));

			k.src.w[w] |= (u32)rng() & ~sm;
			k.dst.w[w] |= (u32)rng() & ~dm;
		}
		icmp = flags && !r->proto_any &&
		       r->proto == (r->family == TM_AF_INET ? 1 : 58);
		k.sport = draw(r->sport_lo, r->sport_hi, icmp);
		k.dport = draw(r->dport_lo, r->dport_hi, icmp);
		k.proto = r->proto_any ? (u8)rng() : r->proto;
		if (flags && k.proto == 6)
			k.tcp_flags = ((u8)rng_next(&flags_rng_state) &
				       ~r->tcp_flags_mask) | r->tcp_flags;
		if (cb_trace_push(t, &k, r->id))
			die("out of memory");
	}
	shuffle(t->keys, t->n, sizeof(t->keys[0]));
}

static void json_num(FILE *f, const char *key, double v, int prec)
{
	fprintf(f, ",\"%s\":%.*f", key, prec, v);
}

static size_t tcp_flag_rules(const struct cb_ruleset *rs)
{
	size_t i, n = 0;

	for (i = 0; i < rs->n; i++)
		n += !!rs->rules[i].tcp_flags_mask;
	return n;
}

static const char *mode_name(bool flags)
{
	return flags ? "flags honoured" : "5-tuple only";
}

static void print_json(FILE *f, const char *rules, const char *trace,
		       bool flags, size_t nrules, size_t npkts,
		       const struct result *res, int nres,
		       const struct peer_result *peer)
{
	int i;

	fprintf(f, "{\"rules_file\":\"%s\",\"trace_file\":\"%s\"",
		rules, trace ? trace : "");
	fprintf(f, ",\"mode\":\"%s\",\"flags\":%s", mode_name(flags),
		flags ? "true" : "false");
	fprintf(f, ",\"rules\":%zu,\"packets\":%zu,\"engines\":[",
		nrules, npkts);
	for (i = 0; i < nres; i++) {
		const struct result *r = &res[i];

		fprintf(f, "%s{\"engine\":\"%s\"", i ? "," : "", r->engine);
		json_num(f, "build_ms", r->build_ms, 2);
		json_num(f, "ns_per_lookup", r->ns_trace, 1);
		json_num(f, "mpps", 1e3 / r->ns_trace, 2);
		json_num(f, "ns_per_lookup_shuffled", r->ns_shuffled, 1);
		json_num(f, "mpps_shuffled", 1e3 / r->ns_shuffled, 2);
		json_num(f, "ns_per_lookup_bulk", r->ns_bulk, 1);
		json_num(f, "ns_per_lookup_bulk_shuffled", r->ns_bulk_shuffled,
			 1);
		json_num(f, "us_insert", r->us_insert, 3);
		json_num(f, "us_delete", r->us_delete, 3);
		json_num(f, "bytes_per_rule", r->bytes_per_rule, 1);
		json_num(f, "tuples", r->tuples, 0);
		json_num(f, "avg_probes", r->probes, 2);
		json_num(f, "avg_entries", r->ents, 2);
		json_num(f, "max_chain", r->max_chain, 0);
		json_num(f, "splits", r->splits, 0);
		json_num(f, "merges", r->merges, 0);
		json_num(f, "tuples_after_churn", r->churn_tuples, 0);
		json_num(f, "avg_probes_after_churn", r->churn_probes, 2);
		json_num(f, "avg_entries_after_churn", r->churn_ents, 2);
		json_num(f, "ns_per_lookup_after_churn", r->churn_ns, 1);
		json_num(f, "checked", r->checked, 0);
		json_num(f, "wrong", r->wrong, 0);
		fputc('}', f);
	}
	fputc(']', f);
	if (peer && peer->ok) {
		fprintf(f, ",\"peers\":[{\"peer\":\"%s\"", peer->name);
		json_num(f, "build_ms", peer->build_ms, 2);
		json_num(f, "ns_per_lookup_bulk", peer->ns_trace, 1);
		json_num(f, "ns_per_lookup_bulk_shuffled", peer->ns_shuffled, 1);
		json_num(f, "batch", peer->batch, 0);
		json_num(f, "checked", peer->checked, 0);
		json_num(f, "wrong", peer->wrong, 0);
		fputs("}]", f);
	}
	fprintf(f, "}\n");
}

/*
 * tm_kbench.ko's file (tm_kblob.h): @rs's rules, the @n keys @k and the
 * answers of a tuplemerge classifier of @collide.
 */
static void write_kblob(const char *path, const struct cb_ruleset *rs,
			const struct tm_key *k, size_t n, u8 collide)
{
	struct tm_kblob h = { .rule_size = sizeof(struct tm_rule),
			      .key_size = sizeof(struct tm_key),
			      .nrules = rs->n, .nkeys = n };
	struct tm_cls *cls;
	FILE *f;
	size_t i;
	bool ok;

	if (rs->n > TM_KBLOB_MAX_RULES || n > TM_KBLOB_MAX_KEYS)
		die("-k: too many rules or keys for tm_kbench");
	memcpy(h.magic, TM_KBLOB_MAGIC, sizeof(h.magic));
	f = fopen(path, "w");
	if (!f)
		die("-k: cannot write the file");
	cls = build(TM_ENGINE_TUPLEMERGE, collide, rs->rules, rs->n);
	ok = fwrite(&h, sizeof(h), 1, f) == 1 &&
	     fwrite(rs->rules, sizeof(*rs->rules), rs->n, f) == rs->n &&
	     fwrite(k, sizeof(*k), n, f) == n;
	rcu_read_lock();
	for (i = 0; ok && i < n; i++) {
		const struct tm_rule *r = tm_cls_lookup(cls, &k[i]);
		u32 id = r ? r->id : TM_KBLOB_NONE;

		ok = fwrite(&id, sizeof(id), 1, f) == 1;
	}
	rcu_read_unlock();
	tm_cls_destroy(cls);
	if (fclose(f) || !ok)
		die("-k: cannot write the file");
}

static void print_usage(void)
{
	fprintf(stderr,
		"usage: tmbench [-e ENGINE,...] [-p PEER] [-c COLLIDE] [-r REPEAT]\n"
		"               [-j FILE] [-k FILE] [-t] [-f] RULES [TRACE]\n"
		"engines: tuplemerge, tss, linear\n"
		"-p, --peer rte_acl: DPDK's rte_acl beside ours (64 per batch)\n"
		"-k FILE: the rules, trace and answers for tm_kbench.ko\n"
		"-f: honour the flags field of RULES and TRACE (TCP flags, ICMP\n"
		"    type and code); without it, the 5-tuple only\n");
	exit(1);
}

static int parse_engines(char *arg, u8 *eng)
{
	int n = 0;
	char *tok;
	u8 e;

	for (tok = strtok(arg, ","); tok; tok = strtok(NULL, ",")) {
		for (e = 0; e <= TM_ENGINE_MAX; e++)
			if (!strcmp(tok, engine_names[e]))
				break;
		if (e > TM_ENGINE_MAX || n > TM_ENGINE_MAX) {
			fprintf(stderr, "tmbench: unknown engine '%s'\n", tok);
			exit(1);
		}
		eng[n++] = e;
	}
	return n;
}

int main(int argc, char **argv)
{
	u8 eng[TM_ENGINE_MAX + 1] = { TM_ENGINE_TUPLEMERGE, TM_ENGINE_TSS,
				      TM_ENGINE_LINEAR };
	struct result res[TM_ENGINE_MAX + 1];
	struct cb_ruleset rs = { 0 };
	struct cb_trace tr = { 0 };
	const char *json = NULL, *kblob = NULL, *tracefile;
	int c, i, neng = 3, repeat = 0;
	unsigned int opts = 0;
	static const struct option longopts[] = {
		{ "peer", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 }
	};
	struct peer_result pres = { 0 };
	const char *peer = NULL;
	struct ref ref;
	size_t n;
	struct tm_key *shuf;
	bool flags = false;
	char err[512];
	u8 collide = 0;

	while ((c = getopt_long(argc, argv, "e:p:c:g:H:r:j:k:tfh", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'p':
			if (!peer_known(optarg))
				die("unknown peer (known: " PEER_NAMES ")");
			peer = optarg;
			break;
		case 'f':
			flags = true;
			opts = CB_HONOUR_FLAGS;
			break;
		case 'g':
			gap = atoi(optarg);
			break;
		case 'H':
			hash = parse_hash(optarg);
			break;
		case 't':
			show_tuples = true;
			break;
		case 'e':
			neng = parse_engines(optarg, eng);
			break;
		case 'c':
			collide = atoi(optarg);
			break;
		case 'r':
			repeat = atoi(optarg);
			break;
		case 'j':
			json = optarg;
			break;
		case 'k':
			kblob = optarg;
			break;
		default:
			print_usage();
		}
	}
	if (optind >= argc || argc - optind > 2)
		print_usage();
	tracefile = argc - optind == 2 ? argv[optind + 1] : NULL;
	rcu_register_thread();
	if (cb_read_rules_opt(argv[optind], &rs, opts, err, sizeof(err)))
		die(err);
	if (tracefile &&
	    cb_read_trace_opt(tracefile, &tr, opts, err, sizeof(err)))
		die(err);
	if (!tracefile)
		make_trace(&rs, &tr, flags);
	n = tr.n;
	if (!n)
		die("empty trace");
	shuf = malloc(n * sizeof(*shuf));
	if (!shuf)
		die("out of memory");
	memcpy(shuf, tr.keys, n * sizeof(*shuf));
	shuffle(shuf, n, sizeof(*shuf));
	/* About 2 million lookups per measurement. */
	if (!repeat)
		repeat = n >= 2000000 ? 1 : 2000000 / n;
	ref_init(&ref, rs.rules, rs.n);
	if (kblob)
		write_kblob(kblob, &rs, tr.keys, n, collide);

	printf("rules %s: %zu rules; trace %s: %zu packets, %d passes; %s",
	       argv[optind], rs.n, tracefile ? tracefile : "(one per rule)",
	       n, repeat, mode_name(flags));
	if (flags)
		printf(" (%zu rules with TCP flags)", tcp_flag_rules(&rs));
	putchar('\n');
	printf("%-10s %9s %9s %7s %9s %7s %8s %8s %8s %8s %8s %6s %6s %6s %6s %s\n",
	       "engine", "build_ms", "ns/pkt", "Mpps", "ns/shuf", "Mpps",
	       "bulk", "bulk/shf", "us/ins", "us/del", "B/rule", "tuples",
	       "probes", "ents", "chain", "wrong/checked");
	for (i = 0; i < neng; i++) {
		struct result *r = &res[i];

		run_engine(eng[i], collide, &rs, tr.keys, shuf, n, repeat,
			   eng[i] == TM_ENGINE_LINEAR ? NULL : &ref, r);
		printf("%-10s %9.1f %9.1f %7.2f %9.1f %7.2f %8.1f %8.1f %8.3f %8.3f",
		       r->engine, r->build_ms, r->ns_trace, 1e3 / r->ns_trace,
		       r->ns_shuffled, 1e3 / r->ns_shuffled, r->ns_bulk,
		       r->ns_bulk_shuffled, r->us_insert, r->us_delete);
		printf(" %8.1f %6u %6.2f %6.2f %6u %lu/%lu\n",
		       r->bytes_per_rule, r->tuples, r->probes, r->ents,
		       r->max_chain, r->wrong, r->checked);
		fflush(stdout);
	}
	if (peer)
		run_peer(peer, &rs, tr.keys, shuf, n, repeat, &ref, &pres);
	if (json) {
		FILE *f = strcmp(json, "-") ? fopen(json, "w") : stdout;

		if (!f)
			die("cannot write the JSON file");
		print_json(f, argv[optind], tracefile, flags, rs.n, n, res,
			   neng, &pres);
		if (f != stdout)
			fclose(f);
	}
	ref_free(&ref);
	free(shuf);
	cb_trace_free(&tr);
	cb_ruleset_free(&rs);
	tm_rcu_flush();
	rcu_barrier();
	rcu_unregister_thread();
	for (i = 0; i < neng; i++)
		if (res[i].wrong)
			return 2;
	return 0;
}
