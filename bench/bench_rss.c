/* RSS Toeplitz hash: ns per hash on the workload of the DPDK 22.11 anchor run (40-byte
 * Microsoft key; 1024 random tuples, tuple i = the first 12 (IPv4) or 36
 * (IPv6) bytes of 5 consecutive splitmix64 outputs from seed 0x5EED,
 * little-endian; independent hashes, results XOR-ed).
 *
 * Rows, all measured in this process with interleaved repetitions:
 *   softrss_style   a set-bit loop over host-order 32-bit words, the method
 *                   of DPDK's rte_softrss (our own code): the in-run baseline
 *   bitserial       sofl_rss_toeplitz(), one step per input bit
 *   table / gfni    sofl_rss_hash_bytes() per tuple, each implementation
 *   *_bulk32        sofl_rss_hash_bytes_batch() in bursts of 32 tuples
 *   pkt_burst32     sofl_rss_pkt_batch() on parsed TCP packets in bursts of 32
 *                   (tuple extraction + hash + queue lookup), with the
 *                   implementation sofl_rss_create() chose
 *   tuple           sofl_rss_hash_tuple() per flow key (the parsed packets'
 *                   keys; hash + queue lookup), implementation as created;
 *                   _sym with SOFL_RSS_F_SYMMETRIC (the sort included)
 *   tuple_bulk32    sofl_rss_hash_tuple_batch() in bursts of 32 flow keys
 *   queue_call      sofl_rss_queue() per hash: the cost of the library call
 *                   that replaced the inline table read
 * The DPDK 22.11 anchor figures (other process, other day) are
 * printed next to ours as a ratio; absolute numbers on this shared machine
 * move by +-25 %, the in-run ratio to softrss_style moves much less. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "softoffload/rss.h"
#include "softoffload/pkt.h"
#include "util.h"

#define NT    1024
#define BURST 32

static uint8_t tup4[NT][12], tup6[NT][36];
static const void *ptr4[NT], *ptr6[NT];
static uint8_t frame4[NT][40], frame6[NT][60];
static struct sofl_pkt pkt4[NT], pkt6[NT];
static struct sofl_flow_key key4[NT], key6[NT];	/* the packets' flow keys */
static struct sofl_rss *rss, *rss_def, *rss_sym;	/* rss: forced impl per row; others as created */
static uint32_t key_be_words[11];	/* softrss_style: key as host-order words */

static void
make_tuples(void)
{
	uint64_t s = 0x5EED;
	uint8_t b[40];
	int i, j, k;

	for (i = 0; i < NT; i++) {
		for (j = 0; j < 5; j++) {
			uint64_t v = bench_splitmix64(&s);
			for (k = 0; k < 8; k++)
				b[8 * j + k] = (uint8_t)(v >> (8 * k));
		}
		memcpy(tup4[i], b, 12);
		memcpy(tup6[i], b, 36);
		ptr4[i] = tup4[i];
		ptr6[i] = tup6[i];
	}
}

static void
put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Raw-IP TCP packets (no payload) carrying the tuples. */
static void
make_packets(void)
{
	int i;

	for (i = 0; i < NT; i++) {
		uint8_t *f = frame4[i];

		memset(f, 0, 40);
		f[0] = 0x45;
		put16(f + 2, 40);
		f[8] = 64;
		f[9] = 6;
		memcpy(f + 12, tup4[i], 12);	/* src dst sport dport */
		f[32] = 5 << 4;
		if (sofl_pkt_parse(&pkt4[i], f, 40, SOFL_LINK_RAW) != 0)
			abort();
		f = frame6[i];
		memset(f, 0, 60);
		f[0] = 0x60;
		put16(f + 4, 20);
		f[6] = 6;
		f[7] = 64;
		memcpy(f + 8, tup6[i], 36);
		f[52] = 5 << 4;
		if (sofl_pkt_parse(&pkt6[i], f, 60, SOFL_LINK_RAW) != 0)
			abort();
		key4[i] = pkt4[i].key;
		key6[i] = pkt6[i].key;
	}
}

/* The rte_softrss method: for each set bit of each host-order word, XOR the
 * 32-bit key window at that bit. Cost grows with the number of set bits. */
static uint32_t
softrss_style(const uint8_t *t, int len)
{
	uint32_t h = 0;
	int w, b;

	for (w = 0; w < len / 4; w++) {
		uint32_t word = (uint32_t)t[4 * w] << 24 | (uint32_t)t[4 * w + 1] << 16 |
				(uint32_t)t[4 * w + 2] << 8 | t[4 * w + 3];
		while (word) {
			b = 31 - __builtin_ctz(word);	/* bit index from the MSB */
			word &= word - 1;
			h ^= (uint32_t)(((uint64_t)key_be_words[w] << 32 |
					key_be_words[w + 1]) >> (32 - b));
		}
	}
	return h;
}

enum row {
	R_SOFT4, R_SOFT6, R_BIT4, R_TAB4, R_TAB6, R_GF4, R_GF6, R_TABB4, R_TABB6,
	R_GFB4, R_GFB6, R_PKT4, R_PKT6, R_TUP4, R_TUP6, R_TUPS4, R_TUPS6, R_TUPB4, R_TUPB6, R_QUEUE, NROW
};

static const char *const row_name[NROW] = {
	"softrss_style_ipv4_12B", "softrss_style_ipv6_36B", "bitserial_ipv4_12B",
	"table_ipv4_12B", "table_ipv6_36B", "gfni_ipv4_12B", "gfni_ipv6_36B",
	"table_bulk32_ipv4_12B", "table_bulk32_ipv6_36B", "gfni_bulk32_ipv4_12B",
	"gfni_bulk32_ipv6_36B", "pkt_burst32_ipv4_tcp", "pkt_burst32_ipv6_tcp",
	"tuple_ipv4_tcp", "tuple_ipv6_tcp", "tuple_sym_ipv4_tcp", "tuple_sym_ipv6_tcp",
	"tuple_bulk32_ipv4_tcp", "tuple_bulk32_ipv6_tcp", "queue_call",
};

/* DPDK 22.11 anchor medians (ns per hash) for the matching rows; 0 = none */
static const double dpdk_ns[NROW] = {
	[R_SOFT4] = 102, [R_SOFT6] = 335, [R_TAB4] = 102, [R_TAB6] = 335,
	[R_GF4] = 5.35, [R_GF6] = 7.93, [R_GFB4] = 3.62, [R_GFB6] = 5.25,
};
static const char *const dpdk_row[NROW] = {
	[R_SOFT4] = "rte_softrss generic", [R_SOFT6] = "rte_softrss generic",
	[R_TAB4] = "rte_softrss generic", [R_TAB6] = "rte_softrss generic",
	[R_GF4] = "rte_thash_gfni", [R_GF6] = "rte_thash_gfni",
	[R_GFB4] = "rte_thash_gfni_bulk 32", [R_GFB6] = "rte_thash_gfni_bulk 32",
};

static int
row_impl(enum row r)
{
	switch (r) {
	case R_GF4: case R_GF6: case R_GFB4: case R_GFB6:
		return SOFL_RSS_IMPL_GFNI;
	case R_PKT4: case R_PKT6: case R_TUP4: case R_TUP6: case R_TUPS4: case R_TUPS6:
	case R_TUPB4: case R_TUPB6: case R_QUEUE:
		return -1;
	default:
		return SOFL_RSS_IMPL_TABLE;
	}
}

/* One timed pass: @loops times over the 1024 tuples; @return ns per hash. */
static double
run(enum row r, int loops)
{
	static struct sofl_rss_out out[BURST];
	struct sofl_rss_out o;
	uint32_t hb[BURST], h, acc = 0;
	uint64_t t0, t1;
	int l, i, j;

	t0 = bench_ns();
	for (l = 0; l < loops; l++) {
		switch (r) {
		case R_SOFT4: case R_SOFT6:
			for (i = 0; i < NT; i++)
				acc ^= softrss_style(r == R_SOFT4 ? tup4[i] : tup6[i],
						     r == R_SOFT4 ? 12 : 36);
			break;
		case R_BIT4:
			for (i = 0; i < NT; i++)
				acc ^= sofl_rss_toeplitz(sofl_rss_default_key, 40, tup4[i], 12);
			break;
		case R_TAB4: case R_GF4:
			for (i = 0; i < NT; i++) {
				sofl_rss_hash_bytes(rss, tup4[i], 12, &h);
				acc ^= h;
			}
			break;
		case R_TAB6: case R_GF6:
			for (i = 0; i < NT; i++) {
				sofl_rss_hash_bytes(rss, tup6[i], 36, &h);
				acc ^= h;
			}
			break;
		case R_TABB4: case R_GFB4: case R_TABB6: case R_GFB6: {
			int v4 = r == R_TABB4 || r == R_GFB4;
			for (i = 0; i < NT; i += BURST) {
				sofl_rss_hash_bytes_batch(rss, (v4 ? ptr4 : ptr6) + i, v4 ? 12 : 36,
						   BURST, hb);
				for (j = 0; j < BURST; j++)
					acc ^= hb[j];
			}
			break;
		}
		case R_PKT4: case R_PKT6:
			for (i = 0; i < NT; i += BURST) {
				sofl_rss_pkt_batch(rss_def, (r == R_PKT4 ? pkt4 : pkt6) + i, BURST, out);
				for (j = 0; j < BURST; j++)
					acc ^= out[j].hash ^ out[j].queue;
			}
			break;
		case R_TUP4: case R_TUP6: case R_TUPS4: case R_TUPS6: {
			const struct sofl_pkt *pk = r == R_TUP4 || r == R_TUPS4 ? pkt4 : pkt6;
			const struct sofl_rss *e = r == R_TUPS4 || r == R_TUPS6 ? rss_sym : rss_def;

			for (i = 0; i < NT; i++) {
				sofl_rss_hash_tuple(e, &pk[i].key, 1, &o);
				acc ^= o.hash ^ o.queue;
			}
			break;
		}
		case R_TUPB4: case R_TUPB6:
			for (i = 0; i < NT; i += BURST) {
				sofl_rss_hash_tuple_batch(rss_def, (r == R_TUPB4 ? key4 : key6) + i, BURST, 1,
						     out);
				for (j = 0; j < BURST; j++)
					acc ^= out[j].hash ^ out[j].queue;
			}
			break;
		case R_QUEUE:
			for (i = 0; i < NT; i++)
				acc += sofl_rss_queue(rss_def, (uint32_t)i * 0x9e3779b1u ^ acc);
			break;
		default:
			break;
		}
	}
	t1 = bench_ns();
	bench_sink(acc);
	return (double)(t1 - t0) / ((double)loops * NT);
}

static int
check(void)
{
	uint32_t h, hb[NT];
	int i, impl, bad = 0;

	for (impl = SOFL_RSS_IMPL_TABLE; impl <= SOFL_RSS_IMPL_MIXED; impl++) {
		if (sofl_rss_set_impl(rss, (enum sofl_rss_impl)impl))
			continue;
		for (i = 0; i < NT; i++) {
			uint32_t want4 = sofl_rss_toeplitz(sofl_rss_default_key, 40, tup4[i], 12);
			uint32_t want6 = sofl_rss_toeplitz(sofl_rss_default_key, 40, tup6[i], 36);
			struct sofl_rss_out o;

			sofl_rss_hash_bytes(rss, tup4[i], 12, &h);
			bad += h != want4 || softrss_style(tup4[i], 12) != want4;
			sofl_rss_hash_bytes(rss, tup6[i], 36, &h);
			bad += h != want6 || softrss_style(tup6[i], 36) != want6;
			bad += sofl_rss_pkt(rss, &pkt4[i], &o) != SOFL_RSS_IPV4_TCP || o.hash != want4;
			bad += sofl_rss_pkt(rss, &pkt6[i], &o) != SOFL_RSS_IPV6_TCP || o.hash != want6;
			bad += sofl_rss_hash_tuple(rss, &pkt4[i].key, 1, &o) != SOFL_RSS_IPV4_TCP ||
			       o.hash != want4;
			bad += sofl_rss_hash_tuple(rss, &pkt6[i].key, 1, &o) != SOFL_RSS_IPV6_TCP ||
			       o.hash != want6;
			if (impl == SOFL_RSS_IMPL_TABLE) {	/* symmetric: tuple == packet */
				struct sofl_rss_out q;

				sofl_rss_pkt(rss_sym, &pkt6[i], &q);
				bad += sofl_rss_hash_tuple(rss_sym, &pkt6[i].key, 1, &o) < 0 ||
				       o.hash != q.hash || o.queue != q.queue;
			}
		}
		{
			static struct sofl_rss_out ob[NT];

			bad += sofl_rss_hash_tuple_batch(rss, key4, NT, 1, ob) != NT;
			for (i = 0; i < NT; i++)
				bad += ob[i].hash != sofl_rss_toeplitz(sofl_rss_default_key, 40,
								       tup4[i], 12);
		}
		sofl_rss_hash_bytes_batch(rss, ptr6, 36, NT, hb);
		for (i = 0; i < NT; i++)
			bad += hb[i] != sofl_rss_toeplitz(sofl_rss_default_key, 40, tup6[i], 36);
	}
	return bad;
}

int
main(void)
{
	int reps = bench_reps(15), rep, r;
	double *s[NROW];
	int loops[NROW], have[NROW];
	struct sofl_rss_config cfg;

	make_tuples();
	sofl_rss_config_init(&cfg);
	cfg.nqueues = 16;
	if (sofl_rss_create(&cfg, &rss) || sofl_rss_create(&cfg, &rss_def))
		return 1;
	cfg.flags = SOFL_RSS_F_SYMMETRIC;
	if (sofl_rss_create(&cfg, &rss_sym))
		return 1;
	for (r = 0; r < 10; r++) {
		const uint8_t *k = sofl_rss_default_key + 4 * r;
		key_be_words[r] = (uint32_t)k[0] << 24 | (uint32_t)k[1] << 16 |
				  (uint32_t)k[2] << 8 | k[3];
	}
	key_be_words[10] = 0;	/* past the 40-byte key */
	make_packets();
	if (check()) {
		fprintf(stderr, "bench_rss: results differ from the bit-serial reference\n");
		return 1;
	}
	printf("RSS Toeplitz, 40-byte Microsoft key, %d random tuples (splitmix64 0x5EED); "
	       "GFNI %s; default impl %s\n", NT,
	       sofl_rss_impl_available(SOFL_RSS_IMPL_GFNI) ? "available" : "NOT available",
	       sofl_rss_impl_name(rss_def));
	for (r = 0; r < NROW; r++) {
		int impl = row_impl((enum row)r);

		s[r] = calloc((size_t)reps, sizeof(double));
		have[r] = impl < 0 || sofl_rss_impl_available((enum sofl_rss_impl)impl);
		/* ~2-5 ms per pass whatever the row's speed */
		loops[r] = r == R_BIT4 ? 2 : (r == R_SOFT4 || r == R_SOFT6) ? 20 : 500;
	}
	for (rep = 0; rep < reps; rep++) {
		for (r = 0; r < NROW; r++) {
			int impl = row_impl((enum row)r);

			if (!have[r])
				continue;
			if (impl >= 0)
				sofl_rss_set_impl(rss, (enum sofl_rss_impl)impl);
			s[r][rep] = run((enum row)r, loops[r]);
		}
	}
	for (r = 0; r < NROW; r++) {
		if (!have[r]) {
			printf("rss      %-40s skipped: GFNI + AVX-512 VBMI not available\n",
			       row_name[r]);
			continue;
		}
		bench_report("rss", row_name[r], "ns_per_hash", "ns", s[r], reps);
	}
	/* bench_report sorted the samples; medians for the ratios */
	printf("\nratios (median ns per hash):\n");
	for (r = 0; r < NROW; r++) {
		double m, soft;

		if (!have[r])
			continue;
		m = bench_median(s[r], reps);
		if (r == R_QUEUE) {	/* no hash: no ratio to a hash */
			printf("  %-26s %7.2f ns\n", row_name[r], m);
			continue;
		}
		soft = bench_median(s[r == R_SOFT6 || r == R_TAB6 || r == R_GF6 || r == R_TABB6 ||
				      r == R_GFB6 || r == R_PKT6 || r == R_TUP6 || r == R_TUPS6 ||
				      r == R_TUPB6 ?
				      R_SOFT6 : R_SOFT4], reps);
		printf("  %-26s %7.2f ns  %6.1fx faster than softrss_style (same run)", row_name[r],
		       m, soft / m);
		if (dpdk_ns[r] > 0)
			printf(";  %s %.3g ns in the DPDK 22.11 anchor run: %.2fx", dpdk_row[r], dpdk_ns[r],
			       dpdk_ns[r] / m);
		printf("\n");
	}
	for (r = 0; r < NROW; r++)
		free(s[r]);
	sofl_rss_destroy(rss);
	sofl_rss_destroy(rss_def);
	sofl_rss_destroy(rss_sym);
	return 0;
}
