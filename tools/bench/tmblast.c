// SPDX-License-Identifier: GPL-2.0
/*
 * tmblast: send prepared IPv6 packets out of an interface as fast as one
 * thread can, for the forwarding benchmarks of selftests/bench/ (pktgen
 * sends UDP only; the load balancer forwards TCP).
 *
 *	tmblast -i IFNAME -m DSTMAC -f FILE [-t SECONDS | -n PACKETS]
 *		[-F FLOWS]
 *
 * FILE holds packets one after the other, each a 2-byte big-endian length
 * then the IPv6 packet (from its IPv6 header on).  Each becomes an
 * Ethernet frame to DSTMAC from the interface's address, sent round-robin
 * in batches with sendmmsg() on an AF_PACKET socket that bypasses the
 * qdisc.  With -n, each packet of FILE is sent PACKETS / count times (e.g.
 * -n of the file's count sends each once); with -t, until SECONDS pass.
 * With -F, packet i of the run (from 0) is flow i % FLOWS: that number is
 * added to the last 32 bits of its IPv6 source address (and a TCP or UDP
 * checksum right after the IPv6 header follows), so that FILE's packets
 * make up to FLOWS different flows (e.g. one SYN and -n 1000000 -F 1000000:
 * a million new connections).
 * Prints what it sent and at what rate: the rate the receiver sustained
 * is the receiver's to count (on a veth, the receiver's work is done in
 * the sender's softirq, so it paces the sender).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH		64
#define FRAME_MAX	2048

struct frame {
	size_t len;
	unsigned char buf[FRAME_MAX];
};

static void die(const char *what)
{
	fprintf(stderr, "tmblast: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int parse_mac(const char *s, unsigned char *mac)
{
	unsigned int b[6];
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4],
		   &b[5]) != 6)
		return -1;
	for (i = 0; i < 6; i++) {
		if (b[i] > 255)
			return -1;
		mac[i] = b[i];
	}
	return 0;
}

/* Read FILE into frames with the Ethernet header @eth; returns the count. */
static size_t load(const char *path, const unsigned char *eth,
		   struct frame **out)
{
	struct frame *f = NULL;
	size_t n = 0, cap = 0;
	unsigned char len[2];
	FILE *fp = fopen(path, "rb");

	if (!fp)
		die(path);
	while (fread(len, 1, 2, fp) == 2) {
		size_t l = (size_t)len[0] << 8 | len[1];

		if (!l || l + ETH_HLEN > FRAME_MAX) {
			fprintf(stderr, "tmblast: %s: packet %zu: bad length %zu\n",
				path, n + 1, l);
			exit(1);
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			f = realloc(f, cap * sizeof(*f));
			if (!f)
				die("realloc");
		}
		memcpy(f[n].buf, eth, ETH_HLEN);
		if (fread(f[n].buf + ETH_HLEN, 1, l, fp) != l) {
			fprintf(stderr, "tmblast: %s: packet %zu truncated\n",
				path, n + 1);
			exit(1);
		}
		f[n].len = l + ETH_HLEN;
		n++;
	}
	fclose(fp);
	if (!n) {
		fprintf(stderr, "tmblast: %s: no packets\n", path);
		exit(1);
	}
	*out = f;
	return n;
}

/* One's complement sum of @v's two 16-bit halves, added to @sum. */
static uint32_t csum_add32(uint32_t sum, uint32_t v)
{
	return sum + (v >> 16) + (v & 0xffff);
}

/*
 * @dst: @src as flow @flow: @flow added to the last 32 bits of the source
 * address, the TCP or UDP checksum updated (RFC 1624: HC' = ~(~HC + ~m +
 * m')).
 */
static void set_flow(struct frame *dst, const struct frame *src,
		     uint32_t flow)
{
	unsigned char *ip6 = dst->buf + ETH_HLEN, *l4 = ip6 + 40;
	size_t l4len = src->len - ETH_HLEN - 40, off;
	uint32_t old, new, sum;
	uint16_t c;

	memcpy(dst->buf, src->buf, src->len);
	dst->len = src->len;
	memcpy(&old, ip6 + 20, 4);
	old = ntohl(old);
	new = htonl(old + flow);
	memcpy(ip6 + 20, &new, 4);
	new = ntohl(new);
	if (ip6[6] == IPPROTO_TCP)
		off = 16;
	else if (ip6[6] == IPPROTO_UDP)
		off = 6;
	else
		return;
	if (l4len < off + 2)
		return;
	memcpy(&c, l4 + off, 2);
	if (ip6[6] == IPPROTO_UDP && !c)
		return;		/* no checksum */
	sum = (uint16_t)~ntohs(c);
	sum = csum_add32(sum, ~old);
	sum = csum_add32(sum, new);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	c = htons((uint16_t)~sum);
	if (ip6[6] == IPPROTO_UDP && !c)
		c = 0xffff;
	memcpy(l4 + off, &c, 2);
}

static void tm_usage(void)
{
	fputs("usage: tmblast -i IFNAME -m DSTMAC -f FILE [-t SECONDS | -n PACKETS] [-F FLOWS]\n",
	      stderr);
	exit(2);
}

/* With -F: the packets of a batch, each its own flow. */
static struct frame batch[BATCH];

int main(int argc, char **argv)
{
	const char *ifname = NULL, *file = NULL, *mac = NULL;
	unsigned char eth[ETH_HLEN];
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct sockaddr_ll sll;
	unsigned long long sent = 0, limit = 0, flows = 0;
	double secs = 0, start, end;
	struct frame *frames;
	struct ifreq ifr;
	size_t nframes, next = 0;
	int fd, c, one = 1, i;
	bool timed;

	while ((c = getopt(argc, argv, "i:m:f:t:n:F:")) != -1) {
		switch (c) {
		case 'i':
			ifname = optarg;
			break;
		case 'm':
			mac = optarg;
			break;
		case 'f':
			file = optarg;
			break;
		case 't':
			secs = atof(optarg);
			break;
		case 'n':
			limit = strtoull(optarg, NULL, 0);
			break;
		case 'F':
			flows = strtoull(optarg, NULL, 0);
			if (!flows || flows > UINT32_MAX)
				tm_usage();
			break;
		default:
			tm_usage();
		}
	}
	/* One of -t and -n. */
	timed = secs > 0;
	if (!ifname || !file || !mac || timed == !!limit)
		tm_usage();
	if (parse_mac(mac, eth)) {
		fprintf(stderr, "tmblast: bad MAC address '%s'\n", mac);
		return 2;
	}

	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0)
		die("socket");
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr))
		die(ifname);
	memcpy(eth + ETH_ALEN, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
	eth[12] = ETH_P_IPV6 >> 8;
	eth[13] = ETH_P_IPV6 & 0xff;
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_IPV6);
	sll.sll_ifindex = if_nametoindex(ifname);
	if (!sll.sll_ifindex)
		die(ifname);
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
		die("bind");
	/* Not fatal: older kernels send through the qdisc. */
	setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));

	nframes = load(file, eth, &frames);
	memset(msgs, 0, sizeof(msgs));
	start = now();
	end = start + secs;
	for (;;) {
		int n = BATCH, r;

		if (limit && limit - sent < (unsigned long long)n)
			n = limit - sent;
		if (!n)
			break;
		for (i = 0; i < n; i++) {
			const struct frame *f = &frames[next];

			if (flows) {
				set_flow(&batch[i], f, (sent + i) % flows);
				f = &batch[i];
			}
			iov[i].iov_base = (void *)f->buf;
			iov[i].iov_len = f->len;
			msgs[i].msg_hdr.msg_iov = &iov[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
			next = next + 1 == nframes ? 0 : next + 1;
		}
		r = sendmmsg(fd, msgs, n, 0);
		if (r < 0) {
			if (errno == ENOBUFS || errno == EAGAIN)
				continue;
			die("sendmmsg");
		}
		sent += r;
		if (!limit && now() >= end)
			break;
	}
	end = now();
	printf("sent %llu packets in %.3f s: %.0f pps\n", sent, end - start,
	       sent / (end - start));
	free(frames);
	close(fd);
	return 0;
}
