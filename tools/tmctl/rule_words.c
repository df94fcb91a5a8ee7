// SPDX-License-Identifier: GPL-2.0
/*
 * The words of a rule.  One table, tm_rule_words[], says for each keyword
 * of "rule add" which field of the request it sets, which attribute
 * carries it and what type it is; the type reads the value word, puts the
 * attribute, and prints a reply's attribute back as text (the words of
 * "rule add", which read back as a batch file) and as JSON members.  Rule
 * commands, batch files, import, listings and monitor all go through it:
 * a new match field is one row, and one type if its values are new.
 *
 * A row with a set attribute also takes a set of values, "KEYWORD { V, V
 * }" as nftables writes its anonymous sets: the set is read, put and
 * printed here (tm_set_parse(), tm_rule_set_put(), tm_rule_set_print()),
 * each of its values by the row's type as it does the value of a plain
 * keyword.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
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
 * @size: for a type of sets, the bytes of its value in struct tm_rule_req
 *	(at most those of union tm_rule_value.v)
 * @str: for a type of sets, the value of @tb (a reply's, or one value's of
 *	a set) as a word of the text, in @buf; NULL without one
 * @elem: for a type of sets, the same as an element of a JSON array, as
 *	@json prints it, with tm_out_*() and no key
 * @free_text: its value is any word, even one starting with '{': never
 *	taken for a set
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
	size_t size;
	const char *(*str)(const struct nlattr **tb,
			   const struct tm_rule_word *d, char *buf,
			   size_t len);
	void (*elem)(const struct nlattr **tb, const struct tm_rule_word *d);
	bool free_text;
};

/* The longest value @str writes: an IPv6 prefix. */
#define TM_RW_STR_MAX	(INET6_ADDRSTRLEN + 8)

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
 * @set_attr: the attribute of its set, for a keyword of one value word
 *	that also takes a set; 0 for one that does not
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
	uint16_t set_attr;
	size_t off;
	uint64_t min, max;
	const char *json;
};

/* The JSON member of a row: its keyword, unless it says otherwise. */
static const char *tm_rw_json_key(const struct tm_rule_word *d)
{
	return d->json ? d->json : d->keyword;
}

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

/* A set's value prints whatever its length: the set has it. */
static const char *tm_rw_prefix_str(const struct nlattr **tb,
				    const struct tm_rule_word *d, char *buf,
				    size_t len)
{
	struct tm_prefix p;

	if (!tm_rw_get_prefix(tb, d->attr, &p))
		return NULL;
	return tm_prefix_str(&p, true, buf, len);
}

static void tm_rw_prefix_elem(const struct nlattr **tb,
			      const struct tm_rule_word *d)
{
	char buf[INET6_ADDRSTRLEN + 8];
	struct tm_prefix p;

	if (tm_rw_get_prefix(tb, d->attr, &p))
		tm_out_str(NULL, tm_prefix_str(&p, false, buf, sizeof(buf)));
}

static const struct tm_rule_type tm_rw_prefix = {
	.parse = tm_rw_prefix_parse,
	.put = tm_rw_prefix_put,
	.text = tm_rw_prefix_text,
	.json = tm_rw_prefix_json,
	.size = sizeof(struct tm_prefix),
	.str = tm_rw_prefix_str,
	.elem = tm_rw_prefix_elem,
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

/*
 * The first address of a reply's field: its attribute @addr, else the
 * first value of its set @set.  Whether the text prints it: a /0 prefix
 * is printed in a set, as every value of a set, not alone.
 */
static bool tm_rw_first_prefix(const struct nlattr **tb, int addr, int set,
			       struct tm_prefix *p)
{
	const struct nlattr *etb[TM_A_MAX + 1];
	const struct nlattr *e;

	if (tm_rw_get_prefix(tb, addr, p))
		return p->len;
	if (!tb[set])
		return false;
	e = mnl_attr_get_payload(tb[set]);
	if (!mnl_attr_ok(e, (int)mnl_attr_get_payload_len(tb[set])) ||
	    tm_nl_parse_nested(e, etb) < 0)
		return false;
	return tm_rw_get_prefix(etb, addr, p);
}

static void tm_rw_family_text(const struct nlattr **tb,
			      const struct tm_rule_word *d)
{
	struct tm_prefix src, dst;
	uint8_t fam = 0, implied = 0;
	bool src_shown, dst_shown;

	src_shown = tm_rw_first_prefix(tb, TM_A_RULE_SRC, TM_A_RULE_SRC_SET,
				       &src);
	dst_shown = tm_rw_first_prefix(tb, TM_A_RULE_DST, TM_A_RULE_DST_SET,
				       &dst);
	if (src_shown)
		implied = tm_rw_family_of(&src);
	else if (dst_shown)
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

/* P or LO-HI, when the reply has either attribute. */
static const char *tm_rw_ports_str(const struct nlattr **tb,
				   const struct tm_rule_word *d, char *buf,
				   size_t len)
{
	uint16_t range[2];

	if (!tb[d->attr] && !tb[d->attr + 1])
		return NULL;
	tm_rw_get_ports(tb, d->attr, range);
	if (range[0] == range[1])
		snprintf(buf, len, "%u", range[0]);
	else
		snprintf(buf, len, "%u-%u", range[0], range[1]);
	return buf;
}

static void tm_rw_ports_text(const struct nlattr **tb,
			     const struct tm_rule_word *d)
{
	uint16_t range[2];
	char buf[16];

	if (tm_rw_get_ports(tb, d->attr, range))
		tm_rw_text_word(d->keyword,
				tm_rw_ports_str(tb, d, buf, sizeof(buf)));
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

/* A set's range is a string of the text's: "80", "443-445". */
static void tm_rw_ports_elem(const struct nlattr **tb,
			     const struct tm_rule_word *d)
{
	const char *s;
	char buf[16];

	s = tm_rw_ports_str(tb, d, buf, sizeof(buf));
	if (s)
		tm_out_str(NULL, s);
}

static const struct tm_rule_type tm_rw_ports = {
	.parse = tm_rw_ports_parse,
	.put = tm_rw_ports_put,
	.text = tm_rw_ports_text,
	.json = tm_rw_ports_json,
	.size = 2 * sizeof(uint16_t),
	.str = tm_rw_ports_str,
	.elem = tm_rw_ports_elem,
};

/* The protocol: a name or a number, a number in JSON. */

static int tm_rw_proto_parse(const struct tm_words *w, int v,
			     const struct tm_rule_word *d,
			     struct tm_rule_req *r)
{
	return tm_parse_proto(w, v, TM_RULE_VAL(r, d, uint8_t));
}

static const char *tm_rw_proto_str(const struct nlattr **tb,
				   const struct tm_rule_word *d, char *buf,
				   size_t len)
{
	if (!tb[d->attr])
		return NULL;
	return tm_proto_name(mnl_attr_get_u8(tb[d->attr]), buf, len);
}

static void tm_rw_proto_text(const struct nlattr **tb,
			     const struct tm_rule_word *d)
{
	const char *s;
	char buf[8];

	s = tm_rw_proto_str(tb, d, buf, sizeof(buf));
	if (s)
		tm_rw_text_word(d->keyword, s);
}

static void tm_rw_proto_json(const struct nlattr **tb,
			     const struct tm_rule_word *d)
{
	if (tb[d->attr])
		tm_out_u64(d->keyword, mnl_attr_get_u8(tb[d->attr]));
}

static void tm_rw_proto_elem(const struct nlattr **tb,
			     const struct tm_rule_word *d)
{
	if (tb[d->attr])
		tm_out_u64(NULL, mnl_attr_get_u8(tb[d->attr]));
}

static const struct tm_rule_type tm_rw_proto = {
	.parse = tm_rw_proto_parse,
	.put = tm_rw_u8_put,
	.text = tm_rw_proto_text,
	.json = tm_rw_proto_json,
	.size = sizeof(uint8_t),
	.str = tm_rw_proto_str,
	.elem = tm_rw_proto_elem,
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
	.free_text = true,
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

/* queue N: the NFQUEUE queue number. */
static int tm_rw_queue_parse(const struct tm_words *w, int v,
			     const struct tm_rule_word *d,
			     struct tm_rule_req *r)
{
	uint32_t q;

	r->action = d->action;
	r->word[TM_F_QUEUE] = v;
	if (tm_parse_u32(w, v, d->what, 0, UINT16_MAX, &q))
		return TMCTL_EPARSE;
	r->queue = q;
	return 0;
}

static void tm_rw_queue_put(struct nlmsghdr *nlh, struct tm_attr_map *map,
			    int word, const struct tm_rule_word *d,
			    const struct tm_rule_req *r)
{
	tm_rw_action_put(nlh, map, word, d, r);
	tm_rw_attr(nlh, map, r->word[TM_F_QUEUE], d->attr, sizeof(r->queue),
		   &r->queue);
}

static void tm_rw_queue_text(const struct nlattr **tb,
			     const struct tm_rule_word *d)
{
	if (tm_rw_action_of(tb) == d->action)
		printf(" %s %u", d->keyword,
		       tb[d->attr] ? mnl_attr_get_u16(tb[d->attr]) : 0);
}

static void tm_rw_queue_json(const struct nlattr **tb,
			     const struct tm_rule_word *d)
{
	tm_rw_action_json(tb, d);
	if (tb[d->attr])
		tm_out_u64("queue", mnl_attr_get_u16(tb[d->attr]));
}

static const struct tm_rule_type tm_rw_queue = {
	.parse = tm_rw_queue_parse,
	.put = tm_rw_queue_put,
	.text = tm_rw_queue_text,
	.json = tm_rw_queue_json,
};

/* A flag printed as its keyword: bypass, log, trace. */
static void tm_rw_bool_text(const struct nlattr **tb,
			    const struct tm_rule_word *d)
{
	if (tb[d->attr])
		printf(" %s", d->keyword);
}

static void tm_rw_bool_json(const struct nlattr **tb,
			    const struct tm_rule_word *d)
{
	if (tb[d->attr])
		tm_out_bool(tm_rw_json_key(d), true);
}

static const struct tm_rule_type tm_rw_bool = {
	.parse = tm_rw_flag_parse,
	.put = tm_rw_flag_put,
	.text = tm_rw_bool_text,
	.json = tm_rw_bool_json,
};

/* log prefix TEXT: a string under its own JSON key. */
static void tm_rw_prefix_str_json(const struct nlattr **tb,
				  const struct tm_rule_word *d)
{
	if (tb[d->attr])
		tm_out_str(tm_rw_json_key(d), mnl_attr_get_str(tb[d->attr]));
}

static const struct tm_rule_type tm_rw_log_prefix = {
	.parse = tm_rw_string_parse,
	.put = tm_rw_string_put,
	.text = tm_rw_string_text,
	.json = tm_rw_prefix_str_json,
	.free_text = true,
};

/* log level NAME: syslog's, as nft names them; a number 0..7 too. */
static const char * const tm_log_level_names[] = {
	"emerg", "alert", "crit", "err", "warn", "notice", "info", "debug",
};

static int tm_rw_level_parse(const struct tm_words *w, int v,
			     const struct tm_rule_word *d,
			     struct tm_rule_req *r)
{
	uint32_t n;

	if (w->argv[v][0] >= '0' && w->argv[v][0] <= '9') {
		if (tm_parse_u32(w, v, d->what, 0, 7, &n))
			return TMCTL_EPARSE;
		r->log_level = n;
		return 0;
	}
	return tm_parse_name(w, v, d->what, tm_log_level_names, 0, 7,
			     &r->log_level);
}

static const char *tm_rw_level_name(const struct nlattr **tb,
				    const struct tm_rule_word *d)
{
	uint8_t l = mnl_attr_get_u8(tb[d->attr]);

	return l < ARRAY_SIZE(tm_log_level_names) ? tm_log_level_names[l] :
						     "?";
}

static void tm_rw_level_text(const struct nlattr **tb,
			     const struct tm_rule_word *d)
{
	if (tb[d->attr])
		printf(" %s %s", d->keyword, tm_rw_level_name(tb, d));
}

static void tm_rw_level_json(const struct nlattr **tb,
			     const struct tm_rule_word *d)
{
	if (tb[d->attr])
		tm_out_str(tm_rw_json_key(d), tm_rw_level_name(tb, d));
}

static const struct tm_rule_type tm_rw_level = {
	.parse = tm_rw_level_parse,
	.put = tm_rw_u8_put,
	.text = tm_rw_level_text,
	.json = tm_rw_level_json,
};

/* log group N: an nflog group, u16. */
static int tm_rw_u16_parse(const struct tm_words *w, int v,
			   const struct tm_rule_word *d, struct tm_rule_req *r)
{
	uint32_t n;

	if (tm_parse_u32(w, v, d->what, d->min, d->max, &n))
		return TMCTL_EPARSE;
	*TM_RULE_VAL(r, d, uint16_t) = n;
	return 0;
}

static void tm_rw_u16_put(struct nlmsghdr *nlh, struct tm_attr_map *map,
			  int word, const struct tm_rule_word *d,
			  const struct tm_rule_req *r)
{
	tm_rw_attr(nlh, map, word, d->attr, sizeof(uint16_t),
		   TM_RULE_CVAL(r, d, uint16_t));
}

static void tm_rw_u16_text(const struct nlattr **tb,
			   const struct tm_rule_word *d)
{
	if (tb[d->attr])
		printf(" %s %u", d->keyword, mnl_attr_get_u16(tb[d->attr]));
}

static void tm_rw_u16_json(const struct nlattr **tb,
			   const struct tm_rule_word *d)
{
	if (tb[d->attr])
		tm_out_u64(tm_rw_json_key(d), mnl_attr_get_u16(tb[d->attr]));
}

static const struct tm_rule_type tm_rw_u16 = {
	.parse = tm_rw_u16_parse,
	.put = tm_rw_u16_put,
	.text = tm_rw_u16_text,
	.json = tm_rw_u16_json,
};

/*
 * log rate N[/second]: lines a second.  The kernel reports the default
 * too; the text leaves it out, so that it reads back the same.
 */
static int tm_rw_rate_parse(const struct tm_words *w, int v,
			    const struct tm_rule_word *d, struct tm_rule_req *r)
{
	const char *word = w->argv[v], *slash = strchr(word, '/');
	unsigned long long n;
	char *end;

	if (!slash)
		return tm_parse_u32(w, v, d->what, 1, TM_LOG_RATE_MAX,
				    &r->log_rate);
	errno = 0;
	n = strtoull(word, &end, 10);
	if (end != slash || strcmp(slash, "/second") || word[0] < '0' ||
	    word[0] > '9' || errno || n < 1 || n > TM_LOG_RATE_MAX)
		return tm_werror(w, v,
				 "bad %s '%s' (expected N or N/second, N 1..%u)",
				 d->what, word, TM_LOG_RATE_MAX);
	r->log_rate = n;
	return 0;
}

static void tm_rw_rate_text(const struct nlattr **tb,
			    const struct tm_rule_word *d)
{
	uint32_t n = tb[d->attr] ? mnl_attr_get_u32(tb[d->attr]) : 0;

	if (n && n != TM_LOG_RATE_DEFAULT)
		printf(" %s %u/second", d->keyword, n);
}

static void tm_rw_rate_json(const struct nlattr **tb,
			    const struct tm_rule_word *d)
{
	if (tb[d->attr])
		tm_out_u64(tm_rw_json_key(d), mnl_attr_get_u32(tb[d->attr]));
}

static const struct tm_rule_type tm_rw_rate = {
	.parse = tm_rw_rate_parse,
	.put = tm_rw_u32_put,
	.text = tm_rw_rate_text,
	.json = tm_rw_rate_json,
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
	.free_text = true,
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
	  .verbs = TM_V_SET, .set_attr = TM_A_RULE_SRC_SET },
	{ TM_KEY("dst", TM_F_DST, tm_rw_prefix, TM_A_RULE_DST, dst),
	  .verbs = TM_V_SET, .set_attr = TM_A_RULE_DST_SET },
	{ TM_KEY("sport", TM_F_SPORT, tm_rw_ports, TM_A_RULE_SPORT_MIN,
		 sport),
	  .verbs = TM_V_SET, .set_attr = TM_A_RULE_SPORT_SET },
	{ TM_KEY("dport", TM_F_DPORT, tm_rw_ports, TM_A_RULE_DPORT_MIN,
		 dport),
	  .verbs = TM_V_SET, .set_attr = TM_A_RULE_DPORT_SET },
	{ TM_KEY("proto", TM_F_PROTO, tm_rw_proto, TM_A_RULE_PROTO, proto),
	  .verbs = TM_V_SET, .set_attr = TM_A_RULE_PROTO_SET },
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
	{ TM_ACT("queue", TM_ACT_QUEUE, tm_rw_queue, TM_A_RULE_QUEUE_NUM),
	  .what = "queue number", .words = 1 },
	{ .keyword = "bypass", .field = TM_F_BYPASS, .type = &tm_rw_bool,
	  .attr = TM_A_RULE_QUEUE_BYPASS, .verbs = TM_V_SET,
	  .json = "queue_bypass" },
	{ .keyword = "log", .field = TM_F_LOG, .type = &tm_rw_bool,
	  .attr = TM_A_RULE_LOG, .verbs = TM_V_SET },
	{ TM_KEY("prefix", TM_F_LOG_PREFIX, tm_rw_log_prefix,
		 TM_A_RULE_LOG_PREFIX, log_prefix),
	  .what = "log prefix", .verbs = TM_V_SET,
	  .max = TM_LOG_PREFIX_MAX - 1, .json = "log_prefix" },
	{ TM_KEY("level", TM_F_LOG_LEVEL, tm_rw_level, TM_A_RULE_LOG_LEVEL,
		 log_level),
	  .what = "log level", .verbs = TM_V_SET, .json = "log_level" },
	{ TM_KEY("group", TM_F_LOG_GROUP, tm_rw_u16, TM_A_RULE_LOG_GROUP,
		 log_group),
	  .what = "log group", .verbs = TM_V_SET, .max = UINT16_MAX,
	  .json = "log_group" },
	{ TM_KEY("rate", TM_F_LOG_RATE, tm_rw_rate, TM_A_RULE_LOG_RATE,
		 log_rate),
	  .what = "log rate", .verbs = TM_V_SET, .json = "log_rate" },
	{ .keyword = "trace", .field = TM_F_TRACE, .type = &tm_rw_bool,
	  .attr = TM_A_RULE_TRACE, .verbs = TM_V_SET },
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

/* Sets */

/* Blanks in a word: a quoted word of a file, or of a shell. */
#define TM_SET_BLANKS	" \t\n\r\v\f"

/*
 * Word @v of @w from its byte @off on, as a command of one word, for the
 * parser and the messages about one value of a set: "{10.0.0.0/8,::1}"
 * names '::1' at its own column.  (A word with blanks was quoted: its
 * bytes are not the file's, it keeps its column.)
 */
struct tm_set_view {
	struct tm_words w;
	char *argv[1];
	struct tm_pos pos;
};

static void tm_set_view(const struct tm_words *w, int v, size_t off,
			struct tm_set_view *s)
{
	s->w = *w;
	s->argv[0] = w->argv[v] + off;
	s->w.argv = s->argv;
	s->w.argc = 1;
	s->w.keys = w->keys ? &w->keys[v] : NULL;
	if (w->pos) {
		s->pos = w->pos[v];
		if (!w->argv[v][strcspn(w->argv[v], TM_SET_BLANKS)])
			s->pos.col += (unsigned int)off;
		s->w.pos = &s->pos;
	}
}

/* A token of a set: '{', ',', '}', or a value (c 0) of @len bytes. */
struct tm_set_tok {
	int word;
	size_t off, len;
	char c;
};

/* The token at byte *@off of word *@v or after: false past the last word. */
static bool tm_set_next(const struct tm_words *w, int *v, size_t *off,
			struct tm_set_tok *t)
{
	const char *s;

	for (; *v < w->argc; ++*v, *off = 0) {
		s = w->argv[*v] + *off;
		s += strspn(s, TM_SET_BLANKS);
		if (!*s)
			continue;
		t->word = *v;
		t->off = (size_t)(s - w->argv[*v]);
		t->c = strchr("{,}", *s) ? *s : 0;
		t->len = t->c ? 1 : strcspn(s, TM_SET_BLANKS "{,}");
		*off = t->off + t->len;
		return true;
	}
	return false;
}

/* What tm_rule_parse() keeps while it reads the sets of a rule. */
struct tm_set_ctx {
	size_t cap;		/* of r->set */
	uint64_t entries;	/* the product of the sets' sizes */
};

/*
 * Value @t of a set of row @d, parsed by the row's type as a word of its
 * own, appended to r->set.
 */
static int tm_set_value(const struct tm_words *w, const struct tm_set_tok *t,
			const struct tm_rule_word *d, struct tm_rule_req *r,
			struct tm_set_ctx *c)
{
	char *end = w->argv[t->word] + t->off + t->len, saved = *end;
	struct tm_rule_value *val;
	struct tm_set_view one;
	int err;

	tm_set_view(w, t->word, t->off, &one);
	if (r->nset >= TM_SET_VALUES_MAX)
		return tm_werror(&one.w, 0,
				 "'%.*s': more than %u values in the rule's sets",
				 (int)t->len, one.argv[0], TM_SET_VALUES_MAX);
	/* The value alone: its word ends after it for a while. */
	if (saved)
		*end = '\0';
	err = d->type->parse(&one.w, 0, d, r);
	if (saved)
		*end = saved;
	if (err)
		return TMCTL_EPARSE;
	r->set = tm_grow(r->set, &c->cap, r->nset + 1, sizeof(*r->set));
	val = &r->set[r->nset++];
	memcpy(&val->v, TM_RULE_CVAL(r, d, char), d->type->size);
	val->word = (int16_t)t->word;
	val->field = d->field;
	val->off = (uint32_t)t->off;
	val->len = (uint32_t)t->len;
	return 0;
}

/* The @len bytes at @s are a keyword of a rule: the set ended before. */
static bool tm_set_keyword(const char *s, size_t len)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tm_rule_words); i++)
		if (strlen(tm_rule_words[i].keyword) == len &&
		    !strncmp(s, tm_rule_words[i].keyword, len))
			return true;
	return false;
}

/*
 * The set "{ V, V }" of row @d from its '{', byte @brace of word @v,
 * however blanks split it into words; its values in r->set.  Returns the
 * last word it took, or -1 (reported).
 */
static int tm_set_parse(const struct tm_words *w, int v, size_t brace,
			const struct tm_rule_word *d, struct tm_rule_req *r,
			struct tm_set_ctx *c)
{
	struct tm_set_tok t, comma = {};
	struct tm_set_view at, open;
	bool value = true;	/* a value comes next: after '{' or ',' */
	size_t off = brace + 1;
	unsigned int n = 0;
	int next = v;

	tm_set_view(w, v, brace, &open);
	for (;;) {
		if (!tm_set_next(w, &next, &off, &t)) {
			tm_werror(&open.w, 0,
				  "'%s': missing '}' closing the %s set",
				  w->argv[v], d->keyword);
			return -1;
		}
		if (value && !t.c) {
			if (tm_set_value(w, &t, d, r, c))
				return -1;
			n++;
			value = false;
			continue;
		}
		if (!value && t.c == ',') {
			comma = t;
			value = true;
			continue;
		}
		if (!value && t.c == '}')
			break;
		if (t.c == '}' && !n) {
			tm_werror(&open.w, 0, "'%s': empty %s set", w->argv[v],
				  d->keyword);
			return -1;
		}
		/* A ',' before a '}' or another ',', or first. */
		if (t.c == '}' || t.c == ',') {
			if (t.c == '}')
				t = comma;
			tm_set_view(w, t.word, t.off, &at);
			tm_werror(&at.w, 0, "'%s': stray ',' in the %s set",
				  w->argv[t.word], d->keyword);
			return -1;
		}
		tm_set_view(w, t.word, t.off, &at);
		if (t.c == '{')
			tm_werror(&at.w, 0, "'%s': a '{' inside the %s set",
				  w->argv[t.word], d->keyword);
		else if (tm_set_keyword(at.argv[0], t.len))
			tm_werror(&at.w, 0,
				  "'%.*s': missing '}' closing the %s set before it",
				  (int)t.len, at.argv[0], d->keyword);
		else
			tm_werror(&at.w, 0,
				  "'%.*s': expected ',' or '}' in the %s set",
				  (int)t.len, at.argv[0], d->keyword);
		return -1;
	}
	/* The '}' ends its word too. */
	off += strspn(w->argv[t.word] + off, TM_SET_BLANKS);
	if (w->argv[t.word][off]) {
		tm_set_view(w, t.word, off, &at);
		tm_werror(&at.w, 0, "'%s': unexpected '%s' after the %s set",
			  w->argv[t.word], at.argv[0], d->keyword);
		return -1;
	}
	c->entries *= n;
	if (c->entries > TM_SET_ENTRIES_MAX) {
		tm_werror(&open.w, 0,
			  "'%s': the rule's sets make %llu entries (their cross product), more than %u",
			  w->argv[v], (unsigned long long)c->entries,
			  TM_SET_ENTRIES_MAX);
		return -1;
	}
	r->sets |= 1ull << d->field;
	return t.word;
}

/* Word @v is a set for row @d, which takes none: refused. */
static int tm_set_none(const struct tm_words *w, int v,
		       const struct tm_rule_word *d)
{
	unsigned int i, k = 0, n = 0;
	char list[128];
	size_t used = 0;

	for (i = 0; i < ARRAY_SIZE(tm_rule_words); i++)
		n += !!tm_rule_words[i].set_attr;
	list[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(tm_rule_words) && used < sizeof(list); i++) {
		if (!tm_rule_words[i].set_attr)
			continue;
		used += snprintf(list + used, sizeof(list) - used, "%s%s",
				 !k ? "" : k + 1 == n ? " and " : ", ",
				 tm_rule_words[i].keyword);
		k++;
	}
	return tm_werror(w, v, "'%s': %s takes no set (sets are for %s)",
			 w->argv[v], d->keyword, list);
}

/*
 * The value word of row @d, at @v, when it is not a set: a '{' for a
 * keyword without sets, or values with ',' for one with, are refused.
 */
static int tm_set_not(const struct tm_words *w, int v,
		      const struct tm_rule_word *d)
{
	const char *arg = w->argv[v];

	if (d->set_attr && strpbrk(arg, ",{}"))
		return tm_werror(w, v,
				 "'%s': a set of values is written in braces: %s { V, V }",
				 arg, d->keyword);
	if (!d->set_attr && !d->type->free_text && arg[0] == '{')
		return tm_set_none(w, v, d);
	return 0;
}

/*
 * The set of row @d: one TM_A_RULE_SET_ELEM per value, each with the
 * attributes the row's type puts for a plain value, the word of the value
 * in @map.
 */
static void tm_rule_set_put(struct nlmsghdr *nlh, struct tm_attr_map *map,
			    const struct tm_rule_word *d,
			    const struct tm_rule_req *r)
{
	struct tm_rule_req one = {};
	struct nlattr *set, *elem;
	unsigned int i;

	tm_attr_map_add(map, nlh, r->word[d->field]);
	set = mnl_attr_nest_start(nlh, d->set_attr);
	for (i = 0; i < r->nset; i++) {
		if (r->set[i].field != d->field)
			continue;
		memcpy(TM_RULE_VAL(&one, d, char), &r->set[i].v, d->type->size);
		tm_attr_map_add(map, nlh, r->set[i].word);
		elem = mnl_attr_nest_start(nlh, TM_A_RULE_SET_ELEM);
		d->type->put(nlh, map, r->set[i].word, d, &one);
		mnl_attr_nest_end(nlh, elem);
	}
	mnl_attr_nest_end(nlh, set);
}

/*
 * The set of row @d of a reply: " KEYWORD { V, V }" in the text, "KEYWORD":
 * [V, V] in JSON, each value as the row's type prints it.
 */
static void tm_rule_set_print(const struct nlattr *set,
			      const struct tm_rule_word *d, bool json)
{
	const struct nlattr *tb[TM_A_MAX + 1];
	const struct nlattr *e;
	char buf[TM_RW_STR_MAX];
	const char *sep = " ", *s;

	if (json)
		tm_out_begin_array(d->keyword);
	else
		printf(" %s {", d->keyword);
	mnl_attr_for_each_nested(e, set) {
		if (mnl_attr_get_type(e) != TM_A_RULE_SET_ELEM ||
		    tm_nl_parse_nested(e, tb) < 0)
			continue;
		if (json) {
			d->type->elem(tb, d);
			continue;
		}
		s = d->type->str(tb, d, buf, sizeof(buf));
		printf("%s%s", sep, s ? s : "?");
		sep = ", ";
	}
	if (json)
		tm_out_end_array();
	else
		printf(" }");
}

void tm_rule_req_free(struct tm_rule_req *r)
{
	free(r->set);
	r->set = NULL;
	r->nset = 0;
	r->sets = 0;
}

/* Checks */

/*
 * The first address of field @f (TM_F_SRC or TM_F_DST): its value, or the
 * first of its set (@val, else NULL); NULL when the field is not given.
 */
static const struct tm_prefix *tm_rule_addr(const struct tm_rule_req *r,
					    int f,
					    const struct tm_rule_value **val)
{
	unsigned int i;

	*val = NULL;
	if (!TM_HAS(r, f))
		return NULL;
	if (!(r->sets & 1ull << f))
		return f == TM_F_SRC ? &r->src : &r->dst;
	for (i = 0; i < r->nset; i++) {
		if (r->set[i].field == f) {
			*val = &r->set[i];
			return &r->set[i].v.prefix;
		}
	}
	return NULL;
}

/*
 * Where the value of field @f was written, for a message: its word, or
 * @val's bytes of its word.  Returns the length of the value.
 */
static int tm_rule_value_at(const struct tm_words *w,
			    const struct tm_rule_req *r, int f,
			    const struct tm_rule_value *val,
			    struct tm_set_view *at)
{
	if (!val) {
		tm_set_view(w, r->word[f], 0, at);
		return (int)strlen(at->argv[0]);
	}
	tm_set_view(w, val->word, val->off, at);
	return (int)val->len;
}

/*
 * The addresses and the family agree: checked once all words are read.  A
 * set's addresses are of one family, which its first tells as a plain
 * address does.
 */
static int tm_rule_check_family(const struct tm_words *w,
				const struct tm_rule_req *r)
{
	bool want4 = r->family == TM_FAMILY_IPV4, v4;
	const struct tm_rule_value *first[2], *val;
	const struct tm_prefix *p[2], *q;
	struct tm_set_view at;
	unsigned int i;
	int f, n;

	for (i = 0; i < r->nset; i++) {
		val = &r->set[i];
		if (val->field != TM_F_SRC && val->field != TM_F_DST)
			continue;
		p[0] = tm_rule_addr(r, val->field, &first[0]);
		if (val->v.prefix.af == p[0]->af)
			continue;
		n = tm_rule_value_at(w, r, val->field, val, &at);
		return tm_werror(&at.w, 0,
				 "'%.*s': %s prefix in a %s set of %s prefixes",
				 n, at.argv[0], tm_af_name(val->v.prefix.af),
				 val->field == TM_F_SRC ? "src" : "dst",
				 tm_af_name(p[0]->af));
	}
	p[0] = tm_rule_addr(r, TM_F_SRC, &first[0]);
	p[1] = tm_rule_addr(r, TM_F_DST, &first[1]);
	if (p[0] && p[1] && p[0]->af != p[1]->af) {
		n = tm_rule_value_at(w, r, TM_F_DST, first[1], &at);
		return tm_werror(&at.w, 0, "'%.*s': %s destination but %s source",
				 n, at.argv[0], tm_af_name(p[1]->af),
				 tm_af_name(p[0]->af));
	}
	if (!TM_HAS(r, TM_F_FAMILY))
		return 0;
	for (f = TM_F_SRC; f <= TM_F_DST; f++) {
		q = p[f - TM_F_SRC];
		if (!q)
			continue;
		n = tm_rule_value_at(w, r, f, first[f - TM_F_SRC], &at);
		if (r->family == TM_FAMILY_INET)
			return tm_werror(&at.w, 0,
					 "'%.*s': a family inet rule matches no address (use family ip or ip6)",
					 n, at.argv[0]);
		v4 = q->af == 4;
		if (v4 != want4)
			return tm_werror(&at.w, 0,
					 "'%.*s': %s prefix in a family %s rule",
					 n, at.argv[0], tm_af_name(q->af),
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

static int tm_rule_parse_words(const struct tm_words *w,
			       enum tm_rule_verb verb, struct tm_rule_req *r)
{
	const struct tm_verb_words *vw = tm_verb_words(verb);
	struct tm_set_ctx sets = { .entries = 1 };
	const struct tm_rule_word *d;
	size_t brace;
	int i, k, f, n;

	r->verb = verb;
	if (tm_parse_table(w, 0))
		return TMCTL_EPARSE;
	if (w->argc > INT16_MAX)
		return tm_werror(w, INT16_MAX, "too many words");
	r->table = w->argv[0];
	r->word[TM_F_TABLE] = 0;
	for (i = 1; i < w->argc; i += 1 + n) {
		if (!vw->n)
			return tm_werror(w, i, "unexpected '%s'", w->argv[i]);
		/* "dport{22,80}": the keyword is before the '{'. */
		brace = strcspn(w->argv[i], "{");
		if (brace && w->argv[i][brace]) {
			w->argv[i][brace] = '\0';
			k = tm_keyword(w, i, vw->kw, vw->n);
			w->argv[i][brace] = '{';
		} else {
			brace = 0;
			k = tm_keyword(w, i, vw->kw, vw->n);
		}
		if (k < 0)
			return TMCTL_EPARSE;
		d = vw->row[k];
		f = d->field;
		n = d->words;
		if (f == TM_F_ACTION && TM_HAS(r, f))
			return tm_werror(w, i,
					 "second action '%s', the rule already has '%s'",
					 w->argv[i], w->argv[r->word[f]]);
		if (TM_HAS(r, f))
			return tm_werror(w, i, "%s given twice", d->keyword);
		if (brace && !d->set_attr)
			return tm_set_none(w, i, d);
		if (brace) {
			r->word[f] = i;
			n = tm_set_parse(w, i, brace, d, r, &sets);
			if (n < 0)
				return TMCTL_EPARSE;
			n -= i;
			continue;
		}
		if (i + n >= w->argc && n > 1)
			return tm_werror(w, i, "'%s' needs %u more words",
					 w->argv[i], n);
		if (i + n >= w->argc)
			return tm_werror(w, i, "'%s' needs a value",
					 w->argv[i]);
		/*
		 * The value's word (the last of several; a set's first), or
		 * the keyword's for flags and actions.
		 */
		r->word[f] = f == TM_F_ACTION || !n ? i : i + n;
		if (d->set_attr && w->argv[i + 1][0] == '{') {
			n = tm_set_parse(w, i + 1, 0, d, r, &sets);
			if (n < 0)
				return TMCTL_EPARSE;
			n -= i;
			continue;
		}
		if ((n && tm_set_not(w, i + 1, d)) ||
		    d->type->parse(w, i + 1, d, r))
			return TMCTL_EPARSE;
		/* "reject with TYPE" took two more words. */
		if (r->word[TM_F_REJECT] > i)
			n += 2;
	}
	if ((verb == TM_VERB_REPLACE || verb == TM_VERB_DEL) &&
	    !TM_HAS(r, TM_F_ID))
		return tm_werror(w, w->argc,
				 "missing 'id N' (rule %s needs the rule id)",
				 tm_verb_names[verb]);
	if ((verb == TM_VERB_ADD || verb == TM_VERB_REPLACE) &&
	    !TM_HAS(r, TM_F_ACTION))
		return tm_werror(w, w->argc,
				 "missing action (accept, drop, reject, mark, count, lb or queue)");
	for (f = TM_F_LOG_PREFIX; f <= TM_F_LOG_RATE; f++)
		if (TM_HAS(r, f) && !TM_HAS(r, TM_F_LOG))
			return tm_werror(w, r->word[f] - 1,
					 "'%s' is a log option: it needs 'log'",
					 w->argv[r->word[f] - 1]);
	if (TM_HAS(r, TM_F_LOG_LEVEL) && TM_HAS(r, TM_F_LOG_GROUP))
		return tm_werror(w, r->word[TM_F_LOG_GROUP] - 1,
				 "a log level (syslog) and a log group (nflog) both");
	if (TM_HAS(r, TM_F_BYPASS) && r->action != TM_ACT_QUEUE)
		return tm_werror(w, r->word[TM_F_BYPASS],
				 "'bypass' needs the action queue");
	return tm_rule_check_family(w, r);
}

int tm_rule_parse(const struct tm_words *w, enum tm_rule_verb verb,
		  struct tm_rule_req *r)
{
	struct tm_rule_value *set;
	int f;

	memset(r, 0, sizeof(*r));
	for (f = 0; f < TM_F_MAX; f++)
		r->word[f] = -1;
	if (tm_rule_parse_words(w, verb, r)) {
		tm_rule_req_free(r);
		return TMCTL_EPARSE;
	}
	/* The values of the sets, in an array of their size. */
	if (r->nset) {
		set = realloc(r->set, r->nset * sizeof(*r->set));
		if (set)
			r->set = set;
	}
	return 0;
}

static void tm_rule_put_fields(struct nlmsghdr *nlh,
			       const struct tm_rule_req *r,
			       struct tm_attr_map *map)
{
	const struct tm_rule_word *d;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tm_rule_words); i++) {
		d = &tm_rule_words[i];
		if (!TM_HAS(r, d->field) || !d->type->put)
			continue;
		if (d->field == TM_F_ACTION && r->action != d->action)
			continue;
		if (r->sets & 1ull << d->field)
			tm_rule_set_put(nlh, map, d, r);
		else
			d->type->put(nlh, map, r->word[d->field], d, r);
	}
}

void tm_rule_put(struct nlmsghdr *nlh, const struct tm_rule_req *r,
		 struct tm_attr_map *map)
{
	tm_attr_map_add(map, nlh, r->word[TM_F_TABLE]);
	mnl_attr_put_strz(nlh, TM_A_TABLE_NAME, r->table);
	tm_rule_put_fields(nlh, r, map);
}

void tm_rule_put_nest(struct nlmsghdr *nlh, const struct tm_rule_req *r,
		      struct tm_attr_map *map)
{
	struct nlattr *nest;

	/* An error at the nest itself is the rule's: no word of it. */
	tm_attr_map_add(map, nlh, -1);
	nest = mnl_attr_nest_start(nlh, TM_A_RULE);
	tm_rule_put_fields(nlh, r, map);
	mnl_attr_nest_end(nlh, nest);
}

void tm_rule_put_nested(struct nlmsghdr *nlh, const struct tm_rule_req *r,
			struct tm_attr_map *map)
{
	tm_attr_map_add(map, nlh, r->word[TM_F_TABLE]);
	mnl_attr_put_strz(nlh, TM_A_TABLE_NAME, r->table);
	tm_rule_put_nest(nlh, r, map);
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
		if (!d->type->text || !tm_rule_prints(d, del, counters))
			continue;
		if (d->set_attr && tb[d->set_attr])
			tm_rule_set_print(tb[d->set_attr], d, false);
		else
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
		if (!d->type->json || !tm_rule_prints(d, false, counters))
			continue;
		if (d->set_attr && tb[d->set_attr])
			tm_rule_set_print(tb[d->set_attr], d, true);
		else
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
