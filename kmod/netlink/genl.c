// SPDX-License-Identifier: GPL-2.0
/*
 * The "tuplemerge" generic netlink family: its commands with one attribute
 * policy each, and its events group.  Nothing else: each kind of object
 * has its commands in a file of its own (table_nl.c, rule_nl.c, txn_nl.c,
 * sid_nl.c, lb_nl.c), and the objects themselves are managed by the
 * classifier (classifier/), the transactions (txn.c) and SRv6 load
 * balancing (srv6/).  include/uapi/linux/tuplemerge.h documents every
 * command and attribute; Documentation/netlink/specs/tuplemerge.yaml is
 * the same ABI for tools, and tools/spec-check.py holds the two and the
 * policies below to each other.
 */
#include <linux/percpu.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "netns.h"
#include "txn.h"
#include "netlink/genl.h"

/* The ops pre_doit and post_doit see (TM_GENL_SPLIT_OPS: see Kbuild). */
#ifdef TM_GENL_SPLIT_OPS
#define tm_genl_op genl_split_ops
#else
#define tm_genl_op genl_ops
#endif

/*
 * Events carry what the read commands return (rules, comments, SIDs,
 * services), trace events the headers of packets: the same privilege as
 * the read commands, CAP_NET_ADMIN over the namespace's user namespace,
 * checked by genl_bind() when a socket joins the group.
 */
static const struct genl_multicast_group tm_mcgrps[] = {
	[TM_MCGRP_EVENTS] = { .name = TM_GENL_MCGRP_EVENTS,
			      .flags = GENL_MCAST_CAP_NET_ADMIN },
	[TM_MCGRP_TRACE] = { .name = TM_GENL_MCGRP_TRACE,
			     .flags = GENL_MCAST_CAP_NET_ADMIN },
};

/**
 * tm_put_counters() - counters as u64 attributes
 * @skb: the message
 * @attrs: the attribute of each counter
 * @c: the counters
 * @n: how many
 *
 * Return: 0, or -EMSGSIZE.
 */
int tm_put_counters(struct sk_buff *skb, const u8 *attrs, const u64 *c,
		    unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (nla_put_u64_64bit(skb, attrs[i], c[i], TM_A_PAD))
			return -EMSGSIZE;
	return 0;
}

/**
 * tm_genl_event_new() - a message for an event of @net's events group
 * @net: the namespace
 * @size: its payload, at most
 *
 * Return: an empty message, or NULL when nobody listens or without memory
 * (an event is never worth failing the change it announces).
 */
struct sk_buff *tm_genl_event_new(struct net *net, size_t size)
{
	if (!genl_has_listeners(&tm_genl_family, net, TM_MCGRP_EVENTS))
		return NULL;
	return genlmsg_new(size, GFP_KERNEL);
}

/**
 * tm_genl_event_send() - send an event tm_genl_event_new() made
 * @net: the namespace
 * @skb: the message
 * @err: what filling it returned: the message is dropped unless 0
 */
void tm_genl_event_send(struct net *net, struct sk_buff *skb, int err)
{
	if (err) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_multicast_netns(&tm_genl_family, net, skb, 0, TM_MCGRP_EVENTS,
				GFP_KERNEL);
}

/*
 * One policy per command, so that an attribute a command does not use is
 * refused instead of silently ignored.  NLA_POLICY_RANGE, _MIN and _MAX
 * hold s16 bounds (the compiler does not warn): a bound outside
 * -32768..32767 needs NLA_POLICY_FULL_RANGE and a netlink_range_validation.
 */
static const struct nla_policy tm_stats_get_policy[TM_A_MAX + 1] = {
};

static struct netlink_range_validation tm_max_rules_range = {
	.min = 1, .max = TM_MAX_RULES_LIMIT,
};

static struct netlink_range_validation tm_max_tuples_range = {
	.min = 1, .max = TM_MAX_TUPLES_LIMIT,
};

static struct netlink_range_validation tm_rule_id_range = {
	.min = 1, .max = TM_RULE_ID_MAX,
};

static struct netlink_range_validation tm_log_rate_range = {
	.min = 1, .max = TM_LOG_RATE_MAX,
};

#define TM_POLICY_NAME \
	[TM_A_TABLE_NAME] = { .type = NLA_NUL_STRING, .len = TM_NAME_MAX - 1 }

static const struct nla_policy tm_table_new_policy[TM_A_MAX + 1] = {
	TM_POLICY_NAME,
	[TM_A_TXN_ID] = { .type = NLA_U32 },
	[TM_A_TABLE_FAMILY] = NLA_POLICY_RANGE(NLA_U8, TM_FAMILY_IPV4,
					       TM_FAMILY_MAX),
	[TM_A_TABLE_HOOK] = NLA_POLICY_MAX(NLA_U8, TM_HOOK_MAX),
	[TM_A_TABLE_PRIORITY] = { .type = NLA_S32 },
	[TM_A_TABLE_POLICY] = NLA_POLICY_MAX(NLA_U8, TM_POLICY_MAX),
	[TM_A_TABLE_ENGINE] = NLA_POLICY_MAX(NLA_U8, TM_ENG_MAX),
	[TM_A_TABLE_COLLIDE] = NLA_POLICY_RANGE(NLA_U8, 1, 128),
	[TM_A_TABLE_MAX_RULES] = NLA_POLICY_FULL_RANGE(NLA_U32,
						       &tm_max_rules_range),
	[TM_A_TABLE_MAX_TUPLES] = NLA_POLICY_FULL_RANGE(NLA_U32,
							&tm_max_tuples_range),
};

static const struct nla_policy tm_table_name_policy[TM_A_MAX + 1] = {
	TM_POLICY_NAME,
};

static const struct nla_policy tm_table_del_policy[TM_A_MAX + 1] = {
	TM_POLICY_NAME,
	[TM_A_TXN_ID] = { .type = NLA_U32 },
};

/* The fields a set may hold, in a rule or as a value of its set. */
#define TM_POLICY_SET_FIELDS \
	[TM_A_RULE_SRC] = { .type = NLA_BINARY, .len = 16 }, \
	[TM_A_RULE_SRC_LEN] = NLA_POLICY_MAX(NLA_U8, 128), \
	[TM_A_RULE_DST] = { .type = NLA_BINARY, .len = 16 }, \
	[TM_A_RULE_DST_LEN] = NLA_POLICY_MAX(NLA_U8, 128), \
	[TM_A_RULE_SPORT_MIN] = { .type = NLA_U16 }, \
	[TM_A_RULE_SPORT_MAX] = { .type = NLA_U16 }, \
	[TM_A_RULE_DPORT_MIN] = { .type = NLA_U16 }, \
	[TM_A_RULE_DPORT_MAX] = { .type = NLA_U16 }, \
	[TM_A_RULE_PROTO] = { .type = NLA_U8 }

/* A value of a set: the attributes of its field (rule_nl.c checks which). */
static const struct nla_policy tm_rule_value_policy[TM_A_MAX + 1] = {
	TM_POLICY_SET_FIELDS,
};

static const struct nla_policy tm_rule_set_policy[TM_A_MAX + 1] = {
	[TM_A_RULE_SET_ELEM] = NLA_POLICY_NESTED(tm_rule_value_policy),
};

/* What a rule is made of: TM_CMD_RULE_NEW and _SET, or a TM_A_RULE nest. */
#define TM_POLICY_RULE_FIELDS \
	[TM_A_RULE_ID] = NLA_POLICY_FULL_RANGE(NLA_U32, &tm_rule_id_range), \
	[TM_A_RULE_PRIORITY] = { .type = NLA_U32 }, \
	[TM_A_RULE_FAMILY] = NLA_POLICY_RANGE(NLA_U8, TM_FAMILY_IPV4, \
					      TM_FAMILY_MAX), \
	TM_POLICY_SET_FIELDS, \
	[TM_A_RULE_IIF] = NLA_POLICY_MIN(NLA_U32, 1), \
	[TM_A_RULE_OIF] = NLA_POLICY_MIN(NLA_U32, 1), \
	[TM_A_RULE_ACTION] = NLA_POLICY_MAX(NLA_U8, TM_ACT_MAX), \
	[TM_A_RULE_REJECT] = NLA_POLICY_MAX(NLA_U8, TM_REJECT_MAX), \
	[TM_A_RULE_MARK] = { .type = NLA_U32 }, \
	[TM_A_RULE_LB_SERVICE] = { .type = NLA_NUL_STRING, \
				   .len = TM_NAME_MAX - 1 }, \
	[TM_A_RULE_COMMENT] = { .type = NLA_NUL_STRING, \
				.len = TM_COMMENT_MAX - 1 }, \
	[TM_A_RULE_COOKIE] = { .type = NLA_U64 }, \
	[TM_A_RULE_RESET_COUNTERS] = { .type = NLA_FLAG }, \
	/* Sets of values, bit 1 << value each: not empty. */ \
	[TM_A_RULE_CT_STATE] = NLA_POLICY_RANGE(NLA_U8, 1, TM_CT_STATE_SET), \
	[TM_A_RULE_TCP_FLAGS] = { .type = NLA_U8 }, \
	[TM_A_RULE_TCP_FLAGS_MASK] = NLA_POLICY_MIN(NLA_U8, 1), \
	[TM_A_RULE_ICMP_TYPE_MIN] = { .type = NLA_U8 }, \
	[TM_A_RULE_ICMP_TYPE_MAX] = { .type = NLA_U8 }, \
	[TM_A_RULE_ICMP_CODE_MIN] = { .type = NLA_U8 }, \
	[TM_A_RULE_ICMP_CODE_MAX] = { .type = NLA_U8 }, \
	[TM_A_RULE_META_MARK] = { .type = NLA_U32 }, \
	[TM_A_RULE_META_MARK_MASK] = NLA_POLICY_MIN(NLA_U32, 1), \
	[TM_A_RULE_DSCP] = NLA_POLICY_MIN(NLA_U64, 1), \
	[TM_A_RULE_FRAGMENT] = NLA_POLICY_RANGE(NLA_U8, 1, TM_FRAGMENT_SET), \
	[TM_A_RULE_SRC_SET] = NLA_POLICY_NESTED(tm_rule_set_policy), \
	[TM_A_RULE_DST_SET] = NLA_POLICY_NESTED(tm_rule_set_policy), \
	[TM_A_RULE_SPORT_SET] = NLA_POLICY_NESTED(tm_rule_set_policy), \
	[TM_A_RULE_DPORT_SET] = NLA_POLICY_NESTED(tm_rule_set_policy), \
	[TM_A_RULE_PROTO_SET] = NLA_POLICY_NESTED(tm_rule_set_policy), \
	[TM_A_RULE_QUEUE_NUM] = { .type = NLA_U16 }, \
	[TM_A_RULE_QUEUE_BYPASS] = { .type = NLA_FLAG }, \
	[TM_A_RULE_LOG] = { .type = NLA_FLAG }, \
	[TM_A_RULE_LOG_PREFIX] = { .type = NLA_NUL_STRING, \
				   .len = TM_LOG_PREFIX_MAX - 1 }, \
	[TM_A_RULE_LOG_LEVEL] = NLA_POLICY_MAX(NLA_U8, 7), \
	[TM_A_RULE_LOG_GROUP] = { .type = NLA_U16 }, \
	[TM_A_RULE_LOG_RATE] = NLA_POLICY_FULL_RANGE(NLA_U32, \
						&tm_log_rate_range), \
	[TM_A_RULE_TRACE] = { .type = NLA_FLAG }

/* One rule of a request that carries several (TM_A_RULE). */
static const struct nla_policy tm_rule_entry_policy[TM_A_MAX + 1] = {
	TM_POLICY_RULE_FIELDS,
};

static const struct nla_policy tm_rule_policy[TM_A_MAX + 1] = {
	TM_POLICY_NAME,
	[TM_A_TXN_ID] = { .type = NLA_U32 },
	TM_POLICY_RULE_FIELDS,
	[TM_A_RULE] = NLA_POLICY_NESTED(tm_rule_entry_policy),
};

static const struct nla_policy tm_rule_del_policy[TM_A_MAX + 1] = {
	TM_POLICY_NAME,
	[TM_A_TXN_ID] = { .type = NLA_U32 },
	[TM_A_RULE_ID] = NLA_POLICY_FULL_RANGE(NLA_U32, &tm_rule_id_range),
};

static const struct nla_policy tm_rule_get_policy[TM_A_MAX + 1] = {
	TM_POLICY_NAME,
	[TM_A_RULE_ID] = NLA_POLICY_FULL_RANGE(NLA_U32, &tm_rule_id_range),
};

static const struct nla_policy tm_rule_lookup_policy[TM_A_MAX + 1] = {
	TM_POLICY_NAME,
	[TM_A_KEY_SRC] = { .type = NLA_BINARY, .len = 16 },
	[TM_A_KEY_DST] = { .type = NLA_BINARY, .len = 16 },
	[TM_A_KEY_SPORT] = { .type = NLA_U16 },
	[TM_A_KEY_DPORT] = { .type = NLA_U16 },
	[TM_A_KEY_PROTO] = { .type = NLA_U8 },
	[TM_A_KEY_IIF] = { .type = NLA_U32 },
	[TM_A_KEY_OIF] = { .type = NLA_U32 },
	[TM_A_KEY_CT_STATE] = NLA_POLICY_MAX(NLA_U8, TM_CT_STATE_MAX),
	[TM_A_KEY_TCP_FLAGS] = { .type = NLA_U8 },
	[TM_A_KEY_MARK] = { .type = NLA_U32 },
	[TM_A_KEY_DSCP] = NLA_POLICY_MAX(NLA_U8, 63),
	[TM_A_KEY_FRAGMENT] = NLA_POLICY_MAX(NLA_U8, TM_FRAGMENT_MAX),
};

static const struct nla_policy tm_txn_begin_policy[TM_A_MAX + 1] = {
};

static const struct nla_policy tm_txn_policy[TM_A_MAX + 1] = {
	[TM_A_TXN_ID] = { .type = NLA_U32 },
};

int tm_put_generation(struct sk_buff *skb, u64 generation)
{
	return nla_put_u64_64bit(skb, TM_A_NET_GENERATION, generation,
				 TM_A_PAD);
}

/* A day at most: a longer timeout is a leak, not a timeout. */
static struct netlink_range_validation tm_lb_timeout_range = {
	.min = 1, .max = TM_LB_TIMEOUT_MAX,
};

static struct netlink_range_validation tm_sid_threshold_range = {
	.min = 1, .max = U32_MAX,
};

static const struct nla_policy tm_sid_new_policy[TM_A_MAX + 1] = {
	[TM_A_SID_ADDR] = NLA_POLICY_EXACT_LEN(sizeof(struct in6_addr)),
	[TM_A_SID_POLICY] = NLA_POLICY_RANGE(NLA_U8, TM_SID_POLICY_ALWAYS,
					     TM_SID_POLICY_MAX),
	[TM_A_SID_THRESHOLD] = NLA_POLICY_FULL_RANGE(NLA_U32,
						     &tm_sid_threshold_range),
	/* The kernel's seg6 HMAC key ids start at 1 (seg6_genl_sethmac()). */
	[TM_A_SID_HMAC_KEY] = NLA_POLICY_MIN(NLA_U32, 1),
	[TM_A_SID_IDLE_TIMEOUT] = NLA_POLICY_FULL_RANGE(NLA_U32,
							&tm_lb_timeout_range),
	[TM_A_SID_CLOSE_TIMEOUT] = NLA_POLICY_FULL_RANGE(NLA_U32,
							 &tm_lb_timeout_range),
	[TM_A_SID_SYN_TIMEOUT] = NLA_POLICY_FULL_RANGE(NLA_U32,
						       &tm_lb_timeout_range),
	[TM_A_SID_UDP_TIMEOUT] = NLA_POLICY_FULL_RANGE(NLA_U32,
						       &tm_lb_timeout_range),
	[TM_A_TXN_ID] = { .type = NLA_U32 },
};

static const struct nla_policy tm_sid_policy[TM_A_MAX + 1] = {
	[TM_A_SID_ADDR] = NLA_POLICY_EXACT_LEN(sizeof(struct in6_addr)),
};

static const struct nla_policy tm_sid_del_policy[TM_A_MAX + 1] = {
	[TM_A_SID_ADDR] = NLA_POLICY_EXACT_LEN(sizeof(struct in6_addr)),
	[TM_A_TXN_ID] = { .type = NLA_U32 },
};

static const struct nla_policy tm_sid_load_policy[TM_A_MAX + 1] = {
	[TM_A_SID_ADDR] = NLA_POLICY_EXACT_LEN(sizeof(struct in6_addr)),
	[TM_A_SID_LOAD] = { .type = NLA_U32 },
};

static struct netlink_range_validation tm_lb_size_range = {
	.min = 2, .max = TM_LB_TABLE_SIZE_MAX,
};

static struct netlink_range_validation tm_lb_flows_range = {
	.min = 1, .max = TM_LB_MAX_FLOWS_LIMIT,
};

static struct netlink_range_validation tm_lb_health_interval_range = {
	.min = TM_LB_HEALTH_INTERVAL_MIN, .max = TM_LB_HEALTH_INTERVAL_MAX,
};

static struct netlink_range_validation tm_lb_health_timeout_range = {
	.min = 1, .max = TM_LB_HEALTH_INTERVAL_MAX,
};

#define TM_POLICY_LB_NAME \
	[TM_A_LB_NAME] = { .type = NLA_NUL_STRING, .len = TM_NAME_MAX - 1 }

static const struct nla_policy tm_lb_service_new_policy[TM_A_MAX + 1] = {
	TM_POLICY_LB_NAME,
	[TM_A_LB_VIP] = NLA_POLICY_EXACT_LEN(sizeof(struct in6_addr)),
	[TM_A_LB_VIP_LEN] = NLA_POLICY_RANGE(NLA_U8, 1, 128),
	[TM_A_LB_SID] = NLA_POLICY_EXACT_LEN(sizeof(struct in6_addr)),
	[TM_A_LB_PROTO] = NLA_POLICY_RANGE(NLA_U8, IPPROTO_TCP, IPPROTO_UDP),
	[TM_A_LB_PORT] = { .type = NLA_U16 },
	[TM_A_LB_CHOICES] = NLA_POLICY_RANGE(NLA_U8, 1, TM_LB_MAX_CHOICES),
	[TM_A_LB_TABLE_SIZE] = NLA_POLICY_FULL_RANGE(NLA_U32,
						     &tm_lb_size_range),
	[TM_A_LB_MAX_FLOWS] = NLA_POLICY_FULL_RANGE(NLA_U32,
						    &tm_lb_flows_range),
	[TM_A_LB_IDLE_TIMEOUT] = NLA_POLICY_FULL_RANGE(NLA_U32,
						       &tm_lb_timeout_range),
	[TM_A_LB_FIN_TIMEOUT] = NLA_POLICY_FULL_RANGE(NLA_U32,
						      &tm_lb_timeout_range),
	[TM_A_LB_SYN_TIMEOUT] = NLA_POLICY_FULL_RANGE(NLA_U32,
						      &tm_lb_timeout_range),
	[TM_A_LB_HMAC_KEY] = NLA_POLICY_MIN(NLA_U32, 1),
	[TM_A_LB_AFFINITY] = NLA_POLICY_MAX(NLA_U8, TM_LB_AFFINITY_MAX),
	[TM_A_LB_HEALTH_INTERVAL] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &tm_lb_health_interval_range),
	[TM_A_LB_HEALTH_TIMEOUT] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &tm_lb_health_timeout_range),
	[TM_A_LB_HEALTH_RISE] = NLA_POLICY_RANGE(NLA_U32, 1,
						 TM_LB_HEALTH_COUNT_MAX),
	[TM_A_LB_HEALTH_FALL] = NLA_POLICY_RANGE(NLA_U32, 1,
						 TM_LB_HEALTH_COUNT_MAX),
	[TM_A_LB_HEALTH_LISTENER] = { .type = NLA_FLAG },
	[TM_A_TXN_ID] = { .type = NLA_U32 },
};

static const struct nla_policy tm_lb_name_policy[TM_A_MAX + 1] = {
	TM_POLICY_LB_NAME,
};

/* A flow: the dump takes a service's name, lb flows lookup a connection. */
static const struct nla_policy tm_lb_flow_policy[TM_A_MAX + 1] = {
	TM_POLICY_LB_NAME,
	[TM_A_LB_FLOW_CLIENT] = NLA_POLICY_EXACT_LEN(sizeof(struct in6_addr)),
	[TM_A_LB_FLOW_CPORT] = { .type = NLA_U16 },
	[TM_A_LB_FLOW_VIP] = NLA_POLICY_EXACT_LEN(sizeof(struct in6_addr)),
	[TM_A_LB_FLOW_VPORT] = { .type = NLA_U16 },
};

static const struct nla_policy tm_lb_service_del_policy[TM_A_MAX + 1] = {
	TM_POLICY_LB_NAME,
	[TM_A_TXN_ID] = { .type = NLA_U32 },
};

/*
 * Weight 0 drains a backend.
 * Not NLA_POLICY_RANGE(NLA_U32, 0, 65535): struct nla_policy keeps min and
 * max as s16, so 65535 became -1, which WARNed in lib/nlattr.c and left no
 * upper bound.  Any bound above S16_MAX takes a netlink_range_validation.
 */
static struct netlink_range_validation tm_lb_weight_range = {
	.min = 0, .max = TM_LB_WEIGHT_MAX,
};

static const struct nla_policy tm_lb_backend_policy[TM_A_MAX + 1] = {
	TM_POLICY_LB_NAME,
	[TM_A_LB_BACKEND_SID] = NLA_POLICY_EXACT_LEN(sizeof(struct in6_addr)),
	[TM_A_LB_BACKEND_WEIGHT] = NLA_POLICY_FULL_RANGE(NLA_U32,
							 &tm_lb_weight_range),
	[TM_A_TXN_ID] = { .type = NLA_U32 },
};

static const struct nla_policy tm_lb_backend_del_policy[TM_A_MAX + 1] = {
	TM_POLICY_LB_NAME,
	[TM_A_LB_BACKEND_SID] = NLA_POLICY_EXACT_LEN(sizeof(struct in6_addr)),
	[TM_A_TXN_ID] = { .type = NLA_U32 },
};

/*
 * Before a command's doit (genl_ops.internal_flags): the namespace lock for
 * every command that reads or changes the configuration (TM_NL_LOCK), held
 * until post_doit, after the handler has replied and announced; and the
 * table the command names, as its transaction sees it (TM_NL_TABLE:
 * tm_nl_info_table(), tm_nl_info_txn()).  Dumps lock for each part.
 */
static int tm_nl_pre_doit(const struct tm_genl_op *ops, struct sk_buff *skb,
			  struct genl_info *info)
{
	struct tm_net *tn = tm_net(genl_info_net(info));
	struct tm_txn *txn = NULL;
	struct tm_table *t;

	info->user_ptr[0] = NULL;
	info->user_ptr[1] = NULL;
	if (!(ops->internal_flags & TM_NL_LOCK))
		return 0;
	mutex_lock(&tn->lock);
	if ((ops->internal_flags & TM_NL_TABLE) == TM_NL_TABLE) {
		t = tm_nl_table(tn, info, &txn);
		if (IS_ERR(t)) {
			mutex_unlock(&tn->lock);
			return PTR_ERR(t);
		}
		info->user_ptr[0] = txn;
		info->user_ptr[1] = t;
	}
	return 0;
}

static void tm_nl_post_doit(const struct tm_genl_op *ops, struct sk_buff *skb,
			    struct genl_info *info)
{
	if (ops->internal_flags & TM_NL_LOCK)
		mutex_unlock(&tm_net(genl_info_net(info))->lock);
}

/*
 * Like nftables: every command, reads and dumps included, needs
 * CAP_NET_ADMIN over the user namespace owning the network namespace.  The
 * rules, their comments, the SIDs and the load balancer's flows are the
 * namespace administrator's business, not any local user's.
 */
static const struct genl_ops tm_genl_ops[] = {
	{
		.cmd = TM_CMD_STATS_GET,
		.doit = tm_nl_stats_get,
		.policy = tm_stats_get_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
		.internal_flags = TM_NL_LOCK,
	},
	{
		.cmd = TM_CMD_TABLE_NEW,
		.doit = tm_nl_table_new,
		.policy = tm_table_new_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
		.internal_flags = TM_NL_LOCK,
	},
	{
		.cmd = TM_CMD_TABLE_DEL,
		.doit = tm_nl_table_del,
		.policy = tm_table_del_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
		.internal_flags = TM_NL_LOCK,
	},
	{
		.cmd = TM_CMD_TABLE_GET,
		.doit = tm_nl_table_get,
		.dumpit = tm_nl_table_dump,
		.policy = tm_table_name_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
		.internal_flags = TM_NL_TABLE,
	},
	{
		.cmd = TM_CMD_RULE_NEW,
		.doit = tm_nl_rule_new,
		.policy = tm_rule_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
		.internal_flags = TM_NL_TABLE,
	},
	{
		.cmd = TM_CMD_RULE_SET,
		.doit = tm_nl_rule_set,
		.policy = tm_rule_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
		.internal_flags = TM_NL_TABLE,
	},
	{
		.cmd = TM_CMD_RULE_DEL,
		.doit = tm_nl_rule_del,
		.policy = tm_rule_del_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
		.internal_flags = TM_NL_TABLE,
	},
	{
		.cmd = TM_CMD_RULE_GET,
		.doit = tm_nl_rule_get,
		.start = tm_nl_rule_dump_start,
		.dumpit = tm_nl_rule_dump,
		.done = tm_nl_rule_dump_done,
		.policy = tm_rule_get_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
		.internal_flags = TM_NL_TABLE,
	},
	{
		.cmd = TM_CMD_RULE_LOOKUP,
		.doit = tm_nl_rule_lookup,
		.policy = tm_rule_lookup_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
		.internal_flags = TM_NL_TABLE,
	},
	{
		.cmd = TM_CMD_COUNTERS_RESET,
		.doit = tm_nl_counters_reset,
		.policy = tm_rule_get_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
		.internal_flags = TM_NL_TABLE,
	},
	{
		.cmd = TM_CMD_TXN_BEGIN,
		.doit = tm_nl_txn_begin,
		.policy = tm_txn_begin_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
		.internal_flags = TM_NL_LOCK,
	},
	{
		.cmd = TM_CMD_TXN_COMMIT,
		.doit = tm_nl_txn_commit,
		.policy = tm_txn_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
		.internal_flags = TM_NL_LOCK,
	},
	{
		.cmd = TM_CMD_TXN_ABORT,
		.doit = tm_nl_txn_abort,
		.policy = tm_txn_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
		.internal_flags = TM_NL_LOCK,
	},
	{
		.cmd = TM_CMD_SID_NEW,
		.doit = tm_nl_sid_new,
		.policy = tm_sid_new_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
		.internal_flags = TM_NL_LOCK,
	},
	{
		.cmd = TM_CMD_SID_SET,
		.doit = tm_nl_sid_set,
		.policy = tm_sid_new_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
		.internal_flags = TM_NL_LOCK,
	},
	{
		.cmd = TM_CMD_SID_LOAD,
		.doit = tm_nl_sid_load,
		.policy = tm_sid_load_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
		.internal_flags = TM_NL_LOCK,
	},
	{
		.cmd = TM_CMD_SID_DEL,
		.doit = tm_nl_sid_del,
		.policy = tm_sid_del_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
		.internal_flags = TM_NL_LOCK,
	},
	{
		.cmd = TM_CMD_SID_GET,
		.doit = tm_nl_sid_get,
		.dumpit = tm_nl_sid_dump,
		.policy = tm_sid_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
		.internal_flags = TM_NL_LOCK,
	},
	{
		.cmd = TM_CMD_LB_SERVICE_NEW,
		.doit = tm_nl_lb_service_new,
		.policy = tm_lb_service_new_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
		.internal_flags = TM_NL_LOCK,
	},
	{
		.cmd = TM_CMD_LB_SERVICE_DEL,
		.doit = tm_nl_lb_service_del,
		.policy = tm_lb_service_del_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
		.internal_flags = TM_NL_LOCK,
	},
	{
		.cmd = TM_CMD_LB_SERVICE_GET,
		.doit = tm_nl_lb_service_get,
		.start = tm_nl_lb_service_dump_start,
		.dumpit = tm_nl_lb_service_dump,
		.policy = tm_lb_name_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
		.internal_flags = TM_NL_LOCK,
	},
	{
		.cmd = TM_CMD_LB_BACKEND_NEW,
		.doit = tm_nl_lb_backend_new,
		.policy = tm_lb_backend_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
		.internal_flags = TM_NL_LOCK,
	},
	{
		.cmd = TM_CMD_LB_BACKEND_DEL,
		.doit = tm_nl_lb_backend_del,
		.policy = tm_lb_backend_del_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
		.internal_flags = TM_NL_LOCK,
	},
	{
		.cmd = TM_CMD_LB_BACKEND_SET,
		.doit = tm_nl_lb_backend_set,
		.policy = tm_lb_backend_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
		.internal_flags = TM_NL_LOCK,
	},
	{
		.cmd = TM_CMD_LB_FLOW_GET,
		.doit = tm_nl_lb_flow_get,
		.start = tm_nl_lb_flow_dump_start,
		.dumpit = tm_nl_lb_flow_dump,
		.done = tm_nl_lb_flow_dump_done,
		.policy = tm_lb_flow_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
		.internal_flags = TM_NL_LOCK,
	},
	{
		.cmd = TM_CMD_LB_FLOW_FLUSH,
		.doit = tm_nl_lb_flow_flush,
		.policy = tm_lb_name_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
		.internal_flags = TM_NL_LOCK,
	},
	{
		.cmd = TM_CMD_FLUSH,
		.doit = tm_nl_flush,
		.policy = tm_txn_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
		.internal_flags = TM_NL_LOCK,
	},
};

struct genl_family tm_genl_family __ro_after_init = {
	.name = TM_GENL_NAME,
	.version = TM_GENL_VERSION,
	.maxattr = TM_A_MAX,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.pre_doit = tm_nl_pre_doit,
	.post_doit = tm_nl_post_doit,
	.ops = tm_genl_ops,
	.n_ops = ARRAY_SIZE(tm_genl_ops),
	.mcgrps = tm_mcgrps,
	.n_mcgrps = ARRAY_SIZE(tm_mcgrps),
};

int __init tm_genl_init(void)
{
	return genl_register_family(&tm_genl_family);
}

void tm_genl_exit(void)
{
	genl_unregister_family(&tm_genl_family);
}
