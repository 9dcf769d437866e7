/* GRO fast merge, shared by the receive loop (gro_rx.c) and the trains and
 * weaves (gro_train.c): the masked header compare (same_masked, fast_same,
 * fast_find), the checksum checks of a fast merge (fast_csums) and a merge
 * of one input (fast_one), as per-packet inline helpers, and the
 * declarations of the out-of-line parts each file defines for the other.
 * Private to src/gro. */
#ifndef SOFL_GRO_FAST_H
#define SOFL_GRO_FAST_H

#include "gro_rules.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if GRO_AVX2
#include <immintrin.h>
#endif

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
 * last 16 ending at n (overlap is harmless: masks are positional); up to
 * 128 bytes unrolled, beyond (long tunnel or option headers) a loop. */
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
	if (__builtin_expect(n > 128, 0))
		for (unsigned i = 112; i < n - 16; i += 16)
			x = _mm_or_si128(x, mx16(a + i, b + i, m + i));
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

/* fast_same_x() past the masked compare */
static inline __attribute__((always_inline)) int
fast_same_rest(const struct sofl_gro *g, const struct flow *f, const uint8_t *d, const int tun)
{
	return rule_seq_ok(sofl_get32(d + f->l4_off + 4), f->next_seq) &&
	       (f->ipv != 4 || rule_id_ok(sofl_get16(d + f->l3_off + 4), f->next_id, rule_id_mask(g))) &&
	       (!tun || tun_fast_same(g, f, d));
}

/* fast_same() past its first tests, @f's mask set (@tun: a tunnel flow's,
 * a constant: the plain variant carries none of the tunnel's tests) */
static inline __attribute__((always_inline)) int
fast_same_x(const struct sofl_gro *g, const struct flow *f, const uint8_t *d, const int tun)
{
	return same_masked(fhdr(f), d, g->mask_b[tun ? f->mk & ~MK_T : f->mk], f->hdr_len) &&
	       fast_same_rest(g, f, d, tun);
}
/* A held flow's mask set when it is first compared (gro_rx.c): its new
 * f->mk */
uint8_t fast_setup(struct sofl_gro *g, struct flow *f);
/* fast_same_x() of a tunnel flow (gro_rx.c) */
int fast_same_tun(struct sofl_gro *g, struct flow *f, const uint8_t *d);
/* fast_same_x() for a flow whose mask is not a plain one's — not set yet,
 * none, or a tunnel flow's —, all out of line (gro_rx.c) */
int fast_same_cold(struct sofl_gro *g, struct flow *f, const uint8_t *d);

/* @in (its rx hash @h) is the next full-size segment of held flow @f.  A
 * plain flow is compared here, its mask set first if it has none yet; a
 * tunnel flow's tests are out of line (fast_same_tun).  @lean: a loop
 * short of registers (rx_chunk's): one call for all but a plain flow with
 * its mask (fast_same_cold). */
HOT int
fast_same(struct sofl_gro *g, struct flow *f, const struct sofl_gro_in *in, uint32_t h,
	  const int lean)
{
	const uint8_t *d = in->data;
	uint8_t mk;

	if (!f->count || f->hash != h || in->len != (uint32_t)f->hdr_len + f->mss)
		return 0;
	if (__builtin_expect((mk = f->mk) >= NMASK, 0)) {	/* no mask yet, none, a tunnel's */
		if (lean)
			return fast_same_cold(g, f, d);
		if (mk == MK_UNSET)
			mk = fast_setup(g, f);
		if (mk >= NMASK)
			return mk != NO_MASK && fast_same_tun(g, f, d);
	}
	return fast_same_x(g, f, d, 0);
}

/* The held flow @in continues, if any, found by its rx hash (known before
 * parsing) and the masked compare. */
HOT uint32_t
fast_find_x(struct sofl_gro *g, const struct sofl_gro_in *in, uint32_t h, const int lean)
{
	uint32_t fi = g->last_fi;
	int seen = 0;

	/* the flow of the previous merge first: a stream of one flow's segments
	 * then skips the tag and bucket loads.  At most one held flow can pass
	 * the compare (equal masked headers mean an equal flow key, and the
	 * general way never holds two flows with one key and one hash), so any
	 * held flow that passes is the one the walk below would return. */
	if (fi != NIL && fast_same(g, &g->flows[fi], in, h, lean))
		return fi;
	if (g->lnx) {
		const uint32_t t = tag_of(g, h);

		if (!g->tags[t]) {
			fi = NIL;	/* nothing with this tag: skip the walk */
		} else {
			/* the flow held last with this tag first: flows in turn
			 * then skip the walk (a chain of dependent loads whose
			 * every hash test mispredicts); a stale hint fails
			 * fast_same (not held, another hash or header) */
			fi = g->tagfi[t];
			if (fast_same(g, &g->flows[fi], in, h, lean))
				return fi;
			fi = bhead(g, h & g->mask);
		}
	} else {
		fi = bhead(g, h & g->mask);
	}
	for (; fi != NIL; fi = g->flows[fi].chain) {
		struct flow *f = &g->flows[fi];
		if (f->hash != h)
			continue;
		if (fast_same(g, f, in, h, lean))
			return fi;
		seen = 1;
	}
	/* no held flow has this hash: the general way's lookup may skip its walk */
	g->nohash = !seen;
	g->nohash_h = h;
	return NIL;
}

/* fast_find_x() for the loops with registers to spare (rx_linux, the
 * weaves) */
HOT uint32_t
fast_find(struct sofl_gro *g, const struct sofl_gro_in *in, uint32_t h)
{
	return fast_find_x(g, in, h, 0);
}

/* the TCP checksum of a full-size segment, counted (gro_rx.c) */
int fast_l4sum(struct sofl_gro *g, const struct flow *f, const uint8_t *d);

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
		if (__builtin_expect(nip | nout, 0)) {	/* (flagged: none) */
			g->st.csum_sw_ip += nip;
			g->st.csum_sw_outer += nout;
		}
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

/* fast_one_x() of a tunnel flow, out of line (gro_rx.c) */
int fast_one_tun(struct sofl_gro *g, uint32_t fi, const struct sofl_gro_in *in);

/* fast_one_x() for held flow @fi, plain or tunnel (by its mask's key) */
HOT int
fast_one(struct sofl_gro *g, uint32_t fi, const struct sofl_gro_in *in)
{
	if (__builtin_expect(g->flows[fi].mk & MK_T, 0))	/* (fast_same passed: a mask) */
		return fast_one_tun(g, fi, in);
	return fast_one_x(g, fi, in, 0);
}

/* the most flows a weave holds (gro_train.c; weave_worth) */
#define WEAVE 8

/* ---- trains ----
 * The set-up and end of a train, inline in the receive loop (gro_rx.c) as
 * a merge of one is; the loop over its further inputs (train_more) and the
 * weaves are in gro_train.c. */
/* A train's running state: the flow's fields, kept in registers (through
 * the flow they would be reloaded after every store into a segment) */
struct train {
	uint32_t seq, iplen, tail, fs, cnt, max, mss, hl;
	uint16_t id, idinc;
	uint8_t flags;
};

/* A train's state from held flow @f (the free segments from the engine).
 * Its segments are full-size, so the size limit and the segment cap are
 * one limit, max (rule_run_limit).  @t: @f's tunnel state (a tunnel flow
 * whose mask is set), else NULL: the size limit is the outer IP header's
 * (as fast_one_x's), the bytes before the inner one taken off the limit;
 * the next outer IPv4 ID stays in @t (t->next_oid, its own mode), where
 * train_add and train_loop advance it. */
HOT void
train_begin(const struct sofl_gro *g, const struct flow *f, struct train *r, const struct tflow *t)
{
	const uint32_t before = t ? (uint32_t)(f->l3_off - t->o3) : 0u;

	r->seq = f->next_seq;
	r->iplen = f->ip_len;
	r->tail = f->seg_tail;
	r->fs = g->free_seg;
	r->cnt = f->count;
	r->max = rule_run_limit(g, f->ip_len + before, f->count, f->mss);
	r->max = r->max > before ? r->max - before : 0;
	r->mss = f->mss;
	r->hl = f->hdr_len;
	r->id = f->next_id;
	r->idinc = rule_id_next(0, f->fixedid);
	r->flags = 0;
}

/* The state of a train that merged at least one segment back into its flow
 * @f, @first its first new segment (the free segments are the caller's);
 * @t: @f's tunnel state, or NULL (train_begin) */
HOT void
train_commit(struct sofl_gro *g, struct flow *f, const struct train *r, uint32_t first,
	     struct tflow *t)
{
	if (t)
		g->st.tun_in += r->cnt - f->count;	/* (classify_tun counts the others) */
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
 * fit (#26) or its checksums send it the general way (@t: a tunnel flow's
 * state: its outer checksums too, as fast_one_x's). */
HOT int
train_add(struct sofl_gro *g, const struct flow *f, struct train *r, const struct sofl_gro_in *p,
	  struct tflow *t)
{
	uint32_t nip = 0, nout = 0;

	if (r->iplen + r->mss > r->max)
		return 0;
	if (t && !tun_fast_csums(g, t, p->data, p->len, p->flags, &nip, &nout))
		return 0;
	if ((p->flags & (SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK)) !=
	    (SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK) && !fast_csums(g, f, p->data, p->flags))
		return 0;
	if (t) {
		g->st.csum_sw_ip += nip;
		g->st.csum_sw_outer += nout;
		t->next_oid = rule_id_next(t->next_oid, t->ofixed);	/* (its own) */
	}
	train_push(g, r, &r->fs, p, ((const uint8_t *)p->data)[f->l4_off + 13]);
	return 1;
}

struct train;
/* the rest of a train from in[i], plain or tunnel flow (gro_train.c) */
size_t train_more(struct sofl_gro *g, const struct flow *f, struct train *r, const struct sofl_gro_in *in,
		  size_t i, size_t n);
size_t train_more_tun(struct sofl_gro *g, const struct flow *f, struct train *r,
		      const struct sofl_gro_in *in, size_t i, size_t n);

/* A train: in[i..n) merged into held flow @fi for as long as each input
 * continues it, the flow's state in registers and written back once.
 * in[i] passed fast_same already.  A PSH/FIN segment ends the train and
 * completes the flow (#24).  A tunnel flow's train (its mask's MK_T) takes
 * its outer header's tests too (train_add, train_more_tun).  @return the
 * index of the first input not merged (i: none was). */
HOT size_t
fast_train_x(struct sofl_gro *g, const struct sofl_gro_in *in, size_t i, size_t n, uint32_t fi,
	     const int tun)
{
	struct flow *f = &g->flows[fi];
	struct tflow *t = tun ? &g->tun[fi] : NULL;
	struct train r;

	train_begin(g, f, &r, t);
	if (!train_add(g, f, &r, &in[i], t))
		return i;
	i++;
	/* the rest only for a train (W2-like interleaving stops here) */
	if (i < n && !(r.flags & (SOFL_TCP_FIN | SOFL_TCP_PSH)) &&
	    ((in[i].flags & SOFL_GRO_F_HASH) ? in[i].hash : 0) == f->hash &&
	    in[i].len == r.hl + r.mss)
		i = t ? train_more_tun(g, f, &r, in, i, n) : train_more(g, f, &r, in, i, n);
	/* a flow without segments had its first one linked from the sink */
	train_commit(g, f, &r, g->segs[SINK(g)].next, t);
	g->free_seg = r.fs;
	g->last_fi = fi;
	if (r.flags & (SOFL_TCP_FIN | SOFL_TCP_PSH)) {
		f->orflags |= r.flags & (SOFL_TCP_FIN | SOFL_TCP_PSH);
		gro_complete(g, fi, SOFL_GRO_FLUSH_PSH_FIN);	/* #24 */
	}
	return i;
}

/* fast_train_x() of a tunnel flow, out of line (gro_train.c) */
size_t fast_train_tun(struct sofl_gro *g, const struct sofl_gro_in *in, size_t i, size_t n, uint32_t fi);

/* fast_train_x() for held flow @fi, plain or tunnel (its mask's MK_T:
 * fast_same passed, so it has a mask), the plain one without the
 * tunnel's tests */
HOT size_t
fast_train(struct sofl_gro *g, const struct sofl_gro_in *in, size_t i, size_t n, uint32_t fi)
{
	if (__builtin_expect(g->flows[fi].mk & MK_T, 0))
		return fast_train_tun(g, in, i, n, fi);
	return fast_train_x(g, in, i, n, fi, 0);
}

/* a weave from in[i] for held flow @fi (gro_train.c) */
size_t fast_weave(struct sofl_gro *g, const struct sofl_gro_in *in, size_t i, size_t n, uint32_t fi);

#endif
