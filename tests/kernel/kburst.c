/* kburst — crafted TCP bursts, and a sender that puts each burst on a wire
 * at once, for tests/relay_burst.sh (docs/kernel-oracle.md).
 *
 *   kburst make OUT.pcap SIZES_FILE [ROUNDS]
 *       writes the bursts (ROUNDS times, default 1) as a pcap and their
 *       sizes, comma-separated, to SIZES_FILE: the -B argument of kgro (one
 *       NAPI poll per burst: the kernel's GRO of each burst whole).
 *   kburst send IFNAME IN.pcap SIZES_FILE [GAP_MS]
 *       sends each burst with one sendmmsg() on an AF_PACKET socket bound
 *       to IFNAME (a veth: the frames cross it one by one as the kernel
 *       transmits them, as a NIC's ring fills while its host sleeps), then
 *       waits GAP_MS (default 20) so that bursts never touch.
 *   kburst watch IFNAME OUT [SECONDS]
 *       what IFNAME receives, as the relay on it does: for each TCP source
 *       port (each burst has its own), the frames, the time from the first
 *       frame's arrival to the last's and the longest pause between two
 *       of its frames (the kernel's receive timestamps, SO_TIMESTAMPNS),
 *       written to OUT on SIGTERM/SIGINT or after SECONDS (default 60) as
 *       "SPORT FRAMES SPREAD_US MAXGAP_US" lines.  "ready" on stdout once
 *       bound.  A burst with a pause longer than a flush timeout inside it
 *       was not one burst when it reached the relay (the sender was
 *       preempted inside its sendmmsg(): the frames cross a veth in the
 *       sender's context), and a NIC's ring would not have paused it:
 *       tests/relay_burst.sh leaves such bursts out of its comparison and
 *       says how many.
 *
 * The bursts, each of its own flow (its own source port, so no burst
 * merges with another): a same-flow data run without PSH (the kind a
 * program sends that GRO must hold), a run ending in PSH, a run ending in
 * FIN, a 64 KB run (47 segments: the 64 KB limit splits it), an IPv6 run,
 * and a run whose ACK number moves mid-burst.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <linux/if_ether.h>
#include "../helpers.h"
#include "kutil.h"

#define MSS 1428		/* an IPv6 frame of it fits a 1500 MTU */
#define MAX_BURST 64
#define SPORT_BASE 20000	/* the first burst's source port; one port per burst */
#define SPORT_MAX 4096

struct burst {
	int ipv, n;
	uint8_t last_flags;	/* TCP flags of the last segment (ACK always) */
	int ack_moves;		/* the ACK number grows from the middle on */
};

static const struct burst bursts[] = {
	{ 4, 12, 0, 0 },
	{ 4, 20, 0x08, 0 },	/* PSH last */
	{ 4, 8, 0x01, 0 },	/* FIN last */
	{ 4, 47, 0x08, 0 },	/* 64 KB run: 47 x 1428 passes 65535 */
	{ 6, 16, 0x08, 0 },
	{ 4, 10, 0, 1 },
};
#define NBURSTS (sizeof(bursts) / sizeof(bursts[0]))

static uint8_t frame[2048];

/* An AF_PACKET socket bound to @ifname (all protocols); @rx: receive only,
 * with the kernel's receive timestamps (SO_TIMESTAMPNS) */
static int
packet_socket(const char *ifname, int rx)
{
	struct sockaddr_ll sa;
	int fd, one = 1;

	if ((fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL))) < 0)
		k_die("socket: %s", strerror(errno));
	if (rx && (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) < 0 ||
		   setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)) < 0))
		k_die("setsockopt: %s", strerror(errno));
	memset(&sa, 0, sizeof(sa));
	sa.sll_family = AF_PACKET;
	sa.sll_protocol = htons(ETH_P_ALL);
	sa.sll_ifindex = (int)if_nametoindex(ifname);
	if (!sa.sll_ifindex || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		k_die("%s: %s", ifname, strerror(errno));
	return fd;
}

static void
make(const char *out, const char *sizes, int rounds)
{
	struct kset s = { 0 };
	FILE *f;
	int r, k;
	size_t b;
	uint16_t sport = SPORT_BASE;

	if (!(f = fopen(sizes, "w")))
		k_die("%s: %s", sizes, strerror(errno));
	for (r = 0; r < rounds; r++)
		for (b = 0; b < NBURSTS; b++) {
			const struct burst *bu = &bursts[b];

			sport++;
			for (k = 0; k < bu->n; k++) {
				struct t_spec t;
				size_t len;

				t_spec_init(&t, bu->ipv, 6);
				memcpy(t.mac_dst, "\x02\x00\x00\x00\x00\x02", 6);
				memcpy(t.mac_src, "\x02\x00\x00\x00\x00\x01", 6);
				t.sport = sport;
				t.dport = 5001;
				t.seq = 1000 + (uint32_t)k * MSS;
				t.ack = 7 + (bu->ack_moves && k >= bu->n / 2 ? 100 : 0);
				t.pay_len = MSS;
				t.pay_off = (uint32_t)k * MSS;
				t.pay_seed = (uint8_t)sport;
				t.ip_id = (uint16_t)(k + 1);
				t.flags = 0x10 | (k == bu->n - 1 ? bu->last_flags : 0);
				len = t_build(frame, sizeof(frame), &t);
				kset_add(&s, frame, (uint32_t)len, NULL);
			}
			fprintf(f, "%s%d", r || b ? "," : "", bu->n);
		}
	fprintf(f, "\n");
	if (fclose(f) != 0)
		k_die("%s: write error", sizes);
	kset_write(&s, out, NULL);
	kset_free(&s);
}

static int
read_sizes(const char *path, int *sz, int cap)
{
	FILE *f = fopen(path, "r");
	int n = 0, v;

	if (!f)
		k_die("%s: %s", path, strerror(errno));
	while (n < cap && fscanf(f, "%d", &v) == 1) {
		sz[n++] = v;
		if (fgetc(f) != ',')
			break;
	}
	fclose(f);
	return n;
}

static void
sendb(const char *ifname, const char *in, const char *sizes, int gap_ms)
{
	static int sz[4096];
	struct mmsghdr m[MAX_BURST];
	struct iovec v[MAX_BURST];
	struct kset s = { 0 };
	struct timespec ts = { gap_ms / 1000, (long)(gap_ms % 1000) * 1000000L };
	size_t pos = 0;
	int n, b, k, fd, r, done;

	kset_read(&s, in, NULL);
	n = read_sizes(sizes, sz, 4096);
	fd = packet_socket(ifname, 0);
	for (b = 0; b < n; b++) {
		if (sz[b] > MAX_BURST || pos + (size_t)sz[b] > s.n)
			k_die("burst %d: %d frames, more than the capture holds", b, sz[b]);
		memset(m, 0, sizeof(m));
		for (k = 0; k < sz[b]; k++) {
			v[k].iov_base = s.r[pos + (size_t)k].data;
			v[k].iov_len = s.r[pos + (size_t)k].len;
			m[k].msg_hdr.msg_iov = &v[k];
			m[k].msg_hdr.msg_iovlen = 1;
		}
		for (done = 0; done < sz[b]; done += r) {
			r = sendmmsg(fd, m + done, (unsigned)(sz[b] - done), 0);
			if (r < 0 && errno == EINTR)
				r = 0;
			else if (r <= 0)
				k_die("sendmmsg: %s", strerror(errno));
		}
		pos += (size_t)sz[b];
		nanosleep(&ts, NULL);
	}
	close(fd);
	kset_free(&s);
}

/* ---- watch: arrival spread per burst ---- */

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void
watch(const char *ifname, const char *out, int secs)
{
	static uint64_t first[SPORT_MAX], last[SPORT_MAX], gap[SPORT_MAX];
	static uint32_t frames[SPORT_MAX];
	static uint8_t buf[65536];
	char cbuf[CMSG_SPACE(sizeof(struct timespec))];
	struct sigaction sig;
	struct timespec t0, t;
	FILE *f;
	int fd, i;

	memset(&sig, 0, sizeof(sig));
	sig.sa_handler = on_signal;
	sigaction(SIGTERM, &sig, NULL);
	sigaction(SIGINT, &sig, NULL);
	fd = packet_socket(ifname, 1);
	printf("ready\n");
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!stop) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct iovec v = { buf, sizeof(buf) };
		struct msghdr m = { .msg_iov = &v, .msg_iovlen = 1,
				    .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *c;
		uint64_t ns = 0;
		ssize_t n;
		int sp;

		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec >= secs)
			break;
		if (poll(&p, 1, 100) <= 0)
			continue;
		if ((n = recvmsg(fd, &m, MSG_DONTWAIT)) < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			k_die("recvmsg: %s", strerror(errno));
		}
		for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
				struct timespec ts;

				memcpy(&ts, CMSG_DATA(c), sizeof(ts));
				ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
			}
		sp = k_tcp_sport(buf, (size_t)n) - SPORT_BASE;
		if (!ns || sp < 0 || sp >= SPORT_MAX)
			continue;
		if (!frames[sp]++)
			first[sp] = last[sp] = ns;
		if (ns > last[sp] && ns - last[sp] > gap[sp])
			gap[sp] = ns - last[sp];
		last[sp] = ns;
	}
	close(fd);
	if (!(f = fopen(out, "w")))
		k_die("%s: %s", out, strerror(errno));
	for (i = 0; i < SPORT_MAX; i++)
		if (frames[i])
			fprintf(f, "%d %u %llu %llu\n", SPORT_BASE + i, frames[i],
				(unsigned long long)((last[i] - first[i]) / 1000),
				(unsigned long long)(gap[i] / 1000));
	if (fclose(f) != 0)
		k_die("%s: write error", out);
}

int
main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "make")) {
		make(argv[2], argv[3], argc > 4 ? atoi(argv[4]) : 1);
		return 0;
	}
	if (argc >= 5 && !strcmp(argv[1], "send")) {
		sendb(argv[2], argv[3], argv[4], argc > 5 ? atoi(argv[5]) : 20);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "watch")) {
		watch(argv[2], argv[3], argc > 4 ? atoi(argv[4]) : 60);
		return 0;
	}
	fprintf(stderr, "usage: kburst make OUT.pcap SIZES_FILE [ROUNDS]\n"
			"       kburst send IFNAME IN.pcap SIZES_FILE [GAP_MS]\n"
			"       kburst watch IFNAME OUT [SECONDS]\n");
	return 2;
}
