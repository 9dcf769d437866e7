/* GRO engine benchmark on the DPDK 22.11 anchor workloads (workloads.h).
 *
 * Lightweight rows (W1..W4, X, and R16: 16 flows in turn, two segments
 * each, a rotation longer than a weave holds): one burst of 32 full-MSS
 * TCP/IPv4 segments per call cycle — sofl_gro_receive + sofl_gro_poll_end +
 * reading the outputs + sofl_gro_release — in a loop over the same, never
 * modified, inputs (zero copy: nothing to restore).  Reported: ns per input
 * packet, against DPDK 22.11 rte_gro_reassemble_burst on this VM
 * (the DPDK 22.11 anchor run).
 *   "verified": inputs flagged checksum-verified (NIC / virtio DATA_VALID),
 *   "sw-csum":  IPv4 header and TCP checksum verified in software,
 *   "csum-full": verified inputs, outputs get complete TCP checksums.
 * Inputs carry a per-flow rx hash, as from a NIC (Linux table: 8 buckets).
 *
 * Many-flow rows: the stream "packet k = segment k / N of flow k % N" for
 * N = 32, 1024, 65536 through the hashed LRU table (max_flows 2N) with a
 * flush timeout of N/32 polls, so every flow is held across polls (a
 * flow's next segment comes N/32 polls later), each packet looks up a table
 * holding ~N flows, and every N merges 2 segments per output: the rows do
 * the same work per packet.  Buffers are recycled from a
 * ring (seq/ID rewritten and both header cache lines touched outside the
 * timed region, as a NIC writing into the LLC would); each poll is timed
 * separately and the timer cost subtracted.  The 65536/32 ratio is the
 * "cost does not grow with the number of flows" check.
 *
 * Sweeps (gro_sweep.h; the plots of scripts/bench-plot.sh): section
 * gro_flows, rows "sofl_linux_hash@<N>" (Linux table, rx hash) and
 * "sofl_lru@<N>" (LRU table of 2N flows, no hash), ns per input packet
 * against N = 1 .. 65536 held flows, both engines fed the same buffers
 * poll by poll; section gro_segs, rows "<table>_<mode>@<S>", ns per input
 * packet against S = 1 .. 32 segments per super-packet (one flow, PSH on
 * every S-th segment, polls of 64).  SOFL_BENCH_ROW "flows sweep" / "segs
 * sweep" selects them.
 *
 * SOFL_BENCH_ROW=text runs only the rows whose name contains text (e.g.
 * "W1 sw-csum", "65536 flows"), SOFL_BENCH_SCALE=x (0 < x <= 1) scales the
 * iterations per sample: for instruction counts (valgrind --tool=callgrind)
 * and the smoke test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "softoffload/gro.h"
#include "softoffload/pkt.h"
#include "softoffload/csum.h"
#include "gro_sweep.h"
#include "util.h"
#include "workloads.h"

#define SLOT 1536

static const double dpdk_ns[WL__COUNT] = { 31.5, 36.5, 85.5, 34.4, 7.26, 0 };	/* 0: none */
static const int want_out[WL__COUNT] = { 1, 4, 32, 4, 32, 16 };

struct light {
	enum wl_gro w;
	int mode;		/* 0 verified, 1 sw-csum, 2 csum-full */
	struct sofl_gro *g;
	struct sofl_gro_in in[WL_BURST];
	uint8_t *mem;
	double *samples;
};

static const char *const mode_name[3] = { "verified", "sw-csum", "csum-full" };

static int
light_init(struct light *l, enum wl_gro w, int mode, int reps)
{
	struct sofl_gro_config cfg;
	const struct sofl_gro_out *o;
	uint8_t *bufs[WL_BURST];
	uint32_t lens[WL_BURST];
	unsigned k;
	int n, i, segs = 0;

	l->w = w;
	l->mode = mode;
	l->mem = aligned_alloc(64, WL_BURST * SLOT);
	l->samples = calloc((size_t)reps, sizeof(double));
	for (k = 0; k < WL_BURST; k++)
		bufs[k] = l->mem + k * SLOT;
	wl_gro_burst(w, bufs, lens);
	sofl_gro_config_init(&cfg);
	cfg.csum_full = mode == 2;
	if (sofl_gro_create(&cfg, &l->g) != 0)
		return -1;
	for (k = 0; k < WL_BURST; k++) {
		l->in[k].data = bufs[k];
		l->in[k].len = lens[k];
		/* a NIC's RSS hash (any per-flow value): spreads flows over Linux's
		 * 8 buckets instead of piling them into bucket 0 as a TAP would */
		l->in[k].flags = (mode == 1 ? 0 : SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK) |
				 SOFL_GRO_F_HASH;
		l->in[k].hash = sofl_get16(bufs[k] + 34) * 0x9e3779b9u >> 8;
		l->in[k].cookie = k;
	}
	/* correctness: expected outputs, every input once */
	sofl_gro_receive(l->g, l->in, WL_BURST, 0);
	sofl_gro_poll_end(l->g, 0);
	n = sofl_gro_outputs(l->g, &o);
	for (i = 0; i < n; i++)
		segs += (int)o[i].segs;
	sofl_gro_release(l->g);
	if (n != want_out[w] || segs != WL_BURST) {
		fprintf(stderr, "%s %s: %d outputs (%d segments), want %d\n", wl_gro_name(w),
			mode_name[mode], n, segs, want_out[w]);
		return -1;
	}
	return 0;
}

static double
light_run(struct light *l, int iters)
{
	const struct sofl_gro_out *o;
	uint64_t t0, t1, acc = 0;
	int i;

	t0 = bench_ns();
	for (i = 0; i < iters; i++) {
		sofl_gro_receive(l->g, l->in, WL_BURST, 0);
		sofl_gro_poll_end(l->g, 0);
		acc += (uint64_t)sofl_gro_outputs(l->g, &o);
		acc += o[0].len;
		sofl_gro_release(l->g);
	}
	t1 = bench_ns();
	bench_sink(acc);
	return (double)(t1 - t0) / ((double)iters * WL_BURST);
}

struct many {
	uint32_t nflows, ring, timeout;
	uint64_t k, poll;
	struct sofl_gro *g;
	uint8_t *mem;
	double *samples;
	uint64_t outs, segs;
};

static int
many_init(struct many *m, uint32_t nflows, int reps)
{
	struct sofl_gro_config cfg;
	uint32_t mult, j;

	memset(m, 0, sizeof(*m));
	m->nflows = nflows;
	m->timeout = nflows / WL_BURST;
	mult = (WL_BURST * (m->timeout + 2) + nflows - 1) / nflows + 1;
	m->ring = mult * nflows;
	m->mem = aligned_alloc(64, (size_t)m->ring * SLOT);
	m->samples = calloc((size_t)reps, sizeof(double));
	if (!m->mem || !m->samples)
		return -1;
	for (j = 0; j < m->ring; j++)
		wl_tcp4_frame(m->mem + (size_t)j * SLOT, j % nflows, 0, WL_MSS, WL_F_ACK);
	sofl_gro_config_init(&cfg);
	cfg.table = SOFL_GRO_TABLE_LRU;
	cfg.max_flows = 2 * nflows;
	cfg.flush_timeout_us = m->timeout;	/* one poll = 1 us of fake time */
	cfg.max_batch = WL_BURST;
	cfg.max_held = 2 * nflows + 64;
	return sofl_gro_create(&cfg, &m->g);
}

/* The next poll's inputs (untimed): recycled buffers with seq/ID rewritten
 * and both header cache lines touched. */
static void
many_prepare(struct many *m, struct sofl_gro_in *in)
{
	uint32_t flow, seg, i, touch = 0;

	for (i = 0; i < WL_BURST; i++, m->k++) {
		uint8_t *b = m->mem + (size_t)(m->k % m->ring) * SLOT;
		wl_many_packet(m->k, m->nflows, &flow, &seg);
		wl_tcp4_seq_id(b, flow, seg, 0);
		touch += b[64] + b[WL_HDR];	/* headers in cache, as a NIC's DDIO write leaves them */
		in[i].data = b;
		in[i].len = WL_FRAME;
		in[i].flags = SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK;
		in[i].hash = 0;
		in[i].cookie = m->k;
	}
	bench_sink(touch);
	m->poll++;
}

/* One poll: prepare (untimed), then time receive + poll_end + release. */
static uint64_t
many_poll(struct many *m)
{
	struct sofl_gro_in in[WL_BURST];
	const struct sofl_gro_out *o;
	uint64_t t0, t1;
	int n, j;

	many_prepare(m, in);
	t0 = bench_ns();
	sofl_gro_receive(m->g, in, WL_BURST, m->poll * 1000);
	sofl_gro_poll_end(m->g, m->poll * 1000);
	n = sofl_gro_outputs(m->g, &o);
	for (j = 0; j < n; j++)
		m->segs += o[j].segs;
	m->outs += (uint64_t)n;
	sofl_gro_release(m->g);
	t1 = bench_ns();
	return t1 - t0;
}

/* Diagnostic (not a row): the same polls as many_poll with receive and
 * poll_end + outputs + release timed apart (one more timer read, so not
 * comparable with the rows), receive split by the kind of poll: in this
 * stream a poll's 32 packets are all first segments (held: new flows) or
 * all second segments (merged into held flows), in runs of N/32 polls;
 * completion per output (flows timed out). */
struct split {
	uint64_t rx[2], rest, polls[2], outs;
};

static void
many_split(struct many *m, struct split *sp)
{
	struct sofl_gro_in in[WL_BURST];
	const struct sofl_gro_out *o;
	uint64_t t0, t1, t2;
	int n, kind;

	kind = (int)((m->k / m->nflows) & 1);
	many_prepare(m, in);
	t0 = bench_ns();
	sofl_gro_receive(m->g, in, WL_BURST, m->poll * 1000);
	t1 = bench_ns();
	sofl_gro_poll_end(m->g, m->poll * 1000);
	n = sofl_gro_outputs(m->g, &o);
	sofl_gro_release(m->g);
	t2 = bench_ns();
	sp->rx[kind] += t1 - t0;
	sp->polls[kind]++;
	sp->rest += t2 - t1;
	sp->outs += (uint64_t)n;
}

/* The shared parser alone on the W1 frames: what every input would cost if
 * it were parsed (the engine's fast paths decide the common layouts without
 * the parser; the general way parses). */
static double
parse_run(const struct light *l, int iters)
{
	struct sofl_pkt p;
	uint64_t t0, t1, acc = 0;
	int i, k;

	t0 = bench_ns();
	for (i = 0; i < iters; i++)
		for (k = 0; k < WL_BURST; k++) {
			sofl_pkt_parse(&p, l->in[k].data, l->in[k].len, SOFL_LINK_ETH);
			acc += p.pay_len;
		}
	t1 = bench_ns();
	bench_sink(acc);
	return (double)(t1 - t0) / ((double)iters * WL_BURST);
}

static double
timer_cost(void)
{
	double v[31];
	int i;

	for (i = 0; i < 31; i++) {
		uint64_t t0 = bench_ns(), t1 = bench_ns();
		v[i] = (double)(t1 - t0);
	}
	return bench_median(v, 31);
}

static double
many_run(struct many *m, int polls, double tc)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < polls; i++)
		sum += many_poll(m);
	return ((double)sum - tc * polls) / ((double)polls * WL_BURST);
}

/* SOFL_BENCH_ROW: 1 when row @name is to run */
static int
row_wanted(const char *name)
{
	const char *e = getenv("SOFL_BENCH_ROW");

	return !e || !*e || strstr(name, e) != NULL;
}

/* SOFL_BENCH_SCALE: @n iterations scaled, at least 1 */
static int
scaled(int n)
{
	const char *e = getenv("SOFL_BENCH_SCALE");
	double s = e ? atof(e) : 1.0;

	if (!(s > 0 && s <= 1))
		s = 1.0;
	return n * s >= 1 ? (int)(n * s) : 1;
}

/* Polls per repetition of the flows sweep at @n flows. */
static int
flows_polls(uint32_t n)
{
	(void)n;
	return scaled(256);
}

/* One steady-state poll of both engines (the order alternates per poll);
 * adds each engine's time to t[] (timer cost subtracted).  @return 0 when
 * each engine produced @want outputs (want < 0: any). */
static int
flows_step(struct gs_stream *s, struct gs_engine *e, double *t, double tc, int want)
{
	int ok = 0;

	gs_stream_next(s);
	for (int j = 0; j < 2; j++) {
		int k = (int)((s->poll + (uint64_t)j) & 1), n;
		uint64_t t0, t1;

		gs_engine_load(&e[k], s);
		t0 = bench_ns();
		n = gs_engine_poll(&e[k], s);
		t1 = bench_ns();
		if (t)
			t[k] += (double)(t1 - t0) - tc;
		/* the Linux table holds at most 64 flows (8 per bucket): from 64
		 * held (+ 16 new) it completes flows early */
		if (want >= 0 && n != want && !(e[k].table == GS_LINUX_HASH && s->nflows > 32))
			ok = -1;
	}
	return ok;
}

static void
flows_sweep(int reps, double tc)
{
	static const char *const series[2] = { "sofl_linux_hash", "sofl_lru" };
	double *sm[2];
	char name[64];

	if (!row_wanted("flows sweep"))
		return;
	sm[0] = calloc((size_t)reps, sizeof(double));
	sm[1] = calloc((size_t)reps, sizeof(double));
	for (int i = 0; i < GS_NFLOWS; i++) {
		uint32_t n = gs_flows_at(i);
		struct gs_stream s;
		struct gs_engine e[2];
		int polls = flows_polls(n);

		if (gs_stream_init(&s, n, SLOT) != 0 || gs_engine_init(&e[0], GS_LINUX_HASH, &s) != 0 ||
		    gs_engine_init(&e[1], GS_LRU, &s) != 0) {
			fprintf(stderr, "flows sweep: %u flows: no memory or engine\n", n);
			exit(1);
		}
		for (uint32_t w = 0; w < gs_warmup_polls(&s) + 64; w++)
			flows_step(&s, e, NULL, tc, -1);
		for (int c = 0; c < 4; c++)
			if (flows_step(&s, e, NULL, tc, gs_outs_per_poll(&s)) != 0) {
				fprintf(stderr, "flows sweep: %u flows: not %d outputs per poll\n", n,
					gs_outs_per_poll(&s));
				exit(1);
			}
		for (int r = 0; r < reps; r++) {
			double t[2] = { 0, 0 };

			for (int p = 0; p < polls; p++)
				flows_step(&s, e, t, tc, -1);
			for (int k = 0; k < 2; k++)
				sm[k][r] = t[k] / ((double)polls * GS_BURST);
		}
		for (int k = 0; k < 2; k++) {
			snprintf(name, sizeof(name), "%s@%u", series[k], n);
			bench_report("gro_flows", name, "ns_per_pkt", "ns", sm[k], reps);
			gs_engine_free(&e[k]);
		}
		gs_stream_free(&s);
	}
	free(sm[0]);
	free(sm[1]);
}

/* The segments sweep: one engine on the 64 PSH-bounded frames. */
struct segrow {
	struct sofl_gro *g;
	struct sofl_gro_in in[GS_SEG_BURST];
	uint8_t *mem;
	double *samples;
	int table, sw;		/* GS_LINUX_HASH / GS_LRU, software checksums */
	uint32_t segs;
};

static int
segrow_init(struct segrow *r, int table, int sw, uint32_t segs, int reps)
{
	struct sofl_gro_config cfg;
	uint32_t lens[GS_SEG_BURST];
	const struct sofl_gro_out *o;
	int n, i, bad = 0;

	r->table = table;
	r->sw = sw;
	r->segs = segs;
	r->mem = bench_alloc(GS_SEG_BURST * SLOT);
	r->samples = calloc((size_t)reps, sizeof(double));
	gs_segs_frames(r->mem, SLOT, segs, lens);
	sofl_gro_config_init(&cfg);
	if (table == GS_LRU) {
		cfg.table = SOFL_GRO_TABLE_LRU;
		cfg.max_flows = 32;
	}
	if (sofl_gro_create(&cfg, &r->g) != 0)
		return -1;
	for (i = 0; i < GS_SEG_BURST; i++) {
		r->in[i].data = r->mem + i * SLOT;
		r->in[i].len = lens[i];
		r->in[i].flags = (sw ? 0 : SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK) |
				 (table == GS_LINUX_HASH ? SOFL_GRO_F_HASH : 0);
		r->in[i].hash = 0x5bd1e995u;
		r->in[i].cookie = (uint64_t)i;
	}
	sofl_gro_receive(r->g, r->in, GS_SEG_BURST, 0);
	sofl_gro_poll_end(r->g, 0);
	n = sofl_gro_outputs(r->g, &o);
	for (i = 0; i < n; i++)
		bad += o[i].segs != segs;
	sofl_gro_release(r->g);
	if (n != (int)(GS_SEG_BURST / segs) || bad) {
		fprintf(stderr, "segs sweep %u: %d outputs (%d not of %u segments)\n", segs, n, bad,
			segs);
		return -1;
	}
	return 0;
}

static double
segrow_run(struct segrow *r, int iters)
{
	const struct sofl_gro_out *o;
	uint64_t t0, t1, acc = 0;

	t0 = bench_ns();
	for (int i = 0; i < iters; i++) {
		sofl_gro_receive(r->g, r->in, GS_SEG_BURST, 0);
		sofl_gro_poll_end(r->g, 0);
		acc += (uint64_t)sofl_gro_outputs(r->g, &o);
		acc += o[0].len;
		sofl_gro_release(r->g);
	}
	t1 = bench_ns();
	bench_sink(acc);
	return (double)(t1 - t0) / ((double)iters * GS_SEG_BURST);
}

static void
segs_sweep(int reps)
{
	/* Linux table verified, LRU table verified, Linux table software checksums */
	static const int cfgs[3][2] = { { GS_LINUX_HASH, 0 }, { GS_LRU, 0 }, { GS_LINUX_HASH, 1 } };
	static const char *const series[3] = { "sofl_linux_hash_verified", "sofl_lru_verified",
					       "sofl_linux_hash_swcsum" };
	struct segrow rw[3 * GS_NSEGS];
	int iters = scaled(10000), nr = 0;
	char name[64];

	if (!row_wanted("segs sweep"))
		return;
	for (int c = 0; c < 3; c++)
		for (int i = 0; i < GS_NSEGS; i++)
			if (segrow_init(&rw[nr++], cfgs[c][0], cfgs[c][1], gs_segs_at(i), reps) != 0)
				exit(1);
	for (int r = 0; r < reps; r++)
		for (int i = 0; i < nr; i++)
			rw[i].samples[r] = segrow_run(&rw[i], iters);
	for (int i = 0; i < nr; i++) {
		snprintf(name, sizeof(name), "%s@%u", series[i / GS_NSEGS], rw[i].segs);
		bench_report("gro_segs", name, "ns_per_pkt", "ns", rw[i].samples, reps);
		sofl_gro_destroy(rw[i].g);
		free(rw[i].mem);
		free(rw[i].samples);
	}
}

int
main(void)
{
	static const uint32_t nfl[3] = { 32, 1024, 65536 };
	struct light rows[WL__COUNT * 3];
	struct many mf[3];
	int reps = bench_reps(15), nrows = 0, r, i, iters = scaled(20000), mon[3];
	double tc = timer_cost(), med[WL__COUNT * 3], mmed[3], pmed;
	double *psamp = calloc((size_t)reps, sizeof(double));
	char name[64];

	for (i = 0; i < WL__COUNT; i++)
		for (int mode = 0; mode < 3; mode++) {
			/* software checksums for every workload (the target is
			 * per segment), complete checksums for W1 and W3 */
			if (mode == 2 && i != WL_W1 && i != WL_W3)
				continue;
			snprintf(name, sizeof(name), "%s %s (32 pkts/poll)", wl_gro_name((enum wl_gro)i),
				 mode_name[mode]);
			if (!row_wanted(name))
				continue;
			if (light_init(&rows[nrows], (enum wl_gro)i, mode, reps) != 0)
				return 1;
			nrows++;
		}
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "%u flows held, LRU table", nfl[i]);
		if (!(mon[i] = row_wanted(name)))
			continue;
		if (many_init(&mf[i], nfl[i], reps) != 0)
			return 1;
		for (uint32_t w = 0; w < 3 * nfl[i] / WL_BURST + 64; w++)
			many_poll(&mf[i]);		/* warm up: table full */
	}
	/* interleaved repetitions: a slow phase of the shared host hits all rows */
	for (r = 0; r < reps; r++) {
		for (i = 0; i < nrows; i++)
			rows[i].samples[r] = light_run(&rows[i], iters);
		psamp[r] = nrows ? parse_run(&rows[0], iters) : 0;
		for (i = 0; i < 3; i++)
			if (mon[i])
				mf[i].samples[r] = many_run(&mf[i], scaled(4000), tc);
	}
	for (i = 0; i < nrows; i++) {
		snprintf(name, sizeof(name), "%s %s (32 pkts/poll)", wl_gro_name(rows[i].w),
			 mode_name[rows[i].mode]);
		bench_report("gro", name, "ns per input packet", "ns", rows[i].samples, reps);
		med[i] = bench_median(rows[i].samples, reps);
	}
	if (nrows)
		bench_report("gro", "sofl_pkt_parse alone (W1 frames)", "ns per packet", "ns", psamp,
			     reps);
	pmed = bench_median(psamp, reps);
	for (i = 0; i < 3; i++) {
		struct split sp;

		if (!mon[i]) {
			mmed[i] = 0;
			continue;
		}
		snprintf(name, sizeof(name), "%u flows held, LRU table", nfl[i]);
		bench_report("gro", name, "ns per input packet", "ns", mf[i].samples, reps);
		mmed[i] = bench_median(mf[i].samples, reps);
		printf("         (%u flows: %.2f segments per output)\n", nfl[i],
		       mf[i].outs ? (double)mf[i].segs / (double)mf[i].outs : 0.0);
		memset(&sp, 0, sizeof(sp));
		for (r = 0; r < scaled(8192); r++)
			many_split(&mf[i], &sp);
		printf("         (diagnostic, one pass: receive %.1f ns/pkt in polls of new flows, "
		       "%.1f in polls of merges; poll_end+release %.1f ns per output)\n",
		       sp.polls[0] ? ((double)sp.rx[0] - tc * (double)sp.polls[0]) /
				     ((double)sp.polls[0] * WL_BURST) : 0.0,
		       sp.polls[1] ? ((double)sp.rx[1] - tc * (double)sp.polls[1]) /
				     ((double)sp.polls[1] * WL_BURST) : 0.0,
		       sp.outs ? ((double)sp.rest - tc * (double)(sp.polls[0] + sp.polls[1])) /
				 (double)sp.outs : 0.0);
	}
	printf("\nvs the DPDK 22.11 anchor figures (same workloads, recorded on\n"
	       "another day/host: indicative only; same-run ratios: scripts/bench-vs-dpdk.sh -o gro):\n");
	for (i = 0; i < nrows; i++)
		if (rows[i].mode == 0 && dpdk_ns[rows[i].w] > 0)
			printf("  %-3s verified: %6.2f ns/pkt   DPDK %6.2f   DPDK/ours = %.1fx\n",
			       wl_gro_name(rows[i].w), med[i], dpdk_ns[rows[i].w],
			       dpdk_ns[rows[i].w] / med[i]);
	if (mon[0] && mon[1] && mon[2])
		printf("  65536 flows / 32 flows (same method) = %.2fx; 1024 / 32 = %.2fx\n",
		       mmed[2] / mmed[0], mmed[1] / mmed[0]);
	if (nrows && rows[0].w == WL_W1 && rows[0].mode == 0)
		printf("  sofl_pkt_parse() alone costs %.2f ns per packet; W1 costs %.2f ns in all (its\n"
		       "  inputs are merged without being parsed: fast path)\n", pmed, med[0]);
	free(psamp);
	printf("\n");
	segs_sweep(reps);
	flows_sweep(reps, tc);
	for (i = 0; i < nrows; i++) {
		sofl_gro_destroy(rows[i].g);
		free(rows[i].mem);
		free(rows[i].samples);
	}
	for (i = 0; i < 3; i++) {
		if (!mon[i])
			continue;
		sofl_gro_destroy(mf[i].g);
		free(mf[i].mem);
		free(mf[i].samples);
	}
	return 0;
}
