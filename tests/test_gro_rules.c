/* Each merge rule is written once (the byte rules gro_ip4_rule,
 * gro_ip6_rule, gro_tcp_rule in src/gro/gro_engine.h; the per-segment rules
 * rule_seq_ok, rule_id_ok, rule_size_ok, rule_segs_ok, rule_run_limit in
 * src/gro/gro_rules.h): changing one ("TTL may differ", "hop limit may differ",
 * "the window may differ", "the IPv4 ID may differ", "the TCP timestamp
 * value may differ", a lower segment cap or size limit) must change the
 * decision of the general path (network_flush, tcp_flush, options_differ)
 * and of the fast paths (their compare mask, mask_for; fast_same, fast_one,
 * the trains' and weaves' loops) alike.
 * Full-size segments of one flow (or two flows in turn) whose field
 * differs: with the rule they are flushed one by one (#13, #14, #15, #17,
 * #19), without it merged, with the fast paths on (every merge by a fast
 * path, counted in fast_segs, and each flow's in one train or weave,
 * counted in fast_runs: a fast path's own copy of a rule would leave the
 * merge to the general path, or cut the run short) and off.  Uses the engine's internals
 * (gro_engine.h): static library only. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "helpers.h"
#include "gro/gro_engine.h"

#define FRAME 2048
#define PAY   1448

struct run {
	int nout, segs0, fast_merged;
	uint8_t mask_byte;	/* the fast path's mask over the rule's byte, 0 if none */
};

/* Feeds the two segments, differing in header @hdr's (4, 6: IP, 0: TCP)
 * byte @byte (TTL, hop limit or window), to a new engine; @relax: that
 * rule changed to "may differ" (mask 0). */
static struct run
feed(int ipv, int fast, unsigned hdr, unsigned byte, int relax)
{
	const unsigned l4 = 14 + (ipv == 4 ? 20 : 40);
	static uint8_t buf[2][FRAME];
	struct sofl_gro_in in[2];
	struct sofl_gro_config cfg;
	const struct sofl_gro_out *o;
	struct sofl_gro *g;
	struct t_spec s;
	struct run r;
	int k, n;

	memset(&r, 0, sizeof(r));
	sofl_gro_config_init(&cfg);
	assert_int_equal(sofl_gro_create(&cfg, &g), 0);
	sofl_gro_set_fast(g, fast);
	if (relax) {
		assert_int_equal(sofl_gro_set_rule(g, hdr, byte, 0), 0);
		if (hdr == 0)	/* the window: both bytes */
			assert_int_equal(sofl_gro_set_rule(g, hdr, byte ^ 1, 0), 0);
	}
	for (k = 0; k < 2; k++) {
		t_spec_init(&s, ipv, 6);
		if (hdr)
			s.ttl = (uint8_t)(k ? 63 : 64);		/* IPv6: hop limit */
		else
			s.win = (uint16_t)(k ? 30000 : 29000);
		s.ip_id = (uint16_t)(100 + k);
		s.seq = 1000 + (uint32_t)k * PAY;
		s.pay_len = PAY;
		s.pay_off = (uint32_t)k * PAY;
		in[k].data = buf[k];
		in[k].len = (uint32_t)t_build(buf[k], FRAME, &s);
		in[k].cookie = (uint64_t)k;
		in[k].flags = SOFL_GRO_F_HASH | SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK;
		in[k].hash = 7;
	}
	assert_int_equal(sofl_gro_receive(g, in, 2, 0), 2);
	r.fast_merged = g->last_fi != UINT32_MAX;
	if (g->nmask)
		r.mask_byte = g->mask_b[0][hdr ? 14 + byte : l4 + byte];
	assert_true(sofl_gro_poll_end(g, 0) >= 0);
	n = (int)sofl_gro_outputs(g, &o);
	r.nout = n;
	r.segs0 = n ? (int)o[0].segs : 0;
	sofl_gro_release(g);
	sofl_gro_destroy(g);
	return r;
}

static void
check(int ipv, unsigned hdr, unsigned byte)
{
	struct run a, b;
	int fast;

	for (fast = 0; fast <= 1; fast++) {
		a = feed(ipv, fast, hdr, byte, 0);	/* the rule as in Linux: flushed */
		assert_int_equal(a.nout, 2);
		assert_int_equal(a.segs0, 1);
		assert_int_equal(a.fast_merged, 0);
		b = feed(ipv, fast, hdr, byte, 1);	/* the rule changed: merged */
		assert_int_equal(b.nout, 1);
		assert_int_equal(b.segs0, 2);
		assert_int_equal(b.fast_merged, fast);	/* by the fast path when on */
		if (fast) {
			assert_int_equal(a.mask_byte, 0xff);
			assert_int_equal(b.mask_byte, 0);
		}
	}
}

static void
test_ttl_may_differ(void **state)
{
	(void)state;
	check(4, 4, 8);
}

static void
test_hop_limit_may_differ(void **state)
{
	(void)state;
	check(6, 6, 7);
}

static void
test_window_may_differ(void **state)
{
	(void)state;
	check(4, 0, 14);
	check(6, 0, 15);
}

/* ---- runs of segments: the trains' and weaves' loops ---- */

enum vary { V_TTL, V_WIN, V_ID, V_TSVAL, V_NONE };

struct runs {
	int nout, segs_max;
	uint64_t fast_segs, fast_runs;
};

/* @nflows (1, or 2 in turn) flows of @nseg full-size segments each, every
 * segment's @v field unlike the one before; @relax: that rule changed to
 * "may differ".  @cap: max_segs, or with @size_cap max_size for @cap
 * segments (0: defaults). */
static struct runs
feed_runs(int ipv, int fast, enum vary v, int relax, int nflows, int nseg, int cap, int size_cap)
{
	static uint8_t buf[16][FRAME];
	uint8_t opt[12];
	struct sofl_gro_in in[16];
	struct sofl_gro_config cfg;
	const struct sofl_gro_out *o;
	struct sofl_gro *g;
	struct t_spec s;
	struct runs r;
	int k, n, x;

	assert_true(nflows * nseg <= 16);
	memset(&r, 0, sizeof(r));
	sofl_gro_config_init(&cfg);
	if (cap && size_cap)	/* IP header .. payload of @cap segments (TCP with TS) */
		cfg.max_size = (uint32_t)((ipv == 4 ? 20 : 40) + 32 + cap * PAY);
	else if (cap)
		cfg.max_segs = (uint32_t)cap;
	assert_int_equal(sofl_gro_create(&cfg, &g), 0);
	sofl_gro_set_fast(g, fast);
	if (relax && v == V_TTL)
		assert_int_equal(sofl_gro_set_rule(g, (unsigned)ipv, ipv == 4 ? 8 : 7, 0), 0);
	if (relax && v == V_WIN) {
		assert_int_equal(sofl_gro_set_rule(g, 0, 14, 0), 0);
		assert_int_equal(sofl_gro_set_rule(g, 0, 15, 0), 0);
	}
	if (relax && v == V_ID)
		g->id_free = 0xffff;		/* rule_id_ok: no bit checked */
	if (relax && v == V_TSVAL)
		memset(g->tcp_same + 24, 0, 4);	/* NOP NOP TS: the value's bytes */
	for (k = 0; k < nflows * nseg; k++) {
		const int f = k % nflows, j = k / nflows;	/* flow, its segment */

		t_spec_init(&s, ipv, 6);
		s.sport = (uint16_t)(1000 + f);
		s.ip_id = (uint16_t)(100 + j + (v == V_ID ? 37 * j : 0));
		if (v == V_TTL)
			s.ttl = (uint8_t)(64 - j);		/* IPv6: hop limit */
		if (v == V_WIN)
			s.win = (uint16_t)(29000 + 100 * j);
		t_opt_ts_set(opt, (uint32_t)(v == V_TSVAL ? 5000 + j : 5000), 7);
		s.tcp_opts = opt;
		s.tcp_opts_len = sizeof(opt);
		s.seq = 1000 + (uint32_t)j * PAY;
		s.pay_len = PAY;
		s.pay_off = (uint32_t)j * PAY;
		in[k].data = buf[k];
		in[k].len = (uint32_t)t_build(buf[k], FRAME, &s);
		in[k].cookie = (uint64_t)k;
		in[k].flags = SOFL_GRO_F_HASH | SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK;
		in[k].hash = 7 + 2 * (uint32_t)f;
	}
	n = nflows * nseg;
	assert_int_equal(sofl_gro_receive(g, in, (size_t)n, 0), n);
	r.fast_segs = g->fast_segs;
	r.fast_runs = g->fast_runs;
	assert_true(sofl_gro_poll_end(g, 0) >= 0);
	r.nout = (int)sofl_gro_outputs(g, &o);
	for (x = 0; x < r.nout; x++)
		if ((int)o[x].segs > r.segs_max)
			r.segs_max = (int)o[x].segs;
	sofl_gro_release(g);
	sofl_gro_destroy(g);
	return r;
}

/* Rule @v as in Linux: every segment flushed; changed: one output per flow,
 * every merge by the fast paths when they are on */
static void
check_runs(int ipv, enum vary v)
{
	static const int shape[][2] = { { 1, 2 }, { 1, 6 }, { 2, 5 } };	/* one, train, weave */
	struct runs a, b;
	unsigned c;
	int fast;

	for (c = 0; c < sizeof(shape) / sizeof(shape[0]); c++) {
		const int nf = shape[c][0], ns = shape[c][1];

		for (fast = 0; fast <= 1; fast++) {
			a = feed_runs(ipv, fast, v, 0, nf, ns, 0, 0);
			assert_int_equal(a.nout, nf * ns);
			assert_int_equal(a.segs_max, 1);
			assert_int_equal(a.fast_segs, 0);
			b = feed_runs(ipv, fast, v, 1, nf, ns, 0, 0);
			assert_int_equal(b.nout, nf);
			assert_int_equal(b.segs_max, ns);
			assert_int_equal(b.fast_segs, fast ? (uint64_t)(nf * (ns - 1)) : 0);
			/* and in one run per flow: a train (one flow) or a weave
			 * (flows in turn), not a run cut short by a loop that
			 * decides by a copy of the rule, then resumed */
			assert_int_equal(b.fast_runs, fast && ns > 2 ? (uint64_t)nf : 0);
		}
	}
}

static void
test_runs_ttl_hop_window(void **state)
{
	(void)state;
	check_runs(4, V_TTL);
	check_runs(6, V_TTL);
	check_runs(4, V_WIN);
	check_runs(6, V_WIN);
}

static void
test_ip_id_may_differ(void **state)
{
	(void)state;
	check_runs(4, V_ID);
}

static void
test_ts_value_may_differ(void **state)
{
	(void)state;
	check_runs(4, V_TSVAL);
	check_runs(6, V_TSVAL);
}

/* The segment cap and the size limit (rule_segs_ok, rule_size_ok; the
 * trains' rule_run_limit): with a cap of @cap segments, ceil(nseg / cap)
 * outputs per flow, the same with the fast paths on (which then make every
 * merge) and off; a cap of one more or one less changes both alike. */
static void
test_segs_and_size_caps(void **state)
{
	static const int shape[][2] = { { 1, 7 }, { 2, 7 } };
	unsigned c;
	int cap, fast, size_cap, ipv;

	(void)state;
	for (ipv = 4; ipv <= 6; ipv += 2)
		for (c = 0; c < 2; c++)
			for (cap = 2; cap <= 4; cap++)
				for (size_cap = 0; size_cap <= 1; size_cap++)
					for (fast = 0; fast <= 1; fast++) {
						const int nf = shape[c][0], ns = shape[c][1];
						const int per = (ns + cap - 1) / cap;
						struct runs r = feed_runs(ipv, fast, V_NONE, 0, nf, ns,
									  cap, size_cap);

						assert_int_equal(r.nout, nf * per);
						assert_int_equal(r.segs_max, cap);
						assert_int_equal(r.fast_segs,
								 fast ? (uint64_t)(nf * (ns - per)) : 0);
					}
}

static void
test_rule_hook_limits(void **state)
{
	struct sofl_gro_config cfg;
	struct sofl_gro *g;

	(void)state;
	sofl_gro_config_init(&cfg);
	assert_int_equal(sofl_gro_create(&cfg, &g), 0);
	assert_int_equal(sofl_gro_set_rule(g, 4, 20, 0), SOFL_E_INVAL);
	assert_int_equal(sofl_gro_set_rule(g, 6, 8, 0), SOFL_E_INVAL);
	assert_int_equal(sofl_gro_set_rule(g, 5, 0, 0), SOFL_E_INVAL);
	assert_int_equal(sofl_gro_set_rule(g, 0, 20, 0), SOFL_E_INVAL);
	assert_int_equal(sofl_gro_set_rule(NULL, 4, 8, 0), SOFL_E_INVAL);
	sofl_gro_destroy(g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ttl_may_differ),
		cmocka_unit_test(test_hop_limit_may_differ),
		cmocka_unit_test(test_window_may_differ),
		cmocka_unit_test(test_runs_ttl_hop_window),
		cmocka_unit_test(test_ip_id_may_differ),
		cmocka_unit_test(test_ts_value_may_differ),
		cmocka_unit_test(test_segs_and_size_caps),
		cmocka_unit_test(test_rule_hook_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
