/* Description: GRO fast merge changes nothing: random multi-flow TCP streams (IPv4/IPv6, VLAN, IPv6 destination options, TS/other/no options; PSH/FIN/CWR/URG/SYN segments, all-CWR flows, short/long/empty segments, sequence gaps, IPv4 ID jumps and fixed IDs, TTL/TOS/DF/ack/window/TS/urgent-pointer changes, Ethernet padding, bad/pseudo-only checksums, truncated frames, IPv4 options, UDP, other IP protocols and TCP bytes typed UDP) through two engines, fast path on and off, under random tables, checksum flags, rx hashes (distinct, colliding, absent), max_size, csum_full/partial_ok and flush timeouts: every output (bytes, iovec count, segments, cookies, gso/csum/vnet fields, reason) and every counter must be identical; and software checksums decide on their own (bad TCP/IPv4 checksums at chosen bytes of full-size frames, new flows, trains and weaves, every checksum implementation: exactly the bad ones bypassed, each input counted once); a weave of flows whose header lengths differ; new flows held with evictions; inputs given with their parse (SOFL_GRO_F_PKT, SOFL_GRO_F_MALFORMED) give what inputs without do, and the parse given is the one decided by; a parse that lies never makes the engine read outside the frame.  Seed from $SOFL_SEED, runs from $SOFL_RUNS. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "helpers.h"
#include "gro/gro_engine.h"

/* an output's reason: bypass_reason or flush_reason, as bypass says */
#define WHY(o) ((o)->bypass ? (unsigned)(o)->bypass_reason : (unsigned)(o)->flush_reason)

#define NPK   192
#define NFL   6
#define FRAME 1600

struct flowgen {
	int ipv, nvlan, ext, opts, fixed_id, cwr;
	uint16_t sport, id, mss, win, urg;
	uint32_t seq, ack, tsval, hash, label;
	uint8_t ttl, tos;
	int df;
};

struct stream {
	uint8_t buf[NPK][FRAME];
	struct sofl_gro_in in[NPK];
	int brk[NPK];
	int n;
};

static uint64_t seed0 = 0xfa57a11ull;
static int runs = 400;

static uint32_t
rnd(uint64_t *r, uint32_t n)
{
	return (uint32_t)(t_rand(r) % n);
}

static void
flow_init(struct flowgen *f, uint64_t *r, int i)
{
	memset(f, 0, sizeof(*f));
	f->ipv = rnd(r, 3) ? 4 : 6;
	f->nvlan = rnd(r, 4) == 0;
	f->ext = f->ipv == 6 && rnd(r, 4) == 0;
	f->opts = (int)rnd(r, 4);	/* 0 none, 1-2 NOP NOP TS, 3 MSS+NOP+WS... */
	f->fixed_id = rnd(r, 5) == 0;
	f->cwr = rnd(r, 8) == 0;	/* every segment CWR: none may merge */
	f->sport = (uint16_t)(40000 + i);
	f->id = (uint16_t)t_rand(r);
	f->mss = (uint16_t)(200 + rnd(r, 1200));
	f->win = (uint16_t)(1000 + rnd(r, 60000));
	f->seq = (uint32_t)t_rand(r);
	f->ack = (uint32_t)t_rand(r);
	f->tsval = (uint32_t)t_rand(r);
	f->hash = (uint32_t)t_rand(r);
	f->label = rnd(r, 2) ? (uint32_t)t_rand(r) & 0xfffff : 0;	/* IPv6 flow label */
	f->ttl = 64;
	f->df = rnd(r, 4) != 0;
}

static const uint8_t opt_other[12] = { 2, 4, 5, 0xb4, 1, 3, 3, 7, 1, 1, 1, 0 };
static const uint8_t ip_opts[4] = { 0x94, 4, 0, 0 };

/* One packet of flow @f, usually its next full segment, often not. */
static void
gen_packet(struct stream *st, struct flowgen *f, uint64_t *r, int hashmode, uint32_t flagmode)
{
	struct t_spec s;
	uint8_t ts[12];
	uint8_t *b = st->buf[st->n];
	struct sofl_gro_in *in = &st->in[st->n];
	uint32_t pay = f->mss, k = rnd(r, 100);
	size_t len;

	t_spec_init(&s, f->ipv, rnd(r, 60) ? 6 : 17);
	s.nvlan = f->nvlan;
	s.vlan_tci[0] = 7;
	if (f->ext) {
		s.n_ext = 1;
		s.ext[0].type = 60;
		s.ext[0].len = 8;
	}
	s.sport = f->sport;
	s.flow_label = f->label;
	s.seq = f->seq;
	s.ack = f->ack;
	s.win = f->win;
	s.ttl = f->ttl;
	s.tos = f->tos;
	s.df = f->df;
	s.ip_id = f->id;
	s.urg = f->urg;
	if (f->cwr)
		s.flags |= SOFL_TCP_CWR;
	if (f->opts == 1 || f->opts == 2) {
		t_opt_ts_set(ts, f->tsval, 77);
		s.tcp_opts = ts;
		s.tcp_opts_len = 12;
	} else if (f->opts == 3) {
		s.tcp_opts = opt_other;
		s.tcp_opts_len = 12;
	}
	/* the perturbations, each rare */
	if (k < 6)
		pay = rnd(r, f->mss);				/* shorter (or empty) */
	else if (k < 8)
		pay = f->mss + 1 + rnd(r, 50);			/* bigger */
	else if (k < 10)
		s.flags |= SOFL_TCP_PSH;
	else if (k < 11)
		s.flags |= SOFL_TCP_FIN;
	else if (k < 13)
		s.flags |= SOFL_TCP_CWR;
	else if (k < 14)
		s.flags |= rnd(r, 2) ? SOFL_TCP_URG : SOFL_TCP_SYN;
	else if (k < 16)
		s.seq += rnd(r, 2) ? f->mss : -(uint32_t)f->mss;	/* gap, retransmit */
	else if (k < 18)
		s.ip_id = (uint16_t)(s.ip_id + 1 + rnd(r, 5));
	else if (k < 19)
		f->ttl = s.ttl = (uint8_t)(s.ttl - 1);
	else if (k < 20)
		f->tos = s.tos = (uint8_t)(s.tos + 4);
	else if (k < 21)
		f->df = s.df = !s.df;
	else if (k < 23)
		f->ack = s.ack = s.ack + 1000;
	else if (k < 24)
		f->win = s.win = (uint16_t)(s.win + 1);
	else if (k < 26 && s.tcp_opts == ts)
		t_opt_ts_set(ts, ++f->tsval, 77);
	else if (k < 27)
		s.urg = (uint16_t)t_rand(r);		/* ignored by Linux */
	else if (k < 29)
		s.eth_pad = 1 + rnd(r, 8);
	else if (k < 30)
		s.csum = T_CSUM_PARTIAL;
	else if (k < 31 && f->ipv == 4) {
		s.ip_opts = ip_opts;
		s.ip_opts_len = 4;
	}
	s.pay_len = pay;
	s.pay_off = f->seq;
	s.pay_seed = (uint8_t)f->sport;
	len = t_build(b, FRAME, &s);
	if (k >= 31 && k < 33)
		b[len - 1 - rnd(r, 20)] ^= 0x40;		/* bad L4 checksum */
	else if (k >= 33 && k < 34 && f->ipv == 4)
		b[14 + 4 * f->nvlan + 8] ^= 1;			/* bad IPv4 header checksum */
	else if (k >= 34 && k < 35)
		len -= 1 + rnd(r, 40);				/* cut short */
	else if (k >= 35 && k < 37 && f->ipv == 4)
		b[14 + 4 * f->nvlan + 9] = rnd(r, 2) ? 1 : (uint8_t)(23 - b[14 + 4 * f->nvlan + 9]);
		/* another protocol (ICMP), or TCP bytes typed UDP / UDP typed TCP */
	in->data = b;
	in->len = (uint32_t)len;
	in->cookie = (uint64_t)st->n;
	in->flags = flagmode == 8 ? rnd(r, 8) & 7 : flagmode;
	if (hashmode == 1 || (hashmode == 2 && rnd(r, 2))) {
		in->flags |= SOFL_GRO_F_HASH;
		in->hash = hashmode == 1 && rnd(r, 40) ? f->hash : (uint32_t)t_rand(r) % 4;
	} else {
		in->flags &= ~(uint32_t)SOFL_GRO_F_HASH;
		in->hash = 0;
	}
	if (!(k >= 14 && k < 16))
		f->seq += pay;
	f->id = (uint16_t)(f->id + !f->fixed_id);
	st->brk[st->n] = rnd(r, 24) == 0;
	st->n++;
}

static void
check_same_out(const struct sofl_gro_out *a, const struct sofl_gro_out *b, int run, int i)
{
	static uint8_t ba[70000], bb[70000];
	long la, lb;

	if (a->len != b->len || a->iovcnt != b->iovcnt || a->segs != b->segs ||
	    a->gso_size != b->gso_size || a->gso_type != b->gso_type || a->csum != b->csum ||
	    a->csum_start != b->csum_start || a->csum_offset != b->csum_offset ||
	    a->bypass != b->bypass || a->flush_reason != b->flush_reason ||
	    a->bypass_reason != b->bypass_reason ||
	    memcmp(&a->vnet, &b->vnet, sizeof(a->vnet)) != 0 ||
	    memcmp(a->cookies, b->cookies, a->segs * sizeof(*a->cookies)) != 0) {
		fprintf(stderr, "run %d output %d: fast segs %u len %u reason %u bypass %u, "
			"general segs %u len %u reason %u bypass %u\n", run, i, a->segs, a->len,
			WHY(a), a->bypass, b->segs, b->len, WHY(b), b->bypass);
		fail();
	}
	la = sofl_gro_out_copy(a, ba, sizeof(ba));
	lb = sofl_gro_out_copy(b, bb, sizeof(bb));
	assert_true(la > 0);
	assert_int_equal(la, lb);
	if (memcmp(ba, bb, (size_t)la) != 0) {
		fprintf(stderr, "run %d output %d: bytes differ\n", run, i);
		fail();
	}
}

/* Feeds @st through engines a (@ca; inputs @ina, NULL: st->in) and b
 * (@cb; st->in; fast paths off unless @fast_b) poll by poll. */
static void
compare_inputs(const struct stream *st, const struct sofl_gro_in *ina,
	       const struct sofl_gro_config *ca, const struct sofl_gro_config *cb, int fast_b,
	       int run)
{
	struct sofl_gro *a, *b;
	struct sofl_gro_stats sa, sb;
	const struct sofl_gro_out *oa, *ob;
	int i, start = 0, k, na, nb;

	assert_int_equal(sofl_gro_create(ca, &a), 0);
	assert_int_equal(sofl_gro_create(cb, &b), 0);
	if (!fast_b)
		sofl_gro_set_fast(b, 0);
	sofl_gro_set_isa(a, run % 3);	/* every train variant the CPU has */
	for (i = 0; i < st->n; i++) {
		if (i != st->n - 1 && !st->brk[i] && i + 1 - start < 64)
			continue;
		uint64_t now = (uint64_t)(i + 1) * 3000;
		assert_int_equal(sofl_gro_receive(a, (ina ? ina : st->in) + start,
						  (size_t)(i + 1 - start), now), i + 1 - start);
		assert_int_equal(sofl_gro_receive(b, st->in + start, (size_t)(i + 1 - start), now),
				 i + 1 - start);
		sofl_gro_poll_end(a, now);
		sofl_gro_poll_end(b, now);
		if (i == st->n - 1) {
			sofl_gro_flush(a);
			sofl_gro_flush(b);
		}
		na = sofl_gro_outputs(a, &oa);
		nb = sofl_gro_outputs(b, &ob);
		if (na != nb) {
			fprintf(stderr, "run %d, inputs %d..%d: %d outputs fast, %d general\n", run,
				start, i, na, nb);
			fail();
		}
		for (k = 0; k < na; k++)
			check_same_out(&oa[k], &ob[k], run, k);
		sofl_gro_release(a);
		sofl_gro_release(b);
		start = i + 1;
	}
	sofl_gro_get_stats(a, &sa, sizeof(sa));
	sofl_gro_get_stats(b, &sb, sizeof(sb));
	if (memcmp(&sa, &sb, sizeof(sa)) != 0) {
		fprintf(stderr, "run %d: counters differ (csum_sw_l4 %llu/%llu, super %llu/%llu)\n",
			run, (unsigned long long)sa.csum_sw_l4, (unsigned long long)sb.csum_sw_l4,
			(unsigned long long)sa.super_pkts, (unsigned long long)sb.super_pkts);
		fail();
	}
	sofl_gro_destroy(a);
	sofl_gro_destroy(b);
}

static void
compare_engines(const struct stream *st, const struct sofl_gro_config *ca,
		const struct sofl_gro_config *cb, int fast_b, int run)
{
	compare_inputs(st, NULL, ca, cb, fast_b, run);
}

/* Feeds @st through engines a (fast) and b (general) poll by poll. */
static void
compare_run(const struct stream *st, const struct sofl_gro_config *cfg, int run)
{
	compare_engines(st, cfg, cfg, 0, run);
}

/* Run @run's random stream (test_fast_equals_general's) into @st; @small:
 * some flows' segments carry 1-24 bytes (frames shorter than the LRU
 * table's 86-byte header copy). */
static void
gen_stream(struct stream *st, uint64_t *r, int run, int small)
{
	static const uint32_t flagmodes[4] = { 0, SOFL_GRO_F_CSUM_OK,
		SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK, 8 };
	struct flowgen fl[NFL];
	int hashmode, i, nf;
	uint32_t flagmode;

	*r = seed0 + (uint64_t)run * 0x9e3779b97f4a7c15ull;
	nf = 1 + (int)rnd(r, NFL);
	hashmode = (int)rnd(r, 3);	/* 0 none, 1 per flow, 2 random/colliding */
	flagmode = flagmodes[rnd(r, 4)];
	for (i = 0; i < nf; i++) {
		flow_init(&fl[i], r, i);
		if (small && rnd(r, 2))
			fl[i].mss = (uint16_t)(1 + rnd(r, 24));
	}
	st->n = 0;
	while (st->n < NPK) {
		struct flowgen *f = &fl[rnd(r, 4) ? rnd(r, 2) % nf : rnd(r, (uint32_t)nf)];
		gen_packet(st, f, r, hashmode, flagmode);
	}
}

/* A weave's strands may have headers of other lengths than its first flow's.
 * Flow A (IPv4, timestamps: 66-byte headers) and flow B (IPv6, a 24-byte
 * destination options header, timestamps: 110 bytes) in turn, B's third
 * segment with one byte of its destination options changed at header byte
 * 70: a 32-byte compare made for 32..96-byte headers would not see it (it
 * covers bytes 0-63 and 78-109 of B), the general way flushes B there
 * (extension headers must be identical).  Fast and general must agree,
 * under every train variant. */
static void
test_weave_header_lengths(void **state)
{
	static struct stream st;
	struct sofl_gro_config cfg;
	struct t_spec s;
	uint8_t ts[12];
	int k, lvl;
	(void)state;

	for (k = 0; k < 8; k++) {
		int b = k & 1, seg = k / 2;

		t_spec_init(&s, b ? 6 : 4, 6);
		if (b) {
			s.ext[0].type = 60;
			s.ext[0].len = 24;
			s.ext[0].fill = 0x11;
			s.n_ext = 1;
		}
		t_opt_ts_set(ts, 500u + (uint32_t)b, 9);
		s.tcp_opts = ts;
		s.tcp_opts_len = 12;
		s.sport = (uint16_t)(1000 + b);
		s.seq = 0x1000u + (uint32_t)seg * 1000;
		s.ip_id = (uint16_t)(7 + seg);
		s.pay_len = 1000;
		s.pay_off = s.seq;
		st.in[k].data = st.buf[k];
		st.in[k].len = (uint32_t)t_build(st.buf[k], FRAME, &s);
		st.in[k].flags = SOFL_GRO_F_HASH | SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK;
		st.in[k].hash = 0x51000u + (uint32_t)b * 0x777u;
		st.in[k].cookie = (uint64_t)k;
		st.brk[k] = 0;
	}
	assert_int_equal(st.in[1].len - 1000, 110);	/* B's headers */
	st.buf[5][70] ^= 0x01;	/* B, third segment: destination options data */
	st.n = 8;
	sofl_gro_config_init(&cfg);
	for (lvl = 0; lvl < 3; lvl++)
		compare_run(&st, &cfg, lvl);	/* (run % 3: the train variant) */
}

/* New flows held in a row with checksums to verify (fast_holds, where
 * the CPU has AVX-512): four blocks of 12 flows whose rx hashes all fall in
 * one of the Linux table's buckets, each block's first segments in a row
 * (from the ninth flow on every hold first evicts — completes — the
 * bucket's oldest), then the second segments of the block's last four
 * flows, which are held and must merge, not be held again; a few frames
 * with a bad TCP or IPv4 header checksum.  One poll of 64.  Fast and
 * general must agree, under every train variant, and the stream must
 * contain what it is for. */
static void
test_holds_evict(void **state)
{
	static struct stream st;
	struct sofl_gro_config cfg;
	struct sofl_gro_stats gs;
	struct sofl_gro *g;
	struct t_spec s;
	uint8_t ts[12];
	int k, lvl;
	(void)state;

	for (k = 0; k < 64; k++) {
		int blk = k / 16, j = k % 16;
		int fl = blk * 12 + (j < 12 ? j : 8 + (j - 12)), seg = j >= 12;

		t_spec_init(&s, 4, 6);
		t_opt_ts_set(ts, 100u + (uint32_t)fl, 5);
		s.tcp_opts = ts;
		s.tcp_opts_len = 12;
		s.sport = (uint16_t)(2000 + fl);
		s.seq = 0x5000u * (uint32_t)fl + (uint32_t)seg * 1448;
		s.ip_id = (uint16_t)(fl * 16 + seg);
		s.pay_len = 1448;
		s.pay_off = s.seq;
		st.in[k].data = st.buf[k];
		st.in[k].len = (uint32_t)t_build(st.buf[k], FRAME, &s);
		if (k % 13 == 4)
			st.buf[k][st.in[k].len - 1] ^= 0x20;	/* bad TCP checksum */
		else if (k % 17 == 9)
			st.buf[k][14 + 10] ^= 0x01;		/* bad IPv4 header checksum */
		st.in[k].flags = SOFL_GRO_F_HASH;
		st.in[k].hash = (uint32_t)fl << 3;		/* bucket 0, tag fl % 8 */
		st.in[k].cookie = (uint64_t)k;
		st.brk[k] = 0;
	}
	st.n = 64;
	sofl_gro_config_init(&cfg);
	for (lvl = 0; lvl < 3; lvl++)
		compare_run(&st, &cfg, lvl);	/* (run % 3: the train variant) */
	assert_int_equal(sofl_gro_create(&cfg, &g), 0);
	assert_int_equal(sofl_gro_receive(g, st.in, 64, 0), 64);
	sofl_gro_poll_end(g, 0);
	sofl_gro_release(g);
	sofl_gro_get_stats(g, &gs, sizeof(gs));
	assert_true(gs.flush[SOFL_GRO_FLUSH_EVICT] >= 30 && gs.super_pkts >= 10);
	assert_true(gs.bypass[SOFL_GRO_BYPASS_L4_CSUM] > 0 && gs.bypass[SOFL_GRO_BYPASS_IP_CSUM] > 0);
	sofl_gro_destroy(g);
}

static void
test_fast_equals_general(void **state)
{
	static struct stream st;
	struct sofl_gro_config cfg;
	uint64_t r;
	int run;
	uint64_t merged = 0;

	(void)state;
	for (run = 0; run < runs; run++) {
		gen_stream(&st, &r, run, 0);
		sofl_gro_config_init(&cfg);
		cfg.table = rnd(&r, 3) ? SOFL_GRO_TABLE_LINUX : SOFL_GRO_TABLE_LRU;
		/* 8192 flows: a table past the engine's prefetch threshold */
		cfg.max_flows = rnd(&r, 2) ? 4 : rnd(&r, 2) ? 64 : 8192;
		cfg.max_size = rnd(&r, 3) ? 65535 : 2000 + rnd(&r, 20000);
		cfg.csum_full = (int)rnd(&r, 2);
		cfg.partial_ok = (int)rnd(&r, 2);
		cfg.udp = (int)rnd(&r, 2);
		cfg.flush_timeout_us = rnd(&r, 3) ? 0 : 1 + rnd(&r, 20);
		cfg.max_segs = rnd(&r, 3) ? 0 : 1 + (uint32_t)rnd(&r, 8);	/* trains cut short */
		compare_run(&st, &cfg, run);
		{
			struct sofl_gro *g;
			struct sofl_gro_stats s;
			assert_int_equal(sofl_gro_create(&cfg, &g), 0);
			sofl_gro_receive(g, st.in, 64, 0);
			sofl_gro_flush(g);
			sofl_gro_get_stats(g, &s, sizeof(s));
			merged += s.segs_merged;
			sofl_gro_destroy(g);
		}
	}
	/* the streams must mostly merge, or the fast path was never exercised */
	assert_true(merged > (uint64_t)runs * 64 / 4);
}

/* Parsed inputs (gro.h): the streams of test_fast_equals_general, each
 * input given with its parse (SOFL_GRO_F_PKT, or SOFL_GRO_F_MALFORMED
 * where sofl_pkt_parse() rejects it: the truncated frames), into one
 * engine, and without into another (fast paths on, or off: the general
 * way), under random tables, flow rules, checksum flags, rx hashes and
 * limits: identical outputs and counters. */
static void
test_parsed_equals_unparsed(void **state)
{
	static struct stream st;
	static struct sofl_gro_in pin[NPK];
	static struct sofl_pkt pk[NPK];
	struct sofl_gro_config cfg;
	struct sofl_gro_rule rule;
	uint64_t r;
	int run, i, nbad = 0;

	(void)state;
	for (run = 0; run < runs; run++) {
		gen_stream(&st, &r, run, run & 1);
		for (i = 0; i < st.n; i++) {
			pin[i] = st.in[i];
			if (sofl_pkt_parse(&pk[i], st.in[i].data, st.in[i].len, SOFL_LINK_ETH) < 0) {
				pin[i].flags |= SOFL_GRO_F_MALFORMED;
				nbad++;
			} else {
				pin[i].flags |= SOFL_GRO_F_PKT;
				pin[i].pkt = &pk[i];
			}
		}
		sofl_gro_config_init(&cfg);
		cfg.table = rnd(&r, 3) ? SOFL_GRO_TABLE_LINUX : SOFL_GRO_TABLE_LRU;
		cfg.max_flows = rnd(&r, 2) ? 4 : rnd(&r, 2) ? 64 : 8192;
		cfg.max_size = rnd(&r, 3) ? 65535 : 2000 + rnd(&r, 20000);
		cfg.csum_full = (int)rnd(&r, 2);
		cfg.partial_ok = (int)rnd(&r, 2);
		cfg.udp = (int)rnd(&r, 2);
		cfg.flush_timeout_us = rnd(&r, 3) ? 0 : 1 + rnd(&r, 20);
		cfg.max_segs = rnd(&r, 3) ? 0 : 1 + (uint32_t)rnd(&r, 8);
		cfg.policy = rnd(&r, 4) ? SOFL_GRO_POLICY_LINUX : SOFL_GRO_POLICY_RELAXED;
		if (rnd(&r, 4) == 0) {	/* flow rules: decided by the parse's key */
			memset(&rule, 0, sizeof(rule));
			rule.proto = 6;
			rule.dport = rnd(&r, 2) ? 0 : 80;
			cfg.rules = &rule;
			cfg.n_rules = 1;
		}
		compare_inputs(&st, pin, &cfg, &cfg, (int)(run & 2), run);
	}
	assert_true(nbad > 0);	/* the streams hold frames the parser rejects */
}

/* A parse given is the one decided by (gro.h, Parsed inputs): parses that
 * differ from the frame's in a way the engine's own parse would not give
 * it, yet lie within the frame, change the decision — a flow rule matched
 * by the parse's address, a PSH flag (a new flow's fast hold would read
 * the frame's), a non-IP verdict (the fast bypass run would read the IPv4
 * header), a rejected frame; a parse of another buffer, one reaching past
 * the frame or a NULL one is not used (the engine parses: the frame's own
 * verdict). */
static int
one_out(const struct sofl_gro_config *cfg, const struct sofl_gro_in *in, int *bypass)
{
	struct sofl_gro *g;
	const struct sofl_gro_out *o;
	int why;

	assert_int_equal(sofl_gro_create(cfg, &g), 0);
	assert_int_equal(sofl_gro_receive(g, in, 1, 0), 1);
	sofl_gro_poll_end(g, 0);
	assert_int_equal(sofl_gro_outputs(g, &o), 1);
	assert_int_equal(o->segs, 1);
	assert_int_equal(o->len, in->len);
	*bypass = o->bypass;
	why = WHY(o);
	sofl_gro_release(g);
	sofl_gro_destroy(g);
	return why;
}

static void
test_parse_is_used(void **state)
{
	static uint8_t f[2][FRAME];
	struct sofl_gro_config cfg, ruled;
	struct sofl_gro_rule rule;
	struct sofl_gro_in in;
	struct sofl_pkt p, q;
	struct t_spec s;
	int byp;

	(void)state;
	t_spec_init(&s, 4, 6);
	s.pay_len = 100;
	memset(&in, 0, sizeof(in));
	in.data = f[0];
	in.len = (uint32_t)t_build(f[0], sizeof(f[0]), &s);
	memcpy(f[1], f[0], in.len);
	assert_int_equal(sofl_pkt_parse(&p, f[0], in.len, SOFL_LINK_ETH), 0);
	sofl_gro_config_init(&cfg);
	ruled = cfg;
	memset(&rule, 0, sizeof(rule));
	rule.family = 4;
	rule.prefix = 32;
	memcpy(rule.dst, (const uint8_t[]){ 198, 18, 0, 9 }, 4);	/* not the frame's */
	ruled.rules = &rule;
	ruled.n_rules = 1;

	/* no parse, a true parse: the frame's address matches no rule */
	assert_int_equal(one_out(&ruled, &in, &byp), SOFL_GRO_BYPASS_RULE);
	assert_int_equal(byp, 1);
	in.flags = SOFL_GRO_F_PKT;
	in.pkt = &p;
	assert_int_equal(one_out(&ruled, &in, &byp), SOFL_GRO_BYPASS_RULE);
	/* the parse's destination is the rule's: held, completed at poll end */
	q = p;
	memcpy(q.key.dst, rule.dst, 4);
	in.pkt = &q;
	assert_int_equal(one_out(&ruled, &in, &byp), SOFL_GRO_FLUSH_POLL);
	assert_int_equal(byp, 0);
	/* not used: a parse of another buffer, one past the frame's end, none */
	in.data = f[1];
	assert_int_equal(one_out(&ruled, &in, &byp), SOFL_GRO_BYPASS_RULE);
	in.data = f[0];
	q.ip_end += 4;
	q.pay_len += 4;
	assert_int_equal(one_out(&ruled, &in, &byp), SOFL_GRO_BYPASS_RULE);
	in.pkt = NULL;
	assert_int_equal(one_out(&ruled, &in, &byp), SOFL_GRO_BYPASS_RULE);
	/* without the flag .pkt is not read */
	in.flags = 0;
	in.pkt = (const struct sofl_pkt *)(uintptr_t)1;
	assert_int_equal(one_out(&ruled, &in, &byp), SOFL_GRO_BYPASS_RULE);

	/* no rules (the fast hold and bypass run apply): the frame alone is a
	 * new flow, held; with a parse saying PSH it is delivered at once */
	in.flags = 0;
	assert_int_equal(one_out(&cfg, &in, &byp), SOFL_GRO_FLUSH_POLL);
	assert_int_equal(byp, 0);
	q = p;
	q.tcp_flags |= SOFL_TCP_PSH;
	in.flags = SOFL_GRO_F_PKT;
	in.pkt = &q;
	assert_int_equal(one_out(&cfg, &in, &byp), SOFL_GRO_BYPASS_FLAGS);
	assert_int_equal(byp, 1);
	in.flags = SOFL_GRO_F_PKT | SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK | SOFL_GRO_F_HASH;
	assert_int_equal(one_out(&cfg, &in, &byp), SOFL_GRO_BYPASS_FLAGS);
	/* a frame flagged rejected is not parsed: MALFORMED */
	in.flags = SOFL_GRO_F_MALFORMED;
	assert_int_equal(one_out(&cfg, &in, &byp), SOFL_GRO_BYPASS_MALFORMED);
	assert_int_equal(byp, 1);

	/* an ICMP packet: the bypass run says PROTO from the frame; a parse
	 * that says it is not IP gives NOT_IP */
	t_spec_init(&s, 4, 1);
	s.pay_len = 64;
	in.len = (uint32_t)t_build(f[0], sizeof(f[0]), &s);
	in.flags = 0;
	assert_int_equal(one_out(&cfg, &in, &byp), SOFL_GRO_BYPASS_PROTO);
	assert_int_equal(sofl_pkt_parse(&p, f[0], in.len, SOFL_LINK_ETH), 0);
	in.flags = SOFL_GRO_F_PKT;
	in.pkt = &p;
	assert_int_equal(one_out(&cfg, &in, &byp), SOFL_GRO_BYPASS_PROTO);
	p.ipv = 0;
	p.layers = SOFL_LAYER_L2;
	assert_int_equal(one_out(&cfg, &in, &byp), SOFL_GRO_BYPASS_NOT_IP);
}

/* A parse that lies (gro.h, Parsed inputs: trusted, never read beyond):
 * the random streams, each frame in a heap buffer of its exact size (a
 * sanitizer build sees any read past it), each input given a true parse
 * with one field changed — an offset or length by a little or at random,
 * the IP version, protocol, layers, flags, sequence number, length or the
 * frame pointer.  Whatever the engine decides, every input comes out
 * exactly once, an output copied reads only what it points to, and a
 * packet delivered alone is its input unchanged. */
static void
test_lying_parse_inside(void **state)
{
	static const struct { size_t off, size; } fld[] = {
#define F(x) { offsetof(struct sofl_pkt, x), sizeof(((struct sofl_pkt *)0)->x) }
		F(len), F(layers), F(ipv), F(l4_proto), F(l3_off), F(l3_len), F(ip_end),
		F(is_frag), F(l4_off), F(l4_len), F(pay_off), F(pay_len), F(tcp_flags),
		F(opt_ts), F(tcp_seq), F(ip_hl_opts), F(link),
#undef F
	};
	static struct stream st;
	static struct sofl_gro_in in[NPK];
	static struct sofl_pkt pk[NPK];
	static uint8_t buf[70000];
	uint8_t *copy[NPK];
	struct sofl_gro_config cfg;
	struct sofl_gro *g;
	const struct sofl_gro_out *o;
	uint64_t r;
	int run, i, k, n, start, seen[NPK];
	uint32_t j;

	(void)state;
	for (run = 0; run < runs / 2; run++) {
		gen_stream(&st, &r, run, run & 1);
		for (i = 0; i < st.n; i++) {
			uint64_t v = t_rand(&r);
			unsigned f = (unsigned)rnd(&r, sizeof(fld) / sizeof(fld[0]) + 1);

			copy[i] = malloc(st.in[i].len ? st.in[i].len : 1);
			assert_non_null(copy[i]);
			memcpy(copy[i], st.in[i].data, st.in[i].len);
			in[i] = st.in[i];
			in[i].data = copy[i];
			(void)sofl_pkt_parse(&pk[i], copy[i], in[i].len, SOFL_LINK_ETH);
			in[i].flags |= SOFL_GRO_F_PKT;
			in[i].pkt = &pk[i];
			if (f == sizeof(fld) / sizeof(fld[0])) {
				pk[i].data += 1 + rnd(&r, 64);	/* another buffer */
			} else if (rnd(&r, 2)) {	/* a little off */
				uint64_t x = 0;
				memcpy(&x, (uint8_t *)&pk[i] + fld[f].off, fld[f].size);
				x += rnd(&r, 2) ? 1 + rnd(&r, 8) : (uint64_t)-(int64_t)(1 + rnd(&r, 8));
				memcpy((uint8_t *)&pk[i] + fld[f].off, &x, fld[f].size);
			} else {	/* (little-endian or not: random bytes) */
				memcpy((uint8_t *)&pk[i] + fld[f].off, &v, fld[f].size);
			}
		}
		sofl_gro_config_init(&cfg);
		cfg.table = rnd(&r, 2) ? SOFL_GRO_TABLE_LINUX : SOFL_GRO_TABLE_LRU;
		cfg.max_flows = rnd(&r, 2) ? 4 : 8192;
		cfg.csum_full = (int)rnd(&r, 2);
		cfg.udp = (int)rnd(&r, 2);
		cfg.policy = rnd(&r, 2) ? SOFL_GRO_POLICY_LINUX : SOFL_GRO_POLICY_RELAXED;
		assert_int_equal(sofl_gro_create(&cfg, &g), 0);
		memset(seen, 0, sizeof(seen));
		for (start = 0; start < st.n; start += 64) {
			int m = st.n - start < 64 ? st.n - start : 64;

			assert_int_equal(sofl_gro_receive(g, in + start, (size_t)m, 0), m);
			sofl_gro_poll_end(g, 0);
			n = sofl_gro_outputs(g, &o);
			for (k = 0; k < n; k++) {
				assert_int_equal(sofl_gro_out_copy(&o[k], buf, sizeof(buf)), (int)o[k].len);
				for (j = 0; j < o[k].segs; j++) {
					assert_true(o[k].cookies[j] < (uint64_t)st.n);
					assert_int_equal(seen[o[k].cookies[j]]++, 0);
				}
				if (o[k].segs == 1) {
					const struct sofl_gro_in *x = &in[o[k].cookies[0]];
					assert_int_equal(o[k].len, x->len);
					assert_memory_equal(buf, x->data, x->len);
				}
			}
			sofl_gro_release(g);
		}
		assert_int_equal(sofl_gro_held(g), 0);
		for (i = 0; i < st.n; i++) {
			assert_int_equal(seen[i], 1);
			free(copy[i]);
		}
		sofl_gro_destroy(g);
	}
}

/* The LRU table's header copy changes nothing: the same streams through an
 * LRU table of 5462 flows (past PF_BYTES: held headers compared and completed
 * from the copy in the entry) and one of 5461 (from the frame) — neither
 * evicts here — with some flows' frames shorter than the copy (their own
 * headers copied), under both policies, fast paths on or off, UDP GRO,
 * checksum flags, rx hashes, max_size, csum_full/partial_ok and flush
 * timeouts: identical outputs and counters. */
static void
test_copy_equals_frame(void **state)
{
	static struct stream st;
	struct sofl_gro_config ca, cb;
	uint64_t r;
	int run, fast, k;

	(void)state;
	for (run = 0; run < runs / 2; run++) {
		gen_stream(&st, &r, run + 7777, 1);
		sofl_gro_config_init(&ca);
		ca.table = SOFL_GRO_TABLE_LRU;
		ca.policy = rnd(&r, 3) ? SOFL_GRO_POLICY_LINUX : SOFL_GRO_POLICY_RELAXED;
		ca.max_size = rnd(&r, 3) ? 65535 : 2000 + rnd(&r, 20000);
		ca.csum_full = (int)rnd(&r, 2);
		ca.partial_ok = (int)rnd(&r, 2);
		ca.udp = (int)rnd(&r, 2);
		ca.flush_timeout_us = rnd(&r, 3) ? 0 : 1 + rnd(&r, 20);
		ca.max_segs = rnd(&r, 3) ? 0 : 1 + (uint32_t)rnd(&r, 8);
		fast = (int)rnd(&r, 2);
		cb = ca;
		ca.max_flows = 5462;	/* 5462 * 192 bytes > 1 MiB */
		cb.max_flows = 5461;
		/* each frame in a buffer of its own size: under the sanitizers
		 * a copy reading past a short frame faults */
		for (k = 0; k < st.n; k++) {
			uint8_t *p = malloc(st.in[k].len ? st.in[k].len : 1);

			assert_non_null(p);
			memcpy(p, st.in[k].data, st.in[k].len);
			st.in[k].data = p;
		}
		compare_engines(&st, &ca, &cb, fast, run);
		for (k = 0; k < st.n; k++) {
			free((void *)(uintptr_t)st.in[k].data);
			st.in[k].data = st.buf[k];
		}
	}
}

/* Software checksums decide, not only agree: bursts of full-size segments
 * (1448 bytes, as the workloads of bench_gro) not flagged verified, a new
 * flow per frame (fast_hold), one flow's segments in a row (a train) or four
 * flows in turn (a weave), IPv4 and IPv6, each frame at its own offset from
 * a 64-byte boundary (the vector kernels' aligned and unaligned paths, odd
 * starts), under every checksum implementation, fast path on and off.  A few frames carry a bad TCP
 * checksum (a bit flipped in the first, a middle or the last byte of the
 * segment) or, IPv4, a bad header checksum: exactly those go out alone with
 * L4_CSUM / IP_CSUM, every other one is held or merged, and csum_sw_l4 /
 * csum_sw_ip count each input once (the TCP checksum of every input whose
 * IPv4 header verified).  Skipping or misjudging a verification, or counting
 * one twice, fails here even where both engines would agree. */
#define SWN 32
static void
sw_burst(uint8_t (*buf)[FRAME + 64], struct sofl_gro_in *in, int ipv, int train, uint64_t *r,
	 int *bad4, int *bad_ip)
{
	struct t_spec s;
	uint8_t ts[12];
	int k;

	for (k = 0; k < SWN; k++) {
		uint32_t off = rnd(r, 64);
		uint8_t *b = buf[k] + off;
		size_t len, l3 = 14, l4 = l3 + (ipv == 4 ? 20 : 40);

		t_spec_init(&s, ipv, 6);
		t_opt_ts_set(ts, 1000u + (uint32_t)k, 77);
		s.tcp_opts = ts;
		s.tcp_opts_len = 12;
		/* train 2: four flows in turn (a weave), segment k / 4 of flow k % 4 */
		s.sport = (uint16_t)(train == 1 ? 40000 : train ? 40000 + k % 4 : 40000 + k);
		s.seq = train == 1 ? 0x10000000u + (uint32_t)k * 1448 :
			train ? 0x10000000u * (uint32_t)(k % 4) + (uint32_t)(k / 4) * 1448 :
				0x10000000u * (uint32_t)k;
		s.ip_id = (uint16_t)(train == 1 ? 0x100 + k : train ? 0x100 * (k % 4) + k / 4 : 0x100 * k);
		s.pay_len = 1448;
		s.pay_off = s.seq;
		s.pay_seed = (uint8_t)k;
		if (train)	/* one TS value per flow: TS changes flush */
			t_opt_ts_set(ts, 1000u + (train == 2 ? (uint32_t)k % 4 : 0), 77);
		len = t_build(b, FRAME, &s);
		bad4[k] = bad_ip[k] = 0;
		if (k % 7 == 3) {	/* first, a middle or the last byte of the segment */
			static const int where[3] = { 0, 700, -1 };
			int w = where[(k / 7) % 3];
			b[w < 0 ? len - 1 : l4 + 32 + (size_t)w] ^= (uint8_t)(1u << (k & 7));
			bad4[k] = 1;
		} else if (ipv == 4 && k % 11 == 5) {
			b[l3 + 10] ^= 0x10;	/* IPv4 header checksum */
			bad_ip[k] = 1;
		}
		in[k].data = b;
		in[k].len = (uint32_t)len;
		in[k].flags = SOFL_GRO_F_HASH;
		in[k].hash = train == 1 ? 0x1234567u : train ? 0x1234567u + (uint32_t)(k % 4) * 0x9e37u :
			     0x1000u + (uint32_t)k * 0x9e37u;
		in[k].cookie = (uint64_t)k;
	}
}

static void
test_sw_csum_decides(void **state)
{
	static uint8_t buf[SWN][FRAME + 64] __attribute__((aligned(64)));
	struct sofl_gro_in in[SWN];
	struct sofl_gro_config cfg;
	struct sofl_gro_stats st;
	const struct sofl_gro_out *o;
	int bad4[SWN], bad_ip[SWN], im, ipv, train, fast, tab, rep;
	uint64_t r = 0x5eed;
	(void)state;

	for (im = 0; im <= SOFL_CSUM_AVX512; im++) {
		if (!sofl_csum_impl_available((enum sofl_csum_impl)im))
			continue;
		assert_int_equal(sofl_csum_set_impl((enum sofl_csum_impl)im), 0);
		for (rep = 0; rep < 6; rep++)
		for (ipv = 4; ipv <= 6; ipv += 2)
		for (train = 0; train < 3; train++)
		for (tab = 0; tab < 2; tab++)
		for (fast = 0; fast < 2; fast++) {
			struct sofl_gro *g;
			int n, i, k, segs = 0, nbad4 = 0, nbad_ip = 0, seen[SWN] = { 0 };
			int ip4 = ipv == 4;

			sw_burst(buf, in, ipv, train, &r, bad4, bad_ip);
			for (k = 0; k < SWN; k++) {
				nbad4 += bad4[k];
				nbad_ip += bad_ip[k];
			}
			sofl_gro_config_init(&cfg);
			cfg.table = tab ? SOFL_GRO_TABLE_LRU : SOFL_GRO_TABLE_LINUX;
			cfg.max_flows = 64;
			assert_int_equal(sofl_gro_create(&cfg, &g), 0);
			sofl_gro_set_fast(g, fast);
			assert_int_equal(sofl_gro_receive(g, in, SWN, 0), SWN);
			sofl_gro_poll_end(g, 0);
			n = sofl_gro_outputs(g, &o);
			for (i = 0; i < n; i++) {
				uint32_t c;

				segs += (int)o[i].segs;
				for (c = 0; c < o[i].segs; c++) {
					k = (int)o[i].cookies[c];
					assert_true(k >= 0 && k < SWN && !seen[k]);
					seen[k] = 1;
					if (bad4[k] || bad_ip[k]) {
						if (!o[i].bypass || o[i].segs != 1 ||
						    o[i].bypass_reason != (bad4[k] ? SOFL_GRO_BYPASS_L4_CSUM
									    : SOFL_GRO_BYPASS_IP_CSUM)) {
							fprintf(stderr, "impl %s ipv %d train %d fast %d: "
								"input %d (bad) out bypass %u reason %u\n",
								sofl_csum_impl_name(), ipv, train, fast, k,
								o[i].bypass, WHY(&o[i]));
							fail();
						}
					} else if (o[i].bypass) {
						fprintf(stderr, "impl %s ipv %d train %d fast %d: input %d "
							"(good) bypassed, reason %u\n", sofl_csum_impl_name(),
							ipv, train, fast, k, WHY(&o[i]));
						fail();
					}
				}
			}
			assert_int_equal(segs, SWN);
			/* a train: the good segments between bad ones merge */
			if (train)
				assert_true(n <= 2 * (nbad4 + nbad_ip) + (train == 2 ? 4 : 1));
			else
				assert_int_equal(n, SWN);
			sofl_gro_get_stats(g, &st, sizeof(st));
			assert_int_equal(st.bypass[SOFL_GRO_BYPASS_L4_CSUM], nbad4);
			assert_int_equal(st.bypass[SOFL_GRO_BYPASS_IP_CSUM], nbad_ip);
			assert_int_equal(st.csum_sw_ip, ip4 ? SWN : 0);
			assert_int_equal(st.csum_sw_l4, SWN - nbad_ip);
			sofl_gro_release(g);
			sofl_gro_destroy(g);
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fast_equals_general),
		cmocka_unit_test(test_copy_equals_frame),
		cmocka_unit_test(test_sw_csum_decides),
		cmocka_unit_test(test_weave_header_lengths),
		cmocka_unit_test(test_holds_evict),
		cmocka_unit_test(test_parsed_equals_unparsed),
		cmocka_unit_test(test_parse_is_used),
		cmocka_unit_test(test_lying_parse_inside),
	};
	const char *e;

	if ((e = getenv("SOFL_SEED")))
		seed0 = strtoull(e, NULL, 0);
	if ((e = getenv("SOFL_RUNS")))
		runs = atoi(e);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
