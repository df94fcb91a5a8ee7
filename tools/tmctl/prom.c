// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus text exposition format, version 0.0.4, as the
 * node_exporter textfile collector and a scrape read it:
 *
 *	# HELP NAME TEXT
 *	# TYPE NAME gauge|counter
 *	NAME{LABEL="VALUE",...} VALUE
 *
 * A family's HELP and TYPE lines come once, before its samples, and its
 * samples stay together: each family collects its samples in a buffer of
 * its own (open_memstream), and the families are printed one after the
 * other at the end.  Samples carry unsigned integers, printed in full
 * (readers take them as doubles).  Label values are the user's text
 * (table names, rule comments, service names): a backslash, a double
 * quote and a newline are escaped, and every byte that does not belong
 * to valid UTF-8, which a reader refuses (and with it the whole file),
 * becomes U+FFFD.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tmctl.h"

struct tm_prom_buf {
	FILE *f;
	char *text;
	size_t len;
	size_t samples;
};

struct tm_prom {
	const struct tm_prom_family *fams;
	unsigned int n;
	struct tm_prom_label konst;	/* value NULL: none */
	struct tm_prom_buf *bufs;
};

static void tm_prom_oom(void)
{
	fputs("tmctl: out of memory\n", stderr);
	exit(TMCTL_EPARSE);
}

struct tm_prom *tm_prom_new(const struct tm_prom_family *fams,
			    unsigned int n)
{
	struct tm_prom *p = calloc(1, sizeof(*p));
	unsigned int i;

	if (!p)
		tm_prom_oom();
	p->fams = fams;
	p->n = n;
	p->bufs = calloc(n, sizeof(*p->bufs));
	if (!p->bufs)
		tm_prom_oom();
	for (i = 0; i < n; i++) {
		p->bufs[i].f = open_memstream(&p->bufs[i].text,
					      &p->bufs[i].len);
		if (!p->bufs[i].f)
			tm_prom_oom();
	}
	return p;
}

void tm_prom_free(struct tm_prom *p)
{
	unsigned int i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++) {
		fclose(p->bufs[i].f);
		free(p->bufs[i].text);
	}
	free(p->bufs);
	free(p);
}

void tm_prom_const_label(struct tm_prom *p, const char *name,
			 const char *value)
{
	p->konst.name = name;
	p->konst.value = value;
}

/* The length of the valid UTF-8 character at @s, 0 if there is none. */
static size_t tm_utf8_len(const unsigned char *s)
{
	size_t n, i;
	uint32_t c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		c = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	/* The terminating NUL is no continuation byte: it stops here. */
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, UTF-16 surrogates, past U+10FFFF. */
	if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	return n;
}

void tm_prom_escape(FILE *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n;

	while (*u) {
		n = tm_utf8_len(u);
		if (!n) {
			fputs("\xef\xbf\xbd", f);	/* U+FFFD */
			u++;
		} else if (*u == '\\' || *u == '"') {
			fputc('\\', f);
			fputc(*u++, f);
		} else if (*u == '\n') {
			fputs("\\n", f);
			u++;
		} else {
			fwrite(u, 1, n, f);
			u += n;
		}
	}
}

static void tm_prom_label(FILE *f, bool *first, const struct tm_prom_label *l)
{
	if (!l->value)
		return;
	fprintf(f, "%s%s=\"", *first ? "{" : ",", l->name);
	tm_prom_escape(f, l->value);
	fputc('"', f);
	*first = false;
}

void tm_prom_sample(struct tm_prom *p, unsigned int fam,
		    const struct tm_prom_label *labels, unsigned int n,
		    uint64_t value)
{
	struct tm_prom_buf *b = &p->bufs[fam];
	bool first = true;
	unsigned int i;

	fputs(p->fams[fam].name, b->f);
	tm_prom_label(b->f, &first, &p->konst);
	for (i = 0; i < n; i++)
		tm_prom_label(b->f, &first, &labels[i]);
	if (!first)
		fputc('}', b->f);
	fprintf(b->f, " %llu\n", (unsigned long long)value);
	b->samples++;
}

size_t tm_prom_count(const struct tm_prom *p, unsigned int fam)
{
	return p->bufs[fam].samples;
}

/* HELP text escapes a backslash and a newline only. */
static void tm_prom_help(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

int tm_prom_write(const struct tm_prom *p, FILE *f)
{
	const struct tm_prom_family *fam;
	unsigned int i;

	errno = 0;
	for (i = 0; i < p->n; i++) {
		fam = &p->fams[i];
		if (!p->bufs[i].samples)
			continue;
		/* The memory stream's text is complete once flushed. */
		if (fflush(p->bufs[i].f))
			return -1;
		fprintf(f, "# HELP %s ", fam->name);
		tm_prom_help(f, fam->help);
		fprintf(f, "\n# TYPE %s %s\n", fam->name,
			fam->type == TM_PROM_COUNTER ? "counter" : "gauge");
		fwrite(p->bufs[i].text, 1, p->bufs[i].len, f);
	}
	if (fflush(f) || ferror(f)) {
		if (!errno)
			errno = EIO;
		return -1;
	}
	return 0;
}
