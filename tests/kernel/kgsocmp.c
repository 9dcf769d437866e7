/* kgsocmp — segments super-packets with softoffload (library API: the
 * virtio header translated by sofl_vnet_to_gso(), then sofl_gso_segment()
 * with complete checksums) and compares, super-packet by super-packet, with
 * the segments the kernel produced (kgso).  See docs/kernel-oracle.md.
 *
 * Compared: the number of segments (0 when the kernel refused the virtio
 * header or dropped the packet, which must match our rejection) and every
 * byte of every segment.  The kernel's segments left a veth with
 * tx-checksumming off, so their checksums are complete; ours are computed
 * complete as well: nothing is normalised.
 *
 * With -p the kernel ran with tx-checksumming on (still no TSO/GSO): its
 * segments keep CHECKSUM_PARTIAL, i.e. the pseudo-header sum in the checksum
 * field and a virtio header with NEEDS_CSUM; ours are made with
 * SOFL_GSO_F_CSUM_PARTIAL, and each kernel segment's virtio header must say
 * NEEDS_CSUM at our L4 header, offset 16 (TCP) or 6 (UDP), and no GSO.
 * UFO fragments are the exception: the kernel completes the datagram's
 * checksum before fragmenting (udp4/udp6_ufo_fragment), so they may say
 * DATA_VALID, and the library completes it too.
 *
 * IPv6 UFO fragments are the exception: the kernel picks each datagram's
 * fragment identification at random (ipv6_proxy_select_ident), so those 4
 * bytes are not compared; instead both sides' identifications must be
 * non-zero, the same on all fragments of a datagram, and the kernel's must
 * differ from the previous datagram's.
 *
 * -T: the headers went through a TAP with the 24-byte form and both
 * UDP-tunnel features (kgso -T): sofl_vnet_to_gso() gets SOFL_VNET_F_TUNNEL |
 * SOFL_VNET_F_TUNNEL_CSUM.  For a UDP-tunnel header (a sidecar line with
 * outer_th_offset and inner_nh_offset) its result is checked against the
 * oracle's own reading (virtio_net_hdr_tnl_to_skb: the inner type,
 * SOFL_GSO_TUNNEL_UDP_CSUM when VIRTIO_NET_HDR_F_UDP_TUNNEL_CSUM is set, else
 * SOFL_GSO_TUNNEL_UDP; the offsets equal to the library's parse), then
 * sofl_gso_segment() runs as for any other super-packet.
 *
 * usage: kgsocmp -r in.pcap -m in.vnet -k kernel.pcap -x kernel.vnet -n kernel.counts
 *                [-p] [-w ours.pcap]
 * Exit: 0 identical, 1 different, 2 usage/I/O.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "softoffload/csum.h"
#include "softoffload/gso.h"
#include "softoffload/vnet.h"
#include "kutil.h"

#define SHOW_MAX 10	/* differences shown; -a: all */
#define MAX_SEGS 65536

static size_t shown, show_max = SHOW_MAX;

static void
note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
note(const char *fmt, ...)
{
	va_list ap;

	if (shown++ >= show_max)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

#define K_VNET_GSO_TUNNEL_IPV4 0x20	/* VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV4 */
#define K_VNET_GSO_TUNNEL_IPV6 0x40	/* VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV6 */
#define K_VNET_F_TUNNEL_CSUM   0x08	/* VIRTIO_NET_HDR_F_UDP_TUNNEL_CSUM */

/* The oracle's own reading of a UDP-tunnel virtio header (see above),
 * against the library's sofl_vnet_to_gso() result @lib.  @return 0 when they
 * agree. */
static int
tunnel_params_differ(const struct krec *r, const struct sofl_pkt *p,
		     const struct sofl_gso_params *lib)
{
	unsigned want = (r->vh.gso_type & 0x0f) | ((r->vh.flags & K_VNET_F_TUNNEL_CSUM) ?
						    SOFL_GSO_TUNNEL_UDP_CSUM : SOFL_GSO_TUNNEL_UDP);

	if (!(p->layers & SOFL_LAYER_ENCAP) || p->outer_l4_off != r->vh.outer_th_offset ||
	    p->l3_off != r->vh.inner_nh_offset) {
		note("  tunnel super-packet (%u bytes): header offsets outer_th %u inner_nh %u, "
		     "library parse (layers %#x) %u %u\n", r->len, r->vh.outer_th_offset,
		     r->vh.inner_nh_offset, p->layers, p->outer_l4_off, p->l3_off);
		return 1;
	}
	if (lib->type != want || lib->gso_size != r->vh.gso_size) {
		note("  tunnel super-packet (%u bytes): sofl_vnet_to_gso type %#x size %u, "
		     "expected %#x %u\n", r->len, lib->type, lib->gso_size, want, r->vh.gso_size);
		return 1;
	}
	return 0;
}

/* Ours for one super-packet, appended to *out. @return segments, or a
 * negative code when we refuse it. */
#define K_TNL_DIFFERS (-1000)	/* the oracle reads the tunnel header otherwise */

static int
segment_one(const struct krec *r, struct kset *out, struct sofl_gso_seg *segs, uint8_t *buf,
	    size_t cap, int partial, int tnl)
{
	struct sofl_gso_params gp;
	struct sofl_gso_need need;
	struct sofl_gso_out o;
	struct sofl_pkt p;
	int e, n, i;

	(void)sofl_pkt_parse(&p, r->data, r->len, SOFL_LINK_ETH);
	/* what TUNSETOFFLOAD granted the TAP (kgso -T): both tunnel features */
	e = sofl_vnet_to_gso(&r->vh, &p, tnl ? SOFL_VNET_F_TUNNEL | SOFL_VNET_F_TUNNEL_CSUM : 0, &gp);
	if (e < 0)
		return e;
	if (e > 0 && (r->vh.gso_type & (K_VNET_GSO_TUNNEL_IPV4 | K_VNET_GSO_TUNNEL_IPV6)) &&
	    tunnel_params_differ(r, &p, &gp))
		return K_TNL_DIFFERS;
	if (e == 0 && !(r->vh.flags & SOFL_VNET_HDR_F_NEEDS_CSUM)) {
		/* Not GSO and no checksum to finish: forwarded as it is. */
		kset_add(out, r->data, r->len, NULL);
		return 1;
	}
	if (partial)
		gp.flags |= SOFL_GSO_F_CSUM_PARTIAL;
	if ((e = sofl_gso_need(&gp, &p, SOFL_GSO_COPY, 0, &need)) < 0)
		return e;
	if (need.buf_bytes > cap || need.nsegs > MAX_SEGS)
		k_die("kgsocmp: buffers too small for %u segments", need.nsegs);
	memset(&o, 0, sizeof(o));
	o.mode = SOFL_GSO_COPY;
	o.seg = segs;
	o.seg_cap = MAX_SEGS;
	o.buf = buf;
	o.buf_cap = cap;
	n = sofl_gso_segment(&gp, &p, NULL, 0, &o);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++)
		kset_add(out, segs[i].data, segs[i].len, NULL);
	return n;
}

/* Where an IPv6 fragment's identification is, or 0 (not one). */
static uint32_t
frag6_id_off(const struct krec *k)
{
	struct sofl_pkt p;

	if (sofl_pkt_parse(&p, k->data, k->len, SOFL_LINK_ETH) < 0 || p.ipv != 6 ||
	    !p.frag_off_hdr || p.frag_off_hdr + 8u > k->len)
		return 0;
	return p.frag_off_hdr + 4u;
}

/* Segment @j of a datagram: kernel @k and ours @o equal but for the
 * identification, which follows the rules above.  kid0, oid0: segment 0's. */
static int
frag6_same(const struct krec *k, const struct krec *o, uint32_t off, size_t j, uint32_t prev,
	   uint32_t *kid0, uint32_t *oid0)
{
	uint32_t kid = sofl_get32(k->data + off), oid = sofl_get32(o->data + off);

	if (j == 0) {
		*kid0 = kid;
		*oid0 = oid;
	}
	if (!kid || !oid || kid != *kid0 || oid != *oid0 || (j == 0 && kid == prev)) {
		note("  identification kernel %#x (first %#x, previous datagram %#x), ours %#x "
		     "(first %#x)\n", kid, *kid0, prev, oid, *oid0);
		return 0;
	}
	return !memcmp(k->data, o->data, off) &&
	       !memcmp(k->data + off + 4, o->data + off + 4, k->len - off - 4);
}

/* -p: the kernel's segment must be announced as partial at our L4 header
 * (the inner one of a tunnel packet) -- or, for a packet that was not GSO
 * (@in), where its own header asked for the checksum: passed on unchanged. */
static int
vnet_partial_ok(const struct krec *k, const struct krec *in)
{
	struct sofl_pkt p;

	if (!in->vh.gso_type && (in->vh.flags & SOFL_VNET_HDR_F_NEEDS_CSUM))
		return k->vh.flags == SOFL_VNET_HDR_F_NEEDS_CSUM && k->vh.gso_type == 0 &&
		       k->vh.csum_start == in->vh.csum_start && k->vh.csum_offset == in->vh.csum_offset;

	if (sofl_pkt_parse(&p, k->data, k->len, SOFL_LINK_ETH) < 0 || !(p.layers & SOFL_LAYER_L4))
		return (k->vh.flags == 0 || (p.is_frag && k->vh.flags == SOFL_VNET_HDR_F_DATA_VALID)) &&
		       k->vh.gso_type == 0;
	return k->vh.flags == SOFL_VNET_HDR_F_NEEDS_CSUM && k->vh.gso_type == 0 &&
	       k->vh.gso_size == 0 && k->vh.csum_start == p.l4_off &&
	       k->vh.csum_offset == (p.l4_proto == 6 ? 16 : 6);
}

int
main(int argc, char **argv)
{
	const char *r = NULL, *m = NULL, *kp = NULL, *kx = NULL, *kn = NULL, *w = NULL;
	struct kset in = { 0 }, kern = { 0 }, ours = { 0 };
	size_t i, bad = 0, nsegs = 0, refused = 0, nids = 0;
	uint32_t prev_id = 0, kid0 = 0, oid0 = 0;
	struct sofl_gso_seg *segs;
	uint8_t *buf;
	size_t cap = 64u << 20;
	FILE *cf;
	int c, partial = 0, tnl = 0;

	while ((c = getopt(argc, argv, "r:m:k:x:n:w:pTa")) != -1) {
		switch (c) {
		case 'r': r = optarg; break;
		case 'm': m = optarg; break;
		case 'k': kp = optarg; break;
		case 'x': kx = optarg; break;
		case 'n': kn = optarg; break;
		case 'w': w = optarg; break;
		case 'p': partial = 1; break;
		case 'T': tnl = 1; break;
		case 'a': show_max = (size_t)-1; break;
		default:
			fprintf(stderr, "usage: kgsocmp -r in.pcap -m in.vnet -k kernel.pcap "
				"-x kernel.vnet -n kernel.counts [-p] [-T] [-w ours.pcap]\n");
			return 2;
		}
	}
	if (!r || !m || !kp || !kx || !kn)
		k_die("kgsocmp: -r -m -k -x -n are required");
	kset_read(&in, r, m);
	kset_read(&kern, kp, kx);
	cf = fopen(kn, "r");
	if (!cf)
		k_die("%s: %s", kn, strerror(errno));
	segs = calloc(MAX_SEGS, sizeof(*segs));
	buf = malloc(cap);
	if (!segs || !buf)
		k_die("out of memory");
	for (i = 0; i < in.n; i++) {
		size_t kcount, kfirst, first = ours.n, j;
		int n;

		if (fscanf(cf, "%zu %zu", &kcount, &kfirst) != 2)
			k_die("%s: line %zu: expected 2 numbers", kn, i + 1);
		if (kfirst + kcount > kern.n)
			k_die("%s: line %zu: beyond the kernel's capture", kn, i + 1);
		n = segment_one(&in.r[i], &ours, segs, buf, cap, partial, tnl);
		if (n == K_TNL_DIFFERS) {
			bad++;
			continue;
		}
		if (n < 0) {
			refused++;
			if (kcount != 0) {
				bad++;
				note("  super-packet %zu: we refuse it (%s), the kernel made %zu segments\n",
				     i, sofl_strerror(n), kcount);
			}
			continue;
		}
		nsegs += (size_t)n;
		if ((size_t)n != kcount) {
			bad++;
			note("  super-packet %zu (%u bytes, gso_type %u, gso_size %u): kernel %zu "
			     "segments, ours %d\n", i, in.r[i].len, in.r[i].vh.gso_type,
			     in.r[i].vh.gso_size, kcount, n);
			continue;
		}
		for (j = 0; j < kcount; j++) {
			const struct krec *k = &kern.r[kfirst + j], *o = &ours.r[first + j];
			uint32_t b, lim = k->len < o->len ? k->len : o->len, off;

			if (partial && !vnet_partial_ok(k, &in.r[i])) {
				bad++;
				note("  super-packet %zu segment %zu: kernel vnet {flags %u gso %u/%u csum "
				     "%u+%u} is not a plain partial checksum at the L4 header\n", i, j,
				     k->vh.flags, k->vh.gso_type, k->vh.gso_size, k->vh.csum_start,
				     k->vh.csum_offset);
				break;
			}
			off = frag6_id_off(k);
			if (off && k->len == o->len && off == frag6_id_off(o)) {
				nids++;
				if (frag6_same(k, o, off, j, prev_id, &kid0, &oid0)) {
					if (j + 1 == kcount)
						prev_id = kid0;
					continue;
				}
			} else if (k->len == o->len && !memcmp(k->data, o->data, k->len)) {
				continue;
			}
			for (b = 0; b < lim && k->data[b] == o->data[b]; b++)
				;
			bad++;
			note("  super-packet %zu segment %zu: kernel %u bytes, ours %u, first "
			     "difference at byte %u\n", i, j, k->len, o->len, b);
			break;
		}
	}
	fclose(cf);
	if (w)
		kset_write(&ours, w, NULL);
	printf("kgsocmp: %zu super-packets (%zu refused by both), %zu segments compared%s "
	       "(%zu IPv6 fragments but for their identification), %zu mismatches\n", in.n,
	       refused, nsegs, partial ? " (partial checksums)" : "", nids, bad);
	kset_free(&in);
	kset_free(&kern);
	kset_free(&ours);
	free(segs);
	free(buf);
	return bad != 0;
}
