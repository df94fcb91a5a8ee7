// SPDX-License-Identifier: GPL-2.0
/*
 * Tuple engines: tuple space search (TSS) and TupleMerge, sharing one kind
 * of tuple (a hash table of rules), one lookup and one update path.  The
 * theory of operation below is copied into Documentation/classifier.rst by
 * tools/doc-sync.sh: run it after changing the comment.
 */

/**
 * DOC: Theory of operation
 *
 * Problem
 * -------
 * A rule matches a source prefix, a destination prefix, a source and a
 * destination port range and a protocol (exact or any), and optionally
 * extra fields: an input and an output interface, the packet's mark under
 * a mask, its DSCP, conntrack state and fragment kind (each a set of
 * values), and TCP flags under a mask.  Given a packet, find the matching
 * rule of lowest rank, rank = (priority, id), while rules are added and
 * removed at any rate and lookups never wait.
 *
 * Tuples and tuple space search
 * -----------------------------
 * A tuple names which bits of a packet a hash table looks at::
 *
 *	(source prefix length, destination prefix length,
 *	 source port exact?, destination port exact?, protocol exact?)
 *
 * and, as in the tuple space search literature, the word names the hash
 * table too: an engine keeps at most one per tuple and address family, and
 * calls it a tuple.  (Open vSwitch calls it a subtable; here "table" is
 * kept for the classification tables a user creates.)  A tuple T stores
 * each rule under the hash of the rule's fields masked to T, and is probed
 * with the hash of the packet masked the same way.  A rule *fits* T, and
 * may go in T, only if T looks at no bit the rule does not fix: the rule's
 * prefixes are at least as long as T's, and T hashes a port or the
 * protocol only if the rule has an exact value there.  Then every packet
 * the rule matches hashes to the rule's bucket, and a probe that finds the
 * bucket only has to check the few rules in it.
 *
 * TSS (as in Open vSwitch) puts every rule in the tuple of its own fields,
 * its exact tuple.  Lookups probe every tuple, so their cost grows with the
 * number of distinct exact tuples, which ClassBench sets push into the
 * hundreds.
 *
 * TupleMerge
 * ----------
 * TupleMerge (Daly, Bruschi, Linguaglossa, Pontarelli, Rossi, Tollet, Torng,
 * Yourtchenko: IEEE/ACM ToN 27(4), 2019) puts a rule in any tuple it fits,
 * so that rules of similar exact tuples merge into one tuple:
 *
 *   - Insertion: among the tuples the rule fits, take the most specific one
 *     (fewest shared buckets); between equals, one whose best rank the rule
 *     does not improve (see early exit below).  If it fits none, create a
 *     tuple from a *relaxed* copy of the rule's exact tuple, so that later
 *     rules of nearby lengths fit too: IPv4 /32 becomes /28, lengths 25-31
 *     lose 3 bits, 17-24 lose 2, 9-16 lose 1, shorter ones stay; IPv6
 *     lengths lose one eighth.  When one length is shorter than the other
 *     by more than tm_params.gap bits (default 0: whenever it is shorter),
 *     it is dropped to 0: such rules are told apart by their longer prefix,
 *     and the tuple takes rules of either shape.  By default a new tuple
 *     hashes no port and no protocol (tm_params.hash): a tuple hashing an
 *     exact port would turn away every rule with a port range.
 *   - Collision limit: relaxing makes rules share buckets.  When a bucket
 *     holds more than c rules (tm_params.collide, default 48), it is split:
 *     each way of making the tuple more specific (a longer source or
 *     destination prefix, one of the lengths present in the bucket; hashing
 *     a port or the protocol) is scored by the longest bucket it would leave
 *     behind, and so is each tuple there is that differs from this one in
 *     one prefix length only.  A tuple there is wins over a new one when it
 *     leaves no bucket over c: every tuple costs a probe to each lookup
 *     whose answer ranks after the tuple's best, and a new tuple made by a
 *     split starts with a best as early as the bucket's.  Without that
 *     rule, the buckets of a relaxed tuple that overflow one after the
 *     other (one source subnet's rules, then another's, with destination
 *     prefixes of every length) split each to a tuple of its own length:
 *     on ClassBench's acl2 100K set 45 tuples and 18.2 probes per lookup,
 *     34 and 13.9 with it.  Otherwise the way that leaves the shortest
 *     bucket wins.  If every rule of the tuple fits the chosen one, the
 *     whole tuple moves to it (one tuple stays one tuple); otherwise the
 *     rules of the bucket that fit it move to that tuple, found or created,
 *     but for the best ranked of them (tm_split_keep()): those that rank
 *     before the target's best stay, as many as fill half the room the
 *     bucket has left under c.  A lookup probes a tuple only when its
 *     answer ranks after the tuple's bound.  The tuple they stay in keeps
 *     its bound (they are in it already); the target's becomes the first
 *     mover's instead of the bucket's best, and the target is where later
 *     rules of its shape go (the most specific tuple they fit).  Moving
 *     every fitting rule gave each new tuple the bucket's best as its
 *     bound: on acl2 100K, whose best rules are spread over all the
 *     shapes, eight tuples then had a bound in the first 6.5 % of the
 *     ranks, each probed by almost every lookup (14.4 probes; 12.4 with
 *     the keep, 1.4-3 fewer on the five tmgen fw sets, up to 1.6 fewer on
 *     6 of the other 10, none more than 0.01).  Measured rather than
 *     proven: when the bucket's best is also its tuple's best, moving it
 *     would let that tuple's bound get later; keeping it still measured
 *     better (tmgen fw 10K seeds 1-3: 4.1, 5.0, 3.0 probes, against 5.0,
 *     7.3, 4.0 when such a split keeps nothing back).  A
 *     bucket no split can shorten (rules that differ only in port ranges)
 *     simply stays long: lookups remain correct, only slower.  Its slot
 *     remembers the size at which a split was last tried, and none is
 *     tried again before the bucket has doubled (tm_split_due()).
 *   - Merges: a rule goes to the most specific tuple it fits, and a new
 *     tuple is made only when none fits.  Rules inserted best first (a
 *     policy file) bring the specific shapes first: ClassBench's host
 *     pairs made a src/28 dst/28 tuple before the /22 tuples that could
 *     hold them came, and kept it, one more probe for almost every lookup;
 *     the same rules inserted in random order needed fewer (fw2 10K: 5
 *     tuples instead of 12).  So a tuple made for a new rule takes in each
 *     tuple it covers (which hashes every field it hashes, with prefixes
 *     no shorter: each of its rules fits) whose rules its buckets can hold
 *     with none over c / 2, counting those already there
 *     (tm_merge_into()): the rules move as in a split, the covered tuple
 *     empties and leaves.  Merges only happen when an insert makes a
 *     tuple; a merged tuple's rules may split out again later, one bucket
 *     at a time.  acl2 100K gains nothing (12.4 -> 13.0 probes: the tuple
 *     taking them in gets an early bound).  Measured on the shared 10K
 *     sets: tuples 19/13/11/12 -> 6/7/6/3 and probes 2.66/3.42/4.36/4.61
 *     -> 2.41/2.05/3.23/1.72 (acl1/fw1/ipc1/fw2); acl1 100K 21 -> 4
 *     tuples, 3.18 -> 1.00 probes.  The cost is the insert that makes the
 *     tuple: it moves the covered tuples' rules (building acl1 100K best
 *     first took 164 ms instead of 22).
 *
 *     Merges only run one way, into a new general tuple.  Rules inserted
 *     in random order make some general tuples early, which then take
 *     every later rule that fits, up to c per bucket: lookups compare
 *     many more bucket entries than after a best-first build (fw1 10K:
 *     30 against 3 per lookup) and probe up to 2.7 times the tuples
 *     (performance.rst, "The order rules come in").  Not solved yet.
 *
 *     These choices depart from the reference code (c = 10, ports hashed
 *     when exact, a 4-bit gap) because each lookup pays one probe per tuple
 *     whose best rule ranks before the answer: fewer, larger tuples with
 *     longer (rank-ordered) buckets need 2.7 / 3.4 / 4.4 probes on the
 *     ClassBench acl1 / fw1 / ipc1 10K sets, against 4.4 / 12.6 / 17.3 with
 *     the reference's parameters (tmbench -c 10 -g 4 -H sport,dport).
 *
 * Extra fields
 * ------------
 * No tuple hashes the extra fields (interfaces, mark, DSCP, conntrack
 * state, fragment, TCP flags): rules that differ only there share a
 * bucket.  The TCP flags and their mask fit in the padding of a bucket
 * entry, which checks them with the 5-tuple: in a firewall policy such
 * as ClassBench's fw sets more than half the rules have one ("SYN set,
 * ACK clear"), and reading their rule cost fw1 10 % of its lookup time.
 * For the others an entry carries a flag telling whether its rule has one
 * at all.  The entries of rules without one skip the check on one byte of
 * the entry's first cache line; the others read their rule (a second
 * cache line) and compare its extra fields with the packet's after every
 * other field matched.
 *
 * Why not hash them.  In a firewall policy they are few per rule and far
 * from exact: "ct state established,related" is two values, a DSCP or
 * fragment match is a set, TCP flags and marks are masked, and most rules
 * leave them out.  Hashing one would multiply the tuples by its shapes
 * (an exact-state tuple, an any-state one, ...) for every 5-tuple shape,
 * and a set rule would need one entry per value.  Left to the bucket, a
 * rule with extra fields costs what a rule without them does until its
 * 5-tuple matches, then one more cache line; a policy's usual first rule,
 * "ct state established,related accept" with no address, sits alone in
 * the all-wildcard tuple at the best rank and is checked by every lookup,
 * which then ends there for most packets of an established flow.
 *
 * Set rules
 * ---------
 * A rule with sets ("src { 10.0.0.0/8, 192.168.0.0/16 } dport { 22, 443 }")
 * is stored as the cross product of its sets, one entry per combination,
 * each a rule of its own to the engines: it goes in the tuple its
 * prefixes and ports fit, like any rule.  The alternative, one entry
 * holding the sets and checked in the bucket, would put the rule in a
 * tuple general enough for every value (the shortest prefix, no exact
 * port): where the values are exact (hosts, single ports, the common case)
 * that tuple is the all-wildcard one, probed by every lookup and holding a
 * chain of every such rule.  The cross product keeps lookups at the cost
 * of plain rules, and costs memory and update time in proportion to the
 * entries; the product is bounded (TM_RULE_ENTRIES_MAX), and a table's
 * max-rules counts entries.
 *
 * The entries of a rule share its rank, the only place where two entries
 * rank the same: whichever a lookup meets first is the rule's answer,
 * since they have one action.  The first entry is the rule to the id
 * index and holds the others (struct tm_rset); an insert or a replace
 * places the entries one step each, a delete removes them one step each.
 *
 * Lookup and early exit
 * ---------------------
 * Within a bucket the rules are sorted by rank, so the first one matching is
 * the bucket's answer.  The tuples of a family are kept in a list sorted by
 * the best rank they hold; a lookup walks the list and stops at the first
 * tuple whose best rank is no better than the best match found so far.
 * With ClassBench sets most lookups end after a few tuples.  Only a full
 * match (extra fields included) ends a bucket or improves the best rank: an
 * entry that fails on any field, if only on an extra one, lets the scan
 * go on to the next entry and the next tuples.
 *
 * A probe is kept to a few instructions, which is what a lookup costs once
 * its tuples are in the caches: the key's IPv4 addresses, ports and
 * protocol are packed into two u64s once per lookup (struct tm_hkey), so
 * that a tuple's hash is two ANDs, two multiplications and an add; an IPv4
 * entry tests both prefixes with one AND and one compare, and each port
 * range with one compare (lo and hi - lo).  Lookups do not prefetch: the
 * next tuple's slot, fetched ahead, measured no faster, since out-of-order
 * execution already overlaps independent probes and lookups.
 *
 * A bulk lookup (tm_cls_lookup_bulk()) walks the tuple list once for up
 * to 64 keys: at each tuple it hashes every key still looking and
 * prefetches its slot, then finds each key's bucket and prefetches it,
 * then scans the buckets, so that the cache misses of different keys
 * overlap however many of them one key's probe would wait for.  Each key
 * stops where its own lookup would.
 *
 * Updates and readers
 * -------------------
 * Lookups take no lock and run concurrently with one writer (see the
 * concurrency contract in tm_cls.h).  Everything a reader follows is
 * published with rcu_assign_pointer() or a release store, and freed after a
 * grace period:
 *
 *   - A bucket (struct tm_node) is immutable.  Adding or removing a rule
 *     builds a new bucket and swaps the pointer in its slot.
 *   - A tuple (struct tm_ttab) holds its rules in a hash table (struct
 *     tm_htab) with open addressing and linear probing.  Slots are keyed by
 *     the 32-bit hash alone: rules of keys that hash alike share a bucket,
 *     which costs nothing in correctness since every rule in a bucket is
 *     fully matched.  A new slot gets its bucket before its hash (release),
 *     so a reader that sees the hash sees the bucket.  An emptied slot keeps
 *     its hash with a NULL bucket, and is reused by the same hash or dropped
 *     when the hash table is rebuilt: a new slot that would leave more than
 *     half of the slots with a hash (emptied ones included) makes a new hash
 *     table instead, sized for the buckets in use.
 *   - The tuple list (struct tm_tlist), whose entries carry what a probe
 *     needs of each tuple, has a sorted part and a tail.  A tuple's entry
 *     changes when the tuple appears or disappears, gets a new hash table, or
 *     its best rank moves.  A best rank that keeps the sorted part in order
 *     (or is in the tail, which has none) is stored in place, one 64-bit
 *     store: a lookup sees the old bound or the new one; with an old better
 *     one it may look further, with an old worse one it may stop before the
 *     rule just published (the answer from before the insert).  Otherwise,
 *     while the tail has room (a list of 64 tuples or more has some: TSS;
 *     TupleMerge's lists are shorter, and copying them costs less than the
 *     tail would cost their lookups), a new tuple's entry is appended to it
 *     in place (written, then counted with a release store), and a changed
 *     tuple's new entry too, its old entry then dropped in place: its slot
 *     pointer cleared (release), its bound kept, so the sorted part stays
 *     sorted.  A lookup skips a dropped entry; one that saw the drop reads the
 *     tail's count after it (smp_rmb(), and an acquire on the tail's own
 *     entries) and so finds the new entry; one that did not may probe both,
 *     the same rules but the new one, the old answer or the new.  Lookups read
 *     the tail's bounds from a packed copy, and skip the tail when the least
 *     of them (lowered before an entry counts) cannot beat their match.  An
 *     emptied tuple's entry is dropped the same way.  When the tail is full
 *     (its room, about the square root of the tuples, counts entries appended
 *     and dropped), the list is copied and swapped, the tail merged into the
 *     sorted part and the dropped entries left out; the copy refreshes the
 *     changed tuple's entry only, so that a change reads one tuple however
 *     many there are (TSS has hundreds).  The writer keeps the bound each
 *     entry holds (lbest), which finds an entry by a binary search, or in the
 *     tail by a scan.
 *   - A delete never fails: when the smaller bucket cannot be allocated,
 *     the rule's entry is disabled in place (a flag set with one store) and
 *     dropped at the next change of the bucket; when the new tuple list
 *     cannot be, the list keeps an emptied tuple or a bound too good, and
 *     its next change rebuilds every entry from its tuple (f->stale).
 *     Every other change allocates all it needs first and changes nothing
 *     when an allocation fails.
 *   - A replace inserts the new rule before removing the old one: a lookup
 *     in between sees both and returns the answer of the rule set either
 *     before or after the replace.
 *   - A split moves rules between tuples, which no single store does: a
 *     lookup that took the tuple list before the new tuple was in it, or
 *     before the new tuple's latest hash table (it grows as rules come),
 *     and probes the old tuple after a rule left it would miss the rule.
 *     So a split is two steps for lookups (tm_write_next(), which makes a
 *     lookup that overlaps both run again): first every mover is put in
 *     the new tuple, publishing every list and hash table that needs; a
 *     mover is then in both tuples, the same rule with the same rank, and
 *     a lookup finds it in either.  Then the movers leave the old tuple.
 *     A lookup within the first step finds them in the old tuple; one
 *     within the second holds a list from after the first, in which the
 *     new tuple holds them all.  What precedes the first step in the same
 *     step (the insert of the new rule; for a nested split, the second
 *     step of the split before) leaves every rule in a tuple of any list a
 *     lookup may hold, and the first step only adds: no step is needed
 *     between them.  An allocation failure in the first step stops it: the
 *     movers added so far move, the others stay, and the insert that
 *     triggered the split stands.  A delete is one step: it takes one rule
 *     out of one tuple.
 *
 * Complexity
 * ----------
 * Lookup: O(tuples probed x (1 + rules in the bucket)), the number of tuples
 * being what TupleMerge keeps small, plus a bound check per tail entry
 * (O(sqrt(tuples)), none once a new list merged the tail).  Insert: O(tuples)
 * to choose a tuple (TSS: O(1), from an index of the tuples by their
 * fields), O(bucket) to rebuild a bucket (at most c rules but for buckets no
 * split shortens), amortised O(1) for hash table growth, plus, when a
 * tuple's entry changes and cannot in place, amortised O(sqrt(tuples)) for
 * the tuple list: one copy of O(tuples) entries per about sqrt(tuples) such
 * changes.  Choosing a split of a bucket of n rules looks for the tuples
 * there are that differ in one length (O(tuples)), then scores each distinct
 * candidate tuple once, O(n log n) each, at most 2 x 33 (IPv4) or 2 x 129
 * (IPv6) of them plus 3; since a bucket is tried again only once it has
 * doubled, that is amortised O(log n) per candidate and insert even for a
 * bucket no split shortens.  A whole-tuple move costs O(rules of the tuple),
 * which happens at most once per bit a tuple can gain.  Delete: O(bucket),
 * plus a scan of the tuple's rules when its best rule goes (expected O(1)
 * over random deletes).  Memory: per rule, a 120-byte rule record, a bucket
 * entry (48 bytes for IPv4, 96 for IPv6) and one or two words of the id
 * index; per bucket, a 24-byte header and at least two 16-byte slots (a hash
 * table is at most half used): about 200-270 bytes per rule in all on
 * ClassBench sets.
 */
#include "tm_internal.h"

/* What a tuple hashes: its prefix lengths and exact fields. */
struct tm_tuple {
	u8 slen, dlen;
	u8 sp, dp, pr;		/* 1: source port, dest port, proto hashed */
};

/*
 * A rule as stored in a bucket: its rank, what a lookup returns, and its
 * match fields.  The addresses follow: for IPv6, four words each of source,
 * source mask, destination and destination mask; for IPv4, the addresses
 * and their masks as two u64s laid out as tm_hkey.a, so that one AND and
 * one compare test both prefixes (see tm_ent_a64()).  The TCP flags and
 * their mask are the entry's too; the other extra fields (interfaces,
 * mark, DSCP, conntrack state, fragment) stay in the rule, which only
 * entries with TM_ENT_EXTRA read.
 */
struct tm_ent {
	u64 rank;
	const struct tm_rule *rule;
	u32 sports;		/* lo | (hi - lo) << 16 */
	u32 dports;
	u8 proto, pmask;
	u8 flags;		/* TM_ENT_* */
	u8 tcp_mask, tcp_flags;
	u32 a[];
};

/*
 * The flags and the TCP flags live in what was padding: an entry is no
 * bigger for them (tm_ent_size() rounds to 8 bytes either way).
 */
static_assert(sizeof(struct tm_ent) == 32, "tm_ent grew");

#define TM_ENT_EXTRA	0x01		/* an extra field but the TCP flags */
#define TM_ENT_OFF	0x02		/* disabled: matches nothing */

static __always_inline unsigned int tm_ent_size(unsigned int nw)
{
	/* 32 bytes of fields plus 16 per address word, 8-byte aligned. */
	return (sizeof(struct tm_ent) + 16 * nw + 7) & ~7u;
}

/* A bucket: the rules of one slot, best rank first.  Immutable. */
struct tm_node {
	struct rcu_head rcu;	/* freed with tm_retire() */
	u32 n;			/* entries, disabled ones included */
	u32 live;
	u8 ent[];		/* n entries of tm_ent_size(nw) bytes */
};

/* A slot of a hash table: one 16-byte load tells hit, miss or go on. */
struct tm_slot {
	u32 hash;		/* 0: free */
	u32 tried;		/* writer: see tm_split_due() */
	struct tm_node __rcu *node;	/* NULL: emptied, hash kept */
};

/* A hash table: mask + 1 slots. */
struct tm_htab {
	struct rcu_head rcu;	/* freed with tm_retire() */
	u32 mask;
	u32 used;		/* slots with a hash */
	u32 live;		/* slots with a bucket */
	u32 shift;		/* 32 - log2(slots): hash >> shift is a slot */
	struct tm_slot slot[];
};

/*
 * A tuple, as the writer sees it: its fields, their masks, its hash table
 * (replaced as it grows) and its rules.  Lookups use its copy in the list.
 */
struct tm_ttab {
	struct rcu_head rcu;	/* freed with tm_retire() */
	struct tm_htab *htab;
	u32 smask[4], dmask[4];
	u32 pmask;		/* source port mask << 16 | dest port mask */
	u32 prmask;
	struct tm_tuple tu;
	bool kept;		/* see tm_tlist_swap() */
	u32 nrules;
	u64 best;		/* best rank held; U64_MAX when empty */
	u64 lbest;		/* the bound its list entry holds */
	struct tm_rrec *rules;	/* the tuple's rules */
};

/*
 * A tuple as lookups see it: everything a probe needs in the one list
 * entry, so that a probe touches the list, one slot and (on a hit) one
 * bucket.  IPv6 masks are made from the lengths.
 */
struct tm_tle {
	u64 best;		/* never worse than ttab->best */
	const struct tm_slot *slot;
	u64 amask;		/* IPv4 addresses, as in tm_hkey.a */
	u64 xmask;		/* ports and protocol, as in tm_hkey.x */
	u32 hmask;		/* slots - 1 */
	u8 slen, dlen, hshift;	/* hshift: 32 - log2(slots) */
	struct tm_ttab *ttab;	/* writer */
};

/*
 * The fields of a key that every probe hashes, packed once per lookup so
 * that a probe masks them with two ANDs: @a holds the IPv4 source and
 * destination (IPv6 addresses are masked word by word from the lengths),
 * @x the ports and the protocol.
 */
struct tm_hkey {
	u64 a;			/* source << 32 | destination (IPv4) */
	u64 x;			/* sport << 24 | dport << 8 | proto */
};

/*
 * The tuple list: @n entries sorted by bound, then @tail more in the order
 * the tuples came (the tail), with room for @room; after those, the least
 * of the tail's bounds (never above it, tm_tlist_tmin()) and the tail
 * entries' bounds, packed (tm_tlist_tb()), so that a lookup checks them in
 * a few cache lines, or in one when no tail entry can beat its match.  See
 * "Updates and readers" above.
 */
struct tm_tlist {
	struct rcu_head rcu;	/* freed with tm_retire() */
	u32 n;			/* sorted entries */
	u16 tail;		/* entries after them: raised with release */
	u8 room;		/* tail entries allocated (TM_TAIL_MAX) */
	u8 dead;		/* writer: entries replaced (tm_tle_kill()) */
	struct tm_tle e[];
};

/*
 * The entries start 24 bytes in, where they always have: at 32, lookups of
 * IPv6 TSS measured 4-14 % slower (where the 48-byte entries straddle
 * cache lines).
 */
static_assert(sizeof(struct tm_tlist) == 24, "tm_tlist header grew");

/* No tail entry of @tl has a bound below this one. */
static __always_inline u64 *tm_tlist_tmin(const struct tm_tlist *tl)
{
	return (u64 *)&tl->e[tl->n + tl->room];
}

/* The bounds of @tl's tail entries, which lookups read (not theirs). */
static __always_inline u64 *tm_tlist_tb(const struct tm_tlist *tl)
{
	return tm_tlist_tmin(tl) + 1;
}

#define TM_RANK_NONE	(~0ULL)
#define TM_HTAB_MIN	8	/* slots of a new hash table */
#define TM_SPLIT_DEPTH	4	/* nested splits one insert may trigger */
#define TM_TAIL_MAX	64	/* room of a tuple list's tail, at most */
#define TM_TAIL_FROM	64	/* tuples from which a list has a tail */

static __always_inline struct tm_ent *tm_node_ent(const struct tm_node *n,
						  unsigned int i,
						  unsigned int nw)
{
	return (struct tm_ent *)(n->ent + i * tm_ent_size(nw));
}

static bool tm_sport_exact(const struct tm_rule *r)
{
	return r->sport_lo == r->sport_hi;
}

static bool tm_dport_exact(const struct tm_rule *r)
{
	return r->dport_lo == r->dport_hi;
}

/*
 * Hashing: a sum of 64-bit products (multiplicative hashing), whose high
 * bits depend on every input bit.  The hash is the top 32 bits, and a hash
 * table of 2^k slots indexes with the top k bits of the hash.
 */
#define TM_K1	0x9e3779b97f4a7c15ULL
#define TM_K2	0xc2b2ae3d27d4eb4fULL
#define TM_K3	0x165667b19e3779f9ULL
#define TM_K4	0xd6e8feb86659fd93ULL
#define TM_K5	0xff51afd7ed558ccdULL

static __always_inline void tm_hkey_make(struct tm_hkey *hk,
					 const struct tm_key *k)
{
	hk->a = (u64)k->src.w[0] << 32 | k->dst.w[0];
	hk->x = (u64)k->sport << 24 | (u32)k->dport << 8 | k->proto;
}

/* Hash of @k masked to the tuple of @e.  Never 0 (a free slot). */
static __always_inline u32 tm_hash_key(const struct tm_tle *e,
				       const struct tm_key *k,
				       const struct tm_hkey *hk, u32 seed,
				       const unsigned int nw)
{
	u32 s[4], d[4];
	unsigned int i;
	u64 x;

	if (nw == 1) {
		x = ((hk->a & e->amask) ^ seed) * TM_K1;
	} else {
		for (i = 0; i < nw; i++) {
			s[i] = k->src.w[i] & tm_mask_word(e->slen, i);
			d[i] = k->dst.w[i] & tm_mask_word(e->dlen, i);
		}
		x = (((u64)s[0] << 32 | s[1]) ^ seed) * TM_K1 +
		    ((u64)s[2] << 32 | s[3]) * TM_K3 +
		    ((u64)d[0] << 32 | d[1]) * TM_K4 +
		    ((u64)d[2] << 32 | d[3]) * TM_K5;
	}
	x += (hk->x & e->xmask) * TM_K2;
	return (u32)(x >> 32) | 1;
}

/* The masks of tuple @t as lookups see them, in its list entry @e. */
static void tm_tle_masks(struct tm_tle *e, const struct tm_ttab *t)
{
	e->amask = (u64)t->smask[0] << 32 | t->dmask[0];
	e->xmask = (u64)t->pmask << 8 | t->prmask;
	e->slen = t->tu.slen;
	e->dlen = t->tu.dlen;
}

/*
 * The hash of a rule in tuple @t: that of every packet it matches, computed
 * by the lookup's own code on a packet made of the rule's fixed bits, so
 * that writer and readers can never hash differently.
 */
static u32 tm_hash_rule(const struct tm_ttab *t, const struct tm_rule *r,
			u32 seed, unsigned int nw)
{
	struct tm_key k = {
		.src = r->src,
		.dst = r->dst,
		.sport = r->sport_lo,
		.dport = r->dport_lo,
		.proto = r->proto,
		.family = r->family,
	};
	struct tm_hkey hk;
	struct tm_tle e;

	tm_tle_masks(&e, t);
	tm_hkey_make(&hk, &k);
	if (nw == 1)
		return tm_hash_key(&e, &k, &hk, seed, 1);
	return tm_hash_key(&e, &k, &hk, seed, 4);
}

/*
 * An entry with flags whose other fields matched @k: a disabled one, whose
 * rule may be freed already, matches nothing; otherwise the extra fields
 * of its rule must admit @k.
 */
static bool tm_ent_slow(const struct tm_ent *e, const struct tm_key *k,
			u8 flags)
{
	if (flags & TM_ENT_OFF)
		return false;
	return tm_rule_extra_match(e->rule, k);
}

/* An extra field the entry cannot check on its own: all but TCP flags. */
static u8 tm_ent_flags(const struct tm_rule *r)
{
	struct tm_rule others = *r;

	others.tcp_flags_mask = 0;
	others.tcp_flags = 0;
	return tm_rule_has_extra(&others) ? TM_ENT_EXTRA : 0;
}

/* @port is in the range @r, lo | (hi - lo) << 16: one compare. */
static __always_inline bool tm_port_in(u16 port, u32 r)
{
	return (u16)(port - (u16)r) <= r >> 16;
}

/* IPv4 entries: u64 @i (0: addresses, 1: masks) of @e's words. */
static __always_inline u64 tm_ent_a64(const struct tm_ent *e, unsigned int i)
{
	u64 v;

	memcpy(&v, &e->a[2 * i], sizeof(v));
	return v;
}

static __always_inline void tm_ent_set_a64(struct tm_ent *e, unsigned int i,
					   u64 v)
{
	memcpy(&e->a[2 * i], &v, sizeof(v));
}

/*
 * The flags come last: the extra fields, and whether the entry is
 * disabled, only matter for an entry that matches on everything else.
 */
static __always_inline bool tm_ent_matches(const struct tm_ent *e,
					   const struct tm_key *k,
					   const struct tm_hkey *hk,
					   const unsigned int nw)
{
	const u32 *a = e->a;
	unsigned int i;
	u8 flags;

	if (nw == 1) {
		if ((hk->a & tm_ent_a64(e, 1)) != tm_ent_a64(e, 0))
			return false;
	} else {
		for (i = 0; i < nw; i++) {
			if ((k->src.w[i] & a[nw + i]) != a[i] ||
			    (k->dst.w[i] & a[3 * nw + i]) != a[2 * nw + i])
				return false;
		}
	}
	if (!tm_port_in(k->sport, e->sports) ||
	    !tm_port_in(k->dport, e->dports) ||
	    (k->proto & e->pmask) != e->proto ||
	    (k->tcp_flags & e->tcp_mask) != e->tcp_flags)
		return false;
	flags = READ_ONCE(e->flags);
	return likely(!flags) || tm_ent_slow(e, k, flags);
}

static __always_inline const struct tm_node *
tm_slot_find(const struct tm_slot *slot, u32 mask, u8 shift, u32 hash)
{
	u32 i = hash >> shift;

	for (;;) {
		/* Pairs with tm_ttab_add(): a hash seen, its bucket seen. */
		u32 x = smp_load_acquire(&slot[i].hash);

		if (x == hash)
			return rcu_dereference(slot[i].node);
		if (!x)
			return NULL;
		i = (i + 1) & mask;
	}
}

/*
 * Probe the tuple of @e, whose slots are @slot, for @k: a better match goes
 * in @best_rank and @best.
 */
static __always_inline void
tm_tle_probe(const struct tm_tle *e, const struct tm_slot *slot,
	     const struct tm_key *k, const struct tm_hkey *hk, u32 seed,
	     u64 *best_rank, const struct tm_rule **best, u32 *ents,
	     const unsigned int nw)
{
	u32 j, hash = tm_hash_key(e, k, hk, seed, nw);
	const struct tm_node *node;

	node = tm_slot_find(slot, e->hmask, e->hshift, hash);
	if (!node)
		return;
	/* In rank order: the first full match is the bucket's best. */
	for (j = 0; j < node->n; j++) {
		const struct tm_ent *ent = tm_node_ent(node, j, nw);

		if (ent->rank >= *best_rank)
			break;
		if (ents)
			(*ents)++;
		if (tm_ent_matches(ent, k, hk, nw)) {
			*best_rank = ent->rank;
			*best = ent->rule;
			break;
		}
	}
}

/*
 * The tail of @tl, after the sorted part left @best_rank and @best: each
 * entry whose bound beats the match so far is probed.  Out of line: inlined
 * beside the sorted part's probes it made the compiler keep an IPv6 key's
 * masked words on the stack, and TSS lookups 1.5x slower.
 */
static noinline void tm_tail_lookup(const struct tm_tlist *tl,
				    const struct tm_key *k,
				    const struct tm_hkey *hk, u32 seed,
				    u64 *best_rank, const struct tm_rule **best,
				    u32 *probes, u32 *ents, unsigned int nw)
{
	const u64 *tb = tm_tlist_tb(tl);
	u32 i;

	/* Pairs with tm_tlist_append(): an entry counted is written. */
	for (i = 0; i < smp_load_acquire(&tl->tail); i++) {
		const struct tm_tle *e = &tl->e[tl->n + i];
		const struct tm_slot *slot;

		if (READ_ONCE(tb[i]) >= *best_rank)
			continue;
		/* A replaced entry: the count read next is the new one's. */
		slot = smp_load_acquire(&e->slot);
		if (!slot)
			continue;
		if (probes)
			(*probes)++;
		tm_tle_probe(e, slot, k, hk, seed, best_rank, best, ents, nw);
	}
}

/*
 * The lookup; with @probes, the tuples probed are counted, and with @ents
 * (only with @probes) the bucket entries compared.
 */
static __always_inline const struct tm_rule *
tm_tuple_lookup(const struct tm_fam *f, const struct tm_key *k, u32 *probes,
		u32 *ents, const unsigned int nw)
{
	const struct tm_tlist *tl = rcu_dereference(f->tlist);
	const struct tm_rule *best = NULL;
	u64 best_rank = TM_RANK_NONE;
	u32 i, seed = f->seed;
	struct tm_hkey hk;

	tm_hook(TM_HOOK_LOOKUP_LIST, 0);
	if (!tl)
		return NULL;
	tm_hkey_make(&hk, k);
	for (i = 0; i < tl->n; i++) {
		const struct tm_tle *e = &tl->e[i];
		const struct tm_slot *slot;

		/* Set in place by tm_tle_set(). */
		if (READ_ONCE(e->best) >= best_rank)
			break;
		/* Replaced by an entry of the tail (tm_tle_kill()). */
		slot = READ_ONCE(e->slot);
		if (!slot)
			continue;
		if (probes)
			(*probes)++;
		tm_tle_probe(e, slot, k, &hk, seed, &best_rank, &best, ents, nw);
	}
	/*
	 * The tail, unsorted, unless the least of its bounds cannot beat the
	 * match (tm_tlist_tmin()).  The barrier pairs with tm_tle_kill(): a
	 * lookup that saw a sorted entry dropped reads a count of the tail
	 * that holds the entry replacing it, and a least bound below its.
	 */
	smp_rmb();
	if (READ_ONCE(*tm_tlist_tmin(tl)) < best_rank)
		tm_tail_lookup(tl, k, &hk, seed, &best_rank, &best, probes,
			       ents, nw);
	return best;
}

/*
 * Lookups that count get copies of their own: the others don't test.
 * Entries are counted only with probes (benchmarks).
 */
const struct tm_rule *tm_tuple_lookup4(const struct tm_fam *f,
				       const struct tm_key *key, u32 *probes,
				       u32 *entries)
{
	if (entries && probes)
		return tm_tuple_lookup(f, key, probes, entries, 1);
	if (probes)
		return tm_tuple_lookup(f, key, probes, NULL, 1);
	return tm_tuple_lookup(f, key, NULL, NULL, 1);
}

const struct tm_rule *tm_tuple_lookup6(const struct tm_fam *f,
				       const struct tm_key *key, u32 *probes,
				       u32 *entries)
{
	if (entries && probes)
		return tm_tuple_lookup(f, key, probes, entries, 4);
	if (probes)
		return tm_tuple_lookup(f, key, probes, NULL, 4);
	return tm_tuple_lookup(f, key, NULL, NULL, 4);
}

/* A key's state in a bulk lookup: the hash at a tuple, then its bucket. */
union tm_bulk_probe {
	u32 hash;
	const struct tm_node *node;
};

/*
 * One tuple's probes of a bulk lookup: of the keys @keys[@idx[@in[..]]],
 * those whose best match ranks after @e's @bound (their indexes, into @out,
 * which may be @in; their count returned) are hashed and their slots
 * fetched, then each finds its bucket and fetches its first entry, then
 * each scans its bucket.  The loads of one key's probe, which depend on
 * each other, overlap those of the other keys'.
 */
static __always_inline unsigned int
tm_tle_probe_bulk(const struct tm_tle *e, u64 bound, const struct tm_key *keys,
		  const u8 *idx, const u8 *in, unsigned int nin, u8 *out,
		  u64 *best_rank, union tm_bulk_probe *p,
		  const struct tm_rule **res, u32 seed, const unsigned int nw)
{
	const struct tm_slot *slot;
	unsigned int a, m;
	u32 j;

	/* As in tm_tuple_lookup(): a replaced entry is skipped. */
	slot = smp_load_acquire(&e->slot);
	for (a = 0, m = 0; a < nin; a++) {
		const struct tm_key *k = &keys[idx[in[a]]];
		unsigned int x = in[a];
		struct tm_hkey hk;
		u32 hash;

		if (bound >= best_rank[x])
			continue;
		out[m++] = x;
		if (!slot)
			continue;
		/* Packed again at each tuple: the stack stays small. */
		tm_hkey_make(&hk, k);
		hash = tm_hash_key(e, k, &hk, seed, nw);
		p[x].hash = hash;
		tm_prefetch(&slot[hash >> e->hshift]);
	}
	if (!slot)
		return m;
	/* Their buckets, fetched. */
	for (a = 0; a < m; a++) {
		unsigned int x = out[a];

		p[x].node = tm_slot_find(slot, e->hmask, e->hshift, p[x].hash);
		if (p[x].node)
			tm_prefetch(p[x].node->ent);
	}
	/* In rank order: the first full match is the bucket's best. */
	for (a = 0; a < m; a++) {
		const struct tm_key *k = &keys[idx[out[a]]];
		unsigned int x = out[a];
		const struct tm_node *nd = p[x].node;
		struct tm_hkey hk;

		if (!nd)
			continue;
		tm_hkey_make(&hk, k);
		for (j = 0; j < nd->n; j++) {
			const struct tm_ent *ent = tm_node_ent(nd, j, nw);

			if (ent->rank >= best_rank[x])
				break;
			if (tm_ent_matches(ent, k, &hk, nw)) {
				best_rank[x] = ent->rank;
				res[idx[x]] = ent->rule;
				break;
			}
		}
	}
	return m;
}

/*
 * The lookups of the keys @keys[@idx[0..@n - 1]] (n <= TM_LOOKUP_BULK_MAX),
 * into @res at the same indexes: the lookup above for each, interleaved.
 * The keys walk the tuple list together, each probing a tuple where its
 * own lookup would (tm_tle_probe_bulk()).  In the sorted part a key done
 * at a tuple is done with the rest; each tail entry is offered to every
 * key.
 */
static __always_inline void
tm_tuple_lookup_bulk(const struct tm_fam *f, const struct tm_key *keys,
		     const u8 *idx, unsigned int n, const struct tm_rule **res,
		     const unsigned int nw)
{
	const struct tm_tlist *tl = rcu_dereference(f->tlist);
	union tm_bulk_probe p[TM_LOOKUP_BULK_MAX];
	u64 best_rank[TM_LOOKUP_BULK_MAX];
	u8 act[TM_LOOKUP_BULK_MAX], some[TM_LOOKUP_BULK_MAX];
	unsigned int na = n, a;
	u32 i, seed = f->seed;
	const u64 *tb;

	tm_hook(TM_HOOK_LOOKUP_LIST, 0);
	for (a = 0; a < n; a++) {
		res[idx[a]] = NULL;
		best_rank[a] = TM_RANK_NONE;
		act[a] = a;
	}
	if (!tl)
		return;
	/* The list is in best rank order: a key done at a tuple is done. */
	for (i = 0; i < tl->n && na; i++)
		na = tm_tle_probe_bulk(&tl->e[i], READ_ONCE(tl->e[i].best), keys,
				       idx, act, na, act, best_rank, p, res,
				       seed, nw);
	/* Pairs with tm_tle_kill(), as in tm_tuple_lookup(). */
	smp_rmb();
	for (a = 0; a < n; a++)
		act[a] = a;
	tb = tm_tlist_tb(tl);
	/* Pairs with tm_tlist_append(): read again at each entry. */
	for (i = 0; i < smp_load_acquire(&tl->tail); i++)
		tm_tle_probe_bulk(&tl->e[tl->n + i], READ_ONCE(tb[i]), keys,
				  idx, act, n, some, best_rank, p, res, seed,
				  nw);
}

void tm_tuple_lookup_bulk4(const struct tm_fam *f, const struct tm_key *keys,
			   const u8 *idx, unsigned int n,
			   const struct tm_rule **res)
{
	tm_tuple_lookup_bulk(f, keys, idx, n, res, 1);
}

void tm_tuple_lookup_bulk6(const struct tm_fam *f, const struct tm_key *keys,
			   const u8 *idx, unsigned int n,
			   const struct tm_rule **res)
{
	tm_tuple_lookup_bulk(f, keys, idx, n, res, 4);
}

/* Writer side. */

static struct tm_tlist *tm_tlist_get(const struct tm_fam *f)
{
	return rcu_dereference_protected(f->tlist, 1);
}

static struct tm_htab *tm_htab_get(const struct tm_ttab *t)
{
	return t->htab;
}

static struct tm_node *tm_slot_node(const struct tm_htab *h, u32 i)
{
	return rcu_dereference_protected(h->slot[i].node, 1);
}

static void tm_ent_fill(struct tm_ent *e, const struct tm_rule *r,
			unsigned int nw)
{
	unsigned int i;

	e->rank = tm_rank(r);
	e->rule = r;
	e->sports = (u32)(r->sport_hi - r->sport_lo) << 16 | r->sport_lo;
	e->dports = (u32)(r->dport_hi - r->dport_lo) << 16 | r->dport_lo;
	e->proto = r->proto_any ? 0 : r->proto;
	e->pmask = r->proto_any ? 0 : 0xff;
	e->flags = tm_ent_flags(r);
	e->tcp_mask = r->tcp_flags_mask;
	e->tcp_flags = r->tcp_flags;
	if (nw == 1) {
		tm_ent_set_a64(e, 0, (u64)r->src.w[0] << 32 | r->dst.w[0]);
		tm_ent_set_a64(e, 1, (u64)tm_mask_word(r->src_len, 0) << 32 |
				     tm_mask_word(r->dst_len, 0));
		return;
	}
	for (i = 0; i < nw; i++) {
		e->a[i] = r->src.w[i];
		e->a[nw + i] = tm_mask_word(r->src_len, i);
		e->a[2 * nw + i] = r->dst.w[i];
		e->a[3 * nw + i] = tm_mask_word(r->dst_len, i);
	}
}

static struct tm_node *tm_node_alloc(u32 n, unsigned int nw)
{
	struct tm_node *node;

	node = tm_alloc(sizeof(*node) + n * tm_ent_size(nw));
	if (node) {
		node->n = n;
		node->live = n;
	}
	return node;
}

/*
 * A copy of @old (may be NULL) without its disabled entries and without
 * @drop, plus @add (may be NULL) in rank order.  NULL when the result would
 * be empty or on allocation failure (*nomem set).
 */
static struct tm_node *tm_node_rebuild(const struct tm_node *old,
				       const struct tm_rule *add,
				       const struct tm_rule *drop,
				       unsigned int nw, bool *nomem)
{
	unsigned int sz = tm_ent_size(nw);
	u32 i, j = 0, n = (old ? old->live : 0) + !!add - !!drop;
	u64 rank = add ? tm_rank(add) : 0;
	struct tm_node *node;
	bool added = !add;

	*nomem = false;
	if (!n)
		return NULL;
	node = tm_node_alloc(n, nw);
	if (!node) {
		*nomem = true;
		return NULL;
	}
	for (i = 0; old && i < old->n; i++) {
		const struct tm_ent *e = tm_node_ent(old, i, nw);

		if ((e->flags & TM_ENT_OFF) || e->rule == drop)
			continue;
		if (!added && rank < e->rank) {
			tm_ent_fill(tm_node_ent(node, j++, nw), add, nw);
			added = true;
		}
		memcpy(tm_node_ent(node, j++, nw), e, sz);
	}
	if (!added)
		tm_ent_fill(tm_node_ent(node, j++, nw), add, nw);
	return node;
}

static struct tm_htab *tm_htab_alloc(u32 cap)
{
	struct tm_htab *h;

	h = tm_vzalloc(sizeof(*h) + cap * sizeof(h->slot[0]));
	if (h) {
		h->mask = cap - 1;
		h->shift = 32;
		while (cap > 1) {
			cap >>= 1;
			h->shift--;
		}
	}
	return h;
}

/* Slot of @hash in @h, or the free slot where it would go. */
static u32 tm_htab_slot(const struct tm_htab *h, u32 hash)
{
	u32 i = hash >> h->shift;

	while (h->slot[i].hash && h->slot[i].hash != hash)
		i = (i + 1) & h->mask;
	return i;
}

/* Fill a new, unpublished @h with the live slots of @old. */
static void tm_htab_copy(struct tm_htab *h, const struct tm_htab *old)
{
	u32 i, j;

	for (i = 0; i <= old->mask; i++) {
		struct tm_node *node = tm_slot_node(old, i);

		if (!node)
			continue;
		j = tm_htab_slot(h, old->slot[i].hash);
		h->slot[j].hash = old->slot[i].hash;
		h->slot[j].tried = old->slot[i].tried;
		RCU_INIT_POINTER(h->slot[j].node, node);
		h->used++;
		h->live++;
	}
}

/* Capacity for @live buckets: at most half full. */
static u32 tm_htab_cap(u32 live)
{
	u32 cap = TM_HTAB_MIN;

	while (cap < 2 * live + 2)
		cap *= 2;
	return cap;
}

static void tm_ttab_masks(struct tm_ttab *t, unsigned int nw)
{
	unsigned int i;

	for (i = 0; i < 4; i++) {
		t->smask[i] = i < nw ? tm_mask_word(t->tu.slen, i) : 0;
		t->dmask[i] = i < nw ? tm_mask_word(t->tu.dlen, i) : 0;
	}
	t->pmask = (t->tu.sp ? 0xffff0000u : 0) | (t->tu.dp ? 0xffffu : 0);
	t->prmask = t->tu.pr ? 0xff : 0;
}

static struct tm_ttab *tm_ttab_alloc(const struct tm_tuple *tu,
				     unsigned int nw)
{
	struct tm_ttab *t = tm_zalloc(sizeof(*t));

	if (!t)
		return NULL;
	t->htab = tm_htab_alloc(TM_HTAB_MIN);
	if (!t->htab) {
		tm_free(t);
		return NULL;
	}
	t->tu = *tu;
	t->best = TM_RANK_NONE;
	tm_ttab_masks(t, nw);
	return t;
}

static void tm_ttab_free(struct tm_ttab *t)
{
	tm_vfree(t->htab);
	tm_free(t);
}

/* What lookups need of @t. */
static void tm_tle_fill(struct tm_tle *e, struct tm_ttab *t)
{
	e->ttab = t;
	e->best = t->best;
	e->slot = t->htab->slot;
	e->hmask = t->htab->mask;
	e->hshift = t->htab->shift;
	tm_tle_masks(e, t);
}

/* The entries of @tl, sorted and tail. */
static u32 tm_tlist_len(const struct tm_tlist *tl)
{
	return tl ? tl->n + tl->tail : 0;
}

/*
 * The room for a tail a list of @n tuples gets: about the square root of
 * n (8 to TM_TAIL_MAX), so that n tuples added one by one cost O(n sqrt n)
 * entries copied, and a lookup checks at most O(sqrt n) tail bounds.  None
 * below TM_TAIL_FROM tuples (TupleMerge's usual lists), where a copy costs
 * less than an insert does anyway and lookups are better off without.
 */
static u32 tm_tail_room(u32 n)
{
	u32 room = 8;

	if (n < TM_TAIL_FROM)
		return 0;
	while (room < TM_TAIL_MAX && room * room < n)
		room *= 2;
	return room;
}

/* The bytes of a list of @n sorted entries and @room for a tail. */
static size_t tm_tlist_bytes(u32 n, u32 room)
{
	return sizeof(struct tm_tlist) + (n + room) * sizeof(struct tm_tle) +
	       (room + 1) * sizeof(u64);
}

static struct tm_tlist *tm_tlist_alloc(u32 n)
{
	u32 room = tm_tail_room(n);
	struct tm_tlist *tl;

	tm_hook(TM_HOOK_LIST_COPY, n);
	tl = tm_valloc(tm_tlist_bytes(n, room));
	if (!tl)
		return NULL;
	tl->n = n;
	tl->tail = 0;
	tl->room = room;
	tl->dead = 0;
	*tm_tlist_tmin(tl) = TM_RANK_NONE;
	return tl;
}

/*
 * A new tuple list from every tuple's state: the current list, plus @keep
 * if @fresh, every entry refreshed, sorted by bound, without the empty
 * tuples other than @keep (the tuple a rule is being added to).  O(tuples)
 * tuples read: only after a list change failed (f->stale).
 */
static struct tm_tlist *tm_tlist_refresh(const struct tm_fam *f,
					 struct tm_ttab *keep, bool fresh)
{
	const struct tm_tlist *old = tm_tlist_get(f);
	u32 i, j, n = 0, len = tm_tlist_len(old), cap = len + fresh;
	struct tm_tlist *tl;

	tl = tm_tlist_alloc(cap);
	if (!tl)
		return NULL;
	for (i = 0; i < cap; i++) {
		struct tm_ttab *t = i < len ? old->e[i].ttab : keep;
		struct tm_tle e;

		if (!t || (t != keep && !t->nrules))
			continue;
		tm_tle_fill(&e, t);
		for (j = n++; j > 0 && tl->e[j - 1].best > e.best; j--)
			tl->e[j] = tl->e[j - 1];
		tl->e[j] = e;
	}
	tl->n = n;
	return tl;
}

/* The index of @t's entry in @tl, or tm_tlist_len(@tl). */
static u32 tm_tle_find(const struct tm_tlist *tl, const struct tm_ttab *t)
{
	u32 lo = 0, hi = tl ? tl->n : 0, mid;

	/* The sorted part: a binary search on the bound. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (tl->e[mid].best < t->lbest)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Bounds may tie (a rule in two tuples during a split). */
	for (; tl && lo < tl->n && tl->e[lo].best == t->lbest; lo++)
		if (tl->e[lo].ttab == t)
			return lo;
	/* The tail, at most TM_TAIL_MAX entries. */
	for (lo = tl ? tl->n : 0; lo < tm_tlist_len(tl); lo++)
		if (tl->e[lo].ttab == t)
			break;
	return lo;
}

/*
 * A new tuple list: the current one with @t's entry refreshed, or @t added
 * if @fresh, or @t dropped unless @add; the other entries are copied as
 * they are, so that a change reads one tuple, not all of them.  The tail
 * joins the sorted part: its entries (at most TM_TAIL_MAX), and @t's, are
 * sorted apart, then merged with the sorted part.
 */
static struct tm_tlist *tm_tlist_make(const struct tm_fam *f,
				      struct tm_ttab *t, bool add, bool fresh)
{
	const struct tm_tle *more[TM_TAIL_MAX + 1], *x;
	const struct tm_tlist *old = tm_tlist_get(f);
	u32 i, j, k, nm = 0, at, len = tm_tlist_len(old);
	u32 no = old ? old->n : 0;
	struct tm_tlist *tl;
	struct tm_tle e;

	if (f->stale)
		return tm_tlist_refresh(f, add ? t : NULL, fresh);
	at = fresh ? len : tm_tle_find(old, t);
	tl = tm_tlist_alloc(len - (old ? old->dead : 0) - (at < len) + add);
	if (!tl)
		return NULL;
	if (add) {
		tm_tle_fill(&e, t);
		more[nm++] = &e;
	}
	for (i = no; i < len; i++) {
		x = &old->e[i];
		if (i == at || !x->ttab)
			continue;
		for (k = nm++; k > 0 && more[k - 1]->best > x->best; k--)
			more[k] = more[k - 1];
		more[k] = x;
	}
	/* Merge: on a tie, the sorted part's entry first. */
	for (i = 0, j = 0, k = 0; k < nm || i < no; ) {
		if (i < no && (i == at || !old->e[i].ttab)) {
			i++;
			continue;
		}
		if (i == no || (k < nm && more[k]->best < old->e[i].best))
			tl->e[j++] = *more[k++];
		else
			tl->e[j++] = old->e[i++];
	}
	return tl;
}

/*
 * Drop entry @e of @tl in place: lookups skip an entry without slots.  Its
 * bound stays, the sorted part stays sorted; the next list leaves it out.
 * An entry replaced by one appended to the tail is dropped after that one
 * is counted (release): a lookup that sees the drop reads the count again
 * after (tm_tuple_lookup()), and finds the new entry.
 */
static void tm_tle_kill(struct tm_tlist *tl, struct tm_tle *e)
{
	e->ttab = NULL;
	/* Pairs with the lookups' smp_rmb() and smp_load_acquire(). */
	smp_store_release(&e->slot, NULL);
	tl->dead++;
}

/*
 * Whether @tl can take @need more entries appended or dropped in place: the
 * tail's room bounds the two together, so that lookups meet at most that
 * many entries they would not in a new list.
 */
static bool tm_tlist_has_room(const struct tm_fam *f, u32 need)
{
	const struct tm_tlist *tl = tm_tlist_get(f);

	return tl && !f->stale && tl->tail + tl->dead + need <= tl->room;
}

/* @t's entry in the list, or NULL (none, or the list is stale). */
static struct tm_tle *tm_tle_of(const struct tm_fam *f,
				const struct tm_ttab *t)
{
	struct tm_tlist *tl = tm_tlist_get(f);
	u32 i;

	if (f->stale)
		return NULL;
	i = tm_tle_find(tl, t);
	return i < tm_tlist_len(tl) ? &tl->e[i] : NULL;
}

/* Tail entry @i of @tl now has bound @best: its packed copy, the least. */
static void tm_tail_bound(struct tm_tlist *tl, u32 i, u64 best)
{
	WRITE_ONCE(tm_tlist_tb(tl)[i], best);
	if (best < *tm_tlist_tmin(tl))
		WRITE_ONCE(*tm_tlist_tmin(tl), best);
}

/*
 * Add an entry for @t at the end of the tail, in place: no list is copied.
 * @t is fresh, or its entry @old is replaced by this one (a new hash
 * table, or a bound that cannot be stored in place) and dropped.
 */
static void tm_tlist_append(struct tm_fam *f, struct tm_ttab *t,
			    struct tm_tle *old)
{
	struct tm_tlist *tl = tm_tlist_get(f);

	tm_tle_fill(&tl->e[tl->n + tl->tail], t);
	tm_tail_bound(tl, tl->tail, t->best);
	/* Pairs with the lookups: the entry written before it counts. */
	smp_store_release(&tl->tail, tl->tail + 1);
	t->lbest = t->best;
	if (old)
		tm_tle_kill(tl, old);
}

static bool tm_fits(const struct tm_tuple *tu, const struct tm_rule *r)
{
	return r->src_len >= tu->slen && r->dst_len >= tu->dlen &&
	       (!tu->sp || tm_sport_exact(r)) &&
	       (!tu->dp || tm_dport_exact(r)) &&
	       (!tu->pr || !r->proto_any);
}

static unsigned int tm_specificity(const struct tm_tuple *tu)
{
	return tu->slen + tu->dlen + 16 * (tu->sp + tu->dp) + 8 * tu->pr;
}

static bool tm_tuple_eq(const struct tm_tuple *a, const struct tm_tuple *b)
{
	return a->slen == b->slen && a->dlen == b->dlen && a->sp == b->sp &&
	       a->dp == b->dp && a->pr == b->pr;
}

static void tm_tuple_exact(const struct tm_rule *r, struct tm_tuple *tu)
{
	tu->slen = r->src_len;
	tu->dlen = r->dst_len;
	tu->sp = tm_sport_exact(r);
	tu->dp = tm_dport_exact(r);
	tu->pr = !r->proto_any;
}

/* The relaxed fields of a new TupleMerge tuple; see the theory above. */
static unsigned int tm_relax_len(unsigned int len, unsigned int nw)
{
	if (nw == 4)
		return len - len / 8;
	if (len == 32)
		return 28;
	if (len > 24)
		return len - 3;
	if (len > 16)
		return len - 2;
	if (len > 8)
		return len - 1;
	return len;
}

static void tm_tuple_relaxed(const struct tm_params *p,
			     const struct tm_rule *r, unsigned int nw,
			     struct tm_tuple *tu)
{
	unsigned int gap = p->gap;

	tm_tuple_exact(r, tu);
	tu->sp &= !!(p->hash & TM_HASH_SPORT);
	tu->dp &= !!(p->hash & TM_HASH_DPORT);
	tu->pr &= !!(p->hash & TM_HASH_PROTO);
	tu->slen = tm_relax_len(r->src_len, nw);
	tu->dlen = tm_relax_len(r->dst_len, nw);
	if (tu->slen > tu->dlen + gap)
		tu->dlen = 0;
	else if (tu->dlen > tu->slen + gap)
		tu->slen = 0;
}

/*
 * The tuple index: the writer finds a tuple from its fields in O(1), not
 * by a walk of the list (TSS has hundreds or thousands of tuples).  Open
 * addressing with linear probing over f->tix_mask + 1 pointers, at most
 * half used; it holds exactly the tuples counted in f->tuples, from the
 * list swap that adds one to the one that drops it.  Lookups never read it.
 */
static u32 tm_tix_home(const struct tm_fam *f, const struct tm_tuple *tu)
{
	u32 x = tu->slen | tu->dlen << 8 | tu->sp << 16 | tu->dp << 17 |
		tu->pr << 18;

	x *= 0x9e3779b1u;
	return (x ^ x >> 16) & f->tix_mask;
}

/* Whether the index must grow before a tuple joins. */
static bool tm_tix_full(const struct tm_fam *f)
{
	return !f->tix || 2 * (f->tuples + 1) > f->tix_mask + 1;
}

/* An index big enough for one more tuple than there are. */
static struct tm_ttab **tm_tix_alloc(const struct tm_fam *f, u32 *mask)
{
	u32 cap = 16;

	while (cap < 4 * (f->tuples + 1))
		cap *= 2;
	*mask = cap - 1;
	return tm_vzalloc(cap * sizeof(struct tm_ttab *));
}

static void tm_tix_add(struct tm_fam *f, struct tm_ttab *t)
{
	u32 i = tm_tix_home(f, &t->tu);

	while (f->tix[i])
		i = (i + 1) & f->tix_mask;
	f->tix[i] = t;
}

/* Move to @tix, of @mask + 1 pointers, from tm_tix_alloc(). */
static void tm_tix_move(struct tm_fam *f, struct tm_ttab **tix, u32 mask)
{
	struct tm_ttab **old = f->tix;
	u32 i, n = old ? f->tix_mask + 1 : 0;

	f->tix = tix;
	f->tix_mask = mask;
	for (i = 0; i < n; i++)
		if (old[i])
			tm_tix_add(f, old[i]);
	tm_vfree(old);
}

/* Take @t out; the entries after it in its run shift back to stay found. */
static void tm_tix_del(struct tm_fam *f, const struct tm_ttab *t)
{
	u32 i = tm_tix_home(f, &t->tu), j, home;

	while (f->tix[i] != t)
		i = (i + 1) & f->tix_mask;
	for (j = i;;) {
		j = (j + 1) & f->tix_mask;
		if (!f->tix[j])
			break;
		home = tm_tix_home(f, &f->tix[j]->tu);
		/* Stays when its home lies cyclically in (i, j]. */
		if (i <= j ? home > i && home <= j : home > i || home <= j)
			continue;
		f->tix[i] = f->tix[j];
		i = j;
	}
	f->tix[i] = NULL;
}

static struct tm_ttab *tm_ttab_find(const struct tm_fam *f,
				    const struct tm_tuple *tu)
{
	u32 i;

	if (!f->tix)
		return NULL;
	for (i = tm_tix_home(f, tu); f->tix[i]; i = (i + 1) & f->tix_mask)
		if (tm_tuple_eq(&f->tix[i]->tu, tu))
			return f->tix[i];
	return NULL;
}

/* TupleMerge: the most specific tuple the rule fits, if any. */
static struct tm_ttab *tm_ttab_choose(const struct tm_fam *f,
				      const struct tm_rule *r)
{
	const struct tm_tlist *tl = tm_tlist_get(f);
	u64 rank = tm_rank(r), score, best_score = 0;
	struct tm_ttab *best = NULL;
	u32 i;

	for (i = 0; i < tm_tlist_len(tl); i++) {
		struct tm_ttab *t = tl->e[i].ttab;

		if (!t || !tm_fits(&t->tu, r))
			continue;
		score = 2 * tm_specificity(&t->tu) + (t->best < rank) + 1;
		if (score > best_score) {
			best_score = score;
			best = t;
		}
	}
	return best;
}

static void tm_ttab_link(struct tm_ttab *t, struct tm_rrec *rr)
{
	rr->ttab = t;
	rr->ttab_next = t->rules;
	if (t->rules)
		t->rules->ttab_pprev = &rr->ttab_next;
	rr->ttab_pprev = &t->rules;
	t->rules = rr;
	t->nrules++;
}

static void tm_ttab_unlink(struct tm_ttab *t, struct tm_rrec *rr)
{
	*rr->ttab_pprev = rr->ttab_next;
	if (rr->ttab_next)
		rr->ttab_next->ttab_pprev = rr->ttab_pprev;
	rr->ttab = NULL;
	t->nrules--;
}

static void tm_tlist_swap(struct tm_fam *f, struct tm_tlist *tl,
			  struct tm_ttab *t, struct tm_ttab *gone);

/*
 * Whether a bucket of @live rules, in a slot whose split was tried at
 * @tried rules, may be split: a split that failed (or left the bucket long)
 * is tried again only once the bucket has twice the rules, so that a
 * bucket no split can shorten costs amortised O(log n) candidate work per
 * insert, not O(n).  The drops lower @tried to the bucket's size.
 */
static bool tm_split_due(u32 live, u32 tried)
{
	return live >= 2 * tried;
}

/*
 * Whether @t's list entry @e (from tm_tle_of(), maybe NULL) can take @t's
 * new bound in place: in the sorted part, the entries around it stay in
 * order; the tail has no order.  A reader sees the old bound or the new one, one u64 store (hence
 * 64-bit only).  A better bound: with the old, a lookup may stop before a
 * rule just published, the answer of the set before the insert; with the
 * new, it looks further.  A worse one, after the tuple's best rule left:
 * with the old, a lookup may probe the tuple in vain.
 */
static bool tm_tle_settable(const struct tm_fam *f, const struct tm_tle *e,
			    const struct tm_ttab *t)
{
	const struct tm_tlist *tl = tm_tlist_get(f);
	u32 i;

	if (!TM_U64_ONCE || !e)
		return false;
	i = e - tl->e;
	return i >= tl->n || ((!i || tl->e[i - 1].best <= t->best) &&
			      (i + 1 == tl->n || tl->e[i + 1].best >= t->best));
}

/* Store @t's new bound in @e, from tm_tle_settable(). */
static void tm_tle_set(struct tm_fam *f, struct tm_tle *e, struct tm_ttab *t)
{
	struct tm_tlist *tl = tm_tlist_get(f);
	u32 i = e - tl->e;

	/* A tail entry's bound, for the writer; lookups read the copy. */
	WRITE_ONCE(e->best, t->best);
	if (i >= tl->n)
		tm_tail_bound(tl, i - tl->n, t->best);
	t->lbest = t->best;
}

/*
 * Put @rr in a bucket of tuple @t, which is in the list, or is @fresh and
 * joins it; the caller links @rr to @t after.  Allocates everything first:
 * on failure nothing changed.  @chain: live rules in the bucket it joined,
 * or 0 when that bucket is not due for a split (tm_split_due()).
 */
static int tm_ttab_add(struct tm_fam *f, struct tm_ttab *t, bool fresh,
		       struct tm_rrec *rr, u32 *chain)
{
	struct tm_htab *h = t->htab, *nh = NULL;
	u32 hash = tm_hash_rule(t, &rr->rule, f->seed, f->nw);
	u64 rank = tm_rank(&rr->rule), old_best = t->best;
	u32 slot = tm_htab_slot(h, hash), tried = h->slot[slot].tried;
	struct tm_node *old = tm_slot_node(h, slot), *node;
	struct tm_ttab **tix = NULL;
	struct tm_tlist *tl = NULL;
	struct tm_tle *lower = NULL, *cur = NULL;
	bool append = false, change;
	u32 tix_mask;
	bool nomem;

	node = tm_node_rebuild(old, &rr->rule, NULL, f->nw, &nomem);
	if (!node)
		return -ENOMEM;
	/* Grow (or clean) when the hash table would be more than half used. */
	if (!h->slot[slot].hash && 2 * (h->used + 1) > h->mask + 1) {
		nh = tm_htab_alloc(tm_htab_cap(h->live + 1));
		if (!nh)
			goto nomem;
		t->htab = nh;
	}
	/*
	 * A new tuple, bound or hash table: lookups need a new list, unless
	 * the bound can be lowered in place or the tuple join the tail, a new
	 * entry replacing its old one.
	 */
	if (rank < t->best)
		t->best = rank;
	change = fresh || nh || t->best != old_best;
	if (fresh) {
		append = !nh && tm_tlist_has_room(f, 1);
	} else if (change) {
		cur = tm_tle_of(f, t);
		if (!nh && tm_tle_settable(f, cur, t))
			lower = cur;
		else
			append = cur && tm_tlist_has_room(f, 2);
	}
	if (change && !append && !lower) {
		tl = tm_tlist_make(f, t, true, fresh);
		if (!tl)
			goto nomem;
	}
	if (fresh && tm_tix_full(f)) {
		tix = tm_tix_alloc(f, &tix_mask);
		if (!tix)
			goto nomem;
	}

	/* Commit: nothing below fails. */
	if (nh) {
		tm_htab_copy(nh, h);
		slot = tm_htab_slot(nh, hash);
		nh->slot[slot].hash = hash;
		RCU_INIT_POINTER(nh->slot[slot].node, node);
		nh->used++;
		nh->live++;
	} else {
		rcu_assign_pointer(h->slot[slot].node, node);
		if (!h->slot[slot].hash) {
			/* Pairs with tm_slot_find(): bucket before hash. */
			smp_store_release(&h->slot[slot].hash, hash);
			h->used++;
		}
		if (!old)
			h->live++;
	}
	if (tl)
		tm_tlist_swap(f, tl, t, NULL);
	else if (append)
		tm_tlist_append(f, t, cur);
	else if (lower)
		tm_tle_set(f, lower, t);
	if (nh)
		tm_retire(f, h, rcu);
	if (old)
		tm_retire(f, old, rcu);
	if (fresh) {
		if (tix)
			tm_tix_move(f, tix, tix_mask);
		tm_tix_add(f, t);
		f->tuples++;
	}
	*chain = tm_split_due(node->live, tried) ? node->live : 0;
	return 0;

nomem:
	t->best = old_best;
	t->htab = h;
	tm_free(node);
	tm_vfree(nh);
	tm_vfree(tl);
	return -ENOMEM;
}

/* Free a tuple that no list holds any more (see tm_retire()). */
static void tm_ttab_retire(struct tm_fam *f, struct tm_ttab *t)
{
	struct tm_htab *h = tm_htab_get(t);
	u32 i;

	for (i = 0; i <= h->mask; i++) {
		struct tm_node *node = tm_slot_node(h, i);

		if (node)
			tm_retire(f, node, rcu);
	}
	tm_retire(f, h, rcu);
	tm_retire(f, t, rcu);
}

/* @t left the list (or its entry was dropped): out of the index, freed. */
static void tm_ttab_gone(struct tm_fam *f, struct tm_ttab *t)
{
	tm_tix_del(f, t);
	tm_ttab_retire(f, t);
	f->tuples--;
}

/*
 * Publish @tl, in which @t's entry changed, and free @gone, which @tl
 * dropped, if any.  After a refresh (f->stale), any tuple may have changed
 * or gone: a mark through every tuple tells.
 */
static void tm_tlist_swap(struct tm_fam *f, struct tm_tlist *tl,
			  struct tm_ttab *t, struct tm_ttab *gone)
{
	struct tm_tlist *old = tm_tlist_get(f);
	u32 i;

	rcu_assign_pointer(f->tlist, tl);
	if (!f->stale) {
		t->lbest = t->best;
		if (gone)
			tm_ttab_gone(f, gone);
	} else {
		f->stale = false;
		for (i = 0; i < tl->n; i++) {
			tl->e[i].ttab->kept = true;
			tl->e[i].ttab->lbest = tl->e[i].best;
		}
		for (i = 0; i < tm_tlist_len(old); i++) {
			struct tm_ttab *u = old->e[i].ttab;

			if (u && !u->kept)
				tm_ttab_gone(f, u);
		}
		for (i = 0; i < tl->n; i++)
			tl->e[i].ttab->kept = false;
	}
	if (old)
		tm_retire(f, old, rcu);
}

/* The bucket of @s is down to @live rules: see tm_split_due(). */
static void tm_slot_shrunk(struct tm_slot *s, u32 live)
{
	if (s->tried > live)
		s->tried = live;
}

/*
 * Take the entry of @r out of its bucket in @t.  Never fails: when the
 * smaller bucket cannot be allocated, the entry is disabled in place.
 */
static void tm_ttab_drop(struct tm_fam *f, struct tm_ttab *t,
			 const struct tm_rule *r)
{
	struct tm_htab *h = tm_htab_get(t);
	u32 slot = tm_htab_slot(h, tm_hash_rule(t, r, f->seed, f->nw));
	struct tm_node *old = tm_slot_node(h, slot), *node;
	bool nomem;
	u32 i;

	node = tm_node_rebuild(old, NULL, r, f->nw, &nomem);
	if (nomem) {
		for (i = 0; i < old->n; i++) {
			struct tm_ent *e = tm_node_ent(old, i, f->nw);

			if (e->rule == r && !(e->flags & TM_ENT_OFF)) {
				WRITE_ONCE(e->flags, e->flags | TM_ENT_OFF);
				old->live--;
				break;
			}
		}
		tm_slot_shrunk(&h->slot[slot], old->live);
		return;
	}
	rcu_assign_pointer(h->slot[slot].node, node);
	tm_slot_shrunk(&h->slot[slot], node ? node->live : 0);
	if (!node)
		h->live--;
	tm_retire(f, old, rcu);
}

static u64 tm_ttab_best(const struct tm_ttab *t)
{
	u64 best = TM_RANK_NONE;
	struct tm_rrec *rr;

	for (rr = t->rules; rr; rr = rr->ttab_next)
		if (tm_rank(&rr->rule) < best)
			best = tm_rank(&rr->rule);
	return best;
}

/*
 * After rules left @t: drop it if empty, tighten its bound if its best rule
 * left.  Best effort: without memory the list keeps an empty tuple or a
 * bound that is too good, both harmless, until the next list change.
 */
static void tm_ttab_settle(struct tm_fam *f, struct tm_ttab *t, u64 gone)
{
	struct tm_tlist *tl;
	struct tm_tle *e;
	u64 best;

	if (gone != t->best)
		return;
	best = tm_ttab_best(t);
	if (best == t->best)
		return;
	t->best = best;
	e = tm_tle_of(f, t);
	if (t->nrules && tm_tle_settable(f, e, t)) {
		tm_tle_set(f, e, t);
		return;
	}
	if (t->nrules && e && tm_tlist_has_room(f, 2)) {
		tm_tlist_append(f, t, e);
		return;
	}
	if (!t->nrules && e && tm_tlist_has_room(f, 1)) {
		/* Emptied: its entry dropped in place. */
		tm_tle_kill(tm_tlist_get(f), e);
		tm_ttab_gone(f, t);
		return;
	}
	tl = tm_tlist_make(f, t, t->nrules, false);
	if (!tl) {
		/* The next list change refreshes every entry. */
		f->stale = true;
		return;
	}
	tm_tlist_swap(f, tl, t, t->nrules ? NULL : t);
}

void tm_tuple_remove(struct tm_cls *cls, struct tm_fam *f,
		     struct tm_rrec *rr)
{
	struct tm_ttab *t = rr->ttab;

	tm_ttab_drop(f, t, &rr->rule);
	tm_ttab_unlink(t, rr);
	tm_ttab_settle(f, t, tm_rank(&rr->rule));
}

/* A way to split a bucket, and what it would leave. */
struct tm_cand {
	struct tm_tuple tu;
	u32 cost;		/* longest bucket left behind */
	u32 movers;
	bool found;		/* the tuple exists already */
};

static int tm_u32_cmp(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/* Score @c on the @n rules @rrs: O(n log n), @hashes has room for @n. */
static void tm_cand_eval(const struct tm_fam *f, struct tm_rrec **rrs, u32 n,
			 struct tm_cand *c, u32 *hashes)
{
	struct tm_ttab tmp;
	u32 i, j, m = 0, worst = 0;

	tmp.tu = c->tu;
	tm_ttab_masks(&tmp, f->nw);
	for (i = 0; i < n; i++)
		if (tm_fits(&c->tu, &rrs[i]->rule))
			hashes[m++] = tm_hash_rule(&tmp, &rrs[i]->rule,
						   f->seed, f->nw);
	/* The longest bucket left in the new tuple: the longest run. */
	tm_sort(hashes, m, sizeof(*hashes), tm_u32_cmp);
	for (i = 0; i < m; i = j) {
		for (j = i + 1; j < m && hashes[j] == hashes[i]; j++)
			;
		if (j - i > worst)
			worst = j - i;
	}
	c->movers = m;
	c->cost = n - m > worst ? n - m : worst;
	tm_hook(TM_HOOK_SPLIT_EVAL, n);
}

/*
 * @a is a better split than @b: of those that leave no bucket over @limit,
 * one to a tuple there is (no new probe for lookups); then the shortest
 * bucket left; then the less specific tuple.
 */
static bool tm_cand_better(const struct tm_cand *a, const struct tm_cand *b,
			   u32 limit)
{
	bool ga = a->movers && a->cost <= limit;
	bool gb = b->movers && b->cost <= limit;

	if (ga != gb)
		return ga;
	if (ga && a->found != b->found)
		return a->found;
	if (a->cost != b->cost)
		return a->cost < b->cost;
	return tm_specificity(&a->tu) < tm_specificity(&b->tu);
}

/* Whether prefix length @len is in the set @seen; it is in it after. */
static bool tm_len_seen(u64 *seen, unsigned int len)
{
	u64 bit = 1ULL << (len % 64);
	bool was = seen[len / 64] & bit;

	seen[len / 64] |= bit;
	return was;
}

/*
 * Pick the best way to split the rules @rrs of a bucket of @t, @limit the
 * longest bucket a split should leave (the collision limit).  Each
 * distinct candidate tuple is scored once, those there are first, then in
 * the order of the rules that propose one: at most 2 x 129 prefix lengths
 * and 3 exact fields, O(n log n) each.
 */
static bool tm_split_pick(const struct tm_fam *f, const struct tm_ttab *t,
			  struct tm_rrec **rrs, u32 n, struct tm_cand *best,
			  u32 limit)
{
	const struct tm_tlist *tl = tm_tlist_get(f);
	u64 sseen[3] = { 0 }, dseen[3] = { 0 };
	struct tm_cand c;
	u32 *hashes, i;

	hashes = tm_alloc(n * sizeof(*hashes));
	if (!hashes)
		return false;
	/* Splitting nothing: the tuple stays, the bucket too. */
	best->tu = t->tu;
	best->cost = n;
	best->movers = 0;
	best->found = true;
	/* First the tuples there are that differ from @t in one length. */
	for (i = 0; i < tm_tlist_len(tl); i++) {
		const struct tm_tuple *u;

		if (!tl->e[i].ttab)
			continue;
		u = &tl->e[i].ttab->tu;

		c.tu = t->tu;
		c.tu.slen = u->slen;
		if (u->slen > t->tu.slen && tm_tuple_eq(u, &c.tu)) {
			tm_len_seen(sseen, u->slen);
		} else {
			c.tu = t->tu;
			c.tu.dlen = u->dlen;
			if (u->dlen <= t->tu.dlen || !tm_tuple_eq(u, &c.tu))
				continue;
			tm_len_seen(dseen, u->dlen);
		}
		c.found = true;
		tm_cand_eval(f, rrs, n, &c, hashes);
		if (tm_cand_better(&c, best, limit))
			*best = c;
	}
	for (i = 0; i < n + 3; i++) {
		const struct tm_rule *r = i < n ? &rrs[i]->rule : NULL;

		c.tu = t->tu;
		c.found = false;
		if (r && r->src_len > t->tu.slen &&
		    !tm_len_seen(sseen, r->src_len)) {
			c.tu.slen = r->src_len;
			tm_cand_eval(f, rrs, n, &c, hashes);
			if (tm_cand_better(&c, best, limit))
				*best = c;
			c.tu = t->tu;
		}
		if (r && r->dst_len > t->tu.dlen) {
			if (tm_len_seen(dseen, r->dst_len))
				continue;
			c.tu.dlen = r->dst_len;
		} else if (i == n && !t->tu.sp) {
			c.tu.sp = 1;
		} else if (i == n + 1 && !t->tu.dp) {
			c.tu.dp = 1;
		} else if (i == n + 2 && !t->tu.pr) {
			c.tu.pr = 1;
		} else {
			continue;
		}
		/* The tuples there are of one more length were scored above. */
		c.found = !r && tm_ttab_find(f, &c.tu);
		tm_cand_eval(f, rrs, n, &c, hashes);
		if (tm_cand_better(&c, best, limit))
			*best = c;
	}
	tm_free(hashes);
	return best->cost < n;
}

static void tm_split(struct tm_cls *cls, struct tm_fam *f,
		     struct tm_ttab *t, const struct tm_rule *trigger,
		     int depth);

/*
 * Move the rules of @rrs that fit @tu, but for the first @keep of them, to
 * the tuple of those fields, in two steps for lookups (see "Updates and
 * readers"): put every mover in the new tuple, then take them out of @t.
 * Reuses @rrs for the movers.  Returns how many moved.
 */
static u32 tm_split_move(struct tm_cls *cls, struct tm_fam *f,
			 struct tm_ttab *t, struct tm_rrec **rrs, u32 n,
			 const struct tm_tuple *tu, u32 keep, int depth)
{
	struct tm_ttab *dst = tm_ttab_find(f, tu);
	const struct tm_rule *overflow = NULL;
	u64 moved_best = TM_RANK_NONE;
	bool fresh = !dst;
	u32 i, k = 0, chain;

	if (fresh) {
		if (cls->p.max_tuples && f->tuples >= cls->p.max_tuples)
			return 0;
		dst = tm_ttab_alloc(tu, f->nw);
		if (!dst)
			return 0;
	}
	/* Each mover in both tuples: lookups find it in either. */
	for (i = 0; i < n; i++) {
		struct tm_rrec *rr = rrs[i];

		tm_cond_resched();
		if (!tm_fits(tu, &rr->rule))
			continue;
		if (keep) {
			keep--;
			continue;
		}
		/* Without memory, the rules added so far move, no more. */
		if (tm_ttab_add(f, dst, fresh, rr, &chain))
			break;
		tm_hook(TM_HOOK_SPLIT_ADD, rr->rule.id);
		fresh = false;
		rrs[k++] = rr;
		if (chain > cls->p.collide)
			overflow = &rr->rule;
	}
	if (fresh) {
		tm_ttab_free(dst);
		return 0;
	}
	if (!k)
		return 0;
	/*
	 * A lookup may hold a list from before the new tuple, or before its
	 * last hash table: from here on it runs again.
	 */
	tm_write_next(cls);
	for (i = 0; i < k; i++) {
		struct tm_rrec *rr = rrs[i];

		tm_cond_resched();
		tm_ttab_drop(f, t, &rr->rule);
		tm_hook(TM_HOOK_SPLIT_DROP, rr->rule.id);
		tm_ttab_unlink(t, rr);
		tm_ttab_link(dst, rr);
		if (tm_rank(&rr->rule) < moved_best)
			moved_best = tm_rank(&rr->rule);
	}
	tm_ttab_settle(f, t, moved_best);
	if (overflow && depth < TM_SPLIT_DEPTH)
		tm_split(cls, f, dst, overflow, depth + 1);
	return k;
}

static int tm_rank_cmp(const void *a, const void *b)
{
	u64 x = tm_rank(&(*(struct tm_rrec * const *)a)->rule);
	u64 y = tm_rank(&(*(struct tm_rrec * const *)b)->rule);

	return x < y ? -1 : x > y;
}

/*
 * When every rule of @t fits @tu, move them all: the tuple becomes more
 * specific instead of leaving a second tuple behind.
 */
static bool tm_split_whole(struct tm_cls *cls, struct tm_fam *f,
			   struct tm_ttab *t, const struct tm_tuple *tu,
			   int depth)
{
	struct tm_rrec *rr, **all;
	u32 n = 0;

	for (rr = t->rules; rr; rr = rr->ttab_next)
		if (!tm_fits(tu, &rr->rule))
			return false;
	all = tm_valloc(t->nrules * sizeof(*all));
	if (!all)
		return false;
	for (rr = t->rules; rr; rr = rr->ttab_next)
		all[n++] = rr;
	tm_sort(all, n, sizeof(*all), tm_rank_cmp);
	if (tm_split_move(cls, f, t, all, n, tu, 0, depth))
		cls->splits++;
	tm_vfree(all);
	return true;
}

/*
 * How many of the movers to leave behind, the best ranked first: those
 * that would make the target's bound better, up to half the room the
 * bucket has left.  @rrs is in rank order.
 */
static u32 tm_split_keep(const struct tm_fam *f, struct tm_rrec **rrs,
			 u32 n, const struct tm_cand *c, u32 limit)
{
	const struct tm_ttab *dst = tm_ttab_find(f, &c->tu);
	u64 bound = dst ? dst->best : TM_RANK_NONE;
	u32 i, keep = 0, room = n - c->movers;

	room = room < limit ? (limit - room) / 2 : 0;
	for (i = 0; i < n && keep < room; i++) {
		if (!tm_fits(&c->tu, &rrs[i]->rule))
			continue;
		if (tm_rank(&rrs[i]->rule) >= bound)
			break;
		keep++;
	}
	return keep;
}

/* The bucket of @trigger in @t is over the collision limit: split it. */
static void tm_split(struct tm_cls *cls, struct tm_fam *f,
		     struct tm_ttab *t, const struct tm_rule *trigger,
		     int depth)
{
	struct tm_htab *h = tm_htab_get(t);
	u32 slot = tm_htab_slot(h, tm_hash_rule(t, trigger, f->seed, f->nw));
	struct tm_node *node = tm_slot_node(h, slot);
	struct tm_rrec **rrs;
	struct tm_cand best;
	u32 i, n = 0, keep;

	/* Until it doubles, if this fails; the movers' drops lower it. */
	h->slot[slot].tried = node->live;
	rrs = tm_alloc(node->live * sizeof(*rrs));
	if (!rrs)
		return;
	for (i = 0; i < node->n; i++) {
		const struct tm_ent *e = tm_node_ent(node, i, f->nw);

		if (!(e->flags & TM_ENT_OFF))
			rrs[n++] = container_of(e->rule, struct tm_rrec, rule);
	}
	if (!tm_split_pick(f, t, rrs, n, &best, cls->p.collide)) {
		tm_free(rrs);
		return;
	}
	if (tm_split_whole(cls, f, t, &best.tu, depth)) {
		tm_free(rrs);
		return;
	}
	keep = tm_split_keep(f, rrs, n, &best, cls->p.collide);
	if (tm_split_move(cls, f, t, rrs, n, &best.tu, keep, depth))
		cls->splits++;
	tm_free(rrs);
}

/* Every rule tuple @s can hold fits tuple @g. */
static bool tm_tuple_covers(const struct tm_tuple *g, const struct tm_tuple *s)
{
	return s->slen >= g->slen && s->dlen >= g->dlen && s->sp >= g->sp &&
	       s->dp >= g->dp && s->pr >= g->pr && !tm_tuple_eq(g, s);
}

/*
 * Whether the @n rules of @s would fit in @g's buckets with none over
 * @limit, the rules already there counted.  @hashes has room for @n.
 */
static bool tm_merge_fits(const struct tm_fam *f, const struct tm_ttab *g,
			  const struct tm_ttab *s, u32 limit, u32 *hashes)
{
	const struct tm_htab *h = g->htab;
	struct tm_rrec *rr;
	u32 i, j, m = 0;

	for (rr = s->rules; rr; rr = rr->ttab_next) {
		hashes[m++] = tm_hash_rule(g, &rr->rule, f->seed, f->nw);
		if (!(m % 256))
			tm_cond_resched();
	}
	tm_sort(hashes, m, sizeof(*hashes), tm_u32_cmp);
	for (i = 0; i < m; i = j) {
		const struct tm_node *node;
		u32 there = 0;

		for (j = i + 1; j < m && hashes[j] == hashes[i]; j++)
			;
		node = tm_slot_node(h, tm_htab_slot(h, hashes[i]));
		if (node)
			there = node->live;
		if (there + j - i > limit)
			return false;
	}
	return true;
}

/*
 * A new tuple @g: move into it the tuples it covers whose rules fit its
 * buckets.  Rules inserted best first make specific tuples before the
 * general ones that could hold them; built in another order, the same
 * rules need fewer tuples.
 */
static void tm_merge_into(struct tm_cls *cls, struct tm_fam *f,
			  struct tm_ttab *g)
{
	const struct tm_tlist *tl = tm_tlist_get(f);
	struct tm_ttab **cands;
	u32 i, nc = 0;

	cands = tm_alloc(tm_tlist_len(tl) * sizeof(*cands));
	if (!cands)
		return;
	for (i = 0; i < tm_tlist_len(tl); i++) {
		struct tm_ttab *s = tl->e[i].ttab;

		if (s && s != g && tm_tuple_covers(&g->tu, &s->tu))
			cands[nc++] = s;
	}
	for (i = 0; i < nc; i++) {
		struct tm_ttab *s = cands[i];
		struct tm_rrec *rr, **all;
		u32 *hashes, n = 0;
		bool fits;

		hashes = tm_valloc(s->nrules * sizeof(*hashes));
		if (!hashes)
			break;
		fits = tm_merge_fits(f, g, s, cls->p.collide / 2, hashes);
		tm_vfree(hashes);
		if (!fits)
			continue;
		all = tm_valloc(s->nrules * sizeof(*all));
		if (!all)
			break;
		for (rr = s->rules; rr; rr = rr->ttab_next)
			all[n++] = rr;
		tm_sort(all, n, sizeof(*all), tm_rank_cmp);
		if (tm_split_move(cls, f, s, all, n, &g->tu, 0,
				  TM_SPLIT_DEPTH))
			cls->merges++;
		tm_vfree(all);
	}
	tm_free(cands);
}

int tm_tuple_insert(struct tm_cls *cls, struct tm_fam *f,
		    struct tm_rrec *rr)
{
	struct tm_ttab *t;
	struct tm_tuple tu;
	bool fresh = false;
	u32 chain;
	int err;

	if (cls->p.engine == TM_ENGINE_TSS) {
		tm_tuple_exact(&rr->rule, &tu);
		t = tm_ttab_find(f, &tu);
	} else {
		t = tm_ttab_choose(f, &rr->rule);
		if (!t)
			tm_tuple_relaxed(&cls->p, &rr->rule, f->nw, &tu);
	}
	if (!t) {
		if (cls->p.max_tuples && f->tuples >= cls->p.max_tuples)
			return -ENOSPC;
		t = tm_ttab_alloc(&tu, f->nw);
		if (!t)
			return -ENOMEM;
		fresh = true;
	}
	err = tm_ttab_add(f, t, fresh, rr, &chain);
	if (err) {
		if (fresh)
			tm_ttab_free(t);
		return err;
	}
	tm_ttab_link(t, rr);
	if (cls->p.engine != TM_ENGINE_TUPLEMERGE)
		return 0;
	if (chain > cls->p.collide)
		tm_split(cls, f, t, &rr->rule, 0);
	else if (fresh)
		tm_merge_into(cls, f, t);
	return 0;
}

void tm_tuple_destroy(struct tm_fam *f)
{
	struct tm_tlist *tl = tm_tlist_get(f);
	u32 i;

	if (!tl)
		return;
	RCU_INIT_POINTER(f->tlist, NULL);
	for (i = 0; i < tm_tlist_len(tl); i++) {
		tm_cond_resched();
		if (tl->e[i].ttab)
			tm_ttab_retire(f, tl->e[i].ttab);
	}
	tm_retire(f, tl, rcu);
	f->tuples = 0;
	tm_vfree(f->tix);
	f->tix = NULL;
	f->stale = false;
}

void tm_tuple_stats(const struct tm_fam *f, struct tm_stats *st)
{
	const struct tm_tlist *tl = tm_tlist_get(f);
	unsigned int nw = f->nw;
	u32 i, j;

	if (!tl)
		return;
	st->bytes += tm_tlist_bytes(tl->n, tl->room);
	for (i = 0; i < tm_tlist_len(tl); i++) {
		const struct tm_ttab *t = tl->e[i].ttab;
		const struct tm_htab *h;

		if (!t)
			continue;
		h = tm_htab_get(t);
		st->tuples++;
		st->bytes += sizeof(*t) + sizeof(*h) +
			     (h->mask + 1) * sizeof(h->slot[0]);
		for (j = 0; j <= h->mask; j++) {
			const struct tm_node *node = tm_slot_node(h, j);

			if (!node)
				continue;
			st->nodes++;
			st->bytes += sizeof(*node) + node->n * tm_ent_size(nw);
			if (node->live > st->max_chain)
				st->max_chain = node->live;
		}
	}
}

int tm_tuple_walk(const struct tm_fam *f,
		  int (*fn)(const struct tm_tuple_info *ti, void *arg),
		  void *arg)
{
	const struct tm_tlist *tl = tm_tlist_get(f);
	struct tm_tuple_info ti;
	u32 i;
	int ret;

	for (i = 0; i < tm_tlist_len(tl); i++) {
		const struct tm_ttab *t = tl->e[i].ttab;
		const struct tm_htab *h;

		if (!t)
			continue;
		h = tm_htab_get(t);
		ti.family = f->family;
		ti.src_len = t->tu.slen;
		ti.dst_len = t->tu.dlen;
		ti.sport = t->tu.sp;
		ti.dport = t->tu.dp;
		ti.proto = t->tu.pr;
		ti.rules = t->nrules;
		ti.buckets = h->live;
		ti.slots = h->mask + 1;
		ti.best_priority = t->best >> 32;
		ret = fn(&ti, arg);
		if (ret)
			return ret;
	}
	return 0;
}

static int tm_fail(const char **why, const char *what)
{
	*why = what;
	return -EUCLEAN;
}

/* Every rule of @t is in the bucket of its hash, and only those. */
static int tm_ttab_verify(const struct tm_fam *f, const struct tm_ttab *t,
			  const char **why)
{
	const struct tm_htab *h = tm_htab_get(t);
	u32 i, j, n = 0, used = 0, live = 0, entries = 0;
	const struct tm_rrec *rr;

	for (rr = t->rules; rr; rr = rr->ttab_next) {
		u32 hash = tm_hash_rule(t, &rr->rule, f->seed, f->nw);
		const struct tm_node *node = tm_slot_find(h->slot, h->mask,
							  h->shift, hash);
		bool found = false;

		n++;
		if (rr->ttab != t || !tm_fits(&t->tu, &rr->rule))
			return tm_fail(why, "rule in a tuple it does not fit");
		for (j = 0; node && j < node->n; j++) {
			const struct tm_ent *e = tm_node_ent(node, j, f->nw);

			if (e->rule == &rr->rule && !(e->flags & TM_ENT_OFF))
				found = true;
		}
		if (!found)
			return tm_fail(why, "rule missing from its bucket");
	}
	/* Empty: tm_ttab_settle() could not drop it, the next list will. */
	if (n != t->nrules)
		return tm_fail(why, "tuple rule count wrong");
	if (t->best != tm_ttab_best(t))
		return tm_fail(why, "tuple bound is not its best rank");
	for (i = 0; i <= h->mask; i++) {
		const struct tm_node *node = tm_slot_node(h, i);
		u32 k = 0;

		used += !!h->slot[i].hash;
		if (!node)
			continue;
		if (!h->slot[i].hash)
			return tm_fail(why, "bucket in a free slot");
		live++;
		for (j = 0; j < node->n; j++) {
			const struct tm_ent *e = tm_node_ent(node, j, f->nw);

			if (e->flags & TM_ENT_OFF)
				continue;
			k++;
			/* The entries of a set rule rank the same. */
			if (j && tm_node_ent(node, j - 1, f->nw)->rank > e->rank)
				return tm_fail(why, "bucket not in rank order");
			if (e->flags != tm_ent_flags(e->rule))
				return tm_fail(why, "entry extra flag wrong");
		}
		if (k != node->live || !k)
			return tm_fail(why, "bucket live count wrong or empty");
		entries += k;
	}
	if (entries != t->nrules)
		return tm_fail(why, "bucket entries differ from tuple rules");
	if (used != h->used || live != h->live || 2 * used > h->mask + 1)
		return tm_fail(why, "hash table counts wrong or overfull");
	return 0;
}

int tm_tuple_verify(const struct tm_cls *cls, const struct tm_fam *f,
		    const char **why)
{
	const struct tm_tlist *tl = tm_tlist_get(f);
	const struct tm_ttab *found;
	u32 i, j, rules = 0, dead = 0;
	struct tm_tle m;
	int err;

	if (!tl)
		return f->rules ? tm_fail(why, "rules but no tuples") : 0;
	for (i = 0; i < tm_tlist_len(tl); i++)
		dead += !tl->e[i].ttab;
	if (dead != tl->dead || tl->tail + tl->dead > tl->room)
		return tm_fail(why, "dropped list entries miscounted");
	if (tm_tlist_len(tl) - dead != f->tuples)
		return tm_fail(why, "tuple count differs from the list");
	for (i = 0, j = 0; f->tix && i <= f->tix_mask; i++)
		j += !!f->tix[i];
	if (j != f->tuples || 2 * j > (f->tix ? f->tix_mask + 1 : 0))
		return tm_fail(why, "tuple index count differs from the list");
	for (i = 0; i < tm_tlist_len(tl); i++) {
		const struct tm_ttab *t = tl->e[i].ttab;

		if (i && i < tl->n && tl->e[i - 1].best > tl->e[i].best)
			return tm_fail(why, "tuple list not sorted by bound");
		if (i >= tl->n && (tm_tlist_tb(tl)[i - tl->n] != tl->e[i].best ||
				   *tm_tlist_tmin(tl) > tl->e[i].best))
			return tm_fail(why, "tail entry's bound differs");
		if (!t) {
			if (tl->e[i].slot)
				return tm_fail(why, "dropped list entry probed");
			continue;
		}
		if (tl->e[i].best > t->best)
			return tm_fail(why, "tuple bound in the list too weak");
		if (tl->e[i].best != t->lbest ||
		    tm_tle_find(tl, t) != i)
			return tm_fail(why, "tuple's list entry not found");
		/* Only a failed list change leaves these behind. */
		if (!f->stale && (!t->nrules || tl->e[i].best != t->best))
			return tm_fail(why, "empty tuple or stale bound listed");
		tm_tle_masks(&m, t);
		if (tl->e[i].slot != t->htab->slot ||
		    tl->e[i].hmask != t->htab->mask ||
		    tl->e[i].hshift != t->htab->shift ||
		    tl->e[i].amask != m.amask || tl->e[i].xmask != m.xmask ||
		    tl->e[i].slen != m.slen || tl->e[i].dlen != m.dlen)
			return tm_fail(why, "list entry differs from its tuple");
		/* Each tuple found from its fields; TSS ones, only once. */
		found = tm_ttab_find(f, &t->tu);
		if (!found || (cls->p.engine == TM_ENGINE_TSS && found != t))
			return tm_fail(why, "tuple index misses a tuple");
		err = tm_ttab_verify(f, t, why);
		if (err)
			return err;
		rules += t->nrules;
	}
	if (rules != f->rules)
		return tm_fail(why, "tuples hold a different number of rules");
	return 0;
}
