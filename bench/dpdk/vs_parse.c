/* Parser rows of bench_vs_dpdk: rte_net_get_ptype against
 * sofl_pkt_parse on the W1 frames (vs.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "softoffload/softoffload.h"
#include "vs.h"
#include "../util.h"
#include "dpdk_side.h"

/* Software parsing alone, 32 frames: rte_net_get_ptype() (what DPDK's GRO
 * needs done before it when no NIC classifies) vs sofl_pkt_parse() (what
 * every softoffload engine starts with). */
struct parse_arg {
	struct dg *g;
	const struct burst *b;
	int calls;
};

/* Passes over the burst per timer reading: this host's TSC advances in
 * steps of ~20 ticks (10 ns), 5-6% of one 32-frame pass, which left the two
 * rows' medians a whole step apart or equal; eight passes per reading make
 * the step under 1%.  Both rows do the same: DPDK classifies the same mbufs
 * again, ours parses the same frames again. */
#define PASSES 8

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
			for (int k = 0; k < PASSES; k++)
				acc += dg_classify(a->g);
			t1 = toc();
		} else {
			struct sofl_pkt p;
			t0 = tic();
			for (int k = 0; k < PASSES; k++)
				for (int i = 0; i < a->b->n; i++) {
					const uint8_t *f = a->b->frame[i];
					LAUNDER(f);
					sofl_pkt_parse(&p, f, a->b->len[i], SOFL_LINK_ETH);
					acc += p.l4_off;
				}
			t1 = toc();
		}
		v[c] = ((double)(t1 - t0) - timer_ovh) / PASSES;
	}
	bench_sink(acc);
	return ticks_median_ns(v, a->calls) / (double)a->b->n;
}

/* The parser rows on the W1 burst: DPDK classifying the mbufs of @g,
 * ours parsing the frames of @b; @calls calls per repetition. */
void
setup_parse(struct dg *g, const struct burst *b, int calls)
{
		struct parse_arg *pd = xalloc(sizeof(*pd)), *po = xalloc(sizeof(*po));
		*pd = (struct parse_arg){ g, b, calls };
		*po = (struct parse_arg){ NULL, b, calls };
		add_cmp(add_row("gro", "pkt", m_parse, pd, 0, "rte_net_get_ptype_tcp4_1514B"),
			add_row("gro", "pkt", m_parse, po, 0, "sofl_pkt_parse_tcp4_1514B"));
}

/* Our parse of the VXLAN frames of @b (through the tunnel to the inner TCP
 * header), alone: the part of a tunnel GRO input's cost that DPDK's
 * gro_vxlan_tcp4 is spared (its NIC-set packet_type and lengths).  No DPDK
 * row: rte_net_get_ptype() does not recognise VXLAN (it stops at the outer
 * UDP header), so it does not do this work. */
void
setup_parse_vxlan(const struct burst *b, int calls)
{
	struct parse_arg *po = xalloc(sizeof(*po));

	*po = (struct parse_arg){ NULL, b, calls };
	add_row("gro", "pkt", m_parse, po, 0, "sofl_pkt_parse_vxlan_tcp4_1514B");
}
