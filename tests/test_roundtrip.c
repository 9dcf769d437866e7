/* Description: property tests over random TCP and UDP super-packets x (v4/v6, VLAN, timestamps, IPv6 extension headers, fixed or incrementing IPv4 ID, PSH/FIN/ECE): every segment of GSO(x) verifies on its own (IPv4 header and L4 checksums against a naive reference sum), the segments' payloads and sequence numbers tile x, and GRO(GSO(x)) == x byte for byte with partial checksums (GSO with full checksums, and GSO with partial ones fed to a GRO that accepts them), with the GRO's virtio header translating back to the same segmentation. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "helpers.h"
#include "softoffload/gso.h"
#include "softoffload/gro.h"
#include "softoffload/vnet.h"

/* an output's reason: bypass_reason or flush_reason, as bypass says */
#define WHY(o) ((o)->bypass ? (unsigned)(o)->bypass_reason : (unsigned)(o)->flush_reason)

#define ITER   1500
#define MAXSEG 2048

static uint8_t xbuf[70000];
static uint8_t segbuf[MAXSEG][1600 + 256];
static uint32_t seglen[MAXSEG];

/* naive RFC 1071 sum, independent of the library's kernels */
static uint32_t
ref_sum(const uint8_t *b, size_t n)
{
	uint64_t s = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += (uint32_t)b[i] << 8 | b[i + 1];
	if (n & 1)
		s += (uint32_t)b[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint32_t)s;
}

static uint32_t
ref_pseudo(const struct sofl_pkt *p, uint32_t l4len)
{
	uint8_t ph[40];
	size_t n;

	if (p->ipv == 4) {
		memcpy(ph, p->key.src, 4);
		memcpy(ph + 4, p->key.dst, 4);
		ph[8] = 0;
		ph[9] = p->l4_proto;
		sofl_put16(ph + 10, (uint16_t)l4len);
		n = 12;
	} else {
		memcpy(ph, p->key.src, 16);
		memcpy(ph + 16, p->key.dst, 16);
		sofl_put32(ph + 32, l4len);
		memset(ph + 36, 0, 3);
		ph[39] = p->l4_proto;
		n = 40;
	}
	return ref_sum(ph, n);
}

struct gen {
	struct t_spec s;
	uint16_t mss;
	uint8_t gflags;
	uint8_t ts_opt[12];
};

static void
generate(struct gen *g, uint64_t *r)
{
	struct t_spec *s = &g->s;
	int ipv = t_rand(r) & 1 ? 6 : 4, proto = t_rand(r) % 3 ? 6 : 17;
	size_t hdr, maxpay, lo;

	t_spec_init(s, ipv, proto);
	s->csum = T_CSUM_PARTIAL;
	s->pay_seed = (uint8_t)t_rand(r);
	s->pay_off = (uint32_t)t_rand(r);
	s->sport = (uint16_t)t_rand(r);
	s->dport = (uint16_t)t_rand(r);
	s->seq = (uint32_t)t_rand(r);
	s->ack = (uint32_t)t_rand(r);
	s->win = (uint16_t)t_rand(r);
	s->ip_id = (uint16_t)t_rand(r);
	s->ttl = (uint8_t)(1 + t_rand(r) % 255);
	s->df = (int)(t_rand(r) & 1);
	s->flow_label = (uint32_t)t_rand(r) & 0xfffff;
	if (t_rand(r) % 4 == 0) {
		s->link = SOFL_LINK_RAW;
	} else if (t_rand(r) % 4 == 0) {
		s->nvlan = 1;
		s->vlan_tci[0] = (uint16_t)(t_rand(r) & 0x0fff);
	}
	if (ipv == 6 && t_rand(r) % 4 == 0) {
		s->n_ext = 1;
		s->ext[0] = (struct t_ext){ .type = 60, .len = 8, .fill = 0 };
	}
	if (proto == 6) {
		s->flags = SOFL_TCP_ACK;
		if (t_rand(r) & 1)
			s->flags |= SOFL_TCP_PSH;
		if (t_rand(r) % 8 == 0)
			s->flags |= SOFL_TCP_FIN;
		if (t_rand(r) % 8 == 0)
			s->flags |= SOFL_TCP_ECE;
		if (t_rand(r) & 1) {
			t_opt_ts_set(g->ts_opt, (uint32_t)t_rand(r), (uint32_t)t_rand(r));
			s->tcp_opts = g->ts_opt;
			s->tcp_opts_len = 12;
		}
	}
	hdr = (ipv == 4 ? 20 : 40 + 8u * (size_t)s->n_ext) + (proto == 6 ? 20 + s->tcp_opts_len : 8);
	maxpay = 65535 - hdr;
	/* mostly a few segments; sometimes the full 64 KB */
	switch (t_rand(r) % 4) {
	case 0:  s->pay_len = 2 + t_rand(r) % 3000; break;
	case 1:  s->pay_len = 2 + t_rand(r) % 20000; break;
	default: s->pay_len = 2 + t_rand(r) % (maxpay - 1); break;
	}
	/* UDP GRO keeps at most 64 datagrams; our buffers 1600 B and MAXSEG */
	lo = (s->pay_len + (proto == 17 ? 63 : MAXSEG - 1)) / (proto == 17 ? 64 : MAXSEG);
	if (lo < 1)
		lo = 1;
	do {
		g->mss = (uint16_t)(lo + t_rand(r) % (s->pay_len - lo));
	} while (g->mss > 1500);
	g->gflags = 0;
	if (ipv == 4 && t_rand(r) % 4 == 0)
		g->gflags |= SOFL_GSO_F_FIXED_ID;
}

/* GSO(x) into segbuf[], via a random mode (zero-copy/copy, iovec input). */
static int
segment(const struct gen *g, const uint8_t *x, size_t len, uint8_t gflags, uint64_t *r)
{
	struct sofl_gso_params gp = { .type = g->s.proto == 6 ? (g->s.ipv == 4 ? SOFL_GSO_TCPV4 : SOFL_GSO_TCPV6) : SOFL_GSO_UDP_L4,
				      .gso_size = g->mss, .flags = gflags };
	static struct sofl_gso_seg seg[MAXSEG];
	static struct iovec iov[3 * MAXSEG];
	static uint8_t buf[MAXSEG * 256 + 70000 + MAXSEG * 64];
	struct sofl_gso_out out = { .mode = (int)(t_rand(r) & 1), .seg = seg, .seg_cap = MAXSEG,
				    .buf = buf, .buf_cap = sizeof(buf), .iov = iov,
				    .iov_cap = 3 * MAXSEG };
	struct sofl_pkt p;
	struct iovec in[3];
	uint8_t hb[SOFL_PKT_IOV_HDR_MAX];
	int n, k, split = (int)(t_rand(r) % 3) == 0;

	if (split) {
		size_t a = 1 + t_rand(r) % (len - 1), b = a + t_rand(r) % (len - a);
		in[0] = (struct iovec){ (void *)x, a };
		in[1] = (struct iovec){ (void *)(x + a), b - a };
		in[2] = (struct iovec){ (void *)(x + b), len - b };
		assert_int_equal(sofl_pkt_parse_iov(&p, hb, in, 3, (enum sofl_link)g->s.link), 0);
	} else {
		assert_int_equal(sofl_pkt_parse(&p, x, len, (enum sofl_link)g->s.link), 0);
	}
	n = sofl_gso_segment(&gp, &p, split ? in : NULL, split ? 3 : 0, &out);
	if (n <= 0)
		fprintf(stderr, "gso: %s (pay %zu mss %u)\n", sofl_strerror(n), g->s.pay_len, g->mss);
	assert_true(n > 0);
	for (k = 0; k < n; k++) {
		assert_true(seg[k].len <= sizeof(segbuf[0]));
		if (out.mode == SOFL_GSO_COPY) {
			memcpy(segbuf[k], seg[k].data, seg[k].len);
		} else {
			size_t o = 0;
			for (int i = 0; i < seg[k].iovcnt; i++) {
				memcpy(segbuf[k] + o, seg[k].iov[i].iov_base, seg[k].iov[i].iov_len);
				o += seg[k].iov[i].iov_len;
			}
			assert_int_equal(o, seg[k].len);
		}
		seglen[k] = seg[k].len;
	}
	return n;
}

/* Each segment stands on its own, and together they tile x. */
static void
check_segments(const struct gen *g, const struct sofl_pkt *x, int n, int partial)
{
	uint32_t off = 0, mss = g->mss;
	int k;

	for (k = 0; k < n; k++) {
		struct sofl_pkt p;
		uint32_t l4len, s;

		assert_int_equal(sofl_pkt_parse(&p, segbuf[k], seglen[k], (enum sofl_link)g->s.link), 0);
		assert_int_equal(p.ip_end, seglen[k]);
		assert_int_equal(p.pay_off, x->pay_off);
		assert_int_equal(p.pay_len, k + 1 < n ? mss : x->pay_len - off);
		assert_memory_equal(segbuf[k], x->data, x->l3_off);		/* L2 */
		assert_memory_equal(segbuf[k] + p.pay_off, x->data + x->pay_off + off, p.pay_len);
		if (p.ipv == 4) {
			const uint8_t *ip = segbuf[k] + p.l3_off;
			uint16_t want = (uint16_t)(sofl_get16(x->data + x->l3_off + 4) +
						   ((g->gflags & SOFL_GSO_F_FIXED_ID) ? 0 : k));
			assert_int_equal(ref_sum(ip, p.l3_len), 0xffff);
			assert_int_equal(sofl_get16(ip + 4), want);
		}
		l4len = p.ip_end - p.l4_off;
		if (partial) {
			assert_int_equal(sofl_get16(segbuf[k] + p.l4_off + (p.l4_proto == 6 ? 16 : 6)),
					 ref_pseudo(&p, l4len));
		} else {
			s = ref_pseudo(&p, l4len) + ref_sum(segbuf[k] + p.l4_off, l4len);
			while (s >> 16)
				s = (s & 0xffff) + (s >> 16);
			assert_int_equal(s, 0xffff);
		}
		if (p.l4_proto == 6) {
			uint8_t f = x->tcp_flags;
			if (k + 1 < n)
				f &= (uint8_t)~(SOFL_TCP_FIN | SOFL_TCP_PSH);
			assert_int_equal(p.tcp_seq, x->tcp_seq + off);
			assert_int_equal(p.tcp_flags, f);
		} else {
			assert_int_equal(sofl_get16(segbuf[k] + p.l4_off + 4), l4len);
		}
		off += p.pay_len;
	}
	assert_int_equal(off, x->pay_len);
}

/* GRO of the segments, one poll: one output, equal to x. */
static void
gro_back(const struct gen *g, const uint8_t *x, size_t xlen, int n, int partial_ok)
{
	static struct sofl_gro_in in[MAXSEG];
	static uint8_t out[70000];
	struct sofl_gro_config cfg;
	struct sofl_gro *gro;
	const struct sofl_gro_out *o;
	struct sofl_gso_params gp;
	struct sofl_pkt p;
	long l;
	int k;

	sofl_gro_config_init(&cfg);
	cfg.link = (enum sofl_link)g->s.link;
	cfg.udp = 1;
	cfg.partial_ok = partial_ok;
	cfg.max_batch = MAXSEG;
	cfg.max_segs = 65535;	/* one output for any segment count (default cap: 1022) */
	assert_int_equal(sofl_gro_create(&cfg, &gro), 0);
	for (k = 0; k < n; k++)
		in[k] = (struct sofl_gro_in){ .data = segbuf[k], .len = seglen[k],
					      .cookie = (uint64_t)k };
	assert_int_equal(sofl_gro_receive(gro, in, (size_t)n, 0), n);
	sofl_gro_poll_end(gro, 0);
	if (sofl_gro_outputs(gro, &o) != 1 || o[0].segs != (uint32_t)n) {
		int m = sofl_gro_outputs(gro, &o);
		fprintf(stderr, "GRO gave %d outputs for %d segments (v%d proto %d pay %zu mss %u "
			"ext %d vlan %d); first: segs %u bypass %u reason %u\n", m, n, g->s.ipv,
			g->s.proto, g->s.pay_len, g->mss, g->s.n_ext, g->s.nvlan, o[0].segs,
			o[0].bypass, WHY(&o[0]));
		fail();
	}
	l = sofl_gro_out_copy(&o[0], out, sizeof(out));
	assert_int_equal(l, (long)xlen);
	if (memcmp(out, x, xlen)) {
		t_hexdump("x", x, 96);
		t_hexdump("GRO(GSO(x))", out, 96);
		fail();
	}
	/* the GRO's virtio header asks for the same segmentation again */
	assert_int_equal(sofl_pkt_parse(&p, out, (size_t)l, cfg.link), 0);
	assert_int_equal(sofl_vnet_to_gso(&o[0].vnet, &p, 0, &gp), 1);
	assert_int_equal(gp.gso_size, g->mss);
	assert_int_equal(gp.type, g->s.proto == 6 ? (g->s.ipv == 4 ? SOFL_GSO_TCPV4 : SOFL_GSO_TCPV6) : SOFL_GSO_UDP_L4);
	sofl_gro_release(gro);
	sofl_gro_destroy(gro);
}

static void
run(int partial, int with_gro)
{
	uint64_t r = 0x5eed0000u + (uint64_t)partial * 7 + (uint64_t)with_gro;
	int it;

	for (it = 0; it < ITER; it++) {
		struct gen g;
		struct sofl_pkt x;
		size_t len;
		int n;

		generate(&g, &r);
		len = t_build(xbuf, sizeof(xbuf), &g.s);
		assert_int_equal(sofl_pkt_parse(&x, xbuf, len, (enum sofl_link)g.s.link), 0);
		n = segment(&g, xbuf, len,
			    (uint8_t)(g.gflags | (partial ? SOFL_GSO_F_CSUM_PARTIAL : 0)), &r);
		assert_int_equal(n, (x.pay_len + g.mss - 1) / g.mss);
		check_segments(&g, &x, n, partial);
		if (with_gro)
			gro_back(&g, xbuf, len, n, partial);
	}
}

static void
test_segments_verify_full(void **state)
{
	(void)state;
	run(0, 0);
}

static void
test_segments_verify_partial(void **state)
{
	(void)state;
	run(1, 0);
}

static void
test_gro_gso_full(void **state)
{
	(void)state;
	run(0, 1);
}

static void
test_gro_gso_partial(void **state)
{
	(void)state;
	run(1, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_segments_verify_full),
		cmocka_unit_test(test_segments_verify_partial),
		cmocka_unit_test(test_gro_gso_full),
		cmocka_unit_test(test_gro_gso_partial),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
