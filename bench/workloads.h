/* Benchmark workloads of the DPDK 22.11 anchor run ("Exact workloads"), as
 * plain byte builders shared by bench_gro and the DPDK side-by-side
 * benchmark: same bytes in, so the numbers compare.
 *
 * TCP/IPv4 flow i: Ethernet 02:00:00:00:00:01 -> 02:00:00:00:00:02, IPv4
 * 10.0.0.1 -> 10.0.0.2 (IHL 5, TOS 0, DF, TTL 64), TCP (40000 + i) & 0xffff
 * -> 5201, ISN 0x10000000 + i * 0x01000000, ack 0x20000000, window 502, IPv4
 * ID of segment s 0x1000 + i * 0x100 + s, options NOP NOP TS(TSval 0x00a00000
 * + i, TSecr 0x00b00000), payload byte at stream offset o = (o + 7 i) & 0xff,
 * valid IPv4 and TCP checksums.  66 header bytes; a full segment carries
 * WL_MSS = 1448 bytes (1514-byte frame).
 *
 * Builders only write bytes; no allocation, no global state. */
#ifndef SOFL_BENCH_WORKLOADS_H
#define SOFL_BENCH_WORKLOADS_H

#include <stddef.h>
#include <stdint.h>

#define WL_MSS    1448
#define WL_HDR    66
#define WL_FRAME  (WL_HDR + WL_MSS)	/* 1514 */
#define WL_BURST  32

#define WL_F_PSH  0x08
#define WL_F_ACK  0x10

/* The GRO lightweight workloads (one burst of 32 full-MSS segments). */
enum wl_gro {
	WL_W1 = 0,	/* flow 0, segments 0..31 */
	WL_W2,		/* packet k = flow k % 4, segment k / 4 */
	WL_W3,		/* packet k = flow k, segment 0 */
	WL_W4,		/* W1 with PSH|ACK on segments 7, 15, 23, 31 */
	WL_X,		/* W1 as valid UDP datagrams of the same size (UDP GRO off: not eligible) */
	WL_R16,		/* packet k = flow k % 16, segment k / 16 (not in the DPDK 22.11 anchor run:
			 * interleaving beyond what a weave holds) */
	WL__COUNT
};

/* wl_tcp4_frame() :
 * Writes segment @seg of flow @flow with @pay payload bytes (<= WL_MSS) and
 * TCP flags @flags into @buf (>= WL_HDR + pay bytes).  @return frame length. */
size_t wl_tcp4_frame(uint8_t *buf, uint32_t flow, uint32_t seg, uint32_t pay, uint8_t flags);

/* wl_tcp4_seq_id() :
 * Rewrites only seq (segment @seg of @flow) and IPv4 ID of a frame built by
 * wl_tcp4_frame() for the same flow — to recycle buffers in long runs — and,
 * when @csums, both checksums (the payload bytes are left as they are; the
 * TCP checksum is recomputed over them).  Without @csums the checksums are
 * stale: feed such frames as "checksum verified" only. */
void wl_tcp4_seq_id(uint8_t *buf, uint32_t flow, uint32_t seg, int csums);

/* wl_gro_packet() : flow, segment and flags of packet @k (0..31) of workload @w. */
void wl_gro_packet(enum wl_gro w, unsigned k, uint32_t *flow, uint32_t *seg, uint8_t *flags);

/* wl_gro_burst() :
 * Builds the 32 frames of workload @w into bufs[k] (each >= WL_FRAME bytes),
 * lengths into lens[k]. */
void wl_gro_burst(enum wl_gro w, uint8_t *const bufs[WL_BURST], uint32_t lens[WL_BURST]);

/* wl_gro_name() : "W1", "W2", ... */
const char *wl_gro_name(enum wl_gro w);

/* Many flows: packet k of the stream is segment k / nflows of flow
 * k % nflows (the heavyweight W2 pattern generalised to 1024 / 65536 flows). */
static inline void
wl_many_packet(uint64_t k, uint32_t nflows, uint32_t *flow, uint32_t *seg)
{
	*flow = (uint32_t)(k % nflows);
	*seg = (uint32_t)(k / nflows);
}

#endif
