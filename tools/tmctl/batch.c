// SPDX-License-Identifier: GPL-2.0
/*
 * tmctl -f FILE: batch files.  This file owns their reading: words split
 * as a shell would (blanks, 'single' and "double" quotes, backslash
 * escapes, backslash-newline continuations, # comments), one command per
 * line, every bad line reported as FILE:LINE:COL; the whole file goes to
 * the kernel as one transaction (txn.c), its rules many to a message, and
 * each refusal is reported at its line (and column, when the kernel names
 * the attribute).  A file
 * holds configuration: flush ruleset, table, rule, sid and lb service and
 * backend commands; state (sid load, lb flows) and listings are refused.
 *
 * A thread parses the file while the main thread sends what is parsed, so
 * that the kernel applies the first rules while the next are parsed: on a
 * machine with two CPUs, loading takes the longer of the two instead of
 * their sum.  A bad line stops the sending and aborts the transaction, so
 * a file with an error changes nothing, as before anything was sent.  The
 * requests array is sized for the file's lines before the thread starts
 * and never moves; the sender reads a request only after the parser
 * published it (tm_batch_publish(), under b->lock), and the words and
 * positions only once the parser is done.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tmctl.h"

/* Bad lines reported before giving up. */
#define TM_BATCH_ERRORS_MAX	20
/* Requests the parser hands over at a time. */
#define TM_BATCH_PUBLISH	256

/* One command: words [first, first + n) of the file. */
struct tm_batch_cmd {
	size_t first;
	int n;
	struct tm_pos end;	/* just past its last word */
	const char *path;	/* JSON: its object's path */
};

/* What one line asks: one request of a kind. */
enum tm_batch_kind {
	TM_BATCH_NONE,		/* not parsed: nothing to send or free */
	TM_BATCH_RULE,
	TM_BATCH_TABLE,
	TM_BATCH_SID,
	TM_BATCH_LB,
	TM_BATCH_FLUSH,		/* flush ruleset */
};

struct tm_batch_req {
	uint8_t kind;		/* enum tm_batch_kind */
	uint8_t shift;		/* words before the object's: "lb service add" */
	union {
		struct tm_rule_req rule;
		struct tm_table_req tab;
		struct tm_sid_req sid;
		struct tm_lb_req lb;
	};
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
	struct tm_batch_req *reqs;	/* max_cmds, never moved */
	size_t max_cmds;		/* lines in the file */
	const char **keys;	/* JSON: the key of each word, or NULL */
	struct tm_json *json;	/* JSON: the strings of the words */
	unsigned int bad;	/* lines with an error */
	uint16_t family;
	/* handing parsed requests over to the sender */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t ready;		/* requests published */
	bool done;		/* the parser is done */
	bool failed;		/* it found a bad line */
};

/* The whole file; "-" is stdin. */
static int tm_batch_read(struct tm_batch *b, const char *path)
{
	size_t n;

	b->name = strcmp(path, "-") ? path : "<stdin>";
	b->text = tm_read_file(path, &b->len);
	if (!b->text)
		return TMCTL_EPARSE;
	/* A JSON file makes its words elsewhere (tm_batch_json()). */
	if (tmctl.json)
		return 0;
	/* A command ends at a newline or at the end of the file. */
	b->max_cmds = 1;
	for (n = 0; n < b->len; n++)
		b->max_cmds += b->text[n] == '\n';
	b->reqs = malloc(b->max_cmds * sizeof(*b->reqs));
	/* Every word is at most its bytes in the file plus a NUL. */
	b->arena = malloc(2 * b->len + 2);
	if (!b->arena || !b->reqs) {
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
	size_t cap = b->words_cap;

	b->words = tm_grow(b->words, &b->words_cap, b->nwords + 1,
			   sizeof(*b->words));
	if (cap != b->words_cap) {
		b->pos = realloc(b->pos, b->words_cap * sizeof(*b->pos));
		if (!b->pos) {
			fputs("tmctl: out of memory\n", stderr);
			exit(TMCTL_EPARSE);
		}
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
static struct tm_words tm_batch_words(const struct tm_batch *b, size_t i);

/* Hand the requests parsed so far over to the sender. */
static void tm_batch_publish(struct tm_batch *b, bool done)
{
	pthread_mutex_lock(&b->lock);
	if (b->bad)
		b->failed = true;
	else
		b->ready = b->ncmds;
	b->done = done;
	pthread_cond_signal(&b->cond);
	pthread_mutex_unlock(&b->lock);
}

/* The words since @first make a command: parse it now. */
static void tm_batch_end_cmd(struct tm_batch *b, size_t first,
			     struct tm_pos end)
{
	struct tm_batch_cmd *c;

	if (b->nwords == first || b->bad >= TM_BATCH_ERRORS_MAX)
		return;
	b->cmds = tm_grow(b->cmds, &b->cmds_cap, b->ncmds + 1,
			  sizeof(*b->cmds));
	c = &b->cmds[b->ncmds];
	c->first = first;
	c->n = (int)(b->nwords - first);
	c->end = end;
	c->path = NULL;
	b->reqs[b->ncmds].kind = TM_BATCH_NONE;
	if (b->ncmds == TM_TXN_MAX_OPS) {
		struct tm_words w = tm_batch_words(b, b->ncmds);

		tm_werror(&w, 0, "more than the %u requests of one transaction",
			  TM_TXN_MAX_OPS);
		b->bad++;
	} else if (tm_batch_parse_cmd(b, b->ncmds)) {
		b->bad++;
	}
	b->ncmds++;
	if (b->bad || b->ncmds - b->ready >= TM_BATCH_PUBLISH)
		tm_batch_publish(b, false);
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
	if (b->bad >= TM_BATCH_ERRORS_MAX && s.p < s.end)
		fprintf(stderr, "%s: error: too many errors, stopped\n",
			b->name);
	tm_batch_publish(b, true);
}

static void *tm_batch_thread(void *arg)
{
	tm_batch_split(arg);
	return NULL;
}

/* tm_txn_ops.wait */
static ssize_t tm_batch_wait(void *ctx, size_t i)
{
	struct tm_batch *b = ctx;
	ssize_t ret;

	pthread_mutex_lock(&b->lock);
	while (!b->failed && b->ready <= i && !b->done)
		pthread_cond_wait(&b->cond, &b->lock);
	ret = b->failed ? -1 : b->ready > i ? (ssize_t)b->ready : 0;
	pthread_mutex_unlock(&b->lock);
	return ret;
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
		.path = c->path,
		.keys = b->keys ? b->keys + c->first : NULL,
	};

	return w;
}

/*
 * The verb of "@obj VERB ...": its index in @verbs (@n of them, listed as
 * @list in the messages), or -1 with the error reported.
 */
static int tm_batch_verb(const struct tm_words *w, const char *obj,
			 const char * const *verbs, unsigned int n,
			 const char *list)
{
	unsigned int v;

	if (w->argc < 2) {
		tm_werror(w, 1, "missing %s command (%s)", obj, list);
		return -1;
	}
	for (v = 0; v < n; v++)
		if (tm_matches(w->argv[1], verbs[v]))
			return (int)v;
	tm_werror(w, 1, "unknown %s command '%s' (%s)", obj, w->argv[1], list);
	return -1;
}

static int tm_batch_parse_rule(struct tm_batch *b, size_t i,
			       const struct tm_words *w)
{
	static const char * const verbs[] = {
		[TM_VERB_ADD] = "add",
		[TM_VERB_REPLACE] = "replace",
		[TM_VERB_DEL] = "delete",
		[TM_VERB_FLUSH] = "flush",
	};
	struct tm_words rest;
	int v = tm_batch_verb(w, "rule", verbs, ARRAY_SIZE(verbs),
			      "add, replace, del or flush");

	if (v < 0)
		return TMCTL_EPARSE;
	rest = tm_words_shift(w, 2);
	b->reqs[i].shift = 2;
	if (tm_rule_parse(&rest, v, &b->reqs[i].rule))
		return TMCTL_EPARSE;
	/* Its sets are freed with the batch. */
	b->reqs[i].kind = TM_BATCH_RULE;
	return 0;
}

static int tm_batch_parse_table(struct tm_batch *b, size_t i,
				const struct tm_words *w)
{
	static const char * const verbs[] = {
		[TM_TABLE_ADD] = "add",
		[TM_TABLE_DEL] = "delete",
		[TM_TABLE_FLUSH] = "flush",
	};
	struct tm_words rest;
	int v = tm_batch_verb(w, "table", verbs, ARRAY_SIZE(verbs),
			      "add, del or flush");

	if (v < 0)
		return TMCTL_EPARSE;
	rest = tm_words_shift(w, 2);
	b->reqs[i].kind = TM_BATCH_TABLE;
	b->reqs[i].shift = 2;
	return tm_table_parse(&rest, v, &b->reqs[i].tab);
}

/* State, not configuration: these commands have no place in a file. */
static int tm_batch_state_verb(const struct tm_words *w, int i)
{
	return tm_werror(w, i,
			 "'%s' in a file: a file holds configuration (add, replace, del, flush), not state or listings; run it as a command",
			 w->argv[i]);
}

static int tm_batch_parse_sid(struct tm_batch *b, size_t i,
			      const struct tm_words *w)
{
	static const char * const verbs[] = {
		[TM_SID_ADD] = "add",
		[TM_SID_REPLACE] = "replace",
		[TM_SID_DEL] = "delete",
	};
	struct tm_words rest;
	int v;

	if (w->argc >= 2 && (tm_matches(w->argv[1], "load") ||
			     tm_matches(w->argv[1], "show") ||
			     tm_matches(w->argv[1], "list")))
		return tm_batch_state_verb(w, 1);
	v = tm_batch_verb(w, "sid", verbs, ARRAY_SIZE(verbs),
			  "add, replace or del");
	if (v < 0)
		return TMCTL_EPARSE;
	rest = tm_words_shift(w, 2);
	b->reqs[i].kind = TM_BATCH_SID;
	b->reqs[i].shift = 2;
	return tm_sid_parse(&rest, v, &b->reqs[i].sid);
}

static int tm_batch_parse_lb(struct tm_batch *b, size_t i,
			     const struct tm_words *w)
{
	static const char * const verbs[] = { "add", "delete", "set" };
	struct tm_words obj, rest;
	int v, base, nverbs;

	if (w->argc >= 2 && tm_matches(w->argv[1], "flows"))
		return tm_batch_state_verb(w, 1);
	if (w->argc < 2 || (!tm_matches(w->argv[1], "service") &&
			    !tm_matches(w->argv[1], "backend")))
		return tm_werror(w, 1, "expected 'lb service' or 'lb backend'");
	base = tm_matches(w->argv[1], "service") ? TM_LB_SERVICE_ADD :
						   TM_LB_BACKEND_ADD;
	if (w->argc >= 3 && (tm_matches(w->argv[2], "show") ||
			     tm_matches(w->argv[2], "list")))
		return tm_batch_state_verb(w, 2);
	obj = tm_words_shift(w, 1);
	/* set: a backend's weight; a service has none. */
	nverbs = base == TM_LB_BACKEND_ADD ? 3 : 2;
	v = tm_batch_verb(&obj, w->argv[1], verbs, nverbs,
			  nverbs == 3 ? "add, del or set" : "add or del");
	if (v < 0)
		return TMCTL_EPARSE;
	rest = tm_words_shift(w, 3);
	b->reqs[i].kind = TM_BATCH_LB;
	b->reqs[i].shift = 3;
	return tm_lb_parse(&rest, base + v, &b->reqs[i].lb);
}

static int tm_batch_parse_cmd(struct tm_batch *b, size_t i)
{
	struct tm_words w = tm_batch_words(b, i);

	if (tm_matches(w.argv[0], "rule"))
		return tm_batch_parse_rule(b, i, &w);
	if (tm_matches(w.argv[0], "table"))
		return tm_batch_parse_table(b, i, &w);
	if (tm_matches(w.argv[0], "sid"))
		return tm_batch_parse_sid(b, i, &w);
	if (tm_matches(w.argv[0], "lb"))
		return tm_batch_parse_lb(b, i, &w);
	if (tm_matches(w.argv[0], "flush")) {
		if (w.argc < 2 || !tm_matches(w.argv[1], "ruleset"))
			return tm_werror(&w, 1, "expected 'flush ruleset'");
		if (w.argc > 2)
			return tm_werror(&w, 2, "unexpected '%s'", w.argv[2]);
		b->reqs[i].kind = TM_BATCH_FLUSH;
		b->reqs[i].shift = 2;
		return 0;
	}
	return tm_werror(&w, 0,
			 "'%s': a batch file holds flush ruleset, table, rule, sid and lb commands",
			 w.argv[0]);
}

/* Rules added or replaced go several to a message, each in a nest. */
static bool tm_batch_joins(const struct tm_batch_req *r)
{
	return r->kind == TM_BATCH_RULE && (r->rule.verb == TM_VERB_ADD ||
					    r->rule.verb == TM_VERB_REPLACE);
}

static struct nlmsghdr *tm_batch_put(void *ctx, size_t i, char *buf,
				     struct tm_attr_map *map)
{
	struct tm_batch *b = ctx;
	const struct tm_batch_req *r = &b->reqs[i];
	struct nlmsghdr *nlh;

	if (!b->family)
		b->family = tm_nl_family();
	switch (r->kind) {
	case TM_BATCH_TABLE:
		nlh = tm_nl_put_header(buf, b->family,
				       tm_table_cmd(r->tab.verb), 0);
		tm_table_put(nlh, &r->tab);
		break;
	case TM_BATCH_SID:
		nlh = tm_nl_put_header(buf, b->family, tm_sid_cmd(r->sid.verb),
				       0);
		tm_sid_put(nlh, &r->sid, map);
		break;
	case TM_BATCH_LB:
		nlh = tm_nl_put_header(buf, b->family, tm_lb_cmd(r->lb.verb),
				       0);
		tm_lb_put(nlh, &r->lb, map);
		break;
	case TM_BATCH_FLUSH:
		nlh = tm_nl_put_header(buf, b->family, TM_CMD_FLUSH, 0);
		break;
	default:
		nlh = tm_nl_put_header(buf, b->family,
				       tm_rule_cmd(r->rule.verb), 0);
		if (tm_batch_joins(r))
			tm_rule_put_nested(nlh, &r->rule, map);
		else
			tm_rule_put(nlh, &r->rule, map);
		break;
	}
	return nlh;
}

/* tm_txn_ops.join: rules added or replaced in one table share a message. */
static bool tm_batch_join(void *ctx, size_t first, size_t i,
			  struct nlmsghdr *nlh)
{
	struct tm_batch *b = ctx;
	const struct tm_batch_req *f = &b->reqs[first], *r = &b->reqs[i];

	if (!tm_batch_joins(r) || !tm_batch_joins(f) ||
	    r->rule.verb != f->rule.verb || strcmp(r->rule.table, f->rule.table))
		return false;
	tm_rule_put_nest(nlh, &r->rule, NULL);
	return true;
}

static void tm_batch_error(void *ctx, size_t i, const struct tm_nlerr *e,
			   const struct tm_attr_map *map)
{
	struct tm_batch *b = ctx;
	const struct tm_batch_req *r = &b->reqs[i];
	struct tm_words w = tm_batch_words(b, i);
	int word = map ? tm_attr_map_word(map, e->offs) : -1;

	/* Map words count from the object's first, after "lb service add". */
	if (word >= 0 && word + r->shift < w.argc)
		word += r->shift;
	else
		word = -1;
	if (w.path)
		fprintf(stderr, "%s: %s%s%s: error: ", b->name, w.path,
			word >= 0 && w.keys[word] ? "." : "",
			word >= 0 && w.keys[word] ? w.keys[word] : "");
	else if (word >= 0)
		fprintf(stderr, "%s:%u:%u: error: ", b->name,
			w.pos[word].line, w.pos[word].col);
	else
		fprintf(stderr, "%s:%u: error: ", b->name, w.pos[0].line);
	tm_nl_print_reason(stderr, e);
	fputc('\n', stderr);
}

static void tm_batch_free(struct tm_batch *b)
{
	size_t i;

	for (i = 0; i < b->ncmds; i++)
		if (b->reqs[i].kind == TM_BATCH_RULE)
			tm_rule_req_free(&b->reqs[i].rule);
	free(b->text);
	free(b->arena);
	free(b->words);
	free(b->pos);
	free(b->cmds);
	free(b->reqs);
	free(b->keys);
	tm_json_free(b->json);
}

/*
 * tm_json_emit_fn: one command of a JSON file, parsed at once.  No thread
 * reads the arrays meanwhile: they may move.
 */
static int tm_batch_json_cmd(void *ctx, int argc, const char **argv,
			     const char **keys, const char *path)
{
	static const struct tm_pos none;
	struct tm_batch *b = ctx;
	size_t cap, i, first = b->nwords;
	struct tm_batch_cmd *c;
	unsigned int bad = b->bad;

	if (!argc || b->bad >= TM_BATCH_ERRORS_MAX)
		return argc ? -1 : 0;
	cap = b->words_cap;
	b->words = tm_grow(b->words, &b->words_cap, b->nwords + argc,
			   sizeof(*b->words));
	if (cap != b->words_cap) {
		b->pos = realloc(b->pos, b->words_cap * sizeof(*b->pos));
		b->keys = realloc(b->keys, b->words_cap * sizeof(*b->keys));
		if (!b->pos || !b->keys) {
			fputs("tmctl: out of memory\n", stderr);
			exit(TMCTL_EPARSE);
		}
	}
	for (i = 0; i < (size_t)argc; i++) {
		b->words[first + i] = (char *)argv[i];
		b->pos[first + i] = none;
		b->keys[first + i] = keys[i];
	}
	b->nwords += argc;
	cap = b->cmds_cap;
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
	c->n = argc;
	c->end = none;
	c->path = path;
	b->reqs[b->ncmds].kind = TM_BATCH_NONE;
	if (b->ncmds == TM_TXN_MAX_OPS) {
		struct tm_words w = tm_batch_words(b, b->ncmds);

		tm_werror(&w, 0, "more than the %u requests of one transaction",
			  TM_TXN_MAX_OPS);
		b->bad++;
	} else if (tm_batch_parse_cmd(b, b->ncmds)) {
		b->bad++;
	}
	b->ncmds++;
	return b->bad != bad;
}

/* A JSON file: every command made and parsed, as the parser thread does. */
static int tm_batch_json(struct tm_batch *b)
{
	int ret;

	/* json.c stops at too many errors, and says so. */
	ret = tm_json_commands(b->name, b->text, b->len, tm_batch_json_cmd, b,
			       &b->json);
	b->max_cmds = b->ncmds;
	tm_batch_publish(b, true);
	return ret || b->bad ? TMCTL_EPARSE : TMCTL_OK;
}

int tm_do_batch(const char *path)
{
	struct tm_batch b = {
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.cond = PTHREAD_COND_INITIALIZER,
	};
	struct tm_txn_ops ops = {
		.put = tm_batch_put,
		.error = tm_batch_error,
		.wait = tm_batch_wait,
		.join = tm_batch_join,
		.ctx = &b,
	};
	pthread_t parser;
	int ret;

	if (tm_batch_read(&b, path)) {
		tm_batch_free(&b);
		return TMCTL_EPARSE;
	}
	if (tmctl.json) {
		/* Read whole, then sent: no parser thread. */
		ret = tm_batch_json(&b);
		if (!ret && tmctl.check && !tm_nl_module_loaded()) {
			fprintf(stderr,
				"%s: parsed only, not checked by the kernel: the tuplemerge module is not loaded\n",
				b.name);
		} else if (!ret && b.ncmds) {
			ops.n = b.ncmds;
			ops.dry_run = tmctl.check;
			ret = tm_txn_run(&ops, b.name);
		}
		if (!ret && tmctl.verbose)
			fprintf(stderr, "%s: %zu commands, no error\n", b.name,
				b.ncmds);
		tm_batch_free(&b);
		return ret;
	}
	if (tmctl.check) {
		/*
		 * Parsed here, then, with the module there, sent in a
		 * transaction that is aborted: the kernel's refusals
		 * (duplicate ids, unknown services, limits) are reported and
		 * nothing changes, as with nft -c.
		 */
		tm_batch_split(&b);
		ret = b.bad ? TMCTL_EPARSE : TMCTL_OK;
		if (!ret && !tm_nl_module_loaded()) {
			fprintf(stderr,
				"%s: parsed only, not checked by the kernel: the tuplemerge module is not loaded\n",
				b.name);
		} else if (!ret) {
			ops.n = b.max_cmds;
			ops.dry_run = true;
			ret = tm_txn_run(&ops, b.name);
		}
		if (!ret && tmctl.verbose)
			fprintf(stderr, "%s: %zu commands, no error\n", b.name,
				b.ncmds);
		tm_batch_free(&b);
		return ret;
	}
	ret = pthread_create(&parser, NULL, tm_batch_thread, &b);
	if (ret) {
		fprintf(stderr, "tmctl: %s: %s\n", b.name, strerror(ret));
		exit(TMCTL_EPARSE);
	}
	ops.n = b.max_cmds;
	ret = tm_txn_run(&ops, b.name);
	pthread_join(parser, NULL);
	if (b.bad)
		ret = TMCTL_EPARSE;
	tm_batch_free(&b);
	return ret;
}
