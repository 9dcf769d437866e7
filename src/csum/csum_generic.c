/* Portable checksum kernels: 64-bit memory-order words, add with end-around
 * carry in four independent chains (sofl_csum_words64() in csum_kern.h). */
#include <string.h>
#include "csum_kern.h"

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
