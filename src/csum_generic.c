/* Portable checksum kernels: 64-bit memory-order words, add with end-around
 * carry in four independent chains (the carry chain of one add-with-carry
 * sequence would limit it to one word per cycle). */
#include <string.h>
#include "csum_impl.h"

static inline uint64_t
load64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

uint64_t
sofl_csum_words64(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;

	for (; len >= 32; len -= 32, p += 32) {
		s0 = sofl_adc64(s0, load64(p));
		s1 = sofl_adc64(s1, load64(p + 8));
		s2 = sofl_adc64(s2, load64(p + 16));
		s3 = sofl_adc64(s3, load64(p + 24));
	}
	if (len & 16) {
		s0 = sofl_adc64(s0, load64(p));
		s1 = sofl_adc64(s1, load64(p + 8));
		p += 16;
	}
	if (len & 8) {
		s2 = sofl_adc64(s2, load64(p));
		p += 8;
	}
	s3 = sofl_adc64(s3, sofl_tail_word(p, len & 7));
	return sofl_adc64(sofl_adc64(s0, s1), sofl_adc64(s2, s3));
}

uint32_t
sofl_csum_generic(uint32_t sum, const void *buf, size_t len)
{
	return sofl_csum_finish(sum, sofl_fold64(sofl_csum_words64(buf, len)));
}

uint32_t
sofl_csum_copy_generic(void *dst, const void *src, size_t len, uint32_t sum)
{
	/* memcpy is faster than anything we would write, and the copy leaves
	 * the source hot for the sum.  Chunked so both stay in L1; every chunk
	 * but the last has an even length, so the word grid holds. */
	const unsigned char *s = src;
	unsigned char *d = dst;
	uint64_t acc = 0;
	size_t off = 0;

	while (off < len) {
		size_t n = len - off < 2048 ? len - off : 2048;

		memcpy(d + off, s + off, n);
		acc = sofl_adc64(acc, sofl_csum_words64(s + off, n));
		off += n;
	}
	return sofl_csum_finish(sum, sofl_fold64(acc));
}
