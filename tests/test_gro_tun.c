/* Description: GRO outputs written to a real TUN (IFF_VNET_HDR) as gro.h's
 * HowTo says — virtio header + the output's iovecs in one writev — inside a
 * private network namespace (198.18.0.0/30, 2001:2::/64), in every mode:
 * TCP and UDP, IPv4 and IPv6, pseudo (partial) and complete (csum_full)
 * checksums.  Every output's virtio header passes sofl_vnet_check() and the
 * kernel accepts every write; a UDP socket receives exactly the original
 * datagrams; the TCP segments reach TCP with checksums that verify (the
 * namespace's Tcp InCsumErrors and InErrs do not move: with no listener
 * tcp_v4_rcv/tcp_v6_rcv verify the checksum before answering with a RST);
 * 2000 in-order 16-byte segments give outputs writev() takes (at most
 * max_segs + 1 iovecs).  Needs root and /dev/net/tun (else 77). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
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

static int tun_fd = -1, udp_fd = -1, udp6_fd = -1;
static const uint8_t local4[4] = { 198, 18, 0, 1 }, peer4[4] = { 198, 18, 0, 2 };
static const uint8_t local6[16] = { 0x20, 0x01, 0, 2, [15] = 1 };
static const uint8_t peer6[16] = { 0x20, 0x01, 0, 2, [15] = 2 };

/* struct in6_ifreq of <linux/ipv6.h> (which clashes with <netinet/in.h>) */
struct ifreq6 {
	struct in6_addr addr;
	uint32_t prefixlen;
	int ifindex;
};

static int
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return -1;
	ok = fputs(text, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static const char *
setup6(int ifindex)
{
	struct ifreq6 r6;
	struct sockaddr_in6 sin6;
	int s = socket(AF_INET6, SOCK_DGRAM, 0), tries;

	if (s < 0)
		return "no IPv6";
	memset(&r6, 0, sizeof(r6));
	memcpy(&r6.addr, local6, 16);
	r6.prefixlen = 64;
	r6.ifindex = ifindex;
	if (ioctl(s, SIOCSIFADDR, &r6) != 0)
		return "SIOCSIFADDR (IPv6) failed";
	close(s);
	udp6_fd = socket(AF_INET6, SOCK_DGRAM, 0);
	memset(&sin6, 0, sizeof(sin6));
	sin6.sin6_family = AF_INET6;
	memcpy(&sin6.sin6_addr, local6, 16);
	sin6.sin6_port = htons(9000);
	/* the address may still be tentative for a moment: up to 2 s */
	for (tries = 0; bind(udp6_fd, (struct sockaddr *)&sin6, sizeof(sin6)) != 0; tries++) {
		if (errno != EADDRNOTAVAIL || tries == 200)
			return "bind [2001:2::1]:9000 failed";
		usleep(10000);
	}
	return NULL;
}

static const char *
setup(void)
{
	struct ifreq ifr;
	struct sockaddr_in sin;
	int s, ifindex;

	if (geteuid() != 0)
		return "needs root (network namespace, TUN)";
	if (access("/dev/net/tun", R_OK | W_OK) != 0)
		return "/dev/net/tun missing";
	if (unshare(CLONE_NEWNET) != 0)
		return "cannot create a network namespace";
	/* the namespace's own sysctl: addresses usable at once (no DAD) */
	if (write_file("/proc/sys/net/ipv6/conf/default/accept_dad", "0\n") != 0)
		return "cannot disable IPv6 DAD in the namespace";
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
	if (ioctl(s, SIOCGIFINDEX, &ifr) != 0)
		return "SIOCGIFINDEX failed";
	ifindex = ifr.ifr_ifindex;
	close(s);
	udp_fd = socket(AF_INET, SOCK_DGRAM, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	memcpy(&sin.sin_addr, local4, 4);
	sin.sin_port = htons(9000);
	if (bind(udp_fd, (struct sockaddr *)&sin, sizeof(sin)) != 0)
		return "bind 198.18.0.1:9000 failed";
	return setup6(ifindex);
}

/* The namespace's Tcp counter @name (/proc/net/snmp), or -1 */
static long
tcp_counter(const char *name)
{
	char names[1024], vals[1024], *a, *b, *sa, *sb;
	FILE *f = fopen("/proc/net/snmp", "r");
	long v = -1;

	if (!f)
		return -1;
	while (fgets(names, sizeof(names), f) && fgets(vals, sizeof(vals), f)) {
		if (strncmp(names, "Tcp:", 4) != 0)
			continue;
		a = strtok_r(names, " \n", &sa);
		b = strtok_r(vals, " \n", &sb);
		while ((a = strtok_r(NULL, " \n", &sa)) && (b = strtok_r(NULL, " \n", &sb)))
			if (strcmp(a, name) == 0)
				v = strtol(b, NULL, 10);
		break;
	}
	fclose(f);
	return v;
}

/* writev(virtio header + output iovecs), as in gro.h's HowTo */
static ssize_t
tun_write(const struct sofl_gro_out *o)
{
	static struct iovec v[1 + SOFL_GRO_IOV_MAX];
	uint8_t vh[SOFL_VNET_HDR_LEN];

	assert_true(o->iovcnt >= 1 && o->iovcnt <= SOFL_GRO_IOV_MAX);
	assert_int_equal(sofl_vnet_encode(vh, sizeof(vh), &o->vnet, SOFL_VNET_HDR_LEN, 0),
			 SOFL_VNET_HDR_LEN);
	v[0].iov_base = vh;
	v[0].iov_len = sizeof(vh);
	memcpy(v + 1, o->iov, o->iovcnt * sizeof(*v));
	return writev(tun_fd, v, (int)o->iovcnt + 1);
}

/* The output's virtio header passes Linux's rules (GSO for super-packets) */
static void
vnet_ok(const struct sofl_gro_out *o)
{
	static uint8_t b[70000];
	struct sofl_pkt p;
	long l = sofl_gro_out_copy(o, b, sizeof(b));

	assert_int_equal(l, o->len);
	sofl_pkt_parse(&p, b, (size_t)l, SOFL_LINK_RAW);
	assert_int_equal(sofl_vnet_check(&o->vnet, &p, SOFL_VNET_F_STRICT), o->segs > 1);
}

/* Feed @n frames (raw IP) through an engine (UDP GRO on, @full: csum_full),
 * check and write every output; *supers: super-packets among them. */
static int
gro_to_tun(uint8_t (*f)[2048], const uint32_t *len, int n, int full, int *supers)
{
	struct sofl_gro_config cfg;
	struct sofl_gro *g;
	struct sofl_gro_in in[64];
	const struct sofl_gro_out *o;
	int i, k;

	sofl_gro_config_init(&cfg);
	cfg.link = SOFL_LINK_RAW;
	cfg.udp = 1;
	cfg.csum_full = full;
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
		ssize_t w;

		vnet_ok(&o[i]);
		w = tun_write(&o[i]);
		if (w != (ssize_t)(SOFL_VNET_HDR_LEN + o[i].len)) {
			fprintf(stderr, "writev of output %d (%u segs, gso_type %u, flags %u): %zd, %s\n",
				i, o[i].segs, o[i].gso_type, o[i].vnet.flags, w, strerror(errno));
			fail();
		}
		*supers += o[i].segs > 1;
	}
	sofl_gro_release(g);
	sofl_gro_destroy(g);
	return k;
}

static void
spec(struct t_spec *s, int ipv, int proto)
{
	t_spec_init(s, ipv, proto);
	s->link = SOFL_LINK_RAW;
	memcpy(s->src, ipv == 4 ? peer4 : peer6, ipv == 4 ? 4 : 16);
	memcpy(s->dst, ipv == 4 ? local4 : local6, ipv == 4 ? 4 : 16);
}

static void
udp_mode(int ipv, int full)
{
	static uint8_t f[16][2048], got[4000];
	uint32_t len[16];
	struct t_spec s;
	int i, supers, n = 12, fd = ipv == 4 ? udp_fd : udp6_fd;

	for (i = 0; i < n; i++) {
		spec(&s, ipv, 17);
		s.sport = 5555;
		s.dport = 9000;
		s.ip_id = (uint16_t)(300 + i);
		s.pay_len = i == n - 1 ? 333 : 1000;	/* a shorter last one */
		s.pay_off = (uint32_t)i * 1000;
		len[i] = (uint32_t)t_build(f[i], sizeof(f[i]), &s);
	}
	assert_int_equal(gro_to_tun(f, len, n, full, &supers), 1);
	assert_int_equal(supers, 1);
	for (i = 0; i < n; i++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;
		uint32_t j;

		assert_int_equal(poll(&p, 1, 2000), 1);
		r = recv(fd, got, sizeof(got), 0);
		assert_int_equal(r, i == n - 1 ? 333 : 1000);
		for (j = 0; j < (uint32_t)r; j++)
			if (got[j] != (uint8_t)(i * 1000 + j)) {
				fprintf(stderr, "v%d full %d: datagram %d byte %u\n", ipv, full, i, j);
				fail();
			}
	}
}

/* A TCP train of @n segments of @pay bytes (then a pure ACK); no listener:
 * the stack verifies each checksum and answers with a RST */
static void
tcp_mode(int ipv, int full, int n, int pay)
{
	static uint8_t f[16][2048];
	uint32_t len[16];
	struct t_spec s;
	long csum0 = tcp_counter("InCsumErrors"), err0 = tcp_counter("InErrs");
	int i, supers;

	assert_true(csum0 >= 0 && err0 >= 0 && n < 16);
	for (i = 0; i <= n; i++) {
		spec(&s, ipv, 6);
		s.dport = 9001;
		s.ip_id = (uint16_t)(700 + i);
		s.seq = 5000 + (uint32_t)(i * pay);
		s.pay_off = (uint32_t)(i * pay);
		s.pay_len = i == n ? 0 : (size_t)pay;
		s.tcp_opts = t_opt_ts;
		s.tcp_opts_len = 12;
		len[i] = (uint32_t)t_build(f[i], sizeof(f[i]), &s);
	}
	assert_int_equal(gro_to_tun(f, len, n + 1, full, &supers), 2);
	assert_int_equal(supers, 1);
	/* delivery is synchronous (tun_get_user -> netif_receive) */
	assert_int_equal(tcp_counter("InCsumErrors"), csum0);
	assert_int_equal(tcp_counter("InErrs"), err0);
}

static void
test_udp_delivered(void **state)
{
	int ipv, full;
	(void)state;

	for (ipv = 4; ipv <= 6; ipv += 2)
		for (full = 0; full <= 1; full++)
			udp_mode(ipv, full);
}

/* The control: a segment with a wrong TCP checksum, even flagged
 * DATA_VALID, moves InCsumErrors (so the check above can fail) */
static void
tcp_bad_csum(int ipv)
{
	uint8_t f[2048], vh[SOFL_VNET_HDR_LEN];
	struct sofl_vnet_hdr h;
	struct iovec v[2];
	struct t_spec s;
	long csum0 = tcp_counter("InCsumErrors");
	size_t l;

	spec(&s, ipv, 6);
	s.dport = 9001;
	s.pay_len = 100;
	l = t_build(f, sizeof(f), &s);
	f[(ipv == 4 ? 20 : 40) + 16] ^= 0x5a;
	memset(&h, 0, sizeof(h));
	h.flags = SOFL_VNET_HDR_F_DATA_VALID;
	assert_int_equal(sofl_vnet_encode(vh, sizeof(vh), &h, sizeof(vh), 0), SOFL_VNET_HDR_LEN);
	v[0].iov_base = vh;
	v[0].iov_len = sizeof(vh);
	v[1].iov_base = f;
	v[1].iov_len = l;
	assert_int_equal(writev(tun_fd, v, 2), (ssize_t)(sizeof(vh) + l));
	assert_int_equal(tcp_counter("InCsumErrors"), csum0 + 1);
}

static void
test_tcp_accepted(void **state)
{
	int ipv, full;
	(void)state;

	tcp_bad_csum(4);
	tcp_bad_csum(6);

	for (ipv = 4; ipv <= 6; ipv += 2)
		for (full = 0; full <= 1; full++) {
			tcp_mode(ipv, full, 8, 1200);
			tcp_mode(ipv, full, 5, 1001);	/* odd size: odd offsets */
		}
}

/* 2000 in-order 16-byte segments of one flow in one poll: each output fits
 * writev() with the virtio header (once one output of 2001 iovecs) */
static void
test_many_segments(void **state)
{
	enum { N = 2000, PAY = 16 };
	struct sofl_gro_config cfg;
	struct sofl_gro *g;
	struct sofl_gro_in *in = calloc(N, sizeof(*in));
	uint8_t *buf = malloc((size_t)N * 128);
	const struct sofl_gro_out *o;
	struct t_spec s;
	long csum0 = tcp_counter("InCsumErrors");
	int i, k, full, segs;
	(void)state;

	assert_non_null(in);
	assert_non_null(buf);
	for (full = 0; full <= 1; full++) {
		for (i = 0; i < N; i++) {
			spec(&s, 4, 6);
			s.dport = 9002;
			s.ip_id = (uint16_t)i;
			s.seq = 1 + (uint32_t)(i * PAY);
			s.pay_off = (uint32_t)(i * PAY);
			s.pay_len = PAY;
			in[i].data = buf + (size_t)i * 128;
			in[i].len = (uint32_t)t_build(buf + (size_t)i * 128, 128, &s);
			in[i].flags = 0;
			in[i].hash = 0;
			in[i].cookie = (uint64_t)i;
		}
		sofl_gro_config_init(&cfg);
		cfg.link = SOFL_LINK_RAW;
		cfg.max_batch = N;
		cfg.csum_full = full;
		assert_int_equal(sofl_gro_create(&cfg, &g), 0);
		assert_int_equal(sofl_gro_receive(g, in, N, 0), N);
		sofl_gro_poll_end(g, 0);
		k = sofl_gro_outputs(g, &o);
		assert_int_equal(k, 2);
		for (i = 0, segs = 0; i < k; i++) {
			vnet_ok(&o[i]);
			if (tun_write(&o[i]) != (ssize_t)(SOFL_VNET_HDR_LEN + o[i].len)) {
				fprintf(stderr, "writev of %u iovecs: %s\n", o[i].iovcnt + 1,
					strerror(errno));
				fail();
			}
			segs += (int)o[i].segs;
		}
		assert_int_equal(o[0].segs, SOFL_GRO_MAX_SEGS_DEFAULT);
		assert_int_equal(o[0].iovcnt, SOFL_GRO_IOV_MAX);
		assert_int_equal(o[0].flush_reason, SOFL_GRO_FLUSH_SEGS);
		assert_int_equal(segs, N);
		sofl_gro_release(g);
		sofl_gro_destroy(g);
	}
	assert_int_equal(tcp_counter("InCsumErrors"), csum0);
	free(in);
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_udp_delivered),
		cmocka_unit_test(test_tcp_accepted),
		cmocka_unit_test(test_many_segments),
	};
	const char *why = setup();

	if (why) {
		fprintf(stderr, "skip: %s\n", why);
		return T_SKIP;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
