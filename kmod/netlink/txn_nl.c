// SPDX-License-Identifier: GPL-2.0
/*
 * The transaction commands of the "tuplemerge" family: begin, commit,
 * abort, flush ruleset, and finding the open transaction a request names
 * (TM_A_TXN_ID).  The transactions themselves are txn.c's.
 */
#include <net/genetlink.h>
#include <net/netlink.h>

#include "netns.h"
#include "txn.h"
#include "netlink/genl.h"

/*
 * The open transaction TM_A_TXN_ID of @info's socket, NULL when the request
 * names none, or an error (set in @info's extack).
 */
struct tm_txn *tm_nl_txn(struct tm_net *tn, struct genl_info *info)
{
	struct tm_txn *txn;

	if (!info->attrs[TM_A_TXN_ID])
		return NULL;
	txn = tm_txn_find(tn, nla_get_u32(info->attrs[TM_A_TXN_ID]),
			  info->snd_portid, false, info->extack);
	if (!IS_ERR(txn) && txn->ops >= TM_TXN_MAX_OPS) {
		NL_SET_ERR_MSG(info->extack,
			       "Transaction too large: at most 4194304 requests");
		return ERR_PTR(-E2BIG);
	}
	return txn;
}

int tm_nl_txn_begin(struct sk_buff *skb, struct genl_info *info)
{
	struct tm_net *tn = tm_net(genl_info_net(info));
	struct sk_buff *msg;
	void *hdr;
	u32 id;
	int err;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &tm_genl_family, 0,
				TM_CMD_TXN_BEGIN);
	err = hdr ? 0 : -EMSGSIZE;
	if (!err)
		err = tm_txn_begin(tn, info->snd_portid, &id, info->extack);
	if (!err && (nla_put_u32(msg, TM_A_TXN_ID, id) ||
		     tm_put_generation(msg, tn->generation))) {
		tm_txn_abort(genl_info_net(info), tn,
			     tm_txn_find(tn, id, info->snd_portid, true, NULL));
		err = -EMSGSIZE;
	}
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int tm_nl_txn_end(struct genl_info *info, bool commit)
{
	struct net *net = genl_info_net(info);
	struct tm_net *tn = tm_net(net);
	struct tm_txn *txn;
	int err = 0;

	if (GENL_REQ_ATTR_CHECK(info, TM_A_TXN_ID))
		return -EINVAL;
	txn = tm_txn_find(tn, nla_get_u32(info->attrs[TM_A_TXN_ID]),
			  info->snd_portid, true, info->extack);
	if (IS_ERR(txn)) {
		err = PTR_ERR(txn);
	} else if (commit && txn->stale) {
		/* A spoilt transaction ends with the error that says so. */
		NL_SET_ERR_MSG(info->extack,
			       "What the transaction changes was changed outside it: nothing committed, run it again");
		tm_txn_abort(net, tn, txn);
		err = -EBUSY;
	} else if (commit) {
		err = tm_txn_commit(net, tn, txn, info->extack);
	} else {
		tm_txn_abort(net, tn, txn);
	}
	return err;
}

int tm_nl_txn_commit(struct sk_buff *skb, struct genl_info *info)
{
	return tm_nl_txn_end(info, true);
}

int tm_nl_txn_abort(struct sk_buff *skb, struct genl_info *info)
{
	return tm_nl_txn_end(info, false);
}

/*
 * flush ruleset: every table, service and SID of the namespace goes, in
 * the request's transaction, or in one of its own, begun and committed
 * under one hold of the lock: packets see all of it or nothing.
 */
int tm_nl_flush(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct tm_net *tn = tm_net(net);
	struct tm_txn *txn, *own = NULL;
	int err;

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
	return err;
}
