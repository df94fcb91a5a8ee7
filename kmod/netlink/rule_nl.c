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
 * Room for a rule message: a rule's own attributes fit NLMSG_GOODSIZE, its
 * sets take at most 32 bytes a value (an IPv6 prefix: the element's nest,
 * the address and the length) and a nest each.
 */
#define TM_SET_VALUE_MSG	32
#define TM_RULE_MSG_SIZE	(NLMSG_GOODSIZE + 5 * NLA_HDRLEN + \
				 TM_SET_VALUES_MAX * TM_SET_VALUE_MSG)

static size_t tm_rule_msg_size(const struct tm_rule_set *s)
{
	if (!s)
		return NLMSG_GOODSIZE;
	return NLMSG_GOODSIZE + 5 * NLA_HDRLEN +
	       (s->nsrc + s->ndst + s->nsport + s->ndport + s->nproto) *
	       TM_SET_VALUE_MSG;
}

/* The set attribute of each field, and the attributes of its values. */
static const struct {
	u16 set, a, b;		/* b: a prefix's length, a range's max */
} tm_set_attrs[] = {
	{ TM_A_RULE_SRC_SET, TM_A_RULE_SRC, TM_A_RULE_SRC_LEN },
	{ TM_A_RULE_DST_SET, TM_A_RULE_DST, TM_A_RULE_DST_LEN },
	{ TM_A_RULE_SPORT_SET, TM_A_RULE_SPORT_MIN, TM_A_RULE_SPORT_MAX },
	{ TM_A_RULE_DPORT_SET, TM_A_RULE_DPORT_MIN, TM_A_RULE_DPORT_MAX },
	{ TM_A_RULE_PROTO_SET, TM_A_RULE_PROTO, TM_A_RULE_PROTO },
};

/*
 * One value of set @k (an index of tm_set_attrs) from the element @e, into
 * slot @i of @s's arrays.  The policy checked each attribute's type.
 */
static int tm_nl_set_value(const struct nlattr *e, unsigned int k,
			   struct tm_rule_set *s, u16 i, u8 *af,
			   struct netlink_ext_ack *extack)
{
	const struct nlattr *a = NULL, *b = NULL, *x;
	struct tm_set_prefix *p;
	struct tm_set_range *r;
	u8 vaf;
	int rem, err;

	nla_for_each_nested(x, e, rem) {
		if (nla_type(x) == tm_set_attrs[k].a) {
			a = x;
		} else if (nla_type(x) == tm_set_attrs[k].b) {
			b = x;
		} else {
			NL_SET_ERR_MSG_ATTR(extack, x,
					    "Attribute of another field in a set's value");
			return -EINVAL;
		}
	}
	switch (tm_set_attrs[k].set) {
	case TM_A_RULE_SRC_SET:
	case TM_A_RULE_DST_SET:
		if (!a) {
			NL_SET_ERR_MSG_ATTR(extack, e,
					    "A value of an address set needs its address");
			return -EINVAL;
		}
		p = (struct tm_set_prefix *)(k ? s->dst : s->src) + i;
		err = tm_nl_addr(a, &p->addr, &vaf, extack);
		if (err)
			return err;
		if (*af && vaf != *af) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "Addresses of different families in a rule's sets");
			return -EINVAL;
		}
		*af = vaf;
		p->len = b ? nla_get_u8(b) : (vaf == TM_AF_INET ? 32 : 128);
		return 0;
	case TM_A_RULE_SPORT_SET:
	case TM_A_RULE_DPORT_SET:
		r = (struct tm_set_range *)(k == 2 ? s->sport : s->dport) + i;
		r->lo = a ? nla_get_u16(a) : b ? nla_get_u16(b) : 0;
		r->hi = b ? nla_get_u16(b) : a ? nla_get_u16(a) : 65535;
		return 0;
	default:
		if (!a) {
			NL_SET_ERR_MSG_ATTR(extack, e,
					    "A value of a protocol set needs its protocol");
			return -EINVAL;
		}
		((u8 *)s->proto)[i] = nla_get_u8(a);
		return 0;
	}
}

/*
 * The sets of the request, in one allocation that cfg->set points to (the
 * caller frees it, tm_krule_new() copies it); *@af: their addresses'
 * family, 0 without any.
 */
static int tm_nl_sets(struct genl_info *info, struct tm_rule_cfg *cfg,
		      u8 *af)
{
	struct netlink_ext_ack *extack = info->extack;
	u16 n[ARRAY_SIZE(tm_set_attrs)] = {}, total = 0, i;
	const struct nlattr *set, *e;
	struct tm_rule_set *s;
	unsigned int k;
	int rem, err;
	char *p;

	*af = 0;
	for (k = 0; k < ARRAY_SIZE(tm_set_attrs); k++) {
		set = info->attrs[tm_set_attrs[k].set];
		if (!set)
			continue;
		if (info->attrs[tm_set_attrs[k].a] ||
		    info->attrs[tm_set_attrs[k].b]) {
			NL_SET_ERR_MSG_ATTR(extack, set,
					    "A field given both as a set and as a value");
			return -EINVAL;
		}
		nla_for_each_nested(e, set, rem) {
			if (nla_type(e) != TM_A_RULE_SET_ELEM) {
				NL_SET_ERR_MSG_ATTR(extack, e,
						    "A set holds set values only");
				return -EINVAL;
			}
			if (++total > TM_SET_VALUES_MAX) {
				NL_SET_ERR_MSG_ATTR(extack, set,
						    "More than 512 values in a rule's sets");
				return -E2BIG;
			}
			n[k]++;
		}
		if (!n[k]) {
			NL_SET_ERR_MSG_ATTR(extack, set, "An empty set");
			return -EINVAL;
		}
	}
	if (!total)
		return 0;
	BUILD_BUG_ON(TM_SET_VALUES_MAX != 512);
	s = kzalloc(sizeof(*s) + (n[0] + n[1]) * sizeof(*s->src) +
		    (n[2] + n[3]) * sizeof(*s->sport) + n[4],
		    GFP_KERNEL_ACCOUNT);
	if (!s)
		return -ENOMEM;
	p = (char *)(s + 1);
	s->nsrc = n[0];
	s->src = (void *)p;
	p += n[0] * sizeof(*s->src);
	s->ndst = n[1];
	s->dst = (void *)p;
	p += n[1] * sizeof(*s->dst);
	s->nsport = n[2];
	s->sport = (void *)p;
	p += n[2] * sizeof(*s->sport);
	s->ndport = n[3];
	s->dport = (void *)p;
	p += n[3] * sizeof(*s->dport);
	s->nproto = n[4];
	s->proto = (void *)p;
	cfg->set = s;
	for (k = 0; k < ARRAY_SIZE(tm_set_attrs); k++) {
		set = info->attrs[tm_set_attrs[k].set];
		if (!set)
			continue;
		i = 0;
		nla_for_each_nested(e, set, rem) {
			err = tm_nl_set_value(e, k, s, i++, af, extack);
			if (err)
				return err;
		}
	}
	/* A protocol set: the checks below see a protocol, not any. */
	if (s->nproto) {
		cfg->r.proto_any = 0;
		cfg->r.proto = s->proto[0];
	}
	return 0;
}

/* A protocol of the rule (of its set, if it has one) is @proto. */
static bool tm_cfg_has_proto(const struct tm_rule_cfg *cfg, u8 proto)
{
	u16 i;

	if (cfg->set && cfg->set->nproto) {
		for (i = 0; i < cfg->set->nproto; i++)
			if (cfg->set->proto[i] == proto)
				return true;
		return false;
	}
	return !cfg->r.proto_any && cfg->r.proto == proto;
}

/* Every protocol of the rule is @proto. */
static bool tm_cfg_only_proto(const struct tm_rule_cfg *cfg, u8 proto)
{
	u16 i;

	if (cfg->set && cfg->set->nproto) {
		for (i = 0; i < cfg->set->nproto; i++)
			if (cfg->set->proto[i] != proto)
				return false;
		return true;
	}
	return !cfg->r.proto_any && cfg->r.proto == proto;
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
	u8 saf, daf, setaf;
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
	if (a[TM_A_RULE_PROTO])
		cfg->r.proto = nla_get_u8(a[TM_A_RULE_PROTO]);
	else
		cfg->r.proto_any = 1;
	err = tm_nl_sets(info, cfg, &setaf);
	if (err)
		return err;
	if (*af && setaf && setaf != *af) {
		NL_SET_ERR_MSG(info->extack,
			       "Addresses of different families in a rule and its sets");
		return -EINVAL;
	}
	*af = *af ?: setaf;
	tm_nl_ports(info, TM_A_RULE_SPORT_MIN, TM_A_RULE_SPORT_MAX,
		    &cfg->r.sport_lo, &cfg->r.sport_hi);
	tm_nl_ports(info, TM_A_RULE_DPORT_MIN, TM_A_RULE_DPORT_MAX,
		    &cfg->r.dport_lo, &cfg->r.dport_hi);
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
	if (a[TM_A_RULE_QUEUE_NUM])
		cfg->queue = nla_get_u16(a[TM_A_RULE_QUEUE_NUM]);
	cfg->queue_bypass = !!a[TM_A_RULE_QUEUE_BYPASS];
	cfg->trace = !!a[TM_A_RULE_TRACE];
	cfg->log = !!a[TM_A_RULE_LOG];
	if (a[TM_A_RULE_LOG_PREFIX])
		cfg->log_prefix = nla_data(a[TM_A_RULE_LOG_PREFIX]);
	cfg->log_level = a[TM_A_RULE_LOG_LEVEL] ?
			 nla_get_u8(a[TM_A_RULE_LOG_LEVEL]) : -1;
	cfg->log_group = a[TM_A_RULE_LOG_GROUP] ?
			 nla_get_u16(a[TM_A_RULE_LOG_GROUP]) : -1;
	cfg->log_rate = a[TM_A_RULE_LOG_RATE] ?
			nla_get_u32(a[TM_A_RULE_LOG_RATE]) :
			TM_LOG_RATE_DEFAULT;
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
	[TM_RP_SETS] = TM_A_UNSPEC,
};

/* The attribute of the part of @cfg the core refused: its set if any. */
static int tm_rule_fault_attr(const struct tm_rule_cfg *cfg,
			      enum tm_rule_part part)
{
	const struct tm_rule_set *s = cfg->set;

	if (s && s->nsrc && (part == TM_RP_SRC || part == TM_RP_SRC_LEN))
		return TM_A_RULE_SRC_SET;
	if (s && s->ndst && (part == TM_RP_DST || part == TM_RP_DST_LEN))
		return TM_A_RULE_DST_SET;
	if (s && s->nsport && part == TM_RP_SPORT)
		return TM_A_RULE_SPORT_SET;
	if (s && s->ndport && part == TM_RP_DPORT)
		return TM_A_RULE_DPORT_SET;
	if (s && s->nproto && part == TM_RP_PROTO)
		return TM_A_RULE_PROTO_SET;
	return tm_rule_part_attr[part];
}

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
	/* Both families' entries differ only in it: one check for both. */
	err = tm_rule_set_check(&cfg->r, cfg->set, &fault);
	if (err) {
		/* A string literal of the core, as NL_SET_ERR_MSG() keeps. */
		if (extack)
			extack->_msg = fault.why;
		NL_SET_BAD_ATTR(extack, a[tm_rule_fault_attr(cfg, fault.part)]);
		return err;
	}

	if (a[TM_A_RULE_CT_STATE] && !tm_hook_sees_conntrack(t)) {
		NL_SET_ERR_MSG_ATTR(extack, a[TM_A_RULE_CT_STATE],
				    "The table's hook runs before conntrack (priority -200): no state yet");
		return -EINVAL;
	}
	if ((tm_cfg_has_proto(cfg, IPPROTO_ICMP) ||
	     tm_cfg_has_proto(cfg, IPPROTO_ICMPV6)) &&
	    (a[TM_A_RULE_SPORT_MIN] || a[TM_A_RULE_SPORT_MAX] ||
	     a[TM_A_RULE_DPORT_MIN] || a[TM_A_RULE_DPORT_MAX] ||
	     a[TM_A_RULE_SPORT_SET] || a[TM_A_RULE_DPORT_SET])) {
		NL_SET_ERR_MSG(extack,
			       "ICMP has no ports: use the ICMP type and code");
		return -EINVAL;
	}
	if (tm_nl_has_icmp(a) &&
	    !(cfg->fams == TM_FAMS_V4 &&
	      tm_cfg_only_proto(cfg, IPPROTO_ICMP)) &&
	    !(cfg->fams == TM_FAMS_V6 &&
	      tm_cfg_only_proto(cfg, IPPROTO_ICMPV6))) {
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
		    !tm_cfg_only_proto(cfg, IPPROTO_TCP)) {
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
	if ((a[TM_A_RULE_QUEUE_NUM] || a[TM_A_RULE_QUEUE_BYPASS]) &&
	    cfg->action != TM_ACT_QUEUE) {
		NL_SET_ERR_MSG_ATTR(extack, a[TM_A_RULE_QUEUE_NUM] ?:
				    a[TM_A_RULE_QUEUE_BYPASS],
				    "Queue given for an action other than queue");
		return -EINVAL;
	}
	if (!cfg->log &&
	    (a[TM_A_RULE_LOG_PREFIX] || a[TM_A_RULE_LOG_LEVEL] ||
	     a[TM_A_RULE_LOG_GROUP] || a[TM_A_RULE_LOG_RATE])) {
		NL_SET_ERR_MSG(extack, "Log options without log");
		return -EINVAL;
	}
	if (a[TM_A_RULE_LOG_LEVEL] && a[TM_A_RULE_LOG_GROUP]) {
		NL_SET_ERR_MSG_ATTR(extack, a[TM_A_RULE_LOG_GROUP],
				    "A log level (syslog) and a log group (nflog) both");
		return -EINVAL;
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

/* Value @i of set @k (an index of tm_set_attrs) of @s, in family @af. */
static int tm_put_set_value(struct sk_buff *skb, const struct tm_rule_set *s,
			    unsigned int k, u16 i, u8 af)
{
	const struct tm_set_prefix *p;
	const struct tm_set_range *r;

	switch (k) {
	case 0:
	case 1:
		p = (k ? s->dst : s->src) + i;
		return tm_put_addr(skb, tm_set_attrs[k].a, &p->addr, af) ||
		       nla_put_u8(skb, tm_set_attrs[k].b, p->len);
	case 2:
	case 3:
		r = (k == 2 ? s->sport : s->dport) + i;
		return nla_put_u16(skb, tm_set_attrs[k].a, r->lo) ||
		       nla_put_u16(skb, tm_set_attrs[k].b, r->hi);
	default:
		return nla_put_u8(skb, TM_A_RULE_PROTO, s->proto[i]);
	}
}

/* The sets of a rule, in the order and with the values given. */
static int tm_put_sets(struct sk_buff *skb, const struct tm_rule_set *s,
		       u8 af)
{
	const u16 n[] = { s->nsrc, s->ndst, s->nsport, s->ndport, s->nproto };
	struct nlattr *set, *e;
	unsigned int k;
	u16 i;

	for (k = 0; k < ARRAY_SIZE(n); k++) {
		if (!n[k])
			continue;
		set = nla_nest_start(skb, tm_set_attrs[k].set);
		if (!set)
			return -EMSGSIZE;
		for (i = 0; i < n[k]; i++) {
			e = nla_nest_start(skb, TM_A_RULE_SET_ELEM);
			if (!e || tm_put_set_value(skb, s, k, i, af))
				return -EMSGSIZE;
			nla_nest_end(skb, e);
		}
		nla_nest_end(skb, set);
	}
	return 0;
}

static int tm_put_log(struct sk_buff *skb, const struct tm_klog *log)
{
	return nla_put_flag(skb, TM_A_RULE_LOG) ||
	       (log->prefix[0] &&
		nla_put_string(skb, TM_A_RULE_LOG_PREFIX, log->prefix)) ||
	       (log->typed && log->li.type == NF_LOG_TYPE_LOG &&
		nla_put_u8(skb, TM_A_RULE_LOG_LEVEL, log->li.u.log.level)) ||
	       (log->typed && log->li.type == NF_LOG_TYPE_ULOG &&
		nla_put_u16(skb, TM_A_RULE_LOG_GROUP,
			    log->li.u.ulog.group)) ||
	       nla_put_u32(skb, TM_A_RULE_LOG_RATE, log->rs.burst);
}

/*
 * A rule: @r is the classifier's (of a set rule, one of its entries: the
 * fields of its sets come from kr->set).
 */
static int tm_put_rule(struct sk_buff *skb, const struct tm_krule *kr,
		       const struct tm_rule *r, bool counters)
{
	static const struct tm_rule_set none;
	const struct tm_rule_set *s = kr->set ?: &none;
	u64 packets, bytes;

	if (nla_put_u32(skb, TM_A_RULE_ID, kr->id) ||
	    nla_put_u32(skb, TM_A_RULE_PRIORITY, r->priority) ||
	    nla_put_u8(skb, TM_A_RULE_FAMILY, tm_family_of_fams(kr->fams)) ||
	    nla_put_u8(skb, TM_A_RULE_ACTION, kr->action))
		return -EMSGSIZE;
	if (r->src_len && !s->nsrc &&
	    (tm_put_addr(skb, TM_A_RULE_SRC, &r->src, r->family) ||
	     nla_put_u8(skb, TM_A_RULE_SRC_LEN, r->src_len)))
		return -EMSGSIZE;
	if (r->dst_len && !s->ndst &&
	    (tm_put_addr(skb, TM_A_RULE_DST, &r->dst, r->family) ||
	     nla_put_u8(skb, TM_A_RULE_DST_LEN, r->dst_len)))
		return -EMSGSIZE;
	if ((!s->nsport && tm_put_ports(skb, r, false)) ||
	    (!s->ndport && tm_put_ports(skb, r, true)) ||
	    tm_put_stateful(skb, r) || tm_put_sets(skb, s, r->family))
		return -EMSGSIZE;
	if ((!r->proto_any && !s->nproto &&
	     nla_put_u8(skb, TM_A_RULE_PROTO, r->proto)) ||
	    (r->iif && nla_put_u32(skb, TM_A_RULE_IIF, r->iif)) ||
	    (r->oif && nla_put_u32(skb, TM_A_RULE_OIF, r->oif)) ||
	    (kr->action == TM_ACT_REJECT &&
	     nla_put_u8(skb, TM_A_RULE_REJECT, kr->reject)) ||
	    (kr->action == TM_ACT_MARK &&
	     nla_put_u32(skb, TM_A_RULE_MARK, kr->mark)) ||
	    (kr->svc &&
	     nla_put_string(skb, TM_A_RULE_LB_SERVICE, kr->svc->name)) ||
	    (kr->action == TM_ACT_QUEUE &&
	     (nla_put_u16(skb, TM_A_RULE_QUEUE_NUM, kr->queue) ||
	      (kr->queue_bypass &&
	       nla_put_flag(skb, TM_A_RULE_QUEUE_BYPASS)))) ||
	    (kr->log && tm_put_log(skb, kr->log)) ||
	    (kr->trace && nla_put_flag(skb, TM_A_RULE_TRACE)) ||
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
	struct sk_buff *skb;
	int err;

	skb = tm_genl_event_new(net, kr ? tm_rule_msg_size(kr->set) :
					  NLMSG_GOODSIZE);
	if (!skb)
		return;
	err = tm_fill_rule(skb, t, kr, r, 0, 0, 0, cmd, generation);
	tm_genl_event_send(net, skb, err);
}

void tm_nl_notify_commit(struct net *net, const struct tm_table *t, u32 ops,
			 u64 generation)
{
	struct sk_buff *skb = tm_genl_event_new(net, NLMSG_GOODSIZE);
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

/* One rule of a TM_CMD_RULE_NEW or _SET: the request's, or a nest's. */
static int tm_nl_rule_one(struct genl_info *info, u8 cmd)
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

	err = tm_nl_rule_parse(info, &cfg, &af) ?:
	      tm_nl_rule_check(info, t, &cfg, af, cmd == TM_CMD_RULE_SET);
	if (!err && (info->nlhdr->nlmsg_flags & NLM_F_ECHO)) {
		echo = genlmsg_new(tm_rule_msg_size(cfg.set), GFP_KERNEL);
		if (!echo)
			err = -ENOMEM;
	}
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
	kfree(cfg.set);
	if (!echo)
		return err;
	if (err) {
		nlmsg_free(echo);
		return err;
	}
	return genlmsg_reply(echo, info);
}

/*
 * Several rules in one request, each a TM_A_RULE nest, so that a batch
 * file's rules do not each pay for a message (its dispatch, attribute
 * table, permission check and lock).  Each rule is applied as if it came
 * alone, with its own error: every refusal but the last is acknowledged
 * here (netlink_ack()), the last is the request's, so the sender gets one
 * NLMSG_ERROR per refused rule, its offset inside the rule's nest.
 */
static int tm_nl_rules(struct sk_buff *skb, struct genl_info *info, u8 cmd)
{
	struct netlink_ext_ack ext, last = {};
	struct genl_info one = *info;
	struct nlattr *nest, **tb;
	int rem, attr, err = 0;

	for (attr = 0; attr <= TM_A_MAX; attr++) {
		if (info->attrs[attr] && attr != TM_A_TABLE_NAME &&
		    attr != TM_A_TXN_ID && attr != TM_A_RULE) {
			NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[attr],
					    "Rule attributes both at the top level and in TM_A_RULE nests");
			return -EINVAL;
		}
	}
	if (info->nlhdr->nlmsg_flags & NLM_F_ECHO) {
		NL_SET_ERR_MSG(info->extack,
			       "NLM_F_ECHO echoes one rule: not with TM_A_RULE nests");
		return -EINVAL;
	}
	tb = kcalloc(TM_A_MAX + 1, sizeof(*tb), GFP_KERNEL);
	if (!tb)
		return -ENOMEM;
	one.attrs = tb;
	one.extack = &ext;
	nla_for_each_attr(nest, genlmsg_data(info->genlhdr),
			  genlmsg_len(info->genlhdr), rem) {
		struct nlattr *a;
		int r, ret;

		if (nla_type(nest) != TM_A_RULE)
			continue;
		/* The policy checked the nest: no type above TM_A_MAX. */
		nla_for_each_nested(a, nest, r)
			tb[nla_type(a)] = a;
		memset(&ext, 0, sizeof(ext));
		ret = tm_nl_rule_one(&one, cmd);
		nla_for_each_nested(a, nest, r)
			tb[nla_type(a)] = NULL;
		if (ret) {
			if (!ext.bad_attr)
				ext.bad_attr = nest;
			/* Reads the header (6.12's is const, 6.1's not). */
			if (err)
				netlink_ack(skb, (struct nlmsghdr *)info->nlhdr,
					    err, &last);
			err = ret;
			last = ext;
		}
		cond_resched();
	}
	kfree(tb);
	if (err)
		*info->extack = last;
	return err;
}

static int tm_nl_rule_change(struct sk_buff *skb, struct genl_info *info,
			     u8 cmd)
{
	if (info->attrs[TM_A_RULE])
		return tm_nl_rules(skb, info, cmd);
	return tm_nl_rule_one(info, cmd);
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
	kr = tm_rule_find(&t->rules, nla_get_u32(info->attrs[TM_A_RULE_ID]),
			  &r);
	if (!kr) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[TM_A_RULE_ID],
				    "No rule with this id in this table");
		return -ENOENT;
	}
	msg = genlmsg_new(tm_rule_msg_size(kr->set), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	err = tm_fill_rule(msg, t, kr, r, info->snd_portid, info->snd_seq, 0,
			   TM_CMD_RULE_GET, tn->generation);
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
	/* Room for any rule in every part: one with the most set values. */
	cb->min_dump_alloc = TM_RULE_MSG_SIZE;
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

	msg = genlmsg_new(TM_RULE_MSG_SIZE, GFP_KERNEL);
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

/* The key of a packet, as TM_A_KEY_* attributes. */
static int tm_put_key(struct sk_buff *skb, const struct tm_key *k)
{
	return tm_put_addr(skb, TM_A_KEY_SRC, &k->src, k->family) ||
	       tm_put_addr(skb, TM_A_KEY_DST, &k->dst, k->family) ||
	       nla_put_u8(skb, TM_A_KEY_PROTO, k->proto) ||
	       nla_put_u16(skb, TM_A_KEY_SPORT, k->sport) ||
	       nla_put_u16(skb, TM_A_KEY_DPORT, k->dport) ||
	       (k->iif && nla_put_u32(skb, TM_A_KEY_IIF, k->iif)) ||
	       (k->oif && nla_put_u32(skb, TM_A_KEY_OIF, k->oif)) ||
	       nla_put_u8(skb, TM_A_KEY_CT_STATE, k->ct) ||
	       (k->proto == IPPROTO_TCP &&
		nla_put_u8(skb, TM_A_KEY_TCP_FLAGS, k->tcp_flags)) ||
	       nla_put_u32(skb, TM_A_KEY_MARK, k->mark) ||
	       nla_put_u8(skb, TM_A_KEY_DSCP, k->dscp) ||
	       nla_put_u8(skb, TM_A_KEY_FRAGMENT, k->frag);
}

/**
 * tm_nl_trace() - a trace event of a packet a traced rule took
 * @net: the packet's namespace
 * @t: the table
 * @kr: the rule
 * @k: the packet's key
 * @hook: the netfilter hook, enum tm_hook
 * @verdict: the netfilter verdict
 * @len: the packet's length
 *
 * From the hook, in softirq or process context, under RCU: nothing without
 * a listener, at most TM_TRACE_RATE a second in the namespace; what the
 * rate limit or memory drops is counted in the next event.
 */
void tm_nl_trace(struct net *net, const struct tm_table *t,
		 const struct tm_krule *kr, const struct tm_key *k, u8 hook,
		 u32 verdict, u32 len)
{
	struct tm_net *tn;
	struct sk_buff *skb;
	u64 missed;
	void *hdr;

	if (!genl_has_listeners(&tm_genl_family, net, TM_MCGRP_TRACE))
		return;
	tn = tm_net(net);
	if (!__ratelimit(&tn->trace_rs))
		goto missed;
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_ATOMIC);
	if (!skb)
		goto missed;
	hdr = genlmsg_put(skb, 0, 0, &tm_genl_family, 0, TM_CMD_TRACE);
	missed = atomic64_xchg(&tn->trace_missed, 0);
	if (!hdr || nla_put_string(skb, TM_A_TABLE_NAME, t->name) ||
	    nla_put_u32(skb, TM_A_RULE_ID, kr->id) ||
	    nla_put_u8(skb, TM_A_TRACE_HOOK, hook) ||
	    nla_put_u32(skb, TM_A_TRACE_VERDICT, verdict) ||
	    nla_put_u32(skb, TM_A_TRACE_LEN, len) ||
	    (missed &&
	     nla_put_u64_64bit(skb, TM_A_TRACE_MISSED, missed, TM_A_PAD)) ||
	    tm_put_key(skb, k)) {
		nlmsg_free(skb);
		atomic64_add(missed + 1, &tn->trace_missed);
		return;
	}
	genlmsg_end(skb, hdr);
	genlmsg_multicast_netns(&tm_genl_family, net, skb, 0, TM_MCGRP_TRACE,
				GFP_ATOMIC);
	return;
missed:
	atomic64_inc(&tn->trace_missed);
}
