/* Linux uapi constants for TUN/TAP and virtio-net newer than the build
 * host's headers (Debian 12's linux-libc-dev is 6.1): the one place the port
 * layer takes them from.  Values from include/uapi/linux/if_tun.h and
 * include/uapi/linux/virtio_net.h; each guarded, so newer headers win. */
#ifndef SOFL_PORT_TUN_UAPI_H
#define SOFL_PORT_TUN_UAPI_H

#include <linux/if_tun.h>
#include <linux/virtio_net.h>

/* TUNSETOFFLOAD bits */
#ifndef TUN_F_USO4
#define TUN_F_USO4 0x20			/* 6.2: USO over IPv4 */
#endif
#ifndef TUN_F_USO6
#define TUN_F_USO6 0x40			/* 6.2: USO over IPv6 */
#endif
#ifndef TUN_F_UDP_TUNNEL_GSO
#define TUN_F_UDP_TUNNEL_GSO 0x080	/* 6.17: GSO over a UDP tunnel; granted only
					   with a plain GSO bit (TSO4/TSO6/USO) */
#endif
#ifndef TUN_F_UDP_TUNNEL_GSO_CSUM
#define TUN_F_UDP_TUNNEL_GSO_CSUM 0x100	/* 6.17: ... with the outer UDP checksum */
#endif

/* virtio-net header (vnet.h has the library's names for the same values) */
#ifndef VIRTIO_NET_HDR_GSO_UDP_L4
#define VIRTIO_NET_HDR_GSO_UDP_L4 5
#endif
#ifndef VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV4
#define VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV4 0x20	/* 6.17: outer IPv4 */
#endif
#ifndef VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV6
#define VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV6 0x40	/* 6.17: outer IPv6 */
#endif
#ifndef VIRTIO_NET_HDR_GSO_UDP_TUNNEL
#define VIRTIO_NET_HDR_GSO_UDP_TUNNEL \
	(VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV4 | VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV6)
#endif
#ifndef VIRTIO_NET_HDR_F_UDP_TUNNEL_CSUM
#define VIRTIO_NET_HDR_F_UDP_TUNNEL_CSUM 8	/* 6.17: outer UDP checksum offload */
#endif
/* sizeof(struct virtio_net_hdr_v1_hash_tunnel): the TUNSETVNETHDRSZ from which
 * a TUN device takes UDP-tunnel GSO on write (tun_vnet_hdr_guest_features) */
#define SOFL_TUN_VNET_TNL_SIZE 24

#endif
