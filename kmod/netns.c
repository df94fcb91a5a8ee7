// SPDX-License-Identifier: GPL-2.0
/*
 * Per network namespace state: every object of the module hangs off the
 * struct tm_net of its namespace, created when the namespace (or the module)
 * comes up and torn down, with all its objects, when the namespace dies or
 * the module is unloaded.
 */
#include <linux/memcontrol.h>
#include <linux/mutex.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "netns.h"
#include "txn.h"

static unsigned int tm_net_id __read_mostly;

struct tm_net *tm_net(const struct net *net)
{
	return net_generic(net, tm_net_id);
}

static int __net_init tm_net_init(struct net *net)
{
	struct tm_net *tn = tm_net(net);

	mutex_init(&tn->lock);
	INIT_LIST_HEAD(&tn->tables);
	INIT_LIST_HEAD(&tn->txns);
	tn->ntables = 0;
	tn->ntxns = 0;
	tn->next_txn = 0;
	tn->next_handle = 1;
	tn->generation = 0;
	tm_sids_init(&tn->sids);
	tm_lb_init(&tn->lb);
	ratelimit_state_init(&tn->trace_rs, HZ, TM_TRACE_RATE);
	ratelimit_set_flags(&tn->trace_rs, RATELIMIT_MSG_ON_RELEASE);
	atomic64_set(&tn->trace_missed, 0);
	return 0;
}

static void __net_exit tm_net_exit(struct net *net)
{
	struct tm_net *tn = tm_net(net);

	mutex_lock(&tn->lock);
	/* Open transactions first: they hold SIDs, services and tables. */
	tm_txn_flush(net, tn);
	tm_sids_flush(net, tn);
#ifndef TM_FAULT_LEAK_NETNS
	tm_table_flush(net, tn);
#else
	/* Injected fault: forget the tables; the runner must catch the leak. */
	INIT_LIST_HEAD(&tn->tables);
	tn->ntables = 0;
#endif
	/* After the tables: no rule's packet reaches a service any more. */
	tm_lb_flush(net, tn);
	mutex_unlock(&tn->lock);
	WARN_ON_ONCE(!list_empty(&tn->tables) || tn->ntables);
	WARN_ON_ONCE(tn->sids.npending || tn->lb.npending);
	mutex_destroy(&tn->lock);
}

static struct pernet_operations tm_net_ops = {
	.init = tm_net_init,
	.exit = tm_net_exit,
	.id = &tm_net_id,
	.size = sizeof(struct tm_net),
};

int tm_netns_init(void)
{
	return register_pernet_subsys(&tm_net_ops);
}

void tm_netns_exit(void)
{
	unregister_pernet_subsys(&tm_net_ops);
}

/**
 * tm_memcg_owner() - the memory cgroup of the task configuring an object
 *
 * The packet path allocates in softirq (flows of a service or a SID), where
 * no task can be charged.  Such memory is charged to the memory cgroup of
 * the task that created the object the packet path allocates for, taken
 * here with a reference that tm_memcg_put() drops.
 *
 * Return: the memory cgroup, or NULL without memory cgroups.
 */
struct mem_cgroup *tm_memcg_owner(void)
{
	return get_mem_cgroup_from_mm(current->mm);
}

void tm_memcg_put(struct mem_cgroup *memcg)
{
	mem_cgroup_put(memcg);
}

/**
 * tm_zalloc_charged() - zeroed memory in any context, charged to @memcg
 * @size: bytes
 * @memcg: from tm_memcg_owner()
 *
 * Never dips into the atomic reserves and fails, instead of going over the
 * limit, once @memcg is at its memory.max: GFP_ATOMIC would force the charge
 * (__GFP_HIGH), letting a user pin kernel memory beyond its cgroup.
 *
 * Return: the memory, or NULL.
 */
void *tm_zalloc_charged(size_t size, struct mem_cgroup *memcg)
{
	struct mem_cgroup *old = set_active_memcg(memcg);
	void *p = kzalloc(size, GFP_NOWAIT | __GFP_NOWARN | __GFP_ACCOUNT);

	set_active_memcg(old);
	return p;
}
