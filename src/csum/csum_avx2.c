/* AVX2 checksum kernels.
 *
 * The AVX-512 kernel's scheme without VNNI: each 16-bit word w is flipped to
 * the signed value w - 32768 (xor 0x8000), vpmaddwd by 1 adds pairs into
 * 32-bit lanes and vpaddd accumulates them: three instructions per 32 bytes,
 * spread over the ALU and multiply ports.  The true sum is the signed total
 * + 32768 * words.  Blocks of at most BLOCK vectors keep every 32-bit lane and
 * the reduced total far from overflow (2^19 * 2048 = 2^30).
 *
 * AVX2 has no byte-masked load, so the last partial vector is read as the 32
 * bytes that end at the buffer's (even) end, with the bytes already summed
 * masked off; an odd last byte is added on its own.  Nothing outside
 * buf[0..len) is read.  Buffers under SHORT bytes use the portable kernel. */
#if defined(__x86_64__)
#include <immintrin.h>
#include "csum_kern.h"

#define BLOCK 2048		/* vectors of 32 bytes */
#define SHORT 64		/* below this the scalar kernel is faster (and >= 32) */

/* window + n: 32 - n zero bytes, then n 0xff bytes */
static const unsigned char window[64] = {
	[32] = 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xff, 0xff, 0xff, 0xff,
};

static inline __m256i
step(__m256i acc, __m256i x)
{
	const __m256i flip = _mm256_set1_epi16((short)0x8000);
	const __m256i one = _mm256_set1_epi16(1);

	return _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_xor_si256(x, flip), one));
}

/* signed sum of the 8 int32 lanes (|total| < 2^31 by BLOCK) */
static inline int64_t
hsum32(__m256i v)
{
	__m128i x = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));

	x = _mm_add_epi32(x, _mm_unpackhi_epi64(x, x));
	x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x55));
	return (int32_t)_mm_cvtsi128_si32(x);
}

/* One vector at offset o + off: sum it, and store it to d when copying
 * (offsets, not moving pointers: d is NULL unless copying). */
#define VEC(acc, off) do {						\
		__m256i x_ = _mm256_loadu_si256((const __m256i *)(p + o + (off))); \
		if (copy)						\
			_mm256_storeu_si256((__m256i *)(d + o + (off)), x_); \
		acc = step(acc, x_);					\
	} while (0)

/* The exact word sum of p[0..take), take a multiple of 32, <= BLOCK * 32. */
static inline __attribute__((always_inline)) uint64_t
block(const unsigned char *p, unsigned char *d, size_t take, int copy)
{
	__m256i a0, a1, a2, a3;
	size_t o = 0;

	a0 = a1 = a2 = a3 = _mm256_setzero_si256();
	for (; take - o >= 128; o += 128) {
		VEC(a0, 0); VEC(a1, 32); VEC(a2, 64); VEC(a3, 96);
	}
	if (take - o >= 64) {
		VEC(a0, 0); VEC(a1, 32);
		o += 64;
	}
	if (take > o)
		VEC(a2, 0);
	a0 = _mm256_add_epi32(_mm256_add_epi32(a0, a1), _mm256_add_epi32(a2, a3));
	return (uint64_t)(hsum32(a0) + (int64_t)((take / 32) << 19));
}
#undef VEC

/* Both kernels: the sum of p[0..len), len >= 32, copied to d when copying. */
static inline __attribute__((always_inline)) uint64_t
sum_long(const unsigned char *p, unsigned char *d, size_t len, int copy)
{
	uint64_t total = 0;
	size_t o, take, full, rest;

	if (len & 1) {
		/* the odd byte, at an even offset: the first byte of its word */
		len--;
		if (copy)
			d[len] = p[len];
		total = sofl_tail_word(p + len, 1);
	}
	rest = len % 32;
	full = len - rest;
	for (o = 0; o < full; o += take) {
		take = full - o < BLOCK * 32 ? full - o : BLOCK * 32;
		total += block(p + o, copy ? d + o : d, take, copy);
	}
	if (rest) {
		/* the 32 bytes ending at the end: an even offset, len >= 32 */
		__m256i x = _mm256_loadu_si256((const __m256i *)(p + len - 32));
		__m256i m = _mm256_loadu_si256((const __m256i *)(window + rest));

		if (copy)	/* rewrites copied bytes with the same values */
			_mm256_storeu_si256((__m256i *)(d + len - 32), x);
		x = _mm256_and_si256(x, m);
		total += (uint64_t)(hsum32(step(_mm256_setzero_si256(), x)) + (1 << 19));
	}
	return total;
}

__attribute__((aligned(64))) uint32_t
sofl_csum_avx2(uint32_t sum, const void *buf, size_t len)
{
	if (len < SHORT)
		return sofl_csum_finish(sum, sofl_fold64(sofl_csum_words64(buf, len)));
	return sofl_csum_finish(sum, sofl_fold64(sum_long(buf, NULL, len, 0)));
}

uint32_t
sofl_csum_copy_avx2(void *dst, const void *src, size_t len, uint32_t sum)
{
	if (len < SHORT) {
		if (len)	/* memcpy's pointers must be valid even for 0 */
			memcpy(dst, src, len);
		return sofl_csum_finish(sum, sofl_fold64(sofl_csum_words64(src, len)));
	}
	return sofl_csum_finish(sum, sofl_fold64(sum_long(src, dst, len, 1)));
}
#else
typedef int sofl_csum_avx2_unused;
#endif
