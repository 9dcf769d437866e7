/* Internal: the GRO engine's flow tables, the per-packet part (inline in
 * the receive loops): flow keys, lookup, append, unlink (holding a new
 * flow: gro_hold.h).  The Linux table (8 buckets of 8 flows, net/core/gro.c) and the LRU table (CLOCK
 * eviction); the rest is in gro_table.c. */
#ifndef SOFL_GRO_TABLE_H
#define SOFL_GRO_TABLE_H

#include "gro_engine.h"
#include "base/siphash.h"
#include "pkt/pkt_impl.h"

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

static inline uint32_t
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

static inline void
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

/* gro_key_hash()'s second step for a tunnel flow: the message of the
 * inner key's hash @h (32 bits, as a plain flow's) with the outer addresses
 * (the outer IP header @o, version @ov) and the VNI @vni, so that tenants'
 * equal inner flows (one VNI each) spread over buckets; a tunnel flow's
 * hash is this message's.  Built here for the parse (gro_key_hash) and the
 * frame (hb_hash's batches) alike.  @return the whole words in m (2 or 5),
 * *last the last block. */
HOT unsigned
tun_fold_msg(uint64_t *m, uint64_t *last, uint32_t h, const uint8_t *o, unsigned ov, uint32_t vni)
{
	unsigned nw;

	if (ov == 4) {
		m[0] = ld64(o + 12);
		nw = 1;
	} else {
		m[0] = ld64(o + 8);
		m[1] = ld64(o + 16);
		m[2] = ld64(o + 24);
		m[3] = ld64(o + 32);
		nw = 4;
	}
	m[nw++] = h;
	*last = sofl_sip_last((uint64_t)vni, nw * 8u + 4u);
	return nw;
}

/* A tunnel frame's outer values for tun_fold_msg (raw_tun_key) */
struct tkey {
	const uint8_t *o;	/* the outer IP header */
	uint32_t vni;
	unsigned ov;		/* its version; 0: not a tunnel frame */
};

/* gro_key_hash()'s messages of a tunnel frame straight from its bytes
 * (raw_key_msg's LRU table fast path, for tunnels), for the layouts that
 * dominate: the
 * outer IP header at @l3 (fast_l3's layouts: no VLAN tag, IPv4 without
 * options, version @v) not a fragment, carrying UDP to a VXLAN port of the
 * engine's table (the parser's VXLAN header: flags 0x08, reserved bits
 * zero) or to a Geneve port (version 0, not OAM, protocol 0x6558), inner
 * Ethernet without a VLAN tag, or IP-in-IP while it is parsed into; the
 * inner packet IPv4 without options, not a fragment, or IPv6, carrying
 * TCP.  The parse of such a frame has exactly these key fields, outer
 * addresses and VNI.  (A hash only chooses which held flow the fast path
 * compares the frame with, whose masked headers then decide; a frame the
 * parser takes otherwise is classified with its own.)  @return the inner
 * key's message (key_msg: its words in m, *last), 4 or 6 by its IP
 * version, with the outer values in *t (tun_fold_msg's), or 0: another
 * layout. */
HOT int
raw_tun_key(const struct sofl_gro *g, const uint8_t *d, uint32_t len, unsigned v, uint32_t l3,
	    uint64_t *m, uint64_t *last, struct tkey *t)
{
	const uint8_t *o = d + l3, *u, *ip;
	const uint32_t ol = v == 4 ? 20u : 40u;
	uint32_t io = l3 + ol, vni = 0;
	unsigned iv;
	int proto = v == 4 ? o[9] : o[6];

	if (v == 4 && ((o[6] & 0x3f) | o[7]))
		return 0;	/* a fragment */
	if (proto == 17) {
		struct sofl_encap_hdr e;
		int type;

		if (len < io + 8 + 8 + PK_ETH_HLEN + 40 + 20)
			return 0;
		u = d + io;
		type = pk_udp_encap(g->pcp, sofl_get16(u + 2));
		/* the parser's header rules (pk_encap_hdr), inner Ethernet */
		if (!type || pk_encap_hdr((unsigned)type, u + 8, len - io - 8, &e) ||
		    e.proto != PK_ETH_P_TEB)
			return 0;
		io += 8 + e.len;
		if (len < io + PK_ETH_HLEN + 40 + 20)
			return 0;
		vni = e.vni;
		iv = sofl_get16(d + io + 12) == PK_ETH_P_IP ? 4 :
		     sofl_get16(d + io + 12) == PK_ETH_P_IPV6 ? 6 : 0;
		io += PK_ETH_HLEN;
	} else if ((proto == 4 || proto == 41) && g->ipip) {
		if (len < io + 40 + 20)
			return 0;
		iv = proto == 4 ? 4 : 6;
	} else {
		return 0;
	}
	ip = d + io;
	if (iv == 4 && ip[0] == 0x45 && !(ip[6] & 0x3f) && !ip[7] && ip[9] == 6)
		key_msg(m, last, ip + 12, ip + 16, 4, sofl_get32(ip + 20), 6, 0, 0);
	else if (iv == 6 && (ip[0] >> 4) == 6 && ip[6] == 6)
		key_msg(m, last, ip + 8, ip + 24, 6, sofl_get32(ip + 40), 6,
			sofl_get32(ip) & 0x000fffff, 0);
	else
		return 0;
	t->o = o;
	t->ov = v;
	t->vni = vni;
	return (int)iv;
}

/* gro_key_hash()'s message straight from the frame, for the layouts that
 * dominate (Ethernet without a VLAN tag or raw IP; IPv4 without options
 * carrying TCP or UDP, not a fragment; IPv6 with TCP or UDP next): the
 * parse of such a frame has exactly these key fields, so the two agree and
 * the LRU table can try the fast path before parsing.  (A frame whose
 * TCP/UDP header then fails to parse is delivered at once: its hash
 * decides nothing.)  @return 4 or 6 (the IP version) with the message in
 * m and *last, 0 for any other layout (the caller parses), or 2: IPv4
 * that is neither TCP nor UDP with UDP GRO on, *last the IP header's
 * offset.  A tunnel frame of raw_tun_key's layouts: 4 or 6 with its inner
 * key's message and t->ov set (else 0). */
HOT int
raw_key_msg(const struct sofl_gro *g, const uint8_t *d, uint32_t len, uint64_t *m, uint64_t *last,
	    struct tkey *t)
{
	const uint8_t *ip;
	unsigned v;
	int l3 = fast_l3(g, d, len, 40 + 4, &v);
	unsigned p;
	int k;

	t->ov = 0;
	if (l3 < 0)
		return 0;
	ip = d + l3;
	p = v == 4 ? ip[9] : ip[6];
	/* UDP to a port of the tunnel table (its low 6 bits first), IP-in-IP */
	if (((p == 17 && ((g->tport_bits >> (ip[v == 4 ? 23 : 43] & 63)) & 1)) ||
	     ((p == 4 || p == 41) && g->ipip)) &&
	    (k = raw_tun_key(g, d, len, v, (uint32_t)l3, m, last, t)) != 0)
		return k;
	if (v == 4 && ip[9] != 6 && (ip[9] != 17 || !g->cfg.udp)) {
		*last = (uint32_t)l3;	/* for fast_other4() */
		return 2;	/* nothing to coalesce: see gro_rx_chunk() */
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

/* The same-flow filter of a tunnel packet @q (SOFL_LAYER_ENCAP) against
 * held flow @fi (same inner L3 offset), up to its inner IP header, layer
 * by layer: the outer Ethernet header (gro_list_prepare), the outer IP
 * protocol and addresses (inet_gro_receive; IPv6: version, flow label,
 * next header, addresses: ipv6_gro_receive), the outer UDP ports and the
 * zero-ness of its checksum (udp_gro_receive), then the tunnel header and
 * the inner Ethernet header byte for byte (vxlan_gro_prepare_receive: flags
 * and VNI words; geneve_gro_receive: the whole header with its options;
 * eth_gro_receive).  A plain packet never has a tunnel flow's inner L3
 * offset (nor the reverse), so plain flows are never compared here.  Out
 * of line: the plain lookups that inline same_flow stay as small as before. */
static __attribute__((noinline, unused)) int
tun_same(const struct sofl_gro *g, uint32_t fi, const struct sofl_pkt *q)
{
	const struct tflow *t = &g->tun[fi];
	const uint8_t *a = fhdr(&g->flows[fi]), *b = q->data, *oa, *ob;

	if (t->ov != q->outer_ipv || t->type != q->encap || t->o3 != q->outer_l3_off ||
	    t->o4 != q->outer_l4_off || t->enc != q->encap_off || differ_n(a, b, t->o3))
		return 0;
	oa = a + t->o3;
	ob = b + t->o3;
	if (t->ov == 4) {
		if (oa[9] != ob[9] || ld64(oa + 12) != ld64(ob + 12))
			return 0;
	} else if (((sofl_get32(oa) ^ sofl_get32(ob)) & 0xf00fffffu) || oa[6] != ob[6] ||
		   differ(oa + 8, ob + 8, 32)) {
		return 0;
	}
	if (t->o4 && (ld32(a + t->o4) != ld32(b + t->o4) ||
		      !sofl_get16(a + t->o4 + 6) != !sofl_get16(b + t->o4 + 6)))
		return 0;
	return !differ(a + t->enc, b + t->enc, (unsigned)(q->l3_off - t->enc));
}

/* #1-#3: the same-flow filter of gro_list_prepare / inet / ipv6_gro_receive
 * (a tunnel packet: tun_same up to its inner IP header) */
HOT int
same_flow(const struct sofl_gro *g, uint32_t fi, const struct sofl_pkt *q)
{
	const struct flow *f = &g->flows[fi];
	const uint8_t *a = fhdr(f), *b = q->data;

	if (f->l3_off != q->l3_off)
		return 0;
	if (__builtin_expect(q->layers & SOFL_LAYER_ENCAP, 0)) {
		if (!tun_same(g, fi, q))
			return 0;
	} else if (differ_n(a, b, f->l3_off)) {
		return 0;
	}
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
		    f->ipv == q->ipv && same_flow(g, fi, q))
			return fi;
	}
	return NIL;
}

/* Linux: the oldest held packet of the bucket (gro_flush_oldest, #29) */
static inline uint32_t
bucket_oldest(const struct sofl_gro *g, uint32_t b)
{
	return g->tail[b];
}

#define FS_AHEAD 16	/* holds between a free entry's prefetch and its use */

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

/* gro_table.c: the held inputs for an event loop (sofl_gro_held_cookies,
 * sofl_gro_discard); @c has room for g->held_segs cookies. */
uint32_t gro_held_cookies(const struct sofl_gro *g, uint64_t *c);
uint32_t gro_discard(struct sofl_gro *g, uint64_t *c);

#endif
