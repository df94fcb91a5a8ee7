/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ClassBench rule and trace files: the reader and writer library shared by
 * tmgen, the tests and the benchmarks.  Rules become struct tm_rule and trace
 * headers struct tm_key (tm_cls.h), addresses in host byte order.
 *
 * Rule line (one rule per line, the first line wins):
 *
 *	@SA/len DA/len SPlo : SPhi DPlo : DPhi 0xPROTO/0xMASK [0xFLAGS/0xMASK]
 *
 * SA and DA are dotted IPv4 or, as our extension, textual IPv6 prefixes
 * (both of one family).  A protocol mask of 0xFF is an exact protocol, 0x00
 * any protocol.  The flags field is optional, 16 bits of value and mask;
 * by default it is checked and ignored.
 *
 * Trace line: SA DA SP DP PROTO FLAGS RULE, all decimal, addresses as 32-bit
 * integers; or, for IPv6, SA and DA as textual IPv6 addresses.  FLAGS is
 * not the packet's own: it is the flags field of the rule the header was
 * made from, packed as VALUE << 16 | MASK, or 0xffffffff (all flags set)
 * or 0 for a rule without one.  By default it is checked and ignored.
 *
 * With CB_HONOUR_FLAGS (cb_read_rules_opt(), cb_read_trace_opt()) the flags
 * field is read as ClassBench's generator fills it in:
 *
 *  - TCP rules (exact protocol 6): the high byte is the TCP flags byte,
 *    tcp_flags_mask = MASK >> 8 and tcp_flags = VALUE >> 8
 *    (0x1000/0x1000: ACK set; 0x0200/0x1200: SYN set and ACK clear);
 *  - ICMP rules (exact protocol 1 for IPv4, 58 for IPv6): the high byte is
 *    the ICMP type, the low byte the code, each with a mask byte of 0xff
 *    (exact) or 0x00 (any).  As in struct tm_key, the type goes into the
 *    source port range and the code into the destination port range
 *    (0x0800/0xff00: type 8, any code), which must then be 0 : 65535;
 *  - a value with a bit outside its mask, or a mask on any other protocol
 *    (or on any protocol), is an error;
 *  - trace headers take the high 16 bits of FLAGS as the packet's: TCP
 *    headers get tcp_flags = FLAGS >> 24, ICMP headers sport (the type) =
 *    FLAGS >> 24 and dport (the code) = (FLAGS >> 16) & 0xff, in place of
 *    the SP and DP columns.
 *
 * The writers write what that mode reads back: a TCP rule's flags as
 * 0xVV00/0xMM00, the FLAGS of a TCP header with flags or of an ICMP header
 * whose type and code fit in a byte (ICMP rules keep their type and code in
 * their port ranges, and 0x0000/0x0000).
 *
 * In both files, blank lines and lines whose first non-blank character is
 * '#' are skipped; fields are separated by spaces or tabs.
 */
#ifndef _CLASSBENCH_H
#define _CLASSBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "tm_cls.h"

/*
 * A growable array of rules.  cb_read_rules() sets, for the rule on line L
 * (1-based) that is the I-th rule of the file (0-based): id = L,
 * priority = I, action = L.  A zeroed struct is an empty set.
 */
struct cb_ruleset {
	struct tm_rule *rules;
	size_t n;		/* rules in use */
	size_t cap;		/* rules allocated */
};

/* A growable array of trace headers and, per header, its RULE column. */
struct cb_trace {
	struct tm_key *keys;
	u32 *rule;		/* rule[i]: RULE column of keys[i] */
	size_t n;
	size_t cap;
};

/* Options of cb_read_rules_opt() and cb_read_trace_opt(). */
#define CB_HONOUR_FLAGS	0x01	/* the flags fields, as above */

/*
 * Read a rule or trace file ("-" is stdin) into *out, which must be empty
 * or zeroed.  Return 0, or -1 with *out empty and a one-line message in err:
 * "FILE:LINE:COL: what is wrong: 'TOKEN'" for a malformed line (COL is the
 * 1-based byte offset of TOKEN in the line), "FILE: reason" otherwise.
 * cb_read_rules() and cb_read_trace() are the _opt() reads with opts 0.
 */
int cb_read_rules(const char *path, struct cb_ruleset *out, char *err,
		  size_t errlen);
int cb_read_trace(const char *path, struct cb_trace *out, char *err,
		  size_t errlen);
int cb_read_rules_opt(const char *path, struct cb_ruleset *out,
		      unsigned int opts, char *err, size_t errlen);
int cb_read_trace_opt(const char *path, struct cb_trace *out,
		      unsigned int opts, char *err, size_t errlen);

/*
 * Write rules in array order (the reader gives them back with id, priority
 * and action numbered from the line) or trace headers with their RULE
 * column (rule may be NULL: all 0).  Return 0, or -1 with errno set on a
 * write error or a family other than TM_AF_INET and TM_AF_INET6 (EINVAL).
 */
int cb_write_rules(FILE *f, const struct tm_rule *rules, size_t n);
int cb_write_trace(FILE *f, const struct tm_key *keys, const u32 *rule,
		   size_t n);

/* Append one element, growing the array; 0 or -1 (ENOMEM). */
int cb_ruleset_push(struct cb_ruleset *rs, const struct tm_rule *r);
int cb_trace_push(struct cb_trace *t, const struct tm_key *k, u32 rule);

/* Free the arrays and leave the struct empty. */
void cb_ruleset_free(struct cb_ruleset *rs);
void cb_trace_free(struct cb_trace *t);

/* Clear the bits of *a past len (32 for IPv4 and 128 for IPv6 keep all). */
void cb_addr_mask(struct tm_addr *a, u8 family, unsigned int len);

/*
 * Whether the packet header k matches rule r (the reference semantics):
 * the 5-tuple and the TCP flags, (k->tcp_flags & mask) == flags.
 */
bool cb_rule_match(const struct tm_rule *r, const struct tm_key *k);

#endif /* _CLASSBENCH_H */
