// SPDX-License-Identifier: GPL-2.0
/*
 * Transactions: many rule requests applied in one step (tmctl -f, import).
 * This file owns the begin/commit/abort exchange and the fast path between
 * them: requests packed many per sendmsg() without NLM_F_ACK, so that only
 * refusals come back, drained after each sendmsg() (the kernel handles the
 * whole buffer before sendmsg() returns, so its errors are already queued)
 * and mapped back to their request by sequence number.  Rules added or
 * replaced in one table go up to TM_TXN_JOIN_MAX to a message (ops->join,
 * each in a TM_A_RULE nest: one dispatch, attribute table and lock for
 * them all); the kernel refuses each on its own, and the offset of each
 * refusal names the nest, hence the request.  Requests may still
 * be in the making (ops->wait: a batch file parsed by another thread), so
 * that the kernel applies the first ones while the next are parsed; the
 * refusals are kept and reported once every request was sent.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/genetlink.h>

#include "tmctl.h"

/* Bytes of requests per sendmsg(), at most. */
#define TM_TXN_CHUNK		(256 * 1024)
/* Rules per message (ops->join), at most. */
#define TM_TXN_JOIN_MAX		64
/* Socket buffers asked for: the receive side holds the errors. */
#define TM_TXN_SNDBUF		(2 * TM_TXN_CHUNK)
#define TM_TXN_RCVBUF		(8 << 20)
/* What one queued error costs the receive buffer, about (skb truesize). */
#define TM_TXN_ERR_COST		1024
/* Errors reported; the others are counted. */
#define TM_TXN_ERRORS_SHOWN	20

void tm_attr_map_add(struct tm_attr_map *map, const struct nlmsghdr *nlh,
		     int word)
{
	if (!map || map->n >= TM_ATTR_MAP_MAX)
		return;
	/* The entry before already names this word for what follows. */
	if (map->n && map->a[map->n - 1].word == word)
		return;
	/* The next attribute starts at the aligned end of the message. */
	map->a[map->n].offs = MNL_ALIGN(nlh->nlmsg_len);
	map->a[map->n].word = word;
	map->n++;
}

int tm_attr_map_word(const struct tm_attr_map *map, uint32_t offs)
{
	int word = -1;
	unsigned int i;

	for (i = 0; map && i < map->n; i++)
		if (map->a[i].offs <= offs)
			word = map->a[i].word;
	return word;
}

struct tm_txn {
	const struct tm_txn_ops *ops;
	const char *what;
	int fd;
	uint32_t seq;		/* of request 0 */
	size_t errors;
	bool lost;		/* the receive buffer overflowed */
	const char *sent;	/* the requests sent last, while drained */
	size_t sent_len;
	char *scratch;		/* a request rebuilt for its map */
	/* the first refusals, reported at the end */
	struct tm_txn_err {
		size_t i;
		struct tm_nlerr e;
	} err[TM_TXN_ERRORS_SHOWN];
};

static void tm_txn_die(const char *what, const char *op)
{
	fprintf(stderr, "tmctl: %s: %s: %s\n", what, op, strerror(errno));
	exit(TMCTL_EKERNEL);
}

/* Grow a socket buffer, beyond the sysctl limit when allowed. */
static int tm_txn_sockbuf(int fd, int force, int opt, int size)
{
	socklen_t len = sizeof(size);

	if (setsockopt(fd, SOL_SOCKET, force, &size, sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, opt, &size, sizeof(size));
	if (getsockopt(fd, SOL_SOCKET, opt, &size, &len) < 0)
		return 0;
	return size;
}

/*
 * The refusal @e of a message holding several rules (ops->join) is that of
 * the rule whose nest holds its offset: make it request @i's, its offset
 * where it would be in the message put() makes of that request alone (the
 * nest right after the table's name).
 */
static void tm_txn_error_nest(const struct tm_txn *t, struct tm_nlerr *e,
			      size_t *i)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)t->sent;
	int len = (int)t->sent_len;
	const struct nlattr *a;
	uint32_t first = 0, at;
	size_t k = 0;

	while (mnl_nlmsg_ok(nlh, len) && nlh->nlmsg_seq != e->seq)
		nlh = mnl_nlmsg_next(nlh, &len);
	if (!mnl_nlmsg_ok(nlh, len))
		return;
	mnl_attr_for_each(a, nlh, GENL_HDRLEN) {
		if (mnl_attr_get_type(a) != TM_A_RULE)
			continue;
		at = (uint32_t)((const char *)a - (const char *)nlh);
		if (!k)
			first = at;
		if (e->offs >= at && e->offs < at + a->nla_len) {
			*i += k;
			e->offs -= at - first;
			return;
		}
		k++;
	}
}

static void tm_txn_error(struct tm_txn *t, const struct tm_nlerr *e)
{
	struct tm_nlerr ne = *e;
	size_t i = e->seq - t->seq;

	if (i >= t->ops->n)
		return;		/* not ours */
	if (t->ops->join && e->has_offs)
		tm_txn_error_nest(t, &ne, &i);
	if (t->errors < TM_TXN_ERRORS_SHOWN) {
		t->err[t->errors].i = i;
		t->err[t->errors].e = ne;
	}
	t->errors++;
}

static void tm_txn_report(struct tm_txn *t)
{
	size_t k;

	for (k = 0; k < t->errors && k < TM_TXN_ERRORS_SHOWN; k++) {
		const struct tm_nlerr *e = &t->err[k].e;
		size_t i = t->err[k].i;
		struct tm_attr_map map = {};

		/* Rebuild the request to find which word made the bad attribute. */
		if (e->has_offs) {
			struct nlmsghdr *nlh;

			nlh = t->ops->put(t->ops->ctx, i, t->scratch, &map);
			tm_attr_map_add(&map, nlh, -1);	/* TM_A_TXN_ID */
		}
		t->ops->error(t->ops->ctx, i, e, e->has_offs ? &map : NULL);
	}
}

/* Read every error queued, without waiting. */
static void tm_txn_drain(struct tm_txn *t)
{
	static char buf[65536] __attribute__((aligned(8)));
	const struct nlmsghdr *nlh;
	struct tm_nlerr e;
	ssize_t n;
	int len;

	for (;;) {
		n = recv(t->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				t->lost = true;
				continue;
			}
			tm_txn_die(t->what, "receive");
		}
		len = (int)n;
		for (nlh = (const struct nlmsghdr *)buf; mnl_nlmsg_ok(nlh, len);
		     nlh = mnl_nlmsg_next(nlh, &len)) {
			if (nlh->nlmsg_type != NLMSG_ERROR ||
			    tm_nl_parse_error(nlh, &e) < 0 || !e.error)
				continue;
			tm_txn_error(t, &e);
		}
	}
}

static void tm_txn_send(struct tm_txn *t, const char *buf, size_t len)
{
	while (send(t->fd, buf, len, 0) < 0) {
		if (errno != EINTR)
			tm_txn_die(t->what, "send");
	}
	t->sent = buf;
	t->sent_len = len;
	tm_txn_drain(t);
}

/*
 * Request @i, and with ops->join the next ones that join its message, as
 * long as they are ready (before @avail) and the message stays within
 * TM_TXN_MSG_MAX; @buf has room for two of that.  Returns the last request
 * the message holds.
 */
static size_t tm_txn_put(const struct tm_txn_ops *ops, size_t i,
			 size_t avail, char *buf, struct nlmsghdr **nlhp)
{
	struct nlmsghdr *nlh = ops->put(ops->ctx, i, buf, NULL);
	size_t first = i;
	uint32_t len;

	while (ops->join && i + 1 < avail && i + 1 - first < TM_TXN_JOIN_MAX) {
		len = nlh->nlmsg_len;
		if (!ops->join(ops->ctx, first, i + 1, nlh))
			break;
		if (nlh->nlmsg_len > TM_TXN_MSG_MAX) {
			nlh->nlmsg_len = len;	/* too big: in the next one */
			break;
		}
		i++;
	}
	*nlhp = nlh;
	return i;
}

static int tm_txn_id_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[TM_A_MAX + 1];

	if (tm_nl_parse(nlh, tb) < 0)
		return MNL_CB_ERROR;
	if (tb[TM_A_TXN_ID])
		*(uint32_t *)data = mnl_attr_get_u32(tb[TM_A_TXN_ID]);
	return MNL_CB_OK;
}

/* Begin, commit or abort transaction @id (0: begin, which sets it). */
static int tm_txn_cmd(uint8_t cmd, uint32_t *id, const char *what)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;

	nlh = tm_nl_request(buf, cmd, 0);
	if (cmd != TM_CMD_TXN_BEGIN)
		mnl_attr_put_u32(nlh, TM_A_TXN_ID, *id);
	return tm_nl_talk(nlh, cmd == TM_CMD_TXN_BEGIN ? tm_txn_id_cb : NULL,
			  id, what);
}

int tm_txn_run(const struct tm_txn_ops *ops, const char *what)
{
	struct tm_txn t = { .ops = ops, .what = what };
	size_t i, last, used = 0, chunk, msgs = 0, max_msgs, nmsgs = 0;
	ssize_t avail = (ssize_t)ops->n;
	char op[512];
	uint32_t id = 0;
	char *buf;
	int ret;

	if (ops->n > TM_TXN_MAX_OPS && !ops->wait) {
		fprintf(stderr,
			"tmctl: %s: %zu requests, more than the %u of one transaction\n",
			what, ops->n, TM_TXN_MAX_OPS);
		return TMCTL_EPARSE;
	}
	if (ops->wait)
		avail = ops->wait(ops->ctx, 0);
	if (avail <= 0)
		return avail < 0 ? TMCTL_EPARSE : TMCTL_OK;
	t.fd = mnl_socket_get_fd(tm_nl_socket());
	chunk = tm_txn_sockbuf(t.fd, SO_SNDBUFFORCE, SO_SNDBUF, TM_TXN_SNDBUF);
	/* netlink refuses a sendmsg() larger than the send buffer - 32. */
	chunk = chunk > 32 + TM_TXN_CHUNK ? TM_TXN_CHUNK :
		chunk > 32 + 3 * TM_TXN_MSG_MAX ? chunk - 32 :
		3 * TM_TXN_MSG_MAX;
	/* As many requests per sendmsg() as their errors could fill. */
	max_msgs = tm_txn_sockbuf(t.fd, SO_RCVBUFFORCE, SO_RCVBUF,
				  TM_TXN_RCVBUF) / TM_TXN_ERR_COST;
	if (max_msgs < 2 * TM_TXN_JOIN_MAX)
		max_msgs = 2 * TM_TXN_JOIN_MAX;
	buf = malloc(chunk);
	t.scratch = malloc(TM_TXN_MSG_MAX);
	if (!buf || !t.scratch) {
		errno = ENOMEM;
		tm_txn_die(what, "transaction");
	}

	snprintf(op, sizeof(op), "%s: begin transaction", what);
	ret = tm_txn_cmd(TM_CMD_TXN_BEGIN, &id, op);
	if (ret)
		goto out;
	if (!id) {
		fprintf(stderr,
			"tmctl: %s: the kernel gave no transaction id\n", op);
		ret = TMCTL_EKERNEL;
		goto out;
	}
	t.seq = tm_nl_seq(ops->n);
	for (i = 0;; i++) {
		struct nlmsghdr *nlh;

		if (i == (size_t)avail) {
			if (!ops->wait)
				break;
			/* The kernel works on these while the next are made. */
			if (used)
				tm_txn_send(&t, buf, used);
			used = 0;
			msgs = 0;
			avail = ops->wait(ops->ctx, i);
			if (avail <= 0)
				break;
		}
		if (chunk - used < 2 * TM_TXN_MSG_MAX ||
		    msgs + TM_TXN_JOIN_MAX > max_msgs) {
			tm_txn_send(&t, buf, used);
			used = 0;
			msgs = 0;
		}
		last = tm_txn_put(ops, i, (size_t)avail, buf + used, &nlh);
		nlh->nlmsg_seq = t.seq + (uint32_t)i;
		mnl_attr_put_u32(nlh, TM_A_TXN_ID, id);
		used += MNL_ALIGN(nlh->nlmsg_len);
		msgs += last - i + 1;
		nmsgs++;
		i = last;
	}
	if (used)
		tm_txn_send(&t, buf, used);

	if (avail < 0 || t.errors || t.lost) {
		/* Bad input: its errors are reported, the kernel's would race. */
		if (avail >= 0)
			tm_txn_report(&t);
		if (avail >= 0 && t.errors > TM_TXN_ERRORS_SHOWN)
			fprintf(stderr,
				"%s: error: too many errors (%zu in all)\n",
				what, t.errors);
		if (avail >= 0 && t.lost)
			fprintf(stderr,
				"%s: error: more errors were lost (receive buffer full)\n",
				what);
		snprintf(op, sizeof(op), "%s: abort transaction", what);
		tm_txn_cmd(TM_CMD_TXN_ABORT, &id, op);
		ret = avail < 0 ? TMCTL_EPARSE : TMCTL_EKERNEL;
		goto out;
	}
	if (ops->dry_run) {
		/* Every request was checked against the copies: drop them. */
		snprintf(op, sizeof(op), "%s: abort transaction", what);
		ret = tm_txn_cmd(TM_CMD_TXN_ABORT, &id, op);
		if (!ret && tmctl.verbose)
			fprintf(stderr,
				"%s: %zu requests accepted by the kernel, nothing changed\n",
				what, i);
		goto out;
	}
	snprintf(op, sizeof(op), "%s: commit", what);
	ret = tm_txn_cmd(TM_CMD_TXN_COMMIT, &id, op);
	if (!ret && tmctl.verbose)
		fprintf(stderr,
			"%s: %zu requests in %zu messages committed (transaction %u)\n",
			what, i, nmsgs, id);
out:
	free(buf);
	free(t.scratch);
	return ret;
}
