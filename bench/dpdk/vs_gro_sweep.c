/* GRO cost against active flows, next to DPDK (section gro_flows; the
 * stream of bench/gro_sweep.h): rows "dpdk_rte_gro@<N>" (a heavyweight
 * rte_gro_ctx sized for the flows: max_flow_num N + 32, 2 items per flow;
 * flushed with rte_gro_timeout_flush), "sofl_linux_hash@<N>" (the Linux
 * table with the rx hash) and "sofl_lru@<N>" (the LRU table of 2N flows, no
 * hash), ns per input packet, compared per repetition.  Unlike the other
 * rows these are not timed by the harness's round robin: each point N is
 * set up, run to its steady state and measured on its own (its buffers
 * would not fit beside every other point's), its three engines taking
 * turns on every poll of one stream.  DPDK stops at 32768 flows: its
 * max_flow_num is 16 bits (at most 65535, and the table must hold N + 16). */
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

struct sweep {
	struct gs_stream s;
	struct gs_engine e[2];
	struct dm *dm;
	uint64_t t[3];		/* ticks per engine, timer cost subtracted */
	int nout[3], segs[3];	/* the last poll's */
};

/* One poll of every engine, in a turn that rotates per poll. */
static void
step(struct sweep *w)
{
	struct gs_stream *s = &w->s;

	gs_stream_next(s);
	for (int j = 0; j < 3; j++) {
		int k = (int)((s->poll + (uint64_t)j) % 3);
		uint64_t t0, t1, segs;

		if (k == 0) {
			if (w->dm == NULL)
				continue;
			for (int i = 0; i < s->n; i++)
				dm_load(w->dm, s->slot[i], gs_slot(s, s->slot[i]), s->len[i], HDRS);
			t0 = tic();
			w->nout[0] = dm_poll(w->dm, s->slot, s->n, s->timeout);
			t1 = toc();
			dm_mark(w->dm);
			w->segs[0] = dm_out_segs(w->dm);
		} else {
			struct gs_engine *e = &w->e[k - 1];

			gs_engine_load(e, s);
			segs = e->segs;
			t0 = tic();
			w->nout[k] = gs_engine_poll(e, s);
			t1 = toc();
			w->segs[k] = (int)(e->segs - segs);
		}
		w->t[k] += t1 - t0 > timer_ovh ? (uint64_t)((double)(t1 - t0) - timer_ovh) : 0;
	}
}

static void
run_point(int i, int reps)
{
	static const char *const eng[3] = { "DPDK", "softoffload (Linux table)",
					    "softoffload (LRU table)" };
	struct point *p = &pts[i];
	uint32_t n = gs_flows_at(i);
	struct sweep w;
	int polls, want = 0;

	memset(&w, 0, sizeof(w));
	if (gs_stream_init(&w.s, n, SLOT) != 0 || gs_engine_init(&w.e[0], GS_LINUX_HASH, &w.s) != 0 ||
	    gs_engine_init(&w.e[1], GS_LRU, &w.s) != 0) {
		fprintf(stderr, "bench_vs_dpdk: flows sweep at %u flows: no memory\n", n);
		exit(2);
	}
	if (p->row[0] >= 0 && (w.dm = dm_new((int)w.s.ring, n + GS_BURST, 2)) == NULL)
		exit(2);
	polls = polls_for(n, w.dm != NULL);
	for (uint32_t k = 0; k < gs_warmup_polls(&w.s) + 16; k++)
		step(&w);
	/* steady state: every engine completes the same flows each poll (the
	 * Linux table only while it can hold them: 64 flows, 8 per bucket) */
	for (int c = 0; c < 4; c++) {
		step(&w);
		for (int k = 0; k < 3; k++) {
			int segs = n >= 16 ? 2 : GS_BURST / (int)n;

			if ((k == 0 && w.dm == NULL) || (k == 1 && n > 32))
				continue;
			want++;
			check(w.nout[k] == gs_outs_per_poll(&w.s) && w.segs[k] == w.nout[k] * segs,
			      "gro flows %u: %s completes %d flows of %d segments per poll (%d, %d)", n,
			      eng[k], gs_outs_per_poll(&w.s), segs, w.nout[k], w.segs[k]);
		}
	}
	for (int r = 0; r < reps; r++) {
		memset(w.t, 0, sizeof(w.t));
		for (int c = 0; c < polls; c++)
			step(&w);
		for (int k = 0; k < 3; k++)
			if (p->row[k] >= 0)
				rows[p->row[k]].s[r] = (double)w.t[k] / tsc_per_ns /
						       ((double)polls * GS_BURST);
	}
	if (verbose)
		printf("# gro flows %u: %d polls x %d repetitions, %d checks\n", n, polls, reps, want);
	dm_free(w.dm);
	gs_engine_free(&w.e[0]);
	gs_engine_free(&w.e[1]);
	gs_stream_free(&w.s);
}

void
run_gro_flows(int reps)
{
	if (!sweep_on)
		return;
	for (int i = 0; i < GS_NFLOWS; i++)
		run_point(i, reps);
}
