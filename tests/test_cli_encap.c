/* Description: `softoffload rss` and `softoffload csum` on a capture of tunnel packets (VXLAN, Geneve, IP-in-IP; outer IPv4 and IPv6; outer UDP checksum on and off) mixed with plain ones: the per-kind tunnel counters, rss hashing the outer header by default (the tsv tuple is the outer one, the hash the library's) and the inner flow with --inner, csum counting inner headers and outer checksums apart (bad inner and bad outer cases, exit 1), --fix writing a capture whose every inner and outer checksum verifies, and every new text counter equal to its --json field. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>
#include "helpers.h"
#include "encap_build.h"
#include "cli_util.h"

#define MAXREC 16
#define RECSZ 2048

struct rec {
	uint8_t d[RECSZ];
	uint32_t len;
};

static struct rec recs[MAXREC];
static int nrec;

static struct rec *
add_tun(int encap, int oipv, int iipv, int proto, int udp_csum)
{
	struct rec *r = &recs[nrec++];
	struct te_spec e;
	struct t_spec s;

	assert_true(nrec <= MAXREC);
	te_spec_init(&e, encap, oipv);
	e.udp_csum = udp_csum;
	e.sport = (uint16_t)(50000 + nrec);
	if (encap == SOFL_ENCAP_GENEVE)
		e.geneve_opt_len = 8;
	t_spec_init(&s, iipv, proto);
	s.pay_len = 40 + (size_t)nrec;
	s.sport = (uint16_t)(30000 + nrec);
	r->len = (uint32_t)te_build(r->d, RECSZ, &e, &s, NULL);
	return r;
}

static void
add_plain(int ipv, int proto)
{
	struct rec *r = &recs[nrec++];
	struct t_spec s;

	t_spec_init(&s, ipv, proto);
	s.pay_len = 33;
	r->len = (uint32_t)t_build(r->d, RECSZ, &s);
}

/* The capture: 9 tunnel packets, 2 plain; record 10 (VXLAN) has a bad
 * inner TCP checksum, record 11 (IP-in-IP) a bad outer IPv4 header. */
static void
build_capture(const char *name)
{
	struct t_capw w;
	struct sofl_pkt p;
	int i;

	nrec = 0;
	add_tun(SOFL_ENCAP_VXLAN, 4, 4, 6, 1);		/* 1 */
	add_tun(SOFL_ENCAP_VXLAN, 4, 6, 17, 0);		/* 2 */
	add_tun(SOFL_ENCAP_VXLAN, 6, 4, 6, 0);		/* 3: zero over IPv6 */
	add_tun(SOFL_ENCAP_GENEVE, 6, 6, 6, 1);		/* 4 */
	add_tun(SOFL_ENCAP_GENEVE, 4, 4, 17, 1);	/* 5 */
	add_tun(SOFL_ENCAP_IPIP, 4, 4, 6, 0);		/* 6 */
	add_tun(SOFL_ENCAP_IPIP, 6, 6, 17, 0);		/* 7 */
	add_plain(4, 6);				/* 8 */
	add_plain(6, 17);				/* 9 */
	add_tun(SOFL_ENCAP_VXLAN, 4, 4, 6, 1);		/* 10: bad inner TCP */
	assert_int_equal(sofl_pkt_parse(&p, recs[9].d, recs[9].len, SOFL_LINK_ETH), 0);
	recs[9].d[p.l4_off + 16] ^= 0x55;
	/* the outer UDP checksum made to match the bad inner bytes: only the
	 * inner one is bad */
	sofl_put16(recs[9].d + p.outer_l4_off + 6, (uint16_t)sofl_csum_pkt_outer_udp(&p));
	add_tun(SOFL_ENCAP_IPIP, 4, 6, 6, 0);		/* 11: bad outer IPv4 */
	recs[10].d[14 + 10] ^= 0x01;
	t_capw_open(&w, name, DLT_EN10MB, T_CAP_PCAP);
	for (i = 0; i < nrec; i++)
		t_capw_put(&w, recs[i].d, recs[i].len, recs[i].len, (uint64_t)(1700000000 + i) * 1000000);
	t_capw_close(&w);
}

/* "key":N of the JSON object "obj" in t_cli_out. */
static long long
json_num(const char *obj, const char *key)
{
	char pat[96];
	const char *o, *k;

	snprintf(pat, sizeof(pat), "\"%s\":{", obj);
	o = strstr(t_cli_out, pat);
	if (!o) {
		fprintf(stderr, "no %s in %s\n", pat, t_cli_out);
		fail();
	}
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	k = strstr(o, pat);
	if (!k || strchr(o, '}') < k) {
		fprintf(stderr, "no %s in %s of %s\n", pat, obj, t_cli_out);
		fail();
	}
	return strtoll(k + strlen(pat), NULL, 10);
}

static void
test_csum(void **state)
{
	static const struct {
		const char *sec, *what, *obj, *key;
		long long want;
	} c[] = {
		{ "tunnels", "VXLAN packets (ip, tcp, udp above: their inner headers)", "tunnels",
		  "vxlan", 4 },
		{ "tunnels", "Geneve packets", "tunnels", "geneve", 2 },
		{ "tunnels", "IP-in-IP packets", "tunnels", "ipip", 3 },
		{ "tunnels", "tunnel packets not parsed into (counted as plain packets)", "tunnels",
		  "not_parsed", 0 },
		{ "outer ip", "outer IPv4 headers checked", "outer_ip", "ipv4_checked", 6 },
		{ "outer ip", "with a valid header checksum", "outer_ip", "ipv4_valid", 5 },
		{ "outer ip", "with a bad header checksum", "outer_ip", "ipv4_bad", 1 },
		{ "outer ip", "outer IPv6 headers (no header checksum)", "outer_ip", "ipv6", 3 },
		{ "outer udp", "outer UDP headers checked", "outer_udp", "checked", 6 },
		{ "outer udp", "with a valid checksum", "outer_udp", "valid", 4 },
		{ "outer udp", "with a bad checksum", "outer_udp", "bad", 0 },
		{ "outer udp", "without checksum (zero)", "outer_udp", "absent", 2 },
		/* inner + plain */
		{ "tcp", "segments checked", "tcp", "checked", 7 },
		{ "tcp", "with a bad checksum", "tcp", "bad", 1 },
		{ "udp", "datagrams checked", "udp", "checked", 4 },
	};
	size_t i;
	(void)state;

	build_capture("tun.pcap");
	assert_int_equal(t_cli_run("csum", "tun.pcap"), 1);
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		assert_int_equal(t_cli_counter(c[i].sec, c[i].what), c[i].want);
	assert_int_equal(t_cli_run("csum", "tun.pcap --json"), 1);
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		assert_int_equal(json_num(c[i].obj, c[i].key), c[i].want);
	/* --fix: everything verifies afterwards, zero outer checksums kept */
	assert_int_equal(t_cli_run("csum", "tun.pcap --fix -o fixed.pcap"), 1);
	assert_int_equal(t_cli_counter("outer ip", "outer IPv4 headers software-checksummed"), 1);
	/* record 10: its inner fix made the outer UDP checksum stale */
	assert_int_equal(t_cli_counter("outer udp", "outer UDP headers software-checksummed"), 1);
	assert_int_equal(t_cli_run("csum", "fixed.pcap"), 0);
	assert_int_equal(t_cli_counter("outer udp", "with a valid checksum"), 4);
	assert_int_equal(t_cli_counter("outer udp", "without checksum (zero)"), 2);
	assert_int_equal(t_cli_counter("tcp", "with a bad checksum"), 0);
	/* --udp-zero fills the absent outer ones too */
	assert_int_equal(t_cli_run("csum", "fixed.pcap --fix --udp-zero -o f2.pcap"), 0);
	assert_int_equal(t_cli_run("csum", "f2.pcap"), 0);
	assert_int_equal(t_cli_counter("outer udp", "with a valid checksum"), 6);
	assert_int_equal(t_cli_counter("outer udp", "without checksum (zero)"), 0);
	/* without tunnels the outer headers are the plain ones: record 11's bad
	 * IPv4 header is counted in ip:, no outer section counts */
	assert_int_equal(t_cli_run("csum", "tun.pcap --udp-tunnel none --no-ipip"), 1);
	assert_int_equal(t_cli_counter("ip", "with a bad header checksum"), 1);
	assert_int_equal(t_cli_counter("outer ip", "outer IPv4 headers checked"), 0);
	assert_int_equal(t_cli_counter("tunnels", "IP-in-IP packets"), 0);
}

/* The tsv line of record i as the library hashes it: the flow key
 * sofl_rss_pkt_key() reports (outer or inner). */
static void
expect_tsv(struct sofl_rss *r, int i, char *line, size_t cap)
{
	static const char *const tname[] = { "", "IPv4", "IPv4/TCP", "IPv4/UDP", "IPv6",
					     "IPv6/TCP", "IPv6/UDP" };
	struct sofl_pkt p;
	struct sofl_rss_out o;
	struct sofl_flow_key k;
	char src[64], dst[64], ports[32];
	int type, af;

	sofl_pkt_parse(&p, recs[i].d, recs[i].len, SOFL_LINK_ETH);
	type = sofl_rss_pkt(r, &p, &o);
	assert_true(type > 0);
	assert_int_equal(sofl_rss_pkt_key(r, &p, &k), type);
	af = k.family == 6 ? AF_INET6 : AF_INET;
	assert_non_null(inet_ntop(af, k.src, src, sizeof(src)));
	assert_non_null(inet_ntop(af, k.dst, dst, sizeof(dst)));
	if (type == SOFL_RSS_IPV4 || type == SOFL_RSS_IPV6)
		snprintf(ports, sizeof(ports), "-\t-");
	else
		snprintf(ports, sizeof(ports), "%u\t%u", k.sport, k.dport);
	snprintf(line, cap, "%d\t0x%08x\t%u\t%s\t%s\t%s\t%s\n", i + 1, o.hash, o.queue,
		 tname[type], src, dst, ports);
}

static void
rss_case(int inner)
{
	static char want[1 << 14];
	struct sofl_rss_config c;
	struct sofl_rss *r;
	size_t o;
	int i;

	sofl_rss_config_init(&c);
	c.nqueues = 4;
	c.flags = inner ? SOFL_RSS_F_INNER : 0;
	assert_int_equal(sofl_rss_create(&c, &r), 0);
	assert_int_equal(t_cli_run("rss", "tun.pcap --queues 4 --format tsv%s",
				   inner ? " --inner" : ""), 0);
	snprintf(want, sizeof(want), "packet\thash\tqueue\ttype\tsrc\tdst\tsport\tdport\n");
	o = strlen(want);
	for (i = 0; i < nrec; i++) {
		expect_tsv(r, i, want + o, sizeof(want) - o);
		o += strlen(want + o);
	}
	if (strcmp(t_cli_out, want)) {
		fprintf(stderr, "tsv differs.\ngot:\n%swant:\n%s", t_cli_out, want);
		fail();
	}
	sofl_rss_destroy(r);
	/* counters, text and JSON */
	assert_int_equal(t_cli_run("rss", "tun.pcap --queues 4%s", inner ? " --inner" : ""), 0);
	assert_int_equal(t_cli_counter("tunnels", "VXLAN packets hashed"), 4);
	assert_int_equal(t_cli_counter("tunnels", "Geneve packets hashed"), 2);
	assert_int_equal(t_cli_counter("tunnels", "IP-in-IP packets hashed"), 3);
	assert_int_equal(t_cli_counter("tunnels", "tunnel packets hashed on the inner flow"),
			 inner ? 9 : 0);
	/* outer: VXLAN/Geneve are UDP 4-tuples, IP-in-IP 2-tuples */
	if (!inner) {
		assert_int_equal(t_cli_counter("hashed", "IPv4/UDP"), 4);
		/* two tunnels and the plain IPv6/UDP packet */
		assert_int_equal(t_cli_counter("hashed", "IPv6/UDP"), 3);
		assert_int_equal(t_cli_counter("hashed", "IPv4"), 2);
	}
	assert_int_equal(t_cli_run("rss", "tun.pcap --queues 4 --json%s", inner ? " --inner" : ""),
			 0);
	assert_int_equal(json_num("tunnels", "vxlan"), 4);
	assert_int_equal(json_num("tunnels", "geneve"), 2);
	assert_int_equal(json_num("tunnels", "ipip"), 3);
	assert_int_equal(json_num("tunnels", "inner"), inner ? 9 : 0);
	assert_int_equal(json_num("tunnels", "not_parsed"), 0);
}

static void
test_rss(void **state)
{
	static char dflt[sizeof(t_cli_out)];
	(void)state;

	build_capture("tun.pcap");
	rss_case(0);
	rss_case(1);
	/* the outer hash is the one of a parse without tunnels: the tsv
	 * (hash, queue, type, tuple) is the same with tunnels switched off */
	assert_int_equal(t_cli_run("rss", "tun.pcap --queues 4 --format tsv"), 0);
	snprintf(dflt, sizeof(dflt), "%s", t_cli_out);
	assert_int_equal(t_cli_run("rss", "tun.pcap --queues 4 --format tsv --udp-tunnel none "
				   "--no-ipip"), 0);
	assert_string_equal(t_cli_out, dflt);
	/* and no tunnel counted then; with --inner nothing changes either */
	assert_int_equal(t_cli_run("rss", "tun.pcap --queues 4 --inner --udp-tunnel none "
				   "--no-ipip"), 0);
	assert_int_equal(t_cli_counter("tunnels", "VXLAN packets hashed"), 0);
	assert_int_equal(t_cli_counter("tunnels", "IP-in-IP packets hashed"), 0);
	/* only VXLAN's port: the Geneve packets are plain UDP */
	assert_int_equal(t_cli_run("rss", "tun.pcap --queues 4 --udp-tunnel 4789:vxlan"), 0);
	assert_int_equal(t_cli_counter("tunnels", "VXLAN packets hashed"), 4);
	assert_int_equal(t_cli_counter("tunnels", "Geneve packets hashed"), 0);
}

static int
setup(void **state)
{
	(void)state;
	return t_cli_init("cli-encap");
}

static int
teardown(void **state)
{
	(void)state;
	return t_cli_fini();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csum),
		cmocka_unit_test(test_rss),
	};
	int rc = setup(NULL);

	if (rc)
		return rc;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	teardown(NULL);
	return rc;
}
