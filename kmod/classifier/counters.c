// SPDX-License-Identifier: GPL-2.0
/*
 * Rule counters (struct tm_cnt): per-CPU packet and byte counts, handed out
 * from chunks, each chunk charged to and used by one memory cgroup.
 *
 * One alloc_percpu() per rule made loading 100K rules spend a quarter of its
 * kernel time in the per-CPU allocator, whose cost grows with the number of
 * live allocations.  So counters come in chunks of TM_CNT_CHUNK: one page
 * holding the struct tm_cnt of every slot and a free bitmap, plus one
 * per-CPU array of TM_CNT_CHUNK struct tm_pcnt.  A counter is slot i of a
 * chunk; its per-CPU counts are element i of the chunk's per-CPU array.
 *
 * Memory cgroups: a chunk is charged to the memory cgroup of the task whose
 * rule made it, and only rules made by tasks of that cgroup take its slots
 * (a chunk shared across cgroups would let one user's counters live on
 * another's charge).  The chunks of a cgroup hang off its struct
 * tm_cnt_pool, found in a small hash by cgroup; the pool holds a reference
 * to the cgroup and goes with its last chunk.
 *
 * A counter is released when its last rule is freed, in that rule's RCU
 * callback, so no lookup can still be adding to it; its counts are zeroed
 * when the slot is handed out again.  Pools and chunks with a free slot sit
 * on lists under a spinlock (taken with BHs off: releases run in RCU
 * callbacks).  A chunk that becomes entirely free is freed, unless it is
 * its pool's only one with free slots and the pool has other chunks, so
 * that a table growing and shrinking across a chunk boundary does not
 * allocate and free a chunk per rule.
 */
#include <linux/bitmap.h>
#include <linux/hash.h>
#include <linux/list.h>
#include <linux/memcontrol.h>
#include <linux/percpu.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "netns.h"
#include "classifier/classifier.h"

#define TM_CNT_CHUNK	126
#define TM_CNT_HASH_BITS	6

/**
 * struct tm_cnt_pool - the chunks of one memory cgroup
 * @node: entry in tm_cnt_pools[]
 * @memcg: the cgroup (a reference), NULL without memory cgroups
 * @partial: its chunks with a free slot
 * @nchunks: its chunks
 */
struct tm_cnt_pool {
	struct hlist_node node;
	struct mem_cgroup *memcg;
	struct list_head partial;
	unsigned int nchunks;
};

/**
 * struct tm_cnt_chunk - TM_CNT_CHUNK counters
 * @node: entry in its pool's partial list while a slot is free
 * @pool: its pool
 * @pc: per-CPU counts, one struct tm_pcnt per slot
 * @nfree: free slots
 * @used: slots handed out
 * @cnt: the counters
 */
struct tm_cnt_chunk {
	struct list_head node;
	struct tm_cnt_pool *pool;
	struct tm_pcnt __percpu *pc;
	unsigned int nfree;
	DECLARE_BITMAP(used, TM_CNT_CHUNK);
	struct tm_cnt cnt[TM_CNT_CHUNK];
};

static DEFINE_SPINLOCK(tm_cnt_lock);
static struct hlist_head tm_cnt_pools[1 << TM_CNT_HASH_BITS];
static unsigned int tm_cnt_chunks;	/* chunks allocated */

static struct tm_cnt_chunk *tm_cnt_chunk_of(struct tm_cnt *c)
{
	return container_of(c - c->slot, struct tm_cnt_chunk, cnt[0]);
}

static struct hlist_head *tm_cnt_bucket(const struct mem_cgroup *memcg)
{
	return &tm_cnt_pools[hash_ptr(memcg, TM_CNT_HASH_BITS)];
}

/* Under tm_cnt_lock. */
static struct tm_cnt_pool *tm_cnt_pool_find(const struct mem_cgroup *memcg)
{
	struct tm_cnt_pool *pool;

	hlist_for_each_entry(pool, tm_cnt_bucket(memcg), node)
		if (pool->memcg == memcg)
			return pool;
	return NULL;
}

/* A chunk charged to @memcg, not on any list yet. */
static struct tm_cnt_chunk *tm_cnt_chunk_new(struct mem_cgroup *memcg)
{
	struct mem_cgroup *old = set_active_memcg(memcg);
	struct tm_cnt_chunk *ch;
	int cpu, i;

	BUILD_BUG_ON(sizeof(struct tm_cnt_chunk) > PAGE_SIZE);
	ch = kzalloc(sizeof(*ch), GFP_KERNEL_ACCOUNT);
	if (!ch)
		goto out;
	ch->pc = __alloc_percpu_gfp(TM_CNT_CHUNK * sizeof(struct tm_pcnt),
				    __alignof__(struct tm_pcnt),
				    GFP_KERNEL_ACCOUNT);
	if (!ch->pc) {
		kfree(ch);
		ch = NULL;
		goto out;
	}
	for (i = 0; i < TM_CNT_CHUNK; i++) {
		ch->cnt[i].slot = i;
		ch->cnt[i].pc = ch->pc + i;
		for_each_possible_cpu(cpu)
			u64_stats_init(&per_cpu_ptr(ch->cnt[i].pc, cpu)->syncp);
	}
	ch->nfree = TM_CNT_CHUNK;
out:
	set_active_memcg(old);
	return ch;
}

static void tm_cnt_chunk_free(struct tm_cnt_chunk *ch)
{
	free_percpu(ch->pc);
	kfree(ch);
}

/* A slot of a chunk of @pool with a free one; NULL if there is none. */
static struct tm_cnt *tm_cnt_take(struct tm_cnt_pool *pool)
{
	struct tm_cnt_chunk *ch;
	unsigned int i;

	if (!pool)
		return NULL;
	ch = list_first_entry_or_null(&pool->partial, struct tm_cnt_chunk,
				      node);
	if (!ch)
		return NULL;
	i = find_first_zero_bit(ch->used, TM_CNT_CHUNK);
	__set_bit(i, ch->used);
	if (!--ch->nfree)
		list_del_init(&ch->node);
	return &ch->cnt[i];
}

/*
 * A slot for the caller's memory cgroup, from a new chunk (and pool) if
 * need be.  Process context.
 */
static struct tm_cnt *tm_cnt_alloc(void)
{
	struct mem_cgroup *memcg = tm_memcg_owner();
	struct tm_cnt_pool *pool, *fresh = NULL;
	struct tm_cnt_chunk *ch;
	struct tm_cnt *c;

	spin_lock_bh(&tm_cnt_lock);
	c = tm_cnt_take(tm_cnt_pool_find(memcg));
	spin_unlock_bh(&tm_cnt_lock);
	if (c)
		goto out;
	ch = tm_cnt_chunk_new(memcg);
	if (!ch)
		goto out;
	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL_ACCOUNT);
	if (!fresh) {
		tm_cnt_chunk_free(ch);
		goto out;
	}
	spin_lock_bh(&tm_cnt_lock);
	pool = tm_cnt_pool_find(memcg);
	if (!pool) {
		pool = fresh;
		fresh = NULL;
		pool->memcg = memcg;
		memcg = NULL;	/* the pool's reference now */
		INIT_LIST_HEAD(&pool->partial);
		hlist_add_head(&pool->node, tm_cnt_bucket(pool->memcg));
	}
	ch->pool = pool;
	pool->nchunks++;
	list_add(&ch->node, &pool->partial);
	tm_cnt_chunks++;
	c = tm_cnt_take(pool);
	spin_unlock_bh(&tm_cnt_lock);
out:
	kfree(fresh);
	tm_memcg_put(memcg);
	return c;
}

/* A counter at zero with one reference, or NULL. */
struct tm_cnt *tm_cnt_new(void)
{
	struct tm_cnt *c = tm_cnt_alloc();
	int cpu;

	if (!c)
		return NULL;
	/* Only its last holder's lookups ever added to it; they are over. */
	for_each_possible_cpu(cpu) {
		struct tm_pcnt *pc = per_cpu_ptr(c->pc, cpu);

		u64_stats_set(&pc->packets, 0);
		u64_stats_set(&pc->bytes, 0);
	}
	c->base_packets = 0;
	c->base_bytes = 0;
	refcount_set(&c->ref, 1);
	return c;
}

void tm_cnt_get(struct tm_cnt *c)
{
	refcount_inc(&c->ref);
}

/* Under tm_cnt_lock: take the empty @ch off @pool's lists. */
static void tm_cnt_chunk_unlink(struct tm_cnt_pool *pool,
				struct tm_cnt_chunk *ch)
{
	list_del(&ch->node);
	pool->nchunks--;
	tm_cnt_chunks--;
}

/* Drop a reference; the last one must come after lookups stopped using @c. */
void tm_cnt_put(struct tm_cnt *c)
{
	struct tm_cnt_chunk *ch, *gone[2] = {};
	struct tm_cnt_pool *pool, *empty = NULL;
	unsigned int i;

	if (!refcount_dec_and_test(&c->ref))
		return;
	ch = tm_cnt_chunk_of(c);
	pool = ch->pool;
	spin_lock_bh(&tm_cnt_lock);
	__clear_bit(c->slot, ch->used);
	if (!ch->nfree++)
		list_add(&ch->node, &pool->partial);
	if (ch->nfree == TM_CNT_CHUNK &&
	    (!list_is_singular(&pool->partial) || pool->nchunks == 1)) {
		tm_cnt_chunk_unlink(pool, ch);
		gone[0] = ch;
		/* The spare kept for a boundary is no use on its own. */
		ch = list_first_entry_or_null(&pool->partial,
					      struct tm_cnt_chunk, node);
		if (pool->nchunks == 1 && ch && ch->nfree == TM_CNT_CHUNK) {
			tm_cnt_chunk_unlink(pool, ch);
			gone[1] = ch;
		}
		if (!pool->nchunks) {
			hlist_del(&pool->node);
			empty = pool;
		}
	}
	spin_unlock_bh(&tm_cnt_lock);
	for (i = 0; i < ARRAY_SIZE(gone); i++)
		if (gone[i])
			tm_cnt_chunk_free(gone[i]);
	if (empty) {
		tm_memcg_put(empty->memcg);
		kfree(empty);
	}
}

/* Sums since the counter was made, whatever the resets. */
static void tm_cnt_sum(const struct tm_cnt *c, u64 *packets, u64 *bytes)
{
	u64 p = 0, b = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct tm_pcnt *pc = per_cpu_ptr(c->pc, cpu);
		unsigned int start;
		u64 pp, bb;

		do {
			start = u64_stats_fetch_begin(&pc->syncp);
			pp = u64_stats_read(&pc->packets);
			bb = u64_stats_read(&pc->bytes);
		} while (u64_stats_fetch_retry(&pc->syncp, start));
		p += pp;
		b += bb;
	}
	*packets = p;
	*bytes = b;
}

void tm_cnt_read(const struct tm_cnt *c, u64 *packets, u64 *bytes)
{
	tm_cnt_sum(c, packets, bytes);
	*packets -= c->base_packets;
	*bytes -= c->base_bytes;
}

/* Resetting only moves the base: the per-CPU counts are the CPUs' own. */
void tm_cnt_reset(struct tm_cnt *c)
{
	tm_cnt_sum(c, &c->base_packets, &c->base_bytes);
}

/* Module exit, after every rule was freed: no pool is left. */
void tm_cnt_exit(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tm_cnt_pools); i++)
		WARN_ON(!hlist_empty(&tm_cnt_pools[i]));
	WARN_ON(tm_cnt_chunks);
}
