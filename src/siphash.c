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
#endif

void
sofl_siphash13_x(const uint64_t key[2], const uint64_t *const *w, unsigned nw,
		 const uint64_t *last, uint32_t *out, size_t n, int avx512)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	if (avx512) {
		sip13_avx512(key, w, nw, last, out, n);
		return;
	}
#endif
	(void)avx512;
	sip13_scalar(key, w, nw, last, out, n);
}
