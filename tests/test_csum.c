/* Description: checksums — RFC 1071/1624 vectors, pseudo-headers, and every kernel (generic/AVX2/AVX-512) vs a naive reference at every length 0..4096 x alignment 0..63, random lengths, guard pages; the verifiers' residue kernels vs the folded sum; the inline short-buffer path vs the library call. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>
#include "helpers.h"
#include "csum/csum_impl.h"	/* sofl_csum_verify(), the inline short-buffer paths */
#include "csum/csum_kern.h"	/* sofl_csum_verify(): the residue kernels */

static const char *self_path;

/* ---- references (independent of the library) ---- */

/* naive RFC 1071: big-endian 16-bit words, odd byte padded, folded */
static uint16_t
ref_fold(const uint8_t *b, size_t len)
{
	uint64_t s = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		s += (uint32_t)b[i] << 8 | b[i + 1];
	if (len & 1)
		s += (uint32_t)b[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

static uint16_t
fold16(uint64_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* Linux include/net/checksum.h arithmetic, modelled independently */
static uint16_t
lx_csum16_add(uint16_t a, uint16_t b)
{
	uint16_t r = (uint16_t)(a + b);

	return (uint16_t)(r + (r < b));
}

static uint16_t
lx_replace2(uint16_t check, uint16_t from, uint16_t to)
{
	return (uint16_t)~lx_csum16_add(lx_csum16_add((uint16_t)~check, (uint16_t)~from), to);
}

static uint32_t
lx_csum_add(uint32_t a, uint32_t b)
{
	uint32_t r = a + b;

	return r + (r < b);
}

static uint16_t
lx_csum_fold(uint32_t s)	/* returns the complement, like Linux */
{
	return (uint16_t)~((s + (s << 16 | s >> 16)) >> 16);
}

static uint16_t
lx_replace4(uint16_t check, uint32_t from, uint32_t to)
{
	return lx_csum_fold(lx_csum_add(lx_csum_add(~(uint32_t)check, ~from), to));
}

static int
impl_ok(int i)
{
	return sofl_csum_impl_available((enum sofl_csum_impl)i);
}

static void
use(int i)
{
	assert_int_equal(sofl_csum_set_impl((enum sofl_csum_impl)i), 0);
}

/* ---- RFC vectors ---- */

static void
test_rfc1071(void **state)
{
	static const uint8_t v[8] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };
	static const uint8_t odd[3] = { 0x12, 0x34, 0x56 };
	int i;
	(void)state;

	for (i = 0; i <= SOFL_CSUM_AVX512; i++) {
		if (!impl_ok(i))
			continue;
		use(i);
		assert_int_equal(sofl_csum(v, 8), 0x220d);
		assert_int_equal(sofl_csum_fold(sofl_csum_add(0, v, 8)), 0xddf2);
		/* odd length: the last byte is the high byte of a zero-padded word */
		assert_int_equal(sofl_csum_fold(sofl_csum_add(0, odd, 3)), 0x1234 + 0x5600);
		assert_int_equal(sofl_csum(v, 0), 0xffff);
		assert_int_equal(sofl_csum_add(0x1234, NULL, 0), 0x1234);
		assert_int_equal(sofl_csum_copy(NULL, NULL, 0, 0x1234), 0x1234);
	}
	/* fold and combine keep the end-around carry */
	assert_int_equal(sofl_csum_fold(0x2ddf0), 0xddf2);
	assert_int_equal(sofl_csum_fold(0xffffffff), 0xffff);
	assert_int_equal(sofl_csum_fold(0), 0);
	assert_int_equal(sofl_csum_combine(0xffffffff, 1), 1);
	assert_int_equal(sofl_csum_combine(0x80000000, 0x80000000), 1);
}

static void
test_rfc1624(void **state)
{
	(void)state;
	/* RFC 1624 §4/§5: HC 0xDD2F, m 0x5555 -> m' 0x3285 gives 0x0000 (eqn 2 gave 0xFFFF) */
	assert_int_equal(sofl_csum_replace16(0xDD2F, 0x5555, 0x3285), 0x0000);
	/* equal values leave the checksum alone (erratum 4782), 0xFFFF included */
	assert_int_equal(sofl_csum_replace16(0x0000, 0x1234, 0x1234), 0x0000);
	assert_int_equal(sofl_csum_replace16(0xffff, 0x1234, 0x1234), 0xffff);
	assert_int_equal(sofl_csum_replace32(0xffff, 0xdeadbeef, 0xdeadbeef), 0xffff);
	assert_int_equal(sofl_csum_replace32(0x1234, 5, 5), 0x1234);
}

/* Every pair old != new: bit-exact Linux csum_replace2/csum_replace4. */
static void
test_replace_vs_linux(void **state)
{
	uint64_t r = 7;
	int i;
	(void)state;

	for (i = 0; i < 200000; i++) {
		uint64_t x = t_rand(&r), y = t_rand(&r);
		uint16_t c = (uint16_t)x, o16 = (uint16_t)(x >> 16), n16 = (uint16_t)(x >> 32);
		uint32_t o32 = (uint32_t)y, n32 = (uint32_t)(y >> 32);

		if (i < 4) {	/* the corners */
			c = i & 1 ? 0xffff : 0;
			o32 = i & 2 ? 0xffffffff : 0;
			n32 = ~o32;
			o16 = (uint16_t)o32;
			n16 = (uint16_t)n32;
		}
		if (o16 != n16)
			assert_int_equal(sofl_csum_replace16(c, o16, n16), lx_replace2(c, o16, n16));
		if (o32 != n32)
			assert_int_equal(sofl_csum_replace32(c, o32, n32), lx_replace4(c, o32, n32));
	}
}

/* Property: updating a field incrementally equals recomputing from scratch
 * (IPv4 header: 16-bit TTL/proto word and 32-bit source address; TCP/UDP:
 * the pseudo-header's address, as NAT does). */
static void
test_replace_vs_recompute(void **state)
{
	uint8_t b[256];
	uint64_t r = 99;
	int i;
	(void)state;

	for (i = 0; i < 3000; i++) {
		struct t_spec s;
		struct sofl_pkt p;
		uint8_t *ip;
		uint16_t ck, l4ck, o16, n16;
		uint32_t o32, n32;
		size_t len;
		int proto = i & 1 ? 6 : 17;

		t_spec_init(&s, 4, proto);
		s.ip_id = (uint16_t)t_rand(&r);
		s.pay_len = (size_t)(t_rand(&r) % 100);
		s.pay_seed = (uint8_t)t_rand(&r);
		len = t_build(b, sizeof(b), &s);
		ip = b + 14;
		ck = sofl_get16(ip + 10);
		l4ck = sofl_get16(ip + 20 + (proto == 6 ? 16 : 6));

		/* 16-bit: TTL + protocol word */
		o16 = sofl_get16(ip + 8);
		n16 = (uint16_t)((t_rand(&r) & 0xff) << 8 | ip[9]);
		sofl_put16(ip + 8, n16);
		ck = sofl_csum_replace16(ck, o16, n16);
		assert_int_equal(ck, sofl_csum_ipv4_hdr(ip, 20));

		/* 32-bit: source address, in the IP header and the pseudo-header */
		o32 = sofl_get32(ip + 12);
		n32 = (uint32_t)t_rand(&r);
		if (n32 == o32)
			continue;
		sofl_put32(ip + 12, n32);
		ck = sofl_csum_replace32(ck, o32, n32);
		assert_int_equal(ck, sofl_csum_ipv4_hdr(ip, 20));
		sofl_put16(ip + 10, ck);
		l4ck = sofl_csum_replace32(l4ck, o32, n32);
		assert_int_equal(sofl_pkt_parse(&p, b, len, SOFL_LINK_ETH), 0);
		if (proto == 17 && l4ck == 0)
			l4ck = 0xffff;	/* the UDP rule is the caller's */
		assert_int_equal(l4ck, sofl_csum_pkt_l4(&p));
	}
}

/* ---- pseudo-headers, against byte-exact pseudo-header images ---- */

static void
test_pseudo_headers(void **state)
{
	static const uint8_t s4[4] = { 198, 18, 0, 1 }, d4[4] = { 198, 19, 255, 254 };
	static const uint8_t s6[16] = { 0x20, 0x01, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef };
	static const uint8_t d6[16] = { 0x20, 0x01, 0, 2, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 };
	static const uint32_t lens[] = { 0, 8, 40, 1480, 65535, 65536, 0x12345, 0xffffffffu };
	uint8_t img[40];
	unsigned i;
	(void)state;

	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		/* IPv4 (RFC 768/793): src, dst, zero, proto, 16-bit length */
		memcpy(img, s4, 4);
		memcpy(img + 4, d4, 4);
		img[8] = 0;
		img[9] = 6;
		sofl_put16(img + 10, (uint16_t)lens[i]);
		assert_int_equal(sofl_csum_fold(sofl_csum_pseudo_v4(s4, d4, 6, lens[i] & 0xffff)),
				 ref_fold(img, 12));
		/* IPv6 (RFC 8200 §8.1): src, dst, 32-bit length, 3 zero bytes, next header */
		memcpy(img, s6, 16);
		memcpy(img + 16, d6, 16);
		sofl_put32(img + 32, lens[i]);
		img[36] = img[37] = img[38] = 0;
		img[39] = 17;
		assert_int_equal(sofl_csum_fold(sofl_csum_pseudo_v6(s6, d6, 17, lens[i])),
				 ref_fold(img, 40));
	}
	/* the upper 16 bits of an IPv6 length count (a 16-bit field would lose them) */
	assert_int_not_equal(sofl_csum_fold(sofl_csum_pseudo_v6(s6, d6, 17, 0x10000)),
			     sofl_csum_fold(sofl_csum_pseudo_v6(s6, d6, 17, 0)));
}

/* ---- IPv4 header checksum ---- */

static void
test_ipv4_hdr(void **state)
{
	/* the classic worked example: 45 00 00 73 ... checksum 0xb861 */
	static const uint8_t h0[20] = { 0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
					0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7 };
	uint8_t h[60];
	uint64_t r = 5;
	uint16_t c;
	size_t hl, i;
	(void)state;

	assert_int_equal(sofl_csum_ipv4_hdr(h0, 20), 0xb861);
	assert_true(sofl_csum_ipv4_hdr_ok(h0, 20));
	memcpy(h, h0, 20);
	h[8] ^= 1;
	assert_false(sofl_csum_ipv4_hdr_ok(h, 20));

	/* options: every IHL, against the reference with the field zeroed */
	for (hl = 20; hl <= 60; hl += 4) {
		for (i = 0; i < hl; i++)
			h[i] = (uint8_t)t_rand(&r);
		h[0] = (uint8_t)(0x40 | hl / 4);
		c = sofl_csum_ipv4_hdr(h, hl);
		h[10] = h[11] = 0;
		assert_int_equal(c, (uint16_t)~ref_fold(h, hl));
		sofl_put16(h + 10, c);
		assert_true(sofl_csum_ipv4_hdr_ok(h, hl));
		h[hl - 1] ^= 0x40;
		assert_false(sofl_csum_ipv4_hdr_ok(h, hl));
	}

	/* never 0xFFFF (DPDK 06602c671a, RFC 1624 §3): a header whose sum is
	 * 0xFFFF gets checksum 0x0000, and verifies */
	memcpy(h, h0, 20);
	h[10] = h[11] = 0;
	h[4] = h[5] = 0;
	sofl_put16(h + 4, (uint16_t)(0xffff - ref_fold(h, 20)));
	assert_int_equal(ref_fold(h, 20), 0xffff);
	assert_int_equal(sofl_csum_ipv4_hdr(h, 20), 0x0000);
	assert_true(sofl_csum_ipv4_hdr_ok(h, 20));
}

/* Short or odd hlen never reads outside [0, hlen) (ASan build checks it). */
static void
test_ipv4_hdr_short(void **state)
{
	size_t hl;
	(void)state;

	for (hl = 0; hl <= 24; hl++) {
		uint8_t *h = malloc(hl ? hl : 1);
		size_t i;
		uint8_t tmp[24];

		for (i = 0; i < hl; i++)
			h[i] = (uint8_t)(0x11 * (i + 1));
		/* bytes 10-11 are excluded where present */
		memcpy(tmp, h, hl);
		if (hl > 10)
			tmp[10] = 0;
		if (hl > 11)
			tmp[11] = 0;
		assert_int_equal(sofl_csum_ipv4_hdr(h, hl), (uint16_t)~ref_fold(tmp, hl));
		assert_int_equal(sofl_csum_ipv4_hdr_ok(h, hl), ref_fold(h, hl) == 0xffff);
		free(h);
	}
}

/* ---- block add at odd offsets ---- */

static void
test_block_add(void **state)
{
	uint8_t b[777], d[777];
	uint64_t r = 3;
	size_t k, i;
	int im;
	(void)state;

	for (i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)t_rand(&r);
	for (im = 0; im <= SOFL_CSUM_AVX512; im++) {
		if (!impl_ok(im))
			continue;
		use(im);
		for (k = 0; k <= sizeof(b); k++) {
			uint32_t head = sofl_csum_add(0, b, k);
			uint32_t tail = sofl_csum_add(0, b + k, sizeof(b) - k);
			uint32_t ctail = sofl_csum_copy(d + k, b + k, sizeof(b) - k, 0);

			assert_int_equal(sofl_csum_fold(sofl_csum_block_add(head, tail, k)),
					 ref_fold(b, sizeof(b)));
			assert_int_equal(sofl_csum_fold(sofl_csum_block_add(head, ctail, k)),
					 ref_fold(b, sizeof(b)));
			/* at an even offset, seeding sofl_csum_add() is the same */
			if (!(k & 1))
				assert_int_equal(sofl_csum_fold(sofl_csum_add(head, b + k, sizeof(b) - k)),
						 ref_fold(b, sizeof(b)));
		}
		/* three blocks at odd, odd, even boundaries */
		{
			uint32_t s = sofl_csum_add(0, b, 101);
			s = sofl_csum_block_add(s, sofl_csum_add(0, b + 101, 200), 101);
			s = sofl_csum_block_add(s, sofl_csum_add(0, b + 301, 476), 301);
			assert_int_equal(sofl_csum_fold(s), ref_fold(b, sizeof(b)));
		}
	}
}

static void
test_impls_lengths_alignments(void **state)
{
	enum { N = 4096 };
	uint8_t *src = malloc(N + 64 + 64), *dst = malloc(N + 64 + 64 + 2);
	uint64_t r = 42;
	size_t i, len, al;
	int im;
	(void)state;

	for (i = 0; i < N + 128; i++)
		src[i] = (uint8_t)t_rand(&r);
	for (im = 0; im <= SOFL_CSUM_AVX512; im++) {
		if (!impl_ok(im))
			continue;
		use(im);
		for (al = 0; al < 64; al++) {
			uint64_t ref = 0;
			size_t da = (al * 37) % 64 + 1;

			for (len = 0; len <= N; len++) {
				uint16_t want = fold16(ref), got = sofl_csum_fold((sofl_csum_add)(0, src + al, len));

				if (got != want) {
					fprintf(stderr, "impl %s len %zu align %zu: %04x != %04x\n",
						sofl_csum_impl_name(), len, al, got, want);
					fail();
				}
				if (len % 7 == 0 || len < 300) {
					dst[da - 1] = dst[da + len] = 0xa5;
					got = sofl_csum_fold(sofl_csum_copy(dst + da, src + al, len, 0));
					assert_int_equal(got, want);
					assert_int_equal(memcmp(dst + da, src + al, len), 0);
					assert_int_equal(dst[da - 1], 0xa5);
					assert_int_equal(dst[da + len], 0xa5);
				}
				ref += len & 1 ? src[al + len] : (uint32_t)src[al + len] << 8;
			}
		}
	}
	free(src);
	free(dst);
}

/* Random lengths up to 65535 and long buffers across the kernels' block
 * boundaries (64 KiB) with extreme contents (all 0x00, all 0xFF, 0x8000 and
 * 0x7FFF words: the signed-lane extremes of the vector kernels). */
static void
test_impls_random_and_long(void **state)
{
	enum { BIG = (6 << 20) + 64 };
	uint8_t *b = malloc(BIG), *d = malloc(BIG);
	static const size_t lens[] = { 32768, 32769, 33023, 33024, 40961, 65535, 65536, 65537, 65536 * 2 - 1, 65536 * 2 + 3,
				       (1 << 20) + 1, (1 << 20) + 64, (2 << 20) - 1, 2 << 20,
				       (2 << 20) + 1, (4 << 20) - 1, 4 << 20,
				       (5 << 20) + 65535, 6 << 20 };
	uint64_t r = 1234;
	size_t i, k;
	int im, fillk;
	(void)state;

	for (fillk = 0; fillk < 5; fillk++) {
		for (i = 0; i < BIG; i++) {
			switch (fillk) {
			case 0: b[i] = (uint8_t)t_rand(&r); break;
			case 1: b[i] = 0; break;
			case 2: b[i] = 0xff; break;
			case 3: b[i] = i & 1 ? 0x00 : 0x80; break;
			default: b[i] = i & 1 ? 0xff : 0x7f; break;
			}
		}
		for (k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
			size_t al = k * 13 % 64;
			uint16_t want = ref_fold(b + al, lens[k]);

			if (fillk == 1)
				assert_int_equal(want, 0);
			for (im = 0; im <= SOFL_CSUM_AVX512; im++) {
				if (!impl_ok(im))
					continue;
				use(im);
				assert_int_equal(sofl_csum_fold((sofl_csum_add)(0, b + al, lens[k])), want);
				assert_int_equal(sofl_csum_fold(sofl_csum_copy(d + 1, b + al, lens[k], 0)),
						 want);
				assert_int_equal(memcmp(d + 1, b + al, lens[k]), 0);
			}
		}
	}
	/* random lengths and alignments */
	for (i = 0; i < BIG; i++)
		b[i] = (uint8_t)t_rand(&r);
	for (k = 0; k < 1500; k++) {
		size_t len = (size_t)(t_rand(&r) % 65536), al = (size_t)(t_rand(&r) % 64);
		uint16_t want = ref_fold(b + al, len);

		for (im = 0; im <= SOFL_CSUM_AVX512; im++) {
			if (!impl_ok(im))
				continue;
			use(im);
			assert_int_equal(sofl_csum_fold((sofl_csum_add)(0, b + al, len)), want);
		}
	}
	free(b);
	free(d);
}

/* The AVX-512 kernel's aligned loads for unaligned buffers (aligned_sum in
 * csum_avx512.c: masked head from the 64-byte boundary below the buffer,
 * aligned vectors, masked tail, the total rotated by 8 bits for an odd
 * start): every start 0..63 in a 64-byte aligned allocation x lengths
 * around its bounds (1024, the frame sizes, MID 1536, the 4- and
 * 8-accumulator loops, L1 32 KiB) x contents that stress the signed lanes
 * and the end-around carry, against the generic kernel with a seed sum,
 * unfolded results folded. */
static void
test_impls_aligned_loads(void **state)
{
	enum { N = 32768 + 256 };
	static const size_t lens[] = {
		1000, 1023, 1024, 1025, 1087, 1088, 1089, 1100, 1200, 1279, 1280, 1281,
		1446, 1447, 1448, 1449, 1458, 1459, 1460, 1461, 1478, 1479, 1480, 1481,
		1486, 1487, 1488, 1489, 1490, 1499, 1500, 1501, 1510, 1511, 1512, 1513,
		1514, 1535, 1536, 1537, 1538, 1599, 1600, 1601, 2047, 2048, 2049, 2111,
		2112, 2113, 2303, 2304, 2305, 9000, 9001, 32703, 32704, 32767, 32768, 32769,
	};
	uint8_t *b = aligned_alloc(64, N);
	uint64_t r = 777;
	size_t i, k, al;
	int fillk;
	(void)state;

	assert_non_null(b);
	if (!impl_ok(SOFL_CSUM_AVX512)) {
		free(b);
		skip();
	}
	for (fillk = 0; fillk < 5; fillk++) {
		for (i = 0; i < N; i++) {
			switch (fillk) {
			case 0: b[i] = (uint8_t)t_rand(&r); break;
			case 1: b[i] = 0xff; break;
			case 2: b[i] = i & 1 ? 0x00 : 0x80; break;
			case 3: b[i] = i & 1 ? 0xff : 0x7f; break;
			default: b[i] = i % 3 ? 0x00 : 0x01; break;
			}
		}
		for (k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
			for (al = 0; al < 64 && al + lens[k] <= N; al++) {
				uint32_t seed = (uint32_t)(al * 0x01000193u + k);
				uint16_t want, got;

				use(SOFL_CSUM_GENERIC);
				want = sofl_csum_fold((sofl_csum_add)(seed, b + al, lens[k]));
				use(SOFL_CSUM_AVX512);
				got = sofl_csum_fold((sofl_csum_add)(seed, b + al, lens[k]));
				if (got != want) {
					fprintf(stderr, "avx512 fill %d len %zu start %zu: %04x != %04x\n",
						fillk, lens[k], al, got, want);
					fail();
				}
			}
		}
	}
	free(b);
}

/* The verifiers' path (csum_kern.h): sofl_csum_verify(sum, b, len) — the
 * residue kernel, its value neither folded nor byte-swapped, tested modulo
 * 0xffff — says 1 exactly when sofl_csum_fold(sofl_csum_add(sum, b, len)) is
 * 0xffff.  Every implementation; lengths 0..1600 and around the vector
 * kernels' bounds up to the streaming one, every start 0..63 or a spread of
 * them; random, all-0x00, all-0xFF and signed-extreme contents; seeds 0,
 * 0xffff, 0xffffffff, random, and the seed that makes the sum verify (the
 * case a receive path sees, which random buffers almost never give), then
 * that seed off by one and plus 0xffff. */
static int
fold_ok(uint32_t seed, const uint8_t *b, size_t len)
{
	return sofl_csum_fold((sofl_csum_add)(seed, b, len)) == 0xffff;
}

static void
verify_case(uint32_t seed, const uint8_t *b, size_t len)
{
	int want = fold_ok(seed, b, len);

	/* and the public verifier: the inline path, the library function */
	if (sofl_csum_ok(seed, b, len) != want || (sofl_csum_ok)(seed, b, len) != want ||
	    sofl_csum_ok_small(seed, b, len) != want)
		fail_msg("impl %s len %zu seed %08x: sofl_csum_ok disagrees with the fold (%d)",
			 sofl_csum_impl_name(), len, seed, want);
	if (sofl_csum_verify(seed, b, len) != want) {
		fprintf(stderr, "impl %s len %zu start %zu seed %08x: verify %d, fold says %d\n",
			sofl_csum_impl_name(), len, (size_t)((uintptr_t)b & 63), seed,
			sofl_csum_verify(seed, b, len), fold_ok(seed, b, len));
		fail();
	}
}

static void
verify_all_seeds(const uint8_t *b, size_t len, uint64_t *r)
{
	uint32_t good = (uint16_t)~sofl_csum_fold((sofl_csum_add)(0, b, len));

	assert_int_equal(fold_ok(good, b, len), 1);
	verify_case(good, b, len);
	verify_case(good + 0xffff, b, len);
	verify_case(good ^ 1, b, len);
	verify_case(0, b, len);
	verify_case(0xffff, b, len);
	verify_case(0xffffffff, b, len);
	verify_case((uint32_t)t_rand(r), b, len);
}

static void
test_impls_verify(void **state)
{
	enum { N = (2 << 20) + 4096 };
	static const size_t lens[] = {
		1000, 1023, 1024, 1025, 1088, 1448, 1460, 1480, 1488, 1500, 1512, 1514, 1535,
		1536, 1537, 1600, 2048, 2049, 4096, 9000, 9001, 32767, 32768, 32769, 65535,
		65536, 65537, 100001, (2 << 20) - 1, 2 << 20, (2 << 20) + 1,
	};
	uint8_t *b = aligned_alloc(64, N);
	uint64_t r = 4242;
	size_t i, k, al, len;
	int im, fillk;
	(void)state;

	assert_non_null(b);
	for (fillk = 0; fillk < 4; fillk++) {
		for (i = 0; i < N; i++) {
			switch (fillk) {
			case 0: b[i] = (uint8_t)t_rand(&r); break;
			case 1: b[i] = 0; break;
			case 2: b[i] = 0xff; break;
			default: b[i] = i & 1 ? 0x00 : 0x80; break;
			}
		}
		for (im = 0; im <= SOFL_CSUM_AVX512; im++) {
			if (!impl_ok(im))
				continue;
			use(im);
			for (len = 0; len <= 1600; len++)
				for (al = len % 5; al < 64; al += 9)
					verify_all_seeds(b + al, len, &r);
			for (k = 0; k < sizeof(lens) / sizeof(lens[0]); k++)
				for (al = 0; al < 64; al += lens[k] > 65537 ? 21 : 1)
					verify_all_seeds(b + al, lens[k], &r);
		}
	}
	free(b);
}

/* Packet-sized buffers (257..1536 bytes: the AVX-512 kernel's packet sum,
 * four-way up to 20 vectors of its aligned region, eight-way beyond) at
 * every alignment: random lengths and every length whose aligned region is
 * 19..21 vectors, random and extreme contents (all 0xFF, 0x8000 and 0x7FFF
 * words: the signed-lane extremes), a random seed sum; every implementation
 * against the naive reference. */
static void
test_impls_packet_sizes(void **state)
{
	enum { N = 1536 + 128 };
	uint8_t *b = aligned_alloc(64, N);
	uint64_t r = 2525;
	size_t i, al, len, k;
	int im, fillk;
	(void)state;

	assert_non_null(b);
	for (fillk = 0; fillk < 4; fillk++) {
		for (i = 0; i < N; i++) {
			switch (fillk) {
			case 0: b[i] = (uint8_t)t_rand(&r); break;
			case 1: b[i] = 0xff; break;
			case 2: b[i] = i & 1 ? 0x00 : 0x80; break;
			default: b[i] = i & 1 ? 0xff : 0x7f; break;
			}
		}
		for (im = 0; im <= SOFL_CSUM_AVX512; im++) {
			if (!impl_ok(im))
				continue;
			use(im);
			for (al = 0; al < 64; al++)
				for (k = 0; k < 3 * 64 + 40; k++) {
					uint32_t seed = (uint32_t)t_rand(&r);
					uint16_t want, got;

					/* regions of 19, 20 and 21 vectors, then random lengths */
					len = k < 3 * 64 ? 19 * 64 - al + k - 63 :
							   257 + (size_t)(t_rand(&r) % 1280);
					if (len < 257 || len > 1536)
						continue;
					want = fold16((uint64_t)seed + ref_fold(b + al, len));
					got = sofl_csum_fold((sofl_csum_add)(seed, b + al, len));
					if (got != want || sofl_csum_ok(seed, b + al, len) !=
							   (sofl_csum_fold(sofl_csum_add(seed, b + al, len)) == 0xffff)) {
						fprintf(stderr, "impl %s fill %d len %zu align %zu seed %08x: %04x != %04x\n",
							sofl_csum_impl_name(), fillk, len, al, seed, got, want);
						fail();
					}
				}
		}
	}
	free(b);
}

/* Nothing is read outside the buffer: buffers that end at, or start right
 * after, a PROT_NONE page fault on any stray access. */
static void
test_impls_guard_pages(void **state)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t span = 3 * (size_t)pg, len;
	uint8_t *m = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *mid, *d;
	int im;
	(void)state;

	assert_true(m != MAP_FAILED);
	d = malloc((size_t)pg);
	mid = m + pg;
	memset(mid, 0x3c, (size_t)pg);
	assert_int_equal(mprotect(m, (size_t)pg, PROT_NONE), 0);
	assert_int_equal(mprotect(mid + pg, (size_t)pg, PROT_NONE), 0);
	for (im = 0; im <= SOFL_CSUM_AVX512; im++) {
		if (!impl_ok(im))
			continue;
		use(im);
		for (len = 0; len <= (size_t)pg; len++) {
			uint16_t want = len & 1 ? fold16((uint64_t)(len / 2) * 0x3c3c + 0x3c00)
					       : fold16((uint64_t)(len / 2) * 0x3c3c);

			/* ends at the guard page */
			assert_int_equal(sofl_csum_fold((sofl_csum_add)(0, mid + pg - len, len)), want);
			assert_int_equal(sofl_csum_fold(sofl_csum_copy(d, mid + pg - len, len, 0)), want);
			/* starts right after the guard page */
			assert_int_equal(sofl_csum_fold((sofl_csum_add)(0, mid, len)), want);
		}
	}
	free(d);
	munmap(m, span);
}

/* The inline path of the sofl_csum_add() macro (csum.h) against the library
 * function of every kernel, unfolded and bit for bit: lengths 0..256 (the
 * inline bound and beyond, through sofl_csum_add_small() too) x alignments
 * 0..63 x seeds that carry, compile-time-constant lengths (the unrolled
 * code), the naive reference, and guard pages on both sides. */
static uint32_t
lib_add(uint32_t seed, const void *b, size_t len)
{
	return (sofl_csum_add)(seed, b, len);
}

static void
test_inline_path(void **state)
{
	static const uint32_t seeds[] = { 0, 1, 0xffff, 0x1fffe, 0xfffffffe, 0xffffffff };
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *src = malloc(256 + 64), *m, *mid;
	uint64_t r = 77;
	size_t i, len, al, k;
	int im;
	(void)state;

	for (i = 0; i < 256 + 64; i++)
		src[i] = (uint8_t)t_rand(&r);
	for (im = 0; im <= SOFL_CSUM_AVX512; im++) {
		if (!impl_ok(im))
			continue;
		use(im);
		for (al = 0; al < 64; al++)
			for (len = 0; len <= 256; len++)
				for (k = 0; k < sizeof(seeds) / sizeof(seeds[0]); k++) {
					uint32_t want = lib_add(seeds[k], src + al, len);

					assert_int_equal(sofl_csum_add(seeds[k], src + al, len), want);
					assert_int_equal(sofl_csum_add_small(seeds[k], src + al, len), want);
					if (k == 0)
						assert_int_equal(sofl_csum_fold(want),
								 ref_fold(src + al, len));
				}
		/* constant lengths: the forms callers write */
		for (al = 0; al < 8; al++) {
			assert_int_equal(sofl_csum_add(5, src + al, 8), lib_add(5, src + al, 8));
			assert_int_equal(sofl_csum_add(5, src + al, 20), lib_add(5, src + al, 20));
			assert_int_equal(sofl_csum_add(5, src + al, 36), lib_add(5, src + al, 36));
			assert_int_equal(sofl_csum_add(5, src + al, 40), lib_add(5, src + al, 40));
			assert_int_equal(sofl_csum_add(5, src + al, 63), lib_add(5, src + al, 63));
			assert_int_equal(sofl_csum_add(5, src + al, 64), lib_add(5, src + al, 64));
			assert_int_equal(sofl_csum_add(5, src + al, 65), lib_add(5, src + al, 65));
		}
	}
	/* RFC 1071 §3 through the inline path, and NULL with length 0 */
	{
		static const uint8_t v[8] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };

		assert_int_equal(sofl_csum_fold(sofl_csum_add_small(0, v, 8)), 0xddf2);
		assert_int_equal(sofl_csum_add(0x1234, NULL, 0), 0x1234);
		assert_int_equal(sofl_csum_add_small(0x1234, NULL, 0), 0x1234);
	}
	/* nothing outside buf[0..len) is read */
	m = mmap(NULL, 3 * (size_t)pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(m != MAP_FAILED);
	mid = m + pg;
	memset(mid, 0x5a, (size_t)pg);
	assert_int_equal(mprotect(m, (size_t)pg, PROT_NONE), 0);
	assert_int_equal(mprotect(mid + pg, (size_t)pg, PROT_NONE), 0);
	for (len = 0; len <= 256; len++) {
		uint32_t want = len & 1 ? fold16((uint64_t)(len / 2) * 0x5a5a + 0x5a00)
				       : fold16((uint64_t)(len / 2) * 0x5a5a);

		assert_int_equal(sofl_csum_fold(sofl_csum_add(0, mid + pg - len, len)), want);
		assert_int_equal(sofl_csum_fold(sofl_csum_add(0, mid, len)), want);
		assert_int_equal(sofl_csum_fold(sofl_csum_add_small(0, mid + pg - len, len)), want);
		assert_int_equal(sofl_csum_fold(sofl_csum_add_small(0, mid, len)), want);
	}
	munmap(m, 3 * (size_t)pg);
	free(src);
}

/* SOFL_CSUM_IMPL picks the implementation at first use (in a child process,
 * since the choice is made once per process). */
static void
test_impl_selection(void **state)
{
	static const char *const names[] = { "generic", "avx2", "avx512" };
	const char *best = "generic";
	char cmd[4200], out[64];
	int i;
	(void)state;

	assert_int_equal(sofl_csum_set_impl((enum sofl_csum_impl)7), SOFL_E_INVAL);
	assert_int_equal(sofl_csum_set_impl((enum sofl_csum_impl)-1), SOFL_E_INVAL);
	assert_int_equal(sofl_csum_impl_available((enum sofl_csum_impl)9), 0);
	assert_int_equal(sofl_csum_impl_available(SOFL_CSUM_GENERIC), 1);
	for (i = 0; i <= SOFL_CSUM_AVX512; i++)
		if (impl_ok(i))
			best = names[i];
	if (!self_path || strlen(self_path) > 4000)
		skip();
	for (i = 0; i <= SOFL_CSUM_AVX512 + 2; i++) {
		const char *want = i <= SOFL_CSUM_AVX512 ? (impl_ok(i) ? names[i] : best) : best;
		const char *env = i <= SOFL_CSUM_AVX512 ? names[i] : i == 3 ? "bogus" : "";
		FILE *f;

		snprintf(cmd, sizeof(cmd), "SOFL_CSUM_IMPL='%s' '%s' --impl-name", env, self_path);
		f = popen(cmd, "r");
		assert_non_null(f);
		assert_non_null(fgets(out, sizeof(out), f));
		assert_int_equal(pclose(f), 0);
		out[strcspn(out, "\n")] = 0;
		assert_string_equal(out, want);
	}
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rfc1071),
		cmocka_unit_test(test_rfc1624),
		cmocka_unit_test(test_replace_vs_linux),
		cmocka_unit_test(test_replace_vs_recompute),
		cmocka_unit_test(test_pseudo_headers),
		cmocka_unit_test(test_ipv4_hdr),
		cmocka_unit_test(test_ipv4_hdr_short),
		cmocka_unit_test(test_block_add),
		cmocka_unit_test(test_impls_lengths_alignments),
		cmocka_unit_test(test_impls_random_and_long),
		cmocka_unit_test(test_impls_guard_pages),
		cmocka_unit_test(test_impls_aligned_loads),
		cmocka_unit_test(test_impls_verify),
		cmocka_unit_test(test_impls_packet_sizes),
		cmocka_unit_test(test_inline_path),
		cmocka_unit_test(test_impl_selection),
	};

	if (argc == 2 && !strcmp(argv[1], "--impl-name")) {
		puts(sofl_csum_impl_name());
		return 0;
	}
	/* SOFL_NO_REEXEC: this binary cannot run itself (user-mode emulation,
	 * scripts/check-be.sh): test_impl_selection skips */
	if (!getenv("SOFL_NO_REEXEC")) {
		static char exe[4096];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		if (n > 0) {
			exe[n] = 0;
			self_path = exe;
		}
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
