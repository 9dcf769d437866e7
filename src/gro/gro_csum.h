/* Internal: the GRO engine's checksum checks (IPv4 header, TCP/UDP over
 * the pseudo-header), as skb_gro_checksum_validate in Linux. */
#ifndef SOFL_GRO_CSUM_H
#define SOFL_GRO_CSUM_H

#include "gro_engine.h"
#include "csum/csum_impl.h"

/* 1 when sofl_csum_fold(sofl_csum_add(sum, buf, len)) == 0xffff: csum.h's
 * verifier, called (a segment is longer than its inline path takes; the
 * call keeps the loops that verify per packet small) */
static inline int
csum_ok(uint32_t sum, const uint8_t *buf, uint32_t len)
{
	return (sofl_csum_ok)(sum, buf, len);
}

/* l4_sum_ok() for an IP header of another length (IPv6 extension headers):
 * the pseudo-header summed apart.  Out of line, so that the usual case needs
 * no registers saved around the kernel call. */
static __attribute__((noinline, unused)) int
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
static inline __attribute__((always_inline)) int
l4_sum_ok(unsigned ipv, const uint8_t *ip, uint8_t proto, uint32_t l3len, uint32_t l4len)
{
	if (l3len == (ipv == 4 ? 20u : 40u)) {
		const struct l4span sp = l4_span(ipv, proto, l4len);

		return csum_ok(sp.sum, ip + sp.off, sp.len);
	}
	return l4_sum_ok_ext(ipv, ip, proto, l3len, l4len);
}

/* IPv4 header checksum of a 20-byte header: 1 when it verifies (csum.h's
 * inline verifier: no call) */
static inline int
ip4_csum_ok(const uint8_t *ip)
{
	return sofl_csum_ok_small(0, ip, 20);
}

#endif
