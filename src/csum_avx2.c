/* AVX2 checksum kernels: 32-bit words widened into 64-bit lane accumulators. */
#if defined(__x86_64__)
#include <immintrin.h>
#include <string.h>
#include "csum_impl.h"

static inline uint64_t
hsum(__m256i v)
{
	__m128i x = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
	return (uint64_t)_mm_cvtsi128_si64(x) + (uint64_t)_mm_extract_epi64(x, 1);
}

uint32_t
sofl_csum_avx2(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	const __m256i lo32 = _mm256_set1_epi64x(0xffffffff);
	__m256i a0 = _mm256_setzero_si256(), a1 = a0, b0 = a0, b1 = a0;
	uint64_t s;

	while (len >= 64) {
		__m256i x = _mm256_loadu_si256((const __m256i *)p);
		__m256i y = _mm256_loadu_si256((const __m256i *)(p + 32));
		a0 = _mm256_add_epi64(a0, _mm256_and_si256(x, lo32));
		b0 = _mm256_add_epi64(b0, _mm256_srli_epi64(x, 32));
		a1 = _mm256_add_epi64(a1, _mm256_and_si256(y, lo32));
		b1 = _mm256_add_epi64(b1, _mm256_srli_epi64(y, 32));
		p += 64;
		len -= 64;
	}
	s = hsum(_mm256_add_epi64(_mm256_add_epi64(a0, a1), _mm256_add_epi64(b0, b1)));
	/* lanes hold < 2^32 * (len/64) each: no overflow below 2^38 bytes */
	return (uint32_t)sofl_fold64((uint64_t)sofl_fold64(s) + sofl_csum_generic(p, len));
}

uint32_t
sofl_csum_copy_avx2(void *dst, const void *src, size_t len)
{
	const unsigned char *p = src;
	unsigned char *d = dst;
	const __m256i lo32 = _mm256_set1_epi64x(0xffffffff);
	__m256i a0 = _mm256_setzero_si256(), b0 = a0;
	uint64_t s;

	while (len >= 32) {
		__m256i x = _mm256_loadu_si256((const __m256i *)p);
		_mm256_storeu_si256((__m256i *)d, x);
		a0 = _mm256_add_epi64(a0, _mm256_and_si256(x, lo32));
		b0 = _mm256_add_epi64(b0, _mm256_srli_epi64(x, 32));
		p += 32;
		d += 32;
		len -= 32;
	}
	s = hsum(_mm256_add_epi64(a0, b0));
	return (uint32_t)sofl_fold64((uint64_t)sofl_fold64(s) + sofl_csum_copy_generic(d, p, len));
}
#else
typedef int sofl_csum_avx2_unused;
#endif
