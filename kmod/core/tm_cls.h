/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The classification core: rules, packet keys and the classifier interface
 * shared by the three engines (linear, TSS, TupleMerge).  Plain C that builds
 * unchanged in the kernel and in userspace (see tm_platform.h); the theory of
 * operation is in tm_tuple.c, the concurrency contract below (both copied
 * into Documentation/classifier.rst by tools/doc-sync.sh).
 *
 * Priorities: the LOWER priority value wins; between rules of equal priority
 * the lower rule id wins.  Every (priority, id) pair is one rule, so the
 * result of a lookup is always one well-defined rule (of a set rule, one of
 * its entries, which all have its id, priority and action).
 */
#ifndef _TM_CLS_H
#define _TM_CLS_H

#include "tm_platform.h"

/**
 * DOC: Concurrency contract
 *
 * Writers
 * -------
 *   - One writer at a time: tm_cls_insert(), tm_cls_delete(),
 *     tm_cls_replace(), their _set() forms and tm_cls_destroy() must be
 *     serialised by the caller (the module holds its namespace's mutex).
 *     So must the calls that read the writer's side: tm_cls_find(),
 *     tm_cls_find_set(), tm_cls_for_each(), tm_cls_rules(),
 *     tm_cls_entries(), tm_cls_stats(), tm_cls_tuples() and
 *     tm_cls_verify().
 *   - A change that fails (bad rule, id in use or unknown, a limit of
 *     struct tm_params, allocation failure) returns a negative errno and
 *     leaves the classifier exactly as it was (a set rule's entries placed
 *     before the failure are removed again; lookups meanwhile may have
 *     matched them).  tm_cls_delete() never fails
 *     for an id in use, not even without memory.
 *   - The writer side may sleep: it allocates with GFP_KERNEL and yields
 *     (tm_cond_resched()) in loops as long as the rules a user installs.
 *   - A classifier no lookup can reach yet (the module's transaction copies)
 *     may be marked private with tm_cls_set_private(): the memory a change
 *     replaces is then freed at once instead of after a grace period, which
 *     keeps it hot and saves the deferred-free machinery.  Unmark it before
 *     publishing it.
 *
 * Readers
 * -------
 * Any number of lookups, tm_cls_lookup(), tm_cls_lookup_probes(),
 * tm_cls_lookup_cost() and tm_cls_lookup_bulk(), run concurrently with the
 * writer, each inside an RCU read-side critical section (rcu_read_lock()),
 * and take no lock.
 * What a lookup may see:
 *
 *   - Its answer is the best rule matching the key in the rule set as it
 *     was either before or after the change that overlapped it, never an
 *     answer that no rule set gave (such as a miss while a rule moves
 *     between tuples).  For an insert or a delete, the answer with the rule
 *     or without it; for a replace, with the old rule or with the new one.
 *     A set rule changes entry by entry: each lookup sees each entry
 *     before or after, so two lookups may see different entries changed.
 *   - The rule returned is the classifier's own copy: it stays valid, and
 *     unchanged, until rcu_read_unlock(), even if it is deleted or replaced
 *     meanwhile (rules are freed after a grace period).  Do not keep it
 *     longer.
 *   - Lookups never wait for the writer, but one may run again (below).
 *
 * The sequence count.  A change is made of steps: an insert or a delete is
 * one (one per entry of a set rule), a replace two (the new rule placed,
 * then the old one removed: the new entries, then the old ones), and
 * every TupleMerge split an insert triggers adds one (its rules put in
 * their new tuple in one step, taken out of the old one in the next).  Each
 * step is built so that a lookup that overlaps it alone gives the answer
 * from before the step or after it, whatever mix of the step's stores it
 * sees.  The writer bumps the classifier's sequence count before and after
 * each step, so that the count is odd while one is under way.  A lookup
 * reads the count (acquire) before it starts, and again (after a read
 * barrier) once it has its answer.  If the count moved by at most one, the
 * lookup overlapped at most part of one step, and it returns its answer.
 * If it moved by two or more, the lookup may have seen parts of two steps
 * (a split's second step without its first: a rule in neither tuple), and
 * it runs again from the start; so does one that a single whole step fell
 * inside, which costs time, not correctness.  tm_cls_lookup_probes()
 * and tm_cls_lookup_cost() report the work of the run that answered.  A
 * bulk lookup does all this once per batch: each batch is one lookup, run
 * again whole.  Lookups are lock-free, not wait-free: a lookup runs again
 * for as long as writer steps keep landing inside it.
 */

/* Address families of rules and keys (values match AF_INET and AF_INET6). */
#define TM_AF_INET	2
#define TM_AF_INET6	10

/*
 * An IPv4 or IPv6 address in host byte order: IPv4 in w[0] (w[1..3] zero),
 * IPv6 with w[0] the most significant word.
 */
struct tm_addr {
	u32 w[4];
};

/* A rule as the caller describes it. */
struct tm_rule {
	u32 id;			/* chosen by the caller, unique per classifier */
	u32 priority;		/* lower wins, ties broken by lower id */
	u8 family;		/* TM_AF_INET or TM_AF_INET6 */
	u8 src_len;		/* source prefix length, 0..32 or 0..128 */
	u8 dst_len;		/* destination prefix length */
	u8 proto;		/* IP protocol, ignored when proto_any */
	u8 proto_any;		/* 1: any protocol */
	u16 sport_lo, sport_hi;	/* source port range, inclusive */
	u16 dport_lo, dport_hi;	/* destination port range, inclusive */
	struct tm_addr src;	/* bits past src_len must be zero */
	struct tm_addr dst;	/* bits past dst_len must be zero */
	u64 action;		/* opaque to the classifier */
	/*
	 * The extra fields: the interfaces and what a stateful firewall
	 * matches past the 5-tuple.  The zero value of each matches every
	 * key.  Never hashed: the tuple engines check them in the bucket,
	 * after the 5-tuple, and only for the rules that have one
	 * (tm_rule_has_extra(), tm_rule_extra_match()).
	 *
	 * Interfaces, as ifindexes: 0 matches any, including a key without
	 * one; otherwise the key's must be equal.
	 */
	u32 iif;		/* input interface, 0: any */
	u32 oif;		/* output interface, 0: any */
	u32 mark, mark_mask;	/* (key mark & mark_mask) == mark; 0 mask: any */
	u64 dscp_set;		/* bit N: DSCP N matches; 0: any */
	u8 ct_set;		/* bit TM_CT_*: the key's state; 0: any */
	u8 frag_set;		/* bit TM_FRAG_*: the key's kind; 0: any */
	u8 tcp_flags_mask;	/* (key flags & mask) == tcp_flags; 0: any */
	u8 tcp_flags;
};

/* A prefix of a set (struct tm_rule_set): bits past @len are zero. */
struct tm_set_prefix {
	struct tm_addr addr;
	u8 len;
};

/* A range of a set: ports, or an ICMP type or code range. */
struct tm_set_range {
	u16 lo, hi;
};

/**
 * struct tm_rule_set - the sets of a set rule
 * @src: source prefixes, @nsrc of them
 * @dst: destination prefixes
 * @sport: source port ranges
 * @dport: destination port ranges
 * @proto: protocols
 * @nsrc: values of @src; 0: the rule's own field, as for every set
 * @ndst: values of @dst
 * @nsport: values of @sport
 * @ndport: values of @dport
 * @nproto: values of @proto
 *
 * A set rule matches a key when, in every field, one of the values of the
 * field's set does, and the rule's other fields do.  The classifier holds
 * its entries: the cross product of the sets, each entry the rule with one
 * value of every set (tm_rule_set_entry()), all with the rule's id and
 * priority.  A lookup returns whichever entry matches; they differ only
 * in the fields of the sets.
 */
struct tm_rule_set {
	const struct tm_set_prefix *src, *dst;
	const struct tm_set_range *sport, *dport;
	const u8 *proto;
	u16 nsrc, ndst, nsport, ndport, nproto;
};

/* Entries of one set rule at most, the whole cross product. */
#define TM_RULE_ENTRIES_MAX	4096

/*
 * Connection tracking states of a key (struct tm_key.ct); a rule's ct_set
 * has bit 1 << state for each state it matches.  A packet without a
 * conntrack entry is TM_CT_INVALID, as for nftables' ct state.
 */
#define TM_CT_INVALID		0
#define TM_CT_NEW		1
#define TM_CT_ESTABLISHED	2
#define TM_CT_RELATED		3
#define TM_CT_UNTRACKED		4
#define TM_CT_MAX		TM_CT_UNTRACKED

/* Fragments (struct tm_key.frag); a rule's frag_set as ct_set. */
#define TM_FRAG_NONE		0	/* not a fragment */
#define TM_FRAG_FIRST		1	/* offset 0, more to come */
#define TM_FRAG_LATER		2	/* offset past 0: no transport header */
#define TM_FRAG_MAX		TM_FRAG_LATER

/* TCP header flags (struct tm_key.tcp_flags, tm_rule.tcp_flags{,_mask}). */
#define TM_TCP_FIN		0x01
#define TM_TCP_SYN		0x02
#define TM_TCP_RST		0x04
#define TM_TCP_PSH		0x08
#define TM_TCP_ACK		0x10
#define TM_TCP_URG		0x20
#define TM_TCP_ECE		0x40
#define TM_TCP_CWR		0x80

/*
 * The header fields of a packet to classify, and the interfaces it came in
 * and goes out by.  The extra fields come last, after the fields every
 * lookup reads: only rules with one look at them.  A zeroed key is an
 * untagged packet: no interface, mark 0, DSCP 0, no conntrack entry
 * (TM_CT_INVALID), not a fragment, no TCP flag.  For ICMP and ICMPv6,
 * sport is the type and dport the code, as VPP's ACL plugin does.
 */
struct tm_key {
	struct tm_addr src;
	struct tm_addr dst;
	u16 sport;
	u16 dport;
	u8 proto;
	u8 family;
	u32 iif;		/* input ifindex; 0: none (e.g. at OUTPUT) */
	u32 oif;		/* output ifindex; 0: none (e.g. at INPUT) */
	u32 mark;		/* the packet's mark */
	u8 ct;			/* TM_CT_* */
	u8 frag;		/* TM_FRAG_* */
	u8 tcp_flags;		/* TM_TCP_*; 0 for other protocols */
	u8 dscp;		/* 0..63 */
};

/* Classification engines, selectable per classifier. */
enum tm_engine {
	TM_ENGINE_TUPLEMERGE,	/* default: relaxed tuples, see tm_tuple.c */
	TM_ENGINE_TSS,		/* tuple space search: rules in exact tuples */
	TM_ENGINE_LINEAR,	/* priority-ordered list: oracle, fallback */
	TM_ENGINE_MAX = TM_ENGINE_LINEAR
};

/*
 * Tunables, all with defaults (tm_params_default()) chosen on ClassBench
 * acl/fw/ipc sets and explained in tm_tuple.c.
 */
struct tm_params {
	u8 engine;		/* enum tm_engine */
	u8 collide;		/* TupleMerge: split a chain longer than this */
	u8 gap;			/* TupleMerge: see tm_tuple_relaxed() */
	u8 hash;		/* TupleMerge: TM_HASH_* new tuples may hash */
	u16 max_tuples;		/* tuples per family; 0: no limit.  -ENOSPC */
	u32 max_rules;		/* entries; 0: no limit.  -ENOSPC past it */
};

/* Fields a new TupleMerge tuple hashes when its first rule is exact there. */
#define TM_HASH_SPORT	0x01
#define TM_HASH_DPORT	0x02
#define TM_HASH_PROTO	0x04

/* Counters of a classifier (tm_cls_stats()). */
struct tm_stats {
	u32 rules;		/* installed rules */
	u32 entries;		/* their entries: set rules have several */
	u32 tuples;		/* tuples (hash tables), IPv4 + IPv6 */
	u32 tuples4, tuples6;	/* per family */
	u32 nodes;		/* occupied hash buckets */
	u32 max_chain;		/* longest chain of rules in one bucket */
	u32 splits;		/* TupleMerge splits so far */
	u32 merges;		/* tuples a new one took in (TupleMerge) */
	u64 bytes;		/* memory used, everything included */
};

struct tm_cls;

void tm_params_default(struct tm_params *p);
/* Check the parameters; on error returns -EINVAL and names the field. */
int tm_params_check(const struct tm_params *p, const char **why);
/**
 * enum tm_rule_part - the part of a rule that tm_rule_check() refused
 * @TM_RP_RULE: the rule as a whole (its family)
 * @TM_RP_SRC: the source address (bits past its prefix length)
 * @TM_RP_SRC_LEN: the source prefix length
 * @TM_RP_DST: the destination address
 * @TM_RP_DST_LEN: the destination prefix length
 * @TM_RP_SPORT: the source port range
 * @TM_RP_DPORT: the destination port range
 * @TM_RP_PROTO: the protocol
 * @TM_RP_MARK: the mark and its mask
 * @TM_RP_CT: the connection states
 * @TM_RP_FRAG: the fragment kinds
 * @TM_RP_TCP_FLAGS: the TCP flags and their mask
 * @TM_RP_SETS: the sets as a whole (their cross product)
 */
enum tm_rule_part {
	TM_RP_RULE,
	TM_RP_SRC,
	TM_RP_SRC_LEN,
	TM_RP_DST,
	TM_RP_DST_LEN,
	TM_RP_SPORT,
	TM_RP_DPORT,
	TM_RP_PROTO,
	TM_RP_MARK,
	TM_RP_CT,
	TM_RP_FRAG,
	TM_RP_TCP_FLAGS,
	TM_RP_SETS,
};

/**
 * struct tm_rule_fault - why tm_rule_check() refused a rule
 * @why: what is wrong, a string literal (an extack message as it is)
 * @part: which part of the rule, so that a caller can name its attribute
 */
struct tm_rule_fault {
	const char *why;
	enum tm_rule_part part;
};

/*
 * The one check of a rule's fields: the family, prefix lengths, host
 * bits, port ranges, protocol and the extra fields.  On error returns -EINVAL and fills @f.
 * tm_cls_insert() and tm_cls_replace() run it on every rule they take.
 */
int tm_rule_check(const struct tm_rule *r, struct tm_rule_fault *f);
/*
 * The check of a set rule: every entry passes tm_rule_check() and there
 * are at most TM_RULE_ENTRIES_MAX.  @s NULL, or without sets: @r alone.
 */
int tm_rule_set_check(const struct tm_rule *r, const struct tm_rule_set *s,
		      struct tm_rule_fault *f);
/* Entries of the set rule: 1 without sets, TM_RULE_ENTRIES_MAX + 1 past it. */
u32 tm_rule_set_entries(const struct tm_rule_set *s);
/* Entry @i (0..entries - 1) of the set rule @r, @s (may be NULL). */
void tm_rule_set_entry(const struct tm_rule *r, const struct tm_rule_set *s,
		       u32 i, struct tm_rule *out);
/* @r has an extra field, which tm_rule_extra_match() must check. */
bool tm_rule_has_extra(const struct tm_rule *r);
/* The extra fields of @r admit @k (the 5-tuple is not looked at). */
bool tm_rule_extra_match(const struct tm_rule *r, const struct tm_key *k);

struct tm_cls *tm_cls_create(const struct tm_params *p);
/*
 * Free everything once the lookups running now are done: call it when no
 * new lookup can reach @cls any more.
 */
void tm_cls_destroy(struct tm_cls *cls);
/* Mark @cls unreachable by lookups (true) or published (false). */
void tm_cls_set_private(struct tm_cls *cls, bool priv);

/*
 * Writer-side changes.  Errors: -EINVAL (rule invalid), -EEXIST (id in use,
 * insert), -ENOENT (no such id, delete/replace), -ENOSPC (a limit of
 * tm_params), -ENOMEM.  tm_cls_delete() never fails for an existing id.
 */
int tm_cls_insert(struct tm_cls *cls, const struct tm_rule *r);
int tm_cls_delete(struct tm_cls *cls, u32 id);
int tm_cls_replace(struct tm_cls *cls, const struct tm_rule *r);
/*
 * The same for a set rule (@s may be NULL: a plain rule).  The classifier
 * keeps a copy of @s.  Its entries are placed one step each, then those of
 * a replaced rule removed: a lookup meanwhile answers from the rule set
 * before or after the change, entry by entry; a caller that wants all
 * the entries seen at once publishes a private copy (a transaction).
 */
int tm_cls_insert_set(struct tm_cls *cls, const struct tm_rule *r,
		      const struct tm_rule_set *s);
int tm_cls_replace_set(struct tm_cls *cls, const struct tm_rule *r,
		       const struct tm_rule_set *s);

/*
 * The rule installed with @id, or NULL: a set rule's first entry.  Writer
 * side.  tm_cls_find_set(): the sets of a set rule, NULL for a plain one.
 */
const struct tm_rule *tm_cls_find(const struct tm_cls *cls, u32 id);
const struct tm_rule_set *tm_cls_find_set(const struct tm_cls *cls, u32 id);

/* What one lookup did (tm_cls_lookup_cost()). */
struct tm_lookup_cost {
	u32 probes;		/* tuples probed; linear: rules checked */
	u32 entries;		/* bucket entries compared; linear: probes */
};

/*
 * The best rule matching @key, or NULL.  Reader side: call under
 * rcu_read_lock(); see the concurrency contract above.
 * tm_cls_lookup_probes() also counts the tuples probed (for statistics;
 * slightly slower), tm_cls_lookup_cost() the probes and the bucket entries
 * compared (for benchmarks: the work of a lookup, which timings on a busy
 * machine blur).
 */
const struct tm_rule *tm_cls_lookup(const struct tm_cls *cls,
				    const struct tm_key *key);
const struct tm_rule *tm_cls_lookup_probes(const struct tm_cls *cls,
					   const struct tm_key *key,
					   u32 *probes);
const struct tm_rule *tm_cls_lookup_cost(const struct tm_cls *cls,
					 const struct tm_key *key,
					 struct tm_lookup_cost *cost);

/* Keys one pass of tm_cls_lookup_bulk() looks up together. */
#define TM_LOOKUP_BULK_MAX	64

/*
 * The lookups of @n keys, @res[i] = tm_cls_lookup(@cls, &@keys[i]), with
 * the probes of up to TM_LOOKUP_BULK_MAX keys at a time interleaved so
 * that their memory loads overlap (keys of both families may be mixed).
 * Each answer is one tm_cls_lookup() could give: a batch of up to
 * TM_LOOKUP_BULK_MAX keys overlaps at most one step of the writer, or
 * runs again, so each of its keys gets the answer from before that step
 * or after it.  Reader side, under rcu_read_lock().
 */
void tm_cls_lookup_bulk(const struct tm_cls *cls, const struct tm_key *keys,
			unsigned int n, const struct tm_rule **res);

/*
 * Call @fn on every rule (a set rule once, with its first entry), in no
 * particular order, until it returns non-0.
 */
int tm_cls_for_each(const struct tm_cls *cls,
		    int (*fn)(const struct tm_rule *r, void *arg), void *arg);
void tm_cls_stats(const struct tm_cls *cls, struct tm_stats *st);
/* Installed rules, O(1) (tm_cls_stats() walks every tuple). */
u32 tm_cls_rules(const struct tm_cls *cls);
/* Their entries, O(1): a set rule counts each of its cross product. */
u32 tm_cls_entries(const struct tm_cls *cls);

/* One tuple of a tuple engine, as tm_cls_tuples() reports it. */
struct tm_tuple_info {
	u8 family;
	u8 src_len, dst_len;	/* prefix bits hashed */
	u8 sport, dport, proto;	/* 1: hashed exactly */
	u32 rules;
	u32 buckets;		/* occupied slots */
	u32 slots;
	u32 best_priority;	/* of the best rule held */
};

/* Call @fn on every tuple, in lookup order, until it returns non-0. */
int tm_cls_tuples(const struct tm_cls *cls,
		  int (*fn)(const struct tm_tuple_info *ti, void *arg),
		  void *arg);
/* Verify internal invariants; returns 0 or -EUCLEAN naming the failure. */
int tm_cls_verify(const struct tm_cls *cls, const char **why);

/* Whether @a has no bit set past its first @len bits. */
bool tm_prefix_clean(const struct tm_addr *a, unsigned int len);

/* Whether @r matches @key: the definition every engine implements. */
bool tm_rule_matches(const struct tm_rule *r, const struct tm_key *key);

#endif /* _TM_CLS_H */
