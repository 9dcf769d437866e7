/* Description: TUN/TAP port with UDP-tunnel GSO (the 24-byte virtio header of Linux 6.17+) and without, on a SOCK_SEQPACKET socket pair standing in for the TUN queue: VXLAN/Geneve super-packets (IPv4 and IPv6 outer, outer checksum zero or offloaded) cut into valid wire-size tunnel segments (SEGMENT) or handed whole with their tunnel fields (SUPER); GRO's VXLAN super-packets written whole behind a 24-byte header that Linux's rules accept; with the 12-byte header: tunnel headers dropped by reason, VXLAN frames written as they came, never as a tunnel super-packet; IP-in-IP (no virtio GSO type) never coalesced; the offload bits that say which. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/socket.h>
#include <cmocka.h>
#include "helpers.h"
#include "helpers_encap.h"
#include "softoffload/port.h"
#include "softoffload/csum.h"
#include "softoffload/vnet.h"
#include "port/port_impl.h"

#define PLAIN (SOFL_PORT_OFF_F_CSUM | SOFL_PORT_OFF_F_TSO4 | SOFL_PORT_OFF_F_TSO6 | SOFL_PORT_OFF_F_USO)
#define TNL_OFF (PLAIN | SOFL_PORT_OFF_F_UDP_TNL | SOFL_PORT_OFF_F_UDP_TNL_CSUM)
#define TNL_OPTS (SOFL_VNET_F_TUNNEL | SOFL_VNET_F_TUNNEL_CSUM)

struct fix {
	int sp[2];		/* sp[0]: the port's "TUN", sp[1]: the kernel's side */
	struct sofl_port *port;
};

static uint8_t frame[70000], wire[70000], flat[70000], segs[16][2048];

static void
fix_open(struct fix *f, struct sofl_tun_config *c, unsigned off)
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, f->sp), 0);
	fcntl(f->sp[0], F_SETFL, O_NONBLOCK);
	fcntl(f->sp[1], F_SETFL, O_NONBLOCK);
	assert_int_equal(port_tun_make(c, f->sp[0], off, "tfake", &f->port), 0);
}

static void
fix_close(struct fix *f)
{
	sofl_port_close(f->port);
	close(f->sp[1]);
}

/* The kernel hands over @len bytes of frame behind the @hsz-byte header @h. */
static void
kernel_sends(struct fix *f, const struct sofl_vnet_hdr *h, size_t hsz, const uint8_t *fr,
	     size_t len)
{
	assert_int_equal(sofl_vnet_encode(wire, sizeof(wire), h, hsz, 0), (int)hsz);
	memcpy(wire + hsz, fr, len);
	assert_int_equal(write(f->sp[1], wire, hsz + len), (ssize_t)(hsz + len));
}

/* A TAP frame: [Ethernet][outer IPv4/IPv6][UDP][VXLAN or Geneve][inner
 * Ethernet][inner IP][TCP][@pay bytes]; the inner TCP checksum holds the
 * pseudo-header sum, the outer UDP checksum is 0 or (@ocsum) the outer
 * pseudo-header sum: a super-packet as the kernel's VXLAN device hands it
 * to a TAP with UDP-tunnel GSO.  *h: its 24-byte header (gso_size 1000). */
static size_t
mk_super(uint8_t *buf, int outer_ipv, int type, int inner_ipv, size_t pay, int ocsum,
	 struct sofl_vnet_hdr *h)
{
	static uint8_t inner[66000];
	struct t_spec in, out;
	struct t_encap e;
	struct sofl_pkt p;
	size_t n, len;

	t_spec_init(&in, inner_ipv, 6);
	in.pay_len = pay;
	in.csum = T_CSUM_PARTIAL;
	n = t_build(inner, sizeof(inner), &in);
	t_spec_init(&out, outer_ipv, 17);
	out.dport = type == SOFL_ENCAP_VXLAN ? 4789 : 6081;
	out.sport = 49152;
	out.udp_zero_csum = 1;
	t_encap_init(&e, type, 42);
	len = t_build_encap(buf, 70000, &out, &e, inner, n);
	assert_int_equal(sofl_pkt_parse(&p, buf, len, SOFL_LINK_ETH), 0);
	assert_true(p.layers & SOFL_LAYER_ENCAP);
	if (ocsum) {
		uint32_t ulen = (uint32_t)(len - p.outer_l4_off);
		uint32_t ps = outer_ipv == 4 ?
			sofl_csum_pseudo_v4(out.src, out.dst, 17, ulen) :
			sofl_csum_pseudo_v6(out.src, out.dst, 17, ulen);

		sofl_put16(buf + p.outer_l4_off + 6, sofl_csum_fold(ps));
		assert_int_equal(sofl_pkt_parse(&p, buf, len, SOFL_LINK_ETH), 0);
	}
	assert_int_equal(sofl_vnet_from_pkt(h, &p, 1000, TNL_OPTS | SOFL_VNET_F_MK_CSUM), 0);
	assert_true(h->gso_type & SOFL_VNET_GSO_UDP_TUNNEL);
	return len;
}

static size_t
gather(const struct sofl_port_pkt *pk)
{
	size_t n = 0;
	uint32_t i;

	for (i = 0; i < pk->iovcnt; i++) {
		memcpy(flat + n, pk->iov[i].iov_base, pk->iov[i].iov_len);
		n += pk->iov[i].iov_len;
	}
	assert_int_equal(n, pk->len);
	return n;
}

/* A wire-size tunnel segment: parses through the tunnel, inner checksums
 * complete, the outer lengths (and checksum, when not zero) right. */
static void
assert_tnl_segment(const uint8_t *b, size_t len, int outer_ipv, int inner_ipv, int ocsum)
{
	enum sofl_csum_state ip, l4;
	struct sofl_pkt p;
	uint32_t ulen;

	assert_int_equal(sofl_pkt_parse(&p, b, len, SOFL_LINK_ETH), 0);
	assert_true(p.layers & SOFL_LAYER_ENCAP);
	assert_int_equal(p.outer_ipv, outer_ipv);
	assert_int_equal(p.ipv, inner_ipv);
	sofl_csum_pkt_check(&p, &ip, &l4);
	assert_int_equal(l4, SOFL_CSUM_VALID);
	ulen = (uint32_t)(len - p.outer_l4_off);
	assert_int_equal(sofl_get16(b + p.outer_l4_off + 4), ulen);
	if (ocsum) {
		const uint8_t *oip = b + 14;
		uint32_t ps = outer_ipv == 4 ?
			sofl_csum_pseudo_v4(oip + 12, oip + 16, 17, ulen) :
			sofl_csum_pseudo_v6(oip + 8, oip + 24, 17, ulen);

		assert_int_not_equal(sofl_get16(b + p.outer_l4_off + 6), 0);
		assert_int_equal(sofl_csum_fold(sofl_csum_add(ps, b + p.outer_l4_off, ulen)), 0xffff);
	} else {
		assert_int_equal(sofl_get16(b + p.outer_l4_off + 6), 0);
	}
}

/* SEGMENT: a tunnel super-packet read with the 24-byte header is cut by
 * GSO into valid wire-size tunnel segments. */
static void
test_read_segments(void **state)
{
	static const int cases[][4] = {	/* outer, type, inner, outer csum */
		{ 4, SOFL_ENCAP_VXLAN, 4, 0 }, { 4, SOFL_ENCAP_VXLAN, 6, 1 },
		{ 6, SOFL_ENCAP_VXLAN, 4, 1 }, { 6, SOFL_ENCAP_GENEVE, 6, 0 },
		{ 4, SOFL_ENCAP_GENEVE, 4, 1 },
	};
	struct sofl_tun_config c;
	struct sofl_port_stats st;
	struct sofl_port_pkt *pk;
	struct sofl_vnet_hdr h;
	struct fix f;
	size_t i, len;
	int n, k;
	(void)state;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sofl_tun_config_init(&c);
		c.tap = 1;
		fix_open(&f, &c, TNL_OFF);
		assert_int_equal(sofl_port_offloads(f.port) & (SOFL_PORT_OFF_F_UDP_TNL |
							       SOFL_PORT_OFF_F_UDP_TNL_CSUM),
				 SOFL_PORT_OFF_F_UDP_TNL | SOFL_PORT_OFF_F_UDP_TNL_CSUM);
		len = mk_super(frame, cases[i][0], cases[i][1], cases[i][2], 9500, cases[i][3], &h);
		kernel_sends(&f, &h, SOFL_VNET_HDR_TNL_LEN, frame, len);
		n = sofl_port_recv(f.port, &pk);
		assert_int_equal(n, 10);
		for (k = 0; k < n; k++) {
			size_t got = gather(&pk[k]);

			assert_true(pk[k].flags & SOFL_PORT_PKT_F_CSUM_OK);
			assert_tnl_segment(flat, got, cases[i][0], cases[i][2], cases[i][3]);
		}
		sofl_port_get_stats(f.port, &st, sizeof(st));
		assert_int_equal(st.rx_super, 1);
		assert_int_equal(st.rx_segs, 10);
		assert_int_equal(st.rx_drop[SOFL_PORT_DROP_VNET], 0);
		fix_close(&f);
	}
}

/* SUPER: handed whole, with the tunnel fields of the header. */
static void
test_read_super(void **state)
{
	struct sofl_tun_config c;
	struct sofl_port_pkt *pk;
	struct sofl_vnet_hdr h;
	struct fix f;
	size_t len;
	(void)state;

	sofl_tun_config_init(&c);
	c.tap = 1;
	c.rx_mode = SOFL_PORT_RX_SUPER;
	fix_open(&f, &c, TNL_OFF);
	len = mk_super(frame, 6, SOFL_ENCAP_VXLAN, 4, 20000, 1, &h);
	kernel_sends(&f, &h, SOFL_VNET_HDR_TNL_LEN, frame, len);
	assert_int_equal(sofl_port_recv(f.port, &pk), 1);
	assert_int_equal(pk[0].len, len);
	assert_true(pk[0].flags & SOFL_PORT_PKT_F_VNET);
	assert_int_equal(pk[0].vnet.gso_type, h.gso_type);
	assert_int_equal(pk[0].vnet.gso_type & SOFL_VNET_GSO_UDP_TUNNEL,
			 SOFL_VNET_GSO_UDP_TUNNEL_IPV6);
	assert_int_equal(pk[0].vnet.outer_th_offset, 14 + 40);
	assert_int_equal(pk[0].vnet.inner_nh_offset, 14 + 40 + 8 + 8 + 14);
	assert_true(pk[0].vnet.flags & SOFL_VNET_HDR_F_UDP_TUNNEL_CSUM);
	assert_memory_equal(gather(&pk[0]) == len ? flat : NULL, frame, len);
	fix_close(&f);
}

/* 24-byte headers the kernel must not send (offsets that do not fit the
 * packet, both family bits, no NEEDS_CSUM, the outer checksum flag without
 * its feature, a truncated header) are dropped as VNET, counted, and the
 * port goes on with the next read; SUPER mode checks them too. */
static void
test_read_bad_tnl(void **state)
{
	struct sofl_tun_config c;
	struct sofl_port_stats st;
	struct sofl_port_pkt *pk;
	struct sofl_vnet_hdr h, bad;
	struct fix f;
	size_t len;
	int k, mode;
	(void)state;

	for (mode = 0; mode < 2; mode++) {
		sofl_tun_config_init(&c);
		c.tap = 1;
		c.rx_mode = mode ? SOFL_PORT_RX_SUPER : SOFL_PORT_RX_SEGMENT;
		/* without _CSUM: the kernel never sets UDP_TUNNEL_CSUM then */
		fix_open(&f, &c, PLAIN | SOFL_PORT_OFF_F_UDP_TNL);
		len = mk_super(frame, 4, SOFL_ENCAP_VXLAN, 4, 5000, 0, &h);
		for (k = 0; k < 5; k++) {
			bad = h;
			switch (k) {
			case 0: bad.outer_th_offset += 4; break;
			case 1: bad.inner_nh_offset = (uint16_t)(bad.outer_th_offset + 4); break;
			case 2: bad.gso_type |= SOFL_VNET_GSO_UDP_TUNNEL; break;
			case 3: bad.flags = 0; break;
			case 4: bad.flags |= SOFL_VNET_HDR_F_UDP_TUNNEL_CSUM; break;
			}
			kernel_sends(&f, &bad, SOFL_VNET_HDR_TNL_LEN, frame, len);
		}
		/* a read shorter than the 24-byte header */
		assert_int_equal(write(f.sp[1], wire, 20), 20);
		kernel_sends(&f, &h, SOFL_VNET_HDR_TNL_LEN, frame, len);
		assert_int_equal(sofl_port_recv(f.port, &pk), mode ? 1 : 5);
		sofl_port_get_stats(f.port, &st, sizeof(st));
		assert_int_equal(st.rx_drop[SOFL_PORT_DROP_VNET], 6);
		assert_int_equal(st.rx_super, 1);
		fix_close(&f);
	}
}

/* Without UDP-tunnel GSO (the default: a 12-byte header): a header with
 * tunnel bits is one the kernel cannot send, dropped as VNET; the port
 * goes on.  The tunnel bits alone (no TSO/USO, which Linux requires) are
 * not kept. */
static void
test_no_tnl(void **state)
{
	struct sofl_tun_config c;
	struct sofl_port_stats st;
	struct sofl_port_pkt *pk;
	struct sofl_vnet_hdr h;
	struct fix f;
	size_t len;
	(void)state;

	sofl_tun_config_init(&c);
	assert_int_equal(c.offloads & (SOFL_TUN_WANT_F_UDP_TNL | SOFL_TUN_WANT_F_UDP_TNL_CSUM), 0);
	c.tap = 1;
	fix_open(&f, &c, PLAIN);
	assert_int_equal(sofl_port_offloads(f.port) & SOFL_PORT_OFF_F_UDP_TNL, 0);
	len = mk_super(frame, 4, SOFL_ENCAP_VXLAN, 4, 5000, 0, &h);
	kernel_sends(&f, &h, SOFL_VNET_HDR_MRG_LEN, frame, len);
	assert_int_equal(sofl_port_recv(f.port, &pk), 0);
	sofl_port_get_stats(f.port, &st, sizeof(st));
	assert_int_equal(st.rx_drop[SOFL_PORT_DROP_VNET], 1);
	/* and a plain one after it still reads */
	h.gso_type = SOFL_GSO_NONE;
	h.gso_size = 0;
	h.flags = 0;
	kernel_sends(&f, &h, SOFL_VNET_HDR_MRG_LEN, frame, 200);
	assert_int_equal(sofl_port_recv(f.port, &pk), 1);
	fix_close(&f);

	sofl_tun_config_init(&c);
	c.tap = 1;
	fix_open(&f, &c, SOFL_PORT_OFF_F_CSUM | SOFL_PORT_OFF_F_UDP_TNL);
	assert_int_equal(sofl_port_offloads(f.port) & SOFL_PORT_OFF_F_UDP_TNL, 0);
	fix_close(&f);
	/* nor on a raw-IP TUN, whose offsets Linux counts from an Ethernet
	 * header that is not there */
	sofl_tun_config_init(&c);
	fix_open(&f, &c, TNL_OFF);
	assert_int_equal(sofl_port_offloads(f.port) & (SOFL_PORT_OFF_F_UDP_TNL |
						       SOFL_PORT_OFF_F_UDP_TNL_CSUM), 0);
	fix_close(&f);
}

/* @n tunnel segments (VXLAN, Geneve or IP-in-IP: @type) of one inner
 * IPv4 TCP flow, 1000 payload bytes each, into segs[]. */
static void
mk_segments(struct sofl_port_pkt *pk, struct iovec *v, int n, int ocsum, int type)
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
		t_spec_init(&out, 4, type == SOFL_ENCAP_IPIP ? 4 : 17);
		out.dport = type == SOFL_ENCAP_GENEVE ? 6081 : 4789;
		out.sport = 49152;
		out.udp_zero_csum = !ocsum;
		t_encap_init(&e, type, 42);
		v[i].iov_base = segs[i];
		v[i].iov_len = t_build_encap(segs[i], sizeof(segs[i]), &out, &e, inner, k);
		pk[i].iov = &v[i];
		pk[i].iovcnt = 1;
		pk[i].len = (uint32_t)v[i].iov_len;
	}
}

/* GRO's VXLAN super-packet goes out whole behind a 24-byte header that
 * Linux's rules (virtio_net_hdr_tnl_to_skb, as sofl_vnet_to_gso checks
 * them) accept, and GSO cuts it back into the very segments sent. */
static void
test_write_tnl_super(void **state)
{
	struct sofl_port_pkt pk[8];
	struct iovec v[8];
	struct sofl_tun_config c;
	struct sofl_port_stats st;
	struct sofl_gro_stats g;
	struct sofl_vnet_hdr h;
	struct sofl_gso_params gp;
	struct sofl_pkt p;
	struct fix f;
	ssize_t r;
	int k;
	(void)state;

	for (k = 0; k < 4; k++) {
		int ocsum = k & 1, type = k & 2 ? SOFL_ENCAP_GENEVE : SOFL_ENCAP_VXLAN;
		size_t want = 0;
		int i;

		sofl_tun_config_init(&c);
		c.tap = 1;
		fix_open(&f, &c, TNL_OFF);
		mk_segments(pk, v, 8, ocsum, type);
		for (i = 0; i < 8; i++)
			want += i ? pk[i].len - (14 + 20 + 8 + 8 + 14 + 20 + 20) : pk[i].len;
		assert_int_equal(sofl_port_send(f.port, pk, 8), 8);
		r = read(f.sp[1], wire, sizeof(wire));
		assert_int_equal(r, (ssize_t)(SOFL_VNET_HDR_TNL_LEN + want));
		assert_int_equal(read(f.sp[1], wire, sizeof(wire)), -1);	/* one write */
		assert_int_equal(sofl_vnet_decode(&h, wire, (size_t)r, SOFL_VNET_HDR_TNL_LEN, 0),
				 SOFL_VNET_HDR_TNL_LEN);
		assert_int_equal(h.gso_type, SOFL_GSO_TCPV4 | SOFL_VNET_GSO_UDP_TUNNEL_IPV4);
		assert_int_equal(h.gso_size, 1000);
		assert_int_equal(h.outer_th_offset, 14 + 20);
		assert_int_equal(h.inner_nh_offset, 14 + 20 + 8 + 8 + 14);
		assert_int_equal(!!(h.flags & SOFL_VNET_HDR_F_UDP_TUNNEL_CSUM), ocsum);
		assert_int_equal(sofl_pkt_parse(&p, wire + SOFL_VNET_HDR_TNL_LEN,
						(size_t)r - SOFL_VNET_HDR_TNL_LEN, SOFL_LINK_ETH), 0);
		assert_int_equal(sofl_vnet_check(&h, &p, TNL_OPTS), 1);
		assert_int_equal(sofl_vnet_to_gso(&h, &p, TNL_OPTS, &gp), 1);
		/* a 24-byte header with tunnel bits cannot be read by a
		 * 12-byte reader: Linux refuses it without the feature */
		assert_true(sofl_vnet_check(&h, &p, 0) < 0);
		sofl_port_get_stats(f.port, &st, sizeof(st));
		assert_int_equal(st.tx_super, 1);
		assert_int_equal(st.tx_segs, 8);
		assert_int_equal(sofl_port_get_gro_stats(f.port, &g, sizeof(g)), 0);
		assert_int_equal(g.tun_super_pkts, 1);
		fix_close(&f);
	}
}

/* Without UDP-tunnel GSO: the same VXLAN segments are written as they came
 * (12-byte headers, no GSO), never as a tunnel super-packet, and a caller's
 * packet with a UDP-tunnel header cannot be written (UNSUPPORTED). */
static void
test_write_no_tnl(void **state)
{
	struct sofl_port_pkt pk[8];
	struct iovec v[8];
	struct sofl_tun_config c;
	struct sofl_port_stats st;
	struct sofl_vnet_hdr h;
	struct fix f;
	ssize_t r;
	int i;
	(void)state;

	sofl_tun_config_init(&c);
	c.tap = 1;
	fix_open(&f, &c, PLAIN);
	mk_segments(pk, v, 8, 0, SOFL_ENCAP_VXLAN);
	assert_int_equal(sofl_port_send(f.port, pk, 8), 8);
	for (i = 0; i < 8; i++) {
		r = read(f.sp[1], wire, sizeof(wire));
		assert_int_equal(r, (ssize_t)(SOFL_VNET_HDR_MRG_LEN + pk[i].len));
		sofl_vnet_decode(&h, wire, (size_t)r, SOFL_VNET_HDR_MRG_LEN, 0);
		assert_int_equal(h.gso_type, SOFL_GSO_NONE);
		assert_memory_equal(wire + SOFL_VNET_HDR_MRG_LEN, segs[i], pk[i].len);
	}
	assert_int_equal(read(f.sp[1], wire, sizeof(wire)), -1);
	/* a caller's tunnel super-packet */
	{
		struct sofl_port_pkt one;
		struct iovec ov;
		size_t len = mk_super(frame, 4, SOFL_ENCAP_VXLAN, 4, 5000, 0, &h);

		memset(&one, 0, sizeof(one));
		ov.iov_base = frame;
		ov.iov_len = len;
		one.iov = &ov;
		one.iovcnt = 1;
		one.len = (uint32_t)len;
		one.flags = SOFL_PORT_PKT_F_VNET;
		one.vnet = h;
		assert_int_equal(sofl_port_send(f.port, &one, 1), 0);
		sofl_port_get_stats(f.port, &st, sizeof(st));
		assert_int_equal(st.tx_drop[SOFL_PORT_DROP_UNSUPPORTED], 1);
		assert_int_equal(read(f.sp[1], wire, sizeof(wire)), -1);
		fix_close(&f);

		/* ... which a port with the 24-byte header writes as it is */
		sofl_tun_config_init(&c);
		c.tap = 1;
		fix_open(&f, &c, TNL_OFF);
		assert_int_equal(sofl_port_send(f.port, &one, 1), 1);
		r = read(f.sp[1], wire, sizeof(wire));
		assert_int_equal(r, (ssize_t)(SOFL_VNET_HDR_TNL_LEN + len));
		sofl_vnet_decode(&h, wire, (size_t)r, SOFL_VNET_HDR_TNL_LEN, 0);
		assert_int_equal(h.gso_type, one.vnet.gso_type);
		assert_int_equal(h.outer_th_offset, one.vnet.outer_th_offset);
		assert_int_equal(h.inner_nh_offset, one.vnet.inner_nh_offset);
		fix_close(&f);
	}
}

/* IP-in-IP has no virtio GSO type: a TAP's GRO leaves its frames as they
 * came, with or without the 24-byte header (one write each, no GSO). */
static void
test_write_ipip(void **state)
{
	struct sofl_port_pkt pk[8];
	struct iovec v[8];
	struct sofl_tun_config c;
	struct sofl_vnet_hdr h;
	struct fix f;
	unsigned off;
	ssize_t r;
	int i, k;
	(void)state;

	for (k = 0; k < 2; k++) {
		off = k ? TNL_OFF : PLAIN;
		sofl_tun_config_init(&c);
		c.tap = 1;
		fix_open(&f, &c, off);
		mk_segments(pk, v, 8, 0, SOFL_ENCAP_IPIP);
		assert_int_equal(sofl_port_send(f.port, pk, 8), 8);
		for (i = 0; i < 8; i++) {
			size_t hs = k ? SOFL_VNET_HDR_TNL_LEN : SOFL_VNET_HDR_MRG_LEN;

			r = read(f.sp[1], wire, sizeof(wire));
			assert_int_equal(r, (ssize_t)(hs + pk[i].len));
			sofl_vnet_decode(&h, wire, (size_t)r, hs, 0);
			assert_int_equal(h.gso_type, SOFL_GSO_NONE);
			assert_memory_equal(wire + hs, segs[i], pk[i].len);
		}
		assert_int_equal(read(f.sp[1], wire, sizeof(wire)), -1);
		fix_close(&f);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_segments),
		cmocka_unit_test(test_read_super),
		cmocka_unit_test(test_read_bad_tnl),
		cmocka_unit_test(test_no_tnl),
		cmocka_unit_test(test_write_tnl_super),
		cmocka_unit_test(test_write_no_tnl),
		cmocka_unit_test(test_write_ipip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
