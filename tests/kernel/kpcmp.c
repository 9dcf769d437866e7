/* kpcmp — are two captures identical, record for record, byte for byte?
 * Used to compare a `softoffload` CLI output with the kernel oracle's
 * (docs/kernel-oracle.md).  Timestamps are not compared.
 *
 * With -f kernel.vnet, the kernel's records whose virtio header says
 * NEEDS_CSUM first get their checksum completed at csum_start/csum_offset,
 * as the device or stack receiving them would (skb_checksum_help: a 0 result
 * is stored as 0xFFFF): that is what `softoffload gro --csum full` must equal.
 *
 * usage: kpcmp [-f kernel.vnet] kernel.pcap ours.pcap [label]
 * Exit: 0 identical, 1 different, 2 usage/I/O.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "softoffload/csum.h"
#include "kutil.h"

#define SHOW_MAX 10

int
main(int argc, char **argv)
{
	struct kset a = { 0 }, b = { 0 };
	const char *label, *side = NULL;
	size_t i, bad = 0, fixed = 0;
	int c;

	while ((c = getopt(argc, argv, "f:")) != -1) {
		if (c != 'f') {
			fprintf(stderr, "usage: kpcmp [-f kernel.vnet] kernel.pcap ours.pcap [label]\n");
			return 2;
		}
		side = optarg;
	}
	if (argc - optind < 2 || argc - optind > 3) {
		fprintf(stderr, "usage: kpcmp [-f kernel.vnet] kernel.pcap ours.pcap [label]\n");
		return 2;
	}
	label = argc - optind == 3 ? argv[optind + 2] : "kpcmp";
	kset_read(&a, argv[optind], side);
	kset_read(&b, argv[optind + 1], NULL);
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
	printf(", ours %zu, %zu differ\n", b.n, bad);
	i = a.n != b.n || bad;
	kset_free(&a);
	kset_free(&b);
	return (int)i;
}
