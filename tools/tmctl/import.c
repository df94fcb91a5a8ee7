// SPDX-License-Identifier: GPL-2.0
/*
 * tmctl import [--format classbench] TABLE FILE [ACTION]: a ClassBench rule
 * file (read by tools/classbench/classbench.c) loaded into a table as one
 * transaction.  The other formats are ipt.c's.
 * The rule on the I-th rule line (0-based) gets id I + 1 and priority I,
 * so that the first matching line wins, as ClassBench means it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tmctl.h"
#include "classbench.h"

struct tm_import {
	const char *path;
	struct cb_ruleset rs;
	struct tm_rule_req tmpl;	/* table and action */
	uint16_t family;
};

/* A ClassBench address (host order words) as a prefix. */
static void tm_import_prefix(const struct tm_rule *cr, const struct tm_addr *a,
			     uint8_t len, struct tm_prefix *p)
{
	unsigned int i, n = cr->family == TM_AF_INET ? 4 : 16;

	memset(p, 0, sizeof(*p));
	p->af = n == 4 ? 4 : 6;
	p->len = len;
	for (i = 0; i < n; i++)
		p->addr[i] = (uint8_t)(a->w[i / 4] >> (24 - 8 * (i % 4)));
}

/* Rule @i of the file, as a request (the template's fields and its own). */
static struct tm_rule_req tm_import_req(const struct tm_import *imp, size_t i)
{
	const struct tm_rule *cr = &imp->rs.rules[i];
	struct tm_rule_req r = imp->tmpl;

	/* Word 0 (the table) marks the fields present. */
	r.id = (uint32_t)i + 1;
	r.word[TM_F_ID] = 0;
	r.priority = (uint32_t)i;
	r.word[TM_F_PRIORITY] = 0;
	tm_import_prefix(cr, &cr->src, cr->src_len, &r.src);
	r.word[TM_F_SRC] = 0;
	tm_import_prefix(cr, &cr->dst, cr->dst_len, &r.dst);
	r.word[TM_F_DST] = 0;
	if (cr->sport_lo || cr->sport_hi != 65535) {
		r.sport[0] = cr->sport_lo;
		r.sport[1] = cr->sport_hi;
		r.word[TM_F_SPORT] = 0;
	}
	if (cr->dport_lo || cr->dport_hi != 65535) {
		r.dport[0] = cr->dport_lo;
		r.dport[1] = cr->dport_hi;
		r.word[TM_F_DPORT] = 0;
	}
	if (!cr->proto_any) {
		r.proto = cr->proto;
		r.word[TM_F_PROTO] = 0;
	}
	return r;
}

/* Rules go many to a message (tm_import_join()), each in a nest. */
static struct nlmsghdr *tm_import_put(void *ctx, size_t i, char *buf,
				      struct tm_attr_map *map)
{
	struct tm_import *imp = ctx;
	struct tm_rule_req r = tm_import_req(imp, i);
	struct nlmsghdr *nlh;

	nlh = tm_nl_put_header(buf, imp->family, TM_CMD_RULE_NEW, 0);
	tm_rule_put_nested(nlh, &r, map);
	return nlh;
}

/* tm_txn_ops.join: every rule goes to the one table. */
static bool tm_import_join(void *ctx, size_t first, size_t i,
			   struct nlmsghdr *nlh)
{
	struct tm_rule_req r = tm_import_req(ctx, i);

	tm_rule_put_nest(nlh, &r, NULL);
	return true;
}

static void tm_import_error(void *ctx, size_t i, const struct tm_nlerr *e,
			    const struct tm_attr_map *map)
{
	struct tm_import *imp = ctx;

	/* The reader numbered each rule with its line. */
	fprintf(stderr, "%s:%u: error: ", imp->path, imp->rs.rules[i].id);
	tm_nl_print_reason(stderr, e);
	fputc('\n', stderr);
}

int tm_do_import(int argc, char **argv)
{
	struct tm_import imp = {};
	struct tm_txn_ops ops = {
		.put = tm_import_put,
		.error = tm_import_error,
		.join = tm_import_join,
		.ctx = &imp,
	};
	char *tmpl_argv[64] = { NULL, "accept" };
	struct tm_words w = { .argv = argv, .argc = argc, .what = "import" };
	struct tm_words tw = { .argv = tmpl_argv, .what = "import" };
	char err[512];
	int i, f, ret;

	if (argc && (!strcmp(argv[0], "--format") || !strcmp(argv[0], "-F"))) {
		if (argc < 2)
			return tm_werror(&w, 1, "missing format after '%s'",
					 argv[0]);
		if (!strcmp(argv[1], "iptables-save"))
			return tm_import_iptables(argc - 2, argv + 2, 4);
		if (!strcmp(argv[1], "ip6tables-save"))
			return tm_import_iptables(argc - 2, argv + 2, 6);
		if (strcmp(argv[1], "classbench"))
			return tm_werror(&w, 1,
					 "unknown format '%s' (expected classbench, iptables-save or ip6tables-save)",
					 argv[1]);
		argc -= 2;
		argv += 2;
		w.argv = argv;
		w.argc = argc;
	}
	if (tm_parse_table(&w, 0))
		return TMCTL_EPARSE;
	if (argc < 2)
		return tm_werror(&w, 1, "missing ClassBench file");
	if (argc - 2 > (int)ARRAY_SIZE(tmpl_argv) - 1)
		return tm_werror(&w, argc - 1, "too many words");
	/* TABLE ACTION... parsed as a rule, default accept. */
	tmpl_argv[0] = argv[0];
	for (i = 2; i < argc; i++)
		tmpl_argv[i - 1] = argv[i];
	tw.argc = argc > 2 ? argc - 1 : 2;
	if (tm_rule_parse(&tw, TM_VERB_ADD, &imp.tmpl))
		return TMCTL_EPARSE;
	/* The matches come from the file: a template with one is refused. */
	for (f = TM_F_ID; f < TM_F_ACTION; f++) {
		if (TM_HAS(&imp.tmpl, f)) {
			tm_rule_req_free(&imp.tmpl);
			return tm_werror(&tw, imp.tmpl.word[f],
					 "only an action may follow the file, the rest comes from it");
		}
	}

	imp.path = argv[1];
	if (cb_read_rules(argv[1], &imp.rs, err, sizeof(err))) {
		fprintf(stderr, "tmctl: import: %s\n", err);
		return TMCTL_EPARSE;
	}
	if (imp.rs.n > TM_RULE_ID_MAX) {
		cb_ruleset_free(&imp.rs);
		return tm_parse_error("import: %s: more rules than ids",
				      argv[1]);
	}
	if (tmctl.check) {
		if (tmctl.verbose)
			fprintf(stderr, "%s: %zu rules, no error\n", argv[1],
				imp.rs.n);
		cb_ruleset_free(&imp.rs);
		return TMCTL_OK;
	}
	ops.n = imp.rs.n;
	if (ops.n)
		imp.family = tm_nl_family();
	ret = tm_txn_run(&ops, argv[1]);
	if (!ret && tmctl.verbose)
		fprintf(stderr, "imported %zu rules into %s\n", imp.rs.n,
			argv[0]);
	cb_ruleset_free(&imp.rs);
	return ret;
}
