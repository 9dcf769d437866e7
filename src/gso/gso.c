/* Segmentation: TSO/GSO, USO and IP fragmentation (gso.h), following Linux
 * tcp_gso_segment, __udp_gso_segment, udp4/6_ufo_fragment,
 * inet_gso_segment and ipv6_gso_segment (Linux 6.18, net/ipv4/tcp_offload.c,
 * net/ipv4/udp_offload.c, net/ipv6/udp_offload.c, net/ipv4/af_inet.c,
 * net/ipv6/ip6_offload.c).
 *
 * One call plans everything first (segment count, sizes, every capacity),
 * so that an error leaves the output untouched, then emits the segments in
 * one pass.  Sums that do not change between segments are taken once. */
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include "softoffload/gso.h"
#include "base/siphash.h"
#include "pkt/pkt_impl.h"
#include "csum/csum_impl.h"
#include "hdr.h"
#include "tun.h"
#include "gso_room.h"

#define IP4_DF 0x4000
#define IP4_MF 0x2000
#define FRAG6_LEN 8

enum kind { K_PASS, K_SEG, K_FRAG, K_CSUM_AT };

/* A walk over the frame's bytes as the caller holds them (iovecs). */
struct cursor {
	const struct iovec *iov;
	int cnt, i;
	size_t base;		/* frame offset of iov[i] */
};

struct job {
	const struct sofl_gso_params *gp;
	const struct sofl_pkt *p;
	struct cursor cur;
	struct iovec one;	/* contiguous input as a single iovec */
	int mode, kind, full, udp;
	uint32_t n, unit;	/* segments, payload bytes per segment */
	uint32_t cut_off;	/* frame offset where the cut data starts */
	uint32_t cut_len;
	uint32_t hlen;		/* header bytes copied from the input to every segment */
	uint32_t extra;		/* FRAG: bytes after hlen in the first fragment's header */
	uint32_t stride;
	uint32_t ip_base, ps_base, l4_base;
	uint16_t id0;
	uint16_t frag_nh_pos;	/* FRAG v6: where the next-header byte becomes 44 */
	uint8_t frag_nh;	/* FRAG v6: the next header the fragment header carries */
	uint16_t l4_check;	/* FRAG: the datagram's complete L4 checksum */
	uint32_t frag_id;	/* FRAG v6: the fragment headers' identification */
	uint16_t id_step;	/* the (inner) IPv4 ID's step: 0 fixed, 1 */
	uint8_t is_tun;		/* a tunnel type: tun fixes the outer headers */
	/* not zeroed by plan(): valid only when is_tun / when p points to it */
	struct gso_tun tun;
	struct sofl_pkt outer;	/* a type without tunnel bits on a tunnel parse: the outer packet */
};

static void
cur_init(struct cursor *c, const struct iovec *iov, int cnt)
{
	c->iov = iov;
	c->cnt = cnt;
	c->i = 0;
	c->base = 0;
}

/* Visits frame bytes [off, off+len) slice by slice; the cursor only moves
 * forward, so one pass over all segments costs O(segments + iovecs).
 * Slices are summed (sum != NULL, with their offset parity), recorded as
 * iovecs (iov != NULL) and/or copied to dst. */
static uint32_t
cur_take(struct cursor *c, size_t off, size_t len, struct iovec *iov, unsigned *niov,
	 uint8_t *dst, int sum)
{
	uint32_t s = 0;
	size_t done = 0;

	while (c->i < c->cnt && c->base + c->iov[c->i].iov_len <= off) {
		c->base += c->iov[c->i].iov_len;
		c->i++;
	}
	while (done < len) {
		const struct iovec *v = &c->iov[c->i];
		size_t at = off + done - c->base;
		size_t k = v->iov_len - at;
		const uint8_t *src = (const uint8_t *)v->iov_base + at;
		uint32_t part;

		if (k > len - done)
			k = len - done;
		if (iov && k) {
			iov[*niov].iov_base = (void *)(uintptr_t)src;
			iov[(*niov)++].iov_len = k;
		}
		if (dst && sum)
			part = sofl_csum_copy(dst + done, src, k, 0);
		else if (dst)
			memcpy(dst + done, src, k), part = 0;
		else
			part = sum ? sofl_csum_add(0, src, k) : 0;
		if (sum)
			s = sofl_csum_block_add(s, part, done);
		done += k;
		if (at + k == v->iov_len) {
			c->base += v->iov_len;
			c->i++;
		}
	}
	return s;
}

static unsigned
max_segs(const struct sofl_gso_params *gp)
{
	if (gp->max_segs)
		return gp->max_segs;
	switch (SOFL_GSO_INNER(gp->type)) {
	case SOFL_GSO_UDP_L4:  return SOFL_GSO_UDP_MAX_SEGS;
	case SOFL_GSO_UFO: return SOFL_GSO_FRAG_MAX_SEGS;
	default:               return SOFL_GSO_TCP_MAX_SEGS;
	}
}

/* IPv6: end of the unfragmentable part (RFC 8200 §4.5: hop-by-hop, and
 * everything up to a routing header), and the next-header byte that will
 * point at the fragment header.  The parser has validated the chain. */
static void
ipv6_unfrag(const struct sofl_pkt *p, uint32_t *end, uint16_t *nh_pos)
{
	const uint8_t *d = p->data;
	uint32_t o = p->l3_off + 40u, stop = (uint32_t)p->l3_off + p->l3_len;
	uint16_t pos = (uint16_t)(p->l3_off + 6);
	uint8_t nh = d[p->l3_off + 6];
	int rh = 0;

	*end = o;
	*nh_pos = pos;
	/* Linux ip6_find_1stfragopt(): hop-by-hop, routing and destination
	 * options headers are repeated in every fragment, up to a destination
	 * options header that follows a routing header (that one, and what
	 * follows, is fragmented) or the first other header.  (A destination
	 * options header with a home address option, CONFIG_IPV6_MIP6, is not
	 * looked for.) */
	while (o < stop && (nh == 0 || nh == 43 || nh == 60)) {
		uint32_t len = ((uint32_t)d[o + 1] + 1) * 8;

		if (nh == 60 && rh)
			break;
		if (nh == 43)
			rh = 1;
		*end = o + len;
		*nh_pos = (uint16_t)o;
		nh = d[o];
		o += len;
	}
}

static int
plan_pass(struct job *j)
{
	const struct sofl_pkt *p = j->p;

	j->kind = K_PASS;
	j->n = 1;
	j->hlen = p->pay_off;
	j->cut_off = p->pay_off;
	j->cut_len = p->ip_end - p->pay_off;	/* UDP: may go past its length */
	j->unit = j->cut_len;
	if (j->gp->mtu && p->ip_end - p->l3_off > j->gp->mtu)
		return SOFL_E_GSO_SIZE;
	return 0;
}

/* The first byte of the IP packets that are output: the outer IP header of
 * a tunnel super-packet, else the (only) IP header. */
static uint32_t
ip_start(const struct job *j)
{
	return j->is_tun ? j->tun.ol3 : j->p->l3_off;
}

static int
plan_seg(struct job *j)
{
	const struct sofl_gso_params *gp = j->gp;
	const struct sofl_pkt *p = j->p;
	const unsigned type = SOFL_GSO_INNER(gp->type);
	uint32_t g = gp->gso_size;

	if (p->l4_proto != (type == SOFL_GSO_UDP_L4 ? 17 : 6))
		return SOFL_E_GSO_PROTO;
	if (type != SOFL_GSO_UDP_L4 && p->ipv != (type == SOFL_GSO_TCPV4 ? 4 : 6))
		return SOFL_E_GSO_PROTO;	/* TCPV4 for IPv4, TCPV6 for IPv6 */
	if (!(p->layers & SOFL_LAYER_L4))	/* its TCP/UDP header is malformed or cut */
		return SOFL_E_GSO_HDR;
	if (g == 0)
		return SOFL_E_GSO_SIZE;
	/* not GSO (tcp_gso_segment, udp_send_skb); a tunnel packet is cut
	 * into one segment instead, so that its outer headers are fixed too */
	if (p->pay_len <= g && !j->is_tun)
		return plan_pass(j);
	if (gp->mtu && p->pay_off - ip_start(j) + (p->pay_len < g ? p->pay_len : g) > gp->mtu)
		return SOFL_E_GSO_SIZE;
	j->kind = K_SEG;
	j->unit = g;
	j->n = p->pay_len ? (p->pay_len + g - 1) / g : 1;
	j->hlen = p->pay_off;
	j->cut_off = p->pay_off;
	j->cut_len = p->pay_len;
	return 0;
}

static int
plan_frag(struct job *j)
{
	const struct sofl_gso_params *gp = j->gp;
	const struct sofl_pkt *p = j->p;
	uint32_t fs, u = 0, um, over, fix_end;
	uint16_t nh_pos = 0;

	if (p->ipv == 4) {
		fs = (uint32_t)p->l3_off + p->l3_len;
		over = 0;
	} else {
		ipv6_unfrag(p, &fs, &nh_pos);
		over = FRAG6_LEN;
	}
	if (gp->gso_size)
		u = gp->gso_size & ~7u;
	if (gp->mtu) {
		um = gp->mtu > fs - p->l3_off + over ? (gp->mtu - (fs - p->l3_off + over)) & ~7u : 0;
		u = gp->gso_size ? (u < um ? u : um) : um;
	} else if (!gp->gso_size) {
		return SOFL_E_GSO_SIZE;
	}
	/* fits: Linux UFO leaves a datagram of <= gso_size alone */
	if (gp->mtu ? p->ip_end - p->l3_off <= gp->mtu : p->ip_end - fs <= gp->gso_size)
		return plan_pass(j);
	fix_end = (p->layers & SOFL_LAYER_L4) ? p->pay_off : fs;
	if (u < 8 || u < fix_end - fs)
		return SOFL_E_GSO_SIZE;
	if (p->ipv == 4 && (sofl_get16(p->data + p->l3_off + 6) & IP4_DF) &&
	    !(gp->flags & SOFL_GSO_F_IGNORE_DF))
		return SOFL_E_GSO_DF;
	j->kind = K_FRAG;
	j->unit = u;
	j->cut_off = fs;
	j->cut_len = p->ip_end - fs;
	j->n = (j->cut_len + u - 1) / u;
	j->hlen = fs;
	j->extra = fix_end - fs;
	j->frag_nh_pos = nh_pos;
	j->frag_nh = p->ipv == 6 ? p->data[nh_pos] : 0;
	return 0;
}

static int lib_ids_key(void);

/* SOFL_GSO_F_CSUM_AT: one segment, the packet as it is; the bytes up to the
 * checksum field's end are the header copy, the rest the payload (both summed
 * from csum_start when the checksum is completed, emit_csum_at). */
static int
plan_csum_at(struct job *j)
{
	const struct sofl_gso_params *gp = j->gp;
	const struct sofl_pkt *p = j->p;
	uint32_t start = gp->csum_start, field = start + gp->csum_offset, end;

	if (gp->type != SOFL_GSO_NONE)
		return SOFL_E_INVAL;
	if (p->layers & SOFL_LAYER_ENCAP)
		end = p->outer_ip_end;
	else if (p->layers & SOFL_LAYER_L3)
		end = p->ip_end;
	else
		end = p->len;
	/* skb_partial_csum_set(): the field inside the packet */
	if (start >= end || field + 2 > end || field + 2 > 0xffff)
		return SOFL_E_GSO_HDR;
	if (j->gp->mtu && (p->layers & (SOFL_LAYER_L3 | SOFL_LAYER_ENCAP)) &&
	    end - ((p->layers & SOFL_LAYER_ENCAP) ? p->outer_l3_off : p->l3_off) > j->gp->mtu)
		return SOFL_E_GSO_SIZE;
	j->kind = K_CSUM_AT;
	j->n = 1;
	j->hlen = field + 2;
	j->cut_off = j->hlen;
	j->cut_len = end - j->hlen;
	j->unit = j->cut_len;
	j->extra = start;	/* csum_start */
	return 0;
}

static int
plan(struct job *j, const struct sofl_gso_params *gp, const struct sofl_pkt *p,
     enum sofl_gso_mode mode, int in_cnt)
{
	int err;

	memset(j, 0, offsetof(struct job, tun));	/* not the tunnel fields: set when used */
	j->gp = gp;
	j->p = p;
	j->mode = mode;
	if (!gp || !p || !p->data || in_cnt < 0 ||
	    (mode != SOFL_GSO_ZEROCOPY && mode != SOFL_GSO_COPY))
		return SOFL_E_INVAL;
	if (gp->flags & SOFL_GSO_F_CSUM_AT) {
		/* a virtio header's checksum, wherever it points: no IP needed */
		err = plan_csum_at(j);
		goto planned;
	}
	if (gp->type & SOFL_GSO_TUNNEL_MASK) {
		if (!(p->layers & SOFL_LAYER_L3) || (p->ipv != 4 && p->ipv != 6))
			return SOFL_E_NOT_IP;
		/* the inner packet is cut by the rules below, the outer
		 * headers fixed per segment (tun.h) */
		if ((err = gso_tun_plan(&j->tun, gp, p)) != 0)
			return err;
		j->is_tun = 1;
		if (p->is_frag)
			return SOFL_E_FRAGMENT;
		err = plan_seg(j);
		goto planned;
	}
	if (p->layers & SOFL_LAYER_ENCAP) {
		/* a type without tunnel bits acts on the outer packet, as
		 * Linux's inet/ipv6_gso_segment dispatch on the outer
		 * protocol: UDP_L4 cuts the outer UDP datagram, UFO fragments
		 * the outer IP packet, TCPV4/TCPV6 find no TCP there */
		gso_outer_view(&j->outer, p);
		j->p = p = &j->outer;
	}
	/* (the outer view is an IP packet even when the inner one is not,
	 * e.g. ARP in VXLAN) */
	if (!(p->layers & SOFL_LAYER_L3) || (p->ipv != 4 && p->ipv != 6))
		return SOFL_E_NOT_IP;
	if (p->is_frag)
		return SOFL_E_FRAGMENT;
	switch (gp->type) {
	case SOFL_GSO_NONE:    err = plan_pass(j); break;
	case SOFL_GSO_TCPV4:
	case SOFL_GSO_TCPV6:
	case SOFL_GSO_UDP_L4:  err = plan_seg(j); break;
	case SOFL_GSO_UFO: err = plan_frag(j); break;
	default:               return SOFL_E_INVAL;
	}
planned:
	if (err)
		return err;
	/* the headers every segment copies are read from p->data: they must
	 * be there (an iovec input's gathered bytes, sofl_pkt_parse_iov_cfg) */
	if (j->hlen > p->len)
		return SOFL_E_GSO_HDR;
	if (!in_cnt && p->len < (j->kind == K_CSUM_AT ? j->cut_off + j->cut_len : p->ip_end))
		return SOFL_E_INVAL;	/* contiguous: the whole packet */
	if (j->n > max_segs(gp))
		return SOFL_E_GSO_TOO_MANY;
	/* an IPv6 identification from the library's generator needs its key */
	if (j->kind == K_FRAG && p->ipv == 6 && !gp->frag_id && !gp->frag_ids &&
	    (err = lib_ids_key()) != 0)
		return err;
	if (j->kind == K_FRAG)
		j->stride = j->hlen + j->extra + (p->ipv == 6 ? FRAG6_LEN : 0);
	else
		j->stride = j->hlen;
	if (mode == SOFL_GSO_COPY)
		j->stride += j->unit;
	/* partial checksums cannot survive fragmentation */
	j->full = j->kind == K_FRAG || !(gp->flags & SOFL_GSO_F_CSUM_PARTIAL);
	j->udp = p->l4_proto == 17;
	j->id_step = (gp->flags & (j->is_tun ? SOFL_GSO_F_FIXED_ID_INNER : SOFL_GSO_F_FIXED_ID)) ? 0 : 1;
	return 0;
}

SOFL_API int
sofl_gso_need(const struct sofl_gso_params *gp, const struct sofl_pkt *p,
	      enum sofl_gso_mode mode, int in_iovcnt, struct sofl_gso_need *need)
{
	struct job j;
	int err;

	if (!need)
		return SOFL_E_INVAL;
	err = plan(&j, gp, p, mode, in_iovcnt);
	if (err)
		return err;
	need->nsegs = j.n;
	need->stride = j.stride;
	need->buf_bytes = (size_t)j.n * j.stride;
	need->iovs = mode == SOFL_GSO_ZEROCOPY ? 2 * (size_t)j.n + (size_t)in_iovcnt : 0;
	return 0;
}

/* ---- emitting ---- */

/* Prepares the per-packet constants. */
static void
prime(struct job *j)
{
	const struct sofl_pkt *p = j->p;
	const uint8_t *d = p->data;

	if (p->ipv == 4) {
		j->ip_base = hdr_ipv4_base_sum(d + p->l3_off, p->l3_len);
		j->id0 = sofl_get16(d + p->l3_off + 4);
	}
	if (!(p->layers & SOFL_LAYER_L4))
		return;
	j->ps_base = hdr_l4_pseudo_base(p);
	if (p->l4_proto == 6)
		j->l4_base = hdr_tcp_base_sum(d + p->l4_off, p->l4_len);
	else
		j->l4_base = hdr_sum_words(d + p->l4_off, 4);	/* ports */
}

/* Payload of one segment [off, off+len): into iovecs (zero-copy) or
 * copied behind its headers at @dst; @return its sum if needed. */
static uint32_t
payload_sum(struct job *j, uint32_t off, uint32_t len, uint8_t *dst, struct sofl_gso_seg *s,
	    int sum)
{
	unsigned niov = s->iovcnt;
	uint32_t r;

	if (j->cur.cnt == 1 && len) {
		/* contiguous input: the common case, without the cursor walk */
		const uint8_t *src = (const uint8_t *)j->cur.iov[0].iov_base + off;

		if (j->mode == SOFL_GSO_COPY) {
			if (sum)
				return sofl_csum_copy(dst, src, len, 0);
			memcpy(dst, src, len);
			return 0;
		}
		s->iov[niov].iov_base = (void *)(uintptr_t)src;
		s->iov[niov].iov_len = len;
		s->iovcnt = (uint16_t)(niov + 1);
		return sum ? sofl_csum_add(0, src, len) : 0;
	}
	if (j->mode == SOFL_GSO_COPY)
		return cur_take(&j->cur, off, len, NULL, &niov, dst, sum);
	r = cur_take(&j->cur, off, len, s->iov, &niov, NULL, sum);
	s->iovcnt = (uint16_t)niov;
	return r;
}

static uint32_t
payload(struct job *j, uint32_t off, uint32_t len, uint8_t *dst, struct sofl_gso_seg *s)
{
	return payload_sum(j, off, len, dst, s, j->full);
}

/* Writes the L4 length/flags/seq and checksum of a (TCP or UDP) segment
 * whose L4 header is at @l4 and carries @plen payload bytes summing to @psum;
 * @cut: segment @k of a cut (TCP seq and flag rules), else the packet whole. */
static void
fix_l4(struct job *j, uint8_t *l4, uint32_t k, uint32_t plen, uint32_t psum, int cut)
{
	const struct sofl_pkt *p = j->p;
	uint32_t l4len = p->l4_len + plen, hs = j->l4_base;

	if (j->udp) {
		sofl_put16(l4 + 4, (uint16_t)l4len);
		hs = sofl_csum_combine(hs, l4len);
	} else if (cut) {
		uint8_t f = p->tcp_flags;

		if (k + 1 < j->n)
			f &= (uint8_t)~(SOFL_TCP_FIN | SOFL_TCP_PSH);
		if (k > 0 && !(j->gp->flags & SOFL_GSO_F_ACCECN))
			f &= (uint8_t)~SOFL_TCP_CWR;
		hs = sofl_csum_combine(hs, hdr_tcp_set_seq_flags(l4, p->tcp_seq + k * j->unit, f));
	} else {
		hs = sofl_csum_combine(hs, hdr_tcp_set_seq_flags(l4, p->tcp_seq, p->tcp_flags));
	}
	sofl_put16(l4 + (j->udp ? 6 : 16),
		   hdr_l4_seg_check(j->ps_base, l4len, hs, psum, j->full, j->udp));
}

/* Header copy with fixed-size (inlined) moves: overlapping head and tail
 * chunks instead of a library call per segment. */
static inline void
copy_hdr(uint8_t *d, const uint8_t *s, uint32_t n)
{
	if (n >= 64 && n <= 128) {
		memcpy(d, s, 64);
		memcpy(d + n - 64, s + n - 64, 64);
	} else if (n >= 32 && n < 64) {
		memcpy(d, s, 32);
		memcpy(d + n - 32, s + n - 32, 32);
	} else {
		memcpy(d, s, n);
	}
}

static void
set_ip_len(struct job *j, uint8_t *h, uint32_t ip_len, uint16_t id)
{
	const struct sofl_pkt *p = j->p;

	if (p->ipv == 4)
		hdr_ipv4_set_len_id_sum(h + p->l3_off, j->ip_base, (uint16_t)ip_len, id);
	else
		hdr_ipv6_set_len(h + p->l3_off, ip_len);
}

static void
emit_seg(struct job *j, uint32_t k, uint8_t *h, struct sofl_gso_seg *s)
{
	const struct sofl_pkt *p = j->p;
	uint32_t off = k * j->unit, plen = j->cut_len - off, psum;
	uint16_t id = (uint16_t)(j->id0 + k * j->id_step);

	if (plen > j->unit)
		plen = j->unit;
	copy_hdr(h, p->data, j->hlen);
	psum = payload(j, j->cut_off + off, plen, h + j->hlen, s);
	set_ip_len(j, h, j->hlen - p->l3_off + plen, id);
	fix_l4(j, h + p->l4_off, k, plen, psum, 1);
	if (j->is_tun)	/* after the inner headers: the outer sum uses them */
		gso_tun_fix(&j->tun, h, plen, (uint16_t)(j->tun.id0 + k * j->tun.id_step));
	s->hdr_len = (uint16_t)j->hlen;
	s->len = j->hlen + plen;
}

/* ---- K_SEG over a contiguous input: the hot path ----
 * The sending stack's TSO/USO (the bench's 64 KB super-packets).  The same
 * bytes as emit_seg(); every per-segment value kept in registers: the loops
 * read nothing through the job or the packet, whose fields the header
 * stores (byte stores, which may alias anything) would make them reload. */

/* Where the next segment goes, and the job's constants. */
struct segw {
	const uint8_t *hdr, *src;	/* the input's headers; the next payload */
	uint8_t *h;			/* the next header slot */
	struct sofl_gso_seg *s;
	struct iovec *iov;
	size_t stride;
	uint32_t hlen, l3, l4, unit, ip_hl, l4_hl, left;
	uint32_t ip_base, l4_base, ps_base, seq;
	uint16_t id, id_step;
	const struct gso_tun *tun;	/* a tunnel type's outer headers */
	uint16_t oid;			/* their IPv4 ID */
};

/* The segment's payload (@plen bytes: referenced, or copied behind its
 * header), its segment and iovec entries; @return the payload's sum when
 * @full */
static inline __attribute__((always_inline)) uint32_t
segw_payload(struct segw *w, uint32_t plen, const int copy, const int full)
{
	struct sofl_gso_seg *s = w->s;
	uint32_t psum = 0;

	s->data = w->h;
	s->hdr_len = (uint16_t)w->hlen;
	s->len = w->hlen + plen;
	if (copy) {
		s->iov = NULL;
		s->iovcnt = 0;
		if (full)
			psum = sofl_csum_copy(w->h + w->hlen, w->src, plen, 0);
		else
			memcpy(w->h + w->hlen, w->src, plen);
	} else {
		w->iov[0].iov_base = w->h;
		w->iov[0].iov_len = w->hlen;
		w->iov[1].iov_base = (void *)(uintptr_t)w->src;
		w->iov[1].iov_len = plen;
		s->iov = w->iov;
		s->iovcnt = plen ? 2 : 1;
		w->iov += plen ? 2 : 1;
		if (full)
			psum = sofl_csum_add(0, w->src, plen);
	}
	return psum;
}

/* On to the next segment, @plen payload bytes past this one's */
static inline __attribute__((always_inline)) void
segw_next(struct segw *w, uint32_t plen)
{
	w->src += plen;
	w->left -= plen;
	w->h += w->stride;
	w->s++;
	w->id = (uint16_t)(w->id + w->id_step);
	if (w->tun)
		w->oid = (uint16_t)(w->oid + w->tun->id_step);
	w->seq += w->unit;
}

/* One segment by the rules: its headers from the input's, then every field
 * that changes (IP length, ID and header checksum, TCP seq and flags @fk,
 * UDP length, the L4 checksum; then a tunnel's outer headers) */
static inline __attribute__((always_inline)) void
segw_one(struct segw *w, uint8_t fk, const int copy, const int full, const int udp, const int v4,
	 const int tun)
{
	uint32_t plen = w->left < w->unit ? w->left : w->unit, l4len = w->l4_hl + plen, psum, hs;
	uint8_t *h = w->h;

	copy_hdr(h, w->hdr, w->hlen);
	psum = segw_payload(w, plen, copy, full);
	if (v4)
		hdr_ipv4_set_len_id_sum(h + w->l3, w->ip_base, (uint16_t)(w->ip_hl + plen), w->id);
	else
		hdr_ipv6_set_len(h + w->l3, w->ip_hl + plen);
	if (udp) {
		sofl_put16(h + w->l4 + 4, (uint16_t)l4len);
		hs = w->l4_base + l4len;
	} else {
		hs = w->l4_base + hdr_tcp_set_seq_flags(h + w->l4, w->seq, fk);
	}
	sofl_put16(h + w->l4 + (udp ? 6 : 16),
		   hdr_l4_seg_check(w->ps_base, l4len, hs, psum, full, udp));
	if (tun)
		gso_tun_fix(w->tun, h, plen, w->oid);
	segw_next(w, plen);
}

static inline __attribute__((always_inline)) void
seg_fast_t(struct job *j, struct sofl_gso_out *out, const int copy, const int full, const int udp,
	   const int v4, const int tun)
{
	const struct sofl_pkt *p = j->p;
	const uint8_t f = p->tcp_flags, f_first = f & (uint8_t)~(SOFL_TCP_FIN | SOFL_TCP_PSH);
	const uint8_t f_last = (j->gp->flags & SOFL_GSO_F_ACCECN) ? f : f & (uint8_t)~SOFL_TCP_CWR;
	const uint8_t f_mid = f_first & f_last;
	struct segw w = {
		.hdr = p->data, .src = p->data + j->cut_off, .h = out->buf, .s = out->seg,
		.iov = out->iov, .stride = j->stride, .hlen = j->hlen, .l3 = p->l3_off,
		.l4 = p->l4_off, .unit = j->unit, .ip_hl = j->hlen - p->l3_off,
		.l4_hl = p->l4_len, .left = j->cut_len, .ip_base = j->ip_base,
		.l4_base = j->l4_base, .ps_base = j->ps_base, .seq = p->tcp_seq, .id = j->id0,
		.id_step = j->id_step, .tun = tun ? &j->tun : NULL, .oid = tun ? j->tun.id0 : 0,
	};
	const uint32_t n = j->n;
	const uint8_t *tmpl;
	uint32_t k, ip_sum, hs, oip_sum = 0;

	if (n == 1) {	/* a tunnel packet that needs no cut: as it is */
		segw_one(&w, f, copy, full, udp, v4, tun);
		return;
	}
	segw_one(&w, f_first, copy, full, udp, v4, tun);
	if (n == 2) {
		segw_one(&w, f_last, copy, full, udp, v4, tun);
		return;
	}
	/* Segment 1 by the rules; 2 .. n-2 are copies of its headers that
	 * differ only in IPv4 ID and header checksum, TCP seq and, with full
	 * checksums, the L4 checksum: a full-sized payload each, so the same
	 * lengths, flags and (partial) pseudo-header checksum. */
	tmpl = w.h;
	segw_one(&w, f_mid, copy, full, udp, v4, tun);
	ip_sum = sofl_csum_combine(w.ip_base, w.ip_hl + w.unit);
	if (tun)
		oip_sum = sofl_csum_combine(j->tun.ip_base, j->tun.ip_hl + w.unit);
	hs = w.l4_base + (udp ? w.l4_hl + w.unit : f_mid);
	for (k = 2; k + 1 < n; k++) {
		uint8_t *h = w.h;
		uint32_t psum, ss = 0;

		copy_hdr(h, tmpl, w.hlen);
		psum = segw_payload(&w, w.unit, copy, full);
		if (v4)
			hdr_ipv4_set_id_sum(h + w.l3, ip_sum, w.id);
		if (!udp)
			ss = hdr_tcp_set_seq(h + w.l4, w.seq);
		if (full)
			sofl_put16(h + w.l4 + (udp ? 6 : 16),
				   hdr_l4_seg_check(w.ps_base, w.l4_hl + w.unit, hs + ss, psum, 1, udp));
		if (tun)
			gso_tun_fix_mid(w.tun, h, oip_sum, w.oid);
		segw_next(&w, w.unit);
	}
	segw_one(&w, f_last, copy, full, udp, v4, tun);
}

/* seg_fast_t() with its flags as constants for zero-copy TCP, with them as
 * variables for the rest. */
static __attribute__((noinline)) void
seg_fast(struct job *j, struct sofl_gso_out *out)
{
	const int copy = j->mode == SOFL_GSO_COPY, v4 = j->p->ipv == 4;

	if (j->is_tun && !copy && !j->udp && v4)	/* VXLAN TSO, the common tunnel case */
		j->full ? seg_fast_t(j, out, 0, 1, 0, 1, 1) : seg_fast_t(j, out, 0, 0, 0, 1, 1);
	else if (j->is_tun)
		seg_fast_t(j, out, copy, j->full, j->udp, v4, 1);
	else if (!copy && !j->udp && v4)
		j->full ? seg_fast_t(j, out, 0, 1, 0, 1, 0) : seg_fast_t(j, out, 0, 0, 0, 1, 0);
	else if (!copy && !j->udp)
		j->full ? seg_fast_t(j, out, 0, 1, 0, 0, 0) : seg_fast_t(j, out, 0, 0, 0, 0, 0);
	else
		seg_fast_t(j, out, copy, j->full, j->udp, v4, 0);
}

/* Pass-through: the packet as it is, its L4 checksum completed (or made
 * partial) and its IPv4 header checksum recomputed — the same bytes as Linux
 * (which leaves the IP header of a non-GSO packet alone) whenever the input's
 * was right, and a valid header when it was not. */
static void
emit_pass(struct job *j, uint8_t *h, struct sofl_gso_seg *s)
{
	const struct sofl_pkt *p = j->p;
	uint32_t psum, l4pay = 0;
	int l4 = (p->layers & SOFL_LAYER_L4) != 0;

	memcpy(h, p->data, j->hlen);
	/* only the L4 length is summed; bytes after a UDP datagram inside its
	 * IP packet go out unchanged with it */
	if (l4)
		l4pay = p->pay_len;
	if (l4pay == j->cut_len || !j->full) {
		psum = payload(j, j->cut_off, j->cut_len, h + j->hlen, s);
	} else {
		/* sum the datagram alone, then output the region in one piece */
		struct cursor c = j->cur;
		unsigned none = 0;

		psum = cur_take(&c, j->cut_off, l4pay, NULL, &none, NULL, 1);
		payload_sum(j, j->cut_off, j->cut_len, h + j->hlen, s, 0);
	}
	/* UDP over IPv4 with 0: "no checksum", nothing to complete; so is a
	 * tunnel's outer UDP with 0 over IPv6 (RFC 6935, udp6zerocsumtx) */
	if (l4 && !(j->udp && (p->ipv == 4 || p == &j->outer) &&
		    sofl_get16(p->data + p->l4_off + 6) == 0))
		fix_l4(j, h + p->l4_off, 0, l4pay, psum, 0);
	if (p->ipv == 4) {
		uint8_t *iph = h + p->l3_off;

		hdr_ipv4_set_len_id(iph, p->l3_len, sofl_get16(iph + 2), sofl_get16(iph + 4));
	}
	s->hdr_len = (uint16_t)j->hlen;
	s->len = j->hlen + j->cut_len;
}

/* SOFL_GSO_F_CSUM_AT (plan_csum_at): Linux skb_checksum_help() -- the sum
 * from csum_start to the end, the field included, folded and complemented
 * into the field (0 as CSUM_MANGLED_0); partial: the packet unchanged. */
static void
emit_csum_at(struct job *j, uint8_t *h, struct sofl_gso_seg *s)
{
	uint32_t start = j->extra, sum, psum;
	uint16_t v;

	memcpy(h, j->p->data, j->hlen);
	psum = payload(j, j->cut_off, j->cut_len, h + j->hlen, s);
	if (j->full) {
		sum = sofl_csum_block_add(sofl_csum_add(0, h + start, j->hlen - start), psum,
					  j->hlen - start);
		v = (uint16_t)~sofl_csum_fold(sum);
		sofl_put16(h + j->hlen - 2, v ? v : 0xffff);
	}
	s->hdr_len = (uint16_t)j->hlen;
	s->len = j->hlen + j->cut_len;
}

/* UFO: the datagram's L4 checksum over all of it, before cutting. */
static void
frag_l4_check(struct job *j)
{
	const struct sofl_pkt *p = j->p;
	struct cursor c = j->cur;
	uint8_t th[60];
	uint32_t psum;
	unsigned dummy = 0;

	if (!(p->layers & SOFL_LAYER_L4))
		return;
	memcpy(th, p->data + p->l4_off, p->l4_len);
	psum = cur_take(&c, p->pay_off, p->pay_len, NULL, &dummy, NULL, 1);
	fix_l4(j, th, 0, p->pay_len, psum, 0);
	j->l4_check = sofl_get16(th + (j->udp ? 6 : 16));
}

static void
emit_frag(struct job *j, uint32_t k, uint8_t *h, struct sofl_gso_seg *s)
{
	const struct sofl_pkt *p = j->p;
	uint32_t off = k * j->unit, dlen = j->cut_len - off, hl = j->hlen, fix = 0;
	int last = k + 1 == j->n;

	if (dlen > j->unit)
		dlen = j->unit;
	memcpy(h, p->data, j->hlen);
	if (p->ipv == 6) {
		uint8_t *fh = h + hl;

		h[j->frag_nh_pos] = 44;
		fh[0] = j->frag_nh;
		fh[1] = 0;
		sofl_put16(fh + 2, (uint16_t)(off | !last));
		sofl_put32(fh + 4, j->frag_id);
		hl += FRAG6_LEN;
	}
	if (k == 0 && j->extra) {
		/* the L4 header travels in the first fragment, with its checksum */
		fix = j->extra;
		memcpy(h + hl, p->data + j->cut_off, fix);
		if (p->layers & SOFL_LAYER_L4)
			sofl_put16(h + hl + (p->pay_off - j->cut_off) - p->l4_len + (j->udp ? 6 : 16),
				   j->l4_check);
		hl += fix;
	}
	payload_sum(j, j->cut_off + off + fix, dlen - fix, h + hl, s, 0);	/* summed whole, before */
	if (p->ipv == 4) {
		uint8_t *iph = h + p->l3_off;
		uint32_t base;

		sofl_put16(iph + 6, (uint16_t)((off >> 3) | (last ? 0 : IP4_MF)));
		/* the fragment offset is in the summed part: prime()'s j->ip_base
		 * does not apply, this fragment's header is summed afresh */
		base = hdr_ipv4_base_sum(iph, p->l3_len);
		hdr_ipv4_set_len_id_sum(iph, base, (uint16_t)(p->l3_len + dlen), j->id0);
	} else {
		hdr_ipv6_set_len(h + p->l3_off, hl - fix - p->l3_off + dlen);
	}
	s->hdr_len = (uint16_t)hl;
	s->len = hl - fix + dlen;
}

/* K_FRAG of IPv4 over a contiguous input: the hot path of UFO, producing
 * exactly what emit_frag() does.  Each fragment's header checksum comes
 * from one sum of the header's fixed words taken before the loop plus the
 * fragment's own words: emit_frag() sums the header it has just written,
 * and those loads wait for the narrow stores before them (a failed store
 * forward per fragment). */
static void
frag4_fast(struct job *j, struct sofl_gso_out *out)
{
	const struct sofl_pkt *p = j->p;
	const uint8_t *hdr = p->data, *src = p->data + j->cut_off;
	const uint8_t *iph0 = hdr + p->l3_off;
	uint32_t hlen = j->hlen, unit = j->unit, n = j->n, left = j->cut_len, k;
	uint32_t l3 = p->l3_off, l3len = p->l3_len, fix = j->extra;
	/* the header's words but tot_len, ID, fragment word and checksum */
	uint32_t base = hdr_sum_words(iph0, 2) + hdr_sum_words(iph0 + 8, 2) +
			hdr_sum_words(iph0 + 12, l3len - 12);
	uint32_t l4_at = (p->layers & SOFL_LAYER_L4) ?
			 (p->pay_off - j->cut_off) - p->l4_len + (j->udp ? 6 : 16) : 0;
	int copy = j->mode == SOFL_GSO_COPY, l4 = (p->layers & SOFL_LAYER_L4) != 0;
	struct iovec *iov = out->iov;

	for (k = 0; k < n; k++) {
		struct sofl_gso_seg *s = &out->seg[k];
		uint8_t *h = out->buf + (size_t)k * j->stride;
		uint32_t dlen = left < unit ? left : unit, hl = hlen, f = 0, plen;
		uint16_t fw = (uint16_t)(((k * unit) >> 3) | (k + 1 < n ? IP4_MF : 0));

		copy_hdr(h, hdr, hlen);
		if (k == 0 && fix) {
			f = fix;
			memcpy(h + hl, src, f);
			if (l4)
				sofl_put16(h + hl + l4_at, j->l4_check);
			hl += f;
		}
		plen = dlen - f;
		s->data = h;
		s->hdr_len = (uint16_t)hl;
		s->len = hlen + dlen;
		if (copy) {
			s->iov = NULL;
			s->iovcnt = 0;
			memcpy(h + hl, src + f, plen);
		} else {
			iov[0].iov_base = h;
			iov[0].iov_len = hl;
			iov[1].iov_base = (void *)(uintptr_t)(src + f);
			iov[1].iov_len = plen;
			s->iov = iov;
			s->iovcnt = plen ? 2 : 1;
			iov += s->iovcnt;
		}
		sofl_put16(h + l3 + 6, fw);
		hdr_ipv4_set_len_id_sum(h + l3, base + fw, (uint16_t)(l3len + dlen), j->id0);
		src += dlen;
		left -= dlen;
	}
}

/* ---- IPv6 fragment identifications ---- */

/* The 8 bytes at @b as SipHash reads a message word (little-endian, on any
 * host), so an identification depends on the key and addresses only. */
static inline uint64_t
le64(const uint8_t *b)
{
	uint64_t x = 0;
	int i;

	for (i = 7; i >= 0; i--)
		x = x << 8 | b[i];
	return x;
}

/* SipHash-2-4 (base/siphash.h) of the 40-byte message source address,
 * destination address, counter, folded to 32 bits. */
static uint32_t
frag_id_at(const uint64_t key[2], const uint8_t *src, const uint8_t *dst, uint64_t ctr)
{
	const uint64_t m[5] = { le64(src), le64(src + 8), le64(dst), le64(dst + 8), ctr };
	uint64_t h = sofl_siphash24(key, m, 5, sofl_sip_last(0, 40));

	return (uint32_t)(h ^ h >> 32);
}

SOFL_API int
sofl_gso_frag_ids_init(struct sofl_gso_frag_ids *ids, const void *key, size_t key_len)
{
	uint64_t k[2];

	if (!ids || (key && key_len != SOFL_GSO_FRAG_KEY_LEN))
		return SOFL_E_INVAL;
	if (key) {
		k[0] = le64(key);
		k[1] = le64((const uint8_t *)key + 8);
	} else if (sofl_sip_key(k, NULL) != 0) {
		return SOFL_E_NOTSUP;
	}
	ids->k0 = k[0];
	ids->k1 = k[1];
	ids->ctr = 0;
	return 0;
}

SOFL_API uint32_t
sofl_gso_frag_id_next(struct sofl_gso_frag_ids *ids, const void *src, const void *dst)
{
	const uint64_t key[2] = { ids->k0, ids->k1 };
	uint32_t id;

	do
		id = frag_id_at(key, src, dst, ids->ctr++);
	while (id == 0);
	return id;
}

/* The library's generator for gp->frag_ids NULL: keyed on first use by
 * sofl_sip_key() (random bytes only: there is no weaker fallback), its
 * counter shared by every thread through one atomic add per datagram. */
static struct {
	atomic_int state;	/* 0 unkeyed, 1 keying, 2 keyed */
	uint64_t key[2];
	atomic_uint_fast64_t ctr;
} lib_ids;

/* Keys the library's generator once.  @return 0, or SOFL_E_NOTSUP when no
 * random bytes can be had (the generator stays unkeyed and the next call
 * tries again). */
static int
lib_ids_key(void)
{
	int st = 0;
	uint64_t k[2];

	if (atomic_load_explicit(&lib_ids.state, memory_order_acquire) == 2)
		return 0;
	if (atomic_compare_exchange_strong(&lib_ids.state, &st, 1)) {
		if (sofl_sip_key(k, NULL) != 0) {
			atomic_store_explicit(&lib_ids.state, 0, memory_order_release);
			return SOFL_E_NOTSUP;
		}
		lib_ids.key[0] = k[0];
		lib_ids.key[1] = k[1];
		atomic_store_explicit(&lib_ids.state, 2, memory_order_release);
		return 0;
	}
	/* another thread is keying: one system call away */
	while ((st = atomic_load_explicit(&lib_ids.state, memory_order_acquire)) == 1)
		;
	return st == 2 ? 0 : SOFL_E_NOTSUP;
}

/* The identification of an IPv6 UFO datagram (Linux udp6_ufo_fragment:
 * its own if set, else ipv6_proxy_select_ident()).  The library's
 * generator was keyed by plan(). */
static uint32_t
frag_id6(const struct sofl_gso_params *gp, const struct sofl_pkt *p)
{
	const uint8_t *ip6 = p->data + p->l3_off;
	uint32_t id;

	if (gp->frag_id)
		return gp->frag_id;
	if (gp->frag_ids)
		return sofl_gso_frag_id_next(gp->frag_ids, ip6 + 8, ip6 + 24);
	do
		id = frag_id_at(lib_ids.key, ip6 + 8, ip6 + 24,
				atomic_fetch_add_explicit(&lib_ids.ctr, 1, memory_order_relaxed));
	while (id == 0);
	return id;
}

/* sofl_gso_segment(), and gso_segment_room() (gso_room.h) with @head/@tail
 * bytes of room around every COPY-mode segment. */
static int
segment(const struct sofl_gso_params *gp, const struct sofl_pkt *p, const struct iovec *in,
	int in_cnt, struct sofl_gso_out *out_in, uint32_t head, uint32_t tail)
{
	struct sofl_gso_out room, *out = out_in;
	struct job j;
	uint32_t k;
	size_t used_iov = 0;
	uint32_t end;
	int err;

	if (!out)
		return SOFL_E_INVAL;
	err = plan(&j, gp, p, out->mode, in ? in_cnt : 0);
	if (err)
		return err;
	if (head || tail) {
		/* every segment's slot grows by the room; its frame starts
		 * @head bytes into the slot */
		if (out->mode != SOFL_GSO_COPY || !out->buf)
			return SOFL_E_INVAL;
		j.stride += head + tail;
		room = *out;
		room.buf += head;	/* the last frame still ends @tail before
					 * out->buf + n * stride: buf_cap holds */
		out = &room;
	}
	p = j.p;	/* the outer packet for a plain type on a tunnel parse */
	end = j.kind == K_CSUM_AT ? j.cut_off + j.cut_len : p->ip_end;
	if (in) {
		if (pk_iov_total(in, in_cnt) < end)
			return SOFL_E_GSO_HDR;
		cur_init(&j.cur, in, in_cnt);
	} else {
		if (p->len < end)
			return SOFL_E_INVAL;
		j.one.iov_base = (void *)(uintptr_t)p->data;
		j.one.iov_len = end;
		cur_init(&j.cur, &j.one, 1);
	}
	if (!out->seg || out->seg_cap < j.n || !out->buf ||
	    out->buf_cap < (size_t)j.n * j.stride ||
	    (j.mode == SOFL_GSO_ZEROCOPY &&
	     (!out->iov || out->iov_cap < 2 * (size_t)j.n + (in ? (size_t)in_cnt : 0))))
		return SOFL_E_NOSPC;
	if (j.kind != K_CSUM_AT)
		prime(&j);
	if (j.kind == K_SEG && !in) {
		seg_fast(&j, out);
		return (int)j.n;
	}
	if (j.kind == K_FRAG && p->ipv == 4 && !in) {
		frag_l4_check(&j);
		frag4_fast(&j, out);
		return (int)j.n;
	}
	if (j.kind == K_FRAG) {
		frag_l4_check(&j);
		if (p->ipv == 6)
			j.frag_id = frag_id6(gp, p);
	}
	for (k = 0; k < j.n; k++) {
		struct sofl_gso_seg *s = &out->seg[k];
		uint8_t *h = out->buf + (size_t)k * j.stride;

		s->data = h;
		s->iov = NULL;
		s->iovcnt = 0;
		if (j.mode == SOFL_GSO_ZEROCOPY) {
			s->iov = out->iov + used_iov;
			s->iov[0].iov_base = h;
			s->iovcnt = 1;
		}
		if (j.kind == K_SEG)
			emit_seg(&j, k, h, s);
		else if (j.kind == K_FRAG)
			emit_frag(&j, k, h, s);
		else if (j.kind == K_CSUM_AT)
			emit_csum_at(&j, h, s);
		else
			emit_pass(&j, h, s);
		if (j.mode == SOFL_GSO_ZEROCOPY) {
			s->iov[0].iov_len = s->hdr_len;
			used_iov += s->iovcnt;
		}
	}
	return (int)j.n;
}

SOFL_API int
sofl_gso_segment(const struct sofl_gso_params *gp, const struct sofl_pkt *p,
		 const struct iovec *in, int in_cnt, struct sofl_gso_out *out)
{
	return segment(gp, p, in, in_cnt, out, 0, 0);
}

int
gso_segment_room(const struct sofl_gso_params *gp, const struct sofl_pkt *p,
		 struct sofl_gso_out *out, uint32_t head, uint32_t tail)
{
	return segment(gp, p, NULL, 0, out, head, tail);
}

int
gso_segment_room_iov(const struct sofl_gso_params *gp, const struct sofl_pkt *p,
		     const struct iovec *in, int in_cnt, struct sofl_gso_out *out,
		     uint32_t head, uint32_t tail)
{
	return segment(gp, p, in, in_cnt, out, head, tail);
}

SOFL_API int
sofl_gso_segment_batch(const struct sofl_gso_params *gp, const struct sofl_pkt *p, size_t n,
		       struct sofl_gso_out *out, int *res)
{
	struct sofl_gso_out o;
	size_t i, k, total = 0;

	if (!gp || !p || !out || !res || n > INT32_MAX)
		return SOFL_E_INVAL;
	o = *out;
	for (i = 0; i < n; i++) {
		struct sofl_gso_need need;
		int r = sofl_gso_need(&gp[i], &p[i], o.mode, 0, &need);

		if (r == 0)
			r = sofl_gso_segment(&gp[i], &p[i], NULL, 0, &o);
		res[i] = r;
		if (r == SOFL_E_NOSPC) {
			for (k = i + 1; k < n; k++)
				res[k] = SOFL_E_NOSPC;
			break;
		}
		if (r <= 0)
			continue;
		/* move the output window past what this packet used */
		for (k = 0; k < (size_t)r; k++) {
			o.iov_cap -= o.seg[k].iovcnt;
			if (o.iov)
				o.iov += o.seg[k].iovcnt;
		}
		o.seg += r;
		o.seg_cap -= (size_t)r;
		o.buf += need.buf_bytes;
		o.buf_cap -= need.buf_bytes;
		total += (size_t)r;
	}
	return total > INT32_MAX ? SOFL_E_INVAL : (int)total;
}
