/* bench_vs_dpdk: softoffload and DPDK 22.11 side by side, in one process, on
 * identical input bytes, with the workloads and the method of
 * the DPDK 22.11 anchor run:
 *
 *   - every row is registered and checked first (both sides must produce the
 *     expected output), then repetitions are interleaved: rep 1 of every row,
 *     rep 2 of every row, ... so slow phases of the shared host hit all rows;
 *   - per-call rows (GRO bursts, GSO super-packets) time only the call with
 *     lfence/rdtsc ... rdtscp/lfence and subtract the median cost of an empty
 *     timer pair; the input restore before each call is untimed; one
 *     repetition = the median over its calls;
 *   - loop rows (checksums, Toeplitz) time a loop in 16 slices and keep
 *     the median slice (a slice another process interrupted is left out);
 *   - headline = median over repetitions; the ratio DPDK / softoffload is
 *     computed per repetition (both rows ran within milliseconds of each
 *     other) and reported as median [min..max].
 *
 * Usage: bench_vs_dpdk [-r reps] [-s scale] [-o csum,rss,gro,gso,sweep] [-v]
 *                      [-- EAL arguments]
 * Without EAL arguments it uses the flags that work on this machine without
 * hugepages: -l <cpu> --no-huge --no-pci -m 512 --no-shconf --no-telemetry
 * --log-level=1.  $SOFL_BENCH_REPS sets the repetitions (default 15),
 * $SOFL_BENCH_SCALE the default of -s.
 * Exit status: 0, 1 when a correctness check failed, 2 on set-up failure. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <x86intrin.h>
#include "softoffload/softoffload.h"
#include "softoffload/gso.h"
#include "softoffload/rss.h"
#include "softoffload/gro.h"
#include "../util.h"
#include "../workloads.h"
#include "../../tests/helpers.h"
#include "dpdk_kern.h"
#include "dpdk_side.h"

#define MAXREP	64
#define MAXROW	256
#define MAXCMP	96
#define MAXCALL	512
#define MB	(1024u * 1024u)

/* ---- timing ---- */

static double tsc_per_ns;	/* TSC ticks per ns, calibrated at start */
static double timer_ovh;	/* ticks of an empty tic()/toc() pair */

static inline uint64_t
tic(void)
{
	uint64_t t;

	_mm_lfence();
	t = __rdtsc();
	_mm_lfence();
	return t;
}

static inline uint64_t
toc(void)
{
	unsigned aux;
	uint64_t t = __rdtscp(&aux);

	_mm_lfence();
	return t;
}

/* Hides a pointer from the optimiser so a call on the same input is not
 * hoisted out of a timing loop. */
#define LAUNDER(p) __asm__ volatile("" : "+r"(p) : : "memory")

static void
calibrate(void)
{
	double v[101];
	uint64_t n0 = bench_ns(), t0 = tic(), n1, t1;

	do {
		n1 = bench_ns();
	} while (n1 - n0 < 100000000);
	t1 = toc();
	tsc_per_ns = (double)(t1 - t0) / (double)(n1 - n0);
	for (int i = 0; i < 101; i++) {
		uint64_t a = tic(), b = toc();
		v[i] = (double)(b - a);
	}
	timer_ovh = bench_median(v, 101);
}

/* Median over @calls of one call's ticks (minus the timer), in ns. */
static double
ticks_median_ns(double *v, int calls)
{
	return bench_median(v, calls) / tsc_per_ns;
}

/* ---- rows and comparisons ---- */

typedef double (*measure_fn)(void *arg);	/* one repetition: ns per unit */

struct row {
	const char *sec;
	char name[80];
	const char *unit;	/* "pkt", "seg", "hash", "call" */
	measure_fn fn;
	void *arg;
	double bytes;		/* bytes per unit: also report GB/s (0: not) */
	double s[MAXREP];
};

struct cmp {
	int d, o;		/* DPDK row, softoffload row */
};

static struct row rows[MAXROW];
static int nrows;
static struct cmp cmps[MAXCMP];
static int ncmps;
static int failures;
static int verbose;
static double scale = 1.0;

static int
add_row(const char *sec, const char *unit, measure_fn fn, void *arg, double bytes,
	const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static int
add_row(const char *sec, const char *unit, measure_fn fn, void *arg, double bytes,
	const char *fmt, ...)
{
	struct row *r;
	va_list ap;

	if (nrows == MAXROW) {
		fprintf(stderr, "bench_vs_dpdk: too many rows\n");
		exit(2);
	}
	r = &rows[nrows];
	r->sec = sec;
	r->unit = unit;
	r->fn = fn;
	r->arg = arg;
	r->bytes = bytes;
	va_start(ap, fmt);
	vsnprintf(r->name, sizeof(r->name), fmt, ap);
	va_end(ap);
	return nrows++;
}

static void
add_cmp(int d, int o)
{
	if (ncmps < MAXCMP && d >= 0 && o >= 0)
		cmps[ncmps++] = (struct cmp){ d, o };
}

static void
check(int ok, const char *what, ...) __attribute__((format(printf, 2, 3)));

static void
check(int ok, const char *what, ...)
{
	va_list ap;

	if (ok && !verbose)
		return;
	va_start(ap, what);
	printf("check %-4s ", ok ? "ok" : "FAIL");
	vprintf(what, ap);
	printf("\n");
	va_end(ap);
	if (!ok)
		failures++;
}

static void *
xalloc(size_t len)
{
	void *p = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);

	if (p == NULL) {
		fprintf(stderr, "bench_vs_dpdk: out of memory\n");
		exit(2);
	}
	memset(p, 0, len);
	return p;
}

static size_t
iters_for(double want)
{
	double n = want * scale;

	return n < 1 ? 1 : (size_t)n;
}

static uint64_t
splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void
fill_random(uint8_t *buf, size_t len, uint64_t seed)
{
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		uint64_t v = splitmix64(&seed);
		memcpy(buf + i, &v, 8);	/* little-endian bytes on x86 */
	}
	for (; i < len; i++)
		buf[i] = (uint8_t)splitmix64(&seed);
}

/* ---- the workloads of the DPDK 22.11 anchor run ---- */

#define MSS	1448
#define HDRS	66

static uint32_t
flow_isn(int flow)
{
	return 0x10000000u + (uint32_t)flow * 0x01000000u;
}

/* TCP/IPv4 segment @seg of flow @flow carrying @pay bytes (build_tcp4_frame). */
static size_t
tcp4_frame(uint8_t *buf, size_t cap, int flow, uint32_t seg, size_t pay, uint8_t flags)
{
	static const uint8_t s4[4] = { 10, 0, 0, 1 }, d4[4] = { 10, 0, 0, 2 };
	uint8_t opt[12];
	struct t_spec s;

	t_spec_init(&s, 4, 6);
	memcpy(s.src, s4, 4);
	memcpy(s.dst, d4, 4);
	s.sport = (uint16_t)(40000 + flow);
	s.dport = 5201;
	s.seq = flow_isn(flow) + seg * MSS;
	s.ack = 0x20000000u;
	s.win = 502;
	s.flags = flags;
	s.ip_id = (uint16_t)(0x1000 + flow * 0x100 + seg);
	t_opt_ts_set(opt, 0x00a00000u + (uint32_t)flow, 0x00b00000u);
	s.tcp_opts = opt;
	s.tcp_opts_len = sizeof(opt);
	s.pay_len = pay;
	s.pay_off = seg * MSS;
	s.pay_seed = (uint8_t)(7 * flow);
	return t_build(buf, cap, &s);
}

/* UDP/IPv4 datagram, DF clear, for the GSO (fragmentation / USO) rows. */
static size_t
udp4_frame(uint8_t *buf, size_t cap, size_t pay)
{
	static const uint8_t s4[4] = { 10, 0, 0, 1 }, d4[4] = { 10, 0, 0, 2 };
	struct t_spec s;

	t_spec_init(&s, 4, 17);
	memcpy(s.src, s4, 4);
	memcpy(s.dst, d4, 4);
	s.sport = 40000;
	s.dport = 5201;
	s.df = 0;
	s.ip_id = 0x1000;
	s.pay_len = pay;
	return t_build(buf, cap, &s);
}

/* One GRO input burst. */
struct burst {
	const char *id;
	int n;
	uint8_t *frame[1024];
	uint32_t len[1024];
	const char *expect_dpdk;	/* output description (see describe()) */
	int nout_dpdk;
};

enum { W1, W2, W3, W4, WX, NW };

static struct burst bursts[NW];
static struct burst heavy;		/* W2 pattern x 1024 */

/* Frame buffers for the GRO inputs, packed like a receive ring's: a stride
 * of 2176 bytes (an mbuf's default data room) puts consecutive headers in
 * different L1 sets.  Separate 4 KiB-aligned buffers would put all 32
 * headers of a burst in one 8-way set and penalise whichever side reads
 * them in place (ours; DPDK reads its own mbuf copies). */
#define SLOT	2176

static uint8_t *
frame_slot(void)
{
	static uint8_t *arena;
	static size_t used, cap;

	if (used == cap) {
		cap = 256;
		arena = xalloc(cap * SLOT);
		used = 0;
	}
	return arena + SLOT * used++;
}

static void
build_bursts(void)
{
	static const enum wl_gro wl[] = { WL_W1, WL_W2, WL_W3, WL_W4 };
	int same = 0;

	/* W1-W4 and the heavyweight stream: bench/workloads.h, shared with
	 * bench_gro, so both benchmarks feed the same bytes */
	for (int w = W1; w <= W4; w++) {
		for (int k = 0; k < WL_BURST; k++)
			bursts[w].frame[k] = frame_slot();
		wl_gro_burst(wl[w], bursts[w].frame, bursts[w].len);
		bursts[w].n = WL_BURST;
	}
	for (int k = 0; k < 1024; k++) {
		uint32_t flow, seg;
		wl_many_packet((uint64_t)k, 4, &flow, &seg);
		heavy.frame[k] = frame_slot();
		heavy.len[k] = (uint32_t)wl_tcp4_frame(heavy.frame[k], flow, seg, WL_MSS, WL_F_ACK);
	}
	heavy.n = 1024;
	/* X: UDP datagrams of the same size; DPDK is told so by packet_type,
	 * ours finds out by parsing (UDP GRO off) */
	for (int k = 0; k < WL_BURST; k++) {
		bursts[WX].frame[k] = frame_slot();
		bursts[WX].len[k] = (uint32_t)udp4_frame(bursts[WX].frame[k], 2048, MSS + 24);
	}
	bursts[WX].n = WL_BURST;
	/* our own builder (GSO super-packets, expected segments) must agree */
	for (int k = 0; k < WL_BURST; k++) {
		uint8_t f[2048];
		uint32_t flow, seg;
		uint8_t fl;
		size_t l;

		wl_gro_packet(WL_W4, (unsigned)k, &flow, &seg, &fl);
		l = tcp4_frame(f, sizeof(f), (int)flow, seg, MSS, fl);
		same += l == bursts[W4].len[k] && memcmp(f, bursts[W4].frame[k], l) == 0;
	}
	check(same == WL_BURST, "workloads: wl_gro_burst(W4) == this harness's builder, %d/%d",
	      same, WL_BURST);
	bursts[W1].id = "W1_1flow_inorder";
	bursts[W1].expect_dpdk = "f0:s0-31";
	bursts[W1].nout_dpdk = 1;
	bursts[W2].id = "W2_4flows_rr";
	bursts[W2].expect_dpdk = "f0:s0-7 f1:s0-7 f2:s0-7 f3:s0-7";
	bursts[W2].nout_dpdk = 4;
	bursts[W3].id = "W3_32flows_nomerge";
	bursts[W3].nout_dpdk = 32;
	bursts[W4].id = "W4_1flow_psh_every8";
	/* DPDK 22.11 returns PSH segments unmerged, after the merged runs */
	bursts[W4].expect_dpdk = "f0:s0-6 f0:s8-14 f0:s16-22 f0:s24-30 f0:s7P f0:s15P f0:s23P f0:s31P";
	bursts[W4].nout_dpdk = 8;
	bursts[WX].id = "X_32_not_eligible";
	bursts[WX].nout_dpdk = 32;
	heavy.id = "H_W2x1024";
}

/* Describes one TCP/IPv4 output packet of the anchor flows as
 * "f<flow>:s<first>[-<last>][P]" after checking it: IPv4 total length =
 * frame - 14, payload = the contiguous stream bytes of its flow, whole
 * segments.  *ipsum_ok tells whether its IPv4 header checksum verifies.
 * @return 0, or -1 (with a reason in @out) when the packet is wrong. */
static int
describe(const uint8_t *pkt, long len, char *out, size_t cap, int *ipsum_ok)
{
	struct sofl_pkt p;
	int flow;
	uint32_t off, first, nseg;

	if (len < 0) {
		snprintf(out, cap, "<inconsistent mbuf chain>");
		return -1;
	}
	if (sofl_pkt_parse(&p, pkt, (size_t)len, SOFL_LINK_ETH) != 0 || p.ipv != 4 ||
	    p.l4_proto != 6 || !(p.layers & SOFL_LAYER_L4) || p.ip_end != (uint32_t)len) {
		snprintf(out, cap, "<not a whole TCP/IPv4 packet, %ld B>", len);
		return -1;
	}
	flow = (int)p.key.sport - 40000;
	off = p.tcp_seq - flow_isn(flow);
	if (flow < 0 || flow > 31 || off % MSS || p.pay_len % MSS || p.pay_len == 0) {
		snprintf(out, cap, "<unexpected flow/seq/len %d %u %u>", flow, off, p.pay_len);
		return -1;
	}
	for (uint32_t i = 0; i < p.pay_len; i++)
		if (pkt[p.pay_off + i] != (uint8_t)(off + i + 7u * (unsigned)flow)) {
			snprintf(out, cap, "<payload byte %u of f%d wrong>", i, flow);
			return -1;
		}
	*ipsum_ok = sofl_ipv4_hdr_csum_ok(pkt + p.l3_off, p.l3_len);
	first = off / MSS;
	nseg = p.pay_len / MSS;
	if (nseg == 1)
		snprintf(out, cap, "f%d:s%u%s", flow, first, p.tcp_flags & SOFL_TCP_PSH ? "P" : "");
	else
		snprintf(out, cap, "f%d:s%u-%u%s", flow, first, first + nseg - 1,
			 p.tcp_flags & SOFL_TCP_PSH ? "P" : "");
	return 0;
}

/* Output i of some engine, linearised: the checker's only view of it. */
typedef long (*out_fn)(void *eng, int i, uint8_t *buf, size_t cap);

static uint8_t outbuf[1 << 17];

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Joins @n words into @out, space-separated, sorted first when @sorted. */
static void
join(char **w, int n, int sorted, char *out, size_t cap)
{
	size_t o = 0;

	if (sorted)
		qsort(w, (size_t)n, sizeof(w[0]), cmp_str);
	out[0] = 0;
	for (int i = 0; i < n; i++)
		o += (size_t)snprintf(out + o, o < cap ? cap - o : 0, "%s%s", i ? " " : "", w[i]);
}

/* Sorts the space-separated words of @in into @out. */
static void
sort_words(const char *in, char *out, size_t cap)
{
	static char copy[65536];
	char *w[1024], *save = NULL, *t;
	int n = 0;

	snprintf(copy, sizeof(copy), "%s", in);
	for (t = strtok_r(copy, " ", &save); t && n < 1024; t = strtok_r(NULL, " ", &save))
		w[n++] = t;
	join(w, n, 1, out, cap);
}

/* Builds the description of outputs 0..n-1 (sorted when @sorted: the heavy
 * table flushes flows in table order, which is not part of the contract).
 * @return the number of outputs whose IPv4 header checksum is stale. */
static int
describe_all(void *eng, out_fn out, int n, int sorted, char *desc, size_t cap, int *bad)
{
	static char tok[1024][96];
	char *p[1024];
	int stale = 0;

	*bad = 0;
	if (n > 1024)
		n = 1024;
	for (int i = 0; i < n; i++) {
		int ok = 1;
		if (describe(outbuf, out(eng, i, outbuf, sizeof(outbuf)), tok[i], sizeof(tok[i]),
			     &ok) != 0)
			(*bad)++;
		stale += !ok;
		p[i] = tok[i];
	}
	join(p, n, sorted, desc, cap);
	return stale;
}

/* "f0:s0-7 f1:s0-7 ..." for the W3 / X shapes: every input a singleton. */
static void
singletons(const struct burst *b, char *desc, size_t cap)
{
	size_t o = 0;

	for (int i = 0; i < b->n; i++) {
		char t[96];
		int ok;
		describe(b->frame[i], b->len[i], t, sizeof(t), &ok);
		o += (size_t)snprintf(desc + o, o < cap ? cap - o : 0, "%s%s", i ? " " : "", t);
	}
}

/* 1 when the engine's outputs are the burst's inputs, unchanged, in order. */
static int
passed_through(void *eng, out_fn out, int n, const struct burst *b)
{
	int same = 0;

	for (int i = 0; i < n && i < b->n; i++) {
		long l = out(eng, i, outbuf, sizeof(outbuf));
		same += l == (long)b->len[i] && memcmp(outbuf, b->frame[i], b->len[i]) == 0;
	}
	return n == b->n && same == n;
}

/* Heavyweight expectation (sorted): per flow, runs of @run segments over 256. */
static void
heavy_expect(int run, char *desc, size_t cap)
{
	static char tok[1024][96];
	char *p[1024];
	int n = 0;

	for (int f = 0; f < 4; f++)
		for (int s = 0; s < 256; s += run) {
			int last = s + run - 1 < 255 ? s + run - 1 : 255;
			snprintf(tok[n], sizeof(tok[n]), "f%d:s%d-%d", f, s, last);
			p[n] = tok[n];
			n++;
		}
	join(p, n, 1, desc, cap);
}

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

/* Loop rows are timed in SLICES slices and report the median slice: a
 * slice that another process's time slice landed in is left out, which a
 * single timed loop cannot do on a shared host. */
#define SLICES	16

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
	PK_OURS_L4,					/* sofl_pkt_l4_csum, pre-parsed */
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
			acc += (uint64_t)sofl_pkt_l4_csum(p);
		}
		break;
	case PK_OURS_VERIFY:
		for (size_t i = 0; i < a->iters; i++) {
			const uint8_t *f = a->frame;
			struct sofl_pkt p;
			enum sofl_csum_state ip, l4;
			LAUNDER(f);
			sofl_pkt_parse(&p, f, a->len, SOFL_LINK_ETH);
			sofl_pkt_csum_check(&p, &ip, &l4);
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
	check(sofl_pkt_l4_csum(&p) == sofl_get16(frame + 50),
	      "csum 1514 B frame: sofl_pkt_l4_csum reproduces the checksum");
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
static void
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
static void
setup_sweep(void)
{
	uint8_t *buf = xalloc(64 * MB);
	char name[48];

	fill_random(buf, 64 * MB, 3);
	for (size_t n = 64; n <= 64 * MB; n *= 4) {
		size_t iters = 8 * MB / n ? 8 * MB / n : 1;
		size_t chunk = n > 65536 ? 65536 : 0;

		for (int kind = CK_DPDK_GENERIC; kind <= CK_DPDK_NATIVE; kind++) {
			struct csum_arg *a = xalloc(sizeof(*a));

			*a = (struct csum_arg){ buf, n, iters, chunk, kind, 0 };
			snprintf(name, sizeof(name), "%s@%zu", dk_names[kind], n);
			add_row("csum_sweep", chunk ? "pass" : "call", m_csum, a, (double)n, "%s", name);
		}
		for (int impl = SOFL_CSUM_GENERIC; impl <= SOFL_CSUM_AVX512; impl++) {
			struct csum_arg *a;

			if (!sofl_csum_impl_available((enum sofl_csum_impl)impl))
				continue;
			a = xalloc(sizeof(*a));
			*a = (struct csum_arg){ buf, n, iters, 0, CK_OURS, impl };
			snprintf(name, sizeof(name), "sofl_%s@%zu", impl_names[impl], n);
			add_row("csum_sweep", n > 65536 ? "pass" : "call", m_csum, a, (double)n, "%s",
				name);
		}
	}
}

/* ---- RSS / Toeplitz rows ---- */

enum rss_kind {
	RK_SOFTRSS_GENERIC, RK_SOFTRSS_NATIVE, RK_SOFTRSS_BE_GENERIC, RK_SOFTRSS_BE_NATIVE,
	RK_GFNI, RK_GFNI_BULK,			/* DPDK, -march=native only */
	RK_OURS_ONE, RK_OURS_BULK, RK_OURS_BURST,	/* softoffload */
};

#define NTUPLE	1024
#define BULK	32

struct rss_arg {
	const uint8_t *tuples;		/* NTUPLE x tlen bytes */
	const void *const *ptr;		/* pointers to each tuple */
	const struct sofl_pkt *pkts;	/* the tuples as parsed TCP packets */
	const struct sofl_rss *eng;
	int tlen, kind;
	size_t loops;			/* passes over the NTUPLE tuples */
};

static const uint8_t ms_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

static uint64_t
ours_rss_pass(const struct rss_arg *a)
{
	uint32_t h[BULK], acc = 0;
	struct sofl_rss_out out[BULK];

	switch (a->kind) {
	case RK_OURS_ONE:
		for (size_t i = 0; i < NTUPLE; i++) {
			sofl_rss_hash_bytes(a->eng, a->tuples + i * (size_t)a->tlen,
					    (size_t)a->tlen, &h[0]);
			acc ^= h[0];
		}
		break;
	case RK_OURS_BULK:
		for (size_t i = 0; i < NTUPLE; i += BULK) {
			sofl_rss_hash_bulk(a->eng, a->ptr + i, (size_t)a->tlen, BULK, h);
			for (int k = 0; k < BULK; k++)
				acc ^= h[k];
		}
		break;
	case RK_OURS_BURST:
		for (size_t i = 0; i < NTUPLE; i += BULK) {
			sofl_rss_burst(a->eng, a->pkts + i, BULK, out);
			for (int k = 0; k < BULK; k++)
				acc ^= out[k].hash;
		}
		break;
	}
	return acc;
}

static uint64_t
rss_pass(const struct rss_arg *a)
{
	const uint8_t *t = a->tuples;

	LAUNDER(t);
	switch (a->kind) {
	case RK_SOFTRSS_GENERIC:
		return dk_softrss_loop_generic(t, a->tlen, NTUPLE, ms_key);
	case RK_SOFTRSS_NATIVE:
		return dk_softrss_loop_native(t, a->tlen, NTUPLE, ms_key);
	case RK_SOFTRSS_BE_GENERIC:
		return dk_softrss_be_loop_generic(t, a->tlen, NTUPLE, ms_key);
	case RK_SOFTRSS_BE_NATIVE:
		return dk_softrss_be_loop_native(t, a->tlen, NTUPLE, ms_key);
	case RK_GFNI:
		return dk_thash_gfni_loop(t, a->tlen, NTUPLE);
	case RK_GFNI_BULK:
		return dk_thash_gfni_bulk_loop(t, a->tlen, NTUPLE);
	default:
		return ours_rss_pass(a);
	}
}

/* One repetition: the median of SLICES slices of a->loops / SLICES passes
 * (at least one) over the NTUPLE tuples, as m_csum(). */
static double
m_rss(void *arg)
{
	struct rss_arg *a = arg;
	size_t per = a->loops / SLICES ? a->loops / SLICES : 1;
	double v[SLICES];
	uint64_t t0, t1, acc;

	for (int k = 0; k < SLICES; k++) {
		acc = 0;
		t0 = tic();
		for (size_t l = 0; l < per; l++)
			acc ^= rss_pass(a);
		t1 = toc();
		bench_sink(acc);
		v[k] = ((double)(t1 - t0) - timer_ovh) / (double)(per * NTUPLE);
	}
	return ticks_median_ns(v, SLICES);
}

static struct sofl_rss *rss_table, *rss_gfni;

/* A TCP packet carrying tuple @t (src, dst, sport, dport as bytes). */
static void
tuple_pkt(const uint8_t *t, int tlen, uint8_t *frame, size_t cap, struct sofl_pkt *p)
{
	struct t_spec s;
	int al = tlen == 12 ? 4 : 16;
	size_t len;

	t_spec_init(&s, al == 4 ? 4 : 6, 6);
	memcpy(s.src, t, (size_t)al);
	memcpy(s.dst, t + al, (size_t)al);
	s.sport = sofl_get16(t + 2 * al);
	s.dport = sofl_get16(t + 2 * al + 2);
	len = t_build(frame, cap, &s);
	sofl_pkt_parse(p, frame, len, SOFL_LINK_ETH);
}

/* Microsoft's RSS verification suite, first rows */
static const uint8_t ms_v4[12] = { 66, 9, 149, 187, 161, 142, 100, 80, 0x0a, 0xea, 0x06, 0xe6 };
static const uint8_t ms_v6[36] = {
	0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x1f, 0xff, 0, 0, 0, 0, 0, 0, 0, 0x07,
	0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x00, 0x03, 0, 0, 0, 0, 0, 0, 0, 0x01,
	0x0a, 0xea, 0x06, 0xe6,
};

/* Every function must give the Microsoft vector's hash and agree on all
 * random tuples (as bytes, as parsed packets). */
static void
rss_check(const uint8_t *tuples, int tlen, const struct sofl_pkt *pkts, const char *fam)
{
	const uint8_t *kv = tlen == 36 ? ms_v6 : ms_v4;
	uint32_t want = tlen == 36 ? 0x40207d3du : 0x51ccc178u, h = 0, hg = 0;
	int gfni = dk_thash_gfni_built(), agree = 0;

	sofl_rss_hash_bytes(rss_table, kv, (size_t)tlen, &h);
	sofl_rss_hash_bytes(rss_gfni, kv, (size_t)tlen, &hg);
	check(dk_softrss_generic(kv, tlen, ms_key) == want &&
	      dk_softrss_native(kv, tlen, ms_key) == want &&
	      dk_softrss_be_generic(kv, tlen, ms_key) == want &&
	      dk_softrss_be_native(kv, tlen, ms_key) == want &&
	      (!gfni || dk_thash_gfni(kv, tlen) == want) && h == want && hg == want,
	      "rss %s Microsoft vector 0x%08x: DPDK and softoffload agree", fam, want);
	for (int i = 0; i < NTUPLE; i++) {
		const uint8_t *t = tuples + i * tlen;
		uint32_t a = 0, b = 0, c = dk_softrss_native(t, tlen, ms_key);
		struct sofl_rss_out out;

		sofl_rss_hash_bytes(rss_table, t, (size_t)tlen, &a);
		sofl_rss_hash_bytes(rss_gfni, t, (size_t)tlen, &b);
		sofl_rss_pkt(rss_table, &pkts[i], &out);
		agree += a == c && b == c && out.hash == c &&
			 dk_softrss_be_generic(t, tlen, ms_key) == c &&
			 (!gfni || dk_thash_gfni(t, tlen) == c);
	}
	check(agree == NTUPLE, "rss %s: %d/%d random tuples hash alike in every function", fam,
	      agree, NTUPLE);
}

/* The rows of one tuple length; portable compared with portable, SIMD with
 * SIMD. */
static void
rss_rows(const uint8_t *raw, int tlen)
{
	static const char *const kn[] = {
		"rte_softrss_%s_generic", "rte_softrss_%s_native", "rte_softrss_be_%s_generic",
		"rte_softrss_be_%s_native", "rte_thash_gfni_%s_native",
		"rte_thash_gfni_bulk32_%s_native",
	};
	const char *fam = tlen == 36 ? "ipv6_36B" : "ipv4_12B";
	uint8_t *packed = xalloc(NTUPLE * (size_t)tlen), *frames = xalloc(NTUPLE * 128);
	const void **ptr = xalloc(NTUPLE * sizeof(*ptr));
	struct sofl_pkt *pkts = xalloc(NTUPLE * sizeof(*pkts));
	int gfni_ours = sofl_rss_impl_available(SOFL_RSS_IMPL_GFNI);
	int d[RK_GFNI_BULK + 1], one[2] = { -1, -1 }, bulk[2] = { -1, -1 }, burst;
	struct rss_arg *a;

	for (int i = 0; i < NTUPLE; i++) {
		memcpy(packed + i * tlen, raw + i * 40, (size_t)tlen);
		ptr[i] = packed + i * tlen;
		tuple_pkt(packed + i * tlen, tlen, frames + i * 128, 128, &pkts[i]);
	}
	rss_check(packed, tlen, pkts, fam);
	for (int k = RK_SOFTRSS_GENERIC; k <= RK_GFNI_BULK; k++) {
		d[k] = -1;
		if (k >= RK_GFNI && !dk_thash_gfni_built())
			continue;
		a = xalloc(sizeof(*a));
		*a = (struct rss_arg){ packed, ptr, pkts, NULL, tlen, k, iters_for(tlen == 36 ? 8 : 20) };
		d[k] = add_row("rss", "hash", m_rss, a, 0, kn[k], fam);
	}
	for (int impl = 0; impl < 2; impl++) {
		const struct sofl_rss *e = impl ? rss_gfni : rss_table;
		const char *in = impl ? "gfni" : "table";

		if (impl && !gfni_ours)
			continue;
		a = xalloc(sizeof(*a));
		*a = (struct rss_arg){ packed, ptr, pkts, e, tlen, RK_OURS_ONE, iters_for(50) };
		one[impl] = add_row("rss", "hash", m_rss, a, 0, "sofl_rss_hash_bytes_%s_%s", fam, in);
		a = xalloc(sizeof(*a));
		*a = (struct rss_arg){ packed, ptr, pkts, e, tlen, RK_OURS_BULK, iters_for(50) };
		bulk[impl] = add_row("rss", "hash", m_rss, a, 0, "sofl_rss_hash_bulk32_%s_%s", fam, in);
	}
	a = xalloc(sizeof(*a));
	*a = (struct rss_arg){ packed, ptr, pkts, gfni_ours ? rss_gfni : rss_table, tlen,
			       RK_OURS_BURST, iters_for(50) };
	burst = add_row("rss", "hash", m_rss, a, 0, "sofl_rss_burst32_parsed_%s_%s", fam,
			sofl_rss_impl_name(a->eng));
	add_cmp(d[RK_SOFTRSS_GENERIC], one[0]);
	add_cmp(d[RK_SOFTRSS_BE_NATIVE], one[0]);
	add_cmp(d[RK_SOFTRSS_BE_NATIVE], bulk[0]);
	add_cmp(d[RK_GFNI], one[1]);
	add_cmp(d[RK_GFNI_BULK], bulk[1]);
	add_cmp(d[RK_GFNI_BULK], burst);
}

static void
setup_rss(void)
{
	uint8_t *raw = xalloc(NTUPLE * 40);
	uint64_t seed = 0x5EED;

	if (sofl_rss_create(&rss_table, ms_key, 40, 1, 0) != 0 ||
	    sofl_rss_create(&rss_gfni, ms_key, 40, 1, 0) != 0 ||
	    sofl_rss_set_impl(rss_table, SOFL_RSS_IMPL_TABLE) != 0) {
		fprintf(stderr, "bench_vs_dpdk: sofl_rss_create failed\n");
		exit(2);
	}
	if (sofl_rss_impl_available(SOFL_RSS_IMPL_GFNI))
		sofl_rss_set_impl(rss_gfni, SOFL_RSS_IMPL_GFNI);
	dk_thash_gfni_prepare(ms_key);
	/* tuple i = the first 12 / 36 bytes of 5 splitmix64 outputs (40 bytes) */
	for (int i = 0; i < NTUPLE; i++)
		for (int k = 0; k < 5; k++) {
			uint64_t v = splitmix64(&seed);
			memcpy(raw + i * 40 + k * 8, &v, 8);
		}
	rss_rows(raw, 12);
	rss_rows(raw, 36);
}

/* ---- GRO rows (DPDK side; ours are added by setup_gro_ours) ---- */

struct gro_arg {
	struct dg *g;
	struct dh *h;
	int n, calls, parse, expect;
};

static double
m_dpdk_gro(void *arg)
{
	struct gro_arg *a = arg;
	double v[MAXCALL];

	for (int c = 0; c < a->calls; c++) {
		uint64_t t0, t1;
		int n;

		if (a->g) {
			dg_restore(a->g);
			t0 = tic();
			n = a->parse ? dg_run_parse(a->g) : dg_run(a->g);
			t1 = toc();
		} else {
			dh_restore(a->h);
			t0 = tic();
			n = dh_run(a->h);
			t1 = toc();
		}
		if (n != a->expect)
			check(0, "gro: DPDK produced %d packets instead of %d", n, a->expect);
		v[c] = (double)(t1 - t0) - timer_ovh;
	}
	return ticks_median_ns(v, a->calls) / (double)a->n;
}

/* Software parsing alone, 32 frames: rte_net_get_ptype() (what DPDK's GRO
 * needs done before it when no NIC classifies) vs sofl_pkt_parse() (what
 * every softoffload engine starts with). */
struct parse_arg {
	struct dg *g;
	const struct burst *b;
	int calls;
};

static double
m_parse(void *arg)
{
	struct parse_arg *a = arg;
	double v[MAXCALL];
	uint64_t acc = 0;

	for (int c = 0; c < a->calls; c++) {
		uint64_t t0, t1;

		if (a->g) {
			t0 = tic();
			acc += dg_classify(a->g);
			t1 = toc();
		} else {
			struct sofl_pkt p;
			t0 = tic();
			for (int i = 0; i < a->b->n; i++) {
				const uint8_t *f = a->b->frame[i];
				LAUNDER(f);
				sofl_pkt_parse(&p, f, a->b->len[i], SOFL_LINK_ETH);
				acc += p.l4_off;
			}
			t1 = toc();
		}
		v[c] = (double)(t1 - t0) - timer_ovh;
	}
	bench_sink(acc);
	return ticks_median_ns(v, a->calls) / (double)a->b->n;
}

static long
dg_out_fn(void *eng, int i, uint8_t *buf, size_t cap)
{
	return dg_out(eng, i, buf, cap);
}

static long
dh_out_fn(void *eng, int i, uint8_t *buf, size_t cap)
{
	return dh_out(eng, i, buf, cap);
}

static int dpdk_gro_row[NW][2];	/* [workload][parse] */
static int dpdk_heavy_row[2];	/* [flush_every] */

static void
setup_gro_dpdk(void)
{
	static char desc[65536], want[65536];
	int calls = (int)iters_for(200) > MAXCALL ? MAXCALL : (int)iters_for(200);

	for (int w = 0; w < NW; w++) {
		struct burst *b = &bursts[w];
		struct dg *g = dg_new((const uint8_t *const *)b->frame, b->len, b->n, w != WX);
		int bad, stale, n;

		if (g == NULL)
			exit(2);
		n = dg_run(g);
		if (w == WX) {
			check(passed_through(g, dg_out_fn, n, b),
			      "gro %s: DPDK %d -> %d, unchanged", b->id, b->n, n);
			stale = 0;
		} else {
			stale = describe_all(g, dg_out_fn, n, 0, desc, sizeof(desc), &bad);
			if (b->expect_dpdk)
				snprintf(want, sizeof(want), "%s", b->expect_dpdk);
			else
				singletons(b, want, sizeof(want));
			check(n == b->nout_dpdk && bad == 0 && strcmp(desc, want) == 0,
			      "gro %s: DPDK %d -> %d: %s", b->id, b->n, n, desc);
		}
		if (stale)
			printf("note gro %s: DPDK left %d of %d IPv4 header checksums stale\n", b->id,
			       stale, n);
		if (w == W1) {
			struct parse_arg *pd = xalloc(sizeof(*pd)), *po = xalloc(sizeof(*po));
			*pd = (struct parse_arg){ g, b, calls };
			*po = (struct parse_arg){ NULL, b, calls };
			add_cmp(add_row("gro", "pkt", m_parse, pd, 0, "rte_net_get_ptype_tcp4_1514B"),
				add_row("gro", "pkt", m_parse, po, 0, "sofl_pkt_parse_tcp4_1514B"));
		}
		for (int parse = 0; parse < 2; parse++) {
			struct gro_arg *a = xalloc(sizeof(*a));
			/* X's frames are TCP labelled UDP: a parser would see TCP */
			if (w == WX && parse) {
				dpdk_gro_row[w][parse] = -1;
				continue;
			}
			*a = (struct gro_arg){ g, NULL, b->n, calls, parse, b->nout_dpdk };
			dpdk_gro_row[w][parse] = add_row("gro", "pkt", m_dpdk_gro, a, 0, "dpdk_%s%s",
							 b->id, parse ? "_swparse" : "");
		}
	}
	for (int fe = 1; fe >= 0; fe--) {
		struct dh *h = dh_new((const uint8_t *const *)heavy.frame, heavy.len, heavy.n, 32, fe);
		struct gro_arg *a;
		int bad, n;

		if (h == NULL)
			exit(2);
		n = dh_run(h);
		describe_all(h, dh_out_fn, n, 1, desc, sizeof(desc), &bad);
		heavy_expect(fe ? 8 : 45, want, sizeof(want));
		check(bad == 0 && strcmp(desc, want) == 0, "gro %s flush %s: DPDK 1024 -> %d%s%s",
		      heavy.id, fe ? "every burst" : "at end", n, verbose ? ": " : "",
		      verbose ? desc : "");
		a = xalloc(sizeof(*a));
		*a = (struct gro_arg){ NULL, h, heavy.n, calls / 10 > 0 ? calls / 10 : 1, 0, n };
		dpdk_heavy_row[fe] = add_row("gro", "pkt", m_dpdk_gro, a, 0, "dpdk_%s_flush_%s",
					     heavy.id, fe ? "every_burst" : "at_end");
	}
}

/* ---- GRO rows (softoffload) ---- */

/* Our engine on one workload: one cycle = receive every burst (+ poll end
 * after each when @flush_every, else once at the end), read the outputs,
 * release.  The whole cycle is timed: unlike DPDK's output mbufs, our outputs
 * need the release to recycle, so it is part of the per-packet cost. */
struct og {
	struct sofl_gro *g;
	struct sofl_gro_in *in;
	const struct sofl_gro_out *o;
	int n, burst, flush_every, nout, expect, calls;
};

static int
og_cycle(struct og *e)
{
	for (int b = 0; b < e->n; b += e->burst) {
		sofl_gro_receive(e->g, e->in + b, (size_t)e->burst, 0);
		if (e->flush_every)
			sofl_gro_poll_end(e->g, 0);
	}
	if (!e->flush_every)
		sofl_gro_poll_end(e->g, 0);
	e->nout = sofl_gro_outputs(e->g, &e->o);
	return e->nout;
}

static long
og_out_fn(void *eng, int i, uint8_t *buf, size_t cap)
{
	struct og *e = eng;

	if (i < 0 || i >= e->nout)
		return -1;
	return sofl_gro_out_copy(&e->o[i], buf, cap);
}

static double
m_ours_gro(void *arg)
{
	struct og *e = arg;
	double v[MAXCALL];

	for (int c = 0; c < e->calls; c++) {
		uint64_t t0, t1;
		int n;

		t0 = tic();
		n = og_cycle(e);
		sofl_gro_release(e->g);
		t1 = toc();
		if (n != e->expect)
			check(0, "gro: softoffload produced %d packets instead of %d", n, e->expect);
		v[c] = (double)(t1 - t0) - timer_ovh;
	}
	return ticks_median_ns(v, e->calls) / (double)e->n;
}

/* Engine configurations measured. */
enum og_table {
	OG_LINUX_HASH,	/* the default table (Linux's 8 x 8), inputs carry the NIC's
			 * RSS hash, as DPDK's inputs carry the NIC's packet type */
	OG_LRU,		/* hashed LRU table of 32 flows (DPDK's max_flow_num), no
			 * input hash: a TAP without RSS */
};

static struct og *
og_new(const struct burst *b, int burst, int flush_every, int preverified, int table,
       int calls)
{
	static struct sofl_rss *nic;	/* Toeplitz, Microsoft key: a NIC's hash */
	struct sofl_gro_config cfg;
	struct og *e = xalloc(sizeof(*e));

	if (!nic && sofl_rss_create(&nic, NULL, 0, 1, 0) != 0)
		exit(2);
	sofl_gro_config_init(&cfg);
	if (table == OG_LRU) {
		cfg.table = SOFL_GRO_TABLE_LRU;
		cfg.max_flows = 32;
	}
	cfg.max_batch = (uint32_t)b->n;
	if (sofl_gro_create(&cfg, &e->g) != 0) {
		fprintf(stderr, "bench_vs_dpdk: sofl_gro_create failed\n");
		exit(2);
	}
	e->in = xalloc((size_t)b->n * sizeof(*e->in));
	for (int i = 0; i < b->n; i++) {
		e->in[i].data = b->frame[i];
		e->in[i].len = b->len[i];
		e->in[i].flags = preverified ? SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK : 0;
		e->in[i].cookie = (uint64_t)i;
		if (table == OG_LINUX_HASH) {
			struct sofl_pkt p;
			struct sofl_rss_out o;

			sofl_pkt_parse(&p, b->frame[i], b->len[i], SOFL_LINK_ETH);
			sofl_rss_pkt(nic, &p, &o);
			e->in[i].flags |= SOFL_GRO_F_HASH;
			e->in[i].hash = o.hash;
		}
	}
	e->n = b->n;
	e->burst = burst;
	e->flush_every = flush_every;
	e->calls = calls;
	return e;
}

/* Checks one cycle of @e against @want (sorted descriptions), IPv4 header
 * checksums included; sets e->expect to the output count. */
static void
og_check(struct og *e, const struct burst *b, const char *want, const char *what)
{
	static char desc[65536], sorted[65536];
	int n = og_cycle(e), bad = 0, stale;

	if (want == NULL) {
		check(passed_through(e, og_out_fn, n, b), "gro %s: softoffload (%s) %d -> %d, unchanged",
		      b->id, what, b->n, n);
	} else {
		/* the order of flows completed together is the table's business */
		stale = describe_all(e, og_out_fn, n, 1, desc, sizeof(desc), &bad);
		sort_words(want, sorted, sizeof(sorted));
		check(bad == 0 && stale == 0 && strcmp(desc, sorted) == 0,
		      "gro %s: softoffload (%s) %d -> %d, IPv4 checksums valid%s%s", b->id, what,
		      b->n, n, verbose ? ": " : "", verbose ? desc : "");
	}
	e->expect = n;
	sofl_gro_release(e->g);
}

static void
setup_gro_ours(void)
{
	static char want[65536];
	/* Linux merges a PSH segment into its run and flushes (W4) */
	static const char *const expect[NW] = {
		"f0:s0-31", "f0:s0-7 f1:s0-7 f2:s0-7 f3:s0-7", NULL,
		"f0:s0-7P f0:s8-15P f0:s16-23P f0:s24-31P", NULL,
	};
	int calls = (int)iters_for(200) > MAXCALL ? MAXCALL : (int)iters_for(200);

	for (int w = 0; w < NW; w++) {
		struct burst *b = &bursts[w];
		int o[3];

		if (w == W3)
			singletons(b, want, sizeof(want));
		for (int k = 0; k < 3; k++) {
			/* k: 0 sw checksums, 1 pre-verified, 2 pre-verified on the LRU table */
			struct og *e = og_new(b, b->n, 1, k > 0, k == 2 ? OG_LRU : OG_LINUX_HASH,
					      calls);
			static const char *const what[] = { "sw checksums", "pre-verified",
							    "pre-verified, LRU table, no hash" };
			static const char *const sfx[] = { "swcsum", "preverified",
							   "lru_nohash_preverified" };

			og_check(e, b, w == W3 ? want : expect[w], what[k]);
			o[k] = add_row("gro", "pkt", m_ours_gro, e, 0, "sofl_%s_%s", b->id, sfx[k]);
		}
		/* NIC case: DPDK gets the packet type, ours the RSS hash; software
		 * case (TAP): DPDK classifies with rte_net_get_ptype, ours has no
		 * hash and uses the LRU table */
		add_cmp(dpdk_gro_row[w][0], o[1]);
		add_cmp(dpdk_gro_row[w][0], o[0]);
		if (dpdk_gro_row[w][1] >= 0)
			add_cmp(dpdk_gro_row[w][1], o[2]);
		else
			add_cmp(dpdk_gro_row[w][0], o[2]);
	}
	for (int fe = 1; fe >= 0; fe--)
		for (int pre = 1; pre >= 0; pre--) {
			struct og *e = og_new(&heavy, 32, fe, pre, OG_LINUX_HASH,
					      calls / 10 > 0 ? calls / 10 : 1);
			char what[64];
			int o;

			snprintf(what, sizeof(what), "%s, flush %s", pre ? "pre-verified" : "sw checksums",
				 fe ? "every burst" : "at end");
			heavy_expect(fe ? 8 : 45, want, sizeof(want));
			og_check(e, &heavy, want, what);
			o = add_row("gro", "pkt", m_ours_gro, e, 0, "sofl_%s_flush_%s_%s", heavy.id,
				    fe ? "every_burst" : "at_end", pre ? "preverified" : "swcsum");
			add_cmp(dpdk_heavy_row[fe], o);
		}
}

/* ---- GSO rows (DPDK side) ---- */

enum gs_kind { GS_SEG, GS_SEG_FREE, GS_SEG_CSUM };

struct gso_arg {
	struct ds *s;
	int calls, kind, nseg;
};

static double
m_dpdk_gso(void *arg)
{
	struct gso_arg *a = arg;
	double v[MAXCALL];

	for (int c = 0; c < a->calls; c++) {
		uint64_t t0, t1;
		int n;

		t0 = tic();
		n = ds_run(a->s);
		if (a->kind == GS_SEG_FREE)
			ds_free(a->s);
		else if (a->kind == GS_SEG_CSUM)
			ds_csum(a->s);
		t1 = toc();
		ds_free(a->s);
		if (n != a->nseg)
			check(0, "gso: DPDK produced %d segments instead of %d", n, a->nseg);
		v[c] = (double)(t1 - t0) - timer_ovh;
	}
	return ticks_median_ns(v, a->calls) / (double)a->nseg;
}

static uint8_t *gso_tcp_frame, *gso_udp_frame;
static uint32_t gso_tcp_len, gso_udp_len;
static int dpdk_gso_row[2][3];	/* [udp][kind] */

/* The TCP super-packet's segment i as Linux/DPDK must emit it. */
static size_t
tcp_seg_expected(uint8_t *buf, size_t cap, int i, int last)
{
	return tcp4_frame(buf, cap, 0, (uint32_t)i, MSS,
			  SOFL_TCP_ACK | (last ? SOFL_TCP_PSH : 0));
}

static void
check_dpdk_gso_tcp(struct ds *s, int n)
{
	static uint8_t want[2048];
	int zc = 0, same = 0;

	for (int i = 0; i < n; i++) {
		long l = ds_out(s, i, outbuf, sizeof(outbuf));
		size_t wl = tcp_seg_expected(want, sizeof(want), i, i == n - 1);
		zc += ds_out_zero_copy(s, i);
		same += l == (long)wl && memcmp(outbuf, want, wl) == 0;
	}
	check(n == 45 && zc == n && ds_in_refcnt(s) == n + 1,
	      "gso tcp4 64K: DPDK 45 segments, zero-copy %d/%d, input refcnt %d", zc, n,
	      ds_in_refcnt(s));
	check(same == n, "gso tcp4 64K: DPDK + software checksums byte-identical %d/%d", same, n);
}

/* IPv4 fragments of the UDP super-packet (DPDK's "UDP GSO", our IP_FRAG):
 * 1480-byte units, offsets/MF/lengths, a valid header checksum, the ID kept,
 * the bytes of the original IP payload.  @return fragments correct. */
static int
frags_ok(void *eng, out_fn out, int n, uint32_t *covered)
{
	const uint32_t fpay = (1514 - 34) & ~7u;	/* 1480 */
	const uint8_t *ip0 = gso_udp_frame + 14;
	uint32_t dgram = gso_udp_len - 34, off = 0;
	int good = 0;

	for (int i = 0; i < n && off < dgram; i++) {
		long l = out(eng, i, outbuf, sizeof(outbuf));
		const uint8_t *ip = outbuf + 14;
		uint32_t plen = dgram - off < fpay ? dgram - off : fpay;
		int last = off + plen == dgram;

		good += l == (long)(34 + plen) && sofl_get16(ip + 2) == 20 + plen &&
			sofl_get16(ip + 4) == sofl_get16(ip0 + 4) &&
			sofl_get16(ip + 6) == (uint16_t)((last ? 0 : 0x2000) | off / 8) &&
			sofl_ipv4_hdr_csum_ok(ip, 20) && memcmp(ip + 20, ip0 + 20 + off, plen) == 0 &&
			memcmp(outbuf, gso_udp_frame, 14) == 0;
		off += plen;
	}
	*covered = off;
	return good;
}

static long
ds_out_fn(void *eng, int i, uint8_t *buf, size_t cap)
{
	return ds_out(eng, i, buf, cap);
}

static void
check_dpdk_gso_udp(struct ds *s, int n)
{
	uint32_t covered;
	int zc = 0, good = frags_ok(s, ds_out_fn, n, &covered);

	for (int i = 0; i < n; i++)
		zc += ds_out_zero_copy(s, i);
	check(n == 44 && zc == n && good == n && covered == gso_udp_len - 34,
	      "gso udp4 64K: DPDK 44 IPv4 fragments, %d/%d correct, zero-copy %d/%d", good, n, zc,
	      n);
}

static void
setup_gso_dpdk(void)
{
	int calls = (int)iters_for(200) > MAXCALL ? MAXCALL : (int)iters_for(200);

	gso_tcp_frame = xalloc(70000);
	gso_udp_frame = xalloc(70000);
	gso_tcp_len = (uint32_t)tcp4_frame(gso_tcp_frame, 70000, 0, 0, 45 * MSS,
					   SOFL_TCP_ACK | SOFL_TCP_PSH);
	gso_udp_len = (uint32_t)udp4_frame(gso_udp_frame, 70000, 65000);
	for (int udp = 0; udp < 2; udp++) {
		struct ds *s = ds_new(udp ? gso_udp_frame : gso_tcp_frame,
				      udp ? gso_udp_len : gso_tcp_len, udp, 1514);
		int n;

		if (s == NULL)
			exit(2);
		n = ds_run(s);
		ds_csum(s);
		if (udp)
			check_dpdk_gso_udp(s, n);
		else
			check_dpdk_gso_tcp(s, n);
		ds_free(s);
		check(ds_in_refcnt(s) == 1, "gso: input refcnt back to 1 after freeing segments");
		for (int k = GS_SEG; k <= GS_SEG_CSUM; k++) {
			static const char *const kn[] = { "segment", "segment+free", "segment+swcsum" };
			struct gso_arg *a = xalloc(sizeof(*a));
			*a = (struct gso_arg){ s, calls, k, udp ? 44 : 45 };
			dpdk_gso_row[udp][k] = add_row("gso", "seg", m_dpdk_gso, a, 0, "dpdk_%s_%s",
						       udp ? "udp4_65000B_ipfrag" : "tcp4_65160B_mss1448",
						       kn[k]);
		}
	}
}

/* ---- GSO rows (softoffload) ---- */

struct og_s {
	struct sofl_gso_params gp;
	struct sofl_gso_out out;
	const uint8_t *frame;
	uint32_t len;
	int nseg, calls;
};

static int
os_run(struct og_s *e)
{
	struct sofl_pkt p;

	/* DPDK is handed l2/l3/l4_len; ours parses, inside the timed region */
	sofl_pkt_parse(&p, e->frame, e->len, SOFL_LINK_ETH);
	return sofl_gso_segment(&e->gp, &p, NULL, 0, &e->out);
}

static double
m_ours_gso(void *arg)
{
	struct og_s *e = arg;
	double v[MAXCALL];

	for (int c = 0; c < e->calls; c++) {
		uint64_t t0, t1;
		int n;

		t0 = tic();
		n = os_run(e);
		t1 = toc();
		if (n != e->nseg)
			check(0, "gso: softoffload produced %d segments instead of %d", n, e->nseg);
		v[c] = (double)(t1 - t0) - timer_ovh;
	}
	return ticks_median_ns(v, e->calls) / (double)e->nseg;
}

static long
os_out_fn(void *eng, int i, uint8_t *buf, size_t cap)
{
	struct og_s *e = eng;
	const struct sofl_gso_seg *g = &e->out.seg[i];
	size_t o = 0;

	if (g->iovcnt == 0) {
		if (g->len > cap)
			return -1;
		memcpy(buf, g->data, g->len);
		return g->len;
	}
	for (int k = 0; k < g->iovcnt; k++) {
		if (o + g->iov[k].iov_len > cap)
			return -1;
		memcpy(buf + o, g->iov[k].iov_base, g->iov[k].iov_len);
		o += g->iov[k].iov_len;
	}
	return o == g->len ? (long)o : -1;
}

/* 1 when segment i's payload iovecs all point into the input frame. */
static int
os_zero_copy(const struct og_s *e, int i)
{
	const struct sofl_gso_seg *g = &e->out.seg[i];
	const uint8_t *lo = e->frame, *hi = e->frame + e->len;

	if (g->iovcnt < 2)
		return 0;
	for (int k = 1; k < g->iovcnt; k++) {
		const uint8_t *b = g->iov[k].iov_base;
		if (b < lo || b + g->iov[k].iov_len > hi)
			return 0;
	}
	return 1;
}

static struct og_s *
os_new(const uint8_t *frame, uint32_t len, int type, int flags, uint16_t gso_size, uint16_t mtu,
       int mode, int calls)
{
	struct og_s *e = xalloc(sizeof(*e));
	struct sofl_gso_need need;
	struct sofl_pkt p;
	int err;

	e->frame = frame;
	e->len = len;
	e->calls = calls;
	e->gp.type = (uint8_t)type;
	e->gp.flags = (uint8_t)flags;
	e->gp.gso_size = gso_size;
	e->gp.mtu = mtu;
	sofl_pkt_parse(&p, frame, len, SOFL_LINK_ETH);
	err = sofl_gso_need(&e->gp, &p, mode, 0, &need);
	if (err != 0) {
		fprintf(stderr, "bench_vs_dpdk: sofl_gso_need: %s\n", sofl_strerror(err));
		exit(2);
	}
	e->out.mode = mode;
	e->out.seg_cap = need.nsegs;
	e->out.seg = xalloc(need.nsegs * sizeof(*e->out.seg));
	e->out.buf_cap = need.buf_bytes;
	e->out.buf = xalloc(need.buf_bytes);
	e->out.iov_cap = need.iovs ? need.iovs : 1;
	e->out.iov = xalloc(e->out.iov_cap * sizeof(*e->out.iov));
	e->nseg = os_run(e);
	return e;
}

/* TCP segments: byte-identical to the expected frames (full checksums), or
 * identical but for a pseudo-header-sum TCP checksum (partial). */
static void
check_ours_tcp(struct og_s *e, const char *what)
{
	static uint8_t want[2048];
	int same = 0, zc = 0, partial = e->gp.flags & SOFL_GSO_F_CSUM_PARTIAL;

	for (int i = 0; i < e->nseg; i++) {
		long l = os_out_fn(e, i, outbuf, sizeof(outbuf));
		size_t wl = tcp_seg_expected(want, sizeof(want), i, i == e->nseg - 1);
		int ok = l == (long)wl;

		if (ok && partial) {
			struct sofl_pkt p;
			sofl_pkt_parse(&p, want, wl, SOFL_LINK_ETH);
			ok = sofl_get16(outbuf + 50) == (uint16_t)sofl_pkt_l4_pseudo(&p);
			memcpy(outbuf + 50, want + 50, 2);
		}
		same += ok && memcmp(outbuf, want, wl) == 0;
		zc += os_zero_copy(e, i);
	}
	check(e->nseg == 45 && same == 45 &&
	      (e->out.mode == SOFL_GSO_COPY ? zc == 0 : zc == 45),
	      "gso tcp4 64K: softoffload (%s) %d segments, %d byte-identical, zero-copy %d", what,
	      e->nseg, same, zc);
}

/* USO datagrams: sizes, IDs, payload slices, checksums. */
static void
check_ours_uso(struct og_s *e, const char *what)
{
	const uint8_t *pay0 = gso_udp_frame + 42;
	uint32_t total = gso_udp_len - 42, off = 0, sz = e->gp.gso_size;
	int good = 0, partial = e->gp.flags & SOFL_GSO_F_CSUM_PARTIAL;

	for (int i = 0; i < e->nseg; i++) {
		long l = os_out_fn(e, i, outbuf, sizeof(outbuf));
		uint32_t plen = total - off < sz ? total - off : sz;
		enum sofl_csum_state ip, l4;
		struct sofl_pkt p;

		if (l < 0 || sofl_pkt_parse(&p, outbuf, (size_t)l, SOFL_LINK_ETH) != 0)
			continue;
		sofl_pkt_csum_check(&p, &ip, &l4);
		good += p.pay_len == plen && memcmp(outbuf + p.pay_off, pay0 + off, plen) == 0 &&
			sofl_get16(outbuf + 18) == (uint16_t)(0x1000 + i) && ip == SOFL_CSUM_VALID &&
			l4 == (partial ? SOFL_CSUM_PARTIAL : SOFL_CSUM_VALID) &&
			os_zero_copy(e, i);
		off += plen;
	}
	check(good == e->nseg && off == total,
	      "gso udp4 64K: softoffload USO (%s) %d datagrams of %u, %d correct and zero-copy",
	      what, e->nseg, sz, good);
}

static void
check_ours_frag(struct og_s *e, const char *what)
{
	uint32_t covered;
	int zc = 0, good = frags_ok(e, os_out_fn, e->nseg, &covered);

	for (int i = 0; i < e->nseg; i++)
		zc += os_zero_copy(e, i);
	check(e->nseg == 44 && good == 44 && zc == 44 && covered == gso_udp_len - 34,
	      "gso udp4 64K: softoffload IP_FRAG (%s) %d fragments, %d correct, zero-copy %d", what,
	      e->nseg, good, zc);
}

static void
setup_gso_ours(void)
{
	int calls = (int)iters_for(200) > MAXCALL ? MAXCALL : (int)iters_for(200);
	struct og_s *e;
	int o;

	/* TCP: MSS 1448 (DPDK's gso_size 1514 is the whole frame) */
	e = os_new(gso_tcp_frame, gso_tcp_len, SOFL_GSO_TCPV4, SOFL_GSO_F_CSUM_PARTIAL, MSS, 0,
		   SOFL_GSO_ZEROCOPY, calls);
	check_ours_tcp(e, "zero-copy, pseudo-header checksum");
	o = add_row("gso", "seg", m_ours_gso, e, 0, "sofl_tcp4_65160B_mss1448_zerocopy_partial");
	add_cmp(dpdk_gso_row[0][GS_SEG], o);
	add_cmp(dpdk_gso_row[0][GS_SEG_FREE], o);
	e = os_new(gso_tcp_frame, gso_tcp_len, SOFL_GSO_TCPV4, 0, MSS, 0, SOFL_GSO_ZEROCOPY, calls);
	check_ours_tcp(e, "zero-copy, full checksums");
	o = add_row("gso", "seg", m_ours_gso, e, 0, "sofl_tcp4_65160B_mss1448_zerocopy_fullcsum");
	add_cmp(dpdk_gso_row[0][GS_SEG_CSUM], o);
	e = os_new(gso_tcp_frame, gso_tcp_len, SOFL_GSO_TCPV4, 0, MSS, 0, SOFL_GSO_COPY, calls);
	check_ours_tcp(e, "copy, full checksums");
	o = add_row("gso", "seg", m_ours_gso, e, 0, "sofl_tcp4_65160B_mss1448_copy_fullcsum");
	add_cmp(dpdk_gso_row[0][GS_SEG_CSUM], o);

	/* UDP: DPDK fragments; our like-for-like is IP_FRAG at MTU 1500.  It
	 * always completes the datagram's UDP checksum first (Linux UFO), so
	 * it has no pseudo-header-only variant */
	e = os_new(gso_udp_frame, gso_udp_len, SOFL_GSO_UFO, 0, 0, 1500, SOFL_GSO_ZEROCOPY,
		   calls);
	check_ours_frag(e, "zero-copy, full checksums");
	o = add_row("gso", "seg", m_ours_gso, e, 0, "sofl_udp4_65000B_ipfrag_zerocopy_fullcsum");
	add_cmp(dpdk_gso_row[1][GS_SEG], o);
	add_cmp(dpdk_gso_row[1][GS_SEG_CSUM], o);
	/* USO (UDP_SEGMENT): what DPDK 22.11 cannot do; other output count */
	for (int k = 0; k < 3; k++) {
		static const uint16_t sz[] = { 1472, 1472, 1200 };
		int fl = k == 0 ? SOFL_GSO_F_CSUM_PARTIAL : 0;
		e = os_new(gso_udp_frame, gso_udp_len, SOFL_GSO_UDP_L4, fl, sz[k], 0,
			   SOFL_GSO_ZEROCOPY, calls);
		check_ours_uso(e, fl ? "zero-copy, pseudo-header checksum" : "zero-copy, full checksums");
		o = add_row("gso", "seg", m_ours_gso, e, 0, "sofl_udp4_65000B_uso%u_zerocopy_%s",
			    sz[k], fl ? "partial" : "fullcsum");
		add_cmp(dpdk_gso_row[1][fl ? GS_SEG : GS_SEG_CSUM], o);
	}
}

/* ---- machine probe: is the host in a slow phase? ---- */

static double
m_probe(void *arg)
{
	uint64_t x = 1, t0, t1, n = 20000000;

	(void)arg;
	t0 = tic();
	for (uint64_t i = 0; i < n; i++)
		__asm__ volatile("add %1, %0" : "+r"(x) : "r"(i));
	t1 = toc();
	bench_sink(x);
	/* one dependent add per cycle (plus loop overhead on a separate chain):
	 * report the clock in GHz as "ns per unit" = adds per ns */
	return (double)n / (((double)(t1 - t0) - timer_ovh) / tsc_per_ns);
}

/* ---- main ---- */

static int
want_sec(const char *only, const char *sec)
{
	const char *p;
	size_t l = strlen(sec);

	if (only == NULL)
		return 1;
	for (p = only; (p = strstr(p, sec)) != NULL; p += l)
		if ((p == only || p[-1] == ',') && (p[l] == 0 || p[l] == ','))
			return 1;
	return 0;
}

static void
report(int reps)
{
	double tmp[MAXREP];

	printf("\n# results: median of %d interleaved repetitions (min..max)\n", reps);
	for (int i = 0; i < nrows; i++) {
		struct row *r = &rows[i];
		char metric[32];

		if (strcmp(r->unit, "probe") == 0) {
			memcpy(tmp, r->s, sizeof(double) * (size_t)reps);
			bench_report("probe", r->name, "dep_adds_per_ns", "GHz", tmp, reps);
			continue;
		}
		snprintf(metric, sizeof(metric), "ns_per_%s", r->unit);
		memcpy(tmp, r->s, sizeof(double) * (size_t)reps);
		bench_report(r->sec, r->name, metric, "ns", tmp, reps);
		if (r->bytes > 0) {
			for (int k = 0; k < reps; k++)
				tmp[k] = r->bytes / r->s[k];
			bench_report(r->sec, r->name, "GBps", "GB/s", tmp, reps);
		}
	}
	printf("\n# DPDK / softoffload: time ratio per repetition (> 1: softoffload faster)\n");
	printf("%-44s %10s  %-44s %10s %8s  %s\n", "DPDK", "ns", "softoffload", "ns", "ratio",
	       "min..max");
	for (int c = 0; c < ncmps; c++) {
		struct row *d = &rows[cmps[c].d], *o = &rows[cmps[c].o];
		double rt[MAXREP], dm, om, lo, hi, med;
		char name[200];

		for (int k = 0; k < reps; k++)
			rt[k] = d->s[k] / o->s[k];
		memcpy(tmp, d->s, sizeof(double) * (size_t)reps);
		dm = bench_median(tmp, reps);
		memcpy(tmp, o->s, sizeof(double) * (size_t)reps);
		om = bench_median(tmp, reps);
		lo = bench_min(rt, reps);
		hi = bench_max(rt, reps);
		memcpy(tmp, rt, sizeof(double) * (size_t)reps);
		med = bench_median(tmp, reps);
		printf("%-44s %10.4g  %-44s %10.4g %7.3gx  %.3g..%.3g\n", d->name, dm, o->name, om,
		       med, lo, hi);
		snprintf(name, sizeof(name), "%s/%s", d->name, o->name);
		printf("CSV,ratio,%s,dpdk_over_sofl,x,%.4g,%.4g,%.4g\n", name, med, lo, hi);
	}
}

int
main(int argc, char **argv)
{
	char *eal[32], lcore[24];
	const char *only = NULL;
	int neal = 0, reps = bench_reps(15), sep = 0, opt;

	if (getenv("SOFL_BENCH_SCALE"))
		scale = atof(getenv("SOFL_BENCH_SCALE"));

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			sep = i;
	eal[neal++] = argv[0];
	if (sep) {
		for (int i = sep + 1; i < argc && neal < 31; i++)
			eal[neal++] = argv[i];
		argc = sep;
	} else {
		static char *def[] = { "-l", NULL, "--no-huge", "--no-pci", "-m", "512",
				       "--no-shconf", "--no-telemetry", "--log-level=1" };
		/* the last CPU: with 2 vCPUs, CPU 1, away from most interrupts */
		snprintf(lcore, sizeof(lcore), "%ld", sysconf(_SC_NPROCESSORS_ONLN) - 1);
		def[1] = lcore;
		for (size_t i = 0; i < sizeof(def) / sizeof(def[0]); i++)
			eal[neal++] = def[i];
	}
	eal[neal] = NULL;
	while ((opt = getopt(argc, argv, "r:s:o:v")) != -1) {
		switch (opt) {
		case 'r':
			reps = atoi(optarg);
			break;
		case 's':
			scale = atof(optarg);
			break;
		case 'o':
			only = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-r reps] [-s scale] [-o csum,rss,gro,gso,sweep] [-v] "
				"[-- EAL args]\n", argv[0]);
			return 2;
		}
	}
	if (reps < 1 || reps > MAXREP || !(scale > 0)) {
		fprintf(stderr, "bench_vs_dpdk: reps 1..%d, scale > 0\n", MAXREP);
		return 2;
	}
	if (dpdk_init(neal, eal) < 0)
		return 2;
	calibrate();
	printf("# bench_vs_dpdk: softoffload vs DPDK 22.11, one process, interleaved\n");
	printf("# TSC %.4f GHz, timer pair %.0f ticks (subtracted), %d repetitions, scale %g\n",
	       tsc_per_ns, timer_ovh, reps, scale);
	add_row("probe", "probe", m_probe, NULL, 0, "dep_add_clock");
	if (want_sec(only, "csum"))
		setup_csum();
	if (want_sec(only, "rss"))
		setup_rss();
	if (want_sec(only, "sweep"))
		setup_sweep();
	if (want_sec(only, "gro") || want_sec(only, "gso"))
		build_bursts();
	if (want_sec(only, "gro")) {
		setup_gro_dpdk();
		setup_gro_ours();
	}
	if (want_sec(only, "gso")) {
		setup_gso_dpdk();
		setup_gso_ours();
	}
	printf("# %d rows, %d comparisons, %d failed checks\n", nrows, ncmps, failures);
	fflush(stdout);
	/* one untimed round first: page faults, caches, branch predictors */
	for (int i = 0; i < nrows; i++)
		rows[i].fn(rows[i].arg);
	for (int k = 0; k < reps; k++)
		for (int i = 0; i < nrows; i++)
			rows[i].s[k] = rows[i].fn(rows[i].arg);
	report(reps);
	if (failures)
		printf("# %d correctness check(s) FAILED\n", failures);
	dpdk_fini();
	return failures ? 1 : 0;
}
