// SPDX-License-Identifier: GPL-2.0
/*
 * Tables: the named containers of rules in a network namespace.  This file
 * owns their life cycle (create, find, delete, flush on namespace exit) and
 * the namespace limits on them.  Every change runs under tm_net.lock, bumps
 * the namespace generation and is announced on the events group.
 */
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "tm.h"

static struct kmem_cache *tm_table_cache __read_mostly;

struct tm_table *tm_table_find(struct tm_net *tn, const char *name)
{
	struct tm_table *t;

	list_for_each_entry_rcu(t, &tn->tables, list,
				lockdep_is_held(&tn->lock)) {
		if (!strcmp(t->name, name))
			return t;
	}
	return NULL;
}

u32 tm_table_rules(const struct tm_table *t)
{
	return t->rules.nrules;
}

/* The rules of @t changed. */
void tm_table_changed(struct tm_net *tn, struct tm_table *t)
{
	lockdep_assert_held(&tn->lock);
	tn->generation++;
}

static void tm_table_free(struct tm_table *t)
{
	free_percpu(t->stats);
	kmem_cache_free(tm_table_cache, t);
}

int tm_table_add(struct net *net, const struct tm_table_cfg *cfg,
		 struct netlink_ext_ack *extack)
{
	struct tm_net *tn = tm_net(net);
	struct tm_table *t;
	int cpu, err = 0;

	mutex_lock(&tn->lock);
	if (tm_table_find(tn, cfg->name)) {
		NL_SET_ERR_MSG(extack, "A table with this name already exists");
		err = -EEXIST;
		goto out;
	}
	if (tn->ntables >= TM_MAX_TABLES_PER_NET) {
		NL_SET_ERR_MSG(extack, "Too many tables in this network namespace");
		err = -ENOSPC;
		goto out;
	}
	t = kmem_cache_zalloc(tm_table_cache, GFP_KERNEL_ACCOUNT);
	if (!t) {
		err = -ENOMEM;
		goto out;
	}
	strscpy(t->name, cfg->name, sizeof(t->name));
	t->family = cfg->family;
	t->hook = cfg->hook;
	t->policy = cfg->policy;
	t->engine = cfg->engine;
	t->collide = cfg->collide;
	t->priority = cfg->priority;
	t->max_rules = cfg->max_rules;
	t->max_tuples = cfg->max_tuples;
	t->stats = alloc_percpu_gfp(struct tm_tstats, GFP_KERNEL_ACCOUNT);
	t->rules.cls = tm_rules_cls_new(t);
	if (!t->stats || !t->rules.cls) {
		if (t->rules.cls)
			tm_cls_destroy(t->rules.cls);
		tm_table_free(t);
		err = -ENOMEM;
		goto out;
	}
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(t->stats, cpu)->syncp);
	RCU_INIT_POINTER(t->cls, t->rules.cls);
	err = tm_hook_register(net, t);
	if (err) {
		NL_SET_ERR_MSG(extack, "Cannot attach the table to its netfilter hook");
		tm_cls_destroy(t->rules.cls);
		tm_table_free(t);
		goto out;
	}
	t->handle = tn->next_handle++;
	list_add_tail_rcu(&t->list, &tn->tables);
	tn->ntables++;
	tn->generation++;
	tm_genl_notify_table(net, t, TM_CMD_TABLE_NEW, tn->generation);
out:
	mutex_unlock(&tn->lock);
	return err;
}

static void tm_table_free_rcu(struct rcu_head *head)
{
	tm_table_free(container_of(head, struct tm_table, rcu));
}

/*
 * Detach @t from netfilter and from the list, then free it once no packet
 * and no reader can see it any more.
 */
static void tm_table_unlink(struct net *net, struct tm_net *tn,
			    struct tm_table *t)
{
	lockdep_assert_held(&tn->lock);
	tm_txn_table_gone(t);
	tm_hook_unregister(net, t);
	list_del_rcu(&t->list);
	tn->ntables--;
	tm_rules_release(&t->rules);
	call_rcu(&t->rcu, tm_table_free_rcu);
}

int tm_table_del(struct net *net, const char *name,
		 struct netlink_ext_ack *extack)
{
	struct tm_net *tn = tm_net(net);
	struct tm_table *t;
	int err = 0;

	mutex_lock(&tn->lock);
	t = tm_table_find(tn, name);
	if (!t) {
		NL_SET_ERR_MSG(extack, "No table with this name");
		err = -ENOENT;
		goto out;
	}
	tn->generation++;
	tm_genl_notify_table(net, t, TM_CMD_TABLE_DEL, tn->generation);
	tm_table_unlink(net, tn, t);
out:
	mutex_unlock(&tn->lock);
	return err;
}

/* Drop every table of a dying namespace.  No event: nobody can listen. */
void tm_table_flush(struct net *net, struct tm_net *tn)
{
	struct tm_table *t, *tmp;

	tm_txn_flush(tn);
	list_for_each_entry_safe(t, tmp, &tn->tables, list)
		tm_table_unlink(net, tn, t);
	tn->generation++;
}

int tm_table_init(void)
{
	tm_table_cache = KMEM_CACHE(tm_table, 0);
	return tm_table_cache ? 0 : -ENOMEM;
}

void tm_table_exit(void)
{
	/* Wait for the tables still queued by call_rcu(). */
	rcu_barrier();
	kmem_cache_destroy(tm_table_cache);
}
