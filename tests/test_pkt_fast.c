/* Description: the parser's straight-line fast path gives exactly the generic parser's result (return code and every byte of struct sofl_pkt a parse defines) on random valid packets of every layout (Ethernet/raw, 0-2 VLAN tags, IPv4 with/without options and fragments, IPv6 with/without extension headers, TCP with assorted options, UDP, other protocols, padding; and each of them inside a VXLAN, Geneve or IP-in-IP tunnel), on every prefix of them and on random byte mutations of their headers (a tunnel's inner headers too); and on every value of the IPv4 version/IHL byte, of each fragment-field bit, and of the total length against every TCP data offset or UDP length (the fast path's folded length checks). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "helpers.h"
#include "helpers_encap.h"
#include "pkt/pkt_impl.h"

#define BUFSZ 2048

static uint32_t
rnd(uint64_t *r, uint32_t n)
{
	return (uint32_t)(t_rand(r) % n);
}

/* Parses @len bytes of @frame both ways (each from an exact-size heap copy,
 * so ASan sees any overread) and asserts equal results. */
static void
same_both(const uint8_t *frame, size_t len, int link)
{
	struct sofl_pkt a, b;
	uint8_t *c = malloc(len ? len : 1);
	int ea, eb;

	memcpy(c, frame, len);
	memset(&a, 0xa5, sizeof(a));	/* stale bytes must not survive either parse */
	memset(&b, 0x5a, sizeof(b));
	ea = sofl_pkt_parse(&a, c, len, (enum sofl_link)link);
	eb = sofl_pkt_parse_generic(&b, c, len, (enum sofl_link)link);
	if (ea != eb || memcmp(&a, &b, pk_named_len(&b)) != 0) {
		fprintf(stderr, "link %d len %zu: fast %d (%s), generic %d (%s)\n", link, len, ea,
			sofl_strerror(ea), eb, sofl_strerror(eb));
		t_hexdump("frame", frame, len);
		t_hexdump("fast", &a, sizeof(a));
		t_hexdump("generic", &b, sizeof(b));
		free(c);
		fail();
	}
	free(c);
}

static const uint8_t opt_mss_ws_sack[12] = { 2, 4, 5, 0xb4, 1, 3, 3, 7, 4, 2, 0, 0 };
static const uint8_t opt_bad[8] = { 1, 1, 8, 12, 0, 0, 0, 0 };	/* TS length runs past */
static const uint8_t opt_ts_eol[12] = { 8, 10, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0 };
static const uint8_t ip_opts[4] = { 0x94, 4, 0, 0 };		/* router alert */

/* A random plain packet: mostly the common layouts, often one of the others. */
static size_t
random_plain(uint64_t *r, uint8_t *buf, int *link)
{
	struct t_spec s;
	uint32_t k = rnd(r, 10);
	int ipv = rnd(r, 2) ? 4 : 6;
	int proto = k < 6 ? 6 : k < 9 ? 17 : (ipv == 4 ? 1 : 58);

	t_spec_init(&s, ipv, proto);
	s.link = rnd(r, 5) ? SOFL_LINK_ETH : SOFL_LINK_RAW;
	*link = s.link;
	if (s.link == SOFL_LINK_ETH) {
		s.nvlan = (int)rnd(r, 6) % 3;	/* 0 most often */
		s.vlan_tci[0] = (uint16_t)t_rand(r);
		s.vlan_tci[1] = (uint16_t)t_rand(r);
		s.vlan_tpid[0] = rnd(r, 2) ? 0x8100 : 0x88a8;
		s.vlan_tpid[1] = 0x8100;
		if (!rnd(r, 8))
			s.eth_pad = rnd(r, 20);
	}
	s.sport = (uint16_t)t_rand(r);
	s.dport = (uint16_t)t_rand(r);
	s.seq = (uint32_t)t_rand(r);
	s.ack = (uint32_t)t_rand(r);
	s.flags = (uint8_t)t_rand(r);
	s.ip_id = (uint16_t)t_rand(r);
	s.tos = (uint8_t)t_rand(r);
	s.df = (int)rnd(r, 2);
	s.flow_label = (uint32_t)t_rand(r) & 0xfffff;
	s.pay_len = rnd(r, 4) ? rnd(r, 200) : 0;
	s.pay_seed = (uint8_t)t_rand(r);
	switch (rnd(r, 6)) {
	case 0: case 1: s.tcp_opts = t_opt_ts; s.tcp_opts_len = 12; break;
	case 2: s.tcp_opts = opt_mss_ws_sack; s.tcp_opts_len = 12; break;
	case 3:
		if (rnd(r, 2)) {
			s.tcp_opts = opt_bad;
			s.tcp_opts_len = 8;
		} else {
			s.tcp_opts = opt_ts_eol;
			s.tcp_opts_len = rnd(r, 2) ? 8 : 12;	/* 8: TS cut (malformed) */
		}
		break;
	default: break;
	}
	if (ipv == 4) {
		if (!rnd(r, 8)) {
			s.ip_opts = ip_opts;
			s.ip_opts_len = 4;
		}
		if (!rnd(r, 8))
			s.frag = (uint16_t)(rnd(r, 2) ? 0x2000 : 0x8000 | rnd(r, 0x2000));
	} else if (!rnd(r, 6)) {
		static const uint8_t types[4] = { 0, 43, 60, 44 };
		s.n_ext = 1 + (int)rnd(r, 2);
		for (int i = 0; i < s.n_ext; i++) {
			s.ext[i].type = types[i == 0 ? rnd(r, 4) : 1 + rnd(r, 3)];
			s.ext[i].len = s.ext[i].type == 44 ? 8 : (uint8_t)(8 * (1 + rnd(r, 2)));
			s.ext[i].frag_off = (uint16_t)rnd(r, 3);
			s.ext[i].frag_mf = (uint8_t)rnd(r, 2);
		}
	}
	return t_build(buf, BUFSZ, &s);
}

/* A random packet: a plain one, or one (a quarter) wrapped in a VXLAN,
 * Geneve or IP-in-IP tunnel with a random outer header, the inner packet
 * of a link the tunnel carries (inner VLAN tags and the rest included:
 * the mutations make the malformed ones) */
static size_t
random_packet(uint64_t *r, uint8_t *buf, int *link)
{
	uint8_t in[BUFSZ];
	struct t_spec o;
	struct t_encap e;
	size_t n;
	int il, type;

	if (rnd(r, 4))
		return random_plain(r, buf, link);
	n = random_plain(r, in, &il);
	if (n > BUFSZ - 200)
		return random_plain(r, buf, link);
	type = il == SOFL_LINK_ETH ? (rnd(r, 2) ? SOFL_ENCAP_VXLAN : SOFL_ENCAP_GENEVE) :
	       (rnd(r, 2) ? SOFL_ENCAP_IPIP : SOFL_ENCAP_GENEVE);
	t_encap_init(&e, type, (uint32_t)t_rand(r) & 0xffffff);
	if (type == SOFL_ENCAP_GENEVE && il == SOFL_LINK_RAW)
		e.gn_proto = (in[0] >> 4) == 4 ? 0x0800 : 0x86DD;
	if (type == SOFL_ENCAP_GENEVE && rnd(r, 2)) {
		static const uint8_t opts[8] = { 0x01, 0x02, 0x80, 0x01, 0xde, 0xad, 0xbe, 0xef };
		e.gn_opts = opts;
		e.gn_opts_len = 8;
	}
	t_spec_init(&o, rnd(r, 2) ? 4 : 6, type == SOFL_ENCAP_IPIP ?
		    ((in[0] >> 4) == 4 ? 4 : 41) : 17);
	o.link = rnd(r, 5) ? SOFL_LINK_ETH : SOFL_LINK_RAW;
	o.sport = (uint16_t)t_rand(r);
	o.dport = type == SOFL_ENCAP_VXLAN ? 4789 : 6081;
	o.udp_zero_csum = (int)rnd(r, 2);
	if (o.link == SOFL_LINK_ETH && !rnd(r, 4))
		o.nvlan = 1;
	*link = o.link;
	return t_build_encap(buf, BUFSZ, &o, &e, in, n);
}

/* Valid packets, every prefix of them (every truncation error), and
 * random mutations of their first 80 bytes (every other error, lengths,
 * versions, IHL, data offsets, ethertypes, option kinds). */
static void
test_fast_equals_generic(void **state)
{
	uint64_t r = 0xfa57fa57ull;
	uint8_t buf[BUFSZ], m[BUFSZ];
	int i, j, link;

	(void)state;
	for (i = 0; i < 3000; i++) {
		size_t len = random_packet(&r, buf, &link), n;
		struct sofl_pkt p;
		uint32_t hdrs = 80;	/* mutated: the headers (a tunnel's inner ones too) */

		if (sofl_pkt_parse(&p, buf, len, (enum sofl_link)link) == 0 &&
		    (p.layers & SOFL_LAYER_ENCAP))
			hdrs = p.pay_off < 80 ? 80 : p.pay_off;
		for (n = 0; n <= len && n <= 140 + (hdrs - 80); n++)
			same_both(buf, n, link);
		same_both(buf, len, link);
		for (j = 0; j < 40; j++) {
			size_t at = rnd(&r, len < hdrs ? (uint32_t)len : hdrs);
			memcpy(m, buf, len);
			m[at] = rnd(&r, 3) ? (uint8_t)t_rand(&r) : (uint8_t)(m[at] ^ (1u << rnd(&r, 8)));
			if (rnd(&r, 3) == 0) {
				at = rnd(&r, len < hdrs ? (uint32_t)len : hdrs);
				m[at] = (uint8_t)t_rand(&r);
			}
			same_both(m, len, link);
			same_both(m, len - rnd(&r, (uint32_t)len + 1), link);
		}
	}
}

/* The boundaries of the fast path's folded checks, every value in turn
 * (not left to random mutations): IPv4 version/IHL byte, each bit of the
 * flags/fragment field, the total length from 0 past the frame's end
 * against every TCP data offset or every UDP length, over untagged
 * Ethernet, one VLAN tag and raw IP, with and without the NOP NOP TS
 * block and Ethernet padding after the IP packet.  Each value parsed both
 * ways; a check the fast path dropped or widened makes it accept what the
 * generic path rejects (or reject differently), and the results differ. */
static void
test_fast_bounds(void **state)
{
	static const int links[3][2] = { { SOFL_LINK_ETH, 0 }, { SOFL_LINK_ETH, 1 },
					 { SOFL_LINK_RAW, 0 } };
	uint8_t buf[BUFSZ];
	int li, k, v, n = 0;

	(void)state;
	for (li = 0; li < 3; li++)
		for (k = 0; k < 4; k++) {
			struct t_spec s;
			size_t len;
			uint32_t o, room, tot, x;
			uint8_t *ip;

			t_spec_init(&s, 4, k < 3 ? 6 : 17);
			s.link = links[li][0];
			s.nvlan = links[li][1];
			s.pay_len = 24;
			if (k == 1) {
				s.tcp_opts = t_opt_ts;
				s.tcp_opts_len = 12;
			}
			if (k == 2 && s.link == SOFL_LINK_ETH)
				s.eth_pad = 6;
			len = t_build(buf, sizeof(buf), &s);
			o = s.link == SOFL_LINK_RAW ? 0 : 14 + 4 * (uint32_t)s.nvlan;
			ip = buf + o;
			room = (uint32_t)len - o;
			same_both(buf, len, s.link);
			for (v = 0; v < 256; v++) {		/* version and IHL */
				uint8_t b = ip[0];
				ip[0] = (uint8_t)v;
				same_both(buf, len, s.link);
				ip[0] = b;
			}
			for (v = -1; v < 16; v++) {		/* flags and fragment offset */
				uint8_t b6 = ip[6], b7 = ip[7];
				if (v >= 0) {
					ip[6] = (uint8_t)(ip[6] ^ (0x8000 >> v) >> 8);
					ip[7] = (uint8_t)(ip[7] ^ (0x8000 >> v));
				}
				same_both(buf, len, s.link);
				{	/* and the result itself (both paths share the test) */
					struct sofl_pkt p;
					assert_int_equal(sofl_pkt_parse(&p, buf, len, s.link), 0);
					assert_int_equal(p.is_frag, v >= 2);	/* not DF, reserved */
					assert_int_equal(p.layers & SOFL_LAYER_L4,
							 v >= 2 ? 0 : SOFL_LAYER_L4);
				}
				ip[6] = b6;
				ip[7] = b7;
			}
			for (tot = 0; tot <= room + 2; tot++) {	/* total length x L4 length */
				uint8_t t2 = ip[2], t3 = ip[3];
				ip[2] = (uint8_t)(tot >> 8);
				ip[3] = (uint8_t)tot;
				if (s.proto == 6) {
					uint8_t b = ip[32];
					for (x = 0; x < 16; x++) {	/* data offset */
						ip[32] = (uint8_t)(x << 4 | (b & 0x0f));
						same_both(buf, len, s.link);
						n++;
					}
					ip[32] = b;
				} else {
					uint8_t u4 = ip[24], u5 = ip[25];
					for (x = 0; x <= room - 18; x++) {	/* UDP length */
						ip[24] = (uint8_t)(x >> 8);
						ip[25] = (uint8_t)x;
						same_both(buf, len, s.link);
						n++;
					}
					ip[24] = u4;
					ip[25] = u5;
				}
				ip[2] = t2;
				ip[3] = t3;
			}
		}
	assert_true(n > 10000);
}

/* Both links, an invalid link, NULL and empty inputs. */
static void
test_edges(void **state)
{
	struct t_spec s;
	uint8_t buf[BUFSZ];
	size_t len;

	(void)state;
	t_spec_init(&s, 4, 6);
	len = t_build(buf, sizeof(buf), &s);
	same_both(buf, len, 7);			/* not a link type */
	same_both(buf, 0, SOFL_LINK_ETH);
	same_both(buf, 0, SOFL_LINK_RAW);
	assert_int_equal(sofl_pkt_parse(NULL, buf, len, SOFL_LINK_ETH), SOFL_E_INVAL);
	{
		struct sofl_pkt p;
		assert_int_equal(sofl_pkt_parse(&p, NULL, 10, SOFL_LINK_ETH), SOFL_E_INVAL);
		assert_int_equal(sofl_pkt_parse(&p, NULL, 0, SOFL_LINK_ETH), SOFL_E_TRUNC_L2);
	}
}

/* The fast path's NOP NOP TS shortcut (no option walk) against known
 * offsets, not only against the generic path. */
static void
test_ts_shortcut(void **state)
{
	struct t_spec s;
	struct sofl_pkt p;
	uint8_t buf[BUFSZ];
	size_t len;

	(void)state;
	t_spec_init(&s, 4, 6);
	s.tcp_opts = t_opt_ts;
	s.tcp_opts_len = 12;
	s.pay_len = 100;
	len = t_build(buf, sizeof(buf), &s);
	assert_int_equal(sofl_pkt_parse(&p, buf, len, SOFL_LINK_ETH), 0);
	assert_int_equal(p.opt_ts, 14 + 20 + 22);
	assert_int_equal(p.l4_len, 32);
	assert_int_equal(p.pay_len, 100);
	assert_int_equal(p.tcp_opt_bad, 0);
	same_both(buf, len, SOFL_LINK_ETH);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fast_equals_generic),
		cmocka_unit_test(test_fast_bounds),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_ts_shortcut),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
