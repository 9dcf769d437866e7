#ifndef SOFTOFFLOAD_GRO_H
#define SOFTOFFLOAD_GRO_H
/*
 * softoffload — GRO / software LRO: coalesce received TCP segments (and,
 * optionally, UDP datagrams) of one flow into super-packets, with Linux 6.18
 * semantics (docs/gro-rules.md).
 *
 * HowTo (one engine per receive queue; the receive/poll-end/release cycle,
 * here writing every output to a TUN opened with IFF_VNET_HDR, whose
 * virtio header is 10 bytes unless TUNSETVNETHDRSZ says otherwise).  An
 * output has at most max_segs + 1 iovecs (SOFL_GRO_IOV_MAX with the
 * default), so one more for the virtio header stays within IOV_MAX:
 *   ```c
 *   #include <errno.h>
 *   #include <stdint.h>
 *   #include <string.h>
 *   #include <sys/uio.h>
 *   #include <softoffload/gro.h>
 *
 *   // read_batch(): the caller's receive; fills in[].data/len/cookie (and
 *   // flags/hash), returns the count, 0 at the end.  @return 0 at the end,
 *   // a negative SOFL_E* code (sofl_strerror), or writev()'s errno
 *   int
 *   gro_to_tun(int tun_fd, size_t (*read_batch)(struct sofl_gro_in *, size_t))
 *   {
 *       static struct iovec v[1 + SOFL_GRO_IOV_MAX];   // one thread
 *       struct sofl_gro_in in[64];
 *       struct sofl_gro_config cfg;
 *       struct sofl_gro *g;
 *       const struct sofl_gro_out *o;
 *       uint8_t vh[SOFL_VNET_HDR_LEN];
 *       size_t n;
 *       int err, k, i, werr = 0;
 *
 *       sofl_gro_config_init(&cfg);     // Linux: 8x8 table, 65535, flush per poll
 *       if ((err = sofl_gro_create(&cfg, &g)) < 0)
 *           return err;
 *       while ((n = read_batch(in, 64)) > 0) {  // one NIC poll (NAPI) each
 *           if ((err = sofl_gro_receive(g, in, n, 0)) < 0)
 *               break;                  // SOFL_E_GRO_BATCH: more than max_batch
 *           sofl_gro_poll_end(g, 0);        // completes what is held
 *           k = sofl_gro_outputs(g, &o);    // in Linux's delivery order
 *           for (i = 0; i < k && err >= 0 && !werr; i++) {
 *               err = sofl_vnet_encode(vh, sizeof(vh), &o[i].vnet, sizeof(vh), 0);
 *               v[0].iov_base = vh;
 *               v[0].iov_len = sizeof(vh);
 *               memcpy(v + 1, o[i].iov, o[i].iovcnt * sizeof(*v));
 *               if (err >= 0 && writev(tun_fd, v, 1 + (int)o[i].iovcnt) < 0)
 *                   werr = errno;
 *           }
 *           sofl_gro_release(g);        // outputs invalid: recycle the buffers
 *           if (err < 0 || werr)        // whose cookies appeared in them
 *               break;
 *       }
 *       sofl_gro_destroy(g);
 *       return err < 0 ? err : werr;
 *   }
 *   ```
 *   Every output's virtio header is one Linux accepts (sofl_vnet_check()),
 *   in either checksum mode; see Completion for what each mode writes.
 *
 * Model
 *   Every input packet ends up in exactly one output: a super-packet (several
 *   segments, rewritten headers), the packet itself unchanged (held alone, or
 *   bypassed), never dropped.  Malformed or ineligible packets pass through
 *   unchanged and are counted by reason (enum sofl_gro_bypass).  Outputs are
 *   listed in Linux's delivery order: bypassed packets at once (before
 *   still-held packets of other flows, even of their own flow where Linux
 *   does so), a flushed flow before the packet that flushed it, then at the
 *   end of a poll the held flows (Linux table: bucket by bucket, oldest first;
 *   LRU table: oldest first).
 *
 * Zero copy and buffer lifetime
 *   An output is an iovec list: iov[0] holds the headers (a copy of the first
 *   segment's headers, rewritten, in engine-owned scratch) and iov[1..] the
 *   payload slices of the caller's input buffers; an unchanged packet is one
 *   iovec pointing at the caller's buffer.  Outputs stay valid until
 *   sofl_gro_release().  Input buffers are referenced, never written, and must
 *   stay valid and unchanged until an output listing their cookie has been
 *   released.  With the default per-poll flushing that is simply "until
 *   sofl_gro_release()"; with a flush timeout, held packets span polls: their
 *   cookies show up in a later cycle's outputs.
 *
 * Tables
 *   SOFL_GRO_TABLE_LINUX (default): Linux's geometry, 8 buckets of at most 8
 *   held flows (GRO_HASH_BUCKETS, MAX_GRO_SKBS); bucket = rx hash & 7, hash 0
 *   when the input has none (as a TAP without RSS: every flow in bucket 0, so
 *   a 9th concurrent flow completes the oldest).  SOFL_GRO_TABLE_LRU: a hashed
 *   table of max_flows flows, O(1) per packet; when full, a least recently
 *   used flow is completed (never dropped), chosen by CLOCK (second chance):
 *   a merge only marks its own entry, so the table's work per packet does
 *   not grow with the number of flows (its cache misses do: a flow not
 *   touched for many polls is cold memory).  A flow just held survives the
 *   clock's next pass.  The bucket is the caller's rx hash
 *   (SOFL_GRO_F_HASH) or a keyed hash of the flow key (SipHash-1-3, as
 *   Linux hashes flows with a secret key), whose key is cfg.hash_key or,
 *   when that is all zero, 16 random bytes drawn by sofl_gro_create()
 *   (getrandom()): senders cannot choose flows that collide.  A key given
 *   (for reproducible placement, e.g. a replay) is only as secret as the
 *   caller keeps it.  Whatever the hash, a bucket holds at most 8 flows
 *   (like Linux's MAX_GRO_SKBS): a 9th completes its oldest (reason
 *   EVICT), so colliding rx hashes cannot make lookups long either.  To keep those misses to the flow's own entry, a flow entry
 *   (192 bytes) holds the first segment, and in an LRU table of more than
 *   5461 flows (entries past 1 MB, about a core's L2 cache) a copy of its headers
 *   up to 86 bytes (Ethernet + IPv6 + TCP with timestamps), taken at hold
 *   time, which lookups, comparisons and completion read; such a table's
 *   entries are also prefetched ahead of use.  Smaller tables, the Linux
 *   table and longer headers read the first segment's headers in the
 *   caller's buffer.  Either way held input buffers must stay unchanged
 *   (see above): outputs point into them.
 *
 * Fast paths (policy SOFL_GRO_POLICY_LINUX; same decisions and outputs)
 *   The common cases skip sofl_pkt_parse(): a full-size next segment of a
 *   held TCP flow (found by the rx hash, or on the LRU table by the flow
 *   key's hash read from the frame), a run of them merged in one loop; a new
 *   flow's first segment over Ethernet without VLAN tag or raw IP, IPv4
 *   without options or IPv6 without extension headers; and non-TCP IPv4
 *   packets delivered at once.  Anything else is parsed.  Inputs flagged
 *   SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK and carrying an rx hash
 *   (SOFL_GRO_F_HASH) take them at the lowest cost.  An input that comes
 *   with its parse (SOFL_GRO_F_PKT, see Parsed inputs) takes the merge
 *   paths as any other; the rest of its decisions come from its parse, the
 *   frame's layout read neither by those shortcuts nor by the parser.
 *
 * Rules (policy SOFL_GRO_POLICY_LINUX) — docs/gro-rules.md rule numbers:
 *   same flow: rx hash, whole L2 header (MACs, VLAN tags), IP version,
 *   addresses, protocol, IPv6 flow label and extension-header bytes, ports
 *   (#1-#4); bypassed at once (p kept): IPv4 options, fragments, bad IPv4
 *   header or L4 checksum, unsupported IPv6 extension headers (#5-#7, #10-#12);
 *   bypassed and the flow flushed: IP length != frame length (Ethernet padding)
 *   or the reserved fragment bit (#8, #9); flushed (FLUSH-P): TTL/TOS/DF,
 *   IPv6 traffic class/hop limit, IPv4 ID neither incrementing nor fixed
 *   (mode latched by the second segment), ack, flag word (doff, flags except
 *   PSH/FIN, window), any option byte, sequence gap, larger segment,
 *   zero-payload segment, size limit, CWR (6.15..6.18: a CWR segment never
 *   merges) (#13-#22, #25, #26); merged then flushed: shorter segment, PSH,
 *   FIN (#23, #24).  UDP (udp_gro_receive_segment, when cfg.udp): non-zero
 *   checksum, UDP length = IP payload, equal sizes (a shorter one ends the train, a longer one
 *   starts a new one), at most 64 datagrams.
 *
 * Tunnels (docs/overlay-gro.md): a VXLAN or Geneve packet (UDP to a port
 *   of cfg.parse's table: Linux coalesces a UDP tunnel only on a port a
 *   tunnel socket owns) or an IP-in-IP packet (IPv4/IPv6 in IPv4/IPv6), as
 *   sofl_pkt_parse_cfg() parses it (pkt.h, Tunnels), is coalesced layer by
 *   layer as Linux 6.18 does (udp_gro_receive, vxlan_gro_receive,
 *   geneve_gro_receive, eth_gro_receive, ipip_gro_receive and the IPv6
 *   ones).  Same flow: the outer Ethernet header, the outer IP version,
 *   protocol and addresses (IPv6: and flow label), the outer UDP ports and
 *   whether its checksum is zero (zero and non-zero never merge), the
 *   tunnel header byte for byte (VXLAN flags and VNI; Geneve's whole
 *   header with its options), the inner Ethernet header, then the inner
 *   packet's as for plain traffic.  The inner IP and TCP (and UDP) rules
 *   are those above, unchanged; the outer IP header has the same TTL/TOS/
 *   DF (IPv6: traffic class, hop limit) and ID rules (#13-#15, reasons
 *   OUTER_HDR, OUTER_IPID), with an ID mode (incrementing or fixed, any
 *   DF: 6.18) of its own; a length fault or the reserved fragment bit of
 *   either header is #8/#9 (BADLEN).  A non-zero outer UDP checksum is
 *   verified unless the input says SOFL_GRO_F_OUTER_CSUM_OK; a bad one is
 *   delivered alone (OUTER_CSUM), its flow kept.  max_size bounds the
 *   outer IP packet (Linux's p->len counts from the outermost IP header).
 *   Delivered alone with a reason: a tunnel not parsed into
 *   (ENCAP_MALFORMED, counted by encap_err in stats.encap_err), a tunnel in
 *   the tunnel (ENCAP_NESTED, as Linux's encap_mark), outer IPv4 options or
 *   IPv6 extension headers (OUTER_IP_OPTS), a bad outer IPv4 header
 *   checksum (OUTER_IP_CSUM).  A super-packet's outer headers are what the
 *   gro_complete chain leaves: outer IPv4 total length and header checksum
 *   (csum_replace2) or IPv6 payload length, outer UDP length, outer UDP
 *   checksum = the pseudo-header sum of the new length when it was not
 *   zero (udp4/udp6_gro_complete), else 0; gso_type = SOFL_GSO_TUNNEL_UDP
 *   (outer checksum zero) or SOFL_GSO_TUNNEL_UDP_CSUM, or
 *   SOFL_GSO_TUNNEL_IPIP, ORed with the inner type; the inner headers and
 *   csum_start/csum_offset (the inner L4 header) as for plain traffic; the
 *   inner checksum field the pseudo-header sum in both checksum modes (as
 *   UDP's: virtio_net_hdr_tnl_to_skb refuses a UDP-tunnel header without
 *   NEEDS_CSUM).  vnet: the 24-byte UDP-tunnel form (vnet.h: the outer
 *   family bit, outer_th_offset, inner_nh_offset, UDP_TUNNEL_CSUM when the
 *   outer checksum is not zero); virtio has no IP-in-IP GSO type, so an
 *   IP-in-IP super-packet's vnet has gso_type NONE (its checksum offsets
 *   only: write it where no segmentation is needed).  The fast paths merge
 *   a tunnel flow's full-size next segments one at a time (never in trains
 *   or weaves), by the same rule tables over the outer header, the outer ID
 *   and checksums checked apart; the rest takes the general path.
 *   SOFL_GRO_F_CSUM_OK and SOFL_GRO_F_IPCSUM_OK of a tunnel
 *   packet speak of its inner L4 checksum and of both IPv4 header checksums.
 *   A VXLAN/Geneve frame delivered alone (any reason; parsed into or not)
 *   has vnet DATA_VALID, as from Linux, when its outer UDP checksum is
 *   zero or verifies and its outer IP header does not stop Linux before
 *   udp4/udp6_gro_receive (IPv4: 20 bytes, good checksum, no fragment bits,
 *   reserved bit clear; either family: the length is the bytes received):
 *   their skb_gro_checksum_validate_zero_check leaves CHECKSUM_UNNECESSARY
 *   at csum_level 0 before any inner layer is read, so the flag speaks of
 *   the outer checksum only, as a virtio DATA_VALID does in Linux (level 0:
 *   the outermost checksum); the output's csum stays as the inner
 *   packet's verdict (UNKNOWN when it was not verified).
 *
 * Policy SOFL_GRO_POLICY_RELAXED (what BSD LRO aims for): as linux, except
 *   that the ACK number may advance, the window may change and the TCP
 *   timestamp values may advance (never go back); the super-packet carries the
 *   newest ACK, window and timestamps.  Trade-off: fewer, larger super-packets
 *   for bulk receivers that also send (ACK/TS advance constantly), at the cost
 *   of hiding intermediate ACK/window updates from the stack (its congestion
 *   control sees one ACK for many) and no longer matching Linux byte for byte.
 *
 * Completion (count >= 2; tcp_gro_complete, udp_gro_complete): IPv4 total
 *   length with an RFC 1624 incremental header-checksum update (csum_replace2), IPv6 payload length,
 *   TCP flags |= PSH/FIN of the followers, UDP length; TCP/UDP checksum =
 *   pseudo-header sum of the new length (SOFL_CSUM_PARTIAL: Linux's bytes,
 *   csum_start = L4 header, csum_offset 16 / 6, vnet NEEDS_CSUM) or, with
 *   cfg.csum_full, for TCP the complete checksum (SOFL_CSUM_VALID, vnet
 *   DATA_VALID without NEEDS_CSUM; a computed 0 is stored as 0xFFFF,
 *   exactly as a device completing Linux's partial checksum does).  Linux
 *   accepts that header for TCPV4/6 (virtio_net_hdr_to_skb finds the TCP
 *   header itself), and when it segments such a packet tcp4/tcp6_gso_segment
 *   see it is not CHECKSUM_PARTIAL and rewrite the field to the
 *   pseudo-header sum first, so the complete checksum is safe there.  A UDP
 *   super-packet carries the pseudo-header sum and NEEDS_CSUM in both modes:
 *   virtio_net_hdr_to_skb refuses UDP_L4 without NEEDS_CSUM, and
 *   __udp_gso_segment (net/ipv4/udp_offload.c) takes the field as the
 *   pseudo-header sum of the whole packet, replacing its length by each
 *   datagram's (csum16_add(csum16_sub(check, len), newlen)) before each
 *   datagram's checksum is finished, so a complete checksum there would
 *   give every datagram a wrong one (and the complete checksum of a
 *   UDP super-packet describes no datagram anyone receives).  A caller that
 *   wants the bytes complete (a capture file) finishes it with
 *   sofl_csum_complete_partial() from csum_start.  gso_size = payload
 *   of the first segment.  count == 1: delivered unchanged.  GSO_ECN is
 *   never emitted: in 6.15..6.18 a CWR segment never merges, so no
 *   super-packet carries CWR (6.18 would mark SKB_GSO_TCP_ACCECN, which has
 *   no virtio equivalent anyway).
 *
 * Checksums: unless an input is flagged SOFL_GRO_F_CSUM_OK (L4 checksum
 *   verified, virtio DATA_VALID / NIC) and SOFL_GRO_F_IPCSUM_OK (IPv4 header
 *   checksum verified), they are verified in software (counted).  As in
 *   Linux, a packet delivered alone after its checksum verified (pure ACK,
 *   SYN, a held single segment, UDP without checksum) is reported VALID /
 *   DATA_VALID; one that skipped verification (length mismatch, ineligible)
 *   NONE, unless the input was flagged.  Linux
 *   checks the IPv4 header checksum even for DATA_VALID packets; a caller that
 *   wants that sets only SOFL_GRO_F_CSUM_OK.  A packet whose checksum field
 *   holds only the pseudo-header sum (sent by a local stack with
 *   CHECKSUM_PARTIAL) fails verification as in Linux, unless
 *   cfg.partial_ok (then it counts as verified, like Linux's CHECKSUM_PARTIAL).
 *
 * Limits: headers (L2..L4) of a coalesced packet at most SOFL_GRO_HDR_MAX
 *   bytes (longer: bypassed).  Raw IP or Ethernet per engine (cfg.link).
 *   At most cfg.max_segs segments per super-packet (default
 *   SOFL_GRO_MAX_SEGS_DEFAULT, 1022): the segment that would be one more
 *   completes the held flow and starts a new one, as the size limit does
 *   (reason SOFL_GRO_FLUSH_SEGS).  So an output's iovcnt is at most
 *   max_segs + 1 (header iovec + one per segment; SOFL_GRO_IOV_MAX = 1023
 *   with the default), and a caller's virtio-header iovec in front of it
 *   still fits writev()'s IOV_MAX (1024 on Linux).
 *
 * Where this differs from Linux 6.18 (everything else is meant to be equal;
 * tests/gro_kernel.sh compares bytes and virtio headers with the running
 * kernel through `softoffload gro --csum partial --poll-sizes`):
 *   - a packet sofl_pkt_parse() rejects (e.g. IPv4 total length beyond the
 *     frame) is passed through without completing its flow's held packet
 *     (Linux flushes it too, #8); one longer than SOFL_GRO_HDR_MAX likewise;
 *   - with SOFL_GRO_F_IPCSUM_OK the IPv4 header checksum is not re-checked;
 *   - not implemented: BIG TCP (> 65535), GRE, FOU/GUE, VXLAN remote
 *     checksum offload, tunnels inside tunnels (passed through), fraglist
 *     GRO, inputs that are already GSO packets (#28), TLS offload state (#27);
 *   - tunnel headers Linux would still coalesce (a VXLAN header with
 *     reserved bits set, an inner VLAN tag, outer IPv6 extension headers)
 *     are passed through with their reason (docs/overlay-gro.md);
 *   - the LRU table (SOFL_GRO_TABLE_LRU) has no Linux counterpart: its
 *     eviction and completion order are its own;
 *   - at most max_segs segments per super-packet (Linux counts none; with
 *     its 64-packet polls a flow reaches the default 1022 only across
 *     polls, with gro_flush_timeout);
 *   - with csum_full, complete TCP checksums (Linux: CHECKSUM_PARTIAL);
 *   - vnet.hdr_len is the header length, where Linux reports skb_headlen()
 *     (a memory-layout artefact; virtio treats it as a hint).
 *   Which kernel: 6.18 (CWR never merges; fixed IPv4 IDs coalesce with DF=0).
 *
 * Thread-safety: an engine is single-threaded (one per queue); distinct
 * engines are independent.  Memory: everything is allocated by
 * sofl_gro_create(); receive/flush/release never allocate or make syscalls
 * (the kernel backs a large table's pages on first use).
 */

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include "softoffload/error.h"
#include "softoffload/csum.h"
#include "softoffload/gso.h"
#include "softoffload/pkt.h"
#include "softoffload/vnet.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SOFL_GRO_HDR_MAX   256	/* bytes of L2..L4 headers a super-packet may have */
#define SOFL_GRO_UDP_MAX   64	/* datagrams per UDP super-packet (UDP_GRO_CNT_MAX) */
#define SOFL_GRO_MAX_SEGS_DEFAULT 1022	/* cfg.max_segs 0: IOV_MAX 1024 - header iovec
					   - a caller's virtio-header iovec */
#define SOFL_GRO_IOV_MAX   (SOFL_GRO_MAX_SEGS_DEFAULT + 1)	/* largest iovcnt with
					   the default max_segs (else max_segs + 1) */

enum sofl_gro_policy {
	SOFL_GRO_POLICY_LINUX = 0,	/* Linux 6.18 decisions and bytes */
	SOFL_GRO_POLICY_RELAXED = 1,	/* ACK/window/timestamps may advance */
};

enum sofl_gro_table {
	SOFL_GRO_TABLE_AUTO = 0,	/* LINUX when max_flows is 0 or 64, else LRU */
	SOFL_GRO_TABLE_LINUX = 1,	/* 8 buckets x 8 (max_flows ignored) */
	SOFL_GRO_TABLE_LRU = 2,		/* hashed, max_flows entries, LRU eviction */
};

/* A flow rule (as `ethtool -N ... flow-type tcp4 dst-ip X` selects): a flow
 * is coalesced only if it matches at least one rule (when rules are given). */
struct sofl_gro_rule {
	uint8_t  family;	/* 4, 6, or 0 = any */
	uint8_t  proto;		/* 6, 17, or 0 = any */
	uint8_t  prefix;	/* destination prefix length in bits (0 = any address) */
	uint8_t  pad_;
	uint8_t  dst[16];	/* destination address, network order (IPv4: first 4) */
	uint16_t dport;		/* destination port, host order; 0 = any */
};

/* Engine configuration.  It can grow: it starts with its size, new fields
 * are only ever appended, and sofl_gro_create() reads `size` bytes (an
 * older, smaller struct gets the defaults for the fields it lacks; a newer,
 * larger one is refused with SOFL_E_CFG_SIZE only if it sets a field this
 * library does not know).  Always fill it with sofl_gro_config_init() first,
 * then change fields; copied by sofl_gro_create(), so it may be freed after. */
struct sofl_gro_config {
	uint32_t size;		/* sizeof(struct sofl_gro_config); set by config_init */
	enum sofl_link link;	/* SOFL_LINK_ETH (default) or SOFL_LINK_RAW */
	enum sofl_gro_policy policy;
	enum sofl_gro_table table;
	uint32_t max_flows;	/* LRU table size (0 -> 64) */
	uint32_t max_size;	/* max IP packet bytes of a super-packet; 0 -> 65535 (Linux
				   gro_max_size 65536: merge while p->len + len < 65536);
				   at most 65535 */
	uint32_t flush_timeout_us; /* 0: everything held is completed by every
				   sofl_gro_poll_end() (NAPI, the default); else only flows
				   held at least this long (gro_flush_timeout) */
	uint32_t max_batch;	/* inputs per cycle (between releases); 0 -> 256 */
	uint32_t max_held;	/* input packets held across cycles (timeout mode);
				   0 -> max(1024, 4 * max_flows) with a timeout, else max_batch */
	int udp;		/* 1: UDP GRO (Linux UDP_GRO socket semantics) */
	int csum_full;		/* 1: complete TCP checksums (UDP: see Completion);
				   0: pseudo sum (Linux) */
	int partial_ok;		/* 1: a checksum field holding the pseudo sum counts as valid */
	uint32_t max_segs;	/* segments per super-packet, 1..65535; 0 ->
				   SOFL_GRO_MAX_SEGS_DEFAULT; an output has at most
				   max_segs + 1 iovecs (see Limits) */
	const struct sofl_gro_rule *rules; /* copied by sofl_gro_create() */
	uint32_t n_rules;	/* 0 = every flow */
	uint8_t hash_key[16];	/* LRU table's flow hash key; all zero (the default):
				   16 random bytes per engine, see Tables */
	const struct sofl_pkt_config *parse; /* the tunnel port table and parse
				   options of every parse the engine makes (pkt.h); NULL =
				   the defaults (sofl_pkt_config_init()); copied at create.
				   A UDP tunnel is coalesced only on a port listed there
				   (see Tunnels) */
};

/* Input flags */
#define SOFL_GRO_F_HASH      0x01	/* .hash is the NIC's RSS / flow hash */
#define SOFL_GRO_F_CSUM_OK   0x02	/* L4 checksum already verified (DATA_VALID) */
#define SOFL_GRO_F_IPCSUM_OK 0x04	/* IPv4 header checksum already verified */
#define SOFL_GRO_F_PKT       0x08	/* .pkt is the frame's parse (Parsed inputs) */
#define SOFL_GRO_F_MALFORMED 0x10	/* sofl_pkt_parse() rejected the frame (Parsed inputs) */
#define SOFL_GRO_F_OUTER_CSUM_OK 0x20	/* tunnel packet: its non-zero outer UDP checksum
					   already verified (else verified in software) */

/* Parsed inputs: a caller that has parsed a frame already (for its RSS
 * hash, a filter, a port's own checks) hands the parse over instead of
 * having the engine parse the frame again (pkt.h: parsing done once).
 *   SOFL_GRO_F_PKT: .pkt points to what sofl_pkt_parse_cfg(.pkt, .data,
 *   .len, cfg.link, cfg.parse) wrote when it returned 0 — a parse with the
 *   engine's parse config (the same tunnel ports and IP-in-IP option;
 *   sofl_pkt_parse() when cfg.parse is NULL) —, unchanged since; it is read during
 *   sofl_gro_receive() only (not kept).  The engine decides by it where it
 *   needs the frame's layout; where it does not (the next segment of a held
 *   flow, recognised by comparing its bytes with the flow's first segment's)
 *   it decides as it does for any input, with the same outcome.
 *   SOFL_GRO_F_MALFORMED: sofl_pkt_parse() returned an error for the frame:
 *   it is delivered unchanged (reason SOFL_GRO_BYPASS_MALFORMED) without
 *   being parsed; .pkt is not read.
 *   Without either flag .pkt is not read (it may be left unset) and the
 *   engine parses the frame when it needs to.
 * Trusted, but never read beyond: a parse given is taken as the truth about
 * the frame (a parse that lies — another address, flags, sequence number —
 * gets decisions by its lie; the outputs stay well-formed iovecs over the
 * caller's buffers).  What the engine can check cheaply it does: a parse of
 * another frame (.data, .len or the link differ) or whose offsets do not
 * lie within the frame in the order sofl_pkt_parse() writes them is not
 * used (the engine parses the frame itself), so no parse can make the
 * engine read outside [data, data + len).  Outputs, counters and their order
 * are the same with or without a true parse. */
struct sofl_gro_in {
	const void *data;	/* the frame (cfg.link), caller-owned, read only */
	uint32_t len;
	uint32_t flags;		/* SOFL_GRO_F_* */
	uint32_t hash;		/* with SOFL_GRO_F_HASH */
	uint64_t cookie;	/* opaque, reported back in the output that carries it */
	const struct sofl_pkt *pkt;	/* with SOFL_GRO_F_PKT: the frame's parse */
};

/* Why a held flow was completed */
enum sofl_gro_flush {
	SOFL_GRO_FLUSH_POLL = 0,	/* end of poll (sofl_gro_poll_end) */
	SOFL_GRO_FLUSH_TIMEOUT,		/* held longer than flush_timeout_us */
	SOFL_GRO_FLUSH_EXPLICIT,	/* sofl_gro_flush() */
	SOFL_GRO_FLUSH_EVICT,		/* table/bucket full: oldest (LRU) completed */
	SOFL_GRO_FLUSH_CAPACITY,	/* more than max_held packets held at poll end */
	SOFL_GRO_FLUSH_PSH_FIN,		/* merged a PSH/FIN segment */
	SOFL_GRO_FLUSH_SHORT,		/* merged a shorter segment (end of train) */
	SOFL_GRO_FLUSH_UDP_MAX,		/* 64 UDP datagrams */
	SOFL_GRO_FLUSH_SIZE,		/* next segment would pass max_size */
	SOFL_GRO_FLUSH_SEQ,		/* sequence gap / overlap */
	SOFL_GRO_FLUSH_BIGGER,		/* next segment larger than gso_size */
	SOFL_GRO_FLUSH_HDR,		/* TTL/TOS/DF/TC/hop limit/ack/flag word/options differ */
	SOFL_GRO_FLUSH_IPID,		/* IPv4 ID neither incrementing nor fixed */
	SOFL_GRO_FLUSH_CWR,		/* next segment has CWR */
	SOFL_GRO_FLUSH_NOPAYLOAD,	/* zero-payload segment of the flow */
	SOFL_GRO_FLUSH_BADLEN,		/* flow's next packet: IP length != frame / evil bit */
	SOFL_GRO_FLUSH_SEGS,		/* next segment would be one more than max_segs */
	SOFL_GRO_FLUSH_OUTER_HDR,	/* tunnel: outer TTL/TOS/DF or traffic class/hop limit differ */
	SOFL_GRO_FLUSH_OUTER_IPID,	/* tunnel: outer IPv4 ID neither incrementing nor fixed */
	SOFL_GRO_FLUSH__MAX
};

/* Why a packet was delivered alone without being held */
enum sofl_gro_bypass {
	SOFL_GRO_BYPASS_MALFORMED = 0,	/* sofl_pkt_parse() error */
	SOFL_GRO_BYPASS_NOT_IP,
	SOFL_GRO_BYPASS_PROTO,		/* not TCP (or UDP with cfg.udp) */
	SOFL_GRO_BYPASS_UDP_OFF,	/* UDP while cfg.udp is 0 */
	SOFL_GRO_BYPASS_RULE,		/* matches no flow rule */
	SOFL_GRO_BYPASS_IP_OPTS,	/* IPv4 header with options */
	SOFL_GRO_BYPASS_FRAGMENT,	/* IPv4 fragment, IPv6 fragment header */
	SOFL_GRO_BYPASS_IP_CSUM,	/* bad IPv4 header checksum */
	SOFL_GRO_BYPASS_L4_CSUM,	/* bad TCP/UDP checksum */
	SOFL_GRO_BYPASS_BADLEN,		/* IP length != frame length (padding), evil bit */
	SOFL_GRO_BYPASS_NOPAYLOAD,	/* TCP without payload */
	SOFL_GRO_BYPASS_FLAGS,		/* SYN/RST/URG/PSH/FIN with nothing to join */
	SOFL_GRO_BYPASS_UDP_CSUM0,	/* UDP without checksum */
	SOFL_GRO_BYPASS_UDP_LEN,	/* UDP length != IP payload, or no payload */
	SOFL_GRO_BYPASS_HDR_LONG,	/* headers longer than SOFL_GRO_HDR_MAX */
	SOFL_GRO_BYPASS_ENCAP_MALFORMED, /* tunnel recognised, not parsed into
					   (SOFL_LAYER_ENCAP_ERR; stats.encap_err[] by encap_err) */
	SOFL_GRO_BYPASS_ENCAP_NESTED,	/* a tunnel inside the tunnel (SOFL_ENCAP_F_NESTED) */
	SOFL_GRO_BYPASS_OUTER_IP_OPTS,	/* tunnel: outer IPv4 options / IPv6 extension headers */
	SOFL_GRO_BYPASS_OUTER_IP_CSUM,	/* tunnel: bad outer IPv4 header checksum */
	SOFL_GRO_BYPASS_OUTER_CSUM,	/* tunnel: bad outer UDP checksum */
	SOFL_GRO_BYPASS__MAX
};

/* One output (72 bytes).  Why it was delivered: bypass_reason when bypass
 * is 1, else flush_reason (the other field is 0). */
struct sofl_gro_out {
	const struct iovec *iov;	/* iov[0]: headers or the whole packet */
	uint32_t iovcnt;		/* 1 .. cfg.max_segs + 1 */
	uint32_t len;			/* total bytes */
	uint32_t segs;			/* input packets carried (1 = unchanged) */
	enum sofl_gso_type gso_type;	/* NONE, TCPV4, TCPV6 or UDP_L4; a tunnel
					   super-packet ORs SOFL_GSO_TUNNEL_UDP, _UDP_CSUM
					   or _IPIP with its inner type */
	const uint64_t *cookies;	/* their cookies, in order */
	enum sofl_csum_state csum;	/* UNKNOWN, VALID or PARTIAL */
	uint16_t gso_size;		/* 0 when segs == 1 */
	uint16_t csum_start;		/* PARTIAL: L4 header offset from frame start */
	uint16_t csum_offset;		/* PARTIAL: 16 TCP, 6 UDP */
	uint8_t  bypass;		/* 1: delivered without being held */
	enum sofl_gro_flush flush_reason;	/* bypass 0: why the flow was completed */
	enum sofl_gro_bypass bypass_reason;	/* bypass 1: why it was not held */
	struct sofl_vnet_hdr vnet;	/* ready virtio-net header (decoded form) */
};

#define SOFL_GRO_HIST_BINS 7	/* segments per output: 1, 2-3, 4-7, 8-15, 16-31, 32-63, 64+ */
/* Slots of sofl_gro_stats.flush[] and .bypass[]: more than the reasons
 * known today (SOFL_GRO_FLUSH__MAX, SOFL_GRO_BYPASS__MAX), so that a reason
 * added later takes a spare slot instead of moving the counters after the
 * array.  Slots past __MAX read 0. */
#define SOFL_GRO_FLUSH_SLOTS  32
#define SOFL_GRO_BYPASS_SLOTS 32

/* Counters of one engine (sofl_gro_get_stats).  Grows at its end only. */
struct sofl_gro_stats {
	uint64_t pkts_in;		/* inputs accepted by sofl_gro_receive() */
	uint64_t pkts_out;		/* outputs produced */
	uint64_t super_pkts;		/* outputs with >= 2 segments */
	uint64_t segs_merged;		/* inputs inside those super-packets */
	uint64_t bytes_in;		/* input bytes (frames) */
	uint64_t hist[SOFL_GRO_HIST_BINS];
	uint64_t flush[SOFL_GRO_FLUSH_SLOTS];	/* by enum sofl_gro_flush */
	uint64_t bypass[SOFL_GRO_BYPASS_SLOTS];	/* by enum sofl_gro_bypass */
	uint64_t csum_sw_ip;		/* IPv4 header checksums verified in software */
	uint64_t csum_sw_l4;		/* TCP/UDP checksums verified in software */
	uint64_t csum_partial_ok;	/* pseudo-sum checksums accepted (partial_ok) */
	/* tunnels (SOFL_LAYER_ENCAP; see Tunnels) */
	uint64_t tun_in;		/* tunnel packets (and ENCAP_ERR ones) received */
	uint64_t tun_super_pkts;	/* tunnel super-packets (outputs with >= 2 segments) */
	uint64_t tun_segs_merged;	/* inputs inside those */
	uint64_t csum_sw_outer;		/* outer UDP checksums verified in software */
	uint64_t encap_err[16];		/* ENCAP_MALFORMED bypasses by enum sofl_encap_err */
};

struct sofl_gro;

/* sofl_gro_config_init() : fills *cfg with the defaults (Linux policy and
 * table, Ethernet, 65535, flush every poll, TCP only, pseudo checksums). */
SOFL_API void sofl_gro_config_init(struct sofl_gro_config *cfg);

/* sofl_gro_create() :
 * Allocates an engine for @cfg (copied, rules included) into *out.
 * Large LRU tables are mapped, not written: memory is backed as flows and
 * buckets are used.  Makes one getrandom() call (the hash key) unless
 * cfg.hash_key is set.
 * @return 0, or one code per cause (nothing is allocated then):
 *         SOFL_E_INVAL (@cfg or @out NULL), SOFL_E_CFG_SIZE (cfg.size; see
 *         struct sofl_gro_config), SOFL_E_CFG_LINK, SOFL_E_CFG_POLICY,
 *         SOFL_E_CFG_TABLE (unknown enum value), SOFL_E_CFG_MAX_FLOWS (above
 *         2^24), SOFL_E_CFG_MAX_SIZE (not 0 or 128 .. 65535),
 *         SOFL_E_CFG_MAX_BATCH (above 2^24), SOFL_E_CFG_MAX_HELD (above 2^26),
 *         SOFL_E_CFG_MAX_SEGS (above 65535), SOFL_E_CFG_RULES (n_rules
 *         without rules, a family not 0/4/6, a prefix too long for it, or a
 *         prefix with family 0), SOFL_E_CFG_SIZE or SOFL_E_INVAL (cfg.parse,
 *         as sofl_pkt_parse_cfg() checks it); SOFL_E_NOMEM; SOFL_E_NOTSUP (no random bytes
 *         from getrandom() or /dev/urandom).  sofl_strerror() names the field. */
SOFL_API int sofl_gro_create(const struct sofl_gro_config *cfg, struct sofl_gro **out);

/* sofl_gro_destroy() : frees the engine (NULL is fine).  Outputs and held
 * packets are forgotten; the caller still owns every input buffer. */
SOFL_API void sofl_gro_destroy(struct sofl_gro *g);

/* sofl_gro_receive() :
 * Feeds @n packets (one NIC batch or part of it), in arrival order.  Each is
 * merged into a held flow, held, or delivered: outputs accumulate until
 * sofl_gro_release().  @now_ns is a monotonic time (only used with a flush
 * timeout; pass 0 otherwise).
 * @return @n, or (nothing consumed in each case) SOFL_E_INVAL (@g NULL, or
 *         @in NULL with n > 0), SOFL_E_GRO_BATCH (the cycle would pass max_batch inputs:
 *         call sofl_gro_poll_end(), take the outputs, sofl_gro_release()),
 *         SOFL_E_GRO_HELD (held + new would pass max_held + max_batch: the
 *         same, or sofl_gro_flush() first in the timeout mode). */
SOFL_API int sofl_gro_receive(struct sofl_gro *g, const struct sofl_gro_in *in, size_t n,
			      uint64_t now_ns);

/* sofl_gro_poll_end() :
 * The end of a NAPI poll: completes every held flow (no timeout) or the flows
 * held for at least flush_timeout_us (then, if more than max_held packets are
 * still held, the oldest flows too).  @return the number of outputs pending,
 * or SOFL_E_INVAL (@g NULL). */
SOFL_API int sofl_gro_poll_end(struct sofl_gro *g, uint64_t now_ns);

/* sofl_gro_set_flush_timeout() :
 * Changes cfg.flush_timeout_us of a running engine (as writing
 * /sys/class/net/DEV/gro_flush_timeout does): 0 turns the NAPI mode back
 * on, anything else the timeout mode.  Only while nothing is held (call
 * sofl_gro_flush(), take the outputs and release first); max_held stays
 * what sofl_gro_create() made of cfg.max_held (left 0 without a timeout:
 * max_batch, so set cfg.max_held there when a timeout will come later and
 * more should be held).  Statistics and the hash key are kept.
 * @return 0, SOFL_E_GRO_HELD (packets held: nothing changed), SOFL_E_INVAL
 *         (@g NULL).  Same thread as the engine's other calls. */
SOFL_API int sofl_gro_set_flush_timeout(struct sofl_gro *g, uint32_t usec);

/* sofl_gro_flush() : completes every held flow now (reason EXPLICIT).
 * @return the number of outputs pending, or SOFL_E_INVAL (@g NULL). */
SOFL_API int sofl_gro_flush(struct sofl_gro *g);

/* sofl_gro_outputs() :
 * *out = the outputs produced since the last release, in delivery order.
 * @return their count, or SOFL_E_INVAL (NULL argument).  Valid until
 * sofl_gro_release() or sofl_gro_destroy(). */
SOFL_API int sofl_gro_outputs(const struct sofl_gro *g, const struct sofl_gro_out **out);

/* sofl_gro_release() : ends the cycle: outputs, their iovecs and header
 * scratch become invalid; input buffers whose cookies were in them may be
 * reused.  Held flows (timeout mode) stay held. */
SOFL_API void sofl_gro_release(struct sofl_gro *g);

/* sofl_gro_held() : packets currently held (not yet in any output). */
SOFL_API uint32_t sofl_gro_held(const struct sofl_gro *g);

/* sofl_gro_out_copy() :
 * Copies output @o (headers + payload slices) into @buf (@cap bytes); @o
 * must be valid (before sofl_gro_release()).  Any thread may copy outputs
 * while the engine's thread does not release them.
 * @return its length (o->len), or SOFL_E_NOSPC (@cap < o->len; nothing
 *         written), SOFL_E_INVAL (@o NULL, or @buf NULL with @cap > 0). */
SOFL_API int sofl_gro_out_copy(const struct sofl_gro_out *o, void *buf, size_t cap);

/* sofl_gro_get_stats() :
 * Copies the first @size bytes of the counters since creation or reset into
 * *st: pass sizeof(*st).  The struct grows at its end only, so a program
 * built with an older, smaller struct gets the counters it knows, and one
 * built with a newer, larger struct gets 0 in the counters this library
 * lacks (bytes past the library's struct are zeroed).  Same thread as the
 * engine's other calls.
 * @return 0, or SOFL_E_INVAL (@g or @st NULL; nothing written).
 * sofl_gro_reset_stats() : sets every counter to 0.
 * @return 0, or SOFL_E_INVAL (@g NULL). */
SOFL_API int sofl_gro_get_stats(const struct sofl_gro *g, struct sofl_gro_stats *st,
				size_t size);
SOFL_API int sofl_gro_reset_stats(struct sofl_gro *g);

/* sofl_gro_flush_name() / sofl_gro_bypass_name() : short static names of the
 * reasons ("poll", "psh-fin", ... / "malformed", "ip-opts", ...); "?" if unknown. */
SOFL_API const char *sofl_gro_flush_name(enum sofl_gro_flush reason);
SOFL_API const char *sofl_gro_bypass_name(enum sofl_gro_bypass reason);

/* Event loops: when the timeout mode next has work, which inputs are held.
 *   With flush_timeout_us set, packets stay held across cycles until their
 *   flow has been held that long, so an event loop (epoll with a timerfd,
 *   io_uring with a timeout) needs the time at which to call
 *   sofl_gro_poll_end() next, and a caller recycling receive buffers needs
 *   to know which ones the engine still references.  Every now_ns given to
 *   one engine must come from one clock that never goes back
 *   (CLOCK_MONOTONIC in nanoseconds); a flow's hold time is the now_ns of
 *   the sofl_gro_receive() that held its first segment.
 *   ```c
 *   #include <stdint.h>
 *   #include <stdlib.h>
 *   #include <string.h>
 *   #include <time.h>
 *   #include <unistd.h>
 *   #include <sys/timerfd.h>
 *   #include <softoffload/gro.h>
 *
 *   // tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK), in the epoll
 *   // set next to the receive socket; every now_ns given is mono_ns()
 *   uint64_t
 *   mono_ns(void)
 *   {
 *       struct timespec t;
 *
 *       clock_gettime(CLOCK_MONOTONIC, &t);
 *       return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
 *   }
 *
 *   // after every cycle's sofl_gro_release(): the timer for the next timeout
 *   int
 *   gro_arm(const struct sofl_gro *g, int tfd)
 *   {
 *       struct itimerspec its;
 *       uint64_t d;
 *
 *       memset(&its, 0, sizeof(its));           // all zero: disarmed
 *       if (sofl_gro_next_deadline(g, &d) == 1 && d > 0) {  // 0: NAPI mode
 *           its.it_value.tv_sec = (time_t)(d / 1000000000u);
 *           its.it_value.tv_nsec = (long)(d % 1000000000u);
 *       }
 *       return timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
 *   }
 *
 *   // tfd readable: complete what is due; then outputs, release, gro_arm()
 *   int
 *   gro_timer(struct sofl_gro *g, int tfd)
 *   {
 *       uint64_t expirations;
 *
 *       if (read(tfd, &expirations, sizeof(expirations)) < 0)
 *           return 0;                   // EAGAIN: re-armed meanwhile
 *       return sofl_gro_poll_end(g, mono_ns());     // outputs pending
 *   }
 *
 *   // shutdown: every buffer still held goes back to the receive ring
 *   int
 *   gro_stop(struct sofl_gro *g, void (*recycle)(uint64_t cookie))
 *   {
 *       uint32_t k = sofl_gro_held(g);
 *       uint64_t *c = malloc((k ? k : 1) * sizeof(*c));
 *       int n = c ? sofl_gro_discard(g, c, k) : SOFL_E_NOMEM, i;
 *
 *       for (i = 0; i < n; i++)
 *           recycle(c[i]);
 *       free(c);
 *       sofl_gro_destroy(g);
 *       return n < 0 ? n : 0;
 *   }
 *   ```
 *
 * sofl_gro_next_deadline() :
 * The time at which sofl_gro_poll_end() next has a flow to complete by the
 * timeout.  Timeout mode: *deadline_ns = the oldest held flow's hold time
 * + flush_timeout_us (saturated at UINT64_MAX), on the now_ns clock: the
 * earliest now_ns at which sofl_gro_poll_end() completes that flow by the
 * timeout (reason TIMEOUT); at any earlier now_ns it completes none by the
 * timeout (only, with more than max_held held, the oldest by CAPACITY).
 * It may have passed when inputs were received since the last poll end:
 * due now (a timerfd armed with a past absolute time expires at once).
 * It is never 0 in this mode.
 * NAPI mode (no timeout): what is held is due at this poll's end,
 * *deadline_ns = 0 (call sofl_gro_poll_end(); do not arm a timerfd with
 * it: an absolute time of 0 disarms).  Nothing held (either mode):
 * *deadline_ns = UINT64_MAX (disarm).  Flows can complete before their
 * deadline (a later segment, eviction, capacity, sofl_gro_flush()), never
 * after the first poll end at or past it.  O(1): the flows are kept in
 * hold-time order (the LRU table's age list; the Linux table keeps one
 * too in timeout mode), so this reads the oldest's hold time; no scan.
 * @return 1 (something held, *deadline_ns as above), 0 (nothing held),
 *         SOFL_E_INVAL (NULL argument).
 * Thread-safety: reads the engine; never concurrently with a call that
 * changes it (receive, poll_end, flush, release, discard). */
SOFL_API int sofl_gro_next_deadline(const struct sofl_gro *g, uint64_t *deadline_ns);

/* sofl_gro_held_cookies() :
 * Writes the cookies of every held input (received, in no output yet:
 * sofl_gro_held() of them) to @cookies, in the order sofl_gro_flush()
 * would deliver them: flow by flow (Linux table: bucket by bucket, each
 * from its oldest flow to its newest; LRU table: oldest flow first), each
 * flow's inputs in arrival order.  The engine references exactly the
 * buffers of these inputs and of the cycle's outputs (until
 * sofl_gro_release()); every other buffer it was given may be reused.
 * Every input received leaves exactly once: in one output (its cookies),
 * or in a sofl_gro_discard().  @cookies is caller-owned and only written;
 * O(held), no allocation, no syscall.
 * @return the count written (0: nothing held, @cookies may then be NULL),
 *         SOFL_E_NOSPC when @cap < sofl_gro_held() (nothing written; that
 *         call gives the count needed, which stays valid until the next
 *         call that changes the engine), SOFL_E_INVAL (@g NULL, or
 *         @cookies NULL with @cap > 0).
 * Thread-safety: as sofl_gro_next_deadline(). */
SOFL_API int sofl_gro_held_cookies(const struct sofl_gro *g, uint64_t *cookies, size_t cap);

/* sofl_gro_discard() :
 * Forgets every held input without an output (as Linux's gro_cleanup() in
 * net/core/gro.c frees what a NAPI instance still holds when it is
 * deleted): for shutdown, a link reset, or a receive ring that must take
 * its buffers back now.  Their cookies are written to @cookies in
 * sofl_gro_held_cookies()' order; on return the engine references none of
 * those buffers.  The cycle's outputs stay valid until sofl_gro_release().
 * The engine keeps its configuration, hash key and statistics (pkts_in
 * counts the discarded inputs, no output does) and takes inputs at once,
 * the discarded inputs' room free for this cycle's sofl_gro_receive()
 * (the SOFL_E_GRO_HELD check does not count them; max_batch still counts
 * every input of the cycle); sofl_gro_next_deadline() then returns 0.
 * @return the number discarded (0: nothing held, @cookies may then be
 *         NULL), SOFL_E_NOSPC when @cap < sofl_gro_held() (nothing
 *         discarded or written), SOFL_E_INVAL (@g NULL, or @cookies NULL
 *         with @cap > 0).
 * Thread-safety: changes the engine, as sofl_gro_flush(). */
SOFL_API int sofl_gro_discard(struct sofl_gro *g, uint64_t *cookies, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
