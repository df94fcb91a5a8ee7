// SPDX-License-Identifier: GPL-2.0
/*
 * The SID commands of the "tuplemerge" family (TM_CMD_SID_NEW, _SET, _LOAD,
 * _DEL, _GET): parsing, replies, dumps and change events.  NEW, SET and DEL
 * may belong to a transaction (TM_A_TXN_ID): their events then come with
 * its commit.  The bindings themselves are sid.c's;
 * include/uapi/linux/tuplemerge.h documents the commands.
 */
#include <linux/stringify.h>
#include <net/genetlink.h>
#include <net/ipv6.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "netns.h"
#include "txn.h"
#include "netlink/genl.h"

static const u8 tm_sidc_attr[TM_SIDC_MAX] = {
	[TM_SIDC_ACCEPTED] = TM_A_SID_ACCEPTED,
	[TM_SIDC_PASSED] = TM_A_SID_PASSED,
	[TM_SIDC_FORCED] = TM_A_SID_FORCED,
	[TM_SIDC_STEERED] = TM_A_SID_STEERED,
	[TM_SIDC_UNKNOWN] = TM_A_SID_UNKNOWN,
	[TM_SIDC_MALFORMED] = TM_A_SID_MALFORMED,
	[TM_SIDC_REPORTS] = TM_A_SID_REPORTS,
	[TM_SIDC_HMAC_BAD] = TM_A_SID_HMAC_BAD,
	[TM_SIDC_HMAC_NOKEY] = TM_A_SID_HMAC_NOKEY,
};

static int tm_fill_sid(struct sk_buff *skb, const struct tm_sid *sid,
		       u32 portid, u32 seq, int flags, u8 cmd, u64 generation,
		       bool counters)
{
	u64 c[TM_SIDC_MAX];
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &tm_genl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_in6_addr(skb, TM_A_SID_ADDR, &sid->addr) ||
	    nla_put_u8(skb, TM_A_SID_POLICY, READ_ONCE(sid->policy)) ||
	    tm_put_generation(skb, generation))
		goto nospace;
	if (READ_ONCE(sid->policy) != TM_SID_POLICY_ALWAYS &&
	    READ_ONCE(sid->policy) != TM_SID_POLICY_NEVER)
		if (nla_put_u32(skb, TM_A_SID_THRESHOLD,
				READ_ONCE(sid->threshold)))
			goto nospace;
	if (READ_ONCE(sid->hmac) &&
	    nla_put_u32(skb, TM_A_SID_HMAC_KEY, READ_ONCE(sid->hmac)))
		goto nospace;
	if (nla_put_u32(skb, TM_A_SID_IDLE_TIMEOUT, READ_ONCE(sid->to.idle)) ||
	    nla_put_u32(skb, TM_A_SID_CLOSE_TIMEOUT,
			READ_ONCE(sid->to.close)) ||
	    nla_put_u32(skb, TM_A_SID_SYN_TIMEOUT, READ_ONCE(sid->to.syn)) ||
	    nla_put_u32(skb, TM_A_SID_UDP_TIMEOUT, READ_ONCE(sid->to.udp)))
		goto nospace;
	if (counters) {
		if (nla_put_u32(skb, TM_A_SID_CONNS,
				max(atomic_read(&sid->conns), 0)) ||
		    nla_put_u32(skb, TM_A_SID_LOAD, READ_ONCE(sid->load)))
			goto nospace;
		/* In 1/65536 of a connection: thousandths, rounded down. */
		if (READ_ONCE(sid->policy) == TM_SID_POLICY_DYN &&
		    nla_put_u32(skb, TM_A_SID_DYN,
				(u32)(((u64)atomic_read(&sid->dyn) * 1000) >>
				      16)))
			goto nospace;
		tm_sid_read(sid, c);
		if (tm_put_counters(skb, tm_sidc_attr, c, TM_SIDC_MAX))
			goto nospace;
	}
	genlmsg_end(skb, hdr);
	return 0;

nospace:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

void tm_sid_notify(struct net *net, const struct tm_sid *sid, u8 cmd,
		   u64 generation)
{
	struct sk_buff *skb = tm_genl_event_new(net, NLMSG_GOODSIZE);
	int err;

	if (!skb)
		return;
	err = tm_fill_sid(skb, sid, 0, 0, 0, cmd, generation, false);
	tm_genl_event_send(net, skb, err);
}

/* The SID address of a request, with an extack when missing or bad. */
static int tm_get_sid(struct genl_info *info, struct in6_addr *a)
{
	const struct nlattr *attr = info->attrs[TM_A_SID_ADDR];

	if (GENL_REQ_ATTR_CHECK(info, TM_A_SID_ADDR))
		return -EINVAL;
	*a = nla_get_in6_addr(attr);
	if (ipv6_addr_any(a) || ipv6_addr_is_multicast(a) ||
	    ipv6_addr_v4mapped(a)) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "A SID must be a unicast IPv6 address");
		return -EINVAL;
	}
	return 0;
}

static int tm_nl_sid_change(struct sk_buff *skb, struct genl_info *info,
			    bool replace)
{
	struct net *net = genl_info_net(info);
	struct tm_net *tn = tm_net(net);
	struct tm_sid_cfg cfg = {};
	struct tm_sid *sid;
	struct tm_txn *txn;
	bool thr;
	int err;

	err = tm_get_sid(info, &cfg.addr);
	if (err)
		return err;
	if (GENL_REQ_ATTR_CHECK(info, TM_A_SID_POLICY))
		return -EINVAL;
	cfg.policy = nla_get_u8(info->attrs[TM_A_SID_POLICY]);
	thr = cfg.policy != TM_SID_POLICY_ALWAYS &&
	      cfg.policy != TM_SID_POLICY_NEVER;
	if (thr && GENL_REQ_ATTR_CHECK(info, TM_A_SID_THRESHOLD)) {
		NL_SET_ERR_MSG(info->extack,
			       "This policy needs a threshold");
		return -EINVAL;
	}
	if (!thr && info->attrs[TM_A_SID_THRESHOLD]) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[TM_A_SID_THRESHOLD],
				    "Only the conns, backlog and load policies take a threshold");
		return -EINVAL;
	}
	if (thr)
		cfg.threshold = nla_get_u32(info->attrs[TM_A_SID_THRESHOLD]);
	if (cfg.policy == TM_SID_POLICY_DYN &&
	    cfg.threshold > TM_SID_DYN_MAX) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[TM_A_SID_THRESHOLD],
				    "The dyn policy's threshold is at most "
				    __stringify(TM_SID_DYN_MAX));
		return -ERANGE;
	}
	/* A key id that need not exist yet: see tm_nl_lb_service_new(). */
	if (info->attrs[TM_A_SID_HMAC_KEY])
		cfg.hmac = nla_get_u32(info->attrs[TM_A_SID_HMAC_KEY]);
	/* The policy checked the ranges. */
	cfg.to.idle = tm_get_u32_or(info, TM_A_SID_IDLE_TIMEOUT,
				    TM_SID_IDLE_TIMEOUT_DEFAULT);
	cfg.to.close = tm_get_u32_or(info, TM_A_SID_CLOSE_TIMEOUT,
				     TM_SID_CLOSE_TIMEOUT_DEFAULT);
	cfg.to.syn = tm_get_u32_or(info, TM_A_SID_SYN_TIMEOUT,
				   TM_SID_SYN_TIMEOUT_DEFAULT);
	cfg.to.udp = tm_get_u32_or(info, TM_A_SID_UDP_TIMEOUT,
				   TM_SID_UDP_TIMEOUT_DEFAULT);
	/* Both the socket's opener and the caller, as GENL_ADMIN_PERM. */
	cfg.global_ok = netlink_capable(skb, CAP_NET_ADMIN);

	txn = tm_nl_txn(tn, info);
	err = PTR_ERR_OR_ZERO(txn);
	if (!err)
		err = tm_sid_add(net, tn, &cfg, replace, txn, info->extack,
				 &sid);
	if (!err && txn) {
		txn->ops++;
	} else if (!err) {
		tm_sid_notify(net, sid,
			      replace ? TM_CMD_SID_SET : TM_CMD_SID_NEW,
			      tm_net_changed(tn));
	}
	return err;
}

int tm_nl_sid_new(struct sk_buff *skb, struct genl_info *info)
{
	return tm_nl_sid_change(skb, info, false);
}

int tm_nl_sid_set(struct sk_buff *skb, struct genl_info *info)
{
	return tm_nl_sid_change(skb, info, true);
}

/*
 * The binding of @a as transaction @txn (NULL: none) sees it, under
 * tm_net.lock; NULL with an extack if none.
 */
static struct tm_sid *tm_sid_bound(struct tm_net *tn, struct genl_info *info,
				   const struct in6_addr *a,
				   const struct tm_txn *txn)
{
	struct tm_sid *sid = tm_sid_find_txn(tn, a, txn);

	if (!sid)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[TM_A_SID_ADDR],
				    "No such SID bound in this namespace");
	return sid;
}

int tm_nl_sid_load(struct sk_buff *skb, struct genl_info *info)
{
	struct tm_net *tn = tm_net(genl_info_net(info));
	struct in6_addr a;
	struct tm_sid *sid;
	int err;

	err = tm_get_sid(info, &a);
	if (err)
		return err;
	if (GENL_REQ_ATTR_CHECK(info, TM_A_SID_LOAD))
		return -EINVAL;
	sid = tm_sid_bound(tn, info, &a, NULL);
	if (!sid) {
		err = -ENOENT;
	} else {
		/* Read by the hook without a lock. */
		WRITE_ONCE(sid->load, nla_get_u32(info->attrs[TM_A_SID_LOAD]));
	}
	return err;
}

int tm_nl_sid_del(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct tm_net *tn = tm_net(net);
	struct in6_addr a;
	struct tm_sid *sid;
	struct tm_txn *txn;
	int err;

	err = tm_get_sid(info, &a);
	if (err)
		return err;
	txn = tm_nl_txn(tn, info);
	err = PTR_ERR_OR_ZERO(txn);
	sid = err ? NULL : tm_sid_bound(tn, info, &a, txn);
	if (!sid) {
		err = err ?: -ENOENT;
	} else if (txn) {
		err = tm_sid_del(net, tn, sid, txn, info->extack);
		if (!err)
			txn->ops++;
	} else {
		tm_sid_notify(net, sid, TM_CMD_SID_DEL, tm_net_changed(tn));
		tm_sid_del(net, tn, sid, NULL, info->extack);
	}
	return err;
}

int tm_nl_sid_get(struct sk_buff *skb, struct genl_info *info)
{
	struct tm_net *tn = tm_net(genl_info_net(info));
	struct sk_buff *msg;
	struct in6_addr a;
	struct tm_sid *sid;
	int err;

	err = tm_get_sid(info, &a);
	if (err)
		return err;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	sid = tm_sid_bound(tn, info, &a, NULL);
	if (!sid) {
		err = -ENOENT;
	} else {
		err = tm_fill_sid(msg, sid, info->snd_portid, info->snd_seq, 0,
				  TM_CMD_SID_GET, tn->generation, true);
	}
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/*
 * Dump every SID, resuming at bucket cb->args[0], entry cb->args[1]; the
 * part is flagged NLM_F_DUMP_INTR when the generation moved meanwhile.
 */
int tm_nl_sid_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct tm_net *tn = tm_net(sock_net(skb->sk));
	unsigned long b, i;
	struct tm_sid *sid;
	int err = 0;

	mutex_lock(&tn->lock);
	cb->seq = (u32)tn->generation + 1;
	for (b = cb->args[0]; b < TM_SID_BUCKETS; b++, cb->args[1] = 0) {
		i = 0;
		hlist_for_each_entry(sid, &tn->sids.hash[b], node) {
			if (i++ < cb->args[1])
				continue;
			err = tm_fill_sid(skb, sid, NETLINK_CB(cb->skb).portid,
					  cb->nlh->nlmsg_seq, NLM_F_MULTI,
					  TM_CMD_SID_GET, tn->generation, true);
			if (err)
				goto out;
			nl_dump_check_consistent(cb, nlmsg_hdr(skb));
			cb->args[1] = i;
		}
		cb->args[0] = b + 1;
	}
out:
	mutex_unlock(&tn->lock);
	if (err == -EMSGSIZE && skb->len)
		err = 0;
	return err ?: skb->len;
}
