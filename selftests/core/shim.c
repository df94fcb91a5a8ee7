// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace services for the classification core (see kmod/core/
 * tm_platform.h): allocation with failure injection, deferred freeing
 * through liburcu, a deterministic random seed and the test hooks.
 */
#include <stdio.h>

#include "tm_cls.h"
#include "shim.h"

unsigned long tm_alloc_count;		/* allocations attempted */
unsigned long tm_alloc_fail_every;	/* 0: never fail; N: fail 1 in N */
unsigned long tm_alloc_failed;
unsigned long tm_alloc_fail_at;		/* 0: never; N: the Nth allocation */
static u64 tm_fail_state = 88172645463325252ULL;

static u64 tm_xorshift(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

void *tm_test_alloc(size_t size, bool zero)
{
	tm_alloc_count++;
	if (tm_alloc_fail_at && tm_alloc_count == tm_alloc_fail_at) {
		tm_alloc_failed++;
		return NULL;
	}
	if (tm_alloc_fail_every &&
	    tm_xorshift(&tm_fail_state) % tm_alloc_fail_every == 0) {
		tm_alloc_failed++;
		return NULL;
	}
	return zero ? calloc(1, size) : malloc(size);
}

bool tm_rcu_sync;

/*
 * Deferred frees are batched, 64 to a grace period, as the kernel's
 * kvfree_rcu() batches them: one call_rcu() per object would make the
 * benchmark measure liburcu rather than the classifier.
 */
#define TM_BATCH	64

struct tm_batch {
	struct rcu_head rcu;
	unsigned int n;
	void *p[TM_BATCH];
};

static __thread struct tm_batch *tm_batch;

static void tm_batch_free(struct rcu_head *head)
{
	struct tm_batch *b = container_of(head, struct tm_batch, rcu);
	unsigned int i;

	for (i = 0; i < b->n; i++)
		free(b->p[i]);
	free(b);
}

void tm_rcu_flush(void)
{
	if (tm_batch)
		call_rcu(&tm_batch->rcu, tm_batch_free);
	tm_batch = NULL;
}

void tm_rcu_defer(void *p)
{
	if (tm_rcu_sync) {
		free(p);
		return;
	}
	if (!tm_batch) {
		tm_batch = malloc(sizeof(*tm_batch));
		if (!tm_batch) {
			/* No memory for a batch: wait for the readers instead. */
			synchronize_rcu();
			free(p);
			return;
		}
		tm_batch->n = 0;
	}
	tm_batch->p[tm_batch->n++] = p;
	if (tm_batch->n == TM_BATCH)
		tm_rcu_flush();
}

void (*tm_hook_fn)(enum tm_hook_point point, u64 v);

u32 tm_test_seed = 12345;

u32 tm_random_u32(void)
{
	return tm_test_seed++ * 2654435761u;
}
