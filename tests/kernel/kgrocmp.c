/* kgrocmp — runs softoffload's GRO (library API) over a capture with the same
 * NAPI poll boundaries the kernel oracle had, and compares every output with
 * the kernel's: frame bytes exactly, and the virtio_net_hdr fields flags,
 * gso_type, gso_size, csum_start, csum_offset (hdr_len is left out: the
 * kernel reports skb_headlen(), where its skb happened to split linear data
 * from page fragments — a memory-layout artefact, not packet metadata).
 *
 * Tunnels: the packet socket reports a tunnel super-packet with the 10-byte
 * header (virtio_net_hdr_from_skb), which can only say the inner type; the
 * skb's SKB_GSO_UDP_TUNNEL(_CSUM) / SKB_GSO_IPXIP4/6 bits are not visible.
 * Our output's SOFL_GSO_TUNNEL_* bits are therefore checked against what the
 * frame itself shows: present exactly on merged tunnel outputs, IPIP for
 * IP-in-IP, UDP_CSUM when the outer UDP checksum field is non-zero, UDP when
 * it is zero; and so are the tunnel parts of our virtio header (the outer
 * family bit, UDP_TUNNEL_CSUM, outer_th_offset, inner_nh_offset, none for
 * IP-in-IP, which virtio cannot describe); then the header is compared
 * with the kernel's without them.  IP-in-IP has no virtio GSO type at all:
 * our header says none, and the kernel's is compared with the output's
 * inner type and gso_size instead.
 * See docs/kernel-oracle.md.
 *
 * usage: kgrocmp -r in.pcap -P polls.txt -k kernel.pcap -m kernel.vnet
 *                [-O kernel.outs] [-u] [-w ours.pcap -x ours.vnet] [-q]
 *   -O  the kernel's outputs per poll (kgro -O): compared poll by poll, a
 *       difference names its poll (for crafted sets, its case)
 *   -u  UDP GRO on (the kernel ran with rx-udp-gro-forwarding)
 * Exit: 0 identical, 1 different, 2 usage/I/O.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "softoffload/gro.h"
#include "kutil.h"

#define SHOW_MAX 10	/* differences shown; -a: all */
static size_t show_max = SHOW_MAX;
static size_t shown, bytes_diff, vnet_diff;	/* differences shown, found */

static size_t
read_polls(const char *path, size_t **out)
{
	size_t n = 0, cap = 0;
	unsigned long v;
	FILE *f;
	int ch;

	f = fopen(path, "r");
	if (!f)
		k_die("%s: %s", path, strerror(errno));
	*out = NULL;
	while (fscanf(f, "%lu", &v) == 1) {
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			*out = realloc(*out, cap * sizeof(**out));
			if (!*out)
				k_die("out of memory");
		}
		(*out)[n++] = v;
		ch = fgetc(f);
		if (ch != ',')
			break;
	}
	fclose(f);
	return n;
}

static void
show_frame_diff(size_t idx, const struct krec *k, const uint8_t *o, uint32_t olen)
{
	uint32_t i, lim = k->len < olen ? k->len : olen;

	for (i = 0; i < lim && k->data[i] == o[i]; i++)
		;
	fprintf(stderr, "  output %zu: kernel %u bytes, ours %u bytes, first difference at byte %u",
		idx, k->len, olen, i);
	if (i < lim)
		fprintf(stderr, " (kernel %02x, ours %02x)", k->data[i], o[i]);
	fputc('\n', stderr);
}

/* Our tunnel type bits (sofl_gro_out.gso_type) and the tunnel fields of our
 * virtio header, checked against the frame (see above).  @return 1 when
 * they are wrong. */
static int
tunnel_wrong(const uint8_t *f, uint32_t len, const struct sofl_gro_out *o)
{
	unsigned t = o->gso_type & SOFL_GSO_TUNNEL_MASK, want = 0, vwant = 0, fwant = 0;
	const struct sofl_vnet_hdr *v = &o->vnet;
	struct sofl_pkt p;

	if (o->gso_size && sofl_pkt_parse(&p, f, len, SOFL_LINK_ETH) >= 0 &&
	    (p.layers & SOFL_LAYER_ENCAP)) {
		if (p.encap == SOFL_ENCAP_IPIP) {
			want = SOFL_GSO_TUNNEL_IPIP;
		} else if (p.outer_l4_off && p.outer_l4_off + 8u <= len) {
			int cs = sofl_get16(f + p.outer_l4_off + 6) != 0;

			want = cs ? SOFL_GSO_TUNNEL_UDP_CSUM : SOFL_GSO_TUNNEL_UDP;
			vwant = p.outer_ipv == 4 ? SOFL_VNET_GSO_UDP_TUNNEL_IPV4 :
						   SOFL_VNET_GSO_UDP_TUNNEL_IPV6;
			fwant = cs ? SOFL_VNET_HDR_F_UDP_TUNNEL_CSUM : 0;
			if (v->outer_th_offset != p.outer_l4_off || v->inner_nh_offset != p.l3_off)
				return 1;
		}
	}
	if (!vwant && (v->outer_th_offset || v->inner_nh_offset))
		return 1;
	return t != want ||
	       (v->gso_type & (SOFL_VNET_GSO_UDP_TUNNEL_IPV4 | SOFL_VNET_GSO_UDP_TUNNEL_IPV6)) != vwant ||
	       (v->flags & SOFL_VNET_HDR_F_UDP_TUNNEL_CSUM) != fwant;
}

/* The TCP header of @f has CWR. */
static int
cwr(const uint8_t *f, uint32_t len)
{
	struct sofl_pkt p;

	return sofl_pkt_parse(&p, f, len, SOFL_LINK_ETH) >= 0 && (p.layers & SOFL_LAYER_L4) &&
	       p.l4_proto == 6 && p.l4_off + 14u <= len && (f[p.l4_off + 13] & SOFL_TCP_CWR);
}

/* The kernel's 10-byte header against ours without its tunnel parts. */
static int
vnet_differs(const struct sofl_vnet_hdr *a, const struct sofl_vnet_hdr *b)
{
	unsigned tb = SOFL_VNET_GSO_UDP_TUNNEL_IPV4 | SOFL_VNET_GSO_UDP_TUNNEL_IPV6;

	return a->flags != (b->flags & ~SOFL_VNET_HDR_F_UDP_TUNNEL_CSUM) ||
	       a->gso_type != (b->gso_type & ~tb) || a->gso_size != b->gso_size ||
	       a->csum_start != b->csum_start || a->csum_offset != b->csum_offset;
}

/* Compares output @i, the kernel's @k with ours @o (@pi >= 0: the poll, its
 * @pj-th output, named in the report). */
static void
cmp_one(size_t i, const struct krec *k, const struct krec *o, long pi, size_t pj)
{
	int bytes = k->len != o->len || memcmp(k->data, o->data, k->len) != 0;

	if (!bytes && !vnet_differs(&k->vh, &o->vh))
		return;
	if (pi >= 0 && shown < show_max)
		fprintf(stderr, "  poll %ld, its output %zu:\n", pi, pj);
	if (bytes) {
		bytes_diff++;
		if (shown++ < show_max)
			show_frame_diff(i, k, o->data, o->len);
		return;
	}
	vnet_diff++;
	if (shown++ < show_max)
		fprintf(stderr, "  output %zu: vnet kernel {flags %u gso %u/%u csum %u+%u} "
			"ours {flags %u gso %u/%u csum %u+%u}\n", i,
			k->vh.flags, k->vh.gso_type, k->vh.gso_size, k->vh.csum_start,
			k->vh.csum_offset, o->vh.flags, o->vh.gso_type, o->vh.gso_size,
			o->vh.csum_start, o->vh.csum_offset);
}

int
main(int argc, char **argv)
{
	const char *r = NULL, *pp = NULL, *kp = NULL, *km = NULL, *w = NULL, *x = NULL, *op = NULL;
	size_t *kouts = NULL, nko = 0, *oouts, kpos = 0, opos = 0, poll_diff = 0;
	struct kset in = { 0 }, kern = { 0 }, ours = { 0 };
	struct sofl_gro_config cfg;
	struct sofl_gro *g;
	struct sofl_gro_in *gin;
	size_t *polls, np, i, pos = 0, supers = 0;
	size_t tun_bad = 0;
	uint8_t *buf;
	int c, udp = 0, quiet = 0, e;
	unsigned long lru = 0;

	while ((c = getopt(argc, argv, "r:P:k:m:uw:x:qL:O:a")) != -1) {
		switch (c) {
		case 'r': r = optarg; break;
		case 'P': pp = optarg; break;
		case 'k': kp = optarg; break;
		case 'm': km = optarg; break;
		case 'u': udp = 1; break;
		case 'w': w = optarg; break;
		case 'x': x = optarg; break;
		case 'q': quiet = 1; break;
		case 'L': lru = strtoul(optarg, NULL, 0); break;
		case 'O': op = optarg; break;
		case 'a': show_max = (size_t)-1; break;
		default:
			fprintf(stderr, "usage: kgrocmp -r in.pcap -P polls.txt -k kernel.pcap "
				"-m kernel.vnet [-u] [-L flows] [-w ours.pcap -x ours.vnet]\n");
			return 2;
		}
	}
	if (!r || !pp || !kp || !km)
		k_die("kgrocmp: -r, -P, -k and -m are required");
	kset_read(&in, r, NULL);
	kset_read(&kern, kp, km);
	np = read_polls(pp, &polls);
	if (op && (nko = read_polls(op, &kouts)) != np)
		k_die("kgrocmp: %s has %zu polls, %s %zu", op, nko, pp, np);
	oouts = calloc(np + 1, sizeof(*oouts));
	if (!oouts)
		k_die("out of memory");
	for (i = 0; i < np; i++)
		pos += polls[i];
	if (pos != in.n)
		k_die("kgrocmp: polls add up to %zu, the capture has %zu frames", pos, in.n);

	/* Linux defaults: 8x8 table, no rx hash (TAP), 65535, flush per poll,
	 * pseudo-header checksums (--csum partial).  -L N: an LRU table of N
	 * flows instead (N > 5461: the one that compares against copies of
	 * held headers); the same output where no bucket of Linux's would hold
	 * more than 8 flows, as in an iperf3 capture (both flush oldest first). */
	sofl_gro_config_init(&cfg);
	cfg.udp = udp;
	cfg.max_batch = 64;
	if (lru) {
		cfg.table = SOFL_GRO_TABLE_LRU;
		cfg.max_flows = (uint32_t)lru;
	}
	if ((e = sofl_gro_create(&cfg, &g)) < 0)
		k_die("sofl_gro_create: %s", sofl_strerror(e));
	gin = calloc(64, sizeof(*gin));
	buf = malloc(1 << 17);
	if (!gin || !buf)
		k_die("out of memory");
	for (i = 0, pos = 0; i < np; pos += polls[i++]) {
		const struct sofl_gro_out *o;
		struct sofl_vnet_hdr vh;
		size_t j;
		int k;

		for (j = 0; j < polls[i]; j++) {
			gin[j].data = in.r[pos + j].data;
			gin[j].len = in.r[pos + j].len;
			gin[j].flags = 0;	/* as the TAP: CHECKSUM_NONE, no rx hash */
			gin[j].cookie = pos + j;
		}
		if ((e = sofl_gro_receive(g, gin, polls[i], 0)) < 0)
			k_die("sofl_gro_receive (poll %zu): %s", i, sofl_strerror(e));
		sofl_gro_poll_end(g, 0);
		k = sofl_gro_outputs(g, &o);
		oouts[i] = (size_t)k;
		for (j = 0; j < (size_t)k; j++) {
			long len = sofl_gro_out_copy(&o[j], buf, 1 << 17);

			if (len < 0)
				k_die("sofl_gro_out_copy: %s", sofl_strerror((int)len));
			vh = o[j].vnet;
			if ((o[j].gso_type & SOFL_GSO_TUNNEL_MASK) == SOFL_GSO_TUNNEL_IPIP &&
			    !vh.gso_type && !vh.gso_size) {
				/* virtio cannot describe IP-in-IP GSO: our header says
				 * none; the kernel's packet socket gives the inner type
				 * and size (virtio_net_hdr_from_skb does not look at
				 * SKB_GSO_IPXIP4/6), and ECN when the first segment
				 * has CWR (tcp_gro_complete: SKB_GSO_TCP_ECN) */
				vh.gso_type = (uint8_t)(SOFL_GSO_INNER(o[j].gso_type) |
							(cwr(buf, (uint32_t)len) ? SOFL_GSO_ECN : 0));
				vh.gso_size = o[j].gso_size;
			}
			kset_add(&ours, buf, (uint32_t)len, &vh);
			supers += o[j].segs > 1;
			if (tunnel_wrong(buf, (uint32_t)len, &o[j])) {
				tun_bad++;
				if (shown++ < show_max)
					fprintf(stderr, "  output %zu: gso_type %#x, vnet {flags %#x gso %#x "
						"outer_th %u inner_nh %u}: tunnel parts do not match the "
						"frame\n", ours.n - 1, o[j].gso_type, o[j].vnet.flags,
						o[j].vnet.gso_type, o[j].vnet.outer_th_offset,
						o[j].vnet.inner_nh_offset);
			}
		}
		sofl_gro_release(g);
	}
	sofl_gro_destroy(g);
	ours.has_vh = 1;
	if (w && x)
		kset_write(&ours, w, x);

	if (!kouts) {	/* one poll of everything: compared in order */
		nko = 1;
		kouts = calloc(1, sizeof(*kouts));
		if (!kouts)
			k_die("out of memory");
		kouts[0] = kern.n;
		oouts[0] = ours.n;
	}
	for (size_t pi = 0; pi < nko; kpos += kouts[pi], opos += oouts[pi], pi++) {
		size_t n = kouts[pi] < oouts[pi] ? kouts[pi] : oouts[pi];

		if (kouts[pi] != oouts[pi]) {
			poll_diff++;
			if (shown++ < show_max)
				fprintf(stderr, "  poll %zu: kernel %zu outputs, ours %zu\n", pi,
					kouts[pi], oouts[pi]);
		}
		if (kpos + n > kern.n || opos + n > ours.n)
			k_die("kgrocmp: outputs per poll add up to more than the outputs");
		for (size_t pj = 0; pj < n; pj++)
			cmp_one(kpos + pj, &kern.r[kpos + pj], &ours.r[opos + pj],
				nko > 1 ? (long)pi : -1, pj);
	}
	if (!quiet || bytes_diff || vnet_diff || tun_bad || poll_diff || kern.n != ours.n)
		printf("kgrocmp: %zu frames in %zu polls; kernel %zu outputs, ours %zu (%zu super-packets); "
		       "%zu differ in bytes, %zu in vnet header, %zu with wrong tunnel type bits, %zu polls "
		       "with another number of outputs\n", in.n, np, kern.n, ours.n, supers, bytes_diff,
		       vnet_diff, tun_bad, poll_diff);
	e = bytes_diff || vnet_diff || tun_bad || poll_diff || kern.n != ours.n;
	free(kouts);
	free(oouts);
	kset_free(&in);
	kset_free(&kern);
	kset_free(&ours);
	free(polls);
	free(gin);
	free(buf);
	return e;
}
