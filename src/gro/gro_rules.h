/* Internal: the GRO merge rules, inline in the receive loops (gro_rx.c, gro_train.c):
 * the L2/L3 checks (inet_gro_receive, ipv6_gro_receive), the L4 rules
 * (tcp_gro_receive, udp_gro_receive_segment), a packet's classification.
 * Each rule is written once, here or as a table in gro_engine.h, and both the
 * general path (classify, tcp_flush, network_flush) and the fast paths
 * (gro_rx.c, gro_train.c, gro_fast.h, which inline these functions) decide by it
 * (docs/gro-rules.md). */
#ifndef SOFL_GRO_RULES_H
#define SOFL_GRO_RULES_H

#include "gro_table.h"
#include "gro_hold.h"
#include "gro_csum.h"

/* 1 when 20-byte headers @a and @b differ in a bit of mask @m (a rule's) */
HOT int
masked_differ20(const uint8_t *a, const uint8_t *b, const uint8_t *m)
{
	return (((ld64(a) ^ ld64(b)) & ld64(m)) | ((ld64(a + 8) ^ ld64(b + 8)) & ld64(m + 8)) |
		((ld32(a + 16) ^ ld32(b + 16)) & ld32(m + 16))) != 0;
}

/* @a != @b over n bytes under mask @m, n a multiple of 4 up to 40 (TCP
 * options), the 12-byte NOP NOP TS block in straight-line loads */
HOT int
masked_differ_n(const uint8_t *a, const uint8_t *b, const uint8_t *m, unsigned n)
{
	uint64_t x = 0;
	unsigned i;

	if (n == 12)
		return (((ld64(a) ^ ld64(b)) & ld64(m)) | ((ld32(a + 8) ^ ld32(b + 8)) & ld32(m + 8))) != 0;
	for (i = 0; i + 8 <= n; i += 8)
		x |= (ld64(a + i) ^ ld64(b + i)) & ld64(m + i);
	if (i < n)
		x |= (ld32(a + i) ^ ld32(b + i)) & ld32(m + i);
	return x != 0;
}

/* ---- the per-segment rules ----
 * What a segment must carry given the flow's state, as tcp_flush and
 * network_flush check it and the fast paths (fast_same, fast_one, trains,
 * weaves) test it with the state they keep in registers. */

/* #20 (tcp_gro_receive: the flush on ntohl(th2->seq) + skb_gro_len(p) !=
 * ntohl(th->seq)): the segment's sequence number is the flow's next */
HOT int
rule_seq_ok(uint32_t seq, uint32_t next)
{
	return seq == next;
}

/* #14 (inet_gro_flush in include/net/gro.h): the IPv4 ID a flow's segment
 * number @count (0: the first, with ID @id0) must carry: the first's plus
 * @count (incrementing IDs), or the first's (fixed IDs, latched when the
 * second segment has the first's ID) */
HOT uint16_t
rule_id_want(uint16_t id0, uint32_t count, unsigned fixedid)
{
	return (uint16_t)(id0 + (fixedid ? 0 : count));
}

/* #14: the ID that follows @id (rule_id_want one segment on) */
HOT uint16_t
rule_id_next(uint16_t id, unsigned fixedid)
{
	return rule_id_want(id, 1, fixedid);
}

/* #14: the bits of the IPv4 ID rule_id_ok() compares (all, as Linux; a
 * test hook may free some: id_free) */
HOT uint16_t
rule_id_mask(const struct sofl_gro *g)
{
	return (uint16_t)~g->id_free;
}

/* #14: a segment's IPv4 ID @id is the expected @want, under @mask
 * (rule_id_mask) */
HOT int
rule_id_ok(uint16_t id, uint16_t want, uint16_t mask)
{
	return ((id ^ want) & mask) == 0;
}

/* #26 (skb_gro_receive: p->len + len > gro_max_size): @len more payload
 * bytes fit a flow whose IP length (Linux p->len) is @ip_len */
HOT int
rule_size_ok(const struct sofl_gro *g, uint32_t ip_len, uint32_t len)
{
	return ip_len + len <= g->cfg.max_size;
}

/* The segment cap (max_segs): a flow of @count segments takes one more */
HOT int
rule_segs_ok(const struct sofl_gro *g, uint32_t count)
{
	return count < g->cfg.max_segs;
}

/* rule_size_ok and rule_segs_ok over a run of segments of @len bytes each
 * (trains, weaves), as one limit: the IP length the flow (@ip_len bytes,
 * @count segments) may reach; a run's next segment fits while the flow's
 * IP length plus @len is at most that (the lower of max_size and the
 * length at max_segs segments) */
HOT uint32_t
rule_run_limit(const struct sofl_gro *g, uint32_t ip_len, uint32_t count, uint32_t len)
{
	const uint32_t room = g->cfg.max_segs > count ? g->cfg.max_segs - count : 0;
	const uint64_t lim = ip_len + (uint64_t)room * len;

	return lim < g->cfg.max_size ? (uint32_t)lim : g->cfg.max_size;
}

/* One IP layer's flush rules (inet_gro_flush, ipv6_gro_flush in
 * include/net/gro.h): the header @a of a segment against @b, the flow's
 * first segment's, of version @ipv, for a flow of @count segments whose ID
 * mode is *fixed (latched here by the second segment): -1 = fine, else
 * @hdr (#13 TTL, TOS, DF; #15 traffic class, hop limit) or @hdr + 1 (#14
 * the ID).  Linux 6.18 applies it to the inner and, in a tunnel, to the
 * outer header, each with its own ID mode (ip_fixedid's two bits). */
HOT int
ip_layer_flush(const struct sofl_gro *g, const uint8_t *a, const uint8_t *b, unsigned ipv,
	       uint32_t count, uint8_t *fixed, int hdr)
{
	if (ipv == 4) {
		const uint16_t id = sofl_get16(a + 4), id0 = sofl_get16(b + 4);

		if (masked_differ20(a, b, g->ip4_same))
			return hdr;				/* #13 TTL, TOS, DF */
		if (count == 1 && id == id0)
			*fixed = 1;				/* latched by the 2nd segment */
		if (!rule_id_ok(id, rule_id_want(id0, count, *fixed), rule_id_mask(g)))
			return hdr + 1;				/* #14 */
		return -1;
	}
	if (((ld64(a) ^ ld64(b)) & ld64(g->ip6_same)) != 0)
		return hdr;					/* #15 traffic class, hop limit */
	return -1;
}

_Static_assert(SOFL_GRO_FLUSH_IPID == SOFL_GRO_FLUSH_HDR + 1 &&
	       SOFL_GRO_FLUSH_OUTER_IPID == SOFL_GRO_FLUSH_OUTER_HDR + 1, "ip_layer_flush's reasons");

/* ip_layer_flush for a tunnel flow's outer IP header (out of line: tunnel
 * packets only) */
static __attribute__((noinline, unused)) int
outer_flush(const struct sofl_gro *g, struct flow *f, const struct sofl_pkt *q)
{
	struct tflow *t = &g->tun[f - g->flows];

	return ip_layer_flush(g, q->data + t->o3, fhdr(f) + t->o3, t->ov, f->count, &t->ofixed,
			      SOFL_GRO_FLUSH_OUTER_HDR);
}

/* gro_receive_network_flush (include/net/gro.h): -1 = fine, else a flush
 * reason: the inner (or only) IP header, then a tunnel's outer one */
HOT int
network_flush(const struct sofl_gro *g, struct flow *f, const struct sofl_pkt *q)
{
	int r = ip_layer_flush(g, q->data + q->l3_off, fhdr(f) + f->l3_off, f->ipv, f->count,
			       &f->fixedid, SOFL_GRO_FLUSH_HDR);

	if (r < 0 && __builtin_expect(q->layers & SOFL_LAYER_ENCAP, 0))
		r = outer_flush(g, f, q);
	return r;
}

/* What a tunnel packet's headers add to its inner IP length in the size
 * limit (#26): Linux's p->len counts from the outermost IP header, so
 * max_size bounds the outer IP packet; 0 for a plain packet */
HOT uint32_t
tun_extra(const struct sofl_pkt *q)
{
	return __builtin_expect(q->layers & SOFL_LAYER_ENCAP, 0) ?
	       (uint32_t)(q->l3_off - q->outer_l3_off) : 0;
}

/* relaxed: a 32-bit value may stay or advance (serial arithmetic) */
static int
went_back(const uint8_t *now, const uint8_t *before)
{
	return (int32_t)(sofl_get32(now) - sofl_get32(before)) < 0;
}

/* TCP options (#19): under the Linux policy compared under the rule's
 * option bytes (gro_tcp_rule: all identical), as the fast path's mask;
 * relaxed: identical except the timestamp values, which may advance. */
static int
options_differ(const struct sofl_gro *g, const struct flow *f, const uint8_t *th,
	       const struct sofl_pkt *q)
{
	const uint8_t *th2 = fhdr(f) + f->l4_off;
	unsigned n = q->l4_len;

	if (g->cfg.policy == SOFL_GRO_POLICY_LINUX || !f->ts_off)
		return masked_differ_n(th + 20, th2 + 20, g->tcp_same + 20, n - 20);
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
	if (relaxed) {
		if ((sofl_get32(th + 12) ^ sofl_get32(th2 + 12)) & (mask & ~TW_WIN))
			return SOFL_GRO_FLUSH_HDR;			/* #17, #25 */
		if (went_back(th + 8, f->last_l4 + 8))
			return SOFL_GRO_FLUSH_HDR;			/* #16 */
	} else if (masked_differ20(th, th2, g->tcp_same)) {
		return SOFL_GRO_FLUSH_HDR;				/* #16, #17, #25 */
	}
	if (q->l4_len > 20 && options_differ(g, f, th, q))
		return SOFL_GRO_FLUSH_HDR;				/* #19 */
	r = network_flush(g, f, q);					/* #13-#15 */
	if (r >= 0)
		return r;
	if (len > f->mss)
		return SOFL_GRO_FLUSH_BIGGER;				/* #21 */
	if (!rule_seq_ok(q->tcp_seq, f->next_seq))
		return SOFL_GRO_FLUSH_SEQ;				/* #20 */
	if (!rule_size_ok(g, f->ip_len + tun_extra(q), len))
		return SOFL_GRO_FLUSH_SIZE;				/* #26 */
	if (!rule_segs_ok(g, f->count))
		return SOFL_GRO_FLUSH_SEGS;
	return -1;
}

#define TCP_FINAL (SOFL_TCP_URG | SOFL_TCP_PSH | SOFL_TCP_RST | SOFL_TCP_SYN | SOFL_TCP_FIN)

/* A TCP segment no held flow takes: -1 when it starts a flow (held), else
 * why it is delivered at once — its length (#8, #9: @badlen), no payload
 * (#22), or a flag that flushes (#24, as tcp_gro_receive's flush on
 * URG/PSH/RST/SYN/FIN) */
HOT int
tcp_new_flow(int badlen, uint32_t pay_len, uint8_t flags)
{
	if (badlen)
		return SOFL_GRO_BYPASS_BADLEN;
	if (pay_len == 0)
		return SOFL_GRO_BYPASS_NOPAYLOAD;
	if (flags & TCP_FINAL)
		return SOFL_GRO_BYPASS_FLAGS;
	return -1;
}

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
			f->next_id = rule_id_next(sofl_get16(q->data + q->l3_off + 4), f->fixedid);
			if (__builtin_expect(q->layers & SOFL_LAYER_ENCAP, 0))	/* (fast_one's) */
				g->tun[fi].next_oid = rule_id_next(
					sofl_get16(q->data + q->outer_l3_off + 4), g->tun[fi].ofixed);
			f->orflags |= q->tcp_flags & (SOFL_TCP_FIN | SOFL_TCP_PSH);
			if (q->tcp_flags & TCP_FINAL)
				gro_complete(g, fi, SOFL_GRO_FLUSH_PSH_FIN);	/* #24 */
			else if (q->pay_len < f->mss)
				gro_complete(g, fi, SOFL_GRO_FLUSH_SHORT);	/* #23 */
			return;
		}
		gro_complete(g, fi, r);	/* FLUSH-P: the flow goes out, q starts afresh below */
	}
	if ((r = tcp_new_flow(badlen, q->pay_len, q->tcp_flags)) >= 0)
		gro_bypass_l4(g, in, q, r, ck);
	else
		gro_hold(g, in, q, h, b, ports, ck);
}

/* udp_gro_receive_segment (net/ipv4/udp_offload.c) */
static void
udp_rx(struct sofl_gro *g, const struct sofl_gro_in *in, const struct sofl_pkt *q, uint32_t h,
       uint32_t b, uint32_t ports, int badlen, int ck)
{
	const uint8_t *uh = q->data + q->l4_off;
	uint32_t ulen = sofl_get16(uh + 4), fi;
	struct flow *f;
	int r;

	if (sofl_get16(uh + 6) == 0) {
		gro_bypass_l4(g, in, q, SOFL_GRO_BYPASS_UDP_CSUM0, ck);
		return;
	}
	if (ulen <= 8 || ulen != q->len - q->l4_off) {
		gro_bypass_l4(g, in, q, SOFL_GRO_BYPASS_UDP_LEN, ck);	/* padded or malicious */
		return;
	}
	fi = lookup(g, q, h, b, ports);
	if (fi != NIL) {
		f = &g->flows[fi];
		r = network_flush(g, f, q);
		if (r < 0 && ulen > f->ulen)
			r = SOFL_GRO_FLUSH_BIGGER;
		if (r < 0 && badlen)
			r = SOFL_GRO_FLUSH_BADLEN;
		if (r < 0 && !rule_size_ok(g, f->ip_len + tun_extra(q), q->pay_len))
			r = SOFL_GRO_FLUSH_SIZE;
		if (r < 0 && !rule_segs_ok(g, f->count))
			r = SOFL_GRO_FLUSH_SEGS;
		if (r < 0) {
			append(g, fi, in, q);
			if (ulen != f->ulen)
				gro_complete(g, fi, SOFL_GRO_FLUSH_SHORT);
			else if (f->count >= SOFL_GRO_UDP_MAX)
				gro_complete(g, fi, SOFL_GRO_FLUSH_UDP_MAX);
			return;
		}
		gro_complete(g, fi, r);
	}
	if (badlen)
		gro_bypass_l4(g, in, q, SOFL_GRO_BYPASS_BADLEN, ck);
	else
		gro_hold(g, in, q, h, b, ports, ck);
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

/* The engine's parse of a frame, with its parse config (cfg.parse) */
HOT int
gro_parse(const struct sofl_gro *g, struct sofl_pkt *p, const void *d, uint32_t len)
{
	return sofl_pkt_parse_inline_cfg(p, d, len, g->cfg.link, g->pcp);
}

/* A classified input: its parse (the caller's, or the engine's in own)
 * and the L3/checksum verdict. */
struct rxq {
	const struct sofl_pkt *q;
	struct sofl_pkt own;
	uint32_t h, b, ports;
	int byp;		/* enum sofl_gro_bypass, or -1: to the L4 rules */
	int badlen, ck;
};

#define RX_AHEAD 8	/* inputs between a flow entry's prefetch and its use */
#define BYP_FAST (-2)	/* rxq.byp: not classified yet, fast_merge first */
#define BYP_FAST4 (-3)	/* ... IPv4, neither TCP nor UDP to coalesce: fast_other4 */

/* The L3 verdict of classify (#5, #6, #10, the engine's switches and flow
 * rules, the header limit) from a parse's fields: -1 to the checksums and
 * L4 rules, else the bypass reason.  @q is read only with flow rules; NULL
 * from the fast paths, which take no input while there are flow rules
 * (they check cfg.n_rules first); @l3_len only for IPv4, @pay_off only for
 * TCP/UDP. */
HOT int
classify_l3(const struct sofl_gro *g, const struct sofl_pkt *q, unsigned ipv, unsigned proto,
	    unsigned l3_len, int frag, uint32_t pay_off)
{
	if (!ipv)
		return SOFL_GRO_BYPASS_NOT_IP;
	if (proto != 6 && proto != 17)
		return frag ? SOFL_GRO_BYPASS_FRAGMENT : SOFL_GRO_BYPASS_PROTO;
	if (ipv == 4 && l3_len != 20)
		return SOFL_GRO_BYPASS_IP_OPTS;		/* #5 */
	if (frag)
		return SOFL_GRO_BYPASS_FRAGMENT;	/* #6, #10 */
	if (proto == 17 && !g->cfg.udp)
		return SOFL_GRO_BYPASS_UDP_OFF;
	if (q && g->cfg.n_rules && !rules_allow(g, q))
		return SOFL_GRO_BYPASS_RULE;
	if (pay_off > SOFL_GRO_HDR_MAX)
		return SOFL_GRO_BYPASS_HDR_LONG;
	return -1;
}

/* #8, #9 (inet_gro_receive, ipv6_gro_receive: the flush on a length that is
 * not the bytes received; the reserved IPv4 fragment bit): 1 when a packet
 * of @len bytes whose IP packet ends at @ip_end (header at @ip) merges
 * nothing */
HOT int
rule_badlen(unsigned ipv, const uint8_t *ip, uint32_t ip_end, uint32_t len)
{
	return ip_end != len || (ipv == 4 && (ip[6] & 0x80));
}

/* The IP header at @l3 of a packet of @len bytes, of a layout fast_l3
 * found (IPv4 without options, IPv6): 1 when the fast paths may take it —
 * the parser's checks pass (pk_ipv4_len, pk_ipv6_end), it is not a
 * fragment, and classify would not find it too long or too short (#6, #8,
 * #9: rule_badlen) — with the end of its IP packet in *end (the frame's
 * end). */
HOT int
fast_ip_ok(const uint8_t *d, uint32_t len, uint32_t l3, unsigned v, uint32_t *end)
{
	const uint8_t *ip = d + l3;
	uint32_t tot;

	/* (the length rule first: it implies most of the parser's checks,
	 * which the compiler then drops) */
	if (v == 4) {
		*end = l3 + sofl_get16(ip + 2);
		return !rule_badlen(4, ip, *end, len) && pk_ipv4_len(ip, l3, len, 20, &tot) == 0 &&
		       !pk_ipv4_frag(ip);
	}
	*end = l3 + 40 + sofl_get16(ip + 4);
	return !rule_badlen(6, ip, *end, len) && pk_ipv6_end(ip, l3, len, end) == 0;
}

/* 1 when an IPv4 packet of 20-byte header @ip (@avail bytes after it),
 * neither TCP nor a fragment, may be a tunnel packet the parser would
 * parse into under the engine's parse config: IP-in-IP (protocol 4 or 41)
 * while it is on (@ipip: g->ipip), UDP to a tunnel port (@tb:
 * g->tport_lo, a byte per low byte of a port, then g->tport).  The fast paths leave those to the
 * general way.  (@tb and @ipip passed in: fast_bypass_run keeps them in
 * registers, which its output stores would make it reload from g.) */
HOT int
tun_maybe4(const struct sofl_gro *g, const uint8_t *tb, int ipip, const uint8_t *ip, uint32_t avail)
{
	uint32_t i;
	uint16_t dport;

	if (ip[9] != 17)
		return (ip[9] == 4 || ip[9] == 41) && ipip;
	if (avail < 4 || !tb[ip[23]])	/* the port's low byte */
		return 0;	/* (most UDP: one test) */
	dport = sofl_get16(ip + 22);
	for (i = 0; i < g->ntport; i++)
		if (g->tport[i] == dport)
			return 1;
	return 0;
}

/* An IPv4 packet (header at @ip, @avail bytes after it) that fast_hold saw
 * is not TCP: the reason the general way delivers it at once for — the
 * parser's UDP check (pk_udp_len: MALFORMED), then classify's verdict
 * (classify_l3: PROTO, UDP_OFF) — without the full parse; -1: the general
 * way decides (UDP to coalesce). */
HOT int
bypass4_why(const struct sofl_gro *g, const uint8_t *ip, uint32_t avail, const uint8_t *tb, int ipip)
{
	uint32_t ulen;

	if (tun_maybe4(g, tb, ipip, ip, avail))
		return -1;	/* a tunnel packet, perhaps: the parser decides */
	if (ip[9] == 17 && pk_udp_len(ip + 20, avail, &ulen) < 0)
		return SOFL_GRO_BYPASS_MALFORMED;	/* classify: a parse error */
	return classify_l3(g, NULL, 4, ip[9], 20, 0, 0);
}

/* An IPv4 input of fast_l3's layouts with its IP header at @l3: the reason
 * the general way delivers it at once for (fast_ip_ok, then bypass4_why),
 * or -1: TCP, or the general way decides.  The one test of fast_bypass_run
 * and fast_other4. */
HOT int
fast_why4(const struct sofl_gro *g, const uint8_t *d, uint32_t len, uint32_t l3, const uint8_t *tb,
	  int ipip)
{
	uint32_t end;

	if (!fast_ip_ok(d, len, l3, 4, &end) || d[l3 + 9] == 6)
		return -1;
	return bypass4_why(g, d + l3, end - l3 - 20, tb, ipip);
}

/* A caller's parse @q of input @in (SOFL_GRO_F_PKT) the engine may use
 * (gro.h, Parsed inputs): it describes this frame, and where the rules will
 * read the frame by it — TCP or UDP over IP, not a fragment: the inputs
 * classify_l3 sends on — its offsets lie within the frame in the order
 * sofl_pkt_parse() writes them: the IP header (IPv4 without options: the
 * only IPv4 sent on), the TCP header (20..60 bytes, whole words) or UDP
 * header (8), the payload up to the end of the IP packet, the timestamp
 * option inside the TCP header.  Every read the rules make by a parse is
 * inside these bounds, so a parse that passes cannot make the engine read
 * outside the frame.  Other parses (not IP, not TCP/UDP, fragments) are
 * delivered by classify_l3 without the frame being read by them. */
/* A tunnel parse's outer offsets (pkt.h, Tunnels) in the order the parser
 * writes them, within the frame: what classify_tun, tun_same and
 * completion read by them (the outer IP and UDP headers, the tunnel
 * header, the bytes up to the inner IP header) */
static int
tun_fits(const struct sofl_pkt *q)
{
	const uint32_t o3 = q->outer_l3_off, ol = q->outer_l3_len, o4 = q->outer_l4_off;
	const uint32_t enc = q->encap_off, i2 = q->inner_l2_off;

	if ((q->outer_ipv != 4 && q->outer_ipv != 6) || ol < (q->outer_ipv == 4 ? 20u : 40u) ||
	    q->outer_ip_end > q->len || o3 + ol > q->outer_ip_end)
		return 0;
	if (q->encap == SOFL_ENCAP_IPIP)
		return o4 == 0 && enc == o3 + ol && q->encap_len == 0 && i2 == enc;
	return (q->encap == SOFL_ENCAP_VXLAN || q->encap == SOFL_ENCAP_GENEVE) &&
	       o4 == o3 + ol && enc == o4 + 8 && q->encap_len >= 8 &&
	       i2 == enc + (uint32_t)q->encap_len && i2 <= q->outer_ip_end;
}

static int
pkt_fits(const struct sofl_gro *g, const struct sofl_gro_in *in, const struct sofl_pkt *q)
{
	uint32_t l4end;

	if (!q || q->data != in->data || q->len != in->len || q->link != (uint8_t)g->cfg.link)
		return 0;
	if ((q->layers & SOFL_LAYER_ENCAP) && !tun_fits(q))
		return 0;
	if (q->ipv != 4 && q->ipv != 6)
		return q->ipv == 0;		/* NOT_IP */
	if ((q->l4_proto != 6 && q->l4_proto != 17) || q->is_frag)
		return 1;			/* PROTO, FRAGMENT */
	l4end = (uint32_t)q->l4_off + q->l4_len;
	return (q->layers & (SOFL_LAYER_L3 | SOFL_LAYER_L4)) == (SOFL_LAYER_L3 | SOFL_LAYER_L4) &&
	       q->l3_len >= (q->ipv == 4 ? 20 : 40) &&
	       q->l4_off == (uint32_t)q->l3_off + q->l3_len &&
	       (q->l4_proto == 6 ? q->l4_len >= 20 && q->l4_len <= 60 && !(q->l4_len & 3) :
				   q->l4_len == 8) &&
	       q->pay_off == l4end && q->ip_end <= q->len && q->pay_off <= q->ip_end &&
	       q->pay_len == q->ip_end - q->pay_off && q->pay_len <= 65535 &&
	       (!q->opt_ts || (q->opt_ts >= q->l4_off + 20u && q->opt_ts + 10u <= l4end)) &&
	       (!(q->layers & SOFL_LAYER_ENCAP) ||
		(q->l3_off == q->inner_l2_off + ((q->encap_flags & SOFL_ENCAP_F_INNER_ETH) ? 14u : 0u) &&
		 q->ip_end <= q->outer_ip_end));
}

/* A tunnel packet's outer layers (SOFL_LAYER_ENCAP or _ENCAP_ERR), before
 * its inner packet is classified: -1 to the inner rules, else the bypass
 * reason: not parsed into (counted by encap_err), a second level
 * (encap_mark), outer IPv4 options or IPv6 extension headers and a bad
 * outer IPv4 header checksum (inet_gro_receive, ipv6_gro_receive on the
 * outer header). */
static __attribute__((noinline)) int
classify_tun(struct sofl_gro *g, const struct sofl_gro_in *in, const struct sofl_pkt *q)
{
	g->st.tun_in++;
	if (q->layers & SOFL_LAYER_ENCAP_ERR) {
		g->st.encap_err[q->encap_err < SOFL_ENCAP_ERR__MAX ? q->encap_err : 0]++;
		return SOFL_GRO_BYPASS_ENCAP_MALFORMED;
	}
	if (q->encap_flags & SOFL_ENCAP_F_NESTED)
		return SOFL_GRO_BYPASS_ENCAP_NESTED;
	if (q->outer_l3_len != (q->outer_ipv == 4 ? 20 : 40))
		return SOFL_GRO_BYPASS_OUTER_IP_OPTS;
	if (q->outer_ipv == 4 && !(in->flags & SOFL_GRO_F_IPCSUM_OK)) {
		g->st.csum_sw_ip++;
		if (!ip4_csum_ok(q->data + q->outer_l3_off))
			return SOFL_GRO_BYPASS_OUTER_IP_CSUM;
	}
	return -1;
}

/* A tunnel packet's outer checks after the inner IP header's: the outer
 * header's length fault or reserved fragment bit joins badlen (#8, #9:
 * inet_gro_receive's flush on the outer header); unless the outer header
 * has one (udp4_gro_receive skips the check when flush is already set by
 * then: only the outer layer has been seen), a non-zero outer UDP checksum
 * not flagged verified (SOFL_GRO_F_OUTER_CSUM_OK) is verified
 * (skb_gro_checksum_validate_zero_check; a bad one is not merged, its flow
 * kept, whatever the inner packet's length).  -1, or the bypass reason. */
static __attribute__((noinline)) int
classify_tun_l4(struct sofl_gro *g, const struct sofl_gro_in *in, const struct sofl_pkt *q,
		int *badlen)
{
	const uint8_t *oip = q->data + q->outer_l3_off;
	/* the outer header's own flush (udp4_gro_receive sees only that one) */
	const int obad = q->outer_ip_end != q->len || (q->outer_ipv == 4 && (oip[6] & 0x80));

	*badlen |= obad;
	if (obad || !q->outer_l4_off || (in->flags & SOFL_GRO_F_OUTER_CSUM_OK) ||
	    !sofl_get16(q->data + q->outer_l4_off + 6))
		return -1;
	g->st.csum_sw_outer++;
	if (!l4_sum_ok(q->outer_ipv, oip, 17, q->outer_l3_len, q->outer_ip_end - q->outer_l4_off))
		return SOFL_GRO_BYPASS_OUTER_CSUM;
	return -1;
}

/* L2/L3 checks and checksums (#5-#12): everything that does not depend on
 * held flows, so a whole chunk can be classified before the table is used.
 * The parse is the caller's when it gave one that fits (pkt_fits), else
 * the engine's (x->own). */
HOT void
classify(struct sofl_gro *g, const struct sofl_gro_in *in, struct rxq *x)
{
	const struct sofl_pkt *q;

	x->ck = (in->flags & SOFL_GRO_F_CSUM_OK) ? CK_VALID : 0;	/* 0: not verified */
	x->byp = -1;
	if ((!in->data && in->len) || (in->flags & SOFL_GRO_F_MALFORMED)) {
		x->q = &x->own;		/* (read by nothing: delivered at once) */
		x->byp = SOFL_GRO_BYPASS_MALFORMED;	/* nothing to read, or a rejected parse */
		return;
	}
	if ((in->flags & SOFL_GRO_F_PKT) && pkt_fits(g, in, in->pkt)) {
		x->q = q = in->pkt;
	} else {
		x->q = q = &x->own;
		if (gro_parse(g, &x->own, in->data, in->len) < 0) {
			x->byp = SOFL_GRO_BYPASS_MALFORMED;	/* (data checked above) */
			return;
		}
	}
	if (__builtin_expect(q->layers & (SOFL_LAYER_ENCAP | SOFL_LAYER_ENCAP_ERR), 0) &&
	    (x->byp = classify_tun(g, in, q)) >= 0)
		return;
	x->byp = classify_l3(g, q, q->ipv, q->l4_proto, q->l3_len, q->is_frag, q->pay_off);
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
	x->badlen = rule_badlen(q->ipv, q->data + q->l3_off, q->ip_end, q->len);
	if (__builtin_expect(q->layers & SOFL_LAYER_ENCAP, 0) &&
	    (x->byp = classify_tun_l4(g, in, q, &x->badlen)) >= 0)
		return;
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
		x->h = (in->flags & SOFL_GRO_F_HASH) ? in->hash : gro_key_hash(g, q);
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
			gro_bypass(g, &z, x->byp);
		} else {
			gro_bypass(g, in, x->byp);
			/* (MALFORMED: no parse to read) */
			if (__builtin_expect(x->byp != SOFL_GRO_BYPASS_MALFORMED &&
					     (x->q->layers & (SOFL_LAYER_ENCAP | SOFL_LAYER_ENCAP_ERR)), 0))
				gro_tun_single(g, in, x->q, &g->outs[g->nout - 1]);
		}
	} else if (x->q->l4_proto == 6) {
		tcp_rx(g, in, x->q, x->h, x->b, x->ports, x->badlen, x->ck);
	} else {
		udp_rx(g, in, x->q, x->h, x->b, x->ports, x->badlen, x->ck);
	}
}

#endif
