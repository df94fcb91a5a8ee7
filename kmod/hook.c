// SPDX-License-Identifier: GPL-2.0
/*
 * The netfilter side of a table: its hooks (one per address family it
 * covers) and the verdict they give.  A table's hooks are registered in its
 * namespace when it is created and unregistered before it is freed.
 */
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>

#include "tm.h"
#include "core/tm_cls.h"

/*
 * The verdict for a packet.  Rules (and so lookups in t->cls) come with the
 * rule commands; until then every packet gets the table's policy.
 */
static unsigned int tm_nf_hook(void *priv, struct sk_buff *skb,
			       const struct nf_hook_state *state)
{
	const struct tm_table *t = priv;

	return READ_ONCE(t->policy) == TM_POLICY_DROP ? NF_DROP : NF_ACCEPT;
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
