/* GRO / software LRO engine (gro.h).  Rules follow Linux 6.18 layer by
 * layer: L2/L3 same-flow filter (gro_list_prepare, inet/ipv6_gro_receive),
 * L3 bypass checks, L4 lookup and flush accumulation (tcp_gro_receive,
 * udp_gro_receive_segment), completion (inet/ipv6/tcp/udp_gro_complete).
 * Row numbers "#n" refer to reference/offload-rules.md §1.10. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "softoffload/gro.h"
#include "softoffload/csum.h"
#include "hdr.h"
#include "gro_impl.h"
#include "pkt_impl.h"
#include "siphash.h"
#include "zalloc.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "csum_impl.h"	/* sofl_csum_verify(), sofl_cpu_features() */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define GRO_AVX2 1	/* a train's compare in 32-byte words where the CPU has AVX2 */
#include "csum_pkt.h"	/* trains' checksums inline where the CPU has AVX-512 */
#endif

#define NIL		UINT32_MAX
#define HOT		static inline __attribute__((always_inline))	/* per packet */
#define LNX_BUCKETS	8	/* GRO_HASH_BUCKETS */
#define LNX_PER_BUCKET	8	/* MAX_GRO_SKBS */

/* tcp_flag_word() bits (bytes 12-15 of the TCP header, big-endian) */
#define TW_FIN	0x00010000u
#define TW_PSH	0x00080000u
#define TW_WIN	0x0000ffffu

#define CK_VALID	1	/* first segment's L4 checksum verified */
#define CK_PARTIAL	2	/* ... holds the pseudo sum (partial_ok) */

struct seg {
	const uint8_t *pay;
	uint32_t len;
	uint32_t next;
	uint64_t cookie;
};

/* A held flow.  Comparisons and completion read the first segment's
 * headers at hdr: in the caller's buffer (the Linux table and small LRU
 * tables: by the zero-copy contract it stays valid and unchanged while the
 * flow is held, and the frames of a few flows stay in cache), or, in an LRU
 * table past PF_BYTES, a copy in the entry (hc) made while the frame was
 * in cache (at 32 flows the copy cost ~2 ns per new flow): with thousands of flows
 * held, the first segment's buffer is cold when its flow's next segment
 * arrives (a DRAM miss and a TLB miss, at the end of a chain of dependent
 * loads), while the copy shares the entry's page and sits next to the line
 * the lookup has just loaded.  Headers longer than the copy are read in the
 * buffer.
 * Layout by use: line 0 is what holding, merging and completing touch;
 * line 1 the age links, the relaxed policy's newest TCP header, the hold
 * time, the first segment (its frame, output unchanged when alone, and
 * cookie), then the copy through line 2 (86 bytes from byte 106: Ethernet +
 * IPv6 + TCP with timestamps).  The first segment lives in the entry, not in
 * the segment list: holding a flow takes no segment entry, and the first
 * merge links its segment to the flow, not to a cold segment entry.  The
 * bucket is hash & mask; the first segment's payload is hdr_len .. hdr_len
 * + mss of its frame (length mismatches are never held). */
#define HCOPY 86

struct flow {
	uint32_t hash;
	uint32_t chain;		/* next in the bucket, newest first */
	uint32_t cprev;		/* previous (newer) in the bucket */
	uint32_t ports;		/* sport << 16 | dport */
	uint8_t  ipv, proto, l4_len, ck;
	uint16_t l3_off, l3_len;
	uint16_t l4_off, hdr_len;	/* hdr_len = payload offset of the first segment */
	uint16_t mss, count;	/* count 0: not held */
	uint16_t ulen;		/* UDP: first datagram's length */
	uint16_t next_id;	/* IPv4: the ID the next segment must have (fast_merge) */
	uint8_t  fixedid, orflags;
	uint8_t  ref;		/* CLOCK (LRU table): used since last looked at */
	uint8_t  mk;		/* fast_merge compare mask g->mask_b[mk]; NO_MASK:
				 * no fast path; MK_UNSET: not looked up yet */
	uint32_t next_seq;
	uint32_t ip_len;	/* Linux p->len: IP header .. end of payload so far */
	uint32_t seg_head, seg_tail;	/* the segments after the first: NIL, SINK if none */
	const uint8_t *hdr;	/* first segment's headers [0, hdr_len): frame or hc */
	uint32_t age_prev, age_next;	/* by hold time (LRU table, timeouts) */
	const uint8_t *last_l4;	/* newest segment's TCP header (relaxed) */
	uint64_t age;
	const uint8_t *frame;	/* first segment's frame (LRU table; see fframe) */
	uint64_t cookie0;	/* first segment's cookie */
	uint16_t ts_off;	/* relaxed: TS option offset in the TCP header, 0 = none */
	uint8_t hc[HCOPY];	/* LRU table: copy of the first segment's headers */
} __attribute__((aligned(64)));

_Static_assert(offsetof(struct flow, age_prev) == 64, "struct flow: line 0 is the hot part");
_Static_assert(offsetof(struct flow, hc) + HCOPY == 192, "struct flow: three lines");
_Static_assert(sizeof(struct flow) == 192, "struct flow: three lines");

/* The first segment's headers [0, hdr_len) */
static inline const uint8_t *
fhdr(const struct flow *f)
{
	return f->hdr;
}

#define NMASK    8	/* header layouts with a fast_merge mask */
#define MASK_LEN 128	/* longest header compared with a mask */
#define NO_MASK  0xff
#define MK_UNSET 0xfe	/* looked up when a 2nd segment is compared */

struct dlist {
	uint32_t head, tail;
};

struct sofl_gro {
	struct sofl_gro_config cfg;
	struct sofl_gro_rule *rules;
	int lnx;		/* Linux table geometry */
	int fast;		/* fast_merge applies (Linux policy) */
	int isa;		/* the fast paths may use 1: AVX2 (a train's compare
				 * in 32-byte words), 2: and AVX-512 (checksums
				 * summed inline); 0: neither */
	int use_age;		/* age list kept (LRU table or flush timeout) */
	int pf;			/* LRU table larger than a core's L2: prefetch entries */
	uint8_t mask_b[NMASK][MASK_LEN] __attribute__((aligned(16)));	/* see mask_for() */
	uint32_t mask_key[NMASK];
	uint32_t nmask;
	uint32_t last_fi;	/* flow fast_merge last merged into (a hint), or NIL */
	int nohash;		/* set by fast_find: no held flow has hash nohash_h */
	uint32_t nohash_h;	/* (valid until the input is delivered) */
	uint32_t mask;		/* buckets - 1 */
	uint32_t per_bucket;
	uint32_t *head;		/* bucket chains (bhead(): zeroed = empty) */
	uint32_t *tail;		/* Linux table: oldest of each bucket */
	uint8_t *cnt;		/* Linux table: flows per bucket */
	uint8_t *tags;		/* Linux table: held flows per (bucket, hash tag) */
	struct flow *flows;
	uint32_t nflows, nfree, held_flows, fs_grow_at;	/* (fstack_grow) */
	uint32_t *fstack;	/* free flow entries: fstack[0, nfree), the top reused first;
				 * below fs_lo not written yet (fstack_grow) */
	struct seg *segs;
	uint32_t seg_cap, free_seg, held_segs;
	struct dlist age;
	uint32_t hand;		/* LRU table: CLOCK hand, an index into flows */
	uint64_t timeout_ns;

	struct sofl_gro_out *outs;
	struct sofl_gro_out out1;	/* a lone verified segment's output, but iov/cookies/len/reason */
	uint32_t nout;
	struct iovec *iov;
	uint32_t niov;
	uint64_t *cookies;
	uint32_t ncook;
	uint8_t *scratch;
	size_t sused, scap;
	uint32_t cycle_in, held_at_start;
	uint64_t now;

	struct sofl_gro_stats st;
	/* (cold: after the counters) */
	uint64_t hkey[2];	/* key_msg()'s hash key */
	uint32_t fs_lo;		/* fstack below fs_lo not written yet */
	uint32_t seg_init;	/* segs[0, seg_init) linked in so far (segs_grow) */
	size_t head_map, flows_map;	/* mmap()ed bytes of head, flows; 0: malloc */
};

/* A bucket's word: its newest flow + 1 (0: none) in the low 25 bits, so
 * that a table fresh from the kernel's zero pages is empty (creating a
 * large table writes none of it, and memory is backed as buckets are
 * used); in an LRU table, the chain's length in the bits above (the Linux
 * table counts in cnt), next to the head the lookup loads anyway. */
#define HB_IDX	0x01ffffffu	/* max_flows <= 2^24 */
#define HB_ONE	0x02000000u
#define LRU_CHAIN_MAX 8	/* flows per LRU bucket: bounds every lookup's walk */

/* Bucket @b's newest flow, or NIL */
static inline uint32_t
bhead(const struct sofl_gro *g, uint32_t b)
{
	return (g->head[b] & HB_IDX) - 1;
}

static inline void
bhead_set(struct sofl_gro *g, uint32_t b, uint32_t fi)
{
	g->head[b] = (g->head[b] & ~HB_IDX) | (fi + 1);
}

/* The first segment's frame: hdr in the Linux table, which never copies
 * headers and so does not store frame as well. */
static inline const uint8_t *
fframe(const struct sofl_gro *g, const struct flow *f)
{
	return g->lnx ? f->hdr : f->frame;
}

/* Pseudo-header sum (folded, not complemented) from the addresses in the IP
 * header itself, as tcp_v4_check/tcp_v6_check in *_gro_complete (IPv6: the
 * header's destination, even with a routing header). */
static uint16_t
l4_pseudo(unsigned ipv, const uint8_t *ip, uint8_t proto, uint32_t l4len)
{
	return sofl_csum_fold(ipv == 4 ? sofl_csum_pseudo_v4(ip + 12, ip + 16, proto, l4len) :
				       sofl_csum_pseudo_v6(ip + 8, ip + 24, proto, l4len));
}

/* 1 when sofl_csum_fold(sofl_csum_add(sum, buf, len)) == 0xffff: short
 * buffers inline, longer ones by the residue kernel, which skips the fold
 * and byte swap a kernel's sum ends with (they are on the path from the
 * last load to the verdict). */
static __attribute__((noinline)) int
csum_ok_small(uint32_t sum, const uint8_t *buf, uint32_t len)
{
	return sofl_csum_fold(sofl_csum_add_small(sum, buf, len)) == 0xffff;
}

static inline int
csum_ok(uint32_t sum, const uint8_t *buf, uint32_t len)
{
	if (len <= SOFL_CSUM_INLINE_MAX)
		return csum_ok_small(sum, buf, len);
	return sofl_csum_verify(sum, buf, len);
}

/* l4_sum_ok() for an IP header of another length (IPv6 extension headers):
 * the pseudo-header summed apart.  Out of line, so that the usual case needs
 * no registers saved around the kernel call. */
static __attribute__((noinline)) int
l4_sum_ok_ext(unsigned ipv, const uint8_t *ip, uint8_t proto, uint32_t l3len, uint32_t l4len)
{
	return csum_ok(l4_pseudo(ipv, ip, proto, l4len), ip + l3len, l4len);
}

/* The one pass of l4_sum_ok() for an IP header without options or
 * extension headers: from the pseudo-header's addresses, @off bytes into
 * the IP header, @len bytes to the end of the @l4len-byte L4 segment, plus
 * @sum (protocol and length, the rest of the pseudo-header).  Also the
 * layout the fast paths verify with (swck_init, hold_sum_inl). */
struct l4span {
	uint32_t off, len, sum;
};

static inline struct l4span
l4_span(unsigned ipv, uint8_t proto, uint32_t l4len)
{
	struct l4span sp;

	sp.off = ipv == 4 ? 12 : 8;
	sp.len = (ipv == 4 ? 20 : 40) - sp.off + l4len;
	sp.sum = proto + (ipv == 4 ? (l4len & 0xffff) : l4len);
	return sp;
}

/* 1 when the TCP/UDP checksum of the @l4len bytes at ip + @l3len verifies.
 * Without IPv6 extension headers the pseudo-header's addresses sit right
 * before the L4 header (IPv4 bytes 12-19, IPv6 8-39), so one kernel pass
 * from them to the end sums both; only protocol and length are added
 * apart.  (The sum is > 0, so it folds to 0xffff exactly when it is
 * 0 mod 0xffff, as the pseudo sum plus the L4 sum would.) */
static inline int
l4_sum_ok(unsigned ipv, const uint8_t *ip, uint8_t proto, uint32_t l3len, uint32_t l4len)
{
	if (l3len == (ipv == 4 ? 20u : 40u)) {
		const struct l4span sp = l4_span(ipv, proto, l4len);

		return csum_ok(sp.sum, ip + sp.off, sp.len);
	}
	return l4_sum_ok_ext(ipv, ip, proto, l3len, l4len);
}

/* ---- lists ---- */

#define DL_LINK(g, d, f, prevf, nextf) do {					\
	(g)->flows[f].prevf = (d)->tail;					\
	(g)->flows[f].nextf = NIL;						\
	if ((d)->tail != NIL) (g)->flows[(d)->tail].nextf = (f);		\
	else (d)->head = (f);							\
	(d)->tail = (f);							\
} while (0)

#define DL_UNLINK(g, d, f, prevf, nextf) do {					\
	uint32_t p_ = (g)->flows[f].prevf, n_ = (g)->flows[f].nextf;		\
	if (p_ != NIL) (g)->flows[p_].nextf = n_; else (d)->head = n_;		\
	if (n_ != NIL) (g)->flows[n_].prevf = p_; else (d)->tail = p_;		\
} while (0)

/* The lines of flow entry @fi: line 0, the list links and first segment
 * (line 1) and the header copy (lines 1-2).
 * Always inline, as every function here that only loads and prefetches:
 * gcc 12 -O2 can take a function that is not inlined early and does nothing
 * but load and prefetch for a pure one, and delete its calls, whose result
 * is unused (seen in the object code: until 2026-11-30 neither rx_chunk's
 * flow-entry prefetch nor age_prefetch's were there, so the earlier
 * measurements of prefetching ideas measured nothing; a six-line test case
 * shows the same, and -fno-tree-dce keeps them).
 * With them, at 65536 flows held, receive went from ~35 to ~28 ns per
 * merged packet and from ~37 to ~25 per new flow (bench_gro's split). */
HOT void
flow_prefetch(const struct sofl_gro *g, uint32_t fi)
{
	const char *p = (const char *)&g->flows[fi];

	__builtin_prefetch(p);
	__builtin_prefetch(p + 64);
	__builtin_prefetch(p + 128);
}

/* LRU table eviction: CLOCK (second chance), an O(1) approximation of LRU
 * that costs a merge one store in its own entry instead of relinking
 * neighbours (cache misses with many flows).  Eviction happens only when
 * the table is full, when every entry is held, so the clock is a hand
 * sweeping the flow array: no list to keep at hold or completion.  The
 * mark is a count of passes to survive (GCLOCK): REF_HELD when a flow is
 * held, so that the hand must pass a new flow once before it can take it
 * (unmarked, it could be the very next victim), REF_USED when it merges,
 * so that a flow in use outlives one only just held.  A sweep ends within
 * REF_USED + 1 turns, and each of its steps takes back a count a hold or
 * merge gave: O(1) per packet, amortised.  (A
 * flow held after an eviction takes the victim's entry, just behind the
 * hand: the last one it comes back to.) */
#define REF_HELD 1
#define REF_USED 2

static uint32_t
clock_victim(struct sofl_gro *g)
{
	for (;;) {
		uint32_t fi = g->hand;
		struct flow *f = &g->flows[fi];

		g->hand = fi + 1 < g->nflows ? fi + 1 : 0;
		if (f->count && !f->ref)
			return fi;
		f->ref -= f->ref != 0;
	}
}

/* Linux table: a bucket's flows counted by TAGS hash tags (the hash bits
 * above the bucket's), so that fast_find knows without walking the chain
 * (pointer chasing through up to 8 entries) that no flow has a hash. */
#define TAGS 64

static inline uint32_t
tag_of(const struct sofl_gro *g, uint32_t h)
{
	return (h & g->mask) * TAGS + ((h >> 3) & (TAGS - 1));
}

static void
table_unlink(struct sofl_gro *g, uint32_t fi)
{
	struct flow *f = &g->flows[fi];
	uint32_t p = f->cprev, n = f->chain;

	if (p != NIL)
		g->flows[p].chain = n;
	else
		bhead_set(g, f->hash & g->mask, n);
	if (n != NIL)
		g->flows[n].cprev = p;
	else if (g->lnx)
		g->tail[f->hash & g->mask] = p;
	if (g->lnx)
		g->cnt[f->hash & g->mask]--;
	else
		g->head[f->hash & g->mask] -= HB_ONE;
	if (g->lnx)
		g->tags[tag_of(g, f->hash)]--;
	if (g->use_age)
		DL_UNLINK(g, &g->age, fi, age_prev, age_next);
	g->held_flows--;
}

/* ---- outputs ---- */

static unsigned
hist_bin(uint32_t segs)
{
	unsigned b = 31u - (unsigned)__builtin_clz(segs);

	return b < SOFL_GRO_HIST_BINS ? b : SOFL_GRO_HIST_BINS - 1;
}

static struct sofl_gro_out *
out_begin(struct sofl_gro *g, uint32_t segs)
{
	struct sofl_gro_out *o = &g->outs[g->nout++];

	memset(o, 0, sizeof(*o));
	o->iov = &g->iov[g->niov];
	o->cookies = &g->cookies[g->ncook];
	o->segs = segs;
	g->st.pkts_out++;
	g->st.hist[hist_bin(segs)]++;
	return o;
}

/* An unchanged packet as one output; @return it.  The cursors are read
 * before the output is written (its byte stores could alias them). */
static struct sofl_gro_out *
out_single(struct sofl_gro *g, const uint8_t *frame, uint32_t len, uint64_t cookie, int csum,
	   uint16_t csum_start, uint16_t csum_off)
{
	uint32_t no = g->nout, ni = g->niov, nc = g->ncook;
	struct sofl_gro_out *o = &g->outs[no];
	struct iovec *v = &g->iov[ni];
	uint64_t *c = &g->cookies[nc];

	g->nout = no + 1;
	g->niov = ni + 1;
	g->ncook = nc + 1;
	g->st.pkts_out++;
	g->st.hist[0]++;	/* hist_bin(1) */
	v->iov_base = (void *)(uintptr_t)frame;
	v->iov_len = len;
	*c = cookie;
	memset(o, 0, sizeof(*o));
	o->iov = v;
	o->cookies = c;
	o->segs = 1;
	o->iovcnt = 1;
	o->len = len;
	o->csum = (uint8_t)csum;
	if (csum == SOFL_GRO_CSUM_VALID) {
		o->vnet.flags = SOFL_VNET_F_DATA_VALID;
	} else if (csum == SOFL_GRO_CSUM_PARTIAL) {
		o->csum_start = o->vnet.csum_start = csum_start;
		o->csum_offset = o->vnet.csum_offset = csum_off;
		o->vnet.flags = SOFL_VNET_F_NEEDS_CSUM;
	}
	return o;
}

static void
bypass(struct sofl_gro *g, const struct sofl_gro_in *in, int why)
{
	struct sofl_gro_out *o;

	g->st.bypass[why]++;
	o = out_single(g, in->data, in->len, in->cookie,
		       (in->flags & SOFL_GRO_F_CSUM_OK) ? SOFL_GRO_CSUM_VALID : SOFL_GRO_CSUM_NONE, 0, 0);
	o->bypass = 1;
	o->reason = (uint8_t)why;
}

/* Delivered alone after the L4 checksum stage: as Linux, a checksum verified
 * in software (or flagged) is reported (DATA_VALID), a pseudo sum accepted by
 * partial_ok as partial. */
static void
bypass_l4(struct sofl_gro *g, const struct sofl_gro_in *in, const struct sofl_pkt *q, int why,
	  int ck)
{
	struct sofl_gro_out *o;
	int csum = ck == CK_PARTIAL ? SOFL_GRO_CSUM_PARTIAL :
		   ck == CK_VALID || (in->flags & SOFL_GRO_F_CSUM_OK) ? SOFL_GRO_CSUM_VALID :
		   SOFL_GRO_CSUM_NONE;

	g->st.bypass[why]++;
	o = out_single(g, in->data, in->len, in->cookie, csum, q->l4_off,
		       q->l4_proto == 6 ? 16 : 6);
	o->bypass = 1;
	o->reason = (uint8_t)why;
}

/* Full TCP/UDP checksum of a super-packet: header in scratch (field zeroed)
 * plus the payload slices, each added at its running offset. */
static uint16_t
super_csum(const struct sofl_gro *g, const struct flow *f, const uint8_t *l4, uint32_t sum)
{
	uint32_t off = f->l4_len, si;

	sum = sofl_csum_add(sum, l4, f->l4_len);
	sum = sofl_csum_block_add(sum, sofl_csum_add(0, fframe(g, f) + f->hdr_len, f->mss), off);
	off += f->mss;
	for (si = f->seg_head; si != NIL; si = g->segs[si].next) {
		const struct seg *s = &g->segs[si];
		sum = sofl_csum_block_add(sum, sofl_csum_add(0, s->pay, s->len), off);
		off += s->len;
	}
	return (uint16_t)~sofl_csum_fold(sum);
}

/* Completion (§1.7): rewrite a copy of the first segment's headers. */
static void
out_super(struct sofl_gro *g, struct flow *f)
{
	struct sofl_gro_out *o = out_begin(g, f->count);
	uint8_t *h = g->scratch + g->sused, *ip = h + f->l3_off, *l4 = h + f->l4_off;
	uint32_t l4len = f->ip_len - (uint32_t)(f->l4_off - f->l3_off), si, next, len;
	uint16_t pseudo, co = f->proto == 6 ? 16 : 6;
	const struct seg *segs = g->segs;
	struct iovec *v;
	uint64_t *ck;

	g->sused += ((size_t)f->hdr_len + 7) & ~(size_t)7;
	memcpy(h, fhdr(f), f->hdr_len);
	if (f->ipv == 4)
		hdr_ipv4_set_len_incr(ip, (uint16_t)f->ip_len);
	else
		hdr_ipv6_set_len(ip, f->ip_len);
	pseudo = l4_pseudo(f->ipv, ip, f->proto, l4len);
	if (f->proto == 6) {
		l4[13] |= f->orflags;
		if (g->cfg.policy == SOFL_GRO_POLICY_RELAXED && f->last_l4) {
			memcpy(l4 + 8, f->last_l4 + 8, 4);	/* newest ACK */
			memcpy(l4 + 14, f->last_l4 + 14, 2);	/* newest window */
			if (f->ts_off)
				memcpy(l4 + f->ts_off + 2, f->last_l4 + f->ts_off + 2, 8);
		}
		o->gso_type = f->ipv == 4 ? SOFL_GRO_GSO_TCPV4 : SOFL_GRO_GSO_TCPV6;
	} else {
		sofl_put16(l4 + 4, (uint16_t)l4len);
		o->gso_type = SOFL_GRO_GSO_UDP_L4;
	}
	if (g->cfg.csum_full && f->proto == 6) {	/* UDP: see gro.h, Completion */
		uint16_t c;

		sofl_put16(l4 + co, 0);
		c = super_csum(g, f, l4, pseudo);
		/* as the device (skb_checksum_help) completing Linux's
		 * CHECKSUM_PARTIAL output stores it: 0 becomes 0xFFFF, for
		 * TCP too; both verify, this one is byte-identical */
		if (c == 0)
			c = 0xffff;
		sofl_put16(l4 + co, c);
		o->csum = SOFL_GRO_CSUM_VALID;
		o->vnet.flags = SOFL_VNET_F_DATA_VALID;
	} else {
		sofl_put16(l4 + co, pseudo);
		o->csum = SOFL_GRO_CSUM_PARTIAL;
		o->csum_start = o->vnet.csum_start = f->l4_off;
		o->csum_offset = o->vnet.csum_offset = co;
		o->vnet.flags = SOFL_VNET_F_NEEDS_CSUM;
	}
	o->gso_size = f->mss;
	o->vnet.gso_type = o->gso_type;
	o->vnet.gso_size = f->mss;
	o->vnet.hdr_len = f->hdr_len;

	/* one walk of the segment list (a chain of dependent loads), the
	 * cursors in locals: through g they were reloaded and stored back
	 * for every segment (the stores may alias them) */
	v = &g->iov[g->niov];
	ck = &g->cookies[g->ncook];
	v->iov_base = h;
	v->iov_len = f->hdr_len;
	v[1].iov_base = (void *)(uintptr_t)(fframe(g, f) + f->hdr_len);
	v[1].iov_len = f->mss;
	v += 2;
	*ck++ = f->cookie0;
	len = (uint32_t)f->hdr_len + f->mss;
	/* by runs of consecutive entries (a train's segments usually are):
	 * within a run the next index is si + 1, so the walk does not wait
	 * for each entry's link to load (the link only decides the run's end) */
	for (si = f->seg_head; si != NIL; si = next) {
		for (;;) {
			const struct seg *sg = &segs[si];
			next = sg->next;
			v->iov_base = (void *)(uintptr_t)sg->pay;
			v->iov_len = sg->len;
			v++;
			*ck++ = sg->cookie;
			len += sg->len;
			if (next != si + 1)
				break;
			si++;
		}
	}
	g->niov = (uint32_t)(v - g->iov);
	g->ncook = (uint32_t)(ck - g->cookies);
	o->len = len;
	g->segs[f->seg_tail].next = g->free_seg;	/* the chain back, in one piece */
	g->free_seg = f->seg_head;
	o->iovcnt = f->count + 1;
	g->st.super_pkts++;
	g->st.segs_merged += f->count;
}

/* Delivers held flow @fi (already out of the table); frees it and its
 * segments. */
static void
emit(struct sofl_gro *g, uint32_t fi, int why)
{
	struct flow *f = &g->flows[fi];

	if (f->count == 1) {
		int ck = f->ck == CK_PARTIAL ? SOFL_GRO_CSUM_PARTIAL : SOFL_GRO_CSUM_VALID;
		out_single(g, fframe(g, f), (uint32_t)f->hdr_len + f->mss, f->cookie0, ck, f->l4_off,
			   f->proto == 6 ? 16 : 6);
	} else {
		out_super(g, f);	/* frees the segments */
	}
	g->outs[g->nout - 1].reason = (uint8_t)why;
	g->st.flush[why]++;
	g->held_segs -= f->count;
	f->count = 0;		/* not held (fast_find's last_fi check) */
	g->fstack[g->nfree++] = fi;
}

/* Completes held flow @fi: delivered now, flow and segments freed. */
static __attribute__((noinline)) void
complete(struct sofl_gro *g, uint32_t fi, int why)
{
	table_unlink(g, fi);
	emit(g, fi, why);
}

/* ---- flow table ---- */

static inline uint64_t
ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t
ld32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* The flow key hashed (LRU table inputs without an rx hash): SipHash-1-3
 * under the engine's key (Linux hashes flows with siphash and a secret key
 * for the same reason: the sender chooses the 4-tuples) of one message,
 * built here for both the parse's key (key_hash) and the frame's bytes
 * (raw_key_msg), so that the two agree: IPv4: both addresses (a word),
 * ports, protocol (13 bytes); IPv6: the addresses (4 words), ports, flow
 * label, protocol (40 bytes); then, for tagged frames only, the VLAN IDs
 * (3 bytes).  @return the message's whole words in m, *last its last
 * block (siphash.h). */
HOT unsigned
key_msg(uint64_t *m, uint64_t *last, const uint8_t *src, const uint8_t *dst, unsigned ipv,
	uint32_t ports, uint8_t proto, uint32_t label, uint32_t vlans)
{
	if (ipv == 4) {
		m[0] = ld32(src) | (uint64_t)ld32(dst) << 32;
		if (!vlans) {
			*last = sofl_sip_last(ports | (uint64_t)proto << 32, 13);
			return 1;
		}
		m[1] = ports | (uint64_t)proto << 32 | (uint64_t)vlans << 40;
		*last = sofl_sip_last(0, 16);
		return 2;
	}
	m[0] = ld64(src);
	m[1] = ld64(src + 8);
	m[2] = ld64(dst);
	m[3] = ld64(dst + 8);
	m[4] = ports | (uint64_t)label << 32 | (uint64_t)proto << 56;
	*last = vlans ? sofl_sip_last(vlans, 43) : sofl_sip_last(0, 40);
	return 5;
}

/* An IPv4 address is read with the 4-byte load its parser wrote it with:
 * an 8-byte load spanning that store and the zeroing before it cannot be
 * forwarded from the store buffer. */
static uint32_t
key_hash(const struct sofl_gro *g, const struct sofl_pkt *q)
{
	uint32_t ports = (uint32_t)q->key.sport << 16 | q->key.dport;
	uint32_t vlans = (uint32_t)q->key.vlan[0] | (uint32_t)q->key.vlan[1] << 12;
	uint64_t m[5], last, h;
	unsigned nw = key_msg(m, &last, q->key.src, q->key.dst, q->key.family, ports,
			      q->key.proto, q->key.flow_label, vlans);

	h = sofl_siphash13(g->hkey, m, nw, last);
	return (uint32_t)(h ^ h >> 32);
}

/* The layouts the fast paths take: Ethernet without a VLAN tag (its type
 * matching the IP version) or raw IP, carrying IPv4 without options or
 * IPv6; the rest of each test is the caller's.  @return the IP header's
 * offset (0 or 14) with *v = 4 or 6, or -1: another layout, or fewer than
 * @min bytes from the IP header on. */
HOT int
fast_l3(const struct sofl_gro *g, const uint8_t *d, uint32_t len, uint32_t min, unsigned *v)
{
	const uint32_t l3 = g->cfg.link == SOFL_LINK_RAW ? 0 : PK_ETH_HLEN;
	const uint8_t *ip = d + l3;
	uint16_t type;

	if (len < l3 + min)
		return -1;
	type = l3 ? sofl_get16(d + 12) : 0;
	if (ip[0] == 0x45 && (!l3 || type == PK_ETH_P_IP)) {
		*v = 4;
		return (int)l3;
	}
	if ((ip[0] >> 4) == 6 && (!l3 || type == PK_ETH_P_IPV6)) {
		*v = 6;
		return (int)l3;
	}
	return -1;
}

/* key_hash()'s message straight from the frame, for the layouts that
 * dominate (Ethernet without a VLAN tag or raw IP; IPv4 without options
 * carrying TCP or UDP, not a fragment; IPv6 with TCP or UDP next): the
 * parse of such a frame has exactly these key fields, so the two agree and
 * the LRU table can try the fast path before parsing.  (A frame whose
 * TCP/UDP header then fails to parse is delivered at once: its hash
 * decides nothing.)  @return 4 or 6 (the IP version) with the message in
 * m and *last, 0 for any other layout (the caller parses), or 2: IPv4
 * that is neither TCP nor UDP with UDP GRO on, *last the IP header's
 * offset. */
HOT int
raw_key_msg(const struct sofl_gro *g, const uint8_t *d, uint32_t len, uint64_t *m, uint64_t *last)
{
	const uint8_t *ip;
	unsigned v;
	int l3 = fast_l3(g, d, len, 40 + 4, &v);

	if (l3 < 0)
		return 0;
	ip = d + l3;
	if (v == 4 && ip[9] != 6 && (ip[9] != 17 || !g->cfg.udp)) {
		*last = (uint32_t)l3;	/* for fast_other4() */
		return 2;	/* nothing to coalesce: see rx_chunk() */
	}
	if (v == 4 && !(ip[6] & 0x3f) && !ip[7] && (ip[9] == 6 || ip[9] == 17)) {
		key_msg(m, last, ip + 12, ip + 16, 4, sofl_get32(ip + 20), ip[9], 0, 0);
		return 4;
	}
	if (v == 6 && (ip[6] == 6 || ip[6] == 17)) {
		key_msg(m, last, ip + 8, ip + 24, 6, sofl_get32(ip + 40), ip[6],
			sofl_get32(ip) & 0x000fffff, 0);
		return 6;
	}
	return 0;
}

/* IPv4 header checksum of a 20-byte header: 1 when it verifies.  Summed in
 * memory-order 64-bit words (a byte swap keeps a sum's fold 0xffff or not),
 * end-around carries, one fold. */
static inline int
ip4_csum_ok(const uint8_t *ip)
{
	return sofl_fold64(sofl_adc64(sofl_adc64(ld64(ip), ld64(ip + 8)), ld32(ip + 16))) == 0xffff;
}

/* a != b over n bytes, n >= 8 or a multiple of 4 (inline, no libc call) */
static inline int
differ(const uint8_t *a, const uint8_t *b, unsigned n)
{
	uint64_t d = 0;
	unsigned i;

	if (n >= 8) {
		for (i = 0; i + 8 <= n; i += 8)
			d |= ld64(a + i) ^ ld64(b + i);
		if (i < n)
			d |= ld64(a + n - 8) ^ ld64(b + n - 8);
		return d != 0;
	}
	for (i = 0; i + 4 <= n; i += 4)
		d |= ld32(a + i) ^ ld32(b + i);
	for (; i < n; i++)
		d |= (uint64_t)(a[i] ^ b[i]);
	return d != 0;
}

/* differ() for the sizes that dominate: a 14-byte Ethernet header and the
 * 12-byte NOP NOP TS option block, as straight-line loads. */
static inline int
differ_n(const uint8_t *a, const uint8_t *b, unsigned n)
{
	if (n == 14)
		return ((ld64(a) ^ ld64(b)) | (ld64(a + 6) ^ ld64(b + 6))) != 0;
	if (n == 12)
		return ((ld64(a) ^ ld64(b)) | (uint64_t)(ld32(a + 8) ^ ld32(b + 8))) != 0;
	return n && differ(a, b, n);
}

/* #1-#3: the same-flow filter of gro_list_prepare / inet / ipv6_gro_receive */
HOT int
same_flow(const struct flow *f, const struct sofl_pkt *q)
{
	const uint8_t *a = fhdr(f), *b = q->data;

	if (f->l3_off != q->l3_off || differ_n(a, b, f->l3_off))
		return 0;
	a += f->l3_off;
	b += q->l3_off;
	if (f->ipv == 4)
		return ld64(a + 12) == ld64(b + 12);
	if (((sofl_get32(a) ^ sofl_get32(b)) & 0xf00fffffu) || a[6] != b[6] ||
	    differ(a + 8, b + 8, 32) || f->l3_len != q->l3_len)
		return 0;
	return f->l3_len == 40 || !differ(a + 40, b + 40, f->l3_len - 40u);
}

/* #4: first held flow (newest first) with the same L2/L3 and ports */
HOT uint32_t
lookup(const struct sofl_gro *g, const struct sofl_pkt *q, uint32_t h, uint32_t b, uint32_t ports)
{
	uint32_t fi;

	if (g->nohash && g->nohash_h == h)
		return NIL;		/* fast_find just saw no flow with this hash */
	for (fi = bhead(g, b); fi != NIL; fi = g->flows[fi].chain) {
		const struct flow *f = &g->flows[fi];
		if (f->hash == h && f->ports == ports && f->proto == q->l4_proto &&
		    f->ipv == q->ipv && same_flow(f, q))
			return fi;
	}
	return NIL;
}

/* LRU table: the oldest flow of a full chain (one a hash collision keeps
 * long: flows crafted to collide, or the caller's rx hashes), completed
 * to hold a new one, so that no walk passes LRU_CHAIN_MAX entries. */
static __attribute__((noinline)) uint32_t
chain_oldest(const struct sofl_gro *g, uint32_t b)
{
	uint32_t fi = bhead(g, b);

	while (g->flows[fi].chain != NIL)
		fi = g->flows[fi].chain;
	return fi;
}

/* Linux: the oldest held packet of the bucket (gro_flush_oldest, #29) */
static uint32_t
bucket_oldest(const struct sofl_gro *g, uint32_t b)
{
	return g->tail[b];
}

/* fast_merge's masks: for a header layout (L3 offset, IP version, L3 and
 * TCP header lengths), byte i of the mask keeps the bits of header byte i
 * that a mergeable segment must have as the flow's first segment: all but
 * the IPv4 ID and checksum, the TCP sequence number (ID and sequence number
 * are checked apart), PSH and FIN, the TCP checksum and urgent pointer
 * (which Linux ignores too).  The IP length fields stay: fast_same takes
 * full-size segments only, whose lengths are the first segment's (a held
 * first segment has no padding: ip_end == len).
 * A few layouts cover a queue's traffic, so they live in the engine
 * (cached) rather than in each flow.  @return the mask's index, or NO_MASK
 * (header longer than MASK_LEN or shorter than 32, table full). */
static uint8_t
mask_for(struct sofl_gro *g, const struct flow *f)
{
	uint32_t key = (uint32_t)f->l3_off << 24 | (uint32_t)f->ipv << 16 |
		       (uint32_t)f->l3_len << 8 | f->l4_len, i;
	uint8_t *m;

	if (f->hdr_len > MASK_LEN || f->hdr_len < 32)
		return NO_MASK;
	for (i = 0; i < g->nmask; i++)
		if (g->mask_key[i] == key)
			return (uint8_t)i;
	if (g->nmask == NMASK)
		return NO_MASK;
	m = g->mask_b[g->nmask];
	memset(m, 0xff, MASK_LEN);
	if (f->ipv == 4) {
		memset(m + f->l3_off + 4, 0, 2);	/* ID */
		memset(m + f->l3_off + 10, 0, 2);	/* header checksum */
	}
	memset(m + f->l4_off + 4, 0, 4);		/* sequence number */
	m[f->l4_off + 13] = (uint8_t)~(SOFL_TCP_PSH | SOFL_TCP_FIN);
	memset(m + f->l4_off + 16, 0, 4);		/* checksum, urgent pointer */
	g->mask_key[g->nmask] = key;
	return (uint8_t)g->nmask++;
}

/* What holding a packet takes from its parse (fast_hold: from its own tests) */
struct hinfo {
	const uint8_t *data;
	uint32_t seq, pay_len, ip_len;	/* ip_len: IP header .. end of payload */
	uint16_t l3_off, l3_len, l4_off, l4_len, pay_off;
	uint16_t ts_off;		/* relaxed policy: TS option offset in the TCP header */
	uint8_t ipv, proto;
};

#define FS_AHEAD 16	/* holds between a free entry's prefetch and its use */
#define FS_CHUNK 4096	/* free-stack entries written at a time */

/* The free stack below fs_lo holds, implicitly, the entries never used
 * (fstack[i] = nflows - 1 - i, entry 0 on top): written FS_CHUNK at a
 * time before a hold would read below fs_lo (or its prefetch would), so
 * that creating a large table does not write (and back) all of it. */
static __attribute__((noinline)) void
fstack_grow(struct sofl_gro *g)
{
	uint32_t lo = g->fs_lo > FS_CHUNK ? g->fs_lo - FS_CHUNK : 0, i;

	for (i = lo; i < g->fs_lo; i++)
		g->fstack[i] = g->nflows - 1 - i;
	g->fs_lo = lo;
	g->fs_grow_at = lo ? lo + FS_AHEAD : 0;
}
/* seg_tail of a flow holding its first segment only: the first segment
 * appended is linked from this spare entry (segs[seg_cap]), read back into
 * seg_head (append_seg, fast_train) — no test in a train's loop */
#define SINK(g) ((g)->seg_cap)

/* Holds @in as a new flow in bucket @b.  @lnx: the engine's g->lnx, a
 * constant where the caller knows it; @fastp: called from a fast path (the
 * Linux policy: nothing for the relaxed one to keep). */
HOT void
hold_in(struct sofl_gro *g, const struct sofl_gro_in *in, const struct hinfo *x, uint32_t h,
	uint32_t b, uint32_t ports, int ck, const int lnx, const int fastp)
{
	struct flow *f;
	uint32_t fi;

	if (lnx && g->cnt[b] >= LNX_PER_BUCKET)
		complete(g, bucket_oldest(g, b), SOFL_GRO_FLUSH_EVICT);
	else if (!lnx && g->head[b] >= LRU_CHAIN_MAX * HB_ONE)
		complete(g, chain_oldest(g, b), SOFL_GRO_FLUSH_EVICT);
	else if (!lnx && g->held_flows == g->nflows)
		complete(g, clock_victim(g), SOFL_GRO_FLUSH_EVICT);
	if (!lnx && g->nfree <= g->fs_grow_at)	/* (the Linux table's is written whole) */
		fstack_grow(g);
	fi = g->fstack[--g->nfree];
	f = &g->flows[fi];
	/* with many flows the entries holds take are cold: a free stack (not
	 * a list through the entries, whose every pop waited for the last
	 * one's miss) lets the entry FS_AHEAD holds away be fetched now */
	if (!lnx && g->pf && g->nfree >= FS_AHEAD)
		flow_prefetch(g, g->fstack[g->nfree - FS_AHEAD]);

	f->hash = h;
	f->ports = ports;
	f->ipv = x->ipv;
	f->proto = x->proto;
	f->l4_len = (uint8_t)x->l4_len;
	f->ck = (uint8_t)ck;
	f->l3_off = x->l3_off;
	f->l3_len = x->l3_len;
	f->l4_off = x->l4_off;
	f->hdr_len = x->pay_off;
	f->mss = (uint16_t)x->pay_len;
	f->count = 1;
	if (!fastp)
		f->ulen = (uint16_t)(x->pay_len + 8);	/* UDP only */
	f->fixedid = 0;
	f->orflags = 0;
	f->next_seq = x->seq + x->pay_len;
	f->ip_len = x->ip_len;
	f->seg_head = NIL;
	f->seg_tail = SINK(g);
	f->cookie0 = in->cookie;
	f->hdr = x->data;
	if (!lnx) {		/* (the Linux table: fframe() is hdr) */
		f->frame = x->data;
		if (g->pf && x->pay_off <= HCOPY) {
			/* a constant size copies inline (the bytes past the
			 * headers are never read); a short frame copies its own */
			if (x->pay_off + x->pay_len >= HCOPY)
				memcpy(f->hc, x->data, HCOPY);
			else
				memcpy(f->hc, x->data, x->pay_off);
			f->hdr = f->hc;
		}
	}
	f->ref = REF_HELD;
	f->mk = MK_UNSET;	/* most flows of a many-flow poll never see a 2nd segment */
	if (!fastp && g->cfg.policy == SOFL_GRO_POLICY_RELAXED) {	/* (relaxed policy only) */
		f->last_l4 = x->data + x->l4_off;
		f->ts_off = x->ts_off;
	}
	if (g->timeout_ns)
		f->age = g->now;

	f->chain = bhead(g, b);
	f->cprev = NIL;
	if (f->chain != NIL)
		g->flows[f->chain].cprev = fi;
	else if (lnx)
		g->tail[b] = fi;
	if (lnx)
		g->head[b] = fi + 1;	/* (no count bits) */
	else
		g->head[b] = (g->head[b] & ~HB_IDX) + HB_ONE + (fi + 1);
	if (lnx) {
		g->cnt[b]++;
		g->tags[b * TAGS + ((h >> 3) & (TAGS - 1))]++;	/* tag_of(g, h) */
	}
	if (!lnx || g->timeout_ns)	/* g->use_age */
		DL_LINK(g, &g->age, fi, age_prev, age_next);
	g->held_flows++;
	g->held_segs++;
}

/* hold_in() for a parsed packet */
static void
hold(struct sofl_gro *g, const struct sofl_gro_in *in, const struct sofl_pkt *q, uint32_t h,
     uint32_t b, uint32_t ports, int ck)
{
	struct hinfo x;

	x.data = q->data;
	x.seq = q->tcp_seq;
	x.pay_len = q->pay_len;
	x.ip_len = q->ip_end - q->l3_off;
	x.l3_off = q->l3_off;
	x.l3_len = q->l3_len;
	x.l4_off = q->l4_off;
	x.l4_len = q->l4_len;
	x.pay_off = (uint16_t)q->pay_off;
	x.ts_off = q->opt_ts ? (uint16_t)(q->opt_ts - q->l4_off) : 0;
	x.ipv = q->ipv;
	x.proto = q->l4_proto;
	if (g->lnx)
		hold_in(g, in, &x, h, b, ports, ck, 1, 0);
	else
		hold_in(g, in, &x, h, b, ports, ck, 0, 0);
}

/* Appends a segment: payload @pay (@len bytes). */
HOT void
append_seg(struct sofl_gro *g, struct flow *f, const uint8_t *pay, uint32_t len, uint64_t cookie)
{
	uint32_t si = g->free_seg;
	struct seg *s = &g->segs[si];

	g->free_seg = s->next;
	s->pay = pay;
	s->len = len;
	s->next = NIL;
	s->cookie = cookie;
	g->segs[f->seg_tail].next = si;
	if (f->seg_head == NIL)
		f->seg_head = si;
	f->seg_tail = si;
	f->count++;
	f->next_seq += len;
	f->ip_len += len;
	f->ref = REF_USED;
	g->held_segs++;
}

HOT void
append(struct sofl_gro *g, uint32_t fi, const struct sofl_gro_in *in, const struct sofl_pkt *q)
{
	struct flow *f = &g->flows[fi];

	append_seg(g, f, q->data + q->pay_off, q->pay_len, in->cookie);
	if (g->cfg.policy == SOFL_GRO_POLICY_RELAXED)	/* (line 1: the only reader) */
		f->last_l4 = q->data + q->l4_off;
}

/* ---- merge rules ---- */

/* §1.5 gro_receive_network_flush: -1 = fine, else a flush reason */
HOT int
network_flush(struct flow *f, const struct sofl_pkt *q)
{
	const uint8_t *a = q->data + q->l3_off, *b = fhdr(f) + f->l3_off;

	if (f->ipv == 4) {
		uint16_t off, cnt = f->count;

		if (a[8] != b[8] || a[1] != b[1] || ((a[6] ^ b[6]) & 0x40))
			return SOFL_GRO_FLUSH_HDR;		/* #13 TTL, TOS, DF */
		off = (uint16_t)(sofl_get16(a + 4) - sofl_get16(b + 4));
		if (cnt == 1 && off == 0)
			f->fixedid = 1;				/* latched by the 2nd segment */
		if ((off ^ (f->fixedid ? 0 : cnt)) != 0)
			return SOFL_GRO_FLUSH_IPID;		/* #14 */
		return -1;
	}
	if (((sofl_get32(a) ^ sofl_get32(b)) & 0x0ff00000u) || a[7] != b[7])
		return SOFL_GRO_FLUSH_HDR;			/* #15 traffic class, hop limit */
	return -1;
}

/* relaxed: a 32-bit value may stay or advance (serial arithmetic) */
static int
went_back(const uint8_t *now, const uint8_t *before)
{
	return (int32_t)(sofl_get32(now) - sofl_get32(before)) < 0;
}

/* TCP options: linux #19 all bytes identical; relaxed: identical except the
 * timestamp values, which may advance. */
static int
options_differ(const struct sofl_gro *g, const struct flow *f, const uint8_t *th,
	       const struct sofl_pkt *q)
{
	const uint8_t *th2 = fhdr(f) + f->l4_off;
	unsigned n = q->l4_len;

	if (g->cfg.policy == SOFL_GRO_POLICY_LINUX || !f->ts_off)
		return differ_n(th + 20, th2 + 20, n - 20);
	if (!q->opt_ts || (unsigned)(q->opt_ts - q->l4_off) != f->ts_off)
		return 1;
	if (memcmp(th + 20, th2 + 20, f->ts_off + 2u - 20) != 0 ||
	    memcmp(th + f->ts_off + 10, th2 + f->ts_off + 10, n - f->ts_off - 10u) != 0)
		return 1;
	return went_back(th + f->ts_off + 2, f->last_l4 + f->ts_off + 2) ||
	       went_back(th + f->ts_off + 6, f->last_l4 + f->ts_off + 6);
}

/* tcp_gro_receive's flush accumulation (#16-#22): -1 = merge */
static int
tcp_flush(const struct sofl_gro *g, struct flow *f, const struct sofl_pkt *q)
{
	const uint8_t *th = q->data + q->l4_off, *th2 = fhdr(f) + f->l4_off;
	uint32_t mask = ~(TW_FIN | TW_PSH), len = q->pay_len;
	int relaxed = g->cfg.policy == SOFL_GRO_POLICY_RELAXED, r;

	if (len == 0)
		return SOFL_GRO_FLUSH_NOPAYLOAD;			/* #22 */
	if (q->tcp_flags & SOFL_TCP_CWR)
		return SOFL_GRO_FLUSH_CWR;				/* #18 (6.15..6.18) */
	if (relaxed)
		mask &= ~TW_WIN;
	if ((sofl_get32(th + 12) ^ sofl_get32(th2 + 12)) & mask)
		return SOFL_GRO_FLUSH_HDR;				/* #17, #25 */
	if (relaxed ? went_back(th + 8, f->last_l4 + 8) : sofl_get32(th + 8) != sofl_get32(th2 + 8))
		return SOFL_GRO_FLUSH_HDR;				/* #16 */
	if (q->l4_len > 20 && options_differ(g, f, th, q))
		return SOFL_GRO_FLUSH_HDR;				/* #19 */
	r = network_flush(f, q);					/* #13-#15 */
	if (r >= 0)
		return r;
	if (len > f->mss)
		return SOFL_GRO_FLUSH_BIGGER;				/* #21 */
	if (q->tcp_seq != f->next_seq)
		return SOFL_GRO_FLUSH_SEQ;				/* #20 */
	if (f->ip_len + len > g->cfg.max_size)
		return SOFL_GRO_FLUSH_SIZE;				/* #26 */
	if (f->count >= g->cfg.max_segs)
		return SOFL_GRO_FLUSH_SEGS;
	return -1;
}

#define TCP_FINAL (SOFL_TCP_URG | SOFL_TCP_PSH | SOFL_TCP_RST | SOFL_TCP_SYN | SOFL_TCP_FIN)

HOT void
tcp_rx(struct sofl_gro *g, const struct sofl_gro_in *in, const struct sofl_pkt *q, uint32_t h,
       uint32_t b, uint32_t ports, int badlen, int ck)
{
	uint32_t fi = lookup(g, q, h, b, ports);
	struct flow *f;
	int r;

	if (fi != NIL) {
		f = &g->flows[fi];
		r = badlen ? SOFL_GRO_FLUSH_BADLEN : tcp_flush(g, f, q);
		if (r < 0) {
			append(g, fi, in, q);
			f->next_id = (uint16_t)(sofl_get16(q->data + q->l3_off + 4) + !f->fixedid);
			f->orflags |= q->tcp_flags & (SOFL_TCP_FIN | SOFL_TCP_PSH);
			if (q->tcp_flags & TCP_FINAL)
				complete(g, fi, SOFL_GRO_FLUSH_PSH_FIN);	/* #24 */
			else if (q->pay_len < f->mss)
				complete(g, fi, SOFL_GRO_FLUSH_SHORT);	/* #23 */
			return;
		}
		complete(g, fi, r);	/* FLUSH-P: the flow goes out, q starts afresh below */
	}
	if (badlen)
		bypass_l4(g, in, q, SOFL_GRO_BYPASS_BADLEN, ck);
	else if (q->pay_len == 0)
		bypass_l4(g, in, q, SOFL_GRO_BYPASS_NOPAYLOAD, ck);
	else if (q->tcp_flags & TCP_FINAL)
		bypass_l4(g, in, q, SOFL_GRO_BYPASS_FLAGS, ck);
	else
		hold(g, in, q, h, b, ports, ck);
}

/* udp_gro_receive_segment (§1.9) */
static void
udp_rx(struct sofl_gro *g, const struct sofl_gro_in *in, const struct sofl_pkt *q, uint32_t h,
       uint32_t b, uint32_t ports, int badlen, int ck)
{
	const uint8_t *uh = q->data + q->l4_off;
	uint32_t ulen = sofl_get16(uh + 4), fi;
	struct flow *f;
	int r;

	if (sofl_get16(uh + 6) == 0) {
		bypass_l4(g, in, q, SOFL_GRO_BYPASS_UDP_CSUM0, ck);
		return;
	}
	if (ulen <= 8 || ulen != q->len - q->l4_off) {
		bypass_l4(g, in, q, SOFL_GRO_BYPASS_UDP_LEN, ck);	/* padded or malicious */
		return;
	}
	fi = lookup(g, q, h, b, ports);
	if (fi != NIL) {
		f = &g->flows[fi];
		r = network_flush(f, q);
		if (r < 0 && ulen > f->ulen)
			r = SOFL_GRO_FLUSH_BIGGER;
		if (r < 0 && badlen)
			r = SOFL_GRO_FLUSH_BADLEN;
		if (r < 0 && f->ip_len + q->pay_len > g->cfg.max_size)
			r = SOFL_GRO_FLUSH_SIZE;
		if (r < 0 && f->count >= g->cfg.max_segs)
			r = SOFL_GRO_FLUSH_SEGS;
		if (r < 0) {
			append(g, fi, in, q);
			if (ulen != f->ulen)
				complete(g, fi, SOFL_GRO_FLUSH_SHORT);
			else if (f->count >= SOFL_GRO_UDP_MAX)
				complete(g, fi, SOFL_GRO_FLUSH_UDP_MAX);
			return;
		}
		complete(g, fi, r);
	}
	if (badlen)
		bypass_l4(g, in, q, SOFL_GRO_BYPASS_BADLEN, ck);
	else
		hold(g, in, q, h, b, ports, ck);
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

/* When a held flow is first compared: its mask, and the next IPv4 ID
 * (merges the general way keep it up to date from then on).  A TCP flow
 * whose first segment has CWR gets no fast path (no segment joins it: #18).
 * 0: no fast path for @f. */
static int
fast_setup(struct sofl_gro *g, struct flow *f)
{
	const uint8_t *h = fhdr(f);

	if (f->proto != 6 || (h[f->l4_off + 13] & SOFL_TCP_CWR))
		f->mk = NO_MASK;
	else
		f->mk = mask_for(g, f);
	f->next_id = (uint16_t)(sofl_get16(h + f->l3_off + 4) + (f->fixedid ? 0 : f->count));
	return f->mk != NO_MASK;
}

/* @in (its rx hash @h) is the next full-size segment of held flow @f. */
HOT int
fast_same(struct sofl_gro *g, struct flow *f, const struct sofl_gro_in *in, uint32_t h)
{
	const uint8_t *d = in->data;

	if (!f->count || f->hash != h || in->len != (uint32_t)f->hdr_len + f->mss)
		return 0;
	if (f->mk >= NMASK && (f->mk == NO_MASK || !fast_setup(g, f)))
		return 0;
	return same_masked(fhdr(f), d, g->mask_b[f->mk], f->hdr_len) &&
	       sofl_get32(d + f->l4_off + 4) == f->next_seq &&
	       (f->ipv != 4 || sofl_get16(d + f->l3_off + 4) == f->next_id);
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

/* sw_csums_c() out of line: what keeps the loops small where the kernel is
 * not inline (and the layouts and sizes sw_csums_inl leaves) */
static __attribute__((noinline)) int
sw_csums_call(struct sofl_gro *g, uint32_t fi, const struct swck *c, const uint8_t *d,
	      uint32_t fl, uint32_t *nip, uint32_t *nl4)
{
	return sw_csums_c(g, fi, c, d, fl, nip, nl4);
}

#if GRO_AVX2
/* sw_csums_c() with the AVX-512 kernel inline, for the loops of
 * train_more_avx512 and weave_avx512 (which inline it: they are compiled
 * for AVX-512) */
static inline SOFL_PKT_TARGET int
sw_csums_inl(struct sofl_gro *g, uint32_t fi, const struct swck *c, const uint8_t *d, uint32_t fl,
	     uint32_t *nip, uint32_t *nl4)
{
	const int sw_ip = c->v4 && !(fl & SOFL_GRO_F_IPCSUM_OK);

	if (!c->len || (!(fl & SOFL_GRO_F_CSUM_OK) && !SOFL_PKT_LEN(c->len)))
		return sw_csums_call(g, fi, c, d, fl, nip, nl4);
	if ((sw_ip && !ip4_csum_ok(d + c->l3)) ||
	    (!(fl & SOFL_GRO_F_CSUM_OK) && !sofl_pkt_verify(c->sum, d + c->off, c->len)))
		return 0;
	*nl4 += !(fl & SOFL_GRO_F_CSUM_OK);
	*nip += (uint32_t)sw_ip;
	return 1;
}
#endif

/* sw_csums_call(), or with @inl sw_csums_inl() */
HOT int
sw_csums(struct sofl_gro *g, uint32_t fi, const struct swck *c, const uint8_t *d, uint32_t fl,
	 uint32_t *nip, uint32_t *nl4, const int inl)
{
#if GRO_AVX2
	if (inl)
		return sw_csums_inl(g, fi, c, d, fl, nip, nl4);
#else
	(void)inl;
#endif
	return sw_csums_call(g, fi, c, d, fl, nip, nl4);
}

/* One input that passed fast_same merged into held flow @fi (a train of
 * one, without a train's set-up): 1 merged (perhaps completed), 0 not. */
HOT int
fast_one(struct sofl_gro *g, uint32_t fi, const struct sofl_gro_in *in)
{
	struct flow *f = &g->flows[fi];
	const uint8_t *d = in->data;
	uint8_t flags;

	if (f->ip_len + f->mss > g->cfg.max_size || f->count >= g->cfg.max_segs)
		return 0;	/* #26, max_segs */
	if ((in->flags & (SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK)) !=
	    (SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK) && !fast_csums(g, f, d, in->flags))
		return 0;
	flags = d[f->l4_off + 13];
	g->last_fi = fi;
	append_seg(g, f, d + f->hdr_len, f->mss, in->cookie);
	f->next_id = (uint16_t)(f->next_id + !f->fixedid);
	if (flags & (SOFL_TCP_FIN | SOFL_TCP_PSH)) {
		f->orflags |= flags & (SOFL_TCP_FIN | SOFL_TCP_PSH);
		complete(g, fi, SOFL_GRO_FLUSH_PSH_FIN);	/* #24 */
	}
	return 1;
}

/* A train's running state: the flow's fields, kept in registers (through
 * the flow they would be reloaded after every store into a segment) */
struct train {
	uint32_t seq, iplen, tail, fs, cnt, max, mss, hl;
	uint16_t id, idinc;
	uint8_t flags;
};

/* A train's state from held flow @f (the free segments from the engine).
 * Its segments are full-size, so the segment cap is a size limit too: max
 * is the lower of max_size and the IP length at max_segs segments. */
HOT void
train_begin(const struct sofl_gro *g, const struct flow *f, struct train *r)
{
	const uint32_t room = g->cfg.max_segs > f->count ? g->cfg.max_segs - f->count : 0;
	const uint64_t lim = f->ip_len + (uint64_t)room * f->mss;

	r->seq = f->next_seq;
	r->iplen = f->ip_len;
	r->tail = f->seg_tail;
	r->fs = g->free_seg;
	r->cnt = f->count;
	r->max = lim < g->cfg.max_size ? (uint32_t)lim : g->cfg.max_size;
	r->mss = f->mss;
	r->hl = f->hdr_len;
	r->id = f->next_id;
	r->idinc = !f->fixedid;
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
 * hash; @c, @nip, @nl4, @inl: sw_csums): the usual case — hash, both
 * checksums verified — in one compare. */
HOT int
train_flags_ok(struct sofl_gro *g, uint32_t fi, const struct sofl_gro_in *p, const uint8_t *d,
	       uint32_t h, const struct swck *c, uint32_t *nip, uint32_t *nl4, const int inl)
{
	const uint32_t all = SOFL_GRO_F_HASH | SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK;

	if ((p->flags & all) == all)
		return p->hash == h;
	if (((p->flags & SOFL_GRO_F_HASH) ? p->hash : 0) != h)
		return 0;
	return (p->flags & (SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK)) ==
	       (SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK) || sw_csums(g, fi, c, d, p->flags, nip, nl4, inl);
}

/* The rest of a train, from in[i] on: fast_same's test with the first
 * segment's headers and the mask in registers (@nck 16-byte words: 5 for
 * headers up to 80 bytes, 6 up to 96; 0: compared from memory), @v4 the
 * flow's IP version is 4.  The size limit (#26) is turned into a segment
 * count once; the train's state is a local copy (registers) written back
 * at the end.  @return the index of the first input not merged. */
HOT size_t
train_loop(struct sofl_gro *g, const struct flow *f, struct train *rp, const struct sofl_gro_in *in,
	   size_t i, size_t n, const int nck, const int v4, const int inl)
{
	struct train r = *rp;
	const uint8_t *t = fhdr(f), *m = g->mask_b[f->mk];
	const uint32_t hl = r.hl, full = hl + r.mss, h = f->hash, l3 = f->l3_off;
	const uint32_t seqo = f->l4_off + 4u, flo = f->l4_off + 13u;
	const uint32_t fi = (uint32_t)(f - g->flows);
	uint32_t room = r.iplen < r.max ? (r.max - r.iplen) / r.mss : 0, nip = 0, nl4 = 0;
	size_t end = n - i < room ? n : i + room;
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

	if (nck == 32)
		ycmp_init(&y, t, m, hl);
#endif
	/* a train of inputs flagged verified needs no layout (if one is not,
	 * len 0 sends it to fast_csums) */
	memset(&c, 0, sizeof(c));
	if (i < n && !(in[i].flags & SOFL_GRO_F_CSUM_OK))
		swck_init(&c, f);
	for (; i < end; i++) {
		const struct sofl_gro_in *p = &in[i];
		const uint8_t *d = p->data;

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
		if (sofl_get32(d + seqo) != r.seq || (v4 && sofl_get16(d + l3 + 4) != r.id))
			break;
		if (!train_flags_ok(g, fi, p, d, h, &c, &nip, &nl4, inl))
			break;
		train_push(g, &r, &r.fs, p, d[flo]);
		if (r.flags & (SOFL_TCP_FIN | SOFL_TCP_PSH)) {
			i++;
			break;
		}
	}
	g->st.csum_sw_ip += nip;
	g->st.csum_sw_l4 += nl4;
	*rp = r;
	return i;
}

#if GRO_AVX2
/* train_more() for headers of 32..96 bytes on a CPU with AVX2 */
static __attribute__((noinline, target("avx2"))) size_t
train_more_avx2(struct sofl_gro *g, const struct flow *f, struct train *r,
		const struct sofl_gro_in *in, size_t i, size_t n)
{
	if (f->ipv == 4)
		return train_loop(g, f, r, in, i, n, 32, 1, 0);
	return train_loop(g, f, r, in, i, n, 32, 0, 0);
}

/* train_more() with TCP checksums to verify, headers of 32..96 bytes, on a
 * CPU with AVX-512: the compare of train_more_avx2 and the checksums summed
 * inline (sw_csums_inl) */
static __attribute__((noinline, flatten, target("avx2,avx512f,avx512bw,avx512vl,avx512vnni,bmi2"))) size_t
train_more_avx512(struct sofl_gro *g, const struct flow *f, struct train *r,
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
	/* TCP checksums to verify: with AVX-512 the kernel is inlined and
	 * the headers stay in registers; otherwise a kernel call per segment
	 * would cost a loop holding them in vector registers a spill and
	 * reload each time, and the compare from memory costs less */
	if (!(in[i].flags & SOFL_GRO_F_CSUM_OK)) {
#if GRO_AVX2
		if (g->isa == 2 && r->hl >= 32 && r->hl <= 96)
			return train_more_avx512(g, f, r, in, i, n);
#endif
		return f->ipv == 4 ? train_loop(g, f, r, in, i, n, 0, 1, 0) :
				     train_loop(g, f, r, in, i, n, 0, 0, 0);
	}
#if GRO_AVX2
	if (g->isa && r->hl >= 32 && r->hl <= 96)
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
		complete(g, fi, SOFL_GRO_FLUSH_PSH_FIN);	/* #24 */
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
 * in 32-byte words (AVX2, headers of 32..96 bytes), @inl sums checksums
 * inline (AVX-512).  @return the index of the first input not merged (i:
 * none was). */
HOT size_t
weave_loop(struct sofl_gro *g, const struct sofl_gro_in *in, size_t i, size_t n, uint32_t fi,
	   uint32_t *donep, const int y, const int inl)
{
	struct strand s[WEAVE], *st;
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
		if (sofl_get32(d + st->seqo) != st->r.seq ||
		    (st->v4 && sofl_get16(d + st->l3 + 4) != st->r.id))
			break;
		if ((p->flags & (SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK)) !=
		    (SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK) &&
		    !sw_csums(g, st->fi, &st->ck, d, p->flags, &nip, &nl4, inl))
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
	return weave_loop(g, in, i, n, fi, done, 1, 0);
}

static __attribute__((noinline, flatten, target("avx2,avx512f,avx512bw,avx512vl,avx512vnni,bmi2")))
size_t
weave_avx512(struct sofl_gro *g, const struct sofl_gro_in *in, size_t i, size_t n, uint32_t fi,
	     uint32_t *done)
{
	return weave_loop(g, in, i, n, fi, done, 1, 1);
}
#endif

/* 1 when the flow of in[i] (rx hash @h; in[i + 1] is another flow's) comes
 * again within the next WEAVE inputs: flows in a rotation a weave can hold.
 * In a longer one every merge would pay a strand's set-up (a table lookup,
 * the flow's state copied in and back) and none would repay it: measured,
 * 16 flows in turn took 31 ns per packet in weaves against 25 input by
 * input. */
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
		i = g->isa == 2 && !(in[i].flags & SOFL_GRO_F_CSUM_OK) ?
		    weave_avx512(g, in, i, n, fi, &done) : weave_avx2(g, in, i, n, fi, &done);
	else
#endif
		i = weave_loop(g, in, i, n, fi, &done, 0, 0);
	if (done != NIL)
		complete(g, done, SOFL_GRO_FLUSH_PSH_FIN);
	return i;
}

/* An IPv4 header (no options) of a packet the fast paths may take: not a
 * fragment, reserved bit clear (#6, #9), total length the @tot bytes
 * received (no padding, #8). */
HOT int
ip4_whole(const uint8_t *ip, uint32_t tot)
{
	return !(ip[6] & 0xbf) && !ip[7] && sofl_get16(ip + 2) == tot;
}

/* An IPv4 packet without options, not a fragment, no padding (@tot bytes
 * from @ip), not TCP, that fast_hold saw: delivered at once as the general
 * way would (classify: PROTO; UDP: MALFORMED for the parser's UDP length
 * errors, UDP_OFF when UDP GRO is off), without the full parse.  0: the
 * general way decides. */
static int
fast_bypass4(struct sofl_gro *g, const struct sofl_gro_in *in, const uint8_t *ip, uint32_t tot)
{
	uint32_t ulen;

	if (ip[9] != 17) {
		bypass(g, in, SOFL_GRO_BYPASS_PROTO);
		return 1;
	}
	ulen = tot >= 20 + 8 ? sofl_get16(ip + 20 + 4) : 0;
	if (ulen < 8 || ulen > tot - 20) {
		bypass(g, in, SOFL_GRO_BYPASS_MALFORMED);	/* the parser's UDP error */
		return 1;
	}
	if (g->cfg.udp)
		return 0;	/* UDP GRO: the general way */
	bypass(g, in, SOFL_GRO_BYPASS_UDP_OFF);
	return 1;
}

#if GRO_AVX2
/* l4_sum_ok() for fast_hold's layouts (no IPv4 options, no IPv6 extension
 * headers) with the AVX-512 kernel inline (fast_holds_avx512 only) */
static inline SOFL_PKT_TARGET int
hold_sum_inl(unsigned ipv, const uint8_t *ip, uint32_t l4len)
{
	const struct l4span sp = l4_span(ipv, 6, l4len);

	return SOFL_PKT_LEN(sp.len) ? sofl_pkt_verify(sp.sum, ip + sp.off, sp.len)
				    : csum_ok(sp.sum, ip + sp.off, sp.len);
}
#else
#define hold_sum_inl(ipv, ip, l4len) 0	/* (never reached) */
#endif

/* ---- fast hold ----
 * The first segment of a new TCP flow (fast_find saw no held flow with its
 * rx hash, so the general way's lookup finds none either) held without the
 * full parse, for the layouts that dominate: Ethernet (no VLAN tag) or raw
 * IP, IPv4 without options or IPv6 without extension headers, TCP with
 * payload and none of the flags that deliver at once, no flow rules;
 * checksums not flagged verified are verified here (and counted only when
 * they pass).  The tests here are exactly those the general way (parse,
 * classify, tcp_rx) passes such a packet through before hold(); anything
 * else — a fragment, padding, a bad length, a flag, a checksum that does not
 * verify (bad, or a pseudo sum for partial_ok) — declines and takes the
 * general way, which counts and decides it.  Not TCP over such an IPv4
 * header: fast_bypass4. */
HOT int
fast_hold(struct sofl_gro *g, const struct sofl_gro_in *in, uint32_t h, const int lnx,
	  const int inl)
{
	const uint8_t *d = in->data, *ip, *th;
	uint32_t len = in->len, l3, l4, thl;
	struct hinfo x;
	unsigned v;
	int o;

	if (g->cfg.n_rules || (o = fast_l3(g, d, len, 40 + 20, &v)) < 0)
		return 0;
	l3 = (uint32_t)o;
	ip = d + l3;
	if (v == 4) {
		if (!ip4_whole(ip, len - l3))
			return 0;
		if (ip[9] != 6)
			return fast_bypass4(g, in, ip, len - l3);
		x.ipv = 4;
		x.l3_len = 20;
	} else {
		if (ip[6] != 6 || sofl_get16(ip + 4) + 40u != len - l3)
			return 0;
		x.ipv = 6;
		x.l3_len = 40;
	}
	l4 = l3 + x.l3_len;
	th = d + l4;
	thl = (uint32_t)(th[12] >> 4) * 4;
	if (thl < 20 || l4 + thl >= len || (th[13] & TCP_FINAL))
		return 0;	/* bad offset, no payload (#22), or delivered at once */
	if ((in->flags & (SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK)) !=
	    (SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK)) {
		int sw_ip = x.ipv == 4 && !(in->flags & SOFL_GRO_F_IPCSUM_OK);
		int sw_l4 = !(in->flags & SOFL_GRO_F_CSUM_OK);

		if ((sw_ip && !ip4_csum_ok(ip)) ||
		    (sw_l4 && !(inl ? hold_sum_inl(x.ipv, ip, len - l4) :
				      l4_sum_ok(x.ipv, ip, 6, x.l3_len, len - l4))))
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

/* fast_hold() for an IPv4 packet raw_key_hash() found to be neither TCP
 * nor UDP to coalesce, its IP header at @l3 (fast_l3's layouts): the same
 * tests without doing fast_l3 again — delivered at once (1), or 0: the
 * general way decides. */
HOT int
fast_other4(struct sofl_gro *g, const struct sofl_gro_in *in, uint32_t l3)
{
	const uint8_t *ip = in->data + l3;
	uint32_t len = in->len;

	if (g->cfg.n_rules || len < l3 + 40 + 20 || !ip4_whole(ip, len - l3))
		return 0;	/* as fast_hold (its fast_l3 minimum) */
	return fast_bypass4(g, in, ip, len - l3);
}

/* One input: 1 merged (and perhaps completed), 0 nothing done, take the
 * general way. */
HOT int
fast_merge(struct sofl_gro *g, const struct sofl_gro_in *in, uint32_t h)
{
	uint32_t fi = fast_find(g, in, h);

	return fi != NIL && fast_one(g, fi, in);
}

static int
rule_match(const struct sofl_gro_rule *r, const struct sofl_pkt *q)
{
	unsigned bits = r->prefix, i;

	if ((r->family && r->family != q->ipv) || (r->proto && r->proto != q->l4_proto) ||
	    (r->dport && r->dport != q->key.dport))
		return 0;
	for (i = 0; bits >= 8; i++, bits -= 8)
		if (q->key.dst[i] != r->dst[i])
			return 0;
	if (bits && ((q->key.dst[i] ^ r->dst[i]) & (0xff00u >> bits) & 0xff))
		return 0;
	return 1;
}

static int
rules_allow(const struct sofl_gro *g, const struct sofl_pkt *q)
{
	uint32_t i;

	for (i = 0; i < g->cfg.n_rules; i++)
		if (rule_match(&g->rules[i], q))
			return 1;
	return 0;
}

/* L4 checksum over the IP payload (as skb_gro_checksum_validate): 0 bad,
 * CK_VALID, or CK_PARTIAL when the field holds the pseudo sum (partial_ok). */
static int
l4_csum_check(struct sofl_gro *g, const struct sofl_pkt *q)
{
	const uint8_t *l4 = q->data + q->l4_off, *ip = q->data + q->l3_off;
	uint32_t l4len = q->ip_end - q->l4_off;
	uint16_t ps, field;

	g->st.csum_sw_l4++;
	if (l4_sum_ok(q->ipv, ip, q->l4_proto, (uint32_t)(q->l4_off - q->l3_off), l4len))
		return CK_VALID;
	ps = l4_pseudo(q->ipv, ip, q->l4_proto, l4len);
	field = sofl_get16(l4 + (q->l4_proto == 6 ? 16 : 6));
	if (g->cfg.partial_ok && field == ps) {
		g->st.csum_partial_ok++;
		return CK_PARTIAL;
	}
	return 0;
}

/* A classified input: the parse result and the L3/checksum verdict. */
struct rxq {
	struct sofl_pkt q;
	uint32_t h, b, ports;
	int byp;		/* enum sofl_gro_bypass, or -1: to the L4 rules */
	int badlen, ck;
};

#define RX_CHUNK 32	/* inputs classified (and bucket heads prefetched) ahead of the rules */
#define RX_AHEAD 8	/* inputs between a flow entry's prefetch and its use */
#define PF_BYTES (1u << 20)	/* flow table size from which entries are prefetched */
#define BYP_FAST (-2)	/* rxq.byp: not classified yet, fast_merge first */
#define BYP_FAST4 (-3)	/* ... IPv4, neither TCP nor UDP to coalesce: fast_bypass4 */

/* L2/L3 checks and checksums (#5-#12): everything that does not depend on
 * held flows, so a whole chunk can be classified before the table is used. */
HOT void
classify(struct sofl_gro *g, const struct sofl_gro_in *in, struct rxq *x)
{
	struct sofl_pkt *q = &x->q;

	x->ck = (in->flags & SOFL_GRO_F_CSUM_OK) ? CK_VALID : 0;	/* 0: not verified */
	x->byp = -1;
	if (!in->data && in->len) {
		x->byp = SOFL_GRO_BYPASS_MALFORMED;	/* nothing to read */
		return;
	}
	if (sofl_pkt_parse_inline(q, in->data, in->len, g->cfg.link) < 0)	/* (data checked above) */
		x->byp = SOFL_GRO_BYPASS_MALFORMED;
	else if (!q->ipv)
		x->byp = SOFL_GRO_BYPASS_NOT_IP;
	else if (q->l4_proto != 6 && q->l4_proto != 17)
		x->byp = q->is_frag ? SOFL_GRO_BYPASS_FRAGMENT : SOFL_GRO_BYPASS_PROTO;
	else if (q->ipv == 4 && q->l3_len != 20)
		x->byp = SOFL_GRO_BYPASS_IP_OPTS;		/* #5 */
	else if (q->is_frag)
		x->byp = SOFL_GRO_BYPASS_FRAGMENT;		/* #6, #10 */
	else if (q->l4_proto == 17 && !g->cfg.udp)
		x->byp = SOFL_GRO_BYPASS_UDP_OFF;
	else if (g->cfg.n_rules && !rules_allow(g, q))
		x->byp = SOFL_GRO_BYPASS_RULE;
	else if (q->pay_off > SOFL_GRO_MAX_HDR)
		x->byp = SOFL_GRO_BYPASS_HDR_LONG;
	if (x->byp >= 0)
		return;
	if (q->ipv == 4 && !(in->flags & SOFL_GRO_F_IPCSUM_OK)) {
		g->st.csum_sw_ip++;
		if (!ip4_csum_ok(q->data + q->l3_off)) {	/* inline: l3_len is 20 here */
			x->byp = SOFL_GRO_BYPASS_IP_CSUM;	/* #7 */
			return;
		}
	}
	/* #8, #9: IP length != bytes received, or the reserved fragment bit */
	x->badlen = q->ip_end != q->len || (q->ipv == 4 && (q->data[q->l3_off + 6] & 0x80));
	if (!x->badlen && !(in->flags & SOFL_GRO_F_CSUM_OK)) {
		if (q->l4_proto == 17 && sofl_get16(q->data + q->l4_off + 6) == 0) {
			/* no UDP checksum: nothing to verify, which Linux's
			 * skb_gro_checksum_validate_zero_check counts as verified */
			x->ck = CK_VALID;
		} else if (!(x->ck = l4_csum_check(g, q))) {
			x->byp = SOFL_GRO_BYPASS_L4_CSUM;	/* #11 */
			return;
		}
	}
	if (g->lnx)
		x->h = (in->flags & SOFL_GRO_F_HASH) ? in->hash : 0;
	else
		x->h = (in->flags & SOFL_GRO_F_HASH) ? in->hash : key_hash(g, q);
	x->b = x->h & g->mask;
	x->ports = (uint32_t)q->key.sport << 16 | q->key.dport;
}

/* In arrival order: deliver at once, or the L4 rules against held flows. */
HOT void
deliver(struct sofl_gro *g, const struct sofl_gro_in *in, const struct rxq *x)
{
	if (x->byp >= 0) {
		if (!in->data && in->len) {
			struct sofl_gro_in z = *in;
			z.len = 0;
			bypass(g, &z, x->byp);
		} else {
			bypass(g, in, x->byp);
		}
	} else if (x->q.l4_proto == 6) {
		tcp_rx(g, in, &x->q, x->h, x->b, x->ports, x->badlen, x->ck);
	} else {
		udp_rx(g, in, &x->q, x->h, x->b, x->ports, x->badlen, x->ck);
	}
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
 * offset, for fast_other4), or 0: the input is to be parsed. */
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
		sofl_siphash13_x(g->hkey, w4, 1, hb->l4, hb->h4, hb->n4, g->isa == 2);
		hb_put(g, x, hb->i4, hb->h4, hb->n4, pf);
	}
	if (hb->n6) {
		sofl_siphash13_x(g->hkey, w6, 5, hb->l6, hb->h6, hb->n6, g->isa == 2);
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
			    (g->nohash && fast_hold(g, &in[i], x[i].h, 0, 0))) {
				g->nohash = 0;
				continue;
			}
			classify(g, &in[i], &x[i]);
		}
		deliver(g, &in[i], &x[i]);
		g->nohash = 0;
	}
}

#if GRO_AVX2
/* The Linux table, TCP checksums to verify on a CPU with AVX-512: in[i] (no
 * held flow has its hash, fast_find found) and the inputs after it while
 * they are new flows too, held with the checksum kernel inline.  A hash tag
 * no held flow has means no held flow has the hash; fast_hold decides the
 * rest.  @return the index of the first input not held. */
static __attribute__((noinline, flatten, target("avx2,avx512f,avx512bw,avx512vl,avx512vnni,bmi2")))
size_t
fast_holds_avx512(struct sofl_gro *g, const struct sofl_gro_in *in, size_t i, size_t n)
{
	if (!fast_hold(g, &in[i], g->nohash_h, 1, 1))
		return i;
	for (i++; i < n; i++) {
		const uint32_t h = (in[i].flags & SOFL_GRO_F_HASH) ? in[i].hash : 0;

		if (!in[i].data || (in[i].flags & SOFL_GRO_F_CSUM_OK) || g->tags[tag_of(g, h)] ||
		    !fast_hold(g, &in[i], h, 1, 1))
			break;
	}
	return i;
}
#else
#define fast_holds_avx512(g, in, i, n) (i)	/* (rx_linux's sw is 0) */
#endif

/* The Linux table (64 flows) stays in cache: no look-ahead, each input in
 * turn; with the fast path, an input that continues a held flow (found by
 * its rx hash, known without parsing) starts a train or a weave of merges,
 * and with @sw (rx_linux_sw) new flows whose checksums are to be verified
 * are held by fast_holds_avx512. */
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
				 * segment, else a weave (interleaved flows) */
				if (i + 1 < n && in[i + 1].len == in[i].len &&
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
				if ((j = fast_holds_avx512(g, in, i, n)) != i) {
					g->nohash = 0;
					i = j;
					continue;
				}
			} else if (g->nohash && fast_hold(g, &in[i], g->nohash_h, 1, 0)) {
				g->nohash = 0;
				i++;
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
/* rx_linux() for inputs with TCP checksums to verify on a CPU with AVX-512:
 * new flows are held by fast_holds_avx512 */
static __attribute__((noinline)) void
rx_linux_sw(struct sofl_gro *g, const struct sofl_gro_in *in, size_t n)
{
	rx_linux(g, in, n, 1);
}
#endif

/* ---- public API ---- */

#define SEG_CHUNK 1024	/* segment entries linked in at a time */

/* Makes sure @n more inputs find free segment entries (each takes at most
 * one), linking in entries never used, at least SEG_CHUNK at a time, at
 * the head of the free list (consecutive, as out_super's walk likes them):
 * a timeout engine's max_held can be millions, mostly never used.  Entries
 * in use are those of held flows but their first segments. */
static void
segs_grow(struct sofl_gro *g, uint32_t n)
{
	uint32_t used = g->held_segs - g->held_flows, lo = g->seg_init, hi, i;

	if (g->seg_init - used >= n || g->seg_init == g->seg_cap)
		return;
	hi = lo + (n > SEG_CHUNK ? n : SEG_CHUNK);
	if (hi > g->seg_cap)
		hi = g->seg_cap;
	for (i = lo; i + 1 < hi; i++)
		g->segs[i].next = i + 1;
	g->segs[hi - 1].next = g->free_seg;
	g->free_seg = lo;
	g->seg_init = hi;
}

SOFL_API void
sofl_gro_config_init(struct sofl_gro_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->link = SOFL_LINK_ETH;
	cfg->policy = SOFL_GRO_POLICY_LINUX;
	cfg->table = SOFL_GRO_TABLE_AUTO;
	cfg->max_size = 65535;
}

static int
config_check(const struct sofl_gro_config *c)
{
	uint32_t i;

	if (c->link != SOFL_LINK_ETH && c->link != SOFL_LINK_RAW)
		return SOFL_EINVAL;
	if (c->policy != SOFL_GRO_POLICY_LINUX && c->policy != SOFL_GRO_POLICY_RELAXED)
		return SOFL_EINVAL;
	if ((unsigned)c->table > SOFL_GRO_TABLE_LRU || c->max_flows > (1u << 24))
		return SOFL_EINVAL;
	if (c->max_size && (c->max_size > 65535 || c->max_size < 128))
		return SOFL_EINVAL;
	if (c->max_batch > (1u << 24) || c->max_held > (1u << 26) || c->max_segs > 65535)
		return SOFL_EINVAL;
	if (c->n_rules && !c->rules)
		return SOFL_EINVAL;
	for (i = 0; i < c->n_rules; i++) {
		const struct sofl_gro_rule *r = &c->rules[i];
		if ((r->family != 0 && r->family != 4 && r->family != 6) ||
		    r->prefix > (r->family == 4 ? 32 : 128) || (r->family == 0 && r->prefix))
			return SOFL_EINVAL;
	}
	return 0;
}

SOFL_API int
sofl_gro_create(const struct sofl_gro_config *cfg, struct sofl_gro **out)
{
	struct sofl_gro *g;
	uint32_t nb, i, nsuper;
	int err;

	if (!cfg || !out)
		return SOFL_EINVAL;
	*out = NULL;
	err = config_check(cfg);
	if (err)
		return err;
	g = calloc(1, sizeof(*g));
	if (!g)
		return SOFL_ENOMEM;
	g->cfg = *cfg;
	if ((err = sofl_sip_key(g->hkey, cfg->hash_key)) != 0) {
		free(g);
		return err;
	}
	memset(g->cfg.hash_key, 0, sizeof(g->cfg.hash_key));	/* not kept twice */
	if (!g->cfg.max_size)
		g->cfg.max_size = 65535;
	if (!g->cfg.max_batch)
		g->cfg.max_batch = 256;
	if (!g->cfg.max_segs)
		g->cfg.max_segs = SOFL_GRO_MAX_SEGS_DEFAULT;
	g->lnx = cfg->table == SOFL_GRO_TABLE_LINUX ||
		 (cfg->table == SOFL_GRO_TABLE_AUTO && (cfg->max_flows == 0 || cfg->max_flows == 64));
	if (g->lnx) {
		g->nflows = LNX_BUCKETS * LNX_PER_BUCKET;
		nb = LNX_BUCKETS;
		g->per_bucket = LNX_PER_BUCKET;
	} else {
		g->nflows = cfg->max_flows ? cfg->max_flows : 64;
		for (nb = 8; nb < 2 * g->nflows; nb <<= 1)
			;
		g->per_bucket = UINT32_MAX;
	}
	g->cfg.max_flows = g->nflows;
	if (!g->cfg.max_held) {
		if (cfg->flush_timeout_us)
			g->cfg.max_held = 4 * g->nflows > 1024 ? 4 * g->nflows : 1024;
		else
			g->cfg.max_held = g->cfg.max_batch;
	}
	g->mask = nb - 1;
	g->fast = cfg->policy == SOFL_GRO_POLICY_LINUX;
#if GRO_AVX2
	sofl_gro_set_isa(g, 2);
#endif
	g->timeout_ns = (uint64_t)cfg->flush_timeout_us * 1000;
	g->use_age = !g->lnx || g->timeout_ns;
	/* prefetching flow entries pays where they miss the cache: measured,
	 * at 32 flows (all cached) the prefetches cost 1-2 ns per packet */
	g->pf = !g->lnx && (size_t)g->nflows * sizeof(struct flow) > PF_BYTES;
	g->seg_cap = g->cfg.max_batch + g->cfg.max_held;
	nsuper = g->seg_cap / 2 + 1;
	if (nsuper > g->nflows + g->cfg.max_batch)
		nsuper = g->nflows + g->cfg.max_batch;
	g->scap = (size_t)nsuper * SOFL_GRO_MAX_HDR;

	/* only what the table kind uses; the large arrays are written only
	 * as they are used (table_alloc, fstack_grow, segs_grow) */
	g->head = sofl_zalloc(nb * sizeof(*g->head), &g->head_map);
	if (g->lnx) {
		g->cnt = calloc(nb, sizeof(*g->cnt));
		g->tags = calloc((size_t)nb * TAGS, 1);
		g->tail = malloc(nb * sizeof(*g->tail));
	}
	g->flows = sofl_zalloc((size_t)g->nflows * sizeof(*g->flows), &g->flows_map);
	g->fstack = malloc((size_t)g->nflows * sizeof(*g->fstack));
	g->segs = malloc(((size_t)g->seg_cap + 1) * sizeof(*g->segs));	/* + SINK */
	g->outs = malloc((size_t)g->seg_cap * sizeof(*g->outs));
	g->iov = malloc((size_t)g->seg_cap * 2 * sizeof(*g->iov));
	g->cookies = malloc((size_t)g->seg_cap * sizeof(*g->cookies));
	g->scratch = malloc(g->scap);
	if (cfg->n_rules) {
		g->rules = malloc(cfg->n_rules * sizeof(*g->rules));
		if (g->rules)
			memcpy(g->rules, cfg->rules, cfg->n_rules * sizeof(*g->rules));
	}
	if (!g->head || (g->lnx && (!g->cnt || !g->tags || !g->tail)) || !g->flows || !g->fstack ||
	    !g->segs || !g->outs || !g->iov || !g->cookies || !g->scratch ||
	    (cfg->n_rules && !g->rules)) {
		sofl_gro_destroy(g);
		return SOFL_ENOMEM;
	}
	g->cfg.rules = g->rules;
	for (i = 0; g->lnx && i < nb; i++)
		g->tail[i] = NIL;
	g->nfree = g->fs_lo = g->nflows;
	fstack_grow(g);				/* entry 0 first */
	g->segs[SINK(g)].next = NIL;
	g->free_seg = NIL;	/* linked in by receive (segs_grow) */
	g->last_fi = NIL;
	g->out1.iovcnt = 1;
	g->out1.segs = 1;
	g->out1.csum = SOFL_GRO_CSUM_VALID;
	g->out1.vnet.flags = SOFL_VNET_F_DATA_VALID;
	g->age.head = g->age.tail = NIL;
	*out = g;
	return 0;
}

void
sofl_gro_set_fast(struct sofl_gro *g, int on)
{
	g->fast = on && g->cfg.policy == SOFL_GRO_POLICY_LINUX;
}

void
sofl_gro_set_isa(struct sofl_gro *g, int level)
{
#if GRO_AVX2
	const unsigned c = sofl_cpu_features();
	const unsigned v = SOFL_CPU_AVX2 | SOFL_CPU_AVX512BW | SOFL_CPU_VNNI | SOFL_CPU_BMI2;

	g->isa = 0;
	if (level >= 1 && (c & SOFL_CPU_AVX2))
		g->isa = 1;
	/* the kernel inlined is the AVX-512 implementation's: only while it
	 * is the one in use (sofl_csum_set_impl, SOFL_CSUM_IMPL) */
	if (level >= 2 && (c & v) == v && sofl_csum_impl_current() == SOFL_CSUM_AVX512)
		g->isa = 2;
#else
	(void)g;
	(void)level;
#endif
}

uint32_t
sofl_gro_chain_max(const struct sofl_gro *g)
{
	uint32_t b, fi, n, most = 0;

	for (b = 0; b <= g->mask; b++) {
		for (n = 0, fi = bhead(g, b); fi != NIL; fi = g->flows[fi].chain)
			n++;
		most = n > most ? n : most;
	}
	return most;
}

SOFL_API void
sofl_gro_destroy(struct sofl_gro *g)
{
	if (!g)
		return;
	sofl_zfree(g->head, g->head_map);
	free(g->cnt);
	free(g->tags);
	free(g->tail);
	sofl_zfree(g->flows, g->flows_map);
	free(g->fstack);
	free(g->segs);
	free(g->outs);
	free(g->iov);
	free(g->cookies);
	free(g->scratch);
	free(g->rules);
	free(g);
}

SOFL_API int
sofl_gro_receive(struct sofl_gro *g, const struct sofl_gro_in *in, size_t n, uint64_t now_ns)
{
	size_t i;

	if (!g || (!in && n))
		return SOFL_EINVAL;
	if (n > g->cfg.max_batch - g->cycle_in ||
	    (uint64_t)g->held_at_start + g->cycle_in + n > g->seg_cap)
		return SOFL_ENOSPC;
	segs_grow(g, (uint32_t)n);
	g->now = now_ns;
	g->cycle_in += (uint32_t)n;
	g->st.pkts_in += n;
	for (i = 0; i < n; i++)
		g->st.bytes_in += in[i].len;
	if (g->lnx) {
#if GRO_AVX2
		if (g->isa == 2 && n && !(in[0].flags & SOFL_GRO_F_CSUM_OK))
			rx_linux_sw(g, in, n);
		else
#endif
			rx_linux(g, in, n, 0);
	} else
		for (i = 0; i < n; i += RX_CHUNK)
			rx_chunk(g, in + i, n - i < RX_CHUNK ? n - i : RX_CHUNK);
	return (int)n;
}

/* Linux table, everything held: bucket by bucket, each from its oldest flow
 * to its newest (cprev links), the flows emitted and freed as emit() would
 * one by one, then the bucket emptied at once (no unlinking flow by flow).
 * Lone segments — most flows of a poll with many flows — are written here
 * with the cycle's cursors and free lists in locals (through g they would
 * be reloaded after each byte store into an output, which may alias them)
 * and their counters added once. */
static void
emit_buckets(struct sofl_gro *g, int why)
{
	struct sofl_gro_out *o = g->outs + g->nout;
	struct iovec *iov = g->iov + g->niov;
	uint64_t *ck = g->cookies + g->ncook;
	uint32_t nf = g->nfree, n1 = 0, b, fi;

	for (b = 0; b <= g->mask; b++) {
		if ((fi = g->tail[b]) == NIL)
			continue;
		while (fi != NIL) {
			struct flow *f = &g->flows[fi];
			uint32_t newer = f->cprev, len;

			if (f->count != 1) {
				g->nout = (uint32_t)(o - g->outs);
				g->niov = (uint32_t)(iov - g->iov);
				g->ncook = (uint32_t)(ck - g->cookies);
				g->nfree = nf;
				emit(g, fi, why);
				o = g->outs + g->nout;
				iov = g->iov + g->niov;
				ck = g->cookies + g->ncook;
				nf = g->nfree;
				fi = newer;
				continue;
			}
			len = (uint32_t)f->hdr_len + f->mss;
			iov->iov_base = (void *)(uintptr_t)f->hdr;	/* the frame (Linux table) */
			iov->iov_len = len;
			*ck = f->cookie0;
			*o = g->out1;
			o->iov = iov;
			o->cookies = ck;
			o->len = len;
			o->reason = (uint8_t)why;
			if (f->ck == CK_PARTIAL) {
				o->csum = SOFL_GRO_CSUM_PARTIAL;
				o->csum_start = o->vnet.csum_start = f->l4_off;
				o->csum_offset = o->vnet.csum_offset = f->proto == 6 ? 16 : 6;
				o->vnet.flags = SOFL_VNET_F_NEEDS_CSUM;
			}
			f->count = 0;
			g->fstack[nf++] = fi;
			o++;
			iov++;
			ck++;
			n1++;
			fi = newer;
		}
		g->head[b] = 0;		/* empty (no count bits: Linux table) */
		g->tail[b] = NIL;
		g->cnt[b] = 0;
		memset(g->tags + (size_t)b * TAGS, 0, TAGS);
	}
	g->nout = (uint32_t)(o - g->outs);
	g->niov = (uint32_t)(iov - g->iov);
	g->ncook = (uint32_t)(ck - g->cookies);
	g->nfree = nf;
	g->st.pkts_out += n1;
	g->st.hist[0] += n1;		/* hist_bin(1) */
	g->st.flush[why] += n1;
	g->held_segs -= n1;
}

/* Linux: bucket by bucket, oldest first; stop a bucket at the first flow
 * younger than the timeout (__gro_flush_chain with flush_old). */
static void
flush_linux(struct sofl_gro *g, int why, int aged_only)
{
	uint32_t b, fi;

	if (aged_only) {
		for (b = 0; b <= g->mask; b++)
			while ((fi = g->tail[b]) != NIL) {	/* oldest first */
				if (g->now - g->flows[fi].age < g->timeout_ns)
					break;
				complete(g, fi, why);
			}
		return;
	}
	emit_buckets(g, why);
	g->held_flows = 0;
	g->age.head = g->age.tail = NIL;
}

/* Before completing the age-list head: prefetch what completing the next
 * one will touch (its bucket head, its headers) and the one after it —
 * with many flows these are cache misses. */
HOT void
age_prefetch(const struct sofl_gro *g, uint32_t fi)
{
	const struct flow *n;
	uint32_t nx = g->flows[fi].age_next, nn;

	if (nx == NIL)
		return;
	n = &g->flows[nx];
	__builtin_prefetch(&g->head[n->hash & g->mask]);
	if (n->count > 1 && n->hdr != n->hc) {	/* headers not copied: the frame's */
		__builtin_prefetch(n->hdr);
		__builtin_prefetch(n->hdr + n->hdr_len - 1);
	}
	nn = n->age_next;
	if (nn != NIL)
		flow_prefetch(g, nn);	/* with its links: the next step reads them */
}

static void
flush_lru(struct sofl_gro *g, int why, int aged_only)
{
	uint32_t fi;

	while ((fi = g->age.head) != NIL) {
		if (aged_only && g->now - g->flows[fi].age < g->timeout_ns)
			break;
		if (g->pf)
			age_prefetch(g, fi);
		complete(g, fi, why);
	}
}

SOFL_API int
sofl_gro_poll_end(struct sofl_gro *g, uint64_t now_ns)
{
	if (!g)
		return SOFL_EINVAL;
	g->now = now_ns;
	if (!g->timeout_ns) {
		if (g->lnx)
			flush_linux(g, SOFL_GRO_FLUSH_POLL, 0);
		else
			flush_lru(g, SOFL_GRO_FLUSH_POLL, 0);
		return (int)g->nout;
	}
	if (g->lnx)
		flush_linux(g, SOFL_GRO_FLUSH_TIMEOUT, 1);
	else
		flush_lru(g, SOFL_GRO_FLUSH_TIMEOUT, 1);
	while (g->held_segs > g->cfg.max_held)
		complete(g, g->age.head, SOFL_GRO_FLUSH_CAPACITY);
	return (int)g->nout;
}

SOFL_API int
sofl_gro_flush(struct sofl_gro *g)
{
	if (!g)
		return SOFL_EINVAL;
	if (g->lnx)
		flush_linux(g, SOFL_GRO_FLUSH_EXPLICIT, 0);
	else
		flush_lru(g, SOFL_GRO_FLUSH_EXPLICIT, 0);
	return (int)g->nout;
}

SOFL_API int
sofl_gro_outputs(const struct sofl_gro *g, const struct sofl_gro_out **out)
{
	if (!g || !out)
		return SOFL_EINVAL;
	*out = g->outs;
	return (int)g->nout;
}

SOFL_API void
sofl_gro_release(struct sofl_gro *g)
{
	if (!g)
		return;
	g->nout = g->niov = g->ncook = 0;
	g->sused = 0;
	g->cycle_in = 0;
	g->held_at_start = g->held_segs;
}

SOFL_API uint32_t
sofl_gro_held(const struct sofl_gro *g)
{
	return g ? g->held_segs : 0;
}

SOFL_API long
sofl_gro_out_copy(const struct sofl_gro_out *o, void *buf, size_t cap)
{
	uint8_t *d = buf;
	uint32_t i;

	if (!o || (!buf && cap))
		return SOFL_EINVAL;
	if (o->len > cap)
		return SOFL_ENOSPC;
	for (i = 0; i < o->iovcnt; i++) {
		memcpy(d, o->iov[i].iov_base, o->iov[i].iov_len);
		d += o->iov[i].iov_len;
	}
	return (long)o->len;
}

SOFL_API void
sofl_gro_get_stats(const struct sofl_gro *g, struct sofl_gro_stats *s)
{
	if (g && s)
		*s = g->st;
}

SOFL_API void
sofl_gro_reset_stats(struct sofl_gro *g)
{
	if (g)
		memset(&g->st, 0, sizeof(g->st));
}

static const char *const flush_names[SOFL_GRO_FLUSH__MAX] = {
	"poll", "timeout", "explicit", "evict", "capacity", "psh-fin", "short", "udp-max",
	"size", "seq", "bigger", "header", "ip-id", "cwr", "no-payload", "bad-len", "max-segs",
};

static const char *const bypass_names[SOFL_GRO_BYPASS__MAX] = {
	"malformed", "not-ip", "proto", "udp-off", "rule", "ip-opts", "fragment", "ip-csum",
	"l4-csum", "bad-len", "no-payload", "flags", "udp-csum0", "udp-len", "hdr-long",
};

SOFL_API const char *
sofl_gro_flush_name(int reason)
{
	return reason >= 0 && reason < SOFL_GRO_FLUSH__MAX ? flush_names[reason] : "?";
}

SOFL_API const char *
sofl_gro_bypass_name(int reason)
{
	return reason >= 0 && reason < SOFL_GRO_BYPASS__MAX ? bypass_names[reason] : "?";
}
