/* Internal: the parser's header checks and stores, written once and shared
 * (inline) by its generic path (pkt.c), its fast path (below) and the GRO
 * fast paths that skip the parse but not its checks (gro_rx.c); the
 * generic path exported (hidden) for the differential test of the fast
 * path (tests/test_pkt_fast.c). */
#ifndef SOFL_PKT_IMPL_H
#define SOFL_PKT_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "softoffload/bytes.h"
#include "softoffload/pkt.h"
#include "softoffload/error.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* sofl_pkt_parse_generic() : sofl_pkt_parse() without its fast path (the
 * common layouts in straight-line code): same contract, same results
 * (tunnels with the defaults, their inner packets by the generic checks
 * too); sofl_pkt_parse_generic_cfg() with a checked config or NULL. */
int sofl_pkt_parse_generic(struct sofl_pkt *p, const void *frame, size_t len, enum sofl_link link);
int sofl_pkt_parse_generic_cfg(struct sofl_pkt *p, const void *frame, size_t len,
			       enum sofl_link link, const struct sofl_pkt_config *cfg);

/* sofl_pkt_parse_plain() : the generic parse without tunnels (p, frame
 * checked by the caller). */
int sofl_pkt_parse_plain(struct sofl_pkt *p, const void *frame, size_t len, enum sofl_link link);

/* sofl_pkt_parse_rest() : the generic parse of the outer packet, then its
 * tunnel (config NULL or checked), the inner packet through the fast path
 * first when @fast: what the fast path hands on. */
int sofl_pkt_parse_rest(struct sofl_pkt *p, const void *frame, size_t len, enum sofl_link link,
			const struct sofl_pkt_config *cfg, int fast);

/* pk_iov_total() : the bytes held by @cnt iovecs (the iovec parser, and
 * gso.c for an iovec input). */
static inline size_t
pk_iov_total(const struct iovec *iov, int cnt)
{
	size_t t = 0;
	int i;

	for (i = 0; i < cnt; i++)
		t += iov[i].iov_len;
	return t;
}

/* sofl_pkt_tcp_options() : the TCP option walk of the generic path (fills
 * the opt_* offsets and tcp_opt_bad of a TCP packet parsed up to L4). */
void sofl_pkt_tcp_options(struct sofl_pkt *p);

/* The fast path, inline so that per-packet callers in the library (GRO)
 * do not pay a call: the common layouts (Ethernet with at most one VLAN
 * tag, or raw IP; IPv4 without options and not a fragment, or IPv6 without
 * extension headers; TCP or UDP, or another protocol over IPv4) in one
 * straight line: every header word loaded once, the result stored without
 * being read back.  A malformed TCP/UDP header ends here too, with the
 * generic code's error and partial result; anything else (other layouts,
 * every L2/L3 malformation) goes to sofl_pkt_parse_generic(), which parses
 * the packet from scratch. */

#define PK_ETH_HLEN   14
#define PK_ETH_P_IP   0x0800
#define PK_ETH_P_IPV6 0x86DD
#define PK_ETH_P_8021Q  0x8100
#define PK_ETH_P_8021AD 0x88A8
#define PK_ETH_P_TEB    0x6558	/* transparent Ethernet bridging (Geneve) */

#define PK_FAST static inline __attribute__((always_inline))

/* What the compiler knows of @x forgotten (no instruction): to steer its
 * register use where figures showed it mattered */
#define PK_OPAQUE(x) __asm__("" : "+r"(x))


/* Zero *p with eight 16-byte stores: memset of this size compiles to "rep
 * stos", whose start-up cost alone was most of a fast parse. */
PK_FAST void
pk_zero(struct sofl_pkt *p)
{
#if defined(__SSE2__)
	__m128i z = _mm_setzero_si128(), *v = (__m128i *)(void *)p;

	_Static_assert(offsetof(struct sofl_pkt, encap) + sizeof(p->encap) <= 128 &&
		       sizeof(*p) >= 128,
		       "sofl_pkt's plain-packet fields and encap lie within eight 16-byte words");
	__asm__("" : "+x"(z));	/* opaque: gcc turns stores of known zeros back into memset */
	_mm_storeu_si128(v, z);
	_mm_storeu_si128(v + 1, z);
	_mm_storeu_si128(v + 2, z);
	_mm_storeu_si128(v + 3, z);
	_mm_storeu_si128(v + 4, z);
	_mm_storeu_si128(v + 5, z);
	_mm_storeu_si128(v + 6, z);
	_mm_storeu_si128(v + 7, z);
#else
	memset(p, 0, sizeof(*p));
#endif
}

/* ---- the header checks and stores, one definition ---- */

/* pk_outer_key() : family, protocol and addresses of a tunnel parse's
 * OUTER IP header (SOFL_LAYER_ENCAP: the parser checked that header lies
 * within p->len) into *k; its other fields untouched.  One definition for
 * the engines that treat a tunnel packet by its outer header (RSS's default
 * hash, GSO's outer view). */
PK_FAST void
pk_outer_key(const struct sofl_pkt *p, struct sofl_flow_key *k)
{
	const uint8_t *ip = p->data + p->outer_l3_off;
	const int v6 = p->outer_ipv == 6;

	k->family = p->outer_ipv;
	k->proto = p->outer_proto;
	memset(k->src, 0, sizeof(k->src));
	memset(k->dst, 0, sizeof(k->dst));
	memcpy(k->src, ip + (v6 ? 8 : 12), v6 ? 16 : 4);
	memcpy(k->dst, ip + (v6 ? 24 : 16), v6 ? 16 : 4);
}

/* One more VLAN tag (TPID @type, TCI @tci) */
PK_FAST void
pk_vlan_push(struct sofl_pkt *p, uint16_t type, uint16_t tci)
{
	p->vlan_tpid[p->key.nvlan] = type;
	p->vlan_tci[p->key.nvlan] = tci;
	p->key.vlan[p->key.nvlan] = tci & 0x0fff;
	p->key.nvlan++;
}

/* 1 when the IPv4 header at @ip is a fragment (MF or an offset) */
PK_FAST int
pk_ipv4_frag(const uint8_t *ip)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint16_t f;

	memcpy(&f, ip + 6, 2);		/* the mask in the field's byte order: one test */
	return (f & 0xff3f) != 0;
#else
	return (sofl_get16(ip + 6) & 0x3fff) != 0;
#endif
}

/* The IPv4 total length of the header at @ip (@o bytes into a frame of
 * @len, header length @hl): 0 with *tot, or the parser's error */
PK_FAST int
pk_ipv4_len(const uint8_t *ip, uint32_t o, uint32_t len, uint32_t hl, uint32_t *tot)
{
	*tot = sofl_get16(ip + 2);
	if (*tot < hl)
		return SOFL_E_IPV4_TOTLEN_SHORT;
	if (o + *tot > len)
		return SOFL_E_IPV4_TOTLEN_LONG;
	return 0;
}

/* The end of the IPv6 packet whose header is at @ip (@o bytes into a frame
 * of @len): 0 with *end, or the parser's error */
PK_FAST int
pk_ipv6_end(const uint8_t *ip, uint32_t o, uint32_t len, uint32_t *end)
{
	const uint32_t plen = sofl_get16(ip + 4);

	if (plen == 0 && ip[6] == 0)
		return SOFL_E_IPV6_JUMBO;	/* jumbogram (RFC 2675) or empty HBH */
	*end = o + 40 + plen;
	if (*end > len)
		return SOFL_E_IPV6_PLEN_LONG;
	return 0;
}

/* The TCP header at @th with @avail bytes of IP payload: 0 with its length
 * *hl, or the parser's error */
PK_FAST int
pk_tcp_hlen(const uint8_t *th, uint32_t avail, uint32_t *hl)
{
	if (avail < 20)
		return SOFL_E_TCP_TRUNC;
	*hl = (uint32_t)(th[12] >> 4) * 4;
	if (*hl < 20)
		return SOFL_E_TCP_DOFF_SMALL;
	if (*hl > avail)
		return SOFL_E_TCP_DOFF_LONG;
	return 0;
}

/* The UDP header at @uh with @avail bytes of IP payload: 0 with its length
 * field *ulen, or the parser's error */
PK_FAST int
pk_udp_len(const uint8_t *uh, uint32_t avail, uint32_t *ulen)
{
	if (avail < 8)
		return SOFL_E_UDP_TRUNC;
	*ulen = sofl_get16(uh + 4);
	if (*ulen < 8 || *ulen > avail)
		return SOFL_E_UDP_LEN;
	return 0;
}

/* The IPv4 header's results (@hl bytes at @o, total length @tot) */
PK_FAST void
pk_ipv4_store(struct sofl_pkt *p, const uint8_t *ip, uint32_t o, uint32_t hl, uint32_t tot)
{
	p->ipv = 4;
	p->l4_proto = ip[9];
	p->l3_off = (uint16_t)o;
	p->l3_len = (uint16_t)hl;
	p->ip_end = o + tot;
	p->key.family = 4;
	p->key.proto = ip[9];
	memcpy(p->key.src, ip + 12, 4);
	memcpy(p->key.dst, ip + 16, 4);
}

/* The IPv6 header's results (at @o, packet end @end) */
PK_FAST void
pk_ipv6_store(struct sofl_pkt *p, const uint8_t *ip, uint32_t o, uint32_t end)
{
	p->ipv = 6;
	p->l3_off = (uint16_t)o;
	p->ip_end = end;
	p->key.family = 6;
	p->key.flow_label = sofl_get32(ip) & 0x000fffff;
	memcpy(p->key.src, ip + 8, 16);
	memcpy(p->key.dst, ip + 24, 16);
}

/* TCP options NOP NOP TS (kind 1 1 8 10) as loaded from memory */
#define PK_OPT_NNTS_LE 0x0a080101u

/* The TCP header's results (@hl bytes at @o, @avail bytes of IP payload)
 * and its options: the block Linux sends on every segment (NOP NOP TS)
 * recognised in one load, any other walked (sofl_pkt_tcp_options) */
PK_FAST void
pk_tcp_store(struct sofl_pkt *p, const uint8_t *d, uint32_t o, uint32_t hl, uint32_t avail)
{
	uint32_t w;

	p->l4_off = (uint16_t)o;
	p->l4_len = (uint16_t)hl;
	p->pay_off = o + hl;
	p->pay_len = avail - hl;
	p->tcp_flags = d[o + 13];
	p->tcp_seq = sofl_get32(d + o + 4);
	p->tcp_ack = sofl_get32(d + o + 8);
	p->key.sport = sofl_get16(d + o);
	p->key.dport = sofl_get16(d + o + 2);
	if (hl == 32) {
		memcpy(&w, d + o + 20, 4);
		if (w == PK_OPT_NNTS_LE) {
			p->opt_ts = (uint16_t)(o + 22);
			return;
		}
	}
	if (hl > 20)
		sofl_pkt_tcp_options(p);
}

/* The UDP header's results (at @o, length field @ulen) */
PK_FAST void
pk_udp_store(struct sofl_pkt *p, const uint8_t *d, uint32_t o, uint32_t ulen)
{
	p->l4_off = (uint16_t)o;
	p->l4_len = 8;
	p->pay_off = o + 8;
	p->pay_len = ulen - 8;
	p->key.sport = sofl_get16(d + o);
	p->key.dport = sofl_get16(d + o + 2);
}

/* ---- the TCP and UDP over IPv4 result in whole words ----
 * The most common packets of all (Ethernet with at most one VLAN tag, or
 * raw IP; IPv4 without options, not a fragment; TCP or UDP) have a result
 * that is mostly constants and zeros: its 128 bytes are stored as 8-byte
 * words composed in registers (each address with the zeros after it as
 * one 16-byte store where SSE2 is there) instead of zeroing the structure
 * and storing its two dozen fields one by one.  PK_AT() puts a field's host-order value where
 * memcpy() of the word would put the struct's bytes, on either byte order;
 * the word each field lies in is checked at compile time. */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define PK_AT(v, at, size) ((uint64_t)(v) << (8 * (8 - (at) - (size))))
#else
#define PK_AT(v, at, size) ((uint64_t)(v) << (8 * (at)))
#endif
#define PK_FSZ(f)   sizeof(((struct sofl_pkt *)0)->f)
#define PK_F(w, f, v) PK_AT(v, offsetof(struct sofl_pkt, f) - (w), PK_FSZ(f))
#define PK_IN(w, f) _Static_assert(offsetof(struct sofl_pkt, f) >= (w) && \
	offsetof(struct sofl_pkt, f) + PK_FSZ(f) <= (w) + 8, #f " lies in word " #w)
PK_IN(8, len); PK_IN(8, link); PK_IN(8, layers); PK_IN(8, ipv); PK_IN(8, l4_proto);
PK_IN(16, ethertype); PK_IN(16, vlan_tci[0]); PK_IN(24, l3_off); PK_IN(24, l3_len);
PK_IN(32, ip_end); PK_IN(40, l4_off); PK_IN(40, l4_len); PK_IN(48, pay_off);
PK_IN(48, pay_len); PK_IN(56, tcp_flags); PK_IN(64, opt_ts); PK_IN(64, tcp_seq);
PK_IN(72, tcp_ack); PK_IN(72, key.family); PK_IN(72, key.proto); PK_IN(72, key.nvlan);
PK_IN(80, key.vlan[0]); PK_IN(88, key.src[0]); PK_IN(88, key.src[3]); PK_IN(104, key.dst[0]);
PK_IN(104, key.dst[3]); PK_IN(120, key.sport);
PK_IN(120, key.dport);
_Static_assert(offsetof(struct sofl_pkt, vlan_tpid) == 22 && offsetof(struct sofl_pkt, key.src) == 88 &&
	       offsetof(struct sofl_pkt, encap) == 124, "the word layout below");

PK_FAST void
pk_st64(struct sofl_pkt *p, size_t at, uint64_t w)
{
	memcpy((uint8_t *)p + at, &w, 8);
}

/* The IPv4 address at @a into the 16 bytes at @at of *p (four bytes, then
 * twelve zeros): one 16-byte store where SSE2 is there */
PK_FAST void
pk_st_addr(struct sofl_pkt *p, size_t at, const uint8_t *a)
{
#if defined(__SSE2__)
	int32_t v;

	memcpy(&v, a, 4);
	_mm_storeu_si128((__m128i *)(void *)((uint8_t *)p + at), _mm_cvtsi32_si128(v));
#else
	uint32_t v;

	memcpy(&v, a, 4);
	pk_st64(p, at, PK_AT(v, 0, 4));
	pk_st64(p, at + 8, 0);
#endif
}

/* The TCP or UDP over IPv4 packet at @d (@len >= @o + 20 bytes, IPv4 header at @o:
 * 0 for SOFL_LINK_RAW; for SOFL_LINK_ETH 14, or 18 after a VLAN tag
 * @tpid/@tci) parsed into *p: 1 when done, 2 when
 * done but for its TCP options (the caller calls sofl_pkt_tcp_options());
 * 0 when it is not one (nothing written).  The same result as the
 * field-by-field path. */
/* The two 16-bit big-endian fields of the 4 bytes @w (as loaded from
 * memory) in host order, each where memcpy() of the pair would put them */
PK_FAST uint32_t
pk_be16x2(uint32_t w)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return w;
#else
	w = __builtin_bswap32(w);
	return w >> 16 | w << 16;
#endif
}

PK_FAST int
pk_fast_ip4_t(struct sofl_pkt *p, const uint8_t *d, uint32_t len, uint32_t o, uint16_t tpid,
	      uint16_t tci, const int udp)
{
	const uint8_t *ip = d + o, *th = ip + 20;
	const uint8_t proto = udp ? 17 : 6;
	const uint32_t l4 = o + 20, l4min = udp ? 8 : 20;
	uint32_t end, hl, pay, opt = 0, w;

	/* the generic checks, folded: a total length that holds the IPv4
	 * header and the smallest L4 header and ends within the frame, a TCP
	 * header length of at least 20 that ends within the IP packet, a UDP
	 * length of at least 8 that does too (unsigned: x - a > b - a is
	 * x < a || x > b for b >= a).  Anything else, errors included, is
	 * the field-by-field path's to report. */
	if (ip[0] != 0x45 || pk_ipv4_frag(ip))
		return 0;
	end = sofl_get16(ip + 2);	/* the total length, then the IP packet's end */
	if (end < 20 + l4min)
		return 0;
	end += o;
	if (end > len)
		return 0;
	if (!udp) {
		hl = (uint32_t)(th[12] >> 2) & 0x3c;	/* data offset * 4 */
		PK_OPAQUE(hl);	/* a 32-bit value from here: gcc kept byte and
				 * word copies of it, and saved a register */
		if (hl - 20 > end - (l4 + 20))
			return 0;
		pay = end - l4 - hl;
		if (__builtin_expect(hl == 32, 1)) {	/* (the 4 bytes lie within the header) */
			memcpy(&opt, th + 20, 4);
			opt = opt == PK_OPT_NNTS_LE ? l4 + 22 : 0;
		}
	} else {
		pay = sofl_get16(th + 4);
		if (pay - 8 > end - (l4 + 8))
			return 0;
		hl = 8;
		pay -= 8;	/* the UDP length's payload (it may end before the IP packet) */
	}
	/* each word stored once composed, the header bytes it takes loaded
	 * after the stores before it (which may alias them, so the compiler
	 * keeps that order): few values live at once, no callee-saved
	 * register to save in the entry point */
	pk_st64(p, 0, (uint64_t)(uintptr_t)d);
	pk_st64(p, 8, PK_F(8, len, len) | PK_F(8, link, o ? SOFL_LINK_ETH : SOFL_LINK_RAW) |
		PK_F(8, layers, (o ? SOFL_LAYER_L2 : 0) | SOFL_LAYER_L3 | SOFL_LAYER_L4) |
		PK_F(8, ipv, 4) | PK_F(8, l4_proto, proto));
	pk_st64(p, 16, (o ? PK_F(16, ethertype, PK_ETH_P_IP) : 0) |
		(o == PK_ETH_HLEN + 4 ? PK_F(16, vlan_tci[0], tci) | PK_AT(tpid, 22 - 16, 2) : 0));
	pk_st64(p, 24, PK_F(24, l3_off, o) | PK_F(24, l3_len, 20));
	pk_st64(p, 32, PK_F(32, ip_end, end));
	pk_st64(p, 40, PK_F(40, l4_off, l4) | PK_F(40, l4_len, hl));
	pk_st64(p, 48, PK_F(48, pay_off, l4 + hl) | PK_F(48, pay_len, pay));
	if (!udp) {
		pk_st64(p, 56, PK_F(56, tcp_flags, th[13]));
		pk_st64(p, 64, PK_F(64, opt_ts, opt) | PK_F(64, tcp_seq, sofl_get32(th + 4)));
		pk_st64(p, 72, PK_F(72, tcp_ack, sofl_get32(th + 8)) | PK_F(72, key.family, 4) |
			PK_F(72, key.proto, proto) | PK_F(72, key.nvlan, o == PK_ETH_HLEN + 4));
	} else {
		pk_st64(p, 56, 0);
		pk_st64(p, 64, 0);
		pk_st64(p, 72, PK_F(72, key.family, 4) | PK_F(72, key.proto, proto) |
			PK_F(72, key.nvlan, o == PK_ETH_HLEN + 4));
	}
	pk_st64(p, 80, o == PK_ETH_HLEN + 4 ? PK_F(80, key.vlan[0], tci & 0x0fff) : 0);
	pk_st_addr(p, 88, ip + 12);
	pk_st_addr(p, 104, ip + 16);
	memcpy(&w, th, 4);
	pk_st64(p, 120, PK_AT(pk_be16x2(w), 0, 4));	/* key.sport, key.dport */
	return udp || hl == 20 || opt ? 1 : 2;
}

/* The protocols pk_fast_ip4() is to take (constants where it is inlined) */
#define PK_TCP 1
#define PK_UDP 2

/* pk_fast_ip4_t() for the protocols @which: a straight-line copy for each */
PK_FAST int
pk_fast_ip4(struct sofl_pkt *p, const uint8_t *d, uint32_t len, uint32_t o, uint16_t tpid,
	    uint16_t tci, const int which)
{
	if (len < o + 20)
		return 0;
	if ((which & PK_TCP) && __builtin_expect(d[o + 9] == 6, 1))
		return pk_fast_ip4_t(p, d, len, o, tpid, tci, 0);
	if ((which & PK_UDP) && d[o + 9] == 17)
		return pk_fast_ip4_t(p, d, len, o, tpid, tci, 1);
	return 0;
}

/* pk_fast_ip4() for an Ethernet frame (@len >= 34) of ethertype @type */
PK_FAST int
pk_fast_ip4_eth(struct sofl_pkt *p, const uint8_t *d, uint32_t len, uint16_t type, const int which)
{
	if (type == PK_ETH_P_IP)
		return pk_fast_ip4(p, d, len, PK_ETH_HLEN, 0, 0, which);
	if ((type == PK_ETH_P_8021Q || type == PK_ETH_P_8021AD) && sofl_get16(d + 16) == PK_ETH_P_IP)
		return pk_fast_ip4(p, d, len, PK_ETH_HLEN + 4, type, sofl_get16(d + 14), which);
	return 0;
}

/* ---- the fast path ---- */

/* L4 of the fast path; @o = L4 offset, @end = ip_end.  As parse_l4: 0, or
 * the L4 error with the L3 result and the IP payload filled in; a protocol
 * other than TCP/UDP is the IP payload. */
PK_FAST int
pk_ip_payload(struct sofl_pkt *p, uint32_t o, uint32_t avail, uint8_t layers, int ret)
{
	p->layers = layers;
	p->l4_off = (uint16_t)o;
	p->pay_off = o;
	p->pay_len = avail;
	return ret;
}

PK_FAST int
pk_fast_l4(struct sofl_pkt *p, const uint8_t *d, uint32_t o, uint32_t end, uint8_t proto,
	uint8_t layers)
{
	uint32_t avail = end - o, hl, ulen;
	int r;

	if (proto == 6) {
		if ((r = pk_tcp_hlen(d + o, avail, &hl)) < 0)
			return pk_ip_payload(p, o, avail, layers, r);
		p->layers = layers | SOFL_LAYER_L4;
		pk_tcp_store(p, d, o, hl, avail);
		return 0;
	}
	if (proto == 17) {
		if ((r = pk_udp_len(d + o, avail, &ulen)) < 0)
			return pk_ip_payload(p, o, avail, layers, r);
		p->layers = layers | SOFL_LAYER_L4;
		pk_udp_store(p, d, o, ulen);
		return 0;
	}
	return pk_ip_payload(p, o, avail, layers, 0);
}

PK_FAST int
pk_fast_ipv4(struct sofl_pkt *p, const uint8_t *d, uint32_t len, uint32_t o, uint8_t layers)
{
	const uint8_t *ip = d + o;
	uint32_t tot;

	if (len < o + 20 || ip[0] != 0x45 || pk_ipv4_frag(ip))
		return 1;		/* options or a fragment: generic */
	if (pk_ipv4_len(ip, o, len, 20, &tot) < 0)
		return 1;		/* (the generic path's error, with its partial result) */
	pk_ipv4_store(p, ip, o, 20, tot);
	return pk_fast_l4(p, d, o + 20, o + tot, ip[9], layers | SOFL_LAYER_L3);
}

PK_FAST int
pk_fast_ipv6(struct sofl_pkt *p, const uint8_t *d, uint32_t len, uint32_t o, uint8_t layers)
{
	const uint8_t *ip = d + o;
	uint32_t end;
	uint8_t nh;

	if (len < o + 40 || (ip[0] >> 4) != 6)
		return 1;
	nh = ip[6];
	if ((nh != 6 && nh != 17) || pk_ipv6_end(ip, o, len, &end) < 0)
		return 1;		/* extension headers, or an error: generic */
	pk_ipv6_store(p, ip, o, end);
	p->l4_proto = nh;
	p->l3_len = 40;
	p->key.proto = nh;
	return pk_fast_l4(p, d, o + 40, end, nh, layers | SOFL_LAYER_L3);
}

/* 0 or a negative L4 error: *p is the complete result (as the generic
 * parser's); 1: use the generic parser.  @ip4: what to try pk_fast_ip4()
 * on first (the caller may have tried some): TCP and UDP over Ethernet
 * (PK_TCP, PK_UDP), both over raw IP (PK_IP4_RAW). */
#define PK_IP4_RAW 4
PK_FAST int
pk_parse_fast(struct sofl_pkt *p, const uint8_t *d, uint32_t len, enum sofl_link link,
	      int ip4)
{
	uint32_t o = PK_ETH_HLEN;
	uint16_t type;
	int r = 0;

	if (link == SOFL_LINK_ETH) {
		if (len < PK_ETH_HLEN + 20)
			return 1;
		type = sofl_get16(d + 12);
		if (ip4 & (PK_TCP | PK_UDP))
			r = pk_fast_ip4_eth(p, d, len, type, ip4 & (PK_TCP | PK_UDP));
		if (r) {
			if (r == 2)
				sofl_pkt_tcp_options(p);
			return 0;
		}
		pk_zero(p);
		p->data = d;
		p->len = len;
		type = sofl_get16(d + 12);
		if (type == PK_ETH_P_8021Q || type == PK_ETH_P_8021AD) {
			pk_vlan_push(p, type, sofl_get16(d + 14));
			type = sofl_get16(d + 16);
			o = PK_ETH_HLEN + 4;
		}
		p->ethertype = type;
		if (type == PK_ETH_P_IP)
			return pk_fast_ipv4(p, d, len, o, SOFL_LAYER_L2);
		if (type == PK_ETH_P_IPV6)
			return pk_fast_ipv6(p, d, len, o, SOFL_LAYER_L2);
		return 1;
	}
	if (link != SOFL_LINK_RAW || len < 20)
		return 1;
	if ((ip4 & PK_IP4_RAW) && (r = pk_fast_ip4(p, d, len, 0, 0, 0, PK_TCP | PK_UDP))) {
		if (r == 2)
			sofl_pkt_tcp_options(p);
		return 0;
	}
	pk_zero(p);
	p->data = d;
	p->len = len;
	p->link = SOFL_LINK_RAW;
	if ((d[0] >> 4) == 4)
		return pk_fast_ipv4(p, d, len, 0, 0);
	return pk_fast_ipv6(p, d, len, 0, 0);
}

/* ---- tunnels (pkt_encap.c) ----
 * A parse of the outer packet that succeeded goes on into a tunnel when
 * pk_encap_cand() says so; the config pointer is NULL for the defaults
 * (constants where inlined) or one that sofl_pkt_config_check() accepted. */

/* sofl_pkt_config_check() : 0 when @cfg (not NULL) is a valid config, or
 * SOFL_E_CFG_SIZE / SOFL_E_INVAL as sofl_pkt_parse_cfg() returns them. */
int sofl_pkt_config_check(const struct sofl_pkt_config *cfg);

/* sofl_pkt_parse_ip() : the IP packet at @o of p->data (version @v, 4 or
 * 6, as the link or the tunnel says), bounded by p->len, parsed through L4
 * into *p (zeroed, data/len/link set) by the generic checks: 0 or the
 * parse error, the layers before it valid. */
int sofl_pkt_parse_ip(struct sofl_pkt *p, uint32_t o, int v);

/* sofl_pkt_encap() : *p, a successful parse of the outer packet for which
 * pk_encap_cand() is true, parsed on into its tunnel (SOFL_LAYER_ENCAP) or
 * marked SOFL_LAYER_ENCAP_ERR (pkt.h "Tunnels"); @fast: the inner packet
 * through the fast path first (0: the generic checks only, for the
 * differential test).  @return 0. */
int sofl_pkt_encap(struct sofl_pkt *p, const struct sofl_pkt_config *cfg, int fast);

/* The bytes of *p a parse defines (for the tests that compare results):
 * every named field of a tunnel packet (SOFL_LAYER_ENCAP or _ENCAP_ERR);
 * else those up to the tunnel fields' first word (encap = NONE), the rest
 * being unspecified (pkt.h). */
static inline size_t
pk_named_len(const struct sofl_pkt *p)
{
	return (p->layers & (SOFL_LAYER_ENCAP | SOFL_LAYER_ENCAP_ERR)) ?
	       offsetof(struct sofl_pkt, reserved_) : offsetof(struct sofl_pkt, outer_l3_off);
}

/* 1 when @cfg is this version's size and valid (the common case of
 * sofl_pkt_config_check(), without a call) */
PK_FAST int
pk_cfg_ok(const struct sofl_pkt_config *cfg)
{
	uint32_t i, bad = 0;

	if (cfg->size != sizeof(*cfg) || (cfg->flags & ~(uint32_t)SOFL_PKT_F_NO_IPIP) ||
	    cfg->n_udp > SOFL_PKT_UDP_ENCAP_MAX)
		return 0;
	for (i = 0; i < cfg->n_udp; i++)
		bad |= (uint32_t)(cfg->udp[i].port == 0) |
		       (uint32_t)((uint8_t)(cfg->udp[i].type - SOFL_ENCAP_VXLAN) > 1);
	return !bad;
}

#define PK_VXLAN_PORT  4789
#define PK_GENEVE_PORT 6081

/* The tunnel type of UDP destination port @port, or 0 */
PK_FAST int
pk_udp_encap(const struct sofl_pkt_config *cfg, uint16_t port)
{
	uint32_t i;

	if (!cfg)
		return port == PK_VXLAN_PORT ? SOFL_ENCAP_VXLAN :
		       port == PK_GENEVE_PORT ? SOFL_ENCAP_GENEVE : 0;
	for (i = 0; i < cfg->n_udp; i++)
		if (cfg->udp[i].port == port)
			return cfg->udp[i].type;
	return 0;
}

#define PK_VXLAN_HLEN   8
#define PK_VXLAN_F_I    0x08	/* RFC 7348 §5: the I flag, the only one defined */
#define PK_GENEVE_HLEN  8	/* + (byte 0 & 0x3f) 4-byte words of options */
#define PK_GENEVE_O     0x80	/* RFC 8926 §3.4: control (OAM) packet */
#define PK_GENEVE_C     0x40	/* RFC 8926 §3.4: critical options present */

/* The VXLAN or Geneve header @h, @room bytes of outer UDP payload: the
 * rules of sofl_encap_hdr_parse() (pkt.h), written once for it and the
 * frame parse.  On an error, e->len is the extent read so far: 0 (too
 * short, Geneve version or O bit), 8 (VXLAN flags), 8 + options (Geneve
 * options or protocol type). */
PK_FAST int
pk_encap_hdr(unsigned type, const uint8_t *h, size_t room, struct sofl_encap_hdr *e)
{
	e->len = 0;
	if (room < 8)
		return SOFL_ENCAP_ERR_TRUNC;
	e->vni = (uint32_t)h[4] << 16 | (uint32_t)h[5] << 8 | h[6];
	e->critical = 0;
	if (type == SOFL_ENCAP_VXLAN) {
		/* RFC 7348 §5: flags 0x08, the reserved 24 + 8 bits zero
		 * (vxlan_rcv() drops anything else without extensions) */
		e->len = PK_VXLAN_HLEN;
		e->proto = PK_ETH_P_TEB;
		return h[0] != PK_VXLAN_F_I || (h[1] | h[2] | h[3] | h[7]) != 0 ?
		       SOFL_ENCAP_ERR_VXLAN_FLAGS : 0;
	}
	/* RFC 8926 §3.4; geneve_gro_receive(), geneve_udp_encap_recv() */
	if (h[0] >> 6)
		return SOFL_ENCAP_ERR_GENEVE_VER;
	if (h[1] & PK_GENEVE_O)
		return SOFL_ENCAP_ERR_GENEVE_OAM;
	e->len = PK_GENEVE_HLEN + (uint32_t)(h[0] & 0x3f) * 4;
	if (e->len > room)
		return SOFL_ENCAP_ERR_GENEVE_OPTLEN;
	e->proto = sofl_get16(h + 2);
	e->critical = (h[1] & PK_GENEVE_C) != 0;
	return e->proto == PK_ETH_P_TEB || e->proto == PK_ETH_P_IP || e->proto == PK_ETH_P_IPV6 ?
	       0 : SOFL_ENCAP_ERR_GENEVE_PROTO;
}

/* 1 when the parsed packet *p carries a tunnel: UDP to a port of the table,
 * or IP-in-IP (not an IP fragment, unless SOFL_PKT_F_NO_IPIP) */
PK_FAST int
pk_encap_cand(const struct sofl_pkt *p, const struct sofl_pkt_config *cfg)
{
	if (p->l4_proto == 17)
		return (p->layers & SOFL_LAYER_L4) && pk_udp_encap(cfg, p->key.dport);
	if (p->l4_proto == 4 || p->l4_proto == 41)
		return (!cfg || !(cfg->flags & SOFL_PKT_F_NO_IPIP)) &&
		       (p->layers & SOFL_LAYER_L3) && !p->is_frag;
	return 0;
}

/* sofl_pkt_parse_cfg() for a non-NULL @p and @d (or @len 0) and a config
 * that is NULL or checked (sofl_pkt_config_check()); @ip4 as for
 * pk_parse_fast(). */
PK_FAST int
pk_parse_cfg(struct sofl_pkt *p, const uint8_t *d, uint32_t len, enum sofl_link link,
	     const struct sofl_pkt_config *cfg, int ip4)
{
	int r = pk_parse_fast(p, d, len, link, ip4);

	if (r > 0)
		return sofl_pkt_parse_rest(p, d, len, link, cfg, 1);
	if (r == 0 && pk_encap_cand(p, cfg))
		return sofl_pkt_encap(p, cfg, 1);
	return r;
}

PK_FAST int
sofl_pkt_parse_inline_cfg(struct sofl_pkt *p, const uint8_t *d, uint32_t len, enum sofl_link link,
			  const struct sofl_pkt_config *cfg)
{
	return pk_parse_cfg(p, d, len, link, cfg, PK_TCP | PK_UDP | PK_IP4_RAW);
}

/* sofl_pkt_parse() for a non-NULL @p and @d (or @len 0). */
PK_FAST int
sofl_pkt_parse_inline(struct sofl_pkt *p, const uint8_t *d, uint32_t len, enum sofl_link link)
{
	return sofl_pkt_parse_inline_cfg(p, d, len, link, NULL);
}

#endif
