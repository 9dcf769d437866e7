/* Description: RSS of tunnel packets (VXLAN, Geneve with options and with an IP payload, IP-in-IP 4in4/6in4/4in6/6in6): the default outer hash equals the hash of the same frames parsed without tunnels (table, GFNI and mixed paths, single, batch and input bytes, symmetric mode), Microsoft verification values on outer and on inner tuples, SOFL_RSS_F_INNER against the inner packet alone, failing neighbours (an outer or inner byte changed moves only the hash that reads it), sofl_rss_pkt_key(), hand-made outer offsets past the frame, and sofl_rss_encap_sport() against Linux's udp_flow_src_port() formula. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>
#include "helpers.h"
#include "encap_build.h"
#include "softoffload/rss.h"

#define FRAME 4096

static struct sofl_rss *
mk(unsigned flags, unsigned nq)
{
	struct sofl_rss_config c;
	struct sofl_rss *r;

	sofl_rss_config_init(&c);
	c.flags = flags;
	c.nqueues = nq;
	assert_int_equal(sofl_rss_create(&c, &r), 0);
	return r;
}

/* the tunnel kinds: encap, outer family, inner family, inner proto, Geneve options/proto */
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
	{ SOFL_ENCAP_GENEVE, 4, 4, 6, 8, 0x6558 },
	{ SOFL_ENCAP_GENEVE, 6, 6, 17, 16, 0x6558 },
	{ SOFL_ENCAP_GENEVE, 4, 6, 6, 0, 0x86DD },
	{ SOFL_ENCAP_GENEVE, 6, 4, 6, 4, 0x0800 },
	{ SOFL_ENCAP_IPIP, 4, 4, 6, 0, 0 },
	{ SOFL_ENCAP_IPIP, 4, 6, 17, 0, 0 },
	{ SOFL_ENCAP_IPIP, 6, 4, 17, 0, 0 },
	{ SOFL_ENCAP_IPIP, 6, 6, 6, 0, 0 },
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

/* Frame @n of kind @k (ports and addresses varied by @n) into b; *p the
 * tunnel parse, *plain the parse without tunnels. */
static size_t
frame(uint8_t *b, const struct kind *k, unsigned n, struct sofl_pkt *p, struct sofl_pkt *plain,
      struct te_layout *lay)
{
	struct te_spec e;
	struct t_spec s;
	struct te_layout l;
	size_t len;

	te_spec_init(&e, k->encap, k->oipv);
	e.geneve_opt_len = k->gopt;
	if (k->gproto)
		e.geneve_proto = k->gproto;
	e.sport = (uint16_t)(49152 + 977 * n);
	e.osrc[k->oipv == 4 ? 3 : 15] = (uint8_t)(1 + n);
	e.odst[k->oipv == 4 ? 2 : 14] = (uint8_t)(7 * n);
	e.udp_csum = n & 1;
	t_spec_init(&s, k->iipv, k->proto);
	s.sport = (uint16_t)(1024 + 31 * n);
	s.dport = (uint16_t)(80 + n);
	s.src[k->iipv == 4 ? 3 : 15] = (uint8_t)(100 + n);
	s.pay_len = 20 + n;
	len = te_build(b, FRAME, &e, &s, &l);
	te_pkt(p, b, &e, &l);
	assert_int_equal(te_parse_plain(plain, b, len), 0);
	if (lay)
		*lay = l;
	return len;
}

/* The fixture's parse (te_pkt(), put together from the known layout) is
 * the parser's: the fields RSS and the checksums read agree, and RSS gives
 * both the same result. */
static void
test_parser_agrees(void **state)
{
	struct sofl_rss *r[2] = { mk(0, 8), mk(SOFL_RSS_F_INNER, 8) };
	unsigned ki, n, m;
	(void)state;

	for (ki = 0; ki < NKINDS; ki++)
		for (n = 0; n < 4; n++) {
			uint8_t b[FRAME];
			struct sofl_pkt p, q, real;
			struct te_layout l;
			size_t len = frame(b, &kinds[ki], n, &p, &q, &l);

			assert_int_equal(sofl_pkt_parse(&real, b, len, SOFL_LINK_ETH), 0);
			assert_int_equal(real.layers, p.layers);
			assert_int_equal(real.encap, p.encap);
			assert_int_equal(real.encap_flags, p.encap_flags);
			assert_int_equal(real.outer_ipv, p.outer_ipv);
			assert_int_equal(real.outer_l3_off, p.outer_l3_off);
			assert_int_equal(real.outer_l3_len, p.outer_l3_len);
			assert_int_equal(real.outer_l4_off, p.outer_l4_off);
			assert_int_equal(real.outer_ip_end, p.outer_ip_end);
			assert_int_equal(real.outer_proto, p.outer_proto);
			assert_int_equal(real.encap_off, p.encap_off);
			assert_int_equal(real.encap_len, p.encap_len);
			assert_int_equal(real.inner_l2_off, p.inner_l2_off);
			assert_int_equal(real.vni, p.vni);
			assert_int_equal(real.ipv, p.ipv);
			assert_int_equal(real.l3_off, p.l3_off);
			assert_int_equal(real.l3_len, p.l3_len);
			assert_int_equal(real.ip_end, p.ip_end);
			assert_int_equal(real.l4_off, p.l4_off);
			assert_int_equal(real.pay_off, p.pay_off);
			assert_int_equal(real.pay_len, p.pay_len);
			assert_int_equal(real.l4_proto, p.l4_proto);
			assert_memory_equal(&real.key, &p.key, sizeof(p.key));
			for (m = 0; m < 2; m++) {
				struct sofl_rss_out a, c;

				assert_int_equal(sofl_rss_pkt(r[m], &real, &a),
						 sofl_rss_pkt(r[m], &p, &c));
				assert_memory_equal(&a, &c, sizeof(a));
			}
		}
	sofl_rss_destroy(r[0]);
	sofl_rss_destroy(r[1]);
}

static const enum sofl_rss_impl impls[] = {
	SOFL_RSS_IMPL_TABLE, SOFL_RSS_IMPL_GFNI, SOFL_RSS_IMPL_MIXED,
};

/* The contract's consequence: with the default config, the RSS of a tunnel
 * packet is the one the same frame got before tunnels were parsed. */
static void
test_outer_unchanged(void **state)
{
	unsigned flags, ii, ki, n;
	(void)state;

	for (flags = 0; flags <= SOFL_RSS_F_SYMMETRIC; flags++)
		for (ii = 0; ii < 3; ii++) {
			struct sofl_rss *r = mk(flags, 7);

			if (!sofl_rss_impl_available(impls[ii])) {
				sofl_rss_destroy(r);
				continue;
			}
			assert_int_equal(sofl_rss_set_impl(r, impls[ii]), 0);
			for (ki = 0; ki < NKINDS; ki++)
				for (n = 0; n < 6; n++) {
					uint8_t b[FRAME], in1[SOFL_RSS_INPUT_MAX],
						in2[SOFL_RSS_INPUT_MAX];
					struct sofl_pkt pk[2];
					struct sofl_rss_out o1, o2, ob[2];
					size_t l1, l2;
					int t;

					frame(b, &kinds[ki], n, &pk[0], &pk[1], NULL);
					t = sofl_rss_pkt(r, &pk[0], &o1);
					assert_int_equal(sofl_rss_pkt(r, &pk[1], &o2), t);
					assert_int_equal(o1.hash, o2.hash);
					assert_int_equal(o1.queue, o2.queue);
					assert_int_equal(o1.type, o2.type);
					if (kinds[ki].encap == SOFL_ENCAP_IPIP)
						assert_int_equal(t, kinds[ki].oipv == 4 ? SOFL_RSS_IPV4 :
								 SOFL_RSS_IPV6);
					else
						assert_int_equal(t, kinds[ki].oipv == 4 ?
								 SOFL_RSS_IPV4_UDP :
								 SOFL_RSS_IPV6_UDP);
					/* a batch pairs the tunnel packet with the plain one */
					assert_int_equal(sofl_rss_pkt_batch(r, pk, 2, ob), 2);
					assert_memory_equal(&ob[0], &o1, sizeof(o1));
					assert_memory_equal(&ob[1], &o1, sizeof(o1));
					assert_int_equal(sofl_rss_input(r, &pk[0], in1, &l1), t);
					assert_int_equal(sofl_rss_input(r, &pk[1], in2, &l2), t);
					assert_int_equal(l1, l2);
					assert_memory_equal(in1, in2, l1);
					assert_int_equal(sofl_rss_toeplitz(sofl_rss_default_key,
									   SOFL_RSS_KEY_LEN, in1, l1),
							 o1.hash);
				}
			sofl_rss_destroy(r);
		}
}

/* Microsoft's verification values (rss.h anchor) on the outer header of a
 * VXLAN packet (4-tuple over UDP) and of an IP-in-IP packet (2-tuple), and
 * with SOFL_RSS_F_INNER on the inner one. */
struct msv {
	const char *dst, *src;
	uint16_t dport, sport;
	uint32_t h2, h4;
};

static const struct msv ms4[] = {
	{ "161.142.100.80", "66.9.149.187", 1766, 2794, 0x323e8fc2, 0x51ccc178 },
	{ "65.69.140.83", "199.92.111.2", 4739, 14230, 0xd718262a, 0xc626b0ea },
	{ "12.22.207.184", "24.19.198.95", 38024, 12898, 0xd2d0a5de, 0x5c2b394a },
	{ "209.142.163.6", "38.27.205.30", 2217, 48228, 0x82989176, 0xafc7327f },
	{ "202.188.127.2", "153.39.163.191", 1303, 44251, 0x5d1809c5, 0x10e828a2 },
};

static const struct msv ms6[] = {
	{ "3ffe:2501:200:3::1", "3ffe:2501:200:1fff::7", 1766, 2794, 0x2cc18cd5, 0x40207d3d },
	{ "ff02::1", "3ffe:501:8::260:97ff:fe40:efab", 4739, 14230, 0x0f0c461c, 0xdde51bbf },
	{ "fe80::200:f8ff:fe21:67cf", "3ffe:1900:4545:3:200:f8ff:fe21:67cf", 38024, 44251,
	  0x4b61e985, 0x02d1feef },
};

static void
ms_case(struct sofl_rss *outer, struct sofl_rss *inner, int ipv, const struct msv *v)
{
	int af = ipv == 4 ? AF_INET : AF_INET6;
	uint8_t b[FRAME];
	struct te_spec e;
	struct t_spec s;
	struct te_layout l;
	struct sofl_pkt p;
	struct sofl_rss_out o;

	/* outer: VXLAN with the vector's tuple as outer addresses and ports */
	te_spec_init(&e, SOFL_ENCAP_VXLAN, ipv);
	assert_int_equal(inet_pton(af, v->src, e.osrc), 1);
	assert_int_equal(inet_pton(af, v->dst, e.odst), 1);
	e.sport = v->sport;
	e.dport = v->dport;
	t_spec_init(&s, 4, 6);
	te_build(b, FRAME, &e, &s, &l);
	te_pkt(&p, b, &e, &l);
	assert_int_equal(sofl_rss_pkt(outer, &p, &o), ipv == 4 ? SOFL_RSS_IPV4_UDP :
			 SOFL_RSS_IPV6_UDP);
	assert_int_equal(o.hash, v->h4);
	/* outer, IP-in-IP: the 2-tuple */
	te_spec_init(&e, SOFL_ENCAP_IPIP, ipv);
	assert_int_equal(inet_pton(af, v->src, e.osrc), 1);
	assert_int_equal(inet_pton(af, v->dst, e.odst), 1);
	te_build(b, FRAME, &e, &s, &l);
	te_pkt(&p, b, &e, &l);
	assert_int_equal(sofl_rss_pkt(outer, &p, &o), ipv == 4 ? SOFL_RSS_IPV4 : SOFL_RSS_IPV6);
	assert_int_equal(o.hash, v->h2);
	/* inner: Geneve around a TCP packet of the vector's tuple */
	te_spec_init(&e, SOFL_ENCAP_GENEVE, 6 - ipv + 4);	/* the other family outside */
	e.geneve_opt_len = 12;
	t_spec_init(&s, ipv, 6);
	assert_int_equal(inet_pton(af, v->src, s.src), 1);
	assert_int_equal(inet_pton(af, v->dst, s.dst), 1);
	s.sport = v->sport;
	s.dport = v->dport;
	te_build(b, FRAME, &e, &s, &l);
	te_pkt(&p, b, &e, &l);
	assert_int_equal(sofl_rss_pkt(inner, &p, &o), ipv == 4 ? SOFL_RSS_IPV4_TCP :
			 SOFL_RSS_IPV6_TCP);
	assert_int_equal(o.hash, v->h4);
}

static void
test_ms_vectors(void **state)
{
	unsigned ii, i;
	(void)state;

	for (ii = 0; ii < 3; ii++) {
		struct sofl_rss *outer = mk(0, 4), *inner = mk(SOFL_RSS_F_INNER, 4);

		if (sofl_rss_impl_available(impls[ii])) {
			assert_int_equal(sofl_rss_set_impl(outer, impls[ii]), 0);
			assert_int_equal(sofl_rss_set_impl(inner, impls[ii]), 0);
			for (i = 0; i < sizeof(ms4) / sizeof(ms4[0]); i++)
				ms_case(outer, inner, 4, &ms4[i]);
			for (i = 0; i < sizeof(ms6) / sizeof(ms6[0]); i++)
				ms_case(outer, inner, 6, &ms6[i]);
		}
		sofl_rss_destroy(outer);
		sofl_rss_destroy(inner);
	}
}

/* SOFL_RSS_F_INNER: a tunnel packet hashes as its inner packet sent alone;
 * plain packets hash as without the flag. */
static void
test_inner(void **state)
{
	unsigned flags, ii, ki, n;
	(void)state;

	for (flags = SOFL_RSS_F_INNER; flags <= (SOFL_RSS_F_INNER | SOFL_RSS_F_SYMMETRIC);
	     flags++)
		for (ii = 0; ii < 3; ii++) {
			struct sofl_rss *r = mk(flags, 16), *plain = mk(flags & ~SOFL_RSS_F_INNER, 16);

			if (!sofl_rss_impl_available(impls[ii]))
				goto next;
			assert_int_equal(sofl_rss_set_impl(r, impls[ii]), 0);
			assert_int_equal(sofl_rss_set_impl(plain, impls[ii]), 0);
			for (ki = 0; ki < NKINDS; ki++)
				for (n = 0; n < 5; n++) {
					uint8_t b[FRAME];
					struct sofl_pkt p, q, alone, pk[3];
					struct sofl_rss_out o, oa, ob[3];
					struct te_layout l;
					struct sofl_flow_key k;
					int t;

					frame(b, &kinds[ki], n, &p, &q, &l);
					/* the inner packet alone: parse it where it starts */
					assert_int_equal(sofl_pkt_parse(&alone, b + l.inner_l2,
									l.len - l.inner_l2,
									l.inner_l2 != l.inner_l3 ?
									SOFL_LINK_ETH :
									SOFL_LINK_RAW), 0);
					t = sofl_rss_pkt(r, &p, &o);
					assert_int_equal(sofl_rss_pkt(plain, &alone, &oa), t);
					assert_int_equal(t, kinds[ki].iipv == 4 ?
							 (kinds[ki].proto == 6 ? SOFL_RSS_IPV4_TCP :
							  SOFL_RSS_IPV4_UDP) :
							 (kinds[ki].proto == 6 ? SOFL_RSS_IPV6_TCP :
							  SOFL_RSS_IPV6_UDP));
					assert_int_equal(o.hash, oa.hash);
					assert_int_equal(o.queue, oa.queue);
					/* the plain parse of the frame: the outer tuple, as without
					 * the flag */
					assert_int_equal(sofl_rss_pkt(r, &q, &o), sofl_rss_pkt(plain, &q,
												 &oa));
					assert_int_equal(o.hash, oa.hash);
					/* batch: tunnel, plain, tunnel */
					pk[0] = p;
					pk[1] = q;
					pk[2] = p;
					assert_int_equal(sofl_rss_pkt_batch(r, pk, 3, ob), 3);
					assert_int_equal(sofl_rss_pkt(r, &p, &o), t);
					assert_memory_equal(&ob[0], &o, sizeof(o));
					assert_memory_equal(&ob[2], &o, sizeof(o));
					sofl_rss_pkt(r, &q, &o);
					assert_memory_equal(&ob[1], &o, sizeof(o));
					/* the key it hashed is the inner flow */
					assert_int_equal(sofl_rss_pkt_key(r, &p, &k), t);
					assert_int_equal(k.family, kinds[ki].iipv);
					assert_memory_equal(k.src, p.key.src, 16);
					assert_int_equal(k.sport, p.key.sport);
				}
next:
			sofl_rss_destroy(r);
			sofl_rss_destroy(plain);
		}
}

/* Failing neighbours: one outer byte changed moves the outer hash only, one
 * inner byte the inner hash only. */
static void
test_neighbours(void **state)
{
	struct sofl_rss *outer = mk(0, 128), *inner = mk(SOFL_RSS_F_INNER, 128);
	unsigned ki;
	(void)state;

	for (ki = 0; ki < NKINDS; ki++) {
		uint8_t b[FRAME];
		struct sofl_pkt p, q;
		struct te_layout l;
		struct sofl_rss_out o0, i0, o1, i1;
		size_t at;

		frame(b, &kinds[ki], 3, &p, &q, &l);
		sofl_rss_pkt(outer, &p, &o0);
		sofl_rss_pkt(inner, &p, &i0);
		assert_int_not_equal(o0.hash, i0.hash);
		/* outer: the source port for UDP tunnels, else the last source address byte */
		at = l.outer_l4 ? l.outer_l4 + 1 : l.outer_l3 + (kinds[ki].oipv == 4 ? 15 : 23);
		b[at] ^= 0x01;
		sofl_rss_pkt(outer, &p, &o1);
		sofl_rss_pkt(inner, &p, &i1);
		assert_int_not_equal(o1.hash, o0.hash);
		assert_int_equal(i1.hash, i0.hash);
		b[at] ^= 0x01;
		/* inner: the flow key's destination port (what the parser reads) */
		p.key.dport ^= 0x0100;
		sofl_rss_pkt(outer, &p, &o1);
		sofl_rss_pkt(inner, &p, &i1);
		assert_int_equal(o1.hash, o0.hash);
		assert_int_not_equal(i1.hash, i0.hash);
	}
	sofl_rss_destroy(outer);
	sofl_rss_destroy(inner);
}

/* sofl_rss_pkt_key() and sofl_rss_hash_tuple() agree with sofl_rss_pkt();
 * the outer key holds the frame's outer tuple. */
static void
test_pkt_key(void **state)
{
	unsigned flags, ki, n;
	(void)state;

	for (flags = 0; flags <= 3; flags++) {
		struct sofl_rss *r = mk(flags, 9);

		for (ki = 0; ki < NKINDS; ki++)
			for (n = 0; n < 4; n++) {
				uint8_t b[FRAME];
				struct sofl_pkt p, q;
				struct te_layout l;
				struct sofl_flow_key k;
				struct sofl_rss_out o, ot;
				int t, ports;

				frame(b, &kinds[ki], n, &p, &q, &l);
				t = sofl_rss_pkt(r, &p, &o);
				assert_int_equal(sofl_rss_pkt_key(r, &p, &k), t);
				ports = t != SOFL_RSS_IPV4 && t != SOFL_RSS_IPV6;
				assert_int_equal(sofl_rss_hash_tuple(r, &k, ports, &ot), t);
				assert_memory_equal(&o, &ot, sizeof(o));
				if (!(flags & SOFL_RSS_F_INNER)) {
					size_t a = kinds[ki].oipv == 4 ? 4 : 16;
					const uint8_t *ip = b + l.outer_l3;

					assert_int_equal(k.family, kinds[ki].oipv);
					assert_memory_equal(k.src, ip + (a == 4 ? 12 : 8), a);
					assert_memory_equal(k.dst, ip + (a == 4 ? 16 : 24), a);
					assert_int_equal(k.sport, l.outer_l4 ?
							 sofl_get16(b + l.outer_l4) : 0);
					assert_int_equal(k.dport, l.outer_l4 ?
							 sofl_get16(b + l.outer_l4 + 2) : 0);
				}
			}
		sofl_rss_destroy(r);
	}
}

/* Outer offsets that do not lie within the frame (a hand-made struct
 * sofl_pkt): no hash, nothing read past p->len; an inner packet with no IP
 * header under SOFL_RSS_F_INNER: the outer tuple. */
static void
test_bad_offsets(void **state)
{
	struct sofl_rss *outer = mk(0, 4), *inner = mk(SOFL_RSS_F_INNER, 4);
	uint8_t b[FRAME];
	struct sofl_pkt p, q, h;
	struct te_layout l;
	struct sofl_rss_out o, oq;
	struct sofl_flow_key k;
	(void)state;

	frame(b, &kinds[1], 2, &p, &q, &l);
	h = p;
	h.len = (uint32_t)l.outer_l4 + 3;	/* the ports cut */
	assert_int_equal(sofl_rss_pkt(outer, &h, &o), SOFL_RSS_NONE);
	assert_int_equal(o.hash, 0);
	assert_int_equal(sofl_rss_pkt_key(outer, &h, &k), SOFL_RSS_NONE);
	h.len = (uint32_t)l.outer_l3 + 19;	/* the IPv4 header cut */
	assert_int_equal(sofl_rss_pkt(outer, &h, &o), SOFL_RSS_NONE);
	h = p;
	h.outer_ipv = 5;
	assert_int_equal(sofl_rss_pkt(outer, &h, &o), SOFL_RSS_NONE);
	h = p;
	h.data = NULL;
	assert_int_equal(sofl_rss_pkt(outer, &h, &o), SOFL_RSS_NONE);
	/* the inner packet is not IP: inner RSS falls back to the outer tuple */
	h = p;
	h.layers &= (uint8_t)~(SOFL_LAYER_L3 | SOFL_LAYER_L4);
	h.ipv = 0;
	h.key.family = 0;
	assert_int_equal(sofl_rss_pkt(inner, &h, &o), SOFL_RSS_IPV4_UDP);
	assert_int_equal(sofl_rss_pkt(outer, &q, &oq), SOFL_RSS_IPV4_UDP);
	assert_int_equal(o.hash, oq.hash);
	/* SOFL_LAYER_ENCAP_ERR: named fields are the outer packet's, hashed as such */
	h = q;
	h.layers |= SOFL_LAYER_ENCAP_ERR;
	assert_int_equal(sofl_rss_pkt(inner, &h, &o), SOFL_RSS_IPV4_UDP);
	assert_int_equal(o.hash, oq.hash);
	sofl_rss_destroy(outer);
	sofl_rss_destroy(inner);
}

static void
test_config(void **state)
{
	struct sofl_rss_config c;
	struct sofl_rss *r;
	(void)state;

	sofl_rss_config_init(&c);
	c.flags = SOFL_RSS_F_INNER | SOFL_RSS_F_SYMMETRIC;
	assert_int_equal(sofl_rss_create(&c, &r), 0);
	sofl_rss_destroy(r);
	c.flags = 0x4;
	assert_int_equal(sofl_rss_create(&c, &r), SOFL_E_INVAL);
	assert_null(r);
	assert_int_equal(sofl_rss_pkt_key(NULL, NULL, NULL), SOFL_E_INVAL);
}

/* sofl_rss_encap_sport(): values of Linux's udp_flow_src_port() formula
 * (include/net/udp.h) computed apart, and its range. */
static void
test_encap_sport(void **state)
{
	static const struct {
		uint32_t hash;
		uint16_t min, max, port;
	} v[] = {
		{ 0x12345678, 0, 0, 40299 },
		{ 0xffffffff, 0, 0, 32768 },
		{ 0x51ccc178, 0, 0, 48725 },
		{ 0x00010000, 0, 0, 32768 },
		{ 0x0000ffff, 0, 0, 60998 },
		{ 0xdeadbeef, 1024, 65535, 25281 },
		{ 0x80000000, 49152, 65535, 57343 },
		{ 0xcafebabe, 5000, 5001, 5000 },
		{ 0x00000000, 0, 0, 32768 },
		{ 0x0badf00d, 60000, 50000, 60516 },	/* min >= max: the default range */
		{ 0x0badf00d, 4789, 4789, 60516 },
	};
	uint64_t seed = 21;
	size_t i;
	(void)state;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_int_equal(sofl_rss_encap_sport(v[i].hash, v[i].min, v[i].max), v[i].port);
	for (i = 0; i < 20000; i++) {
		uint64_t x = t_rand(&seed);
		uint32_t h = (uint32_t)x;
		uint16_t a = (uint16_t)(x >> 32), b = (uint16_t)(x >> 48), port;

		port = sofl_rss_encap_sport(h, a, b);
		if (a < b) {
			assert_true(port >= a && port < b);
		} else {
			assert_true(port >= SOFL_RSS_SPORT_MIN && port < SOFL_RSS_SPORT_MAX);
		}
		/* folding: hashes that differ only in the high half map
		 * alike up to the scaling, i.e. a zero low half keeps the
		 * high half as is */
		if (a < b)
			assert_int_equal(sofl_rss_encap_sport(h & 0xffff0000, a, b),
					 a + (uint16_t)(((uint64_t)(h & 0xffff0000) *
							 (uint32_t)(b - a)) >> 32));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parser_agrees),
		cmocka_unit_test(test_outer_unchanged),
		cmocka_unit_test(test_ms_vectors),
		cmocka_unit_test(test_inner),
		cmocka_unit_test(test_neighbours),
		cmocka_unit_test(test_pkt_key),
		cmocka_unit_test(test_bad_offsets),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_encap_sport),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
