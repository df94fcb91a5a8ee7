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
 *     threshold; a reported load below it; fewer connections than the
 *     threshold the dyn policy adapts, below), or if this is the last
 *     candidate, which must accept;
 *   - anything else (a flow this server does not know, e.g. after the
 *     load balancer restarted): pass it on, except at the last candidate.
 *
 * UDP has no SYN: a datagram of a flow the load balancer does not know
 * may start one or belong to one a server has (the load balancer
 * restarted, or forgot it idle).  Its hunt (tagged DGRAM) visits every
 * candidate but the first before the usual order, in a first pass where
 * only a server that knows the flow takes it:
 *
 *	[0] VIP   [1] LB SID   [2] c_k ... [k+1] c_1   [k+2] c_2 ... [2k] c_k
 *
 * so that no candidate takes a new flow that a later one has.  In the
 * second pass (segments left k + 1 down to 2) a datagram is decided as a
 * SYN: a flow this server knows, its policy, or the last candidate.  A
 * STEER for a UDP flow the server forgot (its idle timeout is shorter
 * than the load balancer's) is taken and the flow remembered again.
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
 * type, neither TCP nor UDP, or at SL 0 or 1 are no hunt: End handles them
 * as usual.
 */
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/inet6_hashtables.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/lwtunnel.h>
#include <net/tcp.h>
#include <net/udp.h>
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

/*
 * Fewer than @threshold datagrams wait on the UDP socket that would
 * receive @uh (its receive queue, what the application has not read).
 */
static bool tm_udp_backlog_ok(struct net *net, struct sk_buff *skb,
			      const struct in6_addr *vip,
			      const struct udphdr *uh, u32 threshold)
{
	struct sock *sk;
	bool ok;

	sk = udp6_lib_lookup(net, &ipv6_hdr(skb)->saddr, uh->source, vip,
			     uh->dest, skb->dev ? skb->dev->ifindex : 0);
	/* Nobody listens here: let a candidate that listens take it. */
	if (!sk)
		return false;
	/* recvmsg() moves the queue to the reader's, unread all the same. */
	ok = skb_queue_len_lockless(&sk->sk_receive_queue) +
	     skb_queue_len_lockless(&udp_sk(sk)->reader_queue) < threshold;
	sock_put(sk);
	return ok;
}

/*
 * The dyn policy: SR_c whose threshold c each SID adapts from its own
 * decisions, so that it accepts 1/k of the new connections it is offered
 * as one of the first k - 1 of k candidates (Documentation/srv6-lb.rst,
 * "The dyn policy").  c is kept in 1/65536 of a connection: with n
 * connections, accept when n < floor(c), and when n = floor(c) with the
 * probability of c's fraction, so that the chance to accept grows
 * smoothly with c.  After each decision c moves by TM_DYN_STEP (1/8 of a
 * connection) times (1/k - accepted), within 1 and the policy's
 * threshold: a SID that accepts more than 1/k lowers it, one that passes
 * on more raises it.
 */
#define TM_DYN_ONE	65536		/* an int: c is signed */
#define TM_DYN_STEP	(TM_DYN_ONE / 8)

static bool tm_dyn_ok(struct tm_sid *sid)
{
	int n = atomic_read(&sid->conns), c = atomic_read(&sid->dyn);

	if (n != c / TM_DYN_ONE)
		return n < c / TM_DYN_ONE;
	return (get_random_u32() % TM_DYN_ONE) < (u32)(c % TM_DYN_ONE);
}

/* @sid decided (@ok) as one of the first k - 1 of @k candidates. */
static void tm_dyn_adapt(struct tm_sid *sid, unsigned int k, bool ok)
{
	/* Another policy's threshold while a new one is published: bounded. */
	int top = (int)(clamp_t(u32, READ_ONCE(sid->threshold), 1,
				TM_SID_DYN_MAX) * TM_DYN_ONE);
	int step = TM_DYN_STEP / (int)k - (ok ? TM_DYN_STEP : 0);
	int c = atomic_read(&sid->dyn), next;

	do {
		next = clamp(c + step, TM_DYN_ONE, top);
	} while (!atomic_try_cmpxchg(&sid->dyn, &c, next));
}

/* The candidates of the hunt @srh (UDP's DGRAM hunts list them twice). */
static unsigned int tm_hunt_choices(const struct ipv6_sr_hdr *srh, u16 tag)
{
	return tag == TM_SRLB_TAG_DGRAM ? srh->first_segment / 2 :
					  srh->first_segment - 1;
}

/* @th is the TCP header, or the UDP one with @udp. */
static bool tm_policy_ok(struct net *net, struct tm_sid *sid,
			 struct sk_buff *skb, const struct in6_addr *vip,
			 const struct tcphdr *th, bool udp)
{
	u32 threshold = READ_ONCE(sid->threshold);

	switch (READ_ONCE(sid->policy)) {
	case TM_SID_POLICY_ALWAYS:
		return true;
	case TM_SID_POLICY_CONNS:
		return atomic_read(&sid->conns) < threshold;
	case TM_SID_POLICY_BACKLOG:
		if (udp)
			return tm_udp_backlog_ok(net, skb, vip,
						 (const struct udphdr *)th,
						 threshold);
		return tm_backlog_ok(net, skb, vip, th, threshold);
	case TM_SID_POLICY_LOAD:
		return READ_ONCE(sid->load) < threshold;
	case TM_SID_POLICY_DYN:
		return tm_dyn_ok(sid);
	default:
		return false;
	}
}

/*
 * A TCP listener, or a UDP socket, on the VIP and port a probe names (any
 * port: none to ask).
 */
static bool tm_probe_listener(struct net *net, struct sk_buff *skb,
			      const struct tm_srlb_probe *p)
{
	int dif = skb->dev ? skb->dev->ifindex : 0;
	struct in6_addr vip;
	struct sock *sk;

	if (!p->port)
		return true;
	memcpy(&vip, p->vip, sizeof(vip));
	switch (p->proto) {
	case IPPROTO_TCP:
		/* No packet for a reuseport program to pick by: by the hash. */
		return inet6_lookup_listener(net,
					     net->ipv4.tcp_death_row.hashinfo,
					     NULL, 0, &ipv6_hdr(skb)->saddr, 0,
					     &vip, ntohs(p->port), dif, 0);
	case IPPROTO_UDP:
		sk = udp6_lib_lookup(net, &ipv6_hdr(skb)->saddr, 0, &vip,
				     p->port, dif);
		if (sk)
			sock_put(sk);
		return sk;
	default:
		return true;
	}
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

/* A UDP hunt's first pass (TM_SRLB_TAG_DGRAM): only a known flow is taken. */
static bool tm_dgram_first_pass(const struct ipv6_sr_hdr *srh)
{
	return srh->segments_left > srh->first_segment / 2 + 1;
}

unsigned int tm_accept_hook(void *priv, struct sk_buff *skb,
			    const struct nf_hook_state *state)
{
	struct tm_sids *s = &tm_net(state->net)->sids;
	const struct dst_entry *dst = skb_dst(skb);
	const struct ipv6_sr_hdr *srh;
	const struct ipv6hdr *ip6h;
	const struct tcphdr *th;
	unsigned int srhlen, l4len;
	struct in6_addr vip, lb;
	struct tm_sflow *f;
	struct tm_sid *sid;
	bool last, bad, udp, syn;
	u32 hmac;
	u16 tag;
	u8 proto;
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
	if (srh->segments_left < 2 ||
	    (srh->nexthdr != IPPROTO_TCP && srh->nexthdr != IPPROTO_UDP))
		return NF_ACCEPT;
	proto = srh->nexthdr;
	udp = proto == IPPROTO_UDP;
	l4len = udp ? sizeof(struct udphdr) : sizeof(struct tcphdr);
	srhlen = (srh->hdrlen + 1) << 3;
	if (!pskb_may_pull(skb, skb_network_offset(skb) + sizeof(*ip6h) +
			   srhlen + l4len))
		goto malformed;
	ip6h = ipv6_hdr(skb);
	srh = (const struct ipv6_sr_hdr *)(ip6h + 1);
	/* The ports are where both headers have them; the rest is TCP's. */
	th = (const struct tcphdr *)((const u8 *)srh + srhlen);
	if (!udp && th->doff < sizeof(*th) / 4)
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
	/* Another tag than the load balancer's for TCP. */
	if (!udp && tag == TM_SRLB_TAG_DGRAM)
		tag = TM_SRLB_TAG_NONE;
	/* What may start a connection: a SYN, any datagram. */
	syn = udp || (th->syn && !th->ack);

	f = tm_sflow_find(s, proto, &ip6h->saddr, &vip, th->source,
			  th->dest);
	if (f && !udp && syn && tag == TM_SRLB_TAG_CONNECT &&
	    tm_sflow_reused(state->net, s, f))
		f = NULL;
	if (f) {
		tm_sflow_seen(f, !udp && (th->fin || th->rst));
		if (udp)
			tm_sflow_confirm(f);
		tm_sflow_lb(state->net, f, tag, &lb, udp ? NULL : th);
		tm_sid_count(sid, TM_SIDC_STEERED);
	} else if (tag == TM_SRLB_TAG_DGRAM && tm_dgram_first_pass(srh)) {
		tm_sid_count(sid, TM_SIDC_UNKNOWN);
		return NF_ACCEPT;
	} else if (syn && tag != TM_SRLB_TAG_RECOVER &&
		   tag != TM_SRLB_TAG_STEER) {
		unsigned int thoff = (const u8 *)th - skb_network_header(skb);
		unsigned int k = tm_hunt_choices(srh, tag);
		bool ok = tm_policy_ok(state->net, sid, skb, &vip, th, udp);

		if (!last && k >= 2 &&
		    READ_ONCE(sid->policy) == TM_SID_POLICY_DYN)
			tm_dyn_adapt(sid, k, ok);

		/* A reuseport program may have moved the head. */
		ip6h = ipv6_hdr(skb);
		th = (const struct tcphdr *)(skb_network_header(skb) + thoff);

		if (!ok && !last) {
			tm_sid_count(sid, TM_SIDC_PASSED);
			return NF_ACCEPT;
		}
		tm_sid_count(sid, ok ? TM_SIDC_ACCEPTED : TM_SIDC_FORCED);
		/* Without room to remember it, it is still this server's. */
		tm_sflow_add(s, sid, proto, &ip6h->saddr, &vip,
			     th->source, th->dest, tag, &lb,
			     skb->dev ? skb->dev->ifindex : 0);
	} else if (udp && tag == TM_SRLB_TAG_STEER) {
		/* The load balancer remembers it longer than this server. */
		tm_sid_count(sid, TM_SIDC_STEERED);
		tm_sflow_add(s, sid, IPPROTO_UDP, &ip6h->saddr, &vip,
			     th->source, th->dest, tag, &lb,
			     skb->dev ? skb->dev->ifindex : 0);
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
