// SPDX-License-Identifier: GPL-2.0
/*
 * Per network namespace state: every object of the module hangs off the
 * struct tm_net of its namespace, created when the namespace (or the module)
 * comes up and torn down, with all its objects, when the namespace dies or
 * the module is unloaded.
 */
#include <linux/mutex.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "tm.h"

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
	return 0;
}

static void __net_exit tm_net_exit(struct net *net)
{
	struct tm_net *tn = tm_net(net);

	mutex_lock(&tn->lock);
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
