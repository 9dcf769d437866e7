/* Description: `softoffload gso` end to end: writes a capture mixing TCP/UDP super-packets (partial checksums, as captured on a sending host), small packets, ARP, an IP fragment, a truncated record and a datagram the segmenter must refuse; runs the CLI with --mss/--udp-gso-size, --mtu, --csum partial; checks every output record against the library (and checksums), the unchanged records byte for byte, order, timestamps, the --stats counts and the usage errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <pcap/pcap.h>
#include "helpers.h"

#define MAXREC 16
#define MAXOUT 512

struct rec {
	uint8_t *d;
	uint32_t caplen, len;
};

static struct rec in[MAXREC], outr[MAXOUT];
static long outsec[MAXOUT];
static int nin, nout;
static char cli[PATH_MAX], dir[64], sout[8192];

static void
add(const struct t_spec *s, int arp)
{
	static uint8_t b[70000];
	size_t len = arp ? t_build_arp(b, sizeof(b), s) : t_build(b, sizeof(b), s);

	in[nin].d = malloc(len);
	memcpy(in[nin].d, b, len);
	in[nin].caplen = in[nin].len = (uint32_t)len;
	nin++;
}

static void
build_capture(void)
{
	struct t_spec s;

	t_spec_init(&s, 4, 6);			/* 0: TCP v4 super-packet, 10 x 1000 */
	s.pay_len = 10000;
	s.csum = T_CSUM_PARTIAL;
	s.flags = SOFL_TCP_ACK | SOFL_TCP_PSH;
	add(&s, 0);
	t_spec_init(&s, 6, 6);			/* 1: TCP v6, FIN, 3 x 1000 - 1 */
	s.pay_len = 2999;
	s.csum = T_CSUM_PARTIAL;
	s.flags = SOFL_TCP_ACK | SOFL_TCP_FIN;
	add(&s, 0);
	t_spec_init(&s, 4, 6);			/* 2: a pure ACK, padded: passes */
	s.csum = T_CSUM_PARTIAL;
	s.eth_pad = 6;
	add(&s, 0);
	t_spec_init(&s, 4, 6);			/* 3: ARP: unchanged */
	add(&s, 1);
	t_spec_init(&s, 6, 17);			/* 4: UDP v6 5000 -> 5 x 1200 - ... */
	s.pay_len = 5000;
	s.csum = T_CSUM_PARTIAL;
	add(&s, 0);
	t_spec_init(&s, 4, 17);			/* 5: an IPv4 fragment: unchanged */
	s.df = 0;
	s.frag = 0x2000;
	s.pay_len = 1000;
	add(&s, 0);
	t_spec_init(&s, 4, 6);			/* 6: truncated by the snaplen */
	s.pay_len = 3000;
	add(&s, 0);
	in[nin - 1].caplen = 200;
	t_spec_init(&s, 4, 17);			/* 7: UDP 64000 -> 54 x 1200 (or 640 x 100) */
	s.df = 0;
	s.pay_len = 64000;
	add(&s, 0);
	t_spec_init(&s, 4, 17);			/* 8: UDP, DF clear, 4000 bytes */
	s.df = 0;
	s.pay_len = 4000;
	s.ip_id = 0x4242;
	add(&s, 0);
}

static void
write_pcap(const char *name)
{
	char path[128];
	pcap_t *pd = pcap_open_dead(DLT_EN10MB, 262144);
	pcap_dumper_t *d;
	int i;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	d = pcap_dump_open(pd, path);
	assert_non_null(d);
	for (i = 0; i < nin; i++) {
		struct pcap_pkthdr h = { .ts = { .tv_sec = 100 + i }, .caplen = in[i].caplen,
					 .len = in[i].len };
		pcap_dump((u_char *)d, &h, in[i].d);
	}
	pcap_dump_close(d);
	pcap_close(pd);
}

static void
read_pcap(const char *name)
{
	char path[128], eb[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *p;

	for (int i = 0; i < nout; i++)
		free(outr[i].d);
	nout = 0;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	p = pcap_open_offline(path, eb);
	assert_non_null(p);
	while (pcap_next_ex(p, &h, &data) == 1) {
		assert_true(nout < MAXOUT);
		outr[nout].d = malloc(h->caplen);
		memcpy(outr[nout].d, data, h->caplen);
		outr[nout].caplen = h->caplen;
		outr[nout].len = h->len;
		outsec[nout] = h->ts.tv_sec;
		nout++;
	}
	pcap_close(p);
}

static int
run(const char *args)
{
	char cmd[PATH_MAX + 512];
	FILE *f;
	size_t n;
	int st;

	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' gso %s >stdout 2>stderr", dir, cli, args);
	st = system(cmd);
	assert_true(st != -1 && WIFEXITED(st));
	snprintf(cmd, sizeof(cmd), "%s/stdout", dir);
	f = fopen(cmd, "r");
	assert_non_null(f);
	n = fread(sout, 1, sizeof(sout) - 1, f);
	sout[n] = '\0';
	fclose(f);
	return WEXITSTATUS(st);
}

static unsigned long long
stat_of(const char *label)
{
	const char *s = strstr(sout, label);

	if (!s) {
		fprintf(stderr, "no '%s' in:\n%s", label, sout);
		fail();
	}
	return strtoull(s + strlen(label), NULL, 10);
}

/* The library's segments of input record i, flattened (COPY mode). */
static int
lib_segments(int i, const struct sofl_gso_params *gp, uint8_t **frames, uint32_t *lens)
{
	struct sofl_pkt p;
	struct sofl_gso_need need;
	struct sofl_gso_out o = { .mode = SOFL_GSO_COPY };
	static struct sofl_gso_seg seg[MAXOUT];
	static uint8_t buf[1 << 20];
	int n;

	assert_int_equal(sofl_pkt_parse(&p, in[i].d, in[i].caplen, SOFL_LINK_ETH), 0);
	assert_int_equal(sofl_gso_need(gp, &p, SOFL_GSO_COPY, 0, &need), 0);
	o.seg = seg;
	o.seg_cap = MAXOUT;
	o.buf = buf;
	o.buf_cap = sizeof(buf);
	n = sofl_gso_segment(gp, &p, NULL, 0, &o);
	assert_true(n > 0);
	for (int k = 0; k < n; k++) {
		frames[k] = seg[k].data;
		lens[k] = seg[k].len;
	}
	return n;
}

static int pos;

static void
expect_lib(int i, const struct sofl_gso_params *gp)
{
	uint8_t *f[MAXOUT];
	uint32_t l[MAXOUT];
	int n = lib_segments(i, gp, f, l);

	for (int k = 0; k < n; k++, pos++) {
		assert_true(pos < nout);
		assert_int_equal(outsec[pos], 100 + i);
		assert_int_equal(outr[pos].caplen, l[k]);
		assert_memory_equal(outr[pos].d, f[k], l[k]);
	}
}

static void
expect_same(int i)
{
	assert_true(pos < nout);
	assert_int_equal(outsec[pos], 100 + i);
	assert_int_equal(outr[pos].caplen, in[i].caplen);
	assert_int_equal(outr[pos].len, in[i].len);
	assert_memory_equal(outr[pos].d, in[i].d, in[i].caplen);
	pos++;
}

static void
test_segment_capture(void **state)
{
	struct sofl_gso_params tcp = { .type = SOFL_GSO_TCP, .gso_size = 1000 };
	struct sofl_gso_params udp = { .type = SOFL_GSO_UDP_L4, .gso_size = 1200 };
	(void)state;

	assert_int_equal(run("in.pcap -o out.pcap --mss 1000 --udp-gso-size 1200 --stats"), 0);
	read_pcap("out.pcap");
	pos = 0;
	expect_lib(0, &tcp);				/* 10 */
	expect_lib(1, &tcp);				/* 3 */
	{						/* the ACK: completed, padding kept */
		struct sofl_pkt p;
		enum sofl_csum_state a, b;
		assert_int_equal(outr[pos].caplen, in[2].caplen);
		assert_int_equal(sofl_pkt_parse(&p, outr[pos].d, outr[pos].caplen, SOFL_LINK_ETH), 0);
		sofl_pkt_csum_check(&p, &a, &b);
		assert_int_equal(b, SOFL_CSUM_VALID);
		assert_memory_equal(outr[pos].d, in[2].d, 14 + 20 + 16);
		assert_memory_equal(outr[pos].d + 14 + 38, in[2].d + 14 + 38,
				    in[2].caplen - 14 - 38);
		pos++;
	}
	expect_same(3);
	expect_lib(4, &udp);				/* 5 */
	expect_same(5);
	expect_same(6);
	expect_lib(7, &udp);				/* 54 */
	expect_lib(8, &udp);				/* 4 */
	assert_int_equal(pos, nout);
	assert_int_equal(stat_of("records in          "), 9);
	assert_int_equal(stat_of("records out         "), nout);
	assert_int_equal(stat_of("super-packets       "), 5);
	assert_int_equal(stat_of("segments out        "), 10 + 3 + 5 + 54 + 4);
	assert_int_equal(stat_of("passed through      "), 1);
	assert_int_equal(stat_of("checksums computed  "), 10 + 3 + 1 + 5 + 54 + 4);
	assert_non_null(strstr(sout, "1 truncated, 0 malformed, 1 not IP, 1 fragments, 0 refused"));
}

static void
test_refused_and_partial(void **state)
{
	struct sofl_gso_params udp = { .type = SOFL_GSO_UDP_L4, .gso_size = 100,
				       .flags = SOFL_GSO_F_CSUM_PARTIAL };
	struct sofl_gso_params tcp = { .type = SOFL_GSO_TCP, .gso_size = 100,
				       .flags = SOFL_GSO_F_CSUM_PARTIAL };
	(void)state;

	/* gso size 100: record 7 would need 640 datagrams (> 128): refused */
	assert_int_equal(run("--csum partial --udp-gso-size 100 --mss 100 in.pcap -o out.pcap --stats"), 0);
	read_pcap("out.pcap");
	pos = 0;
	expect_lib(0, &tcp);
	expect_lib(1, &tcp);
	pos++;						/* the ACK (partial again) */
	expect_same(3);
	expect_lib(4, &udp);
	expect_same(5);
	expect_same(6);
	expect_same(7);
	expect_lib(8, &udp);
	assert_int_equal(pos, nout);
	assert_non_null(strstr(sout, "1 refused"));
	assert_non_null(strstr(sout, "segmentation: too many segments"));
}

static void
test_mtu(void **state)
{
	struct sofl_gso_params frag = { .type = SOFL_GSO_IP_FRAG, .mtu = 1500 };
	(void)state;

	/* no --mss: the super-packets are fragmented instead — but record 0 has
	 * DF set: passed unchanged (refused) without --ignore-df */
	assert_int_equal(run("in.pcap -o out.pcap --mtu 1500 --stats"), 0);
	read_pcap("out.pcap");
	pos = 0;
	expect_same(0);
	frag.frag_id = 2;	/* IPv6 TCP 3059 > 1500: fragmented (no DF in IPv6) */
	expect_lib(1, &frag);
	pos++;			/* the ACK */
	expect_same(3);
	frag.frag_id = 5;
	expect_lib(4, &frag);
	expect_same(5);
	expect_same(6);
	frag.frag_id = 8;
	expect_lib(7, &frag);
	frag.frag_id = 9;
	expect_lib(8, &frag);
	assert_int_equal(pos, nout);
	assert_non_null(strstr(sout, "fragmentation needed but DF set"));
	/* with --ignore-df record 0 too */
	assert_int_equal(run("in.pcap -o out.pcap --mtu 1500 --ignore-df"), 0);
	read_pcap("out.pcap");
	pos = 0;
	frag.frag_id = 1;
	frag.flags = SOFL_GSO_F_IGNORE_DF;
	expect_lib(0, &frag);
}

static void
test_usage(void **state)
{
	(void)state;
	assert_int_equal(run("--help"), 0);
	assert_non_null(strstr(sout, "--udp-gso-size"));
	assert_int_equal(run("in.pcap"), 2);				/* no -o */
	assert_int_equal(run("in.pcap -o x.pcap --csum maybe"), 2);
	assert_int_equal(run("in.pcap -o x.pcap --mss 0"), 2);
	assert_int_equal(run("in.pcap -o x.pcap --mss 70000"), 2);
	assert_int_equal(run("in.pcap -o x.pcap --ignore-df"), 2);
	assert_int_equal(run("in.pcap -o x.pcap --bogus"), 2);
	assert_int_equal(run("missing.pcap -o x.pcap"), 2);
	assert_int_equal(run("in.pcap -o x.pcap --mtu 40"), 2);
}

static int
find_cli(void)
{
	char self[PATH_MAX];
	const char *env = getenv("SOFTOFFLOAD");
	ssize_t n;
	char *slash;

	if (env && *env) {
		snprintf(cli, sizeof(cli), "%s", env);
		return access(cli, X_OK) == 0;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return 0;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return 0;
	*slash = '\0';
	snprintf(cli, sizeof(cli), "%.*s/../softoffload", PATH_MAX - 20, self);
	return access(cli, X_OK) == 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_segment_capture),
		cmocka_unit_test(test_refused_and_partial),
		cmocka_unit_test(test_mtu),
		cmocka_unit_test(test_usage),
	};
	char cmd[128];
	int rc;

	if (!find_cli()) {
		fprintf(stderr, "softoffload CLI not built (make cli)\n");
		return T_SKIP;
	}
	snprintf(dir, sizeof(dir), "/tmp/sofl-gso-cli-XXXXXX");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "mkdtemp failed\n");
		return 1;
	}
	build_capture();
	write_pcap("in.pcap");
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	for (int i = 0; i < nin; i++)
		free(in[i].d);
	for (int i = 0; i < nout; i++)
		free(outr[i].d);
	return rc;
}
