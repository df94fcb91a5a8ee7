/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarations shared by the files of tuplemerge.ko.  Each subsystem
 * (netns.c, table.c, rule.c, txn.c, hook.c, genl.c, rule_nl.c, sid.c,
 * accept.c, sid_nl.c) exports its
 * init/exit pair and the few calls the others need; main.c only calls the
 * init functions in order.
 *
 * How the objects hang together
 *
 *   struct tm_net (one per namespace)
 *     tables: struct tm_table, each attached to a netfilter hook
 *       cls (RCU): the classifier the hook looks packets up in
 *       rules: the writer's view of the same rules (struct tm_ruleset)
 *     txns: open transactions (struct tm_txn), each holding a private copy
 *       (struct tm_shadow) of every table it changed
 *     sids: connection-acceptance SIDs (struct tm_sid) and the connections
 *       they accepted (struct tm_sflow), with their IPv6 LOCAL_IN hook
 *
 * A rule is a struct tm_krule (id, action, counters, comment, cookie) plus
 * one classifier rule per address family it covers, whose opaque action is
 * the tm_krule pointer.  The classifier's rule id of user rule N is
 * N << 1 | (family == IPv6), so that an IPv4+IPv6 ("inet") rule is two
 * classifier rules and ties between equal priorities still go to the lower
 * user id.  A transaction's copy shares the tm_krules of the rules it does
 * not change; a tm_krule is freed an RCU grace period after the last
 * published classifier holding it is replaced.
 */
#ifndef _TM_H
#define _TM_H

#include <linux/in6.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netfilter.h>
#include <linux/netlink.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <linux/spinlock.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <net/genetlink.h>
#include <uapi/linux/seg6.h>
#include <uapi/linux/tuplemerge.h>

#include "core/tm_cls.h"

struct tm_cls;
struct tm_table;

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
 * @base_packets, @base_bytes: sums at the last reset, subtracted on read
 */
struct tm_cnt {
	refcount_t ref;
	u32 slot;
	struct tm_pcnt __percpu *pc;
	u64 base_packets;
	u64 base_bytes;
};

/* Families a rule covers (struct tm_krule.fams). */
#define TM_FAMS_V4	0x1
#define TM_FAMS_V6	0x2

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
};

/**
 * struct tm_ruleset - the rules of a table, or a transaction's copy of them
 * @cls: the classifier holding them
 * @nrules: user rules
 * @max_id: highest id ever used, for assigned ids
 */
struct tm_ruleset {
	struct tm_cls *cls;
	u32 nrules;
	u32 max_id;
};

/**
 * struct tm_net - per network namespace state
 * @lock: serialises every change in this namespace (one writer at a time)
 * @tables: the namespace's tables, ordered by handle, RCU-safe for readers
 * @ntables: number of entries in @tables
 * @next_handle: handle of the next table created
 * @generation: bumped by every change; reported to userspace
 * @txns: open transactions (struct tm_txn)
 * @ntxns: entries in @txns
 * @next_txn: id of the next transaction
 */
/* Counters of a connection-acceptance SID (TM_A_SID_ACCEPTED...). */
enum tm_sidc {
	TM_SIDC_ACCEPTED,
	TM_SIDC_PASSED,
	TM_SIDC_FORCED,
	TM_SIDC_STEERED,
	TM_SIDC_UNKNOWN,
	TM_SIDC_MALFORMED,
	TM_SIDC_REPORTS,
	TM_SIDC_HMAC_BAD,
	TM_SIDC_HMAC_NOKEY,
	TM_SIDC_MAX
};

struct tm_sid_stats {
	u64_stats_t c[TM_SIDC_MAX];
	struct u64_stats_sync syncp;
};

/*
 * What an open transaction does at its commit to a SID or a service it
 * holds (struct tm_sid.txn, struct tm_lb_svc.txn).
 */
enum tm_txn_op {
	TM_TXN_NONE,
	TM_TXN_NEW,	/* created by it: seen by it alone until the commit */
	TM_TXN_SET,	/* changed: a SID's policy, a service's backends */
	TM_TXN_DEL,	/* deleted: still everyone else's until the commit */
};

/**
 * struct tm_sid - a connection-acceptance SID bound to the module (sid.c)
 * @node: in tm_sids.hash (RCU; writers hold tm_net.lock)
 * @rcu: deferred free
 * @addr: the SID
 * @policy: enum tm_sid_policy
 * @threshold: for TM_SID_POLICY_CONNS and _BACKLOG
 * @conns: connections it accepted that have not closed
 * @load: the load the application last reported
 * @hmac: seg6 HMAC key id that LB packets must carry and reports are
 *	signed with, 0: none (read by the hooks without a lock)
 * @stats: per-CPU counters
 * @dead: unbound; no connection may be added (set and read under
 *	tm_sids.flock)
 * @txn: the open transaction that creates, changes or deletes the SID at
 *	its commit (@txn_op), or NULL; one at a time
 * @txn_node: in @txn's list of SIDs
 * @txn_op: enum tm_txn_op; a SID @txn creates is in no hash until then
 * @txn_changed: the commit changes the policy (TM_TXN_SET)
 * @txn_policy, @txn_threshold, @txn_hmac: the policy TM_TXN_SET gives it
 */
struct tm_sid {
	struct hlist_node node;
	struct rcu_head rcu;
	struct in6_addr addr;
	u8 policy;
	u32 threshold;
	u32 load;
	u32 hmac;
	atomic_t conns;
	struct tm_sid_stats __percpu *stats;
	bool dead;
	struct tm_txn *txn;
	struct list_head txn_node;
	u8 txn_op;
	bool txn_changed;
	u8 txn_policy;
	u32 txn_threshold;
	u32 txn_hmac;
};

/**
 * struct tm_sflow - a connection this server accepted (sid.c)
 * @node: in tm_sids.flows (RCU; writers hold tm_sids.flock)
 * @rcu: deferred free
 * @client, @vip, @cport, @vport: the connection, as the client sees it
 * @sid: the SID that accepted it
 * @dif: the device its SYN came in by (for the socket lookup)
 * @born: jiffies of its SYN
 * @last: jiffies of its last packet
 * @flags: TM_SFLOW_CLOSING once it ended, TM_SFLOW_UNCOUNTED while it
 *	does not count towards its SID's conns (closed, or a handshake
 *	older than TM_SFLOW_SYN_TIMEOUT), TM_SFLOW_REPORT while the replies
 *	go through @lb, TM_SFLOW_EST once its socket was seen established,
 *	TM_SFLOW_CHECK while a client's FIN or RST waits for the aging to
 *	ask the socket
 * @lock: guards @lb, and the changes of CLOSING and UNCOUNTED
 * @lb: the load balancer's SID the replies report to (reply.c): set by
 *	the SYN, changed only by a RECOVER the connection's socket accepts
 */
struct tm_sflow {
	struct hlist_node node;
	struct rcu_head rcu;
	struct in6_addr client, vip;
	__be16 cport, vport;
	struct tm_sid *sid;
	int dif;
	unsigned long born, last;
	unsigned long flags;
	spinlock_t lock;	/* guards @lb, CLOSING, UNCOUNTED */
	struct in6_addr lb;
};

#define TM_SFLOW_CLOSING	0
#define TM_SFLOW_REPORT		1
#define TM_SFLOW_EST		2	/* its socket was seen established */
#define TM_SFLOW_CHECK		3	/* a client FIN or RST went by */
#define TM_SFLOW_UNCOUNTED	4	/* not in its SID's conns */

#define TM_SID_BUCKETS		64
#define TM_SFLOW_BUCKETS	4096

/* The server side of SRv6 load balancing in a namespace (sid.c). */
struct tm_sids {
	struct hlist_head hash[TM_SID_BUCKETS];
	u32 n;
	u32 npending;			/* open transactions create these */
	bool hooked;
	struct nf_hook_ops ops[2];	/* accept.c, reply.c */
	spinlock_t flock;		/* the flows */
	struct hlist_head __rcu *flows;	/* TM_SFLOW_BUCKETS, with the hook */
	u32 nflows;
	u32 seed;
	struct delayed_work gc;
	struct net *net;		/* the namespace, for the aging */
	struct mem_cgroup *memcg;	/* charged for the flows */
};

/* Counters of a load-balancer service (TM_A_LB_HUNTS...). */
enum tm_lbc {
	TM_LBC_HUNTS,
	TM_LBC_RECOVERIES,
	TM_LBC_STEERED,
	TM_LBC_REPORTS,
	TM_LBC_LEARNED,
	TM_LBC_EXPIRED,
	TM_LBC_FULL,
	TM_LBC_DROPPED,
	TM_LBC_TOO_BIG,
	TM_LBC_MALFORMED,
	TM_LBC_REFUSED,
	TM_LBC_EVICTED,
	TM_LBC_NS_FULL,
	TM_LBC_HMAC_BAD,
	TM_LBC_HMAC_NOKEY,
	TM_LBC_MAX
};

struct tm_lb_stats {
	u64_stats_t c[TM_LBC_MAX];
	struct u64_stats_sync syncp;
};

/* A backend of a service, as configured. */
struct tm_lb_backend {
	struct in6_addr sid;
	u32 weight;
};

/**
 * struct tm_lb_tab - what the packet path reads of a service's backends,
 * rebuilt and replaced whole when they change (lb.c)
 * @rcu: deferred free
 * @n: backends
 * @k: candidates per row (the service's choices)
 * @size: rows
 * @sids: the backends' SIDs, indexed by the rows
 * @rows: @size rows of @k indexes into @sids (TM_MAGLEV_NONE: none)
 * @gen: which of the service's tables this is (tm_lb_svc.tab_gen)
 */
struct tm_lb_tab {
	struct rcu_head rcu;
	u32 n, k, size;
	u32 gen;
	struct in6_addr *sids;
	u16 *rows;
};

/**
 * struct tm_lb_svc - a load-balancer service (lb.c)
 * @list: in tm_lb.svcs (writers, under tm_net.lock)
 * @sid_node: in tm_lb.sid_hash by @sid (RCU)
 * @rcu: deferred free
 * @ref: one for the namespace, one per tm_krule naming it
 * @name: NUL-terminated, unique in the namespace
 * @vip, @proto, @port: what it serves (@port 0: any)
 * @sid: the load balancer's SID, where servers report
 * @k: choices
 * @size: rows of its table
 * @max_flows: flows it remembers, at most
 * @idle, @fin, @syn: timeouts, seconds
 * @hmac: seg6 HMAC key id its SRHs are signed with and its reports
 *	checked against, 0: none
 * @backends, @nbackends: configuration (writers)
 * @tab: the published table, NULL without backends
 * @nflows: flows it remembers now (changed under tm_lb.flock)
 * @halfopen: its flows with no server yet, oldest first (tm_lb.flock)
 * @dead: unlinked: no new flow (tm_lb.flock)
 * @tab_gen: tables built so far (writers)
 * @memcg: the memory cgroup its flows are charged to (its creator's)
 * @stats: per-CPU counters
 * @txn: the open transaction that creates, changes or deletes the service
 *	at its commit (@txn_op), or NULL; one at a time
 * @txn_node: in @txn's list of services
 * @txn_op: enum tm_txn_op; a service @txn creates is on no list but
 *	@txn's, and its own @backends are the transaction's
 * @txn_changed: the commit gives it new backends (TM_TXN_SET)
 * @txn_backends, @txn_nbackends: the backends TM_TXN_SET gives it
 * @txn_tab: the table of the backends it has after the commit, built
 *	once by the commit (tm_lb_txn_prepare()); the old one after it
 */
struct tm_lb_svc {
	struct list_head list;
	struct hlist_node sid_node;
	struct rcu_head rcu;
	refcount_t ref;
	char name[TM_NAME_MAX];
	struct in6_addr vip;
	u8 proto;
	__be16 port;
	struct in6_addr sid;
	u8 k;
	u32 size;
	u32 max_flows;
	u32 idle, fin, syn;
	u32 hmac;
	struct tm_lb_backend *backends;
	u32 nbackends;
	struct tm_lb_tab __rcu *tab;
	atomic_t nflows;
	struct list_head halfopen;
	bool dead;
	u32 tab_gen;
	struct mem_cgroup *memcg;
	struct tm_lb_stats __percpu *stats;
	struct tm_txn *txn;
	struct list_head txn_node;
	u8 txn_op;
	bool txn_changed;
	struct tm_lb_backend *txn_backends;
	u32 txn_nbackends;
	struct tm_lb_tab *txn_tab;
};

/**
 * struct tm_lflow - a connection the load balancer knows (lb.c)
 * @node: in tm_lb.flows (RCU; writers hold tm_lb.flock)
 * @rcu: deferred free
 * @svc: its service
 * @client, @cport, @vport: the client's side; the VIP is the service's
 * @state: enum tm_lb_flow_state
 * @dead: unlinked (under tm_lb.flock): a report found it too late
 * @halfopen: on @svc_lru and @ns_lru (under tm_lb.flock): no server yet,
 *	or no packet of the client since (the handshake not done)
 * @tgen: the tm_lb_tab.gen it hunted with
 * @server: the accepting server's SID, set once (before @state becomes
 *	STEER, under tm_lb.flock)
 * @svc_lru, @ns_lru: while @halfopen, in tm_lb_svc.halfopen and
 *	tm_lb.halfopen, oldest first: the first evicted (tm_lb.flock)
 * @last: jiffies of its last packet
 */
struct tm_lflow {
	struct hlist_node node;
	struct rcu_head rcu;
	struct tm_lb_svc *svc;
	struct in6_addr client;
	__be16 cport, vport;
	u8 state;
	u8 dead;
	u8 halfopen;
	u32 tgen;
	struct in6_addr server;
	struct list_head svc_lru, ns_lru;
	unsigned long last;
};

#define TM_LFLOW_BUCKETS	BIT(16)

/* The flow table: freed by RCU, after the hook that reads it is gone. */
struct tm_lflows {
	struct rcu_head rcu;
	struct hlist_head b[TM_LFLOW_BUCKETS];
};

/* The load-balancer side of SRv6 load balancing in a namespace (lb.c). */
struct tm_lb {
	struct list_head svcs;
	u32 nsvcs;
	u32 npending;			/* open transactions create these */
	struct hlist_head sid_hash[TM_SID_BUCKETS];
	bool hooked;
	struct nf_hook_ops ops;		/* the reports, lb_fwd.c */
	spinlock_t flock;		/* the flows */
	struct tm_lflows *flows;	/* with the hook */
	struct list_head halfopen;	/* flows with no server, oldest first */
	u32 nflows;			/* every service's, under flock */
	u32 seed;
	struct delayed_work gc;
};

struct tm_net {
	struct mutex lock;	/* protects every field below */
	struct list_head tables;
	u32 ntables;
	u32 next_handle;
	u64 generation;
	struct list_head txns;
	u32 ntxns;
	u32 next_txn;
	struct tm_sids sids;
	struct tm_lb lb;
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
 * @handle: stable identifier, unique in the namespace
 * @family, @hook, @policy, @engine, @priority, @collide, @max_rules,
 * @max_tuples: see struct tm_table_cfg
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

/**
 * struct tm_shadow - a transaction's private copy of one table's rules
 * @node: entry in tm_txn.shadows
 * @table: the table copied
 * @txn: the transaction
 * @rules: the copy, published by the commit
 * @ops: requests applied to the copy
 * @flushed: the transaction flushed the copy (or began with a flush)
 * @created: tm_krules made by the transaction (freed by an abort)
 * @dead: the table's tm_krules the copy dropped (freed after a commit)
 */
struct tm_shadow {
	struct list_head node;
	struct tm_table *table;
	struct tm_txn *txn;
	struct tm_ruleset rules;
	u32 ops;
	bool flushed;
	struct list_head created;
	struct list_head dead;
};

/**
 * struct tm_txn - an open transaction
 * @node: entry in tm_net.txns
 * @shadows: struct tm_shadow, one per table changed
 * @tables_new: tables the transaction creates (struct tm_table.txn_node)
 * @tables_del: tables the transaction deletes
 * @ntables_del: entries of @tables_del
 * @sids: SIDs it creates, changes or deletes (struct tm_sid.txn_node)
 * @svcs: services it creates, changes or deletes
 * @nsids_del, @nsvcs_del: of which it deletes
 * @id: TM_A_TXN_ID
 * @portid: netlink port of the socket that owns it
 * @ops: requests applied so far
 * @stale: spoilt by a conflicting change; only an abort remains
 */
struct tm_txn {
	struct list_head node;
	struct list_head shadows;
	struct list_head tables_new;
	struct list_head tables_del;
	u32 ntables_del;
	struct list_head sids;
	struct list_head svcs;
	u32 nsids_del;
	u32 nsvcs_del;
	u32 id;
	u32 portid;
	u32 ops;
	bool stale;
};

/* netns.c */
int tm_netns_init(void);
void tm_netns_exit(void);
struct tm_net *tm_net(const struct net *net);
struct mem_cgroup *tm_memcg_owner(void);
void tm_memcg_put(struct mem_cgroup *memcg);
void *tm_zalloc_charged(size_t size, struct mem_cgroup *memcg);

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
void tm_table_changed(struct tm_net *tn, struct tm_table *t);

/* rule.c: rule operations on a table's rules or a transaction's copy */
void tm_rule_exit(void);
u32 tm_rule_cls_id(u32 id, u8 family);
struct tm_krule *tm_rule_find(const struct tm_ruleset *rs, u32 id,
			      const struct tm_rule **r);
int tm_rule_add(struct tm_table *t, struct tm_ruleset *rs,
		struct tm_shadow *sh, struct tm_rule_cfg *cfg,
		struct netlink_ext_ack *extack);
int tm_rule_replace(struct tm_table *t, struct tm_ruleset *rs,
		    struct tm_shadow *sh, const struct tm_rule_cfg *cfg,
		    struct netlink_ext_ack *extack);
int tm_rule_del(struct tm_table *t, struct tm_ruleset *rs,
		struct tm_shadow *sh, u32 id, struct netlink_ext_ack *extack);
int tm_rules_for_each(const struct tm_ruleset *rs,
		      int (*fn)(struct tm_krule *kr, const struct tm_rule *r,
				void *arg), void *arg);
int tm_rules_ids(const struct tm_ruleset *rs, u32 **ids, u32 *n);
struct tm_cls *tm_rules_cls_new(const struct tm_table *t);
int tm_rules_copy(const struct tm_table *t, struct tm_ruleset *dst,
		  const struct tm_ruleset *src);
int tm_rules_flush(struct tm_table *t, struct tm_ruleset *rs,
		   struct tm_shadow *sh);
void tm_rules_release(struct tm_ruleset *rs);
void tm_krule_free(struct tm_krule *kr);

/* counters.c */
struct tm_cnt *tm_cnt_new(void);
void tm_cnt_get(struct tm_cnt *c);
void tm_cnt_put(struct tm_cnt *c);
void tm_cnt_read(const struct tm_cnt *c, u64 *packets, u64 *bytes);
void tm_cnt_reset(struct tm_cnt *c);
void tm_cnt_exit(void);

/* txn.c */
int tm_txn_init(void);
void tm_txn_exit(void);
int tm_txn_begin(struct tm_net *tn, u32 portid, u32 *id,
		 struct netlink_ext_ack *extack);
struct tm_txn *tm_txn_new(struct tm_net *tn, u32 portid);
int tm_txn_flush_ruleset(struct net *net, struct tm_net *tn,
			 struct tm_txn *txn, struct netlink_ext_ack *extack);
struct tm_txn *tm_txn_find(struct tm_net *tn, u32 id, u32 portid,
			   bool stale_ok, struct netlink_ext_ack *extack);
struct tm_shadow *tm_txn_shadow(struct tm_txn *txn, struct tm_table *t,
				bool empty, struct netlink_ext_ack *extack);
int tm_txn_commit(struct net *net, struct tm_net *tn, struct tm_txn *txn,
		  struct netlink_ext_ack *extack);
void tm_txn_abort(struct net *net, struct tm_net *tn, struct tm_txn *txn);
void tm_txn_spoil(struct tm_txn *txn);
void tm_txn_table_gone(struct tm_table *t);
void tm_txn_table_drop(struct tm_table *t);
void tm_txn_flush(struct net *net, struct tm_net *tn);

/* hook.c */
int tm_hook_register(struct net *net, struct tm_table *t);
void tm_hook_unregister(struct net *net, struct tm_table *t);

/* sid.c: connection-acceptance SIDs and the connections they accepted */
/**
 * struct tm_sid_cfg - a SID binding request
 * @addr: the SID
 * @policy: TM_SID_POLICY_*
 * @threshold: of the conns, backlog and load policies
 * @hmac: seg6 HMAC key id, 0: none
 * @global_ok: the caller may switch global state on: CAP_NET_ADMIN in the
 *	initial user namespace (the first SID turns nf_hooks_lwtunnel_enabled
 *	on for every namespace, for good)
 */
struct tm_sid_cfg {
	struct in6_addr addr;
	u8 policy;
	u32 threshold;
	u32 hmac;
	bool global_ok;
};

void tm_sids_init(struct tm_sids *s);
void tm_sids_flush(struct net *net, struct tm_net *tn);
struct tm_sid *tm_sid_find(const struct tm_sids *s, const struct in6_addr *a);
struct tm_sid *tm_sid_find_txn(struct tm_net *tn, const struct in6_addr *a,
			       const struct tm_txn *txn);
int tm_sid_add(struct net *net, struct tm_net *tn,
	       const struct tm_sid_cfg *cfg, bool replace, struct tm_txn *txn,
	       struct netlink_ext_ack *extack, struct tm_sid **out);
int tm_sid_del(struct net *net, struct tm_net *tn, struct tm_sid *sid,
	       struct tm_txn *txn, struct netlink_ext_ack *extack);
int tm_sids_del_all(struct net *net, struct tm_net *tn, struct tm_txn *txn,
		    bool dry, struct netlink_ext_ack *extack);
void tm_sid_txn_switch(struct tm_net *tn, struct tm_txn *txn);
void tm_sid_txn_end(struct net *net, struct tm_net *tn, struct tm_txn *txn,
		    bool committed);
void tm_sid_count(struct tm_sid *sid, enum tm_sidc c);
void tm_sid_read(const struct tm_sid *sid, u64 *c);
struct tm_sflow *tm_sflow_find(struct tm_sids *s, const struct in6_addr *client,
			       const struct in6_addr *vip, __be16 cport,
			       __be16 vport);
struct tm_sflow *tm_sflow_add(struct tm_sids *s, struct tm_sid *sid,
			      const struct in6_addr *client,
			      const struct in6_addr *vip, __be16 cport,
			      __be16 vport, u16 tag, const struct in6_addr *lb,
			      int dif);
void tm_sflow_seen(struct tm_sflow *f, bool check);
void tm_sflow_close(struct tm_sflow *f);
struct tcphdr;
void tm_sflow_lb(struct net *net, struct tm_sflow *f, u16 tag,
		 const struct in6_addr *lb, const struct tcphdr *th);

/* srh.c: inserting and removing SRHs */
/* Longest SRH handled: the VIP, the LB SID and 14 candidates. */
#define TM_SRH_MAX_SEGS		16
/* An RFC 8754 HMAC TLV: type, length, reserved, key id, 32 bytes. */
#define TM_SRH_HMAC_LEN		40
int tm_srh_push(struct sk_buff *skb, struct net *net,
		const struct in6_addr *segs, unsigned int n, u16 tag, u32 hmac);
int tm_srh_pop(struct sk_buff *skb, unsigned int srhlen,
	       const struct in6_addr *daddr);
const struct ipv6_sr_hdr *tm_srh_get(struct sk_buff *skb, unsigned int extra,
				     bool *bad);
int tm_srh_hmac_check(struct net *net, const struct ipv6_sr_hdr *srh,
		      const struct in6_addr *saddr, u32 hmac);

/* The SRH's tag, enum tm_srlb_tag (the uapi says __u16, the wire __be16). */
static inline u16 tm_srh_tag(const struct ipv6_sr_hdr *srh)
{
	return be16_to_cpu((__force __be16)srh->tag);
}

/* accept.c: the connection-acceptance netfilter hook */
unsigned int tm_accept_hook(void *priv, struct sk_buff *skb,
			    const struct nf_hook_state *state);

/* reply.c: the server's replies reporting to the load balancer */
unsigned int tm_reply_hook(void *priv, struct sk_buff *skb,
			   const struct nf_hook_state *state);

/* lb.c: services, backends, tables and flows of the load balancer */
struct tm_lb_cfg {
	const char *name;
	struct in6_addr vip, sid;
	u8 proto, k;
	__be16 port;
	u32 size, max_flows, idle, fin, syn;
	u32 hmac;
};

void tm_lb_init(struct tm_lb *lb);
void tm_lb_flush(struct net *net, struct tm_net *tn);
void tm_lb_exit(void);
struct tm_lb_svc *tm_lb_svc_find(struct tm_net *tn, const char *name);
struct tm_lb_svc *tm_lb_svc_find_txn(struct tm_net *tn, const char *name,
				     const struct tm_txn *txn);
struct tm_lb_svc *tm_lb_svc_by_sid(struct tm_lb *lb, const struct in6_addr *a);
int tm_lb_svc_add(struct net *net, struct tm_net *tn,
		  const struct tm_lb_cfg *cfg, struct tm_txn *txn,
		  struct netlink_ext_ack *extack, struct tm_lb_svc **out);
int tm_lb_svc_del(struct net *net, struct tm_net *tn, struct tm_lb_svc *svc,
		  struct tm_txn *txn, struct netlink_ext_ack *extack);
int tm_lb_svcs_del_all(struct net *net, struct tm_net *tn,
		       struct tm_txn *txn, bool dry,
		       struct netlink_ext_ack *extack);
bool tm_lb_svc_going(const struct tm_lb_svc *svc, const struct tm_txn *txn);
void tm_lb_svc_get(struct tm_lb_svc *svc);
void tm_lb_svc_put(struct tm_lb_svc *svc);
int tm_lb_backend_add(struct tm_lb_svc *svc, const struct in6_addr *sid,
		      u32 weight, struct tm_txn *txn,
		      struct netlink_ext_ack *extack);
int tm_lb_backend_del(struct tm_lb_svc *svc, const struct in6_addr *sid,
		      struct tm_txn *txn, struct netlink_ext_ack *extack);
int tm_lb_txn_prepare(struct tm_txn *txn, struct netlink_ext_ack *extack);
void tm_lb_txn_switch(struct tm_net *tn, struct tm_txn *txn, bool link);
void tm_lb_txn_announce(struct net *net, struct tm_net *tn,
			struct tm_txn *txn);
void tm_lb_txn_end(struct net *net, struct tm_net *tn, struct tm_txn *txn,
		   bool committed);
void tm_lb_count(struct tm_lb_svc *svc, enum tm_lbc c);
void tm_lb_read(const struct tm_lb_svc *svc, u64 *c);
u32 tm_lb_flow_hash(const struct in6_addr *client, const struct in6_addr *vip,
		    __be16 cport, __be16 vport);
struct tm_lflow *tm_lflow_find(struct tm_lb *lb, const struct tm_lb_svc *svc,
			       const struct in6_addr *client, __be16 cport,
			       __be16 vport);
struct tm_lflow *tm_lflow_add(struct tm_lb *lb, struct tm_lb_svc *svc,
			      const struct in6_addr *client, __be16 cport,
			      __be16 vport, u8 state, u32 tgen);
void tm_lflow_seen(struct tm_lflow *f);
bool tm_lb_candidate(const struct tm_lb_svc *svc,
		     const struct in6_addr *client, __be16 cport,
		     __be16 vport, const struct in6_addr *server, u32 tgen);
bool tm_lflow_learn(struct tm_lb *lb, struct tm_lflow *f,
		    const struct in6_addr *server);
void tm_lflow_closing(struct tm_lflow *f);
bool tm_lflow_steered(const struct tm_lflow *f);
void tm_lflow_confirm(struct tm_lb *lb, struct tm_lflow *f);
void tm_lflow_flush(struct tm_lb *lb, struct tm_lb_svc *svc);

/* lb_fwd.c: the load balancer's packet path */
unsigned int tm_lb_packet(struct tm_lb_svc *svc, struct sk_buff *skb,
			  const struct nf_hook_state *state);
unsigned int tm_lb_report_hook(void *priv, struct sk_buff *skb,
			       const struct nf_hook_state *state);

/* lb_nl.c: the load-balancer commands */
int tm_nl_lb_service_new(struct sk_buff *skb, struct genl_info *info);
int tm_nl_lb_service_del(struct sk_buff *skb, struct genl_info *info);
int tm_nl_lb_service_get(struct sk_buff *skb, struct genl_info *info);
int tm_nl_lb_service_dump(struct sk_buff *skb, struct netlink_callback *cb);
int tm_nl_lb_backend_new(struct sk_buff *skb, struct genl_info *info);
int tm_nl_lb_backend_del(struct sk_buff *skb, struct genl_info *info);
int tm_nl_lb_flow_dump(struct sk_buff *skb, struct netlink_callback *cb);
int tm_nl_lb_flow_flush(struct sk_buff *skb, struct genl_info *info);
void tm_lb_notify(struct net *net, const struct tm_lb_svc *svc,
		  const struct tm_lb_backend *b, u8 cmd, u64 generation);

/* sid_nl.c: the SID commands */
int tm_nl_sid_new(struct sk_buff *skb, struct genl_info *info);
int tm_nl_sid_set(struct sk_buff *skb, struct genl_info *info);
int tm_nl_sid_load(struct sk_buff *skb, struct genl_info *info);
int tm_nl_sid_del(struct sk_buff *skb, struct genl_info *info);
int tm_nl_sid_get(struct sk_buff *skb, struct genl_info *info);
int tm_nl_sid_dump(struct sk_buff *skb, struct netlink_callback *cb);
void tm_sid_notify(struct net *net, const struct tm_sid *sid, u8 cmd,
		   u64 generation);

/* genl.c */
extern struct genl_family tm_genl_family;
int __init tm_genl_init(void);
void tm_genl_exit(void);
void tm_genl_notify_table(struct net *net, const struct tm_table *t, u8 cmd,
			  u64 generation);
bool tm_genl_listening(struct net *net);
int tm_put_generation(struct sk_buff *skb, u64 generation);
void tm_genl_multicast(struct net *net, struct sk_buff *skb);
const char *tm_get_name(struct genl_info *info);

/* rule_nl.c: the rule, lookup, counter and transaction commands */
struct tm_txn *tm_nl_txn(struct tm_net *tn, struct genl_info *info);
struct tm_table *tm_nl_table(struct tm_net *tn, struct genl_info *info);
int tm_nl_rule_new(struct sk_buff *skb, struct genl_info *info);
int tm_nl_rule_set(struct sk_buff *skb, struct genl_info *info);
int tm_nl_rule_del(struct sk_buff *skb, struct genl_info *info);
int tm_nl_rule_get(struct sk_buff *skb, struct genl_info *info);
int tm_nl_rule_dump_start(struct netlink_callback *cb);
int tm_nl_rule_dump(struct sk_buff *skb, struct netlink_callback *cb);
int tm_nl_rule_dump_done(struct netlink_callback *cb);
int tm_nl_rule_lookup(struct sk_buff *skb, struct genl_info *info);
int tm_nl_counters_reset(struct sk_buff *skb, struct genl_info *info);
int tm_nl_txn_begin(struct sk_buff *skb, struct genl_info *info);
int tm_nl_txn_commit(struct sk_buff *skb, struct genl_info *info);
int tm_nl_txn_abort(struct sk_buff *skb, struct genl_info *info);
void tm_nl_notify_commit(struct net *net, const struct tm_table *t, u32 ops,
			 u64 generation);

#endif /* _TM_H */
