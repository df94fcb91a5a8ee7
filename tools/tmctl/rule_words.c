// SPDX-License-Identifier: GPL-2.0
/*
 * The words of a rule.  One table, tm_rule_words[], says for each keyword
 * of "rule add" which field of the request it sets, which attribute
 * carries it and what type it is; the type reads the value word, puts the
 * attribute, and prints a reply's attribute back as text (the words of
 * "rule add", which read back as a batch file) and as JSON members.  Rule
 * commands, batch files, import, listings and monitor all go through it:
 * a new match field is one row, and one type if its values are new.
 */
#include <arpa/inet.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "tmctl.h"

/* Longest lb service name: the kernel's, a table name's. */
#define TM_LB_SERVICE_MAX	(TM_NAME_MAX - 1)

struct tm_rule_word;

/**
 * struct tm_rule_type - how one kind of value goes from a word to an
 *	attribute and back
 * @parse: read the value at word @v into @r (TMCTL_EPARSE, reported)
 * @put: add the attribute(s) of @r, each recorded in @map for word @word
 * @text: print " KEYWORD VALUE" of a reply, if it has one worth printing
 * @json: the same as members, with tm_out_*()
 *
 * Each gets its row @d: the attribute, the field and the offset of the
 * value in struct tm_rule_req.  A NULL @put is a word never sent, a NULL
 * @text or @json one never printed.
 */
struct tm_rule_type {
	int (*parse)(const struct tm_words *w, int v,
		     const struct tm_rule_word *d, struct tm_rule_req *r);
	void (*put)(struct nlmsghdr *nlh, struct tm_attr_map *map, int word,
		    const struct tm_rule_word *d, const struct tm_rule_req *r);
	void (*text)(const struct nlattr **tb, const struct tm_rule_word *d);
	void (*json)(const struct nlattr **tb, const struct tm_rule_word *d);
};

/**
 * struct tm_rule_word - one keyword of a rule
 * @keyword: the word, as typed and as printed
 * @what: what its value is, in error messages
 * @type: its kind of value
 * @field: the enum tm_rule_field it sets; every action sets TM_F_ACTION
 * @verbs: the verbs that take it, BIT(enum tm_rule_verb)
 * @words: the value words that follow the keyword ("reject with TYPE"
 *	takes two more than its 0)
 * @counter: a counter, printed only when counters are asked for
 * @action: TM_ACT_* of an action keyword
 * @attr: its attribute, the first of a pair (address and length, min and
 *	max); an action's value attribute
 * @off: offset of the value in struct tm_rule_req
 * @min: the smallest number it takes
 * @max: the largest number it takes, or the longest string
 */
struct tm_rule_word {
	const char *keyword;
	const char *what;
	const struct tm_rule_type *type;
	uint8_t field;
	uint8_t verbs;
	uint8_t words;
	bool counter;
	uint8_t action;
	uint16_t attr;
	size_t off;
	uint64_t min, max;
};

#define TM_RULE_VAL(r, d, type)	((type *)((char *)(r) + (d)->off))
#define TM_RULE_CVAL(r, d, type) \
	((const type *)((const char *)(r) + (d)->off))

/* Put one attribute, made by @word. */
static void tm_rw_attr(struct nlmsghdr *nlh, struct tm_attr_map *map,
		       int word, uint16_t type, size_t len, const void *data)
{
	tm_attr_map_add(map, nlh, word);
	mnl_attr_put(nlh, type, len, data);
}

static void tm_rw_text_word(const char *key, const char *val)
{
	printf(" %s ", key);
	tm_print_word(stdout, val);
}

/* Numbers: id, priority, cookie; counters, read back and never sent. */

static int tm_rw_u32_parse(const struct tm_words *w, int v,
			   const struct tm_rule_word *d, struct tm_rule_req *r)
{
	return tm_parse_u32(w, v, d->what, d->min, d->max,
			    TM_RULE_VAL(r, d, uint32_t));
}

static void tm_rw_u32_put(struct nlmsghdr *nlh, struct tm_attr_map *map,
			  int word, const struct tm_rule_word *d,
			  const struct tm_rule_req *r)
{
	tm_rw_attr(nlh, map, word, d->attr, sizeof(uint32_t),
		   TM_RULE_CVAL(r, d, uint32_t));
}

static void tm_rw_u32_text(const struct nlattr **tb,
			   const struct tm_rule_word *d)
{
	if (tb[d->attr])
		printf(" %s %u", d->keyword, mnl_attr_get_u32(tb[d->attr]));
}

static void tm_rw_u32_json(const struct nlattr **tb,
			   const struct tm_rule_word *d)
{
	if (tb[d->attr])
		tm_out_u64(d->keyword, mnl_attr_get_u32(tb[d->attr]));
}

static const struct tm_rule_type tm_rw_u32 = {
	.parse = tm_rw_u32_parse,
	.put = tm_rw_u32_put,
	.text = tm_rw_u32_text,
	.json = tm_rw_u32_json,
};

static int tm_rw_u64_parse(const struct tm_words *w, int v,
			   const struct tm_rule_word *d, struct tm_rule_req *r)
{
	return tm_parse_u64(w, v, d->what, d->min, d->max,
			    TM_RULE_VAL(r, d, uint64_t));
}

static void tm_rw_u64_put(struct nlmsghdr *nlh, struct tm_attr_map *map,
			  int word, const struct tm_rule_word *d,
			  const struct tm_rule_req *r)
{
	tm_attr_map_add(map, nlh, word);
	mnl_attr_put_u64(nlh, d->attr, *TM_RULE_CVAL(r, d, uint64_t));
}

static void tm_rw_u64_text(const struct nlattr **tb,
			   const struct tm_rule_word *d)
{
	if (tb[d->attr])
		printf(" %s %llu", d->keyword, (unsigned long long)
		       mnl_attr_get_u64(tb[d->attr]));
}

static void tm_rw_u64_json(const struct nlattr **tb,
			   const struct tm_rule_word *d)
{
	if (tb[d->attr])
		tm_out_u64(d->keyword, mnl_attr_get_u64(tb[d->attr]));
}

static const struct tm_rule_type tm_rw_u64 = {
	.parse = tm_rw_u64_parse,
	.put = tm_rw_u64_put,
	.text = tm_rw_u64_text,
	.json = tm_rw_u64_json,
};

/* What rule list prints and the kernel keeps: read and ignored. */
static const struct tm_rule_type tm_rw_counter = {
	.parse = tm_rw_u64_parse,
	.text = tm_rw_u64_text,
	.json = tm_rw_u64_json,
};

/* Prefixes: an address attribute and a length attribute after it. */

static bool tm_rw_get_prefix(const struct nlattr **tb, int addr,
			     struct tm_prefix *p)
{
	uint16_t n;

	memset(p, 0, sizeof(*p));
	if (!tb[addr])
		return false;
	n = mnl_attr_get_payload_len(tb[addr]);
	p->af = n == 4 ? 4 : 6;
	memcpy(p->addr, mnl_attr_get_payload(tb[addr]), n);
	p->len = tb[addr + 1] ? mnl_attr_get_u8(tb[addr + 1]) : 8 * n;
	if (p->len > 8 * n)
		p->len = 8 * n;
	return true;
}

static int tm_rw_prefix_parse(const struct tm_words *w, int v,
			      const struct tm_rule_word *d,
			      struct tm_rule_req *r)
{
	return tm_parse_prefix(w, v, true, TM_RULE_VAL(r, d,
						       struct tm_prefix));
}

static void tm_rw_prefix_put(struct nlmsghdr *nlh, struct tm_attr_map *map,
			     int word, const struct tm_rule_word *d,
			     const struct tm_rule_req *r)
{
	const struct tm_prefix *p = TM_RULE_CVAL(r, d, struct tm_prefix);

	tm_rw_attr(nlh, map, word, d->attr, p->af == 4 ? 4 : 16, p->addr);
	tm_rw_attr(nlh, map, word, d->attr + 1, 1, &p->len);
}

/* A /0 prefix matches every address: printed as nothing. */
static void tm_rw_prefix_text(const struct nlattr **tb,
			      const struct tm_rule_word *d)
{
	char buf[INET6_ADDRSTRLEN + 8];
	struct tm_prefix p;

	if (tm_rw_get_prefix(tb, d->attr, &p) && p.len)
		tm_rw_text_word(d->keyword,
				tm_prefix_str(&p, true, buf, sizeof(buf)));
}

static void tm_rw_prefix_json(const struct nlattr **tb,
			      const struct tm_rule_word *d)
{
	char buf[INET6_ADDRSTRLEN + 8];
	struct tm_prefix p;

	if (tm_rw_get_prefix(tb, d->attr, &p))
		tm_out_str(d->keyword,
			   tm_prefix_str(&p, false, buf, sizeof(buf)));
}

static const struct tm_rule_type tm_rw_prefix = {
	.parse = tm_rw_prefix_parse,
	.put = tm_rw_prefix_put,
	.text = tm_rw_prefix_text,
	.json = tm_rw_prefix_json,
};

/*
 * The family: printed unless an address printed after it tells it (a /0
 * address, not printed, still tells it when the family is absent).
 */
static int tm_rw_family_parse(const struct tm_words *w, int v,
			      const struct tm_rule_word *d,
			      struct tm_rule_req *r)
{
	return tm_parse_name(w, v, d->what, tm_family_names, TM_FAMILY_IPV4,
			     TM_FAMILY_MAX, TM_RULE_VAL(r, d, uint8_t));
}

static void tm_rw_u8_put(struct nlmsghdr *nlh, struct tm_attr_map *map,
			 int word, const struct tm_rule_word *d,
			 const struct tm_rule_req *r)
{
	tm_rw_attr(nlh, map, word, d->attr, 1, TM_RULE_CVAL(r, d, uint8_t));
}

static uint8_t tm_rw_family_of(const struct tm_prefix *p)
{
	return p->af == 4 ? TM_FAMILY_IPV4 : TM_FAMILY_IPV6;
}

static void tm_rw_family_text(const struct nlattr **tb,
			      const struct tm_rule_word *d)
{
	struct tm_prefix src, dst;
	uint8_t fam = 0, implied = 0;

	tm_rw_get_prefix(tb, TM_A_RULE_SRC, &src);
	tm_rw_get_prefix(tb, TM_A_RULE_DST, &dst);
	if (src.len)
		implied = tm_rw_family_of(&src);
	else if (dst.len)
		implied = tm_rw_family_of(&dst);
	if (tb[d->attr])
		fam = mnl_attr_get_u8(tb[d->attr]);
	else if (src.af || dst.af)
		fam = tm_rw_family_of(src.af ? &src : &dst);
	if (fam && fam != implied)
		tm_rw_text_word(d->keyword, tm_family_name(fam));
}

static void tm_rw_family_json(const struct nlattr **tb,
			      const struct tm_rule_word *d)
{
	if (tb[d->attr])
		tm_out_str(d->keyword,
			   tm_family_name(mnl_attr_get_u8(tb[d->attr])));
}

static const struct tm_rule_type tm_rw_family = {
	.parse = tm_rw_family_parse,
	.put = tm_rw_u8_put,
	.text = tm_rw_family_text,
	.json = tm_rw_family_json,
};

/* Port ranges: P or LO-HI, a min attribute and a max after it. */

/* False when absent or every port. */
static bool tm_rw_get_ports(const struct nlattr **tb, int min,
			    uint16_t *range)
{
	if (!tb[min] && !tb[min + 1])
		return false;
	range[0] = tb[min] ? mnl_attr_get_u16(tb[min]) :
		   mnl_attr_get_u16(tb[min + 1]);
	range[1] = tb[min + 1] ? mnl_attr_get_u16(tb[min + 1]) : range[0];
	return range[0] != 0 || range[1] != 65535;
}

static int tm_rw_ports_parse(const struct tm_words *w, int v,
			     const struct tm_rule_word *d,
			     struct tm_rule_req *r)
{
	uint16_t *range = TM_RULE_VAL(r, d, uint16_t);

	return tm_parse_ports(w, v, &range[0], &range[1]);
}

static void tm_rw_ports_put(struct nlmsghdr *nlh, struct tm_attr_map *map,
			    int word, const struct tm_rule_word *d,
			    const struct tm_rule_req *r)
{
	const uint16_t *range = TM_RULE_CVAL(r, d, uint16_t);

	tm_rw_attr(nlh, map, word, d->attr, 2, &range[0]);
	tm_rw_attr(nlh, map, word, d->attr + 1, 2, &range[1]);
}

static void tm_rw_ports_text(const struct nlattr **tb,
			     const struct tm_rule_word *d)
{
	uint16_t range[2];
	char buf[16];

	if (!tm_rw_get_ports(tb, d->attr, range))
		return;
	if (range[0] == range[1])
		snprintf(buf, sizeof(buf), "%u", range[0]);
	else
		snprintf(buf, sizeof(buf), "%u-%u", range[0], range[1]);
	tm_rw_text_word(d->keyword, buf);
}

/* "sport-min" and "sport-max", whenever the reply has either. */
static void tm_rw_ports_json(const struct nlattr **tb,
			     const struct tm_rule_word *d)
{
	uint16_t range[2];
	char key[32];

	if (!tb[d->attr] && !tb[d->attr + 1])
		return;
	tm_rw_get_ports(tb, d->attr, range);
	snprintf(key, sizeof(key), "%s-min", d->keyword);
	tm_out_u64(key, range[0]);
	snprintf(key, sizeof(key), "%s-max", d->keyword);
	tm_out_u64(key, range[1]);
}

static const struct tm_rule_type tm_rw_ports = {
	.parse = tm_rw_ports_parse,
	.put = tm_rw_ports_put,
	.text = tm_rw_ports_text,
	.json = tm_rw_ports_json,
};

/* The protocol: a name or a number, a number in JSON. */

static int tm_rw_proto_parse(const struct tm_words *w, int v,
			     const struct tm_rule_word *d,
			     struct tm_rule_req *r)
{
	return tm_parse_proto(w, v, TM_RULE_VAL(r, d, uint8_t));
}

static void tm_rw_proto_text(const struct nlattr **tb,
			     const struct tm_rule_word *d)
{
	char buf[8];

	if (tb[d->attr])
		tm_rw_text_word(d->keyword,
				tm_proto_name(mnl_attr_get_u8(tb[d->attr]),
					      buf, sizeof(buf)));
}

static void tm_rw_proto_json(const struct nlattr **tb,
			     const struct tm_rule_word *d)
{
	if (tb[d->attr])
		tm_out_u64(d->keyword, mnl_attr_get_u8(tb[d->attr]));
}

static const struct tm_rule_type tm_rw_proto = {
	.parse = tm_rw_proto_parse,
	.put = tm_rw_u8_put,
	.text = tm_rw_proto_text,
	.json = tm_rw_proto_json,
};

/* Devices: a name or an ifindex; 0 is any device. */

static int tm_rw_dev_parse(const struct tm_words *w, int v,
			   const struct tm_rule_word *d, struct tm_rule_req *r)
{
	return tm_parse_dev(w, v, TM_RULE_VAL(r, d, uint32_t));
}

static void tm_rw_dev_text(const struct nlattr **tb,
			   const struct tm_rule_word *d)
{
	char buf[32];

	if (tb[d->attr] && mnl_attr_get_u32(tb[d->attr]))
		tm_rw_text_word(d->keyword,
				tm_dev_name(mnl_attr_get_u32(tb[d->attr]),
					    buf, sizeof(buf)));
}

/* "iif" by name (or number) and "iif-index". */
static void tm_rw_dev_json(const struct nlattr **tb,
			   const struct tm_rule_word *d)
{
	char buf[32], key[32];
	uint32_t ifindex;

	if (!tb[d->attr] || !mnl_attr_get_u32(tb[d->attr]))
		return;
	ifindex = mnl_attr_get_u32(tb[d->attr]);
	tm_out_str(d->keyword, tm_dev_name(ifindex, buf, sizeof(buf)));
	snprintf(key, sizeof(key), "%s-index", d->keyword);
	tm_out_u64(key, ifindex);
}

static const struct tm_rule_type tm_rw_dev = {
	.parse = tm_rw_dev_parse,
	.put = tm_rw_u32_put,
	.text = tm_rw_dev_text,
	.json = tm_rw_dev_json,
};

/* Strings: at most @max bytes, no control character. */

static int tm_rw_string_check(const struct tm_words *w, int v,
			      const struct tm_rule_word *d)
{
	const unsigned char *s = (const unsigned char *)w->argv[v];

	if (strlen(w->argv[v]) > d->max)
		return tm_werror(w, v, "%s is longer than %llu bytes", d->what,
				 (unsigned long long)d->max);
	for (; *s; s++)
		if (*s < ' ' || *s == 0x7f)
			return tm_werror(w, v, "%s has a control character",
					 d->what);
	return 0;
}

static int tm_rw_string_parse(const struct tm_words *w, int v,
			      const struct tm_rule_word *d,
			      struct tm_rule_req *r)
{
	*TM_RULE_VAL(r, d, const char *) = w->argv[v];
	return tm_rw_string_check(w, v, d);
}

static void tm_rw_string_put(struct nlmsghdr *nlh, struct tm_attr_map *map,
			     int word, const struct tm_rule_word *d,
			     const struct tm_rule_req *r)
{
	tm_attr_map_add(map, nlh, word);
	mnl_attr_put_strz(nlh, d->attr, *TM_RULE_CVAL(r, d, const char *));
}

static void tm_rw_string_text(const struct nlattr **tb,
			      const struct tm_rule_word *d)
{
	if (tb[d->attr])
		tm_rw_text_word(d->keyword, mnl_attr_get_str(tb[d->attr]));
}

static void tm_rw_string_json(const struct nlattr **tb,
			      const struct tm_rule_word *d)
{
	if (tb[d->attr])
		tm_out_str(d->keyword, mnl_attr_get_str(tb[d->attr]));
}

static const struct tm_rule_type tm_rw_string = {
	.parse = tm_rw_string_parse,
	.put = tm_rw_string_put,
	.text = tm_rw_string_text,
	.json = tm_rw_string_json,
};

/* A flag: the attribute without a payload. */

static int tm_rw_flag_parse(const struct tm_words *w, int v,
			    const struct tm_rule_word *d, struct tm_rule_req *r)
{
	return 0;
}

static void tm_rw_flag_put(struct nlmsghdr *nlh, struct tm_attr_map *map,
			   int word, const struct tm_rule_word *d,
			   const struct tm_rule_req *r)
{
	tm_rw_attr(nlh, map, word, d->attr, 0, NULL);
}

static const struct tm_rule_type tm_rw_flag = {
	.parse = tm_rw_flag_parse,
	.put = tm_rw_flag_put,
};

/*
 * Actions.  Every action keyword sets TM_F_ACTION and puts TM_A_RULE_ACTION;
 * reject, mark and lb also have a value in their own field and attribute
 * (@attr of their row).  A reply prints the row of its action: a reply
 * without TM_A_RULE_ACTION is an accept in the text, none in JSON.
 */
static uint8_t tm_rw_action_of(const struct nlattr **tb)
{
	return tm_attr_u8(tb, TM_A_RULE_ACTION, TM_ACT_ACCEPT);
}

static int tm_rw_action_parse(const struct tm_words *w, int v,
			      const struct tm_rule_word *d,
			      struct tm_rule_req *r)
{
	r->action = d->action;
	return 0;
}

static void tm_rw_action_put(struct nlmsghdr *nlh, struct tm_attr_map *map,
			     int word, const struct tm_rule_word *d,
			     const struct tm_rule_req *r)
{
	tm_rw_attr(nlh, map, word, TM_A_RULE_ACTION, 1, &r->action);
}

static void tm_rw_action_text(const struct nlattr **tb,
			      const struct tm_rule_word *d)
{
	if (tm_rw_action_of(tb) == d->action)
		printf(" %s", d->keyword);
}

static void tm_rw_action_json(const struct nlattr **tb,
			      const struct tm_rule_word *d)
{
	if (tb[TM_A_RULE_ACTION] && tm_rw_action_of(tb) == d->action)
		tm_out_str("action", d->keyword);
}

static const struct tm_rule_type tm_rw_action = {
	.parse = tm_rw_action_parse,
	.put = tm_rw_action_put,
	.text = tm_rw_action_text,
	.json = tm_rw_action_json,
};

/* reject [with TYPE]: the type's word is the keyword's without one. */
static int tm_rw_reject_parse(const struct tm_words *w, int v,
			      const struct tm_rule_word *d,
			      struct tm_rule_req *r)
{
	r->action = d->action;
	r->reject = TM_REJECT_AUTO;
	r->word[TM_F_REJECT] = v - 1;
	if (v >= w->argc || !tm_matches(w->argv[v], "with"))
		return 0;
	if (v + 1 >= w->argc)
		return tm_werror(w, v, "'%s' needs a reject type",
				 w->argv[v]);
	r->word[TM_F_REJECT] = v + 1;
	return tm_parse_name(w, v + 1, "reject type", tm_reject_names,
			     TM_REJECT_TCP_RESET, TM_REJECT_MAX, &r->reject);
}

static void tm_rw_reject_put(struct nlmsghdr *nlh, struct tm_attr_map *map,
			     int word, const struct tm_rule_word *d,
			     const struct tm_rule_req *r)
{
	tm_rw_action_put(nlh, map, word, d, r);
	tm_rw_attr(nlh, map, r->word[TM_F_REJECT], d->attr, 1, &r->reject);
}

static void tm_rw_reject_text(const struct nlattr **tb,
			      const struct tm_rule_word *d)
{
	uint8_t rej = tm_attr_u8(tb, d->attr, TM_REJECT_AUTO);

	if (tm_rw_action_of(tb) != d->action)
		return;
	printf(" %s", d->keyword);
	if (rej != TM_REJECT_AUTO)
		printf(" with %s", tm_reject_name(rej));
}

static void tm_rw_reject_json(const struct nlattr **tb,
			      const struct tm_rule_word *d)
{
	if (!tb[TM_A_RULE_ACTION] || tm_rw_action_of(tb) != d->action)
		return;
	tm_out_str("action", d->keyword);
	tm_out_str("reject",
		   tm_reject_name(tm_attr_u8(tb, d->attr, TM_REJECT_AUTO)));
}

static const struct tm_rule_type tm_rw_reject = {
	.parse = tm_rw_reject_parse,
	.put = tm_rw_reject_put,
	.text = tm_rw_reject_text,
	.json = tm_rw_reject_json,
};

/* mark VALUE, printed in hex. */
static int tm_rw_mark_parse(const struct tm_words *w, int v,
			    const struct tm_rule_word *d, struct tm_rule_req *r)
{
	r->action = d->action;
	r->word[TM_F_MARK] = v;
	return tm_parse_u32(w, v, d->what, 0, UINT32_MAX, &r->mark);
}

static void tm_rw_mark_put(struct nlmsghdr *nlh, struct tm_attr_map *map,
			   int word, const struct tm_rule_word *d,
			   const struct tm_rule_req *r)
{
	tm_rw_action_put(nlh, map, word, d, r);
	tm_rw_attr(nlh, map, r->word[TM_F_MARK], d->attr, sizeof(r->mark),
		   &r->mark);
}

static void tm_rw_mark_text(const struct nlattr **tb,
			    const struct tm_rule_word *d)
{
	if (tm_rw_action_of(tb) == d->action)
		printf(" %s 0x%x", d->keyword,
		       tb[d->attr] ? mnl_attr_get_u32(tb[d->attr]) : 0);
}

static void tm_rw_mark_json(const struct nlattr **tb,
			    const struct tm_rule_word *d)
{
	tm_rw_action_json(tb, d);
	if (tb[d->attr])
		tm_out_u64("mark", mnl_attr_get_u32(tb[d->attr]));
}

static const struct tm_rule_type tm_rw_mark = {
	.parse = tm_rw_mark_parse,
	.put = tm_rw_mark_put,
	.text = tm_rw_mark_text,
	.json = tm_rw_mark_json,
};

/* lb SERVICE. */
static int tm_rw_lb_parse(const struct tm_words *w, int v,
			  const struct tm_rule_word *d, struct tm_rule_req *r)
{
	r->action = d->action;
	r->word[TM_F_LB] = v;
	r->lb = w->argv[v];
	if (!w->argv[v][0])
		return tm_werror(w, v, "%s is empty", d->what);
	return tm_rw_string_check(w, v, d);
}

static void tm_rw_lb_put(struct nlmsghdr *nlh, struct tm_attr_map *map,
			 int word, const struct tm_rule_word *d,
			 const struct tm_rule_req *r)
{
	tm_rw_action_put(nlh, map, word, d, r);
	tm_attr_map_add(map, nlh, r->word[TM_F_LB]);
	mnl_attr_put_strz(nlh, d->attr, r->lb);
}

static void tm_rw_lb_text(const struct nlattr **tb,
			  const struct tm_rule_word *d)
{
	if (tm_rw_action_of(tb) != d->action)
		return;
	printf(" %s ", d->keyword);
	tm_print_word(stdout, tb[d->attr] ? mnl_attr_get_str(tb[d->attr]) :
			      "?");
}

static void tm_rw_lb_json(const struct nlattr **tb,
			  const struct tm_rule_word *d)
{
	tm_rw_action_json(tb, d);
	if (tb[d->attr])
		tm_out_str("lb-service", mnl_attr_get_str(tb[d->attr]));
}

static const struct tm_rule_type tm_rw_lb = {
	.parse = tm_rw_lb_parse,
	.put = tm_rw_lb_put,
	.text = tm_rw_lb_text,
	.json = tm_rw_lb_json,
};

/*
 * The stateful matches.  Each is absent from a reply that does not have
 * it, so every printer starts by looking for its attribute.
 */

/* A keyword's second word ("ct state", "meta mark"): @what's own name. */
static int tm_rw_second(const struct tm_words *w, int v, const char *want,
			const struct tm_rule_word *d)
{
	if (!strcmp(w->argv[v], want))
		return 0;
	return tm_werror(w, v, "'%s': expected '%s %s'", w->argv[v],
			 d->keyword, want);
}

/* ct state STATE[,STATE...] */
static int tm_rw_ct_parse(const struct tm_words *w, int v,
			  const struct tm_rule_word *d, struct tm_rule_req *r)
{
	uint64_t set;

	if (tm_rw_second(w, v, "state", d) ||
	    tm_parse_set(w, v + 1, "connection state", tm_ct_state_names,
			 TM_CT_STATE_MAX + 1, &set))
		return TMCTL_EPARSE;
	r->ct_set = (uint8_t)set;
	return 0;
}

static void tm_rw_ct_text(const struct nlattr **tb,
			  const struct tm_rule_word *d)
{
	char buf[128];

	if (tb[d->attr])
		printf(" %s state %s", d->keyword,
		       tm_set_str(mnl_attr_get_u8(tb[d->attr]),
				  tm_ct_state_names, TM_CT_STATE_MAX + 1,
				  buf, sizeof(buf)));
}

static void tm_rw_ct_json(const struct nlattr **tb,
			  const struct tm_rule_word *d)
{
	char buf[128];

	if (tb[d->attr])
		tm_out_str("ct-state",
			   tm_set_str(mnl_attr_get_u8(tb[d->attr]),
				      tm_ct_state_names, TM_CT_STATE_MAX + 1,
				      buf, sizeof(buf)));
}

static const struct tm_rule_type tm_rw_ct = {
	.parse = tm_rw_ct_parse,
	.put = tm_rw_u8_put,
	.text = tm_rw_ct_text,
	.json = tm_rw_ct_json,
};

/* tcp-flags MASK VALUE: lists of flag names; VALUE may be "none". */
static int tm_rw_tcp_flags_parse(const struct tm_words *w, int v,
				 const struct tm_rule_word *d,
				 struct tm_rule_req *r)
{
	if (tm_parse_tcp_flags(w, v, &r->tcp_flags[0]) ||
	    tm_parse_tcp_flags(w, v + 1, &r->tcp_flags[1]))
		return TMCTL_EPARSE;
	if (!r->tcp_flags[0])
		return tm_werror(w, v, "'%s': a TCP flags mask has a flag",
				 w->argv[v]);
	if (r->tcp_flags[1] & ~r->tcp_flags[0])
		return tm_werror(w, v + 1, "'%s': flags outside the mask '%s'",
				 w->argv[v + 1], w->argv[v]);
	return 0;
}

static void tm_rw_tcp_flags_put(struct nlmsghdr *nlh,
				struct tm_attr_map *map, int word,
				const struct tm_rule_word *d,
				const struct tm_rule_req *r)
{
	tm_rw_attr(nlh, map, word - 1, TM_A_RULE_TCP_FLAGS_MASK, 1,
		   &r->tcp_flags[0]);
	tm_rw_attr(nlh, map, word, d->attr, 1, &r->tcp_flags[1]);
}

static const char *tm_rw_flags_str(uint8_t flags, char *buf, size_t len)
{
	if (!flags)
		return "none";
	return tm_set_str(flags, tm_tcp_flag_names, 8, buf, len);
}

static void tm_rw_tcp_flags_text(const struct nlattr **tb,
				 const struct tm_rule_word *d)
{
	char mask[64], val[64];

	if (!tb[TM_A_RULE_TCP_FLAGS_MASK])
		return;
	printf(" %s %s %s", d->keyword,
	       tm_rw_flags_str(mnl_attr_get_u8(tb[TM_A_RULE_TCP_FLAGS_MASK]),
			       mask, sizeof(mask)),
	       tm_rw_flags_str(tm_attr_u8(tb, d->attr, 0), val, sizeof(val)));
}

static void tm_rw_tcp_flags_json(const struct nlattr **tb,
				 const struct tm_rule_word *d)
{
	char buf[64];

	if (!tb[TM_A_RULE_TCP_FLAGS_MASK])
		return;
	tm_out_str("tcp-flags-mask",
		   tm_rw_flags_str(mnl_attr_get_u8(tb[TM_A_RULE_TCP_FLAGS_MASK]),
				   buf, sizeof(buf)));
	tm_out_str("tcp-flags", tm_rw_flags_str(tm_attr_u8(tb, d->attr, 0),
						buf, sizeof(buf)));
}

static const struct tm_rule_type tm_rw_tcp_flags = {
	.parse = tm_rw_tcp_flags_parse,
	.put = tm_rw_tcp_flags_put,
	.text = tm_rw_tcp_flags_text,
	.json = tm_rw_tcp_flags_json,
};

/* icmp-type T[-T2], icmp-code C[-C2]: u8 ranges, a min and a max. */
static int tm_rw_icmp_parse(const struct tm_words *w, int v,
			    const struct tm_rule_word *d,
			    struct tm_rule_req *r)
{
	uint16_t *range = TM_RULE_VAL(r, d, uint16_t);

	return tm_parse_range(w, v, d->what, 255, &range[0], &range[1]);
}

static void tm_rw_icmp_put(struct nlmsghdr *nlh, struct tm_attr_map *map,
			   int word, const struct tm_rule_word *d,
			   const struct tm_rule_req *r)
{
	const uint16_t *range = TM_RULE_CVAL(r, d, uint16_t);
	uint8_t lo = (uint8_t)range[0], hi = (uint8_t)range[1];

	tm_rw_attr(nlh, map, word, d->attr, 1, &lo);
	tm_rw_attr(nlh, map, word, d->attr + 1, 1, &hi);
}

static bool tm_rw_get_icmp(const struct nlattr **tb, int min, unsigned int *lo,
			   unsigned int *hi)
{
	if (!tb[min] && !tb[min + 1])
		return false;
	*lo = tb[min] ? mnl_attr_get_u8(tb[min]) : 0;
	*hi = tb[min + 1] ? mnl_attr_get_u8(tb[min + 1]) : 255;
	return true;
}

static void tm_rw_icmp_text(const struct nlattr **tb,
			    const struct tm_rule_word *d)
{
	unsigned int lo, hi;

	if (!tm_rw_get_icmp(tb, d->attr, &lo, &hi))
		return;
	if (lo == hi)
		printf(" %s %u", d->keyword, lo);
	else
		printf(" %s %u-%u", d->keyword, lo, hi);
}

static void tm_rw_icmp_json(const struct nlattr **tb,
			    const struct tm_rule_word *d)
{
	unsigned int lo, hi;
	char key[32];

	if (!tm_rw_get_icmp(tb, d->attr, &lo, &hi))
		return;
	snprintf(key, sizeof(key), "%s-min", d->keyword);
	tm_out_u64(key, lo);
	snprintf(key, sizeof(key), "%s-max", d->keyword);
	tm_out_u64(key, hi);
}

static const struct tm_rule_type tm_rw_icmp = {
	.parse = tm_rw_icmp_parse,
	.put = tm_rw_icmp_put,
	.text = tm_rw_icmp_text,
	.json = tm_rw_icmp_json,
};

/* meta mark VALUE[/MASK]: the mask defaults to every bit. */
static int tm_rw_meta_parse(const struct tm_words *w, int v,
			    const struct tm_rule_word *d,
			    struct tm_rule_req *r)
{
	char *arg = w->argv[v + 1], *slash = strchr(arg, '/');
	struct tm_words one = *w;
	char *words[1];
	int err;

	if (tm_rw_second(w, v, "mark", d))
		return TMCTL_EPARSE;
	r->meta_mark[1] = UINT32_MAX;
	if (!slash)
		return tm_parse_u32(w, v + 1, d->what, 0, UINT32_MAX,
				    &r->meta_mark[0]);
	/* VALUE and MASK parsed apart; messages name the whole word. */
	*slash = '\0';
	words[0] = arg;
	one.argv = words;
	one.argc = 1;
	one.pos = w->pos ? &w->pos[v + 1] : NULL;
	one.keys = w->keys ? &w->keys[v + 1] : NULL;
	err = tm_parse_u32(&one, 0, d->what, 0, UINT32_MAX,
			   &r->meta_mark[0]);
	words[0] = slash + 1;
	if (!err)
		err = tm_parse_u32(&one, 0, "mark mask", 1, UINT32_MAX,
				   &r->meta_mark[1]);
	*slash = '/';
	if (err)
		return TMCTL_EPARSE;
	if (r->meta_mark[0] & ~r->meta_mark[1])
		return tm_werror(w, v + 1, "'%s': mark bits outside the mask",
				 arg);
	return 0;
}

static void tm_rw_meta_put(struct nlmsghdr *nlh, struct tm_attr_map *map,
			   int word, const struct tm_rule_word *d,
			   const struct tm_rule_req *r)
{
	tm_rw_attr(nlh, map, word, d->attr, 4, &r->meta_mark[0]);
	if (r->meta_mark[1] != UINT32_MAX)
		tm_rw_attr(nlh, map, word, TM_A_RULE_META_MARK_MASK, 4,
			   &r->meta_mark[1]);
}

static void tm_rw_meta_text(const struct nlattr **tb,
			    const struct tm_rule_word *d)
{
	uint32_t mask;

	if (!tb[d->attr])
		return;
	mask = tb[TM_A_RULE_META_MARK_MASK] ?
	       mnl_attr_get_u32(tb[TM_A_RULE_META_MARK_MASK]) : UINT32_MAX;
	printf(" %s mark 0x%x", d->keyword, mnl_attr_get_u32(tb[d->attr]));
	if (mask != UINT32_MAX)
		printf("/0x%x", mask);
}

static void tm_rw_meta_json(const struct nlattr **tb,
			    const struct tm_rule_word *d)
{
	if (!tb[d->attr])
		return;
	tm_out_u64("meta-mark", mnl_attr_get_u32(tb[d->attr]));
	tm_out_u64("meta-mark-mask", tb[TM_A_RULE_META_MARK_MASK] ?
		   mnl_attr_get_u32(tb[TM_A_RULE_META_MARK_MASK]) :
		   UINT32_MAX);
}

static const struct tm_rule_type tm_rw_meta = {
	.parse = tm_rw_meta_parse,
	.put = tm_rw_meta_put,
	.text = tm_rw_meta_text,
	.json = tm_rw_meta_json,
};

/* dscp N[-M][,...]: a u64 set. */
static int tm_rw_dscp_parse(const struct tm_words *w, int v,
			    const struct tm_rule_word *d,
			    struct tm_rule_req *r)
{
	return tm_parse_num_set(w, v, d->what, 63, &r->dscp_set);
}

static void tm_rw_dscp_put(struct nlmsghdr *nlh, struct tm_attr_map *map,
			   int word, const struct tm_rule_word *d,
			   const struct tm_rule_req *r)
{
	tm_attr_map_add(map, nlh, word);
	mnl_attr_put_u64(nlh, d->attr, r->dscp_set);
}

static void tm_rw_dscp_text(const struct nlattr **tb,
			    const struct tm_rule_word *d)
{
	char buf[256];

	if (tb[d->attr])
		printf(" %s %s", d->keyword,
		       tm_num_set_str(mnl_attr_get_u64(tb[d->attr]), buf,
				      sizeof(buf)));
}

static void tm_rw_dscp_json(const struct nlattr **tb,
			    const struct tm_rule_word *d)
{
	char buf[256];

	if (tb[d->attr])
		tm_out_str(d->keyword,
			   tm_num_set_str(mnl_attr_get_u64(tb[d->attr]), buf,
					  sizeof(buf)));
}

static const struct tm_rule_type tm_rw_dscp = {
	.parse = tm_rw_dscp_parse,
	.put = tm_rw_dscp_put,
	.text = tm_rw_dscp_text,
	.json = tm_rw_dscp_json,
};

/* fragment KIND[,KIND...] */
static int tm_rw_frag_parse(const struct tm_words *w, int v,
			    const struct tm_rule_word *d,
			    struct tm_rule_req *r)
{
	uint64_t set;

	if (tm_parse_set(w, v, "fragment kind", tm_fragment_names,
			 TM_FRAGMENT_MAX + 1, &set))
		return TMCTL_EPARSE;
	r->frag_set = (uint8_t)set;
	return 0;
}

static void tm_rw_frag_text(const struct nlattr **tb,
			    const struct tm_rule_word *d)
{
	char buf[64];

	if (tb[d->attr])
		printf(" %s %s", d->keyword,
		       tm_set_str(mnl_attr_get_u8(tb[d->attr]),
				  tm_fragment_names, TM_FRAGMENT_MAX + 1, buf,
				  sizeof(buf)));
}

static void tm_rw_frag_json(const struct nlattr **tb,
			    const struct tm_rule_word *d)
{
	char buf[64];

	if (tb[d->attr])
		tm_out_str(d->keyword,
			   tm_set_str(mnl_attr_get_u8(tb[d->attr]),
				      tm_fragment_names, TM_FRAGMENT_MAX + 1,
				      buf, sizeof(buf)));
}

static const struct tm_rule_type tm_rw_frag = {
	.parse = tm_rw_frag_parse,
	.put = tm_rw_u8_put,
	.text = tm_rw_frag_text,
	.json = tm_rw_frag_json,
};

#define TM_V(v)		(1u << TM_VERB_##v)
#define TM_V_SET	(TM_V(ADD) | TM_V(REPLACE))
#define TM_OFF(m)	offsetof(struct tm_rule_req, m)

/* A match or an attribute of the rule: a keyword and a value. */
#define TM_KEYN(kw, f, t, a, m, n)					\
	.keyword = kw, .field = f, .type = &(t), .attr = a,	\
	.off = TM_OFF(m), .words = n
#define TM_KEY(kw, f, t, a, m)	TM_KEYN(kw, f, t, a, m, 1)
/* An action: sets TM_F_ACTION; @a is its value's attribute, if any. */
#define TM_ACT(kw, act, t, a)						\
	.keyword = kw, .field = TM_F_ACTION, .type = &(t), .attr = a,	\
	.action = act, .verbs = TM_V_SET

/*
 * Every keyword of a rule, in the order a rule prints: the one table of
 * what a rule is made of on this side of the ABI.
 */
static const struct tm_rule_word tm_rule_words[] = {
	{ TM_KEY("id", TM_F_ID, tm_rw_u32, TM_A_RULE_ID, id),
	  .what = "rule id", .verbs = TM_V_SET | TM_V(DEL),
	  .min = 1, .max = TM_RULE_ID_MAX },
	{ TM_KEY("priority", TM_F_PRIORITY, tm_rw_u32, TM_A_RULE_PRIORITY,
		 priority),
	  .what = "priority", .verbs = TM_V_SET, .max = UINT32_MAX },
	{ TM_KEY("family", TM_F_FAMILY, tm_rw_family, TM_A_RULE_FAMILY,
		 family),
	  .what = "family", .verbs = TM_V_SET },
	{ TM_KEY("src", TM_F_SRC, tm_rw_prefix, TM_A_RULE_SRC, src),
	  .verbs = TM_V_SET },
	{ TM_KEY("dst", TM_F_DST, tm_rw_prefix, TM_A_RULE_DST, dst),
	  .verbs = TM_V_SET },
	{ TM_KEY("sport", TM_F_SPORT, tm_rw_ports, TM_A_RULE_SPORT_MIN,
		 sport),
	  .verbs = TM_V_SET },
	{ TM_KEY("dport", TM_F_DPORT, tm_rw_ports, TM_A_RULE_DPORT_MIN,
		 dport),
	  .verbs = TM_V_SET },
	{ TM_KEY("proto", TM_F_PROTO, tm_rw_proto, TM_A_RULE_PROTO, proto),
	  .verbs = TM_V_SET },
	{ TM_KEY("iif", TM_F_IIF, tm_rw_dev, TM_A_RULE_IIF, iif),
	  .verbs = TM_V_SET },
	{ TM_KEY("oif", TM_F_OIF, tm_rw_dev, TM_A_RULE_OIF, oif),
	  .verbs = TM_V_SET },
	{ TM_KEYN("ct", TM_F_CT, tm_rw_ct, TM_A_RULE_CT_STATE, ct_set, 2),
	  .verbs = TM_V_SET },
	{ TM_KEYN("tcp-flags", TM_F_TCP_FLAGS, tm_rw_tcp_flags,
		  TM_A_RULE_TCP_FLAGS, tcp_flags, 2),
	  .verbs = TM_V_SET },
	{ TM_KEY("icmp-type", TM_F_ICMP_TYPE, tm_rw_icmp,
		 TM_A_RULE_ICMP_TYPE_MIN, icmp_type),
	  .what = "ICMP type", .verbs = TM_V_SET },
	{ TM_KEY("icmp-code", TM_F_ICMP_CODE, tm_rw_icmp,
		 TM_A_RULE_ICMP_CODE_MIN, icmp_code),
	  .what = "ICMP code", .verbs = TM_V_SET },
	{ TM_KEYN("meta", TM_F_META_MARK, tm_rw_meta, TM_A_RULE_META_MARK,
		  meta_mark, 2),
	  .what = "mark", .verbs = TM_V_SET },
	{ TM_KEY("dscp", TM_F_DSCP, tm_rw_dscp, TM_A_RULE_DSCP, dscp_set),
	  .what = "DSCP", .verbs = TM_V_SET },
	{ TM_KEY("fragment", TM_F_FRAGMENT, tm_rw_frag, TM_A_RULE_FRAGMENT,
		 frag_set),
	  .verbs = TM_V_SET },
	{ TM_KEY("comment", TM_F_COMMENT, tm_rw_string, TM_A_RULE_COMMENT,
		 comment),
	  .what = "comment", .verbs = TM_V_SET, .max = TM_COMMENT_MAX - 1 },
	{ TM_KEY("cookie", TM_F_COOKIE, tm_rw_u64, TM_A_RULE_COOKIE, cookie),
	  .what = "cookie", .verbs = TM_V_SET, .max = UINT64_MAX },
	{ TM_ACT("accept", TM_ACT_ACCEPT, tm_rw_action, 0) },
	{ TM_ACT("drop", TM_ACT_DROP, tm_rw_action, 0) },
	{ TM_ACT("reject", TM_ACT_REJECT, tm_rw_reject, TM_A_RULE_REJECT) },
	{ TM_ACT("mark", TM_ACT_MARK, tm_rw_mark, TM_A_RULE_MARK),
	  .what = "mark", .words = 1 },
	{ TM_ACT("count", TM_ACT_COUNT, tm_rw_action, 0) },
	{ TM_ACT("lb", TM_ACT_LB, tm_rw_lb, TM_A_RULE_LB_SERVICE),
	  .what = "lb service name", .words = 1,
	  .max = TM_LB_SERVICE_MAX },
	{ TM_KEY("packets", TM_F_PACKETS, tm_rw_counter, TM_A_RULE_PACKETS,
		 packets),
	  .what = "packets", .verbs = TM_V_SET, .counter = true,
	  .max = UINT64_MAX },
	{ TM_KEY("bytes", TM_F_BYTES, tm_rw_counter, TM_A_RULE_BYTES, bytes),
	  .what = "bytes", .verbs = TM_V_SET, .counter = true,
	  .max = UINT64_MAX },
	{ .keyword = "reset-counters", .field = TM_F_RESET,
	  .type = &tm_rw_flag, .attr = TM_A_RULE_RESET_COUNTERS,
	  .verbs = TM_V(REPLACE) },
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

/*
 * The keywords a verb takes, for tm_keyword(): abbreviations are
 * unambiguous among these only.
 */
struct tm_verb_words {
	unsigned int n;
	struct tm_keyword kw[ARRAY_SIZE(tm_rule_words)];
	const struct tm_rule_word *row[ARRAY_SIZE(tm_rule_words)];
};

static struct tm_verb_words tm_verb_words_of[ARRAY_SIZE(tm_verb_names)];

static void tm_verb_words_init(void)
{
	const struct tm_rule_word *d;
	struct tm_verb_words *vw;
	unsigned int v, i;

	for (v = 0; v < ARRAY_SIZE(tm_verb_words_of); v++) {
		vw = &tm_verb_words_of[v];
		for (i = 0; i < ARRAY_SIZE(tm_rule_words); i++) {
			d = &tm_rule_words[i];
			if (!(d->verbs & (1u << v)))
				continue;
			vw->kw[vw->n].name = d->keyword;
			vw->kw[vw->n].value = d->words > 0;
			vw->row[vw->n++] = d;
		}
	}
}

static const struct tm_verb_words *tm_verb_words(enum tm_rule_verb verb)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, tm_verb_words_init);
	return &tm_verb_words_of[verb];
}

int tm_rule_parse(const struct tm_words *w, enum tm_rule_verb verb,
		  struct tm_rule_req *r)
{
	const struct tm_verb_words *vw = tm_verb_words(verb);
	const struct tm_rule_word *d;
	int i, k, f;

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
	for (i = 1; i < w->argc; i += 1 + d->words) {
		if (!vw->n)
			return tm_werror(w, i, "unexpected '%s'", w->argv[i]);
		k = tm_keyword(w, i, vw->kw, vw->n);
		if (k < 0)
			return TMCTL_EPARSE;
		d = vw->row[k];
		f = d->field;
		if (f == TM_F_ACTION && TM_HAS(r, f))
			return tm_werror(w, i,
					 "second action '%s', the rule already has '%s'",
					 w->argv[i], w->argv[r->word[f]]);
		if (TM_HAS(r, f))
			return tm_werror(w, i, "%s given twice", d->keyword);
		if (i + d->words >= w->argc && d->words > 1)
			return tm_werror(w, i, "'%s' needs %u more words",
					 w->argv[i], d->words);
		if (i + d->words >= w->argc)
			return tm_werror(w, i, "'%s' needs a value",
					 w->argv[i]);
		/*
		 * The value's word (the last of several), or the keyword's
		 * for flags and actions.
		 */
		r->word[f] = f == TM_F_ACTION || !d->words ? i : i + d->words;
		if (d->type->parse(w, i + 1, d, r))
			return TMCTL_EPARSE;
		/* "reject with TYPE" took two more words. */
		if (r->word[TM_F_REJECT] > i)
			i += 2;
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

void tm_rule_put(struct nlmsghdr *nlh, const struct tm_rule_req *r,
		 struct tm_attr_map *map)
{
	const struct tm_rule_word *d;
	unsigned int i;

	tm_attr_map_add(map, nlh, r->word[TM_F_TABLE]);
	mnl_attr_put_strz(nlh, TM_A_TABLE_NAME, r->table);
	for (i = 0; i < ARRAY_SIZE(tm_rule_words); i++) {
		d = &tm_rule_words[i];
		if (!TM_HAS(r, d->field) || !d->type->put)
			continue;
		if (d->field == TM_F_ACTION && r->action != d->action)
			continue;
		d->type->put(nlh, map, r->word[d->field], d, r);
	}
}

/* Printing */

static const char *tm_rule_table(const struct nlattr **tb, const char *table)
{
	if (tb[TM_A_TABLE_NAME])
		return mnl_attr_get_str(tb[TM_A_TABLE_NAME]);
	return table ? table : "?";
}

/* Whether row @d prints: "del" prints the id only. */
static bool tm_rule_prints(const struct tm_rule_word *d, bool del,
			   bool counters)
{
	if (del)
		return d->field == TM_F_ID;
	return !d->counter || counters;
}

void tm_rule_text(const struct nlattr **tb, const char *verb,
		  const char *table, bool counters)
{
	bool del = !strcmp(verb, "del");
	const struct tm_rule_word *d;
	unsigned int i;

	printf("rule %s ", verb);
	tm_print_word(stdout, tm_rule_table(tb, table));
	for (i = 0; i < ARRAY_SIZE(tm_rule_words); i++) {
		d = &tm_rule_words[i];
		if (d->type->text && tm_rule_prints(d, del, counters))
			d->type->text(tb, d);
	}
	/* An action this tmctl does not know. */
	if (!del && tm_rw_action_of(tb) > TM_ACT_MAX)
		printf(" %s", tm_action_name(tm_rw_action_of(tb)));
}

void tm_rule_fields(const struct nlattr **tb, const char *table,
		    bool counters)
{
	const struct tm_rule_word *d;
	unsigned int i;

	tm_out_str("table", tm_rule_table(tb, table));
	for (i = 0; i < ARRAY_SIZE(tm_rule_words); i++) {
		d = &tm_rule_words[i];
		if (d->type->json && tm_rule_prints(d, false, counters))
			d->type->json(tb, d);
	}
	if (tb[TM_A_RULE_ACTION] && tm_rw_action_of(tb) > TM_ACT_MAX)
		tm_out_str("action", tm_action_name(tm_rw_action_of(tb)));
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
