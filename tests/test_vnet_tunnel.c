/* Description: the 24-byte UDP-tunnel virtio-net header (Linux 6.17+ struct virtio_net_hdr_v1_hash_tunnel): wire vectors built from the kernel's layout, round trips, every rejection rule of virtio_net_hdr_tnl_to_skb() and virtio_net_handle_csum_offload() with a valid neighbour, translation to and from tunnel segmentation parameters against the parse of VXLAN/Geneve packets. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "helpers.h"
#include "helpers_encap.h"
#include "softoffload/vnet.h"
#include "softoffload/gso.h"
#include "softoffload/csum.h"
#include "gso/vnet_impl.h"

#define TNL (SOFL_VNET_F_TUNNEL | SOFL_VNET_F_TUNNEL_CSUM)

static uint8_t frame[70000];

/* A UDP-tunnel packet built by hand: [outer Ethernet][outer IPv4/IPv6]
 * [UDP to 4789 or 6081][VXLAN or Geneve, 8 bytes][inner Ethernet][inner
 * IP][inner TCP/UDP][payload], the inner L4 checksum holding the
 * pseudo-header sum (T_CSUM_PARTIAL). */
struct tnl {
	size_t len;
	uint16_t outer_th;	/* outer UDP */
	uint16_t inner_nh;	/* inner IP */
	uint16_t inner_th;	/* inner TCP/UDP */
};

static void
put16(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

static uint16_t
ip4_csum(const uint8_t *h)
{
	uint32_t s = 0;

	for (int i = 0; i < 20; i += 2)
		s += (uint32_t)(h[i] << 8 | h[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static size_t
mk_tnl(uint8_t *buf, int link, int outer_ipv, int inner_ipv, int proto, size_t pay,
       int geneve, int ocsum, struct tnl *t)
{
	struct t_spec s;
	size_t o = 0, ol3, inner_len, ip_len;

	if (link == SOFL_LINK_ETH) {
		static const uint8_t mac[12] = { 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2 };

		memcpy(buf, mac, 12);
		put16(buf + 12, outer_ipv == 4 ? 0x0800 : 0x86dd);
		o = 14;
	}
	ol3 = o;
	o += outer_ipv == 4 ? 20 : 40;
	t->outer_th = (uint16_t)o;
	o += 8 + 8;			/* UDP, VXLAN/Geneve */
	t_spec_init(&s, inner_ipv, proto);
	s.pay_len = pay;
	s.csum = T_CSUM_PARTIAL;
	s.link = SOFL_LINK_ETH;
	inner_len = t_build(buf + o, sizeof(frame) - o, &s);
	t->inner_nh = (uint16_t)(o + 14);
	t->inner_th = (uint16_t)(t->inner_nh + (inner_ipv == 4 ? 20 : 40));
	o += inner_len;
	ip_len = o - ol3;
	if (outer_ipv == 4) {
		uint8_t *ip = buf + ol3;
		static const uint8_t a[8] = { 198, 18, 1, 1, 198, 18, 1, 2 };

		memset(ip, 0, 20);
		ip[0] = 0x45;
		put16(ip + 2, (uint32_t)ip_len);
		put16(ip + 6, 0x4000);
		ip[8] = 64;
		ip[9] = 17;
		memcpy(ip + 12, a, 8);
		put16(ip + 10, ip4_csum(ip));
	} else {
		uint8_t *ip = buf + ol3;

		memset(ip, 0, 40);
		ip[0] = 0x60;
		put16(ip + 4, (uint32_t)(ip_len - 40));
		ip[6] = 17;
		ip[7] = 64;
		ip[8] = 0x20, ip[9] = 0x01, ip[10] = 0x00, ip[11] = 0x02, ip[23] = 1;
		ip[24] = 0x20, ip[25] = 0x01, ip[26] = 0x00, ip[27] = 0x02, ip[39] = 2;
	}
	{
		uint8_t *u = buf + t->outer_th, *e = u + 8;

		put16(u, 49152 + 7);
		put16(u + 2, geneve ? 6081 : 4789);
		put16(u + 4, (uint32_t)(o - t->outer_th));
		put16(u + 6, ocsum ? 0x1234 : 0);	/* any non-zero value: not verified here */
		memset(e, 0, 8);
		if (geneve) {
			put16(e + 2, 0x6558);
		} else {
			e[0] = 0x08;
		}
		e[4] = 0x12, e[5] = 0x34, e[6] = 0x56;	/* VNI */
	}
	t->len = o;
	return o;
}

/* The header Linux's virtio_net_hdr_tnl_from_skb() writes for it. */
static struct sofl_vnet_hdr
tgood(const struct tnl *t, int outer_ipv, int inner_ipv, int proto, uint16_t gso)
{
	struct sofl_vnet_hdr h = { 0 };

	h.flags = SOFL_VNET_HDR_F_NEEDS_CSUM;
	h.gso_size = gso;
	h.csum_start = t->inner_th;
	h.csum_offset = proto == 6 ? 16 : 6;
	h.hdr_len = 9999;	/* never trusted */
	h.gso_type = proto == 17 ? SOFL_GSO_UDP_L4 : inner_ipv == 4 ? SOFL_GSO_TCPV4 : SOFL_GSO_TCPV6;
	h.gso_type |= outer_ipv == 4 ? SOFL_VNET_GSO_UDP_TUNNEL_IPV4 : SOFL_VNET_GSO_UDP_TUNNEL_IPV6;
	h.outer_th_offset = t->outer_th;
	h.inner_nh_offset = t->inner_nh;
	return h;
}

/* A pkt that only carries the frame (what check() reads besides the
 * header: rule 3 counts bytes, T7 reads the inner version nibble). */
static struct sofl_pkt
raw(size_t len, int link)
{
	struct sofl_pkt p;

	memset(&p, 0, sizeof(p));
	sofl_pkt_parse(&p, frame, len, (enum sofl_link)link);
	return p;
}

/* ---- wire form ---- */

static void
test_wire_vector(void **state)
{
	/* struct virtio_net_hdr_v1_hash_tunnel, little-endian: flags NEEDS_CSUM |
	 * UDP_TUNNEL_CSUM, gso_type UDP_TUNNEL_IPV4 | TCPV4, hdr_len 0x0076 (118),
	 * gso_size 0x0576 (1398), csum_start 0x0054 (84), csum_offset 16,
	 * num_buffers 1, hash_value_lo/hi, hash_report, padding (junk on input),
	 * outer_th_offset 0x0022 (34), inner_nh_offset 0x0040 (64) */
	static const uint8_t in[24] = {
		0x09, 0x21, 0x76, 0x00, 0x76, 0x05, 0x54, 0x00, 0x10, 0x00, 0x01, 0x00,
		0xaa, 0xbb, 0xcc, 0xdd, 0x02, 0x00, 0xee, 0xff, 0x22, 0x00, 0x40, 0x00 };
	struct sofl_vnet_hdr want = { .flags = 9, .gso_type = 0x21, .hdr_len = 118,
				      .gso_size = 1398, .csum_start = 84, .csum_offset = 16,
				      .num_buffers = 1, .outer_th_offset = 34,
				      .inner_nh_offset = 64 };
	struct sofl_vnet_hdr d;
	uint8_t out[32], exp[24];
	(void)state;

	assert_int_equal(sizeof(struct sofl_vnet_hdr), 16);
	assert_int_equal(SOFL_VNET_HDR_TNL_LEN, 24);
	memset(&d, 0x5a, sizeof(d));
	assert_int_equal(sofl_vnet_decode(&d, in, sizeof(in), SOFL_VNET_HDR_TNL_LEN, 0), 24);
	assert_memory_equal(&d, &want, sizeof(d));
	/* encode: the same bytes, the hash report (12..19) zero */
	memcpy(exp, in, 24);
	memset(exp + 12, 0, 8);
	memset(out, 0xee, sizeof(out));
	assert_int_equal(sofl_vnet_encode(out, sizeof(out), &want, 24, 0), 24);
	assert_memory_equal(out, exp, 24);
	assert_int_equal(out[24], 0xee);
	/* the 12-byte form of the same header: no offsets on the wire or back */
	assert_int_equal(sofl_vnet_decode(&d, in, sizeof(in), 12, 0), 12);
	assert_int_equal(d.outer_th_offset, 0);
	assert_int_equal(d.inner_nh_offset, 0);
	assert_int_equal(d.num_buffers, 1);
	/* the virtio-1.0-only layout is little-endian: no native/legacy form */
	assert_int_equal(sofl_vnet_decode(&d, in, 24, 24, SOFL_VNET_F_NATIVE), SOFL_E_INVAL);
	assert_int_equal(sofl_vnet_encode(out, 24, &want, 24, SOFL_VNET_F_NATIVE), SOFL_E_INVAL);
	/* sizes */
	assert_int_equal(sofl_vnet_decode(&d, in, 23, 24, 0), SOFL_E_VNET_SHORT);
	assert_int_equal(sofl_vnet_encode(out, 23, &want, 24, 0), SOFL_E_NOSPC);
	assert_int_equal(sofl_vnet_decode(&d, in, 24, 20, 0), SOFL_E_INVAL);
	assert_int_equal(sofl_vnet_decode(&d, in, 24, 16, 0), SOFL_E_INVAL);
	assert_int_equal(sofl_vnet_encode(out, 32, &want, 20, 0), SOFL_E_INVAL);
}

static void
test_wire_roundtrip(void **state)
{
	uint64_t r = 21;
	(void)state;

	for (int i = 0; i < 2000; i++) {
		uint8_t b[24], b2[24];
		struct sofl_vnet_hdr h, d;

		for (int k = 0; k < 24; k++)
			b[k] = (uint8_t)t_rand(&r);
		assert_int_equal(sofl_vnet_decode(&h, b, 24, 24, 0), 24);
		assert_int_equal(h.outer_th_offset, b[20] | b[21] << 8);
		assert_int_equal(h.inner_nh_offset, b[22] | b[23] << 8);
		assert_int_equal(h.csum_start, b[6] | b[7] << 8);
		assert_int_equal(sofl_vnet_encode(b2, 24, &h, 24, 0), 24);
		assert_memory_equal(b, b2, 12);
		assert_memory_equal(b + 20, b2 + 20, 4);
		for (int k = 12; k < 20; k++)
			assert_int_equal(b2[k], 0);
		assert_int_equal(sofl_vnet_decode(&d, b2, 24, 24, 0), 24);
		assert_memory_equal(&d, &h, sizeof(h));
	}
}

/* ---- acceptance: virtio_net_hdr_tnl_to_skb ---- */

static void
test_accept(void **state)
{
	struct tnl t;
	struct sofl_vnet_hdr h;
	struct sofl_pkt p;
	(void)state;

	for (int ov = 4; ov <= 6; ov += 2)
		for (int iv = 4; iv <= 6; iv += 2)
			for (int pr = 6; pr <= 17; pr += 11)
				for (int gen = 0; gen < 2; gen++) {
					mk_tnl(frame, SOFL_LINK_ETH, ov, iv, pr, 3000, gen, 1, &t);
					p = raw(t.len, SOFL_LINK_ETH);
					h = tgood(&t, ov, iv, pr, 1000);
					assert_int_equal(sofl_vnet_check(&h, &p, TNL), 1);
					assert_int_equal(sofl_vnet_check(&h, &p, TNL | SOFL_VNET_F_STRICT), 1);
					h.flags |= SOFL_VNET_HDR_F_UDP_TUNNEL_CSUM;
					assert_int_equal(sofl_vnet_check(&h, &p, TNL | SOFL_VNET_F_STRICT), 1);
					/* one segment's worth: valid, not GSO */
					h.gso_size = 4000;
					assert_int_equal(sofl_vnet_check(&h, &p, TNL), 0);
					/* TCP with ECN */
					if (pr == 6) {
						h = tgood(&t, ov, iv, pr, 1000);
						h.gso_type |= SOFL_GSO_ECN;
						assert_int_equal(sofl_vnet_check(&h, &p, TNL), 1);
					}
				}
}

/* One test per rule, each with a valid neighbour that differs in the one
 * field the rule looks at. */
#define CHK(h, p, o) sofl_vnet_check(&(h), &(p), (o))

static void
test_rule_t1_feature(void **state)
{
	struct tnl t;
	struct sofl_pkt p;
	struct sofl_vnet_hdr h;
	(void)state;

	mk_tnl(frame, SOFL_LINK_ETH, 4, 4, 6, 3000, 0, 0, &t);
	p = raw(t.len, SOFL_LINK_ETH);
	h = tgood(&t, 4, 4, 6, 1000);
	assert_int_equal(CHK(h, p, 0), SOFL_E_VNET_TNL_FEATURE);
	assert_int_equal(CHK(h, p, SOFL_VNET_F_TUNNEL_CSUM), SOFL_E_VNET_TNL_FEATURE);
	assert_int_equal(CHK(h, p, SOFL_VNET_F_TUNNEL), 1);
	/* the same header without its tunnel bit is a plain one (checked as
	 * such: csum_start is the inner TCP header, which rule 3 allows) */
	h.gso_type = SOFL_GSO_TCPV4;
	assert_int_equal(CHK(h, p, 0), 1);
}

static void
test_rule_t2_family(void **state)
{
	struct tnl t;
	struct sofl_pkt p;
	struct sofl_vnet_hdr h;
	(void)state;

	mk_tnl(frame, SOFL_LINK_ETH, 6, 4, 6, 3000, 0, 1, &t);
	p = raw(t.len, SOFL_LINK_ETH);
	h = tgood(&t, 6, 4, 6, 1000);
	assert_int_equal(CHK(h, p, TNL), 1);
	h.gso_type |= SOFL_VNET_GSO_UDP_TUNNEL_IPV4;
	assert_int_equal(CHK(h, p, TNL), SOFL_E_VNET_TNL_FAMILY);
	/* the wrong single bit is not check()'s business (Linux only uses it
	 * for rule T5's minimum): IPv4 bit on an outer IPv6 packet passes */
	h.gso_type &= (uint8_t)~SOFL_VNET_GSO_UDP_TUNNEL_IPV6;
	assert_int_equal(CHK(h, p, TNL), 1);
}

static void
test_rule_t3_inner_type(void **state)
{
	struct tnl t;
	struct sofl_pkt p;
	struct sofl_vnet_hdr h;
	static const uint8_t bad[] = { 0, SOFL_GSO_UFO, SOFL_GSO_ECN, SOFL_GSO_UFO | SOFL_GSO_ECN };
	static const uint8_t plain_bad[] = { 2, 6, 7, 0x10 | SOFL_GSO_TCPV4 };
	(void)state;

	mk_tnl(frame, SOFL_LINK_ETH, 4, 4, 17, 3000, 0, 0, &t);
	p = raw(t.len, SOFL_LINK_ETH);
	for (size_t i = 0; i < sizeof(bad); i++) {
		h = tgood(&t, 4, 4, 17, 1000);
		h.gso_type = (uint8_t)(SOFL_VNET_GSO_UDP_TUNNEL_IPV4 | bad[i]);
		assert_int_equal(CHK(h, p, TNL), SOFL_E_VNET_GSO_TYPE);
	}
	/* types T3 lets through that the plain rule 1 then refuses */
	for (size_t i = 0; i < sizeof(plain_bad); i++) {
		h = tgood(&t, 4, 4, 17, 1000);
		h.gso_type = (uint8_t)(SOFL_VNET_GSO_UDP_TUNNEL_IPV4 | plain_bad[i]);
		assert_int_equal(CHK(h, p, TNL), SOFL_E_VNET_GSO_TYPE);
	}
	h = tgood(&t, 4, 4, 17, 1000);
	assert_int_equal(h.gso_type, SOFL_VNET_GSO_UDP_TUNNEL_IPV4 | SOFL_GSO_UDP_L4);
	assert_int_equal(CHK(h, p, TNL), 1);
	/* UFO is fine without a tunnel */
	h.gso_type = SOFL_GSO_UFO;
	h.flags = 0;
	assert_int_equal(CHK(h, p, TNL), 1);
}

static void
test_rule_t4_needs_csum(void **state)
{
	struct tnl t;
	struct sofl_pkt p;
	struct sofl_vnet_hdr h;
	(void)state;

	mk_tnl(frame, SOFL_LINK_ETH, 4, 6, 6, 3000, 1, 0, &t);
	p = raw(t.len, SOFL_LINK_ETH);
	h = tgood(&t, 4, 6, 6, 1000);
	assert_int_equal(CHK(h, p, TNL), 1);
	h.flags = 0;
	assert_int_equal(CHK(h, p, TNL), SOFL_E_VNET_NO_CSUM);
	h.flags = SOFL_VNET_HDR_F_UDP_TUNNEL_CSUM;
	assert_int_equal(CHK(h, p, TNL), SOFL_E_VNET_NO_CSUM);
}

static void
test_rule_t5_offsets(void **state)
{
	struct tnl t;
	struct sofl_pkt p;
	struct sofl_vnet_hdr h, g;
	(void)state;

	/* outer IPv4: outer_th >= 14 + 20 */
	mk_tnl(frame, SOFL_LINK_ETH, 4, 4, 6, 3000, 0, 0, &t);
	p = raw(t.len, SOFL_LINK_ETH);
	g = tgood(&t, 4, 4, 6, 1000);
	assert_int_equal(g.outer_th_offset, 34);
	h = g;
	assert_int_equal(CHK(h, p, TNL), 1);
	h.outer_th_offset = 33;
	assert_int_equal(CHK(h, p, TNL), SOFL_E_VNET_TNL_OFFSET);
	/* inner_nh >= outer_th + 8 */
	h = g;
	h.inner_nh_offset = (uint16_t)(h.outer_th_offset + 8);
	assert_int_equal(CHK(h, p, TNL), 1);
	h.inner_nh_offset--;
	assert_int_equal(CHK(h, p, TNL), SOFL_E_VNET_TNL_OFFSET);
	/* csum_start >= inner_nh + 20 (TCPV4) */
	h = g;
	h.inner_nh_offset = (uint16_t)(h.csum_start - 20);
	assert_int_equal(CHK(h, p, TNL), 1);
	h.inner_nh_offset++;
	assert_int_equal(CHK(h, p, TNL), SOFL_E_VNET_TNL_OFFSET);
	/* the IPv6 bit asks 14 + 40 (checked on the bit, not the packet) */
	h = g;
	h.gso_type = SOFL_VNET_GSO_UDP_TUNNEL_IPV6 | SOFL_GSO_TCPV4;
	h.outer_th_offset = 53;
	h.inner_nh_offset = 61;
	assert_int_equal(CHK(h, p, TNL), SOFL_E_VNET_TNL_OFFSET);
	h.outer_th_offset = 54;
	h.inner_nh_offset = 62;
	assert_int_equal(CHK(h, p, TNL), 1);
	/* inner TCPV6: csum_start >= inner_nh + 40 */
	mk_tnl(frame, SOFL_LINK_ETH, 6, 6, 6, 3000, 0, 1, &t);
	p = raw(t.len, SOFL_LINK_ETH);
	g = tgood(&t, 6, 6, 6, 1000);
	assert_int_equal(g.outer_th_offset, 54);
	assert_int_equal(CHK(g, p, TNL), 1);
	h = g;
	h.inner_nh_offset++;
	assert_int_equal(CHK(h, p, TNL), SOFL_E_VNET_TNL_OFFSET);
	h = g;
	h.outer_th_offset = 53;
	assert_int_equal(CHK(h, p, TNL), SOFL_E_VNET_TNL_OFFSET);
	/* 14 counts even without an Ethernet header: on a raw-IP TUN, outer
	 * IPv4 puts the UDP header at 20 < 34, which Linux refuses */
	mk_tnl(frame, SOFL_LINK_RAW, 4, 4, 6, 3000, 0, 0, &t);
	p = raw(t.len, SOFL_LINK_RAW);
	h = tgood(&t, 4, 4, 6, 1000);
	assert_int_equal(h.outer_th_offset, 20);
	assert_int_equal(CHK(h, p, TNL), SOFL_E_VNET_TNL_OFFSET);
	/* outer IPv6 on raw IP: 40 < 54, refused too */
	mk_tnl(frame, SOFL_LINK_RAW, 6, 4, 6, 3000, 0, 0, &t);
	p = raw(t.len, SOFL_LINK_RAW);
	h = tgood(&t, 6, 4, 6, 1000);
	assert_int_equal(CHK(h, p, TNL), SOFL_E_VNET_TNL_OFFSET);
}

static void
test_rule_t6_plain_rules(void **state)
{
	struct tnl t;
	struct sofl_pkt p;
	struct sofl_vnet_hdr h, g;
	(void)state;

	mk_tnl(frame, SOFL_LINK_ETH, 4, 4, 17, 3000, 0, 0, &t);
	p = raw(t.len, SOFL_LINK_ETH);
	g = tgood(&t, 4, 4, 17, 1000);
	assert_int_equal(CHK(g, p, TNL), 1);
	h = g;
	h.gso_size = 0;						/* rule 2 */
	assert_int_equal(CHK(h, p, TNL), SOFL_E_VNET_GSO_SIZE);
	h = g;
	h.csum_offset = 16;					/* rule 5 */
	assert_int_equal(CHK(h, p, TNL), SOFL_E_VNET_CSUM_OFFSET);
	h = g;
	h.gso_type |= SOFL_GSO_ECN;				/* rule 5 */
	assert_int_equal(CHK(h, p, TNL), SOFL_E_VNET_ECN);
	h = g;
	h.gso_size = 20;					/* rule 5: > 128 segments */
	assert_int_equal(CHK(h, p, TNL), SOFL_E_VNET_TOO_MANY);
	h.gso_size = 24;
	assert_int_equal(CHK(h, p, TNL), 1);
	h = g;
	h.gso_size = SOFL_VNET_GSO_BY_FRAGS;			/* rule 7 */
	assert_int_equal(CHK(h, p, TNL), SOFL_E_VNET_GSO_SIZE);
	h = g;
	h.csum_start = (uint16_t)(t.len - 7);			/* rule 3 */
	h.csum_offset = 0;
	assert_int_equal(CHK(h, p, TNL), SOFL_E_VNET_L4_TRUNC);
	/* TCP: csum_offset 16 only (rule 6) */
	mk_tnl(frame, SOFL_LINK_ETH, 4, 4, 6, 3000, 0, 0, &t);
	p = raw(t.len, SOFL_LINK_ETH);
	h = tgood(&t, 4, 4, 6, 1000);
	assert_int_equal(CHK(h, p, TNL), 1);
	h.csum_offset = 6;
	assert_int_equal(CHK(h, p, TNL), SOFL_E_VNET_CSUM_OFFSET);
}

static void
test_rule_t7_uso_inner_v6(void **state)
{
	struct tnl t;
	struct sofl_pkt p;
	struct sofl_vnet_hdr h;
	(void)state;

	/* USO over an inner IPv6 packet: the version nibble at inner_nh asks
	 * for 40 bytes before csum_start, which T5 (guessing IPv4) did not */
	mk_tnl(frame, SOFL_LINK_ETH, 4, 6, 17, 3000, 0, 0, &t);
	p = raw(t.len, SOFL_LINK_ETH);
	h = tgood(&t, 4, 6, 17, 1000);
	assert_int_equal(CHK(h, p, TNL), 1);
	h.csum_start = (uint16_t)(t.inner_nh + 20);
	assert_int_equal(CHK(h, p, TNL), SOFL_E_VNET_TNL_OFFSET);
	h.csum_start = (uint16_t)(t.inner_nh + 39);
	assert_int_equal(CHK(h, p, TNL), SOFL_E_VNET_TNL_OFFSET);
	h.csum_start = (uint16_t)(t.inner_nh + 40);
	assert_int_equal(CHK(h, p, TNL), 1);
	/* the same offsets over an inner IPv4 packet: 20 is enough */
	mk_tnl(frame, SOFL_LINK_ETH, 4, 4, 17, 3000, 0, 0, &t);
	p = raw(t.len, SOFL_LINK_ETH);
	h = tgood(&t, 4, 4, 17, 1000);
	h.csum_start = (uint16_t)(t.inner_nh + 20);
	assert_int_equal(CHK(h, p, TNL), 1);
	/* TCPV4 is not re-read: its nibble is whatever the header says */
	frame[t.inner_nh] = 0x65;
	h.gso_type = SOFL_VNET_GSO_UDP_TUNNEL_IPV4 | SOFL_GSO_TCPV4;
	h.csum_offset = 16;
	assert_int_equal(CHK(h, p, TNL), 1);
	h.gso_type = SOFL_VNET_GSO_UDP_TUNNEL_IPV4 | SOFL_GSO_UDP_L4;
	h.csum_offset = 6;
	assert_int_equal(CHK(h, p, TNL), SOFL_E_VNET_TNL_OFFSET);
}

static void
test_rule_t8_tunnel_csum(void **state)
{
	struct tnl t;
	struct sofl_pkt p;
	struct sofl_vnet_hdr h;
	(void)state;

	mk_tnl(frame, SOFL_LINK_ETH, 6, 6, 6, 3000, 1, 1, &t);
	p = raw(t.len, SOFL_LINK_ETH);
	h = tgood(&t, 6, 6, 6, 1000);
	assert_int_equal(CHK(h, p, SOFL_VNET_F_TUNNEL), 1);
	h.flags |= SOFL_VNET_HDR_F_UDP_TUNNEL_CSUM;
	assert_int_equal(CHK(h, p, SOFL_VNET_F_TUNNEL), SOFL_E_VNET_TNL_CSUM);
	assert_int_equal(CHK(h, p, TNL), 1);
	/* a failing plain rule comes first (kernel order) */
	h.gso_size = 0;
	assert_int_equal(CHK(h, p, SOFL_VNET_F_TUNNEL), SOFL_E_VNET_GSO_SIZE);
}

static void
test_rule_c_data_valid(void **state)
{
	struct tnl t;
	struct sofl_pkt p;
	struct sofl_vnet_hdr h;
	(void)state;

	mk_tnl(frame, SOFL_LINK_ETH, 4, 4, 6, 3000, 0, 1, &t);
	p = raw(t.len, SOFL_LINK_ETH);
	/* DATA_VALID with UDP-tunnel GSO: refused (the virtio-net driver) */
	h = tgood(&t, 4, 4, 6, 1000);
	h.flags |= SOFL_VNET_HDR_F_DATA_VALID;
	assert_int_equal(CHK(h, p, TNL), SOFL_E_VNET_DATA_VALID);
	assert_int_equal(CHK(h, p, 0), SOFL_E_VNET_DATA_VALID);
	h.flags &= (uint8_t)~SOFL_VNET_HDR_F_DATA_VALID;
	assert_int_equal(CHK(h, p, TNL), 1);
	/* without tunnel bits: DATA_VALID + UDP_TUNNEL_CSUM (both checksums
	 * verified, csum_level 1) needs the tunnel checksum feature */
	h = (struct sofl_vnet_hdr){ .flags = SOFL_VNET_HDR_F_DATA_VALID |
					     SOFL_VNET_HDR_F_UDP_TUNNEL_CSUM };
	assert_int_equal(CHK(h, p, 0), SOFL_E_VNET_TNL_CSUM);
	assert_int_equal(CHK(h, p, SOFL_VNET_F_TUNNEL), SOFL_E_VNET_TNL_CSUM);
	assert_int_equal(CHK(h, p, SOFL_VNET_F_TUNNEL_CSUM), 0);
	h.flags = SOFL_VNET_HDR_F_DATA_VALID;
	assert_int_equal(CHK(h, p, 0), 0);
	h.flags = SOFL_VNET_HDR_F_UDP_TUNNEL_CSUM;	/* not looked at without DATA_VALID */
	assert_int_equal(CHK(h, p, 0), 0);
}

static void
test_strict_flags(void **state)
{
	struct tnl t;
	struct sofl_pkt p;
	struct sofl_vnet_hdr h;
	(void)state;

	mk_tnl(frame, SOFL_LINK_ETH, 4, 4, 6, 3000, 0, 1, &t);
	p = raw(t.len, SOFL_LINK_ETH);
	h = (struct sofl_vnet_hdr){ .flags = SOFL_VNET_HDR_F_UDP_TUNNEL_CSUM };
	assert_int_equal(CHK(h, p, SOFL_VNET_F_STRICT), SOFL_E_VNET_FLAGS);
	assert_int_equal(CHK(h, p, SOFL_VNET_F_STRICT | SOFL_VNET_F_TUNNEL), 0);
	h.flags = 0x10;
	assert_int_equal(CHK(h, p, SOFL_VNET_F_STRICT | TNL), SOFL_E_VNET_FLAGS);
}

/* ---- the wire type from a segmentation type (vnet_impl.h) ---- */

static void
test_wire_type(void **state)
{
	struct sofl_vnet_hdr v = { .gso_type = SOFL_GSO_TCPV4 | SOFL_GSO_ECN };
	(void)state;

	assert_int_equal(vnet_gso_wire(SOFL_GSO_TCPV4, 4), 0x01);
	assert_int_equal(vnet_gso_wire(SOFL_GSO_UDP_L4, 6), 0x05);
	assert_int_equal(vnet_gso_wire(SOFL_GSO_TUNNEL_UDP | SOFL_GSO_TCPV4, 4), 0x21);
	assert_int_equal(vnet_gso_wire(SOFL_GSO_TUNNEL_UDP_CSUM | SOFL_GSO_TCPV4, 4), 0x21);
	assert_int_equal(vnet_gso_wire(SOFL_GSO_TUNNEL_UDP | SOFL_GSO_TCPV6, 6), 0x44);
	assert_int_equal(vnet_gso_wire(SOFL_GSO_TUNNEL_UDP_CSUM | SOFL_GSO_UDP_L4, 6), 0x45);
	assert_int_equal(vnet_gso_wire(SOFL_GSO_TUNNEL_IPIP | SOFL_GSO_TCPV4, 4), 0xff);
	vnet_tunnel_fill(&v, SOFL_GSO_TUNNEL_UDP_CSUM | SOFL_GSO_TCPV4, 6, 54, 84);
	assert_int_equal(v.gso_type, 0xc1);
	assert_int_equal(v.flags, SOFL_VNET_HDR_F_UDP_TUNNEL_CSUM);
	assert_int_equal(v.outer_th_offset, 54);
	assert_int_equal(v.inner_nh_offset, 84);
}

/* ---- against the parse: sofl_vnet_to_gso, sofl_vnet_from_pkt ---- */

static void
parse_ok(struct sofl_pkt *p, size_t len, int link)
{
	assert_int_equal(sofl_pkt_parse(p, frame, len, (enum sofl_link)link), 0);
}

/* the frame parsed with no tunnel configured: the outer packet only */
static void
parse_plain(struct sofl_pkt *p, size_t len, int link)
{
	struct sofl_pkt_config c;

	sofl_pkt_config_init(&c);
	c.n_udp = 0;
	c.flags |= SOFL_PKT_F_NO_IPIP;
	assert_int_equal(sofl_pkt_parse_cfg(p, frame, len, (enum sofl_link)link, &c), 0);
	assert_int_equal(p->layers & SOFL_LAYER_ENCAP, 0);
}

static void
test_to_gso(void **state)
{
	struct tnl t;
	struct sofl_vnet_hdr h;
	struct sofl_gso_params gp;
	struct sofl_pkt p;
	(void)state;

	for (int ov = 4; ov <= 6; ov += 2)
		for (int iv = 4; iv <= 6; iv += 2)
			for (int pr = 6; pr <= 17; pr += 11)
				for (int gen = 0; gen < 2; gen++) {
					unsigned inner = pr == 17 ? SOFL_GSO_UDP_L4 :
							 iv == 4 ? SOFL_GSO_TCPV4 : SOFL_GSO_TCPV6;

					mk_tnl(frame, SOFL_LINK_ETH, ov, iv, pr, 3000, gen, 1, &t);
					parse_ok(&p, t.len, SOFL_LINK_ETH);
					assert_true(p.layers & SOFL_LAYER_ENCAP);
					assert_int_equal(p.outer_l4_off, t.outer_th);
					assert_int_equal(p.l3_off, t.inner_nh);
					assert_int_equal(p.l4_off, t.inner_th);
					h = tgood(&t, ov, iv, pr, 1000);
					memset(&gp, 0xee, sizeof(gp));
					assert_int_equal(sofl_vnet_to_gso(&h, &p, TNL, &gp), 1);
					assert_int_equal(gp.type, SOFL_GSO_TUNNEL_UDP | inner);
					assert_int_equal(gp.gso_size, 1000);
					assert_int_equal(gp.flags, 0);
					h.flags |= SOFL_VNET_HDR_F_UDP_TUNNEL_CSUM;
					assert_int_equal(sofl_vnet_to_gso(&h, &p, TNL, &gp), 1);
					assert_int_equal(gp.type, SOFL_GSO_TUNNEL_UDP_CSUM | inner);
					assert_int_equal(SOFL_GSO_INNER(gp.type), inner);
					/* without the feature: nothing written */
					memset(&gp, 0xee, sizeof(gp));
					assert_int_equal(sofl_vnet_to_gso(&h, &p, SOFL_VNET_F_TUNNEL, &gp),
							 SOFL_E_VNET_TNL_CSUM);
					assert_int_equal(gp.gso_size, 0xeeee);
					/* one segment: passed through */
					h.gso_size = 3000;
					assert_int_equal(sofl_vnet_to_gso(&h, &p, TNL, &gp), 0);
					assert_int_equal(gp.type, SOFL_GSO_NONE);
				}
}

static void
test_to_gso_fit(void **state)
{
	struct tnl t;
	struct sofl_vnet_hdr h, g;
	struct sofl_gso_params gp;
	struct sofl_pkt p;
	(void)state;

	mk_tnl(frame, SOFL_LINK_ETH, 6, 4, 6, 3000, 0, 1, &t);
	parse_ok(&p, t.len, SOFL_LINK_ETH);
	g = tgood(&t, 6, 4, 6, 1000);
	assert_int_equal(sofl_vnet_to_gso(&g, &p, TNL, &gp), 1);
	/* the family bit must be the parse's outer IP version (check() passes) */
	h = g;
	h.gso_type = SOFL_VNET_GSO_UDP_TUNNEL_IPV4 | SOFL_GSO_TCPV4;
	assert_int_equal(sofl_vnet_check(&h, &p, TNL), 1);
	assert_int_equal(sofl_vnet_to_gso(&h, &p, TNL, &gp), SOFL_E_VNET_TNL_FAMILY);
	/* offsets ordered but not the parse's */
	h = g;
	h.outer_th_offset = (uint16_t)(g.outer_th_offset - 2);	/* below 14 + 40 */
	assert_int_equal(sofl_vnet_check(&h, &p, TNL), SOFL_E_VNET_TNL_OFFSET);
	h.outer_th_offset = (uint16_t)(g.outer_th_offset + 2);
	assert_int_equal(sofl_vnet_check(&h, &p, TNL), 1);
	assert_int_equal(sofl_vnet_to_gso(&h, &p, TNL, &gp), SOFL_E_VNET_TNL_OFFSET);
	h = g;
	h.inner_nh_offset = (uint16_t)(g.inner_nh_offset - 14);	/* the inner Ethernet */
	assert_int_equal(sofl_vnet_check(&h, &p, TNL), 1);
	assert_int_equal(sofl_vnet_to_gso(&h, &p, TNL, &gp), SOFL_E_VNET_TNL_OFFSET);
	/* csum_start not the inner L4 header */
	h = g;
	h.csum_start = (uint16_t)(g.csum_start + 4);
	assert_int_equal(sofl_vnet_check(&h, &p, TNL), 1);
	assert_int_equal(sofl_vnet_to_gso(&h, &p, TNL, &gp), SOFL_E_VNET_CSUM_START);
	/* inner type not the inner packet's: TCPV6 over inner IPv4 (T5 first),
	 * UDP_L4 over inner TCP */
	h = g;
	h.gso_type = SOFL_VNET_GSO_UDP_TUNNEL_IPV6 | SOFL_GSO_TCPV6;
	assert_int_equal(sofl_vnet_to_gso(&h, &p, TNL, &gp), SOFL_E_VNET_TNL_OFFSET);
	h = g;
	h.gso_type = SOFL_VNET_GSO_UDP_TUNNEL_IPV6 | SOFL_GSO_UDP_L4;
	h.csum_offset = 6;
	assert_int_equal(sofl_vnet_check(&h, &p, TNL), 1);
	assert_int_equal(sofl_vnet_to_gso(&h, &p, TNL, &gp), SOFL_E_VNET_PROTO);
	mk_tnl(frame, SOFL_LINK_ETH, 6, 6, 6, 3000, 0, 1, &t);
	parse_ok(&p, t.len, SOFL_LINK_ETH);
	h = tgood(&t, 6, 6, 6, 1000);
	h.gso_type = SOFL_VNET_GSO_UDP_TUNNEL_IPV6 | SOFL_GSO_TCPV4;
	assert_int_equal(sofl_vnet_check(&h, &p, TNL), 1);
	assert_int_equal(sofl_vnet_to_gso(&h, &p, TNL, &gp), SOFL_E_VNET_PROTO);
}

static void
test_to_gso_not_udp_tunnel(void **state)
{
	struct tnl t;
	struct sofl_vnet_hdr h;
	struct sofl_gso_params gp;
	struct sofl_pkt p;
	uint8_t in[4000];
	struct t_spec o;
	struct t_encap e;
	size_t n, len;
	(void)state;

	/* a tunnel header where the parse saw no tunnel (port not configured) */
	mk_tnl(frame, SOFL_LINK_ETH, 4, 4, 6, 3000, 0, 0, &t);
	parse_plain(&p, t.len, SOFL_LINK_ETH);
	h = tgood(&t, 4, 4, 6, 1000);
	assert_int_equal(sofl_vnet_check(&h, &p, TNL), 1);
	assert_int_equal(sofl_vnet_to_gso(&h, &p, TNL, &gp), SOFL_E_VNET_PROTO);
	/* a plain GSO header on a tunnel parse: Linux cuts by the outer
	 * protocol, not by this type */
	parse_ok(&p, t.len, SOFL_LINK_ETH);
	h = (struct sofl_vnet_hdr){ .flags = SOFL_VNET_HDR_F_NEEDS_CSUM, .gso_type = SOFL_GSO_TCPV4,
				    .gso_size = 1000, .csum_start = t.inner_th, .csum_offset = 16 };
	assert_int_equal(sofl_vnet_check(&h, &p, TNL), 1);
	assert_int_equal(sofl_vnet_to_gso(&h, &p, TNL, &gp), SOFL_E_VNET_PROTO);
	/* ... but USO of the outer datagram is plain USO once parsed without
	 * tunnels */
	h = (struct sofl_vnet_hdr){ .flags = SOFL_VNET_HDR_F_NEEDS_CSUM, .gso_type = SOFL_GSO_UDP_L4,
				    .gso_size = 1000, .csum_start = t.outer_th, .csum_offset = 6 };
	assert_int_equal(sofl_vnet_to_gso(&h, &p, TNL, &gp), SOFL_E_VNET_PROTO);
	parse_plain(&p, t.len, SOFL_LINK_ETH);
	assert_int_equal(sofl_vnet_to_gso(&h, &p, TNL, &gp), 1);
	assert_int_equal(gp.type, SOFL_GSO_UDP_L4);
	/* IP-in-IP: no virtio tunnel type; a plain header does not fit either */
	t_spec_init(&o, 4, 6);
	o.pay_len = 3000;
	o.csum = T_CSUM_PARTIAL;
	o.link = SOFL_LINK_RAW;
	n = t_build(in, sizeof(in), &o);
	t_spec_init(&o, 4, 4);
	t_encap_init(&e, SOFL_ENCAP_IPIP, 0);
	len = t_build_encap(frame, sizeof(frame), &o, &e, in, n);
	parse_ok(&p, len, SOFL_LINK_ETH);
	assert_int_equal(p.encap, SOFL_ENCAP_IPIP);
	h = (struct sofl_vnet_hdr){ .flags = SOFL_VNET_HDR_F_NEEDS_CSUM, .gso_type = SOFL_GSO_TCPV4,
				    .gso_size = 1000, .csum_start = p.l4_off, .csum_offset = 16 };
	assert_int_equal(sofl_vnet_check(&h, &p, TNL), 1);
	assert_int_equal(sofl_vnet_to_gso(&h, &p, TNL, &gp), SOFL_E_VNET_PROTO);
	/* a 4in4 packet's real offsets cannot pass T5 (no UDP between) ... */
	h.gso_type |= SOFL_VNET_GSO_UDP_TUNNEL_IPV4;
	h.outer_th_offset = 34;
	h.inner_nh_offset = 42;
	assert_int_equal(sofl_vnet_check(&h, &p, TNL), SOFL_E_VNET_TNL_OFFSET);
	/* ... and offsets that do are no UDP tunnel either */
	h.csum_start = 62;
	assert_int_equal(sofl_vnet_check(&h, &p, TNL), 1);
	assert_int_equal(sofl_vnet_to_gso(&h, &p, TNL, &gp), SOFL_E_VNET_PROTO);
	/* nested: a VXLAN packet inside a VXLAN packet is passed through by the
	 * engines, so not segmented here */
	mk_tnl(in, SOFL_LINK_ETH, 4, 4, 6, 2000, 0, 0, &t);
	t_spec_init(&o, 4, 17);
	o.dport = 4789;
	t_encap_init(&e, SOFL_ENCAP_VXLAN, 7);
	len = t_build_encap(frame, sizeof(frame), &o, &e, in, t.len);
	parse_ok(&p, len, SOFL_LINK_ETH);
	assert_true(p.encap_flags & SOFL_ENCAP_F_NESTED);
	assert_int_equal(p.l4_proto, 17);
	h = (struct sofl_vnet_hdr){ .flags = SOFL_VNET_HDR_F_NEEDS_CSUM,
				    .gso_type = SOFL_VNET_GSO_UDP_TUNNEL_IPV4 | SOFL_GSO_UDP_L4,
				    .gso_size = 500, .csum_start = p.l4_off, .csum_offset = 6,
				    .outer_th_offset = p.outer_l4_off, .inner_nh_offset = p.l3_off };
	assert_int_equal(sofl_vnet_check(&h, &p, TNL), 1);
	assert_int_equal(sofl_vnet_to_gso(&h, &p, TNL, &gp), SOFL_E_VNET_PROTO);
	h.gso_type = SOFL_GSO_UDP_L4;	/* and no plain type either */
	assert_int_equal(sofl_vnet_to_gso(&h, &p, TNL, &gp), SOFL_E_VNET_PROTO);
}

/* Rule 4 (GSO without NEEDS_CSUM) dissects as the kernel does: a UDP
 * tunnel's outer UDP header, IP-in-IP's inner packet. */
static void
test_rule4_dissect(void **state)
{
	struct tnl t;
	struct sofl_vnet_hdr h;
	struct sofl_pkt p;
	uint8_t in[4000];
	struct t_spec o;
	struct t_encap e;
	size_t n, len;
	(void)state;

	mk_tnl(frame, SOFL_LINK_ETH, 4, 4, 6, 3000, 0, 0, &t);
	parse_ok(&p, t.len, SOFL_LINK_ETH);
	h = (struct sofl_vnet_hdr){ .gso_type = SOFL_GSO_TCPV4, .gso_size = 1000 };
	assert_int_equal(sofl_vnet_check(&h, &p, 0), SOFL_E_VNET_PROTO);
	h.gso_type = SOFL_GSO_UFO;
	assert_int_equal(sofl_vnet_check(&h, &p, 0), 1);
	parse_plain(&p, t.len, SOFL_LINK_ETH);
	assert_int_equal(sofl_vnet_check(&h, &p, 0), 1);
	h.gso_type = SOFL_GSO_TCPV4;
	assert_int_equal(sofl_vnet_check(&h, &p, 0), SOFL_E_VNET_PROTO);
	/* 4in4 with inner TCP: the dissector reaches the inner TCP header */
	t_spec_init(&o, 4, 6);
	o.pay_len = 3000;
	o.link = SOFL_LINK_RAW;
	n = t_build(in, sizeof(in), &o);
	t_spec_init(&o, 4, 4);
	t_encap_init(&e, SOFL_ENCAP_IPIP, 0);
	len = t_build_encap(frame, sizeof(frame), &o, &e, in, n);
	parse_ok(&p, len, SOFL_LINK_ETH);
	assert_int_equal(p.encap, SOFL_ENCAP_IPIP);
	assert_int_equal(sofl_vnet_check(&h, &p, 0), 1);
	h.gso_type = SOFL_GSO_UFO;
	assert_int_equal(sofl_vnet_check(&h, &p, 0), SOFL_E_VNET_PROTO);
}

static void
test_from_pkt(void **state)
{
	struct tnl t;
	struct sofl_vnet_hdr h, d, want;
	struct sofl_gso_params gp;
	struct sofl_pkt p;
	uint8_t w[SOFL_VNET_HDR_TNL_LEN];
	(void)state;

	for (int ov = 4; ov <= 6; ov += 2)
		for (int iv = 4; iv <= 6; iv += 2)
			for (int pr = 6; pr <= 17; pr += 11)
				for (int oc = 0; oc < 2; oc++) {
					mk_tnl(frame, SOFL_LINK_ETH, ov, iv, pr, 3000, oc, oc, &t);
					parse_ok(&p, t.len, SOFL_LINK_ETH);
					assert_int_equal(!!(p.encap_flags & SOFL_ENCAP_F_UDP_CSUM), oc);
					want = tgood(&t, ov, iv, pr, 1000);
					want.hdr_len = (uint16_t)(t.inner_th + (pr == 6 ? 20 : 8));
					if (oc)
						want.flags |= SOFL_VNET_HDR_F_UDP_TUNNEL_CSUM;
					memset(&h, 0x5a, sizeof(h));
					assert_int_equal(sofl_vnet_from_pkt(&h, &p, 1000, SOFL_VNET_F_MK_CSUM | TNL), 0);
					assert_memory_equal(&h, &want, sizeof(h));
					assert_int_equal(h.hdr_len, p.pay_off);
					assert_int_equal(sofl_vnet_check(&h, &p, TNL), 1);
					assert_int_equal(sofl_vnet_to_gso(&h, &p, TNL, &gp), 1);
					assert_int_equal(gp.type & SOFL_GSO_TUNNEL_MASK,
							 oc ? SOFL_GSO_TUNNEL_UDP_CSUM : SOFL_GSO_TUNNEL_UDP);
					/* through the wire and back */
					assert_int_equal(sofl_vnet_encode(w, sizeof(w), &h, 24, 0), 24);
					assert_int_equal(w[1], h.gso_type);
					assert_int_equal(w[20] | w[21] << 8, t.outer_th);
					assert_int_equal(w[22] | w[23] << 8, t.inner_nh);
					assert_int_equal(sofl_vnet_decode(&d, w, 24, 24, 0), 24);
					assert_memory_equal(&d, &h, sizeof(h));
					/* what the features and options allow */
					assert_int_equal(sofl_vnet_from_pkt(&h, &p, 1000, SOFL_VNET_F_MK_CSUM),
							 SOFL_E_VNET_TNL_FEATURE);
					assert_int_equal(sofl_vnet_from_pkt(&h, &p, 1000, SOFL_VNET_F_MK_CSUM |
									    SOFL_VNET_F_TUNNEL),
							 oc ? SOFL_E_VNET_TNL_CSUM : 0);
					assert_int_equal(sofl_vnet_from_pkt(&h, &p, 1000, TNL), SOFL_E_VNET_NO_CSUM);
					assert_int_equal(sofl_vnet_from_pkt(&h, &p, 1000, TNL | SOFL_VNET_F_MK_CSUM |
									    SOFL_VNET_F_MK_VALID),
							 SOFL_E_VNET_DATA_VALID);
					if (pr == 6) {
						assert_int_equal(sofl_vnet_from_pkt(&h, &p, 1000, TNL |
								 SOFL_VNET_F_MK_CSUM | SOFL_VNET_F_MK_ECN), 0);
						assert_int_equal(h.gso_type, want.gso_type | SOFL_GSO_ECN);
					}
					/* no GSO: a plain header, the checksum the inner one */
					assert_int_equal(sofl_vnet_from_pkt(&h, &p, 0, SOFL_VNET_F_MK_CSUM), 0);
					assert_int_equal(h.gso_type, SOFL_GSO_NONE);
					assert_int_equal(h.csum_start, t.inner_th);
					assert_int_equal(h.outer_th_offset, 0);
					assert_int_equal(h.flags, SOFL_VNET_HDR_F_NEEDS_CSUM);
				}
}

static void
test_from_pkt_ipip(void **state)
{
	struct sofl_vnet_hdr h;
	struct sofl_pkt p;
	uint8_t in[4000];
	struct t_spec o;
	struct t_encap e;
	size_t n, len;
	(void)state;

	t_spec_init(&o, 6, 6);
	o.pay_len = 3000;
	o.csum = T_CSUM_PARTIAL;
	o.link = SOFL_LINK_RAW;
	n = t_build(in, sizeof(in), &o);
	t_spec_init(&o, 4, 41);
	t_encap_init(&e, SOFL_ENCAP_IPIP, 0);
	len = t_build_encap(frame, sizeof(frame), &o, &e, in, n);
	parse_ok(&p, len, SOFL_LINK_ETH);
	assert_int_equal(p.encap, SOFL_ENCAP_IPIP);
	assert_int_equal(sofl_vnet_from_pkt(&h, &p, 1000, SOFL_VNET_F_MK_CSUM | TNL),
			 SOFL_E_VNET_GSO_TYPE);
	assert_int_equal(sofl_vnet_from_pkt(&h, &p, 0, SOFL_VNET_F_MK_CSUM | TNL), 0);
	assert_int_equal(h.csum_start, p.l4_off);
	assert_int_equal(h.gso_type, SOFL_GSO_NONE);
}

/* ---- non-GSO NEEDS_CSUM: the one checksum the header names
 * (validate_xmit_skb -> skb_checksum_help) ---- */

/* the sum skb_checksum_help() stores: bytes [start, end) with the field as
 * it is, folded, complemented, 0 as 0xFFFF -- computed here byte by byte */
static uint16_t
ref_help(const uint8_t *b, size_t start, size_t end)
{
	uint32_t s = 0;

	for (size_t i = start; i < end; i++)
		s += (i - start) & 1 ? b[i] : (uint32_t)b[i] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	s = ~s & 0xffff;
	return (uint16_t)(s ? s : 0xffff);
}

static uint8_t seg_buf[70000 + 256];

/* sofl_vnet_to_gso + sofl_gso_segment (copy mode) of frame[0, len): the
 * output, which must be one segment of @len bytes */
static const uint8_t *
help_out(const struct sofl_vnet_hdr *h, size_t len, unsigned opts, int partial)
{
	struct sofl_gso_params gp;
	struct sofl_gso_seg seg[2];
	struct sofl_gso_out o;
	struct sofl_pkt p;

	sofl_pkt_parse(&p, frame, len, SOFL_LINK_ETH);
	memset(&gp, 0xee, sizeof(gp));
	assert_int_equal(sofl_vnet_to_gso(h, &p, opts, &gp), 0);
	assert_int_equal(gp.type, SOFL_GSO_NONE);
	assert_int_equal(gp.flags, SOFL_GSO_F_CSUM_AT);
	assert_int_equal(gp.csum_start, h->csum_start);
	assert_int_equal(gp.csum_offset, h->csum_offset);
	assert_int_equal(gp.frag_id, 0);
	if (partial)
		gp.flags |= SOFL_GSO_F_CSUM_PARTIAL;
	memset(&o, 0, sizeof(o));
	o.mode = SOFL_GSO_COPY;
	o.seg = seg;
	o.seg_cap = 2;
	o.buf = seg_buf;
	o.buf_cap = sizeof(seg_buf);
	assert_int_equal(sofl_gso_segment(&gp, &p, NULL, 0, &o), 1);
	assert_int_equal(seg[0].len, len);
	return seg[0].data;
}

/* the output equals the frame but for the 2 bytes at @at */
static void
same_but(const uint8_t *out, size_t len, size_t at)
{
	assert_memory_equal(out, frame, at);
	assert_memory_equal(out + at + 2, frame + at + 2, len - at - 2);
}

static void
test_csum_help_inner(void **state)
{
	struct tnl t;
	struct sofl_vnet_hdr h;
	(void)state;

	/* VXLAN, NEEDS_CSUM at the inner TCP checksum, not GSO: the inner
	 * checksum completed, the outer UDP one (zero or not) left alone --
	 * before, the pass-through acted on the outer packet and rewrote it */
	for (int ov = 4; ov <= 6; ov += 2)
		for (int iv = 4; iv <= 6; iv += 2)
			for (int oc = 0; oc < 2; oc++)
				for (unsigned opts = 0; opts <= TNL; opts += TNL) {
					const uint8_t *out;
					size_t at;

					mk_tnl(frame, SOFL_LINK_ETH, ov, iv, 6, 300, 0, oc, &t);
					memset(&h, 0, sizeof(h));
					h.flags = SOFL_VNET_HDR_F_NEEDS_CSUM;
					h.csum_start = t.inner_th;
					h.csum_offset = 16;
					at = t.inner_th + 16u;
					out = help_out(&h, t.len, opts, 0);
					same_but(out, t.len, at);
					assert_int_equal(sofl_get16(out + at),
							 ref_help(frame, t.inner_th, t.len));
					assert_int_not_equal(sofl_get16(out + at), sofl_get16(frame + at));
					/* partial: the device completes it; nothing changes */
					out = help_out(&h, t.len, opts, 1);
					assert_memory_equal(out, frame, t.len);
				}
	/* neighbour: no NEEDS_CSUM, not GSO: a plain pass-through, no CSUM_AT */
	{
		struct sofl_gso_params gp;
		struct sofl_pkt p;

		mk_tnl(frame, SOFL_LINK_ETH, 6, 4, 6, 300, 0, 0, &t);
		parse_ok(&p, t.len, SOFL_LINK_ETH);
		memset(&h, 0, sizeof(h));
		assert_int_equal(sofl_vnet_to_gso(&h, &p, TNL, &gp), 0);
		assert_int_equal(gp.flags, 0);
		assert_int_equal(gp.frag_id, 0);
	}
}

/* VXLAN carrying ARP (no inner IP): Ethernet type 0x0806, 28 bytes */
static size_t
mk_arp_tnl(int ov, struct tnl *t)
{
	size_t len;
	uint8_t *u;

	mk_tnl(frame, SOFL_LINK_ETH, ov, 4, 6, 0, 0, 1, t);
	put16(frame + t->inner_nh - 2, 0x0806);
	len = t->inner_nh + 28u;
	for (size_t i = 0; i < 28; i++)
		frame[t->inner_nh + i] = (uint8_t)(i * 7 + 1);
	if (ov == 4) {
		put16(frame + 14 + 2, (uint32_t)(len - 14));
		frame[14 + 10] = frame[14 + 11] = 0;
		put16(frame + 14 + 10, ip4_csum(frame + 14));
	} else {
		put16(frame + 14 + 4, (uint32_t)(len - 54));
	}
	u = frame + t->outer_th;
	put16(u + 4, (uint32_t)(len - t->outer_th));
	t->len = len;
	return len;
}

static void
test_csum_help_outer_arp(void **state)
{
	struct tnl t;
	struct sofl_vnet_hdr h;
	struct sofl_gso_params gp;
	struct sofl_pkt p;
	(void)state;

	/* NEEDS_CSUM at the outer UDP checksum of VXLAN with ARP inside, over
	 * IPv6 (csum_start 54) and IPv4 (34): accepted as Linux's
	 * __virtio_net_hdr_to_skb does (it checks only csum_start >= 20 and the
	 * field inside the frame), the outer UDP checksum completed */
	for (int ov = 4; ov <= 6; ov += 2) {
		const uint8_t *out;
		size_t len = mk_arp_tnl(ov, &t), at = t.outer_th + 6u;
		const uint8_t *ip = frame + 14;
		uint32_t ps;

		assert_int_equal(t.outer_th, ov == 4 ? 34 : 54);
		ps = ov == 4 ? sofl_csum_pseudo_v4(ip + 12, ip + 16, 17, (uint32_t)(len - t.outer_th)) :
			       sofl_csum_pseudo_v6(ip + 8, ip + 24, 17, (uint32_t)(len - t.outer_th));
		put16(frame + at, sofl_csum_fold(ps));	/* what NEEDS_CSUM carries */
		memset(&h, 0, sizeof(h));
		h.flags = SOFL_VNET_HDR_F_NEEDS_CSUM;
		h.csum_start = t.outer_th;
		h.csum_offset = 6;
		out = help_out(&h, len, 0, 0);
		same_but(out, len, at);
		assert_int_equal(sofl_get16(out + at), ref_help(frame, t.outer_th, len));
		/* and it verifies */
		assert_int_equal(sofl_csum_fold(sofl_csum_add(ps, out + t.outer_th, len - t.outer_th)),
				 0xffff);
		/* partial: unchanged */
		out = help_out(&h, len, TNL, 1);
		assert_memory_equal(out, frame, len);
		/* neighbour: the field past the frame is refused (rule 3) */
		sofl_pkt_parse(&p, frame, len, SOFL_LINK_ETH);
		h.csum_offset = (uint16_t)(len - t.outer_th - 1);
		assert_int_equal(sofl_vnet_to_gso(&h, &p, 0, &gp), SOFL_E_VNET_CSUM_OFFSET);
		h.csum_offset = (uint16_t)(len - t.outer_th - 2);	/* the last 2 bytes: fine */
		assert_int_equal(sofl_vnet_to_gso(&h, &p, 0, &gp), 0);
		/* and csum_start below 20 (an IPv4 header) is refused */
		h.csum_start = 19;
		h.csum_offset = 6;
		assert_int_equal(sofl_vnet_to_gso(&h, &p, 0, &gp), SOFL_E_VNET_CSUM_START);
	}
}

static void
test_csum_help_plain(void **state)
{
	struct sofl_vnet_hdr h;
	struct sofl_gso_params gp = { 0 };
	struct sofl_gso_seg seg[2];
	struct sofl_gso_out o;
	struct sofl_pkt p;
	struct t_spec s;
	(void)state;

	/* a plain TCP/IPv4 and UDP/IPv6 packet, NEEDS_CSUM at its L4 checksum:
	 * the same bytes as the plain pass-through gave (and Linux) */
	for (int v = 4; v <= 6; v += 2)
		for (int pr = 6; pr <= 17; pr += 11) {
			const uint8_t *out;
			size_t len;

			t_spec_init(&s, v, pr);
			s.pay_len = 333;
			s.csum = T_CSUM_PARTIAL;
			s.link = SOFL_LINK_ETH;
			len = t_build(frame, sizeof(frame), &s);
			parse_ok(&p, len, SOFL_LINK_ETH);
			memset(&h, 0, sizeof(h));
			h.flags = SOFL_VNET_HDR_F_NEEDS_CSUM;
			h.csum_start = p.l4_off;
			h.csum_offset = pr == 6 ? 16 : 6;
			out = help_out(&h, len, 0, 0);
			same_but(out, len, p.l4_off + h.csum_offset);
			assert_int_equal(sofl_get16(out + p.l4_off + h.csum_offset),
					 ref_help(frame, p.l4_off, len));
			memset(&o, 0, sizeof(o));
			o.mode = SOFL_GSO_COPY;
			o.seg = seg;
			o.seg_cap = 2;
			o.buf = seg_buf + 35000;
			o.buf_cap = 35000;
			gp.flags = 0;
			assert_int_equal(sofl_gso_segment(&gp, &p, NULL, 0, &o), 1);
			assert_memory_equal(seg[0].data, out, len);
		}
	/* an odd csum_offset: the rest summed at the other byte parity */
	t_spec_init(&s, 4, 6);
	s.pay_len = 101;
	s.link = SOFL_LINK_ETH;
	{
		size_t len = t_build(frame, sizeof(frame), &s);
		const uint8_t *out;

		parse_ok(&p, len, SOFL_LINK_ETH);
		memset(&h, 0, sizeof(h));
		h.flags = SOFL_VNET_HDR_F_NEEDS_CSUM;
		h.csum_start = p.l4_off;
		h.csum_offset = 23;
		out = help_out(&h, len, 0, 0);
		same_but(out, len, p.l4_off + 23u);
		assert_int_equal(sofl_get16(out + p.l4_off + 23), ref_help(frame, p.l4_off, len));
	}
	/* CSUM_AT with a GSO type is invalid */
	gp.type = SOFL_GSO_TCPV4;
	gp.gso_size = 50;
	gp.flags = SOFL_GSO_F_CSUM_AT;
	gp.csum_start = (uint16_t)p.l4_off;
	gp.csum_offset = 16;
	memset(&o, 0, sizeof(o));
	o.mode = SOFL_GSO_COPY;
	o.seg = seg;
	o.seg_cap = 2;
	o.buf = seg_buf;
	o.buf_cap = sizeof(seg_buf);
	assert_int_equal(sofl_gso_segment(&gp, &p, NULL, 0, &o), SOFL_E_INVAL);
	/* a field past the packet: refused by the segmenter too */
	gp.type = SOFL_GSO_NONE;
	gp.csum_offset = (uint16_t)(p.ip_end - p.l4_off - 1);
	assert_int_equal(sofl_gso_segment(&gp, &p, NULL, 0, &o), SOFL_E_GSO_HDR);
}

/* ---- a plain pass-through (SOFL_GSO_NONE) of a tunnel packet as its outer
 * packet: a zero outer UDP checksum stays 0, over IPv6 too ---- */
static void
test_outer_pass_zero(void **state)
{
	struct tnl t;
	struct sofl_gso_params gp = { 0 };
	struct sofl_gso_seg seg[2];
	struct sofl_gso_out o;
	struct sofl_pkt p;
	(void)state;

	for (int ov = 4; ov <= 6; ov += 2)
		for (int oc = 0; oc < 2; oc++) {
			size_t len = mk_arp_tnl(ov, &t), at = t.outer_th + 6u;
			const uint8_t *ip = frame + 14;

			if (!oc)
				put16(frame + at, 0);
			sofl_pkt_parse(&p, frame, len, SOFL_LINK_ETH);
			memset(&o, 0, sizeof(o));
			o.mode = SOFL_GSO_COPY;
			o.seg = seg;
			o.seg_cap = 2;
			o.buf = seg_buf;
			o.buf_cap = sizeof(seg_buf);
			/* ARP inside: the outer packet is an IP packet (was
			 * SOFL_E_NOT_IP over IPv6) */
			assert_int_equal(sofl_gso_segment(&gp, &p, NULL, 0, &o), 1);
			assert_int_equal(seg[0].len, len);
			if (!oc) {
				assert_memory_equal(seg[0].data, frame, len);	/* neighbour: 0 kept */
			} else {
				uint32_t ps = ov == 4 ?
					sofl_csum_pseudo_v4(ip + 12, ip + 16, 17, (uint32_t)(len - t.outer_th)) :
					sofl_csum_pseudo_v6(ip + 8, ip + 24, 17, (uint32_t)(len - t.outer_th));

				same_but(seg[0].data, len, at);
				assert_int_equal(sofl_csum_fold(sofl_csum_add(ps, seg[0].data + t.outer_th,
									      len - t.outer_th)), 0xffff);
			}
		}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wire_vector),
		cmocka_unit_test(test_wire_roundtrip),
		cmocka_unit_test(test_accept),
		cmocka_unit_test(test_rule_t1_feature),
		cmocka_unit_test(test_rule_t2_family),
		cmocka_unit_test(test_rule_t3_inner_type),
		cmocka_unit_test(test_rule_t4_needs_csum),
		cmocka_unit_test(test_rule_t5_offsets),
		cmocka_unit_test(test_rule_t6_plain_rules),
		cmocka_unit_test(test_rule_t7_uso_inner_v6),
		cmocka_unit_test(test_rule_t8_tunnel_csum),
		cmocka_unit_test(test_rule_c_data_valid),
		cmocka_unit_test(test_strict_flags),
		cmocka_unit_test(test_wire_type),
		cmocka_unit_test(test_to_gso),
		cmocka_unit_test(test_to_gso_fit),
		cmocka_unit_test(test_to_gso_not_udp_tunnel),
		cmocka_unit_test(test_rule4_dissect),
		cmocka_unit_test(test_from_pkt),
		cmocka_unit_test(test_from_pkt_ipip),
		cmocka_unit_test(test_csum_help_inner),
		cmocka_unit_test(test_csum_help_outer_arp),
		cmocka_unit_test(test_csum_help_plain),
		cmocka_unit_test(test_outer_pass_zero),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
