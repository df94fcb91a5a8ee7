// SPDX-License-Identifier: GPL-2.0
/*
 * tmctl table add|del|list|show: create, delete and print tables, with
 * their TupleMerge parameters and statistics.
 */
#include <string.h>

#include "tmctl.h"

static void tm_out_name(const struct nlattr *attr, const char *key,
			const char * const *names, unsigned int n)
{
	if (attr)
		tm_out_str(key, tm_name(names, n, mnl_attr_get_u8(attr)));
}

static void tm_out_attr_u32(const struct nlattr *attr, const char *key)
{
	if (attr)
		tm_out_u64(key, mnl_attr_get_u32(attr));
}

static void tm_out_attr_u64(const struct nlattr *attr, const char *key)
{
	if (attr)
		tm_out_u64(key, mnl_attr_get_u64(attr));
}

/*
 * The fields of a table reply, the ones of the first version first (in
 * the order scripts know) and the statistics after them.
 */
/* family, hook, priority, policy, engine: where the table sits. */
static void tm_table_place_fields(const struct nlattr **tb)
{
	tm_out_name(tb[TM_A_TABLE_FAMILY], "family", tm_family_names,
		    ARRAY_SIZE(tm_family_names));
	tm_out_name(tb[TM_A_TABLE_HOOK], "hook", tm_hook_names,
		    ARRAY_SIZE(tm_hook_names));
	if (tb[TM_A_TABLE_PRIORITY])
		tm_out_s64("priority",
			   (int32_t)mnl_attr_get_u32(tb[TM_A_TABLE_PRIORITY]));
	tm_out_name(tb[TM_A_TABLE_POLICY], "policy", tm_policy_names,
		    ARRAY_SIZE(tm_policy_names));
	tm_out_name(tb[TM_A_TABLE_ENGINE], "engine", tm_engine_names,
		    ARRAY_SIZE(tm_engine_names));
}

/* collide, max-rules, max-tuples: the TupleMerge parameters and limits. */
static void tm_table_limit_fields(const struct nlattr **tb)
{
	if (tb[TM_A_TABLE_COLLIDE])
		tm_out_u64("collide", mnl_attr_get_u8(tb[TM_A_TABLE_COLLIDE]));
	tm_out_attr_u32(tb[TM_A_TABLE_MAX_RULES], "max-rules");
	tm_out_attr_u32(tb[TM_A_TABLE_MAX_TUPLES], "max-tuples");
}

/*
 * The classifier entries of the rules (a set rule has the cross product of
 * its sets), which max-rules counts: always in JSON, in the text when they
 * are not the rules (a table with a set rule).
 */
void tm_table_entries(const struct nlattr **tb)
{
	uint32_t entries;

	if (!tb[TM_A_TABLE_ENTRIES])
		return;
	entries = mnl_attr_get_u32(tb[TM_A_TABLE_ENTRIES]);
	if (tmctl.json || !tb[TM_A_TABLE_RULES] ||
	    entries != mnl_attr_get_u32(tb[TM_A_TABLE_RULES]))
		tm_out_u64("entries", entries);
}

void tm_table_print_fields(const struct nlattr **tb)
{
	if (tb[TM_A_TABLE_NAME])
		tm_out_str("table", mnl_attr_get_str(tb[TM_A_TABLE_NAME]));
	tm_table_place_fields(tb);
	tm_out_attr_u32(tb[TM_A_TABLE_RULES], "rules");
	tm_table_entries(tb);
	tm_out_attr_u32(tb[TM_A_TABLE_HANDLE], "handle");
	tm_out_attr_u32(tb[TM_A_TABLE_TUPLES], "tuples");
	tm_out_attr_u64(tb[TM_A_TABLE_BYTES], "bytes");
	tm_out_attr_u64(tb[TM_A_TABLE_LOOKUPS], "lookups");
	tm_out_attr_u64(tb[TM_A_TABLE_MATCHES], "matches");
	tm_out_attr_u64(tb[TM_A_TABLE_PROBES], "probes");
	if (tb[TM_A_TABLE_PROBES] && tb[TM_A_TABLE_LOOKUPS])
		tm_out_ratio("avg-probes",
			     mnl_attr_get_u64(tb[TM_A_TABLE_PROBES]),
			     mnl_attr_get_u64(tb[TM_A_TABLE_LOOKUPS]));
	tm_table_limit_fields(tb);
}

/* "table add NAME ..." with every keyword table add takes. */
void tm_table_text(const struct nlattr **tb, const char *verb)
{
	printf("table %s ", verb);
	tm_print_word(stdout, tb[TM_A_TABLE_NAME] ?
		      mnl_attr_get_str(tb[TM_A_TABLE_NAME]) : "?");
	if (strcmp(verb, "add"))
		return;
	if (tb[TM_A_TABLE_FAMILY])
		printf(" family %s",
		       tm_family_name(tm_attr_u8(tb, TM_A_TABLE_FAMILY, 0)));
	if (tb[TM_A_TABLE_HOOK])
		printf(" hook %s",
		       tm_hook_name(tm_attr_u8(tb, TM_A_TABLE_HOOK, 0)));
	if (tb[TM_A_TABLE_PRIORITY])
		printf(" priority %d",
		       (int32_t)mnl_attr_get_u32(tb[TM_A_TABLE_PRIORITY]));
	if (tb[TM_A_TABLE_POLICY])
		printf(" policy %s",
		       tm_policy_name(tm_attr_u8(tb, TM_A_TABLE_POLICY, 0)));
	if (tb[TM_A_TABLE_ENGINE])
		printf(" engine %s",
		       tm_engine_name(tm_attr_u8(tb, TM_A_TABLE_ENGINE, 0)));
	if (tb[TM_A_TABLE_COLLIDE])
		printf(" collide %u", mnl_attr_get_u8(tb[TM_A_TABLE_COLLIDE]));
	if (tb[TM_A_TABLE_MAX_RULES])
		printf(" max-rules %u",
		       mnl_attr_get_u32(tb[TM_A_TABLE_MAX_RULES]));
	if (tb[TM_A_TABLE_MAX_TUPLES])
		printf(" max-tuples %u",
		       mnl_attr_get_u32(tb[TM_A_TABLE_MAX_TUPLES]));
}

/* The parameters of a table, the keys of table add (list ruleset -j). */
void tm_table_config_fields(const struct nlattr **tb)
{
	if (tb[TM_A_TABLE_NAME])
		tm_out_str("name", mnl_attr_get_str(tb[TM_A_TABLE_NAME]));
	tm_table_place_fields(tb);
	tm_table_limit_fields(tb);
}

static int tm_table_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TM_A_MAX + 1];

	if (tm_nl_parse(nlh, tb) < 0 || !tb[TM_A_TABLE_NAME])
		return MNL_CB_ERROR;
	tm_out_begin_object();
	tm_table_print_fields(tb);
	tm_out_end_object();
	return MNL_CB_OK;
}

static const struct tm_keyword tm_table_keywords[TM_T_MAX] = {
	[TM_T_FAMILY] = { "family", true },
	[TM_T_HOOK] = { "hook", true },
	[TM_T_PRIORITY] = { "priority", true },
	[TM_T_POLICY] = { "policy", true },
	[TM_T_ENGINE] = { "engine", true },
	[TM_T_COLLIDE] = { "collide", true },
	[TM_T_MAX_RULES] = { "max-rules", true },
	[TM_T_MAX_TUPLES] = { "max-tuples", true },
};

/* "NAME [family F] [hook H] ..." of table add into @r. */
static int tm_table_parse_add(const struct tm_words *w, struct tm_table_req *r)
{
	int i, k, err = 0;
	uint32_t v;

	for (i = 1; i < w->argc; i += 2) {
		k = tm_keyword(w, i, tm_table_keywords, TM_T_MAX);
		if (k < 0)
			return TMCTL_EPARSE;
		if (r->seen[k])
			return tm_werror(w, i, "%s given twice",
					 tm_table_keywords[k].name);
		r->seen[k] = true;
		if (i + 1 >= w->argc)
			return tm_werror(w, i, "'%s' needs a value",
					 w->argv[i]);
		switch (k) {
		case TM_T_FAMILY:
			err = tm_parse_name(w, i + 1, "family", tm_family_names,
					    TM_FAMILY_IPV4, TM_FAMILY_MAX,
					    &r->family);
			break;
		case TM_T_HOOK:
			err = tm_parse_name(w, i + 1, "hook", tm_hook_names, 0,
					    TM_HOOK_MAX, &r->hook);
			break;
		case TM_T_PRIORITY:
			err = tm_parse_s32(w, i + 1, "priority", &r->priority);
			break;
		case TM_T_POLICY:
			err = tm_parse_name(w, i + 1, "policy", tm_policy_names,
					    0, TM_POLICY_MAX, &r->policy);
			break;
		case TM_T_ENGINE:
			err = tm_parse_name(w, i + 1, "engine", tm_engine_names,
					    0, TM_ENG_MAX, &r->engine);
			break;
		case TM_T_COLLIDE:
			err = tm_parse_u32(w, i + 1, "collide", 1, 128, &v);
			r->collide = (uint8_t)v;
			break;
		case TM_T_MAX_RULES:
			err = tm_parse_u32(w, i + 1, "max-rules", 1,
					   TM_MAX_RULES_LIMIT, &r->max_rules);
			break;
		case TM_T_MAX_TUPLES:
			err = tm_parse_u32(w, i + 1, "max-tuples", 1,
					   TM_MAX_TUPLES_LIMIT, &r->max_tuples);
			break;
		}
		if (err)
			return TMCTL_EPARSE;
	}
	return 0;
}

int tm_table_parse(const struct tm_words *w, enum tm_table_verb verb,
		   struct tm_table_req *r)
{
	*r = (struct tm_table_req){
		.verb = verb,
		.family = TM_FAMILY_INET,
		.hook = TM_HOOK_INPUT,
		.policy = TM_POLICY_ACCEPT,
		.engine = TM_ENG_TUPLEMERGE,
	};
	if (tm_parse_table(w, 0))
		return TMCTL_EPARSE;
	r->name = w->argv[0];
	if (verb == TM_TABLE_ADD)
		return tm_table_parse_add(w, r);
	if (w->argc > 1)
		return tm_werror(w, 1, "unexpected '%s'", w->argv[1]);
	return 0;
}

uint8_t tm_table_cmd(enum tm_table_verb verb)
{
	return verb == TM_TABLE_ADD ? TM_CMD_TABLE_NEW :
	       verb == TM_TABLE_FLUSH ? TM_CMD_RULE_DEL : TM_CMD_TABLE_DEL;
}

void tm_table_put(struct nlmsghdr *nlh, const struct tm_table_req *r)
{
	if (r->name)
		mnl_attr_put_strz(nlh, TM_A_TABLE_NAME, r->name);
	if (r->verb != TM_TABLE_ADD)
		return;
	mnl_attr_put_u8(nlh, TM_A_TABLE_FAMILY, r->family);
	mnl_attr_put_u8(nlh, TM_A_TABLE_HOOK, r->hook);
	mnl_attr_put_u32(nlh, TM_A_TABLE_PRIORITY, (uint32_t)r->priority);
	mnl_attr_put_u8(nlh, TM_A_TABLE_POLICY, r->policy);
	mnl_attr_put_u8(nlh, TM_A_TABLE_ENGINE, r->engine);
	/* The TupleMerge parameters only when given: the defaults are the
	 * kernel's.
	 */
	if (r->seen[TM_T_COLLIDE])
		mnl_attr_put_u8(nlh, TM_A_TABLE_COLLIDE, r->collide);
	if (r->seen[TM_T_MAX_RULES])
		mnl_attr_put_u32(nlh, TM_A_TABLE_MAX_RULES, r->max_rules);
	if (r->seen[TM_T_MAX_TUPLES])
		mnl_attr_put_u32(nlh, TM_A_TABLE_MAX_TUPLES, r->max_tuples);
}

/* table add, del, flush NAME: one request. */
static int tm_table_change(const struct tm_words *w, enum tm_table_verb verb)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct tm_table_req r;
	struct nlmsghdr *nlh;

	if (tm_table_parse(w, verb, &r))
		return TMCTL_EPARSE;
	if (tmctl.check)
		return TMCTL_OK;
	nlh = tm_nl_request(buf, tm_table_cmd(verb), 0);
	tm_table_put(nlh, &r);
	return tm_nl_talk(nlh, NULL, NULL, w->what);
}

static int tm_table_show(const struct tm_words *w)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;

	if (w->argc > 1)
		return tm_werror(w, 1, "unexpected '%s'", w->argv[1]);
	if (w->argc == 1 && tm_parse_table(w, 0))
		return TMCTL_EPARSE;
	if (tmctl.check)
		return TMCTL_OK;
	nlh = tm_nl_request(buf, TM_CMD_TABLE_GET, w->argc ? 0 : NLM_F_DUMP);
	if (w->argc)
		mnl_attr_put_strz(nlh, TM_A_TABLE_NAME, w->argv[0]);
	return tm_nl_list(nlh, tm_table_cb, NULL, w->what, "tables");
}

int tm_do_table(int argc, char **argv)
{
	struct tm_words w = { .argv = argv + 1, .argc = argc - 1 };

	if (argc < 1 || tm_matches(argv[0], "list")) {
		w.what = "table list";
		if (argc > 1)
			return tm_werror(&w, 0, "unexpected '%s'", argv[1]);
		w.argc = 0;
		return tm_table_show(&w);
	}
	if (tm_matches(argv[0], "add")) {
		w.what = "table add";
		return tm_table_change(&w, TM_TABLE_ADD);
	}
	if (tm_matches(argv[0], "delete")) {
		w.what = "table del";
		return tm_table_change(&w, TM_TABLE_DEL);
	}
	if (tm_matches(argv[0], "flush")) {
		w.what = "table flush";
		return tm_table_change(&w, TM_TABLE_FLUSH);
	}
	if (tm_matches(argv[0], "show")) {
		w.what = "table show";
		return tm_table_show(&w);
	}
	return tm_parse_error("table: unknown command '%s' (add, del, flush, list, show)",
			      argv[0]);
}
