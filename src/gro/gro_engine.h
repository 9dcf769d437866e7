/* Internal: the GRO engine's state (struct sofl_gro, struct flow), shared
 * by its files: gro.c (the public API), gro_table.c / gro_table.h (the flow
 * tables), gro_hold.c / gro_hold.h (a new flow held), gro_rules.h (the
 * merge rules), gro_out.c (completion and output), gro_rx.c (the receive
 * loops and their fast paths), gro_train.c (trains and weaves), gro_fast.h
 * (the fast merge both share), gro_csum.h (the checksum checks).  Hidden symbols, static library test hooks at the end. */
#ifndef SOFL_GRO_ENGINE_H
#define SOFL_GRO_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "softoffload/gro.h"
#include "csum/csum_impl.h"
#include "gso/hdr.h"
#include "pkt/pkt_impl.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GRO_AVX2 1	/* a train's compare in 32-byte words where the CPU has AVX2 */
#endif

#define NIL		UINT32_MAX
#define HOT		static inline __attribute__((always_inline))	/* per packet */
#define LNX_BUCKETS	8	/* GRO_HASH_BUCKETS */
#define LNX_PER_BUCKET	8	/* MAX_GRO_SKBS */
_Static_assert(LNX_BUCKETS * LNX_PER_BUCKET <= 256, "tagfi holds a Linux table flow index in a byte");

/* tcp_flag_word() bits (bytes 12-15 of the TCP header, big-endian) */
#define TW_FIN	0x00010000u
#define TW_PSH	0x00080000u
#define TW_WIN	0x0000ffffu

/* Inputs that come with the caller's parse (gro.h, Parsed inputs): the
 * shortcuts that would read the frame's layout (fast_hold, fast_bypass_run,
 * the LRU table's hash read from the frame) leave them to classify(),
 * which takes the parse */
#define GRO_F_PARSED	(SOFL_GRO_F_PKT | SOFL_GRO_F_MALFORMED)

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
 * in cache (a cost per new flow, so only for large tables): with thousands of flows
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
	uint8_t  mk;		/* fast_merge compare mask g->mask_b[mk]; a tunnel
				 * flow's: mask index | MK_T; NO_MASK: no fast
				 * path; MK_UNSET: not looked up yet */
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

/* A tunnel flow's outer layout and outer-layer state (g->tun[fi], beside
 * the flow entry: struct flow has no room, and only tunnel flows touch it).
 * ov 0: flow fi is not a tunnel flow.  A tunnel flow's inner L3 offset is
 * past any plain one's (TUN_L3(g)): only such flows are looked up here,
 * and every one of them has it written when it is held (gro_hold: ov 0 for
 * a flow that deep but not tunnelled), so delivering a flow leaves it.  The fast paths take a tunnel flow's full-size next
 * segments one at a time (fast_one: its compare mask covers the outer
 * headers too, MK_TUN in its key; the outer ID and checksums apart), never
 * in trains or weaves, whose loops do not check the outer header. */
#define TUN_L3(g) ((g)->tun_l3)	/* plain L3 offsets: at most (sofl_gro_create: 0 raw, else 22) */
#define MK_TUN 0x80000000u	/* mask_key bit: a tunnel flow's layout */
struct tflow {
	uint16_t o3;		/* outer IP header */
	uint16_t o4;		/* outer UDP header; 0: IP-in-IP */
	uint16_t enc;		/* the tunnel header (IP-in-IP: the inner IP header) */
	uint8_t  ov;		/* outer IP version; 0: not a tunnel flow */
	uint8_t  type;		/* enum sofl_encap */
	uint8_t  ocsum;		/* outer UDP checksum not zero */
	uint8_t  ofixed;	/* outer IPv4 ID fixed (latched as flow.fixedid is) */
	uint16_t next_oid;	/* outer IPv4 ID of the next segment (fast paths, as next_id) */
};

#define NMASK    8	/* header layouts with a fast_merge mask */
#define MASK_LEN SOFL_GRO_HDR_MAX	/* longest header compared with a mask: any held flow's */
#define NO_MASK  0xff
#define MK_UNSET 0xfe	/* looked up when a 2nd segment is compared */
/* flow.mk of a tunnel flow: its mask's index | MK_T, so that a plain flow's
 * fast paths tell tunnel flows apart by the test mk >= NMASK they make for
 * NO_MASK and MK_UNSET anyway (no load of mask_key per segment) */
#define MK_T     0x40
_Static_assert(NMASK <= MK_T && (MK_T | (NMASK - 1)) < MK_UNSET, "flow.mk's encoding");

struct dlist {
	uint32_t head, tail;
};

/* A chunk's tunnel frames hashed from their bytes (the LRU table without
 * an rx hash: raw_tun_key, tun_fold_msg), in two batches: the inner keys
 * (w4: IPv4, w6: IPv6), then each inner hash with its outer values (f4,
 * f6 by the outer IP version); o, vni, ov by input.  Scratch of
 * gro_rx.c's hb_hash, in the engine rather than on the stack of the loop
 * plain frames take. */
#define TB_N 32	/* RX_CHUNK */
struct tbatch {
	uint64_t w4[TB_N], l4[TB_N], w6[5][TB_N], l6[TB_N];
	uint32_t h4[TB_N], h6[TB_N];
	uint8_t i4[TB_N], i6[TB_N];
	unsigned n4, n6;
	const uint8_t *o[TB_N];
	uint32_t vni[TB_N];
	uint8_t ov[TB_N];
	uint64_t f4[2][TB_N], fl4[TB_N], f6[5][TB_N], fl6[TB_N];
	uint32_t fh4[TB_N], fh6[TB_N];
	uint8_t fi4[TB_N], fi6[TB_N];
	unsigned nf4, nf6;
};

struct sofl_gro {
	struct sofl_gro_config cfg;
	struct sofl_gro_rule *rules;
	int lnx;		/* Linux table geometry */
	uint32_t tun_l3;	/* TUN_L3(): the deepest plain L3 offset (0 raw IP, else 22) */
	int fast;		/* the fast paths apply (Linux policy; sofl_gro_set_fast) */
	int isa;		/* the fast paths may use 1: AVX2 (a train's compare
				 * in 32-byte words), 2: and AVX-512 (flow keys
				 * hashed eight at a time); 0: neither */
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
	uint8_t *tagfi;		/* Linux table: per (bucket, hash tag), the flow held last
				 * with it (a hint for fast_find; may be stale) */
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
	struct sofl_gro_out out1;	/* a lone verified segment's output, but iov/cookies/len/flush_reason */
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
	/* the network-layer rules in use (gro_ip4_rule, gro_ip6_rule) */
	uint8_t ip4_same[20] __attribute__((aligned(8)));
	uint8_t ip6_same[8] __attribute__((aligned(8)));
	uint8_t tcp_same[60] __attribute__((aligned(8)));	/* gro_tcp_rule */
	uint16_t id_free;	/* IPv4 ID bits rule_id_ok() leaves unchecked: 0 (Linux,
				 * #14); others for tests of the rule's one definition */
	uint64_t fast_segs;	/* segments the fast paths merged (for tests: which
				 * path decided), added once per train */
	uint64_t fast_tun_holds;	/* tunnel flows fast_hold_tun held (tests) */
	uint64_t fast_runs;	/* trains and weaves' strands that merged (tests) */
	/* tunnels: the parse config (cfg.parse copied), the UDP tunnel ports
	 * for the fast paths' "could be a tunnel" test (tun_maybe4) */
	struct sofl_pkt_config pcfg;
	const struct sofl_pkt_config *pcp;	/* the parses': &pcfg, or NULL (defaults) */
	struct tflow *tun;	/* nflows entries (sofl_zalloc: backed as used) */
	size_t tun_map;
	uint64_t tport_bits;	/* bit (port & 63) of each tunnel port: a quick "not one" */
	uint8_t tport_lo[256];	/* 1 at the low byte of each tunnel port (tun_maybe4) */
	uint32_t ntport;	/* UDP tunnel ports in tport */
	uint16_t tport[SOFL_PKT_UDP_ENCAP_MAX];
	int ipip;		/* IP-in-IP parsed into */
	struct tbatch tb;	/* the LRU table's tunnel frames hashed (gro_rx.c) */
	/* the tunnel layout fast_setup looked up last (its flow's bytes from
	 * ipv to l3_len, ck zeroed; its tunnel state's first 8 bytes and ocsum)
	 * and its f->mk: flows of one tunnel come in turn (NO_MASK: none).
	 * (Last, not beside the masks: the other fields stay where they were,
	 * on the same cache lines.) */
	uint64_t tl_flow, tl_tun;
	uint8_t tl_ocsum, tl_mk;
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
 * is unused (check the object code for the prefetch instructions). */
HOT void
flow_prefetch(const struct sofl_gro *g, uint32_t fi)
{
	const char *p = (const char *)&g->flows[fi];

	__builtin_prefetch(p);
	__builtin_prefetch(p + 64);
	__builtin_prefetch(p + 128);
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

#define REF_HELD 1
#define REF_USED 2

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

/* seg_tail of a flow holding its first segment only: the first segment
 * appended is linked from this spare entry (segs[seg_cap]), read back into
 * seg_head (append_seg, fast_train) — no test in a train's loop */
#define SINK(g) ((g)->seg_cap)

#define RX_CHUNK 32	/* inputs classified (and bucket heads prefetched) ahead of the rules */
_Static_assert(TB_N == RX_CHUNK, "struct tbatch holds a chunk");
#define PF_BYTES (1u << 20)	/* flow table size from which entries are prefetched */

/* Pseudo-header sum (folded, not complemented) from the addresses in the IP
 * header itself, as tcp_v4_check/tcp_v6_check in *_gro_complete (IPv6: the
 * header's destination, even with a routing header). */
static inline uint16_t
l4_pseudo(unsigned ipv, const uint8_t *ip, uint8_t proto, uint32_t l4len)
{
	return sofl_csum_fold(ipv == 4 ? sofl_csum_pseudo_v4(ip + 12, ip + 16, proto, l4len) :
				       sofl_csum_pseudo_v6(ip + 8, ip + 24, proto, l4len));
}

/* The network-layer merge rules, as data (#13, #15; docs/gro-rules.md): per
 * byte of the IPv4 header (gro_ip4_rule) and of the first 8 bytes of the
 * IPv6 header (gro_ip6_rule), the bits a segment must have as the flow's
 * first segment, else the flow is flushed (inet_gro_flush, ipv6_gro_flush
 * in include/net/gro.h): IPv4 TOS (ECN included), DF and TTL; IPv6 traffic
 * class and hop limit.  network_flush() compares under these masks and the
 * fast path's compare mask (mask_for) is built from them, so that a rule
 * changed here changes both.  The engine keeps a copy (ip4_same, ip6_same). */
static const uint8_t gro_ip4_rule[20] = { [1] = 0xff, [6] = 0x40, [8] = 0xff };
static const uint8_t gro_ip6_rule[8] = { [0] = 0x0f, [1] = 0xf0, [7] = 0xff };
/* The rest of the fast path's mask over the same bytes: what a full-size
 * next segment has as the first for the other rules (version and header
 * length, lengths, fragment bits, protocol, addresses, flow label, next
 * header: #2, #3, #5, #6, #8, #9); left out, the IPv4 ID (#14, checked
 * apart) and header checksum (verified, not compared). */
static const uint8_t gro_ip4_fast[20] = {
	0xff, 0, 0xff, 0xff, 0, 0, 0xbf, 0xff, 0, 0xff, 0, 0,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t gro_ip6_fast[8] = { 0xf0, 0x0f, 0xff, 0xff, 0xff, 0xff, 0xff, 0 };
/* The TCP header's (#16, #17, #19; tcp_gro_receive in
 * net/ipv4/tcp_offload.c): the ACK number, the flag word (data offset,
 * reserved bits, flags but PSH and FIN, window) and every option byte
 * (bytes 20..59) must be the first segment's, under the Linux policy (the
 * relaxed one lets ACK, window and timestamps move: tcp_flush,
 * options_differ).  tcp_flush and options_differ compare under it and
 * mask_for builds the fast path's mask from it.  The fast path's mask adds
 * the ports (same flow); it leaves out the sequence number (#20,
 * rule_seq_ok), the checksum (verified, not compared) and the urgent
 * pointer (ignored, as by Linux). */
#define GRO_FF8 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
static const uint8_t gro_tcp_rule[60] = {
	0, 0, 0, 0, 0, 0, 0, 0,
	0xff, 0xff, 0xff, 0xff, 0xff, (uint8_t)~(SOFL_TCP_PSH | SOFL_TCP_FIN), 0xff, 0xff,
	0, 0, 0, 0, GRO_FF8, GRO_FF8, GRO_FF8, GRO_FF8, GRO_FF8 };
#undef GRO_FF8
static const uint8_t gro_tcp_fast[60] = { 0xff, 0xff, 0xff, 0xff };

/* Outputs of inputs delivered at once, unchanged (gro_bypass,
 * fast_bypass_run): the cycle's cursors and the bypass counts in locals
 * (through g they would be reloaded after each byte store into an output,
 * which may alias them), written back by lone_end() */
struct lone {
	struct sofl_gro_out *o;
	struct iovec *v;
	uint64_t *c;
	size_t n, run;		/* outputs; the last ones' reason: run of cur */
	uint8_t cur;
};

static inline void
lone_begin(struct sofl_gro *g, struct lone *w)
{
	w->o = &g->outs[g->nout];
	w->v = &g->iov[g->niov];
	w->c = &g->cookies[g->ncook];
	w->n = w->run = 0;
	w->cur = 0;
}

/* The output record of lone_put() is stored as nine 8-byte words composed
 * in registers (PK_AT places each field where memcpy of its word puts the
 * struct's bytes; each field's word checked here) instead of zeroing it and
 * storing its fields one by one: fewer stores per "not mine" packet. */
#define GO_SZ(f) sizeof(((struct sofl_gro_out *)0)->f)
#define GO_F(w, f, v) PK_AT(v, offsetof(struct sofl_gro_out, f) - (w), GO_SZ(f))
#define GO_IN(w, f) _Static_assert(offsetof(struct sofl_gro_out, f) >= (w) && \
	offsetof(struct sofl_gro_out, f) + GO_SZ(f) <= (w) + 8, #f " lies in word " #w)
GO_IN(8, iovcnt); GO_IN(8, len); GO_IN(16, segs); GO_IN(16, gso_type); GO_IN(32, csum);
GO_IN(32, gso_size); GO_IN(32, csum_start); GO_IN(40, csum_offset); GO_IN(40, bypass);
GO_IN(40, flush_reason); GO_IN(48, bypass_reason); GO_IN(48, vnet.flags);
GO_IN(48, vnet.gso_type); GO_IN(48, vnet.hdr_len); GO_IN(56, vnet.gso_size);
GO_IN(56, vnet.csum_start); GO_IN(56, vnet.csum_offset); GO_IN(56, vnet.num_buffers);
GO_IN(64, vnet.outer_th_offset); GO_IN(64, vnet.inner_nh_offset);
_Static_assert(offsetof(struct sofl_gro_out, iov) == 0 && offsetof(struct sofl_gro_out, cookies) == 24 &&
	       sizeof(struct sofl_gro_out) == 72, "lone_put's word layout");

static inline void
go_st64(struct sofl_gro_out *o, size_t at, uint64_t w)
{
	memcpy((uint8_t *)o + at, &w, 8);
}

/* @in as one output for reason @why: one iovec, one cookie, DATA_VALID
 * when its L4 checksum is flagged verified */
static inline __attribute__((always_inline)) void
lone_put(struct sofl_gro *g, struct lone *w, const struct sofl_gro_in *in, uint8_t why)
{
	struct sofl_gro_out *o = &w->o[w->n];
	struct iovec *v = &w->v[w->n];
	uint64_t *c = &w->c[w->n];
	const int ok = !!(in->flags & SOFL_GRO_F_CSUM_OK);

	v->iov_base = (void *)(uintptr_t)in->data;
	v->iov_len = in->len;
	*c = in->cookie;
	go_st64(o, 0, (uint64_t)(uintptr_t)v);
	go_st64(o, 8, GO_F(8, iovcnt, 1) | GO_F(8, len, in->len));
	go_st64(o, 16, GO_F(16, segs, 1));
	go_st64(o, 24, (uint64_t)(uintptr_t)c);
	go_st64(o, 32, GO_F(32, csum, ok ? SOFL_CSUM_VALID : SOFL_CSUM_UNKNOWN));
	go_st64(o, 40, GO_F(40, bypass, 1));
	go_st64(o, 48, GO_F(48, bypass_reason, why) |
		GO_F(48, vnet.flags, ok ? SOFL_VNET_HDR_F_DATA_VALID : 0));
	go_st64(o, 56, 0);
	go_st64(o, 64, 0);
	w->n++;
	if (why != w->cur) {	/* counted by runs of one reason */
		g->st.bypass[w->cur] += w->run;
		w->cur = why;
		w->run = 0;
	}
	w->run++;
}

static inline void
lone_end(struct sofl_gro *g, const struct lone *w)
{
	g->st.bypass[w->cur] += w->run;
	g->nout += (uint32_t)w->n;
	g->niov += (uint32_t)w->n;
	g->ncook += (uint32_t)w->n;
	g->st.pkts_out += w->n;
	g->st.hist[0] += w->n;	/* hist_bin(1) */
}

/* Between the engine's files (hidden symbols) */
/* gro_table.c */
uint32_t gro_key_hash(const struct sofl_gro *g, const struct sofl_pkt *q);
uint32_t gro_chain_oldest(const struct sofl_gro *g, uint32_t b);
void gro_fstack_grow(struct sofl_gro *g);
void gro_hold(struct sofl_gro *g, const struct sofl_gro_in *in, const struct sofl_pkt *q, uint32_t h,
	      uint32_t b, uint32_t ports, int ck);
/* gro_out.c */
void gro_bypass(struct sofl_gro *g, const struct sofl_gro_in *in, int why);
void gro_tun_single(struct sofl_gro *g, const struct sofl_gro_in *in, const struct sofl_pkt *q,
		    struct sofl_gro_out *o);
void gro_bypass_l4(struct sofl_gro *g, const struct sofl_gro_in *in, const struct sofl_pkt *q,
		   int why, int ck);
void gro_complete(struct sofl_gro *g, uint32_t fi, int why);
/* gro_out.c: a tunnel flow's super-packet, its outer headers (in the
 * scratch copy @h) rewritten as the gro_complete chain leaves them */
void gro_tun_complete(struct sofl_gro *g, uint32_t fi, struct sofl_gro_out *o, uint8_t *h);
void gro_flush_linux(struct sofl_gro *g, int why, int aged_only);
void gro_flush_lru(struct sofl_gro *g, int why, int aged_only);
/* gro_rx.c */
void gro_rx_linux(struct sofl_gro *g, const struct sofl_gro_in *in, size_t n);
void gro_rx_linux_sw(struct sofl_gro *g, const struct sofl_gro_in *in, size_t n);
void gro_rx_chunk(struct sofl_gro *g, const struct sofl_gro_in *in, size_t n);

/* ---- test hooks ---- */

/* sofl_gro_set_fast() : @on 0 sends every input the general way (parse,
 * classify, lookup, rules); 1 (the default under the Linux policy) lets the
 * fast paths (trains, fast hold, fast bypass, the LRU table's hash read from
 * the frame) take the inputs they recognise.  Outputs and counters must not
 * differ. */
void sofl_gro_set_fast(struct sofl_gro *g, int on);

/* sofl_gro_set_isa() : the most the fast paths may use of what the CPU has,
 * so that the test covers every variant: @level 0 SSE2 (or portable C),
 * 1 AVX2 (a train's compare in 32-byte words), 2 (the default) also
 * AVX-512 (flow keys hashed eight at a time; runs of new flows with
 * checksums to verify held in one loop, fast_holds).  Checksums are
 * verified through csum.h whatever the level. */
void sofl_gro_set_isa(struct sofl_gro *g, int level);

/* sofl_gro_chain_max() : the longest bucket chain (held flows sharing a
 * bucket): the most entries a lookup walks.  O(buckets), for tests. */
uint32_t sofl_gro_chain_max(const struct sofl_gro *g);

/* sofl_gro_fast_counts() : the segments the fast paths merged (*segs) and
 * the trains and weaves' strands that merged (*runs) since the engine was
 * created, so that a test knows which path its inputs took. */
void sofl_gro_fast_counts(const struct sofl_gro *g, uint64_t *segs, uint64_t *runs);

/* sofl_gro_fast_tun_holds() : the tunnel flows held without the full
 * parse (fast_hold_tun) since the engine was created, for tests. */
uint64_t sofl_gro_fast_tun_holds(const struct sofl_gro *g);

/* sofl_gro_set_rule() : the bits of header byte @byte that must not differ
 * between merged segments, for tests of the rules' single definition: @hdr
 * 4 the IPv4 header (byte < 20, gro_ip4_rule), 6 the IPv6 header (byte < 8,
 * gro_ip6_rule), 0 the TCP header (byte < 20, gro_tcp_rule).  Only while
 * nothing is held.  @return 0 or SOFL_E_INVAL. */
int sofl_gro_set_rule(struct sofl_gro *g, unsigned hdr, unsigned byte, uint8_t mask);

#endif
