/* Description: GRO outputs written to a real TUN (IFF_VNET_HDR) as gro.h's
 * HowTo says — virtio header + the output's iovecs in one writev — inside a
 * private network namespace (198.18.0.0/30): the kernel accepts every
 * super-packet (TCP and UDP_L4) and single packet, and a UDP socket receives
 * exactly the original datagrams.  Needs root and /dev/net/tun (else 77). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <linux/if_tun.h>
#include "helpers.h"
#include "softoffload/gro.h"
#include "softoffload/vnet.h"

#ifndef TUN_F_USO4
#define TUN_F_USO4 0x20
#endif
#ifndef TUN_F_USO6
#define TUN_F_USO6 0x40
#endif

static int tun_fd = -1, udp_fd = -1;
static const uint8_t local4[4] = { 198, 18, 0, 1 }, peer4[4] = { 198, 18, 0, 2 };

static const char *
setup(void)
{
	struct ifreq ifr;
	struct sockaddr_in sin;
	int s;

	if (geteuid() != 0)
		return "needs root (network namespace, TUN)";
	if (access("/dev/net/tun", R_OK | W_OK) != 0)
		return "/dev/net/tun missing";
	if (unshare(CLONE_NEWNET) != 0)
		return "cannot create a network namespace";
	tun_fd = open("/dev/net/tun", O_RDWR);
	if (tun_fd < 0)
		return "cannot open /dev/net/tun";
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI | IFF_VNET_HDR;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "sogro0");
	if (ioctl(tun_fd, TUNSETIFF, &ifr) != 0)
		return "TUNSETIFF failed";
	s = socket(AF_INET, SOCK_DGRAM, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	memcpy(&sin.sin_addr, local4, 4);
	memcpy(&ifr.ifr_addr, &sin, sizeof(sin));
	if (ioctl(s, SIOCSIFADDR, &ifr) != 0)
		return "SIOCSIFADDR failed";
	sin.sin_addr.s_addr = htonl(0xfffffffc);	/* /30 */
	memcpy(&ifr.ifr_netmask, &sin, sizeof(sin));
	if (ioctl(s, SIOCSIFNETMASK, &ifr) != 0)
		return "SIOCSIFNETMASK failed";
	if (ioctl(s, SIOCGIFFLAGS, &ifr) != 0)
		return "SIOCGIFFLAGS failed";
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) != 0)
		return "SIOCSIFFLAGS failed";
	close(s);
	udp_fd = socket(AF_INET, SOCK_DGRAM, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	memcpy(&sin.sin_addr, local4, 4);
	sin.sin_port = htons(9000);
	if (bind(udp_fd, (struct sockaddr *)&sin, sizeof(sin)) != 0)
		return "bind 198.18.0.1:9000 failed";
	return NULL;
}

/* writev(virtio header + output iovecs), as in gro.h's HowTo */
static ssize_t
tun_write(const struct sofl_gro_out *o)
{
	struct iovec v[70];
	uint8_t vh[SOFL_VNET_HDR_LEN];

	assert_true(o->iovcnt + 1 <= 70);
	assert_int_equal(sofl_vnet_encode(vh, sizeof(vh), &o->vnet, SOFL_VNET_HDR_LEN, 0),
			 SOFL_VNET_HDR_LEN);
	v[0].iov_base = vh;
	v[0].iov_len = sizeof(vh);
	memcpy(v + 1, o->iov, o->iovcnt * sizeof(*v));
	return writev(tun_fd, v, (int)o->iovcnt + 1);
}

/* Feed @n frames (raw IPv4) through a UDP-enabled engine, write every output. */
static int
gro_to_tun(uint8_t (*f)[2048], const uint32_t *len, int n, int *supers)
{
	struct sofl_gro_config cfg;
	struct sofl_gro *g;
	struct sofl_gro_in in[64];
	const struct sofl_gro_out *o;
	int i, k;

	sofl_gro_config_init(&cfg);
	cfg.link = SOFL_LINK_RAW;
	cfg.udp = 1;
	assert_int_equal(sofl_gro_create(&cfg, &g), 0);
	for (i = 0; i < n; i++) {
		in[i].data = f[i];
		in[i].len = len[i];
		in[i].flags = 0;
		in[i].hash = 0;
		in[i].cookie = (uint64_t)i;
	}
	assert_int_equal(sofl_gro_receive(g, in, (size_t)n, 0), n);
	sofl_gro_poll_end(g, 0);
	k = sofl_gro_outputs(g, &o);
	*supers = 0;
	for (i = 0; i < k; i++) {
		ssize_t w = tun_write(&o[i]);
		if (w != (ssize_t)(SOFL_VNET_HDR_LEN + o[i].len)) {
			fprintf(stderr, "writev of output %d (%u segs, gso_type %u): %zd, %s\n", i,
				o[i].segs, o[i].gso_type, w, strerror(errno));
			fail();
		}
		*supers += o[i].segs > 1;
	}
	sofl_gro_release(g);
	sofl_gro_destroy(g);
	return k;
}

static void
test_udp_delivered(void **state)
{
	static uint8_t f[16][2048], got[4000];
	uint32_t len[16];
	struct t_spec s;
	int i, supers, n = 12;
	(void)state;

	for (i = 0; i < n; i++) {
		t_spec_init(&s, 4, 17);
		s.link = SOFL_LINK_RAW;
		memcpy(s.src, peer4, 4);
		memcpy(s.dst, local4, 4);
		s.sport = 5555;
		s.dport = 9000;
		s.ip_id = (uint16_t)(300 + i);
		s.pay_len = i == n - 1 ? 333 : 1000;	/* a shorter last one */
		s.pay_off = (uint32_t)i * 1000;
		len[i] = (uint32_t)t_build(f[i], sizeof(f[i]), &s);
	}
	assert_int_equal(gro_to_tun(f, len, n, &supers), 1);
	assert_int_equal(supers, 1);
	for (i = 0; i < n; i++) {
		struct pollfd p = { .fd = udp_fd, .events = POLLIN };
		ssize_t r;
		uint32_t j;

		assert_int_equal(poll(&p, 1, 2000), 1);
		r = recv(udp_fd, got, sizeof(got), 0);
		assert_int_equal(r, i == n - 1 ? 333 : 1000);
		for (j = 0; j < (uint32_t)r; j++)
			if (got[j] != (uint8_t)(i * 1000 + j)) {
				fprintf(stderr, "datagram %d byte %u\n", i, j);
				fail();
			}
	}
}

static void
test_tcp_accepted(void **state)
{
	static uint8_t f[16][2048];
	uint32_t len[16];
	struct t_spec s;
	int i, supers, n;
	(void)state;

	/* a TCP/IPv4 train (no listener: the stack answers with a RST; what is
	 * checked is that Linux accepts the GSO write), then a pure ACK */
	for (i = 0; i < 9; i++) {
		t_spec_init(&s, 4, 6);
		s.link = SOFL_LINK_RAW;
		memcpy(s.src, peer4, 4);
		memcpy(s.dst, local4, 4);
		s.dport = 9001;
		s.ip_id = (uint16_t)(700 + i);
		s.seq = 5000 + (uint32_t)i * 1200;
		s.pay_off = (uint32_t)i * 1200;
		s.pay_len = i == 8 ? 0 : 1200;
		s.tcp_opts = t_opt_ts;
		s.tcp_opts_len = 12;
		len[i] = (uint32_t)t_build(f[i], sizeof(f[i]), &s);
	}
	n = gro_to_tun(f, len, 9, &supers);
	assert_int_equal(n, 2);
	assert_int_equal(supers, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_udp_delivered),
		cmocka_unit_test(test_tcp_accepted),
	};
	const char *why = setup();

	if (why) {
		fprintf(stderr, "skip: %s\n", why);
		return T_SKIP;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
