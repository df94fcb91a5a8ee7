// SPDX-License-Identifier: GPL-2.0
/*
 * Building the load balancer's Maglev table with k candidates per row (see
 * tm_maglev.h for what the table promises).
 *
 * Maglev: every backend has its own permutation of the rows, row(j) =
 * (offset + j * skip) mod size, with offset and skip drawn from its key
 * (size prime, so every skip walks through every row).  Backends take
 * turns, in key order, each claiming the first row of its permutation that
 * is still free; a backend that comes or goes only shifts the claims that
 * collide with its own, so most rows keep their backend.
 *
 * Weights: in each turn a backend earns its weight in credit and claims
 * one row per `wmax` of credit, so the heaviest claims one row a turn and
 * the others in proportion.  Turns in which nobody would claim are
 * skipped, in one step (tm_maglev_idle()).
 *
 * k candidates: the table is filled one column at a time, each column a
 * Maglev population of its own, except that a backend skips the rows that
 * already list it in an earlier column.  So each column is balanced and
 * consistent like a one-candidate table, and a row never lists a backend
 * twice.  With fewer backends (of nonzero weight) than k, the columns past
 * their number hold TM_MAGLEV_NONE.
 */
#include "tm_maglev.h"

/* splitmix64's finaliser: well spread offsets and skips from any keys. */
static u64 tm_mix64(u64 x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

bool tm_maglev_prime(u32 n)
{
	u32 d;

	if (n < 2)
		return false;
	for (d = 2; (u64)d * d <= n; d++)
		if (n % d == 0)
			return false;
	return true;
}

struct tm_mg {
	u32 idx;	/* into the caller's array */
	u32 offset, skip, next;
	u32 weight;
	u64 key;
	u64 credit;
};

static int tm_mg_cmp(const void *a, const void *b)
{
	const struct tm_mg *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

static bool tm_row_has(const u16 *row, u32 cols, u32 idx)
{
	u32 c;

	for (c = 0; c < cols; c++)
		if (row[c] == idx)
			return true;
	return false;
}

/*
 * Rounds that change nothing but credit, before the next one in which a
 * backend claims a row: at the start of a round each backend still on its
 * permutation has less than wmax credit (or it would have claimed), and
 * needs ceil((wmax - credit) / weight) rounds to reach it.  Skipping the
 * fewest of them less one, each backend's credit grows as it would have in
 * those rounds, which claim nothing: the table is the same.  Without this,
 * weights 65535 and 1 cost the light backend 65535 rounds a row.
 */
static u64 tm_maglev_idle(const struct tm_mg *mg, u32 m, u32 wmax, u32 size)
{
	u64 r, fewest = ~0ULL;
	u32 i;

	for (i = 0; i < m; i++) {
		const struct tm_mg *g = &mg[i];

		if (g->next == size)
			continue;
		r = g->credit >= wmax ? 1 :
		    (wmax - g->credit + g->weight - 1) / g->weight;
		if (r < fewest)
			fewest = r;
	}
	return fewest == ~0ULL ? 0 : fewest - 1;
}

/*
 * One column: a Maglev population avoiding the earlier columns' picks.
 * Every round claims a row or ends a backend's walk: O(m * (size + m)).
 */
static void tm_maglev_column(struct tm_mg *mg, u32 m, u32 wmax, u32 k,
			     u32 col, u32 size, u16 *table)
{
	u32 filled = 0, i;
	bool active = true;
	u64 rounds = 0;

	for (i = 0; i < m; i++) {
		mg[i].next = 0;
		mg[i].credit = 0;
	}
	/*
	 * Ends full: a free row lists fewer than m backends, and one it does
	 * not list would have claimed it on its way through every row.
	 */
	while (filled < size && active) {
		u64 idle = tm_maglev_idle(mg, m, wmax, size);

		rounds++;
		active = false;
		for (i = 0; i < m && filled < size; i++) {
			struct tm_mg *g = &mg[i];

			if (g->next == size)
				continue;
			active = true;
			g->credit += (idle + 1) * g->weight;
			while (g->credit >= wmax && filled < size) {
				u16 *row = NULL;

				g->credit -= wmax;
				while (g->next < size) {
					u64 r = (g->offset + (u64)g->next * g->skip) %
						size;

					/* Late in a big column, a walk is long. */
					if (!(++g->next & 4095))
						tm_cond_resched();
					row = table + r * k;
					if (row[col] == TM_MAGLEV_NONE &&
					    !tm_row_has(row, col, g->idx))
						break;
					row = NULL;
				}
				if (!row)
					break;
				row[col] = g->idx;
				filled++;
			}
		}
		tm_cond_resched();
	}
	tm_hook(TM_HOOK_MAGLEV_ROUNDS, rounds);
}

int tm_maglev_build(const struct tm_maglev_backend *b, u32 n, u32 k, u32 size,
		    u16 *table)
{
	u32 i, m = 0, wmax = 0, cols;
	struct tm_mg *mg;

	if (!n || n > TM_MAGLEV_MAX_BACKENDS || !k || k > TM_MAGLEV_MAX_K ||
	    size < n || !tm_maglev_prime(size))
		return -EINVAL;
	mg = tm_alloc(n * sizeof(*mg));
	if (!mg)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (!b[i].weight)
			continue;
		mg[m].idx = i;
		mg[m].key = b[i].key;
		mg[m].weight = b[i].weight;
		mg[m].offset = tm_mix64(b[i].key) % size;
		mg[m].skip = tm_mix64(b[i].key ^ 0x9e3779b97f4a7c15ULL) %
			     (size - 1) + 1;
		if (b[i].weight > wmax)
			wmax = b[i].weight;
		m++;
	}
	/* Key order, not configuration order: same backends, same table. */
	tm_sort(mg, m, sizeof(*mg), tm_mg_cmp);
	for (i = 1; i < m; i++) {
		if (mg[i].key == mg[i - 1].key) {
			tm_free(mg);
			return -EINVAL;
		}
	}
	if (!m) {
		tm_free(mg);
		return -EINVAL;
	}
	for (i = 0; i < size * k; i++)
		table[i] = TM_MAGLEV_NONE;
	cols = k < m ? k : m;
	for (i = 0; i < cols; i++)
		tm_maglev_column(mg, m, wmax, k, i, size, table);
	tm_free(mg);
	return 0;
}
