/* The GRO sweeps' streams and softoffload's side of them (gro_sweep.h). */
#include <stdlib.h>
#include <string.h>
#include "softoffload/csum.h"
#include "gro_sweep.h"
#include "util.h"
#include "workloads.h"

uint32_t
gs_flows_at(int i)
{
	return 1u << i;
}

uint32_t
gs_segs_at(int i)
{
	return 1u << i;
}

int
gs_stream_init(struct gs_stream *s, uint32_t nflows, size_t stride)
{
	memset(s, 0, sizeof(*s));
	s->nflows = nflows;
	s->timeout = nflows >= 16 ? nflows / 16 : 0;
	s->ring = GS_BURST * (s->timeout + 2);
	s->stride = stride;
	s->mem = aligned_alloc(64, (size_t)s->ring * stride);
	if (s->mem == NULL)
		return -1;
	/* payload bytes are never read by a zero-copy engine without checksum
	 * verification; writing them commits the ring's pages before timing */
	memset(s->mem, 0, (size_t)s->ring * stride);
	return 0;
}

void
gs_stream_free(struct gs_stream *s)
{
	free(s->mem);
	s->mem = NULL;
}

/* The 66 header bytes of segment @seg of connection @c, IPv4 total length
 * of a full segment; TCP checksum left stale (over the header alone). */
static void
write_hdr(uint8_t *b, uint32_t c, uint32_t seg)
{
	uint8_t *ip = b + 14;

	wl_tcp4_frame(b, c & 0xffff, seg, 0, WL_F_ACK);
	sofl_put16(ip + 2, 20 + 32 + WL_MSS);
	ip[14] = (uint8_t)(c >> 16);
	sofl_put16(ip + 10, 0);
	sofl_put16(ip + 10, sofl_csum_ipv4_hdr(ip, 20));
}

/* A per-flow rx hash whose low 3 bits (Linux's bucket) follow the
 * connection number: consecutive flows spread evenly over the 8 buckets,
 * the best case for the Linux table (a NIC's Toeplitz hash lands some
 * buckets full sooner). */
static uint32_t
flow_hash(uint32_t c)
{
	return c * 0x9e3779b9u;
}

static void
put(struct gs_stream *s, uint32_t i, uint32_t c, uint32_t seg, uint32_t *touch)
{
	uint32_t slot = (uint32_t)(s->k++ % s->ring);
	uint8_t *b = gs_slot(s, slot);

	write_hdr(b, c, seg);
	*touch += b[0] + b[64];		/* both header cache lines */
	s->slot[i] = slot;
	s->len[i] = WL_FRAME;
	s->hash[i] = flow_hash(c);
}

void
gs_stream_next(struct gs_stream *s)
{
	uint32_t i, touch = 0, n2 = 2 * s->nflows;
	uint64_t p = s->poll;

	if (s->nflows < 16) {
		uint32_t per = GS_BURST / s->nflows;

		for (i = 0; i < GS_BURST; i++)
			put(s, i, i % s->nflows, (uint32_t)(p * per) + i / s->nflows, &touch);
	} else {
		/* 16 new flows interleaved with the 16 of T polls ago */
		for (i = 0; i < GS_BURST / 2; i++) {
			uint64_t a = 16 * p + i, b;

			if (p < s->timeout) {	/* warm-up: no flow to continue yet */
				put(s, i, (uint32_t)(a % n2), (uint32_t)(a / n2) * 2, &touch);
				continue;
			}
			b = 16 * (p - s->timeout) + i;
			put(s, 2 * i, (uint32_t)(a % n2), (uint32_t)(a / n2) * 2, &touch);
			put(s, 2 * i + 1, (uint32_t)(b % n2), (uint32_t)(b / n2) * 2 + 1, &touch);
		}
	}
	s->n = s->nflows >= 16 && p < s->timeout ? GS_BURST / 2 : GS_BURST;
	bench_sink(touch);
	s->poll++;
}

int
gs_engine_init(struct gs_engine *e, enum gs_table table, const struct gs_stream *s)
{
	struct sofl_gro_config cfg;

	memset(e, 0, sizeof(*e));
	e->table = table;
	sofl_gro_config_init(&cfg);
	if (table == GS_LRU) {
		cfg.table = SOFL_GRO_TABLE_LRU;
		cfg.max_flows = 2 * s->nflows;
	}
	cfg.flush_timeout_us = s->timeout;	/* one poll = 1 us of fake time */
	cfg.max_batch = GS_BURST;
	if (s->timeout)
		cfg.max_held = 2 * s->nflows + 2 * GS_BURST;
	return sofl_gro_create(&cfg, &e->g);
}

void
gs_engine_free(struct gs_engine *e)
{
	sofl_gro_destroy(e->g);
	e->g = NULL;
}

void
gs_engine_load(struct gs_engine *e, const struct gs_stream *s)
{
	for (int i = 0; i < s->n; i++) {
		struct sofl_gro_in *in = &e->in[i];

		in->data = gs_slot(s, s->slot[i]);
		in->len = s->len[i];
		in->flags = SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK;
		in->hash = 0;
		if (e->table == GS_LINUX_HASH) {
			in->flags |= SOFL_GRO_F_HASH;
			in->hash = s->hash[i];
		}
		in->cookie = s->k - (uint64_t)s->n + (uint64_t)i;
	}
}

int
gs_engine_poll(struct gs_engine *e, const struct gs_stream *s)
{
	const struct sofl_gro_out *o;
	uint64_t now = s->poll * 1000;	/* ns */
	int n, j;

	sofl_gro_receive(e->g, e->in, (size_t)s->n, now);
	sofl_gro_poll_end(e->g, now);
	n = sofl_gro_outputs(e->g, &o);
	for (j = 0; j < n; j++)
		e->segs += o[j].segs;
	e->outs += (uint64_t)n;
	sofl_gro_release(e->g);
	return n;
}

void
gs_segs_frames(uint8_t *mem, size_t stride, uint32_t segs, uint32_t lens[GS_SEG_BURST])
{
	for (uint32_t k = 0; k < GS_SEG_BURST; k++) {
		uint8_t fl = WL_F_ACK | ((k + 1) % segs == 0 ? WL_F_PSH : 0);

		lens[k] = (uint32_t)wl_tcp4_frame(mem + k * stride, 0, k, WL_MSS, fl);
	}
}
