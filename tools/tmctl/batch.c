// SPDX-License-Identifier: GPL-2.0
/*
 * tmctl -f FILE: batch files.  This file owns their reading: words split
 * as a shell would (blanks, 'single' and "double" quotes, backslash
 * escapes, backslash-newline continuations, # comments), one command per
 * line, every line parsed before anything is sent and every bad line
 * reported as FILE:LINE:COL; then the whole file goes to the kernel as one
 * transaction (txn.c), and each refusal is reported at its line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tmctl.h"

/* Bad lines reported before giving up. */
#define TM_BATCH_ERRORS_MAX	20

/* One command: words [first, first + n) of the file. */
struct tm_batch_cmd {
	size_t first;
	int n;
	struct tm_pos end;	/* just past its last word */
};

struct tm_batch {
	const char *name;	/* for messages; "<stdin>" for "-" */
	char *text;		/* the file */
	size_t len;
	char *arena;		/* the words, unquoted, NUL-terminated */
	size_t arena_used;
	char **words;
	struct tm_pos *pos;
	size_t nwords, words_cap;
	struct tm_batch_cmd *cmds;
	size_t ncmds, cmds_cap;
	struct tm_rule_req *reqs;
	unsigned int bad;	/* lines with an error */
	uint16_t family;
};

static void *tm_grow(void *p, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 64;

	if (need <= *cap)
		return p;
	while (n < need)
		n *= 2;
	p = realloc(p, n * elem);
	if (!p) {
		fputs("tmctl: out of memory\n", stderr);
		exit(TMCTL_EPARSE);
	}
	*cap = n;
	return p;
}

/* The whole file; "-" is stdin. */
static int tm_batch_read(struct tm_batch *b, const char *path)
{
	bool std = !strcmp(path, "-");
	FILE *f = std ? stdin : fopen(path, "rb");
	size_t cap = 0, n;

	b->name = std ? "<stdin>" : path;
	if (!f)
		return tm_parse_error("%s: %s", path, strerror(errno));
	for (;;) {
		b->text = tm_grow(b->text, &cap, b->len + 65536, 1);
		n = fread(b->text + b->len, 1, cap - b->len, f);
		b->len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		if (!std)
			fclose(f);
		return tm_parse_error("%s: %s", path, strerror(errno));
	}
	if (!std)
		fclose(f);
	/* Every word is at most its bytes in the file plus a NUL. */
	b->arena = malloc(2 * b->len + 2);
	if (!b->arena) {
		fputs("tmctl: out of memory\n", stderr);
		exit(TMCTL_EPARSE);
	}
	return 0;
}

/* The tokenizer's position in the file. */
struct tm_scan {
	const char *p, *end;
	const char *bol;	/* first byte of the current line */
	unsigned int line;
};

static bool tm_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static struct tm_pos tm_scan_pos(const struct tm_scan *s, const char *at)
{
	struct tm_pos pos = { s->line, (unsigned int)(at - s->bol) + 1 };

	return pos;
}

/* A backslash-newline at s->p (with an optional CR): skip it. */
static bool tm_scan_continuation(struct tm_scan *s)
{
	const char *q = s->p + 1;

	if (s->p >= s->end || *s->p != '\\')
		return false;
	if (q < s->end && *q == '\r')
		q++;
	if (q >= s->end || *q != '\n')
		return false;
	s->p = q + 1;
	s->bol = s->p;
	s->line++;
	return true;
}

static int tm_scan_error(struct tm_batch *b, struct tm_pos pos,
			 const char *msg)
{
	fprintf(stderr, "%s:%u:%u: error: %s\n", b->name, pos.line, pos.col,
		msg);
	return -1;
}

/*
 * One word at s->p into the arena; 0, or -1 with the error reported.
 */
static int tm_scan_word(struct tm_batch *b, struct tm_scan *s)
{
	char *out = b->arena + b->arena_used;
	struct tm_pos pos = tm_scan_pos(s, s->p), q;

	b->words = tm_grow(b->words, &b->words_cap, b->nwords + 1,
			   sizeof(*b->words));
	b->pos = realloc(b->pos, b->words_cap * sizeof(*b->pos));
	if (!b->pos) {
		fputs("tmctl: out of memory\n", stderr);
		exit(TMCTL_EPARSE);
	}
	b->words[b->nwords] = out;
	b->pos[b->nwords] = pos;

	while (s->p < s->end && !tm_blank(*s->p) && *s->p != '\n') {
		char c = *s->p;

		if (c == '\\') {
			if (tm_scan_continuation(s))
				continue;
			/* Any other escaped byte stands for itself. */
			if (s->p + 1 < s->end)
				*out++ = *++s->p;
			s->p++;
		} else if (c == '\'') {
			q = tm_scan_pos(s, s->p);
			for (s->p++; s->p < s->end && *s->p != '\''; s->p++) {
				if (*s->p == '\n' || !*s->p)
					break;
				*out++ = *s->p;
			}
			if (s->p >= s->end || *s->p != '\'')
				return tm_scan_error(b, q,
						     "unterminated ' quote");
			s->p++;
		} else if (c == '"') {
			q = tm_scan_pos(s, s->p);
			for (s->p++; s->p < s->end && *s->p != '"';) {
				if (tm_scan_continuation(s))
					continue;
				if (*s->p == '\n' || !*s->p)
					break;
				if (*s->p == '\\' && s->p + 1 < s->end &&
				    (s->p[1] == '"' || s->p[1] == '\\'))
					s->p++;
				*out++ = *s->p++;
			}
			if (s->p >= s->end || *s->p != '"')
				return tm_scan_error(b, q,
						     "unterminated \" quote");
			s->p++;
		} else if (!c) {
			return tm_scan_error(b, tm_scan_pos(s, s->p),
					     "NUL byte");
		} else {
			*out++ = c;
			s->p++;
		}
	}
	*out++ = '\0';
	b->arena_used = out - b->arena;
	b->nwords++;
	return 0;
}

static int tm_batch_parse_cmd(struct tm_batch *b, size_t i);

/* The words since @first make a command: parse it now. */
static void tm_batch_end_cmd(struct tm_batch *b, size_t first,
			     struct tm_pos end)
{
	struct tm_batch_cmd *c;
	size_t cap = b->cmds_cap;

	if (b->nwords == first || b->bad >= TM_BATCH_ERRORS_MAX)
		return;
	b->cmds = tm_grow(b->cmds, &b->cmds_cap, b->ncmds + 1,
			  sizeof(*b->cmds));
	if (cap != b->cmds_cap) {
		b->reqs = realloc(b->reqs, b->cmds_cap * sizeof(*b->reqs));
		if (!b->reqs) {
			fputs("tmctl: out of memory\n", stderr);
			exit(TMCTL_EPARSE);
		}
	}
	c = &b->cmds[b->ncmds];
	c->first = first;
	c->n = (int)(b->nwords - first);
	c->end = end;
	if (tm_batch_parse_cmd(b, b->ncmds))
		b->bad++;
	b->ncmds++;
}

/*
 * Split the file into commands of words and parse each, reporting the
 * bad ones, up to TM_BATCH_ERRORS_MAX.
 */
static void tm_batch_split(struct tm_batch *b)
{
	struct tm_scan s = { b->text, b->text + b->len, b->text, 1 };
	struct tm_pos end = { 1, 1 };
	size_t first = 0;

	while (s.p < s.end && b->bad < TM_BATCH_ERRORS_MAX) {
		if (*s.p == '\n') {
			tm_batch_end_cmd(b, first, end);
			first = b->nwords;
			s.p++;
			s.bol = s.p;
			s.line++;
		} else if (tm_blank(*s.p)) {
			s.p++;
		} else if (tm_scan_continuation(&s)) {
			continue;
		} else if (*s.p == '#') {
			while (s.p < s.end && *s.p != '\n')
				s.p++;
		} else if (tm_scan_word(b, &s) < 0) {
			/* Drop the command, skip to the end of its line. */
			b->bad++;
			b->nwords = first;
			while (s.p < s.end && *s.p != '\n')
				s.p++;
		} else {
			end = tm_scan_pos(&s, s.p);
		}
	}
	tm_batch_end_cmd(b, first, end);
}

static struct tm_words tm_batch_words(const struct tm_batch *b, size_t i)
{
	const struct tm_batch_cmd *c = &b->cmds[i];
	struct tm_words w = {
		.argv = b->words + c->first,
		.pos = b->pos + c->first,
		.argc = c->n,
		.file = b->name,
		.end = c->end,
	};

	return w;
}

static int tm_batch_parse_cmd(struct tm_batch *b, size_t i)
{
	static const char * const verbs[] = {
		[TM_VERB_ADD] = "add",
		[TM_VERB_REPLACE] = "replace",
		[TM_VERB_DEL] = "delete",
		[TM_VERB_FLUSH] = "flush",
	};
	struct tm_words w = tm_batch_words(b, i), rest;
	unsigned int v;

	if (!tm_matches(w.argv[0], "rule"))
		return tm_werror(&w, 0,
				 "'%s': a batch file holds rule add, replace, del and flush commands only",
				 w.argv[0]);
	if (w.argc < 2)
		return tm_werror(&w, 1,
				 "missing rule command (add, replace, del or flush)");
	for (v = 0; v < ARRAY_SIZE(verbs); v++)
		if (tm_matches(w.argv[1], verbs[v]))
			break;
	if (v == ARRAY_SIZE(verbs))
		return tm_werror(&w, 1,
				 "unknown rule command '%s' (add, replace, del or flush)",
				 w.argv[1]);
	rest = tm_words_shift(&w, 2);
	return tm_rule_parse(&rest, v, &b->reqs[i]);
}

static struct nlmsghdr *tm_batch_put(void *ctx, size_t i, char *buf,
				     struct tm_attr_map *map)
{
	struct tm_batch *b = ctx;
	struct nlmsghdr *nlh;

	nlh = tm_nl_put_header(buf, b->family, tm_rule_cmd(b->reqs[i].verb),
			       0);
	tm_rule_put(nlh, &b->reqs[i], map);
	return nlh;
}

static void tm_batch_error(void *ctx, size_t i, const struct tm_nlerr *e,
			   const struct tm_attr_map *map)
{
	struct tm_batch *b = ctx;
	struct tm_words w = tm_batch_words(b, i);
	int word = map ? tm_attr_map_word(map, e->offs) : -1;

	/* Map words count from the table, after "rule VERB". */
	if (word >= 0 && word + 2 < w.argc)
		fprintf(stderr, "%s:%u:%u: error: ", b->name,
			w.pos[word + 2].line, w.pos[word + 2].col);
	else
		fprintf(stderr, "%s:%u: error: ", b->name, w.pos[0].line);
	tm_nl_print_reason(stderr, e);
	fputc('\n', stderr);
}

static void tm_batch_free(struct tm_batch *b)
{
	free(b->text);
	free(b->arena);
	free(b->words);
	free(b->pos);
	free(b->cmds);
	free(b->reqs);
}

int tm_do_batch(const char *path)
{
	struct tm_batch b = {};
	struct tm_txn_ops ops = {
		.put = tm_batch_put,
		.error = tm_batch_error,
		.ctx = &b,
	};
	int ret;

	if (tm_batch_read(&b, path)) {
		tm_batch_free(&b);
		return TMCTL_EPARSE;
	}
	tm_batch_split(&b);
	if (b.bad >= TM_BATCH_ERRORS_MAX)
		fprintf(stderr, "%s: error: too many errors, stopped\n",
			b.name);
	if (b.bad || tmctl.check) {
		if (!b.bad && tmctl.verbose)
			fprintf(stderr, "%s: %zu commands, no error\n", b.name,
				b.ncmds);
		tm_batch_free(&b);
		return b.bad ? TMCTL_EPARSE : TMCTL_OK;
	}
	ops.n = b.ncmds;
	if (b.ncmds)
		b.family = tm_nl_family();
	ret = tm_txn_run(&ops, b.name);
	tm_batch_free(&b);
	return ret;
}
