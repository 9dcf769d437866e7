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
}
