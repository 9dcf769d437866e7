/* Description: the tunnel parse (pkt.h "Tunnels"): VXLAN (RFC 7348) and Geneve (RFC 8926, with and without options, Ethernet and IP payloads) under outer IPv4 and IPv6, IP-in-IP 4in4/6in4/4in6/6in6, each sofl_encap_err value from a crafted header, nesting, a custom port table, SOFL_PKT_F_NO_IPIP, n_udp 0, the config's errors and outer fragments; a differential property (random inner packets in each tunnel: the inner fields and key equal the plain parse of the inner packet alone, shifted); every prefix of each vector and of its inner packet parses without reading past its length (exact-size heap copies, for ASan); the iovec parse of tunnel super-packets. */
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

#define BUFSZ 4096

static uint32_t
rnd(uint64_t *r, uint32_t n)
{
	return (uint32_t)(t_rand(r) % n);
}

/* A config with no tunnels at all (the 0.4.0 parse) */
static void
cfg_none(struct sofl_pkt_config *c)
{
	sofl_pkt_config_init(c);
	c->n_udp = 0;
	c->flags = SOFL_PKT_F_NO_IPIP;
}

/* sofl_pkt_parse_cfg() from an exact-size heap copy (ASan sees overreads);
 * with the defaults, also sofl_pkt_parse() and the generic path, which
 * must agree on every byte a parse defines */
static int
parse(struct sofl_pkt *p, const uint8_t *frame, size_t len, int link,
      const struct sofl_pkt_config *cfg)
{
	uint8_t *c = malloc(len ? len : 1);
	struct sofl_pkt a, g;
	int err, ea, eg;

	memcpy(c, frame, len);
	memset(p, 0x5a, sizeof(*p));
	err = sofl_pkt_parse_cfg(p, c, len, (enum sofl_link)link, cfg);
	if (err != SOFL_E_INVAL && err != SOFL_E_CFG_SIZE) {
		memset(&g, 0xa5, sizeof(g));
		eg = sofl_pkt_parse_generic_cfg(&g, c, len, (enum sofl_link)link, cfg);
		assert_int_equal(eg, err);
		assert_memory_equal(&g, p, pk_named_len(p));
		if (!cfg) {
			memset(&a, 0x33, sizeof(a));
			ea = sofl_pkt_parse(&a, c, len, (enum sofl_link)link);
			assert_int_equal(ea, err);
			assert_memory_equal(&a, p, pk_named_len(p));
		}
	}
	free(c);
	if (err == 0)
		p->data = frame;	/* (the copy is gone) */
	return err;
}

/* The inner packet of @inner (@n bytes, link @il) parsed alone (no
 * tunnels) equals the tunnel parse's inner fields, shifted by @shift */
static void
check_inner(const struct sofl_pkt *p, const uint8_t *inner, size_t n, int il, uint32_t shift)
{
	struct sofl_pkt_config none;
	struct sofl_pkt q;
	uint32_t s;

	cfg_none(&none);
	assert_int_equal(parse(&q, inner, n, il, &none), 0);
	assert_true(p->layers & SOFL_LAYER_ENCAP);
	assert_int_equal(p->layers & (SOFL_LAYER_L3 | SOFL_LAYER_L4),
			 q.layers & (SOFL_LAYER_L3 | SOFL_LAYER_L4));
	if (!(q.layers & SOFL_LAYER_L3))
		return;
	s = shift;
#define SH(f) assert_int_equal(p->f, q.f ? q.f + s : 0)
#define EQ(f) assert_int_equal(p->f, q.f)
#define SA(f) assert_int_equal(p->f, q.f + s)
	EQ(ipv); EQ(l4_proto); SA(l3_off); EQ(l3_len); SA(ip_end); EQ(exthdr); EQ(n_exthdr);
	EQ(is_frag); EQ(frag_first); SH(frag_off_hdr); EQ(ip_hl_opts); SA(l4_off); EQ(l4_len);
	SA(pay_off); EQ(pay_len); EQ(tcp_flags); EQ(tcp_opt_bad); SH(opt_mss); SH(opt_ws);
	SH(opt_sackok); SH(opt_sack); SH(opt_ts); EQ(tcp_seq); EQ(tcp_ack);
	EQ(key.family); EQ(key.proto); EQ(key.flow_label); EQ(key.sport); EQ(key.dport);
	assert_memory_equal(p->key.src, q.key.src, 16);
	assert_memory_equal(p->key.dst, q.key.dst, 16);
#undef SH
#undef SA
#undef EQ
}

/* The outer packet's named fields of an ENCAP_ERR parse equal the parse
 * with no tunnels configured */
static void
check_outer_plain(const struct sofl_pkt *p, const uint8_t *frame, size_t len, int link)
{
	struct sofl_pkt_config none;
	struct sofl_pkt q, c;

	cfg_none(&none);
	assert_int_equal(parse(&q, frame, len, link, &none), 0);
	c = *p;
	c.layers &= (uint8_t)~SOFL_LAYER_ENCAP_ERR;
	assert_memory_equal(&c, &q, offsetof(struct sofl_pkt, encap));
}

/* Every prefix of @frame parses without an overread; the valid tunnel
 * packet keeps what the outer packet says (tunnel parse or an error) */
static void
check_prefixes(const uint8_t *frame, size_t len, int link, const struct sofl_pkt_config *cfg)
{
	struct sofl_pkt p;
	size_t n;

	for (n = 0; n < len; n++)
		assert_true(parse(&p, frame, n, link, cfg) <= 0);
}

/* An inner packet: TCP or UDP over IPv4 or IPv6, Ethernet or raw */
static size_t
inner_pkt(uint8_t *buf, int ipv, int proto, int link, size_t pay)
{
	struct t_spec s;

	t_spec_init(&s, ipv, proto);
	s.link = link;
	s.sport = 33000;
	s.dport = proto == 17 ? 53 : 443;
	s.tcp_opts = proto == 6 ? t_opt_ts : NULL;
	s.tcp_opts_len = proto == 6 ? 12 : 0;
	s.pay_len = pay;
	s.pay_seed = 7;
	s.mac_src[5] = 0x11;
	s.mac_dst[5] = 0x22;
	if (ipv == 4) {
		s.src[3] = 11;
		s.dst[3] = 12;
	} else {
		s.src[15] = 11;
		s.dst[15] = 12;
		s.flow_label = 0x12345;
	}
	return t_build(buf, BUFSZ, &s);
}

/* An outer spec for @type (outer IPv@ov; IP-in-IP: the inner version @iv) */
static void
outer_spec(struct t_spec *o, int type, int ov, int iv)
{
	t_spec_init(o, ov, type == SOFL_ENCAP_IPIP ? (iv == 4 ? 4 : 41) : 17);
	o->sport = 51000;
	o->dport = type == SOFL_ENCAP_VXLAN ? 4789 : 6081;
}

/* RFC 7348 §5: outer IPv4 and IPv6, inner IPv4 and IPv6, TCP and UDP */
static void
test_vxlan(void **state)
{
	uint8_t in[BUFSZ], f[BUFSZ];
	struct t_spec o;
	struct t_encap e;
	struct sofl_pkt p;
	int ov, iv, pr;

	(void)state;
	for (ov = 4; ov <= 6; ov += 2)
		for (iv = 4; iv <= 6; iv += 2)
			for (pr = 6; pr <= 17; pr += 11) {
				size_t n = inner_pkt(in, iv, pr, SOFL_LINK_ETH, 100), len;
				uint32_t ol3 = 14, ol4 = 14 + (ov == 4 ? 20 : 40);

				outer_spec(&o, SOFL_ENCAP_VXLAN, ov, iv);
				t_encap_init(&e, SOFL_ENCAP_VXLAN, 0xabcdef);
				len = t_build_encap(f, sizeof(f), &o, &e, in, n);
				assert_int_equal(parse(&p, f, len, SOFL_LINK_ETH, NULL), 0);
				assert_int_equal(p.layers, SOFL_LAYER_L2 | SOFL_LAYER_L3 | SOFL_LAYER_L4 |
						 SOFL_LAYER_ENCAP);
				assert_int_equal(p.encap, SOFL_ENCAP_VXLAN);
				assert_int_equal(p.encap_flags,
						 SOFL_ENCAP_F_INNER_ETH | SOFL_ENCAP_F_UDP_CSUM);
				assert_int_equal(p.encap_err, 0);
				assert_int_equal(p.vni, 0xabcdef);
				assert_int_equal(p.outer_ipv, ov);
				assert_int_equal(p.outer_l3_off, ol3);
				assert_int_equal(p.outer_l3_len, ov == 4 ? 20 : 40);
				assert_int_equal(p.outer_l4_off, ol4);
				assert_int_equal(p.outer_proto, 17);
				assert_int_equal(p.outer_ip_end, len);
				assert_int_equal(p.encap_off, ol4 + 8);
				assert_int_equal(p.encap_len, 8);
				assert_int_equal(p.inner_l2_off, ol4 + 16);
				assert_int_equal(p.l3_off, ol4 + 30);
				assert_int_equal(p.ipv, iv);
				assert_int_equal(p.l4_proto, pr);
				assert_int_equal(p.ethertype, ov == 4 ? 0x0800 : 0x86DD);
				assert_int_equal(p.key.dport, pr == 17 ? 53 : 443);
				assert_int_equal(p.pay_len, 100);
				assert_int_equal(p.pay_off + p.pay_len, len);
				if (pr == 6)
					assert_int_equal(p.opt_ts, p.l4_off + 22);
				check_inner(&p, in, n, SOFL_LINK_ETH, p.inner_l2_off);
				check_prefixes(f, len, SOFL_LINK_ETH, NULL);
			}
	/* outer checksum zero: no UDP_CSUM flag; outer VLAN and raw outer link */
	{
		size_t n = inner_pkt(in, 4, 6, SOFL_LINK_ETH, 10), len;

		outer_spec(&o, SOFL_ENCAP_VXLAN, 4, 4);
		o.udp_zero_csum = 1;
		o.nvlan = 1;
		o.vlan_tci[0] = 0x2064;
		t_encap_init(&e, SOFL_ENCAP_VXLAN, 1);
		len = t_build_encap(f, sizeof(f), &o, &e, in, n);
		assert_int_equal(parse(&p, f, len, SOFL_LINK_ETH, NULL), 0);
		assert_int_equal(p.encap_flags, SOFL_ENCAP_F_INNER_ETH);
		assert_int_equal(p.key.nvlan, 1);
		assert_int_equal(p.key.vlan[0], 0x064);
		assert_int_equal(p.vlan_tci[0], 0x2064);
		assert_int_equal(p.outer_l3_off, 18);
		check_inner(&p, in, n, SOFL_LINK_ETH, p.inner_l2_off);
		o.nvlan = 0;
		o.link = SOFL_LINK_RAW;
		len = t_build_encap(f, sizeof(f), &o, &e, in, n);
		assert_int_equal(parse(&p, f, len, SOFL_LINK_RAW, NULL), 0);
		assert_int_equal(p.layers, SOFL_LAYER_L3 | SOFL_LAYER_L4 | SOFL_LAYER_ENCAP);
		assert_int_equal(p.outer_l3_off, 0);
		assert_int_equal(p.inner_l2_off, 36);
		assert_int_equal(p.ethertype, 0);
		check_inner(&p, in, n, SOFL_LINK_ETH, p.inner_l2_off);
	}
	/* an inner frame that is not IP (ARP): the tunnel, no inner L3 */
	{
		struct t_spec a;
		size_t n, len;

		t_spec_init(&a, 4, 0);
		n = t_build_arp(in, sizeof(in), &a);
		outer_spec(&o, SOFL_ENCAP_VXLAN, 6, 4);
		t_encap_init(&e, SOFL_ENCAP_VXLAN, 5);
		len = t_build_encap(f, sizeof(f), &o, &e, in, n);
		assert_int_equal(parse(&p, f, len, SOFL_LINK_ETH, NULL), 0);
		assert_int_equal(p.layers, SOFL_LAYER_L2 | SOFL_LAYER_ENCAP);
		assert_int_equal(p.ipv, 0);
		assert_int_equal(p.l3_off, p.inner_l2_off + 14);
		assert_int_equal(p.vni, 5);
	}
}

/* RFC 8926 §3.4: Geneve without and with options, Ethernet (0x6558) and
 * IP (0x0800, 0x86DD) payloads, the C bit allowed */
static void
test_geneve(void **state)
{
	static const uint8_t opts[12] = { 0x01, 0x02, 0x80, 0x02, 1, 2, 3, 4, 5, 6, 7, 8 };
	uint8_t in[BUFSZ], f[BUFSZ];
	struct t_spec o;
	struct t_encap e;
	struct sofl_pkt p;
	int ov, iv, eth, nopt;

	(void)state;
	for (ov = 4; ov <= 6; ov += 2)
		for (iv = 4; iv <= 6; iv += 2)
			for (eth = 0; eth < 2; eth++)
				for (nopt = 0; nopt < 2; nopt++) {
					int il = eth ? SOFL_LINK_ETH : SOFL_LINK_RAW;
					size_t n = inner_pkt(in, iv, 6, il, 50), len;
					uint32_t ol4 = 14 + (ov == 4 ? 20 : 40), elen = nopt ? 20 : 8;

					outer_spec(&o, SOFL_ENCAP_GENEVE, ov, iv);
					t_encap_init(&e, SOFL_ENCAP_GENEVE, 0x123456);
					e.gn_proto = eth ? 0x6558 : iv == 4 ? 0x0800 : 0x86DD;
					e.gn_flags = nopt ? 0x40 : 0;	/* C: critical options */
					e.gn_opts = nopt ? opts : NULL;
					e.gn_opts_len = nopt ? sizeof(opts) : 0;
					len = t_build_encap(f, sizeof(f), &o, &e, in, n);
					assert_int_equal(parse(&p, f, len, SOFL_LINK_ETH, NULL), 0);
					assert_int_equal(p.encap, SOFL_ENCAP_GENEVE);
					assert_int_equal(p.layers & SOFL_LAYER_ENCAP, SOFL_LAYER_ENCAP);
					assert_int_equal(p.encap_flags, (eth ? SOFL_ENCAP_F_INNER_ETH : 0) |
							 SOFL_ENCAP_F_UDP_CSUM);
					assert_int_equal(p.vni, 0x123456);
					assert_int_equal(p.encap_off, ol4 + 8);
					assert_int_equal(p.encap_len, elen);
					assert_int_equal(p.inner_l2_off, ol4 + 8 + elen);
					assert_int_equal(p.l3_off, ol4 + 8 + elen + (eth ? 14 : 0));
					check_inner(&p, in, n, il, p.inner_l2_off);
					check_prefixes(f, len, SOFL_LINK_ETH, NULL);
				}
}

/* IP-in-IP: 4in4, 6in4, 4in6, 6in6; the inner version must match the
 * protocol; SOFL_PKT_F_NO_IPIP */
static void
test_ipip(void **state)
{
	uint8_t in[BUFSZ], f[BUFSZ];
	struct sofl_pkt_config c;
	struct t_spec o;
	struct t_encap e;
	struct sofl_pkt p;
	int ov, iv;

	(void)state;
	t_encap_init(&e, SOFL_ENCAP_IPIP, 0);
	for (ov = 4; ov <= 6; ov += 2)
		for (iv = 4; iv <= 6; iv += 2) {
			size_t n = inner_pkt(in, iv, 6, SOFL_LINK_RAW, 70), len;
			uint32_t il3 = 14 + (ov == 4 ? 20 : 40);

			outer_spec(&o, SOFL_ENCAP_IPIP, ov, iv);
			len = t_build_encap(f, sizeof(f), &o, &e, in, n);
			assert_int_equal(parse(&p, f, len, SOFL_LINK_ETH, NULL), 0);
			assert_int_equal(p.encap, SOFL_ENCAP_IPIP);
			assert_int_equal(p.layers, SOFL_LAYER_L2 | SOFL_LAYER_L3 | SOFL_LAYER_L4 |
					 SOFL_LAYER_ENCAP);
			assert_int_equal(p.encap_flags, 0);
			assert_int_equal(p.outer_l4_off, 0);
			assert_int_equal(p.outer_proto, iv == 4 ? 4 : 41);
			assert_int_equal(p.encap_off, il3);
			assert_int_equal(p.encap_len, 0);
			assert_int_equal(p.inner_l2_off, il3);
			assert_int_equal(p.l3_off, il3);
			assert_int_equal(p.vni, 0);
			assert_int_equal(p.outer_ip_end, len);
			check_inner(&p, in, n, SOFL_LINK_RAW, il3);
			check_prefixes(f, len, SOFL_LINK_ETH, NULL);

			/* NO_IPIP: the outer packet, as before tunnels */
			sofl_pkt_config_init(&c);
			c.flags = SOFL_PKT_F_NO_IPIP;
			assert_int_equal(parse(&p, f, len, SOFL_LINK_ETH, &c), 0);
			assert_int_equal(p.layers, SOFL_LAYER_L2 | SOFL_LAYER_L3);
			assert_int_equal(p.encap, SOFL_ENCAP_NONE);
			assert_int_equal(p.pay_off, il3);
			assert_int_equal(p.pay_len, n);

			/* the wrong inner version for the protocol */
			o.proto = iv == 4 ? 41 : 4;
			len = t_build_encap(f, sizeof(f), &o, &e, in, n);
			assert_int_equal(parse(&p, f, len, SOFL_LINK_ETH, NULL), 0);
			assert_int_equal(p.layers, SOFL_LAYER_L2 | SOFL_LAYER_L3 | SOFL_LAYER_ENCAP_ERR);
			assert_int_equal(p.encap, SOFL_ENCAP_IPIP);
			assert_int_equal(p.encap_err, SOFL_ENCAP_ERR_INNER);
			assert_int_equal(p.encap_inner_err, SOFL_E_IP_VERSION);
			check_outer_plain(&p, f, len, SOFL_LINK_ETH);
		}
}

/* One vector for each enum sofl_encap_err value: the outer packet's
 * fields unchanged, the reason named */
static void
expect_err(const uint8_t *f, size_t len, int type, int why, int inner_err)
{
	struct sofl_pkt p;

	assert_int_equal(parse(&p, f, len, SOFL_LINK_ETH, NULL), 0);
	if (!(p.layers & SOFL_LAYER_ENCAP_ERR) || p.encap_err != why) {
		fprintf(stderr, "want encap_err %d, got layers %#x encap_err %d\n", why, p.layers,
			p.encap_err);
		t_hexdump("frame", f, len);
		fail();
	}
	assert_int_equal(p.layers & SOFL_LAYER_ENCAP, 0);
	assert_int_equal(p.encap, type);
	assert_int_equal(p.encap_inner_err, inner_err);
	check_outer_plain(&p, f, len, SOFL_LINK_ETH);
	check_prefixes(f, len, SOFL_LINK_ETH, NULL);
}

static void
test_errors(void **state)
{
	uint8_t in[BUFSZ], f[BUFSZ];
	struct t_spec o;
	struct t_encap e;
	size_t n = inner_pkt(in, 4, 6, SOFL_LINK_ETH, 20), len;
	uint32_t i;
	int seen[SOFL_ENCAP_ERR__MAX] = { 0 };

	(void)state;
	/* TRUNC: 7 bytes of UDP payload to 4789, then 6081 */
	outer_spec(&o, SOFL_ENCAP_VXLAN, 4, 4);
	o.pay_len = 7;
	len = t_build(f, sizeof(f), &o);
	expect_err(f, len, SOFL_ENCAP_VXLAN, SOFL_ENCAP_ERR_TRUNC, 0);
	o.dport = 6081;
	len = t_build(f, sizeof(f), &o);
	expect_err(f, len, SOFL_ENCAP_GENEVE, SOFL_ENCAP_ERR_TRUNC, 0);
	seen[SOFL_ENCAP_ERR_TRUNC] = 1;

	/* VXLAN_FLAGS: I clear, another flag bit, each reserved byte */
	outer_spec(&o, SOFL_ENCAP_VXLAN, 4, 4);
	for (i = 0; i < 13; i++) {
		t_encap_init(&e, SOFL_ENCAP_VXLAN, 9);
		if (i < 8)
			e.vx_flags = i == 3 ? 0 : (uint8_t)(0x08 | 1u << i);
		else if (i < 12)
			e.vx_rsvd[i - 8] = 0x01;
		else
			e.vx_flags = 0x0c;	/* (G flag of VXLAN-GBP: an extension we do not take) */
		len = t_build_encap(f, sizeof(f), &o, &e, in, n);
		expect_err(f, len, SOFL_ENCAP_VXLAN, SOFL_ENCAP_ERR_VXLAN_FLAGS, 0);
	}
	seen[SOFL_ENCAP_ERR_VXLAN_FLAGS] = 1;

	/* Geneve: version 1, 2, 3; O bit; options past the UDP payload; an
	 * unknown protocol */
	outer_spec(&o, SOFL_ENCAP_GENEVE, 6, 4);
	for (i = 1; i < 4; i++) {
		t_encap_init(&e, SOFL_ENCAP_GENEVE, 9);
		e.gn_ver = (uint8_t)i;
		len = t_build_encap(f, sizeof(f), &o, &e, in, n);
		expect_err(f, len, SOFL_ENCAP_GENEVE, SOFL_ENCAP_ERR_GENEVE_VER, 0);
	}
	seen[SOFL_ENCAP_ERR_GENEVE_VER] = 1;
	t_encap_init(&e, SOFL_ENCAP_GENEVE, 9);
	e.gn_flags = 0x80;
	len = t_build_encap(f, sizeof(f), &o, &e, in, n);
	expect_err(f, len, SOFL_ENCAP_GENEVE, SOFL_ENCAP_ERR_GENEVE_OAM, 0);
	seen[SOFL_ENCAP_ERR_GENEVE_OAM] = 1;
	{
		/* 8 + 63 * 4 bytes claimed; the payload has 8 + 4 only (and the
		 * frame has more, as Ethernet padding the UDP length excludes) */
		uint8_t hdr[12] = { 0x3f, 0, 0x65, 0x58, 0, 0, 9, 0, 1, 2, 3, 4 };
		outer_spec(&o, SOFL_ENCAP_GENEVE, 4, 4);
		o.proto = 17;
		o.eth_pad = 300;
		t_encap_init(&e, SOFL_ENCAP_IPIP, 0);	/* (no header: ours is the payload) */
		len = t_build_encap(f, sizeof(f), &o, &e, hdr, sizeof(hdr));
		expect_err(f, len, SOFL_ENCAP_GENEVE, SOFL_ENCAP_ERR_GENEVE_OPTLEN, 0);
		hdr[0] = 0x01;		/* one word of options, exactly there, no inner frame */
		len = t_build_encap(f, sizeof(f), &o, &e, hdr, sizeof(hdr));
		expect_err(f, len, SOFL_ENCAP_GENEVE, SOFL_ENCAP_ERR_INNER_L2, 0);
		o.eth_pad = 0;
	}
	seen[SOFL_ENCAP_ERR_GENEVE_OPTLEN] = 1;
	outer_spec(&o, SOFL_ENCAP_GENEVE, 4, 4);
	t_encap_init(&e, SOFL_ENCAP_GENEVE, 9);
	e.gn_proto = 0x0806;
	len = t_build_encap(f, sizeof(f), &o, &e, in, n);
	expect_err(f, len, SOFL_ENCAP_GENEVE, SOFL_ENCAP_ERR_GENEVE_PROTO, 0);
	seen[SOFL_ENCAP_ERR_GENEVE_PROTO] = 1;

	/* INNER_L2: a runt inner frame (0..13 bytes) */
	outer_spec(&o, SOFL_ENCAP_VXLAN, 4, 4);
	t_encap_init(&e, SOFL_ENCAP_VXLAN, 9);
	for (i = 0; i < 14; i++) {
		len = t_build_encap(f, sizeof(f), &o, &e, in, i);
		expect_err(f, len, SOFL_ENCAP_VXLAN, SOFL_ENCAP_ERR_INNER_L2, 0);
	}
	seen[SOFL_ENCAP_ERR_INNER_L2] = 1;

	/* INNER_VLAN: 802.1Q and 802.1ad tags in the inner frame */
	for (i = 0; i < 2; i++) {
		struct t_spec s;
		size_t m;

		t_spec_init(&s, 4, 6);
		s.nvlan = 1;
		s.vlan_tpid[0] = i ? 0x88a8 : 0x8100;
		m = t_build(in + 1000, sizeof(in) - 1000, &s);
		len = t_build_encap(f, sizeof(f), &o, &e, in + 1000, m);
		expect_err(f, len, SOFL_ENCAP_VXLAN, SOFL_ENCAP_ERR_INNER_VLAN, 0);
	}
	seen[SOFL_ENCAP_ERR_INNER_VLAN] = 1;

	/* INNER: inner lengths that lie (longer than the outer UDP payload,
	 * though the frame holds the bytes as padding), inner TCP offset */
	{
		uint8_t m[BUFSZ];

		memcpy(m, in, n);
		sofl_put16(m + 14 + 2, (uint16_t)(sofl_get16(m + 14 + 2) + 4));
		o.eth_pad = 4;
		len = t_build_encap(f, sizeof(f), &o, &e, m, n);
		expect_err(f, len, SOFL_ENCAP_VXLAN, SOFL_ENCAP_ERR_INNER, SOFL_E_IPV4_TOTLEN_LONG);
		o.eth_pad = 0;
		memcpy(m, in, n);
		m[14 + 20 + 12] = 0xf0;	/* data offset 60 > what there is */
		len = t_build_encap(f, sizeof(f), &o, &e, m, n);
		expect_err(f, len, SOFL_ENCAP_VXLAN, SOFL_ENCAP_ERR_INNER, SOFL_E_TCP_DOFF_LONG);
		n = inner_pkt(m, 6, 17, SOFL_LINK_ETH, 20);
		sofl_put16(m + 14 + 4, (uint16_t)(sofl_get16(m + 14 + 4) + 1));
		o.eth_pad = 1;
		outer_spec(&o, SOFL_ENCAP_VXLAN, 6, 6);
		len = t_build_encap(f, sizeof(f), &o, &e, m, n);
		expect_err(f, len, SOFL_ENCAP_VXLAN, SOFL_ENCAP_ERR_INNER, SOFL_E_IPV6_PLEN_LONG);
	}
	seen[SOFL_ENCAP_ERR_INNER] = 1;
	for (i = 1; i < SOFL_ENCAP_ERR__MAX; i++)
		assert_true(seen[i]);
}

/* A second level: not parsed into, SOFL_ENCAP_F_NESTED */
static void
test_nested(void **state)
{
	uint8_t in[BUFSZ], mid[BUFSZ], f[BUFSZ];
	struct t_spec o;
	struct t_encap e;
	struct sofl_pkt p;
	size_t n = inner_pkt(in, 4, 6, SOFL_LINK_ETH, 30), m, len;

	(void)state;
	/* VXLAN in VXLAN: the inner packet is UDP to 4789, plain */
	outer_spec(&o, SOFL_ENCAP_VXLAN, 4, 4);
	t_encap_init(&e, SOFL_ENCAP_VXLAN, 1);
	m = t_build_encap(mid, sizeof(mid), &o, &e, in, n);
	t_encap_init(&e, SOFL_ENCAP_VXLAN, 2);
	outer_spec(&o, SOFL_ENCAP_VXLAN, 6, 4);
	len = t_build_encap(f, sizeof(f), &o, &e, mid, m);
	assert_int_equal(parse(&p, f, len, SOFL_LINK_ETH, NULL), 0);
	assert_int_equal(p.encap, SOFL_ENCAP_VXLAN);
	assert_int_equal(p.vni, 2);
	assert_int_equal(p.encap_flags & SOFL_ENCAP_F_NESTED, SOFL_ENCAP_F_NESTED);
	assert_int_equal(p.l4_proto, 17);
	assert_int_equal(p.key.dport, 4789);
	check_inner(&p, mid, m, SOFL_LINK_ETH, p.inner_l2_off);

	/* IP-in-IP in Geneve (IP payload); IP-in-IP in IP-in-IP */
	n = inner_pkt(in, 6, 17, SOFL_LINK_RAW, 30);
	outer_spec(&o, SOFL_ENCAP_IPIP, 4, 6);
	o.link = SOFL_LINK_RAW;
	t_encap_init(&e, SOFL_ENCAP_IPIP, 0);
	m = t_build_encap(mid, sizeof(mid), &o, &e, in, n);
	outer_spec(&o, SOFL_ENCAP_GENEVE, 6, 4);
	t_encap_init(&e, SOFL_ENCAP_GENEVE, 3);
	e.gn_proto = 0x0800;
	len = t_build_encap(f, sizeof(f), &o, &e, mid, m);
	assert_int_equal(parse(&p, f, len, SOFL_LINK_ETH, NULL), 0);
	assert_int_equal(p.encap, SOFL_ENCAP_GENEVE);
	assert_int_equal(p.encap_flags, SOFL_ENCAP_F_NESTED | SOFL_ENCAP_F_UDP_CSUM);
	assert_int_equal(p.l4_proto, 41);
	assert_int_equal(p.layers, SOFL_LAYER_L2 | SOFL_LAYER_L3 | SOFL_LAYER_ENCAP);
	check_inner(&p, mid, m, SOFL_LINK_RAW, p.inner_l2_off);
	outer_spec(&o, SOFL_ENCAP_IPIP, 6, 4);
	t_encap_init(&e, SOFL_ENCAP_IPIP, 0);
	len = t_build_encap(f, sizeof(f), &o, &e, mid, m);
	assert_int_equal(parse(&p, f, len, SOFL_LINK_ETH, NULL), 0);
	assert_int_equal(p.encap, SOFL_ENCAP_IPIP);
	assert_int_equal(p.encap_flags, SOFL_ENCAP_F_NESTED);
	check_inner(&p, mid, m, SOFL_LINK_RAW, p.inner_l2_off);
	{	/* with NO_IPIP the same inner IP-in-IP is not a tunnel */
		struct sofl_pkt_config c;

		sofl_pkt_config_init(&c);
		c.flags = SOFL_PKT_F_NO_IPIP;
		outer_spec(&o, SOFL_ENCAP_GENEVE, 6, 4);
		t_encap_init(&e, SOFL_ENCAP_GENEVE, 3);
		e.gn_proto = 0x0800;
		len = t_build_encap(f, sizeof(f), &o, &e, mid, m);
		assert_int_equal(parse(&p, f, len, SOFL_LINK_ETH, &c), 0);
		assert_int_equal(p.encap_flags, SOFL_ENCAP_F_UDP_CSUM);
	}
}

/* Outer IP fragments are never tunnels: a first fragment to 4789, an
 * IP-in-IP fragment, an IPv6 fragment header before UDP */
static void
test_fragments(void **state)
{
	uint8_t in[BUFSZ], f[BUFSZ];
	struct t_spec o;
	struct t_encap e;
	struct sofl_pkt p;
	size_t n = inner_pkt(in, 4, 6, SOFL_LINK_ETH, 30), len;

	(void)state;
	outer_spec(&o, SOFL_ENCAP_VXLAN, 4, 4);
	o.frag = 0x2000;	/* MF */
	t_encap_init(&e, SOFL_ENCAP_VXLAN, 1);
	len = t_build_encap(f, sizeof(f), &o, &e, in, n);
	assert_int_equal(parse(&p, f, len, SOFL_LINK_ETH, NULL), 0);
	assert_int_equal(p.layers, SOFL_LAYER_L2 | SOFL_LAYER_L3);
	assert_int_equal(p.encap, SOFL_ENCAP_NONE);
	n = inner_pkt(in, 4, 6, SOFL_LINK_RAW, 30);
	outer_spec(&o, SOFL_ENCAP_IPIP, 4, 4);
	o.frag = 0x0010;
	t_encap_init(&e, SOFL_ENCAP_IPIP, 0);
	len = t_build_encap(f, sizeof(f), &o, &e, in, n);
	assert_int_equal(parse(&p, f, len, SOFL_LINK_ETH, NULL), 0);
	assert_int_equal(p.layers, SOFL_LAYER_L2 | SOFL_LAYER_L3);
	assert_int_equal(p.is_frag, 1);
	outer_spec(&o, SOFL_ENCAP_IPIP, 6, 4);
	o.n_ext = 1;
	o.ext[0].type = 44;
	o.ext[0].len = 8;
	len = t_build_encap(f, sizeof(f), &o, &e, in, n);
	assert_int_equal(parse(&p, f, len, SOFL_LINK_ETH, NULL), 0);
	assert_int_equal(p.layers, SOFL_LAYER_L2 | SOFL_LAYER_L3);
	assert_int_equal(p.encap, SOFL_ENCAP_NONE);
	/* an IPv6 destination-options header before IP-in-IP is no fragment */
	o.ext[0].type = 60;
	len = t_build_encap(f, sizeof(f), &o, &e, in, n);
	assert_int_equal(parse(&p, f, len, SOFL_LINK_ETH, NULL), 0);
	assert_int_equal(p.encap, SOFL_ENCAP_IPIP);
	assert_int_equal(p.outer_l3_len, 48);
	check_inner(&p, in, n, SOFL_LINK_RAW, 14 + 48);
}

/* A custom port table, n_udp 0, and the config's errors */
static void
test_config(void **state)
{
	uint8_t in[BUFSZ], f[BUFSZ], big[sizeof(struct sofl_pkt_config) + 8];
	struct sofl_pkt_config c, *bc = (struct sofl_pkt_config *)(void *)big;
	struct t_spec o;
	struct t_encap e;
	struct sofl_pkt p;
	size_t n = inner_pkt(in, 6, 6, SOFL_LINK_ETH, 30), len;

	(void)state;
	sofl_pkt_config_init(&c);
	assert_int_equal(c.size, sizeof(c));
	assert_int_equal(c.n_udp, 2);
	assert_int_equal(c.udp[0].port, 4789);
	assert_int_equal(c.udp[0].type, SOFL_ENCAP_VXLAN);
	assert_int_equal(c.udp[1].port, 6081);
	assert_int_equal(c.udp[1].type, SOFL_ENCAP_GENEVE);
	assert_int_equal(c.flags, 0);
	sofl_pkt_config_init(NULL);

	/* VXLAN on 8472 (Linux's old default), Geneve on 4789 */
	c.n_udp = 2;
	c.udp[0].port = 8472;
	c.udp[1].port = 4789;
	outer_spec(&o, SOFL_ENCAP_VXLAN, 4, 6);
	o.dport = 8472;
	t_encap_init(&e, SOFL_ENCAP_VXLAN, 77);
	len = t_build_encap(f, sizeof(f), &o, &e, in, n);
	assert_int_equal(parse(&p, f, len, SOFL_LINK_ETH, NULL), 0);
	assert_int_equal(p.encap, SOFL_ENCAP_NONE);		/* not a default port */
	assert_int_equal(parse(&p, f, len, SOFL_LINK_ETH, &c), 0);
	assert_int_equal(p.encap, SOFL_ENCAP_VXLAN);
	assert_int_equal(p.vni, 77);
	check_inner(&p, in, n, SOFL_LINK_ETH, p.inner_l2_off);
	o.dport = 4789;		/* a VXLAN header on the Geneve port: version 0, */
	len = t_build_encap(f, sizeof(f), &o, &e, in, n);	/* OAM clear, proto 0 */
	assert_int_equal(parse(&p, f, len, SOFL_LINK_ETH, &c), 0);
	assert_int_equal(p.encap, SOFL_ENCAP_GENEVE);
	assert_int_equal(p.encap_err, SOFL_ENCAP_ERR_GENEVE_PROTO);
	c.n_udp = SOFL_PKT_UDP_ENCAP_MAX;	/* the whole table, the port last */
	for (uint32_t i = 0; i < SOFL_PKT_UDP_ENCAP_MAX; i++) {
		c.udp[i].port = (uint16_t)(10000 + i);
		c.udp[i].type = SOFL_ENCAP_VXLAN;
	}
	c.udp[SOFL_PKT_UDP_ENCAP_MAX - 1].port = 4789;
	assert_int_equal(parse(&p, f, len, SOFL_LINK_ETH, &c), 0);
	assert_int_equal(p.encap, SOFL_ENCAP_VXLAN);

	/* n_udp 0: UDP to 4789 is plain UDP, as in 0.4.0 */
	c.n_udp = 0;
	assert_int_equal(parse(&p, f, len, SOFL_LINK_ETH, &c), 0);
	assert_int_equal(p.layers, SOFL_LAYER_L2 | SOFL_LAYER_L3 | SOFL_LAYER_L4);
	assert_int_equal(p.encap, SOFL_ENCAP_NONE);
	assert_int_equal(p.l4_proto, 17);
	assert_int_equal(p.pay_len, 8 + n);
	{
		struct sofl_pkt q;

		assert_int_equal(sofl_pkt_parse_generic_cfg(&q, f, len, SOFL_LINK_ETH, &c), 0);
		assert_memory_equal(&p, &q, pk_named_len(&q));
	}

	/* errors */
	sofl_pkt_config_init(&c);
	c.size = sizeof(c) - 1;
	assert_int_equal(sofl_pkt_parse_cfg(&p, f, len, SOFL_LINK_ETH, &c), SOFL_E_CFG_SIZE);
	c.size = 4;
	assert_int_equal(sofl_pkt_parse_cfg(&p, f, len, SOFL_LINK_ETH, &c), SOFL_E_CFG_SIZE);
	memset(big, 0, sizeof(big));
	sofl_pkt_config_init(bc);
	bc->size = sizeof(big);		/* a newer program's larger struct, zeros past ours: */
	assert_int_equal(sofl_pkt_parse_cfg(&p, f, len, SOFL_LINK_ETH, bc), 0);	/* fine */
	big[sizeof(c) + 3] = 1;		/* a field this library does not know, set */
	assert_int_equal(sofl_pkt_parse_cfg(&p, f, len, SOFL_LINK_ETH, bc), SOFL_E_CFG_SIZE);
	sofl_pkt_config_init(&c);
	c.n_udp = SOFL_PKT_UDP_ENCAP_MAX + 1;
	assert_int_equal(sofl_pkt_parse_cfg(&p, f, len, SOFL_LINK_ETH, &c), SOFL_E_INVAL);
	sofl_pkt_config_init(&c);
	c.udp[1].port = 0;
	assert_int_equal(sofl_pkt_parse_cfg(&p, f, len, SOFL_LINK_ETH, &c), SOFL_E_INVAL);
	c.n_udp = 1;		/* entries past n_udp are not looked at */
	assert_int_equal(sofl_pkt_parse_cfg(&p, f, len, SOFL_LINK_ETH, &c), 0);
	sofl_pkt_config_init(&c);
	c.udp[0].type = SOFL_ENCAP_IPIP;
	assert_int_equal(sofl_pkt_parse_cfg(&p, f, len, SOFL_LINK_ETH, &c), SOFL_E_INVAL);
	c.udp[0].type = SOFL_ENCAP_NONE;
	assert_int_equal(sofl_pkt_parse_cfg(&p, f, len, SOFL_LINK_ETH, &c), SOFL_E_INVAL);
	sofl_pkt_config_init(&c);
	c.flags = 0x02;
	assert_int_equal(sofl_pkt_parse_cfg(&p, f, len, SOFL_LINK_ETH, &c), SOFL_E_INVAL);
	sofl_pkt_config_init(&c);
	assert_int_equal(sofl_pkt_parse_cfg(NULL, f, len, SOFL_LINK_ETH, &c), SOFL_E_INVAL);
	assert_int_equal(sofl_pkt_parse_cfg(&p, NULL, len, SOFL_LINK_ETH, &c), SOFL_E_INVAL);
	assert_int_equal(sofl_pkt_parse_cfg(&p, f, len, SOFL_LINK_ETH, NULL), 0);
	assert_int_equal(p.encap, SOFL_ENCAP_VXLAN);
}

/* The differential property: random valid inner packets wrapped in each
 * tunnel under a random outer header give the plain parse's inner fields,
 * shifted; every prefix of the inner packet, carried whole by consistent
 * outer lengths, parses into a tunnel or names its reason */
static size_t
random_inner(uint64_t *r, uint8_t *buf, int link)
{
	static const uint8_t opt_sack[12] = { 1, 1, 5, 10, 0, 0, 0, 1, 0, 0, 0, 2 };
	struct t_spec s;
	int ipv = rnd(r, 2) ? 4 : 6, k = (int)rnd(r, 8);

	t_spec_init(&s, ipv, k < 5 ? 6 : k < 7 ? 17 : (ipv == 4 ? 1 : 58));
	s.link = link;
	s.sport = (uint16_t)t_rand(r);
	s.dport = (uint16_t)t_rand(r);
	if (s.dport == 4789 || s.dport == 6081)
		s.dport = 80;
	s.seq = (uint32_t)t_rand(r);
	s.ack = (uint32_t)t_rand(r);
	s.flags = (uint8_t)t_rand(r);
	s.tos = (uint8_t)t_rand(r);
	s.ttl = (uint8_t)t_rand(r);
	s.flow_label = (uint32_t)t_rand(r) & 0xfffff;
	s.pay_len = rnd(r, 300);
	s.pay_seed = (uint8_t)t_rand(r);
	if (rnd(r, 2)) {
		s.tcp_opts = rnd(r, 2) ? t_opt_ts : opt_sack;
		s.tcp_opts_len = 12;
	}
	s.src[1] = (uint8_t)t_rand(r);
	s.dst[2] = (uint8_t)t_rand(r);
	if (ipv == 4 && !rnd(r, 8))
		s.frag = 0x2000;
	if (ipv == 6 && !rnd(r, 6)) {
		s.n_ext = 1;
		s.ext[0].type = rnd(r, 2) ? 0 : 60;
		s.ext[0].len = 16;
	}
	return t_build(buf, BUFSZ, &s);
}

static void
test_differential(void **state)
{
	uint64_t r = 0x7e57e9cabull;
	uint8_t in[BUFSZ], f[BUFSZ];
	int i;

	(void)state;
	for (i = 0; i < 1500; i++) {
		int type = 1 + (int)rnd(&r, 3), il, ieth = 0;
		struct t_spec o;
		struct t_encap e;
		struct sofl_pkt p;
		size_t n, len, k;

		t_encap_init(&e, type, (uint32_t)t_rand(&r) & 0xffffff);
		if (type == SOFL_ENCAP_VXLAN || (type == SOFL_ENCAP_GENEVE && rnd(&r, 2)))
			ieth = 1;
		il = ieth ? SOFL_LINK_ETH : SOFL_LINK_RAW;
		n = random_inner(&r, in, il);
		if (type == SOFL_ENCAP_GENEVE && !ieth)
			e.gn_proto = (in[0] >> 4) == 4 ? 0x0800 : 0x86DD;
		if (type == SOFL_ENCAP_GENEVE && rnd(&r, 2)) {
			static const uint8_t opts[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
			e.gn_opts = opts;
			e.gn_opts_len = 4 * (1 + rnd(&r, 4));
		}
		outer_spec(&o, type, rnd(&r, 2) ? 4 : 6, (in[ieth ? 14 : 0] >> 4));
		o.link = rnd(&r, 4) ? SOFL_LINK_ETH : SOFL_LINK_RAW;
		o.nvlan = o.link == SOFL_LINK_ETH ? (int)rnd(&r, 3) : 0;
		o.udp_zero_csum = (int)rnd(&r, 2);
		o.eth_pad = o.link == SOFL_LINK_ETH && !rnd(&r, 4) ? rnd(&r, 20) : 0;
		len = t_build_encap(f, sizeof(f), &o, &e, in, n);
		assert_int_equal(parse(&p, f, len, o.link, NULL), 0);
		assert_int_equal(p.encap, type);
		check_inner(&p, in, n, il, p.inner_l2_off);
		assert_int_equal(p.key.nvlan, o.nvlan);
		/* inner prefixes: a tunnel, or the reason, never an overread */
		for (k = 0; k < n; k += 1 + rnd(&r, 6)) {
			len = t_build_encap(f, sizeof(f), &o, &e, in, k);
			assert_int_equal(parse(&p, f, len, o.link, NULL), 0);
			assert_true(p.layers & (SOFL_LAYER_ENCAP | SOFL_LAYER_ENCAP_ERR));
			if (p.layers & SOFL_LAYER_ENCAP_ERR)
				assert_true(p.encap_err == SOFL_ENCAP_ERR_INNER_L2 ||
					    p.encap_err == SOFL_ENCAP_ERR_INNER);
		}
	}
}

/* sofl_pkt_parse_iov_cfg() of @f split at random points into three
 * iovecs (each an exact-size heap copy) */
static int
parse_iov(struct sofl_pkt *p, uint8_t *hb, const uint8_t *f, size_t len, int link,
	  const struct sofl_pkt_config *cfg, uint64_t *r)
{
	size_t a = len ? rnd(r, (uint32_t)len + 1) : 0, b = a + rnd(r, (uint32_t)(len - a) + 1);
	struct iovec in[3];
	uint8_t *c[3];
	int err, i;

	in[0].iov_len = a;
	in[1].iov_len = b - a;
	in[2].iov_len = len - b;
	for (i = 0; i < 3; i++) {
		c[i] = malloc(in[i].iov_len ? in[i].iov_len : 1);
		memcpy(c[i], f + (i == 0 ? 0 : i == 1 ? a : b), in[i].iov_len);
		in[i].iov_base = c[i];
	}
	err = sofl_pkt_parse_iov_cfg(p, hb, in, 3, (enum sofl_link)link, cfg);
	for (i = 0; i < 3; i++)
		free(c[i]);
	return err;
}

/* Tunnel super-packets as iovecs: the contiguous parse's result (the
 * headers from the copy, the real lengths) when the headers lie within
 * SOFL_PKT_IOV_HDR_MAX, SOFL_E_GSO_HDR when they do not; lying inner
 * lengths named as in a contiguous frame */
static void
test_iov(void **state)
{
	static const uint8_t opts[252] = { 1, 2, 3, 4 };
	uint64_t r = 0x10f10full;
	uint8_t in[BUFSZ], f[BUFSZ], hb[SOFL_PKT_IOV_HDR_MAX];
	int i;

	(void)state;
	{	/* the config and the arguments, as sofl_pkt_parse_cfg() */
		struct sofl_pkt_config c;
		struct sofl_pkt p;
		struct iovec one = { in, 60 };

		memset(in, 0, 60);
		sofl_pkt_config_init(&c);
		c.size = 8;
		assert_int_equal(sofl_pkt_parse_iov_cfg(&p, hb, &one, 1, SOFL_LINK_ETH, &c),
				 SOFL_E_CFG_SIZE);
		sofl_pkt_config_init(&c);
		c.n_udp = 9;
		assert_int_equal(sofl_pkt_parse_iov_cfg(&p, hb, &one, 1, SOFL_LINK_ETH, &c),
				 SOFL_E_INVAL);
		sofl_pkt_config_init(&c);
		assert_int_equal(sofl_pkt_parse_iov_cfg(NULL, hb, &one, 1, SOFL_LINK_ETH, &c),
				 SOFL_E_INVAL);
		assert_int_equal(sofl_pkt_parse_iov_cfg(&p, NULL, &one, 1, SOFL_LINK_ETH, &c),
				 SOFL_E_INVAL);
		assert_int_equal(sofl_pkt_parse_iov_cfg(&p, hb, &one, 1, SOFL_LINK_ETH, &c), 0);
	}
	for (i = 0; i < 600; i++) {
		int type = 1 + (int)rnd(&r, 3), ieth = type == SOFL_ENCAP_VXLAN ||
			   (type == SOFL_ENCAP_GENEVE && rnd(&r, 2)), il = ieth ? SOFL_LINK_ETH : SOFL_LINK_RAW;
		int ipv = rnd(&r, 2) ? 4 : 6, pr = rnd(&r, 3) ? 6 : 17, err, ec;
		struct t_spec s, o;
		struct t_encap e;
		struct sofl_pkt p, c;
		size_t n, len;

		t_spec_init(&s, ipv, pr);
		s.link = il;
		s.tcp_opts = pr == 6 && rnd(&r, 2) ? t_opt_ts : NULL;
		s.tcp_opts_len = s.tcp_opts ? 12 : 0;
		s.pay_len = 100 + rnd(&r, 3000);
		n = t_build(in, sizeof(in), &s);
		t_encap_init(&e, type, 42);
		if (type == SOFL_ENCAP_GENEVE && !ieth)
			e.gn_proto = ipv == 4 ? 0x0800 : 0x86DD;
		if (type == SOFL_ENCAP_GENEVE && rnd(&r, 3) == 0) {
			e.gn_opts = opts;
			e.gn_opts_len = 4 * rnd(&r, 64);
		}
		outer_spec(&o, type, rnd(&r, 2) ? 4 : 6, ipv);
		o.nvlan = (int)rnd(&r, 2);
		o.udp_zero_csum = (int)rnd(&r, 2);
		len = t_build_encap(f, sizeof(f), &o, &e, in, n);
		if (rnd(&r, 4) == 0) {	/* a lying length: inner IP, inner UDP */
			uint32_t at = (uint32_t)(len - n + (ieth ? 14 : 0));
			at += pr == 17 && rnd(&r, 2) ? (ipv == 4 ? 20 + 4 : 40 + 4) : ipv == 4 ? 2 : 4;
			sofl_put16(f + at, (uint16_t)(sofl_get16(f + at) + 1 + rnd(&r, 9)));
		}
		if (rnd(&r, 5) == 0) {	/* through a config: the table, NO_IPIP */
			struct sofl_pkt_config cf;

			sofl_pkt_config_init(&cf);
			cf.n_udp = 1 + rnd(&r, 2);
			cf.flags = rnd(&r, 2) ? SOFL_PKT_F_NO_IPIP : 0;
			ec = parse(&c, f, len, SOFL_LINK_ETH, &cf);
			err = parse_iov(&p, hb, f, len, SOFL_LINK_ETH, &cf, &r);
		} else {
			ec = parse(&c, f, len, SOFL_LINK_ETH, NULL);
			err = parse_iov(&p, hb, f, len, SOFL_LINK_ETH, NULL, &r);
		}
		if (ec == 0 && (c.layers & SOFL_LAYER_ENCAP) && c.pay_off > SOFL_PKT_IOV_HDR_MAX) {
			assert_int_equal(err, SOFL_E_GSO_HDR);
			assert_int_equal(p.layers & ~SOFL_LAYER_L2, 0);
			continue;
		}
		if (ec == 0 && (c.layers & SOFL_LAYER_ENCAP_ERR) &&
		    c.inner_l2_off + 14 + 60 > SOFL_PKT_IOV_HDR_MAX && err == SOFL_E_GSO_HDR)
			continue;	/* (the inner headers past the copy) */
		if (err != ec) {
			fprintf(stderr, "iov %d, contiguous %d (round %d)\n", err, ec, i);
			t_hexdump("frame", f, len > 200 ? 200 : len);
			fail();
		}
		if (err)
			continue;
		assert_ptr_equal(p.data, hb);
		assert_int_equal(p.len, len < SOFL_PKT_IOV_HDR_MAX ? len : SOFL_PKT_IOV_HDR_MAX);
		p.data = c.data;
		p.len = c.len;
		if (memcmp(&p, &c, pk_named_len(&c)) != 0) {
			fprintf(stderr, "round %d: iov and contiguous results differ\n", i);
			t_hexdump("iov", &p, sizeof(p));
			t_hexdump("contiguous", &c, sizeof(c));
			fail();
		}
	}
}

/* sofl_encap_hdr_parse(): the header rules of RFC 7348 / RFC 8926 on a
 * bare UDP payload, one vector per rule, first rule broken wins */
static void
test_hdr_parse(void **state)
{
	static const uint8_t vx[8] = { 0x08, 0, 0, 0, 0x12, 0x34, 0x56, 0 };
	static const uint8_t gn[16] = { 0x02, 0x40, 0x65, 0x58, 0xab, 0xcd, 0xef, 0,
					0, 0, 0, 0, 0, 0, 0, 0 };	/* 8 option bytes, C */
	struct sofl_encap_hdr e;
	uint8_t b[16];

	(void)state;
	assert_int_equal(sofl_encap_hdr_parse(SOFL_ENCAP_VXLAN, vx, 8, &e), 0);
	assert_int_equal(e.len, 8);
	assert_int_equal(e.vni, 0x123456);
	assert_int_equal(e.proto, 0x6558);
	assert_int_equal(e.critical, 0);
	assert_int_equal(sofl_encap_hdr_parse(SOFL_ENCAP_VXLAN, vx, 7, &e), SOFL_ENCAP_ERR_TRUNC);
	memcpy(b, vx, 8);
	b[0] = 0;					/* I flag clear */
	assert_int_equal(sofl_encap_hdr_parse(SOFL_ENCAP_VXLAN, b, 8, &e),
			 SOFL_ENCAP_ERR_VXLAN_FLAGS);
	memcpy(b, vx, 8);
	b[7] = 1;					/* reserved byte */
	assert_int_equal(sofl_encap_hdr_parse(SOFL_ENCAP_VXLAN, b, 8, &e),
			 SOFL_ENCAP_ERR_VXLAN_FLAGS);

	assert_int_equal(sofl_encap_hdr_parse(SOFL_ENCAP_GENEVE, gn, 16, &e), 0);
	assert_int_equal(e.len, 16);
	assert_int_equal(e.vni, 0xabcdef);
	assert_int_equal(e.proto, 0x6558);
	assert_int_equal(e.critical, 1);
	assert_int_equal(sofl_encap_hdr_parse(SOFL_ENCAP_GENEVE, gn, 15, &e),
			 SOFL_ENCAP_ERR_GENEVE_OPTLEN);
	memcpy(b, gn, 16);
	b[0] |= 0x40;					/* version 1 */
	assert_int_equal(sofl_encap_hdr_parse(SOFL_ENCAP_GENEVE, b, 16, &e),
			 SOFL_ENCAP_ERR_GENEVE_VER);
	memcpy(b, gn, 16);
	b[1] |= 0x80;					/* O bit */
	assert_int_equal(sofl_encap_hdr_parse(SOFL_ENCAP_GENEVE, b, 16, &e),
			 SOFL_ENCAP_ERR_GENEVE_OAM);
	memcpy(b, gn, 16);
	b[2] = 0x88, b[3] = 0x47;			/* MPLS: not ours */
	assert_int_equal(sofl_encap_hdr_parse(SOFL_ENCAP_GENEVE, b, 16, &e),
			 SOFL_ENCAP_ERR_GENEVE_PROTO);
	b[2] = 0x86, b[3] = 0xdd;
	assert_int_equal(sofl_encap_hdr_parse(SOFL_ENCAP_GENEVE, b, 16, &e), 0);
	assert_int_equal(e.proto, 0x86dd);

	assert_int_equal(sofl_encap_hdr_parse(SOFL_ENCAP_IPIP, vx, 8, &e), SOFL_E_INVAL);
	assert_int_equal(sofl_encap_hdr_parse(SOFL_ENCAP_VXLAN, NULL, 8, &e), SOFL_E_INVAL);
	assert_int_equal(sofl_encap_hdr_parse(SOFL_ENCAP_VXLAN, vx, 8, NULL), SOFL_E_INVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vxlan),
		cmocka_unit_test(test_geneve),
		cmocka_unit_test(test_ipip),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_fragments),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_differential),
		cmocka_unit_test(test_iov),
		cmocka_unit_test(test_hdr_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
