/* Internal: holding a packet as a new flow.
 *
 * A full bucket (the Linux table, gro_flush_oldest), a chain at its limit
 * or a table with no free entry (the LRU table) first completes its victim
 * (gro_out.c), then the packet takes a free entry and is linked into its
 * bucket and the age list (gro_table.h). */
#ifndef SOFL_GRO_HOLD_H
#define SOFL_GRO_HOLD_H

#include "gro_table.h"

/* Holds @in as a new flow in bucket @b.  @lnx: the engine's g->lnx, a
 * constant where the caller knows it; @fastp: called from a fast path (the
 * Linux policy: nothing for the relaxed one to keep). */
HOT void
hold_in(struct sofl_gro *g, const struct sofl_gro_in *in, const struct hinfo *x, uint32_t h,
	uint32_t b, uint32_t ports, int ck, const int lnx, const int fastp)
{
	struct flow *f;
	uint32_t fi;

	if (lnx && g->cnt[b] >= LNX_PER_BUCKET)
		gro_complete(g, bucket_oldest(g, b), SOFL_GRO_FLUSH_EVICT);
	else if (!lnx && g->head[b] >= LRU_CHAIN_MAX * HB_ONE)
		gro_complete(g, gro_chain_oldest(g, b), SOFL_GRO_FLUSH_EVICT);
	else if (!lnx && g->held_flows == g->nflows)
		gro_complete(g, clock_victim(g), SOFL_GRO_FLUSH_EVICT);
	if (!lnx && g->nfree <= g->fs_grow_at)	/* (the Linux table's is written whole) */
		gro_fstack_grow(g);
	fi = g->fstack[--g->nfree];
	f = &g->flows[fi];
	/* with many flows the entries holds take are cold: a free stack (not
	 * a list through the entries, whose every pop waited for the last
	 * one's miss) lets the entry FS_AHEAD holds away be fetched now */
	if (!lnx && g->pf && g->nfree >= FS_AHEAD)
		flow_prefetch(g, g->fstack[g->nfree - FS_AHEAD]);

	f->hash = h;
	f->ports = ports;
	f->ipv = x->ipv;
	f->proto = x->proto;
	f->l4_len = (uint8_t)x->l4_len;
	f->ck = (uint8_t)ck;
	f->l3_off = x->l3_off;
	f->l3_len = x->l3_len;
	f->l4_off = x->l4_off;
	f->hdr_len = x->pay_off;
	f->mss = (uint16_t)x->pay_len;
	f->count = 1;
	if (!fastp)
		f->ulen = (uint16_t)(x->pay_len + 8);	/* UDP only */
	f->fixedid = 0;
	f->orflags = 0;
	f->next_seq = x->seq + x->pay_len;
	f->ip_len = x->ip_len;
	f->seg_head = NIL;
	f->seg_tail = SINK(g);
	f->cookie0 = in->cookie;
	f->hdr = x->data;
	if (!lnx) {		/* (the Linux table: fframe() is hdr) */
		f->frame = x->data;
		if (g->pf && x->pay_off <= HCOPY) {
			/* a constant size copies inline (the bytes past the
			 * headers are never read); a short frame copies its own */
			if (x->pay_off + x->pay_len >= HCOPY)
				memcpy(f->hc, x->data, HCOPY);
			else
				memcpy(f->hc, x->data, x->pay_off);
			f->hdr = f->hc;
		}
	}
	f->ref = REF_HELD;
	f->mk = MK_UNSET;	/* most flows of a many-flow poll never see a 2nd segment */
	if (!fastp && g->cfg.policy == SOFL_GRO_POLICY_RELAXED) {	/* (relaxed policy only) */
		f->last_l4 = x->data + x->l4_off;
		f->ts_off = x->ts_off;
	}
	if (g->timeout_ns)
		f->age = g->now;

	f->chain = bhead(g, b);
	f->cprev = NIL;
	if (f->chain != NIL)
		g->flows[f->chain].cprev = fi;
	else if (lnx)
		g->tail[b] = fi;
	if (lnx)
		g->head[b] = fi + 1;	/* (no count bits) */
	else
		g->head[b] = (g->head[b] & ~HB_IDX) + HB_ONE + (fi + 1);
	if (lnx) {
		g->cnt[b]++;
		const uint32_t t = b * TAGS + ((h >> 3) & (TAGS - 1));	/* tag_of(g, h) */

		g->tags[t]++;
		g->tagfi[t] = (uint8_t)fi;	/* (fi < 64: the Linux table's 8 x 8) */
	}
	if (!lnx || g->timeout_ns)	/* g->use_age */
		DL_LINK(g, &g->age, fi, age_prev, age_next);
	g->held_flows++;
	g->held_segs++;
}

/* The tunnel state of the tunnel flow just held at the head of bucket @b
 * (frame @d): outer IP header at @o3 (version @ov), outer UDP header at @o4
 * (0: IP-in-IP), tunnel header at @enc, enum sofl_encap @type — from
 * gro_hold's parse or fast_hold_tun's reading of the frame alike. */
static inline void
hold_tun(struct sofl_gro *g, uint32_t b, const uint8_t *d, uint32_t o3, uint32_t o4, uint32_t enc,
	 unsigned ov, unsigned type)
{
	struct tflow *t = &g->tun[bhead(g, b)];

	t->o3 = (uint16_t)o3;
	t->o4 = (uint16_t)o4;
	t->enc = (uint16_t)enc;
	t->ov = (uint8_t)ov;
	t->type = (uint8_t)type;
	t->ocsum = o4 && sofl_get16(d + o4 + 6) != 0;
	t->ofixed = 0;
}

#endif
