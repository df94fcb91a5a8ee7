/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The namespace (netns.c): every object of tuplemerge.ko belongs to the
 * struct tm_net of a network namespace, and the namespace's lock is the
 * one lock of the configuration.
 *
 * Where things live
 *
 *   netns.h, netns.c	the namespace: its lock, its generation, memory
 *			charged to a cgroup
 *   txn.h, txn.c	transactions over every kind of object
 *   classifier/	tables, rules, their counters and netfilter hooks
 *   core/		the classification core (TupleMerge, TSS, linear),
 *			plain C shared with userspace
 *   srv6/		the SRv6 load balancer (lb*.c) and the servers'
 *			connection-acceptance SIDs (sid.c, accept.c,
 *			reply.c), with srh.c and the Maglev table
 *   netlink/		the generic netlink family: genl.c defines it, one
 *			*_nl.c per kind of object
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
 *     lb: load-balancer services (struct tm_lb_svc) and the flows they
 *       steer (struct tm_lflow)
 *
 * Locking
 *
 * tm_net.lock serialises every change of a namespace's configuration: the
 * netlink layer and the namespace's teardown take it, and the code of the
 * objects expects it held (lockdep_assert_held(), tm_net_changed()).  The
 * packet path takes no mutex: it reads under RCU what the writers publish
 * with rcu_assign_pointer() and frees after a grace period.  The flow
 * tables of srv6/ have their own spinlocks (tm_sids.flock, tm_lb.flock),
 * taken by the packet path and by the writers under tm_net.lock.
 */
#ifndef _TM_NETNS_H
#define _TM_NETNS_H

#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/ratelimit.h>
#include <linux/types.h>
#include <net/net_namespace.h>

#include "srv6/srv6.h"

struct mem_cgroup;

/**
 * struct tm_net - per network namespace state
 * @lock: serialises every change in this namespace (one writer at a time)
 * @tables: the namespace's tables, ordered by handle, RCU-safe for readers
 * @ntables: number of entries in @tables
 * @next_handle: handle of the next table created
 * @generation: moved by every change (tm_net_changed()); reported to
 *	userspace, and a dump that sees it move is flagged interrupted
 * @txns: open transactions (struct tm_txn)
 * @ntxns: entries in @txns
 * @next_txn: id of the next transaction
 * @sids: the server side of SRv6 load balancing (srv6/sid.c)
 * @lb: the load-balancer side (srv6/lb.c)
 * @trace_rs: the rate limit of trace events (tm_nl_trace())
 * @trace_missed: trace events the rate limit or memory dropped since the
 *	last one sent
 *
 * Every field but the trace ones, which packets touch, is written under
 * @lock.
 */
struct tm_net {
	struct mutex lock;	/* every field below */
	struct list_head tables;
	u32 ntables;
	u32 next_handle;
	u64 generation;
	struct list_head txns;
	u32 ntxns;
	u32 next_txn;
	struct tm_sids sids;
	struct tm_lb lb;
	struct ratelimit_state trace_rs;
	atomic64_t trace_missed;
};

int tm_netns_init(void);
void tm_netns_exit(void);
struct tm_net *tm_net(const struct net *net);
struct mem_cgroup *tm_memcg_owner(void);
void tm_memcg_put(struct mem_cgroup *memcg);
void *tm_zalloc_charged(size_t size, struct mem_cgroup *memcg);

/**
 * tm_net_changed() - the configuration of @tn changed
 * @tn: the namespace, locked
 *
 * Every change that userspace can see moves the generation once, and its
 * event carries the new value.
 *
 * Return: the new generation.
 */
static inline u64 tm_net_changed(struct tm_net *tn)
{
	lockdep_assert_held(&tn->lock);
	return ++tn->generation;
}

#endif /* _TM_NETNS_H */
