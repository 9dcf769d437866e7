/* softoffload tunnel: VXLAN and Geneve headers, inner checks, the MAC
 * table (tunnel_hdr.h).  The rules, in our words:
 *   VXLAN (RFC 7348; Linux drivers/net/vxlan/vxlan_core.c vxlan_rcv()):
 *   flags byte 0x08 (I), every other bit of the first word and the byte
 *   after the VNI 0 — Linux treats any unparsed flag or reserved bit as
 *   malformed and drops; the inner Ethernet header must be there
 *   (pskb_may_pull(ETH_HLEN) in vxlan_rcv()).
 *   Geneve (RFC 8926; Linux drivers/net/geneve.c geneve_udp_encap_recv(),
 *   geneve_rx()): version 0; options (4-byte words) within the datagram;
 *   the C bit drops (critical options present and we know none: RFC 8926
 *   section 3.5 and geneve_rx()'s "Drop packets w/ critical options");
 *   the O bit drops (a control packet, which RFC 8926 section 3.4 keeps
 *   from the tenant network); the protocol type must be what we carry
 *   (0x6558 Ethernet, or 0x0800/0x86DD IP); reserved bits are ignored. */
#include <string.h>
#include "softoffload/bytes.h"
#include "softoffload/pkt.h"
#include "tunnel_hdr.h"

const char *const tn_drop_key[TN_DROP__MAX] = {
	"unknown_remote", "hdr_short", "vxlan_flags", "vni", "geneve_version",
	"geneve_critical", "geneve_oam", "geneve_proto", "eth_short", "short", "not_ip",
	"bad_len",
};
const char *const tn_drop_text[TN_DROP__MAX] = {
	"from an unknown remote", "shorter than the tunnel header",
	"VXLAN: I flag clear or reserved bits set", "VNI not ours", "Geneve: version not 0",
	"Geneve: critical options (C bit)", "Geneve: OAM packet (O bit)",
	"Geneve: protocol type not ours", "inner frame shorter than Ethernet",
	"shorter than an IP header", "not IPv4 or IPv6", "IP length not the datagram's",
};

/* Is b[0..len) an IP packet of its own length?  -1 yes, else the reason.
 * (Two header fields, not a parse: GRO parses.) */
static int
ip_check(const uint8_t *b, size_t len)
{
	if (len < 20)
		return TN_DROP_IP_SHORT;
	switch (b[0] >> 4) {
	case 4:
		return (b[0] & 15) >= 5 && sofl_get16(b + 2) == len ? -1 : TN_DROP_IP_LEN;
	case 6:
		return len >= 40 && (size_t)sofl_get16(b + 4) + 40 == len ? -1 : TN_DROP_IP_LEN;
	}
	return TN_DROP_NOT_IP;
}

static int
inner_check(const struct tn_rx_rule *r, const uint8_t *b, size_t len)
{
	if (r->inner_eth)
		return len < 14 ? TN_DROP_ETH_SHORT : -1;
	return ip_check(b, len);
}

/* The library's reasons for a bad tunnel header, in ours */
static int
hdr_reason(int why)
{
	switch (why) {
	case SOFL_ENCAP_ERR_VXLAN_FLAGS:
		return TN_DROP_VXLAN_FLAGS;
	case SOFL_ENCAP_ERR_GENEVE_VER:
		return TN_DROP_GENEVE_VER;
	case SOFL_ENCAP_ERR_GENEVE_OAM:
		return TN_DROP_GENEVE_OAM;
	case SOFL_ENCAP_ERR_GENEVE_PROTO:
		return TN_DROP_GENEVE_PROTO;
	}
	return TN_DROP_HDR_SHORT;	/* TRUNC, GENEVE_OPTLEN */
}

int
tn_rx_check(const struct tn_rx_rule *r, const uint8_t *b, size_t len, size_t *hlen)
{
	struct sofl_encap_hdr e;
	int why;

	*hlen = 0;
	if (r->encap != TN_ENCAP_VXLAN && r->encap != TN_ENCAP_GENEVE)
		return ip_check(b, len);
	/* the header's own rules are the parser's; ours: the C bit, the
	 * payload we carry, the VNI */
	why = sofl_encap_hdr_parse(r->encap == TN_ENCAP_VXLAN ? SOFL_ENCAP_VXLAN : SOFL_ENCAP_GENEVE,
				   b, len, &e);
	if (why != 0)
		return hdr_reason(why);
	if (e.critical)
		return TN_DROP_GENEVE_CRIT;
	if (r->encap == TN_ENCAP_GENEVE &&
	    (r->inner_eth ? e.proto != TN_ETH_TEB : e.proto == TN_ETH_TEB))
		return TN_DROP_GENEVE_PROTO;
	if (e.vni != r->vni)
		return TN_DROP_VNI;
	*hlen = e.len;
	if (r->encap == TN_ENCAP_GENEVE && !r->inner_eth && len > e.len &&
	    (b[e.len] >> 4) != (e.proto == 0x0800 ? 4 : 6))
		return TN_DROP_NOT_IP;	/* the type and the packet disagree */
	return inner_check(r, b + e.len, len - e.len);
}

size_t
tn_hdr_build(int encap, uint32_t vni, uint16_t proto, uint8_t *h)
{
	switch (encap) {
	case TN_ENCAP_VXLAN:
		sofl_put32(h, 0x08000000u);
		sofl_put32(h + 4, (vni & 0xffffff) << 8);
		return TN_VXLAN_HLEN;
	case TN_ENCAP_GENEVE:
		sofl_put32(h, proto);	/* version 0, no options, no O/C bits */
		sofl_put32(h + 4, (vni & 0xffffff) << 8);
		return TN_GENEVE_HLEN;
	}
	return 0;
}

uint16_t
tn_inner_proto(const uint8_t *b, size_t len)
{
	if (!len)
		return 0;
	return (b[0] >> 4) == 4 ? 0x0800 : (b[0] >> 4) == 6 ? 0x86DD : 0;
}

static unsigned
mac_slot(const uint8_t *m)
{
	uint32_t x = (uint32_t)m[2] << 24 | (uint32_t)m[3] << 16 | (uint32_t)m[4] << 8 | m[5];

	x ^= (uint32_t)m[0] << 8 | m[1];
	x *= 0x9e3779b1u;
	return x >> (32 - 12);	/* TN_MAC_SLOTS = 2^12 */
}

void
tn_mac_learn(struct tn_mac_table *t, const uint8_t *mac, unsigned remote)
{
	unsigned s;

	if (mac[0] & 1)
		return;
	s = mac_slot(mac);
	if (t->e[s].remote == remote + 1 && !memcmp(t->e[s].mac, mac, 6))
		return;
	if (t->e[s].remote && !memcmp(t->e[s].mac, mac, 6))
		t->moved++;
	else
		t->learned++;
	memcpy(t->e[s].mac, mac, 6);
	t->e[s].remote = (uint16_t)(remote + 1);
}

int
tn_mac_lookup(const struct tn_mac_table *t, const uint8_t *mac)
{
	unsigned s;

	if (mac[0] & 1)
		return -1;
	s = mac_slot(mac);
	if (!t->e[s].remote || memcmp(t->e[s].mac, mac, 6))
		return -1;
	return t->e[s].remote - 1;
}
