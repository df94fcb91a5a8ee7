// SPDX-License-Identifier: GPL-2.0
/*
 * The netfilter side of a table: its hooks (one per address family it
 * covers), the packet key they build, and the verdict they give.  A table's
 * hooks are registered in its namespace when it is created and unregistered
 * before it is freed.
 *
 * The key: addresses, protocol and ports of the packet.  For IPv6 the
 * protocol is that of the upper-layer header, past the extension headers.
 * Ports are read for TCP, UDP, UDP-Lite, SCTP and DCCP; every other packet,
 * a fragment other than the first and a packet too short to hold them get
 * ports 0.  An IPv6 packet whose extension headers cannot be walked gets
 * protocol 255 (reserved), so that only rules for any protocol match it.
 *
 * The verdict: the rule found counts the packet and applies its action;
 * with no rule, the table's policy decides.  The hook runs under RCU (as
 * every netfilter hook does) and takes no lock.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/percpu.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/netfilter/ipv4/nf_reject.h>
#include <net/netfilter/ipv6/nf_reject.h>

#include "netns.h"
#include "classifier/classifier.h"

static bool tm_has_ports(u8 proto)
{
	switch (proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
	case IPPROTO_SCTP:
	case IPPROTO_DCCP:
		return true;
	}
	return false;
}

static void tm_key_ports(const struct sk_buff *skb, unsigned int thoff,
			 struct tm_key *k)
{
	__be16 buf[2];
	const __be16 *p;

	if (!tm_has_ports(k->proto))
		return;
	p = skb_header_pointer(skb, thoff, sizeof(buf), buf);
	if (!p)
		return;
	k->sport = ntohs(p[0]);
	k->dport = ntohs(p[1]);
}

/* Fill @k from an IPv4 packet; @thoff: its transport header offset. */
static void tm_key4(const struct sk_buff *skb, struct tm_key *k,
		    unsigned int *thoff, bool *frag)
{
	const struct iphdr *iph = ip_hdr(skb);

	k->family = TM_AF_INET;
	k->src.w[0] = ntohl(iph->saddr);
	k->dst.w[0] = ntohl(iph->daddr);
	k->proto = iph->protocol;
	*thoff = skb_network_offset(skb) + iph->ihl * 4;
	*frag = ntohs(iph->frag_off) & IP_OFFSET;
	if (!*frag)
		tm_key_ports(skb, *thoff, k);
}

static void tm_key6(const struct sk_buff *skb, struct tm_key *k,
		    unsigned int *thoff, bool *frag)
{
	const struct ipv6hdr *ip6h = ipv6_hdr(skb);
	__be16 frag_off = 0;
	u8 nexthdr = ip6h->nexthdr;
	unsigned int i;
	int off;

	k->family = TM_AF_INET6;
	for (i = 0; i < 4; i++) {
		k->src.w[i] = ntohl(ip6h->saddr.s6_addr32[i]);
		k->dst.w[i] = ntohl(ip6h->daddr.s6_addr32[i]);
	}
	off = ipv6_skip_exthdr(skb, skb_network_offset(skb) + sizeof(*ip6h),
			       &nexthdr, &frag_off);
	*frag = frag_off & htons(IP6_OFFSET);
	if (off < 0) {
		k->proto = 255;
		*thoff = 0;
		return;
	}
	k->proto = nexthdr;
	*thoff = off;
	if (!*frag)
		tm_key_ports(skb, off, k);
}

static void tm_reject(struct sk_buff *skb, const struct nf_hook_state *state,
		      const struct tm_key *k, bool frag, u8 how)
{
	static const u8 icmp4[] = {
		[TM_REJECT_PORT_UNREACH] = ICMP_PORT_UNREACH,
		[TM_REJECT_HOST_UNREACH] = ICMP_HOST_UNREACH,
		[TM_REJECT_ADMIN] = ICMP_PKT_FILTERED,
	};
	static const u8 icmp6[] = {
		[TM_REJECT_PORT_UNREACH] = ICMPV6_PORT_UNREACH,
		[TM_REJECT_HOST_UNREACH] = ICMPV6_ADDR_UNREACH,
		[TM_REJECT_ADMIN] = ICMPV6_ADM_PROHIBITED,
	};

	if (how == TM_REJECT_AUTO)
		how = k->proto == IPPROTO_TCP && !frag ? TM_REJECT_TCP_RESET :
							 TM_REJECT_PORT_UNREACH;
	if (how == TM_REJECT_TCP_RESET) {
		/* Rules asking for it match TCP only; fragments get none. */
		if (k->proto != IPPROTO_TCP || frag)
			return;
		if (k->family == TM_AF_INET)
			nf_send_reset(state->net, state->sk, skb, state->hook);
		else
			nf_send_reset6(state->net, state->sk, skb, state->hook);
		return;
	}
	if (k->family == TM_AF_INET)
		nf_send_unreach(skb, icmp4[how], state->hook);
	else
		nf_send_unreach6(state->net, skb, icmp6[how], state->hook);
}

/*
 * The counters are per-CPU and written with u64_stats: the hooks also run in
 * process context (LOCAL_OUT), so bottom halves are off around each update,
 * as nft_counter does, to stay on one CPU and not race a softirq there.
 */
static void tm_count(const struct tm_krule *kr, unsigned int len)
{
	struct tm_pcnt *pc;

	local_bh_disable();
	pc = this_cpu_ptr(kr->cnt->pc);
	u64_stats_update_begin(&pc->syncp);
	u64_stats_inc(&pc->packets);
	u64_stats_add(&pc->bytes, len);
	u64_stats_update_end(&pc->syncp);
	local_bh_enable();
}

static void tm_table_count(const struct tm_table *t, bool match, u32 probes)
{
	struct tm_tstats *st;

	local_bh_disable();
	st = this_cpu_ptr(t->stats);
	u64_stats_update_begin(&st->syncp);
	u64_stats_inc(&st->lookups);
	if (match)
		u64_stats_inc(&st->matches);
	u64_stats_add(&st->probes, probes);
	u64_stats_update_end(&st->syncp);
	local_bh_enable();
}

static unsigned int tm_nf_hook(void *priv, struct sk_buff *skb,
			       const struct nf_hook_state *state)
{
	const struct tm_table *t = priv;
	unsigned int policy = READ_ONCE(t->policy) == TM_POLICY_DROP ?
			      NF_DROP : NF_ACCEPT;
	const struct tm_krule *kr;
	const struct tm_rule *r;
	struct tm_key k = {};
	unsigned int thoff;
	u32 probes = 0;
	bool frag;

	/*
	 * Created by a transaction not yet committed, or deleted by one.
	 * Acquire: a table switched on has its committed rules in t->cls.
	 */
	if (unlikely(!smp_load_acquire(&t->live)))
		return NF_ACCEPT;
	if (state->pf == NFPROTO_IPV4)
		tm_key4(skb, &k, &thoff, &frag);
	else
		tm_key6(skb, &k, &thoff, &frag);
	k.iif = state->in ? state->in->ifindex : 0;
	k.oif = state->out ? state->out->ifindex : 0;

	r = tm_cls_lookup_probes(rcu_dereference(t->cls), &k, &probes);
	tm_table_count(t, r, probes);
	if (!r)
		return policy;
	kr = (const struct tm_krule *)(uintptr_t)r->action;
	tm_count(kr, skb->len);

	switch (kr->action) {
	case TM_ACT_ACCEPT:
		return NF_ACCEPT;
	case TM_ACT_REJECT:
		tm_reject(skb, state, &k, frag, kr->reject);
		return NF_DROP;
	case TM_ACT_MARK:
		skb->mark = kr->mark;
		return policy;
	case TM_ACT_COUNT:
		return policy;
	case TM_ACT_LB:
		return tm_lb_packet(kr->svc, skb, state);
	case TM_ACT_DROP:
	default:
		return NF_DROP;
	}
}

int tm_hook_register(struct net *net, struct tm_table *t)
{
	static const u8 pf[] = {
		[TM_FAMILY_IPV4] = NFPROTO_IPV4,
		[TM_FAMILY_IPV6] = NFPROTO_IPV6,
		[TM_FAMILY_INET] = NFPROTO_IPV4,
	};
	unsigned int i;

	/* The ABI's hook numbers are netfilter's. */
	BUILD_BUG_ON((int)TM_HOOK_PREROUTING != (int)NF_INET_PRE_ROUTING ||
		     (int)TM_HOOK_INPUT != (int)NF_INET_LOCAL_IN ||
		     (int)TM_HOOK_FORWARD != (int)NF_INET_FORWARD ||
		     (int)TM_HOOK_OUTPUT != (int)NF_INET_LOCAL_OUT ||
		     (int)TM_HOOK_POSTROUTING != (int)NF_INET_POST_ROUTING);
	t->nops = t->family == TM_FAMILY_INET ? 2 : 1;
	for (i = 0; i < t->nops; i++) {
		t->ops[i].hook = tm_nf_hook;
		t->ops[i].priv = t;
		t->ops[i].pf = i ? NFPROTO_IPV6 : pf[t->family];
		t->ops[i].hooknum = t->hook;
		t->ops[i].priority = t->priority;
	}
	return nf_register_net_hooks(net, t->ops, t->nops);
}

/* After this, no new packet reaches @t; running hooks end within RCU. */
void tm_hook_unregister(struct net *net, struct tm_table *t)
{
	nf_unregister_net_hooks(net, t->ops, t->nops);
}
