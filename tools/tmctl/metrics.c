// SPDX-License-Identifier: GPL-2.0
/*
 * tmctl metrics [no-rules] [output FILE]: the tables, rules, SIDs and
 * load-balancer services of the namespace as Prometheus metrics (prom.c
 * prints them), for the node_exporter textfile collector
 * (Documentation/operations.rst).  This file owns the metric names, what
 * each reply gives them, and the command: the dumps, made again when the
 * configuration changed during them, then the output, to stdout or to a
 * file replaced in one step (a temporary file beside it, renamed).
 *
 * Names: tuplemerge_ and the object, _total for counters, _bytes for
 * bytes.  Labels: table; table, id, family, action and comment (when the
 * rule has one) for a rule; sid; service, and backend for a backend;
 * netns first with -n.  A table's, a SID's and a service's settings are
 * the labels of an _info gauge of value 1, so that the series of their
 * numbers keep their identity when a setting changes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tmctl.h"

/* Dumps made again while the configuration changes under them. */
#define TM_METRICS_TRIES	3

enum tm_metric {
	TM_M_TABLES,
	TM_M_GENERATION,
	TM_M_TABLE_INFO,
	TM_M_TABLE_RULES,
	TM_M_TABLE_MAX_RULES,
	TM_M_TABLE_TUPLES,
	TM_M_TABLE_MAX_TUPLES,
	TM_M_TABLE_MEMORY,
	TM_M_TABLE_LOOKUPS,
	TM_M_TABLE_MATCHES,
	TM_M_TABLE_PROBES,
	TM_M_RULE_PACKETS,
	TM_M_RULE_BYTES,
	TM_M_SID_INFO,
	TM_M_SID_THRESHOLD,
	TM_M_SID_CONNS,
	TM_M_SID_LOAD,
	TM_M_SID_ACCEPTED,
	TM_M_SID_PASSED,
	TM_M_SID_FORCED,
	TM_M_SID_STEERED,
	TM_M_SID_UNKNOWN,
	TM_M_SID_MALFORMED,
	TM_M_SID_REPORTS,
	TM_M_SID_HMAC_BAD,
	TM_M_SID_HMAC_NOKEY,
	TM_M_LB_INFO,
	TM_M_LB_BACKENDS,
	TM_M_LB_BACKEND_WEIGHT,
	TM_M_LB_BACKEND_ACTIVE,
	TM_M_LB_BACKEND_LEARNED,
	TM_M_LB_BACKEND_FORCED,
	TM_M_LB_BACKEND_UP,
	TM_M_LB_BACKEND_PROBES,
	TM_M_LB_BACKEND_PROBES_FAILED,
	TM_M_LB_BACKEND_TRANSITIONS,
	TM_M_LB_FLOWS,
	TM_M_LB_MAX_FLOWS,
	TM_M_LB_HUNTS,
	TM_M_LB_RECOVERIES,
	TM_M_LB_STEERED,
	TM_M_LB_REPORTS,
	TM_M_LB_LEARNED,
	TM_M_LB_EXPIRED,
	TM_M_LB_FULL,
	TM_M_LB_DROPPED,
	TM_M_LB_TOO_BIG,
	TM_M_LB_MALFORMED,
	TM_M_LB_REFUSED,
	TM_M_LB_EVICTED,
	TM_M_LB_NS_FULL,
	TM_M_LB_HMAC_BAD,
	TM_M_LB_HMAC_NOKEY,
	TM_M_MAX
};

#define TM_GAUGE(m, name, help) \
	[m] = { "tuplemerge_" name, TM_PROM_GAUGE, help }
#define TM_COUNTER(m, name, help) \
	[m] = { "tuplemerge_" name "_total", TM_PROM_COUNTER, help }

/* In the order they are printed; help as the uapi header's comments. */
static const struct tm_prom_family tm_metric_families[TM_M_MAX] = {
	TM_GAUGE(TM_M_TABLES, "tables", "Tables in the network namespace."),
	TM_GAUGE(TM_M_GENERATION, "generation",
		 "Generation of the namespace's configuration, one more at each change."),
	TM_GAUGE(TM_M_TABLE_INFO, "table_info",
		 "A table's family, hook, priority, policy and engine as labels; always 1."),
	TM_GAUGE(TM_M_TABLE_RULES, "table_rules", "Rules in the table."),
	TM_GAUGE(TM_M_TABLE_MAX_RULES, "table_max_rules",
		 "Rules the table may hold (max-rules)."),
	TM_GAUGE(TM_M_TABLE_TUPLES, "table_tuples",
		 "Tuples (hash tables) holding the table's rules."),
	TM_GAUGE(TM_M_TABLE_MAX_TUPLES, "table_max_tuples",
		 "Tuples the table may have per address family (max-tuples)."),
	TM_GAUGE(TM_M_TABLE_MEMORY, "table_memory_bytes",
		 "Memory used by the table's rules, in bytes."),
	TM_COUNTER(TM_M_TABLE_LOOKUPS, "table_lookups",
		   "Packets the table classified."),
	TM_COUNTER(TM_M_TABLE_MATCHES, "table_matches",
		   "Packets the table classified that a rule matched; the others got its policy."),
	TM_COUNTER(TM_M_TABLE_PROBES, "table_probes",
		   "Tuples probed by the table's lookups; divided by lookups, probes per packet."),
	TM_COUNTER(TM_M_RULE_PACKETS, "rule_packets",
		   "Packets the rule won."),
	TM_COUNTER(TM_M_RULE_BYTES, "rule_bytes",
		   "Bytes of the packets the rule won."),
	TM_GAUGE(TM_M_SID_INFO, "sid_info",
		 "A SID's acceptance policy as a label; always 1."),
	TM_GAUGE(TM_M_SID_THRESHOLD, "sid_threshold",
		 "The threshold N of the SID's conns, backlog or load policy."),
	TM_GAUGE(TM_M_SID_CONNS, "sid_connections",
		 "Connections the SID accepted and has not seen close."),
	TM_GAUGE(TM_M_SID_LOAD, "sid_load",
		 "The load the application last reported for the SID (sid load)."),
	TM_COUNTER(TM_M_SID_ACCEPTED, "sid_accepted",
		   "New connections the SID accepted by its policy."),
	TM_COUNTER(TM_M_SID_PASSED, "sid_passed",
		   "New connections the SID passed on to the next candidate."),
	TM_COUNTER(TM_M_SID_FORCED, "sid_forced",
		   "New connections the SID accepted as the last candidate."),
	TM_COUNTER(TM_M_SID_STEERED, "sid_steered",
		   "Packets of connections the SID knows, taken."),
	TM_COUNTER(TM_M_SID_UNKNOWN, "sid_unknown",
		   "Non-SYN packets of connections the SID does not know."),
	TM_COUNTER(TM_M_SID_MALFORMED, "sid_malformed",
		   "Packets the SID dropped for a bad SRH."),
	TM_COUNTER(TM_M_SID_REPORTS, "sid_reports",
		   "Replies the SID sent through the load balancer."),
	TM_COUNTER(TM_M_SID_HMAC_BAD, "sid_hmac_bad",
		   "Load balancer packets the SID dropped, their HMAC missing or wrong."),
	TM_COUNTER(TM_M_SID_HMAC_NOKEY, "sid_hmac_nokey",
		   "Packets the SID dropped, its HMAC key not set."),
	TM_GAUGE(TM_M_LB_INFO, "lb_info",
		 "A load-balancer service's VIP, port (0: any) and SID as labels; always 1."),
	TM_GAUGE(TM_M_LB_BACKENDS, "lb_backends",
		 "Backends (servers' SIDs) of the service."),
	TM_GAUGE(TM_M_LB_BACKEND_WEIGHT, "lb_backend_weight",
		 "The weight of a backend of the service."),
	TM_GAUGE(TM_M_LB_BACKEND_ACTIVE, "lb_backend_active_flows",
		 "Flows the service remembers whose server the backend is."),
	TM_COUNTER(TM_M_LB_BACKEND_LEARNED, "lb_backend_learned",
		   "Flows whose server the backend became since it was added."),
	TM_COUNTER(TM_M_LB_BACKEND_FORCED, "lb_backend_forced",
		   "Flows the backend took as their last candidate."),
	TM_GAUGE(TM_M_LB_BACKEND_UP, "lb_backend_up",
		 "1 when the backend's health checks find it up, 0 when down."),
	TM_COUNTER(TM_M_LB_BACKEND_PROBES, "lb_backend_probes",
		   "Health check probes sent to the backend."),
	TM_COUNTER(TM_M_LB_BACKEND_PROBES_FAILED, "lb_backend_probes_failed",
		   "Health check probes of the backend that failed."),
	TM_COUNTER(TM_M_LB_BACKEND_TRANSITIONS, "lb_backend_transitions",
		   "Times the backend went down or up."),
	TM_GAUGE(TM_M_LB_FLOWS, "lb_flows", "Flows the service remembers."),
	TM_GAUGE(TM_M_LB_MAX_FLOWS, "lb_max_flows",
		 "Flows the service may remember (max-flows)."),
	TM_COUNTER(TM_M_LB_HUNTS, "lb_hunts",
		   "New connections the service sent hunting through candidates."),
	TM_COUNTER(TM_M_LB_RECOVERIES, "lb_recoveries",
		   "Packets of flows the service did not know, sent hunting for their server."),
	TM_COUNTER(TM_M_LB_STEERED, "lb_steered",
		   "Packets the service sent to the server it learned."),
	TM_COUNTER(TM_M_LB_REPORTS, "lb_reports",
		   "Server replies the service forwarded."),
	TM_COUNTER(TM_M_LB_LEARNED, "lb_learned",
		   "Flows whose server the service learned."),
	TM_COUNTER(TM_M_LB_EXPIRED, "lb_expired",
		   "Flows the service aged out."),
	TM_COUNTER(TM_M_LB_FULL, "lb_full",
		   "Flows the service did not remember, its flow table full."),
	TM_COUNTER(TM_M_LB_DROPPED, "lb_dropped",
		   "Packets the service dropped: no backend, not its VIP or port, or no memory."),
	TM_COUNTER(TM_M_LB_TOO_BIG, "lb_too_big",
		   "Packets too big with the SRH, answered with an ICMPv6 Packet Too Big."),
	TM_COUNTER(TM_M_LB_MALFORMED, "lb_malformed",
		   "Bad reports the service dropped."),
	TM_COUNTER(TM_M_LB_REFUSED, "lb_refused",
		   "Reports the service refused (no such flow, or not from a candidate)."),
	TM_COUNTER(TM_M_LB_EVICTED, "lb_evicted",
		   "Half-open flows the service evicted for room."),
	TM_COUNTER(TM_M_LB_NS_FULL, "lb_netns_full",
		   "Flows the service did not remember, the namespace's limit reached."),
	TM_COUNTER(TM_M_LB_HMAC_BAD, "lb_hmac_bad",
		   "Reports the service dropped, their HMAC missing or wrong."),
	TM_COUNTER(TM_M_LB_HMAC_NOKEY, "lb_hmac_nokey",
		   "Packets the service dropped, its HMAC key not set."),
};

/* The u64 counters of a reply and their metrics. */
struct tm_metric_attr {
	uint16_t attr;
	uint8_t metric;
};

static const struct tm_metric_attr tm_table_counters[] = {
	{ TM_A_TABLE_LOOKUPS, TM_M_TABLE_LOOKUPS },
	{ TM_A_TABLE_MATCHES, TM_M_TABLE_MATCHES },
	{ TM_A_TABLE_PROBES, TM_M_TABLE_PROBES },
};

static const struct tm_metric_attr tm_sid_counters[] = {
	{ TM_A_SID_ACCEPTED, TM_M_SID_ACCEPTED },
	{ TM_A_SID_PASSED, TM_M_SID_PASSED },
	{ TM_A_SID_FORCED, TM_M_SID_FORCED },
	{ TM_A_SID_STEERED, TM_M_SID_STEERED },
	{ TM_A_SID_UNKNOWN, TM_M_SID_UNKNOWN },
	{ TM_A_SID_MALFORMED, TM_M_SID_MALFORMED },
	{ TM_A_SID_REPORTS, TM_M_SID_REPORTS },
	{ TM_A_SID_HMAC_BAD, TM_M_SID_HMAC_BAD },
	{ TM_A_SID_HMAC_NOKEY, TM_M_SID_HMAC_NOKEY },
};

/* A backend's; the last three with health checks only. */
static const struct tm_metric_attr tm_lb_backend_counters[] = {
	{ TM_A_LB_BACKEND_LEARNED, TM_M_LB_BACKEND_LEARNED },
	{ TM_A_LB_BACKEND_FORCED, TM_M_LB_BACKEND_FORCED },
	{ TM_A_LB_BACKEND_PROBES, TM_M_LB_BACKEND_PROBES },
	{ TM_A_LB_BACKEND_PROBES_FAILED, TM_M_LB_BACKEND_PROBES_FAILED },
	{ TM_A_LB_BACKEND_TRANSITIONS, TM_M_LB_BACKEND_TRANSITIONS },
};

static const struct tm_metric_attr tm_lb_counters[] = {
	{ TM_A_LB_HUNTS, TM_M_LB_HUNTS },
	{ TM_A_LB_RECOVERIES, TM_M_LB_RECOVERIES },
	{ TM_A_LB_STEERED, TM_M_LB_STEERED },
	{ TM_A_LB_REPORTS, TM_M_LB_REPORTS },
	{ TM_A_LB_LEARNED, TM_M_LB_LEARNED },
	{ TM_A_LB_EXPIRED, TM_M_LB_EXPIRED },
	{ TM_A_LB_FULL, TM_M_LB_FULL },
	{ TM_A_LB_DROPPED, TM_M_LB_DROPPED },
	{ TM_A_LB_TOO_BIG, TM_M_LB_TOO_BIG },
	{ TM_A_LB_MALFORMED, TM_M_LB_MALFORMED },
	{ TM_A_LB_REFUSED, TM_M_LB_REFUSED },
	{ TM_A_LB_EVICTED, TM_M_LB_EVICTED },
	{ TM_A_LB_NS_FULL, TM_M_LB_NS_FULL },
	{ TM_A_LB_HMAC_BAD, TM_M_LB_HMAC_BAD },
	{ TM_A_LB_HMAC_NOKEY, TM_M_LB_HMAC_NOKEY },
};

/* Names met so far: tables, SIDs, services. */
struct tm_names {
	char **v;
	size_t n, cap;
};

struct tm_metrics {
	struct tm_prom *prom;
	bool rules;		/* the series of each rule */
	struct tm_names tables, sids, services;
	const char *table;	/* of the rules dumped now */
	uint32_t last_id;	/* the last of its rules met */
	size_t nrules;		/* in the tables, for -v */
	uint64_t generation;
	bool changed;		/* during the dumps */
};

/* Whether @name was met; if not, it is now. */
static bool tm_names_seen(struct tm_names *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], name))
			return true;
	s->v = tm_grow(s->v, &s->cap, s->n + 1, sizeof(*s->v));
	s->v[s->n] = strdup(name);
	if (!s->v[s->n]) {
		fputs("tmctl: out of memory\n", stderr);
		exit(TMCTL_EPARSE);
	}
	s->n++;
	return false;
}

static void tm_names_free(struct tm_names *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

struct tm_metrics *tm_metrics_new(bool rules, const char *netns)
{
	struct tm_metrics *m = calloc(1, sizeof(*m));

	if (!m) {
		fputs("tmctl: out of memory\n", stderr);
		exit(TMCTL_EPARSE);
	}
	m->prom = tm_prom_new(tm_metric_families, TM_M_MAX);
	tm_prom_const_label(m->prom, "netns", netns);
	m->rules = rules;
	return m;
}

void tm_metrics_free(struct tm_metrics *m)
{
	if (!m)
		return;
	tm_prom_free(m->prom);
	tm_names_free(&m->tables);
	tm_names_free(&m->sids);
	tm_names_free(&m->services);
	free(m);
}

int tm_metrics_write(const struct tm_metrics *m, FILE *f)
{
	return tm_prom_write(m->prom, f);
}

static void tm_m_sample(struct tm_metrics *m, unsigned int metric,
			const struct tm_prom_label *l, unsigned int n,
			uint64_t val)
{
	tm_prom_sample(m->prom, metric, l, n, val);
}

static void tm_m_u32(struct tm_metrics *m, unsigned int metric,
		     const struct tm_prom_label *l, unsigned int n,
		     const struct nlattr *attr)
{
	if (attr)
		tm_m_sample(m, metric, l, n, mnl_attr_get_u32(attr));
}

static void tm_m_counters(struct tm_metrics *m, const struct nlattr **tb,
			  const struct tm_metric_attr *c, unsigned int nc,
			  const struct tm_prom_label *l, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < nc; i++)
		if (tb[c[i].attr])
			tm_m_sample(m, c[i].metric, l, n,
				    mnl_attr_get_u64(tb[c[i].attr]));
}

static const char *tm_m_name(const struct nlattr *attr,
			     const char *(*name)(unsigned int))
{
	return attr ? name(mnl_attr_get_u8(attr)) : NULL;
}

/* An IPv6 address attribute (16 bytes, tm_nl_parse() checks). */
static const char *tm_m_addr(const struct nlattr *attr, char *buf,
			     size_t len)
{
	if (!attr || !inet_ntop(AF_INET6, mnl_attr_get_payload(attr), buf,
				len))
		return NULL;
	return buf;
}

int tm_metrics_stats_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TM_A_MAX + 1];
	struct tm_metrics *m = data;

	if (tm_nl_parse(nlh, tb) < 0)
		return MNL_CB_ERROR;
	tm_m_u32(m, TM_M_TABLES, NULL, 0, tb[TM_A_NET_TABLES]);
	if (tb[TM_A_NET_GENERATION]) {
		m->generation = mnl_attr_get_u64(tb[TM_A_NET_GENERATION]);
		tm_m_sample(m, TM_M_GENERATION, NULL, 0, m->generation);
	}
	return MNL_CB_OK;
}

int tm_metrics_table_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TM_A_MAX + 1];
	struct tm_metrics *m = data;
	struct tm_prom_label l[6];
	char prio[16];
	const char *name;

	if (tm_nl_parse(nlh, tb) < 0)
		return MNL_CB_ERROR;
	if (!tb[TM_A_TABLE_NAME])
		return MNL_CB_OK;
	name = mnl_attr_get_str(tb[TM_A_TABLE_NAME]);
	if (tm_names_seen(&m->tables, name))
		return MNL_CB_OK;
	l[0] = (struct tm_prom_label){ "table", name };
	l[1] = (struct tm_prom_label){
		"family", tm_m_name(tb[TM_A_TABLE_FAMILY], tm_family_name) };
	l[2] = (struct tm_prom_label){
		"hook", tm_m_name(tb[TM_A_TABLE_HOOK], tm_hook_name) };
	l[3] = (struct tm_prom_label){ "priority", NULL };
	if (tb[TM_A_TABLE_PRIORITY]) {
		snprintf(prio, sizeof(prio), "%d",
			 (int32_t)mnl_attr_get_u32(tb[TM_A_TABLE_PRIORITY]));
		l[3].value = prio;
	}
	l[4] = (struct tm_prom_label){
		"policy", tm_m_name(tb[TM_A_TABLE_POLICY], tm_policy_name) };
	l[5] = (struct tm_prom_label){
		"engine", tm_m_name(tb[TM_A_TABLE_ENGINE], tm_engine_name) };
	tm_m_sample(m, TM_M_TABLE_INFO, l, ARRAY_SIZE(l), 1);
	tm_m_u32(m, TM_M_TABLE_RULES, l, 1, tb[TM_A_TABLE_RULES]);
	if (tb[TM_A_TABLE_RULES])
		m->nrules += mnl_attr_get_u32(tb[TM_A_TABLE_RULES]);
	tm_m_u32(m, TM_M_TABLE_MAX_RULES, l, 1, tb[TM_A_TABLE_MAX_RULES]);
	tm_m_u32(m, TM_M_TABLE_TUPLES, l, 1, tb[TM_A_TABLE_TUPLES]);
	tm_m_u32(m, TM_M_TABLE_MAX_TUPLES, l, 1, tb[TM_A_TABLE_MAX_TUPLES]);
	if (tb[TM_A_TABLE_BYTES])
		tm_m_sample(m, TM_M_TABLE_MEMORY, l, 1,
			    mnl_attr_get_u64(tb[TM_A_TABLE_BYTES]));
	tm_m_counters(m, tb, tm_table_counters, ARRAY_SIZE(tm_table_counters),
		      l, 1);
	return MNL_CB_OK;
}

void tm_metrics_rules_of(struct tm_metrics *m, const char *table)
{
	m->table = table;
	m->last_id = 0;
}

int tm_metrics_rule_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TM_A_MAX + 1];
	struct tm_metrics *m = data;
	struct tm_prom_label l[5];
	const char *comment = NULL;
	char id[16];
	uint32_t v;

	if (tm_nl_parse(nlh, tb) < 0)
		return MNL_CB_ERROR;
	if (!tb[TM_A_RULE_ID])
		return MNL_CB_OK;
	/* A dump goes by increasing id, and a restarted one goes back. */
	v = mnl_attr_get_u32(tb[TM_A_RULE_ID]);
	if (v <= m->last_id)
		return MNL_CB_OK;
	m->last_id = v;
	snprintf(id, sizeof(id), "%u", v);
	if (tb[TM_A_RULE_COMMENT] && *mnl_attr_get_str(tb[TM_A_RULE_COMMENT]))
		comment = mnl_attr_get_str(tb[TM_A_RULE_COMMENT]);
	l[0] = (struct tm_prom_label){
		"table", tb[TM_A_TABLE_NAME] ?
			 mnl_attr_get_str(tb[TM_A_TABLE_NAME]) : m->table };
	l[1] = (struct tm_prom_label){ "id", id };
	l[2] = (struct tm_prom_label){
		"family", tm_m_name(tb[TM_A_RULE_FAMILY], tm_family_name) };
	l[3] = (struct tm_prom_label){
		"action", tm_action_name(tm_attr_u8(tb, TM_A_RULE_ACTION,
						    TM_ACT_ACCEPT)) };
	l[4] = (struct tm_prom_label){ "comment", comment };
	if (tb[TM_A_RULE_PACKETS])
		tm_m_sample(m, TM_M_RULE_PACKETS, l, ARRAY_SIZE(l),
			    mnl_attr_get_u64(tb[TM_A_RULE_PACKETS]));
	if (tb[TM_A_RULE_BYTES])
		tm_m_sample(m, TM_M_RULE_BYTES, l, ARRAY_SIZE(l),
			    mnl_attr_get_u64(tb[TM_A_RULE_BYTES]));
	return MNL_CB_OK;
}

int tm_metrics_sid_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TM_A_MAX + 1];
	struct tm_metrics *m = data;
	char buf[INET6_ADDRSTRLEN];
	struct tm_prom_label l[2];
	uint8_t policy;

	if (tm_nl_parse(nlh, tb) < 0)
		return MNL_CB_ERROR;
	l[0] = (struct tm_prom_label){
		"sid", tm_m_addr(tb[TM_A_SID_ADDR], buf, sizeof(buf)) };
	if (!l[0].value || tm_names_seen(&m->sids, l[0].value))
		return MNL_CB_OK;
	if (tb[TM_A_SID_POLICY]) {
		policy = mnl_attr_get_u8(tb[TM_A_SID_POLICY]);
		l[1] = (struct tm_prom_label){
			"policy", tm_sid_policy_name(policy) };
		tm_m_sample(m, TM_M_SID_INFO, l, 2, 1);
		if (tm_sid_policy_has_threshold(policy))
			tm_m_u32(m, TM_M_SID_THRESHOLD, l, 1,
				 tb[TM_A_SID_THRESHOLD]);
	}
	tm_m_u32(m, TM_M_SID_CONNS, l, 1, tb[TM_A_SID_CONNS]);
	tm_m_u32(m, TM_M_SID_LOAD, l, 1, tb[TM_A_SID_LOAD]);
	tm_m_counters(m, tb, tm_sid_counters, ARRAY_SIZE(tm_sid_counters), l,
		      1);
	return MNL_CB_OK;
}

/*
 * The backends of service @l[0]: their weights, figures and health, and
 * how many.
 */
static void tm_m_backends(struct tm_metrics *m, const struct nlattr *nest,
			  const struct tm_prom_label *l)
{
	const struct nlattr *bt[TM_A_MAX + 1];
	struct tm_prom_label bl[2] = { l[0], { "backend", NULL } };
	char buf[INET6_ADDRSTRLEN];
	const struct nlattr *b;
	uint64_t n = 0;

	if (nest) {
		mnl_attr_for_each_nested(b, nest) {
			if (mnl_attr_get_type(b) != TM_A_LB_BACKEND ||
			    mnl_attr_validate(b, MNL_TYPE_NESTED) < 0 ||
			    tm_nl_parse_nested(b, bt) < 0)
				continue;
			bl[1].value = tm_m_addr(bt[TM_A_LB_BACKEND_SID], buf,
						sizeof(buf));
			if (!bl[1].value)
				continue;
			n++;
			tm_m_u32(m, TM_M_LB_BACKEND_WEIGHT, bl, 2,
				 bt[TM_A_LB_BACKEND_WEIGHT]);
			tm_m_u32(m, TM_M_LB_BACKEND_ACTIVE, bl, 2,
				 bt[TM_A_LB_BACKEND_ACTIVE]);
			if (bt[TM_A_LB_BACKEND_HEALTH])
				tm_m_sample(m, TM_M_LB_BACKEND_UP, bl, 2,
					    mnl_attr_get_u8(bt[TM_A_LB_BACKEND_HEALTH]) ==
					    TM_LB_HEALTH_UP);
			tm_m_counters(m, bt, tm_lb_backend_counters,
				      ARRAY_SIZE(tm_lb_backend_counters), bl, 2);
		}
	}
	tm_m_sample(m, TM_M_LB_BACKENDS, l, 1, n);
}

int tm_metrics_service_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TM_A_MAX + 1];
	char vip[INET6_ADDRSTRLEN + 4], sid[INET6_ADDRSTRLEN], port[8];
	struct tm_metrics *m = data;
	struct tm_prom_label l[4];
	const char *name;

	if (tm_nl_parse(nlh, tb) < 0)
		return MNL_CB_ERROR;
	if (!tb[TM_A_LB_NAME])
		return MNL_CB_OK;
	name = mnl_attr_get_str(tb[TM_A_LB_NAME]);
	if (tm_names_seen(&m->services, name))
		return MNL_CB_OK;
	snprintf(port, sizeof(port), "%u", tb[TM_A_LB_PORT] ?
		 mnl_attr_get_u16(tb[TM_A_LB_PORT]) : 0);
	l[0] = (struct tm_prom_label){ "service", name };
	l[1] = (struct tm_prom_label){
		"vip", tb[TM_A_LB_VIP] ? tm_lb_vip(tb, vip, sizeof(vip)) : NULL };
	l[2] = (struct tm_prom_label){ "port", port };
	l[3] = (struct tm_prom_label){
		"sid", tm_m_addr(tb[TM_A_LB_SID], sid, sizeof(sid)) };
	tm_m_sample(m, TM_M_LB_INFO, l, ARRAY_SIZE(l), 1);
	tm_m_backends(m, tb[TM_A_LB_BACKENDS], l);
	tm_m_u32(m, TM_M_LB_FLOWS, l, 1, tb[TM_A_LB_FLOWS]);
	tm_m_u32(m, TM_M_LB_MAX_FLOWS, l, 1, tb[TM_A_LB_MAX_FLOWS]);
	tm_m_counters(m, tb, tm_lb_counters, ARRAY_SIZE(tm_lb_counters), l, 1);
	return MNL_CB_OK;
}

/* The command */

/*
 * One request of the dumps.  A table deleted between the dump of the
 * tables and the dump of its rules (ENOENT, with @gone) is a change of
 * the configuration, as a dump flagged interrupted is.
 */
static int tm_metrics_talk(struct tm_metrics *m, struct nlmsghdr *nlh,
			   tm_msg_cb cb, void *data, bool gone)
{
	struct tm_nlerr err;

	if (!tm_nl_call(nlh, cb, data, &err)) {
		if (tm_nl_dump_intr)
			m->changed = true;
		return TMCTL_OK;
	}
	if (gone && err.error == ENOENT) {
		m->changed = true;
		return TMCTL_OK;
	}
	fputs("tmctl: metrics: ", stderr);
	tm_nl_print_reason(stderr, &err);
	fputc('\n', stderr);
	return TMCTL_EKERNEL;
}

static int tm_metrics_generation_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TM_A_MAX + 1];
	uint64_t *gen = data;

	if (tm_nl_parse(nlh, tb) < 0)
		return MNL_CB_ERROR;
	if (tb[TM_A_NET_GENERATION])
		*gen = mnl_attr_get_u64(tb[TM_A_NET_GENERATION]);
	return MNL_CB_OK;
}

/* Every dump once; m->changed when the configuration changed meanwhile. */
static int tm_metrics_collect(struct tm_metrics *m)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	uint64_t gen = 0;
	size_t i;
	int ret;

	nlh = tm_nl_request(buf, TM_CMD_STATS_GET, 0);
	ret = tm_metrics_talk(m, nlh, tm_metrics_stats_cb, m, false);
	if (ret)
		return ret;
	nlh = tm_nl_request(buf, TM_CMD_TABLE_GET, NLM_F_DUMP);
	ret = tm_metrics_talk(m, nlh, tm_metrics_table_cb, m, false);
	for (i = 0; !ret && m->rules && i < m->tables.n; i++) {
		nlh = tm_nl_request(buf, TM_CMD_RULE_GET, NLM_F_DUMP);
		mnl_attr_put_strz(nlh, TM_A_TABLE_NAME, m->tables.v[i]);
		tm_metrics_rules_of(m, m->tables.v[i]);
		ret = tm_metrics_talk(m, nlh, tm_metrics_rule_cb, m, true);
	}
	if (ret)
		return ret;
	nlh = tm_nl_request(buf, TM_CMD_SID_GET, NLM_F_DUMP);
	ret = tm_metrics_talk(m, nlh, tm_metrics_sid_cb, m, false);
	if (ret)
		return ret;
	nlh = tm_nl_request(buf, TM_CMD_LB_SERVICE_GET, NLM_F_DUMP);
	ret = tm_metrics_talk(m, nlh, tm_metrics_service_cb, m, false);
	if (ret)
		return ret;
	nlh = tm_nl_request(buf, TM_CMD_STATS_GET, 0);
	ret = tm_metrics_talk(m, nlh, tm_metrics_generation_cb, &gen, false);
	if (gen != m->generation)
		m->changed = true;
	return ret;
}

/*
 * @path replaced in one step: the metrics are written to a new file beside
 * it (its name and a random suffix: not *.prom, which the textfile
 * collector would read), readable by all as the umask allows, then
 * renamed over it.  No fsync: after a crash, an empty or old file is as
 * good as any, the next run writes it again.
 */
static int tm_metrics_save(const struct tm_metrics *m, const char *path)
{
	size_t len = strlen(path) + sizeof(".XXXXXX");
	char *tmp = malloc(len);
	int fd, err = TMCTL_OK;
	mode_t mask;
	FILE *f;

	if (!tmp) {
		fputs("tmctl: out of memory\n", stderr);
		exit(TMCTL_EPARSE);
	}
	snprintf(tmp, len, "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = tm_parse_error("metrics: cannot create a file beside '%s': %s",
				     path, strerror(errno));
		free(tmp);
		return err;
	}
	mask = umask(0);
	umask(mask);
	f = fdopen(fd, "w");
	if (fchmod(fd, 0666 & ~mask) < 0 || !f) {
		err = tm_parse_error("metrics: cannot write '%s': %s", tmp,
				     strerror(errno));
		if (f)
			fclose(f);
		else
			close(fd);
	} else if (tm_metrics_write(m, f) < 0) {
		err = tm_parse_error("metrics: cannot write '%s': %s", tmp,
				     strerror(errno));
		fclose(f);
	} else if (fclose(f)) {
		err = tm_parse_error("metrics: cannot write '%s': %s", tmp,
				     strerror(errno));
	} else if (rename(tmp, path) < 0) {
		err = tm_parse_error("metrics: cannot rename '%s' to '%s': %s",
				     tmp, path, strerror(errno));
	}
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}

enum {
	TM_MK_NO_RULES,
	TM_MK_OUTPUT,
	TM_MK_MAX
};

static const struct tm_keyword tm_metrics_keywords[TM_MK_MAX] = {
	[TM_MK_NO_RULES] = { "no-rules", false },
	[TM_MK_OUTPUT] = { "output", true },
};

int tm_do_metrics(int argc, char **argv)
{
	struct tm_words w = { .argv = argv, .argc = argc, .what = "metrics" };
	bool seen[TM_MK_MAX] = {};
	const char *output = NULL;
	struct tm_metrics *m;
	int i, k, tries, ret;

	if (tmctl.json)
		return tm_parse_error("metrics: Prometheus text has no JSON form: drop -j");
	if (tmctl.no_counters)
		return tm_parse_error("metrics: -s does not apply (no-rules leaves rules out)");
	for (i = 0; i < argc; i++) {
		k = tm_keyword(&w, i, tm_metrics_keywords, TM_MK_MAX);
		if (k < 0)
			return TMCTL_EPARSE;
		if (seen[k])
			return tm_werror(&w, i, "%s given twice",
					 tm_metrics_keywords[k].name);
		seen[k] = true;
		if (k == TM_MK_NO_RULES)
			continue;
		if (++i >= argc)
			return tm_werror(&w, i - 1, "'%s' needs a file",
					 argv[i - 1]);
		if (!argv[i][0])
			return tm_werror(&w, i, "output file name is empty");
		output = argv[i];
	}
	if (tmctl.check)
		return TMCTL_OK;
	/* Without the module, exit 3 here, before any file is made. */
	tm_nl_socket();
	for (tries = 1;; tries++) {
		m = tm_metrics_new(!seen[TM_MK_NO_RULES], tmctl.netns);
		ret = tm_metrics_collect(m);
		if (ret || !m->changed || tries == TM_METRICS_TRIES)
			break;
		tm_metrics_free(m);
	}
	if (!ret && m->changed)
		fprintf(stderr,
			"tmctl: metrics: the configuration changed during each of %d dumps: the metrics are of the last\n",
			TM_METRICS_TRIES);
	if (!ret && output) {
		ret = tm_metrics_save(m, output);
	} else if (!ret && tm_metrics_write(m, stdout) < 0) {
		ret = tm_parse_error("metrics: cannot write the output: %s",
				     strerror(errno));
	}
	if (!ret && tmctl.verbose)
		fprintf(stderr, "metrics: %zu tables, %zu rules, %zu SIDs, %zu services%s%s\n",
			m->tables.n, m->nrules, m->sids.n, m->services.n,
			output ? " in " : "", output ? output : "");
	tm_metrics_free(m);
	return ret;
}
