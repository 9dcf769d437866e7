/* Toeplitz hash with GF2P8AFFINEQB (GFNI + AVX-512 F/BW/VL/VBMI).
 *
 * Input byte p contributes to hash byte m (m = 0 most significant) through
 * the 8x8 bit matrix mat[p+m] (see build_tables() in rss.c).  Qword lane q
 * of the work vectors therefore holds the four input bytes that meet matrix
 * q: x[q-3], x[q-2], x[q-1], x[q] in bytes 0..3 (bytes 4..7 zero), so that
 * after the affine step byte 3-m of every lane is a contribution to hash
 * byte m and the lanes' low 32 bits XOR together into the hash itself.
 * Lanes q = 0 .. len+2 are needed: two vectors for IPv4, five for IPv6. */
#if defined(__x86_64__)
#include <immintrin.h>
#include "rss_impl.h"

#define X 0xff		/* no input byte: masked to zero */
#define LANE(q) ((q) - 3) & 0xff, ((q) - 2) & 0xff, ((q) - 1) & 0xff, (q), X, X, X, X
#define VEC(j) LANE(8 * (j)), LANE(8 * (j) + 1), LANE(8 * (j) + 2), LANE(8 * (j) + 3), \
	LANE(8 * (j) + 4), LANE(8 * (j) + 5), LANE(8 * (j) + 6), LANE(8 * (j) + 7)

/* Byte indices into the input; negative ones (lane 0..2) wrap to >= 0xfd and
 * so fail the "index < len" test like X. */
static const uint8_t perm[5][64] __attribute__((aligned(64))) = {
	{ VEC(0) }, { VEC(1) }, { VEC(2) }, { VEC(3) }, { VEC(4) },
};

__attribute__((target("avx512vbmi")))
uint32_t
sofl_rss_gfni(const uint64_t *mat, const uint8_t *in, size_t len)
{
	__m512i x = _mm512_maskz_loadu_epi8((__mmask64)((1ull << len) - 1), in);
	__m512i n = _mm512_set1_epi8((char)len);
	__m512i acc = _mm512_setzero_si512();
	__m256i h;
	__m128i g;
	size_t j, nv = (len + 3 + 7) / 8;	/* lanes 0 .. len+2, 8 per vector */

	for (j = 0; j < nv; j++) {
		__m512i idx = _mm512_load_si512((const void *)perm[j]);
		__mmask64 k = _mm512_cmplt_epu8_mask(idx, n);
		__m512i v = _mm512_maskz_permutexvar_epi8(k, idx, x);

		acc = _mm512_xor_si512(acc, _mm512_gf2p8affine_epi64_epi8(v,
		    _mm512_load_si512((const void *)(mat + 8 * j)), 0));
	}
	h = _mm256_xor_si256(_mm512_castsi512_si256(acc), _mm512_extracti64x4_epi64(acc, 1));
	g = _mm_xor_si128(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
	g = _mm_xor_si128(g, _mm_unpackhi_epi64(g, g));
	return (uint32_t)_mm_cvtsi128_si32(g);
}
#else
/* ISO C wants a translation unit to declare something. */
typedef int sofl_rss_gfni_unused;
#endif
