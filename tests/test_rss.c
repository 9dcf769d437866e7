/* Description: RSS Toeplitz: the 16 Microsoft verification values (bytes and built packets), table and GFNI paths against the bit-serial definition on random keys/inputs and in bursts mixing tunnel packets (outer and inner RSS), symmetric mode, tuple choice (fragments, ICMP, non-IP, VLAN, raw IP, truncated L4), tuples without a frame (single and batch) against parsed packets, indirection table and argument errors. */
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

static struct sofl_rss *rss, *rss_sym;	/* made by setup() */

/* sofl_rss_create() with a config of these fields (the positional form the
 * tests were written with). */
static int
rss_new(struct sofl_rss **out, const void *key, size_t key_len, unsigned nqueues,
	unsigned flags)
{
	struct sofl_rss_config c;

	sofl_rss_config_init(&c);
	c.key = key;
	c.key_len = (uint32_t)key_len;
	c.nqueues = nqueues;
	c.flags = flags;
	return sofl_rss_create(&c, out);
}

/* Microsoft's RSS verification suite: destination first in its table, hashed
 * source first. */
struct msv {
	const char *dst, *src;
	uint16_t dport, sport;
	uint32_t h2, h4;
};

static const struct msv v4[] = {
	{ "161.142.100.80", "66.9.149.187", 1766, 2794, 0x323e8fc2, 0x51ccc178 },
	{ "65.69.140.83", "199.92.111.2", 4739, 14230, 0xd718262a, 0xc626b0ea },
	{ "12.22.207.184", "24.19.198.95", 38024, 12898, 0xd2d0a5de, 0x5c2b394a },
	{ "209.142.163.6", "38.27.205.30", 2217, 48228, 0x82989176, 0xafc7327f },
	{ "202.188.127.2", "153.39.163.191", 1303, 44251, 0x5d1809c5, 0x10e828a2 },
};

static const struct msv v6[] = {
	{ "3ffe:2501:200:3::1", "3ffe:2501:200:1fff::7", 1766, 2794, 0x2cc18cd5, 0x40207d3d },
	{ "ff02::1", "3ffe:501:8::260:97ff:fe40:efab", 4739, 14230, 0x0f0c461c, 0xdde51bbf },
	{ "fe80::200:f8ff:fe21:67cf", "3ffe:1900:4545:3:200:f8ff:fe21:67cf", 38024, 44251,
	  0x4b61e985, 0x02d1feef },
};

static void
addr(int ipv, const char *s, uint8_t *out)
{
	assert_int_equal(inet_pton(ipv == 4 ? AF_INET : AF_INET6, s, out), 1);
}

/* src dst [sport dport] as the hash reads them */
static size_t
msv_bytes(int ipv, const struct msv *v, int ports, uint8_t *b)
{
	size_t a = ipv == 4 ? 4 : 16;

	addr(ipv, v->src, b);
	addr(ipv, v->dst, b + a);
	if (!ports)
		return 2 * a;
	sofl_put16(b + 2 * a, v->sport);
	sofl_put16(b + 2 * a + 2, v->dport);
	return 2 * a + 4;
}

/* Every implementation this machine has, on @r: hash_bytes must give @want. */
static void
check_impls(struct sofl_rss *r, const uint8_t *b, size_t len, uint32_t want)
{
	int i;

	for (i = SOFL_RSS_IMPL_TABLE; i <= SOFL_RSS_IMPL_MIXED; i++) {
		uint32_t h = 0xdeadbeef;

		if (!sofl_rss_impl_available((enum sofl_rss_impl)i))
			continue;
		assert_int_equal(sofl_rss_set_impl(r, (enum sofl_rss_impl)i), 0);
		assert_int_equal(sofl_rss_hash_bytes(r, b, len, &h), 0);
		if (h != want) {
			fprintf(stderr, "impl %s len %zu: got 0x%08x want 0x%08x\n",
				sofl_rss_impl_name(r), len, h, want);
			t_hexdump("input", b, len);
			fail();
		}
	}
}

static void
test_reference_vector(void **state)
{
	/* §6.3: the byte string of row 1, IPv4+TCP */
	static const uint8_t b[12] = { 0x42, 0x09, 0x95, 0xbb, 0xa1, 0x8e, 0x64, 0x50,
				       0x0a, 0xea, 0x06, 0xe6 };
	(void)state;
	assert_int_equal(sofl_rss_toeplitz(sofl_rss_default_key, 40, b, 12), 0x51ccc178);
	assert_int_equal(sofl_rss_toeplitz(sofl_rss_default_key, 40, b, 8), 0x323e8fc2);
	assert_int_equal(sofl_rss_toeplitz(sofl_rss_default_key, 40, b, 0), 0);
	/* one set bit selects the key window at that bit */
	{
		uint8_t one[2] = { 0x00, 0x01 };
		/* bit 15: key bits 15..46 of 6d 5a 56 da 25 5b (48 bits) */
		uint32_t w = (uint32_t)((0x6d5a56da255bull >> 1) & 0xffffffffu);
		assert_int_equal(sofl_rss_toeplitz(sofl_rss_default_key, 40, one, 2), w);
	}
}

/* Vector @v (2-tuple, or 4-tuple with @ports) hashes to @want bit by bit
 * and in every implementation. */
static void
check_msv(int ipv, const struct msv *v, int ports, uint32_t want)
{
	uint8_t b[SOFL_RSS_INPUT_MAX];
	size_t n = msv_bytes(ipv, v, ports, b);

	assert_int_equal(sofl_rss_toeplitz(sofl_rss_default_key, 40, b, n), want);
	check_impls(rss, b, n, want);
}

static void
test_microsoft_vectors(void **state)
{
	size_t i;
	(void)state;

	for (i = 0; i < sizeof(v4) / sizeof(v4[0]); i++) {
		check_msv(4, &v4[i], 0, v4[i].h2);
		check_msv(4, &v4[i], 1, v4[i].h4);
	}
	for (i = 0; i < sizeof(v6) / sizeof(v6[0]); i++) {
		check_msv(6, &v6[i], 0, v6[i].h2);
		check_msv(6, &v6[i], 1, v6[i].h4);
	}
}

/* Parses a t_spec-built packet and hashes it with @r under every implementation. */
static int
pkt_rss(struct sofl_rss *r, const struct t_spec *s, struct sofl_rss_out *o)
{
	uint8_t buf[2048];
	struct sofl_pkt p;
	size_t len = t_build(buf, sizeof(buf), s);
	int i, type = -1;

	assert_int_equal(sofl_pkt_parse(&p, buf, len, (enum sofl_link)s->link), 0);
	for (i = SOFL_RSS_IMPL_TABLE; i <= SOFL_RSS_IMPL_MIXED; i++) {
		struct sofl_rss_out x;

		if (!sofl_rss_impl_available((enum sofl_rss_impl)i))
			continue;
		assert_int_equal(sofl_rss_set_impl(r, (enum sofl_rss_impl)i), 0);
		memset(&x, 0xa5, sizeof(x));
		type = sofl_rss_pkt(r, &p, &x);
		assert_int_equal(type, x.type);
		if (i == SOFL_RSS_IMPL_TABLE)
			*o = x;
		assert_int_equal(x.hash, o->hash);
		assert_int_equal(x.queue, o->queue);
	}
	{
		/* the input it reports is what was hashed */
		uint8_t in[SOFL_RSS_INPUT_MAX];
		size_t n = 99;

		assert_int_equal(sofl_rss_input(r, &p, in, &n), type);
		assert_int_equal(n, type == SOFL_RSS_NONE ? 0 :
				 type == SOFL_RSS_IPV4 ? 8 : type == SOFL_RSS_IPV6 ? 32 :
				 type <= SOFL_RSS_IPV4_UDP ? 12 : 36);
		assert_int_equal(o->hash, sofl_rss_toeplitz(sofl_rss_default_key, 40, in, n));
	}
	return type;
}

static void
spec_msv(struct t_spec *s, int ipv, int proto, const struct msv *v)
{
	t_spec_init(s, ipv, proto);
	addr(ipv, v->src, s->src);
	addr(ipv, v->dst, s->dst);
	s->sport = v->sport;
	s->dport = v->dport;
	s->pay_len = 10;
}

static void
test_microsoft_packets(void **state)
{
	struct t_spec s;
	struct sofl_rss_out o;
	size_t i;
	(void)state;

	for (i = 0; i < sizeof(v4) / sizeof(v4[0]); i++) {
		spec_msv(&s, 4, 6, &v4[i]);
		assert_int_equal(pkt_rss(rss, &s, &o), SOFL_RSS_IPV4_TCP);
		assert_int_equal(o.hash, v4[i].h4);
		assert_int_equal(o.queue, (v4[i].h4 & 127) % 4);
		spec_msv(&s, 4, 17, &v4[i]);
		assert_int_equal(pkt_rss(rss, &s, &o), SOFL_RSS_IPV4_UDP);
		assert_int_equal(o.hash, v4[i].h4);
		spec_msv(&s, 4, 1, &v4[i]);	/* ICMP: 2-tuple */
		assert_int_equal(pkt_rss(rss, &s, &o), SOFL_RSS_IPV4);
		assert_int_equal(o.hash, v4[i].h2);
	}
	for (i = 0; i < sizeof(v6) / sizeof(v6[0]); i++) {
		spec_msv(&s, 6, 6, &v6[i]);
		assert_int_equal(pkt_rss(rss, &s, &o), SOFL_RSS_IPV6_TCP);
		assert_int_equal(o.hash, v6[i].h4);
		spec_msv(&s, 6, 17, &v6[i]);
		assert_int_equal(pkt_rss(rss, &s, &o), SOFL_RSS_IPV6_UDP);
		assert_int_equal(o.hash, v6[i].h4);
		spec_msv(&s, 6, 58, &v6[i]);	/* ICMPv6: 2-tuple */
		assert_int_equal(pkt_rss(rss, &s, &o), SOFL_RSS_IPV6);
		assert_int_equal(o.hash, v6[i].h2);
		/* extension headers before TCP do not change the 4-tuple */
		spec_msv(&s, 6, 6, &v6[i]);
		s.ext[0].type = 0;
		s.ext[0].len = 8;
		s.ext[1].type = 60;
		s.ext[1].len = 16;
		s.n_ext = 2;
		assert_int_equal(pkt_rss(rss, &s, &o), SOFL_RSS_IPV6_TCP);
		assert_int_equal(o.hash, v6[i].h4);
	}
}

/* Random keys (40 and 52 bytes), lengths 0..36, inputs: table and GFNI == bit-serial. */
static void
test_random_cross_check(void **state)
{
	struct sofl_rss *r = NULL;
	uint64_t st = 0x5EED;
	uint8_t key[SOFL_RSS_KEY_MAX], in[SOFL_RSS_INPUT_MAX];
	int k, i;
	size_t j, len;
	(void)state;

	for (k = 0; k < 24; k++) {
		size_t klen = k % 3 == 2 ? SOFL_RSS_KEY_MAX : SOFL_RSS_KEY_LEN;

		for (j = 0; j < klen; j++)
			key[j] = (uint8_t)t_rand(&st);
		if (k == 0)
			memset(key, 0xff, klen);	/* all ones: every window is 0xffffffff */
		sofl_rss_destroy(r);
		assert_int_equal(rss_new(&r, key, klen, 8, 0), 0);
		for (i = 0; i < 2000; i++) {
			len = (size_t)(t_rand(&st) % (SOFL_RSS_INPUT_MAX + 1));
			for (j = 0; j < len; j++)
				in[j] = (uint8_t)t_rand(&st);
			if (i % 100 == 0)
				memset(in, i % 200 ? 0xff : 0x00, len);
			check_impls(r, in, len, sofl_rss_toeplitz(key, klen, in, len));
		}
	}
	sofl_rss_destroy(r);
	/* linearity, a property of the definition itself: h(a ^ b) = h(a) ^ h(b) */
	for (i = 0; i < 1000; i++) {
		uint8_t a[36], b[36], c[36];

		for (j = 0; j < 36; j++) {
			a[j] = (uint8_t)t_rand(&st);
			b[j] = (uint8_t)t_rand(&st);
			c[j] = a[j] ^ b[j];
		}
		assert_int_equal(sofl_rss_toeplitz(key, 40, c, 36),
				 sofl_rss_toeplitz(key, 40, a, 36) ^ sofl_rss_toeplitz(key, 40, b, 36));
	}
}

static void
rand_spec(struct t_spec *s, uint64_t *st)
{
	int ipv = t_rand(st) & 1 ? 4 : 6, proto = t_rand(st) & 1 ? 6 : 17;
	int i;

	t_spec_init(s, ipv, proto);
	for (i = 0; i < 16; i++) {
		s->src[i] = (uint8_t)t_rand(st);
		s->dst[i] = (uint8_t)t_rand(st);
	}
	s->sport = (uint16_t)t_rand(st);
	s->dport = (uint16_t)t_rand(st);
	if (t_rand(st) % 8 == 0)	/* equal ports / equal addresses */
		s->dport = s->sport;
	if (t_rand(st) % 8 == 0)
		memcpy(s->dst, s->src, 16);
	s->pay_len = 5;
}

static void
reverse(struct t_spec *s)
{
	uint8_t a[16];
	uint16_t p = s->sport;

	memcpy(a, s->src, 16);
	memcpy(s->src, s->dst, 16);
	memcpy(s->dst, a, 16);
	s->sport = s->dport;
	s->dport = p;
}

/* Symmetric mode: both directions alike, and exactly the documented sort. */
static void
test_symmetric(void **state)
{
	uint64_t st = 7;
	struct t_spec s;
	struct sofl_rss_out a, b, plain;
	int i, asym = 0;
	(void)state;

	for (i = 0; i < 4000; i++) {
		uint8_t in[36];
		size_t al;
		int ta, tb;

		rand_spec(&s, &st);
		if (i % 5 == 0)
			s.proto = s.ipv == 4 ? 1 : 58;	/* 2-tuple */
		al = s.ipv == 4 ? 4 : 16;
		ta = pkt_rss(rss_sym, &s, &a);
		pkt_rss(rss, &s, &plain);
		reverse(&s);
		tb = pkt_rss(rss_sym, &s, &b);
		assert_int_equal(ta, tb);
		assert_int_equal(a.hash, b.hash);
		assert_int_equal(a.queue, b.queue);
		/* expected: addresses sorted, ports sorted independently */
		reverse(&s);
		memcpy(in, memcmp(s.src, s.dst, al) <= 0 ? s.src : s.dst, al);
		memcpy(in + al, memcmp(s.src, s.dst, al) <= 0 ? s.dst : s.src, al);
		sofl_put16(in + 2 * al, s.sport < s.dport ? s.sport : s.dport);
		sofl_put16(in + 2 * al + 2, s.sport < s.dport ? s.dport : s.sport);
		assert_int_equal(a.hash, sofl_rss_toeplitz(sofl_rss_default_key, 40, in,
				 ta == SOFL_RSS_IPV4 || ta == SOFL_RSS_IPV6 ? 2 * al : 2 * al + 4));
		/* already sorted endpoints hash as in plain mode */
		if (memcmp(s.src, s.dst, al) <= 0 && s.sport <= s.dport)
			assert_int_equal(a.hash, plain.hash);
		/* plain mode is not symmetric (checked below over many tuples) */
		pkt_rss(rss, &s, &a);
		reverse(&s);
		pkt_rss(rss, &s, &b);
		asym += a.hash != b.hash;
	}
	assert_true(asym > 3000);
	/* §6.3 row 1 both ways */
	spec_msv(&s, 4, 6, &v4[0]);
	pkt_rss(rss_sym, &s, &a);
	reverse(&s);
	pkt_rss(rss_sym, &s, &b);
	assert_int_equal(a.hash, b.hash);
	/* 66.9.149.187 < 161.142.100.80 and 1766 < 2794: (src, dst, dport, sport) */
	{
		uint8_t in[12];
		addr(4, v4[0].src, in);
		addr(4, v4[0].dst, in + 4);
		sofl_put16(in + 8, 1766);
		sofl_put16(in + 10, 2794);
		assert_int_equal(a.hash, sofl_rss_toeplitz(sofl_rss_default_key, 40, in, 12));
	}
}

/* sofl_rss_hash_tuple() under every implementation of @r: they agree, the
 * queue is sofl_rss_queue()'s, and the fields it must ignore do not matter.
 * @return its result, *o the table path's output. */
static int
tuple_rss(struct sofl_rss *r, const struct sofl_flow_key *k, int ports, struct sofl_rss_out *o)
{
	struct sofl_flow_key noisy = *k;
	int i, type = -1;

	noisy.nvlan = 2;
	noisy.vlan[0] = 0xfff;
	noisy.flow_label = 0xfffff;
	if (k->family == 4)	/* past an IPv4 address: unused */
		memset(noisy.src + 4, 0xee, 12), memset(noisy.dst + 4, 0x11, 12);
	for (i = SOFL_RSS_IMPL_TABLE; i <= SOFL_RSS_IMPL_MIXED; i++) {
		struct sofl_rss_out x, y;

		if (!sofl_rss_impl_available((enum sofl_rss_impl)i))
			continue;
		assert_int_equal(sofl_rss_set_impl(r, (enum sofl_rss_impl)i), 0);
		memset(&x, 0xa5, sizeof(x));
		type = sofl_rss_hash_tuple(r, k, ports, &x);
		assert_true(type > 0);
		assert_int_equal(type, x.type);
		assert_int_equal(x.queue, sofl_rss_queue(r, x.hash));
		assert_int_equal(x.pad_, 0);
		if (i == SOFL_RSS_IMPL_TABLE)
			*o = x;
		assert_int_equal(x.hash, o->hash);
		assert_int_equal(sofl_rss_hash_tuple(r, &noisy, ports, &y), type);
		assert_int_equal(y.hash, x.hash);
	}
	return type;
}

/* The flow key a caller would fill by hand from @s (not the parser's). */
static void
spec_key(const struct t_spec *s, struct sofl_flow_key *k)
{
	memset(k, 0, sizeof(*k));
	k->family = (uint8_t)s->ipv;
	k->proto = (uint8_t)s->proto;
	memcpy(k->src, s->src, s->ipv == 4 ? 4 : 16);
	memcpy(k->dst, s->dst, s->ipv == 4 ? 4 : 16);
	k->sport = s->sport;
	k->dport = s->dport;
}

static void
key_reverse(struct sofl_flow_key *k)
{
	uint8_t a[16];
	uint16_t p = k->sport;

	memcpy(a, k->src, 16);
	memcpy(k->src, k->dst, 16);
	memcpy(k->dst, a, 16);
	k->sport = k->dport;
	k->dport = p;
}

/* A tuple hashes as sofl_rss_pkt() hashes a real frame carrying it, on the
 * Microsoft vectors and on random IPv4/IPv6 TCP/UDP, fragments and other
 * protocols (2-tuples), plain and symmetric, from a hand-filled key and
 * from the parser's. */
static void
test_tuple_vs_pkt(void **state)
{
	struct sofl_rss *eng[2] = { rss, rss_sym };
	struct sofl_rss_out a, b;
	struct sofl_flow_key k;
	struct t_spec s;
	uint64_t st = 0x7e57;
	size_t i;
	int e, n2 = 0, n4 = 0;
	(void)state;

	for (i = 0; i < sizeof(v4) / sizeof(v4[0]); i++) {
		spec_msv(&s, 4, 6, &v4[i]);
		spec_key(&s, &k);
		assert_int_equal(tuple_rss(rss, &k, 1, &a), SOFL_RSS_IPV4_TCP);
		assert_int_equal(a.hash, v4[i].h4);
		assert_int_equal(a.queue, (v4[i].h4 & 127) % 4);
		k.proto = 17;
		assert_int_equal(tuple_rss(rss, &k, 1, &a), SOFL_RSS_IPV4_UDP);
		assert_int_equal(a.hash, v4[i].h4);
		assert_int_equal(tuple_rss(rss, &k, 0, &a), SOFL_RSS_IPV4);
		assert_int_equal(a.hash, v4[i].h2);
	}
	for (i = 0; i < sizeof(v6) / sizeof(v6[0]); i++) {
		spec_msv(&s, 6, 17, &v6[i]);
		spec_key(&s, &k);
		assert_int_equal(tuple_rss(rss, &k, 1, &a), SOFL_RSS_IPV6_UDP);
		assert_int_equal(a.hash, v6[i].h4);
		k.proto = 6;
		assert_int_equal(tuple_rss(rss, &k, 1, &a), SOFL_RSS_IPV6_TCP);
		assert_int_equal(a.hash, v6[i].h4);
		k.proto = 58;	/* ignored for a 2-tuple */
		assert_int_equal(tuple_rss(rss, &k, 0, &a), SOFL_RSS_IPV6);
		assert_int_equal(a.hash, v6[i].h2);
	}
	for (i = 0; i < 3000; i++) {
		uint8_t buf[2048];
		struct sofl_pkt p;
		size_t len;
		int ports, ta, tb;

		rand_spec(&s, &st);
		if (i % 5 == 0)
			s.proto = s.ipv == 4 ? 1 : 58;		/* 2-tuple: ICMP */
		else if (i % 7 == 0 && s.ipv == 4)
			s.frag = 0x2000;			/* 2-tuple: a first fragment */
		len = t_build(buf, sizeof(buf), &s);
		assert_int_equal(sofl_pkt_parse(&p, buf, len, SOFL_LINK_ETH), 0);
		ports = (p.layers & SOFL_LAYER_L4) && !p.is_frag;
		n4 += ports;
		n2 += !ports;
		spec_key(&s, &k);
		for (e = 0; e < 2; e++) {
			ta = pkt_rss(eng[e], &s, &a);
			tb = tuple_rss(eng[e], &k, ports, &b);
			assert_int_equal(ta, tb);
			assert_int_equal(a.hash, b.hash);
			assert_int_equal(a.queue, b.queue);
			tb = tuple_rss(eng[e], &p.key, ports, &b);	/* the parser's key */
			assert_int_equal(ta, tb);
			assert_int_equal(a.hash, b.hash);
		}
	}
	assert_true(n2 > 500 && n4 > 1500);
}

/* Symmetric tuples: both directions hash alike, to the Toeplitz hash of the
 * sorted input; where a Microsoft vector is already in order (source below
 * destination, and for the 4-tuple sport below dport) that is the table's
 * value, from either direction. */
static void
test_tuple_symmetric(void **state)
{
	struct sofl_rss_out a, b, plain;
	struct sofl_flow_key k;
	struct t_spec s;
	uint64_t st = 99;
	size_t i, al;
	int ports, applicable = 0, asym = 0;
	(void)state;

	for (i = 0; i < sizeof(v4) / sizeof(v4[0]) + sizeof(v6) / sizeof(v6[0]); i++) {
		int v6i = i >= sizeof(v4) / sizeof(v4[0]);
		const struct msv *v = v6i ? &v6[i - sizeof(v4) / sizeof(v4[0])] : &v4[i];

		spec_msv(&s, v6i ? 6 : 4, 6, v);
		spec_key(&s, &k);
		al = v6i ? 16 : 4;
		for (ports = 0; ports < 2; ports++) {
			int sorted = memcmp(k.src, k.dst, al) < 0 && (!ports || k.sport < k.dport);

			tuple_rss(rss_sym, &k, ports, &a);
			key_reverse(&k);
			tuple_rss(rss_sym, &k, ports, &b);
			key_reverse(&k);
			assert_int_equal(a.hash, b.hash);
			if (sorted) {
				assert_int_equal(a.hash, ports ? v->h4 : v->h2);
				applicable++;
			}
		}
	}
	assert_true(applicable >= 5);	/* 2-tuples: 3 IPv4 and 2 IPv6 vectors */
	/* 66.9.149.187:2794 -> 161.142.100.80:1766 sorts to (src, dst, 1766, 2794) */
	{
		uint8_t in[12];

		spec_msv(&s, 4, 6, &v4[0]);
		spec_key(&s, &k);
		tuple_rss(rss_sym, &k, 1, &a);
		addr(4, v4[0].src, in);
		addr(4, v4[0].dst, in + 4);
		sofl_put16(in + 8, 1766);
		sofl_put16(in + 10, 2794);
		assert_int_equal(a.hash, sofl_rss_toeplitz(sofl_rss_default_key, 40, in, 12));
	}
	for (i = 0; i < 3000; i++) {
		uint8_t in[36];

		rand_spec(&s, &st);
		spec_key(&s, &k);
		ports = (int)(i & 1);
		al = s.ipv == 4 ? 4 : 16;
		tuple_rss(rss_sym, &k, ports, &a);
		tuple_rss(rss, &k, ports, &plain);
		key_reverse(&k);
		tuple_rss(rss_sym, &k, ports, &b);
		assert_int_equal(a.hash, b.hash);
		assert_int_equal(a.queue, b.queue);
		tuple_rss(rss, &k, ports, &b);
		asym += plain.hash != b.hash;
		key_reverse(&k);
		memcpy(in, memcmp(k.src, k.dst, al) <= 0 ? k.src : k.dst, al);
		memcpy(in + al, memcmp(k.src, k.dst, al) <= 0 ? k.dst : k.src, al);
		sofl_put16(in + 2 * al, k.sport < k.dport ? k.sport : k.dport);
		sofl_put16(in + 2 * al + 2, k.sport < k.dport ? k.dport : k.sport);
		assert_int_equal(a.hash, sofl_rss_toeplitz(sofl_rss_default_key, 40, in,
							   2 * al + (ports ? 4 : 0)));
	}
	assert_true(asym > 2000);	/* the plain engine is not symmetric */
}

/* Bad tuples are refused and leave *out alone. */
static void
test_tuple_errors(void **state)
{
	struct sofl_flow_key k;
	struct sofl_rss_out o, keep;
	struct t_spec s;
	(void)state;

	t_spec_init(&s, 4, 6);
	spec_key(&s, &k);
	memset(&keep, 0x5a, sizeof(keep));
	o = keep;
	assert_int_equal(sofl_rss_hash_tuple(NULL, &k, 1, &o), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_hash_tuple(rss, NULL, 1, &o), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_hash_tuple(rss, &k, 1, NULL), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_hash_tuple(rss, &k, 2, &o), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_hash_tuple(rss, &k, -1, &o), SOFL_E_INVAL);
	k.family = 0;		/* not IP */
	assert_int_equal(sofl_rss_hash_tuple(rss, &k, 0, &o), SOFL_E_INVAL);
	k.family = 5;
	assert_int_equal(sofl_rss_hash_tuple(rss_sym, &k, 1, &o), SOFL_E_INVAL);
	k.family = 4;
	k.proto = 1;		/* ports, but neither TCP nor UDP */
	assert_int_equal(sofl_rss_hash_tuple(rss, &k, 1, &o), SOFL_E_INVAL);
	k.proto = 132;
	assert_int_equal(sofl_rss_hash_tuple(rss_sym, &k, 1, &o), SOFL_E_INVAL);
	assert_memory_equal(&o, &keep, sizeof(o));
	assert_int_equal(sofl_rss_hash_tuple(rss, &k, 0, &o), SOFL_RSS_IPV4);	/* 2-tuple: fine */
	k.proto = 17;
	assert_int_equal(sofl_rss_hash_tuple(rss, &k, 1, &o), SOFL_RSS_IPV4_UDP);
}

/* sofl_rss_hash_tuple_batch() == sofl_rss_hash_tuple() per key, for every
 * length (odd ones end without a pair), engine, tuple kind and
 * implementation; keys the single call refuses get no hash, in place. */
static void
test_tuple_bulk(void **state)
{
	static struct sofl_flow_key k[67];
	static struct sofl_rss_out out[67], keep[67];
	struct sofl_rss *eng[2] = { rss, rss_sym };
	struct t_spec s;
	uint64_t st = 0xb01c;
	size_t i, n;
	int e, ports, impl;
	(void)state;

	for (i = 0; i < 67; i++) {
		rand_spec(&s, &st);
		spec_key(&s, &k[i]);
	}
	for (e = 0; e < 2; e++)
		for (impl = SOFL_RSS_IMPL_TABLE; impl <= SOFL_RSS_IMPL_MIXED; impl++) {
			if (sofl_rss_set_impl(eng[e], (enum sofl_rss_impl)impl) != 0)
				continue;
			for (ports = 0; ports < 2; ports++)
				for (n = 0; n <= 67; n += n < 6 ? 1 : 13) {
					memset(out, 0xa5, sizeof(out));
					assert_int_equal(sofl_rss_hash_tuple_batch(eng[e], k, n, ports, out),
							 (int)n);
					for (i = 0; i < n; i++) {
						struct sofl_rss_out one;

						assert_int_equal(sofl_rss_hash_tuple(eng[e], &k[i], ports,
										     &one), out[i].type);
						assert_memory_equal(&one, &out[i], sizeof(one));
					}
					if (n < 67)	/* nothing past n */
						assert_int_equal(out[n].hash, 0xa5a5a5a5);
				}
		}
	memset(keep, 0x5a, sizeof(keep));
	memcpy(out, keep, sizeof(out));
	assert_int_equal(sofl_rss_hash_tuple_batch(rss, k, 0, 1, NULL), 0);
	assert_int_equal(sofl_rss_hash_tuple_batch(NULL, NULL, 0, 0, NULL), 0);
	assert_int_equal(sofl_rss_hash_tuple_batch(NULL, k, 1, 1, out), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_hash_tuple_batch(rss, NULL, 1, 1, out), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_hash_tuple_batch(rss, k, 1, 1, NULL), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_hash_tuple_batch(rss, k, 3, 2, out), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_hash_tuple_batch(rss, k, (size_t)1 << 31, 1, out), SOFL_E_INVAL);
	assert_memory_equal(out, keep, sizeof(out));	/* errors write nothing */
	k[40].family = 0;	/* not IP */
	k[41].family = 5;
	k[66].proto = 1;	/* ports asked, neither TCP nor UDP */
	for (e = 0; e < 2; e++)
		for (impl = SOFL_RSS_IMPL_TABLE; impl <= SOFL_RSS_IMPL_MIXED; impl++) {
			if (sofl_rss_set_impl(eng[e], (enum sofl_rss_impl)impl) != 0)
				continue;
			memcpy(out, keep, sizeof(out));
			assert_int_equal(sofl_rss_hash_tuple_batch(eng[e], k, 67, 1, out), 64);
			for (i = 0; i < 67; i++) {
				struct sofl_rss_out one;
				int t = sofl_rss_hash_tuple(eng[e], &k[i], 1, &one);

				if (i == 40 || i == 41 || i == 66) {
					assert_int_equal(t, SOFL_E_INVAL);
					assert_int_equal(out[i].type, SOFL_RSS_NONE);
					assert_int_equal(out[i].hash, 0);
					assert_int_equal(out[i].queue, 0);
					continue;
				}
				assert_memory_equal(&one, &out[i], sizeof(one));
			}
			/* as 2-tuples only the two non-IP keys get none */
			assert_int_equal(sofl_rss_hash_tuple_batch(eng[e], k, 67, 0, out), 65);
		}
	k[40].family = 4;
	k[41].family = 6;
	k[66].proto = 6;
	assert_int_equal(sofl_rss_hash_tuple_batch(rss, k, 67, 1, out), 67);
}

/* What is hashed: fragments, non-IP, VLAN, raw IP, truncated L4. */
static void
test_tuple_choice(void **state)
{
	struct t_spec s;
	struct sofl_rss_out o, ref;
	uint8_t buf[2048];
	struct sofl_pkt p;
	size_t len;
	int err;
	(void)state;

	spec_msv(&s, 4, 6, &v4[1]);
	assert_int_equal(pkt_rss(rss, &s, &ref), SOFL_RSS_IPV4_TCP);
	/* VLAN tags and raw IP framing do not change the hash */
	s.nvlan = 2;
	s.vlan_tci[0] = 100;
	s.vlan_tci[1] = 200;
	s.vlan_tpid[0] = 0x88a8;
	assert_int_equal(pkt_rss(rss, &s, &o), SOFL_RSS_IPV4_TCP);
	assert_int_equal(o.hash, ref.hash);
	s.nvlan = 0;
	s.link = SOFL_LINK_RAW;
	assert_int_equal(pkt_rss(rss, &s, &o), SOFL_RSS_IPV4_TCP);
	assert_int_equal(o.hash, ref.hash);
	s.link = SOFL_LINK_ETH;

	/* IPv4 fragments, the first one included, use the 2-tuple */
	s.df = 0;
	s.frag = 0x2000;		/* MF, offset 0 */
	assert_int_equal(pkt_rss(rss, &s, &o), SOFL_RSS_IPV4);
	assert_int_equal(o.hash, v4[1].h2);
	s.frag = 185;			/* last fragment, offset 1480 */
	assert_int_equal(pkt_rss(rss, &s, &o), SOFL_RSS_IPV4);
	assert_int_equal(o.hash, v4[1].h2);

	/* IPv6 fragment header */
	spec_msv(&s, 6, 17, &v6[2]);
	s.ext[0].type = 44;
	s.ext[0].frag_mf = 1;
	s.n_ext = 1;
	assert_int_equal(pkt_rss(rss, &s, &o), SOFL_RSS_IPV6);
	assert_int_equal(o.hash, v6[2].h2);

	/* non-IP: no hash, hash 0, queue 0 */
	t_spec_init(&s, 4, 6);
	len = t_build_arp(buf, sizeof(buf), &s);
	assert_int_equal(sofl_pkt_parse(&p, buf, len, SOFL_LINK_ETH), 0);
	memset(&o, 0xa5, sizeof(o));
	assert_int_equal(sofl_rss_pkt(rss, &p, &o), SOFL_RSS_NONE);
	assert_int_equal(o.type, SOFL_RSS_NONE);
	assert_int_equal(o.hash, 0);
	assert_int_equal(o.queue, 0);

	/* TCP header cut off (parse error after L3): the 2-tuple of what parsed */
	spec_msv(&s, 4, 6, &v4[3]);
	len = t_build(buf, sizeof(buf), &s);
	sofl_put16(buf + 14 + 2, 20 + 10);	/* IP total length: 10 bytes of TCP */
	err = sofl_pkt_parse(&p, buf, len, SOFL_LINK_ETH);
	assert_int_equal(err, SOFL_E_TCP_TRUNC);
	assert_int_equal(sofl_rss_pkt(rss, &p, &o), SOFL_RSS_IPV4);
	assert_int_equal(o.hash, v4[3].h2);

	/* frame shorter than an IP header: no hash */
	err = sofl_pkt_parse(&p, buf, 20, SOFL_LINK_ETH);
	assert_true(err < 0);
	assert_int_equal(sofl_rss_pkt(rss, &p, &o), SOFL_RSS_NONE);
	/* an all-zero sofl_pkt (never parsed): no hash */
	memset(&p, 0, sizeof(p));
	assert_int_equal(sofl_rss_pkt(rss, &p, &o), SOFL_RSS_NONE);
}

/* Bursts (paired on the GFNI paths) equal the bit-serial hash of each
 * packet's input, for every implementation, both modes, inner RSS on and
 * off, any burst length and mixes of IPv4, IPv6, 2-tuples, non-IP packets
 * and tunnel packets (VXLAN, Geneve, IP-in-IP around every fourth one:
 * hashed on the outer header, or with SOFL_RSS_F_INNER on the inner flow). */
static void
test_burst(void **state)
{
	static struct sofl_pkt pk[64];
	static uint8_t bufs[64][512];
	struct sofl_rss_out out[64];
	struct sofl_rss *engines[4] = { rss, rss_sym, NULL, NULL };
	uint64_t st = 99;
	struct t_spec s;
	int i, e, impl, want = 0;
	size_t n, off;
	(void)state;

	assert_int_equal(rss_new(&engines[2], NULL, 0, 4, SOFL_RSS_F_INNER), 0);
	assert_int_equal(rss_new(&engines[3], NULL, 0, 4,
				 SOFL_RSS_F_INNER | SOFL_RSS_F_SYMMETRIC), 0);
	for (i = 0; i < 64; i++) {
		size_t len;

		rand_spec(&s, &st);
		if (i % 5 == 2)
			s.proto = s.ipv == 4 ? 1 : 58;
		if (i % 7 == 3 || i == 62) {
			len = t_build_arp(bufs[i], sizeof(bufs[i]), &s);
		} else if (i % 4 == 1) {
			/* a tunnel packet (always hashed: the outer header is IP) */
			static const int kinds[3] = { SOFL_ENCAP_VXLAN, SOFL_ENCAP_GENEVE,
						      SOFL_ENCAP_IPIP };
			struct te_spec e2;
			int k;

			te_spec_init(&e2, kinds[i % 3], t_rand(&st) & 1 ? 4 : 6);
			for (k = 0; k < 16; k++) {
				e2.osrc[k] = (uint8_t)t_rand(&st);
				e2.odst[k] = (uint8_t)t_rand(&st);
			}
			e2.sport = (uint16_t)t_rand(&st);
			e2.geneve_opt_len = 4 * (t_rand(&st) % 3);
			e2.udp_csum = (int)(t_rand(&st) & 1);
			len = te_build(bufs[i], sizeof(bufs[i]), &e2, &s, NULL);
			want++;
		} else {
			len = t_build(bufs[i], sizeof(bufs[i]), &s);
			want++;
		}
		assert_int_equal(sofl_pkt_parse(&pk[i], bufs[i], len, SOFL_LINK_ETH), 0);
		if (i % 4 == 1 && !(i % 7 == 3 || i == 62))
			assert_true(pk[i].layers & SOFL_LAYER_ENCAP);
	}
	for (e = 0; e < 4; e++) {
		struct sofl_rss *r = engines[e];

		for (impl = SOFL_RSS_IMPL_TABLE; impl <= SOFL_RSS_IMPL_MIXED; impl++) {
			if (sofl_rss_set_impl(r, (enum sofl_rss_impl)impl) != 0)
				continue;
			assert_int_equal(sofl_rss_pkt_batch(r, pk, 64, out), want);
			for (off = 0; off < 3; off++) {
				for (n = 0; n + off <= 64; n += 1 + n / 4) {
					int got = sofl_rss_pkt_batch(r, pk + off, n, out), cnt = 0;

					for (i = 0; i < (int)n; i++) {
						uint8_t in[SOFL_RSS_INPUT_MAX];
						size_t len;
						int type = sofl_rss_input(r, &pk[off + i], in, &len);

						assert_int_equal(out[i].type, type);
						assert_int_equal(out[i].hash, len ?
						    sofl_rss_toeplitz(sofl_rss_default_key, 40, in, len) : 0);
						assert_int_equal(out[i].queue, type ?
						    sofl_rss_reta_get(r, out[i].hash & 127) : 0);
						cnt += type != SOFL_RSS_NONE;
					}
					assert_int_equal(got, cnt);
				}
			}
		}
	}
	sofl_rss_destroy(engines[2]);
	sofl_rss_destroy(engines[3]);
	assert_int_equal(sofl_rss_pkt_batch(rss, pk, 0, out), 0);
	assert_int_equal(sofl_rss_pkt_batch(NULL, NULL, 0, NULL), 0);
	assert_int_equal(sofl_rss_pkt_batch(rss, NULL, 1, out), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_pkt_batch(rss, pk, 1, NULL), SOFL_E_INVAL);
}

/* The bulk form equals the bit-serial hash of every tuple, for every length. */
static void
test_bulk(void **state)
{
	static uint8_t tup[33][SOFL_RSS_INPUT_MAX];
	const void *ptr[33];
	uint32_t out[33];
	uint64_t st = 0xb01c;
	size_t len, i, j;
	int impl;
	(void)state;

	for (i = 0; i < 33; i++) {
		for (j = 0; j < SOFL_RSS_INPUT_MAX; j++)
			tup[i][j] = (uint8_t)t_rand(&st);
		ptr[i] = tup[i];
	}
	for (impl = SOFL_RSS_IMPL_TABLE; impl <= SOFL_RSS_IMPL_MIXED; impl++) {
		if (!sofl_rss_impl_available((enum sofl_rss_impl)impl))
			continue;
		assert_int_equal(sofl_rss_set_impl(rss, (enum sofl_rss_impl)impl), 0);
		for (len = 0; len <= SOFL_RSS_INPUT_MAX; len++) {
			memset(out, 0xa5, sizeof(out));
			assert_int_equal(sofl_rss_hash_bytes_batch(rss, ptr, len, 33, out), 0);
			for (i = 0; i < 33; i++)
				assert_int_equal(out[i], sofl_rss_toeplitz(sofl_rss_default_key, 40,
									   tup[i], len));
		}
		/* n = 0 writes nothing */
		out[0] = 0x1234;
		assert_int_equal(sofl_rss_hash_bytes_batch(rss, ptr, 12, 0, out), 0);
		assert_int_equal(out[0], 0x1234);
	}
	assert_int_equal(sofl_rss_hash_bytes_batch(NULL, NULL, 12, 0, NULL), 0);
	assert_int_equal(sofl_rss_hash_bytes_batch(rss, ptr, 37, 1, out), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_hash_bytes_batch(rss, NULL, 12, 1, out), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_hash_bytes_batch(rss, ptr, 12, 1, NULL), SOFL_E_INVAL);
	ptr[5] = NULL;
	assert_int_equal(sofl_rss_hash_bytes_batch(rss, ptr, 12, 6, out), SOFL_E_INVAL);
}

/* Engines are the library's: sofl_rss_create() aligns them to 64 bytes (the
 * GFNI matrices then span 5 cache lines), and several engines, plain and
 * symmetric, hash as the definition says on every path of every
 * implementation, independently of each other. */
static void
test_engines(void **state)
{
	static struct sofl_pkt pk[8];
	static uint8_t bufs[8][256];
	static uint8_t tup[3][SOFL_RSS_INPUT_MAX];
	const void *ptr[3] = { tup[0], tup[1], tup[2] };
	struct sofl_rss *eng[3];
	size_t len, o, i;
	uint64_t st = 0x3a11;
	struct t_spec s;
	int impl;
	(void)state;

	for (i = 0; i < 8; i++) {
		rand_spec(&s, &st);
		len = t_build(bufs[i], sizeof(bufs[i]), &s);
		assert_int_equal(sofl_pkt_parse(&pk[i], bufs[i], len, SOFL_LINK_ETH), 0);
	}
	for (i = 0; i < 3; i++)
		for (len = 0; len < SOFL_RSS_INPUT_MAX; len++)
			tup[i][len] = (uint8_t)t_rand(&st);
	for (o = 0; o < 3; o++) {
		assert_int_equal(rss_new(&eng[o], NULL, 0, 4, o & 1 ? SOFL_RSS_F_SYMMETRIC : 0),
				 0);
		assert_int_equal((uintptr_t)eng[o] % 64, 0);
	}
	for (o = 0; o < 3; o++) {
		struct sofl_rss *r = eng[o];

		for (impl = SOFL_RSS_IMPL_TABLE; impl <= SOFL_RSS_IMPL_MIXED; impl++) {
			struct sofl_rss_out out[8], one;
			uint32_t h[3];

			if (sofl_rss_set_impl(r, (enum sofl_rss_impl)impl) != 0)
				continue;
			for (len = 8; len <= SOFL_RSS_INPUT_MAX; len += 4) {
				uint32_t want = sofl_rss_toeplitz(sofl_rss_default_key, 40, tup[0], len);

				assert_int_equal(sofl_rss_hash_bytes(r, tup[0], len, &h[0]), 0);
				assert_int_equal(h[0], want);
				assert_int_equal(sofl_rss_hash_bytes_batch(r, ptr, len, 3, h), 0);
				for (i = 0; i < 3; i++)
					assert_int_equal(h[i], sofl_rss_toeplitz(sofl_rss_default_key,
										 40, tup[i], len));
			}
			assert_int_equal(sofl_rss_pkt_batch(r, pk, 8, out), 8);
			for (i = 0; i < 8; i++) {
				uint8_t in[SOFL_RSS_INPUT_MAX];

				assert_int_equal(sofl_rss_pkt(r, &pk[i], &one), out[i].type);
				assert_int_equal(one.hash, out[i].hash);
				assert_int_equal(sofl_rss_input(r, &pk[i], in, &len), out[i].type);
				assert_int_equal(out[i].hash,
				    sofl_rss_toeplitz(sofl_rss_default_key, 40, in, len));
			}
		}
	}
	for (o = 0; o < 3; o++)
		sofl_rss_destroy(eng[o]);
}

/* Malformed input: random and mutated frames of every length never crash
 * (run under ASan in check-sanitize), and the result always follows from
 * what the parser reported. */
static void
test_garbage(void **state)
{
	static uint8_t buf[256];
	uint64_t st = 0xbad;
	struct t_spec s;
	struct sofl_pkt p;
	struct sofl_rss_out o;
	int i, hashed = 0;
	(void)state;

	for (i = 0; i < 200000; i++) {
		size_t len, j;
		int type, link = (int)(t_rand(&st) & 1);
		uint8_t *f;

		rand_spec(&s, &st);
		s.link = link;
		s.pay_len = t_rand(&st) % 40;
		len = t_build(buf, sizeof(buf), &s);
		for (j = t_rand(&st) % 4; j > 0; j--)	/* flip a few bytes */
			buf[t_rand(&st) % len] ^= (uint8_t)(1u << (t_rand(&st) % 8));
		if (t_rand(&st) & 1)	/* and cut anywhere, half the time */
			len = (size_t)(t_rand(&st) % (len + 1));
		/* a heap copy of exactly len bytes, so ASan sees any over-read */
		f = malloc(len ? len : 1);
		assert_non_null(f);
		memcpy(f, buf, len);
		sofl_pkt_parse(&p, f, len, (enum sofl_link)link);
		type = sofl_rss_pkt(i & 1 ? rss : rss_sym, &p, &o);
		assert_true(type >= 0 && type <= SOFL_RSS_IPV6_UDP);
		if (!(p.layers & SOFL_LAYER_L3)) {
			assert_int_equal(type, SOFL_RSS_NONE);
		} else {
			assert_true(type != SOFL_RSS_NONE);
			assert_int_equal(type == SOFL_RSS_IPV6 || type >= SOFL_RSS_IPV6_TCP,
					 p.key.family == 6);
			assert_int_equal(type != SOFL_RSS_IPV4 && type != SOFL_RSS_IPV6,
					 (p.layers & SOFL_LAYER_L4) && !p.is_frag);
			hashed++;
		}
		free(f);
	}
	assert_true(hashed > 50000);	/* the mutations still reach the hash */
}

static void
count_queues(const struct sofl_rss *r, unsigned *cnt, unsigned n)
{
	unsigned i;

	memset(cnt, 0, n * sizeof(*cnt));
	for (i = 0; i < sofl_rss_reta_size(r); i++) {
		int q = sofl_rss_reta_get(r, i);
		assert_true(q >= 0 && (unsigned)q < n);
		cnt[q]++;
	}
}

static void
test_reta(void **state)
{
	struct sofl_rss *r;
	unsigned cnt[8], i;
	unsigned w1[3] = { 1, 2, 1 }, w2[3] = { 3, 0, 1 }, w3[3] = { 1, 1, 1 }, w0[2] = { 0, 0 };
	(void)state;

	assert_int_equal(rss_new(&r, NULL, 0, 3, 0), 0);
	assert_int_equal(sofl_rss_reta_size(r), 128);
	assert_int_equal(sofl_rss_nqueues(r), 3);
	for (i = 0; i < 128; i++)
		assert_int_equal(sofl_rss_reta_get(r, i), i % 3);
	assert_int_equal(sofl_rss_queue(r, 0x51ccc178), (0x51ccc178 & 127) % 3);
	assert_int_equal(sofl_rss_queue(r, 0xffffff80), 0);	/* only the low 7 bits count */

	/* entry by entry, as ethtool -X */
	assert_int_equal(sofl_rss_reta_set(r, 0x78, 0), 0);
	assert_int_equal(sofl_rss_queue(r, 0x51ccc178), 0);
	assert_int_equal(sofl_rss_reta_set(r, 128, 0), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_reta_set(r, 0, 3), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_reta_get(r, 128), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_reta_get(r, 0x78), 0);

	/* round-robin resize */
	assert_int_equal(sofl_rss_reta_fill(r, 512, 8), 0);
	count_queues(r, cnt, 8);
	for (i = 0; i < 8; i++)
		assert_int_equal(cnt[i], 64);
	assert_int_equal(sofl_rss_queue(r, 0x1ff), 7);
	assert_int_equal(sofl_rss_reta_fill(r, 1, 1), 0);
	assert_int_equal(sofl_rss_queue(r, 0xffffffff), 0);
	assert_int_equal(sofl_rss_reta_fill(r, 96, 4), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_reta_fill(r, 1024, 4), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_reta_fill(r, 0, 4), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_reta_fill(r, 128, 0), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_reta_size(r), 1);	/* unchanged by the failures */

	/* weights, contiguous runs as ethtool's "weight" */
	assert_int_equal(sofl_rss_reta_weights(r, 128, w1, 3), 0);
	count_queues(r, cnt, 3);
	assert_int_equal(cnt[0], 32);
	assert_int_equal(cnt[1], 64);
	assert_int_equal(cnt[2], 32);
	assert_int_equal(sofl_rss_reta_get(r, 31), 0);
	assert_int_equal(sofl_rss_reta_get(r, 32), 1);
	assert_int_equal(sofl_rss_reta_get(r, 96), 2);
	assert_int_equal(sofl_rss_reta_weights(r, 128, w2, 3), 0);
	count_queues(r, cnt, 3);
	assert_int_equal(cnt[0], 96);
	assert_int_equal(cnt[1], 0);
	assert_int_equal(cnt[2], 32);
	assert_int_equal(sofl_rss_reta_weights(r, 128, w3, 3), 0);
	count_queues(r, cnt, 3);	/* floor(128/3) = 42, floor(256/3) = 85 */
	assert_int_equal(cnt[0], 42);
	assert_int_equal(cnt[1], 43);
	assert_int_equal(cnt[2], 43);
	assert_int_equal(sofl_rss_reta_weights(r, 128, w0, 2), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_reta_weights(r, 100, w1, 3), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_reta_weights(r, 128, NULL, 3), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_reta_weights(r, 128, w1, 0), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_nqueues(r), 3);
	sofl_rss_destroy(r);
	/* the accessors tolerate NULL */
	assert_int_equal(sofl_rss_reta_size(NULL), 0);
	assert_int_equal(sofl_rss_nqueues(NULL), 0);
	assert_int_equal(sofl_rss_queue(NULL, 0x51ccc178), 0);
	assert_int_equal(sofl_rss_reta_get(NULL, 0), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_reta_set(NULL, 0, 0), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_reta_fill(NULL, 128, 1), SOFL_E_INVAL);
}

/* The sized config: NULL = defaults, the size rule of every config struct,
 * and *out NULL after any error. */
static void
test_config(void **state)
{
	struct {
		struct sofl_rss_config c;
		uint8_t tail[16];
	} big;
	struct sofl_rss_config c;
	struct sofl_rss *r = (struct sofl_rss *)(void *)&c;	/* not NULL: errors reset it */
	uint8_t key[SOFL_RSS_KEY_LEN];
	(void)state;

	sofl_rss_config_init(NULL);	/* allowed */
	sofl_rss_config_init(&c);
	assert_int_equal(c.size, sizeof(c));
	assert_int_equal(c.nqueues, 1);
	assert_int_equal(c.flags, 0);
	assert_null(c.key);
	assert_int_equal(c.key_len, 0);
	/* NULL config: the defaults (Microsoft key, one queue, 128 entries) */
	assert_int_equal(sofl_rss_create(NULL, &r), 0);
	assert_non_null(r);
	assert_int_equal(sofl_rss_nqueues(r), 1);
	assert_int_equal(sofl_rss_reta_size(r), SOFL_RSS_RETA_DEFAULT);
	sofl_rss_destroy(r);
	assert_int_equal(sofl_rss_create(NULL, NULL), SOFL_E_INVAL);
	/* size below the first version's: refused, *out NULL */
	r = (struct sofl_rss *)(void *)&c;
	c.size = 4;
	assert_int_equal(sofl_rss_create(&c, &r), SOFL_E_CFG_SIZE);
	assert_null(r);
	c.size = 0;
	assert_int_equal(sofl_rss_create(&c, &r), SOFL_E_CFG_SIZE);
	/* a larger (newer) struct: zero tail accepted, non-zero tail refused */
	memset(&big, 0, sizeof(big));
	sofl_rss_config_init(&big.c);
	big.c.size = sizeof(big);
	big.c.nqueues = 3;
	assert_int_equal(sofl_rss_create(&big.c, &r), 0);
	assert_int_equal(sofl_rss_nqueues(r), 3);
	sofl_rss_destroy(r);
	big.tail[15] = 1;
	r = (struct sofl_rss *)(void *)&c;
	assert_int_equal(sofl_rss_create(&big.c, &r), SOFL_E_CFG_SIZE);
	assert_null(r);
	/* the key is copied: changing it after create changes nothing */
	memcpy(key, sofl_rss_default_key, sizeof(key));
	sofl_rss_config_init(&c);
	c.key = key;
	c.key_len = sizeof(key);
	assert_int_equal(sofl_rss_create(&c, &r), 0);
	memset(key, 0, sizeof(key));
	{
		uint32_t h1, h2;
		struct sofl_rss *d;

		assert_int_equal(sofl_rss_create(NULL, &d), 0);
		assert_int_equal(sofl_rss_hash_bytes(r, sofl_rss_default_key, 12, &h1), 0);
		assert_int_equal(sofl_rss_hash_bytes(d, sofl_rss_default_key, 12, &h2), 0);
		assert_int_equal(h1, h2);
		assert_int_not_equal(h1, 0);
		sofl_rss_destroy(d);
	}
	sofl_rss_destroy(r);
}

static void
test_args(void **state)
{
	uint8_t key[SOFL_RSS_KEY_MAX + 1] = { 0 }, in[40] = { 0 };
	struct sofl_rss *r = (struct sofl_rss *)(void *)in;	/* not NULL: an error resets it */
	uint32_t h;
	(void)state;

	assert_int_equal(rss_new(NULL, NULL, 0, 1, 0), SOFL_E_INVAL);
	assert_int_equal(rss_new(&r, NULL, 0, 0, 0), SOFL_E_INVAL);
	assert_null(r);		/* an error leaves *out NULL */
	assert_int_equal(rss_new(&r, NULL, 0, 65536, 0), SOFL_E_INVAL);
	assert_int_equal(rss_new(&r, NULL, 0, 1, 0x80), SOFL_E_INVAL);
	assert_int_equal(rss_new(&r, NULL, 12, 1, 0), SOFL_E_INVAL);
	assert_int_equal(rss_new(&r, key, 39, 1, 0), SOFL_E_INVAL);
	assert_int_equal(rss_new(&r, key, 53, 1, 0), SOFL_E_INVAL);
	assert_null(r);
	sofl_rss_destroy(NULL);	/* allowed */
	assert_int_equal(rss_new(&r, NULL, 40, 65535, SOFL_RSS_F_SYMMETRIC), 0);
	assert_non_null(r);
	assert_int_equal(sofl_rss_nqueues(r), 65535);
	sofl_rss_destroy(r);
	assert_int_equal(rss_new(&r, key, 52, 2, 0), 0);
	/* an all-zero key hashes everything to 0 */
	memset(in, 0xff, sizeof(in));
	assert_int_equal(sofl_rss_hash_bytes(r, in, 36, &h), 0);
	assert_int_equal(h, 0);
	assert_int_equal(sofl_rss_hash_bytes(r, in, 37, &h), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_hash_bytes(r, NULL, 1, &h), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_hash_bytes(r, in, 1, NULL), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_hash_bytes(NULL, in, 1, &h), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_hash_bytes(r, NULL, 0, &h), 0);
	assert_int_equal(sofl_rss_pkt(r, NULL, NULL), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_set_impl(r, (enum sofl_rss_impl)7), SOFL_E_INVAL);
	assert_int_equal(sofl_rss_set_impl(r, SOFL_RSS_IMPL_TABLE), 0);
	assert_string_equal(sofl_rss_impl_name(r), "table");
	if (sofl_rss_impl_available(SOFL_RSS_IMPL_GFNI)) {
		assert_int_equal(sofl_rss_set_impl(r, SOFL_RSS_IMPL_GFNI), 0);
		assert_string_equal(sofl_rss_impl_name(r), "gfni");
	} else {
		assert_int_equal(sofl_rss_set_impl(r, SOFL_RSS_IMPL_GFNI), SOFL_E_NOTSUP);
		fprintf(stderr, "note: GFNI path not available here; table path only\n");
	}
	/* the bit-serial reference tolerates anything */
	assert_int_equal(sofl_rss_toeplitz(NULL, 0, in, 4), 0);
	assert_int_equal(sofl_rss_toeplitz(key, 4, NULL, 4), 0);
	sofl_rss_destroy(r);
}

static int
setup(void **state)
{
	(void)state;
	if (rss_new(&rss, NULL, 0, 4, 0) ||
	    rss_new(&rss_sym, NULL, 0, 4, SOFL_RSS_F_SYMMETRIC))
		return -1;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	sofl_rss_destroy(rss);
	sofl_rss_destroy(rss_sym);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reference_vector),
		cmocka_unit_test(test_microsoft_vectors),
		cmocka_unit_test(test_microsoft_packets),
		cmocka_unit_test(test_random_cross_check),
		cmocka_unit_test(test_symmetric),
		cmocka_unit_test(test_tuple_choice),
		cmocka_unit_test(test_tuple_vs_pkt),
		cmocka_unit_test(test_tuple_symmetric),
		cmocka_unit_test(test_tuple_errors),
		cmocka_unit_test(test_tuple_bulk),
		cmocka_unit_test(test_burst),
		cmocka_unit_test(test_bulk),
		cmocka_unit_test(test_engines),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_reta),
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_config),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
