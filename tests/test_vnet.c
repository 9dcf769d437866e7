/* Description: virtio-net header: wire encode/decode (LE/native, 10/12 bytes), one case per Linux __virtio_net_hdr_to_skb rejection rule with its own code, translation to GSO parameters and from a super-packet. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "helpers.h"
#include "softoffload/vnet.h"

static uint8_t frame[70000];

static void
test_wire_vectors(void **state)
{
	static const uint8_t le[12] = { 0x01, 0x01, 0x42, 0x00, 0xa8, 0x05, 0x22, 0x00,
					0x10, 0x00, 0x01, 0x00 };
	struct sofl_vnet_hdr h = { .flags = 1, .gso_type = 1, .hdr_len = 66, .gso_size = 1448,
				   .csum_start = 34, .csum_offset = 16, .num_buffers = 1 };
	struct sofl_vnet_hdr d;
	uint8_t b[16];
	uint16_t v;
	(void)state;

	memset(b, 0xee, sizeof(b));
	assert_int_equal(sofl_vnet_encode(b, sizeof(b), &h, 12, 0), 12);
	assert_memory_equal(b, le, 12);
	assert_int_equal(b[12], 0xee);
	memset(b, 0xee, sizeof(b));
	assert_int_equal(sofl_vnet_encode(b, 10, &h, 10, 0), 10);
	assert_memory_equal(b, le, 10);
	assert_int_equal(b[10], 0xee);
	assert_int_equal(sofl_vnet_decode(&d, le, 12, 12, 0), 12);
	assert_memory_equal(&d, &h, sizeof(h));
	assert_int_equal(sofl_vnet_decode(&d, le, 12, 10, 0), 10);
	assert_int_equal(d.num_buffers, 0);
	assert_int_equal(d.gso_size, 1448);
	/* native: the host's own u16 layout */
	assert_int_equal(sofl_vnet_encode(b, sizeof(b), &h, 12, SOFL_VNET_F_NATIVE), 12);
	memcpy(&v, b + 4, 2);
	assert_int_equal(v, 1448);
	memcpy(&v, b + 6, 2);
	assert_int_equal(v, 34);
	assert_int_equal(sofl_vnet_decode(&d, b, 12, 12, SOFL_VNET_F_NATIVE), 12);
	assert_memory_equal(&d, &h, sizeof(h));
	/* sizes */
	assert_int_equal(sofl_vnet_decode(&d, le, 9, 10, 0), SOFL_E_VNET_SHORT);
	assert_int_equal(sofl_vnet_decode(&d, le, 11, 12, 0), SOFL_E_VNET_SHORT);
	assert_int_equal(sofl_vnet_decode(&d, le, 12, 11, 0), SOFL_E_INVAL);
	assert_int_equal(sofl_vnet_encode(b, 11, &h, 12, 0), SOFL_E_NOSPC);
	assert_int_equal(sofl_vnet_encode(b, 16, &h, 14, 0), SOFL_E_INVAL);
	assert_int_equal(sofl_vnet_decode(NULL, le, 12, 12, 0), SOFL_E_INVAL);
}

static void
test_wire_roundtrip(void **state)
{
	uint64_t r = 1;
	(void)state;

	for (int i = 0; i < 2000; i++) {
		uint8_t b[12], b2[12];
		struct sofl_vnet_hdr h, d;
		unsigned opts = i & 1 ? SOFL_VNET_F_NATIVE : 0;
		size_t sz = i & 2 ? 12 : 10;

		for (int k = 0; k < 12; k++)
			b[k] = (uint8_t)t_rand(&r);
		assert_int_equal(sofl_vnet_decode(&h, b, 12, sz, opts), (int)sz);
		assert_int_equal(sofl_vnet_encode(b2, 12, &h, sz, opts), (int)sz);
		assert_memory_equal(b, b2, sz);
		assert_int_equal(sofl_vnet_decode(&d, b2, sz, sz, opts), (int)sz);
		assert_memory_equal(&d, &h, sizeof(h));
		/* LE decoding is byte arithmetic, independent of the host */
		if (!(opts & SOFL_VNET_F_NATIVE))
			assert_int_equal(h.gso_size, b[4] | b[5] << 8);
	}
}

/* Fixtures: a parsed TCP/UDP v4/v6 packet and a valid header for it. */
static size_t
mk(struct sofl_pkt *p, int ipv, int proto, size_t pay, int link)
{
	struct t_spec s;
	size_t len;

	t_spec_init(&s, ipv, proto);
	s.pay_len = pay;
	s.link = link;
	s.csum = T_CSUM_PARTIAL;
	len = t_build(frame, sizeof(frame), &s);
	assert_int_equal(sofl_pkt_parse(p, frame, len, (enum sofl_link)link), 0);
	return len;
}

static struct sofl_vnet_hdr
good(const struct sofl_pkt *p, uint16_t gso)
{
	struct sofl_vnet_hdr h = { 0 };

	h.flags = SOFL_VNET_HDR_F_NEEDS_CSUM;
	h.gso_size = gso;
	h.csum_start = p->l4_off;
	h.csum_offset = p->l4_proto == 6 ? 16 : 6;
	h.hdr_len = 9999;	/* never trusted */
	if (p->l4_proto == 17)
		h.gso_type = SOFL_GSO_UDP_L4;
	else
		h.gso_type = p->ipv == 4 ? SOFL_GSO_TCPV4 : SOFL_GSO_TCPV6;
	return h;
}

static void
test_accept(void **state)
{
	struct sofl_pkt p;
	struct sofl_vnet_hdr h;
	(void)state;

	for (int v = 4; v <= 6; v += 2)
		for (int pr = 6; pr <= 17; pr += 11)
			for (int link = 0; link < 2; link++) {
				mk(&p, v, pr, 3000, link);
				h = good(&p, 1000);
				assert_int_equal(sofl_vnet_check(&h, &p, SOFL_VNET_F_STRICT), 1);
				h.gso_size = 3000;	/* fits one segment: not GSO */
				assert_int_equal(sofl_vnet_check(&h, &p, 0), 0);
				h.gso_size = 1000;
				h.flags = 0;		/* GSO without NEEDS_CSUM: dissected */
				if (pr == 6)
					assert_int_equal(sofl_vnet_check(&h, &p, 0), 1);
				h = (struct sofl_vnet_hdr){ 0 };
				assert_int_equal(sofl_vnet_check(&h, &p, 0), 0);
			}
	/* UFO on either IP version, with or without NEEDS_CSUM */
	mk(&p, 6, 17, 3000, 0);
	h = (struct sofl_vnet_hdr){ .gso_type = SOFL_GSO_UFO, .gso_size = 1280 };
	assert_int_equal(sofl_vnet_check(&h, &p, 0), 1);
	/* TCP ECN is fine */
	mk(&p, 4, 6, 3000, 0);
	h = good(&p, 1000);
	h.gso_type |= SOFL_GSO_ECN;
	assert_int_equal(sofl_vnet_check(&h, &p, 0), 1);
	/* non-GSO NEEDS_CSUM anywhere >= 20 bytes in the frame */
	h = (struct sofl_vnet_hdr){ .flags = SOFL_VNET_HDR_F_NEEDS_CSUM, .csum_start = 20,
				    .csum_offset = 0 };
	assert_int_equal(sofl_vnet_check(&h, &p, 0), 0);
}

#define REJECT(h, p, code) assert_int_equal(sofl_vnet_check(&(h), &(p), 0), (code))

static void
test_rule1_gso_type(void **state)
{
	struct sofl_pkt p;
	struct sofl_vnet_hdr h;
	static const uint8_t bad[] = { 2, 6, 7, 0x80, 0x82, 0x11 };
	static const uint8_t tnl[] = { 0x20, 0x40, 0x7f, 0x21, 0x45 };
	(void)state;

	mk(&p, 4, 6, 3000, 0);
	for (size_t i = 0; i < sizeof(bad); i++) {
		h = good(&p, 1000);
		h.gso_type = bad[i];
		REJECT(h, p, SOFL_E_VNET_GSO_TYPE);
	}
	/* UDP-tunnel bits without the negotiated feature (virtio_net_hdr_tnl_to_skb) */
	for (size_t i = 0; i < sizeof(tnl); i++) {
		h = good(&p, 1000);
		h.gso_type = tnl[i];
		REJECT(h, p, SOFL_E_VNET_TNL_FEATURE);
	}
}

static void
test_rule2_gso_size_zero(void **state)
{
	struct sofl_pkt p;
	struct sofl_vnet_hdr h;
	(void)state;

	mk(&p, 4, 6, 3000, 0);
	h = good(&p, 0);
	REJECT(h, p, SOFL_E_VNET_GSO_SIZE);
	mk(&p, 6, 17, 3000, 0);
	h = good(&p, 0);
	REJECT(h, p, SOFL_E_VNET_GSO_SIZE);
}

static void
test_rule3_needs_csum(void **state)
{
	struct sofl_pkt p;
	struct sofl_vnet_hdr h;
	size_t len;
	(void)state;

	len = mk(&p, 4, 6, 100, 0);
	/* TCP header would run past the end */
	h = good(&p, 50);
	h.csum_start = (uint16_t)(len - 19);
	REJECT(h, p, SOFL_E_VNET_L4_TRUNC);
	h.csum_start = (uint16_t)(len - 20);	/* just fits */
	h.csum_offset = 16;
	assert_true(sofl_vnet_check(&h, &p, 0) >= 0);
	/* checksum field past the end */
	h = good(&p, 50);
	h.csum_offset = (uint16_t)(len - p.l4_off - 1);
	REJECT(h, p, SOFL_E_VNET_CSUM_OFFSET);
	h = (struct sofl_vnet_hdr){ .flags = SOFL_VNET_HDR_F_NEEDS_CSUM,
				    .csum_start = (uint16_t)(len - 1) };
	REJECT(h, p, SOFL_E_VNET_CSUM_OFFSET);
	/* before the minimal network header: 20, or 40 for TCPV6 */
	h = (struct sofl_vnet_hdr){ .flags = SOFL_VNET_HDR_F_NEEDS_CSUM, .csum_start = 19 };
	REJECT(h, p, SOFL_E_VNET_CSUM_START);
	mk(&p, 6, 6, 100, SOFL_LINK_RAW);
	h = good(&p, 50);
	h.csum_start = 39;
	REJECT(h, p, SOFL_E_VNET_CSUM_START);
	h.csum_start = 40;
	assert_int_equal(sofl_vnet_check(&h, &p, 0), 1);
}

static void
test_rule4_dissect(void **state)
{
	struct sofl_pkt p;
	struct sofl_vnet_hdr h;
	struct t_spec s;
	size_t len;
	(void)state;

	/* ethertype / IP version does not match the type */
	mk(&p, 6, 6, 3000, 0);
	h = good(&p, 1000);
	h.flags = 0;
	h.gso_type = SOFL_GSO_TCPV4;
	REJECT(h, p, SOFL_E_VNET_PROTO);
	mk(&p, 4, 6, 3000, SOFL_LINK_RAW);
	h.gso_type = SOFL_GSO_TCPV6;
	REJECT(h, p, SOFL_E_VNET_PROTO);
	/* L4 protocol not the one implied */
	mk(&p, 4, 17, 3000, 0);
	h.gso_type = SOFL_GSO_TCPV4;
	REJECT(h, p, SOFL_E_VNET_PROTO);
	mk(&p, 4, 6, 3000, 0);
	h.gso_type = SOFL_GSO_UFO;
	REJECT(h, p, SOFL_E_VNET_PROTO);
	/* not IP at all */
	t_spec_init(&s, 4, 6);
	len = t_build_arp(frame, sizeof(frame), &s);
	assert_int_equal(sofl_pkt_parse(&p, frame, len, SOFL_LINK_ETH), 0);
	h.gso_type = SOFL_GSO_TCPV4;
	REJECT(h, p, SOFL_E_VNET_PROTO);
	/* TCP header cut short: IP says 30 bytes (20 + 10 of TCP) */
	t_spec_init(&s, 4, 6);
	len = t_build(frame, sizeof(frame), &s);
	sofl_put16(frame + 14 + 2, 30);
	assert_int_equal(sofl_pkt_parse(&p, frame, 14 + 30, SOFL_LINK_ETH), SOFL_E_TCP_TRUNC);
	REJECT(h, p, SOFL_E_VNET_L4_TRUNC);
	(void)len;
}

static void
test_rule5_udp_l4(void **state)
{
	struct sofl_pkt p;
	struct sofl_vnet_hdr h;
	(void)state;

	mk(&p, 4, 17, 3000, 0);
	h = good(&p, 1000);
	h.flags = 0;
	REJECT(h, p, SOFL_E_VNET_NO_CSUM);
	h = good(&p, 1000);
	h.csum_offset = 16;
	REJECT(h, p, SOFL_E_VNET_CSUM_OFFSET);
	h = good(&p, 1000);
	h.gso_type |= SOFL_GSO_ECN;
	REJECT(h, p, SOFL_E_VNET_ECN);
	/* 128 segments are fine, 129 are not */
	mk(&p, 6, 17, 128 * 10, 0);
	h = good(&p, 10);
	assert_int_equal(sofl_vnet_check(&h, &p, 0), 1);
	mk(&p, 6, 17, 128 * 10 + 1, 0);
	h = good(&p, 10);
	REJECT(h, p, SOFL_E_VNET_TOO_MANY);
}

static void
test_rule6_tcp_offset(void **state)
{
	struct sofl_pkt p;
	struct sofl_vnet_hdr h;
	(void)state;

	for (int v = 4; v <= 6; v += 2) {
		mk(&p, v, 6, 3000, 0);
		h = good(&p, 1000);
		h.csum_offset = 6;
		REJECT(h, p, SOFL_E_VNET_CSUM_OFFSET);
	}
}

static void
test_rule7_by_frags(void **state)
{
	struct sofl_pkt p;
	struct sofl_vnet_hdr h;
	(void)state;

	mk(&p, 4, 6, 3000, 0);
	h = good(&p, 0xFFFF);
	REJECT(h, p, SOFL_E_VNET_GSO_SIZE);
}

static void
test_strict_flags(void **state)
{
	struct sofl_pkt p;
	struct sofl_vnet_hdr h;
	(void)state;

	mk(&p, 4, 6, 3000, 0);
	h = good(&p, 1000);
	h.flags |= 0x10;
	assert_int_equal(sofl_vnet_check(&h, &p, 0), 1);		/* the kernel ignores it */
	assert_int_equal(sofl_vnet_check(&h, &p, SOFL_VNET_F_STRICT), SOFL_E_VNET_FLAGS);
	assert_int_equal(sofl_vnet_check(NULL, &p, 0), SOFL_E_INVAL);
}

static void
test_to_gso(void **state)
{
	struct sofl_pkt p;
	struct sofl_vnet_hdr h;
	struct sofl_gso_params gp;
	(void)state;

	mk(&p, 4, 6, 3000, 0);
	h = good(&p, 1000);
	h.gso_type |= SOFL_GSO_ECN;
	assert_int_equal(sofl_vnet_to_gso(&h, &p, 0, &gp), 1);
	assert_int_equal(gp.type, SOFL_GSO_TCPV4);
	assert_int_equal(gp.gso_size, 1000);
	assert_int_equal(gp.flags, 0);		/* ECN: CWR on the first segment only */
	h.csum_start = (uint16_t)(p.l4_off + 2);	/* valid for the kernel's rule 3 ... */
	assert_int_equal(sofl_vnet_check(&h, &p, 0), 1);
	/* ... but not where tcp_gso_segment wants it */
	memset(&gp, 0x5a, sizeof(gp));
	assert_int_equal(sofl_vnet_to_gso(&h, &p, 0, &gp), SOFL_E_VNET_CSUM_START);
	assert_int_equal(gp.type, 0x5a);	/* untouched */
	h = good(&p, 3000);
	assert_int_equal(sofl_vnet_to_gso(&h, &p, 0, &gp), 0);
	assert_int_equal(gp.type, SOFL_GSO_NONE);
	mk(&p, 6, 17, 3000, 0);
	h = good(&p, 1200);
	assert_int_equal(sofl_vnet_to_gso(&h, &p, 0, &gp), 1);
	assert_int_equal(gp.type, SOFL_GSO_UDP_L4);
	h = (struct sofl_vnet_hdr){ .gso_type = SOFL_GSO_UFO, .gso_size = 1232 };
	assert_int_equal(sofl_vnet_to_gso(&h, &p, 0, &gp), 1);
	assert_int_equal(gp.type, SOFL_GSO_UFO);
	assert_int_equal(gp.flags, SOFL_GSO_F_IGNORE_DF);
	assert_int_equal(gp.gso_size, 1232);
	h = good(&p, 0);
	assert_int_equal(sofl_vnet_to_gso(&h, &p, 0, &gp), SOFL_E_VNET_GSO_SIZE);
}

/* Header -> params -> segments equals direct segmentation. */
static void
test_vnet_to_segments(void **state)
{
	static const uint8_t wire[10] = { 1, 4, 0, 0, 0xb0, 0x04, 54, 0, 16, 0 };	/* TCPV6, 1200 */
	struct sofl_pkt p;
	struct sofl_vnet_hdr h;
	struct sofl_gso_params gp, direct = { .type = SOFL_GSO_TCPV6, .gso_size = 1200 };
	struct sofl_gso_seg s1[8], s2[8];
	static uint8_t b1[20000], b2[20000];
	struct sofl_gso_out o1 = { .mode = SOFL_GSO_COPY, .seg = s1, .seg_cap = 8, .buf = b1,
				   .buf_cap = sizeof(b1) };
	struct sofl_gso_out o2 = o1;
	int n;
	(void)state;

	o2.seg = s2;
	o2.buf = b2;
	mk(&p, 6, 6, 6000, 0);
	assert_int_equal(sofl_vnet_decode(&h, wire, sizeof(wire), 10, 0), 10);
	assert_int_equal(sofl_vnet_to_gso(&h, &p, 0, &gp), 1);
	n = sofl_gso_segment(&gp, &p, NULL, 0, &o1);
	assert_int_equal(n, 5);
	assert_int_equal(sofl_gso_segment(&direct, &p, NULL, 0, &o2), 5);
	for (int i = 0; i < n; i++) {
		assert_int_equal(s1[i].len, s2[i].len);
		assert_memory_equal(s1[i].data, s2[i].data, s1[i].len);
	}
}

static void
test_from_pkt(void **state)
{
	struct sofl_pkt p;
	struct sofl_vnet_hdr h;
	struct sofl_gso_params gp;
	struct t_spec s;
	size_t len;
	(void)state;

	mk(&p, 4, 6, 2896, 0);
	assert_int_equal(sofl_vnet_from_pkt(&h, &p, 1448, SOFL_VNET_F_MK_CSUM | SOFL_VNET_F_MK_ECN), 0);
	assert_int_equal(h.flags, SOFL_VNET_HDR_F_NEEDS_CSUM);
	assert_int_equal(h.gso_type, SOFL_GSO_TCPV4 | SOFL_GSO_ECN);
	assert_int_equal(h.gso_size, 1448);
	assert_int_equal(h.hdr_len, 54);
	assert_int_equal(h.csum_start, 34);
	assert_int_equal(h.csum_offset, 16);
	assert_int_equal(sofl_vnet_to_gso(&h, &p, 0, &gp), 1);
	mk(&p, 6, 6, 2896, SOFL_LINK_RAW);
	assert_int_equal(sofl_vnet_from_pkt(&h, &p, 1448, SOFL_VNET_F_MK_CSUM), 0);
	assert_int_equal(h.gso_type, SOFL_GSO_TCPV6);
	assert_int_equal(h.csum_start, 40);
	mk(&p, 6, 17, 2896, 0);
	assert_int_equal(sofl_vnet_from_pkt(&h, &p, 1448, SOFL_VNET_F_MK_CSUM | SOFL_VNET_F_MK_ECN), 0);
	assert_int_equal(h.gso_type, SOFL_GSO_UDP_L4);	/* no ECN for UDP */
	assert_int_equal(h.csum_offset, 6);
	/* a single segment: no GSO */
	mk(&p, 4, 6, 1448, 0);
	assert_int_equal(sofl_vnet_from_pkt(&h, &p, 1448, SOFL_VNET_F_MK_VALID), 0);
	assert_int_equal(h.gso_type, SOFL_GSO_NONE);
	assert_int_equal(h.gso_size, 0);
	assert_int_equal(h.flags, SOFL_VNET_HDR_F_DATA_VALID);
	/* UDP_L4 without NEEDS_CSUM would be refused by the kernel: so by us */
	mk(&p, 4, 17, 2896, 0);
	assert_int_equal(sofl_vnet_from_pkt(&h, &p, 1448, 0), SOFL_E_VNET_NO_CSUM);
	/* not TCP/UDP */
	t_spec_init(&s, 4, 6);
	len = t_build_arp(frame, sizeof(frame), &s);
	sofl_pkt_parse(&p, frame, len, SOFL_LINK_ETH);
	assert_int_equal(sofl_vnet_from_pkt(&h, &p, 0, SOFL_VNET_F_MK_CSUM), SOFL_E_NOT_IP);
	assert_int_equal(sofl_vnet_from_pkt(&h, &p, 0, 0), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wire_vectors),
		cmocka_unit_test(test_wire_roundtrip),
		cmocka_unit_test(test_accept),
		cmocka_unit_test(test_rule1_gso_type),
		cmocka_unit_test(test_rule2_gso_size_zero),
		cmocka_unit_test(test_rule3_needs_csum),
		cmocka_unit_test(test_rule4_dissect),
		cmocka_unit_test(test_rule5_udp_l4),
		cmocka_unit_test(test_rule6_tcp_offset),
		cmocka_unit_test(test_rule7_by_frags),
		cmocka_unit_test(test_strict_flags),
		cmocka_unit_test(test_to_gso),
		cmocka_unit_test(test_vnet_to_segments),
		cmocka_unit_test(test_from_pkt),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
