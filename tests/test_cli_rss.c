/* Description: `softoffload rss` end to end: writes pcap/pcapng captures (Ethernet, raw IP, VLAN, fragments, ARP, malformed and snap-truncated records) to a temp dir, runs the CLI and checks every tsv line and the text counts against the library's own hashes, plus --symmetric, --key, --table (entries and weights) and the exit-2 errors. */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "helpers.h"
#include "cli_util.h"
#include "softoffload/rss.h"

#define MAXREC 64

struct rec {
	uint8_t d[1600];
	uint32_t caplen, len;
	int link;
};

static struct rec recs[MAXREC];
static int nrec;
static struct sofl_rss *eng;	/* the expectation (eng_init()) */

/* (Re)makes the expectation's engine: the fields of its sofl_rss_config. */
static int
eng_init(const void *key, size_t key_len, unsigned nqueues, unsigned flags)
{
	struct sofl_rss_config c;

	sofl_rss_destroy(eng);
	eng = NULL;
	sofl_rss_config_init(&c);
	c.key = key;
	c.key_len = (uint32_t)key_len;
	c.nqueues = nqueues;
	c.flags = flags;
	return sofl_rss_create(&c, &eng);
}

static struct rec *
add(const struct t_spec *s)
{
	struct rec *r = &recs[nrec++];

	assert_true(nrec <= MAXREC);
	r->caplen = r->len = (uint32_t)t_build(r->d, sizeof(r->d), s);
	r->link = s->link;
	return r;
}

/* The records, as pcap (@link a DLT_) or pcapng (@link a LINKTYPE_). */
static void
write_cap(const char *name, int link, enum t_cap_fmt fmt)
{
	struct t_capw w;
	int i;

	t_capw_open(&w, name, link, fmt);
	for (i = 0; i < nrec; i++)
		t_capw_put(&w, recs[i].d, recs[i].caplen, recs[i].len,
			   (uint64_t)(1700000000 + i) * 1000000);
	t_capw_close(&w);
}

/* The expected tsv line of record i: the library on the whole packet. */
static void
expect_line(int i, int hashed, char *line, size_t cap)
{
	struct sofl_pkt p;
	struct sofl_rss_out o;

	static const char *const tname[] = { "", "IPv4", "IPv4/TCP", "IPv4/UDP", "IPv6",
					     "IPv6/TCP", "IPv6/UDP" };
	char src[64], dst[64], ports[32];
	int type, af;

	sofl_pkt_parse(&p, recs[i].d, recs[i].len, (enum sofl_link)recs[i].link);
	type = hashed ? sofl_rss_pkt(eng, &p, &o) : 0;
	if (type <= 0) {
		snprintf(line, cap, "%d\t-\t-\t-\t-\t-\t-\t-\n", i + 1);
		return;
	}
	af = p.key.family == 6 ? AF_INET6 : AF_INET;
	assert_non_null(inet_ntop(af, p.key.src, src, sizeof(src)));
	assert_non_null(inet_ntop(af, p.key.dst, dst, sizeof(dst)));
	if (type == SOFL_RSS_IPV4 || type == SOFL_RSS_IPV6)
		snprintf(ports, sizeof(ports), "-\t-");
	else
		snprintf(ports, sizeof(ports), "%u\t%u", p.key.sport, p.key.dport);
	snprintf(line, cap, "%d\t0x%08x\t%u\t%s\t%s\t%s\t%s\n", i + 1, o.hash, o.queue,
		 tname[type], src, dst, ports);
}

#define TSV_HEADER "packet\thash\tqueue\ttype\tsrc\tdst\tsport\tdport\n"

/* stdout must be exactly the expected lines; hashed[i] = 0 forces '-'. */
static void
check_tsv(const int *hashed)
{
	static char want[1 << 16];
	size_t o;
	int i;

	snprintf(want, sizeof(want), "%s", TSV_HEADER);
	o = strlen(want);
	for (i = 0; i < nrec; i++) {
		expect_line(i, hashed ? hashed[i] : 1, want + o, sizeof(want) - o);
		o += strlen(want + o);
	}
	if (strcmp(t_cli_out, want)) {
		fprintf(stderr, "tsv differs.\ngot:\n%swant:\n%s", t_cli_out, want);
		fail();
	}
}

static void
reset(void)
{
	nrec = 0;
	memset(recs, 0, sizeof(recs));
}

/* A mixed Ethernet capture; hashed[i] = 0 where the CLI must print '-'
 * although the whole packet would hash. */
static void
mixed(int *hashed)
{
	struct t_spec s;
	struct rec *r;
	int i;

	reset();
	for (i = 0; i < 12; i++) {	/* TCP/UDP over v4/v6, several flows */
		t_spec_init(&s, i % 4 < 2 ? 4 : 6, i % 2 ? 17 : 6);
		s.sport = (uint16_t)(40000 + i);
		s.src[3] = (uint8_t)(i + 1);
		s.pay_len = 20;
		add(&s);
	}
	t_spec_init(&s, 4, 1);		/* ICMP: 2-tuple */
	add(&s);
	t_spec_init(&s, 4, 6);		/* first fragment: 2-tuple */
	s.df = 0;
	s.frag = 0x2000;
	s.pay_len = 100;
	add(&s);
	t_spec_init(&s, 6, 6);		/* VLAN-tagged */
	s.nvlan = 1;
	s.vlan_tci[0] = 7;
	add(&s);
	r = &recs[nrec++];		/* ARP */
	t_spec_init(&s, 4, 6);
	r->caplen = r->len = (uint32_t)t_build_arp(r->d, sizeof(r->d), &s);
	r->link = SOFL_LINK_ETH;
	t_spec_init(&s, 4, 6);		/* IP header cut off inside the frame itself */
	r = add(&s);
	r->caplen = r->len = 14 + 10;
	t_spec_init(&s, 4, 6);		/* snap length 54: headers captured, hashed */
	s.pay_len = 1000;
	s.sport = 1234;
	r = add(&s);
	r->caplen = 54;
	t_spec_init(&s, 4, 17);		/* snap: whole UDP header captured */
	s.pay_len = 300;
	s.sport = 2345;
	r = add(&s);
	r->caplen = 14 + 20 + 8;
	t_spec_init(&s, 4, 6);		/* snap: TCP ports and data offset captured */
	s.pay_len = 300;
	s.sport = 3456;
	r = add(&s);
	r->caplen = 14 + 20 + 13;
	t_spec_init(&s, 6, 17);		/* snap: UDP length field cut off */
	s.pay_len = 500;
	r = add(&s);
	r->caplen = 14 + 40 + 2;
	for (i = 0; i < nrec; i++)
		hashed[i] = 1;
	hashed[nrec - 1] = 0;
}

static void
test_tsv_mixed(void **state)
{
	int hashed[MAXREC];
	(void)state;

	mixed(hashed);
	write_cap("m.pcap", DLT_EN10MB, T_CAP_PCAP);
	assert_int_equal(eng_init(NULL, 0, 4, 0), 0);
	assert_int_equal(t_cli_run("rss", "m.pcap --queues 4 --format tsv"), 0);
	check_tsv(hashed);
	/* spot checks independent of expect_line(): ARP and the malformed one */
	assert_non_null(strstr(t_cli_out, "\n16\t-\t-\t-\t-\t-\t-\t-\n17\t-\t-\t-\t-\t-\t-\t-\n"));
	assert_int_equal(strncmp(t_cli_out, TSV_HEADER, strlen(TSV_HEADER)), 0);
	/* pcapng gives the same lines */
	write_cap("m.pcapng", 1, T_CAP_PCAPNG);
	assert_int_equal(t_cli_run("rss", "m.pcapng --format tsv --queues 4"), 0);
	check_tsv(hashed);
	assert_string_equal(t_cli_err, "");
}

static void
test_text_mixed(void **state)
{
	int hashed[MAXREC], i;
	unsigned long long pk[8] = { 0 };
	char label[32];
	(void)state;

	mixed(hashed);
	write_cap("m.pcap", DLT_EN10MB, T_CAP_PCAP);
	assert_int_equal(eng_init(NULL, 0, 8, 0), 0);
	for (i = 0; i < nrec; i++) {
		struct sofl_pkt p;
		struct sofl_rss_out o;

		sofl_pkt_parse(&p, recs[i].d, recs[i].len, SOFL_LINK_ETH);
		if (hashed[i] && sofl_rss_pkt(eng, &p, &o) > 0)
			pk[o.queue]++;
	}
	assert_int_equal(t_cli_run("rss", "m.pcap --queues 8"), 0);
	assert_int_equal(t_cli_num_after("m.pcap: "), nrec);
	assert_int_equal(t_cli_counter("hashed", "packets hashed"), nrec - 3);
	assert_int_equal(t_cli_counter("no hash", "packets not IP"), 1);	/* ARP */
	assert_int_equal(t_cli_counter("no hash", "malformed packets"), 1);	/* the cut IP header */
	assert_int_equal(t_cli_counter("no hash", "packets whose hash input was not captured"), 1);	/* the cut UDP header */
	assert_int_equal(t_cli_counter("hashed", "IPv4"), 2);		/* ICMP + fragment */
	assert_int_equal(t_cli_counter("hashed", "IPv4/TCP"), 5);
	assert_int_equal(t_cli_counter("hashed", "IPv4/UDP"), 4);
	assert_int_equal(t_cli_counter("hashed", "IPv6/TCP"), 4);	/* 3 + VLAN */
	assert_int_equal(t_cli_counter("settings", "queues"), 8);
	assert_int_equal(t_cli_counter("settings", "indirection table entries"), 128);
	for (i = 0; i < 8; i++) {
		snprintf(label, sizeof(label), "\n%d\t", i);
		assert_int_equal(t_cli_num_after(label), pk[i]);
	}
	/* 18 packets; ICMP and the TCP fragment share their 2-tuple: 17 flows */
	assert_non_null(strstr(t_cli_out, "\ntotal\t18\t17\n"));
	assert_non_null(strstr(t_cli_out, "\nspread (max/mean per queue; 1.00 = even, 8 = all on one queue):\n\t"));
}

/* both directions of each connection: equal hashes only with --symmetric */
static void
test_symmetric(void **state)
{
	struct t_spec s;
	char *l, *save = NULL;
	unsigned h[MAXREC];
	int i, n = 0, same = 0;
	(void)state;

	reset();
	for (i = 0; i < 10; i++) {
		uint8_t a[16];
		uint16_t pt;

		t_spec_init(&s, i < 5 ? 4 : 6, i % 2 ? 6 : 17);
		s.src[3] = (uint8_t)(10 + i);
		s.dst[2] = (uint8_t)(3 * i);
		s.sport = (uint16_t)(1000 + 77 * i);
		s.dport = (uint16_t)(60000 - 99 * i);
		add(&s);
		memcpy(a, s.src, 16);
		memcpy(s.src, s.dst, 16);
		memcpy(s.dst, a, 16);
		pt = s.sport;
		s.sport = s.dport;
		s.dport = pt;
		add(&s);
	}
	write_cap("sym.pcap", DLT_EN10MB, T_CAP_PCAP);
	assert_int_equal(eng_init(NULL, 0, 16, SOFL_RSS_F_SYMMETRIC), 0);
	assert_int_equal(t_cli_run("rss", "sym.pcap --queues 16 --symmetric --format tsv"), 0);
	check_tsv(NULL);
	for (l = strtok_r(t_cli_out + strlen(TSV_HEADER), "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		assert_int_equal(sscanf(l, "%*d\t%x", &h[n++]), 1);
	assert_int_equal(n, 20);
	for (i = 0; i < 20; i += 2)
		assert_int_equal(h[i], h[i + 1]);
	/* one flow per connection */
	assert_int_equal(t_cli_run("rss", "sym.pcap --queues 16 --symmetric"), 0);
	assert_non_null(strstr(t_cli_out, "\ntotal\t20\t10\n"));
	/* without: two flows per connection and (here) no equal pair */
	assert_int_equal(t_cli_run("rss", "sym.pcap --queues 16 --format tsv"), 0);
	n = 0;
	save = NULL;
	for (l = strtok_r(t_cli_out + strlen(TSV_HEADER), "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		assert_int_equal(sscanf(l, "%*d\t%x", &h[n++]), 1);
	for (i = 0; i < 20; i += 2)
		same += h[i] == h[i + 1];
	assert_int_equal(same, 0);
}

static void
test_key_table_raw(void **state)
{
	static const char hex[] =
		"01:23:45:67:89:ab:cd:ef:fe:dc:ba:98:76:54:32:10:00:11:22:33:"
		"44:55:66:77:88:99:aa:bb:cc:dd:ee:ff:0f:1e:2d:3c:4b:5a:69:78";
	uint8_t key[40];
	struct t_spec s;
	unsigned w[4] = { 1, 0, 3, 0 };
	int i;
	(void)state;

	for (i = 0; i < 40; i++)
		key[i] = (uint8_t)strtoul(hex + 3 * i, NULL, 16);
	reset();
	for (i = 0; i < 20; i++) {
		t_spec_init(&s, i % 2 ? 6 : 4, 6);
		s.link = SOFL_LINK_RAW;
		s.sport = (uint16_t)(5000 + 31 * i);
		add(&s);
	}
	write_cap("raw.pcap", DLT_RAW, T_CAP_PCAP);
	write_cap("raw.pcapng", 101, T_CAP_PCAPNG);

	/* a custom key, with and without separators */
	assert_int_equal(eng_init(key, 40, 3, 0), 0);
	assert_int_equal(t_cli_run("rss", "raw.pcap --queues 3 --format tsv --key %s", hex), 0);
	check_tsv(NULL);
	assert_int_equal(t_cli_run("rss", "raw.pcapng --queues 3 --format tsv --key "
			     "0123456789abcdeffedcba987654321000112233445566778899aabbccddeeff0f1e2d3c4b5a6978"), 0);
	check_tsv(NULL);

	/* an explicit 8-entry table */
	t_cli_write_file("t8", "# reversed\n7\n6\n5\n4\n3\n2 1\n0\n");
	assert_int_equal(eng_init(NULL, 0, 8, 0), 0);
	assert_int_equal(sofl_rss_reta_fill(eng, 8, 8), 0);
	for (i = 0; i < 8; i++)
		assert_int_equal(sofl_rss_reta_set(eng, (unsigned)i, 7u - (unsigned)i), 0);
	assert_int_equal(t_cli_run("rss", "raw.pcap --queues 8 --table t8 --format tsv"), 0);
	check_tsv(NULL);

	/* weights: queues 0 and 2 only, 1:3 */
	t_cli_write_file("tw", "weight 1 0 3 0   # ethtool -X weight\n");
	assert_int_equal(eng_init(NULL, 0, 4, 0), 0);
	assert_int_equal(sofl_rss_reta_weights(eng, 128, w, 4), 0);
	assert_int_equal(t_cli_run("rss", "raw.pcap --queues 4 --table tw --format tsv"), 0);
	check_tsv(NULL);
	assert_null(strstr(t_cli_out, "\t1\n"));
	assert_null(strstr(t_cli_out, "\t3\n"));
	assert_int_equal(t_cli_run("rss", "raw.pcap --queues 4 --table tw"), 0);
	assert_non_null(strstr(t_cli_out, "\n1\t0\t0\n"));
	assert_non_null(strstr(t_cli_out, "(raw IP)"));
}

/* Weights for more queues than the 512-entry table has entries (up to
 * --queues 65535, on one line of 131 KB): bounded by --queues, never by the
 * old 512-entry array (which they overran, UBSan: index 512 out of bounds;
 * 65535 weights crashed a release build).  The result is the library's. */
static void
test_table_many_weights(void **state)
{
	static unsigned w[65535];
	static char text[65535 * 4 + 64];
	unsigned nq[] = { 600, 1000, 65535 }, i, k;
	size_t o;
	struct t_spec s;
	(void)state;

	reset();
	for (i = 0; i < 40; i++) {
		t_spec_init(&s, i % 2 ? 6 : 4, 6);
		s.sport = (uint16_t)(7000 + 13 * i);
		add(&s);
	}
	write_cap("many.pcap", DLT_EN10MB, T_CAP_PCAP);
	for (k = 0; k < 3; k++) {
		o = (size_t)snprintf(text, sizeof(text), "weight");
		for (i = 0; i < nq[k]; i++) {
			w[i] = 1 + i % 7;
			o += (size_t)snprintf(text + o, sizeof(text) - o, " %u", w[i]);
		}
		snprintf(text + o, sizeof(text) - o, "\n");
		t_cli_write_file("tmany", text);
		assert_int_equal(eng_init(NULL, 0, nq[k], 0), 0);
		assert_int_equal(sofl_rss_reta_weights(eng, 128, w, nq[k]), 0);
		assert_int_equal(t_cli_run("rss", "many.pcap --queues %u --table tmany --format tsv",
					   nq[k]), 0);
		check_tsv(NULL);
		/* one weight more than --queues: refused, nothing overrun */
		t_cli_usage_error("rss", "more weights than --queues",
				  "many.pcap --queues %u --table tmany", nq[k] - 1);
	}
	/* a sum beyond 32 bits says so */
	t_cli_write_file("tsum", "weight 4294967295 1\n");
	t_cli_usage_error("rss", "add up to 4294967296", "many.pcap --queues 2 --table tsum");
	/* numbers are decimal: 010 is ten (queue 10 of 11), 0x1 is an error */
	t_cli_write_file("tdec", "010\n");
	assert_int_equal(eng_init(NULL, 0, 11, 0), 0);
	assert_int_equal(sofl_rss_reta_fill(eng, 1, 11), 0);
	assert_int_equal(sofl_rss_reta_set(eng, 0, 10), 0);
	assert_int_equal(t_cli_run("rss", "many.pcap --queues 011 --table tdec --format tsv"), 0);
	check_tsv(NULL);
	t_cli_write_file("thex", "0x1\n");
	t_cli_usage_error("rss", "not a decimal", "many.pcap --queues 4 --table thex");
}

static void
test_errors(void **state)
{
	struct t_spec s;
	char path[PATH_MAX];
	(void)state;

	reset();
	t_spec_init(&s, 4, 6);
	add(&s);
	write_cap("ok.pcap", DLT_EN10MB, T_CAP_PCAP);
	write_cap("wifi.pcap", 105, T_CAP_PCAP);	/* IEEE 802.11: not Ethernet or raw IP */
	t_cli_write_file("notpcap", "hello\n");
	t_cli_write_file("t3", "0\n1\n2\n");
	t_cli_write_file("tbig", "0\n9\n");
	t_cli_write_file("tbad", "0\nx\n");
	t_cli_write_file("tw0", "weight 0 0\n");
	t_cli_write_file("tw9", "weight 1 1 1 1 1\n");
	t_cli_file_error("rss", "missing.pcap: No such file", "missing.pcap --queues 4");
	assert_null(strstr(strstr(t_cli_err, "missing.pcap") + 1, "missing.pcap"));
	t_cli_file_error("rss", "notpcap", "notpcap --queues 4");
	t_cli_file_error("rss", "wifi.pcap", "wifi.pcap --queues 4");
	t_cli_usage_error("rss", "--queues", "ok.pcap");
	t_cli_usage_error("rss", "--queues", "ok.pcap --queues 0");
	t_cli_usage_error("rss", "--queues", "ok.pcap --queues 70000");
	t_cli_usage_error("rss", "--queues", "ok.pcap --queues 0x10");
	t_cli_usage_error("rss", "--queues", "ok.pcap --queues");
	t_cli_usage_error("rss", "--bogus", "ok.pcap --queues 4 --bogus");
	t_cli_usage_error("rss", "xml", "ok.pcap --queues 4 --format xml");
	t_cli_usage_error("rss", "--key", "ok.pcap --queues 4 --key 6d5a56da");
	t_cli_usage_error("rss", "--key", "ok.pcap --queues 4 --key zz5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c6a42b73bbeac01fa");
	t_cli_usage_error("rss", "t3", "ok.pcap --queues 4 --table t3");
	t_cli_usage_error("rss", "tbig", "ok.pcap --queues 4 --table tbig");
	t_cli_usage_error("rss", "tbad", "ok.pcap --queues 4 --table tbad");
	t_cli_usage_error("rss", "tw0", "ok.pcap --queues 4 --table tw0");
	t_cli_usage_error("rss", "more weights than --queues", "ok.pcap --queues 4 --table tw9");
	t_cli_file_error("rss", "nosuchfile: No such file", "ok.pcap --queues 4 --table nosuchfile");
	t_cli_usage_error("rss", "more than one input", "ok.pcap other.pcap --queues 4");
	assert_int_equal(t_cli_run("rss", "--help"), 0);
	assert_non_null(strstr(t_cli_out, "--table TFILE"));
	assert_non_null(strstr(t_cli_out, "weight W0 W1"));
	/* a file cut inside its second record: the first is reported, exit 2 */
	reset();
	t_spec_init(&s, 4, 6);
	add(&s);
	add(&s);
	write_cap("cut.pcap", DLT_EN10MB, T_CAP_PCAP);
	t_cli_file(path, sizeof(path), "cut.pcap");
	assert_int_equal(truncate(path, 24 + 16 + recs[0].len + 16 + 10), 0);
	assert_int_equal(eng_init(NULL, 0, 4, 0), 0);
	assert_int_equal(t_cli_run("rss", "cut.pcap --queues 4 --format tsv"), 2);
	nrec = 1;
	check_tsv(NULL);
	assert_non_null(strchr(t_cli_err, '\n'));
	assert_int_equal(strchr(t_cli_err, '\n')[1], '\0');
	/* an empty capture is fine */
	reset();
	write_cap("empty.pcap", DLT_EN10MB, T_CAP_PCAP);
	assert_int_equal(t_cli_run("rss", "empty.pcap --queues 2 --format tsv"), 0);
	assert_string_equal(t_cli_out, TSV_HEADER);
	assert_int_equal(t_cli_run("rss", "empty.pcap --queues 2"), 0);
	assert_int_equal(t_cli_num_after("total\t"), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tsv_mixed),
		cmocka_unit_test(test_text_mixed),
		cmocka_unit_test(test_symmetric),
		cmocka_unit_test(test_key_table_raw),
		cmocka_unit_test(test_table_many_weights),
		cmocka_unit_test(test_errors),
	};

	int rc = t_cli_init("cli-rss");

	if (rc)
		return rc;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	sofl_rss_destroy(eng);
	return t_cli_fini() ? 1 : rc;
}
