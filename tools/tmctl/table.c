// SPDX-License-Identifier: GPL-2.0
/*
 * tmctl table add|del|list|show: create, delete and print tables.
 */
#include <stdio.h>
#include <string.h>

#include "tmctl.h"

static const char * const tm_family_names[] = {
	[TM_FAMILY_IPV4] = "ip",
	[TM_FAMILY_IPV6] = "ip6",
	[TM_FAMILY_INET] = "inet",
};

static int tm_parse_family(const char *arg, uint8_t *family)
{
	unsigned int i;

	for (i = TM_FAMILY_IPV4; i <= TM_FAMILY_MAX; i++) {
		if (!strcmp(arg, tm_family_names[i])) {
			*family = i;
			return 0;
		}
	}
	return tm_parse_error("unknown family '%s' (expected ip, ip6 or inet)",
			      arg);
}

static int tm_check_name(const char *name)
{
	if (!*name)
		return tm_parse_error("table name is empty");
	if (strlen(name) >= TM_NAME_MAX)
		return tm_parse_error("table name '%s' is longer than %d bytes",
				      name, TM_NAME_MAX - 1);
	return 0;
}

static int tm_table_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TM_A_MAX + 1];
	uint8_t family = 0;

	if (tm_nl_parse(nlh, tb) < 0 || !tb[TM_A_TABLE_NAME])
		return MNL_CB_ERROR;
	if (tb[TM_A_TABLE_FAMILY])
		family = mnl_attr_get_u8(tb[TM_A_TABLE_FAMILY]);
	tm_out_begin_object();
	tm_out_str("table", mnl_attr_get_str(tb[TM_A_TABLE_NAME]));
	if (family >= TM_FAMILY_IPV4 && family <= TM_FAMILY_MAX)
		tm_out_str("family", tm_family_names[family]);
	if (tb[TM_A_TABLE_HANDLE])
		tm_out_u64("handle", mnl_attr_get_u32(tb[TM_A_TABLE_HANDLE]));
	tm_out_end_object();
	return MNL_CB_OK;
}

static int tm_table_add(int argc, char **argv)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	uint8_t family = TM_FAMILY_INET;
	struct nlmsghdr *nlh;
	const char *name;
	int i;

	if (argc < 1)
		return tm_parse_error("table add: missing table name");
	name = argv[0];
	if (tm_check_name(name))
		return TMCTL_EPARSE;
	for (i = 1; i < argc; i++) {
		if (tm_matches(argv[i], "family") && i + 1 < argc) {
			if (tm_parse_family(argv[++i], &family))
				return TMCTL_EPARSE;
		} else {
			return tm_parse_error("table add: unexpected '%s'",
					      argv[i]);
		}
	}
	nlh = tm_nl_request(buf, TM_CMD_TABLE_NEW, 0);
	mnl_attr_put_strz(nlh, TM_A_TABLE_NAME, name);
	mnl_attr_put_u8(nlh, TM_A_TABLE_FAMILY, family);
	return tm_nl_talk(nlh, NULL, NULL, "table add");
}

static int tm_table_del(int argc, char **argv)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;

	if (argc < 1)
		return tm_parse_error("table del: missing table name");
	if (argc > 1)
		return tm_parse_error("table del: unexpected '%s'", argv[1]);
	if (tm_check_name(argv[0]))
		return TMCTL_EPARSE;
	nlh = tm_nl_request(buf, TM_CMD_TABLE_DEL, 0);
	mnl_attr_put_strz(nlh, TM_A_TABLE_NAME, argv[0]);
	return tm_nl_talk(nlh, NULL, NULL, "table del");
}

static int tm_table_show(int argc, char **argv)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	int ret;

	if (argc > 1)
		return tm_parse_error("table show: unexpected '%s'", argv[1]);
	if (argc == 1 && tm_check_name(argv[0]))
		return TMCTL_EPARSE;
	nlh = tm_nl_request(buf, TM_CMD_TABLE_GET, argc ? 0 : NLM_F_DUMP);
	if (argc)
		mnl_attr_put_strz(nlh, TM_A_TABLE_NAME, argv[0]);
	tm_out_begin_list();
	ret = tm_nl_talk(nlh, tm_table_cb, NULL, "table show");
	tm_out_end_list();
	return ret;
}

int tm_do_table(int argc, char **argv)
{
	if (argc < 1 || tm_matches(argv[0], "list"))
		return tm_table_show(0, NULL);
	if (tm_matches(argv[0], "add"))
		return tm_table_add(argc - 1, argv + 1);
	if (tm_matches(argv[0], "delete"))
		return tm_table_del(argc - 1, argv + 1);
	if (tm_matches(argv[0], "show"))
		return tm_table_show(argc - 1, argv + 1);
	return tm_parse_error("table: unknown command '%s' (add, del, list, show)",
			      argv[0]);
}
