/* Internal: the per-ISA checksum kernels behind the dispatch in csum.c.
 *
 * A kernel sums buf[0..len) as 16-bit words in *memory (native) order*, the
 * last odd byte padded with zero as it would sit in memory, and returns the
 * ones'-complement sum folded to 16 bits (0..0xffff).  csum.c byte-swaps it
 * into the RFC's big-endian word arithmetic once per call.  Copy kernels also
 * memcpy src to dst. */
#ifndef SOFL_CSUM_IMPL_H
#define SOFL_CSUM_IMPL_H

#include <stddef.h>
#include <stdint.h>

typedef uint32_t (*sofl_csum_kernel_fn)(const void *buf, size_t len);
typedef uint32_t (*sofl_csum_copy_fn)(void *dst, const void *src, size_t len);

uint32_t sofl_csum_generic(const void *buf, size_t len);
uint32_t sofl_csum_copy_generic(void *dst, const void *src, size_t len);
#if defined(__x86_64__)
uint32_t sofl_csum_avx2(const void *buf, size_t len);
uint32_t sofl_csum_copy_avx2(void *dst, const void *src, size_t len);
uint32_t sofl_csum_avx512(const void *buf, size_t len);
uint32_t sofl_csum_copy_avx512(void *dst, const void *src, size_t len);
#endif

/* Fold a 64-bit ones'-complement accumulator to 16 bits (0 only for 0).
 * x + ror(x, k) holds hi + lo + the carry out of lo + hi in its upper half:
 * an end-around-carry add of the two halves in three instructions. */
static inline uint32_t
sofl_fold64(uint64_t s)
{
	uint32_t u;

	s += s >> 32 | s << 32;
	u = (uint32_t)(s >> 32);
	u += u >> 16 | u << 16;
	return u >> 16;
}

/* CPU feature bits (src/cpu.c). */
#define SOFL_CPU_AVX2     (1u << 0)
#define SOFL_CPU_AVX512BW (1u << 1)  /* AVX-512 F+BW+VL, OS-enabled */
#define SOFL_CPU_GFNI     (1u << 2)  /* GFNI with AVX-512 */
#define SOFL_CPU_BMI2     (1u << 3)
#define SOFL_CPU_VNNI     (1u << 4)  /* AVX512_VNNI (with AVX512BW) */
unsigned sofl_cpu_features(void);

#endif
