// SPDX-License-Identifier: GPL-2.0
/*
 * The netfilter side of a table: its hooks (one per address family it
 * covers), the packet key they build, and the verdict they give.  A table's
 * hooks are registered in its namespace when it is created and unregistered
 * before it is freed.
 *
 * The key: addresses, protocol and ports of the packet.  For IPv6 the
 * protocol is that of the upper-layer header, past the extension headers.
 * Ports are read for TCP, UDP, UDP-Lite, SCTP and DCCP, and for ICMP
 * (IPv4) and ICMPv6 (IPv6) the type and code stand in the port fields;
 * every other packet, a fragment other than the first and a packet too
 * short to hold them get ports 0.  An IPv6 packet whose extension headers
 * cannot be walked gets protocol 255 (reserved), so that only rules for any
 * protocol match it.  Then the stateful fields: TCP flags, DSCP, fragment
 * kind, mark, and the conntrack state as nft_ct reads it (none attached:
 * invalid, or untracked).
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
#include <net/dsfield.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/netfilter/nf_conntrack.h>
#include <net/netfilter/ipv4/nf_reject.h>
#include <net/netfilter/ipv6/nf_reject.h>

#include "netns.h"
#include "classifier/classifier.h"
#include "netlink/genl.h"

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

/* The transport header of a first fragment or whole packet. */
static void tm_key_l4(const struct sk_buff *skb, unsigned int thoff,
		      struct tm_key *k)
{
	u8 buf[14];
	const u8 *p;

	if (k->proto == IPPROTO_TCP) {
		/* Ports, and the flags in byte 13. */
		p = skb_header_pointer(skb, thoff, 14, buf);
		if (p)
			k->tcp_flags = p[13];
		else	/* too short for flags: the ports alone */
			p = skb_header_pointer(skb, thoff, 4, buf);
	} else if (tm_has_ports(k->proto) ||
		   (k->proto == IPPROTO_ICMP && k->family == TM_AF_INET) ||
		   (k->proto == IPPROTO_ICMPV6 && k->family == TM_AF_INET6)) {
		p = skb_header_pointer(skb, thoff, 4, buf);
	} else {
		return;
	}
	if (!p)
		return;
	if (k->proto == IPPROTO_ICMP || k->proto == IPPROTO_ICMPV6) {
		k->sport = p[0];	/* type */
		k->dport = p[1];	/* code */
		return;
	}
	k->sport = p[0] << 8 | p[1];
	k->dport = p[2] << 8 | p[3];
}

/* Conntrack's view of the packet, as nft_ct's "ct state" reads it. */
static u8 tm_key_ct(const struct sk_buff *skb)
{
	enum ip_conntrack_info ctinfo;

	if (nf_ct_get(skb, &ctinfo))
		switch (ctinfo % IP_CT_IS_REPLY) {
		case IP_CT_ESTABLISHED:
			return TM_CT_ESTABLISHED;
		case IP_CT_RELATED:
			return TM_CT_RELATED;
		default:
			return TM_CT_NEW;
		}
	return ctinfo == IP_CT_UNTRACKED ? TM_CT_UNTRACKED : TM_CT_INVALID;
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
	k->dscp = ipv4_get_dsfield(iph) >> 2;
	*thoff = skb_network_offset(skb) + iph->ihl * 4;
	*frag = ntohs(iph->frag_off) & IP_OFFSET;
	k->frag = *frag ? TM_FRAG_LATER :
		  ntohs(iph->frag_off) & IP_MF ? TM_FRAG_FIRST : TM_FRAG_NONE;
	if (!*frag)
		tm_key_l4(skb, *thoff, k);
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
	k->dscp = ipv6_get_dsfield(ip6h) >> 2;
	off = ipv6_skip_exthdr(skb, skb_network_offset(skb) + sizeof(*ip6h),
			       &nexthdr, &frag_off);
	*frag = frag_off & htons(IP6_OFFSET);
	k->frag = *frag ? TM_FRAG_LATER :
		  frag_off & htons(IP6_MF) ? TM_FRAG_FIRST : TM_FRAG_NONE;
	if (off < 0) {
		k->proto = 255;
		*thoff = 0;
		return;
	}
	k->proto = nexthdr;
	*thoff = off;
	if (!*frag)
		tm_key_l4(skb, off, k);
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

/*
 * The verdict of the rule @kr in a table of policy @policy; the load
 * balancer's is its own (it takes the packet, or not): NF_STOLEN here.
 */
static unsigned int tm_verdict(const struct tm_krule *kr,
			       unsigned int policy)
{
	switch (kr->action) {
	case TM_ACT_ACCEPT:
		return NF_ACCEPT;
	case TM_ACT_MARK:
	case TM_ACT_COUNT:
		return policy;
	case TM_ACT_LB:
		return NF_STOLEN;
	case TM_ACT_QUEUE:
		return NF_QUEUE_NR(kr->queue) |
		       (kr->queue_bypass ? NF_VERDICT_FLAG_QUEUE_BYPASS : 0);
	case TM_ACT_REJECT:
	case TM_ACT_DROP:
	default:
		return NF_DROP;
	}
}

/* Log the packet through nf_log, as the rule says, within its rate. */
static void tm_log(struct tm_klog *log, const struct sk_buff *skb,
		   const struct nf_hook_state *state)
{
	if (!__ratelimit(&log->rs))
		return;
	nf_log_packet(state->net, state->pf, state->hook, skb, state->in,
		      state->out, log->typed ? &log->li : NULL, "%s",
		      log->prefix);
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
	k.mark = skb->mark;
	k.ct = tm_key_ct(skb);

	r = tm_cls_lookup_probes(rcu_dereference(t->cls), &k, &probes);
	tm_table_count(t, r, probes);
	if (!r)
		return policy;
	kr = (const struct tm_krule *)(uintptr_t)r->action;
	tm_count(kr, skb->len);
	if (unlikely(kr->log))
		tm_log(kr->log, skb, state);
	if (unlikely(kr->trace))
		tm_nl_trace(state->net, t, kr, &k, state->hook,
			    tm_verdict(kr, policy), skb->len);

	switch (kr->action) {
	case TM_ACT_REJECT:
		tm_reject(skb, state, &k, frag, kr->reject);
		break;
	case TM_ACT_MARK:
		skb->mark = kr->mark;
		break;
	case TM_ACT_LB:
		return tm_lb_packet(kr->svc, skb, state);
	}
	return tm_verdict(kr, policy);
}

int tm_hook_register(struct net *net, struct tm_table *t)
{
	static const u8 pf[] = {
		[TM_FAMILY_IPV4] = NFPROTO_IPV4,
		[TM_FAMILY_IPV6] = NFPROTO_IPV6,
		[TM_FAMILY_INET] = NFPROTO_IPV4,
	};
	unsigned int i;

	/* The core's conntrack states and fragment kinds are the ABI's. */
	BUILD_BUG_ON((int)TM_CT_STATE_INVALID != (int)TM_CT_INVALID ||
		     (int)TM_CT_STATE_NEW != (int)TM_CT_NEW ||
		     (int)TM_CT_STATE_ESTABLISHED != (int)TM_CT_ESTABLISHED ||
		     (int)TM_CT_STATE_RELATED != (int)TM_CT_RELATED ||
		     (int)TM_CT_STATE_UNTRACKED != (int)TM_CT_UNTRACKED ||
		     (int)TM_CT_STATE_MAX != (int)TM_CT_MAX);
	BUILD_BUG_ON((int)TM_FRAGMENT_NONE != (int)TM_FRAG_NONE ||
		     (int)TM_FRAGMENT_FIRST != (int)TM_FRAG_FIRST ||
		     (int)TM_FRAGMENT_LATER != (int)TM_FRAG_LATER ||
		     (int)TM_FRAGMENT_MAX != (int)TM_FRAG_MAX);
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

/*
 * After this, no new packet reaches @t; running hooks end within RCU.  The
 * table's hold on conntrack goes with its hooks.
 */
void tm_hook_unregister(struct net *net, struct tm_table *t)
{
	unsigned int i;

	nf_unregister_net_hooks(net, t->ops, t->nops);
	for (i = 0; t->conntrack && i < t->nops; i++)
		nf_ct_netns_put(net, t->ops[i].pf);
	t->conntrack = false;
}

/*
 * Whether packets reach @t with their conntrack state: not at prerouting
 * or output at conntrack's priority or before (NF_IP_PRI_CONNTRACK, the
 * same for IPv6); every later hook comes after one of those.
 */
bool tm_hook_sees_conntrack(const struct tm_table *t)
{
	if (t->hook != TM_HOOK_PREROUTING && t->hook != TM_HOOK_OUTPUT)
		return true;
	return t->priority > NF_IP_PRI_CONNTRACK;
}

/*
 * Conntrack on in @net for @t's families, for as long as @t's hooks stay:
 * in a namespace nothing else asked it of, packets would all be invalid.
 */
int tm_hook_conntrack(struct net *net, struct tm_table *t,
		      struct netlink_ext_ack *extack)
{
	unsigned int i;
	int err;

	if (t->conntrack)
		return 0;
	for (i = 0; i < t->nops; i++) {
		err = nf_ct_netns_get(net, t->ops[i].pf);
		if (err) {
			while (i--)
				nf_ct_netns_put(net, t->ops[i].pf);
			NL_SET_ERR_MSG(extack,
				       "Cannot turn conntrack on in this namespace");
			return err;
		}
	}
	t->conntrack = true;
	return 0;
}
