/* pcap/pcapng in, pcap out, on libpcap (pcapio.h). */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "pcapio.h"

#ifndef DLT_IPV4
#define DLT_IPV4 228
#endif
#ifndef DLT_IPV6
#define DLT_IPV6 229
#endif

struct pcap_in {
	pcap_t *p;
	const char *path;
	unsigned long long records;	/* read so far */
	unsigned long long taken;	/* returned (kept by the filter) */
	unsigned long long filtered;	/* skipped by --filter */
	struct bpf_program prog;
	int have_prog;
};

/* the shared capture options (pcapio_opt()) */
static struct {
	const char *filter;
	unsigned long long count;	/* 0: no limit */
	int pcapng;
	struct sofl_pkt_config pkt;	/* --udp-tunnel, --no-ipip */
	int pkt_set;			/* pkt initialised */
	int udp_given;			/* --udp-tunnel seen: the table is the options' */
	int udp_none;			/* --udp-tunnel none seen */
} opts;

struct pcap_out {
	int ng;			/* pcapng, written here (no dead/d) */
	pcap_t *dead;
	pcap_dumper_t *d;
	FILE *f;		/* the dumper's stream (ours: errors are checked) */
	const char *path;
	uint8_t *buf;		/* gather buffer for iovec records */
	size_t cap;
	int err;		/* a write failed (reported once) */
};

/* libpcap's open error names the file itself for a failed fopen ("PATH: No
 * such file or directory"); other errors do not: name it once either way. */
static void
open_error(const char *path, const char *eb)
{
	size_t n = strlen(path);

	if (!strncmp(eb, path, n) && eb[n] == ':')
		cli_error("%s", eb);
	else
		cli_error("%s: %s", path, eb);
}

struct pcap_in *
pcapin_open(const char *path, enum sofl_link *link, int *dlt)
{
	char eb[PCAP_ERRBUF_SIZE];
	struct pcap_in *in;
	pcap_t *p;
	int t;

	p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, eb);
	if (!p) {
		open_error(path, eb);
		return NULL;
	}
	t = pcap_datalink(p);
	switch (t) {
	case DLT_EN10MB:
		*link = SOFL_LINK_ETH;
		break;
	case 12: case 14: case 101: case DLT_IPV4: case DLT_IPV6:
		*link = SOFL_LINK_RAW;
		break;
	default:
		cli_error("%s: unsupported link type %d (%s); need Ethernet or raw IP", path, t,
			  pcap_datalink_val_to_name(t) ? pcap_datalink_val_to_name(t) : "?");
		pcap_close(p);
		return NULL;
	}
	in = calloc(1, sizeof(*in));
	if (!in) {
		pcap_close(p);
		cli_error("out of memory");
		return NULL;
	}
	in->p = p;
	in->path = path;
	if (opts.filter) {
		if (pcap_compile(p, &in->prog, opts.filter, 1, PCAP_NETMASK_UNKNOWN) != 0) {
			cli_usage("--filter: '%s': %s", opts.filter, pcap_geterr(p));
			pcap_close(p);
			free(in);
			return NULL;
		}
		in->have_prog = 1;
	}
	if (dlt)
		*dlt = t;
	return in;
}

int
pcapin_next(struct pcap_in *in, struct pcap_rec *rec)
{
	struct pcap_pkthdr *h;
	const u_char *d;
	int rc;

	if (opts.count && in->taken == opts.count)
		return 0;
	while ((rc = pcap_next_ex(in->p, &h, &d)) == 1 && in->have_prog &&
	       !pcap_offline_filter(&in->prog, h, d)) {
		in->records++;
		in->filtered++;
	}
	if (rc == 1) {
		in->taken++;
		rec->data = d;
		rec->caplen = h->caplen;
		rec->len = h->len;
		rec->ts = h->ts;	/* tv_usec holds nanoseconds (NANO precision) */
		rec->ts_ns = (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec;
		in->records++;
		return 1;
	}
	if (rc == PCAP_ERROR_BREAK)
		return 0;
	/* a file cut inside a record (libpcap: "truncated dump file") or
	 * unreadable: every caller has processed the records before it */
	cli_error("%s: record %llu: %s; the %llu record%s before it %s processed", in->path,
		  in->records + 1, pcap_geterr(in->p), in->records, in->records == 1 ? "" : "s",
		  in->records == 1 ? "was" : "were");
	return -1;
}

void
pcapin_close(struct pcap_in *in)
{
	if (!in)
		return;
	if (in->have_prog)
		pcap_freecode(&in->prog);
	pcap_close(in->p);
	free(in);
}

static int write_failed(struct pcap_out *out, int err);

/* ---- pcapng (IETF draft-ietf-opsawg-pcapng): a Section Header Block, one
 * Interface Description Block (link type, snap length, if_tsresol 9:
 * nanoseconds) and an Enhanced Packet Block per record, in host byte order
 * (the SHB's byte-order magic tells readers which). */

#define NG_SHB 0x0A0D0D0Au
#define NG_IDB 0x00000001u
#define NG_EPB 0x00000006u

/* The LINKTYPE_ value a pcapng IDB carries for a DLT_ value: they differ
 * only for raw IP (DLT_RAW is 12 or 14 on some systems, LINKTYPE_RAW 101). */
static uint16_t
ng_linktype(int dlt)
{
	return dlt == 12 || dlt == 14 ? 101 : (uint16_t)dlt;
}

static int
ng_put(struct pcap_out *out, const void *p, size_t n)
{
	return fwrite(p, 1, n, out->f) == n ? 0 : -1;
}

/* host-order fields into a block being built */
static void
ng16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, 2);
}

static void
ng32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static int
ng_header(struct pcap_out *out, int dlt)
{
	uint8_t shb[28], idb[32];

	memset(shb, 0, sizeof(shb));
	ng32(shb, NG_SHB);
	ng32(shb + 4, sizeof(shb));
	ng32(shb + 8, 0x1A2B3C4Du);		/* byte-order magic */
	ng16(shb + 12, 1);			/* version 1.0 */
	memset(shb + 16, 0xff, 8);		/* section length: unknown (-1) */
	ng32(shb + 24, sizeof(shb));
	memset(idb, 0, sizeof(idb));
	ng32(idb, NG_IDB);
	ng32(idb + 4, sizeof(idb));
	ng16(idb + 8, ng_linktype(dlt));	/* reserved 0 */
	ng32(idb + 12, 262144);			/* snap length */
	ng16(idb + 16, 9);			/* if_tsresol, length 1: */
	ng16(idb + 18, 1);
	idb[20] = 9;				/* 10^-9 s; pad, then opt_endofopt */
	ng32(idb + 28, sizeof(idb));
	return ng_put(out, shb, sizeof(shb)) || ng_put(out, idb, sizeof(idb)) ? -1 : 0;
}

static int
ng_packet(struct pcap_out *out, const struct timeval *ts, const void *data, uint32_t len,
	  uint32_t wire_len)
{
	static const uint8_t zero[4];
	uint32_t pad = (4 - (len & 3)) & 3, total = 32 + len + pad;
	uint64_t t = (uint64_t)ts->tv_sec * 1000000000ull + (uint64_t)ts->tv_usec;
	uint32_t h[7] = { NG_EPB, total, 0, (uint32_t)(t >> 32), (uint32_t)t, len,
			  wire_len > len ? wire_len : len };

	if (ng_put(out, h, sizeof(h)) || (len && ng_put(out, data, len)) ||
	    ng_put(out, zero, pad) || ng_put(out, &total, 4))
		return -1;
	return 0;
}

struct pcap_out *
pcapout_open(const char *path, int dlt)
{
	struct pcap_out *out = calloc(1, sizeof(*out));

	if (!out) {
		cli_error("out of memory");
		return NULL;
	}
	out->path = path;
	if (opts.pcapng) {
		out->ng = 1;
		out->f = strcmp(path, "-") ? fopen(path, "wb") : stdout;
		if (!out->f) {
			cli_error("%s: %s", path, strerror(errno));
			free(out);
			return NULL;
		}
		if (ng_header(out, dlt) != 0)
			write_failed(out, errno);
		return out;
	}
	out->dead = pcap_open_dead_with_tstamp_precision(dlt, 262144, PCAP_TSTAMP_PRECISION_NANO);
	if (!out->dead) {
		free(out);
		cli_error("pcap_open_dead failed");
		return NULL;
	}
	out->f = strcmp(path, "-") ? fopen(path, "wb") : stdout;
	if (!out->f) {
		cli_error("%s: %s", path, strerror(errno));
		pcap_close(out->dead);
		free(out);
		return NULL;
	}
	out->d = pcap_dump_fopen(out->dead, out->f);
	if (!out->d) {
		cli_error("%s: %s", path, pcap_geterr(out->dead));
		if (out->f != stdout)
			fclose(out->f);
		pcap_close(out->dead);
		free(out);
		return NULL;
	}
	return out;
}

/* The first failed write of @out is reported; later calls stay silent. */
static int
write_failed(struct pcap_out *out, int err)
{
	if (!out->err)
		cli_error("%s: write failed: %s", strcmp(out->path, "-") ? out->path : "stdout",
			  strerror(err ? err : EIO));
	out->err = 1;
	return -1;
}

int
pcapout_write(struct pcap_out *out, const struct timeval *ts, const void *data, uint32_t len,
	      uint32_t wire_len)
{
	struct pcap_pkthdr h;

	if (out->err)
		return -1;
	memset(&h, 0, sizeof(h));
	h.ts = *ts;
	h.caplen = len;
	h.len = wire_len > len ? wire_len : len;
	errno = 0;
	if (out->ng) {
		if (ng_packet(out, ts, data, len, wire_len) != 0 || ferror(out->f))
			return write_failed(out, errno);
		return 0;
	}
	pcap_dump((u_char *)out->d, &h, data);	/* void: the stream says */
	if (ferror(out->f))
		return write_failed(out, errno);
	return 0;
}

int
pcapout_writev(struct pcap_out *out, const struct timeval *ts, const struct iovec *iov, int iovcnt)
{
	size_t n = 0, o = 0;
	int i;

	for (i = 0; i < iovcnt; i++)
		n += iov[i].iov_len;
	if (n > out->cap) {
		uint8_t *b = realloc(out->buf, n);
		if (!b) {
			cli_error("out of memory");
			out->err = 1;
			return -1;
		}
		out->buf = b;
		out->cap = n;
	}
	for (i = 0; i < iovcnt; i++) {
		memcpy(out->buf + o, iov[i].iov_base, iov[i].iov_len);
		o += iov[i].iov_len;
	}
	return pcapout_write(out, ts, out->buf, (uint32_t)n, 0);
}

int
pcapout_close(struct pcap_out *out)
{
	int rc = 0, fd;

	if (!out)
		return 0;
	errno = 0;
	if (out->ng) {
		if (fflush(out->f) != 0 || ferror(out->f))
			rc = write_failed(out, errno);
		else if (out->err)
			rc = -1;
		if (out->f != stdout && fclose(out->f) != 0 && !rc)
			rc = write_failed(out, errno);
		free(out->buf);
		free(out);
		return rc;
	}
	if (pcap_dump_flush(out->d) != 0 || ferror(out->f))
		rc = write_failed(out, errno);
	else if (out->err)
		rc = -1;
	/* pcap_dump_close() is fclose() without its result: after the flush only
	 * close(2) can still fail (NFS, quotas), so keep a descriptor and close
	 * that last, checked */
	fd = dup(fileno(out->f));
	pcap_dump_close(out->d);
	if (fd < 0 || close(fd) != 0)
		if (!rc)
			rc = write_failed(out, errno);
	pcap_close(out->dead);
	free(out->buf);
	free(out);
	return rc;
}

/* The same file (device and inode), e.g. "gro a.pcap -o a.pcap" or a link
 * to it: opening the output would truncate the input before it is read. */
static int
same_file(struct pcap_in *in, const char *out_path)
{
	struct stat si, so;
	FILE *f = pcap_file(in->p);

	if (!f || fstat(fileno(f), &si) != 0)
		return 0;
	if (strcmp(out_path, "-") ? stat(out_path, &so) != 0 : fstat(1, &so) != 0)
		return 0;	/* no such file yet: it cannot be the input */
	return si.st_dev == so.st_dev && si.st_ino == so.st_ino;
}

int
pcapio_open(const char *in_path, const char *out_path, struct pcap_in **in,
	    struct pcap_out **out, enum sofl_link *link)
{
	int dlt;

	*out = NULL;
	*in = pcapin_open(in_path, link, &dlt);
	if (!*in)
		return 2;
	if (out_path && same_file(*in, out_path)) {
		cli_error("%s: is the input file too; refusing to overwrite it (input intact)",
			  strcmp(out_path, "-") ? out_path : "stdout");
		pcapin_close(*in);
		*in = NULL;
		return 2;
	}
	if (out_path && !(*out = pcapout_open(out_path, dlt))) {
		pcapin_close(*in);
		*in = NULL;
		return 2;
	}
	return 0;
}

/* ---- the shared capture options ---- */

static struct sofl_pkt_config *
pkt_cfg(void)
{
	if (!opts.pkt_set) {
		sofl_pkt_config_init(&opts.pkt);
		opts.pkt_set = 1;
	}
	return &opts.pkt;
}

/* --udp-tunnel PORT[:vxlan|geneve] or none */
static int
udp_tunnel_opt(const char *val)
{
	struct sofl_pkt_config *c = pkt_cfg();
	char port[16];
	const char *colon = strchr(val, ':');
	size_t plen = colon ? (size_t)(colon - val) : strlen(val);
	unsigned long long v;
	uint8_t type;
	uint32_t i;

	if (!opts.udp_given) {
		c->n_udp = 0;	/* the options' table replaces the defaults */
		opts.udp_given = 1;
	}
	if (strcmp(val, "none") == 0) {
		if (c->n_udp)
			return cli_usage("--udp-tunnel none: given with ports");
		opts.udp_none = 1;
		return 1;
	}
	if (opts.udp_none)
		return cli_usage("--udp-tunnel %s: given with --udp-tunnel none", val);
	if (plen == 0 || plen >= sizeof(port))
		return cli_usage("--udp-tunnel '%s': PORT[:vxlan|geneve] or none", val);
	memcpy(port, val, plen);
	port[plen] = 0;
	if (cli_dec(port, 65535, &v) != 0 || v == 0)
		return cli_usage("--udp-tunnel '%s': the port must be 1..65535", val);
	if (!colon)
		type = v == 6081 ? SOFL_ENCAP_GENEVE : SOFL_ENCAP_VXLAN;
	else if (strcmp(colon + 1, "vxlan") == 0)
		type = SOFL_ENCAP_VXLAN;
	else if (strcmp(colon + 1, "geneve") == 0)
		type = SOFL_ENCAP_GENEVE;
	else
		return cli_usage("--udp-tunnel '%s': the type must be vxlan or geneve", val);
	for (i = 0; i < c->n_udp; i++)
		if (c->udp[i].port == v)
			return cli_usage("--udp-tunnel: port %llu given twice", v);
	if (c->n_udp == SOFL_PKT_UDP_ENCAP_MAX)
		return cli_usage("--udp-tunnel: at most %d ports", SOFL_PKT_UDP_ENCAP_MAX);
	c->udp[c->n_udp].port = (uint16_t)v;
	c->udp[c->n_udp].type = type;
	c->n_udp++;
	return 1;
}

int
pcapio_opt(int opt, const char *val, int can_write)
{
	long long v;

	switch (opt) {
	case PCAPIO_OPT_PCAPNG:
		if (!can_write)
			return cli_usage("--pcapng: this command writes no capture");
		opts.pcapng = 1;
		return 1;
	case PCAPIO_OPT_FILTER:
		if (opts.filter)
			return cli_usage("--filter given twice (one expression: 'A and B')");
		opts.filter = val;
		return 1;
	case PCAPIO_OPT_UDP_TUNNEL:
		return udp_tunnel_opt(val);
	case PCAPIO_OPT_NO_IPIP:
		pkt_cfg()->flags |= SOFL_PKT_F_NO_IPIP;
		return 1;
	case 'c':
		if ((v = cli_count("-c", val, ~0ull >> 1)) < 0)
			return 2;
		opts.count = (unsigned long long)v;
		return 1;
	}
	return 0;
}

const struct sofl_pkt_config *
pcapio_pkt_config(void)
{
	return pkt_cfg();
}

int
pcapio_pcapng(void)
{
	return opts.pcapng;
}

int
pcapio_filtering(void)
{
	return opts.filter != NULL;
}

unsigned long long
pcapin_filtered(const struct pcap_in *in)
{
	return in ? in->filtered : 0;
}
