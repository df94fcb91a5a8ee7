// SPDX-License-Identifier: GPL-2.0
/*
 * The segment routing headers of SRv6 load balancing, as bytes in a packet:
 * inserting one right after the IPv6 header (the load balancer's hunts and
 * steers, lb_fwd.c; a server's reports, reply.c) and removing it again (a
 * server taking a connection, accept.c; the load balancer forwarding a
 * report to the client, lb_fwd.c).  Both work on a packet whose IPv6
 * header has no other extension header before the SRH.
 *
 * Insertion is "inline" mode: no outer header.  The segments are given in
 * SRH order; segments[0] becomes the packet's destination as it was (the
 * final one), and the destination becomes segments[n - 1], the first to
 * visit, with segments left n - 1.  The upper-layer checksum stays valid:
 * its pseudo-header uses the final destination, which both ends of the
 * path agree on.  A sum the device computed over the received bytes
 * (CHECKSUM_COMPLETE) no longer covers them and is dropped.
 */
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <net/ipv6.h>
#include <uapi/linux/seg6.h>

#include "tm.h"

/* Make skb->data the IPv6 header (hooks may see it past it or before). */
static void tm_srh_at_network(struct sk_buff *skb)
{
	int off = skb_network_offset(skb);

	if (off > 0)
		__skb_pull(skb, off);
	else if (off < 0)
		__skb_push(skb, -off);
}

int tm_srh_push(struct sk_buff *skb, const struct in6_addr *segs,
		unsigned int n, u16 tag)
{
	unsigned int srhlen = sizeof(struct ipv6_sr_hdr) + n * sizeof(*segs);
	struct ipv6_sr_hdr *srh;
	struct ipv6hdr *ip6h;
	int err;

	if (n < 2 || n > TM_SRH_MAX_SEGS)
		return -EINVAL;
	tm_srh_at_network(skb);
	err = skb_cow_head(skb, srhlen + skb->mac_len);
	if (err)
		return err;
	ip6h = ipv6_hdr(skb);
	/* The transport header keeps its place: the IPv6 header moves. */
	__skb_push(skb, srhlen);
	memmove(skb->data, ip6h, sizeof(*ip6h));
	skb_reset_network_header(skb);
	if (skb_mac_header_was_set(skb))
		skb_mac_header_rebuild(skb);
	ip6h = ipv6_hdr(skb);
	srh = (struct ipv6_sr_hdr *)(ip6h + 1);
	srh->nexthdr = ip6h->nexthdr;
	srh->hdrlen = (srhlen >> 3) - 1;
	srh->type = IPV6_SRCRT_TYPE_4;
	srh->segments_left = n - 1;
	srh->first_segment = n - 1;
	srh->flags = 0;
	/* The uapi declares it __u16; it is in network order. */
	srh->tag = (__force __u16)htons(tag);
	memcpy(&srh->segments[1], &segs[1], (n - 1) * sizeof(*segs));
	srh->segments[0] = ip6h->daddr;
	ip6h->nexthdr = NEXTHDR_ROUTING;
	ip6h->daddr = segs[n - 1];
	ip6h->payload_len = htons(ntohs(ip6h->payload_len) + srhlen);
	if (skb->ip_summed == CHECKSUM_COMPLETE)
		skb->ip_summed = CHECKSUM_NONE;
	return 0;
}

int tm_srh_pop(struct sk_buff *skb, unsigned int srhlen,
	       const struct in6_addr *daddr)
{
	struct in6_addr dst = *daddr;
	struct ipv6hdr *ip6h;
	u8 nexthdr;

	tm_srh_at_network(skb);
	if (skb_ensure_writable(skb, sizeof(*ip6h) + srhlen))
		return -ENOMEM;
	ip6h = ipv6_hdr(skb);
	nexthdr = ((struct ipv6_sr_hdr *)(ip6h + 1))->nexthdr;
	memmove((u8 *)ip6h + srhlen, ip6h, sizeof(*ip6h));
	__skb_pull(skb, srhlen);
	skb_reset_network_header(skb);
	skb_set_transport_header(skb, sizeof(*ip6h));
	if (skb_mac_header_was_set(skb))
		skb_mac_header_rebuild(skb);
	ip6h = ipv6_hdr(skb);
	ip6h->nexthdr = nexthdr;
	ip6h->payload_len = htons(ntohs(ip6h->payload_len) - srhlen);
	ip6h->daddr = dst;
	if (skb->ip_summed == CHECKSUM_COMPLETE)
		skb->ip_summed = CHECKSUM_NONE;
	return 0;
}

/*
 * The SRH right after the IPv6 header of @skb, pulled into the linear part
 * with the first @extra bytes after it, checked for the fields every user
 * relies on: type 4, a length that holds first_segment + 1 segments, at
 * most TM_SRH_MAX_SEGS of them, segments left in range and the destination
 * the active segment.  NULL with *@bad false when there is no SRH of type
 * 4; NULL with *@bad true when it is malformed.
 */
const struct ipv6_sr_hdr *tm_srh_get(struct sk_buff *skb, unsigned int extra,
				     bool *bad)
{
	unsigned int hlen = sizeof(struct ipv6hdr), srhlen, nseg;
	int off = skb_network_offset(skb);
	const struct ipv6_sr_hdr *srh;

	*bad = false;
	if (ipv6_hdr(skb)->nexthdr != NEXTHDR_ROUTING)
		return NULL;
	*bad = true;
	if (!pskb_may_pull(skb, off + hlen + sizeof(*srh)))
		return NULL;
	srh = (const struct ipv6_sr_hdr *)(skb_network_header(skb) + hlen);
	if (srh->type != IPV6_SRCRT_TYPE_4) {
		*bad = false;
		return NULL;
	}
	srhlen = (srh->hdrlen + 1) << 3;
	nseg = srh->first_segment + 1;
	if (srh->hdrlen < 2 * nseg || srh->segments_left > srh->first_segment ||
	    nseg > TM_SRH_MAX_SEGS)
		return NULL;
	if (!pskb_may_pull(skb, off + hlen + srhlen + extra))
		return NULL;
	srh = (const struct ipv6_sr_hdr *)(skb_network_header(skb) + hlen);
	if (!ipv6_addr_equal(&srh->segments[srh->segments_left],
			     &ipv6_hdr(skb)->daddr))
		return NULL;
	*bad = false;
	return srh;
}
