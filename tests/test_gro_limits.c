/* Description: GRO engine limits against hostile or extreme input: the
 * segment cap per output (2000 in-order 16-byte segments: no output of
 * more than max_segs segments or max_segs + 1 iovecs; a small cap for TCP
 * and UDP, fast paths on and off, reason "max-segs"). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "test_gro_util.h"
#include "gro_impl.h"

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
		why[i] = o[i].reason;
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
	assert_int_equal(sofl_gro_create(&cfg, &g), SOFL_EINVAL);
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_max_segs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
