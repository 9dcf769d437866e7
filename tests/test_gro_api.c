/* Description: GRO engine API and table behaviour: config validation,
 * capacity (ENOSPC, nothing consumed), flow rules, statistics (counters,
 * histogram, reasons), flush timeouts with cookies across polls, Linux 8x8
 * table (bucket by rx hash, oldest evicted, completion order) and LRU table
 * eviction, malformed packets passed through unchanged and counted, TCP
 * completion bytes (RFC 1624 header checksum, pseudo sum, vnet header) and
 * Linux's delivery order (bypass before held, FLUSH-P before the packet). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "test_gro_util.h"

struct rig {
	struct sofl_gro_config cfg;
	struct sofl_gro *g;
	uint8_t buf[64][1600];
	struct sofl_gro_in in[64];
	int n;
};

static void
rig_init(struct rig *r)
{
	memset(r, 0, sizeof(*r));
	sofl_gro_config_init(&r->cfg);
}

static void
rig_create(struct rig *r)
{
	assert_int_equal(sofl_gro_create(&r->cfg, &r->g), 0);
}

static int
rig_add(struct rig *r, const struct t_spec *s)
{
	int k = r->n++;

	r->in[k].len = (uint32_t)t_build(r->buf[k], sizeof(r->buf[k]), s);
	r->in[k].data = r->buf[k];
	r->in[k].flags = 0;
	r->in[k].hash = 0;
	r->in[k].cookie = (uint64_t)k;
	return k;
}

static struct t_spec
tcp(int ipv, uint16_t sport, uint32_t i, int pay)
{
	struct t_spec s;

	t_spec_init(&s, ipv, 6);
	s.sport = sport;
	s.seq = 1000 + i * (uint32_t)pay;
	s.pay_off = i * (uint32_t)pay;
	s.pay_len = (size_t)pay;
	s.ip_id = (uint16_t)(sport + i);
	return s;
}

/* Adds segments 0..n-1 of IPv4 flow 40000 (100-byte payloads, in order). */
static void
rig_add_flow(struct rig *r, int n)
{
	struct t_spec s;
	int i;

	for (i = 0; i < n; i++) {
		s = tcp(4, 40000, (uint32_t)i, 100);
		rig_add(r, &s);
	}
}

static void
test_config(void **state)
{
	struct sofl_gro_config c;
	struct sofl_gro *g = (struct sofl_gro *)1;
	struct sofl_gro_rule rule;
	(void)state;

	sofl_gro_config_init(&c);
	assert_int_equal(c.max_size, 65535);
	assert_int_equal(sofl_gro_create(NULL, &g), SOFL_E_INVAL);
	assert_int_equal(sofl_gro_create(&c, NULL), SOFL_E_INVAL);
	assert_int_equal(c.size, sizeof(c));
	c.max_size = 70000;
	assert_int_equal(sofl_gro_create(&c, &g), SOFL_E_CFG_MAX_SIZE);
	assert_null(g);
	c.max_size = 100;
	assert_int_equal(sofl_gro_create(&c, &g), SOFL_E_CFG_MAX_SIZE);
	sofl_gro_config_init(&c);
	c.policy = (enum sofl_gro_policy)7;
	assert_int_equal(sofl_gro_create(&c, &g), SOFL_E_CFG_POLICY);
	sofl_gro_config_init(&c);
	c.link = (enum sofl_link)9;
	assert_int_equal(sofl_gro_create(&c, &g), SOFL_E_CFG_LINK);
	sofl_gro_config_init(&c);
	c.table = (enum sofl_gro_table)3;
	assert_int_equal(sofl_gro_create(&c, &g), SOFL_E_CFG_TABLE);
	sofl_gro_config_init(&c);
	c.max_flows = (1u << 24) + 1;
	assert_int_equal(sofl_gro_create(&c, &g), SOFL_E_CFG_MAX_FLOWS);
	sofl_gro_config_init(&c);
	c.max_batch = (1u << 24) + 1;
	assert_int_equal(sofl_gro_create(&c, &g), SOFL_E_CFG_MAX_BATCH);
	sofl_gro_config_init(&c);
	c.max_held = (1u << 26) + 1;
	assert_int_equal(sofl_gro_create(&c, &g), SOFL_E_CFG_MAX_HELD);
	sofl_gro_config_init(&c);
	c.max_segs = 65536;
	assert_int_equal(sofl_gro_create(&c, &g), SOFL_E_CFG_MAX_SEGS);
	/* the size field: 0 (no config_init) and unknown set bytes are refused,
	 * a larger struct whose unknown tail is zero is accepted */
	sofl_gro_config_init(&c);
	c.size = 0;
	assert_int_equal(sofl_gro_create(&c, &g), SOFL_E_CFG_SIZE);
	/* the smallest accepted is the first sized version's, up to hash_key */
	c.size = (uint32_t)(offsetof(struct sofl_gro_config, hash_key) + 15);
	assert_int_equal(sofl_gro_create(&c, &g), SOFL_E_CFG_SIZE);
	c.size = (uint32_t)(offsetof(struct sofl_gro_config, hash_key) + 16);
	assert_int_equal(sofl_gro_create(&c, &g), 0);
	sofl_gro_destroy(g);
	{
		struct { struct sofl_gro_config c; uint8_t more[16]; } big;

		memset(&big, 0, sizeof(big));
		sofl_gro_config_init(&big.c);
		big.c.size = sizeof(big);
		assert_int_equal(sofl_gro_create(&big.c, &g), 0);
		sofl_gro_destroy(g);
		big.more[15] = 1;
		assert_int_equal(sofl_gro_create(&big.c, &g), SOFL_E_CFG_SIZE);
	}
	assert_string_equal(sofl_strerror(SOFL_E_CFG_MAX_SEGS), "config: max_segs above 65535");
	sofl_gro_config_init(&c);
	c.n_rules = 1;
	assert_int_equal(sofl_gro_create(&c, &g), SOFL_E_CFG_RULES);
	memset(&rule, 0, sizeof(rule));
	rule.family = 4;
	rule.prefix = 33;
	c.rules = &rule;
	assert_int_equal(sofl_gro_create(&c, &g), SOFL_E_CFG_RULES);
	rule.prefix = 32;
	assert_int_equal(sofl_gro_create(&c, &g), 0);
	sofl_gro_destroy(g);
	sofl_gro_destroy(NULL);
	assert_int_equal(sofl_gro_receive(NULL, NULL, 0, 0), SOFL_E_INVAL);
	assert_string_equal(sofl_gro_flush_name(SOFL_GRO_FLUSH_PSH_FIN), "psh-fin");
	assert_string_equal(sofl_gro_bypass_name(SOFL_GRO_BYPASS_IP_OPTS), "ip-opts");
	assert_string_equal(sofl_gro_bypass_name((enum sofl_gro_bypass)99), "?");
	assert_string_equal(sofl_gro_flush_name((enum sofl_gro_flush)-1), "?");
}

static void
test_capacity(void **state)
{
	static struct rig r;
	const struct sofl_gro_out *o;
	(void)state;

	rig_init(&r);
	r.cfg.max_batch = 8;
	rig_create(&r);
	rig_add_flow(&r, 10);
	assert_int_equal(sofl_gro_receive(r.g, r.in, 9, 0), SOFL_E_GRO_BATCH);
	assert_int_equal(sofl_gro_held(r.g), 0);
	assert_int_equal(sofl_gro_receive(r.g, r.in, 5, 0), 5);
	assert_int_equal(sofl_gro_receive(r.g, r.in + 5, 4, 0), SOFL_E_GRO_BATCH);
	assert_int_equal(sofl_gro_receive(r.g, r.in + 5, 3, 0), 3);
	assert_int_equal(sofl_gro_held(r.g), 8);
	assert_int_equal(sofl_gro_poll_end(r.g, 0), 1);
	assert_int_equal(sofl_gro_outputs(r.g, &o), 1);
	assert_int_equal(o[0].segs, 8);
	sofl_gro_release(r.g);
	assert_int_equal(sofl_gro_receive(r.g, r.in + 8, 2, 0), 2);
	sofl_gro_destroy(r.g);
}

static void
test_rules(void **state)
{
	static struct rig r;
	struct sofl_gro_rule rules[2];
	struct sofl_gro_stats st;
	const struct sofl_gro_out *o;
	struct t_spec s;
	int i, m;
	(void)state;

	memset(rules, 0, sizeof(rules));
	rules[0].family = 4;
	rules[0].proto = 6;
	rules[0].prefix = 24;
	memcpy(rules[0].dst, (const uint8_t[]){ 198, 18, 0, 0 }, 4);
	rules[0].dport = 5201;
	rules[1].family = 6;
	rules[1].prefix = 128;
	memcpy(rules[1].dst, (const uint8_t[]){ 0x20, 0x01, 0, 2, [15] = 9 }, 16);
	rig_init(&r);
	r.cfg.rules = rules;
	r.cfg.n_rules = 2;
	rig_create(&r);
	memset(rules, 0xff, sizeof(rules));	/* the engine keeps its own copy */
	rig_add_flow(&r, 2);	/* matches rule 0: coalesced */
	for (i = 0; i < 2; i++) {		/* other port: not coalesced */
		s = tcp(4, 40001, (uint32_t)i, 100);
		s.dport = 80;
		rig_add(&r, &s);
	}
	for (i = 0; i < 2; i++) {		/* outside 198.18.0.0/24 */
		s = tcp(4, 40002, (uint32_t)i, 100);
		s.dst[2] = 1;
		rig_add(&r, &s);
	}
	for (i = 0; i < 2; i++) {		/* IPv6 2001:2::2 is not 2001:2::9 */
		s = tcp(6, 40003, (uint32_t)i, 100);
		rig_add(&r, &s);
	}
	for (i = 0; i < 2; i++) {		/* IPv6 to 2001:2::9: rule 1, any port */
		s = tcp(6, 40004, (uint32_t)i, 100);
		s.dst[15] = 9;
		rig_add(&r, &s);
	}
	assert_int_equal(sofl_gro_receive(r.g, r.in, (size_t)r.n, 0), r.n);
	sofl_gro_poll_end(r.g, 0);
	m = sofl_gro_outputs(r.g, &o);
	assert_int_equal(m, 8);
	sofl_gro_get_stats(r.g, &st, sizeof(st));
	assert_int_equal(st.bypass[SOFL_GRO_BYPASS_RULE], 6);
	assert_int_equal(st.super_pkts, 2);
	sofl_gro_release(r.g);
	sofl_gro_destroy(r.g);
}

static void
test_stats(void **state)
{
	static struct rig r;
	struct sofl_gro_stats st;
	struct t_spec s;
	int i;
	(void)state;

	rig_init(&r);
	rig_create(&r);
	rig_add_flow(&r, 20);	/* 20 -> one super-packet (bin 16-31) */
	for (i = 0; i < 5; i++) {		/* 4 + PSH: merged then flushed (bin 4-7) */
		s = tcp(6, 40001, (uint32_t)i, 100);
		if (i == 4)
			s.flags |= SOFL_TCP_PSH;
		rig_add(&r, &s);
	}
	s = tcp(4, 40002, 0, 0);		/* pure ACK: bypassed (bin 1) */
	rig_add(&r, &s);
	s = tcp(4, 40003, 0, 100);		/* bad checksum */
	rig_add(&r, &s);
	r.buf[r.n - 1][60] ^= 1;
	s = tcp(4, 40004, 0, 100);		/* bad IPv4 header checksum */
	rig_add(&r, &s);
	r.buf[r.n - 1][14 + 10] ^= 1;
	assert_int_equal(sofl_gro_receive(r.g, r.in, (size_t)r.n, 0), r.n);
	sofl_gro_poll_end(r.g, 0);
	sofl_gro_get_stats(r.g, &st, sizeof(st));
	assert_int_equal(st.pkts_in, 28);
	assert_int_equal(st.pkts_out, 5);
	assert_int_equal(st.super_pkts, 2);
	assert_int_equal(st.segs_merged, 25);
	assert_int_equal(st.hist[0], 3);
	assert_int_equal(st.hist[2], 1);
	assert_int_equal(st.hist[4], 1);
	assert_int_equal(st.flush[SOFL_GRO_FLUSH_POLL], 1);
	assert_int_equal(st.flush[SOFL_GRO_FLUSH_PSH_FIN], 1);
	assert_int_equal(st.bypass[SOFL_GRO_BYPASS_NOPAYLOAD], 1);
	assert_int_equal(st.bypass[SOFL_GRO_BYPASS_L4_CSUM], 1);
	assert_int_equal(st.bypass[SOFL_GRO_BYPASS_IP_CSUM], 1);
	assert_int_equal(st.csum_sw_ip, 23);	/* every IPv4 packet */
	assert_int_equal(st.csum_sw_l4, 27);	/* all but the bad IPv4 header */
	/* the size the caller passes: an older, smaller struct gets its
	 * first bytes only; a newer, larger one gets zeros past ours */
	{
		struct { struct sofl_gro_stats s; uint64_t more[4]; } big;
		struct sofl_gro_stats small;
		size_t k;

		memset(&big, 0xa5, sizeof(big));
		sofl_gro_get_stats(r.g, &big.s, sizeof(big));
		assert_memory_equal(&big.s, &st, sizeof(st));
		for (k = 0; k < 4; k++)
			assert_int_equal(big.more[k], 0);
		memset(&small, 0xa5, sizeof(small));
		sofl_gro_get_stats(r.g, &small, offsetof(struct sofl_gro_stats, bytes_in));
		assert_int_equal(small.pkts_in, 28);
		assert_int_equal(small.segs_merged, 25);
		assert_int_equal(small.bytes_in, 0xa5a5a5a5a5a5a5a5ull);
		/* the spare reason slots read 0 */
		for (k = SOFL_GRO_FLUSH__MAX; k < SOFL_GRO_FLUSH_SLOTS; k++)
			assert_int_equal(st.flush[k], 0);
		for (k = SOFL_GRO_BYPASS__MAX; k < SOFL_GRO_BYPASS_SLOTS; k++)
			assert_int_equal(st.bypass[k], 0);
	}
	assert_int_equal(sofl_gro_get_stats(NULL, &st, sizeof(st)), SOFL_E_INVAL);
	assert_int_equal(sofl_gro_get_stats(r.g, NULL, sizeof(st)), SOFL_E_INVAL);
	assert_int_equal(sofl_gro_reset_stats(NULL), SOFL_E_INVAL);
	assert_int_equal(sofl_gro_reset_stats(r.g), 0);
	assert_int_equal(sofl_gro_get_stats(r.g, &st, sizeof(st)), 0);
	assert_int_equal(st.pkts_in, 0);
	sofl_gro_release(r.g);
	sofl_gro_destroy(r.g);
}

/* Flush timeout: flows held across polls; cookies come out later. */
static void
test_timeout(void **state)
{
	static struct rig r;
	const struct sofl_gro_out *o;
	struct t_spec s;
	int i;
	(void)state;

	rig_init(&r);
	r.cfg.flush_timeout_us = 100;
	rig_create(&r);
	rig_add_flow(&r, 6);
	assert_int_equal(sofl_gro_receive(r.g, r.in, 3, 1000), 3);
	assert_int_equal(sofl_gro_poll_end(r.g, 50000), 0);		/* 49 us: kept */
	sofl_gro_release(r.g);
	assert_int_equal(sofl_gro_held(r.g), 3);
	assert_int_equal(sofl_gro_receive(r.g, r.in + 3, 3, 60000), 3);
	assert_int_equal(sofl_gro_poll_end(r.g, 90000), 0);
	sofl_gro_release(r.g);
	assert_int_equal(sofl_gro_poll_end(r.g, 101000), 1);	/* 100 us after the first */
	assert_int_equal(sofl_gro_outputs(r.g, &o), 1);
	assert_int_equal(o[0].segs, 6);
	assert_int_equal(o[0].flush_reason, SOFL_GRO_FLUSH_TIMEOUT);
	for (i = 0; i < 6; i++)
		assert_int_equal(o[0].cookies[i], i);
	sofl_gro_release(r.g);
	assert_int_equal(sofl_gro_held(r.g), 0);

	/* explicit flush */
	assert_int_equal(sofl_gro_receive(r.g, r.in, 2, 0), 2);
	assert_int_equal(sofl_gro_flush(r.g), 1);
	assert_int_equal(sofl_gro_outputs(r.g, &o), 1);
	assert_int_equal(o[0].flush_reason, SOFL_GRO_FLUSH_EXPLICIT);
	sofl_gro_release(r.g);
	sofl_gro_destroy(r.g);

	/* max_held: the oldest flows are completed at poll end */
	rig_init(&r);
	r.cfg.flush_timeout_us = 1000;
	r.cfg.max_held = 4;
	rig_create(&r);
	for (i = 0; i < 6; i++) {
		s = tcp(4, (uint16_t)(40000 + i), 0, 100);
		rig_add(&r, &s);
	}
	assert_int_equal(sofl_gro_receive(r.g, r.in, 6, 0), 6);
	assert_int_equal(sofl_gro_poll_end(r.g, 0), 2);
	assert_int_equal(sofl_gro_outputs(r.g, &o), 2);
	assert_int_equal(o[0].cookies[0], 0);
	assert_int_equal(o[1].cookies[0], 1);
	assert_int_equal(o[0].flush_reason, SOFL_GRO_FLUSH_CAPACITY);
	sofl_gro_release(r.g);
	assert_int_equal(sofl_gro_held(r.g), 4);
	sofl_gro_destroy(r.g);
}

/* Linux table: 8 buckets x 8 by rx hash; the 9th flow of a bucket completes
 * the oldest; poll end completes bucket by bucket, oldest first. */
static void
test_linux_table(void **state)
{
	static struct rig r;
	const struct sofl_gro_out *o;
	struct t_spec s;
	int i, m;
	(void)state;

	rig_init(&r);
	rig_create(&r);
	for (i = 0; i < 9; i++) {		/* no hash: all in bucket 0 */
		s = tcp(4, (uint16_t)(41000 + i), 0, 100);
		rig_add(&r, &s);
	}
	assert_int_equal(sofl_gro_receive(r.g, r.in, 9, 0), 9);
	assert_int_equal(sofl_gro_outputs(r.g, &o), 1);
	assert_int_equal(o[0].cookies[0], 0);		/* the oldest */
	assert_int_equal(o[0].flush_reason, SOFL_GRO_FLUSH_EVICT);
	m = sofl_gro_poll_end(r.g, 0);
	assert_int_equal(m, 9);
	sofl_gro_outputs(r.g, &o);
	for (i = 1; i < 9; i++)
		assert_int_equal(o[i].cookies[0], i);	/* oldest first */
	sofl_gro_release(r.g);
	sofl_gro_destroy(r.g);

	/* with hashes: buckets 3, 1, 3, 0 -> completion order 0, 1, 3 (old), 3 (new) */
	rig_init(&r);
	rig_create(&r);
	{
		static const uint32_t h[4] = { 0x13, 0x21, 0xab, 0x40 };
		for (i = 0; i < 4; i++) {
			s = tcp(4, (uint16_t)(42000 + i), 0, 100);
			rig_add(&r, &s);
			r.in[i].flags = SOFL_GRO_F_HASH;
			r.in[i].hash = h[i];
		}
	}
	assert_int_equal(sofl_gro_receive(r.g, r.in, 4, 0), 4);
	assert_int_equal(sofl_gro_poll_end(r.g, 0), 4);
	sofl_gro_outputs(r.g, &o);
	assert_int_equal(o[0].cookies[0], 3);
	assert_int_equal(o[1].cookies[0], 1);
	assert_int_equal(o[2].cookies[0], 0);
	assert_int_equal(o[3].cookies[0], 2);
	sofl_gro_release(r.g);
	sofl_gro_destroy(r.g);

	/* same 5-tuple, different rx hash: different flows (#1) */
	rig_init(&r);
	rig_create(&r);
	for (i = 0; i < 2; i++) {
		s = tcp(4, 43000, (uint32_t)i, 100);
		rig_add(&r, &s);
		r.in[i].flags = SOFL_GRO_F_HASH;
		r.in[i].hash = (uint32_t)i;
	}
	assert_int_equal(sofl_gro_receive(r.g, r.in, 2, 0), 2);
	assert_int_equal(sofl_gro_poll_end(r.g, 0), 2);
	sofl_gro_release(r.g);
	sofl_gro_destroy(r.g);
}

static void
test_lru_table(void **state)
{
	static struct rig r;
	const struct sofl_gro_out *o;
	struct t_spec s;
	int i;
	(void)state;

	rig_init(&r);
	r.cfg.table = SOFL_GRO_TABLE_LRU;
	r.cfg.max_flows = 4;
	rig_create(&r);
	for (i = 0; i < 4; i++) {		/* flows A B C D */
		s = tcp(4, (uint16_t)(44000 + i), 0, 100);
		rig_add(&r, &s);
	}
	s = tcp(4, 44000, 1, 100);		/* A used again */
	rig_add(&r, &s);
	s = tcp(4, 44009, 0, 100);		/* E: table full -> evict B (A was used) */
	rig_add(&r, &s);
	assert_int_equal(sofl_gro_receive(r.g, r.in, 6, 0), 6);
	assert_int_equal(sofl_gro_outputs(r.g, &o), 1);
	assert_int_equal(o[0].cookies[0], 1);
	assert_int_equal(o[0].flush_reason, SOFL_GRO_FLUSH_EVICT);
	assert_int_equal(sofl_gro_poll_end(r.g, 0), 5);
	sofl_gro_outputs(r.g, &o);
	assert_int_equal(o[1].segs, 2);			/* A, oldest */
	assert_int_equal(o[1].cookies[1], 4);
	sofl_gro_release(r.g);
	sofl_gro_destroy(r.g);
}

/* LRU table CLOCK: a flow just held survives the hand's next pass, so it
 * is not the victim of the next new flow (it was, when holding a flow did
 * not mark it: here F took E, held one packet before). */
static void
test_lru_clock_new(void **state)
{
	static struct rig r;
	const struct sofl_gro_out *o;
	struct t_spec s;
	int i, k, n;
	(void)state;

	rig_init(&r);
	r.cfg.table = SOFL_GRO_TABLE_LRU;
	r.cfg.max_flows = 4;
	rig_create(&r);
	for (i = 0; i < 4; i++) {		/* A B C D: cookies 0..3, entries 0..3 */
		s = tcp(4, (uint16_t)(44000 + i), 0, 100);
		rig_add(&r, &s);
	}
	for (i = 1; i < 4; i++) {		/* B C D used: cookies 4..6 */
		s = tcp(4, (uint16_t)(44000 + i), 1, 100);
		rig_add(&r, &s);
	}
	s = tcp(4, 44010, 0, 100);		/* E: cookie 7, takes A (least used) */
	rig_add(&r, &s);
	s = tcp(4, 44011, 0, 100);		/* F: cookie 8, takes B (E just held) */
	rig_add(&r, &s);
	assert_int_equal(sofl_gro_receive(r.g, r.in, 9, 0), 9);
	n = sofl_gro_outputs(r.g, &o);
	assert_int_equal(n, 2);
	assert_int_equal(o[0].segs, 1);
	assert_int_equal(o[0].cookies[0], 0);	/* A */
	assert_int_equal(o[1].segs, 2);		/* B, not E */
	assert_int_equal(o[1].cookies[0], 1);
	assert_int_equal(o[1].cookies[1], 4);
	for (k = 0; k < n; k++)
		assert_int_equal(o[k].flush_reason, SOFL_GRO_FLUSH_EVICT);
	assert_int_equal(sofl_gro_poll_end(r.g, 0), 6);	/* C D E F, oldest first */
	sofl_gro_outputs(r.g, &o);
	assert_int_equal(o[2].cookies[0], 2);
	assert_int_equal(o[3].cookies[0], 3);
	assert_int_equal(o[4].cookies[0], 7);
	assert_int_equal(o[5].cookies[0], 8);
	sofl_gro_release(r.g);
	sofl_gro_destroy(r.g);
}

/* LRU table CLOCK: second chance in flow-table order; a flow used since the
 * hand last passed is skipped once (its mark cleared), and with every flow
 * marked the hand goes round once and takes the first. */
static void
test_lru_clock(void **state)
{
	static struct rig r;
	const struct sofl_gro_out *o;
	struct t_spec s;
	int i, k, n;
	(void)state;

	rig_init(&r);
	r.cfg.table = SOFL_GRO_TABLE_LRU;
	r.cfg.max_flows = 4;
	rig_create(&r);
	for (i = 0; i < 4; i++) {		/* A B C D: cookies 0..3 */
		s = tcp(4, (uint16_t)(44000 + i), 0, 100);
		rig_add(&r, &s);
	}
	s = tcp(4, 44000, 1, 100);		/* A used: cookie 4 */
	rig_add(&r, &s);
	for (i = 0; i < 5; i++) {		/* E F G H I: cookies 5..9 */
		s = tcp(4, (uint16_t)(44010 + i), 0, 100);
		rig_add(&r, &s);
	}
	assert_int_equal(sofl_gro_receive(r.g, r.in, 10, 0), 10);
	/* E evicts B (A had a second chance), F C, G D, H A, I E */
	n = sofl_gro_outputs(r.g, &o);
	assert_int_equal(n, 5);
	assert_int_equal(o[0].cookies[0], 1);
	assert_int_equal(o[1].cookies[0], 2);
	assert_int_equal(o[2].cookies[0], 3);
	assert_int_equal(o[3].segs, 2);
	assert_int_equal(o[3].cookies[0], 0);
	assert_int_equal(o[4].cookies[0], 5);
	for (k = 0; k < n; k++)
		assert_int_equal(o[k].flush_reason, SOFL_GRO_FLUSH_EVICT);
	assert_int_equal(sofl_gro_poll_end(r.g, 0), 9);	/* F G H I, oldest first */
	sofl_gro_outputs(r.g, &o);
	for (k = 0; k < 4; k++)
		assert_int_equal(o[5 + k].cookies[0], 6 + k);
	sofl_gro_release(r.g);

	/* every flow marked: the hand clears all four and takes the first */
	r.n = 0;
	for (i = 0; i < 4; i++) {		/* cookies 0..7: J K L M, each twice */
		s = tcp(4, (uint16_t)(44100 + i), 0, 100);
		rig_add(&r, &s);
		s = tcp(4, (uint16_t)(44100 + i), 1, 100);
		rig_add(&r, &s);
	}
	s = tcp(4, 44200, 0, 100);		/* N: cookie 8 */
	rig_add(&r, &s);
	assert_int_equal(sofl_gro_receive(r.g, r.in, 9, 0), 9);
	assert_int_equal(sofl_gro_outputs(r.g, &o), 1);
	assert_int_equal(o[0].flush_reason, SOFL_GRO_FLUSH_EVICT);
	assert_int_equal(o[0].segs, 2);
	/* the hand stopped after I's entry (the 2nd): the 3rd is the first
	 * one it takes, which holds the flow allocated there */
	assert_int_equal(sofl_gro_poll_end(r.g, 0), 5);
	sofl_gro_outputs(r.g, &o);
	for (k = 0, n = 0; k < 5; k++)
		n += (int)o[k].segs;
	assert_int_equal(n, 9);			/* every input once */
	sofl_gro_release(r.g);
	sofl_gro_destroy(r.g);
}

/* Malformed and ineligible packets: delivered unchanged, counted by reason. */
static void
test_malformed(void **state)
{
	static const uint8_t ipopt[4] = { 1, 1, 1, 0 };
	static struct rig r;
	struct sofl_gro_stats st;
	const struct sofl_gro_out *o;
	struct t_spec s;
	int i, m, k;
	(void)state;

	rig_init(&r);
	rig_create(&r);
	s = tcp(4, 45000, 0, 100);
	rig_add(&r, &s);
	r.in[0].len = 30;				/* truncated */
	t_spec_init(&s, 4, 6);
	k = r.n++;
	r.in[k].len = (uint32_t)t_build_arp(r.buf[k], sizeof(r.buf[k]), &s);
	r.in[k].data = r.buf[k];
	r.in[k].cookie = (uint64_t)k;
	s = tcp(4, 45001, 0, 100);			/* IPv4 options */
	s.ip_opts = ipopt;
	s.ip_opts_len = 4;
	rig_add(&r, &s);
	s = tcp(4, 45002, 0, 100);			/* fragment */
	s.frag = 0x2000;
	rig_add(&r, &s);
	t_spec_init(&s, 4, 1);				/* ICMP */
	s.pay_len = 30;
	rig_add(&r, &s);
	s = tcp(6, 45003, 0, 100);			/* IPv6 fragment header */
	s.n_ext = 1;
	s.ext[0].type = 44;
	rig_add(&r, &s);
	s = tcp(4, 45004, 0, 4);			/* Ethernet padding */
	s.eth_pad = 6;
	rig_add(&r, &s);
	s = tcp(4, 45005, 0, 100);			/* tot_len beyond the frame */
	s.l3_len_delta = 10;
	rig_add(&r, &s);
	s = tcp(4, 45006, 0, 100);
	rig_add(&r, &s);
	r.buf[r.n - 1][14 + 20 + 12] = 0x30;		/* doff 3 */
	k = r.n++;					/* NULL data, zero length */
	r.in[k].data = NULL;
	r.in[k].len = 0;
	r.in[k].cookie = (uint64_t)k;
	assert_int_equal(sofl_gro_receive(r.g, r.in, (size_t)r.n, 0), r.n);
	sofl_gro_poll_end(r.g, 0);
	m = sofl_gro_outputs(r.g, &o);
	assert_int_equal(m, r.n);
	for (i = 0; i < m; i++) {
		k = (int)o[i].cookies[0];
		assert_int_equal(o[i].segs, 1);
		assert_int_equal(o[i].bypass, 1);
		assert_int_equal(o[i].iovcnt, 1);
		assert_ptr_equal(o[i].iov[0].iov_base, r.in[k].data);
		assert_int_equal(o[i].len, r.in[k].len);
		assert_int_equal(o[i].gso_type, SOFL_GSO_NONE);
		assert_int_equal(o[i].csum, SOFL_CSUM_UNKNOWN);
	}
	sofl_gro_get_stats(r.g, &st, sizeof(st));
	assert_int_equal(st.bypass[SOFL_GRO_BYPASS_MALFORMED], 4);
	assert_int_equal(st.bypass[SOFL_GRO_BYPASS_NOT_IP], 1);
	assert_int_equal(st.bypass[SOFL_GRO_BYPASS_IP_OPTS], 1);
	assert_int_equal(st.bypass[SOFL_GRO_BYPASS_FRAGMENT], 2);
	assert_int_equal(st.bypass[SOFL_GRO_BYPASS_PROTO], 1);
	assert_int_equal(st.bypass[SOFL_GRO_BYPASS_BADLEN], 1);
	sofl_gro_release(r.g);
	sofl_gro_destroy(r.g);
}

/* TCP completion bytes: RFC 1624 header checksum = from-scratch value,
 * TCP check = pseudo sum; vnet header; csum_full; raw IP link. */
static void
test_completion(void **state)
{
	static struct rig r;
	const struct sofl_gro_out *o;
	uint8_t out[8000], hdr[60];
	struct sofl_pkt p;
	struct t_spec s;
	int i, full, raw;
	(void)state;

	for (raw = 0; raw <= 1; raw++)
		for (full = 0; full <= 1; full++) {
			unsigned l2 = raw ? 0 : 14;
			rig_init(&r);
			r.cfg.csum_full = full;
			r.cfg.link = raw ? SOFL_LINK_RAW : SOFL_LINK_ETH;
			rig_create(&r);
			for (i = 0; i < 3; i++) {
				s = tcp(4, 46000, (uint32_t)i, 1001);	/* odd size: odd offsets */
				s.link = raw ? SOFL_LINK_RAW : SOFL_LINK_ETH;
				s.tcp_opts = t_opt_ts;
				s.tcp_opts_len = 12;
				if (i == 2)
					s.flags |= SOFL_TCP_FIN;
				rig_add(&r, &s);
			}
			assert_int_equal(sofl_gro_receive(r.g, r.in, 3, 0), 3);
			assert_int_equal(sofl_gro_outputs(r.g, &o), 1);	/* FIN: merged, flushed */
			assert_int_equal(o[0].flush_reason, SOFL_GRO_FLUSH_PSH_FIN);
			assert_int_equal(o[0].gso_type, SOFL_GSO_TCPV4);
			assert_int_equal(o[0].gso_size, 1001);
			assert_int_equal(o[0].vnet.gso_type, SOFL_GSO_TCPV4);
			assert_int_equal(o[0].vnet.gso_size, 1001);
			assert_int_equal(o[0].vnet.hdr_len, l2 + 52);
			assert_int_equal(o[0].len, l2 + 52 + 3003);
			assert_int_equal(sofl_gro_out_copy(&o[0], out, sizeof(out)), o[0].len);
			assert_int_equal(sofl_pkt_parse(&p, out, o[0].len, r.cfg.link), 0);
			assert_int_equal(p.tcp_flags, SOFL_TCP_ACK | SOFL_TCP_FIN);
			assert_int_equal(sofl_get16(out + l2 + 2), 3055);
			/* incremental header checksum == from-scratch */
			memcpy(hdr, out + l2, 20);
			assert_int_equal(sofl_get16(out + l2 + 10), sofl_csum_ipv4_hdr(hdr, 20));
			assert_int_equal(sofl_get16(out + l2 + 4), 46000);	/* first ID */
			if (full) {
				assert_int_equal(o[0].csum, SOFL_CSUM_VALID);
				assert_int_equal(o[0].vnet.flags, SOFL_VNET_HDR_F_DATA_VALID);
				assert_int_equal(sofl_csum_pkt_l4(&p), sofl_get16(out + l2 + 36));
			} else {
				assert_int_equal(o[0].csum, SOFL_CSUM_PARTIAL);
				assert_int_equal(o[0].vnet.flags, SOFL_VNET_HDR_F_NEEDS_CSUM);
				assert_int_equal(o[0].vnet.csum_start, l2 + 20);
				assert_int_equal(o[0].vnet.csum_offset, 16);
				assert_int_equal(sofl_get16(out + l2 + 36), sofl_csum_pkt_pseudo(&p));
				assert_int_equal(sofl_csum_complete_partial(out, o[0].len, l2 + 20, 16), 0);
				assert_int_equal(sofl_csum_pkt_l4(&p), sofl_get16(out + l2 + 36));
			}
			sofl_gro_release(r.g);
			sofl_gro_destroy(r.g);
		}
}

/* Delivery order as Linux: a FLUSH-SKB packet (bad checksum) goes out before
 * the held flow; FLUSH-P completes p before the new packet is held. */
static void
test_order(void **state)
{
	static struct rig r;
	const struct sofl_gro_out *o;
	struct t_spec s;
	(void)state;

	rig_init(&r);
	rig_create(&r);
	s = tcp(4, 47000, 0, 100);
	rig_add(&r, &s);
	s = tcp(4, 47000, 1, 100);
	rig_add(&r, &s);
	r.buf[1][70] ^= 1;				/* bad TCP checksum */
	s = tcp(4, 47000, 1, 100);
	s.ttl = 3;					/* FLUSH-P: TTL differs */
	rig_add(&r, &s);
	s = tcp(4, 47000, 2, 100);
	s.ttl = 3;
	s.flags |= SOFL_TCP_SYN;			/* FLUSH-P and delivered alone */
	rig_add(&r, &s);
	assert_int_equal(sofl_gro_receive(r.g, r.in, 4, 0), 4);
	assert_int_equal(sofl_gro_outputs(r.g, &o), 4);
	assert_int_equal(o[0].cookies[0], 1);
	assert_int_equal(o[0].bypass_reason, SOFL_GRO_BYPASS_L4_CSUM);
	assert_int_equal(o[1].cookies[0], 0);
	assert_int_equal(o[1].flush_reason, SOFL_GRO_FLUSH_HDR);
	assert_int_equal(o[1].csum, SOFL_CSUM_VALID);	/* verified in software */
	assert_int_equal(o[1].vnet.flags, SOFL_VNET_HDR_F_DATA_VALID);
	assert_int_equal(o[2].cookies[0], 2);
	assert_int_equal(o[2].flush_reason, SOFL_GRO_FLUSH_HDR);
	assert_int_equal(o[3].cookies[0], 3);
	assert_int_equal(o[3].bypass, 1);
	assert_int_equal(o[3].bypass_reason, SOFL_GRO_BYPASS_FLAGS);
	/* verified before the rules looked at it: DATA_VALID, as Linux says */
	assert_int_equal(o[3].csum, SOFL_CSUM_VALID);
	assert_int_equal(o[3].vnet.flags, SOFL_VNET_HDR_F_DATA_VALID);
	/* the bad-checksum packet is not */
	assert_int_equal(o[0].csum, SOFL_CSUM_UNKNOWN);
	assert_int_equal(o[0].vnet.flags, 0);
	sofl_gro_release(r.g);
	sofl_gro_destroy(r.g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_capacity),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_linux_table),
		cmocka_unit_test(test_lru_table),
		cmocka_unit_test(test_lru_clock),
		cmocka_unit_test(test_lru_clock_new),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_completion),
		cmocka_unit_test(test_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
