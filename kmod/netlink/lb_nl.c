// SPDX-License-Identifier: GPL-2.0
/*
 * The load-balancer commands of the "tuplemerge" family
 * (TM_CMD_LB_SERVICE_*, TM_CMD_LB_BACKEND_*, TM_CMD_LB_FLOW_*): parsing,
 * replies, dumps and change events.  Service and backend changes may
 * belong to a transaction (TM_A_TXN_ID): their events then come with its
 * commit.  The services, backends and flows themselves are lb.c's;
 * include/uapi/linux/tuplemerge.h documents the commands.
 */
#include <linux/jiffies.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/ipv6.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "netns.h"
#include "txn.h"
#include "netlink/genl.h"
#include "srv6/tm_maglev.h"

static const u8 tm_lbc_attr[TM_LBC_MAX] = {
	[TM_LBC_HUNTS] = TM_A_LB_HUNTS,
	[TM_LBC_RECOVERIES] = TM_A_LB_RECOVERIES,
	[TM_LBC_STEERED] = TM_A_LB_STEERED,
	[TM_LBC_REPORTS] = TM_A_LB_REPORTS,
	[TM_LBC_LEARNED] = TM_A_LB_LEARNED,
	[TM_LBC_EXPIRED] = TM_A_LB_EXPIRED,
	[TM_LBC_FULL] = TM_A_LB_FULL,
	[TM_LBC_DROPPED] = TM_A_LB_DROPPED,
	[TM_LBC_TOO_BIG] = TM_A_LB_TOO_BIG,
	[TM_LBC_MALFORMED] = TM_A_LB_MALFORMED,
	[TM_LBC_REFUSED] = TM_A_LB_REFUSED,
	[TM_LBC_EVICTED] = TM_A_LB_EVICTED,
	[TM_LBC_NS_FULL] = TM_A_LB_NS_FULL,
	[TM_LBC_HMAC_BAD] = TM_A_LB_HMAC_BAD,
	[TM_LBC_HMAC_NOKEY] = TM_A_LB_HMAC_NOKEY,
};

/* A backend: its SID, weight, figures and health. */
#define TM_LB_BACKEND_SIZE	nla_total_size(nla_total_size(16) + \
					       2 * nla_total_size(4) + \
					       2 * nla_total_size(1) + \
					       5 * nla_total_size_64bit(8))
#define TM_LB_SVC_MSG_SIZE	(NLMSG_GOODSIZE + TM_LB_MAX_BACKENDS * \
				 TM_LB_BACKEND_SIZE)

/* The health of backend @bk of a service with health checks. */
static int tm_put_health(struct sk_buff *skb, const struct tm_lb_bk *bk)
{
	return nla_put_u8(skb, TM_A_LB_BACKEND_HEALTH,
			  bk->down ? TM_LB_HEALTH_DOWN : TM_LB_HEALTH_UP) ||
	       nla_put_u8(skb, TM_A_LB_BACKEND_HEALTH_WHY, bk->why);
}

/* Backend @b of @svc, with its figures @bk (NULL: none). */
static int tm_put_backend(struct sk_buff *skb, const struct tm_lb_svc *svc,
			  const struct tm_lb_backend *b,
			  const struct tm_lb_bk *bk)
{
	struct nlattr *nest = nla_nest_start(skb, TM_A_LB_BACKEND);

	if (!nest ||
	    nla_put_in6_addr(skb, TM_A_LB_BACKEND_SID, &b->sid) ||
	    nla_put_u32(skb, TM_A_LB_BACKEND_WEIGHT, b->weight))
		return -EMSGSIZE;
	if (bk &&
	    (nla_put_u32(skb, TM_A_LB_BACKEND_ACTIVE,
			 max(atomic_read(&bk->active), 0)) ||
	     nla_put_u64_64bit(skb, TM_A_LB_BACKEND_LEARNED,
			       atomic64_read(&bk->learned), TM_A_PAD) ||
	     nla_put_u64_64bit(skb, TM_A_LB_BACKEND_FORCED,
			       atomic64_read(&bk->forced), TM_A_PAD)))
		return -EMSGSIZE;
	if (bk && svc->health.interval &&
	    (tm_put_health(skb, bk) ||
	     nla_put_u64_64bit(skb, TM_A_LB_BACKEND_PROBES, bk->probes,
			       TM_A_PAD) ||
	     nla_put_u64_64bit(skb, TM_A_LB_BACKEND_PROBES_FAILED,
			       bk->failed, TM_A_PAD) ||
	     nla_put_u64_64bit(skb, TM_A_LB_BACKEND_TRANSITIONS,
			       bk->transitions, TM_A_PAD)))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * The figures of backend @i of @svc: its table's, which has the backends
 * in the same order.  Under tm_net.lock.
 */
static const struct tm_lb_bk *tm_lb_backend_bk(const struct tm_lb_svc *svc,
					       u32 i)
{
	const struct tm_lb_tab *tab = rcu_dereference_protected(svc->tab,
								true);

	if (!tab || i >= tab->n ||
	    !ipv6_addr_equal(&tab->sids[i], &svc->backends[i].sid))
		return NULL;
	return tab->bk[i];
}

/* The health checks of @svc, if any. */
static int tm_put_health_cfg(struct sk_buff *skb, const struct tm_lb_svc *svc)
{
	const struct tm_lb_hc *h = &svc->health;

	if (!h->interval)
		return 0;
	if (nla_put_u32(skb, TM_A_LB_HEALTH_INTERVAL, h->interval) ||
	    nla_put_u32(skb, TM_A_LB_HEALTH_TIMEOUT, h->timeout) ||
	    nla_put_u32(skb, TM_A_LB_HEALTH_RISE, h->rise) ||
	    nla_put_u32(skb, TM_A_LB_HEALTH_FALL, h->fall) ||
	    (h->listener && nla_put_flag(skb, TM_A_LB_HEALTH_LISTENER)))
		return -EMSGSIZE;
	return 0;
}

/*
 * A service; with @full its backends and counters, else (events) its
 * configuration and, for a backend event, that backend @b (and its
 * health @bk, for a health event).
 */
static int tm_fill_svc(struct sk_buff *skb, const struct tm_lb_svc *svc,
		       const struct tm_lb_backend *b,
		       const struct tm_lb_bk *bk, u32 portid, u32 seq,
		       int flags, u8 cmd, u64 generation, bool full)
{
	u64 c[TM_LBC_MAX];
	struct nlattr *nest;
	unsigned int i;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &tm_genl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_string(skb, TM_A_LB_NAME, svc->name) ||
	    nla_put_in6_addr(skb, TM_A_LB_VIP, &svc->vip) ||
	    nla_put_u8(skb, TM_A_LB_VIP_LEN, svc->vip_len) ||
	    nla_put_u8(skb, TM_A_LB_PROTO, svc->proto) ||
	    nla_put_u16(skb, TM_A_LB_PORT, ntohs(svc->port)) ||
	    nla_put_in6_addr(skb, TM_A_LB_SID, &svc->sid) ||
	    nla_put_u8(skb, TM_A_LB_CHOICES, svc->k) ||
	    nla_put_u8(skb, TM_A_LB_AFFINITY, svc->affinity) ||
	    nla_put_u32(skb, TM_A_LB_TABLE_SIZE, svc->size) ||
	    nla_put_u32(skb, TM_A_LB_MAX_FLOWS, svc->max_flows) ||
	    nla_put_u32(skb, TM_A_LB_IDLE_TIMEOUT, svc->idle) ||
	    nla_put_u32(skb, TM_A_LB_FIN_TIMEOUT, svc->fin) ||
	    nla_put_u32(skb, TM_A_LB_SYN_TIMEOUT, svc->syn) ||
	    tm_put_generation(skb, generation))
		goto nospace;
	if ((svc->hmac && nla_put_u32(skb, TM_A_LB_HMAC_KEY, svc->hmac)) ||
	    tm_put_health_cfg(skb, svc))
		goto nospace;
	if (b && (nla_put_in6_addr(skb, TM_A_LB_BACKEND_SID, &b->sid) ||
		  nla_put_u32(skb, TM_A_LB_BACKEND_WEIGHT, b->weight)))
		goto nospace;
	if (bk && tm_put_health(skb, bk))
		goto nospace;
	if (full) {
		nest = nla_nest_start(skb, TM_A_LB_BACKENDS);
		if (!nest)
			goto nospace;
		for (i = 0; i < svc->nbackends; i++)
			if (tm_put_backend(skb, svc, &svc->backends[i],
					   tm_lb_backend_bk(svc, i)))
				goto nospace;
		nla_nest_end(skb, nest);
		if (nla_put_u32(skb, TM_A_LB_FLOWS,
				max(atomic_read(&svc->nflows), 0)) ||
		    nla_put_u32(skb, TM_A_LB_TABLES, svc->tab_gen))
			goto nospace;
		tm_lb_read(svc, c);
		if (tm_put_counters(skb, tm_lbc_attr, c, TM_LBC_MAX))
			goto nospace;
	}
	genlmsg_end(skb, hdr);
	return 0;

nospace:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

void tm_lb_notify(struct net *net, const struct tm_lb_svc *svc,
		  const struct tm_lb_backend *b, u8 cmd, u64 generation)
{
	struct sk_buff *skb = tm_genl_event_new(net, NLMSG_GOODSIZE);
	int err;

	if (!skb)
		return;
	err = tm_fill_svc(skb, svc, b, NULL, 0, 0, 0, cmd, generation, false);
	tm_genl_event_send(net, skb, err);
}

/* Backend @b of @svc went up or down, as @bk says. */
void tm_lb_notify_health(struct net *net, const struct tm_lb_svc *svc,
			 const struct tm_lb_backend *b,
			 const struct tm_lb_bk *bk, u64 generation)
{
	struct sk_buff *skb = tm_genl_event_new(net, NLMSG_GOODSIZE);
	int err;

	if (!skb)
		return;
	err = tm_fill_svc(skb, svc, b, bk, 0, 0, 0, TM_CMD_LB_BACKEND_HEALTH,
			  generation, false);
	tm_genl_event_send(net, skb, err);
}

/*
 * The IPv6 address attribute @type, required: 0, -EINVAL when missing (with
 * an extack), -EDOM when not unicast (the caller says why).
 */
/* Has @a no bit set past its first @len? */
static bool tm_addr_is_prefix(const struct in6_addr *a, u8 len)
{
	struct in6_addr m;

	ipv6_addr_prefix(&m, a, len);
	return ipv6_addr_equal(&m, a);
}

static int tm_get_unicast(struct genl_info *info, int type,
			  struct in6_addr *a)
{
	if (GENL_REQ_ATTR_CHECK(info, type))
		return -EINVAL;
	*a = nla_get_in6_addr(info->attrs[type]);
	if (ipv6_addr_any(a) || ipv6_addr_is_multicast(a) ||
	    ipv6_addr_v4mapped(a) || ipv6_addr_loopback(a))
		return -EDOM;
	return 0;
}

/*
 * The health checks of a new service into @h: none without
 * TM_A_LB_HEALTH_INTERVAL (then none of the others may come), else the
 * defaults for those missing; the policy checked the ranges.
 */
static int tm_get_health(struct genl_info *info, struct tm_lb_hc *h)
{
	struct nlattr **a = info->attrs;

	h->interval = tm_get_u32_or(info, TM_A_LB_HEALTH_INTERVAL, 0);
	if (!h->interval) {
		int t;

		for (t = TM_A_LB_HEALTH_TIMEOUT; t <= TM_A_LB_HEALTH_LISTENER;
		     t++)
			if (a[t]) {
				NL_SET_ERR_MSG_ATTR(info->extack, a[t],
						    "Health check settings need a health check interval");
				return -EINVAL;
			}
		return 0;
	}
	h->timeout = tm_get_u32_or(info, TM_A_LB_HEALTH_TIMEOUT,
				   min_t(u32, h->interval,
					 TM_LB_HEALTH_TIMEOUT_DEFAULT));
	if (h->timeout > h->interval) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[TM_A_LB_HEALTH_TIMEOUT],
				    "A probe's timeout cannot exceed the health check interval");
		return -EINVAL;
	}
	h->rise = tm_get_u32_or(info, TM_A_LB_HEALTH_RISE,
				TM_LB_HEALTH_RISE_DEFAULT);
	h->fall = tm_get_u32_or(info, TM_A_LB_HEALTH_FALL,
				TM_LB_HEALTH_FALL_DEFAULT);
	h->listener = nla_get_flag(a[TM_A_LB_HEALTH_LISTENER]);
	return 0;
}

/*
 * The service TM_A_LB_NAME as transaction @txn (NULL: none) sees it,
 * under tm_net.lock; NULL with an extack.
 */
static struct tm_lb_svc *tm_nl_svc(struct tm_net *tn, struct genl_info *info,
				   const struct tm_txn *txn)
{
	struct tm_lb_svc *svc;

	if (GENL_REQ_ATTR_CHECK(info, TM_A_LB_NAME))
		return NULL;
	svc = tm_lb_svc_find_txn(tn, nla_data(info->attrs[TM_A_LB_NAME]),
				 txn);
	if (!svc)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[TM_A_LB_NAME],
				    "No load-balancer service with this name");
	return svc;
}

int tm_nl_lb_service_new(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct tm_net *tn = tm_net(net);
	struct nlattr **a = info->attrs;
	struct tm_lb_cfg cfg = {};
	struct tm_lb_svc *svc;
	struct tm_txn *txn;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, TM_A_LB_NAME))
		return -EINVAL;
	cfg.name = nla_data(a[TM_A_LB_NAME]);
	if (!*cfg.name) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[TM_A_LB_NAME],
				    "A service needs a name");
		return -EINVAL;
	}
	err = tm_get_unicast(info, TM_A_LB_VIP, &cfg.vip);
	if (err == -EDOM) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[TM_A_LB_VIP],
				    "A VIP must be a unicast IPv6 address");
		return -EINVAL;
	}
	if (!err)
		err = tm_get_unicast(info, TM_A_LB_SID, &cfg.sid);
	if (err == -EDOM) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[TM_A_LB_SID],
				    "The load balancer's SID must be a unicast IPv6 address");
		return -EINVAL;
	}
	if (err)
		return err;
	cfg.vip_len = a[TM_A_LB_VIP_LEN] ? nla_get_u8(a[TM_A_LB_VIP_LEN]) : 128;
	if (!tm_addr_is_prefix(&cfg.vip, cfg.vip_len)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[TM_A_LB_VIP_LEN],
				    "The VIP has bits set past its prefix length");
		return -EINVAL;
	}
	if (ipv6_prefix_equal(&cfg.vip, &cfg.sid, cfg.vip_len)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[TM_A_LB_SID],
				    "The load balancer's SID cannot be the VIP, or in its prefix");
		return -EINVAL;
	}
	cfg.proto = a[TM_A_LB_PROTO] ? nla_get_u8(a[TM_A_LB_PROTO]) :
				       IPPROTO_TCP;
	if (cfg.proto != IPPROTO_TCP && cfg.proto != IPPROTO_UDP) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[TM_A_LB_PROTO],
				    "A service is TCP or UDP");
		return -EINVAL;
	}
	cfg.port = htons(a[TM_A_LB_PORT] ? nla_get_u16(a[TM_A_LB_PORT]) : 0);
	cfg.k = a[TM_A_LB_CHOICES] ? nla_get_u8(a[TM_A_LB_CHOICES]) :
				     TM_LB_CHOICES_DEFAULT;
	cfg.affinity = a[TM_A_LB_AFFINITY] ?
		       nla_get_u8(a[TM_A_LB_AFFINITY]) : TM_LB_AFFINITY_NONE;
	cfg.size = tm_get_u32_or(info, TM_A_LB_TABLE_SIZE,
				 TM_LB_TABLE_SIZE_DEFAULT);
	if (!tm_maglev_prime(cfg.size)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[TM_A_LB_TABLE_SIZE],
				    "The table size must be a prime");
		return -EINVAL;
	}
	cfg.max_flows = tm_get_u32_or(info, TM_A_LB_MAX_FLOWS,
				      TM_LB_MAX_FLOWS_DEFAULT);
	cfg.idle = tm_get_u32_or(info, TM_A_LB_IDLE_TIMEOUT,
				 TM_LB_IDLE_TIMEOUT_DEFAULT);
	cfg.fin = tm_get_u32_or(info, TM_A_LB_FIN_TIMEOUT,
				TM_LB_FIN_TIMEOUT_DEFAULT);
	cfg.syn = tm_get_u32_or(info, TM_A_LB_SYN_TIMEOUT,
				TM_LB_SYN_TIMEOUT_DEFAULT);
	/*
	 * A key id, not a key: it need not exist yet ("ip sr hmac" may come
	 * later, and may delete it again at any time); packets then count
	 * hmac-nokey.
	 */
	cfg.hmac = tm_get_u32_or(info, TM_A_LB_HMAC_KEY, 0);
	if (cfg.proto == IPPROTO_UDP && cfg.hmac &&
	    cfg.k > TM_LB_UDP_HMAC_MAX_CHOICES) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[TM_A_LB_CHOICES],
				    "A UDP service with an HMAC key has at most 6 choices");
		return -EINVAL;
	}
	err = tm_get_health(info, &cfg.health);
	if (err)
		return err;

	txn = tm_nl_txn(tn, info);
	err = PTR_ERR_OR_ZERO(txn);
	if (!err)
		err = tm_lb_svc_add(net, tn, &cfg, txn, info->extack, &svc);
	if (!err && txn) {
		txn->ops++;
	} else if (!err) {
		tm_lb_notify(net, svc, NULL, TM_CMD_LB_SERVICE_NEW,
			     tm_net_changed(tn));
	}
	return err;
}

int tm_nl_lb_service_del(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct tm_net *tn = tm_net(net);
	struct tm_lb_svc *svc;
	struct tm_txn *txn;
	int err;

	txn = tm_nl_txn(tn, info);
	err = PTR_ERR_OR_ZERO(txn);
	svc = err ? NULL : tm_nl_svc(tn, info, txn);
	if (!svc) {
		err = err ?: info->attrs[TM_A_LB_NAME] ? -ENOENT : -EINVAL;
	} else if (txn) {
		err = tm_lb_svc_del(net, tn, svc, txn, info->extack);
		if (!err)
			txn->ops++;
	} else {
		err = tm_lb_svc_del(net, tn, svc, NULL, info->extack);
		if (!err) {
			tm_lb_notify(net, svc, NULL, TM_CMD_LB_SERVICE_DEL,
				     tm_net_changed(tn));
			tm_lb_svc_put(svc);
		}
	}
	return err;
}

int tm_nl_lb_service_get(struct sk_buff *skb, struct genl_info *info)
{
	struct tm_net *tn = tm_net(genl_info_net(info));
	struct tm_lb_svc *svc;
	struct sk_buff *msg;
	int err = -ENOENT;

	/* Room for TM_LB_MAX_BACKENDS backends. */
	msg = genlmsg_new(TM_LB_SVC_MSG_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	svc = tm_nl_svc(tn, info, NULL);
	if (svc)
		err = tm_fill_svc(msg, svc, NULL, NULL, info->snd_portid,
				  info->snd_seq, 0, TM_CMD_LB_SERVICE_GET,
				  tn->generation, true);
	else if (!info->attrs[TM_A_LB_NAME])
		err = -EINVAL;
	if (err) {
		nlmsg_free(msg);
		return err == -EMSGSIZE ? -EMSGSIZE : err;
	}
	return genlmsg_reply(msg, info);
}

/* Room in every part of the dump for a service with the most backends. */
int tm_nl_lb_service_dump_start(struct netlink_callback *cb)
{
	cb->min_dump_alloc = TM_LB_SVC_MSG_SIZE;
	return 0;
}

/* Dump the services from the cb->args[0]-th on (the list's order). */
int tm_nl_lb_service_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct tm_net *tn = tm_net(sock_net(skb->sk));
	struct tm_lb_svc *svc;
	unsigned long i = 0;
	int err = 0;

	mutex_lock(&tn->lock);
	cb->seq = (u32)tn->generation + 1;
	list_for_each_entry(svc, &tn->lb.svcs, list) {
		if (i++ < cb->args[0])
			continue;
		err = tm_fill_svc(skb, svc, NULL, NULL,
				  NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, NLM_F_MULTI,
				  TM_CMD_LB_SERVICE_GET, tn->generation, true);
		if (err)
			break;
		nl_dump_check_consistent(cb, nlmsg_hdr(skb));
		cb->args[0] = i;
	}
	mutex_unlock(&tn->lock);
	if (err == -EMSGSIZE && skb->len)
		err = 0;
	return err ?: skb->len;
}

static int tm_nl_lb_backend(struct genl_info *info, u8 cmd)
{
	struct net *net = genl_info_net(info);
	struct tm_net *tn = tm_net(net);
	struct tm_lb_backend b;
	struct tm_lb_svc *svc;
	struct tm_txn *txn;
	int err;

	err = tm_get_unicast(info, TM_A_LB_BACKEND_SID, &b.sid);
	if (err == -EDOM) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[TM_A_LB_BACKEND_SID],
				    "A backend must be a unicast IPv6 address (the server's SID)");
		return -EINVAL;
	}
	if (err)
		return err;
	/* Its own policy refuses a weight for TM_CMD_LB_BACKEND_DEL. */
	if (cmd == TM_CMD_LB_BACKEND_SET &&
	    GENL_REQ_ATTR_CHECK(info, TM_A_LB_BACKEND_WEIGHT))
		return -EINVAL;
	b.weight = tm_get_u32_or(info, TM_A_LB_BACKEND_WEIGHT, 1);
	txn = tm_nl_txn(tn, info);
	err = PTR_ERR_OR_ZERO(txn);
	if (err)
		goto out;
	svc = tm_nl_svc(tn, info, txn);
	if (!svc) {
		err = info->attrs[TM_A_LB_NAME] ? -ENOENT : -EINVAL;
		goto out;
	}
	if (cmd == TM_CMD_LB_BACKEND_NEW)
		err = tm_lb_backend_add(svc, &b.sid, b.weight, txn,
					info->extack);
	else if (cmd == TM_CMD_LB_BACKEND_SET)
		err = tm_lb_backend_weight(svc, &b.sid, b.weight, txn,
					   info->extack);
	else
		err = tm_lb_backend_del(svc, &b.sid, txn, info->extack);
	if (!err && txn)
		txn->ops++;
	else if (!err)
		tm_lb_notify(net, svc, &b, cmd, tm_net_changed(tn));
out:
	return err;
}

int tm_nl_lb_backend_new(struct sk_buff *skb, struct genl_info *info)
{
	return tm_nl_lb_backend(info, TM_CMD_LB_BACKEND_NEW);
}

int tm_nl_lb_backend_del(struct sk_buff *skb, struct genl_info *info)
{
	return tm_nl_lb_backend(info, TM_CMD_LB_BACKEND_DEL);
}

int tm_nl_lb_backend_set(struct sk_buff *skb, struct genl_info *info)
{
	return tm_nl_lb_backend(info, TM_CMD_LB_BACKEND_SET);
}

int tm_nl_lb_flow_flush(struct sk_buff *skb, struct genl_info *info)
{
	struct tm_net *tn = tm_net(genl_info_net(info));
	struct tm_lb_svc *svc;
	int err = 0;

	svc = tm_nl_svc(tn, info, NULL);
	if (svc)
		tm_lflow_flush(&tn->lb, svc);
	else
		err = info->attrs[TM_A_LB_NAME] ? -ENOENT : -EINVAL;
	return err;
}

/* What the load balancer knows of flow @f: state, idle time, server. */
static int tm_put_flow_state(struct sk_buff *skb, const struct tm_lflow *f)
{
	/* Pairs with tm_lflow_learn(): a STEER flow has its server. */
	u8 state = smp_load_acquire(&f->state);

	if (nla_put_u8(skb, TM_A_LB_FLOW_STATE, state) ||
	    nla_put_u32(skb, TM_A_LB_FLOW_IDLE,
			jiffies_to_msecs(jiffies - READ_ONCE(f->last))))
		return -EMSGSIZE;
	if ((state == TM_LB_FLOW_STEER || state == TM_LB_FLOW_CLOSING) &&
	    nla_put_in6_addr(skb, TM_A_LB_FLOW_SERVER, &f->server))
		return -EMSGSIZE;
	return 0;
}

/* A connection's addresses and ports. */
static int tm_put_conn(struct sk_buff *skb, const struct tm_lb_conn *c)
{
	if (nla_put_in6_addr(skb, TM_A_LB_FLOW_CLIENT, &c->client) ||
	    nla_put_u16(skb, TM_A_LB_FLOW_CPORT, ntohs(c->cport)) ||
	    nla_put_in6_addr(skb, TM_A_LB_FLOW_VIP, &c->vip) ||
	    nla_put_u16(skb, TM_A_LB_FLOW_VPORT, ntohs(c->vport)))
		return -EMSGSIZE;
	return 0;
}

static int tm_fill_flow(struct sk_buff *skb, const struct tm_lflow *f,
			u32 portid, u32 seq)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &tm_genl_family, NLM_F_MULTI,
			  TM_CMD_LB_FLOW_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_string(skb, TM_A_LB_NAME, f->key.svc->name) ||
	    tm_put_conn(skb, &f->key.c) || tm_put_flow_state(skb, f))
		goto nospace;
	genlmsg_end(skb, hdr);
	return 0;

nospace:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/*
 * The connection @c of @svc: its candidates in the order they are tried,
 * and what the load balancer remembers of it.  Under the RCU read lock.
 */
static int tm_put_flow_lookup(struct sk_buff *skb, struct tm_lb *lb,
			      struct tm_lb_svc *svc,
			      const struct tm_lb_conn *c)
{
	const struct tm_lb_tab *tab = rcu_dereference(svc->tab);
	struct nlattr *nest, *one;
	const struct tm_lflow *f;
	const u16 *row;
	u32 i;

	if (nla_put_string(skb, TM_A_LB_NAME, svc->name) || tm_put_conn(skb, c))
		return -EMSGSIZE;
	nest = nla_nest_start(skb, TM_A_LB_FLOW_CANDIDATES);
	if (!nest)
		return -EMSGSIZE;
	row = tab ? tm_lb_row(svc, tab, c) : NULL;
	for (i = 0; row && i < tab->k; i++) {
		if (row[i] == TM_MAGLEV_NONE)
			continue;
		one = nla_nest_start(skb, TM_A_LB_BACKEND);
		if (!one || nla_put_in6_addr(skb, TM_A_LB_BACKEND_SID,
					     &tab->sids[row[i]]))
			return -EMSGSIZE;
		nla_nest_end(skb, one);
	}
	nla_nest_end(skb, nest);
	f = tm_lflow_find(lb, svc, c);
	return f ? tm_put_flow_state(skb, f) : 0;
}

/* TM_CMD_LB_FLOW_GET do: where a connection would go (lb flows lookup). */
int tm_nl_lb_flow_get(struct sk_buff *skb, struct genl_info *info)
{
	struct tm_net *tn = tm_net(genl_info_net(info));
	struct nlattr **a = info->attrs;
	struct tm_lb_conn c = {};
	struct tm_lb_svc *svc;
	struct sk_buff *msg;
	void *hdr;
	int err;

	svc = tm_nl_svc(tn, info, NULL);
	if (!svc)
		return a[TM_A_LB_NAME] ? -ENOENT : -EINVAL;
	if (GENL_REQ_ATTR_CHECK(info, TM_A_LB_FLOW_CLIENT) ||
	    GENL_REQ_ATTR_CHECK(info, TM_A_LB_FLOW_CPORT))
		return -EINVAL;
	c.client = nla_get_in6_addr(a[TM_A_LB_FLOW_CLIENT]);
	c.cport = htons(nla_get_u16(a[TM_A_LB_FLOW_CPORT]));
	c.vip = a[TM_A_LB_FLOW_VIP] ? nla_get_in6_addr(a[TM_A_LB_FLOW_VIP]) :
				      svc->vip;
	if (!a[TM_A_LB_FLOW_VIP] && svc->vip_len < 128) {
		NL_SET_ERR_MSG(info->extack,
			       "The service's VIP is a prefix: the connection's VIP is needed");
		return -EINVAL;
	}
	if (!tm_lb_svc_vip(svc, &c.vip)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[TM_A_LB_FLOW_VIP],
				    "The service does not serve this VIP");
		return -EINVAL;
	}
	c.vport = a[TM_A_LB_FLOW_VPORT] ?
		  htons(nla_get_u16(a[TM_A_LB_FLOW_VPORT])) : svc->port;
	if (!c.vport) {
		NL_SET_ERR_MSG(info->extack,
			       "The service serves any port: the connection's port is needed");
		return -EINVAL;
	}
	if (svc->port && c.vport != svc->port) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[TM_A_LB_FLOW_VPORT],
				    "The service does not serve this port");
		return -EINVAL;
	}

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &tm_genl_family, 0,
				TM_CMD_LB_FLOW_GET);
	if (!hdr) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	rcu_read_lock();
	err = tm_put_flow_lookup(msg, &tn->lb, svc, &c);
	rcu_read_unlock();
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/*
 * The flow dump walks the namespace's flow table (rhashtable) with an
 * iterator kept between the dump's calls; without a table (no service
 * ever), it has nothing to walk.
 */
int tm_nl_lb_flow_dump_start(struct netlink_callback *cb)
{
	struct tm_lb *lb = &tm_net(sock_net(cb->skb->sk))->lb;
	struct rhashtable_iter *iter;

	iter = kmalloc(sizeof(*iter), GFP_KERNEL);
	if (!iter)
		return -ENOMEM;
	/* Pairs with tm_lb_hook(); the table stays until the netns goes. */
	if (smp_load_acquire(&lb->flows_ready))
		rhashtable_walk_enter(&lb->flows, iter);
	else
		iter->ht = NULL;
	cb->args[0] = (long)iter;
	return 0;
}

int tm_nl_lb_flow_dump_done(struct netlink_callback *cb)
{
	struct rhashtable_iter *iter = (struct rhashtable_iter *)cb->args[0];

	if (iter && iter->ht)
		rhashtable_walk_exit(iter);
	kfree(iter);
	return 0;
}

/*
 * Dump the flows (of the service TM_A_LB_NAME, if given).  Flows come and
 * go with packets, and the table resizes, without a generation: a dump
 * may miss a flow that comes or goes meanwhile, or show one twice.
 */
int tm_nl_lb_flow_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct rhashtable_iter *iter = (struct rhashtable_iter *)cb->args[0];
	struct tm_net *tn = tm_net(sock_net(skb->sk));
	const struct tm_lb_svc *only = NULL;
	const struct nlattr *name;
	struct tm_lflow *f;
	int err = 0;

	/* Validated by the op's policy; genl_dumpit_info() differs by kernel. */
	name = nlmsg_find_attr(cb->nlh, GENL_HDRLEN, TM_A_LB_NAME);
	mutex_lock(&tn->lock);
	if (name) {
		only = tm_lb_svc_find(tn, nla_data(name));
		if (!only) {
			NL_SET_ERR_MSG_ATTR(cb->extack, name,
					    "No load-balancer service with this name");
			err = -ENOENT;
			goto out;
		}
	}
	if (!iter->ht)
		goto out;
	rhashtable_walk_start(iter);
	/* The flow that did not fit last time comes first. */
	for (f = rhashtable_walk_peek(iter); f;
	     f = rhashtable_walk_next(iter)) {
		if (IS_ERR(f)) {
			/* -EAGAIN: the table was resized; go on. */
			continue;
		}
		if (only && f->key.svc != only)
			continue;
		err = tm_fill_flow(skb, f, NETLINK_CB(cb->skb).portid,
				   cb->nlh->nlmsg_seq);
		if (err)
			break;
	}
	rhashtable_walk_stop(iter);
out:
	mutex_unlock(&tn->lock);
	if (err == -EMSGSIZE && skb->len)
		err = 0;
	return err ?: skb->len;
}
