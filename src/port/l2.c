/* The L2 <-> L3 adapter (include/softoffload/l2.h): Ethernet headers off
 * and on, and the ARP and neighbour-discovery answers of an L3 device.
 * docs/l2.md says which Linux code each rule follows. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "softoffload/l2.h"
#include "softoffload/bytes.h"
#include "softoffload/vnet.h"
#include "base/cfg.h"
#include "csum/csum_impl.h"

/* Ethernet header (IEEE 802.3; Linux include/uapi/linux/if_ether.h) */
#define ETH_ALEN_	SOFL_L2_MAC_LEN
#define ETH_DST		0
#define ETH_SRC		6
#define ETH_TYPE	12
#define ETHERTYPE_IPV4	0x0800
#define ETHERTYPE_ARP	0x0806
#define ETHERTYPE_IPV6	0x86dd

/* ARP for Ethernet and IPv4 (RFC 826; Linux struct arphdr + its body) */
#define ARP_HTYPE	0	/* hardware type */
#define ARP_PTYPE	2	/* protocol type */
#define ARP_HLEN	4	/* hardware address length */
#define ARP_PLEN	5	/* protocol address length */
#define ARP_OP		6
#define ARP_SHA		8	/* sender hardware address */
#define ARP_SPA		14	/* sender protocol address */
#define ARP_THA		18	/* target hardware address */
#define ARP_TPA		24	/* target protocol address */
#define ARP_BODY_LEN	28
#define ARP_HW_ETHER	1	/* ARPHRD_ETHER */
#define ARP_OP_REQUEST	1
#define ARP_OP_REPLY	2
#define IPV4_ALEN	4

/* IPv6 header (RFC 8200) */
#define IP6_VER_TC	0
#define IP6_PLEN	4
#define IP6_NEXT	6
#define IP6_HLIM	7
#define IP6_SRC		8
#define IP6_DST		24
#define IP6_HDR_LEN	40
#define IPV6_ALEN	16
#define IP6_VERSION_BYTE 0x60	/* version 6, traffic class and flow label 0 */
#define IP6_MCAST_BYTE	0xff	/* the first byte of every multicast address */
#define IPPROTO_ICMPV6_	58

/* Neighbour discovery (RFC 4861 4.3, 4.4, 4.6.1) */
#define ND_TYPE		0
#define ND_CODE		1
#define ND_CSUM		2
#define ND_FLAGS	4	/* NA: R S O bits, then reserved */
#define ND_TARGET	8
#define ND_MSG_LEN	24	/* NS and NA without options */
#define ND_HOP_LIMIT	255
#define ND_NS		135
#define ND_NA		136
#define ND_NA_F_SOLICITED 0x40
#define ND_NA_F_OVERRIDE  0x20
#define ND_OPT_SLLA	1	/* source link-layer address */
#define ND_OPT_TLLA	2	/* target link-layer address */
#define ND_OPT_UNIT	8	/* option lengths count 8-byte units */
#define ND_OPT_HDR_LEN	2	/* an option's type and length bytes */
#define ND_OPT_LL_UNITS	1	/* an Ethernet link-layer address option: 8 bytes */
#define ND_NA_LEN	(ND_MSG_LEN + ND_OPT_UNIT)

#define ARP_REPLY_LEN	(SOFL_L2_ETH_HLEN + ARP_BODY_LEN)		/* 42 */
#define NA_FRAME_LEN	(SOFL_L2_ETH_HLEN + IP6_HDR_LEN + ND_NA_LEN)	/* 86 */

#if NA_FRAME_LEN > SOFL_L2_REPLY_MAX
#error "SOFL_L2_REPLY_MAX is too small for a neighbour advertisement"
#endif

struct sofl_l2 {
	struct sofl_l2_config cfg;	/* the addresses live here */
	uint8_t peer[ETH_ALEN_];
	int have_peer;
	struct sofl_l2_stats st;
	struct sofl_l2_reply reply;	/* the batch call's */
};

/* The first struct sofl_l2_config: this one */
#define L2_CONFIG_SIZE0 sizeof(struct sofl_l2_config)

static const char *const drop_names[SOFL_L2_DROP__MAX] = {
	[SOFL_L2_DROP_SHORT] = "short",
	[SOFL_L2_DROP_NOT_IP] = "not-ip",
	[SOFL_L2_DROP_ARP_MALFORMED] = "arp-malformed",
	[SOFL_L2_DROP_ARP_NOT_REQUEST] = "arp-not-request",
	[SOFL_L2_DROP_ARP_NOT_MINE] = "arp-not-mine",
	[SOFL_L2_DROP_NS_MALFORMED] = "ns-malformed",
	[SOFL_L2_DROP_NS_CSUM] = "ns-csum",
	[SOFL_L2_DROP_VNET] = "vnet",
	[SOFL_L2_DROP_NO_PEER] = "no-peer",
	[SOFL_L2_DROP_NO_ROOM] = "no-room",
	[SOFL_L2_DROP_IP_VERSION] = "ip-version",
	[SOFL_L2_DROP_RUNT] = "runt",
};

SOFL_API const char *
sofl_l2_drop_name(enum sofl_l2_drop reason)
{
	if ((int)reason < 0 || reason >= SOFL_L2_DROP__MAX || !drop_names[reason])
		return "?";
	return drop_names[reason];
}

static int
mac_unicast(const uint8_t *m)
{
	static const uint8_t zero[ETH_ALEN_];

	return !(m[0] & 1) && memcmp(m, zero, ETH_ALEN_) != 0;
}

SOFL_API void
sofl_l2_config_init(struct sofl_l2_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
}

SOFL_API int
sofl_l2_create(const struct sofl_l2_config *cfg, struct sofl_l2 **out)
{
	struct sofl_l2_config c;
	struct sofl_l2 *l2;
	int err;

	if (out)
		*out = NULL;
	if (!cfg || !out)
		return SOFL_E_INVAL;
	sofl_l2_config_init(&c);
	if ((err = sofl_cfg_copy(&c, sizeof(c), cfg, cfg->size, L2_CONFIG_SIZE0)) != 0)
		return err;
	if (!mac_unicast(c.mac) || c.n_ipv4 > SOFL_L2_ADDRS_MAX || c.n_ipv6 > SOFL_L2_ADDRS_MAX)
		return SOFL_E_CFG_ADDR;
	l2 = calloc(1, sizeof(*l2));
	if (!l2)
		return SOFL_E_NOMEM;
	l2->cfg = c;
	*out = l2;
	return 0;
}

SOFL_API void
sofl_l2_destroy(struct sofl_l2 *l2)
{
	free(l2);
}

SOFL_API int
sofl_l2_set_addrs(struct sofl_l2 *l2, const uint8_t *ipv4, size_t n4, const uint8_t *ipv6,
		  size_t n6)
{
	if (!l2 || (n4 && !ipv4) || (n6 && !ipv6) || n4 > SOFL_L2_ADDRS_MAX ||
	    n6 > SOFL_L2_ADDRS_MAX)
		return SOFL_E_INVAL;
	if (n4)
		memcpy(l2->cfg.ipv4, ipv4, n4 * IPV4_ALEN);
	if (n6)
		memcpy(l2->cfg.ipv6, ipv6, n6 * IPV6_ALEN);
	l2->cfg.n_ipv4 = (uint32_t)n4;
	l2->cfg.n_ipv6 = (uint32_t)n6;
	return 0;
}

SOFL_API int
sofl_l2_set_peer(struct sofl_l2 *l2, const uint8_t mac[SOFL_L2_MAC_LEN])
{
	if (!l2 || !mac || (mac[0] & 1))
		return SOFL_E_INVAL;
	memcpy(l2->peer, mac, ETH_ALEN_);
	l2->have_peer = 1;
	return 0;
}

SOFL_API int
sofl_l2_get_peer(const struct sofl_l2 *l2, uint8_t mac[SOFL_L2_MAC_LEN])
{
	if (!l2 || !mac)
		return SOFL_E_INVAL;
	if (!l2->have_peer)
		return 0;
	memcpy(mac, l2->peer, ETH_ALEN_);
	return 1;
}

SOFL_API int
sofl_l2_get_stats(const struct sofl_l2 *l2, struct sofl_l2_stats *st, size_t size)
{
	if (!l2 || !st)
		return SOFL_E_INVAL;
	if (size > sizeof(l2->st)) {
		memset((uint8_t *)st + sizeof(l2->st), 0, size - sizeof(l2->st));
		size = sizeof(l2->st);
	}
	memcpy(st, &l2->st, size);
	return 0;
}

SOFL_API int
sofl_l2_reset_stats(struct sofl_l2 *l2)
{
	if (!l2)
		return SOFL_E_INVAL;
	memset(&l2->st, 0, sizeof(l2->st));
	return 0;
}

/* ---- the L3 side's addresses ---- */

static int
in_set(const struct sofl_l2 *l2, unsigned ver, const uint8_t *a)
{
	uint32_t k;

	if (ver == 4) {
		for (k = 0; k < l2->cfg.n_ipv4; k++)
			if (!memcmp(l2->cfg.ipv4[k], a, IPV4_ALEN))
				return 1;
	} else {
		for (k = 0; k < l2->cfg.n_ipv6; k++)
			if (!memcmp(l2->cfg.ipv6[k], a, IPV6_ALEN))
				return 1;
	}
	return 0;
}

/* Is @a (IPv@ver) one of the L3 side's addresses?  A miss asks cfg.miss,
 * which may refresh the set, and searches once more if it says so. */
static int
owns(struct sofl_l2 *l2, unsigned ver, const uint8_t *a)
{
	if (in_set(l2, ver, a))
		return 1;
	return l2->cfg.miss && l2->cfg.miss(l2->cfg.miss_ctx, l2, ver, a) && in_set(l2, ver, a);
}

/* ---- Ethernet side -> L3 side ---- */

/* The frame handlers' drop verdict: negative, carrying its reason */
#define VERDICT_DROP(reason) (-1 - (int)(reason))
#define DROP_REASON(v)	     ((enum sofl_l2_drop)(-1 - (v)))

/* The ARP frame @f (@len bytes, Ethernet header included).  @return
 * SOFL_L2_REPLY with the reply in @o, or VERDICT_DROP(reason). */

static int
arp_in(struct sofl_l2 *l2, const uint8_t *f, size_t len, struct sofl_l2_reply *o)
{
	const uint8_t *a = f + SOFL_L2_ETH_HLEN, *mac = l2->cfg.mac;
	uint8_t *r = o->frame, *ra = r + SOFL_L2_ETH_HLEN;

	if (len < SOFL_L2_ETH_HLEN + ARP_BODY_LEN || sofl_get16(a + ARP_HTYPE) != ARP_HW_ETHER ||
	    sofl_get16(a + ARP_PTYPE) != ETHERTYPE_IPV4 || a[ARP_HLEN] != ETH_ALEN_ ||
	    a[ARP_PLEN] != IPV4_ALEN)
		return VERDICT_DROP(SOFL_L2_DROP_ARP_MALFORMED);
	if (sofl_get16(a + ARP_OP) != ARP_OP_REQUEST)
		return VERDICT_DROP(SOFL_L2_DROP_ARP_NOT_REQUEST);
	if (!owns(l2, 4, a + ARP_TPA))
		return VERDICT_DROP(SOFL_L2_DROP_ARP_NOT_MINE);
	/* arp_send(ARPOP_REPLY, ..., sip, dev, tip, sha, dev_addr, sha): to
	 * the asker, from the L3 side */
	memcpy(r + ETH_DST, a + ARP_SHA, ETH_ALEN_);
	memcpy(r + ETH_SRC, mac, ETH_ALEN_);
	sofl_put16(r + ETH_TYPE, ETHERTYPE_ARP);
	memcpy(ra, a, ARP_OP);			/* htype, ptype, hlen, plen as asked */
	sofl_put16(ra + ARP_OP, ARP_OP_REPLY);
	memcpy(ra + ARP_SHA, mac, ETH_ALEN_);
	memcpy(ra + ARP_SPA, a + ARP_TPA, IPV4_ALEN);
	memcpy(ra + ARP_THA, a + ARP_SHA, ETH_ALEN_);
	memcpy(ra + ARP_TPA, a + ARP_SPA, IPV4_ALEN);
	o->len = ARP_REPLY_LEN;
	return SOFL_L2_REPLY;
}

static int
ip6_unspecified(const uint8_t *a)
{
	static const uint8_t zero[IPV6_ALEN];

	return !memcmp(a, zero, IPV6_ALEN);
}

/* ff02::1:ffXX:XXXX (RFC 4291 2.7.1) */
static int
ip6_solicited_node(const uint8_t *a)
{
	static const uint8_t pre[13] = { 0xff, 0x02, [11] = 0x01, [12] = 0xff };

	return !memcmp(a, pre, sizeof(pre));
}

/* Is the IPv6 frame @f (@len bytes) a neighbour solicitation?  Only when
 * ICMPv6 follows the fixed header and its type byte is there. */
static int
is_ns(const uint8_t *f, size_t len)
{
	const uint8_t *ip = f + SOFL_L2_ETH_HLEN;

	return len > SOFL_L2_ETH_HLEN + IP6_HDR_LEN + ND_TYPE && ip[IP6_NEXT] == IPPROTO_ICMPV6_ &&
	       ip[IP6_HDR_LEN + ND_TYPE] == ND_NS;
}

/* The neighbour solicitation @f (@len bytes; is_ns()): validated (RFC 4861
 * 7.1.1, ndisc_recv_ns), answered when its target is the L3 side's.
 * @return SOFL_L2_REPLY (the advertisement in @o), SOFL_L2_FORWARD (valid,
 * for another address), or VERDICT_DROP(reason). */
static int
ns_in(struct sofl_l2 *l2, const uint8_t *f, size_t len, int csum_known,
      struct sofl_l2_reply *o)
{
	static const uint8_t all_nodes[IPV6_ALEN] = { 0xff, 0x02, [15] = 0x01 };
	static const uint8_t all_nodes_mac[ETH_ALEN_] = { 0x33, 0x33, 0, 0, 0, 0x01 };
	const uint8_t *ip = f + SOFL_L2_ETH_HLEN, *ns = ip + IP6_HDR_LEN, *mac = l2->cfg.mac;
	uint8_t *r = o->frame, *ri = r + SOFL_L2_ETH_HLEN, *na = ri + IP6_HDR_LEN;
	size_t plen = sofl_get16(ip + IP6_PLEN), off;
	int dad, sllao = 0;

	/* the ICMPv6 message is the IPv6 payload; bytes past it are padding */
	if (plen > len - SOFL_L2_ETH_HLEN - IP6_HDR_LEN || plen < ND_MSG_LEN ||
	    ip[IP6_HLIM] != ND_HOP_LIMIT || ns[ND_CODE] != 0 || ns[ND_TARGET] == IP6_MCAST_BYTE)
		return VERDICT_DROP(SOFL_L2_DROP_NS_MALFORMED);
	/* ndisc_parse_options(); a source link-layer address of another
	 * length than Ethernet's is refused too (ndisc_opt_addr_data()) */
	for (off = ND_MSG_LEN; off < plen; off += (size_t)ns[off + 1] * ND_OPT_UNIT) {
		if (plen - off < ND_OPT_HDR_LEN || ns[off + 1] == 0 ||
		    (size_t)ns[off + 1] * ND_OPT_UNIT > plen - off ||
		    (ns[off] == ND_OPT_SLLA && ns[off + 1] != ND_OPT_LL_UNITS))
			return VERDICT_DROP(SOFL_L2_DROP_NS_MALFORMED);
		sllao |= ns[off] == ND_OPT_SLLA;
	}
	dad = ip6_unspecified(ip + IP6_SRC);
	if (dad && (sllao || !ip6_solicited_node(ip + IP6_DST)))
		return VERDICT_DROP(SOFL_L2_DROP_NS_MALFORMED);
	if (!csum_known &&
	    !sofl_csum_ok(sofl_csum_pseudo_v6(ip + IP6_SRC, ip + IP6_DST, IPPROTO_ICMPV6_,
					      (uint32_t)plen), ns, plen))
		return VERDICT_DROP(SOFL_L2_DROP_NS_CSUM);
	if (!owns(l2, 6, ns + ND_TARGET))
		return SOFL_L2_FORWARD;
	/* ndisc_send_na(): DAD gets an unsolicited advertisement to all-nodes */
	memcpy(r + ETH_DST, dad ? all_nodes_mac : f + ETH_SRC, ETH_ALEN_);
	memcpy(r + ETH_SRC, mac, ETH_ALEN_);
	sofl_put16(r + ETH_TYPE, ETHERTYPE_IPV6);
	memset(ri, 0, IP6_HDR_LEN);
	ri[IP6_VER_TC] = IP6_VERSION_BYTE;
	sofl_put16(ri + IP6_PLEN, ND_NA_LEN);
	ri[IP6_NEXT] = IPPROTO_ICMPV6_;
	ri[IP6_HLIM] = ND_HOP_LIMIT;
	memcpy(ri + IP6_SRC, ns + ND_TARGET, IPV6_ALEN);	/* from the solicited address */
	memcpy(ri + IP6_DST, dad ? all_nodes : ip + IP6_SRC, IPV6_ALEN);
	memset(na, 0, ND_NA_LEN);
	na[ND_TYPE] = ND_NA;
	na[ND_FLAGS] = dad ? ND_NA_F_OVERRIDE : ND_NA_F_SOLICITED | ND_NA_F_OVERRIDE;
	memcpy(na + ND_TARGET, ns + ND_TARGET, IPV6_ALEN);
	na[ND_MSG_LEN] = ND_OPT_TLLA;
	na[ND_MSG_LEN + 1] = ND_OPT_LL_UNITS;
	memcpy(na + ND_MSG_LEN + ND_OPT_HDR_LEN, mac, ETH_ALEN_);
	sofl_put16(na + ND_CSUM,
		   (uint16_t)~sofl_csum_fold(sofl_csum_add(sofl_csum_pseudo_v6(ri + IP6_SRC,
									      ri + IP6_DST,
									      IPPROTO_ICMPV6_,
									      ND_NA_LEN),
						   na, ND_NA_LEN)));
	o->len = NA_FRAME_LEN;
	return SOFL_L2_REPLY;
}

static int
drop(uint64_t *ctr, enum sofl_l2_drop reason)
{
	ctr[reason]++;
	return SOFL_L2_DROP;
}

/* The frames that are not IP (ARP, solicitations, the rest): out of line,
 * so that the loop over IP frames stays small.  @return the verdict as
 * eth_one() gives it. */
static int __attribute__((noinline))
eth_other(struct sofl_l2 *l2, const struct sofl_port_pkt *p, const uint8_t *f, size_t len,
	  uint16_t type, struct sofl_l2_reply *reply)
{
	int r;

	if (type == ETHERTYPE_ARP) {
		r = arp_in(l2, f, len, reply);
		if (r == SOFL_L2_REPLY)
			l2->st.arp_replies++;
	} else if (type == ETHERTYPE_IPV6) {
		r = ns_in(l2, f, len, (p->flags & SOFL_PORT_PKT_F_VNET) &&
			  (p->vnet.flags & (SOFL_VNET_HDR_F_NEEDS_CSUM | SOFL_VNET_HDR_F_DATA_VALID)),
			  reply);
		if (r == SOFL_L2_REPLY)
			l2->st.nd_adverts++;
	} else {
		r = VERDICT_DROP(SOFL_L2_DROP_NOT_IP);
	}
	return r < 0 ? drop(l2->st.eth_drop, DROP_REASON(r)) : r;
}

/* One frame, the arguments checked: sofl_l2_eth_to_ip() without the eth_in
 * and ip_out counts (the callers add them). */
static inline __attribute__((always_inline)) int
eth_one(struct sofl_l2 *l2, struct sofl_port_pkt *p, struct sofl_l2_reply *reply)
{
	struct iovec *v;
	const uint8_t *f;
	size_t len;
	uint16_t type;
	unsigned fi = p->headroom ? 1 : 0;	/* the frame's first piece */
	int r;

	if (p->iovcnt <= fi || !p->iov || p->iov[fi].iov_len < SOFL_L2_ETH_HLEN ||
	    p->len < SOFL_L2_ETH_HLEN)
		return drop(l2->st.eth_drop, SOFL_L2_DROP_SHORT);
	v = &p->iov[fi];
	f = v->iov_base;
	type = sofl_get16(f + ETH_TYPE);
	if (type != ETHERTYPE_IPV4) {
		len = v->iov_len < p->len ? v->iov_len : p->len;
		if (type != ETHERTYPE_IPV6 || is_ns(f, len)) {
			r = eth_other(l2, p, f, len, type, reply);
			if (r != SOFL_L2_FORWARD)
				return r;
		}
	}
	/* the fixed IP header must follow: a bare Ethernet header (14 bytes)
	 * would become an empty packet that the L3 side refuses */
	if (p->len - SOFL_L2_ETH_HLEN < (type == ETHERTYPE_IPV4 ? 20u : 40u))
		return drop(l2->st.eth_drop, SOFL_L2_DROP_RUNT);
	/* the L3 side tells IPv4 from IPv6 by the version alone (a TUN
	 * refuses any other, EINVAL): it must be the EtherType's */
	if (v->iov_len > SOFL_L2_ETH_HLEN &&
	    f[SOFL_L2_ETH_HLEN] >> 4 != (type == ETHERTYPE_IPV4 ? 4 : 6))
		return drop(l2->st.eth_drop, SOFL_L2_DROP_IP_VERSION);
	if (p->flags & SOFL_PORT_PKT_F_VNET) {
		if (p->vnet.flags & SOFL_VNET_HDR_F_NEEDS_CSUM) {
			if (p->vnet.csum_start < SOFL_L2_ETH_HLEN)
				return drop(l2->st.eth_drop, SOFL_L2_DROP_VNET);
			p->vnet.csum_start = (uint16_t)(p->vnet.csum_start - SOFL_L2_ETH_HLEN);
		}
		p->vnet.hdr_len = p->vnet.hdr_len > SOFL_L2_ETH_HLEN ?
				  (uint16_t)(p->vnet.hdr_len - SOFL_L2_ETH_HLEN) : 0;
	}
	if (memcmp(l2->peer, f + ETH_SRC, ETH_ALEN_) || !l2->have_peer) {
		memcpy(l2->peer, f + ETH_SRC, ETH_ALEN_);
		l2->have_peer = 1;
		l2->st.peer_changes++;
	}
	v->iov_base = (uint8_t *)v->iov_base + SOFL_L2_ETH_HLEN;
	v->iov_len -= SOFL_L2_ETH_HLEN;
	p->len -= SOFL_L2_ETH_HLEN;
	return SOFL_L2_FORWARD;
}

SOFL_API int
sofl_l2_eth_to_ip(struct sofl_l2 *l2, struct sofl_port_pkt *p, struct sofl_l2_reply *reply)
{
	int r;

	if (!l2 || !p || !reply)
		return SOFL_E_INVAL;
	l2->st.eth_in++;
	r = eth_one(l2, p, reply);
	if (r == SOFL_L2_FORWARD)
		l2->st.ip_out++;
	return r;
}

SOFL_API int
sofl_l2_eth_to_ip_batch(struct sofl_l2 *l2, struct sofl_port_pkt *p, size_t n,
			sofl_l2_reply_fn *reply, void *ctx)
{
	size_t i, k = 0;

	if (!l2 || !reply || (!p && n) || n > INT_MAX)
		return SOFL_E_INVAL;
	for (i = 0; i < n; i++) {
		int r = eth_one(l2, &p[i], &l2->reply);

		if (r == SOFL_L2_FORWARD) {
			if (k != i)
				p[k] = p[i];
			k++;
		} else if (r == SOFL_L2_REPLY) {
			reply(ctx, l2->reply.frame, l2->reply.len);
		}
	}
	l2->st.eth_in += n;
	l2->st.ip_out += k;
	return (int)k;
}

/* ---- L3 side -> Ethernet side ---- */

/* One packet, the arguments checked: sofl_l2_ip_to_eth() without the
 * ip_in and eth_out counts (the callers add them). */
static inline __attribute__((always_inline)) int
ip_one(struct sofl_l2 *l2, struct sofl_port_pkt *p)
{
	const uint8_t *ip;
	uint8_t *h;
	uint16_t type;

	if (!l2->have_peer)
		return drop(l2->st.ip_drop, SOFL_L2_DROP_NO_PEER);
	if (p->headroom < SOFL_L2_ETH_HLEN || p->iovcnt < 2 || !p->iov ||
	    p->iov[0].iov_base == NULL || p->iov[1].iov_len < 1 || p->len < 1)
		return drop(l2->st.ip_drop, SOFL_L2_DROP_NO_ROOM);
	ip = p->iov[1].iov_base;
	switch (ip[0] >> 4) {
	case 4: type = ETHERTYPE_IPV4; break;
	case 6: type = ETHERTYPE_IPV6; break;
	default: return drop(l2->st.ip_drop, SOFL_L2_DROP_IP_VERSION);
	}
	if (p->flags & SOFL_PORT_PKT_F_VNET) {
		if (((p->vnet.flags & SOFL_VNET_HDR_F_NEEDS_CSUM) &&
		     p->vnet.csum_start > UINT16_MAX - SOFL_L2_ETH_HLEN) ||
		    p->vnet.hdr_len > UINT16_MAX - SOFL_L2_ETH_HLEN)
			return drop(l2->st.ip_drop, SOFL_L2_DROP_VNET);
		if (p->vnet.flags & SOFL_VNET_HDR_F_NEEDS_CSUM)
			p->vnet.csum_start = (uint16_t)(p->vnet.csum_start + SOFL_L2_ETH_HLEN);
		if (p->vnet.hdr_len)
			p->vnet.hdr_len = (uint16_t)(p->vnet.hdr_len + SOFL_L2_ETH_HLEN);
	}
	h = p->iov[0].iov_base;
	memcpy(h + ETH_DST, l2->peer, ETH_ALEN_);
	memcpy(h + ETH_SRC, l2->cfg.mac, ETH_ALEN_);
	sofl_put16(h + ETH_TYPE, type);
	p->iov[0].iov_len = SOFL_L2_ETH_HLEN;
	p->len += SOFL_L2_ETH_HLEN;
	return SOFL_L2_FORWARD;
}

SOFL_API int
sofl_l2_ip_to_eth(struct sofl_l2 *l2, struct sofl_port_pkt *p)
{
	int r;

	if (!l2 || !p)
		return SOFL_E_INVAL;
	l2->st.ip_in++;
	r = ip_one(l2, p);
	if (r == SOFL_L2_FORWARD)
		l2->st.eth_out++;
	return r;
}

SOFL_API int
sofl_l2_ip_to_eth_batch(struct sofl_l2 *l2, struct sofl_port_pkt *p, size_t n)
{
	size_t i, k = 0;

	if (!l2 || (!p && n) || n > INT_MAX)
		return SOFL_E_INVAL;
	for (i = 0; i < n; i++)
		if (ip_one(l2, &p[i]) == SOFL_L2_FORWARD) {
			if (k != i)
				p[k] = p[i];
			k++;
		}
	l2->st.ip_in += n;
	l2->st.eth_out += k;
	return (int)k;
}
