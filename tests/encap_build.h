/* Tunnel frames for the tests of the engines above the parser (RSS,
 * checksums): an outer Ethernet + IPv4/IPv6 (+ UDP + VXLAN/Geneve) wrapped
 * around an inner packet made by t_build(), with every outer length and
 * checksum computed here by a plain RFC 1071 sum (te_sum()), not by the
 * library.  The layout is returned so that tests know the offsets without
 * asking the parser.  Prefix te_. */
#ifndef SOFL_TEST_ENCAP_BUILD_H
#define SOFL_TEST_ENCAP_BUILD_H

#include "helpers.h"

struct te_spec {
	int encap;		/* SOFL_ENCAP_VXLAN, _GENEVE or _IPIP */
	int outer_ipv;		/* 4 or 6 */
	uint8_t osrc[16], odst[16];	/* defaults 198.19.0.1 -> .2, 2001:2:0:1::1 -> ::2 */
	uint16_t sport, dport;	/* outer UDP; dport default 4789 / 6081 */
	int udp_csum;		/* 1: fill the outer UDP checksum; 0 (default): 0 */
	uint32_t vni;		/* default 42 */
	size_t geneve_opt_len;	/* Geneve options bytes (multiple of 4, filled 0x5a) */
	uint16_t geneve_proto;	/* default 0x6558 (inner Ethernet) */
	int outer_nvlan;	/* VLAN tags on the outer Ethernet (VID 100, 200) */
};

struct te_layout {
	size_t outer_l3, outer_l4, encap, inner_l2, inner_l3, len;
};

/* Defaults for a tunnel of @encap over IPv@outer_ipv. */
void te_spec_init(struct te_spec *e, int encap, int outer_ipv);
/* The frame of @e around the inner packet of @in (whose link is set here:
 * Ethernet for VXLAN and Geneve 0x6558, raw IP otherwise) into buf[0..cap).
 * @return its length; *lay filled (may be NULL). */
size_t te_build(uint8_t *buf, size_t cap, const struct te_spec *e, const struct t_spec *in,
		struct te_layout *lay);
/* RFC 1071 one's-complement sum of buf[0..len) added to @sum, folded to 16
 * bits, the plain byte-pair loop of the RFC (the independent reference). */
uint16_t te_sum(uint16_t sum, const uint8_t *buf, size_t len);
/* The UDP/TCP checksum over a pseudo-header: ~sum(pseudo + seg), with the
 * segment's own checksum field taken as it is (zero it first to compute). */
uint16_t te_l4_csum(int ipv, const uint8_t *src, const uint8_t *dst, uint8_t proto,
		    const uint8_t *seg, size_t len);
/* The parse result the contract (pkt.h "Tunnels") gives for a frame made by
 * te_build(): the outer and inner packets parsed apart (without tunnels) and
 * put together from the known layout. */
void te_pkt(struct sofl_pkt *p, const uint8_t *buf, const struct te_spec *e,
	    const struct te_layout *lay);
/* A parse of @buf with no tunnel parsed (what the parser gave before tunnels). */
int te_parse_plain(struct sofl_pkt *p, const uint8_t *buf, size_t len);

#endif
