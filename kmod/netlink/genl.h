/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The generic netlink family "tuplemerge" (include/uapi/linux/tuplemerge.h,
 * Documentation/netlink/specs/tuplemerge.yaml).  genl.c defines the family:
 * its commands, their policies and the events group; each kind of object
 * has its commands and its events in a file of its own: table_nl.c,
 * rule_nl.c, txn_nl.c, sid_nl.c, lb_nl.c.  The family's pre_doit takes
 * tm_net.lock for every command (TM_NL_LOCK) and post_doit releases it,
 * so that handlers and the code of the objects find it held; the events
 * are sent under it, so that listeners see them in generation order.
 * Dumps take it for each part they fill.  Trace events come from the
 * hooks, without it.
 */
#ifndef _TM_GENL_H
#define _TM_GENL_H

#include <linux/bits.h>
#include <net/genetlink.h>

struct tm_key;
struct tm_krule;
struct tm_lb_backend;
struct tm_lb_svc;
struct tm_net;
struct tm_sid;
struct tm_table;
struct tm_txn;

/*
 * genl_ops.internal_flags: what the family's pre_doit does before a
 * command; post_doit undoes it.
 */
#define TM_NL_LOCK	BIT(0)			/* holds tm_net.lock */
#define TM_NL_TABLE	(BIT(1) | TM_NL_LOCK)	/* finds TM_A_TABLE_NAME */

/* TM_NL_TABLE: the transaction the request names (TM_A_TXN_ID), or NULL. */
static inline struct tm_txn *tm_nl_info_txn(const struct genl_info *info)
{
	return info->user_ptr[0];
}

/* TM_NL_TABLE: the table the request names, as its transaction sees it. */
static inline struct tm_table *tm_nl_info_table(const struct genl_info *info)
{
	return info->user_ptr[1];
}

/* The u32 attribute @type of a request, or @dflt when it is absent. */
static inline u32 tm_get_u32_or(const struct genl_info *info, int type,
				u32 dflt)
{
	return info->attrs[type] ? nla_get_u32(info->attrs[type]) : dflt;
}

/* genl.c: the family, its events group */
extern struct genl_family tm_genl_family;
int __init tm_genl_init(void);
void tm_genl_exit(void);
/* The family's multicast groups. */
enum tm_mcgrp {
	TM_MCGRP_EVENTS,
	TM_MCGRP_TRACE,
};

struct sk_buff *tm_genl_event_new(struct net *net, size_t size);
void tm_genl_event_send(struct net *net, struct sk_buff *skb, int err);
int tm_put_generation(struct sk_buff *skb, u64 generation);
void tm_nl_trace(struct net *net, const struct tm_table *t,
		 const struct tm_krule *kr, const struct tm_key *k, u8 hook,
		 u32 verdict, u32 len);
int tm_put_counters(struct sk_buff *skb, const u8 *attrs, const u64 *c,
		    unsigned int n);

/* table_nl.c: the table commands and the namespace's statistics */
const char *tm_get_name(struct genl_info *info);
struct tm_table *tm_nl_table(struct tm_net *tn, struct genl_info *info,
			     struct tm_txn **txnp);
int tm_nl_stats_get(struct sk_buff *skb, struct genl_info *info);
int tm_nl_table_new(struct sk_buff *skb, struct genl_info *info);
int tm_nl_table_del(struct sk_buff *skb, struct genl_info *info);
int tm_nl_table_get(struct sk_buff *skb, struct genl_info *info);
int tm_nl_table_dump(struct sk_buff *skb, struct netlink_callback *cb);
void tm_genl_notify_table(struct net *net, const struct tm_table *t, u8 cmd,
			  u64 generation);

/* rule_nl.c: the rule, lookup and counter commands */
int tm_nl_rule_new(struct sk_buff *skb, struct genl_info *info);
int tm_nl_rule_set(struct sk_buff *skb, struct genl_info *info);
int tm_nl_rule_del(struct sk_buff *skb, struct genl_info *info);
int tm_nl_rule_get(struct sk_buff *skb, struct genl_info *info);
int tm_nl_rule_dump_start(struct netlink_callback *cb);
int tm_nl_rule_dump(struct sk_buff *skb, struct netlink_callback *cb);
int tm_nl_rule_dump_done(struct netlink_callback *cb);
int tm_nl_rule_lookup(struct sk_buff *skb, struct genl_info *info);
int tm_nl_counters_reset(struct sk_buff *skb, struct genl_info *info);
void tm_nl_notify_commit(struct net *net, const struct tm_table *t, u32 ops,
			 u64 generation);

/* txn_nl.c: the transaction commands */
struct tm_txn *tm_nl_txn(struct tm_net *tn, struct genl_info *info);
int tm_nl_txn_begin(struct sk_buff *skb, struct genl_info *info);
int tm_nl_txn_commit(struct sk_buff *skb, struct genl_info *info);
int tm_nl_txn_abort(struct sk_buff *skb, struct genl_info *info);
int tm_nl_flush(struct sk_buff *skb, struct genl_info *info);

/* sid_nl.c: the SID commands */
int tm_nl_sid_new(struct sk_buff *skb, struct genl_info *info);
int tm_nl_sid_set(struct sk_buff *skb, struct genl_info *info);
int tm_nl_sid_load(struct sk_buff *skb, struct genl_info *info);
int tm_nl_sid_del(struct sk_buff *skb, struct genl_info *info);
int tm_nl_sid_get(struct sk_buff *skb, struct genl_info *info);
int tm_nl_sid_dump(struct sk_buff *skb, struct netlink_callback *cb);
void tm_sid_notify(struct net *net, const struct tm_sid *sid, u8 cmd,
		   u64 generation);

/* lb_nl.c: the load-balancer commands */
int tm_nl_lb_service_new(struct sk_buff *skb, struct genl_info *info);
int tm_nl_lb_service_del(struct sk_buff *skb, struct genl_info *info);
int tm_nl_lb_service_get(struct sk_buff *skb, struct genl_info *info);
int tm_nl_lb_service_dump_start(struct netlink_callback *cb);
int tm_nl_lb_service_dump(struct sk_buff *skb, struct netlink_callback *cb);
int tm_nl_lb_backend_new(struct sk_buff *skb, struct genl_info *info);
int tm_nl_lb_backend_del(struct sk_buff *skb, struct genl_info *info);
int tm_nl_lb_backend_set(struct sk_buff *skb, struct genl_info *info);
int tm_nl_lb_flow_get(struct sk_buff *skb, struct genl_info *info);
int tm_nl_lb_flow_dump_start(struct netlink_callback *cb);
int tm_nl_lb_flow_dump(struct sk_buff *skb, struct netlink_callback *cb);
int tm_nl_lb_flow_dump_done(struct netlink_callback *cb);
int tm_nl_lb_flow_flush(struct sk_buff *skb, struct genl_info *info);
void tm_lb_notify(struct net *net, const struct tm_lb_svc *svc,
		  const struct tm_lb_backend *b, u8 cmd, u64 generation);
void tm_lb_notify_health(struct net *net, const struct tm_lb_svc *svc,
			 const struct tm_lb_backend *b,
			 const struct tm_lb_bk *bk, u64 generation);

#endif /* _TM_GENL_H */
