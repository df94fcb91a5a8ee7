// SPDX-License-Identifier: GPL-2.0
/*
 * Rule counters (struct tm_cnt): per-CPU packet and byte counts, handed out
 * from chunks shared by every table of every namespace.
 *
 * One alloc_percpu() per rule made loading 100K rules spend a quarter of its
 * kernel time in the per-CPU allocator, whose cost grows with the number of
 * live allocations.  So counters come in chunks of TM_CNT_CHUNK: one page
 * holding the struct tm_cnt of every slot and a free bitmap, plus one
 * per-CPU array of TM_CNT_CHUNK struct tm_pcnt.  A counter is slot i of a
 * chunk; its per-CPU counts are element i of the chunk's per-CPU array.
 *
 * A counter is released when its last rule is freed, in that rule's RCU
 * callback, so no lookup can still be adding to it; its counts are zeroed
 * when the slot is handed out again.  Chunks with a free slot sit on a list
 * under a spinlock (taken with BHs off: releases run in RCU callbacks).  A
 * chunk that becomes entirely free is freed, unless it is the only one with
 * free slots, so that a table growing and shrinking across a chunk boundary
 * does not allocate and free a chunk per rule.
 */
#include <linux/bitmap.h>
#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "tm.h"

#define TM_CNT_CHUNK	126

/**
 * struct tm_cnt_chunk - TM_CNT_CHUNK counters
 * @node: entry in tm_cnt_partial while a slot is free
 * @pc: per-CPU counts, one struct tm_pcnt per slot
 * @nfree: free slots
 * @used: slots handed out
 * @cnt: the counters
 */
struct tm_cnt_chunk {
	struct list_head node;
	struct tm_pcnt __percpu *pc;
	unsigned int nfree;
	DECLARE_BITMAP(used, TM_CNT_CHUNK);
	struct tm_cnt cnt[TM_CNT_CHUNK];
};

static DEFINE_SPINLOCK(tm_cnt_lock);
static LIST_HEAD(tm_cnt_partial);	/* chunks with a free slot */
static unsigned int tm_cnt_chunks;	/* chunks allocated */

static struct tm_cnt_chunk *tm_cnt_chunk_of(struct tm_cnt *c)
{
	return container_of(c - c->slot, struct tm_cnt_chunk, cnt[0]);
}

static struct tm_cnt_chunk *tm_cnt_chunk_new(void)
{
	struct tm_cnt_chunk *ch;
	int cpu, i;

	BUILD_BUG_ON(sizeof(struct tm_cnt_chunk) > PAGE_SIZE);
	ch = kzalloc(sizeof(*ch), GFP_KERNEL_ACCOUNT);
	if (!ch)
		return NULL;
	ch->pc = __alloc_percpu_gfp(TM_CNT_CHUNK * sizeof(struct tm_pcnt),
				    __alignof__(struct tm_pcnt),
				    GFP_KERNEL_ACCOUNT);
	if (!ch->pc) {
		kfree(ch);
		return NULL;
	}
	for (i = 0; i < TM_CNT_CHUNK; i++) {
		ch->cnt[i].slot = i;
		ch->cnt[i].pc = ch->pc + i;
		for_each_possible_cpu(cpu)
			u64_stats_init(&per_cpu_ptr(ch->cnt[i].pc, cpu)->syncp);
	}
	ch->nfree = TM_CNT_CHUNK;
	return ch;
}

static void tm_cnt_chunk_free(struct tm_cnt_chunk *ch)
{
	free_percpu(ch->pc);
	kfree(ch);
}

/* A slot of a chunk on tm_cnt_partial; NULL if there is none. */
static struct tm_cnt *tm_cnt_take(void)
{
	struct tm_cnt_chunk *ch;
	unsigned int i;

	ch = list_first_entry_or_null(&tm_cnt_partial, struct tm_cnt_chunk,
				      node);
	if (!ch)
		return NULL;
	i = find_first_zero_bit(ch->used, TM_CNT_CHUNK);
	__set_bit(i, ch->used);
	if (!--ch->nfree)
		list_del_init(&ch->node);
	return &ch->cnt[i];
}

/* A counter at zero with one reference, or NULL. */
struct tm_cnt *tm_cnt_new(void)
{
	struct tm_cnt_chunk *ch = NULL;
	struct tm_cnt *c;
	int cpu;

	spin_lock_bh(&tm_cnt_lock);
	c = tm_cnt_take();
	spin_unlock_bh(&tm_cnt_lock);
	if (!c) {
		ch = tm_cnt_chunk_new();
		if (!ch)
			return NULL;
		spin_lock_bh(&tm_cnt_lock);
		list_add(&ch->node, &tm_cnt_partial);
		tm_cnt_chunks++;
		c = tm_cnt_take();
		spin_unlock_bh(&tm_cnt_lock);
	}
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

/* Drop a reference; the last one must come after lookups stopped using @c. */
void tm_cnt_put(struct tm_cnt *c)
{
	struct tm_cnt_chunk *ch, *gone = NULL;

	if (!refcount_dec_and_test(&c->ref))
		return;
	ch = tm_cnt_chunk_of(c);
	spin_lock_bh(&tm_cnt_lock);
	__clear_bit(c->slot, ch->used);
	if (!ch->nfree++)
		list_add(&ch->node, &tm_cnt_partial);
	if (ch->nfree == TM_CNT_CHUNK && !list_is_singular(&tm_cnt_partial)) {
		list_del(&ch->node);
		tm_cnt_chunks--;
		gone = ch;
	}
	spin_unlock_bh(&tm_cnt_lock);
	if (gone)
		tm_cnt_chunk_free(gone);
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

/* Module exit, after every rule was freed: free the spare chunk. */
void tm_cnt_exit(void)
{
	struct tm_cnt_chunk *ch, *tmp;

	list_for_each_entry_safe(ch, tmp, &tm_cnt_partial, node) {
		WARN_ON(ch->nfree != TM_CNT_CHUNK);
		list_del(&ch->node);
		tm_cnt_chunks--;
		tm_cnt_chunk_free(ch);
	}
	WARN_ON(tm_cnt_chunks);
}
