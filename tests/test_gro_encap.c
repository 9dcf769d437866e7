/* Description: GRO of tunnel packets (gro.h, Tunnels; docs/overlay-gro.md):
 * VXLAN, Geneve and IP-in-IP streams, outer IPv4/IPv6 x inner IPv4/IPv6,
 * outer UDP checksum zero, good and bad.  Byte-exact super-packets built
 * by hand from Linux's gro_complete chain (outer lengths, outer IPv4
 * header checksum, outer UDP check = pseudo-header sum or 0, inner as for
 * plain TCP); every flush and bypass reason of the tunnel layers, each
 * with a neighbour that still merges; the same inner stream plain, under
 * VXLAN and under Geneve gets the same decisions and the same inner bytes;
 * every input leaves exactly once; fast paths on and off agree; a parse
 * handed over (SOFL_GRO_F_PKT) decides as the engine's own. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "helpers.h"
#include "softoffload/gro.h"
#include "softoffload/vnet.h"
#include "softoffload/bytes.h"

void sofl_gro_set_fast(struct sofl_gro *g, int on);	/* test hook (gro_engine.h) */

/* ---- tunnel packets: an inner frame (helpers.c) wrapped in outer headers ---- */

struct enc {
	int type;		/* SOFL_ENCAP_VXLAN, _GENEVE, _IPIP; 0: no tunnel (plain) */
	int ov;			/* outer IP version */
	uint32_t vni;
	uint8_t vx_flags;	/* VXLAN byte 0 (0x08: I) */
	const uint8_t *gopt;	/* Geneve options (multiple of 4 bytes) */
	size_t goptlen;
	uint16_t gproto;	/* Geneve protocol type (0x6558, 0x0800, 0x86dd) */
	uint8_t gflags;		/* Geneve byte 1 (O 0x80, C 0x40) */
	int ocsum;		/* 0: zero, 1: good, 2: bad */
	uint8_t ttl, tos;
	uint16_t id;
	int df;
	uint16_t sport, dport;
	int opts;		/* outer IPv4 with 4 bytes of options */
	int bad_ipsum;		/* outer IPv4 header checksum wrong */
	int evil;		/* outer reserved fragment bit */
};

static void
enc_init(struct enc *e, int type, int ov)
{
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->ov = ov;
	e->vni = 0x123456;
	e->vx_flags = 0x08;
	e->gproto = 0x6558;
	e->ttl = 64;
	e->df = 1;
	e->id = 1000;
	e->sport = 50000;
	e->dport = type == SOFL_ENCAP_GENEVE ? 6081 : 4789;
}

static const uint8_t osrc4[4] = { 198, 19, 0, 1 }, odst4[4] = { 198, 19, 0, 2 };
static const uint8_t osrc6[16] = { 0x20, 0x01, 0, 2, 0, 1, [15] = 1 };
static const uint8_t odst6[16] = { 0x20, 0x01, 0, 2, 0, 1, [15] = 2 };

/* Writes the tunnel packet of @e around inner packet @s into @buf;
 * @return its length.  With @e->type 0, the inner packet alone (plain). */
static size_t
enc_build(uint8_t *buf, size_t cap, const struct enc *e, const struct t_spec *s0)
{
	struct t_spec s = *s0;
	static uint8_t in[70000];
	size_t il, th, o3 = 14, ol, o4, l;
	uint8_t *ip, *uh;

	if (!e->type)
		return t_build(buf, cap, s0);
	s.link = (e->type == SOFL_ENCAP_IPIP || e->gproto != 0x6558) ? SOFL_LINK_RAW : SOFL_LINK_ETH;
	il = t_build(in, sizeof(in), &s);
	th = e->type == SOFL_ENCAP_IPIP ? 0 : 8 + 8 + (e->type == SOFL_ENCAP_GENEVE ? e->goptlen : 0);
	ol = e->ov == 4 ? 20u + (e->opts ? 4u : 0u) : 40u;
	l = o3 + ol + th + il;
	assert_true(l <= cap);
	memset(buf, 0, o3 + ol + th);
	memcpy(buf, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
	sofl_put16(buf + 12, e->ov == 4 ? 0x0800 : 0x86dd);
	ip = buf + o3;
	o4 = o3 + ol;
	uh = buf + o4;
	if (e->type == SOFL_ENCAP_VXLAN) {
		uh[8] = e->vx_flags;
		sofl_put32(uh + 12, e->vni << 8);
	} else if (e->type == SOFL_ENCAP_GENEVE) {
		uh[8] = (uint8_t)(e->goptlen / 4);
		uh[9] = e->gflags;
		sofl_put16(uh + 10, e->gproto);
		sofl_put32(uh + 12, e->vni << 8);
		if (e->goptlen)
			memcpy(uh + 16, e->gopt, e->goptlen);
	}
	memcpy(buf + o4 + th, in, il);
	if (e->ov == 4) {
		ip[0] = e->opts ? 0x46 : 0x45;
		ip[1] = e->tos;
		sofl_put16(ip + 2, (uint16_t)(l - o3));
		sofl_put16(ip + 4, e->id);
		sofl_put16(ip + 6, (uint16_t)((e->df ? 0x4000 : 0) | (e->evil ? 0x8000 : 0)));
		ip[8] = e->ttl;
		ip[9] = e->type != SOFL_ENCAP_IPIP ? 17 : s.ipv == 4 ? 4 : 41;
		memcpy(ip + 12, osrc4, 4);
		memcpy(ip + 16, odst4, 4);
		if (e->opts)
			memset(ip + 20, 1, 4);	/* NOPs */
		sofl_put16(ip + 10, sofl_csum_ipv4_hdr(ip, ol));
		if (e->bad_ipsum)
			ip[10] ^= 0x40;
	} else {
		sofl_put32(ip, 0x60000000u | (uint32_t)e->tos << 20 | 0x12345);
		sofl_put16(ip + 4, (uint16_t)(l - o3 - 40));
		ip[6] = e->type != SOFL_ENCAP_IPIP ? 17 : s.ipv == 4 ? 4 : 41;
		ip[7] = e->ttl;
		memcpy(ip + 8, osrc6, 16);
		memcpy(ip + 24, odst6, 16);
	}
	if (e->type != SOFL_ENCAP_IPIP) {
		uint32_t ulen = (uint32_t)(l - o4);
		sofl_put16(uh, e->sport);
		sofl_put16(uh + 2, e->dport);
		sofl_put16(uh + 4, (uint16_t)ulen);
		if (e->ocsum) {
			uint32_t ps = e->ov == 4 ? sofl_csum_pseudo_v4(ip + 12, ip + 16, 17, ulen) :
						   sofl_csum_pseudo_v6(ip + 8, ip + 24, 17, ulen);
			uint16_t c = (uint16_t)~sofl_csum_fold(sofl_csum_add(ps, uh, ulen));
			if (c == 0)
				c = 0xffff;
			if (e->ocsum == 2)
				c = c == 0xffff ? 1 : (uint16_t)(c + 1);
			sofl_put16(uh + 6, c);
		}
	}
	return l;
}

/* ---- a run: inputs fed in polls, outputs copied and checked ---- */

#define NP 64
static size_t lie_at;	/* run_go(given): a tunnel field of each parse overwritten (0: none) */

struct run {
	uint8_t *pk[NP];
	uint32_t len[NP];
	uint32_t flags[NP];
	uint32_t hash[NP];	/* with SOFL_GRO_F_HASH in flags */
	int brk[NP];
	int n;
	/* outputs */
	int nout;
	uint8_t *out[NP];
	uint32_t olen[NP];
	int segs[NP], byp[NP], why[NP];
	uint32_t gso[NP];
	uint16_t gso_size[NP];
	uint8_t vflags[NP];	/* the output's virtio header flags */
	struct sofl_gro_stats st;
};

static void
run_add(struct run *r, const struct enc *e, const struct t_spec *s)
{
	uint8_t b[4096];
	size_t l = enc_build(b, sizeof(b), e, s);

	assert_true(r->n < NP);
	r->pk[r->n] = malloc(l);
	assert_non_null(r->pk[r->n]);
	memcpy(r->pk[r->n], b, l);
	r->len[r->n] = (uint32_t)l;
	r->n++;
}

static void
run_free(struct run *r)
{
	int i;

	for (i = 0; i < r->n; i++)
		free(r->pk[i]);
	for (i = 0; i < r->nout; i++)
		free(r->out[i]);
	memset(r, 0, sizeof(*r));
}

/* Feeds r's inputs through an engine of @cfg (NULL: defaults; @fast: the
 * fast paths; @given: each input with its parse, SOFL_GRO_F_PKT), one poll
 * per brk; checks that every input leaves exactly once, in one output */
static void
run_go(struct run *r, const struct sofl_gro_config *cfg0, int fast, int given)
{
	struct sofl_gro_config cfg;
	struct sofl_gro *g;
	struct sofl_gro_in in[NP];
	struct sofl_pkt pk[NP];
	int seen[NP] = { 0 }, i, j, k, start = 0;

	if (cfg0)
		cfg = *cfg0;
	else
		sofl_gro_config_init(&cfg);
	assert_int_equal(sofl_gro_create(&cfg, &g), 0);
	sofl_gro_set_fast(g, fast);
	memset(in, 0, sizeof(in));
	for (i = 0; i < r->n; i++) {
		in[i].data = r->pk[i];
		in[i].len = r->len[i];
		in[i].cookie = (uint64_t)i;
		in[i].flags = r->flags[i];
		in[i].hash = r->hash[i];
		if (given) {
			if (sofl_pkt_parse_cfg(&pk[i], r->pk[i], r->len[i], cfg.link, cfg.parse) < 0) {
				in[i].flags |= SOFL_GRO_F_MALFORMED;
			} else {
				in[i].flags |= SOFL_GRO_F_PKT;
				in[i].pkt = &pk[i];
				if (lie_at && (pk[i].layers & SOFL_LAYER_ENCAP)) {
					uint16_t v = 60000;	/* far past the frame */
					memcpy((uint8_t *)&pk[i] + lie_at, &v, 2);
				}
			}
		}
	}
	for (i = 0; i < r->n; i++) {
		const struct sofl_gro_out *o;

		if (!r->brk[i] && i + 1 < r->n)
			continue;
		assert_int_equal(sofl_gro_receive(g, in + start, (size_t)(i + 1 - start), 0), i + 1 - start);
		start = i + 1;
		sofl_gro_poll_end(g, 0);
		k = sofl_gro_outputs(g, &o);
		for (j = 0; j < k; j++) {
			uint32_t c;
			int at = r->nout++;

			assert_true(at < NP);
			r->out[at] = malloc(o[j].len);
			assert_int_equal(sofl_gro_out_copy(&o[j], r->out[at], o[j].len), (int)o[j].len);
			r->olen[at] = o[j].len;
			r->segs[at] = (int)o[j].segs;
			r->byp[at] = o[j].bypass;
			r->why[at] = o[j].bypass ? (int)o[j].bypass_reason : (int)o[j].flush_reason;
			r->gso[at] = (uint32_t)o[j].gso_type;
			r->gso_size[at] = o[j].gso_size;
			r->vflags[at] = o[j].vnet.flags;
			{	/* a virtio header Linux 6.17+ accepts (24-byte form) */
				struct sofl_pkt q;
				const unsigned vo = SOFL_VNET_F_STRICT | SOFL_VNET_F_TUNNEL |
						    SOFL_VNET_F_TUNNEL_CSUM;
				int pr = sofl_pkt_parse_cfg(&q, r->out[at], o[j].len, cfg.link,
							    cfg.parse);
				int vc = sofl_vnet_check(&o[j].vnet, &q, vo);

				if (o[j].segs > 1) {
					assert_int_equal(pr, 0);
					assert_int_equal(vc, (o[j].gso_type & SOFL_GSO_TUNNEL_IPIP) ? 0 : 1);
					assert_int_equal(o[j].csum, SOFL_CSUM_PARTIAL);
				} else if (pr == 0) {
					assert_true(vc >= 0);
				}
			}
			for (c = 0; c < o[j].segs; c++) {
				assert_true(o[j].cookies[c] < (uint64_t)r->n);
				seen[o[j].cookies[c]]++;
			}
		}
		sofl_gro_release(g);
	}
	for (i = 0; i < r->n; i++)
		assert_int_equal(seen[i], 1);	/* every input exactly once */
	assert_int_equal(sofl_gro_get_stats(g, &r->st, sizeof(r->st)), 0);
	sofl_gro_destroy(g);
}

/* run_go in every mode (fast on/off, parse given or not): the same outputs */
static void
run_all(struct run *r, const struct sofl_gro_config *cfg)
{
	int mode, i;

	run_go(r, cfg, 1, 0);
	for (mode = 1; mode < 4; mode++) {
		struct run x = *r;

		x.nout = 0;
		run_go(&x, cfg, mode & 1 ? 0 : 1, mode >> 1);
		assert_int_equal(x.nout, r->nout);
		/* the counters too (a fast merge counts what the general way would) */
		assert_memory_equal(x.st.flush, r->st.flush, sizeof(x.st.flush));
		assert_memory_equal(x.st.bypass, r->st.bypass, sizeof(x.st.bypass));
		assert_int_equal(x.st.csum_sw_ip, r->st.csum_sw_ip);
		assert_int_equal(x.st.csum_sw_l4, r->st.csum_sw_l4);
		assert_int_equal(x.st.csum_sw_outer, r->st.csum_sw_outer);
		assert_int_equal(x.st.tun_in, r->st.tun_in);
		assert_int_equal(x.st.tun_super_pkts, r->st.tun_super_pkts);
		assert_int_equal(x.st.tun_segs_merged, r->st.tun_segs_merged);
		for (i = 0; i < x.nout; i++) {
			assert_int_equal(x.olen[i], r->olen[i]);
			assert_memory_equal(x.out[i], r->out[i], r->olen[i]);
			assert_int_equal(x.segs[i], r->segs[i]);
			assert_int_equal(x.why[i], r->why[i]);
			assert_int_equal(x.vflags[i], r->vflags[i]);
			free(x.out[i]);
		}
	}
}

/* An inner TCP segment @k (mss bytes each) of a default flow */
static void
seg_spec(struct t_spec *s, int iv, int k, size_t mss)
{
	t_spec_init(s, iv, 6);
	s->seq = 1000 + (uint32_t)(k * (int)mss);
	s->pay_len = mss;
	s->pay_off = (uint32_t)(k * (int)mss);
	s->ip_id = (uint16_t)(7 + k);
}

/* n segments of one flow under @e (outer ID incrementing) */
static void
add_stream(struct run *r, struct enc *e, int iv, int n, size_t mss)
{
	struct t_spec s;
	int k;

	for (k = 0; k < n; k++) {
		seg_spec(&s, iv, k, mss);
		run_add(r, e, &s);
		e->id++;
	}
}

/* ---- byte-exact super-packets ---- */

/* The super-packet Linux's gro_complete chain leaves for @n segments of
 * mss bytes under @e (first segment's outer ID @id0): the inner packet of
 * the whole payload with the first segment's headers, its TCP checksum the
 * pseudo-header sum (tcp4/tcp6_gro_complete), the outer lengths and
 * IPv4 header checksum recomputed, the outer UDP check the pseudo-header
 * sum of the new length when not zero (udp4/udp6_gro_complete). */
static size_t
expect_super(uint8_t *buf, size_t cap, const struct enc *e0, int iv, int n, size_t mss,
	     uint16_t id0)
{
	struct enc e = *e0;
	struct t_spec s;
	size_t l;

	seg_spec(&s, iv, 0, mss);
	s.pay_len = (size_t)n * mss;
	s.csum = T_CSUM_PARTIAL;
	e.id = id0;
	e.ocsum = 0;
	l = enc_build(buf, cap, &e, &s);
	if (e0->ocsum && e.type != SOFL_ENCAP_IPIP) {
		uint8_t *ip = buf + 14;
		size_t o4 = 14 + (e.ov == 4 ? 20 : 40);
		uint32_t ulen = (uint32_t)(l - o4);
		uint32_t ps = e.ov == 4 ? sofl_csum_pseudo_v4(ip + 12, ip + 16, 17, ulen) :
					  sofl_csum_pseudo_v6(ip + 8, ip + 24, 17, ulen);
		sofl_put16(buf + o4 + 6, sofl_csum_fold(ps));
	}
	return l;
}

static void
exact_case(int type, int ov, int iv, int ocsum)
{
	struct run r;
	struct enc e;
	uint8_t want[8192];
	size_t wl;
	uint32_t tbit = type == SOFL_ENCAP_IPIP ? SOFL_GSO_TUNNEL_IPIP :
			ocsum ? SOFL_GSO_TUNNEL_UDP_CSUM : SOFL_GSO_TUNNEL_UDP;

	memset(&r, 0, sizeof(r));
	enc_init(&e, type, ov);
	e.ocsum = ocsum;
	add_stream(&r, &e, iv, 4, 1000);
	run_all(&r, NULL);
	assert_int_equal(r.nout, 1);
	assert_int_equal(r.segs[0], 4);
	assert_int_equal(r.why[0], SOFL_GRO_FLUSH_POLL);
	assert_int_equal(r.gso[0], tbit | (iv == 4 ? SOFL_GSO_TCPV4 : SOFL_GSO_TCPV6));
	assert_int_equal(r.gso_size[0], 1000);
	enc_init(&e, type, ov);
	e.ocsum = ocsum;
	wl = expect_super(want, sizeof(want), &e, iv, 4, 1000, 1000);
	assert_int_equal(r.olen[0], wl);
	if (memcmp(r.out[0], want, wl)) {
		t_hexdump("got", r.out[0], 160);
		t_hexdump("want", want, 160);
	}
	assert_memory_equal(r.out[0], want, wl);
	{	/* csum_full: a tunnel super-packet keeps the pseudo sums */
		struct sofl_gro_config cfg;
		struct run x = r;
		int i;

		sofl_gro_config_init(&cfg);
		cfg.csum_full = 1;
		x.nout = 0;
		run_go(&x, &cfg, 1, 0);
		assert_int_equal(x.nout, 1);
		assert_memory_equal(x.out[0], want, wl);
		for (i = 0; i < x.nout; i++)
			free(x.out[i]);
	}
	assert_int_equal(r.st.tun_super_pkts, 1);
	assert_int_equal(r.st.tun_segs_merged, 4);
	assert_int_equal(r.st.tun_in, 4);
	assert_int_equal(r.st.csum_sw_outer, ocsum ? 4 : 0);
	run_free(&r);
}

static void
test_exact_vxlan(void **st)
{
	int ov, iv, c;

	(void)st;
	for (ov = 4; ov <= 6; ov += 2)
		for (iv = 4; iv <= 6; iv += 2)
			for (c = 0; c < 2; c++)
				exact_case(SOFL_ENCAP_VXLAN, ov, iv, c);
}

static void
test_exact_geneve(void **st)
{
	int ov, iv;

	(void)st;
	for (ov = 4; ov <= 6; ov += 2)
		for (iv = 4; iv <= 6; iv += 2)
			exact_case(SOFL_ENCAP_GENEVE, ov, iv, ov == iv);
}

static void
test_exact_ipip(void **st)
{
	int ov, iv;

	(void)st;
	for (ov = 4; ov <= 6; ov += 2)
		for (iv = 4; iv <= 6; iv += 2)
			exact_case(SOFL_ENCAP_IPIP, ov, iv, 0);
}

/* The LRU tables (a small one, and one past the size from which held
 * headers are copied into the entries and prefetched): tenants' equal
 * inner flows in two VNIs, interleaved, each its own super-packet with
 * the exact bytes; IP-in-IP over Ethernet, headers short enough for the
 * entry's copy */
static void
test_lru_tables(void **st)
{
	static const uint32_t flows[2] = { 64, 8192 };
	struct sofl_gro_config cfg;
	uint8_t want[8192];
	size_t wl;
	int t, k, v;

	(void)st;
	for (t = 0; t < 2; t++) {
		struct run r;
		struct enc e[2];
		struct t_spec s;

		memset(&r, 0, sizeof(r));
		sofl_gro_config_init(&cfg);
		cfg.table = SOFL_GRO_TABLE_LRU;
		cfg.max_flows = flows[t];
		for (v = 0; v < 2; v++) {
			enc_init(&e[v], SOFL_ENCAP_VXLAN, 4);
			e[v].vni = 100 + (uint32_t)v;
		}
		for (k = 0; k < 4; k++)
			for (v = 0; v < 2; v++) {
				seg_spec(&s, 4, k, 700);
				run_add(&r, &e[v], &s);
				e[v].id++;
			}
		run_all(&r, &cfg);
		assert_int_equal(r.nout, 2);
		for (v = 0; v < 2; v++) {
			enc_init(&e[v], SOFL_ENCAP_VXLAN, 4);
			e[v].vni = 100 + (uint32_t)v;
			wl = expect_super(want, sizeof(want), &e[v], 4, 4, 700, 1000);
			assert_int_equal(r.segs[v], 4);
			assert_int_equal(r.olen[v], wl);
			assert_memory_equal(r.out[v], want, wl);
		}
		run_free(&r);
		/* IP-in-IP 4in4: 14 + 20 + 20 + 20 header bytes (the entry's copy) */
		enc_init(&e[0], SOFL_ENCAP_IPIP, 4);
		add_stream(&r, &e[0], 4, 5, 600);
		run_all(&r, &cfg);
		assert_int_equal(r.nout, 1);
		enc_init(&e[0], SOFL_ENCAP_IPIP, 4);
		wl = expect_super(want, sizeof(want), &e[0], 4, 5, 600, 1000);
		assert_memory_equal(r.out[0], want, wl);
		run_free(&r);
	}
}

/* A plain flow and a VXLAN flow interleaved, each with its rx hash: the
 * fast path's weaves take the plain one, never the tunnel one (its outer
 * header is checked by fast_one only); both tables, the same outputs with
 * the fast paths off */
static void
test_mixed_weave(void **st)
{
	struct sofl_gro_config cfg;
	struct run r;
	struct enc p, e;
	struct t_spec s;
	int k, t, i;

	(void)st;
	for (t = 0; t < 2; t++) {
		memset(&r, 0, sizeof(r));
		enc_init(&p, 0, 4);
		enc_init(&e, SOFL_ENCAP_VXLAN, 4);
		for (k = 0; k < 8; k++) {
			seg_spec(&s, 4, k, 900);
			run_add(&r, &p, &s);
			r.flags[r.n - 1] = SOFL_GRO_F_HASH | SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK;
			r.hash[r.n - 1] = 0x11;
			s.sport = 999;
			run_add(&r, &e, &s);
			e.id = (uint16_t)(e.id + (k == 5 ? 3 : 1));	/* an outer ID gap after 6 */
			r.flags[r.n - 1] = SOFL_GRO_F_HASH | SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK;
			r.hash[r.n - 1] = 0x22;
		}
		sofl_gro_config_init(&cfg);
		cfg.table = t ? SOFL_GRO_TABLE_LRU : SOFL_GRO_TABLE_LINUX;
		run_all(&r, &cfg);
		assert_int_equal(r.nout, 3);	/* plain 8; tunnel 6 (OUTER_IPID), 2 */
		for (i = 0; i < r.nout; i++)
			assert_true(r.segs[i] == 8 || r.segs[i] == 6 || r.segs[i] == 2);
		assert_int_equal(r.st.flush[SOFL_GRO_FLUSH_OUTER_IPID], 1);
		run_free(&r);
	}
}

/* ---- differential: plain, VXLAN, Geneve (with options) ---- */

/* A stream with events: a gap, PSH, a short segment, an inner TTL change,
 * an ACK-only segment, a second flow interleaved */
static void
event_stream(struct run *r, const struct enc *e0)
{
	static const uint8_t gopt[8] = { 0x01, 0x02, 0x80, 0x01, 0xaa, 0xbb, 0xcc, 0xdd };
	struct enc e = *e0;
	struct t_spec s;
	int k, j, b;

	if (e.type == SOFL_ENCAP_GENEVE) {
		e.gopt = gopt;
		e.goptlen = sizeof(gopt);
	}
	for (k = 0; k < 24; k++) {
		b = k % 4 == 3;			/* the other flow */
		j = b ? k / 4 : k - k / 4;	/* its segment number */
		seg_spec(&s, 4, j, 500);
		e.id = (uint16_t)((b ? 5000 : 1000) + j);	/* outer IDs per inner flow */
		if (b) {
			s.sport = 4000;
			s.ip_id = (uint16_t)(300 + j);
		}
		if (k == 5)
			s.flags |= SOFL_TCP_PSH;
		if (k == 9)
			s.pay_len = 200;	/* short: ends the train */
		if (k == 12)
			s.seq += 1;		/* gap */
		if (k == 16)
			s.ttl = 7;		/* inner header change */
		if (k == 18)
			s.pay_len = 0;		/* pure ACK */
		run_add(r, &e, &s);
		if (k == 13)
			r->brk[r->n - 1] = 1;
	}
}

/* The inner IP packet of output @i of @r (@type's layout) */
static const uint8_t *
inner_ip(const struct run *r, int i, int type, uint32_t *len)
{
	struct sofl_pkt p;

	assert_int_equal(sofl_pkt_parse(&p, r->out[i], r->olen[i], SOFL_LINK_ETH), 0);
	assert_int_equal(!!(p.layers & SOFL_LAYER_ENCAP), !!type);
	*len = p.ip_end - p.l3_off;
	return r->out[i] + p.l3_off;
}

static void
test_differential(void **st)
{
	struct run r[3];
	struct enc e[3];
	int t, i;

	(void)st;
	memset(r, 0, sizeof(r));
	enc_init(&e[0], 0, 4);
	enc_init(&e[1], SOFL_ENCAP_VXLAN, 4);
	enc_init(&e[2], SOFL_ENCAP_GENEVE, 6);
	e[2].ocsum = 1;
	for (t = 0; t < 3; t++) {
		event_stream(&r[t], &e[t]);
		run_all(&r[t], NULL);
	}
	assert_true(r[0].nout < r[0].n);	/* something merged */
	for (t = 1; t < 3; t++) {
		assert_int_equal(r[t].nout, r[0].nout);
		for (i = 0; i < r[0].nout; i++) {
			uint32_t la, lb;
			const uint8_t *a = inner_ip(&r[0], i, 0, &la), *b = inner_ip(&r[t], i, 1, &lb);

			assert_int_equal(r[t].segs[i], r[0].segs[i]);
			assert_int_equal(r[t].byp[i], r[0].byp[i]);
			assert_int_equal(r[t].why[i], r[0].why[i]);
			assert_int_equal(r[t].gso_size[i], r[0].gso_size[i]);
			assert_int_equal(r[t].gso[i] & ~(uint32_t)SOFL_GSO_TUNNEL_MASK, r[0].gso[i]);
			assert_int_equal(la, lb);
			assert_memory_equal(a, b, la);
		}
	}
	for (t = 0; t < 3; t++)
		run_free(&r[t]);
}

/* ---- flushes: the outer layer's rules ---- */

/* Four segments, the third under @mod (applied to the enc): outputs, reasons */
static void
flush_case(int ov, void (*mod)(struct enc *), int nout, int why0)
{
	struct run r;
	struct enc e;
	struct t_spec s;
	int k;

	memset(&r, 0, sizeof(r));
	enc_init(&e, SOFL_ENCAP_VXLAN, ov);
	for (k = 0; k < 4; k++) {
		struct enc x = e;

		seg_spec(&s, 4, k, 800);
		if (k == 2)
			mod(&x);
		run_add(&r, &x, &s);
		e.id++;
	}
	run_all(&r, NULL);
	assert_int_equal(r.nout, nout);
	assert_int_equal(r.why[0], why0);
	assert_int_equal(r.segs[0], 2);		/* the neighbours before it merged */
	run_free(&r);
}

static void m_ttl(struct enc *e) { e->ttl = 3; }
static void m_tos(struct enc *e) { e->tos = 0x10; }
static void m_df(struct enc *e) { e->df = 0; }
static void m_id(struct enc *e) { e->id = (uint16_t)(e->id + 5); }
static void m_vni(struct enc *e) { e->vni ^= 1; }
static void m_sport(struct enc *e) { e->sport++; }
static void m_csum(struct enc *e) { e->ocsum = 1; }
static void m_nocsum(struct enc *e) { e->ocsum = 0; }
static void m_gport(struct enc *e) { e->dport = 6081; e->type = SOFL_ENCAP_GENEVE; }

static void
test_flush_outer(void **st)
{
	(void)st;
	/* 0-1, then 2 (flushed by 3, which differs from it the other way), 3 */
	flush_case(4, m_ttl, 3, SOFL_GRO_FLUSH_OUTER_HDR);
	flush_case(4, m_tos, 3, SOFL_GRO_FLUSH_OUTER_HDR);
	flush_case(4, m_df, 3, SOFL_GRO_FLUSH_OUTER_HDR);
	flush_case(4, m_id, 3, SOFL_GRO_FLUSH_OUTER_IPID);
	flush_case(6, m_ttl, 3, SOFL_GRO_FLUSH_OUTER_HDR);	/* hop limit */
	flush_case(6, m_tos, 3, SOFL_GRO_FLUSH_OUTER_HDR);	/* traffic class */
}

/* Another identity (VNI, outer port, checksum zero-ness): a flow of its
 * own, the first flow held on (both complete at the poll's end) */
static void
identity_case(void (*mod)(struct enc *), int ocsum)
{
	struct run r;
	struct enc e;
	struct t_spec s;
	int k;

	memset(&r, 0, sizeof(r));
	enc_init(&e, SOFL_ENCAP_VXLAN, 4);
	e.ocsum = ocsum;
	for (k = 0; k < 4; k++) {
		struct enc x = e;

		seg_spec(&s, 4, k, 800);
		if (k == 2)
			mod(&x);
		run_add(&r, &x, &s);
		e.id++;
	}
	run_all(&r, NULL);
	assert_int_equal(r.nout, 3);
	assert_int_equal(r.segs[0], 2);
	assert_int_equal(r.why[0], SOFL_GRO_FLUSH_IPID);	/* 3 follows 1: inner ID off by one (checked before the gap) */
	run_free(&r);
}

static void
test_identity(void **st)
{
	(void)st;
	/* segment 2 is another flow; segment 3 continues flow 0 after a gap
	 * (seq 2's bytes missing): flush SEQ, so 0-1, 2, 3 */
	identity_case(m_vni, 0);
	identity_case(m_sport, 0);
	identity_case(m_csum, 0);	/* zero, then a checksum */
	identity_case(m_nocsum, 1);	/* a checksum, then zero */
	identity_case(m_vni, 1);
	identity_case(m_gport, 0);
}

/* Fixed outer IDs (DF set or not) merge, as Linux 6.18: one mode per layer */
static void
test_outer_fixed_id(void **st)
{
	struct run r;
	struct enc e;
	struct t_spec s;
	int k, df;

	(void)st;
	for (df = 0; df < 2; df++) {
		memset(&r, 0, sizeof(r));
		enc_init(&e, SOFL_ENCAP_VXLAN, 4);
		e.df = df;
		for (k = 0; k < 5; k++) {
			seg_spec(&s, 4, k, 700);	/* inner IDs increment */
			run_add(&r, &e, &s);		/* outer ID fixed */
		}
		run_all(&r, NULL);
		assert_int_equal(r.nout, 1);
		assert_int_equal(r.segs[0], 5);
		run_free(&r);
	}
}

/* ---- bypasses ---- */

static void
bypass_case(const struct enc *bad, int why, uint32_t flags)
{
	struct run r;
	struct enc e;
	struct t_spec s;
	int k;

	memset(&r, 0, sizeof(r));
	enc_init(&e, bad->type, bad->ov);
	e.ocsum = bad->ocsum ? 1 : 0;
	for (k = 0; k < 4; k++) {
		seg_spec(&s, 4, k, 600);
		if (k == 2) {
			struct enc x = *bad;
			x.id = e.id;
			run_add(&r, &x, &s);
			r.flags[r.n - 1] = flags;
		} else {
			run_add(&r, &e, &s);
		}
		e.id++;
	}
	run_all(&r, NULL);
	/* the bad one at once (its flow kept: 0-1 then completed by 3's gap),
	 * or, for a length fault, after its flow flushed */
	assert_int_equal(r.nout, 3);
	k = why == SOFL_GRO_BYPASS_BADLEN;
	assert_int_equal(r.byp[k], 1);
	assert_int_equal(r.why[k], why);
	assert_int_equal(r.segs[!k], 2);
	assert_int_equal(r.why[!k], k ? SOFL_GRO_FLUSH_BADLEN : SOFL_GRO_FLUSH_IPID);
	assert_int_equal(r.st.bypass[why], 1);
	run_free(&r);
}

static void
test_bypass(void **st)
{
	struct enc b;

	(void)st;
	enc_init(&b, SOFL_ENCAP_VXLAN, 4);
	b.ocsum = 2;
	bypass_case(&b, SOFL_GRO_BYPASS_OUTER_CSUM, 0);
	enc_init(&b, SOFL_ENCAP_GENEVE, 6);
	b.ocsum = 2;
	bypass_case(&b, SOFL_GRO_BYPASS_OUTER_CSUM, 0);
	enc_init(&b, SOFL_ENCAP_VXLAN, 4);
	b.bad_ipsum = 1;
	bypass_case(&b, SOFL_GRO_BYPASS_OUTER_IP_CSUM, 0);
	enc_init(&b, SOFL_ENCAP_VXLAN, 4);
	b.opts = 1;
	bypass_case(&b, SOFL_GRO_BYPASS_OUTER_IP_OPTS, 0);
	enc_init(&b, SOFL_ENCAP_VXLAN, 4);
	b.vx_flags = 0;		/* I flag clear */
	bypass_case(&b, SOFL_GRO_BYPASS_ENCAP_MALFORMED, 0);
	enc_init(&b, SOFL_ENCAP_GENEVE, 4);
	b.gflags = 0x80;	/* OAM */
	bypass_case(&b, SOFL_GRO_BYPASS_ENCAP_MALFORMED, 0);
	enc_init(&b, SOFL_ENCAP_VXLAN, 4);
	b.evil = 1;		/* flushes its flow too */
	bypass_case(&b, SOFL_GRO_BYPASS_BADLEN, 0);
}

/* An unmerged tunnel frame's virtio flags, as Linux's: udp4/udp6_gro_receive
 * verify the outer UDP checksum (a zero one counts as verified) before any
 * inner layer, leaving CHECKSUM_UNNECESSARY at csum_level 0 whatever the
 * inner packet turns out to be, which the packet socket reports as
 * DATA_VALID.  Segments 0, 1, 3 of a flow are good (0-1 merged: NEEDS_CSUM);
 * segment 2 is @bad2 under outer checksum @ocsum (0 zero, 1 good, 2 bad),
 * delivered alone with reason @why and flags @vf. */
static void
outer_valid_case(int ov, int ocsum, void (*bad2)(struct t_spec *), int why, unsigned vf)
{
	struct run r;
	struct enc e;
	struct t_spec s;
	int k, at = -1;

	memset(&r, 0, sizeof(r));
	enc_init(&e, SOFL_ENCAP_VXLAN, ov);
	for (k = 0; k < 4; k++) {
		seg_spec(&s, 4, k, 600);
		e.ocsum = k == 2 ? ocsum : ocsum ? 1 : 0;
		if (k == 2)
			bad2(&s);
		run_add(&r, &e, &s);
		e.id++;
	}
	run_all(&r, NULL);
	for (k = 0; k < r.nout; k++) {
		if (r.segs[k] > 1)	/* the passing neighbours: a super-packet */
			assert_true(r.vflags[k] & SOFL_VNET_HDR_F_NEEDS_CSUM);
		if (r.byp[k]) {
			assert_int_equal(at, -1);
			at = k;
		}
	}
	assert_true(at >= 0);
	assert_int_equal(r.why[at], why);
	assert_int_equal(r.vflags[at], vf);
	run_free(&r);
}

static void b_tcp_csum(struct t_spec *s) { s->csum = T_CSUM_ZERO; }
static void b_ip_opts(struct t_spec *s)
{
	static const uint8_t nops[4] = { 1, 1, 1, 0 };

	s->ip_opts = nops;
	s->ip_opts_len = 4;
}

static void
test_outer_data_valid(void **st)
{
	(void)st;
	/* outer checksum set and verified (IPv4), zero (IPv6): DATA_VALID
	 * though the inner TCP checksum is bad or the inner IPv4 header has
	 * options (never looked at by the inner rules' checksum) */
	outer_valid_case(4, 1, b_tcp_csum, SOFL_GRO_BYPASS_L4_CSUM, SOFL_VNET_HDR_F_DATA_VALID);
	outer_valid_case(6, 0, b_tcp_csum, SOFL_GRO_BYPASS_L4_CSUM, SOFL_VNET_HDR_F_DATA_VALID);
	outer_valid_case(4, 0, b_ip_opts, SOFL_GRO_BYPASS_IP_OPTS, SOFL_VNET_HDR_F_DATA_VALID);
	outer_valid_case(6, 1, b_ip_opts, SOFL_GRO_BYPASS_IP_OPTS, SOFL_VNET_HDR_F_DATA_VALID);
	/* a bad outer checksum: nothing verified, nothing reported */
	outer_valid_case(4, 2, b_tcp_csum, SOFL_GRO_BYPASS_OUTER_CSUM, 0);
	outer_valid_case(6, 2, b_ip_opts, SOFL_GRO_BYPASS_IP_OPTS, 0);
}

/* A bad outer checksum flagged verified (SOFL_GRO_F_OUTER_CSUM_OK) is
 * taken as good: merged, nothing verified */
static void
test_outer_csum_flag(void **st)
{
	struct run r;
	struct enc e;
	int k;

	(void)st;
	memset(&r, 0, sizeof(r));
	enc_init(&e, SOFL_ENCAP_VXLAN, 4);
	e.ocsum = 2;
	add_stream(&r, &e, 6, 3, 900);
	for (k = 0; k < r.n; k++)
		r.flags[k] = SOFL_GRO_F_OUTER_CSUM_OK;
	run_all(&r, NULL);
	assert_int_equal(r.nout, 1);
	assert_int_equal(r.segs[0], 3);
	assert_int_equal(r.st.csum_sw_outer, 0);
	run_free(&r);
}

static void
test_encap_err_counted(void **st)
{
	struct run r;
	struct enc e;
	struct t_spec s;

	(void)st;
	memset(&r, 0, sizeof(r));
	enc_init(&e, SOFL_ENCAP_VXLAN, 4);
	e.vx_flags = 0x0c;	/* a reserved bit */
	seg_spec(&s, 4, 0, 100);
	run_add(&r, &e, &s);
	run_go(&r, NULL, 1, 0);
	assert_int_equal(r.st.bypass[SOFL_GRO_BYPASS_ENCAP_MALFORMED], 1);
	assert_int_equal(r.st.encap_err[SOFL_ENCAP_ERR_VXLAN_FLAGS], 1);
	assert_int_equal(r.st.tun_in, 1);
	run_free(&r);
}

/* A parse handed over whose tunnel offsets lie outside the frame is not
 * used (the engine parses the frame itself): the same outputs */
static void
test_lying_parse(void **st)
{
	static const size_t at[] = {
		offsetof(struct sofl_pkt, outer_l3_off), offsetof(struct sofl_pkt, outer_l4_off),
		offsetof(struct sofl_pkt, encap_off), offsetof(struct sofl_pkt, encap_len),
		offsetof(struct sofl_pkt, inner_l2_off), offsetof(struct sofl_pkt, outer_l3_len),
	};
	struct run r, x;
	struct enc e;
	size_t k;
	int i;

	(void)st;
	memset(&r, 0, sizeof(r));
	enc_init(&e, SOFL_ENCAP_GENEVE, 6);
	e.ocsum = 1;
	add_stream(&r, &e, 4, 5, 500);
	run_go(&r, NULL, 1, 0);
	for (k = 0; k < sizeof(at) / sizeof(at[0]); k++) {
		x = r;
		x.nout = 0;
		lie_at = at[k];
		run_go(&x, NULL, 1, 1);
		lie_at = 0;
		assert_int_equal(x.nout, r.nout);
		for (i = 0; i < x.nout; i++) {
			assert_int_equal(x.olen[i], r.olen[i]);
			assert_memory_equal(x.out[i], r.out[i], r.olen[i]);
			free(x.out[i]);
		}
	}
	run_free(&r);
}

/* Geneve options running past the packet, a truncated VXLAN header:
 * recognised, not parsed into (encap_err counted), never merged */
static void
test_hostile_headers(void **st)
{
	struct run r;
	struct enc e;
	struct t_spec s;
	int k;

	(void)st;
	memset(&r, 0, sizeof(r));
	enc_init(&e, SOFL_ENCAP_GENEVE, 4);
	for (k = 0; k < 3; k++) {
		seg_spec(&s, 4, k, 100);
		run_add(&r, &e, &s);
		e.id++;
		r.pk[r.n - 1][14 + 20 + 8] = 63;	/* 252 bytes of options: past the end */
	}
	/* a VXLAN packet cut 4 bytes into its header, the outer lengths
	 * saying so (outer IPv4 header checksum recomputed, UDP checksum 0) */
	enc_init(&e, SOFL_ENCAP_VXLAN, 4);
	seg_spec(&s, 4, 0, 100);
	run_add(&r, &e, &s);
	r.len[r.n - 1] = 14 + 20 + 8 + 4;
	sofl_put16(r.pk[r.n - 1] + 14 + 2, 20 + 8 + 4);
	sofl_put16(r.pk[r.n - 1] + 14 + 10, 0);
	sofl_put16(r.pk[r.n - 1] + 14 + 10, sofl_csum_ipv4_hdr(r.pk[r.n - 1] + 14, 20));
	sofl_put16(r.pk[r.n - 1] + 34 + 4, 8 + 4);
	run_all(&r, NULL);
	assert_int_equal(r.nout, 4);
	for (k = 0; k < 4; k++) {
		assert_int_equal(r.segs[k], 1);
		assert_int_equal(r.why[k], SOFL_GRO_BYPASS_ENCAP_MALFORMED);
	}
	assert_int_equal(r.st.encap_err[SOFL_ENCAP_ERR_GENEVE_OPTLEN], 3);
	assert_int_equal(r.st.encap_err[SOFL_ENCAP_ERR_TRUNC], 1);
	run_free(&r);
}

/* VXLAN in VXLAN: passed through (encap_mark) */
static void
test_nested(void **st)
{
	struct run r;
	struct enc e;
	struct t_spec s;
	uint8_t inner[2048];
	size_t il;
	int k;

	(void)st;
	memset(&r, 0, sizeof(r));
	for (k = 0; k < 3; k++) {
		struct enc in;
		enc_init(&in, SOFL_ENCAP_VXLAN, 4);
		seg_spec(&s, 4, k, 300);
		il = enc_build(inner, sizeof(inner), &in, &s);
		/* inner frame = a whole VXLAN packet: wrap it as UDP payload via a
		 * Geneve header of protocol 0x6558 (inner Ethernet) */
		enc_init(&e, SOFL_ENCAP_GENEVE, 4);
		{
			uint8_t b[4096];
			size_t o4 = 14 + 20, l = o4 + 16 + il;
			/* an outer Ethernet + IPv4 + UDP + Geneve carrier */
			memset(b, 0, sizeof(b));
			memcpy(b, inner, 14);
			sofl_put16(b + 12, 0x0800);
			b[14] = 0x45;
			sofl_put16(b + 16, (uint16_t)(l - 14));
			b[22] = 64;
			b[23] = 17;
			memcpy(b + 26, osrc4, 4);
			memcpy(b + 30, odst4, 4);
			sofl_put16(b + 24, sofl_csum_ipv4_hdr(b + 14, 20));
			sofl_put16(b + o4, 1234);
			sofl_put16(b + o4 + 2, 6081);
			sofl_put16(b + o4 + 4, (uint16_t)(l - o4));
			sofl_put16(b + o4 + 10, 0x6558);
			memcpy(b + o4 + 16, inner, il);
			r.pk[r.n] = malloc(l);
			memcpy(r.pk[r.n], b, l);
			r.len[r.n++] = (uint32_t)l;
		}
	}
	run_all(&r, NULL);
	assert_int_equal(r.nout, 3);
	for (k = 0; k < 3; k++)
		assert_int_equal(r.why[k], SOFL_GRO_BYPASS_ENCAP_NESTED);
	run_free(&r);
}

/* A port not in the engine's table: plain UDP (not coalesced without
 * cfg.udp), as Linux without a tunnel socket on the port */
static void
test_port_table(void **st)
{
	struct run r;
	struct enc e;
	struct sofl_gro_config cfg;
	struct sofl_pkt_config pc;
	int k;

	(void)st;
	memset(&r, 0, sizeof(r));
	enc_init(&e, SOFL_ENCAP_VXLAN, 4);
	e.dport = 8472;		/* not a default port */
	add_stream(&r, &e, 4, 3, 500);
	run_all(&r, NULL);
	assert_int_equal(r.nout, 3);
	assert_int_equal(r.why[0], SOFL_GRO_BYPASS_UDP_OFF);
	assert_int_equal(r.st.tun_in, 0);
	for (k = 0; k < r.nout; k++)
		free(r.out[k]);
	r.nout = 0;
	sofl_gro_config_init(&cfg);
	sofl_pkt_config_init(&pc);
	pc.udp[pc.n_udp].port = 8472;
	pc.udp[pc.n_udp++].type = SOFL_ENCAP_VXLAN;
	cfg.parse = &pc;
	run_all(&r, &cfg);
	assert_int_equal(r.nout, 1);
	assert_int_equal(r.segs[0], 3);
	run_free(&r);
	/* no IP-in-IP: protocol 4 is just a protocol */
	enc_init(&e, SOFL_ENCAP_IPIP, 4);
	add_stream(&r, &e, 4, 3, 500);
	pc.flags = SOFL_PKT_F_NO_IPIP;
	run_all(&r, &cfg);
	assert_int_equal(r.nout, 3);
	assert_int_equal(r.why[0], SOFL_GRO_BYPASS_PROTO);
	run_free(&r);
	pc.n_udp = SOFL_PKT_UDP_ENCAP_MAX + 1;
	{
		struct sofl_gro *g;
		assert_int_equal(sofl_gro_create(&cfg, &g), SOFL_E_INVAL);
	}
}

/* Inner UDP (cfg.udp): datagrams of a tunnel coalesced, USO + tunnel bit */
static void
test_inner_udp(void **st)
{
	struct run r;
	struct enc e;
	struct t_spec s;
	struct sofl_gro_config cfg;
	int k;

	(void)st;
	memset(&r, 0, sizeof(r));
	enc_init(&e, SOFL_ENCAP_VXLAN, 6);
	e.ocsum = 1;
	for (k = 0; k < 5; k++) {
		t_spec_init(&s, 4, 17);
		s.pay_len = 400;
		s.ip_id = (uint16_t)(50 + k);
		run_add(&r, &e, &s);
		e.id++;
	}
	sofl_gro_config_init(&cfg);
	cfg.udp = 1;
	run_all(&r, &cfg);
	assert_int_equal(r.nout, 1);
	assert_int_equal(r.segs[0], 5);
	assert_int_equal(r.gso[0], SOFL_GSO_TUNNEL_UDP_CSUM | SOFL_GSO_UDP_L4);
	run_free(&r);
}

/* Size limit: the outer IP packet stays within max_size (Linux p->len
 * counts from the outer IP header) */
static void
test_size_outer(void **st)
{
	struct run r;
	struct enc e;
	int i;

	(void)st;
	memset(&r, 0, sizeof(r));
	enc_init(&e, SOFL_ENCAP_VXLAN, 4);
	add_stream(&r, &e, 4, 50, 1400);
	run_all(&r, NULL);
	for (i = 0; i < r.nout; i++) {
		assert_true(r.olen[i] - 14 <= 65535);
		if (i + 1 < r.nout)
			assert_int_equal(r.why[i], SOFL_GRO_FLUSH_SIZE);
	}
	assert_int_equal(r.segs[0], (65535 - (20 + 8 + 8 + 14 + 20 + 20)) / 1400);
	run_free(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_vxlan),
		cmocka_unit_test(test_exact_geneve),
		cmocka_unit_test(test_exact_ipip),
		cmocka_unit_test(test_lru_tables),
		cmocka_unit_test(test_mixed_weave),
		cmocka_unit_test(test_differential),
		cmocka_unit_test(test_flush_outer),
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_outer_fixed_id),
		cmocka_unit_test(test_bypass),
		cmocka_unit_test(test_outer_csum_flag),
		cmocka_unit_test(test_encap_err_counted),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_lying_parse),
		cmocka_unit_test(test_hostile_headers),
		cmocka_unit_test(test_port_table),
		cmocka_unit_test(test_inner_udp),
		cmocka_unit_test(test_outer_data_valid),
		cmocka_unit_test(test_size_outer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
