// SPDX-License-Identifier: GPL-2.0
/*
 * tmctl -j -f FILE: JSON files, in the format of tmctl -j list ruleset
 * (tmctl-json(5)).  This file owns their reading: each object becomes the
 * words of the text command it stands for ("rule add TABLE id 1 ..."),
 * with the key each word comes from and the path of its object, for
 * batch.c to parse with the text parsers and send as one transaction.
 * The words are those tmctl list ruleset prints for the same objects.
 *
 * A document is never a tree in memory: its objects are read one at a
 * time (a SID, a service with its backends, a rule), their words copied,
 * most of them here (the fast path below, for objects of plain strings and
 * integers), the others by jansson.  The containers around them (the
 * top-level object, its arrays, a table with its rules) are walked here,
 * each member first skipped to find where it ends, so that the commands
 * come in the order a ruleset needs whatever the order of the members:
 * flush ruleset, SIDs, services each with its backends, tables each with
 * its rules.  When something is not JSON, jansson reads the whole text to
 * report its first error, at its line and column.
 *
 * jansson's integers are int64_t: a cookie or a counter above INT64_MAX
 * would be a "too big integer".  The walk finds such literals and, in a
 * copy of the text, replaces each with a string of the same length,
 * "\u0000N" padded with blanks (N: its index, JSON_ALLOW_NUL), which
 * stands for the literal's digits where an integer is expected.
 */
#include <arpa/inet.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tmctl.h"

/* Errors reported before giving up: as many as batch.c reports. */
#define TM_JSON_ERRORS_MAX	20
/* The words and paths are copied into chunks of this many bytes. */
#define TM_JSON_CHUNK		65536
/* The most members of an object: a rule's (the others have fewer). */
#define TM_JSON_MEMBERS_MAX	TM_JR_MAX

/* jansson's flags: a whole document, and one value in it. */
#define TM_JSON_FLAGS	(JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL)
#define TM_JSON_VALUE	(TM_JSON_FLAGS | JSON_DECODE_ANY | \
			 JSON_DISABLE_EOF_CHECK)

/* The JSON type of a member. */
enum tm_json_type {
	TM_J_STRING,
	TM_J_INT,
	TM_J_BOOL,
	TM_J_ARRAY,
	TM_J_ANY,		/* "version": checked by its value */
	/* a plain value, or an array: a set of them (a rule's fields) */
	TM_J_STRINGS,
	TM_J_INTS,
};

/*
 * A member of an object: its key, which is also the key of the words it
 * makes, its type, and the text keyword it stands for when it makes the
 * two words "KEYWORD VALUE" (NULL: made by the object's code), the value
 * followed by @unit if any ("ms": 500 is "500ms").
 */
struct tm_json_member {
	const char *name;
	uint8_t type;		/* enum tm_json_type */
	const char *keyword;
	const char *unit;
};

/* The members of one kind of object, for its messages. */
struct tm_json_kind {
	const char *what;	/* "a rule" */
	const struct tm_json_member *m;
	unsigned int n;
};

enum {
	TM_JT_VERSION,
	TM_JT_FLUSH,
	TM_JT_SIDS,
	TM_JT_SERVICES,
	TM_JT_TABLES,
	TM_JT_MAX
};

static const struct tm_json_member tm_json_top[TM_JT_MAX] = {
	[TM_JT_VERSION] = { "version", TM_J_ANY },
	[TM_JT_FLUSH] = { "flush_ruleset", TM_J_BOOL },
	[TM_JT_SIDS] = { "sids", TM_J_ARRAY },
	[TM_JT_SERVICES] = { "services", TM_J_ARRAY },
	[TM_JT_TABLES] = { "tables", TM_J_ARRAY },
};

/* sid.c's tm_sid_fields(): "sid add SID accept policy P [N] ...". */
enum {
	TM_JS_SID,
	TM_JS_POLICY,
	TM_JS_THRESHOLD,
	TM_JS_HMAC,
	TM_JS_IDLE_TIMEOUT,
	TM_JS_CLOSE_TIMEOUT,
	TM_JS_SYN_TIMEOUT,
	TM_JS_UDP_TIMEOUT,
	TM_JS_COUNTER,		/* the first of what sid show prints */
	TM_JS_DYN = TM_JS_COUNTER + 11,	/* dyn_milli: read, no word */
	TM_JS_MAX
};

static const struct tm_json_member tm_json_sid[TM_JS_MAX] = {
	[TM_JS_SID] = { "sid", TM_J_STRING },
	[TM_JS_POLICY] = { "policy", TM_J_STRING },
	[TM_JS_THRESHOLD] = { "threshold", TM_J_INT },
	[TM_JS_HMAC] = { "hmac", TM_J_INT, "hmac" },
	[TM_JS_IDLE_TIMEOUT] = { "idle_timeout", TM_J_INT, "idle-timeout" },
	[TM_JS_CLOSE_TIMEOUT] = { "close_timeout", TM_J_INT, "close-timeout" },
	[TM_JS_SYN_TIMEOUT] = { "syn_timeout", TM_J_INT, "syn-timeout" },
	[TM_JS_UDP_TIMEOUT] = { "udp_timeout", TM_J_INT, "udp-timeout" },
	[TM_JS_COUNTER + 0] = { "conns", TM_J_INT, "conns-now" },
	[TM_JS_COUNTER + 1] = { "load", TM_J_INT, "load-now" },
	[TM_JS_COUNTER + 2] = { "accepted", TM_J_INT, "accepted" },
	[TM_JS_COUNTER + 3] = { "passed", TM_J_INT, "passed" },
	[TM_JS_COUNTER + 4] = { "forced", TM_J_INT, "forced" },
	[TM_JS_COUNTER + 5] = { "steered", TM_J_INT, "steered" },
	[TM_JS_COUNTER + 6] = { "unknown", TM_J_INT, "unknown" },
	[TM_JS_COUNTER + 7] = { "malformed", TM_J_INT, "malformed" },
	[TM_JS_COUNTER + 8] = { "reports", TM_J_INT, "reports" },
	[TM_JS_COUNTER + 9] = { "hmac_bad", TM_J_INT, "hmac-bad" },
	[TM_JS_COUNTER + 10] = { "hmac_nokey", TM_J_INT, "hmac-nokey" },
	[TM_JS_DYN] = { "dyn_milli", TM_J_INT },
};

/* lb.c's tm_lb_service_save(): "lb service add NAME vip V sid S tcp ...". */
enum {
	TM_JL_NAME,
	TM_JL_VIP,
	TM_JL_SID,
	TM_JL_PROTO,
	TM_JL_PORT,
	TM_JL_AFFINITY,
	TM_JL_CHOICES,
	TM_JL_TABLE_SIZE,
	TM_JL_MAX_FLOWS,
	TM_JL_IDLE_TIMEOUT,
	TM_JL_FIN_TIMEOUT,
	TM_JL_SYN_TIMEOUT,
	TM_JL_HMAC,
	TM_JL_HEALTH_INTERVAL,
	TM_JL_HEALTH_TIMEOUT,
	TM_JL_HEALTH_RISE,
	TM_JL_HEALTH_FALL,
	TM_JL_HEALTH_LISTENER,
	TM_JL_BACKENDS,
	TM_JL_MAX
};

static const struct tm_json_member tm_json_service[TM_JL_MAX] = {
	[TM_JL_NAME] = { "name", TM_J_STRING },
	[TM_JL_VIP] = { "vip", TM_J_STRING, "vip" },
	[TM_JL_SID] = { "sid", TM_J_STRING, "sid" },
	[TM_JL_PROTO] = { "proto", TM_J_STRING },
	[TM_JL_PORT] = { "port", TM_J_INT, "port" },
	[TM_JL_AFFINITY] = { "affinity", TM_J_STRING, "affinity" },
	[TM_JL_CHOICES] = { "choices", TM_J_INT, "choices" },
	[TM_JL_TABLE_SIZE] = { "table_size", TM_J_INT, "table-size" },
	[TM_JL_MAX_FLOWS] = { "max_flows", TM_J_INT, "max-flows" },
	[TM_JL_IDLE_TIMEOUT] = { "idle_timeout", TM_J_INT, "idle-timeout" },
	[TM_JL_FIN_TIMEOUT] = { "fin_timeout", TM_J_INT, "fin-timeout" },
	[TM_JL_SYN_TIMEOUT] = { "syn_timeout", TM_J_INT, "syn-timeout" },
	[TM_JL_HMAC] = { "hmac", TM_J_INT, "hmac" },
	[TM_JL_HEALTH_INTERVAL] = { "health_interval_ms", TM_J_INT,
				    "health-interval", "ms" },
	[TM_JL_HEALTH_TIMEOUT] = { "health_timeout_ms", TM_J_INT,
				   "health-timeout", "ms" },
	[TM_JL_HEALTH_RISE] = { "health_rise", TM_J_INT, "health-rise" },
	[TM_JL_HEALTH_FALL] = { "health_fall", TM_J_INT, "health-fall" },
	[TM_JL_HEALTH_LISTENER] = { "health_listener", TM_J_BOOL },
	[TM_JL_BACKENDS] = { "backends", TM_J_ARRAY },
};

/* "lb backend add NAME SID [weight W]". */
enum {
	TM_JB_SID,
	TM_JB_WEIGHT,
	TM_JB_MAX
};

static const struct tm_json_member tm_json_backend[TM_JB_MAX] = {
	[TM_JB_SID] = { "sid", TM_J_STRING },
	[TM_JB_WEIGHT] = { "weight", TM_J_INT, "weight" },
};

/* table.c's tm_table_config_fields(): "table add NAME family F ...". */
enum {
	TM_JT_NAME,
	TM_JT_FAMILY,
	TM_JT_HOOK,
	TM_JT_PRIORITY,
	TM_JT_POLICY,
	TM_JT_ENGINE,
	TM_JT_COLLIDE,
	TM_JT_MAX_RULES,
	TM_JT_MAX_TUPLES,
	TM_JT_RULES,
	TM_JT_TABLE_MAX
};

static const struct tm_json_member tm_json_table[TM_JT_TABLE_MAX] = {
	[TM_JT_NAME] = { "name", TM_J_STRING },
	[TM_JT_FAMILY] = { "family", TM_J_STRING, "family" },
	[TM_JT_HOOK] = { "hook", TM_J_STRING, "hook" },
	[TM_JT_PRIORITY] = { "priority", TM_J_INT, "priority" },
	[TM_JT_POLICY] = { "policy", TM_J_STRING, "policy" },
	[TM_JT_ENGINE] = { "engine", TM_J_STRING, "engine" },
	[TM_JT_COLLIDE] = { "collide", TM_J_INT, "collide" },
	[TM_JT_MAX_RULES] = { "max_rules", TM_J_INT, "max-rules" },
	[TM_JT_MAX_TUPLES] = { "max_tuples", TM_J_INT, "max-tuples" },
	[TM_JT_RULES] = { "rules", TM_J_ARRAY },
};

/* rule.c's tm_rule_fields(): "rule add TABLE id N ... ACTION". */
enum {
	TM_JR_TABLE,
	TM_JR_ID,
	TM_JR_PRIORITY,
	TM_JR_FAMILY,
	TM_JR_SRC,
	TM_JR_DST,
	TM_JR_SPORT,
	TM_JR_SPORT_MIN,
	TM_JR_SPORT_MAX,
	TM_JR_DPORT,
	TM_JR_DPORT_MIN,
	TM_JR_DPORT_MAX,
	TM_JR_PROTO,
	TM_JR_IIF,
	TM_JR_IIF_INDEX,
	TM_JR_OIF,
	TM_JR_OIF_INDEX,
	TM_JR_CT_STATE,
	TM_JR_TCP_FLAGS_MASK,
	TM_JR_TCP_FLAGS,
	TM_JR_ICMP_TYPE_MIN,
	TM_JR_ICMP_TYPE_MAX,
	TM_JR_ICMP_CODE_MIN,
	TM_JR_ICMP_CODE_MAX,
	TM_JR_META_MARK,
	TM_JR_META_MARK_MASK,
	TM_JR_DSCP,
	TM_JR_FRAGMENT,
	TM_JR_COMMENT,
	TM_JR_COOKIE,
	TM_JR_ACTION,
	TM_JR_REJECT,
	TM_JR_MARK,
	TM_JR_LB_SERVICE,
	TM_JR_QUEUE,
	TM_JR_QUEUE_BYPASS,
	TM_JR_LOG,
	TM_JR_LOG_PREFIX,
	TM_JR_LOG_LEVEL,
	TM_JR_LOG_GROUP,
	TM_JR_LOG_RATE,
	TM_JR_TRACE,
	TM_JR_PACKETS,
	TM_JR_BYTES,
	TM_JR_MAX
};

static const struct tm_json_member tm_json_rule[TM_JR_MAX] = {
	[TM_JR_TABLE] = { "table", TM_J_STRING },
	[TM_JR_ID] = { "id", TM_J_INT, "id" },
	[TM_JR_PRIORITY] = { "priority", TM_J_INT, "priority" },
	[TM_JR_FAMILY] = { "family", TM_J_STRING },
	[TM_JR_SRC] = { "src", TM_J_STRINGS },
	[TM_JR_DST] = { "dst", TM_J_STRINGS },
	[TM_JR_SPORT] = { "sport", TM_J_ARRAY },
	[TM_JR_SPORT_MIN] = { "sport_min", TM_J_INT },
	[TM_JR_SPORT_MAX] = { "sport_max", TM_J_INT },
	[TM_JR_DPORT] = { "dport", TM_J_ARRAY },
	[TM_JR_DPORT_MIN] = { "dport_min", TM_J_INT },
	[TM_JR_DPORT_MAX] = { "dport_max", TM_J_INT },
	[TM_JR_PROTO] = { "proto", TM_J_INTS },
	[TM_JR_IIF] = { "iif", TM_J_STRING },
	[TM_JR_IIF_INDEX] = { "iif_index", TM_J_INT },
	[TM_JR_OIF] = { "oif", TM_J_STRING },
	[TM_JR_OIF_INDEX] = { "oif_index", TM_J_INT },
	[TM_JR_CT_STATE] = { "ct_state", TM_J_STRING },
	[TM_JR_TCP_FLAGS_MASK] = { "tcp_flags_mask", TM_J_STRING },
	[TM_JR_TCP_FLAGS] = { "tcp_flags", TM_J_STRING },
	[TM_JR_ICMP_TYPE_MIN] = { "icmp_type_min", TM_J_INT },
	[TM_JR_ICMP_TYPE_MAX] = { "icmp_type_max", TM_J_INT },
	[TM_JR_ICMP_CODE_MIN] = { "icmp_code_min", TM_J_INT },
	[TM_JR_ICMP_CODE_MAX] = { "icmp_code_max", TM_J_INT },
	[TM_JR_META_MARK] = { "meta_mark", TM_J_INT },
	[TM_JR_META_MARK_MASK] = { "meta_mark_mask", TM_J_INT },
	[TM_JR_DSCP] = { "dscp", TM_J_STRING, "dscp" },
	[TM_JR_FRAGMENT] = { "fragment", TM_J_STRING, "fragment" },
	[TM_JR_COMMENT] = { "comment", TM_J_STRING, "comment" },
	[TM_JR_COOKIE] = { "cookie", TM_J_INT, "cookie" },
	[TM_JR_ACTION] = { "action", TM_J_STRING },
	[TM_JR_REJECT] = { "reject", TM_J_STRING },
	[TM_JR_MARK] = { "mark", TM_J_INT },
	[TM_JR_LB_SERVICE] = { "lb_service", TM_J_STRING },
	[TM_JR_QUEUE] = { "queue", TM_J_INT },
	[TM_JR_QUEUE_BYPASS] = { "queue_bypass", TM_J_BOOL },
	[TM_JR_LOG] = { "log", TM_J_BOOL },
	[TM_JR_LOG_PREFIX] = { "log_prefix", TM_J_STRING, "prefix" },
	[TM_JR_LOG_LEVEL] = { "log_level", TM_J_STRING, "level" },
	[TM_JR_LOG_GROUP] = { "log_group", TM_J_INT, "group" },
	[TM_JR_LOG_RATE] = { "log_rate", TM_J_INT, "rate" },
	[TM_JR_TRACE] = { "trace", TM_J_BOOL },
	[TM_JR_PACKETS] = { "packets", TM_J_INT, "packets" },
	[TM_JR_BYTES] = { "bytes", TM_J_INT, "bytes" },
};

enum {
	TM_JK_TOP,
	TM_JK_SID,
	TM_JK_SERVICE,
	TM_JK_BACKEND,
	TM_JK_TABLE,
	TM_JK_RULE,
};

static const struct tm_json_kind tm_json_kinds[] = {
	[TM_JK_TOP] = { "the top level", tm_json_top, TM_JT_MAX },
	[TM_JK_SID] = { "a SID", tm_json_sid, TM_JS_MAX },
	[TM_JK_SERVICE] = { "a service", tm_json_service, TM_JL_MAX },
	[TM_JK_BACKEND] = { "a backend", tm_json_backend, TM_JB_MAX },
	[TM_JK_TABLE] = { "a table", tm_json_table, TM_JT_TABLE_MAX },
	[TM_JK_RULE] = { "a rule", tm_json_rule, TM_JR_MAX },
};

/* A chunk of words and paths. */
struct tm_json_chunk {
	struct tm_json_chunk *next;
	size_t used, size;
	char buf[];
};

/* An integer literal jansson cannot hold: its bytes in the text. */
struct tm_json_big {
	size_t offs, len;
};

/*
 * A member's value, read here or converted from jansson's: its type and,
 * for a string or an integer, its text as a word, in a chunk.
 */
struct tm_json_val {
	json_type type;
	const char *s;		/* a string; an integer in decimal */
	size_t len;
	json_int_t i;		/* an integer's value, unless big */
	bool big;		/* an integer past int64_t */
	bool nul;		/* a string with a NUL character */
	const json_t *json;	/* an array or object jansson read */
};

/* A member as read here. */
struct tm_json_raw {
	const char *key;	/* in the text, not NUL-terminated */
	size_t klen;
	struct tm_json_val v;
};

/* The members of an object, indexed as its kind's table. */
struct tm_json_obj {
	struct tm_json_val store[TM_JSON_MEMBERS_MAX];
	const struct tm_json_val *v[TM_JSON_MEMBERS_MAX];	/* or NULL */
	bool seen[TM_JSON_MEMBERS_MAX];	/* even when bad */
	bool ok;		/* no member was bad */
};

/* Where an array or object, near the top, starts and ends. */
struct tm_json_box {
	size_t start, end;
};

/* The members of an object walked here: each key and its value's span. */
struct tm_json_span {
	const char *key;	/* decoded, in a chunk */
	size_t start, end;
};

struct tm_json_spans {
	struct tm_json_span *v;
	size_t n, cap;
};

struct tm_json {
	const char *file;
	const char *orig;	/* the file */
	const char *text;	/* the file, or its copy with the markers */
	size_t len;
	char *copy;
	struct tm_json_big *big;
	size_t nbig, big_cap;
	struct tm_json_box *box;
	size_t nbox, box_cap;
	struct tm_json_chunk *chunks;
	tm_json_emit_fn emit;
	void *ctx;
	unsigned int errors;	/* reported, */
	unsigned int refused;	/* of which commands emit() refused */
	bool bad;		/* the document is bad */
	bool stop;		/* not JSON, or too many errors */
	/* the command being made: a rule's sets may have 512 values */
	int argc;
	size_t words_cap;
	const char **argv;
	const char **keys;
};

/* Memory */

static char *tm_json_alloc(struct tm_json *j, size_t n)
{
	struct tm_json_chunk *c = j->chunks;
	size_t size;

	if (!c || c->size - c->used < n) {
		size = n > TM_JSON_CHUNK ? n : TM_JSON_CHUNK;
		c = malloc(sizeof(*c) + size);
		if (!c) {
			fputs("tmctl: out of memory\n", stderr);
			exit(TMCTL_EPARSE);
		}
		c->next = j->chunks;
		c->used = 0;
		c->size = size;
		j->chunks = c;
	}
	c->used += n;
	return c->buf + c->used - n;
}

static const char *tm_json_strndup(struct tm_json *j, const char *s,
				   size_t n)
{
	char *d = tm_json_alloc(j, n + 1);

	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

__printf(2, 3) static const char *tm_json_printf(struct tm_json *j,
						 const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	return tm_json_strndup(j, buf, n);
}

/* Messages */

/* One more error. */
static void tm_json_count(struct tm_json *j, bool refused)
{
	j->errors++;
	j->refused += refused;
	if (!refused)
		j->bad = true;
}

/*
 * Whether the reading stopped.  After TM_JSON_ERRORS_MAX errors, the first
 * error or command that would follow stops it, and says so: a file with
 * exactly that many is read to its end, and stops nothing.
 */
static bool tm_json_stopped(struct tm_json *j)
{
	if (!j->stop && j->errors >= TM_JSON_ERRORS_MAX) {
		fprintf(stderr, "%s: error: too many errors, stopped\n",
			j->file);
		j->stop = true;
	}
	return j->stop;
}

/* "FILE: PATH.KEY: error: ...", as tm_werror() words it. */
__printf(4, 5) static void tm_json_error(struct tm_json *j, const char *path,
					 const char *key, const char *fmt, ...)
{
	va_list ap;

	if (tm_json_stopped(j))
		return;
	fprintf(stderr, "%s: ", j->file);
	if (path && *path)
		fprintf(stderr, "%s%s", path, key ? "." : "");
	if (key)
		fputs(key, stderr);
	fputs((path && *path) || key ? ": error: " : "error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	tm_json_count(j, false);
}

static json_t *tm_json_syntax(struct tm_json *j);

/* Integers */

/* The integer literal @s of @n bytes, JSON's syntax, into @val. */
static void tm_json_int(struct tm_json *j, const char *s, size_t n,
			struct tm_json_val *val)
{
	bool neg = *s == '-';
	uint64_t u = 0;
	size_t k;

	memset(val, 0, sizeof(*val));
	val->type = JSON_INTEGER;
	/* 19 digits fit in a uint64_t; int64_t is checked after. */
	if (n - neg > 19) {
		val->big = true;
	} else {
		for (k = neg; k < n; k++)
			u = 10 * u + (uint64_t)(s[k] - '0');
		val->big = u > (uint64_t)INT64_MAX + neg;
	}
	if (!val->big)
		val->i = neg && u ? -(json_int_t)(u - 1) - 1 : (json_int_t)u;
	/* "-0" is 0, as jansson reads it. */
	if (!val->big && !val->i) {
		s = "0";
		n = 1;
	}
	val->s = tm_json_strndup(j, s, n);
	val->len = n;
}

static bool tm_json_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The token at [p, end) outside strings: noted if a too big integer. */
static void tm_json_number(struct tm_json *j, size_t p, size_t end)
{
	const char *s = j->text + p;
	bool neg = *s == '-';
	size_t n = end - p - neg, k;

	/* A JSON integer: digits, no leading 0, no fraction, no exponent. */
	if (n < 19 || s[neg] == '0')
		return;
	for (k = neg; k < end - p; k++)
		if (!tm_json_digit(s[k]))
			return;
	if (n == 19 && memcmp(s + neg, neg ? "9223372036854775808" :
			      "9223372036854775807", 19) <= 0)
		return;
	j->big = tm_grow(j->big, &j->big_cap, j->nbig + 1, sizeof(*j->big));
	j->big[j->nbig].offs = p;
	j->big[j->nbig].len = end - p;
	j->nbig++;
}

/* Replace each too big integer with its marker, in a copy of the text. */
static void tm_json_patch(struct tm_json *j)
{
	char marker[32], *d;
	size_t k, n;
	int w;

	if (!j->nbig || j->copy)
		return;
	j->copy = malloc(j->len);
	if (!j->copy) {
		fputs("tmctl: out of memory\n", stderr);
		exit(TMCTL_EPARSE);
	}
	memcpy(j->copy, j->orig, j->len);
	for (k = 0; k < j->nbig; k++) {
		/* 19 bytes at least: '"', "\u0000", up to 11 digits, '"' */
		d = j->copy + j->big[k].offs;
		n = j->big[k].len;
		w = snprintf(marker, sizeof(marker), "\"\\u0000%zu", k);
		memset(d, ' ', n);
		memcpy(d, marker, w);
		d[n - 1] = '"';
	}
	j->text = j->copy;
}

/* The too big integer a marker string of jansson's stands for, or -1. */
static long tm_json_marker(const struct tm_json *j, const json_t *v)
{
	const char *s;
	size_t n, i, k = 0;

	if (!j->nbig || !json_is_string(v))
		return -1;
	s = json_string_value(v);
	n = json_string_length(v);
	if (n < 2 || s[0] || !tm_json_digit(s[1]))
		return -1;
	for (i = 1; i < n && i < 12 && tm_json_digit(s[i]); i++)
		k = 10 * k + (size_t)(s[i] - '0');
	for (; i < n; i++)
		if (s[i] != ' ')
			return -1;
	/* "\u0000" is 6 bytes of the text for 1 of the string. */
	if (k >= j->nbig || n + 7 != j->big[k].len)
		return -1;
	return (long)k;
}

/* The walk */

static bool tm_json_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static size_t tm_json_ws(const struct tm_json *j, size_t p)
{
	while (p < j->len && tm_json_blank(j->text[p]))
		p++;
	return p;
}

/* Past the string at p, its opening '"'; SIZE_MAX if unterminated. */
static size_t tm_json_skip_string(const struct tm_json *j, size_t p)
{
	const char *t = j->text;

	for (p++; p < j->len; p++) {
		if (t[p] == '"')
			return p + 1;
		if (t[p] == '\\')
			p++;
	}
	return SIZE_MAX;
}

/* What a byte is to tm_json_skip(): 0 is a byte of a number or literal. */
enum {
	TM_JC_STRING = 1,
	TM_JC_OPEN,
	TM_JC_CLOSE,
	TM_JC_SEP,
};

static const uint8_t tm_json_class[256] = {
	['"'] = TM_JC_STRING,
	['{'] = TM_JC_OPEN,
	['['] = TM_JC_OPEN,
	['}'] = TM_JC_CLOSE,
	[']'] = TM_JC_CLOSE,
	[','] = TM_JC_SEP,
	[':'] = TM_JC_SEP,
	[' '] = TM_JC_SEP,
	['\t'] = TM_JC_SEP,
	['\n'] = TM_JC_SEP,
	['\r'] = TM_JC_SEP,
};

/* The end of the array or object at p, if the first walk noted it. */
static size_t tm_json_box_end(const struct tm_json *j, size_t p)
{
	size_t lo = 0, hi = j->nbox, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (j->box[mid].start == p)
			return j->box[mid].end;
		if (j->box[mid].start < p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

/*
 * Past the value at p, without reading it; SIZE_MAX (reported) when it
 * does not end.  The value is read later, and its errors found then.
 * The first walk (@first) notes the too big integers, and where the
 * arrays and objects of the first three levels end: the rules of a table
 * are not skipped twice.
 */
static size_t tm_json_skip(struct tm_json *j, size_t p, bool first)
{
	const uint8_t *t = (const uint8_t *)j->text;
	unsigned int depth = 0;
	size_t q, open[3];

	if (!first && p < j->len && tm_json_class[t[p]] == TM_JC_OPEN) {
		q = tm_json_box_end(j, p);
		if (q != SIZE_MAX)
			return q;
	}
	while (p < j->len) {
		switch (tm_json_class[t[p]]) {
		case TM_JC_STRING:
			p = tm_json_skip_string(j, p);
			if (p == SIZE_MAX)
				goto bad;
			break;
		case TM_JC_OPEN:
			if (first && depth < ARRAY_SIZE(open)) {
				j->box = tm_grow(j->box, &j->box_cap,
						 j->nbox + 1, sizeof(*j->box));
				j->box[j->nbox].start = p;
				j->box[j->nbox].end = SIZE_MAX;
				open[depth] = j->nbox++;
			}
			depth++;
			p++;
			break;
		case TM_JC_CLOSE:
			if (!depth)
				goto bad;
			depth--;
			p++;
			if (first && depth < ARRAY_SIZE(open))
				j->box[open[depth]].end = p;
			break;
		case TM_JC_SEP:
			if (!depth)
				goto bad;
			p++;
			break;
		default:
			for (q = p + 1; q < j->len && !tm_json_class[t[q]]; q++)
				;
			if (first)
				tm_json_number(j, p, q);
			p = q;
			break;
		}
		if (!depth)
			return p;
	}
bad:
	tm_json_syntax(j);
	return SIZE_MAX;
}

/*
 * The members of the object at p (its '{') into @s, each value skipped;
 * past the object, or SIZE_MAX (reported).
 */
static size_t tm_json_spans(struct tm_json *j, size_t p,
			    struct tm_json_spans *s, bool numbers)
{
	struct tm_json_span *m;
	json_error_t e;
	json_t *key;
	size_t i, n;

	p = tm_json_ws(j, p + 1);
	if (p < j->len && j->text[p] == '}')
		return p + 1;
	for (;;) {
		if (p >= j->len || j->text[p] != '"')
			break;
		key = json_loadb(j->text + p, j->len - p, TM_JSON_VALUE, &e);
		if (!key)
			break;
		s->v = tm_grow(s->v, &s->cap, s->n + 1, sizeof(*s->v));
		m = &s->v[s->n];
		n = json_string_length(key);
		m->key = tm_json_strndup(j, json_string_value(key), n);
		json_decref(key);
		/* NUL in a key, the same key twice: jansson's errors */
		if (strlen(m->key) != n)
			break;
		for (i = 0; i < s->n; i++)
			if (!strcmp(s->v[i].key, m->key))
				break;
		if (i < s->n)
			break;
		p = tm_json_ws(j, p + e.position);
		if (p >= j->len || j->text[p] != ':')
			break;
		m->start = tm_json_ws(j, p + 1);
		m->end = tm_json_skip(j, m->start, numbers);
		if (m->end == SIZE_MAX)
			return SIZE_MAX;
		s->n++;
		p = tm_json_ws(j, m->end);
		if (p < j->len && j->text[p] == '}')
			return p + 1;
		if (p >= j->len || j->text[p] != ',')
			break;
		p = tm_json_ws(j, p + 1);
	}
	tm_json_syntax(j);
	return SIZE_MAX;
}

/*
 * The text is not JSON: jansson reads it whole to report its first error
 * as "FILE:LINE:COL: error: ...".  Returns the document if it is JSON
 * after all (its top level is no object), else NULL.
 */
static json_t *tm_json_syntax(struct tm_json *j)
{
	json_error_t e;
	json_t *root;

	if (tm_json_stopped(j))
		return NULL;
	tm_json_patch(j);
	root = json_loadb(j->text, j->len, TM_JSON_FLAGS, &e);
	if (root && json_is_object(root)) {
		/* Not expected: the walk and jansson disagree. */
		json_decref(root);
		fprintf(stderr, "%s: error: not a JSON text\n", j->file);
		root = NULL;
	} else if (!root) {
		fprintf(stderr, "%s:%d:%d: error: %s\n", j->file, e.line,
			e.column, e.text);
	}
	j->bad = true;
	j->stop = true;
	return root;
}

/* Values */

/* jansson's value @v into @val. */
static void tm_json_from(struct tm_json *j, const json_t *v,
			 struct tm_json_val *val)
{
	long k = tm_json_marker(j, v);

	if (k >= 0) {
		tm_json_int(j, j->orig + j->big[k].offs, j->big[k].len, val);
		return;
	}
	memset(val, 0, sizeof(*val));
	val->type = json_typeof(v);
	switch (val->type) {
	case JSON_STRING:
		val->len = json_string_length(v);
		val->s = tm_json_strndup(j, json_string_value(v), val->len);
		val->nul = strlen(val->s) != val->len;
		break;
	case JSON_INTEGER:
		val->i = json_integer_value(v);
		val->s = tm_json_printf(j, "%" JSON_INTEGER_FORMAT, val->i);
		val->len = strlen(val->s);
		break;
	case JSON_OBJECT:
	case JSON_ARRAY:
		val->json = v;
		break;
	default:
		break;
	}
}

/* The value at p, read by jansson; NULL (reported) if not JSON. */
static json_t *tm_json_load(struct tm_json *j, size_t p, size_t *end)
{
	json_error_t e;
	json_t *v;

	v = json_loadb(j->text + p, j->len - p, TM_JSON_VALUE, &e);
	if (!v) {
		tm_json_syntax(j);
		return NULL;
	}
	*end = p + (size_t)e.position;
	return v;
}

/*
 * The fast path: most values are read here, not by jansson, which takes
 * five times longer.  What is read here is a strict subset of JSON, of
 * one meaning: an object of up to TM_JSON_MEMBERS_MAX members, no two
 * the same, whose keys and values are strings of printable ASCII without
 * escapes, integers, true, false or null.  Anything else is jansson's.
 * The text read is the file's, with the too big integers (the copy with
 * the markers is the same byte for byte around them).
 */

static bool tm_json_end(const struct tm_json *j, size_t p)
{
	return p >= j->len || tm_json_blank(j->orig[p]) ||
	       j->orig[p] == ',' || j->orig[p] == '}' || j->orig[p] == ']';
}

/* Past the simple string at p, its '"'; SIZE_MAX if not simple. */
static size_t tm_json_fast_string(const struct tm_json *j, size_t p)
{
	const char *t = j->orig;
	unsigned char c;

	for (p++; p < j->len; p++) {
		c = (unsigned char)t[p];
		if (c == '"')
			return p + 1;
		if (c < 0x20 || c > 0x7e || c == '\\')
			break;
	}
	return SIZE_MAX;
}

/* The simple value at p into @val: past it, or SIZE_MAX. */
static size_t tm_json_fast_scalar(struct tm_json *j, size_t p,
				  struct tm_json_val *val)
{
	static const struct {
		const char *name;
		json_type type;
	} literals[] = {
		{ "true", JSON_TRUE },
		{ "false", JSON_FALSE },
		{ "null", JSON_NULL },
	};
	const char *t = j->orig;
	unsigned int i;
	size_t q, n;

	if (p >= j->len)
		return SIZE_MAX;
	if (t[p] == '"') {
		q = tm_json_fast_string(j, p);
		if (q == SIZE_MAX)
			return q;
		memset(val, 0, sizeof(*val));
		val->type = JSON_STRING;
		val->len = q - p - 2;
		val->s = tm_json_strndup(j, t + p + 1, val->len);
		return q;
	}
	if (t[p] == '-' || tm_json_digit(t[p])) {
		q = p + (t[p] == '-');
		if (q >= j->len || !tm_json_digit(t[q]))
			return SIZE_MAX;
		if (t[q++] != '0')
			while (q < j->len && tm_json_digit(t[q]))
				q++;
		if (!tm_json_end(j, q))
			return SIZE_MAX;
		tm_json_int(j, t + p, q - p, val);
		return q;
	}
	for (i = 0; i < ARRAY_SIZE(literals); i++) {
		n = strlen(literals[i].name);
		if (j->len - p >= n && !memcmp(t + p, literals[i].name, n) &&
		    tm_json_end(j, p + n)) {
			memset(val, 0, sizeof(*val));
			val->type = literals[i].type;
			return p + n;
		}
	}
	return SIZE_MAX;
}

/* The simple object at p into m[], *n members: past it, or SIZE_MAX. */
static size_t tm_json_fast_object(struct tm_json *j, size_t p,
				  struct tm_json_raw *m, unsigned int *n)
{
	const char *t = j->orig;
	unsigned int i;
	size_t q;

	*n = 0;
	if (p >= j->len || t[p] != '{')
		return SIZE_MAX;
	p = tm_json_ws(j, p + 1);
	if (p < j->len && t[p] == '}')
		return p + 1;
	while (*n < TM_JSON_MEMBERS_MAX && p < j->len && t[p] == '"') {
		q = tm_json_fast_string(j, p);
		if (q == SIZE_MAX)
			break;
		m[*n].key = t + p + 1;
		m[*n].klen = q - p - 2;
		for (i = 0; i < *n; i++)
			if (m[i].klen == m[*n].klen &&
			    !memcmp(m[i].key, m[*n].key, m[i].klen))
				return SIZE_MAX;
		p = tm_json_ws(j, q);
		if (p >= j->len || t[p] != ':')
			break;
		p = tm_json_fast_scalar(j, tm_json_ws(j, p + 1), &m[*n].v);
		if (p == SIZE_MAX)
			break;
		++*n;
		p = tm_json_ws(j, p);
		if (p < j->len && t[p] == '}')
			return p + 1;
		if (p >= j->len || t[p] != ',')
			break;
		p = tm_json_ws(j, p + 1);
	}
	return SIZE_MAX;
}

/*
 * The value at p into @val, read here when simple, else by jansson (its
 * tree gone: no val->json); past it, or SIZE_MAX (reported).
 */
static size_t tm_json_value(struct tm_json *j, size_t p,
			    struct tm_json_val *val)
{
	size_t end = tm_json_fast_scalar(j, p, val);
	json_t *v;

	if (end != SIZE_MAX)
		return end;
	v = tm_json_load(j, p, &end);
	if (!v)
		return SIZE_MAX;
	tm_json_from(j, v, val);
	val->json = NULL;
	json_decref(v);
	return end;
}

/* Members */

static const char *tm_json_type_name(const struct tm_json_val *v)
{
	switch (v->type) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a number with a fraction or an exponent";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	default:
		return "null";
	}
}

/* @v is of @type; else reported. */
static bool tm_json_typed(struct tm_json *j, const char *path,
			  const char *key, const struct tm_json_val *v,
			  int type)
{
	static const char * const names[] = {
		[TM_J_STRING] = "a string",
		[TM_J_INT] = "an integer",
		[TM_J_BOOL] = "true or false",
		[TM_J_ARRAY] = "an array",
		[TM_J_ANY] = "anything",
		[TM_J_STRINGS] = "a string or an array (a set)",
		[TM_J_INTS] = "an integer or an array (a set)",
	};
	bool ok;

	switch (type) {
	case TM_J_STRING:
		ok = v->type == JSON_STRING;
		if (ok && v->nul) {
			tm_json_error(j, path, key,
				      "a string with a NUL character (\\u0000)");
			return false;
		}
		break;
	case TM_J_INT:
		ok = v->type == JSON_INTEGER;
		break;
	case TM_J_BOOL:
		ok = v->type == JSON_TRUE || v->type == JSON_FALSE;
		break;
	case TM_J_ARRAY:
		ok = v->type == JSON_ARRAY;
		break;
	case TM_J_STRINGS:
		ok = v->type == JSON_STRING || v->type == JSON_ARRAY;
		if (v->nul)
			return tm_json_typed(j, path, key, v, TM_J_STRING);
		break;
	case TM_J_INTS:
		ok = v->type == JSON_INTEGER || v->type == JSON_ARRAY;
		break;
	default:
		ok = true;
		break;
	}
	if (!ok)
		tm_json_error(j, path, key, "expected %s, not %s", names[type],
			      tm_json_type_name(v));
	return ok;
}

/* The index of member @key (@n bytes) of @k, or -1. */
static int tm_json_find(const struct tm_json_kind *k, const char *key,
			size_t n)
{
	const char *name;
	unsigned int i;

	for (i = 0; i < k->n; i++) {
		name = k->m[i].name;
		if (name[0] == key[0] && !strncmp(name, key, n) && !name[n])
			return (int)i;
	}
	return -1;
}

static void tm_json_unknown(struct tm_json *j, const char *path,
			    const struct tm_json_kind *k, const char *key)
{
	char list[512];
	size_t used = 0;
	unsigned int i;

	list[0] = '\0';
	for (i = 0; i < k->n && used < sizeof(list); i++)
		used += snprintf(list + used, sizeof(list) - used, "%s%s",
				 !i ? "" : i + 1 == k->n ? " or " : ", ",
				 k->m[i].name);
	tm_json_error(j, path, key, "unknown member '%s' of %s (expected %s)",
		      key, k->what, list);
}

static void tm_json_obj_init(struct tm_json_obj *o)
{
	memset(o->v, 0, sizeof(o->v));
	memset(o->seen, 0, sizeof(o->seen));
	o->ok = true;
}

/* Member @key (@n bytes) of an object of kind @k into @o. */
static void tm_json_member(struct tm_json *j, const char *path,
			   const struct tm_json_kind *k, const char *key,
			   size_t n, const struct tm_json_val *val,
			   struct tm_json_obj *o)
{
	int i = tm_json_find(k, key, n);

	if (i < 0) {
		tm_json_unknown(j, path, k, tm_json_strndup(j, key, n));
		o->ok = false;
		return;
	}
	o->seen[i] = true;
	if (!tm_json_typed(j, path, k->m[i].name, val, k->m[i].type)) {
		o->ok = false;
		return;
	}
	o->store[i] = *val;
	o->v[i] = &o->store[i];
}

/* The members of jansson's object @tree, of kind @k, into @o. */
static void tm_json_tree(struct tm_json *j, const char *path,
			 const struct tm_json_kind *k, const json_t *tree,
			 struct tm_json_obj *o)
{
	struct tm_json_val val;
	const char *key;
	json_t *v;

	tm_json_obj_init(o);
	json_object_foreach((json_t *)tree, key, v) {
		tm_json_from(j, v, &val);
		tm_json_member(j, path, k, key, strlen(key), &val, o);
	}
}

static bool tm_json_missing(struct tm_json *j, const char *path,
			    const struct tm_json_obj *o, int i,
			    const char *key, const char *what)
{
	if (o->seen[i])
		return false;
	tm_json_error(j, path, NULL, "missing member '%s' (%s)", key, what);
	return true;
}

/* Words */

static void tm_json_word(struct tm_json *j, const char *word,
			 const char *key)
{
	size_t cap = j->words_cap;

	j->argv = tm_grow(j->argv, &j->words_cap, j->argc + 1,
			  sizeof(*j->argv));
	if (cap != j->words_cap) {
		j->keys = realloc(j->keys, j->words_cap * sizeof(*j->keys));
		if (!j->keys) {
			fputs("tmctl: out of memory\n", stderr);
			exit(TMCTL_EPARSE);
		}
	}
	j->argv[j->argc] = word;
	j->keys[j->argc] = key;
	j->argc++;
}

/* "KEYWORD VALUE" of member i of @m when given. */
static void tm_json_pair(struct tm_json *j, const struct tm_json_member *m,
			 const struct tm_json_val **v, int i)
{
	if (!v[i])
		return;
	tm_json_word(j, m[i].keyword, m[i].name);
	tm_json_word(j, m[i].unit ? tm_json_printf(j, "%s%s", v[i]->s,
						   m[i].unit) : v[i]->s,
		     m[i].name);
}

/* Hand the words made over to batch.c, printed first with -c -e. */
static void tm_json_emit(struct tm_json *j, const char *path)
{
	int i;

	if (tm_json_stopped(j))
		return;
	if (tmctl.check && tmctl.echo) {
		for (i = 0; i < j->argc; i++) {
			if (i)
				putchar(' ');
			tm_print_word(stdout, j->argv[i]);
		}
		putchar('\n');
	}
	if (j->emit(j->ctx, j->argc, j->argv, j->keys, path))
		tm_json_count(j, true);
}

/* A table's or service's name, if its rules or backends can be made. */
static bool tm_json_parent(const struct tm_json_val *name)
{
	return name && name->len && name->len < TM_NAME_MAX;
}

/* Objects */

static void tm_json_policy(struct tm_json *j, const struct tm_json_val **v)
{
	if (!v[TM_JS_POLICY])
		return;
	tm_json_word(j, "policy", tm_json_sid[TM_JS_POLICY].name);
	tm_json_word(j, v[TM_JS_POLICY]->s, tm_json_sid[TM_JS_POLICY].name);
}

/*
 * A SID: "sid add SID accept policy P [N] [hmac K] [idle-timeout S] ...
 * [conns-now N] ...".
 */
static void tm_json_sid_obj(struct tm_json *j, const char *path,
			    struct tm_json_obj *o, void *arg)
{
	const struct tm_json_member *m = tm_json_sid;
	const struct tm_json_val **v = o->v;
	const char *policy;
	bool late = false;
	int i;

	if (tm_json_missing(j, path, o, TM_JS_SID, "sid",
			    "the SID, an IPv6 address") || !o->ok)
		return;
	j->argc = 0;
	tm_json_word(j, "sid", NULL);
	tm_json_word(j, "add", NULL);
	tm_json_word(j, v[TM_JS_SID]->s, m[TM_JS_SID].name);
	tm_json_word(j, "accept", NULL);
	/*
	 * A policy that needs a threshold and has none goes last: the
	 * message is then about the SID, not the word after the policy.
	 */
	if (v[TM_JS_POLICY] && !v[TM_JS_THRESHOLD]) {
		policy = v[TM_JS_POLICY]->s;
		late = !strcmp(policy, "conns") || !strcmp(policy, "backlog") ||
		       !strcmp(policy, "load");
	}
	if (!late)
		tm_json_policy(j, v);
	if (v[TM_JS_THRESHOLD])
		tm_json_word(j, v[TM_JS_THRESHOLD]->s, m[TM_JS_THRESHOLD].name);
	for (i = TM_JS_HMAC; i < TM_JS_MAX; i++) {
		/* As sid show, the timeouts that are not the defaults. */
		if (i >= TM_JS_IDLE_TIMEOUT && i <= TM_JS_UDP_TIMEOUT &&
		    v[i] && !v[i]->big &&
		    tm_sid_timeout_default(i - TM_JS_IDLE_TIMEOUT, v[i]->i))
			continue;
		if (i == TM_JS_DYN)
			continue;
		tm_json_pair(j, m, v, i);
	}
	if (late)
		tm_json_policy(j, v);
	tm_json_emit(j, path);
}

/* A backend of service @arg: "lb backend add NAME SID [weight W]". */
static void tm_json_backend_obj(struct tm_json *j, const char *path,
				struct tm_json_obj *o, void *arg)
{
	const struct tm_json_val **v = o->v;

	if (tm_json_missing(j, path, o, TM_JB_SID, "sid",
			    "the backend's SID, an IPv6 address") || !o->ok)
		return;
	j->argc = 0;
	tm_json_word(j, "lb", NULL);
	tm_json_word(j, "backend", NULL);
	tm_json_word(j, "add", NULL);
	tm_json_word(j, arg, NULL);
	tm_json_word(j, v[TM_JB_SID]->s, tm_json_backend[TM_JB_SID].name);
	tm_json_pair(j, tm_json_backend, v, TM_JB_WEIGHT);
	tm_json_emit(j, path);
}

/*
 * A service, then its backends: "lb service add NAME vip V sid S tcp
 * [port P] [affinity A] [choices K] ... [hmac K] [health-interval Tms]
 * ... [health-listener]".
 */
static void tm_json_service_obj(struct tm_json *j, const char *path,
				struct tm_json_obj *o, void *arg)
{
	const struct tm_json_kind *bk = &tm_json_kinds[TM_JK_BACKEND];
	const struct tm_json_member *m = tm_json_service;
	const struct tm_json_val **v = o->v;
	struct tm_json_val val;
	struct tm_json_obj b;
	const char *bpath;
	json_t *elem;
	size_t i;
	int k;

	if (tm_json_missing(j, path, o, TM_JL_NAME, "name",
			    "the service's name"))
		return;
	/* The text's protocols are the keywords tcp and udp. */
	if (v[TM_JL_PROTO] && strcmp(v[TM_JL_PROTO]->s, "tcp") &&
	    strcmp(v[TM_JL_PROTO]->s, "udp")) {
		tm_json_error(j, path, m[TM_JL_PROTO].name,
			      "unknown service protocol '%s' (expected tcp or udp)",
			      v[TM_JL_PROTO]->s);
		o->ok = false;
	}
	if (o->ok) {
		j->argc = 0;
		tm_json_word(j, "lb", NULL);
		tm_json_word(j, "service", NULL);
		tm_json_word(j, "add", NULL);
		tm_json_word(j, v[TM_JL_NAME]->s, m[TM_JL_NAME].name);
		tm_json_pair(j, m, v, TM_JL_VIP);
		tm_json_pair(j, m, v, TM_JL_SID);
		if (v[TM_JL_PROTO])
			tm_json_word(j, v[TM_JL_PROTO]->s, m[TM_JL_PROTO].name);
		for (k = TM_JL_PORT; k <= TM_JL_HEALTH_FALL; k++)
			tm_json_pair(j, m, v, k);
		if (v[TM_JL_HEALTH_LISTENER] &&
		    v[TM_JL_HEALTH_LISTENER]->type == JSON_TRUE)
			tm_json_word(j, "health-listener",
				     m[TM_JL_HEALTH_LISTENER].name);
		tm_json_emit(j, path);
	}
	if (!v[TM_JL_BACKENDS] || !v[TM_JL_BACKENDS]->json ||
	    !tm_json_parent(v[TM_JL_NAME]))
		return;
	json_array_foreach(v[TM_JL_BACKENDS]->json, i, elem) {
		if (j->stop)
			return;
		bpath = tm_json_printf(j, "%s.backends[%zu]", path, i);
		if (!json_is_object(elem)) {
			tm_json_from(j, elem, &val);
			tm_json_error(j, bpath, NULL,
				      "expected an object, not %s",
				      tm_json_type_name(&val));
			continue;
		}
		tm_json_tree(j, bpath, bk, elem, &b);
		tm_json_backend_obj(j, bpath, &b, (void *)v[TM_JL_NAME]->s);
	}
}

/* A port range: both of its members or neither; else reported. */
static bool tm_json_ports_ok(struct tm_json *j, const char *path,
			     const struct tm_json_val **v, int min)
{
	const struct tm_json_member *m = tm_json_rule;
	int given = v[min] ? min : min + 1;

	if (!v[min] == !v[min + 1])
		return true;
	tm_json_error(j, path, m[given].name,
		      "%s without %s (a range has both, equal for one port)",
		      m[given].name, m[given == min ? min + 1 : min].name);
	return false;
}

static bool tm_json_port_valid(const struct tm_json_val *v)
{
	return !v->big && v->i >= 0 && v->i <= 65535;
}

/* "sport P" or "sport LO-HI". */
static void tm_json_ports(struct tm_json *j, const struct tm_json_val **v,
			  int min, const char *keyword)
{
	const struct tm_json_member *m = tm_json_rule;
	const char *key = m[min].name;
	const struct tm_json_val *lo = v[min], *hi = v[min + 1];

	if (!lo)
		return;
	/* The message names the bound out of range, if one is. */
	if (tm_json_port_valid(lo) && !tm_json_port_valid(hi))
		key = m[min + 1].name;
	tm_json_word(j, keyword, key);
	tm_json_word(j, strcmp(lo->s, hi->s) ?
		     tm_json_printf(j, "%s-%s", lo->s, hi->s) : lo->s, key);
}

/* A prefix as the text prints it: without a host's full length. */
static const char *tm_json_prefix(struct tm_json *j,
				  const struct tm_json_val *v)
{
	const char *slash = strchr(v->s, '/');
	char addr[INET6_ADDRSTRLEN];
	uint8_t buf[16];
	size_t n;
	bool v6;

	if (!slash || (size_t)(slash - v->s) >= sizeof(addr))
		return v->s;
	n = (size_t)(slash - v->s);
	memcpy(addr, v->s, n);
	addr[n] = '\0';
	v6 = strchr(addr, ':');
	if (strcmp(slash + 1, v6 ? "128" : "32") ||
	    inet_pton(v6 ? AF_INET6 : AF_INET, addr, buf) != 1)
		return v->s;
	return tm_json_strndup(j, addr, n);
}

/* A protocol as the text prints it: its name, or its number. */
static const char *tm_json_proto(const struct tm_json_val *v)
{
	char buf[8];
	const char *s;

	if (v->big || v->i < 0 || v->i > 255)
		return v->s;
	s = tm_proto_name((uint8_t)v->i, buf, sizeof(buf));
	return s == buf ? v->s : s;
}

/* iif or oif, by name, else by index. */
static void tm_json_dev(struct tm_json *j, const struct tm_json_val **v,
			int name, const char *keyword)
{
	const struct tm_json_member *m = tm_json_rule;
	int i = v[name] ? name : name + 1;

	if (!v[i])
		return;
	tm_json_word(j, keyword, m[i].name);
	tm_json_word(j, v[i]->s, m[i].name);
}

/* Members @a and @b go together: both or neither. */
static bool tm_json_both(struct tm_json *j, const char *path,
			 const struct tm_json_val **v, int a, int b)
{
	const struct tm_json_member *m = tm_json_rule;

	if (!v[a] == !v[b])
		return true;
	tm_json_error(j, path, m[v[a] ? a : b].name, "%s without %s",
		      m[v[a] ? a : b].name, m[v[a] ? b : a].name);
	return false;
}

/*
 * The stateful matches: "ct state S", "tcp-flags MASK VALUE", "icmp-type
 * T", "icmp-code C", "meta mark V[/M]", "dscp D", "fragment F".
 */
static void tm_json_stateful(struct tm_json *j, const struct tm_json_val **v)
{
	const struct tm_json_member *m = tm_json_rule;
	const struct tm_json_val *mark = v[TM_JR_META_MARK];
	const struct tm_json_val *mask = v[TM_JR_META_MARK_MASK];
	const char *key;

	if (v[TM_JR_CT_STATE]) {
		key = m[TM_JR_CT_STATE].name;
		tm_json_word(j, "ct", key);
		tm_json_word(j, "state", key);
		tm_json_word(j, v[TM_JR_CT_STATE]->s, key);
	}
	if (v[TM_JR_TCP_FLAGS_MASK]) {
		tm_json_word(j, "tcp-flags", m[TM_JR_TCP_FLAGS_MASK].name);
		tm_json_word(j, v[TM_JR_TCP_FLAGS_MASK]->s,
			     m[TM_JR_TCP_FLAGS_MASK].name);
		tm_json_word(j, v[TM_JR_TCP_FLAGS]->s, m[TM_JR_TCP_FLAGS].name);
	}
	tm_json_ports(j, v, TM_JR_ICMP_TYPE_MIN, "icmp-type");
	tm_json_ports(j, v, TM_JR_ICMP_CODE_MIN, "icmp-code");
	if (mark || mask) {
		key = m[mark ? TM_JR_META_MARK : TM_JR_META_MARK_MASK].name;
		tm_json_word(j, "meta", key);
		tm_json_word(j, "mark", key);
		tm_json_word(j, !mask ? mark->s :
			     tm_json_printf(j, "%s/%s", mark ? mark->s : "",
					    mask->s), key);
	}
	tm_json_pair(j, m, v, TM_JR_DSCP);
	tm_json_pair(j, m, v, TM_JR_FRAGMENT);
}

/* "reject [with TYPE]" of member reject, "with TYPE" after @act. */
static void tm_json_reject(struct tm_json *j, const struct tm_json_val *rej,
			   bool act)
{
	const char *key = tm_json_rule[TM_JR_REJECT].name;

	if (!act)
		tm_json_word(j, "reject", key);
	if (!strcmp(rej->s, "auto"))
		return;
	tm_json_word(j, "with", key);
	tm_json_word(j, rej->s, key);
}

/*
 * The action and its value: reject's type, mark's value, lb's service.
 * A value for another action makes a second action, as in the text.
 */
static void tm_json_action(struct tm_json *j, const struct tm_json_val **v,
			   const char *act)
{
	const struct tm_json_member *m = tm_json_rule;
	const struct tm_json_val *rej = v[TM_JR_REJECT];
	const struct tm_json_val *lb = v[TM_JR_LB_SERVICE];
	const char *mark = NULL;

	/* The text prints a mark in hex. */
	if (v[TM_JR_MARK])
		mark = !v[TM_JR_MARK]->big && v[TM_JR_MARK]->i >= 0 &&
		       v[TM_JR_MARK]->i <= UINT32_MAX ?
		       tm_json_printf(j, "0x%llx",
				      (unsigned long long)v[TM_JR_MARK]->i) :
		       v[TM_JR_MARK]->s;
	if (act) {
		tm_json_word(j, act, m[TM_JR_ACTION].name);
		if (!strcmp(act, "reject") && rej) {
			tm_json_reject(j, rej, true);
			rej = NULL;
		} else if (!strcmp(act, "mark") && mark) {
			tm_json_word(j, mark, m[TM_JR_MARK].name);
			mark = NULL;
		} else if (!strcmp(act, "lb") && lb) {
			tm_json_word(j, lb->s, m[TM_JR_LB_SERVICE].name);
			lb = NULL;
		} else if (!strcmp(act, "queue")) {
			tm_json_word(j, v[TM_JR_QUEUE] ? v[TM_JR_QUEUE]->s : "0",
				     m[TM_JR_QUEUE].name);
		}
	}
	if (v[TM_JR_QUEUE_BYPASS] && v[TM_JR_QUEUE_BYPASS]->type == JSON_TRUE)
		tm_json_word(j, "bypass", m[TM_JR_QUEUE_BYPASS].name);
	if (rej)
		tm_json_reject(j, rej, false);
	if (mark) {
		tm_json_word(j, "mark", m[TM_JR_MARK].name);
		tm_json_word(j, mark, m[TM_JR_MARK].name);
	}
	if (lb) {
		tm_json_word(j, "lb", m[TM_JR_LB_SERVICE].name);
		tm_json_word(j, lb->s, m[TM_JR_LB_SERVICE].name);
	}
}

/*
 * The values of member @i when it is an array, a set: each a string (with
 * @strings) or an integer (with @ints), and one word of the text, without
 * what separates the words of a set; else reported at KEY[N].
 */
static bool tm_json_set_ok(struct tm_json *j, const char *path,
			   const struct tm_json_val **v, int i, bool strings,
			   bool ints)
{
	const char *key = tm_json_rule[i].name, *ekey;
	struct tm_json_val ev;
	bool ok = true;
	json_t *elem;
	size_t k;

	if (!v[i] || v[i]->type != JSON_ARRAY || !v[i]->json)
		return true;
	json_array_foreach(v[i]->json, k, elem) {
		tm_json_from(j, elem, &ev);
		ekey = tm_json_printf(j, "%s[%zu]", key, k);
		if (ints && ev.type == JSON_INTEGER)
			continue;
		if (!strings || ev.type != JSON_STRING) {
			tm_json_error(j, path, ekey, "expected %s, not %s",
				      !strings ? "an integer" : ints ?
				      "a string or an integer" : "a string",
				      tm_json_type_name(&ev));
			ok = false;
		} else if (!tm_json_typed(j, path, ekey, &ev, TM_J_STRING)) {
			ok = false;
		} else if (!ev.len || strpbrk(ev.s, " \t\n\r\v\f,{}")) {
			tm_json_error(j, path, ekey,
				      "'%s': a value of a set is one word, without blanks, ',', '{' or '}'",
				      ev.s);
			ok = false;
		}
	}
	return ok;
}

/*
 * Member @i, an array: the set "KEYWORD { V, V }" of the text, each value
 * a word of its own with its ',', keyed KEY[N], as the text prints it (a
 * prefix without a host's full length, a protocol by name).
 */
static void tm_json_set(struct tm_json *j, const struct tm_json_val **v,
			int i, const char *keyword)
{
	const char *key = tm_json_rule[i].name, *val;
	size_t k, n = json_array_size(v[i]->json), len;
	struct tm_json_val ev;
	json_t *elem;
	char *word;

	tm_json_word(j, keyword, key);
	tm_json_word(j, "{", key);
	json_array_foreach(v[i]->json, k, elem) {
		tm_json_from(j, elem, &ev);
		val = i == TM_JR_PROTO ? tm_json_proto(&ev) :
		      i == TM_JR_SRC || i == TM_JR_DST ?
		      tm_json_prefix(j, &ev) : ev.s;
		if (k + 1 < n) {
			len = strlen(val);
			word = tm_json_alloc(j, len + 2);
			memcpy(word, val, len);
			memcpy(word + len, ",", 2);
			val = word;
		}
		tm_json_word(j, val, tm_json_printf(j, "%s[%zu]", key, k));
	}
	tm_json_word(j, "}", key);
}

/* "src P", "dst P", or their set. */
static void tm_json_addr(struct tm_json *j, const struct tm_json_val **v,
			 int i, const char *keyword)
{
	const char *key = tm_json_rule[i].name;

	if (!v[i])
		return;
	if (v[i]->type == JSON_ARRAY) {
		tm_json_set(j, v, i, keyword);
		return;
	}
	tm_json_word(j, keyword, key);
	tm_json_word(j, tm_json_prefix(j, v[i]), key);
}

/* The first address of member @v: its string, or its set's first. */
static const char *tm_json_first_addr(const struct tm_json_val *v)
{
	const json_t *e;

	if (!v)
		return NULL;
	if (v->type == JSON_STRING)
		return v->s;
	e = v->json ? json_array_get(v->json, 0) : NULL;
	return e && json_is_string(e) ? json_string_value(e) : NULL;
}

/* The rule's checks that are not the text's: its table, its action. */
static bool tm_json_rule_ok(struct tm_json *j, const char *path,
			    const struct tm_json_val **v, const char *table)
{
	static const char * const actions[] = {
		"accept", "drop", "reject", "mark", "count", "lb", "queue",
	};
	const struct tm_json_member *m = tm_json_rule;
	bool ok = true;
	unsigned int a;

	if (v[TM_JR_TABLE] && strcmp(v[TM_JR_TABLE]->s, table)) {
		tm_json_error(j, path, m[TM_JR_TABLE].name,
			      "'%s' is not the table the rule is in, '%s'",
			      v[TM_JR_TABLE]->s, table);
		ok = false;
	}
	if (v[TM_JR_ACTION]) {
		for (a = 0; a < ARRAY_SIZE(actions); a++)
			if (!strcmp(v[TM_JR_ACTION]->s, actions[a]))
				break;
		if (a == ARRAY_SIZE(actions)) {
			tm_json_error(j, path, m[TM_JR_ACTION].name,
				      "unknown action '%s' (expected accept, drop, reject, mark, count, lb or queue)",
				      v[TM_JR_ACTION]->s);
			ok = false;
		}
	}
	ok &= tm_json_ports_ok(j, path, v, TM_JR_SPORT_MIN);
	ok &= tm_json_ports_ok(j, path, v, TM_JR_DPORT_MIN);
	ok &= tm_json_ports_ok(j, path, v, TM_JR_ICMP_TYPE_MIN);
	ok &= tm_json_ports_ok(j, path, v, TM_JR_ICMP_CODE_MIN);
	ok &= tm_json_both(j, path, v, TM_JR_TCP_FLAGS_MASK, TM_JR_TCP_FLAGS);
	ok &= tm_json_set_ok(j, path, v, TM_JR_SRC, true, false);
	ok &= tm_json_set_ok(j, path, v, TM_JR_DST, true, false);
	ok &= tm_json_set_ok(j, path, v, TM_JR_SPORT, true, true);
	ok &= tm_json_set_ok(j, path, v, TM_JR_DPORT, true, true);
	ok &= tm_json_set_ok(j, path, v, TM_JR_PROTO, false, true);
	return ok;
}

/*
 * A rule of table @arg: "rule add TABLE id N priority N [family F] [src P]
 * [dst P] [sport P] [dport P] [proto P] [iif D] [oif D] [comment C]
 * [cookie N] ACTION [packets N] [bytes N]".
 */
static void tm_json_rule_obj(struct tm_json *j, const char *path,
			     struct tm_json_obj *o, void *arg)
{
	const struct tm_json_member *m = tm_json_rule;
	const struct tm_json_val **v = o->v;
	const char *addr;

	if (!tm_json_rule_ok(j, path, v, arg) || !o->ok)
		return;
	j->argc = 0;
	tm_json_word(j, "rule", NULL);
	tm_json_word(j, "add", NULL);
	tm_json_word(j, arg, NULL);
	tm_json_pair(j, m, v, TM_JR_ID);
	tm_json_pair(j, m, v, TM_JR_PRIORITY);
	/* The family, unless the first address (of a set too) tells it. */
	addr = tm_json_first_addr(v[TM_JR_SRC] ? v[TM_JR_SRC] : v[TM_JR_DST]);
	if (v[TM_JR_FAMILY] &&
	    (!addr || strcmp(v[TM_JR_FAMILY]->s,
			     strchr(addr, ':') ? "ip6" : "ip"))) {
		tm_json_word(j, "family", m[TM_JR_FAMILY].name);
		tm_json_word(j, v[TM_JR_FAMILY]->s, m[TM_JR_FAMILY].name);
	}
	tm_json_addr(j, v, TM_JR_SRC, "src");
	tm_json_addr(j, v, TM_JR_DST, "dst");
	/* A range and a set of the same field: "given twice" in the text. */
	tm_json_ports(j, v, TM_JR_SPORT_MIN, "sport");
	if (v[TM_JR_SPORT])
		tm_json_set(j, v, TM_JR_SPORT, "sport");
	tm_json_ports(j, v, TM_JR_DPORT_MIN, "dport");
	if (v[TM_JR_DPORT])
		tm_json_set(j, v, TM_JR_DPORT, "dport");
	if (v[TM_JR_PROTO] && v[TM_JR_PROTO]->type == JSON_ARRAY) {
		tm_json_set(j, v, TM_JR_PROTO, "proto");
	} else if (v[TM_JR_PROTO]) {
		tm_json_word(j, "proto", m[TM_JR_PROTO].name);
		tm_json_word(j, tm_json_proto(v[TM_JR_PROTO]),
			     m[TM_JR_PROTO].name);
	}
	tm_json_dev(j, v, TM_JR_IIF, "iif");
	tm_json_dev(j, v, TM_JR_OIF, "oif");
	tm_json_stateful(j, v);
	tm_json_pair(j, m, v, TM_JR_COMMENT);
	tm_json_pair(j, m, v, TM_JR_COOKIE);
	tm_json_action(j, v, v[TM_JR_ACTION] ? v[TM_JR_ACTION]->s : NULL);
	if (v[TM_JR_LOG] && v[TM_JR_LOG]->type == JSON_TRUE)
		tm_json_word(j, "log", m[TM_JR_LOG].name);
	tm_json_pair(j, m, v, TM_JR_LOG_PREFIX);
	tm_json_pair(j, m, v, TM_JR_LOG_LEVEL);
	tm_json_pair(j, m, v, TM_JR_LOG_GROUP);
	tm_json_pair(j, m, v, TM_JR_LOG_RATE);
	if (v[TM_JR_TRACE] && v[TM_JR_TRACE]->type == JSON_TRUE)
		tm_json_word(j, "trace", m[TM_JR_TRACE].name);
	tm_json_pair(j, m, v, TM_JR_PACKETS);
	tm_json_pair(j, m, v, TM_JR_BYTES);
	tm_json_emit(j, path);
}

/* Arrays */

/* Element @path at p of an array: past it, or SIZE_MAX (not JSON). */
typedef size_t (*tm_json_elem_fn)(struct tm_json *j, const char *path,
				  size_t p, void *arg);

/* What an element that is an object makes. */
typedef void (*tm_json_obj_fn)(struct tm_json *j, const char *path,
			       struct tm_json_obj *o, void *arg);

/* Each element of the array at p (its '['), whose path is @path. */
static void tm_json_array(struct tm_json *j, const char *path, size_t p,
			  tm_json_elem_fn fn, void *arg)
{
	size_t i;

	p = tm_json_ws(j, p + 1);
	if (p < j->len && j->text[p] == ']')
		return;
	for (i = 0; !j->stop; i++) {
		p = fn(j, tm_json_printf(j, "%s[%zu]", path, i), p, arg);
		if (p == SIZE_MAX)
			return;
		p = tm_json_ws(j, p);
		if (p < j->len && j->text[p] == ']')
			return;
		if (p >= j->len || j->text[p] != ',') {
			tm_json_syntax(j);
			return;
		}
		p = tm_json_ws(j, p + 1);
	}
}

/* The value at p is not what @path.@key should be: say what it is. */
static size_t tm_json_not(struct tm_json *j, const char *path,
			  const char *key, size_t p, const char *want)
{
	struct tm_json_val val;
	size_t end = tm_json_value(j, p, &val);

	if (end != SIZE_MAX)
		tm_json_error(j, path, key, "expected %s, not %s", want,
			      tm_json_type_name(&val));
	return end;
}

/* Objects of a kind, and what each makes. */
struct tm_json_elem {
	int kind;
	tm_json_obj_fn fn;
	void *arg;
};

/* tm_json_elem_fn: an object, read here if simple, else by jansson. */
static size_t tm_json_object_elem(struct tm_json *j, const char *path,
				  size_t p, void *arg)
{
	const struct tm_json_elem *e = arg;
	const struct tm_json_kind *k = &tm_json_kinds[e->kind];
	struct tm_json_raw raw[TM_JSON_MEMBERS_MAX];
	struct tm_json_val val;
	struct tm_json_obj o;
	unsigned int n, i;
	json_t *tree;
	size_t end;

	end = tm_json_fast_object(j, p, raw, &n);
	if (end != SIZE_MAX) {
		tm_json_obj_init(&o);
		for (i = 0; i < n; i++)
			tm_json_member(j, path, k, raw[i].key, raw[i].klen,
				       &raw[i].v, &o);
		e->fn(j, path, &o, e->arg);
		return end;
	}
	tree = tm_json_load(j, p, &end);
	if (!tree)
		return SIZE_MAX;
	if (json_is_object(tree)) {
		tm_json_tree(j, path, k, tree, &o);
		e->fn(j, path, &o, e->arg);
	} else {
		tm_json_from(j, tree, &val);
		tm_json_error(j, path, NULL, "expected an object, not %s",
			      tm_json_type_name(&val));
	}
	json_decref(tree);
	return end;
}

/* The array member at p, of objects of kind @kind making fn(). */
static void tm_json_objects(struct tm_json *j, const char *path, size_t p,
			    int kind, tm_json_obj_fn fn, void *arg)
{
	struct tm_json_elem e = { kind, fn, arg };

	if (j->text[p] != '[')
		tm_json_not(j, NULL, path, p, "an array");
	else
		tm_json_array(j, path, p, tm_json_object_elem, &e);
}

/*
 * tm_json_elem_fn: a table, walked here (its rules are too many for one
 * tree): "table add NAME [family F] ...", then its rules.
 */
static size_t tm_json_table_elem(struct tm_json *j, const char *path,
				 size_t p, void *arg)
{
	const struct tm_json_kind *k = &tm_json_kinds[TM_JK_TABLE];
	struct tm_json_elem rules = { TM_JK_RULE, tm_json_rule_obj, NULL };
	const struct tm_json_member *m = tm_json_table;
	struct tm_json_spans s = {};
	struct tm_json_val val;
	struct tm_json_obj o;
	size_t end, at = SIZE_MAX, i;
	int n;

	if (p >= j->len || j->text[p] != '{')
		return tm_json_not(j, path, NULL, p, "an object");
	tm_json_obj_init(&o);
	end = tm_json_spans(j, p, &s, false);
	for (i = 0; end != SIZE_MAX && i < s.n && !j->stop; i++) {
		/* The rules are read after the table is made. */
		if (!strcmp(s.v[i].key, m[TM_JT_RULES].name) &&
		    j->text[s.v[i].start] == '[') {
			at = s.v[i].start;
			continue;
		}
		if (tm_json_value(j, s.v[i].start, &val) == SIZE_MAX)
			end = SIZE_MAX;
		else
			tm_json_member(j, path, k, s.v[i].key,
				       strlen(s.v[i].key), &val, &o);
	}
	if (end == SIZE_MAX || j->stop ||
	    tm_json_missing(j, path, &o, TM_JT_NAME, "name",
			    "the table's name"))
		goto out;
	if (o.ok) {
		j->argc = 0;
		tm_json_word(j, "table", NULL);
		tm_json_word(j, "add", NULL);
		tm_json_word(j, o.v[TM_JT_NAME]->s, m[TM_JT_NAME].name);
		for (n = TM_JT_FAMILY; n < TM_JT_RULES; n++)
			tm_json_pair(j, m, o.v, n);
		tm_json_emit(j, path);
	}
	/* The rules of a table that cannot be made would all say so. */
	if (at != SIZE_MAX && tm_json_parent(o.v[TM_JT_NAME])) {
		rules.arg = (void *)o.v[TM_JT_NAME]->s;
		tm_json_array(j, tm_json_printf(j, "%s.rules", path), at,
			      tm_json_object_elem, &rules);
	}
out:
	free(s.v);
	return end;
}

/* The document */

/* The span of top-level member @key, or NULL. */
static const struct tm_json_span *tm_json_span(const struct tm_json_spans *s,
					       const char *key)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].key, key))
			return &s->v[i];
	return NULL;
}

/* "version": 1, or none; else reported, quoting the value. */
static bool tm_json_version(struct tm_json *j, const struct tm_json_span *s)
{
	const char *text, *nl;
	struct tm_json_val val;
	size_t n;

	if (!s)
		return true;
	if (tm_json_value(j, s->start, &val) == SIZE_MAX)
		return false;
	if (val.type == JSON_INTEGER && !val.big && val.i == 1)
		return true;
	text = j->orig + s->start;
	n = s->end - s->start;
	nl = memchr(text, '\n', n);
	if (nl)
		n = (size_t)(nl - text);
	if (n > 40)
		n = 40;
	tm_json_error(j, NULL, s->key,
		      "unsupported version %.*s (this tmctl reads version 1)",
		      (int)n, text);
	return false;
}

/* The top-level object: each member in the order the kernel needs. */
static void tm_json_document(struct tm_json *j)
{
	const struct tm_json_kind *k = &tm_json_kinds[TM_JK_TOP];
	const struct tm_json_member *m = tm_json_top;
	const struct tm_json_span *sp;
	struct tm_json_spans s = {};
	struct tm_json_val val;
	json_t *root;
	size_t p = tm_json_ws(j, 0), i;

	if (p >= j->len || j->text[p] != '{') {
		root = tm_json_syntax(j);
		if (root) {
			tm_json_from(j, root, &val);
			fprintf(stderr,
				"%s: error: expected an object, not %s\n",
				j->file, tm_json_type_name(&val));
			json_decref(root);
		}
		return;
	}
	/* Every member skipped first, the too big integers found. */
	p = tm_json_spans(j, p, &s, true);
	if (p != SIZE_MAX && tm_json_ws(j, p) != j->len)
		tm_json_syntax(j);
	if (j->stop)
		goto out;
	tm_json_patch(j);
	if (!tm_json_version(j, tm_json_span(&s, m[TM_JT_VERSION].name)))
		goto out;
	for (i = 0; i < s.n && !j->stop; i++) {
		if (tm_json_find(k, s.v[i].key, strlen(s.v[i].key)) >= 0)
			continue;
		/* Read all the same: a syntax error comes first. */
		if (tm_json_value(j, s.v[i].start, &val) != SIZE_MAX)
			tm_json_unknown(j, NULL, k, s.v[i].key);
	}
	sp = tm_json_span(&s, m[TM_JT_FLUSH].name);
	if (sp && !j->stop && tm_json_value(j, sp->start, &val) != SIZE_MAX &&
	    tm_json_typed(j, NULL, sp->key, &val, TM_J_BOOL) &&
	    val.type == JSON_TRUE) {
		j->argc = 0;
		tm_json_word(j, "flush", NULL);
		tm_json_word(j, "ruleset", NULL);
		tm_json_emit(j, sp->key);
	}
	sp = tm_json_span(&s, m[TM_JT_SIDS].name);
	if (sp && !j->stop)
		tm_json_objects(j, sp->key, sp->start, TM_JK_SID,
				tm_json_sid_obj, NULL);
	sp = tm_json_span(&s, m[TM_JT_SERVICES].name);
	if (sp && !j->stop)
		tm_json_objects(j, sp->key, sp->start, TM_JK_SERVICE,
				tm_json_service_obj, NULL);
	sp = tm_json_span(&s, m[TM_JT_TABLES].name);
	if (sp && !j->stop) {
		if (j->text[sp->start] != '[')
			tm_json_not(j, NULL, sp->key, sp->start, "an array");
		else
			tm_json_array(j, sp->key, sp->start,
				      tm_json_table_elem, NULL);
	}
out:
	free(s.v);
}

int tm_json_commands(const char *file, const char *text, size_t len,
		     tm_json_emit_fn emit, void *ctx, struct tm_json **state)
{
	struct tm_json *j = calloc(1, sizeof(*j));

	if (!j) {
		fputs("tmctl: out of memory\n", stderr);
		exit(TMCTL_EPARSE);
	}
	j->file = file;
	j->orig = text;
	j->text = text;
	j->len = len;
	j->emit = emit;
	j->ctx = ctx;
	*state = j;
	tm_json_document(j);
	return j->bad ? TMCTL_EPARSE : TMCTL_OK;
}

void tm_json_free(struct tm_json *j)
{
	struct tm_json_chunk *c, *next;

	if (!j)
		return;
	for (c = j->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	free(j->copy);
	free(j->big);
	free(j->box);
	free(j->argv);
	free(j->keys);
	free(j);
}
