/* GRO receive loops and their fast paths: trains, weaves, fast holds and
 * bypasses, per ISA behind a run-time check (sofl_gro_set_isa). */
#include "gro_rules.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if GRO_AVX2
#include <immintrin.h>
#endif

/* fast_merge's masks: for a header layout (L3 offset, IP version, L3 and
 * TCP header lengths), byte i of the mask keeps the bits of header byte i
 * that a mergeable segment must have as the flow's first segment: all but
 * the IPv4 ID and checksum, the TCP sequence number (ID and sequence number
 * are checked apart), PSH and FIN, the TCP checksum and urgent pointer
 * (which Linux ignores too).  The IP length fields stay: fast_same takes
 * full-size segments only, whose lengths are the first segment's (a held
 * first segment has no padding: ip_end == len).  The IP and TCP header
 * bytes are the engine's rules (ip4_same, ip6_same, tcp_same: the tables
 * network_flush and tcp_flush compare under) plus what the fast path needs
 * equal for the other rules (gro_ip4_fast, gro_ip6_fast, gro_tcp_fast).
 * A few layouts cover a queue's traffic, so they live in the engine
 * (cached) rather than in each flow.  @return the mask's index, or NO_MASK
 * (header longer than MASK_LEN or shorter than 32, table full). */
static uint8_t
mask_for(struct sofl_gro *g, const struct flow *f, const struct tflow *t)
{
	uint32_t key = (uint32_t)f->l3_off << 24 | (uint32_t)f->ipv << 16 |
		       (uint32_t)f->l3_len << 8 | f->l4_len, i;
	uint8_t *m;

	if (t)	/* a tunnel layout: the outer one in the key too */
		key = MK_TUN | (uint32_t)f->l3_off << 23 | (uint32_t)(f->l4_len >> 2) << 19 |
		      (uint32_t)(f->ipv == 6) << 18 | (uint32_t)(f->l3_len >> 3) << 13 |
		      (uint32_t)t->o3 << 8 | (uint32_t)(t->ov == 6) << 7 |
		      (uint32_t)(t->ocsum != 0) << 6 | (uint32_t)(t->o4 == 0) << 5;

	if (f->hdr_len > MASK_LEN || f->hdr_len < 32)
		return NO_MASK;
	for (i = 0; i < g->nmask; i++)
		if (g->mask_key[i] == key)
			return (uint8_t)i;
	if (g->nmask == NMASK)
		return NO_MASK;
	m = g->mask_b[g->nmask];
	memset(m, 0xff, MASK_LEN);
	if (f->ipv == 4)
		for (i = 0; i < 20; i++)	/* the rules' bits, then the rest */
			m[f->l3_off + i] = g->ip4_same[i] | gro_ip4_fast[i];
	else
		for (i = 0; i < 8; i++)
			m[f->l3_off + i] = g->ip6_same[i] | gro_ip6_fast[i];
	for (i = 0; i < f->l4_len; i++)	/* the header and its options */
		m[f->l4_off + i] = g->tcp_same[i] | gro_tcp_fast[i];
	if (t) {	/* the outer IP header by the same rules; a non-zero outer
			 * UDP checksum verified apart (zero: must stay zero) */
		if (t->ov == 4)
			for (i = 0; i < 20; i++)
				m[t->o3 + i] = g->ip4_same[i] | gro_ip4_fast[i];
		else
			for (i = 0; i < 8; i++)
				m[t->o3 + i] = g->ip6_same[i] | gro_ip6_fast[i];
		if (t->o4 && t->ocsum)
			m[t->o4 + 6] = m[t->o4 + 7] = 0;
	}
	g->mask_key[g->nmask] = key;
	return (uint8_t)g->nmask++;
}

/* ---- fast merge ----
 * The next segment of a held TCP flow, decided without parsing it: its
 * header bytes are compared with the flow's first segment's (fhdr) under a
 * mask (mask_for) that lets through only what may differ between mergeable
 * segments, and its length, IPv4 ID and sequence number with the values a
 * full-size next segment has.  Equal masked headers give the packet the
 * flow's parse (same layers, offsets, options), its flow key (so the flow
 * is the lookup's only match), and pass every rule of tcp_flush and
 * network_flush but the size limit; what is left are the checksums.
 * Anything else — a short segment, the second segment of a fixed-ID flow, a
 * gap, a changed header — goes the general way (classify, tcp_rx), which
 * then decides exactly as before: the fast path changes nothing until it
 * has decided to merge.  Consecutive inputs of one flow are merged as a
 * train (fast_train), the flow's state in registers. */

#if defined(__SSE2__)
static inline __m128i
mx16(const uint8_t *a, const uint8_t *b, const uint8_t *m)
{
	return _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)m),
			     _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)a),
					   _mm_loadu_si128((const __m128i *)(const void *)b)));
}

/* Masked a == b over n bytes, 32 <= n <= MASK_LEN: 16 bytes at a time, the
 * last 16 ending at n (overlap is harmless: masks are positional). */
HOT int
same_masked(const uint8_t *a, const uint8_t *b, const uint8_t *m, unsigned n)
{
	__m128i x = _mm_or_si128(mx16(a, b, m), mx16(a + 16, b + 16, m + 16));

	x = _mm_or_si128(x, mx16(a + n - 16, b + n - 16, m + n - 16));
	if (n > 48)
		x = _mm_or_si128(x, mx16(a + 32, b + 32, m + 32));
	if (n > 64)
		x = _mm_or_si128(x, mx16(a + 48, b + 48, m + 48));
	if (n > 80)
		x = _mm_or_si128(x, mx16(a + 64, b + 64, m + 64));
	if (n > 96)
		x = _mm_or_si128(x, mx16(a + 80, b + 80, m + 80));
	if (n > 112)
		x = _mm_or_si128(x, mx16(a + 96, b + 96, m + 96));
	return _mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_setzero_si128())) == 0xffff;
}
#else
HOT int
same_masked(const uint8_t *a, const uint8_t *b, const uint8_t *m, unsigned n)
{
	uint64_t x = 0;
	unsigned i;

	for (i = 0; i + 8 < n; i += 8)
		x |= (ld64(a + i) ^ ld64(b + i)) & ld64(m + i);
	i = n - 8;
	return !(x | ((ld64(a + i) ^ ld64(b + i)) & ld64(m + i)));
}
#endif

#if GRO_AVX2
/* A train's compare in 32-byte words (train_more_avx2, train_more_avx512):
 * the first segment's headers and the mask at 0, o1 and o2 = hl - 32
 * (32 <= hl <= 96), loaded once per train. */
struct ycmp {
	__m256i t0, t1, t2, m0, m1, m2;
	uint32_t o1, o2;
};

static inline __attribute__((target("avx2"))) void
ycmp_init(struct ycmp *y, const uint8_t *t, const uint8_t *m, uint32_t hl)
{
#define YL(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
	y->o1 = hl < 64 ? hl - 32 : 32;
	y->o2 = hl - 32;
	y->t0 = YL(t);
	y->t1 = YL(t + y->o1);
	y->t2 = YL(t + y->o2);
	y->m0 = YL(m);
	y->m1 = YL(m + y->o1);
	y->m2 = YL(m + y->o2);
}

/* masked headers equal */
static inline __attribute__((target("avx2"))) int
ycmp_same(const struct ycmp *y, const uint8_t *d)
{
	__m256i x = _mm256_and_si256(y->m0, _mm256_xor_si256(y->t0, YL(d)));

	x = _mm256_or_si256(x, _mm256_and_si256(y->m1, _mm256_xor_si256(y->t1, YL(d + y->o1))));
	x = _mm256_or_si256(x, _mm256_and_si256(y->m2, _mm256_xor_si256(y->t2, YL(d + y->o2))));
	return _mm256_testz_si256(x, x);
#undef YL
}
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

/* When a held flow is first compared: its mask, and the next IPv4 ID
 * (merges the general way keep it up to date from then on).  A TCP flow
 * whose first segment has CWR gets no fast path (no segment joins it: #18).
 * 0: no fast path for @f. */
static int
fast_setup(struct sofl_gro *g, struct flow *f)
{
	const uint8_t *h = fhdr(f);
	struct tflow *t = f->l3_off > TUN_L3(g) ? &g->tun[f - g->flows] : NULL;

	if (t && !t->ov)
		t = NULL;
	if (f->proto != 6 || (h[f->l4_off + 13] & SOFL_TCP_CWR))
		f->mk = NO_MASK;
	else if ((f->mk = mask_for(g, f, t)) != NO_MASK && t)
		f->mk |= MK_T;
	f->next_id = rule_id_want(sofl_get16(h + f->l3_off + 4), f->count, f->fixedid);
	if (t)
		t->next_oid = rule_id_want(sofl_get16(h + t->o3 + 4), f->count, t->ofixed);
	return f->mk != NO_MASK;
}

/* A tunnel flow's fast-path tests beyond the masked compare: the outer
 * IPv4 ID is the next one (#14 on the outer header: rule_id_ok), and a
 * non-zero outer checksum stays non-zero (zero and non-zero are two flows;
 * the mask leaves that field out). */
static inline __attribute__((always_inline)) int
tun_fast_same(const struct sofl_gro *g, const struct flow *f, const uint8_t *d)
{
	const struct tflow *t = &g->tun[f - g->flows];

	if (t->ocsum && !sofl_get16(d + t->o4 + 6))
		return 0;
	return t->ov != 4 || rule_id_ok(sofl_get16(d + t->o3 + 4), t->next_oid, rule_id_mask(g));
}

/* A tunnel flow's outer checksums for a fast merge of @d (@len bytes,
 * input flags @fl): the outer IPv4 header's unless SOFL_GRO_F_IPCSUM_OK, a
 * non-zero outer UDP checksum unless SOFL_GRO_F_OUTER_CSUM_OK; 1 when they
 * pass, with the counts in *nip, *nout (added once the merge is decided). */
static inline __attribute__((always_inline)) int
tun_fast_csums(const struct sofl_gro *g, const struct tflow *t, const uint8_t *d, uint32_t len,
	       uint32_t fl, uint32_t *nip, uint32_t *nout)
{
	(void)g;
	*nip = *nout = 0;
	if (t->ov == 4 && !(fl & SOFL_GRO_F_IPCSUM_OK)) {
		if (!ip4_csum_ok(d + t->o3))
			return 0;
		*nip = 1;
	}
	if (t->ocsum && !(fl & SOFL_GRO_F_OUTER_CSUM_OK)) {
		if (!l4_sum_ok(t->ov, d + t->o3, 17, (uint32_t)(t->o4 - t->o3), len - t->o4))
			return 0;
		*nout = 1;
	}
	return 1;
}

/* fast_same() past its first tests, @f's mask set (@tun: a tunnel flow's,
 * a constant: the plain variant carries none of the tunnel's tests) */
static inline __attribute__((always_inline)) int
fast_same_x(const struct sofl_gro *g, const struct flow *f, const uint8_t *d, const int tun)
{
	return same_masked(fhdr(f), d, g->mask_b[tun ? f->mk & ~MK_T : f->mk], f->hdr_len) &&
	       rule_seq_ok(sofl_get32(d + f->l4_off + 4), f->next_seq) &&
	       (f->ipv != 4 || rule_id_ok(sofl_get16(d + f->l3_off + 4), f->next_id, rule_id_mask(g))) &&
	       (!tun || tun_fast_same(g, f, d));
}

/* fast_same_x() for a flow whose mask is not a plain one's — not set yet
 * (fast_setup), none, or a tunnel flow's —, out of line */
static __attribute__((noinline)) int
fast_same_cold(struct sofl_gro *g, struct flow *f, const uint8_t *d)
{
	if (f->mk == NO_MASK || (f->mk == MK_UNSET && !fast_setup(g, f)))
		return 0;
	return f->mk & MK_T ? fast_same_x(g, f, d, 1) : fast_same_x(g, f, d, 0);
}

/* @in (its rx hash @h) is the next full-size segment of held flow @f. */
HOT int
fast_same(struct sofl_gro *g, struct flow *f, const struct sofl_gro_in *in, uint32_t h)
{
	const uint8_t *d = in->data;

	if (!f->count || f->hash != h || in->len != (uint32_t)f->hdr_len + f->mss)
		return 0;
	if (__builtin_expect(f->mk >= NMASK, 0))	/* no mask yet, none, a tunnel's */
		return fast_same_cold(g, f, d);
	return fast_same_x(g, f, d, 0);
}

/* The held flow @in continues, if any, found by its rx hash (known before
 * parsing) and the masked compare. */
HOT uint32_t
fast_find(struct sofl_gro *g, const struct sofl_gro_in *in, uint32_t h)
{
	uint32_t fi = g->last_fi;
	int seen = 0;

	/* the flow of the previous merge first: a stream of one flow's segments
	 * then skips the tag and bucket loads.  At most one held flow can pass
	 * the compare (equal masked headers mean an equal flow key, and the
	 * general way never holds two flows with one key and one hash), so any
	 * held flow that passes is the one the walk below would return. */
	if (fi != NIL && fast_same(g, &g->flows[fi], in, h))
		return fi;
	if (g->lnx && !g->tags[tag_of(g, h)]) {
		fi = NIL;	/* nothing with this tag: skip the walk */
	} else {
		fi = bhead(g, h & g->mask);
	}
	for (; fi != NIL; fi = g->flows[fi].chain) {
		struct flow *f = &g->flows[fi];
		if (f->hash != h)
			continue;
		if (fast_same(g, f, in, h))
			return fi;
		seen = 1;
	}
	/* no held flow has this hash: the general way's lookup may skip its walk */
	g->nohash = !seen;
	g->nohash_h = h;
	return NIL;
}

/* The TCP checksum of a full-size segment of @f at @d: 1 when it verifies
 * (counted), 0 bad or pseudo-only (the general way decides).  Out of line:
 * it calls the checksum kernel anyway. */
static int
fast_l4sum(struct sofl_gro *g, const struct flow *f, const uint8_t *d)
{
	if (!l4_sum_ok(f->ipv, d + f->l3_off, 6, f->l4_off - f->l3_off,
		       (uint32_t)f->hdr_len - f->l4_off + f->mss))
		return 0;
	g->st.csum_sw_l4++;
	return 1;
}

/* The checksum checks of a fast merge for an input not flagged as fully
 * verified: 1 when they pass (counted), 0: the general way decides.  The
 * IPv4 header's is inline (20 bytes; a call would cost the train loop its
 * vector registers). */
HOT int
fast_csums(struct sofl_gro *g, const struct flow *f, const uint8_t *d, uint32_t flags)
{
	int sw_ip = f->ipv == 4 && !(flags & SOFL_GRO_F_IPCSUM_OK);

	if (sw_ip && !ip4_csum_ok(d + f->l3_off))
		return 0;
	if (!(flags & SOFL_GRO_F_CSUM_OK) && !fast_l4sum(g, f, d))
		return 0;
	g->st.csum_sw_ip += (uint64_t)sw_ip;
	return 1;
}

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

/* One input that passed fast_same merged into held flow @fi (a train of
 * one, without a train's set-up): 1 merged (perhaps completed), 0 not.
 * @tun: @fi is a tunnel flow (a constant: fast_one() picks the variant, so
 * that the plain one carries none of the tunnel's tests). */
HOT int
fast_one_x(struct sofl_gro *g, uint32_t fi, const struct sofl_gro_in *in, const int tun)
{
	struct flow *f = &g->flows[fi];
	const uint8_t *d = in->data;
	struct tflow *t = tun ? &g->tun[fi] : NULL;
	uint32_t nip = 0, nout = 0;
	uint8_t flags;

	/* #26 (a tunnel's from its outer IP header), max_segs */
	if (!rule_size_ok(g, f->ip_len + (t ? (uint32_t)(f->l3_off - t->o3) : 0u), f->mss) ||
	    !rule_segs_ok(g, f->count))
		return 0;
	if (t && !tun_fast_csums(g, t, d, in->len, in->flags, &nip, &nout))
		return 0;
	if ((in->flags & (SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK)) !=
	    (SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK) && !fast_csums(g, f, d, in->flags))
		return 0;
	if (t) {
		g->st.csum_sw_ip += nip;
		g->st.csum_sw_outer += nout;
		g->st.tun_in++;		/* (classify_tun counts the others) */
		t->next_oid = rule_id_next(t->next_oid, t->ofixed);
	}
	flags = d[f->l4_off + 13];
	g->last_fi = fi;
	g->fast_segs++;
	append_seg(g, f, d + f->hdr_len, f->mss, in->cookie);
	f->next_id = rule_id_next(f->next_id, f->fixedid);
	if (flags & (SOFL_TCP_FIN | SOFL_TCP_PSH)) {
		f->orflags |= flags & (SOFL_TCP_FIN | SOFL_TCP_PSH);
		gro_complete(g, fi, SOFL_GRO_FLUSH_PSH_FIN);	/* #24 */
	}
	return 1;
}

/* fast_one_x() of a tunnel flow, out of line */
static __attribute__((noinline)) int
fast_one_tun(struct sofl_gro *g, uint32_t fi, const struct sofl_gro_in *in)
{
	return fast_one_x(g, fi, in, 1);
}

/* fast_one_x() for held flow @fi, plain or tunnel (by its mask's key) */
HOT int
fast_one(struct sofl_gro *g, uint32_t fi, const struct sofl_gro_in *in)
{
	if (__builtin_expect(g->flows[fi].mk & MK_T, 0))	/* (fast_same passed: a mask) */
		return fast_one_tun(g, fi, in);
	return fast_one_x(g, fi, in, 0);
}

/* A train's running state: the flow's fields, kept in registers (through
 * the flow they would be reloaded after every store into a segment) */
struct train {
	uint32_t seq, iplen, tail, fs, cnt, max, mss, hl;
	uint16_t id, idinc;
	uint8_t flags;
};

/* A train's state from held flow @f (the free segments from the engine).
 * Its segments are full-size, so the size limit and the segment cap are
 * one limit, max (rule_run_limit). */
HOT void
train_begin(const struct sofl_gro *g, const struct flow *f, struct train *r)
{
	r->seq = f->next_seq;
	r->iplen = f->ip_len;
	r->tail = f->seg_tail;
	r->fs = g->free_seg;
	r->cnt = f->count;
	r->max = rule_run_limit(g, f->ip_len, f->count, f->mss);
	r->mss = f->mss;
	r->hl = f->hdr_len;
	r->id = f->next_id;
	r->idinc = rule_id_next(0, f->fixedid);
	r->flags = 0;
}

/* The state of a train that merged at least one segment back into its flow
 * @f, @first its first new segment (the free segments are the caller's) */
HOT void
train_commit(struct sofl_gro *g, struct flow *f, const struct train *r, uint32_t first)
{
	g->segs[r->tail].next = NIL;
	if (f->seg_head == NIL)
		f->seg_head = first;
	g->held_segs += r->cnt - f->count;
	g->fast_segs += r->cnt - f->count;
	g->fast_runs++;
	f->count = (uint16_t)r->cnt;
	f->next_seq = r->seq;
	f->ip_len = r->iplen;
	f->seg_tail = r->tail;
	f->next_id = r->id;
	f->ref = REF_USED;
}

/* Appends @p (which passed all tests; TCP flags @flags) to the train, its
 * segment entry from the free list @fs (r->fs, or a weave's shared one). */
HOT void
train_push(struct sofl_gro *g, struct train *r, uint32_t *fs, const struct sofl_gro_in *p,
	   uint8_t flags)
{
	struct seg *segs = g->segs;
	uint32_t si = *fs;

	r->flags = flags;
	*fs = segs[si].next;
	segs[si].pay = (const uint8_t *)p->data + r->hl;
	segs[si].len = r->mss;
	segs[si].cookie = p->cookie;
	segs[r->tail].next = si;
	r->tail = si;
	r->seq += r->mss;
	r->iplen += r->mss;
	r->id = (uint16_t)(r->id + r->idinc);
	r->cnt++;
}

/* Appends @p (which passed fast_same's test) to the train; 0 if it does not
 * fit (#26) or its checksums send it the general way. */
HOT int
train_add(struct sofl_gro *g, const struct flow *f, struct train *r, const struct sofl_gro_in *p)
{
	if (r->iplen + r->mss > r->max)
		return 0;
	if ((p->flags & (SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK)) !=
	    (SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK) && !fast_csums(g, f, p->data, p->flags))
		return 0;
	train_push(g, r, &r->fs, p, ((const uint8_t *)p->data)[f->l4_off + 13]);
	return 1;
}

/* An input's flags and rx hash as a train's flow @fi needs them (@h its
 * hash; @c, @nip, @nl4: sw_csums): the usual case — hash, both checksums
 * verified — in one compare. */
HOT int
train_flags_ok(struct sofl_gro *g, uint32_t fi, const struct sofl_gro_in *p, const uint8_t *d,
	       uint32_t h, const struct swck *c, uint32_t *nip, uint32_t *nl4)
{
	const uint32_t all = SOFL_GRO_F_HASH | SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK;

	if ((p->flags & all) == all)
		return p->hash == h;
	if (((p->flags & SOFL_GRO_F_HASH) ? p->hash : 0) != h)
		return 0;
	return (p->flags & (SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK)) ==
	       (SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK) || sw_csums(g, fi, c, d, p->flags, nip, nl4);
}

/* The rest of a train, from in[i] on: fast_same's test with the first
 * segment's headers and the mask in registers (@nck 16-byte words: 5 for
 * headers up to 80 bytes, 6 up to 96; 0: compared from memory), @v4 the
 * flow's IP version is 4, @pre (train_more_avx2 only) a train of inputs
 * flagged verified: one that is not ends it (the caller's way takes it),
 * so the loop holds no software checksum path, and an input's length,
 * flags and rx hash are one compare.  The size limit (#26) is turned into
 * a segment count once; the train's state is in locals (registers: the
 * loop walks a pointer, its offsets are address-sized, the count and IP
 * length follow from the inputs taken) written back at the end.  @return
 * the index of the first input not merged. */
HOT size_t
train_loop(struct sofl_gro *g, const struct flow *f, struct train *rp, const struct sofl_gro_in *in,
	   size_t i, size_t n, const int nck, const int v4, const int pre)
{
	struct train r = *rp;
	const uint8_t *t = fhdr(f), *m = g->mask_b[f->mk];
	const uint32_t hl = r.hl, full = hl + r.mss, h = f->hash, mss = r.mss;
	const size_t idoff = f->l3_off + 4u, seqo = f->l4_off + 4u;	/* (address offsets) */
	const uint32_t fi = (uint32_t)(f - g->flows);
	const uint16_t idm = rule_id_mask(g), idinc = r.idinc;
	uint32_t room = r.iplen < r.max ? (r.max - r.iplen) / r.mss : 0, nip = 0, nl4 = 0;
	uint32_t seq = r.seq, fs = r.fs, si = r.tail;
	uint16_t id = r.id;
	uint8_t fl = r.flags;
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
	const uint32_t kf = SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK | SOFL_GRO_F_HASH;
	const uint32_t hf = i < n ? in[i].flags & SOFL_GRO_F_HASH : 0;
	const __m128i km = _mm_setr_epi32(-1, (int)kf, hf ? -1 : 0, 0);
	const __m128i ke = _mm_setr_epi32((int)full, (int)(kf & ~SOFL_GRO_F_HASH) | (int)hf,
					  hf ? (int)h : 0, 0);

	if (nck == 32)
		ycmp_init(&y, t, m, hl);
#endif
	/* a train of inputs flagged verified needs no layout (if one is not,
	 * len 0 sends it to fast_csums) */
	memset(&c, 0, sizeof(c));
	if (!pre && i < n && !(in[i].flags & SOFL_GRO_F_CSUM_OK))
		swck_init(&c, f);
	for (; p < pend; p++) {
		const uint8_t *d = p->data;

#if GRO_AVX2
		if (pre) {
			if (!lanes_same(p, ke, km) || !d)
				break;
		} else
#endif
		if (p->len != full || !d)
			break;
#if GRO_AVX2
		if (nck == 32) {
			if (!ycmp_same(&y, d))
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
		if (!pre && !train_flags_ok(g, fi, p, d, h, &c, &nip, &nl4))
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
	if (f->ipv == 4)
		return train_loop(g, f, r, in, i, n, 32, 1, 1);
	return train_loop(g, f, r, in, i, n, 32, 0, 1);
}
#endif

static __attribute__((noinline)) size_t
train_more(struct sofl_gro *g, const struct flow *f, struct train *r, const struct sofl_gro_in *in,
	   size_t i, size_t n)
{
	/* TCP checksums to verify: a checksum call per segment would cost a
	 * loop holding the headers in vector registers a spill and reload
	 * each time, and the compare from memory costs less */
	if (!(in[i].flags & SOFL_GRO_F_CSUM_OK))
		return f->ipv == 4 ? train_loop(g, f, r, in, i, n, 0, 1, 0) :
				     train_loop(g, f, r, in, i, n, 0, 0, 0);
#if GRO_AVX2
	if (g->isa && r->hl >= 32 && r->hl <= 96 && (in[i].flags & SOFL_GRO_F_IPCSUM_OK))
		return train_more_avx2(g, f, r, in, i, n);
#endif
	if (f->ipv == 4)
		return r->hl <= 80 ? train_loop(g, f, r, in, i, n, 5, 1, 0) :
		       r->hl <= 96 ? train_loop(g, f, r, in, i, n, 6, 1, 0) :
				     train_loop(g, f, r, in, i, n, 0, 1, 0);
	return r->hl <= 80 ? train_loop(g, f, r, in, i, n, 5, 0, 0) :
	       r->hl <= 96 ? train_loop(g, f, r, in, i, n, 6, 0, 0) :
			     train_loop(g, f, r, in, i, n, 0, 0, 0);
}

/* A train: in[i..n) merged into held flow @fi for as long as each input
 * continues it, the flow's state in registers and written back once.
 * in[i] passed fast_same already.  A PSH/FIN segment ends the train and
 * completes the flow (#24).  @return the index of the first input not
 * merged (i: none was). */
HOT size_t
fast_train(struct sofl_gro *g, const struct sofl_gro_in *in, size_t i, size_t n, uint32_t fi)
{
	struct flow *f = &g->flows[fi];
	struct train r;

	train_begin(g, f, &r);
	if (!train_add(g, f, &r, &in[i]))
		return i;
	i++;
	/* the rest only for a train (W2-like interleaving stops here) */
	if (i < n && !(r.flags & (SOFL_TCP_FIN | SOFL_TCP_PSH)) &&
	    ((in[i].flags & SOFL_GRO_F_HASH) ? in[i].hash : 0) == f->hash &&
	    in[i].len == r.hl + r.mss)
		i = train_more(g, f, &r, in, i, n);
	/* a flow without segments had its first one linked from the sink */
	train_commit(g, f, &r, g->segs[SINK(g)].next);
	g->free_seg = r.fs;
	g->last_fi = fi;
	if (r.flags & (SOFL_TCP_FIN | SOFL_TCP_PSH)) {
		f->orflags |= r.flags & (SOFL_TCP_FIN | SOFL_TCP_PSH);
		gro_complete(g, fi, SOFL_GRO_FLUSH_PSH_FIN);	/* #24 */
	}
	return i;
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
#define WEAVE 8

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

	train_begin(g, f, &s->r);
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
			train_commit(g, &g->flows[s[x].fi], &s[x].r, s[x].first);
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

/* 1 when the flow of in[i] (rx hash @h; in[i + 1] is another flow's) comes
 * again within the next WEAVE inputs: flows in a rotation a weave can hold.
 * In a longer one every merge would pay a strand's set-up (a table lookup,
 * the flow's state copied in and back) and none would repay it (bench_gro's
 * R16 row: 16 flows in turn). */
HOT int
weave_worth(const struct sofl_gro_in *in, size_t i, size_t n, uint32_t h)
{
	size_t j;

	for (j = i + 2; j <= i + WEAVE && j < n; j++)
		if (((in[j].flags & SOFL_GRO_F_HASH) ? in[j].hash : 0) == h)
			return 1;
	return 0;
}

/* A weave (see above) from in[i], which passed fast_same for held flow @fi;
 * a flow it ended with PSH or FIN completed (#24) */
static __attribute__((noinline)) size_t
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

/* in[i..n) delivered at once without the full parse for as long as each is
 * an IPv4 packet of fast_hold's layouts (fast_l3, fast_ip_ok) that is not
 * TCP and has a reason from bypass4_why() — decided as the general way
 * would, before any table lookup —, their outputs written with the
 * cursors in locals (lone_put): the cost of saying "not mine" per packet
 * is its tests and its output record.  No flow rules (fast_hold's
 * condition); an input that comes with its parse (GRO_F_PARSED) ends the
 * run (classify takes the parse).  @return the index of the first input
 * not delivered. */
static __attribute__((noinline)) size_t
fast_bypass_run(struct sofl_gro *g, const struct sofl_gro_in *in, size_t i, size_t n)
{
	struct lone w;
	const uint64_t tb = g->tport_bits;
	const int ipip = g->ipip;

	if (g->cfg.n_rules)
		return i;
	lone_begin(g, &w);
	for (; i < n; i++) {
		const uint8_t *d = in[i].data;
		const uint32_t len = in[i].len;
		unsigned v;
		int l3, why;

		if (!d || (in[i].flags & GRO_F_PARSED) ||
		    (l3 = fast_l3(g, d, len, 40 + 20, &v)) < 0 || v != 4 ||
		    (why = fast_why4(g, d, len, (uint32_t)l3, tb, ipip)) < 0)
			break;
		lone_put(g, &w, &in[i], (uint8_t)why);
	}
	lone_end(g, &w);
	return i;
}

/* ---- fast hold ----
 * The first segment of a new TCP flow (fast_find saw no held flow with its
 * rx hash, so the general way's lookup finds none either) held without the
 * full parse, for the layouts that dominate: Ethernet (no VLAN tag) or raw
 * IP, IPv4 without options or IPv6 without extension headers, TCP with
 * payload and none of the flags that deliver at once, no flow rules;
 * checksums not flagged verified are verified here (and counted only when
 * they pass).  The tests are the general way's own, called: the parser's
 * (pk_ipv4_len, pk_ipv6_end, pk_tcp_hlen), classify's (classify_l3,
 * rule_badlen, the checksum checks) and tcp_rx's (tcp_new_flow); anything
 * they do not pass — a fragment, padding, a bad length, a flag, a checksum
 * that does not verify (bad, or a pseudo sum for partial_ok) — declines
 * and takes the general way, which counts and decides it, as it does an
 * input that comes with its parse (GRO_F_PARSED).  Not TCP over
 * such an IPv4 header: fast_bypass_run, for in[0, run).  @return the
 * inputs taken (1 held; 0: the general way decides in[0]). */
HOT int
fast_hold(struct sofl_gro *g, const struct sofl_gro_in *in, uint32_t h, const int lnx,
	  size_t run)
{
	const uint8_t *d = in->data, *ip, *th;
	uint32_t len = in->len, l3, l3len, l4, thl, end;
	struct hinfo x;
	unsigned v;
	int o;

	if (g->cfg.n_rules || (in->flags & GRO_F_PARSED) ||
	    (o = fast_l3(g, d, len, 40 + 20, &v)) < 0)
		return 0;
	l3 = (uint32_t)o;
	ip = d + l3;
	if (!fast_ip_ok(d, len, l3, v, &end))
		return 0;
	if (v == 4 && ip[9] != 6)
		return (int)fast_bypass_run(g, in, 0, run);	/* <= max_batch */
	if (v == 6 && ip[6] != 6)
		return 0;	/* UDP, extension headers: the general way */
	l3len = v == 4 ? 20 : 40;
	l4 = l3 + l3len;
	th = d + l4;
	/* (classify_l3: fast_l3 took IPv4 headers of 20 bytes only; its header
	 * limit, these headers are at most 114 bytes) */
	_Static_assert(PK_ETH_HLEN + 40 + 60 <= SOFL_GRO_HDR_MAX, "fast_hold's headers fit");
	if (pk_tcp_hlen(th, len - l4, &thl) < 0 || classify_l3(g, NULL, v, 6, 20, 0, 0) >= 0 ||
	    tcp_new_flow(0, len - l4 - thl, th[13]) >= 0)
		return 0;	/* malformed, or delivered at once */
	x.ipv = (uint8_t)v;
	x.l3_len = (uint16_t)l3len;
	if ((in->flags & (SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK)) !=
	    (SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK)) {
		int sw_ip = v == 4 && !(in->flags & SOFL_GRO_F_IPCSUM_OK);
		int sw_l4 = !(in->flags & SOFL_GRO_F_CSUM_OK);

		if ((sw_ip && !ip4_csum_ok(ip)) ||
		    (sw_l4 && !l4_sum_ok(v, ip, 6, l3len, len - l4)))
			return 0;	/* #7, #11 */
		g->st.csum_sw_ip += (uint64_t)sw_ip;
		g->st.csum_sw_l4 += (uint64_t)sw_l4;
	}
	x.data = d;
	x.seq = sofl_get32(th + 4);
	x.ip_len = len - l3;
	x.l3_off = (uint16_t)l3;
	x.l4_off = (uint16_t)l4;
	x.l4_len = (uint16_t)thl;
	x.pay_off = (uint16_t)(l4 + thl);
	x.pay_len = len - x.pay_off;
	x.ts_off = 0;		/* (relaxed policy only; the fast paths are Linux's) */
	x.proto = 6;
	hold_in(g, in, &x, h, h & g->mask, sofl_get32(th), CK_VALID, lnx, 1);
	return 1;
}

/* fast_bypass_run() for one IPv4 input raw_key_hash() found to be neither
 * TCP nor UDP to coalesce, its IP header at @l3 (fast_l3's layouts): the
 * same tests without doing fast_l3 again — delivered at once (1), or 0:
 * the general way decides. */
HOT int
fast_other4(struct sofl_gro *g, const struct sofl_gro_in *in, uint32_t l3)
{
	uint32_t len = in->len;
	int why;

	if (g->cfg.n_rules || len < l3 + 40 + 20 ||
	    (why = fast_why4(g, in->data, len, l3, g->tport_bits, g->ipip)) < 0)
		return 0;	/* as fast_hold (its fast_l3 minimum) */
	gro_bypass(g, in, why);
	return 1;
}

/* One input: 1 merged (and perhaps completed), 0 nothing done, take the
 * general way. */
HOT int
fast_merge(struct sofl_gro *g, const struct sofl_gro_in *in, uint32_t h)
{
	uint32_t fi = fast_find(g, in, h);

	return fi != NIL && fast_one(g, fi, in);
}

/* A chunk's flow keys read from the frames, hashed together (IPv4 and
 * IPv6 apart, eight at a time with AVX-512) */
struct hbatch {
	uint64_t w4[RX_CHUNK], l4[RX_CHUNK], w6[5][RX_CHUNK], l6[RX_CHUNK];
	uint32_t h4[RX_CHUNK], h6[RX_CHUNK];
	uint8_t i4[RX_CHUNK], i6[RX_CHUNK];
	unsigned n4, n6;
};

/* An input's hash known before parsing: the rx hash (1, in *h), or its
 * flow key read from the frame for @hb (3, input @i; hb_hash() hashes it),
 * or 2 (IPv4, neither TCP nor UDP with UDP GRO on: *h is the IP header's
 * offset, for fast_other4), or 0: the input is to be classified (parsed,
 * or its parse taken: an input that comes with one is not read here). */
HOT int
fast_hash(const struct sofl_gro *g, const struct sofl_gro_in *in, uint32_t *h,
	  struct hbatch *hb, size_t i)
{
	uint64_t m[5], last;
	unsigned j;
	int k;

	if (in->flags & SOFL_GRO_F_HASH) {
		*h = in->hash;
		return 1;
	}
	if (in->flags & GRO_F_PARSED)
		return 0;	/* classify() hashes its parse */
	k = raw_key_msg(g, in->data, in->len, m, &last);
	if (k == 4) {
		hb->w4[hb->n4] = m[0];
		hb->l4[hb->n4] = last;
		hb->i4[hb->n4++] = (uint8_t)i;
		return 3;
	}
	if (k == 6) {
		for (j = 0; j < 5; j++)
			hb->w6[j][hb->n6] = m[j];
		hb->l6[hb->n6] = last;
		hb->i6[hb->n6++] = (uint8_t)i;
		return 3;
	}
	if (k == 2)
		*h = (uint32_t)last;
	return k;
}

/* Hashes @h of inputs @idx (@n) into their @x, bucket heads prefetched (@pf) */
HOT void
hb_put(const struct sofl_gro *g, struct rxq *x, const uint8_t *idx, const uint32_t *h, unsigned n,
       int pf)
{
	unsigned j;

	for (j = 0; j < n; j++) {
		struct rxq *r = &x[idx[j]];

		r->h = h[j];
		r->b = h[j] & g->mask;
		if (pf)
			__builtin_prefetch(&g->head[r->b]);
	}
}

/* The hashes of @hb into their inputs' @x (@pf: see hb_put) */
static void
hb_hash(const struct sofl_gro *g, struct hbatch *hb, struct rxq *x, int pf)
{
	const uint64_t *w4[1] = { hb->w4 };
	const uint64_t *w6[5] = { hb->w6[0], hb->w6[1], hb->w6[2], hb->w6[3], hb->w6[4] };

	if (hb->n4) {
		sofl_siphash13_x(g->hkey, w4, 1, hb->l4, hb->h4, hb->n4, g->isa);
		hb_put(g, x, hb->i4, hb->h4, hb->n4, pf);
	}
	if (hb->n6) {
		sofl_siphash13_x(g->hkey, w6, 5, hb->l6, hb->h6, hb->n6, g->isa);
		hb_put(g, x, hb->i6, hb->h6, hb->n6, pf);
	}
}

/* The flow entry the bucket head of @x points to (large tables: a cache
 * miss) — a hint: the rules look the table up again. */
HOT void
entry_prefetch(const struct sofl_gro *g, const struct rxq *x)
{
	uint32_t fi;

	if (x->byp < 0 && x->byp != BYP_FAST4 && (fi = bhead(g, x->b)) != NIL)
		flow_prefetch(g, fi);	/* line 0 and the header copy */
}

/* LRU table, a chunk: classify each input (prefetching bucket heads) —
 * except one whose hash is known unparsed while the fast paths apply: it
 * is tried with fast_merge and fast_hold first, in order, and classified
 * only if they decline —, then run the rules in order, prefetching the
 * flow entry RX_AHEAD inputs ahead (large tables: these are cache misses;
 * all fetched before the first input's rules, the first inputs would wait
 * for theirs).  Prefetches are hints only; the rules look up the table
 * again. */
static void
rx_chunk(struct sofl_gro *g, const struct sofl_gro_in *in, size_t n)
{
	struct rxq x[RX_CHUNK];
	struct hbatch hb;
	const int pf = g->pf;
	size_t i;

	hb.n4 = hb.n6 = 0;
	for (i = 0; i < n; i++) {
		int k = g->fast && in[i].data ? fast_hash(g, &in[i], &x[i].h, &hb, i) : 0;

		if (k == 2) {
			x[i].byp = BYP_FAST4;
			continue;
		}
		if (k) {
			x[i].byp = BYP_FAST;
			if (k == 3)
				continue;	/* hashed below */
			x[i].b = x[i].h & g->mask;
		} else {
			classify(g, &in[i], &x[i]);
		}
		if (pf && x[i].byp < 0)
			__builtin_prefetch(&g->head[x[i].b]);
	}
	if (hb.n4 + hb.n6)
		hb_hash(g, &hb, x, pf);
	for (i = 0; pf && i < n && i < RX_AHEAD; i++)
		entry_prefetch(g, &x[i]);
	for (i = 0; i < n; i++) {
		if (pf && i + RX_AHEAD < n)
			entry_prefetch(g, &x[i + RX_AHEAD]);
		if (x[i].byp == BYP_FAST4) {
			if (fast_other4(g, &in[i], x[i].h))
				continue;	/* delivered */
			classify(g, &in[i], &x[i]);
		} else if (x[i].byp == BYP_FAST) {
			if (fast_merge(g, &in[i], x[i].h) ||
			    (g->nohash && fast_hold(g, &in[i], x[i].h, 0, 1))) {
				g->nohash = 0;
				continue;
			}
			classify(g, &in[i], &x[i]);
		}
		deliver(g, &in[i], &x[i]);
		g->nohash = 0;
	}
}

/* LRU table, a chunk: a leading run of inputs the fast path delivers at
 * once (fast_bypass_run; tried when the first is not TCP by its IPv4
 * protocol byte: a hint, the run tests everything), then rx_chunk() */
void
gro_rx_chunk(struct sofl_gro *g, const struct sofl_gro_in *in, size_t n)
{
	const uint32_t l3 = g->cfg.link == SOFL_LINK_RAW ? 0 : PK_ETH_HLEN;
	const uint8_t *d = in[0].data;
	size_t i = 0;

	if (g->fast && d && in[0].len > l3 + 9 && d[l3 + 9] != 6)
		i = fast_bypass_run(g, in, 0, n);
	if (i < n)
		rx_chunk(g, in + i, n - i);
}

/* The Linux table, TCP checksums to verify: in[i] (no held flow has its
 * hash, fast_find found) and the inputs after it while they are new flows
 * too, held in one loop.  A hash tag no held flow has means no held flow
 * has the hash; fast_hold decides the rest (a run of inputs that are not
 * TCP: fast_bypass_run).  @return the index of the first input not taken. */
static __attribute__((noinline)) size_t
fast_holds(struct sofl_gro *g, const struct sofl_gro_in *in, size_t i, size_t n)
{
	size_t j = (size_t)fast_hold(g, &in[i], g->nohash_h, 1, n - i);

	for (i += j; j && i < n; i += j) {
		const uint32_t h = (in[i].flags & SOFL_GRO_F_HASH) ? in[i].hash : 0;

		if (!in[i].data || (in[i].flags & SOFL_GRO_F_CSUM_OK) || g->tags[tag_of(g, h)])
			break;
		j = (size_t)fast_hold(g, &in[i], h, 1, n - i);
	}
	return i;
}

/* The Linux table (64 flows) stays in cache: no look-ahead, each input in
 * turn; with the fast path, an input that continues a held flow (found by
 * its rx hash, known without parsing) starts a train or a weave of merges,
 * and with @sw (rx_linux_sw) runs of new flows whose checksums are to be
 * verified are held by fast_holds. */
HOT void
rx_linux(struct sofl_gro *g, const struct sofl_gro_in *in, size_t n, const int sw)
{
	struct rxq x;
	size_t i = 0, j;
	uint32_t fi;
	const int fast = g->fast;
	int cold = 0;	/* no weaves in this batch (weave_worth) */

	while (i < n) {
		if (fast && in[i].data) {
			fi = fast_find(g, &in[i], (in[i].flags & SOFL_GRO_F_HASH) ? in[i].hash : 0);
			if (fi != NIL) {
				const struct flow *f = &g->flows[fi];
				/* a train when the next input looks like the next
				 * segment, else a weave (interleaved flows); a tunnel
				 * flow's segments one at a time (their loops do not
				 * check the outer header) */
				if (f->mk & MK_T)
					j = i + (size_t)fast_one(g, fi, &in[i]);
				else if (i + 1 < n && in[i + 1].len == in[i].len &&
				    ((in[i + 1].flags & SOFL_GRO_F_HASH) ? in[i + 1].hash : 0) == f->hash)
					j = fast_train(g, in, i, n, fi);
				else if (!cold && (cold = !weave_worth(in, i, n, f->hash)) == 0)
					j = fast_weave(g, in, i, n, fi);
				else
					j = i + (size_t)fast_one(g, fi, &in[i]);
				if (j != i) {
					i = j;
					continue;
				}
			} else if (sw && g->nohash && !(in[i].flags & SOFL_GRO_F_CSUM_OK)) {
				if ((j = fast_holds(g, in, i, n)) != i) {
					g->nohash = 0;
					i = j;
					continue;
				}
			} else if (g->nohash &&
				   (j = (size_t)fast_hold(g, &in[i], g->nohash_h, 1, n - i)) != 0) {
				g->nohash = 0;
				i += j;	/* held, or a run delivered at once */
				continue;
			}
		}
		classify(g, &in[i], &x);
		deliver(g, &in[i], &x);
		g->nohash = 0;
		i++;
	}
}

#if GRO_AVX2
/* rx_linux() for inputs with TCP checksums to verify (gro.c's choice where
 * the CPU has AVX-512): runs of new flows are held by fast_holds */
void
gro_rx_linux_sw(struct sofl_gro *g, const struct sofl_gro_in *in, size_t n)
{
	rx_linux(g, in, n, 1);
}
#endif

/* rx_linux() without the AVX-512 holds, for sofl_gro_receive() */
void
gro_rx_linux(struct sofl_gro *g, const struct sofl_gro_in *in, size_t n)
{
	rx_linux(g, in, n, 0);
}
