// SPDX-License-Identifier: GPL-2.0
/*
 * The load balancer's health checks of its backends (SRLB / 6LB), through
 * the SRv6 path of their traffic.
 *
 * Every interval, a service's work (tm_lb_health_work()) sends each backend
 * a probe: from the service's LB SID to the backend's SID, an SRH
 * [LB SID, backend SID] tagged TM_SRLB_TAG_PROBE (signed with the
 * service's HMAC key id, if any), then struct tm_srlb_probe with a random
 * cookie.  The server's End sends it on to its last segment, the LB SID:
 * back here.  On its way, the server's module (accept.c), when the SID is
 * bound, retags it PROBE_OK, or PROBE_NO_LISTENER when asked to check a
 * listener on the VIP and port and there is none; an End without the
 * module returns it as it was.  The report hook (lb_fwd.c) hands what
 * comes back to tm_lb_probe_rcv(), which keeps the first answer that
 * carries the cookie of the probe the backend awaits: an off-path sender
 * cannot answer for a server, nor fail it.
 *
 * A timeout after sending, the work judges the answers (none: timed out).
 * After `fall` failures in a row a backend is down: the table is rebuilt
 * with it out of the rows, as a weight of 0 would (the fewest rows change:
 * tm_maglev.c), and the flows steered to it are forgotten, so that their
 * packets hunt again and the last candidate resets what nobody knows
 * rather than the client waiting on a dead server.  After `rise` answers
 * in a row it is up, and back in the rows.  Each change is an event.
 *
 * The work takes tm_net.lock with a trylock: the service's deletion waits
 * for it (tm_lb_health_stop()) holding that lock.
 */
#include <linux/ipv6.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <uapi/linux/seg6.h>

#include "netns.h"
#include "netlink/genl.h"

/* The headroom of a probe: link layer, IPv6, an SRH of two and an HMAC. */
#define TM_PROBE_ROOM	(LL_MAX_HEADER + sizeof(struct ipv6hdr) + \
			 sizeof(struct ipv6_sr_hdr) + \
			 2 * sizeof(struct in6_addr) + TM_SRH_HMAC_LEN)

/* Send @svc's probe to backend @sid, awaited by @bk. */
static void tm_lb_probe_send(struct tm_lb_svc *svc, struct tm_lb_bk *bk,
			     const struct in6_addr *sid)
{
	struct in6_addr segs[2] = { svc->sid, *sid };
	struct flowi6 fl6 = {
		.daddr = *sid,
		.saddr = svc->sid,
		.flowi6_proto = NEXTHDR_ROUTING,
	};
	struct tm_srlb_probe *p;
	struct dst_entry *dst;
	struct ipv6hdr *ip6h;
	struct sk_buff *skb;
	u64 cookie = get_random_u64() ?: 1;
	u8 fail = 1 + TM_LB_HEALTH_WHY_NO_ROUTE;
	int err;

	spin_lock_bh(&bk->hc_lock);
	bk->hc_cookie = cookie;
	bk->hc_answer = 0;
	spin_unlock_bh(&bk->hc_lock);
	bk->probes++;

	skb = alloc_skb(TM_PROBE_ROOM + sizeof(*p), GFP_KERNEL);
	if (!skb)
		goto failed;
	skb_reserve(skb, TM_PROBE_ROOM);
	p = skb_put_zero(skb, sizeof(*p));
	memcpy(&p->cookie, &cookie, sizeof(cookie));
	memcpy(p->vip, &svc->vip, sizeof(p->vip));
	p->port = svc->port;
	p->proto = svc->proto;
	p->flags = svc->health.listener ? TM_SRLB_PROBE_LISTENER : 0;
	ip6h = skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6_flow_hdr(ip6h, 0, 0);
	ip6h->payload_len = htons(sizeof(*p));
	ip6h->nexthdr = NEXTHDR_NONE;
	ip6h->hop_limit = IPV6_DEFAULT_HOPLIMIT;
	ip6h->saddr = svc->sid;
	/* The final segment: the server's End returns it here. */
	ip6h->daddr = svc->sid;
	skb->protocol = htons(ETH_P_IPV6);

	rcu_read_lock();
	err = tm_srh_push(skb, svc->net, segs, 2, TM_SRLB_TAG_PROBE,
			  svc->hmac);
	rcu_read_unlock();
	if (err) {
		kfree_skb(skb);
		goto failed;
	}
	dst = ip6_route_output(svc->net, NULL, &fl6);
	if (dst->error) {
		dst_release(dst);
		kfree_skb(skb);
		goto failed;
	}
	skb_dst_set(skb, dst);
	ip6_local_out(svc->net, NULL, skb);
	return;

failed:
	/* Judged with the others, as any failed probe. */
	spin_lock_bh(&bk->hc_lock);
	bk->hc_answer = fail;
	spin_unlock_bh(&bk->hc_lock);
}

/*
 * Judge the answer @bk had to its probe: true when it goes up or down.
 * Under tm_net.lock.
 */
static bool tm_lb_probe_judge(const struct tm_lb_svc *svc,
			      struct tm_lb_bk *bk)
{
	bool ok;
	u8 ans;

	spin_lock_bh(&bk->hc_lock);
	if (!bk->hc_cookie) {
		/* Not probed: it joined since the probes went. */
		spin_unlock_bh(&bk->hc_lock);
		return false;
	}
	ans = bk->hc_answer;
	bk->hc_cookie = 0;
	spin_unlock_bh(&bk->hc_lock);

	ok = ans == 1 + TM_LB_HEALTH_WHY_NONE;
	if (!ok) {
		bk->failed++;
		bk->why = ans ? ans - 1 : TM_LB_HEALTH_WHY_TIMEOUT;
	}
	if (ok != bk->down) {
		bk->run = 0;
		return false;
	}
	if (++bk->run < (bk->down ? svc->health.rise : svc->health.fall))
		return false;
	bk->run = 0;
	bk->down = !ok;
	bk->transitions++;
	return true;
}

/* The backends of a service's table that went down, for their flows. */
struct tm_lb_hc_gone {
	struct tm_lb *lb;
	const struct tm_lb_svc *svc;
	const struct tm_lb_tab *tab;
	const unsigned long *down;
};

/* Forget flow @obj if its server is one of the backends that went down. */
static void tm_lb_hc_forget(void *obj, void *arg)
{
	struct tm_lflow *f = obj;
	struct tm_lb_hc_gone *g = arg;
	u32 i;

	if (f->key.svc != g->svc || !tm_lflow_steered(f))
		return;
	for_each_set_bit(i, g->down, g->tab->n)
		if (ipv6_addr_equal(&f->server, &g->tab->sids[i])) {
			tm_lflow_forget(g->lb, f);
			return;
		}
}

/*
 * Judge the probes that are due: rebuild the table when a backend went up
 * or down, announce it, and forget the flows steered to those that went
 * down.  Under tm_net.lock, which the configuration waits on meanwhile
 * (rare: a walk of the flows per change, not per probe).
 */
static void tm_lb_health_judge(struct tm_net *tn, struct tm_lb_svc *svc)
{
	struct tm_lb_tab *tab = rcu_dereference_protected(svc->tab, true);
	DECLARE_BITMAP(down, TM_LB_MAX_BACKENDS);
	struct tm_lb_hc_gone g = { .lb = &tn->lb, .svc = svc, .down = down };
	bool changed = false, anydown = false;
	struct tm_lb_bk *bk;
	u32 i;

	bitmap_zero(down, TM_LB_MAX_BACKENDS);
	for (i = 0; tab && i < tab->n; i++) {
		bk = tab->bk[i];
		if (!tm_lb_probe_judge(svc, bk))
			continue;
		changed = true;
		if (bk->down) {
			__set_bit(i, down);
			anydown = true;
		}
		/* Its table's backends are the service's, in order. */
		if (i < svc->nbackends &&
		    ipv6_addr_equal(&svc->backends[i].sid, &tab->sids[i]))
			tm_lb_notify_health(svc->net, svc, &svc->backends[i],
					    bk, tn->generation);
	}
	if (changed || svc->hc_stale)
		svc->hc_stale = !!tm_lb_tab_rebuild(svc);
	/*
	 * The table now, whose backends are in the same order: the old one
	 * goes after a grace period, which the walk lets pass.
	 */
	g.tab = rcu_dereference_protected(svc->tab, true);
	if (anydown && g.tab)
		tm_flows_walk(&tn->lb.flows, tm_lb_hc_forget, &g);
}

/* Send the probes of @svc to every backend.  Under tm_net.lock. */
static void tm_lb_health_send(struct tm_lb_svc *svc)
{
	struct tm_lb_tab *tab = rcu_dereference_protected(svc->tab, true);
	u32 i;

	for (i = 0; tab && i < tab->n; i++) {
		tm_lb_probe_send(svc, tab->bk[i], &tab->sids[i]);
		cond_resched();
	}
}

/*
 * A service's health work: judges the probes a timeout after sending
 * them, sends new ones every interval (judging first when both are due).
 */
void tm_lb_health_work(struct work_struct *work)
{
	struct tm_lb_svc *svc = container_of(to_delayed_work(work),
					     struct tm_lb_svc, hc_work);
	struct tm_net *tn = tm_net(svc->net);
	unsigned long now = jiffies, next;

	/* Its deletion waits for it holding the lock. */
	if (!mutex_trylock(&tn->lock)) {
		schedule_delayed_work(&svc->hc_work, HZ / 50 ?: 1);
		return;
	}
	if (svc->hc_due && time_after_eq(now, svc->hc_due)) {
		svc->hc_due = 0;
		tm_lb_health_judge(tn, svc);
	}
	if (time_after_eq(now, svc->hc_next)) {
		tm_lb_health_send(svc);
		svc->hc_next = now + msecs_to_jiffies(svc->health.interval);
		svc->hc_due = now + msecs_to_jiffies(svc->health.timeout);
	}
	next = svc->hc_due && time_before(svc->hc_due, svc->hc_next) ?
	       svc->hc_due : svc->hc_next;
	mutex_unlock(&tn->lock);
	now = jiffies;
	schedule_delayed_work(&svc->hc_work,
			      time_after(next, now) ? next - now : 0);
}

/* @svc is linked: its health checks start, if it has any. */
void tm_lb_health_start(struct tm_lb_svc *svc)
{
	if (!svc->health.interval)
		return;
	svc->hc_next = jiffies;
	svc->hc_due = 0;
	schedule_delayed_work(&svc->hc_work, 0);
}

/* @svc is unlinked: no more probes.  May hold tm_net.lock. */
void tm_lb_health_stop(struct tm_lb_svc *svc)
{
	cancel_delayed_work_sync(&svc->hc_work);
}

/*
 * A probe of @svc came back (tagged PROBE, PROBE_OK or PROBE_NO_LISTENER,
 * to its LB SID): the answer of the backend whose probe carries its
 * cookie.  Consumed either way; counted malformed when it is no probe of
 * this load balancer's, refused when no backend awaits its cookie.  Under
 * the RCU read lock.
 */
unsigned int tm_lb_probe_rcv(struct net *net, struct tm_lb_svc *svc,
			     struct sk_buff *skb)
{
	const struct ipv6_sr_hdr *srh;
	const struct tm_srlb_probe *p;
	const struct tm_lb_tab *tab;
	const struct ipv6hdr *ip6h;
	struct tm_lb_bk *bk = NULL;
	bool matched = false, bad;
	u64 cookie;
	u8 ans;
	u32 i;
	int err;

	p = tm_srh_probe(skb, 0, &bad);
	ip6h = ipv6_hdr(skb);
	srh = (const struct ipv6_sr_hdr *)(ip6h + 1);
	if (!p || !ipv6_addr_equal(&ip6h->saddr, &svc->sid))
		goto malformed;
	if (svc->hmac) {
		err = tm_srh_hmac_check(net, srh, &ip6h->saddr, svc->hmac);
		if (err) {
			tm_lb_count(svc, err == -ENOKEY ? TM_LBC_HMAC_NOKEY :
				    TM_LBC_HMAC_BAD);
			return NF_DROP;
		}
	}
	switch (tm_srh_tag(srh)) {
	case TM_SRLB_TAG_PROBE_OK:
		ans = 1 + TM_LB_HEALTH_WHY_NONE;
		break;
	case TM_SRLB_TAG_PROBE_NO_LISTENER:
		ans = 1 + TM_LB_HEALTH_WHY_NO_LISTENER;
		break;
	default:
		/* Back as it went: an End without the SID bound. */
		ans = 1 + TM_LB_HEALTH_WHY_UNBOUND;
		break;
	}
	memcpy(&cookie, &p->cookie, sizeof(cookie));
	tab = rcu_dereference(svc->tab);
	for (i = 0; tab && i < tab->n; i++)
		if (ipv6_addr_equal(&tab->sids[i], &srh->segments[1])) {
			bk = tab->bk[i];
			break;
		}
	if (bk) {
		spin_lock_bh(&bk->hc_lock);
		matched = bk->hc_cookie && bk->hc_cookie == cookie &&
			  !bk->hc_answer;
		if (matched)
			bk->hc_answer = ans;
		spin_unlock_bh(&bk->hc_lock);
	}
	if (!matched)
		tm_lb_count(svc, TM_LBC_REFUSED);
	consume_skb(skb);
	return NF_STOLEN;

malformed:
	tm_lb_count(svc, TM_LBC_MALFORMED);
	return NF_DROP;
}
