/* Description: the checksums of tunnel packets (VXLAN, Geneve with options and with an IP payload, IP-in-IP, outer and inner IPv4/IPv6, inner TCP/UDP): sofl_csum_pkt_check() on the inner headers and sofl_csum_pkt_check_outer() on the outer ones (valid, bad, partial, absent over IPv4 and IPv6, none for IP-in-IP and plain packets), sofl_csum_pkt_outer_udp() and sofl_csum_pkt_fill() (inner first, then outer; zero outer UDP checksums kept unless asked) against sums computed apart by a plain RFC 1071 loop, and failing neighbours (a byte changed in each region breaks exactly the checksums that cover it). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "helpers.h"
#include "encap_build.h"

#define FRAME 4096

struct kind {
	int encap, oipv, iipv, proto;
	size_t gopt;
	uint16_t gproto;
};

static const struct kind kinds[] = {
	{ SOFL_ENCAP_VXLAN, 4, 4, 6, 0, 0 },
	{ SOFL_ENCAP_VXLAN, 4, 6, 17, 0, 0 },
	{ SOFL_ENCAP_VXLAN, 6, 4, 17, 0, 0 },
	{ SOFL_ENCAP_VXLAN, 6, 6, 6, 0, 0 },
	{ SOFL_ENCAP_GENEVE, 4, 6, 6, 8, 0x6558 },
	{ SOFL_ENCAP_GENEVE, 6, 4, 17, 20, 0x6558 },
	{ SOFL_ENCAP_GENEVE, 4, 4, 17, 4, 0x0800 },
	{ SOFL_ENCAP_GENEVE, 6, 6, 6, 0, 0x86DD },
	{ SOFL_ENCAP_IPIP, 4, 4, 6, 0, 0 },
	{ SOFL_ENCAP_IPIP, 4, 6, 17, 0, 0 },
	{ SOFL_ENCAP_IPIP, 6, 4, 6, 0, 0 },
	{ SOFL_ENCAP_IPIP, 6, 6, 17, 0, 0 },
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

static size_t
frame(uint8_t *b, const struct kind *k, int udp_csum, size_t pay, struct sofl_pkt *p,
      struct te_layout *l)
{
	struct te_spec e;
	struct t_spec s;
	size_t len;

	te_spec_init(&e, k->encap, k->oipv);
	e.geneve_opt_len = k->gopt;
	if (k->gproto)
		e.geneve_proto = k->gproto;
	e.udp_csum = udp_csum;
	t_spec_init(&s, k->iipv, k->proto);
	s.pay_len = pay;
	s.pay_seed = (uint8_t)(pay * 7);
	len = te_build(b, FRAME, &e, &s, l);
	te_pkt(p, b, &e, l);
	return len;
}

/* Independent verdicts (te_sum): 1 when the region verifies. */
static int
ip4_ok(const uint8_t *ip)
{
	return te_sum(0, ip, (size_t)(ip[0] & 15) * 4) == 0xffff;
}

static int
l4_ok(int ipv, const uint8_t *ip, uint8_t proto, const uint8_t *seg, size_t len)
{
	return te_l4_csum(ipv, ip + (ipv == 4 ? 12 : 8), ip + (ipv == 4 ? 16 : 24), proto, seg,
			  len) == 0;
}

/* Every checksum of the frame, by te_sum: inner IPv4 header, inner L4,
 * outer IPv4 header, outer UDP (0 counts as fine when @zero_ok). */
static void
verify_apart(const uint8_t *b, const struct kind *k, const struct te_layout *l, int zero_ok)
{
	const uint8_t *iip = b + l->inner_l3, *oip = b + l->outer_l3;
	size_t ihl = k->iipv == 4 ? (size_t)(iip[0] & 15) * 4 : 40;
	size_t iend = k->iipv == 4 ? sofl_get16(iip + 2) : 40u + sofl_get16(iip + 4);

	if (k->iipv == 4)
		assert_true(ip4_ok(iip));
	assert_true(l4_ok(k->iipv, iip, (uint8_t)k->proto, iip + ihl, iend - ihl));
	if (k->oipv == 4)
		assert_true(ip4_ok(oip));
	if (l->outer_l4) {
		const uint8_t *u = b + l->outer_l4;

		if (zero_ok && sofl_get16(u + 6) == 0)
			return;
		assert_true(l4_ok(k->oipv, oip, 17, u, sofl_get16(u + 4)));
	}
}

static void
test_check_valid(void **state)
{
	unsigned ki;
	int uc;
	(void)state;

	for (ki = 0; ki < NKINDS; ki++)
		for (uc = 0; uc <= 1; uc++) {
			const struct kind *k = &kinds[ki];
			uint8_t b[FRAME];
			struct sofl_pkt p;
			struct te_layout l;
			enum sofl_csum_state ip, l4, oip, oudp;

			frame(b, k, uc, 41, &p, &l);
			verify_apart(b, k, &l, 1);
			sofl_csum_pkt_check(&p, &ip, &l4);
			assert_int_equal(ip, k->iipv == 4 ? SOFL_CSUM_VALID : SOFL_CSUM_NONE);
			assert_int_equal(l4, SOFL_CSUM_VALID);
			sofl_csum_pkt_check_outer(&p, &oip, &oudp);
			assert_int_equal(oip, k->oipv == 4 ? SOFL_CSUM_VALID : SOFL_CSUM_NONE);
			if (k->encap == SOFL_ENCAP_IPIP) {
				assert_int_equal(oudp, SOFL_CSUM_NONE);
				assert_int_equal(sofl_csum_pkt_outer_udp(&p), SOFL_E_NOT_TCPUDP);
			} else {
				/* zero over IPv6 too: RFC 6935/6936 tunnels */
				assert_int_equal(oudp, uc ? SOFL_CSUM_VALID : SOFL_CSUM_ABSENT);
				if (uc)
					assert_int_equal(sofl_csum_pkt_outer_udp(&p),
							 sofl_get16(b + l.outer_l4 + 6));
			}
			/* NULL outputs are allowed */
			sofl_csum_pkt_check_outer(&p, NULL, NULL);
		}
}

/* Failing neighbours: one byte changed in each region. */
static void
test_neighbours(void **state)
{
	unsigned ki;
	(void)state;

	for (ki = 0; ki < NKINDS; ki++) {
		const struct kind *k = &kinds[ki];
		uint8_t b[FRAME];
		struct sofl_pkt p;
		struct te_layout l;
		enum sofl_csum_state ip, l4, oip, oudp;
		int udp = k->encap != SOFL_ENCAP_IPIP;

		frame(b, k, 1, 30, &p, &l);
		/* an inner payload byte: inner L4 and outer UDP break */
		b[p.pay_off + 3] ^= 0x40;
		sofl_csum_pkt_check(&p, &ip, &l4);
		sofl_csum_pkt_check_outer(&p, &oip, &oudp);
		assert_int_equal(l4, SOFL_CSUM_BAD);
		assert_int_equal(oudp, udp ? SOFL_CSUM_BAD : SOFL_CSUM_NONE);
		assert_int_equal(oip, k->oipv == 4 ? SOFL_CSUM_VALID : SOFL_CSUM_NONE);
		b[p.pay_off + 3] ^= 0x40;
		/* the outer TTL / hop limit: only the outer IPv4 header */
		b[l.outer_l3 + (k->oipv == 4 ? 8 : 7)] ^= 1;
		sofl_csum_pkt_check(&p, &ip, &l4);
		sofl_csum_pkt_check_outer(&p, &oip, &oudp);
		assert_int_equal(l4, SOFL_CSUM_VALID);
		assert_int_equal(oip, k->oipv == 4 ? SOFL_CSUM_BAD : SOFL_CSUM_NONE);
		assert_int_equal(oudp, udp ? SOFL_CSUM_VALID : SOFL_CSUM_NONE);
		b[l.outer_l3 + (k->oipv == 4 ? 8 : 7)] ^= 1;
		/* the outer source address: outer IPv4 header and outer UDP (pseudo-header) */
		b[l.outer_l3 + (k->oipv == 4 ? 15 : 23)] ^= 2;
		sofl_csum_pkt_check_outer(&p, &oip, &oudp);
		assert_int_equal(oip, k->oipv == 4 ? SOFL_CSUM_BAD : SOFL_CSUM_NONE);
		assert_int_equal(oudp, udp ? SOFL_CSUM_BAD : SOFL_CSUM_NONE);
		sofl_csum_pkt_check(&p, &ip, &l4);
		assert_int_equal(l4, SOFL_CSUM_VALID);
		b[l.outer_l3 + (k->oipv == 4 ? 15 : 23)] ^= 2;
		if (udp) {
			/* the tunnel header (VNI): the outer UDP checksum only */
			b[l.encap + 6] ^= 0x10;
			sofl_csum_pkt_check(&p, &ip, &l4);
			sofl_csum_pkt_check_outer(&p, &oip, &oudp);
			assert_int_equal(l4, SOFL_CSUM_VALID);
			assert_int_equal(oudp, SOFL_CSUM_BAD);
			b[l.encap + 6] ^= 0x10;
		}
		if (k->iipv == 4) {
			/* the inner TTL: the inner IPv4 header and the outer UDP */
			b[l.inner_l3 + 8] ^= 4;
			sofl_csum_pkt_check(&p, &ip, &l4);
			sofl_csum_pkt_check_outer(&p, &oip, &oudp);
			assert_int_equal(ip, SOFL_CSUM_BAD);
			assert_int_equal(l4, SOFL_CSUM_VALID);
			assert_int_equal(oudp, udp ? SOFL_CSUM_BAD : SOFL_CSUM_NONE);
			b[l.inner_l3 + 8] ^= 4;
		}
		sofl_csum_pkt_check(&p, &ip, &l4);
		sofl_csum_pkt_check_outer(&p, &oip, &oudp);
		assert_int_equal(l4, SOFL_CSUM_VALID);
		assert_int_equal(oudp, udp ? SOFL_CSUM_VALID : SOFL_CSUM_NONE);
	}
}

/* Fill: every checksum field scrambled, then filled: the frame built with
 * correct checksums comes back byte for byte, and verifies apart. */
static void
test_fill(void **state)
{
	unsigned ki;
	int uc;
	size_t pay;
	(void)state;

	for (ki = 0; ki < NKINDS; ki++)
		for (uc = 0; uc <= 1; uc++)
			for (pay = 0; pay < 70; pay += 23) {
				const struct kind *k = &kinds[ki];
				uint8_t b[FRAME], ref[FRAME];
				struct sofl_pkt p;
				struct te_layout l;
				size_t len = frame(b, k, uc, pay, &p, &l);

				memcpy(ref, b, len);
				sofl_put16(b + p.l4_off + (k->proto == 6 ? 16 : 6), 0x1357);
				if (k->iipv == 4)
					sofl_put16(b + p.l3_off + 10, 0x2468);
				if (k->oipv == 4)
					sofl_put16(b + l.outer_l3 + 10, 0x1111);
				if (l.outer_l4 && uc)
					sofl_put16(b + l.outer_l4 + 6, 0x9999);
				assert_int_equal(sofl_csum_pkt_fill(b, &p, 0), 0);
				assert_memory_equal(b, ref, len);
				verify_apart(b, k, &l, 1);
				if (l.outer_l4 && !uc) {
					/* zero outer checksum kept, IPv4 and IPv6 alike */
					assert_int_equal(sofl_get16(b + l.outer_l4 + 6), 0);
					/* ... unless asked */
					assert_int_equal(sofl_csum_pkt_fill(b, &p, 1), 0);
					assert_int_not_equal(sofl_get16(b + l.outer_l4 + 6), 0);
					verify_apart(b, k, &l, 0);
				}
				assert_int_equal(sofl_csum_pkt_fill(ref, &p, 0), SOFL_E_INVAL);
			}
}

/* PARTIAL: the outer UDP field holding only the folded outer pseudo-header
 * sum (what GRO and CHECKSUM_PARTIAL leave). */
static void
test_partial(void **state)
{
	unsigned ki;
	(void)state;

	for (ki = 0; ki < NKINDS; ki++) {
		const struct kind *k = &kinds[ki];
		uint8_t b[FRAME], ph[40];
		struct sofl_pkt p;
		struct te_layout l;
		enum sofl_csum_state oudp;
		const uint8_t *oip;
		size_t ulen;

		if (k->encap == SOFL_ENCAP_IPIP)
			continue;
		frame(b, k, 1, 17, &p, &l);
		oip = b + l.outer_l3;
		ulen = sofl_get16(b + l.outer_l4 + 4);
		memset(ph, 0, sizeof(ph));
		if (k->oipv == 4) {
			memcpy(ph, oip + 12, 8);
			ph[9] = 17;
			sofl_put16(ph + 10, (uint16_t)ulen);
			sofl_put16(b + l.outer_l4 + 6, te_sum(0, ph, 12));
		} else {
			memcpy(ph, oip + 8, 32);
			sofl_put16(ph + 34, (uint16_t)ulen);
			ph[39] = 17;
			sofl_put16(b + l.outer_l4 + 6, te_sum(0, ph, 40));
		}
		sofl_csum_pkt_check_outer(&p, NULL, &oudp);
		assert_int_equal(oudp, SOFL_CSUM_PARTIAL);
	}
}

/* Packets that are no tunnel packets, and hand-made offsets that do not fit. */
static void
test_none(void **state)
{
	uint8_t b[FRAME];
	struct sofl_pkt p, h;
	struct te_layout l;
	struct t_spec s;
	enum sofl_csum_state oip, oudp;
	size_t len;
	(void)state;

	t_spec_init(&s, 4, 17);
	s.pay_len = 10;
	len = t_build(b, FRAME, &s);
	assert_int_equal(sofl_pkt_parse(&p, b, len, SOFL_LINK_ETH), 0);
	sofl_csum_pkt_check_outer(&p, &oip, &oudp);
	assert_int_equal(oip, SOFL_CSUM_NONE);
	assert_int_equal(oudp, SOFL_CSUM_NONE);
	assert_int_equal(sofl_csum_pkt_outer_udp(&p), SOFL_E_NOT_TCPUDP);
	assert_int_equal(sofl_csum_pkt_outer_udp(NULL), SOFL_E_NOT_TCPUDP);
	sofl_csum_pkt_check_outer(NULL, &oip, &oudp);
	assert_int_equal(oip, SOFL_CSUM_NONE);
	assert_int_equal(oudp, SOFL_CSUM_NONE);
	/* ENCAP_ERR: named fields are the outer packet; no outer pair */
	p.layers |= SOFL_LAYER_ENCAP_ERR;
	sofl_csum_pkt_check_outer(&p, &oip, &oudp);
	assert_int_equal(oudp, SOFL_CSUM_NONE);
	/* a VXLAN packet whose outer UDP length lies */
	frame(b, &kinds[0], 1, 20, &p, &l);
	h = p;
	sofl_put16(b + l.outer_l4 + 4, 7);
	sofl_csum_pkt_check_outer(&h, &oip, &oudp);
	assert_int_equal(oip, SOFL_CSUM_VALID);
	assert_int_equal(oudp, SOFL_CSUM_NONE);
	sofl_put16(b + l.outer_l4 + 4, (uint16_t)(l.len - l.outer_l4 + 1));
	sofl_csum_pkt_check_outer(&h, &oip, &oudp);
	assert_int_equal(oudp, SOFL_CSUM_NONE);
	assert_int_equal(sofl_csum_pkt_outer_udp(&h), SOFL_E_NOT_TCPUDP);
	sofl_put16(b + l.outer_l4 + 4, (uint16_t)(l.len - l.outer_l4));
	/* outer offsets past the frame */
	h.len = (uint32_t)l.outer_l4 + 7;
	sofl_csum_pkt_check_outer(&h, &oip, &oudp);
	assert_int_equal(oudp, SOFL_CSUM_NONE);
	h.len = (uint32_t)l.outer_l3 + 19;
	sofl_csum_pkt_check_outer(&h, &oip, &oudp);
	assert_int_equal(oip, SOFL_CSUM_NONE);
	h = p;
	h.outer_l3_len = 12;
	sofl_csum_pkt_check_outer(&h, &oip, NULL);
	assert_int_equal(oip, SOFL_CSUM_NONE);
}

/* A fixed VXLAN frame with its four checksums summed apart (a script's
 * RFC 1071 loop over these bytes): outer IPv4 198.19.0.1 -> 198.19.0.2
 * (checksum 9c3d), UDP 49152 -> 4789 (eed4 over the 62-byte datagram),
 * VXLAN VNI 42, inner Ethernet, IPv4 198.18.0.1 -> 198.18.0.2 (aea5), UDP
 * 40000 -> 5201 (c118) with the payload 00 01 02 03.  Zeroed, the checksums
 * are filled back to these values. */
static void
test_vector(void **state)
{
	static const char hex[] =
		"020000000012020000000011080045000052123440004011""9c3d""c6130001c6130002"
		"c00012b5003e""eed4""0800000000002a0002000000000202000000000108004500"
		"0020000040004011""aea5""c6120001c61200029c401451000c""c118""00010203";
	uint8_t b[FRAME], v[sizeof(hex) / 2];
	struct te_spec e;
	struct t_spec s;
	struct te_layout l;
	struct sofl_pkt p;
	enum sofl_csum_state ip, l4, oip, oudp;
	size_t i, len;
	(void)state;

	for (i = 0; i < sizeof(v); i++) {
		unsigned x;

		assert_int_equal(sscanf(hex + 2 * i, "%2x", &x), 1);
		v[i] = (uint8_t)x;
	}
	te_spec_init(&e, SOFL_ENCAP_VXLAN, 4);
	e.udp_csum = 1;
	t_spec_init(&s, 4, 17);
	s.pay_len = 4;
	len = te_build(b, FRAME, &e, &s, &l);
	assert_int_equal(len, sizeof(v));
	assert_memory_equal(b, v, len);
	te_pkt(&p, b, &e, &l);
	sofl_csum_pkt_check(&p, &ip, &l4);
	sofl_csum_pkt_check_outer(&p, &oip, &oudp);
	assert_true(ip == SOFL_CSUM_VALID && l4 == SOFL_CSUM_VALID);
	assert_true(oip == SOFL_CSUM_VALID && oudp == SOFL_CSUM_VALID);
	assert_int_equal(sofl_csum_pkt_outer_udp(&p), 0xeed4);
	assert_int_equal(sofl_csum_pkt_l4(&p), 0xc118);
	/* zero all four, fill: the vector again (outer UDP was non-zero: the
	 * zeroed field must be filled, so ask for zero fields too) */
	sofl_put16(b + 24, 0);
	sofl_put16(b + 40, 0);
	sofl_put16(b + 74, 0);
	sofl_put16(b + 90, 0);
	sofl_csum_pkt_check(&p, &ip, &l4);
	assert_int_equal(ip, SOFL_CSUM_BAD);
	assert_int_equal(l4, SOFL_CSUM_ABSENT);
	assert_int_equal(sofl_csum_pkt_fill(b, &p, 1), 0);
	assert_memory_equal(b, v, len);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_valid),
		cmocka_unit_test(test_neighbours),
		cmocka_unit_test(test_fill),
		cmocka_unit_test(test_partial),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_vector),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
