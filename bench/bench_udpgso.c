/* bench_udpgso: what sending UDP costs the sender, per payload size, in the
 * manner of Linux tools/testing/selftests/net/udpgso_bench_tx.c (its columns:
 * MB/s, calls/s, msg/s, CPU %, MB2CPU), with softoffload's software USO as a
 * fourth way to send.  One "message" is PAYLOAD bytes handed over by the
 * application, cut into datagrams of at most MSS bytes (default 1472, a
 * 1500-byte IPv4 wire):
 *   single    one send() per datagram (calls/s = datagrams/s);
 *   sendmmsg  all datagrams of a message in one sendmmsg();
 *   udpseg    one sendmsg() with the UDP_SEGMENT cmsg: the kernel segments
 *             (on a device without tx-udp-segmentation: software GSO in
 *             validate_xmit_skb(), Linux net/core/dev.c);
 *   uso       softoffload segments in user space: an IPv4+UDP header and the
 *             payload as an iovec super-packet, sofl_gso_segment()
 *             SOFL_GSO_UDP_L4 into zero-copy segments (headers in scratch,
 *             payload slices of the application's buffer, UDP checksums
 *             complete), all sent with one sendmmsg() on a raw IPv4 socket
 *             (IPPROTO_RAW: the kernel adds no header and computes no UDP
 *             checksum; it fills in the IPv4 header checksum itself,
 *             net/ipv4/raw.c raw_send_hdrinc()), or with -I IFNAME -E MAC
 *             as Ethernet frames on an AF_PACKET socket bound to IFNAME
 *             with PACKET_QDISC_BYPASS (no routing, netfilter or qdisc:
 *             the frames go to the driver as a user-space stack with its
 *             own NIC sends them).  -R (with -I): through sofl_port_send()
 *             on an AF_PACKET port with its transmit ring (.tx_ring): the
 *             super-packet with a virtio UDP_L4 header, cut by the GSO
 *             engine's copy mode straight into PACKET_TX_RING slots, one
 *             send() per message (Linux net/packet/af_packet.c
 *             tpacket_snd()); the UDP checksums are left partial (virtio
 *             NEEDS_CSUM) when the device has transmit checksum offload,
 *             as the kernel's UDP_SEGMENT leaves them.  For paired rounds
 *             of the ring's settings: BENCH_TX_RING_FRAMES=N (slots; two
 *             messages' worth by default), BENCH_QDISC_BYPASS=0 (the ring's
 *             socket through the qdisc; bypassed by default).
 * MB/s is payload MiB (2^20 bytes) per second handed to the kernel, CPU % the
 * sender process's user + system time over the wall time (getrusage; on a
 * veth this includes the transmit softirq that delivers to the peer's
 * backlog), MB2CPU = MB/s / CPU %.
 *
 *   bench_udpgso tx -D ADDR [-p PORT] [-s PAYLOAD] [-M MSS] [-m MODE] [-l SECS] [-k]
 *                   [-I IFNAME -E PEER_MAC [-R]]
 *   bench_udpgso rx [-p PORT] [-l SECS] [-i IDLE_MS] [-k] [-r]
 * tx sends for SECS seconds (default 1; fractions allowed) and prints one row; rx counts UDP
 * payload bytes arriving at PORT (IPv4 and IPv6) until SECS (default 10) or
 * IDLE_MS (default 500) without a datagram after the first, and prints them
 * (bad UDP checksums never reach it: the kernel drops them); with -r it
 * prints one line per burst (a run of datagrams ended by IDLE_MS without
 * one) and goes on until SECS or SIGTERM.  -k prints
 * key=value pairs instead of the table row.  tx is IPv4 only.
 * Without a subcommand (as scripts/run-bench.sh calls every benchmark) it
 * says that it needs a peer and exits 0: scripts/demo.sh runs it between two
 * network namespaces (make demo). */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netpacket/packet.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "softoffload/softoffload.h"
#include "softoffload/gso.h"
#include "util.h"

#ifndef SOL_UDP
#define SOL_UDP 17
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif

#define MAX_PAYLOAD (65535 - 28)	/* one IPv4 packet's worth of UDP payload */
#define MAX_DGRAMS  SOFL_GSO_UDP_MAX_SEGS
#define HDR4        28			/* IPv4 + UDP */
#define ETH         14
#define RX_BATCH    64
#define RX_BUF      2048

enum mode { M_SINGLE, M_MMSG, M_UDPSEG, M_USO };
static const char *const mode_names[] = { "single", "sendmmsg", "udpseg", "uso" };

struct tx {
	int mode, fd;
	uint32_t payload, mss, ndg;
	uint8_t *buf;			/* the application's payload */
	struct mmsghdr mm[MAX_DGRAMS];
	struct iovec iov[MAX_DGRAMS];
	/* uso */
	uint8_t hdr[ETH + HDR4];	/* the super-packet's headers */
	uint8_t *ip;			/* its IPv4 header, in hdr */
	uint32_t l2;			/* 0 (raw socket) or ETH (AF_PACKET) */
	uint8_t hdrbuf[SOFL_PKT_IOV_HDR_MAX];
	struct iovec in[2];
	struct sofl_gso_params gp;
	struct sofl_gso_seg segs[MAX_DGRAMS];
	struct iovec segiov[3 * MAX_DGRAMS];
	uint8_t *scratch;
	size_t scratch_len;
	uint16_t ip_id;
	/* uso -R: the AF_PACKET port with its transmit ring */
	struct sofl_port *port;
	struct sofl_port_pkt pk;
	/* results */
	uint64_t calls, msgs, dgrams, bytes, drops;
};

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void
usage(void)
{
	fprintf(stderr,
	    "usage: bench_udpgso tx -D ADDR [-p PORT] [-s PAYLOAD] [-M MSS] "
	    "[-m single|sendmmsg|udpseg|uso] [-l SECS] [-k] [-I IFNAME -E PEER_MAC [-R]]\n"
	    "       bench_udpgso rx [-p PORT] [-l SECS] [-i IDLE_MS] [-k] [-r]\n");
	exit(2);
}

static void
fail(const char *what)
{
	fprintf(stderr, "bench_udpgso: %s: %s\n", what, strerror(errno));
	exit(2);
}

static long
num(const char *s, long lo, long hi, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "bench_udpgso: %s must be %ld..%ld, not \"%s\"\n", what, lo, hi, s);
		exit(2);
	}
	return v;
}

static double
secs_arg(const char *s, const char *what)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0.01 && v <= 3600)) {
		fprintf(stderr, "bench_udpgso: %s must be 0.01..3600 seconds, not \"%s\"\n", what, s);
		exit(2);
	}
	return v;
}

static double
now_s(void)
{
	return (double)bench_ns() / 1e9;
}

static double
cpu_s(double *user, double *sys)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	*sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	return *user + *sys;
}

/* A send error that a UDP sender keeps running through: the peer not
 * listening yet (ICMP port unreachable on a connected socket), or a full
 * device queue. */
static int
transient(int err)
{
	return err == ECONNREFUSED || err == ENOBUFS || err == EAGAIN;
}

/* sendmmsg() of t->mm[0..n) until all are sent; a transient error on the
 * first pending message drops it.  Returns the payload bytes sent, headers
 * of @hlen bytes per datagram excluded. */
static uint64_t
send_all(struct tx *t, unsigned n, unsigned hlen)
{
	uint64_t bytes = 0;
	unsigned sent = 0;
	int r, i;

	while (sent < n) {
		r = sendmmsg(t->fd, t->mm + sent, n - sent, 0);
		t->calls++;
		if (r < 0) {
			if (!transient(errno))
				fail("sendmmsg");
			t->drops++;
			sent++;
			continue;
		}
		for (i = 0; i < r; i++)
			bytes += t->mm[sent + i].msg_len - hlen;
		t->dgrams += (unsigned)r;
		sent += (unsigned)r;
	}
	return bytes;
}

static void
send_single(struct tx *t)
{
	uint32_t off, n;
	ssize_t r;

	for (off = 0; off < t->payload; off += n) {
		n = t->payload - off < t->mss ? t->payload - off : t->mss;
		r = send(t->fd, t->buf + off, n, 0);
		t->calls++;
		if (r < 0) {
			if (!transient(errno))
				fail("send");
			t->drops++;
			continue;
		}
		t->bytes += (uint64_t)r;
		t->dgrams++;
	}
}

static void
send_udpseg(struct tx *t)
{
	char ctl[CMSG_SPACE(sizeof(uint16_t))];
	struct iovec iov = { t->buf, t->payload };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *cm;
	uint16_t gso = (uint16_t)t->mss;
	ssize_t r;

	memset(ctl, 0, sizeof(ctl));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_UDP;
	cm->cmsg_type = UDP_SEGMENT;
	cm->cmsg_len = CMSG_LEN(sizeof(gso));
	memcpy(CMSG_DATA(cm), &gso, sizeof(gso));
	r = sendmsg(t->fd, &mh, 0);
	t->calls++;
	if (r < 0) {
		if (!transient(errno))
			fail("sendmsg UDP_SEGMENT");
		t->drops++;
		return;
	}
	t->bytes += (uint64_t)r;
	t->dgrams += t->ndg;
}

/* The IPv4 + UDP header of the super-packet: its lengths cover the whole
 * payload, its checksums are left for sofl_gso_segment() to compute. */
static void
uso_header(struct tx *t, const struct sockaddr_in *src, const struct sockaddr_in *dst)
{
	uint8_t *h = t->ip;
	uint32_t tot = HDR4 + t->payload;

	memset(h, 0, HDR4);
	h[0] = 0x45;
	h[2] = (uint8_t)(tot >> 8);
	h[3] = (uint8_t)tot;
	h[6] = 0x40;			/* DF */
	h[8] = 64;
	h[9] = IPPROTO_UDP;
	memcpy(h + 12, &src->sin_addr, 4);
	memcpy(h + 16, &dst->sin_addr, 4);
	memcpy(h + 20, &src->sin_port, 2);
	memcpy(h + 22, &dst->sin_port, 2);
	h[24] = (uint8_t)((tot - 20) >> 8);
	h[25] = (uint8_t)(tot - 20);
}

static void
send_uso(struct tx *t)
{
	struct sofl_gso_out out = { .mode = SOFL_GSO_ZEROCOPY, .seg = t->segs,
				    .seg_cap = MAX_DGRAMS, .buf = t->scratch,
				    .buf_cap = t->scratch_len, .iov = t->segiov,
				    .iov_cap = 3 * MAX_DGRAMS };
	struct sofl_pkt p;
	int n, i, err;

	/* a new super-packet: the next IPv4 ID (segments take ID, ID + 1, ...) */
	t->ip[4] = (uint8_t)(t->ip_id >> 8);
	t->ip[5] = (uint8_t)t->ip_id;
	t->ip_id = (uint16_t)(t->ip_id + t->ndg);
	if ((err = sofl_pkt_parse_iov(&p, t->hdrbuf, t->in, 2,
	    t->l2 ? SOFL_LINK_ETH : SOFL_LINK_RAW)) < 0 ||
	    (n = sofl_gso_segment(&t->gp, &p, t->in, 2, &out)) < 0) {
		fprintf(stderr, "bench_udpgso: software USO: %s\n",
		    sofl_strerror(err < 0 ? err : n));
		exit(2);
	}
	for (i = 0; i < n; i++) {
		t->mm[i].msg_hdr.msg_iov = t->segs[i].iov;
		t->mm[i].msg_hdr.msg_iovlen = t->segs[i].iovcnt;
	}
	t->bytes += send_all(t, (unsigned)n, t->l2 + HDR4);
}

/* The same super-packet through sofl_port_send() on an AF_PACKET port with
 * a transmit ring (-R): its virtio UDP_L4 header asks for the cut, the GSO
 * engine's copy mode writes the datagrams into the ring, one send(). */
static void
send_uso_ring(struct tx *t)
{
	struct sofl_port_stats st;
	int r;

	t->ip[4] = (uint8_t)(t->ip_id >> 8);
	t->ip[5] = (uint8_t)t->ip_id;
	t->ip_id = (uint16_t)(t->ip_id + t->ndg);
	r = sofl_port_send(t->port, &t->pk, 1);
	if (r < 0) {
		fprintf(stderr, "bench_udpgso: sofl_port_send: %s\n", sofl_strerror(r));
		exit(2);
	}
	if (r == 1) {
		t->bytes += t->payload;
		t->dgrams += t->ndg;
	} else {
		t->drops++;
	}
	if ((t->msgs & 1023) == 0 && sofl_port_get_stats(t->port, &st, sizeof(st)) == 0)
		t->calls = st.tx_calls;
}

/* "aa:bb:cc:dd:ee:ff" -> 6 bytes */
static void
parse_mac(const char *s, uint8_t mac[6])
{
	unsigned v[6];
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 6) {
		fprintf(stderr, "bench_udpgso: -E %s: not a MAC address\n", s);
		exit(2);
	}
	for (i = 0; i < 6; i++)
		mac[i] = (uint8_t)v[i];
}

/* The frames' way out: a raw IPv4 socket (the kernel routes each datagram
 * and fills in the IPv4 header checksum), or, with -I IFNAME -E MAC, an
 * AF_PACKET socket on IFNAME with PACKET_QDISC_BYPASS (frames go to the
 * driver as they are: what a user-space stack with its own NIC does). */
static void
uso_socket(struct tx *t, struct sockaddr_in *dst, const char *ifname, const char *dmac)
{
	struct sockaddr_ll ll = { .sll_family = AF_PACKET };
	struct ifreq ifr;
	int one = 1;

	if (!ifname) {
		if ((t->fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW)) < 0)
			fail("raw socket (needs CAP_NET_RAW)");
		dst->sin_port = 0;
		if (connect(t->fd, (struct sockaddr *)dst, sizeof(*dst)) < 0)
			fail("connect raw");
		t->ip = t->hdr;
		return;
	}
	if (!dmac) {
		fprintf(stderr, "bench_udpgso: -I needs -E (the peer's MAC address)\n");
		exit(2);
	}
	if ((t->fd = socket(AF_PACKET, SOCK_RAW, 0)) < 0)
		fail("packet socket (needs CAP_NET_RAW)");
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(t->fd, SIOCGIFHWADDR, &ifr) < 0)
		fail(ifname);
	parse_mac(dmac, t->hdr);
	memcpy(t->hdr + 6, ifr.ifr_hwaddr.sa_data, 6);
	t->hdr[12] = 0x08;		/* ETH_P_IP */
	t->hdr[13] = 0x00;
	if ((ll.sll_ifindex = (int)if_nametoindex(ifname)) == 0)
		fail(ifname);
	if (bind(t->fd, (struct sockaddr *)&ll, sizeof(ll)) < 0)
		fail("bind packet socket");
	if (setsockopt(t->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)) < 0)
		fail("PACKET_QDISC_BYPASS");
	t->l2 = ETH;
	t->ip = t->hdr + ETH;
	if (t->port) {
		struct sofl_afpacket_config cfg;
		int err;

		/* the ring's own socket sends; this one only named the MAC */
		t->port = NULL;
		sofl_afpacket_config_init(&cfg);
		cfg.ifname = ifname;
		cfg.ring = 0;
		cfg.vnet_hdr = 0;
		cfg.qdisc_bypass = getenv("BENCH_QDISC_BYPASS") ?
		    atoi(getenv("BENCH_QDISC_BYPASS")) : 1;
		cfg.tx_ring = 1;
		/* room for two messages: the slots stay in the cache (a ring
		 * of thousands of 4 KB slots would be written cold) */
		cfg.tx_ring_frames = getenv("BENCH_TX_RING_FRAMES") ?
		    (uint32_t)atoi(getenv("BENCH_TX_RING_FRAMES")) : 2 * t->ndg;
		if ((err = sofl_afpacket_open(&cfg, &t->port)) < 0) {
			fprintf(stderr, "bench_udpgso: AF_PACKET port with a transmit ring: %s\n",
			    sofl_strerror(err));
			exit(2);
		}
		t->pk.iov = t->in;
		t->pk.iovcnt = 2;
		t->pk.flags = SOFL_PORT_PKT_F_VNET;
		t->pk.vnet.flags = SOFL_VNET_HDR_F_NEEDS_CSUM;
		t->pk.vnet.gso_type = SOFL_GSO_UDP_L4;
		t->pk.vnet.hdr_len = ETH + HDR4;
		t->pk.vnet.gso_size = (uint16_t)t->mss;
		t->pk.vnet.csum_start = ETH + 20;
		t->pk.vnet.csum_offset = 6;
	}
}

static void
tx_setup(struct tx *t, const char *addr, int port, const char *ifname, const char *dmac)
{
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct sockaddr_in src;
	struct sofl_gso_need need;
	struct sofl_pkt p;
	socklen_t sl = sizeof(src);
	uint32_t i, off;
	int udp, err;

	if (inet_pton(AF_INET, addr, &dst.sin_addr) != 1) {
		fprintf(stderr, "bench_udpgso: -D %s: not an IPv4 address\n", addr);
		exit(2);
	}
	t->ndg = (t->payload + t->mss - 1) / t->mss;
	if (t->ndg > MAX_DGRAMS) {
		fprintf(stderr, "bench_udpgso: %u datagrams per message, at most %d\n",
		    t->ndg, MAX_DGRAMS);
		exit(2);
	}
	t->buf = bench_alloc(t->payload);
	bench_fill_random(t->buf, t->payload, 1);
	if ((udp = socket(AF_INET, SOCK_DGRAM, 0)) < 0)
		fail("socket");
	if (connect(udp, (struct sockaddr *)&dst, sizeof(dst)) < 0)
		fail("connect");
	if (getsockname(udp, (struct sockaddr *)&src, &sl) < 0)
		fail("getsockname");
	t->fd = udp;
	for (i = 0, off = 0; i < t->ndg; i++, off += t->mss) {
		t->iov[i].iov_base = t->buf + off;
		t->iov[i].iov_len = t->payload - off < t->mss ? t->payload - off : t->mss;
		t->mm[i].msg_hdr.msg_iov = &t->iov[i];
		t->mm[i].msg_hdr.msg_iovlen = 1;
	}
	if (t->mode != M_USO)
		return;
	/* the UDP socket stays open: it owns the source port the
	 * datagrams carry */
	uso_socket(t, &dst, ifname, dmac);
	dst.sin_port = htons((uint16_t)port);
	uso_header(t, &src, &dst);
	t->in[0].iov_base = t->hdr;
	t->in[0].iov_len = t->l2 + HDR4;
	t->in[1].iov_base = t->buf;
	t->in[1].iov_len = t->payload;
	t->pk.len = t->l2 + HDR4 + t->payload;
	t->gp.type = SOFL_GSO_UDP_L4;
	t->gp.gso_size = (uint16_t)t->mss;
	t->ip_id = 1;
	if ((err = sofl_pkt_parse_iov(&p, t->hdrbuf, t->in, 2,
	    t->l2 ? SOFL_LINK_ETH : SOFL_LINK_RAW)) < 0 ||
	    (err = sofl_gso_need(&t->gp, &p, SOFL_GSO_ZEROCOPY, 2, &need)) < 0) {
		fprintf(stderr, "bench_udpgso: software USO: %s\n", sofl_strerror(err));
		exit(2);
	}
	if (need.iovs > 3 * MAX_DGRAMS) {
		fprintf(stderr, "bench_udpgso: software USO needs %zu iovecs\n", need.iovs);
		exit(2);
	}
	t->scratch_len = need.buf_bytes;
	t->scratch = bench_alloc(need.buf_bytes);
}

static void
tx_report(const struct tx *t, double secs, double user, double sys, int kv)
{
	double mbs = (double)t->bytes / 1048576.0 / secs;
	double cpu = 100.0 * (user + sys) / secs;
	double mb2cpu = cpu > 0 ? mbs / cpu : 0;

	if (kv) {
		printf("mode=%s payload=%u mss=%u secs=%.3f bytes=%llu mb_s=%.1f calls_s=%.0f "
		    "msg_s=%.0f dgram_s=%.0f cpu=%.1f user_s=%.3f sys_s=%.3f mb2cpu=%.2f "
		    "drops=%llu ring=%d\n", mode_names[t->mode], t->payload, t->mss, secs,
		    (unsigned long long)t->bytes, mbs, (double)t->calls / secs,
		    (double)t->msgs / secs, (double)t->dgrams / secs, cpu, user, sys, mb2cpu,
		    (unsigned long long)t->drops, t->port != NULL);
		return;
	}
	printf("%-8s %7u %8.0f %9.0f %9.0f %6.1f %7.2f\n", mode_names[t->mode], t->payload,
	    mbs, (double)t->calls / secs, (double)t->msgs / secs, cpu, mb2cpu);
}

static int
cmd_tx(int argc, char **argv)
{
	static struct tx t;
	const char *addr = NULL, *ifname = NULL, *dmac = NULL;
	double secs = 1, t0, t1, u0, s0, u1, s1, end;
	int port = 8000, kv = 0, c, m, ring = 0;

	t.payload = 61824;
	t.mss = 1472;
	while ((c = getopt(argc, argv, "D:p:s:M:m:l:kI:E:R")) != -1) {
		switch (c) {
		case 'R': ring = 1; break;
		case 'D': addr = optarg; break;
		case 'I': ifname = optarg; break;
		case 'E': dmac = optarg; break;
		case 'p': port = (int)num(optarg, 1, 65535, "-p"); break;
		case 's': t.payload = (uint32_t)num(optarg, 1, MAX_PAYLOAD, "-s"); break;
		case 'M': t.mss = (uint32_t)num(optarg, 64, 65507, "-M"); break;
		case 'l': secs = secs_arg(optarg, "-l"); break;
		case 'k': kv = 1; break;
		case 'm':
			for (m = 0; m <= M_USO; m++)
				if (strcmp(optarg, mode_names[m]) == 0)
					break;
			if (m > M_USO)
				usage();
			t.mode = m;
			break;
		default: usage();
		}
	}
	if (!addr || optind != argc)
		usage();
	if (ring && (t.mode != M_USO || !ifname)) {
		fprintf(stderr, "bench_udpgso: -R needs -m uso -I IFNAME -E PEER_MAC\n");
		exit(2);
	}
	/* a marker until uso_socket() opens the port */
	t.port = ring ? (struct sofl_port *)(uintptr_t)1 : NULL;
	tx_setup(&t, addr, port, ifname, dmac);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	cpu_s(&u0, &s0);
	t0 = now_s();
	end = t0 + secs;
	do {
		switch (t.mode) {
		case M_SINGLE: send_single(&t); break;
		case M_MMSG: t.bytes += send_all(&t, t.ndg, 0); break;
		case M_UDPSEG: send_udpseg(&t); break;
		default: if (t.port) send_uso_ring(&t); else send_uso(&t); break;
		}
		t.msgs++;
	} while (!stop && (t1 = now_s()) < end);
	t1 = now_s();
	cpu_s(&u1, &s1);
	if (t.port) {
		struct sofl_port_stats st;

		if (sofl_port_get_stats(t.port, &st, sizeof(st)) == 0)
			t.calls = st.tx_calls;
	}
	tx_report(&t, t1 - t0, u1 - u0, s1 - s0, kv);
	if (t.port)
		sofl_port_close(t.port);
	return t.bytes ? 0 : 1;
}

/* One burst's line: what arrived between its first and last datagram. */
static void
rx_report(uint64_t bytes, uint64_t dgrams, double first, double last, int kv)
{
	double t = dgrams > 1 && last > first ? last - first : 0;
	double mbs = t > 0 ? (double)bytes / 1048576.0 / t : 0;

	if (kv)
		printf("bytes=%llu datagrams=%llu secs=%.3f mb_s=%.1f\n",
		    (unsigned long long)bytes, (unsigned long long)dgrams, t, mbs);
	else
		printf("rx %llu bytes in %llu datagrams, %.1f MB/s\n",
		    (unsigned long long)bytes, (unsigned long long)dgrams, mbs);
	fflush(stdout);
}

static int
cmd_rx(int argc, char **argv)
{
	static uint8_t bufs[RX_BATCH][RX_BUF];
	struct mmsghdr msgs[RX_BATCH];
	struct iovec iov[RX_BATCH];
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT };
	uint64_t bytes = 0, dgrams = 0;
	double secs = 10, idle = 0.5, t0, first = 0, last = 0, t;
	int port = 8000, kv = 0, repeat = 0, rcvbuf = 8 << 20, off = 0, fd, c, r, i;
	struct pollfd pf;

	while ((c = getopt(argc, argv, "p:l:i:kr")) != -1) {
		switch (c) {
		case 'p': port = (int)num(optarg, 1, 65535, "-p"); break;
		case 'l': secs = secs_arg(optarg, "-l"); break;
		case 'i': idle = (double)num(optarg, 1, 60000, "-i") / 1000; break;
		case 'k': kv = 1; break;
		case 'r': repeat = 1; break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	if ((fd = socket(AF_INET6, SOCK_DGRAM, 0)) < 0)
		fail("socket");
	setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	a.sin6_port = htons((uint16_t)port);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		fail("bind");
	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < RX_BATCH; i++) {
		iov[i].iov_base = bufs[i];
		iov[i].iov_len = RX_BUF;
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	pf.fd = fd;
	pf.events = POLLIN;
	t0 = now_s();
	while (!stop) {
		t = now_s();
		if (t - t0 >= secs)
			break;
		if (dgrams && t - last >= idle) {
			/* a burst ended: one line; with -r wait for the next */
			if (!repeat)
				break;
			rx_report(bytes, dgrams, first, last, kv);
			bytes = dgrams = 0;
		}
		if (poll(&pf, 1, 50) <= 0)
			continue;
		r = recvmmsg(fd, msgs, RX_BATCH, MSG_DONTWAIT, NULL);
		if (r <= 0)
			continue;
		last = now_s();
		if (!dgrams)
			first = last;
		for (i = 0; i < r; i++)
			bytes += msgs[i].msg_len;
		dgrams += (unsigned)r;
	}
	if (!repeat || dgrams)
		rx_report(bytes, dgrams, first, last, kv);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc < 2 || argv[1][0] == '-') {
		printf("bench_udpgso: a UDP sender and receiver for two hosts; "
		    "scripts/demo.sh runs it between network namespaces (make demo)\n");
		return 0;
	}
	if (strcmp(argv[1], "tx") == 0)
		return cmd_tx(argc - 1, argv + 1);
	if (strcmp(argv[1], "rx") == 0)
		return cmd_rx(argc - 1, argv + 1);
	usage();
	return 2;
}
