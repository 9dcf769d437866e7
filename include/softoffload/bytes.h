/*
 * softoffload — big-endian loads and stores at any alignment.
 *
 * Packet headers hold their fields in network (big-endian) byte order at
 * offsets that need not be aligned.  These four calls read and write such a
 * field as a host integer: sofl_get16(p) is the 16-bit field at p,
 * sofl_put32(p, v) stores v at p as four big-endian bytes.
 *
 * Implementation: one load or store and a byte swap where the compiler has
 * them (GNU C with a known byte order), byte by byte elsewhere; the same
 * results either way.  A compiler left to merge byte-by-byte stores does
 * not always do so, and a header field is written per segment on the GSO
 * hot path.
 *
 * Contract: @p must point at 2 (or 4) readable (writable) bytes; any
 * alignment.  No call fails, allocates or keeps anything; every call is
 * reentrant.  Every header that needs them (csum.h among them) includes
 * this one, so code that used them through csum.h still compiles.
 */
#ifndef SOFTOFFLOAD_BYTES_H
#define SOFTOFFLOAD_BYTES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The byte swap the helpers below use where the compiler has one (GNU C
 * with a known byte order); 0 where they go byte by byte. */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && \
	(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ || __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
#define SOFL_BSWAP_ 1
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SOFL_BE16_(v) __builtin_bswap16(v)
#define SOFL_BE32_(v) __builtin_bswap32(v)
#else
#define SOFL_BE16_(v) (v)
#define SOFL_BE32_(v) (v)
#endif
#else
#define SOFL_BSWAP_ 0
#endif

/* sofl_get16() : the big-endian 16-bit field at @p. */
static inline uint16_t sofl_get16(const void *p)
{
#if SOFL_BSWAP_
	uint16_t v;
	__builtin_memcpy(&v, p, 2);
	return SOFL_BE16_(v);
#else
	const uint8_t *b = (const uint8_t *)p;
	return (uint16_t)(b[0] << 8 | b[1]);
#endif
}

/* sofl_get32() : the big-endian 32-bit field at @p. */
static inline uint32_t sofl_get32(const void *p)
{
#if SOFL_BSWAP_
	uint32_t v;
	__builtin_memcpy(&v, p, 4);
	return SOFL_BE32_(v);
#else
	const uint8_t *b = (const uint8_t *)p;
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
#endif
}

/* sofl_put16() : stores @v at @p as two big-endian bytes. */
static inline void sofl_put16(void *p, uint16_t v)
{
#if SOFL_BSWAP_
	v = SOFL_BE16_(v);
	__builtin_memcpy(p, &v, 2);
#else
	uint8_t *b = (uint8_t *)p;
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
#endif
}

/* sofl_put32() : stores @v at @p as four big-endian bytes. */
static inline void sofl_put32(void *p, uint32_t v)
{
#if SOFL_BSWAP_
	v = SOFL_BE32_(v);
	__builtin_memcpy(p, &v, 4);
#else
	uint8_t *b = (uint8_t *)p;
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
#endif
}

#ifdef __cplusplus
}
#endif
#endif
