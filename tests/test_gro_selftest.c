/* Description: every case of Linux tools/testing/selftests/net/gro.c (6.18,
 * reference §5.1) for IPv4 and IPv6 with the delivered payload sizes 6.18
 * gives, plus the reference §8 cases where policy `relaxed` differs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "test_gro_util.h"

#define PL 100		/* PAYLOAD_LEN */

static struct t_spec
seg(int ipv, int pay, uint32_t off)
{
	struct t_spec s;

	t_spec_init(&s, ipv, 6);
	s.ttl = 8;
	s.sport = 1500;
	s.dport = 8000;
	s.seq = 100 + off;
	s.ack = 100;
	s.ip_id = 0;
	s.pay_len = (size_t)pay;
	s.pay_off = off;
	return s;
}

static void
add(struct tg *t, struct t_spec s)
{
	tg_add(t, &s);
}

/* A segment carrying the 12-byte TCP option block @opts. */
static struct t_spec
seg_opts(int ipv, uint32_t off, const uint8_t *opts)
{
	struct t_spec s = seg(ipv, PL, off);

	s.tcp_opts = opts;
	s.tcp_opts_len = 12;
	return s;
}

/* An IPv6 segment with one 8-byte Destination Options header filled with @fill. */
static struct t_spec
seg_dstopts(uint32_t off, uint8_t fill)
{
	struct t_spec s = seg(6, PL, off);

	s.n_ext = 1;
	s.ext[0].type = 60;
	s.ext[0].len = 8;
	s.ext[0].fill = fill;
	return s;
}

static void
fin(struct tg *t, int ipv)
{
	struct t_spec s = seg(ipv, 0, 2 * PL);

	s.flags = SOFL_TCP_ACK | SOFL_TCP_FIN;
	add(t, s);
}

/* Each case on both flow tables: the Linux one (default) and a large LRU
 * one (8192 flows: past the size from which the engine copies a held
 * flow's headers into its entry and compares against the copy, not the
 * frame — a copy missing a byte changes what merges). */
static int
run(struct tg *t, const char *name, int ipv, const int *want, int n, int policy)
{
	struct sofl_gro_config cfg;
	char nm[64];
	int ok;

	fin(t, ipv);
	sofl_gro_config_init(&cfg);
	cfg.csum_full = 1;
	cfg.policy = policy;
	tg_run(t, &cfg, NULL);
	snprintf(nm, sizeof(nm), "%s v%d", name, ipv);
	ok = tg_expect(t, nm, want, n);
	cfg.table = SOFL_GRO_TABLE_LRU;
	cfg.max_flows = 8192;
	tg_run(t, &cfg, NULL);
	snprintf(nm, sizeof(nm), "%s v%d (LRU table)", name, ipv);
	return tg_expect(t, nm, want, n) && ok;
}

#define EXPECT(name, ...) do {							\
	const int w_[] = { __VA_ARGS__ };				\
	assert_true(run(&t, name, ipv, w_, (int)(sizeof(w_) / sizeof(w_[0])),	\
			SOFL_GRO_POLICY_LINUX));				\
	tg_free(&t);								\
} while (0)

static void
data_cases(int ipv)
{
	struct tg t;

	tg_init(&t);
	add(&t, seg(ipv, PL, 0));
	add(&t, seg(ipv, PL, PL));
	EXPECT("data_same", 200);

	tg_init(&t);
	add(&t, seg(ipv, PL, 0));
	add(&t, seg(ipv, PL / 2, PL));
	EXPECT("data_lrg_sml", 150);

	tg_init(&t);
	add(&t, seg(ipv, PL / 2, 0));
	add(&t, seg(ipv, PL, PL / 2));
	EXPECT("data_sml_lrg", 50, 100);
}

static void
ack_cases(int ipv)
{
	struct tg t;
	struct t_spec s;

	tg_init(&t);
	s = seg(ipv, 0, 0);
	add(&t, s);
	add(&t, s);
	s.ack++;
	add(&t, s);
	EXPECT("ack", 0, 0, 0);
}

static void
flag_case(int ipv, uint8_t flag, const char *name)
{
	struct tg t;
	struct t_spec s;

	tg_init(&t);
	add(&t, seg(ipv, PL, 0));
	add(&t, seg(ipv, PL, PL));
	s = seg(ipv, flag == SOFL_TCP_PSH ? PL : 0, 2 * PL);
	s.flags |= flag;
	if (flag == SOFL_TCP_URG)
		s.urg = 1;
	add(&t, s);
	add(&t, seg(ipv, PL, 3 * PL));
	add(&t, seg(ipv, PL, 4 * PL));
	if (flag == SOFL_TCP_PSH) {
		EXPECT(name, 300, 200);
	} else {
		EXPECT(name, 200, 0, 200);
	}
}

static void
flags_cases(int ipv)
{
	struct tg t;
	struct t_spec s;

	flag_case(ipv, SOFL_TCP_PSH, "flags_psh");
	flag_case(ipv, SOFL_TCP_SYN, "flags_syn");
	flag_case(ipv, SOFL_TCP_RST, "flags_rst");
	flag_case(ipv, SOFL_TCP_URG, "flags_urg");

	/* 6.15..6.18: a CWR segment never merges (traced in §5.1) */
	tg_init(&t);
	add(&t, seg(ipv, PL, 0));
	s = seg(ipv, PL, PL);
	s.flags |= SOFL_TCP_CWR;
	add(&t, s);
	s = seg(ipv, PL, 2 * PL);
	s.flags |= SOFL_TCP_CWR;
	add(&t, s);
	add(&t, seg(ipv, PL, 3 * PL));
	add(&t, seg(ipv, PL, 4 * PL));
	EXPECT("flags_cwr", 100, 100, 100, 200);
}

static void
tcp_cases(int ipv)
{
	static const uint8_t order1[12] = { 1, 8, 10, 0, 0, 0, 100, 0, 0, 0, 2, 1 };
	static const uint8_t order2[12] = { 8, 10, 0, 0, 0, 100, 0, 0, 0, 2, 1, 1 };
	static const uint8_t wscale[4] = { 1, 3, 3, 7 };
	uint8_t ts0[12], ts100[12];
	struct tg t;
	struct t_spec s;

	tg_init(&t);
	add(&t, seg(ipv, PL, 0));
	s = seg(ipv, PL, PL);
	add(&t, s);
	t.pk[1][t.len[1] - 1] ^= 0x5a;	/* payload byte: checksum no longer verifies */
	EXPECT("tcp_csum", 100, 100);

	tg_init(&t);
	add(&t, seg(ipv, PL, 0));
	s = seg(ipv, PL, PL + 1);
	add(&t, s);
	EXPECT("tcp_seq", 100, 100);

	t_opt_ts_set(ts0, 0, 2);
	t_opt_ts_set(ts100, 100, 2);
	tg_init(&t);
	add(&t, seg_opts(ipv, 0, ts0));
	add(&t, seg_opts(ipv, PL, ts0));
	add(&t, seg_opts(ipv, 2 * PL, ts100));
	add(&t, seg_opts(ipv, 3 * PL, order1));
	add(&t, seg_opts(ipv, 4 * PL, order2));
	EXPECT("tcp_ts", 200, 100, 100, 100);

	tg_init(&t);
	s = seg_opts(ipv, 0, ts0);
	add(&t, s);
	s.seq += PL;
	s.pay_off += PL;
	add(&t, s);
	s = seg(ipv, PL, 2 * PL);
	s.tcp_opts = wscale;
	s.tcp_opts_len = 4;
	add(&t, s);
	EXPECT("tcp_opt", 200, 100);
}

static void
ip_cases(int ipv)
{
	struct tg t;
	struct t_spec s;

	tg_init(&t);
	add(&t, seg(ipv, PL, 0));
	s = seg(ipv, PL, PL);
	s.tos = 0x02;		/* ECT(0) */
	add(&t, s);
	EXPECT("ip_ecn", 100, 100);

	tg_init(&t);
	add(&t, seg(ipv, PL, 0));
	s = seg(ipv, PL, PL);
	s.tos = ipv == 4 ? 1 : 0xf0;	/* v6: priority 0xf */
	add(&t, s);
	EXPECT("ip_tos", 100, 100);

	/* IPv4 TTL; IPv6 hop limit (checked by ipv6_gro_flush in 6.18) */
	tg_init(&t);
	add(&t, seg(ipv, PL, 0));
	s = seg(ipv, PL, PL);
	s.ttl = 7;
	add(&t, s);
	EXPECT("ip_ttl", 100, 100);
}

static void
ip4_cases(void)
{
	static const uint8_t ts_opt[8] = { 0x44, 8, 5, 0, 0, 0, 0, 0 };	/* IP timestamp, IHL 7 */
	struct tg t;
	struct t_spec s;
	int ipv = 4;

	tg_init(&t);
	add(&t, seg(4, PL, 0));
	s = seg(4, PL, PL);
	s.ip_opts = ts_opt;
	s.ip_opts_len = 8;
	add(&t, s);
	add(&t, seg(4, PL, 2 * PL));
	EXPECT("ip_opt", 100, 100, 100);

	tg_init(&t);
	add(&t, seg(4, PL, 0));
	s = seg(4, PL, PL);
	s.frag = 0x2000;	/* DF + MF */
	add(&t, s);
	EXPECT("ip_frag4", 100, 100);

	struct { const char *name; int df; uint16_t id[3]; int n; int want[2]; int nw; } idc[] = {
		{ "ip_id_df1_inc", 1, { 8, 9 }, 2, { 200 }, 1 },
		{ "ip_id_df1_fixed", 1, { 8, 8 }, 2, { 200 }, 1 },
		{ "ip_id_df0_inc", 0, { 8, 9 }, 2, { 200 }, 1 },
		{ "ip_id_df0_fixed", 0, { 8, 8 }, 2, { 200 }, 1 },	/* 6.18+ */
		{ "ip_id_df1_inc_fixed", 1, { 8, 9, 9 }, 3, { 200, 100 }, 2 },
		{ "ip_id_df1_fixed_inc", 1, { 8, 8, 9 }, 3, { 200, 100 }, 2 },
	};
	for (size_t c = 0; c < sizeof(idc) / sizeof(idc[0]); c++) {
		tg_init(&t);
		for (int i = 0; i < idc[c].n; i++) {
			s = seg(4, PL, (uint32_t)(i * PL));
			s.df = idc[c].df;
			s.ip_id = idc[c].id[i];
			add(&t, s);
		}
		assert_true(run(&t, idc[c].name, 4, idc[c].want, idc[c].nw, SOFL_GRO_POLICY_LINUX));
		tg_free(&t);
	}
}

static void
ip6_cases(void)
{
	struct tg t;
	struct t_spec s;
	int ipv = 6;

	/* the selftest sleeps after the first two packets: two polls */
	tg_init(&t);
	add(&t, seg(6, PL, 0));
	add(&t, seg(6, PL, PL));
	tg_brk(&t);
	s = seg(6, PL, 2 * PL);
	s.n_ext = 1;
	s.ext[0].type = 44;
	add(&t, s);
	add(&t, seg(6, PL, 3 * PL));
	EXPECT("ip_frag6", 200, 100, 100);

	tg_init(&t);
	add(&t, seg_dstopts(0, 0));
	add(&t, seg_dstopts(PL, 0));
	EXPECT("ip_v6ext_same", 200);

	tg_init(&t);
	add(&t, seg_dstopts(0, 0));
	add(&t, seg_dstopts(PL, 0x11));
	EXPECT("ip_v6ext_diff", 100, 100);
}

/* large_max / large_rem: MSS 4036, 16 full segments + a remainder */
static void
large_cases(int ipv)
{
	const int mss = 4096 - 20 - 40;
	int rem = ipv == 6 ? 899 : 919, extra, i;
	struct tg t;

	for (extra = 0; extra <= 1; extra++) {
		tg_init(&t);
		for (i = 0; i < 16; i++)
			add(&t, seg(ipv, mss, (uint32_t)(i * mss)));
		add(&t, seg(ipv, rem + extra, (uint32_t)(16 * mss)));
		add(&t, seg(ipv, rem + extra, (uint32_t)(17 * mss)));
		if (!extra) {
			EXPECT("large_max", 16 * mss + rem, rem);
		} else {
			EXPECT("large_rem", 16 * mss, rem + 1, rem + 1);
		}
	}
}

static void
test_v4(void **state)
{
	(void)state;
	data_cases(4);
	ack_cases(4);
	flags_cases(4);
	tcp_cases(4);
	ip_cases(4);
	ip4_cases();
	large_cases(4);
}

static void
test_v6(void **state)
{
	(void)state;
	data_cases(6);
	ack_cases(6);
	flags_cases(6);
	tcp_cases(6);
	ip_cases(6);
	ip6_cases();
	large_cases(6);
}

/* Reference §8: where `relaxed` (BSD LRO) differs from Linux — ACK number
 * and window may advance, timestamps may advance; everything else equal. */
static void
relaxed_case(int ipv, int what, const int *wl, int nl, const int *wr, int nr)
{
	uint8_t ts[3][12];
	struct tg t;
	struct t_spec s;
	int i;

	tg_init(&t);
	for (i = 0; i < 3; i++) {
		s = seg(ipv, PL, (uint32_t)(i * PL));
		t_opt_ts_set(ts[i], 1000, 2000);
		s.tcp_opts = ts[i];
		s.tcp_opts_len = 12;
		if (what == 0)
			s.ack += (uint32_t)(i * 10);		/* ACK advances */
		else if (what == 1)
			s.win = (uint16_t)(1000 + i);		/* window changes */
		else if (what == 2)
			t_opt_ts_set(ts[i], 1000 + (uint32_t)i, 2000 + (uint32_t)i); /* TS advance */
		else if (what == 3)
			t_opt_ts_set(ts[i], 1000 - (uint32_t)i, 2000);	/* TSval goes back */
		else if (what == 4 && i == 2)
			s.ack -= 5;				/* ACK goes back */
		else if (what == 5 && i == 1)
			s.ttl = 9;				/* TTL: never relaxed */
		tg_add(&t, &s);
	}
	assert_true(run(&t, "relaxed(linux)", ipv, wl, nl, SOFL_GRO_POLICY_LINUX));
	t.n--;				/* drop the FIN run() appended, run again */
	memset(t.brk, 0, sizeof(t.brk));
	t.errors = 0;
	assert_true(run(&t, "relaxed(relaxed)", ipv, wr, nr, SOFL_GRO_POLICY_RELAXED));
	tg_free(&t);
}

static void
test_relaxed(void **state)
{
	static const int split[] = { 100, 100, 100 }, one[] = { 300 }, two[] = { 200, 100 };
	int ipv;
	(void)state;

	for (ipv = 4; ipv <= 6; ipv += 2) {
		relaxed_case(ipv, 0, split, 3, one, 1);
		relaxed_case(ipv, 1, split, 3, one, 1);
		relaxed_case(ipv, 2, split, 3, one, 1);
		relaxed_case(ipv, 3, split, 3, split, 3);
		relaxed_case(ipv, 4, two, 2, two, 2);
		relaxed_case(ipv, 5, split, 3, split, 3);
	}
}

/* relaxed: the super-packet carries the newest ACK, window and timestamps */
static void
test_relaxed_newest(void **state)
{
	struct sofl_gro_config cfg;
	struct sofl_gro *g;
	struct sofl_gro_in in[3];
	const struct sofl_gro_out *o;
	uint8_t f[3][400], out[2000], ts[3][12];
	struct t_spec s;
	struct sofl_pkt p;
	int i;
	(void)state;

	sofl_gro_config_init(&cfg);
	cfg.policy = SOFL_GRO_POLICY_RELAXED;
	assert_int_equal(sofl_gro_create(&cfg, &g), 0);
	for (i = 0; i < 3; i++) {
		s = seg(4, PL, (uint32_t)(i * PL));
		s.ack = 5000 + (uint32_t)i * 7;
		s.win = (uint16_t)(300 - i);
		t_opt_ts_set(ts[i], 70 + (uint32_t)i, 90 + (uint32_t)i);
		s.tcp_opts = ts[i];
		s.tcp_opts_len = 12;
		in[i].len = (uint32_t)t_build(f[i], sizeof(f[i]), &s);
		in[i].data = f[i];
		in[i].flags = 0;
		in[i].cookie = (uint64_t)i;
	}
	assert_int_equal(sofl_gro_receive(g, in, 3, 0), 3);
	sofl_gro_poll_end(g, 0);
	assert_int_equal(sofl_gro_outputs(g, &o), 1);
	assert_int_equal(o[0].segs, 3);
	assert_int_equal(sofl_gro_out_copy(&o[0], out, sizeof(out)), o[0].len);
	assert_int_equal(sofl_pkt_parse(&p, out, o[0].len, SOFL_LINK_ETH), 0);
	assert_int_equal(p.tcp_ack, 5014);
	assert_int_equal(sofl_get16(out + p.l4_off + 14), 298);
	assert_int_equal(sofl_get32(out + p.opt_ts + 2), 72);
	assert_int_equal(sofl_get32(out + p.opt_ts + 6), 92);
	assert_int_equal(p.tcp_seq, 100);
	sofl_gro_release(g);
	sofl_gro_destroy(g);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v4),
		cmocka_unit_test(test_v6),
		cmocka_unit_test(test_relaxed),
		cmocka_unit_test(test_relaxed_newest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
