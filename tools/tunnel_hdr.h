/* softoffload tunnel: the encapsulation headers (VXLAN, Geneve) and the
 * inner-MAC table, with no I/O: what the tunnel's receive path checks on
 * every datagram, kept apart so that it can be fuzzed on its own
 * (fuzz/fuzz_tunnel_rx.c). */
#ifndef SOFL_TUNNEL_HDR_H
#define SOFL_TUNNEL_HDR_H

#include <stddef.h>
#include <stdint.h>

enum tn_encap { TN_ENCAP_IP = 0, TN_ENCAP_VXLAN, TN_ENCAP_GENEVE };

/* Why a datagram from the underlay was dropped before the TUN/TAP */
enum tn_drop {
	TN_DROP_REMOTE = 0,	/* source address is none of the remotes */
	TN_DROP_HDR_SHORT,	/* shorter than the tunnel header (with its options) */
	TN_DROP_VXLAN_FLAGS,	/* VXLAN: I flag clear, or a reserved bit or byte set */
	TN_DROP_VNI,		/* VXLAN/Geneve: the VNI is not ours */
	TN_DROP_GENEVE_VER,	/* Geneve: version not 0 */
	TN_DROP_GENEVE_CRIT,	/* Geneve: C bit (a critical option we do not know) */
	TN_DROP_GENEVE_OAM,	/* Geneve: O bit (a control packet, not for the tenant) */
	TN_DROP_GENEVE_PROTO,	/* Geneve: protocol type not the one we carry */
	TN_DROP_ETH_SHORT,	/* inner Ethernet frame shorter than its header */
	TN_DROP_IP_SHORT,	/* inner IP packet shorter than an IP header */
	TN_DROP_NOT_IP,		/* inner packet not IPv4 or IPv6 */
	TN_DROP_IP_LEN,		/* inner IP length not the datagram's */
	TN_DROP__MAX
};

/* counter name (JSON key) and text of each reason */
extern const char *const tn_drop_key[TN_DROP__MAX];
extern const char *const tn_drop_text[TN_DROP__MAX];

#define TN_VXLAN_HLEN  8
#define TN_GENEVE_HLEN 8	/* without options */
#define TN_ETH_TEB     0x6558	/* Transparent Ethernet Bridging (Geneve protocol type) */

/* What the receive path accepts. */
struct tn_rx_rule {
	int encap;		/* enum tn_encap */
	int inner_eth;		/* 1: the inner packet is an Ethernet frame; 0: IP */
	uint32_t vni;		/* VXLAN/Geneve: ours (24 bits) */
};

/* tn_rx_check() :
 * Checks the tunnel header and the inner packet of one datagram's payload
 * @b[0..len) under @r.  @return -1 and *hlen = the header bytes to strip
 * (0 for TN_ENCAP_IP) when the datagram carries an inner packet to deliver,
 * else the enum tn_drop reason.  Reads b[0..len) only. */
int tn_rx_check(const struct tn_rx_rule *r, const uint8_t *b, size_t len, size_t *hlen);

/* tn_hdr_build() :
 * Writes the tunnel header of @encap (VXLAN or Geneve without options) for
 * VNI @vni at @h (8 bytes); @proto is Geneve's protocol type (TN_ETH_TEB,
 * 0x0800, 0x86DD).  @return the header length (8), 0 for TN_ENCAP_IP. */
size_t tn_hdr_build(int encap, uint32_t vni, uint16_t proto, uint8_t *h);

/* tn_inner_proto() : the Geneve protocol type of inner IP packet @b
 * (0x0800 / 0x86DD from the version nibble), 0 when neither. */
uint16_t tn_inner_proto(const uint8_t *b, size_t len);

/* The inner-MAC table: which remote an inner destination MAC lives behind,
 * learned from the inner source MACs of what each remote sends.  Fixed
 * size, direct-mapped by a hash of the MAC (a collision replaces the older
 * entry; a miss floods, so it costs copies, never correctness).  Owned by
 * one thread. */
#define TN_MAC_SLOTS 4096
struct tn_mac_table {
	struct { uint8_t mac[6]; uint16_t remote; } e[TN_MAC_SLOTS];	/* remote 0: empty */
	uint64_t learned, moved;
};

/* tn_mac_learn() : records that @mac (an inner source) is behind remote
 * index @remote (0-based).  Group (multicast) MACs are never learned. */
void tn_mac_learn(struct tn_mac_table *t, const uint8_t *mac, unsigned remote);

/* tn_mac_lookup() : the remote index of unicast @mac, or -1 (unknown or a
 * group address: flood to every remote). */
int tn_mac_lookup(const struct tn_mac_table *t, const uint8_t *mac);

#endif
