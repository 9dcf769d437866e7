/* Description: contiguous receive (rx_mode CONTIG: every packet one piece, back to back with its head and tail areas, byte-identical to the zero-copy SEGMENT mode's packets, checksums valid, a full arena carried to the next batch without loss), kept batches (their bytes survive later receives, the pool's bound refuses and counts, give-back from another thread, close with batches held), UDP receive head/tail areas, the TUN helpers' inner MTU and argument checks.  Run under ASan by make check-sanitize: a batch used after its give-back or a pool leaked fails there. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <cmocka.h>
#include "helpers.h"
#include "softoffload/port.h"
#include "softoffload/csum.h"
#include "port/port_impl.h"

#define ALL_OFF (SOFL_PORT_OFF_F_CSUM | SOFL_PORT_OFF_F_TSO4 | SOFL_PORT_OFF_F_TSO6 | SOFL_PORT_OFF_F_USO)

struct fix {
	int sp[2];		/* sp[0]: the port's "TUN", sp[1]: the kernel's side */
	struct sofl_port *port;
};

static uint8_t frame[70000], wire[70000], flat[70000], flat2[70000];

static void
fix_open(struct fix *f, struct sofl_tun_config *c)
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, f->sp), 0);
	fcntl(f->sp[0], F_SETFL, O_NONBLOCK);
	fcntl(f->sp[1], F_SETFL, O_NONBLOCK);
	assert_int_equal(port_tun_make(c, f->sp[0], ALL_OFF, "tfake", &f->port), 0);
}

static void
fix_close(struct fix *f)
{
	sofl_port_close(f->port);
	close(f->sp[1]);
}

static void
kernel_sends(struct fix *f, const struct sofl_vnet_hdr *h, const uint8_t *fr, size_t len)
{
	sofl_vnet_encode(wire, sizeof(wire), h, 12, 0);
	memcpy(wire + 12, fr, len);
	if (write(f->sp[1], wire, 12 + len) != (ssize_t)(12 + len))
		fail_msg("write %zu: %s", 12 + len, strerror(errno));
}

/* Gathers @pk's packet bytes (areas left out) into @out. */
static size_t
gather(const struct sofl_port_pkt *pk, uint8_t *out)
{
	uint32_t i, first = pk->headroom ? 1 : 0, last = pk->iovcnt - (pk->tailroom ? 1 : 0);
	size_t n = 0;

	for (i = first; i < last; i++) {
		memcpy(out + n, pk->iov[i].iov_base, pk->iov[i].iov_len);
		n += pk->iov[i].iov_len;
	}
	assert_int_equal(n, pk->len);
	return n;
}

static void
assert_valid(const uint8_t *b, size_t len, int ipv)
{
	enum sofl_csum_state ip, l4;
	struct sofl_pkt p;

	assert_int_equal(sofl_pkt_parse(&p, b, len, SOFL_LINK_RAW), 0);
	assert_int_equal(p.ipv, ipv);
	sofl_csum_pkt_check(&p, &ip, &l4);
	assert_int_equal(l4, SOFL_CSUM_VALID);
	if (ipv == 4)
		assert_int_equal(ip, SOFL_CSUM_VALID);
}

static size_t
build(int ipv, int proto, size_t pay, uint32_t seq, int csum)
{
	struct t_spec s;

	t_spec_init(&s, ipv, proto);
	s.link = SOFL_LINK_RAW;
	s.pay_len = pay;
	s.seq = seq;
	s.pay_off = seq;
	s.csum = csum;
	return t_build(frame, sizeof(frame), &s);
}

static struct sofl_vnet_hdr
gso_hdr(int ipv, int proto, uint16_t gso_size)
{
	struct sofl_vnet_hdr h = { 0 };
	uint16_t l3 = ipv == 4 ? 20 : 40;

	h.flags = SOFL_VNET_HDR_F_NEEDS_CSUM;
	h.gso_type = gso_size == 0 ? SOFL_GSO_NONE : proto == 17 ? SOFL_GSO_UDP_L4 :
		     ipv == 4 ? SOFL_GSO_TCPV4 : SOFL_GSO_TCPV6;
	h.gso_size = gso_size;
	h.csum_start = l3;
	h.csum_offset = proto == 17 ? 6 : 16;
	h.hdr_len = l3 + (proto == 17 ? 8 : 20);
	return h;
}

/* One piece between adjacent areas, and its bytes those of the zero-copy
 * mode for the same input: TSO/USO super-packets, a NEEDS_CSUM packet, a
 * plain one; v4 and v6; with and without areas. */
static void
test_contig_matches_segment(void **state)
{
	static const int cases[][2] = { { 4, 6 }, { 6, 6 }, { 4, 17 }, { 6, 17 } };
	static const uint16_t rooms[][2] = { { 0, 0 }, { 12, 16 }, { 7, 0 }, { 0, 5 } };
	struct sofl_tun_config c;
	struct sofl_port_pkt *pz, *pc;
	struct fix fz, fc;
	size_t i, r, len, g, gz;
	int nz, nc, k, kind;
	(void)state;

	for (r = 0; r < 4; r++)
		for (i = 0; i < 4; i++)
			for (kind = 0; kind < 3; kind++) {
				int ipv = cases[i][0], proto = cases[i][1];
				struct sofl_vnet_hdr h = gso_hdr(ipv, proto, kind == 0 ? 1000 : 0);

				if (kind == 2)
					memset(&h, 0, sizeof(h));	/* plain, full checksums */
				sofl_tun_config_init(&c);
				fix_open(&fz, &c);
				c.rx_mode = SOFL_PORT_RX_CONTIG;
				c.headroom = rooms[r][0];
				c.tailroom = rooms[r][1];
				fix_open(&fc, &c);
				len = build(ipv, proto, kind == 0 ? 9500 : 900, 1000,
					    kind == 2 ? T_CSUM_FULL : T_CSUM_PARTIAL);
				kernel_sends(&fz, &h, frame, len);
				kernel_sends(&fc, &h, frame, len);
				nz = sofl_port_recv(fz.port, &pz);
				nc = sofl_port_recv(fc.port, &pc);
				assert_int_equal(nz, kind == 0 ? 10 : 1);
				assert_int_equal(nc, nz);
				for (k = 0; k < nc; k++) {
					const struct iovec *v = pc[k].iov;
					uint32_t body = c.headroom ? 1 : 0;

					assert_int_equal(pc[k].iovcnt, 1 + (c.headroom ? 1 : 0) +
							 (c.tailroom ? 1 : 0));
					assert_false(pc[k].flags & SOFL_PORT_PKT_F_VNET);
					assert_false(pz[k].flags & SOFL_PORT_PKT_F_VNET);
					assert_int_equal(v[body].iov_len, pc[k].len);
					if (c.headroom)
						assert_ptr_equal((uint8_t *)v[0].iov_base + c.headroom,
								 v[1].iov_base);
					if (c.tailroom)
						assert_ptr_equal((uint8_t *)v[body].iov_base + pc[k].len,
								 v[body + 1].iov_base);
					g = gather(&pc[k], flat);
					gz = gather(&pz[k], flat2);
					assert_int_equal(g, gz);
					assert_memory_equal(flat, flat2, g);
					assert_valid(flat, g, ipv);
				}
				/* writing every area leaves every packet as it was */
				for (k = 0; k < nc; k++) {
					if (c.headroom)
						memset(pc[k].iov[0].iov_base, 0xee, c.headroom);
					if (c.tailroom)
						memset(pc[k].iov[pc[k].iovcnt - 1].iov_base, 0xdd,
						       c.tailroom);
				}
				for (k = 0; k < nc; k++) {
					g = gather(&pc[k], flat);
					gather(&pz[k], flat2);
					assert_memory_equal(flat, flat2, g);
				}
				fix_close(&fz);
				fix_close(&fc);
			}
}

/* More than the arena holds: every packet still arrives, in order, none
 * dropped (the frame that does not fit waits for the next batch). */
static void
test_contig_arena_full(void **state)
{
	struct sofl_tun_config c;
	struct sofl_port_pkt *pk;
	struct sofl_port_stats st;
	struct sofl_vnet_hdr h = gso_hdr(4, 6, 1400);
	struct fix f;
	size_t len;
	int n, total = 0, i, calls = 0;
	(void)state;

	sofl_tun_config_init(&c);
	c.rx_mode = SOFL_PORT_RX_CONTIG;
	c.rx_batch = 64;
	c.headroom = 16;
	c.tailroom = 16;
	fix_open(&f, &c);
	len = build(4, 6, 46 * 1400, 1, T_CSUM_PARTIAL);	/* 46 segments each */
	for (i = 0; i < 3; i++)
		kernel_sends(&f, &h, frame, len);
	while ((n = sofl_port_recv(f.port, &pk)) > 0) {
		calls++;
		assert_true(n <= 64);
		assert_int_equal(n % 46, 0);
		total += n;
	}
	assert_int_equal(total, 3 * 46);
	assert_int_equal(calls, 3);
	sofl_port_get_stats(f.port, &st, sizeof(st));
	assert_int_equal(st.rx_drop[SOFL_PORT_DROP_NOROOM], 0);
	assert_int_equal(st.rx_segs, 3 * 46);
	/* 60 KB plain packets (a TUN with a large MTU): the arena, not the
	 * packet count, ends a batch (three of them fit) */
	memset(&h, 0, sizeof(h));
	len = build(4, 6, 60000, 7, T_CSUM_FULL);
	i = 1 << 20;
	if (setsockopt(f.sp[1], SOL_SOCKET, SO_SNDBUFFORCE, &i, sizeof(i)) < 0)
		setsockopt(f.sp[1], SOL_SOCKET, SO_SNDBUF, &i, sizeof(i));
	for (i = 0; i < 4; i++)
		kernel_sends(&f, &h, frame, len);
	total = calls = 0;
	while ((n = sofl_port_recv(f.port, &pk)) > 0) {
		calls++;
		for (i = 0; i < n; i++) {
			assert_int_equal(pk[i].len, len);
			assert_memory_equal(pk[i].iov[1].iov_base, frame, len);
		}
		total += n;
	}
	assert_int_equal(total, 4);
	assert_int_equal(calls, 2);
	sofl_port_get_stats(f.port, &st, sizeof(st));
	assert_int_equal(st.rx_drop[SOFL_PORT_DROP_NOROOM], 0);
	fix_close(&f);
	/* AF_PACKET has no contiguous mode; SUPER with areas is still refused */
	sofl_tun_config_init(&c);
	c.rx_mode = 3;
	assert_int_equal(port_tun_make(&c, -1, 0, "x", &f.port), SOFL_E_CFG_RX_MODE);
}

struct give {
	struct sofl_port_batch *b;
};

static void *
give_thread(void *arg)
{
	struct give *g = arg;

	sofl_port_give_back(g->b);
	return NULL;
}

/* Kept batches: their packets stay intact over later receives, the bound
 * refuses with a count, a batch given back on another thread is reused. */
static void
test_keep_tun(void **state)
{
	static uint8_t saved[2][70000];
	size_t saved_len[2] = { 0, 0 };
	struct sofl_tun_config c;
	struct sofl_port_pkt *pk, *pa;
	struct sofl_port_keep_stats ks;
	struct sofl_port_batch *b[3];
	struct sofl_vnet_hdr h = gso_hdr(6, 6, 1000);
	struct give g;
	pthread_t th;
	struct fix f;
	size_t len, off;
	int n, k, mode;
	(void)state;

	for (mode = 0; mode < 2; mode++) {
		sofl_tun_config_init(&c);
		c.rx_mode = mode ? SOFL_PORT_RX_CONTIG : SOFL_PORT_RX_SEGMENT;
		c.headroom = 8;
		c.rx_reads = 2;
		fix_open(&f, &c);
		/* no pool yet */
		assert_int_equal(sofl_port_keep(f.port, &b[0]), SOFL_E_PORT_KEEP_OFF);
		assert_null(b[0]);
		assert_int_equal(sofl_port_set_keep(f.port, SOFL_PORT_KEEP_MAX + 1),
				 SOFL_E_CFG_BATCH);
		assert_int_equal(sofl_port_set_keep(f.port, 2), 0);
		for (k = 0; k < 2; k++) {
			len = build(6, 6, 5000, 1 + (uint32_t)k * 5000, T_CSUM_PARTIAL);
			kernel_sends(&f, &h, frame, len);
			n = sofl_port_recv(f.port, &pk);
			assert_int_equal(n, 5);
			for (off = 0, saved_len[k] = 0; off < (size_t)n; off++)
				saved_len[k] += gather(&pk[off], saved[k] + saved_len[k]);
			assert_int_equal(sofl_port_keep(f.port, &b[k]), 0);
			assert_int_equal(sofl_port_batch_pkts(b[k], &pa), 5);
			assert_ptr_equal(pa, pk);	/* the same packets, no copy */
		}
		assert_int_equal(sofl_port_set_keep(f.port, 4), SOFL_E_PORT_KEEP_BUSY);
		/* a third batch: the pool is out */
		len = build(6, 6, 3000, 99, T_CSUM_PARTIAL);
		kernel_sends(&f, &h, frame, len);
		assert_int_equal(sofl_port_recv(f.port, &pk), 3);
		assert_int_equal(sofl_port_keep(f.port, &b[2]), SOFL_E_PORT_HELD);
		assert_null(b[2]);
		/* the two kept batches still hold their own bytes */
		for (k = 0; k < 2; k++) {
			n = sofl_port_batch_pkts(b[k], &pa);
			for (off = 0, len = 0; off < (size_t)n; off++)
				len += gather(&pa[off], flat + len);
			assert_int_equal(len, saved_len[k]);
			assert_memory_equal(flat, saved[k], len);
		}
		/* given back on another thread; then the port lends it again */
		g.b = b[0];
		assert_int_equal(pthread_create(&th, NULL, give_thread, &g), 0);
		assert_int_equal(pthread_join(th, NULL), 0);
		sofl_port_give_back(b[0]);	/* a second give-back is ignored */
		assert_int_equal(sofl_port_keep(f.port, &b[2]), 0);
		assert_int_equal(sofl_port_batch_pkts(b[2], &pa), 3);
		sofl_port_get_keep_stats(f.port, &ks, sizeof(ks));
		assert_int_equal(ks.kept, 3);
		assert_int_equal(ks.given_back, 1);
		assert_int_equal(ks.refused, 1);
		assert_int_equal(ks.held, 2);
		assert_int_equal(ks.held_max, 2);
		assert_int_equal(ks.max_kept, 2);
		/* b[1] is still intact after another receive into the port's batch */
		kernel_sends(&f, &h, frame, len);
		assert_true(sofl_port_recv(f.port, &pk) > 0);
		n = sofl_port_batch_pkts(b[1], &pa);
		for (off = 0, len = 0; off < (size_t)n; off++)
			len += gather(&pa[off], flat + len);
		assert_memory_equal(flat, saved[1], saved_len[1]);
		sofl_port_give_back(b[1]);
		/* close with b[2] held: the pool goes with the port (ASan: no leak) */
		fix_close(&f);
	}
	assert_int_equal(sofl_port_keep(NULL, &b[0]), SOFL_E_INVAL);
	assert_int_equal(sofl_port_set_keep(NULL, 1), SOFL_E_INVAL);
	assert_int_equal(sofl_port_batch_pkts(NULL, &pa), SOFL_E_INVAL);
	sofl_port_give_back(NULL);
	assert_int_equal(sofl_port_get_keep_stats(NULL, &ks, sizeof(ks)), SOFL_E_INVAL);
	assert_int_equal(ks.kept, 0);
}

/* UDP: a kept batch keeps its datagrams and their sender addresses;
 * receive head/tail areas frame every datagram. */
static void
test_keep_udp(void **state)
{
	struct sockaddr_in a = { .sin_family = AF_INET }, from;
	socklen_t al = sizeof(a);
	struct sofl_udp_config c;
	struct sofl_port *p;
	struct sofl_port_pkt *pk, *pa;
	struct sofl_port_batch *b, *b2;
	uint8_t d[300];
	int s, i, n;
	(void)state;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sofl_udp_config_init(&c);
	c.local = (const struct sockaddr *)&a;
	c.local_len = sizeof(a);
	c.gro = 0;
	c.rx_buf = 2000;
	c.headroom = 16;
	c.tailroom = 24;
	assert_int_equal(sofl_udp_open(&c, &p), 0);
	assert_int_equal(sofl_udp_local(p, (struct sockaddr *)&a, &al), 0);
	assert_int_equal(sofl_port_set_keep(p, 1), 0);
	assert_true((s = socket(AF_INET, SOCK_DGRAM, 0)) >= 0);
	from.sin_family = AF_INET;
	from.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	from.sin_port = 0;
	assert_int_equal(bind(s, (struct sockaddr *)&from, sizeof(from)), 0);
	al = sizeof(from);
	getsockname(s, (struct sockaddr *)&from, &al);
	for (i = 0; i < 3; i++) {
		memset(d, 'a' + i, sizeof(d));
		assert_int_equal(sendto(s, d, 100 + (size_t)i, 0, (struct sockaddr *)&a,
					sizeof(a)), 100 + i);
	}
	usleep(10000);
	n = sofl_port_recv(p, &pk);
	assert_int_equal(n, 3);
	for (i = 0; i < n; i++) {
		assert_int_equal(pk[i].iovcnt, 3);
		assert_int_equal(pk[i].headroom, 16);
		assert_int_equal(pk[i].iov[0].iov_len, 16);
		assert_int_equal(pk[i].iov[2].iov_len, 24);
		memset(pk[i].iov[0].iov_base, 0x55, 16);	/* writable */
		memset(pk[i].iov[2].iov_base, 0x66, 24);
	}
	assert_int_equal(sofl_port_keep(p, &b), 0);
	/* new datagrams into the port's other buffers */
	memset(d, 'z', sizeof(d));
	for (i = 0; i < 3; i++)
		sendto(s, d, 200, 0, (struct sockaddr *)&a, sizeof(a));
	usleep(10000);
	assert_int_equal(sofl_port_recv(p, &pk), 3);
	assert_int_equal(sofl_port_keep(p, &b2), SOFL_E_PORT_HELD);
	assert_null(b2);
	assert_int_equal(sofl_port_batch_pkts(b, &pa), 3);
	for (i = 0; i < 3; i++) {
		const struct sockaddr_in *sa = (const struct sockaddr_in *)pa[i].addr;

		assert_int_equal(pa[i].len, 100 + i);
		assert_int_equal(((uint8_t *)pa[i].iov[1].iov_base)[0], 'a' + i);
		assert_int_equal(((uint8_t *)pa[i].iov[1].iov_base)[99 + i], 'a' + i);
		assert_int_equal(sa->sin_port, from.sin_port);
		assert_int_equal(pk[i].len, 200);
	}
	sofl_port_give_back(b);
	sofl_port_close(p);
	close(s);
}

/* The inner MTU: the worked figures of port.h, the 68-byte floor, bad
 * arguments; the interface calls refuse ports that are not TUN/TAP. */
static void
test_tun_helpers(void **state)
{
	struct sofl_udp_config c;
	struct sofl_port *p;
	uint32_t m = 1;
	(void)state;

	assert_int_equal(sofl_tun_inner_mtu(1500, AF_INET, SOFL_TUN_ENCAP_UDP, 16, 16, &m), 0);
	assert_int_equal(m, 1440);
	assert_int_equal(sofl_tun_inner_mtu(1500, AF_INET6, SOFL_TUN_ENCAP_UDP, 16, 16, &m), 0);
	assert_int_equal(m, 1420);
	assert_int_equal(sofl_tun_inner_mtu(1500, AF_INET, SOFL_TUN_ENCAP_VXLAN, 0, 0, &m), 0);
	assert_int_equal(m, 1450);	/* the kernel's VXLAN default over IPv4 */
	assert_int_equal(sofl_tun_inner_mtu(1500, AF_INET6, SOFL_TUN_ENCAP_GENEVE, 0, 0, &m), 0);
	assert_int_equal(m, 1430);
	assert_int_equal(sofl_tun_inner_mtu(96, AF_INET, SOFL_TUN_ENCAP_UDP, 0, 0, &m), 0);
	assert_int_equal(m, 68);
	assert_int_equal(sofl_tun_inner_mtu(95, AF_INET, SOFL_TUN_ENCAP_UDP, 0, 0, &m),
			 SOFL_E_TUN_MTU);
	assert_int_equal(m, 0);
	assert_int_equal(sofl_tun_inner_mtu(1500, AF_UNIX, SOFL_TUN_ENCAP_UDP, 0, 0, &m),
			 SOFL_E_INVAL);
	assert_int_equal(sofl_tun_inner_mtu(1500, AF_INET, (enum sofl_tun_encap)7, 0, 0, &m),
			 SOFL_E_INVAL);
	assert_int_equal(sofl_tun_inner_mtu(70000, AF_INET, SOFL_TUN_ENCAP_UDP, 0, 0, &m),
			 SOFL_E_INVAL);
	assert_int_equal(sofl_tun_inner_mtu(1500, AF_INET, SOFL_TUN_ENCAP_UDP, 0, 0, NULL),
			 SOFL_E_INVAL);
	sofl_udp_config_init(&c);
	assert_int_equal(port_udp_make(&c, -1, 0, &p), 0);
	assert_int_equal(sofl_tun_set_mtu(p, 1400), SOFL_E_PORT_KIND);
	assert_int_equal(sofl_tun_set_txqueuelen(p, 5000), SOFL_E_PORT_KIND);
	assert_int_equal(sofl_tun_set_up(p, 1), SOFL_E_PORT_KIND);
	assert_int_equal(sofl_tun_set_mtu(p, 0), SOFL_E_INVAL);
	assert_int_equal(sofl_tun_set_mtu(NULL, 1400), SOFL_E_INVAL);
	assert_int_equal(sofl_tun_set_up(NULL, 1), SOFL_E_INVAL);
	sofl_port_close(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_contig_matches_segment),
		cmocka_unit_test(test_contig_arena_full),
		cmocka_unit_test(test_keep_tun),
		cmocka_unit_test(test_keep_udp),
		cmocka_unit_test(test_tun_helpers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
