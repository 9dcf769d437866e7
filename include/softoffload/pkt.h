/*
 * softoffload — packet parsing, done once and shared by every engine.
 *
 * HowTo
 *   ```c
 *   // A frame's flow, or why it is malformed.
 *   void
 *   show(const void *frame, size_t len)
 *   {
 *       struct sofl_pkt p;
 *       int err = sofl_pkt_parse(&p, frame, len, SOFL_LINK_ETH);
 *
 *       if (err < 0)                    // malformed; the layers parsed before
 *           printf("%s (layers %#x)\n", sofl_strerror(err), p.layers);  // are valid
 *       else if (p.layers & SOFL_LAYER_L4)
 *           printf("IPv%u proto %u ports %u -> %u, %u payload bytes at %u\n", p.ipv,
 *               p.l4_proto, p.key.sport, p.key.dport, p.pay_len, p.pay_off);
 *   }
 *   ```
 *   p.l3_off, p.l4_off, p.pay_off/p.pay_len, p.key ... describe the packet.
 *
 * What is parsed: Ethernet II with up to two VLAN tags (802.1Q 0x8100,
 * 802.1ad 0x88A8), or raw IP (TUN, DLT_RAW: the version nibble picks v4/v6);
 * IPv4 with options; IPv6 with up to SOFL_PKT_EXTHDR_MAX extension headers
 * (hop-by-hop, routing, destination options, fragment); TCP with its options
 * located (MSS, window scale, SACK-permitted, SACK, timestamps); UDP.
 * Everything else (ARP, ICMP, ESP, ...) parses fine with the layers known.
 *
 * Lengths come from the IP header: Ethernet padding after the IP packet is
 * excluded from every length (ip_end marks its start).  Fragments are
 * recognised; their L4 header is not parsed (pay_* = the IP payload).
 *
 * Guarantees: never reads frame[len] or beyond; never writes the frame; no
 * allocation.  Thread-safety: reentrant.  The result points into @frame and
 * is valid as long as the frame is.
 */
#ifndef SOFTOFFLOAD_PKT_H
#define SOFTOFFLOAD_PKT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include "softoffload/error.h"

#ifdef __cplusplus
extern "C" {
#endif

enum sofl_link {
	SOFL_LINK_ETH = 0,	/* Ethernet II (DLT_EN10MB, TAP, AF_PACKET) */
	SOFL_LINK_RAW = 1,	/* raw IPv4/IPv6 (DLT_RAW, TUN without PI) */
};

#define SOFL_PKT_VLAN_MAX   2
#define SOFL_PKT_EXTHDR_MAX 8
#define SOFL_PKT_IOV_HDR_MAX 256	/* headers of an iovec input must lie within this
				   (sofl_pkt_parse_iov(), gso.h's iovec input) */

/* p.layers bits */
#define SOFL_LAYER_L2  0x01	/* Ethernet header (+ VLANs) parsed */
#define SOFL_LAYER_L3  0x02	/* IPv4/IPv6 header parsed */
#define SOFL_LAYER_L4  0x04	/* TCP or UDP header parsed */

/* p.exthdr bits: IPv6 extension headers seen */
#define SOFL_EXT_HOP    0x01
#define SOFL_EXT_ROUTE  0x02
#define SOFL_EXT_DEST   0x04
#define SOFL_EXT_FRAG   0x08

/* The flow key: what identifies a flow for GRO and RSS. */
struct sofl_flow_key {
	uint8_t  family;	/* 4, 6, or 0 when not IP */
	uint8_t  proto;		/* upper-layer protocol (6 TCP, 17 UDP, ...) */
	uint8_t  nvlan;		/* VLAN tags present */
	uint8_t  pad_;
	uint16_t vlan[SOFL_PKT_VLAN_MAX]; /* VLAN IDs (12 bits), outer first */
	uint32_t flow_label;	/* IPv6 flow label (20 bits), 0 for IPv4 */
	uint8_t  src[16];	/* IPv4: first 4 bytes; network byte order */
	uint8_t  dst[16];
	uint16_t sport, dport;	/* host order; 0 when no TCP/UDP header */
};

/* The parser's result, caller-allocated (on the stack, or arrays of them for
 * the batch calls).  Because callers allocate it and index arrays of it, its
 * size is part of the ABI: SOFL_PKT_SIZE bytes for this SOVERSION.  It grows
 * without an ABI break by taking new fields (a tunnel's inner headers, say)
 * out of reserved_; the parser writes every named field, and what it leaves
 * in reserved_ is unspecified, so nothing may be read from it.  The library
 * never reads it either.  A program that uses a field added later must
 * check sofl_version() first: an older library of the same SONAME leaves
 * those bytes unspecified. */
#define SOFL_PKT_SIZE 192
struct sofl_pkt {
	const uint8_t *data;	/* the frame (not owned) */
	uint32_t len;		/* bytes available in data */
	uint8_t  link;		/* enum sofl_link */
	uint8_t  layers;	/* SOFL_LAYER_* */
	uint8_t  ipv;		/* 4, 6, or 0 (not IP) */
	uint8_t  l4_proto;	/* upper-layer protocol after extension headers */

	/* L2 */
	uint16_t ethertype;	/* innermost ethertype (host order); 0 for raw IP */
	uint16_t vlan_tci[SOFL_PKT_VLAN_MAX]; /* full TCI (PCP, DEI, VID), outer first */
	uint16_t vlan_tpid[SOFL_PKT_VLAN_MAX];

	/* L3 */
	uint16_t l3_off;	/* offset of the IP header (= L2 header length) */
	uint16_t l3_len;	/* IPv4: IHL*4; IPv6: 40 + extension headers */
	uint32_t ip_end;	/* l3_off + IP total length: end of the IP packet */
	uint8_t  exthdr;	/* SOFL_EXT_* seen (IPv6) */
	uint8_t  n_exthdr;	/* number of IPv6 extension headers */
	uint8_t  is_frag;	/* 1: fragment (IPv4 MF/offset, IPv6 fragment header) */
	uint8_t  frag_first;	/* 1: the first fragment (offset 0) */
	uint16_t frag_off_hdr;	/* IPv6: offset of the fragment header; 0 if none */
	uint16_t ip_hl_opts;	/* IPv4 options bytes (l3_len - 20); 0 for IPv6 */

	/* L4 */
	uint16_t l4_off;	/* offset of the TCP/UDP header (or of the IP payload) */
	uint16_t l4_len;	/* TCP: doff*4; UDP: 8; else 0 */
	uint32_t pay_off;	/* start of the L4 payload (or IP payload if no L4) */
	uint32_t pay_len;	/* its length, up to ip_end */

	/* TCP */
	uint8_t  tcp_flags;	/* byte 13: CWR ECE URG ACK PSH RST SYN FIN */
	uint8_t  tcp_opt_bad;	/* options malformed (length runs past header) */
	uint16_t opt_mss;	/* offsets (from frame start) of options; 0 = absent */
	uint16_t opt_ws;
	uint16_t opt_sackok;
	uint16_t opt_sack;
	uint16_t opt_ts;	/* the kind byte of the 10-byte timestamp option */
	uint32_t tcp_seq, tcp_ack; /* host order */

	struct sofl_flow_key key;
	uint8_t  reserved_[68];	/* future fields; unspecified */
};

/* TCP flag bits (byte 13 of the TCP header) */
#define SOFL_TCP_FIN 0x01
#define SOFL_TCP_SYN 0x02
#define SOFL_TCP_RST 0x04
#define SOFL_TCP_PSH 0x08
#define SOFL_TCP_ACK 0x10
#define SOFL_TCP_URG 0x20
#define SOFL_TCP_ECE 0x40
#define SOFL_TCP_CWR 0x80

/* sofl_pkt_parse() :
 * Parses @len bytes at @frame as @link into *p (every named field
 * overwritten).
 * @return 0 on success (including non-IP and non-TCP/UDP packets: check
 *         p->layers / p->ipv / p->l4_proto), or a negative SOFL_E_* parse
 *         error naming the first malformation found; the layers parsed before
 *         it are valid in *p (p->layers says which).
 * Errors: SOFL_E_INVAL (NULL p or frame with len > 0, len > UINT32_MAX),
 *         SOFL_E_TRUNC_L2, SOFL_E_TRUNC_L3, SOFL_E_IP_VERSION, SOFL_E_IPV4_IHL,
 *         SOFL_E_IPV4_HDR_TRUNC, SOFL_E_IPV4_TOTLEN_SHORT, SOFL_E_IPV4_TOTLEN_LONG,
 *         SOFL_E_IPV6_PLEN_LONG, SOFL_E_IPV6_JUMBO, SOFL_E_EXTHDR_TRUNC,
 *         SOFL_E_EXTHDR_CHAIN, SOFL_E_TCP_TRUNC, SOFL_E_TCP_DOFF_SMALL,
 *         SOFL_E_TCP_DOFF_LONG, SOFL_E_UDP_TRUNC, SOFL_E_UDP_LEN. */
SOFL_API int sofl_pkt_parse(struct sofl_pkt *p, const void *frame, size_t len, enum sofl_link link);

/* sofl_pkt_parse_iov() :
 * Parses a super-packet given as an iovec list (@iov/@cnt, whole frame from
 * its first byte): its first SOFL_PKT_IOV_HDR_MAX bytes (or fewer, if the frame
 * is shorter) are gathered into @hdrbuf (caller's, SOFL_PKT_IOV_HDR_MAX bytes) and
 * parsed by sofl_pkt_parse() with the IP and UDP length fields of that copy
 * trimmed to it; then p's lengths (ip_end, pay_len) are set back to the
 * packet's real ones and checked against the total iovec length, as the
 * parser checks them for a contiguous frame.  p->data = hdrbuf, p->len = the
 * bytes gathered.  The headers through TCP/UDP must lie within
 * SOFL_PKT_IOV_HDR_MAX bytes.  The result is meant for sofl_gso_segment(...,
 * iov, cnt, ...) (gso.h), which reads the headers from p->data and the
 * payload from the iovecs.  Guarantees as for sofl_pkt_parse(), but @hdrbuf
 * is written (the iovecs are only read); reentrant; no allocation.
 * @return 0, a sofl_pkt_parse() error, SOFL_E_GSO_HDR (headers too long; the code
 *         sofl_gso_segment() gives the same fault),
 *         SOFL_E_INVAL.  After an error found past the gathered bytes' IP
 *         length, p->layers keeps at most SOFL_LAYER_L2 (lengths were trimmed:
 *         nothing beyond L2 is trustworthy), so sofl_gso_segment() refuses it. */
SOFL_API int sofl_pkt_parse_iov(struct sofl_pkt *p, uint8_t *hdrbuf, const struct iovec *iov,
				int cnt, enum sofl_link link);

/* sofl_pkt_l3() / sofl_pkt_l4() : the IP / TCP-UDP header in the frame, or
 * NULL when that layer was not parsed (p->layers). */
static inline const uint8_t *sofl_pkt_l3(const struct sofl_pkt *p)
{ return (p->layers & SOFL_LAYER_L3) ? p->data + p->l3_off : (const uint8_t *)0; }
static inline const uint8_t *sofl_pkt_l4(const struct sofl_pkt *p)
{ return (p->layers & SOFL_LAYER_L4) ? p->data + p->l4_off : (const uint8_t *)0; }

#ifdef __cplusplus
}
#endif
#endif
