/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Consistent hashing for the SRv6 load balancer: a Maglev lookup table
 * (Eisenbud et al., NSDI 2016) whose entries list k distinct candidate
 * backends instead of one.  Plain C shared by the module and the userspace
 * tests, like the classification core.
 *
 * A flow hashes to an entry; the entry's candidates, in order, are the
 * servers its SYN hunts through.  The table is a pure function of the
 * backends' keys and weights (not of the order they were configured in),
 * so two load balancers with the same backends build the same table and a
 * flow moved between them keeps its candidates.
 */
#ifndef _TM_MAGLEV_H
#define _TM_MAGLEV_H

#include "tm_platform.h"

/* Candidates per entry, at most. */
#define TM_MAGLEV_MAX_K		8
/* Backends of one table, at most (entries store u16 indexes). */
#define TM_MAGLEV_MAX_BACKENDS	4096
/* Table sizes: primes, at least 100 entries per backend recommended. */
#define TM_MAGLEV_SIZE_DEFAULT	65537u

/* A row's columns past the number of backends (of nonzero weight). */
#define TM_MAGLEV_NONE		0xffff

struct tm_maglev_backend {
	u64 key;	/* stable identity, e.g. a hash of the server's SID */
	u32 weight;	/* share of first choices, relative; 0: none */
};

/*
 * Fill @table, @size rows of @k u16 backend indexes (into @b), with:
 *   - k distinct backends per row (min(k, backends of nonzero weight));
 *   - each column balanced: a backend's share of a column is in proportion
 *     to its weight, within one entry for equal weights;
 *   - few rows changing when a backend comes or goes (Maglev's property).
 * @size must be prime and at least the number of backends.  Returns 0,
 * -EINVAL (bad arguments, every weight 0) or -ENOMEM.
 */
int tm_maglev_build(const struct tm_maglev_backend *b, u32 n, u32 k, u32 size,
		    u16 *table);

/* @n is a prime, as a table size must be. */
bool tm_maglev_prime(u32 n);

/* The row of a flow hash: the first of its k candidates is row[0]. */
static inline const u16 *tm_maglev_row(const u16 *table, u32 size, u32 k,
				       u32 hash)
{
	return table + (u64)hash * size / ((u64)1 << 32) * k;
}

#endif /* _TM_MAGLEV_H */
