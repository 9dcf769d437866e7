/* Seed corpora for the fuzz harnesses, built with the test packet builders.
 *   seeds HARNESS DIR   writes one file per seed into DIR (which must exist)
 * Each harness documents its input format; here each seed is made in it. */
#include <stdio.h>
#include <string.h>
#include "../tests/helpers.h"

#define MAXF 4096

static const char *dir;
static int nseed;

static void
put(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/seed-%03d", dir, nseed++);
	f = fopen(path, "wb");
	if (!f || fwrite(a, 1, alen, f) != alen || fwrite(b, 1, blen, f) != blen) {
		perror(path);
		if (f)
			fclose(f);
		return;
	}
	fclose(f);
}

/* The packet shapes every harness starts from. */
static size_t
shape(int i, uint8_t *buf, int *link)
{
	static const uint8_t syn[20] = {
		2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7 };
	static const uint8_t ra[4] = { 0x94, 4, 0, 0 };
	struct t_spec s;

	switch (i) {
	case 0: t_spec_init(&s, 4, 6); s.pay_len = 1400; s.tcp_opts = t_opt_ts; s.tcp_opts_len = 12; break;
	case 1: t_spec_init(&s, 6, 6); s.pay_len = 1400; s.csum = T_CSUM_PARTIAL; break;
	case 2: t_spec_init(&s, 4, 6); s.flags = SOFL_TCP_SYN; s.tcp_opts = syn; s.tcp_opts_len = 20; break;
	case 3: t_spec_init(&s, 4, 17); s.pay_len = 1200; break;
	case 4: t_spec_init(&s, 6, 17); s.pay_len = 1200; s.nvlan = 2; s.vlan_tpid[0] = 0x88A8; break;
	case 5: t_spec_init(&s, 4, 17); s.pay_len = 4; s.eth_pad = 14; s.udp_zero_csum = 1; break;
	case 6: t_spec_init(&s, 4, 6); s.ip_opts = ra; s.ip_opts_len = 4; s.pay_len = 100; break;
	case 7: t_spec_init(&s, 4, 17); s.df = 0; s.frag = 0x2000; s.pay_len = 64; break;
	case 8:
		t_spec_init(&s, 6, 6); s.pay_len = 300; s.n_ext = 3;
		s.ext[0].type = 0; s.ext[0].len = 8;
		s.ext[1].type = 43; s.ext[1].len = 24;
		s.ext[2].type = 60; s.ext[2].len = 16;
		break;
	case 9: t_spec_init(&s, 6, 17); s.n_ext = 1; s.ext[0].type = 44; s.ext[0].frag_mf = 1; s.pay_len = 100; break;
	case 10: t_spec_init(&s, 4, 6); s.link = SOFL_LINK_RAW; s.pay_len = 3000; break;
	case 11: t_spec_init(&s, 6, 17); s.link = SOFL_LINK_RAW; s.pay_len = 3000; break;
	case 12: t_spec_init(&s, 4, 1); s.pay_len = 56; break;
	case 13: t_spec_init(&s, 4, 6); *link = SOFL_LINK_ETH; return t_build_arp(buf, MAXF, &s);
	default: return 0;
	}
	*link = s.link;
	return t_build(buf, MAXF, &s);
}

int
main(int argc, char **argv)
{
	uint8_t f[MAXF];
	size_t len;
	int i, link;

	if (argc != 3) {
		fprintf(stderr, "usage: seeds HARNESS DIR\n");
		return 2;
	}
	dir = argv[2];
	for (i = 0; (len = shape(i, f, &link)) > 0; i++) {
		if (!strcmp(argv[1], "fuzz_pkt")) {
			uint8_t l = (uint8_t)link;
			put(&l, 1, f, len);
		} else {
			fprintf(stderr, "seeds: no seeds for %s\n", argv[1]);
			return 0;
		}
	}
	return 0;
}
