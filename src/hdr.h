/* Internal: header rewriting shared by GRO (completion) and GSO (per segment),
 * following Linux's inet_gro_complete/ipv6_gro_complete/tcp_gro_complete and
 * inet_gso_segment/ipv6_gso_segment/tcp_gso_segment.  GRO and GSO are
 * inverses: both end in the same "set this IP packet's length, fix its
 * checksums" step, which lives here.  Rules: add functions, don't change the
 * existing ones' behaviour without updating both engines. */
#ifndef SOFL_HDR_H
#define SOFL_HDR_H

#include <stdint.h>
#include "softoffload/csum.h"
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
	sofl_put16(iph + 10, sofl_ipv4_hdr_csum(iph, hlen));
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

#endif
