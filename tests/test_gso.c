/* Description: GSO vectors: udpgso.c table v4/v6 with its errors, TCP flag/seq/ID/checksum rules, ext headers, fixed ID, partial sums, pass-through, UFO v4/v6, error codes, batch; zero-copy, copy and iovec modes vs the packet builder byte for byte. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "helpers.h"
#include "softoffload/gso.h"
#include "softoffload/vnet.h"

#define BIG 70000

/* Segments of one call, flattened to contiguous frames. */
struct flat {
	int n;
	uint8_t *f[8200];
	uint32_t len[8200];
	uint8_t *mem;
};

static void
flat_free(struct flat *f)
{
	free(f->mem);
	f->mem = NULL;
	f->n = 0;
}

static size_t
flatten(const struct sofl_gso_seg *s, int n, int mode, uint8_t *mem, struct flat *f)
{
	size_t o = 0;
	int i, k;

	for (i = 0; i < n; i++) {
		f->f[i] = mem + o;
		if (mode == SOFL_GSO_COPY) {
			memcpy(mem + o, s[i].data, s[i].len);
			o += s[i].len;
		} else {
			size_t t = 0;

			assert_ptr_equal(s[i].iov[0].iov_base, s[i].data);
			assert_int_equal(s[i].iov[0].iov_len, s[i].hdr_len);
			for (k = 0; k < s[i].iovcnt; k++) {
				memcpy(mem + o + t, s[i].iov[k].iov_base, s[i].iov[k].iov_len);
				t += s[i].iov[k].iov_len;
			}
			assert_int_equal(t, s[i].len);
			o += t;
		}
		f->len[i] = s[i].len;
	}
	f->n = n;
	return o;
}

/* One run: mode, contiguous or split into @nsplit iovecs. */
static int
run_one(const struct sofl_gso_params *gp, const uint8_t *frame, size_t len, int link,
	int mode, int nsplit, uint64_t *rng, struct flat *f)
{
	struct sofl_pkt p;
	struct sofl_gso_need need;
	struct sofl_gso_out out;
	struct iovec in[8];
	uint8_t hb[SOFL_PKT_IOV_HDR_MAX];
	size_t total, cut[8];
	int n, i, err;

	memset(&out, 0, sizeof(out));
	if (nsplit) {
		cut[0] = 0;
		for (i = 1; i < nsplit; i++)
			cut[i] = len ? t_rand(rng) % len : 0;
		for (i = 1; i < nsplit; i++) {	/* sort */
			size_t v = cut[i];
			int k = i;
			while (k > 1 && cut[k - 1] > v) {
				cut[k] = cut[k - 1];
				k--;
			}
			cut[k] = v;
		}
		for (i = 0; i < nsplit; i++) {
			size_t end = i + 1 < nsplit ? cut[i + 1] : len;
			in[i].iov_base = (void *)(frame + cut[i]);
			in[i].iov_len = end - cut[i];
		}
		err = sofl_pkt_parse_iov(&p, hb, in, nsplit, (enum sofl_link)link);
	} else {
		err = sofl_pkt_parse(&p, frame, len, (enum sofl_link)link);
	}
	if (err && !(p.layers & SOFL_LAYER_L3))
		return err;
	err = sofl_gso_need(gp, &p, mode, nsplit, &need);
	if (err)
		return err;
	out.mode = mode;
	out.seg_cap = need.nsegs;
	out.seg = calloc(need.nsegs, sizeof(*out.seg));
	out.buf_cap = need.buf_bytes;
	out.buf = malloc(need.buf_bytes + 1);
	out.iov_cap = need.iovs;
	out.iov = need.iovs ? calloc(need.iovs, sizeof(*out.iov)) : NULL;
	n = sofl_gso_segment(gp, &p, nsplit ? in : NULL, nsplit, &out);
	if (n > 0) {
		assert_int_equal(n, need.nsegs);
		for (total = 0, i = 0; i < n; i++)
			total += out.seg[i].len;
		f->mem = malloc(total + 1);
		flatten(out.seg, n, mode, f->mem, f);
	}
	free(out.seg);
	free(out.buf);
	free(out.iov);
	return n;
}

/* Segments @frame in every mode; they must agree.  Result in *f. */
static int
gso_flat(const struct sofl_gso_params *gp, const uint8_t *frame, size_t len, int link,
	 struct flat *f)
{
	static struct flat g;
	uint64_t rng = len * 7919 + gp->gso_size;
	int n, m, i, r;

	n = run_one(gp, frame, len, link, SOFL_GSO_ZEROCOPY, 0, &rng, f);
	for (r = 0; r < 4; r++) {
		int mode = r & 1 ? SOFL_GSO_COPY : SOFL_GSO_ZEROCOPY;
		int split = r < 1 ? 0 : 2 + (int)(t_rand(&rng) % 6);

		m = run_one(gp, frame, len, link, mode, split, &rng, &g);
		if (m != n)
			fprintf(stderr, "mode %d split %d: %d vs %d\n", mode, split, m, n);
		assert_int_equal(m, n);
		for (i = 0; i < (n > 0 ? n : 0); i++) {
			assert_int_equal(g.len[i], f->len[i]);
			assert_memory_equal(g.f[i], f->f[i], f->len[i]);
		}
		flat_free(&g);
	}
	return n;
}

/* The frame Linux produces for segment k, from the builder. */
static size_t
expect_seg(uint8_t *buf, const struct t_spec *super, uint32_t k, uint32_t mss, uint32_t n,
	   int partial, int fixed_id, int accecn)
{
	struct t_spec s = *super;
	size_t left = super->pay_len - (size_t)k * mss;

	s.pay_len = left < mss ? left : mss;
	s.pay_off = super->pay_off + k * mss;
	s.seq = super->seq + k * mss;
	if (!fixed_id)
		s.ip_id = (uint16_t)(super->ip_id + k);
	if (k + 1 < n)
		s.flags &= (uint8_t)~(SOFL_TCP_FIN | SOFL_TCP_PSH);
	if (k > 0 && !accecn)
		s.flags &= (uint8_t)~SOFL_TCP_CWR;
	s.csum = partial ? T_CSUM_PARTIAL : T_CSUM_FULL;
	return t_build(buf, BIG, &s);
}

static void
check_against_builder(const struct t_spec *super, const struct sofl_gso_params *gp,
		      int expect_n)
{
	static uint8_t in[BIG], want[BIG];
	struct flat f = { 0 };
	size_t len = t_build(in, sizeof(in), super);
	uint32_t k;
	int n = gso_flat(gp, in, len, super->link, &f);

	assert_int_equal(n, expect_n);
	for (k = 0; k < (uint32_t)n; k++) {
		size_t wl = expect_seg(want, super, k, n == 1 ? (uint32_t)super->pay_len + 1 :
				       gp->gso_size, (uint32_t)n,
				       !!(gp->flags & SOFL_GSO_F_CSUM_PARTIAL),
				       !!(gp->flags & SOFL_GSO_F_FIXED_ID) || n == 1,
				       !!(gp->flags & SOFL_GSO_F_ACCECN));
		if (wl != f.len[k] || memcmp(want, f.f[k], wl)) {
			fprintf(stderr, "segment %u of %d differs\n", k, n);
			t_hexdump("want", want, wl < 96 ? wl : 96);
			t_hexdump("got", f.f[k], f.len[k] < 96 ? f.len[k] : 96);
		}
		assert_int_equal(f.len[k], wl);
		assert_memory_equal(f.f[k], want, wl);
	}
	flat_free(&f);
}

/* ---- the table of tools/testing/selftests/net/udpgso.c, MTU 1500 ---- */

struct udpgso_case {
	int tlen4, tlen6;	/* payload; -1 = derived below */
	int gso;		/* 0 = no gso_len */
	int fail;		/* expected error, 0 = success */
	int nseg4, last4, nseg6, last6;	/* expected count and last size */
};

static void
udpgso_run(int ipv, int tlen, int gso, int want_err, int nseg, int lastsz, int hopopts)
{
	static uint8_t in[BIG];
	struct t_spec s;
	struct sofl_gso_params gp = { 0 };
	struct flat f = { 0 };
	size_t len;
	int n, mss = ipv == 4 ? 1472 : 1452, i;

	t_spec_init(&s, ipv, 17);
	s.pay_len = (size_t)tlen;
	s.df = 1;
	if (hopopts) {
		s.n_ext = 1;
		s.ext[0] = (struct t_ext){ .type = 0, .len = 8 };
	}
	len = t_build(in, sizeof(in), &s);
	gp.type = gso ? SOFL_GSO_UDP_L4 : SOFL_GSO_NONE;
	gp.gso_size = (uint16_t)gso;
	gp.mtu = 1500;
	n = gso_flat(&gp, in, len, SOFL_LINK_ETH, &f);
	if (want_err) {
		if (n != want_err)
			fprintf(stderr, "v%d tlen %d gso %d: %d\n", ipv, tlen, gso, n);
		assert_int_equal(n, want_err);
		return;
	}
	assert_int_equal(n, nseg);
	for (i = 0; i < n; i++) {
		struct sofl_pkt p;
		enum sofl_csum_state ipc, l4c;
		int want = i + 1 < n ? (gso ? gso : mss) : lastsz;

		assert_int_equal(sofl_pkt_parse(&p, f.f[i], f.len[i], SOFL_LINK_ETH), 0);
		assert_int_equal(p.pay_len, want);
		sofl_csum_pkt_check(&p, &ipc, &l4c);
		assert_int_equal(l4c, SOFL_CSUM_VALID);
		if (ipv == 4)
			assert_int_equal(ipc, SOFL_CSUM_VALID);
		assert_true(p.ip_end - p.l3_off <= 1500);
	}
	flat_free(&f);
	/* and byte for byte against the builder */
	if (gso && n > 1) {
		struct sofl_gso_params g2 = gp;
		check_against_builder(&s, &g2, n);
	}
}

static void
test_udpgso_table(void **state)
{
	const int M4 = 1472, M6 = 1452;
	(void)state;
	/* #0 .. #16: (ipv, tlen, gso_len, error, segments, last size) */
	for (int v = 4; v <= 6; v += 2) {
		int M = v == 4 ? M4 : M6;
		int cmax = v == 4 ? 44 : 45;
		int tmax = v == 4 ? 65507 : 65527;

		udpgso_run(v, 1, 0, 0, 1, 1, 0);			/* 0 */
		udpgso_run(v, M, 0, 0, 1, M, 0);			/* 1 */
		udpgso_run(v, M + 1, 0, SOFL_E_GSO_SIZE, 0, 0, 0);	/* 2 EMSGSIZE */
		udpgso_run(v, M, M, 0, 1, M, 0);			/* 3 */
		udpgso_run(v, M, M + 1, 0, 1, M, 0);			/* 4 */
		udpgso_run(v, M + 1, M + 2, SOFL_E_GSO_SIZE, 0, 0, 0);	/* 5 */
		udpgso_run(v, M + 1, M, 0, 2, 1, 0);			/* 6 */
		udpgso_run(v, 2 * M, M, 0, 2, M, 0);			/* 7 */
		udpgso_run(v, 2 * M + 1, M, 0, 3, 1, 0);		/* 8 */
		udpgso_run(v, cmax * M, M, 0, cmax, M, 0);		/* 9 */
		udpgso_run(v, tmax, M, 0, cmax + 1, tmax - cmax * M, 0);	/* 10 */
		udpgso_run(v, 1, 1, 0, 1, 1, 0);			/* 12 */
		udpgso_run(v, 2, 1, 0, 2, 1, 0);			/* 13 */
		if (v == 6)
			udpgso_run(v, 2, 1, 0, 2, 1, 1);		/* 13b HBH */
		udpgso_run(v, 5, 2, 0, 3, 1, 0);			/* 14 */
		udpgso_run(v, 128, 1, 0, 128, 1, 0);			/* 15 */
		udpgso_run(v, 129, 1, SOFL_E_GSO_TOO_MANY, 0, 0, 0);	/* 16 EINVAL */
	}
	/* the expected last sizes of #10 as the table states them */
	assert_int_equal(65507 - 44 * 1472, 739);
	assert_int_equal(65527 - 45 * 1452, 187);
}

/* #11: 65508 (v4) / 65528 (v6) bytes do not fit the 16-bit IP length: the
 * datagram cannot even be expressed; the length wraps and is refused. */
static void
test_udpgso_case11(void **state)
{
	static uint8_t in[BIG];
	struct t_spec s;
	struct sofl_pkt p;
	struct sofl_gso_params gp = { .type = SOFL_GSO_UDP_L4, .gso_size = 1472, .mtu = 1500 };
	struct sofl_gso_need need;
	size_t len;
	(void)state;

	t_spec_init(&s, 4, 17);
	s.pay_len = 65508;
	len = t_build(in, sizeof(in), &s);
	assert_int_equal(sofl_pkt_parse(&p, in, len, SOFL_LINK_ETH), SOFL_E_IPV4_TOTLEN_SHORT);
	assert_int_equal(sofl_gso_need(&gp, &p, 0, 0, &need), SOFL_E_NOT_IP);
	t_spec_init(&s, 6, 17);
	s.pay_len = 65528;
	len = t_build(in, sizeof(in), &s);
	/* payload_len wraps to 0: no room for the UDP header */
	assert_int_equal(sofl_pkt_parse(&p, in, len, SOFL_LINK_ETH), SOFL_E_UDP_TRUNC);
	assert_int_equal(sofl_gso_need(&gp, &p, 0, 0, &need), SOFL_E_GSO_HDR);
}

/* ---- TCP ---- */

static void
tcp_case(int ipv, uint8_t flags, uint8_t gflags, size_t pay, uint16_t mss, int expect_n)
{
	struct t_spec s;
	struct sofl_gso_params gp = { .type = ipv == 4 ? SOFL_GSO_TCPV4 : SOFL_GSO_TCPV6,
				      .gso_size = mss, .flags = gflags };

	t_spec_init(&s, ipv, 6);
	s.flags = flags;
	s.pay_len = pay;
	s.ip_id = 0xfffe;		/* wraps */
	s.seq = 0xffffff00u;		/* wraps */
	s.tcp_opts = t_opt_ts;
	s.tcp_opts_len = sizeof(t_opt_ts);
	s.csum = T_CSUM_PARTIAL;	/* as a sending host's stack leaves it */
	s.pay_seed = 3;
	check_against_builder(&s, &gp, expect_n);
}

static void
test_tcp_flags(void **state)
{
	const uint8_t all = SOFL_TCP_FIN | SOFL_TCP_PSH | SOFL_TCP_ACK | SOFL_TCP_URG |
			    SOFL_TCP_ECE | SOFL_TCP_CWR;
	(void)state;
	for (int v = 4; v <= 6; v += 2) {
		tcp_case(v, SOFL_TCP_ACK, 0, 65160, 1448, 45);		/* the anchor */
		tcp_case(v, SOFL_TCP_ACK | SOFL_TCP_PSH, 0, 65161, 1448, 46);
		tcp_case(v, all, 0, 5000, 1000, 5);
		tcp_case(v, all, SOFL_GSO_F_ACCECN, 5000, 1000, 5);
		tcp_case(v, all, SOFL_GSO_F_FIXED_ID, 4001, 1000, 5);
		tcp_case(v, all, SOFL_GSO_F_CSUM_PARTIAL, 3000, 1000, 3);
		tcp_case(v, SOFL_TCP_ACK | SOFL_TCP_CWR, 0, 2, 1, 2);
		tcp_case(v, all, 0, 1000, 1000, 1);			/* fits: as is */
		tcp_case(v, all, 0, 999, 1000, 1);
		tcp_case(v, SOFL_TCP_ACK, 0, 0, 1000, 1);		/* pure ACK */
	}
}

/* Direct assertions of the rules (not through the builder). */
static void
test_tcp_rules_direct(void **state)
{
	static uint8_t in[BIG];
	struct t_spec s;
	struct sofl_gso_params gp = { .type = SOFL_GSO_TCPV4, .gso_size = 100 };
	struct flat f = { 0 };
	size_t len;
	int n, i;
	(void)state;

	t_spec_init(&s, 4, 6);
	s.flags = SOFL_TCP_ACK | SOFL_TCP_PSH | SOFL_TCP_FIN | SOFL_TCP_CWR | SOFL_TCP_ECE;
	s.pay_len = 250;
	s.ip_id = 7;
	s.seq = 1000;
	len = t_build(in, sizeof(in), &s);
	n = gso_flat(&gp, in, len, SOFL_LINK_ETH, &f);
	assert_int_equal(n, 3);
	for (i = 0; i < n; i++) {
		struct sofl_pkt p;
		enum sofl_csum_state a, b;

		assert_int_equal(sofl_pkt_parse(&p, f.f[i], f.len[i], SOFL_LINK_ETH), 0);
		assert_int_equal(p.tcp_seq, 1000 + 100 * i);
		assert_int_equal(p.pay_len, i < 2 ? 100 : 50);
		assert_int_equal(sofl_get16(f.f[i] + 14 + 4), 7 + i);
		assert_int_equal(sofl_get16(f.f[i] + 14 + 2), 20 + 20 + p.pay_len);
		assert_int_equal(!!(p.tcp_flags & SOFL_TCP_CWR), i == 0);
		assert_int_equal(!!(p.tcp_flags & (SOFL_TCP_FIN | SOFL_TCP_PSH)), i == 2);
		assert_true(p.tcp_flags & SOFL_TCP_ECE);
		assert_true(p.tcp_flags & SOFL_TCP_ACK);
		sofl_csum_pkt_check(&p, &a, &b);
		assert_int_equal(a, SOFL_CSUM_VALID);
		assert_int_equal(b, SOFL_CSUM_VALID);
		assert_memory_equal(f.f[i] + p.pay_off, in + 54 + 100 * i, p.pay_len);
	}
	flat_free(&f);
}

static void
test_tcp_ipv6_exthdr(void **state)
{
	struct t_spec s;
	struct sofl_gso_params gp = { .type = SOFL_GSO_TCPV6, .gso_size = 1400 };
	(void)state;

	t_spec_init(&s, 6, 6);
	s.n_ext = 3;
	s.ext[0] = (struct t_ext){ .type = 0, .len = 8, .fill = 0 };
	s.ext[1] = (struct t_ext){ .type = 60, .len = 16, .fill = 0 };
	s.ext[2] = (struct t_ext){ .type = 43, .len = 24, .fill = 0 };
	s.pay_len = 10000;
	s.flags = SOFL_TCP_ACK | SOFL_TCP_PSH;
	s.csum = T_CSUM_PARTIAL;
	check_against_builder(&s, &gp, 8);
	gp.flags = SOFL_GSO_F_CSUM_PARTIAL;
	check_against_builder(&s, &gp, 8);
}

static void
test_vlan_raw_options(void **state)
{
	static const uint8_t ipopt[4] = { 1, 1, 1, 0 };	/* NOP NOP NOP EOL */
	struct t_spec s;
	struct sofl_gso_params gp = { .type = SOFL_GSO_TCPV4, .gso_size = 536 };
	(void)state;

	t_spec_init(&s, 4, 6);
	s.nvlan = 2;
	s.vlan_tpid[0] = 0x88a8;
	s.vlan_tci[0] = 100;
	s.vlan_tci[1] = 200;
	s.ip_opts = ipopt;
	s.ip_opts_len = 4;
	s.pay_len = 3000;
	check_against_builder(&s, &gp, 6);
	t_spec_init(&s, 6, 17);
	s.link = SOFL_LINK_RAW;
	s.pay_len = 3000;
	gp.type = SOFL_GSO_UDP_L4;
	gp.gso_size = 1200;
	check_against_builder(&s, &gp, 3);
}

/* The input checksum field is not trusted: full, partial, zero or garbage
 * inputs give the same segments. */
static void
test_input_csum_ignored(void **state)
{
	static uint8_t a[BIG], b[BIG];
	struct t_spec s;
	struct sofl_gso_params gp = { .type = SOFL_GSO_TCPV4, .gso_size = 1000 };
	struct flat fa = { 0 }, fb = { 0 };
	size_t la, lb;
	int csum, i;
	(void)state;

	for (int proto = 6; proto <= 17; proto += 11) {
		t_spec_init(&s, 4, proto);
		s.pay_len = 4500;
		gp.type = proto == 6 ? SOFL_GSO_TCPV4 : SOFL_GSO_UDP_L4;
		la = t_build(a, sizeof(a), &s);
		assert_int_equal(gso_flat(&gp, a, la, SOFL_LINK_ETH, &fa), 5);
		for (csum = 0; csum < 4; csum++) {
			s.csum = csum < 3 ? csum : T_CSUM_FULL;
			lb = t_build(b, sizeof(b), &s);
			if (csum == 3)
				b[14 + 20 + (proto == 6 ? 16 : 6)] ^= 0x5a;	/* garbage */
			assert_int_equal(gso_flat(&gp, b, lb, SOFL_LINK_ETH, &fb), 5);
			for (i = 0; i < 5; i++) {
				assert_int_equal(fa.len[i], fb.len[i]);
				assert_memory_equal(fa.f[i], fb.f[i], fa.len[i]);
			}
			flat_free(&fb);
		}
		flat_free(&fa);
	}
}

/* Make segment 0's checksum come out as 0: TCP keeps 0, UDP sends 0xFFFF. */
static void
test_zero_checksum(void **state)
{
	static uint8_t in[BIG];
	(void)state;

	for (int proto = 6; proto <= 17; proto += 11) {
		struct t_spec s;
		struct sofl_gso_params gp = { .type = proto == 6 ? SOFL_GSO_TCPV4 : SOFL_GSO_UDP_L4,
					      .gso_size = 100 };
		struct flat f = { 0 };
		struct sofl_pkt p;
		size_t len;
		uint32_t sum;
		uint16_t w;
		unsigned co = proto == 6 ? 16 : 6;

		t_spec_init(&s, 4, proto);
		s.pay_len = 300;
		len = t_build(in, sizeof(in), &s);
		assert_int_equal(gso_flat(&gp, in, len, SOFL_LINK_ETH, &f), 3);
		/* segment 0 with its last two payload bytes zero: choose them so
		 * that the sum folds to 0xFFFF */
		sofl_put16(f.f[0] + f.len[0] - 2, 0);
		sofl_put16(f.f[0] + 34 + co, 0);
		assert_int_equal(sofl_pkt_parse(&p, f.f[0], f.len[0], SOFL_LINK_ETH), 0);
		sum = sofl_csum_add(sofl_csum_pseudo_v4(s.src, s.dst, (uint8_t)proto,
							f.len[0] - 34), f.f[0] + 34, f.len[0] - 34);
		w = (uint16_t)(0xffff - sofl_csum_fold(sum));
		flat_free(&f);
		sofl_put16(in + 14 + 20 + (proto == 6 ? 20 : 8) + 98, w);
		assert_int_equal(gso_flat(&gp, in, len, SOFL_LINK_ETH, &f), 3);
		assert_int_equal(sofl_get16(f.f[0] + 34 + co), proto == 6 ? 0x0000 : 0xffff);
		assert_int_equal(sofl_pkt_parse(&p, f.f[0], f.len[0], SOFL_LINK_ETH), 0);
		{
			enum sofl_csum_state a, b;
			sofl_csum_pkt_check(&p, &a, &b);
			assert_int_equal(b, SOFL_CSUM_VALID);
		}
		flat_free(&f);
	}
}

/* Pass-through: a partial checksum is completed, the rest is untouched. */
static void
test_passthrough(void **state)
{
	static uint8_t in[BIG], want[BIG];
	struct t_spec s;
	struct sofl_gso_params gp = { .type = SOFL_GSO_NONE };
	struct flat f = { 0 };
	size_t len, wl;
	(void)state;

	for (int proto = 6; proto <= 17; proto += 11) {
		for (int v = 4; v <= 6; v += 2) {
			t_spec_init(&s, v, proto);
			s.pay_len = 777;
			s.ip_id = 99;
			s.eth_pad = 0;
			s.csum = T_CSUM_PARTIAL;
			len = t_build(in, sizeof(in), &s);
			s.csum = T_CSUM_FULL;
			wl = t_build(want, sizeof(want), &s);
			gp.flags = 0;
			assert_int_equal(gso_flat(&gp, in, len, SOFL_LINK_ETH, &f), 1);
			assert_int_equal(f.len[0], wl);
			assert_memory_equal(f.f[0], want, wl);
			flat_free(&f);
			gp.flags = SOFL_GSO_F_CSUM_PARTIAL;
			s.csum = T_CSUM_FULL;
			len = t_build(in, sizeof(in), &s);
			s.csum = T_CSUM_PARTIAL;
			wl = t_build(want, sizeof(want), &s);
			assert_int_equal(gso_flat(&gp, in, len, SOFL_LINK_ETH, &f), 1);
			assert_memory_equal(f.f[0], want, wl);
			flat_free(&f);
		}
	}
	/* UDP over IPv4 without checksum stays without; padding is not output */
	t_spec_init(&s, 4, 17);
	s.pay_len = 10;
	s.udp_zero_csum = 1;
	s.eth_pad = 18;
	len = t_build(in, sizeof(in), &s);
	gp.flags = 0;
	assert_int_equal(gso_flat(&gp, in, len, SOFL_LINK_ETH, &f), 1);
	assert_int_equal(f.len[0], len - 18);
	assert_memory_equal(f.f[0], in, len - 18);
	flat_free(&f);
	/* a wrong IPv4 header checksum is made right, nothing else changes */
	t_spec_init(&s, 4, 6);
	s.pay_len = 100;
	len = t_build(in, sizeof(in), &s);
	memcpy(want, in, len);
	in[14 + 10] ^= 0x33;
	assert_int_equal(gso_flat(&gp, in, len, SOFL_LINK_ETH, &f), 1);
	assert_int_equal(f.len[0], len);
	assert_memory_equal(f.f[0], want, len);
	flat_free(&f);
	/* an ICMP packet passes unchanged */
	t_spec_init(&s, 4, 1);
	s.pay_len = 64;
	len = t_build(in, sizeof(in), &s);
	assert_int_equal(gso_flat(&gp, in, len, SOFL_LINK_ETH, &f), 1);
	assert_int_equal(f.len[0], len);
	assert_memory_equal(f.f[0], in, len);
	flat_free(&f);
}

/* ---- IP fragmentation (UFO) ---- */

static void
reassemble_check(const struct flat *f, const uint8_t *orig, size_t olen, int ipv, uint16_t id,
		 uint32_t frag_id, uint16_t mtu, uint32_t unfrag)
{
	static uint8_t re[BIG];
	struct sofl_pkt op;
	uint32_t next = 0, fs;
	int i;

	assert_int_equal(sofl_pkt_parse(&op, orig, olen, SOFL_LINK_ETH), 0);
	fs = ipv == 4 ? op.l3_off + op.l3_len : unfrag;
	for (i = 0; i < f->n; i++) {
		struct sofl_pkt p;
		uint32_t off, dlen, doff;
		int mf;

		assert_int_equal(sofl_pkt_parse(&p, f->f[i], f->len[i], SOFL_LINK_ETH), 0);
		assert_true(p.is_frag);
		assert_true(p.ip_end - p.l3_off <= mtu);
		if (ipv == 4) {
			uint16_t fo = sofl_get16(f->f[i] + 14 + 6);
			assert_true(sofl_csum_ipv4_hdr_ok(f->f[i] + 14, p.l3_len));
			assert_int_equal(sofl_get16(f->f[i] + 14 + 4), id);	/* same ID */
			assert_int_equal(fo & 0x4000, 0);			/* DF cleared */
			off = (uint32_t)(fo & 0x1fff) * 8;
			mf = !!(fo & 0x2000);
			doff = p.l3_off + p.l3_len;
			assert_memory_equal(f->f[i] + 14, orig + 14, 2);	/* ver, tos */
			assert_memory_equal(f->f[i] + 22, orig + 22, 2);	/* ttl, proto */
			assert_memory_equal(f->f[i] + 26, orig + 26, 8);	/* addresses */
		} else {
			const uint8_t *fh = f->f[i] + p.frag_off_hdr;
			off = sofl_get16(fh + 2) & 0xfff8;
			mf = sofl_get16(fh + 2) & 1;
			assert_int_equal(sofl_get32(fh + 4), frag_id);
			assert_int_equal(p.frag_off_hdr, unfrag);
			doff = p.frag_off_hdr + 8;
			/* unfragmentable part as in the original (but its next header) */
			assert_memory_equal(f->f[i] + 14, orig + 14, 4);
		}
		dlen = p.ip_end - doff;
		assert_int_equal(off, next);
		assert_int_equal(mf, i + 1 < f->n);
		if (i + 1 < f->n)
			assert_int_equal(dlen % 8, 0);
		memcpy(re + off, f->f[i] + doff, dlen);
		next = off + dlen;
	}
	assert_int_equal(next, op.ip_end - fs);
	/* the reassembled datagram: the original with its L4 checksum complete */
	assert_memory_equal(re + (op.l4_off - fs) + 8, orig + op.l4_off + 8, op.ip_end - op.l4_off - 8);
	{
		uint32_t l4len = op.ip_end - op.l4_off;
		uint32_t s = ipv == 4 ?
			sofl_csum_pseudo_v4(op.key.src, op.key.dst, 17, l4len) :
			sofl_csum_pseudo_v6(op.key.src, op.key.dst, 17, l4len);
		assert_int_equal(sofl_csum_fold(sofl_csum_add(s, re + (op.l4_off - fs), l4len)), 0xffff);
	}
}

/* The identification of one IPv6 UFO datagram's fragments (COPY mode): the
 * same in all of them; @return it. */
static uint32_t
frag6_id(const struct sofl_gso_params *gp, const uint8_t *in, size_t len, int nfrags)
{
	static struct sofl_gso_seg seg[16];
	static uint8_t buf[16 * 2048];
	struct sofl_gso_out out = { .mode = SOFL_GSO_COPY, .seg = seg, .seg_cap = 16,
				    .buf = buf, .buf_cap = sizeof(buf) };
	struct sofl_pkt p;
	uint32_t id = 0;
	int i;

	assert_int_equal(sofl_pkt_parse(&p, in, len, SOFL_LINK_ETH), 0);
	assert_int_equal(sofl_gso_segment(gp, &p, NULL, 0, &out), nfrags);
	for (i = 0; i < nfrags; i++) {
		struct sofl_pkt f;

		assert_int_equal(sofl_pkt_parse(&f, seg[i].data, seg[i].len, SOFL_LINK_ETH), 0);
		assert_true(f.is_frag && f.frag_off_hdr);
		if (i == 0)
			id = sofl_get32(seg[i].data + f.frag_off_hdr + 4);
		assert_int_equal(sofl_get32(seg[i].data + f.frag_off_hdr + 4), id);
	}
	return id;
}

/* IPv6 UFO with frag_id 0 (a virtio UFO header's case) gets an
 * identification per datagram, as Linux udp6_ufo_fragment() with
 * ipv6_proxy_select_ident(): non-zero, shared by the datagram's fragments,
 * different for the next datagram; from the caller's generator (keyed: the
 * SipHash-2-4 reference vector pins the function) or the library's own. */
static void
test_ipfrag6_ident(void **state)
{
	static uint8_t in[4096];
	static const uint8_t key[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
	uint8_t a[16], b[16];
	struct sofl_gso_frag_ids ids, ids2;
	struct sofl_gso_params gp = { .type = SOFL_GSO_UFO, .mtu = 1280 };
	struct sofl_vnet_hdr vh = { .gso_type = SOFL_GSO_UFO, .gso_size = 1200 };
	struct t_spec s;
	uint32_t seen[64], id;
	size_t len;
	int i, k;
	(void)state;

	/* the generator: SipHash-2-4 of src, dst, counter (message 00..27
	 * under key 00..0f: 0x0e3ea96b5304a7d0), halves folded */
	for (i = 0; i < 16; i++) {
		a[i] = (uint8_t)i;
		b[i] = (uint8_t)(16 + i);
	}
	assert_int_equal(sofl_gso_frag_ids_init(&ids, key, sizeof(key)), 0);
	ids.ctr = 0x2726252423222120ULL;
	assert_int_equal(sofl_gso_frag_id_next(&ids, a, b), 0x5d3a0ebb);
	assert_int_equal(sofl_gso_frag_ids_init(&ids, key, 15), SOFL_E_INVAL);
	assert_int_equal(sofl_gso_frag_ids_init(NULL, NULL, 0), SOFL_E_INVAL);
	assert_int_equal(sofl_gso_frag_ids_init(&ids, NULL, 0), 0);	/* random key */
	assert_int_equal(sofl_gso_frag_ids_init(&ids2, NULL, 0), 0);
	assert_true(sofl_gso_frag_id_next(&ids, a, b) != sofl_gso_frag_id_next(&ids2, a, b));
	/* an all-zero key is a key like any other (not "choose one") */
	{
		static const uint8_t zero[SOFL_GSO_FRAG_KEY_LEN];

		assert_int_equal(sofl_gso_frag_ids_init(&ids, zero, sizeof(zero)), 0);
		assert_int_equal(sofl_gso_frag_ids_init(&ids2, zero, sizeof(zero)), 0);
		assert_true(ids.k0 == 0 && ids.k1 == 0);
		assert_int_equal(sofl_gso_frag_id_next(&ids, a, b), sofl_gso_frag_id_next(&ids2, a, b));
	}

	t_spec_init(&s, 6, 17);
	s.pay_len = 3000;
	len = t_build(in, sizeof(in), &s);
	/* the library's generator, and the virtio path that leads to it */
	{
		struct sofl_gso_params vg;
		struct sofl_pkt p;

		assert_int_equal(sofl_pkt_parse(&p, in, len, SOFL_LINK_ETH), 0);
		assert_int_equal(sofl_vnet_to_gso(&vh, &p, 0, &vg), 1);
		assert_int_equal(vg.type, SOFL_GSO_UFO);
		assert_int_equal(vg.frag_id, 0);
		for (k = 0; k < 64; k++) {
			seen[k] = frag6_id(&vg, in, len, 3);
			assert_true(seen[k] != 0);
			for (i = 0; i < k; i++)
				assert_true(seen[i] != seen[k]);
		}
	}
	/* the caller's generator */
	assert_int_equal(sofl_gso_frag_ids_init(&ids, key, sizeof(key)), 0);
	gp.frag_ids = &ids;
	for (k = 0; k < 64; k++) {
		seen[k] = frag6_id(&gp, in, len, 3);
		assert_true(seen[k] != 0);
		for (i = 0; i < k; i++)
			assert_true(seen[i] != seen[k]);
	}
	assert_int_equal(ids.ctr, 64);		/* one per datagram, not per fragment */
	/* same key, same addresses, same counter: the same identification */
	assert_int_equal(sofl_gso_frag_ids_init(&ids2, key, sizeof(key)), 0);
	id = frag6_id(&(struct sofl_gso_params){ .type = SOFL_GSO_UFO, .mtu = 1280,
						 .frag_ids = &ids2 }, in, len, 3);
	assert_int_equal(id, seen[0]);
	/* a batch: every datagram its own */
	{
		static struct sofl_gso_seg seg[8];
		static uint8_t buf[8 * 2048];
		struct sofl_gso_out out = { .mode = SOFL_GSO_COPY, .seg = seg, .seg_cap = 8,
					    .buf = buf, .buf_cap = sizeof(buf) };
		struct sofl_gso_params g2[2] = { gp, gp };
		struct sofl_pkt p2[2], f0, f1;
		int res[2];

		assert_int_equal(sofl_pkt_parse(&p2[0], in, len, SOFL_LINK_ETH), 0);
		p2[1] = p2[0];
		assert_int_equal(sofl_gso_segment_batch(g2, p2, 2, &out, res), 6);
		assert_int_equal(sofl_pkt_parse(&f0, seg[2].data, seg[2].len, SOFL_LINK_ETH), 0);
		assert_int_equal(sofl_pkt_parse(&f1, seg[3].data, seg[3].len, SOFL_LINK_ETH), 0);
		assert_true(sofl_get32(seg[2].data + f0.frag_off_hdr + 4) !=
			    sofl_get32(seg[3].data + f1.frag_off_hdr + 4));
	}
	/* an identification the caller gives is kept */
	gp.frag_id = 0xabcdef01;
	assert_int_equal(frag6_id(&gp, in, len, 3), 0xabcdef01);
}

/* IPv6 UFO of a datagram whose whole extension header chain is the part
 * every fragment repeats (hop-by-hop and routing headers: Linux
 * ip6_find_1stfragopt()), no upper-layer header (next header 59): each
 * fragment is that part, a fragment header, its share of the rest.  With
 * SOFL_PKT_EXTHDR_MAX headers in the input the fragments carry one more
 * than the parser takes; they are valid all the same (RFC 8200 has no
 * limit) and the engine makes them as for a shorter chain.  (fuzz_gso
 * expected every fragment to re-parse and stopped on such an input.) */
/* Which extension headers an IPv6 fragment repeats (Linux
 * ip6_find_1stfragopt()): hop-by-hop + destination options + UDP repeats
 * both; routing + destination options + UDP repeats the routing header
 * only; destination options + routing repeats both. */
static void
test_ipfrag6_dest_opts(void **state)
{
	static const struct { uint8_t h[3]; int n, unfrag; uint8_t first; } cs[] = {
		{ { 0, 60, 0 }, 2, 56, 17 },	/* HBH, DEST: both repeated */
		{ { 60, 0, 0 }, 1, 48, 17 },	/* DEST alone: repeated */
		{ { 43, 60, 0 }, 2, 48, 60 },	/* ROUTING, DEST: DEST fragmented */
		{ { 60, 43, 0 }, 2, 56, 17 },	/* DEST, ROUTING: both repeated */
	};
	(void)state;
	for (size_t c = 0; c < sizeof(cs) / sizeof(cs[0]); c++) {
		static uint8_t in[512];
		struct sofl_gso_params gp = { .type = SOFL_GSO_UFO, .gso_size = 64,
					      .flags = SOFL_GSO_F_IGNORE_DF, .frag_id = 0x0a0b0c0d };
		struct flat f = { 0 };
		uint32_t o = 40;
		int i, n;

		memset(in, 0, sizeof(in));
		in[0] = 0x60;
		in[7] = 64;
		memset(in + 8, 0x20, 16);
		memset(in + 24, 0x21, 16);
		in[6] = cs[c].h[0];
		for (i = 0; i < cs[c].n; i++, o += 8)
			in[o] = i + 1 < cs[c].n ? cs[c].h[i + 1] : 17;
		sofl_put16(in + o, 1000);		/* UDP, 200 bytes */
		sofl_put16(in + o + 2, 2000);
		sofl_put16(in + o + 4, 200);
		for (i = 8; i < 200; i++)
			in[o + i] = (uint8_t)(i * 5 + 3);
		o += 200;
		sofl_put16(in + 4, (uint16_t)(o - 40));
		n = gso_flat(&gp, in, o, SOFL_LINK_RAW, &f);
		assert_int_equal(n, 4);
		for (i = 0; i < n; i++) {
			const uint8_t *fr = f.f[i];
			uint32_t u = (uint32_t)cs[c].unfrag;

			/* the fragment header right after the repeated part */
			assert_int_equal(fr[u], cs[c].first);
			assert_int_equal(sofl_get32(fr + u + 4), 0x0a0b0c0d);
			assert_memory_equal(fr + 40, in + 40, u - 40 - 8);
			assert_int_equal(fr[u - 8], 44);
		}
		flat_free(&f);
	}
}

static void
test_ipfrag6_long_chain(void **state)
{
	(void)state;
	for (int nrt = SOFL_PKT_EXTHDR_MAX - 2; nrt <= SOFL_PKT_EXTHDR_MAX - 1; nrt++) {
		static uint8_t in[512], re[512];
		struct sofl_gso_params gp = { .type = SOFL_GSO_UFO, .gso_size = 64,
					      .flags = SOFL_GSO_F_IGNORE_DF, .frag_id = 0x01020304 };
		struct flat f = { 0 };
		struct sofl_pkt p;
		uint32_t o = 40, unfrag, next = 0;
		int i, n;

		memset(in, 0, sizeof(in));
		in[0] = 0x60;
		in[7] = 64;
		memset(in + 8, 0x20, 16);
		memset(in + 24, 0x21, 16);
		in[6] = 0;				/* hop-by-hop */
		in[o] = 43;
		in[o + 2] = 1;				/* PadN, 4 bytes */
		in[o + 3] = 4;
		o += 8;
		for (i = 0; i < nrt; i++, o += 8)	/* routing headers, empty */
			in[o] = i + 1 < nrt ? 43 : 59;
		unfrag = o;
		for (i = 0; i < 200; i++)
			in[o++] = (uint8_t)(i * 7 + 1);
		sofl_put16(in + 4, (uint16_t)(o - 40));
		assert_int_equal(sofl_pkt_parse(&p, in, o, SOFL_LINK_RAW), 0);
		assert_int_equal(p.n_exthdr, 1 + nrt);
		assert_false(p.layers & SOFL_LAYER_L4);

		n = gso_flat(&gp, in, o, SOFL_LINK_RAW, &f);
		assert_int_equal(n, 4);			/* 200 bytes in 64s */
		for (i = 0; i < n; i++) {
			const uint8_t *fr = f.f[i], *fh = fr + unfrag;
			uint32_t dlen = i + 1 < n ? 64 : 200 - 3 * 64;
			struct sofl_pkt q;

			assert_int_equal(f.len[i], unfrag + 8 + dlen);
			assert_int_equal(sofl_get16(fr + 4), unfrag + 8 + dlen - 40);
			/* the repeated part as in the input, but its last next header */
			assert_memory_equal(fr, in, 4);
			assert_memory_equal(fr + 6, in + 6, unfrag - 8 - 6);
			assert_int_equal(fr[unfrag - 8], 44);
			assert_memory_equal(fr + unfrag - 7, in + unfrag - 7, 7);
			assert_int_equal(fh[0], 59);
			assert_int_equal(fh[1], 0);
			assert_int_equal(sofl_get16(fh + 2), (uint16_t)(next | (i + 1 < n)));
			assert_int_equal(sofl_get32(fh + 4), 0x01020304);
			memcpy(re + next, fh + 8, dlen);
			next += dlen;
			if (1 + nrt < SOFL_PKT_EXTHDR_MAX) {
				assert_int_equal(sofl_pkt_parse(&q, fr, f.len[i], SOFL_LINK_RAW), 0);
				assert_true(q.is_frag);
				assert_int_equal(q.frag_off_hdr, unfrag);
			} else {
				assert_int_equal(sofl_pkt_parse(&q, fr, f.len[i], SOFL_LINK_RAW),
						 SOFL_E_EXTHDR_CHAIN);
			}
		}
		assert_int_equal(next, 200);
		assert_memory_equal(re, in + unfrag, 200);
		flat_free(&f);
	}
}

static void
test_ipfrag(void **state)
{
	static uint8_t in[BIG];
	struct t_spec s;
	struct sofl_gso_params gp = { .type = SOFL_GSO_UFO, .mtu = 1500,
				      .flags = SOFL_GSO_F_IGNORE_DF, .frag_id = 0xabcdef01 };
	struct flat f = { 0 };
	size_t len;
	int n;
	(void)state;

	/* DPDK anchor workload: 65000 B UDP payload, fragments of 1480 */
	t_spec_init(&s, 4, 17);
	s.pay_len = 65000;
	s.df = 0;
	s.ip_id = 0x1234;
	s.csum = T_CSUM_PARTIAL;
	len = t_build(in, sizeof(in), &s);
	n = gso_flat(&gp, in, len, SOFL_LINK_ETH, &f);
	assert_int_equal(n, 44);
	assert_int_equal(f.len[0], 14 + 1500);
	reassemble_check(&f, in, len, 4, 0x1234, 0, 1500, 0);
	flat_free(&f);
	/* DF set: refused unless IGNORE_DF (Linux UFO clears it) */
	s.df = 1;
	len = t_build(in, sizeof(in), &s);
	gp.flags = 0;
	assert_int_equal(gso_flat(&gp, in, len, SOFL_LINK_ETH, &f), SOFL_E_GSO_DF);
	gp.flags = SOFL_GSO_F_IGNORE_DF;
	assert_int_equal(gso_flat(&gp, in, len, SOFL_LINK_ETH, &f), 44);
	reassemble_check(&f, in, len, 4, 0x1234, 0, 1500, 0);
	flat_free(&f);
	/* gso_size (virtio UFO) instead of an MTU: 1000 -> units of 1000 */
	gp.mtu = 0;
	gp.gso_size = 1000;
	s.pay_len = 2992;	/* + 8 = 3000 = 3 x 1000 */
	len = t_build(in, sizeof(in), &s);
	assert_int_equal(gso_flat(&gp, in, len, SOFL_LINK_ETH, &f), 3);
	reassemble_check(&f, in, len, 4, 0x1234, 0, 1020, 0);
	flat_free(&f);
	s.pay_len = 992;	/* 1000: fits, passes through */
	len = t_build(in, sizeof(in), &s);
	assert_int_equal(gso_flat(&gp, in, len, SOFL_LINK_ETH, &f), 1);
	flat_free(&f);

	/* IPv6 with HBH + routing (unfragmentable) and destination options after */
	t_spec_init(&s, 6, 17);
	s.n_ext = 3;
	s.ext[0] = (struct t_ext){ .type = 0, .len = 8 };
	s.ext[1] = (struct t_ext){ .type = 43, .len = 24 };
	s.ext[2] = (struct t_ext){ .type = 60, .len = 16 };
	s.pay_len = 9000;
	len = t_build(in, sizeof(in), &s);
	gp = (struct sofl_gso_params){ .type = SOFL_GSO_UFO, .mtu = 1280, .frag_id = 77 };
	n = gso_flat(&gp, in, len, SOFL_LINK_ETH, &f);
	/* per fragment (1280 - 40 - 32 - 8) & ~7 = 1200 of 16 + 8 + 9000 bytes */
	assert_int_equal(n, 8);
	reassemble_check(&f, in, len, 6, 0, 77, 1280, 14 + 40 + 32);
	flat_free(&f);
	/* plain IPv6 */
	t_spec_init(&s, 6, 17);
	s.pay_len = 3000;
	len = t_build(in, sizeof(in), &s);
	n = gso_flat(&gp, in, len, SOFL_LINK_ETH, &f);
	assert_int_equal(n, 3);
	reassemble_check(&f, in, len, 6, 0, 77, 1280, 14 + 40);
	flat_free(&f);
}

/* ---- errors: specific codes, nothing written ---- */

static void
expect_err(const struct sofl_gso_params *gp, const uint8_t *frame, size_t len, int want)
{
	struct sofl_pkt p;
	struct sofl_gso_need need;
	struct sofl_gso_seg seg[4];
	struct iovec iov[8];
	uint8_t buf[4096];
	struct sofl_gso_out out = { .mode = SOFL_GSO_ZEROCOPY, .seg = seg, .seg_cap = 4,
				    .buf = buf, .buf_cap = sizeof(buf), .iov = iov, .iov_cap = 8 };

	sofl_pkt_parse(&p, frame, len, SOFL_LINK_ETH);
	memset(seg, 0xa5, sizeof(seg));
	memset(iov, 0xa5, sizeof(iov));
	memset(buf, 0xa5, sizeof(buf));
	assert_int_equal(sofl_gso_segment(gp, &p, NULL, 0, &out), want);
	assert_int_equal(sofl_gso_need(gp, &p, SOFL_GSO_ZEROCOPY, 0, &need),
			 want == SOFL_E_NOSPC ? 0 : want);
	for (size_t i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0xa5);
	for (size_t i = 0; i < sizeof(seg); i++)
		assert_int_equal(((uint8_t *)seg)[i], 0xa5);
	for (size_t i = 0; i < sizeof(iov); i++)
		assert_int_equal(((uint8_t *)iov)[i], 0xa5);
}

static void
test_errors(void **state)
{
	static uint8_t in[BIG];
	struct t_spec s;
	struct sofl_gso_params gp = { .type = SOFL_GSO_TCPV4, .gso_size = 1000 };
	size_t len;
	(void)state;

	t_spec_init(&s, 4, 6);
	s.pay_len = 3000;
	len = t_build(in, sizeof(in), &s);
	gp.gso_size = 0;
	expect_err(&gp, in, len, SOFL_E_GSO_SIZE);
	gp.gso_size = 1000;
	gp.max_segs = 2;
	expect_err(&gp, in, len, SOFL_E_GSO_TOO_MANY);
	gp.max_segs = 0;
	gp.type = SOFL_GSO_UDP_L4;
	expect_err(&gp, in, len, SOFL_E_GSO_PROTO);	/* TCP packet, UDP asked */
	gp.type = SOFL_GSO_TCPV6;
	expect_err(&gp, in, len, SOFL_E_GSO_PROTO);	/* IPv4 packet, IPv6 type */
	gp.type = 2;					/* not a GSO type */
	expect_err(&gp, in, len, SOFL_E_INVAL);
	gp.type = SOFL_GSO_TCPV4 | SOFL_GSO_ECN;	/* wire flag, not a type */
	expect_err(&gp, in, len, SOFL_E_INVAL);
	gp.type = 9;
	expect_err(&gp, in, len, SOFL_E_INVAL);
	gp.type = SOFL_GSO_TCPV4;
	gp.mtu = 1000;					/* 40 + 1000 > 1000 */
	expect_err(&gp, in, len, SOFL_E_GSO_SIZE);
	gp.mtu = 0;
	gp.gso_size = 500;				/* 6 segments > seg_cap 4 */
	expect_err(&gp, in, len, SOFL_E_NOSPC);
	gp.gso_size = 1000;
	t_spec_init(&s, 4, 17);
	s.pay_len = 3000;
	len = t_build(in, sizeof(in), &s);
	expect_err(&gp, in, len, SOFL_E_GSO_PROTO);	/* UDP packet, TCP asked */
	/* not IP */
	t_spec_init(&s, 4, 6);
	len = t_build_arp(in, sizeof(in), &s);
	expect_err(&gp, in, len, SOFL_E_NOT_IP);
	/* an IP fragment */
	t_spec_init(&s, 4, 17);
	s.df = 0;
	s.frag = 0x2000;
	s.pay_len = 3000;
	len = t_build(in, sizeof(in), &s);
	expect_err(&gp, in, len, SOFL_E_FRAGMENT);
	/* a truncated TCP header: parse stops at L3 */
	t_spec_init(&s, 4, 6);
	s.pay_len = 3000;
	len = t_build(in, sizeof(in), &s);
	in[14 + 20 + 12] = 0x20;			/* doff 2: 8 bytes < 20 */
	expect_err(&gp, in, len, SOFL_E_GSO_HDR);
	in[14 + 20 + 12] = 0x50;
	sofl_put16(in + 14 + 2, 20 + 12);		/* IP ends inside the TCP header */
	expect_err(&gp, in, len, SOFL_E_GSO_HDR);
	/* UFO without size nor MTU, and an MTU too small for one unit */
	t_spec_init(&s, 4, 17);
	s.pay_len = 3000;
	s.df = 0;
	len = t_build(in, sizeof(in), &s);
	gp = (struct sofl_gso_params){ .type = SOFL_GSO_UFO };
	expect_err(&gp, in, len, SOFL_E_GSO_SIZE);
	gp.mtu = 20 + 7;				/* unit 7 & ~7 = 0 */
	expect_err(&gp, in, len, SOFL_E_GSO_SIZE);
	/* NULLs */
	assert_int_equal(sofl_gso_segment(NULL, NULL, NULL, 0, NULL), SOFL_E_INVAL);
}

/* Buffers exactly the size sofl_gso_need() gives, checked by canaries; one
 * byte less is ENOSPC with nothing written. */
static void
test_exact_buffers(void **state)
{
	static uint8_t in[BIG];
	struct t_spec s;
	struct sofl_pkt p;
	struct sofl_gso_need need;
	struct sofl_gso_params gp = { .type = SOFL_GSO_TCPV6, .gso_size = 1448 };
	size_t len;
	(void)state;

	t_spec_init(&s, 6, 6);
	s.pay_len = 20000;
	len = t_build(in, sizeof(in), &s);
	assert_int_equal(sofl_pkt_parse(&p, in, len, SOFL_LINK_ETH), 0);
	for (int mode = 0; mode < 2; mode++) {
		assert_int_equal(sofl_gso_need(&gp, &p, mode, 0, &need), 0);
		assert_int_equal(need.nsegs, 14);
		for (int shrink = 0; shrink < 4; shrink++) {
			struct sofl_gso_out out = { .mode = mode };
			uint8_t *buf = malloc(need.buf_bytes + 64);
			struct sofl_gso_seg *seg = malloc((need.nsegs + 1) * sizeof(*seg));
			struct iovec *iov = malloc((need.iovs + 1) * sizeof(*iov));
			int r;

			memset(buf, 0xcc, need.buf_bytes + 64);
			memset(seg, 0xcc, (need.nsegs + 1) * sizeof(*seg));
			memset(iov, 0xcc, (need.iovs + 1) * sizeof(*iov));
			out.buf = buf;
			out.buf_cap = need.buf_bytes - (shrink == 1);
			out.seg = seg;
			out.seg_cap = need.nsegs - (shrink == 2);
			out.iov = iov;
			out.iov_cap = need.iovs - (shrink == 3 && mode == 0);
			r = sofl_gso_segment(&gp, &p, NULL, 0, &out);
			if (shrink && !(shrink == 3 && mode == 1)) {
				assert_int_equal(r, SOFL_E_NOSPC);
				assert_int_equal(buf[0], 0xcc);
				assert_int_equal(((uint8_t *)seg)[0], 0xcc);
				assert_int_equal(((uint8_t *)iov)[0], 0xcc);
			} else {
				assert_int_equal(r, 14);
			}
			for (int i = 0; i < 64; i++)
				assert_int_equal(buf[need.buf_bytes + i], 0xcc);
			assert_int_equal(((uint8_t *)&seg[need.nsegs])[0], 0xcc);
			assert_int_equal(((uint8_t *)&iov[need.iovs])[0], 0xcc);
			free(buf);
			free(seg);
			free(iov);
		}
	}
}

/* A batch: segments of every packet appended in order, failures skipped,
 * each packet's segments identical to segmenting it alone. */
static void
test_batch(void **state)
{
	static uint8_t f[5][20000];
	struct t_spec s;
	struct sofl_pkt p[5];
	struct sofl_gso_params gp[5] = {
		{ .type = SOFL_GSO_TCPV4, .gso_size = 1000 },
		{ .type = SOFL_GSO_UDP_L4, .gso_size = 1200 },
		{ .type = SOFL_GSO_TCPV4, .gso_size = 1000 },
		{ .type = SOFL_GSO_UDP_L4, .gso_size = 100 },
		{ .type = SOFL_GSO_NONE },
	};
	static const int want[5] = { 10, 5, SOFL_E_NOT_IP, SOFL_E_GSO_PROTO, 1 };
	size_t len[5];
	struct sofl_gso_seg seg[64];
	struct iovec iov[128];
	static uint8_t buf[64 * 2048];
	int res[5], n, i, k, at = 0;
	(void)state;

	t_spec_init(&s, 4, 6);
	s.pay_len = 10000;
	len[0] = t_build(f[0], sizeof(f[0]), &s);
	t_spec_init(&s, 6, 17);
	s.pay_len = 5000;
	len[1] = t_build(f[1], sizeof(f[1]), &s);
	t_spec_init(&s, 4, 6);
	len[2] = t_build_arp(f[2], sizeof(f[2]), &s);
	s.pay_len = 3000;
	len[3] = t_build(f[3], sizeof(f[3]), &s);
	s.pay_len = 10;
	len[4] = t_build(f[4], sizeof(f[4]), &s);
	for (i = 0; i < 5; i++)
		sofl_pkt_parse(&p[i], f[i], len[i], SOFL_LINK_ETH);
	for (int mode = 0; mode < 2; mode++) {
		struct sofl_gso_out out = { .mode = mode, .seg = seg, .seg_cap = 64, .buf = buf,
					    .buf_cap = sizeof(buf), .iov = iov, .iov_cap = 128 };

		at = 0;
		n = sofl_gso_segment_batch(gp, p, 5, &out, res);
		assert_int_equal(n, 16);
		for (i = 0; i < 5; i++) {
			struct flat fl = { 0 };
			uint8_t tmp[2048];

			assert_int_equal(res[i], want[i]);
			if (res[i] <= 0)
				continue;
			assert_int_equal(gso_flat(&gp[i], f[i], len[i], SOFL_LINK_ETH, &fl), res[i]);
			for (k = 0; k < res[i]; k++, at++) {
				size_t o = 0;
				if (mode == SOFL_GSO_COPY) {
					memcpy(tmp, seg[at].data, seg[at].len);
				} else {
					for (int v = 0; v < seg[at].iovcnt; v++) {
						memcpy(tmp + o, seg[at].iov[v].iov_base,
						       seg[at].iov[v].iov_len);
						o += seg[at].iov[v].iov_len;
					}
				}
				assert_int_equal(seg[at].len, fl.len[k]);
				assert_memory_equal(tmp, fl.f[k], fl.len[k]);
			}
			flat_free(&fl);
		}
		/* room for 12 segments: the UDP packet does not fit any more */
		out.seg_cap = 12;
		n = sofl_gso_segment_batch(gp, p, 5, &out, res);
		assert_int_equal(n, 10);
		assert_int_equal(res[0], 10);
		for (i = 1; i < 5; i++)
			assert_int_equal(res[i], SOFL_E_NOSPC);
	}
	assert_int_equal(sofl_gso_segment_batch(gp, p, 5, NULL, res), SOFL_E_INVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_udpgso_table),
		cmocka_unit_test(test_udpgso_case11),
		cmocka_unit_test(test_tcp_flags),
		cmocka_unit_test(test_tcp_rules_direct),
		cmocka_unit_test(test_tcp_ipv6_exthdr),
		cmocka_unit_test(test_vlan_raw_options),
		cmocka_unit_test(test_input_csum_ignored),
		cmocka_unit_test(test_zero_checksum),
		cmocka_unit_test(test_passthrough),
		cmocka_unit_test(test_ipfrag),
		cmocka_unit_test(test_ipfrag6_ident),
		cmocka_unit_test(test_ipfrag6_long_chain),
		cmocka_unit_test(test_ipfrag6_dest_opts),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_exact_buffers),
		cmocka_unit_test(test_batch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
