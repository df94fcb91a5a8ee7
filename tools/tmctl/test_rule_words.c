// SPDX-License-Identifier: GPL-2.0
/*
 * test_rule_words: the rule word table both ways, without a kernel.  Each
 * line of stdin is "VERB TABLE WORDS..." (words split at blanks, "..."
 * quoting one word); it is parsed as "rule VERB", made into a request,
 * and the request's attributes are printed as a reply would be: the text
 * line, then the JSON object.  A line that does not parse prints "error"
 * (the message goes to stderr).  test_rule_words.sh compares the output.
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
	static char line[4096], buf[8192];
	const struct nlattr *tb[TM_A_MAX + 1];
	struct tm_rule_req r;
	struct nlmsghdr *nlh;
	struct tm_words w;
	char *argv[256];
	int argc, verb;

	while (fgets(line, sizeof(line), stdin)) {
		argc = tm_split(line, argv, ARRAY_SIZE(argv));
		if (!argc)
			continue;
		verb = tm_verb(argv[0]);
		w = (struct tm_words){
			.argv = argv + 1,
			.argc = argc - 1,
			.what = "rule",
		};
		if (verb < 0 || tm_rule_parse(&w, verb, &r)) {
			puts("error");
			continue;
		}
		nlh = tm_nl_put_header(buf, GENL_ID_CTRL + 1,
				       tm_rule_cmd(verb), 0);
		tm_rule_put(nlh, &r, NULL);
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
