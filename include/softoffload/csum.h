/*
 * softoffload — Internet checksum (RFC 1071, 1624; pseudo-headers RFC 768/793/8200).
 *
 * HowTo
 *   Numbers in this API are plain host integers holding the RFC's 16-bit
 *   big-endian word arithmetic: the RFC 1071 §3 example bytes
 *   00 01 f2 03 f4 f5 f6 f7 give sofl_csum() == 0x220d.  To store a checksum
 *   into a packet use sofl_put16() (or htons()).
 *
 *   A "sum" (uint32_t) is an unfolded ones'-complement accumulator: add
 *   buffers with sofl_csum_add(), pseudo-headers with sofl_csum_pseudo_v4/v6(),
 *   fold it with sofl_csum_fold() and complement for the final checksum.
 *   Sums can be added with sofl_csum_combine() (one's-complement addition);
 *   a block that starts at an odd byte offset must be added with
 *   sofl_csum_block_add().
 *
 *   Packet-level helpers (sofl_csum_pkt_*) take a packet parsed by
 *   sofl_pkt_parse() (pkt.h) and use the lengths of its IP header: Ethernet
 *   padding is never summed.
 *
 *   ```c
 *   #include <stdio.h>
 *   #include <softoffload/csum.h>
 *
 *   // Does the TCP segment tcp[0..l4len) between IPv4 src and dst verify?
 *   static int
 *   tcp4_ok(const uint8_t src[4], const uint8_t dst[4], const void *tcp, uint32_t l4len)
 *   {
 *       uint32_t s = sofl_csum_pseudo_v4(src, dst, 6, l4len);
 *
 *       return sofl_csum_fold(sofl_csum_add(s, tcp, l4len)) == 0xffff;
 *   }
 *
 *   int
 *   main(void)
 *   {
 *       static const uint8_t rfc1071[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };
 *       static const uint8_t a[4] = { 198, 18, 0, 1 }, b[4] = { 198, 18, 0, 2 };
 *       uint8_t tcp[20] = { 0x30, 0x39, 0x00, 0x50, [12] = 0x50, [13] = 0x02 };
 *       uint16_t c = sofl_csum(rfc1071, sizeof(rfc1071));
 *
 *       // fill the checksum field (bytes 16..17) over the pseudo-header
 *       sofl_put16(tcp + 16, (uint16_t)~sofl_csum_fold(sofl_csum_add(
 *           sofl_csum_pseudo_v4(a, b, 6, sizeof(tcp)), tcp, sizeof(tcp))));
 *       printf("RFC 1071 example %#06x, TCP %s\n", c,
 *           tcp4_ok(a, b, tcp, sizeof(tcp)) ? "verifies" : "fails");
 *       return c == 0x220d && tcp4_ok(a, b, tcp, sizeof(tcp)) ? 0 : 1;
 *   }
 *   ```
 *
 * Implementations: portable C (64-bit add-with-carry), AVX2 (AVX2 + BMI2) and
 * AVX-512 (F, BW, VL, VNNI + AVX2, BMI2: Ice Lake, Zen 4 and later; it hands
 * buffers beyond L1 to 256-bit loads or the AVX2 kernel), chosen once, on
 * first use, from CPUID; the environment variable
 * SOFL_CSUM_IMPL=generic|avx2|avx512 overrides the choice (an unknown or
 * unavailable one falls back to the best available).  All give bit-identical
 * results.  A checksum call costs one indirect jump through a cached pointer
 * (speeds per CPU: docs/benchmarks.md).
 *
 * Buffers: any alignment, any length (0 included, and then the pointers may
 * be NULL); nothing outside buf[0..len) is read, not even by the vector
 * kernels.
 * Thread-safety: every call is reentrant; the one-time dispatch is race-free
 * (only sofl_csum_set_impl() must not race with checksum calls).
 * Memory: no call allocates or makes a system call; buffers are only read (or
 * written where stated), and nothing is retained after a call returns.
 */
#ifndef SOFTOFFLOAD_CSUM_H
#define SOFTOFFLOAD_CSUM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "softoffload/error.h"
#include "softoffload/bytes.h"	/* sofl_get16/32, sofl_put16/32 */
#include "softoffload/csum_inline.h"	/* the inline short-buffer path */

#ifdef __cplusplus
extern "C" {
#endif

struct sofl_pkt;

/* sofl_csum_add() :
 * Adds the 16-bit big-endian words of buf[0..len) to @sum (odd length: the
 * last byte is the high byte of a final word padded with zero).
 * @return the new unfolded sum.  buf may be unaligned; len may be 0.
 * In C the name is a macro for sofl_csum_add_inline() (below): buffers of up
 * to SOFL_CSUM_INLINE_MAX bytes are summed by inline code, longer ones by the
 * dispatched kernel.  (sofl_csum_add)(...) or a function pointer always
 * reaches the library function.  Both return the same value bit for bit. */
SOFL_API uint32_t (sofl_csum_add)(uint32_t sum, const void *buf, size_t len);

/* Up to this many bytes a sum is cheaper than a call through the dispatch
 * (IPv4 headers, pseudo-headers, 64-byte frames). */
#define SOFL_CSUM_INLINE_MAX 64

/* sofl_csum_add_inline() :
 * sofl_csum_add() with the short-buffer path inline; same contract. */
SOFL_CSUM_INLINE_ uint32_t
sofl_csum_add_inline(uint32_t sum, const void *buf, size_t len)
{
	if (len <= SOFL_CSUM_INLINE_MAX)
		return sofl_csum_add_small(sum, buf, len);
	return (sofl_csum_add)(sum, buf, len);
}
#define sofl_csum_add(sum, buf, len) sofl_csum_add_inline((sum), (buf), (len))

/* sofl_csum_ok() :
 * Verification: 1 when sofl_csum_fold(sofl_csum_add(@sum, @buf, @len)) ==
 * 0xffff (a region that holds its own checksum field, @sum the
 * pseudo-header's sum or 0, verifies), else 0.  The same verdict as that
 * expression, bit for bit, with less work after the last load: the
 * dispatched kernel's verifying entry leaves out the fold and byte swap a
 * sum ends with.  Like sofl_csum_add(), up to SOFL_CSUM_INLINE_MAX bytes are
 * verified by inline code (no call: IPv4 headers); longer buffers by the
 * implementation in use (one call through the cached pointer).
 * (sofl_csum_ok)(...) or a function pointer always reaches the library
 * function.  Buffers, thread-safety and memory as for sofl_csum_add(): any
 * alignment and length (NULL with @len 0), only buf[0..len) is read,
 * reentrant, no allocation, nothing retained. */
SOFL_API int (sofl_csum_ok)(uint32_t sum, const void *buf, size_t len);

/* sofl_csum_ok_inline() :
 * sofl_csum_ok() with the short-buffer path inline; same contract. */
SOFL_CSUM_INLINE_ int
sofl_csum_ok_inline(uint32_t sum, const void *buf, size_t len)
{
	if (len <= SOFL_CSUM_INLINE_MAX)
		return sofl_csum_ok_small(sum, buf, len);
	return (sofl_csum_ok)(sum, buf, len);
}
#define sofl_csum_ok(sum, buf, len) sofl_csum_ok_inline((sum), (buf), (len))

/* sofl_csum_copy() :
 * Fused copy-and-checksum: memcpy(dst, src, len) and return
 * sofl_csum_add(sum, src, len).  dst and src must not overlap. */
SOFL_API uint32_t sofl_csum_copy(void *dst, const void *src, size_t len, uint32_t sum);

/* sofl_csum_fold() : folds a sum to 16 bits (end-around carry), NOT complemented. */
static inline uint16_t
sofl_csum_fold(uint32_t sum)
{
	/* sum plus sum rotated by 16 holds hi + lo + the carry out of lo + hi
	 * in its upper half: the two-step fold's result for every 32-bit sum,
	 * in three instructions instead of six */
	uint32_t u = sum + (sum >> 16 | sum << 16);

	return (uint16_t)(u >> 16);
}

/* sofl_csum_combine() : ones'-complement addition of two sums (never loses a carry). */
static inline uint32_t
sofl_csum_combine(uint32_t a, uint32_t b)
{
	uint32_t r = a + b;
	return r + (r < a);
}

/* sofl_csum_block_add() :
 * Adds @block (the sum of a buffer) that starts @offset bytes into the data
 * summed so far; an odd offset swaps the block's bytes (RFC 1071 §2(B)). */
static inline uint32_t
sofl_csum_block_add(uint32_t sum, uint32_t block, size_t offset)
{
	if (offset & 1) {
		uint16_t f = sofl_csum_fold(block);
		block = (uint16_t)((f << 8) | (f >> 8));
	}
	return sofl_csum_combine(sum, block);
}

/* sofl_csum() : the Internet checksum of buf (~fold(sum)). RFC 1071 §3 -> 0x220d. */
SOFL_API uint16_t sofl_csum(const void *buf, size_t len);

/* sofl_csum_pseudo_v4() / _v6() :
 * Sum of the pseudo-header: IPv4 src, dst, zero, proto, 16-bit @l4len (RFC 768/793);
 * IPv6 src, dst, 32-bit upper-layer length, zeros, next header = the
 * upper-layer protocol (RFC 8200 §8.1).  Addresses in network byte order. */
SOFL_API uint32_t sofl_csum_pseudo_v4(const void *src4, const void *dst4, uint8_t proto, uint32_t l4len);
SOFL_API uint32_t sofl_csum_pseudo_v6(const void *src16, const void *dst16, uint8_t proto, uint32_t l4len);

/* sofl_csum_ipv4_hdr() :
 * The IPv4 header checksum of the @hlen-byte header at @iph, computed as if
 * the checksum field (bytes 10-11) were zero.  Store it with sofl_put16().
 * Never 0xFFFF (RFC 1624 §3).  Reads exactly iph[0..hlen), whatever @hlen is
 * (a too short @hlen just sums less); 20 is the fast path.
 * sofl_csum_ipv4_hdr_ok() : 1 when the header as stored verifies, else 0. */
SOFL_API uint16_t sofl_csum_ipv4_hdr(const void *iph, size_t hlen);
SOFL_API int sofl_csum_ipv4_hdr_ok(const void *iph, size_t hlen);

/* sofl_csum_replace16() / _replace32() :
 * Incremental update (RFC 1624 eqn. 3, HC' = ~(~HC + ~m + m')) of checksum
 * @check when a 16-bit (32-bit) field changes from @old to @new (host-order
 * values of the big-endian field, e.g. sofl_get16()/sofl_get32()).  A 32-bit
 * field must start at an even offset of the checksummed data.
 * When @check is a correct checksum the result equals a full recomputation.
 * Equal values return @check unchanged (RFC 1624 erratum 4782; Linux would
 * turn 0xFFFF into 0 there); otherwise the result is bit for bit that of Linux
 * csum_replace2()/csum_replace4().  The UDP rule is the caller's: a UDP
 * checksum that becomes 0 must be stored as 0xFFFF. */
SOFL_API uint16_t sofl_csum_replace16(uint16_t check, uint16_t old, uint16_t new_);
SOFL_API uint16_t sofl_csum_replace32(uint16_t check, uint32_t old, uint32_t new_);

/* sofl_csum_complete_partial() :
 * Completes a partial checksum the way a NIC (or Linux skb_checksum_help) does
 * for virtio NEEDS_CSUM / CHECKSUM_PARTIAL: the 16-bit field at
 * csum_start + csum_offset holds the folded pseudo-header sum (over the full
 * L4 length: a NIC-style TSO seed with length 0 gives a wrong checksum);
 * sums frame[csum_start..len) and stores the complemented result there (a
 * result of 0 is stored as 0xFFFF, for every protocol, as Linux does).  @len
 * should end at the end of the IP packet, before any Ethernet padding.
 * @return 0, or SOFL_E_INVAL (NULL frame, or csum_start + csum_offset + 2 > len,
 * overflow-safe); on error the frame is not touched. */
SOFL_API int sofl_csum_complete_partial(void *frame, size_t len, size_t csum_start, size_t csum_offset);

/* The state of one checksum: one enum for the whole library.  The parser's
 * checker (sofl_csum_pkt_check() below) reports VALID, BAD, PARTIAL, ABSENT or
 * NONE; a GRO output (gro.h, sofl_gro_out.csum) is UNKNOWN, VALID or PARTIAL.
 * Values are stable; new states are appended. */
enum sofl_csum_state {
	SOFL_CSUM_UNKNOWN = 0, /* not verified (a GRO output passed through unchanged) */
	SOFL_CSUM_VALID = 1,   /* verifies (or was verified / completed) */
	SOFL_CSUM_PARTIAL = 2, /* holds exactly the folded pseudo-header sum (CHECKSUM_PARTIAL, TSO/GRO) */
	SOFL_CSUM_BAD = 3,     /* does not verify, and is not a partial sum */
	SOFL_CSUM_ABSENT = 4,  /* UDP over IPv4 with checksum 0 ("no checksum") */
	SOFL_CSUM_NONE = 5,    /* no such checksum in this packet (not IPv4 / not TCP-UDP / fragment) */
};

/* Tunnels (pkt.h "Tunnels").  A tunnel packet (p->layers & SOFL_LAYER_ENCAP:
 * VXLAN, Geneve, IP-in-IP) carries up to four checksums: the inner IPv4
 * header, the inner TCP/UDP checksum, the outer IPv4 header and the outer
 * UDP checksum (VXLAN, Geneve; over the outer pseudo-header and the whole
 * outer UDP datagram: tunnel header, inner Ethernet and inner packet).
 *   - sofl_csum_pkt_check(), _l4() and _pseudo() work on the named fields,
 *     i.e. on the INNER packet, exactly as on a plain packet (an inner UDP
 *     checksum of 0 over inner IPv6 is BAD, RFC 8200 §8.1).
 *   - sofl_csum_pkt_check_outer() classifies the outer two; an outer UDP
 *     checksum of 0 is ABSENT over IPv4 (RFC 768) and over IPv6 too: RFC 6935
 *     and RFC 6936 allow a zero UDP checksum for tunnel packets over IPv6
 *     (Linux accepts them on a VXLAN/Geneve device with udp6zerocsumrx,
 *     drivers/net/vxlan/vxlan_core.c, net/ipv6/udp.c udp6_csum_zero_error()).
 *     A tunnel packet verifies when every one of the four is VALID or NONE,
 *     the outer UDP one may be ABSENT, and the inner UDP one over inner IPv4
 *     may be ABSENT.
 *   - sofl_csum_pkt_fill() fills the inner ones first, then the outer IPv4
 *     header and the outer UDP checksum over the result, as Linux's
 *     udp_set_csum()/udp6_set_csum() do after the inner packet is complete.
 *     A zero outer UDP checksum is left 0 (the sender chose no outer
 *     checksum, a per-device setting in Linux: noudpcsum over IPv4,
 *     udp6zerocsumtx over IPv6) unless @udp_zero_too.
 * A packet whose tunnel was not parsed into (SOFL_LAYER_ENCAP_ERR) is a
 * plain packet here: its named fields are the outer headers.  A second
 * tunnel level (SOFL_ENCAP_F_NESTED) is payload of the inner packet: its
 * checksums are neither checked nor filled (the inner L4 checksum covers
 * its bytes as they are).
 *
 * sofl_csum_pkt_check() :
 * Classifies the IPv4 header checksum (*ip, may be NULL) and the TCP/UDP
 * checksum (*l4, may be NULL) of a packet parsed by sofl_pkt_parse() (also
 * after a parse error: layers that did not parse are SOFL_CSUM_NONE).  A zero
 * UDP checksum over IPv6 is SOFL_CSUM_BAD (RFC 8200 §8.1); a stored 0xFFFF
 * and 0x0000 both verify for TCP (ones'-complement -0 and +0).  Fragments:
 * l4 NONE.  The L4 length is the one of the IP header (UDP: the UDP length).
 * IPv6 with a Routing header that still has segments left: the pseudo-header
 * uses the destination of the IPv6 header, as Linux GRO does, not the final
 * destination a sender uses (RFC 8200 §8.1); such packets may read as BAD.
 * A tunnel packet: its inner headers (see "Tunnels" above). */
SOFL_API void sofl_csum_pkt_check(const struct sofl_pkt *p, enum sofl_csum_state *ip,
				  enum sofl_csum_state *l4);

/* sofl_csum_pkt_check_outer() :
 * Classifies the outer IPv4 header checksum (*ip, may be NULL: VALID, BAD,
 * or NONE for an outer IPv6 header) and the outer UDP checksum (*udp, may be
 * NULL: VALID, BAD, PARTIAL, ABSENT when 0 over IPv4 or IPv6, or NONE for
 * IP-in-IP) of a tunnel packet parsed into (SOFL_LAYER_ENCAP; pkt.h
 * "Tunnels").  Any other packet, or NULL @p: both NONE.  The outer UDP
 * length is the UDP length field (checked against the outer IP packet; a
 * field that does not fit gives NONE, which the parser never lets through).
 * Outer IPv6 with a Routing header: as sofl_csum_pkt_check(). */
SOFL_API void sofl_csum_pkt_check_outer(const struct sofl_pkt *p, enum sofl_csum_state *ip,
					enum sofl_csum_state *udp);

/* sofl_csum_pkt_outer_udp() :
 * Computes the full outer UDP checksum of a UDP tunnel packet (VXLAN,
 * Geneve; field treated as zero) over the outer pseudo-header and the whole
 * outer UDP datagram as it is now (fill the inner checksums first).  A
 * computed 0 is returned as 0xFFFF.
 * @return the 16-bit checksum (>= 0), or SOFL_E_NOT_TCPUDP (no tunnel
 *         packet, or IP-in-IP: no outer UDP header). */
SOFL_API int sofl_csum_pkt_outer_udp(const struct sofl_pkt *p);

/* sofl_csum_pkt_l4() :
 * Computes the full TCP/UDP checksum of the parsed packet (field treated as
 * zero) over the L4 length from the IP header (Ethernet padding excluded).
 * UDP: a computed 0 is returned as 0xFFFF; TCP never maps 0.
 * @return the 16-bit checksum (>= 0), or SOFL_E_NOT_TCPUDP / SOFL_E_FRAGMENT. */
SOFL_API int sofl_csum_pkt_l4(const struct sofl_pkt *p);

/* sofl_csum_pkt_pseudo() :
 * The folded pseudo-header sum for the packet's L4 length (what a
 * CHECKSUM_PARTIAL packet carries in its checksum field). Same errors. */
SOFL_API int sofl_csum_pkt_pseudo(const struct sofl_pkt *p);

/* sofl_csum_pkt_fill() :
 * Writes the IPv4 header checksum (if IPv4) and the full TCP/UDP checksum
 * (if TCP/UDP and not a fragment) into @frame, which must be the buffer @p
 * was parsed from (writable).  UDP over IPv4 with checksum 0 is left 0
 * unless @udp_zero_too.  A tunnel packet (SOFL_LAYER_ENCAP): the inner ones
 * as just said, then the outer IPv4 header checksum and the outer UDP
 * checksum over the outer datagram with the inner packet filled; an outer
 * UDP checksum of 0 (over IPv4 or IPv6) is left 0 unless @udp_zero_too
 * (see "Tunnels" above).  Layers that did not parse (non-IP frames, parse
 * errors) are left untouched, which is not an error.
 * @return 0, or SOFL_E_INVAL (NULL, or @frame is not p->data). */
SOFL_API int sofl_csum_pkt_fill(void *frame, const struct sofl_pkt *p, int udp_zero_too);

/* Implementation selection (tests, benchmarks). */
enum sofl_csum_impl { SOFL_CSUM_GENERIC = 0, SOFL_CSUM_AVX2 = 1, SOFL_CSUM_AVX512 = 2 };
/* sofl_csum_impl_available() : 1 when the CPU (and build) supports @impl. */
SOFL_API int sofl_csum_impl_available(enum sofl_csum_impl impl);
/* sofl_csum_set_impl() : forces @impl for the whole process. Not thread-safe
 * with concurrent checksum calls; GRO engines follow it too (the results
 * never change, only the speed).  @return 0, SOFL_E_INVAL (no such
 * implementation) or SOFL_E_NOTSUP (not available on this CPU or build;
 * the one in use stays). */
SOFL_API int sofl_csum_set_impl(enum sofl_csum_impl impl);
/* sofl_csum_impl_name() : "generic", "avx2" or "avx512" — the one in use. */
SOFL_API const char *sofl_csum_impl_name(void);

#ifdef __cplusplus
}
#endif
#endif
