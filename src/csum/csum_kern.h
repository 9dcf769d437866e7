/* Internal: the per-ISA checksum kernels behind the dispatch in csum.c.
 *
 * A kernel has the signature and contract of sofl_csum_add() (or of
 * sofl_csum_copy()), so the public call is a single tail jump through a cached
 * pointer.  Inside, a kernel sums buf[0..len) as 16-bit words in *memory
 * (native) order*, an odd last byte padded with zero as it would sit in
 * memory, folds that to 16 bits and hands it to sofl_csum_finish(), which
 * byte-swaps it into the API's big-endian word arithmetic and adds @sum.
 * (The ones'-complement sum commutes with byte swapping: RFC 1071 §2(B).) */
#ifndef SOFL_CSUM_KERN_H
#define SOFL_CSUM_KERN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "softoffload/csum_inline.h"	/* sofl_csum_adc64_, _fold64_, _finish_ ... */

typedef uint32_t (*sofl_csum_kernel_fn)(uint32_t sum, const void *buf, size_t len);
typedef uint32_t (*sofl_csum_copy_fn)(void *dst, const void *src, size_t len, uint32_t sum);
/* A residue kernel (for verifiers, sofl_csum_verify() in csum_impl.h): a 64-bit value
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
/* Adds a 16-bit memory-order sum to a big-endian-word sum (csum_inline.h's). */
static inline uint32_t
sofl_csum_finish(uint32_t sum, uint32_t folded)
{
	return sofl_csum_finish_(sum, folded);
}

/* 64-bit add with end-around carry (csum_inline.h's, under a short name). */
static inline uint64_t
sofl_adc64(uint64_t a, uint64_t b)
{
	return sofl_csum_adc64_(a, b);
}

/* The n (0..7) bytes at p as one zero-padded 64-bit word in memory order
 * (csum_inline.h's sofl_csum_tail64_). */
static inline uint64_t
sofl_tail_word(const unsigned char *p, size_t n)
{
	return sofl_csum_tail64_(p, n);
}

/* Fold a 64-bit ones'-complement accumulator to 16 bits, 0 only for 0
 * (csum_inline.h's; three instructions per halving). */
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
	return sofl_csum_load64_(p);	/* csum_inline.h's */
}

/* The unfolded end-around-carry sum of buf as 64-bit memory-order words, in
 * four independent chains (one add-with-carry chain would run at one word
 * per cycle).  Inline: the vector kernels use it for short buffers. */
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

#endif
