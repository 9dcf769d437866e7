/* Description: the capture options every capture subcommand shares and gro's
 * engine modes, end to end: -c N stops after N records (csum, rss, gro, gso);
 * --filter EXPR (tcpdump syntax) keeps only matching records and counts the
 * others (text and JSON), a bad expression is a usage error; --pcapng writes
 * pcapng that libpcap reads back with the same records, bytes and nanosecond
 * timestamps as the pcap output; gro --flush-timeout-us holds flows across
 * polls (one packet per poll: no timeout = nothing merges, a long timeout =
 * one super-packet, completed at the end; a short one completes by
 * "timeout"); --max-segs caps the segments per super-packet; --rx-hash
 * toeplitz gives the same output as none (the hash only places flows);
 * an LRU table's flow hash takes a fixed key unless --hash-key says
 * otherwise, so replays are reproducible. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "helpers.h"
#include "cli_util.h"

#define PAY 1000

/* in.pcap: @n in-order segments of flow A (port 5201), interleaved with @m
 * of flow B (port 5202) after every second A segment; timestamps 1 ms apart. */
static void
write_two(int n, int m)
{
	struct t_capw w;
	struct t_spec s;
	uint8_t b[2048];
	uint64_t ts = 1700000000000000ull;
	int i, j = 0;

	t_capw_open(&w, "in.pcap", DLT_EN10MB, T_CAP_PCAP);
	for (i = 0; i < n; i++) {
		size_t l;

		t_spec_init(&s, 4, 6);
		s.dport = 5201;
		s.seq = 1000 + (uint32_t)(i * PAY);
		s.pay_off = (uint32_t)(i * PAY);
		s.pay_len = PAY;
		s.ip_id = (uint16_t)(7 + i);
		l = t_build(b, sizeof(b), &s);
		t_capw_put(&w, b, (uint32_t)l, (uint32_t)l, ts += 1000);
		if (i % 2 && j < m) {
			t_spec_init(&s, 4, 6);
			s.dport = 5202;
			s.seq = 50000 + (uint32_t)(j * PAY);
			s.pay_off = (uint32_t)(j * PAY);
			s.pay_len = PAY;
			s.ip_id = (uint16_t)(900 + j);
			l = t_build(b, sizeof(b), &s);
			t_capw_put(&w, b, (uint32_t)l, (uint32_t)l, ts += 1000);
			j++;
		}
	}
	t_capw_close(&w);
}

/* Records of capture @name; with @sum the TCP payload bytes of them. */
static int
count(const char *name, long *sum)
{
	struct pcap_pkthdr *h;
	const u_char *d;
	pcap_t *p = t_cli_open_pcap(name);
	int n = 0;

	if (sum)
		*sum = 0;
	while (pcap_next_ex(p, &h, &d) == 1) {
		struct sofl_pkt k;

		n++;
		if (sum && sofl_pkt_parse(&k, d, h->caplen, SOFL_LINK_ETH) == 0)
			*sum += (long)k.pay_len;
	}
	pcap_close(p);
	return n;
}

static void
test_count(void **state)
{
	(void)state;
	write_two(10, 4);			/* 14 records */
	assert_int_equal(t_cli_run("csum", "in.pcap -c 5"), 0);
	assert_non_null(strstr(t_cli_out, "in.pcap: 5 records (Ethernet)\n"));
	assert_int_equal(t_cli_run("csum", "in.pcap -c 100"), 0);
	assert_non_null(strstr(t_cli_out, "in.pcap: 14 records (Ethernet)\n"));
	assert_int_equal(t_cli_run("csum", "in.pcap --fix -o out.pcap -c 3"), 0);
	assert_int_equal(count("out.pcap", NULL), 3);
	assert_int_equal(t_cli_run("rss", "in.pcap --queues 2 -c 6 --format tsv | tail -n 1"), 0);
	assert_int_equal(strtol(t_cli_out, NULL, 10), 6);
	assert_int_equal(t_cli_run("gro", "in.pcap -o out.pcap -c 6 --stats"), 0);
	assert_int_equal(t_cli_counter("gro", "packets in"), 6);
	assert_int_equal(t_cli_run("gso", "in.pcap -o out.pcap --mss 100 -c 2"), 0);
	assert_int_equal(count("out.pcap", NULL), 20);
	t_cli_usage_error("gro", "-c", "in.pcap -o out.pcap -c 0");
	t_cli_usage_error("csum", "-c", "in.pcap -c x");
	t_cli_usage_error("rss", "-c", "in.pcap --queues 2 -c");
}

static void
test_filter(void **state)
{
	long sum;
	(void)state;
	write_two(10, 4);
	/* flow A only: one super-packet of 10 segments */
	assert_int_equal(t_cli_run("gro", "in.pcap -o out.pcap --filter 'tcp dst port 5201' --stats"), 0);
	assert_int_equal(t_cli_counter("gro", "packets in"), 10);
	assert_int_equal(t_cli_counter("gro", "records filtered out (--filter)"), 4);
	assert_int_equal(count("out.pcap", &sum), 1);
	assert_int_equal(sum, 10 * PAY);
	assert_int_equal(t_cli_run("gro", "in.pcap -o out.pcap --filter 'tcp dst port 5202' --json"), 0);
	assert_non_null(strstr(t_cli_out, "\"filtered\":10,"));
	assert_non_null(strstr(t_cli_out, "\"pkts_in\":4,"));
	/* without a filter the line is absent, the JSON field 0 */
	assert_int_equal(t_cli_run("gro", "in.pcap -o out.pcap --stats"), 0);
	assert_null(strstr(t_cli_out, "filtered"));
	assert_int_equal(t_cli_run("gro", "in.pcap -o out.pcap --json"), 0);
	assert_non_null(strstr(t_cli_out, "\"filtered\":0,"));
	/* -c counts the records the filter kept */
	assert_int_equal(t_cli_run("csum", "in.pcap --filter 'dst port 5202' -c 3 --json"), 0);
	assert_non_null(strstr(t_cli_out, "\"records\":3,"));
	assert_int_equal(t_cli_run("gso", "in.pcap -o out.pcap --mss 500 --filter 'dst port 5202' --stats"), 0);
	assert_int_equal(t_cli_counter("gso", "records in"), 4);
	assert_int_equal(t_cli_counter("unchanged", "records filtered out (--filter)"), 10);
	assert_int_equal(count("out.pcap", NULL), 8);
	assert_int_equal(t_cli_run("rss", "in.pcap --queues 4 --filter 'dst port 5202'"), 0);
	assert_int_equal(t_cli_counter("hashed", "packets hashed"), 4);
	assert_int_equal(t_cli_counter("no hash", "records filtered out (--filter)"), 10);
	assert_int_equal(t_cli_run("rss", "in.pcap --queues 4 --filter udp --json"), 0);
	assert_non_null(strstr(t_cli_out, "\"filtered\":14,"));
	t_cli_usage_error("gro", "--filter", "in.pcap -o out.pcap --filter 'tcp port'");
	t_cli_usage_error("csum", "--filter", "in.pcap --filter 'ip7'");
	t_cli_usage_error("gro", "--filter", "in.pcap -o out.pcap --filter tcp --filter udp");
}

/* Records of @a and @b are equal: bytes, lengths, nanosecond timestamps. */
static void
same_records(const char *a, const char *b)
{
	char pa[512], pb[512], eb[PCAP_ERRBUF_SIZE];
	pcap_t *x, *y;
	struct pcap_pkthdr *hx, *hy;
	const u_char *dx, *dy;
	int n = 0, rx, ry;

	x = pcap_open_offline_with_tstamp_precision(t_cli_file(pa, sizeof(pa), a),
						    PCAP_TSTAMP_PRECISION_NANO, eb);
	y = pcap_open_offline_with_tstamp_precision(t_cli_file(pb, sizeof(pb), b),
						    PCAP_TSTAMP_PRECISION_NANO, eb);
	assert_non_null(x);
	assert_non_null(y);
	assert_int_equal(pcap_datalink(x), pcap_datalink(y));
	for (;;) {
		rx = pcap_next_ex(x, &hx, &dx);
		ry = pcap_next_ex(y, &hy, &dy);
		assert_int_equal(rx, ry);
		if (rx != 1)
			break;
		n++;
		assert_int_equal(hx->caplen, hy->caplen);
		assert_int_equal(hx->len, hy->len);
		assert_int_equal(hx->ts.tv_sec, hy->ts.tv_sec);
		assert_int_equal(hx->ts.tv_usec, hy->ts.tv_usec);
		assert_memory_equal(dx, dy, hx->caplen);
	}
	assert_int_equal(rx, PCAP_ERROR_BREAK);
	assert_true(n > 0);
	pcap_close(x);
	pcap_close(y);
}

static void
test_pcapng(void **state)
{
	char head[4] = { 0 };
	FILE *f;
	char path[512];
	(void)state;
	write_two(10, 4);
	assert_int_equal(t_cli_run("gro", "in.pcap -o a.pcap"), 0);
	assert_int_equal(t_cli_run("gro", "in.pcap -o b.pcapng --pcapng"), 0);
	f = fopen(t_cli_file(path, sizeof(path), "b.pcapng"), "rb");
	assert_non_null(f);
	assert_int_equal(fread(head, 1, 4, f), 4);
	fclose(f);
	assert_memory_equal(head, "\x0a\x0d\x0d\x0a", 4);	/* a Section Header Block */
	same_records("a.pcap", "b.pcapng");
	assert_int_equal(t_cli_run("gso", "in.pcap -o a.pcap --mss 300"), 0);
	assert_int_equal(t_cli_run("gso", "in.pcap -o b.pcapng --mss 300 --pcapng"), 0);
	same_records("a.pcap", "b.pcapng");
	/* odd lengths (the EPB pads to 4 bytes) and a read back through csum */
	assert_int_equal(t_cli_run("gso", "in.pcap -o a.pcap --mss 333"), 0);
	assert_int_equal(t_cli_run("gso", "in.pcap -o b.pcapng --mss 333 --pcapng"), 0);
	same_records("a.pcap", "b.pcapng");
	assert_int_equal(t_cli_run("csum", "b.pcapng --fix -o c.pcapng --pcapng"), 0);
	same_records("b.pcapng", "c.pcapng");
	/* to stdout, and an unwritable one */
	assert_int_equal(t_cli_run("gro", "in.pcap -o e.pcapng --pcapng"), 0);
	assert_int_equal(t_cli_run("gro", "in.pcap -o - --pcapng"), 0);
	same_records("e.pcapng", "stdout");	/* t_cli_run() keeps stdout there */
	assert_int_equal(t_cli_run("gro", "in.pcap -o a.pcap"), 0);
	same_records("a.pcap", "e.pcapng");
	assert_int_equal(t_cli_run("gro", "in.pcap -o /dev/full --pcapng"), 2);
	assert_non_null(strstr(t_cli_err, "/dev/full: write failed"));
	t_cli_usage_error("rss", "--pcapng", "in.pcap --queues 2 --pcapng");
	t_cli_usage_error("csum", "--pcapng", "in.pcap --pcapng");
}

static void
test_timeout(void **state)
{
	long sum;
	(void)state;
	write_two(12, 0);			/* one flow, 1 ms apart */
	/* a poll per packet, NAPI mode: each poll completes its packet */
	assert_int_equal(t_cli_run("gro", "in.pcap -o out.pcap --poll-max 1"), 0);
	assert_int_equal(count("out.pcap", NULL), 12);
	/* held across polls for up to 1 s: all in one, completed at the end */
	assert_int_equal(t_cli_run("gro", "in.pcap -o out.pcap --poll-max 1 "
				   "--flush-timeout-us 1000000 --stats"), 0);
	assert_int_equal(count("out.pcap", &sum), 1);
	assert_int_equal(sum, 12 * PAY);
	assert_int_equal(t_cli_counter("flush reasons", "explicit"), 1);
	/* 3.5 ms: completed by timeout at the poll where its first packet is 4 ms
	 * old (5 + 5 segments), the last 2 at the end of the capture */
	assert_int_equal(t_cli_run("gro", "in.pcap -o out.pcap --poll-max 1 "
				   "--flush-timeout-us 3500 --json"), 0);
	assert_non_null(strstr(t_cli_out, "\"timeout\":2,\"explicit\":1,"));
	assert_int_equal(count("out.pcap", &sum), 3);
	assert_int_equal(sum, 12 * PAY);
	/* 0 is the NAPI mode */
	assert_int_equal(t_cli_run("gro", "in.pcap -o out.pcap --poll-max 1 --flush-timeout-us 0"), 0);
	assert_int_equal(count("out.pcap", NULL), 12);
	t_cli_usage_error("gro", "--flush-timeout-us", "in.pcap -o out.pcap --flush-timeout-us -1");
}

/* The TCP payload length of the first record of . */
static long
first_payload(const char *name)
{
	struct pcap_pkthdr *h;
	const u_char *d;
	struct sofl_pkt k;
	pcap_t *p = t_cli_open_pcap(name);
	long n;

	assert_int_equal(pcap_next_ex(p, &h, &d), 1);
	assert_int_equal(sofl_pkt_parse(&k, d, h->caplen, SOFL_LINK_ETH), 0);
	n = (long)k.pay_len;
	pcap_close(p);
	return n;
}

static void
test_max_segs_rx_hash(void **state)
{
	long sum;
	(void)state;
	write_two(10, 4);
	assert_int_equal(t_cli_run("gro", "in.pcap -o out.pcap --filter 'dst port 5201' "
				   "--max-segs 3 --stats"), 0);
	assert_int_equal(count("out.pcap", &sum), 4);		/* 3 + 3 + 3 + 1 */
	assert_int_equal(sum, 10 * PAY);
	assert_int_equal(t_cli_counter("flush reasons", "max-segs"), 3);
	assert_int_equal(t_cli_counter("segments per output", "with 2-3 segments"), 3);
	t_cli_usage_error("gro", "--max-segs", "in.pcap -o out.pcap --max-segs 0");
	t_cli_usage_error("gro", "--max-segs", "in.pcap -o out.pcap --max-segs 65536");
	/* the same super-packets; the Toeplitz hash (A 0x07c70ec6, B 0xf6fe2af2)
	 * puts B in bucket 2 and A in bucket 6, which Linux completes in bucket
	 * order: B first, every run (without a hash the engine's own keyed
	 * hash places them) */
	assert_int_equal(t_cli_run("gro", "in.pcap -o a.pcap --rx-hash none"), 0);
	assert_int_equal(count("a.pcap", &sum), 2);
	assert_int_equal(sum, 14 * PAY);
	assert_int_equal(t_cli_run("gro", "in.pcap -o b.pcap --rx-hash toeplitz"), 0);
	assert_int_equal(count("b.pcap", &sum), 2);
	assert_int_equal(sum, 14 * PAY);
	assert_int_equal(first_payload("b.pcap"), 4 * PAY);
	assert_int_equal(t_cli_run("gro", "in.pcap -o c.pcap --rx-hash toeplitz"), 0);
	same_records("b.pcap", "c.pcap");
	t_cli_usage_error("gro", "--rx-hash", "in.pcap -o out.pcap --rx-hash crc32");
}

/* many.pcap: @nf flows (dports 6000..), two in-order segments each, all
 * first segments, then all second ones: one poll with --poll-max 256. */
static void
write_many(int nf)
{
	struct t_capw w;
	struct t_spec s;
	uint8_t b[2048];
	uint64_t ts = 1700000000000000ull;
	int r, f;

	t_capw_open(&w, "many.pcap", DLT_EN10MB, T_CAP_PCAP);
	for (r = 0; r < 2; r++) {
		for (f = 0; f < nf; f++) {
			size_t l;

			t_spec_init(&s, 4, 6);
			s.dport = (uint16_t)(6000 + f);
			s.seq = 1000 + (uint32_t)(r * PAY);
			s.pay_off = (uint32_t)(r * PAY);
			s.pay_len = PAY;
			s.ip_id = (uint16_t)(100 + r);
			l = t_build(b, sizeof(b), &s);
			t_capw_put(&w, b, (uint32_t)l, (uint32_t)l, ts += 10);
		}
	}
	t_capw_close(&w);
}

/* An LRU table's keyed flow hash decides which flows share a bucket, and so
 * which a full bucket (8 flows) evicts: a replay takes a fixed key by
 * default, so two runs of one capture give the same outputs by construction
 * (with the library's random key they do only as long as no bucket
 * overflows, which benign captures almost never make happen); --hash-key
 * HEX in either case; random; malformed keys are usage errors. */
static void
test_hash_key(void **state)
{
	long sum;
	(void)state;
	write_many(64);
	assert_int_equal(t_cli_run("gro", "many.pcap -o a.pcap --flows 64 --poll-max 256 --napi-weight 256 --stats"), 0);
	assert_int_equal(t_cli_counter("gro", "super-packets"), 64);
	assert_int_equal(t_cli_run("gro", "many.pcap -o b.pcap --flows 64 --poll-max 256 --napi-weight 256"), 0);
	same_records("a.pcap", "b.pcap");
	assert_int_equal(t_cli_run("gro", "many.pcap -o c.pcap --flows 64 --poll-max 256 --napi-weight 256 "
				   "--hash-key 00112233445566778899aabbccddeeff"), 0);
	assert_int_equal(t_cli_run("gro", "many.pcap -o d.pcap --flows 64 --poll-max 256 --napi-weight 256 "
				   "--hash-key 00112233445566778899AABBCCDDEEFF"), 0);
	same_records("c.pcap", "d.pcap");
	assert_int_equal(t_cli_run("gro", "many.pcap -o e.pcap --flows 64 --poll-max 256 --napi-weight 256 "
				   "--hash-key random"), 0);
	count("e.pcap", &sum);
	assert_int_equal(sum, 2 * 64 * PAY);		/* every byte out, whatever the key */
	t_cli_usage_error("gro", "--hash-key", "many.pcap -o x.pcap --hash-key 0011");
	t_cli_usage_error("gro", "--hash-key", "many.pcap -o x.pcap --hash-key "
			  "00000000000000000000000000000000");
	t_cli_usage_error("gro", "--hash-key", "many.pcap -o x.pcap --hash-key "
			  "0011223344556677889900aabbccddxx");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_pcapng),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_max_segs_rx_hash),
		cmocka_unit_test(test_hash_key),
	};
	int rc = t_cli_init("cli-select");

	if (rc)
		return rc;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	return t_cli_fini() ? 1 : rc;
}
