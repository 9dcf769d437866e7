/* GRO fast paths for runs of one held flow's segments: trains (a run of
 * one flow merged with its state in registers, train_more per ISA) and
 * weaves (interleaved flows merged with their state in strands), with
 * their software checksum checks (swck, sw_csums) and the AVX2 compares.
 * Entered from the receive loop in gro_rx.c by fast_train and fast_weave
 * (declared in gro_fast.h) for an input that passed fast_same. */
#include "gro_fast.h"

#if GRO_AVX2
/* A train's compare in 32-byte words (train_more_avx2): the first
 * segment's headers and the mask at 0, o1 and o2 = hl - 32 (32 <= hl <=
 * 96), or with @w4 (a tunnel's headers, 96 < hl <= MASK_LEN) at 0, 32, 64
 * and o3 = hl - 32, loaded once per train. */
struct ycmp {
	__m256i t0, t1, t2, t3, m0, m1, m2, m3;
	uint32_t o1, o2, o3;
};

#define YL(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
static inline __attribute__((target("avx2"))) void
ycmp_init(struct ycmp *y, const uint8_t *t, const uint8_t *m, uint32_t hl, const int w4,
	  const int big)
{
	y->o1 = w4 || big || hl >= 64 ? 32 : hl - 32;	/* (@big: hl >= 64, a constant) */
	y->o2 = w4 ? 64 : hl - 32;
	y->o3 = hl - 32;
	y->t0 = YL(t);
	y->t1 = YL(t + y->o1);
	y->t2 = YL(t + y->o2);
	y->m0 = YL(m);
	y->m1 = YL(m + y->o1);
	y->m2 = YL(m + y->o2);
	if (w4) {
		y->t3 = YL(t + y->o3);
		y->m3 = YL(m + y->o3);
	}
}

/* masked headers equal */
static inline __attribute__((target("avx2"))) int
ycmp_same(const struct ycmp *y, const uint8_t *d, const int w4)
{
	__m256i x = _mm256_and_si256(y->m0, _mm256_xor_si256(y->t0, YL(d)));

	x = _mm256_or_si256(x, _mm256_and_si256(y->m1, _mm256_xor_si256(y->t1, YL(d + y->o1))));
	x = _mm256_or_si256(x, _mm256_and_si256(y->m2, _mm256_xor_si256(y->t2, YL(d + y->o2))));
	if (w4)
		x = _mm256_or_si256(x, _mm256_and_si256(y->m3, _mm256_xor_si256(y->t3, YL(d + y->o3))));
	return _mm256_testz_si256(x, x);
}
#undef YL
#endif

#if GRO_AVX2
/* A train input's length, flags and rx hash, its words at 8, 12 and 16
 * (the fourth lane is the padding before the cookie: masked out), are
 * @e's under mask @m */
static inline __attribute__((target("avx2"))) int
lanes_same(const struct sofl_gro_in *p, __m128i e, __m128i m)
{
	return _mm_testz_si128(_mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)&p->len),
					     e), m);
}

_Static_assert(offsetof(struct sofl_gro_in, flags) == offsetof(struct sofl_gro_in, len) + 4 &&
	       offsetof(struct sofl_gro_in, hash) == offsetof(struct sofl_gro_in, len) + 8 &&
	       offsetof(struct sofl_gro_in, cookie) >= offsetof(struct sofl_gro_in, len) + 16,
	       "struct sofl_gro_in: len, flags, hash in one 16-byte load");
#endif

/* A held TCP flow's checksums as the trains and weaves verify them in
 * software: the TCP checksum summed from off (the pseudo-header's
 * addresses, l4_sum_ok()) to the end of a full-size segment, len bytes,
 * plus sum (protocol and length); len 0: another layout (fast_csums()). */
struct swck {
	uint32_t sum, off, len;
	uint16_t l3;		/* the IPv4 header, v4 */
	uint8_t v4;
};

HOT void
swck_init(struct swck *c, const struct flow *f)
{
	const uint32_t l3len = (uint32_t)f->l4_off - f->l3_off;
	const struct l4span sp = l4_span(f->ipv, 6, (uint32_t)f->hdr_len - f->l4_off + f->mss);

	c->v4 = f->ipv == 4;
	c->l3 = f->l3_off;
	c->off = f->l3_off + sp.off;
	c->len = l3len == (c->v4 ? 20u : 40u) ? sp.len : 0;
	c->sum = sp.sum;
}

/* fast_csums() for a segment @d (flags @fl) of held flow @fi in a train or
 * weave, with its layout @c: 1 when they pass, counted in @nip and @nl4
 * (added to the statistics when the loop ends) */
HOT int
sw_csums_c(struct sofl_gro *g, uint32_t fi, const struct swck *c, const uint8_t *d, uint32_t fl,
	   uint32_t *nip, uint32_t *nl4)
{
	const int sw_ip = c->v4 && !(fl & SOFL_GRO_F_IPCSUM_OK);

	if (!c->len)	/* IPv4 options, IPv6 extension headers */
		return fast_csums(g, &g->flows[fi], d, fl);
	if ((sw_ip && !ip4_csum_ok(d + c->l3)) ||
	    (!(fl & SOFL_GRO_F_CSUM_OK) && !csum_ok(c->sum, d + c->off, c->len)))
		return 0;
	*nl4 += !(fl & SOFL_GRO_F_CSUM_OK);
	*nip += (uint32_t)sw_ip;
	return 1;
}

/* sw_csums_c() out of line: what keeps the loops small (the kernel is a
 * call anyway) */
static __attribute__((noinline)) int
sw_csums(struct sofl_gro *g, uint32_t fi, const struct swck *c, const uint8_t *d, uint32_t fl,
	 uint32_t *nip, uint32_t *nl4)
{
	return sw_csums_c(g, fi, c, d, fl, nip, nl4);
}

/* sw_csums() for a segment @d (@len bytes) of tunnel flow @fi: the outer
 * checksums first (tun_fast_csums: the outer IPv4 header's, a non-zero
 * outer UDP checksum, each unless flagged verified), then the inner ones;
 * the outer ones counted in @nip and @nout when all pass */
static __attribute__((noinline)) int
sw_csums_tun(struct sofl_gro *g, uint32_t fi, const struct swck *c, const uint8_t *d, uint32_t len,
	     uint32_t fl, uint32_t *nip, uint32_t *nl4, uint32_t *nout)
{
	uint32_t oip, oout;

	if (!tun_fast_csums(g, &g->tun[fi], d, len, fl, &oip, &oout))
		return 0;
	if ((fl & (SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK)) !=
	    (SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK) && !sw_csums_c(g, fi, c, d, fl, nip, nl4))
		return 0;
	*nip += oip;
	*nout += oout;
	return 1;
}

/* An input's flags and rx hash as a train's flow @fi needs them (@h its
 * hash; @c, @nip, @nl4: sw_csums): the usual case — hash, the checksums
 * verified — in one compare.  @ock: a tunnel flow's outer checksum flag
 * (SOFL_GRO_F_OUTER_CSUM_OK when its outer UDP checksum is not zero, else
 * 0), @nout its count (sw_csums_tun); -1: not a tunnel flow. */
HOT int
train_flags_ok(struct sofl_gro *g, uint32_t fi, const struct sofl_gro_in *p, const uint8_t *d,
	       uint32_t h, const struct swck *c, uint32_t *nip, uint32_t *nl4, const int ock,
	       uint32_t *nout)
{
	const uint32_t ck = SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK | (ock > 0 ? (uint32_t)ock : 0u);
	const uint32_t all = SOFL_GRO_F_HASH | ck;

	if ((p->flags & all) == all)
		return p->hash == h;
	if (((p->flags & SOFL_GRO_F_HASH) ? p->hash : 0) != h)
		return 0;
	if ((p->flags & ck) == ck)
		return 1;
	return ock >= 0 ? sw_csums_tun(g, fi, c, d, p->len, p->flags, nip, nl4, nout) :
			  sw_csums(g, fi, c, d, p->flags, nip, nl4);
}

/* The rest of a train, from in[i] on: fast_same's test with the first
 * segment's headers and the mask in registers (@nck 16-byte words: 5 for
 * headers up to 80 bytes, 6 up to 96; 32 or 128: 32-byte words, AVX2,
 * headers up to 96 or 128 bytes; 0: compared from memory), @v4 the flow's
 * IP version is 4, @pre (train_more_avx2 only) a train of inputs flagged
 * verified: one that is not ends it (the caller's way takes it), so the
 * loop holds no software checksum path, and an input's length, flags and
 * rx hash are one compare.  @tun: a tunnel flow (fast_same_x's tunnel
 * tests too: tun_fast_same's outer IPv4 ID and non-zero outer checksum,
 * the outer checksums verified by sw_csums_tun or flagged).  The size limit (#26) is turned into
 * a segment count once; the train's state is in locals (registers: the
 * loop walks a pointer, its offsets are address-sized, the count and IP
 * length follow from the inputs taken) written back at the end.  @return
 * the index of the first input not merged. */
HOT size_t
train_loop(struct sofl_gro *g, const struct flow *f, struct train *rp, const struct sofl_gro_in *in,
	   size_t i, size_t n, const int nck, const int v4, const int pre, const int tun)
{
	struct train r = *rp;
	const uint8_t *t = fhdr(f), *m = g->mask_b[tun ? f->mk & ~MK_T : f->mk];
	const uint32_t hl = r.hl, full = hl + r.mss, h = f->hash, mss = r.mss;
	const size_t idoff = f->l3_off + 4u, seqo = f->l4_off + 4u;	/* (address offsets) */
	const uint32_t fi = (uint32_t)(f - g->flows);
	const uint16_t idm = rule_id_mask(g), idinc = r.idinc;
	uint32_t room = r.iplen < r.max ? (r.max - r.iplen) / r.mss : 0, nip = 0, nl4 = 0;
	uint32_t seq = r.seq, fs = r.fs, si = r.tail;
	uint16_t id = r.id;
	uint8_t fl = r.flags;
	/* a tunnel flow's outer header: its IPv4 ID (0: IPv6), the UDP checksum
	 * that must stay non-zero (0: zero, in the mask, or IP-in-IP) */
	struct tflow *const tf = tun ? &g->tun[fi] : NULL;
	const size_t oido = tun && tf->ov == 4 ? tf->o3 + 4u : 0;
	const size_t ocko = tun && tf->o4 && tf->ocsum ? tf->o4 + 6u : 0;
	const int ock = tun ? (ocko ? SOFL_GRO_F_OUTER_CSUM_OK : 0) : -1;
	/* (the outer ID lives in the tunnel state, not the train: the plain
	 * trains' and weaves' state stays as small as before tunnels) */
	uint16_t oid = tun ? tf->next_oid : 0;
	const uint16_t oidinc = tun ? rule_id_next(0, tf->ofixed) : 0;
	uint32_t nout = 0;
	struct seg *const segs = g->segs;
	const struct sofl_gro_in *p = in + i, *const p0 = p, *const pend = n - i < room ? in + n :
								     p + room;
	struct swck c;
#if defined(__SSE2__)
	const uint32_t o2 = hl < 48 ? hl - 16 : 32, o3 = hl < 64 ? hl - 16 : 48;
	const uint32_t o4 = nck == 5 ? hl - 16 : 64, o5 = hl - 16;
	__m128i t0, t1, t2, t3, t4, t5, m0, m1, m2, m3, m4, m5;

#define TL(o) _mm_loadu_si128((const __m128i *)(const void *)(t + (o)))
#define ML(o) _mm_loadu_si128((const __m128i *)(const void *)(m + (o)))
	if (nck == 5 || nck == 6) {
		t0 = TL(0), t1 = TL(16), t2 = TL(o2), t3 = TL(o3), t4 = TL(o4), t5 = TL(o5);
		m0 = ML(0), m1 = ML(16), m2 = ML(o2), m3 = ML(o3), m4 = ML(o4), m5 = ML(o5);
	}
#undef TL
#undef ML
#endif
#if GRO_AVX2
	struct ycmp y;
	/* @pre: the frame length, the checksum flags and the first input's
	 * HASH flag, and its hash */
	const uint32_t kf = SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK | SOFL_GRO_F_HASH |
			    (ock > 0 ? (uint32_t)ock : 0u);
	const uint32_t hf = i < n ? in[i].flags & SOFL_GRO_F_HASH : 0;
	const __m128i km = _mm_setr_epi32(-1, (int)kf, hf ? -1 : 0, 0);
	const __m128i ke = _mm_setr_epi32((int)full, (int)(kf & ~SOFL_GRO_F_HASH) | (int)hf,
					  hf ? (int)h : 0, 0);

	if (nck == 32 || nck == 64 || nck == 128)
		ycmp_init(&y, t, m, hl, nck == 128, nck == 64);
#endif
	/* a train of inputs flagged verified needs no layout (if one is not,
	 * len 0 sends it to fast_csums) */
	memset(&c, 0, sizeof(c));
	if (!pre && i < n && !(in[i].flags & SOFL_GRO_F_CSUM_OK))
		swck_init(&c, f);
	for (; p < pend; p++) {
		const uint8_t *d = p->data;

#if GRO_AVX2
		/* (one test: gcc computes the lanes' result without a branch
		 * and branches on the frame; with two tests, the NULL frame's
		 * first, W1 pre-verified took 1.06-1.12x the time, Zen 5) */
		if (pre) {
			if (!lanes_same(p, ke, km) || !d)
				break;
		} else
#endif
		if (p->len != full || !d)
			break;
#if GRO_AVX2
		if (nck == 32 || nck == 64 || nck == 128) {
			if (!ycmp_same(&y, d, nck == 128))
				break;
		} else
#endif
#if defined(__SSE2__)
		if (nck) {
#define DX(o, tt, mm) _mm_and_si128(mm, _mm_xor_si128(tt, \
			_mm_loadu_si128((const __m128i *)(const void *)(d + (o)))))
			__m128i x = _mm_or_si128(_mm_or_si128(DX(0, t0, m0), DX(16, t1, m1)),
						 _mm_or_si128(DX(o2, t2, m2), DX(o3, t3, m3)));
			x = _mm_or_si128(x, DX(o4, t4, m4));
			if (nck == 6)
				x = _mm_or_si128(x, DX(o5, t5, m5));
#undef DX
			if (_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_setzero_si128())) != 0xffff)
				break;
		} else if (!same_masked(t, d, m, hl)) {
			break;
		}
#else
		if (!same_masked(t, d, m, hl))
			break;
#endif
		if (!rule_seq_ok(sofl_get32(d + seqo), seq) ||
		    (v4 && !rule_id_ok(sofl_get16(d + idoff), id, idm)))
			break;
		if (tun && ((ocko && !sofl_get16(d + ocko)) ||
			    (oido && !rule_id_ok(sofl_get16(d + oido), oid, idm))))
			break;
		if (!pre && !train_flags_ok(g, fi, p, d, h, &c, &nip, &nl4, ock, &nout))
			break;
		/* train_push: the free list's head entry, already linked from
		 * the train's tail (the last entry taken, whose next is the
		 * head); train_commit ends the chain */
		si = fs;
		fs = segs[si].next;
		segs[si].pay = d + hl;
		segs[si].len = mss;
		segs[si].cookie = p->cookie;
		seq += mss;
		id = (uint16_t)(id + idinc);
		if (tun)
			oid = (uint16_t)(oid + oidinc);
		fl = d[seqo + 9];	/* the flags byte (13) */
		if (fl & (SOFL_TCP_FIN | SOFL_TCP_PSH)) {
			p++;
			break;
		}
	}
	r.cnt += (uint32_t)(p - p0);
	r.iplen += seq - r.seq;
	r.seq = seq;
	r.id = id;
	r.fs = fs;
	r.tail = si;
	r.flags = fl;
	g->st.csum_sw_ip += nip;
	g->st.csum_sw_l4 += nl4;
	g->st.csum_sw_outer += nout;
	if (tun)
		tf->next_oid = oid;
	*rp = r;
	return (size_t)(p - in);
}

#if GRO_AVX2
/* train_more() for headers of 32..96 bytes on a CPU with AVX2, inputs
 * flagged verified */
static __attribute__((noinline, target("avx2"))) size_t
train_more_avx2(struct sofl_gro *g, const struct flow *f, struct train *r,
		const struct sofl_gro_in *in, size_t i, size_t n)
{
	/* (64: headers of 64..96 bytes, the second word's offset a constant:
	 * one register more for the loop) */
	if (f->ipv == 4)
		return r->hl >= 64 ? train_loop(g, f, r, in, i, n, 64, 1, 1, 0) :
				     train_loop(g, f, r, in, i, n, 32, 1, 1, 0);
	return r->hl >= 64 ? train_loop(g, f, r, in, i, n, 64, 0, 1, 0) :
			     train_loop(g, f, r, in, i, n, 32, 0, 1, 0);
}

/* train_more_tun() on a CPU with AVX2, inputs flagged verified: headers of
 * 32..96 bytes (IP-in-IP) or 97..MASK_LEN (VXLAN, Geneve) */
static __attribute__((noinline, target("avx2"))) size_t
train_more_tun_avx2(struct sofl_gro *g, const struct flow *f, struct train *r,
		    const struct sofl_gro_in *in, size_t i, size_t n)
{
	if (r->hl > 96)
		return train_loop(g, f, r, in, i, n, 128, f->ipv == 4, 1, 1);
	return train_loop(g, f, r, in, i, n, 32, f->ipv == 4, 1, 1);
}
#endif

/* train_more() for a tunnel flow (its mask's MK_T) */
__attribute__((noinline)) size_t
train_more_tun(struct sofl_gro *g, const struct flow *f, struct train *r,
	       const struct sofl_gro_in *in, size_t i, size_t n)
{
	const struct tflow *t = &g->tun[f - g->flows];
	const uint32_t ck = SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK |
			    (t->o4 && t->ocsum ? SOFL_GRO_F_OUTER_CSUM_OK : 0u);

#if GRO_AVX2
	/* (longer headers: compared from memory, same_masked) */
	if (g->isa && r->hl >= 32 && r->hl <= 128 && (in[i].flags & ck) == ck)
		return train_more_tun_avx2(g, f, r, in, i, n);
#else
	(void)ck;
#endif
	return train_loop(g, f, r, in, i, n, 0, f->ipv == 4, 0, 1);
}

__attribute__((noinline)) size_t
train_more(struct sofl_gro *g, const struct flow *f, struct train *r, const struct sofl_gro_in *in,
	   size_t i, size_t n)
{
	/* TCP checksums to verify: a checksum call per segment would cost a
	 * loop holding the headers in vector registers a spill and reload
	 * each time, and the compare from memory costs less */
	if (!(in[i].flags & SOFL_GRO_F_CSUM_OK))
		return f->ipv == 4 ? train_loop(g, f, r, in, i, n, 0, 1, 0, 0) :
				     train_loop(g, f, r, in, i, n, 0, 0, 0, 0);
#if GRO_AVX2
	if (g->isa && r->hl >= 32 && r->hl <= 96 && (in[i].flags & SOFL_GRO_F_IPCSUM_OK))
		return train_more_avx2(g, f, r, in, i, n);
#endif
	if (f->ipv == 4)
		return r->hl <= 80 ? train_loop(g, f, r, in, i, n, 5, 1, 0, 0) :
		       r->hl <= 96 ? train_loop(g, f, r, in, i, n, 6, 1, 0, 0) :
				     train_loop(g, f, r, in, i, n, 0, 1, 0, 0);
	return r->hl <= 80 ? train_loop(g, f, r, in, i, n, 5, 0, 0, 0) :
	       r->hl <= 96 ? train_loop(g, f, r, in, i, n, 6, 0, 0, 0) :
			     train_loop(g, f, r, in, i, n, 0, 0, 0, 0);
}

/* fast_train_x() of a tunnel flow, out of line (gro_fast.h) */
__attribute__((noinline)) size_t
fast_train_tun(struct sofl_gro *g, const struct sofl_gro_in *in, size_t i, size_t n, uint32_t fi)
{
	return fast_train_x(g, in, i, n, fi, 1);
}

/* ---- weaves ----
 * Interleaved flows (a NIC queue's usual mix: segments of a few flows in
 * turn) give trains of one.  A weave merges such a run with the state of up
 * to WEAVE flows in strands (locals), each found by its rx hash, instead of
 * a table lookup and the flow's fields per input: fast_find's test with the
 * strand's values, then the segment appended.  The first input that is not
 * the next segment of a strand's flow (or of another held flow, which then
 * gets a strand), or a PSH/FIN segment (merged, then its flow completed),
 * ends the weave, every strand written back; the inputs are taken in order,
 * so what is delivered and when is exactly what fast_one() input by input
 * gives.  A weave starts only where the rotation is short enough to repay
 * its strands (weave_worth). */

struct strand {
	struct train r;		/* the flow's state, as a train's (r.fs unused:
				 * the weave's strands share one free list) */
	const uint8_t *t, *m;	/* the first segment's headers, the mask */
	uint32_t h, fi, full, first;	/* hash, flow, frame length, first new segment */
	uint16_t seqo, l3;
	int v4;
	struct swck ck;
};

/* A strand for held flow @fi (fast_same passed: its mask is set) */
HOT void
strand_open(const struct sofl_gro *g, struct strand *s, uint32_t fi)
{
	const struct flow *f = &g->flows[fi];

	train_begin(g, f, &s->r, NULL);
	s->t = fhdr(f);
	s->m = g->mask_b[f->mk];
	s->h = f->hash;
	s->fi = fi;
	s->full = (uint32_t)f->hdr_len + f->mss;
	s->first = NIL;
	s->seqo = (uint16_t)(f->l4_off + 4);
	s->l3 = f->l3_off;
	s->v4 = f->ipv == 4;
	swck_init(&s->ck, f);
}

#if GRO_AVX2
/* masked headers equal, in 32-byte words from memory (32 <= hl <= 96) */
static inline __attribute__((target("avx2"))) int
same_masked_y(const uint8_t *t, const uint8_t *d, const uint8_t *m, uint32_t hl)
{
#define YL(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define YX(o) _mm256_and_si256(YL(m + (o)), _mm256_xor_si256(YL(t + (o)), YL(d + (o))))
	const uint32_t o1 = hl < 64 ? hl - 32 : 32, o2 = hl - 32;
	__m256i x = _mm256_or_si256(_mm256_or_si256(YX(0), YX(o1)), YX(o2));

	return _mm256_testz_si256(x, x);
#undef YX
#undef YL
}
#endif

/* The weave from in[i] (it passed fast_same for held flow @fi): @y compares
 * in 32-byte words (AVX2, headers of 32..96 bytes).  @return the index of
 * the first input not merged (i: none was). */
HOT size_t
weave_loop(struct sofl_gro *g, const struct sofl_gro_in *in, size_t i, size_t n, uint32_t fi,
	   uint32_t *donep, const int y)
{
	struct strand s[WEAVE], *st;
	const uint16_t idm = rule_id_mask(g);
	uint32_t fs = g->free_seg, last = fi, done = NIL, nip = 0, nl4 = 0;
	int k = 1, x;

	strand_open(g, &s[0], fi);
	for (x = 0; i < n; i++) {
		const struct sofl_gro_in *p = &in[i];
		const uint8_t *d = p->data;
		const uint32_t h = (p->flags & SOFL_GRO_F_HASH) ? p->hash : 0;

		/* flows in turn: the strand after the last one first */
		if (s[x].h != h && (++x == k || s[x].h != h)) {
			for (x = 0; x < k && s[x].h != h; x++)
				;
			if (x == k) {	/* another held flow's next segment? */
				if (k == WEAVE || !d || (fi = fast_find(g, p, h)) == NIL ||
				    (g->flows[fi].mk & MK_T) ||	/* (fast_one's) */
				    (y && (g->flows[fi].hdr_len < 32 || g->flows[fi].hdr_len > 96)))
					break;	/* (the 32-byte compare's lengths) */
				strand_open(g, &s[k++], fi);
			}
		}
		st = &s[x];
		if (p->len != st->full || !d || st->r.iplen + st->r.mss > st->r.max)
			break;	/* (#26) */
#if GRO_AVX2
		if (y ? !same_masked_y(st->t, d, st->m, st->r.hl) :
			!same_masked(st->t, d, st->m, st->r.hl))
			break;
#else
		(void)y;
		if (!same_masked(st->t, d, st->m, st->r.hl))
			break;
#endif
		if (!rule_seq_ok(sofl_get32(d + st->seqo), st->r.seq) ||
		    (st->v4 && !rule_id_ok(sofl_get16(d + st->l3 + 4), st->r.id, idm)))
			break;
		if ((p->flags & (SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK)) !=
		    (SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK) &&
		    !sw_csums(g, st->fi, &st->ck, d, p->flags, &nip, &nl4))
			break;
		train_push(g, &st->r, &fs, p, d[st->seqo + 9]);	/* (fs shared) */
		if (st->first == NIL)
			st->first = st->r.tail;
		last = st->fi;
		if (st->r.flags & (SOFL_TCP_FIN | SOFL_TCP_PSH)) {
			g->flows[st->fi].orflags |= st->r.flags & (SOFL_TCP_FIN | SOFL_TCP_PSH);
			done = st->fi;
			i++;
			break;
		}
	}
	g->free_seg = fs;
	g->st.csum_sw_ip += nip;
	g->st.csum_sw_l4 += nl4;
	for (x = 0; x < k; x++)
		if (s[x].first != NIL)
			train_commit(g, &g->flows[s[x].fi], &s[x].r, s[x].first, NULL);
	g->last_fi = last;
	*donep = done;
	return i;
}

#if GRO_AVX2
static __attribute__((noinline, target("avx2"))) size_t
weave_avx2(struct sofl_gro *g, const struct sofl_gro_in *in, size_t i, size_t n, uint32_t fi,
	   uint32_t *done)
{
	return weave_loop(g, in, i, n, fi, done, 1);
}
#endif

/* A weave (see above) from in[i], which passed fast_same for held flow @fi;
 * a flow it ended with PSH or FIN completed (#24) */
__attribute__((noinline)) size_t
fast_weave(struct sofl_gro *g, const struct sofl_gro_in *in, size_t i, size_t n, uint32_t fi)
{
	uint32_t done;
#if GRO_AVX2
	const uint32_t hl = g->flows[fi].hdr_len;

	if (g->isa && hl >= 32 && hl <= 96)
		i = weave_avx2(g, in, i, n, fi, &done);
	else
#endif
		i = weave_loop(g, in, i, n, fi, &done, 0);
	if (done != NIL)
		gro_complete(g, done, SOFL_GRO_FLUSH_PSH_FIN);
	return i;
}
