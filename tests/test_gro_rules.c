/* Each network-layer merge rule is written once (gro_ip4_rule, gro_ip6_rule
 * gro_tcp_rule in src/gro_impl.h): changing one ("TTL may differ", "hop
 * limit may differ", "the window may differ") must change the decision of the general path (network_flush)
 * and tcp_flush) and of the fast path (its compare mask, mask_for) alike.
 * Two full-size segments of one flow whose TTL / hop limit / window differ:
 * with the rule they are two outputs (flushed, #13 / #15 / #17), without
 * it one super-packet of
 * two, with the fast paths on (the second segment merged by the fast path)
 * and off.  Uses the engine's internals (gro_impl.h): static library only. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "helpers.h"
#include "gro_impl.h"

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
		cmocka_unit_test(test_rule_hook_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
