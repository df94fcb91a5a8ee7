/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The file tmbench -k writes and tm_kbench.ko reads: a classifier's rules,
 * a trace and the answers userspace's classifier gave, so that the module
 * times the same lookups in the kernel and checks its answers.  Both sides
 * build kmod/core's structs; the header records their sizes, and a file
 * whose sizes differ from the module's is refused.
 *
 * Layout: struct tm_kblob, then @nrules struct tm_rule, then @nkeys struct
 * tm_key, then @nkeys u32 answers (the id of the rule, TM_KBLOB_NONE for
 * none).  Include after tm_cls.h.
 */
#ifndef TM_KBLOB_H
#define TM_KBLOB_H

#define TM_KBLOB_MAGIC		"TMKBLOB1"
#define TM_KBLOB_NONE		0xffffffffU
#define TM_KBLOB_MAX_RULES	2097152U	/* 2^21 */
#define TM_KBLOB_MAX_KEYS	4194304U	/* 2^22 */

struct tm_kblob {
	char magic[8];		/* TM_KBLOB_MAGIC, no NUL */
	u32 rule_size;		/* sizeof(struct tm_rule) */
	u32 key_size;		/* sizeof(struct tm_key) */
	u32 nrules;
	u32 nkeys;
};

#endif /* TM_KBLOB_H */
