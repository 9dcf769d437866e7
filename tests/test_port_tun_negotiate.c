/* Description: UDP-tunnel GSO negotiated with the running kernel (root, a network namespace of its own, /dev/net/tun): sofl_tun_open() of TAPs with and without SOFL_TUN_WANT_F_UDP_TNL(_CSUM) reports in sofl_port_offloads() what the kernel granted (Linux 6.17+: both, or the bit alone; before: neither, the fallback), and the device's header size agrees (TUNGETVNETHDRSZ 24 with the bits, 12 without, also when the kernel refuses them and when no TSO/USO is asked for, which Linux requires); a GRO'd VXLAN super-packet written whole is taken by the kernel as one packet (its /proc/net/dev receive counter +1, no frame error), and a plain TAP (the default) still writes the same frames one by one. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <linux/if_tun.h>
#include "helpers.h"
#include "helpers_encap.h"
#include "softoffload/port.h"
#include "softoffload/pkt.h"

#define TNL_BITS (SOFL_PORT_OFF_F_UDP_TNL | SOFL_PORT_OFF_F_UDP_TNL_CSUM)

static int kernel_has_tnl;	/* 6.17 or later */
static uint8_t segs[8][2048];

static int
hdr_size(const struct sofl_port *p)
{
	int sz = -1;

	assert_int_equal(ioctl(sofl_port_fd(p), TUNGETVNETHDRSZ, &sz), 0);
	return sz;
}

static struct sofl_port *
open_tap(const char *name, unsigned want)
{
	struct sofl_tun_config c;
	struct sofl_port *p = NULL;

	sofl_tun_config_init(&c);
	c.name = name;
	c.tap = 1;
	c.offloads = want;
	c.quiet = 1;
	assert_int_equal(sofl_tun_open(&c, &p), 0);
	return p;
}

/* What the kernel grants is what the port reports, and the header size follows. */
static void
test_negotiate(void **state)
{
	static const struct {
		unsigned want, expect;	/* expect: on a kernel with UDP-tunnel GSO */
	} k[] = {
		{ SOFL_TUN_WANT_F_ALL, 0 },
		{ SOFL_TUN_WANT_F_ALL | SOFL_TUN_WANT_F_UDP_TNL, SOFL_PORT_OFF_F_UDP_TNL },
		{ SOFL_TUN_WANT_F_ALL | SOFL_TUN_WANT_F_UDP_TNL | SOFL_TUN_WANT_F_UDP_TNL_CSUM, TNL_BITS },
		{ SOFL_TUN_WANT_F_ALL | SOFL_TUN_WANT_F_UDP_TNL_CSUM, TNL_BITS },
		{ SOFL_TUN_WANT_F_CSUM | SOFL_TUN_WANT_F_USO | SOFL_TUN_WANT_F_UDP_TNL, SOFL_PORT_OFF_F_UDP_TNL },
		/* no plain GSO: Linux would refuse the tunnel bits */
		{ SOFL_TUN_WANT_F_CSUM | SOFL_TUN_WANT_F_UDP_TNL | SOFL_TUN_WANT_F_UDP_TNL_CSUM, 0 },
	};
	size_t i;
	(void)state;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		struct sofl_port *p = open_tap("sotnl0", k[i].want);
		unsigned got = sofl_port_offloads(p) & TNL_BITS;
		unsigned expect = kernel_has_tnl ? k[i].expect : 0;

		if (got != expect)
			fprintf(stderr, "case %zu: want 0x%x, got 0x%x, expected 0x%x\n", i,
				k[i].want, got, expect);
		assert_int_equal(got, expect);
		assert_int_equal(hdr_size(p), got ? 24 : 12);
		sofl_port_close(p);
	}
	/* a raw-IP TUN: not asked (offsets count from an Ethernet header) */
	{
		struct sofl_tun_config c;
		struct sofl_port *p = NULL;

		sofl_tun_config_init(&c);
		c.name = "sotnl2";
		c.offloads = SOFL_TUN_WANT_F_ALL | SOFL_TUN_WANT_F_UDP_TNL | SOFL_TUN_WANT_F_UDP_TNL_CSUM;
		assert_int_equal(sofl_tun_open(&c, &p), 0);
		assert_int_equal(sofl_port_offloads(p) & TNL_BITS, 0);
		assert_int_equal(hdr_size(p), 12);
		sofl_port_close(p);
	}
}

/* /proc/net/dev: the device's received packets and receive errors. */
static void
dev_rx(const char *name, unsigned long long *pkts, unsigned long long *errs)
{
	char line[512];
	FILE *f = fopen("/proc/net/dev", "r");
	size_t n = strlen(name);

	assert_non_null(f);
	*pkts = *errs = ~0ull;
	while (fgets(line, sizeof(line), f)) {
		const char *s = line;
		unsigned long long b;

		while (*s == ' ')
			s++;
		if (strncmp(s, name, n) || s[n] != ':')
			continue;
		assert_int_equal(sscanf(s + n + 1, "%llu %llu %llu", &b, pkts, errs), 3);
	}
	fclose(f);
	assert_true(*pkts != ~0ull);
}

static void
mk_segments(struct sofl_port_pkt *pk, struct iovec *v, int n)
{
	static uint8_t inner[2048];
	struct t_spec in, out;
	struct t_encap e;
	int i;

	memset(pk, 0, sizeof(*pk) * (size_t)n);
	for (i = 0; i < n; i++) {
		size_t k;

		t_spec_init(&in, 4, 6);
		in.pay_len = 1000;
		in.seq = 1000 + (uint32_t)i * 1000;
		in.pay_off = (uint32_t)i * 1000;
		in.ip_id = (uint16_t)(7 + i);
		k = t_build(inner, sizeof(inner), &in);
		t_spec_init(&out, 4, 17);
		out.dport = 4789;
		out.sport = 49152;
		out.udp_zero_csum = 1;
		t_encap_init(&e, SOFL_ENCAP_VXLAN, 42);
		v[i].iov_base = segs[i];
		v[i].iov_len = t_build_encap(segs[i], sizeof(segs[i]), &out, &e, inner, k);
		pk[i].iov = &v[i];
		pk[i].iovcnt = 1;
		pk[i].len = (uint32_t)v[i].iov_len;
		pk[i].flags = SOFL_PORT_PKT_F_CSUM_OK;
	}
}

static void
link_up(const char *name)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	assert_true(s >= 0);
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	assert_int_equal(ioctl(s, SIOCGIFFLAGS, &ifr), 0);
	ifr.ifr_flags |= IFF_UP;
	assert_int_equal(ioctl(s, SIOCSIFFLAGS, &ifr), 0);
	close(s);
}

/* The kernel takes the tunnel super-packet whole: one packet received by
 * the device, no frame error (tun_get_user() -> virtio_net_hdr_tnl_to_skb()
 * would count one and answer EINVAL). */
static void
test_write_whole(void **state)
{
	struct sofl_port_pkt pk[8];
	struct iovec v[8];
	struct sofl_port_stats st;
	unsigned long long p0, e0, p1, e1;
	int tnl;
	(void)state;

	for (tnl = 0; tnl < 2; tnl++) {
		struct sofl_port *p = open_tap("sotnl1", SOFL_TUN_WANT_F_ALL |
					       (tnl ? SOFL_TUN_WANT_F_UDP_TNL |
						SOFL_TUN_WANT_F_UDP_TNL_CSUM : 0));
		int whole = tnl && kernel_has_tnl;

		link_up("sotnl1");
		mk_segments(pk, v, 8);
		dev_rx("sotnl1", &p0, &e0);
		assert_int_equal(sofl_port_send(p, pk, 8), 8);
		dev_rx("sotnl1", &p1, &e1);
		assert_int_equal(e1 - e0, 0);
		assert_int_equal(p1 - p0, whole ? 1 : 8);
		sofl_port_get_stats(p, &st, sizeof(st));
		assert_int_equal(st.tx_super, whole ? 1 : 0);
		assert_int_equal(st.tx_pkts, 8);
		assert_int_equal(st.fallbacks, 0);
		sofl_port_close(p);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_negotiate),
		cmocka_unit_test(test_write_whole),
	};
	struct utsname u;
	int maj = 0, min = 0;

	if (geteuid() != 0) {
		fprintf(stderr, "skip: needs root (network namespace, TAP)\n");
		return T_SKIP;
	}
	if (access("/dev/net/tun", R_OK | W_OK) != 0) {
		fprintf(stderr, "skip: /dev/net/tun missing\n");
		return T_SKIP;
	}
	if (unshare(CLONE_NEWNET) != 0) {
		fprintf(stderr, "skip: cannot create a network namespace\n");
		return T_SKIP;
	}
	if (uname(&u) == 0)
		sscanf(u.release, "%d.%d", &maj, &min);
	kernel_has_tnl = maj > 6 || (maj == 6 && min >= 17);
	printf("summary: Linux %s: UDP-tunnel GSO on TUN/TAP %s\n", u.release,
	       kernel_has_tnl ? "expected granted (6.17+)" : "expected refused (fallback)");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
