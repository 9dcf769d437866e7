/* The one packet parser every engine consumes (pkt.h). */
#include <string.h>
#include "softoffload/pkt.h"
#include "softoffload/bytes.h"
#include "pkt_impl.h"

_Static_assert(sizeof(struct sofl_pkt) == SOFL_PKT_SIZE, "sofl_pkt's size is ABI");


static int
parse_l2(struct sofl_pkt *p, uint32_t *off)
{
	const uint8_t *d = p->data;
	uint32_t o = PK_ETH_HLEN;
	uint16_t type;

	if (p->len < PK_ETH_HLEN)
		return SOFL_E_TRUNC_L2;
	type = sofl_get16(d + 12);
	while (type == PK_ETH_P_8021Q || type == PK_ETH_P_8021AD) {
		if (p->key.nvlan == SOFL_PKT_VLAN_MAX)
			break;		/* a third tag: treated as an unknown ethertype */
		if (p->len < o + 4)
			return SOFL_E_TRUNC_L2;
		pk_vlan_push(p, type, sofl_get16(d + o));
		type = sofl_get16(d + o + 2);
		o += 4;
	}
	p->ethertype = type;
	p->layers |= SOFL_LAYER_L2;
	*off = o;
	return 0;
}

static int
parse_ipv4(struct sofl_pkt *p, uint32_t o)
{
	const uint8_t *ip = p->data + o;
	uint32_t hl, tot;
	uint16_t frag;
	int err;

	if (p->len < o + 20)
		return SOFL_E_TRUNC_L3;
	if ((ip[0] >> 4) != 4)
		return SOFL_E_IP_VERSION;
	hl = (uint32_t)(ip[0] & 0x0f) * 4;
	if (hl < 20)
		return SOFL_E_IPV4_IHL;
	if (p->len < o + hl)
		return SOFL_E_IPV4_HDR_TRUNC;
	if ((err = pk_ipv4_len(ip, o, p->len, hl, &tot)) < 0)
		return err;
	pk_ipv4_store(p, ip, o, hl, tot);
	p->ip_hl_opts = (uint16_t)(hl - 20);
	frag = sofl_get16(ip + 6);
	if (pk_ipv4_frag(ip)) {
		p->is_frag = 1;
		p->frag_first = (frag & 0x1fff) == 0;
	}
	p->layers |= SOFL_LAYER_L3;
	return 0;
}

static int
parse_ipv6(struct sofl_pkt *p, uint32_t o)
{
	const uint8_t *ip = p->data + o;
	uint32_t end, h;
	uint8_t nh;
	int err;

	if (p->len < o + 40)
		return SOFL_E_TRUNC_L3;
	if ((ip[0] >> 4) != 6)
		return SOFL_E_IP_VERSION;
	if ((err = pk_ipv6_end(ip, o, p->len, &end)) < 0)
		return err;
	pk_ipv6_store(p, ip, o, end);

	nh = ip[6];
	h = o + 40;
	for (;;) {
		uint32_t elen;
		uint8_t bit;

		switch (nh) {
		case 0:  bit = SOFL_EXT_HOP; break;
		case 43: bit = SOFL_EXT_ROUTE; break;
		case 60: bit = SOFL_EXT_DEST; break;
		case 44: bit = SOFL_EXT_FRAG; break;
		default: bit = 0; break;
		}
		if (!bit)
			break;
		if (nh == 0 && h != o + 40)
			break;		/* HBH only first (RFC 8200 §4.1): treat as upper layer */
		if (p->n_exthdr == SOFL_PKT_EXTHDR_MAX)
			return SOFL_E_EXTHDR_CHAIN;
		if (h + 8 > end)
			return SOFL_E_EXTHDR_TRUNC;
		if (nh == 44) {
			uint16_t fo = sofl_get16(p->data + h + 2);
			elen = 8;
			p->frag_off_hdr = (uint16_t)h;
			p->is_frag = 1;
			p->frag_first = (fo & 0xfff8) == 0;
		} else {
			elen = ((uint32_t)p->data[h + 1] + 1) * 8;
			if (h + elen > end)
				return SOFL_E_EXTHDR_TRUNC;
		}
		p->exthdr |= bit;
		p->n_exthdr++;
		nh = p->data[h];
		h += elen;
		if (bit == SOFL_EXT_FRAG)
			break;	/* what follows belongs to the reassembled datagram */
	}
	p->l3_len = (uint16_t)(h - o);
	p->l4_proto = nh;
	p->key.proto = nh;
	p->layers |= SOFL_LAYER_L3;
	return 0;
}

void
sofl_pkt_tcp_options(struct sofl_pkt *p)
{
	const uint8_t *d = p->data;
	uint32_t i = p->l4_off + 20, end = p->l4_off + p->l4_len;

	while (i < end) {
		uint8_t kind = d[i], olen;

		if (kind == 0)		/* EOL */
			break;
		if (kind == 1) {	/* NOP */
			i++;
			continue;
		}
		if (i + 1 >= end) {
			p->tcp_opt_bad = 1;
			break;
		}
		olen = d[i + 1];
		if (olen < 2 || i + olen > end) {
			p->tcp_opt_bad = 1;
			break;
		}
		switch (kind) {
		case 2:  if (olen == 4) p->opt_mss = (uint16_t)i; else p->tcp_opt_bad = 1; break;
		case 3:  if (olen == 3) p->opt_ws = (uint16_t)i; else p->tcp_opt_bad = 1; break;
		case 4:  if (olen == 2) p->opt_sackok = (uint16_t)i; else p->tcp_opt_bad = 1; break;
		case 5:  if (olen >= 10 && (olen - 2) % 8 == 0) p->opt_sack = (uint16_t)i;
			 else p->tcp_opt_bad = 1;
			 break;
		case 8:  if (olen == 10) p->opt_ts = (uint16_t)i; else p->tcp_opt_bad = 1; break;
		default: break;
		}
		i += olen;
	}
}

static int
parse_l4(struct sofl_pkt *p)
{
	const uint8_t *d = p->data;
	uint32_t o = p->l3_off + p->l3_len, avail = p->ip_end - o, hl, ulen;
	int err;

	p->l4_off = (uint16_t)o;
	p->pay_off = o;
	p->pay_len = avail;
	if (p->is_frag)
		return 0;
	if (p->l4_proto == 6) {
		if ((err = pk_tcp_hlen(d + o, avail, &hl)) < 0)
			return err;
		p->layers |= SOFL_LAYER_L4;
		pk_tcp_store(p, d, o, hl, avail);	/* (after the layer: the option walk reads p) */
	} else if (p->l4_proto == 17) {
		if ((err = pk_udp_len(d + o, avail, &ulen)) < 0)
			return err;
		pk_udp_store(p, d, o, ulen);
		p->layers |= SOFL_LAYER_L4;
	}
	return 0;
}

int
sofl_pkt_parse_ip(struct sofl_pkt *p, uint32_t o, int v)
{
	int err = v == 4 ? parse_ipv4(p, o) : parse_ipv6(p, o);

	return err ? err : parse_l4(p);
}

/* ---- entry points ----
 * The fast path (the common layouts in straight-line code) is
 * pk_parse_fast() in pkt_impl.h, inline so that GRO does not pay a call;
 * what it does not finish is parsed from scratch by the generic code below.
 * A packet that carries a tunnel (pk_encap_cand()) goes on to
 * sofl_pkt_encap() (pkt_encap.c) from either.
 * tests/test_pkt_fast.c holds both to the same bytes. */

/* The generic parser of the outer packet: every layout and every error. */
int
sofl_pkt_parse_plain(struct sofl_pkt *p, const void *frame, size_t len, enum sofl_link link)
{
	uint32_t off = 0;
	int err;

	pk_zero(p);
	p->data = frame;
	p->len = (uint32_t)len;
	p->link = (uint8_t)link;

	if (link == SOFL_LINK_ETH) {
		err = parse_l2(p, &off);
		if (err)
			return err;
		if (p->ethertype == PK_ETH_P_IP)
			return sofl_pkt_parse_ip(p, off, 4);
		if (p->ethertype == PK_ETH_P_IPV6)
			return sofl_pkt_parse_ip(p, off, 6);
		return 0;	/* not IP: fine, just not ours */
	}
	if (link == SOFL_LINK_RAW) {
		if (len < 1)
			return SOFL_E_TRUNC_L3;
		switch (p->data[0] >> 4) {
		case 4:  return sofl_pkt_parse_ip(p, 0, 4);
		case 6:  return sofl_pkt_parse_ip(p, 0, 6);
		default: return SOFL_E_IP_VERSION;
		}
	}
	return SOFL_E_INVAL;
}

int
sofl_pkt_parse_rest(struct sofl_pkt *p, const void *frame, size_t len, enum sofl_link link,
		    const struct sofl_pkt_config *cfg, int fast)
{
	int err;

	if (!p || (!frame && len) || len > UINT32_MAX)
		return SOFL_E_INVAL;
	err = sofl_pkt_parse_plain(p, frame, len, link);
	if (err == 0 && pk_encap_cand(p, cfg))
		return sofl_pkt_encap(p, cfg, fast);
	return err;
}

int
sofl_pkt_parse_generic_cfg(struct sofl_pkt *p, const void *frame, size_t len, enum sofl_link link,
			   const struct sofl_pkt_config *cfg)
{
	return sofl_pkt_parse_rest(p, frame, len, link, cfg, 0);
}

int
sofl_pkt_parse_generic(struct sofl_pkt *p, const void *frame, size_t len, enum sofl_link link)
{
	return sofl_pkt_parse_rest(p, frame, len, link, NULL, 0);
}

/* sofl_pkt_parse() of what pk_fast_ip4() did not take */
static __attribute__((noinline)) int
parse_other(struct sofl_pkt *p, const void *frame, size_t len, enum sofl_link link)
{
	if (!p || (!frame && len) || len > UINT32_MAX)
		return SOFL_E_INVAL;
	return pk_parse_cfg(p, frame, (uint32_t)len, link, NULL, PK_UDP | PK_IP4_RAW);
}

/* parse_other() of an Ethernet frame the entry point checked (@p and @d
 * not NULL, @len >= 34): a call of three arguments, so that the entry
 * point need not keep the link in a register for it */
static __attribute__((noinline)) int
parse_eth(struct sofl_pkt *p, const uint8_t *d, size_t len)
{
	return pk_parse_cfg(p, d, (uint32_t)len, SOFL_LINK_ETH, NULL, PK_UDP | PK_IP4_RAW);
}

/* The option walk of a parse done but for it; returns 0, a value the
 * compiler is not to know (clang, knowing it, called this function where a
 * tail jump does, and aligned the stack on every parse for that call) */
static __attribute__((noinline)) int
parse_options(struct sofl_pkt *p)
{
	int r = 0;

	sofl_pkt_tcp_options(p);
	PK_OPAQUE(r);
	return r;
}

/* sofl_pkt_parse() of a frame whose ethertype @type is not IPv4 (a VLAN
 * tag, IPv6, anything else): TCP over IPv4 behind one tag by the whole-word
 * stores, the rest in parse_other().  Out of the entry point, whose register
 * pressure it raised: with it inline, gcc saved six callee-saved registers
 * on every TCP/IPv4 parse. */
static __attribute__((noinline)) int
parse_tagged(struct sofl_pkt *p, const uint8_t *d, uint32_t len, uint16_t type)
{
	int r = pk_fast_ip4_eth(p, d, len, type, PK_TCP);

	if (r == 1)
		return 0;
	if (r == 2)
		return parse_options(p);
	return parse_other(p, d, len, SOFL_LINK_ETH);
}

/* The entry point: TCP over IPv4 over untagged Ethernet inline, in
 * straight-line code, since saving registers and setting up a frame was a
 * good part of a fast parse (UDP in it as well slowed TCP down; figures in
 * docs/benchmarks.md).  With gcc 12 and clang 14 it saves no register,
 * and a checked TCP/IPv4 frame with the NOP NOP TS block runs from entry to
 * return without a taken branch.  Other ethertypes go to parse_tagged(),
 * the rest of an Ethernet frame to parse_eth(), anything else to
 * parse_other(): UDP over IPv4 and raw IPv4 by the same whole-word stores
 * first, then a tunnel (UDP to 4789 or 6081, protocols 4 and 41) on into
 * sofl_pkt_encap().  TCP never reaches the tunnel checks. */
SOFL_API int
sofl_pkt_parse(struct sofl_pkt *p, const void *frame, size_t len, enum sofl_link link)
{
	const uint8_t *d = frame;
	uint16_t type;
	int r;

	if (__builtin_expect(link == SOFL_LINK_ETH && p && d && len >= PK_ETH_HLEN + 20 &&
			     len <= UINT32_MAX, 1)) {
		type = sofl_get16(d + 12);
		if (type != PK_ETH_P_IP)
			return parse_tagged(p, d, (uint32_t)len, type);
		r = pk_fast_ip4(p, d, (uint32_t)len, PK_ETH_HLEN, 0, 0, PK_TCP);
		if (r == 1)
			return 0;
		if (r == 2)
			return parse_options(p);
		return parse_eth(p, d, len);
	}
	return parse_other(p, frame, len, link);
}

SOFL_API void
sofl_pkt_config_init(struct sofl_pkt_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	cfg->n_udp = 2;
	cfg->udp[0].port = PK_VXLAN_PORT;
	cfg->udp[0].type = SOFL_ENCAP_VXLAN;
	cfg->udp[1].port = PK_GENEVE_PORT;
	cfg->udp[1].type = SOFL_ENCAP_GENEVE;
}

/* sofl_pkt_parse_cfg() of what pk_fast_ip4() did not take (@ip4 as for
 * pk_parse_fast()) */
static __attribute__((noinline)) int
parse_other_cfg(struct sofl_pkt *p, const void *frame, size_t len, enum sofl_link link,
		const struct sofl_pkt_config *cfg, int ip4)
{
	if (!p || (!frame && len) || len > UINT32_MAX)
		return SOFL_E_INVAL;
	return pk_parse_cfg(p, frame, (uint32_t)len, link, cfg, ip4);
}

/* sofl_pkt_parse_cfg() with a config that is not simply this version's */
static __attribute__((noinline)) int
parse_cfg_check(struct sofl_pkt *p, const void *frame, size_t len, enum sofl_link link,
		const struct sofl_pkt_config *cfg)
{
	int err = sofl_pkt_config_check(cfg);

	return err < 0 ? err : parse_other_cfg(p, frame, len, link, cfg,
					       PK_TCP | PK_UDP | PK_IP4_RAW);
}

/* As sofl_pkt_parse(): TCP over IPv4 over Ethernet first (never a tunnel
 * packet) in a leaf function, once the config is known good; every call
 * from it a tail call */
SOFL_API int
sofl_pkt_parse_cfg(struct sofl_pkt *p, const void *frame, size_t len, enum sofl_link link,
		   const struct sofl_pkt_config *cfg)
{
	const uint8_t *d = frame;
	int r;

	if (cfg && !pk_cfg_ok(cfg))
		return parse_cfg_check(p, frame, len, link, cfg);
	if (link == SOFL_LINK_ETH && p && d && len >= PK_ETH_HLEN + 20 && len <= UINT32_MAX) {
		r = pk_fast_ip4_eth(p, d, (uint32_t)len, sofl_get16(d + 12), PK_TCP);
		if (r == 1)
			return 0;
		if (r == 2)
			return parse_options(p);
	}
	return parse_other_cfg(p, frame, len, link, cfg, PK_UDP | PK_IP4_RAW);
}
