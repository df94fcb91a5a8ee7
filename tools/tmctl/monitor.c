// SPDX-License-Identifier: GPL-2.0
/*
 * tmctl monitor: print the events of the module's "events" multicast group
 * until interrupted, one line each.  Text lines are commands in tmctl's
 * own syntax ("rule add ...", "table del ...", "sid add ...", "lb service
 * add ...", "lb backend del ...", and "lb backend health NAME SID down
 * why timeout" for a backend that went up or down) followed by a comment
 * with the generation; commits are comment lines.  With -j, one
 * JSON object per line with an "event" key.
 *
 * tmctl monitor trace: the "trace" group instead, a line per packet a rule
 * with trace took: "trace TABLE rule ID hook HOOK verdict VERDICT len N"
 * and the packet's key in the words of "rule lookup".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>
#include <linux/genetlink.h>

#include "tmctl.h"

static const char * const tm_event_names[TM_CMD_MAX + 1] = {
	[TM_CMD_TABLE_NEW] = "table-new",
	[TM_CMD_TABLE_DEL] = "table-del",
	[TM_CMD_RULE_NEW] = "rule-new",
	[TM_CMD_RULE_SET] = "rule-set",
	[TM_CMD_RULE_DEL] = "rule-del",
	[TM_CMD_TXN_COMMIT] = "txn-commit",
	[TM_CMD_SID_NEW] = "sid-new",
	[TM_CMD_SID_SET] = "sid-set",
	[TM_CMD_SID_DEL] = "sid-del",
	[TM_CMD_LB_SERVICE_NEW] = "lb-service-new",
	[TM_CMD_LB_SERVICE_DEL] = "lb-service-del",
	[TM_CMD_LB_BACKEND_NEW] = "lb-backend-new",
	[TM_CMD_LB_BACKEND_DEL] = "lb-backend-del",
	[TM_CMD_LB_BACKEND_SET] = "lb-backend-set",
	[TM_CMD_LB_BACKEND_HEALTH] = "lb-backend-health",
	[TM_CMD_TRACE] = "trace",
};

/* A netfilter verdict (NF_DROP 0, NF_ACCEPT 1, NF_STOLEN 2, NF_QUEUE 3). */
static const char * const tm_verdict_names[] = {
	"drop", "accept", "stolen", "queue",
};

static const char *tm_verdict_name(uint32_t v)
{
	v &= 0xff;
	return v < ARRAY_SIZE(tm_verdict_names) ? tm_verdict_names[v] : "?";
}

/*
 * The key of a trace event, as the words of "rule lookup" (text) or as
 * JSON members.
 */
static void tm_trace_key(const struct nlattr **tb, bool json)
{
	char buf[INET6_ADDRSTRLEN + 8];
	static const struct {
		int attr;
		const char *key;
	} addrs[] = {
		{ TM_A_KEY_SRC, "src" },
		{ TM_A_KEY_DST, "dst" },
	};
	uint8_t proto = tb[TM_A_KEY_PROTO] ?
			mnl_attr_get_u8(tb[TM_A_KEY_PROTO]) : 0;
	bool icmp = proto == 1 || proto == 58;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(addrs); i++) {
		const struct nlattr *a = tb[addrs[i].attr];
		uint16_t n = a ? mnl_attr_get_payload_len(a) : 0;

		if (n != 4 && n != 16)
			continue;
		inet_ntop(n == 4 ? AF_INET : AF_INET6,
			  mnl_attr_get_payload(a), buf, sizeof(buf));
		if (json)
			tm_out_str(addrs[i].key, buf);
		else
			printf(" %s %s", addrs[i].key, buf);
	}
	if (tb[TM_A_KEY_PROTO]) {
		if (json)
			tm_out_u64("proto", proto);
		else
			printf(" proto %s", tm_proto_name(proto, buf, sizeof(buf)));
	}
	if (tb[TM_A_KEY_SPORT] && tb[TM_A_KEY_DPORT]) {
		uint16_t sp = mnl_attr_get_u16(tb[TM_A_KEY_SPORT]);
		uint16_t dp = mnl_attr_get_u16(tb[TM_A_KEY_DPORT]);

		if (json) {
			tm_out_u64(icmp ? "icmp-type" : "sport", sp);
			tm_out_u64(icmp ? "icmp-code" : "dport", dp);
		} else {
			printf(icmp ? " icmp-type %u icmp-code %u" :
			       " sport %u dport %u", sp, dp);
		}
	}
	if (tb[TM_A_KEY_IIF]) {
		tm_dev_name(mnl_attr_get_u32(tb[TM_A_KEY_IIF]), buf,
			    sizeof(buf));
		if (json)
			tm_out_str("iif", buf);
		else
			printf(" iif %s", buf);
	}
	if (tb[TM_A_KEY_OIF]) {
		tm_dev_name(mnl_attr_get_u32(tb[TM_A_KEY_OIF]), buf,
			    sizeof(buf));
		if (json)
			tm_out_str("oif", buf);
		else
			printf(" oif %s", buf);
	}
	if (tb[TM_A_KEY_CT_STATE]) {
		uint8_t ct = mnl_attr_get_u8(tb[TM_A_KEY_CT_STATE]);
		const char *name = ct <= TM_CT_STATE_MAX ?
				   tm_ct_state_names[ct] : "?";

		if (json)
			tm_out_str("ct", name);
		else
			printf(" ct %s", name);
	}
	if (tb[TM_A_KEY_TCP_FLAGS]) {
		uint8_t f = mnl_attr_get_u8(tb[TM_A_KEY_TCP_FLAGS]);

		tm_set_str(f, tm_tcp_flag_names, 8, buf, sizeof(buf));
		if (json)
			tm_out_str("tcp-flags", buf);
		else
			printf(" tcp-flags %s", f ? buf : "0");
	}
	if (tb[TM_A_KEY_MARK]) {
		if (json)
			tm_out_u64("mark", mnl_attr_get_u32(tb[TM_A_KEY_MARK]));
		else
			printf(" mark 0x%x", mnl_attr_get_u32(tb[TM_A_KEY_MARK]));
	}
	if (tb[TM_A_KEY_DSCP]) {
		if (json)
			tm_out_u64("dscp", mnl_attr_get_u8(tb[TM_A_KEY_DSCP]));
		else
			printf(" dscp %u", mnl_attr_get_u8(tb[TM_A_KEY_DSCP]));
	}
	if (tb[TM_A_KEY_FRAGMENT]) {
		uint8_t fr = mnl_attr_get_u8(tb[TM_A_KEY_FRAGMENT]);
		const char *name = fr <= TM_FRAGMENT_MAX ?
				   tm_fragment_names[fr] : "?";

		if (json)
			tm_out_str("fragment", name);
		else
			printf(" fragment %s", name);
	}
}

static void tm_trace_text(const struct nlattr **tb)
{
	uint32_t v = tb[TM_A_TRACE_VERDICT] ?
		     mnl_attr_get_u32(tb[TM_A_TRACE_VERDICT]) : 0;
	uint8_t hook = tb[TM_A_TRACE_HOOK] ?
		       mnl_attr_get_u8(tb[TM_A_TRACE_HOOK]) : 0;

	if (tb[TM_A_TRACE_MISSED])
		printf("# %" PRIu64 " trace events dropped (rate limit)\n",
		       mnl_attr_get_u64(tb[TM_A_TRACE_MISSED]));
	fputs("trace ", stdout);
	tm_print_word(stdout, tb[TM_A_TABLE_NAME] ?
		      mnl_attr_get_str(tb[TM_A_TABLE_NAME]) : "?");
	printf(" rule %u hook %s verdict %s",
	       tb[TM_A_RULE_ID] ? mnl_attr_get_u32(tb[TM_A_RULE_ID]) : 0,
	       hook <= TM_HOOK_MAX ? tm_hook_names[hook] : "?",
	       tm_verdict_name(v));
	if ((v & 0xff) == 3)
		printf(" queue %u", v >> 16);
	if (tb[TM_A_TRACE_LEN])
		printf(" len %u", mnl_attr_get_u32(tb[TM_A_TRACE_LEN]));
	tm_trace_key(tb, false);
}

static void tm_trace_json(const struct nlattr **tb)
{
	uint32_t v = tb[TM_A_TRACE_VERDICT] ?
		     mnl_attr_get_u32(tb[TM_A_TRACE_VERDICT]) : 0;
	uint8_t hook = tb[TM_A_TRACE_HOOK] ?
		       mnl_attr_get_u8(tb[TM_A_TRACE_HOOK]) : 0;

	if (tb[TM_A_TABLE_NAME])
		tm_out_str("table", mnl_attr_get_str(tb[TM_A_TABLE_NAME]));
	if (tb[TM_A_RULE_ID])
		tm_out_u64("rule", mnl_attr_get_u32(tb[TM_A_RULE_ID]));
	tm_out_str("hook", hook <= TM_HOOK_MAX ? tm_hook_names[hook] : "?");
	tm_out_str("verdict", tm_verdict_name(v));
	if ((v & 0xff) == 3)
		tm_out_u64("queue", v >> 16);
	if (tb[TM_A_TRACE_LEN])
		tm_out_u64("len", mnl_attr_get_u32(tb[TM_A_TRACE_LEN]));
	if (tb[TM_A_TRACE_MISSED])
		tm_out_u64("missed", mnl_attr_get_u64(tb[TM_A_TRACE_MISSED]));
	tm_trace_key(tb, true);
}

static void tm_event_text(const struct nlattr **tb, uint8_t cmd)
{
	switch (cmd) {
	case TM_CMD_TABLE_NEW:
		tm_table_text(tb, "add");
		break;
	case TM_CMD_TABLE_DEL:
		tm_table_text(tb, "del");
		break;
	case TM_CMD_RULE_NEW:
		tm_rule_text(tb, "add", NULL, false);
		break;
	case TM_CMD_RULE_SET:
		tm_rule_text(tb, "replace", NULL, false);
		break;
	case TM_CMD_RULE_DEL:
		if (tb[TM_A_RULE_ID]) {
			tm_rule_text(tb, "del", NULL, false);
			break;
		}
		/* A delete without an id is a flush of the table. */
		fputs("rule flush ", stdout);
		tm_print_word(stdout, tb[TM_A_TABLE_NAME] ?
			      mnl_attr_get_str(tb[TM_A_TABLE_NAME]) : "?");
		break;
	case TM_CMD_TRACE:
		tm_trace_text(tb);
		break;
	case TM_CMD_TXN_COMMIT:
		fputs("# commit table ", stdout);
		tm_print_word(stdout, tb[TM_A_TABLE_NAME] ?
			      mnl_attr_get_str(tb[TM_A_TABLE_NAME]) : "?");
		if (tb[TM_A_TXN_OPS])
			printf(" ops %u", mnl_attr_get_u32(tb[TM_A_TXN_OPS]));
		if (tb[TM_A_NET_GENERATION])
			printf(" generation %llu", (unsigned long long)
			       mnl_attr_get_u64(tb[TM_A_NET_GENERATION]));
		putchar('\n');
		return;
	case TM_CMD_SID_NEW:
		tm_sid_text(tb, "add", false);
		break;
	case TM_CMD_SID_SET:
		tm_sid_text(tb, "replace", false);
		break;
	case TM_CMD_SID_DEL:
		tm_sid_text(tb, "del", false);
		break;
	case TM_CMD_LB_SERVICE_NEW:
		tm_lb_service_text(tb, "add");
		break;
	case TM_CMD_LB_SERVICE_DEL:
		tm_lb_service_text(tb, "del");
		break;
	case TM_CMD_LB_BACKEND_NEW:
		tm_lb_backend_text(tb, "add");
		break;
	case TM_CMD_LB_BACKEND_DEL:
		tm_lb_backend_text(tb, "del");
		break;
	case TM_CMD_LB_BACKEND_SET:
		tm_lb_backend_text(tb, "set");
		break;
	case TM_CMD_LB_BACKEND_HEALTH:
		tm_lb_backend_text(tb, "health");
		break;
	default:
		printf("# event %u", cmd);
		break;
	}
	if (tb[TM_A_NET_GENERATION])
		printf("  # generation %llu", (unsigned long long)
		       mnl_attr_get_u64(tb[TM_A_NET_GENERATION]));
	putchar('\n');
}

static void tm_event_json(const struct nlattr **tb, uint8_t cmd)
{
	tm_out_begin_object();
	if (cmd <= TM_CMD_MAX && tm_event_names[cmd])
		tm_out_str("event", tm_event_names[cmd]);
	else
		tm_out_u64("event", cmd);
	switch (cmd) {
	case TM_CMD_TABLE_NEW:
	case TM_CMD_TABLE_DEL:
		tm_table_print_fields(tb);
		break;
	case TM_CMD_RULE_NEW:
	case TM_CMD_RULE_SET:
	case TM_CMD_RULE_DEL:
		tm_rule_fields(tb, NULL, true);
		break;
	case TM_CMD_TXN_COMMIT:
		if (tb[TM_A_TABLE_NAME])
			tm_out_str("table",
				   mnl_attr_get_str(tb[TM_A_TABLE_NAME]));
		if (tb[TM_A_TXN_OPS])
			tm_out_u64("ops", mnl_attr_get_u32(tb[TM_A_TXN_OPS]));
		break;
	case TM_CMD_SID_NEW:
	case TM_CMD_SID_SET:
	case TM_CMD_SID_DEL:
		tm_sid_fields(tb, true);
		break;
	case TM_CMD_LB_SERVICE_NEW:
	case TM_CMD_LB_SERVICE_DEL:
		tm_lb_service_fields(tb, true);
		break;
	case TM_CMD_LB_BACKEND_NEW:
	case TM_CMD_LB_BACKEND_DEL:
	case TM_CMD_LB_BACKEND_SET:
	case TM_CMD_LB_BACKEND_HEALTH:
		tm_lb_backend_fields(tb);
		break;
	case TM_CMD_TRACE:
		tm_trace_json(tb);
		break;
	}
	if (tb[TM_A_NET_GENERATION])
		tm_out_u64("generation",
			   mnl_attr_get_u64(tb[TM_A_NET_GENERATION]));
	tm_out_end_object();
}

static int tm_event_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[TM_A_MAX + 1];

	if (nlh->nlmsg_type != tm_nl_family() ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*genl) ||
	    tm_nl_parse(nlh, tb) < 0)
		return MNL_CB_OK;
	if (tmctl.json)
		tm_event_json(tb, genl->cmd);
	else
		tm_event_text(tb, genl->cmd);
	fflush(stdout);
	return MNL_CB_OK;
}

int tm_do_monitor(int argc, char **argv)
{
	static char buf[65536];
	bool trace = argc > 0 && !strcmp(argv[0], "trace");
	const char *what = trace ? TM_GENL_MCGRP_TRACE : TM_GENL_MCGRP_EVENTS;
	struct mnl_socket *nl;
	uint32_t grp;
	int ret;

	if (trace) {
		argc--;
		argv++;
	}
	if (argc > 0)
		return tm_parse_error("monitor: unexpected '%s' (monitor [trace])",
				      argv[0]);
	if (tmctl.check)
		return TMCTL_OK;
	nl = tm_nl_socket();
	grp = trace ? tm_nl_trace_group() : tm_nl_events_group();
	if (!grp) {
		fprintf(stderr, "tmctl: monitor: the module has no \"%s\" group\n",
			what);
		return TMCTL_EKERNEL;
	}
	if (mnl_socket_setsockopt(nl, NETLINK_ADD_MEMBERSHIP, &grp,
				  sizeof(grp)) < 0) {
		fprintf(stderr, "tmctl: monitor: joining the %s group: %s\n",
			what, strerror(errno));
		return TMCTL_EKERNEL;
	}
	for (;;) {
		ret = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				fputs("tmctl: monitor: events lost (receive buffer full)\n",
				      stderr);
				continue;
			}
			fprintf(stderr, "tmctl: monitor: %s\n",
				strerror(errno));
			return TMCTL_EKERNEL;
		}
		mnl_cb_run(buf, ret, 0, 0, tm_event_cb, NULL);
	}
}
