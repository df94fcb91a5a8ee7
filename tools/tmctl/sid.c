// SPDX-License-Identifier: GPL-2.0
/*
 * tmctl sid add|replace|del|show|list: the connection-acceptance SIDs of
 * SRv6 load balancing (server side).  This file owns the words of a SID
 * command ("SID accept policy POLICY [N]"), the names of the SID
 * policies, the requests they make, and the printing of SID bindings in
 * the syntax of "sid add" followed by their counters (also used by
 * monitor).
 */
#include <arpa/inet.h>
#include <string.h>

#include "tmctl.h"

/* The verbs of sid, for messages. */
#define TM_SID_VERBS	"add, replace, del, show, list"

static const char * const tm_sid_policy_names[TM_SID_POLICY_MAX + 1] = {
	[TM_SID_POLICY_ALWAYS] = "always",
	[TM_SID_POLICY_NEVER] = "never",
	[TM_SID_POLICY_CONNS] = "conns",
	[TM_SID_POLICY_BACKLOG] = "backlog",
	[TM_SID_POLICY_LOAD] = "load",
	[TM_SID_POLICY_DYN] = "dyn",
};

const char *tm_sid_policy_name(unsigned int i)
{
	return tm_name(tm_sid_policy_names, ARRAY_SIZE(tm_sid_policy_names),
		       i);
}

bool tm_sid_policy_has_threshold(uint8_t policy)
{
	return policy == TM_SID_POLICY_CONNS ||
	       policy == TM_SID_POLICY_BACKLOG ||
	       policy == TM_SID_POLICY_LOAD || policy == TM_SID_POLICY_DYN;
}

/* The counters of a binding, in the order they are printed. */
static const struct {
	const char *name;	/* text keyword and JSON key */
	uint16_t attr;		/* u64 */
} tm_sid_counters[] = {
	{ "accepted", TM_A_SID_ACCEPTED },
	{ "passed", TM_A_SID_PASSED },
	{ "forced", TM_A_SID_FORCED },
	{ "steered", TM_A_SID_STEERED },
	{ "unknown", TM_A_SID_UNKNOWN },
	{ "malformed", TM_A_SID_MALFORMED },
	{ "reports", TM_A_SID_REPORTS },
	{ "hmac-bad", TM_A_SID_HMAC_BAD },
	{ "hmac-nokey", TM_A_SID_HMAC_NOKEY },
};

/* A SID's timeouts, in the order of tm_sid_req.timeout. */
static const struct {
	const char *name;	/* text keyword */
	const char *key;	/* JSON key */
	uint16_t attr;		/* u32, seconds */
	uint32_t dflt;
} tm_sid_timeouts[] = {
	{ "idle-timeout", "idle_timeout", TM_A_SID_IDLE_TIMEOUT,
	  TM_SID_IDLE_TIMEOUT_DEFAULT },
	{ "close-timeout", "close_timeout", TM_A_SID_CLOSE_TIMEOUT,
	  TM_SID_CLOSE_TIMEOUT_DEFAULT },
	{ "syn-timeout", "syn_timeout", TM_A_SID_SYN_TIMEOUT,
	  TM_SID_SYN_TIMEOUT_DEFAULT },
	{ "udp-timeout", "udp_timeout", TM_A_SID_UDP_TIMEOUT,
	  TM_SID_UDP_TIMEOUT_DEFAULT },
};

bool tm_sid_timeout_default(unsigned int k, long long seconds)
{
	return k < ARRAY_SIZE(tm_sid_timeouts) &&
	       seconds == tm_sid_timeouts[k].dflt;
}

/* The action words of a SID: one for now, the grammar stays open. */
static const struct tm_keyword tm_sid_actions[] = {
	{ "accept", false },
};

/*
 * Keywords after the action: the policy, and what sid show prints after
 * it (read and ignored, so that its lines read back), the counters in the
 * order of tm_sid_counters.
 */
enum {
	TM_S_POLICY,
	TM_S_HMAC,
	TM_S_TIMEOUT,		/* the first of tm_sid_timeouts */
	TM_S_CONNS_NOW = TM_S_TIMEOUT + ARRAY_SIZE(tm_sid_timeouts),
	TM_S_LOAD_NOW,
	TM_S_DYN_NOW,
	TM_S_COUNTER,		/* the first of tm_sid_counters */
	TM_S_MAX = TM_S_COUNTER + ARRAY_SIZE(tm_sid_counters)
};

static const struct tm_keyword tm_sid_keywords[TM_S_MAX] = {
	[TM_S_POLICY] = { "policy", true },
	[TM_S_HMAC] = { "hmac", true },
	[TM_S_TIMEOUT + 0] = { "idle-timeout", true },
	[TM_S_TIMEOUT + 1] = { "close-timeout", true },
	[TM_S_TIMEOUT + 2] = { "syn-timeout", true },
	[TM_S_TIMEOUT + 3] = { "udp-timeout", true },
	[TM_S_CONNS_NOW] = { "conns-now", true },
	[TM_S_LOAD_NOW] = { "load-now", true },
	[TM_S_DYN_NOW] = { "dyn-now", true },
	[TM_S_COUNTER + 0] = { "accepted", true },
	[TM_S_COUNTER + 1] = { "passed", true },
	[TM_S_COUNTER + 2] = { "forced", true },
	[TM_S_COUNTER + 3] = { "steered", true },
	[TM_S_COUNTER + 4] = { "unknown", true },
	[TM_S_COUNTER + 5] = { "malformed", true },
	[TM_S_COUNTER + 6] = { "reports", true },
	[TM_S_COUNTER + 7] = { "hmac-bad", true },
	[TM_S_COUNTER + 8] = { "hmac-nokey", true },
};

/* Word i is a SID: an IPv6 address. */
static int tm_sid_parse_addr(const struct tm_words *w, int i, uint8_t *addr)
{
	const char *arg;
	uint8_t v4[4];

	if (i >= w->argc)
		return tm_werror(w, i, "missing SID (an IPv6 address)");
	arg = w->argv[i];
	if (inet_pton(AF_INET6, arg, addr) == 1)
		return 0;
	if (inet_pton(AF_INET, arg, v4) == 1)
		return tm_werror(w, i, "'%s': a SID is an IPv6 address, not IPv4",
				 arg);
	return tm_werror(w, i, "'%s': not an IPv6 address", arg);
}

/* POLICY [N] from word i: the words taken, or -1 (error reported). */
static int tm_sid_parse_policy(const struct tm_words *w, int i,
			       struct tm_sid_req *s)
{
	int v = i + 1;
	bool number = v < w->argc && w->argv[v][0] >= '0' &&
		      w->argv[v][0] <= '9';
	const char *name;

	if (tm_parse_name(w, i, "policy", tm_sid_policy_names,
			  TM_SID_POLICY_ALWAYS, TM_SID_POLICY_MAX, &s->policy))
		return -1;
	s->w_policy = i;
	name = tm_sid_policy_name(s->policy);
	if (!tm_sid_policy_has_threshold(s->policy)) {
		if (number) {
			tm_werror(w, v, "unexpected '%s': policy %s takes no number",
				  w->argv[v], name);
			return -1;
		}
		return 1;
	}
	if (!number) {
		tm_werror(w, v, "policy %s needs a number N (1..%u)", name,
			  s->policy == TM_SID_POLICY_DYN ? TM_SID_DYN_MAX :
			  UINT32_MAX);
		return -1;
	}
	if (tm_parse_u32(w, v, s->policy == TM_SID_POLICY_CONNS ?
			 "conns threshold" :
			 s->policy == TM_SID_POLICY_BACKLOG ?
			 "backlog threshold" :
			 s->policy == TM_SID_POLICY_DYN ?
			 "dyn threshold" : "load threshold",
			 1, s->policy == TM_SID_POLICY_DYN ?
			 TM_SID_DYN_MAX : UINT32_MAX, &s->threshold))
		return -1;
	s->w_threshold = v;
	return 2;
}

/* Word i is what sid show prints of the dyn policy: N.NNN. */
static int tm_sid_parse_milli(const struct tm_words *w, int i)
{
	const char *s = w->argv[i], *dot = strchr(s, '.');
	size_t n = strspn(s, "0123456789");

	if (!n || n > 5 || s + n != dot || strlen(dot + 1) != 3 ||
	    strspn(dot + 1, "0123456789") != 3)
		return tm_werror(w, i, "bad dyn-now '%s' (expected N.NNN)", s);
	return 0;
}

/* "SID accept policy POLICY [N] [hmac K] [idle-timeout S] ..." */
static int tm_sid_parse_binding(const struct tm_words *w, struct tm_sid_req *s)
{
	bool seen[TM_S_MAX] = {};
	unsigned int a;
	int i, k, n;
	uint64_t u;

	if (w->argc < 2)
		return tm_werror(w, 1, "missing action (accept)");
	/* The action: named in the message when there is none. */
	for (a = 0; a < ARRAY_SIZE(tm_sid_actions); a++)
		if (tm_matches(w->argv[1], tm_sid_actions[a].name))
			break;
	if (a == ARRAY_SIZE(tm_sid_actions))
		return tm_werror(w, 1, "unknown action '%s' (expected accept)",
				 w->argv[1]);
	if (tm_keyword(w, 1, tm_sid_actions, ARRAY_SIZE(tm_sid_actions)) < 0)
		return TMCTL_EPARSE;
	for (i = 2; i < w->argc; i += n) {
		k = tm_keyword(w, i, tm_sid_keywords, TM_S_MAX);
		if (k < 0)
			return TMCTL_EPARSE;
		if (seen[k])
			return tm_werror(w, i, "%s given twice",
					 tm_sid_keywords[k].name);
		seen[k] = true;
		if (i + 1 >= w->argc)
			return tm_werror(w, i, "'%s' needs a value",
					 w->argv[i]);
		if (k == TM_S_POLICY) {
			n = tm_sid_parse_policy(w, i + 1, s);
			if (n < 0)
				return TMCTL_EPARSE;
			n++;
			continue;
		}
		if (k == TM_S_HMAC) {
			/* The kernel's seg6 HMAC key ids start at 1. */
			if (tm_parse_u32(w, i + 1, "hmac", 1,
					 UINT32_MAX, &s->hmac))
				return TMCTL_EPARSE;
			s->w_hmac = i + 1;
			n = 2;
			continue;
		}
		if (k >= TM_S_TIMEOUT && k < TM_S_CONNS_NOW) {
			/* Seconds, as the load balancer's timeouts. */
			if (tm_parse_u32(w, i + 1, tm_sid_keywords[k].name, 1,
					 TM_LB_TIMEOUT_MAX,
					 &s->timeout[k - TM_S_TIMEOUT]))
				return TMCTL_EPARSE;
			s->w_timeout[k - TM_S_TIMEOUT] = i + 1;
			n = 2;
			continue;
		}
		/* What sid show prints: read and ignored. */
		if (k == TM_S_DYN_NOW) {
			if (tm_sid_parse_milli(w, i + 1))
				return TMCTL_EPARSE;
			n = 2;
			continue;
		}
		if (tm_parse_u64(w, i + 1, tm_sid_keywords[k].name, 0,
				 k == TM_S_CONNS_NOW || k == TM_S_LOAD_NOW ?
				 UINT32_MAX : UINT64_MAX,
				 &u))
			return TMCTL_EPARSE;
		n = 2;
	}
	if (!seen[TM_S_POLICY])
		return tm_werror(w, w->argc,
				 "missing 'policy POLICY' (always, never, conns N, backlog N, load N or dyn N)");
	return 0;
}

int tm_sid_parse(const struct tm_words *w, enum tm_sid_verb verb,
		 struct tm_sid_req *s)
{
	unsigned int k;

	memset(s, 0, sizeof(*s));
	s->verb = verb;
	s->w_policy = -1;
	s->w_threshold = -1;
	s->w_hmac = -1;
	for (k = 0; k < ARRAY_SIZE(s->w_timeout); k++)
		s->w_timeout[k] = -1;
	if (tm_sid_parse_addr(w, 0, s->addr))
		return TMCTL_EPARSE;
	if (verb != TM_SID_DEL)
		return tm_sid_parse_binding(w, s);
	if (w->argc > 1)
		return tm_werror(w, 1, "unexpected '%s'", w->argv[1]);
	return 0;
}

uint8_t tm_sid_cmd(enum tm_sid_verb verb)
{
	return verb == TM_SID_ADD ? TM_CMD_SID_NEW :
	       verb == TM_SID_REPLACE ? TM_CMD_SID_SET : TM_CMD_SID_DEL;
}

void tm_sid_put(struct nlmsghdr *nlh, const struct tm_sid_req *s,
		struct tm_attr_map *map)
{
	unsigned int k;

	tm_attr_map_add(map, nlh, 0);
	mnl_attr_put(nlh, TM_A_SID_ADDR, sizeof(s->addr), s->addr);
	if (s->verb == TM_SID_DEL)
		return;
	tm_attr_map_add(map, nlh, s->w_policy);
	mnl_attr_put_u8(nlh, TM_A_SID_POLICY, s->policy);
	if (tm_sid_policy_has_threshold(s->policy)) {
		tm_attr_map_add(map, nlh, s->w_threshold);
		mnl_attr_put_u32(nlh, TM_A_SID_THRESHOLD, s->threshold);
	}
	if (s->hmac) {
		tm_attr_map_add(map, nlh, s->w_hmac);
		mnl_attr_put_u32(nlh, TM_A_SID_HMAC_KEY, s->hmac);
	}
	for (k = 0; k < ARRAY_SIZE(tm_sid_timeouts); k++) {
		if (!s->timeout[k])
			continue;
		tm_attr_map_add(map, nlh, s->w_timeout[k]);
		mnl_attr_put_u32(nlh, tm_sid_timeouts[k].attr, s->timeout[k]);
	}
}

/* Printing */

static const char *tm_sid_str(const struct nlattr **tb, char *buf,
			      size_t len)
{
	if (!tb[TM_A_SID_ADDR] ||
	    !inet_ntop(AF_INET6, mnl_attr_get_payload(tb[TM_A_SID_ADDR]), buf,
		       len))
		snprintf(buf, len, "?");
	return buf;
}

void tm_sid_text(const struct nlattr **tb, const char *verb, bool counters)
{
	const struct nlattr *a;
	char buf[INET6_ADDRSTRLEN];
	uint8_t policy;
	unsigned int k;

	printf("sid %s %s", verb, tm_sid_str(tb, buf, sizeof(buf)));
	if (!strcmp(verb, "del"))
		return;
	policy = tm_attr_u8(tb, TM_A_SID_POLICY, TM_SID_POLICY_UNSPEC);
	printf(" accept policy %s", tm_sid_policy_name(policy));
	if (tm_sid_policy_has_threshold(policy) && tb[TM_A_SID_THRESHOLD])
		printf(" %u", mnl_attr_get_u32(tb[TM_A_SID_THRESHOLD]));
	if (tb[TM_A_SID_HMAC_KEY])
		printf(" hmac %u", mnl_attr_get_u32(tb[TM_A_SID_HMAC_KEY]));
	/* Like nft, the text leaves out what is as by default. */
	for (k = 0; k < ARRAY_SIZE(tm_sid_timeouts); k++) {
		a = tb[tm_sid_timeouts[k].attr];
		if (a && mnl_attr_get_u32(a) != tm_sid_timeouts[k].dflt)
			printf(" %s %u", tm_sid_timeouts[k].name,
			       mnl_attr_get_u32(a));
	}
	if (!counters)
		return;
	if (tb[TM_A_SID_CONNS])
		printf(" conns-now %u", mnl_attr_get_u32(tb[TM_A_SID_CONNS]));
	if (tb[TM_A_SID_LOAD])
		printf(" load-now %u", mnl_attr_get_u32(tb[TM_A_SID_LOAD]));
	if (tb[TM_A_SID_DYN])
		printf(" dyn-now %u.%03u", mnl_attr_get_u32(tb[TM_A_SID_DYN]) / 1000,
		       mnl_attr_get_u32(tb[TM_A_SID_DYN]) % 1000);
	for (k = 0; k < ARRAY_SIZE(tm_sid_counters); k++)
		if (tb[tm_sid_counters[k].attr])
			printf(" %s %llu", tm_sid_counters[k].name,
			       (unsigned long long)
			       mnl_attr_get_u64(tb[tm_sid_counters[k].attr]));
}

void tm_sid_fields(const struct nlattr **tb, bool counters)
{
	char buf[INET6_ADDRSTRLEN];
	uint8_t policy;
	unsigned int k;

	tm_out_str("sid", tm_sid_str(tb, buf, sizeof(buf)));
	if (tb[TM_A_SID_POLICY]) {
		policy = mnl_attr_get_u8(tb[TM_A_SID_POLICY]);
		tm_out_str("policy", tm_sid_policy_name(policy));
		if (tm_sid_policy_has_threshold(policy) &&
		    tb[TM_A_SID_THRESHOLD])
			tm_out_u64("threshold",
				   mnl_attr_get_u32(tb[TM_A_SID_THRESHOLD]));
	}
	if (tb[TM_A_SID_HMAC_KEY])
		tm_out_u64("hmac", mnl_attr_get_u32(tb[TM_A_SID_HMAC_KEY]));
	for (k = 0; k < ARRAY_SIZE(tm_sid_timeouts); k++)
		if (tb[tm_sid_timeouts[k].attr])
			tm_out_u64(tm_sid_timeouts[k].key,
				   mnl_attr_get_u32(tb[tm_sid_timeouts[k].attr]));
	if (!counters)
		return;
	if (tb[TM_A_SID_CONNS])
		tm_out_u64("conns", mnl_attr_get_u32(tb[TM_A_SID_CONNS]));
	if (tb[TM_A_SID_LOAD])
		tm_out_u64("load", mnl_attr_get_u32(tb[TM_A_SID_LOAD]));
	if (tb[TM_A_SID_DYN])
		tm_out_u64("dyn_milli", mnl_attr_get_u32(tb[TM_A_SID_DYN]));
	for (k = 0; k < ARRAY_SIZE(tm_sid_counters); k++)
		if (tb[tm_sid_counters[k].attr])
			tm_out_u64(tm_sid_counters[k].name,
				   mnl_attr_get_u64(tb[tm_sid_counters[k].attr]));
}

void tm_sid_print(const struct nlattr **tb, bool counters)
{
	if (tmctl.json) {
		tm_out_begin_object();
		tm_sid_fields(tb, counters);
		tm_out_end_object();
		return;
	}
	tm_sid_text(tb, "add", counters);
	putchar('\n');
}

static int tm_sid_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TM_A_MAX + 1];

	if (tm_nl_parse(nlh, tb) < 0)
		return MNL_CB_ERROR;
	if (tb[TM_A_SID_ADDR])
		tm_sid_print(tb, !tmctl.no_counters);
	return MNL_CB_OK;
}

/* Commands */

/* sid add, replace and del: one request. */
static int tm_sid_change(const struct tm_words *w, enum tm_sid_verb verb)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct tm_sid_req s;
	struct nlmsghdr *nlh;

	if (tm_sid_parse(w, verb, &s))
		return TMCTL_EPARSE;
	if (tmctl.check)
		return TMCTL_OK;
	nlh = tm_nl_request(buf, tm_sid_cmd(verb), 0);
	tm_sid_put(nlh, &s, NULL);
	return tm_nl_talk(nlh, NULL, NULL, w->what);
}

static int tm_sid_add(const struct tm_words *w)
{
	return tm_sid_change(w, TM_SID_ADD);
}

static int tm_sid_replace(const struct tm_words *w)
{
	return tm_sid_change(w, TM_SID_REPLACE);
}

/* sid load SID N: the application's report, for the load policy. */
static int tm_sid_load(const struct tm_words *w)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	uint8_t addr[16];
	uint32_t load;

	if (tm_sid_parse_addr(w, 0, addr))
		return TMCTL_EPARSE;
	if (w->argc < 2)
		return tm_werror(w, 1, "missing the load N (0..%u)",
				 UINT32_MAX);
	if (tm_parse_u32(w, 1, "load", 0, UINT32_MAX, &load))
		return TMCTL_EPARSE;
	if (w->argc > 2)
		return tm_werror(w, 2, "unexpected '%s'", w->argv[2]);
	if (tmctl.check)
		return TMCTL_OK;
	nlh = tm_nl_request(buf, TM_CMD_SID_LOAD, 0);
	mnl_attr_put(nlh, TM_A_SID_ADDR, sizeof(addr), addr);
	mnl_attr_put_u32(nlh, TM_A_SID_LOAD, load);
	return tm_nl_talk(nlh, NULL, NULL, w->what);
}

static int tm_sid_del(const struct tm_words *w)
{
	return tm_sid_change(w, TM_SID_DEL);
}

/* sid show [SID]: one object for a SID, a list of them without. */
static int tm_sid_show(const struct tm_words *w)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	uint8_t addr[16];

	if (w->argc > 1)
		return tm_werror(w, 1, "unexpected '%s'", w->argv[1]);
	if (w->argc == 1 && tm_sid_parse_addr(w, 0, addr))
		return TMCTL_EPARSE;
	if (tmctl.check)
		return TMCTL_OK;
	if (w->argc) {
		nlh = tm_nl_request(buf, TM_CMD_SID_GET, 0);
		mnl_attr_put(nlh, TM_A_SID_ADDR, sizeof(addr), addr);
		return tm_nl_talk(nlh, tm_sid_cb, NULL, w->what);
	}
	nlh = tm_nl_request(buf, TM_CMD_SID_GET, NLM_F_DUMP);
	return tm_nl_list(nlh, tm_sid_cb, NULL, w->what, "SIDs");
}

int tm_do_sid(int argc, char **argv)
{
	static const struct {
		const char *name;
		const char *what;
		int (*fn)(const struct tm_words *w);
	} verbs[] = {
		{ "add", "sid add", tm_sid_add },
		{ "delete", "sid del", tm_sid_del },
		{ "load", "sid load", tm_sid_load },
		{ "replace", "sid replace", tm_sid_replace },
		{ "show", "sid show", tm_sid_show },
		{ "list", "sid list", tm_sid_show },
	};
	struct tm_words w = { .argv = argv + 1, .argc = argc - 1 };
	unsigned int i;

	if (argc < 1) {
		w.what = "sid show";
		w.argc = 0;
		return tm_sid_show(&w);
	}
	for (i = 0; i < ARRAY_SIZE(verbs); i++) {
		if (!tm_matches(argv[0], verbs[i].name))
			continue;
		w.what = verbs[i].what;
		return verbs[i].fn(&w);
	}
	return tm_parse_error("sid: unknown command '%s' (%s)", argv[0],
			      TM_SID_VERBS);
}
