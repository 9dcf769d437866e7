/* Random SipHash keys (siphash.h) */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/random.h>
#include "softoffload/error.h"
#include "siphash.h"

/* Fills @buf with @len bytes from @fd (-1: getrandom()); @return the count */
static size_t
fill(int fd, uint8_t *buf, size_t len)
{
	size_t got = 0;
	ssize_t r;

	while (got < len) {
		r = fd < 0 ? getrandom(buf + got, len - got, 0) : read(fd, buf + got, len - got);
		if (r > 0)
			got += (size_t)r;
		else if (r == 0 || errno != EINTR)
			break;
	}
	return got;
}

int
sofl_sip_key(uint64_t key[2], const uint8_t given[16])
{
	static const uint8_t zero[16];
	int fd;
	size_t got;

	if (given && memcmp(given, zero, 16) != 0) {
		memcpy(key, given, 16);
		return 0;
	}
	if (fill(-1, (uint8_t *)key, 16) == 16)
		return 0;
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return SOFL_E_NOTSUP;
	got = fill(fd, (uint8_t *)key, 16);
	close(fd);
	return got == 16 ? 0 : SOFL_E_NOTSUP;
}

static void
sip13_scalar(const uint64_t key[2], const uint64_t *const *w, unsigned nw, const uint64_t *last,
	     uint32_t *out, size_t n)
{
	uint64_t m[8], h;
	size_t i;
	unsigned j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < nw; j++)
			m[j] = w[j][i];
		h = sofl_siphash13(key, m, nw, last[i]);
		out[i] = (uint32_t)(h ^ h >> 32);
	}
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define XROUND(v0, v1, v2, v3) do {						\
	v0 = _mm512_add_epi64(v0, v1); v1 = _mm512_rol_epi64(v1, 13);		\
	v1 = _mm512_xor_si512(v1, v0); v0 = _mm512_rol_epi64(v0, 32);		\
	v2 = _mm512_add_epi64(v2, v3); v3 = _mm512_rol_epi64(v3, 16);		\
	v3 = _mm512_xor_si512(v3, v2);						\
	v0 = _mm512_add_epi64(v0, v3); v3 = _mm512_rol_epi64(v3, 21);		\
	v3 = _mm512_xor_si512(v3, v0);						\
	v2 = _mm512_add_epi64(v2, v1); v1 = _mm512_rol_epi64(v1, 17);		\
	v1 = _mm512_xor_si512(v1, v2); v2 = _mm512_rol_epi64(v2, 32);		\
} while (0)

/* eight lanes per pass, the last pass masked */
static __attribute__((target("avx512f"))) void
sip13_avx512(const uint64_t key[2], const uint64_t *const *w, unsigned nw, const uint64_t *last,
	     uint32_t *out, size_t n)
{
	const __m512i k0 = _mm512_set1_epi64((long long)key[0]), k1 = _mm512_set1_epi64((long long)key[1]);
	size_t i;
	unsigned j;

	for (i = 0; i < n; i += 8) {
		const __mmask8 k = n - i >= 8 ? 0xff : (__mmask8)((1u << (n - i)) - 1);
		__m512i v0 = _mm512_xor_si512(_mm512_set1_epi64((long long)SOFL_SIP_V0), k0);
		__m512i v1 = _mm512_xor_si512(_mm512_set1_epi64((long long)SOFL_SIP_V1), k1);
		__m512i v2 = _mm512_xor_si512(_mm512_set1_epi64((long long)SOFL_SIP_V2), k0);
		__m512i v3 = _mm512_xor_si512(_mm512_set1_epi64((long long)SOFL_SIP_V3), k1);
		__m512i b;

		for (j = 0; j <= nw; j++) {
			b = _mm512_maskz_loadu_epi64(k, j < nw ? w[j] + i : last + i);
			v3 = _mm512_xor_si512(v3, b);
			XROUND(v0, v1, v2, v3);
			v0 = _mm512_xor_si512(v0, b);
		}
		v2 = _mm512_xor_si512(v2, _mm512_set1_epi64(0xff));
		XROUND(v0, v1, v2, v3);
		XROUND(v0, v1, v2, v3);
		XROUND(v0, v1, v2, v3);
		v0 = _mm512_xor_si512(_mm512_xor_si512(v0, v1), _mm512_xor_si512(v2, v3));
		v0 = _mm512_xor_si512(v0, _mm512_srli_epi64(v0, 32));
		_mm512_mask_cvtepi64_storeu_epi32(out + i, k, v0);
	}
}

/* AVX2 has no 64-bit rotate: by 32 a dword shuffle, by 16 a byte shuffle,
 * the others two shifts and an OR */
#define ROL2(x, b) _mm256_or_si256(_mm256_slli_epi64(x, b), _mm256_srli_epi64(x, 64 - (b)))
#define ROL2_32(x) _mm256_shuffle_epi32(x, _MM_SHUFFLE(2, 3, 0, 1))
#define ROL2_16(x) _mm256_shuffle_epi8(x, rol16)

#define YROUND(v0, v1, v2, v3) do {						\
	v0 = _mm256_add_epi64(v0, v1); v1 = ROL2(v1, 13);			\
	v1 = _mm256_xor_si256(v1, v0); v0 = ROL2_32(v0);			\
	v2 = _mm256_add_epi64(v2, v3); v3 = ROL2_16(v3);			\
	v3 = _mm256_xor_si256(v3, v2);						\
	v0 = _mm256_add_epi64(v0, v3); v3 = ROL2(v3, 21);			\
	v3 = _mm256_xor_si256(v3, v0);						\
	v2 = _mm256_add_epi64(v2, v1); v1 = ROL2(v1, 17);			\
	v1 = _mm256_xor_si256(v1, v2); v2 = ROL2_32(v2);			\
} while (0)

/* four lanes per pass; a last pass of fewer lanes hashed from a copy */
static __attribute__((target("avx2"))) void
sip13_avx2(const uint64_t key[2], const uint64_t *const *w, unsigned nw, const uint64_t *last,
	   uint32_t *out, size_t n)
{
	const __m256i k0 = _mm256_set1_epi64x((long long)key[0]), k1 = _mm256_set1_epi64x((long long)key[1]);
	/* each 64-bit lane's bytes rotated left by 2 (16 bits) */
	const __m256i rol16 = _mm256_setr_epi8(6, 7, 0, 1, 2, 3, 4, 5, 14, 15, 8, 9, 10, 11, 12, 13,
					       6, 7, 0, 1, 2, 3, 4, 5, 14, 15, 8, 9, 10, 11, 12, 13);
	size_t i;
	unsigned j;

	for (i = 0; i < n; i += 4) {
		const size_t m = n - i < 4 ? n - i : 4;
		uint64_t tmp[9][4];
		uint32_t o[8];
		__m256i v0 = _mm256_xor_si256(_mm256_set1_epi64x((long long)SOFL_SIP_V0), k0);
		__m256i v1 = _mm256_xor_si256(_mm256_set1_epi64x((long long)SOFL_SIP_V1), k1);
		__m256i v2 = _mm256_xor_si256(_mm256_set1_epi64x((long long)SOFL_SIP_V2), k0);
		__m256i v3 = _mm256_xor_si256(_mm256_set1_epi64x((long long)SOFL_SIP_V3), k1);
		__m256i b;

		for (j = 0; j <= nw; j++) {
			const uint64_t *src = (j < nw ? w[j] : last) + i;

			if (m < 4) {	/* (no read past n) */
				memset(tmp[j], 0, sizeof(tmp[j]));
				memcpy(tmp[j], src, m * 8);
				src = tmp[j];
			}
			b = _mm256_loadu_si256((const __m256i *)(const void *)src);
			v3 = _mm256_xor_si256(v3, b);
			YROUND(v0, v1, v2, v3);
			v0 = _mm256_xor_si256(v0, b);
		}
		v2 = _mm256_xor_si256(v2, _mm256_set1_epi64x(0xff));
		YROUND(v0, v1, v2, v3);
		YROUND(v0, v1, v2, v3);
		YROUND(v0, v1, v2, v3);
		v0 = _mm256_xor_si256(_mm256_xor_si256(v0, v1), _mm256_xor_si256(v2, v3));
		v0 = _mm256_xor_si256(v0, _mm256_srli_epi64(v0, 32));
		/* the low dword of each lane: 0, 2, 4, 6 */
		_mm256_storeu_si256((__m256i *)(void *)o, v0);
		for (j = 0; j < m; j++)
			out[i + j] = o[2 * j];
	}
}
#endif

void
sofl_siphash13_x(const uint64_t key[2], const uint64_t *const *w, unsigned nw,
		 const uint64_t *last, uint32_t *out, size_t n, int isa)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	if (isa >= 2) {
		sip13_avx512(key, w, nw, last, out, n);
		return;
	}
	if (isa == 1) {
		sip13_avx2(key, w, nw, last, out, n);
		return;
	}
#endif
	(void)isa;
	sip13_scalar(key, w, nw, last, out, n);
}
