/* Description: UDP port without a network: a UDP_GRO buffer split by gso_size (exact multiples, a short last datagram, a gso_size beyond the length); sends grouped into UDP_SEGMENT runs (equal sizes, a shorter last one ends a run, a single datagram never a run, another destination starts a new one) observed through an AF_UNIX datagram socket pair, which takes one message per run; recvmmsg receives; runts below min_len dropped by reason (a UDP_GRO message of them at once, unsplit); config checks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <cmocka.h>
#include "softoffload/port.h"
#include "port/port_impl.h"

static uint8_t buf[70000], got[70000];

static struct sofl_port *
make(int fd, unsigned off)
{
	struct sofl_udp_config c;
	struct sofl_port *p;
	static struct sockaddr_in peer = { .sin_family = AF_INET, .sin_port = 0x1234 };

	sofl_udp_config_init(&c);
	c.remote = (const struct sockaddr *)&peer;
	c.remote_len = sizeof(peer);
	c.connect = 1;			/* no msg_name: the socket pair is connected */
	assert_int_equal(port_udp_make(&c, fd, off, &p), 0);
	return p;
}

static void
test_split(void **state)
{
	struct sofl_port_pkt *pk;
	struct sofl_port_stats st;
	struct sofl_port *p = make(-1, SOFL_PORT_OFF_F_UDP_GRO);
	size_t i;
	(void)state;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)i;
	assert_int_equal(port_udp_rx_buf(p, &pk, buf, 3000, 1200), 3);
	assert_int_equal(pk[0].len, 1200);
	assert_int_equal(pk[1].len, 1200);
	assert_int_equal(pk[2].len, 600);
	assert_ptr_equal(pk[1].iov[0].iov_base, buf + 1200);	/* zero copy */
	assert_ptr_equal(pk[2].iov[0].iov_base, buf + 2400);
	/* a coalesced message: every segment (the short last one too) carries
	 * the kernel's verified UDP checksum */
	for (i = 0; i < 3; i++)
		assert_int_equal(pk[i].flags & SOFL_PORT_PKT_F_UDP_CSUM, SOFL_PORT_PKT_F_UDP_CSUM);
	assert_int_equal(port_udp_rx_buf(p, &pk, buf, 2400, 1200), 2);
	assert_int_equal(pk[1].flags & SOFL_PORT_PKT_F_UDP_CSUM, SOFL_PORT_PKT_F_UDP_CSUM);
	assert_int_equal(port_udp_rx_buf(p, &pk, buf, 500, 1200), 1);	/* one datagram */
	assert_int_equal(pk[0].len, 500);
	assert_int_equal(pk[0].flags & SOFL_PORT_PKT_F_UDP_CSUM, 0);	/* its checksum may be 0 */
	assert_int_equal(port_udp_rx_buf(p, &pk, buf, 1200, 1200), 1);	/* exactly gso_size */
	assert_int_equal(pk[0].flags & SOFL_PORT_PKT_F_UDP_CSUM, 0);
	assert_int_equal(port_udp_rx_buf(p, &pk, buf, 500, 0), 1);
	assert_int_equal(pk[0].flags & SOFL_PORT_PKT_F_UDP_CSUM, 0);
	assert_int_equal(port_udp_rx_buf(p, &pk, buf, 64 * 1000, 1000), 64);
	sofl_port_get_stats(p, &st, sizeof(st));
	assert_int_equal(st.rx_super, 3);
	assert_int_equal(st.rx_segs, 3 + 2 + 64);
	assert_int_equal(st.rx_pkts, 3 + 2 + 1 + 1 + 1 + 64);
	assert_int_equal(st.rx_bytes, 3000 + 2400 + 500 + 1200 + 500 + 64000);
	assert_int_equal(port_udp_rx_buf(p, &pk, buf, 70000, 1000), SOFL_E_INVAL);
	sofl_port_close(p);
}

/* min_len: datagrams shorter are RUNT drops, a UDP_GRO message of them at
 * once and unsplit, a short last segment alone, a recvmmsg() batch's runts
 * among good datagrams; every datagram delivered or counted once. */
static void
test_runt(void **state)
{
	struct sofl_port_pkt *pk;
	struct sofl_port_stats st;
	struct sofl_udp_config c;
	struct sofl_port *p;
	int sp[2];
	(void)state;

	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, sp), 0);
	sofl_udp_config_init(&c);
	c.min_len = 22;			/* a VXLAN header and an Ethernet header */
	assert_int_equal(port_udp_make(&c, sp[0], SOFL_PORT_OFF_F_UDP_GRO, &p), 0);
	assert_int_equal(port_udp_rx_buf(p, &pk, buf, 20 * 64, 20), 0);	/* 64 runts */
	assert_int_equal(port_udp_rx_buf(p, &pk, buf, 21, 0), 0);		/* one */
	assert_int_equal(port_udp_rx_buf(p, &pk, buf, 0, 0), 0);		/* empty */
	assert_int_equal(port_udp_rx_buf(p, &pk, buf, 22, 0), 1);		/* the minimum */
	assert_int_equal(port_udp_rx_buf(p, &pk, buf, 100 * 3 + 10, 100), 3);	/* last short */
	sofl_port_get_stats(p, &st, sizeof(st));
	assert_int_equal(st.rx_drop[SOFL_PORT_DROP_RUNT], 64 + 1 + 1 + 1);
	assert_int_equal(st.rx_pkts, 1 + 3);
	assert_int_equal(st.rx_bytes, 22 + 300);
	assert_string_equal(sofl_port_drop_name(SOFL_PORT_DROP_RUNT), "runt");
	/* recvmmsg: runts and datagrams mixed in one batch */
	assert_int_equal(write(sp[1], "short", 5), 5);
	assert_int_equal(write(sp[1], buf, 40), 40);
	assert_int_equal(write(sp[1], "", 0), 0);
	assert_int_equal(write(sp[1], buf, 22), 22);
	assert_int_equal(sofl_port_recv(p, &pk), 2);
	assert_int_equal(pk[0].len, 40);
	assert_int_equal(pk[1].len, 22);
	sofl_port_get_stats(p, &st, sizeof(st));
	assert_int_equal(st.rx_drop[SOFL_PORT_DROP_RUNT], 67 + 2);
	sofl_port_close(p);
	close(sp[1]);
	/* the range */
	c.min_len = SOFL_UDP_RX_BUF_MAX + 1;
	assert_int_equal(port_udp_make(&c, -1, 0, &p), SOFL_E_CFG_BATCH);
	assert_null(p);
}

/* packets of the given sizes, all from buf */
static void
pkts_of(struct sofl_port_pkt *pk, struct iovec *v, const size_t *sizes, size_t n)
{
	size_t i, off = 0;

	memset(pk, 0, n * sizeof(*pk));
	for (i = 0; i < n; i++) {
		v[i] = (struct iovec){ buf + off, sizes[i] };
		pk[i].iov = &v[i];
		pk[i].iovcnt = 1;
		pk[i].len = (uint32_t)sizes[i];
		off += sizes[i];
	}
}

static void
test_send_runs(void **state)
{
	static const size_t sizes[] = { 1000, 1000, 1000, 1000, 1000, 500,	/* run of 6 */
					300,					/* alone */
					800, 800, 900,				/* run of 2, then 900 */
					900 };					/* joins 900 */
	static const ssize_t expect[] = { 5500, 300, 1600, 1800 };
	struct sofl_port_pkt pk[11];
	struct iovec v[11];
	struct sofl_port_stats st;
	struct sofl_port *p;
	int sp[2];
	size_t i, off = 0;
	(void)state;

	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, sp), 0);
	fcntl(sp[1], F_SETFL, O_NONBLOCK);
	p = make(sp[0], SOFL_PORT_OFF_F_UDP_GSO);
	pkts_of(pk, v, sizes, 11);
	assert_int_equal(sofl_port_send(p, pk, 11), 11);
	for (i = 0; i < 4; i++) {
		ssize_t r = read(sp[1], got, sizeof(got));

		assert_int_equal(r, expect[i]);
		assert_memory_equal(got, buf + off, (size_t)r);	/* bytes in order */
		off += (size_t)r;
	}
	assert_int_equal(read(sp[1], got, sizeof(got)), -1);
	sofl_port_get_stats(p, &st, sizeof(st));
	assert_int_equal(st.tx_pkts, 11);
	assert_int_equal(st.tx_super, 3);
	assert_int_equal(st.tx_segs, 6 + 2 + 2);
	assert_int_equal(st.tx_calls, 1);		/* one sendmmsg */
	/* without UDP_SEGMENT: one message per datagram */
	sp[0] = dup(sp[0]);
	sofl_port_close(p);
	p = make(sp[0], 0);
	assert_int_equal(sofl_port_send(p, pk, 11), 11);
	for (i = 0; i < 11; i++)
		assert_int_equal(read(sp[1], got, sizeof(got)), (ssize_t)sizes[i]);
	sofl_port_get_stats(p, &st, sizeof(st));
	assert_int_equal(st.tx_super, 0);
	sofl_port_close(p);
	close(sp[1]);
}

/* Runs stop at 64 datagrams and at the IP length limit. */
static void
test_send_run_limits(void **state)
{
	static size_t sizes[100];
	static struct sofl_port_pkt pk[100];
	static struct iovec v[100];
	struct sofl_port_stats st;
	struct sofl_port *p;
	int sp[2], one = 1 << 22;
	size_t i;
	(void)state;

	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, sp), 0);
	setsockopt(sp[0], SOL_SOCKET, SO_SNDBUF, &one, sizeof(one));
	fcntl(sp[1], F_SETFL, O_NONBLOCK);
	p = make(sp[0], SOFL_PORT_OFF_F_UDP_GSO);
	for (i = 0; i < 100; i++)
		sizes[i] = 100;
	pkts_of(pk, v, sizes, 100);
	assert_int_equal(sofl_port_send(p, pk, 100), 100);
	assert_int_equal(read(sp[1], got, sizeof(got)), 6400);
	assert_int_equal(read(sp[1], got, sizeof(got)), 3600);
	for (i = 0; i < 50; i++)
		sizes[i] = 1400;		/* 46 * 1400 = 64400 <= 65507 */
	pkts_of(pk, v, sizes, 50);
	assert_int_equal(sofl_port_send(p, pk, 50), 50);
	assert_int_equal(read(sp[1], got, sizeof(got)), 46 * 1400);
	assert_int_equal(read(sp[1], got, sizeof(got)), 4 * 1400);
	sofl_port_get_stats(p, &st, sizeof(st));
	assert_int_equal(st.tx_super, 4);
	sofl_port_close(p);
	close(sp[1]);
}

/* recvmmsg: several datagrams in one call. */
static void
test_recv(void **state)
{
	struct sofl_port_pkt *pk;
	struct sofl_port_stats st;
	struct sofl_port *p;
	int sp[2];
	(void)state;

	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, sp), 0);
	p = make(sp[0], 0);
	assert_int_equal(sofl_port_recv(p, &pk), 0);	/* nothing yet */
	assert_int_equal(write(sp[1], "hello", 5), 5);
	assert_int_equal(write(sp[1], "world!", 6), 6);
	assert_int_equal(sofl_port_recv(p, &pk), 2);
	assert_int_equal(pk[0].len, 5);
	assert_memory_equal(pk[1].iov[0].iov_base, "world!", 6);
	sofl_port_get_stats(p, &st, sizeof(st));
	assert_int_equal(st.rx_calls, 1);
	assert_int_equal(st.rx_pkts, 2);
	sofl_port_close(p);
	close(sp[1]);
}

static void
test_config(void **state)
{
	struct sofl_udp_config c;
	struct sofl_port *p = NULL;
	struct sockaddr_in a4 = { .sin_family = AF_INET };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6 };
	(void)state;

	sofl_udp_config_init(&c);
	assert_int_equal(sofl_udp_open(&c, &p), SOFL_E_CFG_ADDR);		/* no address */
	/* the size field: the smallest accepted is the first sized version's
	 * (up to quiet); past that, the no-address check is reached */
	c.size = (uint32_t)offsetof(struct sofl_udp_config, quiet);
	assert_int_equal(sofl_udp_open(&c, &p), SOFL_E_CFG_SIZE);
	c.size = (uint32_t)(offsetof(struct sofl_udp_config, quiet) + sizeof(c.quiet));
	assert_int_equal(sofl_udp_open(&c, &p), SOFL_E_CFG_ADDR);
	sofl_udp_config_init(&c);
	c.local = (const struct sockaddr *)&a4;
	c.local_len = sizeof(a4);
	c.remote = (const struct sockaddr *)&a6;
	c.remote_len = sizeof(a6);
	assert_int_equal(sofl_udp_open(&c, &p), SOFL_E_CFG_ADDR);	/* families differ */
	c.remote = NULL;
	c.connect = 1;
	assert_int_equal(sofl_udp_open(&c, &p), SOFL_E_CFG_ADDR);	/* connect to nothing */
	c.connect = 0;
	c.rx_buf = 1500;
	assert_int_equal(sofl_udp_open(&c, &p), SOFL_E_CFG_BATCH);	/* UDP_GRO needs 64 KB */
	assert_null(p);
	/* min_len_kernel: min_len, a specific local address with a port, not
	 * connected, not adopted (checked before any socket exists) */
	sofl_udp_config_init(&c);
	a4.sin_addr.s_addr = htonl(0xc6120002);	/* 198.18.0.2 */
	a4.sin_port = htons(4789);
	c.local = (const struct sockaddr *)&a4;
	c.local_len = sizeof(a4);
	c.min_len_kernel = 1;
	assert_int_equal(sofl_udp_open(&c, &p), SOFL_E_CFG_ADDR);	/* no min_len */
	c.min_len = 22;
	c.connect = 1;
	c.remote = (const struct sockaddr *)&a4;
	c.remote_len = sizeof(a4);
	assert_int_equal(sofl_udp_open(&c, &p), SOFL_E_CFG_ADDR);	/* connected */
	c.connect = 0;
	c.fd = 0;
	assert_int_equal(sofl_udp_open(&c, &p), SOFL_E_CFG_ADDR);	/* adopted */
	c.fd = -1;
	a4.sin_port = 0;
	assert_int_equal(sofl_udp_open(&c, &p), SOFL_E_CFG_ADDR);	/* no port */
	a4.sin_port = htons(4789);
	a4.sin_addr.s_addr = 0;
	assert_int_equal(sofl_udp_open(&c, &p), SOFL_E_CFG_ADDR);	/* wildcard */
	c.local = (const struct sockaddr *)&a6;
	c.local_len = sizeof(a6);
	c.remote = NULL;
	a6.sin6_port = htons(4789);
	assert_int_equal(sofl_udp_open(&c, &p), SOFL_E_CFG_ADDR);	/* IPv6 wildcard */
	assert_null(p);
	a4.sin_port = 0;
	a6.sin6_port = 0;
	/* port.h's rule: 0 = the default, else [MIN, MAX] */
	sofl_udp_config_init(&c);
	c.rx_batch = 0;
	c.rx_buf = 0;
	c.max_pkts = 0;
	assert_int_equal(port_udp_make(&c, -1, 0, &p), 0);
	sofl_port_close(p);
	c.rx_batch = SOFL_UDP_RX_BATCH_MAX + 1;
	assert_int_equal(port_udp_make(&c, -1, 0, &p), SOFL_E_CFG_BATCH);
	assert_null(p);
	c.rx_batch = SOFL_UDP_RX_BATCH_MAX;
	c.max_pkts = SOFL_UDP_MAX_PKTS_MAX + 1;
	assert_int_equal(port_udp_make(&c, -1, 0, &p), SOFL_E_CFG_BATCH);
	c.rx_batch = 1;
	c.max_pkts = 0;
	c.rx_buf = SOFL_UDP_RX_BUF_MAX + 1;
	assert_int_equal(port_udp_make(&c, -1, 0, &p), SOFL_E_CFG_BATCH);
	c.gro = 0;
	c.rx_buf = SOFL_UDP_RX_BUF_MIN - 1;
	assert_int_equal(port_udp_make(&c, -1, 0, &p), SOFL_E_CFG_BATCH);
	c.rx_buf = SOFL_UDP_RX_BUF_MIN;
	assert_int_equal(port_udp_make(&c, -1, 0, &p), 0);
	sofl_port_close(p);
	assert_int_equal(sofl_udp_local(NULL, NULL, NULL), SOFL_E_INVAL);
}

/* Calls meant for a TUN/TAP asked of a UDP port: SOFL_E_PORT_KIND, the
 * out-parameters cleared; a failed open leaves *out NULL. */
static void
test_wrong_kind(void **state)
{
	struct sofl_port *p = make(-1, 0), *q = p;
	struct sofl_udp_config c;
	const char *name = "x";
	int created = 7;
	uint8_t mac[6];
	(void)state;

	assert_int_equal(sofl_tun_name(p, &name), SOFL_E_PORT_KIND);
	assert_null(name);
	assert_int_equal(sofl_tun_created(p, &created), SOFL_E_PORT_KIND);
	assert_int_equal(created, 0);
	assert_int_equal(sofl_afpacket_mac(p, mac), SOFL_E_PORT_KIND);
	assert_int_equal(sofl_afpacket_sync_stats(p), SOFL_E_PORT_KIND);
	sofl_udp_config_init(&c);
	c.rx_batch = 1025;
	assert_int_equal(sofl_udp_open(&c, &q), SOFL_E_CFG_BATCH);
	assert_null(q);
	sofl_port_close(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_send_runs),
		cmocka_unit_test(test_send_run_limits),
		cmocka_unit_test(test_recv),
		cmocka_unit_test(test_runt),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_wrong_kind),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
