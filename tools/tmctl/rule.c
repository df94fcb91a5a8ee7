// SPDX-License-Identifier: GPL-2.0
/*
 * tmctl rule add|replace|del|flush|list|get|lookup and counters reset: the
 * commands.  What the words of a rule are, the request they make and how a
 * rule prints is rule_words.c's, shared with batch files, import, ruleset
 * and monitor.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "tmctl.h"

/* The verbs of rule, for messages. */
#define TM_RULE_VERBS	"add, del, replace, flush, list, get, lookup"

/* Commands */

struct tm_rule_cb_ctx {
	const char *table;
	bool counters;
	unsigned long rules;
};

static int tm_rule_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TM_A_MAX + 1];
	struct tm_rule_cb_ctx *c = data;

	if (tm_nl_parse(nlh, tb) < 0)
		return MNL_CB_ERROR;
	if (!tb[TM_A_RULE_ID])
		return MNL_CB_OK;
	tm_rule_print(tb, c->table, c->counters);
	c->rules++;
	return MNL_CB_OK;
}

static int tm_rule_change(const struct tm_words *w, enum tm_rule_verb verb)
{
	/* A rule with sets takes more than MNL_SOCKET_BUFFER_SIZE. */
	static char buf[TM_MSG_MAX] __attribute__((aligned(8)));
	struct tm_rule_cb_ctx c = { .table = w->argv[0] };
	bool echo = tmctl.echo && (verb == TM_VERB_ADD ||
				   verb == TM_VERB_REPLACE);
	struct tm_rule_req r;
	struct nlmsghdr *nlh;
	int ret = TMCTL_OK;

	if (tm_rule_parse(w, verb, &r))
		return TMCTL_EPARSE;
	if (tmctl.check)
		goto out;
	nlh = tm_nl_request(buf, tm_rule_cmd(verb), echo ? NLM_F_ECHO : 0);
	tm_rule_put(nlh, &r, NULL);
	if (echo)
		tm_out_begin_list();
	ret = tm_nl_talk(nlh, echo ? tm_rule_cb : NULL, &c, w->what);
	if (echo)
		tm_out_end_list();
out:
	tm_rule_req_free(&r);
	return ret;
}

static int tm_rule_list(const struct tm_words *w)
{
	struct tm_rule_cb_ctx c = {
		.table = w->argv[0],
		.counters = !tmctl.no_counters,
	};
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;

	if (tm_parse_table(w, 0))
		return TMCTL_EPARSE;
	if (w->argc > 1)
		return tm_werror(w, 1, "unexpected '%s'", w->argv[1]);
	if (tmctl.check)
		return TMCTL_OK;
	nlh = tm_nl_request(buf, TM_CMD_RULE_GET, NLM_F_DUMP);
	mnl_attr_put_strz(nlh, TM_A_TABLE_NAME, w->argv[0]);
	return tm_nl_list(nlh, tm_rule_cb, &c, w->what, "rules");
}

/* TABLE [id N] or TABLE id N: the id, or 0. */
static int tm_parse_table_id(const struct tm_words *w, bool need_id,
			     uint32_t *id)
{
	static const struct tm_keyword kw[] = { { "id", true } };

	*id = 0;
	if (tm_parse_table(w, 0))
		return TMCTL_EPARSE;
	if (w->argc < 2) {
		if (need_id)
			return tm_werror(w, w->argc, "missing 'id N'");
		return 0;
	}
	if (tm_keyword(w, 1, kw, ARRAY_SIZE(kw)) < 0)
		return TMCTL_EPARSE;
	if (w->argc < 3)
		return tm_werror(w, 1, "'%s' needs a value", w->argv[1]);
	if (tm_parse_u32(w, 2, "rule id", 1, TM_RULE_ID_MAX, id))
		return TMCTL_EPARSE;
	if (w->argc > 3)
		return tm_werror(w, 3, "unexpected '%s'", w->argv[3]);
	return 0;
}

static int tm_rule_get(const struct tm_words *w)
{
	struct tm_rule_cb_ctx c = {
		.table = w->argv[0],
		.counters = !tmctl.no_counters,
	};
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	uint32_t id;
	int ret;

	if (tm_parse_table_id(w, true, &id))
		return TMCTL_EPARSE;
	if (tmctl.check)
		return TMCTL_OK;
	nlh = tm_nl_request(buf, TM_CMD_RULE_GET, 0);
	mnl_attr_put_strz(nlh, TM_A_TABLE_NAME, w->argv[0]);
	mnl_attr_put_u32(nlh, TM_A_RULE_ID, id);
	tm_out_begin_list();
	ret = tm_nl_talk(nlh, tm_rule_cb, &c, w->what);
	tm_out_end_list();
	return ret;
}

/* rule lookup */

enum {
	TM_L_SRC,
	TM_L_DST,
	TM_L_SPORT,
	TM_L_DPORT,
	TM_L_PROTO,
	TM_L_IIF,
	TM_L_OIF,
	TM_L_CT,
	TM_L_TCP_FLAGS,
	TM_L_MARK,
	TM_L_DSCP,
	TM_L_FRAGMENT,
	TM_L_ICMP_TYPE,
	TM_L_ICMP_CODE,
	TM_L_MAX
};

static const struct tm_keyword tm_lookup_keywords[TM_L_MAX] = {
	[TM_L_SRC] = { "src", true },
	[TM_L_DST] = { "dst", true },
	[TM_L_SPORT] = { "sport", true },
	[TM_L_DPORT] = { "dport", true },
	[TM_L_PROTO] = { "proto", true },
	[TM_L_IIF] = { "iif", true },
	[TM_L_OIF] = { "oif", true },
	[TM_L_CT] = { "ct", true },
	[TM_L_TCP_FLAGS] = { "tcp-flags", true },
	[TM_L_MARK] = { "mark", true },
	[TM_L_DSCP] = { "dscp", true },
	[TM_L_FRAGMENT] = { "fragment", true },
	[TM_L_ICMP_TYPE] = { "icmp-type", true },
	[TM_L_ICMP_CODE] = { "icmp-code", true },
};

struct tm_key_req {
	struct tm_prefix src, dst;
	int dst_word;
	uint32_t sport, dport, iif, oif, mark, dscp;
	uint8_t proto, ct, tcp_flags, fragment;
	bool seen[TM_L_MAX];
};

static int tm_lookup_parse(const struct tm_words *w, struct tm_key_req *key)
{
	int i, k, err = 0;

	memset(key, 0, sizeof(*key));
	if (tm_parse_table(w, 0))
		return TMCTL_EPARSE;
	for (i = 1; i < w->argc; i += 2) {
		k = tm_keyword(w, i, tm_lookup_keywords, TM_L_MAX);
		if (k < 0)
			return TMCTL_EPARSE;
		if (key->seen[k])
			return tm_werror(w, i, "%s given twice",
					 tm_lookup_keywords[k].name);
		key->seen[k] = true;
		if (i + 1 >= w->argc)
			return tm_werror(w, i, "'%s' needs a value",
					 w->argv[i]);
		switch (k) {
		case TM_L_SRC:
			err = tm_parse_prefix(w, i + 1, false, &key->src);
			break;
		case TM_L_DST:
			err = tm_parse_prefix(w, i + 1, false, &key->dst);
			key->dst_word = i + 1;
			break;
		case TM_L_SPORT:
			err = tm_parse_u32(w, i + 1, "port", 0, 65535,
					   &key->sport);
			break;
		case TM_L_DPORT:
			err = tm_parse_u32(w, i + 1, "port", 0, 65535,
					   &key->dport);
			break;
		case TM_L_PROTO:
			err = tm_parse_proto(w, i + 1, &key->proto);
			break;
		case TM_L_IIF:
			err = tm_parse_dev(w, i + 1, &key->iif);
			break;
		case TM_L_OIF:
			err = tm_parse_dev(w, i + 1, &key->oif);
			break;
		case TM_L_CT:
			err = tm_parse_name(w, i + 1, "connection state",
					    tm_ct_state_names, 0,
					    TM_CT_STATE_MAX, &key->ct);
			break;
		case TM_L_TCP_FLAGS:
			err = tm_parse_tcp_flags(w, i + 1, &key->tcp_flags);
			break;
		case TM_L_MARK:
			err = tm_parse_u32(w, i + 1, "mark", 0, UINT32_MAX,
					   &key->mark);
			break;
		case TM_L_DSCP:
			err = tm_parse_u32(w, i + 1, "DSCP", 0, 63, &key->dscp);
			break;
		case TM_L_FRAGMENT:
			err = tm_parse_name(w, i + 1, "fragment kind",
					    tm_fragment_names, 0,
					    TM_FRAGMENT_MAX, &key->fragment);
			break;
		case TM_L_ICMP_TYPE:
			err = tm_parse_u32(w, i + 1, "ICMP type", 0, 255,
					   &key->sport);
			break;
		case TM_L_ICMP_CODE:
			err = tm_parse_u32(w, i + 1, "ICMP code", 0, 255,
					   &key->dport);
			break;
		}
		if (err)
			return TMCTL_EPARSE;
	}
	if (key->seen[TM_L_SRC] && key->seen[TM_L_DST] &&
	    key->src.af != key->dst.af)
		return tm_werror(w, key->dst_word,
				 "'%s': %s destination but %s source",
				 w->argv[key->dst_word],
				 tm_af_name(key->dst.af),
				 tm_af_name(key->src.af));
	if ((key->seen[TM_L_ICMP_TYPE] || key->seen[TM_L_ICMP_CODE]) &&
	    (key->seen[TM_L_SPORT] || key->seen[TM_L_DPORT]))
		return tm_werror(w, w->argc,
				 "ICMP type and code are the key's ports: give one or the other");
	if (!key->seen[TM_L_SRC])
		return tm_werror(w, w->argc, "missing 'src ADDR'");
	if (!key->seen[TM_L_DST])
		return tm_werror(w, w->argc, "missing 'dst ADDR'");
	return 0;
}

static int tm_lookup_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TM_A_MAX + 1];
	const char *table = data;
	uint32_t probes;
	uint8_t policy;

	if (tm_nl_parse(nlh, tb) < 0)
		return MNL_CB_ERROR;
	probes = tb[TM_A_LOOKUP_PROBES] ?
		 mnl_attr_get_u32(tb[TM_A_LOOKUP_PROBES]) : 0;
	policy = tm_attr_u8(tb, TM_A_TABLE_POLICY, 0);
	if (tmctl.json) {
		tm_out_begin_object();
		tm_out_bool("match", !!tb[TM_A_RULE_ID]);
		if (tb[TM_A_RULE_ID])
			tm_rule_fields(tb, table, !tmctl.no_counters);
		else if (tb[TM_A_TABLE_POLICY])
			tm_out_str("policy", tm_policy_name(policy));
		tm_out_u64("probes", probes);
		tm_out_end_object();
		return MNL_CB_OK;
	}
	if (tb[TM_A_RULE_ID]) {
		tm_rule_text(tb, "add", table, !tmctl.no_counters);
		putchar('\n');
	} else if (tb[TM_A_TABLE_POLICY]) {
		printf("no match: policy %s\n", tm_policy_name(policy));
	} else {
		printf("no match\n");
	}
	printf("probes %u\n", probes);
	return MNL_CB_OK;
}

static int tm_rule_lookup(const struct tm_words *w)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct tm_key_req key;
	struct nlmsghdr *nlh;

	if (tm_lookup_parse(w, &key))
		return TMCTL_EPARSE;
	if (tmctl.check)
		return TMCTL_OK;
	nlh = tm_nl_request(buf, TM_CMD_RULE_LOOKUP, 0);
	mnl_attr_put_strz(nlh, TM_A_TABLE_NAME, w->argv[0]);
	mnl_attr_put(nlh, TM_A_KEY_SRC, key.src.af == 4 ? 4 : 16,
		     key.src.addr);
	mnl_attr_put(nlh, TM_A_KEY_DST, key.dst.af == 4 ? 4 : 16,
		     key.dst.addr);
	if (key.seen[TM_L_SPORT] || key.seen[TM_L_ICMP_TYPE])
		mnl_attr_put_u16(nlh, TM_A_KEY_SPORT, (uint16_t)key.sport);
	if (key.seen[TM_L_DPORT] || key.seen[TM_L_ICMP_CODE])
		mnl_attr_put_u16(nlh, TM_A_KEY_DPORT, (uint16_t)key.dport);
	if (key.seen[TM_L_CT])
		mnl_attr_put_u8(nlh, TM_A_KEY_CT_STATE, key.ct);
	if (key.seen[TM_L_TCP_FLAGS])
		mnl_attr_put_u8(nlh, TM_A_KEY_TCP_FLAGS, key.tcp_flags);
	if (key.seen[TM_L_MARK])
		mnl_attr_put_u32(nlh, TM_A_KEY_MARK, key.mark);
	if (key.seen[TM_L_DSCP])
		mnl_attr_put_u8(nlh, TM_A_KEY_DSCP, (uint8_t)key.dscp);
	if (key.seen[TM_L_FRAGMENT])
		mnl_attr_put_u8(nlh, TM_A_KEY_FRAGMENT, key.fragment);
	if (key.seen[TM_L_PROTO])
		mnl_attr_put_u8(nlh, TM_A_KEY_PROTO, key.proto);
	if (key.seen[TM_L_IIF])
		mnl_attr_put_u32(nlh, TM_A_KEY_IIF, key.iif);
	if (key.seen[TM_L_OIF])
		mnl_attr_put_u32(nlh, TM_A_KEY_OIF, key.oif);
	return tm_nl_talk(nlh, tm_lookup_cb, (void *)w->argv[0], w->what);
}

int tm_do_rule(int argc, char **argv)
{
	static const struct {
		const char *name;
		const char *what;
		int verb;	/* enum tm_rule_verb, or -1 */
		int (*fn)(const struct tm_words *w);
	} verbs[] = {
		{ "add", "rule add", TM_VERB_ADD, NULL },
		{ "delete", "rule del", TM_VERB_DEL, NULL },
		{ "replace", "rule replace", TM_VERB_REPLACE, NULL },
		{ "flush", "rule flush", TM_VERB_FLUSH, NULL },
		{ "list", "rule list", -1, tm_rule_list },
		{ "show", "rule list", -1, tm_rule_list },
		{ "get", "rule get", -1, tm_rule_get },
		{ "lookup", "rule lookup", -1, tm_rule_lookup },
	};
	struct tm_words w = { .argv = argv + 1, .argc = argc - 1 };
	unsigned int i;

	if (argc < 1)
		return tm_parse_error("rule: missing command (%s)",
				      TM_RULE_VERBS);
	for (i = 0; i < ARRAY_SIZE(verbs); i++) {
		if (!tm_matches(argv[0], verbs[i].name))
			continue;
		w.what = verbs[i].what;
		if (verbs[i].fn)
			return verbs[i].fn(&w);
		return tm_rule_change(&w, verbs[i].verb);
	}
	return tm_parse_error("rule: unknown command '%s' (%s)", argv[0],
			      TM_RULE_VERBS);
}

int tm_do_counters(int argc, char **argv)
{
	struct tm_words w = {
		.argv = argv + 1,
		.argc = argc - 1,
		.what = "counters reset",
	};
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	uint32_t id;

	if (argc < 1)
		return tm_parse_error("counters: missing command (reset)");
	if (!tm_matches(argv[0], "reset"))
		return tm_parse_error("counters: unknown command '%s' (reset)",
				      argv[0]);
	if (tm_parse_table_id(&w, false, &id))
		return TMCTL_EPARSE;
	if (tmctl.check)
		return TMCTL_OK;
	nlh = tm_nl_request(buf, TM_CMD_COUNTERS_RESET, 0);
	mnl_attr_put_strz(nlh, TM_A_TABLE_NAME, argv[1]);
	if (id)
		mnl_attr_put_u32(nlh, TM_A_RULE_ID, id);
	return tm_nl_talk(nlh, NULL, NULL, w.what);
}
