/* Segmentation of tunnel super-packets (gso.h, SOFL_GSO_TUNNEL_*): checking
 * the type against the parse and taking the outer headers' constants.  The
 * cut itself is gso.c's, run at the inner offsets (the parse's named fields
 * are the inner packet's, pkt.h "Tunnels"); tun.h fixes the outer headers
 * of each segment.  Linux 6.18: __skb_udp_tunnel_segment() and
 * skb_udp_tunnel_segment() (net/ipv4/udp_offload.c), inet_gso_segment()
 * (net/ipv4/af_inet.c), ipv6_gso_segment() and the IP-in-IP callbacks
 * (net/ipv6/ip6_offload.c). */
#include <string.h>
#include "softoffload/gso.h"
#include "pkt/pkt_impl.h"
#include "csum/csum_impl.h"
#include "hdr.h"
#include "tun.h"

int
gso_tun_plan(struct gso_tun *t, const struct sofl_gso_params *gp, const struct sofl_pkt *p)
{
	const unsigned tb = gp->type & SOFL_GSO_TUNNEL_MASK, in = SOFL_GSO_INNER(gp->type);
	const uint8_t *d = p->data;
	uint32_t ulen;

	memset(t, 0, sizeof(*t));
	/* one tunnel bit, an inner type Linux's tunnel GSO accepts
	 * (virtio_net_hdr_tnl_to_skb: TCPV4, TCPV6, UDP_L4), nothing else */
	if ((tb != SOFL_GSO_TUNNEL_UDP && tb != SOFL_GSO_TUNNEL_UDP_CSUM &&
	     tb != SOFL_GSO_TUNNEL_IPIP) || (gp->type & ~(SOFL_GSO_TUNNEL_MASK | 0x0f)) ||
	    (in != SOFL_GSO_TCPV4 && in != SOFL_GSO_TCPV6 && in != SOFL_GSO_UDP_L4))
		return SOFL_E_INVAL;
	/* the parse must have gone through the matching tunnel, one level */
	if (!(p->layers & SOFL_LAYER_ENCAP) || (p->encap_flags & SOFL_ENCAP_F_NESTED))
		return SOFL_E_GSO_TUNNEL;
	if (tb == SOFL_GSO_TUNNEL_IPIP ? p->encap != SOFL_ENCAP_IPIP :
	    (p->encap != SOFL_ENCAP_VXLAN && p->encap != SOFL_ENCAP_GENEVE))
		return SOFL_E_GSO_TUNNEL;
	if (p->outer_ipv == 4 ? p->outer_l3_len < 20 || p->outer_l3_len > 60 || (p->outer_l3_len & 3) :
	    p->outer_ipv != 6 || p->outer_l3_len < 40 || (p->outer_l3_len & 7))
		return SOFL_E_GSO_TUNNEL;	/* not an outer IP header the parser gives */
	if (!(p->layers & SOFL_LAYER_L3))
		return SOFL_E_NOT_IP;
	/* every header is read from p->data: an iovec parse's gathered
	 * copy must hold them all (sofl_pkt_parse_iov_cfg) */
	if (p->pay_off > p->len)
		return SOFL_E_GSO_HDR;
	/* the offsets in order: outer IP < outer UDP < tunnel header < inner IP */
	if ((uint32_t)p->outer_l3_off + p->outer_l3_len > p->l3_off ||
	    (tb != SOFL_GSO_TUNNEL_IPIP &&
	     (p->outer_l4_off != p->outer_l3_off + p->outer_l3_len ||
	      (uint32_t)p->outer_l4_off + 8 > p->encap_off ||
	      (uint32_t)p->encap_off + p->encap_len > p->l3_off)) ||
	    (tb == SOFL_GSO_TUNNEL_IPIP && p->l3_off != p->outer_l3_off + p->outer_l3_len))
		return SOFL_E_GSO_TUNNEL;
	/* lengths that agree: the inner IP packet ends where the outer one
	 * does, and the outer UDP length covers exactly the rest of it */
	if (p->ip_end != p->outer_ip_end)
		return SOFL_E_GSO_TUNNEL_LEN;
	if (tb != SOFL_GSO_TUNNEL_IPIP) {
		ulen = sofl_get16(d + p->outer_l4_off + 4);
		if (ulen != p->outer_ip_end - p->outer_l4_off)
			return SOFL_E_GSO_TUNNEL_LEN;
	}
	t->ol3 = p->outer_l3_off;
	t->ol4 = tb == SOFL_GSO_TUNNEL_IPIP ? 0 : p->outer_l4_off;
	t->ov4 = p->outer_ipv == 4;
	t->csum = tb == SOFL_GSO_TUNNEL_UDP_CSUM;
	t->in_v6 = p->ipv == 6;
	t->ip_hl = p->pay_off - p->outer_l3_off;
	t->udp_hl = p->pay_off - p->outer_l4_off;
	t->in_hl = p->pay_off - p->l3_off;
	t->in_l4_hl = p->l4_len;
	t->id_step = (gp->flags & SOFL_GSO_F_FIXED_ID) ? 0 : 1;
	if (t->ov4) {
		t->ip_base = hdr_ipv4_base_sum(d + t->ol3, p->outer_l3_len);
		t->id0 = sofl_get16(d + t->ol3 + 4);
	}
	if (t->csum) {
		const uint8_t *oh = d + t->ol3;
		/* the outer pseudo-header without its length, the ports, the
		 * bytes from the tunnel header to the inner IP header and, for
		 * an inner IPv6 header, its words but the payload length; the
		 * lengths (pseudo and UDP), the inner IPv6 payload length and
		 * the inner L4 bytes are added per segment */
		uint32_t s = t->ov4 ? sofl_csum_pseudo_v4(oh + 12, oh + 16, 17, 0) :
				      sofl_csum_pseudo_v6(oh + 8, oh + 24, 17, 0);

		s = sofl_csum_combine(s, hdr_sum_words(d + t->ol4, 4));
		s = sofl_csum_combine(s, hdr_sum_words(d + t->ol4 + 8,
						       p->l3_off - (t->ol4 + 8)));
		if (t->in_v6)
			s = sofl_csum_combine(s, hdr_sum_words(d + p->l3_off, 4) +
						 hdr_sum_words(d + p->l3_off + 6, p->l3_len - 6u));
		t->u_base = s;
		t->in_ps_base = p->ipv == 4 ?
			sofl_csum_pseudo_v4(p->key.src, p->key.dst, p->l4_proto, 0) :
			sofl_csum_pseudo_v6(p->key.src, p->key.dst, p->l4_proto, 0);
	}
	return 0;
}

void
gso_outer_view(struct sofl_pkt *o, const struct sofl_pkt *p)
{
	const uint8_t *oh = p->data + p->outer_l3_off;
	uint32_t end = p->outer_ip_end;

	*o = *p;
	o->layers = (uint8_t)((p->layers & SOFL_LAYER_L2) | SOFL_LAYER_L3);
	o->ipv = p->outer_ipv;
	o->l4_proto = p->outer_proto;
	o->l3_off = p->outer_l3_off;
	o->l3_len = p->outer_l3_len;
	o->ip_end = end;
	o->exthdr = 0;
	o->n_exthdr = 0;
	o->is_frag = 0;		/* an outer fragment is never a tunnel packet */
	o->frag_first = 0;
	o->frag_off_hdr = 0;
	o->ip_hl_opts = (uint16_t)(p->outer_ipv == 4 ? p->outer_l3_len - 20 : 0);
	o->tcp_flags = 0;
	o->tcp_opt_bad = 0;
	o->opt_mss = o->opt_ws = o->opt_sackok = o->opt_sack = o->opt_ts = 0;
	o->tcp_seq = o->tcp_ack = 0;
	pk_outer_key(p, &o->key);
	o->key.flow_label = p->outer_ipv == 4 ? 0 : sofl_get32(oh) & 0xfffff;
	o->key.sport = o->key.dport = 0;
	o->l4_off = (uint16_t)(p->outer_l3_off + p->outer_l3_len);
	o->l4_len = 0;
	o->pay_off = o->l4_off;
	o->pay_len = end - o->l4_off;
	if (p->outer_l4_off && p->outer_proto == 17) {
		const uint8_t *uh = p->data + p->outer_l4_off;
		uint32_t ulen = sofl_get16(uh + 4);

		if (ulen >= 8 && p->outer_l4_off + ulen <= end) {
			o->layers |= SOFL_LAYER_L4;
			o->l4_off = p->outer_l4_off;
			o->l4_len = 8;
			o->pay_off = o->l4_off + 8u;
			o->pay_len = ulen - 8;
			o->key.sport = sofl_get16(uh);
			o->key.dport = sofl_get16(uh + 2);
		}
	}
	o->encap = SOFL_ENCAP_NONE;
	o->encap_flags = 0;
}
