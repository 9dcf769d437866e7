/* Checksum API: run-time dispatch to the per-ISA kernels, pseudo-headers,
 * incremental updates and packet-level helpers (csum.h). */
#include <stdlib.h>
#include <string.h>
#include "softoffload/csum.h"
#include "softoffload/pkt.h"
#include "base/cpu.h"
#include "csum_impl.h"
#include "csum_kern.h"
#include "csum_avx512_pkt.h"	/* ok_avx512: the packet-sized sum inline */

struct impl {
	const char *name;
	sofl_csum_kernel_fn sum;
	sofl_csum_copy_fn copy;
	sofl_csum_resid_fn resid;
	int (*ok)(uint32_t sum, const void *buf, size_t len);	/* sofl_csum_ok() */
};

/* Residue kernels (csum_kern.h) of the portable and AVX2 implementations:
 * the generic kernel's 64-bit end-around-carry word sum as it is; the AVX2
 * kernel's sum with sum = 0, which is the folded memory-order sum
 * byte-swapped (nothing to carry), swapped back. */
static uint64_t
resid_generic(const void *buf, size_t len)
{
	return sofl_csum_words64(buf, len);
}

#if defined(__x86_64__)
static uint64_t
resid_avx2(const void *buf, size_t len)
{
	uint32_t t = sofl_csum_avx2(0, buf, len);

	return ((t & 0xff) << 8) | (t >> 8);
}
#endif

/* The verifiers behind sofl_csum_ok(), one per implementation so that the
 * public call is one indirect jump, as sofl_csum_add() is: the portable and
 * AVX-512 ones from their residue kernels (sofl_csum_verify()'s proof),
 * the AVX2 one from its sum (its residue is that sum swapped back). */
static int
resid_ok(uint64_t resid, uint32_t sum)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return sofl_fold64(sofl_adc64(resid, sum)) == 0xffff;
#else
	return sofl_fold64(sofl_adc64(resid, (uint64_t)sum << 8)) == 0xffff;
#endif
}

static int
ok_generic(uint32_t sum, const void *buf, size_t len)
{
	if (len <= SOFL_CSUM_INLINE_MAX)
		return sofl_csum_ok_small(sum, buf, len);
	return resid_ok(sofl_csum_words64(buf, len), sum);
}

#if defined(__x86_64__)
static int
ok_avx2(uint32_t sum, const void *buf, size_t len)
{
	if (len <= SOFL_CSUM_INLINE_MAX)
		return sofl_csum_ok_small(sum, buf, len);
	return sofl_csum_fold(sofl_csum_avx2(sum, buf, len)) == 0xffff;
}

/* (packet-sized buffers summed inline: a verifier per packet, as a GRO
 * train's, then makes one call, not two) */
static SOFL_PKT_TARGET int
ok_avx512(uint32_t sum, const void *buf, size_t len)
{
	if (len <= SOFL_CSUM_INLINE_MAX)
		return sofl_csum_ok_small(sum, buf, len);
	if (SOFL_PKT_LEN(len))
		return resid_ok(sofl_pkt_sum(buf, len), sum);
	return resid_ok(sofl_csum_resid_avx512(buf, len), sum);
}
#endif

static const struct impl impls[] = {
	[SOFL_CSUM_GENERIC] = { "generic", sofl_csum_generic, sofl_csum_copy_generic, resid_generic,
				ok_generic },
#if defined(__x86_64__)
	[SOFL_CSUM_AVX2]    = { "avx2", sofl_csum_avx2, sofl_csum_copy_avx2, resid_avx2, ok_avx2 },
	[SOFL_CSUM_AVX512]  = { "avx512", sofl_csum_avx512, sofl_csum_copy_avx512,
				sofl_csum_resid_avx512, ok_avx512 },
#endif
};

/* The kernels in use.  They start as resolvers that choose an implementation
 * on first use; afterwards sofl_csum_add() is one indirect jump (a tail
 * call: kernels share its signature). */
static uint32_t resolve_sum(uint32_t sum, const void *buf, size_t len);
static uint32_t resolve_copy(void *dst, const void *src, size_t len, uint32_t sum);
static uint64_t resolve_resid(const void *buf, size_t len);
static int resolve_ok(uint32_t sum, const void *buf, size_t len);
static sofl_csum_kernel_fn sum_fn = resolve_sum;
static sofl_csum_copy_fn copy_fn = resolve_copy;
static sofl_csum_resid_fn resid_fn = resolve_resid;
static int (*ok_fn)(uint32_t sum, const void *buf, size_t len) = resolve_ok;
static const struct impl *cur;

SOFL_API int
sofl_csum_impl_available(enum sofl_csum_impl impl)
{
	unsigned f = sofl_cpu_features();

	switch (impl) {
	case SOFL_CSUM_GENERIC: return 1;
#if defined(__x86_64__)
	case SOFL_CSUM_AVX2:    /* the AVX2 file is built with -mbmi2 too */
		return (f & (SOFL_CPU_AVX2 | SOFL_CPU_BMI2)) == (SOFL_CPU_AVX2 | SOFL_CPU_BMI2);
	case SOFL_CSUM_AVX512:	/* hands buffers >= 4 MiB to the AVX2 kernel */
		return (f & (SOFL_CPU_AVX512BW | SOFL_CPU_VNNI | SOFL_CPU_BMI2 | SOFL_CPU_AVX2)) ==
		       (SOFL_CPU_AVX512BW | SOFL_CPU_VNNI | SOFL_CPU_BMI2 | SOFL_CPU_AVX2);
#endif
	default: return 0;
	}
}

static const struct impl *
choose(void)
{
	const char *env = getenv("SOFL_CSUM_IMPL");
	int i;

	if (env) {
		for (i = (int)(sizeof(impls) / sizeof(impls[0])) - 1; i >= 0; i--)
			if (impls[i].name && !strcmp(env, impls[i].name) &&
			    sofl_csum_impl_available((enum sofl_csum_impl)i))
				return &impls[i];
	}
	for (i = (int)(sizeof(impls) / sizeof(impls[0])) - 1; i > 0; i--)
		if (sofl_csum_impl_available((enum sofl_csum_impl)i))
			return &impls[i];
	return &impls[SOFL_CSUM_GENERIC];
}

static void
install(const struct impl *c)
{
	__atomic_store_n(&sum_fn, c->sum, __ATOMIC_RELAXED);
	__atomic_store_n(&copy_fn, c->copy, __ATOMIC_RELAXED);
	__atomic_store_n(&resid_fn, c->resid, __ATOMIC_RELAXED);
	__atomic_store_n(&ok_fn, c->ok, __ATOMIC_RELAXED);
	__atomic_store_n(&cur, c, __ATOMIC_RELEASE);
}

static const struct impl *
get_impl(void)
{
	const struct impl *c = __atomic_load_n(&cur, __ATOMIC_ACQUIRE);

	if (!c) {
		c = choose();	/* idempotent: racing threads install the same */
		install(c);
	}
	return c;
}

static uint32_t
resolve_sum(uint32_t sum, const void *buf, size_t len)
{
	return get_impl()->sum(sum, buf, len);
}

static uint32_t
resolve_copy(void *dst, const void *src, size_t len, uint32_t sum)
{
	return get_impl()->copy(dst, src, len, sum);
}

static uint64_t
resolve_resid(const void *buf, size_t len)
{
	return get_impl()->resid(buf, len);
}

static int
resolve_ok(uint32_t sum, const void *buf, size_t len)
{
	return get_impl()->ok(sum, buf, len);
}

SOFL_API int
sofl_csum_set_impl(enum sofl_csum_impl impl)
{
	if ((unsigned)impl >= sizeof(impls) / sizeof(impls[0]))
		return SOFL_E_INVAL;
	if (!impls[impl].sum || !sofl_csum_impl_available(impl))
		return SOFL_E_NOTSUP;
	install(&impls[impl]);
	return 0;
}

SOFL_API const char *
sofl_csum_impl_name(void)
{
	return get_impl()->name;
}

/* Internal (csum_kern.h): the implementation in use. */
enum sofl_csum_impl
sofl_csum_impl_current(void)
{
	return (enum sofl_csum_impl)(get_impl() - impls);
}

/* The library function behind the sofl_csum_add() macro (csum.h). */
SOFL_API uint32_t
(sofl_csum_add)(uint32_t sum, const void *buf, size_t len)
{
	sofl_csum_kernel_fn f = __atomic_load_n(&sum_fn, __ATOMIC_RELAXED);

	return f(sum, buf, len);
}

/* The library function behind the sofl_csum_ok() macro (csum.h): the
 * verifier of the implementation in use, one indirect jump. */
SOFL_API int
(sofl_csum_ok)(uint32_t sum, const void *buf, size_t len)
{
	int (*f)(uint32_t, const void *, size_t) = __atomic_load_n(&ok_fn, __ATOMIC_RELAXED);

	return f(sum, buf, len);
}

/* Internal (csum_kern.h): the residue kernel in use, for verifiers. */
uint64_t
sofl_csum_resid(const void *buf, size_t len)
{
	sofl_csum_resid_fn f = __atomic_load_n(&resid_fn, __ATOMIC_RELAXED);

	return f(buf, len);
}

SOFL_API uint32_t
sofl_csum_copy(void *dst, const void *src, size_t len, uint32_t sum)
{
	sofl_csum_copy_fn f = __atomic_load_n(&copy_fn, __ATOMIC_RELAXED);

	return f(dst, src, len, sum);
}

SOFL_API uint16_t
sofl_csum(const void *buf, size_t len)
{
	return (uint16_t)~sofl_csum_fold(sofl_csum_add(0, buf, len));
}

/* Big-endian word sum of a short header (n bytes, any n): 32-bit loads into
 * a 64-bit accumulator, folded once.  Cheaper than a kernel call for the
 * 8..60 bytes of addresses and IP headers. */
static inline uint32_t
sum_be(const uint8_t *b, size_t n)
{
	uint64_t s = 0;
	size_t i;

	for (i = 0; i + 4 <= n; i += 4)
		s += sofl_get32(b + i);
	if (n - i >= 2) {
		s += sofl_get16(b + i);
		i += 2;
	}
	if (i < n)
		s += (uint32_t)b[i] << 8;
	return sofl_fold64(s);
}

SOFL_API uint32_t
sofl_csum_pseudo_v4(const void *src4, const void *dst4, uint8_t proto, uint32_t l4len)
{
	const uint8_t *s = src4, *d = dst4;
	uint64_t sum = (uint64_t)sofl_get32(s) + sofl_get32(d) + proto + (l4len & 0xffff);

	return sofl_fold64(sum);
}

SOFL_API uint32_t
sofl_csum_pseudo_v6(const void *src16, const void *dst16, uint8_t proto, uint32_t l4len)
{
	const uint8_t *s = src16, *d = dst16;
	uint64_t sum = (uint64_t)proto + l4len;
	int i;

	for (i = 0; i < 16; i += 4)
		sum += (uint64_t)sofl_get32(s + i) + sofl_get32(d + i);
	return sofl_fold64(sum);
}

SOFL_API uint16_t
sofl_csum_ipv4_hdr(const void *iph, size_t hlen)
{
	const uint8_t *h = iph;
	uint32_t s;

	if (hlen == 20)		/* the common case, straight-line */
		return (uint16_t)~sofl_fold64((uint64_t)sofl_get32(h) + sofl_get32(h + 4) +
					      sofl_get16(h + 8) + sofl_get32(h + 12) +
					      sofl_get32(h + 16));
	s = sum_be(h, hlen < 10 ? hlen : 10);
	if (hlen > 12)
		s += sum_be(h + 12, hlen - 12);
	return (uint16_t)~sofl_csum_fold(s);
}

SOFL_API int
sofl_csum_ipv4_hdr_ok(const void *iph, size_t hlen)
{
	const uint8_t *h = iph;

	if (hlen == 20)
		return sofl_fold64((uint64_t)sofl_get32(h) + sofl_get32(h + 4) + sofl_get32(h + 8) +
				   sofl_get32(h + 12) + sofl_get32(h + 16)) == 0xffff;
	return sum_be(h, hlen) == 0xffff;
}

SOFL_API uint16_t
sofl_csum_replace16(uint16_t check, uint16_t old, uint16_t new_)
{
	return csum_replace16_inl(check, old, new_);
}

SOFL_API uint16_t
sofl_csum_replace32(uint16_t check, uint32_t old, uint32_t new_)
{
	uint32_t s;

	if (old == new_)
		return check;
	/* csum_replace4: ~csum_fold(csum_add(csum_sub(~csum_unfold(check), old), new)),
	 * with the 32-bit complement of the unfolded check, as Linux does */
	s = ~(uint32_t)check;
	s = sofl_csum_combine(s, ~old);
	s = sofl_csum_combine(s, new_);
	return (uint16_t)~sofl_csum_fold(s);
}

SOFL_API int
sofl_csum_complete_partial(void *frame, size_t len, size_t csum_start, size_t csum_offset)
{
	uint8_t *f = frame;
	uint16_t c;

	if (!f || csum_start > len || csum_offset > len - csum_start ||
	    len - csum_start - csum_offset < 2)
		return SOFL_E_INVAL;
	c = (uint16_t)~sofl_csum_fold(sofl_csum_add(0, f + csum_start, len - csum_start));
	sofl_put16(f + csum_start + csum_offset, c ? c : 0xffff);
	return 0;
}

/* ---- packet-level helpers ---- */

static int
l4_checkable(const struct sofl_pkt *p)
{
	if (!(p->layers & SOFL_LAYER_L4))
		return p->is_frag ? SOFL_E_FRAGMENT : SOFL_E_NOT_TCPUDP;
	return 0;
}

static uint32_t
pkt_pseudo(const struct sofl_pkt *p, uint32_t l4len)
{
	if (p->ipv == 4)
		return sofl_csum_pseudo_v4(p->key.src, p->key.dst, p->l4_proto, l4len);
	return sofl_csum_pseudo_v6(p->key.src, p->key.dst, p->l4_proto, l4len);
}

static uint32_t
pkt_l4len(const struct sofl_pkt *p)
{
	/* UDP: the UDP length field (pay_len + 8); TCP: up to the IP end */
	return p->l4_proto == 17 ? p->pay_len + 8 : p->ip_end - p->l4_off;
}

static inline unsigned
check_off(const struct sofl_pkt *p)
{
	return p->l4_proto == 17 ? 6 : 16;
}

SOFL_API int
sofl_csum_pkt_pseudo(const struct sofl_pkt *p)
{
	int err = l4_checkable(p);

	if (err)
		return err;
	return sofl_csum_fold(pkt_pseudo(p, pkt_l4len(p)));
}

SOFL_API int
sofl_csum_pkt_l4(const struct sofl_pkt *p)
{
	const uint8_t *l4;
	uint32_t len, s;
	uint16_t c;
	int err = l4_checkable(p);

	if (err)
		return err;
	l4 = p->data + p->l4_off;
	len = pkt_l4len(p);
	/* one pass over the segment, then the stored field taken back out
	 * (adding its complement); the pseudo-header makes the sum non-zero,
	 * so no -0/+0 ambiguity arises */
	s = sofl_csum_add(pkt_pseudo(p, len), l4, len);
	s = sofl_csum_combine(s, (uint16_t)~sofl_get16(l4 + check_off(p)));
	c = (uint16_t)~sofl_csum_fold(s);
	if (p->l4_proto == 17 && c == 0)
		c = 0xffff;	/* RFC 768: 0 means "no checksum" */
	return c;
}

SOFL_API void
sofl_csum_pkt_check(const struct sofl_pkt *p, enum sofl_csum_state *ip, enum sofl_csum_state *l4)
{
	if (ip) {
		if (p->ipv == 4 && (p->layers & SOFL_LAYER_L3))
			*ip = sofl_csum_ipv4_hdr_ok(p->data + p->l3_off, p->l3_len) ?
			      SOFL_CSUM_VALID : SOFL_CSUM_BAD;
		else
			*ip = SOFL_CSUM_NONE;
	}
	if (l4) {
		const uint8_t *h;
		uint16_t field;
		uint32_t len;

		if (l4_checkable(p)) {
			*l4 = SOFL_CSUM_NONE;
			return;
		}
		h = p->data + p->l4_off;
		field = sofl_get16(h + check_off(p));
		len = pkt_l4len(p);
		if (p->l4_proto == 17 && field == 0) {
			*l4 = p->ipv == 4 ? SOFL_CSUM_ABSENT : SOFL_CSUM_BAD;
			return;
		}
		if (sofl_csum_fold(sofl_csum_add(pkt_pseudo(p, len), h, len)) == 0xffff)
			*l4 = SOFL_CSUM_VALID;
		else if (field == sofl_csum_fold(pkt_pseudo(p, len)))
			*l4 = SOFL_CSUM_PARTIAL;
		else
			*l4 = SOFL_CSUM_BAD;
	}
}

/* ---- tunnels: the outer headers (pkt.h "Tunnels") ---- */

/* The outer IPv4 header of a tunnel packet, if it has one that lies within
 * the frame; NULL otherwise.  *hlen = its length. */
static const uint8_t *
outer_ipv4(const struct sofl_pkt *p, uint32_t *hlen)
{
	if (!(p->layers & SOFL_LAYER_ENCAP) || p->outer_ipv != 4 || p->outer_l3_len < 20 ||
	    (uint32_t)p->outer_l3_off + p->outer_l3_len > p->len)
		return NULL;
	*hlen = p->outer_l3_len;
	return p->data + p->outer_l3_off;
}

/* The outer UDP header of a UDP tunnel packet and its datagram length (the
 * UDP length field, checked against the outer IP packet and the frame);
 * NULL for IP-in-IP, a packet that is no tunnel packet, or lengths that do
 * not fit (which the parser never gives). */
static const uint8_t *
outer_udp(const struct sofl_pkt *p, uint32_t *ulen)
{
	const uint8_t *u;
	uint32_t end;

	if (!(p->layers & SOFL_LAYER_ENCAP) || p->outer_proto != 17 || !p->outer_l4_off ||
	    (p->outer_ipv != 4 && p->outer_ipv != 6))
		return NULL;
	end = p->outer_ip_end < p->len ? p->outer_ip_end : p->len;
	if ((uint32_t)p->outer_l4_off + 8 > end)
		return NULL;
	u = p->data + p->outer_l4_off;
	*ulen = sofl_get16(u + 4);
	if (*ulen < 8 || *ulen > end - p->outer_l4_off)
		return NULL;
	return u;
}

/* The outer pseudo-header's sum for a @ulen-byte UDP datagram. */
static uint32_t
outer_pseudo(const struct sofl_pkt *p, uint32_t ulen)
{
	const uint8_t *ip = p->data + p->outer_l3_off;

	if (p->outer_ipv == 4)
		return sofl_csum_pseudo_v4(ip + 12, ip + 16, 17, ulen);
	return sofl_csum_pseudo_v6(ip + 8, ip + 24, 17, ulen);
}

SOFL_API int
sofl_csum_pkt_outer_udp(const struct sofl_pkt *p)
{
	const uint8_t *u;
	uint32_t ulen, s;
	uint16_t c;

	if (!p || !(u = outer_udp(p, &ulen)))
		return SOFL_E_NOT_TCPUDP;
	/* as sofl_csum_pkt_l4(): one pass, the stored field taken back out */
	s = sofl_csum_add(outer_pseudo(p, ulen), u, ulen);
	s = sofl_csum_combine(s, (uint16_t)~sofl_get16(u + 6));
	c = (uint16_t)~sofl_csum_fold(s);
	return c ? c : 0xffff;
}

SOFL_API void
sofl_csum_pkt_check_outer(const struct sofl_pkt *p, enum sofl_csum_state *ip,
			  enum sofl_csum_state *udp)
{
	const uint8_t *h;
	uint32_t len;

	if (ip) {
		if (p && (h = outer_ipv4(p, &len)))
			*ip = sofl_csum_ipv4_hdr_ok(h, len) ? SOFL_CSUM_VALID : SOFL_CSUM_BAD;
		else
			*ip = SOFL_CSUM_NONE;
	}
	if (udp) {
		uint16_t field;
		uint32_t ps;

		if (!p || !(h = outer_udp(p, &len))) {
			*udp = SOFL_CSUM_NONE;
			return;
		}
		field = sofl_get16(h + 6);
		if (field == 0) {
			/* no outer checksum: RFC 768 for IPv4, RFC 6935/6936
			 * for a tunnel over IPv6 */
			*udp = SOFL_CSUM_ABSENT;
			return;
		}
		ps = outer_pseudo(p, len);
		if (sofl_csum_fold(sofl_csum_add(ps, h, len)) == 0xffff)
			*udp = SOFL_CSUM_VALID;
		else if (field == sofl_csum_fold(ps))
			*udp = SOFL_CSUM_PARTIAL;
		else
			*udp = SOFL_CSUM_BAD;
	}
}

SOFL_API int
sofl_csum_pkt_fill(void *frame, const struct sofl_pkt *p, int udp_zero_too)
{
	uint8_t *f = frame;
	const uint8_t *h;
	uint32_t len;
	int c;

	if (!f || !p || f != p->data)
		return SOFL_E_INVAL;
	/* the inner packet of a tunnel packet (the named fields) first: the
	 * outer UDP checksum covers it */
	if (p->ipv == 4 && (p->layers & SOFL_LAYER_L3))
		sofl_put16(f + p->l3_off + 10, sofl_csum_ipv4_hdr(f + p->l3_off, p->l3_len));
	if ((p->layers & SOFL_LAYER_L4) &&
	    !(p->l4_proto == 17 && p->ipv == 4 && !udp_zero_too &&
	      sofl_get16(f + p->l4_off + 6) == 0)) {
		c = sofl_csum_pkt_l4(p);
		if (c < 0)
			return c;
		sofl_put16(f + p->l4_off + check_off(p), (uint16_t)c);
	}
	if (!(p->layers & SOFL_LAYER_ENCAP))
		return 0;
	if ((h = outer_ipv4(p, &len)))
		sofl_put16(f + p->outer_l3_off + 10, sofl_csum_ipv4_hdr(h, len));
	/* a zero outer UDP checksum is the sender's choice for a tunnel over
	 * IPv4 and over IPv6 alike (udp6zerocsumtx): kept unless asked */
	if ((h = outer_udp(p, &len)) && (udp_zero_too || sofl_get16(h + 6) != 0) &&
	    (c = sofl_csum_pkt_outer_udp(p)) >= 0)
		sofl_put16(f + p->outer_l4_off + 6, (uint16_t)c);
	return 0;
}
