/* Internal: SipHash (Aumasson and Bernstein) over 64-bit words, for hash
 * tables whose keys an attacker chooses (the GRO engine's flow table):
 * with a secret random key, flows cannot be chosen to collide.
 * sofl_siphash13() is SipHash-1-3, the variant Linux's hsiphash() uses on
 * 64-bit hosts for hash tables (lib/siphash.c); sofl_siphash24() is
 * SipHash-2-4 (Linux's siphash()), here for the reference test vectors.
 * The message is the words' little-endian bytes (8 * @n of them), padded
 * and length-tagged as SipHash specifies.  Inline: per packet. */
#ifndef SOFL_SIPHASH_H
#define SOFL_SIPHASH_H

#include <stdint.h>

/* sofl_sip_key() : @key = @given (16 bytes) unless it is NULL or all zero,
 * else 16 random bytes (getrandom(), else /dev/urandom; one syscall or a
 * few).  @return 0, or SOFL_ENOTSUP when no random bytes could be had. */
int sofl_sip_key(uint64_t key[2], const uint8_t given[16]);

#define SOFL_SIP_ROTL(x, b) (((x) << (b)) | ((x) >> (64 - (b))))

#define SOFL_SIPROUND(v0, v1, v2, v3) do {					\
	v0 += v1; v1 = SOFL_SIP_ROTL(v1, 13); v1 ^= v0; v0 = SOFL_SIP_ROTL(v0, 32); \
	v2 += v3; v3 = SOFL_SIP_ROTL(v3, 16); v3 ^= v2;			\
	v0 += v3; v3 = SOFL_SIP_ROTL(v3, 21); v3 ^= v0;			\
	v2 += v1; v1 = SOFL_SIP_ROTL(v1, 17); v1 ^= v2; v2 = SOFL_SIP_ROTL(v2, 32); \
} while (0)

/* @c compression and @d finalization rounds (constants where inlined) */
static inline __attribute__((always_inline)) uint64_t
sofl_siphash_cd(const uint64_t key[2], const uint64_t *m, unsigned n, const int c, const int d)
{
	uint64_t v0 = 0x736f6d6570736575ull ^ key[0], v1 = 0x646f72616e646f6dull ^ key[1];
	uint64_t v2 = 0x6c7967656e657261ull ^ key[0], v3 = 0x7465646279746573ull ^ key[1];
	const uint64_t b = (uint64_t)(8 * n) << 56;
	unsigned i;
	int r;

	for (i = 0; i < n; i++) {
		v3 ^= m[i];
		for (r = 0; r < c; r++)
			SOFL_SIPROUND(v0, v1, v2, v3);
		v0 ^= m[i];
	}
	v3 ^= b;
	for (r = 0; r < c; r++)
		SOFL_SIPROUND(v0, v1, v2, v3);
	v0 ^= b;
	v2 ^= 0xff;
	for (r = 0; r < d; r++)
		SOFL_SIPROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

static inline __attribute__((always_inline)) uint64_t
sofl_siphash13(const uint64_t key[2], const uint64_t *m, unsigned n)
{
	return sofl_siphash_cd(key, m, n, 1, 3);
}

static inline uint64_t
sofl_siphash24(const uint64_t key[2], const uint64_t *m, unsigned n)
{
	return sofl_siphash_cd(key, m, n, 2, 4);
}

#endif
