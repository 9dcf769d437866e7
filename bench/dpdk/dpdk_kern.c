/* DPDK header-inline kernels, built twice (see dpdk_kern.h).  DK_SFX is
 * "generic" or "native"; the Makefile passes it.  Only DPDK functions are
 * timed here: each loop calls one of them exactly as an application would. */
#include <string.h>
#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_thash.h>
#include "dpdk_kern.h"

#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define F(name) CAT(name, DK_SFX)

/* Hides @p from the optimiser so a call on the same input is not hoisted
 * out of the loop; costs nothing at run time. */
#define LAUNDER(p) __asm__ volatile("" : "+r"(p) : : "memory")

uint16_t
F(dk_raw_cksum)(const void *buf, size_t len)
{
	return rte_raw_cksum(buf, len);
}

uint64_t
F(dk_raw_cksum_loop)(const void *buf, size_t len, size_t iters)
{
	uint64_t acc = 0;

	for (size_t i = 0; i < iters; i++) {
		const void *p = buf;
		LAUNDER(p);
		acc += rte_raw_cksum(p, len);
	}
	return acc;
}

/* One pass over a large buffer in @chunk-byte calls: rte_raw_cksum's 32-bit
 * accumulator overflows beyond ~128 KiB, so a caller must chunk like this. */
uint64_t
F(dk_raw_cksum_chunks)(const void *buf, size_t len, size_t chunk)
{
	const uint8_t *p = buf;
	uint64_t acc = 0;

	for (size_t off = 0; off < len; off += chunk)
		acc += rte_raw_cksum(p + off, len - off < chunk ? len - off : chunk);
	return acc;
}

static const struct rte_ipv4_hdr *
ip_of(const void *frame)
{
	return (const struct rte_ipv4_hdr *)((const uint8_t *)frame + 14);
}

uint16_t
F(dk_l4_cksum)(const void *frame)
{
	const struct rte_ipv4_hdr *ip = ip_of(frame);

	return rte_ipv4_udptcp_cksum(ip, (const uint8_t *)ip + rte_ipv4_hdr_len(ip));
}

int
F(dk_l4_cksum_verify)(const void *frame)
{
	const struct rte_ipv4_hdr *ip = ip_of(frame);

	return rte_ipv4_udptcp_cksum_verify(ip, (const uint8_t *)ip + rte_ipv4_hdr_len(ip));
}

uint64_t
F(dk_l4_cksum_loop)(const void *frame, size_t iters)
{
	uint64_t acc = 0;

	for (size_t i = 0; i < iters; i++) {
		const uint8_t *f = frame;
		LAUNDER(f);
		const struct rte_ipv4_hdr *ip = ip_of(f);
		acc += rte_ipv4_udptcp_cksum(ip, (const uint8_t *)ip + rte_ipv4_hdr_len(ip));
	}
	return acc;
}

uint64_t
F(dk_l4_verify_loop)(const void *frame, size_t iters)
{
	uint64_t acc = 0;

	for (size_t i = 0; i < iters; i++) {
		const uint8_t *f = frame;
		LAUNDER(f);
		const struct rte_ipv4_hdr *ip = ip_of(f);
		/* a receive path checks both: IPv4 header, then L4 */
		acc += rte_ipv4_cksum(ip) == 0 ? 0 : 1;
		acc += (uint64_t)rte_ipv4_udptcp_cksum_verify(ip,
		    (const uint8_t *)ip + rte_ipv4_hdr_len(ip));
	}
	return acc;
}

uint64_t
F(dk_ip_cksum_loop)(const void *frame, size_t iters)
{
	uint64_t acc = 0;

	for (size_t i = 0; i < iters; i++) {
		const uint8_t *f = frame;
		LAUNDER(f);
		acc += rte_ipv4_cksum(ip_of(f));
	}
	return acc;
}

/* rte_softrss wants host-order 32-bit words; converting is the caller's job
 * (a NIC-less RX path would do it while extracting the tuple), so it is done
 * here outside the timed loops, once per tuple set. */
static void
to_words(const uint8_t *t, int tlen, uint32_t *w)
{
	for (int i = 0; i < tlen / 4; i++) {
		uint32_t v;
		memcpy(&v, t + 4 * i, 4);
		w[i] = rte_be_to_cpu_32(v);
	}
}

static void
be_key(const uint8_t *key, uint32_t conv[10])
{
	uint32_t orig[10];

	memcpy(orig, key, 40);
	rte_convert_rss_key(orig, conv, 40);
}

uint32_t
F(dk_softrss)(const uint8_t *tuple, int tlen, const uint8_t *key)
{
	uint32_t w[9];

	to_words(tuple, tlen, w);
	return rte_softrss(w, (uint32_t)tlen / 4, key);
}

uint32_t
F(dk_softrss_be)(const uint8_t *tuple, int tlen, const uint8_t *key)
{
	uint32_t w[9], conv[10];

	to_words(tuple, tlen, w);
	be_key(key, conv);
	return rte_softrss_be(w, (uint32_t)tlen / 4, (const uint8_t *)conv);
}

/* Words for up to 1024 tuples of 36 bytes, prepared on first use of a set. */
static uint32_t words[1024 * 9];
static const uint8_t *words_of;
static int words_tlen;

static const uint32_t *
words_for(const uint8_t *tuples, int tlen, size_t n)
{
	if (n > 1024)
		return NULL;
	if (words_of != tuples || words_tlen != tlen) {
		for (size_t i = 0; i < n; i++)
			to_words(tuples + i * (size_t)tlen, tlen, words + i * (size_t)(tlen / 4));
		words_of = tuples;
		words_tlen = tlen;
	}
	return words;
}

uint64_t
F(dk_softrss_loop)(const uint8_t *tuples, int tlen, size_t n, const uint8_t *key)
{
	const uint32_t *w = words_for(tuples, tlen, n);
	uint32_t nw = (uint32_t)tlen / 4, acc = 0;

	if (w == NULL)
		return 0;
	for (size_t i = 0; i < n; i++)
		acc ^= rte_softrss((uint32_t *)(uintptr_t)(w + i * nw), nw, key);
	return acc;
}

uint64_t
F(dk_softrss_be_loop)(const uint8_t *tuples, int tlen, size_t n, const uint8_t *key)
{
	static uint32_t conv[10];
	static const uint8_t *conv_of;
	const uint32_t *w = words_for(tuples, tlen, n);
	uint32_t nw = (uint32_t)tlen / 4, acc = 0;

	if (w == NULL)
		return 0;
	if (conv_of != key) {
		be_key(key, conv);
		conv_of = key;
	}
	for (size_t i = 0; i < n; i++)
		acc ^= rte_softrss_be((uint32_t *)(uintptr_t)(w + i * nw), nw,
		    (const uint8_t *)conv);
	return acc;
}

#if defined(DK_NATIVE)
#if defined(__GFNI__) && defined(__AVX512F__)
/* gcc 12 warns inside DPDK's rte_thash_gfni_bulk() that the second tuple's
 * registers "may be used uninitialized": they are only read when a second
 * tuple is passed (DPDK's own code path), so the warning is a false positive
 * in a system header we do not own. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
static uint64_t mtrx[40];

int
dk_thash_gfni_built(void)
{
	return 1;
}

void
dk_thash_gfni_prepare(const uint8_t *key40)
{
	rte_thash_complete_matrix(mtrx, key40, 40);
}

uint32_t
dk_thash_gfni(const uint8_t *tuple, int tlen)
{
	return rte_thash_gfni(mtrx, tuple, tlen);
}

uint64_t
dk_thash_gfni_loop(const uint8_t *tuples, int tlen, size_t n)
{
	uint32_t acc = 0;

	for (size_t i = 0; i < n; i++)
		acc ^= rte_thash_gfni(mtrx, tuples + i * (size_t)tlen, tlen);
	return acc;
}

uint64_t
dk_thash_gfni_bulk_loop(const uint8_t *tuples, int tlen, size_t n)
{
	uint8_t *ptr[32];
	uint32_t val[32], acc = 0;

	for (size_t i = 0; i < n; i += 32) {
		uint32_t m = n - i < 32 ? (uint32_t)(n - i) : 32;
		for (uint32_t k = 0; k < m; k++)
			ptr[k] = (uint8_t *)(uintptr_t)(tuples + (i + k) * (size_t)tlen);
		rte_thash_gfni_bulk(mtrx, tlen, ptr, val, m);
		for (uint32_t k = 0; k < m; k++)
			acc ^= val[k];
	}
	return acc;
}
#else
int dk_thash_gfni_built(void) { return 0; }
void dk_thash_gfni_prepare(const uint8_t *key40) { (void)key40; }
uint32_t dk_thash_gfni(const uint8_t *t, int l) { (void)t; (void)l; return 0; }
uint64_t dk_thash_gfni_loop(const uint8_t *t, int l, size_t n) { (void)t; (void)l; (void)n; return 0; }
uint64_t dk_thash_gfni_bulk_loop(const uint8_t *t, int l, size_t n) { (void)t; (void)l; (void)n; return 0; }
#endif
#endif
