/* Internal: the per-ISA checksum kernels behind the dispatch in csum.c.
 *
 * A kernel has the signature and contract of sofl_csum_add() (or of
 * sofl_csum_copy()), so the public call is a single tail jump through a cached
 * pointer.  Inside, a kernel sums buf[0..len) as 16-bit words in *memory
 * (native) order*, an odd last byte padded with zero as it would sit in
 * memory, folds that to 16 bits and hands it to sofl_csum_finish(), which
 * byte-swaps it into the API's big-endian word arithmetic and adds @sum.
 * (The ones'-complement sum commutes with byte swapping: RFC 1071 §2(B).) */
#ifndef SOFL_CSUM_IMPL_H
#define SOFL_CSUM_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "softoffload/csum.h"	/* sofl_csum_adc64_, _load64_, _tail64_ */

typedef uint32_t (*sofl_csum_kernel_fn)(uint32_t sum, const void *buf, size_t len);
typedef uint32_t (*sofl_csum_copy_fn)(void *dst, const void *src, size_t len, uint32_t sum);
/* A residue kernel (for verifiers, sofl_csum_verify() below): a 64-bit value
 * congruent modulo 0xffff to the sum of buf[0..len)'s 16-bit words in memory
 * order (an odd last byte padded with zero), and 0 exactly when that sum is 0
 * (every word 0).  Neither folded to 16 bits nor byte-swapped: the steps a
 * kernel takes after its last load to return a sofl_csum_add() value, which
 * the verifier's fold would then undo, are left out. */
typedef uint64_t (*sofl_csum_resid_fn)(const void *buf, size_t len);

uint32_t sofl_csum_generic(uint32_t sum, const void *buf, size_t len);
uint32_t sofl_csum_copy_generic(void *dst, const void *src, size_t len, uint32_t sum);
#if defined(__x86_64__)
uint32_t sofl_csum_avx2(uint32_t sum, const void *buf, size_t len);
uint32_t sofl_csum_copy_avx2(void *dst, const void *src, size_t len, uint32_t sum);
uint32_t sofl_csum_avx512(uint32_t sum, const void *buf, size_t len);
uint32_t sofl_csum_copy_avx512(void *dst, const void *src, size_t len, uint32_t sum);
uint64_t sofl_csum_resid_avx512(const void *buf, size_t len);
#endif
/* The residue kernel of the implementation in use (csum.c): one indirect
 * jump, like sofl_csum_add(). */
uint64_t sofl_csum_resid(const void *buf, size_t len);
/* The implementation in use (the dispatch's choice or sofl_csum_set_impl()) */
enum sofl_csum_impl sofl_csum_impl_current(void);

/* Adds a 16-bit memory-order sum to a big-endian-word sum (csum.h's). */
static inline uint32_t
sofl_csum_finish(uint32_t sum, uint32_t folded)
{
	return sofl_csum_finish_(sum, folded);
}

/* 64-bit add with end-around carry (csum.h's, under an internal name). */
static inline uint64_t
sofl_adc64(uint64_t a, uint64_t b)
{
	return sofl_csum_adc64_(a, b);
}

/* The n (0..7) bytes at p as one zero-padded 64-bit word in memory order
 * (csum.h's sofl_csum_tail64_). */
static inline uint64_t
sofl_tail_word(const unsigned char *p, size_t n)
{
	return sofl_csum_tail64_(p, n);
}

/* Fold a 64-bit ones'-complement accumulator to 16 bits, 0 only for 0
 * (csum.h's; three instructions per halving). */
static inline uint32_t
sofl_fold64(uint64_t s)
{
	return sofl_csum_fold64_(s);
}

/* The unfolded end-around-carry sum of buf as 64-bit memory-order words, in
 * four independent chains (one add-with-carry chain would run at one word
 * per cycle).  Inline: the vector kernels use it for short buffers. */
static inline uint64_t
sofl_load64(const unsigned char *p)
{
	return sofl_csum_load64_(p);	/* csum.h's */
}

static inline uint64_t
sofl_csum_words64(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;

	for (; len >= 32; len -= 32, p += 32) {
		s0 = sofl_adc64(s0, sofl_load64(p));
		s1 = sofl_adc64(s1, sofl_load64(p + 8));
		s2 = sofl_adc64(s2, sofl_load64(p + 16));
		s3 = sofl_adc64(s3, sofl_load64(p + 24));
	}
	if (len & 16) {
		s0 = sofl_adc64(s0, sofl_load64(p));
		s1 = sofl_adc64(s1, sofl_load64(p + 8));
		p += 16;
	}
	if (len & 8) {
		s2 = sofl_adc64(s2, sofl_load64(p));
		p += 8;
	}
	s3 = sofl_adc64(s3, sofl_tail_word(p, len & 7));
	return sofl_adc64(sofl_adc64(s0, s1), sofl_adc64(s2, s3));
}

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

/* CPU feature bits (src/cpu.c). */
#define SOFL_CPU_AVX2     (1u << 0)
#define SOFL_CPU_AVX512BW (1u << 1)  /* AVX-512 F+BW+VL, OS-enabled */
#define SOFL_CPU_GFNI     (1u << 2)  /* GFNI with AVX-512 */
#define SOFL_CPU_BMI2     (1u << 3)
#define SOFL_CPU_VNNI     (1u << 4)  /* AVX512_VNNI (with AVX512BW) */
unsigned sofl_cpu_features(void);

#endif
