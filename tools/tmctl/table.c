// SPDX-License-Identifier: GPL-2.0
/*
 * tmctl table add|del|list|show: create, delete and print tables.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tmctl.h"

static const char * const tm_family_names[] = {
	[TM_FAMILY_IPV4] = "ip",
	[TM_FAMILY_IPV6] = "ip6",
	[TM_FAMILY_INET] = "inet",
};

static const char * const tm_hook_names[] = {
	[TM_HOOK_PREROUTING] = "prerouting",
	[TM_HOOK_INPUT] = "input",
	[TM_HOOK_FORWARD] = "forward",
	[TM_HOOK_OUTPUT] = "output",
	[TM_HOOK_POSTROUTING] = "postrouting",
};

static const char * const tm_policy_names[] = {
	[TM_POLICY_ACCEPT] = "accept",
	[TM_POLICY_DROP] = "drop",
};

static const char * const tm_engine_names[] = {
	[TM_ENG_TUPLEMERGE] = "tuplemerge",
	[TM_ENG_TSS] = "tss",
	[TM_ENG_LINEAR] = "linear",
};

/* Index of @arg in @names[first..last], or a parse error naming @what. */
static int tm_parse_keyword(const char *arg, const char * const *names,
			    unsigned int first, unsigned int last,
			    const char *what, uint8_t *val)
{
	unsigned int i;

	for (i = first; i <= last; i++) {
		if (!strcmp(arg, names[i])) {
			*val = i;
			return 0;
		}
	}
	fprintf(stderr, "tmctl: unknown %s '%s' (expected", what, arg);
	for (i = first; i <= last; i++)
		fprintf(stderr, "%s %s", i == first ? "" :
			i == last ? " or" : ",", names[i]);
	fprintf(stderr, ")\n");
	return TMCTL_EPARSE;
}

static const char *tm_name_of(const char * const *names, unsigned int n,
			      unsigned int i)
{
	return i < n && names[i] ? names[i] : "?";
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

static void tm_out_keyword(const struct nlattr *attr, const char *key,
			   const char * const *names, unsigned int n)
{
	if (attr)
		tm_out_str(key, tm_name_of(names, n, mnl_attr_get_u8(attr)));
}

static int tm_table_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TM_A_MAX + 1];

	if (tm_nl_parse(nlh, tb) < 0 || !tb[TM_A_TABLE_NAME])
		return MNL_CB_ERROR;
	tm_out_begin_object();
	tm_out_str("table", mnl_attr_get_str(tb[TM_A_TABLE_NAME]));
	tm_out_keyword(tb[TM_A_TABLE_FAMILY], "family", tm_family_names,
		       ARRAY_SIZE(tm_family_names));
	tm_out_keyword(tb[TM_A_TABLE_HOOK], "hook", tm_hook_names,
		       ARRAY_SIZE(tm_hook_names));
	if (tb[TM_A_TABLE_PRIORITY])
		tm_out_s64("priority",
			   (int32_t)mnl_attr_get_u32(tb[TM_A_TABLE_PRIORITY]));
	tm_out_keyword(tb[TM_A_TABLE_POLICY], "policy", tm_policy_names,
		       ARRAY_SIZE(tm_policy_names));
	tm_out_keyword(tb[TM_A_TABLE_ENGINE], "engine", tm_engine_names,
		       ARRAY_SIZE(tm_engine_names));
	if (tb[TM_A_TABLE_RULES])
		tm_out_u64("rules", mnl_attr_get_u32(tb[TM_A_TABLE_RULES]));
	if (tb[TM_A_TABLE_HANDLE])
		tm_out_u64("handle", mnl_attr_get_u32(tb[TM_A_TABLE_HANDLE]));
	tm_out_end_object();
	return MNL_CB_OK;
}

static int tm_parse_priority(const char *arg, int32_t *prio)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 0);
	if (errno || *end || end == arg || v < INT32_MIN || v > INT32_MAX)
		return tm_parse_error("bad priority '%s' (expected a 32-bit integer)",
				      arg);
	*prio = v;
	return 0;
}

static int tm_table_add(int argc, char **argv)
{
	uint8_t family = TM_FAMILY_INET, hook = TM_HOOK_INPUT;
	uint8_t policy = TM_POLICY_ACCEPT, engine = TM_ENG_TUPLEMERGE;
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	int32_t prio = 0;
	const char *name;
	int i, err;

	if (argc < 1)
		return tm_parse_error("table add: missing table name");
	name = argv[0];
	if (tm_check_name(name))
		return TMCTL_EPARSE;
	for (i = 1; i < argc; i += 2) {
		const char *key = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!val)
			return tm_parse_error("table add: '%s' needs a value", key);
		if (tm_matches(key, "family"))
			err = tm_parse_keyword(val, tm_family_names,
					       TM_FAMILY_IPV4, TM_FAMILY_MAX,
					       "family", &family);
		else if (tm_matches(key, "hook"))
			err = tm_parse_keyword(val, tm_hook_names, 0,
					       TM_HOOK_MAX, "hook", &hook);
		else if (tm_matches(key, "priority"))
			err = tm_parse_priority(val, &prio);
		else if (tm_matches(key, "policy"))
			err = tm_parse_keyword(val, tm_policy_names, 0,
					       TM_POLICY_MAX, "policy", &policy);
		else if (tm_matches(key, "engine"))
			err = tm_parse_keyword(val, tm_engine_names, 0,
					       TM_ENG_MAX, "engine", &engine);
		else
			return tm_parse_error("table add: unexpected '%s'", key);
		if (err)
			return TMCTL_EPARSE;
	}
	nlh = tm_nl_request(buf, TM_CMD_TABLE_NEW, 0);
	mnl_attr_put_strz(nlh, TM_A_TABLE_NAME, name);
	mnl_attr_put_u8(nlh, TM_A_TABLE_FAMILY, family);
	mnl_attr_put_u8(nlh, TM_A_TABLE_HOOK, hook);
	mnl_attr_put_u32(nlh, TM_A_TABLE_PRIORITY, (uint32_t)prio);
	mnl_attr_put_u8(nlh, TM_A_TABLE_POLICY, policy);
	mnl_attr_put_u8(nlh, TM_A_TABLE_ENGINE, engine);
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
