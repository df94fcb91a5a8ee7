// SPDX-License-Identifier: GPL-2.0
/*
 * test_metrics: tmctl metrics without a kernel.
 *
 *	test_metrics escape		the label value escaping, case by
 *					case: "ok NAME" or "FAIL NAME: ..."
 *	test_metrics dump [no-rules] [netns NAME]
 *					replies made up as the kernel makes
 *					them, through the callbacks of the
 *					dumps, printed as tmctl metrics does
 *
 * The replies have what the kernel sends and what it may: names and
 * comments with a double quote, a backslash, a newline and bytes that are
 * not UTF-8, a counter at 2^64 - 1, an empty comment, an object given
 * twice (a dump the kernel restarted), backends with health checks, up
 * and down.  test_metrics.sh compares the
 * output with the one expected and checks it with promtool.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>

#include "tmctl.h"

struct tmctl tmctl;

static int tm_test_escape(void)
{
	static const struct {
		const char *name, *in, *want;
	} cases[] = {
		{ "plain", "web-1 ok", "web-1 ok" },
		{ "double quote", "say \"hi\"", "say \\\"hi\\\"" },
		{ "backslash", "a\\b\\", "a\\\\b\\\\" },
		{ "newline", "two\nlines\n", "two\\nlines\\n" },
		{ "all three", "\"\\\n", "\\\"\\\\\\n" },
		{ "tab and CR kept", "a\tb\r", "a\tb\r" },
		{ "UTF-8 kept", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
		{ "Latin-1 byte", "caf\xe9", "caf\xef\xbf\xbd" },
		{ "stray continuation", "\x80x", "\xef\xbf\xbdx" },
		{ "cut short at the end", "x\xe2\x82",
		  "x\xef\xbf\xbd\xef\xbf\xbd" },
		{ "cut short by a quote", "\xc3\"", "\xef\xbf\xbd\\\"" },
		{ "overlong", "\xc0\xaf\xe0\x80\xaf",
		  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "surrogate", "\xed\xa0\x80",
		  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "past U+10FFFF", "\xf4\x90\x80\x80",
		  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "U+10FFFF kept", "\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf" },
		{ "empty", "", "" },
	};
	char *got;
	size_t len;
	unsigned int i;
	int fail = 0;
	FILE *f;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		f = open_memstream(&got, &len);
		if (!f)
			return 1;
		tm_prom_escape(f, cases[i].in);
		fclose(f);
		if (strcmp(got, cases[i].want)) {
			printf("FAIL %s: got '%s', want '%s'\n", cases[i].name,
			       got, cases[i].want);
			fail = 1;
		} else {
			printf("ok %s\n", cases[i].name);
		}
		free(got);
	}
	return fail;
}

/* Replies */

static char tm_buf[16384];

static struct nlmsghdr *tm_reply(uint8_t cmd)
{
	return tm_nl_put_header(tm_buf, GENL_ID_CTRL + 1, cmd, 0);
}

static void tm_put_addr(struct nlmsghdr *nlh, uint16_t type, const char *a)
{
	uint8_t addr[16];

	if (inet_pton(AF_INET6, a, addr) != 1)
		abort();
	mnl_attr_put(nlh, type, sizeof(addr), addr);
}

static void tm_table(struct tm_metrics *m, const char *name, uint8_t family,
		     uint8_t hook, int32_t priority, uint8_t policy,
		     uint8_t engine, uint32_t rules, uint64_t lookups)
{
	struct nlmsghdr *nlh = tm_reply(TM_CMD_TABLE_GET);

	mnl_attr_put_strz(nlh, TM_A_TABLE_NAME, name);
	mnl_attr_put_u32(nlh, TM_A_TABLE_HANDLE, 1);
	mnl_attr_put_u8(nlh, TM_A_TABLE_FAMILY, family);
	mnl_attr_put_u8(nlh, TM_A_TABLE_HOOK, hook);
	mnl_attr_put_u32(nlh, TM_A_TABLE_PRIORITY, (uint32_t)priority);
	mnl_attr_put_u8(nlh, TM_A_TABLE_POLICY, policy);
	mnl_attr_put_u8(nlh, TM_A_TABLE_ENGINE, engine);
	mnl_attr_put_u32(nlh, TM_A_TABLE_RULES, rules);
	mnl_attr_put_u8(nlh, TM_A_TABLE_COLLIDE, 8);
	mnl_attr_put_u32(nlh, TM_A_TABLE_MAX_RULES, TM_MAX_RULES_DEFAULT);
	mnl_attr_put_u32(nlh, TM_A_TABLE_MAX_TUPLES, TM_MAX_TUPLES_DEFAULT);
	mnl_attr_put_u32(nlh, TM_A_TABLE_TUPLES, rules ? 2 : 0);
	mnl_attr_put_u64(nlh, TM_A_TABLE_BYTES, 256 * rules);
	mnl_attr_put_u64(nlh, TM_A_TABLE_LOOKUPS, lookups);
	mnl_attr_put_u64(nlh, TM_A_TABLE_MATCHES, lookups / 2);
	mnl_attr_put_u64(nlh, TM_A_TABLE_PROBES, lookups * 3 / 2);
	mnl_attr_put_u64(nlh, TM_A_NET_GENERATION, 42);
	tm_metrics_table_cb(nlh, m);
}

static void tm_rule(struct tm_metrics *m, const char *table, uint32_t id,
		    uint8_t family, uint8_t action, const char *comment,
		    uint64_t packets, uint64_t bytes)
{
	struct nlmsghdr *nlh = tm_reply(TM_CMD_RULE_GET);

	mnl_attr_put_strz(nlh, TM_A_TABLE_NAME, table);
	mnl_attr_put_u32(nlh, TM_A_RULE_ID, id);
	mnl_attr_put_u32(nlh, TM_A_RULE_PRIORITY, 0);
	mnl_attr_put_u8(nlh, TM_A_RULE_FAMILY, family);
	mnl_attr_put_u8(nlh, TM_A_RULE_ACTION, action);
	if (comment)
		mnl_attr_put_strz(nlh, TM_A_RULE_COMMENT, comment);
	mnl_attr_put_u64(nlh, TM_A_RULE_PACKETS, packets);
	mnl_attr_put_u64(nlh, TM_A_RULE_BYTES, bytes);
	tm_metrics_rule_cb(nlh, m);
}

static void tm_sid(struct tm_metrics *m, const char *sid, uint8_t policy,
		   uint32_t threshold, uint64_t base)
{
	struct nlmsghdr *nlh = tm_reply(TM_CMD_SID_GET);
	uint16_t a;

	tm_put_addr(nlh, TM_A_SID_ADDR, sid);
	mnl_attr_put_u8(nlh, TM_A_SID_POLICY, policy);
	mnl_attr_put_u32(nlh, TM_A_SID_THRESHOLD, threshold);
	mnl_attr_put_u32(nlh, TM_A_SID_CONNS, 3);
	mnl_attr_put_u32(nlh, TM_A_SID_LOAD, 0);
	for (a = TM_A_SID_ACCEPTED; a <= TM_A_SID_MALFORMED; a++)
		mnl_attr_put_u64(nlh, a, base + a - TM_A_SID_ACCEPTED);
	mnl_attr_put_u64(nlh, TM_A_SID_REPORTS, base + 10);
	mnl_attr_put_u64(nlh, TM_A_SID_HMAC_BAD, base + 11);
	mnl_attr_put_u64(nlh, TM_A_SID_HMAC_NOKEY, base + 12);
	tm_metrics_sid_cb(nlh, m);
}

static void tm_service(struct tm_metrics *m, const char *name, int backends)
{
	static const uint16_t counters[] = {
		TM_A_LB_HUNTS, TM_A_LB_RECOVERIES, TM_A_LB_STEERED,
		TM_A_LB_REPORTS, TM_A_LB_LEARNED, TM_A_LB_EXPIRED,
		TM_A_LB_FULL, TM_A_LB_DROPPED, TM_A_LB_TOO_BIG,
		TM_A_LB_MALFORMED, TM_A_LB_REFUSED, TM_A_LB_EVICTED,
		TM_A_LB_NS_FULL, TM_A_LB_HMAC_BAD, TM_A_LB_HMAC_NOKEY,
	};
	struct nlmsghdr *nlh = tm_reply(TM_CMD_LB_SERVICE_GET);
	struct nlattr *nest, *b;
	char sid[32];
	unsigned int i;

	mnl_attr_put_strz(nlh, TM_A_LB_NAME, name);
	/* The second, of any port, serves a VIP prefix. */
	tm_put_addr(nlh, TM_A_LB_VIP,
		    backends > 0 ? "2001:db8::80" : "2001:db8:80::");
	mnl_attr_put_u8(nlh, TM_A_LB_VIP_LEN, backends > 0 ? 128 : 48);
	mnl_attr_put_u8(nlh, TM_A_LB_PROTO, 6);
	if (backends > 0)
		mnl_attr_put_u16(nlh, TM_A_LB_PORT, 80);
	tm_put_addr(nlh, TM_A_LB_SID,
		    backends > 0 ? "fc00:ff::1" : "fc00:ff::2");
	mnl_attr_put_u8(nlh, TM_A_LB_CHOICES, 2);
	mnl_attr_put_u32(nlh, TM_A_LB_MAX_FLOWS, TM_LB_MAX_FLOWS_DEFAULT);
	if (backends >= 0) {
		nest = mnl_attr_nest_start(nlh, TM_A_LB_BACKENDS);
		for (i = 1; i <= (unsigned int)backends; i++) {
			b = mnl_attr_nest_start(nlh, TM_A_LB_BACKEND);
			snprintf(sid, sizeof(sid), "fc00:%u::100", i);
			tm_put_addr(nlh, TM_A_LB_BACKEND_SID, sid);
			mnl_attr_put_u32(nlh, TM_A_LB_BACKEND_WEIGHT, i);
			/* Health checks: the first up, the others down. */
			mnl_attr_put_u8(nlh, TM_A_LB_BACKEND_HEALTH,
					i == 1 ? TM_LB_HEALTH_UP :
						 TM_LB_HEALTH_DOWN);
			mnl_attr_put_u8(nlh, TM_A_LB_BACKEND_HEALTH_WHY,
					i == 1 ? TM_LB_HEALTH_WHY_NONE :
						 TM_LB_HEALTH_WHY_TIMEOUT);
			mnl_attr_put_u64(nlh, TM_A_LB_BACKEND_PROBES, 50 * i);
			mnl_attr_put_u64(nlh, TM_A_LB_BACKEND_PROBES_FAILED,
					 3 * (i - 1));
			mnl_attr_put_u64(nlh, TM_A_LB_BACKEND_TRANSITIONS,
					 i - 1);
			mnl_attr_nest_end(nlh, b);
		}
		mnl_attr_nest_end(nlh, nest);
	}
	mnl_attr_put_u32(nlh, TM_A_LB_FLOWS, backends > 0 ? 4 * backends : 0);
	for (i = 0; i < ARRAY_SIZE(counters); i++)
		mnl_attr_put_u64(nlh, counters[i], 100 + i);
	tm_metrics_service_cb(nlh, m);
}

#define WEIRD	"we\"ird\\name\nx\xff\xc3\xa9"

static int tm_test_dump(int argc, char **argv)
{
	const char *netns = NULL;
	struct tm_metrics *m;
	struct nlmsghdr *nlh;
	bool rules = true;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "no-rules"))
			rules = false;
		else if (!strcmp(argv[i], "netns") && i + 1 < argc)
			netns = argv[++i];
		else
			return 2;
	}
	m = tm_metrics_new(rules, netns);

	nlh = tm_reply(TM_CMD_STATS_GET);
	mnl_attr_put_u32(nlh, TM_A_NET_TABLES, 2);
	mnl_attr_put_u64(nlh, TM_A_NET_GENERATION, 42);
	tm_metrics_stats_cb(nlh, m);

	tm_table(m, "filter", TM_FAMILY_INET, TM_HOOK_INPUT, -10,
		 TM_POLICY_DROP, TM_ENG_TUPLEMERGE, 3, 1000);
	tm_table(m, WEIRD, TM_FAMILY_IPV4, TM_HOOK_FORWARD, 0,
		 TM_POLICY_ACCEPT, TM_ENG_LINEAR, 1, 0);
	/* A restarted dump: filter again, its series once. */
	tm_table(m, "filter", TM_FAMILY_INET, TM_HOOK_INPUT, -10,
		 TM_POLICY_DROP, TM_ENG_TUPLEMERGE, 3, 1001);

	if (rules) {
		tm_metrics_rules_of(m, "filter");
		tm_rule(m, "filter", 1, TM_FAMILY_INET, TM_ACT_ACCEPT,
			"say \"hi\" \\ now", 10, 840);
		tm_rule(m, "filter", 2, TM_FAMILY_IPV4, TM_ACT_DROP, NULL, 0,
			0);
		tm_rule(m, "filter", 3, TM_FAMILY_IPV6, TM_ACT_COUNT,
			"two\nlines \xc3( \xc0\xaf", UINT64_MAX, 5);
		/* Restarted: rule 2 again, once. */
		tm_rule(m, "filter", 2, TM_FAMILY_IPV4, TM_ACT_DROP, NULL, 1,
			60);
		tm_metrics_rules_of(m, WEIRD);
		tm_rule(m, WEIRD, 7, TM_FAMILY_IPV4, TM_ACT_REJECT, "", 1, 60);
	}

	tm_sid(m, "fc00:1::100", TM_SID_POLICY_CONNS, 8, 1000);
	tm_sid(m, "fc00:2::100", TM_SID_POLICY_ALWAYS, 0, 2000);
	tm_sid(m, "fc00:1::100", TM_SID_POLICY_CONNS, 8, 3000);

	tm_service(m, "web", 2);
	tm_service(m, "a\"b", -1);
	tm_service(m, "web", 2);

	i = tm_metrics_write(m, stdout) < 0;
	tm_metrics_free(m);
	return i;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "escape"))
		return tm_test_escape();
	if (argc >= 2 && !strcmp(argv[1], "dump"))
		return tm_test_dump(argc - 2, argv + 2);
	fputs("usage: test_metrics escape | dump [no-rules] [netns NAME]\n",
	      stderr);
	return 2;
}
