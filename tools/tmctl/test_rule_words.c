// SPDX-License-Identifier: GPL-2.0
/*
 * test_rule_words: the rule word table both ways, without a kernel.  Each
 * line of stdin is "VERB TABLE WORDS..." (words split at blanks, "..."
 * quoting one word); it is parsed as "rule VERB", made into a request,
 * and the request's attributes are printed as a reply would be: the text
 * line, then the JSON object.  A line "map VERB TABLE WORDS..." prints
 * instead the word each attribute of the request is mapped to (struct
 * tm_attr_map, which names the word of a kernel's extack), a nest as
 * "WORD( ... )".  A line "table NAME RULES [ENTRIES]" prints a table
 * reply with these counts, as table show does, in text and in JSON.  A
 * line that does not parse prints "error" (the message goes to stderr).
 * test_rule_words.sh compares the output.
 */
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>

#include "tmctl.h"

struct tmctl tmctl;

/* Split @line in place; returns the number of words. */
static int tm_split(char *line, char **argv, int max)
{
	int argc = 0;
	char *p = line;

	while (*p && argc < max) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		if (*p == '"') {
			argv[argc++] = ++p;
			p = strchrnul(p, '"');
		} else {
			argv[argc++] = p;
			p += strcspn(p, " \t\n");
		}
		if (*p)
			*p++ = '\0';
	}
	return argc;
}

/* The words of attribute @a of @nlh and of those in it, if a nest. */
static void tm_map_attr(const struct nlmsghdr *nlh, const struct nlattr *a,
			const struct tm_attr_map *map, char **words,
			bool *first)
{
	uint32_t offs = (uint32_t)((const char *)a - (const char *)nlh);
	int type = mnl_attr_get_type(a), word = tm_attr_map_word(map, offs);
	const struct nlattr *n;

	printf("%s%s", *first ? "" : " ", word >= 0 ? words[word] : "?");
	*first = false;
	if (type < TM_A_RULE_SRC_SET || type > TM_A_RULE_SET_ELEM)
		return;
	putchar('(');
	mnl_attr_for_each_nested(n, a)
		tm_map_attr(nlh, n, map, words, first);
	printf(" )");
}

/* A table reply with @argc - 1 counts: its fields in text, then JSON. */
static void tm_table_reply(char *buf, int argc, char **argv)
{
	const struct nlattr *tb[TM_A_MAX + 1];
	struct nlmsghdr *nlh;

	nlh = tm_nl_put_header(buf, GENL_ID_CTRL + 1, TM_CMD_TABLE_GET, 0);
	mnl_attr_put_strz(nlh, TM_A_TABLE_NAME, argv[0]);
	if (argc > 1)
		mnl_attr_put_u32(nlh, TM_A_TABLE_RULES, atoi(argv[1]));
	if (argc > 2)
		mnl_attr_put_u32(nlh, TM_A_TABLE_ENTRIES, atoi(argv[2]));
	tm_nl_parse(nlh, tb);
	for (tmctl.json = false;; tmctl.json = true) {
		tm_out_begin_object();
		tm_table_print_fields(tb);
		tm_out_end_object();
		if (tmctl.json)
			break;
	}
}

static int tm_verb(const char *s)
{
	static const char * const verbs[] = {
		[TM_VERB_ADD] = "add",
		[TM_VERB_REPLACE] = "replace",
		[TM_VERB_DEL] = "del",
		[TM_VERB_FLUSH] = "flush",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(verbs); i++)
		if (!strcmp(s, verbs[i]))
			return i;
	return -1;
}

int main(void)
{
	/* Room for a rule with 512 IPv6 prefixes, a word each. */
	static char line[65536], buf[TM_MSG_MAX] __attribute__((aligned(8)));
	static char *argv[4096];
	const struct nlattr *tb[TM_A_MAX + 1];
	static struct tm_attr_map map;
	const struct nlattr *attr;
	struct tm_rule_req r;
	struct nlmsghdr *nlh;
	struct tm_words w;
	int argc, verb, map_mode;
	bool first;

	while (fgets(line, sizeof(line), stdin)) {
		argc = tm_split(line, argv, ARRAY_SIZE(argv));
		if (argc > 1 && !strcmp(argv[0], "table")) {
			tm_table_reply(buf, argc - 1, argv + 1);
			continue;
		}
		map_mode = argc && !strcmp(argv[0], "map");
		if (argc <= map_mode)
			continue;
		verb = tm_verb(argv[map_mode]);
		w = (struct tm_words){
			.argv = argv + map_mode + 1,
			.argc = argc - map_mode - 1,
			.what = "rule",
		};
		if (verb < 0 || tm_rule_parse(&w, verb, &r)) {
			puts("error");
			continue;
		}
		nlh = tm_nl_put_header(buf, GENL_ID_CTRL + 1,
				       tm_rule_cmd(verb), 0);
		map.n = 0;
		tm_rule_put(nlh, &r, &map);
		tm_rule_req_free(&r);
		if (map_mode) {
			first = true;
			mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr))
				tm_map_attr(nlh, attr, &map, w.argv, &first);
			putchar('\n');
			continue;
		}
		if (nlh->nlmsg_len > sizeof(buf)) {
			puts("request too big");
			return 1;
		}
		if (tm_nl_parse(nlh, tb) < 0) {
			puts("bad attributes");
			continue;
		}
		tmctl.json = false;
		tm_rule_text(tb, argv[0], NULL, true);
		putchar('\n');
		tmctl.json = true;
		tm_out_begin_object();
		tm_rule_fields(tb, NULL, true);
		tm_out_end_object();
		fflush(stdout);
	}
	return 0;
}
