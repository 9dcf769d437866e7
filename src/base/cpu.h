/* Internal: the CPU's vector features, detected once per process and cached.
 *
 * Every engine asks here and nowhere else: the checksum dispatch (csum.c),
 * the RSS implementations (rss.c), the GRO fast paths and the flow-key hash
 * (gro.c, siphash.c).  The per-ISA files (*_avx2.c, *_avx512.c, *_gfni.c)
 * are compiled with their ISA enabled and only called after this check.
 *
 * Thread-safety: sofl_cpu_features() may be called from any thread; the
 * first call runs CPUID (and XGETBV, so a feature the OS does not save is
 * absent) and every later call reads the cached word. */
#ifndef SOFL_BASE_CPU_H
#define SOFL_BASE_CPU_H

#define SOFL_CPU_AVX2     (1u << 0)  /* AVX2, OS-enabled (YMM state) */
#define SOFL_CPU_AVX512BW (1u << 1)  /* AVX-512 F+BW+VL, OS-enabled */
#define SOFL_CPU_GFNI     (1u << 2)  /* GFNI with AVX-512 */
#define SOFL_CPU_BMI2     (1u << 3)
#define SOFL_CPU_VNNI     (1u << 4)  /* AVX512_VNNI (with AVX512BW) */
#define SOFL_CPU_VBMI     (1u << 5)  /* AVX512_VBMI (with AVX512BW) */

/* sofl_cpu_features() : the SOFL_CPU_* bits of this CPU; 0 off x86-64. */
unsigned sofl_cpu_features(void);

/* sofl_cpu_has() : 1 when the CPU has every feature in @want. */
static inline int
sofl_cpu_has(unsigned want)
{
	return (sofl_cpu_features() & want) == want;
}

#endif
