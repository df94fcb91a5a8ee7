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
 *
 * With a seg6 HMAC key id, the SRH ends with an HMAC TLV (RFC 8754
 * section 2.1.2) and has the kernel's HMAC flag, laid out and computed as
 * the kernel's own seg6_push_hmac() does (net/ipv6/seg6_hmac.c): over the
 * source address, first_segment, the flags, the key id and the segments,
 * not segments left, so that the kernel's End on a candidate that passes
 * the packet on checks it too (seg6_require_hmac).  The check here does
 * not follow that sysctl: the caller asked for an HMAC, so one must be
 * there, of that key id, and verify.
 */
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <crypto/algapi.h>
#include <net/ipv6.h>
#include <net/seg6_hmac.h>
#include <uapi/linux/seg6.h>

#include "netns.h"

/* Make skb->data the IPv6 header (hooks may see it past it or before). */
static void tm_srh_at_network(struct sk_buff *skb)
{
	int off = skb_network_offset(skb);

	if (off > 0)
		__skb_pull(skb, off);
	else if (off < 0)
		__skb_push(skb, -off);
}

/* RFC 8754 Pad1: a single byte, no length. */
#define TM_SR6_TLV_PAD1		0

/*
 * The HMAC text of the kernel (seg6_hmac_compute()) holds the source,
 * 6 bytes and the segments in SEG6_HMAC_RING_SIZE bytes.
 */
static_assert(TM_SRH_HMAC_MAX_SEGS ==
	      (SEG6_HMAC_RING_SIZE - 1 - 16 - 1 - 1 - 4) / 16);
static_assert(1 + 2 * TM_LB_UDP_HMAC_MAX_CHOICES <= TM_SRH_HMAC_MAX_SEGS &&
	      3 + 2 * TM_LB_UDP_HMAC_MAX_CHOICES > TM_SRH_HMAC_MAX_SEGS);

/*
 * Called under the RCU read lock (the hooks) with a @hmac key id: @net's
 * key of that id; -ENOKEY without one.
 */
int tm_srh_push(struct sk_buff *skb, struct net *net,
		const struct in6_addr *segs, unsigned int n, u16 tag, u32 hmac)
{
	unsigned int srhlen = sizeof(struct ipv6_sr_hdr) + n * sizeof(*segs);
	struct seg6_hmac_info *hinfo = NULL;
	struct sr6_tlv_hmac *tlv;
	struct ipv6_sr_hdr *srh;
	struct ipv6hdr *ip6h;
	int err;

	if (n < 2 || n > TM_SRH_MAX_SEGS)
		return -EINVAL;
	if (hmac) {
		if (n > TM_SRH_HMAC_MAX_SEGS)
			return -EMSGSIZE;
		/* Before the packet changes: it then only gains the SRH. */
		hinfo = seg6_hmac_info_lookup(net, hmac);
		if (!hinfo)
			return -ENOKEY;
		srhlen += TM_SRH_HMAC_LEN;
	}
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
	if (!hinfo)
		return 0;
	/* Last in the SRH, where the kernel's End looks for it. */
	srh->flags = SR6_FLAG1_HMAC;
	tlv = (struct sr6_tlv_hmac *)&srh->segments[n];
	tlv->tlvhdr.type = SR6_TLV_HMAC;
	tlv->tlvhdr.len = TM_SRH_HMAC_LEN - sizeof(tlv->tlvhdr);
	tlv->reserved = 0;
	tlv->hmackeyid = cpu_to_be32(hmac);
	return seg6_hmac_compute(hinfo, srh, &ip6h->saddr, tlv->hmac);
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

/*
 * The health check after the SRH of @skb (from tm_srh_get()), pulled into
 * the linear part, when the SRH has a probe's shape: [LB SID, server SID]
 * at segments left @sl, next header 59 (health.c, accept.c).  NULL
 * otherwise, with *@bad true when the probe is cut short.  The pull may
 * move the head: the caller reloads its header pointers.
 */
const struct tm_srlb_probe *tm_srh_probe(struct sk_buff *skb, u8 sl,
					 bool *bad)
{
	const struct ipv6_sr_hdr *srh;
	unsigned int srhlen;

	srh = (const struct ipv6_sr_hdr *)(ipv6_hdr(skb) + 1);
	*bad = false;
	if (srh->first_segment != 1 || srh->segments_left != sl ||
	    srh->nexthdr != NEXTHDR_NONE)
		return NULL;
	srhlen = (srh->hdrlen + 1) << 3;
	if (!pskb_may_pull(skb, skb_network_offset(skb) +
			   sizeof(struct ipv6hdr) + srhlen +
			   sizeof(struct tm_srlb_probe))) {
		*bad = true;
		return NULL;
	}
	return (const struct tm_srlb_probe *)((const u8 *)(ipv6_hdr(skb) + 1) +
					      srhlen);
}

/*
 * Whether @srh (from tm_srh_get(): the whole SRH is in the linear part,
 * first_segment fits its length) carries an HMAC TLV of key id @hmac that
 * verifies, for the source address @saddr, with @net's key of that id.
 * The TLVs after the segments are walked up to the SRH's length: Pad1 is
 * one byte, any other TLV two plus its length, and one that does not fit
 * ends the walk as malformed; two HMAC TLVs are malformed too.  0: it
 * verifies; -ENOKEY: @net has no such key; -EBADMSG: no HMAC TLV, another
 * key id, a malformed TLV or a wrong HMAC.  Under the RCU read lock.
 */
int tm_srh_hmac_check(struct net *net, const struct ipv6_sr_hdr *srh,
		      const struct in6_addr *saddr, u32 hmac)
{
	unsigned int srhlen = (srh->hdrlen + 1) << 3, off, len;
	const struct sr6_tlv_hmac *tlv = NULL;
	u8 mac[SEG6_HMAC_FIELD_LEN];
	struct seg6_hmac_info *hinfo;
	struct in6_addr src = *saddr;
	const u8 *p = (const u8 *)srh;
	__be32 keyid;

	off = sizeof(*srh) + (srh->first_segment + 1) * sizeof(struct in6_addr);
	while (off < srhlen) {
		if (p[off] == TM_SR6_TLV_PAD1) {
			off++;
			continue;
		}
		if (off + sizeof(struct sr6_tlv) > srhlen)
			return -EBADMSG;
		len = sizeof(struct sr6_tlv) + p[off + 1];
		if (len > srhlen - off)
			return -EBADMSG;
		if (p[off] == SR6_TLV_HMAC) {
			if (tlv || len != TM_SRH_HMAC_LEN)
				return -EBADMSG;
			tlv = (const struct sr6_tlv_hmac *)(p + off);
		}
		off += len;
	}
	if (!tlv)
		return -EBADMSG;
	/* The TLV may sit at any offset: its key id may be unaligned. */
	memcpy(&keyid, &tlv->hmackeyid, sizeof(keyid));
	if (be32_to_cpu(keyid) != hmac)
		return -EBADMSG;
	if (srh->first_segment + 1 > TM_SRH_HMAC_MAX_SEGS)
		return -EBADMSG;
	hinfo = seg6_hmac_info_lookup(net, hmac);
	if (!hinfo)
		return -ENOKEY;
	/* The kernel's prototype is not const; it only reads the SRH. */
	if (seg6_hmac_compute(hinfo, (struct ipv6_sr_hdr *)srh, &src, mac))
		return -EBADMSG;
	if (crypto_memneq(mac, tlv->hmac, sizeof(mac)))
		return -EBADMSG;
	return 0;
}
