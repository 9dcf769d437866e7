/* Run-time CPU feature detection for the per-ISA code paths (cpu.h). */
#include <stdint.h>
#include "cpu.h"

#if defined(__x86_64__)
#include <cpuid.h>

static unsigned
detect(void)
{
	unsigned a, b, c, d, f = 0;
	uint64_t xcr0 = 0;

	if (!__get_cpuid(1, &a, &b, &c, &d))
		return 0;
	if (!(c & bit_OSXSAVE))
		return 0;
	{
		uint32_t lo, hi;
		__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
		xcr0 = (uint64_t)hi << 32 | lo;
	}
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return 0;
	if ((b & bit_BMI2))
		f |= SOFL_CPU_BMI2;
	if ((xcr0 & 0x6) == 0x6 && (b & bit_AVX2))
		f |= SOFL_CPU_AVX2;
	if ((xcr0 & 0xe6) == 0xe6 && (b & bit_AVX512F) && (b & bit_AVX512BW) &&
	    (b & bit_AVX512VL)) {
		f |= SOFL_CPU_AVX512BW;
		if (c & bit_GFNI)
			f |= SOFL_CPU_GFNI;
		if (c & (1u << 11))	/* AVX512_VNNI: CPUID.7.0:ECX[11] */
			f |= SOFL_CPU_VNNI;
		if (c & (1u << 1))	/* AVX512_VBMI: CPUID.7.0:ECX[1] */
			f |= SOFL_CPU_VBMI;
	}
	return f;
}

unsigned
sofl_cpu_features(void)
{
	static unsigned cached;		/* bit 31 marks "detected" */

	unsigned f = __atomic_load_n(&cached, __ATOMIC_RELAXED);
	if (!(f & 0x80000000u)) {
		f = detect() | 0x80000000u;
		__atomic_store_n(&cached, f, __ATOMIC_RELAXED);
	}
	return f & 0x7fffffffu;
}
#else
unsigned
sofl_cpu_features(void)
{
	return 0;
}
#endif
