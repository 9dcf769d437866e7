/* virtio-net header: what the engines above gso (GRO, ports) share with
 * vnet.c without a public call. */
#ifndef SOFL_GSO_VNET_IMPL_H
#define SOFL_GSO_VNET_IMPL_H

#include <stdint.h>
#include "softoffload/gso.h"
#include "softoffload/vnet.h"

/* vnet_gso_wire() : the wire gso_type byte (vnet.h "gso_type values") of a
 * super-packet of segmentation type @t (enum sofl_gso_type, tunnel bits
 * included) whose outer IP version is @outer_ipv (tunnels only), as Linux's
 * virtio_net_hdr_tnl_from_skb() writes it: the inner type, and for a UDP
 * tunnel (SOFL_GSO_TUNNEL_UDP or _UDP_CSUM) the outer-family bit.  The enum's
 * tunnel bits never reach the wire.  IP-in-IP (SOFL_GSO_TUNNEL_IPIP) has no
 * virtio type: 0xff, which sofl_vnet_check() rejects whatever the options. */
static inline uint8_t
vnet_gso_wire(unsigned t, int outer_ipv)
{
	if (t & SOFL_GSO_TUNNEL_IPIP)
		return 0xff;
	if (t & (SOFL_GSO_TUNNEL_UDP | SOFL_GSO_TUNNEL_UDP_CSUM))
		return (uint8_t)(SOFL_GSO_INNER(t) | (outer_ipv == 6 ? SOFL_VNET_GSO_UDP_TUNNEL_IPV6 :
						       SOFL_VNET_GSO_UDP_TUNNEL_IPV4));
	return (uint8_t)SOFL_GSO_INNER(t);
}

/* vnet_tunnel_fill() : completes *v (plain fields already set, gso_type the
 * inner type) as the UDP-tunnel header of a super-packet: family bit,
 * UDP_TUNNEL_CSUM when @t has SOFL_GSO_TUNNEL_UDP_CSUM, the two offsets. */
static inline void
vnet_tunnel_fill(struct sofl_vnet_hdr *v, unsigned t, int outer_ipv, uint16_t outer_th,
		 uint16_t inner_nh)
{
	v->gso_type = (uint8_t)((v->gso_type & SOFL_GSO_ECN) | vnet_gso_wire(t, outer_ipv));
	if (t & SOFL_GSO_TUNNEL_UDP_CSUM)
		v->flags |= SOFL_VNET_HDR_F_UDP_TUNNEL_CSUM;
	v->outer_th_offset = outer_th;
	v->inner_nh_offset = inner_nh;
}

#endif
