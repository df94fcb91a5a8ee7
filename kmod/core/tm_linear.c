// SPDX-License-Identifier: GPL-2.0
/*
 * The linear engine: the rules of a family in one array, best first, and a
 * lookup that returns the first rule matching.  It is the reference the
 * other engines are tested against, the baseline of the benchmarks, and a
 * fallback that can hold any rule set.
 *
 * Updates copy the array (O(n)) and publish the copy with RCU.  A delete
 * whose copy cannot be allocated neutralises the entry in place (it points
 * to a rule that matches nothing), so that deletes never fail.
 */
#include "tm_internal.h"

struct tm_lent {
	u64 rank;
	const struct tm_rule *rule;
};

struct tm_lin {
	struct rcu_head rcu;		/* freed with tm_retire() */
	u32 n;				/* entries, dead ones included */
	u32 dead;
	struct tm_lent e[];
};

/* Family 0 matches no key. */
static const struct tm_rule tm_rule_none;

static struct tm_lin *tm_lin_get(const struct tm_fam *f)
{
	return rcu_dereference_protected(f->lin, 1);
}

static struct tm_lin *tm_lin_alloc(u32 n)
{
	struct tm_lin *l = tm_valloc(sizeof(*l) + n * sizeof(l->e[0]));

	if (l) {
		l->n = n;
		l->dead = 0;
	}
	return l;
}

/* Publish @l in place of the current array. */
static void tm_lin_publish(struct tm_fam *f, struct tm_lin *l)
{
	struct tm_lin *old = tm_lin_get(f);

	rcu_assign_pointer(f->lin, l);
	if (old)
		tm_retire(f, old, rcu);
}

int tm_linear_insert(struct tm_fam *f, struct tm_rrec *rr)
{
	struct tm_lin *old = tm_lin_get(f), *l;
	u64 rank = tm_rank(&rr->rule);
	u32 i, j = 0, n = old ? old->n - old->dead : 0;

	l = tm_lin_alloc(n + 1);
	if (!l)
		return -ENOMEM;
	for (i = 0; old && i < old->n; i++)
		if (old->e[i].rule != &tm_rule_none)
			l->e[j++] = old->e[i];
	/* Insert in rank order (one pass from the end). */
	for (i = j; i > 0 && l->e[i - 1].rank > rank; i--)
		l->e[i] = l->e[i - 1];
	l->e[i].rank = rank;
	l->e[i].rule = &rr->rule;
	tm_lin_publish(f, l);
	return 0;
}

void tm_linear_remove(struct tm_fam *f, struct tm_rrec *rr)
{
	struct tm_lin *old = tm_lin_get(f), *l;
	u32 i, j = 0, victim = old->n;

	for (i = 0; i < old->n; i++)
		if (old->e[i].rule == &rr->rule)
			victim = i;
	l = tm_lin_alloc(old->n - old->dead - 1);
	if (!l) {
		WRITE_ONCE(old->e[victim].rule, &tm_rule_none);
		old->dead++;
		return;
	}
	for (i = 0; i < old->n; i++)
		if (i != victim && old->e[i].rule != &tm_rule_none)
			l->e[j++] = old->e[i];
	tm_lin_publish(f, l);
}

const struct tm_rule *tm_linear_lookup(const struct tm_fam *f,
				       const struct tm_key *key, u32 *probes)
{
	const struct tm_lin *l = rcu_dereference(f->lin);
	u32 i;

	if (!l)
		return NULL;
	for (i = 0; i < l->n; i++) {
		const struct tm_rule *r = READ_ONCE(l->e[i].rule);

		if (tm_rule_matches(r, key)) {
			if (probes)
				*probes = i + 1;
			return r;
		}
	}
	if (probes)
		*probes = l->n;
	return NULL;
}

void tm_linear_destroy(struct tm_fam *f)
{
	struct tm_lin *l = tm_lin_get(f);

	RCU_INIT_POINTER(f->lin, NULL);
	if (l)
		tm_retire(f, l, rcu);
}

void tm_linear_stats(const struct tm_fam *f, struct tm_stats *st)
{
	const struct tm_lin *l = tm_lin_get(f);

	if (l)
		st->bytes += sizeof(*l) + l->n * sizeof(l->e[0]);
}

int tm_linear_verify(const struct tm_fam *f, const char **why)
{
	const struct tm_lin *l = tm_lin_get(f);
	u32 i, live = 0;

	for (i = 0; l && i < l->n; i++) {
		if (l->e[i].rule == &tm_rule_none)
			continue;
		live++;
		/* The entries of a set rule rank the same. */
		if (i && l->e[i - 1].rank > l->e[i].rank) {
			*why = "linear: rules out of rank order";
			return -EUCLEAN;
		}
		if (tm_rank(l->e[i].rule) != l->e[i].rank) {
			*why = "linear: stale rank";
			return -EUCLEAN;
		}
	}
	if (live != f->rules) {
		*why = "linear: rule count differs";
		return -EUCLEAN;
	}
	return 0;
}
