/*
 * softoffload — segmentation: TSO/GSO (TCP), USO (UDP_SEGMENT) and IP
 * fragmentation (UFO), byte-identical to Linux software GSO.
 *
 * HowTo (segment into iovecs, zero-copy; the arrays are the caller's, here
 * sized for a 64 KB super-packet at MSS 1448, and sofl_gso_need() says
 * whether they suffice):
 *   ```c
 *   static struct sofl_gso_seg segs[64];     // one sending thread
 *   static uint8_t scratch[64 * 128];
 *   static struct iovec iovs[64 * 2];
 *
 *   int
 *   send_tso(int fd, const void *frame, size_t len)
 *   {
 *       struct sofl_gso_params gp = { .type = SOFL_GSO_TCPV4, .gso_size = 1448 };
 *       struct sofl_gso_out out = { .mode = SOFL_GSO_ZEROCOPY,
 *           .seg = segs, .seg_cap = 64, .buf = scratch, .buf_cap = sizeof(scratch),
 *           .iov = iovs, .iov_cap = 64 * 2 };
 *       struct sofl_gso_need need;
 *       struct sofl_pkt p;
 *       int err, n, i;
 *
 *       if ((err = sofl_pkt_parse(&p, frame, len, SOFL_LINK_ETH)) < 0 ||
 *           (err = sofl_gso_need(&gp, &p, out.mode, 0, &need)) < 0)
 *           return err;                 // sofl_strerror(err) says why
 *       if (need.nsegs > out.seg_cap || need.buf_bytes > out.buf_cap ||
 *           need.iovs > out.iov_cap)
 *           return SOFL_E_NOSPC;         // or allocate what need says
 *       n = sofl_gso_segment(&gp, &p, NULL, 0, &out);
 *       for (i = 0; i < n; i++)         // or one sendmmsg()
 *           if (writev(fd, out.seg[i].iov, out.seg[i].iovcnt) < 0)
 *               return -1;
 *       return n;
 *   }
 *   ```
 * With .mode = SOFL_GSO_COPY each segment is instead one contiguous frame in
 * .buf (payload copied and checksummed in one pass), .iov unused.
 *
 * What is produced (Linux 6.18 tcp_gso_segment, __udp_gso_segment), per segment:
 *   TCP    payload cut at gso_size, the last shorter; seq += gso_size; FIN and
 *          PSH on the last segment only; CWR on the first only unless
 *          SOFL_GSO_F_ACCECN; every other header byte (options, ACK, window,
 *          URG pointer, ECE) copied as is.  Input with payload <= gso_size
 *          passes through (Linux treats it as non-GSO).
 *   Pass-through (SOFL_GSO_NONE, or nothing to cut): one segment, the packet
 *          as it is but with its L4 checksum completed (UDP over IPv4 with
 *          checksum 0 stays 0) and its IPv4 header checksum recomputed (so
 *          unchanged when it was right; Linux would not fix a wrong one).
 *   UDP_L4 UDP_SEGMENT semantics: each datagram gso_size bytes, the last
 *          shorter; UDP length per datagram; at most 128 datagrams.
 *   IPv4   tot_len per segment; ID = original + i (0, 1, 2 ...) unless
 *          SOFL_GSO_F_FIXED_ID; header checksum recomputed (ip_send_check);
 *          options copied to every segment.
 *   IPv6   payload_len per segment; extension headers copied.
 *   Checksum at (SOFL_GSO_NONE with SOFL_GSO_F_CSUM_AT; what
 *          sofl_vnet_to_gso() gives for a non-GSO NEEDS_CSUM header): Linux
 *          skb_checksum_help() as validate_xmit_skb() runs it for a
 *          CHECKSUM_PARTIAL packet the device cannot checksum.  The one's
 *          complement sum of the bytes from csum_start to the end of the
 *          packet (the field's own value, the pseudo-header sum, included) is
 *          folded, complemented (0 written as 0xFFFF) and stored at
 *          csum_start + csum_offset; nothing else changes (no other
 *          checksum, inner or outer, no IPv4 header checksum).  The packet
 *          ends where its outermost IP packet does (Ethernet padding is not
 *          output, as for any pass-through), a frame without an IP header
 *          where the parse's bytes do (p->len); the parse need not have found
 *          an IP or L4 header.  With SOFL_GSO_F_CSUM_PARTIAL the packet goes
 *          out unchanged (the device would complete it).  The field must lie
 *          in the packet (else SOFL_E_GSO_HDR).
 *   L4 checksum: complete (software) by default, or with
 *          SOFL_GSO_F_CSUM_PARTIAL the folded pseudo-header sum for the
 *          segment's L4 length (what CHECKSUM_PARTIAL / virtio NEEDS_CSUM
 *          carry; Linux computes it by replacing the length in the
 *          pseudo sum, which gives the same 16 bits).  TCP 0 is written as 0,
 *          UDP 0 as 0xFFFF (CSUM_MANGLED_0).
 *   UFO (IP fragmentation, Linux udp4/udp6_ufo_fragment + inet/ipv6_gso_segment):
 *          the L4 checksum (TCP or UDP; other protocols untouched) is first
 *          completed over the whole datagram, then the IP payload is cut into
 *          fragments.  IPv4: MF on all but the last, offset in 8-byte units,
 *          DF cleared, the ID kept the same on every fragment (as Linux UFO;
 *          a datagram's fragments must share it), header incl. options copied
 *          to every fragment (Linux UFO does not drop non-copy options).
 *          IPv6: a fragment header (identification gp->frag_id, M on all but
 *          the last) inserted after the unfragmentable part, which every
 *          fragment repeats: as Linux's ip6_find_1stfragopt(), the hop-by-hop,
 *          routing and destination options headers up to a destination
 *          options header that follows a routing header, or the first other
 *          header; with SOFL_PKT_EXTHDR_MAX extension headers
 *          there, the fragments carry one more than sofl_pkt_parse() takes
 *          (it says SOFL_E_EXTHDR_CHAIN; they are valid IPv6, RFC 8200 sets
 *          no limit).  frag_id 0 (what
 *          a virtio UFO header gives) means "choose one", as Linux
 *          udp6_ufo_fragment() does with ipv6_proxy_select_ident(): a
 *          non-zero identification per datagram, shared by its fragments,
 *          from gp->frag_ids or, when that is NULL, the library's own
 *          generator (see sofl_gso_frag_ids_init() below).  The library's
 *          generator is keyed with 16 random bytes on first use
 *          (getrandom(), else /dev/urandom); when none can be had the
 *          call fails with SOFL_E_NOTSUP rather than use a guessable key,
 *          and the next call tries again.
 * The input checksum fields are never trusted: each segment's checksums are
 * computed from its own bytes and addresses.  An input whose L4 checksum is a
 * partial sum (a capture on a sending host, a GRO output, a virtio NEEDS_CSUM
 * packet) or complete or wrong gives the same output.  (So DPDK's length-0
 * pseudo-header seed versus Linux's full-length one does not matter here.)
 * Partial output sums include each segment's own L4 length: what Linux
 * CHECKSUM_PARTIAL / virtio NEEDS_CSUM and a NIC's plain (non-TSO) checksum
 * offload expect; never DPDK's TSO-style length-0 seed, since a segment is
 * not a TSO packet any more.
 *
 * Tunnels (Linux 6.18 __skb_udp_tunnel_segment, inet_gso_segment,
 * ipv6_gso_segment, the IP-in-IP gso callbacks): a type with one tunnel bit
 * (SOFL_GSO_TUNNEL_UDP, _UDP_CSUM or _IPIP) ORed with TCPV4, TCPV6 or
 * UDP_L4 cuts the inner packet of a tunnel parse (p->layers has
 * SOFL_LAYER_ENCAP, pkt.h "Tunnels") by the rules above, at the inner
 * offsets (the inner IPv4 ID + i unless SOFL_GSO_F_FIXED_ID_INNER), and
 * copies the outer headers (Ethernet, IP, UDP, VXLAN/Geneve with options,
 * inner Ethernet) to every segment with, per segment:
 *   outer IPv4: tot_len, ID = original + i unless SOFL_GSO_F_FIXED_ID,
 *          header checksum recomputed; outer IPv6: payload_len;
 *   outer UDP: length; checksum 0 for TUNNEL_UDP, for TUNNEL_UDP_CSUM the
 *          complete checksum (0 sent as 0xFFFF), computed as Linux's local
 *          checksum offload does (lco_csum): from the complement of the
 *          inner pseudo-header sum and the header bytes before the inner
 *          L4 header, never summing the payload twice.  Also with
 *          SOFL_GSO_F_CSUM_PARTIAL (that flag applies to the inner L4
 *          checksum only: the outer one is complete, as Linux gives it
 *          when the inner checksum is left to the device).
 * The type must match the parse: TUNNEL_UDP/_UDP_CSUM a VXLAN or Geneve
 * parse, TUNNEL_IPIP an IP-in-IP one, one level (no SOFL_ENCAP_F_NESTED),
 * else SOFL_E_GSO_TUNNEL; the inner IP packet must end where the outer one
 * does and the outer UDP length cover the rest of it, else
 * SOFL_E_GSO_TUNNEL_LEN.  The outer family is the parse's.  A tunnel packet
 * with no more inner payload than gso_size is output as one segment with
 * every header fixed as above (inner checksums completed).
 * A type without tunnel bits on a tunnel parse acts on the outer packet,
 * as Linux dispatches on the outer protocol: NONE passes it through (its
 * outer L4 checksum completed), UDP_L4 cuts the outer UDP datagram (tunnel
 * header and inner packet as its payload), UFO fragments the outer IP
 * packet, TCPV4/TCPV6 fail with SOFL_E_GSO_PROTO (Linux: -EINVAL).
 * Headers are copied from p->data: for an iovec input they must lie within
 * SOFL_PKT_IOV_HDR_MAX bytes (sofl_pkt_parse_iov_cfg() checks).
 *
 * Not supported: BIG TCP super-packets (IPv4 tot_len 0, IPv6 jumbograms —
 * the parser refuses them), nested tunnels, GSO_BY_FRAGS / fraglist, GRE,
 * remote checksum offload.
 *
 * Memory: everything is caller-owned; nothing allocates; the input is only
 * read.  Zero-copy segments point into the input (their payload iovecs) and
 * into out->buf (their headers): both must outlive the use of the segments.
 * Thread-safety: reentrant; no shared state (only the checksum dispatch,
 * see csum.h, and the library's IPv6 identification generator: atomic).
 */
#ifndef SOFTOFFLOAD_GSO_H
#define SOFTOFFLOAD_GSO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include "softoffload/error.h"
#include "softoffload/pkt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The GSO type: one enum for gso.h, gro.h and vnet.h, with the virtio-net
 * header's values (VIRTIO_NET_HDR_GSO_*), so a decoded header's gso_type, a
 * GRO output's gso_type and sofl_gso_params.type compare and convert without
 * a table.  Values are stable. */
enum sofl_gso_type {
	SOFL_GSO_NONE   = 0,	/* no segmentation: one segment, checksums completed */
	SOFL_GSO_TCPV4  = 1,	/* TSO/GSO, TCP over IPv4 */
	SOFL_GSO_UFO    = 3,	/* UFO: IP fragmentation of a UDP datagram */
	SOFL_GSO_TCPV6  = 4,	/* TSO/GSO, TCP over IPv6 */
	SOFL_GSO_UDP_L4 = 5,	/* USO, UDP_SEGMENT (IPv4 or IPv6) */

	/* Tunnel bits, ORed with the inner type (TCPV4, TCPV6 or UDP_L4) of a
	 * tunnel super-packet (a parse with SOFL_LAYER_ENCAP, pkt.h): at most one
	 * of them; the outer family is the parse's outer_ipv.  Linux
	 * SKB_GSO_UDP_TUNNEL, SKB_GSO_UDP_TUNNEL_CSUM, SKB_GSO_IPXIP4/6. */
	SOFL_GSO_TUNNEL_UDP      = 0x10, /* VXLAN/Geneve, outer UDP checksum 0 */
	SOFL_GSO_TUNNEL_UDP_CSUM = 0x20, /* VXLAN/Geneve, outer UDP checksum set per segment */
	SOFL_GSO_TUNNEL_IPIP     = 0x40, /* IP-in-IP */
};
#define SOFL_GSO_TUNNEL_MASK 0x70	/* the tunnel bits of a type */
#define SOFL_GSO_INNER(t)    ((t) & 0x0f)	/* the inner (or only) type */
#define SOFL_GSO_ECN 0x80	/* virtio wire only: TCP with CWR set (VIRTIO_NET_HDR_GSO_ECN),
				   OR'ed into a header's gso_type; never in sofl_gso_params */

#define SOFL_GSO_F_FIXED_ID     0x01	/* IPv4: every segment keeps the input's ID */
#define SOFL_GSO_F_CSUM_PARTIAL 0x02	/* L4 checksum left as the pseudo-header sum */
#define SOFL_GSO_F_ACCECN       0x04	/* TCP: CWR kept on every segment (SKB_GSO_TCP_ACCECN) */
#define SOFL_GSO_F_IGNORE_DF    0x08	/* UFO: fragment even with DF set (Linux UFO) */
#define SOFL_GSO_F_FIXED_ID_INNER 0x10	/* tunnel types: the inner IPv4 header keeps its ID
					   (SKB_GSO_TCP_FIXEDID_INNER); SOFL_GSO_F_FIXED_ID
					   is then the outer header's (SKB_GSO_TCP_FIXEDID) */
#define SOFL_GSO_F_CSUM_AT      0x20	/* SOFL_GSO_NONE only: complete exactly one checksum,
					   the one a virtio NEEDS_CSUM header names, and
					   touch nothing else (see "Checksum at" above);
					   the field is at csum_start + csum_offset */

#define SOFL_GSO_UDP_MAX_SEGS 128	/* Linux UDP_MAX_SEGMENTS (6.11+, 5.15.y); vnet.h rule 5 */
#define SOFL_GSO_TCP_MAX_SEGS 65535	/* gso_max_segs default */
#define SOFL_GSO_FRAG_MAX_SEGS 8192	/* 65535 / 8: IPv4 offsets are 13 bits */
/* Headers of an iovec input must lie within SOFL_PKT_IOV_HDR_MAX (pkt.h). */

struct sofl_gso_frag_ids;

struct sofl_gso_params {
	uint8_t  type;		/* enum sofl_gso_type */
	uint8_t  flags;		/* SOFL_GSO_F_* */
	uint16_t gso_size;	/* TCP/UDP_L4: L4 payload bytes per segment (the MSS, not
				 * DPDK's whole frame).  UFO: bytes after the IP
				 * header (IPv6: after the fragment header) per fragment,
				 * rounded down to a multiple of 8; 0 = from mtu. */
	uint16_t max_segs;	/* 0 = the type's default (*_MAX_SEGS above) */
	uint16_t mtu;		/* 0 = no limit; else no output IP packet may exceed it
				 * (UDP_SEGMENT's EMSGSIZE rule; UFO's fragment size) */
	uint32_t frag_id;	/* UFO over IPv6: fragment header identification;
				 * 0 = chosen per datagram (frag_ids) */
	uint16_t csum_start;	/* SOFL_GSO_F_CSUM_AT only: frame offset where the
				 * summed bytes start (a virtio header's csum_start) */
	uint16_t csum_offset;	/* SOFL_GSO_F_CSUM_AT only: where the 16-bit result
				 * goes, from csum_start (virtio csum_offset) */
	struct sofl_gso_frag_ids *frag_ids;	/* IPv6 identifications for frag_id 0, or
				 * NULL: the library's generator */
};
/* csum_start/csum_offset sit in what was padding after frag_id on LP64 (the
 * pointer is 8-aligned at 16): the size (24) and every other field's offset
 * are those of the earlier layout there. */
_Static_assert(sizeof(void *) != 8 || sizeof(struct sofl_gso_params) == 24,
	       "sofl_gso_params: csum_start/csum_offset must fit the padding");

/* IPv6 fragment identifications for UFO: a keyed hash (SipHash-2-4 under a
 * 128-bit key) of the datagram's source and destination addresses and a
 * 64-bit counter, so identifications are unpredictable without the key,
 * differ between datagrams and are never 0 (RFC 7739; Linux draws a random
 * non-zero value per datagram).  Caller-owned; one per thread (the counter
 * is not atomic).  Fields private. */
struct sofl_gso_frag_ids {
	uint64_t k0, k1;
	uint64_t ctr;
};
#define SOFL_GSO_FRAG_KEY_LEN 16	/* bytes of a sofl_gso_frag_ids key */

/* One output segment. */
struct sofl_gso_seg {
	uint8_t *data;		/* COPY: the whole frame; ZEROCOPY: its headers (in out->buf) */
	uint32_t len;		/* bytes in the segment (frame length) */
	uint16_t hdr_len;	/* bytes of headers at data */
	uint16_t iovcnt;	/* ZEROCOPY: iovecs at iov (headers first); COPY: 0 */
	struct iovec *iov;	/* ZEROCOPY: into out->iov; COPY: NULL */
};

enum sofl_gso_mode {
	SOFL_GSO_ZEROCOPY = 0,	/* headers in buf, payload referenced from the input */
	SOFL_GSO_COPY     = 1,	/* each segment one contiguous frame in buf (fused copy+checksum) */
};

/* Caller memory for one call.  Segment i's bytes in buf start at
 * i * (stride from sofl_gso_need()). */
struct sofl_gso_out {
	enum sofl_gso_mode mode;
	struct sofl_gso_seg *seg;	/* segments out */
	size_t seg_cap;
	uint8_t *buf;			/* header scratch (ZEROCOPY) or frames (COPY) */
	size_t buf_cap;
	struct iovec *iov;		/* ZEROCOPY only */
	size_t iov_cap;
};

/* What a call needs; from sofl_gso_need(). */
struct sofl_gso_need {
	uint32_t nsegs;		/* segments that will be produced */
	uint32_t stride;	/* bytes of buf per segment (headers, or a whole frame) */
	size_t buf_bytes;	/* nsegs * stride */
	size_t iovs;		/* ZEROCOPY: iovecs needed (upper bound for iovec input) */
};

/* sofl_gso_need() :
 * Validates @gp against the parsed packet @p and says how many segments and
 * how much memory sofl_gso_segment() will need in @mode.  @in_iovcnt is the
 * iovcnt the input will be given as (0 = contiguous).
 * @return 0, SOFL_E_INVAL (NULL @gp, @p or @need), or the error
 * sofl_gso_segment() would return for the same arguments before writing
 * anything (see below; for UFO over IPv6 without an identification this
 * keys the library's generator, as sofl_gso_segment() would). */
SOFL_API int sofl_gso_need(const struct sofl_gso_params *gp, const struct sofl_pkt *p,
			   enum sofl_gso_mode mode, int in_iovcnt, struct sofl_gso_need *need);

/* sofl_gso_frag_ids_init() :
 * Keys *ids with @key (SOFL_GSO_FRAG_KEY_LEN bytes, e.g. for reproducible runs)
 * or, @key NULL, with 16 random bytes (getrandom(), else /dev/urandom: a
 * system call or a few, here and never per packet).  Any 16 bytes are a key,
 * all zero included.  The counter starts at 0.
 * @return 0, SOFL_E_INVAL (NULL ids, key with another length) or SOFL_E_NOTSUP
 *         (no randomness available: *ids unchanged). */
SOFL_API int sofl_gso_frag_ids_init(struct sofl_gso_frag_ids *ids, const void *key,
				   size_t key_len);

/* sofl_gso_frag_id_next() :
 * The next identification for a datagram from @src to @dst (16 bytes each,
 * as in the IPv6 header): never 0; consecutive calls differ (a repeat is as
 * likely as for random values).  Pure but for the counter; no system call. */
SOFL_API uint32_t sofl_gso_frag_id_next(struct sofl_gso_frag_ids *ids, const void *src,
					const void *dst);

/* sofl_gso_segment() :
 * Segments the super-packet @p (parsed by sofl_pkt_parse(), or by
 * sofl_pkt_parse_iov() for an iovec input) as @gp says, into @out.
 * Payload source: @in == NULL -> p->data (one contiguous frame); else the
 * iovec list @in/@in_cnt holding the whole frame from its first byte (the
 * headers, including the TCP/UDP header, are read from p->data; the payload
 * from @in).  Ethernet padding after the IP packet is not output.
 * @return the number of segments (>= 1) written to out->seg[0..n), or:
 *   SOFL_E_INVAL          NULL argument, bad mode/type (a tunnel type with
 *                        two tunnel bits or an inner type not TCPV4,
 *                        TCPV6 or UDP_L4), in_cnt < 0;
 *   SOFL_E_NOT_IP        not an IPv4/IPv6 packet (the parse did not reach L3);
 *   SOFL_E_FRAGMENT      the input is itself an IP fragment;
 *   SOFL_E_GSO_PROTO     TCP (UDP_L4) asked of a packet that is not TCP (UDP);
 *   SOFL_E_GSO_SIZE      gso_size 0 (TCP/UDP_L4, or UFO without mtu), a
 *                        segment (or the unsegmented packet) larger than mtu,
 *                        or a UFO unit smaller than 8 / than the L4 header;
 *   SOFL_E_GSO_TOO_MANY  more segments than max_segs;
 *   SOFL_E_GSO_DF        UFO on IPv4 with DF set and no IGNORE_DF;
 *   SOFL_E_GSO_HDR       the TCP/UDP header to cut at is malformed or runs
 *                        past the IP packet (the parse stopped at L3), or
 *                        (iovec input) the headers go past SOFL_PKT_IOV_HDR_MAX or
 *                        the iovecs hold fewer bytes than the IP packet;
 *   SOFL_E_GSO_TUNNEL     a tunnel type on a packet without that tunnel
 *                        (see Tunnels above);
 *   SOFL_E_GSO_TUNNEL_LEN a tunnel packet whose lengths disagree;
 *   SOFL_E_NOSPC          out->seg, out->buf or out->iov too small
 *                        (sofl_gso_need() says how much is needed);
 *   SOFL_E_NOTSUP         UFO over IPv6 with frag_id 0 and frag_ids NULL,
 *                        and the library's generator could not be keyed
 *                        (no random bytes: see UFO above).
 * On error nothing has been written to @out.  Never writes past
 * out->seg[seg_cap], out->buf[buf_cap], out->iov[iov_cap]. */
SOFL_API int sofl_gso_segment(const struct sofl_gso_params *gp, const struct sofl_pkt *p,
			      const struct iovec *in, int in_cnt, struct sofl_gso_out *out);

/* sofl_gso_segment_batch() :
 * Segments @n contiguous super-packets @p[0..n) with parameters @gp[0..n)
 * (one per packet, e.g. from each packet's virtio header), appending every
 * segment to @out in packet order — one array ready for one sendmmsg().
 * res[i] = the number of segments of packet i (its segments follow those of
 * packets 0..i-1), or its error: a packet that fails (any sofl_gso_segment()
 * error) produces nothing and the batch goes on; when the output is full,
 * res[i..n) = SOFL_E_NOSPC and the call stops (retry those with fresh memory).
 * @return the total number of segments written, or SOFL_E_INVAL (NULL
 *         arguments; nothing written). */
SOFL_API int sofl_gso_segment_batch(const struct sofl_gso_params *gp, const struct sofl_pkt *p,
				    size_t n, struct sofl_gso_out *out, int *res);

#ifdef __cplusplus
}
#endif
#endif
