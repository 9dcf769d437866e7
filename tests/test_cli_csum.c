/* Description: `softoffload csum` end to end: writes pcap/pcapng captures (Ethernet, raw IP, truncated records, unknown link type) to a temp dir, runs the CLI, checks every printed count, the exit codes 0/1/2 and the bytes --fix writes. */
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

/* The records of cap, as pcap (@link a DLT_) or pcapng (@link a LINKTYPE_). */
static void
write_cap(const char *name, int link, enum t_cap_fmt fmt)
{
	struct t_capw w;
	int i;

	t_capw_open(&w, name, link, fmt);
	for (i = 0; i < cap->n; i++)
		t_capw_put(&w, cap->r[i].d, cap->r[i].caplen, cap->r[i].len,
			   (uint64_t)(1700000000 + i) * 1000000 + (uint64_t)i);
	t_capw_close(&w);
}

/* ---- running the CLI ---- */

/* The number printed on the line "\t<N> <what>" of section "<section>:". */
static long long
count(const char *section, const char *what)
{
	char hdr[64];
	const char *s, *e, *l;

	snprintf(hdr, sizeof(hdr), "\n%s:\n", section);
	s = strstr(t_cli_out, hdr);
	if (!s) {
		fprintf(stderr, "no section '%s' in:\n%s", section, t_cli_out);
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
	fprintf(stderr, "no line '%s' in section '%s' of:\n%s", what, section, t_cli_out);
	fail();
	return -1;
}

/* Expected counts: "\t<n> <what>" in section "<section>:". */
struct cnt {
	const char *section, *what;
	long long n;
};

static void
check_counts(const struct cnt *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		long long got = count(c[i].section, c[i].what);

		if (got != c[i].n) {
			fprintf(stderr, "%s: %s: %lld, want %lld\n", c[i].section, c[i].what,
				got, c[i].n);
			fail();
		}
	}
}

#define CHECK_COUNTS(...) do {						\
	const struct cnt c_[] = { __VA_ARGS__ };			\
	check_counts(c_, sizeof(c_) / sizeof(c_[0]));			\
} while (0)

/* Reads OUT back and compares each record with want (or want_z). */
static void
check_fixed(const char *name, int udp_zero)
{
	struct pcap_pkthdr *h;
	const u_char *d;
	pcap_t *p = t_cli_open_pcap(name);
	int i;

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
	CHECK_COUNTS(
		{ "ip", "IPv4 headers checked", raw ? 10 : 11 },
		{ "ip", "with a valid header checksum", raw ? 9 : 10 },
		{ "ip", "with a bad header checksum", 1 },
		{ "ip", "IPv6 packets (no header checksum)", 2 },
		{ "tcp", "segments checked", raw ? 5 : 6 },
		{ "tcp", "with a valid checksum", raw ? 2 : 3 },
		{ "tcp", "with a bad checksum", 1 },
		{ "tcp", "with a partial checksum (pseudo-header only)", 2 },
		{ "udp", "datagrams checked", 4 },
		{ "udp", "with a valid checksum", 2 },
		{ "udp", "with a bad checksum", 1 },
		{ "udp", "with a partial checksum (pseudo-header only)", 0 },
		{ "udp", "without checksum (IPv4, zero)", 1 },
		{ "other", "packets not IP (ARP, ...)", raw ? 0 : 1 },
		{ "other", "IP packets neither TCP nor UDP (ICMP, ...)", 1 },
		{ "other", "IP fragments (transport checksum not checked)", 1 },
		{ "capture", "records truncated (caplen < len)", 0 },
		{ "capture", "malformed packets", 1 },
		{ "capture", "malformed: TCP data offset < 5", 1 });
}

static void
test_mixed_pcap(void **state)
{
	(void)state;
	build_mixed(0);
	write_cap("mixed.pcap", DLT_EN10MB, T_CAP_PCAP);
	assert_int_equal(t_cli_run("csum", "mixed.pcap"), 1);
	assert_non_null(strstr(t_cli_out, "mixed.pcap: 14 records (Ethernet)\n"));
	check_mixed_counts(0);
	assert_null(strstr(t_cli_out, "software-checksummed"));	/* only with --fix */
	assert_string_equal(t_cli_err, "");
	assert_int_equal(t_cli_run("csum", "-q mixed.pcap"), 1);
	assert_string_equal(t_cli_out, "");
}

static void
test_mixed_pcapng(void **state)
{
	(void)state;
	build_mixed(0);
	write_cap("mixed.pcapng", 1, T_CAP_PCAPNG);
	assert_int_equal(t_cli_run("csum", "mixed.pcapng"), 1);
	assert_non_null(strstr(t_cli_out, "mixed.pcapng: 14 records (Ethernet)\n"));
	check_mixed_counts(0);
}

static void
test_raw_ip(void **state)
{
	(void)state;
	build_mixed(1);
	write_cap("raw.pcap", DLT_RAW, T_CAP_PCAP);
	assert_int_equal(t_cli_run("csum", "raw.pcap"), 1);
	assert_non_null(strstr(t_cli_out, "raw.pcap: 12 records (raw IP)\n"));
	check_mixed_counts(1);
	/* pcapng with LINKTYPE_RAW (101) */
	write_cap("raw.pcapng", 101, T_CAP_PCAPNG);
	assert_int_equal(t_cli_run("csum", "raw.pcapng"), 1);
	check_mixed_counts(1);
}

static void
test_fix(void **state)
{
	(void)state;
	build_mixed(0);
	write_cap("mixed.pcap", DLT_EN10MB, T_CAP_PCAP);
	assert_int_equal(t_cli_run("csum", "mixed.pcap --fix -o fixed.pcap"), 1);
	check_mixed_counts(0);
	CHECK_COUNTS(
		{ "ip", "IPv4 headers software-checksummed", 1 },
		{ "tcp", "segments software-checksummed", 3 },
		{ "udp", "datagrams software-checksummed", 1 },
		{ "capture", "records written to fixed.pcap", 14 });
	check_fixed("fixed.pcap", 0);
	/* the fixed capture: nothing bad or partial left; the malformed one stays */
	assert_int_equal(t_cli_run("csum", "fixed.pcap"), 1);
	CHECK_COUNTS(
		{ "ip", "with a bad header checksum", 0 },
		{ "tcp", "with a valid checksum", 6 },
		{ "tcp", "with a bad checksum", 0 },
		{ "tcp", "with a partial checksum (pseudo-header only)", 0 },
		{ "udp", "with a valid checksum", 3 },
		{ "udp", "with a bad checksum", 0 },
		{ "udp", "without checksum (IPv4, zero)", 1 },
		{ "capture", "malformed packets", 1 });

	assert_int_equal(t_cli_run("csum", "mixed.pcap --fix --udp-zero -o fixedz.pcap"), 1);
	assert_int_equal(count("udp", "datagrams software-checksummed"), 2);
	check_fixed("fixedz.pcap", 1);
	assert_int_equal(t_cli_run("csum", "fixedz.pcap"), 1);
	assert_int_equal(count("udp", "with a valid checksum"), 4);
	assert_int_equal(count("udp", "without checksum (IPv4, zero)"), 0);

	/* capture to stdout: statistics move to stderr */
	assert_int_equal(t_cli_run("csum", "mixed.pcap --fix -o -"), 1);
	assert_true((uint8_t)t_cli_out[0] == 0xd4 || (uint8_t)t_cli_out[0] == 0x4d);	/* pcap magic */
	assert_non_null(strstr(t_cli_err, "\t3 segments software-checksummed\n"));
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
	write_cap("clean.pcap", DLT_EN10MB, T_CAP_PCAP);
	assert_int_equal(t_cli_run("csum", "clean.pcap"), 0);
	assert_int_equal(count("tcp", "with a partial checksum (pseudo-header only)"), 2);
	assert_int_equal(count("udp", "without checksum (IPv4, zero)"), 1);
	assert_int_equal(count("udp", "with a valid checksum"), 1);
	/* empty capture: fine */
	cap->n = 0;
	write_cap("empty.pcap", DLT_EN10MB, T_CAP_PCAP);
	assert_int_equal(t_cli_run("csum", "empty.pcap"), 0);
	assert_non_null(strstr(t_cli_out, "empty.pcap: 0 records (Ethernet)\n"));
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
	write_cap("trunc.pcap", DLT_EN10MB, T_CAP_PCAP);
	assert_int_equal(t_cli_run("csum", "trunc.pcap --fix -o trunc-fixed.pcap"), 1);
	CHECK_COUNTS(
		{ "capture", "records truncated (caplen < len)", 7 },
		{ "capture", "malformed packets", 0 },
		{ "other", "IP fragments (transport checksum not checked)", 1 },
		{ "ip", "IPv4 headers checked", 5 },
		{ "ip", "with a valid header checksum", 4 },
		{ "ip", "with a bad header checksum", 1 },
		{ "ip", "IPv4 headers software-checksummed", 1 },
		{ "ip", "IPv6 packets (no header checksum)", 1 },
		{ "tcp", "segments checked", 0 },
		{ "tcp", "not verifiable (truncated by the capture)", 2 },
		{ "udp", "not verifiable (truncated by the capture)", 1 },
		{ "udp", "with a valid checksum", 1 },
		{ "capture", "records written to trunc-fixed.pcap", 7 });
	check_fixed("trunc-fixed.pcap", 0);
	assert_int_equal(t_cli_run("csum", "trunc-fixed.pcap"), 0);
	assert_int_equal(count("ip", "with a bad header checksum"), 0);
}

static void
test_errors(void **state)
{
	struct t_spec s;
	char path[PATH_MAX];

	(void)state;
	cap->n = 0;
	t_spec_init(&s, 4, 6);
	add_spec(&s);
	write_cap("ppp.pcap", DLT_PPP, T_CAP_PCAP);
	assert_int_equal(t_cli_run("csum", "ppp.pcap"), 2);
	assert_string_equal(t_cli_out, "");
	assert_non_null(strstr(t_cli_err, "unsupported link type"));
	assert_non_null(strchr(t_cli_err, '\n'));
	assert_true(strchr(t_cli_err, '\n')[1] == '\0');	/* one line */
	assert_int_equal(t_cli_run("csum", "ppp.pcap --fix -o never.pcap"), 2);
	assert_int_equal(access(t_cli_file(path, sizeof(path), "never.pcap"), F_OK), -1);

	assert_int_equal(t_cli_run("csum", "does-not-exist.pcap"), 2);
	assert_string_equal(t_cli_out, "");
	t_cli_write_file("garbage.pcap", "this is not a capture file at all\n");
	assert_int_equal(t_cli_run("csum", "garbage.pcap"), 2);
	assert_true(strchr(t_cli_err, '\n')[1] == '\0');

	/* a file cut in the middle of its last record: counts, then exit 2 */
	t_spec_init(&s, 4, 6); s.pay_len = 200;
	add_spec(&s);
	write_cap("cut.pcap", DLT_EN10MB, T_CAP_PCAP);
	t_cli_file(path, sizeof(path), "cut.pcap");
	assert_int_equal(truncate(path, 24 + 16 + 54 + 16 + 100), 0);
	assert_int_equal(t_cli_run("csum", "cut.pcap"), 2);
	assert_non_null(strstr(t_cli_out, "cut.pcap: 1 records (Ethernet)\n"));

	assert_int_equal(t_cli_run("csum", "%s", ""), 2);
	assert_int_equal(t_cli_run("csum", "mixed.pcap --fix"), 2);
	assert_int_equal(t_cli_run("csum", "mixed.pcap -o x.pcap"), 2);
	assert_int_equal(t_cli_run("csum", "mixed.pcap --bogus"), 2);
	assert_int_equal(t_cli_run("csum", "a.pcap b.pcap"), 2);
	assert_int_equal(t_cli_run("csum", "--help"), 0);
	assert_non_null(strstr(t_cli_out, "partial"));
	assert_non_null(strstr(t_cli_out, "Exit status"));
}

static int
setup(void **state)
{
	(void)state;
	cap = calloc(1, sizeof(*cap));
	return cap ? 0 : -1;
}

static int
teardown(void **state)
{
	(void)state;
	free(cap);
	return 0;
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

	int rc = t_cli_init("cli-csum");

	if (rc)
		return rc;
	rc = cmocka_run_group_tests(tests, setup, teardown);
	return t_cli_fini() ? 1 : rc;
}
