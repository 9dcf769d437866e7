/* Description: `softoffload rss` end to end: writes pcap/pcapng captures (Ethernet, raw IP, VLAN, fragments, ARP, malformed and snap-truncated records) to a temp dir, runs the CLI and checks every tsv line and the text counts against the library's own hashes, plus --symmetric, --key, --table (entries and weights) and the exit-2 errors. */
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
#include "softoffload/rss.h"

#define MAXREC 64

struct rec {
	uint8_t d[1600];
	uint32_t caplen, len;
	int link;
};

static struct rec recs[MAXREC];
static int nrec;
static char cli[PATH_MAX], dir[64];
static char out[1 << 16], err[4096];
static struct sofl_rss eng;	/* the expectation */

static struct rec *
add(const struct t_spec *s)
{
	struct rec *r = &recs[nrec++];

	assert_true(nrec <= MAXREC);
	r->caplen = r->len = (uint32_t)t_build(r->d, sizeof(r->d), s);
	r->link = s->link;
	return r;
}

static void
write_pcap(const char *name, int dlt)
{
	char path[128];
	pcap_t *p = pcap_open_dead(dlt, 65535);
	pcap_dumper_t *d;
	int i;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(p);
	d = pcap_dump_open(p, path);
	assert_non_null(d);
	for (i = 0; i < nrec; i++) {
		struct pcap_pkthdr h;

		memset(&h, 0, sizeof(h));
		h.ts.tv_sec = 1700000000 + i;
		h.caplen = recs[i].caplen;
		h.len = recs[i].len;
		pcap_dump((u_char *)d, &h, recs[i].d);
	}
	pcap_dump_close(d);
	pcap_close(p);
}

static void
le32(FILE *f, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };

	assert_int_equal(fwrite(b, 1, 4, f), 4);
}

/* pcapng (libpcap cannot write it): SHB, one IDB, an EPB per record. */
static void
write_pcapng(const char *name, uint32_t linktype)
{
	static const uint8_t pad[4];
	char path[128];
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	le32(f, 0x0a0d0d0a); le32(f, 28); le32(f, 0x1a2b3c4d); le32(f, 1);
	le32(f, 0xffffffff); le32(f, 0xffffffff); le32(f, 28);
	le32(f, 1); le32(f, 20); le32(f, linktype); le32(f, 65535); le32(f, 20);
	for (i = 0; i < nrec; i++) {
		uint32_t c = recs[i].caplen, pl = (4 - c % 4) % 4, tot = 32 + c + pl;

		le32(f, 6); le32(f, tot); le32(f, 0); le32(f, 0); le32(f, (uint32_t)i);
		le32(f, c); le32(f, recs[i].len);
		assert_int_equal(fwrite(recs[i].d, 1, c, f), c);
		assert_int_equal(fwrite(pad, 1, pl, f), pl);
		le32(f, tot);
	}
	assert_int_equal(fclose(f), 0);
}

static void
write_file(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void
slurp(const char *name, char *buf, size_t cap)
{
	char path[128];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	assert_non_null(f);
	n = fread(buf, 1, cap - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* "softoffload rss ARGS" in the temp dir; stdout/stderr into out/err. */
static int
run(const char *fmt, ...)
{
	char args[512], cmd[PATH_MAX + 1024];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' rss %s >stdout 2>stderr", dir, cli, args);
	st = system(cmd);
	assert_true(st != -1 && WIFEXITED(st));
	slurp("stdout", out, sizeof(out));
	slurp("stderr", err, sizeof(err));
	return WEXITSTATUS(st);
}

/* The expected tsv line of record i: the library on the whole packet. */
static void
expect_line(int i, int hashed, char *line, size_t cap)
{
	struct sofl_pkt p;
	struct sofl_rss_out o;

	sofl_pkt_parse(&p, recs[i].d, recs[i].len, (enum sofl_link)recs[i].link);
	if (hashed && sofl_rss_pkt(&eng, &p, &o) > 0)
		snprintf(line, cap, "%d\t0x%08x\t%u\n", i + 1, o.hash, o.queue);
	else
		snprintf(line, cap, "%d\t-\t-\n", i + 1);
}

/* stdout must be exactly the expected lines; hashed[i] = 0 forces '-'. */
static void
check_tsv(const int *hashed)
{
	static char want[1 << 16];
	size_t o = 0;
	int i;

	want[0] = '\0';
	for (i = 0; i < nrec; i++) {
		expect_line(i, hashed ? hashed[i] : 1, want + o, sizeof(want) - o);
		o += strlen(want + o);
	}
	if (strcmp(out, want)) {
		fprintf(stderr, "tsv differs.\ngot:\n%swant:\n%s", out, want);
		fail();
	}
}

/* The number after "<label>" in out. */
static long
num_after(const char *label)
{
	const char *s = strstr(out, label);

	if (!s) {
		fprintf(stderr, "no '%s' in:\n%s", label, out);
		fail();
	}
	return strtol(s + strlen(label), NULL, 10);
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
	write_pcap("m.pcap", DLT_EN10MB);
	assert_int_equal(sofl_rss_init(&eng, NULL, 0, 4, 0), 0);
	assert_int_equal(run("m.pcap --queues 4 --format tsv"), 0);
	check_tsv(hashed);
	/* spot checks independent of expect_line(): ARP and the malformed one */
	assert_non_null(strstr(out, "16\t-\t-\n17\t-\t-\n"));
	/* pcapng gives the same lines */
	write_pcapng("m.pcapng", 1);
	assert_int_equal(run("m.pcapng --format tsv --queues 4"), 0);
	check_tsv(hashed);
	assert_string_equal(err, "");
}

static void
test_text_mixed(void **state)
{
	int hashed[MAXREC], i;
	unsigned long long pk[8] = { 0 };
	char label[32];
	(void)state;

	mixed(hashed);
	write_pcap("m.pcap", DLT_EN10MB);
	assert_int_equal(sofl_rss_init(&eng, NULL, 0, 8, 0), 0);
	for (i = 0; i < nrec; i++) {
		struct sofl_pkt p;
		struct sofl_rss_out o;

		sofl_pkt_parse(&p, recs[i].d, recs[i].len, SOFL_LINK_ETH);
		if (hashed[i] && sofl_rss_pkt(&eng, &p, &o) > 0)
			pk[o.queue]++;
	}
	assert_int_equal(run("m.pcap --queues 8"), 0);
	assert_int_equal(num_after("m.pcap: "), nrec);
	assert_int_equal(num_after("hashed "), nrec - 3);
	/* "no hash: <not IP> not IP, <malformed> malformed, <n> hash input not captured" */
	assert_int_equal(num_after("no hash: "), 1);	/* ARP */
	assert_int_equal(num_after("not IP, "), 1);	/* the cut IP header */
	assert_int_equal(num_after("malformed, "), 1);	/* the cut UDP header */
	assert_int_equal(num_after("IPv4 "), 2);		/* ICMP + fragment */
	assert_int_equal(num_after("IPv4/TCP "), 5);
	assert_int_equal(num_after("IPv4/UDP "), 4);
	assert_int_equal(num_after("IPv6/TCP "), 4);	/* 3 + VLAN */
	for (i = 0; i < 8; i++) {
		snprintf(label, sizeof(label), "\n%d\t", i);
		assert_int_equal(num_after(label), pk[i]);
	}
	/* 18 packets; ICMP and the TCP fragment share their 2-tuple: 17 flows */
	assert_non_null(strstr(out, "\ntotal\t18\t17\n"));
	assert_non_null(strstr(out, "spread (max/mean per queue"));
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
	write_pcap("sym.pcap", DLT_EN10MB);
	assert_int_equal(sofl_rss_init(&eng, NULL, 0, 16, SOFL_RSS_SYMMETRIC), 0);
	assert_int_equal(run("sym.pcap --queues 16 --symmetric --format tsv"), 0);
	check_tsv(NULL);
	for (l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		assert_int_equal(sscanf(l, "%*d\t%x", &h[n++]), 1);
	assert_int_equal(n, 20);
	for (i = 0; i < 20; i += 2)
		assert_int_equal(h[i], h[i + 1]);
	/* one flow per connection */
	assert_int_equal(run("sym.pcap --queues 16 --symmetric"), 0);
	assert_non_null(strstr(out, "\ntotal\t20\t10\n"));
	/* without: two flows per connection and (here) no equal pair */
	assert_int_equal(run("sym.pcap --queues 16 --format tsv"), 0);
	n = 0;
	save = NULL;
	for (l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
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
	write_pcap("raw.pcap", DLT_RAW);
	write_pcapng("raw.pcapng", 101);

	/* a custom key, with and without separators */
	assert_int_equal(sofl_rss_init(&eng, key, 40, 3, 0), 0);
	assert_int_equal(run("raw.pcap --queues 3 --format tsv --key %s", hex), 0);
	check_tsv(NULL);
	assert_int_equal(run("raw.pcapng --queues 3 --format tsv --key "
			     "0123456789abcdeffedcba987654321000112233445566778899aabbccddeeff0f1e2d3c4b5a6978"), 0);
	check_tsv(NULL);

	/* an explicit 8-entry table */
	write_file("t8", "# reversed\n7\n6\n5\n4\n3\n2 1\n0\n");
	assert_int_equal(sofl_rss_init(&eng, NULL, 0, 8, 0), 0);
	assert_int_equal(sofl_rss_reta_fill(&eng, 8, 8), 0);
	for (i = 0; i < 8; i++)
		assert_int_equal(sofl_rss_reta_set(&eng, (unsigned)i, 7u - (unsigned)i), 0);
	assert_int_equal(run("raw.pcap --queues 8 --table t8 --format tsv"), 0);
	check_tsv(NULL);

	/* weights: queues 0 and 2 only, 1:3 */
	write_file("tw", "weight 1 0 3 0   # ethtool -X weight\n");
	assert_int_equal(sofl_rss_init(&eng, NULL, 0, 4, 0), 0);
	assert_int_equal(sofl_rss_reta_weights(&eng, 128, w, 4), 0);
	assert_int_equal(run("raw.pcap --queues 4 --table tw --format tsv"), 0);
	check_tsv(NULL);
	assert_null(strstr(out, "\t1\n"));
	assert_null(strstr(out, "\t3\n"));
	assert_int_equal(run("raw.pcap --queues 4 --table tw"), 0);
	assert_non_null(strstr(out, "\n1\t0\t0\n"));
	assert_non_null(strstr(out, "(raw IP)"));
}

static int
truncate_file(const char *name, long len)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return truncate(path, len);
}

/* exit 2 with exactly one line on stderr */
static void
fails(const char *args)
{
	const char *nl;

	if (run("%s", args) != 2 || !(nl = strchr(err, '\n')) || nl[1] != '\0' || out[0]) {
		fprintf(stderr, "args '%s': stdout '%s' stderr '%s'\n", args, out, err);
		fail();
	}
}

static void
test_errors(void **state)
{
	struct t_spec s;
	(void)state;

	reset();
	t_spec_init(&s, 4, 6);
	add(&s);
	write_pcap("ok.pcap", DLT_EN10MB);
	write_pcap("wifi.pcap", 105);	/* IEEE 802.11: not Ethernet or raw IP */
	write_file("notpcap", "hello\n");
	write_file("t3", "0\n1\n2\n");
	write_file("tbig", "0\n9\n");
	write_file("tbad", "0\nx\n");
	write_file("tw0", "weight 0 0\n");
	write_file("tw9", "weight 1 1 1 1 1\n");
	fails("missing.pcap --queues 4");
	fails("notpcap --queues 4");
	fails("wifi.pcap --queues 4");
	fails("ok.pcap");
	fails("ok.pcap --queues 0");
	fails("ok.pcap --queues 70000");
	fails("ok.pcap --queues");
	fails("ok.pcap --queues 4 --bogus");
	fails("ok.pcap --queues 4 --format xml");
	fails("ok.pcap --queues 4 --key 6d5a56da");
	fails("ok.pcap --queues 4 --key zz5a56da255b0ec24167253d43a38fb0d0ca2bcbae7b30b477cb2da38030f20c6a42b73bbeac01fa");
	fails("ok.pcap --queues 4 --table t3");
	fails("ok.pcap --queues 4 --table tbig");
	fails("ok.pcap --queues 4 --table tbad");
	fails("ok.pcap --queues 4 --table tw0");
	fails("ok.pcap --queues 4 --table tw9");
	fails("ok.pcap --queues 4 --table nosuchfile");
	fails("ok.pcap other.pcap --queues 4");
	assert_int_equal(run("--help"), 0);
	assert_non_null(strstr(out, "--table TFILE"));
	assert_non_null(strstr(out, "weight W0 W1"));
	/* a file cut inside its second record: the first is reported, exit 2 */
	reset();
	t_spec_init(&s, 4, 6);
	add(&s);
	add(&s);
	write_pcap("cut.pcap", DLT_EN10MB);
	assert_int_equal(truncate_file("cut.pcap", 24 + 16 + recs[0].len + 16 + 10), 0);
	assert_int_equal(sofl_rss_init(&eng, NULL, 0, 4, 0), 0);
	assert_int_equal(run("cut.pcap --queues 4 --format tsv"), 2);
	nrec = 1;
	check_tsv(NULL);
	assert_non_null(strchr(err, '\n'));
	assert_int_equal(strchr(err, '\n')[1], '\0');
	/* an empty capture is fine */
	reset();
	write_pcap("empty.pcap", DLT_EN10MB);
	assert_int_equal(run("empty.pcap --queues 2 --format tsv"), 0);
	assert_string_equal(out, "");
	assert_int_equal(run("empty.pcap --queues 2"), 0);
	assert_int_equal(num_after("total\t"), 0);
}

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/sofl-cli-rss-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* $SOFTOFFLOAD, else $BUILD/softoffload, else the one next to our tests/ dir. */
static int
find_cli(void)
{
	char self[PATH_MAX];
	const char *env = getenv("SOFTOFFLOAD"), *build = getenv("BUILD");
	ssize_t n;
	char *slash;

	if (env && *env) {
		snprintf(cli, sizeof(cli), "%s", env);
		return access(cli, X_OK) == 0;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(cli, sizeof(cli), "%.*s/../softoffload", PATH_MAX - 20, self);
			if (access(cli, X_OK) == 0)
				return 1;
		}
	}
	if (build && *build) {
		snprintf(cli, sizeof(cli), "%.*s/softoffload", PATH_MAX - 20, build);
		return access(cli, X_OK) == 0;
	}
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tsv_mixed),
		cmocka_unit_test(test_text_mixed),
		cmocka_unit_test(test_symmetric),
		cmocka_unit_test(test_key_table_raw),
		cmocka_unit_test(test_errors),
	};

	if (!find_cli()) {
		fprintf(stderr, "skip: CLI not built (%s); set SOFTOFFLOAD=path\n", cli);
		return T_SKIP;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
