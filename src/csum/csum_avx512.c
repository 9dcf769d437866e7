/* AVX-512 checksum kernels (F, BW, VL, VNNI).
 *
 * The ones'-complement sum only needs the plain integer sum of the 16-bit
 * words, folded at the end.  Each 16-bit word w is flipped to the signed value
 * w - 32768 (xor 0x8000) and vpdpwssd multiplies those words by 1 and adds
 * pairs into 32-bit lanes: two instructions per 64 bytes, and they run on
 * different execution ports (the xor on any vector ALU, the dot product on
 * the multiply pipes).  The sum of the flipped words is signed and small, so
 * the true sum is recovered exactly as sum + 32768 * words.  Eight
 * accumulators hide the dot product's latency.  A lane gains at most 65536 in
 * magnitude per vector, so blocks of at most BLOCK vectors are reduced to a
 * 64-bit scalar before any 32-bit lane or the reduced 32-bit total can
 * overflow.
 *
 * Buffers up to SHORT_MAX bytes skip the blocks: their words are widened
 * into 64-bit lanes (cheaper to set up and reduce for a few vectors).
 * Single calls longer than L1 use 256-bit loads on AMD, and buffers of STREAM_MIN
 * bytes or more go to the AVX2 kernel: on Zen 4 those read L2, L3 and DRAM
 * at least as fast as 512-bit loads (see the constants below).
 *
 * Packet-sized buffers (SHORT_MAX < len <= MID, any alignment) take
 * sofl_pkt_sum() (csum_avx512_pkt.h, where gro.c's trains and weaves inline it
 * too): aligned loads with masked ends, four accumulators, nothing but the
 * sum.  Unaligned buffers from MID up to L1 are read the same way with
 * eight accumulators (aligned_sum).  Aligned loads save the cache-line split
 * loads of an unaligned buffer.
 *
 * Nothing is read outside buf[0..len): the last partial vector is a masked
 * load (masked-off bytes read as zero and do not fault). */
#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#include "csum_kern.h"
#include "csum_avx512_pkt.h"

#define VNNI __attribute__((target("avx512vnni")))

/* vectors per block: 32768 * 32 words * 1024 = 2^30, far from int32 limits */
#define BLOCK 1024
#define SHORT_MAX 256
#define MID 1536
/* SHORT_MAX < len <= MID: sofl_pkt_sum(): aligned loads with masked ends
 * and four accumulators, for any alignment; it is not slower than the
 * unaligned block loop at any packet length or offset, and an L2-resident
 * packet is bound by L2's 32 bytes per cycle either way.  Up to SHORT_MAX,
 * sum_short() is faster still.  Unaligned buffers past MID go to
 * aligned_sum(), which avoids a cache-line split on every load.
 * (Measurements: docs/benchmarks.md, checksum sections.) */
/* From this length on (beyond L2, streaming from L3 or DRAM) the buffer goes
 * to the AVX2 kernel, whose 256-bit loop (xor, vpmaddwd, vpaddd; 128 bytes
 * per iteration) reads L3 and DRAM at least as fast as the 512-bit loop:
 * there memory bandwidth, not the vector ports, bounds the sum.  Every CPU
 * with AVX-512 F has AVX2; csum.c requires both for this kernel. */
#define STREAM_MIN (2u << 20)
/* On AMD (Zen 4, 32 KiB L1d) a single call longer than L1 sums its whole
 * 256-byte runs with 256-bit loads: streamed from DRAM in 64 KiB calls
 * they keep AVX2's speed where the 512-bit loop is slower, in L2 both run
 * alike, and in L1 the 512-bit loop is faster (so the shorter calls keep it). */
#define L1_MAX (32u << 10)
/* That 256-bit path is for AMD only: on Intel (a Xeon with AVX-512 and
 * GFNI, 48 KiB L1d) the same 32-64 KiB calls from L2 run well below the
 * 512-bit loop's speed (docs/benchmarks.md), so there they take block(), or
 * aligned_sum() when unaligned, as the shorter buffers do. */
static int
beyond_l1_ymm(void)
{
	static int v = -1;
	int r = __atomic_load_n(&v, __ATOMIC_RELAXED);

	if (r < 0) {
		unsigned a = 0, b = 0, c = 0, d = 0;

		/* "AuthenticAMD" */
		r = __get_cpuid(0, &a, &b, &c, &d) && b == 0x68747541 && d == 0x69746e65 &&
		    c == 0x444d4163;
		__atomic_store_n(&v, r, __ATOMIC_RELAXED);
	}
	return r;
}

static inline VNNI __m512i
step(__m512i acc, __m512i x)
{
	const __m512i flip = _mm512_set1_epi16((short)0x8000);
	const __m512i one = _mm512_set1_epi16(1);

	return _mm512_dpwssd_epi32(acc, _mm512_xor_si512(x, flip), one);
}

/* signed sum of the 16 int32 lanes of v (|total| < 2^31 by BLOCK) */
static inline int64_t
hsum32(__m512i v)
{
	__m256i y = _mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
	__m128i x = _mm_add_epi32(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1));

	x = _mm_add_epi32(x, _mm_unpackhi_epi64(x, x));
	x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x55));
	return (int32_t)_mm_cvtsi128_si32(x);
}

static inline __mmask64
tail_mask(size_t n)		/* n in 0..64: the low n bits set */
{
	return _bzhi_u64(~0ULL, (unsigned)n);
}

/* Short buffers: words widened into 64-bit lanes, then one horizontal add. */
static inline __m512i
widen(__m512i x)
{
	const __m512i lo32 = _mm512_set1_epi64(0xffffffff);

	return _mm512_add_epi64(_mm512_and_si512(x, lo32), _mm512_srli_epi64(x, 32));
}

static inline uint32_t
fold_lanes256(__m256i y)
{
	__m128i z = _mm_add_epi64(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1));

	z = _mm_add_epi64(z, _mm_unpackhi_epi64(z, z));
	return sofl_fold64((uint64_t)_mm_cvtsi128_si64(z));
}

static inline uint32_t
fold_lanes(__m512i s)
{
	return fold_lanes256(_mm256_add_epi64(_mm512_castsi512_si256(s),
					      _mm512_extracti64x4_epi64(s, 1)));
}

/* Vector p[o..o+64), or its first n bytes (masked), widened; copied to d. */
static inline __m512i
vec_w(const unsigned char *p, unsigned char *d, size_t o, int copy)
{
	__m512i x = _mm512_loadu_si512(p + o);

	if (copy)
		_mm512_storeu_si512(d + o, x);
	return widen(x);
}

static inline __m512i
tail_w(const unsigned char *p, unsigned char *d, size_t o, size_t n, int copy)
{
	__mmask64 m = tail_mask(n);
	__m512i x = _mm512_maskz_loadu_epi8(m, p + o);

	if (copy)
		_mm512_mask_storeu_epi8(d + o, m, x);
	return widen(x);
}

/* len <= SHORT_MAX (256).  Offsets, not moving pointers: d is NULL unless
 * copying.  Up to four vectors, each widened on its own and added as a
 * tree: a loop's running sum put two dependent adds per vector on the path
 * to the fold.  Inlined into sofl_csum_avx512(), which then needs no stack
 * frame. */
static inline __attribute__((always_inline)) uint32_t
sum_short(const unsigned char *p, unsigned char *d, size_t len, int copy)
{
	__m512i a, b, c;

	if (len <= 32) {	/* half the work in 256-bit registers */
		const __m256i lo32 = _mm256_set1_epi64x(0xffffffff);
		__mmask32 m32 = (__mmask32)_bzhi_u32(~0u, (unsigned)len);
		__m256i y = _mm256_maskz_loadu_epi8(m32, p);

		if (copy)
			_mm256_mask_storeu_epi8(d, m32, y);
		return fold_lanes256(_mm256_add_epi64(_mm256_and_si256(y, lo32),
						      _mm256_srli_epi64(y, 32)));
	}
	if (len <= 64)
		return fold_lanes(tail_w(p, d, 0, len, copy));
	a = vec_w(p, d, 0, copy);
	if (len <= 128)
		return fold_lanes(_mm512_add_epi64(a, tail_w(p, d, 64, len - 64, copy)));
	b = vec_w(p, d, 64, copy);
	if (len <= 192)
		return fold_lanes(_mm512_add_epi64(_mm512_add_epi64(a, b),
						   tail_w(p, d, 128, len - 128, copy)));
	c = vec_w(p, d, 128, copy);
	return fold_lanes(_mm512_add_epi64(_mm512_add_epi64(a, b),
					   _mm512_add_epi64(c, tail_w(p, d, 192, len - 192, copy))));
}

/* One vector at offset o + off: sum it, and store it to d when copying. */
#define VEC(acc, off) do {						\
		__m512i x_ = _mm512_loadu_si512(p + o + (off));		\
		if (copy)						\
			_mm512_storeu_si512(d + o + (off), x_);		\
		acc = step(acc, x_);					\
	} while (0)

/* The exact word sum of p[0..take), take <= BLOCK * 64; copies it to d. */
static inline __attribute__((always_inline)) VNNI uint64_t
block(const unsigned char *p, unsigned char *d, size_t take, int copy)
{
	__m512i a0, a1, a2, a3, a4, a5, a6, a7;
	size_t o = 0;

	a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = _mm512_setzero_si512();
	for (; take - o >= 512; o += 512) {
		VEC(a0, 0); VEC(a1, 64); VEC(a2, 128); VEC(a3, 192);
		VEC(a4, 256); VEC(a5, 320); VEC(a6, 384); VEC(a7, 448);
	}
	if (take - o >= 256) {
		VEC(a0, 0); VEC(a1, 64); VEC(a2, 128); VEC(a3, 192);
		o += 256;
	}
	if (take - o >= 128) {
		VEC(a4, 0); VEC(a5, 64);
		o += 128;
	}
	if (take - o >= 64) {
		VEC(a6, 0);
		o += 64;
	}
	if (take > o) {
		__mmask64 m = tail_mask(take - o);
		__m512i x = _mm512_maskz_loadu_epi8(m, p + o);

		if (copy)
			_mm512_mask_storeu_epi8(d + o, m, x);
		a7 = step(a7, x);
	}
	a0 = _mm512_add_epi32(_mm512_add_epi32(a0, a1), _mm512_add_epi32(a2, a3));
	a4 = _mm512_add_epi32(_mm512_add_epi32(a4, a5), _mm512_add_epi32(a6, a7));
	/* every vector, the masked one too, counted its 32 words as w - 32768 */
	return (uint64_t)(hsum32(_mm512_add_epi32(a0, a4)) + (int64_t)(((take + 63) / 64) << 20));
}
/* block() with four accumulators: less to reduce at the end, which pays
 * for packet-sized buffers (up to MID bytes). */
static inline __attribute__((always_inline)) VNNI uint64_t
block4(const unsigned char *p, unsigned char *d, size_t take, int copy)
{
	__m512i a0, a1, a2, a3;
	size_t o = 0;

	a0 = a1 = a2 = a3 = _mm512_setzero_si512();
	for (; take - o >= 256; o += 256) {
		VEC(a0, 0); VEC(a1, 64); VEC(a2, 128); VEC(a3, 192);
	}
	if (take - o >= 128) {
		VEC(a0, 0); VEC(a1, 64);
		o += 128;
	}
	if (take - o >= 64) {
		VEC(a2, 0);
		o += 64;
	}
	if (take > o) {
		__mmask64 m = tail_mask(take - o);
		__m512i x = _mm512_maskz_loadu_epi8(m, p + o);

		if (copy)
			_mm512_mask_storeu_epi8(d + o, m, x);
		a3 = step(a3, x);
	}
	a0 = _mm512_add_epi32(_mm512_add_epi32(a0, a1), _mm512_add_epi32(a2, a3));
	return (uint64_t)(hsum32(a0) + (int64_t)(((take + 63) / 64) << 20));
}
#undef VEC


static inline VNNI __m256i
step256(__m256i acc, __m256i x)
{
	const __m256i flip = _mm256_set1_epi16((short)0x8000);
	const __m256i one = _mm256_set1_epi16(1);

	return _mm256_dpwssd_epi32(acc, _mm256_xor_si256(x, flip), one);
}

#define VEC256(acc, off) do {						\
		__m256i x_ = _mm256_loadu_si256((const __m256i *)(p + o + (off))); \
		if (copy)						\
			_mm256_storeu_si256((__m256i *)(d + o + (off)), x_); \
		acc = step256(acc, x_);					\
	} while (0)

/* block() with 256-bit vectors, for take a multiple of 256 (may be 0). */
static inline __attribute__((always_inline)) VNNI uint64_t
block_ymm(const unsigned char *p, unsigned char *d, size_t take, int copy)
{
	__m256i a0, a1, a2, a3, a4, a5, a6, a7;
	__m128i x;
	size_t o;

	a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = _mm256_setzero_si256();
	for (o = 0; o < take; o += 256) {
		VEC256(a0, 0); VEC256(a1, 32); VEC256(a2, 64); VEC256(a3, 96);
		VEC256(a4, 128); VEC256(a5, 160); VEC256(a6, 192); VEC256(a7, 224);
	}
	a0 = _mm256_add_epi32(_mm256_add_epi32(a0, a1), _mm256_add_epi32(a2, a3));
	a4 = _mm256_add_epi32(_mm256_add_epi32(a4, a5), _mm256_add_epi32(a6, a7));
	a0 = _mm256_add_epi32(a0, a4);
	x = _mm_add_epi32(_mm256_castsi256_si128(a0), _mm256_extracti128_si256(a0, 1));
	x = _mm_add_epi32(x, _mm_unpackhi_epi64(x, x));
	x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x55));
	/* 16 words per vector, each counted as w - 32768 */
	return (uint64_t)((int64_t)(int32_t)_mm_cvtsi128_si32(x) + (int64_t)((take / 32) << 19));
}
#undef VEC256

/* The exact word sum of p[0..take), take <= BLOCK * 64, with 256-bit loads
 * for all whole 256-byte runs. */
static inline __attribute__((always_inline)) VNNI uint64_t
block_y(const unsigned char *p, unsigned char *d, size_t take, int copy)
{
	size_t body = take & ~(size_t)255;
	uint64_t t = block_ymm(p, d, body, copy);

	if (take > body)
		t += block4(p + body, copy ? d + body : d, take - body, copy);
	return t;
}

/* Buffers longer than one block: the loop over blocks. */
static inline __attribute__((always_inline)) VNNI uint64_t
blocks(const unsigned char *p, unsigned char *d, size_t len, int copy)
{
	uint64_t total = 0;
	size_t o, take;

	for (o = 0; o < len; o += take) {
		take = len - o < BLOCK * 64 ? len - o : BLOCK * 64;
		total += block(p + o, copy ? d + o : d, take, copy);
	}
	return total;
}

/* The sum of p[0..len) for 64 < len <= BLOCK * 64 with aligned loads only
 * (its lanes' exact sums stay below 2^32 up to 2 MiB): the
 * vectors are those of the 64-byte aligned region a = p - k (k = p mod 64)
 * .. p + len, the first one masked to skip the k bytes before p and the last
 * one to stop at p + len.  An unaligned buffer thus costs no cache-line
 * split loads (every 512-bit load of p itself would cross a line).  The
 * words of the region start k bytes before p's: for odd k each pairs a byte
 * of p with its neighbour the other way round, and the sum is p's sum with
 * its bytes swapped (RFC 1071 2(B)); the total is rotated by 8 bits for odd
 * k, which is that swap modulo 0xffff.  Eight accumulators, for MID < len:
 * packet-sized buffers take sofl_pkt_sum() (csum_avx512_pkt.h). */
#define VECA(acc, off) (acc = step(acc, _mm512_load_si512((const void *)(a + o + (off)))))
static inline __attribute__((always_inline)) VNNI uint64_t
aligned_sum(const unsigned char *p, size_t len)
{
	size_t k = (uintptr_t)p & 63, take = k + len, o = 64;
	const unsigned char *a = (const unsigned char *)((uintptr_t)p & ~(uintptr_t)63);
	const __m512i z = _mm512_setzero_si512();
	__m512i a0, a1, a2, a3, a4, a5, a6, a7, h, t = z;
	unsigned r = (unsigned)(k & 1) * 8;

	a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = z;
	/* every vector, masked ones too, counts its 32 words as w - 32768: two
	 * per lane, so 65536 per vector makes each lane the plain sum of its
	 * words (< 2^32 up to 2 MiB), added here, off the path from the last
	 * load to the total */
	h = step(_mm512_set1_epi32((int)(((take + 63) / 64) << 16)),
		 _mm512_maskz_loadu_epi8(~0ULL << k, a));
	for (; take - o >= 512; o += 512) {
		VECA(a0, 0); VECA(a1, 64); VECA(a2, 128); VECA(a3, 192);
		VECA(a4, 256); VECA(a5, 320); VECA(a6, 384); VECA(a7, 448);
	}
	if (take - o >= 256) {
		VECA(a4, 0); VECA(a5, 64); VECA(a6, 128); VECA(a7, 192);
		o += 256;
	}
	if (take - o >= 128) {
		VECA(a1, 0); VECA(a2, 64);
		o += 128;
	}
	if (take - o >= 64) {
		VECA(a3, 0);
		o += 64;
	}
	if (take > o)
		t = step(z, _mm512_maskz_loadu_epi8(tail_mask(take - o), a + o));
	a0 = _mm512_add_epi32(_mm512_add_epi32(a0, a1), _mm512_add_epi32(a2, a3));
	a4 = _mm512_add_epi32(_mm512_add_epi32(a4, a5), _mm512_add_epi32(a6, a7));
	a0 = _mm512_add_epi32(_mm512_add_epi32(a0, a4), _mm512_add_epi32(h, t));
	return sofl_lanes_sum_rot(a0, r);
}
#undef VECA


/* Out of line and reached by a tail jump, so that its register pressure
 * (callee-saved registers pushed on entry) stays off the short paths: those
 * pushes slow packet-sized sums down whenever the stack's page offset
 * aliases the buffer's (4K aliasing of the stores with the loads). */
static __attribute__((noinline)) VNNI uint32_t
long_sum(uint32_t sum, const unsigned char *p, size_t len)
{
	if (len >= STREAM_MIN)
		return sofl_csum_avx2(sum, p, len);
	return sofl_csum_finish(sum, sofl_fold64(blocks(p, NULL, len, 0)));
}

static __attribute__((noinline)) VNNI uint32_t
long_copy(unsigned char *d, const unsigned char *p, size_t len, uint32_t sum)
{
	if (len >= STREAM_MIN)
		return sofl_csum_copy_avx2(d, p, len, sum);
	return sofl_csum_finish(sum, sofl_fold64(blocks(p, d, len, 1)));
}

/* Both kernels up to one block: the folded sum of p[0..len), copied to d
 * when copying.  Leaf code without callee-saved registers. */
static inline __attribute__((always_inline)) VNNI uint32_t
sum_any(const unsigned char *p, unsigned char *d, size_t len, int copy)
{
	if (!len)		/* the pointers may be NULL then: no arithmetic on them */
		return 0;
	if (len <= SHORT_MAX)
		return sum_short(p, d, len, copy);
	if (len <= MID)
		return sofl_fold64(block4(p, d, len, copy));
	if (len > L1_MAX && (copy || beyond_l1_ymm()))
		return sofl_fold64(block_y(p, d, len, copy));
	return sofl_fold64(block(p, d, len, copy));
}

/* Unaligned buffers of MID < len <= L1_MAX: aligned_sum().  Out of line (a
 * tail jump) like long_sum, which leaves the code of the other paths as it
 * was. */
static __attribute__((noinline)) VNNI uint32_t
unaligned_sum(uint32_t sum, const unsigned char *p, size_t len)
{
	return sofl_csum_finish(sum, sofl_fold64(aligned_sum(p, len)));
}

/* The first test a packet meets: SHORT_MAX < len <= MID (one compare). */
#define PKT_LEN(len) SOFL_PKT_LEN(len)
_Static_assert(SOFL_PKT_MIN == SHORT_MAX + 1 && SOFL_PKT_MAX == MID, "sofl_pkt_sum's lengths");
_Static_assert(SHORT_MAX == 256, "sum_short() sums at most four vectors");

/* Beyond MID: out of line (a tail jump), which keeps the code of the
 * blocks and their branches off the short and packet-sized paths.  Its
 * entry 64-byte aligned: where the link put it moved the 9000-byte sum by
 * about 1%. */
static __attribute__((noinline, aligned(64))) VNNI uint32_t
big_sum(uint32_t sum, const unsigned char *p, size_t len)
{
	if (len > BLOCK * 64)
		return long_sum(sum, p, len);
	if (((uintptr_t)p & 63) && (len <= L1_MAX || !beyond_l1_ymm()))
		return unaligned_sum(sum, p, len);
	if (len > L1_MAX && beyond_l1_ymm())
		return sofl_csum_finish(sum, sofl_fold64(block_y(p, NULL, len, 0)));
	return sofl_csum_finish(sum, sofl_fold64(block(p, NULL, len, 0)));
}

/* Packet-sized buffers, out of line too: with both other paths reached by
 * tail jumps, the short path below needs no stack frame (the inlined
 * packet sum made the entry push and realign the stack for every call). */
static __attribute__((noinline)) VNNI uint32_t
pkt_sum(uint32_t sum, const unsigned char *p, size_t len)
{
	return sofl_csum_finish(sum, sofl_fold64(sofl_pkt_sum(p, len)));
}

VNNI uint32_t
sofl_csum_avx512(uint32_t sum, const void *buf, size_t len)
{
	if (PKT_LEN(len))
		return pkt_sum(sum, buf, len);
	if (len <= SHORT_MAX)
		return sofl_csum_finish(sum, len ? sum_short(buf, NULL, len, 0) : 0);
	return big_sum(sum, buf, len);
}

/* The residue kernel (csum_kern.h): the paths of sofl_csum_avx512() with
 * their exact 64-bit sums returned as they are (short buffers: folded). */
VNNI uint64_t
sofl_csum_resid_avx512(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint32_t t;

	if (PKT_LEN(len))
		return sofl_pkt_sum(p, len);
	if (len > BLOCK * 64) {
		t = long_sum(0, p, len);	/* the folded sum, byte-swapped */
		return ((t & 0xff) << 8) | (t >> 8);
	}
	if (len > MID && ((uintptr_t)p & 63) && (len <= L1_MAX || !beyond_l1_ymm()))
		return aligned_sum(p, len);
	if (!len)
		return 0;
	if (len <= SHORT_MAX)
		return sum_short(p, NULL, len, 0);
	if (len > L1_MAX && beyond_l1_ymm())
		return block_y(p, NULL, len, 0);
	return block(p, NULL, len, 0);
}

VNNI uint32_t
sofl_csum_copy_avx512(void *dst, const void *src, size_t len, uint32_t sum)
{
	if (len > BLOCK * 64)
		return long_copy(dst, src, len, sum);
	return sofl_csum_finish(sum, sum_any(src, dst, len, 1));
}
#else
typedef int sofl_csum_avx512_unused;
#endif
