/* Description: `softoffload gro` end to end: writes captures with libpcap,
 * runs $BUILD/softoffload and checks the output capture (packet count,
 * payload sizes, link type, checksums full/partial), --poll-sizes (list and
 * file), --poll-max, --poll-gap-us, the NAPI weight (--napi-weight, --hz),
 * --stats, --partial-ok, --rule, --flows and usage errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "helpers.h"
#include "cli_util.h"

struct pk {
	uint8_t b[2048];
	uint32_t len;
	uint64_t ts_us;
};

/* flow of @n segments of @pay bytes, 1 us apart, then a pure ACK */
static int
make_flow(struct pk *pk, int n, int pay, int link, int csum, uint64_t gap_after, uint64_t gap)
{
	struct t_spec s;
	int i;

	for (i = 0; i <= n; i++) {
		t_spec_init(&s, 4, 6);
		s.link = link;
		s.seq = 1000 + (uint32_t)(i * pay);
		s.pay_off = (uint32_t)(i * pay);
		s.pay_len = i < n ? (size_t)pay : 0;
		s.ip_id = (uint16_t)(7 + i);
		s.csum = csum;
		pk[i].len = (uint32_t)t_build(pk[i].b, sizeof(pk[i].b), &s);
		pk[i].ts_us = 1000000 + (uint64_t)i + ((uint64_t)i > gap_after ? gap : 0);
	}
	return n + 1;
}

/* in.pcap of the temp dir: the @n packets of @pk, link type @dlt. */
static void
write_pcap(int dlt, const struct pk *pk, int n)
{
	struct t_capw w;
	int i;

	t_capw_open(&w, "in.pcap", dlt, T_CAP_PCAP);
	for (i = 0; i < n; i++)
		t_capw_put(&w, pk[i].b, pk[i].len, pk[i].len, pk[i].ts_us);
	t_capw_close(&w);
}

struct res {
	int n, dlt;
	int pay[64];
	int ipcsum[64], l4[64];	/* enum sofl_csum_state */
	int rc;			/* output: t_cli_out, t_cli_err */
};

static void
run_cli(const char *args, struct res *r)
{
	char outp[PATH_MAX];
	const u_char *data;
	struct pcap_pkthdr *h;
	pcap_t *p;

	memset(r, 0, sizeof(*r));
	unlink(t_cli_file(outp, sizeof(outp), "out.pcap"));
	r->rc = t_cli_run("gro", "in.pcap -o out.pcap %s", args);
	if (r->rc)
		return;
	p = t_cli_open_pcap("out.pcap");
	r->dlt = pcap_datalink(p);
	while (pcap_next_ex(p, &h, &data) == 1 && r->n < 64) {
		struct sofl_pkt q;
		enum sofl_csum_state ip, l4;
		assert_int_equal(h->caplen, h->len);
		assert_int_equal(sofl_pkt_parse(&q, data, h->caplen,
						r->dlt == DLT_EN10MB ? SOFL_LINK_ETH : SOFL_LINK_RAW), 0);
		sofl_csum_pkt_check(&q, &ip, &l4);
		r->pay[r->n] = (int)q.pay_len;
		r->ipcsum[r->n] = ip;
		r->l4[r->n] = l4;
		r->n++;
	}
	pcap_close(p);
}

static void
expect(const struct res *r, const int *want, int n)
{
	int i;

	if (r->rc != 0 || r->n != n)
		fprintf(stderr, "rc %d n %d want %d; output:\n%s%s\n", r->rc, r->n, n,
			t_cli_out, t_cli_err);
	assert_int_equal(r->rc, 0);
	assert_int_equal(r->n, n);
	for (i = 0; i < n; i++) {
		assert_int_equal(r->pay[i], want[i]);
		assert_int_equal(r->ipcsum[i], SOFL_CSUM_VALID);
	}
}

static void
test_full_and_partial(void **state)
{
	static const int want[] = { 10000, 0 };
	struct pk pk[16];
	struct res r;
	(void)state;

	write_pcap(DLT_EN10MB, pk, make_flow(pk, 10, 1000, SOFL_LINK_ETH, T_CSUM_FULL, 99, 0));
	run_cli("", &r);
	expect(&r, want, 2);
	assert_int_equal(r.dlt, DLT_EN10MB);
	assert_int_equal(r.l4[0], SOFL_CSUM_VALID);
	assert_int_equal(r.l4[1], SOFL_CSUM_VALID);

	run_cli("--csum partial", &r);
	expect(&r, want, 2);
	assert_int_equal(r.l4[0], SOFL_CSUM_PARTIAL);	/* Linux's pseudo-header sum */
	assert_int_equal(r.l4[1], SOFL_CSUM_VALID);	/* unchanged single packet */

	/* raw IP keeps its link type */
	write_pcap(DLT_RAW, pk, make_flow(pk, 10, 1000, SOFL_LINK_RAW, T_CSUM_FULL, 99, 0));
	run_cli("--csum full", &r);
	expect(&r, want, 2);
	assert_int_equal(r.dlt, DLT_RAW);
	assert_int_equal(r.l4[0], SOFL_CSUM_VALID);
}

static void
test_polls(void **state)
{
	static const int w334[] = { 3000, 3000, 4000, 0 }, w55[] = { 5000, 5000, 0 };
	static const int w4[] = { 4000, 4000, 2000, 0 };
	struct pk pk[16];
	struct res r;
	char path[PATH_MAX], arg[PATH_MAX + 16];
	(void)state;

	write_pcap(DLT_EN10MB, pk, make_flow(pk, 10, 1000, SOFL_LINK_ETH, T_CSUM_FULL, 99, 0));
	run_cli("--poll-sizes 3,3,4", &r);
	expect(&r, w334, 4);
	run_cli("--poll-max 4", &r);
	expect(&r, w4, 4);

	/* file: comments, blank lines, only the first integer of a line */
	t_cli_write_file("sizes.txt", "# kernel polls\n5 packets in poll 1 (7 ignored)\n\n  5\n");
	snprintf(arg, sizeof(arg), "--poll-sizes %s", t_cli_file(path, sizeof(path), "sizes.txt"));
	run_cli(arg, &r);
	expect(&r, w55, 3);

	/* a listed size beyond --poll-max is honoured; 0 = empty poll */
	run_cli("--poll-sizes 0,1,1,1,1,0 --poll-max 2", &r);
	{
		static const int w[] = { 1000, 1000, 1000, 1000, 2000, 2000, 2000, 0 };
		expect(&r, w, 8);
	}
	run_cli("--poll-sizes 1,1,1,1 --poll-max 64", &r);
	{
		static const int w[] = { 1000, 1000, 1000, 1000, 6000, 0 };
		expect(&r, w, 6);
	}

	/* a 1 s gap after the 5th packet splits the poll with --poll-gap-us */
	write_pcap(DLT_EN10MB, pk, make_flow(pk, 10, 1000, SOFL_LINK_ETH, T_CSUM_FULL, 4,
						    1000000));
	run_cli("--poll-gap-us 1000", &r);
	expect(&r, w55, 3);
	run_cli("", &r);			/* no gap rule by default */
	{
		static const int w[] = { 10000, 0 };
		expect(&r, w, 2);
	}
}

static void
test_stats_and_partial_ok(void **state)
{
	struct pk pk[16];
	struct res r;
	(void)state;

	write_pcap(DLT_EN10MB, pk, make_flow(pk, 10, 1000, SOFL_LINK_ETH, T_CSUM_FULL, 99, 0));
	run_cli("--stats", &r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(t_cli_counter("gro", "packets in"), 11);
	assert_int_equal(t_cli_counter("gro", "packets out"), 2);
	assert_int_equal(t_cli_counter("gro", "super-packets"), 1);
	assert_int_equal(t_cli_counter("gro", "segments merged into super-packets"), 10);
	assert_int_equal(t_cli_counter("gro", "records written"), 2);
	assert_int_equal(t_cli_counter("segments per output", "with 8-15 segments"), 1);
	assert_int_equal(t_cli_counter("segments per output", "with 1 segment"), 1);
	assert_int_equal(t_cli_counter("flush reasons", "no-payload"), 1);
	assert_int_equal(t_cli_counter("bypass reasons", "no-payload"), 1);
	/* --json: one document, on one line */
	run_cli("--json", &r);
	assert_int_equal(r.rc, 0);
	assert_non_null(strstr(t_cli_out, "\"pkts_in\":11,"));
	assert_non_null(strstr(t_cli_out, "\"super_pkts\":1,\"segs_merged\":10,"));
	assert_non_null(strstr(t_cli_out, "\"8-15\":1,"));
	assert_ptr_equal(strchr(t_cli_out, '\n'), t_cli_out + strlen(t_cli_out) - 1);

	/* captured on the sender: pseudo sums fail like in Linux ... */
	write_pcap(DLT_EN10MB, pk, make_flow(pk, 10, 1000, SOFL_LINK_ETH, T_CSUM_PARTIAL, 99, 0));
	run_cli("--stats", &r);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.n, 11);
	assert_int_equal(t_cli_counter("bypass reasons", "l4-csum"), 11);
	/* ... unless --partial-ok or --assume-valid */
	run_cli("--partial-ok", &r);
	{
		static const int w[] = { 10000, 0 };
		expect(&r, w, 2);
		assert_int_equal(r.l4[0], SOFL_CSUM_VALID);
	}
	run_cli("--assume-valid --csum partial", &r);
	{
		static const int w[] = { 10000, 0 };
		expect(&r, w, 2);
		assert_int_equal(r.l4[0], SOFL_CSUM_PARTIAL);
	}
}

/* --rule restricts coalescing to matching flows (the seed's
 * `ethtool -N ... flow-type tcp4 dst-ip X`); --flows selects the LRU table. */
static void
test_rules_and_flows(void **state)
{
	static const int merged[] = { 10000, 0 };
	static const int alone[] = { 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 0 };
	struct pk pk[16];
	struct res r;
	(void)state;

	/* the builder's flow: 198.18.0.1:40000 -> 198.18.0.2:5201, TCP */
	write_pcap(DLT_EN10MB, pk, make_flow(pk, 10, 1000, SOFL_LINK_ETH, T_CSUM_FULL, 99, 0));
	run_cli("--rule tcp4,dst=198.18.0.2", &r);
	expect(&r, merged, 2);
	run_cli("--rule tcp4,dst=198.18.0.0/15,dport=5201", &r);
	expect(&r, merged, 2);
	run_cli("--rule udp4 --rule tcp6", &r);		/* no rule matches */
	expect(&r, alone, 11);
	run_cli("--rule tcp4,dst=198.18.0.3 --stats", &r);
	expect(&r, alone, 11);
	assert_int_equal(t_cli_counter("bypass reasons", "rule"), 11);
	run_cli("--rule tcp4,dport=5202", &r);
	expect(&r, alone, 11);
	run_cli("--flows 65536", &r);
	expect(&r, merged, 2);
	run_cli("--flows 1 --rule any", &r);
	expect(&r, merged, 2);

	assert_int_equal(t_cli_run("gro", "in.pcap -o out.pcap --rule tcp5"), 2);
	assert_int_equal(t_cli_run("gro", "in.pcap -o out.pcap --rule tcp4,dst=2001:2::1"), 2);
	assert_int_equal(t_cli_run("gro", "in.pcap -o out.pcap --rule tcp4,dst=198.18.0.1/33"), 2);
	assert_int_equal(t_cli_run("gro", "in.pcap -o out.pcap --rule tcp4,port=1"), 2);
	assert_int_equal(t_cli_run("gro", "in.pcap -o out.pcap --flows 0"), 2);
}

/* NAPI weight: a poll of 100 packets is two ->poll() calls in Linux, 64 and
 * 36 packets; after the first, which used the whole weight, __napi_poll()
 * calls gro_flush_normal(&n->gro, HZ >= 1000): with HZ 250 (the default,
 * this kernel's CONFIG_HZ) everything held is completed there, with HZ 1000
 * only packets held since an earlier jiffy, none in a replay. */
static void
test_napi_weight(void **state)
{
	static const int w64[] = { 32000, 17500, 0 }, whole[] = { 49500, 0 };
	static const int w10[] = { 5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000, 5000, 4500, 0 };
	static struct pk pk[128];
	struct res r;
	(void)state;

	/* 99 segments of 500 bytes and a pure ACK: 100 packets */
	write_pcap(DLT_EN10MB, pk, make_flow(pk, 99, 500, SOFL_LINK_ETH, T_CSUM_FULL, 999, 0));
	run_cli("--poll-sizes 100", &r);
	expect(&r, w64, 3);
	run_cli("--poll-sizes 100 --napi-weight 64 --hz 250", &r);
	expect(&r, w64, 3);
	run_cli("--poll-max 200", &r);			/* the same poll, by --poll-max */
	expect(&r, w64, 3);
	run_cli("--poll-sizes 64", &r);			/* 64, then 36 by --poll-max 64 */
	expect(&r, w64, 3);
	run_cli("--poll-sizes 100 --hz 1000", &r);
	expect(&r, whole, 2);
	run_cli("--poll-sizes 100 --hz 300 --napi-weight 100", &r);
	expect(&r, whole, 2);
	run_cli("--poll-sizes 100 --napi-weight 10", &r);
	expect(&r, w10, 11);
	run_cli("--poll-sizes 100 --napi-weight 10 --hz 1000", &r);
	expect(&r, whole, 2);
	run_cli("--poll-sizes 100 --stats", &r);
	/* 64 completed at the weight, 35 by the ACK */
	assert_non_null(strstr(t_cli_out, "flush reasons:\n\t1 poll\n\t1 no-payload\nbypass reasons:\n"));
	assert_int_equal(t_cli_counter("segments per output", "with 32-63 segments"), 1);
	assert_int_equal(t_cli_counter("segments per output", "with 64+ segments"), 1);
	assert_int_equal(t_cli_run("gro", "in.pcap -o out.pcap --napi-weight 0"), 2);
	assert_int_equal(t_cli_run("gro", "in.pcap -o out.pcap --hz 0"), 2);
	assert_int_equal(t_cli_run("gro", "in.pcap -o out.pcap --napi-weight 0x40"), 2);
}

static void
test_usage_errors(void **state)
{
	struct res r;
	(void)state;

	run_cli("--policy bsd", &r);
	assert_int_equal(r.rc, 2);
	run_cli("--poll-sizes 3,x", &r);
	assert_int_equal(r.rc, 2);
	run_cli("--csum none", &r);
	assert_int_equal(r.rc, 2);
	run_cli("--poll-max 0", &r);
	assert_int_equal(r.rc, 2);
	run_cli("--bogus", &r);
	assert_int_equal(r.rc, 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_and_partial),
		cmocka_unit_test(test_polls),
		cmocka_unit_test(test_stats_and_partial_ok),
		cmocka_unit_test(test_rules_and_flows),
		cmocka_unit_test(test_napi_weight),
		cmocka_unit_test(test_usage_errors),
	};
	int rc = t_cli_init("gro-cli");

	if (rc)
		return rc;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	t_cli_fini();
	return rc;
}
