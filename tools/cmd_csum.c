/* softoffload csum: classify (and optionally complete) every IPv4 header and
 * TCP/UDP checksum of a capture.
 *
 * Each record is parsed once with sofl_pkt_parse_cfg() (the tunnels of
 * --udp-tunnel and --no-ipip) and classified with
 * sofl_csum_pkt_check().  Partial checksums (the pseudo-header sum a kernel
 * leaves for the NIC under TSO/GRO/CHECKSUM_PARTIAL) are counted apart from
 * bad ones and are not errors: a capture taken on a sending host is full of
 * them.  With --fix every record is written out, in order, whether or not it
 * could be fixed, so the output has exactly as many records as the input.
 * Tunnel packets (VXLAN, Geneve, IP-in-IP parsed through to their inner
 * packet): the ip/tcp/udp counters count their inner headers, and the outer
 * IPv4 header and outer UDP checksums are counted apart
 * (sofl_csum_pkt_check_outer()); --fix completes the inner ones first, then
 * the outer ones over the result. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "pcapio.h"
#include "softoffload/csum.h"
#include "softoffload/pkt.h"

#define NERR 64			/* parse errors are -1 .. -63 */

struct l4_count {
	unsigned long long checked, valid, bad, partial, absent, truncated, fixed;
};

struct csum_stats {
	unsigned long long records, truncated, written;
	unsigned long long ip4, ip4_valid, ip4_bad, ip4_fixed;
	unsigned long long ip6, not_ip, other_l4, frags;
	struct l4_count tcp, udp;
	/* tunnel packets: by kind ([encap]), not parsed into; their outer
	 * IPv4 headers and outer UDP checksums */
	unsigned long long tun[SOFL_ENCAP_IPIP + 1], tun_err;
	unsigned long long oip4, oip4_valid, oip4_bad, oip4_fixed, oip6;
	struct l4_count oudp;
	unsigned long long malformed, filtered;
	unsigned long long err[NERR];	/* by -code; [0]: a code beyond NERR */
};

struct csum_opts {
	const char *in, *out;
	int fix, udp_zero, quiet, json;
};

static int
usage(FILE *f)
{
	fprintf(f,
"usage: softoffload csum FILE [--fix -o OUT.pcap [--udp-zero] [--pcapng]] [-q | --json]\n"
"                         [-c N] [--filter EXPR]\n"
"\n"
"Classifies every IPv4 header checksum and every TCP/UDP checksum in FILE\n"
"(pcap or pcapng; Ethernet or raw IP) as valid, bad, partial or absent, and\n"
"prints the counts.  Tunnel packets (VXLAN on UDP port 4789, Geneve on 6081,\n"
"IP-in-IP): the ip, tcp and udp counts are their inner headers'; their\n"
"outer IPv4 header and outer UDP checksums are counted apart (an outer UDP\n"
"checksum of 0 is absent over IPv6 too: RFC 6935).\n"
"\n"
"  partial   the field holds only the pseudo-header sum: the packet was\n"
"            captured before a NIC (or GSO/GRO) would complete it.  Normal\n"
"            on the sending host; NOT counted as bad.\n"
"  absent    UDP over IPv4 with checksum 0 (\"no checksum\", RFC 768).\n"
"            UDP over IPv6 with 0 is bad (RFC 8200).\n"
"\n"
"Records with caplen < len are classified as far as the captured bytes\n"
"allow; their transport checksum is reported as not verifiable.\n"
"Malformed packets are counted by parse error.\n"
"\n"
"  --fix       write OUT with every bad or partial checksum completed;\n"
"              every record is written, unfixable ones unchanged; in a\n"
"              tunnel packet the inner ones first, then the outer UDP one\n"
"              over the result (a non-zero one is recomputed when an inner\n"
"              one changed)\n"
"  -o OUT      output file (pcap; '-' = stdout; requires --fix)\n"
"  --udp-zero  with --fix, also fill absent UDP/IPv4 checksums and absent\n"
"              outer UDP checksums of tunnel packets\n"
"  --pcapng    with --fix, write OUT as pcapng\n"
PCAPIO_OPTS_USAGE
"  --json      the counts as one JSON document (docs/cli.md)\n"
"  -q          print nothing; only the exit status\n"
"\n"
"Exit status: 0 nothing bad (partial, absent and truncated are fine),\n"
"1 at least one bad checksum (inner or outer) or malformed packet, 2 usage,\n"
"file or write error, or a file cut inside a record (the counts up to it\n"
"are printed and, with --fix, every record before it is written).\n");
	return f == stdout ? 0 : 2;
}

static int
parse_args(int argc, char **argv, struct csum_opts *o)
{
	const struct option lopts[] = {
		PCAPIO_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ "fix", no_argument, &o->fix, 1 },
		{ "udp-zero", no_argument, &o->udp_zero, 1 },
		{ "json", no_argument, &o->json, 1 },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	memset(o, 0, sizeof(*o));
	optind = 1;
	while ((c = cli_getopt(argc, argv, ":hqo:" PCAPIO_SHORTOPTS, lopts)) != -1) {
		switch (c) {
		case 'h':
			return 1;
		case 'q':
			o->quiet = 1;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 0:
			break;
		case '?':
			return 2;
		default:
			if (pcapio_opt(c, optarg, 1) != 1)
				return 2;
		}
	}
	if (cli_input(argc, argv, &o->in))
		return 2;
	if (o->fix && !o->out)
		return cli_usage("--fix needs -o OUT.pcap");
	if (o->out && !o->fix)
		return cli_usage("-o is only used with --fix");
	if (o->udp_zero && !o->fix)
		return cli_usage("--udp-zero is only used with --fix");
	if (pcapio_pcapng() && !o->fix)
		return cli_usage("--pcapng is only used with --fix");
	if (o->quiet && o->json)
		return cli_usage("-q and --json exclude each other");
	return 0;
}

/* A parse error caused by the capture cutting the frame short, rather than
 * by the packet itself: all of them are "this length runs past the data". */
static int
is_trunc_error(int err)
{
	return err == SOFL_E_TRUNC_L2 || err == SOFL_E_TRUNC_L3 ||
	    err == SOFL_E_IPV4_HDR_TRUNC || err == SOFL_E_IPV4_TOTLEN_LONG ||
	    err == SOFL_E_IPV6_PLEN_LONG;
}

/* The IPv4 header of a record whose IP packet was cut by the snapshot
 * length: the parser stops before it, but its checksum is still checkable
 * when the whole header was captured.  NULL when it was not. */
static uint8_t *
trunc_ipv4_hdr(const struct sofl_pkt *p, uint8_t *buf, uint32_t caplen, uint32_t *hlen)
{
	uint32_t off;

	if (p->link == SOFL_LINK_ETH) {
		if (!(p->layers & SOFL_LAYER_L2) || p->ethertype != 0x0800)
			return NULL;
		off = 14 + 4u * p->key.nvlan;
	} else
		off = 0;
	if (caplen < off + 20 || buf[off] >> 4 != 4 || (buf[off] & 0x0f) < 5)
		return NULL;
	*hlen = (buf[off] & 0x0fu) * 4;
	if (caplen < off + *hlen)
		return NULL;
	return buf + off;
}

static int
is_ipv6(const struct sofl_pkt *p, const uint8_t *buf, uint32_t caplen)
{
	if (p->link == SOFL_LINK_ETH)
		return (p->layers & SOFL_LAYER_L2) && p->ethertype == 0x86DD;
	return caplen > 0 && buf[0] >> 4 == 6;
}

static void
count_ip4(struct csum_stats *st, enum sofl_csum_state s)
{
	st->ip4++;
	if (s == SOFL_CSUM_VALID)
		st->ip4_valid++;
	else
		st->ip4_bad++;
}

static void
count_l4(struct l4_count *c, enum sofl_csum_state s)
{
	c->checked++;
	switch (s) {
	case SOFL_CSUM_VALID:   c->valid++; break;
	case SOFL_CSUM_BAD:     c->bad++; break;
	case SOFL_CSUM_PARTIAL: c->partial++; break;
	case SOFL_CSUM_ABSENT:  c->absent++; break;
	case SOFL_CSUM_NONE:
	case SOFL_CSUM_UNKNOWN: break;
	}
}

/* A record cut by the snapshot length inside its IP packet: the IPv4 header
 * checksum is checked (and fixed) when the header was captured; the
 * transport checksum covers missing bytes and is only counted. */
static void
csum_truncated(struct csum_stats *st, const struct csum_opts *o, const struct sofl_pkt *p,
	       uint8_t *buf, uint32_t caplen)
{
	uint32_t hlen;
	uint8_t *h = trunc_ipv4_hdr(p, buf, caplen, &hlen);
	int ok;

	if (!h) {
		if (is_ipv6(p, buf, caplen))
			st->ip6++;
		return;
	}
	ok = sofl_csum_ipv4_hdr_ok(h, hlen);
	count_ip4(st, ok ? SOFL_CSUM_VALID : SOFL_CSUM_BAD);
	if (o->fix && !ok) {
		sofl_put16(h + 10, sofl_csum_ipv4_hdr(h, hlen));
		st->ip4_fixed++;
	}
	if (sofl_get16(h + 6) & 0x3fff)
		st->frags++;
	else if (h[9] == 6 || h[9] == 17)
		(h[9] == 6 ? &st->tcp : &st->udp)->truncated++;
}

/* Completes the TCP/UDP checksum of a parsed packet in place. */
static void
fix_l4(struct l4_count *c, const struct sofl_pkt *p, uint8_t *buf)
{
	int v = sofl_csum_pkt_l4(p);

	if (v < 0)
		return;
	sofl_put16(buf + p->l4_off + (p->l4_proto == 6 ? 16 : 6), (uint16_t)v);
	c->fixed++;
}

/* The checksums of the named fields of a parse (a tunnel packet's inner
 * headers); @err: the parse's error (the layers before it still count). */
static void
csum_named(struct csum_stats *st, const struct csum_opts *o, const struct sofl_pkt *p,
	   uint8_t *buf, int err)
{
	enum sofl_csum_state ip, l4;
	struct l4_count *c;

	/* the layers parsed before an error still count */
	sofl_csum_pkt_check(p, &ip, &l4);
	if (ip != SOFL_CSUM_NONE) {
		count_ip4(st, ip);
		if (o->fix && ip == SOFL_CSUM_BAD) {
			sofl_put16(buf + p->l3_off + 10, sofl_csum_ipv4_hdr(buf + p->l3_off, p->l3_len));
			st->ip4_fixed++;
		}
	} else if (p->ipv == 6 && (p->layers & SOFL_LAYER_L3))
		st->ip6++;
	if (err < 0)
		return;
	if (!(p->layers & SOFL_LAYER_L3)) {
		st->not_ip++;
		return;
	}
	if (!(p->layers & SOFL_LAYER_L4)) {
		if (p->is_frag)
			st->frags++;
		else
			st->other_l4++;
		return;
	}
	c = p->l4_proto == 6 ? &st->tcp : &st->udp;
	count_l4(c, l4);
	if (o->fix && (l4 == SOFL_CSUM_BAD || l4 == SOFL_CSUM_PARTIAL ||
	    (l4 == SOFL_CSUM_ABSENT && o->udp_zero)))
		fix_l4(c, p, buf);
}

/* The tunnel part of a record: its kind and outer checksums, fixed after
 * the inner ones (@changed: an inner checksum was rewritten, so a non-zero
 * outer UDP checksum that covered the old bytes is recomputed). */
static void
csum_outer(struct csum_stats *st, const struct csum_opts *o, const struct sofl_pkt *p,
	   uint8_t *buf, int changed)
{
	enum sofl_csum_state ip, udp;
	int v;

	if (p->layers & SOFL_LAYER_ENCAP_ERR)
		st->tun_err++;
	if (!(p->layers & SOFL_LAYER_ENCAP))
		return;
	st->tun[p->encap <= SOFL_ENCAP_IPIP ? p->encap : 0]++;
	sofl_csum_pkt_check_outer(p, &ip, &udp);
	if (ip != SOFL_CSUM_NONE) {
		st->oip4++;
		if (ip == SOFL_CSUM_VALID)
			st->oip4_valid++;
		else
			st->oip4_bad++;
		if (o->fix && ip == SOFL_CSUM_BAD) {
			sofl_put16(buf + p->outer_l3_off + 10,
				   sofl_csum_ipv4_hdr(buf + p->outer_l3_off, p->outer_l3_len));
			st->oip4_fixed++;
		}
	} else if (p->outer_ipv == 6)
		st->oip6++;
	if (udp == SOFL_CSUM_NONE)
		return;
	count_l4(&st->oudp, udp);
	if (o->fix && (udp == SOFL_CSUM_BAD || udp == SOFL_CSUM_PARTIAL ||
	    (udp == SOFL_CSUM_VALID && changed) || (udp == SOFL_CSUM_ABSENT && o->udp_zero)) &&
	    (v = sofl_csum_pkt_outer_udp(p)) >= 0) {
		sofl_put16(buf + p->outer_l4_off + 6, (uint16_t)v);
		st->oudp.fixed++;
	}
}

/* Classifies one record in buf (a private, writable copy) and, when asked,
 * completes its checksums in place. */
static void
csum_record(struct csum_stats *st, const struct csum_opts *o, uint8_t *buf,
	    uint32_t caplen, uint32_t wirelen, enum sofl_link link)
{
	struct sofl_pkt p;
	int err, trunc = caplen < wirelen;
	unsigned long long fixed0;

	st->records++;
	st->truncated += trunc;
	err = sofl_pkt_parse_cfg(&p, buf, caplen, link, pcapio_pkt_config());
	if (err < 0 && trunc && is_trunc_error(err)) {
		csum_truncated(st, o, &p, buf, caplen);
		return;
	}
	if (err < 0) {
		st->malformed++;
		st->err[-err < NERR ? -err : 0]++;
	} else if (p.layers & (SOFL_LAYER_ENCAP | SOFL_LAYER_ENCAP_ERR)) {
		/* the inner headers (the named fields) as for any packet, then
		 * the outer ones over the result */
		fixed0 = st->ip4_fixed + st->tcp.fixed + st->udp.fixed;
		csum_named(st, o, &p, buf, 0);
		csum_outer(st, o, &p, buf, st->ip4_fixed + st->tcp.fixed + st->udp.fixed != fixed0);
		return;
	}
	csum_named(st, o, &p, buf, err);
}

static void
line(FILE *f, unsigned long long n, const char *what)
{
	fprintf(f, "\t%llu %s\n", n, what);
}

static void
print_l4(FILE *f, const char *name, const char *unit, const struct l4_count *c, int fix)
{
	char b[96];

	fprintf(f, "%s:\n", name);
	snprintf(b, sizeof(b), "%s checked", unit);
	line(f, c->checked, b);
	line(f, c->valid, "with a valid checksum");
	line(f, c->bad, "with a bad checksum");
	line(f, c->partial, "with a partial checksum (pseudo-header only)");
	if (!strcmp(name, "outer udp"))
		line(f, c->absent, "without checksum (zero)");
	else if (c->absent || !strcmp(name, "udp"))
		line(f, c->absent, "without checksum (IPv4, zero)");
	if (c->truncated)
		line(f, c->truncated, "not verifiable (truncated by the capture)");
	if (fix) {
		snprintf(b, sizeof(b), "%s software-checksummed", unit);
		line(f, c->fixed, b);
	}
}

static void
print_stats(FILE *f, const struct csum_stats *st, const struct csum_opts *o, int link)
{
	int i;

	fprintf(f, "%s: %llu records (%s)\n", o->in, st->records,
	    link == SOFL_LINK_ETH ? "Ethernet" : "raw IP");
	fprintf(f, "ip:\n");
	line(f, st->ip4, "IPv4 headers checked");
	line(f, st->ip4_valid, "with a valid header checksum");
	line(f, st->ip4_bad, "with a bad header checksum");
	if (o->fix)
		line(f, st->ip4_fixed, "IPv4 headers software-checksummed");
	line(f, st->ip6, "IPv6 packets (no header checksum)");
	print_l4(f, "tcp", "segments", &st->tcp, o->fix);
	print_l4(f, "udp", "datagrams", &st->udp, o->fix);
	fprintf(f, "tunnels:\n");
	line(f, st->tun[SOFL_ENCAP_VXLAN], "VXLAN packets (ip, tcp, udp above: their inner headers)");
	line(f, st->tun[SOFL_ENCAP_GENEVE], "Geneve packets");
	line(f, st->tun[SOFL_ENCAP_IPIP], "IP-in-IP packets");
	line(f, st->tun_err, "tunnel packets not parsed into (counted as plain packets)");
	fprintf(f, "outer ip:\n");
	line(f, st->oip4, "outer IPv4 headers checked");
	line(f, st->oip4_valid, "with a valid header checksum");
	line(f, st->oip4_bad, "with a bad header checksum");
	if (o->fix)
		line(f, st->oip4_fixed, "outer IPv4 headers software-checksummed");
	line(f, st->oip6, "outer IPv6 headers (no header checksum)");
	print_l4(f, "outer udp", "outer UDP headers", &st->oudp, o->fix);
	fprintf(f, "other:\n");
	line(f, st->not_ip, "packets not IP (ARP, ...)");
	line(f, st->other_l4, "IP packets neither TCP nor UDP (ICMP, ...)");
	line(f, st->frags, "IP fragments (transport checksum not checked)");
	fprintf(f, "capture:\n");
	line(f, st->truncated, "records truncated (caplen < len)");
	line(f, st->malformed, "malformed packets");
	if (pcapio_filtering())
		line(f, st->filtered, "records filtered out (--filter)");
	for (i = 0; i < NERR; i++) {
		char b[128];

		if (!st->err[i])
			continue;
		snprintf(b, sizeof(b), "malformed: %s", i ? sofl_strerror(-i) : "other parse error");
		line(f, st->err[i], b);
	}
	if (o->fix) {
		char b[1100];

		snprintf(b, sizeof(b), "records written to %.1000s", o->out);
		line(f, st->written, b);
	}
}

static void
json_l4(struct cli_json *j, const char *name, const struct l4_count *c)
{
	cli_json_obj(j, name);
	cli_json_u64(j, "checked", c->checked);
	cli_json_u64(j, "valid", c->valid);
	cli_json_u64(j, "bad", c->bad);
	cli_json_u64(j, "partial", c->partial);
	cli_json_u64(j, "absent", c->absent);
	cli_json_u64(j, "truncated", c->truncated);
	cli_json_u64(j, "fixed", c->fixed);
	cli_json_end(j);
}

/* The counters of print_stats() as one JSON document (docs/cli.md). */
static int
print_json(FILE *f, const struct csum_stats *st, const struct csum_opts *o, int link)
{
	struct cli_json j;
	int i;

	cli_json_begin(&j, f);
	cli_json_str(&j, "file", o->in);
	cli_json_str(&j, "link", link == SOFL_LINK_ETH ? "ethernet" : "raw_ip");
	cli_json_u64(&j, "records", st->records);
	cli_json_obj(&j, "ip");
	cli_json_u64(&j, "ipv4_checked", st->ip4);
	cli_json_u64(&j, "ipv4_valid", st->ip4_valid);
	cli_json_u64(&j, "ipv4_bad", st->ip4_bad);
	cli_json_u64(&j, "ipv4_fixed", st->ip4_fixed);
	cli_json_u64(&j, "ipv6", st->ip6);
	cli_json_end(&j);
	json_l4(&j, "tcp", &st->tcp);
	json_l4(&j, "udp", &st->udp);
	cli_json_obj(&j, "tunnels");
	cli_json_u64(&j, "vxlan", st->tun[SOFL_ENCAP_VXLAN]);
	cli_json_u64(&j, "geneve", st->tun[SOFL_ENCAP_GENEVE]);
	cli_json_u64(&j, "ipip", st->tun[SOFL_ENCAP_IPIP]);
	cli_json_u64(&j, "not_parsed", st->tun_err);
	cli_json_end(&j);
	cli_json_obj(&j, "outer_ip");
	cli_json_u64(&j, "ipv4_checked", st->oip4);
	cli_json_u64(&j, "ipv4_valid", st->oip4_valid);
	cli_json_u64(&j, "ipv4_bad", st->oip4_bad);
	cli_json_u64(&j, "ipv4_fixed", st->oip4_fixed);
	cli_json_u64(&j, "ipv6", st->oip6);
	cli_json_end(&j);
	json_l4(&j, "outer_udp", &st->oudp);
	cli_json_obj(&j, "other");
	cli_json_u64(&j, "not_ip", st->not_ip);
	cli_json_u64(&j, "other_l4", st->other_l4);
	cli_json_u64(&j, "fragments", st->frags);
	cli_json_end(&j);
	cli_json_obj(&j, "capture");
	cli_json_u64(&j, "truncated", st->truncated);
	cli_json_u64(&j, "malformed", st->malformed);
	cli_json_u64(&j, "filtered", st->filtered);
	cli_json_arr(&j, "malformed_reasons");
	for (i = 0; i < NERR; i++) {
		if (!st->err[i])
			continue;
		cli_json_obj(&j, NULL);
		cli_json_i64(&j, "code", i ? -i : 0);
		cli_json_str(&j, "reason", i ? sofl_strerror(-i) : "other parse error");
		cli_json_u64(&j, "count", st->err[i]);
		cli_json_end(&j);
	}
	cli_json_end(&j);
	cli_json_u64(&j, "written", st->written);
	cli_json_end(&j);
	return cli_json_finish(&j, f == stdout ? "stdout" : "stderr");
}

static int
run(const struct csum_opts *o, struct csum_stats *st, enum sofl_link *linkp)
{
	struct pcap_in *in;
	struct pcap_out *out;
	struct pcap_rec r;
	uint8_t *buf = NULL;
	size_t cap = 0;
	int rc, ret = 0;

	if (pcapio_open(o->in, o->fix ? o->out : NULL, &in, &out, linkp))
		return 2;
	while ((rc = pcapin_next(in, &r)) == 1) {
		if (r.caplen > cap) {
			uint8_t *nb = realloc(buf, r.caplen);

			if (!nb) {
				ret = cli_error("out of memory");
				break;
			}
			buf = nb;
			cap = r.caplen;
		}
		/* work on a copy: --fix writes into it, and the parser's
		 * result must point at the bytes that get written */
		if (r.caplen)
			memcpy(buf, r.data, r.caplen);
		csum_record(st, o, buf, r.caplen, r.len, *linkp);
		if (out) {
			if (pcapout_write(out, &r.ts, buf, r.caplen, r.len) != 0) {
				ret = 2;
				break;
			}
			st->written++;
		}
	}
	if (rc < 0)
		ret = 2;
	st->filtered = pcapin_filtered(in);
	if (out && pcapout_close(out) != 0)
		ret = 2;
	pcapin_close(in);
	free(buf);
	return ret;
}

int
cmd_csum(int argc, char **argv)
{
	struct csum_opts o;
	struct csum_stats st;
	FILE *f;
	enum sofl_link link = SOFL_LINK_ETH;
	int rc;

	rc = parse_args(argc, argv, &o);
	if (rc == 1)
		return usage(stdout);
	if (rc)
		return rc;
	memset(&st, 0, sizeof(st));
	rc = run(&o, &st, &link);
	if (st.records == 0 && rc == 2)
		return 2;
	/* statistics go to stderr when the capture itself goes to stdout */
	f = o.out && !strcmp(o.out, "-") ? stderr : stdout;
	if (o.json) {
		if (print_json(f, &st, &o, link))
			return 2;
	} else if (!o.quiet)
		print_stats(f, &st, &o, link);
	if (rc)
		return rc;
	return st.ip4_bad || st.tcp.bad || st.udp.bad || st.oip4_bad || st.oudp.bad ||
	       st.malformed ? 1 : 0;
}
