/*
 * softoffload — the arithmetic of the inline short-buffer checksum path.
 *
 * Included by csum.h; not an API of its own: call sofl_csum_add() and
 * sofl_csum_ok() (csum.h), which in C sum buffers of up to
 * SOFL_CSUM_INLINE_MAX bytes with this code inline, in the caller, and
 * longer ones through the library's dispatched kernels.  Inline code must
 * be visible to the compiler of the calling program, so it lives in a
 * public header; it is this one, kept out of csum.h, so that csum.h reads
 * as the manual.  The same arithmetic is the library's: its per-ISA
 * kernels finish every sum with these steps, so inline and library sums
 * agree bit for bit.
 *
 * Names ending in '_' are internal and may change in any release;
 * sofl_csum_add_small() and sofl_csum_ok_small() are sofl_csum_add() and
 * sofl_csum_ok() inline for any length (meant for short buffers).
 * Everything here is reentrant, reads only buf[0..len) and keeps nothing.
 */
#ifndef SOFTOFFLOAD_CSUM_INLINE_H
#define SOFTOFFLOAD_CSUM_INLINE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The short-buffer path is always inlined where the compiler allows it:
 * gcc weighs each asm statement as several instructions and would otherwise
 * emit it out of line (a call per sum, which is what it is there to avoid). */
#if defined(__GNUC__)
#define SOFL_CSUM_INLINE_ static inline __attribute__((always_inline))
#else
#define SOFL_CSUM_INLINE_ static inline
#endif

/* sofl_csum_add_small() :
 * sofl_csum_add() inline, for any length (meant for short ones): 64-bit
 * words added with end-around carry (one add-with-carry chain on x86-64 with
 * GNU C, portable C elsewhere), folded to 16 bits and byte-swapped into the
 * API's word order, exactly as the kernels finish.  Reads only buf[0..len) (fixed-size loads; buf may be NULL when
 * len is 0).  Reentrant, no side effects. */
static inline uint64_t
sofl_csum_adc64_(uint64_t a, uint64_t b)
{
	uint64_t r = a + b;

	return r + (r < a);
}

static inline uint64_t
sofl_csum_load64_(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* The n (0..7) bytes at p as one zero-padded 64-bit word in memory order.
 * Fixed-size loads only: a variable-length memcpy would be a library call. */
static inline uint64_t
sofl_csum_tail64_(const unsigned char *p, size_t n)
{
	uint64_t v = 0;
	uint32_t w4;
	uint16_t w2;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	unsigned sh = 64;

	if (n & 4) {
		memcpy(&w4, p, 4);
		v = (uint64_t)w4 << 32;
		p += 4;
		sh = 32;
	}
	if (n & 2) {
		memcpy(&w2, p, 2);
		sh -= 16;
		v |= (uint64_t)w2 << sh;
		p += 2;
	}
	if (n & 1)
		v |= (uint64_t)*p << (sh - 8);
#else
	unsigned sh = 0;

	if (n & 4) {
		memcpy(&w4, p, 4);
		v = w4;
		p += 4;
		sh = 32;
	}
	if (n & 2) {
		memcpy(&w2, p, 2);
		v |= (uint64_t)w2 << sh;
		p += 2;
		sh += 16;
	}
	if (n & 1)
		v |= (uint64_t)*p << sh;
#endif
	return v;
}

/* A 64-bit end-around-carry accumulator folded to 16 bits (0 only for 0):
 * x + ror(x, 32) holds hi + lo + the carry out of lo + hi in its upper
 * half, and again at 16 bits. */
static inline uint32_t
sofl_csum_fold64_(uint64_t s)
{
	uint32_t u;

	s += s >> 32 | s << 32;
	u = (uint32_t)(s >> 32);
	u += u >> 16 | u << 16;
	return u >> 16;
}

/* A folded memory-order sum added to a sum of big-endian words (@sum):
 * byte-swapped on a little-endian host, end-around carry. */
static inline uint32_t
sofl_csum_finish_(uint32_t sum, uint32_t folded)
{
	uint32_t r;

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_BIG_ENDIAN__
	folded = ((folded & 0xff) << 8) | (folded >> 8);
#endif
	r = sum + folded;
	return r + (r < folded);
}

/* x86-64 (LP64), GNU C: whole 64-bit words added with one add-with-carry
 * chain (add; adc; ...; adc $0), the way Linux csum_partial() does on x86:
 * one memory-operand adc per 8 bytes, where portable C needs a compare for
 * every carry.  The "m" operands tell the compiler which bytes are read. */
#if defined(__x86_64__) && !defined(__ILP32__) && defined(__GNUC__)
#define SOFL_CSUM_ADC_(o) "adcq " #o "(%[p]), %[s]\n\t"
#define SOFL_CSUM_ADCN_(s, p, n, body)						\
	__asm__("addq 0(%[p]), %[s]\n\t" body "adcq $0, %[s]"			\
		: [s] "+r"(s)							\
		: [p] "r"(p), "m"(*(const unsigned char (*)[n])(const void *)(p))	\
		: "cc")

SOFL_CSUM_INLINE_ uint64_t
sofl_csum_words_(uint64_t s, const unsigned char **pp, size_t len)
{
	const unsigned char *p = *pp;

	for (; len >= 64; len -= 64, p += 64)
		SOFL_CSUM_ADCN_(s, p, 64, SOFL_CSUM_ADC_(8) SOFL_CSUM_ADC_(16) SOFL_CSUM_ADC_(24)
				SOFL_CSUM_ADC_(32) SOFL_CSUM_ADC_(40) SOFL_CSUM_ADC_(48)
				SOFL_CSUM_ADC_(56));
	if (len & 32) {
		SOFL_CSUM_ADCN_(s, p, 32, SOFL_CSUM_ADC_(8) SOFL_CSUM_ADC_(16) SOFL_CSUM_ADC_(24));
		p += 32;
	}
	if (len & 16) {
		SOFL_CSUM_ADCN_(s, p, 16, SOFL_CSUM_ADC_(8));
		p += 16;
	}
	if (len & 8) {
		s = sofl_csum_adc64_(s, sofl_csum_load64_(p));
		p += 8;
	}
	*pp = p;
	return s;
}
#undef SOFL_CSUM_ADC_
#undef SOFL_CSUM_ADCN_
#else
SOFL_CSUM_INLINE_ uint64_t
sofl_csum_words_(uint64_t s, const unsigned char **pp, size_t len)
{
	const unsigned char *p = *pp;
	uint64_t t = 0;

	/* two chains: each carry compare waits only for its own adds */
	for (; len >= 16; len -= 16, p += 16) {
		s = sofl_csum_adc64_(s, sofl_csum_load64_(p));
		t = sofl_csum_adc64_(t, sofl_csum_load64_(p + 8));
	}
	if (len & 8) {
		s = sofl_csum_adc64_(s, sofl_csum_load64_(p));
		p += 8;
	}
	*pp = p;
	return sofl_csum_adc64_(s, t);
}
#endif

SOFL_CSUM_INLINE_ uint32_t
sofl_csum_add_small(uint32_t sum, const void *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)buf;
	uint64_t s = sofl_csum_words_(0, &p, len);

	/* the last 0..7 bytes as one zero-padded word in memory order */
	if (len & 7)
		s = sofl_csum_adc64_(s, sofl_csum_tail64_(p, len & 7));
	return sofl_csum_finish_(sum, sofl_csum_fold64_(s));
}

/* sofl_csum_ok_small() :
 * sofl_csum_ok() inline for any length (meant for short ones).  The
 * memory-order words' 64-bit sum s and the API's sum T of the same bytes
 * plus @sum are congruent modulo 0xffff up to the byte swap (times 256 on a
 * little-endian host, RFC 1071 §2(B)), and 0 only together, so s plus @sum
 * (times 256 there) folds to 0xffff exactly when T does. */
SOFL_CSUM_INLINE_ int
sofl_csum_ok_small(uint32_t sum, const void *buf, size_t len)
{
	const unsigned char *p = (const unsigned char *)buf;
	uint64_t s = sofl_csum_words_(0, &p, len);

	if (len & 7)
		s = sofl_csum_adc64_(s, sofl_csum_tail64_(p, len & 7));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	s = sofl_csum_adc64_(s, sum);
#else
	s = sofl_csum_adc64_(s, (uint64_t)sum << 8);
#endif
	return sofl_csum_fold64_(s) == 0xffff;
}

#ifdef __cplusplus
}
#endif
#endif
