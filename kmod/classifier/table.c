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

#include "netns.h"
#include "txn.h"
#include "netlink/genl.h"

static struct kmem_cache *tm_table_cache __read_mostly;

/*
 * The table @name as transaction @txn sees it, or as everyone sees it when
 * @txn is NULL: a table @txn creates is there, one it deletes is gone, and
 * one another transaction creates is nobody else's until that commits.
 */
struct tm_table *tm_table_find_txn(struct tm_net *tn, const char *name,
				   const struct tm_txn *txn)
{
	struct tm_table *t;

	list_for_each_entry(t, &tn->tables, list) {
		if (!strcmp(t->name, name) && tm_table_visible(t, txn))
			return t;
	}
	return NULL;
}

/* Transaction @txn (NULL: everyone) sees @t: see tm_table_find_txn(). */
bool tm_table_visible(const struct tm_table *t, const struct tm_txn *txn)
{
	return t->txn_new ? t->txn_new == txn : !txn || t->txn_del != txn;
}

struct tm_table *tm_table_find(struct tm_net *tn, const char *name)
{
	lockdep_assert_held(&tn->lock);
	return tm_table_find_txn(tn, name, NULL);
}

/* Another transaction than @txn is creating a table called @name. */
static bool tm_table_name_reserved(struct tm_net *tn, const char *name,
				   const struct tm_txn *txn)
{
	struct tm_table *t;

	list_for_each_entry(t, &tn->tables, list) {
		if (t->txn_new && t->txn_new != txn && !strcmp(t->name, name))
			return true;
	}
	return false;
}

/* The tables everyone sees: not those open transactions create. */
u32 tm_tables_visible(struct tm_net *tn)
{
	struct tm_table *t;
	u32 n = 0;

	lockdep_assert_held(&tn->lock);
	list_for_each_entry(t, &tn->tables, list)
		n += !t->txn_new;
	return n;
}

static int tm_names_svc(struct tm_krule *kr, const struct tm_rule *r,
			void *svc)
{
	return kr->svc == svc;
}

/*
 * A rule of the tables transaction @txn sees, as it sees them, names
 * @svc.  A walk of their rules, but for a service no rule names at all.
 */
bool tm_tables_use_svc(struct tm_net *tn, const struct tm_lb_svc *svc,
		       const struct tm_txn *txn)
{
	const struct tm_ruleset *rs;
	struct tm_table *t;

	lockdep_assert_held(&tn->lock);
	if (refcount_read(&svc->ref) == 1)
		return false;
	list_for_each_entry(t, &tn->tables, list) {
		if (!tm_table_visible(t, txn))
			continue;
		rs = t->shadow && t->shadow->txn == txn ? &t->shadow->rules :
							  &t->rules;
		if (tm_rules_for_each(rs, tm_names_svc, (void *)svc))
			return true;
		cond_resched();
	}
	return false;
}

u32 tm_table_rules(const struct tm_table *t)
{
	return t->rules.nrules;
}

static void tm_table_free(struct tm_table *t)
{
	free_percpu(t->stats);
	kmem_cache_free(tm_table_cache, t);
}

/*
 * Create a table, hooked and live, or, for transaction @txn, hooked but
 * letting every packet through and seen by @txn alone until the commit.
 * A transaction may go past the limit by the tables it deletes.
 */
int tm_table_add(struct net *net, const struct tm_table_cfg *cfg,
		 struct tm_txn *txn, struct netlink_ext_ack *extack)
{
	struct tm_net *tn = tm_net(net);
	struct tm_table *t;
	int cpu, err;

	lockdep_assert_held(&tn->lock);
	if (tm_table_find_txn(tn, cfg->name, txn)) {
		NL_SET_ERR_MSG(extack, "A table with this name already exists");
		return -EEXIST;
	}
	if (tm_table_name_reserved(tn, cfg->name, txn)) {
		NL_SET_ERR_MSG(extack,
			       "Another open transaction is creating a table with this name");
		return -EBUSY;
	}
	if (tn->ntables >= TM_MAX_TABLES_PER_NET + (txn ? txn->ntables_del : 0)) {
		NL_SET_ERR_MSG(extack, "Too many tables in this network namespace");
		return -ENOSPC;
	}
	t = kmem_cache_zalloc(tm_table_cache, GFP_KERNEL_ACCOUNT);
	if (!t)
		return -ENOMEM;
	strscpy(t->name, cfg->name, sizeof(t->name));
	t->family = cfg->family;
	t->hook = cfg->hook;
	t->policy = cfg->policy;
	t->engine = cfg->engine;
	t->collide = cfg->collide;
	t->priority = cfg->priority;
	t->max_rules = cfg->max_rules;
	t->max_tuples = cfg->max_tuples;
	t->live = !txn;
	t->stats = alloc_percpu_gfp(struct tm_tstats, GFP_KERNEL_ACCOUNT);
	t->rules.cls = tm_rules_cls_new(t);
	if (!t->stats || !t->rules.cls) {
		if (t->rules.cls)
			tm_cls_destroy(t->rules.cls);
		tm_table_free(t);
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(t->stats, cpu)->syncp);
	RCU_INIT_POINTER(t->cls, t->rules.cls);
	err = tm_hook_register(net, t);
	if (err) {
		NL_SET_ERR_MSG(extack, "Cannot attach the table to its netfilter hook");
		tm_cls_destroy(t->rules.cls);
		tm_table_free(t);
		return err;
	}
	t->handle = tn->next_handle++;
	list_add_tail_rcu(&t->list, &tn->tables);
	tn->ntables++;
	if (txn) {
		t->txn_new = txn;
		list_add_tail(&t->txn_node, &txn->tables_new);
		return 0;
	}
	tm_genl_notify_table(net, t, TM_CMD_TABLE_NEW, tm_net_changed(tn));
	return 0;
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

/*
 * Delete @t now, or at the commit of @txn.  A table @txn created goes at
 * once: no packet has seen it.
 */
int tm_table_del(struct net *net, struct tm_table *t, struct tm_txn *txn,
		 struct netlink_ext_ack *extack)
{
	struct tm_net *tn = tm_net(net);

	lockdep_assert_held(&tn->lock);
	if (!txn) {
		tm_genl_notify_table(net, t, TM_CMD_TABLE_DEL, tm_net_changed(tn));
		tm_table_unlink(net, tn, t);
		return 0;
	}
	if (t->txn_del || (t->shadow && t->shadow->txn != txn)) {
		NL_SET_ERR_MSG(extack,
			       "Another open transaction is changing this table");
		return -EBUSY;
	}
	tm_txn_table_drop(t);
	if (t->txn_new) {
		list_del(&t->txn_node);
		t->txn_new = NULL;
		tm_table_unlink(net, tn, t);
		return 0;
	}
	t->txn_del = txn;
	list_add_tail(&t->txn_node, &txn->tables_del);
	txn->ntables_del++;
	return 0;
}

/*
 * Delete every table @txn (NULL: none) sees, now or at its commit; with
 * @dry, only find out whether another transaction holds one (-EBUSY),
 * changing nothing.
 */
int tm_tables_del_all(struct net *net, struct tm_txn *txn, bool dry,
		      struct netlink_ext_ack *extack)
{
	struct tm_net *tn = tm_net(net);
	struct tm_table *t, *tmp;
	int err;

	lockdep_assert_held(&tn->lock);
	list_for_each_entry(t, &tn->tables, list) {
		if (!txn || !tm_table_visible(t, txn))
			continue;
		if (t->txn_del || (t->shadow && t->shadow->txn != txn)) {
			NL_SET_ERR_MSG(extack,
				       "Another open transaction is changing a table");
			return -EBUSY;
		}
	}
	if (dry)
		return 0;
	list_for_each_entry_safe(t, tmp, &tn->tables, list) {
		if (!tm_table_visible(t, txn))
			continue;
		err = tm_table_del(net, t, txn, extack);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The commit of @txn, first step: its new tables start classifying and
 * those it deletes stop, with nothing in between that sleeps.
 */
void tm_table_txn_switch(struct tm_txn *txn)
{
	struct tm_table *t;

	list_for_each_entry(t, &txn->tables_new, txn_node) {
		/* Pairs with the hook's acquire: the rules are published. */
		smp_store_release(&t->live, true);
	}
	list_for_each_entry(t, &txn->tables_del, txn_node)
		WRITE_ONCE(t->live, false);
}

/*
 * @txn ends: after a commit its new tables become everyone's and those it
 * deletes go; after an abort it is the other way round.
 */
void tm_table_txn_end(struct net *net, struct tm_net *tn, struct tm_txn *txn,
		      bool committed)
{
	struct tm_table *t, *tmp;

	lockdep_assert_held(&tn->lock);
	list_for_each_entry_safe(t, tmp, &txn->tables_new, txn_node) {
		list_del(&t->txn_node);
		t->txn_new = NULL;
		if (committed) {
			tm_genl_notify_table(net, t, TM_CMD_TABLE_NEW,
					     tm_net_changed(tn));
		} else {
			tm_table_unlink(net, tn, t);
		}
	}
	list_for_each_entry_safe(t, tmp, &txn->tables_del, txn_node) {
		list_del(&t->txn_node);
		t->txn_del = NULL;
		txn->ntables_del--;
		if (committed) {
			tm_genl_notify_table(net, t, TM_CMD_TABLE_DEL,
					     tm_net_changed(tn));
			tm_table_unlink(net, tn, t);
		}
	}
}

/* Drop every table of a dying namespace.  No event: nobody can listen. */
void tm_table_flush(struct net *net, struct tm_net *tn)
{
	struct tm_table *t, *tmp;

	tm_txn_flush(net, tn);
	list_for_each_entry_safe(t, tmp, &tn->tables, list)
		tm_table_unlink(net, tn, t);
	tm_net_changed(tn);
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
