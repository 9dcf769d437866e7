/* kslice — copy records [first, first+count) of a capture (and of its
 * sidecar, when both sidecar paths are given) to a new one; used to feed the
 * CLI one super-packet at a time (docs/kernel-oracle.md).
 *
 * usage: kslice in.pcap first count out.pcap [in.side out.side]
 */
#include <stdio.h>
#include <stdlib.h>
#include "kutil.h"

int
main(int argc, char **argv)
{
	struct kset in = { 0 }, out = { 0 };
	unsigned long first, count, i;

	if (argc != 5 && argc != 7) {
		fprintf(stderr, "usage: kslice in.pcap first count out.pcap [in.side out.side]\n");
		return 2;
	}
	first = strtoul(argv[2], NULL, 10);
	count = strtoul(argv[3], NULL, 10);
	kset_read(&in, argv[1], argc == 7 ? argv[5] : NULL);
	if (first > in.n || count > in.n - first)
		k_die("kslice: records %lu..+%lu beyond the %zu in %s", first, count, in.n, argv[1]);
	for (i = first; i < first + count; i++)
		kset_add(&out, in.r[i].data, in.r[i].len, &in.r[i].vh);
	kset_write(&out, argv[4], argc == 7 ? argv[6] : NULL);
	kset_free(&in);
	kset_free(&out);
	return 0;
}
