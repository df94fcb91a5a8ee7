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

struct oracle {
	struct tm_rule *r;
	unsigned int n, cap;
};

void oracle_init(struct oracle *o);
void oracle_free(struct oracle *o);
int oracle_find(const struct oracle *o, u32 id);
int oracle_insert(struct oracle *o, const struct tm_rule *r);
int oracle_delete(struct oracle *o, u32 id);
int oracle_replace(struct oracle *o, const struct tm_rule *r);
const struct tm_rule *oracle_lookup(const struct oracle *o,
				    const struct tm_key *k);
bool oracle_matches(const struct tm_rule *r, const struct tm_key *k);

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
bool rule_eq(const struct tm_rule *a, const struct tm_rule *b);

#endif /* _TM_ORACLE_H */
