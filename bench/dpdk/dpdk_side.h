/* The DPDK side of bench_vs_dpdk: EAL, mbuf pools, rte_gro and rte_gso,
 * behind an interface with no DPDK types (the harness is compiled with our
 * flags and never includes rte_*.h).  Everything here is set-up, restore or
 * inspection, except the *_run() calls, which are exactly the DPDK calls the
 * harness times.  Not thread-safe; one lcore. */
#ifndef SOFL_BENCH_DPDK_SIDE_H
#define SOFL_BENCH_DPDK_SIDE_H

#include <stddef.h>
#include <stdint.h>

/* rte_eal_init() with @argv (argv[0] included).  @return 0 or -1. */
int dpdk_init(int argc, char **argv);
void dpdk_fini(void);

/* ---- GRO, lightweight mode: one rte_gro_reassemble_burst() per call ----
 * The burst's n frames (<= 128) are copied into single-segment mbufs with
 * packet_type/l2/l3/l4_len set as an RX path would: @kind DG_TCP (TCP/IPv4),
 * DG_UDP (UDP/IPv4: GRO then skips every packet) or DG_VXLAN_TCP (TCP/IPv4
 * in VXLAN in UDP/IPv4: packet_type L2_ETHER | L3_IPV4 | L4_UDP |
 * TUNNEL_VXLAN | INNER_L2_ETHER | INNER_L3_IPV4 | INNER_L4_TCP, outer_l2_len
 * 14, outer_l3_len 20, l2_len 30 = outer UDP + VXLAN + inner Ethernet, as
 * gro_vxlan_tcp4 requires; dg_run() then uses RTE_GRO_IPV4_VXLAN_TCP_IPV4).
 * dg_restore() puts back the input (unchains mbufs, rewrites the header
 * bytes GRO edits, resets metadata); it is the untimed part of every
 * repetition. */
enum { DG_UDP = 0, DG_TCP = 1, DG_VXLAN_TCP = 2 };
struct dg;
struct dg *dg_new(const uint8_t *const *frames, const uint32_t *lens, int n, int kind);
void dg_restore(struct dg *g);
int dg_run(struct dg *g);			/* rte_gro_reassemble_burst; @return packets out */
/* Same, but first classifies every mbuf in software with rte_net_get_ptype()
 * (packet_type, l2/l3/l4_len), as an application without NIC parsing must:
 * the like-for-like comparison with an engine that parses. */
int dg_run_parse(struct dg *g);
/* Only the classification step of dg_run_parse(): rte_net_get_ptype() on
 * every mbuf of the burst.  @return a value to consume (ptype bits). */
uint32_t dg_classify(struct dg *g);
/* Output i of the last run, linearised into buf.  @return its length, -1 if it
 * does not fit or the chain is inconsistent (nb_segs, pkt_len). */
long dg_out(struct dg *g, int i, uint8_t *buf, size_t cap);

/* ---- GRO, heavyweight mode: rte_gro_ctx + rte_gro_reassemble() over
 * n frames fed in bursts of @burst, rte_gro_timeout_flush(ctx, 0) after each
 * burst (@flush_every) or once at the end.  One dh_run() = the whole stream. */
struct dh;
struct dh *dh_new(const uint8_t *const *frames, const uint32_t *lens, int n, int burst,
		  int flush_every);
void dh_restore(struct dh *h);
int dh_run(struct dh *h);
long dh_out(struct dh *h, int i, uint8_t *buf, size_t cap);

/* ---- GRO, many flows: a heavyweight rte_gro_ctx sized for @max_flows
 * flows of @items_per_flow items each, fed from a ring of @nslots mbufs
 * (the flows sweep, bench/gro_sweep.h). ----
 * dm_new() fails (NULL, with a message) where DPDK cannot hold that many:
 * rte_gro_param.max_flow_num is 16 bits (at most 65535) and flows x items
 * at most 1M (GRO_TCP4_TBL_MAX_ITEM_NUM).  dm_load() (untimed) resets slot
 * @slot's mbuf as an RX path would (one segment, packet type TCP/IPv4,
 * l2/l3/l4_len) and copies the first @copy bytes of @frame; the slot's
 * previous use must have left the table.  dm_poll() is the timed call:
 * rte_gro_reassemble() of the @n slots, then rte_gro_timeout_flush() of
 * the packets inserted up to the end of the poll @timeout polls back (0:
 * everything held), which costs one rte_rdtsc() more than DPDK's own;
 * dm_mark() (untimed, right after) records this poll's end for later
 * polls' timeouts.  @return packets out (flushed + not taken). */
struct dm;
struct dm *dm_new(int nslots, uint32_t max_flows, uint32_t items_per_flow);
void dm_free(struct dm *m);
void dm_load(struct dm *m, uint32_t slot, const uint8_t *frame, uint32_t len, uint32_t copy);
int dm_poll(struct dm *m, const uint32_t *slots, int n, uint32_t timeout);
void dm_mark(struct dm *m);
/* Input segments carried by the last dm_poll()'s outputs. */
int dm_out_segs(const struct dm *m);

/* ---- GSO: rte_gso_segment() on one super-packet (DS_TCP: TX_TCP_SEG,
 * DS_UDP: TX_UDP_SEG = IPv4 fragmentation, DS_VXLAN_TCP: TCP/IPv4 in VXLAN
 * in UDP/IPv4, gso_tunnel_tcp4: TX_TUNNEL_VXLAN | TX_OUTER_IPV4 |
 * TX_OUTER_IP_CKSUM | TX_TCP_SEG | TX_IPV4 | TX_IP_CKSUM, outer_l2_len 14,
 * outer_l3_len 20, l2_len 30, gso_types with VXLAN_TNL_TSO), gso_size =
 * whole output frame. ----
 * ds_run() segments (outputs live until ds_free()); ds_csum() computes IPv4 +
 * TCP/UDP checksums of the live outputs in software (rte_ipv4_cksum +
 * rte_ipv4_udptcp_cksum_mbuf, Debian-flags build; VXLAN: the outer IPv4
 * header's too, the outer UDP checksum left 0); ds_free() frees them. */
enum { DS_TCP = 0, DS_UDP = 1, DS_VXLAN_TCP = 2 };
struct ds;
struct ds *ds_new(const uint8_t *frame, uint32_t len, int kind, uint16_t gso_size);
int ds_run(struct ds *s);
void ds_csum(struct ds *s);
void ds_free(struct ds *s);
long ds_out(struct ds *s, int i, uint8_t *buf, size_t cap);
/* 1 when output i is a header mbuf + an indirect mbuf into the input (no
 * payload copy); the input mbuf's reference count. */
int ds_out_zero_copy(struct ds *s, int i);
int ds_in_refcnt(struct ds *s);

#endif
