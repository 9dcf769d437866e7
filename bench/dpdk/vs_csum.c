/* Checksum rows of bench_vs_dpdk: rte_raw_cksum (Debian and -march=native
 * builds) against sofl_csum_add per implementation, the packet checksum
 * rows, and the length sweep (vs.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "softoffload/softoffload.h"
#include "vs.h"
#include "../util.h"
#include "../../tests/helpers.h"
#include "dpdk_kern.h"

/* ---- checksum rows ---- */

enum csum_kind { CK_DPDK_GENERIC, CK_DPDK_NATIVE, CK_OURS };

struct csum_arg {
	const uint8_t *buf;
	size_t len, iters, chunk;	/* chunk: one pass in chunk-size calls */
	int kind, impl;
};

static const char *const impl_names[] = { "generic", "avx2", "avx512" };

static void
use_impl(int impl)
{
	if (sofl_csum_set_impl((enum sofl_csum_impl)impl) != 0) {
		fprintf(stderr, "bench_vs_dpdk: csum impl %d unavailable\n", impl);
		exit(2);
	}
}

static uint64_t
ours_sum_loop(const uint8_t *buf, size_t len, size_t iters)
{
	uint64_t acc = 0;

	for (size_t i = 0; i < iters; i++) {
		const uint8_t *p = buf;
		LAUNDER(p);
		acc += sofl_csum_fold(sofl_csum_add(0, p, len));
	}
	return acc;
}

static uint64_t
ours_sum_chunks(const uint8_t *buf, size_t len, size_t chunk)
{
	uint64_t acc = 0;

	for (size_t off = 0; off < len; off += chunk)
		acc += sofl_csum_fold(sofl_csum_add(0, buf + off,
						    len - off < chunk ? len - off : chunk));
	return acc;
}

static uint64_t
csum_slice(const struct csum_arg *a, size_t iters)
{
	if (a->kind == CK_DPDK_GENERIC)
		return dk_raw_cksum_loop_generic(a->buf, a->len, iters);
	if (a->kind == CK_DPDK_NATIVE)
		return dk_raw_cksum_loop_native(a->buf, a->len, iters);
	return ours_sum_loop(a->buf, a->len, iters);
}

static double
m_csum(void *arg)
{
	struct csum_arg *a = arg;
	uint64_t t0, t1, acc;
	double v[SLICES];
	size_t per;

	if (a->kind == CK_OURS)
		use_impl(a->impl);
	if (a->chunk) {		/* a->iters passes, each in chunk-size calls */
		acc = 0;
		t0 = tic();
		for (size_t i = 0; i < a->iters; i++) {
			if (a->kind == CK_DPDK_GENERIC)
				acc += dk_raw_cksum_chunks_generic(a->buf, a->len, a->chunk);
			else if (a->kind == CK_DPDK_NATIVE)
				acc += dk_raw_cksum_chunks_native(a->buf, a->len, a->chunk);
			else
				acc += ours_sum_chunks(a->buf, a->len, a->chunk);
		}
		t1 = toc();
		bench_sink(acc);
		return ((double)(t1 - t0) - timer_ovh) / tsc_per_ns / (double)a->iters;
	}
	if (a->iters < SLICES) {	/* long buffers: one timed loop */
		t0 = tic();
		acc = csum_slice(a, a->iters);
		t1 = toc();
		bench_sink(acc);
		return ((double)(t1 - t0) - timer_ovh) / tsc_per_ns / (double)a->iters;
	}
	per = a->iters / SLICES;
	for (int k = 0; k < SLICES; k++) {
		t0 = tic();
		acc = csum_slice(a, per);
		t1 = toc();
		bench_sink(acc);
		v[k] = ((double)(t1 - t0) - timer_ovh) / (double)per;
	}
	return ticks_median_ns(v, SLICES);
}

/* Packet-level checksum rows on the 1514-byte frame. */
enum pk_kind {
	PK_DPDK_L4_GENERIC, PK_DPDK_L4_NATIVE,		/* rte_ipv4_udptcp_cksum */
	PK_DPDK_VERIFY_GENERIC, PK_DPDK_VERIFY_NATIVE,	/* rte_ipv4_cksum + _verify */
	PK_OURS_L4,					/* sofl_csum_pkt_l4, pre-parsed */
	PK_OURS_VERIFY,					/* sofl_pkt_parse + csum_check */
};

struct pk_arg {
	const uint8_t *frame;
	uint32_t len;
	struct sofl_pkt p;
	size_t iters;
	int kind, impl;
};

static double
m_pkt(void *arg)
{
	struct pk_arg *a = arg;
	uint64_t t0, t1, acc = 0;

	if (a->kind >= PK_OURS_L4)
		use_impl(a->impl);
	t0 = tic();
	switch (a->kind) {
	case PK_DPDK_L4_GENERIC:
		acc = dk_l4_cksum_loop_generic(a->frame, a->iters);
		break;
	case PK_DPDK_L4_NATIVE:
		acc = dk_l4_cksum_loop_native(a->frame, a->iters);
		break;
	case PK_DPDK_VERIFY_GENERIC:
		acc = dk_l4_verify_loop_generic(a->frame, a->iters);
		break;
	case PK_DPDK_VERIFY_NATIVE:
		acc = dk_l4_verify_loop_native(a->frame, a->iters);
		break;
	case PK_OURS_L4:
		for (size_t i = 0; i < a->iters; i++) {
			struct sofl_pkt *p = &a->p;
			LAUNDER(p);
			acc += (uint64_t)sofl_csum_pkt_l4(p);
		}
		break;
	case PK_OURS_VERIFY:
		for (size_t i = 0; i < a->iters; i++) {
			const uint8_t *f = a->frame;
			struct sofl_pkt p;
			enum sofl_csum_state ip, l4;
			LAUNDER(f);
			sofl_pkt_parse(&p, f, a->len, SOFL_LINK_ETH);
			sofl_csum_pkt_check(&p, &ip, &l4);
			acc += (uint64_t)ip + (uint64_t)l4;
		}
		break;
	}
	t1 = toc();
	bench_sink(acc);
	return ((double)(t1 - t0) - timer_ovh) / tsc_per_ns / (double)a->iters;
}

static int
best_impl(void)
{
	for (int i = SOFL_CSUM_AVX512; i > 0; i--)
		if (sofl_csum_impl_available((enum sofl_csum_impl)i))
			return i;
	return SOFL_CSUM_GENERIC;
}

static uint16_t
bswap16(uint16_t v)
{
	return (uint16_t)(v << 8 | v >> 8);
}

static const char *const dk_names[] = { "dpdk_generic", "dpdk_native" };

/* Checks and registers the rows of one buffer: rte_raw_cksum (both builds)
 * and sofl_csum_add (each implementation), @iters calls per repetition, or
 * with @chunk one pass over the buffer in chunk-size calls.  Our generic
 * code is compared with Debian's build, our SIMD code with DPDK at its
 * best (-march=native). */
static void
csum_buffer_rows(const uint8_t *buf, size_t n, size_t iters, size_t chunk, const char *label,
		 const char *unit)
{
	uint64_t want = chunk ? ours_sum_chunks(buf, n, chunk) :
				sofl_csum_fold(sofl_csum_add(0, buf, n));
	int d[2];

	/* rte_raw_cksum sums host-order (little-endian) words: its folded sum
	 * is ours byte-swapped (RFC 1071 §2(B), byte order independence) */
	if (!chunk)
		check(dk_raw_cksum_generic(buf, n) == bswap16((uint16_t)want) &&
		      dk_raw_cksum_native(buf, n) == bswap16((uint16_t)want),
		      "csum %s: rte_raw_cksum == sofl_csum_add", label);
	for (int kind = CK_DPDK_GENERIC; kind <= CK_DPDK_NATIVE; kind++) {
		struct csum_arg *a = xalloc(sizeof(*a));
		*a = (struct csum_arg){ buf, n, iters, chunk, kind, 0 };
		d[kind] = add_row("csum", unit, m_csum, a, (double)n, "rte_raw_cksum_%s_%s", label,
				  dk_names[kind]);
	}
	for (int impl = SOFL_CSUM_GENERIC; impl <= SOFL_CSUM_AVX512; impl++) {
		struct csum_arg *a;
		uint64_t got;

		if (!sofl_csum_impl_available((enum sofl_csum_impl)impl))
			continue;
		use_impl(impl);
		got = chunk ? ours_sum_chunks(buf, n, chunk) : sofl_csum_fold(sofl_csum_add(0, buf, n));
		check(got == want, "csum %s: %s == generic", label, impl_names[impl]);
		a = xalloc(sizeof(*a));
		*a = (struct csum_arg){ buf, n, iters, chunk, CK_OURS, impl };
		add_cmp(d[impl == SOFL_CSUM_GENERIC ? 0 : 1],
			add_row("csum", unit, m_csum, a, (double)n, "sofl_csum_add_%s_%s", label,
				impl_names[impl]));
	}
}

/* The 1514-byte TCP/IPv4 frame: 1480 bytes summed + pseudo-header. */
static void
csum_packet_rows(void)
{
	static uint8_t frame[2048];
	uint32_t len = (uint32_t)tcp4_frame(frame, sizeof(frame), 0, 0, MSS, SOFL_TCP_ACK);
	size_t it = iters_for(20000);
	int best = best_impl(), dl[2], dv[2], ol, ov;
	uint8_t tmp[2048];
	struct pk_arg *a;
	struct sofl_pkt p;
	uint16_t c;

	sofl_pkt_parse(&p, frame, len, SOFL_LINK_ETH);
	use_impl(best);
	check(dk_l4_cksum_verify_generic(frame) == 0 && dk_l4_cksum_verify_native(frame) == 0,
	      "csum 1514 B frame: rte_ipv4_udptcp_cksum_verify accepts it");
	/* rte_ipv4_udptcp_cksum returns the field's bytes (network order) */
	memcpy(tmp, frame, len);
	tmp[50] = tmp[51] = 0;
	c = dk_l4_cksum_generic(tmp);
	check(memcmp(&c, frame + 50, 2) == 0,
	      "csum 1514 B frame: rte_ipv4_udptcp_cksum reproduces the checksum");
	check(sofl_csum_pkt_l4(&p) == sofl_get16(frame + 50),
	      "csum 1514 B frame: sofl_csum_pkt_l4 reproduces the checksum");
	for (int kind = 0; kind < 2; kind++) {
		a = xalloc(sizeof(*a));
		*a = (struct pk_arg){ frame, len, p, it, PK_DPDK_L4_GENERIC + kind, 0 };
		dl[kind] = add_row("csum", "pkt", m_pkt, a, 0, "rte_ipv4_udptcp_cksum_1514B_%s",
				   dk_names[kind]);
		a = xalloc(sizeof(*a));
		*a = (struct pk_arg){ frame, len, p, it, PK_DPDK_VERIFY_GENERIC + kind, 0 };
		dv[kind] = add_row("csum", "pkt", m_pkt, a, 0, "rte_ipv4_cksum+udptcp_verify_1514B_%s",
				   dk_names[kind]);
	}
	a = xalloc(sizeof(*a));
	*a = (struct pk_arg){ frame, len, p, it, PK_OURS_L4, best };
	ol = add_row("csum", "pkt", m_pkt, a, 0, "sofl_pkt_l4_csum_1514B_%s", impl_names[best]);
	a = xalloc(sizeof(*a));
	*a = (struct pk_arg){ frame, len, p, it, PK_OURS_VERIFY, best };
	ov = add_row("csum", "pkt", m_pkt, a, 0, "sofl_pkt_parse+csum_check_1514B_%s",
		     impl_names[best]);
	add_cmp(dl[0], ol);
	add_cmp(dl[1], ol);
	add_cmp(dv[0], ov);
	add_cmp(dv[1], ov);
}

/* In-cache sizes are summed repeatedly (64 MB of data per repetition);
 * 64 MB in one pass, 64 KiB per call (rte_raw_cksum's accumulator limit). */
void
setup_csum(void)
{
	static const size_t sizes[] = { 64, 1500, 9000, 65536 };
	uint8_t *hot = xalloc(65536), *big = xalloc(64 * MB);
	char label[16];

	fill_random(hot, 65536, 1);
	fill_random(big, 64 * MB, 2);
	for (size_t k = 0; k < 4; k++) {
		snprintf(label, sizeof(label), "%zuB", sizes[k]);
		csum_buffer_rows(hot, sizes[k], iters_for(64.0 * MB / (double)sizes[k]), 0, label,
				 "call");
	}
	csum_buffer_rows(big, 64 * MB, 1, 65536, "64MB", "pass");
	csum_packet_rows();
}

/* How checksum speed grows with length (docs/benchmarks.md's plot): every
 * implementation and both DPDK builds from 64 B to 64 MiB in steps of 4x,
 * section "csum_sweep", rows "<impl>@<bytes>" (the plot's series and x),
 * about 8 MiB summed per repetition.  Up to 64 KiB one call per buffer;
 * beyond, DPDK in 64 KiB calls (its 32-bit accumulator's limit) and ours in
 * one call, over a buffer larger than the caches from 4 MiB on. */
void
setup_sweep(void)
{
	uint8_t *buf = xalloc(64 * MB);
	char name[48];

	fill_random(buf, 64 * MB, 3);
	for (size_t n = 64; n <= 64 * MB; n *= 4) {
		size_t iters = 8 * MB / n ? 8 * MB / n : 1;
		size_t chunk = n > 65536 ? 65536 : 0;

		int d[2];

		for (int kind = CK_DPDK_GENERIC; kind <= CK_DPDK_NATIVE; kind++) {
			struct csum_arg *a = xalloc(sizeof(*a));

			*a = (struct csum_arg){ buf, n, iters, chunk, kind, 0 };
			snprintf(name, sizeof(name), "%s@%zu", dk_names[kind], n);
			d[kind] = add_row("csum_sweep", chunk ? "pass" : "call", m_csum, a, (double)n,
					  "%s", name);
		}
		for (int impl = SOFL_CSUM_GENERIC; impl <= SOFL_CSUM_AVX512; impl++) {
			struct csum_arg *a;

			if (!sofl_csum_impl_available((enum sofl_csum_impl)impl))
				continue;
			a = xalloc(sizeof(*a));
			*a = (struct csum_arg){ buf, n, iters, 0, CK_OURS, impl };
			snprintf(name, sizeof(name), "sofl_%s@%zu", impl_names[impl], n);
			/* same-run ratios, as for the csum rows: generic against
			 * Debian's build, SIMD against -march=native */
			add_cmp(d[impl == SOFL_CSUM_GENERIC ? 0 : 1],
				add_row("csum_sweep", n > 65536 ? "pass" : "call", m_csum, a, (double)n,
					"%s", name));
		}
	}
}
