// SPDX-License-Identifier: GPL-2.0
/*
 * The load balancer's packet path (SRLB / 6LB): what a rule with the lb
 * action does with a client's packet (tm_lb_packet(), called by hook.c),
 * and the prerouting hook that takes the servers' reports (lb.c registers
 * it with the namespace's first service).
 *
 * A client's TCP packet to the service's VIP and port, by what the flow
 * table knows of it:
 *
 *   - its server (STEER, CLOSING): an SRH [VIP, LB SID, server] tagged
 *     STEER sends it straight there.  A FIN or RST makes the flow CLOSING
 *     (the shorter FIN timeout).  A SYN of a CLOSING flow is a new
 *     connection from a port the client used again: the old flow is
 *     forgotten, and the SYN hunts like any (the servers' policies
 *     decide, not the old connection's server).
 *   - nothing, or no server yet: the flow's row of the service's table
 *     gives k candidates, and an SRH [VIP, LB SID, last ... first] sends it
 *     hunting through them.  A SYN hunts tagged CONNECT (a candidate may
 *     take a new connection); anything else tagged RECOVER (only a server
 *     that knows the connection takes it: the load balancer restarted, or
 *     another one saw the connection start; the last candidate takes it
 *     anyway, and its TCP resets a connection it does not know).  The flow
 *     is remembered, in HUNT or RECOVER, half-open: it lives the SYN
 *     timeout and is the first evicted when the flows are full, until a
 *     packet of the client goes to its server once known (the handshake
 *     done; a SYN flood from spoofed sources never sends one).
 *
 * A UDP datagram likewise, but any datagram of a flow it does not know may
 * start one: it hunts tagged DGRAM, through the candidates but the first
 * (where only a server that knows the flow takes it), then through all of
 * them as CONNECT (accept.c), and a UDP flow has no FIN: it ends idle.  A
 * flow whose server never replies keeps hunting: the server that has it
 * takes it each time.
 *
 * The destination is then the first segment, routed here (the kernel's
 * own input route, with the SRH's length added to the packet's): a packet
 * that no longer fits the route's MTU gets an ICMPv6 Packet Too Big with
 * the MTU minus the SRH, so that the client's path MTU leaves room for it,
 * and is dropped.  Segmentation offload packets are judged by their
 * segments.
 *
 * A report is a server's reply with an SRH [client, server SID, LB SID]
 * tagged REPORT, to the service's LB SID: the load balancer learns the
 * flow's server (STEER), removes the SRH and forwards the reply to the
 * client.  It is taken only for a flow the load balancer remembers
 * (hunting, or steered to that same server), naming one of the candidates
 * of the flow's row (any backend if the backends changed since it hunted);
 * a report never creates a flow.  Any other is refused (counted): dropped,
 * but for a flow not remembered (the table was full, or flushed) whose
 * server is a candidate, which is forwarded without learning anything.
 * A health check of the service coming back (tagged PROBE...) goes to
 * health.c.  Any other packet with an SRH sent to a service's LB SID is
 * dropped and counted malformed; one without an SRH is routed as usual.
 *
 * A service with a seg6 HMAC key id signs every SRH it inserts (srh.c),
 * and takes a well-formed report only when its SRH has an HMAC TLV of
 * that key id that verifies, before anything else is looked at: any other
 * is dropped and counted "hmac-bad", so that a sender in the SR domain
 * without the key cannot report at all.  Without the key in the
 * namespace, packets to sign and reports to check are dropped and counted
 * "hmac-nokey".
 */
#include <linux/icmpv6.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/dst.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <uapi/linux/seg6.h>

#include "netns.h"
#include "srv6/tm_maglev.h"

/*
 * The input route of @skb were its destination @daddr, as
 * ip6_route_input() finds it: without a reference, valid under the RCU
 * read lock the receive path holds (skb_dst_set_noref()).
 */
static struct dst_entry *tm_lb_route(struct net *net, struct sk_buff *skb,
				     const struct in6_addr *daddr)
{
	const struct ipv6hdr *ip6h = ipv6_hdr(skb);
	struct flowi6 fl6 = {
		.flowi6_iif = skb->dev->ifindex,
		.daddr = *daddr,
		.saddr = ip6h->saddr,
		.flowlabel = ip6_flowinfo(ip6h),
		.flowi6_mark = skb->mark,
		.flowi6_proto = NEXTHDR_ROUTING,
	};

	return ip6_route_input_lookup(net, skb->dev, &fl6, skb,
				      RT6_LOOKUP_F_HAS_SADDR |
				      RT6_LOOKUP_F_DST_NOREF);
}

/*
 * The longest packet @skb becomes on the wire with @extra more bytes; @th
 * is its TCP header, NULL for UDP.
 */
static unsigned int tm_lb_wire_len(const struct sk_buff *skb,
				   const struct tcphdr *th, unsigned int extra)
{
	if (skb_is_gso(skb))
		return skb_shinfo(skb)->gso_size + sizeof(struct ipv6hdr) +
		       (th ? __tcp_hdrlen(th) : sizeof(struct udphdr)) + extra;
	return skb->len + extra;
}

/* The transport header's length that the packet path reads of @svc's. */
static unsigned int tm_lb_l4len(const struct tm_lb_svc *svc)
{
	return svc->proto == IPPROTO_UDP ? sizeof(struct udphdr) :
					   sizeof(struct tcphdr);
}

unsigned int tm_lb_packet(struct tm_lb_svc *svc, struct sk_buff *skb,
			  const struct nf_hook_state *state)
{
	struct tm_lb *lb = &tm_net(state->net)->lb;
	struct in6_addr segs[TM_SRH_MAX_SEGS];
	const struct tm_lb_tab *tab;
	const struct ipv6hdr *ip6h;
	const struct tcphdr *th;
	unsigned int n = 2, i, srhlen, mtu;
	struct dst_entry *dst;
	struct tm_lb_conn c;
	struct tm_lflow *f;
	bool udp, syn;
	u8 fstate;
	u16 tag;
	int err;

	if (state->pf != NFPROTO_IPV6 || ipv6_hdr(skb)->nexthdr != svc->proto)
		goto drop;
	if (!pskb_may_pull(skb, skb_network_offset(skb) +
			   sizeof(struct ipv6hdr) + tm_lb_l4len(svc)))
		goto drop;
	ip6h = ipv6_hdr(skb);
	/* The ports are where both headers have them; the rest is TCP's. */
	th = (const struct tcphdr *)(ip6h + 1);
	if (!tm_lb_svc_vip(svc, &ip6h->daddr) ||
	    (svc->port && th->dest != svc->port))
		goto drop;
	udp = svc->proto == IPPROTO_UDP;
	/* What may start a flow: a SYN, any datagram. */
	syn = udp || (th->syn && !th->ack);

	c.client = ip6h->saddr;
	c.vip = ip6h->daddr;
	c.cport = th->source;
	c.vport = th->dest;
	f = tm_lflow_find(lb, svc, &c);
	/* Pairs with tm_lflow_learn(): a STEER flow has its server. */
	fstate = f ? smp_load_acquire(&f->state) : TM_LB_FLOW_HUNT;
	if (f && fstate == TM_LB_FLOW_CLOSING && syn) {
		tm_lflow_forget(lb, f);
		f = NULL;
	}
	if (f && (fstate == TM_LB_FLOW_STEER || fstate == TM_LB_FLOW_CLOSING)) {
		segs[n++] = f->server;
		tag = TM_SRLB_TAG_STEER;
		if (!udp && (th->fin || th->rst))
			tm_lflow_closing(f);
		else if (udp || !th->syn)
			tm_lflow_confirm(lb, f);
		tm_lb_count(svc, TM_LBC_STEERED);
	} else {
		u16 cand[TM_LB_MAX_CHOICES];
		unsigned int m = 0;
		const u16 *row;

		tab = rcu_dereference(svc->tab);
		if (!tab)
			goto drop;
		row = tm_lb_row(svc, tab, &c);
		for (i = 0; i < tab->k; i++)
			if (row[i] != TM_MAGLEV_NONE)
				cand[m++] = row[i];
		/* Every backend draining: no candidate. */
		if (!m)
			goto drop;
		/* The first candidate visits first: it is the last segment. */
		for (i = m; i-- > 0;)
			segs[n++] = tab->sids[cand[i]];
		/* UDP: before them, those but the first, the last first. */
		if (udp)
			for (i = 1; i < m; i++)
				segs[n++] = tab->sids[cand[i]];
		if (udp) {
			tag = TM_SRLB_TAG_DGRAM;
			tm_lb_count(svc, TM_LBC_HUNTS);
		} else if (syn) {
			tag = TM_SRLB_TAG_CONNECT;
			tm_lb_count(svc, TM_LBC_HUNTS);
		} else {
			tag = TM_SRLB_TAG_RECOVER;
			tm_lb_count(svc, TM_LBC_RECOVERIES);
		}
		if (!f)
			f = tm_lflow_add(lb, svc, &c,
					 tag == TM_SRLB_TAG_RECOVER ?
					 TM_LB_FLOW_RECOVER : TM_LB_FLOW_HUNT,
					 tab->gen);
	}
	if (f)
		tm_lflow_seen(f);
	segs[1] = svc->sid;
	srhlen = sizeof(struct ipv6_sr_hdr) + n * sizeof(segs[0]);
	if (svc->hmac)
		srhlen += TM_SRH_HMAC_LEN;

	dst = tm_lb_route(state->net, skb, &segs[n - 1]);
	if (!dst->error) {
		mtu = dst_mtu(dst);
		if (tm_lb_wire_len(skb, udp ? NULL : th, srhlen) > mtu) {
			icmpv6_send(skb, ICMPV6_PKT_TOOBIG, 0,
				    max_t(int, mtu - srhlen, IPV6_MIN_MTU));
			tm_lb_count(svc, TM_LBC_TOO_BIG);
			return NF_DROP;
		}
	}
	err = tm_srh_push(skb, state->net, segs, n, tag, svc->hmac);
	if (err == -ENOKEY) {
		tm_lb_count(svc, TM_LBC_HMAC_NOKEY);
		return NF_DROP;
	}
	if (err)
		goto drop;
	/* The routing of the receive path sees a route and keeps it. */
	skb_dst_drop(skb);
	skb_dst_set_noref(skb, dst);
	return NF_ACCEPT;

drop:
	tm_lb_count(svc, TM_LBC_DROPPED);
	return NF_DROP;
}

unsigned int tm_lb_report_hook(void *priv, struct sk_buff *skb,
			       const struct nf_hook_state *state)
{
	struct tm_lb *lb = &tm_net(state->net)->lb;
	const struct ipv6_sr_hdr *srh;
	struct tm_lb_hit hit = {};
	struct in6_addr server;
	struct tm_lb_conn c;
	const struct tcphdr *th;
	struct tm_lb_svc *svc;
	unsigned int srhlen;
	struct tm_lflow *f;
	bool bad;
	int err;

	if (ipv6_hdr(skb)->nexthdr != NEXTHDR_ROUTING)
		return NF_ACCEPT;
	svc = tm_lb_svc_by_sid(lb, &ipv6_hdr(skb)->daddr);
	if (!svc)
		return NF_ACCEPT;
	srh = tm_srh_get(skb, tm_lb_l4len(svc), &bad);
	if (srh && tm_srh_tag(srh) >= TM_SRLB_TAG_PROBE &&
	    tm_srh_tag(srh) <= TM_SRLB_TAG_PROBE_NO_LISTENER)
		return tm_lb_probe_rcv(state->net, svc, skb);
	if (!srh || srh->first_segment != 2 || srh->segments_left != 2 ||
	    tm_srh_tag(srh) != TM_SRLB_TAG_REPORT ||
	    srh->nexthdr != svc->proto ||
	    !tm_lb_svc_vip(svc, &ipv6_hdr(skb)->saddr))
		goto malformed;
	srhlen = (srh->hdrlen + 1) << 3;
	th = (const struct tcphdr *)((const u8 *)srh + srhlen);
	if (svc->port && th->source != svc->port)
		goto malformed;
	if (svc->hmac) {
		err = tm_srh_hmac_check(state->net, srh, &ipv6_hdr(skb)->saddr,
					svc->hmac);
		if (err) {
			tm_lb_count(svc, err == -ENOKEY ? TM_LBC_HMAC_NOKEY :
				    TM_LBC_HMAC_BAD);
			return NF_DROP;
		}
	}
	c.client = srh->segments[0];
	c.vip = ipv6_hdr(skb)->saddr;
	c.cport = th->dest;
	c.vport = th->source;
	server = srh->segments[1];

	/*
	 * Only for a flow it hunted or steers, naming a server it could have
	 * sent the flow to: an off-path sender that guesses a 5-tuple cannot
	 * plant a flow, nor steer one to a server of its own.  A steered
	 * flow's reports must name its server (tm_lflow_learn()), which may
	 * have left the backends since: it keeps its connections until they
	 * close, and its FIN or RST must reach the client.
	 */
	f = tm_lflow_find(lb, svc, &c);
	if (!f) {
		/* Not remembered (full, flushed): passed on, nothing learned. */
		tm_lb_count(svc, TM_LBC_REFUSED);
		if (!tm_lb_candidate(svc, &c, &server, 0, NULL))
			return NF_DROP;
	} else if ((tm_lflow_steered(f) ||
		    tm_lb_candidate(svc, &c, &server, f->tgen, &hit)) &&
		   tm_lflow_learn(lb, f, &server, &hit)) {
		if (svc->proto == IPPROTO_TCP && (th->fin || th->rst))
			tm_lflow_closing(f);
		tm_lflow_seen(f);
	} else {
		tm_lb_count(svc, TM_LBC_REFUSED);
		return NF_DROP;
	}
	tm_lb_count(svc, TM_LBC_REPORTS);
	if (tm_srh_pop(skb, srhlen, &c.client)) {
		tm_lb_count(svc, TM_LBC_DROPPED);
		return NF_DROP;
	}
	return NF_ACCEPT;

malformed:
	tm_lb_count(svc, TM_LBC_MALFORMED);
	return NF_DROP;
}
