/* Description: `softoffload gso` end to end: writes a capture mixing TCP/UDP super-packets (partial checksums, as captured on a sending host), small packets, ARP, an IP fragment, a truncated record and a datagram the segmenter must refuse; runs the CLI with --mss/--udp-gso-size, --mtu, --csum partial; checks every output record against the library (and checksums), the unchanged records byte for byte, order, timestamps, the --stats counts and the usage errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "helpers.h"
#include "helpers_encap.h"
#include "cli_util.h"

#define MAXREC 16
#define MAXOUT 512

struct rec {
	uint8_t *d;
	uint32_t caplen, len;
};

static struct rec in[MAXREC], outr[MAXOUT];
static long outsec[MAXOUT];
static int nin, nout;

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
	struct t_capw w;
	int i;

	t_capw_open(&w, name, DLT_EN10MB, T_CAP_PCAP);
	for (i = 0; i < nin; i++)
		t_capw_put(&w, in[i].d, in[i].caplen, in[i].len, (uint64_t)(100 + i) * 1000000);
	t_capw_close(&w);
}

static void
read_pcap(const char *name)
{
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *p;

	for (int i = 0; i < nout; i++)
		free(outr[i].d);
	nout = 0;
	p = t_cli_open_pcap(name);
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

/* The library's segments of input record i, flattened (COPY mode). */
static int
lib_segments(int i, const struct sofl_gso_params *gp, uint8_t **frames, uint32_t *lens)
{
	struct sofl_pkt p;
	struct sofl_gso_params tcp6;
	struct sofl_gso_need need;
	struct sofl_gso_out o = { .mode = SOFL_GSO_COPY };
	static struct sofl_gso_seg seg[MAXOUT];
	static uint8_t buf[1 << 20];
	int n;

	assert_int_equal(sofl_pkt_parse(&p, in[i].d, in[i].caplen, SOFL_LINK_ETH), 0);
	if (gp->type == SOFL_GSO_TCPV4 && p.ipv == 6) {	/* the CLI picks by family */
		tcp6 = *gp;
		tcp6.type = SOFL_GSO_TCPV6;
		gp = &tcp6;
	}
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
	struct sofl_gso_params tcp = { .type = SOFL_GSO_TCPV4, .gso_size = 1000 };
	struct sofl_gso_params udp = { .type = SOFL_GSO_UDP_L4, .gso_size = 1200 };
	(void)state;

	assert_int_equal(t_cli_run("gso", "in.pcap -o out.pcap --mss 1000 --udp-gso-size 1200 --stats"), 0);
	read_pcap("out.pcap");
	pos = 0;
	expect_lib(0, &tcp);				/* 10 */
	expect_lib(1, &tcp);				/* 3 */
	{						/* the ACK: completed, padding kept */
		struct sofl_pkt p;
		enum sofl_csum_state a, b;
		assert_int_equal(outr[pos].caplen, in[2].caplen);
		assert_int_equal(sofl_pkt_parse(&p, outr[pos].d, outr[pos].caplen, SOFL_LINK_ETH), 0);
		sofl_csum_pkt_check(&p, &a, &b);
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
	assert_int_equal(t_cli_counter("gso", "records in"), 9);
	assert_int_equal(t_cli_counter("gso", "records out"), nout);
	assert_int_equal(t_cli_counter("gso", "super-packets"), 5);
	assert_int_equal(t_cli_counter("gso", "TCP super-packets segmented (TSO)") +
			 t_cli_counter("gso", "UDP super-packets segmented (USO)") +
			 t_cli_counter("gso", "IP packets fragmented (UFO)"), 5);
	assert_int_equal(t_cli_counter("gso", "segments out"), 10 + 3 + 5 + 54 + 4);
	assert_int_equal(t_cli_counter("gso", "packets passed through"), 1);
	assert_int_equal(t_cli_counter("checksums", "TCP/UDP checksums computed"), 10 + 3 + 1 + 5 + 54 + 4);
	assert_int_equal(t_cli_counter("unchanged", "records truncated by the capture"), 1);
	assert_int_equal(t_cli_counter("unchanged", "malformed packets"), 0);
	assert_int_equal(t_cli_counter("unchanged", "packets not IP"), 1);
	assert_int_equal(t_cli_counter("unchanged", "IP fragments"), 1);
	assert_int_equal(t_cli_counter("unchanged", "packets refused by the segmenter"), 0);
}

static void
test_refused_and_partial(void **state)
{
	struct sofl_gso_params udp = { .type = SOFL_GSO_UDP_L4, .gso_size = 100,
				       .flags = SOFL_GSO_F_CSUM_PARTIAL };
	struct sofl_gso_params tcp = { .type = SOFL_GSO_TCPV4, .gso_size = 100,
				       .flags = SOFL_GSO_F_CSUM_PARTIAL };
	(void)state;

	/* gso size 100: record 7 would need 640 datagrams (> 128): refused */
	assert_int_equal(t_cli_run("gso", "--csum partial --udp-gso-size 100 --mss 100 in.pcap -o out.pcap --stats"), 0);
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
	assert_int_equal(t_cli_counter("unchanged", "packets refused by the segmenter"), 1);
	assert_non_null(strstr(t_cli_out, "segmentation: too many segments"));
}

static void
test_mtu(void **state)
{
	struct sofl_gso_params frag = { .type = SOFL_GSO_UFO, .mtu = 1500 };
	(void)state;

	/* no --mss: the super-packets are fragmented instead — but record 0 has
	 * DF set: passed unchanged (refused) without --ignore-df */
	assert_int_equal(t_cli_run("gso", "in.pcap -o out.pcap --mtu 1500 --stats"), 0);
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
	assert_non_null(strstr(t_cli_out, "fragmentation needed but DF set"));
	/* with --ignore-df record 0 too */
	assert_int_equal(t_cli_run("gso", "in.pcap -o out.pcap --mtu 1500 --ignore-df"), 0);
	read_pcap("out.pcap");
	pos = 0;
	frag.frag_id = 1;
	frag.flags = SOFL_GSO_F_IGNORE_DF;
	expect_lib(0, &frag);
}

/* pad.pcap: an IPv4/TCP super-packet (3000 bytes) and an IPv6/TCP one, each
 * with @pad bytes after the IP packet (an Ethernet trailer). */
static void
write_padded(size_t pad, uint32_t *caplen)
{
	static uint8_t b[8192];
	struct t_capw w;
	struct t_spec s;
	int v;

	t_capw_open(&w, "pad.pcap", DLT_EN10MB, T_CAP_PCAP);
	for (v = 0; v < 2; v++) {
		size_t len;

		t_spec_init(&s, v ? 6 : 4, 6);
		s.pay_len = 3000;
		s.df = 0;
		s.eth_pad = pad;
		len = t_build(b, sizeof(b), &s);
		caplen[v] = (uint32_t)len;
		t_capw_put(&w, b, (uint32_t)len, (uint32_t)len, 1000000);
	}
	t_capw_close(&w);
}

/* Bytes after the IP packet of a segmented or fragmented record are
 * dropped (Linux has none on a GSO skb) and counted; the segments are the
 * library's (no trailer in any of them). */
static void
test_trailer(void **state)
{
	uint32_t caplen[2];
	long long bytes_in;
	(void)state;

	write_padded(7, caplen);
	assert_int_equal(t_cli_run("gso", "pad.pcap -o out.pcap --mss 1000 --stats"), 0);
	assert_int_equal(t_cli_counter("trailers", "trailer bytes dropped"), 14);
	assert_int_equal(t_cli_counter("trailers", "segmented or fragmented records that had a trailer"), 2);
	assert_int_equal(t_cli_counter("gso", "records in"), 2);
	bytes_in = t_cli_counter("gso", "bytes in");
	assert_int_equal(bytes_in, (long long)caplen[0] + caplen[1]);
	read_pcap("out.pcap");
	assert_int_equal(nout, 6);
	for (int i = 0; i < nout; i++) {
		struct sofl_pkt p;

		assert_int_equal(sofl_pkt_parse(&p, outr[i].d, outr[i].caplen, SOFL_LINK_ETH), 0);
		assert_int_equal(p.ip_end, outr[i].caplen);	/* no trailer */
		assert_int_equal(p.pay_len, 1000);
	}
	assert_int_equal(t_cli_run("gso", "pad.pcap -o out.pcap --mtu 1500 --stats"), 0);
	assert_int_equal(t_cli_counter("trailers", "trailer bytes dropped"), 14);
	/* nothing segmented: the trailers pass with their records */
	assert_int_equal(t_cli_run("gso", "pad.pcap -o out.pcap --mss 3000 --stats"), 0);
	assert_int_equal(t_cli_counter("trailers", "trailer bytes dropped"), 0);
	read_pcap("out.pcap");
	assert_int_equal(nout, 2);
	assert_int_equal(outr[0].caplen, caplen[0]);
	assert_int_equal(outr[1].caplen, caplen[1]);
}

/* --mtu 68 on IPv6/TCP: 68 - 40 - 8 leaves 16 bytes of fragment data, less
 * than the 20-byte TCP header: said so (stderr and --stats), passed
 * unchanged; IPv4/TCP (48 bytes of room) is fragmented. */
static void
test_mtu_68(void **state)
{
	uint32_t caplen[2];
	(void)state;

	write_padded(0, caplen);
	assert_int_equal(t_cli_run("gso", "pad.pcap -o out.pcap --mtu 68 --stats"), 0);
	assert_non_null(strstr(t_cli_err, "softoffload: --mtu 68: the first fragment cannot "
			       "hold the headers"));
	assert_non_null(strstr(t_cli_err, "of 1 packet,"));
	assert_non_null(strstr(t_cli_out, "first fragment cannot hold the headers"));
	assert_int_equal(t_cli_counter("unchanged", "packets refused by the segmenter"), 1);
	assert_null(strstr(t_cli_out, "bad segment size"));
	read_pcap("out.pcap");
	assert_int_equal(outr[nout - 1].caplen, caplen[1]);	/* IPv6: unchanged */
	assert_true(nout > 2);					/* IPv4: fragments */
	/* an MTU that fits the headers is no such refusal */
	assert_int_equal(t_cli_run("gso", "pad.pcap -o out.pcap --mtu 76 --stats"), 0);
	assert_null(strstr(t_cli_out, "first fragment"));
	assert_string_equal(t_cli_err, "");
}

static void
test_usage(void **state)
{
	(void)state;
	assert_int_equal(t_cli_run("gso", "--help"), 0);
	assert_non_null(strstr(t_cli_out, "--udp-gso-size"));
	assert_int_equal(t_cli_run("gso", "in.pcap"), 2);				/* no -o */
	assert_int_equal(t_cli_run("gso", "in.pcap -o x.pcap --csum maybe"), 2);
	assert_int_equal(t_cli_run("gso", "in.pcap -o x.pcap --mss 0"), 2);
	assert_int_equal(t_cli_run("gso", "in.pcap -o x.pcap --mss 70000"), 2);
	assert_int_equal(t_cli_run("gso", "in.pcap -o x.pcap --ignore-df"), 2);
	assert_int_equal(t_cli_run("gso", "in.pcap -o x.pcap --bogus"), 2);
	assert_int_equal(t_cli_run("gso", "missing.pcap -o x.pcap"), 2);
	assert_int_equal(t_cli_run("gso", "in.pcap -o x.pcap --mtu 40"), 2);
}

/* ---- tunnels ---- */

static struct rec tin[8];
static int ntin;

static void
add_tun_port(int encap, int ov, int csum, int iv, int proto, size_t pay, uint16_t port)
{
	static uint8_t inner[70000], b[70000];
	struct t_spec o, i;
	struct t_encap e;
	size_t il, len;

	t_spec_init(&i, iv, proto);
	i.link = encap == SOFL_ENCAP_IPIP ? SOFL_LINK_RAW : SOFL_LINK_ETH;
	i.pay_len = pay;
	i.csum = T_CSUM_PARTIAL;	/* as on the sending host */
	i.flags = SOFL_TCP_ACK | SOFL_TCP_PSH;
	il = t_build(inner, sizeof(inner), &i);
	t_spec_init(&o, ov, encap == SOFL_ENCAP_IPIP ? (iv == 4 ? 4 : 41) : 17);
	o.dport = port ? port : encap == SOFL_ENCAP_GENEVE ? 6081 : 4789;
	o.sport = 50000;
	o.udp_zero_csum = !csum;
	t_encap_init(&e, encap, 0x1234);
	len = t_build_encap(b, sizeof(b), &o, &e, inner, il);
	tin[ntin].d = malloc(len);
	memcpy(tin[ntin].d, b, len);
	tin[ntin].caplen = tin[ntin].len = (uint32_t)len;
	ntin++;
}

static void
add_tun(int encap, int ov, int csum, int iv, int proto, size_t pay)
{
	add_tun_port(encap, ov, csum, iv, proto, pay, 0);
}

/* The library's segments of tunnel record i with @type. */
static void
expect_tun(int i, unsigned type, unsigned g)
{
	struct sofl_gso_params gp = { .type = (uint8_t)type, .gso_size = (uint16_t)g };
	struct sofl_gso_out o = { .mode = SOFL_GSO_COPY };
	static struct sofl_gso_seg seg[MAXOUT];
	static uint8_t buf[1 << 20];
	struct sofl_pkt p;
	int n, k;

	assert_int_equal(sofl_pkt_parse(&p, tin[i].d, tin[i].caplen, SOFL_LINK_ETH), 0);
	assert_true(p.layers & SOFL_LAYER_ENCAP);
	o.seg = seg;
	o.seg_cap = MAXOUT;
	o.buf = buf;
	o.buf_cap = sizeof(buf);
	n = sofl_gso_segment(&gp, &p, NULL, 0, &o);
	assert_true(n > 0);
	for (k = 0; k < n; k++, pos++) {
		struct sofl_pkt q;
		enum sofl_csum_state a, b;

		assert_true(pos < nout);
		assert_int_equal(outsec[pos], 100 + i);
		assert_int_equal(outr[pos].caplen, seg[k].len);
		assert_memory_equal(outr[pos].d, seg[k].data, seg[k].len);
		/* and every inner checksum verifies */
		assert_int_equal(sofl_pkt_parse(&q, outr[pos].d, outr[pos].caplen, SOFL_LINK_ETH), 0);
		sofl_csum_pkt_check(&q, &a, &b);
		assert_int_equal(b, SOFL_CSUM_VALID);
	}
}

/* A capture of tunnel super-packets: the CLI picks the tunnel type from the
 * parse (outer UDP checksum non-zero -> _CSUM) and the inner type from the
 * inner packet; a small one is output whole; counters per layer. */
static void
test_tunnels(void **state)
{
	struct t_capw w;
	int i;

	(void)state;
	add_tun(SOFL_ENCAP_VXLAN, 4, 1, 4, 6, 10000);	/* 0: 10 */
	add_tun(SOFL_ENCAP_VXLAN, 6, 0, 6, 6, 2999);	/* 1: 3 */
	add_tun(SOFL_ENCAP_GENEVE, 4, 1, 4, 17, 5000);	/* 2: 5 x 1200 - */
	add_tun(SOFL_ENCAP_IPIP, 4, 0, 6, 6, 3000);	/* 3: 3 */
	add_tun(SOFL_ENCAP_VXLAN, 4, 1, 4, 6, 100);	/* 4: whole */
	t_capw_open(&w, "tun.pcap", DLT_EN10MB, T_CAP_PCAP);
	for (i = 0; i < ntin; i++)
		t_capw_put(&w, tin[i].d, tin[i].caplen, tin[i].len, (uint64_t)(100 + i) * 1000000);
	t_capw_close(&w);
	assert_int_equal(t_cli_run("gso", "tun.pcap -o tout.pcap --mss 1000 --udp-gso-size 1200 --stats"), 0);
	read_pcap("tout.pcap");
	pos = 0;
	expect_tun(0, SOFL_GSO_TUNNEL_UDP_CSUM | SOFL_GSO_TCPV4, 1000);
	expect_tun(1, SOFL_GSO_TUNNEL_UDP | SOFL_GSO_TCPV6, 1000);
	expect_tun(2, SOFL_GSO_TUNNEL_UDP_CSUM | SOFL_GSO_UDP_L4, 1200);
	expect_tun(3, SOFL_GSO_TUNNEL_IPIP | SOFL_GSO_TCPV6, 1000);
	expect_tun(4, SOFL_GSO_TUNNEL_UDP_CSUM | SOFL_GSO_TCPV4, 1000);
	assert_int_equal(pos, nout);
	assert_int_equal(t_cli_counter("gso", "segments out"), 10 + 3 + 5 + 3);
	assert_int_equal(t_cli_counter("tunnels", "VXLAN packets"), 3);
	assert_int_equal(t_cli_counter("tunnels", "Geneve packets"), 1);
	assert_int_equal(t_cli_counter("tunnels", "IP-in-IP packets"), 1);
	assert_int_equal(t_cli_counter("tunnels", "tunnel packets with an outer UDP checksum"), 3);
	assert_int_equal(t_cli_counter("tunnels", "tunnel TCP super-packets segmented"), 3);
	assert_int_equal(t_cli_counter("tunnels", "tunnel UDP super-packets segmented"), 1);
	assert_int_equal(t_cli_counter("tunnels", "tunnel packets output whole (checksums completed)"), 1);
	assert_int_equal(t_cli_counter("checksums", "outer UDP checksums computed"), 10 + 5 + 1);
	assert_int_equal(t_cli_counter("checksums", "outer IPv4 header checksums computed"),
			 10 + 5 + 3 + 1);
	assert_int_equal(t_cli_counter("checksums", "IPv4 header checksums computed"),
			 10 + 5 + 1);
	assert_int_equal(t_cli_counter("checksums", "TCP/UDP checksums computed"),
			 10 + 3 + 5 + 3 + 1);
	assert_int_equal(t_cli_run("gso", "tun.pcap -o tout.pcap --mss 1000 --json"), 0);
	assert_non_null(strstr(t_cli_out, "\"tunnels\""));
	assert_non_null(strstr(t_cli_out, "\"vxlan\":3"));
	assert_non_null(strstr(t_cli_out, "\"outer_udp\":"));
	for (i = 0; i < ntin; i++)
		free(tin[i].d);
	ntin = 0;
}

/* --udp-tunnel: VXLAN on port 8472 is cut as a tunnel only when that port
 * is configured; otherwise it is a plain UDP packet and passes through. */
static void
test_tunnel_port(void **state)
{
	struct t_capw w;

	(void)state;
	add_tun_port(SOFL_ENCAP_VXLAN, 4, 1, 4, 6, 3000, 8472);
	t_capw_open(&w, "tun2.pcap", DLT_EN10MB, T_CAP_PCAP);
	t_capw_put(&w, tin[0].d, tin[0].caplen, tin[0].len, 100 * 1000000ull);
	t_capw_close(&w);
	assert_int_equal(t_cli_run("gso", "tun2.pcap -o t2.pcap --mss 1000 --stats"), 0);
	read_pcap("t2.pcap");
	assert_int_equal(nout, 1);
	assert_int_equal(outr[0].caplen, tin[0].caplen);
	assert_int_equal(t_cli_counter("tunnels", "VXLAN packets"), 0);
	assert_int_equal(t_cli_run("gso", "tun2.pcap -o t2.pcap --mss 1000 --udp-tunnel 8472:vxlan "
				   "--stats"), 0);
	read_pcap("t2.pcap");
	assert_int_equal(nout, 3);
	assert_int_equal(t_cli_counter("tunnels", "VXLAN packets"), 1);
	assert_int_equal(t_cli_counter("tunnels", "tunnel TCP super-packets segmented"), 1);
	assert_int_equal(t_cli_counter("checksums", "outer UDP checksums computed"), 3);
	free(tin[0].d);
	ntin = 0;
}

/* The input capture, written inside a test: the writer asserts. */
static int
setup(void **state)
{
	(void)state;
	write_pcap("in.pcap");
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_segment_capture),
		cmocka_unit_test(test_refused_and_partial),
		cmocka_unit_test(test_mtu),
		cmocka_unit_test(test_trailer),
		cmocka_unit_test(test_mtu_68),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_tunnels),
		cmocka_unit_test(test_tunnel_port),
	};
	int rc = t_cli_init("gso-cli");

	if (rc)
		return rc;
	build_capture();
	rc = cmocka_run_group_tests(tests, setup, NULL);
	t_cli_fini();
	for (int i = 0; i < nin; i++)
		free(in[i].d);
	for (int i = 0; i < nout; i++)
		free(outr[i].d);
	return rc;
}
