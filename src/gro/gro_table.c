/* GRO flow tables (gro_table.h): the parts off the per-packet path. */
#include "gro_table.h"

/* An IPv4 address is read with the 4-byte load its parser wrote it with:
 * an 8-byte load spanning that store and the zeroing before it cannot be
 * forwarded from the store buffer. */
uint32_t
gro_key_hash(const struct sofl_gro *g, const struct sofl_pkt *q)
{
	uint32_t ports = (uint32_t)q->key.sport << 16 | q->key.dport;
	uint32_t vlans = (uint32_t)q->key.vlan[0] | (uint32_t)q->key.vlan[1] << 12;
	uint64_t m[5], last, h;
	unsigned nw = key_msg(m, &last, q->key.src, q->key.dst, q->key.family, ports,
			      q->key.proto, q->key.flow_label, vlans);

	h = sofl_siphash13(g->hkey, m, nw, last);
	if (q->layers & SOFL_LAYER_ENCAP) {	/* a tunnel flow: tun_fold_msg */
		nw = tun_fold_msg(m, &last, (uint32_t)(h ^ h >> 32), q->data + q->outer_l3_off,
				  q->outer_ipv, q->vni);
		h = sofl_siphash13(g->hkey, m, nw, last);
	}
	return (uint32_t)(h ^ h >> 32);
}

/* LRU table: the oldest flow of a full chain (one a hash collision keeps
 * long: flows crafted to collide, or the caller's rx hashes), completed
 * to hold a new one, so that no walk passes LRU_CHAIN_MAX entries. */
uint32_t
gro_chain_oldest(const struct sofl_gro *g, uint32_t b)
{
	uint32_t fi = bhead(g, b);

	while (g->flows[fi].chain != NIL)
		fi = g->flows[fi].chain;
	return fi;
}

/* The free stack below fs_lo holds, implicitly, the entries never used
 * (fstack[i] = nflows - 1 - i, entry 0 on top): written FS_CHUNK at a
 * time before a hold would read below fs_lo (or its prefetch would), so
 * that creating a large table does not write (and back) all of it. */
void
gro_fstack_grow(struct sofl_gro *g)
{
	uint32_t lo = g->fs_lo > FS_CHUNK ? g->fs_lo - FS_CHUNK : 0, i;

	for (i = lo; i < g->fs_lo; i++)
		g->fstack[i] = g->nflows - 1 - i;
	g->fs_lo = lo;
	g->fs_grow_at = lo ? lo + FS_AHEAD : 0;
}
/* Flow @fi's cookies (the first segment's, then the others' in arrival
 * order) at @c; @return the end. */
static uint64_t *
flow_cookies(const struct sofl_gro *g, uint32_t fi, uint64_t *c)
{
	const struct flow *f = &g->flows[fi];
	uint32_t si;

	*c++ = f->cookie0;
	for (si = f->seg_head; si != NIL; si = g->segs[si].next)
		*c++ = g->segs[si].cookie;
	return c;
}

/* The held flows in the order a flush emits them (emit_buckets,
 * gro_flush_lru): Linux table bucket by bucket from the oldest (cprev
 * links), LRU table by the age list.  @return the cookies written. */
uint32_t
gro_held_cookies(const struct sofl_gro *g, uint64_t *c)
{
	uint64_t *p = c;
	uint32_t b, fi;

	if (g->lnx) {
		for (b = 0; b <= g->mask; b++)
			for (fi = g->tail[b]; fi != NIL; fi = g->flows[fi].cprev)
				p = flow_cookies(g, fi, p);
	} else {
		for (fi = g->age.head; fi != NIL; fi = g->flows[fi].age_next)
			p = flow_cookies(g, fi, p);
	}
	return (uint32_t)(p - c);
}

/* Held flow @fi out of the table without an output: its segment entries
 * back on the free list in one piece (as out_super), the entry on the free
 * stack (as emit). */
static void
drop_flow(struct sofl_gro *g, uint32_t fi)
{
	struct flow *f = &g->flows[fi];

	table_unlink(g, fi);
	if (f->seg_head != NIL) {
		g->segs[f->seg_tail].next = g->free_seg;
		g->free_seg = f->seg_head;
	}
	g->held_segs -= f->count;
	f->count = 0;
	g->fstack[g->nfree++] = fi;
}

/* Every held flow forgotten, its cookies written first (gro_held_cookies'
 * order).  @return the cookies written. */
uint32_t
gro_discard(struct sofl_gro *g, uint64_t *c)
{
	uint32_t n = gro_held_cookies(g, c), b, fi;

	if (g->lnx) {
		for (b = 0; b <= g->mask; b++)
			while ((fi = g->tail[b]) != NIL)
				drop_flow(g, fi);
	} else {
		while ((fi = g->age.head) != NIL)
			drop_flow(g, fi);
	}
	g->last_fi = NIL;
	return n;
}
