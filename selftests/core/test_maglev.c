// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the load balancer's Maglev table (kmod/srv6/tm_maglev.c), under
 * ASan and UBSan: every row lists distinct valid candidates; each column is
 * balanced (equal weights within one row, weights in proportion); the table
 * depends on the backends, not on their order; a backend removed or added
 * moves few rows of the others; bad arguments are refused; skewed weights
 * give the table of the naive algorithm (kept here as the oracle) in a
 * bounded number of rounds.  Prints the measured balance and disruption.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tm_maglev.h"
#include "shim.h"

static unsigned int passed, failed;

static void check(bool ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void check(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (ok)
		passed++;
	else
		failed++;
}

#define SIZE	65537u
#define NONE	0xffff

static u16 *build(const struct tm_maglev_backend *b, u32 n, u32 k, u32 size)
{
	u16 *t = malloc((size_t)size * k * sizeof(*t));

	if (!t || tm_maglev_build(b, n, k, size, t)) {
		fprintf(stderr, "tm_maglev_build failed\n");
		exit(1);
	}
	return t;
}

static void backends(struct tm_maglev_backend *b, u32 n, u64 base)
{
	u32 i;

	for (i = 0; i < n; i++) {
		b[i].key = base + i * 0x10001ULL;
		b[i].weight = 1;
	}
}

/* Rows hold min(k, n) distinct valid indexes, then NONE. */
static void test_rows(u32 n, u32 k)
{
	struct tm_maglev_backend b[64];
	u32 r, c, c2, bad = 0, want = k < n ? k : n;
	u16 *t;

	backends(b, n, 7);
	t = build(b, n, k, SIZE);
	for (r = 0; r < SIZE; r++) {
		const u16 *row = t + (size_t)r * k;

		for (c = 0; c < k; c++) {
			if (c >= want) {
				bad += row[c] != NONE;
				continue;
			}
			bad += row[c] >= n;
			for (c2 = 0; c2 < c; c2++)
				bad += row[c] == row[c2];
		}
	}
	check(!bad, "%u backends, k %u: rows list %u distinct candidates (%u bad)",
	      n, k, want, bad);
	free(t);
}

/* Column @c: max and min of the rows each backend has, scaled by weight. */
static void column_share(const u16 *t, u32 k, u32 c, u32 n,
			 const struct tm_maglev_backend *b, double *lo,
			 double *hi, u32 *cnt)
{
	u32 r, i;

	memset(cnt, 0, n * sizeof(*cnt));
	for (r = 0; r < SIZE; r++)
		cnt[t[(size_t)r * k + c]]++;
	*lo = 1e18;
	*hi = 0;
	for (i = 0; i < n; i++) {
		double s = (double)cnt[i] / b[i].weight;

		if (s < *lo)
			*lo = s;
		if (s > *hi)
			*hi = s;
	}
}

static void test_balance(void)
{
	struct tm_maglev_backend b[10];
	double lo, hi;
	u32 cnt[10], c;
	u16 *t;

	backends(b, 10, 1);
	t = build(b, 10, 2, SIZE);
	for (c = 0; c < 2; c++) {
		column_share(t, 2, c, 10, b, &lo, &hi, cnt);
		check(hi - lo <= 1,
		      "equal weights, column %u: rows per backend %.0f..%.0f",
		      c, lo, hi);
	}
	free(t);

	/* Weights 1, 2 and 4: shares 1/7, 2/7, 4/7 of each column. */
	backends(b, 3, 100);
	b[1].weight = 2;
	b[2].weight = 4;
	t = build(b, 3, 1, SIZE);
	column_share(t, 1, 0, 3, b, &lo, &hi, cnt);
	check(hi / lo < 1.01,
	      "weights 1:2:4: rows %u / %u / %u (per weight %.0f..%.0f)",
	      cnt[0], cnt[1], cnt[2], lo, hi);
	free(t);

	/* Weight 0: never a candidate. */
	backends(b, 4, 200);
	b[3].weight = 0;
	t = build(b, 4, 2, SIZE);
	column_share(t, 2, 0, 4, b, &lo, &hi, cnt);
	check(!cnt[3], "weight 0 takes no row (%u)", cnt[3]);
	free(t);
}

/* The same backends in another order give the same table. */
static void test_order(void)
{
	struct tm_maglev_backend b[20], r[20];
	u16 *t1, *t2;
	u32 i, diff = 0;

	backends(b, 20, 3);
	for (i = 0; i < 20; i++)
		r[i] = b[19 - i];
	t1 = build(b, 20, 2, SIZE);
	t2 = build(r, 20, 2, SIZE);
	for (i = 0; i < SIZE * 2; i++)
		diff += b[t1[i]].key != r[t2[i]].key;
	check(!diff, "configuration order does not matter (%u rows differ)",
	      diff);
	free(t1);
	free(t2);
}

/*
 * Remove backend 3 of 20, or add a 21st: of the rows whose first
 * candidate was (and stays) another backend, few change.
 */
static void test_disruption(void)
{
	struct tm_maglev_backend b[21];
	u32 r, moved = 0, kept = 0, moved_add = 0;
	u16 *t, *t_del, *t_add;

	backends(b, 21, 11);
	t_add = build(b, 21, 2, SIZE);
	t = build(b, 20, 2, SIZE);
	b[3] = b[19];	/* remove 3: the last takes its place */
	t_del = build(b, 19, 2, SIZE);
	backends(b, 21, 11);
	for (r = 0; r < SIZE; r++) {
		u64 before = b[t[r * 2]].key;
		u64 after;

		if (t[r * 2] == 3)
			continue;
		kept++;
		after = t_del[r * 2] == 3 ? b[19].key : b[t_del[r * 2]].key;
		moved += before != after;
		moved_add += before != b[t_add[r * 2]].key &&
			     t_add[r * 2] != 20;
	}
	printf("  removing 1 of 20 moves %.2f %% of the other rows, adding a 21st %.2f %%\n",
	       100.0 * moved / kept, 100.0 * moved_add / kept);
	check(moved * 100 <= kept * 3,
	      "removing a backend moves at most 3 %% of the other rows (%u of %u)",
	      moved, kept);
	check(moved_add * 100 <= kept * 3,
	      "adding a backend moves at most 3 %% of the other rows (%u of %u)",
	      moved_add, kept);
	free(t);
	free(t_del);
	free(t_add);
}

static void test_errors(void)
{
	struct tm_maglev_backend b[3];
	u16 t[3 * 11];

	backends(b, 3, 5);
	check(tm_maglev_build(b, 3, 1, 12, t) == -EINVAL, "size not prime");
	check(tm_maglev_build(b, 3, 1, 2, t) == -EINVAL,
	      "size below the backends");
	check(tm_maglev_build(b, 0, 1, 11, t) == -EINVAL, "no backend");
	check(tm_maglev_build(b, 3, 0, 11, t) == -EINVAL, "k 0");
	check(tm_maglev_build(b, 3, TM_MAGLEV_MAX_K + 1, 11, t) == -EINVAL,
	      "k too large");
	b[1].key = b[0].key;
	check(tm_maglev_build(b, 3, 1, 11, t) == -EINVAL, "duplicate keys");
	backends(b, 3, 5);
	b[0].weight = 0;
	b[1].weight = 0;
	b[2].weight = 0;
	check(tm_maglev_build(b, 3, 1, 11, t) == -EINVAL, "every weight 0");
	backends(b, 3, 5);
	tm_alloc_fail_every = 1;
	check(tm_maglev_build(b, 3, 1, 11, t) == -ENOMEM, "allocation failure");
	tm_alloc_fail_every = 0;
	check(tm_maglev_build(b, 3, 3, 11, t) == 0, "3 of 3 in 11 rows");
}

/*
 * The oracle: the column fill as it was before tm_maglev_idle(), one round
 * at a time (kmod/core/tm_maglev.c at 808c634).  Same inputs, same table:
 * load balancers of different versions must agree.
 */
struct naive_mg {
	u32 idx, offset, skip, next, weight;
	u64 key, credit;
};

static u64 naive_mix64(u64 x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static int naive_cmp(const void *a, const void *b)
{
	const struct naive_mg *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

static bool naive_row_has(const u16 *row, u32 cols, u32 idx)
{
	u32 c;

	for (c = 0; c < cols; c++)
		if (row[c] == idx)
			return true;
	return false;
}

static void naive_column(struct naive_mg *mg, u32 m, u32 wmax, u32 k,
			 u32 col, u32 size, u16 *table)
{
	u32 filled = 0, i;
	bool active = true;

	for (i = 0; i < m; i++) {
		mg[i].next = 0;
		mg[i].credit = 0;
	}
	while (filled < size && active) {
		active = false;
		for (i = 0; i < m && filled < size; i++) {
			struct naive_mg *g = &mg[i];

			if (g->next == size)
				continue;
			active = true;
			g->credit += g->weight;
			while (g->credit >= wmax && filled < size) {
				u16 *row = NULL;

				g->credit -= wmax;
				while (g->next < size) {
					u64 r = (g->offset +
						 (u64)g->next * g->skip) % size;

					g->next++;
					row = table + r * k;
					if (row[col] == NONE &&
					    !naive_row_has(row, col, g->idx))
						break;
					row = NULL;
				}
				if (!row)
					break;
				row[col] = g->idx;
				filled++;
			}
		}
	}
}

static u16 *naive_build(const struct tm_maglev_backend *b, u32 n, u32 k,
			u32 size)
{
	u16 *t = malloc((size_t)size * k * sizeof(*t));
	struct naive_mg mg[64];
	u32 i, m = 0, wmax = 0;

	for (i = 0; i < n; i++) {
		if (!b[i].weight)
			continue;
		mg[m].idx = i;
		mg[m].key = b[i].key;
		mg[m].weight = b[i].weight;
		mg[m].offset = naive_mix64(b[i].key) % size;
		mg[m].skip = naive_mix64(b[i].key ^ 0x9e3779b97f4a7c15ULL) %
			     (size - 1) + 1;
		if (b[i].weight > wmax)
			wmax = b[i].weight;
		m++;
	}
	qsort(mg, m, sizeof(*mg), naive_cmp);
	for (i = 0; i < size * k; i++)
		t[i] = NONE;
	for (i = 0; i < (k < m ? k : m); i++)
		naive_column(mg, m, wmax, k, i, size, t);
	return t;
}

/* Rounds the columns took, counted at the core's hook point. */
static u64 rounds;

static void count_rounds(enum tm_hook_point p, u64 v)
{
	if (p == TM_HOOK_MAGLEV_ROUNDS)
		rounds += v;
}

/*
 * Build @b; every round must claim a row or end a backend's walk, so the
 * rounds stay within columns x (size + backends).  With @oracle, the
 * table must be the naive algorithm's.
 */
static void skewed(const char *what, const struct tm_maglev_backend *b,
		   u32 n, u32 k, u32 size, bool oracle)
{
	u32 i, m = 0, cols, diff = 0;
	u64 bound;
	u16 *t, *o;

	for (i = 0; i < n; i++)
		m += !!b[i].weight;
	cols = k < m ? k : m;
	bound = (u64)cols * (size + m);
	rounds = 0;
	tm_hook_fn = count_rounds;
	t = build(b, n, k, size);
	tm_hook_fn = NULL;
	if (oracle) {
		o = naive_build(b, n, k, size);
		for (i = 0; i < size * k; i++)
			diff += t[i] != o[i];
		free(o);
	}
	check(rounds <= bound && !diff,
	      "%s, k %u, %u rows: %llu rounds (bound %llu), %s%u rows differ",
	      what, k, size, (unsigned long long)rounds,
	      (unsigned long long)bound, oracle ? "" : "no oracle, ", diff);
	free(t);
}

static void test_skewed(void)
{
	static const u32 wpool[] = { 1, 2, 3, 7, 100, 1000, 40000, 65535 };
	static const u32 sizes[] = { 101, 1009, 4099 };
	struct tm_maglev_backend b[8];
	struct rng { u64 s; } g = { 99 };
	char what[96];
	u32 c, i, n;

	backends(b, 2, 21);
	b[0].weight = 65535;
	skewed("weights 65535, 1", b, 2, 1, SIZE, true);
	skewed("weights 65535, 1", b, 2, 2, 4099, true);
	/* The naive algorithm takes minutes here: bound and rows only. */
	skewed("weights 65535, 1", b, 2, 2, SIZE, false);
	backends(b, 4, 23);
	b[0].weight = 65535;
	skewed("weights 65535, 1, 1, 1", b, 4, 4, SIZE, false);
	skewed("weights 65535, 1, 1, 1", b, 4, 3, 1009, true);
	for (c = 0; c < 40; c++) {
		u32 k, size;
		int len;

		g.s = g.s * 6364136223846793005ULL + 1442695040888963407ULL;
		n = 2 + (g.s >> 33) % 6;
		k = 1 + (g.s >> 40) % 4;
		size = sizes[(g.s >> 45) % 3];
		backends(b, n, 1000 + c * 16);
		len = snprintf(what, sizeof(what), "weights");
		for (i = 0; i < n; i++) {
			g.s = g.s * 6364136223846793005ULL +
			      1442695040888963407ULL;
			b[i].weight = wpool[(g.s >> 35) % 8];
			len += snprintf(what + len, sizeof(what) - len, "%s %u",
					i ? "," : "", b[i].weight);
		}
		skewed(what, b, n, k, size, true);
	}
}

int main(void)
{
	test_rows(1, 2);
	test_rows(2, 2);
	test_rows(3, 2);
	test_rows(5, 4);
	test_rows(50, 8);
	test_balance();
	test_order();
	test_disruption();
	test_errors();
	test_skewed();
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
