// SPDX-License-Identifier: GPL-2.0
/*
 * Connection-acceptance SIDs, the server side of SRv6 load balancing: the
 * SIDs bound to the module in a namespace (struct tm_sid), the connections
 * they accepted (struct tm_sflow), and the namespace's IPv6 LOCAL_IN and
 * LOCAL_OUT hooks.  The decision itself is accept.c's, the replies that
 * report to the load balancer reply.c's.
 *
 * A SID is routed by the kernel's own seg6local End behaviour; with the
 * global static key nf_hooks_lwtunnel_enabled on, seg6_local_input() runs
 * the LOCAL_IN hooks before End, with the destination still the SID.  The
 * first SID bound anywhere switches the key on; nothing can switch it off
 * again (the kernel's sysctl answers EBUSY), which is why it is documented
 * for users: every seg6local packet then traverses netfilter.  Being global
 * state, it is switched on only for a caller with CAP_NET_ADMIN in the
 * initial user namespace: any other may bind SIDs (in a namespace it
 * administers) once the key is on, and gets -EPERM with an extack before.
 *
 * SIDs: a small hash under RCU, changed under tm_net.lock.  Connections: a
 * resizable hash table (rhashtable) keyed by client, VIP and ports, read
 * under RCU by the hook, changed under tm_sids.flock with BHs off (the
 * hook adds them in softirq context), each also on its SID's list so that
 * unbinding one visits no other, charged to the memory cgroup of whoever
 * bound the first SID.  A
 * connection counts towards its SID's conns while its TCP socket says it
 * is open (tm_sflow_age(): a FIN or RST anyone can send proves nothing),
 * or the server sent no FIN, and for its SID's syn timeout while its
 * handshake is under way; it is forgotten the close timeout after it
 * closed (so that the last ACKs still find it), when a handshake older
 * than the syn timeout has no request socket left, or after the idle
 * timeout without a packet when its socket is gone.  A UDP flow has no
 * socket that says it is over: it is remembered until the udp timeout
 * without a packet either way, and counts as long once its client sent
 * another datagram after the server answered (before, like a handshake,
 * the syn timeout).  Each SID has its own timeouts (struct
 * tm_sid_timeouts), which a new policy changes for the connections it has
 * too.  A delayed work ages them once
 * a second while the hook is on.
 */
#include <linux/netfilter_ipv6.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <net/inet6_hashtables.h>
#include <net/lwtunnel.h>
#include <net/tcp.h>

#include "netns.h"
#include "txn.h"
#include "netlink/genl.h"

static u32 tm_sid_hash(const struct in6_addr *a)
{
	return ipv6_addr_hash(a) % TM_SID_BUCKETS;
}

void tm_sids_init(struct tm_sids *s)
{
	unsigned int i;

	for (i = 0; i < TM_SID_BUCKETS; i++)
		INIT_HLIST_HEAD(&s->hash[i]);
	s->n = 0;
	s->hooked = false;
	s->flows_ready = false;
	s->nflows = 0;
	spin_lock_init(&s->flock);
}

struct tm_sid *tm_sid_find(const struct tm_sids *s, const struct in6_addr *a)
{
	struct tm_sid *sid;

	hlist_for_each_entry_rcu(sid, &s->hash[tm_sid_hash(a)], node,
				 true /* or tm_net.lock */)
		if (ipv6_addr_equal(&sid->addr, a))
			return sid;
	return NULL;
}

void tm_sid_count(struct tm_sid *sid, enum tm_sidc c)
{
	struct tm_sid_stats *st;

	/* Also called in process context (LOCAL_OUT): see tm_count(). */
	local_bh_disable();
	st = this_cpu_ptr(sid->stats);
	u64_stats_update_begin(&st->syncp);
	u64_stats_inc(&st->c[c]);
	u64_stats_update_end(&st->syncp);
	local_bh_enable();
}

void tm_sid_read(const struct tm_sid *sid, u64 *c)
{
	unsigned int start, i;
	int cpu;

	memset(c, 0, TM_SIDC_MAX * sizeof(*c));
	for_each_possible_cpu(cpu) {
		const struct tm_sid_stats *st = per_cpu_ptr(sid->stats, cpu);
		u64 v[TM_SIDC_MAX];

		do {
			start = u64_stats_fetch_begin(&st->syncp);
			for (i = 0; i < TM_SIDC_MAX; i++)
				v[i] = u64_stats_read(&st->c[i]);
		} while (u64_stats_fetch_retry(&st->syncp, start));
		for (i = 0; i < TM_SIDC_MAX; i++)
			c[i] += v[i];
	}
}

/* Hashed with the table's own random seed; it grows and shrinks. */
static const struct rhashtable_params tm_sflow_params = {
	.head_offset = offsetof(struct tm_sflow, node),
	.key_offset = offsetof(struct tm_sflow, key),
	.key_len = offsetofend(struct tm_sflow_key, proto),
	.automatic_shrinking = true,
};

/*
 * The @proto connection client:cport -> vip:vport, under RCU; NULL:
 * unknown.
 */
struct tm_sflow *tm_sflow_find(struct tm_sids *s, u8 proto,
			       const struct in6_addr *client,
			       const struct in6_addr *vip, __be16 cport,
			       __be16 vport)
{
	struct tm_sflow_key key = {
		.client = *client,
		.vip = *vip,
		.cport = cport,
		.vport = vport,
		.proto = proto,
	};

	/* Pairs with tm_sids_hook(): the table is initialized. */
	if (!smp_load_acquire(&s->flows_ready))
		return NULL;
	return rhashtable_lookup(&s->flows, &key, tm_sflow_params);
}

/*
 * A connection @sid accepted, from a SYN (or a UDP datagram) with SRH tag
 * @tag from load balancer @lb; NULL when out of memory or room.  That
 * packet alone names the load balancer the replies report to (see
 * tm_sflow_lb()).
 */
struct tm_sflow *tm_sflow_add(struct tm_sids *s, struct tm_sid *sid, u8 proto,
			      const struct in6_addr *client,
			      const struct in6_addr *vip, __be16 cport,
			      __be16 vport, u16 tag, const struct in6_addr *lb,
			      int dif)
{
	struct tm_sflow *f, *old;

	/* Charged to whoever bound the namespace's first SID. */
	f = tm_zalloc_charged(sizeof(*f), s->memcg);
	if (!f)
		return NULL;
	f->key.client = *client;
	f->key.vip = *vip;
	f->key.cport = cport;
	f->key.vport = vport;
	f->key.proto = proto;
	f->sid = sid;
	f->dif = dif;
	f->last = jiffies;
	f->born = f->last;
	spin_lock_init(&f->lock);
	if (tag == TM_SRLB_TAG_CONNECT || tag == TM_SRLB_TAG_DGRAM) {
		f->lb = *lb;
		__set_bit(TM_SFLOW_REPORT, &f->flags);
	} else if (tag == TM_SRLB_TAG_STEER) {
		/* A UDP flow again: the load balancer knows it already. */
		f->lb = *lb;
	}
	spin_lock_bh(&s->flock);
	/*
	 * The hook may have found @sid just before it was unbound: once
	 * tm_sid_del() marked it dead (under this lock, before it flushed),
	 * nothing may point to it any more.
	 */
	if (!s->flows_ready || sid->dead || s->nflows >= TM_SID_MAX_FLOWS)
		goto out;
	/* Another CPU's copy of the SYN may have been first. */
	old = rhashtable_lookup_get_insert_fast(&s->flows, &f->node,
						tm_sflow_params);
	if (old) {
		spin_unlock_bh(&s->flock);
		kfree(f);
		return IS_ERR(old) ? NULL : old;
	}
	list_add_tail(&f->sid_node, &sid->flows);
	s->nflows++;
	atomic_inc(&sid->conns);
	spin_unlock_bh(&s->flock);
	return f;

out:
	spin_unlock_bh(&s->flock);
	kfree(f);
	return NULL;
}

/*
 * A packet of @f went by.  A client's FIN or RST (@check) proves nothing,
 * anyone can send one: the aging asks the connection's socket whether it
 * really ended (tm_sflow_age()).
 */
void tm_sflow_seen(struct tm_sflow *f, bool check)
{
	unsigned long now = jiffies;

	/* Not a store per packet: the line is shared by every CPU. */
	if (READ_ONCE(f->last) != now)
		WRITE_ONCE(f->last, now);
	if (check && !test_bit(TM_SFLOW_CHECK, &f->flags))
		set_bit(TM_SFLOW_CHECK, &f->flags);
}

/*
 * @f counts towards its SID's conns (@counted) or not.  Under f->lock,
 * so that a connection that closes meanwhile is never counted again.
 */
static void tm_sflow_count(struct tm_sflow *f, bool counted)
{
	spin_lock_bh(&f->lock);
	if (!counted && !test_bit(TM_SFLOW_UNCOUNTED, &f->flags)) {
		set_bit(TM_SFLOW_UNCOUNTED, &f->flags);
		atomic_dec(&f->sid->conns);
	} else if (counted && test_bit(TM_SFLOW_UNCOUNTED, &f->flags) &&
		   !test_bit(TM_SFLOW_CLOSING, &f->flags)) {
		clear_bit(TM_SFLOW_UNCOUNTED, &f->flags);
		atomic_inc(&f->sid->conns);
	}
	spin_unlock_bh(&f->lock);
}

/* The server replied on the UDP flow @f. */
void tm_sflow_answered(struct tm_sflow *f)
{
	/* Not a store per packet: the line is shared by every CPU. */
	if (!test_bit(TM_SFLOW_ANSWERED, &f->flags))
		set_bit(TM_SFLOW_ANSWERED, &f->flags);
}

/*
 * A datagram of the UDP flow @f from its client: once the server answered
 * it, the flow counts towards its SID's conns until it goes idle (no
 * longer only the syn timeout), however the datagram came (steered, or
 * hunting again because the load balancer forgot the flow).
 */
void tm_sflow_confirm(struct tm_sflow *f)
{
	if (test_bit(TM_SFLOW_EST, &f->flags) ||
	    !test_bit(TM_SFLOW_ANSWERED, &f->flags))
		return;
	set_bit(TM_SFLOW_EST, &f->flags);
	tm_sflow_count(f, true);
}

/* @f ended: it no longer counts towards its SID's conns. */
void tm_sflow_close(struct tm_sflow *f)
{
	if (test_bit(TM_SFLOW_CLOSING, &f->flags))
		return;
	spin_lock_bh(&f->lock);
	set_bit(TM_SFLOW_CLOSING, &f->flags);
	spin_unlock_bh(&f->lock);
	tm_sflow_count(f, false);
}

/*
 * The TCP socket of @f (a reference: sock_gen_put()), NULL when there is
 * none: the full socket, the request socket of a SYN_RECV connection or
 * the TIME_WAIT one.  Under RCU.
 */
static struct sock *tm_sflow_sock(struct net *net, const struct tm_sflow *f)
{
	return __inet6_lookup_established(net, net->ipv4.tcp_death_row.hashinfo,
					  &f->key.client, f->key.cport, &f->key.vip,
					  ntohs(f->key.vport), f->dif, 0);
}

/*
 * @th, a client segment of @f, is acceptable to the server's socket: its
 * sequence number within the receive window, its ACK of data sent.  An
 * off-path sender does not know both.
 */
static bool tm_sflow_in_window(struct net *net, const struct tm_sflow *f,
			       const struct tcphdr *th)
{
	u32 seq = ntohl(th->seq), ack = ntohl(th->ack_seq);
	const struct tcp_sock *tp;
	u32 rcv_nxt, wnd;
	struct sock *sk;
	bool ok = false;

	if (!th->ack || th->syn || th->rst)
		return false;
	rcu_read_lock();
	sk = tm_sflow_sock(net, f);
	if (sk && sk_fullsock(sk) && sk->sk_state != TCP_CLOSE) {
		tp = tcp_sk(sk);
		rcv_nxt = READ_ONCE(tp->rcv_nxt);
		wnd = max(READ_ONCE(tp->rcv_wnd), 1U);
		ok = !before(seq, rcv_nxt - wnd) && !after(seq, rcv_nxt + wnd) &&
		     !before(ack, READ_ONCE(tp->snd_una)) &&
		     !after(ack, READ_ONCE(tp->snd_nxt));
	}
	if (sk)
		sock_gen_put(sk);
	rcu_read_unlock();
	return ok;
}

/*
 * A packet of the known connection @f (TCP segment @th; NULL for UDP)
 * came with SRH tag @tag from load balancer @lb.  The load balancer the
 * replies report to is the one whose CONNECT (or DGRAM) hunt created @f:
 * a hunt from it makes the replies report again (it lost the flow, e.g.
 * restarted), a STEER from it shows it knows the server.  Anyone can put
 * another address in segments[1]: a RECOVER from another load balancer
 * (the flow moved to it, e.g. by ECMP) takes over the reports only with a
 * segment the connection's socket accepts (tm_sflow_in_window()); a
 * CONNECT never does, nor anything of a UDP flow, which has no sequence
 * numbers to prove it.
 */
void tm_sflow_lb(struct net *net, struct tm_sflow *f, u16 tag,
		 const struct in6_addr *lb, const struct tcphdr *th)
{
	bool same;

	spin_lock(&f->lock);
	same = ipv6_addr_equal(&f->lb, lb);
	spin_unlock(&f->lock);
	switch (tag) {
	case TM_SRLB_TAG_RECOVER:
		if (!same) {
			if (!th || !tm_sflow_in_window(net, f, th))
				return;
			spin_lock(&f->lock);
			f->lb = *lb;
			spin_unlock(&f->lock);
		}
		if (!test_bit(TM_SFLOW_REPORT, &f->flags))
			set_bit(TM_SFLOW_REPORT, &f->flags);
		break;
	case TM_SRLB_TAG_CONNECT:
	case TM_SRLB_TAG_DGRAM:
		if (same && !test_bit(TM_SFLOW_REPORT, &f->flags))
			set_bit(TM_SFLOW_REPORT, &f->flags);
		break;
	case TM_SRLB_TAG_STEER:
		if (same && test_bit(TM_SFLOW_REPORT, &f->flags))
			clear_bit(TM_SFLOW_REPORT, &f->flags);
		break;
	}
}

/* Forget @f; the caller holds flock. */
static void tm_sflow_unlink(struct tm_sids *s, struct tm_sflow *f)
{
	lockdep_assert_held(&s->flock);
	tm_sflow_close(f);
	set_bit(TM_SFLOW_GONE, &f->flags);
	WARN_ON_ONCE(rhashtable_remove_fast(&s->flows, &f->node,
					    tm_sflow_params));
	list_del(&f->sid_node);
	s->nflows--;
	kfree_rcu(f, rcu);
}

enum tm_sk_state { TM_SK_NONE, TM_SK_HALF_OPEN, TM_SK_OPEN, TM_SK_CLOSING };

/* What the TCP socket of @f says of the connection. */
static enum tm_sk_state tm_sflow_sk_state(struct net *net,
					  const struct tm_sflow *f)
{
	enum tm_sk_state st = TM_SK_NONE;
	struct sock *sk;

	rcu_read_lock();
	sk = tm_sflow_sock(net, f);
	if (sk) {
		switch (READ_ONCE(sk->sk_state)) {
		case TCP_NEW_SYN_RECV:
			st = TM_SK_HALF_OPEN;
			break;
		case TCP_SYN_RECV:	/* a Fast Open child: data flows */
		case TCP_ESTABLISHED:
			st = TM_SK_OPEN;
			break;
		default:		/* FIN seen or sent, TIME_WAIT, closed */
			st = TM_SK_CLOSING;
			break;
		}
		sock_gen_put(sk);
	}
	rcu_read_unlock();
	return st;
}

/*
 * A hunting SYN (CONNECT) came for @f's addresses and ports.  When @f's
 * socket is gone or in TIME_WAIT (which takes a new SYN), it is a new
 * connection from a port the client used again: @f is forgotten, and
 * true, so that the SYN is decided like any other.  A retransmitted SYN
 * finds its request socket, and a stray one its connection's: false.
 */
bool tm_sflow_reused(struct net *net, struct tm_sids *s, struct tm_sflow *f)
{
	struct sock *sk;
	bool over;

	rcu_read_lock();
	sk = tm_sflow_sock(net, f);
	over = !sk || READ_ONCE(sk->sk_state) == TCP_TIME_WAIT ||
	       READ_ONCE(sk->sk_state) == TCP_CLOSE;
	if (sk)
		sock_gen_put(sk);
	rcu_read_unlock();
	if (!over)
		return false;
	spin_lock_bh(&s->flock);
	if (!test_bit(TM_SFLOW_GONE, &f->flags))
		tm_sflow_unlink(s, f);
	spin_unlock_bh(&s->flock);
	return true;
}

/*
 * Age @f (under flock); true when it is to be forgotten.
 * The count follows the TCP socket, not the packets that claim to end
 * the connection:
 *   - half open (no established socket seen yet): no longer counted
 *     once the syn timeout old, so that the SYNs of a flood nobody
 *     completes count only that long, but kept while the server's
 *     request socket retransmits its SYN-ACK (a slow or lossy client
 *     may still complete it, and then counts again), unless the table
 *     is half full (a flood: room for new connections comes first);
 *   - established, or a client FIN or RST went by: the socket decides;
 *     gone, or past ESTABLISHED (the client's FIN accepted, or the
 *     server's), the connection no longer counts;
 *   - closing: forgotten the close timeout after its last packet;
 *   - idle for the idle timeout: forgotten unless its socket is still
 *     open;
 *   - UDP: forgotten after the udp timeout without a packet; until its
 *     client sent a datagram after the server's answer (anyone can send
 *     one from any address), counted only the syn timeout and forgotten
 *     first, as a half-open connection.
 * The timeouts are @f's SID's, which lives as long as @f is linked.
 */
static bool tm_sflow_age(struct tm_sids *s, struct tm_sflow *f,
			 unsigned long now)
{
	unsigned long last = READ_ONCE(f->last);
	/* A packet may have stamped @f after @now was read. */
	unsigned long idle = time_after(last, now) ? 0 : now - last;
	bool check = test_bit(TM_SFLOW_CHECK, &f->flags);
	bool est = test_bit(TM_SFLOW_EST, &f->flags);
	const struct tm_sid_timeouts *to = &f->sid->to;
	unsigned long syn = READ_ONCE(to->syn) * HZ;
	unsigned long tout;
	enum tm_sk_state st;

	if (f->key.proto == IPPROTO_UDP) {
		if (idle >= READ_ONCE(to->udp) * HZ)
			return true;
		if (est || now - f->born < syn)
			return false;
		tm_sflow_count(f, false);
		return s->nflows >= TM_SID_MAX_FLOWS / 2;
	}
	if (test_bit(TM_SFLOW_CLOSING, &f->flags))
		return idle >= READ_ONCE(to->close) * HZ;
	tout = READ_ONCE(to->idle) * HZ;
	if (est && !check && idle < tout)
		return false;
	st = tm_sflow_sk_state(s->net, f);
	switch (st) {
	case TM_SK_OPEN:
		if (!est) {
			set_bit(TM_SFLOW_EST, &f->flags);
			tm_sflow_count(f, true);
		}
		/* A RST still on its way to the socket: look again. */
		if (check && idle >= HZ)
			clear_bit(TM_SFLOW_CHECK, &f->flags);
		if (idle >= tout)
			WRITE_ONCE(f->last, now);
		return false;
	case TM_SK_CLOSING:
		tm_sflow_close(f);
		return false;
	case TM_SK_HALF_OPEN:
	case TM_SK_NONE:
		if (est) {
			/* The established socket is gone. */
			tm_sflow_close(f);
			return false;
		}
		if (now - f->born < syn)
			return false;
		tm_sflow_count(f, false);
		return st == TM_SK_NONE || s->nflows >= TM_SID_MAX_FLOWS / 2;
	}
	return false;
}

/*
 * Forget the connections @sid accepted, in batches under flock, the CPU
 * given up between them (up to TM_SID_MAX_FLOWS); @sid is dead: it gets
 * no new one.
 */
static void tm_sflow_flush(struct tm_sids *s, struct tm_sid *sid)
{
	struct tm_sflow *f;
	unsigned int i;

	do {
		spin_lock_bh(&s->flock);
		for (i = 0; i < 256; i++) {
			f = list_first_entry_or_null(&sid->flows,
						     struct tm_sflow, sid_node);
			if (!f)
				break;
			tm_sflow_unlink(s, f);
		}
		spin_unlock_bh(&s->flock);
		cond_resched();
	} while (f);
}

/*
 * Age connection @obj of @arg's table under flock.  The time is read
 * under flock for each: a walk of many takes long, and a connection is
 * added under flock, so none is younger than that.
 */
static void tm_sflow_age_one(void *obj, void *arg)
{
	struct tm_sflow *f = obj;
	struct tm_sids *s = arg;

	spin_lock_bh(&s->flock);
	if (!test_bit(TM_SFLOW_GONE, &f->flags) && tm_sflow_age(s, f, jiffies))
		tm_sflow_unlink(s, f);
	spin_unlock_bh(&s->flock);
}

/* Age the connections once a second. */
static void tm_sflow_gc(struct work_struct *work)
{
	struct tm_sids *s = container_of(to_delayed_work(work), struct tm_sids,
					 gc);

	tm_flows_walk(&s->flows, tm_sflow_age_one, s);
	schedule_delayed_work(&s->gc, HZ);
}

/* The first SID of the namespace: the connection table and the hook. */
static int tm_sids_hook(struct net *net, struct tm_sids *s,
			struct netlink_ext_ack *extack)
{
	int err;

	if (!s->flows_ready) {
		err = rhashtable_init(&s->flows, &tm_sflow_params);
		if (err)
			return err;
		/* Pairs with tm_sflow_find(). */
		smp_store_release(&s->flows_ready, true);
	}
	s->net = net;
	s->memcg = tm_memcg_owner();
	s->ops[0] = (struct nf_hook_ops){
		.hook = tm_accept_hook,
		.pf = NFPROTO_IPV6,
		.hooknum = NF_INET_LOCAL_IN,
		/* Before the filter chains: they see the VIP, not the SID. */
		.priority = NF_IP6_PRI_MANGLE,
	};
	s->ops[1] = (struct nf_hook_ops){
		.hook = tm_reply_hook,
		.pf = NFPROTO_IPV6,
		.hooknum = NF_INET_LOCAL_OUT,
		/* After the filter chains: they see the reply to the client. */
		.priority = NF_IP6_PRI_LAST - 1,
	};
	err = nf_register_net_hooks(net, s->ops, ARRAY_SIZE(s->ops));
	if (err) {
		NL_SET_ERR_MSG(extack, "Cannot register the IPv6 hooks");
		tm_memcg_put(s->memcg);
		s->memcg = NULL;
		return err;
	}
	/* Global and for good: see the comment at the top. */
	static_branch_enable(&nf_hooks_lwtunnel_enabled);
	INIT_DELAYED_WORK(&s->gc, tm_sflow_gc);
	schedule_delayed_work(&s->gc, HZ);
	s->hooked = true;
	return 0;
}

/*
 * The last SID went, and each one forgot its connections (dead, it gets
 * no new one).  The hooks may still run for a grace period after
 * nf_unregister_net_hooks() and allocate with s->memcg: it is let go
 * after one.  The empty table stays until the namespace goes.
 */
static void tm_sids_unhook(struct net *net, struct tm_sids *s)
{
	if (!s->hooked)
		return;
	nf_unregister_net_hooks(net, s->ops, ARRAY_SIZE(s->ops));
	cancel_delayed_work_sync(&s->gc);
	WARN_ON_ONCE(s->nflows);
	synchronize_rcu();
	tm_memcg_put(s->memcg);
	s->memcg = NULL;
	s->hooked = false;
}

static void tm_sid_free_rcu(struct rcu_head *head)
{
	struct tm_sid *sid = container_of(head, struct tm_sid, rcu);

	free_percpu(sid->stats);
	kfree(sid);
}

/*
 * The SID @a as transaction @txn sees it, or as everyone does when @txn is
 * NULL: a SID @txn binds is there, one it unbinds is gone, and one another
 * transaction binds is nobody else's until that commits.
 */
struct tm_sid *tm_sid_find_txn(struct tm_net *tn, const struct in6_addr *a,
			       const struct tm_txn *txn)
{
	struct tm_sid *sid = tm_sid_find(&tn->sids, a);

	lockdep_assert_held(&tn->lock);
	if (sid)
		return txn && sid->txn == txn && sid->txn_op == TM_TXN_DEL ?
		       NULL : sid;
	if (txn)
		list_for_each_entry(sid, &txn->sids, txn_node)
			if (sid->txn_op == TM_TXN_NEW &&
			    ipv6_addr_equal(&sid->addr, a))
				return sid;
	return NULL;
}

/* Another open transaction than @txn binds @a. */
static bool tm_sid_reserved(struct tm_net *tn, const struct in6_addr *a,
			    const struct tm_txn *txn)
{
	struct tm_txn *other;
	struct tm_sid *sid;

	list_for_each_entry(other, &tn->txns, node) {
		if (other == txn)
			continue;
		list_for_each_entry(sid, &other->sids, txn_node)
			if (sid->txn_op == TM_TXN_NEW &&
			    ipv6_addr_equal(&sid->addr, a))
				return true;
	}
	return false;
}

/*
 * @sid changes outside the transaction holding it: that transaction can no
 * longer commit (tm_txn_spoil()), and lets the SID go.
 */
static void tm_sid_txn_detach(struct tm_sid *sid)
{
	struct tm_txn *txn = sid->txn;

	if (!txn)
		return;
	list_del(&sid->txn_node);
	if (sid->txn_op == TM_TXN_DEL)
		txn->nsids_del--;
	sid->txn = NULL;
	sid->txn_op = TM_TXN_NONE;
	tm_txn_spoil(txn);
}

/* @sid joins @txn with @op, unless it is there already. */
static void tm_sid_txn_hold(struct tm_sid *sid, struct tm_txn *txn,
			    enum tm_txn_op op)
{
	if (!sid->txn)
		list_add_tail(&sid->txn_node, &txn->sids);
	sid->txn = txn;
	sid->txn_op = op;
}

static void tm_sid_txn_policy(struct tm_sid *sid, const struct tm_sid_cfg *cfg)
{
	sid->txn_policy = cfg->policy;
	sid->txn_threshold = cfg->threshold;
	sid->txn_hmac = cfg->hmac;
	sid->txn_to = cfg->to;
}

/* The aging reads them without a lock. */
static void tm_sid_set_timeouts(struct tm_sid *sid,
				const struct tm_sid_timeouts *to)
{
	WRITE_ONCE(sid->to.idle, to->idle);
	WRITE_ONCE(sid->to.close, to->close);
	WRITE_ONCE(sid->to.syn, to->syn);
	WRITE_ONCE(sid->to.udp, to->udp);
}

/*
 * The dyn policy's threshold once @sid has @policy and @threshold: from
 * the top for a SID new to the policy, else kept, within the new bounds.
 * Before the policy is published: the hook then reads a threshold in them.
 */
static void tm_sid_dyn_set(struct tm_sid *sid, u8 policy, u32 threshold)
{
	int top;

	if (policy != TM_SID_POLICY_DYN)
		return;
	/* The netlink request checked it: 1..TM_SID_DYN_MAX. */
	top = (int)(threshold << 16);
	if (READ_ONCE(sid->policy) != TM_SID_POLICY_DYN ||
	    atomic_read(&sid->dyn) > top)
		atomic_set(&sid->dyn, top);
}

/* A new policy for the bound (or @txn's) @sid. */
static int tm_sid_set(struct tm_sid *sid, const struct tm_sid_cfg *cfg,
		      struct tm_txn *txn, struct netlink_ext_ack *extack)
{
	if (!txn) {
		tm_sid_txn_detach(sid);
		/* The hook reads them without a lock: one or the other. */
		tm_sid_dyn_set(sid, cfg->policy, cfg->threshold);
		WRITE_ONCE(sid->threshold, cfg->threshold);
		WRITE_ONCE(sid->policy, cfg->policy);
		WRITE_ONCE(sid->hmac, cfg->hmac);
		tm_sid_set_timeouts(sid, &cfg->to);
		return 0;
	}
	if (sid->txn && sid->txn != txn) {
		NL_SET_ERR_MSG(extack,
			       "Another open transaction is changing this SID");
		return -EBUSY;
	}
	if (sid->txn_op == TM_TXN_NEW) {
		/* Nobody else sees it yet. */
		tm_sid_dyn_set(sid, cfg->policy, cfg->threshold);
		sid->policy = cfg->policy;
		sid->threshold = cfg->threshold;
		sid->hmac = cfg->hmac;
		sid->to = cfg->to;
		return 0;
	}
	tm_sid_txn_hold(sid, txn, TM_TXN_SET);
	tm_sid_txn_policy(sid, cfg);
	return 0;
}

/*
 * Bind a SID, or give a bound one a new policy (@replace); with @txn, at
 * its commit.  A SID @txn unbound and binds again stays the same binding,
 * with its connections and counters, and the new policy: a transaction
 * that replaces the whole configuration (flush ruleset, then the file)
 * keeps what it does not change.
 */
int tm_sid_add(struct net *net, struct tm_net *tn,
	       const struct tm_sid_cfg *cfg, bool replace, struct tm_txn *txn,
	       struct netlink_ext_ack *extack, struct tm_sid **out)
{
	struct tm_sids *s = &tn->sids;
	struct tm_sid *sid;
	int err, cpu;

	lockdep_assert_held(&tn->lock);
	sid = tm_sid_find_txn(tn, &cfg->addr, txn);
	if (!sid && replace) {
		NL_SET_ERR_MSG(extack, "No such SID bound in this namespace");
		return -ENOENT;
	}
	if (sid) {
		if (!replace) {
			NL_SET_ERR_MSG(extack,
				       "SID already bound (replace changes its policy)");
			return -EEXIST;
		}
		*out = sid;
		return tm_sid_set(sid, cfg, txn, extack);
	}
	if (tm_sid_reserved(tn, &cfg->addr, txn)) {
		NL_SET_ERR_MSG(extack,
			       "Another open transaction is binding this SID");
		return -EBUSY;
	}
	/* Unbound by @txn (it hides it): bound again, the same binding. */
	sid = txn ? tm_sid_find(s, &cfg->addr) : NULL;
	if (sid) {
		txn->nsids_del--;
		tm_sid_txn_hold(sid, txn, TM_TXN_SET);
		tm_sid_txn_policy(sid, cfg);
		*out = sid;
		return 0;
	}
	if (s->n + s->npending >=
	    TM_SID_MAX_PER_NET + (txn ? txn->nsids_del : 0)) {
		NL_SET_ERR_MSG(extack, "Too many SIDs in this namespace");
		return -ENOSPC;
	}
	/* The key only ever goes on: a stale "off" refuses, nothing worse. */
	if (!s->hooked && !cfg->global_ok &&
	    !static_key_enabled(&nf_hooks_lwtunnel_enabled)) {
		NL_SET_ERR_MSG(extack,
			       "The first SID switches the global nf_hooks_lwtunnel key on: needs CAP_NET_ADMIN in the initial user namespace");
		return -EPERM;
	}
	sid = kzalloc(sizeof(*sid), GFP_KERNEL_ACCOUNT);
	if (!sid)
		return -ENOMEM;
	sid->stats = alloc_percpu_gfp(struct tm_sid_stats, GFP_KERNEL_ACCOUNT);
	if (!sid->stats) {
		kfree(sid);
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(sid->stats, cpu)->syncp);
	sid->addr = cfg->addr;
	tm_sid_dyn_set(sid, cfg->policy, cfg->threshold);
	sid->policy = cfg->policy;
	sid->threshold = cfg->threshold;
	sid->hmac = cfg->hmac;
	sid->to = cfg->to;
	atomic_set(&sid->conns, 0);
	INIT_LIST_HEAD(&sid->flows);
	/* A transaction's SID hooks too: its commit must not fail. */
	if (!s->hooked) {
		err = tm_sids_hook(net, s, extack);
		if (err) {
			tm_sid_free_rcu(&sid->rcu);
			return err;
		}
	}
	*out = sid;
	if (txn) {
		tm_sid_txn_hold(sid, txn, TM_TXN_NEW);
		s->npending++;
		return 0;
	}
	hlist_add_head_rcu(&sid->node, &s->hash[tm_sid_hash(&sid->addr)]);
	s->n++;
	return 0;
}

/* No packet finds @sid any more; connections can no longer be added. */
static void tm_sid_unlink(struct tm_sids *s, struct tm_sid *sid)
{
	hlist_del_rcu(&sid->node);
	s->n--;
	/*
	 * A SYN that found @sid before hlist_del_rcu() may still be on its
	 * way to tm_sflow_add(): dead, under flock, it adds nothing once
	 * tm_sflow_flush() has begun, so no connection outlives
	 * @sid.
	 */
	spin_lock_bh(&s->flock);
	sid->dead = true;
	spin_unlock_bh(&s->flock);
}

/* The last SID went, and no transaction binds one: no hook. */
static void tm_sids_idle(struct net *net, struct tm_sids *s)
{
	if (!s->n && !s->npending)
		tm_sids_unhook(net, s);
}

/*
 * The unlinked SIDs on @gone (by txn_node) forget their connections, then
 * go.  With the last SID the hook goes, and every connection with it,
 * before any SID may be freed: a connection points to its SID.
 */
static void tm_sids_gone(struct net *net, struct tm_sids *s,
			 struct list_head *gone)
{
	struct tm_sid *sid, *tmp;

	list_for_each_entry(sid, gone, txn_node)
		tm_sflow_flush(s, sid);
	tm_sids_idle(net, s);
	list_for_each_entry_safe(sid, tmp, gone, txn_node) {
		list_del(&sid->txn_node);
		call_rcu(&sid->rcu, tm_sid_free_rcu);
	}
}

/*
 * Unbind @sid now, or at the commit of @txn.  One @txn bound goes at
 * once: no packet has seen it.
 */
int tm_sid_del(struct net *net, struct tm_net *tn, struct tm_sid *sid,
	       struct tm_txn *txn, struct netlink_ext_ack *extack)
{
	struct tm_sids *s = &tn->sids;

	lockdep_assert_held(&tn->lock);
	if (!txn) {
		LIST_HEAD(gone);

		tm_sid_txn_detach(sid);
		tm_sid_unlink(s, sid);
		list_add(&sid->txn_node, &gone);
		tm_sids_gone(net, s, &gone);
		return 0;
	}
	if (sid->txn && sid->txn != txn) {
		NL_SET_ERR_MSG(extack,
			       "Another open transaction is changing this SID");
		return -EBUSY;
	}
	if (sid->txn_op == TM_TXN_NEW) {
		list_del(&sid->txn_node);
		s->npending--;
		call_rcu(&sid->rcu, tm_sid_free_rcu);
		tm_sids_idle(net, s);
		return 0;
	}
	tm_sid_txn_hold(sid, txn, TM_TXN_DEL);
	txn->nsids_del++;
	return 0;
}

/*
 * Unbind every SID @txn sees, at its commit; with @dry, only find out
 * whether another transaction holds one (-EBUSY), changing nothing.
 */
int tm_sids_del_all(struct net *net, struct tm_net *tn, struct tm_txn *txn,
		    bool dry, struct netlink_ext_ack *extack)
{
	struct tm_sids *s = &tn->sids;
	struct tm_sid *sid, *tmp;
	unsigned int i;
	int err;

	lockdep_assert_held(&tn->lock);
	for (i = 0; i < TM_SID_BUCKETS; i++) {
		hlist_for_each_entry(sid, &s->hash[i], node) {
			if (!sid->txn || sid->txn == txn)
				continue;
			NL_SET_ERR_MSG(extack,
				       "Another open transaction is changing a SID");
			return -EBUSY;
		}
	}
	if (dry)
		return 0;
	list_for_each_entry_safe(sid, tmp, &txn->sids, txn_node)
		if (sid->txn_op == TM_TXN_NEW)
			tm_sid_del(net, tn, sid, txn, extack);
	for (i = 0; i < TM_SID_BUCKETS; i++) {
		hlist_for_each_entry(sid, &s->hash[i], node) {
			if (sid->txn_op == TM_TXN_DEL)
				continue;
			err = tm_sid_del(net, tn, sid, txn, extack);
			if (err)
				return err;
		}
	}
	return 0;
}

/*
 * The commit of @txn, with nothing in between that sleeps: its SIDs are
 * bound, given their policies, unbound.
 */
void tm_sid_txn_switch(struct tm_net *tn, struct tm_txn *txn)
{
	struct tm_sids *s = &tn->sids;
	struct tm_sid *sid;

	lockdep_assert_held(&tn->lock);
	list_for_each_entry(sid, &txn->sids, txn_node) {
		switch (sid->txn_op) {
		case TM_TXN_NEW:
			hlist_add_head_rcu(&sid->node,
					   &s->hash[tm_sid_hash(&sid->addr)]);
			s->n++;
			s->npending--;
			break;
		case TM_TXN_SET:
			sid->txn_changed = sid->policy != sid->txn_policy ||
					   sid->threshold != sid->txn_threshold ||
					   sid->hmac != sid->txn_hmac ||
					   memcmp(&sid->to, &sid->txn_to,
						  sizeof(sid->to));
			tm_sid_dyn_set(sid, sid->txn_policy,
				       sid->txn_threshold);
			WRITE_ONCE(sid->threshold, sid->txn_threshold);
			WRITE_ONCE(sid->policy, sid->txn_policy);
			WRITE_ONCE(sid->hmac, sid->txn_hmac);
			tm_sid_set_timeouts(sid, &sid->txn_to);
			break;
		case TM_TXN_DEL:
			tm_sid_unlink(s, sid);
			break;
		}
	}
}

/*
 * @txn ends.  Committed: its changes are announced, the SIDs it unbound
 * forget their connections and go.  Aborted: the SIDs it bound go, the
 * others stay as they are.
 */
void tm_sid_txn_end(struct net *net, struct tm_net *tn, struct tm_txn *txn,
		    bool committed)
{
	struct tm_sids *s = &tn->sids;
	struct tm_sid *sid, *tmp;
	LIST_HEAD(gone);
	u8 op;

	lockdep_assert_held(&tn->lock);
	list_for_each_entry_safe(sid, tmp, &txn->sids, txn_node) {
		op = sid->txn_op;
		list_del(&sid->txn_node);
		sid->txn = NULL;
		sid->txn_op = TM_TXN_NONE;
		if (!committed) {
			if (op == TM_TXN_NEW) {
				s->npending--;
				call_rcu(&sid->rcu, tm_sid_free_rcu);
			} else if (op == TM_TXN_DEL) {
				txn->nsids_del--;
			}
			continue;
		}
		if (op == TM_TXN_SET && !sid->txn_changed)
			continue;
		if (op == TM_TXN_DEL) {
			txn->nsids_del--;
			tm_sid_notify(net, sid, TM_CMD_SID_DEL,
				      tm_net_changed(tn));
			list_add_tail(&sid->txn_node, &gone);
			continue;
		}
		tm_sid_notify(net, sid, op == TM_TXN_NEW ? TM_CMD_SID_NEW :
				    TM_CMD_SID_SET, tm_net_changed(tn));
	}
	tm_sids_gone(net, s, &gone);
}

/* Namespace exit or module unload. */
void tm_sids_flush(struct net *net, struct tm_net *tn)
{
	struct tm_sids *s = &tn->sids;
	struct hlist_node *tmp;
	struct tm_sid *sid;
	unsigned int i;

	for (i = 0; i < TM_SID_BUCKETS; i++)
		hlist_for_each_entry_safe(sid, tmp, &s->hash[i], node)
			tm_sid_del(net, tn, sid, NULL, NULL);
	/* Unhooked after a grace period: no packet reads the table. */
	if (s->flows_ready) {
		rhashtable_destroy(&s->flows);
		s->flows_ready = false;
	}
}
