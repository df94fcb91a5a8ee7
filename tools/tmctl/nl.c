// SPDX-License-Identifier: GPL-2.0
/*
 * The netlink session with the module: one generic netlink socket, the
 * family id and its events multicast group resolved once, requests sent
 * with an ACK and every reply or error read back, keeping the kernel's
 * extended ACK (message and bad attribute offset) so that the user sees
 * why a request was refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "tmctl.h"

/* bookworm's libmnl 1.0.4 has no MNL_SOCKET_DUMP_SIZE: use 32 KiB. */
#define TM_NL_BUFSZ	32768

static struct mnl_socket *tm_sock;
static uint16_t tm_family_id;
static uint32_t tm_events_grp;
static uint32_t tm_trace_grp;
static uint32_t tm_seq;

bool tm_nl_dump_intr;

static void tm_nl_die(const char *what)
{
	fprintf(stderr, "tmctl: %s: %s\n", what, strerror(errno));
	exit(TMCTL_EKERNEL);
}

struct tm_genl_info {
	uint16_t id;
	uint32_t events;
	uint32_t trace;
};

static void tm_family_groups(const struct nlattr *groups,
			     struct tm_genl_info *f)
{
	const struct nlattr *grp, *attr;

	mnl_attr_for_each_nested(grp, groups) {
		const char *name = NULL;
		uint32_t id = 0;

		mnl_attr_for_each_nested(attr, grp) {
			int type = mnl_attr_get_type(attr);

			if (type == CTRL_ATTR_MCAST_GRP_NAME &&
			    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0)
				name = mnl_attr_get_str(attr);
			if (type == CTRL_ATTR_MCAST_GRP_ID &&
			    mnl_attr_validate(attr, MNL_TYPE_U32) >= 0)
				id = mnl_attr_get_u32(attr);
		}
		if (name && !strcmp(name, TM_GENL_MCGRP_EVENTS))
			f->events = id;
		if (name && !strcmp(name, TM_GENL_MCGRP_TRACE))
			f->trace = id;
	}
}

static int tm_family_cb(const struct nlmsghdr *nlh, void *data)
{
	struct tm_genl_info *f = data;
	struct nlattr *attr;

	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(attr) == CTRL_ATTR_FAMILY_ID &&
		    mnl_attr_validate(attr, MNL_TYPE_U16) >= 0)
			f->id = mnl_attr_get_u16(attr);
		if (mnl_attr_get_type(attr) == CTRL_ATTR_MCAST_GROUPS)
			tm_family_groups(attr, f);
	}
	return MNL_CB_OK;
}

int tm_nl_parse_error(const struct nlmsghdr *nlh, struct tm_nlerr *e)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	unsigned int off = sizeof(*err);
	struct nlattr *attr;

	memset(e, 0, sizeof(*e));
	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*err))) {
		e->error = EBADMSG;
		return -1;
	}
	e->error = -err->error;
	e->seq = err->msg.nlmsg_seq;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += mnl_nlmsg_get_payload_len(&err->msg);
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) ||
	    mnl_nlmsg_size(off) > nlh->nlmsg_len)
		return 0;
	mnl_attr_for_each(attr, nlh, off) {
		switch (mnl_attr_get_type(attr)) {
		case NLMSGERR_ATTR_MSG:
			if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0)
				snprintf(e->msg, sizeof(e->msg), "%s",
					 mnl_attr_get_str(attr));
			break;
		case NLMSGERR_ATTR_OFFS:
			if (mnl_attr_validate(attr, MNL_TYPE_U32) >= 0) {
				e->offs = mnl_attr_get_u32(attr);
				e->has_offs = true;
			}
			break;
		}
	}
	return 0;
}

void tm_nl_print_reason(FILE *f, const struct tm_nlerr *e)
{
	if (e->error == EPERM)
		fprintf(f, "%s (needs CAP_NET_ADMIN)",
			e->msg[0] ? e->msg : strerror(e->error));
	else if (e->msg[0])
		fprintf(f, "%s (%s)", e->msg, strerror(e->error));
	else
		fputs(strerror(e->error), f);
}

/*
 * libmnl hands the same data pointer to the message and the control
 * callbacks: both get this context and find their own part in it.
 */
struct tm_run {
	struct tm_nlerr err;
	bool intr;
	tm_msg_cb cb;
	void *data;
};

static int tm_msg_trampoline(const struct nlmsghdr *nlh, void *data)
{
	struct tm_run *r = data;

	return r->cb ? r->cb(nlh, r->data) : MNL_CB_OK;
}

/*
 * libmnl ends a dump with EINTR at a part flagged NLM_F_DUMP_INTR: note
 * the flag and clear it, so that the listing is printed with a warning.
 */
static void tm_nl_take_intr(void *buf, int len, struct tm_run *r)
{
	struct nlmsghdr *nlh;

	for (nlh = buf; mnl_nlmsg_ok(nlh, len);
	     nlh = mnl_nlmsg_next(nlh, &len)) {
		if (nlh->nlmsg_flags & NLM_F_DUMP_INTR) {
			nlh->nlmsg_flags &= ~NLM_F_DUMP_INTR;
			r->intr = true;
		}
	}
}

/* Error callback keeping the extack of an NLMSG_ERROR. */
static int tm_error_cb(const struct nlmsghdr *nlh, void *data)
{
	struct tm_run *r = data;

	if (tm_nl_parse_error(nlh, &r->err) < 0)
		return MNL_CB_ERROR;
	return r->err.error ? MNL_CB_ERROR : MNL_CB_STOP;
}

/* The end of a dump, which may carry the error that ended it. */
static int tm_done_cb(const struct nlmsghdr *nlh, void *data)
{
	struct tm_run *r = data;
	int err = 0;

	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(int))
		memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	if (!err)
		return MNL_CB_STOP;
	r->err.error = -err;
	return MNL_CB_ERROR;
}

/* A control array replaces libmnl's defaults: every type needs its entry. */
static mnl_cb_t tm_ctl_cbs[NLMSG_MIN_TYPE] = {
	[NLMSG_ERROR] = tm_error_cb,
	[NLMSG_DONE] = tm_done_cb,
};

/* Send one request and run @cb on each reply until the ACK or an error. */
static int tm_nl_run(struct nlmsghdr *nlh, tm_msg_cb cb, void *data,
		     struct tm_run *r)
{
	static char buf[TM_NL_BUFSZ];
	unsigned int portid = mnl_socket_get_portid(tm_sock);
	int ret;

	nlh->nlmsg_flags |= NLM_F_ACK;
	nlh->nlmsg_seq = tm_nl_seq(1);
	if (mnl_socket_sendto(tm_sock, nlh, nlh->nlmsg_len) < 0)
		tm_nl_die("send");
	memset(r, 0, sizeof(*r));
	r->cb = cb;
	r->data = data;
	do {
		ret = mnl_socket_recvfrom(tm_sock, buf, sizeof(buf));
		if (ret < 0)
			tm_nl_die("receive");
		tm_nl_take_intr(buf, ret, r);
		ret = mnl_cb_run2(buf, ret, nlh->nlmsg_seq, portid,
				  tm_msg_trampoline, r, tm_ctl_cbs,
				  NLMSG_MIN_TYPE);
	} while (ret > 0);
	if (ret < 0 && !r->err.error)
		r->err.error = errno ? errno : EIO;
	return ret < 0 ? -1 : 0;
}

/* Open the session; -ENOENT when the family (the module) is missing. */
static int tm_nl_try_open(void)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct tm_genl_info f = {};
	struct genlmsghdr *genl;
	struct nlmsghdr *nlh;
	struct tm_run r;
	int one = 1;

	tm_sock = mnl_socket_open(NETLINK_GENERIC);
	if (!tm_sock)
		tm_nl_die("netlink socket");
	if (mnl_socket_bind(tm_sock, 0, MNL_SOCKET_AUTOPID) < 0)
		tm_nl_die("netlink bind");
	/* Both are best effort: old kernels simply ignore them. */
	mnl_socket_setsockopt(tm_sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(tm_sock, NETLINK_CAP_ACK, &one, sizeof(one));
	tm_seq = time(NULL);

	/* The kernel loads the module of an unknown family on this request. */
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = CTRL_CMD_GETFAMILY;
	genl->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, TM_GENL_NAME);
	if (tm_nl_run(nlh, tm_family_cb, &f, &r) < 0 || !f.id) {
		if (r.err.error == ENOENT) {
			mnl_socket_close(tm_sock);
			tm_sock = NULL;
			return -ENOENT;
		}
		errno = r.err.error;
		tm_nl_die("resolving the " TM_GENL_NAME " family");
	}
	tm_family_id = f.id;
	tm_events_grp = f.events;
	tm_trace_grp = f.trace;
	return 0;
}

bool tm_nl_module_loaded(void)
{
	return tm_sock || !tm_nl_try_open();
}

struct mnl_socket *tm_nl_socket(void)
{
	if (!tm_sock && tm_nl_try_open()) {
		fprintf(stderr,
			"tmctl: the tuplemerge module is not loaded (try: modprobe tuplemerge)\n");
		exit(TMCTL_ENOMOD);
	}
	return tm_sock;
}

uint16_t tm_nl_family(void)
{
	tm_nl_socket();
	return tm_family_id;
}

uint32_t tm_nl_events_group(void)
{
	tm_nl_socket();
	return tm_events_grp;
}

uint32_t tm_nl_trace_group(void)
{
	tm_nl_socket();
	return tm_trace_grp;
}

uint32_t tm_nl_seq(uint32_t n)
{
	uint32_t first = tm_seq + 1;

	/* Sequence 0 means "any" to the receive checks: skip it. */
	if (!first || first + n < first)
		first = 1;
	tm_seq = first + n - 1;
	return first;
}

struct nlmsghdr *tm_nl_put_header(char *buf, uint16_t family, uint8_t cmd,
				  uint16_t flags)
{
	struct genlmsghdr *genl;
	struct nlmsghdr *nlh;

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = family;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = TM_GENL_VERSION;
	return nlh;
}

struct nlmsghdr *tm_nl_request(char *buf, uint8_t cmd, uint16_t flags)
{
	return tm_nl_put_header(buf, tm_nl_family(), cmd, flags);
}

int tm_nl_call(struct nlmsghdr *nlh, tm_msg_cb cb, void *data,
	       struct tm_nlerr *err)
{
	struct tm_run r;
	int ret;

	ret = tm_nl_run(nlh, cb, data, &r);
	tm_nl_dump_intr = r.intr;
	*err = r.err;
	return ret;
}

int tm_nl_talk(struct nlmsghdr *nlh, tm_msg_cb cb, void *data,
	       const char *what)
{
	struct tm_nlerr err;

	if (!tm_nl_call(nlh, cb, data, &err))
		return TMCTL_OK;
	fprintf(stderr, "tmctl: %s: ", what);
	tm_nl_print_reason(stderr, &err);
	fputc('\n', stderr);
	return TMCTL_EKERNEL;
}

int tm_nl_list(struct nlmsghdr *nlh, tm_msg_cb cb, void *data,
	       const char *what, const char *objects)
{
	int ret;

	tm_out_begin_list();
	ret = tm_nl_talk(nlh, cb, data, what);
	tm_out_end_list();
	if (!ret && tm_nl_dump_intr)
		fprintf(stderr,
			"tmctl: %s: %s changed during the listing; run again\n",
			what, objects);
	return ret;
}

/* The type of each attribute, checked before use: a bad one is ignored. */
static const enum mnl_attr_data_type tm_attr_types[TM_A_MAX + 1] = {
	[TM_A_NET_TABLES] = MNL_TYPE_U32,
	[TM_A_NET_GENERATION] = MNL_TYPE_U64,
	[TM_A_TABLE_NAME] = MNL_TYPE_NUL_STRING,
	[TM_A_TABLE_HANDLE] = MNL_TYPE_U32,
	[TM_A_TABLE_FAMILY] = MNL_TYPE_U8,
	[TM_A_TABLE_HOOK] = MNL_TYPE_U8,
	[TM_A_TABLE_PRIORITY] = MNL_TYPE_U32,
	[TM_A_TABLE_POLICY] = MNL_TYPE_U8,
	[TM_A_TABLE_ENGINE] = MNL_TYPE_U8,
	[TM_A_TABLE_RULES] = MNL_TYPE_U32,
	[TM_A_TABLE_COLLIDE] = MNL_TYPE_U8,
	[TM_A_TABLE_MAX_RULES] = MNL_TYPE_U32,
	[TM_A_TABLE_MAX_TUPLES] = MNL_TYPE_U32,
	[TM_A_TABLE_TUPLES] = MNL_TYPE_U32,
	[TM_A_TABLE_BYTES] = MNL_TYPE_U64,
	[TM_A_TABLE_LOOKUPS] = MNL_TYPE_U64,
	[TM_A_TABLE_MATCHES] = MNL_TYPE_U64,
	[TM_A_TABLE_PROBES] = MNL_TYPE_U64,
	[TM_A_RULE_ID] = MNL_TYPE_U32,
	[TM_A_RULE_PRIORITY] = MNL_TYPE_U32,
	[TM_A_RULE_FAMILY] = MNL_TYPE_U8,
	[TM_A_RULE_SRC] = MNL_TYPE_BINARY,
	[TM_A_RULE_SRC_LEN] = MNL_TYPE_U8,
	[TM_A_RULE_DST] = MNL_TYPE_BINARY,
	[TM_A_RULE_DST_LEN] = MNL_TYPE_U8,
	[TM_A_RULE_SPORT_MIN] = MNL_TYPE_U16,
	[TM_A_RULE_SPORT_MAX] = MNL_TYPE_U16,
	[TM_A_RULE_DPORT_MIN] = MNL_TYPE_U16,
	[TM_A_RULE_DPORT_MAX] = MNL_TYPE_U16,
	[TM_A_RULE_PROTO] = MNL_TYPE_U8,
	[TM_A_RULE_IIF] = MNL_TYPE_U32,
	[TM_A_RULE_OIF] = MNL_TYPE_U32,
	[TM_A_RULE_ACTION] = MNL_TYPE_U8,
	[TM_A_RULE_REJECT] = MNL_TYPE_U8,
	[TM_A_RULE_MARK] = MNL_TYPE_U32,
	[TM_A_RULE_LB_SERVICE] = MNL_TYPE_NUL_STRING,
	[TM_A_RULE_COMMENT] = MNL_TYPE_NUL_STRING,
	[TM_A_RULE_COOKIE] = MNL_TYPE_U64,
	[TM_A_RULE_PACKETS] = MNL_TYPE_U64,
	[TM_A_RULE_BYTES] = MNL_TYPE_U64,
	[TM_A_RULE_RESET_COUNTERS] = MNL_TYPE_FLAG,
	[TM_A_KEY_SRC] = MNL_TYPE_BINARY,
	[TM_A_KEY_DST] = MNL_TYPE_BINARY,
	[TM_A_KEY_SPORT] = MNL_TYPE_U16,
	[TM_A_KEY_DPORT] = MNL_TYPE_U16,
	[TM_A_KEY_PROTO] = MNL_TYPE_U8,
	[TM_A_KEY_IIF] = MNL_TYPE_U32,
	[TM_A_KEY_OIF] = MNL_TYPE_U32,
	[TM_A_LOOKUP_PROBES] = MNL_TYPE_U32,
	[TM_A_TXN_ID] = MNL_TYPE_U32,
	[TM_A_TXN_OPS] = MNL_TYPE_U32,
	[TM_A_SID_ADDR] = MNL_TYPE_BINARY,
	[TM_A_SID_POLICY] = MNL_TYPE_U8,
	[TM_A_SID_THRESHOLD] = MNL_TYPE_U32,
	[TM_A_SID_CONNS] = MNL_TYPE_U32,
	[TM_A_SID_ACCEPTED] = MNL_TYPE_U64,
	[TM_A_SID_PASSED] = MNL_TYPE_U64,
	[TM_A_SID_FORCED] = MNL_TYPE_U64,
	[TM_A_SID_STEERED] = MNL_TYPE_U64,
	[TM_A_SID_UNKNOWN] = MNL_TYPE_U64,
	[TM_A_SID_MALFORMED] = MNL_TYPE_U64,
	[TM_A_SID_LOAD] = MNL_TYPE_U32,
	[TM_A_SID_REPORTS] = MNL_TYPE_U64,
	[TM_A_LB_NAME] = MNL_TYPE_NUL_STRING,
	[TM_A_LB_VIP] = MNL_TYPE_BINARY,
	[TM_A_LB_PROTO] = MNL_TYPE_U8,
	[TM_A_LB_PORT] = MNL_TYPE_U16,
	[TM_A_LB_SID] = MNL_TYPE_BINARY,
	[TM_A_LB_CHOICES] = MNL_TYPE_U8,
	[TM_A_LB_TABLE_SIZE] = MNL_TYPE_U32,
	[TM_A_LB_MAX_FLOWS] = MNL_TYPE_U32,
	[TM_A_LB_IDLE_TIMEOUT] = MNL_TYPE_U32,
	[TM_A_LB_FIN_TIMEOUT] = MNL_TYPE_U32,
	[TM_A_LB_SYN_TIMEOUT] = MNL_TYPE_U32,
	[TM_A_LB_BACKENDS] = MNL_TYPE_NESTED,
	[TM_A_LB_BACKEND] = MNL_TYPE_NESTED,
	[TM_A_LB_BACKEND_SID] = MNL_TYPE_BINARY,
	[TM_A_LB_BACKEND_WEIGHT] = MNL_TYPE_U32,
	[TM_A_LB_FLOWS] = MNL_TYPE_U32,
	[TM_A_LB_HUNTS] = MNL_TYPE_U64,
	[TM_A_LB_RECOVERIES] = MNL_TYPE_U64,
	[TM_A_LB_STEERED] = MNL_TYPE_U64,
	[TM_A_LB_REPORTS] = MNL_TYPE_U64,
	[TM_A_LB_LEARNED] = MNL_TYPE_U64,
	[TM_A_LB_EXPIRED] = MNL_TYPE_U64,
	[TM_A_LB_FULL] = MNL_TYPE_U64,
	[TM_A_LB_DROPPED] = MNL_TYPE_U64,
	[TM_A_LB_TOO_BIG] = MNL_TYPE_U64,
	[TM_A_LB_MALFORMED] = MNL_TYPE_U64,
	[TM_A_LB_REFUSED] = MNL_TYPE_U64,
	[TM_A_LB_EVICTED] = MNL_TYPE_U64,
	[TM_A_LB_NS_FULL] = MNL_TYPE_U64,
	[TM_A_LB_HMAC_KEY] = MNL_TYPE_U32,
	[TM_A_LB_HMAC_BAD] = MNL_TYPE_U64,
	[TM_A_LB_HMAC_NOKEY] = MNL_TYPE_U64,
	[TM_A_SID_HMAC_KEY] = MNL_TYPE_U32,
	[TM_A_SID_HMAC_BAD] = MNL_TYPE_U64,
	[TM_A_SID_HMAC_NOKEY] = MNL_TYPE_U64,
	[TM_A_RULE_CT_STATE] = MNL_TYPE_U8,
	[TM_A_RULE_TCP_FLAGS] = MNL_TYPE_U8,
	[TM_A_RULE_TCP_FLAGS_MASK] = MNL_TYPE_U8,
	[TM_A_RULE_ICMP_TYPE_MIN] = MNL_TYPE_U8,
	[TM_A_RULE_ICMP_TYPE_MAX] = MNL_TYPE_U8,
	[TM_A_RULE_ICMP_CODE_MIN] = MNL_TYPE_U8,
	[TM_A_RULE_ICMP_CODE_MAX] = MNL_TYPE_U8,
	[TM_A_RULE_META_MARK] = MNL_TYPE_U32,
	[TM_A_RULE_META_MARK_MASK] = MNL_TYPE_U32,
	[TM_A_RULE_DSCP] = MNL_TYPE_U64,
	[TM_A_RULE_FRAGMENT] = MNL_TYPE_U8,
	[TM_A_KEY_CT_STATE] = MNL_TYPE_U8,
	[TM_A_KEY_TCP_FLAGS] = MNL_TYPE_U8,
	[TM_A_KEY_MARK] = MNL_TYPE_U32,
	[TM_A_KEY_DSCP] = MNL_TYPE_U8,
	[TM_A_KEY_FRAGMENT] = MNL_TYPE_U8,
	[TM_A_RULE_SRC_SET] = MNL_TYPE_NESTED,
	[TM_A_RULE_DST_SET] = MNL_TYPE_NESTED,
	[TM_A_RULE_SPORT_SET] = MNL_TYPE_NESTED,
	[TM_A_RULE_DPORT_SET] = MNL_TYPE_NESTED,
	[TM_A_RULE_PROTO_SET] = MNL_TYPE_NESTED,
	[TM_A_RULE_SET_ELEM] = MNL_TYPE_NESTED,
	[TM_A_TABLE_ENTRIES] = MNL_TYPE_U32,
	[TM_A_RULE_QUEUE_NUM] = MNL_TYPE_U16,
	[TM_A_RULE_QUEUE_BYPASS] = MNL_TYPE_FLAG,
	[TM_A_RULE_LOG] = MNL_TYPE_FLAG,
	[TM_A_RULE_LOG_PREFIX] = MNL_TYPE_NUL_STRING,
	[TM_A_RULE_LOG_LEVEL] = MNL_TYPE_U8,
	[TM_A_RULE_LOG_GROUP] = MNL_TYPE_U16,
	[TM_A_RULE_LOG_RATE] = MNL_TYPE_U32,
	[TM_A_RULE_TRACE] = MNL_TYPE_FLAG,
	[TM_A_TRACE_VERDICT] = MNL_TYPE_U32,
	[TM_A_TRACE_HOOK] = MNL_TYPE_U8,
	[TM_A_TRACE_LEN] = MNL_TYPE_U32,
	[TM_A_TRACE_MISSED] = MNL_TYPE_U64,
	[TM_A_LB_TABLES] = MNL_TYPE_U32,
	[TM_A_LB_BACKEND_ACTIVE] = MNL_TYPE_U32,
	[TM_A_LB_BACKEND_LEARNED] = MNL_TYPE_U64,
	[TM_A_LB_BACKEND_FORCED] = MNL_TYPE_U64,
	[TM_A_LB_FLOW_CANDIDATES] = MNL_TYPE_NESTED,
	[TM_A_LB_AFFINITY] = MNL_TYPE_U8,
	[TM_A_LB_FLOW_CLIENT] = MNL_TYPE_BINARY,
	[TM_A_LB_FLOW_CPORT] = MNL_TYPE_U16,
	[TM_A_LB_FLOW_VPORT] = MNL_TYPE_U16,
	[TM_A_LB_FLOW_STATE] = MNL_TYPE_U8,
	[TM_A_LB_FLOW_SERVER] = MNL_TYPE_BINARY,
	[TM_A_LB_FLOW_IDLE] = MNL_TYPE_U32,
	[TM_A_LB_HEALTH_INTERVAL] = MNL_TYPE_U32,
	[TM_A_LB_HEALTH_TIMEOUT] = MNL_TYPE_U32,
	[TM_A_LB_HEALTH_RISE] = MNL_TYPE_U32,
	[TM_A_LB_HEALTH_FALL] = MNL_TYPE_U32,
	[TM_A_LB_HEALTH_LISTENER] = MNL_TYPE_FLAG,
	[TM_A_LB_BACKEND_HEALTH] = MNL_TYPE_U8,
	[TM_A_LB_BACKEND_HEALTH_WHY] = MNL_TYPE_U8,
	[TM_A_LB_BACKEND_PROBES] = MNL_TYPE_U64,
	[TM_A_LB_BACKEND_PROBES_FAILED] = MNL_TYPE_U64,
	[TM_A_LB_BACKEND_TRANSITIONS] = MNL_TYPE_U64,
	[TM_A_SID_IDLE_TIMEOUT] = MNL_TYPE_U32,
	[TM_A_SID_CLOSE_TIMEOUT] = MNL_TYPE_U32,
	[TM_A_SID_SYN_TIMEOUT] = MNL_TYPE_U32,
	[TM_A_SID_UDP_TIMEOUT] = MNL_TYPE_U32,
	[TM_A_LB_VIP_LEN] = MNL_TYPE_U8,
	[TM_A_LB_FLOW_VIP] = MNL_TYPE_BINARY,
	[TM_A_SID_DYN] = MNL_TYPE_U32,
	[TM_A_RULE] = MNL_TYPE_NESTED,
};

/* The attributes that are IPv6 addresses only: 16 bytes. */
static bool tm_attr_ipv6(int type)
{
	switch (type) {
	case TM_A_SID_ADDR:
	case TM_A_LB_VIP:
	case TM_A_LB_SID:
	case TM_A_LB_BACKEND_SID:
	case TM_A_LB_FLOW_CLIENT:
	case TM_A_LB_FLOW_VIP:
	case TM_A_LB_FLOW_SERVER:
		return true;
	default:
		return false;
	}
}

static int tm_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, TM_A_MAX) <= 0)
		return MNL_CB_OK;
	if (tm_attr_types[type] != MNL_TYPE_UNSPEC &&
	    mnl_attr_validate(attr, tm_attr_types[type]) < 0)
		return MNL_CB_OK;
	/* Addresses: only IPv4 and IPv6 sizes. */
	if (tm_attr_types[type] == MNL_TYPE_BINARY &&
	    mnl_attr_get_payload_len(attr) != 4 &&
	    mnl_attr_get_payload_len(attr) != 16)
		return MNL_CB_OK;
	/* A SID, a VIP, a client: IPv6 addresses. */
	if (tm_attr_ipv6(type) && mnl_attr_get_payload_len(attr) != 16)
		return MNL_CB_OK;
	tb[type] = attr;
	return MNL_CB_OK;
}

/* Index the attributes of a tuplemerge message into tb[TM_A_MAX + 1]. */
int tm_nl_parse(const struct nlmsghdr *nlh, const struct nlattr **tb)
{
	memset(tb, 0, sizeof(*tb) * (TM_A_MAX + 1));
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), tm_attr_cb, tb);
}

/* The same for the attributes inside the nest @nest. */
int tm_nl_parse_nested(const struct nlattr *nest, const struct nlattr **tb)
{
	memset(tb, 0, sizeof(*tb) * (TM_A_MAX + 1));
	return mnl_attr_parse_nested(nest, tm_attr_cb, tb);
}

uint8_t tm_attr_u8(const struct nlattr **tb, int type, uint8_t def)
{
	return tb[type] ? mnl_attr_get_u8(tb[type]) : def;
}
