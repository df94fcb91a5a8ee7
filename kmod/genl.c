// SPDX-License-Identifier: GPL-2.0
/*
 * The "tuplemerge" generic netlink family: per-command attribute policies,
 * the ops table, the namespace (stats, flush ruleset) and table commands,
 * and change events.
 * Handlers only parse and reply; the objects themselves are managed by their
 * own files (table.c, rule.c, txn.c, sid.c); the rule commands are in
 * rule_nl.c, the SID commands in sid_nl.c, the load-balancer commands in
 * lb_nl.c.
 * include/uapi/linux/tuplemerge.h documents every command and attribute.
 */
#include <linux/percpu.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "tm.h"

enum tm_mcgrp {
	TM_MCGRP_EVENTS,
};

/*
 * Events carry what the read commands return (rules, comments, SIDs,
 * services): the same privilege as they, CAP_NET_ADMIN over the namespace's
 * user namespace, checked by genl_bind() when a socket joins the group.
 */
static const struct genl_multicast_group tm_mcgrps[] = {
	[TM_MCGRP_EVENTS] = { .name = TM_GENL_MCGRP_EVENTS,
			      .flags = GENL_MCAST_CAP_NET_ADMIN },
};

bool tm_genl_listening(struct net *net)
{
	return genl_has_listeners(&tm_genl_family, net, TM_MCGRP_EVENTS);
}

void tm_genl_multicast(struct net *net, struct sk_buff *skb)
{
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

static const struct nla_policy tm_rule_policy[TM_A_MAX + 1] = {
	TM_POLICY_NAME,
	[TM_A_TXN_ID] = { .type = NLA_U32 },
	[TM_A_RULE_ID] = NLA_POLICY_FULL_RANGE(NLA_U32, &tm_rule_id_range),
	[TM_A_RULE_PRIORITY] = { .type = NLA_U32 },
	[TM_A_RULE_FAMILY] = NLA_POLICY_RANGE(NLA_U8, TM_FAMILY_IPV4,
					      TM_FAMILY_MAX),
	[TM_A_RULE_SRC] = { .type = NLA_BINARY, .len = 16 },
	[TM_A_RULE_SRC_LEN] = NLA_POLICY_MAX(NLA_U8, 128),
	[TM_A_RULE_DST] = { .type = NLA_BINARY, .len = 16 },
	[TM_A_RULE_DST_LEN] = NLA_POLICY_MAX(NLA_U8, 128),
	[TM_A_RULE_SPORT_MIN] = { .type = NLA_U16 },
	[TM_A_RULE_SPORT_MAX] = { .type = NLA_U16 },
	[TM_A_RULE_DPORT_MIN] = { .type = NLA_U16 },
	[TM_A_RULE_DPORT_MAX] = { .type = NLA_U16 },
	[TM_A_RULE_PROTO] = { .type = NLA_U8 },
	[TM_A_RULE_IIF] = NLA_POLICY_MIN(NLA_U32, 1),
	[TM_A_RULE_OIF] = NLA_POLICY_MIN(NLA_U32, 1),
	[TM_A_RULE_ACTION] = NLA_POLICY_MAX(NLA_U8, TM_ACT_MAX),
	[TM_A_RULE_REJECT] = NLA_POLICY_MAX(NLA_U8, TM_REJECT_MAX),
	[TM_A_RULE_MARK] = { .type = NLA_U32 },
	[TM_A_RULE_LB_SERVICE] = { .type = NLA_NUL_STRING,
				   .len = TM_NAME_MAX - 1 },
	[TM_A_RULE_COMMENT] = { .type = NLA_NUL_STRING,
				.len = TM_COMMENT_MAX - 1 },
	[TM_A_RULE_COOKIE] = { .type = NLA_U64 },
	[TM_A_RULE_RESET_COUNTERS] = { .type = NLA_FLAG },
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

static void tm_table_stats_read(const struct tm_table *t, u64 *lookups,
				u64 *matches, u64 *probes)
{
	int cpu;

	*lookups = 0;
	*matches = 0;
	*probes = 0;
	for_each_possible_cpu(cpu) {
		const struct tm_tstats *st = per_cpu_ptr(t->stats, cpu);
		unsigned int start;
		u64 l, m, p;

		do {
			start = u64_stats_fetch_begin(&st->syncp);
			l = u64_stats_read(&st->lookups);
			m = u64_stats_read(&st->matches);
			p = u64_stats_read(&st->probes);
		} while (u64_stats_fetch_retry(&st->syncp, start));
		*lookups += l;
		*matches += m;
		*probes += p;
	}
}

static int tm_fill_table(struct sk_buff *skb, const struct tm_table *t,
			 u32 portid, u32 seq, int flags, u8 cmd,
			 u64 generation)
{
	u64 lookups, matches, probes;
	struct tm_stats st;
	void *hdr;

	tm_cls_stats(t->rules.cls, &st);
	tm_table_stats_read(t, &lookups, &matches, &probes);

	hdr = genlmsg_put(skb, portid, seq, &tm_genl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_string(skb, TM_A_TABLE_NAME, t->name) ||
	    nla_put_u32(skb, TM_A_TABLE_HANDLE, t->handle) ||
	    nla_put_u8(skb, TM_A_TABLE_FAMILY, t->family) ||
	    nla_put_u8(skb, TM_A_TABLE_HOOK, t->hook) ||
	    nla_put_s32(skb, TM_A_TABLE_PRIORITY, t->priority) ||
	    nla_put_u8(skb, TM_A_TABLE_POLICY, t->policy) ||
	    nla_put_u8(skb, TM_A_TABLE_ENGINE, t->engine) ||
	    nla_put_u32(skb, TM_A_TABLE_RULES, tm_table_rules(t)) ||
	    nla_put_u8(skb, TM_A_TABLE_COLLIDE, t->collide) ||
	    nla_put_u32(skb, TM_A_TABLE_MAX_RULES, t->max_rules) ||
	    nla_put_u32(skb, TM_A_TABLE_MAX_TUPLES, t->max_tuples) ||
	    nla_put_u32(skb, TM_A_TABLE_TUPLES, st.tables) ||
	    nla_put_u64_64bit(skb, TM_A_TABLE_BYTES, st.bytes, TM_A_PAD) ||
	    nla_put_u64_64bit(skb, TM_A_TABLE_LOOKUPS, lookups, TM_A_PAD) ||
	    nla_put_u64_64bit(skb, TM_A_TABLE_MATCHES, matches, TM_A_PAD) ||
	    nla_put_u64_64bit(skb, TM_A_TABLE_PROBES, probes, TM_A_PAD) ||
	    tm_put_generation(skb, generation)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

void tm_genl_notify_table(struct net *net, const struct tm_table *t, u8 cmd,
			  u64 generation)
{
	struct sk_buff *skb;

	if (!tm_genl_listening(net))
		return;
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return;
	if (tm_fill_table(skb, t, 0, 0, 0, cmd, generation)) {
		nlmsg_free(skb);
		return;
	}
	tm_genl_multicast(net, skb);
}

/* A table name attribute that is present and not empty. */
const char *tm_get_name(struct genl_info *info)
{
	const char *name;

	if (GENL_REQ_ATTR_CHECK(info, TM_A_TABLE_NAME))
		return NULL;
	name = nla_data(info->attrs[TM_A_TABLE_NAME]);
	if (!*name) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[TM_A_TABLE_NAME],
				    "Table name is empty");
		return NULL;
	}
	return name;
}

static int tm_nl_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	struct tm_net *tn = tm_net(genl_info_net(info));
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &tm_genl_family, 0,
				TM_CMD_STATS_GET);
	if (!hdr)
		goto nospace;
	mutex_lock(&tn->lock);
	if (nla_put_u32(msg, TM_A_NET_TABLES, tm_tables_visible(tn)) ||
	    tm_put_generation(msg, tn->generation)) {
		mutex_unlock(&tn->lock);
		goto nospace;
	}
	mutex_unlock(&tn->lock);
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

nospace:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

/*
 * flush ruleset: every table, service and SID of the namespace goes, in
 * the request's transaction, or in one of its own, begun and committed
 * under one hold of the lock: packets see all of it or nothing.
 */
static int tm_nl_flush(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct tm_net *tn = tm_net(net);
	struct tm_txn *txn, *own = NULL;
	int err;

	mutex_lock(&tn->lock);
	txn = tm_nl_txn(tn, info);
	err = PTR_ERR_OR_ZERO(txn);
	if (!err && !txn) {
		own = tm_txn_new(tn, info->snd_portid);
		txn = own;
		err = own ? 0 : -ENOMEM;
	}
	if (!err)
		err = tm_txn_flush_ruleset(net, tn, txn, info->extack);
	if (own && err)
		tm_txn_abort(net, tn, own);
	else if (own)
		err = tm_txn_commit(net, tn, own, info->extack);
	else if (!err)
		txn->ops++;
	mutex_unlock(&tn->lock);
	return err;
}

static u8 tm_get_u8(struct genl_info *info, int attr, u8 def)
{
	return info->attrs[attr] ? nla_get_u8(info->attrs[attr]) : def;
}

static int tm_nl_table_new(struct sk_buff *skb, struct genl_info *info)
{
	struct tm_net *tn = tm_net(genl_info_net(info));
	struct tm_table_cfg cfg = {
		.name = tm_get_name(info),
		.family = tm_get_u8(info, TM_A_TABLE_FAMILY, TM_FAMILY_INET),
		.hook = tm_get_u8(info, TM_A_TABLE_HOOK, TM_HOOK_INPUT),
		.policy = tm_get_u8(info, TM_A_TABLE_POLICY, TM_POLICY_ACCEPT),
		.engine = tm_get_u8(info, TM_A_TABLE_ENGINE, TM_ENG_TUPLEMERGE),
		.max_rules = TM_MAX_RULES_DEFAULT,
		.max_tuples = TM_MAX_TUPLES_DEFAULT,
	};
	struct tm_params p;
	struct tm_txn *txn;
	int err;

	if (!cfg.name)
		return -EINVAL;
	tm_params_default(&p);
	cfg.collide = tm_get_u8(info, TM_A_TABLE_COLLIDE, p.collide);
	if (info->attrs[TM_A_TABLE_PRIORITY])
		cfg.priority = nla_get_s32(info->attrs[TM_A_TABLE_PRIORITY]);
	if (info->attrs[TM_A_TABLE_MAX_RULES])
		cfg.max_rules = nla_get_u32(info->attrs[TM_A_TABLE_MAX_RULES]);
	if (info->attrs[TM_A_TABLE_MAX_TUPLES])
		cfg.max_tuples =
			nla_get_u32(info->attrs[TM_A_TABLE_MAX_TUPLES]);
	mutex_lock(&tn->lock);
	txn = tm_nl_txn(tn, info);
	err = PTR_ERR_OR_ZERO(txn);
	if (!err)
		err = tm_table_add(genl_info_net(info), &cfg, txn,
				   info->extack);
	if (!err && txn)
		txn->ops++;
	mutex_unlock(&tn->lock);
	return err;
}

/* Delete TM_A_TABLE_NAME, or every table without it. */
static int tm_nl_table_del(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct tm_net *tn = tm_net(net);
	struct tm_table *t;
	struct tm_txn *txn;
	int err = 0;

	mutex_lock(&tn->lock);
	txn = tm_nl_txn(tn, info);
	if (IS_ERR(txn)) {
		err = PTR_ERR(txn);
	} else if (info->attrs[TM_A_TABLE_NAME]) {
		t = tm_nl_table(tn, info);
		err = PTR_ERR_OR_ZERO(t);
		if (!err)
			err = tm_table_del(net, t, txn, info->extack);
	} else {
		err = tm_tables_del_all(net, txn, true, info->extack) ?:
		      tm_tables_del_all(net, txn, false, info->extack);
	}
	if (!err && txn)
		txn->ops++;
	mutex_unlock(&tn->lock);
	return err;
}

static int tm_nl_table_get(struct sk_buff *skb, struct genl_info *info)
{
	struct tm_net *tn = tm_net(genl_info_net(info));
	const char *name = tm_get_name(info);
	struct tm_table *t;
	struct sk_buff *msg;
	int err;

	if (!name)
		return -EINVAL;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&tn->lock);
	t = tm_table_find(tn, name);
	if (!t) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[TM_A_TABLE_NAME],
				    "No table with this name");
		err = -ENOENT;
	} else {
		err = tm_fill_table(msg, t, info->snd_portid, info->snd_seq, 0,
				    TM_CMD_TABLE_GET, tn->generation);
	}
	mutex_unlock(&tn->lock);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/*
 * Dump the tables in handle order, resuming after the last handle sent
 * (cb->args[0]), so that a change between two parts neither repeats nor
 * skips a table that stayed; the part is flagged NLM_F_DUMP_INTR when the
 * generation moved meanwhile.
 */
static int tm_nl_table_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct tm_net *tn = tm_net(sock_net(skb->sk));
	u32 last = cb->args[0];
	struct tm_table *t;
	int err = 0;

	mutex_lock(&tn->lock);
	cb->seq = (u32)tn->generation + 1;
	list_for_each_entry(t, &tn->tables, list) {
		/* Created by an open transaction: not there yet. */
		if (t->handle <= last || t->txn_new)
			continue;
		err = tm_fill_table(skb, t, NETLINK_CB(cb->skb).portid,
				    cb->nlh->nlmsg_seq, NLM_F_MULTI,
				    TM_CMD_TABLE_GET, tn->generation);
		if (err)
			break;
		nl_dump_check_consistent(cb, nlmsg_hdr(skb));
		cb->args[0] = t->handle;
	}
	mutex_unlock(&tn->lock);
	/* A full part ends here; the next call resumes after args[0]. */
	if (err == -EMSGSIZE && skb->len)
		err = 0;
	return err ?: skb->len;
}

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

/* A day at most: a longer timeout is a leak, not a timeout. */
static struct netlink_range_validation tm_lb_timeout_range = {
	.min = 1, .max = TM_LB_TIMEOUT_MAX,
};

#define TM_POLICY_LB_NAME \
	[TM_A_LB_NAME] = { .type = NLA_NUL_STRING, .len = TM_NAME_MAX - 1 }

static const struct nla_policy tm_lb_service_new_policy[TM_A_MAX + 1] = {
	TM_POLICY_LB_NAME,
	[TM_A_LB_VIP] = NLA_POLICY_EXACT_LEN(sizeof(struct in6_addr)),
	[TM_A_LB_SID] = NLA_POLICY_EXACT_LEN(sizeof(struct in6_addr)),
	[TM_A_LB_PROTO] = NLA_POLICY_RANGE(NLA_U8, IPPROTO_TCP, IPPROTO_TCP),
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
	[TM_A_TXN_ID] = { .type = NLA_U32 },
};

static const struct nla_policy tm_lb_name_policy[TM_A_MAX + 1] = {
	TM_POLICY_LB_NAME,
};

static const struct nla_policy tm_lb_service_del_policy[TM_A_MAX + 1] = {
	TM_POLICY_LB_NAME,
	[TM_A_TXN_ID] = { .type = NLA_U32 },
};

/*
 * Not NLA_POLICY_RANGE(NLA_U32, 1, 65535): struct nla_policy keeps min and
 * max as s16, so 65535 became -1, which WARNed in lib/nlattr.c and left no
 * upper bound.  Any bound above S16_MAX takes a netlink_range_validation.
 */
static struct netlink_range_validation tm_lb_weight_range = {
	.min = 1, .max = TM_LB_WEIGHT_MAX,
};

static const struct nla_policy tm_lb_backend_policy[TM_A_MAX + 1] = {
	TM_POLICY_LB_NAME,
	[TM_A_LB_BACKEND_SID] = NLA_POLICY_EXACT_LEN(sizeof(struct in6_addr)),
	[TM_A_LB_BACKEND_WEIGHT] = NLA_POLICY_FULL_RANGE(NLA_U32,
							 &tm_lb_weight_range),
	[TM_A_TXN_ID] = { .type = NLA_U32 },
};

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
	},
	{
		.cmd = TM_CMD_TABLE_NEW,
		.doit = tm_nl_table_new,
		.policy = tm_table_new_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = TM_CMD_TABLE_DEL,
		.doit = tm_nl_table_del,
		.policy = tm_table_del_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = TM_CMD_TABLE_GET,
		.doit = tm_nl_table_get,
		.dumpit = tm_nl_table_dump,
		.policy = tm_table_name_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = TM_CMD_RULE_NEW,
		.doit = tm_nl_rule_new,
		.policy = tm_rule_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = TM_CMD_RULE_SET,
		.doit = tm_nl_rule_set,
		.policy = tm_rule_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = TM_CMD_RULE_DEL,
		.doit = tm_nl_rule_del,
		.policy = tm_rule_del_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
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
	},
	{
		.cmd = TM_CMD_RULE_LOOKUP,
		.doit = tm_nl_rule_lookup,
		.policy = tm_rule_lookup_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = TM_CMD_COUNTERS_RESET,
		.doit = tm_nl_counters_reset,
		.policy = tm_rule_get_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = TM_CMD_TXN_BEGIN,
		.doit = tm_nl_txn_begin,
		.policy = tm_txn_begin_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = TM_CMD_TXN_COMMIT,
		.doit = tm_nl_txn_commit,
		.policy = tm_txn_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = TM_CMD_TXN_ABORT,
		.doit = tm_nl_txn_abort,
		.policy = tm_txn_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = TM_CMD_SID_NEW,
		.doit = tm_nl_sid_new,
		.policy = tm_sid_new_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = TM_CMD_SID_SET,
		.doit = tm_nl_sid_set,
		.policy = tm_sid_new_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = TM_CMD_SID_LOAD,
		.doit = tm_nl_sid_load,
		.policy = tm_sid_load_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = TM_CMD_SID_DEL,
		.doit = tm_nl_sid_del,
		.policy = tm_sid_del_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = TM_CMD_SID_GET,
		.doit = tm_nl_sid_get,
		.dumpit = tm_nl_sid_dump,
		.policy = tm_sid_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = TM_CMD_LB_SERVICE_NEW,
		.doit = tm_nl_lb_service_new,
		.policy = tm_lb_service_new_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = TM_CMD_LB_SERVICE_DEL,
		.doit = tm_nl_lb_service_del,
		.policy = tm_lb_service_del_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = TM_CMD_LB_SERVICE_GET,
		.doit = tm_nl_lb_service_get,
		.dumpit = tm_nl_lb_service_dump,
		.policy = tm_lb_name_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = TM_CMD_LB_BACKEND_NEW,
		.doit = tm_nl_lb_backend_new,
		.policy = tm_lb_backend_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = TM_CMD_LB_BACKEND_DEL,
		.doit = tm_nl_lb_backend_del,
		.policy = tm_lb_backend_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = TM_CMD_LB_FLOW_GET,
		.dumpit = tm_nl_lb_flow_dump,
		.policy = tm_lb_name_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = TM_CMD_LB_FLOW_FLUSH,
		.doit = tm_nl_lb_flow_flush,
		.policy = tm_lb_name_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = TM_CMD_FLUSH,
		.doit = tm_nl_flush,
		.policy = tm_txn_policy,
		.maxattr = TM_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
};

struct genl_family tm_genl_family __ro_after_init = {
	.name = TM_GENL_NAME,
	.version = TM_GENL_VERSION,
	.maxattr = TM_A_MAX,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
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
