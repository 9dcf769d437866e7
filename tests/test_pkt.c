/* Description: sofl_pkt_parse() never reads past the given length (every prefix of a set of valid packets, in exact-size heap buffers, for ASan), locates every layer, option and flow-key field, excludes Ethernet padding, and names each malformation with its own SOFL_E_* code. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "helpers.h"
#include "pkt/pkt_impl.h"

#define BUFSZ 2048

/* ---- parsing in exact-size heap buffers ---- */

/* Parses a heap copy of exactly @len bytes, so that ASan flags any read of
 * frame[len]; also checks that the frame is not written. */
static int
parse_exact(struct sofl_pkt *p, const uint8_t *frame, size_t len, int link)
{
	uint8_t *b = len ? malloc(len) : NULL;
	int err;

	if (len)
		memcpy(b, frame, len);
	err = sofl_pkt_parse(p, b, len, (enum sofl_link)link);
	if (len)
		assert_memory_equal(b, frame, len);
	free(b);
	p->data = frame;	/* the copy is gone: point at the caller's bytes */
	return err;
}

/* What sofl_pkt_parse must say about the first @n bytes of a valid IP packet
 * whose full parse is @full: the lengths that run past the data, in the
 * order the layers are reached. */
static int
prefix_error(const struct sofl_pkt *full, size_t n)
{
	uint32_t l3 = full->l3_off;

	if (full->link == SOFL_LINK_ETH && n < l3)
		return SOFL_E_TRUNC_L2;
	if (full->link == SOFL_LINK_RAW && n == 0)
		return SOFL_E_TRUNC_L3;
	if (full->ipv == 4) {
		if (n < l3 + 20)
			return SOFL_E_TRUNC_L3;
		if (n < (size_t)l3 + full->l3_len)
			return SOFL_E_IPV4_HDR_TRUNC;
		if (n < full->ip_end)
			return SOFL_E_IPV4_TOTLEN_LONG;
	} else {
		if (n < l3 + 40)
			return SOFL_E_TRUNC_L3;
		if (n < full->ip_end)
			return SOFL_E_IPV6_PLEN_LONG;
	}
	return 0;
}

/* Every prefix of an IP packet: the expected error below ip_end, and above
 * it (Ethernet padding cut) the same result as the full frame. */
static void
check_prefixes(const uint8_t *frame, size_t len, int link)
{
	struct sofl_pkt full, p;
	size_t n;

	assert_int_equal(parse_exact(&full, frame, len, link), 0);
	for (n = 0; n < len; n++) {
		int want = prefix_error(&full, n), got = parse_exact(&p, frame, n, link);

		if (got != want) {
			fprintf(stderr, "prefix %zu of %zu: got %d (%s), want %d\n", n, len,
				got, sofl_strerror(got), want);
			t_hexdump("frame", frame, len);
			fail();
		}
		if (!want) {
			p.len = full.len;
			assert_memory_equal(&p, &full, pk_named_len(&full));
		}
	}
}

/* Structural invariants of any successful parse. */
static void
check_invariants(const struct sofl_pkt *p)
{
	if (!(p->layers & SOFL_LAYER_L3))
		return;
	assert_true(p->l3_off + p->l3_len <= p->ip_end);
	assert_true(p->ip_end <= p->len);
	assert_true(p->l4_off == p->l3_off + p->l3_len);
	assert_true((uint64_t)p->pay_off + p->pay_len <= p->ip_end);
	if (p->layers & SOFL_LAYER_L4) {
		assert_true(p->l4_off + p->l4_len <= p->pay_off);
		assert_true(p->l4_proto == 6 || p->l4_proto == 17);
		assert_false(p->is_frag);
	}
	if (p->opt_mss) assert_true(p->opt_mss + 4u <= p->l4_off + p->l4_len);
	if (p->opt_ws) assert_true(p->opt_ws + 3u <= p->l4_off + p->l4_len);
	if (p->opt_sackok) assert_true(p->opt_sackok + 2u <= p->l4_off + p->l4_len);
	if (p->opt_sack) assert_true(p->opt_sack + 10u <= p->l4_off + p->l4_len);
	if (p->opt_ts) assert_true(p->opt_ts + 10u <= p->l4_off + p->l4_len);
}

static size_t
build(uint8_t *buf, const struct t_spec *s)
{
	return t_build(buf, BUFSZ, s);
}

/* Parses a valid frame, checks its prefixes, returns the parse. */
static void
parse_valid(struct sofl_pkt *p, const uint8_t *buf, size_t len, int link)
{
	int err = parse_exact(p, buf, len, link);

	if (err) {
		t_hexdump("frame", buf, len);
		fprintf(stderr, "unexpected error %d (%s)\n", err, sofl_strerror(err));
		fail();
	}
	check_invariants(p);
	check_prefixes(buf, len, link);
}

/* Builds @s (Ethernet) into buf and parses it with parse_valid().
 * @return the frame's length */
static size_t
build_parse(struct sofl_pkt *p, uint8_t *buf, const struct t_spec *s)
{
	size_t len = build(buf, s);

	parse_valid(p, buf, len, SOFL_LINK_ETH);
	return len;
}

static void
assert_key_addrs(const struct sofl_pkt *p, const struct t_spec *s)
{
	size_t al = s->ipv == 4 ? 4 : 16;
	static const uint8_t zero[16];

	assert_int_equal(p->key.family, s->ipv);
	assert_memory_equal(p->key.src, s->src, al);
	assert_memory_equal(p->key.dst, s->dst, al);
	assert_memory_equal(p->key.src + al, zero, 16 - al);
	assert_memory_equal(p->key.dst + al, zero, 16 - al);
}

/* ---- valid packets ---- */

static void
test_tcp4_eth(void **state)
{
	uint8_t b[BUFSZ];
	struct t_spec s;
	struct sofl_pkt p;
	size_t len;

	(void)state;
	t_spec_init(&s, 4, 6);
	s.pay_len = 100; s.seq = 0x01020304; s.ack = 0xa0b0c0d0;
	s.flags = SOFL_TCP_ACK | SOFL_TCP_PSH; s.sport = 1234; s.dport = 80;
	len = build(b, &s);
	assert_int_equal(len, 14 + 20 + 20 + 100);
	parse_valid(&p, b, len, SOFL_LINK_ETH);
	assert_int_equal(p.layers, SOFL_LAYER_L2 | SOFL_LAYER_L3 | SOFL_LAYER_L4);
	assert_int_equal(p.link, SOFL_LINK_ETH);
	assert_int_equal(p.len, len);
	assert_ptr_equal(p.data, b);
	assert_int_equal(p.ethertype, 0x0800);
	assert_int_equal(p.ipv, 4);
	assert_int_equal(p.l3_off, 14);
	assert_int_equal(p.l3_len, 20);
	assert_int_equal(p.ip_hl_opts, 0);
	assert_int_equal(p.ip_end, len);
	assert_int_equal(p.l4_proto, 6);
	assert_int_equal(p.l4_off, 34);
	assert_int_equal(p.l4_len, 20);
	assert_int_equal(p.pay_off, 54);
	assert_int_equal(p.pay_len, 100);
	assert_int_equal(p.tcp_flags, SOFL_TCP_ACK | SOFL_TCP_PSH);
	assert_int_equal(p.tcp_seq, 0x01020304);
	assert_int_equal(p.tcp_ack, 0xa0b0c0d0);
	assert_int_equal(p.is_frag, 0);
	assert_int_equal(p.key.nvlan, 0);
	assert_int_equal(p.key.proto, 6);
	assert_int_equal(p.key.sport, 1234);
	assert_int_equal(p.key.dport, 80);
	assert_int_equal(p.key.flow_label, 0);
	assert_key_addrs(&p, &s);
	assert_int_equal(p.opt_mss | p.opt_ws | p.opt_sackok | p.opt_sack | p.opt_ts, 0);
	assert_int_equal(p.tcp_opt_bad, 0);
	assert_ptr_equal(sofl_pkt_l3(&p), b + 14);
	assert_ptr_equal(sofl_pkt_l4(&p), b + 34);
}

/* The SYN options of a Linux client: MSS, SACK-permitted, TS, NOP, WS. */
static void
test_tcp_syn_options(void **state)
{
	static const uint8_t opts[20] = {
		2, 4, 0x05, 0xb4,  4, 2,  8, 10, 0, 0, 0, 1, 0, 0, 0, 0,  1,  3, 3, 7 };
	uint8_t b[BUFSZ];
	struct t_spec s;
	struct sofl_pkt p;
	size_t len;
	int v;

	(void)state;
	for (v = 4; v <= 6; v += 2) {
		t_spec_init(&s, v, 6);
		s.flags = SOFL_TCP_SYN; s.tcp_opts = opts; s.tcp_opts_len = sizeof(opts);
		len = build_parse(&p, b, &s);
		assert_int_equal(p.l4_len, 40);
		assert_int_equal(p.pay_len, 0);
		assert_int_equal(p.pay_off, len);
		assert_int_equal(p.opt_mss, p.l4_off + 20);
		assert_int_equal(sofl_get16(b + p.opt_mss + 2), 1460);
		assert_int_equal(p.opt_sackok, p.l4_off + 24);
		assert_int_equal(p.opt_ts, p.l4_off + 26);
		assert_int_equal(b[p.opt_ts], 8);
		assert_int_equal(p.opt_ws, p.l4_off + 37);
		assert_int_equal(b[p.opt_ws + 2], 7);
		assert_int_equal(p.opt_sack, 0);
		assert_int_equal(p.tcp_opt_bad, 0);
		assert_int_equal(p.tcp_flags, SOFL_TCP_SYN);
	}
}

/* Data segment with NOP NOP TS and NOP NOP SACK (two blocks). */
static void
test_tcp_data_options(void **state)
{
	uint8_t opts[32] = { 1, 1, 8, 10, 0, 0, 0, 5, 0, 0, 0, 6, 1, 1, 5, 18 };
	uint8_t b[BUFSZ];
	struct t_spec s;
	struct sofl_pkt p;

	(void)state;
	t_spec_init(&s, 6, 6);
	s.tcp_opts = opts; s.tcp_opts_len = sizeof(opts); s.pay_len = 1000;
	build_parse(&p, b, &s);
	assert_int_equal(p.l4_off, 54);
	assert_int_equal(p.l4_len, 52);
	assert_int_equal(p.pay_off, 54 + 52);
	assert_int_equal(p.pay_len, 1000);
	assert_int_equal(p.opt_ts, 54 + 22);
	assert_int_equal(sofl_get32(b + p.opt_ts + 2), 5);
	assert_int_equal(p.opt_sack, 54 + 34);
	assert_int_equal(b[p.opt_sack + 1], 18);
	assert_int_equal(p.opt_mss | p.opt_ws | p.opt_sackok, 0);
	assert_int_equal(p.tcp_opt_bad, 0);
}

/* Malformed options do not fail the parse: they set tcp_opt_bad and stop
 * the option walk inside the header. */
static void
test_tcp_bad_options(void **state)
{
	static const struct { uint8_t o[16]; uint16_t mss_rel; } c[] = {
		{ { 2, 4, 5, 0xb4, 1, 1, 1, 1, 1, 1, 1, 1, 2, 8 }, 20 },	/* 2nd MSS runs past the header */
		{ { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 8 }, 0 },	/* kind, no length byte */
		{ { 3, 1 }, 0 },			/* length < 2 */
		{ { 2, 5, 5, 0xb4 }, 0 },		/* MSS of length 5 */
		{ { 5, 6 }, 0 },			/* SACK with a 4-byte block */
		{ { 5, 14 }, 0 },			/* SACK with 1.5 blocks */
		{ { 8, 8 }, 0 },			/* TS of length 8 */
		{ { 4, 3, 0, 1, 1, 1, 1, 1 }, 0 },	/* SACK-permitted of length 3 */
		{ { 3, 2, 1, 1 }, 0 },			/* WS of length 2 */
	};
	uint8_t b[BUFSZ];
	struct t_spec s;
	struct sofl_pkt p;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		t_spec_init(&s, 4, 6);
		/* no payload: an option walk past the header reads past the frame */
		s.tcp_opts = c[i].o; s.tcp_opts_len = 16;
		build_parse(&p, b, &s);
		assert_int_equal(p.tcp_opt_bad, 1);
		assert_int_equal(p.opt_mss, c[i].mss_rel ? 34 + c[i].mss_rel : 0);
		assert_int_equal(p.opt_ws | p.opt_sackok | p.opt_sack | p.opt_ts, 0);
		assert_int_equal(p.pay_len, 0);
	}
	/* EOL stops the walk: garbage after it is not an error */
	{
		static const uint8_t eol[8] = { 0, 2, 99, 0, 0, 0, 0, 0 };
		t_spec_init(&s, 4, 6);
		s.tcp_opts = eol; s.tcp_opts_len = 8;
		build_parse(&p, b, &s);
		assert_int_equal(p.tcp_opt_bad, 0);
	}
}

static void
test_ipv4_options(void **state)
{
	/* Router Alert (4) + NOP + Timestamp-ish unknown option (7 bytes), 12 bytes */
	static const uint8_t ro[12] = { 0x94, 4, 0, 0, 1, 0x44, 7, 5, 0, 0, 0, 0 };
	uint8_t b[BUFSZ], max[40];
	struct t_spec s;
	struct sofl_pkt p;

	(void)state;
	t_spec_init(&s, 4, 17);
	s.ip_opts = ro; s.ip_opts_len = sizeof(ro); s.pay_len = 10;
	build_parse(&p, b, &s);
	assert_int_equal(p.l3_len, 32);
	assert_int_equal(p.ip_hl_opts, 12);
	assert_int_equal(p.l4_off, 14 + 32);
	assert_int_equal(p.l4_len, 8);
	assert_int_equal(p.pay_off, 14 + 32 + 8);
	assert_int_equal(p.pay_len, 10);
	assert_int_equal(p.key.sport, 40000);
	assert_true(sofl_csum_ipv4_hdr_ok(b + 14, p.l3_len));

	memset(max, 1, sizeof(max));		/* IHL 15: 40 bytes of NOPs */
	s.ip_opts = max; s.ip_opts_len = sizeof(max);
	build_parse(&p, b, &s);
	assert_int_equal(p.l3_len, 60);
	assert_int_equal(p.ip_hl_opts, 40);
	assert_int_equal(p.pay_len, 10);
}

static void
test_udp(void **state)
{
	uint8_t b[BUFSZ];
	struct t_spec s;
	struct sofl_pkt p;
	size_t len;

	(void)state;
	t_spec_init(&s, 6, 17);
	s.pay_len = 1200; s.sport = 443; s.dport = 51000; s.flow_label = 0xabcde; s.tos = 0xb8;
	len = build_parse(&p, b, &s);
	assert_int_equal(p.ethertype, 0x86DD);
	assert_int_equal(p.ipv, 6);
	assert_int_equal(p.l3_len, 40);
	assert_int_equal(p.l4_off, 54);
	assert_int_equal(p.l4_len, 8);
	assert_int_equal(p.pay_off, 62);
	assert_int_equal(p.pay_len, 1200);
	assert_int_equal(p.key.flow_label, 0xabcde);
	assert_int_equal(p.key.sport, 443);
	assert_int_equal(p.key.dport, 51000);
	assert_int_equal(p.key.proto, 17);
	assert_key_addrs(&p, &s);
	assert_int_equal(p.n_exthdr, 0);

	/* UDP length shorter than the IP payload: the rest is not payload */
	t_spec_init(&s, 4, 17);
	s.pay_len = 20;
	len = build(b, &s);
	sofl_put16(b + 34 + 4, 8 + 12);
	parse_valid(&p, b, len, SOFL_LINK_ETH);
	assert_int_equal(p.pay_len, 12);
	assert_int_equal(p.ip_end, len);

	/* zero-length datagram */
	s.pay_len = 0;
	len = build_parse(&p, b, &s);
	assert_int_equal(p.pay_len, 0);
	assert_int_equal(p.pay_off, len);
}

/* Minimum-size frames carry padding after the IP packet: never payload. */
static void
test_eth_padding(void **state)
{
	uint8_t b[BUFSZ];
	struct t_spec s;
	struct sofl_pkt p;
	size_t len;

	(void)state;
	t_spec_init(&s, 4, 6);
	s.eth_pad = 6;			/* 54-byte ACK padded to 60 */
	len = build(b, &s);
	memset(b + 54, 0xee, 6);
	assert_int_equal(len, 60);
	parse_valid(&p, b, len, SOFL_LINK_ETH);
	assert_int_equal(p.ip_end, 54);
	assert_int_equal(p.pay_off, 54);
	assert_int_equal(p.pay_len, 0);

	t_spec_init(&s, 4, 17);
	s.pay_len = 4; s.eth_pad = 14;
	len = build(b, &s);
	memset(b + 46, 0xee, 14);
	parse_valid(&p, b, len, SOFL_LINK_ETH);
	assert_int_equal(p.ip_end, 46);
	assert_int_equal(p.pay_len, 4);

	t_spec_init(&s, 6, 6);
	s.pay_len = 3; s.eth_pad = 9;
	len = build_parse(&p, b, &s);
	assert_int_equal(p.ip_end, len - 9);
	assert_int_equal(p.pay_len, 3);
}

static void
test_vlans(void **state)
{
	uint8_t b[BUFSZ];
	struct t_spec s;
	struct sofl_pkt p;
	size_t len;

	(void)state;
	t_spec_init(&s, 4, 6);
	s.nvlan = 1; s.vlan_tci[0] = 0xa00a;	/* PCP 5, VID 10 */
	s.pay_len = 10;
	len = build_parse(&p, b, &s);
	assert_int_equal(p.key.nvlan, 1);
	assert_int_equal(p.vlan_tpid[0], 0x8100);
	assert_int_equal(p.vlan_tci[0], 0xa00a);
	assert_int_equal(p.key.vlan[0], 10);
	assert_int_equal(p.l3_off, 18);
	assert_int_equal(p.l4_off, 38);
	assert_int_equal(p.ethertype, 0x0800);

	/* QinQ: 802.1ad outer, 802.1Q inner */
	t_spec_init(&s, 6, 17);
	s.nvlan = 2; s.vlan_tpid[0] = 0x88A8; s.vlan_tci[0] = 0x1fff; s.vlan_tci[1] = 0x3123;
	s.pay_len = 10;
	len = build_parse(&p, b, &s);
	assert_int_equal(p.key.nvlan, 2);
	assert_int_equal(p.vlan_tpid[0], 0x88A8);
	assert_int_equal(p.vlan_tpid[1], 0x8100);
	assert_int_equal(p.vlan_tci[0], 0x1fff);
	assert_int_equal(p.key.vlan[0], 0xfff);
	assert_int_equal(p.key.vlan[1], 0x123);
	assert_int_equal(p.l3_off, 22);
	assert_int_equal(p.pay_off, 22 + 40 + 8);
	assert_int_equal(p.ethertype, 0x86DD);

	/* a third tag is more than we look through: a non-IP frame, not an error */
	memmove(b + 16, b + 12, len - 12);
	sofl_put16(b + 12, 0x8100);
	sofl_put16(b + 14, 7);
	assert_int_equal(parse_exact(&p, b, len + 4, SOFL_LINK_ETH), 0);
	assert_int_equal(p.layers, SOFL_LAYER_L2);
	assert_int_equal(p.key.nvlan, 2);
	assert_int_equal(p.vlan_tpid[1], 0x88A8);
	assert_int_equal(p.ethertype, 0x8100);
	assert_int_equal(p.ipv, 0);
}

static void
test_ipv6_exthdrs(void **state)
{
	uint8_t b[BUFSZ];
	struct t_spec s;
	struct sofl_pkt p;

	(void)state;
	t_spec_init(&s, 6, 6);
	s.n_ext = 3;
	s.ext[0].type = 0;  s.ext[0].len = 8;
	s.ext[1].type = 43; s.ext[1].len = 24;
	s.ext[2].type = 60; s.ext[2].len = 16; s.ext[2].fill = 0;
	s.pay_len = 77; s.tcp_opts = t_opt_ts; s.tcp_opts_len = 12;
	build_parse(&p, b, &s);
	assert_int_equal(p.exthdr, SOFL_EXT_HOP | SOFL_EXT_ROUTE | SOFL_EXT_DEST);
	assert_int_equal(p.n_exthdr, 3);
	assert_int_equal(p.l3_len, 40 + 8 + 24 + 16);
	assert_int_equal(p.l4_off, 14 + 88);
	assert_int_equal(p.l4_proto, 6);
	assert_int_equal(p.key.proto, 6);
	assert_int_equal(p.l4_len, 32);
	assert_int_equal(p.opt_ts, 14 + 88 + 22);
	assert_int_equal(p.pay_len, 77);
	assert_int_equal(p.is_frag, 0);
	assert_int_equal(p.frag_off_hdr, 0);

	/* a hop-by-hop header that is not first is not an extension header
	 * (RFC 8200 4.1): it ends the chain as upper-layer protocol 0 */
	t_spec_init(&s, 6, 59);
	s.n_ext = 2;
	s.ext[0].type = 60; s.ext[0].len = 8;
	s.ext[1].type = 0;  s.ext[1].len = 8;
	build_parse(&p, b, &s);
	assert_int_equal(p.n_exthdr, 1);
	assert_int_equal(p.exthdr, SOFL_EXT_DEST);
	assert_int_equal(p.l4_proto, 0);
	assert_int_equal(p.layers, SOFL_LAYER_L2 | SOFL_LAYER_L3);
	assert_int_equal(p.pay_off, 14 + 48);
	assert_int_equal(p.pay_len, 8);
}

/* Exactly SOFL_PKT_EXTHDR_MAX destination-options headers parse; one more
 * is SOFL_E_EXTHDR_CHAIN.  t_spec holds only 4, so the chain is written
 * into the payload of a "no next header" packet. */
static size_t
build_dest_chain(uint8_t *b, int n)
{
	struct t_spec s;
	size_t len;
	int i;

	t_spec_init(&s, 6, 59);
	s.pay_len = (size_t)n * 8 + 20;
	len = build(b, &s);
	b[14 + 6] = 60;
	for (i = 0; i < n; i++) {
		uint8_t *h = b + 14 + 40 + 8 * i;
		memset(h, 0, 8);
		h[0] = i + 1 < n ? 60 : 17;
		h[2] = 1;		/* PadN */
		h[3] = 4;
	}
	/* a UDP header after the chain */
	memset(b + 14 + 40 + 8 * n, 0, 20);
	sofl_put16(b + 14 + 40 + 8 * n + 4, 20);
	return len;
}

static void
test_ipv6_chain_limit(void **state)
{
	uint8_t b[BUFSZ];
	struct sofl_pkt p;
	size_t len;

	(void)state;
	len = build_dest_chain(b, SOFL_PKT_EXTHDR_MAX);
	parse_valid(&p, b, len, SOFL_LINK_ETH);
	assert_int_equal(p.n_exthdr, SOFL_PKT_EXTHDR_MAX);
	assert_int_equal(p.l4_proto, 17);
	assert_int_equal(p.pay_len, 12);
	len = build_dest_chain(b, SOFL_PKT_EXTHDR_MAX + 1);
	assert_int_equal(parse_exact(&p, b, len, SOFL_LINK_ETH), SOFL_E_EXTHDR_CHAIN);
	assert_int_equal(p.layers, SOFL_LAYER_L2);
}

static void
test_fragments(void **state)
{
	uint8_t b[BUFSZ];
	struct t_spec s;
	struct sofl_pkt p;

	(void)state;
	/* IPv4 first fragment (MF): no L4 parse, the payload is the IP payload */
	t_spec_init(&s, 4, 17);
	s.df = 0; s.frag = 0x2000; s.pay_len = 64;
	build_parse(&p, b, &s);
	assert_int_equal(p.is_frag, 1);
	assert_int_equal(p.frag_first, 1);
	assert_int_equal(p.layers, SOFL_LAYER_L2 | SOFL_LAYER_L3);
	assert_int_equal(p.l4_proto, 17);
	assert_int_equal(p.l4_off, 34);
	assert_int_equal(p.l4_len, 0);
	assert_int_equal(p.pay_off, 34);
	assert_int_equal(p.pay_len, 8 + 64);
	assert_int_equal(p.key.sport, 0);
	assert_null(sofl_pkt_l4(&p));

	/* IPv4 last fragment (offset, no MF) */
	s.frag = 100;
	build_parse(&p, b, &s);
	assert_int_equal(p.is_frag, 1);
	assert_int_equal(p.frag_first, 0);
	/* DF alone is not a fragment */
	s.df = 1; s.frag = 0;
	build_parse(&p, b, &s);
	assert_int_equal(p.is_frag, 0);
	assert_int_equal(p.layers & SOFL_LAYER_L4, SOFL_LAYER_L4);

	/* IPv6 first fragment after a hop-by-hop header */
	t_spec_init(&s, 6, 6);
	s.n_ext = 2;
	s.ext[0].type = 0; s.ext[0].len = 8;
	s.ext[1].type = 44; s.ext[1].frag_mf = 1;
	s.pay_len = 100;
	build_parse(&p, b, &s);
	assert_int_equal(p.is_frag, 1);
	assert_int_equal(p.frag_first, 1);
	assert_int_equal(p.exthdr, SOFL_EXT_HOP | SOFL_EXT_FRAG);
	assert_int_equal(p.frag_off_hdr, 14 + 48);
	assert_int_equal(p.l3_len, 56);
	assert_int_equal(p.l4_proto, 6);
	assert_int_equal(p.pay_off, 14 + 56);
	assert_int_equal(p.pay_len, 20 + 100);
	assert_int_equal(p.layers, SOFL_LAYER_L2 | SOFL_LAYER_L3);

	/* IPv6 later fragment */
	s.n_ext = 1;
	s.ext[0].type = 44; s.ext[0].frag_off = 185; s.ext[0].frag_mf = 0;
	build_parse(&p, b, &s);
	assert_int_equal(p.frag_first, 0);
	assert_int_equal(p.frag_off_hdr, 54);
}

static void
test_not_tcp_udp(void **state)
{
	uint8_t b[BUFSZ];
	struct t_spec s;
	struct sofl_pkt p;
	size_t len;

	(void)state;
	t_spec_init(&s, 4, 1);			/* ICMP */
	s.pay_len = 32;
	len = build_parse(&p, b, &s);
	assert_int_equal(p.layers, SOFL_LAYER_L2 | SOFL_LAYER_L3);
	assert_int_equal(p.l4_proto, 1);
	assert_int_equal(p.key.proto, 1);
	assert_int_equal(p.pay_off, 34);
	assert_int_equal(p.pay_len, 32);
	assert_int_equal(p.l4_len, 0);
	assert_int_equal(p.key.sport | p.key.dport, 0);

	t_spec_init(&s, 6, 58);			/* ICMPv6 */
	s.pay_len = 24;
	len = build_parse(&p, b, &s);
	assert_int_equal(p.l4_proto, 58);
	assert_int_equal(p.pay_len, 24);

	t_spec_init(&s, 4, 6);			/* ARP */
	len = t_build_arp(b, BUFSZ, &s);
	assert_int_equal(len, 42);
	assert_int_equal(parse_exact(&p, b, len, SOFL_LINK_ETH), 0);
	assert_int_equal(p.layers, SOFL_LAYER_L2);
	assert_int_equal(p.ethertype, 0x0806);
	assert_int_equal(p.ipv, 0);
	assert_int_equal(p.key.family, 0);
	assert_null(sofl_pkt_l3(&p));
	for (size_t n = 0; n < len; n++)
		assert_int_equal(parse_exact(&p, b, n, SOFL_LINK_ETH), n < 14 ? SOFL_E_TRUNC_L2 : 0);

	s.nvlan = 1; s.vlan_tci[0] = 5;		/* ARP in a VLAN */
	len = t_build_arp(b, BUFSZ, &s);
	assert_int_equal(parse_exact(&p, b, len, SOFL_LINK_ETH), 0);
	assert_int_equal(p.ethertype, 0x0806);
	assert_int_equal(p.key.vlan[0], 5);
	for (size_t n = 0; n < len; n++)
		assert_int_equal(parse_exact(&p, b, n, SOFL_LINK_ETH), n < 18 ? SOFL_E_TRUNC_L2 : 0);
}

static void
test_raw_ip(void **state)
{
	uint8_t b[BUFSZ];
	struct t_spec s;
	struct sofl_pkt p;
	size_t len;

	(void)state;
	t_spec_init(&s, 4, 6);
	s.link = SOFL_LINK_RAW; s.pay_len = 50;
	len = build(b, &s);
	parse_valid(&p, b, len, SOFL_LINK_RAW);
	assert_int_equal(p.link, SOFL_LINK_RAW);
	assert_int_equal(p.layers, SOFL_LAYER_L3 | SOFL_LAYER_L4);
	assert_int_equal(p.ethertype, 0);
	assert_int_equal(p.l3_off, 0);
	assert_int_equal(p.l4_off, 20);
	assert_int_equal(p.pay_off, 40);
	assert_int_equal(p.pay_len, 50);
	assert_key_addrs(&p, &s);

	t_spec_init(&s, 6, 17);
	s.link = SOFL_LINK_RAW; s.pay_len = 50;
	s.n_ext = 1; s.ext[0].type = 60; s.ext[0].len = 8;
	len = build(b, &s);
	parse_valid(&p, b, len, SOFL_LINK_RAW);
	assert_int_equal(p.ipv, 6);
	assert_int_equal(p.l4_off, 48);
	assert_int_equal(p.pay_len, 50);
	assert_key_addrs(&p, &s);
}

/* ---- malformed packets: one case per parse error ---- */

enum mut {
	M_NONE,
	M_LEN,		/* frame length = arg */
	M_BYTE,		/* b[at] = arg */
	M_PUT16,	/* put16(b + at, arg) */
	M_NIBBLE_HI,	/* b[at] = arg << 4 | (b[at] & 0x0f) */
	M_NIBBLE_LO,	/* b[at] = (b[at] & 0xf0) | arg */
	M_VLAN_CUT,	/* ethertype 802.1Q, frame length = arg */
};

struct bad {
	const char *name;
	int ipv, proto, link;
	size_t pay_len;
	int n_ext;		/* IPv6: that many 8-byte HBH/dest headers */
	enum mut m;
	size_t at;
	unsigned arg;
	int err;
	uint8_t layers;		/* what is still valid after the error */
	size_t pad;		/* Ethernet padding after the IP packet */
};

#define L2  SOFL_LAYER_L2
#define L23 (SOFL_LAYER_L2 | SOFL_LAYER_L3)
#define ETH SOFL_LINK_ETH
#define RAW SOFL_LINK_RAW

/* Offsets assume Ethernet without VLAN: IP at 14, L4 at 34 (v4) / 54 (v6). */
static const struct bad bads[] = {
	{ "frame < Ethernet header", 4, 6, ETH, 0, 0, M_LEN, 0, 13, SOFL_E_TRUNC_L2, 0, 0 },
	{ "VLAN tag cut", 4, 6, ETH, 0, 0, M_VLAN_CUT, 0, 17, SOFL_E_TRUNC_L2, 0, 0 },
	{ "IPv4 < 20 bytes", 4, 6, ETH, 0, 0, M_LEN, 0, 14 + 19, SOFL_E_TRUNC_L3, L2, 0 },
	{ "IPv6 < 40 bytes", 6, 17, ETH, 0, 0, M_LEN, 0, 14 + 39, SOFL_E_TRUNC_L3, L2, 0 },
	{ "raw: empty", 4, 6, RAW, 0, 0, M_LEN, 0, 0, SOFL_E_TRUNC_L3, 0, 0 },
	{ "raw: IPv4 < 20 bytes", 4, 6, RAW, 0, 0, M_LEN, 0, 19, SOFL_E_TRUNC_L3, 0, 0 },
	{ "ethertype IPv4, version 6", 4, 6, ETH, 0, 0, M_NIBBLE_HI, 14, 6, SOFL_E_IP_VERSION, L2, 0 },
	{ "ethertype IPv6, version 4", 6, 6, ETH, 0, 0, M_NIBBLE_HI, 14, 4, SOFL_E_IP_VERSION, L2, 0 },
	{ "raw: version 5", 4, 6, RAW, 0, 0, M_NIBBLE_HI, 0, 5, SOFL_E_IP_VERSION, 0, 0 },
	{ "raw: version 0", 6, 6, RAW, 0, 0, M_NIBBLE_HI, 0, 0, SOFL_E_IP_VERSION, 0, 0 },
	{ "IPv4 IHL 4", 4, 6, ETH, 0, 0, M_NIBBLE_LO, 14, 4, SOFL_E_IPV4_IHL, L2, 0 },
	{ "IPv4 IHL 0", 4, 6, ETH, 0, 0, M_NIBBLE_LO, 14, 0, SOFL_E_IPV4_IHL, L2, 0 },
	{ "IPv4 IHL 15, 48-byte packet", 4, 17, ETH, 20, 0, M_NIBBLE_LO, 14, 15, SOFL_E_IPV4_HDR_TRUNC, L2, 0 },
	{ "IPv4 total length 19", 4, 6, ETH, 0, 0, M_PUT16, 16, 19, SOFL_E_IPV4_TOTLEN_SHORT, L2, 0 },
	{ "IPv4 total length 0", 4, 6, ETH, 0, 0, M_PUT16, 16, 0, SOFL_E_IPV4_TOTLEN_SHORT, L2, 0 },
	{ "IPv4 total length +1", 4, 6, ETH, 10, 0, M_PUT16, 16, 20 + 20 + 11, SOFL_E_IPV4_TOTLEN_LONG, L2, 0 },
	{ "IPv4 total length 65535", 4, 6, ETH, 10, 0, M_PUT16, 16, 65535, SOFL_E_IPV4_TOTLEN_LONG, L2, 0 },
	{ "IPv6 payload length +1", 6, 6, ETH, 10, 0, M_PUT16, 18, 20 + 11, SOFL_E_IPV6_PLEN_LONG, L2, 0 },
	{ "IPv6 payload length 65535", 6, 17, ETH, 10, 0, M_PUT16, 18, 65535, SOFL_E_IPV6_PLEN_LONG, L2, 0 },
	{ "IPv6 jumbogram", 6, 6, ETH, 10, 1, M_PUT16, 18, 0, SOFL_E_IPV6_JUMBO, L2, 0 },
	{ "IPv6 HBH longer than payload", 6, 17, ETH, 0, 1, M_BYTE, 55, 2, SOFL_E_EXTHDR_TRUNC, L2, 0 },
	{ "IPv6 HBH runs into Ethernet padding", 6, 17, ETH, 0, 1, M_BYTE, 55, 2, SOFL_E_EXTHDR_TRUNC, L2, 40 },
	{ "IPv6 HBH in 4-byte payload", 6, 17, ETH, 0, 1, M_PUT16, 18, 4, SOFL_E_EXTHDR_TRUNC, L2, 0 },
	{ "IPv6 TCP in 19 bytes", 6, 6, ETH, 0, 0, M_PUT16, 18, 19, SOFL_E_TCP_TRUNC, L23, 0 },
	{ "IPv4 TCP in 10 bytes", 4, 6, ETH, 0, 0, M_PUT16, 16, 30, SOFL_E_TCP_TRUNC, L23, 0 },
	{ "TCP data offset 4", 4, 6, ETH, 40, 0, M_NIBBLE_HI, 34 + 12, 4, SOFL_E_TCP_DOFF_SMALL, L23, 0 },
	{ "TCP data offset 0", 6, 6, ETH, 40, 0, M_NIBBLE_HI, 54 + 12, 0, SOFL_E_TCP_DOFF_SMALL, L23, 0 },
	{ "TCP data offset 15, 20-byte segment", 4, 6, ETH, 0, 0, M_NIBBLE_HI, 34 + 12, 15, SOFL_E_TCP_DOFF_LONG, L23, 0 },
	{ "TCP data offset 6, 20-byte segment", 6, 6, ETH, 0, 0, M_NIBBLE_HI, 54 + 12, 6, SOFL_E_TCP_DOFF_LONG, L23, 0 },
	{ "IPv4 UDP in 7 bytes", 4, 17, ETH, 0, 0, M_PUT16, 16, 27, SOFL_E_UDP_TRUNC, L23, 0 },
	{ "IPv6 UDP in 0 bytes", 6, 17, ETH, 0, 0, M_PUT16, 18, 0, SOFL_E_UDP_TRUNC, L23, 0 },
	{ "UDP length 7", 4, 17, ETH, 10, 0, M_PUT16, 34 + 4, 7, SOFL_E_UDP_LEN, L23, 0 },
	{ "UDP length 0", 6, 17, ETH, 10, 0, M_PUT16, 54 + 4, 0, SOFL_E_UDP_LEN, L23, 0 },
	{ "UDP length past IP payload", 4, 17, ETH, 10, 0, M_PUT16, 34 + 4, 19, SOFL_E_UDP_LEN, L23, 0 },
	{ "UDP length into padding", 4, 17, ETH, 10, 0, M_PUT16, 34 + 4, 19, SOFL_E_UDP_LEN, L23, 20 },
	{ "TCP data offset into padding", 4, 6, ETH, 0, 0, M_NIBBLE_HI, 34 + 12, 6, SOFL_E_TCP_DOFF_LONG, L23, 20 },
};

static size_t
build_bad(uint8_t *b, const struct bad *c)
{
	struct t_spec s;
	size_t len;
	int i;

	t_spec_init(&s, c->ipv, c->proto);
	s.link = c->link;
	s.pay_len = c->pay_len;
	s.n_ext = c->n_ext;
	s.eth_pad = c->pad;
	for (i = 0; i < c->n_ext; i++) {
		s.ext[i].type = i ? 60 : 0;
		s.ext[i].len = 8;
	}
	len = build(b, &s);
	switch (c->m) {
	case M_NONE: break;
	case M_LEN: len = c->arg; break;
	case M_BYTE: b[c->at] = (uint8_t)c->arg; break;
	case M_PUT16: sofl_put16(b + c->at, (uint16_t)c->arg); break;
	case M_NIBBLE_HI: b[c->at] = (uint8_t)(c->arg << 4 | (b[c->at] & 0x0f)); break;
	case M_NIBBLE_LO: b[c->at] = (uint8_t)((b[c->at] & 0xf0) | c->arg); break;
	case M_VLAN_CUT: sofl_put16(b + 12, 0x8100); len = c->arg; break;
	}
	return len;
}

static void
test_malformed_table(void **state)
{
	uint8_t b[BUFSZ];
	struct sofl_pkt p;
	size_t i, n, len;
	int seen[64] = { 0 };

	(void)state;
	for (i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		const struct bad *c = &bads[i];
		int err;

		len = build_bad(b, c);
		err = parse_exact(&p, b, len, c->link);
		if (err != c->err || p.layers != c->layers) {
			fprintf(stderr, "case '%s': got %d (%s) layers %#x, want %d (%s) layers %#x\n",
				c->name, err, sofl_strerror(err), p.layers, c->err,
				sofl_strerror(c->err), c->layers);
			t_hexdump("frame", b, len);
			fail();
		}
		assert_string_not_equal(sofl_strerror(err), "unknown error");
		seen[-c->err] = 1;
		for (n = 0; n < len; n++)	/* prefixes: any error, no overread */
			assert_true(parse_exact(&p, b, n, c->link) < 0);
	}
	/* the chain limit needs more headers than t_spec holds */
	len = build_dest_chain(b, SOFL_PKT_EXTHDR_MAX + 1);
	assert_int_equal(parse_exact(&p, b, len, SOFL_LINK_ETH), SOFL_E_EXTHDR_CHAIN);
	for (n = 0; n < len; n++)
		assert_true(parse_exact(&p, b, n, SOFL_LINK_ETH) < 0);
	seen[-SOFL_E_EXTHDR_CHAIN] = 1;
	/* a fragment header (fixed 8 bytes) cut by the payload length */
	{
		struct t_spec s;

		t_spec_init(&s, 6, 17);
		s.n_ext = 1; s.ext[0].type = 44; s.pay_len = 10;
		len = build(b, &s);
		sofl_put16(b + 18, 4);
		assert_int_equal(parse_exact(&p, b, len, SOFL_LINK_ETH), SOFL_E_EXTHDR_TRUNC);
	}
	/* every parse error the header documents has a case */
	for (i = (size_t)-SOFL_E_TRUNC_L2; i <= (size_t)-SOFL_E_UDP_LEN; i++) {
		if (!seen[i]) {
			fprintf(stderr, "no malformed case for %d (%s)\n", -(int)i,
				sofl_strerror(-(int)i));
			fail();
		}
	}
}

static void
test_einval(void **state)
{
	uint8_t b[BUFSZ];
	struct t_spec s;
	struct sofl_pkt p;
	size_t len;

	(void)state;
	t_spec_init(&s, 4, 6);
	len = build(b, &s);
	assert_int_equal(sofl_pkt_parse(NULL, b, len, SOFL_LINK_ETH), SOFL_E_INVAL);
	assert_int_equal(sofl_pkt_parse(&p, NULL, len, SOFL_LINK_ETH), SOFL_E_INVAL);
	assert_int_equal(sofl_pkt_parse(&p, b, len, (enum sofl_link)7), SOFL_E_INVAL);
	assert_int_equal(sofl_pkt_parse(&p, NULL, 0, SOFL_LINK_ETH), SOFL_E_TRUNC_L2);
	assert_int_equal(sofl_pkt_parse(&p, NULL, 0, SOFL_LINK_RAW), SOFL_E_TRUNC_L3);
	/* *p is fully overwritten, even from a dirty struct */
	memset(&p, 0xa5, sizeof(p));
	t_spec_init(&s, 4, 1);
	len = build(b, &s);
	assert_int_equal(sofl_pkt_parse(&p, b, len, SOFL_LINK_ETH), 0);
	assert_int_equal(p.l4_len, 0);
	assert_int_equal(p.opt_mss, 0);
	assert_int_equal(p.key.sport, 0);
	assert_int_equal(p.key.nvlan, 0);
	assert_int_equal(p.frag_off_hdr, 0);
}

/* Random corruptions of valid packets in exact-size buffers: whatever the
 * result, no overread (ASan) and, on success, consistent offsets. */
static void
test_random_corruption(void **state)
{
	uint8_t b[BUFSZ], frame[BUFSZ];
	uint64_t r = 0x5eed;
	struct t_spec s;
	struct sofl_pkt p;
	int i, ok = 0, bad = 0;

	(void)state;
	for (i = 0; i < 20000; i++) {
		uint64_t x = t_rand(&r);
		size_t len, n, k;
		int ipv = x & 1 ? 6 : 4, link = x & 2 ? SOFL_LINK_RAW : SOFL_LINK_ETH;
		static const int protos[] = { 6, 17, 1, 59 };

		t_spec_init(&s, ipv, protos[(x >> 2) & 3]);
		s.link = link;
		s.nvlan = link == SOFL_LINK_ETH ? (int)((x >> 4) % 3) : 0;
		s.pay_len = (x >> 8) % 200;
		if (s.proto == 6 && (x >> 16) & 1) {
			s.tcp_opts = t_opt_ts;
			s.tcp_opts_len = 12;
		}
		if (ipv == 6 && (x >> 17) & 1) {
			s.n_ext = 1;
			s.ext[0].type = (x >> 18) & 1 ? 0 : 44;
			s.ext[0].len = 8;
		}
		len = build(b, &s);
		memcpy(frame, b, len);
		for (k = 0; k < 1 + ((x >> 20) & 3); k++) {	/* 1-4 random bytes in the headers */
			uint64_t y = t_rand(&r);
			frame[y % (len < 80 ? len : 80)] = (uint8_t)(y >> 32);
		}
		n = (x >> 24) & 1 ? len : (size_t)(t_rand(&r) % (len + 1));
		if (parse_exact(&p, frame, n, link) == 0) {
			check_invariants(&p);
			ok++;
		} else {
			bad++;
		}
	}
	/* the corpus exercised both outcomes */
	assert_true(ok > 1000);
	assert_true(bad > 1000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tcp4_eth),
		cmocka_unit_test(test_tcp_syn_options),
		cmocka_unit_test(test_tcp_data_options),
		cmocka_unit_test(test_tcp_bad_options),
		cmocka_unit_test(test_ipv4_options),
		cmocka_unit_test(test_udp),
		cmocka_unit_test(test_eth_padding),
		cmocka_unit_test(test_vlans),
		cmocka_unit_test(test_ipv6_exthdrs),
		cmocka_unit_test(test_ipv6_chain_limit),
		cmocka_unit_test(test_fragments),
		cmocka_unit_test(test_not_tcp_udp),
		cmocka_unit_test(test_raw_ip),
		cmocka_unit_test(test_malformed_table),
		cmocka_unit_test(test_einval),
		cmocka_unit_test(test_random_corruption),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
