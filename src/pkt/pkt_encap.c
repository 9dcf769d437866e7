/* The tunnel parse (pkt.h, "Tunnels"): a packet whose outer parse found UDP
 * to a port of the tunnel table, or IP-in-IP, parsed on into its VXLAN or
 * Geneve header and its inner packet.  The inner packet goes through the
 * same checks as any packet (pkt_impl.h's fast path, then pkt.c's generic
 * parse_ipv4/parse_ipv6/parse_l4 by sofl_pkt_parse_ip()), bounded by the
 * outer UDP payload or the outer IP packet, so an inner length cannot reach
 * past what the outer headers carry.  The rules, with the Linux functions
 * and RFC sections they follow, are in docs/overlay-parse.md. */
#include <string.h>
#include "softoffload/pkt.h"
#include "softoffload/bytes.h"
#include "base/cfg.h"
#include "pkt_impl.h"


int
sofl_pkt_config_check(const struct sofl_pkt_config *cfg)
{
	uint32_t i;
	int err;

	if ((err = sofl_cfg_size_ok(cfg, cfg->size, sizeof(*cfg), sizeof(*cfg))) < 0)
		return err;
	if ((cfg->flags & ~(uint32_t)SOFL_PKT_F_NO_IPIP) || cfg->n_udp > SOFL_PKT_UDP_ENCAP_MAX)
		return SOFL_E_INVAL;
	for (i = 0; i < cfg->n_udp; i++)
		if (cfg->udp[i].port == 0 || (cfg->udp[i].type != SOFL_ENCAP_VXLAN &&
					      cfg->udp[i].type != SOFL_ENCAP_GENEVE))
			return SOFL_E_INVAL;
	return 0;
}

SOFL_API int
sofl_encap_hdr_parse(enum sofl_encap type, const void *h, size_t len, struct sofl_encap_hdr *out)
{
	if (!h || !out || (type != SOFL_ENCAP_VXLAN && type != SOFL_ENCAP_GENEVE))
		return SOFL_E_INVAL;
	return pk_encap_hdr(type, h, len, out);
}

/* A tunnel recognised but not parsed into: *p stays the outer packet.
 * Besides what pkt.h promises (encap, encap_err, encap_inner_err), the
 * outer and tunnel offsets known so far are filled (pkt_iov.c reads
 * inner_l2_off and encap_flags' SOFL_ENCAP_F_INNER_ETH to find an inner IP
 * header whose lengths it trimmed). */
static int
fail(struct sofl_pkt *p, uint8_t type, uint8_t flags, uint32_t eo, uint32_t elen, uint32_t l2,
     enum sofl_encap_err why, int inner_err)
{
	p->layers |= SOFL_LAYER_ENCAP_ERR;
	p->encap = type;
	p->encap_flags = flags;
	p->encap_err = (uint8_t)why;
	p->encap_inner_err = (int16_t)inner_err;
	p->outer_ipv = p->ipv;
	p->outer_l3_off = p->l3_off;
	p->outer_l3_len = p->l3_len;
	p->outer_l4_off = type == SOFL_ENCAP_IPIP ? 0 : p->l4_off;
	p->outer_proto = p->l4_proto;
	p->pad2_ = 0;
	p->outer_ip_end = p->ip_end;
	p->encap_off = (uint16_t)eo;
	p->encap_len = (uint16_t)elen;
	p->inner_l2_off = (uint16_t)l2;
	p->vni = 0;
	return 0;
}

/* The inner IP packet at @o (version @v) of @d parsed into *p, bounded by
 * @end: TCP or UDP over IPv4 by the fast path's whole-word stores first
 * (its L2 fields are the caller's to set), then the field-by-field fast
 * path, then the generic checks (@fast 0: those only) */
static int
inner_ip(struct sofl_pkt *p, const uint8_t *d, uint32_t end, uint32_t o, int v, int fast)
{
	int r;

	if (fast && v == 4 && (r = pk_fast_ip4(p, d, end, o, 0, 0, PK_TCP | PK_UDP))) {
		if (r == 2)
			sofl_pkt_tcp_options(p);
		return 0;
	}
	pk_zero(p);
	p->data = d;
	p->len = end;
	if (fast) {
		r = v == 4 ? pk_fast_ipv4(p, d, end, o, 0) : pk_fast_ipv6(p, d, end, o, 0);
		if (r <= 0)
			return r;
		pk_zero(p);	/* (the fast path's partial result) */
		p->data = d;
		p->len = end;
	}
	return sofl_pkt_parse_ip(p, o, v);
}

int
sofl_pkt_encap(struct sofl_pkt *p, const struct sofl_pkt_config *cfg, int fast)
{
	const uint8_t *d = p->data;
	const uint32_t eo = p->pay_off, end = p->pay_off + p->pay_len;
	uint32_t elen = 0, io, l2off, vni = 0;
	uint8_t type, flags = 0;
	struct sofl_encap_hdr e;
	int v = 0, eth = 0, r;

	if (p->l4_proto == 17) {
		const uint8_t *h = d + eo;

		type = (uint8_t)pk_udp_encap(cfg, p->key.dport);
		if (sofl_get16(d + p->l4_off + 6) != 0)
			flags |= SOFL_ENCAP_F_UDP_CSUM;
		if ((r = pk_encap_hdr(type, h, end - eo, &e)) != 0)
			/* the tunnel header's extent as far as it was read; the
			 * inner offset past it, except for options that overrun */
			return fail(p, type, flags, eo, e.len,
				    r == SOFL_ENCAP_ERR_GENEVE_OPTLEN ? eo : eo + e.len,
				    (enum sofl_encap_err)r, 0);
		elen = e.len;
		vni = e.vni;
		eth = e.proto == PK_ETH_P_TEB;
		v = e.proto == PK_ETH_P_IP ? 4 : e.proto == PK_ETH_P_IPV6 ? 6 : 0;
	} else {
		type = SOFL_ENCAP_IPIP;	/* no header: the inner IP starts the payload */
		v = p->l4_proto == 4 ? 4 : 6;
	}
	io = l2off = eo + elen;
	if (eth) {
		uint16_t et;

		flags |= SOFL_ENCAP_F_INNER_ETH;
		if (end - io < PK_ETH_HLEN)
			return fail(p, type, flags, eo, elen, l2off, SOFL_ENCAP_ERR_INNER_L2, 0);
		et = sofl_get16(d + io + 12);
		if (et == PK_ETH_P_8021Q || et == PK_ETH_P_8021AD)
			return fail(p, type, flags, eo, elen, l2off, SOFL_ENCAP_ERR_INNER_VLAN, 0);
		io += PK_ETH_HLEN;
		v = et == PK_ETH_P_IP ? 4 : et == PK_ETH_P_IPV6 ? 6 : 0;
	}

	/* the outer values the result keeps; the inner packet parsed over *p */
	{
		const uint32_t len = p->len, ip_end = p->ip_end;
		const uint16_t ethertype = p->ethertype, l3_off = p->l3_off, l3_len = p->l3_len,
			       l4_off = p->l4_off;
		const uint8_t link = p->link, l2 = p->layers & SOFL_LAYER_L2, nvlan = p->key.nvlan,
			      ipv = p->ipv, proto = p->l4_proto;
		uint16_t tci[SOFL_PKT_VLAN_MAX], tpid[SOFL_PKT_VLAN_MAX], vid[SOFL_PKT_VLAN_MAX];

		memcpy(tci, p->vlan_tci, sizeof(tci));
		memcpy(tpid, p->vlan_tpid, sizeof(tpid));
		memcpy(vid, p->key.vlan, sizeof(vid));
		if (v) {
			if ((r = inner_ip(p, d, end, io, v, fast)) < 0) {
				/* the outer packet again (the parse is deterministic) */
				sofl_pkt_parse_plain(p, d, len, (enum sofl_link)link);
				return fail(p, type, flags, eo, elen, l2off, SOFL_ENCAP_ERR_INNER, r);
			}
		} else {
			pk_zero(p);	/* inner Ethernet, not IP: nothing more */
			p->data = d;
			p->l3_off = (uint16_t)io;
		}
		if (pk_encap_cand(p, cfg))
			flags |= SOFL_ENCAP_F_NESTED;	/* a second level: not parsed into */
		p->len = len;
		p->link = link;
		p->layers = (uint8_t)(l2 | (p->layers & (SOFL_LAYER_L3 | SOFL_LAYER_L4)) |
				      SOFL_LAYER_ENCAP);
		p->ethertype = ethertype;
		memcpy(p->vlan_tci, tci, sizeof(tci));
		memcpy(p->vlan_tpid, tpid, sizeof(tpid));
		p->key.nvlan = nvlan;
		memcpy(p->key.vlan, vid, sizeof(vid));
		p->encap = type;
		p->encap_flags = flags;
		p->encap_err = SOFL_ENCAP_ERR_NONE;
		p->outer_ipv = ipv;
		p->outer_l3_off = l3_off;
		p->outer_l3_len = l3_len;
		p->outer_l4_off = type == SOFL_ENCAP_IPIP ? 0 : l4_off;
		p->encap_off = (uint16_t)eo;
		p->encap_len = (uint16_t)elen;
		p->inner_l2_off = (uint16_t)l2off;
		p->encap_inner_err = 0;
		p->outer_proto = proto;
		p->pad2_ = 0;
		p->outer_ip_end = ip_end;
		p->vni = vni;
	}
	return 0;
}
