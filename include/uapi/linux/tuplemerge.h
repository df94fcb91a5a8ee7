/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause */
/*
 * tuplemerge: packet classification with TupleMerge and SRv6 load balancing.
 *
 * This header is the whole ABI between the tuplemerge module and userspace.
 * The module and tmctl build against this one file; the YAML description in
 * Documentation/netlink/specs/tuplemerge.yaml describes the same family.
 *
 * Family: generic netlink, name TM_GENL_NAME ("tuplemerge"), version
 * TM_GENL_VERSION.  The family is netns-aware: every object lives in the
 * network namespace of the socket that created it, and a request only ever
 * sees the objects of its own namespace.  Every command, reads and dumps
 * included, and joining the TM_GENL_MCGRP_EVENTS group need CAP_NET_ADMIN
 * in the user namespace owning the network namespace (EPERM otherwise).
 *
 * Commands
 * --------
 *
 * TM_CMD_STATS_GET (do, admin)
 *	Request: nothing.
 *	Reply:   TM_A_NET_TABLES, TM_A_NET_GENERATION.
 *
 * TM_CMD_FLUSH (do, admin)
 *	flush ruleset: delete every table, load-balancer service and SID of
 *	the namespace (tables first: their rules name services).  With
 *	TM_A_TXN_ID, at that transaction's commit; without, in a
 *	transaction of its own, committed at once: packets see the whole
 *	configuration or none of it.  EBUSY, and nothing changes, when
 *	another open transaction holds one of them.  Emits the events of
 *	each deletion.
 *
 * TM_CMD_TABLE_NEW (do, admin)
 *	Create a table and attach it to its netfilter hook.  Request:
 *	TM_A_TABLE_NAME (required), TM_A_TABLE_FAMILY (TM_FAMILY_*, default
 *	TM_FAMILY_INET), TM_A_TABLE_HOOK (TM_HOOK_*, default TM_HOOK_INPUT),
 *	TM_A_TABLE_PRIORITY (s32, netfilter priority, default 0),
 *	TM_A_TABLE_POLICY (TM_POLICY_*, verdict when no rule matches,
 *	default TM_POLICY_ACCEPT), TM_A_TABLE_ENGINE (TM_ENG_*, default
 *	TM_ENG_TUPLEMERGE).  Fails with EEXIST when a table of that name
 *	exists in the namespace, ENOSPC past TM_MAX_TABLES_PER_NET tables.
 *	Emits TM_CMD_TABLE_NEW to the TM_GENL_MCGRP_EVENTS group.  With
 *	TM_A_TXN_ID the table belongs to the transaction until its commit
 *	(see Transactions).
 *
 * TM_CMD_TABLE_DEL (do, admin)
 *	Delete a table by TM_A_TABLE_NAME, or every table of the namespace
 *	without it.  ENOENT when there is none of that name.  Emits
 *	TM_CMD_TABLE_DEL.  With TM_A_TXN_ID, at the commit.
 *
 * TM_CMD_TABLE_GET (do, dump, admin)
 *	do: the table named by TM_A_TABLE_NAME.  dump: every table of the
 *	namespace, ordered by TM_A_TABLE_HANDLE; a dump interrupted by a
 *	concurrent change is flagged NLM_F_DUMP_INTR.
 *	Reply: TM_A_TABLE_NAME, TM_A_TABLE_HANDLE, TM_A_TABLE_FAMILY,
 *	TM_A_TABLE_HOOK, TM_A_TABLE_PRIORITY, TM_A_TABLE_POLICY,
 *	TM_A_TABLE_ENGINE, TM_A_TABLE_RULES, TM_A_NET_GENERATION.
 *
 *	Tables also report their TupleMerge parameters (TM_A_TABLE_COLLIDE,
 *	TM_A_TABLE_MAX_RULES, TM_A_TABLE_MAX_TUPLES, settable at creation)
 *	and statistics: TM_A_TABLE_TUPLES (tuples, the hash tables of the
 *	tuple space), TM_A_TABLE_BYTES, TM_A_TABLE_LOOKUPS,
 *	TM_A_TABLE_MATCHES, TM_A_TABLE_PROBES (tuples probed by all
 *	lookups: PROBES / LOOKUPS is the average).
 *
 * Rules
 * -----
 *
 * A rule belongs to one table (TM_A_TABLE_NAME in every rule request) and
 * is known by its id, TM_A_RULE_ID, 1..TM_RULE_ID_MAX, unique in the table.
 * It matches a packet when every field it gives matches:
 *
 *	TM_A_RULE_FAMILY	u8, TM_FAMILY_*: IPV4, IPV6 or INET (both).
 *				Default: the family of the addresses, else
 *				the table's.  Must fit the table's family.
 *	TM_A_RULE_SRC/_DST	binary, 4 or 16 bytes, network byte order;
 *	TM_A_RULE_SRC_LEN/_DST_LEN  u8 prefix length (default: all bits).
 *				Bits past the prefix length must be zero.
 *	TM_A_RULE_SPORT_MIN/_MAX, TM_A_RULE_DPORT_MIN/_MAX
 *				u16, inclusive range; one end alone is a
 *				single port; default any.  Ports are those
 *				of TCP, UDP, UDP-Lite, SCTP and DCCP; every
 *				other packet, and a fragment other than the
 *				first, has ports 0.
 *	TM_A_RULE_PROTO		u8 IP protocol (IPv6: the upper-layer
 *				header after extension headers); default any.
 *	TM_A_RULE_IIF/_OIF	u32 ifindex of the input/output device.
 *	TM_A_RULE_CT_STATE	u8 set of conntrack states (enum
 *				tm_ct_state).  Not in a table at the
 *				prerouting or output hook that runs before
 *				conntrack (priority -200 or less).  The first
 *				such rule of a table turns conntrack on in
 *				the namespace for the table's families, until
 *				the table is deleted.
 *	TM_A_RULE_TCP_FLAGS, TM_A_RULE_TCP_FLAGS_MASK
 *				u8: the flags under the mask must be those;
 *				protocol tcp only.
 *	TM_A_RULE_ICMP_TYPE_MIN/_MAX, TM_A_RULE_ICMP_CODE_MIN/_MAX
 *				u8 ranges, as ports; protocol icmp (IPv4) or
 *				icmpv6 (IPv6), without ports.  A fragment
 *				other than the first has type and code 0.
 *	TM_A_RULE_META_MARK, TM_A_RULE_META_MARK_MASK
 *				u32: the packet's mark under the mask (default
 *				all bits) must be META_MARK; META_MARK has no
 *				bit outside the mask.
 *	TM_A_RULE_DSCP		u64 set of DSCP values (bit N: N, 0..63).
 *	TM_A_RULE_FRAGMENT	u8 set of enum tm_fragment.
 *
 * Sets.  TM_A_RULE_SRC_SET, TM_A_RULE_DST_SET, TM_A_RULE_SPORT_SET,
 * TM_A_RULE_DPORT_SET and TM_A_RULE_PROTO_SET each nest one or more
 * TM_A_RULE_SET_ELEM, a nest of the attributes of that field as a rule
 * gives them (TM_A_RULE_SRC and TM_A_RULE_SRC_LEN; TM_A_RULE_SPORT_MIN and
 * _MAX; TM_A_RULE_PROTO; ...), in place of the field's own attributes.  A
 * rule with sets matches a packet when one value of every set does and
 * its other fields do: one rule (one id, one pair of counters, reported
 * with its sets as given) that the classifier holds as the cross product
 * of the sets.  At most TM_SET_VALUES_MAX values in all, and at most
 * TM_SET_ENTRIES_MAX entries in the product; the entries count against
 * TM_A_TABLE_MAX_RULES.  A set's addresses are all of one family.
 *
 * Of the rules matching a packet the one with the LOWEST TM_A_RULE_PRIORITY
 * (u32, default 0) wins; between equal priorities the lower id wins.  So
 * rules with default priorities and increasing ids behave as an ordered
 * list where the first match wins.
 *
 * TM_A_RULE_ACTION (u8, enum tm_action, default TM_ACT_ACCEPT) is what the
 * winning rule does; every rule also counts the packets and bytes it wins
 * (TM_A_RULE_PACKETS, TM_A_RULE_BYTES, per-CPU counters summed on read).
 * Besides its action a rule may log and trace the packets it takes.
 * TM_A_RULE_LOG logs each through the kernel's nf_log, with
 * TM_A_RULE_LOG_PREFIX: to the kernel log at syslog level
 * TM_A_RULE_LOG_LEVEL (nf_log_syslog), to nflog group TM_A_RULE_LOG_GROUP
 * (nfnetlink_log), or without either to the logger bound to the family
 * (/proc/sys/net/netfilter/nf_log, nf_log_syslog when none is bound); at
 * most TM_A_RULE_LOG_RATE lines a second (TM_LOG_RATE_DEFAULT, at most
 * TM_LOG_RATE_MAX).
 * TM_A_RULE_TRACE sends each as a TM_CMD_TRACE event to the
 * TM_GENL_MCGRP_TRACE group: TM_A_TABLE_NAME, TM_A_RULE_ID,
 * TM_A_TRACE_HOOK, TM_A_TRACE_VERDICT, TM_A_TRACE_LEN and the packet's
 * key (TM_A_KEY_*), at most TM_TRACE_RATE a second in a namespace, the
 * events dropped meanwhile counted in the next one's TM_A_TRACE_MISSED.
 *
 * TM_A_RULE_COMMENT (string) and TM_A_RULE_COOKIE (u64) are the caller's,
 * stored and reported unchanged.
 *
 * TM_CMD_RULE_NEW (do, admin)
 *	Add a rule.  Without TM_A_RULE_ID the kernel assigns one above every
 *	id in use; with NLM_F_ECHO the reply carries the rule.  EEXIST when
 *	the id is in use, ENOSPC past the table's TM_A_TABLE_MAX_RULES or
 *	TM_A_TABLE_MAX_TUPLES.  Emits TM_CMD_RULE_NEW.
 *
 *	Several rules of one table may go in one request (a batch file's
 *	rules, without one message each): each a TM_A_RULE nest of its
 *	TM_A_RULE_* attributes, none at the top level, no NLM_F_ECHO.
 *	They are applied in order, each as if it came alone: one refused
 *	does not stop the next.  Each refusal is its own NLMSG_ERROR with
 *	the request's sequence number and an offset (NLMSGERR_ATTR_OFFS)
 *	inside that rule's nest, at the nest itself when no attribute is to
 *	blame; the last refusal is the request's own error, and without any
 *	the request succeeds.  So does TM_CMD_RULE_SET.
 * TM_CMD_RULE_SET (do, admin)
 *	Replace the rule TM_A_RULE_ID (ENOENT if none) by the one described,
 *	in one step: every packet sees the old or the new rule.  Its
 *	counters are kept unless TM_A_RULE_RESET_COUNTERS is given.  Emits
 *	TM_CMD_RULE_SET.
 * TM_CMD_RULE_DEL (do, admin)
 *	Delete the rule TM_A_RULE_ID.  Emits TM_CMD_RULE_DEL.
 * TM_CMD_RULE_GET (do, dump, admin)
 *	do: the rule TM_A_RULE_ID.  dump: every rule of the table, by
 *	increasing id, flagged NLM_F_DUMP_INTR if the namespace changed
 *	during the dump.
 * TM_CMD_RULE_LOOKUP (do, admin)
 *	Which rule of the table a packet would hit, without sending one: the
 *	key is TM_A_KEY_SRC, TM_A_KEY_DST (both, of one family),
 *	TM_A_KEY_SPORT, TM_A_KEY_DPORT (ICMP: type and code), TM_A_KEY_PROTO,
 *	TM_A_KEY_IIF, TM_A_KEY_OIF, TM_A_KEY_CT_STATE, TM_A_KEY_TCP_FLAGS,
 *	TM_A_KEY_MARK, TM_A_KEY_DSCP, TM_A_KEY_FRAGMENT (default 0: no
 *	conntrack entry is invalid).  Reply: the rule, or no TM_A_RULE_ID when
 *	none matches (the table's TM_A_TABLE_POLICY applies), and
 *	TM_A_LOOKUP_PROBES.
 * TM_CMD_COUNTERS_RESET (do, admin)
 *	Zero the counters of rule TM_A_RULE_ID, or of every rule of the
 *	table without it.
 *
 * Transactions
 * ------------
 *
 * TM_CMD_TXN_BEGIN (do, admin)
 *	Open a transaction; the reply carries its TM_A_TXN_ID.  Rule
 *	requests (NEW, SET, DEL) carrying that TM_A_TXN_ID are checked and
 *	applied to a copy of their table, each with its own error, and
 *	nothing changes for packets until the commit.  So are table
 *	requests (TABLE_NEW, TABLE_DEL): a table the transaction creates is
 *	hooked at once but lets every packet through, and only the
 *	transaction sees it (its name is reserved: EBUSY for others); one it
 *	deletes stays as it is for everyone else until the commit.  Deleting
 *	and creating the same name in one transaction replaces the table.
 *	So are SID requests (SID_NEW, SID_SET, SID_DEL), service and backend
 *	requests (LB_SERVICE_NEW, LB_SERVICE_DEL, LB_BACKEND_NEW,
 *	LB_BACKEND_DEL) and TM_CMD_FLUSH: a SID or service the transaction
 *	creates is seen by it alone (its address, or its name, SID and VIP,
 *	reserved: EBUSY for others), a rule of the transaction may name a
 *	service it creates, one it changes or deletes stays as it is for
 *	everyone else until the commit, and only one transaction at a time
 *	may change a given SID or service (EBUSY).  A SID or service deleted
 *	and created again alike in one transaction (same policy for a SID,
 *	every parameter for a service; e.g. a whole configuration loaded
 *	again after TM_CMD_FLUSH) stays the same object, keeping its
 *	connections or flows and its counters; a service's backends are
 *	then those the transaction gives it, its table rebuilt only if they
 *	differ.  A service's table is built once at the commit, however
 *	many backend changes the transaction made.  A change made outside
 *	the transaction to something it changed (a rule, a table, a SID, a
 *	service) spoils it: its next request and its commit fail with EBUSY.
 *	The table limit applies to what the namespace would hold, counting
 *	the tables the transaction deletes as gone.  A transaction belongs
 *	to the socket that opened it and ends when that socket closes.  At
 *	most TM_TXN_MAX_PER_NET per namespace, TM_TXN_MAX_OPS requests each.
 * TM_CMD_TXN_COMMIT (do, admin)
 *	Make every table the transaction changed switch to its new rules,
 *	its new tables start classifying and the tables it deletes stop,
 *	its SIDs and services be bound, changed or deleted, all in one step
 *	under the namespace lock (a packet crossing several tables at that
 *	instant may meet some before it and some after, as with nftables
 *	base chains; each table is switched whole).  EBUSY (nothing
 *	changes) when something it changed was changed outside it since;
 *	ENOMEM (nothing changes) when a service's table cannot be built.
 *	The transaction ends either way.  Emits the events of the SIDs and
 *	services it changed (as the single requests would), the tables it
 *	creates, one TM_CMD_TXN_COMMIT per table changed, with
 *	TM_A_TABLE_NAME and TM_A_TXN_OPS, then its deletions.
 * TM_CMD_TXN_ABORT (do, admin)
 *	Drop the transaction and its changes.
 *
 * Connection-acceptance SIDs (SRv6 load balancing, server side)
 * --------------------------------------------------------------
 *
 * A SID is an IPv6 address the server routes with the stock seg6local End
 * behaviour ("ip -6 route add SID encap seg6local action End dev DEV").
 * Bound to the module, the SID decides, for each TCP packet whose SRH
 * hunts through it, whether this server takes the connection: it then
 * removes the SRH, sets the destination to the VIP (segments[0]) and
 * delivers the packet locally; otherwise End passes it to the next
 * candidate.  The SRH is the load balancer's: segments[0] the VIP,
 * segments[1] the load balancer's SID, the candidates after them, so the
 * last candidate is the one with segments left 2; it always accepts.  A
 * SYN is judged by TM_A_SID_POLICY; another packet is taken when the
 * connection is one this SID accepted, else passed on (or taken by the
 * last candidate).  Binding the first SID switches the kernel's global
 * nf_hooks_lwtunnel_enabled key on, for good: from then on every
 * seg6local packet of every namespace goes through netfilter.
 *
 * TM_CMD_SID_NEW (do, admin)
 *	Bind TM_A_SID_ADDR with TM_A_SID_POLICY and, for CONNS, BACKLOG and
 *	LOAD, TM_A_SID_THRESHOLD; with TM_A_SID_HMAC_KEY, the SID takes the
 *	load balancer's packets only with a valid RFC 8754 HMAC TLV of that
 *	seg6 HMAC key ("ip sr hmac"), and signs its reports with it (see
 *	"HMAC" below).  EEXIST when it is bound, ENOSPC past
 *	TM_SID_MAX_PER_NET, EPERM while nf_hooks_lwtunnel_enabled is off and
 *	the caller lacks CAP_NET_ADMIN in the initial user namespace (the
 *	first SID switches that global key on).  Emits TM_CMD_SID_NEW.  With
 *	TM_A_TXN_ID, at the transaction's commit (as SET and DEL).
 *	The timeouts of the connections it accepts, in seconds
 *	(1..TM_LB_TIMEOUT_MAX, default TM_SID_*_TIMEOUT_DEFAULT):
 *	TM_A_SID_IDLE_TIMEOUT without a packet once the connection's socket
 *	is gone (an open socket keeps it), TM_A_SID_CLOSE_TIMEOUT after it
 *	closed, TM_A_SID_SYN_TIMEOUT that a handshake counts towards the
 *	policy, TM_A_SID_UDP_TIMEOUT without a datagram for a UDP flow.  The
 *	load balancer's recovery of a connection it forgot needs the server
 *	to remember it: keep IDLE and UDP at least the load balancer's idle
 *	timeout.
 * TM_CMD_SID_SET (do, admin)
 *	Give the bound TM_A_SID_ADDR a new policy (same attributes as NEW,
 *	the absent ones their defaults); it keeps its connections and
 *	counters, whose timeouts change at once.  ENOENT when it is not
 *	bound.
 *	Emits TM_CMD_SID_SET.
 * TM_CMD_SID_LOAD (do, admin)
 *	The application's report of its load, TM_A_SID_LOAD (any u32 scale,
 *	e.g. busy workers), for the LOAD policy of TM_A_SID_ADDR.  A report
 *	is state, not configuration: no event, no new generation.
 * TM_CMD_SID_DEL (do, admin)
 *	Unbind TM_A_SID_ADDR (its connections are forgotten).  Emits
 *	TM_CMD_SID_DEL.
 * TM_CMD_SID_GET (do, dump, admin)
 *	The binding of TM_A_SID_ADDR, or every binding of the namespace:
 *	TM_A_SID_ADDR, TM_A_SID_POLICY, TM_A_SID_THRESHOLD, TM_A_SID_CONNS,
 *	TM_A_SID_LOAD, TM_A_SID_DYN (policy dyn), TM_A_SID_HMAC_KEY (when
 *	set), the four timeouts and the counters
 *	TM_A_SID_ACCEPTED, _PASSED, _FORCED, _STEERED, _UNKNOWN, _MALFORMED,
 *	_REPORTS, _HMAC_BAD and _HMAC_NOKEY.
 *
 * Load-balancer services (SRv6 load balancing, LB side)
 * -----------------------------------------------------
 *
 * A service is a VIP (IPv6), a protocol (TCP) and a port (0: any) whose
 * new connections are sent through TM_A_LB_CHOICES candidate servers
 * picked by consistent hashing (a Maglev table of TM_A_LB_TABLE_SIZE
 * rows, rebuilt and swapped in one step whenever the backends change).
 * Packets reach a service through a rule with action TM_ACT_LB and
 * TM_A_RULE_LB_SERVICE its name, in an IPv6 or inet table at the
 * prerouting hook; a service is in use, and cannot be deleted, while a
 * rule names it.  The load balancer inserts an SRH tagged with enum
 * tm_srlb_tag: [VIP, TM_A_LB_SID, last candidate ... first], and the
 * accepting server reports itself by sending its replies to TM_A_LB_SID
 * (the load balancer's own SID, routed to it) until the load balancer
 * steers the flow straight to it; from then on it answers the client
 * directly.  The flow table remembers each connection (state enum
 * tm_lb_flow_state) for TM_A_LB_IDLE_TIMEOUT seconds without a packet,
 * TM_A_LB_FIN_TIMEOUT after a FIN or RST, TM_A_LB_SYN_TIMEOUT while no
 * server has answered, and holds at most TM_A_LB_MAX_FLOWS flows per
 * service; a packet of a flow it does not know (a restart, another load
 * balancer) hunts again, and only a server that knows the flow takes it
 * (or the last candidate, whose TCP resets a connection it does not know).
 *
 * TM_CMD_LB_SERVICE_NEW (do, admin)
 *	Create service TM_A_LB_NAME: TM_A_LB_VIP, TM_A_LB_SID (required),
 *	TM_A_LB_VIP_LEN (the VIP is a prefix of that length, 1..128, no bit
 *	set past it; default 128, one address: the service then serves each
 *	address of the prefix, the one a client connected to being its
 *	connection's VIP, and the load balancer's SID may not be in it),
 *	TM_A_LB_PROTO (IPPROTO_TCP, the default, or IPPROTO_UDP), TM_A_LB_PORT,
 *	TM_A_LB_CHOICES (1..TM_LB_MAX_CHOICES, default
 *	TM_LB_CHOICES_DEFAULT),
 *	TM_A_LB_TABLE_SIZE (a prime, default TM_LB_TABLE_SIZE_DEFAULT),
 *	TM_A_LB_MAX_FLOWS, the timeouts (1..TM_LB_TIMEOUT_MAX),
 *	TM_A_LB_AFFINITY (enum tm_lb_affinity, default none),
 *	TM_A_LB_HMAC_KEY (see "HMAC" below) and the health checks (see
 *	"Health" below).  EEXIST
 *	for a name or a SID in use, or a VIP another service serves (VIP
 *	prefixes that overlap) on an overlapping port (0 overlaps every
 *	port); ENOSPC past
 *	TM_LB_MAX_SERVICES.  Emits TM_CMD_LB_SERVICE_NEW.  With
 *	TM_A_TXN_ID, at the transaction's commit (as DEL and the backend
 *	commands).
 * TM_CMD_LB_SERVICE_DEL (do, admin)
 *	Delete TM_A_LB_NAME and its flows; EBUSY while a rule names it.
 * TM_CMD_LB_SERVICE_GET (do, dump, admin)
 *	The service, or every service: its configuration, TM_A_LB_BACKENDS,
 *	TM_A_LB_FLOWS and the counters TM_A_LB_HUNTS ... TM_A_LB_MALFORMED,
 *	TM_A_LB_REFUSED, TM_A_LB_EVICTED, TM_A_LB_NS_FULL, TM_A_LB_HMAC_BAD
 *	and TM_A_LB_HMAC_NOKEY.  Each backend comes with its figures since
 *	it was added: TM_A_LB_BACKEND_ACTIVE, _LEARNED and _FORCED, and,
 *	with health checks, TM_A_LB_BACKEND_HEALTH, _HEALTH_WHY, _PROBES,
 *	_PROBES_FAILED and _TRANSITIONS.
 * TM_CMD_LB_BACKEND_NEW, TM_CMD_LB_BACKEND_DEL (do, admin)
 *	Add the server SID TM_A_LB_BACKEND_SID to service TM_A_LB_NAME
 *	with TM_A_LB_BACKEND_WEIGHT (0..TM_LB_WEIGHT_MAX, default 1;
 *	ERANGE above, EEXIST if it is there, at
 *	most TM_LB_MAX_BACKENDS), or remove it.  The table is rebuilt and
 *	swapped in one step; flows whose server is known stay with it.
 *	A backend of weight 0 drains: it is offered no new connection, and
 *	the flows it has stay with it.  TM_A_LB_TABLES counts the tables
 *	built.  Emits the command.
 * TM_CMD_LB_BACKEND_SET (do, admin)
 *	Give backend TM_A_LB_BACKEND_SID of TM_A_LB_NAME the weight
 *	TM_A_LB_BACKEND_WEIGHT (required), in place (ENOENT if it is not
 *	there); 0 drains it.  Emits the command.
 * TM_CMD_LB_FLOW_GET (do, dump, admin)
 *	Dump: the flows of service TM_A_LB_NAME, or of every service:
 *	TM_A_LB_NAME, TM_A_LB_FLOW_CLIENT, _CPORT, _VIP, _VPORT, _STATE,
 *	_SERVER (once known) and _IDLE (milliseconds since its last packet).
 *	Do: where the connection TM_A_LB_FLOW_CLIENT (required), _CPORT
 *	(required) to TM_A_LB_FLOW_VIP (the service's VIP by default;
 *	required for a VIP prefix) and _VPORT (the service's port by
 *	default; required for a service of any port) would go, without a
 *	packet: TM_A_LB_FLOW_CANDIDATES in the order they are tried (empty
 *	when no backend takes new flows), and the flow's _STATE, _SERVER and
 *	_IDLE when the load balancer remembers it.
 * TM_CMD_LB_FLOW_FLUSH (do, admin)
 *	Forget the flows of TM_A_LB_NAME (as a restart of the load balancer
 *	would); their packets then hunt for the server that knows them.
 * TM_CMD_LB_BACKEND_HEALTH (event only)
 *	Backend TM_A_LB_BACKEND_SID (with _WEIGHT, _HEALTH and _HEALTH_WHY,
 *	not nested, as in the other backend events) of TM_A_LB_NAME went up
 *	or down.
 *
 * Health (TM_A_LB_HEALTH_INTERVAL, absent: none): every interval
 * (milliseconds, TM_LB_HEALTH_INTERVAL_MIN..TM_LB_HEALTH_INTERVAL_MAX),
 * the load balancer sends each backend a probe through the SRv6 path of
 * its traffic: from TM_A_LB_SID to the backend's SID, an SRH [LB SID,
 * backend SID] tagged TM_SRLB_TAG_PROBE (signed with the service's HMAC
 * key, if any), struct tm_srlb_probe after it (next header 59).  A
 * server whose module has the SID bound (and, with
 * TM_A_LB_HEALTH_LISTENER, a TCP listener on the VIP and port) retags it
 * TM_SRLB_TAG_PROBE_OK, or TM_SRLB_TAG_PROBE_NO_LISTENER, and its End
 * sends it back to the LB SID; an End without the module sends it back
 * as it was (the SID is not bound).  No answer within
 * TM_A_LB_HEALTH_TIMEOUT milliseconds (default
 * TM_LB_HEALTH_TIMEOUT_DEFAULT, at most the interval) fails too.  Only an
 * answer that carries the probe's random cookie counts.  After
 * TM_A_LB_HEALTH_FALL probes failed in a row (default
 * TM_LB_HEALTH_FALL_DEFAULT) a backend is down: it leaves the table's
 * rows as a weight of 0 would, and the flows the load balancer steers
 * to it are forgotten (their packets hunt again); after
 * TM_A_LB_HEALTH_RISE answered in a row (default
 * TM_LB_HEALTH_RISE_DEFAULT) it is up again.  A backend starts up.
 *
 * HMAC (TM_A_LB_HMAC_KEY, TM_A_SID_HMAC_KEY): a key id of the namespace's
 * seg6 HMAC keys ("ip sr hmac set KEYID sha256"), which need not exist
 * yet.  A service with one puts an HMAC TLV (RFC 8754 section 2.1.2, as
 * the kernel computes it) in every SRH it inserts, and drops a report
 * whose SRH has no HMAC TLV of that key id that verifies; a SID with one
 * does the same the other way.  A key missing when a packet is to be
 * signed or checked drops the packet (counted _HMAC_NOKEY).
 *
 * Every change bumps the namespace's generation number (TM_A_NET_GENERATION,
 * u64, starts at 0), which is also reported with every table and event.
 *
 * Errors carry an extended ACK message naming what was wrong, and the
 * attribute when one attribute is.
 */
#ifndef _UAPI_LINUX_TUPLEMERGE_H
#define _UAPI_LINUX_TUPLEMERGE_H

#define TM_GENL_NAME		"tuplemerge"
#define TM_GENL_VERSION		1
#define TM_GENL_MCGRP_EVENTS	"events"
#define TM_GENL_MCGRP_TRACE	"trace"

/* Longest table name, including the terminating NUL. */
#define TM_NAME_MAX		32
/* Tables one network namespace may hold. */
#define TM_MAX_TABLES_PER_NET	256
/* Longest rule comment, including the terminating NUL. */
#define TM_COMMENT_MAX		128
/* Highest rule id. */
#define TM_RULE_ID_MAX		0x7fffffffu
/*
 * Longest log prefix, including the NUL; log lines a second by default
 * and at most (the kernel's rate limit counts them in an int).
 */
#define TM_LOG_PREFIX_MAX	64
#define TM_LOG_RATE_DEFAULT	10
#define TM_LOG_RATE_MAX		1000000
/* Trace events a second, per namespace. */
#define TM_TRACE_RATE		1000

/* Values of a rule's sets in all, and entries of their cross product. */
#define TM_SET_VALUES_MAX	512
#define TM_SET_ENTRIES_MAX	4096
/*
 * Rules per table: default and highest TM_A_TABLE_MAX_RULES, which counts
 * the entries of set rules.
 */
#define TM_MAX_RULES_DEFAULT	(1u << 20)
#define TM_MAX_RULES_LIMIT	(1u << 24)
/* Hash tables per address family of a table: default, highest. */
#define TM_MAX_TUPLES_DEFAULT	4096
#define TM_MAX_TUPLES_LIMIT	65535
/* Open transactions per namespace, and requests per transaction. */
#define TM_TXN_MAX_PER_NET	16
#define TM_TXN_MAX_OPS		(1u << 22)

enum tm_cmd {
	TM_CMD_UNSPEC,
	TM_CMD_STATS_GET,
	TM_CMD_TABLE_NEW,
	TM_CMD_TABLE_DEL,
	TM_CMD_TABLE_GET,
	TM_CMD_RULE_NEW,
	TM_CMD_RULE_SET,
	TM_CMD_RULE_DEL,
	TM_CMD_RULE_GET,
	TM_CMD_RULE_LOOKUP,
	TM_CMD_COUNTERS_RESET,
	TM_CMD_TXN_BEGIN,
	TM_CMD_TXN_COMMIT,
	TM_CMD_TXN_ABORT,
	TM_CMD_SID_NEW,
	TM_CMD_SID_DEL,
	TM_CMD_SID_GET,
	TM_CMD_SID_SET,
	TM_CMD_SID_LOAD,
	TM_CMD_LB_SERVICE_NEW,
	TM_CMD_LB_SERVICE_DEL,
	TM_CMD_LB_SERVICE_GET,
	TM_CMD_LB_BACKEND_NEW,
	TM_CMD_LB_BACKEND_DEL,
	TM_CMD_LB_FLOW_GET,
	TM_CMD_LB_FLOW_FLUSH,
	TM_CMD_FLUSH,
	TM_CMD_TRACE,
	TM_CMD_LB_BACKEND_SET,
	TM_CMD_LB_BACKEND_HEALTH,

	__TM_CMD_MAX,
	TM_CMD_MAX = __TM_CMD_MAX - 1
};

/* Which packets a table sees. */
enum tm_family {
	TM_FAMILY_UNSPEC,
	TM_FAMILY_IPV4,		/* "ip" */
	TM_FAMILY_IPV6,		/* "ip6" */
	TM_FAMILY_INET,		/* "inet": IPv4 and IPv6 */

	__TM_FAMILY_MAX,
	TM_FAMILY_MAX = __TM_FAMILY_MAX - 1
};

/* Netfilter hooks, in the order and with the values of NF_INET_*. */
enum tm_hook {
	TM_HOOK_PREROUTING,
	TM_HOOK_INPUT,
	TM_HOOK_FORWARD,
	TM_HOOK_OUTPUT,
	TM_HOOK_POSTROUTING,

	__TM_HOOK_MAX,
	TM_HOOK_MAX = __TM_HOOK_MAX - 1
};

/* What a table does with a packet no rule matches. */
enum tm_policy {
	TM_POLICY_ACCEPT,
	TM_POLICY_DROP,

	__TM_POLICY_MAX,
	TM_POLICY_MAX = __TM_POLICY_MAX - 1
};

/* Classification engines (see Documentation/classifier.rst). */
enum tm_engine_type {
	TM_ENG_TUPLEMERGE,
	TM_ENG_TSS,
	TM_ENG_LINEAR,

	__TM_ENG_MAX,
	TM_ENG_MAX = __TM_ENG_MAX - 1
};

/* What the winning rule does with a packet. */
enum tm_action {
	TM_ACT_ACCEPT,		/* let it go on to the next hook */
	TM_ACT_DROP,
	TM_ACT_REJECT,		/* drop and answer, see enum tm_reject */
	TM_ACT_MARK,		/* set skb->mark to TM_A_RULE_MARK; then the
				 * table's policy, like an nft chain's end
				 */
	TM_ACT_COUNT,		/* count only; then the table's policy */
	TM_ACT_LB,		/* hand to load-balancer service
				 * TM_A_RULE_LB_SERVICE (IPv6 rules of a
				 * prerouting table only)
				 */
	TM_ACT_QUEUE,		/* to userspace: NFQUEUE queue
				 * TM_A_RULE_QUEUE_NUM; without a reader
				 * dropped, or accepted with
				 * TM_A_RULE_QUEUE_BYPASS
				 */

	__TM_ACT_MAX,
	TM_ACT_MAX = __TM_ACT_MAX - 1
};

/*
 * How TM_ACT_REJECT answers.  AUTO: a TCP reset to TCP segments, port
 * unreachable to everything else.  Reject works at the prerouting, input,
 * forward and output hooks.
 */
enum tm_reject {
	TM_REJECT_AUTO,
	TM_REJECT_TCP_RESET,	/* TCP only */
	TM_REJECT_PORT_UNREACH,	/* ICMP port / ICMPv6 port unreachable */
	TM_REJECT_HOST_UNREACH,	/* ICMP host / ICMPv6 address unreachable */
	TM_REJECT_ADMIN,	/* ICMP/ICMPv6 administratively prohibited */

	__TM_REJECT_MAX,
	TM_REJECT_MAX = __TM_REJECT_MAX - 1
};

/*
 * How a server's connection-acceptance SID decides on a new connection
 * (a TCP SYN hunting through the candidates of its SRH).  The last
 * candidate always accepts, whatever its policy.
 */
enum tm_sid_policy {
	TM_SID_POLICY_UNSPEC,
	TM_SID_POLICY_ALWAYS,	/* accept every new connection */
	TM_SID_POLICY_NEVER,	/* accept only as the last candidate */
	TM_SID_POLICY_CONNS,	/* accept while the connections this SID
				 * accepted and has not seen close are fewer
				 * than TM_A_SID_THRESHOLD (SR_c)
				 */
	TM_SID_POLICY_BACKLOG,	/* accept while the accept queue of the
				 * VIP's listener holds fewer than
				 * TM_A_SID_THRESHOLD connections
				 */
	TM_SID_POLICY_LOAD,	/* accept while the load the application
				 * last reported (TM_CMD_SID_LOAD) is below
				 * TM_A_SID_THRESHOLD
				 */
	TM_SID_POLICY_DYN,	/* as CONNS, with a threshold the SID adapts
				 * itself (TM_A_SID_DYN), from 1 to
				 * TM_A_SID_THRESHOLD (at most
				 * TM_SID_DYN_MAX), so that it accepts 1/k
				 * of the new connections it is offered
				 * before the last of k candidates
				 */

	__TM_SID_POLICY_MAX,
	TM_SID_POLICY_MAX = __TM_SID_POLICY_MAX - 1
};

/* Connection-acceptance SIDs per namespace. */
#define TM_SID_MAX_PER_NET	1024
/* The highest threshold of the dyn policy. */
#define TM_SID_DYN_MAX		16384
/* Connections a namespace's servers track, at most. */
#define TM_SID_MAX_FLOWS	(1u << 20)

/* Load-balancer services per namespace, backends per service. */
#define TM_LB_MAX_SERVICES	256
#define TM_LB_MAX_BACKENDS	256
/* A backend's weight: 0 (draining)..TM_LB_WEIGHT_MAX. */
#define TM_LB_WEIGHT_MAX	65535
/* Candidates a new connection hunts through: default, at most. */
#define TM_LB_CHOICES_DEFAULT	2
#define TM_LB_MAX_CHOICES	8
/* Rows of a service's consistent-hash table (a prime), by default. */
#define TM_LB_TABLE_SIZE_DEFAULT	65537
#define TM_LB_TABLE_SIZE_MAX	1048573
/* Flows a service remembers, default and highest; timeouts (seconds). */
#define TM_LB_MAX_FLOWS_DEFAULT	(1u << 20)
#define TM_LB_MAX_FLOWS_LIMIT	(1u << 24)
#define TM_LB_IDLE_TIMEOUT_DEFAULT	40
#define TM_LB_FIN_TIMEOUT_DEFAULT	10
#define TM_LB_SYN_TIMEOUT_DEFAULT	5
#define TM_LB_TIMEOUT_MAX	86400
/* A server's timeouts (seconds, 1..TM_LB_TIMEOUT_MAX), by default. */
#define TM_SID_IDLE_TIMEOUT_DEFAULT	60
#define TM_SID_CLOSE_TIMEOUT_DEFAULT	2
#define TM_SID_SYN_TIMEOUT_DEFAULT	3
#define TM_SID_UDP_TIMEOUT_DEFAULT	30
/* Health checks: milliseconds between probes, a probe's timeout; counts. */
#define TM_LB_HEALTH_INTERVAL_MIN	100
#define TM_LB_HEALTH_INTERVAL_MAX	3600000
#define TM_LB_HEALTH_TIMEOUT_DEFAULT	1000
#define TM_LB_HEALTH_RISE_DEFAULT	2
#define TM_LB_HEALTH_FALL_DEFAULT	3
#define TM_LB_HEALTH_COUNT_MAX		100

/*
 * The tag of the SRHs of SRv6 load balancing (in the SRH's 16-bit tag
 * field, network order), which tells a server what the packet is for.
 * An SRH with another tag (e.g. 0, inserted by a client or a router) is
 * judged like TM_SRLB_TAG_CONNECT, but the server does not report.
 */
enum tm_srlb_tag {
	TM_SRLB_TAG_NONE,
	TM_SRLB_TAG_CONNECT = 0x5201,	/* LB: a new connection hunting */
	TM_SRLB_TAG_RECOVER,		/* LB: a flow it does not know; only
					 * a server that knows it takes it
					 */
	TM_SRLB_TAG_STEER,		/* LB: to the server it learned */
	TM_SRLB_TAG_REPORT,		/* server to LB: [client, server SID,
					 * LB SID], a reply of the connection
					 */
	TM_SRLB_TAG_PROBE,		/* LB: [LB SID, server SID], a health
					 * check; back unchanged from an End
					 * without the module
					 */
	TM_SRLB_TAG_PROBE_OK,		/* server: the probe, answered */
	TM_SRLB_TAG_PROBE_NO_LISTENER,	/* server: the probe, no listener */
	TM_SRLB_TAG_DGRAM,		/* LB: a UDP datagram of a flow it
					 * does not know, new or not:
					 * [VIP, LB SID, c_k ... c_1,
					 * c_2 ... c_k] visits the candidates
					 * c_k ... c_2 first, where only a
					 * server that knows the flow takes
					 * it, then c_1 ... c_k as CONNECT
					 */
};

/**
 * struct tm_srlb_probe - what follows the SRH of a health check (next
 * header 59, no next header), on the wire
 * @cookie: random, new for each probe; an answer must carry it
 * @vip: the service's VIP
 * @port: the service's port, network order (0: any)
 * @proto: the service's protocol
 * @flags: TM_SRLB_PROBE_LISTENER: check a listener on @vip and @port
 * @pad: zero
 */
struct tm_srlb_probe {
	__u64 cookie;
	__u8 vip[16];
	__be16 port;
	__u8 proto;
	__u8 flags;
	__u32 pad;
};

#define TM_SRLB_PROBE_LISTENER	0x01

/* A backend's health (TM_A_LB_BACKEND_HEALTH). */
enum tm_lb_health {
	TM_LB_HEALTH_NONE,	/* the service checks none */
	TM_LB_HEALTH_UP,
	TM_LB_HEALTH_DOWN,

	__TM_LB_HEALTH_MAX,
	TM_LB_HEALTH_MAX = __TM_LB_HEALTH_MAX - 1
};

/* What made the last failed probe fail (TM_A_LB_BACKEND_HEALTH_WHY). */
enum tm_lb_health_why {
	TM_LB_HEALTH_WHY_NONE,		/* none failed */
	TM_LB_HEALTH_WHY_TIMEOUT,	/* no answer in time */
	TM_LB_HEALTH_WHY_UNBOUND,	/* back from an End without the SID
					 * bound to the module
					 */
	TM_LB_HEALTH_WHY_NO_LISTENER,	/* no listener on the VIP and port */
	TM_LB_HEALTH_WHY_NO_ROUTE,	/* not sent: no route to the SID */

	__TM_LB_HEALTH_WHY_MAX,
	TM_LB_HEALTH_WHY_MAX = __TM_LB_HEALTH_WHY_MAX - 1
};

/*
 * What picks a connection's candidates (TM_A_LB_AFFINITY): its addresses
 * and ports, or the client's address only, so that every connection of a
 * client hunts through the same servers.
 */
enum tm_lb_affinity {
	TM_LB_AFFINITY_NONE,	/* the connection: client, port, VIP, port */
	TM_LB_AFFINITY_SRC,	/* the client's address */

	__TM_LB_AFFINITY_MAX,
	TM_LB_AFFINITY_MAX = __TM_LB_AFFINITY_MAX - 1
};

/* Where the load balancer is with a flow. */
enum tm_lb_flow_state {
	TM_LB_FLOW_HUNT,	/* SYN sent through the candidates */
	TM_LB_FLOW_RECOVER,	/* unknown flow hunting for its server */
	TM_LB_FLOW_STEER,	/* the server is known */
	TM_LB_FLOW_CLOSING,	/* a FIN or RST went by */

	__TM_LB_FLOW_MAX,
	TM_LB_FLOW_MAX = __TM_LB_FLOW_MAX - 1
};

/*
 * Connection tracking states.  TM_A_RULE_CT_STATE is a set: bit
 * 1 << state for each state the rule matches; TM_A_KEY_CT_STATE is one
 * state.  A packet without a conntrack entry is invalid, as for nftables'
 * "ct state".
 */
enum tm_ct_state {
	TM_CT_STATE_INVALID,
	TM_CT_STATE_NEW,
	TM_CT_STATE_ESTABLISHED,
	TM_CT_STATE_RELATED,
	TM_CT_STATE_UNTRACKED,

	__TM_CT_STATE_MAX,
	TM_CT_STATE_MAX = __TM_CT_STATE_MAX - 1
};

/* Every state, the largest TM_A_RULE_CT_STATE. */
#define TM_CT_STATE_SET		0x1f

/*
 * What part of a datagram a packet is.  TM_A_RULE_FRAGMENT is a set as
 * TM_A_RULE_CT_STATE is; TM_A_KEY_FRAGMENT one kind.
 */
enum tm_fragment {
	TM_FRAGMENT_NONE,	/* not a fragment */
	TM_FRAGMENT_FIRST,	/* offset 0, more fragments follow */
	TM_FRAGMENT_LATER,	/* offset past 0: no transport header */

	__TM_FRAGMENT_MAX,
	TM_FRAGMENT_MAX = __TM_FRAGMENT_MAX - 1
};

/* Every kind, the largest TM_A_RULE_FRAGMENT. */
#define TM_FRAGMENT_SET		0x07

enum tm_attr {
	TM_A_UNSPEC,
	TM_A_PAD,
	TM_A_NET_TABLES,	/* u32: tables in the namespace */
	TM_A_NET_GENERATION,	/* u64: generation of the namespace */
	TM_A_TABLE_NAME,	/* string, at most TM_NAME_MAX - 1 bytes */
	TM_A_TABLE_HANDLE,	/* u32: assigned by the kernel, never reused */
	TM_A_TABLE_FAMILY,	/* u8: enum tm_family */
	TM_A_TABLE_HOOK,	/* u8: enum tm_hook */
	TM_A_TABLE_PRIORITY,	/* s32: netfilter hook priority */
	TM_A_TABLE_POLICY,	/* u8: enum tm_policy */
	TM_A_TABLE_ENGINE,	/* u8: enum tm_engine_type */
	TM_A_TABLE_RULES,	/* u32: rules in the table */
	TM_A_TABLE_COLLIDE,	/* u8: TupleMerge collision limit, 1..128 */
	TM_A_TABLE_MAX_RULES,	/* u32: 1..TM_MAX_RULES_LIMIT */
	TM_A_TABLE_MAX_TUPLES,	/* u32: 1..TM_MAX_TUPLES_LIMIT, per family */
	TM_A_TABLE_TUPLES,	/* u32: tuples (hash tables) in use */
	TM_A_TABLE_BYTES,	/* u64: memory used by the rules */
	TM_A_TABLE_LOOKUPS,	/* u64: packets classified */
	TM_A_TABLE_MATCHES,	/* u64: of which a rule matched */
	TM_A_TABLE_PROBES,	/* u64: tuples probed, in all */
	TM_A_RULE_ID,		/* u32: 1..TM_RULE_ID_MAX */
	TM_A_RULE_PRIORITY,	/* u32: lower wins */
	TM_A_RULE_FAMILY,	/* u8: enum tm_family */
	TM_A_RULE_SRC,		/* binary: 4 or 16 bytes, network order */
	TM_A_RULE_SRC_LEN,	/* u8: prefix length */
	TM_A_RULE_DST,		/* binary */
	TM_A_RULE_DST_LEN,	/* u8 */
	TM_A_RULE_SPORT_MIN,	/* u16 */
	TM_A_RULE_SPORT_MAX,	/* u16 */
	TM_A_RULE_DPORT_MIN,	/* u16 */
	TM_A_RULE_DPORT_MAX,	/* u16 */
	TM_A_RULE_PROTO,	/* u8: absent = any */
	TM_A_RULE_IIF,		/* u32: ifindex, absent = any */
	TM_A_RULE_OIF,		/* u32 */
	TM_A_RULE_ACTION,	/* u8: enum tm_action */
	TM_A_RULE_REJECT,	/* u8: enum tm_reject */
	TM_A_RULE_MARK,		/* u32 */
	TM_A_RULE_LB_SERVICE,	/* string: the service of TM_ACT_LB */
	TM_A_RULE_COMMENT,	/* string, at most TM_COMMENT_MAX - 1 bytes */
	TM_A_RULE_COOKIE,	/* u64 */
	TM_A_RULE_PACKETS,	/* u64: packets that hit the rule */
	TM_A_RULE_BYTES,	/* u64: their bytes */
	TM_A_RULE_RESET_COUNTERS,	/* flag: TM_CMD_RULE_SET */
	TM_A_KEY_SRC,		/* binary: 4 or 16 bytes, network order */
	TM_A_KEY_DST,		/* binary */
	TM_A_KEY_SPORT,		/* u16 */
	TM_A_KEY_DPORT,		/* u16 */
	TM_A_KEY_PROTO,		/* u8 */
	TM_A_KEY_IIF,		/* u32 */
	TM_A_KEY_OIF,		/* u32 */
	TM_A_LOOKUP_PROBES,	/* u32: tuples the lookup probed */
	TM_A_TXN_ID,		/* u32 */
	TM_A_TXN_OPS,		/* u32: requests a commit applied */
	TM_A_SID_ADDR,		/* binary: 16 bytes, the SID (an IPv6 address
				 * routed with "encap seg6local action End")
				 */
	TM_A_SID_POLICY,	/* u8: enum tm_sid_policy */
	TM_A_SID_THRESHOLD,	/* u32: for CONNS, BACKLOG, LOAD; at least 1 */
	TM_A_SID_CONNS,		/* u32: connections accepted, not closed */
	TM_A_SID_ACCEPTED,	/* u64: new connections accepted by policy */
	TM_A_SID_PASSED,	/* u64: new connections passed on */
	TM_A_SID_FORCED,	/* u64: accepted as the last candidate */
	TM_A_SID_STEERED,	/* u64: packets of known connections taken */
	TM_A_SID_UNKNOWN,	/* u64: packets of unknown connections that
				 * were not SYNs, passed on (or taken by the
				 * last candidate)
				 */
	TM_A_SID_MALFORMED,	/* u64: packets dropped, bad SRH */
	TM_A_SID_LOAD,		/* u32: the load the application reported */
	TM_A_SID_REPORTS,	/* u64: replies sent through the LB */
	TM_A_LB_NAME,		/* string, at most TM_NAME_MAX - 1 bytes */
	TM_A_LB_VIP,		/* binary: 16 bytes */
	TM_A_LB_PROTO,		/* u8: IPPROTO_TCP or IPPROTO_UDP */
	TM_A_LB_PORT,		/* u16: 0 = any */
	TM_A_LB_SID,		/* binary: 16 bytes, the LB's SID */
	TM_A_LB_CHOICES,	/* u8: candidates per connection */
	TM_A_LB_TABLE_SIZE,	/* u32: a prime */
	TM_A_LB_MAX_FLOWS,	/* u32 */
	TM_A_LB_IDLE_TIMEOUT,	/* u32: seconds */
	TM_A_LB_FIN_TIMEOUT,	/* u32: seconds */
	TM_A_LB_SYN_TIMEOUT,	/* u32: seconds */
	TM_A_LB_BACKENDS,	/* nest of TM_A_LB_BACKEND */
	TM_A_LB_BACKEND,	/* nest: TM_A_LB_BACKEND_SID, _WEIGHT */
	TM_A_LB_BACKEND_SID,	/* binary: 16 bytes, a server's SID */
	TM_A_LB_BACKEND_WEIGHT,	/* u32: 1..TM_LB_WEIGHT_MAX */
	TM_A_LB_FLOWS,		/* u32: flows remembered now */
	TM_A_LB_HUNTS,		/* u64: new connections sent hunting */
	TM_A_LB_RECOVERIES,	/* u64: packets of unknown flows hunting */
	TM_A_LB_STEERED,	/* u64: packets sent to the known server */
	TM_A_LB_REPORTS,	/* u64: server replies forwarded */
	TM_A_LB_LEARNED,	/* u64: flows whose server became known */
	TM_A_LB_EXPIRED,	/* u64: flows aged out (evicted) */
	TM_A_LB_FULL,		/* u64: flows not remembered, table full */
	TM_A_LB_DROPPED,	/* u64: packets dropped (no backend, not
				 * the service's VIP/port, no memory)
				 */
	TM_A_LB_TOO_BIG,	/* u64: too big with the SRH; ICMPv6 sent */
	TM_A_LB_MALFORMED,	/* u64: bad reports dropped */
	TM_A_LB_FLOW_CLIENT,	/* binary: 16 bytes */
	TM_A_LB_FLOW_CPORT,	/* u16 */
	TM_A_LB_FLOW_VPORT,	/* u16 */
	TM_A_LB_FLOW_STATE,	/* u8: enum tm_lb_flow_state */
	TM_A_LB_FLOW_SERVER,	/* binary: 16 bytes, the accepting server */
	TM_A_LB_FLOW_IDLE,	/* u32: milliseconds since its last packet */
	TM_A_LB_REFUSED,	/* u64: reports refused (no flow hunted or
				 * steered, or not a candidate server)
				 */
	TM_A_LB_EVICTED,	/* u64: half-open flows evicted for room */
	TM_A_LB_NS_FULL,	/* u64: flows not remembered, the namespace's
				 * limit (or its memory cgroup's) reached
				 */
	TM_A_LB_HMAC_KEY,	/* u32: seg6 HMAC key id (1..), absent: none */
	TM_A_LB_HMAC_BAD,	/* u64: reports dropped, HMAC missing or wrong */
	TM_A_LB_HMAC_NOKEY,	/* u64: packets dropped, the key is not set */
	TM_A_SID_HMAC_KEY,	/* u32: seg6 HMAC key id (1..), absent: none */
	TM_A_SID_HMAC_BAD,	/* u64: LB packets dropped, HMAC missing or
				 * wrong
				 */
	TM_A_SID_HMAC_NOKEY,	/* u64: packets dropped, the key is not set */
	TM_A_RULE_CT_STATE,	/* u8: set of 1 << enum tm_ct_state */
	TM_A_RULE_TCP_FLAGS,	/* u8: TCP header flags (FIN 0x01 .. CWR
				 * 0x80) wanted under TM_A_RULE_TCP_FLAGS_MASK
				 */
	TM_A_RULE_TCP_FLAGS_MASK,	/* u8: the flags looked at; protocol
					 * tcp only
					 */
	TM_A_RULE_ICMP_TYPE_MIN,	/* u8: ICMP or ICMPv6 type range (rule
					 * protocol icmp or icmpv6, no ports)
					 */
	TM_A_RULE_ICMP_TYPE_MAX,	/* u8 */
	TM_A_RULE_ICMP_CODE_MIN,	/* u8: code range, likewise */
	TM_A_RULE_ICMP_CODE_MAX,	/* u8 */
	TM_A_RULE_META_MARK,	/* u32: the packet's mark wanted, under */
	TM_A_RULE_META_MARK_MASK,	/* u32: absent: 0xffffffff */
	TM_A_RULE_DSCP,		/* u64: set of DSCP values, bit N for N */
	TM_A_RULE_FRAGMENT,	/* u8: set of 1 << enum tm_fragment */
	TM_A_KEY_CT_STATE,	/* u8: enum tm_ct_state */
	TM_A_KEY_TCP_FLAGS,	/* u8 */
	TM_A_KEY_MARK,		/* u32 */
	TM_A_KEY_DSCP,		/* u8: 0..63 */
	TM_A_KEY_FRAGMENT,	/* u8: enum tm_fragment */
	TM_A_RULE_SRC_SET,	/* nest of TM_A_RULE_SET_ELEM: SRC, SRC_LEN */
	TM_A_RULE_DST_SET,	/* nest of TM_A_RULE_SET_ELEM: DST, DST_LEN */
	TM_A_RULE_SPORT_SET,	/* nest of TM_A_RULE_SET_ELEM: SPORT_MIN, _MAX */
	TM_A_RULE_DPORT_SET,	/* nest of TM_A_RULE_SET_ELEM: DPORT_MIN, _MAX */
	TM_A_RULE_PROTO_SET,	/* nest of TM_A_RULE_SET_ELEM: PROTO */
	TM_A_RULE_SET_ELEM,	/* nest: one value of a set */
	TM_A_TABLE_ENTRIES,	/* u32: classifier entries of the rules */
	TM_A_RULE_QUEUE_NUM,	/* u16: TM_ACT_QUEUE's queue */
	TM_A_RULE_QUEUE_BYPASS,	/* flag: no reader, accept (else drop) */
	TM_A_RULE_LOG,		/* flag: log the packets the rule takes */
	TM_A_RULE_LOG_PREFIX,	/* string, at most TM_LOG_PREFIX_MAX - 1 */
	TM_A_RULE_LOG_LEVEL,	/* u8: syslog level 0..7, by nf_log_syslog */
	TM_A_RULE_LOG_GROUP,	/* u16: nflog group, by nfnetlink_log */
	TM_A_RULE_LOG_RATE,	/* u32: lines a second at most, default
				 * TM_LOG_RATE_DEFAULT
				 */
	TM_A_RULE_TRACE,	/* flag: TM_CMD_TRACE events of its packets */
	TM_A_TRACE_VERDICT,	/* u32: the netfilter verdict (NF_ACCEPT 1,
				 * NF_DROP 0, NF_STOLEN 2, NF_QUEUE 3 with
				 * the queue in the upper 16 bits)
				 */
	TM_A_TRACE_HOOK,	/* u8: enum tm_hook */
	TM_A_TRACE_LEN,		/* u32: the packet's length */
	TM_A_TRACE_MISSED,	/* u64: events the rate limit dropped before */
	TM_A_LB_TABLES,		/* u32: tables the service built (one per
				 * change, one per transaction's commit)
				 */
	TM_A_LB_BACKEND_ACTIVE,	/* u32: flows remembered whose server it is */
	TM_A_LB_BACKEND_LEARNED,	/* u64: flows whose server it became */
	TM_A_LB_BACKEND_FORCED,	/* u64: of those, taken as the last
				 * candidate
				 */
	TM_A_LB_FLOW_CANDIDATES,	/* nest of TM_A_LB_BACKEND (its
					 * _SID): a flow's candidates in the
					 * order they are tried
					 */
	TM_A_LB_AFFINITY,	/* u8: enum tm_lb_affinity */
	TM_A_LB_HEALTH_INTERVAL,	/* u32: milliseconds between probes,
					 * absent: no health checks
					 */
	TM_A_LB_HEALTH_TIMEOUT,	/* u32: milliseconds, at most the interval */
	TM_A_LB_HEALTH_RISE,	/* u32: answers in a row to come up */
	TM_A_LB_HEALTH_FALL,	/* u32: failures in a row to go down */
	TM_A_LB_HEALTH_LISTENER,	/* flag: the server checks a listener */
	TM_A_LB_BACKEND_HEALTH,	/* u8: enum tm_lb_health */
	TM_A_LB_BACKEND_HEALTH_WHY,	/* u8: enum tm_lb_health_why */
	TM_A_LB_BACKEND_PROBES,	/* u64: probes sent */
	TM_A_LB_BACKEND_PROBES_FAILED,	/* u64: probes failed */
	TM_A_LB_BACKEND_TRANSITIONS,	/* u64: times it went up or down */
	TM_A_SID_IDLE_TIMEOUT,	/* u32: seconds an idle connection whose
				 * socket is gone is kept
				 */
	TM_A_SID_CLOSE_TIMEOUT,	/* u32: seconds a closed one is kept */
	TM_A_SID_SYN_TIMEOUT,	/* u32: seconds a handshake counts */
	TM_A_SID_UDP_TIMEOUT,	/* u32: seconds an idle UDP flow is kept */
	TM_A_LB_VIP_LEN,	/* u8: the VIP's prefix length, 1..128,
				 * absent: 128
				 */
	TM_A_LB_FLOW_VIP,	/* binary: 16 bytes, the address the client
				 * connected to
				 */
	TM_A_SID_DYN,		/* u32: the threshold the dyn policy adapted,
				 * in thousandths of a connection
				 */
	TM_A_RULE,		/* nest: one rule of TM_CMD_RULE_NEW or _SET
				 * carrying several, its TM_A_RULE_*
				 */

	__TM_A_MAX,
	TM_A_MAX = __TM_A_MAX - 1
};

#endif /* _UAPI_LINUX_TUPLEMERGE_H */
