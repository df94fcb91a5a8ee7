// SPDX-License-Identifier: GPL-2.0
/*
 * The table commands of the "tuplemerge" family and the namespace's
 * statistics: table new, del, get and dump, the table message format
 * (replies, dumps, events), and finding the table a request names as its
 * transaction sees it.  The tables themselves are classifier/table.c's.
 */
#include <linux/percpu.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "netns.h"
#include "txn.h"
#include "netlink/genl.h"

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
	    nla_put_u32(skb, TM_A_TABLE_ENTRIES, t->rules.nentries) ||
	    nla_put_u8(skb, TM_A_TABLE_COLLIDE, t->collide) ||
	    nla_put_u32(skb, TM_A_TABLE_MAX_RULES, t->max_rules) ||
	    nla_put_u32(skb, TM_A_TABLE_MAX_TUPLES, t->max_tuples) ||
	    nla_put_u32(skb, TM_A_TABLE_TUPLES, st.tuples) ||
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
	struct sk_buff *skb = tm_genl_event_new(net, NLMSG_GOODSIZE);
	int err;

	if (!skb)
		return;
	err = tm_fill_table(skb, t, 0, 0, 0, cmd, generation);
	tm_genl_event_send(net, skb, err);
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

int tm_nl_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	struct tm_net *tn = tm_net(genl_info_net(info));
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &tm_genl_family, 0,
				TM_CMD_STATS_GET);
	if (!hdr ||
	    nla_put_u32(msg, TM_A_NET_TABLES, tm_tables_visible(tn)) ||
	    tm_put_generation(msg, tn->generation))
		goto nospace;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

nospace:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

static u8 tm_get_u8(struct genl_info *info, int attr, u8 def)
{
	return info->attrs[attr] ? nla_get_u8(info->attrs[attr]) : def;
}

int tm_nl_table_new(struct sk_buff *skb, struct genl_info *info)
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
	txn = tm_nl_txn(tn, info);
	err = PTR_ERR_OR_ZERO(txn);
	if (!err)
		err = tm_table_add(genl_info_net(info), &cfg, txn,
				   info->extack);
	if (!err && txn)
		txn->ops++;
	return err;
}

/* Delete TM_A_TABLE_NAME, or every table without it. */
int tm_nl_table_del(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct tm_net *tn = tm_net(net);
	struct tm_table *t;
	struct tm_txn *txn;
	int err;

	if (info->attrs[TM_A_TABLE_NAME]) {
		t = tm_nl_table(tn, info, &txn);
		if (IS_ERR(t))
			return PTR_ERR(t);
		err = tm_table_del(net, t, txn, info->extack);
	} else {
		txn = tm_nl_txn(tn, info);
		if (IS_ERR(txn))
			return PTR_ERR(txn);
		err = tm_tables_del_all(net, txn, true, info->extack) ?:
		      tm_tables_del_all(net, txn, false, info->extack);
	}
	if (!err && txn)
		txn->ops++;
	return err;
}

/* TM_NL_TABLE: the family's pre_doit found the table. */
int tm_nl_table_get(struct sk_buff *skb, struct genl_info *info)
{
	struct tm_net *tn = tm_net(genl_info_net(info));
	struct sk_buff *msg;
	int err;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	err = tm_fill_table(msg, tm_nl_info_table(info), info->snd_portid,
			    info->snd_seq, 0, TM_CMD_TABLE_GET,
			    tn->generation);
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
int tm_nl_table_dump(struct sk_buff *skb, struct netlink_callback *cb)
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

/*
 * The table TM_A_TABLE_NAME, as the request's transaction sees it; that
 * transaction in *@txnp (NULL: none).  The family's pre_doit calls it for
 * the commands flagged TM_NL_TABLE.
 */
struct tm_table *tm_nl_table(struct tm_net *tn, struct genl_info *info,
			     struct tm_txn **txnp)
{
	const char *name = tm_get_name(info);
	struct tm_table *t;
	struct tm_txn *txn;

	if (!name)
		return ERR_PTR(-EINVAL);
	txn = tm_nl_txn(tn, info);
	if (IS_ERR(txn))
		return ERR_CAST(txn);
	*txnp = txn;
	t = tm_table_find_txn(tn, name, txn);
	if (!t) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[TM_A_TABLE_NAME],
				    "No table with this name");
		return ERR_PTR(-ENOENT);
	}
	return t;
}
