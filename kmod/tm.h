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

/**
 * struct tm_table - a classification table
 * @list: entry in tm_net.tables
 * @rcu: deferred free once no reader can see the table
 * @handle: stable identifier, unique in the namespace
 * @family: enum tm_family
 * @name: NUL-terminated name, unique in the namespace
 */
struct tm_table {
	struct list_head list;
	struct rcu_head rcu;
	u32 handle;
	u8 family;
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
int tm_table_add(struct net *net, const char *name, u8 family,
		 struct netlink_ext_ack *extack);
int tm_table_del(struct net *net, const char *name,
		 struct netlink_ext_ack *extack);
void tm_table_flush(struct tm_net *tn);

/* genl.c */
int __init tm_genl_init(void);
void tm_genl_exit(void);
void tm_genl_notify_table(struct net *net, const struct tm_table *t, u8 cmd,
			  u64 generation);

#endif /* _TM_H */
