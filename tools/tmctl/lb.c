// SPDX-License-Identifier: GPL-2.0
/*
 * tmctl lb service|backend|flows: the load-balancer services of SRv6 load
 * balancing (LB side).  This file owns the words of the lb commands
 * ("service add NAME vip ADDR sid LBSID ...", "backend add NAME SID
 * [weight W]", "backend set NAME SID weight W", "flows show|flush",
 * "flows lookup NAME src ADDR sport N [dport N]"), the names of the flow
 * states, the requests they make, and the printing of services (a block
 * of lines each, a backend and its figures a line), of their flows (a line
 * each), of lookups and of their events (for monitor).
 * The rule action that sends packets to a service, "lb NAME", is rule.c's.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <string.h>

#include "tmctl.h"

/* Longest service name: a table name's. */
#define TM_LB_NAME_LEN	(TM_NAME_MAX - 1)

static const char * const tm_lb_state_names[TM_LB_FLOW_MAX + 1] = {
	[TM_LB_FLOW_HUNT] = "hunt",
	[TM_LB_FLOW_RECOVER] = "recover",
	[TM_LB_FLOW_STEER] = "steer",
	[TM_LB_FLOW_CLOSING] = "closing",
};

static const char *tm_lb_state_name(unsigned int i)
{
	return tm_name(tm_lb_state_names, ARRAY_SIZE(tm_lb_state_names), i);
}

static const char * const tm_lb_affinity_names[TM_LB_AFFINITY_MAX + 1] = {
	[TM_LB_AFFINITY_NONE] = "none",
	[TM_LB_AFFINITY_SRC] = "src",
};

/* The service's affinity, none when the kernel does not say. */
static uint8_t tm_lb_affinity(const struct nlattr **tb)
{
	return tb[TM_A_LB_AFFINITY] ? mnl_attr_get_u8(tb[TM_A_LB_AFFINITY]) :
				      TM_LB_AFFINITY_NONE;
}

static const char *tm_lb_affinity_name(uint8_t a)
{
	return tm_name(tm_lb_affinity_names, ARRAY_SIZE(tm_lb_affinity_names),
		       a);
}

static const char * const tm_lb_health_names[TM_LB_HEALTH_MAX + 1] = {
	[TM_LB_HEALTH_NONE] = "none",
	[TM_LB_HEALTH_UP] = "up",
	[TM_LB_HEALTH_DOWN] = "down",
};

static const char * const tm_lb_why_names[TM_LB_HEALTH_WHY_MAX + 1] = {
	[TM_LB_HEALTH_WHY_NONE] = "none",
	[TM_LB_HEALTH_WHY_TIMEOUT] = "timeout",
	[TM_LB_HEALTH_WHY_UNBOUND] = "unbound",
	[TM_LB_HEALTH_WHY_NO_LISTENER] = "no-listener",
	[TM_LB_HEALTH_WHY_NO_ROUTE] = "no-route",
};

/* The health of backend @bt; why its last failed probe failed. */
static const char *tm_lb_health_name(const struct nlattr **bt)
{
	return tm_name(tm_lb_health_names, ARRAY_SIZE(tm_lb_health_names),
		       tm_attr_u8(bt, TM_A_LB_BACKEND_HEALTH,
				  TM_LB_HEALTH_NONE));
}

static uint8_t tm_lb_why(const struct nlattr **bt)
{
	return tm_attr_u8(bt, TM_A_LB_BACKEND_HEALTH_WHY,
			  TM_LB_HEALTH_WHY_NONE);
}

static const char *tm_lb_why_name(const struct nlattr **bt)
{
	return tm_name(tm_lb_why_names, ARRAY_SIZE(tm_lb_why_names),
		       tm_lb_why(bt));
}

static const struct tm_keyword tm_lb_keywords[TM_LB_K_MAX] = {
	[TM_LB_K_VIP] = { "vip", true },
	[TM_LB_K_SID] = { "sid", true },
	[TM_LB_K_TCP] = { "tcp", false },
	[TM_LB_K_UDP] = { "udp", false },
	[TM_LB_K_PORT] = { "port", true },
	[TM_LB_K_AFFINITY] = { "affinity", true },
	[TM_LB_K_CHOICES] = { "choices", true },
	[TM_LB_K_TABLE_SIZE] = { "table-size", true },
	[TM_LB_K_MAX_FLOWS] = { "max-flows", true },
	[TM_LB_K_IDLE_TIMEOUT] = { "idle-timeout", true },
	[TM_LB_K_FIN_TIMEOUT] = { "fin-timeout", true },
	[TM_LB_K_SYN_TIMEOUT] = { "syn-timeout", true },
	[TM_LB_K_HMAC] = { "hmac", true },
	[TM_LB_K_HEALTH_INTERVAL] = { "health-interval", true },
	[TM_LB_K_HEALTH_TIMEOUT] = { "health-timeout", true },
	[TM_LB_K_HEALTH_RISE] = { "health-rise", true },
	[TM_LB_K_HEALTH_FALL] = { "health-fall", true },
	[TM_LB_K_HEALTH_LISTENER] = { "health-listener", false },
};

/* The types of the numbers of tm_lb_numbers. */
enum {
	TM_LB_U32,
	TM_LB_U8,
	TM_LB_MS,		/* a u32 of milliseconds, written as a time */
	TM_LB_FLAG,		/* the keyword alone: 1 when present */
};

/*
 * The numbers of a service after its port: attribute, type, range, and
 * the line of lb service show they are printed on (1 to 3).  The keyword
 * is the text's; the JSON key the same with '_', a time's with "_ms".
 */
static const struct {
	uint16_t attr;
	uint8_t type;
	uint8_t line;
	uint32_t min, max;
} tm_lb_numbers[TM_LB_K_MAX] = {
	[TM_LB_K_CHOICES] = { TM_A_LB_CHOICES, TM_LB_U8, 1, 1,
			      TM_LB_MAX_CHOICES },
	[TM_LB_K_TABLE_SIZE] = { TM_A_LB_TABLE_SIZE, TM_LB_U32, 1, 2,
				 TM_LB_TABLE_SIZE_MAX },
	[TM_LB_K_MAX_FLOWS] = { TM_A_LB_MAX_FLOWS, TM_LB_U32, 2, 1,
				TM_LB_MAX_FLOWS_LIMIT },
	[TM_LB_K_IDLE_TIMEOUT] = { TM_A_LB_IDLE_TIMEOUT, TM_LB_U32, 2, 1,
				   TM_LB_TIMEOUT_MAX },
	[TM_LB_K_FIN_TIMEOUT] = { TM_A_LB_FIN_TIMEOUT, TM_LB_U32, 2, 1,
				  TM_LB_TIMEOUT_MAX },
	[TM_LB_K_SYN_TIMEOUT] = { TM_A_LB_SYN_TIMEOUT, TM_LB_U32, 2, 1,
				  TM_LB_TIMEOUT_MAX },
	/* A seg6 HMAC key id ("ip sr hmac"): the kernel's start at 1. */
	[TM_LB_K_HMAC] = { TM_A_LB_HMAC_KEY, TM_LB_U32, 2, 1, UINT32_MAX },
	[TM_LB_K_HEALTH_INTERVAL] = { TM_A_LB_HEALTH_INTERVAL, TM_LB_MS, 3,
				      TM_LB_HEALTH_INTERVAL_MIN,
				      TM_LB_HEALTH_INTERVAL_MAX },
	/* At most the interval, checked after. */
	[TM_LB_K_HEALTH_TIMEOUT] = { TM_A_LB_HEALTH_TIMEOUT, TM_LB_MS, 3, 1,
				     TM_LB_HEALTH_INTERVAL_MAX },
	[TM_LB_K_HEALTH_RISE] = { TM_A_LB_HEALTH_RISE, TM_LB_U32, 3, 1,
				  TM_LB_HEALTH_COUNT_MAX },
	[TM_LB_K_HEALTH_FALL] = { TM_A_LB_HEALTH_FALL, TM_LB_U32, 3, 1,
				  TM_LB_HEALTH_COUNT_MAX },
	[TM_LB_K_HEALTH_LISTENER] = { TM_A_LB_HEALTH_LISTENER, TM_LB_FLAG, 3,
				      0, 0 },
};

/* The counters of a service, in the order they are printed. */
static const struct {
	const char *name;	/* text keyword; JSON key with '_' */
	uint16_t attr;		/* u64 */
} tm_lb_counters[] = {
	{ "hunts", TM_A_LB_HUNTS },
	{ "recoveries", TM_A_LB_RECOVERIES },
	{ "steered", TM_A_LB_STEERED },
	{ "reports", TM_A_LB_REPORTS },
	{ "learned", TM_A_LB_LEARNED },
	{ "expired", TM_A_LB_EXPIRED },
	{ "full", TM_A_LB_FULL },
	{ "dropped", TM_A_LB_DROPPED },
	{ "too-big", TM_A_LB_TOO_BIG },
	{ "malformed", TM_A_LB_MALFORMED },
	{ "refused", TM_A_LB_REFUSED },
	{ "evicted", TM_A_LB_EVICTED },
	{ "ns-full", TM_A_LB_NS_FULL },
	{ "hmac-bad", TM_A_LB_HMAC_BAD },
	{ "hmac-nokey", TM_A_LB_HMAC_NOKEY },
};

/* Word i is a service name. */
static int tm_lb_parse_name(const struct tm_words *w, int i)
{
	const unsigned char *s;

	if (i >= w->argc)
		return tm_werror(w, i, "missing service name");
	if (!w->argv[i][0])
		return tm_werror(w, i, "service name is empty");
	if (strlen(w->argv[i]) > TM_LB_NAME_LEN)
		return tm_werror(w, i,
				 "service name '%s' is longer than %d bytes",
				 w->argv[i], TM_LB_NAME_LEN);
	for (s = (const unsigned char *)w->argv[i]; *s; s++)
		if (*s < ' ' || *s == 0x7f)
			return tm_werror(w, i,
					 "service name has a control character");
	return 0;
}

/* Word i is an IPv6 address: @what is "VIP" or "SID", for the messages. */
static int tm_lb_parse_addr(const struct tm_words *w, int i,
			    const char *what, uint8_t *addr)
{
	const char *arg = w->argv[i];
	uint8_t v4[4];

	if (inet_pton(AF_INET6, arg, addr) == 1)
		return 0;
	if (inet_pton(AF_INET, arg, v4) == 1)
		return tm_werror(w, i, "'%s': a %s is an IPv6 address, not IPv4",
				 arg, what);
	return tm_werror(w, i, "'%s': not an IPv6 address", arg);
}

/* Word i is a VIP: an IPv6 address or prefix (ADDR/LEN, LEN 1..128). */
static int tm_lb_parse_vip(const struct tm_words *w, int i,
			   struct tm_lb_req *s)
{
	const char *arg = w->argv[i], *slash = strchr(arg, '/');
	char a[INET6_ADDRSTRLEN];
	size_t n = slash ? (size_t)(slash - arg) : strlen(arg);
	struct tm_prefix p;
	uint8_t addr[16];

	snprintf(a, sizeof(a), "%.*s", (int)n, arg);
	if (n >= sizeof(a) || inet_pton(AF_INET6, a, addr) != 1)
		return tm_werror(w, i, inet_pton(AF_INET, a, addr) == 1 ?
				 "'%s': a VIP is an IPv6 address or prefix, not IPv4" :
				 "'%s': not an IPv6 address or prefix", arg);
	if (tm_parse_prefix(w, i, true, &p))
		return TMCTL_EPARSE;
	if (!p.len)
		return tm_werror(w, i, "'%s': a VIP prefix is /1 to /128",
				 w->argv[i]);
	memcpy(s->vip, p.addr, sizeof(s->vip));
	s->vip_len = p.len;
	return 0;
}

static bool tm_lb_prime(uint32_t n)
{
	uint32_t d;

	if (n < 2)
		return false;
	for (d = 2; d <= n / d; d++)
		if (!(n % d))
			return false;
	return true;
}

/* Word i is the size of the consistent-hash table: a prime. */
static int tm_lb_parse_table_size(const struct tm_words *w, int i,
				  uint32_t *size)
{
	uint32_t next;

	if (tm_parse_u32(w, i, "table-size", 2, TM_LB_TABLE_SIZE_MAX, size))
		return TMCTL_EPARSE;
	if (tm_lb_prime(*size))
		return 0;
	/* The largest size allowed is a prime: there is a next one. */
	for (next = *size + 1; !tm_lb_prime(next); next++)
		;
	return tm_werror(w, i, "bad table-size '%s': not a prime (next prime: %u)",
			 w->argv[i], next);
}

#define TM_LB_SEEN(r, k)	((r)->word[k] >= 0)

/*
 * The health checks of lb service add: the others need health-interval,
 * and health-timeout is at most the interval (the kernel checks too).
 */
static int tm_lb_health_check(const struct tm_words *w,
			      const struct tm_lb_req *s)
{
	const int interval = TM_LB_K_HEALTH_INTERVAL;
	const int timeout = TM_LB_K_HEALTH_TIMEOUT;
	int k;

	if (!TM_LB_SEEN(s, interval)) {
		for (k = timeout; k <= TM_LB_K_HEALTH_LISTENER; k++)
			if (TM_LB_SEEN(s, k))
				return tm_werror(w, s->word[k] -
						 tm_lb_keywords[k].value,
						 "%s needs health-interval",
						 tm_lb_keywords[k].name);
		return 0;
	}
	if (TM_LB_SEEN(s, timeout) && s->val[timeout] > s->val[interval])
		return tm_werror(w, s->word[timeout],
				 "bad health-timeout '%s': longer than health-interval '%s'",
				 w->argv[s->word[timeout]],
				 w->argv[s->word[interval]]);
	return 0;
}

/* "NAME vip ADDR sid LBSID [tcp|udp] [port PORT] ..." of lb service add. */
static int tm_lb_service_parse(const struct tm_words *w, struct tm_lb_req *s)
{
	int i, k, n, v, err;
	uint8_t aff;

	for (i = 1; i < w->argc; i += n) {
		k = tm_keyword(w, i, tm_lb_keywords, TM_LB_K_MAX);
		if (k < 0)
			return TMCTL_EPARSE;
		if (TM_LB_SEEN(s, k))
			return tm_werror(w, i, "%s given twice",
					 tm_lb_keywords[k].name);
		if ((k == TM_LB_K_TCP && TM_LB_SEEN(s, TM_LB_K_UDP)) ||
		    (k == TM_LB_K_UDP && TM_LB_SEEN(s, TM_LB_K_TCP)))
			return tm_werror(w, i,
					 "a service is either tcp or udp");
		s->word[k] = i;
		n = tm_lb_keywords[k].value ? 2 : 1;
		if (n == 1)
			continue;
		if (i + 1 >= w->argc)
			return tm_werror(w, i, "'%s' needs a value",
					 w->argv[i]);
		v = i + 1;
		s->word[k] = v;
		switch (k) {
		case TM_LB_K_VIP:
			err = tm_lb_parse_vip(w, v, s);
			break;
		case TM_LB_K_SID:
			err = tm_lb_parse_addr(w, v, "SID", s->sid);
			break;
		case TM_LB_K_PORT:
			err = tm_parse_u32(w, v, "port", 0, 65535, &s->val[k]);
			break;
		case TM_LB_K_AFFINITY:
			err = tm_parse_name(w, v, "affinity", tm_lb_affinity_names,
					    0, TM_LB_AFFINITY_MAX, &aff);
			s->val[k] = aff;
			break;
		case TM_LB_K_TABLE_SIZE:
			err = tm_lb_parse_table_size(w, v, &s->val[k]);
			break;
		case TM_LB_K_HEALTH_INTERVAL:
		case TM_LB_K_HEALTH_TIMEOUT:
			err = tm_parse_ms(w, v, tm_lb_keywords[k].name,
					  tm_lb_numbers[k].min,
					  tm_lb_numbers[k].max, &s->val[k]);
			break;
		default:
			err = tm_parse_u32(w, v, tm_lb_keywords[k].name,
					   tm_lb_numbers[k].min,
					   tm_lb_numbers[k].max, &s->val[k]);
			break;
		}
		if (err)
			return TMCTL_EPARSE;
	}
	if (!TM_LB_SEEN(s, TM_LB_K_VIP))
		return tm_werror(w, w->argc,
				 "missing 'vip ADDR' (the service's IPv6 address)");
	if (!TM_LB_SEEN(s, TM_LB_K_SID))
		return tm_werror(w, w->argc,
				 "missing 'sid LBSID' (the load balancer's own SID)");
	return tm_lb_health_check(w, s);
}

/*
 * NAME SID [weight W] of lb backend add, NAME SID weight W of lb backend
 * set, NAME SID of lb backend del.  Weight 0 drains the backend.
 */
static int tm_lb_backend_parse(const struct tm_words *w, struct tm_lb_req *r)
{
	static const struct tm_keyword kw[] = { { "weight", true } };
	bool add = r->verb != TM_LB_BACKEND_DEL;
	int i;

	if (w->argc < 2)
		return tm_werror(w, 1, "missing backend SID (an IPv6 address)");
	if (tm_lb_parse_addr(w, 1, "SID", r->sid))
		return TMCTL_EPARSE;
	for (i = 2; i < w->argc; i += 2) {
		if (!add)
			return tm_werror(w, i, "unexpected '%s'", w->argv[i]);
		if (tm_keyword(w, i, kw, ARRAY_SIZE(kw)) < 0)
			return TMCTL_EPARSE;
		if (r->w_weight >= 0)
			return tm_werror(w, i, "weight given twice");
		if (i + 1 >= w->argc)
			return tm_werror(w, i, "'%s' needs a value",
					 w->argv[i]);
		if (tm_parse_u32(w, i + 1, "weight", 0, TM_LB_WEIGHT_MAX,
				 &r->weight))
			return TMCTL_EPARSE;
		r->w_weight = i + 1;
	}
	if (r->verb == TM_LB_BACKEND_SET && r->w_weight < 0)
		return tm_werror(w, w->argc,
				 "missing 'weight W' (0 drains the backend)");
	return 0;
}

int tm_lb_parse(const struct tm_words *w, enum tm_lb_verb verb,
		struct tm_lb_req *r)
{
	int k;

	memset(r, 0, sizeof(*r));
	r->verb = verb;
	for (k = 0; k < TM_LB_K_MAX; k++)
		r->word[k] = -1;
	r->w_weight = -1;
	if (tm_lb_parse_name(w, 0))
		return TMCTL_EPARSE;
	r->name = w->argv[0];
	switch (verb) {
	case TM_LB_SERVICE_ADD:
		return tm_lb_service_parse(w, r);
	case TM_LB_SERVICE_DEL:
		if (w->argc > 1)
			return tm_werror(w, 1, "unexpected '%s'", w->argv[1]);
		return 0;
	default:
		return tm_lb_backend_parse(w, r);
	}
}

uint8_t tm_lb_cmd(enum tm_lb_verb verb)
{
	static const uint8_t cmd[] = {
		[TM_LB_SERVICE_ADD] = TM_CMD_LB_SERVICE_NEW,
		[TM_LB_SERVICE_DEL] = TM_CMD_LB_SERVICE_DEL,
		[TM_LB_BACKEND_ADD] = TM_CMD_LB_BACKEND_NEW,
		[TM_LB_BACKEND_DEL] = TM_CMD_LB_BACKEND_DEL,
		[TM_LB_BACKEND_SET] = TM_CMD_LB_BACKEND_SET,
	};

	return cmd[verb];
}

/* Only what was given is sent: the defaults are the kernel's. */
void tm_lb_put(struct nlmsghdr *nlh, const struct tm_lb_req *r,
	       struct tm_attr_map *map)
{
	int k;

	tm_attr_map_add(map, nlh, 0);
	mnl_attr_put_strz(nlh, TM_A_LB_NAME, r->name);
	if (r->verb == TM_LB_SERVICE_DEL)
		return;
	if (r->verb != TM_LB_SERVICE_ADD) {
		tm_attr_map_add(map, nlh, 1);
		mnl_attr_put(nlh, TM_A_LB_BACKEND_SID, sizeof(r->sid), r->sid);
		if (r->w_weight >= 0) {
			tm_attr_map_add(map, nlh, r->w_weight);
			mnl_attr_put_u32(nlh, TM_A_LB_BACKEND_WEIGHT,
					 r->weight);
		}
		return;
	}
	tm_attr_map_add(map, nlh, r->word[TM_LB_K_VIP]);
	mnl_attr_put(nlh, TM_A_LB_VIP, sizeof(r->vip), r->vip);
	if (r->vip_len < 128)
		mnl_attr_put_u8(nlh, TM_A_LB_VIP_LEN, r->vip_len);
	if (TM_LB_SEEN(r, TM_LB_K_TCP)) {
		tm_attr_map_add(map, nlh, r->word[TM_LB_K_TCP]);
		mnl_attr_put_u8(nlh, TM_A_LB_PROTO, IPPROTO_TCP);
	}
	if (TM_LB_SEEN(r, TM_LB_K_UDP)) {
		tm_attr_map_add(map, nlh, r->word[TM_LB_K_UDP]);
		mnl_attr_put_u8(nlh, TM_A_LB_PROTO, IPPROTO_UDP);
	}
	if (TM_LB_SEEN(r, TM_LB_K_PORT)) {
		tm_attr_map_add(map, nlh, r->word[TM_LB_K_PORT]);
		mnl_attr_put_u16(nlh, TM_A_LB_PORT,
				 (uint16_t)r->val[TM_LB_K_PORT]);
	}
	if (TM_LB_SEEN(r, TM_LB_K_AFFINITY)) {
		tm_attr_map_add(map, nlh, r->word[TM_LB_K_AFFINITY]);
		mnl_attr_put_u8(nlh, TM_A_LB_AFFINITY,
				(uint8_t)r->val[TM_LB_K_AFFINITY]);
	}
	tm_attr_map_add(map, nlh, r->word[TM_LB_K_SID]);
	mnl_attr_put(nlh, TM_A_LB_SID, sizeof(r->sid), r->sid);
	for (k = TM_LB_K_CHOICES; k < TM_LB_K_MAX; k++) {
		if (!TM_LB_SEEN(r, k))
			continue;
		tm_attr_map_add(map, nlh, r->word[k]);
		if (tm_lb_numbers[k].type == TM_LB_U8)
			mnl_attr_put_u8(nlh, tm_lb_numbers[k].attr,
					(uint8_t)r->val[k]);
		else if (tm_lb_numbers[k].type == TM_LB_FLAG)
			mnl_attr_put(nlh, tm_lb_numbers[k].attr, 0, NULL);
		else
			mnl_attr_put_u32(nlh, tm_lb_numbers[k].attr,
					 r->val[k]);
	}
}

/* Printing */

static const char *tm_lb_addr(const struct nlattr *attr, char *buf,
			      size_t len)
{
	/* tm_nl_parse() keeps 16-byte addresses only. */
	if (!attr || !inet_ntop(AF_INET6, mnl_attr_get_payload(attr), buf,
				len))
		snprintf(buf, len, "?");
	return buf;
}

const char *tm_lb_vip(const struct nlattr **tb, char *buf, size_t len)
{
	size_t n;

	tm_lb_addr(tb[TM_A_LB_VIP], buf, len);
	n = strlen(buf);
	if (tb[TM_A_LB_VIP_LEN] && mnl_attr_get_u8(tb[TM_A_LB_VIP_LEN]) < 128)
		snprintf(buf + n, len - n, "/%u",
			 mnl_attr_get_u8(tb[TM_A_LB_VIP_LEN]));
	return buf;
}

static const char *tm_lb_name(const struct nlattr **tb, const char *name)
{
	if (tb[TM_A_LB_NAME])
		return mnl_attr_get_str(tb[TM_A_LB_NAME]);
	return name ? name : "?";
}

static uint8_t tm_lb_proto(const struct nlattr **tb)
{
	return tm_attr_u8(tb, TM_A_LB_PROTO, IPPROTO_TCP);
}

static uint16_t tm_lb_port(const struct nlattr **tb)
{
	return tb[TM_A_LB_PORT] ? mnl_attr_get_u16(tb[TM_A_LB_PORT]) : 0;
}

/* A number of tm_lb_numbers, present in tb. */
static uint32_t tm_lb_number(const struct nlattr **tb, int k)
{
	const struct nlattr *attr = tb[tm_lb_numbers[k].attr];

	switch (tm_lb_numbers[k].type) {
	case TM_LB_U8:
		return mnl_attr_get_u8(attr);
	case TM_LB_FLAG:
		return 1;
	default:
		return mnl_attr_get_u32(attr);
	}
}

/* "KEY" after @sep for the first of a line, after a blank else. */
static void tm_lb_text_key(bool *any, const char *sep, const char *key)
{
	printf("%s%s", *any ? " " : sep, key);
	*any = true;
}

/* "KEY N", as tm_lb_text_key() places it. */
static void tm_lb_text_pair(bool *any, const char *sep, const char *key,
			    unsigned long long val)
{
	tm_lb_text_key(any, sep, key);
	printf(" %llu", val);
}

/*
 * The numbers of tm_lb_numbers present in tb and printed on @line (0:
 * all), the first after @sep, as lb service add takes them; whether any
 * was.
 */
static bool tm_lb_text_numbers(const struct nlattr **tb, unsigned int line,
			       const char *sep)
{
	bool any = false;
	char buf[16];
	int k;

	for (k = TM_LB_K_CHOICES; k < TM_LB_K_MAX; k++) {
		if (!tb[tm_lb_numbers[k].attr] ||
		    (line && tm_lb_numbers[k].line != line))
			continue;
		tm_lb_text_key(&any, sep, tm_lb_keywords[k].name);
		if (tm_lb_numbers[k].type == TM_LB_MS)
			printf(" %s", tm_ms_str(tm_lb_number(tb, k), buf,
						sizeof(buf)));
		else if (tm_lb_numbers[k].type != TM_LB_FLAG)
			printf(" %u", tm_lb_number(tb, k));
	}
	return any;
}

/*
 * The backends of a service or the candidates of a lookup: fn on each
 * TM_A_LB_BACKEND of @nest, with @arg passed on.
 */
static void tm_lb_each_backend(const struct nlattr **tb,
			       const struct nlattr *nest, void *arg,
			       void (*fn)(const struct nlattr **tb,
					  const struct nlattr **bt,
					  void *arg))
{
	const struct nlattr *bt[TM_A_MAX + 1];
	const struct nlattr *b;

	if (!nest)
		return;
	mnl_attr_for_each_nested(b, nest) {
		if (mnl_attr_get_type(b) != TM_A_LB_BACKEND ||
		    mnl_attr_validate(b, MNL_TYPE_NESTED) < 0 ||
		    tm_nl_parse_nested(b, bt) < 0 ||
		    !bt[TM_A_LB_BACKEND_SID])
			continue;
		fn(tb, bt, arg);
	}
}

/*
 * The figures of a backend: their keyword (and JSON key, unless it has
 * its own) and attribute; the last three with health checks only.
 */
static const struct {
	const char *name;
	uint16_t attr;		/* TM_A_LB_BACKEND_ACTIVE is a u32 */
	const char *key;
} tm_lb_backend_figures[] = {
	{ "flows", TM_A_LB_BACKEND_ACTIVE, NULL },
	{ "learned", TM_A_LB_BACKEND_LEARNED, NULL },
	{ "forced", TM_A_LB_BACKEND_FORCED, NULL },
	{ "probes", TM_A_LB_BACKEND_PROBES, NULL },
	{ "failed", TM_A_LB_BACKEND_PROBES_FAILED, "probes-failed" },
	{ "transitions", TM_A_LB_BACKEND_TRANSITIONS, NULL },
};

static uint64_t tm_lb_backend_figure(const struct nlattr **bt, unsigned int k)
{
	const struct nlattr *a = bt[tm_lb_backend_figures[k].attr];

	if (tm_lb_backend_figures[k].attr == TM_A_LB_BACKEND_ACTIVE)
		return mnl_attr_get_u32(a);
	return mnl_attr_get_u64(a);
}

/* A backend's state: draining (weight 0, no new flow) or active. */
static const char *tm_lb_backend_state(const struct nlattr **bt)
{
	return bt[TM_A_LB_BACKEND_WEIGHT] &&
	       !mnl_attr_get_u32(bt[TM_A_LB_BACKEND_WEIGHT]) ? "draining" :
							      "active";
}

/* " up|down [why WHY]": a backend's health, why a probe failed if one did. */
static void tm_lb_health_text(const struct nlattr **bt)
{
	printf(" %s", tm_lb_health_name(bt));
	if (tm_lb_why(bt) != TM_LB_HEALTH_WHY_NONE)
		printf(" why %s", tm_lb_why_name(bt));
}

/* The same as the keys health and health_why. */
static void tm_lb_health_fields(const struct nlattr **bt)
{
	tm_out_str("health", tm_lb_health_name(bt));
	tm_out_str("health-why", tm_lb_why_name(bt));
}

/* A backend line; *@figures: with its state, health and counters. */
static void tm_lb_backend_line(const struct nlattr **tb,
			       const struct nlattr **bt, void *figures)
{
	char buf[INET6_ADDRSTRLEN];
	unsigned int k;

	printf("\tbackend %s",
	       tm_lb_addr(bt[TM_A_LB_BACKEND_SID], buf, sizeof(buf)));
	if (bt[TM_A_LB_BACKEND_WEIGHT])
		printf(" weight %u",
		       mnl_attr_get_u32(bt[TM_A_LB_BACKEND_WEIGHT]));
	if (*(bool *)figures) {
		printf(" state %s", tm_lb_backend_state(bt));
		if (bt[TM_A_LB_BACKEND_HEALTH]) {
			fputs(" health", stdout);
			tm_lb_health_text(bt);
		}
		for (k = 0; k < ARRAY_SIZE(tm_lb_backend_figures); k++)
			if (bt[tm_lb_backend_figures[k].attr])
				printf(" %s %" PRIu64,
				       tm_lb_backend_figures[k].name,
				       tm_lb_backend_figure(bt, k));
	}
	putchar('\n');
}

/* A backend object; *@figures: with its state, health and counters. */
static void tm_lb_backend_object(const struct nlattr **tb,
				 const struct nlattr **bt, void *figures)
{
	char buf[INET6_ADDRSTRLEN];
	unsigned int k;

	tm_out_begin_object();
	tm_out_str("sid", tm_lb_addr(bt[TM_A_LB_BACKEND_SID], buf,
				     sizeof(buf)));
	if (bt[TM_A_LB_BACKEND_WEIGHT])
		tm_out_u64("weight",
			   mnl_attr_get_u32(bt[TM_A_LB_BACKEND_WEIGHT]));
	if (*(bool *)figures) {
		tm_out_str("state", tm_lb_backend_state(bt));
		if (bt[TM_A_LB_BACKEND_HEALTH])
			tm_lb_health_fields(bt);
		for (k = 0; k < ARRAY_SIZE(tm_lb_backend_figures); k++)
			if (bt[tm_lb_backend_figures[k].attr])
				tm_out_u64(tm_lb_backend_figures[k].key ?:
					   tm_lb_backend_figures[k].name,
					   tm_lb_backend_figure(bt, k));
	}
	tm_out_end_object();
}

/*
 * lb service show, one block per service:
 *	service NAME vip ADDR tcp port PORT sid LBSID affinity A choices K
 *		table-size N
 *		max-flows N idle-timeout S fin-timeout S syn-timeout S
 *		[hmac KEYID]
 *		[health-interval T health-timeout T health-rise N
 *		health-fall N [health-listener]]
 *		backend SID weight W [state STATE [health up|down [why WHY]]
 *		flows N learned N forced N [probes N failed N transitions N]]
 *						(one per backend; the state
 *						and figures unless -s)
 *		flows N hunts N ... ns-full N	(unless -s)
 */
static void tm_lb_service_block(const struct nlattr **tb, bool counters)
{
	char buf[INET6_ADDRSTRLEN], vbuf[INET6_ADDRSTRLEN + 4], pbuf[8];
	uint16_t port = tm_lb_port(tb);
	bool any = false;
	unsigned int k;

	fputs("service ", stdout);
	tm_print_word(stdout, tm_lb_name(tb, NULL));
	printf(" vip %s", tm_lb_vip(tb, vbuf, sizeof(vbuf)));
	printf(" %s", tm_proto_name(tm_lb_proto(tb), pbuf, sizeof(pbuf)));
	if (port)
		printf(" port %u", port);
	else
		fputs(" port any", stdout);
	printf(" sid %s", tm_lb_addr(tb[TM_A_LB_SID], buf, sizeof(buf)));
	if (tb[TM_A_LB_AFFINITY])
		printf(" affinity %s", tm_lb_affinity_name(tm_lb_affinity(tb)));
	tm_lb_text_numbers(tb, 1, " ");
	putchar('\n');
	if (tm_lb_text_numbers(tb, 2, "\t"))
		putchar('\n');
	if (tm_lb_text_numbers(tb, 3, "\t"))
		putchar('\n');
	tm_lb_each_backend(tb, tb[TM_A_LB_BACKENDS], &counters,
			   tm_lb_backend_line);
	if (!counters)
		return;
	if (tb[TM_A_LB_FLOWS])
		tm_lb_text_pair(&any, "\t", "flows",
				mnl_attr_get_u32(tb[TM_A_LB_FLOWS]));
	if (tb[TM_A_LB_TABLES])
		tm_lb_text_pair(&any, "\t", "tables",
				mnl_attr_get_u32(tb[TM_A_LB_TABLES]));
	for (k = 0; k < ARRAY_SIZE(tm_lb_counters); k++)
		if (tb[tm_lb_counters[k].attr])
			tm_lb_text_pair(&any, "\t", tm_lb_counters[k].name,
					mnl_attr_get_u64(tb[tm_lb_counters[k].attr]));
	if (any)
		putchar('\n');
}

/* The fields of a service; "backends" always with @backends. */
static void tm_lb_fields(const struct nlattr **tb, bool counters,
			 bool backends)
{
	char buf[INET6_ADDRSTRLEN], vbuf[INET6_ADDRSTRLEN + 4], pbuf[8], key[32];
	unsigned int k;

	tm_out_str("name", tm_lb_name(tb, NULL));
	if (tb[TM_A_LB_VIP])
		tm_out_str("vip", tm_lb_vip(tb, vbuf, sizeof(vbuf)));
	if (tb[TM_A_LB_PROTO] || backends)
		tm_out_str("proto", tm_proto_name(tm_lb_proto(tb), pbuf,
						  sizeof(pbuf)));
	if (tb[TM_A_LB_PORT] || backends)
		tm_out_u64("port", tm_lb_port(tb));
	if (tb[TM_A_LB_SID])
		tm_out_str("sid", tm_lb_addr(tb[TM_A_LB_SID], buf,
					     sizeof(buf)));
	if (tb[TM_A_LB_AFFINITY])
		tm_out_str("affinity", tm_lb_affinity_name(tm_lb_affinity(tb)));
	for (k = TM_LB_K_CHOICES; k < TM_LB_K_MAX; k++) {
		/* A flag, with the health checks: false when absent. */
		if (tm_lb_numbers[k].type == TM_LB_FLAG) {
			if (tb[TM_A_LB_HEALTH_INTERVAL])
				tm_out_bool(tm_lb_keywords[k].name,
					    tb[tm_lb_numbers[k].attr]);
			continue;
		}
		if (!tb[tm_lb_numbers[k].attr])
			continue;
		snprintf(key, sizeof(key), "%s%s", tm_lb_keywords[k].name,
			 tm_lb_numbers[k].type == TM_LB_MS ? "-ms" : "");
		tm_out_u64(key, tm_lb_number(tb, k));
	}
	if (tb[TM_A_LB_BACKENDS] || backends) {
		tm_out_begin_array("backends");
		tm_lb_each_backend(tb, tb[TM_A_LB_BACKENDS], &counters,
				   tm_lb_backend_object);
		tm_out_end_array();
	}
	if (!counters)
		return;
	if (tb[TM_A_LB_FLOWS])
		tm_out_u64("flows", mnl_attr_get_u32(tb[TM_A_LB_FLOWS]));
	if (tb[TM_A_LB_TABLES])
		tm_out_u64("tables", mnl_attr_get_u32(tb[TM_A_LB_TABLES]));
	for (k = 0; k < ARRAY_SIZE(tm_lb_counters); k++)
		if (tb[tm_lb_counters[k].attr])
			tm_out_u64(tm_lb_counters[k].name,
				   mnl_attr_get_u64(tb[tm_lb_counters[k].attr]));
}

void tm_lb_service_fields(const struct nlattr **tb, bool counters)
{
	tm_lb_fields(tb, counters, false);
}

void tm_lb_service_text(const struct nlattr **tb, const char *verb)
{
	char buf[INET6_ADDRSTRLEN], vbuf[INET6_ADDRSTRLEN + 4], pbuf[8];

	printf("lb service %s ", verb);
	tm_print_word(stdout, tm_lb_name(tb, NULL));
	if (!strcmp(verb, "del"))
		return;
	printf(" vip %s", tm_lb_vip(tb, vbuf, sizeof(vbuf)));
	printf(" sid %s", tm_lb_addr(tb[TM_A_LB_SID], buf, sizeof(buf)));
	printf(" %s", tm_proto_name(tm_lb_proto(tb), pbuf, sizeof(pbuf)));
	if (tb[TM_A_LB_PORT])
		printf(" port %u", tm_lb_port(tb));
	if (tb[TM_A_LB_AFFINITY])
		printf(" affinity %s", tm_lb_affinity_name(tm_lb_affinity(tb)));
	tm_lb_text_numbers(tb, 0, " ");
}

void tm_lb_backend_text(const struct nlattr **tb, const char *verb)
{
	char buf[INET6_ADDRSTRLEN];

	printf("lb backend %s ", verb);
	tm_print_word(stdout, tm_lb_name(tb, NULL));
	printf(" %s", tm_lb_addr(tb[TM_A_LB_BACKEND_SID], buf, sizeof(buf)));
	if (!strcmp(verb, "health"))
		tm_lb_health_text(tb);
	else if (strcmp(verb, "del") && tb[TM_A_LB_BACKEND_WEIGHT])
		printf(" weight %u",
		       mnl_attr_get_u32(tb[TM_A_LB_BACKEND_WEIGHT]));
}

/* "lb backend add NAME SID weight W" for a backend @bt of service @tb. */
static void tm_lb_backend_save(const struct nlattr **tb,
			       const struct nlattr **bt, void *arg)
{
	char buf[INET6_ADDRSTRLEN];

	fputs("lb backend add ", stdout);
	tm_print_word(stdout, tm_lb_name(tb, NULL));
	printf(" %s", tm_lb_addr(bt[TM_A_LB_BACKEND_SID], buf, sizeof(buf)));
	if (bt[TM_A_LB_BACKEND_WEIGHT])
		printf(" weight %u",
		       mnl_attr_get_u32(bt[TM_A_LB_BACKEND_WEIGHT]));
	putchar('\n');
}

void tm_lb_service_save(const struct nlattr **tb)
{
	if (tmctl.json) {
		tm_out_begin_object();
		tm_lb_fields(tb, false, true);
		tm_out_end_object();
		return;
	}
	tm_lb_service_text(tb, "add");
	putchar('\n');
	tm_lb_each_backend(tb, tb[TM_A_LB_BACKENDS], NULL,
			   tm_lb_backend_save);
}

void tm_lb_backend_fields(const struct nlattr **tb)
{
	char buf[INET6_ADDRSTRLEN];

	tm_lb_fields(tb, false, false);
	tm_out_str("backend", tm_lb_addr(tb[TM_A_LB_BACKEND_SID], buf,
					 sizeof(buf)));
	if (tb[TM_A_LB_BACKEND_WEIGHT])
		tm_out_u64("weight",
			   mnl_attr_get_u32(tb[TM_A_LB_BACKEND_WEIGHT]));
	if (tb[TM_A_LB_BACKEND_HEALTH])
		tm_lb_health_fields(tb);
}

static int tm_lb_service_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TM_A_MAX + 1];
	bool counters = !tmctl.no_counters;

	if (tm_nl_parse(nlh, tb) < 0)
		return MNL_CB_ERROR;
	if (!tb[TM_A_LB_NAME])
		return MNL_CB_OK;
	if (!tmctl.json) {
		tm_lb_service_block(tb, counters);
		return MNL_CB_OK;
	}
	tm_out_begin_object();
	tm_lb_fields(tb, counters, true);
	tm_out_end_object();
	return MNL_CB_OK;
}

/* A candidate of a lookup; *@none: none printed before it yet. */
static void tm_lb_candidate(const struct nlattr **tb,
			    const struct nlattr **bt, void *none)
{
	char buf[INET6_ADDRSTRLEN];

	tm_lb_addr(bt[TM_A_LB_BACKEND_SID], buf, sizeof(buf));
	if (tmctl.json)
		tm_out_str(NULL, buf);
	else
		printf("%s%s", *(bool *)none ? "" : ",", buf);
	*(bool *)none = false;
}

/* The candidates of a lookup, in order: an array, or SID,SID|-. */
static void tm_lb_candidates(const struct nlattr **tb)
{
	bool none = true;

	if (tmctl.json)
		tm_out_begin_array("candidates");
	else
		fputs(" candidates ", stdout);
	tm_lb_each_backend(tb, tb[TM_A_LB_FLOW_CANDIDATES], &none,
			   tm_lb_candidate);
	if (tmctl.json)
		tm_out_end_array();
	else if (none)
		putchar('-');
}

/*
 * lb flows show, one line per flow, and lb flows lookup, one line with
 * the candidates, and "state none server - idle -" for a flow the load
 * balancer does not remember:
 *	NAME client ADDR cport N vip ADDR vport N [candidates SID[,SID...]|-]
 *		state STATE server ADDR|- idle NNNms
 */
static int tm_lb_flow_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TM_A_MAX + 1];
	char client[INET6_ADDRSTRLEN], server[INET6_ADDRSTRLEN];
	char vip[INET6_ADDRSTRLEN];
	const char *state = NULL;
	uint16_t cport, vport;

	if (tm_nl_parse(nlh, tb) < 0)
		return MNL_CB_ERROR;
	if (!tb[TM_A_LB_FLOW_CLIENT])
		return MNL_CB_OK;
	tm_lb_addr(tb[TM_A_LB_FLOW_CLIENT], client, sizeof(client));
	tm_lb_addr(tb[TM_A_LB_FLOW_SERVER], server, sizeof(server));
	tm_lb_addr(tb[TM_A_LB_FLOW_VIP], vip, sizeof(vip));
	cport = tb[TM_A_LB_FLOW_CPORT] ?
		mnl_attr_get_u16(tb[TM_A_LB_FLOW_CPORT]) : 0;
	vport = tb[TM_A_LB_FLOW_VPORT] ?
		mnl_attr_get_u16(tb[TM_A_LB_FLOW_VPORT]) : 0;
	if (tb[TM_A_LB_FLOW_STATE])
		state = tm_lb_state_name(mnl_attr_get_u8(tb[TM_A_LB_FLOW_STATE]));
	if (!tmctl.json) {
		tm_print_word(stdout, tm_lb_name(tb, data));
		printf(" client %s cport %u vip %s vport %u", client, cport, vip,
		       vport);
		if (tb[TM_A_LB_FLOW_CANDIDATES])
			tm_lb_candidates(tb);
		printf(" state %s server %s", state ?: "none",
		       tb[TM_A_LB_FLOW_SERVER] ? server : "-");
		if (tb[TM_A_LB_FLOW_IDLE])
			printf(" idle %ums\n",
			       mnl_attr_get_u32(tb[TM_A_LB_FLOW_IDLE]));
		else
			fputs(" idle -\n", stdout);
		return MNL_CB_OK;
	}
	tm_out_begin_object();
	tm_out_str("service", tm_lb_name(tb, data));
	tm_out_str("client", client);
	tm_out_u64("cport", cport);
	tm_out_str("vip", vip);
	tm_out_u64("vport", vport);
	if (tb[TM_A_LB_FLOW_CANDIDATES])
		tm_lb_candidates(tb);
	if (state)
		tm_out_str("state", state);
	else
		tm_out_null("state");
	if (tb[TM_A_LB_FLOW_SERVER])
		tm_out_str("server", server);
	else
		tm_out_null("server");
	if (tb[TM_A_LB_FLOW_IDLE])
		tm_out_u64("idle-ms", mnl_attr_get_u32(tb[TM_A_LB_FLOW_IDLE]));
	else
		tm_out_null("idle-ms");
	tm_out_end_object();
	return MNL_CB_OK;
}

/* Commands */

/* A request naming service word i of @w: NAME only. */
static struct nlmsghdr *tm_lb_request(char *buf, uint8_t cmd,
				      uint16_t flags,
				      const struct tm_words *w, int i)
{
	struct nlmsghdr *nlh = tm_nl_request(buf, cmd, flags);

	mnl_attr_put_strz(nlh, TM_A_LB_NAME, w->argv[i]);
	return nlh;
}

/* lb service add|del, lb backend add|del: one request. */
static int tm_lb_change(const struct tm_words *w, enum tm_lb_verb verb)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct tm_lb_req r;
	struct nlmsghdr *nlh;

	if (tm_lb_parse(w, verb, &r))
		return TMCTL_EPARSE;
	if (tmctl.check)
		return TMCTL_OK;
	nlh = tm_nl_request(buf, tm_lb_cmd(verb), 0);
	tm_lb_put(nlh, &r, NULL);
	return tm_nl_talk(nlh, NULL, NULL, w->what);
}

static int tm_lb_service_add(const struct tm_words *w)
{
	return tm_lb_change(w, TM_LB_SERVICE_ADD);
}

/* NAME alone: lb flows flush. */
static int tm_lb_name_only(const struct tm_words *w, uint8_t cmd)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;

	if (tm_lb_parse_name(w, 0))
		return TMCTL_EPARSE;
	if (w->argc > 1)
		return tm_werror(w, 1, "unexpected '%s'", w->argv[1]);
	if (tmctl.check)
		return TMCTL_OK;
	nlh = tm_lb_request(buf, cmd, 0, w, 0);
	return tm_nl_talk(nlh, NULL, NULL, w->what);
}

static int tm_lb_service_del(const struct tm_words *w)
{
	return tm_lb_change(w, TM_LB_SERVICE_DEL);
}

static int tm_lb_flows_flush(const struct tm_words *w)
{
	return tm_lb_name_only(w, TM_CMD_LB_FLOW_FLUSH);
}

/* [NAME]: the words of lb service show and lb flows show. */
static int tm_lb_parse_show(const struct tm_words *w)
{
	if (w->argc > 1)
		return tm_werror(w, 1, "unexpected '%s'", w->argv[1]);
	if (w->argc == 1 && tm_lb_parse_name(w, 0))
		return TMCTL_EPARSE;
	return 0;
}

/* lb service show [NAME]: a list, of one service with NAME. */
static int tm_lb_service_show(const struct tm_words *w)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;

	if (tm_lb_parse_show(w))
		return TMCTL_EPARSE;
	if (tmctl.check)
		return TMCTL_OK;
	if (w->argc)
		nlh = tm_lb_request(buf, TM_CMD_LB_SERVICE_GET, 0, w, 0);
	else
		nlh = tm_nl_request(buf, TM_CMD_LB_SERVICE_GET, NLM_F_DUMP);
	return tm_nl_list(nlh, tm_lb_service_cb, NULL, w->what, "services");
}

/* lb service list: every service, as lb service show prints them. */
static int tm_lb_service_list(const struct tm_words *w)
{
	if (w->argc)
		return tm_werror(w, 0, "unexpected '%s'", w->argv[0]);
	return tm_lb_service_show(w);
}

/* lb flows show [NAME]: a dump, of the flows of NAME when given. */
static int tm_lb_flows_show(const struct tm_words *w)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;

	if (tm_lb_parse_show(w))
		return TMCTL_EPARSE;
	if (tmctl.check)
		return TMCTL_OK;
	nlh = tm_nl_request(buf, TM_CMD_LB_FLOW_GET, NLM_F_DUMP);
	if (w->argc)
		mnl_attr_put_strz(nlh, TM_A_LB_NAME, w->argv[0]);
	return tm_nl_list(nlh, tm_lb_flow_cb,
			  w->argc ? (void *)w->argv[0] : NULL, w->what,
			  "flows");
}

/*
 * lb flows lookup NAME src ADDR sport N [dst ADDR] [dport N]: where the
 * connection from ADDR port N to the service's VIP (or dst, one of its VIP
 * prefix) and port (the service's by default) would go, as the kernel's
 * table says, without a packet.
 */
static int tm_lb_flows_lookup(const struct tm_words *w)
{
	static const struct tm_keyword kw[] = {
		{ "src", true }, { "sport", true }, { "dport", true },
		{ "dst", true },
	};
	char buf[MNL_SOCKET_BUFFER_SIZE];
	int word[ARRAY_SIZE(kw)] = { -1, -1, -1, -1 };
	uint32_t port[ARRAY_SIZE(kw)] = {};
	struct nlmsghdr *nlh;
	uint8_t src[16], dst[16];
	int i, k;

	if (tm_lb_parse_name(w, 0))
		return TMCTL_EPARSE;
	for (i = 1; i < w->argc; i += 2) {
		k = tm_keyword(w, i, kw, ARRAY_SIZE(kw));
		if (k < 0)
			return TMCTL_EPARSE;
		if (word[k] >= 0)
			return tm_werror(w, i, "%s given twice", kw[k].name);
		if (i + 1 >= w->argc)
			return tm_werror(w, i, "'%s' needs a value",
					 w->argv[i]);
		word[k] = i + 1;
		if (k == 0 ? tm_lb_parse_addr(w, i + 1, "client address", src) :
		    k == 3 ? tm_lb_parse_addr(w, i + 1, "VIP", dst) :
		    tm_parse_u32(w, i + 1, "port", 0, 65535, &port[k]))
			return TMCTL_EPARSE;
	}
	if (word[0] < 0)
		return tm_werror(w, w->argc,
				 "missing 'src ADDR' (the client's IPv6 address)");
	if (word[1] < 0)
		return tm_werror(w, w->argc,
				 "missing 'sport N' (the client's port)");
	if (tmctl.check)
		return TMCTL_OK;
	nlh = tm_lb_request(buf, TM_CMD_LB_FLOW_GET, 0, w, 0);
	mnl_attr_put(nlh, TM_A_LB_FLOW_CLIENT, sizeof(src), src);
	mnl_attr_put_u16(nlh, TM_A_LB_FLOW_CPORT, (uint16_t)port[1]);
	if (word[2] >= 0)
		mnl_attr_put_u16(nlh, TM_A_LB_FLOW_VPORT, (uint16_t)port[2]);
	if (word[3] >= 0)
		mnl_attr_put(nlh, TM_A_LB_FLOW_VIP, sizeof(dst), dst);
	return tm_nl_talk(nlh, tm_lb_flow_cb, (void *)w->argv[0], w->what);
}

static int tm_lb_backend_add(const struct tm_words *w)
{
	return tm_lb_change(w, TM_LB_BACKEND_ADD);
}

static int tm_lb_backend_del(const struct tm_words *w)
{
	return tm_lb_change(w, TM_LB_BACKEND_DEL);
}

static int tm_lb_backend_set(const struct tm_words *w)
{
	return tm_lb_change(w, TM_LB_BACKEND_SET);
}

struct tm_lb_handler {
	const char *name;
	const char *what;
	int (*fn)(const struct tm_words *w);
};

static const struct tm_lb_handler tm_lb_service_verbs[] = {
	{ "add", "lb service add", tm_lb_service_add },
	{ "delete", "lb service del", tm_lb_service_del },
	{ "show", "lb service show", tm_lb_service_show },
	{ "list", "lb service list", tm_lb_service_list },
};

static const struct tm_lb_handler tm_lb_backend_verbs[] = {
	{ "add", "lb backend add", tm_lb_backend_add },
	{ "delete", "lb backend del", tm_lb_backend_del },
	{ "set", "lb backend set", tm_lb_backend_set },
};

static const struct tm_lb_handler tm_lb_flows_verbs[] = {
	{ "show", "lb flows show", tm_lb_flows_show },
	{ "flush", "lb flows flush", tm_lb_flows_flush },
	{ "lookup", "lb flows lookup", tm_lb_flows_lookup },
};

static const struct {
	const char *name;
	const char *verb_list;		/* for messages */
	const struct tm_lb_handler *verbs;
	unsigned int n;
	int alone;			/* the verb without one, or -1 */
} tm_lb_objects[] = {
	{ "service", "add, del, show, list", tm_lb_service_verbs,
	  ARRAY_SIZE(tm_lb_service_verbs), 2 },
	{ "backend", "add, del, set", tm_lb_backend_verbs,
	  ARRAY_SIZE(tm_lb_backend_verbs), -1 },
	{ "flows", "show, flush, lookup", tm_lb_flows_verbs,
	  ARRAY_SIZE(tm_lb_flows_verbs), 0 },
};

/* lb alone is lb service show; lb service and lb flows alone show. */
int tm_do_lb(int argc, char **argv)
{
	struct tm_words w = {};
	const struct tm_lb_handler *v = NULL;
	unsigned int o, i;

	if (argc < 1) {
		w.what = "lb service show";
		return tm_lb_service_show(&w);
	}
	for (o = 0; o < ARRAY_SIZE(tm_lb_objects); o++)
		if (tm_matches(argv[0], tm_lb_objects[o].name))
			break;
	if (o == ARRAY_SIZE(tm_lb_objects))
		return tm_parse_error("lb: unknown object '%s' (service, backend, flows)",
				      argv[0]);
	if (argc < 2) {
		if (tm_lb_objects[o].alone < 0)
			return tm_parse_error("lb %s: missing command (%s)",
					      tm_lb_objects[o].name,
					      tm_lb_objects[o].verb_list);
		v = &tm_lb_objects[o].verbs[tm_lb_objects[o].alone];
	}
	for (i = 0; !v && i < tm_lb_objects[o].n; i++)
		if (tm_matches(argv[1], tm_lb_objects[o].verbs[i].name))
			v = &tm_lb_objects[o].verbs[i];
	if (!v)
		return tm_parse_error("lb %s: unknown command '%s' (%s)",
				      tm_lb_objects[o].name, argv[1],
				      tm_lb_objects[o].verb_list);
	w.what = v->what;
	if (argc > 2) {
		w.argv = argv + 2;
		w.argc = argc - 2;
	}
	return v->fn(&w);
}
