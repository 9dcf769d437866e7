/* virtio-net header: wire form, Linux's acceptance rules, translation to and
 * from segmentation parameters (vnet.h).  Rule numbers are those listed at
 * the top of vnet.h, in the order of Linux 6.18 __virtio_net_hdr_to_skb(),
 * virtio_net_hdr_tnl_to_skb() and virtio_net_handle_csum_offload()
 * (include/linux/virtio_net.h). */
#include <string.h>
#include "softoffload/vnet.h"
#include "gso/vnet_impl.h"
#include "csum/csum_impl.h"

#define ETH_P_IP   0x0800
#define ETH_P_IPV6 0x86DD
#define KNOWN_FLAGS \
	(SOFL_VNET_HDR_F_NEEDS_CSUM | SOFL_VNET_HDR_F_DATA_VALID | SOFL_VNET_HDR_F_RSC_INFO)
#define ETH_HLEN 14
#define UDP_HLEN 8
/* the inner type of a UDP-tunnel gso_type */
#define TNL_INNER(t) ((uint8_t)((t) & ~(SOFL_GSO_ECN | SOFL_VNET_GSO_UDP_TUNNEL)))

static int
size_ok(size_t hdr_size, unsigned opts)
{
	switch (hdr_size) {
	case SOFL_VNET_HDR_LEN:
	case SOFL_VNET_HDR_MRG_LEN:
		return 1;
	case SOFL_VNET_HDR_TNL_LEN:
		return !(opts & SOFL_VNET_F_NATIVE);	/* virtio 1.0 only: little-endian */
	default:
		return 0;
	}
}

static uint16_t
get_wire16(const uint8_t *b, unsigned opts)
{
	uint16_t v;

	if (!(opts & SOFL_VNET_F_NATIVE))
		return (uint16_t)(b[0] | b[1] << 8);
	memcpy(&v, b, 2);
	return v;
}

static void
put_wire16(uint8_t *b, uint16_t v, unsigned opts)
{
	if (!(opts & SOFL_VNET_F_NATIVE)) {
		b[0] = (uint8_t)v;
		b[1] = (uint8_t)(v >> 8);
	} else {
		memcpy(b, &v, 2);
	}
}

SOFL_API int
sofl_vnet_decode(struct sofl_vnet_hdr *h, const void *buf, size_t len, size_t hdr_size,
		 unsigned opts)
{
	const uint8_t *b = buf;

	if (!h || !b || !size_ok(hdr_size, opts))
		return SOFL_E_INVAL;
	if (len < hdr_size)
		return SOFL_E_VNET_SHORT;
	h->flags = b[0];
	h->gso_type = b[1];
	h->hdr_len = get_wire16(b + 2, opts);
	h->gso_size = get_wire16(b + 4, opts);
	h->csum_start = get_wire16(b + 6, opts);
	h->csum_offset = get_wire16(b + 8, opts);
	h->num_buffers = hdr_size >= SOFL_VNET_HDR_MRG_LEN ? get_wire16(b + 10, opts) : 0;
	h->outer_th_offset = hdr_size >= SOFL_VNET_HDR_TNL_LEN ? get_wire16(b + 20, 0) : 0;
	h->inner_nh_offset = hdr_size >= SOFL_VNET_HDR_TNL_LEN ? get_wire16(b + 22, 0) : 0;
	return (int)hdr_size;
}

SOFL_API int
sofl_vnet_encode(void *buf, size_t cap, const struct sofl_vnet_hdr *h, size_t hdr_size,
		 unsigned opts)
{
	uint8_t *b = buf;

	if (!h || !b || !size_ok(hdr_size, opts))
		return SOFL_E_INVAL;
	if (cap < hdr_size)
		return SOFL_E_NOSPC;
	b[0] = h->flags;
	b[1] = h->gso_type;
	put_wire16(b + 2, h->hdr_len, opts);
	put_wire16(b + 4, h->gso_size, opts);
	put_wire16(b + 6, h->csum_start, opts);
	put_wire16(b + 8, h->csum_offset, opts);
	if (hdr_size >= SOFL_VNET_HDR_MRG_LEN)
		put_wire16(b + 10, h->num_buffers, opts);
	if (hdr_size >= SOFL_VNET_HDR_TNL_LEN) {
		memset(b + 12, 0, 8);	/* hash report: not kept */
		put_wire16(b + 20, h->outer_th_offset, 0);
		put_wire16(b + 22, h->inner_nh_offset, 0);
	}
	return (int)hdr_size;
}

/* What a gso_type implies (rule 1). */
struct gso_kind {
	uint8_t proto;		/* 6 or 17 */
	uint8_t thlen;		/* minimal L4 header: 20 or 8 */
	uint8_t nh_min;		/* minimal csum_start: 20, 40 for TCPV6 */
	uint8_t ipv;		/* required IP version, 0 = either */
};

static int
gso_kind(uint8_t gso_type, struct gso_kind *k)
{
	switch (gso_type & ~SOFL_GSO_ECN) {
	case SOFL_GSO_TCPV4:  *k = (struct gso_kind){ 6, 20, 20, 4 }; return 0;
	case SOFL_GSO_TCPV6:  *k = (struct gso_kind){ 6, 20, 40, 6 }; return 0;
	case SOFL_GSO_UFO:    *k = (struct gso_kind){ 17, 8, 20, 0 }; return 0;
	case SOFL_GSO_UDP_L4: *k = (struct gso_kind){ 17, 8, 20, 0 }; return 0;
	default: return SOFL_E_VNET_GSO_TYPE;
	}
}

/* IP version the frame declares: ethertype (TAP) or version nibble (TUN). */
static int
frame_ipv(const struct sofl_pkt *p)
{
	if (p->link == SOFL_LINK_RAW)
		return p->len ? p->data[0] >> 4 : 0;
	if (!(p->layers & SOFL_LAYER_L2))
		return 0;
	return p->ethertype == ETH_P_IP ? 4 : p->ethertype == ETH_P_IPV6 ? 6 : 0;
}

/* Rule 3: NEEDS_CSUM.  Offsets are from the frame start, as in the kernel. */
static int
check_csum(const struct sofl_vnet_hdr *h, const struct sofl_pkt *p, unsigned thlen,
	   unsigned nh_min, uint32_t *p_off)
{
	uint32_t start = h->csum_start, off = h->csum_offset;

	if (start + thlen > p->len)
		return SOFL_E_VNET_L4_TRUNC;
	if (start + off + 2 > p->len)
		return SOFL_E_VNET_CSUM_OFFSET;
	if (start >= 0xFFFF || start < nh_min)
		return SOFL_E_VNET_CSUM_START;
	*p_off = start + thlen;
	return 0;
}

/* A VXLAN/Geneve parse: the outer headers end in UDP. */
static int
udp_tunnel(const struct sofl_pkt *p)
{
	return (p->layers & SOFL_LAYER_ENCAP) &&
	       (p->encap == SOFL_ENCAP_VXLAN || p->encap == SOFL_ENCAP_GENEVE);
}

/* Rule 4: GSO without NEEDS_CSUM: the kernel dissects the packet itself
 * (skb_flow_dissect_flow_keys_basic()), which stops at a UDP tunnel's outer
 * UDP header and follows IP-in-IP into the inner packet. */
static int
check_dissect(const struct sofl_pkt *p, const struct gso_kind *k, uint32_t *p_off)
{
	int ipv = frame_ipv(p);
	uint32_t l4_off = p->l4_off;
	uint8_t proto = p->l4_proto;

	if (ipv != 4 && ipv != 6)
		return SOFL_E_VNET_PROTO;
	if (k->ipv && ipv != k->ipv)
		return SOFL_E_VNET_PROTO;
	if (udp_tunnel(p)) {
		l4_off = p->outer_l4_off;
		proto = 17;
	} else if (!(p->layers & SOFL_LAYER_L3) || p->is_frag) {
		return SOFL_E_VNET_PROTO;
	}
	if (proto != k->proto)
		return SOFL_E_VNET_PROTO;
	if (l4_off + k->thlen > p->len)
		return SOFL_E_VNET_L4_TRUNC;
	*p_off = l4_off + k->thlen;
	return 0;
}

/* Rules 1-7 for @gso_type (the header's, or a tunnel header's without its
 * tunnel bits). */
static int
check_plain(const struct sofl_vnet_hdr *h, uint8_t gso_type, const struct sofl_pkt *p)
{
	struct gso_kind k = { 0, 0, 20, 0 };
	uint8_t base = gso_type & ~SOFL_GSO_ECN;
	int gso, err;
	uint32_t p_off = 0, nh_off;

	gso = gso_type != SOFL_GSO_NONE;
	if (gso) {
		if ((err = gso_kind(gso_type, &k)) < 0)			/* rule 1 */
			return err;
		if (h->gso_size == 0)					/* rule 2 */
			return SOFL_E_VNET_GSO_SIZE;
	}
	if (h->flags & SOFL_VNET_HDR_F_NEEDS_CSUM)
		err = check_csum(h, p, k.thlen, k.nh_min, &p_off);	/* rule 3 */
	else if (gso)
		err = check_dissect(p, &k, &p_off);			/* rule 4 */
	else
		err = 0;
	if (err < 0)
		return err;
	if (!gso)
		return 0;
	if (base == SOFL_GSO_UDP_L4) {				/* rule 5 */
		if (!(h->flags & SOFL_VNET_HDR_F_NEEDS_CSUM))
			return SOFL_E_VNET_NO_CSUM;
		if (h->csum_offset != 6)
			return SOFL_E_VNET_CSUM_OFFSET;
		if (p->len - p_off > (uint32_t)h->gso_size * SOFL_GSO_UDP_MAX_SEGS)
			return SOFL_E_VNET_TOO_MANY;
		if (gso_type & SOFL_GSO_ECN)
			return SOFL_E_VNET_ECN;
	} else if (base != SOFL_GSO_UFO &&
		   (h->flags & SOFL_VNET_HDR_F_NEEDS_CSUM) && h->csum_offset != 16) {
		return SOFL_E_VNET_CSUM_OFFSET;				/* rule 6 */
	}
	if (h->gso_size == SOFL_VNET_GSO_BY_FRAGS)			/* rule 7 */
		return SOFL_E_VNET_GSO_SIZE;
	/* UFO's gso_size counts the UDP header too */
	nh_off = base == SOFL_GSO_UFO ? p_off - k.thlen : p_off;
	return p->len - nh_off > h->gso_size ? 1 : 0;
}

static unsigned
l3min(int is_v6)
{
	return is_v6 ? 40 : 20;
}

/* Rules T1-T8: a header with a UDP-tunnel bit (virtio_net_hdr_tnl_to_skb). */
static int
check_tunnel(const struct sofl_vnet_hdr *h, const struct sofl_pkt *p, unsigned opts)
{
	uint8_t tnl = h->gso_type & SOFL_VNET_GSO_UDP_TUNNEL, inner = TNL_INNER(h->gso_type);
	uint32_t outer_th = h->outer_th_offset, inner_nh = h->inner_nh_offset;
	uint32_t inner_th = h->csum_start;
	int r;

	if (!(opts & SOFL_VNET_F_TUNNEL))				/* T1 */
		return SOFL_E_VNET_TNL_FEATURE;
	if (tnl == SOFL_VNET_GSO_UDP_TUNNEL)				/* T2 */
		return SOFL_E_VNET_TNL_FAMILY;
	if (inner == SOFL_GSO_NONE || inner == SOFL_GSO_UFO)		/* T3 */
		return SOFL_E_VNET_GSO_TYPE;
	if (!(h->flags & SOFL_VNET_HDR_F_NEEDS_CSUM))			/* T4 */
		return SOFL_E_VNET_NO_CSUM;
	if (outer_th < ETH_HLEN + l3min(tnl == SOFL_VNET_GSO_UDP_TUNNEL_IPV6) ||	/* T5 */
	    inner_nh < outer_th + UDP_HLEN ||
	    inner_th < inner_nh + l3min(inner == SOFL_GSO_TCPV6))
		return SOFL_E_VNET_TNL_OFFSET;
	r = check_plain(h, (uint8_t)(h->gso_type & ~tnl), p);		/* T6 */
	if (r < 0)
		return r;
	/* T7: USO does not name the inner IP version; the byte is in the frame
	 * (T5 and rule 3 put inner_nh + 20 <= csum_start <= p->len - 8) */
	if (inner == SOFL_GSO_UDP_L4 && p->data[inner_nh] >> 4 == 6 &&
	    inner_th < inner_nh + l3min(1))
		return SOFL_E_VNET_TNL_OFFSET;
	if ((h->flags & SOFL_VNET_HDR_F_UDP_TUNNEL_CSUM) &&		/* T8 */
	    !(opts & SOFL_VNET_F_TUNNEL_CSUM))
		return SOFL_E_VNET_TNL_CSUM;
	return r;
}

SOFL_API int
sofl_vnet_check(const struct sofl_vnet_hdr *h, const struct sofl_pkt *p, unsigned opts)
{
	unsigned known = KNOWN_FLAGS;

	if (!h || !p || (!p->data && p->len))
		return SOFL_E_INVAL;
	if (opts & SOFL_VNET_F_TUNNEL)
		known |= SOFL_VNET_HDR_F_UDP_TUNNEL_CSUM;
	if ((opts & SOFL_VNET_F_STRICT) && (h->flags & ~known))
		return SOFL_E_VNET_FLAGS;
	/* rule C (virtio_net_handle_csum_offload) */
	if (h->flags & SOFL_VNET_HDR_F_DATA_VALID) {
		if (h->gso_type & SOFL_VNET_GSO_UDP_TUNNEL)
			return SOFL_E_VNET_DATA_VALID;
		if ((h->flags & SOFL_VNET_HDR_F_UDP_TUNNEL_CSUM) &&
		    !(opts & SOFL_VNET_F_TUNNEL_CSUM))
			return SOFL_E_VNET_TNL_CSUM;
	}
	if (h->gso_type & SOFL_VNET_GSO_UDP_TUNNEL)
		return check_tunnel(h, p, opts);
	return check_plain(h, h->gso_type, p);
}

/* The segmentation-time fit of a tunnel header to the parse
 * (skb_udp_tunnel_segment() cuts at the header's offsets; we cut at the
 * parse's, so they must be the same). */
static int
tunnel_fit(const struct sofl_vnet_hdr *h, const struct sofl_pkt *p)
{
	uint8_t tnl = h->gso_type & SOFL_VNET_GSO_UDP_TUNNEL;

	if (!udp_tunnel(p) || (p->encap_flags & SOFL_ENCAP_F_NESTED))
		return SOFL_E_VNET_PROTO;
	if (p->outer_ipv != (tnl == SOFL_VNET_GSO_UDP_TUNNEL_IPV6 ? 6 : 4))
		return SOFL_E_VNET_TNL_FAMILY;
	if (h->outer_th_offset != p->outer_l4_off || h->inner_nh_offset != p->l3_off)
		return SOFL_E_VNET_TNL_OFFSET;
	return 0;
}

SOFL_API int
sofl_vnet_to_gso(const struct sofl_vnet_hdr *h, const struct sofl_pkt *p, unsigned opts,
		 struct sofl_gso_params *gp)
{
	struct sofl_gso_params g;
	uint8_t base, tnl;
	int r;

	if (!gp)
		return SOFL_E_INVAL;
	r = sofl_vnet_check(h, p, opts);
	if (r < 0)
		return r;
	memset(&g, 0, sizeof(g));
	tnl = h->gso_type & SOFL_VNET_GSO_UDP_TUNNEL;
	base = tnl ? TNL_INNER(h->gso_type) : (uint8_t)(h->gso_type & ~SOFL_GSO_ECN);
	if (r == 1) {
		struct gso_kind k;

		gso_kind(base, &k);
		if (tnl) {
			if ((r = tunnel_fit(h, p)) < 0)
				return r;
		} else if (p->layers & SOFL_LAYER_ENCAP) {
			/* segmented by the outer protocol in Linux: not this type */
			return SOFL_E_VNET_PROTO;
		}
		/* tcp_gso_segment/__udp_gso_segment: a whole, parsed packet whose
		 * checksum starts at its (inner) transport header */
		if (!(p->layers & SOFL_LAYER_L4) || p->l4_proto != k.proto ||
		    (k.ipv && p->ipv != k.ipv))
			return SOFL_E_VNET_PROTO;
		if ((h->flags & SOFL_VNET_HDR_F_NEEDS_CSUM) && h->csum_start != p->l4_off)
			return SOFL_E_VNET_CSUM_START;
		g.gso_size = h->gso_size;
		if (base == SOFL_GSO_UDP_L4) {
			g.type = SOFL_GSO_UDP_L4;
		} else if (base == SOFL_GSO_UFO) {
			g.type = SOFL_GSO_UFO;
			g.flags = SOFL_GSO_F_IGNORE_DF;
		} else {
			g.type = base;	/* SOFL_GSO_TCPV4 or SOFL_GSO_TCPV6 */
		}
		if (tnl)
			g.type |= h->flags & SOFL_VNET_HDR_F_UDP_TUNNEL_CSUM ?
				  SOFL_GSO_TUNNEL_UDP_CSUM : SOFL_GSO_TUNNEL_UDP;
		/* TCP payload <= gso_size is non-GSO for tcp_gso_segment too */
		if (base != SOFL_GSO_UFO && p->pay_len <= g.gso_size)
			g = (struct sofl_gso_params){ 0 };
	} else if (h->gso_type == SOFL_GSO_NONE && (h->flags & SOFL_VNET_HDR_F_NEEDS_CSUM)) {
		/* not GSO: validate_xmit_skb() -> skb_checksum_help() completes
		 * the one checksum csum_start/csum_offset name (an inner or
		 * outer one of a tunnel packet, any protocol), nothing else;
		 * rule 3 (check_csum) put the field inside the frame */
		g.flags = SOFL_GSO_F_CSUM_AT;
		g.csum_start = h->csum_start;
		g.csum_offset = h->csum_offset;
	}
	*gp = g;
	return g.type != SOFL_GSO_NONE;
}

SOFL_API int
sofl_vnet_from_pkt(struct sofl_vnet_hdr *h, const struct sofl_pkt *p, uint16_t gso_size,
		   unsigned opts)
{
	struct sofl_vnet_hdr v;
	int gso, r;

	if (!h || !p)
		return SOFL_E_INVAL;
	memset(&v, 0, sizeof(v));
	gso = gso_size && (p->layers & SOFL_LAYER_L4) && p->pay_len > gso_size;
	if ((gso_size || (opts & SOFL_VNET_F_MK_CSUM)) && !(p->layers & SOFL_LAYER_L4)) {
		if (!(p->layers & SOFL_LAYER_L3))
			return SOFL_E_NOT_IP;
		return p->is_frag ? SOFL_E_FRAGMENT : SOFL_E_NOT_TCPUDP;
	}
	if (p->layers & SOFL_LAYER_L4)
		v.hdr_len = (uint16_t)p->pay_off;
	if (gso) {
		if (p->l4_proto == 17)
			v.gso_type = SOFL_GSO_UDP_L4;
		else
			v.gso_type = p->ipv == 4 ? SOFL_GSO_TCPV4 : SOFL_GSO_TCPV6;
		if ((opts & SOFL_VNET_F_MK_ECN) && p->l4_proto == 6)
			v.gso_type |= SOFL_GSO_ECN;
		v.gso_size = gso_size;
	}
	if (gso && (p->layers & SOFL_LAYER_ENCAP)) {	/* virtio_net_hdr_tnl_from_skb() */
		if (!udp_tunnel(p))
			return SOFL_E_VNET_GSO_TYPE;	/* IP-in-IP: no virtio type */
		if (p->encap_flags & SOFL_ENCAP_F_NESTED)
			return SOFL_E_VNET_PROTO;
		if (!(opts & SOFL_VNET_F_TUNNEL))
			return SOFL_E_VNET_TNL_FEATURE;
		vnet_tunnel_fill(&v, (unsigned)SOFL_GSO_INNER(v.gso_type) |
				 (p->encap_flags & SOFL_ENCAP_F_UDP_CSUM ? SOFL_GSO_TUNNEL_UDP_CSUM :
				  SOFL_GSO_TUNNEL_UDP), p->outer_ipv, p->outer_l4_off, p->l3_off);
	}
	if (opts & SOFL_VNET_F_MK_CSUM) {
		v.flags |= SOFL_VNET_HDR_F_NEEDS_CSUM;
		v.csum_start = p->l4_off;
		v.csum_offset = p->l4_proto == 17 ? 6 : 16;
	}
	if (opts & SOFL_VNET_F_MK_VALID)
		v.flags |= SOFL_VNET_HDR_F_DATA_VALID;
	r = sofl_vnet_check(&v, p, opts & (SOFL_VNET_F_TUNNEL | SOFL_VNET_F_TUNNEL_CSUM));
	if (r < 0)
		return r;
	*h = v;
	return 0;
}
