/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SRv6 load balancing (6LB/SRLB): the load balancer and the servers.
 *
 * The load balancer (lb.c, lb_fwd.c) owns the services (struct tm_lb_svc),
 * their backends and Maglev tables (tm_maglev.c, struct tm_lb_tab), and the
 * flows it steers (struct tm_lflow): a rule's `lb` action hands it a
 * packet for a VIP; a new connection hunts through the candidate servers
 * of its table row in an SRH, and the servers' reports (lb_fwd.c) tell it
 * which one took it.
 *
 * A server (sid.c) owns its connection-acceptance SIDs (struct tm_sid) and
 * the connections they accepted (struct tm_sflow): accept.c takes or
 * passes on a hunting SYN at LOCAL_IN, reply.c reports to the load
 * balancer.  srh.c inserts, checks and removes SRHs for both sides.
 *
 * Locking: the configuration (SIDs, services, backends, tables) changes
 * under tm_net.lock; the packet path reads it under RCU.  The flows of
 * each side are under their own spinlock (tm_sids.flock, tm_lb.flock),
 * taken by the packet path, the aging work and the writers.
 */
#ifndef _TM_SRV6_H
#define _TM_SRV6_H

#include <linux/in6.h>
#include <linux/list.h>
#include <linux/netfilter.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/rhashtable.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <net/ipv6.h>
#include <uapi/linux/seg6.h>
#include <uapi/linux/tuplemerge.h>

struct mem_cgroup;
struct net;
struct netlink_ext_ack;
struct sk_buff;
struct tcphdr;
struct tm_net;
struct tm_txn;

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

/**
 * struct tm_sid_timeouts - how long a server remembers a connection, in
 * seconds (the attributes TM_A_SID_*_TIMEOUT)
 * @idle: without a packet, once its socket is gone
 * @close: after it closed
 * @syn: while its handshake counts towards the policy
 * @udp: a UDP flow without a datagram
 */
struct tm_sid_timeouts {
	u32 idle, close, syn, udp;
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
 * @to: its connections' timeouts (read by the aging without a lock)
 * @dyn: the threshold of TM_SID_POLICY_DYN, in 1/65536 of a connection
 *	(accept.c)
 * @stats: per-CPU counters
 * @dead: unbound; no connection may be added (set and read under
 *	tm_sids.flock)
 * @flows: the connections it accepted (tm_sids.flock)
 * @txn: the open transaction that creates, changes or deletes the SID at
 *	its commit (@txn_op), or NULL; one at a time
 * @txn_node: in @txn's list of SIDs
 * @txn_op: enum tm_txn_op; a SID @txn creates is in no hash until then
 * @txn_changed: the commit changes the policy (TM_TXN_SET)
 * @txn_policy: the policy TM_TXN_SET gives it
 * @txn_threshold: its threshold
 * @txn_hmac: its HMAC key id
 * @txn_to: its timeouts
 */
struct tm_sid {
	struct hlist_node node;
	struct rcu_head rcu;
	struct in6_addr addr;
	u8 policy;
	u32 threshold;
	u32 load;
	u32 hmac;
	struct tm_sid_timeouts to;
	atomic_t dyn;
	atomic_t conns;
	struct tm_sid_stats __percpu *stats;
	bool dead;
	struct list_head flows;
	struct tm_txn *txn;
	struct list_head txn_node;
	u8 txn_op;
	bool txn_changed;
	u8 txn_policy;
	u32 txn_threshold;
	u32 txn_hmac;
	struct tm_sid_timeouts txn_to;
};

/**
 * struct tm_sflow_key - what a server's connection table finds one by
 * (hashed up to @proto, no padding before it)
 * @client: the client's address
 * @vip: the address the client connected to
 * @cport: the client's port
 * @vport: the port the client connected to
 * @proto: IPPROTO_TCP or IPPROTO_UDP
 */
struct tm_sflow_key {
	struct in6_addr client, vip;
	__be16 cport, vport;
	u8 proto;
};

/**
 * struct tm_sflow - a connection this server accepted (sid.c)
 * @node: in tm_sids.flows (RCU; writers hold tm_sids.flock)
 * @rcu: deferred free
 * @key: its addresses and ports
 * @sid_node: in @sid's flows (tm_sids.flock)
 * @sid: the SID that accepted it
 * @dif: the device its SYN came in by (for the socket lookup)
 * @born: jiffies of its SYN
 * @last: jiffies of its last packet
 * @flags: TM_SFLOW_CLOSING once it ended, TM_SFLOW_UNCOUNTED while it
 *	does not count towards its SID's conns (closed, or a handshake
 *	older than its SID's syn timeout), TM_SFLOW_REPORT while the replies
 *	go through @lb, TM_SFLOW_EST once its socket was seen established
 *	(UDP: once its client sent a datagram after an answer),
 *	TM_SFLOW_ANSWERED once a UDP flow's server answered it,
 *	TM_SFLOW_CHECK while a client's FIN or RST waits for the aging to
 *	ask the socket, TM_SFLOW_GONE once unlinked (under tm_sids.flock)
 * @lock: guards @lb, and the changes of CLOSING and UNCOUNTED
 * @lb: the load balancer's SID the replies report to (reply.c): set by
 *	the SYN, changed only by a RECOVER the connection's socket accepts
 */
struct tm_sflow {
	struct rhash_head node;
	struct rcu_head rcu;
	struct tm_sflow_key key;
	struct list_head sid_node;
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
#define TM_SFLOW_GONE		5	/* unlinked */
#define TM_SFLOW_ANSWERED	6	/* UDP: the server replied */

#define TM_SID_BUCKETS		64

/* The server side of SRv6 load balancing in a namespace (sid.c). */
struct tm_sids {
	struct hlist_head hash[TM_SID_BUCKETS];
	u32 n;
	u32 npending;			/* open transactions create these */
	bool hooked;
	struct nf_hook_ops ops[2];	/* accept.c, reply.c */
	spinlock_t flock;		/* writers of the flows */
	struct rhashtable flows;	/* from the first hook to netns exit */
	bool flows_ready;		/* @flows initialized */
	u32 nflows;
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
 * struct tm_lb_bk - the figures of a backend, kept across the tables that
 * have it (lb.c)
 * @ref: one per table (struct tm_lb_tab) and per flow learned to it
 * @rcu: deferred free: the packet path takes a reference from a table
 *	it reads under RCU (refcount_inc_not_zero())
 * @active: flows whose server it is that the load balancer remembers
 * @learned: flows whose server it became
 * @forced: of those, flows it took as their last candidate
 * @hc_lock: guards @hc_cookie and @hc_answer, between the health work
 *	and the answers (health.c)
 * @hc_cookie: of the probe awaiting its answer, 0: none
 * @hc_answer: its answer: 0 none yet, else 1 + enum tm_lb_health_why
 * @down: the health checks took it out of the rows (tm_net.lock)
 * @why: why its last failed probe failed, enum tm_lb_health_why
 * @run: probes in a row that disagreed with @down
 * @probes: probes sent, likewise under tm_net.lock
 * @failed: probes that failed
 * @transitions: times it went down or up
 */
struct tm_lb_bk {
	refcount_t ref;
	struct rcu_head rcu;
	atomic_t active;
	atomic64_t learned;
	atomic64_t forced;
	spinlock_t hc_lock;	/* @hc_cookie, @hc_answer */
	u64 hc_cookie;
	u8 hc_answer;
	bool down;
	u8 why;
	u32 run;
	u64 probes, failed, transitions;
};

/**
 * struct tm_lb_hit - where a server stands among a flow's candidates
 * (tm_lb_candidate())
 * @bk: its figures
 * @last: it is the last candidate of the flow's row: it had to take it
 */
struct tm_lb_hit {
	struct tm_lb_bk *bk;
	bool last;
};

/**
 * struct tm_lb_tab - what the packet path reads of a service's backends,
 * rebuilt and replaced whole when they change (lb.c)
 * @rcu: deferred free
 * @n: backends
 * @k: candidates per row (the service's choices)
 * @size: rows
 * @sids: the backends' SIDs, indexed by the rows
 * @bk: the backends' figures, likewise (a reference each)
 * @rows: @size rows of @k indexes into @sids (TM_MAGLEV_NONE: none)
 * @gen: which of the service's tables this is (tm_lb_svc.tab_gen)
 */
struct tm_lb_tab {
	struct rcu_head rcu;
	u32 n, k, size;
	u32 gen;
	struct in6_addr *sids;
	struct tm_lb_bk **bk;
	u16 *rows;
};

/**
 * struct tm_lb_hc - a service's health checks (health.c)
 * @interval: milliseconds between probes, 0: none
 * @timeout: milliseconds a probe waits for its answer, at most @interval
 * @rise: answers in a row that bring a backend up
 * @fall: failures in a row that take it down
 * @listener: the servers check a listener on the VIP and port
 */
struct tm_lb_hc {
	u32 interval, timeout;
	u32 rise, fall;
	bool listener;
};

/**
 * struct tm_lb_svc - a load-balancer service (lb.c)
 * @list: in tm_lb.svcs (writers, under tm_net.lock)
 * @sid_node: in tm_lb.sid_hash by @sid (RCU)
 * @rcu: deferred free
 * @ref: one for the namespace, one per tm_krule naming it
 * @name: NUL-terminated, unique in the namespace
 * @vip: the address it serves, or the first of its prefix
 * @vip_len: its prefix length, 128: one address
 * @proto: the protocol it serves
 * @port: the port it serves, 0: any
 * @sid: the load balancer's SID, where servers report
 * @k: choices
 * @affinity: enum tm_lb_affinity, what picks a flow's row
 * @size: rows of its table
 * @max_flows: flows it remembers, at most
 * @idle: timeout of an established flow, seconds
 * @fin: timeout of a closing flow, seconds
 * @syn: timeout of a flow with no server yet, seconds
 * @hmac: seg6 HMAC key id its SRHs are signed with and its reports
 *	checked against, 0: none
 * @health: its health checks
 * @net: its namespace, for the health work
 * @hc_work: sends the probes and judges the answers (health.c)
 * @hc_next: jiffies of the next probes (tm_net.lock)
 * @hc_due: jiffies the probes sent wait for their answers until, 0: none
 *	waits (tm_net.lock)
 * @hc_stale: the table does not show a backend's health yet (it could
 *	not be built): the health work tries again
 * @backends: configuration (writers)
 * @nbackends: entries of @backends
 * @tab: the published table, NULL without backends
 * @nflows: flows it remembers now (changed under tm_lb.flock)
 * @flows: the flows it remembers, oldest first (tm_lb.flock)
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
 * @txn_backends: the backends TM_TXN_SET gives it
 * @txn_nbackends: entries of @txn_backends
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
	u8 vip_len;
	u8 proto;
	__be16 port;
	struct in6_addr sid;
	u8 k;
	u8 affinity;
	u32 size;
	u32 max_flows;
	u32 idle, fin, syn;
	u32 hmac;
	struct tm_lb_hc health;
	struct net *net;
	struct delayed_work hc_work;
	unsigned long hc_next, hc_due;
	bool hc_stale;
	struct tm_lb_backend *backends;
	u32 nbackends;
	struct tm_lb_tab __rcu *tab;
	atomic_t nflows;
	struct list_head flows;
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
 * struct tm_lb_conn - a connection as the load balancer sees it
 * @client: the client's address
 * @vip: the address the client connected to: the service's VIP, or one
 *	of its prefix
 * @cport: the client's port
 * @vport: the port the client connected to
 */
struct tm_lb_conn {
	struct in6_addr client, vip;
	__be16 cport, vport;
};

/**
 * struct tm_lflow_key - what the load balancer's flow table finds a flow by
 * (hashed up to @c.vport, not the padding after it)
 * @svc: its service
 * @c: its addresses and ports
 */
struct tm_lflow_key {
	struct tm_lb_svc *svc;
	struct tm_lb_conn c;
};

/**
 * struct tm_lflow - a connection the load balancer knows (lb.c)
 * @node: in tm_lb.flows (RCU; writers hold tm_lb.flock)
 * @rcu: deferred free
 * @key: its service, addresses and ports
 * @state: enum tm_lb_flow_state
 * @dead: unlinked (under tm_lb.flock): a report found it too late
 * @halfopen: on @svc_lru and @ns_lru (under tm_lb.flock): no server yet,
 *	or no packet of the client since (the handshake not done)
 * @tgen: the tm_lb_tab.gen it hunted with
 * @server: the accepting server's SID, set once (before @state becomes
 *	STEER, under tm_lb.flock)
 * @bk: the figures of @server as a backend, with a reference, or NULL
 *	(under tm_lb.flock)
 * @svc_lru: while @halfopen, in tm_lb_svc.halfopen, oldest first: the
 *	first evicted (tm_lb.flock)
 * @ns_lru: while @halfopen, in tm_lb.halfopen, likewise
 * @svc_node: in its service's flows (tm_lb.flock)
 * @last: jiffies of its last packet
 */
struct tm_lflow {
	struct rhash_head node;
	struct rcu_head rcu;
	struct tm_lflow_key key;
	u8 state;
	u8 dead;
	u8 halfopen;
	u32 tgen;
	struct in6_addr server;
	struct tm_lb_bk *bk;
	struct list_head svc_lru, ns_lru;
	struct list_head svc_node;
	unsigned long last;
};

/* The load-balancer side of SRv6 load balancing in a namespace (lb.c). */
struct tm_lb {
	struct list_head svcs;
	u32 nsvcs;
	u32 npending;			/* open transactions create these */
	struct hlist_head sid_hash[TM_SID_BUCKETS];
	bool hooked;
	struct nf_hook_ops ops;		/* the reports, lb_fwd.c */
	spinlock_t flock;		/* writers of the flows */
	struct rhashtable flows;	/* from the first hook to netns exit */
	bool flows_ready;		/* @flows initialized */
	struct list_head halfopen;	/* flows with no server, oldest first */
	u32 nflows;			/* every service's, under flock */
	struct delayed_work gc;
};

/**
 * tm_flows_walk - call @age on each flow of @ht, for the ageing works
 * @ht: the flow table of either side (tm_lb.flows, tm_sids.flows)
 * @age: takes the side's lock itself to forget a flow
 * @arg: passed to @age with each flow
 *
 * One walk under RCU, the CPU given up every 1024 flows (a table holds
 * millions).  A resize during the walk may show a flow twice or hide it
 * until the next walk.  Inline: @age is a direct call.
 */
static inline void tm_flows_walk(struct rhashtable *ht,
				 void (*age)(void *obj, void *arg), void *arg)
{
	struct rhashtable_iter iter;
	unsigned int n = 0;
	void *obj;

	rhashtable_walk_enter(ht, &iter);
	rhashtable_walk_start(&iter);
	while ((obj = rhashtable_walk_next(&iter))) {
		if (IS_ERR(obj))
			continue;
		age(obj, arg);
		if (!(++n % 1024)) {
			rhashtable_walk_stop(&iter);
			cond_resched();
			rhashtable_walk_start(&iter);
		}
	}
	rhashtable_walk_stop(&iter);
	rhashtable_walk_exit(&iter);
}

/* sid.c: connection-acceptance SIDs and the connections they accepted */
/**
 * struct tm_sid_cfg - a SID binding request
 * @addr: the SID
 * @policy: TM_SID_POLICY_*
 * @threshold: of the conns, backlog and load policies
 * @hmac: seg6 HMAC key id, 0: none
 * @to: the timeouts of its connections
 * @global_ok: the caller may switch global state on: CAP_NET_ADMIN in the
 *	initial user namespace (the first SID turns nf_hooks_lwtunnel_enabled
 *	on for every namespace, for good)
 */
struct tm_sid_cfg {
	struct in6_addr addr;
	u8 policy;
	u32 threshold;
	u32 hmac;
	struct tm_sid_timeouts to;
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
struct tm_sflow *tm_sflow_find(struct tm_sids *s, u8 proto,
			       const struct in6_addr *client,
			       const struct in6_addr *vip, __be16 cport,
			       __be16 vport);
struct tm_sflow *tm_sflow_add(struct tm_sids *s, struct tm_sid *sid, u8 proto,
			      const struct in6_addr *client,
			      const struct in6_addr *vip, __be16 cport,
			      __be16 vport, u16 tag, const struct in6_addr *lb,
			      int dif);
void tm_sflow_seen(struct tm_sflow *f, bool check);
void tm_sflow_close(struct tm_sflow *f);
void tm_sflow_answered(struct tm_sflow *f);
void tm_sflow_confirm(struct tm_sflow *f);
bool tm_sflow_reused(struct net *net, struct tm_sids *s, struct tm_sflow *f);
void tm_sflow_lb(struct net *net, struct tm_sflow *f, u16 tag,
		 const struct in6_addr *lb, const struct tcphdr *th);

/* srh.c: inserting and removing SRHs */
/*
 * Longest SRH handled: the VIP, the LB SID and the candidates of a UDP
 * hunt (lb_fwd.c), which visits all but the first twice.
 */
#define TM_SRH_MAX_SEGS		(1 + 2 * TM_LB_MAX_CHOICES)
/* An RFC 8754 HMAC TLV: type, length, reserved, key id, 32 bytes. */
#define TM_SRH_HMAC_LEN		40
/* Longest SRH with an HMAC TLV: what the kernel's HMAC text holds (srh.c). */
#define TM_SRH_HMAC_MAX_SEGS	14
/* A UDP hunt has 1 + 2 k segments (lb_nl.c's message says 6). */
#define TM_LB_UDP_HMAC_MAX_CHOICES	6
int tm_srh_push(struct sk_buff *skb, struct net *net,
		const struct in6_addr *segs, unsigned int n, u16 tag, u32 hmac);
int tm_srh_pop(struct sk_buff *skb, unsigned int srhlen,
	       const struct in6_addr *daddr);
const struct ipv6_sr_hdr *tm_srh_get(struct sk_buff *skb, unsigned int extra,
				     bool *bad);
const struct tm_srlb_probe *tm_srh_probe(struct sk_buff *skb, u8 sl,
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
	u8 vip_len, proto, k, affinity;
	__be16 port;
	u32 size, max_flows, idle, fin, syn;
	u32 hmac;
	struct tm_lb_hc health;
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
int tm_lb_backend_weight(struct tm_lb_svc *svc, const struct in6_addr *sid,
			 u32 weight, struct tm_txn *txn,
			 struct netlink_ext_ack *extack);
int tm_lb_txn_prepare(struct tm_txn *txn, struct netlink_ext_ack *extack);
void tm_lb_txn_switch(struct tm_net *tn, struct tm_txn *txn, bool link);
void tm_lb_txn_announce(struct net *net, struct tm_net *tn,
			struct tm_txn *txn);
void tm_lb_txn_end(struct net *net, struct tm_net *tn, struct tm_txn *txn,
		   bool committed);
void tm_lb_count(struct tm_lb_svc *svc, enum tm_lbc c);
void tm_lb_read(const struct tm_lb_svc *svc, u64 *c);
struct tm_lflow *tm_lflow_find(struct tm_lb *lb, struct tm_lb_svc *svc,
			       const struct tm_lb_conn *c);
struct tm_lflow *tm_lflow_add(struct tm_lb *lb, struct tm_lb_svc *svc,
			      const struct tm_lb_conn *c, u8 state, u32 tgen);
void tm_lflow_seen(struct tm_lflow *f);
const u16 *tm_lb_row(const struct tm_lb_svc *svc, const struct tm_lb_tab *tab,
		     const struct tm_lb_conn *c);
bool tm_lb_candidate(const struct tm_lb_svc *svc, const struct tm_lb_conn *c,
		     const struct in6_addr *server, u32 tgen,
		     struct tm_lb_hit *hit);

/* Is @a the VIP of @svc, or in its prefix? */
static inline bool tm_lb_svc_vip(const struct tm_lb_svc *svc,
				 const struct in6_addr *a)
{
	return ipv6_prefix_equal(a, &svc->vip, svc->vip_len);
}

bool tm_lflow_learn(struct tm_lb *lb, struct tm_lflow *f,
		    const struct in6_addr *server,
		    const struct tm_lb_hit *hit);
void tm_lflow_closing(struct tm_lflow *f);
void tm_lflow_forget(struct tm_lb *lb, struct tm_lflow *f);
bool tm_lflow_steered(const struct tm_lflow *f);
void tm_lflow_confirm(struct tm_lb *lb, struct tm_lflow *f);
void tm_lflow_flush(struct tm_lb *lb, struct tm_lb_svc *svc);
int tm_lb_tab_rebuild(struct tm_lb_svc *svc);

/* health.c: the load balancer's health checks of its backends */
void tm_lb_health_work(struct work_struct *work);
void tm_lb_health_start(struct tm_lb_svc *svc);
void tm_lb_health_stop(struct tm_lb_svc *svc);
unsigned int tm_lb_probe_rcv(struct net *net, struct tm_lb_svc *svc,
			     struct sk_buff *skb);

/* lb_fwd.c: the load balancer's packet path */
unsigned int tm_lb_packet(struct tm_lb_svc *svc, struct sk_buff *skb,
			  const struct nf_hook_state *state);
unsigned int tm_lb_report_hook(void *priv, struct sk_buff *skb,
			       const struct nf_hook_state *state);

#endif /* _TM_SRV6_H */
