/* Portable checksum kernels: 64-bit loads, add-with-carry, four chains. */
#include <string.h>
#include "csum_impl.h"

static inline uint64_t
load64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static inline uint64_t
adc(uint64_t a, uint64_t b)
{
	uint64_t r = a + b;
	return r + (r < a);
}

/* Sum of the 0..7 trailing bytes, in memory order, as a zero-padded word. */
static inline uint64_t
tail(const unsigned char *p, size_t n)
{
	uint64_t v = 0;
	memcpy(&v, p, n);
	return v;
}

uint32_t
sofl_csum_generic(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;

	while (len >= 32) {
		s0 = adc(s0, load64(p));
		s1 = adc(s1, load64(p + 8));
		s2 = adc(s2, load64(p + 16));
		s3 = adc(s3, load64(p + 24));
		p += 32;
		len -= 32;
	}
	while (len >= 8) {
		s0 = adc(s0, load64(p));
		p += 8;
		len -= 8;
	}
	if (len)
		s1 = adc(s1, tail(p, len));
	s0 = adc(adc(s0, s1), adc(s2, s3));
	return sofl_fold64(s0);
}

uint32_t
sofl_csum_copy_generic(void *dst, const void *src, size_t len)
{
	/* memcpy is faster than anything we would write, and the copy leaves
	 * the source hot for the sum. Chunked so both stay in L1. */
	const unsigned char *s = src;
	unsigned char *d = dst;
	uint64_t acc = 0;
	size_t off = 0;

	while (off < len) {
		size_t n = len - off < 2048 ? len - off : 2048;
		memcpy(d + off, s + off, n);
		/* n is even except for the last chunk, so the word order holds */
		acc += sofl_csum_generic(s + off, n);
		off += n;
	}
	return sofl_fold64(acc);
}
