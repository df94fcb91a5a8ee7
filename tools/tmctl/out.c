// SPDX-License-Identifier: GPL-2.0
/*
 * Output: every object is a list of key/value pairs.  Text mode prints one
 * object per line as "key value key value ...", JSON mode (-j) prints the
 * same keys ('-' becoming '_') in objects, in an array for a list, and
 * objects may hold arrays of objects (printed as the lines that follow in
 * text mode) or of values (a NULL key: a rule's sets, in JSON only).  A
 * top-level JSON object or list ends its line.
 */
#include <stdio.h>

#include "tmctl.h"

#define TM_OUT_DEPTH	8

/* Items printed at each nesting level, for the commas. */
static unsigned int tm_out_items[TM_OUT_DEPTH];
static unsigned int tm_out_depth;
/* Fields on the current text line. */
static unsigned int tm_out_line;

static void tm_json_str(const char *s, bool key)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else if (key && c == '-')
			putchar('_');
		else
			putchar(c);
	}
	putchar('"');
}

static void tm_out_push(void)
{
	if (tm_out_depth < TM_OUT_DEPTH - 1)
		tm_out_items[++tm_out_depth] = 0;
}

static void tm_out_pop(void)
{
	if (tm_out_depth)
		tm_out_depth--;
	if (!tm_out_depth && tmctl.json)
		putchar('\n');
}

/* A new item at the current level: its comma (none between lines). */
static void tm_out_item(void)
{
	if (tmctl.json && tm_out_depth && tm_out_items[tm_out_depth]++)
		putchar(',');
}

static void tm_out_newline(void)
{
	if (!tmctl.json && tm_out_line)
		putchar('\n');
	tm_out_line = 0;
}

void tm_out_begin_list(void)
{
	tm_out_item();
	if (tmctl.json)
		putchar('[');
	tm_out_push();
}

void tm_out_end_list(void)
{
	if (tmctl.json)
		putchar(']');
	tm_out_pop();
}

void tm_out_begin_object(void)
{
	tm_out_item();
	if (tmctl.json)
		putchar('{');
	tm_out_push();
}

void tm_out_end_object(void)
{
	if (tmctl.json)
		putchar('}');
	tm_out_newline();
	tm_out_pop();
}

/* A member's key; NULL: an element of an array of values, no key. */
static void tm_out_key(const char *key)
{
	tm_out_item();
	if (tmctl.json) {
		if (key) {
			tm_json_str(key, true);
			putchar(':');
		}
	} else {
		printf("%s%s%s", tm_out_line ? " " : "", key ? key : "",
		       key ? " " : "");
	}
	tm_out_line++;
}

void tm_out_begin_array(const char *key)
{
	if (tmctl.json) {
		tm_out_item();
		tm_json_str(key, true);
		fputs(":[", stdout);
	}
	tm_out_newline();
	tm_out_push();
}

void tm_out_end_array(void)
{
	if (tmctl.json)
		putchar(']');
	tm_out_pop();
}

void tm_out_str(const char *key, const char *val)
{
	tm_out_key(key);
	if (tmctl.json)
		tm_json_str(val, false);
	else
		tm_print_word(stdout, val);
}

void tm_out_u64(const char *key, uint64_t val)
{
	tm_out_key(key);
	printf("%llu", (unsigned long long)val);
}

void tm_out_s64(const char *key, int64_t val)
{
	tm_out_key(key);
	printf("%lld", (long long)val);
}

void tm_out_bool(const char *key, bool val)
{
	tm_out_key(key);
	fputs(val ? "true" : "false", stdout);
}

void tm_out_null(const char *key)
{
	tm_out_key(key);
	fputs(tmctl.json ? "null" : "-", stdout);
}

void tm_out_ratio(const char *key, uint64_t num, uint64_t den)
{
	tm_out_key(key);
	printf("%.2f", den ? (double)num / (double)den : 0.0);
}
