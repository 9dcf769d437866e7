/*
 * softoffload — virtio-net headers: the offload metadata of TUN/TAP
 * (IFF_VNET_HDR), AF_PACKET (PACKET_VNET_HDR) and vhost.
 *
 * HowTo
 *   ```c
 *   // From a TAP (IFF_VNET_HDR, TUNSETVNETHDRSZ 12, TUNSETVNETLE): one read()
 *   // gives the header, then the frame.  Segments it as the kernel would.
 *   int
 *   from_tap(const uint8_t *buf, size_t len, struct sofl_gso_out *out)
 *   {
 *       struct sofl_vnet_hdr h;
 *       struct sofl_gso_params gp;
 *       struct sofl_pkt p;
 *       int n, r;
 *
 *       n = sofl_vnet_decode(&h, buf, len, SOFL_VNET_HDR_MRG_LEN, 0);
 *       if (n < 0)
 *           return n;                   // shorter than the header
 *       sofl_pkt_parse(&p, buf + n, len - (size_t)n, SOFL_LINK_ETH);
 *       if ((r = sofl_vnet_to_gso(&h, &p, 0, &gp)) < 0)
 *           return r;                   // the kernel would refuse it: sofl_strerror(r)
 *       return sofl_gso_segment(&gp, &p, NULL, 0, out);   // r == 0: passed through
 *   }
 *
 *   // A 24-byte header (TUNSETVNETHDRSZ 24, Linux 6.17+) may carry UDP-tunnel
 *   // GSO: decode SOFL_VNET_HDR_TNL_LEN bytes and give sofl_vnet_to_gso()
 *   // SOFL_VNET_F_TUNNEL | SOFL_VNET_F_TUNNEL_CSUM (what TUN grants such writes).
 *
 *   // To a TAP: a GRO super-packet whose checksum field holds the
 *   // pseudo-header sum (gro.h's default outputs, sofl_csum_pkt_pseudo()).
 *   int
 *   to_tap(int fd, const struct sofl_pkt *p, uint16_t gso_size)
 *   {
 *       struct sofl_vnet_hdr h;
 *       uint8_t hdr[SOFL_VNET_HDR_MRG_LEN];
 *       struct iovec v[2];
 *       int err;
 *
 *       if ((err = sofl_vnet_from_pkt(&h, p, gso_size, SOFL_VNET_F_MK_CSUM)) < 0 ||
 *           (err = sofl_vnet_encode(hdr, sizeof(hdr), &h, sizeof(hdr), 0)) < 0)
 *           return err;
 *       v[0] = (struct iovec){ .iov_base = hdr, .iov_len = sizeof(hdr) };
 *       v[1] = (struct iovec){ .iov_base = (void *)p->data, .iov_len = p->len };
 *       return writev(fd, v, 2) < 0 ? -1 : 0;
 *   }
 *   ```
 * struct sofl_vnet_hdr is the *decoded* header in host byte order.  The wire
 * form is 10 bytes (struct virtio_net_hdr), 12 bytes (with num_buffers,
 * virtio 1.0 / mergeable rx buffers) or 24 bytes (then a hash report and the
 * UDP-tunnel offsets, Linux 6.17+); its 16-bit fields are little-endian for
 * virtio 1.0 devices (the default, with no option: TUNSETVNETLE, the default
 * of modern vhost) and host-endian for legacy TUN (SOFL_VNET_F_NATIVE, 10-
 * and 12-byte forms only: the 24-byte form exists only in virtio 1.0 and is
 * always little-endian).
 *
 * Validation (sofl_vnet_check) applies the rules of Linux
 * __virtio_net_hdr_to_skb() (include/linux/virtio_net.h, 6.18) in the
 * kernel's order and reports each with its own code:
 *   rule 1  unknown gso_type (ECN alone included;
 *           a UDP-tunnel bit: rules T1-T8 below)    SOFL_E_VNET_GSO_TYPE
 *   rule 2  GSO with gso_size 0                     SOFL_E_VNET_GSO_SIZE
 *   rule 3  NEEDS_CSUM: csum_start + L4 header
 *           (20 TCP, 8 UDP, 0 non-GSO) past the end SOFL_E_VNET_L4_TRUNC
 *           csum_start + csum_offset + 2 past end   SOFL_E_VNET_CSUM_OFFSET
 *           csum_start >= 65535, or < 20 (< 40 for
 *           TCPV6) bytes from the frame start       SOFL_E_VNET_CSUM_START
 *   rule 4  GSO without NEEDS_CSUM: ethertype (or
 *           IP version for raw IP) not allowed for
 *           the gso_type, packet not parseable up to
 *           a TCP/UDP header, or the L4 protocol is
 *           not the one gso_type implies            SOFL_E_VNET_PROTO
 *           ... its L4 header runs past the end     SOFL_E_VNET_L4_TRUNC
 *   rule 5  UDP_L4 without NEEDS_CSUM               SOFL_E_VNET_NO_CSUM
 *           UDP_L4 with csum_offset != 6            SOFL_E_VNET_CSUM_OFFSET
 *           UDP_L4 payload > gso_size * 128         SOFL_E_VNET_TOO_MANY
 *           UDP_L4 with the ECN bit                 SOFL_E_VNET_ECN
 *   rule 6  TCPV4/6 + NEEDS_CSUM, csum_offset != 16 SOFL_E_VNET_CSUM_OFFSET
 *   rule 7  gso_size 0xFFFF (GSO_BY_FRAGS)          SOFL_E_VNET_GSO_SIZE
 *   extra   (SOFL_VNET_F_STRICT only) flag bits other
 *           than NEEDS_CSUM, DATA_VALID, RSC_INFO
 *           (and UDP_TUNNEL_CSUM with
 *           SOFL_VNET_F_TUNNEL)                     SOFL_E_VNET_FLAGS
 * Before them, the checksum flags as the virtio-net driver checks them
 * (virtio_net_handle_csum_offload(), 6.17+):
 *   rule C  DATA_VALID on a UDP-tunnel header       SOFL_E_VNET_DATA_VALID
 *           DATA_VALID + UDP_TUNNEL_CSUM, no tunnel
 *           bits, without SOFL_VNET_F_TUNNEL_CSUM   SOFL_E_VNET_TNL_CSUM
 * A UDP-tunnel header (gso_type has SOFL_VNET_GSO_UDP_TUNNEL_IPV4 or _IPV6)
 * is checked as virtio_net_hdr_tnl_to_skb() does, in its order:
 *   rule T1 tunnel bits without SOFL_VNET_F_TUNNEL  SOFL_E_VNET_TNL_FEATURE
 *   rule T2 both outer-family bits                  SOFL_E_VNET_TNL_FAMILY
 *   rule T3 inner type (gso_type without ECN and
 *           tunnel bits) NONE or UFO                SOFL_E_VNET_GSO_TYPE
 *   rule T4 no NEEDS_CSUM                           SOFL_E_VNET_NO_CSUM
 *   rule T5 outer_th_offset < 14 + 20 (IPv4 bit) or
 *           14 + 40 (IPv6 bit) -- 14 even on a raw-IP
 *           TUN, as in Linux --, inner_nh_offset <
 *           outer_th_offset + 8, or csum_start <
 *           inner_nh_offset + 20 (+ 40 for TCPV6)   SOFL_E_VNET_TNL_OFFSET
 *   rule T6 rules 1-7 above on the header with the
 *           tunnel bits removed (csum_start is the
 *           inner L4 header)                        their codes
 *   rule T7 UDP_L4 whose inner IP version nibble
 *           (the byte at inner_nh_offset) is 6, and
 *           csum_start < inner_nh_offset + 40       SOFL_E_VNET_TNL_OFFSET
 *   rule T8 UDP_TUNNEL_CSUM without
 *           SOFL_VNET_F_TUNNEL_CSUM                 SOFL_E_VNET_TNL_CSUM
 * "Past the end" is against the frame as given (the kernel's pskb_may_pull
 * on the whole packet).  The kernel does not look at unknown flag bits;
 * neither do we unless asked.  hdr_len is never trusted: every length is
 * recomputed from the packet by sofl_pkt_parse() (virtio_net_hdr_tnl_to_skb()
 * does not read it either; TUN and AF_PACKET size their linear copy by it and
 * refuse one beyond the frame, which is not checked here).  Rule 4 uses the layers the kernel's flow dissector would see: on a
 * VXLAN/Geneve parse (pkt.h "Tunnels") the outer UDP header, on an IP-in-IP
 * parse the inner packet (the dissector follows IP-in-IP).
 * Feature options: a TUN device (tun_get_user(), 6.17+) grants both tunnel
 * features to every write whose header is 24 bytes (TUNSETVNETHDRSZ >= 24);
 * a virtio device grants what was negotiated; TUN_F_UDP_TUNNEL_GSO(_CSUM)
 * only says what the kernel may send back.
 *
 * sofl_vnet_to_gso() additionally applies what Linux checks later, at
 * segmentation time (tcp_gso_segment / __udp_gso_segment /
 * skb_udp_tunnel_segment): for GSO the checksum must start at the parsed
 * (inner) L4 header (SOFL_E_VNET_CSUM_START), and the packet must parse
 * cleanly as IP + TCP/UDP of the type the header names (SOFL_E_VNET_PROTO).
 * A UDP-tunnel header needs a VXLAN/Geneve parse (SOFL_LAYER_ENCAP, not
 * nested; else SOFL_E_VNET_PROTO) whose outer IP version is the header's
 * family bit (SOFL_E_VNET_TNL_FAMILY; Linux uses the bit only for rule T5,
 * we refuse a header that names the wrong family) and whose outer_l4_off and
 * l3_off are the header's outer_th_offset and inner_nh_offset
 * (SOFL_E_VNET_TNL_OFFSET).  A plain GSO header on a tunnel parse is
 * SOFL_E_VNET_PROTO: Linux segments by the outer protocol (an IP-in-IP
 * packet needs SKB_GSO_IPXIP4/6, which virtio cannot express); to cut the
 * outer UDP datagram of a VXLAN packet as plain USO, parse it without
 * tunnels (sofl_pkt_parse_cfg(), an empty port table).
 *
 * Thread-safety: pure functions; reentrant.  No allocation.
 */
#ifndef SOFTOFFLOAD_VNET_H
#define SOFTOFFLOAD_VNET_H

#include <stddef.h>
#include <stdint.h>
#include "softoffload/error.h"
#include "softoffload/pkt.h"
#include "softoffload/gso.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The header's own flag bits (sofl_vnet_hdr.flags; Linux VIRTIO_NET_HDR_F_*).
 * Not to be confused with the call options SOFL_VNET_F_* below. */
#define SOFL_VNET_HDR_F_NEEDS_CSUM   1	/* checksum from csum_start, stored at +csum_offset */
#define SOFL_VNET_HDR_F_DATA_VALID   2	/* rx: checksum already verified */
#define SOFL_VNET_HDR_F_RSC_INFO     4
#define SOFL_VNET_HDR_F_UDP_TUNNEL_CSUM 8 /* UDP-tunnel GSO: the outer UDP checksum is
					   filled per segment (needs SOFL_VNET_F_TUNNEL_CSUM) */

/* gso_type values: the wire byte.  Its low bits are enum sofl_gso_type's
 * plain types (gso.h: TCPV4, UFO, TCPV6, UDP_L4), SOFL_GSO_ECN may be ORed
 * in, and a UDP-tunnel header ORs in exactly one of the two outer-family
 * bits below (Linux VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV4/_IPV6).  These wire
 * bits are NOT enum sofl_gso_type's own tunnel bits (SOFL_GSO_TUNNEL_*, whose
 * values overlap them): sofl_vnet_to_gso() and sofl_vnet_from_pkt()
 * translate between the two. */
#define SOFL_VNET_GSO_UDP_TUNNEL_IPV4 0x20	/* outer header IPv4 */
#define SOFL_VNET_GSO_UDP_TUNNEL_IPV6 0x40	/* outer header IPv6 */
#define SOFL_VNET_GSO_UDP_TUNNEL      0x60	/* either (both set is invalid) */

/* Wire sizes (the @hdr_size of decode/encode) */
#define SOFL_VNET_HDR_LEN      10	/* struct virtio_net_hdr */
#define SOFL_VNET_HDR_MRG_LEN  12	/* + num_buffers (virtio_net_hdr_mrg_rxbuf / _v1) */
#define SOFL_VNET_HDR_TNL_LEN  24	/* + hash report (8 bytes, not kept) + outer_th_offset,
					   inner_nh_offset (virtio_net_hdr_v1_hash_tunnel, 6.17+) */

/* The UDP_L4 datagram limit of rule 5 is SOFL_GSO_UDP_MAX_SEGS (gso.h). */
#define SOFL_VNET_GSO_BY_FRAGS 0xFFFF

/* The decoded header.  Fields a form does not carry are 0 after decode.
 * 0.4.0 grew this struct from 12 to 16 bytes (the 24-byte form's offsets).
 * The hash report of the 24-byte form (hash_value at 12, hash_report at 16,
 * padding at 18) is not kept: decode skips it, encode writes zeros, as Linux's
 * virtio_net_hdr_tnl_from_skb() does (TUN does not report hashes). */
struct sofl_vnet_hdr {
	uint8_t  flags;		/* SOFL_VNET_HDR_F_* */
	uint8_t  gso_type;	/* the wire byte: see "gso_type values" above */
	uint16_t hdr_len;	/* header bytes (a hint; never trusted): Ethernet/IP/L4,
				   for a UDP-tunnel header up to the end of the inner L4 header */
	uint16_t gso_size;	/* payload bytes per segment */
	uint16_t csum_start;	/* offset from the frame start where checksumming starts
				   (UDP-tunnel: the inner L4 header) */
	uint16_t csum_offset;	/* offset from csum_start of the 16-bit checksum field */
	uint16_t num_buffers;	/* 12- and 24-byte forms */
	uint16_t outer_th_offset; /* 24-byte form: outer UDP header, from the frame start */
	uint16_t inner_nh_offset; /* 24-byte form: inner IP header, from the frame start */
};

/* Call options (the @opts arguments below; unknown bits are ignored).  No
 * option (0) is the default: wire fields little-endian (virtio 1.0),
 * unknown header flag bits allowed, nothing added by sofl_vnet_from_pkt(),
 * no UDP-tunnel GSO negotiated. */
#define SOFL_VNET_F_NATIVE   0x1	/* wire fields in host order (legacy TUN, virtio 0.9);
					   10- and 12-byte forms only */
#define SOFL_VNET_F_STRICT   0x2	/* check: also reject unknown header flag bits */
#define SOFL_VNET_F_MK_CSUM  0x4	/* from_pkt: set NEEDS_CSUM with csum_start/offset */
#define SOFL_VNET_F_MK_VALID 0x8	/* from_pkt: set DATA_VALID */
#define SOFL_VNET_F_MK_ECN   0x10	/* from_pkt: TCP: add the ECN bit to gso_type */
#define SOFL_VNET_F_TUNNEL   0x20	/* UDP-tunnel GSO negotiated (VIRTIO_NET_F_*_UDP_TUNNEL_GSO,
					   TUN_F_UDP_TUNNEL_GSO; a write to TUN: a 24-byte header) */
#define SOFL_VNET_F_TUNNEL_CSUM 0x40	/* ... with outer checksum (_UDP_TUNNEL_GSO_CSUM,
					   TUN_F_UDP_TUNNEL_GSO_CSUM; a write to TUN: as above) */

/* sofl_vnet_decode() :
 * Decodes the @hdr_size-byte (10, 12 or 24) wire header at the start of
 * @buf (@len bytes available) into *h, in host order.  Fields the form does
 * not carry (num_buffers of the 10-byte form, the tunnel offsets of the 10-
 * and 12-byte forms) are set to 0; bytes 12..19 of the 24-byte form (the
 * hash report) are not read.
 * @return @hdr_size (the bytes to skip to reach the frame), or
 *         SOFL_E_VNET_SHORT (len < hdr_size), SOFL_E_INVAL (NULL, bad hdr_size,
 *         SOFL_VNET_F_NATIVE with the 24-byte form).
 * Only reads buf[0..hdr_size). */
SOFL_API int sofl_vnet_decode(struct sofl_vnet_hdr *h, const void *buf, size_t len,
			      size_t hdr_size, unsigned opts);

/* sofl_vnet_encode() :
 * Writes *h as a @hdr_size-byte (10, 12 or 24) wire header into @buf
 * (@cap bytes); the fields the form does not carry are left out, the hash
 * report of the 24-byte form (bytes 12..19) is written as zeros.
 * @return @hdr_size, or SOFL_E_NOSPC (cap < hdr_size), SOFL_E_INVAL (as decode).
 * Writes exactly buf[0..hdr_size); no validation of the contents (use
 * sofl_vnet_check() on what you send). */
SOFL_API int sofl_vnet_encode(void *buf, size_t cap, const struct sofl_vnet_hdr *h,
			      size_t hdr_size, unsigned opts);

/* sofl_vnet_check() :
 * Would Linux accept header @h for the frame that @p describes?  @p is the
 * result of sofl_pkt_parse() on the frame that follows the header, even
 * when that call returned an error (p->data and p->len must be set, which
 * sofl_pkt_parse always does for non-NULL arguments): the NEEDS_CSUM rules
 * only need the byte count, as in the kernel, and rule 4 uses whatever
 * layers were parsed.  @opts: SOFL_VNET_F_STRICT, and the negotiated
 * features SOFL_VNET_F_TUNNEL, SOFL_VNET_F_TUNNEL_CSUM.
 * @return 1: valid GSO packet (payload longer than gso_size);
 *         0: valid, not GSO (GSO_NONE, or a GSO header on a packet that fits
 *            one segment, which Linux silently treats as non-GSO);
 *         < 0: the rule that fails, as listed at the top of this file, or
 *            SOFL_E_INVAL (NULL argument). */
SOFL_API int sofl_vnet_check(const struct sofl_vnet_hdr *h, const struct sofl_pkt *p,
			     unsigned opts);

/* sofl_vnet_to_gso() :
 * Validates like sofl_vnet_check() (plus the segmentation-time rules above)
 * and translates the header into segmentation parameters for gso.h:
 *   TCPV4, TCPV6 and UDP_L4 keep their type (the ECN bit dropped),
 *   a UDP-tunnel header -> its inner type | SOFL_GSO_TUNNEL_UDP_CSUM (with
 *   UDP_TUNNEL_CSUM) or SOFL_GSO_TUNNEL_UDP (without; Linux
 *   SKB_GSO_UDP_TUNNEL_CSUM / SKB_GSO_UDP_TUNNEL), the outer family being
 *   the parse's,
 *   UFO -> SOFL_GSO_UFO with SOFL_GSO_F_IGNORE_DF (Linux UFO
 *   fragments regardless of DF), anything valid but not GSO -> SOFL_GSO_NONE;
 *   a header with gso_type NONE and NEEDS_CSUM -> SOFL_GSO_NONE with
 *   SOFL_GSO_F_CSUM_AT and gp->csum_start, gp->csum_offset copied from
 *   the header: the segmenter completes that one checksum, wherever it
 *   is (an inner or an outer one of a tunnel packet, any protocol), and
 *   nothing else, as Linux skb_checksum_help() (gso.h "Checksum at").
 * gp->gso_size = h->gso_size; the ECN bit keeps Linux 6.18 behaviour (CWR on
 * the first segment only, i.e. no SOFL_GSO_F_ACCECN); other fields 0.  So
 * an IPv6 UFO datagram has frag_id 0, and sofl_gso_segment() gives it an
 * identification of its own, as Linux does (ipv6_proxy_select_ident() from
 * udp6_ufo_fragment()); set gp->frag_ids for a generator of the caller's.
 * The header length used later is p->pay_off, recomputed by the parser;
 * h->hdr_len is ignored.  *gp is written only on success.
 * @return 1 (segment), 0 (pass through), a negative SOFL_E_VNET_* code
 *         (sofl_vnet_check()'s, or SOFL_E_VNET_PROTO / _CSUM_START for a
 *         header that does not fit the parsed packet), or SOFL_E_INVAL
 *         (NULL argument). */
SOFL_API int sofl_vnet_to_gso(const struct sofl_vnet_hdr *h, const struct sofl_pkt *p,
			      unsigned opts, struct sofl_gso_params *gp);

/* sofl_vnet_from_pkt() :
 * Builds the header that describes super-packet @p (a GRO output, or any
 * packet) for a receiver that will segment it by @gso_size payload bytes:
 * gso_type from the packet (IPv4/IPv6 TCP -> TCPV4/TCPV6, UDP -> UDP_L4)
 * when gso_size > 0 and the payload is longer than gso_size, else GSO_NONE
 * with gso_size 0; hdr_len = p->pay_off (headers only: for a tunnel packet
 * through the inner L4 header, as Linux's __virtio_net_set_tnl_hdrlen());
 * a VXLAN/Geneve packet (SOFL_LAYER_ENCAP) that needs GSO gets the UDP-tunnel
 * header of virtio_net_hdr_tnl_from_skb(): the inner type | the outer family
 * bit (p->outer_ipv), outer_th_offset = p->outer_l4_off, inner_nh_offset =
 * p->l3_off, UDP_TUNNEL_CSUM when the outer UDP checksum is not zero
 * (SOFL_ENCAP_F_UDP_CSUM: the field must then hold the outer pseudo-header
 * sum, as GRO leaves it), hash fields 0; it needs SOFL_VNET_F_TUNNEL (else
 * SOFL_E_VNET_TNL_FEATURE), SOFL_VNET_F_TUNNEL_CSUM for a non-zero outer
 * checksum (else SOFL_E_VNET_TNL_CSUM) and SOFL_VNET_F_MK_CSUM (else
 * SOFL_E_VNET_NO_CSUM); an IP-in-IP packet that needs GSO has no virtio type
 * (SOFL_E_VNET_GSO_TYPE), nor has a nested one (SOFL_E_VNET_PROTO);
 * SOFL_VNET_F_MK_CSUM -> NEEDS_CSUM with csum_start = p->l4_off, csum_offset
 * 16 (TCP) or 6 (UDP) — the packet's checksum field must then hold the
 * pseudo-header sum over the full L4 length (Linux convention, not DPDK's
 * length-0 seed); SOFL_VNET_F_MK_VALID -> DATA_VALID; SOFL_VNET_F_MK_ECN ->
 * ECN bit (TCP GSO only).  The result is checked with sofl_vnet_check(), so
 * a header this returns is one Linux accepts (with the features of @opts).
 * @return 0, SOFL_E_INVAL (NULL), SOFL_E_NOT_IP / SOFL_E_NOT_TCPUDP /
 *         SOFL_E_FRAGMENT (GSO or MK_CSUM asked of a packet that cannot
 *         carry it), or the sofl_vnet_check() error. *h written on success. */
SOFL_API int sofl_vnet_from_pkt(struct sofl_vnet_hdr *h, const struct sofl_pkt *p,
				uint16_t gso_size, unsigned opts);

#ifdef __cplusplus
}
#endif
#endif
