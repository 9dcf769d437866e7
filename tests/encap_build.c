/* Tunnel frames for the engine tests (see encap_build.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "encap_build.h"

void
te_spec_init(struct te_spec *e, int encap, int outer_ipv)
{
	static const uint8_t v4s[4] = { 198, 19, 0, 1 }, v4d[4] = { 198, 19, 0, 2 };
	static const uint8_t v6s[16] = { 0x20, 0x01, 0, 2, 0, 0, 0, 1, [15] = 1 };
	static const uint8_t v6d[16] = { 0x20, 0x01, 0, 2, 0, 0, 0, 1, [15] = 2 };

	memset(e, 0, sizeof(*e));
	e->encap = encap;
	e->outer_ipv = outer_ipv;
	memcpy(e->osrc, outer_ipv == 4 ? v4s : v6s, outer_ipv == 4 ? 4 : 16);
	memcpy(e->odst, outer_ipv == 4 ? v4d : v6d, outer_ipv == 4 ? 4 : 16);
	e->sport = 49152;
	e->dport = encap == SOFL_ENCAP_GENEVE ? 6081 : 4789;
	e->vni = 42;
	e->geneve_proto = 0x6558;
}

uint16_t
te_sum(uint16_t sum, const uint8_t *buf, size_t len)
{
	uint32_t s = sum;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		s += (uint32_t)buf[i] << 8 | buf[i + 1];
	if (len & 1)
		s += (uint32_t)buf[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

uint16_t
te_l4_csum(int ipv, const uint8_t *src, const uint8_t *dst, uint8_t proto, const uint8_t *seg,
	   size_t len)
{
	uint8_t ph[40];
	size_t n;

	memset(ph, 0, sizeof(ph));
	if (ipv == 4) {
		memcpy(ph, src, 4);
		memcpy(ph + 4, dst, 4);
		ph[9] = proto;
		ph[10] = (uint8_t)(len >> 8);
		ph[11] = (uint8_t)len;
		n = 12;
	} else {
		memcpy(ph, src, 16);
		memcpy(ph + 16, dst, 16);
		ph[34] = (uint8_t)(len >> 8);
		ph[35] = (uint8_t)len;
		ph[39] = proto;
		n = 40;
	}
	return (uint16_t)~te_sum(te_sum(0, ph, n), seg, len);
}

static void
need(size_t have, size_t want)
{
	if (want > have) {
		fprintf(stderr, "te_build: buffer too small (%zu > %zu)\n", want, have);
		abort();
	}
}

size_t
te_build(uint8_t *buf, size_t cap, const struct te_spec *e, const struct t_spec *in,
	 struct te_layout *lay)
{
	struct t_spec s = *in;
	struct te_layout l;
	size_t o = 0, tun, inner_len, iplen, i;
	uint8_t inner[4096];
	int udp = e->encap != SOFL_ENCAP_IPIP;
	int eth = e->encap == SOFL_ENCAP_VXLAN ||
		  (e->encap == SOFL_ENCAP_GENEVE && e->geneve_proto == 0x6558);

	s.link = eth ? SOFL_LINK_ETH : SOFL_LINK_RAW;
	inner_len = t_build(inner, sizeof(inner), &s);
	tun = e->encap == SOFL_ENCAP_VXLAN ? 8 : e->encap == SOFL_ENCAP_GENEVE ?
	      8 + e->geneve_opt_len : 0;
	/* outer Ethernet */
	need(cap, 14 + 4 * (size_t)e->outer_nvlan);
	memcpy(buf, (const uint8_t[]){ 0x02, 0, 0, 0, 0, 0x12, 0x02, 0, 0, 0, 0, 0x11 }, 12);
	o = 12;
	for (i = 0; i < (size_t)e->outer_nvlan; i++) {
		sofl_put16(buf + o, 0x8100);
		sofl_put16(buf + o + 2, (uint16_t)(100 * (i + 1)));
		o += 4;
	}
	sofl_put16(buf + o, e->outer_ipv == 4 ? 0x0800 : 0x86DD);
	o += 2;
	l.outer_l3 = o;
	iplen = (e->outer_ipv == 4 ? 20 : 40) + (udp ? 8 : 0) + tun + inner_len;
	need(cap, o + iplen);
	memset(buf + o, 0, iplen - inner_len);
	if (e->outer_ipv == 4) {
		uint8_t *ip = buf + o;

		ip[0] = 0x45;
		sofl_put16(ip + 2, (uint16_t)iplen);
		sofl_put16(ip + 4, 0x1234);
		sofl_put16(ip + 6, 0x4000);	/* DF */
		ip[8] = 64;
		ip[9] = udp ? 17 : in->ipv == 4 ? 4 : 41;
		memcpy(ip + 12, e->osrc, 4);
		memcpy(ip + 16, e->odst, 4);
		sofl_put16(ip + 10, (uint16_t)~te_sum(0, ip, 20));
		o += 20;
	} else {
		uint8_t *ip = buf + o;

		ip[0] = 0x60;
		sofl_put16(ip + 4, (uint16_t)(iplen - 40));
		ip[6] = udp ? 17 : in->ipv == 4 ? 4 : 41;
		ip[7] = 64;
		memcpy(ip + 8, e->osrc, 16);
		memcpy(ip + 24, e->odst, 16);
		o += 40;
	}
	l.outer_l4 = udp ? o : 0;
	if (udp) {
		sofl_put16(buf + o, e->sport);
		sofl_put16(buf + o + 2, e->dport);
		sofl_put16(buf + o + 4, (uint16_t)(8 + tun + inner_len));
		o += 8;
	}
	l.encap = o;
	if (e->encap == SOFL_ENCAP_VXLAN) {
		buf[o] = 0x08;
		buf[o + 4] = (uint8_t)(e->vni >> 16);
		buf[o + 5] = (uint8_t)(e->vni >> 8);
		buf[o + 6] = (uint8_t)e->vni;
	} else if (e->encap == SOFL_ENCAP_GENEVE) {
		buf[o] = (uint8_t)(e->geneve_opt_len / 4);
		sofl_put16(buf + o + 2, e->geneve_proto);
		buf[o + 4] = (uint8_t)(e->vni >> 16);
		buf[o + 5] = (uint8_t)(e->vni >> 8);
		buf[o + 6] = (uint8_t)e->vni;
		memset(buf + o + 8, 0x5a, e->geneve_opt_len);
	}
	o += tun;
	l.inner_l2 = o;
	l.inner_l3 = o + (eth ? 14 + 4 * (size_t)s.nvlan : 0);
	memcpy(buf + o, inner, inner_len);
	o += inner_len;
	l.len = o;
	if (udp && e->udp_csum) {
		uint8_t *u = buf + l.outer_l4;
		const uint8_t *ip = buf + l.outer_l3;
		uint16_t c = te_l4_csum(e->outer_ipv, ip + (e->outer_ipv == 4 ? 12 : 8),
					ip + (e->outer_ipv == 4 ? 16 : 24), 17, u, o - l.outer_l4);

		sofl_put16(u + 6, c ? c : 0xffff);
	}
	if (lay)
		*lay = l;
	return o;
}

int
te_parse_plain(struct sofl_pkt *p, const uint8_t *buf, size_t len)
{
	struct sofl_pkt_config c;

	/* no UDP ports, no IP-in-IP: the parse before tunnels (pkt.h) */
	sofl_pkt_config_init(&c);
	c.n_udp = 0;
	c.flags |= SOFL_PKT_F_NO_IPIP;
	return sofl_pkt_parse_cfg(p, buf, len, SOFL_LINK_ETH, &c);
}

static uint16_t
shift16(uint16_t v, size_t by)
{
	return v ? (uint16_t)(v + by) : 0;
}

void
te_pkt(struct sofl_pkt *p, const uint8_t *buf, const struct te_spec *e,
       const struct te_layout *lay)
{
	struct sofl_pkt o, i;
	int eth = lay->inner_l3 != lay->inner_l2;
	size_t base = lay->inner_l2;

	te_parse_plain(&o, buf, lay->len);
	sofl_pkt_parse(&i, buf + base, lay->len - base, eth ? SOFL_LINK_ETH : SOFL_LINK_RAW);
	*p = i;
	p->data = buf;
	p->len = (uint32_t)lay->len;
	p->link = SOFL_LINK_ETH;
	p->layers = (uint8_t)((i.layers & (SOFL_LAYER_L3 | SOFL_LAYER_L4)) |
			      (o.layers & SOFL_LAYER_L2) | SOFL_LAYER_ENCAP);
	p->ethertype = o.ethertype;
	memcpy(p->vlan_tci, o.vlan_tci, sizeof(p->vlan_tci));
	memcpy(p->vlan_tpid, o.vlan_tpid, sizeof(p->vlan_tpid));
	p->key.nvlan = o.key.nvlan;
	memcpy(p->key.vlan, o.key.vlan, sizeof(p->key.vlan));
	p->l3_off = (uint16_t)(i.l3_off + base);
	p->ip_end = (uint32_t)(i.ip_end + base);
	p->frag_off_hdr = shift16(i.frag_off_hdr, base);
	p->l4_off = (uint16_t)(i.l4_off + base);
	p->pay_off = (uint32_t)(i.pay_off + base);
	p->opt_mss = shift16(i.opt_mss, base);
	p->opt_ws = shift16(i.opt_ws, base);
	p->opt_sackok = shift16(i.opt_sackok, base);
	p->opt_sack = shift16(i.opt_sack, base);
	p->opt_ts = shift16(i.opt_ts, base);
	p->encap = (uint8_t)e->encap;
	p->encap_flags = (uint8_t)((eth ? SOFL_ENCAP_F_INNER_ETH : 0) |
				   (lay->outer_l4 && sofl_get16(buf + lay->outer_l4 + 6) ?
				    SOFL_ENCAP_F_UDP_CSUM : 0));
	p->encap_err = SOFL_ENCAP_ERR_NONE;
	p->outer_ipv = (uint8_t)e->outer_ipv;
	p->outer_l3_off = (uint16_t)lay->outer_l3;
	p->outer_l3_len = o.l3_len;
	p->outer_l4_off = (uint16_t)lay->outer_l4;
	p->encap_off = (uint16_t)(lay->outer_l4 ? lay->encap : lay->inner_l3);
	p->encap_len = (uint16_t)(lay->outer_l4 ? lay->inner_l2 - lay->encap : 0);
	p->inner_l2_off = (uint16_t)lay->inner_l2;
	p->encap_inner_err = 0;
	p->outer_proto = o.l4_proto;
	p->outer_ip_end = o.ip_end;
	p->vni = e->encap == SOFL_ENCAP_IPIP ? 0 : e->vni;
}
