/* Internal: header rewriting shared by GRO (completion) and GSO (per segment),
 * following Linux's inet_gro_complete/ipv6_gro_complete/tcp_gro_complete and
 * inet_gso_segment/ipv6_gso_segment/tcp_gso_segment.  GRO and GSO are
 * inverses: both end in the same "set this IP packet's length, fix its
 * checksums" step, which lives here.  Rules: add functions, don't change the
 * existing ones' behaviour without updating both engines. */
#ifndef SOFL_HDR_H
#define SOFL_HDR_H

#include <stdint.h>
#include "csum/csum_impl.h"
#include "softoffload/pkt.h"

/* IPv4: set tot_len to @ip_len and update the header checksum incrementally
 * (RFC 1624 eqn. 3, as Linux csum_replace2() in inet_gro_complete). */
static inline void
hdr_ipv4_set_len_incr(uint8_t *iph, uint16_t ip_len)
{
	uint16_t old = sofl_get16(iph + 2);

	sofl_put16(iph + 10, sofl_csum_replace16(sofl_get16(iph + 10), old, ip_len));
	sofl_put16(iph + 2, ip_len);
}

/* IPv4: set tot_len and ID, recompute the header checksum from scratch (as
 * Linux ip_send_check() in inet_gso_segment). */
static inline void
hdr_ipv4_set_len_id(uint8_t *iph, unsigned hlen, uint16_t ip_len, uint16_t id)
{
	sofl_put16(iph + 2, ip_len);
	sofl_put16(iph + 4, id);
	sofl_put16(iph + 10, sofl_csum_ipv4_hdr(iph, hlen));
}

/* IPv6: payload length = @ip_len - 40. */
static inline void
hdr_ipv6_set_len(uint8_t *ip6h, uint32_t ip_len)
{
	sofl_put16(ip6h + 4, (uint16_t)(ip_len - 40));
}

/* Pseudo-header sum (folded, not complemented) for an L4 length, from the
 * addresses in the parsed packet's flow key: what CHECKSUM_PARTIAL stores. */
static inline uint16_t
hdr_l4_pseudo(const struct sofl_pkt *p, uint32_t l4len)
{
	uint32_t s = p->ipv == 4 ?
		sofl_csum_pseudo_v4(p->key.src, p->key.dst, p->l4_proto, l4len) :
		sofl_csum_pseudo_v6(p->key.src, p->key.dst, p->l4_proto, l4len);
	return sofl_csum_fold(s);
}

/* ---- per-segment fix-ups for segmentation (GSO), added by gso ----
 * Sums that stay the same over all segments of one super-packet are taken
 * once; each segment then adds only its own fields.  Every result equals the
 * from-scratch computation (ip_send_check, __tcp_v4_send_check + full sum)
 * bit for bit: a ones'-complement sum folds to the same 16 bits however it
 * is grouped. */

/* Sum of @n (even, small: header fields) big-endian 16-bit words; inline
 * because a dispatched kernel call costs more than these few adds. */
static inline uint32_t
hdr_sum_words(const uint8_t *b, unsigned n)
{
	uint32_t s = 0;
	unsigned i;

	for (i = 0; i + 1 < n; i += 2)
		s += (uint32_t)b[i] << 8 | b[i + 1];
	return s;
}

/* IPv4: sum of the header with tot_len, ID and checksum taken as zero. */
static inline uint32_t
hdr_ipv4_base_sum(const uint8_t *iph, unsigned hlen)
{
	return hdr_sum_words(iph, 2) + hdr_sum_words(iph + 6, 4) +
	       hdr_sum_words(iph + 12, hlen - 12);
}

/* IPv4: set the ID; header checksum from @base_len, hdr_ipv4_base_sum()
 * with the header's tot_len added (a segment whose length is already in
 * place: GSO's middle segments) */
static inline void
hdr_ipv4_set_id_sum(uint8_t *iph, uint32_t base_len, uint16_t id)
{
	sofl_put16(iph + 4, id);
	sofl_put16(iph + 10, (uint16_t)~sofl_csum_fold(sofl_csum_combine(base_len, id)));
}

/* IPv4: set tot_len and ID; header checksum from hdr_ipv4_base_sum() —
 * the same 16 bits as hdr_ipv4_set_len_id(). */
static inline void
hdr_ipv4_set_len_id_sum(uint8_t *iph, uint32_t base, uint16_t ip_len, uint16_t id)
{
	sofl_put16(iph + 2, ip_len);
	hdr_ipv4_set_id_sum(iph, sofl_csum_combine(base, ip_len), id);
}

/* Pseudo-header sum without the length (add the length per segment). */
static inline uint32_t
hdr_l4_pseudo_base(const struct sofl_pkt *p)
{
	return p->ipv == 4 ?
		sofl_csum_pseudo_v4(p->key.src, p->key.dst, p->l4_proto, 0) :
		sofl_csum_pseudo_v6(p->key.src, p->key.dst, p->l4_proto, 0);
}

/* TCP: sum of the header with seq, flags byte and checksum taken as zero. */
static inline uint32_t
hdr_tcp_base_sum(const uint8_t *th, unsigned thlen)
{
	return hdr_sum_words(th, 4) + hdr_sum_words(th + 8, 4) + ((uint32_t)th[12] << 8) +
	       hdr_sum_words(th + 14, 2) + hdr_sum_words(th + 18, thlen - 18);
}

/* TCP segment: sequence number; @return what it adds to the sum. */
static inline uint32_t
hdr_tcp_set_seq(uint8_t *th, uint32_t seq)
{
	sofl_put32(th + 4, seq);
	return (seq >> 16) + (seq & 0xffff);
}

/* TCP segment: sequence number and flags; @return what they add to the sum. */
static inline uint32_t
hdr_tcp_set_seq_flags(uint8_t *th, uint32_t seq, uint8_t flags)
{
	th[13] = flags;
	return hdr_tcp_set_seq(th, seq) + flags;
}

/* The L4 checksum of one segment: pseudo sum without length @ps_base, the
 * segment's L4 length, its header sum (check field as zero) and payload sum.
 * @full 0: the folded pseudo-header sum (CHECKSUM_PARTIAL, never 0);
 * else the complemented full sum, a UDP 0 sent as 0xFFFF (CSUM_MANGLED_0),
 * TCP 0 left 0 (Linux tcp_gso_segment, gso_make_checksum). */
static inline uint16_t
hdr_l4_seg_check(uint32_t ps_base, uint32_t l4len, uint32_t hdr_sum, uint32_t pay_sum,
		 int full, int udp)
{
	uint32_t ps = sofl_csum_combine(ps_base, (l4len >> 16) + (l4len & 0xffff));
	uint16_t c;

	if (!full)
		return sofl_csum_fold(ps);
	c = (uint16_t)~sofl_csum_fold(sofl_csum_combine(sofl_csum_combine(ps, hdr_sum), pay_sum));
	return udp && c == 0 ? 0xffff : c;
}

#endif
