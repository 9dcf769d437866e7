/* Description: the packet checksum calls — sofl_csum_pkt_check's classes (valid, bad, partial, absent, none) with the UDP/TCP zero rules and peers' bugs (DPDK/VPP) as cases, Ethernet padding, IPv4 options under VLANs, IPv6 extension headers, a total length below the header, sofl_csum_pkt_fill and sofl_csum_complete_partial. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "helpers.h"

#define FRAME 2048

/* ones'-complement sum of two 16-bit words */
static uint16_t
add16(uint16_t a, uint16_t b)
{
	uint32_t s = (uint32_t)a + b;

	return (uint16_t)(s + (s >> 16));
}

static size_t
build(uint8_t *b, struct t_spec *s, struct sofl_pkt *p)
{
	size_t len = t_build(b, FRAME, s);
	int err = sofl_pkt_parse(p, b, len, s->link);

	assert_int_equal(err, 0);
	return len;
}

static unsigned
check_off(int proto)
{
	return proto == 6 ? 16 : 6;
}

/* Makes the packet's computed L4 checksum 0 by adjusting its first payload
 * word, then stores @field as its checksum.  Needs pay_len >= 2. */
static void
force_zero_csum(uint8_t *b, const struct sofl_pkt *p, uint16_t field)
{
	uint8_t *w = b + p->pay_off;
	uint16_t c = (uint16_t)sofl_csum_pkt_l4(p);

	if (p->l4_proto == 17 && c == 0xffff)
		c = 0;		/* already a computed 0 */
	sofl_put16(w, add16(sofl_get16(w), c));
	sofl_put16(b + p->l4_off + check_off(p->l4_proto), field);
}

/* RFC 768 / RFC 8200 §8.1 / DPDK d5df2ae042: UDP maps a computed 0 to 0xFFFF,
 * TCP never does; a zero UDP checksum is "none" over IPv4, invalid over IPv6. */
static void
test_zero_rules(void **state)
{
	int ipv, proto;
	(void)state;

	for (ipv = 4; ipv <= 6; ipv += 2)
		for (proto = 6; proto <= 17; proto += 11) {
			uint8_t b[FRAME];
			struct t_spec s;
			struct sofl_pkt p;
			enum sofl_csum_state ip, l4;

			t_spec_init(&s, ipv, proto);
			s.pay_len = 33;
			build(b, &s, &p);
			force_zero_csum(b, &p, 0);
			if (proto == 6) {
				assert_int_equal(sofl_csum_pkt_l4(&p), 0x0000);
				sofl_csum_pkt_check(&p, &ip, &l4);
				assert_int_equal(l4, SOFL_CSUM_VALID);
				/* 0xFFFF verifies too (-0 == +0): both are accepted */
				sofl_put16(b + p.l4_off + 16, 0xffff);
				sofl_csum_pkt_check(&p, NULL, &l4);
				assert_int_equal(l4, SOFL_CSUM_VALID);
				/* fill writes the computed 0, not 0xFFFF */
				assert_int_equal(sofl_csum_pkt_fill(b, &p, 0), 0);
				assert_int_equal(sofl_get16(b + p.l4_off + 16), 0x0000);
			} else {
				assert_int_equal(sofl_csum_pkt_l4(&p), 0xffff);
				sofl_csum_pkt_check(&p, &ip, &l4);
				assert_int_equal(l4, ipv == 4 ? SOFL_CSUM_ABSENT : SOFL_CSUM_BAD);
				assert_int_equal(sofl_csum_pkt_fill(b, &p, 1), 0);
				assert_int_equal(sofl_get16(b + p.l4_off + 6), 0xffff);
				sofl_csum_pkt_check(&p, &ip, &l4);
				assert_int_equal(l4, SOFL_CSUM_VALID);
			}
		}
}

static void
test_check_classes(void **state)
{
	int ipv, proto;
	(void)state;

	for (ipv = 4; ipv <= 6; ipv += 2)
		for (proto = 6; proto <= 17; proto += 11) {
			uint8_t b[FRAME];
			struct t_spec s;
			struct sofl_pkt p;
			enum sofl_csum_state ip, l4;
			enum sofl_csum_state ipv_ok = ipv == 4 ? SOFL_CSUM_VALID : SOFL_CSUM_NONE;

			t_spec_init(&s, ipv, proto);
			s.pay_len = 200;
			build(b, &s, &p);
			sofl_csum_pkt_check(&p, &ip, &l4);
			assert_int_equal(ip, ipv_ok);
			assert_int_equal(l4, SOFL_CSUM_VALID);
			assert_int_equal(sofl_csum_pkt_l4(&p), sofl_get16(b + p.l4_off + check_off(proto)));

			b[p.pay_off + 77] ^= 0x10;	/* payload corrupted */
			sofl_csum_pkt_check(&p, &ip, &l4);
			assert_int_equal(ip, ipv_ok);
			assert_int_equal(l4, SOFL_CSUM_BAD);

			s.csum = T_CSUM_PARTIAL;	/* CHECKSUM_PARTIAL / NEEDS_CSUM */
			build(b, &s, &p);
			sofl_csum_pkt_check(&p, NULL, &l4);
			assert_int_equal(l4, SOFL_CSUM_PARTIAL);
			assert_int_equal(sofl_get16(b + p.l4_off + check_off(proto)), sofl_csum_pkt_pseudo(&p));

			s.csum = T_CSUM_FULL;
			s.udp_zero_csum = 1;		/* UDP zero: ABSENT (v4) / BAD (v6) */
			build(b, &s, &p);
			sofl_csum_pkt_check(&p, &ip, &l4);
			if (proto == 17)
				assert_int_equal(l4, ipv == 4 ? SOFL_CSUM_ABSENT : SOFL_CSUM_BAD);
			else
				assert_int_equal(l4, SOFL_CSUM_VALID);

			if (ipv == 4) {			/* IPv4 header corrupted */
				s.udp_zero_csum = 0;
				build(b, &s, &p);
				b[p.l3_off + 8]--;	/* TTL */
				sofl_csum_pkt_check(&p, &ip, &l4);
				assert_int_equal(ip, SOFL_CSUM_BAD);
				assert_int_equal(l4, SOFL_CSUM_VALID);
			}
		}
}

static void
test_check_none(void **state)
{
	uint8_t b[FRAME];
	struct t_spec s;
	struct sofl_pkt p;
	enum sofl_csum_state ip, l4;
	size_t len;
	(void)state;

	/* IPv4 fragment: header checked, L4 not */
	t_spec_init(&s, 4, 17);
	s.pay_len = 100;
	s.df = 0;
	s.frag = 0x2000;	/* MF */
	build(b, &s, &p);
	sofl_csum_pkt_check(&p, &ip, &l4);
	assert_int_equal(ip, SOFL_CSUM_VALID);
	assert_int_equal(l4, SOFL_CSUM_NONE);
	assert_int_equal(sofl_csum_pkt_l4(&p), SOFL_E_FRAGMENT);
	assert_int_equal(sofl_csum_pkt_pseudo(&p), SOFL_E_FRAGMENT);

	/* IPv6 fragment header */
	t_spec_init(&s, 6, 6);
	s.pay_len = 100;
	s.n_ext = 1;
	s.ext[0].type = 44;
	s.ext[0].frag_mf = 1;
	build(b, &s, &p);
	sofl_csum_pkt_check(&p, &ip, &l4);
	assert_int_equal(ip, SOFL_CSUM_NONE);
	assert_int_equal(l4, SOFL_CSUM_NONE);
	assert_int_equal(sofl_csum_pkt_l4(&p), SOFL_E_FRAGMENT);

	/* not TCP/UDP (ICMP) */
	t_spec_init(&s, 4, 1);
	s.pay_len = 16;
	build(b, &s, &p);
	sofl_csum_pkt_check(&p, &ip, &l4);
	assert_int_equal(ip, SOFL_CSUM_VALID);
	assert_int_equal(l4, SOFL_CSUM_NONE);
	assert_int_equal(sofl_csum_pkt_l4(&p), SOFL_E_NOT_TCPUDP);

	/* not IP (ARP) */
	t_spec_init(&s, 4, 6);
	len = t_build_arp(b, sizeof(b), &s);
	assert_int_equal(sofl_pkt_parse(&p, b, len, SOFL_LINK_ETH), 0);
	sofl_csum_pkt_check(&p, &ip, &l4);
	assert_int_equal(ip, SOFL_CSUM_NONE);
	assert_int_equal(l4, SOFL_CSUM_NONE);
	assert_int_equal(sofl_csum_pkt_l4(&p), SOFL_E_NOT_TCPUDP);
	assert_int_equal(sofl_csum_pkt_fill(b, &p, 1), 0);
}

/* DPDK e55ea3d5d9 / VPP 86490da4ce4: the L4 length comes from the IP header;
 * non-zero Ethernet padding (60-byte minimum frames) is not summed. */
static void
test_eth_padding(void **state)
{
	int ipv, proto;
	(void)state;

	for (ipv = 4; ipv <= 6; ipv += 2)
		for (proto = 6; proto <= 17; proto += 11) {
			uint8_t b[FRAME], ref[FRAME];
			struct t_spec s;
			struct sofl_pkt p;
			enum sofl_csum_state ip, l4;
			size_t len, i;

			t_spec_init(&s, ipv, proto);
			s.pay_len = 2;
			s.eth_pad = 22;
			len = build(b, &s, &p);
			for (i = p.ip_end; i < len; i++)
				b[i] = (uint8_t)(0xa5 + i);	/* junk, not zeros */
			memcpy(ref, b, len);
			sofl_csum_pkt_check(&p, &ip, &l4);
			assert_int_equal(l4, SOFL_CSUM_VALID);
			assert_int_equal(sofl_csum_pkt_l4(&p), sofl_get16(b + p.l4_off + check_off(proto)));
			assert_int_equal(sofl_csum_pkt_fill(b, &p, 1), 0);
			assert_memory_equal(b, ref, len);
			/* complete_partial over the IP packet only */
			sofl_put16(b + p.l4_off + check_off(proto), (uint16_t)sofl_csum_pkt_pseudo(&p));
			assert_int_equal(sofl_csum_complete_partial(b, p.ip_end, p.l4_off,
								    check_off(proto)), 0);
			assert_memory_equal(b, ref, len);
		}
}

/* DPDK 8743d499a5: total length below the IHL must not checksum ~4 GB. */
static void
test_totlen_below_ihl(void **state)
{
	uint8_t *b = malloc(64), ref[64];
	struct t_spec s;
	struct sofl_pkt p;
	enum sofl_csum_state ip = SOFL_CSUM_VALID, l4 = SOFL_CSUM_VALID;
	size_t len;
	(void)state;

	t_spec_init(&s, 4, 6);
	s.l3_len_delta = (uint16_t)-30;		/* tot_len 10 < IHL 20 */
	len = t_build(b, 64, &s);
	memcpy(ref, b, len);
	assert_int_equal(sofl_pkt_parse(&p, b, len, SOFL_LINK_ETH), SOFL_E_IPV4_TOTLEN_SHORT);
	sofl_csum_pkt_check(&p, &ip, &l4);
	assert_int_equal(ip, SOFL_CSUM_NONE);
	assert_int_equal(l4, SOFL_CSUM_NONE);
	assert_true(sofl_csum_pkt_l4(&p) < 0);
	assert_true(sofl_csum_pkt_pseudo(&p) < 0);
	assert_int_equal(sofl_csum_pkt_fill(b, &p, 1), 0);
	assert_memory_equal(b, ref, len);
	free(b);
}

/* DPDK ac0ad5eff8: IPv4 options move the L4 header; VLAN tags the L3 one. */
static void
test_ipv4_options_vlan(void **state)
{
	static const uint8_t opts[40] = { 0x94, 0x04, 0x00, 0x00, 0x01, 0x01, 0x01, 0x00 };
	size_t ol;
	(void)state;

	for (ol = 4; ol <= 40; ol += 4) {
		uint8_t b[FRAME];
		struct t_spec s;
		struct sofl_pkt p;
		enum sofl_csum_state ip, l4;
		uint16_t c;

		t_spec_init(&s, 4, ol & 4 ? 6 : 17);
		s.ip_opts = opts;
		s.ip_opts_len = ol;
		s.nvlan = (int)(ol / 4 % 3);
		s.vlan_tci[0] = 100;
		s.vlan_tci[1] = 200;
		s.pay_len = 64 + ol;
		build(b, &s, &p);
		assert_int_equal(p.l3_len, 20 + ol);
		sofl_csum_pkt_check(&p, &ip, &l4);
		assert_int_equal(ip, SOFL_CSUM_VALID);
		assert_int_equal(l4, SOFL_CSUM_VALID);
		c = sofl_get16(b + p.l4_off + check_off(p.l4_proto));
		sofl_put16(b + p.l4_off + check_off(p.l4_proto), 0);
		sofl_put16(b + p.l3_off + 10, 0);
		assert_int_equal(sofl_csum_pkt_fill(b, &p, 1), 0);
		assert_int_equal(sofl_get16(b + p.l4_off + check_off(p.l4_proto)), c);
		assert_true(sofl_csum_ipv4_hdr_ok(b + p.l3_off, p.l3_len));
	}
}

/* RFC 8200 §8.1: the pseudo-header carries the upper-layer protocol and the
 * upper-layer length (payload length minus extension headers). */
static void
test_ipv6_exthdr(void **state)
{
	static const uint8_t chain[3] = { 0, 60, 43 };
	int n, proto;
	(void)state;

	for (n = 1; n <= 3; n++)
		for (proto = 6; proto <= 17; proto += 11) {
			uint8_t b[FRAME];
			struct t_spec s;
			struct sofl_pkt p;
			enum sofl_csum_state ip, l4;
			uint32_t ulen, ps;
			int i;

			t_spec_init(&s, 6, proto);
			s.pay_len = 301;
			s.n_ext = n;
			for (i = 0; i < n; i++) {
				s.ext[i].type = chain[i];
				s.ext[i].len = (uint8_t)(8 * (i + 1));
				s.ext[i].fill = 0x5a;
			}
			build(b, &s, &p);
			assert_int_equal(p.l4_proto, proto);
			ulen = p.ip_end - p.l4_off;
			assert_int_equal(ulen, (proto == 6 ? 20 : 8) + 301);
			ps = sofl_csum_pseudo_v6(b + p.l3_off + 8, b + p.l3_off + 24, (uint8_t)proto, ulen);
			assert_int_equal(sofl_csum_pkt_pseudo(&p), sofl_csum_fold(ps));
			assert_int_equal(sofl_csum_fold(sofl_csum_add(ps, b + p.l4_off, ulen)), 0xffff);
			sofl_csum_pkt_check(&p, &ip, &l4);
			assert_int_equal(ip, SOFL_CSUM_NONE);
			assert_int_equal(l4, SOFL_CSUM_VALID);
			/* the first next header (0, 60) or the IPv6 payload length would be wrong */
			assert_int_not_equal(sofl_csum_pkt_pseudo(&p),
					     sofl_csum_fold(sofl_csum_pseudo_v6(b + p.l3_off + 8,
										b + p.l3_off + 24, chain[0], ulen)));
			assert_int_not_equal(sofl_csum_pkt_pseudo(&p),
					     sofl_csum_fold(sofl_csum_pseudo_v6(b + p.l3_off + 8,
										b + p.l3_off + 24, (uint8_t)proto,
										sofl_get16(b + p.l3_off + 4))));
		}
}

static void
test_fill(void **state)
{
	int ipv, proto, link;
	(void)state;

	for (link = SOFL_LINK_ETH; link <= SOFL_LINK_RAW; link++)
		for (ipv = 4; ipv <= 6; ipv += 2)
			for (proto = 6; proto <= 17; proto += 11) {
				uint8_t b[FRAME], ref[FRAME];
				struct t_spec s;
				struct sofl_pkt p, q;
				size_t len;

				t_spec_init(&s, ipv, proto);
				s.link = link;
				s.pay_len = 999;
				len = build(ref, &s, &q);
				s.csum = T_CSUM_ZERO;
				build(b, &s, &p);
				if (ipv == 4)
					sofl_put16(b + p.l3_off + 10, 0x1234);
				assert_int_equal(sofl_csum_pkt_fill(b, &p, 1), 0);
				assert_memory_equal(b, ref, len);
				/* IPv4 UDP with 0 stays "no checksum" unless asked */
				s.csum = T_CSUM_FULL;
				s.udp_zero_csum = 1;
				build(b, &s, &p);
				assert_int_equal(sofl_csum_pkt_fill(b, &p, 0), 0);
				if (ipv == 4 && proto == 17)
					assert_int_equal(sofl_get16(b + p.l4_off + 6), 0);
				else
					assert_memory_equal(b, ref, len);
				/* a frame other than the parsed one is refused */
				assert_int_equal(sofl_csum_pkt_fill(ref, &p, 0), SOFL_E_INVAL);
				assert_int_equal(sofl_csum_pkt_fill(NULL, &p, 0), SOFL_E_INVAL);
			}
}

static void
test_complete_partial(void **state)
{
	int ipv, proto;
	(void)state;

	for (ipv = 4; ipv <= 6; ipv += 2)
		for (proto = 6; proto <= 17; proto += 11) {
			uint8_t b[FRAME], ref[FRAME];
			struct t_spec s;
			struct sofl_pkt p;
			size_t len, co = check_off(proto);
			enum sofl_csum_state l4;

			t_spec_init(&s, ipv, proto);
			s.pay_len = 1001;
			len = build(ref, &s, &p);
			s.csum = T_CSUM_PARTIAL;
			build(b, &s, &p);
			assert_int_equal(sofl_csum_complete_partial(b, len, p.l4_off, co), 0);
			assert_memory_equal(b, ref, len);

			/* out of range: refused, frame untouched */
			memcpy(ref, b, len);
			assert_int_equal(sofl_csum_complete_partial(b, len, len + 1, 0), SOFL_E_INVAL);
			assert_int_equal(sofl_csum_complete_partial(b, len, p.l4_off, len), SOFL_E_INVAL);
			assert_int_equal(sofl_csum_complete_partial(b, len, len - 1, 0), SOFL_E_INVAL);
			assert_int_equal(sofl_csum_complete_partial(b, len, (size_t)-1, 2), SOFL_E_INVAL);
			assert_int_equal(sofl_csum_complete_partial(b, len, 2, (size_t)-1), SOFL_E_INVAL);
			assert_int_equal(sofl_csum_complete_partial(b, len, p.l4_off, len - p.l4_off - 1),
					 SOFL_E_INVAL);
			assert_int_equal(sofl_csum_complete_partial(NULL, len, 0, 0), SOFL_E_INVAL);
			assert_memory_equal(b, ref, len);
			/* the last two bytes are a valid field position */
			assert_int_equal(sofl_csum_complete_partial(b, len, p.l4_off, len - p.l4_off - 2), 0);

			/* a result of 0 is stored as 0xFFFF (skb_checksum_help) */
			s.csum = T_CSUM_FULL;
			build(b, &s, &p);
			force_zero_csum(b, &p, (uint16_t)sofl_csum_pkt_pseudo(&p));
			assert_int_equal(sofl_csum_complete_partial(b, len, p.l4_off, co), 0);
			assert_int_equal(sofl_get16(b + p.l4_off + co), 0xffff);
			sofl_csum_pkt_check(&p, NULL, &l4);
			assert_int_equal(l4, SOFL_CSUM_VALID);

			/* a NIC-style TSO seed (L4 length 0) gives a bad
			 * checksum once completed; the virtio seed needs the length */
			build(b, &s, &p);
			sofl_put16(b + p.l4_off + co, sofl_csum_fold(ipv == 4 ?
				sofl_csum_pseudo_v4(p.key.src, p.key.dst, (uint8_t)proto, 0) :
				sofl_csum_pseudo_v6(p.key.src, p.key.dst, (uint8_t)proto, 0)));
			assert_int_equal(sofl_csum_complete_partial(b, len, p.l4_off, co), 0);
			sofl_csum_pkt_check(&p, NULL, &l4);
			assert_int_equal(l4, SOFL_CSUM_BAD);
		}
}

/* ---- the kernels ---- */

/* All lengths 0..4096 at all alignments 0..63: sum and fused copy.  The
 * reference is carried along incrementally, one byte per length. */

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zero_rules),
		cmocka_unit_test(test_check_classes),
		cmocka_unit_test(test_check_none),
		cmocka_unit_test(test_eth_padding),
		cmocka_unit_test(test_totlen_below_ihl),
		cmocka_unit_test(test_ipv4_options_vlan),
		cmocka_unit_test(test_ipv6_exthdr),
		cmocka_unit_test(test_fill),
		cmocka_unit_test(test_complete_partial),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
