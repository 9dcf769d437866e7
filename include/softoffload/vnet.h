/*
 * softoffload — virtio-net headers: the offload metadata of TUN/TAP
 * (IFF_VNET_HDR), AF_PACKET (PACKET_VNET_HDR) and vhost.
 *
 * struct sofl_vnet_hdr is the *decoded* header in host byte order.  The wire
 * form is 10 bytes (struct virtio_net_hdr) or 12 bytes (with num_buffers,
 * virtio 1.0 / mergeable rx buffers); its 16-bit fields are little-endian for
 * virtio 1.0 devices and host-endian for legacy TUN (selectable).
 *
 * Thread-safety: pure functions; reentrant.  No allocation.
 */
#ifndef SOFTOFFLOAD_VNET_H
#define SOFTOFFLOAD_VNET_H

#include <stddef.h>
#include <stdint.h>
#include "softoffload/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SOFL_VNET_F_NEEDS_CSUM   1	/* checksum from csum_start, stored at +csum_offset */
#define SOFL_VNET_F_DATA_VALID   2	/* rx: checksum already verified */
#define SOFL_VNET_F_RSC_INFO     4

#define SOFL_VNET_GSO_NONE   0
#define SOFL_VNET_GSO_TCPV4  1
#define SOFL_VNET_GSO_UDP    3	/* UFO: IP fragmentation */
#define SOFL_VNET_GSO_TCPV6  4
#define SOFL_VNET_GSO_UDP_L4 5	/* USO: UDP segmentation */
#define SOFL_VNET_GSO_ECN    0x80	/* flag: TCP with CWR set (ECN) */

#define SOFL_VNET_HDR_LEN     10	/* struct virtio_net_hdr */
#define SOFL_VNET_HDR_MRG_LEN 12	/* + num_buffers */

struct sofl_vnet_hdr {
	uint8_t  flags;		/* SOFL_VNET_F_* */
	uint8_t  gso_type;	/* SOFL_VNET_GSO_* (| SOFL_VNET_GSO_ECN) */
	uint16_t hdr_len;	/* Ethernet/IP/L4 header bytes (a hint; never trusted) */
	uint16_t gso_size;	/* payload bytes per segment */
	uint16_t csum_start;	/* offset from the frame start where checksumming starts */
	uint16_t csum_offset;	/* offset from csum_start of the 16-bit checksum field */
	uint16_t num_buffers;	/* 12-byte form only */
};

#ifdef __cplusplus
}
#endif
#endif
