/* GRO cost against active flows, next to DPDK (section gro_flows; the
 * stream of bench/gro_sweep.h): rows "dpdk_rte_gro@<N>" (a heavyweight
 * rte_gro_ctx sized for the flows: max_flow_num N + 32, 2 items per flow;
 * flushed with rte_gro_timeout_flush), "sofl_linux_hash@<N>" (the Linux
 * table with the rx hash) and "sofl_lru@<N>" (the LRU table of 2N flows, no
 * hash), ns per input packet, compared per repetition.  Unlike the other
 * rows these are not timed by the harness's round robin: each point N is
 * set up, run to its steady state and measured on its own (its buffers
 * would not fit beside every other point's), its three engines each on
 * its own copy of the stream, taking turns within every repetition.  DPDK
 * stops at 32768 flows: its max_flow_num is 16 bits (at most 65535, and
 * the table must hold N + 16). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "softoffload/softoffload.h"
#include "../gro_sweep.h"
#include "dpdk_side.h"
#include "vs.h"

#define DPDK_MAX_FLOWS	32768

struct point {
	int row[3];	/* DPDK (-1 beyond DPDK_MAX_FLOWS), Linux table, LRU */
};

static struct point pts[GS_NFLOWS];
static int sweep_on;

void
setup_gro_flows(void)
{
	for (int i = 0; i < GS_NFLOWS; i++) {
		uint32_t n = gs_flows_at(i);
		struct point *p = &pts[i];

		p->row[0] = n <= DPDK_MAX_FLOWS ?
		    add_row("gro_flows", "pkt", NULL, NULL, 0, "dpdk_rte_gro@%u", n) : -1;
		p->row[1] = add_row("gro_flows", "pkt", NULL, NULL, 0, "sofl_linux_hash@%u", n);
		p->row[2] = add_row("gro_flows", "pkt", NULL, NULL, 0, "sofl_lru@%u", n);
		add_cmp(p->row[0], p->row[1]);
		add_cmp(p->row[0], p->row[2]);
	}
	sweep_on = 1;
}

/* Polls per repetition: DPDK's cost per packet grows with N (it scans its
 * flow and item arrays), so fewer polls where it runs. */
static int
polls_for(uint32_t n, int dpdk)
{
	size_t p = iters_for(256);

	if (dpdk && n > 512) {
		size_t cap = iters_for(256.0 * 512 / n);
		p = cap < p ? cap : p;
		if (p < 4)
			p = 4;
	}
	return (int)p;
}

/* One engine on its own copy of the stream (same bytes, its own buffers:
 * no engine's polls run between another's, so none pays for the cache
 * lines another's table walk evicted). */
struct lane {
	struct gs_stream s;
	struct gs_engine e;	/* k = 1, 2 */
	struct dm *dm;		/* k = 0 */
	uint64_t t;		/* ticks, timer cost subtracted */
	int nout, segs;		/* the last poll's */
};

/* One poll of engine @k on its stream. */
static void
step(struct lane *w, int k)
{
	struct gs_stream *s = &w->s;
	uint64_t t0, t1, segs;

	gs_stream_next(s);
	if (k == 0) {
		for (int i = 0; i < s->n; i++)
			dm_load(w->dm, s->slot[i], gs_slot(s, s->slot[i]), s->len[i], HDRS);
		t0 = tic();
		w->nout = dm_poll(w->dm, s->slot, s->n, s->timeout);
		t1 = toc();
		dm_mark(w->dm);
		w->segs = dm_out_segs(w->dm);
	} else {
		gs_engine_load(&w->e, s);
		segs = w->e.segs;
		t0 = tic();
		w->nout = gs_engine_poll(&w->e, s);
		t1 = toc();
		w->segs = (int)(w->e.segs - segs);
	}
	w->t += t1 - t0 > timer_ovh ? (uint64_t)((double)(t1 - t0) - timer_ovh) : 0;
}

static void
lane_init(struct lane *w, int k, uint32_t n)
{
	memset(w, 0, sizeof(*w));
	if (gs_stream_init(&w->s, n, SLOT) != 0 ||
	    (k > 0 && gs_engine_init(&w->e, k == 1 ? GS_LINUX_HASH : GS_LRU, &w->s) != 0)) {
		fprintf(stderr, "bench_vs_dpdk: flows sweep at %u flows: no memory\n", n);
		exit(2);
	}
	if (k == 0 && (w->dm = dm_new((int)w->s.ring, n + GS_BURST, 2)) == NULL)
		exit(2);
}

static void
lane_free(struct lane *w, int k)
{
	if (k == 0)
		dm_free(w->dm);
	else
		gs_engine_free(&w->e);
	gs_stream_free(&w->s);
}

/* Point @i: each engine run to its steady state and checked, then the
 * repetitions, the engines taking turns within each (DPDK, Linux, LRU). */
static void
run_point(int i, int reps)
{
	static const char *const eng[3] = { "DPDK", "softoffload (Linux table)",
					    "softoffload (LRU table)" };
	struct point *p = &pts[i];
	uint32_t n = gs_flows_at(i);
	static struct lane w[3];
	int polls[3], segs = n >= 16 ? 2 : GS_BURST / (int)n;

	for (int k = 0; k < 3; k++) {
		if (p->row[k] < 0)
			continue;
		lane_init(&w[k], k, n);
		polls[k] = polls_for(n, k == 0);
		for (uint32_t c = 0; c < gs_warmup_polls(&w[k].s) + 16; c++)
			step(&w[k], k);
		/* steady state: every engine completes the same flows each
		 * poll (the Linux table only while it can hold them: 64
		 * flows, 8 per bucket) in 4 polls running.  DPDK's timeout is
		 * a TSC time: a preemption between our clock read and its own
		 * can complete a poll's worth of flows early, so the check
		 * wants one clean run of 4 polls in 16 tries */
		if (k == 1 && n > 32)
			continue;
		for (int t = 0, run = 0; t < 64 && run < 4; t++) {
			step(&w[k], k);
			run = w[k].nout == gs_outs_per_poll(&w[k].s) && w[k].segs == w[k].nout * segs ?
			      run + 1 : 0;
			if (run == 4 || t == 63)
				check(run == 4, "gro flows %u: %s completes %d flows of %d segments "
				      "per poll, 4 polls running (last %d, %d)", n, eng[k],
				      gs_outs_per_poll(&w[k].s), segs, w[k].nout, w[k].segs);
		}
	}
	for (int r = 0; r < reps; r++)
		for (int k = 0; k < 3; k++) {
			if (p->row[k] < 0)
				continue;
			w[k].t = 0;
			for (int c = 0; c < polls[k]; c++)
				step(&w[k], k);
			rows[p->row[k]].s[r] = (double)w[k].t / tsc_per_ns /
					       ((double)polls[k] * GS_BURST);
		}
	if (verbose)
		printf("# gro flows %u: %d (DPDK) / %d polls x %d repetitions\n", n,
		       p->row[0] >= 0 ? polls[0] : 0, polls[1], reps);
	for (int k = 0; k < 3; k++)
		if (p->row[k] >= 0)
			lane_free(&w[k], k);
}

void
run_gro_flows(int reps)
{
	if (!sweep_on)
		return;
	for (int i = 0; i < GS_NFLOWS; i++)
		run_point(i, reps);
}
