/* Internal: the AVX-512 sum of a packet-sized buffer, inline.
 *
 * sofl_pkt_sum() is the kernel csum_avx512.c's entries take for 257..1536
 * bytes at any alignment, in a header of its own so that it stays one
 * straight-line function its callers there inline (SOFL_PKT_TARGET).
 * Callers check SOFL_PKT_LEN(len) first.  The rest of the library reaches
 * it through the dispatch (csum.h: sofl_csum_add(), sofl_csum_ok()). */
#ifndef SOFL_CSUM_AVX512_PKT_H
#define SOFL_CSUM_AVX512_PKT_H

#if defined(__x86_64__)
#include <immintrin.h>
#include "csum_kern.h"

#define SOFL_PKT_TARGET \
	__attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni,bmi2")))

/* the lengths sofl_pkt_sum() takes: 256 < len <= 1536, in one compare */
#define SOFL_PKT_MIN 257u
#define SOFL_PKT_MAX 1536u
#define SOFL_PKT_LEN(len) ((len) - (size_t)SOFL_PKT_MIN <= (size_t)(SOFL_PKT_MAX - SOFL_PKT_MIN))

/* The end of csum_avx512.c's aligned_sum() and of sofl_pkt_sum(): the
 * unsigned 32-bit lanes of @v, two by two, as eight 64-bit words
 * hi 2^32 + lo, summed — not the total of the lanes but congruent to it
 * modulo 0xffff (2^32 = 1), and 0 only when it is: all a fold needs, in
 * fewer steps than summing 32-bit lanes; then rotated by @r bits (8 for a
 * region that starts at an odd offset). */
static inline __attribute__((always_inline)) SOFL_PKT_TARGET uint64_t
sofl_lanes_sum_rot(__m512i v, unsigned r)
{
	__m256i y = _mm256_add_epi64(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
	__m128i x = _mm_add_epi64(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1));
	uint64_t s = (uint64_t)_mm_cvtsi128_si64(_mm_add_epi64(x, _mm_unpackhi_epi64(x, x)));

	return s << r | s >> ((64 - r) & 63);
}

/* sofl_pkt_sum(): the sum of p[0..len) for SOFL_PKT_LEN(len), the way
 * csum_avx512.c's aligned_sum() reads a buffer (see there)
 * (any alignment: an aligned buffer has k = 0 and an unmasked head).  The
 * same sum with less around it, for what a packet verifier waits on: the
 * head and the masked tail vector first (their masks computed while the
 * middle is read), then the middle vectors four at a time into four
 * accumulators, or eight at a time into eight when the buffer spans more
 * than PKT_ACC8 vectors (shorter chains of 4-cycle dot products for
 * full-size packets; the four-way loop has less to set up and reduce for
 * shorter ones).  gcc rematerialises step()'s two constants before each use
 * and copies accumulators around vpdpwssd's tied operand (block4's loop:
 * four register copies per four vectors); here the constants are made once
 * from a zeroed register (vpternlogd, shifts: no general-purpose register,
 * which keeps the callers free of callee-saved registers and of the stack
 * frame gcc then adds to realign for 512-bit values) and the dot product is
 * one instruction: two per 64 bytes. */
static inline __attribute__((always_inline)) SOFL_PKT_TARGET __m512i
sofl_pstep_(__m512i acc, __m512i x, __m512i flip, __m512i one)
{
	x = _mm512_xor_si512(x, flip);
	__asm__("vpdpwssd %2, %1, %0" : "+v"(acc) : "v"(x), "v"(one));
	return acc;
}

/* vectors (of the 64-byte aligned region) from which the eight-way loop runs */
#define SOFL_PKT_ACC8 20

#define SOFL_PVEC_(acc, at) (acc = sofl_pstep_(acc, _mm512_load_si512((const void *)(at)), flip, one))
static inline __attribute__((always_inline)) SOFL_PKT_TARGET uint64_t
sofl_pkt_sum(const unsigned char *p, size_t len)
{
	const size_t k = (uintptr_t)p & 63, take = k + len;
	const unsigned char *a = (const unsigned char *)((uintptr_t)p & ~(uintptr_t)63), *q = a + 64;
	const unsigned char *last = a + ((take - 1) & ~(size_t)63);	/* the tail vector */
	const __m512i z = _mm512_setzero_si512();
	__m512i m1, flip, one, a0, a1 = z, a2 = z, a3;

	__asm__("vpternlogd $0xff, %1, %1, %0" : "=v"(m1) : "v"(z));	/* all ones */
	flip = _mm512_slli_epi16(m1, 15);
	one = _mm512_srli_epi16(m1, 15);
	/* the head vector, with 65536 per vector as in aligned_sum(), and the
	 * tail vector: 1 to 64 bytes */
	a0 = sofl_pstep_(_mm512_set1_epi32((int)(((take + 63) / 64) << 16)),
			 _mm512_maskz_loadu_epi8(~0ULL << k, a), flip, one);
	a3 = sofl_pstep_(z, _mm512_maskz_loadu_epi8(_bzhi_u64(~0ULL, (unsigned)(take - (size_t)(last - a))),
						    last), flip, one);
	if (take > SOFL_PKT_ACC8 * 64) {
		__m512i a4 = z, a5 = z, a6 = z, a7 = z;

		for (; last - q >= 512; q += 512) {
			SOFL_PVEC_(a0, q); SOFL_PVEC_(a1, q + 64); SOFL_PVEC_(a2, q + 128);
			SOFL_PVEC_(a3, q + 192); SOFL_PVEC_(a4, q + 256); SOFL_PVEC_(a5, q + 320);
			SOFL_PVEC_(a6, q + 384); SOFL_PVEC_(a7, q + 448);
		}
		if (last - q >= 256) {
			SOFL_PVEC_(a1, q); SOFL_PVEC_(a2, q + 64); SOFL_PVEC_(a3, q + 128);
			SOFL_PVEC_(a4, q + 192);
			q += 256;
		}
		if (last - q >= 128) {
			SOFL_PVEC_(a5, q); SOFL_PVEC_(a6, q + 64);
			q += 128;
		}
		if (last > q)
			SOFL_PVEC_(a7, q);
		a0 = _mm512_add_epi32(_mm512_add_epi32(a0, a4), _mm512_add_epi32(a5, a6));
		a1 = _mm512_add_epi32(a1, a7);
	} else {
		for (; last - q >= 256; q += 256) {
			SOFL_PVEC_(a0, q); SOFL_PVEC_(a1, q + 64); SOFL_PVEC_(a2, q + 128);
			SOFL_PVEC_(a3, q + 192);
		}
		if (last - q >= 128) {
			SOFL_PVEC_(a0, q); SOFL_PVEC_(a1, q + 64);
			q += 128;
		}
		if (last > q)
			SOFL_PVEC_(a2, q);
	}
	/* (the rotation from p itself, not kept from k: one register less) */
	return sofl_lanes_sum_rot(_mm512_add_epi32(_mm512_add_epi32(a0, a1), _mm512_add_epi32(a2, a3)),
				  (unsigned)((uintptr_t)p & 1) * 8);
}
#undef SOFL_PVEC_

#endif /* __x86_64__ */
#endif
