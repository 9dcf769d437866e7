/* GRO completion and output: a held flow's super-packet (its headers
 * rewritten as inet_gro_complete / ipv6_gro_complete / tcp_gro_complete /
 * udp_gro_complete do), lone packets, flushes. */
#include "gro_table.h"
#include "gro_csum.h"

static unsigned
hist_bin(uint32_t segs)
{
	unsigned b = 31u - (unsigned)__builtin_clz(segs);

	return b < SOFL_GRO_HIST_BINS ? b : SOFL_GRO_HIST_BINS - 1;
}

static struct sofl_gro_out *
out_begin(struct sofl_gro *g, uint32_t segs)
{
	struct sofl_gro_out *o = &g->outs[g->nout++];

	memset(o, 0, sizeof(*o));
	o->iov = &g->iov[g->niov];
	o->cookies = &g->cookies[g->ncook];
	o->segs = segs;
	g->st.pkts_out++;
	g->st.hist[hist_bin(segs)]++;
	return o;
}

/* An unchanged packet as one output; @return it.  The cursors are read
 * before the output is written (its byte stores could alias them). */
static struct sofl_gro_out *
out_single(struct sofl_gro *g, const uint8_t *frame, uint32_t len, uint64_t cookie, int csum,
	   uint16_t csum_start, uint16_t csum_off)
{
	uint32_t no = g->nout, ni = g->niov, nc = g->ncook;
	struct sofl_gro_out *o = &g->outs[no];
	struct iovec *v = &g->iov[ni];
	uint64_t *c = &g->cookies[nc];

	g->nout = no + 1;
	g->niov = ni + 1;
	g->ncook = nc + 1;
	g->st.pkts_out++;
	g->st.hist[0]++;	/* hist_bin(1) */
	v->iov_base = (void *)(uintptr_t)frame;
	v->iov_len = len;
	*c = cookie;
	memset(o, 0, sizeof(*o));
	o->iov = v;
	o->cookies = c;
	o->segs = 1;
	o->iovcnt = 1;
	o->len = len;
	o->csum = (enum sofl_csum_state)csum;
	if (csum == SOFL_CSUM_VALID) {
		o->vnet.flags = SOFL_VNET_HDR_F_DATA_VALID;
	} else if (csum == SOFL_CSUM_PARTIAL) {
		o->csum_start = o->vnet.csum_start = csum_start;
		o->csum_offset = o->vnet.csum_offset = csum_off;
		o->vnet.flags = SOFL_VNET_HDR_F_NEEDS_CSUM;
	}
	return o;
}

void
gro_bypass(struct sofl_gro *g, const struct sofl_gro_in *in, int why)
{
	struct lone w;

	lone_begin(g, &w);
	lone_put(g, &w, in, (uint8_t)why);
	lone_end(g, &w);
}

/* Linux's virtio flag for a UDP tunnel frame (VXLAN, Geneve; parsed into or
 * not) delivered unmerged: udp4/udp6_gro_receive (net/ipv4/udp_offload.c,
 * net/ipv6/udp_offload.c) run skb_gro_checksum_validate_zero_check on the
 * outer UDP checksum unless the outer IP layer already set flush, and
 * before any inner layer is looked at; a zero checksum or one that
 * verifies ends in skb_gro_incr_csum_unnecessary ->
 * __skb_incr_checksum_unnecessary (include/net/gro.h, linux/skbuff.h):
 * CHECKSUM_UNNECESSARY at csum_level 0, which whatever the inner layers do
 * later stays, and virtio_net_hdr_from_skb (linux/virtio_net.h) reports as
 * DATA_VALID.  The outer IP layer lets the frame reach udp4/udp6_gro_receive
 * without flush when (inet_gro_receive) the IPv4 header is 20 bytes, its
 * checksum verifies, it is no fragment, the reserved bit is clear and its
 * total length is the bytes received, or (ipv6_gro_receive) the IPv6
 * payload length is the bytes received (extension headers: the engine
 * passes those frames through unverified, SOFL_GRO_BYPASS_OUTER_IP_OPTS,
 * and reports nothing).  1 when so; the outer checksum verified here is
 * counted (csum_sw_outer).  IP-in-IP has no outer checksum: 0. */
static __attribute__((noinline)) int
tun_outer_valid(struct sofl_gro *g, const struct sofl_gro_in *in, const struct sofl_pkt *q)
{
	const uint8_t *d = q->data, *ip;
	unsigned ipv;
	uint32_t l3, l3len, l4, end;

	if (q->layers & SOFL_LAYER_ENCAP) {
		ipv = q->outer_ipv, l3 = q->outer_l3_off, l3len = q->outer_l3_len;
		l4 = q->outer_l4_off, end = q->outer_ip_end;
	} else {	/* SOFL_LAYER_ENCAP_ERR: the named fields are the outer packet */
		if ((q->layers & (SOFL_LAYER_L3 | SOFL_LAYER_L4)) != (SOFL_LAYER_L3 | SOFL_LAYER_L4) ||
		    q->l4_proto != 17 || q->is_frag)
			return 0;
		ipv = q->ipv, l3 = q->l3_off, l3len = q->l3_len, l4 = q->l4_off, end = q->ip_end;
	}
	if ((q->encap != SOFL_ENCAP_VXLAN && q->encap != SOFL_ENCAP_GENEVE) || !l4 ||
	    end != in->len || l4 != l3 + l3len || l4 + 8 > end)
		return 0;
	ip = d + l3;
	if (ipv == 4) {
		if (l3len != 20 || ip[0] != 0x45 || (sofl_get16(ip + 6) & 0xbfff))
			return 0;	/* options, a fragment, the reserved bit */
		if (!(in->flags & SOFL_GRO_F_IPCSUM_OK)) {
			g->st.csum_sw_ip++;
			if (!ip4_csum_ok(ip))
				return 0;
		}
	} else if (ipv != 6 || l3len != 40) {
		return 0;
	}
	if (!sofl_get16(d + l4 + 6) || (in->flags & SOFL_GRO_F_OUTER_CSUM_OK))
		return 1;
	g->st.csum_sw_outer++;
	return l4_sum_ok(ipv, ip, 17, l3len, end - l4);
}

/* The unmerged tunnel frame @in just written as output @o: DATA_VALID when
 * Linux would report it (tun_outer_valid) and nothing else says more */
void
gro_tun_single(struct sofl_gro *g, const struct sofl_gro_in *in, const struct sofl_pkt *q,
	       struct sofl_gro_out *o)
{
	if (!o->vnet.flags && tun_outer_valid(g, in, q))
		o->vnet.flags = SOFL_VNET_HDR_F_DATA_VALID;
}

/* Delivered alone after the L4 checksum stage: as Linux, a checksum verified
 * in software (or flagged) is reported (DATA_VALID), a pseudo sum accepted by
 * partial_ok as partial. */
void
gro_bypass_l4(struct sofl_gro *g, const struct sofl_gro_in *in, const struct sofl_pkt *q, int why,
	  int ck)
{
	struct sofl_gro_out *o;
	int csum = ck == CK_PARTIAL ? SOFL_CSUM_PARTIAL :
		   ck == CK_VALID || (in->flags & SOFL_GRO_F_CSUM_OK) ? SOFL_CSUM_VALID :
		   SOFL_CSUM_UNKNOWN;

	g->st.bypass[why]++;
	o = out_single(g, in->data, in->len, in->cookie, csum, q->l4_off,
		       q->l4_proto == 6 ? 16 : 6);
	o->bypass = 1;
	o->bypass_reason = (enum sofl_gro_bypass)why;
	if (__builtin_expect(q->layers & SOFL_LAYER_ENCAP, 0))
		gro_tun_single(g, in, q, o);
}

/* Full TCP/UDP checksum of a super-packet: header in scratch (field zeroed)
 * plus the payload slices, each added at its running offset. */
static uint16_t
super_csum(const struct sofl_gro *g, const struct flow *f, const uint8_t *l4, uint32_t sum)
{
	uint32_t off = f->l4_len, si;

	sum = sofl_csum_add(sum, l4, f->l4_len);
	sum = sofl_csum_block_add(sum, sofl_csum_add(0, fframe(g, f) + f->hdr_len, f->mss), off);
	off += f->mss;
	for (si = f->seg_head; si != NIL; si = g->segs[si].next) {
		const struct seg *s = &g->segs[si];
		sum = sofl_csum_block_add(sum, sofl_csum_add(0, s->pay, s->len), off);
		off += s->len;
	}
	return (uint16_t)~sofl_csum_fold(sum);
}

/* The IPv4 header @ip, a copy of @src just written, with total length @len
 * and its checksum updated for it (inet_gro_complete: csum_replace2), the
 * old values read from @src: loads from bytes the copy has just stored
 * would wait for its wide stores (no store-to-load forwarding into part
 * of a vector store) */
static inline void
ip4_set_len_from(uint8_t *ip, const uint8_t *src, uint16_t len)
{
	sofl_put16(ip + 10, csum_replace16_inl(sofl_get16(src + 10), sofl_get16(src + 2), len));
	sofl_put16(ip + 2, len);
}

/* Completion (inet_gro_complete, ipv6_gro_complete, tcp_gro_complete,
 * udp_gro_complete): rewrite a copy of the first segment's headers (what
 * it reads, from the first segment's: ip4_set_len_from). */
static void
out_super(struct sofl_gro *g, uint32_t fi)
{
	struct flow *f = &g->flows[fi];
	struct sofl_gro_out *o = out_begin(g, f->count);
	uint8_t *h = g->scratch + g->sused, *ip = h + f->l3_off, *l4 = h + f->l4_off;
	const uint8_t *src = fhdr(f);
	uint32_t l4len = f->ip_len - (uint32_t)(f->l4_off - f->l3_off), si, next;
	uint16_t pseudo, co = f->proto == 6 ? 16 : 6;
	const struct seg *segs = g->segs;
	struct iovec *v;
	uint64_t *ck;

	g->sused += ((size_t)f->hdr_len + 7) & ~(size_t)7;
	memcpy(h, src, f->hdr_len);
	if (f->ipv == 4)
		ip4_set_len_from(ip, src + f->l3_off, (uint16_t)f->ip_len);
	else
		hdr_ipv6_set_len(ip, f->ip_len);
	pseudo = l4_pseudo(f->ipv, src + f->l3_off, f->proto, l4len);	/* (addresses) */
	if (f->proto == 6) {
		l4[13] = src[f->l4_off + 13] | f->orflags;
		if (g->cfg.policy == SOFL_GRO_POLICY_RELAXED && f->last_l4) {
			memcpy(l4 + 8, f->last_l4 + 8, 4);	/* newest ACK */
			memcpy(l4 + 14, f->last_l4 + 14, 2);	/* newest window */
			if (f->ts_off)
				memcpy(l4 + f->ts_off + 2, f->last_l4 + f->ts_off + 2, 8);
		}
		o->gso_type = f->ipv == 4 ? SOFL_GSO_TCPV4 : SOFL_GSO_TCPV6;
	} else {
		sofl_put16(l4 + 4, (uint16_t)l4len);
		o->gso_type = SOFL_GSO_UDP_L4;
	}
	/* UDP, tunnels: the pseudo sum in both modes (gro.h, Completion, Tunnels) */
	if (g->cfg.csum_full && f->proto == 6 && !(f->l3_off > TUN_L3(g) && g->tun[fi].ov)) {
		uint16_t c;

		sofl_put16(l4 + co, 0);
		c = super_csum(g, f, l4, pseudo);
		/* as the device (skb_checksum_help) completing Linux's
		 * CHECKSUM_PARTIAL output stores it: 0 becomes 0xFFFF, for
		 * TCP too; both verify, this one is byte-identical */
		if (c == 0)
			c = 0xffff;
		sofl_put16(l4 + co, c);
		o->csum = SOFL_CSUM_VALID;
		o->vnet.flags = SOFL_VNET_HDR_F_DATA_VALID;
	} else {
		sofl_put16(l4 + co, pseudo);
		o->csum = SOFL_CSUM_PARTIAL;
		o->csum_start = o->vnet.csum_start = f->l4_off;
		o->csum_offset = o->vnet.csum_offset = co;
		o->vnet.flags = SOFL_VNET_HDR_F_NEEDS_CSUM;
	}
	o->gso_size = f->mss;
	o->vnet.gso_type = o->gso_type;
	o->vnet.gso_size = f->mss;
	o->vnet.hdr_len = f->hdr_len;
	if (f->l3_off > TUN_L3(g) && g->tun[fi].ov)
		gro_tun_complete(g, fi, o, h);

	/* one walk of the segment list (a chain of dependent loads), the
	 * cursors in locals: through g they were reloaded and stored back
	 * for every segment (the stores may alias them) */
	v = &g->iov[g->niov];
	ck = &g->cookies[g->ncook];
	v->iov_base = h;
	v->iov_len = f->hdr_len;
	v[1].iov_base = (void *)(uintptr_t)(fframe(g, f) + f->hdr_len);
	v[1].iov_len = f->mss;
	v += 2;
	*ck++ = f->cookie0;
	/* by runs of consecutive entries (a train's segments usually are):
	 * within a run the next index is si + 1, so the walk does not wait
	 * for each entry's link to load (the link only decides the run's end) */
	for (si = f->seg_head; si != NIL; si = next) {
		const struct seg *sg = &segs[si];

		for (;; sg++, si++) {
			next = sg->next;
			v->iov_base = (void *)(uintptr_t)sg->pay;
			v->iov_len = sg->len;
			v++;
			*ck++ = sg->cookie;
			if (next != si + 1)
				break;
		}
	}
	g->niov = (uint32_t)(v - g->iov);
	g->ncook = (uint32_t)(ck - g->cookies);
	o->len = f->l3_off + f->ip_len;	/* the headers and every payload */
	g->segs[f->seg_tail].next = g->free_seg;	/* the chain back, in one piece */
	g->free_seg = f->seg_head;
	o->iovcnt = f->count + 1;
	g->st.super_pkts++;
	g->st.segs_merged += f->count;
}

/* A tunnel flow's super-packet (out_super wrote the inner headers into
 * the copy @h, the inner L4 checksum field the pseudo-header sum): the
 * outer headers as the gro_complete chain leaves them — the outer IPv4
 * total length with its header checksum updated (inet_gro_complete:
 * csum_replace2) or IPv6 payload length (ipv6_gro_complete); the outer UDP
 * length and, when the checksum is not zero, the pseudo-header sum of the
 * new length (udp4/udp6_gro_complete: ~udp_v4_check(len, saddr, daddr, 0)),
 * left zero otherwise; the type SKB_GSO_UDP_TUNNEL_CSUM / _UDP_TUNNEL
 * (udp_gro_complete) or the IP-in-IP bit (ipip_gro_complete,
 * ip4ip6/ip6ip6/sit_gro_complete) with the inner type.  The tunnel header
 * and inner Ethernet header are the first segment's (vxlan/geneve/
 * eth_gro_complete change nothing).  Its virtio header is the UDP-tunnel
 * form (virtio_net_hdr_tnl_to_skb accepts it: NEEDS_CSUM, the outer
 * family bit, outer_th_offset, inner_nh_offset, UDP_TUNNEL_CSUM when the
 * outer checksum is not zero). */
void
gro_tun_complete(struct sofl_gro *g, uint32_t fi, struct sofl_gro_out *o, uint8_t *h)
{
	const struct flow *f = &g->flows[fi];
	const struct tflow *t = &g->tun[fi];
	const uint32_t tot = (uint32_t)f->l3_off + f->ip_len;	/* the frame */
	const uint8_t *src = fhdr(f) + t->o3;	/* (out_super: ip4_set_len_from) */
	uint8_t *oip = h + t->o3, *uh;
	uint32_t ulen;

	if (t->ov == 4)
		ip4_set_len_from(oip, src, (uint16_t)(tot - t->o3));
	else
		hdr_ipv6_set_len(oip, tot - t->o3);
	g->st.tun_super_pkts++;
	g->st.tun_segs_merged += f->count;
	if (!t->o4) {
		/* virtio has no IP-in-IP GSO type (Linux SKB_GSO_IPXIP4/6): the
		 * virtio header keeps the inner checksum offsets only */
		o->gso_type |= SOFL_GSO_TUNNEL_IPIP;
		o->vnet.gso_type = SOFL_GSO_NONE;
		o->vnet.gso_size = 0;
		return;
	}
	/* the 24-byte virtio header's UDP-tunnel form (Linux 6.17+) */
	o->vnet.gso_type |= t->ov == 4 ? SOFL_VNET_GSO_UDP_TUNNEL_IPV4 : SOFL_VNET_GSO_UDP_TUNNEL_IPV6;
	o->vnet.outer_th_offset = t->o4;
	o->vnet.inner_nh_offset = f->l3_off;
	if (t->ocsum)
		o->vnet.flags |= SOFL_VNET_HDR_F_UDP_TUNNEL_CSUM;
	uh = h + t->o4;
	ulen = tot - t->o4;
	sofl_put16(uh + 4, (uint16_t)ulen);
	if (!t->ocsum) {
		o->gso_type |= SOFL_GSO_TUNNEL_UDP;
		return;
	}
	o->gso_type |= SOFL_GSO_TUNNEL_UDP_CSUM;
	sofl_put16(uh + 6, l4_pseudo(t->ov, src, 17, ulen));	/* (addresses) */
}

/* Delivers held flow @fi (already out of the table); frees it and its
 * segments. */
static void
emit(struct sofl_gro *g, uint32_t fi, int why)
{
	struct flow *f = &g->flows[fi];

	if (f->count == 1) {
		int ck = f->ck == CK_PARTIAL ? SOFL_CSUM_PARTIAL : SOFL_CSUM_VALID;
		out_single(g, fframe(g, f), (uint32_t)f->hdr_len + f->mss, f->cookie0, ck, f->l4_off,
			   f->proto == 6 ? 16 : 6);
	} else {
		out_super(g, fi);	/* frees the segments */
	}
	g->outs[g->nout - 1].flush_reason = (enum sofl_gro_flush)why;
	g->st.flush[why]++;
	g->held_segs -= f->count;
	f->count = 0;		/* not held (fast_find's last_fi check) */
	g->fstack[g->nfree++] = fi;
}

/* Completes held flow @fi: delivered now, flow and segments freed. */
void
gro_complete(struct sofl_gro *g, uint32_t fi, int why)
{
	table_unlink(g, fi);
	emit(g, fi, why);
}

/* Linux table, everything held: bucket by bucket, each from its oldest flow
 * to its newest (cprev links), the flows emitted and freed as emit() would
 * one by one, then the bucket emptied at once (no unlinking flow by flow).
 * Lone segments — most flows of a poll with many flows — are written here
 * with the cycle's cursors and free lists in locals (through g they would
 * be reloaded after each byte store into an output, which may alias them)
 * and their counters added once. */
static void
emit_buckets(struct sofl_gro *g, int why)
{
	struct sofl_gro_out *o = g->outs + g->nout;
	struct iovec *iov = g->iov + g->niov;
	uint64_t *ck = g->cookies + g->ncook;
	uint32_t nf = g->nfree, n1 = 0, b, fi;

	for (b = 0; b <= g->mask; b++) {
		if ((fi = g->tail[b]) == NIL)
			continue;
		while (fi != NIL) {
			struct flow *f = &g->flows[fi];
			uint32_t newer = f->cprev, len;

			if (f->count != 1) {
				g->nout = (uint32_t)(o - g->outs);
				g->niov = (uint32_t)(iov - g->iov);
				g->ncook = (uint32_t)(ck - g->cookies);
				g->nfree = nf;
				emit(g, fi, why);
				o = g->outs + g->nout;
				iov = g->iov + g->niov;
				ck = g->cookies + g->ncook;
				nf = g->nfree;
				fi = newer;
				continue;
			}
			len = (uint32_t)f->hdr_len + f->mss;
			iov->iov_base = (void *)(uintptr_t)f->hdr;	/* the frame (Linux table) */
			iov->iov_len = len;
			*ck = f->cookie0;
			*o = g->out1;
			o->iov = iov;
			o->cookies = ck;
			o->len = len;
			o->flush_reason = (enum sofl_gro_flush)why;
			if (f->ck == CK_PARTIAL) {
				o->csum = SOFL_CSUM_PARTIAL;
				o->csum_start = o->vnet.csum_start = f->l4_off;
				o->csum_offset = o->vnet.csum_offset = f->proto == 6 ? 16 : 6;
				o->vnet.flags = SOFL_VNET_HDR_F_NEEDS_CSUM;
			}
			f->count = 0;
			g->fstack[nf++] = fi;
			o++;
			iov++;
			ck++;
			n1++;
			fi = newer;
		}
		g->head[b] = 0;		/* empty (no count bits: Linux table) */
		g->tail[b] = NIL;
		g->cnt[b] = 0;
		memset(g->tags + (size_t)b * TAGS, 0, TAGS);
	}
	g->nout = (uint32_t)(o - g->outs);
	g->niov = (uint32_t)(iov - g->iov);
	g->ncook = (uint32_t)(ck - g->cookies);
	g->nfree = nf;
	g->st.pkts_out += n1;
	g->st.hist[0] += n1;		/* hist_bin(1) */
	g->st.flush[why] += n1;
	g->held_segs -= n1;
}

/* Linux: bucket by bucket, oldest first; stop a bucket at the first flow
 * younger than the timeout (__gro_flush_chain with flush_old). */
void
gro_flush_linux(struct sofl_gro *g, int why, int aged_only)
{
	uint32_t b, fi;

	if (aged_only) {
		for (b = 0; b <= g->mask; b++)
			while ((fi = g->tail[b]) != NIL) {	/* oldest first */
				if (g->now - g->flows[fi].age < g->timeout_ns)
					break;
				gro_complete(g, fi, why);
			}
		return;
	}
	emit_buckets(g, why);
	g->held_flows = 0;
	g->age.head = g->age.tail = NIL;
}

/* Before completing the age-list head: prefetch what completing the next
 * one will touch (its bucket head, its headers) and the one after it —
 * with many flows these are cache misses. */
HOT void
age_prefetch(const struct sofl_gro *g, uint32_t fi)
{
	const struct flow *n;
	uint32_t nx = g->flows[fi].age_next, nn;

	if (nx == NIL)
		return;
	n = &g->flows[nx];
	__builtin_prefetch(&g->head[n->hash & g->mask]);
	if (n->count > 1 && n->hdr != n->hc) {	/* headers not copied: the frame's */
		__builtin_prefetch(n->hdr);
		__builtin_prefetch(n->hdr + n->hdr_len - 1);
	}
	nn = n->age_next;
	if (nn != NIL)
		flow_prefetch(g, nn);	/* with its links: the next step reads them */
}

void
gro_flush_lru(struct sofl_gro *g, int why, int aged_only)
{
	uint32_t fi;

	while ((fi = g->age.head) != NIL) {
		if (aged_only && g->now - g->flows[fi].age < g->timeout_ns)
			break;
		if (g->pf)
			age_prefetch(g, fi);
		gro_complete(g, fi, why);
	}
}
