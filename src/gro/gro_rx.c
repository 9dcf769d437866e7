/* GRO receive loops and the fast paths around them: the compare masks
 * (mask_for), fast holds and bypasses, the out-of-line parts of the fast
 * merge (gro_fast.h), per ISA behind a run-time check (sofl_gro_set_isa).
 * The trains and weaves are in gro_train.c. */
#include "gro_fast.h"

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

_Static_assert(offsetof(struct flow, l3_len) + 2 == offsetof(struct flow, ipv) + 8,
	       "tun_mask: ipv .. l3_len are 8 bytes");
_Static_assert(offsetof(struct tflow, type) + 1 == 8 && offsetof(struct tflow, o3) == 0,
	       "tun_mask: o3 .. type are the first 8 bytes");

/* A tunnel flow's f->mk: the mask of the layout looked up last when @f
 * and @t have that layout (the flows of one tunnel come in turn, and its
 * key costs more to build than these three compares), else mask_for's */
static uint8_t
tun_mask(struct sofl_gro *g, const struct flow *f, const struct tflow *t)
{
	uint8_t b[8], mk;
	uint64_t lf, lt;

	/* ipv, proto, l4_len, ck (zeroed), l3_off, l3_len; o3, o4, enc, ov, type */
	memcpy(b, &f->ipv, sizeof(b));
	b[offsetof(struct flow, ck) - offsetof(struct flow, ipv)] = 0;
	memcpy(&lf, b, sizeof(lf));
	memcpy(&lt, t, sizeof(lt));
	if (g->tl_mk != NO_MASK && lf == g->tl_flow && lt == g->tl_tun && t->ocsum == g->tl_ocsum)
		return g->tl_mk;
	mk = mask_for(g, f, t);
	if (mk == NO_MASK)
		return NO_MASK;
	g->tl_flow = lf;
	g->tl_tun = lt;
	g->tl_ocsum = t->ocsum;
	g->tl_mk = (uint8_t)(mk | MK_T);
	return g->tl_mk;
}

/* When a held flow is first compared: its mask, and the next IPv4 ID
 * (merges the general way keep it up to date from then on).  A TCP flow
 * whose first segment has CWR gets no fast path (no segment joins it: #18).
 * @return f->mk as set (NO_MASK: no fast path for @f).  Out of line: once
 * per flow. */
__attribute__((noinline)) uint8_t
fast_setup(struct sofl_gro *g, struct flow *f)
{
	const uint8_t *h = fhdr(f);
	struct tflow *t = f->l3_off > TUN_L3(g) ? &g->tun[f - g->flows] : NULL;

	if (t && !t->ov)
		t = NULL;
	if (f->proto != 6 || (h[f->l4_off + 13] & SOFL_TCP_CWR))
		f->mk = NO_MASK;
	else if (t)
		f->mk = tun_mask(g, f, t);
	else
		f->mk = mask_for(g, f, NULL);
	f->next_id = rule_id_want(sofl_get16(h + f->l3_off + 4), f->count, f->fixedid);
	if (t)
		t->next_oid = rule_id_want(sofl_get16(h + t->o3 + 4), f->count, t->ofixed);
	return f->mk;
}

/* fast_same() past its first tests for a flow whose mask is not a plain
 * one's (not set yet, none, a tunnel's), out of line */
__attribute__((noinline)) int
fast_same_cold(struct sofl_gro *g, struct flow *f, const uint8_t *d)
{
	uint8_t mk = f->mk;

	if (mk == MK_UNSET)
		mk = fast_setup(g, f);
	if (mk == NO_MASK)
		return 0;
	return mk & MK_T ? fast_same_x(g, f, d, 1) : fast_same_x(g, f, d, 0);
}

#if GRO_AVX2
/* same_masked() in 32-byte words (AVX2) for 32 <= n <= 128: the words at
 * 0, 32 and 64 that start before the last one, which ends at n (overlap
 * is harmless: masks are positional) */
static inline __attribute__((target("avx2"))) int
same_masked_y(const uint8_t *a, const uint8_t *b, const uint8_t *m, unsigned n)
{
#define YL(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define YX(o) _mm256_and_si256(YL(m + (o)), _mm256_xor_si256(YL(a + (o)), YL(b + (o))))
	__m256i x = _mm256_or_si256(YX(0), YX(n - 32));

	if (n > 64)
		x = _mm256_or_si256(x, YX(32));
	if (n > 96)
		x = _mm256_or_si256(x, YX(64));
	return _mm256_testz_si256(x, x);
#undef YX
#undef YL
}

/* fast_same_x() of a tunnel flow whose header fits same_masked_y */
static __attribute__((noinline, target("avx2"))) int
fast_same_tun_y(const struct sofl_gro *g, const struct flow *f, const uint8_t *d)
{
	return same_masked_y(fhdr(f), d, g->mask_b[f->mk & ~MK_T], f->hdr_len) &&
	       fast_same_rest(g, f, d, 1);
}
#endif

/* fast_same_x() of a tunnel flow (its mask's MK_T), out of line; headers
 * of 32..128 bytes in 32-byte words where the CPU has AVX2 (g->isa) */
__attribute__((noinline)) int
fast_same_tun(struct sofl_gro *g, struct flow *f, const uint8_t *d)
{
#if GRO_AVX2
	if (g->isa && f->hdr_len <= 128)	/* (a mask: at least 32 bytes) */
		return fast_same_tun_y(g, f, d);
#endif
	return fast_same_x(g, f, d, 1);
}

/* The TCP checksum of a full-size segment of @f at @d: 1 when it verifies
 * (counted), 0 bad or pseudo-only (the general way decides).  Out of line:
 * it calls the checksum kernel anyway. */
int
fast_l4sum(struct sofl_gro *g, const struct flow *f, const uint8_t *d)
{
	if (!l4_sum_ok(f->ipv, d + f->l3_off, 6, f->l4_off - f->l3_off,
		       (uint32_t)f->hdr_len - f->l4_off + f->mss))
		return 0;
	g->st.csum_sw_l4++;
	return 1;
}

/* fast_one_x() of a tunnel flow, out of line */
__attribute__((noinline)) int
fast_one_tun(struct sofl_gro *g, uint32_t fi, const struct sofl_gro_in *in)
{
	return fast_one_x(g, fi, in, 1);
}

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
	const uint8_t *const tb = g->tport_lo;
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

/* The hold's view of a TCP segment of @len bytes at @d whose IP header is
 * at @l3 and TCP header @th (@thl bytes) at @l4, for fast_hold and
 * fast_hold_tun (x->ipv and x->l3_len are the caller's) */
static inline __attribute__((always_inline)) void
fast_tcp_info(struct hinfo *x, const uint8_t *d, uint32_t len, uint32_t l3, uint32_t l4,
	      const uint8_t *th, uint32_t thl)
{
	x->data = d;
	x->seq = sofl_get32(th + 4);
	x->ip_len = len - l3;
	x->l3_off = (uint16_t)l3;
	x->l4_off = (uint16_t)l4;
	x->l4_len = (uint16_t)thl;
	x->pay_off = (uint16_t)(l4 + thl);
	x->pay_len = len - x->pay_off;
	x->ts_off = 0;		/* (relaxed policy only; the fast paths are Linux's) */
	x->proto = 6;
}

/* ---- fast hold of a tunnel flow ----
 * fast_hold() for the first segment of a new TCP flow inside a UDP tunnel
 * (VXLAN, Geneve) on the Linux table, without the full parse: outer IPv4
 * without options or IPv6 without extension headers (fast_hold's fast_l3,
 * fast_ip_ok: the outer IP packet is the frame, no fragment, no reserved
 * bit), the UDP length to the frame's end (pk_udp_len), a tunnel port of
 * the engine's parse config (pk_udp_encap) and a tunnel header the parser
 * accepts (pk_encap_hdr), an inner Ethernet header without a VLAN tag (or
 * Geneve's IP protocol types), then the inner IP and TCP headers by
 * fast_hold's tests (fast_ip_ok, pk_tcp_hlen, classify_l3, tcp_new_flow).
 * Every checksum must come flagged verified (the IPv4 headers', the inner
 * TCP one, a non-zero outer UDP one): then classify_tun and
 * classify_tun_l4 count nothing but the tunnel input.  Anything else
 * declines (0) and the general way parses and decides it.  The flow's
 * tunnel state as gro_hold writes it (hold_tun).  @return 1 held. */
static __attribute__((noinline)) int
fast_hold_tun(struct sofl_gro *g, const struct sofl_gro_in *in, uint32_t h, uint32_t l3,
	      unsigned ov)
{
	const uint8_t *d = in->data, *ip, *th;
	const uint32_t len = in->len, o4 = l3 + (ov == 4 ? 20 : 40), enc = o4 + 8;
	uint32_t ulen, type, io, l4, thl, end;
	struct sofl_encap_hdr e;
	struct hinfo x;
	uint16_t et;
	unsigned v;

	/* (fast_hold: no flow rules, fast_l3's minimum, fast_ip_ok: the outer
	 * IP packet ends at the frame's end) */
	if ((in->flags & (SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK)) !=
	    (SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK) ||
	    pk_udp_len(d + o4, len - o4, &ulen) < 0 || o4 + ulen != len ||
	    (sofl_get16(d + o4 + 6) && !(in->flags & SOFL_GRO_F_OUTER_CSUM_OK)) ||
	    !(type = (uint32_t)pk_udp_encap(g->pcp, sofl_get16(d + o4 + 2))) ||
	    pk_encap_hdr(type, d + enc, len - enc, &e) != 0)
		return 0;
	io = enc + e.len;
	et = e.proto;
	if (et == PK_ETH_P_TEB) {
		if (len < io + PK_ETH_HLEN)
			return 0;
		et = sofl_get16(d + io + 12);
		io += PK_ETH_HLEN;
	}
	if (io <= TUN_L3(g) || len < io + 40 + 20)
		return 0;
	ip = d + io;
	if (et == PK_ETH_P_IP && ip[0] == 0x45 && ip[9] == 6)
		v = 4;
	else if (et == PK_ETH_P_IPV6 && (ip[0] >> 4) == 6 && ip[6] == 6)
		v = 6;
	else
		return 0;	/* options, extension headers, not TCP, not IP */
	l4 = io + (v == 4 ? 20 : 40);
	th = d + l4;
	if (!fast_ip_ok(d, len, io, v, &end) || pk_tcp_hlen(th, len - l4, &thl) < 0 ||
	    classify_l3(g, NULL, v, 6, 20, 0, l4 + thl) >= 0 ||
	    tcp_new_flow(0, len - l4 - thl, th[13]) >= 0)
		return 0;	/* malformed, too long a header, or delivered at once */
	g->st.tun_in++;		/* (classify_tun's count) */
	g->fast_tun_holds++;
	x.ipv = (uint8_t)v;
	x.l3_len = (uint16_t)(l4 - io);
	fast_tcp_info(&x, d, len, io, l4, th, thl);
	hold_in(g, in, &x, h, h & g->mask, sofl_get32(th), CK_VALID, 1, 1);
	hold_tun(g, h & g->mask, d, l3, o4, enc, ov, type);
	return 1;
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
	if (v == 4 && ip[9] != 6)	/* (a tunnel frame would end the run at once) */
		return !tun_maybe4(g, g->tport_lo, g->ipip, ip, end - l3 - 20) ?
		       (int)fast_bypass_run(g, in, 0, run) :	/* <= max_batch */
		       ip[9] == 17 && lnx && fast_hold_tun(g, in, h, l3, 4);
	if (v == 6 && ip[6] != 6)	/* UDP, extension headers: the general way */
		return ip[6] == 17 && lnx && fast_hold_tun(g, in, h, l3, 6);
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
	fast_tcp_info(&x, d, len, l3, l4, th, thl);
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
	    (why = fast_why4(g, in->data, len, l3, g->tport_lo, g->ipip)) < 0)
		return 0;	/* as fast_hold (its fast_l3 minimum) */
	gro_bypass(g, in, why);
	return 1;
}

/* One input: 1 merged (and perhaps completed), 0 nothing done, take the
 * general way. */
HOT int
fast_merge(struct sofl_gro *g, const struct sofl_gro_in *in, uint32_t h)
{
	uint32_t fi = fast_find_x(g, in, h, 1);

	return fi != NIL && fast_one(g, fi, in);
}

/* A chunk's flow keys read from the frames, hashed together (IPv4 and
 * IPv6 apart, eight at a time with AVX-512); tunnel frames' in g->tb */
struct hbatch {
	uint64_t w4[RX_CHUNK], l4[RX_CHUNK], w6[5][RX_CHUNK], l6[RX_CHUNK];
	uint32_t h4[RX_CHUNK], h6[RX_CHUNK];
	uint8_t i4[RX_CHUNK], i6[RX_CHUNK];
	unsigned n4, n6;
};

/* A tunnel frame's inner key's message (@k 4 or 6: its words in @m, @last;
 * raw_tun_key) and outer values @t for input @i into g->tb */
static __attribute__((noinline)) void
tb_add(struct sofl_gro *g, int k, const uint64_t *m, uint64_t last, const struct tkey *t, size_t i)
{
	struct tbatch *tb = &g->tb;
	unsigned j;

	if (k == 4) {
		tb->w4[tb->n4] = m[0];
		tb->l4[tb->n4] = last;
		tb->i4[tb->n4++] = (uint8_t)i;
	} else {
		for (j = 0; j < 5; j++)
			tb->w6[j][tb->n6] = m[j];
		tb->l6[tb->n6] = last;
		tb->i6[tb->n6++] = (uint8_t)i;
	}
	tb->o[i] = t->o;
	tb->vni[i] = t->vni;
	tb->ov[i] = (uint8_t)t->ov;
}

/* An input's hash known before parsing: the rx hash (1, in *h), or its
 * flow key read from the frame for @hb (3, input @i; hb_hash() hashes it;
 * a tunnel frame's for g->tb),
 * or 2 (IPv4, neither TCP nor UDP with UDP GRO on: *h is the IP header's
 * offset, for fast_other4), or 0: the input is to be classified (parsed,
 * or its parse taken: an input that comes with one is not read here). */
HOT int
fast_hash(struct sofl_gro *g, const struct sofl_gro_in *in, uint32_t *h,
	  struct hbatch *hb, size_t i)
{
	uint64_t m[5], last;
	struct tkey t;
	unsigned j;
	int k;

	if (in->flags & SOFL_GRO_F_HASH) {
		*h = in->hash;
		return 1;
	}
	if (in->flags & GRO_F_PARSED)
		return 0;	/* classify() hashes its parse */
	k = raw_key_msg(g, in->data, in->len, m, &last, &t);
	if (__builtin_expect(t.ov != 0, 0)) {
		tb_add(g, k, m, last, &t, i);
		return 3;
	}
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

/* Inner hashes @h of tunnel inputs @idx (@n) with their outer values into
 * g->tb's second batch (tun_fold_msg) */
static void
tb_fold(struct sofl_gro *g, const uint8_t *idx, const uint32_t *h, unsigned n)
{
	struct tbatch *tb = &g->tb;
	uint64_t m[5], last;
	unsigned j, k, nw;

	for (j = 0; j < n; j++) {
		const unsigned i = idx[j];

		nw = tun_fold_msg(m, &last, h[j], tb->o[i], tb->ov[i], tb->vni[i]);
		if (tb->ov[i] == 4) {
			for (k = 0; k < nw; k++)
				tb->f4[k][tb->nf4] = m[k];
			tb->fl4[tb->nf4] = last;
			tb->fi4[tb->nf4++] = (uint8_t)i;
		} else {
			for (k = 0; k < nw; k++)
				tb->f6[k][tb->nf6] = m[k];
			tb->fl6[tb->nf6] = last;
			tb->fi6[tb->nf6++] = (uint8_t)i;
		}
	}
}

/* The tunnel frames of g->tb hashed into their inputs' @x (@pf: see
 * hb_put): the inner keys, then with the outer values */
static __attribute__((noinline)) void
tb_hash(struct sofl_gro *g, struct rxq *x, int pf)
{
	struct tbatch *tb = &g->tb;
	const uint64_t *w4[1] = { tb->w4 };
	const uint64_t *w6[5] = { tb->w6[0], tb->w6[1], tb->w6[2], tb->w6[3], tb->w6[4] };
	const uint64_t *f4[2] = { tb->f4[0], tb->f4[1] };
	const uint64_t *f6[5] = { tb->f6[0], tb->f6[1], tb->f6[2], tb->f6[3], tb->f6[4] };

	tb->nf4 = tb->nf6 = 0;
	if (tb->n4) {
		sofl_siphash13_x(g->hkey, w4, 1, tb->l4, tb->h4, tb->n4, g->isa);
		tb_fold(g, tb->i4, tb->h4, tb->n4);
	}
	if (tb->n6) {
		sofl_siphash13_x(g->hkey, w6, 5, tb->l6, tb->h6, tb->n6, g->isa);
		tb_fold(g, tb->i6, tb->h6, tb->n6);
	}
	if (tb->nf4) {
		sofl_siphash13_x(g->hkey, f4, 2, tb->fl4, tb->fh4, tb->nf4, g->isa);
		hb_put(g, x, tb->fi4, tb->fh4, tb->nf4, pf);
	}
	if (tb->nf6) {
		sofl_siphash13_x(g->hkey, f6, 5, tb->fl6, tb->fh6, tb->nf6, g->isa);
		hb_put(g, x, tb->fi6, tb->fh6, tb->nf6, pf);
	}
	tb->n4 = tb->n6 = 0;
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
	if (__builtin_expect(g->tb.n4 + g->tb.n6 != 0, 0))
		tb_hash(g, x, pf);
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

/* in[i + 1] (i + 1 < n) has in[i]'s length and rx hash @h: it looks like
 * the next segment of in[i]'s flow (a train) */
HOT int
next_same(const struct sofl_gro_in *in, size_t i, uint32_t h)
{
	return in[i + 1].len == in[i].len &&
	       ((in[i + 1].flags & SOFL_GRO_F_HASH) ? in[i + 1].hash : 0) == h;
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
				 * segment (a tunnel flow's too), else a weave
				 * (interleaved flows; a tunnel flow's segments one
				 * at a time: the weaves do not check the outer
				 * header) */
				if (f->mk & MK_T)	/* (the hash field first: flows in turn) */
					j = i + 1 < n && in[i + 1].hash == f->hash &&
					    next_same(in, i, f->hash) ? fast_train(g, in, i, n, fi) :
					    i + (size_t)fast_one(g, fi, &in[i]);
				else if (i + 1 < n && next_same(in, i, f->hash))
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
