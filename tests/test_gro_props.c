/* Description: GRO property tests: random interleavings of many TCP flows
 * (IPv4/IPv6, VLAN, IPv6 destination options, rx hashes distinct or
 * colliding), random segment sizes, flags, sequence gaps and
 * retransmits, header changes, random poll sizes, tables, policies, checksum
 * modes and flush timeouts.  Every run checks conservation (each input in
 * exactly one output, payload bytes once), per-flow order, payload
 * continuity and checksums of every super-packet; a second family feeds
 * malformed and bypassed packets and checks conservation and byte-identical
 * pass-through.  Seed from $SOFL_SEED (default fixed), runs from $SOFL_RUNS. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "test_gro_util.h"

#define MAXF 24

struct fstate {
	int ipv, vlan, ext;	/* ext: IPv6 destination options bytes (0, 8, 16) */
	uint16_t sport;
	uint32_t isn, next, ack, tsval;
	uint16_t mss, id, win;
	uint8_t ttl, tos, fixed_id;
	int segs;
};

static uint64_t seed0 = 0x5eed0fa11ull;
static int runs = 300;

static uint32_t
rnd(uint64_t *r, uint32_t n)
{
	return (uint32_t)(t_rand(r) % n);
}

static void
flow_init(struct fstate *f, uint64_t *r, int i)
{
	memset(f, 0, sizeof(*f));
	f->ipv = rnd(r, 2) ? 4 : 6;
	f->vlan = rnd(r, 8) == 0;
	f->ext = f->ipv == 6 && rnd(r, 4) == 0 ? 8 * (1 + (int)rnd(r, 2)) : 0;
	f->sport = (uint16_t)(10000 + i);
	f->isn = (uint32_t)t_rand(r);
	f->next = f->isn;
	f->ack = (uint32_t)t_rand(r);
	f->tsval = (uint32_t)t_rand(r);
	f->mss = (uint16_t)(1 + rnd(r, 1448));
	if (rnd(r, 4) == 0)
		f->mss = (uint16_t)(1 + rnd(r, 64));
	f->id = (uint16_t)t_rand(r);
	f->win = 65535;
	f->ttl = 64;
	f->fixed_id = rnd(r, 3) == 0;
}

/* One TCP segment of flow @f (may change the flow's state). */
static void
gen_segment(struct tg *t, struct fstate *f, uint64_t *r, int fl, int *flow_of)
{
	uint8_t *opt = t->arena + (TG_ARENA - 64 * MAXF) + 64 * (size_t)fl;
	struct t_spec s;
	uint32_t pay = f->mss, seq = f->next, x = rnd(r, 100);
	int k;

	t_spec_init(&s, f->ipv, 6);
	if (f->vlan) {
		s.nvlan = 1;
		s.vlan_tci[0] = 100;
	}
	if (f->ext) {
		s.n_ext = 1;
		s.ext[0].type = 60;
		s.ext[0].len = (uint8_t)f->ext;
		s.ext[0].fill = (uint8_t)fl;	/* per flow: same 5-tuple would differ */
	}
	s.sport = f->sport;
	/* sizes: mostly full, some shorter, longer, empty */
	if (x < 10)
		pay = rnd(r, f->mss) + 1;
	else if (x < 14)
		pay = f->mss + 1 + rnd(r, 100);
	else if (x < 18)
		pay = 0;
	if (pay > 1448)
		pay = 1448;
	/* sequence: in order, gap, retransmit */
	x = rnd(r, 100);
	if (x < 3)
		seq += 1 + rnd(r, 3000);
	else if (x < 6)
		seq -= rnd(r, 3000);
	/* header changes that persist */
	x = rnd(r, 200);
	if (x < 3)
		f->ttl--;
	else if (x < 5)
		f->tos ^= 0x02;
	else if (x < 10)
		f->ack += 1 + rnd(r, 5000);
	else if (x < 13)
		f->win = (uint16_t)(f->win - 1 - rnd(r, 100));
	else if (x < 18)
		f->tsval += 1 + rnd(r, 3);
	else if (x < 19)
		f->tsval -= 1;
	s.seq = seq;
	s.ack = f->ack;
	s.win = f->win;
	s.ttl = f->ttl;
	s.tos = f->tos;
	s.ip_id = f->fixed_id ? f->id : (uint16_t)(f->id + f->segs);
	if (rnd(r, 50) == 0)
		s.ip_id = (uint16_t)t_rand(r);
	s.df = 1;
	t_opt_ts_set(opt, f->tsval, 7);
	s.tcp_opts = opt;
	s.tcp_opts_len = 12;
	/* flags */
	x = rnd(r, 100);
	if (x < 5)
		s.flags |= SOFL_TCP_PSH;
	else if (x < 6)
		s.flags |= SOFL_TCP_FIN;
	else if (x < 8)
		s.flags |= SOFL_TCP_CWR;
	else if (x < 9)
		s.flags |= SOFL_TCP_ECE;
	else if (x < 10)
		s.flags = SOFL_TCP_SYN | SOFL_TCP_ACK;
	else if (x < 11)
		s.flags |= SOFL_TCP_RST;
	else if (x < 12) {
		s.flags |= SOFL_TCP_URG;
		s.urg = 1;
	}
	s.pay_len = pay;
	s.pay_off = seq - f->isn;
	s.pay_seed = (uint8_t)fl;
	flow_of[t->n] = fl;
	k = tg_add(t, &s);
	(void)k;
	if (seq == f->next)
		f->next += pay;
	f->segs++;
}

static void
random_config(struct sofl_gro_config *c, uint64_t *r, struct tg *t)
{
	sofl_gro_config_init(c);
	c->policy = rnd(r, 3) == 0 ? SOFL_GRO_POLICY_RELAXED : SOFL_GRO_POLICY_LINUX;
	c->csum_full = (int)rnd(r, 2);
	if (rnd(r, 3) == 0) {
		c->table = SOFL_GRO_TABLE_LRU;
		c->max_flows = 1 + rnd(r, 12);
	}
	if (rnd(r, 3) == 0) {
		c->flush_timeout_us = 1 + rnd(r, 3);
		c->max_held = 4 + rnd(r, 64);
		t->poll_ns = 1000;
	}
	if (rnd(r, 4) == 0)
		c->max_size = 2000 + rnd(r, 63535);
	if (rnd(r, 5) == 0)
		c->max_segs = 1 + (uint32_t)rnd(r, 12);	/* outputs cut by the segment cap */
}

static void
test_tcp_streams(void **state)
{
	int run, errs = 0;
	(void)state;

	for (run = 0; run < runs; run++) {
		uint64_t r = seed0 + (uint64_t)run * 0x9e3779b97f4a7c15ull;
		struct fstate fs[MAXF];
		int flow_of[TG_MAXPK], nf = 1 + (int)rnd(&r, MAXF), n = 20 + (int)rnd(&r, 200), i;
		/* rx hash: none, per flow, or colliding (flows share values) */
		int use_hash = (int)rnd(&r, 3), cur = 0;
		uint64_t pay_in = 0;
		struct sofl_gro_config cfg;
		struct tg t;

		tg_init(&t);
		random_config(&cfg, &r, &t);
		for (i = 0; i < nf; i++)
			flow_init(&fs[i], &r, i);
		/* pairs of IPv6 flows on one 5-tuple, told apart only by their
		 * destination-options bytes (#3: different flows) */
		for (i = 0; i + 1 < nf; i += 2)
			if (fs[i].ext && fs[i + 1].ext) {
				fs[i + 1].sport = fs[i].sport;
				fs[i + 1].ext = fs[i].ext;
				fs[i + 1].vlan = fs[i].vlan;
			}
		for (i = 0; i < n; i++) {
			/* trains: mostly stay on the current flow */
			if (rnd(&r, 4) == 0)
				cur = (int)rnd(&r, (uint32_t)nf);
			gen_segment(&t, &fs[cur], &r, cur, flow_of);
			if (use_hash) {
				t.flags[t.n - 1] = SOFL_GRO_F_HASH;
				t.hash[t.n - 1] = use_hash == 1 ? (uint32_t)cur * 0x9e3779b9u :
								  (uint32_t)(cur % 3);
			}
			if (rnd(&r, 16) == 0)
				tg_brk(&t);
		}
		for (i = 0; i < t.n; i++) {
			struct sofl_pkt p;
			if (sofl_pkt_parse(&p, t.pk[i], t.len[i], SOFL_LINK_ETH) == 0)
				pay_in += p.pay_len;
		}
		t.flow_of = flow_of;
		tg_run(&t, &cfg, NULL);
		if (t.pay_out != pay_in) {
			fprintf(stderr, "payload bytes in %llu out %llu\n", (unsigned long long)pay_in,
				(unsigned long long)t.pay_out);
			t.errors++;
		}
		if (t.errors) {
			fprintf(stderr, "run %d (seed %#llx): %d errors; policy %d table %d flows %u "
				"timeout %u csum_full %d\n", run, (unsigned long long)seed0, t.errors,
				cfg.policy, cfg.table, cfg.max_flows, cfg.flush_timeout_us, cfg.csum_full);
			errs++;
		}
		tg_free(&t);
		if (errs > 3)
			break;
	}
	assert_int_equal(errs, 0);
}

/* Malformed and bypassed packets mixed into a flow: every input out once,
 * bypassed ones byte-identical (they are the caller's buffer, unchanged). */
static void
test_malformed_mix(void **state)
{
	int run, errs = 0;
	(void)state;

	for (run = 0; run < runs; run++) {
		uint64_t r = seed0 ^ ((uint64_t)run << 20);
		struct sofl_gro_config cfg;
		struct sofl_gro *g;
		struct sofl_gro_in in[TG_MAXPK];
		const struct sofl_gro_out *o;
		struct tg t;
		struct t_spec s;
		int n = 10 + (int)rnd(&r, 100), i, m, seen[TG_MAXPK] = { 0 };
		uint32_t seq = 1000;

		tg_init(&t);
		for (i = 0; i < n; i++) {
			uint32_t x = rnd(&r, 16), k;
			t_spec_init(&s, rnd(&r, 2) ? 4 : 6, rnd(&r, 4) ? 6 : 17);
			s.seq = seq;
			s.pay_len = 1 + rnd(&r, 300);
			s.pay_off = seq - 1000;
			seq += (uint32_t)s.pay_len;
			if (x == 0)
				s.csum = T_CSUM_ZERO;
			else if (x == 1)
				s.eth_pad = 1 + rnd(&r, 20);
			else if (x == 2 && s.ipv == 4)
				s.frag = 0x2000;
			else if (x == 3)
				s.l3_len_delta = (uint16_t)(1 + rnd(&r, 40));
			else if (x == 4 && s.ipv == 6) {
				s.n_ext = 1;
				s.ext[0].type = 44;
			} else if (x == 5)
				s.link = SOFL_LINK_RAW;	/* wrong link: garbage for an ETH engine */
			k = (uint32_t)tg_add(&t, &s);
			if (x == 6)
				t.len[k] = rnd(&r, t.len[k]);	/* truncated */
			else if (x == 7)
				for (uint32_t b = 0; b < t.len[k]; b++)
					if (rnd(&r, 8) == 0)
						t.pk[k][b] = (uint8_t)t_rand(&r);
		}
		sofl_gro_config_init(&cfg);
		cfg.udp = (int)rnd(&r, 2);
		cfg.csum_full = (int)rnd(&r, 2);
		assert_int_equal(sofl_gro_create(&cfg, &g), 0);
		for (i = 0; i < t.n; i++) {
			in[i].data = t.pk[i];
			in[i].len = t.len[i];
			in[i].flags = rnd(&r, 3) == 0 ? SOFL_GRO_F_CSUM_OK : 0;
			in[i].hash = 0;
			in[i].cookie = (uint64_t)i;
		}
		assert_int_equal(sofl_gro_receive(g, in, (size_t)t.n, 0), t.n);
		sofl_gro_poll_end(g, 0);
		m = sofl_gro_outputs(g, &o);
		for (i = 0; i < m; i++) {
			uint32_t j;
			if (o[i].segs == 1) {
				uint64_t c = o[i].cookies[0];
				/* delivered alone: exactly the input bytes */
				if (o[i].iovcnt != 1 || o[i].iov[0].iov_base != (void *)t.pk[c] ||
				    o[i].len != t.len[c])
					errs++;
			}
			for (j = 0; j < o[i].segs; j++)
				seen[o[i].cookies[j]]++;
		}
		for (i = 0; i < t.n; i++)
			if (seen[i] != 1) {
				fprintf(stderr, "run %d: input %d out %d times\n", run, i, seen[i]);
				errs++;
			}
		sofl_gro_release(g);
		sofl_gro_destroy(g);
		tg_free(&t);
		if (errs)
			break;
	}
	assert_int_equal(errs, 0);
}

/* Maximality: up to 8 clean in-order flows interleaved in one poll (no
 * flags, no header changes) must give, per flow, exactly the super-packets
 * the size limit forces: floor((max_size - 52) / mss) segments each. */
static void
test_maximal(void **state)
{
	int run, errs = 0;
	(void)state;

	for (run = 0; run < runs; run++) {
		uint64_t r = seed0 + 77 + (uint64_t)run;
		struct sofl_gro_config cfg;
		struct tg t;
		struct t_spec s;
		int nf = 1 + (int)rnd(&r, 8), per = 1 + (int)rnd(&r, 200 / nf), i, f;
		uint32_t mss = 1 + rnd(&r, 1448), max_size = 200 + rnd(&r, 65335), fit;
		int want = 0;

		tg_init(&t);
		sofl_gro_config_init(&cfg);
		cfg.max_size = max_size;
		cfg.csum_full = (int)rnd(&r, 2);
		for (i = 0; i < per; i++)
			for (f = 0; f < nf; f++) {
				t_spec_init(&s, 4, 6);
				s.sport = (uint16_t)(2000 + f);
				s.seq = 5000 + (uint32_t)i * mss;
				s.pay_off = (uint32_t)i * mss;
				s.pay_len = mss;
				s.ip_id = (uint16_t)(f * 1000 + i);
				tg_add(&t, &s);
			}
		fit = (max_size - 40) / mss;	/* IPv4 + TCP headers 40 */
		if (fit == 0)
			fit = 1;
		want = nf * (int)((uint32_t)(per + (int)fit - 1) / fit);
		tg_run(&t, &cfg, NULL);
		if (t.errors || t.nout != want) {
			fprintf(stderr, "maximal run %d: %d flows x %d segs mss %u max %u: %d outputs, "
				"want %d (errors %d)\n", run, nf, per, mss, max_size, t.nout, want,
				t.errors);
			errs++;
		}
		tg_free(&t);
		if (errs > 3)
			break;
	}
	assert_int_equal(errs, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tcp_streams),
		cmocka_unit_test(test_maximal),
		cmocka_unit_test(test_malformed_mix),
	};
	const char *e = getenv("SOFL_SEED"), *n = getenv("SOFL_RUNS");

	if (e)
		seed0 = strtoull(e, NULL, 0);
	if (n && atoi(n) > 0)
		runs = atoi(n);
	fprintf(stderr, "seed %#llx, %d runs\n", (unsigned long long)seed0, runs);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
