/*
 * softoffload — error codes shared by every module.
 *
 * Every call that can fail returns an int: 0 (or a non-negative count) on
 * success, or one of the negative SOFL_E* codes below.  sofl_strerror() turns
 * a code into a one-line English message.  Codes are stable: new ones are
 * appended, existing values never change.
 *
 * Thread-safety: everything here is pure; call from any thread.
 */
#ifndef SOFTOFFLOAD_ERROR_H
#define SOFTOFFLOAD_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SOFL_API __attribute__((visibility("default")))
#else
#define SOFL_API
#endif

enum sofl_err {
	SOFL_OK = 0,

	/* generic */
	SOFL_E_INVAL           = -1,  /* invalid argument (NULL, bad size, bad option) */
	SOFL_E_NOSPC           = -2,  /* caller-provided buffer or array too small */
	SOFL_E_NOMEM           = -3,  /* allocation failed (creation calls only) */
	SOFL_E_NOTSUP          = -4,  /* feature not supported (CPU, protocol, mode) */

	/* packet parsing (pkt.h) */
	SOFL_E_TRUNC_L2       = -10, /* frame shorter than its Ethernet/VLAN header */
	SOFL_E_TRUNC_L3       = -11, /* frame shorter than the fixed IP header */
	SOFL_E_IP_VERSION     = -12, /* IP version field does not match the ethertype / is not 4 or 6 */
	SOFL_E_IPV4_IHL       = -13, /* IPv4 IHL < 5 */
	SOFL_E_IPV4_HDR_TRUNC = -14, /* IPv4 header (with options) longer than the frame */
	SOFL_E_IPV4_TOTLEN_SHORT = -15, /* IPv4 total length smaller than its header */
	SOFL_E_IPV4_TOTLEN_LONG  = -16, /* IPv4 total length beyond the end of the frame */
	SOFL_E_IPV6_PLEN_LONG = -17, /* IPv6 payload length beyond the end of the frame */
	SOFL_E_IPV6_JUMBO     = -18, /* IPv6 payload length 0 (jumbogram) is not supported */
	SOFL_E_EXTHDR_TRUNC   = -19, /* IPv6 extension header runs past the IP payload */
	SOFL_E_EXTHDR_CHAIN   = -20, /* IPv6 extension header chain too long (> SOFL_PKT_EXTHDR_MAX) */
	SOFL_E_TCP_TRUNC      = -21, /* TCP fixed header beyond the IP payload */
	SOFL_E_TCP_DOFF_SMALL = -22, /* TCP data offset < 5 */
	SOFL_E_TCP_DOFF_LONG  = -23, /* TCP header (data offset) beyond the IP payload */
	SOFL_E_UDP_TRUNC      = -24, /* UDP header beyond the IP payload */
	SOFL_E_UDP_LEN        = -25, /* UDP length < 8 or beyond the IP payload */
	SOFL_E_NOT_IP         = -26, /* not an IPv4/IPv6 packet (where IP is required) */
	SOFL_E_NOT_TCPUDP     = -27, /* not TCP or UDP (where one is required) */
	SOFL_E_FRAGMENT       = -28, /* IP fragment (where a whole datagram is required) */
	SOFL_E_CSUM           = -29, /* checksum does not verify */

	/* virtio-net header (vnet.h) — one code per rejection rule of the kernel */
	SOFL_E_VNET_SHORT      = -40, /* buffer shorter than the virtio-net header */
	SOFL_E_VNET_GSO_TYPE   = -41, /* unknown gso_type */
	SOFL_E_VNET_GSO_SIZE   = -42, /* GSO with gso_size 0, or GSO_BY_FRAGS (0xFFFF) */
	SOFL_E_VNET_CSUM_START = -43, /* csum_start outside the packet or before the L4 header */
	SOFL_E_VNET_CSUM_OFFSET= -44, /* csum_offset wrong for the protocol or beyond the packet */
	SOFL_E_VNET_NO_CSUM    = -45, /* GSO type requires NEEDS_CSUM (UDP_L4) */
	SOFL_E_VNET_PROTO      = -46, /* gso_type does not match the packet's L3/L4 protocol */
	SOFL_E_VNET_TOO_MANY   = -47, /* more segments than allowed (UDP_L4: 128) */
	SOFL_E_VNET_ECN        = -48, /* ECN bit with a gso_type that does not allow it */
	SOFL_E_VNET_FLAGS      = -49, /* unknown flag bits */
	SOFL_E_VNET_L4_TRUNC   = -50, /* TCP/UDP header the gso_type/csum_start implies runs past the packet */
	SOFL_E_VNET_TNL_FEATURE= -51, /* UDP-tunnel gso_type without the negotiated tunnel feature */
	SOFL_E_VNET_TNL_CSUM   = -52, /* UDP_TUNNEL_CSUM flag without the negotiated tunnel checksum feature */
	SOFL_E_VNET_TNL_FAMILY = -53, /* both UDP-tunnel family bits, or not the packet's outer IP version */
	SOFL_E_VNET_TNL_OFFSET = -54, /* tunnel offsets out of order, or not the packet's outer UDP / inner IP */
	SOFL_E_VNET_DATA_VALID = -55, /* DATA_VALID on a UDP-tunnel GSO header */

	/* segmentation (gso.h) */
	SOFL_E_GSO_SIZE        = -60, /* gso_size 0 or too large for the output */
	SOFL_E_GSO_TOO_MANY    = -61, /* more segments than the limit */
	SOFL_E_GSO_PROTO       = -62, /* requested segmentation does not match the packet */
	SOFL_E_GSO_HDR         = -63, /* headers longer than the packet / than the output allows */
	SOFL_E_GSO_DF          = -64, /* fragmentation needed but DF set */
	SOFL_E_GSO_TUNNEL      = -65, /* tunnel type does not match the packet's encapsulation */
	SOFL_E_GSO_TUNNEL_LEN  = -66, /* tunnel lengths disagree (outer UDP length, inner IP end) */

	/* ports (port.h) */
	SOFL_E_SYS             = -70, /* a system call failed: errno says why */
	SOFL_E_PORT_KIND       = -71, /* the call does not apply to this kind of port */

	/* coalescing (gro.h) */
	SOFL_E_GRO_BATCH       = -80, /* more inputs in one cycle than cfg.max_batch */
	SOFL_E_GRO_HELD        = -81, /* held + new inputs would pass max_held + max_batch */

	/* configuration structs (gro.h, port.h): one code per wrong field;
	 * SOFL_E_CFG_SIZE for every sized config */
	SOFL_E_CFG_SIZE        = -90, /* size field too small, or unknown non-zero bytes past the known fields */
	SOFL_E_CFG_LINK        = -91, /* link is not SOFL_LINK_ETH or SOFL_LINK_RAW */
	SOFL_E_CFG_POLICY      = -92, /* unknown policy */
	SOFL_E_CFG_TABLE       = -93, /* unknown table */
	SOFL_E_CFG_MAX_FLOWS   = -94, /* max_flows above 2^24 */
	SOFL_E_CFG_MAX_SIZE    = -95, /* max_size not 0 or 128 .. 65535 */
	SOFL_E_CFG_MAX_BATCH   = -96, /* max_batch above 2^24 */
	SOFL_E_CFG_MAX_HELD    = -97, /* max_held above 2^26 */
	SOFL_E_CFG_MAX_SEGS    = -98, /* max_segs above 65535 */
	SOFL_E_CFG_RULES       = -99, /* n_rules without rules, or a rule with a bad family or prefix */
	SOFL_E_CFG_RX_MODE     = -100, /* port: rx_mode not SOFL_PORT_RX_SEGMENT, _SUPER or _CONTIG */
	SOFL_E_CFG_ROOM        = -101, /* port: headroom/tailroom with rx_mode SUPER */
	SOFL_E_CFG_NAME        = -102, /* port: interface name missing (AF_PACKET) or too long */
	SOFL_E_CFG_BATCH       = -103, /* port: a batch, ring or buffer size out of its range */
	SOFL_E_CFG_ADDR        = -104, /* port: address missing, too long, or of another family */
	SOFL_E_PORT_HELD       = -115, /* port: every batch it may lend is held (sofl_port_keep) */
	SOFL_E_PORT_KEEP_OFF   = -116, /* port: sofl_port_keep() before sofl_port_set_keep() */
	SOFL_E_PORT_KEEP_BUSY  = -117, /* port: sofl_port_set_keep() while batches are held */
	SOFL_E_TUN_MTU         = -118, /* port: inner MTU below 68 (sofl_tun_inner_mtu) */
	SOFL_E_CFG_FLUSH_TIMEOUT = -125, /* port: flush timeout above SOFL_PORT_FLUSH_TIMEOUT_MAX */
};

/* How much a library message matters (the @level of a sofl_log_fn). */
enum sofl_log_level {
	SOFL_LOG_ERROR = 0,	/* something failed that the caller was not told about */
	SOFL_LOG_WARN  = 1,	/* e.g. an offload the kernel refused, given up (a port fallback) */
	SOFL_LOG_INFO  = 2,
	SOFL_LOG_DEBUG = 3,
};

/* A program's log callback: @msg is one line without a newline, valid
 * during the call only; @arg is what sofl_set_log() was given. */
typedef void (*sofl_log_fn)(void *arg, enum sofl_log_level level, const char *msg);

/* sofl_set_log() :
 * The library is quiet: it never prints.  The few things it would tell (a
 * port giving up an offload at run time, once per port and kind, unless
 * the port's config says quiet) go to @fn, with @arg, once a program sets
 * one; NULL (the default) discards them.  Process-wide, as libbpf_set_print().
 * Thread-safety: may be called from any thread at any time; @fn is called
 * from the thread that logs (a port's owner thread), possibly from several
 * at once, so it must be thread-safe itself when ports run on several
 * threads.  A call already under way on another thread may still use the
 * previous @fn and @arg after sofl_set_log() returns.  @fn may call
 * sofl_set_log(). */
SOFL_API void sofl_set_log(sofl_log_fn fn, void *arg);

/* sofl_strerror() :
 * @return a static, NUL-terminated English description of @err (a SOFL_E*
 * code, 0, or any other int — unknown values give "unknown error").
 * Never NULL; the string must not be freed. */
SOFL_API const char *sofl_strerror(int err);

#ifdef __cplusplus
}
#endif
#endif
