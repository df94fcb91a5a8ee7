// SPDX-License-Identifier: GPL-2.0
/*
 * The connection-acceptance decision of a server (SRLB / 6LB): the IPv6
 * LOCAL_IN hook that seg6_local_input() runs before the stock End
 * behaviour of a SID bound to the module (sid.c owns the bindings and the
 * connections they accepted).
 *
 * The load balancer inserted an SRH whose segments are, in order,
 *
 *	[0] VIP   [1] LB SID   [2] last candidate ... [n] first candidate
 *
 * so the candidate at hand is segments[SL] (the destination), and the
 * last candidate is the one with segments left 2.  For a TCP packet:
 *
 *   - a connection this server accepted (any of its SIDs): take it,
 *     but for a hunting SYN once its socket is gone or in TIME_WAIT: a
 *     new connection from a port the client used again, decided as any;
 *   - a SYN: take it if the SID's policy says so (always; never; fewer
 *     connections than the threshold; an accept queue shorter than the
 *     threshold; a reported load below it), or if this is the last
 *     candidate, which must accept;
 *   - anything else (a flow this server does not know, e.g. after the
 *     load balancer restarted): pass it on, except at the last candidate.
 *
 * Taking a packet: the SRH goes, the destination becomes the VIP, and the
 * packet is received again (netif_rx()) as the plain packet the client
 * sent, so the routing, the filters and the socket lookup all see the VIP.
 * Passing it on: NF_ACCEPT, and End decrements SL and forwards it.
 *
 * The SRH's tag (enum tm_srlb_tag) says where the packet comes from.  A
 * load balancer's CONNECT or RECOVER hunt makes the server report the
 * connection to that load balancer (segments[1]) with its replies
 * (reply.c) until a STEER from it shows it knows; a RECOVER hunt or a
 * STEER is never a new connection, so only a server that knows the flow
 * (or the last candidate) takes it.  Another tag is a hunt without a load
 * balancer to report to, e.g. an SRH the client inserted.
 *
 * A SID with a seg6 HMAC key id takes or passes on such a packet only
 * when its SRH has an HMAC TLV of that key id that verifies (srh.c), before
 * anything else: any other is dropped and counted "hmac-bad" (or
 * "hmac-nokey" without the key in the namespace), so that a sender in the
 * SR domain without the key can neither open a connection through the SID
 * nor move a connection's reports.  The HMAC does not cover segments
 * left: the hunt's candidates all check the same one.
 *
 * A load balancer's health check (tagged PROBE, health.c) is answered
 * when the SID is bound here: tm_probe_answer() retags it, and End sends
 * it back.
 *
 * An SRH that is not well formed (lengths, SL out of range, more than
 * TM_SRH_MAX_SEGS segments, a destination that is not segments[SL]) is
 * dropped and counted.  Packets without an SRH, with an SRH of another
 * type, not TCP, or at SL 0 or 1 are no hunt: End handles them as usual.
 */
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <net/inet6_hashtables.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/lwtunnel.h>
#include <net/tcp.h>
#include <uapi/linux/lwtunnel.h>
#include <uapi/linux/seg6.h>

#include "netns.h"

/*
 * The accept queue of the VIP's listener is shorter than @threshold.
 *
 * A reuseport group's BPF program picks the listener as for the SYN the
 * stack will see: reuseport_select_sock() pulls @doff bytes so that the
 * program finds skb->data at the TCP payload, as in tcp_v6_rcv(), where
 * skb->data is at the TCP header.  Here it is at the IPv6 header, so
 * @doff spans the IPv6 header, the SRH and the TCP header.  The pull may
 * move the head: the caller reloads its header pointers.
 */
static bool tm_backlog_ok(struct net *net, struct sk_buff *skb,
			  const struct in6_addr *vip, const struct tcphdr *th,
			  u32 threshold)
{
	unsigned int doff = (const u8 *)th - skb->data + __tcp_hdrlen(th);
	struct sock *sk;

	sk = inet6_lookup_listener(net, net->ipv4.tcp_death_row.hashinfo, skb,
				   doff, &ipv6_hdr(skb)->saddr,
				   th->source, vip, ntohs(th->dest),
				   skb->dev ? skb->dev->ifindex : 0, 0);
	/* Nobody listens here: let a candidate that listens take it. */
	if (!sk)
		return false;
	return READ_ONCE(sk->sk_ack_backlog) < threshold;
}

static bool tm_policy_ok(struct net *net, struct tm_sid *sid,
			 struct sk_buff *skb, const struct in6_addr *vip,
			 const struct tcphdr *th)
{
	u32 threshold = READ_ONCE(sid->threshold);

	switch (READ_ONCE(sid->policy)) {
	case TM_SID_POLICY_ALWAYS:
		return true;
	case TM_SID_POLICY_CONNS:
		return atomic_read(&sid->conns) < threshold;
	case TM_SID_POLICY_BACKLOG:
		return tm_backlog_ok(net, skb, vip, th, threshold);
	case TM_SID_POLICY_LOAD:
		return READ_ONCE(sid->load) < threshold;
	default:
		return false;
	}
}

/* A TCP listener on the VIP and port a probe names (any port: none to ask). */
static bool tm_probe_listener(struct net *net, struct sk_buff *skb,
			      const struct tm_srlb_probe *p)
{
	struct in6_addr vip;

	if (p->proto != IPPROTO_TCP || !p->port)
		return true;
	memcpy(&vip, p->vip, sizeof(vip));
	/* No packet for a reuseport program to pick by: by the hash. */
	return inet6_lookup_listener(net, net->ipv4.tcp_death_row.hashinfo,
				     NULL, 0, &ipv6_hdr(skb)->saddr, 0, &vip,
				     ntohs(p->port),
				     skb->dev ? skb->dev->ifindex : 0, 0);
}

/*
 * A load balancer's health check at @sid (health.c): retagged answered,
 * PROBE_OK, or PROBE_NO_LISTENER when it asks for a listener on its VIP
 * and port and there is none; End then returns it to its last segment,
 * the LB SID.  Only the probe's own SRH, [LB SID, this SID] at segments
 * left 1, is answered, and with the SID's HMAC key id only one that
 * verifies.
 */
static unsigned int tm_probe_answer(struct net *net, struct tm_sid *sid,
				    struct sk_buff *skb)
{
	const struct tm_srlb_probe *p;
	struct ipv6_sr_hdr *srh;
	u16 tag = TM_SRLB_TAG_PROBE_OK;
	unsigned int poff;
	bool bad;
	u32 hmac;
	int err;

	p = tm_srh_probe(skb, 1, &bad);
	if (!p) {
		if (!bad)
			return NF_ACCEPT;
		tm_sid_count(sid, TM_SIDC_MALFORMED);
		return NF_DROP;
	}
	poff = (const u8 *)p - skb_network_header(skb);
	/* The headers are written: this packet's own, not a clone's. */
	if (skb_cow(skb, 0))
		return NF_DROP;
	srh = (struct ipv6_sr_hdr *)(ipv6_hdr(skb) + 1);
	p = (const struct tm_srlb_probe *)(skb_network_header(skb) + poff);
	hmac = READ_ONCE(sid->hmac);
	if (hmac) {
		err = tm_srh_hmac_check(net, srh, &ipv6_hdr(skb)->saddr, hmac);
		if (err) {
			tm_sid_count(sid, err == -ENOKEY ? TM_SIDC_HMAC_NOKEY :
				     TM_SIDC_HMAC_BAD);
			return NF_DROP;
		}
	}
	if ((p->flags & TM_SRLB_PROBE_LISTENER) &&
	    !tm_probe_listener(net, skb, p))
		tag = TM_SRLB_TAG_PROBE_NO_LISTENER;
	/* Not covered by the HMAC: the load balancer's check still holds. */
	srh->tag = (__force __u16)htons(tag);
	return NF_ACCEPT;
}

/* Take the packet: no SRH, destination the VIP, received again. */
static void tm_take(struct sk_buff *skb, unsigned int srhlen,
		    const struct in6_addr *vip)
{
	if (tm_srh_pop(skb, srhlen, vip)) {
		kfree_skb(skb);
		return;
	}
	skb_reset_mac_header(skb);
	skb_dst_drop(skb);
	nf_reset_ct(skb);
	skb->protocol = htons(ETH_P_IPV6);
	netif_rx(skb);
}

unsigned int tm_accept_hook(void *priv, struct sk_buff *skb,
			    const struct nf_hook_state *state)
{
	struct tm_sids *s = &tm_net(state->net)->sids;
	const struct dst_entry *dst = skb_dst(skb);
	const struct ipv6_sr_hdr *srh;
	const struct ipv6hdr *ip6h;
	const struct tcphdr *th;
	struct in6_addr vip, lb;
	unsigned int srhlen;
	struct tm_sflow *f;
	struct tm_sid *sid;
	bool last, bad;
	u32 hmac;
	u16 tag;
	int err;

	if (!dst || !dst->lwtstate ||
	    dst->lwtstate->type != LWTUNNEL_ENCAP_SEG6_LOCAL)
		return NF_ACCEPT;
	ip6h = ipv6_hdr(skb);
	sid = tm_sid_find(s, &ip6h->daddr);
	if (!sid)
		return NF_ACCEPT;
	srh = tm_srh_get(skb, 0, &bad);
	if (!srh) {
		if (bad)
			goto malformed;
		return NF_ACCEPT;
	}
	if (tm_srh_tag(srh) == TM_SRLB_TAG_PROBE)
		return tm_probe_answer(state->net, sid, skb);
	if (srh->segments_left < 2 || srh->nexthdr != IPPROTO_TCP)
		return NF_ACCEPT;
	srhlen = (srh->hdrlen + 1) << 3;
	if (!pskb_may_pull(skb, skb_network_offset(skb) + sizeof(*ip6h) +
			   srhlen + sizeof(*th)))
		goto malformed;
	ip6h = ipv6_hdr(skb);
	srh = (const struct ipv6_sr_hdr *)(ip6h + 1);
	th = (const struct tcphdr *)((const u8 *)srh + srhlen);
	if (th->doff < sizeof(*th) / 4)
		goto malformed;
	hmac = READ_ONCE(sid->hmac);
	if (hmac) {
		err = tm_srh_hmac_check(state->net, srh, &ip6h->saddr, hmac);
		if (err) {
			tm_sid_count(sid, err == -ENOKEY ? TM_SIDC_HMAC_NOKEY :
				     TM_SIDC_HMAC_BAD);
			return NF_DROP;
		}
	}
	vip = srh->segments[0];
	lb = srh->segments[1];
	last = srh->segments_left == 2;
	tag = tm_srh_tag(srh);

	f = tm_sflow_find(s, &ip6h->saddr, &vip, th->source, th->dest);
	if (f && th->syn && !th->ack && tag == TM_SRLB_TAG_CONNECT &&
	    tm_sflow_reused(state->net, s, f))
		f = NULL;
	if (f) {
		tm_sflow_seen(f, th->fin || th->rst);
		tm_sflow_lb(state->net, f, tag, &lb, th);
		tm_sid_count(sid, TM_SIDC_STEERED);
	} else if (th->syn && !th->ack && tag != TM_SRLB_TAG_RECOVER &&
		   tag != TM_SRLB_TAG_STEER) {
		unsigned int thoff = (const u8 *)th - skb_network_header(skb);
		bool ok = tm_policy_ok(state->net, sid, skb, &vip, th);

		/* A reuseport program may have moved the head. */
		ip6h = ipv6_hdr(skb);
		th = (const struct tcphdr *)(skb_network_header(skb) + thoff);

		if (!ok && !last) {
			tm_sid_count(sid, TM_SIDC_PASSED);
			return NF_ACCEPT;
		}
		tm_sid_count(sid, ok ? TM_SIDC_ACCEPTED : TM_SIDC_FORCED);
		/* Without room to remember it, it is still this server's. */
		tm_sflow_add(s, sid, &ip6h->saddr, &vip, th->source, th->dest,
			     tag, &lb, skb->dev ? skb->dev->ifindex : 0);
	} else {
		tm_sid_count(sid, TM_SIDC_UNKNOWN);
		if (!last)
			return NF_ACCEPT;
	}
	tm_take(skb, srhlen, &vip);
	return NF_STOLEN;

malformed:
	tm_sid_count(sid, TM_SIDC_MALFORMED);
	return NF_DROP;
}
