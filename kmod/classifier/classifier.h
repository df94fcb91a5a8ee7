/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The classifier's kernel side: tables (table.c) attached to netfilter
 * hooks (hook.c), their rules (rule.c) and the rules' counters
 * (counters.c).  A table looks packets up in a classifier of the core
 * (core/tm_cls.h) published under RCU; the writer's view of the same rules
 * is its struct tm_ruleset, or a transaction's copy of it (txn.h).
 *
 * A rule is a struct tm_krule (id, action, counters, comment, cookie) plus
 * one classifier rule per address family it covers, whose opaque action is
 * the tm_krule pointer.  The classifier's rule id of user rule N is
 * N << 1 | (family == IPv6), so that an IPv4+IPv6 ("inet") rule is two
 * classifier rules and ties between equal priorities still go to the lower
 * user id.  A transaction's copy shares the tm_krules of the rules it does
 * not change; a tm_krule is freed an RCU grace period after the last
 * published classifier holding it is replaced.
 *
 * Locking: tables and rules change under tm_net.lock; the hooks read the
 * published classifier under RCU; counters are per CPU.
 */
#ifndef _TM_CLASSIFIER_H
#define _TM_CLASSIFIER_H

#include <linux/list.h>
#include <linux/netfilter.h>
#include <linux/ratelimit.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <linux/u64_stats_sync.h>
#include <uapi/linux/tuplemerge.h>

#include <net/netfilter/nf_log.h>

#include "core/tm_cls.h"

struct net;
struct netlink_ext_ack;
struct tm_lb_svc;
struct tm_net;
struct tm_shadow;
struct tm_target;
struct tm_txn;

/* Per-CPU counters of a rule. */
struct tm_pcnt {
	u64_stats_t packets;
	u64_stats_t bytes;
	struct u64_stats_sync syncp;
};

/**
 * struct tm_cnt - the counters of a rule, shared by the two versions of a
 * rule replaced with its counters kept (counters.c)
 * @ref: holders (struct tm_krule)
 * @slot: index in its chunk
 * @pc: per-CPU counts, only ever added to
 * @base_packets: packets at the last reset, subtracted on read
 * @base_bytes: bytes at the last reset, subtracted on read
 */
struct tm_cnt {
	refcount_t ref;
	u32 slot;
	struct tm_pcnt __percpu *pc;
	u64 base_packets;
	u64 base_bytes;
};

/*
 * Families a rule covers (struct tm_krule.fams), from the two other ways
 * of saying it: the ABI's enum tm_family (a table's or a rule's family)
 * and the core's TM_AF_* (an address, a key, a classifier rule).
 */
#define TM_FAMS_V4	0x1
#define TM_FAMS_V6	0x2

static inline u8 tm_fams_of_family(u8 family)
{
	return family == TM_FAMILY_IPV4 ? TM_FAMS_V4 :
	       family == TM_FAMILY_IPV6 ? TM_FAMS_V6 :
	       TM_FAMS_V4 | TM_FAMS_V6;
}

static inline u8 tm_fams_of_af(u8 af)
{
	return af == TM_AF_INET ? TM_FAMS_V4 : TM_FAMS_V6;
}

static inline u8 tm_family_of_fams(u8 fams)
{
	return fams == TM_FAMS_V4 ? TM_FAMILY_IPV4 :
	       fams == TM_FAMS_V6 ? TM_FAMILY_IPV6 : TM_FAMILY_INET;
}

/**
 * struct tm_klog - how a rule logs its packets (TM_A_RULE_LOG)
 * @rs: the rate limit, lines a second
 * @li: the logger and its level or group
 * @typed: @li names a logger (a level or a group given); else the
 *	family's bound logger with its defaults
 * @pfs: the families whose logger module the rule holds (BIT(NFPROTO_*))
 * @prefix: NUL-terminated, may be empty
 */
struct tm_klog {
	struct ratelimit_state rs;
	struct nf_loginfo li;
	bool typed;
	u16 pfs;
	char prefix[TM_LOG_PREFIX_MAX];
};

/**
 * struct tm_krule - what the module keeps of a rule besides its match fields
 * @rcu: deferred free
 * @txn_node: entry in a transaction's created or dead list
 * @cnt: counters
 * @comment: NUL-terminated, or NULL; allocated with the tm_krule
 * @cookie: the caller's
 * @id: user id, 1..TM_RULE_ID_MAX
 * @mark: TM_ACT_MARK value
 * @action: enum tm_action
 * @reject: enum tm_reject
 * @svc: TM_ACT_LB service, holding a reference
 * @set: the rule's sets as given, or NULL; allocated with the tm_krule
 * @log: how it logs, or NULL
 * @queue: TM_ACT_QUEUE queue number
 * @queue_bypass: TM_ACT_QUEUE: accept when no reader listens
 * @trace: trace events of its packets
 * @fams: TM_FAMS_*
 * @txn_new: created by an open transaction, never published
 */
struct tm_krule {
	struct rcu_head rcu;
	struct list_head txn_node;
	struct tm_cnt *cnt;
	char *comment;
	u64 cookie;
	u32 id;
	u32 mark;
	struct tm_lb_svc *svc;
	const struct tm_rule_set *set;
	struct tm_klog *log;
	u16 queue;
	bool queue_bypass;
	bool trace;
	u8 action;
	u8 reject;
	u8 fams;
	u8 txn_new;
};

/* A rule as userspace describes it (TM_CMD_RULE_NEW, TM_CMD_RULE_SET). */
struct tm_rule_cfg {
	struct tm_rule r;	/* match fields; family of the first fams */
	u32 id;			/* 0: assign one */
	u8 fams;
	u8 action;
	u8 reject;
	bool reset_counters;
	u32 mark;
	struct tm_lb_svc *svc;	/* TM_ACT_LB, resolved under tm_net.lock */
	u64 cookie;
	const char *comment;	/* NULL: none */
	const struct tm_rule_set *set;	/* NULL: none; the request's */
	u16 queue;
	bool queue_bypass;
	bool trace;
	bool log;
	const char *log_prefix;	/* NULL: none */
	s16 log_level;		/* -1: none */
	s32 log_group;		/* -1: none */
	u32 log_rate;
};

/**
 * struct tm_ruleset - the rules of a table, or a transaction's copy of them
 * @cls: the classifier holding them
 * @nrules: user rules
 * @nentries: their entries (a set rule's cross product), for max-rules
 * @max_id: highest id ever used, for assigned ids
 */
struct tm_ruleset {
	struct tm_cls *cls;
	u32 nrules;
	u32 nentries;
	u32 max_id;
};

/* What userspace asks of a new table (TM_CMD_TABLE_NEW). */
struct tm_table_cfg {
	const char *name;
	u8 family;		/* enum tm_family */
	u8 hook;		/* enum tm_hook */
	u8 policy;		/* enum tm_policy */
	u8 engine;		/* enum tm_engine_type */
	u8 collide;		/* TupleMerge collision limit */
	s32 priority;		/* netfilter hook priority */
	u32 max_rules;
	u32 max_tuples;
};

/* Per-CPU lookup statistics of a table. */
struct tm_tstats {
	u64_stats_t lookups;
	u64_stats_t matches;
	u64_stats_t probes;
	struct u64_stats_sync syncp;
};

/**
 * struct tm_table - a classification table
 * @list: entry in tm_net.tables
 * @rcu: deferred free once no reader can see the table
 * @cls: the classifier the hooks look up; @rules.cls, published
 * @rules: the rules, writer side
 * @stats: lookup statistics
 * @shadow: the copy of @rules an open transaction is changing, or NULL
 * @txn_new: the open transaction creating the table: nobody else sees it,
 *	and its hooks let every packet through, until the commit
 * @txn_del: the open transaction deleting the table at its commit
 * @txn_node: entry in @txn_new's or @txn_del's list of tables
 * @live: packets are classified (else accepted: not yet, or no longer)
 * @ops: netfilter hooks, one per address family (IPv4, IPv6)
 * @nops: hooks in use: 2 for TM_FAMILY_INET, else 1
 * @conntrack: the table holds conntrack on for its hooks' families (a
 *	rule matched a conntrack state), until the hooks go
 * @handle: stable identifier, unique in the namespace
 * @family: enum tm_family
 * @hook: enum tm_hook
 * @policy: enum tm_policy, the verdict when no rule matches
 * @engine: enum tm_engine_type
 * @collide: TupleMerge collision limit
 * @priority: netfilter hook priority
 * @max_rules: rules it may hold, at most
 * @max_tuples: tuples its classifier may have, at most
 * @name: NUL-terminated name, unique in the namespace
 */
struct tm_table {
	struct list_head list;
	struct rcu_head rcu;
	struct tm_cls __rcu *cls;
	struct tm_ruleset rules;
	struct tm_tstats __percpu *stats;
	struct tm_shadow *shadow;
	struct tm_txn *txn_new;
	struct tm_txn *txn_del;
	struct list_head txn_node;
	bool live;
	struct nf_hook_ops ops[2];
	u8 nops;
	bool conntrack;
	u32 handle;
	u8 family;
	u8 hook;
	u8 policy;
	u8 engine;
	u8 collide;
	s32 priority;
	u32 max_rules;
	u32 max_tuples;
	char name[TM_NAME_MAX];
};

/* table.c */
int tm_table_init(void);
void tm_table_exit(void);
struct tm_table *tm_table_find_txn(struct tm_net *tn, const char *name,
				   const struct tm_txn *txn);
struct tm_table *tm_table_find(struct tm_net *tn, const char *name);
bool tm_table_visible(const struct tm_table *t, const struct tm_txn *txn);
u32 tm_tables_visible(struct tm_net *tn);
bool tm_tables_use_svc(struct tm_net *tn, const struct tm_lb_svc *svc,
		       const struct tm_txn *txn);
int tm_table_add(struct net *net, const struct tm_table_cfg *cfg,
		 struct tm_txn *txn, struct netlink_ext_ack *extack);
int tm_table_del(struct net *net, struct tm_table *t, struct tm_txn *txn,
		 struct netlink_ext_ack *extack);
int tm_tables_del_all(struct net *net, struct tm_txn *txn, bool dry,
		      struct netlink_ext_ack *extack);
void tm_table_txn_switch(struct tm_txn *txn);
void tm_table_txn_end(struct net *net, struct tm_net *tn, struct tm_txn *txn,
		      bool committed);
void tm_table_flush(struct net *net, struct tm_net *tn);
u32 tm_table_rules(const struct tm_table *t);

/* rule.c: rule operations on a table's rules or a transaction's copy */
void tm_rule_exit(void);
u32 tm_rule_cls_id(u32 id, u8 family);
struct tm_krule *tm_rule_find(const struct tm_ruleset *rs, u32 id,
			      const struct tm_rule **r);
int tm_rule_add(const struct tm_target *tg, struct tm_rule_cfg *cfg,
		struct netlink_ext_ack *extack);
int tm_rule_replace(const struct tm_target *tg, const struct tm_rule_cfg *cfg,
		    struct netlink_ext_ack *extack);
int tm_rule_del(const struct tm_target *tg, u32 id,
		struct netlink_ext_ack *extack);
int tm_rules_flush(const struct tm_target *tg);
int tm_ruleset_insert(struct tm_ruleset *rs, struct tm_krule *kr,
		      const struct tm_rule_cfg *cfg);
void tm_ruleset_remove(struct tm_ruleset *rs, const struct tm_krule *kr);
int tm_ruleset_replace(struct tm_ruleset *rs, const struct tm_krule *old,
		       struct tm_krule *kr, const struct tm_rule_cfg *cfg);
int tm_rules_for_each(const struct tm_ruleset *rs,
		      int (*fn)(struct tm_krule *kr, const struct tm_rule *r,
				void *arg), void *arg);
int tm_rules_ids(const struct tm_ruleset *rs, u32 **ids, u32 *n);
u32 tm_krule_entries(const struct tm_krule *kr);
bool tm_rules_room(const struct tm_table *t, const struct tm_ruleset *rs,
		   u32 entries, u32 leaving);
struct tm_cls *tm_rules_cls_new(const struct tm_table *t);
int tm_rules_copy(const struct tm_table *t, struct tm_ruleset *dst,
		  const struct tm_ruleset *src);
void tm_rules_release(struct tm_ruleset *rs);
void tm_krule_free(struct tm_krule *kr);

/* counters.c */
struct tm_cnt *tm_cnt_new(void);
void tm_cnt_get(struct tm_cnt *c);
void tm_cnt_put(struct tm_cnt *c);
void tm_cnt_read(const struct tm_cnt *c, u64 *packets, u64 *bytes);
void tm_cnt_reset(struct tm_cnt *c);
void tm_cnt_exit(void);

/* hook.c */
int tm_hook_register(struct net *net, struct tm_table *t);
void tm_hook_unregister(struct net *net, struct tm_table *t);
bool tm_hook_sees_conntrack(const struct tm_table *t);
int tm_hook_conntrack(struct net *net, struct tm_table *t,
		      struct netlink_ext_ack *extack);

#endif /* _TM_CLASSIFIER_H */
