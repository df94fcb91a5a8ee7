/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarations shared by the files of tuplemerge.ko.  Each subsystem
 * (netns.c, table.c, genl.c) exports its init/exit pair and the few calls the
 * others need; main.c only calls the init functions in order.
 */
#ifndef _TM_H
#define _TM_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netfilter.h>
#include <linux/netlink.h>
#include <linux/rcupdate.h>
#include <linux/types.h>
#include <net/net_namespace.h>
#include <uapi/linux/tuplemerge.h>

/**
 * struct tm_net - per network namespace state
 * @lock: serialises every change in this namespace (one writer at a time)
 * @tables: the namespace's tables, ordered by handle, RCU-safe for readers
 * @ntables: number of entries in @tables
 * @next_handle: handle of the next table created
 * @generation: bumped by every change; reported to userspace
 */
struct tm_net {
	struct mutex lock;	/* protects every field below */
	struct list_head tables;
	u32 ntables;
	u32 next_handle;
	u64 generation;
};

struct tm_cls;

/* What userspace asks of a new table (TM_CMD_TABLE_NEW). */
struct tm_table_cfg {
	const char *name;
	u8 family;		/* enum tm_family */
	u8 hook;		/* enum tm_hook */
	u8 policy;		/* enum tm_policy */
	u8 engine;		/* enum tm_engine_type */
	s32 priority;		/* netfilter hook priority */
};

/**
 * struct tm_table - a classification table
 * @list: entry in tm_net.tables
 * @rcu: deferred free once no reader can see the table
 * @cls: the rules (kmod/core), looked up from the hook
 * @ops: netfilter hooks, one per address family (IPv4, IPv6)
 * @nops: hooks in use: 2 for TM_FAMILY_INET, else 1
 * @handle: stable identifier, unique in the namespace
 * @family, @hook, @policy, @engine, @priority: see struct tm_table_cfg
 * @name: NUL-terminated name, unique in the namespace
 */
struct tm_table {
	struct list_head list;
	struct rcu_head rcu;
	struct tm_cls *cls;
	struct nf_hook_ops ops[2];
	u8 nops;
	u32 handle;
	u8 family;
	u8 hook;
	u8 policy;
	u8 engine;
	s32 priority;
	char name[TM_NAME_MAX];
};

/* netns.c */
int tm_netns_init(void);
void tm_netns_exit(void);
struct tm_net *tm_net(const struct net *net);

/* table.c */
int tm_table_init(void);
void tm_table_exit(void);
struct tm_table *tm_table_find(struct tm_net *tn, const char *name);
int tm_table_add(struct net *net, const struct tm_table_cfg *cfg,
		 struct netlink_ext_ack *extack);
int tm_table_del(struct net *net, const char *name,
		 struct netlink_ext_ack *extack);
void tm_table_flush(struct net *net, struct tm_net *tn);
u32 tm_table_rules(const struct tm_table *t);

/* hook.c */
int tm_hook_register(struct net *net, struct tm_table *t);
void tm_hook_unregister(struct net *net, struct tm_table *t);

/* genl.c */
int __init tm_genl_init(void);
void tm_genl_exit(void);
void tm_genl_notify_table(struct net *net, const struct tm_table *t, u8 cmd,
			  u64 generation);

#endif /* _TM_H */
