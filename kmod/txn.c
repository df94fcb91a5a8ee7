// SPDX-License-Identifier: GPL-2.0
/*
 * Transactions: many rule changes, over one or more tables, that packets
 * see all at once or not at all.
 *
 * A transaction gets a private copy (struct tm_shadow) of each table the
 * first time one of its requests touches it: a new classifier holding the
 * same rules, sharing their tm_krules, marked private (tm_cls_set_private():
 * no lookup reaches it, so what a change replaces is freed at once, not
 * after a grace period).  Requests change the copy and report
 * their errors one by one, exactly as they would on the table.  The commit
 * publishes every copy with rcu_assign_pointer() under the namespace lock,
 * so a packet is classified by the old rules or by the new ones, and the
 * old classifier goes once the lookups that may use it are over.  A copy
 * whose first request is a flush starts empty instead: replacing a whole
 * rule set costs nothing for the rules it drops.
 *
 * One transaction at a time may copy a given table (EBUSY for another).
 * Changes made to the table itself meanwhile (single requests) also go
 * into the copy, so that the commit keeps them, as if they had come just
 * before the transaction: a rule the transaction did not touch is added,
 * replaced or deleted in the copy too, and a copy that was flushed only
 * notes what it will have to free.  A change to a rule the transaction
 * changed as well is a conflict: it spoils the transaction (its copies are
 * dropped at once, since the change may free rules they share), and its
 * next request or commit fails with EBUSY: nothing of it is published.
 * Transactions belong to the netlink socket that began them and die with
 * it (NETLINK_URELEASE), with their table, or with their namespace.
 *
 * Tables come and go in a transaction too (table.c keeps them): one it
 * creates is hooked at once but lets every packet through and is seen by
 * the transaction alone; one it deletes stays everyone's until the commit.
 * So do SIDs (sid.c) and load-balancer services (lb.c): one it creates is
 * on its own list, not in the namespace's hashes, and its name (address)
 * is reserved; one it changes or deletes is marked with it, and only one
 * transaction at a time holds a SID or a service (EBUSY for another); a
 * change made outside the transaction spoils it.  A SID or service deleted
 * and created again alike in one transaction (a whole configuration
 * loaded again) stays the same object, with its connections or flows and
 * its counters.  The commit first builds the tables of the services whose
 * backends changed (once, however many changes), which may fail, then
 * switches everything with nothing that sleeps in between (SIDs and
 * services created or changed, the copies published, the new tables on,
 * the deleted ones off, the deleted services and SIDs unlinked), then
 * announces it and frees what was replaced.
 */
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "netns.h"
#include "txn.h"
#include "netlink/genl.h"

/*
 * A new transaction of socket @portid, past the namespace's limit: the
 * caller's own, begun and ended under one hold of the lock (TM_CMD_FLUSH
 * alone), or tm_txn_begin()'s.
 */
struct tm_txn *tm_txn_new(struct tm_net *tn, u32 portid)
{
	struct tm_txn *txn;

	lockdep_assert_held(&tn->lock);
	txn = kzalloc(sizeof(*txn), GFP_KERNEL_ACCOUNT);
	if (!txn)
		return NULL;
	INIT_LIST_HEAD(&txn->shadows);
	INIT_LIST_HEAD(&txn->tables_new);
	INIT_LIST_HEAD(&txn->tables_del);
	INIT_LIST_HEAD(&txn->sids);
	INIT_LIST_HEAD(&txn->svcs);
	txn->id = ++tn->next_txn ?: ++tn->next_txn;
	txn->portid = portid;
	list_add_tail(&txn->node, &tn->txns);
	tn->ntxns++;
	return txn;
}

int tm_txn_begin(struct tm_net *tn, u32 portid, u32 *id,
		 struct netlink_ext_ack *extack)
{
	struct tm_txn *txn;

	lockdep_assert_held(&tn->lock);
	if (tn->ntxns >= TM_TXN_MAX_PER_NET) {
		NL_SET_ERR_MSG(extack,
			       "Too many open transactions in this network namespace");
		return -ENOSPC;
	}
	txn = tm_txn_new(tn, portid);
	if (!txn)
		return -ENOMEM;
	*id = txn->id;
	return 0;
}

/*
 * The open transaction @id of socket @portid.  One spoilt by a change of a
 * table it copied is only good for an abort (@stale_ok).
 */
struct tm_txn *tm_txn_find(struct tm_net *tn, u32 id, u32 portid,
			   bool stale_ok, struct netlink_ext_ack *extack)
{
	struct tm_txn *txn;

	lockdep_assert_held(&tn->lock);
	list_for_each_entry(txn, &tn->txns, node) {
		if (txn->id != id)
			continue;
		if (txn->portid != portid) {
			NL_SET_ERR_MSG(extack,
				       "Transaction belongs to another socket");
			return ERR_PTR(-EPERM);
		}
		if (txn->stale && !stale_ok) {
			NL_SET_ERR_MSG(extack,
				       "What the transaction changes was changed outside it: nothing will be committed, run it again");
			return ERR_PTR(-EBUSY);
		}
		return txn;
	}
	NL_SET_ERR_MSG(extack,
		       "No such transaction: never begun, committed or aborted");
	return ERR_PTR(-ENOENT);
}

static int tm_dead_one(struct tm_krule *kr, const struct tm_rule *r,
		       void *arg)
{
	struct tm_shadow *sh = arg;

	list_add_tail(&kr->txn_node, &sh->dead);
	return 0;
}

/*
 * The transaction's copy of @t, made now if needed: a full copy, or an
 * empty one when @empty (the request is a flush).
 */
static struct tm_shadow *tm_txn_shadow(struct tm_txn *txn,
				       struct tm_table *t, bool empty,
				       struct netlink_ext_ack *extack)
{
	struct tm_shadow *sh;
	int err;

	list_for_each_entry(sh, &txn->shadows, node) {
		if (sh->table == t)
			return sh;
	}
	/*
	 * A tm_krule can be on one dead list only: one copy per table; and a
	 * table another transaction deletes is not to be changed.
	 */
	if (t->shadow || t->txn_del) {
		NL_SET_ERR_MSG(extack,
			       "Another open transaction is changing this table");
		return ERR_PTR(-EBUSY);
	}
	sh = kzalloc(sizeof(*sh), GFP_KERNEL_ACCOUNT);
	if (!sh)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&sh->created);
	INIT_LIST_HEAD(&sh->dead);
	sh->table = t;
	sh->txn = txn;
	sh->flushed = empty;
	if (empty) {
		sh->rules.cls = tm_rules_cls_new(t);
		err = sh->rules.cls ? 0 : -ENOMEM;
		if (!err)
			tm_cls_set_private(sh->rules.cls, true);
		sh->rules.max_id = t->rules.max_id;
		if (!err)
			tm_rules_for_each(&t->rules, tm_dead_one, sh);
	} else {
		err = tm_rules_copy(t, &sh->rules, &t->rules);
	}
	if (err) {
		NL_SET_ERR_MSG(extack,
			       "Cannot copy the table's rules for the transaction");
		kfree(sh);
		return ERR_PTR(err);
	}
	list_add_tail(&sh->node, &txn->shadows);
	t->shadow = sh;
	return sh;
}

/*
 * Following a change of a table's own rules in the transaction copy of
 * them (t->shadow), so that the transaction commits on top of it: the
 * change goes into the copy too when the transaction left that rule alone;
 * a copy that starts from a flush only has to free, at the commit, what
 * the table gained; a change to a rule the transaction changed too is a
 * conflict, which spoils the transaction (tm_txn_spoil()).
 */
/*
 * In a flushed copy, every rule of the table is on the dead list; in a
 * plain copy, each is either shared by the copy or on the dead list
 * because the transaction deleted or replaced it.
 */
void tm_txn_follow_add(struct tm_shadow *sh, struct tm_krule *kr,
		       const struct tm_rule_cfg *cfg)
{
	if (sh->flushed) {
		list_add_tail(&kr->txn_node, &sh->dead);
	} else if (tm_rule_find(&sh->rules, kr->id, NULL) ||
		   !tm_rules_room(sh->table, &sh->rules,
				  tm_krule_entries(kr), 0) ||
		   tm_ruleset_insert(&sh->rules, kr, cfg)) {
		tm_txn_spoil(sh->txn);
	}
}

/* Call before @kr is freed: it may be on the dead list. */
void tm_txn_follow_del(struct tm_shadow *sh, struct tm_krule *kr)
{
	struct tm_krule *cur = tm_rule_find(&sh->rules, kr->id, NULL);

	if (sh->flushed)
		list_del_init(&kr->txn_node);
	else if (cur == kr)
		tm_ruleset_remove(&sh->rules, kr);
	else if (cur)
		tm_txn_spoil(sh->txn);
	else
		list_del_init(&kr->txn_node);
}

void tm_txn_follow_replace(struct tm_shadow *sh, struct tm_krule *old,
			   struct tm_krule *kr, const struct tm_rule_cfg *cfg)
{
	struct tm_krule *cur = tm_rule_find(&sh->rules, kr->id, NULL);

	if (sh->flushed) {
		list_del_init(&old->txn_node);
		list_add_tail(&kr->txn_node, &sh->dead);
	} else if (cur == old) {
		if (tm_ruleset_replace(&sh->rules, old, kr, cfg))
			tm_txn_spoil(sh->txn);
	} else if (cur) {
		tm_txn_spoil(sh->txn);
	} else {
		list_del_init(&old->txn_node);
		list_add_tail(&kr->txn_node, &sh->dead);
	}
}

/* The table's own rules were flushed: the transaction's copy conflicts. */
void tm_txn_follow_flush(struct tm_shadow *sh)
{
	tm_txn_spoil(sh->txn);
}

/* The transaction made @kr in its copy @sh: an abort frees it. */
void tm_txn_rule_made(struct tm_shadow *sh, struct tm_krule *kr)
{
	kr->txn_new = 1;
	list_add_tail(&kr->txn_node, &sh->created);
}

/*
 * @kr left the copy @sh: freed now if the transaction made it (it was
 * never published), else at the commit (the table still holds it).
 */
void tm_txn_rule_drop(struct tm_shadow *sh, struct tm_krule *kr)
{
	if (kr->txn_new) {
		list_del(&kr->txn_node);
		tm_krule_free(kr);
	} else {
		list_add_tail(&kr->txn_node, &sh->dead);
	}
}

/* The transaction flushed its copy @sh. */
void tm_txn_rules_flushed(struct tm_shadow *sh)
{
	sh->flushed = true;
}

/**
 * tm_txn_target() - the rules a request changes
 * @tn: the namespace, locked
 * @txn: the request's transaction, or NULL
 * @t: the table the request names, as @txn sees it
 * @flush: the request flushes the rules (a transaction's first request
 *	to @t then starts from an empty copy)
 * @tg: filled in: @t's own rules, or @txn's copy of them
 * @extack: for an error
 *
 * Return: 0, or an error with @extack set.
 */
int tm_txn_target(struct tm_net *tn, struct tm_txn *txn, struct tm_table *t,
		  bool flush, struct tm_target *tg,
		  struct netlink_ext_ack *extack)
{
	struct tm_shadow *sh;

	lockdep_assert_held(&tn->lock);
	tg->tn = tn;
	tg->table = t;
	tg->rs = &t->rules;
	tg->shadow = NULL;
	if (!txn)
		return 0;
	sh = tm_txn_shadow(txn, t, flush, extack);
	if (IS_ERR(sh))
		return PTR_ERR(sh);
	tg->rs = &sh->rules;
	tg->shadow = sh;
	return 0;
}

/* Free @sh; its copy has been published when @committed. */
static void tm_shadow_free(struct tm_shadow *sh, bool committed)
{
	struct tm_krule *kr, *tmp;

	/* As long as the transaction: process context, under tn->lock. */
	list_for_each_entry_safe(kr, tmp, &sh->created, txn_node) {
		cond_resched();
		list_del_init(&kr->txn_node);
		kr->txn_new = 0;
		if (!committed)
			tm_krule_free(kr);
	}
	list_for_each_entry_safe(kr, tmp, &sh->dead, txn_node) {
		cond_resched();
		list_del_init(&kr->txn_node);
		if (committed)
			tm_krule_free(kr);
	}
	if (!committed)
		tm_cls_destroy(sh->rules.cls);
	sh->table->shadow = NULL;
	list_del(&sh->node);
	kfree(sh);
}

static void tm_txn_free_shadows(struct tm_txn *txn, bool committed)
{
	struct tm_shadow *sh, *tmp;

	list_for_each_entry_safe(sh, tmp, &txn->shadows, node)
		tm_shadow_free(sh, committed);
}

/*
 * End @txn: after its commit, what it replaced goes; after an abort, what
 * it made.  The rules go first: they may name services it created.
 */
static void tm_txn_free(struct net *net, struct tm_net *tn,
			struct tm_txn *txn, bool committed)
{
	tm_txn_free_shadows(txn, committed);
	tm_table_txn_end(net, tn, txn, committed);
	tm_lb_txn_end(net, tn, txn, committed);
	tm_sid_txn_end(net, tn, txn, committed);
	list_del(&txn->node);
	tn->ntxns--;
	kfree(txn);
}

void tm_txn_abort(struct net *net, struct tm_net *tn, struct tm_txn *txn)
{
	lockdep_assert_held(&tn->lock);
	tm_txn_free(net, tn, txn, false);
}

/*
 * Apply everything @txn did at once, and end it: its SIDs and services are
 * bound, changed, created; its copies published, the tables it creates
 * switched on and those it deletes off; then the services and SIDs it
 * deletes go.  A service's table is built first, which may fail: then the
 * transaction is aborted, nothing changed.
 */
int tm_txn_commit(struct net *net, struct tm_net *tn, struct tm_txn *txn,
		  struct netlink_ext_ack *extack)
{
	struct tm_shadow *sh;
	int err;

	lockdep_assert_held(&tn->lock);
	err = tm_lb_txn_prepare(txn, extack);
	if (err) {
		tm_txn_abort(net, tn, txn);
		return err;
	}
	/*
	 * Everything switches first, with nothing that sleeps in between:
	 * the services a rule may name are there before the rule, and go
	 * after it.
	 */
	tm_sid_txn_switch(tn, txn);
	tm_lb_txn_switch(tn, txn, true);
	list_for_each_entry(sh, &txn->shadows, node) {
		struct tm_table *t = sh->table;

		tm_cls_set_private(sh->rules.cls, false);
		rcu_assign_pointer(t->cls, sh->rules.cls);
		swap(t->rules, sh->rules);
	}
	tm_table_txn_switch(txn);
	tm_lb_txn_switch(tn, txn, false);
	/*
	 * Then it is announced (SIDs, services, a new table before its
	 * rules, deletions last), the deleted tables are unhooked, and the
	 * old classifiers go (their readers finish before anything of them
	 * is freed).
	 */
	tm_lb_txn_announce(net, tn, txn);
	tm_table_txn_end(net, tn, txn, true);
	list_for_each_entry(sh, &txn->shadows, node) {
		tm_cls_destroy(sh->rules.cls);
		sh->rules.cls = NULL;
		tm_nl_notify_commit(net, sh->table, sh->ops,
				    tm_net_changed(tn));
	}
	tm_txn_free(net, tn, txn, true);
	return 0;
}

/*
 * flush ruleset in @txn: every table, service and SID it sees goes at its
 * commit.  Nothing changes when another transaction holds one of them.
 */
int tm_txn_flush_ruleset(struct net *net, struct tm_net *tn,
			 struct tm_txn *txn, struct netlink_ext_ack *extack)
{
	int err;

	lockdep_assert_held(&tn->lock);
	err = tm_tables_del_all(net, txn, true, extack) ?:
	      tm_lb_svcs_del_all(net, tn, txn, true, extack) ?:
	      tm_sids_del_all(net, tn, txn, true, extack);
	if (err)
		return err;
	/* Rules name services: the tables go first. */
	return tm_tables_del_all(net, txn, false, extack) ?:
	       tm_lb_svcs_del_all(net, tn, txn, false, extack) ?:
	       tm_sids_del_all(net, tn, txn, false, extack);
}

/*
 * A change to a rule the transaction changed too: the transaction can no
 * longer commit.  Its copies go now (they may share tm_krules the change
 * frees); it stays open, for its owner to learn why at the next request.
 */
void tm_txn_spoil(struct tm_txn *txn)
{
	tm_txn_free_shadows(txn, false);
	txn->stale = true;
}

/*
 * @t is going away outside the transactions: one that copies it or meant
 * to delete it can no longer commit.
 */
void tm_txn_table_gone(struct tm_table *t)
{
	struct tm_txn *txn = t->shadow ? t->shadow->txn : t->txn_del;

	if (t->txn_del) {
		list_del(&t->txn_node);
		t->txn_del->ntables_del--;
		t->txn_del = NULL;
	}
	if (txn)
		tm_txn_spoil(txn);
}

/* @t is deleted by the transaction that copied it: the copy goes. */
void tm_txn_table_drop(struct tm_table *t)
{
	if (t->shadow)
		tm_shadow_free(t->shadow, false);
}

void tm_txn_flush(struct net *net, struct tm_net *tn)
{
	struct tm_txn *txn, *tmp;

	list_for_each_entry_safe(txn, tmp, &tn->txns, node)
		tm_txn_free(net, tn, txn, false);
}

/* A netlink socket closed: its transactions end. */
static int tm_txn_netlink_event(struct notifier_block *nb,
				unsigned long event, void *ptr)
{
	struct netlink_notify *n = ptr;
	struct tm_txn *txn, *tmp;
	struct tm_net *tn;

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC ||
	    !n->portid)
		return NOTIFY_DONE;
	tn = tm_net(n->net);
	if (!READ_ONCE(tn->ntxns))
		return NOTIFY_DONE;
	mutex_lock(&tn->lock);
	list_for_each_entry_safe(txn, tmp, &tn->txns, node) {
		if (txn->portid == n->portid)
			tm_txn_free(n->net, tn, txn, false);
	}
	mutex_unlock(&tn->lock);
	return NOTIFY_DONE;
}

static struct notifier_block tm_txn_notifier = {
	.notifier_call = tm_txn_netlink_event,
};

int tm_txn_init(void)
{
	return netlink_register_notifier(&tm_txn_notifier);
}

void tm_txn_exit(void)
{
	netlink_unregister_notifier(&tm_txn_notifier);
}
