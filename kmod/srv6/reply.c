// SPDX-License-Identifier: GPL-2.0
/*
 * A server's replies on a connection it accepted from a load balancer
 * (SRLB / 6LB stickiness): the IPv6 LOCAL_OUT hook of a namespace with
 * bound SIDs (sid.c registers it with accept.c's).
 *
 * Until the load balancer steers the connection to this server (an SRH
 * tagged STEER, see accept.c), it does not know which candidate took it.
 * So the server's replies go through it: an SRH tagged REPORT,
 *
 *	[0] client   [1] the SID that accepted   [2] the load balancer's SID
 *
 * with the destination the load balancer's SID.  The load balancer learns
 * the server, removes the SRH and forwards the reply to the client.  From
 * the first steered packet on, replies go straight to the client (direct
 * server return).  A FIN or RST of the server is reported too, whatever
 * the state, so that the load balancer ages the flow out early; its FIN
 * also ends the connection's count towards the SID's policy.  A UDP
 * flow's replies report likewise, and keep it remembered (sid.c).
 *
 * A SID with a seg6 HMAC key id signs its reports with it (an HMAC TLV,
 * srh.c); without the key in the namespace, the reply is dropped and
 * counted "hmac-nokey" (unsigned, the load balancer would drop it).
 *
 * A report must fit the path: a packet that would not (segmentation
 * offload, or longer than the route's MTU with the SRH) goes straight to
 * the client instead; a later small reply reports.
 */
#include <linux/ipv6.h>
#include <linux/netfilter_ipv6.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/dst.h>
#include <net/ipv6.h>
#include <uapi/linux/seg6.h>

#include "netns.h"

#define TM_REPORT_SEGS		3
#define TM_REPORT_SRHLEN	(sizeof(struct ipv6_sr_hdr) + \
				 TM_REPORT_SEGS * sizeof(struct in6_addr))

unsigned int tm_reply_hook(void *priv, struct sk_buff *skb,
			   const struct nf_hook_state *state)
{
	struct tm_sids *s = &tm_net(state->net)->sids;
	struct in6_addr segs[TM_REPORT_SEGS];
	const struct ipv6hdr *ip6h = ipv6_hdr(skb);
	const struct dst_entry *dst;
	unsigned int srhlen = TM_REPORT_SRHLEN;
	const struct tcphdr *th;
	struct tcphdr _th;
	struct tm_sflow *f;
	bool closing = false;
	u32 hmac;
	int err;

	if (ip6h->nexthdr != IPPROTO_TCP && ip6h->nexthdr != IPPROTO_UDP)
		return NF_ACCEPT;
	/* UDP: the ports only, where TCP has them. */
	th = skb_header_pointer(skb, skb_network_offset(skb) + sizeof(*ip6h),
				ip6h->nexthdr == IPPROTO_TCP ? sizeof(_th) :
				sizeof(struct udphdr), &_th);
	if (!th)
		return NF_ACCEPT;
	f = tm_sflow_find(s, ip6h->nexthdr, &ip6h->daddr, &ip6h->saddr,
			  th->dest, th->source);
	if (!f)
		return NF_ACCEPT;
	if (ip6h->nexthdr == IPPROTO_UDP) {
		tm_sflow_seen(f, false);
		tm_sflow_answered(f);
	} else {
		closing = th->fin || th->rst;
		/*
		 * The server's own FIN ends the connection; its RST may
		 * answer a spoofed segment (e.g. a bad ACK to a SYN_RECV
		 * connection): the aging asks the socket.
		 */
		if (th->fin)
			tm_sflow_close(f);
		else if (th->rst)
			tm_sflow_seen(f, true);
	}
	if (!closing && !test_bit(TM_SFLOW_REPORT, &f->flags))
		return NF_ACCEPT;
	spin_lock_bh(&f->lock);
	segs[2] = f->lb;
	spin_unlock_bh(&f->lock);
	if (ipv6_addr_any(&segs[2]))
		return NF_ACCEPT;
	hmac = READ_ONCE(f->sid->hmac);
	if (hmac)
		srhlen += TM_SRH_HMAC_LEN;
	dst = skb_dst(skb);
	if (skb_is_gso(skb) || (dst && skb->len + srhlen > dst_mtu(dst)))
		return NF_ACCEPT;
	segs[1] = f->sid->addr;
	err = tm_srh_push(skb, state->net, segs, TM_REPORT_SEGS,
			  TM_SRLB_TAG_REPORT, hmac);
	if (err == -ENOKEY)
		tm_sid_count(f->sid, TM_SIDC_HMAC_NOKEY);
	if (err)
		return NF_DROP;
	if (ip6_route_me_harder(state->net, state->sk, skb))
		return NF_DROP;
	tm_sid_count(f->sid, TM_SIDC_REPORTS);
	return NF_ACCEPT;
}
