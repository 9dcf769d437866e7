/* Toeplitz hash with GF2P8AFFINEQB (GFNI + AVX-512 F/BW/VL/VBMI).
 *
 * Input byte p contributes to hash byte m (m = 0 most significant) through
 * the 8x8 bit matrix mat[p+m] (see build_tables() in rss.c).  Qword lane q
 * of the work vectors therefore holds the four input bytes that meet matrix
 * q: x[q-3], x[q-2], x[q-1], x[q] in bytes 0..3 (bytes 4..7 zero), so that
 * after the affine step byte 3-m of every lane is a contribution to hash
 * byte m and the lanes' low 32 bits XOR together into the hash itself.
 * Lanes q = 0 .. len+2 are needed: two vectors for IPv4, five for IPv6.
 *
 * No masks: the input vector is zero from byte len on (len <= 36), and every
 * index that names no input byte (x[-3..-1], x[len..39], bytes 4..7) reads
 * one of those zero bytes, since a byte permutation only looks at the low 6
 * bits of an index (0xfd..0xff -> 61..63). */
#if defined(__x86_64__)
#include <stddef.h>
#include <immintrin.h>
#include "softoffload/pkt.h"
#include "rss_gfni.h"

#define Z 0x3f		/* byte 63 of the input vector: always zero */
#define LANE(q) ((q) - 3) & 0xff, ((q) - 2) & 0xff, ((q) - 1) & 0xff, (q), Z, Z, Z, Z
#define VEC(j) LANE(8 * (j)), LANE(8 * (j) + 1), LANE(8 * (j) + 2), LANE(8 * (j) + 3), \
	LANE(8 * (j) + 4), LANE(8 * (j) + 5), LANE(8 * (j) + 6), LANE(8 * (j) + 7)

static const uint8_t perm[5][64] __attribute__((aligned(64))) = {
	{ VEC(0) }, { VEC(1) }, { VEC(2) }, { VEC(3) }, { VEC(4) },
};

/* Two tuples per pass (bursts): bytes 0..3 of every lane work for tuple A,
 * bytes 4..7 for tuple B, fetched by a two-source byte permutation (index
 * bit 6 = B).  The lanes' low halves XOR into A's hash, the high halves into
 * B's.  A's out-of-range indices 0xfd..0xff have bit 6 set: they read B's
 * zero bytes 61..63, which is as good. */
#define LANE2(q) ((q) - 3) & 0xff, ((q) - 2) & 0xff, ((q) - 1) & 0xff, (q), \
	(((q) - 3) & 0xff) | 0x40, (((q) - 2) & 0xff) | 0x40, (((q) - 1) & 0xff) | 0x40, (q) | 0x40
#define VEC2(j) LANE2(8 * (j)), LANE2(8 * (j) + 1), LANE2(8 * (j) + 2), LANE2(8 * (j) + 3), \
	LANE2(8 * (j) + 4), LANE2(8 * (j) + 5), LANE2(8 * (j) + 6), LANE2(8 * (j) + 7)

static const uint8_t perm2[5][64] __attribute__((aligned(64))) = {
	{ VEC2(0) }, { VEC2(1) }, { VEC2(2) }, { VEC2(3) }, { VEC2(4) },
};

/* The engine's matrices as vectors.  sofl_rss_create() aligns them to 64
 * bytes, but this file sees only a pointer: the type promises nothing, so an
 * access is an unaligned load (vmovdqu64, or a memory operand), which costs
 * the same as an aligned one on aligned data. */
typedef long long mat_v __attribute__((vector_size(64), aligned(1), may_alias));

#define TARGET __attribute__((target("avx512vbmi,bmi2")))
#define INLINE static inline TARGET __attribute__((always_inline))

/* XOR of the 8 qword lanes. */
INLINE uint64_t
fold_lanes(__m512i acc)
{
	__m256i h = _mm256_xor_si256(_mm512_castsi512_si256(acc),
				     _mm512_extracti64x4_epi64(acc, 1));
	__m128i g = _mm_xor_si128(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));

	g = _mm_xor_si128(g, _mm_unpackhi_epi64(g, g));
	return (uint64_t)_mm_cvtsi128_si64(g);
}

/* One matrix step: lane q of vector j meets matrix 8 * j + q. */
INLINE __m512i
step(const mat_v *mat, const __m512i *idx, size_t j, __m512i x)
{
	return _mm512_gf2p8affine_epi64_epi8(_mm512_permutexvar_epi8(idx[j], x), mat[j], 0);
}

/* @x: the tuple's bytes, zero from byte len on; nv = vectors for len
 * (1..5).  Unrolled into two XOR chains: the steps are independent, so only
 * the XORs wait on each other, and no loop counter sits on the path. */
INLINE uint32_t
hash_vec(const mat_v *mat, const __m512i *idx, size_t nv, __m512i x)
{
	__m512i a = step(mat, idx, 0, x), b = _mm512_setzero_si512();

	if (nv > 1)
		b = step(mat, idx, 1, x);
	if (nv > 2) {
		a = _mm512_xor_si512(a, step(mat, idx, 2, x));
		if (nv > 3)
			b = _mm512_xor_si512(b, step(mat, idx, 3, x));
		if (nv > 4)
			a = _mm512_xor_si512(a, step(mat, idx, 4, x));
	}
	return (uint32_t)fold_lanes(_mm512_xor_si512(a, b));
}

/* Two tuples (each zero from its own length on): A | B << 32. */
INLINE uint64_t
hash_vec2(const mat_v *mat, const __m512i *idx2, size_t nv, __m512i xa, __m512i xb)
{
	__m512i acc = _mm512_setzero_si512();
	size_t j;

	for (j = 0; j < nv; j++)
		acc = _mm512_xor_si512(acc, _mm512_gf2p8affine_epi64_epi8(
		    _mm512_permutex2var_epi8(xa, idx2[j], xb), mat[j], 0));
	return fold_lanes(acc);
}

static inline size_t
nvec(size_t len)
{
	return (len + 3 + 7) / 8;	/* lanes 0 .. len+2, 8 per vector */
}

INLINE __m512i
load_tuple(const void *in, size_t len)
{
	return _mm512_maskz_loadu_epi8((__mmask64)_bzhi_u64(~0ull, (unsigned)len), in);
}

TARGET uint32_t
sofl_rss_gfni(const uint64_t *mat, const uint8_t *in, size_t len)
{
	return hash_vec((const mat_v *)(const void *)mat, (const __m512i *)(const void *)perm,
			nvec(len), load_tuple(in, len));
}

/* sofl_rss_hash_bytes()'s GFNI path whole, so that the public call ends in
 * a jump here rather than a call and a store after it.  Aligned to a cache
 * line, as the bulk path below: placed by the linker across a 64-byte
 * boundary, this ~40-instruction body ran 13% slower on AMD Zen 5 (one hash
 * of a 12-byte tuple, 2.94 against 2.58 ns in bench_vs_dpdk), and where a
 * change elsewhere moves it is not ours to choose. */
TARGET __attribute__((aligned(64))) int
sofl_rss_gfni_to(const uint64_t *mat, const uint8_t *in, size_t len, uint32_t *hash)
{
	*hash = hash_vec((const mat_v *)(const void *)mat, (const __m512i *)(const void *)perm,
			 nvec(len), load_tuple(in, len));
	return 0;
}

/* The matrices and permutations are loaded once for the burst. */
TARGET __attribute__((aligned(64))) void
sofl_rss_gfni_bulk(const uint64_t *mat, const void *const *in, size_t len, size_t n,
		   uint32_t *hash)
{
	const mat_v *mp = (const mat_v *)(const void *)mat;
	const __m512i *ip = (const __m512i *)(const void *)perm;
	const __m512i *ip2 = (const __m512i *)(const void *)perm2;
	__m512i m[5], idx[5], idx2[5];
	size_t i, j, nv = nvec(len);

	for (j = 0; j < nv; j++) {
		m[j] = mp[j];
		idx[j] = _mm512_load_si512(ip + j);
		idx2[j] = _mm512_load_si512(ip2 + j);
	}
	for (i = 0; i + 2 <= n; i += 2) {
		uint64_t ab = hash_vec2((const mat_v *)m, idx2, nv, load_tuple(in[i], len),
					load_tuple(in[i + 1], len));

		hash[i] = (uint32_t)ab;
		hash[i + 1] = (uint32_t)(ab >> 32);
	}
	if (i < n)
		hash[i] = hash_vec((const mat_v *)m, idx, nv, load_tuple(in[i], len));
}

/* From a flow key straight to the hash, without writing the tuple to memory
 * first: a wide load of freshly stored bytes would stall (failed store
 * forwarding), which costs more than the hash.  The key's src, dst, sport,
 * dport are 36 contiguous bytes (ports host-order, i.e. little-endian here);
 * one byte permutation puts them in tuple order. */
_Static_assert(offsetof(struct sofl_flow_key, dst) == offsetof(struct sofl_flow_key, src) + 16 &&
	       offsetof(struct sofl_flow_key, sport) == offsetof(struct sofl_flow_key, src) + 32 &&
	       offsetof(struct sofl_flow_key, dport) == offsetof(struct sofl_flow_key, src) + 34,
	       "sofl_flow_key layout");
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "x86 is little-endian");

#define V4A 0, 1, 2, 3, 16, 17, 18, 19
#define V6A 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, \
	16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
#define PORTS 33, 32, 35, 34	/* big-endian sport, dport */
#define A16 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x10
#define P2 2, 2, 2, 2

static const uint8_t tmap[4][64] __attribute__((aligned(64))) = {
	[SOFL_RSS_L_V4] = { V4A }, [SOFL_RSS_L_V4P] = { V4A, PORTS },
	[SOFL_RSS_L_V6] = { V6A }, [SOFL_RSS_L_V6P] = { V6A, PORTS },
};
/* index ^ 16 swaps src and dst, index ^ 2 swaps sport and dport */
static const uint8_t tswap[4][64] __attribute__((aligned(64))) = {
	[SOFL_RSS_L_V4] = { A16 }, [SOFL_RSS_L_V4P] = { A16, P2 },
	[SOFL_RSS_L_V6] = { A16, A16, A16, A16 }, [SOFL_RSS_L_V6P] = { A16, A16, A16, A16, P2 },
};
static const uint8_t tlen[4] = { 8, 12, 32, 36 };

/* The tuple of @layout from flow key @k, swaps applied, zero past its end. */
INLINE __m512i
key_tuple(const struct sofl_flow_key *k, int layout, int swap_addr, int swap_port)
{
	__m512i raw = _mm512_maskz_loadu_epi8((__mmask64)0xfffffffffull, k->src);
	__m512i sw = _mm512_set1_epi8((char)((swap_addr ? 0x10 : 0) | (swap_port ? 2 : 0)));
	__m512i t = _mm512_xor_si512(_mm512_load_si512((const void *)tmap[layout]),
	    _mm512_and_si512(sw, _mm512_load_si512((const void *)tswap[layout])));

	return _mm512_maskz_permutexvar_epi8((__mmask64)((1ull << tlen[layout]) - 1), t, raw);
}

TARGET uint32_t
sofl_rss_gfni_key(const uint64_t *mat, const struct sofl_flow_key *k, int layout, int swap_addr,
		  int swap_port)
{
	return hash_vec((const mat_v *)(const void *)mat, (const __m512i *)(const void *)perm,
			nvec(tlen[layout]), key_tuple(k, layout, swap_addr, swap_port));
}

/* Two flow keys in one pass, as sofl_rss_gfni_bulk() pairs tuples; their
 * lengths may differ.  @return A's hash | B's hash << 32. */
TARGET uint64_t
sofl_rss_gfni_key2(const uint64_t *mat, const struct sofl_flow_key *ka, int la, int sa_a,
		   int sw_a, const struct sofl_flow_key *kb, int lb, int sa_b, int sw_b)
{
	size_t len = tlen[la] > tlen[lb] ? tlen[la] : tlen[lb];

	return hash_vec2((const mat_v *)(const void *)mat, (const __m512i *)(const void *)perm2,
			 nvec(len), key_tuple(ka, la, sa_a, sw_a), key_tuple(kb, lb, sa_b, sw_b));
}
#else
/* ISO C wants a translation unit to declare something. */
typedef int sofl_rss_gfni_unused;
#endif
