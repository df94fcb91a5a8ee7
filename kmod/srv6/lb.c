// SPDX-License-Identifier: GPL-2.0
/*
 * The load-balancer side of SRv6 load balancing (SRLB / 6LB): services and
 * their backends, the consistent-hash table each service hunts from, the
 * flow table, and the namespace's hook for the servers' reports.  The
 * packet path is lb_fwd.c's; the commands lb_nl.c's.
 *
 * Services: a list under tm_net.lock, and a hash by the load balancer's
 * SID for the report hook (RCU).  A service lives while the namespace or a
 * rule (struct tm_krule.svc) holds a reference; deleting one a rule names
 * is refused, as nft refuses to delete an object in use.
 *
 * Backends: the configuration is an array under tm_net.lock.  Each change
 * builds a new struct tm_lb_tab (the SIDs and a Maglev table of k
 * candidates per row, core/tm_maglev.c) and publishes it with one pointer
 * store, so a packet sees the old backends or the new ones.  The table is
 * a function of the backends' SIDs and weights only, and a flow's row a
 * function of its addresses and ports only (of its client's address,
 * affinity src): two load balancers configured alike pick the same
 * candidates for a flow, with no state shared.  The
 * figures of each backend (struct tm_lb_bk: flows learned, forced,
 * active) go from table to table while it stays a backend; a flow learned
 * to it holds them until it is forgotten.
 *
 * Flows: one resizable hash table (rhashtable) per namespace, keyed by
 * service, client address and ports, read under RCU by the packet path and
 * changed under tm_lb.flock with BHs off; each service also lists its own,
 * so that deleting or flushing one visits no other.  Only a client's
 * packet creates one (a report never does, lb_fwd.c).  They are allocated
 * in softirq, charged to the memory cgroup of the service's creator.  A
 * service remembers at most max_flows, and the namespace lb_max_flows (a
 * module parameter) in all.  Half-open flows (no server yet, or no packet
 * of the client since the server answered: the handshake is not done) are
 * also on two lists, the service's and the namespace's, oldest first, and
 * live the SYN timeout; when full, the oldest half-open flow is evicted to
 * make room (counted "evicted"), so that a flood of SYNs from spoofed
 * sources only replaces its own flows, never an established one.  With no
 * half-open flow to evict, a new flow is forwarded (it hunts like any
 * other) but not remembered, and counted "full" (the service's limit) or
 * "ns-full" (the namespace's, or the memory cgroup's).  A delayed work ages
 * flows once a second: a half-open flow after the SYN timeout, a
 * closing one after the FIN timeout, any other after the idle timeout;
 * each one aged out is counted "expired".
 */
#include <linux/jhash.h>
#include <linux/netfilter_ipv6.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <net/ipv6.h>

#include "netns.h"
#include "txn.h"
#include "netlink/genl.h"
#include "srv6/tm_maglev.h"

/* Fixed: load balancers must agree on the rows of a flow and a table. */
#define TM_LB_HASH_SEED		0x53524c42

/* Flows a namespace remembers, every service's together. */
static unsigned int tm_lb_max_flows = TM_LB_MAX_FLOWS_LIMIT;
module_param_named(lb_max_flows, tm_lb_max_flows, uint, 0644);
MODULE_PARM_DESC(lb_max_flows,
		 "Load-balancer flows per network namespace, at most");

void tm_lb_init(struct tm_lb *lb)
{
	unsigned int i;

	INIT_LIST_HEAD(&lb->svcs);
	lb->nsvcs = 0;
	for (i = 0; i < TM_SID_BUCKETS; i++)
		INIT_HLIST_HEAD(&lb->sid_hash[i]);
	lb->hooked = false;
	lb->flows_ready = false;
	INIT_LIST_HEAD(&lb->halfopen);
	lb->nflows = 0;
	spin_lock_init(&lb->flock);
}

void tm_lb_count(struct tm_lb_svc *svc, enum tm_lbc c)
{
	struct tm_lb_stats *st;

	/* Also called in process context (LOCAL_OUT): see tm_count(). */
	local_bh_disable();
	st = this_cpu_ptr(svc->stats);
	u64_stats_update_begin(&st->syncp);
	u64_stats_inc(&st->c[c]);
	u64_stats_update_end(&st->syncp);
	local_bh_enable();
}

void tm_lb_read(const struct tm_lb_svc *svc, u64 *c)
{
	unsigned int start, i;
	int cpu;

	memset(c, 0, TM_LBC_MAX * sizeof(*c));
	for_each_possible_cpu(cpu) {
		const struct tm_lb_stats *st = per_cpu_ptr(svc->stats, cpu);
		u64 v[TM_LBC_MAX];

		do {
			start = u64_stats_fetch_begin(&st->syncp);
			for (i = 0; i < TM_LBC_MAX; i++)
				v[i] = u64_stats_read(&st->c[i]);
		} while (u64_stats_fetch_retry(&st->syncp, start));
		for (i = 0; i < TM_LBC_MAX; i++)
			c[i] += v[i];
	}
}

/*
 * The row of a flow: the same on every load balancer.  With affinity src,
 * of the client's address only.
 */
static u32 tm_lb_flow_hash(const struct tm_lb_svc *svc,
			   const struct tm_lb_conn *c)
{
	u32 h = jhash2((const u32 *)c->client.s6_addr32, 4, TM_LB_HASH_SEED);

	if (svc->affinity == TM_LB_AFFINITY_SRC)
		return h;
	h = jhash2((const u32 *)c->vip.s6_addr32, 4, h);
	return jhash_1word((__force u32)c->cport << 16 | (__force u32)c->vport,
			   h);
}

/*
 * The flow table hashes the key's bytes up to the ports (not the struct's
 * tail padding) with the table's own random seed; it grows and shrinks
 * with the flows, in a work of its own.
 */
static const struct rhashtable_params tm_lflow_params = {
	.head_offset = offsetof(struct tm_lflow, node),
	.key_offset = offsetof(struct tm_lflow, key),
	.key_len = offsetofend(struct tm_lflow_key, c.vport),
	.automatic_shrinking = true,
};

/* The flow @c of @svc, under RCU; NULL: unknown. */
struct tm_lflow *tm_lflow_find(struct tm_lb *lb, struct tm_lb_svc *svc,
			       const struct tm_lb_conn *c)
{
	struct tm_lflow_key key = { .svc = svc, .c = *c };

	/* Pairs with tm_lb_hook(): the table is initialized. */
	if (!smp_load_acquire(&lb->flows_ready))
		return NULL;
	return rhashtable_lookup(&lb->flows, &key, tm_lflow_params);
}

static void tm_lb_bk_put(struct tm_lb_bk *bk)
{
	if (refcount_dec_and_test(&bk->ref))
		kfree_rcu(bk, rcu);
}

/*
 * Free @tab and let go of its figures.  @published: packets may still read
 * it, so it waits for RCU, as its figures do when they go (tm_lb_bk_put());
 * a packet that finds them let go does not count.
 */
static void tm_lb_tab_free(struct tm_lb_tab *tab, bool published)
{
	u32 i;

	if (!tab)
		return;
	for (i = 0; i < tab->n; i++)
		if (tab->bk[i])
			tm_lb_bk_put(tab->bk[i]);
	if (published)
		kvfree_rcu(tab, rcu);
	else
		kvfree(tab);
}

/* Under tm_lb.flock. */
static void tm_lflow_unlink(struct tm_lb *lb, struct tm_lflow *f)
{
	lockdep_assert_held(&lb->flock);
	WARN_ON_ONCE(rhashtable_remove_fast(&lb->flows, &f->node,
					    tm_lflow_params));
	list_del(&f->svc_node);
	if (f->halfopen) {
		list_del(&f->svc_lru);
		list_del(&f->ns_lru);
	}
	if (f->bk) {
		atomic_dec(&f->bk->active);
		tm_lb_bk_put(f->bk);
		f->bk = NULL;
	}
	f->dead = 1;
	atomic_dec(&f->key.svc->nflows);
	lb->nflows--;
	kfree_rcu(f, rcu);
}

/*
 * Make room for one more flow of @svc by evicting the oldest half-open
 * flow of the service (@ns false) or of the namespace (@ns true), under
 * tm_lb.flock: a flood of SYNs that are never answered replaces its own
 * flows, never a flow whose server is known.  False: none to evict.
 */
static bool tm_lflow_evict(struct tm_lb *lb, struct tm_lb_svc *svc, bool ns)
{
	struct tm_lflow *f;

	if (ns)
		f = list_first_entry_or_null(&lb->halfopen, struct tm_lflow,
					     ns_lru);
	else
		f = list_first_entry_or_null(&svc->halfopen, struct tm_lflow,
					     svc_lru);
	if (!f)
		return false;
	tm_lb_count(f->key.svc, TM_LBC_EVICTED);
	tm_lflow_unlink(lb, f);
	return true;
}

/*
 * Remember a flow of @svc in @state (HUNT or RECOVER), hunting with the
 * table @tgen; NULL when no room (counted) or out of memory.  The flow is
 * charged to the service's creator.  When the service holds max_flows, or
 * the namespace tm_lb_max_flows, the oldest half-open flow gives its place
 * (counted "evicted"); with none, the flow is not remembered ("full", or
 * "ns-full").  A flow another CPU added meanwhile is returned instead.
 */
struct tm_lflow *tm_lflow_add(struct tm_lb *lb, struct tm_lb_svc *svc,
			      const struct tm_lb_conn *c, u8 state, u32 tgen)
{
	u32 max = READ_ONCE(svc->max_flows);
	struct tm_lflow *f, *old;

	/* Unlocked: no allocation per packet of a flood that cannot fit. */
	if ((u32)atomic_read(&svc->nflows) >= max &&
	    list_empty(&svc->halfopen)) {
		tm_lb_count(svc, TM_LBC_FULL);
		return NULL;
	}
	f = tm_zalloc_charged(sizeof(*f), svc->memcg);
	if (!f) {
		tm_lb_count(svc, TM_LBC_NS_FULL);
		return NULL;
	}
	f->key.svc = svc;
	f->key.c = *c;
	f->state = state;
	f->tgen = tgen;
	f->last = jiffies;
	spin_lock_bh(&lb->flock);
	if (!lb->flows_ready || svc->dead)
		goto unlock;
	old = rhashtable_lookup_fast(&lb->flows, &f->key, tm_lflow_params);
	if (old) {
		spin_unlock_bh(&lb->flock);
		kfree(f);
		return old;
	}
	if ((u32)atomic_read(&svc->nflows) >= max &&
	    !tm_lflow_evict(lb, svc, false)) {
		tm_lb_count(svc, TM_LBC_FULL);
		goto unlock;
	}
	if (lb->nflows >= READ_ONCE(tm_lb_max_flows) &&
	    !tm_lflow_evict(lb, svc, true)) {
		tm_lb_count(svc, TM_LBC_NS_FULL);
		goto unlock;
	}
	/* Out of memory for a bigger table, or chains too long. */
	if (rhashtable_insert_fast(&lb->flows, &f->node, tm_lflow_params)) {
		tm_lb_count(svc, TM_LBC_NS_FULL);
		goto unlock;
	}
	atomic_inc(&svc->nflows);
	lb->nflows++;
	list_add_tail(&f->svc_node, &svc->flows);
	f->halfopen = 1;
	list_add_tail(&f->svc_lru, &svc->halfopen);
	list_add_tail(&f->ns_lru, &lb->halfopen);
	spin_unlock_bh(&lb->flock);
	return f;

unlock:
	spin_unlock_bh(&lb->flock);
	kfree(f);
	return NULL;
}

/* A packet of @f went by. */
void tm_lflow_seen(struct tm_lflow *f)
{
	unsigned long now = jiffies;

	/* Not a store per packet: the line is shared by every CPU. */
	if (READ_ONCE(f->last) != now)
		WRITE_ONCE(f->last, now);
}

/*
 * The row of @tab for the connection @c of @svc (of the client alone, with
 * affinity src): tab->k indexes into tab->sids, the first candidate first
 * (TM_MAGLEV_NONE: none).
 */
const u16 *tm_lb_row(const struct tm_lb_svc *svc, const struct tm_lb_tab *tab,
		     const struct tm_lb_conn *c)
{
	return tm_maglev_row(tab->rows, tab->size, tab->k,
			     tm_lb_flow_hash(svc, c));
}

/*
 * Would the load balancer send the connection @c to @server?  One of the
 * candidates of its row; or, for a flow that hunted with a table older
 * than the current one (@tgen, 0: none), one of the backends.  If so,
 * @hit (unless NULL) gets the server's figures and whether it is the
 * row's last candidate.  Under the RCU read lock.
 */
bool tm_lb_candidate(const struct tm_lb_svc *svc, const struct tm_lb_conn *c,
		     const struct in6_addr *server, u32 tgen,
		     struct tm_lb_hit *hit)
{
	const struct tm_lb_tab *tab = rcu_dereference(svc->tab);
	u32 i, found = U32_MAX, last = 0;
	const u16 *row;

	if (!tab)
		return false;
	row = tm_lb_row(svc, tab, c);
	for (i = 0; i < tab->k; i++) {
		if (row[i] == TM_MAGLEV_NONE)
			continue;
		last = i;
		if (found == U32_MAX &&
		    ipv6_addr_equal(&tab->sids[row[i]], server))
			found = i;
	}
	if (found != U32_MAX) {
		if (hit) {
			hit->bk = tab->bk[row[found]];
			hit->last = found == last;
		}
		return true;
	}
	if (!tgen || tab->gen == tgen)
		return false;
	for (i = 0; i < tab->n; i++)
		if (ipv6_addr_equal(&tab->sids[i], server)) {
			if (hit) {
				hit->bk = tab->bk[i];
				hit->last = false;
			}
			return true;
		}
	return false;
}

/*
 * The server of @f is @server: it reported the flow, and @hit (NULL, or
 * no figures: not known) says where it stands among the flow's
 * candidates, for its figures.  False when @f is gone, or knows another
 * server (the report is refused).  Under the RCU read lock.
 */
bool tm_lflow_learn(struct tm_lb *lb, struct tm_lflow *f,
		    const struct in6_addr *server,
		    const struct tm_lb_hit *hit)
{
	struct tm_lb_bk *bk = hit ? hit->bk : NULL;
	bool ok = true;

	spin_lock_bh(&lb->flock);
	if (f->dead) {
		ok = false;
	} else if (f->state == TM_LB_FLOW_HUNT ||
		   f->state == TM_LB_FLOW_RECOVER) {
		f->server = *server;
		/* A table gone since the report looked lets its figures go. */
		if (bk && refcount_inc_not_zero(&bk->ref)) {
			f->bk = bk;
			atomic_inc(&bk->active);
			atomic64_inc(&bk->learned);
			if (hit->last)
				atomic64_inc(&bk->forced);
		}
		/* Readers that see STEER see the server. */
		smp_store_release(&f->state, TM_LB_FLOW_STEER);
		tm_lb_count(f->key.svc, TM_LBC_LEARNED);
	} else {
		ok = ipv6_addr_equal(&f->server, server);
	}
	spin_unlock_bh(&lb->flock);
	return ok;
}

/* Forget @f now: a new connection uses its addresses and ports again. */
void tm_lflow_forget(struct tm_lb *lb, struct tm_lflow *f)
{
	spin_lock_bh(&lb->flock);
	if (!f->dead)
		tm_lflow_unlink(lb, f);
	spin_unlock_bh(&lb->flock);
}

/* Whether @f is steered to a known server (STEER or CLOSING). */
bool tm_lflow_steered(const struct tm_lflow *f)
{
	/* Pairs with tm_lflow_learn(): a STEER flow's server is set. */
	u8 state = smp_load_acquire(&f->state);

	return state == TM_LB_FLOW_STEER || state == TM_LB_FLOW_CLOSING;
}

/*
 * A FIN or RST of @f went by: the shorter FIN timeout.  Only from STEER,
 * without the lock: a half-open flow stays on its lists, and nothing else
 * changes a STEER flow's state.
 */
void tm_lflow_closing(struct tm_lflow *f)
{
	if (READ_ONCE(f->state) == TM_LB_FLOW_STEER)
		WRITE_ONCE(f->state, TM_LB_FLOW_CLOSING);
}

/*
 * A client's packet other than a SYN went to the server of @f: the
 * handshake is done, @f is no longer half-open (evictable, the SYN
 * timeout).  A SYN flood from spoofed sources never gets here.
 */
void tm_lflow_confirm(struct tm_lb *lb, struct tm_lflow *f)
{
	if (!READ_ONCE(f->halfopen))
		return;
	spin_lock_bh(&lb->flock);
	if (f->halfopen && !f->dead) {
		list_del(&f->svc_lru);
		list_del(&f->ns_lru);
		WRITE_ONCE(f->halfopen, 0);
	}
	spin_unlock_bh(&lb->flock);
}

/*
 * Under tm_lb.flock, or (a first look) under RCU.  A packet may have
 * stamped @f after @now was read: not idle at all.
 */
static bool tm_lflow_expired(const struct tm_lflow *f, unsigned long now)
{
	const struct tm_lb_svc *svc = f->key.svc;
	unsigned long last = READ_ONCE(f->last);
	u32 timeout;

	if (time_after(last, now))
		return false;

	if (READ_ONCE(f->state) == TM_LB_FLOW_CLOSING)
		timeout = READ_ONCE(svc->fin);
	else if (READ_ONCE(f->halfopen))
		timeout = READ_ONCE(svc->syn);
	else
		timeout = READ_ONCE(svc->idle);
	return now - last >= (unsigned long)timeout * HZ;
}

/*
 * Forget the flows @svc remembers now, in batches under flock, the CPU
 * given up between them; flows its packets add meanwhile may stay (a
 * deleted service adds none).
 */
void tm_lflow_flush(struct tm_lb *lb, struct tm_lb_svc *svc)
{
	int left = atomic_read(&svc->nflows);
	struct tm_lflow *f;
	unsigned int i;

	while (left > 0) {
		spin_lock_bh(&lb->flock);
		for (i = 0; i < 256 && left > 0; i++, left--) {
			f = list_first_entry_or_null(&svc->flows,
						     struct tm_lflow, svc_node);
			if (!f) {
				left = 0;
				break;
			}
			tm_lflow_unlink(lb, f);
		}
		spin_unlock_bh(&lb->flock);
		cond_resched();
	}
}

/*
 * Age flow @obj of load balancer @arg: checked again under flock before
 * it goes.  The time is read again for each flow: a walk of millions takes
 * seconds, and a flow added meanwhile is younger than its start.
 */
static void tm_lflow_age(void *obj, void *arg)
{
	struct tm_lflow *f = obj;
	struct tm_lb *lb = arg;

	if (!tm_lflow_expired(f, jiffies))
		return;
	spin_lock_bh(&lb->flock);
	if (!f->dead && tm_lflow_expired(f, jiffies)) {
		tm_lb_count(f->key.svc, TM_LBC_EXPIRED);
		tm_lflow_unlink(lb, f);
	}
	spin_unlock_bh(&lb->flock);
}

/* Age the flows once a second. */
static void tm_lflow_gc(struct work_struct *work)
{
	struct tm_lb *lb = container_of(to_delayed_work(work), struct tm_lb,
					gc);

	tm_flows_walk(&lb->flows, tm_lflow_age, lb);
	schedule_delayed_work(&lb->gc, HZ);
}

/* The first service of the namespace: the flow table and the hook. */
static int tm_lb_hook(struct net *net, struct tm_lb *lb,
		      struct netlink_ext_ack *extack)
{
	int err;

	if (!lb->flows_ready) {
		err = rhashtable_init(&lb->flows, &tm_lflow_params);
		if (err)
			return err;
		/* Pairs with tm_lflow_find(). */
		smp_store_release(&lb->flows_ready, true);
	}
	lb->ops = (struct nf_hook_ops){
		.hook = tm_lb_report_hook,
		.pf = NFPROTO_IPV6,
		.hooknum = NF_INET_PRE_ROUTING,
		/*
		 * After defragmentation, before conntrack: the reply is
		 * tracked as the client will see it.
		 */
		.priority = NF_IP6_PRI_CONNTRACK_DEFRAG + 1,
	};
	err = nf_register_net_hook(net, &lb->ops);
	if (err) {
		NL_SET_ERR_MSG(extack, "Cannot register the IPv6 prerouting hook");
		return err;
	}
	INIT_DELAYED_WORK(&lb->gc, tm_lflow_gc);
	schedule_delayed_work(&lb->gc, HZ);
	lb->hooked = true;
	return 0;
}

/*
 * The last service is gone, and each one forgot its flows.  The empty
 * table stays, for packets still in the hook and for the next service,
 * until the namespace goes (tm_lb_flush()).
 */
static void tm_lb_unhook(struct net *net, struct tm_lb *lb)
{
	if (!lb->hooked)
		return;
	nf_unregister_net_hook(net, &lb->ops);
	cancel_delayed_work_sync(&lb->gc);
	WARN_ON_ONCE(lb->nflows);
	lb->hooked = false;
}

static u32 tm_lb_sid_hash(const struct in6_addr *a)
{
	return ipv6_addr_hash(a) % TM_SID_BUCKETS;
}

struct tm_lb_svc *tm_lb_svc_by_sid(struct tm_lb *lb, const struct in6_addr *a)
{
	struct tm_lb_svc *svc;

	hlist_for_each_entry_rcu(svc, &lb->sid_hash[tm_lb_sid_hash(a)],
				 sid_node, true /* or tm_net.lock */)
		if (ipv6_addr_equal(&svc->sid, a))
			return svc;
	return NULL;
}

/*
 * The service @name as transaction @txn sees it, or as everyone does when
 * @txn is NULL: a service @txn creates is there, one it deletes is gone,
 * and one another transaction creates is nobody else's until that commits.
 */
struct tm_lb_svc *tm_lb_svc_find_txn(struct tm_net *tn, const char *name,
				     const struct tm_txn *txn)
{
	struct tm_lb_svc *svc;

	lockdep_assert_held(&tn->lock);
	if (txn)
		list_for_each_entry(svc, &txn->svcs, txn_node)
			if (svc->txn_op == TM_TXN_NEW && !strcmp(svc->name, name))
				return svc;
	list_for_each_entry(svc, &tn->lb.svcs, list)
		if (!strcmp(svc->name, name))
			return txn && svc->txn == txn &&
			       svc->txn_op == TM_TXN_DEL ? NULL : svc;
	return NULL;
}

struct tm_lb_svc *tm_lb_svc_find(struct tm_net *tn, const char *name)
{
	return tm_lb_svc_find_txn(tn, name, NULL);
}

/*
 * A rule may not name @svc: another transaction than @txn (NULL: none)
 * deletes it at its commit.
 */
bool tm_lb_svc_going(const struct tm_lb_svc *svc, const struct tm_txn *txn)
{
	return svc->txn && svc->txn != txn && svc->txn_op == TM_TXN_DEL;
}

static void tm_lb_svc_free_rcu(struct rcu_head *head)
{
	struct tm_lb_svc *svc = container_of(head, struct tm_lb_svc, rcu);

	tm_lb_tab_free(rcu_dereference_protected(svc->tab, true), false);
	tm_lb_tab_free(svc->txn_tab, false);
	tm_memcg_put(svc->memcg);
	free_percpu(svc->stats);
	kfree(svc->txn_backends);
	kfree(svc->backends);
	kfree(svc);
}

void tm_lb_svc_get(struct tm_lb_svc *svc)
{
	refcount_inc(&svc->ref);
}

void tm_lb_svc_put(struct tm_lb_svc *svc)
{
	if (refcount_dec_and_test(&svc->ref))
		call_rcu(&svc->rcu, tm_lb_svc_free_rcu);
}

/*
 * Why @cfg cannot be a service beside @svc, or NULL: a name, a load
 * balancer's SID, or a VIP and port (0: any) a service has; VIPs that are
 * prefixes clash when one holds the other.
 */
static const char *tm_lb_svc_clash(const struct tm_lb_svc *svc,
				   const struct tm_lb_cfg *cfg)
{
	if (!strcmp(svc->name, cfg->name))
		return "A service with this name exists";
	if (ipv6_addr_equal(&svc->sid, &cfg->sid))
		return "This load-balancer SID is another service's";
	if (ipv6_prefix_equal(&svc->vip, &cfg->vip,
			      min(svc->vip_len, cfg->vip_len)) &&
	    svc->proto == cfg->proto &&
	    (svc->port == cfg->port || !svc->port || !cfg->port))
		return "Another service serves this VIP and port";
	return NULL;
}

/*
 * Can @cfg be a service, for @txn (NULL: now), besides @self (a service
 * it comes back as)?  EEXIST against the services @txn sees, EBUSY against
 * those another transaction creates: their commits must not clash.
 */
static int tm_lb_svc_check(struct tm_net *tn, const struct tm_lb_cfg *cfg,
			   const struct tm_txn *txn,
			   const struct tm_lb_svc *self,
			   struct netlink_ext_ack *extack)
{
	const struct tm_lb_svc *svc;
	const struct tm_txn *other;
	const char *why;

	list_for_each_entry(svc, &tn->lb.svcs, list) {
		if (svc == self ||
		    (txn && svc->txn == txn && svc->txn_op == TM_TXN_DEL))
			continue;
		why = tm_lb_svc_clash(svc, cfg);
		if (why) {
			if (extack)
				extack->_msg = why;
			return -EEXIST;
		}
	}
	list_for_each_entry(other, &tn->txns, node) {
		list_for_each_entry(svc, &other->svcs, txn_node) {
			if (svc == self || svc->txn_op != TM_TXN_NEW)
				continue;
			why = tm_lb_svc_clash(svc, cfg);
			if (why && other == txn) {
				if (extack)
					extack->_msg = why;
				return -EEXIST;
			}
			if (why) {
				NL_SET_ERR_MSG(extack,
					       "Another open transaction is creating a service with this name, SID, or VIP and port");
				return -EBUSY;
			}
		}
	}
	return 0;
}

/* @svc has the configuration @cfg describes. */
static bool tm_lb_svc_same(const struct tm_lb_svc *svc,
			   const struct tm_lb_cfg *cfg)
{
	return !strcmp(svc->name, cfg->name) &&
	       ipv6_addr_equal(&svc->vip, &cfg->vip) &&
	       svc->vip_len == cfg->vip_len &&
	       ipv6_addr_equal(&svc->sid, &cfg->sid) &&
	       svc->proto == cfg->proto && svc->port == cfg->port &&
	       svc->k == cfg->k && svc->size == cfg->size &&
	       svc->max_flows == cfg->max_flows && svc->idle == cfg->idle &&
	       svc->fin == cfg->fin && svc->syn == cfg->syn &&
	       svc->hmac == cfg->hmac && svc->affinity == cfg->affinity &&
	       svc->health.interval == cfg->health.interval &&
	       svc->health.timeout == cfg->health.timeout &&
	       svc->health.rise == cfg->health.rise &&
	       svc->health.fall == cfg->health.fall &&
	       svc->health.listener == cfg->health.listener;
}

/* @svc joins @txn with @op, unless it is there already. */
static void tm_lb_svc_txn_hold(struct tm_lb_svc *svc, struct tm_txn *txn,
			       enum tm_txn_op op)
{
	if (!svc->txn)
		list_add_tail(&svc->txn_node, &txn->svcs);
	svc->txn = txn;
	svc->txn_op = op;
}

/* Drop the backends a TM_TXN_SET would have given @svc. */
static void tm_lb_svc_txn_forget(struct tm_lb_svc *svc)
{
	kfree(svc->txn_backends);
	svc->txn_backends = NULL;
	svc->txn_nbackends = 0;
	tm_lb_tab_free(svc->txn_tab, false);
	svc->txn_tab = NULL;
}

/*
 * @svc changes outside the transaction holding it: that transaction can
 * no longer commit (tm_txn_spoil()), and lets the service go.
 */
static void tm_lb_svc_txn_detach(struct tm_lb_svc *svc)
{
	struct tm_txn *txn = svc->txn;

	if (!txn)
		return;
	list_del(&svc->txn_node);
	if (svc->txn_op == TM_TXN_DEL)
		txn->nsvcs_del--;
	tm_lb_svc_txn_forget(svc);
	svc->txn = NULL;
	svc->txn_op = TM_TXN_NONE;
	tm_txn_spoil(txn);
}

/*
 * Create a service, or, for transaction @txn, one that only @txn sees
 * until its commit.  A service @txn deleted and creates again alike
 * (every parameter the same) stays the same service, with its flows and
 * counters, and the backends @txn gives it: a transaction that replaces
 * the whole configuration (flush ruleset, then the file) keeps what it
 * does not change.
 */
int tm_lb_svc_add(struct net *net, struct tm_net *tn,
		  const struct tm_lb_cfg *cfg, struct tm_txn *txn,
		  struct netlink_ext_ack *extack, struct tm_lb_svc **out)
{
	struct tm_lb *lb = &tn->lb;
	struct tm_lb_svc *svc;
	int err, cpu;

	lockdep_assert_held(&tn->lock);
	if (txn) {
		list_for_each_entry(svc, &lb->svcs, list) {
			if (svc->txn != txn || svc->txn_op != TM_TXN_DEL ||
			    !tm_lb_svc_same(svc, cfg))
				continue;
			err = tm_lb_svc_check(tn, cfg, txn, svc, extack);
			if (err)
				return err;
			/* Back, with no backend yet, as a new service. */
			txn->nsvcs_del--;
			tm_lb_svc_txn_hold(svc, txn, TM_TXN_SET);
			*out = svc;
			return 0;
		}
	}
	err = tm_lb_svc_check(tn, cfg, txn, NULL, extack);
	if (err)
		return err;
	if (lb->nsvcs + lb->npending >=
	    TM_LB_MAX_SERVICES + (txn ? txn->nsvcs_del : 0)) {
		NL_SET_ERR_MSG(extack, "Too many services in this namespace");
		return -ENOSPC;
	}
	svc = kzalloc(sizeof(*svc), GFP_KERNEL_ACCOUNT);
	if (!svc)
		return -ENOMEM;
	svc->stats = alloc_percpu_gfp(struct tm_lb_stats, GFP_KERNEL_ACCOUNT);
	if (!svc->stats) {
		kfree(svc);
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(svc->stats, cpu)->syncp);
	refcount_set(&svc->ref, 1);
	strscpy(svc->name, cfg->name, sizeof(svc->name));
	svc->vip = cfg->vip;
	svc->vip_len = cfg->vip_len;
	svc->proto = cfg->proto;
	svc->port = cfg->port;
	svc->sid = cfg->sid;
	svc->k = cfg->k;
	svc->affinity = cfg->affinity;
	svc->size = cfg->size;
	svc->max_flows = cfg->max_flows;
	svc->idle = cfg->idle;
	svc->fin = cfg->fin;
	svc->syn = cfg->syn;
	svc->hmac = cfg->hmac;
	svc->health = cfg->health;
	svc->net = net;
	INIT_DELAYED_WORK(&svc->hc_work, tm_lb_health_work);
	atomic_set(&svc->nflows, 0);
	INIT_LIST_HEAD(&svc->flows);
	INIT_LIST_HEAD(&svc->halfopen);
	svc->memcg = tm_memcg_owner();
	/* A transaction's service hooks too: its commit must not fail. */
	if (!lb->hooked) {
		err = tm_lb_hook(net, lb, extack);
		if (err) {
			tm_lb_svc_free_rcu(&svc->rcu);
			return err;
		}
	}
	*out = svc;
	if (txn) {
		tm_lb_svc_txn_hold(svc, txn, TM_TXN_NEW);
		lb->npending++;
		return 0;
	}
	list_add_tail(&svc->list, &lb->svcs);
	hlist_add_head_rcu(&svc->sid_node, &lb->sid_hash[tm_lb_sid_hash(&svc->sid)]);
	lb->nsvcs++;
	tm_lb_health_start(svc);
	return 0;
}

/*
 * Unlink @svc (but from tm_lb.svcs, the caller's): no report finds it, and
 * no new flow of it is remembered (tm_lflow_add() checks @dead under the
 * lock).  Its flows are the caller's to forget; the namespace's reference
 * stays.
 */
static void tm_lb_svc_unlink(struct tm_net *tn, struct tm_lb_svc *svc)
{
	struct tm_lb *lb = &tn->lb;

	hlist_del_rcu(&svc->sid_node);
	lb->nsvcs--;
	spin_lock_bh(&lb->flock);
	svc->dead = true;
	spin_unlock_bh(&lb->flock);
}

/* No service left, and no transaction creates one: no hook. */
static void tm_lb_idle(struct net *net, struct tm_lb *lb)
{
	if (!lb->nsvcs && !lb->npending)
		tm_lb_unhook(net, lb);
}

/*
 * The unlinked services on @gone (by txn_node) forget their flows, then
 * the namespace's references go.  With the last service the hook goes,
 * and every flow with it, before any service may be freed: a flow points
 * to its service.
 */
static void tm_lb_svcs_gone(struct net *net, struct tm_lb *lb,
			    struct list_head *gone)
{
	struct tm_lb_svc *svc, *tmp;

	list_for_each_entry(svc, gone, txn_node) {
		tm_lb_health_stop(svc);
		tm_lflow_flush(lb, svc);
	}
	tm_lb_idle(net, lb);
	list_for_each_entry_safe(svc, tmp, gone, txn_node) {
		list_del(&svc->txn_node);
		tm_lb_svc_put(svc);
	}
}

/*
 * Delete @svc unless a rule (of those @txn sees) names it: now, or at the
 * commit of @txn.  Now, the caller then drops the namespace's reference
 * with tm_lb_svc_put(), once done with it.  A rule drops its reference
 * when it is unpublished (tm_krule_free()), not after the grace period:
 * no wait here.  A service @txn created goes at once: no packet saw it.
 */
int tm_lb_svc_del(struct net *net, struct tm_net *tn, struct tm_lb_svc *svc,
		  struct tm_txn *txn, struct netlink_ext_ack *extack)
{
	lockdep_assert_held(&tn->lock);
	if (txn && svc->txn && svc->txn != txn) {
		NL_SET_ERR_MSG(extack,
			       "Another open transaction is changing this service");
		return -EBUSY;
	}
	if (txn ? tm_tables_use_svc(tn, svc, txn) :
		  refcount_read(&svc->ref) > 1) {
		NL_SET_ERR_MSG(extack,
			       "The service is in use by a rule (lb action)");
		return -EBUSY;
	}
	if (!txn) {
		tm_lb_svc_txn_detach(svc);
		list_del(&svc->list);
		tm_lb_svc_unlink(tn, svc);
		tm_lb_health_stop(svc);
		tm_lflow_flush(&tn->lb, svc);
		tm_lb_idle(net, &tn->lb);
		return 0;
	}
	if (svc->txn_op == TM_TXN_NEW) {
		list_del(&svc->txn_node);
		tn->lb.npending--;
		tm_lb_svc_put(svc);
		tm_lb_idle(net, &tn->lb);
		return 0;
	}
	tm_lb_svc_txn_forget(svc);
	tm_lb_svc_txn_hold(svc, txn, TM_TXN_DEL);
	txn->nsvcs_del++;
	return 0;
}

/*
 * Delete every service @txn sees, at its commit, once the tables that
 * name them are gone; with @dry, only find out whether another
 * transaction holds one (-EBUSY), changing nothing.
 */
int tm_lb_svcs_del_all(struct net *net, struct tm_net *tn,
		       struct tm_txn *txn, bool dry,
		       struct netlink_ext_ack *extack)
{
	struct tm_lb_svc *svc, *tmp;
	int err;

	lockdep_assert_held(&tn->lock);
	list_for_each_entry(svc, &tn->lb.svcs, list) {
		if (!svc->txn || svc->txn == txn)
			continue;
		NL_SET_ERR_MSG(extack,
			       "Another open transaction is changing a service");
		return -EBUSY;
	}
	if (dry)
		return 0;
	list_for_each_entry_safe(svc, tmp, &txn->svcs, txn_node) {
		if (svc->txn_op != TM_TXN_NEW)
			continue;
		err = tm_lb_svc_del(net, tn, svc, txn, extack);
		if (err)
			return err;
	}
	list_for_each_entry(svc, &tn->lb.svcs, list) {
		if (svc->txn_op == TM_TXN_DEL)
			continue;
		err = tm_lb_svc_del(net, tn, svc, txn, extack);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Namespace exit or module unload: the tables are gone already.  Each
 * service forgets its flows; one grace period, however many services,
 * before the flow table goes: a packet that came through a rule may still
 * look a flow up.
 */
void tm_lb_flush(struct net *net, struct tm_net *tn)
{
	struct tm_lb_svc *svc, *tmp;
	LIST_HEAD(gone);

	list_splice_init(&tn->lb.svcs, &gone);
	list_for_each_entry(svc, &gone, list) {
		tm_lb_svc_unlink(tn, svc);
		tm_lb_health_stop(svc);
		tm_lflow_flush(&tn->lb, svc);
	}
	tm_lb_unhook(net, &tn->lb);
	if (tn->lb.flows_ready) {
		synchronize_rcu();
		rhashtable_destroy(&tn->lb.flows);
		tn->lb.flows_ready = false;
	}
	list_for_each_entry_safe(svc, tmp, &gone, list) {
		list_del(&svc->list);
		tm_lb_svc_put(svc);
	}
}

/* Module unload: services freed by the last rules' RCU callbacks. */
void tm_lb_exit(void)
{
	rcu_barrier();
}

/*
 * The figures of backend @sid of @svc for a new table: those of its
 * current table, which go on, or new ones.  Under tm_net.lock.
 */
static struct tm_lb_bk *tm_lb_bk_of(const struct tm_lb_svc *svc,
				    const struct in6_addr *sid)
{
	const struct tm_lb_tab *cur = rcu_dereference_protected(svc->tab,
								true);
	struct tm_lb_bk *bk;
	u32 i;

	for (i = 0; cur && i < cur->n; i++)
		if (ipv6_addr_equal(&cur->sids[i], sid)) {
			refcount_inc(&cur->bk[i]->ref);
			return cur->bk[i];
		}
	bk = kzalloc(sizeof(*bk), GFP_KERNEL_ACCOUNT);
	if (bk) {
		refcount_set(&bk->ref, 1);
		spin_lock_init(&bk->hc_lock);
	}
	return bk;
}

/*
 * Build the table of @n backends @b for @svc; NULL table for none.  Its
 * SIDs are every backend's, its rows those of weight above 0 only: a
 * draining backend (or one its health checks found down) is offered no
 * flow, and still takes the reports of those that hunted before
 * (tm_lb_candidate()).  With every backend draining, no row has a
 * candidate and new flows are dropped.  A backend the current table has
 * keeps its figures and health.
 */
static int tm_lb_tab_build(const struct tm_lb_svc *svc,
			   const struct tm_lb_backend *b, u32 n,
			   struct tm_lb_tab **out)
{
	struct tm_maglev_backend *mb;
	struct tm_lb_tab *tab;
	u32 i, weighted;
	size_t sz;
	int err;

	*out = NULL;
	if (!n)
		return 0;
	sz = sizeof(*tab) + n * (sizeof(*tab->sids) + sizeof(*tab->bk)) +
	     (size_t)svc->size * svc->k * sizeof(*tab->rows);
	tab = kvzalloc(sz, GFP_KERNEL_ACCOUNT);
	if (!tab)
		return -ENOMEM;
	mb = kvmalloc_array(n, sizeof(*mb), GFP_KERNEL_ACCOUNT);
	if (!mb) {
		kvfree(tab);
		return -ENOMEM;
	}
	tab->n = n;
	tab->gen = svc->tab_gen + 1;
	tab->k = svc->k;
	tab->size = svc->size;
	tab->sids = (struct in6_addr *)(tab + 1);
	tab->bk = (struct tm_lb_bk **)(tab->sids + n);
	tab->rows = (u16 *)(tab->bk + n);
	weighted = 0;
	for (i = 0; i < n; i++) {
		const u32 *w = (const u32 *)b[i].sid.s6_addr32;

		tab->sids[i] = b[i].sid;
		tab->bk[i] = tm_lb_bk_of(svc, &b[i].sid);
		if (!tab->bk[i]) {
			kvfree(mb);
			tm_lb_tab_free(tab, false);
			return -ENOMEM;
		}
		mb[i].key = (u64)jhash2(w, 4, TM_LB_HASH_SEED) << 32 |
			    jhash2(w, 4, ~TM_LB_HASH_SEED);
		mb[i].weight = tab->bk[i]->down ? 0 : b[i].weight;
		weighted += !!mb[i].weight;
	}
	if (weighted) {
		err = tm_maglev_build(mb, n, tab->k, tab->size, tab->rows);
	} else {
		for (i = 0; i < tab->size * tab->k; i++)
			tab->rows[i] = TM_MAGLEV_NONE;
		err = 0;
	}
	kvfree(mb);
	if (err) {
		tm_lb_tab_free(tab, false);
		return err;
	}
	*out = tab;
	return 0;
}

static void tm_lb_tab_error(int err, struct netlink_ext_ack *extack)
{
	if (err == -ENOMEM)
		NL_SET_ERR_MSG(extack, "Out of memory for the service's table");
	else
		NL_SET_ERR_MSG(extack,
			       "Cannot build the service's table (two backends hash alike?)");
}

/* Make @b (@n backends, allocated) @svc's, with its new table. */
static int tm_lb_backends_set(struct tm_lb_svc *svc, struct tm_lb_backend *b,
			      u32 n, struct netlink_ext_ack *extack)
{
	struct tm_lb_tab *tab, *old;
	int err;

	err = tm_lb_tab_build(svc, b, n, &tab);
	if (err) {
		tm_lb_tab_error(err, extack);
		kfree(b);
		return err;
	}
	old = rcu_dereference_protected(svc->tab, true);
	svc->tab_gen++;
	rcu_assign_pointer(svc->tab, tab);
	tm_lb_tab_free(old, true);
	kfree(svc->backends);
	svc->backends = b;
	svc->nbackends = n;
	return 0;
}

/*
 * A new table of the same backends, for their health changed; under
 * tm_net.lock.  A transaction changing @svc builds its own at its commit.
 */
int tm_lb_tab_rebuild(struct tm_lb_svc *svc)
{
	struct tm_lb_backend *b;

	b = kmemdup(svc->backends, svc->nbackends * sizeof(*b),
		    GFP_KERNEL_ACCOUNT);
	if (!b)
		return -ENOMEM;
	return tm_lb_backends_set(svc, b, svc->nbackends, NULL);
}

static int tm_lb_backend_index(const struct tm_lb_backend *b, u32 n,
			       const struct in6_addr *sid)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (ipv6_addr_equal(&b[i].sid, sid))
			return i;
	return -1;
}

/*
 * The backends of @svc as @txn (NULL: none) sees them, into *@b and *@n;
 * -EBUSY when another transaction holds @svc.  Outside a transaction, the
 * one holding @svc can no longer commit.
 */
static int tm_lb_backends_of(struct tm_lb_svc *svc, struct tm_txn *txn,
			     const struct tm_lb_backend **b, u32 *n,
			     struct netlink_ext_ack *extack)
{
	if (!txn) {
		tm_lb_svc_txn_detach(svc);
	} else if (svc->txn && svc->txn != txn) {
		NL_SET_ERR_MSG(extack,
			       "Another open transaction is changing this service");
		return -EBUSY;
	}
	if (txn && svc->txn_op == TM_TXN_SET) {
		*b = svc->txn_backends;
		*n = svc->txn_nbackends;
	} else {
		*b = svc->backends;
		*n = svc->nbackends;
	}
	return 0;
}

/*
 * @b (@n, allocated) are the backends of @svc: now, with its new table,
 * or those @txn gives it, whose table its commit builds once however many
 * changes it made.  A service @txn creates is @txn's alone: its own
 * backends change.
 */
static int tm_lb_backends_commit(struct tm_lb_svc *svc, struct tm_txn *txn,
				 struct tm_lb_backend *b, u32 n,
				 struct netlink_ext_ack *extack)
{
	if (!txn)
		return tm_lb_backends_set(svc, b, n, extack);
	if (svc->txn_op == TM_TXN_NEW) {
		kfree(svc->backends);
		svc->backends = b;
		svc->nbackends = n;
		return 0;
	}
	tm_lb_svc_txn_hold(svc, txn, TM_TXN_SET);
	kfree(svc->txn_backends);
	svc->txn_backends = b;
	svc->txn_nbackends = n;
	return 0;
}

int tm_lb_backend_add(struct tm_lb_svc *svc, const struct in6_addr *sid,
		      u32 weight, struct tm_txn *txn,
		      struct netlink_ext_ack *extack)
{
	const struct tm_lb_backend *cur;
	struct tm_lb_backend *b;
	u32 n;
	int err;

	err = tm_lb_backends_of(svc, txn, &cur, &n, extack);
	if (err)
		return err;
	if (tm_lb_backend_index(cur, n, sid) >= 0) {
		NL_SET_ERR_MSG(extack, "The service has this backend");
		return -EEXIST;
	}
	if (n >= TM_LB_MAX_BACKENDS || n >= svc->size) {
		NL_SET_ERR_MSG(extack,
			       "Too many backends for the service (or its table size)");
		return -ENOSPC;
	}
	b = kmalloc_array(n + 1, sizeof(*b), GFP_KERNEL_ACCOUNT);
	if (!b)
		return -ENOMEM;
	if (n)
		memcpy(b, cur, n * sizeof(*b));
	b[n].sid = *sid;
	b[n].weight = weight;
	return tm_lb_backends_commit(svc, txn, b, n + 1, extack);
}

int tm_lb_backend_del(struct tm_lb_svc *svc, const struct in6_addr *sid,
		      struct tm_txn *txn, struct netlink_ext_ack *extack)
{
	const struct tm_lb_backend *cur;
	struct tm_lb_backend *b = NULL;
	u32 n;
	int i, err;

	err = tm_lb_backends_of(svc, txn, &cur, &n, extack);
	if (err)
		return err;
	i = tm_lb_backend_index(cur, n, sid);
	if (i < 0) {
		NL_SET_ERR_MSG(extack, "The service has no such backend");
		return -ENOENT;
	}
	if (n > 1) {
		b = kmalloc_array(n - 1, sizeof(*b), GFP_KERNEL_ACCOUNT);
		if (!b)
			return -ENOMEM;
		memcpy(b, cur, i * sizeof(*b));
		memcpy(b + i, cur + i + 1, (n - 1 - i) * sizeof(*b));
	}
	return tm_lb_backends_commit(svc, txn, b, n - 1, extack);
}

int tm_lb_backend_weight(struct tm_lb_svc *svc, const struct in6_addr *sid,
			 u32 weight, struct tm_txn *txn,
			 struct netlink_ext_ack *extack)
{
	const struct tm_lb_backend *cur;
	struct tm_lb_backend *b;
	u32 n;
	int i, err;

	err = tm_lb_backends_of(svc, txn, &cur, &n, extack);
	if (err)
		return err;
	i = tm_lb_backend_index(cur, n, sid);
	if (i < 0) {
		NL_SET_ERR_MSG(extack, "The service has no such backend");
		return -ENOENT;
	}
	b = kmemdup(cur, n * sizeof(*b), GFP_KERNEL_ACCOUNT);
	if (!b)
		return -ENOMEM;
	b[i].weight = weight;
	return tm_lb_backends_commit(svc, txn, b, n, extack);
}

/* @set (@n backends) holds @b with its weight. */
static bool tm_lb_backend_in(const struct tm_lb_backend *b,
			     const struct tm_lb_backend *set, u32 n)
{
	int i = tm_lb_backend_index(set, n, &b->sid);

	return i >= 0 && set[i].weight == b->weight;
}

static bool tm_lb_backends_equal(const struct tm_lb_backend *a, u32 na,
				 const struct tm_lb_backend *b, u32 nb)
{
	u32 i;

	if (na != nb)
		return false;
	for (i = 0; i < na; i++)
		if (!ipv6_addr_equal(&a[i].sid, &b[i].sid) ||
		    a[i].weight != b[i].weight)
			return false;
	return true;
}

/*
 * The commit of @txn, first step, which may fail (nothing changed then):
 * the table of each service it creates or gives new backends, built once.
 * Backends it gives back unchanged (a configuration loaded again) keep
 * their table, so the flows hunting keep their candidates.
 */
int tm_lb_txn_prepare(struct tm_txn *txn, struct netlink_ext_ack *extack)
{
	struct tm_lb_svc *svc;
	int err;

	list_for_each_entry(svc, &txn->svcs, txn_node) {
		cond_resched();
		if (svc->txn_op == TM_TXN_NEW) {
			err = tm_lb_tab_build(svc, svc->backends,
					      svc->nbackends, &svc->txn_tab);
		} else if (svc->txn_op == TM_TXN_SET) {
			svc->txn_changed =
				!tm_lb_backends_equal(svc->backends,
						      svc->nbackends,
						      svc->txn_backends,
						      svc->txn_nbackends);
			err = !svc->txn_changed ? 0 :
			      tm_lb_tab_build(svc, svc->txn_backends,
					      svc->txn_nbackends,
					      &svc->txn_tab);
		} else {
			err = 0;
		}
		if (err) {
			tm_lb_tab_error(err, extack);
			return err;
		}
	}
	return 0;
}

/*
 * The commit of @txn, with nothing in between that sleeps: before the
 * tables switch (@link), the services it creates are linked and those it
 * changes get their backends; after them, those it deletes are unlinked.
 * The old backends and table wait in txn_backends and txn_tab.
 */
void tm_lb_txn_switch(struct tm_net *tn, struct tm_txn *txn, bool link)
{
	struct tm_lb *lb = &tn->lb;
	struct tm_lb_backend *b;
	struct tm_lb_svc *svc;
	struct tm_lb_tab *tab;
	u32 n;

	lockdep_assert_held(&tn->lock);
	list_for_each_entry(svc, &txn->svcs, txn_node) {
		if (!link) {
			if (svc->txn_op == TM_TXN_DEL) {
				list_del(&svc->list);
				tm_lb_svc_unlink(tn, svc);
			}
			continue;
		}
		if (svc->txn_op == TM_TXN_NEW) {
			svc->tab_gen = svc->txn_tab ? 1 : 0;
			RCU_INIT_POINTER(svc->tab, svc->txn_tab);
			svc->txn_tab = NULL;
			list_add_tail(&svc->list, &lb->svcs);
			hlist_add_head_rcu(&svc->sid_node,
					   &lb->sid_hash[tm_lb_sid_hash(&svc->sid)]);
			lb->nsvcs++;
			lb->npending--;
			tm_lb_health_start(svc);
		} else if (svc->txn_op == TM_TXN_SET && svc->txn_changed) {
			tab = rcu_dereference_protected(svc->tab, true);
			svc->tab_gen++;
			rcu_assign_pointer(svc->tab, svc->txn_tab);
			svc->txn_tab = tab;
			b = svc->backends;
			n = svc->nbackends;
			svc->backends = svc->txn_backends;
			svc->nbackends = svc->txn_nbackends;
			svc->txn_backends = b;
			svc->txn_nbackends = n;
		}
	}
}

/* Announce backend @b of @svc being added or deleted (@cmd). */
static void tm_lb_notify_backend(struct net *net, struct tm_net *tn,
				 const struct tm_lb_svc *svc,
				 const struct tm_lb_backend *b, u8 cmd)
{
	tm_lb_notify(net, svc, b, cmd, tm_net_changed(tn));
}

/*
 * The commit of @txn is done: announce the services it created (with
 * their backends) and the backends it changed, as the commands that would
 * have made them.
 */
void tm_lb_txn_announce(struct net *net, struct tm_net *tn,
			struct tm_txn *txn)
{
	const struct tm_lb_backend *b;
	struct tm_lb_svc *svc;
	u32 i;

	lockdep_assert_held(&tn->lock);
	list_for_each_entry(svc, &txn->svcs, txn_node) {
		if (svc->txn_op == TM_TXN_NEW) {
			tm_lb_notify(net, svc, NULL, TM_CMD_LB_SERVICE_NEW,
				     tm_net_changed(tn));
			for (i = 0; i < svc->nbackends; i++)
				tm_lb_notify_backend(net, tn, svc,
						     &svc->backends[i],
						     TM_CMD_LB_BACKEND_NEW);
			continue;
		}
		if (svc->txn_op != TM_TXN_SET || !svc->txn_changed)
			continue;
		/* The old backends are in txn_backends now. */
		for (i = 0; i < svc->txn_nbackends; i++) {
			b = &svc->txn_backends[i];
			if (!tm_lb_backend_in(b, svc->backends,
					      svc->nbackends))
				tm_lb_notify_backend(net, tn, svc, b,
						     TM_CMD_LB_BACKEND_DEL);
		}
		for (i = 0; i < svc->nbackends; i++) {
			b = &svc->backends[i];
			if (!tm_lb_backend_in(b, svc->txn_backends,
					      svc->txn_nbackends))
				tm_lb_notify_backend(net, tn, svc, b,
						     TM_CMD_LB_BACKEND_NEW);
		}
	}
}

/*
 * @txn ends.  Committed: the services it deleted are announced, forget
 * their flows and go; the old tables and backends of those it changed go.
 * Aborted: the services it created go, the others stay as they are.
 */
void tm_lb_txn_end(struct net *net, struct tm_net *tn, struct tm_txn *txn,
		   bool committed)
{
	struct tm_lb *lb = &tn->lb;
	struct tm_lb_svc *svc, *tmp;
	struct tm_lb_tab *old;
	LIST_HEAD(gone);
	u8 op;

	lockdep_assert_held(&tn->lock);
	list_for_each_entry_safe(svc, tmp, &txn->svcs, txn_node) {
		op = svc->txn_op;
		list_del(&svc->txn_node);
		svc->txn = NULL;
		svc->txn_op = TM_TXN_NONE;
		if (op == TM_TXN_DEL)
			txn->nsvcs_del--;
		if (op == TM_TXN_NEW && !committed) {
			lb->npending--;
			tm_lb_svc_put(svc);
			continue;
		}
		if (op == TM_TXN_SET && committed && svc->txn_changed) {
			/* Published: its readers finish first. */
			old = svc->txn_tab;
			svc->txn_tab = NULL;
			tm_lb_tab_free(old, true);
		}
		tm_lb_svc_txn_forget(svc);
		if (op == TM_TXN_DEL && committed) {
			tm_lb_notify(net, svc, NULL, TM_CMD_LB_SERVICE_DEL,
				     tm_net_changed(tn));
			list_add_tail(&svc->txn_node, &gone);
		}
	}
	tm_lb_svcs_gone(net, lb, &gone);
}
