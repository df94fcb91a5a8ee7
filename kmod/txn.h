/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Transactions (txn.c): changes of tables, rules, SIDs and services that
 * packets and other users see all at once at the commit, or not at all.
 * txn.c owns struct tm_txn and struct tm_shadow; the objects a transaction
 * holds keep a pointer to it (tm_table.txn_new and .txn_del, tm_sid.txn,
 * tm_lb_svc.txn) and their own code switches them at the commit.  Every
 * function here expects tm_net.lock held.
 */
#ifndef _TM_TXN_H
#define _TM_TXN_H

#include <linux/list.h>
#include <linux/types.h>

#include "classifier/classifier.h"

struct net;
struct netlink_ext_ack;
struct tm_net;

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
 * @nsids_del: of @sids, those it deletes
 * @nsvcs_del: of @svcs, those it deletes
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

int tm_txn_init(void);
void tm_txn_exit(void);
int tm_txn_begin(struct tm_net *tn, u32 portid, u32 *id,
		 struct netlink_ext_ack *extack);
struct tm_txn *tm_txn_new(struct tm_net *tn, u32 portid);
int tm_txn_flush_ruleset(struct net *net, struct tm_net *tn,
			 struct tm_txn *txn, struct netlink_ext_ack *extack);
struct tm_txn *tm_txn_find(struct tm_net *tn, u32 id, u32 portid,
			   bool stale_ok, struct netlink_ext_ack *extack);
int tm_txn_commit(struct net *net, struct tm_net *tn, struct tm_txn *txn,
		  struct netlink_ext_ack *extack);
void tm_txn_abort(struct net *net, struct tm_net *tn, struct tm_txn *txn);
void tm_txn_spoil(struct tm_txn *txn);
void tm_txn_table_gone(struct tm_table *t);
void tm_txn_table_drop(struct tm_table *t);
void tm_txn_flush(struct net *net, struct tm_net *tn);

/**
 * struct tm_target - the rules a rule request changes (tm_txn_target())
 * @tn: the namespace, whose lock the changes hold
 * @table: the table
 * @rs: @table's own rules, or @shadow's copy of them
 * @shadow: the transaction's copy, NULL for the table's own rules
 */
struct tm_target {
	struct tm_net *tn;
	struct tm_table *table;
	struct tm_ruleset *rs;
	struct tm_shadow *shadow;
};

int tm_txn_target(struct tm_net *tn, struct tm_txn *txn, struct tm_table *t,
		  bool flush, struct tm_target *tg,
		  struct netlink_ext_ack *extack);

/*
 * What a rule change means for the transactions (classifier/rule.c calls
 * these): in a transaction's copy, the rules it made and dropped; on a
 * table's own rules, the same change followed in the copy of the
 * transaction that has one (tm_table.shadow), or that copy spoilt.
 */
void tm_txn_rule_made(struct tm_shadow *sh, struct tm_krule *kr);
void tm_txn_rule_drop(struct tm_shadow *sh, struct tm_krule *kr);
void tm_txn_rules_flushed(struct tm_shadow *sh);
void tm_txn_follow_add(struct tm_shadow *sh, struct tm_krule *kr,
		       const struct tm_rule_cfg *cfg);
void tm_txn_follow_del(struct tm_shadow *sh, struct tm_krule *kr);
void tm_txn_follow_replace(struct tm_shadow *sh, struct tm_krule *old,
			   struct tm_krule *kr, const struct tm_rule_cfg *cfg);
void tm_txn_follow_flush(struct tm_shadow *sh);

#endif /* _TM_TXN_H */
