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
 * Tunnels (one level, as Linux's GRO allows): VXLAN (RFC 7348) and Geneve
 * (RFC 8926) recognised by the outer UDP destination port from a port table
 * (struct sofl_pkt_config; defaults VXLAN 4789, Geneve 6081), and IP-in-IP
 * (IPv4 or IPv6 directly in IPv4 or IPv6: protocols 4 and 41).  A tunnel
 * packet is parsed through to its inner packet: see "Tunnels" below.
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
#define SOFL_LAYER_ENCAP     0x08	/* a tunnel parsed into: L3/L4 = the inner packet */
#define SOFL_LAYER_ENCAP_ERR 0x10	/* a tunnel recognised but not parsed into (encap_err) */

/* p.exthdr bits: IPv6 extension headers seen */
#define SOFL_EXT_HOP    0x01
#define SOFL_EXT_ROUTE  0x02
#define SOFL_EXT_DEST   0x04
#define SOFL_EXT_FRAG   0x08

/* Tunnels.
 *
 * When p.layers has SOFL_LAYER_ENCAP, the frame is an outer packet
 * carrying an inner one, and:
 *   - the L2 fields (ethertype, vlan_*, key.nvlan, key.vlan) describe the
 *     outer Ethernet header (the frame's own), as for any packet;
 *   - the L3, L4 and TCP fields, ipv, l4_proto, pay_off/pay_len and the rest
 *     of key (family, proto, flow_label, src, dst, sport, dport) describe the
 *     INNER packet, with offsets from the frame's first byte, so that every
 *     engine's rules run on the inner headers unchanged (Linux's flow
 *     dissector reports an IP-in-IP packet's inner addresses the same way);
 *     SOFL_LAYER_L3/L4 say how far the inner packet was parsed (an inner
 *     ARP frame has neither: its l3_off is where its network header
 *     starts, its other L3 and L4 fields 0);
 *   - the outer headers and the tunnel header are described by the
 *     outer_*, encap* and vni fields.
 * Layout, with the field that gives each offset:
 *   [outer Ethernet + VLANs][outer IP: outer_l3_off][outer UDP: outer_l4_off]
 *   [VXLAN/Geneve: encap_off, encap_len][inner Ethernet: inner_l2_off]
 *   [inner IP: l3_off][inner TCP/UDP: l4_off][payload: pay_off, pay_len]
 * IP-in-IP has neither outer UDP (outer_l4_off 0) nor tunnel header
 * (encap_off = l3_off, encap_len 0) nor inner Ethernet (inner_l2_off = l3_off).
 *
 * When p.layers has SOFL_LAYER_ENCAP_ERR, the frame was recognised as a
 * tunnel packet but not parsed into; every named field describes the outer
 * packet exactly as if no tunnel were configured, and encap, encap_err (and
 * encap_inner_err) say what and why.  Such a packet is valid (the parser
 * returns 0): engines pass it through with its reason.
 *
 * Without either bit, encap is SOFL_ENCAP_NONE and the other tunnel fields
 * are unspecified.  A tunnel inside the inner packet (a second level, by the
 * same config: UDP to a port of the table, or protocol 4/41 unless
 * SOFL_PKT_F_NO_IPIP) is not parsed into: the inner packet is parsed as a
 * plain one (its UDP or IP-in-IP header is its L4 / payload) and encap_flags
 * has SOFL_ENCAP_F_NESTED, so engines pass it through, as Linux's
 * encap_mark does.  An outer IP fragment is a fragment, never a tunnel
 * packet.  The inner packet must lie within the outer UDP payload (UDP
 * length) or the outer IP payload (IP-in-IP): an inner length past it is
 * SOFL_ENCAP_ERR_INNER.  The rules in full: docs/overlay-parse.md. */
enum sofl_encap {
	SOFL_ENCAP_NONE = 0,
	SOFL_ENCAP_VXLAN = 1,	/* UDP; 8-byte header; inner Ethernet */
	SOFL_ENCAP_GENEVE = 2,	/* UDP; 8 bytes + options; inner Ethernet (0x6558) or IP */
	SOFL_ENCAP_IPIP = 3,	/* IPv4/IPv6 in IPv4/IPv6 (protocol 4 or 41); no header */
};

/* p.encap_flags bits (SOFL_LAYER_ENCAP) */
#define SOFL_ENCAP_F_INNER_ETH 0x01	/* the inner packet starts with Ethernet (inner_l2_off) */
#define SOFL_ENCAP_F_UDP_CSUM  0x02	/* the outer UDP checksum field is not zero */
#define SOFL_ENCAP_F_NESTED    0x04	/* the inner packet carries a tunnel of its own */

/* p.encap_err (SOFL_LAYER_ENCAP_ERR): why a tunnel packet was not parsed into */
enum sofl_encap_err {
	SOFL_ENCAP_ERR_NONE = 0,
	SOFL_ENCAP_ERR_TRUNC,		/* tunnel header beyond the outer UDP payload */
	SOFL_ENCAP_ERR_VXLAN_FLAGS,	/* VXLAN: I flag clear, or a reserved bit or byte set */
	SOFL_ENCAP_ERR_GENEVE_VER,	/* Geneve: version not 0 */
	SOFL_ENCAP_ERR_GENEVE_OAM,	/* Geneve: O bit (a control packet) */
	SOFL_ENCAP_ERR_GENEVE_OPTLEN,	/* Geneve: options beyond the outer UDP payload */
	SOFL_ENCAP_ERR_GENEVE_PROTO,	/* Geneve: protocol type not 0x6558, 0x0800 or 0x86DD */
	SOFL_ENCAP_ERR_INNER_L2,	/* inner Ethernet header truncated */
	SOFL_ENCAP_ERR_INNER_VLAN,	/* inner Ethernet header with a VLAN tag */
	SOFL_ENCAP_ERR_INNER,		/* inner packet malformed: encap_inner_err is the
					   sofl_pkt_parse() error it got */
	SOFL_ENCAP_ERR__MAX
};

/* sofl_encap_hdr_parse() :
 * Checks a bare VXLAN or Geneve header: @h, @len bytes of an outer UDP
 * payload (what a UDP socket bound to the tunnel port receives), by the
 * same rules sofl_pkt_parse_cfg() applies to a whole frame (RFC 7348 §5,
 * RFC 8926 §3.4; Linux vxlan_rcv(), geneve_udp_encap_recv()): VXLAN flags
 * exactly the I flag with every reserved bit and byte zero; Geneve version
 * 0, no O bit, the options within @len, protocol type 0x6558, 0x0800 or
 * 0x86DD.  What it does not judge is left to the caller: the VNI (whose it
 * is), Geneve's C bit (the options a receiver knows), the inner packet.
 * @type   SOFL_ENCAP_VXLAN or SOFL_ENCAP_GENEVE
 * @out    on 0: the header's length (8 + Geneve options), VNI, protocol
 *         type (0x6558 for VXLAN) and Geneve's C bit; else unspecified
 * @return 0, a positive enum sofl_encap_err (TRUNC, VXLAN_FLAGS,
 *         GENEVE_VER, GENEVE_OAM, GENEVE_OPTLEN, GENEVE_PROTO: the first
 *         rule broken, in that order), or SOFL_E_INVAL (@h or @out NULL,
 *         @type neither).  No allocation; thread-safe. */
struct sofl_encap_hdr {
	uint32_t len;		/* header bytes: 8, or 8 + Geneve options */
	uint32_t vni;		/* 24-bit VNI */
	uint16_t proto;		/* inner protocol: 0x6558 Ethernet, 0x0800, 0x86DD */
	uint8_t  critical;	/* Geneve: the C bit (critical options present) */
	uint8_t  pad_;
};
SOFL_API int sofl_encap_hdr_parse(enum sofl_encap type, const void *h, size_t len,
				  struct sofl_encap_hdr *out);

/* The UDP tunnel port table and other parse options.  Sized config (the
 * size field first, sofl_pkt_config_init() for the defaults). */
#define SOFL_PKT_UDP_ENCAP_MAX 8
struct sofl_udp_encap {
	uint16_t port;		/* outer UDP destination port, host order, not 0 */
	uint8_t  type;		/* SOFL_ENCAP_VXLAN or SOFL_ENCAP_GENEVE */
	uint8_t  pad_;
};
#define SOFL_PKT_F_NO_IPIP 0x01	/* do not parse into IP-in-IP (protocols 4, 41) */
struct sofl_pkt_config {
	uint32_t size;		/* sizeof(struct sofl_pkt_config); set by config_init */
	uint32_t flags;		/* SOFL_PKT_F_* */
	uint32_t n_udp;		/* entries of udp[] in use, 0..SOFL_PKT_UDP_ENCAP_MAX */
	struct sofl_udp_encap udp[SOFL_PKT_UDP_ENCAP_MAX];
};

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

	/* Tunnel (see "Tunnels"): valid with SOFL_LAYER_ENCAP (all of them) or
	 * SOFL_LAYER_ENCAP_ERR (encap, encap_err, encap_inner_err) */
	uint8_t  encap;		/* enum sofl_encap */
	uint8_t  encap_flags;	/* SOFL_ENCAP_F_* */
	uint8_t  encap_err;	/* enum sofl_encap_err */
	uint8_t  outer_ipv;	/* 4 or 6 */
	uint16_t outer_l3_off;	/* outer IP header */
	uint16_t outer_l3_len;	/* its length (IPv4 IHL*4; IPv6 40 + extension headers) */
	uint16_t outer_l4_off;	/* outer UDP header; 0 for IP-in-IP */
	uint16_t encap_off;	/* VXLAN/Geneve header; IP-in-IP: = l3_off */
	uint16_t encap_len;	/* 8 (VXLAN), 8 + options (Geneve), 0 (IP-in-IP) */
	uint16_t inner_l2_off;	/* inner Ethernet header; = l3_off without one */
	int16_t  encap_inner_err; /* SOFL_ENCAP_ERR_INNER: the inner parse's SOFL_E_* */
	uint8_t  outer_proto;	/* outer IP's upper protocol: 17, 4 or 41 */
	uint8_t  pad2_;
	uint32_t outer_ip_end;	/* outer_l3_off + outer IP total length */
	uint32_t vni;		/* VXLAN/Geneve VNI (24 bits); 0 for IP-in-IP */
	uint8_t  reserved_[40];	/* future fields; unspecified */
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
 * overwritten; the tunnel fields as "Tunnels" says), with the default
 * tunnel options (sofl_pkt_config_init()): VXLAN on UDP port 4789, Geneve
 * on 6081 and IP-in-IP are parsed into.
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

/* sofl_pkt_config_init() : the defaults: VXLAN on 4789, Geneve on 6081,
 * IP-in-IP parsed into (what sofl_pkt_parse() uses).  NULL: nothing. */
SOFL_API void sofl_pkt_config_init(struct sofl_pkt_config *cfg);

/* sofl_pkt_parse_cfg() :
 * sofl_pkt_parse() with the tunnel options of @cfg (NULL: the defaults of
 * sofl_pkt_config_init()).  @cfg is read during the call only.  A config with
 * n_udp of 0 and SOFL_PKT_F_NO_IPIP parses no tunnels (the 0.4.0 behaviour).
 * @return as sofl_pkt_parse(), or SOFL_E_CFG_SIZE (cfg->size too small or
 *         unknown non-zero bytes past the known fields), SOFL_E_INVAL (n_udp
 *         above SOFL_PKT_UDP_ENCAP_MAX, a port 0, a type not VXLAN/GENEVE,
 *         unknown flags; the config is checked first).  A port given
 *         twice: its first entry counts.  Thread-safety: reentrant. */
SOFL_API int sofl_pkt_parse_cfg(struct sofl_pkt *p, const void *frame, size_t len,
				enum sofl_link link, const struct sofl_pkt_config *cfg);

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

/* sofl_pkt_parse_iov_cfg() : sofl_pkt_parse_iov() with the tunnel options
 * of @cfg (NULL: the defaults), as sofl_pkt_parse_cfg().  The headers through
 * the inner TCP/UDP header must lie within SOFL_PKT_IOV_HDR_MAX bytes (else
 * SOFL_E_GSO_HDR).  For a tunnel packet the length fields trimmed in the
 * copy and given back are the outer IP and UDP lengths and the inner IP
 * and UDP lengths (outer_ip_end, ip_end, pay_len real), each checked
 * against the real extent of what carries it.
 * @return as sofl_pkt_parse_iov(), or SOFL_E_CFG_SIZE / SOFL_E_INVAL for
 *         @cfg as sofl_pkt_parse_cfg(). */
SOFL_API int sofl_pkt_parse_iov_cfg(struct sofl_pkt *p, uint8_t *hdrbuf, const struct iovec *iov,
				    int cnt, enum sofl_link link, const struct sofl_pkt_config *cfg);

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
