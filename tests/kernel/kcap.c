/* kcap — capture what an interface receives, with its virtio_net_hdr
 * (docs/kernel-oracle.md).
 *
 * An AF_PACKET socket with PACKET_VNET_HDR bound to @if, incoming packets only
 * (outgoing ones are ignored).  The vnet header tells whether the kernel
 * handed the packet up as a GSO super-packet (gso_type, gso_size) and in
 * which checksum state (NEEDS_CSUM: partial; DATA_VALID; 0: none), which a
 * pcap alone cannot say.  Writes the frames as pcap and the headers as the
 * sidecar (kutil.h).  Stops after -c packets, after -T seconds, or on
 * SIGINT/SIGTERM; prints "ready" on stdout once the socket is bound.
 *
 * usage: kcap -i if -w out.pcap -m out.vnet [-c max] [-T seconds]
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "kutil.h"

#define BUF_SIZE (256 * 1024)

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int
main(int argc, char **argv)
{
	const char *ifn = NULL, *w = NULL, *m = NULL;
	unsigned long max = 1000000, secs = 30;
	struct kset out = { 0 };
	struct sigaction sa;
	struct timespec t0, t;
	uint8_t *buf;
	int c, fd;

	while ((c = getopt(argc, argv, "i:w:m:c:T:")) != -1) {
		switch (c) {
		case 'i': ifn = optarg; break;
		case 'w': w = optarg; break;
		case 'm': m = optarg; break;
		case 'c': max = strtoul(optarg, NULL, 10); break;
		case 'T': secs = strtoul(optarg, NULL, 10); break;
		default:
			fprintf(stderr, "usage: kcap -i if -w out.pcap -m out.vnet [-c max] [-T s]\n");
			return 2;
		}
	}
	if (!ifn || !w || !m)
		k_die("kcap: -i, -w and -m are required");
	buf = malloc(BUF_SIZE);
	if (!buf)
		k_die("out of memory");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	fd = k_packet_open(ifn, 1);
	printf("ready\n");
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!stop && out.n < max) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct sofl_vnet_hdr vh;
		uint8_t *f;
		long n;

		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((unsigned long)(t.tv_sec - t0.tv_sec) >= secs)
			break;
		if (poll(&p, 1, 100) <= 0)
			continue;
		n = k_packet_recv(fd, buf, BUF_SIZE, MSG_DONTWAIT, &vh, &f);
		if (n < 0)
			continue;
		kset_add(&out, f, (uint32_t)n, &vh);
	}
	kset_write(&out, w, m);
	fprintf(stderr, "kcap: %zu frames from %s\n", out.n, ifn);
	kset_free(&out);
	free(buf);
	close(fd);
	return 0;
}
