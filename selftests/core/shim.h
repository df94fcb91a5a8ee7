/* SPDX-License-Identifier: GPL-2.0 */
/* Knobs of the userspace shim (shim.c) for tests, fuzzing and benchmarks. */
#ifndef _TM_SHIM_H
#define _TM_SHIM_H

extern unsigned long tm_alloc_count;
extern unsigned long tm_alloc_fail_every;
extern unsigned long tm_alloc_failed;
/* Fail the allocation that makes tm_alloc_count this; 0: none. */
extern unsigned long tm_alloc_fail_at;
extern u32 tm_test_seed;
/* Free at once instead of after a grace period: no concurrent readers. */
extern bool tm_rcu_sync;
/* Hand the pending deferred frees to liburcu (before rcu_barrier()). */
void tm_rcu_flush(void);

#endif /* _TM_SHIM_H */
