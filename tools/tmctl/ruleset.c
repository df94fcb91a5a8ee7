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
 * times otherwise, as nft does.
 *
 * flush ruleset deletes every table (with its rules), then every service,
 * then every SID, each with its own request.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "tmctl.h"

/* Listings retried while the configuration keeps changing. */
#define TM_RULESET_TRIES	4

/*
 * The names of a namespace's objects of one kind: table or service names
 * (strings), or SIDs (@addr: 16-byte addresses), from attribute @attr.
 */
struct tm_names {
	int attr;
	bool addr;
	char (*v)[TM_NAME_MAX];
	size_t n, cap;
};

static void tm_names_add(struct tm_names *l, const void *name, size_t len)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		if (!l->v) {
			fputs("tmctl: out of memory\n", stderr);
			exit(TMCTL_EPARSE);
		}
	}
	memset(l->v[l->n], 0, TM_NAME_MAX);
	memcpy(l->v[l->n], name, len < TM_NAME_MAX ? len : TM_NAME_MAX - 1);
	l->n++;
}

/* tm_msg_cb: the name of the object of each reply, into a tm_names. */
static int tm_names_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TM_A_MAX + 1];
	struct tm_names *l = data;
	const struct nlattr *a;

	if (tm_nl_parse(nlh, tb) < 0)
		return MNL_CB_ERROR;
	a = tb[l->attr];
	if (a)
		tm_names_add(l, mnl_attr_get_payload(a),
			     l->addr ? sizeof(struct in6_addr) :
			     strlen(mnl_attr_get_str(a)));
	return MNL_CB_OK;
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

/*
 * SIDs are dumped in the order of the kernel's hash table, which depends on
 * their history: they are kept, then printed sorted by address, so that
 * the same configuration always lists the same.
 */
struct tm_sid_msgs {
	struct nlmsghdr **v;
	size_t n, cap;
};

static int tm_save_sid_cb(const struct nlmsghdr *nlh, void *data)
{
	struct tm_sid_msgs *m = data;

	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 16;
		m->v = realloc(m->v, m->cap * sizeof(*m->v));
		if (!m->v) {
			fputs("tmctl: out of memory\n", stderr);
			exit(TMCTL_EPARSE);
		}
	}
	m->v[m->n] = malloc(nlh->nlmsg_len);
	if (!m->v[m->n]) {
		fputs("tmctl: out of memory\n", stderr);
		exit(TMCTL_EPARSE);
	}
	memcpy(m->v[m->n++], nlh, nlh->nlmsg_len);
	return MNL_CB_OK;
}

/* A SID message's address, or 16 zero bytes: the sort key. */
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

/* Print the SIDs of @m sorted, and free them. */
static void tm_save_sids(struct tm_sid_msgs *m)
{
	const struct nlattr *tb[TM_A_MAX + 1];
	size_t i;

	qsort(m->v, m->n, sizeof(*m->v), tm_sid_msg_cmp);
	for (i = 0; i < m->n; i++) {
		if (tm_nl_parse(m->v[i], tb) >= 0 && tb[TM_A_SID_ADDR])
			tm_sid_print(tb, false);
		free(m->v[i]);
	}
	free(m->v);
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

/* The table reply of the dump whose name is @data, as table add would. */
static int tm_save_table_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TM_A_MAX + 1];

	if (tm_nl_parse(nlh, tb) < 0 || !tb[TM_A_TABLE_NAME])
		return MNL_CB_ERROR;
	if (strcmp(mnl_attr_get_str(tb[TM_A_TABLE_NAME]), data))
		return MNL_CB_OK;
	if (tmctl.json) {
		tm_table_config_fields(tb);
		return MNL_CB_OK;
	}
	tm_table_text(tb, "add");
	putchar('\n');
	return MNL_CB_OK;
}

/* One listing to the current stdout; *@changed if it may be torn. */
static int tm_ruleset_print(const char *what, bool *changed)
{
	struct tm_names tables = { .attr = TM_A_TABLE_NAME };
	struct tm_sid_msgs sids = {};
	int ret;
	size_t i;

	tm_out_begin_object();
	if (tmctl.json)
		tm_out_u64("version", 1);
	tm_out_begin_array("sids");
	ret = tm_dump(TM_CMD_SID_GET, NULL, tm_save_sid_cb, &sids, what,
		      changed);
	tm_save_sids(&sids);
	tm_out_end_array();
	tm_out_begin_array("services");
	if (!ret)
		ret = tm_dump(TM_CMD_LB_SERVICE_GET, NULL, tm_save_service_cb,
			      NULL, what, changed);
	tm_out_end_array();
	if (!ret)
		ret = tm_dump(TM_CMD_TABLE_GET, NULL, tm_names_cb, &tables,
			      what, changed);
	tm_out_begin_array("tables");
	for (i = 0; !ret && i < tables.n; i++) {
		/*
		 * A table dump per table keeps the order of the names; the
		 * generation check catches a table gone meanwhile.
		 */
		tm_out_begin_object();
		ret = tm_dump(TM_CMD_TABLE_GET, NULL, tm_save_table_cb,
			      tables.v[i], what, changed);
		tm_out_begin_array("rules");
		if (!ret)
			ret = tm_dump(TM_CMD_RULE_GET, tables.v[i],
				      tm_save_rule_cb, tables.v[i], what,
				      changed);
		tm_out_end_array();
		tm_out_end_object();
	}
	tm_out_end_array();
	tm_out_end_object();
	free(tables.v);
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

/* Delete each object of @l with @cmd; every refusal is reported. */
static int tm_flush_each(const struct tm_names *l, uint8_t cmd,
			 const char *what)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	int ret = 0;
	size_t i;

	for (i = 0; i < l->n; i++) {
		nlh = tm_nl_request(buf, cmd, 0);
		if (l->addr)
			mnl_attr_put(nlh, l->attr, sizeof(struct in6_addr),
				     l->v[i]);
		else
			mnl_attr_put_strz(nlh, l->attr, l->v[i]);
		if (tm_nl_talk(nlh, NULL, NULL, what))
			ret = TMCTL_EKERNEL;
	}
	return ret;
}

static int tm_flush_ruleset(const char *what)
{
	struct tm_names tables = { .attr = TM_A_TABLE_NAME };
	struct tm_names services = { .attr = TM_A_LB_NAME };
	struct tm_names sids = { .attr = TM_A_SID_ADDR, .addr = true };
	bool changed = false;
	int ret;

	if (tmctl.check)
		return TMCTL_OK;
	ret = tm_dump(TM_CMD_TABLE_GET, NULL, tm_names_cb, &tables, what,
		      &changed);
	if (!ret)
		ret = tm_dump(TM_CMD_LB_SERVICE_GET, NULL, tm_names_cb,
			      &services, what, &changed);
	if (!ret)
		ret = tm_dump(TM_CMD_SID_GET, NULL, tm_names_cb, &sids, what,
			      &changed);
	/* Rules name services: the tables go first. */
	if (!ret)
		ret = tm_flush_each(&tables, TM_CMD_TABLE_DEL, what);
	if (!ret)
		ret = tm_flush_each(&services, TM_CMD_LB_SERVICE_DEL, what);
	if (!ret)
		ret = tm_flush_each(&sids, TM_CMD_SID_DEL, what);
	free(tables.v);
	free(services.v);
	free(sids.v);
	return ret;
}

int tm_do_flush(int argc, char **argv)
{
	if (argc != 1 || !tm_matches(argv[0], "ruleset"))
		return tm_parse_error("flush: expected 'flush ruleset'");
	return tm_flush_ruleset("flush ruleset");
}
