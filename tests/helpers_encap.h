/* Test helpers: tunnel packets (VXLAN, Geneve, IP-in-IP) built from an
 * outer t_spec and an inner packet (helpers.h's t_build). */
#ifndef T_HELPERS_ENCAP_H
#define T_HELPERS_ENCAP_H

#include <stddef.h>
#include <stdint.h>
#include "helpers.h"

/* The tunnel header: VXLAN (RFC 7348 §5) or Geneve (RFC 8926 §3.4) */
struct t_encap {
	int type;		/* SOFL_ENCAP_VXLAN, _GENEVE or _IPIP */
	uint32_t vni;
	uint8_t vx_flags;	/* VXLAN byte 0 (0x08) */
	uint8_t vx_rsvd[4];	/* VXLAN bytes 1, 2, 3, 7 (0 when valid) */
	uint8_t gn_ver;		/* Geneve version (0) */
	uint8_t gn_flags;	/* Geneve byte 1: O 0x80, C 0x40, reserved */
	uint16_t gn_proto;	/* Geneve protocol type (0x6558, 0x0800, 0x86DD) */
	const uint8_t *gn_opts;	/* Geneve options, multiple of 4 bytes */
	size_t gn_opts_len;
};

/* Fill *e with a valid header of @type (VXLAN: I flag; Geneve: version 0,
 * protocol 0x6558), VNI @vni. */
void t_encap_init(struct t_encap *e, int type, uint32_t vni);

/* Writes the VXLAN/Geneve header of *e to @buf; @return its length. */
size_t t_encap_hdr(uint8_t *buf, const struct t_encap *e);

/* Builds the outer packet of @outer (its proto: 17 for VXLAN/Geneve, with
 * its dport the tunnel port; 4 or 41 for IP-in-IP) carrying the tunnel
 * header of *e (none for IP-in-IP) and the @n bytes of @inner as its
 * payload; the outer checksums as @outer says (UDP: computed over the real
 * payload).  @return the frame's length. */
size_t t_build_encap(uint8_t *buf, size_t cap, const struct t_spec *outer, const struct t_encap *e,
		     const uint8_t *inner, size_t n);

#endif
