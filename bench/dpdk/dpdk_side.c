/* The DPDK side of bench_vs_dpdk (see dpdk_side.h).  Compiled with exactly
 * `pkg-config --cflags libdpdk` (Debian: -march=corei7) and -O3, as the
 * anchor measurements were; rte_gro/rte_gso themselves are Debian's shared
 * library code, so their speed does not depend on these flags. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_gro.h>
#include <rte_gso.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_net.h>
#include "dpdk_side.h"

#define MAX_BURST 1024

static struct rte_mempool *gro_pool;	/* 2 KB data room, as an RX ring's */
static struct rte_mempool *big_pool;	/* 64 KB super-packets */
static struct rte_mempool *direct_pool, *indirect_pool;

int
dpdk_init(int argc, char **argv)
{
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "rte_eal_init: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	gro_pool = rte_pktmbuf_pool_create("gro", 4095, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
	    (int)rte_socket_id());
	/* the TCP and UDP super-packets, the VXLAN one and its size sweep's */
	big_pool = rte_pktmbuf_pool_create("big", 15, 0, 0, UINT16_MAX, (int)rte_socket_id());
	/* what testpmd sets up for GSO: 8191-entry pools, 256-entry cache */
	direct_pool = rte_pktmbuf_pool_create("gso_direct", 8191, 256, 0,
	    RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	indirect_pool = rte_pktmbuf_pool_create("gso_indirect", 8191, 256, 0, 0,
	    (int)rte_socket_id());
	if (!gro_pool || !big_pool || !direct_pool || !indirect_pool) {
		fprintf(stderr, "rte_pktmbuf_pool_create: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

void
dpdk_fini(void)
{
	rte_eal_cleanup();
}

/* Header bytes of an Ethernet/IPv4/TCP-or-UDP frame: what GRO/GSO may edit. */
static uint32_t
hdr_len(const uint8_t *f, int tcp, uint8_t *l3, uint8_t *l4)
{
	*l3 = (uint8_t)((f[14] & 0x0f) * 4);
	*l4 = tcp ? (uint8_t)((f[14 + *l3 + 12] >> 4) * 4) : 8;
	return 14u + *l3 + *l4;
}

/* The lengths DPDK wants for a VXLAN TCP/IPv4 frame (Ethernet, IPv4, UDP,
 * VXLAN, Ethernet, IPv4, TCP; no VLANs): outer_l2_len, outer_l3_len, l2_len
 * = outer UDP + VXLAN + inner Ethernet (30), l3_len, l4_len.  @return all
 * header bytes. */
static uint32_t
vx_hdr_len(const uint8_t *f, uint8_t *ol3, uint8_t *l3, uint8_t *l4)
{
	uint32_t in;

	*ol3 = (uint8_t)((f[14] & 0x0f) * 4);
	in = 14u + *ol3 + 30u;
	*l3 = (uint8_t)((f[in] & 0x0f) * 4);
	*l4 = (uint8_t)((f[in + *l3 + 12] >> 4) * 4);
	return in + *l3 + *l4;
}

/* One input packet: its mbuf and what restoring it needs. */
struct slot {
	struct rte_mbuf *m;
	const uint8_t *frame;
	uint32_t len, hlen;
	uint8_t l3, l4, ol3;	/* ol3: VXLAN only (outer IPv4 header) */
};

static int
slot_init(struct slot *s, const uint8_t *frame, uint32_t len, int kind)
{
	s->m = rte_pktmbuf_alloc(gro_pool);
	if (s->m == NULL || len > rte_pktmbuf_tailroom(s->m))
		return -1;
	s->frame = frame;
	s->len = len;
	if (kind == DG_VXLAN_TCP) {
		s->hlen = vx_hdr_len(frame, &s->ol3, &s->l3, &s->l4);
	} else {
		s->hlen = hdr_len(frame, kind == DG_TCP, &s->l3, &s->l4);
		s->ol3 = 0;
	}
	memcpy(rte_pktmbuf_mtod(s->m, uint8_t *), frame, len);
	return 0;
}

static void
slot_restore(struct slot *s, uint32_t ptype)
{
	struct rte_mbuf *m = s->m;

	m->next = NULL;
	m->nb_segs = 1;
	m->data_off = RTE_PKTMBUF_HEADROOM;
	m->data_len = (uint16_t)s->len;
	m->pkt_len = s->len;
	m->ol_flags = 0;
	m->packet_type = ptype;
	if (s->ol3) {	/* VXLAN: as a NIC that parses tunnels reports it */
		m->outer_l2_len = 14;
		m->outer_l3_len = s->ol3;
		m->l2_len = 30;
	} else {
		m->outer_l2_len = 0;
		m->outer_l3_len = 0;
		m->l2_len = 14;
	}
	m->l3_len = s->l3;
	m->l4_len = s->l4;
	/* GRO rewrites the head's IPv4 length (and may OR in flags) and strips
	 * the headers of merged tails by moving data_off; payload is untouched */
	memcpy(rte_pktmbuf_mtod(m, uint8_t *), s->frame, s->hlen);
}

/* Linearises a chain, checking its bookkeeping as the anchor did. */
static long
chain_out(const struct rte_mbuf *m, uint8_t *buf, size_t cap)
{
	uint32_t sum = 0;
	uint16_t segs = 0;

	for (const struct rte_mbuf *s = m; s != NULL; s = s->next) {
		if (sum + s->data_len > cap)
			return -1;
		memcpy(buf + sum, rte_pktmbuf_mtod(s, const uint8_t *), s->data_len);
		sum += s->data_len;
		segs++;
	}
	if (segs != m->nb_segs || sum != m->pkt_len)
		return -1;
	return (long)sum;
}

struct dg {
	int n, kind;
	uint32_t ptype;
	struct slot slot[RTE_GRO_MAX_BURST_ITEM_NUM];
	struct rte_mbuf *pkts[RTE_GRO_MAX_BURST_ITEM_NUM];
	int nout;
};

struct dg *
dg_new(const uint8_t *const *frames, const uint32_t *lens, int n, int kind)
{
	struct dg *g = calloc(1, sizeof(*g));

	if (g == NULL || n < 1 || n > (int)RTE_GRO_MAX_BURST_ITEM_NUM)
		goto fail;
	g->n = n;
	g->kind = kind;
	if (kind == DG_VXLAN_TCP)	/* what gro_vxlan_tcp4 requires (rte_gro.c) */
		g->ptype = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_UDP |
		    RTE_PTYPE_TUNNEL_VXLAN | RTE_PTYPE_INNER_L2_ETHER |
		    RTE_PTYPE_INNER_L3_IPV4 | RTE_PTYPE_INNER_L4_TCP;
	else
		g->ptype = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 |
		    (kind == DG_TCP ? RTE_PTYPE_L4_TCP : RTE_PTYPE_L4_UDP);
	for (int i = 0; i < n; i++)
		if (slot_init(&g->slot[i], frames[i], lens[i], kind) < 0)
			goto fail;
	dg_restore(g);
	return g;
fail:
	fprintf(stderr, "dg_new: cannot set up %d mbufs\n", n);
	free(g);
	return NULL;
}

void
dg_restore(struct dg *g)
{
	for (int i = 0; i < g->n; i++) {
		slot_restore(&g->slot[i], g->ptype);
		g->pkts[i] = g->slot[i].m;
	}
}

int
dg_run(struct dg *g)
{
	/* the 32x32 limits of the anchor workloads */
	struct rte_gro_param p = {
		.gro_types = g->kind == DG_VXLAN_TCP ? RTE_GRO_IPV4_VXLAN_TCP_IPV4 : RTE_GRO_TCP_IPV4,
		.max_flow_num = 32,
		.max_item_per_flow = 32,
	};

	g->nout = rte_gro_reassemble_burst(g->pkts, (uint16_t)g->n, &p);
	return g->nout;
}

uint32_t
dg_classify(struct dg *g)
{
	uint32_t acc = 0;

	for (int i = 0; i < g->n; i++) {
		struct rte_mbuf *m = g->pkts[i];
		struct rte_net_hdr_lens hl;

		m->packet_type = rte_net_get_ptype(m, &hl, RTE_PTYPE_ALL_MASK);
		m->l2_len = hl.l2_len;
		m->l3_len = hl.l3_len;
		m->l4_len = hl.l4_len;
		acc ^= m->packet_type;
	}
	return acc;
}

int
dg_run_parse(struct dg *g)
{
	dg_classify(g);
	return dg_run(g);
}

long
dg_out(struct dg *g, int i, uint8_t *buf, size_t cap)
{
	if (i < 0 || i >= g->nout)
		return -1;
	return chain_out(g->pkts[i], buf, cap);
}

struct dh {
	int n, burst, flush_every, nout;
	void *ctx;
	struct slot *slot;
	struct rte_mbuf **in, **out;
};

struct dh *
dh_new(const uint8_t *const *frames, const uint32_t *lens, int n, int burst, int flush_every)
{
	struct rte_gro_param p = {
		.gro_types = RTE_GRO_TCP_IPV4,
		.max_flow_num = 32,
		.max_item_per_flow = 32,
		.socket_id = rte_socket_id(),
	};
	struct dh *h = calloc(1, sizeof(*h));

	if (h == NULL || n < 1 || n > MAX_BURST || burst < 1 || burst > n)
		goto fail;
	h->n = n;
	h->burst = burst;
	h->flush_every = flush_every;
	h->slot = calloc((size_t)n, sizeof(*h->slot));
	h->in = calloc((size_t)n, sizeof(*h->in));
	h->out = calloc((size_t)n, sizeof(*h->out));
	h->ctx = rte_gro_ctx_create(&p);
	if (!h->slot || !h->in || !h->out || !h->ctx)
		goto fail;
	for (int i = 0; i < n; i++)
		if (slot_init(&h->slot[i], frames[i], lens[i], DG_TCP) < 0)
			goto fail;
	dh_restore(h);
	return h;
fail:
	fprintf(stderr, "dh_new: cannot set up %d mbufs\n", n);
	return NULL;	/* the process exits on set-up failure */
}

void
dh_restore(struct dh *h)
{
	uint32_t ptype = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_TCP;

	for (int i = 0; i < h->n; i++) {
		slot_restore(&h->slot[i], ptype);
		h->in[i] = h->slot[i].m;
	}
}

int
dh_run(struct dh *h)
{
	int nout = 0;

	for (int b = 0; b < h->n; b += h->burst) {
		uint16_t k = rte_gro_reassemble(h->in + b, (uint16_t)h->burst, h->ctx);

		/* packets GRO did not take are returned in place */
		for (uint16_t i = 0; i < k; i++)
			h->out[nout++] = h->in[b + i];
		if (h->flush_every)
			nout += rte_gro_timeout_flush(h->ctx, 0, RTE_GRO_TCP_IPV4, h->out + nout,
			    (uint16_t)(h->n - nout));
	}
	while (rte_gro_get_pkt_count(h->ctx) > 0 && nout < h->n)
		nout += rte_gro_timeout_flush(h->ctx, 0, RTE_GRO_TCP_IPV4, h->out + nout,
		    (uint16_t)(h->n - nout));
	h->nout = nout;
	return nout;
}

long
dh_out(struct dh *h, int i, uint8_t *buf, size_t cap)
{
	if (i < 0 || i >= h->nout)
		return -1;
	return chain_out(h->out[i], buf, cap);
}

struct dm {
	struct rte_mempool *pool;
	struct rte_mbuf **slot;
	struct rte_mbuf *pkts[MAX_BURST], *out[MAX_BURST];
	void *ctx;
	uint64_t *mark;		/* end of poll p, at mark[p % nmark] */
	uint64_t poll;
	uint32_t nslots, nmark;
	int nout, segs;
};

struct dm *
dm_new(int nslots, uint32_t max_flows, uint32_t items_per_flow)
{
	static int seq;
	struct rte_gro_param p = {
		.gro_types = RTE_GRO_TCP_IPV4,
		.socket_id = rte_socket_id(),
	};
	struct dm *m;
	char name[32];

	if (max_flows > UINT16_MAX || items_per_flow > UINT16_MAX ||
	    (uint64_t)max_flows * items_per_flow > 1024 * 1024) {
		fprintf(stderr, "dm_new: DPDK's table holds at most 65535 flows and 1M items, "
		    "not %u x %u\n", max_flows, items_per_flow);
		return NULL;
	}
	p.max_flow_num = (uint16_t)max_flows;
	p.max_item_per_flow = (uint16_t)items_per_flow;
	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return NULL;
	snprintf(name, sizeof(name), "dm%d", seq++);
	m->nslots = (uint32_t)nslots;
	m->nmark = (uint32_t)nslots + 2;
	m->pool = rte_pktmbuf_pool_create(name, (unsigned)nslots, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
	    (int)rte_socket_id());
	m->slot = calloc((size_t)nslots, sizeof(*m->slot));
	m->mark = calloc(m->nmark, sizeof(*m->mark));
	m->ctx = rte_gro_ctx_create(&p);
	if (m->pool == NULL || m->slot == NULL || m->mark == NULL || m->ctx == NULL ||
	    rte_pktmbuf_alloc_bulk(m->pool, m->slot, (unsigned)nslots) != 0) {
		fprintf(stderr, "dm_new: no memory for %d mbufs or a %u-flow table: %s\n", nslots,
		    max_flows, rte_strerror(rte_errno));
		dm_free(m);
		return NULL;
	}
	for (int i = 0; i < nslots; i++)
		memset(m->slot[i]->buf_addr, 0, m->slot[i]->buf_len);
	return m;
}

void
dm_free(struct dm *m)
{
	if (m == NULL)
		return;
	if (m->ctx)
		rte_gro_ctx_destroy(m->ctx);
	/* the slots' mbufs go with the pool (none is chained to another now
	 * that the table is gone: each is freed as one segment) */
	for (uint32_t i = 0; m->slot && m->pool && i < m->nslots; i++)
		if (m->slot[i]) {
			m->slot[i]->next = NULL;
			m->slot[i]->nb_segs = 1;
			rte_pktmbuf_free(m->slot[i]);
		}
	rte_mempool_free(m->pool);
	free(m->slot);
	free(m->mark);
	free(m);
}

void
dm_load(struct dm *m, uint32_t slot, const uint8_t *frame, uint32_t len, uint32_t copy)
{
	struct rte_mbuf *b = m->slot[slot];

	b->next = NULL;
	b->nb_segs = 1;
	b->data_off = RTE_PKTMBUF_HEADROOM;
	b->data_len = (uint16_t)len;
	b->pkt_len = len;
	b->ol_flags = 0;
	b->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_TCP;
	b->l2_len = 14;
	b->l3_len = (uint8_t)((frame[14] & 0x0f) * 4);
	b->l4_len = (uint8_t)((frame[14 + b->l3_len + 12] >> 4) * 4);
	memcpy(rte_pktmbuf_mtod(b, uint8_t *), frame, copy);
}

int
dm_poll(struct dm *m, const uint32_t *slots, int n, uint32_t timeout)
{
	int k, nout;

	for (int i = 0; i < n; i++)
		m->pkts[i] = m->slot[slots[i]];
	k = rte_gro_reassemble(m->pkts, (uint16_t)n, m->ctx);
	for (int i = 0; i < k; i++)	/* not taken: returned in place */
		m->out[i] = m->pkts[i];
	nout = k;
	if (timeout == 0)
		nout += rte_gro_timeout_flush(m->ctx, 0, RTE_GRO_TCP_IPV4, m->out + nout,
		    (uint16_t)(MAX_BURST - nout));
	else if (m->poll >= timeout)
		nout += rte_gro_timeout_flush(m->ctx,
		    rte_rdtsc() - m->mark[(m->poll - timeout) % m->nmark], RTE_GRO_TCP_IPV4,
		    m->out + nout, (uint16_t)(MAX_BURST - nout));
	m->nout = nout;
	return nout;
}

void
dm_mark(struct dm *m)
{
	m->mark[m->poll % m->nmark] = rte_rdtsc();
	m->poll++;
}

int
dm_out_segs(const struct dm *m)
{
	int s = 0;

	for (int i = 0; i < m->nout; i++)
		s += m->out[i]->nb_segs;
	return s;
}

struct ds {
	struct rte_mbuf *in;
	struct rte_gso_ctx ctx;
	uint64_t ol_flags;
	int kind, nout;
	struct rte_mbuf *out[128];
};

struct ds *
ds_new(const uint8_t *frame, uint32_t len, int kind, uint16_t gso_size)
{
	struct ds *s = calloc(1, sizeof(*s));
	uint8_t l3, l4, ol3;

	if (s == NULL)
		return NULL;
	s->in = rte_pktmbuf_alloc(big_pool);
	if (s->in == NULL || len > rte_pktmbuf_tailroom(s->in)) {
		fprintf(stderr, "ds_new: no %u-byte mbuf\n", len);
		free(s);
		return NULL;
	}
	memcpy(rte_pktmbuf_mtod(s->in, uint8_t *), frame, len);
	s->in->data_len = (uint16_t)len;
	s->in->pkt_len = len;
	s->kind = kind;
	if (kind == DS_VXLAN_TCP) {
		/* gso_tunnel_tcp4: outer lengths, l2_len = UDP + VXLAN + inner
		 * Ethernet, and the tunnel's TX flags (IS_IPV4_VXLAN_TCP4) */
		vx_hdr_len(frame, &ol3, &l3, &l4);
		s->in->outer_l2_len = 14;
		s->in->outer_l3_len = ol3;
		s->in->l2_len = 30;
		s->ol_flags = RTE_MBUF_F_TX_TUNNEL_VXLAN | RTE_MBUF_F_TX_OUTER_IPV4 |
		    RTE_MBUF_F_TX_OUTER_IP_CKSUM | RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_IPV4 |
		    RTE_MBUF_F_TX_IP_CKSUM;
	} else {
		hdr_len(frame, kind == DS_TCP, &l3, &l4);
		s->in->l2_len = 14;
		s->ol_flags = (kind == DS_UDP ? RTE_MBUF_F_TX_UDP_SEG : RTE_MBUF_F_TX_TCP_SEG) |
		    RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
	}
	s->in->l3_len = l3;
	s->in->l4_len = l4;
	s->in->ol_flags = s->ol_flags;
	s->ctx.direct_pool = direct_pool;
	s->ctx.indirect_pool = indirect_pool;
	s->ctx.flag = 0;	/* IPv4 ID + 1 per segment */
	s->ctx.gso_types = RTE_ETH_TX_OFFLOAD_TCP_TSO | RTE_ETH_TX_OFFLOAD_UDP_TSO |
	    (kind == DS_VXLAN_TCP ? RTE_ETH_TX_OFFLOAD_VXLAN_TNL_TSO : 0);
	s->ctx.gso_size = gso_size;
	return s;
}

int
ds_run(struct ds *s)
{
	int r = rte_gso_segment(s->in, &s->ctx, s->out, RTE_DIM(s->out));

	s->nout = r > 0 ? r : 0;
	return r;
}

void
ds_csum(struct ds *s)
{
	for (int i = 0; i < s->nout; i++) {
		struct rte_mbuf *m = s->out[i];
		struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, 14);
		uint16_t l3_off = 14;

		if (s->kind == DS_VXLAN_TCP) {
			/* the outer IPv4 header; the outer UDP checksum stays 0 */
			ip->hdr_checksum = 0;
			ip->hdr_checksum = rte_ipv4_cksum(ip);
			l3_off = (uint16_t)(m->outer_l2_len + m->outer_l3_len + m->l2_len);
			ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, l3_off);
		}
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		if (s->kind == DS_UDP)	/* fragments: the datagram's UDP checksum stays valid */
			continue;
		struct rte_tcp_hdr *th = (struct rte_tcp_hdr *)((uint8_t *)ip + m->l3_len);
		th->cksum = 0;
		th->cksum = rte_ipv4_udptcp_cksum_mbuf(m, ip, (uint16_t)(l3_off + m->l3_len));
	}
}

void
ds_free(struct ds *s)
{
	for (int i = 0; i < s->nout; i++)
		rte_pktmbuf_free(s->out[i]);
	s->nout = 0;
	/* rte_gso_segment clears TX_*_SEG in the input it has segmented */
	s->in->ol_flags = s->ol_flags;
}

long
ds_out(struct ds *s, int i, uint8_t *buf, size_t cap)
{
	if (i < 0 || i >= s->nout)
		return -1;
	return chain_out(s->out[i], buf, cap);
}

int
ds_out_zero_copy(struct ds *s, int i)
{
	const struct rte_mbuf *m, *pay;

	if (i < 0 || i >= s->nout)
		return 0;
	m = s->out[i];
	pay = m->next;
	return m->nb_segs == 2 && RTE_MBUF_DIRECT(m) && pay != NULL && pay->next == NULL &&
	    RTE_MBUF_CLONED(pay) && rte_mbuf_from_indirect((struct rte_mbuf *)(uintptr_t)pay) == s->in;
}

int
ds_in_refcnt(struct ds *s)
{
	return rte_mbuf_refcnt_read(s->in);
}
