/* Description: TUN/TAP port without a device: a SOCK_SEQPACKET socket pair stands in for the TUN queue (one message per packet, as read()/writev() on a TUN): super-packets cut into valid wire-size segments with head/tail areas, bad virtio headers dropped by reason, packets as they are (SUPER), GRO-coalesced writes with their virtio header, held sends (a flush timeout: a burst in three sends written as one super-packet at its deadline), plain mode, the GSO-write EINVAL fallback (an eventfd refuses the write). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
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

static uint8_t frame[70000], wire[70000], flat[70000];

static void
fix_open(struct fix *f, struct sofl_tun_config *c)
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, f->sp), 0);
	fcntl(f->sp[0], F_SETFL, O_NONBLOCK);
	fcntl(f->sp[1], F_SETFL, O_NONBLOCK);
	assert_int_equal(port_tun_make(c, f->sp[0], c->vnet_hdr ? ALL_OFF : 0, "tfake", &f->port), 0);
}

static void
fix_close(struct fix *f)
{
	sofl_port_close(f->port);	/* closes sp[0] */
	close(f->sp[1]);
}

/* The kernel hands the port @len bytes of frame with header @h (NULL: none). */
static void
kernel_sends(struct fix *f, const struct sofl_vnet_hdr *h, const uint8_t *fr, size_t len)
{
	size_t off = 0;

	if (h) {
		sofl_vnet_encode(wire, sizeof(wire), h, 12, 0);
		off = 12;
	}
	memcpy(wire + off, fr, len);
	assert_int_equal(write(f->sp[1], wire, off + len), (ssize_t)(off + len));
}

/* Gathers packet @pk's bytes (head/tail areas left out) into flat[]. */
static size_t
gather(const struct sofl_port_pkt *pk)
{
	uint32_t i, first = pk->headroom ? 1 : 0, last = pk->iovcnt - (pk->tailroom ? 1 : 0);
	size_t n = 0;

	for (i = first; i < last; i++) {
		memcpy(flat + n, pk->iov[i].iov_base, pk->iov[i].iov_len);
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
tso_frame(int ipv, int proto, size_t pay, uint32_t seq)
{
	struct t_spec s;

	t_spec_init(&s, ipv, proto);
	s.link = SOFL_LINK_RAW;
	s.pay_len = pay;
	s.seq = seq;
	s.csum = T_CSUM_PARTIAL;
	return t_build(frame, sizeof(frame), &s);
}

static struct sofl_vnet_hdr
gso_hdr(int ipv, int proto, uint16_t gso_size)
{
	struct sofl_vnet_hdr h = { 0 };
	uint16_t l3 = ipv == 4 ? 20 : 40;

	h.flags = SOFL_VNET_HDR_F_NEEDS_CSUM;
	h.gso_type = proto == 17 ? SOFL_GSO_UDP_L4 : ipv == 4 ? SOFL_GSO_TCPV4 :
		     SOFL_GSO_TCPV6;
	h.gso_size = gso_size;
	h.csum_start = l3;
	h.csum_offset = proto == 17 ? 6 : 16;
	h.hdr_len = l3 + (proto == 17 ? 8 : 20);
	return h;
}

/* A TSO super-packet (v4 and v6, TCP and USO) comes out as valid segments
 * of gso_size payload, each framed by the head and tail areas. */
static void
test_read_segments(void **state)
{
	static const int cases[][2] = { { 4, 6 }, { 6, 6 }, { 4, 17 }, { 6, 17 } };
	struct sofl_tun_config c;
	struct sofl_port_stats st;
	struct sofl_port_pkt *pk;
	struct fix f;
	size_t i, len;
	int n, k;
	(void)state;

	for (i = 0; i < 4; i++) {
		int ipv = cases[i][0], proto = cases[i][1];
		struct sofl_vnet_hdr h = gso_hdr(ipv, proto, 1000);
		size_t hl = (ipv == 4 ? 20 : 40) + (proto == 17 ? 8 : 20);

		sofl_tun_config_init(&c);
		c.headroom = 32;
		c.tailroom = 16;
		fix_open(&f, &c);
		len = tso_frame(ipv, proto, 9500, 1000);
		kernel_sends(&f, &h, frame, len);
		n = sofl_port_recv(f.port, &pk);
		assert_int_equal(n, 10);
		for (k = 0; k < n; k++) {
			size_t got;

			assert_int_equal(pk[k].headroom, 32);
			assert_int_equal(pk[k].iov[0].iov_len, 32);
			assert_int_equal(pk[k].iov[pk[k].iovcnt - 1].iov_len, 16);
			assert_true(pk[k].flags & SOFL_PORT_PKT_F_CSUM_OK);
			got = gather(&pk[k]);
			assert_int_equal(got, hl + (k < 9 ? 1000 : 500));
			assert_valid(flat, got, ipv);
			/* the head area is the caller's to write */
			memset(pk[k].iov[0].iov_base, 0xaa, 32);
		}
		sofl_port_get_stats(f.port, &st, sizeof(st));
		assert_int_equal(st.rx_calls, 1);
		assert_int_equal(st.rx_super, 1);
		assert_int_equal(st.rx_segs, 10);
		assert_int_equal(st.rx_pkts, 10);
		assert_int_equal(st.csum_sw, 10);
		/* nothing more to read */
		assert_int_equal(sofl_port_recv(f.port, &pk), 0);
		fix_close(&f);
	}
}

/* Headers the kernel must not send are dropped, counted, and the port goes on. */
static void
test_read_bad_vnet(void **state)
{
	struct sofl_tun_config c;
	struct sofl_port_stats st;
	struct sofl_port_pkt *pk;
	struct sofl_vnet_hdr h;
	struct fix f;
	size_t len;
	(void)state;

	sofl_tun_config_init(&c);
	fix_open(&f, &c);
	len = tso_frame(4, 6, 3000, 1);
	h = gso_hdr(4, 6, 0);				/* GSO with gso_size 0 */
	kernel_sends(&f, &h, frame, len);
	h = gso_hdr(4, 6, 1000);
	h.csum_offset = 6;				/* TCP checksum at the UDP offset */
	kernel_sends(&f, &h, frame, len);
	assert_int_equal(write(f.sp[1], "\x01\x02\x03", 3), 3);	/* shorter than the header */
	h = gso_hdr(4, 6, 1000);
	kernel_sends(&f, &h, frame, len);		/* then a good one */
	assert_int_equal(sofl_port_recv(f.port, &pk), 3);
	sofl_port_get_stats(f.port, &st, sizeof(st));
	assert_int_equal(st.rx_drop[SOFL_PORT_DROP_VNET], 3);
	assert_int_equal(st.rx_calls, 4);
	assert_string_equal(sofl_port_drop_name(SOFL_PORT_DROP_VNET), "vnet");
	fix_close(&f);
}

/* RX_SUPER: the super-packet as it is, header in .vnet, one iovec. */
static void
test_read_super(void **state)
{
	struct sofl_tun_config c;
	struct sofl_port_pkt *pk;
	struct sofl_vnet_hdr h = gso_hdr(6, 6, 1200);
	struct fix f;
	size_t len;
	(void)state;

	sofl_tun_config_init(&c);
	c.rx_mode = SOFL_PORT_RX_SUPER;
	fix_open(&f, &c);
	len = tso_frame(6, 6, 6000, 7);
	kernel_sends(&f, &h, frame, len);
	assert_int_equal(sofl_port_recv(f.port, &pk), 1);
	assert_true(pk[0].flags & SOFL_PORT_PKT_F_VNET);
	assert_int_equal(pk[0].vnet.gso_size, 1200);
	assert_int_equal(pk[0].vnet.gso_type, SOFL_GSO_TCPV6);
	assert_int_equal(pk[0].len, len);
	assert_memory_equal(pk[0].iov[0].iov_base, frame, len);
	fix_close(&f);
	/* head/tail areas need segments */
	c.headroom = 8;
	assert_int_equal(port_tun_make(&c, -1, 0, "x", &f.port), SOFL_E_CFG_ROOM);
}

/* The full batch: a super-packet that does not fit waits for the next
 * sofl_port_recv(), nothing is lost. */
static void
test_read_batch_full(void **state)
{
	struct sofl_tun_config c;
	struct sofl_port_pkt *pk;
	struct sofl_port_stats st;
	struct sofl_vnet_hdr h = gso_hdr(4, 6, 100);
	struct fix f;
	size_t len;
	int n, total = 0, i;
	(void)state;

	sofl_tun_config_init(&c);
	c.rx_batch = 64;			/* 64 segments per recv */
	fix_open(&f, &c);
	len = tso_frame(4, 6, 4000, 1);	/* 40 segments each */
	for (i = 0; i < 5; i++)
		kernel_sends(&f, &h, frame, len);
	while ((n = sofl_port_recv(f.port, &pk)) > 0) {
		assert_true(n <= 64);
		assert_int_equal(n % 40, 0);
		total += n;
	}
	assert_int_equal(total, 200);
	sofl_port_get_stats(f.port, &st, sizeof(st));
	assert_int_equal(st.rx_super, 5);
	assert_int_equal(st.rx_drop[SOFL_PORT_DROP_NOROOM], 0);
	fix_close(&f);
}

/* Build the segment @k of a TCP flow (1000-byte payloads), full checksums. */
static size_t
segment(uint8_t *b, int ipv, uint32_t k)
{
	struct t_spec s;

	t_spec_init(&s, ipv, 6);
	s.link = SOFL_LINK_RAW;
	s.pay_len = 1000;
	s.seq = 1 + k * 1000;
	s.pay_off = k * 1000;
	s.ip_id = (uint16_t)k;
	return t_build(b, 2000, &s);
}

/* Ten segments of one flow are written as one super-packet with a GSO
 * header; a non-IP packet goes alone with no GSO. */
static void
test_write_coalesced(void **state)
{
	static uint8_t segs[11][2000];
	struct sofl_port_pkt pk[11];
	struct iovec v[11];
	struct sofl_tun_config c;
	struct sofl_port_stats st;
	struct sofl_vnet_hdr h;
	struct sofl_gro_stats g;
	struct fix f;
	ssize_t r;
	uint32_t k;
	(void)state;

	sofl_tun_config_init(&c);
	fix_open(&f, &c);
	memset(pk, 0, sizeof(pk));
	for (k = 0; k < 10; k++) {
		v[k] = (struct iovec){ segs[k], segment(segs[k], 4, k) };
		pk[k] = (struct sofl_port_pkt){ .iov = &v[k], .iovcnt = 1,
			.len = (uint32_t)v[k].iov_len, .flags = SOFL_PORT_PKT_F_CSUM_OK };
	}
	memset(segs[10], 0x11, 60);			/* not IP */
	v[10] = (struct iovec){ segs[10], 60 };
	pk[10] = (struct sofl_port_pkt){ .iov = &v[10], .iovcnt = 1, .len = 60 };
	assert_int_equal(sofl_port_send(f.port, pk, 11), 11);

	/* GRO delivers what it does not hold at once, before the held flow */
	r = read(f.sp[1], wire, sizeof(wire));
	assert_int_equal(r, 12 + 60);
	assert_int_equal(sofl_vnet_decode(&h, wire, (size_t)r, 12, 0), 12);
	assert_int_equal(h.gso_type, SOFL_GSO_NONE);
	assert_int_equal(h.flags, 0);
	r = read(f.sp[1], wire, sizeof(wire));
	assert_int_equal(r, 12 + 40 + 10000);
	assert_int_equal(sofl_vnet_decode(&h, wire, (size_t)r, 12, 0), 12);
	assert_int_equal(h.gso_type, SOFL_GSO_TCPV4);
	assert_int_equal(h.gso_size, 1000);
	assert_true(h.flags & SOFL_VNET_HDR_F_NEEDS_CSUM);
	assert_memory_equal(wire + 12 + 40, segs[0] + 40, 1000);
	assert_memory_equal(wire + 12 + 40 + 9000, segs[9] + 40, 1000);
	assert_int_equal(read(f.sp[1], wire, sizeof(wire)), -1);

	sofl_port_get_stats(f.port, &st, sizeof(st));
	assert_int_equal(st.tx_calls, 2);
	assert_int_equal(st.tx_pkts, 11);
	assert_int_equal(st.tx_super, 1);
	assert_int_equal(st.tx_segs, 10);
	assert_int_equal(sofl_port_get_gro_stats(f.port, &g, sizeof(g)), 0);
	assert_int_equal(g.super_pkts, 1);
	assert_int_equal(g.pkts_in, 11);
	{	/* the caller's size: a larger struct gets zeros past ours, a
		 * smaller one only its own bytes */
		struct { struct sofl_gro_stats s; uint64_t more[2]; } big;

		memset(&big, 0xa5, sizeof(big));
		assert_int_equal(sofl_port_get_gro_stats(f.port, &big.s, sizeof(big)), 0);
		assert_memory_equal(&big.s, &g, sizeof(g));
		assert_true(big.more[0] == 0 && big.more[1] == 0);
		memset(&big, 0xa5, sizeof(big));
		assert_int_equal(sofl_port_get_gro_stats(f.port, &big.s, 8), 0);
		assert_int_equal(big.s.pkts_in, 11);
		assert_true(big.s.pkts_out == 0xa5a5a5a5a5a5a5a5ull);
	}
	assert_true(sofl_port_offloads(f.port) & SOFL_PORT_OFF_F_GRO);
	/* reset: the port's counters and its GRO engine's go to 0 */
	assert_int_equal(sofl_port_reset_stats(f.port), 0);
	assert_int_equal(sofl_port_get_stats(f.port, &st, sizeof(st)), 0);
	assert_int_equal(st.tx_calls, 0);
	assert_int_equal(st.tx_pkts, 0);
	assert_int_equal(st.tx_super, 0);
	assert_int_equal(sofl_port_get_gro_stats(f.port, &g, sizeof(g)), 0);
	assert_int_equal(g.super_pkts, 0);
	assert_int_equal(g.pkts_in, 0);
	assert_int_equal(sofl_port_reset_stats(NULL), SOFL_E_INVAL);
	{	/* counting goes on after a reset */
		uint8_t one[60];

		memcpy(one, segs[10], sizeof(one));
		v[0] = (struct iovec){ one, sizeof(one) };
		pk[0] = (struct sofl_port_pkt){ .iov = &v[0], .iovcnt = 1, .len = sizeof(one) };
		assert_int_equal(sofl_port_send(f.port, pk, 1), 1);
		assert_int_equal(sofl_port_get_stats(f.port, &st, sizeof(st)), 0);
		assert_int_equal(st.tx_pkts, 1);
		assert_int_equal(sofl_port_get_gro_stats(f.port, &g, sizeof(g)), 0);
		assert_int_equal(g.pkts_in, 1);
	}
	fix_close(&f);
}

/* Fills pk[0..n) with segments @first.. of one flow in segs[]. */
static void
held_segs(uint8_t (*segs)[2000], struct sofl_port_pkt *pk, struct iovec *v, uint32_t first,
	  uint32_t n)
{
	uint32_t k;

	for (k = 0; k < n; k++) {
		v[k] = (struct iovec){ segs[k], segment(segs[k], 4, first + k) };
		pk[k] = (struct sofl_port_pkt){ .iov = &v[k], .iovcnt = 1,
			.len = (uint32_t)v[k].iov_len, .flags = SOFL_PORT_PKT_F_CSUM_OK };
	}
}

/* Reads one message and checks it is segments @first..@first+@n of the
 * flow (one super-packet when n > 1). */
static void
held_expect(struct fix *f, uint32_t first, uint32_t n)
{
	static uint8_t ref[2000];
	struct sofl_vnet_hdr h;
	ssize_t r;
	uint32_t k;

	r = read(f->sp[1], wire, sizeof(wire));
	assert_int_equal(r, 12 + 40 + 1000 * (ssize_t)n);
	assert_int_equal(sofl_vnet_decode(&h, wire, (size_t)r, 12, 0), 12);
	assert_int_equal(h.gso_type, n > 1 ? SOFL_GSO_TCPV4 : SOFL_GSO_NONE);
	for (k = 0; k < n; k++) {
		segment(ref, 4, first + k);
		assert_memory_equal(wire + 12 + 40 + 1000 * k, ref + 40, 1000);
	}
}

/* Held sends (sofl_port_set_flush_timeout): a burst given in three sends
 * leaves as one super-packet, at its deadline (the timeout after the last
 * send) or at a flush, from the
 * port's copies (the caller's buffers are scribbled over in between); a
 * packet that cannot be coalesced writes what is held first; a full batch
 * holds nothing; a send past the timeout with no flush between joins
 * what is held; close writes what is held; the argument errors. */
static void
test_write_held(void **state)
{
	static uint8_t segs[256][2000];
	static struct sofl_port_pkt pk[256];
	static struct iovec v[256];
	struct sofl_tun_config c;
	struct sofl_port_stats st;
	struct sofl_gro_stats g;
	struct sofl_vnet_hdr sh;
	struct fix f;
	uint64_t d, d2;
	uint32_t k;
	(void)state;

	sofl_tun_config_init(&c);
	fix_open(&f, &c);
	assert_int_equal(sofl_port_next_deadline(f.port, &d), 0);
	assert_true(d == UINT64_MAX);
	assert_int_equal(sofl_port_set_flush_timeout(f.port, SOFL_PORT_FLUSH_TIMEOUT_MAX + 1),
			 SOFL_E_CFG_FLUSH_TIMEOUT);
	assert_int_equal(sofl_port_set_flush_timeout(NULL, 1), SOFL_E_INVAL);
	assert_int_equal(sofl_port_next_deadline(NULL, &d), SOFL_E_INVAL);
	assert_int_equal(sofl_port_flush(NULL, 0), SOFL_E_INVAL);
	assert_int_equal(sofl_port_set_flush_timeout(f.port, SOFL_PORT_FLUSH_TIMEOUT_MAX), 0);

	/* three sends of one burst: nothing written until the flush */
	held_segs(segs, pk, v, 0, 3);
	assert_int_equal(sofl_port_send(f.port, pk, 3), 3);
	memset(segs, 0xee, 3 * sizeof(segs[0]));	/* the caller's buffers are free */
	assert_int_equal(read(f.sp[1], wire, sizeof(wire)), -1);
	assert_int_equal(sofl_port_next_deadline(f.port, &d), 1);
	assert_true(d != UINT64_MAX && d > 0);
	held_segs(segs, pk, v, 3, 4);
	assert_int_equal(sofl_port_send(f.port, pk, 4), 4);
	held_segs(segs, pk, v, 7, 3);
	assert_int_equal(sofl_port_send(f.port, pk, 3), 3);
	memset(segs, 0xee, 3 * sizeof(segs[0]));
	assert_int_equal(read(f.sp[1], wire, sizeof(wire)), -1);
	assert_int_equal(sofl_port_next_deadline(f.port, &d2), 1);
	assert_true(d2 > d);			/* idle for the timeout after the last send */
	assert_int_equal(sofl_port_flush(f.port, d2 - 1), 0);	/* not due yet */
	assert_int_equal(sofl_port_flush(f.port, d), 0);	/* a caller's older clock */
	assert_int_equal(read(f.sp[1], wire, sizeof(wire)), -1);
	assert_int_equal(sofl_port_flush(f.port, d2), 10);	/* due */
	held_expect(&f, 0, 10);
	assert_int_equal(read(f.sp[1], wire, sizeof(wire)), -1);
	assert_int_equal(sofl_port_next_deadline(f.port, &d), 0);
	sofl_port_get_stats(f.port, &st, sizeof(st));
	assert_int_equal(st.tx_calls, 1);
	assert_int_equal(st.tx_pkts, 10);
	assert_int_equal(sofl_port_get_gro_stats(f.port, &g, sizeof(g)), 0);
	assert_int_equal(g.flush[SOFL_GRO_FLUSH_EXPLICIT], 1);	/* the port's idle flush */

	/* a packet that cannot be coalesced (a super-packet) goes after what
	 * is held */
	held_segs(segs, pk, v, 10, 2);
	assert_int_equal(sofl_port_send(f.port, pk, 2), 2);
	v[2] = (struct iovec){ segs[2], segment(segs[2], 4, 40) };
	pk[2] = (struct sofl_port_pkt){ .iov = &v[2], .iovcnt = 1, .len = (uint32_t)v[2].iov_len,
		.flags = SOFL_PORT_PKT_F_VNET };
	assert_int_equal(sofl_port_send(f.port, &pk[2], 1), 1);
	held_expect(&f, 10, 2);
	assert_int_equal(read(f.sp[1], wire, sizeof(wire)), 12 + 1040);
	assert_int_equal(sofl_vnet_decode(&sh, wire, 12 + 1040, 12, 0), 12);
	assert_int_equal(sofl_port_next_deadline(f.port, &d), 0);

	/* a full batch (the GRO batch, 256) holds nothing, what was held
	 * joins it: 12..267 in 64 KB super-packets (43 + 43 + ...) */
	held_segs(segs, pk, v, 12, 1);
	assert_int_equal(sofl_port_send(f.port, pk, 1), 1);
	for (k = 0; k < 256; k++) {
		v[k] = (struct iovec){ segs[k], segment(segs[k], 4, 13 + k) };
		pk[k] = (struct sofl_port_pkt){ .iov = &v[k], .iovcnt = 1,
			.len = (uint32_t)v[k].iov_len, .flags = SOFL_PORT_PKT_F_CSUM_OK };
	}
	assert_int_equal(sofl_port_send(f.port, pk, 256), 256);
	assert_int_equal(sofl_port_next_deadline(f.port, &d), 0);
	for (k = 0; k < 257; k += 65) {
		uint32_t n = 257 - k < 65 ? 257 - k : 65;

		held_expect(&f, 12 + k, n);
	}
	assert_int_equal(read(f.sp[1], wire, sizeof(wire)), -1);

	/* back to 0: what is held is written; close writes what is held */
	held_segs(segs, pk, v, 300, 2);
	assert_int_equal(sofl_port_send(f.port, pk, 2), 2);
	assert_int_equal(sofl_port_set_flush_timeout(f.port, 0), 0);
	held_expect(&f, 300, 2);
	/* a send past the timeout with no flush between (the caller was away
	 * while the rest of the burst waited in its ring) joins what is held,
	 * as Linux's timer poll that finds new packets keeps what GRO holds;
	 * the flush after it writes the burst whole (20 ms timeout, 25 ms
	 * away: well inside the 80 ms age bound) */
	assert_int_equal(sofl_port_set_flush_timeout(f.port, 20000), 0);
	held_segs(segs, pk, v, 400, 3);
	assert_int_equal(sofl_port_send(f.port, pk, 3), 3);
	nanosleep(&(struct timespec){ 0, 25000000 }, NULL);
	held_segs(segs, pk, v, 403, 3);
	assert_int_equal(sofl_port_send(f.port, pk, 3), 3);
	assert_int_equal(read(f.sp[1], wire, sizeof(wire)), -1);
	assert_int_equal(sofl_port_flush(f.port, SOFL_PORT_FLUSH_ALL), 6);
	held_expect(&f, 400, 6);
	assert_int_equal(sofl_port_set_flush_timeout(f.port, 50), 0);
	held_segs(segs, pk, v, 410, 3);
	assert_int_equal(sofl_port_send(f.port, pk, 3), 3);
	assert_int_equal(read(f.sp[1], wire, sizeof(wire)), -1);
	sofl_port_close(f.port);
	held_expect(&f, 410, 3);
	close(f.sp[1]);

	/* a port that does not coalesce */
	sofl_tun_config_init(&c);
	c.vnet_hdr = 0;
	fix_open(&f, &c);
	assert_int_equal(sofl_port_set_flush_timeout(f.port, 50), SOFL_E_NOTSUP);
	assert_int_equal(sofl_port_flush(f.port, SOFL_PORT_FLUSH_ALL), 0);
	fix_close(&f);
}

/* Plain mode: no header either way, the packet unchanged. */
static void
test_plain(void **state)
{
	struct sofl_tun_config c;
	struct sofl_port_pkt *pk;
	struct sofl_gro_stats g;
	struct fix f;
	size_t len;
	(void)state;

	sofl_tun_config_init(&c);
	c.vnet_hdr = 0;
	fix_open(&f, &c);
	assert_int_equal(sofl_port_offloads(f.port), 0);
	len = segment(frame, 6, 0);
	kernel_sends(&f, NULL, frame, len);
	assert_int_equal(sofl_port_recv(f.port, &pk), 1);
	assert_int_equal(pk[0].len, len);
	assert_int_equal(pk[0].iovcnt, 1);
	assert_memory_equal(pk[0].iov[0].iov_base, frame, len);
	assert_int_equal(sofl_port_send(f.port, pk, 1), 1);
	assert_int_equal(read(f.sp[1], wire, sizeof(wire)), (ssize_t)len);
	assert_memory_equal(wire, frame, len);
	assert_int_equal(sofl_port_get_gro_stats(f.port, &g, sizeof(g)), SOFL_E_NOTSUP);
	fix_close(&f);
}

/* A kernel that refuses GSO writes (EINVAL): one fallback, GRO off from
 * then on, the packets written one by one (here refused too: counted). */
static void
test_write_einval_fallback(void **state)
{
	static uint8_t segs[4][2000];
	struct sofl_port_pkt pk[4];
	struct iovec v[4];
	struct sofl_tun_config c;
	struct sofl_port_stats st;
	struct sofl_port *port;
	uint32_t k;
	int efd = eventfd(0, EFD_NONBLOCK);
	(void)state;

	assert_true(efd >= 0);
	sofl_tun_config_init(&c);
	c.quiet = 1;
	assert_int_equal(port_tun_make(&c, efd, ALL_OFF, "tfake", &port), 0);
	for (k = 0; k < 4; k++) {
		v[k] = (struct iovec){ segs[k], segment(segs[k], 4, k) };
		pk[k] = (struct sofl_port_pkt){ .iov = &v[k], .iovcnt = 1,
			.len = (uint32_t)v[k].iov_len, .flags = SOFL_PORT_PKT_F_CSUM_OK };
	}
	assert_int_equal(sofl_port_send(port, pk, 4), 0);
	sofl_port_get_stats(port, &st, sizeof(st));
	assert_int_equal(st.fallbacks, 1);
	assert_int_equal(st.tx_calls, 5);		/* the super-packet, then each */
	assert_int_equal(st.tx_drop[SOFL_PORT_DROP_VNET], 4);
	assert_int_equal(st.last_errno, EINVAL);
	assert_false(sofl_port_offloads(port) & SOFL_PORT_OFF_F_GRO);
	/* no second attempt at coalescing */
	assert_int_equal(sofl_port_send(port, pk, 4), 0);
	sofl_port_get_stats(port, &st, sizeof(st));
	assert_int_equal(st.fallbacks, 1);
	assert_int_equal(st.tx_calls, 9);
	sofl_port_close(port);
}

/* The library's messages: none by default (stderr stays empty even for a
 * fallback of a port that is not quiet), the callback once set (one WARN
 * message per port and kind), none again once unset or with cfg.quiet. */
struct logged {
	int n;
	enum sofl_log_level level;
	char msg[256];
};

static void
log_cb(void *arg, enum sofl_log_level level, const char *msg)
{
	struct logged *l = arg;

	l->n++;
	l->level = level;
	snprintf(l->msg, sizeof(l->msg), "%s", msg);
}

/* Opens a fake TUN on an eventfd (writes of 12 + 40 bytes and more are
 * refused with EINVAL) and sends a coalescible burst: one GRO fallback. */
static void
fallback_once(int quiet)
{
	static uint8_t segs[4][2000];
	struct sofl_port_pkt pk[4];
	struct iovec v[4];
	struct sofl_tun_config c;
	struct sofl_port_stats st;
	struct sofl_port *port;
	uint32_t k;
	int efd = eventfd(0, EFD_NONBLOCK);

	assert_true(efd >= 0);
	sofl_tun_config_init(&c);
	c.quiet = quiet;
	assert_int_equal(port_tun_make(&c, efd, ALL_OFF, "tfake", &port), 0);
	for (k = 0; k < 4; k++) {
		v[k] = (struct iovec){ segs[k], segment(segs[k], 4, k) };
		pk[k] = (struct sofl_port_pkt){ .iov = &v[k], .iovcnt = 1,
			.len = (uint32_t)v[k].iov_len, .flags = SOFL_PORT_PKT_F_CSUM_OK };
	}
	assert_int_equal(sofl_port_send(port, pk, 4), 0);
	assert_int_equal(sofl_port_send(port, pk, 4), 0);	/* logged once only */
	assert_int_equal(sofl_port_get_stats(port, &st, sizeof(st)), 0);
	assert_int_equal(st.fallbacks, 1);
	sofl_port_close(port);
}

static void
test_log(void **state)
{
	struct logged l;
	char tmpl[] = "/tmp/sofl_logXXXXXX";
	int tmp = mkstemp(tmpl), saved = dup(2);
	(void)state;

	/* default: nothing at all on stderr */
	assert_true(tmp >= 0 && saved >= 0);
	unlink(tmpl);
	fflush(stderr);
	assert_true(dup2(tmp, 2) == 2);
	fallback_once(0);
	fflush(stderr);
	assert_true(dup2(saved, 2) == 2);
	close(saved);
	assert_int_equal(lseek(tmp, 0, SEEK_END), 0);
	close(tmp);
	/* with a callback: one WARN message naming the port kind */
	memset(&l, 0, sizeof(l));
	sofl_set_log(log_cb, &l);
	fallback_once(0);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.level, SOFL_LOG_WARN);
	assert_true(strncmp(l.msg, "tun: ", 5) == 0);
	assert_null(strchr(l.msg, '\n'));
	/* cfg.quiet: not even the callback */
	fallback_once(1);
	assert_int_equal(l.n, 1);
	/* unset: quiet again */
	sofl_set_log(NULL, &l);
	fallback_once(0);
	assert_int_equal(l.n, 1);
}

/* Config checks and the generic calls on NULL. */
static void
test_api_edges(void **state)
{
	struct sofl_tun_config c;
	struct sofl_port *port = NULL;
	struct sofl_port_stats st;
	(void)state;

	sofl_tun_config_init(&c);
	c.name = "a-name-that-is-far-too-long-for-ifnamsiz";
	assert_int_equal(sofl_tun_open(&c, &port), SOFL_E_CFG_NAME);
	assert_int_equal(sofl_tun_open(NULL, &port), SOFL_E_INVAL);
	c.name = NULL;
	c.rx_mode = 9;
	assert_int_equal(sofl_tun_open(&c, &port), SOFL_E_CFG_RX_MODE);
	c.rx_mode = SOFL_PORT_RX_SEGMENT;
	c.rx_batch = SOFL_TUN_RX_BATCH_MAX + 1;
	assert_int_equal(sofl_tun_open(&c, &port), SOFL_E_CFG_BATCH);
	/* port.h's rule: 0 = the default, else [MIN, MAX]; nothing raised */
	c.rx_batch = SOFL_TUN_RX_BATCH_MIN - 1;
	assert_int_equal(sofl_tun_open(&c, &port), SOFL_E_CFG_BATCH);
	assert_null(port);
	c.rx_batch = 0;
	c.rx_reads = SOFL_TUN_RX_READS_MAX + 1;
	assert_int_equal(port_tun_make(&c, -1, 0, "x", &port), SOFL_E_CFG_BATCH);
	c.rx_reads = 0;
	assert_int_equal(port_tun_make(&c, -1, 0, "x", &port), 0);
	sofl_port_close(port);
	port = NULL;
	c.rx_batch = SOFL_TUN_RX_BATCH_MIN;
	c.rx_reads = SOFL_TUN_RX_READS_MIN;
	assert_int_equal(port_tun_make(&c, -1, 0, "x", &port), 0);
	sofl_port_close(port);
	port = NULL;
	sofl_tun_config_init(&c);
	c.name = NULL;
	c.size = 4;
	assert_int_equal(sofl_tun_open(&c, &port), SOFL_E_CFG_SIZE);
	/* the smallest accepted size is the first sized version's, up to rss */
	c.size = (uint32_t)offsetof(struct sofl_tun_config, rss);
	assert_int_equal(sofl_tun_open(&c, &port), SOFL_E_CFG_SIZE);
	c.size = (uint32_t)(offsetof(struct sofl_tun_config, rss) + sizeof(c.rss));
	c.name = "a-name-that-is-far-too-long-for-ifnamsiz";
	assert_int_equal(sofl_tun_open(&c, &port), SOFL_E_CFG_NAME);	/* got past size */
	c.name = NULL;
	{	/* a newer, larger config: zero past the known fields is fine,
		 * a field this library does not know is refused */
		struct { struct sofl_tun_config c; uint8_t more[8]; } big;

		memset(&big, 0, sizeof(big));
		sofl_tun_config_init(&big.c);
		big.c.name = "a-name-that-is-far-too-long-for-ifnamsiz";
		big.c.size = sizeof(big);
		assert_int_equal(sofl_tun_open(&big.c, &port), SOFL_E_CFG_NAME);	/* got past size */
		big.more[7] = 1;
		assert_int_equal(sofl_tun_open(&big.c, &port), SOFL_E_CFG_SIZE);
	}
	assert_null(port);
	assert_int_equal(sofl_port_recv(NULL, NULL), SOFL_E_INVAL);
	assert_int_equal(sofl_port_send(NULL, NULL, 1), SOFL_E_INVAL);
	assert_int_equal(sofl_port_fd(NULL), -1);
	assert_string_equal(sofl_port_kind(NULL), "?");
	assert_string_equal(sofl_port_drop_name(-1), "?");
	assert_string_equal(sofl_port_drop_name(SOFL_PORT_DROP__MAX - 1), "?");
	{
		const char *name = "x";
		int created = 7;

		assert_int_equal(sofl_tun_name(NULL, &name), SOFL_E_INVAL);
		assert_null(name);
		assert_int_equal(sofl_tun_name(NULL, NULL), SOFL_E_INVAL);
		assert_int_equal(sofl_tun_created(NULL, &created), SOFL_E_INVAL);
		assert_int_equal(created, 0);
		assert_int_equal(sofl_tun_created(NULL, NULL), SOFL_E_INVAL);
	}
	memset(&st, 0xff, sizeof(st));
	assert_int_equal(sofl_port_get_stats(NULL, &st, sizeof(st)), SOFL_E_INVAL);
	assert_int_equal(st.rx_pkts, 0);
	assert_int_equal(sofl_port_get_stats(NULL, NULL, sizeof(st)), SOFL_E_INVAL);
	sofl_port_close(NULL);
	assert_string_equal(sofl_strerror(SOFL_E_SYS), "system call failed (see errno)");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_segments),
		cmocka_unit_test(test_read_bad_vnet),
		cmocka_unit_test(test_read_super),
		cmocka_unit_test(test_read_batch_full),
		cmocka_unit_test(test_write_coalesced),
		cmocka_unit_test(test_write_held),
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_write_einval_fallback),
		cmocka_unit_test(test_api_edges),
		cmocka_unit_test(test_log),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
