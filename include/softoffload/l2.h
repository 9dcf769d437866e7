/*
 * softoffload — the L2 <-> L3 adapter: Ethernet frames to IP packets and
 * back, for a program that puts an Ethernet port (AF_PACKET, TAP) next to an
 * L3 one (TUN), as `softoffload relay tun:... afpacket:...` does.
 *
 * A TUN has no link layer: its packets start with the IP header, and it
 * neither answers ARP nor neighbour discovery.  The adapter stands in for
 * the missing link layer of the TUN side (the "L3 side"), facing one
 * Ethernet segment (the "Ethernet side"):
 *   - sofl_l2_eth_to_ip(): a frame from the Ethernet side loses its 14-byte
 *     Ethernet header in place (the iovec is stepped past it; nothing is
 *     copied), and a virtio header (SOFL_PORT_PKT_F_VNET) is moved with it:
 *     csum_start and hdr_len are reduced by 14.  An ARP request (RFC 826)
 *     or an IPv6 neighbour solicitation (RFC 4861) for one of the L3 side's
 *     addresses is answered instead: the reply (ARP reply or neighbour
 *     advertisement with the L3 side's MAC address) is written for the
 *     caller to send back on the Ethernet side.  Every other frame that is
 *     not IPv4 or IPv6 is dropped and counted by reason.  The source MAC of
 *     the frames passed on is remembered as the peer's.
 *   - sofl_l2_ip_to_eth(): a packet from the L3 side gets an Ethernet
 *     header (to the peer, from the L3 side's MAC, the type from the IP
 *     version) written into the head area the port read it with
 *     (struct sofl_tun_config .headroom >= SOFL_L2_ETH_HLEN), and a virtio
 *     header's csum_start and hdr_len grow by 14.
 *
 * HowTo (AF_PACKET <-> TUN)
 *   ```c
 *   #include <string.h>
 *   #include <softoffload/l2.h>
 *
 *   static void
 *   send_back(void *ctx, const uint8_t *frame, size_t len)
 *   {
 *       struct iovec v = { (void *)frame, len };
 *       struct sofl_port_pkt pk = { .iov = &v, .iovcnt = 1, .len = (uint32_t)len };
 *
 *       sofl_port_send(ctx, &pk, 1);          // the AF_PACKET port
 *   }
 *
 *   // One batch each way.  @eth: sofl_afpacket_open(); @tun: sofl_tun_open()
 *   // with .headroom = SOFL_L2_ETH_HLEN and rx_mode SEGMENT.
 *   int
 *   one_turn(struct sofl_l2 *l2, struct sofl_port *eth, struct sofl_port *tun)
 *   {
 *       struct sofl_port_pkt *pk;
 *       int n;
 *
 *       if ((n = sofl_port_recv(eth, &pk)) > 0 &&
 *           (n = sofl_l2_eth_to_ip_batch(l2, pk, (size_t)n, send_back, eth)) > 0)
 *           sofl_port_send(tun, pk, (size_t)n);
 *       if ((n = sofl_port_recv(tun, &pk)) > 0 &&
 *           (n = sofl_l2_ip_to_eth_batch(l2, pk, (size_t)n)) > 0)
 *           sofl_port_send(eth, pk, (size_t)n);
 *       return n < 0 ? n : 0;
 *   }
 *
 *   // The adapter for a TUN holding 198.18.7.2, answering as 02:53:4f:46:4c:01.
 *   int
 *   make_adapter(struct sofl_l2 **out)
 *   {
 *       static const uint8_t mac[6] = { 0x02, 0x53, 0x4f, 0x46, 0x4c, 0x01 };
 *       static const uint8_t v4[4] = { 198, 18, 7, 2 };
 *       struct sofl_l2_config c;
 *
 *       sofl_l2_config_init(&c);
 *       memcpy(c.mac, mac, sizeof(mac));
 *       memcpy(c.ipv4[0], v4, sizeof(v4));
 *       c.n_ipv4 = 1;
 *       return sofl_l2_create(&c, out);       // *out NULL on error
 *   }
 *   ```
 *
 * What is checked (the rules of Linux's own receivers, so that the adapter
 * answers what the kernel would answer for an Ethernet device):
 *   - ARP (net/ipv4/arp.c arp_rcv, arp_process): Ethernet hardware type
 *     (1), IPv4 protocol type (0x0800), address lengths 6 and 4, the
 *     28-byte body present; only requests (opcode 1) for an address of the
 *     L3 side are answered.  ARP replies and other opcodes are dropped (the
 *     L3 side keeps no ARP cache).
 *   - Neighbour solicitations (net/ipv6/ndisc.c ndisc_rcv, ndisc_recv_ns;
 *     RFC 4861 7.1.1): ICMPv6 type 135 right after the IPv6 header, hop
 *     limit 255, code 0, ICMPv6 length (the IPv6 payload length) at least
 *     24 and within the frame, a valid ICMPv6 checksum (not checked when the
 *     virtio header says NEEDS_CSUM or DATA_VALID), a target that is not
 *     multicast, options of non-zero length that end inside the message
 *     (a source link-layer address option of 8 bytes), and for duplicate
 *     address detection (unspecified source) a solicited-node multicast
 *     destination and no source link-layer option.  A valid solicitation for another address is passed on as an
 *     IP packet (the L3 side's stack may know it); an invalid one is
 *     dropped (the kernel would drop it too).
 *   - Advertisements (ndisc_send_na()): from the target address, hop limit
 *     255, one target link-layer address option, the ICMPv6 checksum
 *     complete; for a solicitation from an address, Solicited and Override
 *     set, sent to its source (MAC and IP); for duplicate address
 *     detection, Override only, sent to all-nodes (ff02::1,
 *     33:33:00:00:00:01).  Linux leaves out the option and Override when
 *     the solicitation was unicast (ndisc_recv_ns(): inc); the adapter
 *     always gives both, as RFC 4861 7.2.4 allows.  ARP replies are the
 *     42-byte frames arp_send() makes (no padding).
 * ARP and solicitation bodies are read from the frame's first iovec only
 * (the ports give received frames in one piece); nothing is read past the
 * iovec, .len, or the IPv6 payload length.
 *
 * Errors: calls return SOFL_E_* codes (error.h) for bad arguments and
 * configurations; a packet that cannot be converted is never an error of
 * the call: it gets the verdict SOFL_L2_DROP and one count in the drop
 * counters by reason (enum sofl_l2_drop).
 * Thread-safety: an adapter is single-threaded: every call on one adapter
 * (sofl_l2_get_stats() included) from one thread at a time.  Distinct
 * adapters are independent.
 * Memory: sofl_l2_create() allocates the adapter (one block); nothing else
 * allocates, makes a system call or keeps a pointer to the caller's
 * memory.  Packets are modified in place (iovec base and length, .len,
 * .vnet, the head area's bytes); replies go to caller-owned memory.
 */
#ifndef SOFTOFFLOAD_L2_H
#define SOFTOFFLOAD_L2_H

#include <stddef.h>
#include <stdint.h>
#include "softoffload/error.h"
#include "softoffload/port.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SOFL_L2_MAC_LEN   6	/* bytes of an Ethernet (MAC) address */
#define SOFL_L2_ETH_HLEN  14	/* bytes of the Ethernet header stripped / added */
#define SOFL_L2_ADDRS_MAX 16	/* addresses of each family the L3 side may own */
#define SOFL_L2_REPLY_MAX 128	/* bytes of the largest reply (an NA is 86) */

/* What to do with a packet after sofl_l2_eth_to_ip() / sofl_l2_ip_to_eth() */
enum sofl_l2_verdict {
	SOFL_L2_FORWARD = 0,	/* converted in place: hand it to the other side */
	SOFL_L2_REPLY = 1,	/* consumed; the reply is to be sent back on the
				 * Ethernet side (sofl_l2_eth_to_ip() only) */
	SOFL_L2_DROP = 2,	/* consumed; counted by reason (enum sofl_l2_drop) */
};

/* Why a packet was dropped (struct sofl_l2_stats .eth_drop / .ip_drop) */
enum sofl_l2_drop {
	SOFL_L2_DROP_SHORT = 0,		/* shorter than the Ethernet header, or the header
					 * not whole in the first iovec (Ethernet side) */
	SOFL_L2_DROP_NOT_IP,		/* ethertype neither IPv4, IPv6 nor ARP (VLAN-tagged
					 * frames included) */
	SOFL_L2_DROP_ARP_MALFORMED,	/* ARP body short, or not Ethernet/IPv4 */
	SOFL_L2_DROP_ARP_NOT_REQUEST,	/* ARP reply or other opcode */
	SOFL_L2_DROP_ARP_NOT_MINE,	/* ARP request for an address not the L3 side's */
	SOFL_L2_DROP_NS_MALFORMED,	/* neighbour solicitation failing RFC 4861 7.1.1 */
	SOFL_L2_DROP_NS_CSUM,		/* neighbour solicitation with a bad ICMPv6 checksum */
	SOFL_L2_DROP_VNET,		/* NEEDS_CSUM with csum_start inside the Ethernet
					 * header, or past 65535 once moved */
	SOFL_L2_DROP_NO_PEER,		/* L3 side: no peer MAC learned or set yet */
	SOFL_L2_DROP_NO_ROOM,		/* L3 side: no head area of SOFL_L2_ETH_HLEN bytes,
					 * or no packet bytes after it */
	SOFL_L2_DROP_IP_VERSION,	/* L3 side: IP version neither 4 nor 6;
					 * Ethernet side: IP version not the
					 * EtherType's (4 for IPv4, 6 for IPv6) */
	SOFL_L2_DROP_RUNT,		/* Ethernet side: IPv4/IPv6 EtherType but fewer
					 * bytes after the Ethernet header than the
					 * fixed IP header (20 / 40): a packet no L3
					 * device takes (a TUN refuses an empty one) */
	SOFL_L2_DROP__MAX = 16		/* room to grow; names for unused slots are "?" */
};

/* Counters of one adapter (sofl_l2_get_stats).  Grows at its end only. */
struct sofl_l2_stats {
	uint64_t eth_in;		/* frames given to sofl_l2_eth_to_ip(_batch) */
	uint64_t ip_out;		/* of them, passed on as IP packets (FORWARD) */
	uint64_t arp_replies;		/* ARP requests answered (REPLY) */
	uint64_t nd_adverts;		/* neighbour solicitations answered (REPLY) */
	uint64_t ip_in;			/* packets given to sofl_l2_ip_to_eth(_batch) */
	uint64_t eth_out;		/* of them, given an Ethernet header (FORWARD) */
	uint64_t peer_changes;		/* peer MAC learned, or changed, from a frame */
	uint64_t eth_drop[SOFL_L2_DROP__MAX];	/* Ethernet side's frames, by reason */
	uint64_t ip_drop[SOFL_L2_DROP__MAX];	/* L3 side's packets, by reason */
};

struct sofl_l2;

/* sofl_l2_miss_fn :
 * Called by sofl_l2_eth_to_ip(_batch), in the caller's thread, when an ARP
 * request (@ip_version 4, @addr 4 bytes) or a valid neighbour solicitation
 * (6, 16 bytes) asks for an address that is not in the adapter's set.  It
 * may replace the set (sofl_l2_set_addrs() on @l2 is allowed here; nothing
 * else on @l2) and returns nonzero to have the set searched once more, 0
 * to let the request go unanswered.  For a program whose L3 side gets its
 * addresses later (softoffload relay re-reads the TUN's with getifaddrs(),
 * at most once a second).  @addr is valid during the call only. */
typedef int sofl_l2_miss_fn(void *ctx, struct sofl_l2 *l2, unsigned ip_version,
			    const uint8_t *addr);

struct sofl_l2_config {
	uint32_t size;		/* sizeof(struct sofl_l2_config); set by config_init */
	uint8_t mac[SOFL_L2_MAC_LEN];	/* the L3 side's MAC: source of the frames
				 * made from its packets, and the address ARP
				 * replies and advertisements give; required
				 * (unicast, not zero) */
	uint8_t pad_[2];	/* 0 */
	uint32_t n_ipv4;	/* addresses in ipv4[] (<= SOFL_L2_ADDRS_MAX) */
	uint32_t n_ipv6;	/* addresses in ipv6[] (<= SOFL_L2_ADDRS_MAX) */
	uint8_t ipv4[SOFL_L2_ADDRS_MAX][4];	/* the L3 side's IPv4 addresses */
	uint8_t ipv6[SOFL_L2_ADDRS_MAX][16];	/* its IPv6 addresses */
	sofl_l2_miss_fn *miss;	/* NULL: none (see sofl_l2_miss_fn) */
	void *miss_ctx;		/* its first argument */
};

/* sofl_l2_config_init() : zeroes *cfg (no MAC, no address, no callback) and
 * sets .size.  NULL is ignored. */
SOFL_API void sofl_l2_config_init(struct sofl_l2_config *cfg);

/* sofl_l2_create() :
 * Allocates an adapter for @cfg (copied under the sized-config rule: an
 * older, smaller struct gets defaults for the fields it lacks; a newer one
 * must have zeros past what this library knows) into *out.
 * @return 0, SOFL_E_INVAL (NULL), SOFL_E_CFG_SIZE, SOFL_E_CFG_ADDR (.mac
 *         zero or multicast, n_ipv4 or n_ipv6 above SOFL_L2_ADDRS_MAX),
 *         SOFL_E_NOMEM.  On error *out is NULL (when @out is not).
 * Free with sofl_l2_destroy(). */
SOFL_API int sofl_l2_create(const struct sofl_l2_config *cfg, struct sofl_l2 **out);

/* sofl_l2_destroy() : frees the adapter (NULL is fine). */
SOFL_API void sofl_l2_destroy(struct sofl_l2 *l2);

/* sofl_l2_set_addrs() :
 * Replaces the L3 side's addresses: @n4 IPv4 addresses of 4 bytes each at
 * @ipv4 and @n6 IPv6 ones of 16 bytes at @ipv6 (copied; a pointer may be
 * NULL when its count is 0).  Allowed inside a sofl_l2_miss_fn.
 * @return 0, SOFL_E_INVAL (NULL @l2, NULL array with a count, a count above
 *         SOFL_L2_ADDRS_MAX: nothing changed). */
SOFL_API int sofl_l2_set_addrs(struct sofl_l2 *l2, const uint8_t *ipv4, size_t n4,
			       const uint8_t *ipv6, size_t n6);

/* sofl_l2_set_peer() :
 * Sets the peer's MAC (the destination of the frames sofl_l2_ip_to_eth()
 * makes) before any frame taught it; frames passed on later still update
 * it.  @return 0, SOFL_E_INVAL (NULL, or a multicast address).
 * sofl_l2_get_peer() :
 * Copies the peer's MAC to @mac.  @return 1 (copied), 0 (none known yet:
 * @mac untouched), SOFL_E_INVAL (NULL). */
SOFL_API int sofl_l2_set_peer(struct sofl_l2 *l2, const uint8_t mac[SOFL_L2_MAC_LEN]);
SOFL_API int sofl_l2_get_peer(const struct sofl_l2 *l2, uint8_t mac[SOFL_L2_MAC_LEN]);

/* A reply to send back on the Ethernet side (caller-owned) */
struct sofl_l2_reply {
	uint32_t len;			/* bytes of frame[] in use */
	uint8_t frame[SOFL_L2_REPLY_MAX];	/* an Ethernet frame */
};

/* sofl_l2_eth_to_ip() :
 * Converts one frame @p received on the Ethernet side (its first iovec, or
 * its second when .headroom says the first is a head area, starts with the
 * Ethernet header; the head area stays as it is).
 * @return SOFL_L2_FORWARD: @p is now the IP packet (that iovec starts past
 *         the Ethernet header, .len is 14 less, and with SOFL_PORT_PKT_F_VNET
 *         .vnet.csum_start is 14 less when NEEDS_CSUM and .vnet.hdr_len 14
 *         less, or 0 when it was not above 14); the peer MAC is the frame's
 *         source from now on.
 *         SOFL_L2_REPLY: @p was an ARP request or neighbour solicitation
 *         for the L3 side; *reply holds the answer (its .len bytes); @p is
 *         untouched and goes no further.
 *         SOFL_L2_DROP: counted in .eth_drop; @p untouched.
 *         SOFL_E_INVAL: NULL argument (nothing counted).
 * *reply is written only with SOFL_L2_REPLY.  May call cfg.miss. */
SOFL_API int sofl_l2_eth_to_ip(struct sofl_l2 *l2, struct sofl_port_pkt *p,
			       struct sofl_l2_reply *reply);

/* sofl_l2_reply_fn : receives each reply of sofl_l2_eth_to_ip_batch(): the
 * frame (@len bytes, adapter-owned, valid during the call only) is to be
 * sent on the Ethernet side. */
typedef void sofl_l2_reply_fn(void *ctx, const uint8_t *frame, size_t len);

/* sofl_l2_eth_to_ip_batch() :
 * sofl_l2_eth_to_ip() on @p[0..n) in order: the packets passed on are
 * moved to the front of @p, in their order; each reply goes to @reply(@ctx,
 * ...) as soon as it is made; drops are counted.
 * @return the number of packets now at p[0..), or SOFL_E_INVAL (NULL @l2 or
 *         @reply, NULL @p with @n > 0, @n above INT_MAX: nothing done). */
SOFL_API int sofl_l2_eth_to_ip_batch(struct sofl_l2 *l2, struct sofl_port_pkt *p, size_t n,
				     sofl_l2_reply_fn *reply, void *ctx);

/* sofl_l2_ip_to_eth() :
 * Converts one packet @p from the L3 side: iov[0] must be a head area of
 * at least SOFL_L2_ETH_HLEN bytes (.headroom) and iov[1] the start of the
 * IP packet (as a TUN/TAP port opened with that headroom gives them).
 * @return SOFL_L2_FORWARD: the Ethernet header is in iov[0] (iov_len 14),
 *         .len is 14 more, and with SOFL_PORT_PKT_F_VNET .vnet.csum_start is
 *         14 more when NEEDS_CSUM, .vnet.hdr_len 14 more when not 0.
 *         SOFL_L2_DROP: counted in .ip_drop; @p untouched.
 *         SOFL_E_INVAL: NULL argument. */
SOFL_API int sofl_l2_ip_to_eth(struct sofl_l2 *l2, struct sofl_port_pkt *p);

/* sofl_l2_ip_to_eth_batch() :
 * sofl_l2_ip_to_eth() on @p[0..n); the packets converted are moved to the
 * front of @p, in their order.
 * @return their number, or SOFL_E_INVAL (NULL @l2, NULL @p with @n > 0, @n
 *         above INT_MAX). */
SOFL_API int sofl_l2_ip_to_eth_batch(struct sofl_l2 *l2, struct sofl_port_pkt *p, size_t n);

/* sofl_l2_get_stats() :
 * Copies the first @size bytes of the counters since creation or reset
 * into *st (pass sizeof(*st); a larger size gets zeros past this library's
 * struct).  @return 0, SOFL_E_INVAL (NULL @l2 or @st).
 * sofl_l2_reset_stats() : sets every counter to 0.  @return 0, SOFL_E_INVAL.
 * Same thread as the adapter's other calls. */
SOFL_API int sofl_l2_get_stats(const struct sofl_l2 *l2, struct sofl_l2_stats *st, size_t size);
SOFL_API int sofl_l2_reset_stats(struct sofl_l2 *l2);

/* sofl_l2_drop_name() : short static name of a drop reason ("short",
 * "not-ip", "arp-malformed", ...), "?" for unknown values.  Never NULL. */
SOFL_API const char *sofl_l2_drop_name(enum sofl_l2_drop reason);

#ifdef __cplusplus
}
#endif
#endif
