/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals of the classification core shared by tm_cls.c (common code),
 * tm_linear.c and tm_tuple.c (the engines).  Not for users of the core.
 */
#ifndef _TM_INTERNAL_H
#define _TM_INTERNAL_H

#include "tm_cls.h"

struct tm_ttab;

/*
 * An installed rule.  @rule is what lookups return; the rest is the
 * writer's bookkeeping.  Freed after a grace period.
 */
struct tm_rrec {
	struct rcu_head rcu;		/* freed with tm_free_rcu() */
	struct tm_rule rule;
	struct tm_rrec *id_next;	/* chain in tm_cls.ids */
	struct tm_rset *set;		/* a set rule's first entry: the rest */
	struct tm_ttab *ttab;		/* tuple engines: its tuple */
	struct tm_rrec *ttab_next;	/* tuple engines: rules of the tuple */
	struct tm_rrec **ttab_pprev;
};

/*
 * The rest of a set rule, held by its first entry, the one in the id index:
 * a copy of its sets and its other entries, which are in no index (their
 * rule has the same id).  Writer side only: freed at once.
 */
struct tm_rset {
	struct tm_rule_set set;		/* its arrays follow @more */
	u32 n;				/* entries, the first included */
	u32 bytes;			/* of this allocation */
	struct tm_rrec *more[];		/* entries 1..n - 1 */
};

/* Word @i (0..3) of the mask of a prefix of @len bits, branch-free. */
static __always_inline u32 tm_mask_word(unsigned int len, unsigned int i)
{
	int bits = (int)len - 32 * (int)i;

	bits = bits < 0 ? 0 : bits > 32 ? 32 : bits;
	return (u32)(~0ULL << (32 - bits));
}

/* (priority, id): lower wins; unique per rule. */
static inline u64 tm_rank(const struct tm_rule *r)
{
	return (u64)r->priority << 32 | r->id;
}

/* Per address family state of the engines. */
struct tm_fam {
	u8 family;
	u8 nw;				/* address words: 1 (IPv4) or 4 */
	u32 seed;			/* hash seed, copied from tm_cls */
	u32 rules;
	u32 tuples;			/* tuple engines */
	bool priv;			/* see tm_cls_set_private() */
	/* tuple engines */
	struct tm_tlist __rcu *tlist;	/* tuples, best first */
	struct tm_ttab **tix;		/* writer: tuple fields -> tuple */
	u32 tix_mask;
	bool stale;			/* writer: a list change failed */
	/* linear engine */
	struct tm_lin __rcu *lin;	/* rules, best first */
};

struct tm_cls {
	struct rcu_head rcu;		/* freed with tm_free_rcu() */
	u32 seq;			/* see tm_write_begin() */
	struct tm_params p;
	u32 seed;			/* hash seed, random per classifier */
	u32 splits, merges;
	struct tm_fam v4, v6;
	/* id -> rule (a set rule's first entry), writer side only */
	struct tm_rrec **ids;
	u32 ids_mask;
	u32 nrules;
	u64 set_bytes;			/* of the struct tm_rset */
};

/*
 * Lookups retry when they overlapped more than one step of the writer: a
 * lookup that walks the tuples while two steps land could see the second
 * and not the first, an answer no rule set ever gave.  The writer bumps
 * @seq before and after each step (odd while one is under way); a lookup
 * that saw it move by more than one runs again (tm_lookup()).  So each step
 * must be atomic for lookups on its own: whatever mix of its stores a
 * lookup sees, it gives the answer from before the step or after it.  A
 * change is one step, or several (tm_write_next()) when it cannot be made
 * atomic in one: a replace, a split (see tm_tuple.c).
 */
static inline void tm_write_begin(struct tm_cls *cls)
{
	WRITE_ONCE(cls->seq, cls->seq + 1);
	/* The odd count is visible before any store of the step. */
	smp_wmb();
}

static inline void tm_write_end(struct tm_cls *cls)
{
	/* Every store of the step is visible before the even count. */
	smp_wmb();
	WRITE_ONCE(cls->seq, cls->seq + 1);
}

/* A lookup begins: the count it must check again at its end. */
static inline u32 tm_read_begin(const struct tm_cls *cls)
{
	/* Pairs with tm_write_end(): the count before the reads. */
	return smp_load_acquire(&cls->seq);
}

/* The lookup that began at @seq overlapped two steps: run it again. */
static inline bool tm_read_again(const struct tm_cls *cls, u32 seq)
{
	/* Pairs with tm_write_begin(): the reads before the count. */
	smp_rmb();
	return READ_ONCE(cls->seq) - seq > 1;
}

/* End the step under way and begin the next: lookups see them apart. */
static inline void tm_write_next(struct tm_cls *cls)
{
	tm_write_end(cls);
	tm_write_begin(cls);
}

static inline struct tm_fam *tm_fam_of(struct tm_cls *cls, u8 family)
{
	return family == TM_AF_INET ? &cls->v4 : &cls->v6;
}

/*
 * Free @p, which a change of @f's classifier replaced or removed: at once
 * while the classifier is private, after a grace period otherwise.  The
 * writer never touches @p again in either case.
 */
#define tm_retire(f, p, field)				\
	do {						\
		typeof(p) __tm_p = (p);			\
							\
		if ((f)->priv)				\
			tm_vfree(__tm_p);		\
		else					\
			tm_free_rcu(__tm_p, field);	\
	} while (0)

/* tm_tuple.c: TSS and TupleMerge */
int tm_tuple_insert(struct tm_cls *cls, struct tm_fam *f,
		    struct tm_rrec *rr);
void tm_tuple_remove(struct tm_cls *cls, struct tm_fam *f,
		     struct tm_rrec *rr);
const struct tm_rule *tm_tuple_lookup4(const struct tm_fam *f,
				       const struct tm_key *key, u32 *probes,
				       u32 *entries);
const struct tm_rule *tm_tuple_lookup6(const struct tm_fam *f,
				       const struct tm_key *key, u32 *probes,
				       u32 *entries);
void tm_tuple_lookup_bulk4(const struct tm_fam *f, const struct tm_key *keys,
			   const u8 *idx, unsigned int n,
			   const struct tm_rule **res);
void tm_tuple_lookup_bulk6(const struct tm_fam *f, const struct tm_key *keys,
			   const u8 *idx, unsigned int n,
			   const struct tm_rule **res);
void tm_tuple_destroy(struct tm_fam *f);
void tm_tuple_stats(const struct tm_fam *f, struct tm_stats *st);
int tm_tuple_walk(const struct tm_fam *f,
		  int (*fn)(const struct tm_tuple_info *ti, void *arg),
		  void *arg);
int tm_tuple_verify(const struct tm_cls *cls, const struct tm_fam *f,
		    const char **why);

/* tm_linear.c */
int tm_linear_insert(struct tm_fam *f, struct tm_rrec *rr);
void tm_linear_remove(struct tm_fam *f, struct tm_rrec *rr);
const struct tm_rule *tm_linear_lookup(const struct tm_fam *f,
				       const struct tm_key *key, u32 *probes);
void tm_linear_destroy(struct tm_fam *f);
void tm_linear_stats(const struct tm_fam *f, struct tm_stats *st);
int tm_linear_verify(const struct tm_fam *f, const char **why);

#endif /* _TM_INTERNAL_H */
