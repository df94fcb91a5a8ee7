// SPDX-License-Identifier: GPL-2.0
/*
 * The rule, lookup and counter commands of the "tuplemerge" family:
 * attribute parsing with an extack message for every refusal, the rule
 * message format (replies, dumps, events), and the choice between a
 * table's own rules and a transaction's copy.  The operations themselves
 * are in classifier/rule.c and txn.c.
 */
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "netns.h"
#include "txn.h"
#include "netlink/genl.h"

/* An address attribute: 4 bytes (IPv4) or 16 (IPv6), network order. */
static int tm_nl_addr(const struct nlattr *na, struct tm_addr *a, u8 *af,
		      struct netlink_ext_ack *extack)
{
	const __be32 *p = nla_data(na);	/* attributes are 4-byte aligned */
	unsigned int i, n;

	switch (nla_len(na)) {
	case 4:
		*af = TM_AF_INET;
		n = 1;
		break;
	case 16:
		*af = TM_AF_INET6;
		n = 4;
		break;
	default:
		NL_SET_ERR_MSG_ATTR(extack, na,
				    "Address must be 4 bytes (IPv4) or 16 (IPv6)");
		return -EINVAL;
	}
	memset(a, 0, sizeof(*a));
	for (i = 0; i < n; i++)
		a->w[i] = be32_to_cpu(p[i]);
	return 0;
}

/* A prefix: address attribute @aa and length @al.  *af stays 0 if none. */
static int tm_nl_prefix(struct genl_info *info, int aa, int al,
			struct tm_addr *a, u8 *len, u8 *af)
{
	const struct nlattr *na = info->attrs[aa], *nl = info->attrs[al];
	int err;

	*af = 0;
	*len = 0;
	if (!na) {
		if (nl) {
			NL_SET_ERR_MSG_ATTR(info->extack, nl,
					    "Prefix length without an address");
			return -EINVAL;
		}
		return 0;
	}
	err = tm_nl_addr(na, a, af, info->extack);
	if (err)
		return err;
	/* Its range and the host bits are tm_rule_check()'s. */
	*len = nl ? nla_get_u8(nl) : (*af == TM_AF_INET ? 32 : 128);
	return 0;
}

/* A port range from @amin and @amax; its order is tm_rule_check()'s. */
static void tm_nl_ports(struct genl_info *info, int amin, int amax, u16 *lo,
			u16 *hi)
{
	const struct nlattr *min = info->attrs[amin], *max = info->attrs[amax];

	*lo = min ? nla_get_u16(min) : max ? nla_get_u16(max) : 0;
	*hi = max ? nla_get_u16(max) : min ? nla_get_u16(min) : 65535;
}

/*
 * The service of an lb rule, under tm_net.lock: it must exist (as the
 * request's transaction sees it) and not be going with another
 * transaction's commit, and the rule must be IPv6 only, in a table at the
 * prerouting hook, where the packet's destination can still change its
 * route.
 */
static int tm_nl_rule_lb(struct genl_info *info, const struct tm_table *t,
			 struct tm_rule_cfg *cfg)
{
	const struct nlattr *name = info->attrs[TM_A_RULE_LB_SERVICE];
	struct tm_net *tn = tm_net(genl_info_net(info));
	struct netlink_ext_ack *extack = info->extack;
	struct tm_txn *txn = tm_nl_info_txn(info);

	if (!name) {
		NL_SET_ERR_MSG(extack, "The lb action needs a service");
		NL_SET_ERR_ATTR_MISS(extack, NULL, TM_A_RULE_LB_SERVICE);
		return -EINVAL;
	}
	if (t->hook != TM_HOOK_PREROUTING) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[TM_A_RULE_ACTION],
				    "The lb action needs a table at the prerouting hook");
		return -EINVAL;
	}
	if (cfg->fams != TM_FAMS_V6) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[TM_A_RULE_ACTION],
				    "An lb rule must be IPv6 only (family ip6 or IPv6 addresses)");
		return -EINVAL;
	}
	cfg->svc = tm_lb_svc_find_txn(tn, nla_data(name), txn);
	if (!cfg->svc) {
		NL_SET_ERR_MSG_ATTR(extack, name,
				    "No load-balancer service with this name");
		return -ENOENT;
	}
	if (tm_lb_svc_going(cfg->svc, txn)) {
		NL_SET_ERR_MSG_ATTR(extack, name,
				    "An open transaction is deleting this service");
		return -EBUSY;
	}
	return 0;
}

static bool tm_nl_has_icmp(struct nlattr **a)
{
	return a[TM_A_RULE_ICMP_TYPE_MIN] || a[TM_A_RULE_ICMP_TYPE_MAX] ||
	       a[TM_A_RULE_ICMP_CODE_MIN] || a[TM_A_RULE_ICMP_CODE_MAX];
}

/* An ICMP type or code range: a u8 min and max, any when absent. */
static void tm_nl_icmp(struct genl_info *info, int amin, u16 *lo, u16 *hi)
{
	const struct nlattr *min = info->attrs[amin];
	const struct nlattr *max = info->attrs[amin + 1];

	if (!min && !max)
		return;
	*lo = min ? nla_get_u8(min) : 0;
	*hi = max ? nla_get_u8(max) : 255;
}

/*
 * The stateful matches: conntrack state, TCP flags, ICMP type and code
 * (kept in the port fields, which are the key's type and code for ICMP),
 * mark, DSCP and fragment kind.  The attributes that go in pairs must.
 */
static int tm_nl_stateful(struct genl_info *info, struct tm_rule *r)
{
	struct nlattr **a = info->attrs;

	if (a[TM_A_RULE_CT_STATE])
		r->ct_set = nla_get_u8(a[TM_A_RULE_CT_STATE]);
	if (a[TM_A_RULE_TCP_FLAGS] && !a[TM_A_RULE_TCP_FLAGS_MASK]) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[TM_A_RULE_TCP_FLAGS],
				    "TCP flags without their mask");
		return -EINVAL;
	}
	if (a[TM_A_RULE_TCP_FLAGS_MASK]) {
		r->tcp_flags_mask = nla_get_u8(a[TM_A_RULE_TCP_FLAGS_MASK]);
		if (a[TM_A_RULE_TCP_FLAGS])
			r->tcp_flags = nla_get_u8(a[TM_A_RULE_TCP_FLAGS]);
	}
	if (a[TM_A_RULE_META_MARK_MASK] && !a[TM_A_RULE_META_MARK]) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[TM_A_RULE_META_MARK_MASK],
				    "Mark mask without a mark");
		return -EINVAL;
	}
	if (a[TM_A_RULE_META_MARK]) {
		r->mark = nla_get_u32(a[TM_A_RULE_META_MARK]);
		r->mark_mask = a[TM_A_RULE_META_MARK_MASK] ?
			       nla_get_u32(a[TM_A_RULE_META_MARK_MASK]) :
			       U32_MAX;
	}
	if (a[TM_A_RULE_DSCP])
		r->dscp_set = nla_get_u64(a[TM_A_RULE_DSCP]);
	if (a[TM_A_RULE_FRAGMENT])
		r->frag_set = nla_get_u8(a[TM_A_RULE_FRAGMENT]);
	/*
	 * Ports beside them are refused by tm_nl_rule_check(), which knows
	 * the protocol: an ICMP rule has no ports, another no ICMP type.
	 */
	if (!tm_nl_has_icmp(a))
		return 0;
	tm_nl_icmp(info, TM_A_RULE_ICMP_TYPE_MIN, &r->sport_lo, &r->sport_hi);
	tm_nl_icmp(info, TM_A_RULE_ICMP_CODE_MIN, &r->dport_lo, &r->dport_hi);
	return 0;
}

/*
 * A rule from the request's attributes (TM_CMD_RULE_NEW/SET): what each
 * attribute alone can say is wrong (an address of neither 4 nor 16 bytes,
 * a prefix length without an address).  Everything else is
 * tm_nl_rule_check()'s.  *@af: the addresses' family, 0 without any.
 */
static int tm_nl_rule_parse(struct genl_info *info, struct tm_rule_cfg *cfg,
			    u8 *af)
{
	struct nlattr **a = info->attrs;
	u8 saf, daf;
	int err;

	memset(cfg, 0, sizeof(*cfg));
	if (a[TM_A_RULE_ID])
		cfg->id = nla_get_u32(a[TM_A_RULE_ID]);
	if (a[TM_A_RULE_PRIORITY])
		cfg->r.priority = nla_get_u32(a[TM_A_RULE_PRIORITY]);
	err = tm_nl_prefix(info, TM_A_RULE_SRC, TM_A_RULE_SRC_LEN,
			   &cfg->r.src, &cfg->r.src_len, &saf);
	if (!err)
		err = tm_nl_prefix(info, TM_A_RULE_DST, TM_A_RULE_DST_LEN,
				   &cfg->r.dst, &cfg->r.dst_len, &daf);
	if (err)
		return err;
	if (saf && daf && saf != daf) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[TM_A_RULE_DST],
				    "Source and destination addresses of different families");
		return -EINVAL;
	}
	*af = saf ?: daf;
	tm_nl_ports(info, TM_A_RULE_SPORT_MIN, TM_A_RULE_SPORT_MAX,
		    &cfg->r.sport_lo, &cfg->r.sport_hi);
	tm_nl_ports(info, TM_A_RULE_DPORT_MIN, TM_A_RULE_DPORT_MAX,
		    &cfg->r.dport_lo, &cfg->r.dport_hi);
	if (a[TM_A_RULE_PROTO])
		cfg->r.proto = nla_get_u8(a[TM_A_RULE_PROTO]);
	else
		cfg->r.proto_any = 1;
	if (a[TM_A_RULE_IIF])
		cfg->r.iif = nla_get_u32(a[TM_A_RULE_IIF]);
	if (a[TM_A_RULE_OIF])
		cfg->r.oif = nla_get_u32(a[TM_A_RULE_OIF]);
	err = tm_nl_stateful(info, &cfg->r);
	if (err)
		return err;
	cfg->action = a[TM_A_RULE_ACTION] ? nla_get_u8(a[TM_A_RULE_ACTION]) :
					    TM_ACT_ACCEPT;
	if (a[TM_A_RULE_REJECT])
		cfg->reject = nla_get_u8(a[TM_A_RULE_REJECT]);
	if (a[TM_A_RULE_MARK])
		cfg->mark = nla_get_u32(a[TM_A_RULE_MARK]);
	if (a[TM_A_RULE_COMMENT])
		cfg->comment = nla_data(a[TM_A_RULE_COMMENT]);
	if (a[TM_A_RULE_COOKIE])
		cfg->cookie = nla_get_u64(a[TM_A_RULE_COOKIE]);
	cfg->reset_counters = !!a[TM_A_RULE_RESET_COUNTERS];
	return 0;
}

/* The attribute of each part of a rule tm_rule_check() can refuse. */
static const u16 tm_rule_part_attr[] = {
	[TM_RP_RULE] = TM_A_RULE_FAMILY,
	[TM_RP_SRC] = TM_A_RULE_SRC,
	[TM_RP_SRC_LEN] = TM_A_RULE_SRC_LEN,
	[TM_RP_DST] = TM_A_RULE_DST,
	[TM_RP_DST_LEN] = TM_A_RULE_DST_LEN,
	[TM_RP_SPORT] = TM_A_RULE_SPORT_MAX,
	[TM_RP_DPORT] = TM_A_RULE_DPORT_MAX,
	[TM_RP_PROTO] = TM_A_RULE_PROTO,
	[TM_RP_MARK] = TM_A_RULE_META_MARK,
	[TM_RP_CT] = TM_A_RULE_CT_STATE,
	[TM_RP_FRAG] = TM_A_RULE_FRAGMENT,
	[TM_RP_TCP_FLAGS] = TM_A_RULE_TCP_FLAGS_MASK,
};

/*
 * The one validation of a parsed rule of table @t: its family from its
 * attributes, then the core's check of its fields (tm_rule_check(): prefix
 * lengths, host bits, port ranges), then what the attributes mean together
 * (action and its arguments) and what the table's family and hook allow.
 * @af: the family of its addresses, 0 without any.
 */
static int tm_nl_rule_check(struct genl_info *info, const struct tm_table *t,
			    struct tm_rule_cfg *cfg, u8 af, bool replace)
{
	struct netlink_ext_ack *extack = info->extack;
	u8 table_fams = tm_fams_of_family(t->family);
	struct nlattr **a = info->attrs;
	struct tm_rule_fault fault;
	int err;

	if (replace && !cfg->id) {
		NL_SET_ERR_MSG(extack, "Replace needs the id of the rule");
		NL_SET_ERR_ATTR_MISS(extack, NULL, TM_A_RULE_ID);
		return -EINVAL;
	}
	if (a[TM_A_RULE_FAMILY]) {
		cfg->fams = tm_fams_of_family(nla_get_u8(a[TM_A_RULE_FAMILY]));
		if (af && cfg->fams != tm_fams_of_af(af)) {
			NL_SET_ERR_MSG_ATTR(extack, a[TM_A_RULE_FAMILY],
					    "Rule family does not match its addresses");
			return -EINVAL;
		}
	} else if (af) {
		cfg->fams = tm_fams_of_af(af);
	} else if (tm_nl_has_icmp(a) && !cfg->r.proto_any &&
		   (cfg->r.proto == IPPROTO_ICMP ||
		    cfg->r.proto == IPPROTO_ICMPV6)) {
		/* ICMP types are IPv4's, ICMPv6 types IPv6's, as in nft. */
		cfg->fams = cfg->r.proto == IPPROTO_ICMP ? TM_FAMS_V4 :
							   TM_FAMS_V6;
	} else {
		cfg->fams = table_fams;
	}
	if (cfg->fams & ~table_fams) {
		NL_SET_ERR_MSG(extack,
			       "Rule family does not fit the table's family");
		return -EINVAL;
	}
	cfg->r.family = cfg->fams & TM_FAMS_V4 ? TM_AF_INET : TM_AF_INET6;
	err = tm_rule_check(&cfg->r, &fault);
	if (err) {
		/* A string literal of the core, as NL_SET_ERR_MSG() keeps. */
		if (extack)
			extack->_msg = fault.why;
		NL_SET_BAD_ATTR(extack, a[tm_rule_part_attr[fault.part]]);
		return err;
	}

	if (a[TM_A_RULE_CT_STATE] && !tm_hook_sees_conntrack(t)) {
		NL_SET_ERR_MSG_ATTR(extack, a[TM_A_RULE_CT_STATE],
				    "The table's hook runs before conntrack (priority -200): no state yet");
		return -EINVAL;
	}
	if (!cfg->r.proto_any &&
	    (cfg->r.proto == IPPROTO_ICMP || cfg->r.proto == IPPROTO_ICMPV6) &&
	    (a[TM_A_RULE_SPORT_MIN] || a[TM_A_RULE_SPORT_MAX] ||
	     a[TM_A_RULE_DPORT_MIN] || a[TM_A_RULE_DPORT_MAX])) {
		NL_SET_ERR_MSG(extack,
			       "ICMP has no ports: use the ICMP type and code");
		return -EINVAL;
	}
	if (tm_nl_has_icmp(a) &&
	    !(cfg->fams == TM_FAMS_V4 && !cfg->r.proto_any &&
	      cfg->r.proto == IPPROTO_ICMP) &&
	    !(cfg->fams == TM_FAMS_V6 && !cfg->r.proto_any &&
	      cfg->r.proto == IPPROTO_ICMPV6)) {
		NL_SET_ERR_MSG(extack,
			       "ICMP type and code need protocol icmp in an IPv4 rule or icmpv6 in an IPv6 one");
		return -EINVAL;
	}
	if (a[TM_A_RULE_IIF] &&
	    (t->hook == TM_HOOK_OUTPUT || t->hook == TM_HOOK_POSTROUTING)) {
		NL_SET_ERR_MSG_ATTR(extack, a[TM_A_RULE_IIF],
				    "Packets have no input interface at the table's hook");
		return -EINVAL;
	}
	if (a[TM_A_RULE_OIF] &&
	    (t->hook == TM_HOOK_PREROUTING || t->hook == TM_HOOK_INPUT)) {
		NL_SET_ERR_MSG_ATTR(extack, a[TM_A_RULE_OIF],
				    "Packets have no output interface at the table's hook");
		return -EINVAL;
	}

	if (a[TM_A_RULE_REJECT] && cfg->action != TM_ACT_REJECT) {
		NL_SET_ERR_MSG_ATTR(extack, a[TM_A_RULE_REJECT],
				    "Reject type given for an action other than reject");
		return -EINVAL;
	}
	if (cfg->action == TM_ACT_REJECT) {
		if (t->hook == TM_HOOK_POSTROUTING) {
			NL_SET_ERR_MSG_ATTR(extack, a[TM_A_RULE_ACTION],
					    "Reject is not available at the postrouting hook");
			return -EINVAL;
		}
		if (cfg->reject == TM_REJECT_TCP_RESET &&
		    (cfg->r.proto_any || cfg->r.proto != IPPROTO_TCP)) {
			NL_SET_ERR_MSG_ATTR(extack, a[TM_A_RULE_REJECT],
					    "A TCP reset needs a rule for protocol tcp");
			return -EINVAL;
		}
	}
	if (a[TM_A_RULE_MARK] && cfg->action != TM_ACT_MARK) {
		NL_SET_ERR_MSG_ATTR(extack, a[TM_A_RULE_MARK],
				    "Mark value given for an action other than mark");
		return -EINVAL;
	}
	if (!a[TM_A_RULE_MARK] && cfg->action == TM_ACT_MARK) {
		NL_SET_ERR_MSG(extack, "The mark action needs a mark value");
		NL_SET_ERR_ATTR_MISS(extack, NULL, TM_A_RULE_MARK);
		return -EINVAL;
	}
	if (a[TM_A_RULE_LB_SERVICE] && cfg->action != TM_ACT_LB) {
		NL_SET_ERR_MSG_ATTR(extack, a[TM_A_RULE_LB_SERVICE],
				    "Service given for an action other than lb");
		return -EINVAL;
	}
	if (cfg->action == TM_ACT_LB) {
		err = tm_nl_rule_lb(info, t, cfg);
		if (err)
			return err;
	}
	if (cfg->reset_counters && !replace) {
		NL_SET_ERR_MSG_ATTR(extack, a[TM_A_RULE_RESET_COUNTERS],
				    "Counters can only be reset on a replace");
		return -EINVAL;
	}
	return 0;
}

static int tm_put_addr(struct sk_buff *skb, int attr, const struct tm_addr *a,
		       u8 af)
{
	unsigned int i, n = af == TM_AF_INET ? 1 : 4;
	__be32 buf[4];

	for (i = 0; i < n; i++)
		buf[i] = cpu_to_be32(a->w[i]);
	return nla_put(skb, attr, 4 * n, buf);
}

/*
 * The source (or destination, @dst) port range of @r, or for ICMP its
 * type (code) range, which the port fields hold; nothing for any.
 */
static int tm_put_ports(struct sk_buff *skb, const struct tm_rule *r,
			bool dst)
{
	u16 lo = dst ? r->dport_lo : r->sport_lo;
	u16 hi = dst ? r->dport_hi : r->sport_hi;
	int amin;

	if (lo == 0 && hi == 65535)
		return 0;
	if (!r->proto_any &&
	    (r->proto == IPPROTO_ICMP || r->proto == IPPROTO_ICMPV6)) {
		amin = dst ? TM_A_RULE_ICMP_CODE_MIN : TM_A_RULE_ICMP_TYPE_MIN;
		return nla_put_u8(skb, amin, lo) ||
		       nla_put_u8(skb, amin + 1, hi);
	}
	amin = dst ? TM_A_RULE_DPORT_MIN : TM_A_RULE_SPORT_MIN;
	return nla_put_u16(skb, amin, lo) || nla_put_u16(skb, amin + 1, hi);
}

static int tm_put_stateful(struct sk_buff *skb, const struct tm_rule *r)
{
	return (r->ct_set &&
		nla_put_u8(skb, TM_A_RULE_CT_STATE, r->ct_set)) ||
	       (r->tcp_flags_mask &&
		(nla_put_u8(skb, TM_A_RULE_TCP_FLAGS, r->tcp_flags) ||
		 nla_put_u8(skb, TM_A_RULE_TCP_FLAGS_MASK,
			    r->tcp_flags_mask))) ||
	       (r->mark_mask &&
		(nla_put_u32(skb, TM_A_RULE_META_MARK, r->mark) ||
		 (r->mark_mask != U32_MAX &&
		  nla_put_u32(skb, TM_A_RULE_META_MARK_MASK, r->mark_mask)))) ||
	       (r->dscp_set &&
		nla_put_u64_64bit(skb, TM_A_RULE_DSCP, r->dscp_set,
				  TM_A_PAD)) ||
	       (r->frag_set &&
		nla_put_u8(skb, TM_A_RULE_FRAGMENT, r->frag_set));
}

static int tm_put_rule(struct sk_buff *skb, const struct tm_krule *kr,
		       const struct tm_rule *r, bool counters)
{
	u64 packets, bytes;

	if (nla_put_u32(skb, TM_A_RULE_ID, kr->id) ||
	    nla_put_u32(skb, TM_A_RULE_PRIORITY, r->priority) ||
	    nla_put_u8(skb, TM_A_RULE_FAMILY, tm_family_of_fams(kr->fams)) ||
	    nla_put_u8(skb, TM_A_RULE_ACTION, kr->action))
		return -EMSGSIZE;
	if (r->src_len &&
	    (tm_put_addr(skb, TM_A_RULE_SRC, &r->src, r->family) ||
	     nla_put_u8(skb, TM_A_RULE_SRC_LEN, r->src_len)))
		return -EMSGSIZE;
	if (r->dst_len &&
	    (tm_put_addr(skb, TM_A_RULE_DST, &r->dst, r->family) ||
	     nla_put_u8(skb, TM_A_RULE_DST_LEN, r->dst_len)))
		return -EMSGSIZE;
	if (tm_put_ports(skb, r, false) || tm_put_ports(skb, r, true) ||
	    tm_put_stateful(skb, r))
		return -EMSGSIZE;
	if ((!r->proto_any && nla_put_u8(skb, TM_A_RULE_PROTO, r->proto)) ||
	    (r->iif && nla_put_u32(skb, TM_A_RULE_IIF, r->iif)) ||
	    (r->oif && nla_put_u32(skb, TM_A_RULE_OIF, r->oif)) ||
	    (kr->action == TM_ACT_REJECT &&
	     nla_put_u8(skb, TM_A_RULE_REJECT, kr->reject)) ||
	    (kr->action == TM_ACT_MARK &&
	     nla_put_u32(skb, TM_A_RULE_MARK, kr->mark)) ||
	    (kr->svc &&
	     nla_put_string(skb, TM_A_RULE_LB_SERVICE, kr->svc->name)) ||
	    (kr->comment &&
	     nla_put_string(skb, TM_A_RULE_COMMENT, kr->comment)) ||
	    (kr->cookie &&
	     nla_put_u64_64bit(skb, TM_A_RULE_COOKIE, kr->cookie, TM_A_PAD)))
		return -EMSGSIZE;
	if (!counters)
		return 0;
	tm_cnt_read(kr->cnt, &packets, &bytes);
	if (nla_put_u64_64bit(skb, TM_A_RULE_PACKETS, packets, TM_A_PAD) ||
	    nla_put_u64_64bit(skb, TM_A_RULE_BYTES, bytes, TM_A_PAD))
		return -EMSGSIZE;
	return 0;
}

/*
 * A whole rule message.  TM_CMD_RULE_DEL carries the id alone, and no id
 * for a flush (@kr NULL).
 */
static int tm_fill_rule(struct sk_buff *skb, const struct tm_table *t,
			const struct tm_krule *kr, const struct tm_rule *r,
			u32 portid, u32 seq, int flags, u8 cmd, u64 generation)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &tm_genl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_string(skb, TM_A_TABLE_NAME, t->name) ||
	    tm_put_generation(skb, generation) ||
	    (kr && cmd == TM_CMD_RULE_DEL &&
	     nla_put_u32(skb, TM_A_RULE_ID, kr->id)) ||
	    (kr && cmd != TM_CMD_RULE_DEL && tm_put_rule(skb, kr, r, true))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static void tm_notify_rule(struct net *net, const struct tm_table *t,
			   const struct tm_krule *kr, const struct tm_rule *r,
			   u8 cmd, u64 generation)
{
	struct sk_buff *skb = tm_genl_event_new(net);
	int err;

	if (!skb)
		return;
	err = tm_fill_rule(skb, t, kr, r, 0, 0, 0, cmd, generation);
	tm_genl_event_send(net, skb, err);
}

void tm_nl_notify_commit(struct net *net, const struct tm_table *t, u32 ops,
			 u64 generation)
{
	struct sk_buff *skb = tm_genl_event_new(net);
	void *hdr;
	int err;

	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &tm_genl_family, 0, TM_CMD_TXN_COMMIT);
	err = !hdr ||
	      nla_put_string(skb, TM_A_TABLE_NAME, t->name) ||
	      nla_put_u32(skb, TM_A_TXN_OPS, ops) ||
	      nla_put_u32(skb, TM_A_TABLE_RULES, t->rules.nrules) ||
	      tm_put_generation(skb, generation) ? -EMSGSIZE : 0;
	if (!err)
		genlmsg_end(skb, hdr);
	tm_genl_event_send(net, skb, err);
}

/* A change was made to @tg: count it, or announce it. */
static void tm_nl_changed(struct net *net, const struct tm_target *tg,
			  struct tm_txn *txn, u32 id, u8 cmd)
{
	struct tm_table *t = tg->table;
	const struct tm_krule *kr = NULL;
	const struct tm_rule *r = NULL;
	u64 generation;

	if (tg->shadow) {
		tg->shadow->ops++;
		txn->ops++;
		return;
	}
	generation = tm_net_changed(tg->tn);
	if (cmd == TM_CMD_RULE_DEL) {
		/* Gone: announce the id alone (none for a flush). */
		struct tm_krule gone = { .id = id };

		tm_notify_rule(net, t, id ? &gone : NULL, NULL, cmd,
			       generation);
		return;
	}
	kr = tm_rule_find(&t->rules, id, &r);
	tm_notify_rule(net, t, kr, r, cmd, generation);
}

static int tm_nl_rule_change(struct sk_buff *skb, struct genl_info *info,
			     u8 cmd)
{
	struct net *net = genl_info_net(info);
	struct tm_txn *txn = tm_nl_info_txn(info);
	struct tm_table *t = tm_nl_info_table(info);
	struct tm_net *tn = tm_net(net);
	struct sk_buff *echo = NULL;
	const struct tm_krule *kr;
	const struct tm_rule *r;
	struct tm_rule_cfg cfg;
	struct tm_target tg;
	int err;
	u8 af;

	if (info->nlhdr->nlmsg_flags & NLM_F_ECHO) {
		echo = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
		if (!echo)
			return -ENOMEM;
	}
	err = tm_nl_rule_parse(info, &cfg, &af) ?:
	      tm_nl_rule_check(info, t, &cfg, af, cmd == TM_CMD_RULE_SET);
	/* Conntrack on for good once a rule of the table needs it. */
	if (!err && cfg.r.ct_set)
		err = tm_hook_conntrack(net, t, info->extack);
	if (err)
		goto out;
	err = tm_txn_target(tn, txn, t, false, &tg, info->extack);
	if (err)
		goto out;
	if (cmd == TM_CMD_RULE_NEW)
		err = tm_rule_add(&tg, &cfg, info->extack);
	else
		err = tm_rule_replace(&tg, &cfg, info->extack);
	if (err)
		goto out;
	tm_nl_changed(net, &tg, txn, cfg.id, cmd);
	if (echo) {
		kr = tm_rule_find(tg.rs, cfg.id, &r);
		err = tm_fill_rule(echo, t, kr, r, info->snd_portid,
				   info->snd_seq, 0, cmd, tn->generation);
	}
out:
	if (!echo)
		return err;
	if (err) {
		nlmsg_free(echo);
		return err;
	}
	return genlmsg_reply(echo, info);
}

int tm_nl_rule_new(struct sk_buff *skb, struct genl_info *info)
{
	return tm_nl_rule_change(skb, info, TM_CMD_RULE_NEW);
}

int tm_nl_rule_set(struct sk_buff *skb, struct genl_info *info)
{
	return tm_nl_rule_change(skb, info, TM_CMD_RULE_SET);
}

/* Delete rule TM_A_RULE_ID, or every rule of the table without it. */
int tm_nl_rule_del(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct tm_net *tn = tm_net(net);
	const struct nlattr *ida = info->attrs[TM_A_RULE_ID];
	struct tm_txn *txn = tm_nl_info_txn(info);
	u32 id = ida ? nla_get_u32(ida) : 0;
	struct tm_target tg;
	int err;

	err = tm_txn_target(tn, txn, tm_nl_info_table(info), !id, &tg,
			    info->extack);
	if (err)
		return err;
	if (id) {
		err = tm_rule_del(&tg, id, info->extack);
		if (err)
			NL_SET_BAD_ATTR(info->extack, ida);
	} else {
		err = tm_rules_flush(&tg);
	}
	if (!err)
		tm_nl_changed(net, &tg, txn, id, TM_CMD_RULE_DEL);
	return err;
}

int tm_nl_rule_get(struct sk_buff *skb, struct genl_info *info)
{
	struct tm_net *tn = tm_net(genl_info_net(info));
	struct tm_table *t = tm_nl_info_table(info);
	const struct tm_krule *kr;
	const struct tm_rule *r;
	struct sk_buff *msg;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, TM_A_RULE_ID))
		return -EINVAL;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	kr = tm_rule_find(&t->rules, nla_get_u32(info->attrs[TM_A_RULE_ID]),
			  &r);
	if (!kr) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[TM_A_RULE_ID],
				    "No rule with this id in this table");
		err = -ENOENT;
		goto out;
	}
	err = tm_fill_rule(msg, t, kr, r, info->snd_portid, info->snd_seq, 0,
			   TM_CMD_RULE_GET, tn->generation);
out:
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/*
 * Rule dumps: the ids of the table taken, sorted, when the dump starts;
 * each part sends the rules still there from position @pos on, so a dump
 * resumes by id, and is flagged NLM_F_DUMP_INTR if the namespace changed
 * since the start.
 */
struct tm_rule_dump {
	u32 *ids;
	u32 n;
	u32 pos;
	char name[TM_NAME_MAX];
};

static struct tm_rule_dump *tm_dump_state(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct tm_rule_dump) > sizeof(cb->ctx));
	return (struct tm_rule_dump *)cb->ctx;
}

int tm_nl_rule_dump_start(struct netlink_callback *cb)
{
	struct tm_net *tn = tm_net(sock_net(cb->skb->sk));
	struct tm_rule_dump *d = tm_dump_state(cb);
	const struct nlattr *name;
	struct tm_table *t;
	int err;

	/* Validated by the op's policy; genl_dumpit_info() differs by kernel. */
	name = nlmsg_find_attr(cb->nlh, GENL_HDRLEN, TM_A_TABLE_NAME);
	memset(d, 0, sizeof(*d));
	if (!name) {
		NL_SET_ERR_MSG(cb->extack, "Listing rules needs a table name");
		NL_SET_ERR_ATTR_MISS(cb->extack, NULL, TM_A_TABLE_NAME);
		return -EINVAL;
	}
	nla_strscpy(d->name, name, sizeof(d->name));
	mutex_lock(&tn->lock);
	t = tm_table_find(tn, d->name);
	if (!t) {
		NL_SET_ERR_MSG_ATTR(cb->extack, name, "No table with this name");
		err = -ENOENT;
	} else {
		err = tm_rules_ids(&t->rules, &d->ids, &d->n);
	}
	/* A change from now on flags the dump (nl_dump_check_consistent). */
	cb->prev_seq = (u32)tn->generation + 1;
	mutex_unlock(&tn->lock);
	return err;
}

int tm_nl_rule_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct tm_net *tn = tm_net(sock_net(skb->sk));
	struct tm_rule_dump *d = tm_dump_state(cb);
	const struct tm_krule *kr;
	const struct tm_rule *r;
	struct tm_table *t;
	int err = 0;

	mutex_lock(&tn->lock);
	/* The table going also moved the generation: the end is flagged. */
	cb->seq = (u32)tn->generation + 1;
	t = tm_table_find(tn, d->name);
	for (; t && d->pos < d->n; d->pos++) {
		kr = tm_rule_find(&t->rules, d->ids[d->pos], &r);
		if (!kr)
			continue;
		err = tm_fill_rule(skb, t, kr, r, NETLINK_CB(cb->skb).portid,
				   cb->nlh->nlmsg_seq, NLM_F_MULTI,
				   TM_CMD_RULE_GET, tn->generation);
		if (err)
			break;
		nl_dump_check_consistent(cb, nlmsg_hdr(skb));
	}
	mutex_unlock(&tn->lock);
	if (err == -EMSGSIZE && skb->len)
		err = 0;
	return err ?: skb->len;
}

int tm_nl_rule_dump_done(struct netlink_callback *cb)
{
	kvfree(tm_dump_state(cb)->ids);
	return 0;
}

int tm_nl_rule_lookup(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	const struct tm_krule *kr = NULL;
	const struct tm_rule *r;
	struct tm_table *t = tm_nl_info_table(info);
	struct tm_key k = {};
	struct sk_buff *msg;
	u32 probes = 0;
	u8 saf, daf;
	void *hdr;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, TM_A_KEY_SRC) ||
	    GENL_REQ_ATTR_CHECK(info, TM_A_KEY_DST))
		return -EINVAL;
	err = tm_nl_addr(a[TM_A_KEY_SRC], &k.src, &saf, info->extack);
	if (!err)
		err = tm_nl_addr(a[TM_A_KEY_DST], &k.dst, &daf, info->extack);
	if (err)
		return err;
	if (saf != daf) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[TM_A_KEY_DST],
				    "Source and destination addresses of different families");
		return -EINVAL;
	}
	k.family = saf;
	k.sport = a[TM_A_KEY_SPORT] ? nla_get_u16(a[TM_A_KEY_SPORT]) : 0;
	k.dport = a[TM_A_KEY_DPORT] ? nla_get_u16(a[TM_A_KEY_DPORT]) : 0;
	k.proto = a[TM_A_KEY_PROTO] ? nla_get_u8(a[TM_A_KEY_PROTO]) : 0;
	k.iif = a[TM_A_KEY_IIF] ? nla_get_u32(a[TM_A_KEY_IIF]) : 0;
	k.oif = a[TM_A_KEY_OIF] ? nla_get_u32(a[TM_A_KEY_OIF]) : 0;
	k.ct = a[TM_A_KEY_CT_STATE] ? nla_get_u8(a[TM_A_KEY_CT_STATE]) : 0;
	k.tcp_flags = a[TM_A_KEY_TCP_FLAGS] ?
		      nla_get_u8(a[TM_A_KEY_TCP_FLAGS]) : 0;
	k.mark = a[TM_A_KEY_MARK] ? nla_get_u32(a[TM_A_KEY_MARK]) : 0;
	k.dscp = a[TM_A_KEY_DSCP] ? nla_get_u8(a[TM_A_KEY_DSCP]) : 0;
	k.frag = a[TM_A_KEY_FRAGMENT] ? nla_get_u8(a[TM_A_KEY_FRAGMENT]) : 0;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	if (!(tm_fams_of_family(t->family) & tm_fams_of_af(saf))) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[TM_A_KEY_SRC],
				    "The table does not see packets of this family");
		err = -EINVAL;
		goto out;
	}
	rcu_read_lock();
	r = tm_cls_lookup_probes(t->rules.cls, &k, &probes);
	rcu_read_unlock();
	/* Under tm_net.lock @r and its tm_krule stay. */
	if (r)
		kr = (const struct tm_krule *)(uintptr_t)r->action;
	err = -EMSGSIZE;
	hdr = genlmsg_put_reply(msg, info, &tm_genl_family, 0,
				TM_CMD_RULE_LOOKUP);
	if (!hdr)
		goto out;
	if (nla_put_string(msg, TM_A_TABLE_NAME, t->name) ||
	    nla_put_u8(msg, TM_A_TABLE_POLICY, t->policy) ||
	    nla_put_u32(msg, TM_A_LOOKUP_PROBES, probes) ||
	    (kr && tm_put_rule(msg, kr, r, true)))
		goto out;
	genlmsg_end(msg, hdr);
	err = 0;
out:
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

static int tm_reset_one(struct tm_krule *kr, const struct tm_rule *r,
			void *arg)
{
	tm_cnt_reset(kr->cnt);
	return 0;
}

int tm_nl_counters_reset(struct sk_buff *skb, struct genl_info *info)
{
	struct tm_table *t = tm_nl_info_table(info);
	struct tm_krule *kr;

	if (info->attrs[TM_A_RULE_ID]) {
		kr = tm_rule_find(&t->rules,
				  nla_get_u32(info->attrs[TM_A_RULE_ID]), NULL);
		if (!kr) {
			NL_SET_ERR_MSG_ATTR(info->extack,
					    info->attrs[TM_A_RULE_ID],
					    "No rule with this id in this table");
			return -ENOENT;
		}
		tm_cnt_reset(kr->cnt);
	} else {
		tm_rules_for_each(&t->rules, tm_reset_one, NULL);
	}
	return 0;
}
