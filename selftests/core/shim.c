// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace services for the classification core (see kmod/core/
 * tm_platform.h): allocation with failure injection, deferred freeing
 * through liburcu, and a deterministic random seed.
 */
#include <stdio.h>

#include "tm_cls.h"
#include "shim.h"

unsigned long tm_alloc_count;		/* allocations attempted */
unsigned long tm_alloc_fail_every;	/* 0: never fail; N: fail 1 in N */
unsigned long tm_alloc_failed;
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
	if (tm_alloc_fail_every &&
	    tm_xorshift(&tm_fail_state) % tm_alloc_fail_every == 0) {
		tm_alloc_failed++;
		return NULL;
	}
	return zero ? calloc(1, size) : malloc(size);
}

bool tm_rcu_sync;

static void tm_urcu_free(struct rcu_head *head)
{
	free(head);
}

void tm_rcu_defer(struct rcu_head *head)
{
	if (tm_rcu_sync)
		free(head);
	else
		call_rcu(head, tm_urcu_free);
}

u32 tm_test_seed = 12345;

u32 tm_random_u32(void)
{
	return tm_test_seed++ * 2654435761u;
}
