/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few services the classification core needs from its environment,
 * mapped to the kernel or, when built in userspace for tests, fuzzing and
 * benchmarks, to libc and liburcu: fixed-width types, allocation that may
 * fail, RCU publication and deferred freeing, branch hints and static_assert.
 */
#ifndef _TM_PLATFORM_H
#define _TM_PLATFORM_H

/*
 * Test hooks: points where the userspace tests stop a thread, to force an
 * interleaving, or count work, to bound a cost.  tm_hook(point, v) is
 * nothing in the kernel and in builds without TM_TEST_HOOKS (benchmarks).
 */
enum tm_hook_point {
	TM_HOOK_LOOKUP_LIST,	/* a lookup took the tuple list */
	TM_HOOK_SPLIT_ADD,	/* a split put rule id @v in its new tuple */
	TM_HOOK_SPLIT_DROP,	/* a split took rule id @v out of its old one */
	TM_HOOK_SPLIT_EVAL,	/* a split candidate was scored on @v rules */
	TM_HOOK_MAGLEV_ROUNDS,	/* a Maglev column took @v rounds */
	TM_HOOK_LIST_COPY,	/* a tuple list of @v entries was made */
	TM_HOOK_NR
};

#ifdef __KERNEL__

#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/prefetch.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/types.h>

#define tm_alloc(size)		kmalloc(size, GFP_KERNEL_ACCOUNT)
#define tm_zalloc(size)		kzalloc(size, GFP_KERNEL_ACCOUNT)
#define tm_free(p)		kfree(p)
#define tm_valloc(size)		kvmalloc(size, GFP_KERNEL_ACCOUNT)
#define tm_vzalloc(size)	kvzalloc(size, GFP_KERNEL_ACCOUNT)
#define tm_vfree(p)		kvfree(p)

/* Free @p, allocated by tm_alloc() or tm_valloc(), after a grace period. */
#define tm_free_rcu(p, field)	kvfree_rcu(p, field)
#define tm_random_u32()		get_random_u32()
#define tm_sort(b, n, sz, cmp)	sort(b, n, sz, cmp, NULL)

#define tm_hook(point, v)	((void)(v))
#define tm_prefetch(p)		prefetch(p)
/* Whether READ_ONCE() and WRITE_ONCE() of a u64 are single accesses. */
#define TM_U64_ONCE		IS_ENABLED(CONFIG_64BIT)

/*
 * In the loops whose length a user picks (rules moved, Maglev rounds).
 * The writer side may sleep anyway (GFP_KERNEL allocations): every caller
 * runs in process context, under the namespace's mutex.
 */
#define tm_cond_resched()	cond_resched()

#else /* userspace */

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>
/* Inline read-side primitives, as in the kernel (not a call each). */
#define _LGPL_SOURCE
#include <urcu.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;

/* Allocation goes through a hook so that tests can make it fail. */
void *tm_test_alloc(size_t size, bool zero);

#define tm_alloc(size)		tm_test_alloc(size, false)
#define tm_zalloc(size)		tm_test_alloc(size, true)
#define tm_free(p)		free(p)
#define tm_valloc(size)		tm_alloc(size)
#define tm_vzalloc(size)	tm_zalloc(size)
#define tm_vfree(p)		free(p)

#ifndef noinline
#define noinline		__attribute_noinline__	/* glibc <sys/cdefs.h> */
#endif
#ifndef likely
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#endif
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define TM_U64_ONCE		1	/* __atomic: never torn */
#define __rcu
#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif
#define rcu_dereference_protected(p, c)	(p)
#define RCU_INIT_POINTER(p, v)	((p) = (v))
#define tm_sort(b, n, sz, cmp)	qsort(b, n, sz, cmp)
#define tm_prefetch(p)		__builtin_prefetch(p)
/* The kernel's barriers as C11 fences: orders stores */
#define smp_wmb()		__atomic_thread_fence(__ATOMIC_RELEASE)
/* orders loads */
#define smp_rmb()		__atomic_thread_fence(__ATOMIC_ACQUIRE)
/* a load that later accesses cannot pass */
#define smp_load_acquire(p)	__atomic_load_n(p, __ATOMIC_ACQUIRE)
/* a store that earlier accesses cannot pass */
#define smp_store_release(p, v)	__atomic_store_n(p, v, __ATOMIC_RELEASE)
#define lockdep_is_held(l)	1

/*
 * Free @p after a grace period: the shim (selftests/core/shim.c) batches
 * such frees through liburcu's call_rcu(), as kvfree_rcu() batches them in
 * the kernel.  The rcu_head member is the kernel's business only.
 */
void tm_rcu_defer(void *p);
#define tm_free_rcu(p, field)	tm_rcu_defer(p)

u32 tm_random_u32(void);

#define tm_cond_resched()	do { } while (0)

/* Set by a test, called at every hook point (see enum tm_hook_point). */
extern void (*tm_hook_fn)(enum tm_hook_point point, u64 v);
#ifdef TM_TEST_HOOKS
#define tm_hook(point, v)				\
	do {						\
		if (tm_hook_fn)				\
			tm_hook_fn(point, v);		\
	} while (0)
#else
#define tm_hook(point, v)	((void)(v))
#endif

#endif /* __KERNEL__ */

#endif /* _TM_PLATFORM_H */
