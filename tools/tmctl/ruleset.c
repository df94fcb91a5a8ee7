// SPDX-License-Identifier: GPL-2.0
/*
 * tmctl list ruleset (also: tmctl save) and tmctl flush ruleset: the whole
 * configuration of a network namespace at once.
 *
 * list ruleset prints every object as the commands that make it, in an
 * order a batch file can apply: SIDs (sorted by address), services and
 * their backends (rules name services), then each table with its rules
 * (sorted by id, as the kernel dumps them).  Counters, flows and a
 * SID's application load are state, not configuration: they are left out.
 * With -j, one JSON object:
 *
 *	{"version": 1, "sids": [...], "services": [{..., "backends": [...]}],
 *	 "tables": [{..., "rules": [...]}]}
 *
 * The listing takes several dumps.  It is a snapshot only if the
 * namespace's generation is the same before and after them, so it is
 * built in memory and printed once the generation held, retried a few
 * times otherwise, as nft does.  The replies of a dump are kept (struct
 * tm_msgs) where they are needed after it: SIDs to sort them, tables to
 * dump their rules.
 *
 * flush ruleset is one request (TM_CMD_FLUSH): every table (with its
 * rules), service and SID goes at once.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "tmctl.h"

/* Listings retried while the configuration keeps changing. */
#define TM_RULESET_TRIES	4

/* Copies of the replies of a dump. */
struct tm_msgs {
	struct nlmsghdr **v;
	size_t n, cap;
};

/* tm_msg_cb: keep a copy of each reply in the tm_msgs @data. */
static int tm_msgs_cb(const struct nlmsghdr *nlh, void *data)
{
	struct tm_msgs *m = data;

	m->v = tm_grow(m->v, &m->cap, m->n + 1, sizeof(*m->v));
	m->v[m->n] = malloc(nlh->nlmsg_len);
	if (!m->v[m->n]) {
		fputs("tmctl: out of memory\n", stderr);
		exit(TMCTL_EPARSE);
	}
	memcpy(m->v[m->n++], nlh, nlh->nlmsg_len);
	return MNL_CB_OK;
}

static void tm_msgs_free(struct tm_msgs *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		free(m->v[i]);
	free(m->v);
}

static int tm_generation_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TM_A_MAX + 1];

	if (tm_nl_parse(nlh, tb) < 0 || !tb[TM_A_NET_GENERATION])
		return MNL_CB_ERROR;
	*(uint64_t *)data = mnl_attr_get_u64(tb[TM_A_NET_GENERATION]);
	return MNL_CB_OK;
}

static int tm_generation(uint64_t *gen, const char *what)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	return tm_nl_talk(tm_nl_request(buf, TM_CMD_STATS_GET, 0),
			  tm_generation_cb, gen, what);
}

/* Dump @cmd, run @cb on each reply; a dump cut short by a change fails. */
static int tm_dump(uint8_t cmd, const char *table, tm_msg_cb cb, void *data,
		   const char *what, bool *changed)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = tm_nl_request(buf, cmd, NLM_F_DUMP);
	int ret;

	if (table)
		mnl_attr_put_strz(nlh, TM_A_TABLE_NAME, table);
	ret = tm_nl_talk(nlh, cb, data, what);
	if (!ret && tm_nl_dump_intr)
		*changed = true;
	return ret;
}

/* A SID reply's address, or 16 zero bytes: the sort key. */
static void tm_sid_msg_addr(const struct nlmsghdr *nlh, uint8_t *addr)
{
	const struct nlattr *tb[TM_A_MAX + 1];

	memset(addr, 0, 16);
	if (tm_nl_parse(nlh, tb) >= 0 && tb[TM_A_SID_ADDR])
		memcpy(addr, mnl_attr_get_payload(tb[TM_A_SID_ADDR]), 16);
}

static int tm_sid_msg_cmp(const void *a, const void *b)
{
	uint8_t x[16], y[16];

	tm_sid_msg_addr(*(struct nlmsghdr * const *)a, x);
	tm_sid_msg_addr(*(struct nlmsghdr * const *)b, y);
	return memcmp(x, y, sizeof(x));
}

/*
 * The SIDs, sorted by address: the kernel dumps them in its hash table's
 * order, which depends on their history, and the same configuration
 * should always list the same.
 */
static int tm_save_sids(const char *what, bool *changed)
{
	const struct nlattr *tb[TM_A_MAX + 1];
	struct tm_msgs sids = {};
	size_t i;
	int ret;

	ret = tm_dump(TM_CMD_SID_GET, NULL, tm_msgs_cb, &sids, what, changed);
	qsort(sids.v, sids.n, sizeof(*sids.v), tm_sid_msg_cmp);
	for (i = 0; !ret && i < sids.n; i++)
		if (tm_nl_parse(sids.v[i], tb) >= 0 && tb[TM_A_SID_ADDR])
			tm_sid_print(tb, false);
	tm_msgs_free(&sids);
	return ret;
}

static int tm_save_service_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TM_A_MAX + 1];

	if (tm_nl_parse(nlh, tb) < 0)
		return MNL_CB_ERROR;
	if (tb[TM_A_LB_NAME])
		tm_lb_service_save(tb);
	return MNL_CB_OK;
}

static int tm_save_rule_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TM_A_MAX + 1];

	if (tm_nl_parse(nlh, tb) < 0)
		return MNL_CB_ERROR;
	if (tb[TM_A_RULE_ID])
		tm_rule_print(tb, data, false);
	return MNL_CB_OK;
}

/* Each table as table add would make it, then its rules. */
static int tm_save_tables(const char *what, bool *changed)
{
	const struct nlattr *tb[TM_A_MAX + 1];
	struct tm_msgs tables = {};
	const char *name;
	size_t i;
	int ret;

	ret = tm_dump(TM_CMD_TABLE_GET, NULL, tm_msgs_cb, &tables, what,
		      changed);
	for (i = 0; !ret && i < tables.n; i++) {
		if (tm_nl_parse(tables.v[i], tb) < 0 || !tb[TM_A_TABLE_NAME])
			continue;
		name = mnl_attr_get_str(tb[TM_A_TABLE_NAME]);
		tm_out_begin_object();
		if (tmctl.json) {
			tm_table_config_fields(tb);
		} else {
			tm_table_text(tb, "add");
			putchar('\n');
		}
		tm_out_begin_array("rules");
		ret = tm_dump(TM_CMD_RULE_GET, name, tm_save_rule_cb,
			      (void *)name, what, changed);
		tm_out_end_array();
		tm_out_end_object();
	}
	tm_msgs_free(&tables);
	return ret;
}

/* One listing to the current stdout; *@changed if it may be torn. */
static int tm_ruleset_print(const char *what, bool *changed)
{
	int ret;

	tm_out_begin_object();
	if (tmctl.json)
		tm_out_u64("version", 1);
	tm_out_begin_array("sids");
	ret = tm_save_sids(what, changed);
	tm_out_end_array();
	tm_out_begin_array("services");
	if (!ret)
		ret = tm_dump(TM_CMD_LB_SERVICE_GET, NULL, tm_save_service_cb,
			      NULL, what, changed);
	tm_out_end_array();
	tm_out_begin_array("tables");
	if (!ret)
		ret = tm_save_tables(what, changed);
	tm_out_end_array();
	tm_out_end_object();
	return ret;
}

static int tm_list_ruleset(const char *what)
{
	FILE *out = stdout, *mem;
	uint64_t before, after;
	int ret, try;
	char *text;
	size_t len;
	bool changed;

	if (tmctl.check)
		return TMCTL_OK;
	for (try = 0; try < TM_RULESET_TRIES; try++) {
		ret = tm_generation(&before, what);
		if (ret)
			return ret;
		text = NULL;
		mem = open_memstream(&text, &len);
		if (!mem) {
			perror("tmctl: open_memstream");
			return TMCTL_EPARSE;
		}
		/* Every printer writes to stdout: point it at the buffer. */
		stdout = mem;
		changed = false;
		ret = tm_ruleset_print(what, &changed);
		fclose(mem);
		stdout = out;
		if (!ret)
			ret = tm_generation(&after, what);
		if (!ret && !changed && before == after) {
			fwrite(text, 1, len, stdout);
			free(text);
			return TMCTL_OK;
		}
		free(text);
		if (ret)
			return ret;
	}
	fprintf(stderr,
		"tmctl: %s: the configuration kept changing during the listing; run again\n",
		what);
	return TMCTL_EKERNEL;
}

int tm_do_list(int argc, char **argv)
{
	if (argc != 1 || !tm_matches(argv[0], "ruleset"))
		return tm_parse_error("list: expected 'list ruleset'");
	return tm_list_ruleset("list ruleset");
}

/* tmctl save: list ruleset, the name ipvsadm -S users look for. */
int tm_do_save(int argc, char **argv)
{
	if (argc > 0)
		return tm_parse_error("save: unexpected '%s'", argv[0]);
	return tm_list_ruleset("save");
}

/* Flush */

/*
 * One request: the kernel deletes every table, service and SID in one
 * transaction of its own, so packets see the whole configuration or none.
 */
static int tm_flush_ruleset(const char *what)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	if (tmctl.check)
		return TMCTL_OK;
	return tm_nl_talk(tm_nl_request(buf, TM_CMD_FLUSH, 0), NULL, NULL,
			  what);
}

int tm_do_flush(int argc, char **argv)
{
	if (argc != 1 || !tm_matches(argv[0], "ruleset"))
		return tm_parse_error("flush: expected 'flush ruleset'");
	return tm_flush_ruleset("flush ruleset");
}
