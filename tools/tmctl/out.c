// SPDX-License-Identifier: GPL-2.0
/*
 * Output: every object is a list of key/value pairs.  Text mode prints one
 * object per line as "key value key value ...", JSON mode (-j) prints an
 * array of objects with the same keys.
 */
#include <stdio.h>

#include "tmctl.h"

static int tm_out_fields;	/* fields printed in the current object */
static int tm_out_objects;	/* objects printed in the current list */

static void tm_json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

void tm_out_begin_list(void)
{
	tm_out_objects = 0;
	if (tmctl.json)
		putchar('[');
}

void tm_out_end_list(void)
{
	if (tmctl.json)
		puts("]");
}

void tm_out_begin_object(void)
{
	tm_out_fields = 0;
	if (tmctl.json)
		printf("%s{", tm_out_objects ? "," : "");
	tm_out_objects++;
}

void tm_out_end_object(void)
{
	if (tmctl.json)
		putchar('}');
	else
		putchar('\n');
}

static void tm_out_key(const char *key)
{
	if (tmctl.json) {
		printf("%s", tm_out_fields ? "," : "");
		tm_json_str(key);
		putchar(':');
	} else {
		printf("%s%s ", tm_out_fields ? " " : "", key);
	}
	tm_out_fields++;
}

void tm_out_str(const char *key, const char *val)
{
	tm_out_key(key);
	if (tmctl.json)
		tm_json_str(val);
	else
		fputs(val, stdout);
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
