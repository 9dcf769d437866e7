/* kpcmp — are two captures identical, record for record, byte for byte?
 * Used to compare a `softoffload` CLI output with the kernel oracle's
 * (docs/kernel-oracle.md).  Timestamps are not compared.
 *
 * With -f kernel.vnet, the kernel's records whose virtio header says
 * NEEDS_CSUM first get their checksum completed at csum_start/csum_offset,
 * as the device or stack receiving them would (skb_checksum_help: a 0 result
 * is stored as 0xFFFF): that is what `softoffload gro --csum full` must equal.
 *
 * With -x PORTS (a file of TCP source ports, one per line), the records of
 * those flows are left out of both captures before the comparison (bursts
 * that did not reach the relay as one: tests/relay_burst.sh).
 *
 * usage: kpcmp [-f kernel.vnet] [-x PORTS] kernel.pcap ours.pcap [label]
 * Exit: 0 identical, 1 different, 2 usage/I/O.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "softoffload/csum.h"
#include "kutil.h"

#define SHOW_MAX 10
#define USAGE "usage: kpcmp [-f kernel.vnet] [-x PORTS] kernel.pcap ours.pcap [label]\n"

static uint8_t excluded[65536];

static void
read_ports(const char *path)
{
	FILE *f = fopen(path, "r");
	unsigned v;

	if (!f)
		k_die("%s: cannot open", path);
	while (fscanf(f, "%u", &v) == 1)
		if (v < 65536)
			excluded[v] = 1;
	fclose(f);
}

/* @s without the records of excluded flows; @return how many left out */
static size_t
drop_excluded(struct kset *s)
{
	size_t i, j = 0, out = 0;

	for (i = 0; i < s->n; i++) {
		int sp = k_tcp_sport(s->r[i].data, s->r[i].len);

		if (sp >= 0 && excluded[sp]) {
			free(s->r[i].data);
			out++;
			continue;
		}
		s->r[j++] = s->r[i];
	}
	s->n = j;
	return out;
}

int
main(int argc, char **argv)
{
	struct kset a = { 0 }, b = { 0 };
	const char *label, *side = NULL, *xfile = NULL;
	size_t i, bad = 0, fixed = 0, xa = 0, xb = 0;
	int c;

	while ((c = getopt(argc, argv, "f:x:")) != -1) {
		if (c == 'f')
			side = optarg;
		else if (c == 'x')
			xfile = optarg;
		else {
			fputs(USAGE, stderr);
			return 2;
		}
	}
	if (argc - optind < 2 || argc - optind > 3) {
		fputs(USAGE, stderr);
		return 2;
	}
	label = argc - optind == 3 ? argv[optind + 2] : "kpcmp";
	kset_read(&a, argv[optind], side);
	kset_read(&b, argv[optind + 1], NULL);
	if (xfile) {
		read_ports(xfile);
		xa = drop_excluded(&a);
		xb = drop_excluded(&b);
	}
	for (i = 0; side && i < a.n; i++) {
		const struct sofl_vnet_hdr *v = &a.r[i].vh;

		if (!(v->flags & SOFL_VNET_HDR_F_NEEDS_CSUM))
			continue;
		if (sofl_csum_complete_partial(a.r[i].data, a.r[i].len, v->csum_start,
					       v->csum_offset) < 0)
			k_die("%s: record %zu: csum_start/offset beyond the frame", argv[optind], i);
		fixed++;
	}
	for (i = 0; i < a.n && i < b.n; i++) {
		uint32_t k, lim = a.r[i].len < b.r[i].len ? a.r[i].len : b.r[i].len;

		if (a.r[i].len == b.r[i].len && !memcmp(a.r[i].data, b.r[i].data, lim))
			continue;
		for (k = 0; k < lim && a.r[i].data[k] == b.r[i].data[k]; k++)
			;
		if (bad++ < SHOW_MAX)
			fprintf(stderr, "  %s: record %zu: kernel %u bytes, ours %u, first difference "
				"at byte %u\n", label, i, a.r[i].len, b.r[i].len, k);
	}
	printf("%s: kernel %zu records", label, a.n);
	if (side)
		printf(" (%zu checksums completed)", fixed);
	printf(", ours %zu, %zu differ", b.n, bad);
	if (xfile)
		printf(" (left out: %zu kernel and %zu of ours, flows in %s)", xa, xb, xfile);
	printf("\n");
	i = a.n != b.n || bad;
	kset_free(&a);
	kset_free(&b);
	return (int)i;
}
