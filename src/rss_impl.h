/* Internal: the GFNI kernel behind rss.c's dispatch (src/rss_gfni.c). */
#ifndef SOFL_RSS_IMPL_H
#define SOFL_RSS_IMPL_H

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__)
/* Toeplitz hash of in[0..len) (len <= 36) from the 40 matrices built by
 * rss.c: mat[q] row t = key bits 8q+t .. 8q+t+7.  Needs GFNI, AVX-512
 * F/BW/VL and VBMI; the caller checks. */
uint32_t sofl_rss_gfni(const uint64_t *mat, const uint8_t *in, size_t len);
#endif

#endif
