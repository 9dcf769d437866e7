/* RSS / Toeplitz rows of bench_vs_dpdk: rte_softrss, rte_thash_gfni
 * against sofl_rss_* (vs.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "softoffload/softoffload.h"
#include "vs.h"
#include "softoffload/rss.h"
#include "../util.h"
#include "../../tests/helpers.h"
#include "dpdk_kern.h"

/* ---- RSS / Toeplitz rows ---- */

enum rss_kind {
	RK_SOFTRSS_GENERIC, RK_SOFTRSS_NATIVE, RK_SOFTRSS_BE_GENERIC, RK_SOFTRSS_BE_NATIVE,
	RK_GFNI, RK_GFNI_BULK,			/* DPDK, -march=native only */
	RK_OURS_ONE, RK_OURS_BULK, RK_OURS_BURST,	/* softoffload */
};

#define NTUPLE	1024
#define BULK	32

struct rss_arg {
	const uint8_t *tuples;		/* NTUPLE x tlen bytes */
	const void *const *ptr;		/* pointers to each tuple */
	const struct sofl_pkt *pkts;	/* the tuples as parsed TCP packets */
	const struct sofl_rss *eng;
	int tlen, kind;
	size_t loops;			/* passes over the NTUPLE tuples */
};

static const uint8_t ms_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

static uint64_t
ours_rss_pass(const struct rss_arg *a)
{
	uint32_t h[BULK], acc = 0;
	struct sofl_rss_out out[BULK];

	switch (a->kind) {
	case RK_OURS_ONE:
		for (size_t i = 0; i < NTUPLE; i++) {
			sofl_rss_hash_bytes(a->eng, a->tuples + i * (size_t)a->tlen,
					    (size_t)a->tlen, &h[0]);
			acc ^= h[0];
		}
		break;
	case RK_OURS_BULK:
		for (size_t i = 0; i < NTUPLE; i += BULK) {
			sofl_rss_hash_bytes_batch(a->eng, a->ptr + i, (size_t)a->tlen, BULK, h);
			for (int k = 0; k < BULK; k++)
				acc ^= h[k];
		}
		break;
	case RK_OURS_BURST:
		for (size_t i = 0; i < NTUPLE; i += BULK) {
			sofl_rss_pkt_batch(a->eng, a->pkts + i, BULK, out);
			for (int k = 0; k < BULK; k++)
				acc ^= out[k].hash;
		}
		break;
	}
	return acc;
}

static uint64_t
rss_pass(const struct rss_arg *a)
{
	const uint8_t *t = a->tuples;

	LAUNDER(t);
	switch (a->kind) {
	case RK_SOFTRSS_GENERIC:
		return dk_softrss_loop_generic(t, a->tlen, NTUPLE, ms_key);
	case RK_SOFTRSS_NATIVE:
		return dk_softrss_loop_native(t, a->tlen, NTUPLE, ms_key);
	case RK_SOFTRSS_BE_GENERIC:
		return dk_softrss_be_loop_generic(t, a->tlen, NTUPLE, ms_key);
	case RK_SOFTRSS_BE_NATIVE:
		return dk_softrss_be_loop_native(t, a->tlen, NTUPLE, ms_key);
	case RK_GFNI:
		return dk_thash_gfni_loop(t, a->tlen, NTUPLE);
	case RK_GFNI_BULK:
		return dk_thash_gfni_bulk_loop(t, a->tlen, NTUPLE);
	default:
		return ours_rss_pass(a);
	}
}

/* One repetition: the median of SLICES slices of a->loops / SLICES passes
 * (at least one) over the NTUPLE tuples, as m_csum(). */
static double
m_rss(void *arg)
{
	struct rss_arg *a = arg;
	size_t per = a->loops / SLICES ? a->loops / SLICES : 1;
	double v[SLICES];
	uint64_t t0, t1, acc;

	for (int k = 0; k < SLICES; k++) {
		acc = 0;
		t0 = tic();
		for (size_t l = 0; l < per; l++)
			acc ^= rss_pass(a);
		t1 = toc();
		bench_sink(acc);
		v[k] = ((double)(t1 - t0) - timer_ovh) / (double)(per * NTUPLE);
	}
	return ticks_median_ns(v, SLICES);
}

static struct sofl_rss *rss_table, *rss_gfni;

/* A TCP packet carrying tuple @t (src, dst, sport, dport as bytes). */
static void
tuple_pkt(const uint8_t *t, int tlen, uint8_t *frame, size_t cap, struct sofl_pkt *p)
{
	struct t_spec s;
	int al = tlen == 12 ? 4 : 16;
	size_t len;

	t_spec_init(&s, al == 4 ? 4 : 6, 6);
	memcpy(s.src, t, (size_t)al);
	memcpy(s.dst, t + al, (size_t)al);
	s.sport = sofl_get16(t + 2 * al);
	s.dport = sofl_get16(t + 2 * al + 2);
	len = t_build(frame, cap, &s);
	sofl_pkt_parse(p, frame, len, SOFL_LINK_ETH);
}

/* Microsoft's RSS verification suite, first rows */
static const uint8_t ms_v4[12] = { 66, 9, 149, 187, 161, 142, 100, 80, 0x0a, 0xea, 0x06, 0xe6 };
static const uint8_t ms_v6[36] = {
	0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x1f, 0xff, 0, 0, 0, 0, 0, 0, 0, 0x07,
	0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x00, 0x03, 0, 0, 0, 0, 0, 0, 0, 0x01,
	0x0a, 0xea, 0x06, 0xe6,
};

/* Every function must give the Microsoft vector's hash and agree on all
 * random tuples (as bytes, as parsed packets). */
static void
rss_check(const uint8_t *tuples, int tlen, const struct sofl_pkt *pkts, const char *fam)
{
	const uint8_t *kv = tlen == 36 ? ms_v6 : ms_v4;
	uint32_t want = tlen == 36 ? 0x40207d3du : 0x51ccc178u, h = 0, hg = 0;
	int gfni = dk_thash_gfni_built(), agree = 0;

	sofl_rss_hash_bytes(rss_table, kv, (size_t)tlen, &h);
	sofl_rss_hash_bytes(rss_gfni, kv, (size_t)tlen, &hg);
	check(dk_softrss_generic(kv, tlen, ms_key) == want &&
	      dk_softrss_native(kv, tlen, ms_key) == want &&
	      dk_softrss_be_generic(kv, tlen, ms_key) == want &&
	      dk_softrss_be_native(kv, tlen, ms_key) == want &&
	      (!gfni || dk_thash_gfni(kv, tlen) == want) && h == want && hg == want,
	      "rss %s Microsoft vector 0x%08x: DPDK and softoffload agree", fam, want);
	for (int i = 0; i < NTUPLE; i++) {
		const uint8_t *t = tuples + i * tlen;
		uint32_t a = 0, b = 0, c = dk_softrss_native(t, tlen, ms_key);
		struct sofl_rss_out out;

		sofl_rss_hash_bytes(rss_table, t, (size_t)tlen, &a);
		sofl_rss_hash_bytes(rss_gfni, t, (size_t)tlen, &b);
		sofl_rss_pkt(rss_table, &pkts[i], &out);
		agree += a == c && b == c && out.hash == c &&
			 dk_softrss_be_generic(t, tlen, ms_key) == c &&
			 (!gfni || dk_thash_gfni(t, tlen) == c);
	}
	check(agree == NTUPLE, "rss %s: %d/%d random tuples hash alike in every function", fam,
	      agree, NTUPLE);
}

/* The rows of one tuple length; portable compared with portable, SIMD with
 * SIMD. */
static void
rss_rows(const uint8_t *raw, int tlen)
{
	static const char *const kn[] = {
		"rte_softrss_%s_generic", "rte_softrss_%s_native", "rte_softrss_be_%s_generic",
		"rte_softrss_be_%s_native", "rte_thash_gfni_%s_native",
		"rte_thash_gfni_bulk32_%s_native",
	};
	const char *fam = tlen == 36 ? "ipv6_36B" : "ipv4_12B";
	uint8_t *packed = xalloc(NTUPLE * (size_t)tlen), *frames = xalloc(NTUPLE * 128);
	const void **ptr = xalloc(NTUPLE * sizeof(*ptr));
	struct sofl_pkt *pkts = xalloc(NTUPLE * sizeof(*pkts));
	int gfni_ours = sofl_rss_impl_available(SOFL_RSS_IMPL_GFNI);
	int d[RK_GFNI_BULK + 1], one[2] = { -1, -1 }, bulk[2] = { -1, -1 }, burst;
	struct rss_arg *a;

	for (int i = 0; i < NTUPLE; i++) {
		memcpy(packed + i * tlen, raw + i * 40, (size_t)tlen);
		ptr[i] = packed + i * tlen;
		tuple_pkt(packed + i * tlen, tlen, frames + i * 128, 128, &pkts[i]);
	}
	rss_check(packed, tlen, pkts, fam);
	for (int k = RK_SOFTRSS_GENERIC; k <= RK_GFNI_BULK; k++) {
		d[k] = -1;
		if (k >= RK_GFNI && !dk_thash_gfni_built())
			continue;
		a = xalloc(sizeof(*a));
		*a = (struct rss_arg){ packed, ptr, pkts, NULL, tlen, k, iters_for(tlen == 36 ? 8 : 20) };
		d[k] = add_row("rss", "hash", m_rss, a, 0, kn[k], fam);
	}
	for (int impl = 0; impl < 2; impl++) {
		const struct sofl_rss *e = impl ? rss_gfni : rss_table;
		const char *in = impl ? "gfni" : "table";

		if (impl && !gfni_ours)
			continue;
		a = xalloc(sizeof(*a));
		*a = (struct rss_arg){ packed, ptr, pkts, e, tlen, RK_OURS_ONE, iters_for(50) };
		one[impl] = add_row("rss", "hash", m_rss, a, 0, "sofl_rss_hash_bytes_%s_%s", fam, in);
		a = xalloc(sizeof(*a));
		*a = (struct rss_arg){ packed, ptr, pkts, e, tlen, RK_OURS_BULK, iters_for(50) };
		bulk[impl] = add_row("rss", "hash", m_rss, a, 0, "sofl_rss_hash_bulk32_%s_%s", fam, in);
	}
	a = xalloc(sizeof(*a));
	*a = (struct rss_arg){ packed, ptr, pkts, gfni_ours ? rss_gfni : rss_table, tlen,
			       RK_OURS_BURST, iters_for(50) };
	burst = add_row("rss", "hash", m_rss, a, 0, "sofl_rss_burst32_parsed_%s_%s", fam,
			sofl_rss_impl_name(a->eng));
	add_cmp(d[RK_SOFTRSS_GENERIC], one[0]);
	add_cmp(d[RK_SOFTRSS_BE_NATIVE], one[0]);
	add_cmp(d[RK_SOFTRSS_BE_NATIVE], bulk[0]);
	add_cmp(d[RK_GFNI], one[1]);
	add_cmp(d[RK_GFNI_BULK], bulk[1]);
	add_cmp(d[RK_GFNI_BULK], burst);
}

void
setup_rss(void)
{
	uint8_t *raw = xalloc(NTUPLE * 40);
	uint64_t seed = 0x5EED;

	struct sofl_rss_config cfg;

	sofl_rss_config_init(&cfg);
	cfg.key = ms_key;
	cfg.key_len = 40;
	if (sofl_rss_create(&cfg, &rss_table) != 0 || sofl_rss_create(&cfg, &rss_gfni) != 0 ||
	    sofl_rss_set_impl(rss_table, SOFL_RSS_IMPL_TABLE) != 0) {
		fprintf(stderr, "bench_vs_dpdk: sofl_rss_create failed\n");
		exit(2);
	}
	if (sofl_rss_impl_available(SOFL_RSS_IMPL_GFNI))
		sofl_rss_set_impl(rss_gfni, SOFL_RSS_IMPL_GFNI);
	dk_thash_gfni_prepare(ms_key);
	/* tuple i = the first 12 / 36 bytes of 5 splitmix64 outputs (40 bytes) */
	for (int i = 0; i < NTUPLE; i++)
		for (int k = 0; k < 5; k++) {
			uint64_t v = splitmix64(&seed);
			memcpy(raw + i * 40 + k * 8, &v, 8);
		}
	rss_rows(raw, 12);
	rss_rows(raw, 36);
}
