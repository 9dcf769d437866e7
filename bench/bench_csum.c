/* bench_csum: Internet checksum throughput per implementation (generic, AVX2,
 * AVX-512) and buffer size, plus the packet-level calls, on the workloads of
 * the DPDK 22.11 anchor run: splitmix64-filled, 4 KiB-aligned buffers; in-cache
 * sizes summed repeatedly (64 MB of data per repetition), 64 MB in one pass.
 *
 * Two in-process baselines give ratios measured in the same run:
 *   ref16  a plain 16-bit-word loop into a 32-bit accumulator (the algorithm
 *          of DPDK's rte_raw_cksum), compiled here at -O3 for the widest ISA
 *          this CPU runs (AVX-512, AVX2 or none) the way DPDK's header-inline
 *          code is compiled with -march=native;
 *   memcpy glibc memcpy of the same size (for sofl_csum_copy).
 * The DPDK 22.11 anchor figures (measured on another day, possibly on
 * another host CPU) are printed next to ours as "anchor" ratios.
 *
 * Repetitions are interleaved (rep 1 of every row, then rep 2, ...) so that
 * slow phases of the shared host hit all rows alike.  $SOFL_BENCH_REPS sets
 * the count (default 15); "-q" runs 3 repetitions; $SOFL_BENCH_SCALE (a
 * factor, default 1) the calls per repetition.  A length sweep follows
 * (sweep()). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "softoffload/softoffload.h"
#include "util.h"

#define MB		(1024u * 1024u)
#define HOT_BYTES	(64u * MB)	/* data summed per repetition, in-cache rows */
#define BIG		(64u * MB)
#define MAXREP		64

/* ---- same-run baselines ---- */

#if defined(__GNUC__) && !defined(__clang__)
#define REF_OPT __attribute__((optimize("O3")))
#else
#define REF_OPT
#endif

/* The rte_raw_cksum algorithm (our own code): 16-bit words, 32-bit sum, which
 * overflows past ~128 KiB, so callers feed it at most 64 KiB at a time.
 * REF16_BODY is compiled once per ISA the way -march=native would compile
 * DPDK's header-inline loop on this CPU; ref16 points at the widest one the
 * CPU runs (ref16_isa names it). */
#define REF16_BODY							\
	{								\
		const uint8_t *p = buf;					\
		size_t i;						\
		for (i = 0; i + 1 < len; i += 2) {			\
			uint16_t w;					\
			memcpy(&w, p + i, 2);				\
			sum += w;					\
		}							\
		if (len & 1)						\
			sum += p[len - 1];				\
		return sum;						\
	}

typedef uint32_t ref16_fn(const void *buf, size_t len, uint32_t sum);

static REF_OPT __attribute__((noinline)) uint32_t
ref16_plain(const void *buf, size_t len, uint32_t sum)
REF16_BODY

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
static __attribute__((target("avx2"))) REF_OPT __attribute__((noinline)) uint32_t
ref16_avx2(const void *buf, size_t len, uint32_t sum)
REF16_BODY

static __attribute__((target("avx2,avx512f,avx512bw,avx512vl"))) REF_OPT __attribute__((noinline)) uint32_t
ref16_avx512(const void *buf, size_t len, uint32_t sum)
REF16_BODY
#endif

static ref16_fn *ref16 = ref16_plain;
static const char *ref16_isa = "plain";

static void
ref16_pick(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")) {
		ref16 = ref16_avx512;
		ref16_isa = "avx512";
	} else if (__builtin_cpu_supports("avx2")) {
		ref16 = ref16_avx2;
		ref16_isa = "avx2";
	}
#endif
}

/* ---- rows ---- */

enum kind { K_SUM, K_SUM_LIB, K_REF16, K_BIG, K_BIG_REF16, K_IPHDR, K_L4CSUM, K_VERIFY, K_PARSE_VERIFY, K_COPY,
	     K_MEMCPY };

struct row {
	const char *name;
	enum kind kind;
	int impl;		/* enum sofl_csum_impl, or -1 */
	size_t size;
	size_t off;		/* K_SUM: byte offset of the buffer in hot */
	double anchor;		/* DPDK figure from the DPDK 22.11 anchor run (0 = none) */
	const char *unit;	/* "GB/s" or "ns" */
	double gbs[MAXREP];
	double ns[MAXREP];
};

static uint8_t *hot, *hot_dst, *big;
static double scale = 1.0;	/* $SOFL_BENCH_SCALE: a factor on HOT_BYTES and the calls */
static uint8_t frame[1514];
static struct sofl_pkt pkt;

/* TCP/IPv4 1514-byte frame of the DPDK 22.11 anchor run (flow 0, segment 0). */
static void
build_frame(void)
{
	uint8_t *f = frame, *ip = f + 14, *tcp = ip + 20;
	size_t i;

	memset(f, 0, sizeof(frame));
	memcpy(f, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00", 14);
	ip[0] = 0x45;
	sofl_put16(ip + 2, 1500);
	sofl_put16(ip + 4, 0x1000);
	sofl_put16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = 6;
	memcpy(ip + 12, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
	sofl_put16(tcp, 40000);
	sofl_put16(tcp + 2, 5201);
	sofl_put32(tcp + 4, 0x10000000);
	sofl_put32(tcp + 8, 0x20000000);
	tcp[12] = 8 << 4;
	tcp[13] = SOFL_TCP_ACK;
	sofl_put16(tcp + 14, 502);
	memcpy(tcp + 20, "\x01\x01\x08\x0a", 4);
	sofl_put32(tcp + 24, 0x00a00000);
	sofl_put32(tcp + 28, 0x00b00000);
	for (i = 0; i < 1448; i++)
		tcp[32 + i] = (uint8_t)i;
	if (sofl_pkt_parse(&pkt, frame, sizeof(frame), SOFL_LINK_ETH) ||
	    sofl_csum_pkt_fill(frame, &pkt, 0)) {
		fprintf(stderr, "bench_csum: frame builder broken\n");
		exit(2);
	}
}

static int
use_impl(int impl)
{
	if (impl >= 0 && sofl_csum_set_impl((enum sofl_csum_impl)impl) != 0)
		return -1;
	return 0;
}

/* Runs one repetition of @r; returns the checksum-ish value for the sink. */
static uint64_t
run(struct row *r, int rep)
{
	size_t n, i, calls;
	uint64_t t0, t1, acc = 0;
	uint32_t s = 0;
	enum sofl_csum_state a, b;

	use_impl(r->impl);
	switch (r->kind) {
	case K_SUM:
	case K_SUM_LIB:
	case K_REF16:
	case K_COPY:
	case K_MEMCPY:
		calls = (size_t)((double)HOT_BYTES * scale) / r->size;
		calls = calls ? calls : 1;
		break;
	case K_BIG:
	case K_BIG_REF16:
		calls = 1;
		break;
	default:
		calls = (size_t)((double)(1u << 20) * scale);
		calls = calls ? calls : 1;
		break;
	}
	n = r->size;
	t0 = bench_ns();
	switch (r->kind) {
	case K_SUM:
		for (i = 0; i < calls; i++) {
			/* the buffer "may change": an inline sum cannot be hoisted */
			__asm__ volatile("" : : "r"(hot) : "memory");
			s = sofl_csum_add(s, hot + r->off, n);
		}
		acc = s;
		break;
	case K_SUM_LIB:		/* the library function, never the inline path */
		for (i = 0; i < calls; i++) {
			__asm__ volatile("" : : "r"(hot) : "memory");
			s = (sofl_csum_add)(s, hot, n);
		}
		acc = s;
		break;
	case K_REF16:
		for (i = 0; i < calls; i++) {
			/* the buffer "may change": the call cannot be hoisted */
			__asm__ volatile("" : : "r"(hot) : "memory");
			s += sofl_csum_fold(ref16(hot, n, 0));
		}
		acc = s;
		break;
	case K_BIG:
		acc = sofl_csum_add(0, big, n);
		break;
	case K_BIG_REF16:
		for (i = 0; i < n; i += 65536)
			s += sofl_csum_fold(ref16(big + i, 65536, 0));
		acc = s;
		break;
	case K_COPY:
		for (i = 0; i < calls; i++)
			s = sofl_csum_copy(hot_dst, hot, n, s);
		acc = s;
		break;
	case K_MEMCPY:
		for (i = 0; i < calls; i++) {
			memcpy(hot_dst, hot, n);
			__asm__ volatile("" : : "r"(hot_dst) : "memory");
		}
		acc = hot_dst[0];
		break;
	case K_IPHDR:
		for (i = 0; i < calls; i++)
			acc += sofl_csum_ipv4_hdr(frame + 14, 20);
		break;
	case K_L4CSUM:
		for (i = 0; i < calls; i++)
			acc += (uint64_t)sofl_csum_pkt_l4(&pkt);
		break;
	case K_VERIFY:
		for (i = 0; i < calls; i++) {
			sofl_csum_pkt_check(&pkt, &a, &b);
			acc += (unsigned)a + (unsigned)b;
		}
		break;
	case K_PARSE_VERIFY:
		for (i = 0; i < calls; i++) {
			struct sofl_pkt q;

			acc += (uint64_t)sofl_pkt_parse(&q, frame, sizeof(frame), SOFL_LINK_ETH);
			sofl_csum_pkt_check(&q, &a, &b);
			acc += (unsigned)a + (unsigned)b;
		}
		break;
	}
	t1 = bench_ns();
	r->ns[rep] = (double)(t1 - t0) / (double)calls;
	r->gbs[rep] = (double)n * (double)calls / (double)(t1 - t0);
	return acc;
}

static const char *const impl_names[] = { "generic", "avx2", "avx512" };

static struct row rows[64];
static char names[64][64];
static int nrows;

static void
add_row(enum kind kind, int impl, size_t size, double anchor, const char *unit,
	const char *fmt, const char *arg)
{
	struct row *r = &rows[nrows];

	if (nrows == (int)(sizeof(rows) / sizeof(rows[0]))) {
		fprintf(stderr, "bench_csum: too many rows\n");
		exit(2);
	}
	snprintf(names[nrows], sizeof(names[0]), fmt, arg);
	memset(r, 0, sizeof(*r));
	r->name = names[nrows];
	r->kind = kind;
	r->impl = impl;
	r->size = size;
	r->anchor = anchor;
	r->unit = unit;
	nrows++;
}

static const struct row *
find_ref(const struct row *r)
{
	int i;

	for (i = 0; i < nrows; i++) {
		enum kind want = r->kind == K_SUM || r->kind == K_SUM_LIB ? K_REF16 : r->kind == K_BIG ? K_BIG_REF16 :
				 r->kind == K_COPY ? K_MEMCPY : K_SUM;
		if (rows[i].kind == want && rows[i].size == r->size && want != K_SUM)
			return &rows[i];
	}
	return NULL;
}

/* How speed grows with length (docs/benchmarks.md's plot; bench_vs_dpdk
 * has the same rows with DPDK alongside): section csum_sweep, rows
 * "sofl_<impl>@<bytes>" from 64 B to 64 MiB in steps of 4x, about 8 MiB
 * summed per repetition (at least one pass), repetitions interleaved. */
#define NSWEEP	(11 * 3)

static void
sweep(int reps)
{
	static double gbs[NSWEEP][MAXREP];
	static char sname[NSWEEP][32];
	size_t len[NSWEEP];
	int impl_of[NSWEEP], n = 0, rep, i;
	uint64_t acc = 0;

	for (size_t l = 64; l <= BIG; l *= 4)
		for (int impl = 0; impl <= SOFL_CSUM_AVX512; impl++) {
			if (!sofl_csum_impl_available((enum sofl_csum_impl)impl) || n == NSWEEP)
				continue;
			len[n] = l;
			impl_of[n] = impl;
			snprintf(sname[n], sizeof(sname[n]), "sofl_%s@%zu", impl_names[impl], l);
			n++;
		}
	for (rep = 0; rep < reps; rep++)
		for (i = 0; i < n; i++) {
			size_t iters = (size_t)(8.0 * MB * scale) / len[i], k;
			uint32_t s = 0;
			uint64_t t0, t1;

			iters = iters ? iters : 1;
			use_impl(impl_of[i]);
			t0 = bench_ns();
			for (k = 0; k < iters; k++) {
				__asm__ volatile("" : : "r"(big) : "memory");
				s = sofl_csum_add(s, big, len[i]);
			}
			t1 = bench_ns();
			acc += s;
			gbs[i][rep] = (double)len[i] * (double)iters / (double)(t1 - t0 ? t1 - t0 : 1);
		}
	bench_sink(acc);
	for (i = 0; i < n; i++)
		bench_report("csum_sweep", sname[i], "GBps", "GB/s", gbs[i], reps);
}

int
main(int argc, char **argv)
{
	static const size_t sizes[] = { 64, 1500, 9000, 65536 };
	static const char *const szname[] = { "64B", "1500B", "9000B", "65536B" };
	/* rte_raw_cksum, -march=native, the DPDK 22.11 anchor run */
	static const double anchor_gbs[] = { 19.0, 51.3, 52.7, 53.6 };
	static const struct { size_t size, off; } odd[] = {
		{ 1500, 0 }, { 1488, 26 }, { 1512, 22 }, { 1480, 34 }, { 1460, 54 }, { 1448, 66 },
	};
	const char *def = sofl_csum_impl_name();
	int reps, rep, i, impl;
	unsigned k;
	uint64_t sink = 0;
	char fmt[64];

	reps = bench_reps_args(argc, argv, 15, MAXREP);
	ref16_pick();
	if (getenv("SOFL_BENCH_SCALE") && atof(getenv("SOFL_BENCH_SCALE")) > 0)
		scale = atof(getenv("SOFL_BENCH_SCALE"));
	hot = bench_alloc(65536);
	hot_dst = bench_alloc(65536);
	big = bench_alloc(BIG);
	bench_fill_random(hot, 65536, 1);
	bench_fill_random(big, BIG, 2);
	build_frame();

	for (impl = 0; impl <= SOFL_CSUM_AVX512; impl++) {
		if (!sofl_csum_impl_available((enum sofl_csum_impl)impl))
			continue;
		for (k = 0; k < 4; k++) {
			snprintf(fmt, sizeof(fmt), "sum_%s_%%s", szname[k]);
			add_row(K_SUM, impl, sizes[k], anchor_gbs[k], "GB/s", fmt, impl_names[impl]);
		}
		add_row(K_BIG, impl, BIG, 8.08, "GB/s", "sum_64MB_%s", impl_names[impl]);
		/* the same sizes through the library call: the inline path's gain */
		add_row(K_SUM_LIB, impl, 20, 0, "GB/s", "libcall_20B_%s", impl_names[impl]);
		add_row(K_SUM_LIB, impl, 64, anchor_gbs[0], "GB/s", "libcall_64B_%s", impl_names[impl]);
	}
	add_row(K_SUM, -1, 20, 0, "GB/s", "sum_20B_inline%s", "");
	/* The default kernel on the buffers GRO and the packet helpers verify in
	 * 1514-byte frames (64-byte aligned in hot): the TCP checksum with its
	 * pseudo-header fields from the IP header (IPv4: ip + 12, 8 + l4len
	 * bytes at frame offset 26; IPv6: ip + 8 at 22), the L4 segment (34),
	 * and the payloads after 20- and 32-byte TCP headers (54, 66). */
	for (impl = SOFL_CSUM_AVX512; impl > 0; impl--)
		if (!strcmp(def, impl_names[impl]))
			break;
	for (k = 0; k < sizeof(odd) / sizeof(odd[0]); k++) {
		snprintf(fmt, sizeof(fmt), "sum_%zuB@%zu_%%s", odd[k].size, odd[k].off);
		add_row(K_SUM, impl, odd[k].size, 0, "GB/s", fmt, impl_names[impl]);
		rows[nrows - 1].off = odd[k].off;
	}
	for (k = 0; k < 4; k++)
		add_row(K_REF16, -1, sizes[k], anchor_gbs[k], "GB/s", "ref16_%s", szname[k]);
	add_row(K_BIG_REF16, -1, BIG, 8.08, "GB/s", "ref16_64MB%s", "");
	for (impl = 0; impl <= SOFL_CSUM_AVX512; impl++) {
		if (!sofl_csum_impl_available((enum sofl_csum_impl)impl))
			continue;
		add_row(K_IPHDR, impl, 20, 4.56, "ns", "ipv4_hdr_csum_20B_%s", impl_names[impl]);
		add_row(K_L4CSUM, impl, 1480, 31.8, "ns", "pkt_l4_csum_tcp4_1514B_%s",
			impl_names[impl]);
		add_row(K_VERIFY, impl, 1480, 0, "ns", "pkt_csum_check_tcp4_1514B_%s",
			impl_names[impl]);
		add_row(K_PARSE_VERIFY, impl, 1480, 0, "ns", "parse+check_tcp4_1514B_%s",
			impl_names[impl]);
		add_row(K_COPY, impl, 1500, 0, "GB/s", "csum_copy_1500B_%s", impl_names[impl]);
	}
	add_row(K_MEMCPY, -1, 1500, 136, "GB/s", "memcpy_1500B%s", "");

	/* warm-up, then interleaved repetitions */
	for (i = 0; i < nrows; i++)
		sink ^= run(&rows[i], 0);
	for (rep = 0; rep < reps; rep++)
		for (i = 0; i < nrows; i++)
			sink ^= run(&rows[i], rep);
	bench_sink(sink);

	printf("# bench_csum: default implementation %s, ref16 compiled for %s, %d interleaved repetitions\n",
	       def, ref16_isa, reps);
	for (i = 0; i < nrows; i++) {
		struct row *r = &rows[i];
		int ns = !strcmp(r->unit, "ns");
		double tmp[MAXREP];

		memcpy(tmp, ns ? r->ns : r->gbs, sizeof(tmp));
		bench_report("csum", r->name, ns ? "ns_per_call" : "GBps", r->unit, tmp, reps);
		if (!ns && r->kind != K_BIG && r->kind != K_BIG_REF16) {
			memcpy(tmp, r->ns, sizeof(tmp));
			bench_report("csum", r->name, "ns_per_call", "ns", tmp, reps);
		}
	}

	sweep(reps);

	/* summary: medians and ratios */
	printf("\n# summary (median of %d; same-run ratio vs ref16/memcpy; anchor = DPDK 22.11 "
	       "figure from the DPDK 22.11 anchor run)\n", reps);
	printf("%-36s %10s %6s %12s %12s\n", "row", "median", "unit", "x same-run", "x anchor");
	for (i = 0; i < nrows; i++) {
		const struct row *r = &rows[i], *ref = find_ref(r);
		int ns = !strcmp(r->unit, "ns");
		double m = bench_median_of(ns ? r->ns : r->gbs, reps);
		char same[16] = "-", anch[16] = "-";

		if (ref && ref != r)
			snprintf(same, sizeof(same), "%.2f", m / bench_median_of(ref->gbs, reps));
		if (r->anchor > 0)
			snprintf(anch, sizeof(anch), "%.2f", ns ? r->anchor / m : m / r->anchor);
		printf("%-36s %10.3g %6s %12s %12s\n", r->name, m, r->unit, same, anch);
	}
	return 0;
}
