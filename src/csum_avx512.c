/* AVX-512 checksum kernels: 32-bit words widened into 64-bit lane accumulators. */
#if defined(__x86_64__)
#include <immintrin.h>
#include <string.h>
#include "csum_impl.h"

uint32_t
sofl_csum_avx512(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	const __m512i lo32 = _mm512_set1_epi64(0xffffffff);
	__m512i a0 = _mm512_setzero_si512(), a1 = a0, b0 = a0, b1 = a0;
	uint64_t s;

	while (len >= 128) {
		__m512i x = _mm512_loadu_si512((const void *)p);
		__m512i y = _mm512_loadu_si512((const void *)(p + 64));
		a0 = _mm512_add_epi64(a0, _mm512_and_si512(x, lo32));
		b0 = _mm512_add_epi64(b0, _mm512_srli_epi64(x, 32));
		a1 = _mm512_add_epi64(a1, _mm512_and_si512(y, lo32));
		b1 = _mm512_add_epi64(b1, _mm512_srli_epi64(y, 32));
		p += 128;
		len -= 128;
	}
	if (len >= 64) {
		__m512i x = _mm512_loadu_si512((const void *)p);
		a0 = _mm512_add_epi64(a0, _mm512_and_si512(x, lo32));
		b0 = _mm512_add_epi64(b0, _mm512_srli_epi64(x, 32));
		p += 64;
		len -= 64;
	}
	if (len) {
		/* masked load: bytes past len read as zero, nothing read past buf */
		__mmask64 m = _bzhi_u64(~0ULL, (unsigned)len);
		__m512i x = _mm512_maskz_loadu_epi8(m, p);
		a1 = _mm512_add_epi64(a1, _mm512_and_si512(x, lo32));
		b1 = _mm512_add_epi64(b1, _mm512_srli_epi64(x, 32));
	}
	s = _mm512_reduce_add_epi64(_mm512_add_epi64(_mm512_add_epi64(a0, a1),
						     _mm512_add_epi64(b0, b1)));
	return sofl_fold64(s);
}

uint32_t
sofl_csum_copy_avx512(void *dst, const void *src, size_t len)
{
	const unsigned char *p = src;
	unsigned char *d = dst;
	const __m512i lo32 = _mm512_set1_epi64(0xffffffff);
	__m512i a0 = _mm512_setzero_si512(), b0 = a0;
	uint64_t s;

	while (len >= 64) {
		__m512i x = _mm512_loadu_si512((const void *)p);
		_mm512_storeu_si512((void *)d, x);
		a0 = _mm512_add_epi64(a0, _mm512_and_si512(x, lo32));
		b0 = _mm512_add_epi64(b0, _mm512_srli_epi64(x, 32));
		p += 64;
		d += 64;
		len -= 64;
	}
	if (len) {
		__mmask64 m = _bzhi_u64(~0ULL, (unsigned)len);
		__m512i x = _mm512_maskz_loadu_epi8(m, p);
		_mm512_mask_storeu_epi8(d, m, x);
		a0 = _mm512_add_epi64(a0, _mm512_and_si512(x, lo32));
		b0 = _mm512_add_epi64(b0, _mm512_srli_epi64(x, 32));
	}
	s = _mm512_reduce_add_epi64(_mm512_add_epi64(a0, b0));
	return sofl_fold64(s);
}
#else
typedef int sofl_csum_avx512_unused;
#endif
