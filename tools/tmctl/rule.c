// SPDX-License-Identifier: GPL-2.0
/*
 * tmctl rule add|replace|del|flush|list|get|lookup and counters reset: the
 * words of a rule and the request they make (shared with batch files and
 * import), and the printing of rules in the syntax of "rule add", which
 * reads back as a batch file.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "tmctl.h"

/* The verbs of rule, for messages. */
#define TM_RULE_VERBS	"add, del, replace, flush, list, get, lookup"

/* Longest lb service name: the kernel's, a table name's. */
#define TM_LB_SERVICE_MAX	(TM_NAME_MAX - 1)

/* Keywords of rule add and replace, in the order rule list prints them. */
enum {
	TM_K_ID,
	TM_K_PRIORITY,
	TM_K_FAMILY,
	TM_K_SRC,
	TM_K_DST,
	TM_K_SPORT,
	TM_K_DPORT,
	TM_K_PROTO,
	TM_K_IIF,
	TM_K_OIF,
	TM_K_COMMENT,
	TM_K_COOKIE,
	TM_K_ACCEPT,
	TM_K_DROP,
	TM_K_REJECT,
	TM_K_MARK,
	TM_K_COUNT,
	TM_K_LB,
	TM_K_PACKETS,
	TM_K_BYTES,
	TM_K_RESET,
	TM_K_MAX
};

static const struct tm_keyword tm_rule_keywords[TM_K_MAX] = {
	[TM_K_ID] = { "id", true },
	[TM_K_PRIORITY] = { "priority", true },
	[TM_K_FAMILY] = { "family", true },
	[TM_K_SRC] = { "src", true },
	[TM_K_DST] = { "dst", true },
	[TM_K_SPORT] = { "sport", true },
	[TM_K_DPORT] = { "dport", true },
	[TM_K_PROTO] = { "proto", true },
	[TM_K_IIF] = { "iif", true },
	[TM_K_OIF] = { "oif", true },
	[TM_K_COMMENT] = { "comment", true },
	[TM_K_COOKIE] = { "cookie", true },
	[TM_K_ACCEPT] = { "accept", false },
	[TM_K_DROP] = { "drop", false },
	[TM_K_REJECT] = { "reject", false },
	[TM_K_MARK] = { "mark", true },
	[TM_K_COUNT] = { "count", false },
	[TM_K_LB] = { "lb", true },
	[TM_K_PACKETS] = { "packets", true },
	[TM_K_BYTES] = { "bytes", true },
	[TM_K_RESET] = { "reset-counters", false },
};

/* The field each keyword sets; actions all set TM_F_ACTION. */
static const uint8_t tm_keyword_field[TM_K_MAX] = {
	[TM_K_ID] = TM_F_ID,
	[TM_K_PRIORITY] = TM_F_PRIORITY,
	[TM_K_FAMILY] = TM_F_FAMILY,
	[TM_K_SRC] = TM_F_SRC,
	[TM_K_DST] = TM_F_DST,
	[TM_K_SPORT] = TM_F_SPORT,
	[TM_K_DPORT] = TM_F_DPORT,
	[TM_K_PROTO] = TM_F_PROTO,
	[TM_K_IIF] = TM_F_IIF,
	[TM_K_OIF] = TM_F_OIF,
	[TM_K_COMMENT] = TM_F_COMMENT,
	[TM_K_COOKIE] = TM_F_COOKIE,
	[TM_K_ACCEPT] = TM_F_ACTION,
	[TM_K_DROP] = TM_F_ACTION,
	[TM_K_REJECT] = TM_F_ACTION,
	[TM_K_MARK] = TM_F_ACTION,
	[TM_K_COUNT] = TM_F_ACTION,
	[TM_K_LB] = TM_F_ACTION,
	[TM_K_PACKETS] = TM_F_PACKETS,
	[TM_K_BYTES] = TM_F_BYTES,
	[TM_K_RESET] = TM_F_RESET,
};

static const char * const tm_verb_names[] = {
	[TM_VERB_ADD] = "add",
	[TM_VERB_REPLACE] = "replace",
	[TM_VERB_DEL] = "del",
	[TM_VERB_FLUSH] = "flush",
};

uint8_t tm_rule_cmd(enum tm_rule_verb verb)
{
	switch (verb) {
	case TM_VERB_ADD:
		return TM_CMD_RULE_NEW;
	case TM_VERB_REPLACE:
		return TM_CMD_RULE_SET;
	default:
		return TM_CMD_RULE_DEL;
	}
}

/* How many keywords of tm_rule_keywords a verb takes, from the first. */
static unsigned int tm_verb_keywords(enum tm_rule_verb verb)
{
	switch (verb) {
	case TM_VERB_ADD:
		return TM_K_RESET;	/* all but reset-counters */
	case TM_VERB_REPLACE:
		return TM_K_MAX;
	case TM_VERB_DEL:
		return TM_K_ID + 1;
	default:
		return 0;
	}
}

static const char *tm_af_name(uint8_t af)
{
	return af == 4 ? "IPv4" : "IPv6";
}

/* The addresses and the family agree: checked once all words are read. */
static int tm_rule_check_family(const struct tm_words *w,
				const struct tm_rule_req *r)
{
	bool want4 = r->family == TM_FAMILY_IPV4, v4;
	const struct tm_prefix *p;
	int f, word;

	if (TM_HAS(r, TM_F_SRC) && TM_HAS(r, TM_F_DST) &&
	    r->src.af != r->dst.af)
		return tm_werror(w, r->word[TM_F_DST],
				 "'%s': %s destination but %s source",
				 w->argv[r->word[TM_F_DST]],
				 tm_af_name(r->dst.af), tm_af_name(r->src.af));
	if (!TM_HAS(r, TM_F_FAMILY))
		return 0;
	for (f = TM_F_SRC; f <= TM_F_DST; f++) {
		if (!TM_HAS(r, f))
			continue;
		p = f == TM_F_SRC ? &r->src : &r->dst;
		word = r->word[f];
		if (r->family == TM_FAMILY_INET)
			return tm_werror(w, word,
					 "'%s': a family inet rule matches no address (use family ip or ip6)",
					 w->argv[word]);
		v4 = p->af == 4;
		if (v4 != want4)
			return tm_werror(w, word,
					 "'%s': %s prefix in a family %s rule",
					 w->argv[word], tm_af_name(p->af),
					 tm_family_names[r->family]);
	}
	return 0;
}

static int tm_rule_check_string(const struct tm_words *w, int i,
				const char *what, size_t max)
{
	const unsigned char *s = (const unsigned char *)w->argv[i];

	if (strlen(w->argv[i]) > max)
		return tm_werror(w, i, "%s is longer than %zu bytes", what,
				 max);
	for (; *s; s++)
		if (*s < ' ' || *s == 0x7f)
			return tm_werror(w, i, "%s has a control character",
					 what);
	return 0;
}

/* One keyword at word i and its values; the words it took, or -1. */
static int tm_rule_word(const struct tm_words *w, int i, int k,
			struct tm_rule_req *r)
{
	int v = i + 1, err = 0;
	uint64_t u;

	switch (k) {
	case TM_K_ID:
		err = tm_parse_u32(w, v, "rule id", 1, TM_RULE_ID_MAX, &r->id);
		break;
	case TM_K_PRIORITY:
		err = tm_parse_u32(w, v, "priority", 0, UINT32_MAX,
				   &r->priority);
		break;
	case TM_K_FAMILY:
		err = tm_parse_name(w, v, "family", tm_family_names,
				    TM_FAMILY_IPV4, TM_FAMILY_MAX, &r->family);
		break;
	case TM_K_SRC:
		err = tm_parse_prefix(w, v, true, &r->src);
		break;
	case TM_K_DST:
		err = tm_parse_prefix(w, v, true, &r->dst);
		break;
	case TM_K_SPORT:
		err = tm_parse_ports(w, v, &r->sport[0], &r->sport[1]);
		break;
	case TM_K_DPORT:
		err = tm_parse_ports(w, v, &r->dport[0], &r->dport[1]);
		break;
	case TM_K_PROTO:
		err = tm_parse_proto(w, v, &r->proto);
		break;
	case TM_K_IIF:
		err = tm_parse_dev(w, v, &r->iif);
		break;
	case TM_K_OIF:
		err = tm_parse_dev(w, v, &r->oif);
		break;
	case TM_K_COMMENT:
		err = tm_rule_check_string(w, v, "comment",
					   TM_COMMENT_MAX - 1);
		r->comment = w->argv[v];
		break;
	case TM_K_COOKIE:
		err = tm_parse_u64(w, v, "cookie", 0, UINT64_MAX, &r->cookie);
		break;
	case TM_K_ACCEPT:
		r->action = TM_ACT_ACCEPT;
		break;
	case TM_K_DROP:
		r->action = TM_ACT_DROP;
		break;
	case TM_K_COUNT:
		r->action = TM_ACT_COUNT;
		break;
	case TM_K_REJECT:
		r->action = TM_ACT_REJECT;
		r->reject = TM_REJECT_AUTO;
		r->word[TM_F_REJECT] = i;
		if (v >= w->argc || !tm_matches(w->argv[v], "with"))
			return 1;
		if (v + 1 >= w->argc) {
			tm_werror(w, v, "'%s' needs a reject type", w->argv[v]);
			return -1;
		}
		if (tm_parse_name(w, v + 1, "reject type", tm_reject_names,
				  TM_REJECT_TCP_RESET, TM_REJECT_MAX,
				  &r->reject))
			return -1;
		r->word[TM_F_REJECT] = v + 1;
		return 3;
	case TM_K_MARK:
		r->action = TM_ACT_MARK;
		err = tm_parse_u32(w, v, "mark", 0, UINT32_MAX, &r->mark);
		r->word[TM_F_MARK] = v;
		break;
	case TM_K_LB:
		r->action = TM_ACT_LB;
		if (!w->argv[v][0])
			err = tm_werror(w, v, "lb service name is empty");
		else
			err = tm_rule_check_string(w, v, "lb service name",
						   TM_LB_SERVICE_MAX);
		r->lb = w->argv[v];
		r->word[TM_F_LB] = v;
		break;
	case TM_K_PACKETS:
	case TM_K_BYTES:
		/* What rule list prints: read and ignored. */
		err = tm_parse_u64(w, v, tm_rule_keywords[k].name, 0,
				   UINT64_MAX, &u);
		break;
	case TM_K_RESET:
		break;
	}
	if (err)
		return -1;
	return tm_rule_keywords[k].value ? 2 : 1;
}

int tm_rule_parse(const struct tm_words *w, enum tm_rule_verb verb,
		  struct tm_rule_req *r)
{
	unsigned int nkw = tm_verb_keywords(verb);
	int i, k, f, n;

	memset(r, 0, sizeof(*r));
	for (f = 0; f < TM_F_MAX; f++)
		r->word[f] = -1;
	r->verb = verb;
	if (tm_parse_table(w, 0))
		return TMCTL_EPARSE;
	if (w->argc > INT16_MAX)
		return tm_werror(w, INT16_MAX, "too many words");
	r->table = w->argv[0];
	r->word[TM_F_TABLE] = 0;
	for (i = 1; i < w->argc; i += n) {
		if (!nkw)
			return tm_werror(w, i, "unexpected '%s'", w->argv[i]);
		k = tm_keyword(w, i, tm_rule_keywords, nkw);
		if (k < 0)
			return TMCTL_EPARSE;
		f = tm_keyword_field[k];
		if (f == TM_F_ACTION && TM_HAS(r, f))
			return tm_werror(w, i,
					 "second action '%s', the rule already has '%s'",
					 w->argv[i], w->argv[r->word[f]]);
		if (TM_HAS(r, f))
			return tm_werror(w, i, "%s given twice",
					 tm_rule_keywords[k].name);
		if (tm_rule_keywords[k].value && i + 1 >= w->argc)
			return tm_werror(w, i, "'%s' needs a value",
					 w->argv[i]);
		/* The value's word, or the keyword's for flags and actions. */
		r->word[f] = f == TM_F_ACTION || !tm_rule_keywords[k].value ?
			     i : i + 1;
		n = tm_rule_word(w, i, k, r);
		if (n < 0)
			return TMCTL_EPARSE;
	}
	if ((verb == TM_VERB_REPLACE || verb == TM_VERB_DEL) &&
	    !TM_HAS(r, TM_F_ID))
		return tm_werror(w, w->argc,
				 "missing 'id N' (rule %s needs the rule id)",
				 tm_verb_names[verb]);
	if ((verb == TM_VERB_ADD || verb == TM_VERB_REPLACE) &&
	    !TM_HAS(r, TM_F_ACTION))
		return tm_werror(w, w->argc,
				 "missing action (accept, drop, reject, mark, count or lb)");
	return tm_rule_check_family(w, r);
}

void tm_attr_map_add(struct tm_attr_map *map, const struct nlmsghdr *nlh,
		     int word)
{
	if (!map || map->n >= TM_ATTR_MAP_MAX)
		return;
	/* The next attribute starts at the aligned end of the message. */
	map->a[map->n].offs = MNL_ALIGN(nlh->nlmsg_len);
	map->a[map->n].word = word;
	map->n++;
}

int tm_attr_map_word(const struct tm_attr_map *map, uint32_t offs)
{
	int word = -1;
	unsigned int i;

	for (i = 0; map && i < map->n; i++)
		if (map->a[i].offs <= offs)
			word = map->a[i].word;
	return word;
}

static void tm_put_prefix(struct nlmsghdr *nlh, struct tm_attr_map *map,
			  int word, uint16_t addr, uint16_t len,
			  const struct tm_prefix *p)
{
	tm_attr_map_add(map, nlh, word);
	mnl_attr_put(nlh, addr, p->af == 4 ? 4 : 16, p->addr);
	tm_attr_map_add(map, nlh, word);
	mnl_attr_put_u8(nlh, len, p->len);
}

static void tm_put_ports(struct nlmsghdr *nlh, struct tm_attr_map *map,
			 int word, uint16_t min, const uint16_t *range)
{
	tm_attr_map_add(map, nlh, word);
	mnl_attr_put_u16(nlh, min, range[0]);
	tm_attr_map_add(map, nlh, word);
	mnl_attr_put_u16(nlh, min + 1, range[1]);
}

void tm_rule_put(struct nlmsghdr *nlh, const struct tm_rule_req *r,
		 struct tm_attr_map *map)
{
	const int16_t *wd = r->word;

	tm_attr_map_add(map, nlh, wd[TM_F_TABLE]);
	mnl_attr_put_strz(nlh, TM_A_TABLE_NAME, r->table);
	if (TM_HAS(r, TM_F_ID)) {
		tm_attr_map_add(map, nlh, wd[TM_F_ID]);
		mnl_attr_put_u32(nlh, TM_A_RULE_ID, r->id);
	}
	if (r->verb == TM_VERB_DEL || r->verb == TM_VERB_FLUSH)
		return;
	if (TM_HAS(r, TM_F_PRIORITY)) {
		tm_attr_map_add(map, nlh, wd[TM_F_PRIORITY]);
		mnl_attr_put_u32(nlh, TM_A_RULE_PRIORITY, r->priority);
	}
	if (TM_HAS(r, TM_F_FAMILY)) {
		tm_attr_map_add(map, nlh, wd[TM_F_FAMILY]);
		mnl_attr_put_u8(nlh, TM_A_RULE_FAMILY, r->family);
	}
	if (TM_HAS(r, TM_F_SRC))
		tm_put_prefix(nlh, map, wd[TM_F_SRC], TM_A_RULE_SRC,
			      TM_A_RULE_SRC_LEN, &r->src);
	if (TM_HAS(r, TM_F_DST))
		tm_put_prefix(nlh, map, wd[TM_F_DST], TM_A_RULE_DST,
			      TM_A_RULE_DST_LEN, &r->dst);
	if (TM_HAS(r, TM_F_SPORT))
		tm_put_ports(nlh, map, wd[TM_F_SPORT], TM_A_RULE_SPORT_MIN,
			     r->sport);
	if (TM_HAS(r, TM_F_DPORT))
		tm_put_ports(nlh, map, wd[TM_F_DPORT], TM_A_RULE_DPORT_MIN,
			     r->dport);
	if (TM_HAS(r, TM_F_PROTO)) {
		tm_attr_map_add(map, nlh, wd[TM_F_PROTO]);
		mnl_attr_put_u8(nlh, TM_A_RULE_PROTO, r->proto);
	}
	if (TM_HAS(r, TM_F_IIF)) {
		tm_attr_map_add(map, nlh, wd[TM_F_IIF]);
		mnl_attr_put_u32(nlh, TM_A_RULE_IIF, r->iif);
	}
	if (TM_HAS(r, TM_F_OIF)) {
		tm_attr_map_add(map, nlh, wd[TM_F_OIF]);
		mnl_attr_put_u32(nlh, TM_A_RULE_OIF, r->oif);
	}
	if (TM_HAS(r, TM_F_ACTION)) {
		tm_attr_map_add(map, nlh, wd[TM_F_ACTION]);
		mnl_attr_put_u8(nlh, TM_A_RULE_ACTION, r->action);
	}
	if (TM_HAS(r, TM_F_REJECT)) {
		tm_attr_map_add(map, nlh, wd[TM_F_REJECT]);
		mnl_attr_put_u8(nlh, TM_A_RULE_REJECT, r->reject);
	}
	if (TM_HAS(r, TM_F_MARK)) {
		tm_attr_map_add(map, nlh, wd[TM_F_MARK]);
		mnl_attr_put_u32(nlh, TM_A_RULE_MARK, r->mark);
	}
	if (TM_HAS(r, TM_F_LB)) {
		tm_attr_map_add(map, nlh, wd[TM_F_LB]);
		mnl_attr_put_strz(nlh, TM_A_RULE_LB_SERVICE, r->lb);
	}
	if (TM_HAS(r, TM_F_COMMENT)) {
		tm_attr_map_add(map, nlh, wd[TM_F_COMMENT]);
		mnl_attr_put_strz(nlh, TM_A_RULE_COMMENT, r->comment);
	}
	if (TM_HAS(r, TM_F_COOKIE)) {
		tm_attr_map_add(map, nlh, wd[TM_F_COOKIE]);
		mnl_attr_put_u64(nlh, TM_A_RULE_COOKIE, r->cookie);
	}
	if (TM_HAS(r, TM_F_RESET)) {
		tm_attr_map_add(map, nlh, wd[TM_F_RESET]);
		mnl_attr_put(nlh, TM_A_RULE_RESET_COUNTERS, 0, NULL);
	}
}

/* Printing */

/* A prefix attribute pair of a reply; false if absent. */
static bool tm_get_prefix(const struct nlattr **tb, int addr, int len,
			  struct tm_prefix *p)
{
	uint16_t n;

	memset(p, 0, sizeof(*p));
	if (!tb[addr])
		return false;
	n = mnl_attr_get_payload_len(tb[addr]);
	p->af = n == 4 ? 4 : 6;
	memcpy(p->addr, mnl_attr_get_payload(tb[addr]), n);
	p->len = tb[len] ? mnl_attr_get_u8(tb[len]) : 8 * n;
	if (p->len > 8 * n)
		p->len = 8 * n;
	return true;
}

/* A port range of a reply: false when absent or every port. */
static bool tm_get_ports(const struct nlattr **tb, int min, uint16_t *range)
{
	if (!tb[min] && !tb[min + 1])
		return false;
	range[0] = tb[min] ? mnl_attr_get_u16(tb[min]) :
		   mnl_attr_get_u16(tb[min + 1]);
	range[1] = tb[min + 1] ? mnl_attr_get_u16(tb[min + 1]) : range[0];
	return range[0] != 0 || range[1] != 65535;
}

static const char *tm_ports_str(const uint16_t *range, char *buf,
				size_t len)
{
	if (range[0] == range[1])
		snprintf(buf, len, "%u", range[0]);
	else
		snprintf(buf, len, "%u-%u", range[0], range[1]);
	return buf;
}

static const char *tm_rule_table(const struct nlattr **tb, const char *table)
{
	if (tb[TM_A_TABLE_NAME])
		return mnl_attr_get_str(tb[TM_A_TABLE_NAME]);
	return table ? table : "?";
}

static void tm_text_word(const char *key, const char *val)
{
	printf(" %s ", key);
	tm_print_word(stdout, val);
}

static void tm_text_u64(const char *key, uint64_t val)
{
	printf(" %s %llu", key, (unsigned long long)val);
}

static void tm_rule_text_match(const struct nlattr **tb)
{
	char buf[INET6_ADDRSTRLEN + 8];
	struct tm_prefix src, dst;
	bool has_src, has_dst;
	uint16_t range[2];
	uint8_t fam = 0, implied = 0;

	/*
	 * A /0 prefix prints as nothing; the family is printed unless a
	 * printed address tells it.
	 */
	has_src = tm_get_prefix(tb, TM_A_RULE_SRC, TM_A_RULE_SRC_LEN, &src) &&
		  src.len;
	has_dst = tm_get_prefix(tb, TM_A_RULE_DST, TM_A_RULE_DST_LEN, &dst) &&
		  dst.len;
	if (has_src || has_dst)
		implied = (has_src ? src.af : dst.af) == 4 ? TM_FAMILY_IPV4 :
			  TM_FAMILY_IPV6;
	if (tb[TM_A_RULE_FAMILY])
		fam = mnl_attr_get_u8(tb[TM_A_RULE_FAMILY]);
	else if (src.af || dst.af)	/* a /0 address still tells it */
		fam = (src.af ? src.af : dst.af) == 4 ? TM_FAMILY_IPV4 :
		      TM_FAMILY_IPV6;
	if (fam && fam != implied)
		tm_text_word("family", tm_family_name(fam));
	if (has_src)
		tm_text_word("src",
			     tm_prefix_str(&src, true, buf, sizeof(buf)));
	if (has_dst)
		tm_text_word("dst",
			     tm_prefix_str(&dst, true, buf, sizeof(buf)));
	if (tm_get_ports(tb, TM_A_RULE_SPORT_MIN, range))
		tm_text_word("sport", tm_ports_str(range, buf, sizeof(buf)));
	if (tm_get_ports(tb, TM_A_RULE_DPORT_MIN, range))
		tm_text_word("dport", tm_ports_str(range, buf, sizeof(buf)));
	if (tb[TM_A_RULE_PROTO])
		tm_text_word("proto",
			     tm_proto_name(mnl_attr_get_u8(tb[TM_A_RULE_PROTO]),
					   buf, sizeof(buf)));
	if (tb[TM_A_RULE_IIF] && mnl_attr_get_u32(tb[TM_A_RULE_IIF]))
		tm_text_word("iif",
			     tm_dev_name(mnl_attr_get_u32(tb[TM_A_RULE_IIF]),
					 buf, sizeof(buf)));
	if (tb[TM_A_RULE_OIF] && mnl_attr_get_u32(tb[TM_A_RULE_OIF]))
		tm_text_word("oif",
			     tm_dev_name(mnl_attr_get_u32(tb[TM_A_RULE_OIF]),
					 buf, sizeof(buf)));
	if (tb[TM_A_RULE_COMMENT])
		tm_text_word("comment",
			     mnl_attr_get_str(tb[TM_A_RULE_COMMENT]));
	if (tb[TM_A_RULE_COOKIE])
		tm_text_u64("cookie", mnl_attr_get_u64(tb[TM_A_RULE_COOKIE]));
}

static void tm_rule_text_action(const struct nlattr **tb)
{
	uint8_t act = tb[TM_A_RULE_ACTION] ?
		      mnl_attr_get_u8(tb[TM_A_RULE_ACTION]) : TM_ACT_ACCEPT;
	uint8_t rej;

	printf(" %s", tm_action_name(act));
	switch (act) {
	case TM_ACT_REJECT:
		rej = tb[TM_A_RULE_REJECT] ?
		      mnl_attr_get_u8(tb[TM_A_RULE_REJECT]) : TM_REJECT_AUTO;
		if (rej != TM_REJECT_AUTO)
			printf(" with %s", tm_reject_name(rej));
		break;
	case TM_ACT_MARK:
		printf(" 0x%x", tb[TM_A_RULE_MARK] ?
		       mnl_attr_get_u32(tb[TM_A_RULE_MARK]) : 0);
		break;
	case TM_ACT_LB:
		putchar(' ');
		tm_print_word(stdout, tb[TM_A_RULE_LB_SERVICE] ?
			      mnl_attr_get_str(tb[TM_A_RULE_LB_SERVICE]) : "?");
		break;
	}
}

void tm_rule_text(const struct nlattr **tb, const char *verb,
		  const char *table, bool counters)
{
	printf("rule %s ", verb);
	tm_print_word(stdout, tm_rule_table(tb, table));
	if (tb[TM_A_RULE_ID])
		tm_text_u64("id", mnl_attr_get_u32(tb[TM_A_RULE_ID]));
	if (!strcmp(verb, "del"))
		return;
	if (tb[TM_A_RULE_PRIORITY])
		tm_text_u64("priority",
			    mnl_attr_get_u32(tb[TM_A_RULE_PRIORITY]));
	tm_rule_text_match(tb);
	tm_rule_text_action(tb);
	if (counters && tb[TM_A_RULE_PACKETS])
		tm_text_u64("packets", mnl_attr_get_u64(tb[TM_A_RULE_PACKETS]));
	if (counters && tb[TM_A_RULE_BYTES])
		tm_text_u64("bytes", mnl_attr_get_u64(tb[TM_A_RULE_BYTES]));
}

static void tm_out_prefix(const struct nlattr **tb, const char *key,
			  int addr, int len)
{
	char buf[INET6_ADDRSTRLEN + 8];
	struct tm_prefix p;

	if (tm_get_prefix(tb, addr, len, &p))
		tm_out_str(key, tm_prefix_str(&p, false, buf, sizeof(buf)));
}

static void tm_out_ports(const struct nlattr **tb, const char *lo,
			 const char *hi, int min)
{
	uint16_t range[2];

	if (!tb[min] && !tb[min + 1])
		return;
	tm_get_ports(tb, min, range);
	tm_out_u64(lo, range[0]);
	tm_out_u64(hi, range[1]);
}

static void tm_out_dev(const struct nlattr **tb, const char *key, int attr)
{
	char buf[32], key_index[16];
	uint32_t ifindex;

	if (!tb[attr] || !mnl_attr_get_u32(tb[attr]))
		return;
	ifindex = mnl_attr_get_u32(tb[attr]);
	tm_out_str(key, tm_dev_name(ifindex, buf, sizeof(buf)));
	snprintf(key_index, sizeof(key_index), "%s-index", key);
	tm_out_u64(key_index, ifindex);
}

void tm_rule_fields(const struct nlattr **tb, const char *table,
		    bool counters)
{
	uint8_t act, rej;

	tm_out_str("table", tm_rule_table(tb, table));
	if (tb[TM_A_RULE_ID])
		tm_out_u64("id", mnl_attr_get_u32(tb[TM_A_RULE_ID]));
	if (tb[TM_A_RULE_PRIORITY])
		tm_out_u64("priority",
			   mnl_attr_get_u32(tb[TM_A_RULE_PRIORITY]));
	if (tb[TM_A_RULE_FAMILY])
		tm_out_str("family",
			   tm_family_name(tm_attr_u8(tb, TM_A_RULE_FAMILY, 0)));
	tm_out_prefix(tb, "src", TM_A_RULE_SRC, TM_A_RULE_SRC_LEN);
	tm_out_prefix(tb, "dst", TM_A_RULE_DST, TM_A_RULE_DST_LEN);
	tm_out_ports(tb, "sport-min", "sport-max", TM_A_RULE_SPORT_MIN);
	tm_out_ports(tb, "dport-min", "dport-max", TM_A_RULE_DPORT_MIN);
	if (tb[TM_A_RULE_PROTO])
		tm_out_u64("proto", mnl_attr_get_u8(tb[TM_A_RULE_PROTO]));
	tm_out_dev(tb, "iif", TM_A_RULE_IIF);
	tm_out_dev(tb, "oif", TM_A_RULE_OIF);
	if (tb[TM_A_RULE_COMMENT])
		tm_out_str("comment", mnl_attr_get_str(tb[TM_A_RULE_COMMENT]));
	if (tb[TM_A_RULE_COOKIE])
		tm_out_u64("cookie", mnl_attr_get_u64(tb[TM_A_RULE_COOKIE]));
	if (tb[TM_A_RULE_ACTION]) {
		act = mnl_attr_get_u8(tb[TM_A_RULE_ACTION]);
		tm_out_str("action", tm_action_name(act));
		rej = tm_attr_u8(tb, TM_A_RULE_REJECT, TM_REJECT_AUTO);
		if (act == TM_ACT_REJECT)
			tm_out_str("reject", tm_reject_name(rej));
	}
	if (tb[TM_A_RULE_MARK])
		tm_out_u64("mark", mnl_attr_get_u32(tb[TM_A_RULE_MARK]));
	if (tb[TM_A_RULE_LB_SERVICE])
		tm_out_str("lb-service",
			   mnl_attr_get_str(tb[TM_A_RULE_LB_SERVICE]));
	if (counters && tb[TM_A_RULE_PACKETS])
		tm_out_u64("packets", mnl_attr_get_u64(tb[TM_A_RULE_PACKETS]));
	if (counters && tb[TM_A_RULE_BYTES])
		tm_out_u64("bytes", mnl_attr_get_u64(tb[TM_A_RULE_BYTES]));
}

void tm_rule_print(const struct nlattr **tb, const char *table,
		   bool counters)
{
	if (tmctl.json) {
		tm_out_begin_object();
		tm_rule_fields(tb, table, counters);
		tm_out_end_object();
		return;
	}
	tm_rule_text(tb, "add", table, counters);
	putchar('\n');
}

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
	struct tm_rule_cb_ctx c = { .table = w->argv[0] };
	char buf[MNL_SOCKET_BUFFER_SIZE];
	bool echo = tmctl.echo && (verb == TM_VERB_ADD ||
				   verb == TM_VERB_REPLACE);
	struct tm_rule_req r;
	struct nlmsghdr *nlh;
	int ret;

	if (tm_rule_parse(w, verb, &r))
		return TMCTL_EPARSE;
	if (tmctl.check)
		return TMCTL_OK;
	nlh = tm_nl_request(buf, tm_rule_cmd(verb), echo ? NLM_F_ECHO : 0);
	tm_rule_put(nlh, &r, NULL);
	if (echo)
		tm_out_begin_list();
	ret = tm_nl_talk(nlh, echo ? tm_rule_cb : NULL, &c, w->what);
	if (echo)
		tm_out_end_list();
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
};

struct tm_key_req {
	struct tm_prefix src, dst;
	int dst_word;
	uint32_t sport, dport, iif, oif;
	uint8_t proto;
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
	if (key.seen[TM_L_SPORT])
		mnl_attr_put_u16(nlh, TM_A_KEY_SPORT, (uint16_t)key.sport);
	if (key.seen[TM_L_DPORT])
		mnl_attr_put_u16(nlh, TM_A_KEY_DPORT, (uint16_t)key.dport);
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
