// SPDX-License-Identifier: GPL-2.0
/*
 * tmbench's peers (peer.h).  rte_acl: DPDK's ACL classifier, an offline
 * multi-bit trie with SIMD classification, built once from the whole rule
 * set.  The rules are IPv4 5-tuples: the protocol as a bitmask field, the
 * addresses as prefixes, the ports as ranges; rte_acl's higher priority
 * wins, so the rules get priorities in reverse (priority, id) order, and
 * the rule id as userdata (the answer).  Keys are handed over as a parser
 * would: the fields in network byte order, in one struct per packet.
 *
 * Built only with DPDK's development files (HAVE_RTE_ACL, set by the
 * Makefile from pkg-config libdpdk); otherwise peer_build() says so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer.h"

bool peer_known(const char *name)
{
	return !strcmp(name, "rte_acl");
}

static struct peer *acl_build(const struct tm_rule *rules, size_t n,
			      char *err, size_t errlen);

struct peer *peer_build(const char *name, const struct tm_rule *rules,
			size_t n, char *err, size_t errlen)
{
	if (!peer_known(name)) {
		snprintf(err, errlen, "unknown peer '%s' (known: %s)", name,
			 PEER_NAMES);
		return NULL;
	}
	return acl_build(rules, n, err, errlen);
}

#ifdef HAVE_RTE_ACL

#include <arpa/inet.h>
#include <stddef.h>

#include <rte_acl.h>
#include <rte_eal.h>
#include <rte_errno.h>

#define ACL_BATCH	64
#define ARG_NUM(a)	(sizeof(a) / sizeof((a)[0]))

/* What rte_acl reads of a packet; the first field must be one byte. */
struct acl_key {
	u8 proto;
	u32 src;
	u32 dst;
	u16 sport;
	u16 dport;
};

enum { F_PROTO, F_SRC, F_DST, F_SPORT, F_DPORT, F_NUM };

RTE_ACL_RULE_DEF(acl_rule, F_NUM);

static const struct rte_acl_field_def acl_fields[F_NUM] = {
	{ .type = RTE_ACL_FIELD_TYPE_BITMASK, .size = 1,
	  .field_index = F_PROTO, .input_index = 0,
	  .offset = offsetof(struct acl_key, proto) },
	{ .type = RTE_ACL_FIELD_TYPE_MASK, .size = 4,
	  .field_index = F_SRC, .input_index = 1,
	  .offset = offsetof(struct acl_key, src) },
	{ .type = RTE_ACL_FIELD_TYPE_MASK, .size = 4,
	  .field_index = F_DST, .input_index = 2,
	  .offset = offsetof(struct acl_key, dst) },
	/* The two ports share one 4-byte input word. */
	{ .type = RTE_ACL_FIELD_TYPE_RANGE, .size = 2,
	  .field_index = F_SPORT, .input_index = 3,
	  .offset = offsetof(struct acl_key, sport) },
	{ .type = RTE_ACL_FIELD_TYPE_RANGE, .size = 2,
	  .field_index = F_DPORT, .input_index = 3,
	  .offset = offsetof(struct acl_key, dport) },
};

struct peer {
	struct rte_acl_ctx *ctx;
	struct acl_key *keys;
	const u8 **data;
	size_t n;
};

/* The EAL, once per process: no hugepages, no devices, no shared files. */
static int eal_up(char *err, size_t errlen)
{
	static const char * const args[] = {
		"tmbench", "--no-huge", "--no-pci", "--no-shconf",
		"--no-telemetry", "-m", "4096", "-l", "0", "--log-level",
		"error",
	};
	static int state;	/* 0: not tried, 1: up, -1: failed */
	char *argv[ARG_NUM(args) + 1];
	unsigned int i;

	/* rte_eal_init() may reorder argv: a copy of the pointers. */
	for (i = 0; i < ARG_NUM(args); i++)
		argv[i] = (char *)args[i];
	argv[i] = NULL;
	if (!state)
		state = rte_eal_init(ARG_NUM(args), argv) < 0 ? -1 : 1;
	if (state < 0)
		snprintf(err, errlen, "rte_acl: the DPDK EAL did not start: %s",
			 rte_strerror(rte_errno));
	return state < 0 ? -1 : 0;
}

static int acl_rules(struct rte_acl_ctx *ctx, const struct tm_rule *rules,
		     size_t n, char *err, size_t errlen)
{
	const struct tm_rule **order = malloc(n * sizeof(*order));
	struct acl_rule *ar = calloc(n, sizeof(*ar));
	size_t i;
	int ret;

	if (!order || !ar) {
		free(order);
		free(ar);
		snprintf(err, errlen, "rte_acl: out of memory");
		return -1;
	}
	for (i = 0; i < n; i++)
		order[i] = &rules[i];
	qsort(order, n, sizeof(*order), rule_rank_cmp);
	for (i = 0; i < n; i++) {
		const struct tm_rule *r = order[i];
		struct acl_rule *a = &ar[i];

		if (r->family != TM_AF_INET || !r->id ||
		    tm_rule_has_extra(r)) {
			snprintf(err, errlen,
				 "rte_acl: rule id %u: only IPv4 5-tuple rules with an id",
				 r->id);
			free(order);
			free(ar);
			return -1;
		}
		a->data.category_mask = 1;
		a->data.priority = RTE_ACL_MAX_PRIORITY - (int32_t)i;
		a->data.userdata = r->id;
		a->field[F_PROTO].value.u8 = r->proto;
		a->field[F_PROTO].mask_range.u8 = r->proto_any ? 0 : 0xff;
		a->field[F_SRC].value.u32 = r->src.w[0];
		a->field[F_SRC].mask_range.u32 = r->src_len;
		a->field[F_DST].value.u32 = r->dst.w[0];
		a->field[F_DST].mask_range.u32 = r->dst_len;
		a->field[F_SPORT].value.u16 = r->sport_lo;
		a->field[F_SPORT].mask_range.u16 = r->sport_hi;
		a->field[F_DPORT].value.u16 = r->dport_lo;
		a->field[F_DPORT].mask_range.u16 = r->dport_hi;
	}
	ret = rte_acl_add_rules(ctx, (struct rte_acl_rule *)ar, n);
	free(order);
	free(ar);
	if (ret)
		snprintf(err, errlen, "rte_acl: adding the rules: %s",
			 strerror(-ret));
	return ret ? -1 : 0;
}

static struct peer *acl_build(const struct tm_rule *rules, size_t n,
			      char *err, size_t errlen)
{
	struct rte_acl_param prm = {
		.name = "tmbench",
		.socket_id = SOCKET_ID_ANY,
		.rule_size = RTE_ACL_RULE_SZ(F_NUM),
		.max_rule_num = n,
	};
	struct rte_acl_config cfg = {
		.num_categories = 1,
		.num_fields = F_NUM,
	};
	struct peer *p;
	int ret;

	if (eal_up(err, errlen))
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(err, errlen, "rte_acl: out of memory");
		return NULL;
	}
	p->ctx = rte_acl_create(&prm);
	if (!p->ctx) {
		snprintf(err, errlen, "rte_acl: rte_acl_create: %s",
			 rte_strerror(rte_errno));
		free(p);
		return NULL;
	}
	if (acl_rules(p->ctx, rules, n, err, errlen))
		goto fail;
	memcpy(cfg.defs, acl_fields, sizeof(acl_fields));
	ret = rte_acl_build(p->ctx, &cfg);
	if (ret) {
		snprintf(err, errlen, "rte_acl: rte_acl_build: %s",
			 strerror(-ret));
		goto fail;
	}
	return p;
fail:
	rte_acl_free(p->ctx);
	free(p);
	return NULL;
}

int peer_load(struct peer *p, const struct tm_key *keys, size_t n,
	      char *err, size_t errlen)
{
	size_t i;

	free(p->keys);
	free(p->data);
	p->keys = calloc(n, sizeof(*p->keys));
	p->data = calloc(n, sizeof(*p->data));
	p->n = 0;
	if (!p->keys || !p->data) {
		snprintf(err, errlen, "rte_acl: out of memory");
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (keys[i].family != TM_AF_INET) {
			snprintf(err, errlen, "rte_acl: IPv4 headers only");
			return -1;
		}
		p->keys[i].proto = keys[i].proto;
		p->keys[i].src = htonl(keys[i].src.w[0]);
		p->keys[i].dst = htonl(keys[i].dst.w[0]);
		p->keys[i].sport = htons(keys[i].sport);
		p->keys[i].dport = htons(keys[i].dport);
		p->data[i] = (const u8 *)&p->keys[i];
	}
	p->n = n;
	return 0;
}

void peer_run(struct peer *p, u32 *ids)
{
	size_t i;

	for (i = 0; i < p->n; i += ACL_BATCH)
		rte_acl_classify(p->ctx, &p->data[i], &ids[i],
				 p->n - i < ACL_BATCH ? p->n - i : ACL_BATCH,
				 1);
}

unsigned int peer_batch(const struct peer *p)
{
	return ACL_BATCH;
}

void peer_free(struct peer *p)
{
	if (!p)
		return;
	rte_acl_free(p->ctx);
	free(p->keys);
	free(p->data);
	free(p);
}

#else /* !HAVE_RTE_ACL */

static struct peer *acl_build(const struct tm_rule *rules, size_t n,
			      char *err, size_t errlen)
{
	snprintf(err, errlen,
		 "peer rte_acl unavailable: tmbench was built without DPDK's development files (install libdpdk-dev, then make -C tools/bench clean all)");
	return NULL;
}

int peer_load(struct peer *p, const struct tm_key *keys, size_t n,
	      char *err, size_t errlen)
{
	return -1;
}

void peer_run(struct peer *p, u32 *ids)
{
}

unsigned int peer_batch(const struct peer *p)
{
	return 0;
}

void peer_free(struct peer *p)
{
}

#endif
