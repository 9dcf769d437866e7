/* Internal: what the checksum dispatch (csum.c) offers the layers above
 * beyond csum.h: the residue kernel in use and the verifier built on it,
 * and which implementation is in use. */
#ifndef SOFL_CSUM_IMPL_H
#define SOFL_CSUM_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "softoffload/csum.h"
#include "csum_kern.h"

/* The residue kernel of the implementation in use (csum_kern.h's
 * sofl_csum_resid_fn): one indirect jump, like sofl_csum_add(). */
uint64_t sofl_csum_resid(const void *buf, size_t len);
/* The implementation in use (the dispatch's choice or sofl_csum_set_impl()) */
enum sofl_csum_impl sofl_csum_impl_current(void);

/* sofl_csum_verify() :
 * 1 exactly when sofl_csum_fold(sofl_csum_add(sum, buf, len)) == 0xffff (a
 * checksum verifies), from the residue kernel.  With T that sum and R the
 * residue: on a little-endian host the API's words are the memory-order
 * words byte-swapped, and a swap multiplies by 256 modulo 0xffff, so
 * T = sum + 256 R (mod 0xffff); times 256 (invertible: 256 * 256 = 1 mod
 * 0xffff), T = 0 exactly when V = R + 256 sum = 0 (mod 0xffff).  On a
 * big-endian host memory order is the API's (sofl_csum_finish() swaps
 * nothing): T = sum + R, and V = R + sum.  V and T are 0 only together (sum
 * 0 and every word 0), and sofl_fold64(V) is 0xffff exactly when V = 0 (mod
 * 0xffff) and V != 0, as sofl_csum_fold(T) is 0xffff exactly when T is. */
static inline int
sofl_csum_verify(uint32_t sum, const void *buf, size_t len)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	const uint64_t s = sum;
#else
	const uint64_t s = (uint64_t)sum << 8;
#endif

	return sofl_fold64(sofl_adc64(sofl_csum_resid(buf, len), s)) == 0xffff;
}

/* sofl_csum_replace16() inline (csum.c's is this): for the layers that
 * update a header per output packet, where the call would cost more than
 * the arithmetic */
static inline uint16_t
csum_replace16_inl(uint16_t check, uint16_t old, uint16_t new_)
{
	uint32_t s;

	if (old == new_)
		return check;
	/* ~(~HC + ~m + m'), with 16-bit end-around-carry adds like csum16_add */
	s = (uint16_t)~check;
	s += (uint16_t)~old;
	s = (s & 0xffff) + (s >> 16);
	s += new_;
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

#endif
