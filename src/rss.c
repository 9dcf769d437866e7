/* RSS: Toeplitz hash (bit-serial reference, per-byte tables, GFNI dispatch),
 * indirection table and packet hashing (rss.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "softoffload/rss.h"
#include "softoffload/pkt.h"
#include "csum_impl.h"
#include "rss_impl.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

SOFL_API const uint8_t sofl_rss_default_key[SOFL_RSS_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
	0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
	0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
	0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

static inline uint8_t
key_byte(const uint8_t *key, size_t key_len, size_t i)
{
	return i < key_len ? key[i] : 0;
}

/* The 32 key bits starting at bit @bit (bit 0 = MSB of key[0]). */
static uint32_t
key_window(const uint8_t *key, size_t key_len, size_t bit)
{
	size_t i = bit / 8;
	uint64_t w = 0;
	int k;

	for (k = 0; k < 5; k++)
		w = w << 8 | key_byte(key, key_len, i + (size_t)k);
	return (uint32_t)(w >> (8 - bit % 8));
}

SOFL_API uint32_t
sofl_rss_toeplitz(const void *key, size_t key_len, const void *in, size_t len)
{
	const uint8_t *k = key, *b = in;
	uint32_t h = 0;
	size_t i;

	if (!k)
		key_len = 0;
	if (!b)
		return 0;
	/* literally the specification: one key shift per input bit */
	for (i = 0; i < len * 8; i++)
		if (b[i / 8] & (0x80 >> (i % 8)))
			h ^= key_window(k, key_len, i);
	return h;
}

static void
build_tables(struct sofl_rss *r)
{
	uint32_t bit[8];
	unsigned p, v, k;

	for (p = 0; p < SOFL_RSS_INPUT_MAX; p++) {
		/* bit[k]: contribution of value bit k (k = 0 is the LSB) */
		for (k = 0; k < 8; k++)
			bit[k] = key_window(r->key, r->key_len, p * 8 + 7 - k);
		r->tab[p][0] = 0;
		for (v = 1; v < 256; v++)
			r->tab[p][v] = r->tab[p][v & (v - 1)] ^ bit[__builtin_ctz(v)];
	}
	/* GFNI: input byte p contributes to hash byte m (0 = most significant)
	 * through key bits 8(p+m) .. 8(p+m)+14 only, so one 8x8 matrix per
	 * q = p+m serves all pairs; row t (output bit 7-t) = key bits
	 * 8q+t .. 8q+t+7, stored in matrix byte t as GF2P8AFFINEQB wants. */
	for (p = 0; p < 40; p++) {
		uint32_t w = (uint32_t)key_byte(r->key, r->key_len, p) << 8 |
			     key_byte(r->key, r->key_len, p + 1);
		uint64_t m = 0;

		for (k = 0; k < 8; k++)
			m |= (uint64_t)((w << k) >> 8 & 0xff) << (8 * k);
		r->mat[p] = m;
	}
}

SOFL_API int
sofl_rss_impl_available(enum sofl_rss_impl impl)
{
	switch (impl) {
	case SOFL_RSS_IMPL_TABLE:
		return 1;
#if defined(__x86_64__)
	case SOFL_RSS_IMPL_GFNI: {
		unsigned a, b, c, d;

		if (!(sofl_cpu_features() & SOFL_CPU_GFNI))
			return 0;
		if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
			return 0;
		return !!(c & bit_AVX512VBMI);
	}
#endif
	default:
		return 0;
	}
}

static enum sofl_rss_impl
choose_impl(void)
{
	const char *env = getenv("SOFL_RSS_IMPL");

	if (env && !strcmp(env, "table"))
		return SOFL_RSS_IMPL_TABLE;
	if (sofl_rss_impl_available(SOFL_RSS_IMPL_GFNI))
		return SOFL_RSS_IMPL_GFNI;
	return SOFL_RSS_IMPL_TABLE;
}

static int
reta_size_ok(unsigned size)
{
	return size >= 1 && size <= SOFL_RSS_RETA_MAX && (size & (size - 1)) == 0;
}

SOFL_API int
sofl_rss_reta_fill(struct sofl_rss *r, unsigned size, unsigned nqueues)
{
	unsigned i;

	if (!r || !reta_size_ok(size) || nqueues < 1 || nqueues > SOFL_RSS_QUEUES_MAX)
		return SOFL_EINVAL;
	for (i = 0; i < size; i++)
		r->reta[i] = (uint16_t)(i % nqueues);
	r->reta_size = (uint16_t)size;
	r->nqueues = (uint16_t)nqueues;
	return 0;
}

SOFL_API int
sofl_rss_reta_weights(struct sofl_rss *r, unsigned size, const unsigned *weight, unsigned n)
{
	uint64_t total = 0, upto;
	unsigned i, q;

	if (!r || !weight || !reta_size_ok(size) || n < 1 || n > SOFL_RSS_QUEUES_MAX)
		return SOFL_EINVAL;
	for (q = 0; q < n; q++)
		total += weight[q];
	if (total == 0 || total > UINT32_MAX)
		return SOFL_EINVAL;
	q = 0;
	upto = weight[0];
	for (i = 0; i < size; i++) {
		/* the first queue whose cumulative share, rounded down as
		 * ethtool rounds it, lies above entry i */
		while (i >= (uint64_t)size * upto / total)
			upto += weight[++q];
		r->reta[i] = (uint16_t)q;
	}
	r->reta_size = (uint16_t)size;
	r->nqueues = (uint16_t)n;
	return 0;
}

SOFL_API int
sofl_rss_reta_set(struct sofl_rss *r, unsigned index, unsigned queue)
{
	if (!r || index >= r->reta_size || queue >= r->nqueues)
		return SOFL_EINVAL;
	r->reta[index] = (uint16_t)queue;
	return 0;
}

SOFL_API int
sofl_rss_reta_get(const struct sofl_rss *r, unsigned index)
{
	if (!r || index >= r->reta_size)
		return SOFL_EINVAL;
	return r->reta[index];
}

SOFL_API int
sofl_rss_init(struct sofl_rss *r, const void *key, size_t key_len, unsigned nqueues,
	      unsigned flags)
{
	if (!r || nqueues < 1 || nqueues > SOFL_RSS_QUEUES_MAX || (flags & ~SOFL_RSS_SYMMETRIC))
		return SOFL_EINVAL;
	if (!key) {
		if (key_len != 0 && key_len != SOFL_RSS_KEY_LEN)
			return SOFL_EINVAL;
		key = sofl_rss_default_key;
		key_len = SOFL_RSS_KEY_LEN;
	}
	if (key_len < SOFL_RSS_KEY_LEN || key_len > SOFL_RSS_KEY_MAX)
		return SOFL_EINVAL;
	memset(r->key, 0, sizeof(r->key));
	memcpy(r->key, key, key_len);
	r->key_len = (uint16_t)key_len;
	r->flags = (uint8_t)flags;
	r->impl = (uint8_t)choose_impl();
	build_tables(r);
	return sofl_rss_reta_fill(r, SOFL_RSS_RETA_DEFAULT, nqueues);
}

SOFL_API int
sofl_rss_set_impl(struct sofl_rss *r, enum sofl_rss_impl impl)
{
	if (!r || (impl != SOFL_RSS_IMPL_TABLE && impl != SOFL_RSS_IMPL_GFNI))
		return SOFL_EINVAL;
	if (!sofl_rss_impl_available(impl))
		return SOFL_ENOTSUP;
	r->impl = (uint8_t)impl;
	return 0;
}

SOFL_API const char *
sofl_rss_impl_name(const struct sofl_rss *r)
{
	return r && r->impl == SOFL_RSS_IMPL_GFNI ? "gfni" : "table";
}

/* Table path: one lookup per input byte, four independent chains. */
static inline uint32_t
hash_table(const struct sofl_rss *r, const uint8_t *b, size_t len)
{
	uint32_t h0 = 0, h1 = 0, h2 = 0, h3 = 0;
	size_t i = 0;

	for (; i + 4 <= len; i += 4) {
		h0 ^= r->tab[i][b[i]];
		h1 ^= r->tab[i + 1][b[i + 1]];
		h2 ^= r->tab[i + 2][b[i + 2]];
		h3 ^= r->tab[i + 3][b[i + 3]];
	}
	for (; i < len; i++)
		h0 ^= r->tab[i][b[i]];
	return h0 ^ h1 ^ h2 ^ h3;
}

static inline uint32_t
hash_impl(const struct sofl_rss *r, const uint8_t *b, size_t len)
{
#if defined(__x86_64__)
	if (r->impl == SOFL_RSS_IMPL_GFNI)
		return sofl_rss_gfni(r->mat, b, len);
#endif
	return hash_table(r, b, len);
}

SOFL_API int
sofl_rss_hash_bytes(const struct sofl_rss *r, const void *in, size_t len, uint32_t *hash)
{
	if (!r || !hash || (!in && len) || len > SOFL_RSS_INPUT_MAX)
		return SOFL_EINVAL;
	*hash = len ? hash_impl(r, in, len) : 0;
	return 0;
}

/* Builds the hash input of @p into buf; @return its length, 0 = no hash. */
static inline size_t
tuple(const struct sofl_rss *r, const struct sofl_pkt *p, uint8_t buf[SOFL_RSS_INPUT_MAX],
      uint8_t *type)
{
	const struct sofl_flow_key *k = &p->key;
	size_t alen;
	int ports, swap;
	uint16_t sp, dp;

	if (!(p->layers & SOFL_LAYER_L3) || (k->family != 4 && k->family != 6)) {
		*type = SOFL_RSS_NONE;
		return 0;
	}
	alen = k->family == 4 ? 4 : 16;
	ports = (p->layers & SOFL_LAYER_L4) && !p->is_frag &&
		(p->l4_proto == 6 || p->l4_proto == 17);
	if (!ports)
		*type = k->family == 4 ? SOFL_RSS_IPV4 : SOFL_RSS_IPV6;
	else if (p->l4_proto == 6)
		*type = k->family == 4 ? SOFL_RSS_IPV4_TCP : SOFL_RSS_IPV6_TCP;
	else
		*type = k->family == 4 ? SOFL_RSS_IPV4_UDP : SOFL_RSS_IPV6_UDP;
	swap = (r->flags & SOFL_RSS_SYMMETRIC) && memcmp(k->src, k->dst, alen) > 0;
	memcpy(buf, swap ? k->dst : k->src, alen);
	memcpy(buf + alen, swap ? k->src : k->dst, alen);
	if (!ports)
		return 2 * alen;
	sp = k->sport;
	dp = k->dport;
	if ((r->flags & SOFL_RSS_SYMMETRIC) && sp > dp) {
		sp = k->dport;
		dp = k->sport;
	}
	buf[2 * alen] = (uint8_t)(sp >> 8);
	buf[2 * alen + 1] = (uint8_t)sp;
	buf[2 * alen + 2] = (uint8_t)(dp >> 8);
	buf[2 * alen + 3] = (uint8_t)dp;
	return 2 * alen + 4;
}

static inline int
rss_one(const struct sofl_rss *r, const struct sofl_pkt *p, struct sofl_rss_out *out)
{
	uint8_t buf[SOFL_RSS_INPUT_MAX];
	size_t len = tuple(r, p, buf, &out->type);

	out->pad_ = 0;
	if (!len) {
		out->hash = 0;
		out->queue = 0;
		return SOFL_RSS_NONE;
	}
	out->hash = hash_impl(r, buf, len);
	out->queue = (uint16_t)sofl_rss_queue(r, out->hash);
	return out->type;
}

SOFL_API int
sofl_rss_pkt(const struct sofl_rss *r, const struct sofl_pkt *p, struct sofl_rss_out *out)
{
	if (!r || !p || !out)
		return SOFL_EINVAL;
	return rss_one(r, p, out);
}

SOFL_API int
sofl_rss_burst(const struct sofl_rss *r, const struct sofl_pkt *pkts, size_t n,
	       struct sofl_rss_out *out)
{
	size_t i;
	int hashed = 0;

	if (n > INT_MAX || (n && (!r || !pkts || !out)))
		return SOFL_EINVAL;
	for (i = 0; i < n; i++)
		hashed += rss_one(r, &pkts[i], &out[i]) != SOFL_RSS_NONE;
	return hashed;
}
