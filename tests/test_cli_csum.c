/* Description: `softoffload csum` end to end: writes pcap/pcapng captures (Ethernet, raw IP, truncated records, unknown link type) to a temp dir, runs the CLI, checks every printed count, the exit codes 0/1/2 and the bytes --fix writes. */
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

#define MAXREC 32
#define RECSZ  2048

struct rec {
	uint8_t d[RECSZ];
	uint32_t caplen, len;
	uint8_t want[RECSZ];	/* what --fix must write */
	uint8_t want_z[RECSZ];	/* ... with --udp-zero */
};

struct cap {
	struct rec r[MAXREC];
	int n;
};

static char cli[PATH_MAX];
static char dir[64];
static struct cap *cap;		/* scratch capture, rebuilt by each test */

/* ---- building captures ---- */

static struct rec *
add_spec(const struct t_spec *s)
{
	struct rec *r = &cap->r[cap->n++];

	assert_true(cap->n <= MAXREC);
	r->caplen = r->len = (uint32_t)t_build(r->d, sizeof(r->d), s);
	memcpy(r->want, r->d, r->len);
	memcpy(r->want_z, r->d, r->len);
	return r;
}

/* The packet as t_build makes it with every checksum full: what --fix must produce. */
static void
want_full(struct rec *r, const struct t_spec *s)
{
	struct t_spec f = *s;

	f.csum = T_CSUM_FULL;
	f.udp_zero_csum = 0;
	assert_int_equal(t_build(r->want, sizeof(r->want), &f), r->len);
	memcpy(r->want_z, r->want, r->len);
}

static uint32_t
l4off(const struct t_spec *s)
{
	uint32_t o = s->link == SOFL_LINK_ETH ? 14 + 4 * (uint32_t)s->nvlan : 0;
	int i;

	if (s->ipv == 4)
		return o + 20 + (uint32_t)s->ip_opts_len;
	o += 40;
	for (i = 0; i < s->n_ext; i++)
		o += s->ext[i].type == 44 ? 8 : s->ext[i].len;
	return o;
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
	for (i = 0; i < cap->n; i++) {
		struct pcap_pkthdr h;

		memset(&h, 0, sizeof(h));
		h.ts.tv_sec = 1700000000 + i;
		h.ts.tv_usec = i;
		h.caplen = cap->r[i].caplen;
		h.len = cap->r[i].len;
		pcap_dump((u_char *)d, &h, cap->r[i].d);
	}
	pcap_dump_close(d);
	pcap_close(p);
}

static void
put32le(FILE *f, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
	assert_int_equal(fwrite(b, 1, 4, f), 4);
}

/* libpcap reads pcapng but cannot write it: section header, one interface,
 * one enhanced packet block per record (pcapng spec, little endian). */
static void
write_pcapng(const char *name, uint16_t linktype)
{
	static const uint8_t zero[4];
	char path[128];
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	put32le(f, 0x0A0D0D0A); put32le(f, 28); put32le(f, 0x1A2B3C4D);
	put32le(f, 1);			/* version 1.0 */
	put32le(f, 0xffffffff); put32le(f, 0xffffffff);	/* section length unknown */
	put32le(f, 28);
	put32le(f, 1); put32le(f, 20); put32le(f, linktype); put32le(f, 65535); put32le(f, 20);
	for (i = 0; i < cap->n; i++) {
		const struct rec *r = &cap->r[i];
		uint32_t pad = (4 - r->caplen % 4) % 4, tot = 32 + r->caplen + pad;
		uint64_t ts = (uint64_t)(1700000000 + i) * 1000000;

		put32le(f, 6); put32le(f, tot); put32le(f, 0);
		put32le(f, (uint32_t)(ts >> 32)); put32le(f, (uint32_t)ts);
		put32le(f, r->caplen); put32le(f, r->len);
		assert_int_equal(fwrite(r->d, 1, r->caplen, f), r->caplen);
		assert_int_equal(fwrite(zero, 1, pad, f), pad);
		put32le(f, tot);
	}
	assert_int_equal(fclose(f), 0);
}

/* ---- running the CLI ---- */

static char out[1 << 16], err[4096];

static void
slurp(const char *name, char *buf, size_t cap_)
{
	char path[128];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	assert_non_null(f);
	n = fread(buf, 1, cap_ - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* Runs "softoffload csum ARGS" in the temp dir; stdout/stderr into out/err. */
static int
run(const char *fmt, ...)
{
	char args[512], cmd[PATH_MAX + 1024];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s' csum %s >stdout 2>stderr", dir, cli, args);
	st = system(cmd);
	assert_true(st != -1 && WIFEXITED(st));
	slurp("stdout", out, sizeof(out));
	slurp("stderr", err, sizeof(err));
	return WEXITSTATUS(st);
}

/* The number printed on the line "\t<N> <what>" of section "<section>:". */
static long long
count(const char *section, const char *what)
{
	char hdr[64];
	const char *s, *e, *l;

	snprintf(hdr, sizeof(hdr), "\n%s:\n", section);
	s = strstr(out, hdr);
	if (!s) {
		fprintf(stderr, "no section '%s' in:\n%s", section, out);
		fail();
	}
	s += strlen(hdr);
	e = strstr(s, ":\n");		/* the next section header */
	e = e ? e : s + strlen(s);
	for (l = s; l < e; l = strchr(l, '\n') + 1) {
		char *end;
		long long n = strtoll(l + 1, &end, 10);

		if (l[0] == '\t' && *end == ' ' && !strncmp(end + 1, what, strlen(what)) &&
		    end[1 + strlen(what)] == '\n')
			return n;
	}
	fprintf(stderr, "no line '%s' in section '%s' of:\n%s", what, section, out);
	fail();
	return -1;
}

/* Reads OUT back and compares each record with want (or want_z). */
static void
check_fixed(const char *name, int udp_zero)
{
	char path[128], eb[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *d;
	pcap_t *p;
	int i;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	p = pcap_open_offline(path, eb);
	assert_non_null(p);
	for (i = 0; i < cap->n; i++) {
		const struct rec *r = &cap->r[i];
		const uint8_t *w = udp_zero ? r->want_z : r->want;

		assert_int_equal(pcap_next_ex(p, &h, &d), 1);
		assert_int_equal(h->caplen, r->caplen);
		assert_int_equal(h->len, r->len);
		if (memcmp(d, w, r->caplen)) {
			fprintf(stderr, "record %d differs\n", i);
			t_hexdump("written", d, h->caplen);
			t_hexdump("wanted", w, r->caplen);
			fail();
		}
	}
	assert_int_equal(pcap_next_ex(p, &h, &d), PCAP_ERROR_BREAK);	/* no extra records */
	pcap_close(p);
}

/* ---- the captures ---- */

/* One of each case on Ethernet (or raw IP when @raw: no ARP, no VLAN). */
static void
build_mixed(int raw)
{
	struct t_spec s;
	struct rec *r;
	uint32_t o;
	int link = raw ? SOFL_LINK_RAW : SOFL_LINK_ETH;

	cap->n = 0;
	t_spec_init(&s, 4, 6); s.link = link; s.pay_len = 100;
	add_spec(&s);					/* TCP4 valid */
	s.csum = T_CSUM_PARTIAL;
	r = add_spec(&s); want_full(r, &s);		/* TCP4 partial */
	s.csum = T_CSUM_FULL; s.seq = 77;
	r = add_spec(&s); want_full(r, &s);
	r->d[l4off(&s) + 16] ^= 0x55;			/* TCP4 bad */
	t_spec_init(&s, 6, 6); s.link = link; s.pay_len = 300; s.csum = T_CSUM_PARTIAL;
	s.n_ext = 1; s.ext[0].type = 0; s.ext[0].len = 8;
	r = add_spec(&s); want_full(r, &s);		/* TCP6 + HBH, partial */
	t_spec_init(&s, 4, 17); s.link = link; s.pay_len = 33;
	add_spec(&s);					/* UDP4 valid */
	s.udp_zero_csum = 1;
	r = add_spec(&s); want_full(r, &s);		/* UDP4 absent */
	memcpy(r->want, r->d, r->len);			/* --fix keeps it, --udp-zero fills it */
	t_spec_init(&s, 6, 17); s.link = link; s.pay_len = 20; s.udp_zero_csum = 1;
	r = add_spec(&s); want_full(r, &s);		/* UDP6 zero: bad */
	t_spec_init(&s, 4, 6); s.link = link; s.pay_len = 10; s.ip_id = 9;
	r = add_spec(&s);
	o = raw ? 0 : 14;
	r->d[o + 10] ^= 0x0f;				/* IPv4 header bad, TCP valid */
	if (!raw) {
		t_spec_init(&s, 4, 6);
		r = &cap->r[cap->n++];
		r->caplen = r->len = (uint32_t)t_build_arp(r->d, sizeof(r->d), &s);
		memcpy(r->want, r->d, r->len);
		memcpy(r->want_z, r->d, r->len);	/* ARP */
	}
	t_spec_init(&s, 4, 1); s.link = link; s.pay_len = 32;
	add_spec(&s);					/* ICMP */
	t_spec_init(&s, 4, 17); s.link = link; s.pay_len = 64; s.df = 0; s.frag = 0x2000;
	add_spec(&s);					/* first fragment */
	t_spec_init(&s, 4, 6); s.link = link; s.pay_len = 8;
	r = add_spec(&s);
	r->d[l4off(&s) + 12] = 0x40;			/* doff 4: malformed */
	memcpy(r->want, r->d, r->len);
	memcpy(r->want_z, r->d, r->len);
	t_spec_init(&s, 4, 17); s.link = link; s.pay_len = 4; s.eth_pad = raw ? 0 : 14;
	r = add_spec(&s);
	memset(r->d + r->len - s.eth_pad, 0xAA, s.eth_pad);	/* non-zero padding */
	memcpy(r->want, r->d, r->len);
	memcpy(r->want_z, r->d, r->len);		/* UDP4 valid, padded */
	if (!raw) {
		t_spec_init(&s, 4, 6); s.nvlan = 1; s.vlan_tci[0] = 42; s.pay_len = 500;
		add_spec(&s);				/* TCP4 in a VLAN, valid */
	}
}

static void
check_mixed_counts(int raw)
{
	assert_int_equal(count("ip", "IPv4 headers checked"), raw ? 10 : 11);
	assert_int_equal(count("ip", "with a valid header checksum"), raw ? 9 : 10);
	assert_int_equal(count("ip", "with a bad header checksum"), 1);
	assert_int_equal(count("ip", "IPv6 packets (no header checksum)"), 2);
	assert_int_equal(count("tcp", "segments checked"), raw ? 5 : 6);
	assert_int_equal(count("tcp", "with a valid checksum"), raw ? 2 : 3);
	assert_int_equal(count("tcp", "with a bad checksum"), 1);
	assert_int_equal(count("tcp", "with a partial checksum (pseudo-header only)"), 2);
	assert_int_equal(count("udp", "datagrams checked"), 4);
	assert_int_equal(count("udp", "with a valid checksum"), 2);
	assert_int_equal(count("udp", "with a bad checksum"), 1);
	assert_int_equal(count("udp", "with a partial checksum (pseudo-header only)"), 0);
	assert_int_equal(count("udp", "without checksum (IPv4, zero)"), 1);
	assert_int_equal(count("other", "packets not IP (ARP, ...)"), raw ? 0 : 1);
	assert_int_equal(count("other", "IP packets neither TCP nor UDP (ICMP, ...)"), 1);
	assert_int_equal(count("other", "IP fragments (transport checksum not checked)"), 1);
	assert_int_equal(count("capture", "records truncated (caplen < len)"), 0);
	assert_int_equal(count("capture", "malformed packets"), 1);
	assert_int_equal(count("capture", "malformed: TCP data offset < 5"), 1);
}

static void
test_mixed_pcap(void **state)
{
	(void)state;
	build_mixed(0);
	write_pcap("mixed.pcap", DLT_EN10MB);
	assert_int_equal(run("mixed.pcap"), 1);
	assert_non_null(strstr(out, "mixed.pcap: 14 records (Ethernet)\n"));
	check_mixed_counts(0);
	assert_null(strstr(out, "software-checksummed"));	/* only with --fix */
	assert_string_equal(err, "");
	assert_int_equal(run("-q mixed.pcap"), 1);
	assert_string_equal(out, "");
}

static void
test_mixed_pcapng(void **state)
{
	(void)state;
	build_mixed(0);
	write_pcapng("mixed.pcapng", 1);
	assert_int_equal(run("mixed.pcapng"), 1);
	assert_non_null(strstr(out, "mixed.pcapng: 14 records (Ethernet)\n"));
	check_mixed_counts(0);
}

static void
test_raw_ip(void **state)
{
	(void)state;
	build_mixed(1);
	write_pcap("raw.pcap", DLT_RAW);
	assert_int_equal(run("raw.pcap"), 1);
	assert_non_null(strstr(out, "raw.pcap: 12 records (raw IP)\n"));
	check_mixed_counts(1);
	/* pcapng with LINKTYPE_RAW (101) */
	write_pcapng("raw.pcapng", 101);
	assert_int_equal(run("raw.pcapng"), 1);
	check_mixed_counts(1);
}

static void
test_fix(void **state)
{
	(void)state;
	build_mixed(0);
	write_pcap("mixed.pcap", DLT_EN10MB);
	assert_int_equal(run("mixed.pcap --fix -o fixed.pcap"), 1);
	check_mixed_counts(0);
	assert_int_equal(count("ip", "IPv4 headers software-checksummed"), 1);
	assert_int_equal(count("tcp", "segments software-checksummed"), 3);
	assert_int_equal(count("udp", "datagrams software-checksummed"), 1);
	assert_int_equal(count("capture", "records written to fixed.pcap"), 14);
	check_fixed("fixed.pcap", 0);
	/* the fixed capture: nothing bad or partial left; the malformed one stays */
	assert_int_equal(run("fixed.pcap"), 1);
	assert_int_equal(count("ip", "with a bad header checksum"), 0);
	assert_int_equal(count("tcp", "with a valid checksum"), 6);
	assert_int_equal(count("tcp", "with a bad checksum"), 0);
	assert_int_equal(count("tcp", "with a partial checksum (pseudo-header only)"), 0);
	assert_int_equal(count("udp", "with a valid checksum"), 3);
	assert_int_equal(count("udp", "with a bad checksum"), 0);
	assert_int_equal(count("udp", "without checksum (IPv4, zero)"), 1);
	assert_int_equal(count("capture", "malformed packets"), 1);

	assert_int_equal(run("mixed.pcap --fix --udp-zero -o fixedz.pcap"), 1);
	assert_int_equal(count("udp", "datagrams software-checksummed"), 2);
	check_fixed("fixedz.pcap", 1);
	assert_int_equal(run("fixedz.pcap"), 1);
	assert_int_equal(count("udp", "with a valid checksum"), 4);
	assert_int_equal(count("udp", "without checksum (IPv4, zero)"), 0);

	/* capture to stdout: statistics move to stderr */
	assert_int_equal(run("mixed.pcap --fix -o -"), 1);
	assert_true((uint8_t)out[0] == 0xd4 || (uint8_t)out[0] == 0x4d);	/* pcap magic */
	assert_non_null(strstr(err, "\t3 segments software-checksummed\n"));
}

/* Partial, absent and valid only: nothing is bad, exit 0. */
static void
test_clean_exit0(void **state)
{
	struct t_spec s;

	(void)state;
	cap->n = 0;
	t_spec_init(&s, 4, 6); s.pay_len = 1448; s.csum = T_CSUM_PARTIAL;
	add_spec(&s);
	t_spec_init(&s, 6, 6); s.pay_len = 1428; s.csum = T_CSUM_PARTIAL;
	add_spec(&s);
	t_spec_init(&s, 4, 17); s.pay_len = 10; s.udp_zero_csum = 1;
	add_spec(&s);
	t_spec_init(&s, 6, 17); s.pay_len = 10;
	add_spec(&s);
	write_pcap("clean.pcap", DLT_EN10MB);
	assert_int_equal(run("clean.pcap"), 0);
	assert_int_equal(count("tcp", "with a partial checksum (pseudo-header only)"), 2);
	assert_int_equal(count("udp", "without checksum (IPv4, zero)"), 1);
	assert_int_equal(count("udp", "with a valid checksum"), 1);
	/* empty capture: fine */
	cap->n = 0;
	write_pcap("empty.pcap", DLT_EN10MB);
	assert_int_equal(run("empty.pcap"), 0);
	assert_non_null(strstr(out, "empty.pcap: 0 records (Ethernet)\n"));
}

static void
test_truncated(void **state)
{
	struct t_spec s;
	struct rec *r;

	(void)state;
	cap->n = 0;
	t_spec_init(&s, 4, 6); s.pay_len = 1000;
	r = add_spec(&s); r->caplen = 54;		/* headers only */
	r = add_spec(&s); r->caplen = 40;		/* IPv4 header, part of TCP */
	r->d[24] ^= 0x01;				/* ... with a bad IP checksum */
	want_full(r, &s);
	t_spec_init(&s, 6, 6); s.pay_len = 1000;
	r = add_spec(&s); r->caplen = 60;
	t_spec_init(&s, 4, 17); s.pay_len = 500;
	r = add_spec(&s); r->caplen = 52;
	t_spec_init(&s, 4, 17); s.pay_len = 4; s.eth_pad = 14;
	r = add_spec(&s); r->caplen = 46;		/* only the Ethernet padding cut */
	t_spec_init(&s, 4, 6);
	r = add_spec(&s); r->caplen = 10;		/* not even an Ethernet header */
	t_spec_init(&s, 4, 17); s.df = 0; s.frag = 0x2000; s.pay_len = 800;
	r = add_spec(&s); r->caplen = 64;		/* a fragment: never verifiable */
	write_pcap("trunc.pcap", DLT_EN10MB);
	assert_int_equal(run("trunc.pcap --fix -o trunc-fixed.pcap"), 1);
	assert_int_equal(count("capture", "records truncated (caplen < len)"), 7);
	assert_int_equal(count("capture", "malformed packets"), 0);
	assert_int_equal(count("other", "IP fragments (transport checksum not checked)"), 1);
	assert_int_equal(count("ip", "IPv4 headers checked"), 5);
	assert_int_equal(count("ip", "with a valid header checksum"), 4);
	assert_int_equal(count("ip", "with a bad header checksum"), 1);
	assert_int_equal(count("ip", "IPv4 headers software-checksummed"), 1);
	assert_int_equal(count("ip", "IPv6 packets (no header checksum)"), 1);
	assert_int_equal(count("tcp", "segments checked"), 0);
	assert_int_equal(count("tcp", "not verifiable (truncated by the capture)"), 2);
	assert_int_equal(count("udp", "not verifiable (truncated by the capture)"), 1);
	assert_int_equal(count("udp", "with a valid checksum"), 1);
	assert_int_equal(count("capture", "records written to trunc-fixed.pcap"), 7);
	check_fixed("trunc-fixed.pcap", 0);
	assert_int_equal(run("trunc-fixed.pcap"), 0);
	assert_int_equal(count("ip", "with a bad header checksum"), 0);
}

static void
test_errors(void **state)
{
	struct t_spec s;
	char path[128];
	FILE *f;

	(void)state;
	cap->n = 0;
	t_spec_init(&s, 4, 6);
	add_spec(&s);
	write_pcap("ppp.pcap", DLT_PPP);
	assert_int_equal(run("ppp.pcap"), 2);
	assert_string_equal(out, "");
	assert_non_null(strstr(err, "unsupported link type"));
	assert_non_null(strchr(err, '\n'));
	assert_true(strchr(err, '\n')[1] == '\0');	/* one line */
	assert_int_equal(run("ppp.pcap --fix -o never.pcap"), 2);
	snprintf(path, sizeof(path), "%s/never.pcap", dir);
	assert_int_equal(access(path, F_OK), -1);

	assert_int_equal(run("does-not-exist.pcap"), 2);
	assert_string_equal(out, "");
	snprintf(path, sizeof(path), "%s/garbage.pcap", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("this is not a capture file at all\n", f);
	fclose(f);
	assert_int_equal(run("garbage.pcap"), 2);
	assert_true(strchr(err, '\n')[1] == '\0');

	/* a file cut in the middle of its last record: counts, then exit 2 */
	t_spec_init(&s, 4, 6); s.pay_len = 200;
	add_spec(&s);
	write_pcap("cut.pcap", DLT_EN10MB);
	snprintf(path, sizeof(path), "%s/cut.pcap", dir);
	assert_int_equal(truncate(path, 24 + 16 + 54 + 16 + 100), 0);
	assert_int_equal(run("cut.pcap"), 2);
	assert_non_null(strstr(out, "cut.pcap: 1 records (Ethernet)\n"));

	assert_int_equal(run(""), 2);
	assert_int_equal(run("mixed.pcap --fix"), 2);
	assert_int_equal(run("mixed.pcap -o x.pcap"), 2);
	assert_int_equal(run("mixed.pcap --bogus"), 2);
	assert_int_equal(run("a.pcap b.pcap"), 2);
	assert_int_equal(run("--help"), 0);
	assert_non_null(strstr(out, "partial"));
	assert_non_null(strstr(out, "Exit status"));
}

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/sofl-cli-csum-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	cap = calloc(1, sizeof(*cap));
	return cap ? 0 : -1;
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	free(cap);
	return system(cmd) == 0 ? 0 : -1;
}

/* The CLI: $SOFTOFFLOAD, else the softoffload next to our tests/ directory. */
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
		cmocka_unit_test(test_mixed_pcap),
		cmocka_unit_test(test_mixed_pcapng),
		cmocka_unit_test(test_raw_ip),
		cmocka_unit_test(test_fix),
		cmocka_unit_test(test_clean_exit0),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_errors),
	};

	if (!find_cli()) {
		fprintf(stderr, "skip: CLI not built (%s); set SOFTOFFLOAD=path\n", cli);
		return T_SKIP;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
