/* Internal: SipHash (Aumasson and Bernstein) for hash tables whose keys an
 * attacker chooses (the GRO engine's flow table): with a secret random
 * key, flows cannot be chosen to collide.  SipHash-1-3 is the variant
 * Linux's hsiphash() uses on 64-bit hosts for hash tables (lib/siphash.c);
 * SipHash-2-4 (Linux's siphash()) makes GSO's IPv6 fragment
 * identifications (gso.c) and is checked against the reference vectors.
 *
 * A message of len bytes is given as its nw = len / 8 whole 64-bit words
 * (little-endian, as SipHash reads them) and its last block: the
 * remaining len % 8 bytes in the low bytes and len in the top byte, which
 * is SipHash's padding (sofl_sip_last()). */
#ifndef SOFL_SIPHASH_H
#define SOFL_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

/* sofl_sip_key() : @key = @given (16 bytes) unless it is NULL or all zero,
 * else 16 random bytes (getrandom(), else /dev/urandom; one syscall or a
 * few).  @return 0, or SOFL_E_NOTSUP when no random bytes could be had:
 * the library's one key source, and its one failure (no weaker key). */
int sofl_sip_key(uint64_t key[2], const uint8_t given[16]);

/* sofl_siphash13_x() : SipHash-1-3 of @n messages of @nw words each (word
 * j of message i at w[j][i]) and last blocks last[i], folded to 32 bits
 * (h ^ h >> 32) into out[i]; @isa 2 (the CPU has AVX-512F): eight at a
 * time, 1 (AVX2): four, 0: one.  Equal to sofl_siphash13() lane by lane.
 * @nw <= 8. */
void sofl_siphash13_x(const uint64_t key[2], const uint64_t *const *w, unsigned nw,
		      const uint64_t *last, uint32_t *out, size_t n, int isa);

static inline uint64_t
sofl_sip_last(uint64_t tail, unsigned len)
{
	return tail | (uint64_t)len << 56;
}

#define SOFL_SIP_ROTL(x, b) (((x) << (b)) | ((x) >> (64 - (b))))

#define SOFL_SIPROUND(v0, v1, v2, v3) do {					\
	v0 += v1; v1 = SOFL_SIP_ROTL(v1, 13); v1 ^= v0; v0 = SOFL_SIP_ROTL(v0, 32); \
	v2 += v3; v3 = SOFL_SIP_ROTL(v3, 16); v3 ^= v2;			\
	v0 += v3; v3 = SOFL_SIP_ROTL(v3, 21); v3 ^= v0;			\
	v2 += v1; v1 = SOFL_SIP_ROTL(v1, 17); v1 ^= v2; v2 = SOFL_SIP_ROTL(v2, 32); \
} while (0)

#define SOFL_SIP_V0 0x736f6d6570736575ull
#define SOFL_SIP_V1 0x646f72616e646f6dull
#define SOFL_SIP_V2 0x6c7967656e657261ull
#define SOFL_SIP_V3 0x7465646279746573ull

/* @c compression and @d finalization rounds (constants where inlined) */
static inline __attribute__((always_inline)) uint64_t
sofl_siphash_cd(const uint64_t key[2], const uint64_t *m, unsigned nw, uint64_t last, const int c,
		const int d)
{
	uint64_t v0 = SOFL_SIP_V0 ^ key[0], v1 = SOFL_SIP_V1 ^ key[1];
	uint64_t v2 = SOFL_SIP_V2 ^ key[0], v3 = SOFL_SIP_V3 ^ key[1];
	unsigned i;
	int r;

	for (i = 0; i <= nw; i++) {
		const uint64_t b = i < nw ? m[i] : last;

		v3 ^= b;
		for (r = 0; r < c; r++)
			SOFL_SIPROUND(v0, v1, v2, v3);
		v0 ^= b;
	}
	v2 ^= 0xff;
	for (r = 0; r < d; r++)
		SOFL_SIPROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

static inline __attribute__((always_inline)) uint64_t
sofl_siphash13(const uint64_t key[2], const uint64_t *m, unsigned nw, uint64_t last)
{
	return sofl_siphash_cd(key, m, nw, last, 1, 3);
}

static inline uint64_t
sofl_siphash24(const uint64_t key[2], const uint64_t *m, unsigned nw, uint64_t last)
{
	return sofl_siphash_cd(key, m, nw, last, 2, 4);
}

#endif
