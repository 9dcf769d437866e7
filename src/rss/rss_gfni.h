/* Internal: the GFNI kernel behind rss.c's dispatch (rss_gfni.c). */
#ifndef SOFL_RSS_GFNI_H
#define SOFL_RSS_GFNI_H

#include <stddef.h>
#include <stdint.h>

/* Tuple layouts of a flow key: IPv4/IPv6, without/with ports. */
#define SOFL_RSS_L_V4  0
#define SOFL_RSS_L_V4P 1
#define SOFL_RSS_L_V6  2
#define SOFL_RSS_L_V6P 3

struct sofl_flow_key;

#if defined(__x86_64__)
/* Toeplitz hash of in[0..len) (len <= 36) from the 40 matrices built by
 * rss.c: mat[q] row t = key bits 8q+t .. 8q+t+7.  Needs GFNI, AVX-512
 * F/BW/VL, VBMI and BMI2; the caller checks. */
uint32_t sofl_rss_gfni(const uint64_t *mat, const uint8_t *in, size_t len);
/* *hash = sofl_rss_gfni(mat, in, len); returns 0. */
int sofl_rss_gfni_to(const uint64_t *mat, const uint8_t *in, size_t len, uint32_t *hash);
/* hash[i] = sofl_rss_gfni(mat, in[i], len) for i < n; 1 <= len <= 36. */
void sofl_rss_gfni_bulk(const uint64_t *mat, const void *const *in, size_t len, size_t n,
			uint32_t *hash);
/* The hash of flow key @k's tuple of @layout (SOFL_RSS_L_*), with src/dst
 * and/or sport/dport exchanged first (symmetric mode). */
uint32_t sofl_rss_gfni_key(const uint64_t *mat, const struct sofl_flow_key *k, int layout,
			   int swap_addr, int swap_port);
/* Two keys at once: @return A's hash | B's hash << 32. */
uint64_t sofl_rss_gfni_key2(const uint64_t *mat, const struct sofl_flow_key *ka, int la,
			    int sa_a, int sw_a, const struct sofl_flow_key *kb, int lb, int sa_b,
			    int sw_b);
#endif

#endif
