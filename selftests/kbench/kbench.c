// SPDX-License-Identifier: GPL-2.0
/*
 * tm_kbench - the classification core's lookups timed inside the kernel,
 * on the rules and trace userspace's tmbench timed, so that the two
 * compare (selftests/bench/kbench.sh, Documentation/performance.rst).
 *
 *	tmbench -e tuplemerge -k FILE RULES TRACE
 *	insmod tm_kbench.ko blob=FILE [engine=0|1|2] [passes=N]
 *
 * The module builds a classifier of its own from kmod/core's sources (not
 * the tuplemerge module's), inserts the rules of FILE (tm_kblob.h), checks
 * every answer against userspace's, then looks the trace up @passes times
 * one key at a time and as often in batches of TM_LOOKUP_BULK_MAX, with
 * bottom halves off as in the netfilter hook, and prints ns per lookup.
 * Loading fails (-EBADMSG) when an answer differs.  Not part of the
 * module: built by `make kbench-KVER` for the benchmark only.
 */
#include <linux/bottom_half.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/vmalloc.h>

#include "tm_cls.h"
#include "tm_kblob.h"

static char *blob;
module_param(blob, charp, 0444);
MODULE_PARM_DESC(blob, "the file tmbench -k wrote");

static uint engine = TM_ENGINE_TUPLEMERGE;
module_param(engine, uint, 0444);
MODULE_PARM_DESC(engine, "0 tuplemerge, 1 tss, 2 linear");

static uint passes = 10;
module_param(passes, uint, 0444);
MODULE_PARM_DESC(passes, "times the trace is looked up, 1..1000");

/* Keys looked up with bottom halves off at a time. */
#define TM_KBENCH_CHUNK	4096

struct tm_kbench {
	const struct tm_rule *rules;
	const struct tm_key *keys;
	const u32 *want;
	u32 nrules, nkeys;
};

/* The largest file read: the most rules and keys tm_kblob.h allows. */
#define TM_KBENCH_MAX_FILE	(sizeof(struct tm_kblob) + \
	(size_t)TM_KBLOB_MAX_RULES * sizeof(struct tm_rule) + \
	(size_t)TM_KBLOB_MAX_KEYS * (sizeof(struct tm_key) + sizeof(u32)))

/*
 * @blob in a vmalloc()ed buffer, its size in @size.  Read as a file, not
 * with kernel_read_file(), which the LSMs judge by what is read (module,
 * firmware, policy) and IPE warns of for anything else.
 */
static int tm_kbench_read(void **out, size_t *size)
{
	struct file *f;
	loff_t pos = 0;
	ssize_t got;
	void *buf;
	size_t n;
	int err = 0;

	f = filp_open(blob, O_RDONLY, 0);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = i_size_read(file_inode(f));
	if (!n || n > TM_KBENCH_MAX_FILE) {
		err = -EFBIG;
		goto out;
	}
	buf = vmalloc(n);
	if (!buf) {
		err = -ENOMEM;
		goto out;
	}
	while (pos < n) {
		got = kernel_read(f, buf + pos, n - pos, &pos);
		if (got <= 0) {
			vfree(buf);
			err = got ? got : -EIO;
			goto out;
		}
	}
	*out = buf;
	*size = n;
out:
	filp_close(f, NULL);
	return err;
}

/* Check the header of @buf (@size bytes) and point @kb into it. */
static int tm_kbench_parse(const void *buf, size_t size, struct tm_kbench *kb)
{
	const struct tm_kblob *h = buf;
	size_t need;

	if (size < sizeof(*h) || memcmp(h->magic, TM_KBLOB_MAGIC, 8)) {
		pr_err("tm_kbench: %s is not a tmbench -k file\n", blob);
		return -EINVAL;
	}
	if (h->rule_size != sizeof(struct tm_rule) ||
	    h->key_size != sizeof(struct tm_key)) {
		pr_err("tm_kbench: %s has rules of %u bytes and keys of %u, this module %zu and %zu: rebuild one\n",
		       blob, h->rule_size, h->key_size,
		       sizeof(struct tm_rule), sizeof(struct tm_key));
		return -EINVAL;
	}
	if (!h->nkeys || h->nrules > TM_KBLOB_MAX_RULES ||
	    h->nkeys > TM_KBLOB_MAX_KEYS) {
		pr_err("tm_kbench: %u rules (at most %u) and %u keys (1 to %u)\n",
		       h->nrules, TM_KBLOB_MAX_RULES, h->nkeys,
		       TM_KBLOB_MAX_KEYS);
		return -EINVAL;
	}
	/* The maxima keep this far from overflowing. */
	need = sizeof(*h) + (size_t)h->nrules * sizeof(struct tm_rule) +
	       (size_t)h->nkeys * (sizeof(struct tm_key) + sizeof(u32));
	if (size != need) {
		pr_err("tm_kbench: %s holds %zu bytes, its header says %zu\n",
		       blob, size, need);
		return -EINVAL;
	}
	kb->nrules = h->nrules;
	kb->nkeys = h->nkeys;
	kb->rules = (const void *)(h + 1);
	kb->keys = (const void *)(kb->rules + kb->nrules);
	kb->want = (const void *)(kb->keys + kb->nkeys);
	return 0;
}

static int tm_kbench_build(const struct tm_kbench *kb, struct tm_cls **out)
{
	struct tm_params p;
	struct tm_cls *cls;
	const char *why;
	u32 i;
	int err;

	tm_params_default(&p);
	p.engine = engine;
	if (tm_params_check(&p, &why)) {
		pr_err("tm_kbench: engine %u: %s\n", engine, why);
		return -EINVAL;
	}
	cls = tm_cls_create(&p);
	if (!cls)
		return -ENOMEM;
	for (i = 0; i < kb->nrules; i++) {
		err = tm_cls_insert(cls, &kb->rules[i]);
		if (err) {
			pr_err("tm_kbench: rule %u (id %u) refused: %d\n",
			       i, kb->rules[i].id, err);
			tm_cls_destroy(cls);
			return err;
		}
		if (!(i % 1024))
			cond_resched();
	}
	*out = cls;
	return 0;
}

static u32 tm_kbench_id(const struct tm_rule *r)
{
	return r ? r->id : TM_KBLOB_NONE;
}

/* Keys whose answer, single or in a batch, is not userspace's. */
static u32 tm_kbench_check(const struct tm_cls *cls, const struct tm_kbench *kb)
{
	const struct tm_rule *res[TM_LOOKUP_BULK_MAX];
	u32 i, j, n, wrong = 0;

	for (i = 0; i < kb->nkeys; i += n) {
		n = min_t(u32, kb->nkeys - i, TM_LOOKUP_BULK_MAX);
		rcu_read_lock();
		tm_cls_lookup_bulk(cls, &kb->keys[i], n, res);
		for (j = 0; j < n; j++) {
			u32 want = kb->want[i + j];

			if (tm_kbench_id(res[j]) != want ||
			    tm_kbench_id(tm_cls_lookup(cls, &kb->keys[i + j])) != want)
				wrong++;
		}
		rcu_read_unlock();
		if (!(i % TM_KBENCH_CHUNK))
			cond_resched();
	}
	return wrong;
}

/* Nanoseconds for @passes passes over the keys, one by one or in bulk. */
static u64 tm_kbench_time(const struct tm_cls *cls, const struct tm_kbench *kb,
			  bool bulk, u32 *sink)
{
	const struct tm_rule *res[TM_LOOKUP_BULK_MAX];
	u32 pass, i, j, n, end;
	u64 t0, ns = 0;

	for (pass = 0; pass < passes; pass++) {
		for (i = 0; i < kb->nkeys; i = end) {
			end = min_t(u32, kb->nkeys, i + TM_KBENCH_CHUNK);
			local_bh_disable();
			rcu_read_lock();
			t0 = ktime_get_ns();
			if (bulk) {
				for (j = i; j < end; j += n) {
					n = min_t(u32, end - j, TM_LOOKUP_BULK_MAX);
					tm_cls_lookup_bulk(cls, &kb->keys[j], n, res);
					*sink += tm_kbench_id(res[0]);
				}
			} else {
				for (j = i; j < end; j++)
					*sink += tm_kbench_id(tm_cls_lookup(cls, &kb->keys[j]));
			}
			ns += ktime_get_ns() - t0;
			rcu_read_unlock();
			local_bh_enable();
			cond_resched();
		}
	}
	return ns;
}

static int __init tm_kbench_init(void)
{
	static const char * const names[] = { "tuplemerge", "tss", "linear" };
	u64 lookups, single, bulk;
	struct tm_kbench kb;
	struct tm_cls *cls;
	void *buf = NULL;
	size_t size = 0;
	u32 wrong, sink = 0;
	int err;

	if (!blob || !*blob || engine > TM_ENGINE_MAX || !passes ||
	    passes > 1000) {
		pr_err("tm_kbench: need blob=FILE, engine 0..%d, passes 1..1000\n",
		       TM_ENGINE_MAX);
		return -EINVAL;
	}
	err = tm_kbench_read(&buf, &size);
	if (err) {
		pr_err("tm_kbench: cannot read %s: %d\n", blob, err);
		return err;
	}
	err = tm_kbench_parse(buf, size, &kb);
	if (!err)
		err = tm_kbench_build(&kb, &cls);
	if (err)
		goto out;
	wrong = tm_kbench_check(cls, &kb);
	single = tm_kbench_time(cls, &kb, false, &sink);
	bulk = tm_kbench_time(cls, &kb, true, &sink);
	lookups = (u64)kb.nkeys * passes;
	pr_info("tm_kbench: engine %s rules %u keys %u passes %u single_ps %llu bulk_ps %llu wrong %u sink %u\n",
		names[engine], kb.nrules, kb.nkeys, passes,
		div64_u64(single * 1000, lookups), div64_u64(bulk * 1000, lookups),
		wrong, sink);
	if (wrong)
		err = -EBADMSG;
	tm_cls_destroy(cls);
out:
	/* The classifier frees after a grace period, with kvfree_rcu(). */
	rcu_barrier();
	vfree(buf);
	return err;
}

static void __exit tm_kbench_exit(void)
{
}

module_init(tm_kbench_init);
module_exit(tm_kbench_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tuplemerge: the classifier's lookups timed in the kernel");
