/* Description: GRO engine limits against hostile or extreme input: the
 * segment cap per output (2000 in-order 16-byte segments: no output of
 * more than max_segs segments or max_segs + 1 iovecs; a small cap for TCP
 * and UDP, fast paths on and off, reason "max-segs"); memory that follows
 * what is held, not the table's size (a 2^24-flow LRU engine holding 35
 * packets); flows crafted to collide keep every bucket chain at 8 or less
 * (a keyed hash; a bound for the caller's colliding rx hashes), counted,
 * not timed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "test_gro_util.h"
#include <unistd.h>
#include "gro/gro_engine.h"
#include "base/siphash.h"

/* @n in-order segments of one flow (@proto 6 or 17, @pay bytes each) in
 * @buf (256 bytes a frame), as inputs */
static void
train(struct sofl_gro_in *in, uint8_t *buf, int n, int proto, int pay)
{
	struct t_spec s;
	int i;

	for (i = 0; i < n; i++) {
		t_spec_init(&s, 4, proto);
		s.ip_id = (uint16_t)i;
		s.seq = 1 + (uint32_t)(i * pay);
		s.pay_off = (uint32_t)(i * pay);
		s.pay_len = (size_t)pay;
		in[i].data = buf + (size_t)i * 256;
		in[i].len = (uint32_t)t_build(buf + (size_t)i * 256, 256, &s);
		in[i].flags = SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK;
		in[i].hash = 0;
		in[i].cookie = (uint64_t)i;
	}
}

/* Feeds @n inputs in one poll; checks that the outputs carry every input
 * once, in order, within the cap; @return the outputs' count, their
 * segment counts in @segs, reasons in @why. */
static int
run_cap(const struct sofl_gro_config *cfg, int fast, const struct sofl_gro_in *in, int n,
	int *segs, int *why)
{
	struct sofl_gro *g;
	const struct sofl_gro_out *o;
	uint32_t cap = cfg->max_segs ? cfg->max_segs : SOFL_GRO_MAX_SEGS_DEFAULT, j;
	int k, i, next = 0;

	assert_int_equal(sofl_gro_create(cfg, &g), 0);
	sofl_gro_set_fast(g, fast);
	assert_int_equal(sofl_gro_receive(g, in, (size_t)n, 0), n);
	sofl_gro_poll_end(g, 0);
	k = sofl_gro_outputs(g, &o);
	for (i = 0; i < k; i++) {
		assert_true(o[i].segs <= cap);
		assert_true(o[i].iovcnt <= o[i].segs + 1 && o[i].iovcnt <= cap + 1);
		for (j = 0; j < o[i].segs; j++)
			assert_int_equal(o[i].cookies[j], next++);
		segs[i] = (int)o[i].segs;
		why[i] = o[i].bypass ? (int)o[i].bypass_reason : (int)o[i].flush_reason;
	}
	assert_int_equal(next, n);
	sofl_gro_release(g);
	sofl_gro_destroy(g);
	return k;
}

static void
test_max_segs(void **state)
{
	enum { N = 2000 };
	struct sofl_gro_in *in = calloc(N, sizeof(*in));
	uint8_t *buf = malloc((size_t)N * 256);
	struct sofl_gro_config cfg;
	struct sofl_gro *g;
	int segs[N], why[N], fast, k;
	(void)state;

	assert_non_null(in);
	assert_non_null(buf);
	sofl_gro_config_init(&cfg);
	assert_int_equal(cfg.max_segs, 0);
	cfg.max_segs = 65536;
	assert_int_equal(sofl_gro_create(&cfg, &g), SOFL_E_CFG_MAX_SEGS);
	cfg.max_segs = 65535;
	assert_int_equal(sofl_gro_create(&cfg, &g), 0);
	sofl_gro_destroy(g);
	assert_string_equal(sofl_gro_flush_name(SOFL_GRO_FLUSH_SEGS), "max-segs");

	for (fast = 0; fast <= 1; fast++) {
		/* the default: 1022 segments, 1023 iovecs, then the rest */
		train(in, buf, N, 6, 16);
		sofl_gro_config_init(&cfg);
		cfg.max_batch = N;
		k = run_cap(&cfg, fast, in, N, segs, why);
		assert_int_equal(k, 2);
		assert_int_equal(segs[0], SOFL_GRO_MAX_SEGS_DEFAULT);
		assert_int_equal(why[0], SOFL_GRO_FLUSH_SEGS);
		assert_int_equal(segs[1], N - SOFL_GRO_MAX_SEGS_DEFAULT);
		assert_int_equal(why[1], SOFL_GRO_FLUSH_POLL);

		/* a cap of 5: 12 TCP segments as 5 + 5 + 2 */
		cfg.max_segs = 5;
		k = run_cap(&cfg, fast, in, 12, segs, why);
		assert_int_equal(k, 3);
		assert_int_equal(segs[0], 5);
		assert_int_equal(segs[1], 5);
		assert_int_equal(segs[2], 2);
		assert_int_equal(why[0], SOFL_GRO_FLUSH_SEGS);
		assert_int_equal(why[1], SOFL_GRO_FLUSH_SEGS);

		/* a cap of 1: nothing merges */
		cfg.max_segs = 1;
		assert_int_equal(run_cap(&cfg, fast, in, 4, segs, why), 4);

		/* UDP: a cap of 3 under the 64 datagrams of UDP GRO */
		train(in, buf, 7, 17, 100);
		cfg.udp = 1;
		cfg.max_segs = 3;
		k = run_cap(&cfg, fast, in, 7, segs, why);
		assert_int_equal(k, 3);
		assert_int_equal(segs[0], 3);
		assert_int_equal(segs[1], 3);
		assert_int_equal(segs[2], 1);
		assert_int_equal(why[0], SOFL_GRO_FLUSH_SEGS);
	}
	free(in);
	free(buf);
}

/* SipHash-2-4 reference vectors (key 00..0f, message 00..len-1): the code
 * sofl_siphash13() shares, with the reference's rounds; the batch hash
 * (eight lanes with AVX-512, four with AVX2, and scalar; those the CPU
 * has) equals sofl_siphash13() lane by lane, for the engine's two message
 * sizes and any count */
static void
test_siphash(void **state)
{
	const uint64_t key[2] = { 0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull };
	const uint64_t m[2] = { 0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull };
	uint64_t w[5][37], last[37], r = 42, msg[5], h;
	const uint64_t *wp[5] = { w[0], w[1], w[2], w[3], w[4] };
	uint32_t out[3][37];
	unsigned nw, n, i, j, v;
	(void)state;

	assert_true(sofl_siphash24(key, m, 0, sofl_sip_last(0, 0)) == 0x726fdb47dd0e0e31ull);
	assert_true(sofl_siphash24(key, m, 1, sofl_sip_last(0, 8)) == 0x93f5f5799a932462ull);
	assert_true(sofl_siphash24(key, m, 1, sofl_sip_last(0x000e0d0c0b0a0908ull, 15)) ==
		    0xa129ca6149be45e5ull);
	assert_true(sofl_siphash24(key, m, 2, sofl_sip_last(0, 16)) == 0x3f2acc7f57c29bdbull);
	for (i = 0; i < 37; i++) {
		for (j = 0; j < 5; j++)
			w[j][i] = t_rand(&r);
		last[i] = t_rand(&r);
	}
	for (nw = 1; nw <= 5; nw += 4)
		for (n = 0; n <= 37; n += 1 + n / 3)
			for (v = 0; v <= (__builtin_cpu_supports("avx512f") ? 2u :
					  __builtin_cpu_supports("avx2") ? 1u : 0u); v++) {
				memset(out[v], 0, sizeof(out[v]));
				sofl_siphash13_x(key, wp, nw, last, out[v], n, v);
				for (i = 0; i < n; i++) {
					for (j = 0; j < nw; j++)
						msg[j] = w[j][i];
					h = sofl_siphash13(key, msg, nw, last[i]);
					assert_int_equal(out[v][i], (uint32_t)(h ^ h >> 32));
				}
				for (; i < 37; i++)
					assert_int_equal(out[v][i], 0);	/* nothing past n */
			}
}

/* IPv6 TCP flow @i of a set crafted against an unkeyed XOR-combining hash:
 * the source's first 8 bytes equal the destination's last 8, so any hash
 * that XORs those words before mixing gives all of them one value
 * (2001:2:0:i::1 -> 2001:2::2001:2:0:i, i < 65536) */
static size_t
collider(uint8_t *buf, size_t cap, uint32_t i)
{
	struct t_spec s;

	t_spec_init(&s, 6, 6);
	s.src[6] = (uint8_t)(i >> 8);
	s.src[7] = (uint8_t)i;
	memcpy(s.dst + 8, s.src, 8);
	s.pay_len = 16;
	return t_build(buf, cap, &s);
}

/* 30000 flows crafted to collide (once 8.5 s where random flows took 0.06:
 * every new flow walked one chain of all the others): held at once in a
 * 65536-flow LRU table, no bucket chain is longer than 8, with the random
 * key no flow is evicted for it; with one rx hash for all (SOFL_GRO_F_HASH:
 * the caller's collisions) chains stay at 8, the oldest of a full one
 * completed; every input delivered once.  A caller's key gives the same
 * placement twice.  (Counted, not timed.) */
static void
test_collisions(void **state)
{
	enum { N = 30000, SLOT = 128 };
	struct sofl_gro_in *in = calloc(N, sizeof(*in));
	uint8_t *buf = malloc((size_t)N * SLOT);
	struct sofl_gro_config cfg;
	struct sofl_gro_stats st;
	struct sofl_gro *g;
	const struct sofl_gro_out *o;
	uint32_t i, chain[2];
	int k, j, mode, segs;
	(void)state;

	assert_non_null(in);
	assert_non_null(buf);
	for (i = 0; i < N; i++) {
		in[i].data = buf + (size_t)i * SLOT;
		in[i].len = (uint32_t)collider(buf + (size_t)i * SLOT, SLOT, i);
		in[i].cookie = i;
	}
	for (mode = 0; mode < 4; mode++) {	/* random key x2, rx hash, given key */
		sofl_gro_config_init(&cfg);
		cfg.table = SOFL_GRO_TABLE_LRU;
		cfg.max_flows = 65536;
		cfg.max_batch = N;
		if (mode == 3)
			memcpy(cfg.hash_key, "0123456789abcdef", 16);
		for (i = 0; i < N; i++) {
			in[i].flags = mode == 2 ? SOFL_GRO_F_HASH : 0;
			in[i].hash = 0x5eed;
		}
		for (j = 0; j < (mode == 3 ? 2 : 1); j++) {
			assert_int_equal(sofl_gro_create(&cfg, &g), 0);
			sofl_gro_set_fast(g, mode & 1);
			assert_int_equal(sofl_gro_receive(g, in, N, 0), N);
			chain[j] = sofl_gro_chain_max(g);
			assert_true(chain[j] >= 1 && chain[j] <= 8);
			sofl_gro_get_stats(g, &st, sizeof(st));
			if (mode == 2)
				assert_int_equal(st.flush[SOFL_GRO_FLUSH_EVICT], N - 8);
			else
				assert_int_equal(st.flush[SOFL_GRO_FLUSH_EVICT], 0);
			sofl_gro_poll_end(g, 0);
			k = sofl_gro_outputs(g, &o);
			for (segs = 0, i = 0; i < (uint32_t)k; i++)
				segs += (int)o[i].segs;
			assert_int_equal(segs, N);
			sofl_gro_release(g);
			sofl_gro_destroy(g);
		}
		if (mode == 3)
			assert_int_equal(chain[0], chain[1]);
	}
	free(in);
	free(buf);
}

/* Resident bytes of this process (/proc/self/statm), or 0 */
static uint64_t
resident(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	unsigned long long size = 0, res = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%llu %llu", &size, &res) != 2)
		res = 0;
	fclose(f);
	return (uint64_t)res * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* A 2^24-flow LRU engine (3 GB of flow entries, 128 MB of buckets) holding
 * a few packets stays small: memory is backed as it is used (it was
 * written, and resident, whole at creation: 3.4 GB); so does a 2^22-flow
 * one with a flush timeout (16 M packets may be held). */
static void
test_memory(void **state)
{
	enum { N = 35 };
	struct sofl_gro_in in[N];
	static uint8_t buf[N * 256];
	struct sofl_gro_config cfg;
	struct sofl_gro *g;
	const struct sofl_gro_out *o;
	struct t_spec s;
	uint64_t before, after;
	int i, k, timeout, segs;
	(void)state;

	for (timeout = 0; timeout <= 1; timeout++) {
		for (i = 0; i < N; i++) {	/* 7 flows, 5 segments each */
			t_spec_init(&s, 4, 6);
			s.sport = (uint16_t)(1000 + i % 7);
			s.seq = 1 + (uint32_t)(i / 7 * 100);
			s.pay_len = 100;
			in[i].data = buf + i * 256;
			in[i].len = (uint32_t)t_build(buf + i * 256, 256, &s);
			in[i].flags = 0;
			in[i].hash = 0;
			in[i].cookie = (uint64_t)i;
		}
		sofl_gro_config_init(&cfg);
		cfg.table = SOFL_GRO_TABLE_LRU;
		/* with a timeout, max_held defaults to 4 x max_flows (2^24 here:
		 * GBs of segment and output arrays, never touched either) */
		cfg.max_flows = timeout ? 1u << 22 : 1u << 24;
		cfg.flush_timeout_us = timeout ? 1000 : 0;
		before = resident();
		assert_true(before > 0);
		assert_int_equal(sofl_gro_create(&cfg, &g), 0);
		assert_int_equal(sofl_gro_receive(g, in, N, 0), N);
		sofl_gro_flush(g);
		k = sofl_gro_outputs(g, &o);
		for (i = 0, segs = 0; i < k; i++)
			segs += (int)o[i].segs;
		assert_int_equal(segs, N);
		assert_int_equal(k, 7);
		after = resident();
		fprintf(stderr, "2^%d flows%s: %llu KB resident after create + %d packets\n",
			timeout ? 22 : 24, timeout ? ", timeout" : "",
			(unsigned long long)(after - before) / 1024, N);
		assert_true(after - before < (64u << 20));
		sofl_gro_release(g);
		sofl_gro_destroy(g);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_max_segs),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_siphash),
		cmocka_unit_test(test_collisions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
