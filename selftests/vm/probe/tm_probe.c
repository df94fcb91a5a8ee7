// SPDX-License-Identifier: GPL-2.0
/*
 * tm_probe - a module that commits one bug when loaded, for the VM runner's
 * self-test on the debug kernel (selftests/vm/selftest.sh 6.12-debug): the
 * run must fail, on the report of the detector that bug is for.
 *
 *	insmod tm_probe.ko bug=kasan|kfence|lockdep|atomic_sleep|rcu
 *
 * kasan:        a read one byte past a 16-byte kmalloc()
 * kfence:       a read of a freed object that KFENCE handed out
 * lockdep:      two mutexes taken in both orders
 * atomic_sleep: a mutex taken under a spinlock
 * rcu:          rcu_dereference() outside any RCU read-side section
 *
 * Not part of the module: built only against the debug kernel.
 */
#include <linux/delay.h>
#include <linux/kfence.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

static char *bug = "";
module_param(bug, charp, 0444);
MODULE_PARM_DESC(bug, "kasan, kfence, lockdep, atomic_sleep or rcu");

/* Past the end of the 16 bytes: a parameter, so that no compiler sees it. */
static int past = 16;
module_param(past, int, 0444);

static DEFINE_MUTEX(tm_probe_a);
static DEFINE_MUTEX(tm_probe_b);
static DEFINE_SPINLOCK(tm_probe_lock);

struct tm_probe_obj {
	int v;
};

static struct tm_probe_obj __rcu *tm_probe_ptr;
static struct tm_probe_obj tm_probe_static;

static noinline int tm_probe_kasan(void)
{
	char *p = kmalloc(16, GFP_KERNEL);
	int v;

	if (!p)
		return -ENOMEM;
	v = READ_ONCE(p[past]);
	kfree(p);
	return v & 0;
}

/* KFENCE hands out one object per sample interval: wait for one. */
static noinline int tm_probe_kfence(void)
{
	unsigned int i;
	char *p;
	int v;

	for (i = 0; i < 2000; i++) {
		p = kmalloc(32, GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		if (is_kfence_address(p)) {
			kfree(p);
			v = READ_ONCE(p[0]);
			return v & 0;
		}
		kfree(p);
		msleep(20);
	}
	pr_info("tm_probe: no KFENCE object in 40 s\n");
	return -EAGAIN;
}

static noinline int tm_probe_lockdep(void)
{
	mutex_lock(&tm_probe_a);
	mutex_lock(&tm_probe_b);
	mutex_unlock(&tm_probe_b);
	mutex_unlock(&tm_probe_a);
	mutex_lock(&tm_probe_b);
	mutex_lock(&tm_probe_a);
	mutex_unlock(&tm_probe_a);
	mutex_unlock(&tm_probe_b);
	return 0;
}

static noinline int tm_probe_atomic_sleep(void)
{
	spin_lock(&tm_probe_lock);
	mutex_lock(&tm_probe_a);
	mutex_unlock(&tm_probe_a);
	spin_unlock(&tm_probe_lock);
	return 0;
}

static noinline int tm_probe_rcu(void)
{
	struct tm_probe_obj *o;

	rcu_assign_pointer(tm_probe_ptr, &tm_probe_static);
	o = rcu_dereference(tm_probe_ptr);
	return o->v & 0;
}

static int __init tm_probe_init(void)
{
	if (!strcmp(bug, "kasan"))
		return tm_probe_kasan();
	if (!strcmp(bug, "kfence"))
		return tm_probe_kfence();
	if (!strcmp(bug, "lockdep"))
		return tm_probe_lockdep();
	if (!strcmp(bug, "atomic_sleep"))
		return tm_probe_atomic_sleep();
	if (!strcmp(bug, "rcu"))
		return tm_probe_rcu();
	return 0;
}

static void __exit tm_probe_exit(void)
{
}

module_init(tm_probe_init);
module_exit(tm_probe_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Bugs on purpose, for the VM runner's self-test");
