/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test model of the classification core: a brute-force oracle written
 * independently of kmod/core (its own prefix, range, set and mask logic),
 * and random rules and packets drawn from small pools so that rules
 * overlap, share tuples and collide in buckets (interfaces and the other
 * extra fields included: see gen_rule()).
 */
#ifndef _TM_ORACLE_H
#define _TM_ORACLE_H

#include "tm_cls.h"

/*
 * The sets of a set rule, as the oracle keeps them: a field with values
 * matches a key when one of them does; one without is the rule's own.
 * Its types are the core's (the data), its matching its own.
 */
#define OSET_MAX	8

struct oset {
	unsigned int nsrc, ndst, nsport, ndport, nproto;
	struct tm_set_prefix src[OSET_MAX], dst[OSET_MAX];
	struct tm_set_range sport[OSET_MAX], dport[OSET_MAX];
	u8 proto[OSET_MAX];
};

/* @os as the core takes it (pointing into @os); NULL when it has none. */
const struct tm_rule_set *oset_core(const struct oset *os,
				    struct tm_rule_set *s);

struct oracle {
	struct tm_rule *r;
	struct oset *s;		/* s[i]: the sets of r[i], all 0: none */
	unsigned int n, cap;
};

void oracle_init(struct oracle *o);
void oracle_free(struct oracle *o);
int oracle_find(const struct oracle *o, u32 id);
int oracle_insert(struct oracle *o, const struct tm_rule *r);
int oracle_delete(struct oracle *o, u32 id);
int oracle_replace(struct oracle *o, const struct tm_rule *r);
/* The same for a set rule (@os may be NULL: a plain rule). */
int oracle_insert_set(struct oracle *o, const struct tm_rule *r,
		      const struct oset *os);
int oracle_replace_set(struct oracle *o, const struct tm_rule *r,
		       const struct oset *os);
const struct tm_rule *oracle_lookup(const struct oracle *o,
				    const struct tm_key *k);
/* The sets of the rule oracle_lookup() returned, or NULL. */
const struct oset *oracle_sets(const struct oracle *o,
			       const struct tm_rule *r);
bool oracle_matches(const struct tm_rule *r, const struct tm_key *k);
bool oracle_matches_set(const struct tm_rule *r, const struct oset *os,
			const struct tm_key *k);

/* xorshift64* generator */
struct rng {
	u64 s;
};

u64 rng_next(struct rng *g);
u32 rng_below(struct rng *g, u32 n);

void gen_rule(struct rng *g, u8 family, u32 id, struct tm_rule *r);
/*
 * A packet inside @r (when given; one in 4 on random interfaces, which @r
 * may then not admit) or anywhere in the pools.
 */
void gen_key(struct rng *g, u8 family, const struct tm_rule *r,
	     struct tm_key *k);
/*
 * gen_rule(), and one rule in 4 a set rule (*@os filled, else zeroed):
 * one to three fields with one to three values each, now and then eight,
 * drawn from the same pools.  A stream of its own: the rules drawn from
 * @g are gen_rule()'s.
 */
void gen_rule_set(struct rng *g, u8 family, u32 id, struct tm_rule *r,
		  struct oset *os);
/* gen_key() inside one entry of @r, @os picked at random. */
void gen_key_set(struct rng *g, u8 family, const struct tm_rule *r,
		 const struct oset *os, struct tm_key *k);
bool rule_eq(const struct tm_rule *a, const struct tm_rule *b);

#endif /* _TM_ORACLE_H */
