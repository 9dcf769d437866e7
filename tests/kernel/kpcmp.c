/* kpcmp — are two captures identical, record for record, byte for byte?
 * Used to compare a `softoffload` CLI output with the kernel oracle's
 * (docs/kernel-oracle.md).  Timestamps are not compared.
 *
 * usage: kpcmp kernel.pcap ours.pcap [label]
 * Exit: 0 identical, 1 different, 2 usage/I/O.
 */
#include <stdio.h>
#include <string.h>
#include "kutil.h"

#define SHOW_MAX 10

int
main(int argc, char **argv)
{
	struct kset a = { 0 }, b = { 0 };
	size_t i, bad = 0;
	const char *label;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: kpcmp kernel.pcap ours.pcap [label]\n");
		return 2;
	}
	label = argc == 4 ? argv[3] : "kpcmp";
	kset_read(&a, argv[1], NULL);
	kset_read(&b, argv[2], NULL);
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
	printf("%s: kernel %zu records, ours %zu, %zu differ\n", label, a.n, b.n, bad);
	i = a.n != b.n || bad;
	kset_free(&a);
	kset_free(&b);
	return (int)i;
}
