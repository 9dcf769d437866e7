/* The GRO "how cost grows" sweeps, shared by bench_gro (softoffload alone)
 * and bench_vs_dpdk (with DPDK 22.11's rte_gro on the same stream, same run).
 *
 * Active-flows sweep (section gro_flows): a stream of 32-packet polls of
 * full-MSS TCP/IPv4 segments in which N flows are held at every poll
 * boundary and every poll does the same work:
 *   N >= 16: each poll carries the first segment of 16 new flows and the
 *     second segment of the 16 flows started T = N / 16 polls earlier;
 *     flows are completed T polls after their first segment (a flush
 *     timeout of T polls, gro_flush_timeout), so every output merges 2
 *     segments and N flows are held between polls.  Connections are
 *     numbered modulo 2N (a connection's next flow continues its sequence
 *     space); connection c has source port 40000 + (c & 0xffff) and source
 *     address 10.0.(c >> 16).1.
 *   N < 16: each poll carries 32 / N in-order segments of each of the N
 *     flows, completed at the end of the poll (NAPI, no timeout): outputs
 *     of 32 / N segments.
 * Buffers come from a ring of 32 (T + 2) slots (every slot is reused only
 * after the output holding it was released); only their 66 header bytes
 * are rewritten per use, outside the timed region, which leaves the TCP
 * checksum stale: the inputs are flagged checksum-verified, as from a NIC.
 *
 * Segments-per-super-packet sweep (section gro_segs): one flow, polls of
 * 64 in-order segments with PSH on every S-th (the sender's message
 * boundary: Linux merges a PSH segment and completes the flow), so every
 * output carries S segments; the same 64 inputs every poll (valid
 * checksums: also usable with software verification). */
#ifndef SOFL_BENCH_GRO_SWEEP_H
#define SOFL_BENCH_GRO_SWEEP_H

#include <stddef.h>
#include <stdint.h>
#include "softoffload/gro.h"

#define GS_BURST	32	/* packets per poll, flows sweep */
#define GS_NFLOWS	17	/* 1, 2, 4, ..., 65536 */
#define GS_SEG_BURST	64	/* packets per poll, segments sweep */
#define GS_NSEGS	6	/* 1, 2, 4, ..., 32 (Linux's 64 KB cap: 45 at MSS 1448) */

/* x of point i (0-based) of each sweep */
uint32_t gs_flows_at(int i);
uint32_t gs_segs_at(int i);

struct gs_stream {
	uint32_t nflows;	/* N */
	uint32_t timeout;	/* T polls, 0 for N < 16 (flush every poll) */
	uint32_t ring;		/* slots */
	size_t stride;		/* bytes per slot */
	uint64_t poll;		/* polls prepared so far */
	uint64_t k;		/* packets prepared so far */
	uint8_t *mem;
	/* the poll just prepared: n packets (GS_BURST; 16 in the first T polls) */
	int n;
	uint32_t slot[GS_BURST];
	uint32_t len[GS_BURST];
	uint32_t hash[GS_BURST];	/* a NIC's per-flow rx hash */
};

/* gs_stream_init() : a stream of @nflows (a power of two, 1..65536) flows in
 * slots of @stride (>= 1514) bytes.  @return 0, -1 without memory. */
int gs_stream_init(struct gs_stream *s, uint32_t nflows, size_t stride);
void gs_stream_free(struct gs_stream *s);
/* gs_stream_next() : writes the headers of the next poll's packets into
 * their slots (s->slot[], s->len[], s->hash[]) and reads each header once,
 * as a NIC's write into the LLC leaves it. */
void gs_stream_next(struct gs_stream *s);
static inline uint8_t *
gs_slot(const struct gs_stream *s, uint32_t slot)
{
	return s->mem + (size_t)slot * s->stride;
}
/* Polls after which the stream is in its steady state (N flows held). */
static inline uint32_t
gs_warmup_polls(const struct gs_stream *s)
{
	return s->timeout + 2;
}
/* Outputs every steady-state poll completes, and their segments each. */
static inline int
gs_outs_per_poll(const struct gs_stream *s)
{
	return s->nflows >= 16 ? 16 : (int)s->nflows;
}

/* softoffload on the flows stream: the Linux table (inputs with the rx
 * hash) or the LRU table of 2N flows (no hash, as from a TAP). */
enum gs_table { GS_LINUX_HASH, GS_LRU };

struct gs_engine {
	struct sofl_gro *g;
	enum gs_table table;
	struct sofl_gro_in in[GS_BURST];
	uint64_t outs, segs;	/* counted over every poll */
};

/* gs_engine_init() : @return 0, or a negative SOFL_E_* code. */
int gs_engine_init(struct gs_engine *e, enum gs_table table, const struct gs_stream *s);
void gs_engine_free(struct gs_engine *e);
/* gs_engine_load() : the inputs of the poll @s just prepared (untimed). */
void gs_engine_load(struct gs_engine *e, const struct gs_stream *s);
/* gs_engine_poll() : the timed part: receive + poll end + outputs +
 * release, at the fake time of poll @s->poll.  @return outputs. */
int gs_engine_poll(struct gs_engine *e, const struct gs_stream *s);

/* The segments sweep's 64 frames (PSH on every @segs-th) into @mem
 * (GS_SEG_BURST slots of @stride bytes), lengths into @lens. */
void gs_segs_frames(uint8_t *mem, size_t stride, uint32_t segs, uint32_t lens[GS_SEG_BURST]);

#endif
