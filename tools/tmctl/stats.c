// SPDX-License-Identifier: GPL-2.0
/*
 * tmctl stats: the counters of the current network namespace, then one
 * line per table: rules (and their classifier entries), tuples (hash
 * tables), memory and lookups.
 */
#include "tmctl.h"

static int tm_stats_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TM_A_MAX + 1];

	if (tm_nl_parse(nlh, tb) < 0)
		return MNL_CB_ERROR;
	tm_out_u64("tables", tb[TM_A_NET_TABLES] ?
		   mnl_attr_get_u32(tb[TM_A_NET_TABLES]) : 0);
	tm_out_u64("generation", tb[TM_A_NET_GENERATION] ?
		   mnl_attr_get_u64(tb[TM_A_NET_GENERATION]) : 0);
	return MNL_CB_OK;
}

static int tm_stats_table_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TM_A_MAX + 1];
	uint64_t rules = 0, bytes;

	if (tm_nl_parse(nlh, tb) < 0 || !tb[TM_A_TABLE_NAME])
		return MNL_CB_ERROR;
	tm_out_begin_object();
	tm_out_str("table", mnl_attr_get_str(tb[TM_A_TABLE_NAME]));
	if (tb[TM_A_TABLE_RULES]) {
		rules = mnl_attr_get_u32(tb[TM_A_TABLE_RULES]);
		tm_out_u64("rules", rules);
	}
	tm_table_entries(tb);
	if (tb[TM_A_TABLE_TUPLES])
		tm_out_u64("tuples", mnl_attr_get_u32(tb[TM_A_TABLE_TUPLES]));
	if (tb[TM_A_TABLE_BYTES]) {
		bytes = mnl_attr_get_u64(tb[TM_A_TABLE_BYTES]);
		tm_out_u64("bytes", bytes);
		tm_out_u64("bytes-per-rule", rules ? bytes / rules : 0);
	}
	if (tb[TM_A_TABLE_LOOKUPS])
		tm_out_u64("lookups", mnl_attr_get_u64(tb[TM_A_TABLE_LOOKUPS]));
	if (tb[TM_A_TABLE_MATCHES])
		tm_out_u64("matches", mnl_attr_get_u64(tb[TM_A_TABLE_MATCHES]));
	if (tb[TM_A_TABLE_PROBES] && tb[TM_A_TABLE_LOOKUPS])
		tm_out_ratio("avg-probes",
			     mnl_attr_get_u64(tb[TM_A_TABLE_PROBES]),
			     mnl_attr_get_u64(tb[TM_A_TABLE_LOOKUPS]));
	tm_out_end_object();
	return MNL_CB_OK;
}

int tm_do_stats(int argc, char **argv)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	int ret;

	if (argc > 0)
		return tm_parse_error("stats: unexpected '%s'", argv[0]);
	if (tmctl.check)
		return TMCTL_OK;
	nlh = tm_nl_request(buf, TM_CMD_STATS_GET, 0);
	tm_out_begin_object();
	ret = tm_nl_talk(nlh, tm_stats_cb, NULL, "stats");
	if (!ret) {
		nlh = tm_nl_request(buf, TM_CMD_TABLE_GET, NLM_F_DUMP);
		tm_out_begin_array("table-stats");
		ret = tm_nl_talk(nlh, tm_stats_table_cb, NULL, "stats");
		tm_out_end_array();
	}
	tm_out_end_object();
	return ret;
}
