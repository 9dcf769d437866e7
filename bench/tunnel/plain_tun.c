/* plain_tun: the naive IP-over-UDP tunnel, the baseline softoffload's tunnel
 * is measured against (make demo's small-packets experiment).
 *
 *   plain_tun TUN_NAME LOCAL_ADDR LOCAL_PORT REMOTE_ADDR REMOTE_PORT
 *
 * One thread, one poll() over a TUN (IFF_TUN | IFF_NO_PI, no virtio header,
 * no offloads) and a connected UDP socket: each readable descriptor gives
 * one packet per read()/recv() and that packet leaves with one send()/
 * write().  No batching, no offloads, no library: the ~150-line program
 * anyone would write first.  The addresses may be IPv4 or IPv6 (both of
 * the same family).  SIGINT/SIGTERM end it; it then prints its counters on
 * one line to stdout.  Errors on a packet are counted, not fatal.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* addr(HOST, PORT) -> *ss, its length; -1 when it does not resolve */
static int
addr(const char *host, const char *port, struct sockaddr_storage *ss, socklen_t *len)
{
	struct addrinfo hint = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
				 .ai_socktype = SOCK_DGRAM }, *ai;

	if (getaddrinfo(host, port, &hint, &ai) != 0)
		return -1;
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

static int
tun_open(const char *name)
{
	struct ifreq ifr;
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int
main(int argc, char **argv)
{
	static unsigned char buf[65536];
	struct sockaddr_storage la, ra;
	socklen_t ll, rl;
	unsigned long long tun_rx = 0, udp_tx = 0, udp_rx = 0, tun_tx = 0, errs = 0;
	struct sigaction sa = { .sa_handler = on_signal };
	struct pollfd pf[2];
	int tun, udp, one = 1, sz = 4 << 20;
	ssize_t n;

	if (argc != 6) {
		fprintf(stderr, "usage: plain_tun TUN LOCAL_ADDR LOCAL_PORT REMOTE_ADDR REMOTE_PORT\n");
		return 2;
	}
	if (addr(argv[2], argv[3], &la, &ll) < 0 || addr(argv[4], argv[5], &ra, &rl) < 0 ||
	    la.ss_family != ra.ss_family) {
		fprintf(stderr, "plain_tun: bad address (numeric, one family)\n");
		return 2;
	}
	if ((tun = tun_open(argv[1])) < 0) {
		fprintf(stderr, "plain_tun: TUN %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	udp = socket(la.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (udp < 0) {
		perror("plain_tun: socket");
		return 1;
	}
	/* the socket buffers any tunnel sets (softoffload's tunnel asks for
	 * more; these keep the baseline from losing bursts to a tiny buffer) */
	setsockopt(udp, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(udp, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	setsockopt(udp, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if (bind(udp, (struct sockaddr *)&la, ll) < 0 || connect(udp, (struct sockaddr *)&ra, rl) < 0) {
		perror("plain_tun: bind/connect");
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	pf[0] = (struct pollfd){ .fd = tun, .events = POLLIN };
	pf[1] = (struct pollfd){ .fd = udp, .events = POLLIN };
	while (!stop) {
		if (poll(pf, 2, 200) < 0) {
			if (errno == EINTR)
				continue;
			perror("plain_tun: poll");
			return 1;
		}
		/* TUN -> peer: one read(), one send() */
		if (pf[0].revents & POLLIN) {
			n = read(tun, buf, sizeof(buf));
			if (n > 0) {
				tun_rx++;
				if (send(udp, buf, (size_t)n, 0) == n)
					udp_tx++;
				else
					errs++;
			} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
				perror("plain_tun: read");
				return 1;
			}
		}
		/* peer -> TUN: one recv(), one write() */
		if (pf[1].revents & POLLIN) {
			n = recv(udp, buf, sizeof(buf), 0);
			if (n > 0) {
				udp_rx++;
				if (write(tun, buf, (size_t)n) == n)
					tun_tx++;
				else
					errs++;
			} else if (n < 0 && errno != EAGAIN && errno != EINTR && errno != ECONNREFUSED) {
				perror("plain_tun: recv");
				return 1;
			}
		}
		if ((pf[0].revents | pf[1].revents) & (POLLERR | POLLNVAL) && !(pf[1].revents & POLLIN)) {
			/* a connected UDP socket reports ICMP errors this way:
			 * read the error and go on */
			int e;
			socklen_t el = sizeof(e);

			getsockopt(udp, SOL_SOCKET, SO_ERROR, &e, &el);
		}
	}
	printf("{\"tun_rx\":%llu,\"udp_tx\":%llu,\"udp_rx\":%llu,\"tun_tx\":%llu,\"errors\":%llu}\n",
	       tun_rx, udp_tx, udp_rx, tun_tx, errs);
	return 0;
}
