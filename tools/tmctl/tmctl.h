/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tmctl internals: the global options (tmctl.c), the words of a command,
 * their error messages, the token parsers and names (parse.c), the netlink
 * session (nl.c), transactions (txn.c), text and JSON output (out.c), the
 * words of a rule (rule_words.c), the Prometheus text format (prom.c),
 * and one handler file per object (table.c, rule.c, sid.c, lb.c, stats.c,
 * metrics.c, monitor.c, batch.c, import.c, ruleset.c, json.c).
 */
#ifndef _TMCTL_H
#define _TMCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <libmnl/libmnl.h>
#include <linux/tuplemerge.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define __printf(a, b)	__attribute__((format(printf, a, b)))

/* Exit codes, documented in tmctl(8). */
enum {
	TMCTL_OK = 0,
	TMCTL_EPARSE = 1,	/* bad command line or batch file */
	TMCTL_EKERNEL = 2,	/* the kernel refused the request */
	TMCTL_ENOMOD = 3,	/* the tuplemerge module is not loaded */
};

/* Global options. */
struct tmctl {
	bool json;		/* -j: JSON output */
	bool echo;		/* -e: print the rule a change made */
	bool check;		/* -c: parse only, send nothing */
	bool no_counters;	/* -s: rule listings without counters */
	bool verbose;		/* -v: summaries on stderr */
	const char *netns;	/* -n */
};

extern struct tmctl tmctl;

/* Report a usage error that is about no word in particular; returns 1. */
__printf(1, 2) int tm_parse_error(const char *fmt, ...);
/* @arg abbreviates @keyword ("del" for "delete"). */
bool tm_matches(const char *arg, const char *keyword);
/* The usage text, tmctl -h. */
void tm_usage(FILE *f);

/*
 * Where a word of a batch file starts: 1-based line and byte column.
 */
struct tm_pos {
	unsigned int line;
	unsigned int col;
};

/*
 * The words of one command: from the command line (pos and file NULL), or
 * one command of a batch file, where each word has its position, or one
 * object of a JSON file (tmctl -j -f), made into the words of the command
 * it stands for, each with the key it comes from.  Error messages about
 * word i name the command ("tmctl: rule add: ..."), its position
 * ("FILE:LINE:COL: error: ..."), or its object and key ("FILE:
 * tables[1].rules[3].dport: error: ...").
 */
struct tm_words {
	char **argv;
	const struct tm_pos *pos;	/* per word, or NULL */
	int argc;
	const char *what;		/* "rule add" */
	const char *file;		/* batch file, or NULL */
	struct tm_pos end;		/* just past the last word */
	const char *path;		/* JSON: the object's path, or NULL */
	const char * const *keys;	/* JSON: per word, its key or NULL */
};

/* The words after the first @n of @w. */
struct tm_words tm_words_shift(const struct tm_words *w, int n);
/*
 * @p, an array of @elem-byte items with room for *@cap, grown (doubling)
 * to room for @need; exits on failure.
 */
void *tm_grow(void *p, size_t *cap, size_t need, size_t elem);
/*
 * Report an error about word @i of @w (i == w->argc: the end of the
 * command); returns TMCTL_EPARSE.
 */
__printf(3, 4) int tm_werror(const struct tm_words *w, int i,
			     const char *fmt, ...);

/* parse.c: names of the ABI's enums, NULL-padded, by value. */
extern const char * const tm_family_names[TM_FAMILY_MAX + 1];
extern const char * const tm_hook_names[TM_HOOK_MAX + 1];
extern const char * const tm_policy_names[TM_POLICY_MAX + 1];
extern const char * const tm_engine_names[TM_ENG_MAX + 1];
extern const char * const tm_action_names[TM_ACT_MAX + 1];
extern const char * const tm_reject_names[TM_REJECT_MAX + 1];
extern const char * const tm_ct_state_names[TM_CT_STATE_MAX + 1];
extern const char * const tm_fragment_names[TM_FRAGMENT_MAX + 1];
extern const char * const tm_tcp_flag_names[8];
const char *tm_name(const char * const *names, unsigned int n,
		    unsigned int i);
/* The name of a value, "?" for an unknown one. */
/* "IPv4" (af 4) or "IPv6" (af 6), for messages. */
const char *tm_af_name(uint8_t af);
const char *tm_family_name(unsigned int i);
const char *tm_hook_name(unsigned int i);
const char *tm_policy_name(unsigned int i);
const char *tm_engine_name(unsigned int i);
const char *tm_action_name(unsigned int i);
const char *tm_reject_name(unsigned int i);

/*
 * A keyword of a command: the canonical name, and whether a value word
 * follows it.  tm_keyword() finds word i in @kw: an exact name, else the
 * one name it abbreviates; -1 (error reported) for none or several.
 */
struct tm_keyword {
	const char *name;
	bool value;
};

int tm_keyword(const struct tm_words *w, int i, const struct tm_keyword *kw,
	       unsigned int n);
/* Word i is the name of one of names[first..last], exactly. */
int tm_parse_name(const struct tm_words *w, int i, const char *what,
		  const char * const *names, unsigned int first,
		  unsigned int last, uint8_t *val);
/* Decimal or 0x hex, 0..max (min..max): the message names @what. */
int tm_parse_u64(const struct tm_words *w, int i, const char *what,
		 uint64_t min, uint64_t max, uint64_t *val);
int tm_parse_u32(const struct tm_words *w, int i, const char *what,
		 uint32_t min, uint32_t max, uint32_t *val);
int tm_parse_s32(const struct tm_words *w, int i, const char *what,
		 int32_t *val);
/*
 * A time in milliseconds, min..max: N or Ns (seconds) or Nms, decimal;
 * the message names @what and the range as tm_ms_str() writes times.
 */
int tm_parse_ms(const struct tm_words *w, int i, const char *what,
		uint32_t min, uint32_t max, uint32_t *ms);
/* Milliseconds as "Ns" for whole seconds, else "Nms". */
const char *tm_ms_str(uint32_t ms, char *buf, size_t len);
int tm_parse_table(const struct tm_words *w, int i);

/* An IPv4 (af 4) or IPv6 (af 6) address and prefix length. */
struct tm_prefix {
	uint8_t af;
	uint8_t len;
	uint8_t addr[16];	/* network byte order; 4 bytes for IPv4 */
};

/* ADDR[/LEN], host bits clear; with !prefix, an address only. */
int tm_parse_prefix(const struct tm_words *w, int i, bool prefix,
		    struct tm_prefix *p);
/* P or LO-HI. */
int tm_parse_ports(const struct tm_words *w, int i, uint16_t *lo,
		   uint16_t *hi);
/* N or LO-HI, each 0..max; @what names the value in messages. */
int tm_parse_range(const struct tm_words *w, int i, const char *what,
		   unsigned int max, uint16_t *lo, uint16_t *hi);
/* Comma-separated N or LO-HI, each 0..max (< 64): bit N for each N. */
int tm_parse_num_set(const struct tm_words *w, int i, const char *what,
		     unsigned int max, uint64_t *set);
/* Comma-separated names of names[0..n-1]: bit k for names[k]. */
int tm_parse_set(const struct tm_words *w, int i, const char *what,
		 const char * const *names, unsigned int n, uint64_t *set);
/* TCP flag names, comma-separated, or "none". */
int tm_parse_tcp_flags(const struct tm_words *w, int i, uint8_t *flags);
/* The text forms of those sets: "a,b"; "10-12,46". */
const char *tm_set_str(uint64_t set, const char * const *names,
		       unsigned int n, char *buf, size_t len);
const char *tm_num_set_str(uint64_t set, char *buf, size_t len);
int tm_parse_proto(const struct tm_words *w, int i, uint8_t *proto);
/* A device name of the current namespace, or a number. */
int tm_parse_dev(const struct tm_words *w, int i, uint32_t *ifindex);

/* Text forms: protocol name or number; device name or number. */
const char *tm_proto_name(uint8_t proto, char *buf, size_t len);
const char *tm_dev_name(uint32_t ifindex, char *buf, size_t len);
/* "ADDR/LEN", or "ADDR" with @host_short and a full length. */
const char *tm_prefix_str(const struct tm_prefix *p, bool host_short,
			  char *buf, size_t len);
/* @s as one word of a batch file: quoted when it needs to be. */
void tm_print_word(FILE *f, const char *s);
/*
 * The whole of file @path ('-': stdin), NUL-terminated, its length in
 * *@lenp if not NULL; NULL once reported.  Freed with free().
 */
char *tm_read_file(const char *path, size_t *lenp);

/* nl.c */
typedef int (*tm_msg_cb)(const struct nlmsghdr *nlh, void *data);

/*
 * Room for any request: a rule's own attributes fit 4096 bytes, the values
 * of its sets take at most 32 bytes each (an IPv6 prefix: its element's
 * nest, the address and the length).  Other requests fit
 * MNL_SOCKET_BUFFER_SIZE.
 */
#define TM_MSG_MAX	(4096 + TM_SET_VALUES_MAX * 32)

/*
 * Start a request of @cmd in @buf (at least MNL_SOCKET_BUFFER_SIZE; a rule
 * request, TM_MSG_MAX).
 */
struct nlmsghdr *tm_nl_request(char *buf, uint8_t cmd, uint16_t flags);
/* Start a request at @buf without opening the socket. */
struct nlmsghdr *tm_nl_put_header(char *buf, uint16_t family, uint8_t cmd,
				  uint16_t flags);
/*
 * Send a request and run @cb on every reply.  On error print
 * "tmctl: WHAT: <kernel message> (<errno text>)" and return TMCTL_EKERNEL.
 */
int tm_nl_talk(struct nlmsghdr *nlh, tm_msg_cb cb, void *data,
	       const char *what);
/* The last tm_nl_talk() dump was flagged NLM_F_DUMP_INTR. */
extern bool tm_nl_dump_intr;
/*
 * tm_nl_talk() inside a list of the output (text lines, or a JSON array),
 * then "tmctl: WHAT: OBJECTS changed during the listing; run again" on
 * stderr when the dump was flagged: the one sequence of every listing.
 */
int tm_nl_list(struct nlmsghdr *nlh, tm_msg_cb cb, void *data,
	       const char *what, const char *objects);
int tm_nl_parse(const struct nlmsghdr *nlh, const struct nlattr **tb);
/* The same for the attributes of a nest, checked the same way. */
int tm_nl_parse_nested(const struct nlattr *nest, const struct nlattr **tb);
/* A u8 attribute of tb, or @def when absent. */
uint8_t tm_attr_u8(const struct nlattr **tb, int type, uint8_t def);

/* The socket, family id and events group, opening the session if needed. */
struct mnl_socket *tm_nl_socket(void);
uint16_t tm_nl_family(void);
/* Whether the family answers (loading the module if allowed), no exit. */
bool tm_nl_module_loaded(void);
uint32_t tm_nl_events_group(void);
/* The "trace" group: 0 when the module has none. */
uint32_t tm_nl_trace_group(void);
/* Reserve @n consecutive sequence numbers; returns the first. */
uint32_t tm_nl_seq(uint32_t n);

/* What an NLMSG_ERROR says. */
struct tm_nlerr {
	int error;		/* positive errno, 0 for an ACK */
	uint32_t seq;		/* of the request it answers */
	bool has_offs;
	uint32_t offs;		/* of the bad attribute in the request */
	char msg[256];		/* extack message, or "" */
};

int tm_nl_parse_error(const struct nlmsghdr *nlh, struct tm_nlerr *e);
/* "MSG (errno text)", "errno text", with the EPERM hint. */
void tm_nl_print_reason(FILE *f, const struct tm_nlerr *e);
/*
 * tm_nl_talk() that prints nothing: 0, or -1 with the kernel's refusal
 * in @err, for a caller that handles some errors itself.
 */
int tm_nl_call(struct nlmsghdr *nlh, tm_msg_cb cb, void *data,
	       struct tm_nlerr *err);

/* txn.c: many requests applied as one transaction. */
struct tm_attr_map;

/*
 * Requests 0..n-1 of a transaction.  put() adds request i to @buf (room
 * for at least TM_TXN_MSG_MAX bytes) with tm_nl_put_header() and its
 * attributes, recording them in @map when it is not NULL.  error() reports
 * the kernel's refusal of request i, after every request was sent.
 *
 * wait(), when set, is for requests still being made: it blocks until
 * request i is ready and returns how many are (more than i), 0 if there is
 * no request i, or -1 if the input is bad (its errors already reported):
 * then the transaction is aborted and tm_txn_run() returns TMCTL_EPARSE.
 * n is then an upper bound of the requests.
 *
 * join(), when set, packs several rules in one message: put() then makes
 * a rule's request with its attributes in a TM_A_RULE nest, and join()
 * adds request i to the message @nlh that put() began with request
 * @first, as one more nest, when both are rules of one kind for one table
 * (true), else adds nothing (false).  Errors still name their request.
 */
#define TM_TXN_MSG_MAX	TM_MSG_MAX

struct tm_txn_ops {
	size_t n;
	struct nlmsghdr *(*put)(void *ctx, size_t i, char *buf,
				struct tm_attr_map *map);
	void (*error)(void *ctx, size_t i, const struct tm_nlerr *e,
		      const struct tm_attr_map *map);
	ssize_t (*wait)(void *ctx, size_t i);
	bool (*join)(void *ctx, size_t first, size_t i, struct nlmsghdr *nlh);
	void *ctx;
	bool dry_run;	/* abort even without an error (tmctl -c -f) */
};

/*
 * Begin a transaction, send every request without an ACK, packed many per
 * sendmsg(), collect the errors, then commit (no error) or abort.
 * TMCTL_OK, or TMCTL_EKERNEL with the errors reported.
 */
int tm_txn_run(const struct tm_txn_ops *ops, const char *what);

/*
 * Which word of a command made each attribute of a request, so that an
 * extack's bad attribute offset names a column: the word of an attribute
 * is that of the last entry at or before it, so attributes that follow
 * each other from one word take one entry.  Room for a rule's words and
 * the values of its sets.
 */
#define TM_ATTR_MAP_MAX	(64 + TM_SET_VALUES_MAX)

struct tm_attr_map {
	unsigned int n;
	struct {
		uint32_t offs;
		int word;
	} a[TM_ATTR_MAP_MAX];
};

void tm_attr_map_add(struct tm_attr_map *map, const struct nlmsghdr *nlh,
		     int word);
/* The word of the attribute at @offs, or -1. */
int tm_attr_map_word(const struct tm_attr_map *map, uint32_t offs);

/*
 * out.c: one object per line in text mode, JSON with -j.  A NULL key is
 * an element of the array tm_out_begin_array() began: an array of values.
 */
void tm_out_begin_list(void);
void tm_out_end_list(void);
void tm_out_begin_object(void);
void tm_out_end_object(void);
void tm_out_begin_array(const char *key);
void tm_out_end_array(void);
void tm_out_str(const char *key, const char *val);
void tm_out_u64(const char *key, uint64_t val);
void tm_out_s64(const char *key, int64_t val);
void tm_out_bool(const char *key, bool val);
/* A value that is unknown: JSON null, "-" in text. */
void tm_out_null(const char *key);
/* A ratio with two decimals. */
void tm_out_ratio(const char *key, uint64_t num, uint64_t den);

/* Table commands, of the command line or of a file (table.c). */
enum tm_table_verb {
	TM_TABLE_ADD,
	TM_TABLE_DEL,
	TM_TABLE_FLUSH,		/* its rules */
};

/* The keywords of table add. */
enum tm_table_field {
	TM_T_FAMILY,
	TM_T_HOOK,
	TM_T_PRIORITY,
	TM_T_POLICY,
	TM_T_ENGINE,
	TM_T_COLLIDE,
	TM_T_MAX_RULES,
	TM_T_MAX_TUPLES,
	TM_T_MAX
};

struct tm_table_req {
	uint8_t verb;		/* enum tm_table_verb */
	uint8_t family, hook, policy, engine, collide;
	int32_t priority;
	uint32_t max_rules, max_tuples;
	const char *name;	/* a word */
	bool seen[TM_T_MAX];
};

/* Parse "NAME ..." of a table verb; the words must outlive @r. */
int tm_table_parse(const struct tm_words *w, enum tm_table_verb verb,
		   struct tm_table_req *r);
/* The netlink command of a table verb, and its attributes. */
uint8_t tm_table_cmd(enum tm_table_verb verb);
void tm_table_put(struct nlmsghdr *nlh, const struct tm_table_req *r);

/*
 * rule_words.c: the words of rule add|replace|del|flush, as a request, and
 * a rule reply printed back as those words.
 */
enum tm_rule_verb {
	TM_VERB_ADD,
	TM_VERB_REPLACE,
	TM_VERB_DEL,
	TM_VERB_FLUSH,
};

/* Fields of a rule request, also the index of the word that set each. */
enum tm_rule_field {
	TM_F_TABLE,
	TM_F_ID,
	TM_F_PRIORITY,
	TM_F_FAMILY,
	TM_F_SRC,
	TM_F_DST,
	TM_F_SPORT,
	TM_F_DPORT,
	TM_F_PROTO,
	TM_F_IIF,
	TM_F_OIF,
	TM_F_CT,
	TM_F_TCP_FLAGS,
	TM_F_ICMP_TYPE,
	TM_F_ICMP_CODE,
	TM_F_META_MARK,
	TM_F_DSCP,
	TM_F_FRAGMENT,
	TM_F_COMMENT,
	TM_F_COOKIE,
	TM_F_ACTION,
	TM_F_REJECT,
	TM_F_MARK,
	TM_F_LB,
	TM_F_QUEUE,
	TM_F_BYPASS,
	TM_F_LOG,
	TM_F_LOG_PREFIX,
	TM_F_LOG_LEVEL,
	TM_F_LOG_GROUP,
	TM_F_LOG_RATE,
	TM_F_TRACE,
	TM_F_RESET,
	TM_F_PACKETS,
	TM_F_BYTES,
	TM_F_MAX
};

/* struct tm_rule_req.sets has a bit per field. */
_Static_assert(TM_F_MAX <= 64, "struct tm_rule_req.sets is too small");

/*
 * One value of a set ("src { A, B }"): what the type of its keyword's row
 * parses into the request's field, and where it was written.
 */
struct tm_rule_value {
	union {
		struct tm_prefix prefix;
		uint16_t ports[2];
		uint8_t proto;
	} v;
	int16_t word;		/* its word */
	uint8_t field;		/* of its set, enum tm_rule_field */
	uint32_t off, len;	/* its bytes in the word */
};

struct tm_rule_req {
	uint8_t verb;		/* enum tm_rule_verb */
	uint8_t family;
	uint8_t proto;
	uint8_t action;
	uint8_t reject;
	struct tm_prefix src, dst;
	uint16_t sport[2], dport[2];
	uint32_t id, priority, iif, oif, mark;
	uint8_t ct_set, frag_set;
	uint8_t tcp_flags[2];		/* mask, value */
	uint16_t icmp_type[2], icmp_code[2];
	uint32_t meta_mark[2];		/* value, mask */
	uint64_t dscp_set;
	uint64_t cookie;
	uint16_t queue;
	uint8_t log_level;
	uint16_t log_group;
	uint32_t log_rate;
	const char *log_prefix;
	uint64_t packets, bytes;	/* read back, never sent */
	const char *table;	/* these point into the words */
	const char *comment;
	const char *lb;
	/* word of each field given, -1 for absent */
	int16_t word[TM_F_MAX];
	/*
	 * The values of the fields given as sets (bit 1 << field in @sets),
	 * in the order of their words, one array for all of them: NULL
	 * without a set.  Allocated by tm_rule_parse() to the size of the
	 * sets, freed by tm_rule_req_free(): a request without sets (most
	 * of a batch file's) takes a pointer and no more, and one with 512
	 * values has room for them.  A copy of a request shares the array.
	 */
	struct tm_rule_value *set;
	uint16_t nset;
	uint64_t sets;
};

#define TM_HAS(r, f)	((r)->word[f] >= 0)

/*
 * Parse "TABLE ..." of a rule verb; the words must outlive @r.  Once sent,
 * a request parsed without error is freed with tm_rule_req_free().
 */
int tm_rule_parse(const struct tm_words *w, enum tm_rule_verb verb,
		  struct tm_rule_req *r);
void tm_rule_req_free(struct tm_rule_req *r);
/* Add the attributes of @r to a request (see struct tm_attr_map). */
void tm_rule_put(struct nlmsghdr *nlh, const struct tm_rule_req *r,
		 struct tm_attr_map *map);
/*
 * A request of several rules of a table (see tm_txn_ops.join): the table
 * and the first rule's attributes in a TM_A_RULE nest; then each next
 * rule's in a nest of its own, with tm_rule_put_nest().
 */
void tm_rule_put_nested(struct nlmsghdr *nlh, const struct tm_rule_req *r,
			struct tm_attr_map *map);
void tm_rule_put_nest(struct nlmsghdr *nlh, const struct tm_rule_req *r,
		      struct tm_attr_map *map);
/* The netlink command of a verb. */
uint8_t tm_rule_cmd(enum tm_rule_verb verb);
/*
 * Print a rule reply (tb indexed by tm_nl_parse()) as a line of
 * "rule add" words in text mode, a JSON object with -j; @table when the
 * reply has no TM_A_TABLE_NAME.
 */
void tm_rule_print(const struct nlattr **tb, const char *table,
		   bool counters);
/* The words "rule VERB TABLE ...", no newline ("del": the id only). */
void tm_rule_text(const struct nlattr **tb, const char *verb,
		  const char *table, bool counters);
/* The fields of a rule, with tm_out_*(). */
void tm_rule_fields(const struct nlattr **tb, const char *table,
		    bool counters);

/*
 * table.c: the fields of a table reply; its parameters only (the keys of
 * table add); the words "table VERB NAME ..." with every parameter, no
 * newline ("del": the name only).
 */
void tm_table_print_fields(const struct nlattr **tb);
void tm_table_config_fields(const struct nlattr **tb);
/* "entries N" of a table reply (TM_A_TABLE_ENTRIES), as table show has it. */
void tm_table_entries(const struct nlattr **tb);
void tm_table_text(const struct nlattr **tb, const char *verb);

/* sid.c: the words of sid add|replace|del, as a request. */
enum tm_sid_verb {
	TM_SID_ADD,
	TM_SID_REPLACE,
	TM_SID_DEL,
};

struct tm_sid_req {
	uint8_t verb;		/* enum tm_sid_verb */
	uint8_t addr[16];
	uint8_t policy;		/* enum tm_sid_policy */
	uint32_t threshold;	/* CONNS, BACKLOG and LOAD */
	uint32_t hmac;		/* seg6 HMAC key id, 0: none */
	uint32_t timeout[4];	/* idle, close, syn, udp (s), 0: default */
	/* the words of the policy, its threshold, the key id; -1: none */
	int16_t w_policy, w_threshold, w_hmac;
	int16_t w_timeout[4];	/* the words of the timeouts */
};

/* The name of a SID policy; whether it takes a threshold N. */
const char *tm_sid_policy_name(unsigned int i);
bool tm_sid_policy_has_threshold(uint8_t policy);
/* Whether @seconds is the default of timeout @k (idle, close, syn, udp). */
bool tm_sid_timeout_default(unsigned int k, long long seconds);
/* Parse "SID ..." of a sid verb into @s. */
int tm_sid_parse(const struct tm_words *w, enum tm_sid_verb verb,
		 struct tm_sid_req *s);
uint8_t tm_sid_cmd(enum tm_sid_verb verb);
/* Add the attributes of @s to a request (see struct tm_attr_map). */
void tm_sid_put(struct nlmsghdr *nlh, const struct tm_sid_req *s,
		struct tm_attr_map *map);

/*
 * sid.c: a SID reply as the words "sid VERB SID accept policy ...", no
 * newline ("del": the SID only), with conns-now and the counters when
 * @counters; or its fields with tm_out_*().
 */
void tm_sid_text(const struct nlattr **tb, const char *verb, bool counters);
void tm_sid_fields(const struct nlattr **tb, bool counters);
/* A SID reply as a "sid add" line, or a JSON object with -j. */
void tm_sid_print(const struct nlattr **tb, bool counters);

/*
 * lb.c: the words of lb service add|del and lb backend add|del, as a
 * request.
 */
enum tm_lb_verb {
	TM_LB_SERVICE_ADD,
	TM_LB_SERVICE_DEL,
	TM_LB_BACKEND_ADD,
	TM_LB_BACKEND_DEL,
	TM_LB_BACKEND_SET,
};

/* Keywords of lb service add, in the order a service is printed. */
enum tm_lb_field {
	TM_LB_K_VIP,
	TM_LB_K_SID,
	TM_LB_K_TCP,
	TM_LB_K_UDP,
	TM_LB_K_PORT,
	TM_LB_K_AFFINITY,
	TM_LB_K_CHOICES,
	TM_LB_K_TABLE_SIZE,
	TM_LB_K_MAX_FLOWS,
	TM_LB_K_IDLE_TIMEOUT,
	TM_LB_K_FIN_TIMEOUT,
	TM_LB_K_SYN_TIMEOUT,
	TM_LB_K_HMAC,
	TM_LB_K_HEALTH_INTERVAL,
	TM_LB_K_HEALTH_TIMEOUT,
	TM_LB_K_HEALTH_RISE,
	TM_LB_K_HEALTH_FALL,
	TM_LB_K_HEALTH_LISTENER,
	TM_LB_K_MAX
};

struct tm_lb_req {
	uint8_t verb;		/* enum tm_lb_verb */
	const char *name;	/* points into the words */
	uint8_t vip[16];
	uint8_t vip_len;	/* its prefix length, 128: an address */
	uint8_t sid[16];	/* the service's own, or the backend's */
	uint32_t weight;	/* backend add and set, when w_weight >= 0 */
	uint32_t val[TM_LB_K_MAX];	/* port and the numbers */
	/* word of each keyword's value (a flag's: the keyword); -1 */
	int16_t word[TM_LB_K_MAX];
	int16_t w_weight;
};

/* A service's VIP: ADDR, or ADDR/LEN for a prefix ("?" without it). */
const char *tm_lb_vip(const struct nlattr **tb, char *buf, size_t len);
/* Parse "NAME ..." of an lb verb into @r; the words must outlive @r. */
int tm_lb_parse(const struct tm_words *w, enum tm_lb_verb verb,
		struct tm_lb_req *r);
uint8_t tm_lb_cmd(enum tm_lb_verb verb);
/* Add the attributes of @r to a request (see struct tm_attr_map). */
void tm_lb_put(struct nlmsghdr *nlh, const struct tm_lb_req *r,
	       struct tm_attr_map *map);

/*
 * lb.c: monitor's lines for the events of load-balancer services, as the
 * words of the command that would make them, no newline: "lb service add
 * NAME vip ...", "lb service del NAME", "lb backend add NAME SID weight
 * W", "lb backend del NAME SID"; a backend that went up or down as "lb
 * backend health NAME SID up|down [why WHY]"; and their fields with
 * tm_out_*().
 */
void tm_lb_service_text(const struct nlattr **tb, const char *verb);
void tm_lb_service_fields(const struct nlattr **tb, bool counters);
void tm_lb_backend_text(const struct nlattr **tb, const char *verb);
void tm_lb_backend_fields(const struct nlattr **tb);
/*
 * A service reply (with its backends) as the commands that make it: "lb
 * service add ..." and one "lb backend add ..." line per backend; with
 * -j, one object with its "backends" array.
 */
void tm_lb_service_save(const struct nlattr **tb);

/*
 * prom.c: the Prometheus text exposition format (version 0.0.4).  Samples
 * are added in any order, each to its family; tm_prom_write() prints each
 * family that has samples, in the order of the array given to
 * tm_prom_new(): its "# HELP" and "# TYPE" lines, then its samples
 * together, in the order they were added.  Label values are escaped (a
 * backslash, a double quote and a newline) and made valid UTF-8 (U+FFFD
 * for each byte that is not).  Keeping a series from being added twice is
 * the caller's part.
 */
enum tm_prom_type {
	TM_PROM_GAUGE,
	TM_PROM_COUNTER,	/* its name ends in _total */
};

struct tm_prom_family {
	const char *name;
	enum tm_prom_type type;
	const char *help;
};

/* A label of a sample; one with a NULL value is left out. */
struct tm_prom_label {
	const char *name;
	const char *value;
};

struct tm_prom;

/* @fams must outlive the result; exits when out of memory. */
struct tm_prom *tm_prom_new(const struct tm_prom_family *fams,
			    unsigned int n);
void tm_prom_free(struct tm_prom *p);
/* A label every sample has, before its own (@value NULL: none). */
void tm_prom_const_label(struct tm_prom *p, const char *name,
			 const char *value);
void tm_prom_sample(struct tm_prom *p, unsigned int fam,
		    const struct tm_prom_label *labels, unsigned int n,
		    uint64_t value);
/* Samples in family @fam so far. */
size_t tm_prom_count(const struct tm_prom *p, unsigned int fam);
/* Print every family with samples; 0, or -1 with errno on an error. */
int tm_prom_write(const struct tm_prom *p, FILE *f);
/* @s as the inside of a quoted label value. */
void tm_prom_escape(FILE *f, const char *s);

/*
 * metrics.c: tmctl metrics, the namespace's tables, rules, SIDs and
 * load-balancer services as Prometheus metrics.  The callbacks take the
 * replies of the dumps, in this order: TM_CMD_STATS_GET, the tables, for
 * each table tm_metrics_rules_of() then its rules, the SIDs, the
 * services; an object met twice (a dump the kernel restarted) gives its
 * series once.  tm_metrics_write() prints them.
 */
struct tm_metrics;

/* @rules: the series of each rule too; @netns: a "netns" label, or NULL. */
struct tm_metrics *tm_metrics_new(bool rules, const char *netns);
void tm_metrics_free(struct tm_metrics *m);
int tm_metrics_stats_cb(const struct nlmsghdr *nlh, void *m);
int tm_metrics_table_cb(const struct nlmsghdr *nlh, void *m);
void tm_metrics_rules_of(struct tm_metrics *m, const char *table);
int tm_metrics_rule_cb(const struct nlmsghdr *nlh, void *m);
int tm_metrics_sid_cb(const struct nlmsghdr *nlh, void *m);
int tm_metrics_service_cb(const struct nlmsghdr *nlh, void *m);
int tm_metrics_write(const struct tm_metrics *m, FILE *f);

/* Object handlers: argv starts after the object name. */
int tm_do_table(int argc, char **argv);
int tm_do_rule(int argc, char **argv);
int tm_do_counters(int argc, char **argv);
int tm_do_sid(int argc, char **argv);
int tm_do_lb(int argc, char **argv);
int tm_do_stats(int argc, char **argv);
int tm_do_monitor(int argc, char **argv);
int tm_do_metrics(int argc, char **argv);
int tm_do_import(int argc, char **argv);
/* ipt.c: import --format iptables-save (@af 4) or ip6tables-save (6). */
int tm_import_iptables(int argc, char **argv, unsigned int af);
int tm_do_list(int argc, char **argv);
int tm_do_save(int argc, char **argv);
int tm_do_flush(int argc, char **argv);
/* tmctl -f FILE (-j: a JSON file) */
int tm_do_batch(const char *path);

/*
 * json.c: a JSON file (tmctl -j -f FILE; the format of tmctl -j list
 * ruleset, tmctl-json(5)) as the commands a text file would hold, in
 * their order: emit() gets each one's words, the key each word comes from
 * (NULL for none, e.g. "rule" and "add"), and the path of the object it
 * comes from ("tables[1].rules[3]"); all of them stay valid until
 * tm_json_free().  emit() returns nonzero for a command it found bad
 * (reported already): the reading goes on, to report every bad object.
 * Returns 0, or TMCTL_EPARSE when the document itself is bad (JSON syntax,
 * "version", a member of the wrong type or unknown), reported as
 * "FILE:LINE:COL: error: ..." or "FILE: PATH: error: ...".
 */
typedef int (*tm_json_emit_fn)(void *ctx, int argc, const char **argv,
			       const char **keys, const char *path);

struct tm_json;

int tm_json_commands(const char *file, const char *text, size_t len,
		     tm_json_emit_fn emit, void *ctx, struct tm_json **state);
void tm_json_free(struct tm_json *state);

#endif /* _TMCTL_H */
