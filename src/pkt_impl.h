/* Internal: the parser's header checks and stores, written once and shared
 * (inline) by its generic path (pkt.c), its fast path (below) and the GRO
 * fast paths that skip the parse but not its checks (gro_fast.c); the
 * generic path exported (hidden) for the differential test of the fast
 * path (tests/test_pkt_fast.c). */
#ifndef SOFL_PKT_IMPL_H
#define SOFL_PKT_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "softoffload/csum.h"
#include "softoffload/pkt.h"
#include "softoffload/error.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* sofl_pkt_parse_generic() : sofl_pkt_parse() without its fast path (the
 * common layouts in straight-line code): same contract, same results. */
int sofl_pkt_parse_generic(struct sofl_pkt *p, const void *frame, size_t len, enum sofl_link link);

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

#define PK_FAST static inline __attribute__((always_inline))


/* Zero *p with eight 16-byte stores: memset of this size compiles to "rep
 * stos", whose start-up cost alone was most of a fast parse. */
PK_FAST void
pk_zero(struct sofl_pkt *p)
{
#if defined(__SSE2__)
	__m128i z = _mm_setzero_si128(), *v = (__m128i *)(void *)p;

	_Static_assert(offsetof(struct sofl_pkt, reserved_) <= 128 && sizeof(*p) >= 128,
		       "sofl_pkt's fields lie within eight 16-byte words");
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
	return (sofl_get16(ip + 6) & 0x3fff) != 0;
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
 * parser's); 1: use the generic parser */
PK_FAST int
pk_parse_fast(struct sofl_pkt *p, const uint8_t *d, uint32_t len, enum sofl_link link)
{
	uint32_t o = PK_ETH_HLEN;
	uint16_t type;

	if (link == SOFL_LINK_ETH) {
		if (len < PK_ETH_HLEN + 20)
			return 1;
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
	pk_zero(p);
	p->data = d;
	p->len = len;
	p->link = SOFL_LINK_RAW;
	if ((d[0] >> 4) == 4)
		return pk_fast_ipv4(p, d, len, 0, 0);
	return pk_fast_ipv6(p, d, len, 0, 0);
}

/* sofl_pkt_parse() for a non-NULL @p and @d (or @len 0). */
PK_FAST int
sofl_pkt_parse_inline(struct sofl_pkt *p, const uint8_t *d, uint32_t len, enum sofl_link link)
{
	int r = pk_parse_fast(p, d, len, link);

	if (r <= 0)
		return r;
	return sofl_pkt_parse_generic(p, d, len, link);
}

#endif
