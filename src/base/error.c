/* Error strings for enum sofl_err.  The switch is on the enum type, so
 * -Wswitch (-Wall -Werror) refuses a code of error.h without a case here;
 * tests/test_error.c checks that no two codes share a message. */
#include "softoffload/error.h"

SOFL_API const char *
sofl_strerror(int err)
{
	switch ((enum sofl_err)err) {
	case SOFL_OK:               return "success";
	case SOFL_E_INVAL:           return "invalid argument";
	case SOFL_E_NOSPC:           return "caller's buffer or array too small";
	case SOFL_E_NOMEM:           return "out of memory";
	case SOFL_E_NOTSUP:          return "not supported";
	case SOFL_E_TRUNC_L2:       return "frame shorter than its Ethernet/VLAN header";
	case SOFL_E_TRUNC_L3:       return "frame shorter than the IP header";
	case SOFL_E_IP_VERSION:     return "bad IP version";
	case SOFL_E_IPV4_IHL:       return "IPv4 header length (IHL) < 5";
	case SOFL_E_IPV4_HDR_TRUNC: return "IPv4 header with options runs past the frame";
	case SOFL_E_IPV4_TOTLEN_SHORT: return "IPv4 total length smaller than the header";
	case SOFL_E_IPV4_TOTLEN_LONG:  return "IPv4 total length beyond the frame";
	case SOFL_E_IPV6_PLEN_LONG: return "IPv6 payload length beyond the frame";
	case SOFL_E_IPV6_JUMBO:     return "IPv6 jumbogram (payload length 0) not supported";
	case SOFL_E_EXTHDR_TRUNC:   return "IPv6 extension header truncated";
	case SOFL_E_EXTHDR_CHAIN:   return "IPv6 extension header chain too long";
	case SOFL_E_TCP_TRUNC:      return "TCP header truncated";
	case SOFL_E_TCP_DOFF_SMALL: return "TCP data offset < 5";
	case SOFL_E_TCP_DOFF_LONG:  return "TCP data offset beyond the IP payload";
	case SOFL_E_UDP_TRUNC:      return "UDP header truncated";
	case SOFL_E_UDP_LEN:        return "bad UDP length";
	case SOFL_E_NOT_IP:         return "not an IP packet";
	case SOFL_E_NOT_TCPUDP:     return "not a TCP or UDP packet";
	case SOFL_E_FRAGMENT:       return "IP fragment";
	case SOFL_E_CSUM:           return "bad checksum";
	case SOFL_E_VNET_SHORT:     return "buffer shorter than the virtio-net header";
	case SOFL_E_VNET_GSO_TYPE:  return "virtio-net header: unknown gso_type";
	case SOFL_E_VNET_GSO_SIZE:  return "virtio-net header: bad gso_size";
	case SOFL_E_VNET_CSUM_START:return "virtio-net header: bad csum_start";
	case SOFL_E_VNET_CSUM_OFFSET:return "virtio-net header: bad csum_offset";
	case SOFL_E_VNET_NO_CSUM:   return "virtio-net header: GSO type requires NEEDS_CSUM";
	case SOFL_E_VNET_PROTO:     return "virtio-net header: gso_type does not match the packet";
	case SOFL_E_VNET_TOO_MANY:  return "virtio-net header: too many segments";
	case SOFL_E_VNET_ECN:       return "virtio-net header: ECN not allowed with this gso_type";
	case SOFL_E_VNET_FLAGS:     return "virtio-net header: unknown flags";
	case SOFL_E_VNET_L4_TRUNC:  return "virtio-net header: L4 header runs past the packet";
	case SOFL_E_VNET_TNL_FEATURE:return "virtio-net header: UDP-tunnel GSO not negotiated";
	case SOFL_E_VNET_TNL_CSUM:  return "virtio-net header: UDP-tunnel checksum not negotiated";
	case SOFL_E_VNET_TNL_FAMILY:return "virtio-net header: bad UDP-tunnel outer family";
	case SOFL_E_VNET_TNL_OFFSET:return "virtio-net header: bad UDP-tunnel offsets";
	case SOFL_E_VNET_DATA_VALID:return "virtio-net header: DATA_VALID with UDP-tunnel GSO";
	case SOFL_E_GSO_SIZE:       return "segmentation: bad segment size";
	case SOFL_E_GSO_TOO_MANY:   return "segmentation: too many segments";
	case SOFL_E_GSO_PROTO:      return "segmentation: type does not match the packet";
	case SOFL_E_GSO_HDR:        return "segmentation: headers too long";
	case SOFL_E_GSO_DF:         return "fragmentation needed but DF set";
	case SOFL_E_GSO_TUNNEL:     return "segmentation: tunnel type does not match the packet's encapsulation";
	case SOFL_E_GSO_TUNNEL_LEN: return "segmentation: tunnel lengths disagree (outer UDP length or inner IP length)";
	case SOFL_E_SYS:            return "system call failed (see errno)";
	case SOFL_E_PORT_KIND:      return "not supported by this kind of port";
	case SOFL_E_GRO_BATCH:      return "too many inputs in this cycle (max_batch): end the poll, then release";
	case SOFL_E_GRO_HELD:       return "too many packets held (max_held): end the poll or flush, then release";
	case SOFL_E_CFG_SIZE:       return "config: size field too small, or a field unknown to this library version set";
	case SOFL_E_CFG_LINK:       return "config: link must be Ethernet or raw IP";
	case SOFL_E_CFG_POLICY:     return "config: unknown policy";
	case SOFL_E_CFG_TABLE:      return "config: unknown table";
	case SOFL_E_CFG_MAX_FLOWS:  return "config: max_flows above 2^24";
	case SOFL_E_CFG_MAX_SIZE:   return "config: max_size must be 0 or 128..65535";
	case SOFL_E_CFG_MAX_BATCH:  return "config: max_batch above 2^24";
	case SOFL_E_CFG_MAX_HELD:   return "config: max_held above 2^26";
	case SOFL_E_CFG_MAX_SEGS:   return "config: max_segs above 65535";
	case SOFL_E_CFG_RX_MODE:    return "config: rx_mode must be SEGMENT, SUPER or CONTIG";
	case SOFL_E_CFG_ROOM:       return "config: headroom/tailroom need rx_mode SEGMENT";
	case SOFL_E_CFG_NAME:       return "config: interface name missing or too long";
	case SOFL_E_CFG_BATCH:      return "config: batch, ring or buffer size out of range";
	case SOFL_E_CFG_ADDR:       return "config: address missing, too long, or of another family";
	case SOFL_E_PORT_HELD:      return "port: every batch it may lend is held";
	case SOFL_E_PORT_KEEP_OFF:  return "port: keeping batches not enabled (sofl_port_set_keep)";
	case SOFL_E_PORT_KEEP_BUSY: return "port: batches still held";
	case SOFL_E_TUN_MTU:        return "port: encapsulation leaves an inner MTU below 68";
	case SOFL_E_CFG_FLUSH_TIMEOUT: return "config: flush timeout above 1 s (SOFL_PORT_FLUSH_TIMEOUT_MAX)";
	case SOFL_E_CFG_RULES:      return "config: flow rules missing, or a rule's family or prefix invalid";
	}
	return "unknown error";
}
