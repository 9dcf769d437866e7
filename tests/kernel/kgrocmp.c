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
 * Our SOFL_GSO_TUNNEL_* bits are therefore compared with what the frame
 * itself shows instead: present exactly on merged tunnel outputs, IPIP for
 * IP-in-IP, UDP_CSUM when the outer UDP checksum field is non-zero, UDP when
 * it is zero; then the header is compared without them.
 * See docs/kernel-oracle.md.
 *
 * usage: kgrocmp -r in.pcap -P polls.txt -k kernel.pcap -m kernel.vnet
 *                [-u] [-w ours.pcap -x ours.vnet] [-q]
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

#define SHOW_MAX 10

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

/* Our tunnel bits, checked against the frame (see above). @return 1 when
 * they are wrong. */
static int
tunnel_bits_wrong(const struct krec *o)
{
	unsigned t = o->vh.gso_type & SOFL_GSO_TUNNEL_MASK, want = 0;
	struct sofl_pkt p;

	if (o->vh.gso_size && sofl_pkt_parse(&p, o->data, o->len, SOFL_LINK_ETH) >= 0 &&
	    (p.layers & SOFL_LAYER_ENCAP)) {
		if (p.encap == SOFL_ENCAP_IPIP)
			want = SOFL_GSO_TUNNEL_IPIP;
		else if (p.outer_l4_off && p.outer_l4_off + 8u <= o->len)
			want = sofl_get16(o->data + p.outer_l4_off + 6) ? SOFL_GSO_TUNNEL_UDP_CSUM :
									   SOFL_GSO_TUNNEL_UDP;
	}
	return t != want;
}

static int
vnet_differs(const struct sofl_vnet_hdr *a, const struct sofl_vnet_hdr *b)
{
	return a->flags != b->flags || a->gso_type != b->gso_type || a->gso_size != b->gso_size ||
	       a->csum_start != b->csum_start || a->csum_offset != b->csum_offset;
}

int
main(int argc, char **argv)
{
	const char *r = NULL, *pp = NULL, *kp = NULL, *km = NULL, *w = NULL, *x = NULL;
	struct kset in = { 0 }, kern = { 0 }, ours = { 0 };
	struct sofl_gro_config cfg;
	struct sofl_gro *g;
	struct sofl_gro_in *gin;
	size_t *polls, np, i, pos = 0, bytes_diff = 0, vnet_diff = 0, shown = 0, supers = 0;
	uint8_t *buf;
	int c, udp = 0, quiet = 0, e;
	unsigned long lru = 0;

	while ((c = getopt(argc, argv, "r:P:k:m:uw:x:qL:")) != -1) {
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
		for (j = 0; j < (size_t)k; j++) {
			long len = sofl_gro_out_copy(&o[j], buf, 1 << 17);

			if (len < 0)
				k_die("sofl_gro_out_copy: %s", sofl_strerror((int)len));
			kset_add(&ours, buf, (uint32_t)len, &o[j].vnet);
			supers += o[j].segs > 1;
		}
		sofl_gro_release(g);
	}
	sofl_gro_destroy(g);
	ours.has_vh = 1;
	if (w && x)
		kset_write(&ours, w, x);

	for (i = 0; i < kern.n && i < ours.n; i++) {
		const struct krec *k = &kern.r[i], *o = &ours.r[i];

		if (k->len != o->len || memcmp(k->data, o->data, k->len) != 0) {
			bytes_diff++;
			if (shown++ < SHOW_MAX)
				show_frame_diff(i, k, o->data, o->len);
		} else if (tunnel_bits_wrong(o)) {
			vnet_diff++;
			if (shown++ < SHOW_MAX)
				fprintf(stderr, "  output %zu: our gso_type %#x has tunnel bits that do "
					"not match the frame\n", i, o->vh.gso_type);
		} else if (vnet_differs(&k->vh, &(struct sofl_vnet_hdr){
				.flags = o->vh.flags, .gso_size = o->vh.gso_size,
				.gso_type = (uint8_t)(o->vh.gso_type & ~SOFL_GSO_TUNNEL_MASK),
				.csum_start = o->vh.csum_start, .csum_offset = o->vh.csum_offset })) {
			vnet_diff++;
			if (shown++ < SHOW_MAX)
				fprintf(stderr, "  output %zu: vnet kernel {flags %u gso %u/%u csum %u+%u} "
					"ours {flags %u gso %u/%u csum %u+%u}\n", i,
					k->vh.flags, k->vh.gso_type, k->vh.gso_size, k->vh.csum_start,
					k->vh.csum_offset, o->vh.flags, o->vh.gso_type, o->vh.gso_size,
					o->vh.csum_start, o->vh.csum_offset);
		}
	}
	if (!quiet || bytes_diff || vnet_diff || kern.n != ours.n)
		printf("kgrocmp: %zu frames in %zu polls; kernel %zu outputs, ours %zu (%zu super-packets); "
		       "%zu differ in bytes, %zu in vnet header\n", in.n, np, kern.n, ours.n, supers,
		       bytes_diff, vnet_diff);
	e = bytes_diff || vnet_diff || kern.n != ours.n;
	kset_free(&in);
	kset_free(&kern);
	kset_free(&ours);
	free(polls);
	free(gin);
	free(buf);
	return e;
}
