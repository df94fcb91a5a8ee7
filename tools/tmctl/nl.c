// SPDX-License-Identifier: GPL-2.0
/*
 * The netlink session with the module: one generic netlink socket, the
 * family id resolved once, requests sent with an ACK and every reply or
 * error read back, keeping the kernel's extended ACK message so that the
 * user sees why a request was refused.
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
static uint32_t tm_seq;

static void tm_nl_die(const char *what)
{
	fprintf(stderr, "tmctl: %s: %s\n", what, strerror(errno));
	exit(TMCTL_EKERNEL);
}

static int tm_family_cb(const struct nlmsghdr *nlh, void *data)
{
	struct nlattr *attr;

	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(attr) == CTRL_ATTR_FAMILY_ID &&
		    mnl_attr_validate(attr, MNL_TYPE_U16) >= 0)
			*(uint16_t *)data = mnl_attr_get_u16(attr);
	}
	return MNL_CB_OK;
}

/*
 * libmnl hands the same data pointer to the message and the control
 * callbacks: both get this context and find their own part in it.
 */
struct tm_err {
	int error;
	char msg[256];
	tm_msg_cb cb;
	void *data;
};

static int tm_msg_trampoline(const struct nlmsghdr *nlh, void *data)
{
	struct tm_err *e = data;

	return e->cb ? e->cb(nlh, e->data) : MNL_CB_OK;
}

/* Error callback keeping the extack text of an NLMSG_ERROR. */
static int tm_error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	struct tm_err *e = data;
	unsigned int off = sizeof(*err);
	struct nlattr *attr;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*err))) {
		e->error = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (!err->error)
		return MNL_CB_STOP;
	e->error = -err->error;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += mnl_nlmsg_get_payload_len(&err->msg);
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return MNL_CB_ERROR;
	mnl_attr_for_each(attr, nlh, off) {
		if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
		    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0)
			snprintf(e->msg, sizeof(e->msg), "%s",
				 mnl_attr_get_str(attr));
	}
	return MNL_CB_ERROR;
}

/* The end of a dump, which may carry the error that ended it. */
static int tm_done_cb(const struct nlmsghdr *nlh, void *data)
{
	struct tm_err *e = data;
	int err = 0;

	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(int))
		memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	if (!err)
		return MNL_CB_STOP;
	e->error = -err;
	return MNL_CB_ERROR;
}

/* A control array replaces libmnl's defaults: every type needs its entry. */
static mnl_cb_t tm_ctl_cbs[NLMSG_MIN_TYPE] = {
	[NLMSG_ERROR] = tm_error_cb,
	[NLMSG_DONE] = tm_done_cb,
};

/* Send one request and run @cb on each reply until the ACK or an error. */
static int tm_nl_run(struct nlmsghdr *nlh, tm_msg_cb cb, void *data,
		     struct tm_err *e)
{
	static char buf[TM_NL_BUFSZ];
	unsigned int portid = mnl_socket_get_portid(tm_sock);
	int ret;

	nlh->nlmsg_flags |= NLM_F_ACK;
	nlh->nlmsg_seq = ++tm_seq;
	if (mnl_socket_sendto(tm_sock, nlh, nlh->nlmsg_len) < 0)
		tm_nl_die("send");
	memset(e, 0, sizeof(*e));
	e->cb = cb;
	e->data = data;
	do {
		ret = mnl_socket_recvfrom(tm_sock, buf, sizeof(buf));
		if (ret < 0)
			tm_nl_die("receive");
		ret = mnl_cb_run2(buf, ret, nlh->nlmsg_seq, portid,
				  tm_msg_trampoline, e, tm_ctl_cbs,
				  NLMSG_MIN_TYPE);
	} while (ret > 0);
	/* NLMSG_DONE of a dump may carry an error as well. */
	if (ret < 0 && !e->error)
		e->error = errno ? errno : EIO;
	return ret < 0 ? -1 : 0;
}

static void tm_nl_open(void)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct genlmsghdr *genl;
	struct nlmsghdr *nlh;
	struct tm_err e;
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

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = CTRL_CMD_GETFAMILY;
	genl->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, TM_GENL_NAME);
	if (tm_nl_run(nlh, tm_family_cb, &tm_family_id, &e) < 0 ||
	    !tm_family_id) {
		if (e.error == ENOENT) {
			fprintf(stderr,
				"tmctl: the tuplemerge module is not loaded (try: modprobe tuplemerge)\n");
			exit(TMCTL_ENOMOD);
		}
		errno = e.error;
		tm_nl_die("resolving the " TM_GENL_NAME " family");
	}
}

struct nlmsghdr *tm_nl_request(char *buf, uint8_t cmd, uint16_t flags)
{
	struct genlmsghdr *genl;
	struct nlmsghdr *nlh;

	if (!tm_sock)
		tm_nl_open();
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = tm_family_id;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = TM_GENL_VERSION;
	return nlh;
}

/*
 * Run a request built with tm_nl_request().  On error print
 * "tmctl: WHAT: <kernel message> (<errno text>)" and return TMCTL_EKERNEL.
 */
int tm_nl_talk(struct nlmsghdr *nlh, tm_msg_cb cb, void *data,
	       const char *what)
{
	struct tm_err e;

	if (!tm_nl_run(nlh, cb, data, &e))
		return TMCTL_OK;
	if (e.error == EPERM)
		fprintf(stderr, "tmctl: %s: %s (needs CAP_NET_ADMIN)\n", what,
			e.msg[0] ? e.msg : strerror(e.error));
	else if (e.msg[0])
		fprintf(stderr, "tmctl: %s: %s (%s)\n", what, e.msg,
			strerror(e.error));
	else
		fprintf(stderr, "tmctl: %s: %s\n", what, strerror(e.error));
	return TMCTL_EKERNEL;
}

static int tm_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	int type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, TM_A_MAX) > 0)
		tb[type] = attr;
	return MNL_CB_OK;
}

/* Index the attributes of a tuplemerge message into tb[TM_A_MAX + 1]. */
int tm_nl_parse(const struct nlmsghdr *nlh, const struct nlattr **tb)
{
	memset(tb, 0, sizeof(*tb) * (TM_A_MAX + 1));
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), tm_attr_cb, tb);
}
