// SPDX-License-Identifier: GPL-2.0
/*
 * Rules: add, replace, delete and flush on a table's rules or on a
 * transaction's copy of them (struct tm_target, which txn.c builds), and
 * the rule objects themselves (struct tm_krule; their counters are
 * counters.c's).  The callers hold tm_net.lock; the hooks only ever read,
 * under RCU.  What a change means for a transaction (its copy's lists, a
 * change of the table followed in the copy) is txn.c's.
 *
 * Freeing: a tm_krule may be in use by a lookup until an RCU grace period
 * after the last classifier that lookups can reach stops holding it, so
 * every tm_krule is freed with call_rcu(), after it was unpublished:
 *   - in the table's own rules, when it is deleted or replaced;
 *   - in a transaction's copy, when the transaction created it and drops
 *     it again (it was never published), or at the commit for the rules of
 *     the table that the copy dropped (the "dead" list).
 */
#include <linux/slab.h>
#include <linux/sort.h>

#include "netns.h"
#include "txn.h"

static const u8 tm_fam_af[2] = { TM_AF_INET, TM_AF_INET6 };

u32 tm_rule_cls_id(u32 id, u8 family)
{
	return id << 1 | (family == TM_AF_INET6);
}

/* Bytes of the copy of the sets @s: the struct, then the values. */
static size_t tm_set_bytes(const struct tm_rule_set *s)
{
	if (!s)
		return 0;
	return sizeof(*s) + (s->nsrc + s->ndst) * sizeof(*s->src) +
	       (s->nsport + s->ndport) * sizeof(*s->sport) + s->nproto;
}

/* Copy @len bytes of @src to *@p, step past them; NULL for none. */
static void *tm_set_take(char **p, const void *src, size_t len)
{
	void *dst = *p;

	if (!len)
		return NULL;
	memcpy(dst, src, len);
	*p += len;
	return dst;
}

/* Copy @s into @buf, tm_set_bytes(@s) long. */
static const struct tm_rule_set *tm_set_copy(void *buf,
					     const struct tm_rule_set *s)
{
	struct tm_rule_set *c = buf;
	char *p = (char *)(c + 1);

	*c = *s;
	c->src = tm_set_take(&p, s->src, s->nsrc * sizeof(*s->src));
	c->dst = tm_set_take(&p, s->dst, s->ndst * sizeof(*s->dst));
	c->sport = tm_set_take(&p, s->sport, s->nsport * sizeof(*s->sport));
	c->dport = tm_set_take(&p, s->dport, s->ndport * sizeof(*s->dport));
	c->proto = tm_set_take(&p, s->proto, s->nproto);
	return c;
}

/* Classifier entries of a rule of each family it covers. */
u32 tm_krule_entries(const struct tm_krule *kr)
{
	return tm_rule_set_entries(kr->set);
}

/*
 * Room in @rs for @entries more entries once @leaving are gone: the
 * table's max-rules counts every entry of a set rule, once per rule
 * whatever families it covers.
 */
bool tm_rules_room(const struct tm_table *t, const struct tm_ruleset *rs,
		   u32 entries, u32 leaving)
{
	u32 used = rs->nentries - leaving;

	return used < t->max_rules && entries <= t->max_rules - used;
}

/* One allocation: the tm_krule, its sets, then its comment. */
static struct tm_krule *tm_krule_new(const struct tm_rule_cfg *cfg, u32 id,
				     struct tm_cnt *cnt)
{
	size_t clen = cfg->comment ? strlen(cfg->comment) + 1 : 0;
	size_t slen = ALIGN(tm_set_bytes(cfg->set), sizeof(void *));
	struct tm_krule *kr = kzalloc(sizeof(*kr) + slen + clen,
				      GFP_KERNEL_ACCOUNT);

	if (!kr)
		return NULL;
	if (cnt) {
		tm_cnt_get(cnt);
	} else {
		cnt = tm_cnt_new();
		if (!cnt) {
			kfree(kr);
			return NULL;
		}
	}
	if (cfg->set)
		kr->set = tm_set_copy(kr + 1, cfg->set);
	if (clen)
		kr->comment = memcpy((char *)(kr + 1) + slen, cfg->comment,
				     clen);
	kr->cnt = cnt;
	INIT_LIST_HEAD(&kr->txn_node);
	kr->cookie = cfg->cookie;
	kr->id = id;
	kr->mark = cfg->mark;
	kr->action = cfg->action;
	kr->reject = cfg->reject;
	kr->fams = cfg->fams;
	kr->queue = cfg->queue;
	kr->queue_bypass = cfg->queue_bypass;
	kr->trace = cfg->trace;
	kr->svc = cfg->svc;
	if (kr->svc)
		tm_lb_svc_get(kr->svc);
	return kr;
}

/* The families of the rule's fams, as netfilter numbers them. */
static const u8 tm_fam_pf[2] = { NFPROTO_IPV4, NFPROTO_IPV6 };

static void tm_klog_free(struct tm_klog *log)
{
	unsigned int i;

	if (!log)
		return;
	for (i = 0; i < ARRAY_SIZE(tm_fam_pf); i++)
		if (log->pfs & BIT(tm_fam_pf[i]))
			nf_logger_put(tm_fam_pf[i], log->li.type);
	kfree(log);
}

/*
 * The rule's logging: its logger's module held for each family, loaded
 * if need be (a level: nf_log_syslog, a group: nfnetlink_log).  Without
 * either, packets go to the logger bound to the family, and
 * nf_log_syslog is loaded, which binds itself where none is bound.
 */
static int tm_klog_new(struct tm_krule *kr, const struct tm_rule_cfg *cfg,
		       struct netlink_ext_ack *extack)
{
	struct tm_klog *log;
	unsigned int i;
	int err;

	if (!cfg->log)
		return 0;
	log = kzalloc(sizeof(*log), GFP_KERNEL_ACCOUNT);
	if (!log) {
		NL_SET_ERR_MSG(extack, "Out of memory");
		return -ENOMEM;
	}
	kr->log = log;
	ratelimit_state_init(&log->rs, HZ, cfg->log_rate);
	/* No "callbacks suppressed" lines: the log is the user's. */
	ratelimit_set_flags(&log->rs, RATELIMIT_MSG_ON_RELEASE);
	if (cfg->log_prefix)
		strscpy(log->prefix, cfg->log_prefix, sizeof(log->prefix));
	log->typed = cfg->log_level >= 0 || cfg->log_group >= 0;
	if (cfg->log_group >= 0) {
		log->li.type = NF_LOG_TYPE_ULOG;
		log->li.u.ulog.group = cfg->log_group;
	} else {
		log->li.type = NF_LOG_TYPE_LOG;
		log->li.u.log.level = cfg->log_level >= 0 ? cfg->log_level :
							    LOGLEVEL_WARNING;
	}
	for (i = 0; i < ARRAY_SIZE(tm_fam_pf); i++) {
		if (!(kr->fams & BIT(i)))
			continue;
		err = nf_logger_find_get(tm_fam_pf[i], log->li.type);
		if (!err) {
			log->pfs |= BIT(tm_fam_pf[i]);
		} else if (log->typed && log->li.type == NF_LOG_TYPE_ULOG) {
			NL_SET_ERR_MSG(extack,
				       "No nflog logger (module nfnetlink_log) for the rule's family");
			return err;
		} else if (log->typed) {
			NL_SET_ERR_MSG(extack,
				       "No syslog logger (module nf_log_syslog) for the rule's family");
			return err;
		}
	}
	return 0;
}

static void tm_krule_free_rcu(struct rcu_head *head)
{
	struct tm_krule *kr = container_of(head, struct tm_krule, rcu);

	tm_klog_free(kr->log);
	tm_cnt_put(kr->cnt);
	kfree(kr);
}

/*
 * The service's reference goes now, so that deleting the service right
 * after its last rule needs no rcu_barrier(): the service itself is freed
 * after a grace period, and packets still holding @kr see it dead (no new
 * flow).
 */
void tm_krule_free(struct tm_krule *kr)
{
	if (kr->svc)
		tm_lb_svc_put(kr->svc);
	call_rcu(&kr->rcu, tm_krule_free_rcu);
}

/* @kr left the rules @sh (NULL: the table's own) hold. */
static void tm_krule_drop(struct tm_shadow *sh, struct tm_krule *kr)
{
	if (sh)
		tm_txn_rule_drop(sh, kr);
	else
		tm_krule_free(kr);
}

struct tm_krule *tm_rule_find(const struct tm_ruleset *rs, u32 id,
			      const struct tm_rule **rp)
{
	const struct tm_rule *r;
	unsigned int i;

	if (!id || id > TM_RULE_ID_MAX)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(tm_fam_af); i++) {
		r = tm_cls_find(rs->cls, tm_rule_cls_id(id, tm_fam_af[i]));
		if (r) {
			if (rp)
				*rp = r;
			return (struct tm_krule *)(uintptr_t)r->action;
		}
	}
	return NULL;
}

static void tm_cls_error(int err, struct netlink_ext_ack *extack)
{
	if (err == -ENOSPC)
		NL_SET_ERR_MSG(extack,
			       "Too many tuples: the rules' prefix lengths spread over more than the table's max-tuples");
	else if (err == -ENOMEM)
		NL_SET_ERR_MSG(extack, "Out of memory");
	else if (err == -EINVAL)
		NL_SET_ERR_MSG(extack, "Invalid rule");
}

/* The classifier rule of @cfg for address family @af, acting as @kr. */
static void tm_rule_instance(struct tm_rule *r, const struct tm_rule_cfg *cfg,
			     u32 id, u8 af, const struct tm_krule *kr)
{
	*r = cfg->r;
	r->family = af;
	r->id = tm_rule_cls_id(id, af);
	r->action = (uintptr_t)kr;
}

/* Insert the classifier rules of @kr (described by @cfg) into @rs. */
int tm_ruleset_insert(struct tm_ruleset *rs, struct tm_krule *kr,
		      const struct tm_rule_cfg *cfg)
{
	struct tm_rule r;
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(tm_fam_af); i++) {
		if (!(kr->fams & BIT(i)))
			continue;
		tm_rule_instance(&r, cfg, kr->id, tm_fam_af[i], kr);
		err = tm_cls_insert_set(rs->cls, &r, kr->set);
		if (err) {
			/* Only the IPv6 half of an inet rule can fail second. */
			if (i && (kr->fams & TM_FAMS_V4))
				tm_cls_delete(rs->cls,
					      tm_rule_cls_id(kr->id, TM_AF_INET));
			return err;
		}
	}
	rs->nrules++;
	rs->nentries += tm_krule_entries(kr);
	rs->max_id = max(rs->max_id, kr->id);
	return 0;
}

void tm_ruleset_remove(struct tm_ruleset *rs, const struct tm_krule *kr)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tm_fam_af); i++) {
		if (kr->fams & BIT(i))
			tm_cls_delete(rs->cls,
				      tm_rule_cls_id(kr->id, tm_fam_af[i]));
	}
	rs->nrules--;
	rs->nentries -= tm_krule_entries(kr);
}

/*
 * Replace @old by @kr in @rs.  Each address family's classifier rule is
 * replaced in one step (a packet is of one family, so it sees the old rule
 * or the new one); families the rule gains are inserted first and those it
 * loses deleted last, since deletes cannot fail.
 */
int tm_ruleset_replace(struct tm_ruleset *rs, const struct tm_krule *old,
		       struct tm_krule *kr, const struct tm_rule_cfg *cfg)
{
	struct tm_rule r, undo[2];
	const struct tm_rule *orig;
	unsigned int i, done = 0;
	int err = 0;

	for (i = 0; i < ARRAY_SIZE(tm_fam_af); i++) {
		if (!(kr->fams & BIT(i)))
			continue;
		tm_rule_instance(&r, cfg, kr->id, tm_fam_af[i], kr);
		orig = tm_cls_find(rs->cls, r.id);
		if (orig) {
			undo[i] = *orig;
			err = tm_cls_replace_set(rs->cls, &r, kr->set);
		} else {
			err = tm_cls_insert_set(rs->cls, &r, kr->set);
		}
		if (err)
			break;
		done |= BIT(i);
	}
	if (err) {
		/* Undo the family done first, if any: put the old rule back. */
		for (i = 0; i < ARRAY_SIZE(tm_fam_af); i++) {
			if (!(done & BIT(i)))
				continue;
			if (!(old->fams & BIT(i)))
				tm_cls_delete(rs->cls,
					      tm_rule_cls_id(kr->id,
							     tm_fam_af[i]));
			else if (tm_cls_replace_set(rs->cls, &undo[i],
						    old->set))
				WARN_ONCE(1, "tuplemerge: rule %u half replaced\n",
					  kr->id);
		}
		return err;
	}
	for (i = 0; i < ARRAY_SIZE(tm_fam_af); i++) {
		if ((old->fams & BIT(i)) && !(kr->fams & BIT(i)))
			tm_cls_delete(rs->cls,
				      tm_rule_cls_id(kr->id, tm_fam_af[i]));
	}
	rs->nentries += tm_krule_entries(kr) - tm_krule_entries(old);
	return 0;
}

/*
 * Add the rule @cfg describes to @tg; cfg->id 0: the next free id.  An id
 * above every one ever used (a batch's usual case) is free without a look.
 */
int tm_rule_add(const struct tm_target *tg, struct tm_rule_cfg *cfg,
		struct netlink_ext_ack *extack)
{
	struct tm_ruleset *rs = tg->rs;
	struct tm_table *t = tg->table;
	struct tm_krule *kr;
	int err;

	lockdep_assert_held(&tg->tn->lock);
	if (!cfg->id) {
		if (rs->max_id >= TM_RULE_ID_MAX) {
			NL_SET_ERR_MSG(extack,
				       "No rule id left above the highest in use: give one");
			return -ENOSPC;
		}
		cfg->id = rs->max_id + 1;
	} else if (cfg->id <= rs->max_id && tm_rule_find(rs, cfg->id, NULL)) {
		NL_SET_ERR_MSG(extack, "Rule id already in use in this table");
		return -EEXIST;
	}
	if (!tm_rules_room(t, rs, tm_rule_set_entries(cfg->set), 0)) {
		NL_SET_ERR_MSG(extack,
			       "Table is full (its max-rules, which counts each entry of a set rule)");
		return -ENOSPC;
	}
	kr = tm_krule_new(cfg, cfg->id, NULL);
	if (!kr) {
		NL_SET_ERR_MSG(extack, "Out of memory");
		return -ENOMEM;
	}
	err = tm_klog_new(kr, cfg, extack);
	if (err) {
		tm_krule_free(kr);
		return err;
	}
	err = tm_ruleset_insert(rs, kr, cfg);
	if (err) {
		tm_cls_error(err, extack);
		tm_krule_free(kr);
		return err;
	}
	if (tg->shadow)
		tm_txn_rule_made(tg->shadow, kr);
	else if (t->shadow)
		tm_txn_follow_add(t->shadow, kr, cfg);
	return 0;
}

/* Replace rule cfg->id of @tg by the rule @cfg describes. */
int tm_rule_replace(const struct tm_target *tg, const struct tm_rule_cfg *cfg,
		    struct netlink_ext_ack *extack)
{
	struct tm_shadow *sh = tg->shadow;
	struct tm_ruleset *rs = tg->rs;
	struct tm_table *t = tg->table;
	struct tm_krule *old, *kr;
	int err;

	lockdep_assert_held(&tg->tn->lock);
	old = tm_rule_find(rs, cfg->id, NULL);
	if (!old) {
		NL_SET_ERR_MSG(extack, "No rule with this id in this table");
		return -ENOENT;
	}
	if (!tm_rules_room(t, rs, tm_rule_set_entries(cfg->set),
			   tm_krule_entries(old))) {
		NL_SET_ERR_MSG(extack,
			       "Table is full (its max-rules, which counts each entry of a set rule)");
		return -ENOSPC;
	}
	kr = tm_krule_new(cfg, cfg->id,
			  cfg->reset_counters ? NULL : old->cnt);
	if (!kr) {
		NL_SET_ERR_MSG(extack, "Out of memory");
		return -ENOMEM;
	}
	err = tm_klog_new(kr, cfg, extack);
	if (err) {
		tm_krule_free(kr);
		return err;
	}
	err = tm_ruleset_replace(rs, old, kr, cfg);
	if (err) {
		tm_cls_error(err, extack);
		tm_krule_free(kr);
		return err;
	}
	if (!sh && t->shadow)
		tm_txn_follow_replace(t->shadow, old, kr, cfg);
	tm_krule_drop(sh, old);
	if (sh)
		tm_txn_rule_made(sh, kr);
	return 0;
}

/* Delete rule @id of @tg. */
int tm_rule_del(const struct tm_target *tg, u32 id,
		struct netlink_ext_ack *extack)
{
	struct tm_krule *kr = tm_rule_find(tg->rs, id, NULL);
	struct tm_shadow *sh = tg->shadow;
	struct tm_table *t = tg->table;

	lockdep_assert_held(&tg->tn->lock);
	if (!kr) {
		NL_SET_ERR_MSG(extack, "No rule with this id in this table");
		return -ENOENT;
	}
	tm_ruleset_remove(tg->rs, kr);
	if (!sh && t->shadow)
		tm_txn_follow_del(t->shadow, kr);
	tm_krule_drop(sh, kr);
	return 0;
}

struct tm_each {
	const struct tm_cls *cls;
	int (*fn)(struct tm_krule *kr, const struct tm_rule *r, void *arg);
	void *arg;
};

static int tm_each_one(const struct tm_rule *r, void *arg)
{
	struct tm_krule *kr = (struct tm_krule *)(uintptr_t)r->action;
	struct tm_each *e = arg;
	const struct tm_rule *v4;

	/*
	 * An inet rule is two classifier rules: report it once, at its IPv4
	 * half.  Tell from the classifier, not from kr->fams: @fn may have
	 * dropped kr at that half already (a flush), and kr is freed after a
	 * grace period that can end during this walk.
	 */
	if (r->family == TM_AF_INET6) {
		v4 = tm_cls_find(e->cls, r->id & ~1u);
		if (v4 && v4->action == r->action)
			return 0;
	}
	return e->fn(kr, r, e->arg);
}

/* Call @fn once per user rule of @rs until it returns non-0. */
int tm_rules_for_each(const struct tm_ruleset *rs,
		      int (*fn)(struct tm_krule *kr, const struct tm_rule *r,
				void *arg), void *arg)
{
	struct tm_each e = { .cls = rs->cls, .fn = fn, .arg = arg };

	return tm_cls_for_each(rs->cls, tm_each_one, &e);
}

struct tm_ids {
	u32 *ids;
	u32 n, max;
};

static int tm_ids_one(struct tm_krule *kr, const struct tm_rule *r, void *arg)
{
	struct tm_ids *s = arg;

	if (WARN_ON_ONCE(s->n >= s->max))
		return -EUCLEAN;
	s->ids[s->n++] = kr->id;
	return 0;
}

static int tm_u32_cmp(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The ids of @rs in increasing order, in a kvmalloc()ed array.  A dump
 * holds it until it ends, however long its reader waits: charged to the
 * dumping task's memory cgroup, and refused (ENOMEM) rather than calling
 * the cgroup's OOM killer when the cgroup is full; that refusal is the
 * caller's to see, not a warning with a stack trace in the kernel log.
 */
int tm_rules_ids(const struct tm_ruleset *rs, u32 **ids, u32 *n)
{
	struct tm_ids s = { .max = rs->nrules };
	int err;

	s.ids = kvmalloc_array(max(s.max, 1u), sizeof(u32),
			       GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL |
			       __GFP_NOWARN);
	if (!s.ids)
		return -ENOMEM;
	err = tm_rules_for_each(rs, tm_ids_one, &s);
	if (err) {
		kvfree(s.ids);
		return err;
	}
	sort(s.ids, s.n, sizeof(u32), tm_u32_cmp, NULL);
	*ids = s.ids;
	*n = s.n;
	return 0;
}

/* An empty classifier with the table's engine and parameters. */
struct tm_cls *tm_rules_cls_new(const struct tm_table *t)
{
	struct tm_params p;

	/* The ABI's engine numbers are the core's. */
	BUILD_BUG_ON((int)TM_ENG_TUPLEMERGE != (int)TM_ENGINE_TUPLEMERGE ||
		     (int)TM_ENG_TSS != (int)TM_ENGINE_TSS ||
		     (int)TM_ENG_LINEAR != (int)TM_ENGINE_LINEAR);
	tm_params_default(&p);
	p.engine = t->engine;
	if (t->collide)
		p.collide = t->collide;
	p.max_tuples = t->max_tuples;
	return tm_cls_create(&p);
}

static int tm_copy_one(const struct tm_rule *r, void *arg)
{
	const struct tm_krule *kr = (const void *)(uintptr_t)r->action;

	return tm_cls_insert_set(arg, r, kr->set);
}

/* A private copy of @src, sharing its tm_krules, for a transaction. */
int tm_rules_copy(const struct tm_table *t, struct tm_ruleset *dst,
		  const struct tm_ruleset *src)
{
	struct tm_cls *cls = tm_rules_cls_new(t);
	int err;

	if (!cls)
		return -ENOMEM;
	tm_cls_set_private(cls, true);
	err = tm_cls_for_each(src->cls, tm_copy_one, cls);
	if (err) {
		tm_cls_destroy(cls);
		return err;
	}
	dst->cls = cls;
	dst->nrules = src->nrules;
	dst->nentries = src->nentries;
	dst->max_id = src->max_id;
	return 0;
}

static int tm_drop_one(struct tm_krule *kr, const struct tm_rule *r,
		       void *arg)
{
	tm_krule_drop(arg, kr);
	return 0;
}

/*
 * Delete every rule of @tg: its rules get an empty classifier, published
 * at once when they are the table's own.
 */
int tm_rules_flush(const struct tm_target *tg)
{
	struct tm_table *t = tg->table;
	struct tm_ruleset *rs = tg->rs;
	struct tm_shadow *sh = tg->shadow;
	struct tm_cls *cls = tm_rules_cls_new(t), *old = rs->cls;

	lockdep_assert_held(&tg->tn->lock);
	if (!cls)
		return -ENOMEM;
	if (sh) {
		tm_cls_set_private(cls, true);
		tm_txn_rules_flushed(sh);
	} else if (t->shadow) {
		tm_txn_follow_flush(t->shadow);
	}
	if (!sh)
		rcu_assign_pointer(t->cls, cls);
	rs->cls = cls;
	rs->nrules = 0;
	rs->nentries = 0;
	/* After the new classifier is published: frees wait for readers. */
	tm_cls_for_each(old, tm_each_one,
			&(struct tm_each){ .cls = old, .fn = tm_drop_one,
					   .arg = sh });
	tm_cls_destroy(old);
	return 0;
}

/* Free a table's rules once it is unreachable from any hook. */
void tm_rules_release(struct tm_ruleset *rs)
{
	tm_cls_for_each(rs->cls, tm_each_one,
			&(struct tm_each){ .cls = rs->cls, .fn = tm_drop_one,
					   .arg = NULL });
	tm_cls_destroy(rs->cls);
	rs->cls = NULL;
}

void tm_rule_exit(void)
{
	/* Wait for the tm_krules still queued by call_rcu(). */
	rcu_barrier();
	tm_cnt_exit();
}
