/* bench_vs_dpdk's shared parts: the timer, the rows and comparisons the
 * harness (bench_vs_dpdk.c) times and reports, and the workloads and
 * output checker of the GRO and GSO rows (vs_work.c).  Each row family has
 * its own file: vs_csum.c, vs_rss.c, vs_parse.c, vs_gro.c, vs_gro_sweep.c,
 * vs_gso.c; each registers its rows with add_row() / add_cmp() from its
 * setup function.  One thread; no DPDK types (dpdk_side.h hides them). */
#ifndef SOFL_BENCH_VS_H
#define SOFL_BENCH_VS_H

#include <stddef.h>
#include <stdint.h>
#include <x86intrin.h>

#define MAXREP	64
#define MAXROW	320
#define MAXCMP	224
#define MAXCALL	512
#define MB	(1024u * 1024u)

/* ---- timing (bench_vs_dpdk.c) ---- */

extern double tsc_per_ns;	/* TSC ticks per ns, calibrated at start */
extern double timer_ovh;	/* ticks of an empty tic()/toc() pair */

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

/* Loop rows are timed in SLICES slices and report the median slice: a
 * slice that another process's time slice landed in is left out, which a
 * single timed loop cannot do on a shared host. */
#define SLICES	16

/* Median over @calls of one call's ticks (minus the timer), in ns. */
double ticks_median_ns(double *v, int calls);

/* ---- rows and comparisons (bench_vs_dpdk.c) ---- */

typedef double (*measure_fn)(void *arg);	/* one repetition: ns per unit */

struct row {
	const char *sec;
	char name[80];
	const char *unit;	/* "pkt", "seg", "hash", "call" */
	measure_fn fn;		/* NULL: a sweep fills s[] itself (vs_gro_sweep.c) */
	void *arg;
	double bytes;		/* bytes per unit: also report GB/s (0: not) */
	double s[MAXREP];
};

struct cmp {
	int d, o;		/* DPDK row, softoffload row */
};

extern struct row rows[MAXROW];
extern int verbose;

/* Registers a row of section @sec timed per @unit by @fn(@arg) once per
 * repetition.  @return its index (exits when the table is full). */
int add_row(const char *sec, const char *unit, measure_fn fn, void *arg, double bytes,
	    const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Reports DPDK row @d / softoffload row @o per repetition (ignored if < 0). */
void add_cmp(int d, int o);
/* Counts a failed correctness check (prints it; every check with -v). */
void check(int ok, const char *what, ...) __attribute__((format(printf, 2, 3)));
/* Zeroed 4 KiB-aligned memory; exits without. */
void *xalloc(size_t len);
/* @want iterations times the -s scale, at least 1. */
size_t iters_for(double want);
uint64_t splitmix64(uint64_t *s);
void fill_random(uint8_t *buf, size_t len, uint64_t seed);

/* ---- workloads and output checker (vs_work.c) ---- */

#define MSS	1448
#define HDRS	66

/* Frame buffers for the GRO inputs, packed like a receive ring's: a stride
 * of 2176 bytes (an mbuf's default data room) puts consecutive headers in
 * different L1 sets.  Separate 4 KiB-aligned buffers would put all 32
 * headers of a burst in one 8-way set and penalise whichever side reads
 * them in place (ours; DPDK reads its own mbuf copies). */
#define SLOT	2176

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

extern struct burst bursts[NW];
extern struct burst heavy;		/* W2 pattern x 1024 */

/* Output i of some engine, linearised: the checker's only view of it. */
typedef long (*out_fn)(void *eng, int i, uint8_t *buf, size_t cap);

extern uint8_t outbuf[1 << 17];

/* TCP/IPv4 segment @seg of flow @flow carrying @pay bytes (build_tcp4_frame). */
size_t tcp4_frame(uint8_t *buf, size_t cap, int flow, uint32_t seg, size_t pay, uint8_t flags);
/* UDP/IPv4 datagram, DF clear, for the GSO (fragmentation / USO) rows. */
size_t udp4_frame(uint8_t *buf, size_t cap, size_t pay);

/* VXLAN TCP/IPv4 (vs_gro.c, vs_gso.c tunnel rows): the anchor's TCP/IPv4
 * segment of flow f (tcp4_frame's inner Ethernet, addresses, ports, ISN,
 * options, payload pattern) inside Ethernet 02:00:00:00:01:01 ->
 * 02:00:00:00:01:02, IPv4 10.1.0.1 -> 10.1.0.2 (TTL 64, DF clear as Linux's
 * VXLAN device sends by default, ID 0x2000 + 0x100 f + segment), UDP
 * 49152 + 37 f -> 4789 (checksum 0), VXLAN I flag, VNI 4242.  116 header
 * bytes: on a 1500-byte wire the inner MSS is 1500 - 20 - 8 - 8 - 14 - 20
 * - 32 = VX_MSS (a 1514-byte frame). */
#define VX_MSS	1398
#define VX_HDRS	116
#define VX_VNI	4242u
/* Segment @seg of flow @flow with @pay bytes; @csum T_CSUM_FULL, or
 * T_CSUM_PARTIAL for an inner TCP checksum that is the pseudo-header sum. */
size_t vx_frame(uint8_t *buf, size_t cap, int flow, uint32_t seg, size_t pay, uint8_t flags,
		int csum);
/* One GRO input burst of @flows VXLAN flows x @segs segments, interleaved
 * (packet k = flow k % flows, segment k / flows) into @b (frames in the
 * receive-ring slots); b->id = @id. */
void build_vx_burst(struct burst *b, const char *id, int flows, int segs);
/* Builds bursts[] and heavy (bench/workloads.h) and checks them against
 * this harness's builder. */
void build_bursts(void);
/* Sorts the space-separated words of @in into @out. */
void sort_words(const char *in, char *out, size_t cap);
/* Describes outputs 0..n-1 ("f<flow>:s<first>-<last>[P]" each, sorted when
 * @sorted) after checking them; *bad = wrong ones.  @return the number of
 * outputs whose IPv4 header checksum is stale. */
int describe_all(void *eng, out_fn out, int n, int sorted, char *desc, size_t cap, int *bad);
/* "f0:s0 f1:s0 ..." for the W3 / X shapes: every input a singleton. */
void singletons(const struct burst *b, char *desc, size_t cap);
/* 1 when the engine's outputs are the burst's inputs, unchanged, in order. */
int passed_through(void *eng, out_fn out, int n, const struct burst *b);
/* Heavyweight expectation (sorted): per flow, runs of @run segments over 256. */
void heavy_expect(int run, char *desc, size_t cap);

/* ---- row families: each registers its rows ---- */

void setup_csum(void);		/* vs_csum.c: checksum rows */
void setup_sweep(void);		/* vs_csum.c: checksum length sweep */
void setup_rss(void);		/* vs_rss.c */
struct dg;
/* vs_parse.c: rte_net_get_ptype on @g's mbufs vs sofl_pkt_parse on @b */
void setup_parse(struct dg *g, const struct burst *b, int calls);
/* vs_parse.c: sofl_pkt_parse on @b's VXLAN frames, alone (no DPDK row) */
void setup_parse_vxlan(const struct burst *b, int calls);
void setup_gro_dpdk(void);	/* vs_gro.c: DPDK's rows first, */
void setup_gro_ours(void);	/* then ours, compared with them */
void setup_gso_dpdk(void);	/* vs_gso.c: the same order */
void setup_gso_ours(void);
/* VXLAN TCP/IPv4 rows, both sides: vs_gro.c (section gro, and gro_vxlan_flows:
 * flows interleaved), vs_gso.c (section gso, and gso_vxlan_sweep: super-packet
 * sizes).  After setup_gro_ours() / setup_gso_ours(). */
void setup_gro_vxlan(void);
void setup_gso_vxlan(void);
/* vs_gro_sweep.c: registers the flows sweep's rows (section gro_flows). */
void setup_gro_flows(void);
/* Runs the flows sweep, point by point, filling its rows' @reps samples
 * (each point's engines share polls: interleaved per poll). */
void run_gro_flows(int reps);

#endif
