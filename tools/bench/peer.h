/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Peers of tmbench: other classifiers built from the same rules and timed
 * on the same headers, side by side with ours.  Today DPDK's rte_acl, when
 * tmbench is built with DPDK's development files (libdpdk-dev).
 */
#ifndef TMBENCH_PEER_H
#define TMBENCH_PEER_H

#include <stdbool.h>
#include <stddef.h>

#include "tm_cls.h"

struct peer;

#define PEER_NAMES	"rte_acl"

/* Whether @name is a peer tmbench knows (built in or not). */
bool peer_known(const char *name);

/* For qsort() of rule pointers: the rule that wins first, as in tm_cls. */
static inline int rule_rank_cmp(const void *a, const void *b)
{
	const struct tm_rule *x = *(const struct tm_rule * const *)a;
	const struct tm_rule *y = *(const struct tm_rule * const *)b;

	if (x->priority != y->priority)
		return x->priority < y->priority ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * Build the peer @name from @rules (the lower (priority, id) wins, as in
 * tm_cls).  NULL with a message in @err when it is unknown, unavailable in
 * this build, or the rules do not fit it.
 */
struct peer *peer_build(const char *name, const struct tm_rule *rules,
			size_t n, char *err, size_t errlen);

/*
 * Take @keys[0..@n - 1] in the peer's own format, as a NIC's parser would
 * hand them over; -1 with a message in @err if one does not fit.
 */
int peer_load(struct peer *p, const struct tm_key *keys, size_t n,
	      char *err, size_t errlen);

/* Classify the loaded keys, a batch at a time: @ids[i], 0 for no match. */
void peer_run(struct peer *p, u32 *ids);

/* Keys per classify call. */
unsigned int peer_batch(const struct peer *p);

void peer_free(struct peer *p);

#endif
