// SPDX-License-Identifier: GPL-2.0
/*
 * tmctl stats: the counters of the current network namespace.
 */
#include "tmctl.h"

static int tm_stats_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TM_A_MAX + 1];

	if (tm_nl_parse(nlh, tb) < 0)
		return MNL_CB_ERROR;
	tm_out_begin_object();
	tm_out_u64("tables", tb[TM_A_NET_TABLES] ?
		   mnl_attr_get_u32(tb[TM_A_NET_TABLES]) : 0);
	tm_out_u64("generation", tb[TM_A_NET_GENERATION] ?
		   mnl_attr_get_u64(tb[TM_A_NET_GENERATION]) : 0);
	tm_out_end_object();
	return MNL_CB_OK;
}

int tm_do_stats(int argc, char **argv)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;

	if (argc > 0)
		return tm_parse_error("stats: unexpected '%s'", argv[0]);
	nlh = tm_nl_request(buf, TM_CMD_STATS_GET, 0);
	return tm_nl_talk(nlh, tm_stats_cb, NULL, "stats");
}
