/* Internal: the outer headers of a tunnel super-packet (gso.h, type with
 * SOFL_GSO_TUNNEL_*), fixed per segment after the inner headers have been
 * written by gso.c's cut (the inner TCP/UDP rules are not repeated here).
 *
 * Linux 6.18: __skb_udp_tunnel_segment() (net/ipv4/udp_offload.c) cuts the
 * inner packet with the inner offloads, then per segment sets the outer UDP
 * length and, for SKB_GSO_UDP_TUNNEL_CSUM, the outer checksum from the
 * pseudo-header sum plus gso_make_checksum() over the bytes from the outer
 * UDP header to the inner checksum start, seeded with the complement of the
 * inner pseudo-header sum (what lco_csum() in include/linux/skbuff.h does
 * for a non-GSO packet); inet_gso_segment() / ipv6_gso_segment() of the
 * outer IP header then set its ID (+1 per segment unless
 * SKB_GSO_TCP_FIXEDID), length and header checksum.  IP-in-IP
 * (ipip_gso_segment, sit_gso_segment, ip4ip6/ip6ip6_gso_segment) is the
 * same without the UDP step. */
#ifndef SOFL_GSO_TUN_H
#define SOFL_GSO_TUN_H

#include <stdint.h>
#include "softoffload/gso.h"
#include "hdr.h"

struct gso_tun {
	uint32_t ol3, ol4;	/* outer IP and UDP header offsets (ol4 0: IP-in-IP) */
	uint32_t ip_hl;		/* bytes from the outer IP header to the inner payload */
	uint32_t udp_hl;	/* bytes from the outer UDP header to the inner payload */
	uint32_t in_hl;		/* bytes from the inner IP header to the inner payload */
	uint32_t in_l4_hl;	/* the inner TCP/UDP header's length */
	uint32_t ip_base;	/* outer IPv4: hdr_ipv4_base_sum() */
	uint32_t u_base;	/* outer UDP checksum: the sum of what every segment shares */
	uint32_t in_ps_base;	/* inner pseudo-header sum without its length */
	uint16_t id0, id_step;	/* outer IPv4 ID of segment 0, and its step */
	uint8_t ov4;		/* outer IPv4 */
	uint8_t csum;		/* outer UDP checksum set (SOFL_GSO_TUNNEL_UDP_CSUM) */
	uint8_t in_v6;		/* inner IPv6: its payload length is in the outer sum */
	uint8_t pad_;
};

/* gso_tun_plan() : checks a tunnel type against the parse (gso_tunnel.c).
 * @return 0 and *t filled, or SOFL_E_INVAL / SOFL_E_GSO_TUNNEL /
 * SOFL_E_GSO_TUNNEL_LEN. */
int gso_tun_plan(struct gso_tun *t, const struct sofl_gso_params *gp, const struct sofl_pkt *p);

/* gso_outer_view() : *o = @p (a SOFL_LAYER_ENCAP parse) with the named L3/L4
 * fields describing the outer packet, as a parse without tunnels would have
 * them: what a type without tunnel bits acts on (gso_tunnel.c). */
void gso_outer_view(struct sofl_pkt *o, const struct sofl_pkt *p);

/* The outer UDP checksum of a segment whose outer UDP length is @ulen,
 * inner L4 length @l4len and inner IP length @inlen.  The inner L4 bytes
 * (header with its checksum, and payload) sum to the complement of the
 * inner pseudo-header sum, whether that checksum is complete or partial
 * (lco_csum): they are never summed again.  A correct inner IPv4 header
 * sums to 0 (mod 0xffff) and adds nothing; an inner IPv6 header adds its
 * payload length. */
static inline uint16_t
gso_tun_udp_check(const struct gso_tun *t, uint32_t ulen, uint32_t l4len, uint32_t inlen)
{
	uint32_t in_ps = sofl_csum_fold(sofl_csum_combine(t->in_ps_base, l4len));
	uint32_t s = sofl_csum_combine(t->u_base, 2 * ulen + (uint16_t)~in_ps);
	uint16_t c;

	if (t->in_v6)
		s = sofl_csum_combine(s, inlen - 40);
	c = (uint16_t)~sofl_csum_fold(s);
	return c ? c : 0xffff;	/* CSUM_MANGLED_0 */
}

/* Segment @h carries @plen inner payload bytes: its outer IP length, ID
 * @id and header checksum, outer UDP length and checksum. */
static inline __attribute__((always_inline)) void
gso_tun_fix(const struct gso_tun *t, uint8_t *h, uint32_t plen, uint16_t id)
{
	uint32_t ulen;

	if (t->ov4)
		hdr_ipv4_set_len_id_sum(h + t->ol3, t->ip_base, (uint16_t)(t->ip_hl + plen), id);
	else
		hdr_ipv6_set_len(h + t->ol3, t->ip_hl + plen);
	if (!t->ol4)
		return;
	ulen = t->udp_hl + plen;
	sofl_put16(h + t->ol4 + 4, (uint16_t)ulen);
	sofl_put16(h + t->ol4 + 6, t->csum ?
		   gso_tun_udp_check(t, ulen, t->in_l4_hl + plen, t->in_hl + plen) : 0);
}

/* A middle segment whose headers are a copy of the previous full-sized
 * one's: every length and the outer UDP checksum are already right (the
 * same lengths give the same sum); only the outer IPv4 ID and header
 * checksum change (@ip_sum: hdr_ipv4_base_sum() with the length added). */
static inline __attribute__((always_inline)) void
gso_tun_fix_mid(const struct gso_tun *t, uint8_t *h, uint32_t ip_sum, uint16_t id)
{
	if (t->ov4)
		hdr_ipv4_set_id_sum(h + t->ol3, ip_sum, id);
}

#endif
