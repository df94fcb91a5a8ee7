/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause */
/*
 * tuplemerge: packet classification with TupleMerge and SRv6 load balancing.
 *
 * This header is the whole ABI between the tuplemerge module and userspace.
 * The module and tmctl build against this one file; the YAML description in
 * Documentation/netlink/specs/tuplemerge.yaml describes the same family.
 *
 * Family: generic netlink, name TM_GENL_NAME ("tuplemerge"), version
 * TM_GENL_VERSION.  The family is netns-aware: every object lives in the
 * network namespace of the socket that created it, and a request only ever
 * sees the objects of its own namespace.  Commands that change state need
 * CAP_NET_ADMIN in the user namespace owning the network namespace.
 *
 * Commands
 * --------
 *
 * TM_CMD_STATS_GET (do)
 *	Request: nothing.
 *	Reply:   TM_A_NET_TABLES, TM_A_NET_GENERATION.
 *
 * TM_CMD_TABLE_NEW (do, admin)
 *	Create a table and attach it to its netfilter hook.  Request:
 *	TM_A_TABLE_NAME (required), TM_A_TABLE_FAMILY (TM_FAMILY_*, default
 *	TM_FAMILY_INET), TM_A_TABLE_HOOK (TM_HOOK_*, default TM_HOOK_INPUT),
 *	TM_A_TABLE_PRIORITY (s32, netfilter priority, default 0),
 *	TM_A_TABLE_POLICY (TM_POLICY_*, verdict when no rule matches,
 *	default TM_POLICY_ACCEPT), TM_A_TABLE_ENGINE (TM_ENG_*, default
 *	TM_ENG_TUPLEMERGE).  Fails with EEXIST when a table of that name
 *	exists in the namespace, ENOSPC past TM_MAX_TABLES_PER_NET tables.
 *	Emits TM_CMD_TABLE_NEW to the TM_GENL_MCGRP_EVENTS group.
 *
 * TM_CMD_TABLE_DEL (do, admin)
 *	Delete a table by TM_A_TABLE_NAME.  ENOENT when there is none.
 *	Emits TM_CMD_TABLE_DEL.
 *
 * TM_CMD_TABLE_GET (do, dump)
 *	do: the table named by TM_A_TABLE_NAME.  dump: every table of the
 *	namespace, ordered by TM_A_TABLE_HANDLE; a dump interrupted by a
 *	concurrent change is flagged NLM_F_DUMP_INTR.
 *	Reply: TM_A_TABLE_NAME, TM_A_TABLE_HANDLE, TM_A_TABLE_FAMILY,
 *	TM_A_TABLE_HOOK, TM_A_TABLE_PRIORITY, TM_A_TABLE_POLICY,
 *	TM_A_TABLE_ENGINE, TM_A_TABLE_RULES, TM_A_NET_GENERATION.
 *
 * Every change bumps the namespace's generation number (TM_A_NET_GENERATION,
 * u64, starts at 0), which is also reported with every table and event.
 *
 * Errors carry an extended ACK message naming what was wrong.
 */
#ifndef _UAPI_LINUX_TUPLEMERGE_H
#define _UAPI_LINUX_TUPLEMERGE_H

#define TM_GENL_NAME		"tuplemerge"
#define TM_GENL_VERSION		1
#define TM_GENL_MCGRP_EVENTS	"events"

/* Longest table name, including the terminating NUL. */
#define TM_NAME_MAX		32
/* Tables one network namespace may hold. */
#define TM_MAX_TABLES_PER_NET	256

enum tm_cmd {
	TM_CMD_UNSPEC,
	TM_CMD_STATS_GET,
	TM_CMD_TABLE_NEW,
	TM_CMD_TABLE_DEL,
	TM_CMD_TABLE_GET,

	__TM_CMD_MAX,
	TM_CMD_MAX = __TM_CMD_MAX - 1
};

/* Which packets a table sees. */
enum tm_family {
	TM_FAMILY_UNSPEC,
	TM_FAMILY_IPV4,		/* "ip" */
	TM_FAMILY_IPV6,		/* "ip6" */
	TM_FAMILY_INET,		/* "inet": IPv4 and IPv6 */

	__TM_FAMILY_MAX,
	TM_FAMILY_MAX = __TM_FAMILY_MAX - 1
};

/* Netfilter hooks, in the order and with the values of NF_INET_*. */
enum tm_hook {
	TM_HOOK_PREROUTING,
	TM_HOOK_INPUT,
	TM_HOOK_FORWARD,
	TM_HOOK_OUTPUT,
	TM_HOOK_POSTROUTING,

	__TM_HOOK_MAX,
	TM_HOOK_MAX = __TM_HOOK_MAX - 1
};

/* What a table does with a packet no rule matches. */
enum tm_policy {
	TM_POLICY_ACCEPT,
	TM_POLICY_DROP,

	__TM_POLICY_MAX,
	TM_POLICY_MAX = __TM_POLICY_MAX - 1
};

/* Classification engines (see Documentation/classifier.rst). */
enum tm_engine_type {
	TM_ENG_TUPLEMERGE,
	TM_ENG_TSS,
	TM_ENG_LINEAR,

	__TM_ENG_MAX,
	TM_ENG_MAX = __TM_ENG_MAX - 1
};

enum tm_attr {
	TM_A_UNSPEC,
	TM_A_PAD,
	TM_A_NET_TABLES,	/* u32: tables in the namespace */
	TM_A_NET_GENERATION,	/* u64: generation of the namespace */
	TM_A_TABLE_NAME,	/* string, at most TM_NAME_MAX - 1 bytes */
	TM_A_TABLE_HANDLE,	/* u32: assigned by the kernel, never reused */
	TM_A_TABLE_FAMILY,	/* u8: enum tm_family */
	TM_A_TABLE_HOOK,	/* u8: enum tm_hook */
	TM_A_TABLE_PRIORITY,	/* s32: netfilter hook priority */
	TM_A_TABLE_POLICY,	/* u8: enum tm_policy */
	TM_A_TABLE_ENGINE,	/* u8: enum tm_engine_type */
	TM_A_TABLE_RULES,	/* u32: rules in the table */

	__TM_A_MAX,
	TM_A_MAX = __TM_A_MAX - 1
};

#endif /* _UAPI_LINUX_TUPLEMERGE_H */
