// SPDX-License-Identifier: GPL-2.0
/*
 * tmctl monitor: print the events of the module's "events" multicast group
 * until interrupted, one line each.  Text lines are commands in tmctl's
 * own syntax ("rule add ...", "table del ...", "sid add ...", "lb service
 * add ...", "lb backend del ...") followed by
 * a comment with the generation; commits are comment lines.  With -j, one
 * JSON object per line with an "event" key.
 */
#include <errno.h>
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
};

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
		tm_lb_backend_fields(tb);
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
	struct mnl_socket *nl;
	uint32_t grp;
	int ret;

	if (argc > 0)
		return tm_parse_error("monitor: unexpected '%s'", argv[0]);
	if (tmctl.check)
		return TMCTL_OK;
	nl = tm_nl_socket();
	grp = tm_nl_events_group();
	if (!grp) {
		fputs("tmctl: monitor: the module has no \""
		      TM_GENL_MCGRP_EVENTS "\" group\n", stderr);
		return TMCTL_EKERNEL;
	}
	if (mnl_socket_setsockopt(nl, NETLINK_ADD_MEMBERSHIP, &grp,
				  sizeof(grp)) < 0) {
		fprintf(stderr,
			"tmctl: monitor: joining the events group: %s\n",
			strerror(errno));
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
