/* GRO: a parsed packet held as a new flow (gro_hold.h). */
#include "gro_hold.h"

/* hold_in() for a parsed packet */
void
gro_hold(struct sofl_gro *g, const struct sofl_gro_in *in, const struct sofl_pkt *q, uint32_t h,
     uint32_t b, uint32_t ports, int ck)
{
	struct hinfo x;

	x.data = q->data;
	x.seq = q->tcp_seq;
	x.pay_len = q->pay_len;
	x.ip_len = q->ip_end - q->l3_off;
	x.l3_off = q->l3_off;
	x.l3_len = q->l3_len;
	x.l4_off = q->l4_off;
	x.l4_len = q->l4_len;
	x.pay_off = (uint16_t)q->pay_off;
	x.ts_off = q->opt_ts ? (uint16_t)(q->opt_ts - q->l4_off) : 0;
	x.ipv = q->ipv;
	x.proto = q->l4_proto;
	if (g->lnx)
		hold_in(g, in, &x, h, b, ports, ck, 1, 0);
	else
		hold_in(g, in, &x, h, b, ports, ck, 0, 0);
	/* A flow whose L3 offset is past any plain one's (TUN_L3) has its
	 * tunnel state written here, ov 0 when it is none: every reader tests
	 * that offset first, so delivering or dropping a flow need not clear
	 * it (and fast_hold's flows, plain offsets, never touch it) */
	if (__builtin_expect(q->l3_off > TUN_L3(g), 0)) {	/* the flow just held heads bucket b */
		if (!(q->layers & SOFL_LAYER_ENCAP))
			g->tun[bhead(g, b)].ov = 0;
		else
			hold_tun(g, b, q->data, q->outer_l3_off, q->outer_l4_off, q->encap_off,
				 q->outer_ipv, q->encap);
	}
}

