/* softoffload gso: segment the super-packets of a capture as Linux software
 * GSO would on a device without segmentation or checksum offload.
 *
 * Per record, in order: a TCP packet whose payload exceeds --mss is cut into
 * MSS segments (TSO), a UDP datagram whose payload exceeds --udp-gso-size into
 * datagrams (USO); otherwise, with --mtu, an IP packet longer than the MTU is
 * fragmented (UFO); everything else passes through with its TCP/UDP checksum
 * completed (or, with --csum partial, set to the pseudo-header sum).
 * Records that cannot be processed — truncated by the capture's snaplen,
 * malformed, not IP, IP fragments, refused by the segmenter (a reason is
 * counted) — are written unchanged, so every input byte leaves exactly once,
 * with one exception, counted: bytes after the IP packet (Ethernet padding
 * or a trailer) of a record that is segmented or fragmented are dropped, as
 * the kernel never has them on a GSO skb (ip_rcv_core()/ip6_rcv_core() trim them on
 * receive; a locally sent super-packet has none).  A pass-through keeps them.
 * The output has one record per input record or per produced segment, in
 * input order, with the input's timestamps.
 *
 * A capture cut inside a record: everything before it is written, then the
 * error, exit 2.
 *
 * Captures taken on a sending host hold super-packets whose checksum field is
 * the pseudo-header sum (CHECKSUM_PARTIAL): the segmenter never trusts that
 * field, so they come out with complete checksums like any other.
 *
 * Tunnel packets (VXLAN, Geneve on the --udp-tunnel ports, IP-in-IP unless --no-ipip):
 * the inner TCP/UDP packet is what --mss / --udp-gso-size cut, with the
 * tunnel type chosen from the parse (IP-in-IP; UDP with the outer checksum
 * non-zero: SOFL_GSO_TUNNEL_UDP_CSUM, zero: SOFL_GSO_TUNNEL_UDP), as TCPV4 or
 * TCPV6 is chosen from the IP version; one that is not cut is output as one
 * segment with every checksum, outer and inner, completed the same way.
 * Tunnel packets with a second tunnel inside, or an inner packet that is not
 * TCP/UDP, are handled as their outer packet (fragmented with --mtu, else
 * passed through with the outer UDP checksum completed, or left 0 -- over
 * IPv6 too: a tunnel's zero UDP checksum, RFC 6935), counted. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "pcapio.h"
#include "softoffload/csum.h"
#include "softoffload/gso.h"

#define NERR 128		/* error codes are -1 .. -127 */

struct gso_opts {
	const char *in, *out;
	unsigned mss, udp_size, mtu;
	int fixed_id, partial, ignore_df, stats, json;
};

struct gso_stats {
	unsigned long long records, bytes_in, out_records, bytes_out;
	unsigned long long tcp_super, udp_super, frag_super, segs_out;
	unsigned long long passed, l4_csums, ip_csums, filtered;
	unsigned long long truncated, malformed, not_ip, fragments, refused;
	unsigned long long trailer_recs, trailer_bytes;	/* dropped after the IP packet */
	unsigned long long frag_hdr;	/* refused: first fragment too small for the headers */
	unsigned long long err[NERR];
	/* tunnels */
	unsigned long long tun_tcp_super, tun_udp_super;	/* cut, by inner protocol */
	unsigned long long tun_vxlan, tun_geneve, tun_ipip;	/* tunnel packets given a tunnel type */
	unsigned long long tun_outer_csum;	/* ... of them with the outer UDP checksum */
	unsigned long long tun_passed;		/* ... output as one segment */
	unsigned long long tun_as_outer;	/* nested, or inner not TCP/UDP: as the outer packet */
	unsigned long long tun_encap_err;	/* recognised, not parsed into (encap_err) */
	unsigned long long outer_udp_csums, outer_ip_csums;	/* computed */
};

struct gso_run {
	struct gso_opts o;
	struct gso_stats st;
	struct pcap_out *out;
	enum sofl_link link;
	struct sofl_gso_out go;
	size_t seg_cap, buf_cap, iov_cap;
};

static int
usage(FILE *f)
{
	fprintf(f,
"usage: softoffload gso IN.pcap -o OUT.pcap [--mss N] [--udp-gso-size N]\n"
"         [--mtu N [--ignore-df]] [--fixed-id] [--csum full|partial]\n"
"         [--stats | --json] [-c N] [--filter EXPR] [--pcapng]\n"
"\n"
"Segments the super-packets of IN (pcap/pcapng, Ethernet or raw IP) the way\n"
"Linux software GSO does, and writes every resulting packet to OUT (same\n"
"link type, input timestamps; '-' = stdout).\n"
"\n"
"  --mss N          cut TCP packets with more than N payload bytes into\n"
"                   N-byte segments (seq advanced; FIN/PSH on the last, CWR on\n"
"                   the first; IPv4 ID +1 per segment)\n"
"  --udp-gso-size N cut UDP datagrams with more than N payload bytes into\n"
"                   N-byte datagrams (UDP_SEGMENT; at most 128)\n"
"  --mtu N          fragment other IP packets longer than N bytes (IPv4\n"
"                   fragments keep the ID; IPv6 gets a fragment header);\n"
"                   segments above N bytes are an error\n"
"  --ignore-df      fragment IPv4 packets with DF too (Linux UFO does);\n"
"                   otherwise they pass through unchanged, counted\n"
"  --fixed-id       IPv4 segments keep the input's ID (TCP_FIXEDID)\n"
"  --csum M         full (default): complete TCP/UDP checksums; partial:\n"
"                   leave the pseudo-header sum (for a device that completes\n"
"                   it; fragments always get complete checksums)\n"
"  --stats          print counts (to stderr when OUT is stdout)\n"
"  --json           print the counts as one JSON document instead\n"
"                   (docs/cli.md; to stderr when OUT is stdout)\n"
PCAPIO_OPTS_USAGE PCAPIO_PCAPNG_USAGE
"\n"
"Packets that are not segmented pass through with their TCP/UDP checksum\n"
"completed (UDP over IPv4, or a tunnel's outer UDP, with checksum 0 stays 0)\n"
"and their IPv4 header\n"
"checksum recomputed; truncated, malformed,\n"
"non-IP and fragment records, and packets the segmenter refuses, are written\n"
"unchanged and counted.  Bytes after the IP packet (Ethernet padding or a\n"
"trailer) are kept by a pass-through and dropped, counted ('trailer bytes\n"
"dropped'), when a packet is segmented or fragmented, as Linux has none on a\n"
"GSO packet.  At least one of --mss, --udp-gso-size, --mtu is required.\n"
"\n"
"Tunnel packets (VXLAN and Geneve on the --udp-tunnel ports, IP-in-IP) are\n"
"cut at their inner TCP/UDP by --mss / --udp-gso-size, with per segment the\n"
"outer IPv4 ID, lengths and checksums as Linux sets them (an outer UDP\n"
"checksum when the packet has one); one not cut is written as one segment\n"
"with every checksum completed.  --fixed-id keeps both IPv4 IDs.\n"
"Numbers are decimal.  Exit status: 0 ok (even if some were refused),\n"
"2 usage, file or write error, or a file cut inside a record (everything\n"
"before it is written).\n");
	return f == stdout ? 0 : 2;
}

static int
parse_args(int argc, char **argv, struct gso_opts *o)
{
	enum { O_MSS = 0x100, O_UDP_SIZE, O_MTU, O_CSUM };
	const struct option lopts[] = {
		PCAPIO_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ "mss", required_argument, NULL, O_MSS },
		{ "udp-gso-size", required_argument, NULL, O_UDP_SIZE },
		{ "mtu", required_argument, NULL, O_MTU },
		{ "csum", required_argument, NULL, O_CSUM },
		{ "fixed-id", no_argument, &o->fixed_id, 1 },
		{ "ignore-df", no_argument, &o->ignore_df, 1 },
		{ "stats", no_argument, &o->stats, 1 },
		{ "json", no_argument, &o->json, 1 },
		{ NULL, 0, NULL, 0 }
	};
	const struct cli_num nums[] = {
		{ O_MSS, "--mss", 1, 65535, &o->mss },
		{ O_UDP_SIZE, "--udp-gso-size", 1, 65535, &o->udp_size },
		{ O_MTU, "--mtu", 1, 65535, &o->mtu },
	};
	int c;

	memset(o, 0, sizeof(*o));
	optind = 1;
	while ((c = cli_getopt(argc, argv, ":ho:" PCAPIO_SHORTOPTS, lopts)) != -1) {
		switch (c) {
		case 'h':
			return 1;
		case 'o':
			o->out = optarg;
			break;
		case O_CSUM:
			if (cli_csum_mode("--csum", optarg, &o->partial))
				return 2;
			break;
		case 0:
			break;
		case '?':
			return 2;
		default:	/* a number, else a capture option */
			if (cli_num_opt(nums, CLI_NELEM(nums), c, optarg) && pcapio_opt(c, optarg, 1) != 1)
				return 2;
		}
	}
	if (cli_input(argc, argv, &o->in))
		return 2;
	if (!o->out)
		return cli_usage("no output file (-o OUT.pcap)");
	if (!o->mss && !o->udp_size && !o->mtu)
		return cli_usage("nothing to do: give --mss, --udp-gso-size or --mtu");
	if (o->ignore_df && !o->mtu)
		return cli_usage("--ignore-df needs --mtu");
	if (o->mtu && o->mtu < 68)
		return cli_usage("--mtu: %u is below the IPv4 minimum of 68", o->mtu);
	return 0;
}

/* Grows the output arrays to what this packet needs (the CLI may allocate;
 * the library never does). */
static int
reserve(struct gso_run *r, const struct sofl_gso_need *n)
{
	if (n->nsegs > r->seg_cap) {
		void *p = realloc(r->go.seg, n->nsegs * sizeof(*r->go.seg));
		if (!p)
			return -1;
		r->go.seg = p;
		r->seg_cap = n->nsegs;
	}
	if (n->buf_bytes > r->buf_cap) {
		void *p = realloc(r->go.buf, n->buf_bytes);
		if (!p)
			return -1;
		r->go.buf = p;
		r->buf_cap = n->buf_bytes;
	}
	if (n->iovs > r->iov_cap) {
		void *p = realloc(r->go.iov, n->iovs * sizeof(*r->go.iov));
		if (!p)
			return -1;
		r->go.iov = p;
		r->iov_cap = n->iovs;
	}
	r->go.seg_cap = r->seg_cap;
	r->go.buf_cap = r->buf_cap;
	r->go.iov_cap = r->iov_cap;
	return 0;
}

static int
write_unchanged(struct gso_run *r, const struct pcap_rec *rec)
{
	r->st.out_records++;
	r->st.bytes_out += rec->caplen;
	return pcapout_write(r->out, &rec->ts, rec->data, rec->caplen, rec->len);
}

/* A tunnel packet segmentation cuts inside: parsed into (one level) down
 * to an inner TCP or UDP header. */
static int
is_tun(const struct sofl_pkt *p)
{
	return (p->layers & SOFL_LAYER_ENCAP) && !(p->encap_flags & SOFL_ENCAP_F_NESTED) &&
	       (p->layers & SOFL_LAYER_L4) && (p->l4_proto == 6 || p->l4_proto == 17);
}

/* The end of the packet in the frame, and where its (outermost) IP header starts */
static uint32_t
pkt_end(const struct sofl_pkt *p)
{
	return (p->layers & SOFL_LAYER_ENCAP) ? p->outer_ip_end : p->ip_end;
}

static uint32_t
pkt_l3(const struct sofl_pkt *p)
{
	return (p->layers & SOFL_LAYER_ENCAP) ? p->outer_l3_off : p->l3_off;
}

/* A tunnel packet: its tunnel type from the parse, the inner type as for a
 * plain packet; gso_size the inner MSS or datagram size, or, when there is
 * nothing to cut, one that gives one segment. */
static void
choose_tun(const struct gso_run *r, const struct sofl_pkt *p, struct sofl_gso_params *gp)
{
	const struct gso_opts *o = &r->o;
	unsigned size = p->l4_proto == 6 ? o->mss : o->udp_size;
	uint8_t tb = p->encap == SOFL_ENCAP_IPIP ? SOFL_GSO_TUNNEL_IPIP :
		     (p->encap_flags & SOFL_ENCAP_F_UDP_CSUM) ? SOFL_GSO_TUNNEL_UDP_CSUM :
		     SOFL_GSO_TUNNEL_UDP;
	uint8_t in = p->l4_proto == 17 ? SOFL_GSO_UDP_L4 :
		     p->ipv == 4 ? SOFL_GSO_TCPV4 : SOFL_GSO_TCPV6;

	gp->type = (uint8_t)(tb | in);
	if (size && p->pay_len > size) {
		gp->gso_size = (uint16_t)size;
	} else {
		gp->gso_size = 65535;	/* one segment */
		gp->mtu = 0;
	}
	if (o->fixed_id)
		gp->flags |= SOFL_GSO_F_FIXED_ID_INNER;
}

/* What to do with a parsed IP packet. */
static void
choose(const struct gso_run *r, const struct sofl_pkt *p, struct sofl_gso_params *gp)
{
	const struct gso_opts *o = &r->o;

	memset(gp, 0, sizeof(*gp));
	gp->flags = (uint8_t)((o->fixed_id ? SOFL_GSO_F_FIXED_ID : 0) |
			      (o->partial ? SOFL_GSO_F_CSUM_PARTIAL : 0));
	gp->mtu = (uint16_t)o->mtu;
	if (is_tun(p)) {
		choose_tun(r, p, gp);
	} else if (p->layers & SOFL_LAYER_ENCAP) {
		/* as the outer packet (the library acts on it for a type
		 * without tunnel bits) */
		if (o->mtu && pkt_end(p) - pkt_l3(p) > o->mtu) {
			gp->type = SOFL_GSO_UFO;
			gp->flags |= o->ignore_df ? SOFL_GSO_F_IGNORE_DF : 0;
			gp->frag_id = (uint32_t)r->st.records;
		} else {
			gp->type = SOFL_GSO_NONE;
			gp->mtu = 0;
		}
	} else if ((p->layers & SOFL_LAYER_L4) && p->l4_proto == 6 && o->mss && p->pay_len > o->mss) {
		gp->type = p->ipv == 4 ? SOFL_GSO_TCPV4 : SOFL_GSO_TCPV6;
		gp->gso_size = (uint16_t)o->mss;
	} else if ((p->layers & SOFL_LAYER_L4) && p->l4_proto == 17 && o->udp_size &&
		   p->pay_len > o->udp_size) {
		gp->type = SOFL_GSO_UDP_L4;
		gp->gso_size = (uint16_t)o->udp_size;
	} else if (o->mtu && p->ip_end - p->l3_off > o->mtu) {
		gp->type = SOFL_GSO_UFO;
		gp->flags |= o->ignore_df ? SOFL_GSO_F_IGNORE_DF : 0;
		gp->frag_id = (uint32_t)r->st.records;	/* per datagram: its record number */
	} else {
		gp->type = SOFL_GSO_NONE;
		gp->mtu = 0;	/* passes as it came, whatever its size */
	}
}

/* A UFO the segmenter refused with SOFL_E_GSO_SIZE because the first
 * fragment's data (the MTU less the headers that every fragment repeats, in
 * units of 8) cannot hold the TCP/UDP header: e.g. --mtu 68 on IPv6/TCP,
 * 68 - 40 - 8 = 20 -> 16 < 20.  Told apart from other size errors. */
static int
first_frag_too_small(const struct gso_run *r, const struct sofl_pkt *p,
		     const struct sofl_gso_params *gp, int err)
{
	uint32_t fixed, room;

	if (err != SOFL_E_GSO_SIZE || gp->type != SOFL_GSO_UFO || !(p->layers & SOFL_LAYER_L4))
		return 0;
	fixed = (uint32_t)(p->l4_off - p->l3_off) + (p->ipv == 6 ? 8u : 0u);
	room = r->o.mtu > fixed ? (r->o.mtu - fixed) & ~7u : 0;
	return room < (uint32_t)p->l4_len;
}

static void
count_error(struct gso_run *r, const struct sofl_pkt *p, const struct sofl_gso_params *gp,
	    int err)
{
	r->st.refused++;
	if (first_frag_too_small(r, p, gp, err))
		r->st.frag_hdr++;
	else if (err < 0 && -err < NERR)
		r->st.err[-err]++;
}

/* A tunnel packet given a tunnel type, cut into @n segments. */
static void
count_tun(struct gso_run *r, const struct sofl_pkt *p, const struct sofl_gso_params *gp, int n)
{
	if (p->encap == SOFL_ENCAP_VXLAN)
		r->st.tun_vxlan++;
	else if (p->encap == SOFL_ENCAP_GENEVE)
		r->st.tun_geneve++;
	else
		r->st.tun_ipip++;
	if ((gp->type & SOFL_GSO_TUNNEL_MASK) == SOFL_GSO_TUNNEL_UDP_CSUM)
		r->st.tun_outer_csum++;
	if (n == 1)
		r->st.tun_passed++;
	else if (p->l4_proto == 6)
		r->st.tun_tcp_super++;
	else
		r->st.tun_udp_super++;
}

/* The checksums output segment @i got, by layer: an outer IPv4 header and
 * outer UDP checksum (tunnels, or a tunnel packet as its outer packet), the
 * (inner) IPv4 header and TCP/UDP checksum. */
static void
count_csums(struct gso_run *r, const struct sofl_pkt *p, const struct sofl_gso_params *gp,
	    int i, const uint8_t *d)
{
	if (gp->type & SOFL_GSO_TUNNEL_MASK) {
		if (p->outer_ipv == 4)
			r->st.outer_ip_csums++;
		if ((gp->type & SOFL_GSO_TUNNEL_MASK) == SOFL_GSO_TUNNEL_UDP_CSUM)
			r->st.outer_udp_csums++;
	} else if (p->layers & SOFL_LAYER_ENCAP) {
		/* the outer packet: passed through or fragmented */
		if (p->outer_ipv == 4)
			r->st.outer_ip_csums++;
		if (p->outer_proto == 17 && !(gp->type == SOFL_GSO_UFO && i > 0) &&
		    !(gp->type == SOFL_GSO_NONE && sofl_get16(d + p->outer_l4_off + 6) == 0))
			r->st.outer_udp_csums++;
		return;
	}
	if ((p->layers & SOFL_LAYER_L4) &&
	    !(gp->type == SOFL_GSO_UFO && i > 0) &&
	    !(gp->type == SOFL_GSO_NONE && p->l4_proto == 17 && p->ipv == 4 &&
	      sofl_get16(d + p->l4_off + 6) == 0))
		r->st.l4_csums++;
	if (p->ipv == 4)
		r->st.ip_csums++;
}

static int
one(struct gso_run *r, const struct pcap_rec *rec)
{
	struct sofl_pkt p;
	struct sofl_gso_params gp;
	struct sofl_gso_need need;
	uint32_t end;
	int err, n, i, whole;

	r->st.records++;
	r->st.bytes_in += rec->caplen;
	if (rec->caplen < rec->len) {
		r->st.truncated++;
		return write_unchanged(r, rec);
	}
	err = sofl_pkt_parse_cfg(&p, rec->data, rec->caplen, r->link, pcapio_pkt_config());
	if (err) {
		r->st.malformed++;
		if (-err < NERR)
			r->st.err[-err]++;
		return write_unchanged(r, rec);
	}
	/* a tunnel packet's outer packet is IP whatever it carries (ARP in
	 * VXLAN: passed as its outer packet) */
	if (!(p.layers & (SOFL_LAYER_L3 | SOFL_LAYER_ENCAP))) {
		r->st.not_ip++;
		return write_unchanged(r, rec);
	}
	if (p.is_frag) {
		r->st.fragments++;
		return write_unchanged(r, rec);
	}
	if (p.layers & SOFL_LAYER_ENCAP_ERR)
		r->st.tun_encap_err++;
	choose(r, &p, &gp);
	err = sofl_gso_need(&gp, &p, SOFL_GSO_ZEROCOPY, 0, &need);
	if (err) {
		count_error(r, &p, &gp, err);
		return write_unchanged(r, rec);
	}
	if (reserve(r, &need) < 0) {
		cli_error("out of memory");
		return -1;
	}
	r->go.mode = SOFL_GSO_ZEROCOPY;
	n = sofl_gso_segment(&gp, &p, NULL, 0, &r->go);
	if (n < 0) {
		count_error(r, &p, &gp, n);
		return write_unchanged(r, rec);
	}
	if (gp.type & SOFL_GSO_TUNNEL_MASK)
		count_tun(r, &p, &gp, n);
	else if (p.layers & SOFL_LAYER_ENCAP)
		r->st.tun_as_outer++;
	switch (gp.type & ~SOFL_GSO_TUNNEL_MASK) {
	case SOFL_GSO_TCPV4:
	case SOFL_GSO_TCPV6:   r->st.tcp_super += n > 1; break;
	case SOFL_GSO_UDP_L4:  r->st.udp_super += n > 1; break;
	case SOFL_GSO_UFO:     r->st.frag_super += n > 1; break;
	default:               r->st.passed++; break;
	}
	if (n > 1)
		r->st.segs_out += (unsigned)n;
	end = pkt_end(&p);
	/* a tunnel packet output whole is a pass-through too */
	whole = gp.type == SOFL_GSO_NONE ||
		((gp.type & SOFL_GSO_TUNNEL_MASK) && p.pay_len <= gp.gso_size);
	if (!whole && rec->caplen > end) {
		r->st.trailer_recs++;
		r->st.trailer_bytes += rec->caplen - end;
	}
	for (i = 0; i < n; i++) {
		struct sofl_gso_seg *s = &r->go.seg[i];
		struct iovec v[4];
		int cnt = s->iovcnt;
		uint32_t len = s->len;

		count_csums(r, &p, &gp, i, rec->data);
		/* a pass-through keeps the capture's bytes after the IP packet
		 * (Ethernet padding, trailers): nothing of the input is lost */
		if (whole && rec->caplen > end && cnt < 4) {
			memcpy(v, s->iov, (size_t)cnt * sizeof(*v));
			v[cnt].iov_base = (void *)(uintptr_t)(rec->data + end);
			v[cnt].iov_len = rec->caplen - end;
			len += rec->caplen - end;
			if (pcapout_writev(r->out, &rec->ts, v, cnt + 1))
				return -1;
		} else if (pcapout_writev(r->out, &rec->ts, s->iov, cnt)) {
			return -1;
		}
		r->st.out_records++;
		r->st.bytes_out += len;
	}
	return 0;
}

static void
line(FILE *f, unsigned long long n, const char *what)
{
	fprintf(f, "\t%llu %s\n", n, what);
}

/* netstat -s style: a section per concern, one counter per line. */
static void
print_stats(FILE *f, const struct gso_stats *s, int partial)
{
	int i;

	fprintf(f, "gso:\n");
	line(f, s->records, "records in");
	line(f, s->bytes_in, "bytes in");
	line(f, s->out_records, "records out");
	line(f, s->bytes_out, "bytes out");
	line(f, s->tcp_super + s->udp_super + s->frag_super, "super-packets");
	line(f, s->tcp_super, "TCP super-packets segmented (TSO)");
	line(f, s->udp_super, "UDP super-packets segmented (USO)");
	line(f, s->frag_super, "IP packets fragmented (UFO)");
	line(f, s->segs_out, "segments out");
	line(f, s->passed, "packets passed through");
	fprintf(f, "tunnels:\n");
	line(f, s->tun_vxlan, "VXLAN packets");
	line(f, s->tun_geneve, "Geneve packets");
	line(f, s->tun_ipip, "IP-in-IP packets");
	line(f, s->tun_outer_csum, "tunnel packets with an outer UDP checksum");
	line(f, s->tun_tcp_super, "tunnel TCP super-packets segmented");
	line(f, s->tun_udp_super, "tunnel UDP super-packets segmented");
	line(f, s->tun_passed, "tunnel packets output whole (checksums completed)");
	line(f, s->tun_as_outer, "tunnel packets handled as their outer packet (nested, or "
	     "inner not TCP/UDP)");
	line(f, s->tun_encap_err, "tunnel packets not parsed into (handled as plain packets)");
	fprintf(f, "checksums:\n");
	line(f, s->l4_csums, partial ? "TCP/UDP checksums computed (pseudo-header sums, "
	     "fragments complete)" : "TCP/UDP checksums computed");
	line(f, s->ip_csums, "IPv4 header checksums computed");
	line(f, s->outer_udp_csums, "outer UDP checksums computed");
	line(f, s->outer_ip_csums, "outer IPv4 header checksums computed");
	fprintf(f, "unchanged:\n");
	line(f, s->truncated, "records truncated by the capture");
	line(f, s->malformed, "malformed packets");
	line(f, s->not_ip, "packets not IP");
	line(f, s->fragments, "IP fragments");
	line(f, s->refused, "packets refused by the segmenter");
	if (pcapio_filtering())
		line(f, s->filtered, "records filtered out (--filter)");
	if (s->frag_hdr)
		line(f, s->frag_hdr, "first fragment cannot hold the headers");
	for (i = 1; i < NERR; i++)
		if (s->err[i])
			line(f, s->err[i], sofl_strerror(-i));
	fprintf(f, "trailers:\n");
	line(f, s->trailer_bytes, "trailer bytes dropped");
	line(f, s->trailer_recs, "segmented or fragmented records that had a trailer");
}

/* The same counters as one JSON document (docs/cli.md). */
static int
print_json(FILE *f, const struct gso_opts *o, const struct gso_stats *s)
{
	struct cli_json j;
	int i;

	cli_json_begin(&j, f);
	cli_json_str(&j, "file", o->in);
	cli_json_str(&j, "csum", o->partial ? "partial" : "full");
	cli_json_u64(&j, "records_in", s->records);
	cli_json_u64(&j, "bytes_in", s->bytes_in);
	cli_json_u64(&j, "records_out", s->out_records);
	cli_json_u64(&j, "bytes_out", s->bytes_out);
	cli_json_obj(&j, "super_pkts");
	cli_json_u64(&j, "total", s->tcp_super + s->udp_super + s->frag_super);
	cli_json_u64(&j, "tcp", s->tcp_super);
	cli_json_u64(&j, "udp", s->udp_super);
	cli_json_u64(&j, "fragmented", s->frag_super);
	cli_json_end(&j);
	cli_json_u64(&j, "segs_out", s->segs_out);
	cli_json_u64(&j, "passed", s->passed);
	cli_json_obj(&j, "csum_computed");
	cli_json_u64(&j, "l4", s->l4_csums);
	cli_json_u64(&j, "ipv4_hdr", s->ip_csums);
	cli_json_u64(&j, "outer_udp", s->outer_udp_csums);
	cli_json_u64(&j, "outer_ipv4_hdr", s->outer_ip_csums);
	cli_json_end(&j);
	cli_json_obj(&j, "tunnels");
	cli_json_u64(&j, "vxlan", s->tun_vxlan);
	cli_json_u64(&j, "geneve", s->tun_geneve);
	cli_json_u64(&j, "ipip", s->tun_ipip);
	cli_json_u64(&j, "outer_csum", s->tun_outer_csum);
	cli_json_u64(&j, "tcp_super", s->tun_tcp_super);
	cli_json_u64(&j, "udp_super", s->tun_udp_super);
	cli_json_u64(&j, "whole", s->tun_passed);
	cli_json_u64(&j, "as_outer", s->tun_as_outer);
	cli_json_u64(&j, "encap_err", s->tun_encap_err);
	cli_json_end(&j);
	cli_json_obj(&j, "unchanged");
	cli_json_u64(&j, "truncated", s->truncated);
	cli_json_u64(&j, "malformed", s->malformed);
	cli_json_u64(&j, "not_ip", s->not_ip);
	cli_json_u64(&j, "fragments", s->fragments);
	cli_json_u64(&j, "refused", s->refused);
	cli_json_u64(&j, "frag_hdr", s->frag_hdr);
	cli_json_u64(&j, "filtered", s->filtered);
	cli_json_arr(&j, "reasons");
	for (i = 1; i < NERR; i++) {
		if (!s->err[i])
			continue;
		cli_json_obj(&j, NULL);
		cli_json_i64(&j, "code", -i);
		cli_json_str(&j, "reason", sofl_strerror(-i));
		cli_json_u64(&j, "count", s->err[i]);
		cli_json_end(&j);
	}
	cli_json_end(&j);
	cli_json_end(&j);
	cli_json_obj(&j, "trailer");
	cli_json_u64(&j, "bytes_dropped", s->trailer_bytes);
	cli_json_u64(&j, "records", s->trailer_recs);
	cli_json_end(&j);
	return cli_json_finish(&j, f == stdout ? "stdout" : "stderr");
}

int
cmd_gso(int argc, char **argv)
{
	struct gso_run r;
	struct pcap_in *in;
	struct pcap_rec rec;
	int rc = 0, got;

	memset(&r, 0, sizeof(r));
	got = parse_args(argc, argv, &r.o);
	if (got == 1)
		return usage(stdout);
	if (got)
		return 2;
	if (pcapio_open(r.o.in, r.o.out, &in, &r.out, &r.link))
		return 2;
	while ((got = pcapin_next(in, &rec)) == 1) {
		if (one(&r, &rec) < 0) {
			rc = 2;
			break;
		}
	}
	if (got < 0)
		rc = 2;
	r.st.filtered = pcapin_filtered(in);
	if (pcapout_close(r.out) && !rc)
		rc = 2;
	pcapin_close(in);
	if (r.o.json) {
		if (print_json(strcmp(r.o.out, "-") ? stdout : stderr, &r.o, &r.st) && !rc)
			rc = 2;
	} else if (r.o.stats)
		print_stats(strcmp(r.o.out, "-") ? stdout : stderr, &r.st, r.o.partial);
	if (r.st.frag_hdr)
		cli_error("--mtu %u: the first fragment cannot hold the headers (IP, fragment "
			  "and TCP/UDP header) of %llu packet%s, written unchanged", r.o.mtu,
			  r.st.frag_hdr, r.st.frag_hdr == 1 ? "" : "s");
	free(r.go.seg);
	free(r.go.buf);
	free(r.go.iov);
	return rc;
}
