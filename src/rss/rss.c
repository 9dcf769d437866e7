/* RSS: Toeplitz hash (bit-serial reference, per-byte tables, GFNI dispatch),
 * indirection table and packet hashing (rss.h). */
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "softoffload/rss.h"
#include "softoffload/pkt.h"
#include "softoffload/bytes.h"
#include "pkt/pkt_impl.h"
#include "base/cfg.h"
#include "base/cpu.h"
#include "rss_gfni.h"

/* The engine (opaque in rss.h).  Hot first: the tables; the scalars the
 * hashing calls read sit together at the end.  Allocated 64-byte aligned,
 * so that the GFNI matrices span 5 cache lines, not 6. */
struct sofl_rss {
	uint32_t tab[SOFL_RSS_INPUT_MAX][256];	/* per byte position */
	uint64_t mat[40];	/* GFNI: 8x8 bit matrix per key byte position */
	uint16_t reta[SOFL_RSS_RETA_MAX];
	uint8_t  key[SOFL_RSS_KEY_MAX];
	uint16_t key_len;
	uint16_t reta_size;	/* power of two */
	uint16_t nqueues;
	uint8_t  flags;		/* SOFL_RSS_F_SYMMETRIC, SOFL_RSS_F_INNER */
	uint8_t  impl;		/* enum sofl_rss_impl */
};

#define RSS_ALIGN 64

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
	case SOFL_RSS_IMPL_GFNI:
	case SOFL_RSS_IMPL_MIXED:
		return sofl_cpu_has(SOFL_CPU_GFNI | SOFL_CPU_VBMI | SOFL_CPU_BMI2);
#endif
	default:
		return 0;
	}
}

static const char *const impl_names[] = {
	[SOFL_RSS_IMPL_TABLE] = "table",
	[SOFL_RSS_IMPL_GFNI] = "gfni",
	[SOFL_RSS_IMPL_MIXED] = "mixed",
};

static enum sofl_rss_impl
choose_impl(void)
{
	const char *env = getenv("SOFL_RSS_IMPL");
	int i;

	for (i = 0; env && i < (int)(sizeof(impl_names) / sizeof(impl_names[0])); i++)
		if (!strcmp(env, impl_names[i]) && sofl_rss_impl_available((enum sofl_rss_impl)i))
			return (enum sofl_rss_impl)i;
	/* "mixed" where GFNI is usable: docs/benchmarks.md has the figures */
	if (sofl_rss_impl_available(SOFL_RSS_IMPL_MIXED))
		return SOFL_RSS_IMPL_MIXED;
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
		return SOFL_E_INVAL;
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
		return SOFL_E_INVAL;
	for (q = 0; q < n; q++)
		total += weight[q];
	if (total == 0 || total > UINT32_MAX)
		return SOFL_E_INVAL;
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
		return SOFL_E_INVAL;
	r->reta[index] = (uint16_t)queue;
	return 0;
}

SOFL_API int
sofl_rss_reta_get(const struct sofl_rss *r, unsigned index)
{
	if (!r || index >= r->reta_size)
		return SOFL_E_INVAL;
	return r->reta[index];
}

static inline unsigned
queue_of(const struct sofl_rss *r, uint32_t hash)
{
	return r->reta[hash & (uint32_t)(r->reta_size - 1)];
}

SOFL_API unsigned
sofl_rss_queue(const struct sofl_rss *r, uint32_t hash)
{
	return r ? queue_of(r, hash) : 0;
}

SOFL_API unsigned
sofl_rss_reta_size(const struct sofl_rss *r)
{
	return r ? r->reta_size : 0;
}

SOFL_API unsigned
sofl_rss_nqueues(const struct sofl_rss *r)
{
	return r ? r->nqueues : 0;
}

SOFL_API void
sofl_rss_config_init(struct sofl_rss_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	cfg->nqueues = 1;
}

/* The smallest struct sofl_rss_config accepted: the first one (0.4.0, up
 * to key).  Fields appended later get their defaults when an older
 * program's struct ends before them. */
#define RSS_CONFIG_SIZE0 (offsetof(struct sofl_rss_config, key) + sizeof(const void *))

SOFL_API int
sofl_rss_create(const struct sofl_rss_config *cfg, struct sofl_rss **out)
{
	struct sofl_rss_config c;
	struct sofl_rss *r;
	const void *key;
	size_t key_len;
	/* aligned_alloc() wants a multiple of the alignment */
	size_t sz = (sizeof(*r) + RSS_ALIGN - 1) & ~(size_t)(RSS_ALIGN - 1);
	int err;

	if (!out)
		return SOFL_E_INVAL;
	*out = NULL;
	sofl_rss_config_init(&c);
	if (cfg && (err = sofl_cfg_copy(&c, sizeof(c), cfg, cfg->size, RSS_CONFIG_SIZE0)) != 0)
		return err;
	if (c.nqueues < 1 || c.nqueues > SOFL_RSS_QUEUES_MAX || (c.flags & ~(SOFL_RSS_F_SYMMETRIC | SOFL_RSS_F_INNER)))
		return SOFL_E_INVAL;
	key = c.key;
	key_len = c.key_len;
	if (!key) {
		if (key_len != 0 && key_len != SOFL_RSS_KEY_LEN)
			return SOFL_E_INVAL;
		key = sofl_rss_default_key;
		key_len = SOFL_RSS_KEY_LEN;
	}
	if (key_len < SOFL_RSS_KEY_LEN || key_len > SOFL_RSS_KEY_MAX)
		return SOFL_E_INVAL;
	if (!(r = aligned_alloc(RSS_ALIGN, sz)))
		return SOFL_E_NOMEM;
	memset(r, 0, sizeof(*r));
	memcpy(r->key, key, key_len);
	r->key_len = (uint16_t)key_len;
	r->flags = (uint8_t)c.flags;
	r->impl = (uint8_t)choose_impl();
	build_tables(r);
	sofl_rss_reta_fill(r, SOFL_RSS_RETA_DEFAULT, c.nqueues);	/* valid: checked above */
	*out = r;
	return 0;
}

SOFL_API void
sofl_rss_destroy(struct sofl_rss *r)
{
	free(r);
}

SOFL_API int
sofl_rss_set_impl(struct sofl_rss *r, enum sofl_rss_impl impl)
{
	if (!r || (unsigned)impl >= sizeof(impl_names) / sizeof(impl_names[0]))
		return SOFL_E_INVAL;
	if (!sofl_rss_impl_available(impl))
		return SOFL_E_NOTSUP;
	r->impl = (uint8_t)impl;
	return 0;
}

SOFL_API const char *
sofl_rss_impl_name(const struct sofl_rss *r)
{
	return r && r->impl < sizeof(impl_names) / sizeof(impl_names[0]) ?
	       impl_names[r->impl] : "table";
}

/* Table path: one lookup per input byte, XORed in two chains. */
static inline __attribute__((always_inline)) uint32_t
hash_table(const struct sofl_rss *r, const uint8_t *b, size_t len)
{
	uint32_t h0 = 0, h1 = 0;
	size_t i = 0;

	if (len > SOFL_RSS_INPUT_MAX)	/* the callers' checks, told to the optimizer */
		__builtin_unreachable();
	/* fully unrolled for the constant lengths (gcc -O2 would keep a loop) */
#pragma GCC unroll 18
	for (; i + 2 <= len; i += 2) {
		h0 ^= r->tab[i][b[i]];
		h1 ^= r->tab[i + 1][b[i + 1]];
	}
	if (len & 1)
		h0 ^= r->tab[i][b[i]];
	return h0 ^ h1;
}

/* The four standard lengths get unrolled code. */
static uint32_t
hash_table_any(const struct sofl_rss *r, const uint8_t *b, size_t len)
{
	switch (len) {
	case 8:  return hash_table(r, b, 8);
	case 12: return hash_table(r, b, 12);
	case 32: return hash_table(r, b, 32);
	case 36: return hash_table(r, b, 36);
	default: return hash_table(r, b, len);
	}
}

/* Does @r hash inputs of @len bytes with GFNI? */
static inline int
use_gfni(const struct sofl_rss *r, size_t len)
{
	return r->impl == SOFL_RSS_IMPL_GFNI || (r->impl == SOFL_RSS_IMPL_MIXED && len > 12);
}

static inline uint32_t
hash_impl(const struct sofl_rss *r, const uint8_t *b, size_t len)
{
#if defined(__x86_64__)
	if (use_gfni(r, len))
		return sofl_rss_gfni(r->mat, b, len);
#endif
	return hash_table_any(r, b, len);
}

SOFL_API int
sofl_rss_hash_bytes(const struct sofl_rss *r, const void *in, size_t len, uint32_t *hash)
{
	if (!r || !hash || (!in && len) || len > SOFL_RSS_INPUT_MAX)
		return SOFL_E_INVAL;
#if defined(__x86_64__)
	if (len && use_gfni(r, len))
		return sofl_rss_gfni_to(r->mat, in, len, hash);
#endif
	*hash = len ? hash_impl(r, in, len) : 0;
	return 0;
}

SOFL_API int
sofl_rss_hash_bytes_batch(const struct sofl_rss *r, const void *const *in, size_t len, size_t n,
		   uint32_t *hash)
{
	size_t i;

	if (len > SOFL_RSS_INPUT_MAX || (n && (!r || !in || !hash)))
		return SOFL_E_INVAL;
	if (n == 0)
		return 0;
	for (i = 0; i < n; i++)
		if (!in[i] && len)
			return SOFL_E_INVAL;
	if (!len) {
		memset(hash, 0, n * sizeof(*hash));
		return 0;
	}
#if defined(__x86_64__)
	/* in pairs (rss_gfni.c) GFNI wins at every length: "mixed" uses it too */
	if (r->impl != SOFL_RSS_IMPL_TABLE) {
		sofl_rss_gfni_bulk(r->mat, in, len, n, hash);
		return 0;
	}
#endif
	for (i = 0; i < n; i++)
		hash[i] = hash_table_any(r, in[i], len);
	return 0;
}

/* Table path straight from the flow key's fields (no tuple buffer: reading
 * back bytes just stored one by one would stall store forwarding). */
static inline __attribute__((always_inline)) uint32_t
hash_key_table(const struct sofl_rss *r, const uint8_t *a, const uint8_t *b, size_t alen,
	       int ports, uint16_t sp, uint16_t dp)
{
	uint32_t h = 0;
	size_t i;

#pragma GCC unroll 16
	for (i = 0; i < alen; i++)
		h ^= r->tab[i][a[i]] ^ r->tab[alen + i][b[i]];
	if (ports)
		h ^= r->tab[2 * alen][sp >> 8] ^ r->tab[2 * alen + 1][sp & 0xff] ^
		     r->tab[2 * alen + 2][dp >> 8] ^ r->tab[2 * alen + 3][dp & 0xff];
	return h;
}

/* a > b as big-endian numbers of 4 or 16 bytes (the symmetric sort). */
static inline int
addr_gt(const uint8_t *a, const uint8_t *b, size_t alen)
{
	return memcmp(a, b, alen) > 0;
}

/* What a packet hashes over: the type, the layout of its input
 * (SOFL_RSS_L_*), and the symmetric-mode swaps. */
struct sel {
	int type, layout, swap_addr, swap_port;
};

/* The 2-tuple of flow key @k (type, layout, address swap).  @return 0 (not
 * IPv4/IPv6: no hash) or 1, *s filled. */
static inline int
select_addrs(const struct sofl_rss *r, const struct sofl_flow_key *k, struct sel *s)
{
	int v6;

	if (k->family != 4 && k->family != 6)
		return 0;
	v6 = k->family == 6;
	s->type = v6 ? SOFL_RSS_IPV6 : SOFL_RSS_IPV4;
	s->layout = 2 * v6;
	s->swap_addr = (r->flags & SOFL_RSS_F_SYMMETRIC) && addr_gt(k->src, k->dst, v6 ? 16 : 4);
	s->swap_port = 0;
	return 1;
}

/* Widens *s to the 4-tuple of @proto (6 TCP or 17 UDP: the callers check). */
static inline void
select_ports(const struct sofl_rss *r, const struct sofl_flow_key *k, int proto, struct sel *s)
{
	s->type += proto == 6 ? 1 : 2;
	s->layout += 1;
	s->swap_port = (r->flags & SOFL_RSS_F_SYMMETRIC) && k->sport > k->dport;
}

/* The outer tuple of a tunnel packet (SOFL_LAYER_ENCAP), read from the
 * frame into *k (zeroed first): the outer addresses, the outer protocol and,
 * for a UDP tunnel, the outer ports.  The parser never makes an outer
 * fragment a tunnel packet, so the rules of a plain packet give: UDP
 * 4-tuple for VXLAN/Geneve, 2-tuple for IP-in-IP (protocol 4 or 41).
 * @return 0 (outer headers not within the frame: no hash) or 1, *s filled. */
static __attribute__((noinline)) int
select_outer(const struct sofl_rss *r, const struct sofl_pkt *p, struct sel *s,
	     struct sofl_flow_key *k)
{
	int v6 = p->outer_ipv == 6;

	memset(k, 0, sizeof(*k));
	if ((p->outer_ipv != 4 && !v6) || !p->data ||
	    (uint32_t)p->outer_l3_off + (v6 ? 40u : 20u) > p->len)
		return 0;
	pk_outer_key(p, k);
	select_addrs(r, k, s);	/* family 4 or 6: always 1 */
	if (p->outer_proto == 17 && p->outer_l4_off) {
		if ((uint32_t)p->outer_l4_off + 4 > p->len)
			return 0;
		k->sport = sofl_get16(p->data + p->outer_l4_off);
		k->dport = sofl_get16(p->data + p->outer_l4_off + 2);
		select_ports(r, k, 17, s);
	}
	return 1;
}

/* The input of a packet hashed on p->key.  @return 1 (*s filled), 0 (no
 * hash) or -1: a tunnel packet hashed on its outer header, read from the
 * frame (select_outer()), which it is unless inner RSS is asked for and the
 * inner packet has an IP header to hash.  Plain IP packets pass one test
 * of the layer bits, as before tunnels existed. */
static inline int
select_key(const struct sofl_rss *r, const struct sofl_pkt *p, struct sel *s)
{
	unsigned l = p->layers;

	if (__builtin_expect((l & (SOFL_LAYER_L3 | SOFL_LAYER_ENCAP)) != SOFL_LAYER_L3, 0)) {
		if (!(l & SOFL_LAYER_ENCAP))
			return 0;	/* no IP header */
		if (!(r->flags & SOFL_RSS_F_INNER) || !(l & SOFL_LAYER_L3))
			return -1;
	}
	if (!select_addrs(r, &p->key, s))
		return 0;
	/* fragments, even the first, hash on addresses only: the later ones
	 * carry no ports and must land on the same queue */
	if ((p->layers & SOFL_LAYER_L4) && !p->is_frag && (p->l4_proto == 6 || p->l4_proto == 17))
		select_ports(r, &p->key, p->l4_proto, s);
	return 1;
}

/* A parsed packet's input: the key to hash (*kp: p->key, or @tmp filled
 * with a tunnel packet's outer tuple), its type, layout and swaps.
 * @return 0 (no hash) or 1, *s and *kp filled. */
static inline int
select_input(const struct sofl_rss *r, const struct sofl_pkt *p, struct sel *s,
	     struct sofl_flow_key *tmp, const struct sofl_flow_key **kp)
{
	int k = select_key(r, p, s);

	*kp = &p->key;
	if (k >= 0)
		return k;
	*kp = tmp;
	return select_outer(r, p, s, tmp);
}

/* A flow key's input: the 4-tuple of k->proto when @ports, else the 2-tuple.
 * @return 0 (family not 4 or 6, or @ports with a proto neither TCP nor UDP:
 * sofl_rss_hash_tuple() refuses those) or 1, *s filled. */
static inline int
select_tuple(const struct sofl_rss *r, const struct sofl_flow_key *k, int ports, struct sel *s)
{
	if ((ports && k->proto != 6 && k->proto != 17) || !select_addrs(r, k, s))
		return 0;
	if (ports)
		select_ports(r, k, k->proto, s);
	return 1;
}

static inline uint32_t
hash_sel(const struct sofl_rss *r, const struct sofl_flow_key *k, const struct sel *s)
{
	int sa = s->swap_addr, sw = s->swap_port, ports = s->layout & 1;

#if defined(__x86_64__)
	if (use_gfni(r, s->layout >= SOFL_RSS_L_V6 ? 32 : 8))
		return sofl_rss_gfni_key(r->mat, k, s->layout, sa, sw);
#endif
	if (s->layout >= SOFL_RSS_L_V6)
		return hash_key_table(r, sa ? k->dst : k->src, sa ? k->src : k->dst, 16, ports,
				      sw ? k->dport : k->sport, sw ? k->sport : k->dport);
	return hash_key_table(r, sa ? k->dst : k->src, sa ? k->src : k->dst, 4, ports,
			      sw ? k->dport : k->sport, sw ? k->sport : k->dport);
}

static inline void
set_out(const struct sofl_rss *r, struct sofl_rss_out *out, int type, uint32_t h)
{
	out->pad_ = 0;
	out->type = (uint8_t)type;
	out->hash = h;
	out->queue = type ? (uint16_t)queue_of(r, h) : 0;
}

/* A tunnel packet hashed on its outer tuple (out of line: cold). */
static __attribute__((noinline)) int
rss_outer(const struct sofl_rss *r, const struct sofl_pkt *p, struct sofl_rss_out *out)
{
	struct sofl_flow_key k;
	struct sel s;

	if (!select_outer(r, p, &s, &k)) {
		set_out(r, out, SOFL_RSS_NONE, 0);
		return SOFL_RSS_NONE;
	}
	set_out(r, out, s.type, hash_sel(r, &k, &s));
	return s.type;
}

static inline int
rss_one(const struct sofl_rss *r, const struct sofl_pkt *p, struct sofl_rss_out *out)
{
	struct sel s;
	int k = select_key(r, p, &s);

	if (k < 0)
		return rss_outer(r, p, out);
	if (!k) {
		set_out(r, out, SOFL_RSS_NONE, 0);
		return SOFL_RSS_NONE;
	}
	set_out(r, out, s.type, hash_sel(r, &p->key, &s));
	return s.type;
}

SOFL_API int
sofl_rss_input(const struct sofl_rss *r, const struct sofl_pkt *p,
	       uint8_t in[SOFL_RSS_INPUT_MAX], size_t *len)
{
	const struct sofl_flow_key *k;
	struct sofl_flow_key tmp;
	struct sel s;
	size_t alen, n;
	uint16_t sp, dp;

	if (!r || !p || !in || !len)
		return SOFL_E_INVAL;
	*len = 0;
	if (!select_input(r, p, &s, &tmp, &k))
		return SOFL_RSS_NONE;
	alen = s.layout >= SOFL_RSS_L_V6 ? 16 : 4;
	n = 2 * alen + (s.layout & 1 ? 4 : 0);
	memcpy(in, s.swap_addr ? k->dst : k->src, alen);
	memcpy(in + alen, s.swap_addr ? k->src : k->dst, alen);
	if (s.layout & 1) {
		sp = s.swap_port ? k->dport : k->sport;
		dp = s.swap_port ? k->sport : k->dport;
		in[2 * alen] = (uint8_t)(sp >> 8);
		in[2 * alen + 1] = (uint8_t)sp;
		in[2 * alen + 2] = (uint8_t)(dp >> 8);
		in[2 * alen + 3] = (uint8_t)dp;
	}
	*len = n;
	return s.type;
}

SOFL_API int
sofl_rss_pkt_key(const struct sofl_rss *r, const struct sofl_pkt *p, struct sofl_flow_key *k)
{
	const struct sofl_flow_key *src;
	struct sofl_flow_key tmp;
	struct sel s;

	if (!r || !p || !k)
		return SOFL_E_INVAL;
	if (!select_input(r, p, &s, &tmp, &src)) {
		memset(k, 0, sizeof(*k));
		return SOFL_RSS_NONE;
	}
	memset(k, 0, sizeof(*k));
	k->family = src->family;
	k->proto = src->proto;
	memcpy(k->src, src->src, sizeof(k->src));
	memcpy(k->dst, src->dst, sizeof(k->dst));
	if (s.layout & 1) {
		k->sport = src->sport;
		k->dport = src->dport;
	}
	return s.type;
}

SOFL_API uint16_t
sofl_rss_encap_sport(uint32_t hash, uint16_t min, uint16_t max)
{
	if (min >= max) {
		min = SOFL_RSS_SPORT_MIN;
		max = SOFL_RSS_SPORT_MAX;
	}
	/* udp_flow_src_port(): fold the low half into the high one (only the
	 * high bits count below), then scale into [min, max) */
	hash ^= hash << 16;
	return (uint16_t)(min + (((uint64_t)hash * (uint32_t)(max - min)) >> 32));
}

SOFL_API int
sofl_rss_pkt(const struct sofl_rss *r, const struct sofl_pkt *p, struct sofl_rss_out *out)
{
	if (!r || !p || !out)
		return SOFL_E_INVAL;
	return rss_one(r, p, out);
}

SOFL_API int
sofl_rss_hash_tuple(const struct sofl_rss *r, const struct sofl_flow_key *k, int with_ports,
		    struct sofl_rss_out *out)
{
	struct sel s;

	if (!r || !k || !out || (with_ports != 0 && with_ports != 1) ||
	    !select_tuple(r, k, with_ports, &s))
		return SOFL_E_INVAL;
	set_out(r, out, s.type, hash_sel(r, k, &s));
	return s.type;
}

#if defined(__x86_64__)
/* GFNI: two tuples per affine pass, as burst_gfni() pairs packets. */
static int
tuples_gfni(const struct sofl_rss *r, const struct sofl_flow_key *k, size_t n, int ports,
	    struct sofl_rss_out *out)
{
	struct sel a, b;
	size_t i = 0;
	int hashed = 0;

	while (i < n) {
		if (!select_tuple(r, &k[i], ports, &a)) {
			set_out(r, &out[i++], SOFL_RSS_NONE, 0);
			continue;
		}
		if (i + 1 < n && select_tuple(r, &k[i + 1], ports, &b)) {
			uint64_t h = sofl_rss_gfni_key2(r->mat, &k[i], a.layout, a.swap_addr,
							a.swap_port, &k[i + 1], b.layout, b.swap_addr,
							b.swap_port);

			set_out(r, &out[i], a.type, (uint32_t)h);
			set_out(r, &out[i + 1], b.type, (uint32_t)(h >> 32));
			hashed += 2;
			i += 2;
			continue;
		}
		set_out(r, &out[i], a.type, hash_sel(r, &k[i], &a));
		hashed++;
		i++;
	}
	return hashed;
}
#endif

SOFL_API int
sofl_rss_hash_tuple_batch(const struct sofl_rss *r, const struct sofl_flow_key *k, size_t n,
		     int with_ports, struct sofl_rss_out *out)
{
	struct sel s;
	size_t i;
	int hashed = 0;

	if (n > INT_MAX || (with_ports != 0 && with_ports != 1) || (n && (!r || !k || !out)))
		return SOFL_E_INVAL;
#if defined(__x86_64__)
	if (n && r->impl != SOFL_RSS_IMPL_TABLE)
		return tuples_gfni(r, k, n, with_ports, out);
#endif
	for (i = 0; i < n; i++) {
		if (!select_tuple(r, &k[i], with_ports, &s)) {
			set_out(r, &out[i], SOFL_RSS_NONE, 0);
			continue;
		}
		set_out(r, &out[i], s.type, hash_sel(r, &k[i], &s));
		hashed++;
	}
	return hashed;
}

#if defined(__x86_64__)
/* GFNI bursts: two packets per affine pass when both hash (rss_gfni.c). */
static int
burst_gfni(const struct sofl_rss *r, const struct sofl_pkt *pkts, size_t n,
	   struct sofl_rss_out *out)
{
	struct sel a, b;
	size_t i = 0;
	int hashed = 0;

	while (i < n) {
		int k = select_key(r, &pkts[i], &a);

		/* tunnel packets hashed on their outer header go alone (rare);
		 * the pairs below read p->key */
		if (k <= 0) {
			if (k < 0)
				hashed += rss_outer(r, &pkts[i], &out[i]) != SOFL_RSS_NONE;
			else
				set_out(r, &out[i], SOFL_RSS_NONE, 0);
			i++;
			continue;
		}
		if (i + 1 < n && select_key(r, &pkts[i + 1], &b) > 0) {
			uint64_t h = sofl_rss_gfni_key2(r->mat, &pkts[i].key, a.layout, a.swap_addr,
							a.swap_port, &pkts[i + 1].key, b.layout,
							b.swap_addr, b.swap_port);

			set_out(r, &out[i], a.type, (uint32_t)h);
			set_out(r, &out[i + 1], b.type, (uint32_t)(h >> 32));
			hashed += 2;
			i += 2;
			continue;
		}
		set_out(r, &out[i], a.type, hash_sel(r, &pkts[i].key, &a));
		hashed++;
		i++;
	}
	return hashed;
}
#endif

SOFL_API int
sofl_rss_pkt_batch(const struct sofl_rss *r, const struct sofl_pkt *pkts, size_t n,
	       struct sofl_rss_out *out)
{
	size_t i;
	int hashed = 0;

	if (n > INT_MAX || (n && (!r || !pkts || !out)))
		return SOFL_E_INVAL;
	if (n == 0)
		return 0;
#if defined(__x86_64__)
	if (r->impl != SOFL_RSS_IMPL_TABLE)
		return burst_gfni(r, pkts, n, out);
#endif
	for (i = 0; i < n; i++)
		hashed += rss_one(r, &pkts[i], &out[i]) != SOFL_RSS_NONE;
	return hashed;
}
