/* kflood — a bounded, paced flood of small UDP datagrams (tests/tunnel_faults.sh).
 *
 *   kflood SRC DST PORT SIZE COUNT RATE
 *       from SRC (IPv4, any port) to DST:PORT, COUNT datagrams of SIZE
 *       bytes (all zero: too short or not a tunnel header), RATE per second,
 *       sent with sendmmsg() in batches of up to 64 on a 1 ms schedule (a
 *       late batch is caught up, never skipped), then prints
 *       "sent N in S s"
 * The count is exact (a send the kernel refuses is retried), so that the
 * receiver's drop counters can be checked against it.  Exit 0, or 1 on an
 * error (message on stderr).  Bounded by the caller (timeout). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define BATCH 64

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	static unsigned char payload[1500];
	struct sockaddr_in src = { .sin_family = AF_INET }, dst = { .sin_family = AF_INET };
	struct mmsghdr m[BATCH];
	struct iovec v = { payload, 0 };
	long long count, rate, sent = 0;
	double t0, t;
	int fd, i, r;

	if (argc != 7 || inet_pton(AF_INET, argv[1], &src.sin_addr) != 1 ||
	    inet_pton(AF_INET, argv[2], &dst.sin_addr) != 1) {
		fprintf(stderr, "usage: kflood SRC DST PORT SIZE COUNT RATE\n");
		return 1;
	}
	dst.sin_port = htons((unsigned short)atoi(argv[3]));
	v.iov_len = (size_t)atoi(argv[4]);
	count = atoll(argv[5]);
	rate = atoll(argv[6]);
	if (v.iov_len > sizeof(payload) || count < 0 || rate <= 0) {
		fprintf(stderr, "kflood: SIZE up to %zu, COUNT >= 0, RATE > 0\n", sizeof(payload));
		return 1;
	}
	if ((fd = socket(AF_INET, SOCK_DGRAM, 0)) < 0 ||
	    bind(fd, (struct sockaddr *)&src, sizeof(src)) < 0) {
		fprintf(stderr, "kflood: socket: %s\n", strerror(errno));
		return 1;
	}
	memset(m, 0, sizeof(m));
	for (i = 0; i < BATCH; i++) {
		m[i].msg_hdr.msg_iov = &v;
		m[i].msg_hdr.msg_iovlen = 1;
		m[i].msg_hdr.msg_name = &dst;	/* unconnected: no ICMP error comes back */
		m[i].msg_hdr.msg_namelen = sizeof(dst);
	}
	t0 = now();
	while (sent < count) {
		long long due = (long long)((now() - t0) * (double)rate) + 1;
		int n;

		if (due > count)
			due = count;
		if (due <= sent) {
			struct timespec ts = { 0, 1000000 };

			nanosleep(&ts, NULL);
			continue;
		}
		n = due - sent > BATCH ? BATCH : (int)(due - sent);
		r = sendmmsg(fd, m, (unsigned)n, 0);
		if (r < 0) {
			if (errno == EINTR || errno == ENOBUFS || errno == EAGAIN)
				continue;
			fprintf(stderr, "kflood: sendmmsg: %s\n", strerror(errno));
			return 1;
		}
		sent += r;
	}
	t = now() - t0;
	printf("sent %lld in %.2f s\n", sent, t);
	return 0;
}
