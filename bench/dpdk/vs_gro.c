/* GRO rows of bench_vs_dpdk: rte_gro_reassemble_burst (NIC and TAP
 * cases) and the heavyweight stream against sofl_gro (vs.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "softoffload/softoffload.h"
#include "vs.h"
#include "softoffload/gro.h"
#include "softoffload/rss.h"
#include "../util.h"
#include "dpdk_side.h"

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

void
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
		if (w == W1)
			setup_parse(g, b, calls);
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

	if (!nic && sofl_rss_create(NULL, &nic) != 0)
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

void
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

/* ---- VXLAN TCP/IPv4 rows: DPDK's gro_vxlan_tcp4 against ours ----
 * The same bytes to both (vx_frame(), vs_work.c).  DPDK's mbufs carry the
 * tunnel's packet_type and lengths as a NIC that parses VXLAN reports them;
 * ours get the NIC's RSS hash and checksums flagged verified (a NIC that
 * validated the inner checksum), or verify in software, or (TAP case) the
 * LRU table without a hash.  DPDK checks no checksum and leaves both IPv4
 * header checksums stale; ours must leave both valid. */

#define VX_FLOWS_MAX 32

static struct burst vx1;			/* 1 flow, 32 segments in order */
static struct burst vxf[6];			/* 1..32 flows x 4 segments, interleaved */
static char vx_ids[6][32];

/* "f0:s0-<segs-1> f1:... " for @flows flows of @segs segments each. */
static void
vx_expect(int flows, int segs, char *out, size_t cap)
{
	size_t o = 0;

	for (int f = 0; f < flows; f++)
		o += (size_t)snprintf(out + o, o < cap ? cap - o : 0, "%sf%d:s0-%d", f ? " " : "", f,
				      segs - 1);
}

/* DPDK row for burst @b (expected outputs @want, in flow order). */
static int
vx_dpdk_row(struct burst *b, const char *want, int nout, int calls, const char *sec,
	    const char *name)
{
	static char desc[65536];
	struct dg *g = dg_new((const uint8_t *const *)b->frame, b->len, b->n, DG_VXLAN_TCP);
	struct gro_arg *a = xalloc(sizeof(*a));
	int bad, stale, n;

	if (g == NULL)
		exit(2);
	n = dg_run(g);
	stale = describe_all(g, dg_out_fn, n, 0, desc, sizeof(desc), &bad);
	check(n == nout && bad == 0 && strcmp(desc, want) == 0, "gro %s: DPDK VXLAN %d -> %d: %s",
	      b->id, b->n, n, desc);
	if (stale)
		printf("note gro %s: DPDK left %d of %d outputs with stale IPv4 header checksums\n",
		       b->id, stale, n);
	*a = (struct gro_arg){ g, NULL, b->n, calls, 0, nout };
	return add_row(sec, "pkt", m_dpdk_gro, a, 0, "%s", name);
}

void
setup_gro_vxlan(void)
{
	static char want[65536];
	int calls = (int)iters_for(200) > MAXCALL ? MAXCALL : (int)iters_for(200);
	int d, o;

	/* one flow in order: 32 -> 1 */
	build_vx_burst(&vx1, "VX1_vxlan_1flow_inorder", 1, 32);
	vx_expect(1, 32, want, sizeof(want));
	d = vx_dpdk_row(&vx1, want, 1, calls, "gro", "dpdk_VX1_vxlan_1flow_inorder");
	setup_parse_vxlan(&vx1, calls);
	for (int k = 0; k < 3; k++) {
		static const char *const what[] = { "sw checksums", "pre-verified",
						    "pre-verified, LRU table, no hash" };
		static const char *const sfx[] = { "swcsum", "preverified", "lru_nohash_preverified" };
		struct og *e = og_new(&vx1, vx1.n, 1, k > 0, k == 2 ? OG_LRU : OG_LINUX_HASH, calls);

		og_check(e, &vx1, want, what[k]);
		o = add_row("gro", "pkt", m_ours_gro, e, 0, "sofl_VX1_vxlan_1flow_inorder_%s", sfx[k]);
		add_cmp(d, o);
	}
	/* flows interleaved: F flows x 4 segments, packet k = flow k % F, in one
	 * burst of 4F (32 flows: 128 packets, DPDK's RTE_GRO_MAX_BURST_ITEM_NUM);
	 * F outputs of 4 segments (section gro_vxlan_flows, x = F) */
	for (int i = 0, f = 1; f <= VX_FLOWS_MAX; i++, f *= 2) {
		snprintf(vx_ids[i], sizeof(vx_ids[i]), "VX%d_vxlan_%dflows_rr4", f, f);
		build_vx_burst(&vxf[i], vx_ids[i], f, 4);
		vx_expect(f, 4, want, sizeof(want));
		{
			char name[64];
			snprintf(name, sizeof(name), "dpdk_rte_gro_vxlan@%d", f);
			d = vx_dpdk_row(&vxf[i], want, f, calls, "gro_vxlan_flows", name);
		}
		for (int k = 0; k < 2; k++) {
			struct og *e = og_new(&vxf[i], vxf[i].n, 1, 1, k ? OG_LRU : OG_LINUX_HASH, calls);

			og_check(e, &vxf[i], want, k ? "pre-verified, LRU table, no hash" : "pre-verified");
			o = add_row("gro_vxlan_flows", "pkt", m_ours_gro, e, 0, "%s@%d",
				    k ? "sofl_lru" : "sofl_linux_hash", f);
			add_cmp(d, o);
		}
	}
}
