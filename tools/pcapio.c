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
};

struct pcap_out {
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
	if (dlt)
		*dlt = t;
	return in;
}

int
pcapin_next(struct pcap_in *in, struct pcap_rec *rec)
{
	struct pcap_pkthdr *h;
	const u_char *d;
	int rc = pcap_next_ex(in->p, &h, &d);

	if (rc == 1) {
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
	pcap_close(in->p);
	free(in);
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
