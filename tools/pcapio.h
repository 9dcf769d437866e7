/* Capture files for the CLI: read pcap/pcapng with libpcap, write pcap
 * (libpcap) or pcapng (written here: libpcap 1.10 has no pcapng writer).
 * Link types: DLT_EN10MB -> SOFL_LINK_ETH; DLT_RAW (12/14/101), DLT_IPV4,
 * DLT_IPV6 -> SOFL_LINK_RAW.  Anything else is refused with a message. */
#ifndef SOFL_PCAPIO_H
#define SOFL_PCAPIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>
#include <sys/uio.h>
#include "softoffload/pkt.h"

struct pcap_in;
struct pcap_out;

struct pcap_rec {
	const uint8_t *data;	/* valid until the next pcapin_next() */
	uint32_t caplen;	/* bytes captured (data length) */
	uint32_t len;		/* original length on the wire; > caplen = truncated */
	struct timeval ts;
	uint64_t ts_ns;		/* ts as nanoseconds */
};

/* Open @path; *link gets the packets' link type, *dlt the capture's DLT.
 * NULL on error, with the message already printed. */
struct pcap_in *pcapin_open(const char *path, enum sofl_link *link, int *dlt);
/* 1 = a record, 0 = end of file, -1 = the file is cut inside a record or
 * unreadable: the message "PATH: record N: <libpcap's reason>; the N-1
 * records before it were processed" is printed, so the caller must have
 * processed (and written) every record it got before, and exit 2. */
int pcapin_next(struct pcap_in *in, struct pcap_rec *rec);
void pcapin_close(struct pcap_in *in);

/* Create @path ("-" = stdout) with link type @dlt. NULL on error (printed).
 * It does not check that @path is not an input: pcapio_open() does. */
struct pcap_out *pcapout_open(const char *path, int dlt);
/* Write one record from a contiguous buffer or from an iovec list.
 * @wire_len: original length (>= the bytes given; pass 0 for "same").
 * @return 0, or -1 when this or an earlier write failed (the first failure
 * is printed once, "PATH: write failed: <strerror>"); stop writing then. */
int pcapout_write(struct pcap_out *out, const struct timeval *ts, const void *data,
		  uint32_t len, uint32_t wire_len);
int pcapout_writev(struct pcap_out *out, const struct timeval *ts, const struct iovec *iov,
		   int iovcnt);
/* Flush and close, checking the flush and the final close(2); returns 0,
 * or -1 if any write failed (message printed once).  NULL is fine. */
int pcapout_close(struct pcap_out *out);

/* Open @in_path and, unless @out_path is NULL, create @out_path with the
 * input's link type (*out stays NULL without it).  An @out_path that is the
 * input file (same device and inode: the same path, a link, "-" when stdout
 * is the input) is refused before anything is created or truncated.  On
 * failure nothing is left open.  @return 0, or 2 with the message printed. */
int pcapio_open(const char *in_path, const char *out_path, struct pcap_in **in,
		struct pcap_out **out, enum sofl_link *link);

/* ---- options shared by the capture subcommands ----
 *   -c N            stop after N records (those the filter kept)
 *   --filter EXPR   only records matching the BPF expression EXPR, in
 *                   tcpdump's syntax (pcap_compile(), one argument: quote
 *                   it); the others are skipped and counted
 *   --pcapng        write the output capture as pcapng (only where there is
 *                   an output), nanosecond timestamps
 *   --udp-tunnel PORT[:vxlan|geneve], --udp-tunnel none, --no-ipip
 *                   the tunnels the parser goes into (pkt.h "Tunnels"):
 *                   one struct sofl_pkt_config, pcapio_pkt_config()
 * They are process-wide (one subcommand per process): pcapio_opt() stores
 * them and pcapio_open()/pcapin_open()/pcapout_open() apply them. */
#define PCAPIO_OPTS_USAGE \
"  -c N            stop after N records (those --filter keeps)\n" \
"  --filter EXPR   only records matching the BPF expression EXPR (tcpdump's\n" \
"                  syntax, one argument: quote it); the others are skipped\n" \
"                  and counted as filtered out\n" \
"  --udp-tunnel PORT[:vxlan|geneve]  parse UDP to PORT as that tunnel (repeat\n" \
"                  for up to 8 ports; these replace the defaults 4789:vxlan\n" \
"                  and 6081:geneve; no type: geneve for 6081, else vxlan);\n" \
"                  --udp-tunnel none: no UDP tunnels\n" \
"  --no-ipip       do not parse into IP-in-IP (protocols 4 and 41)\n"
#define PCAPIO_PCAPNG_USAGE \
"  --pcapng        write OUT as pcapng (default pcap)\n"
/* Their getopt_long() forms, for a subcommand's option tables: the short
 * options (append them to the optstring) and the long ones (entries of the
 * struct option array).  Their vals: 'c' and PCAPIO_OPT_* (0x1000 up). */
#define PCAPIO_SHORTOPTS "c:"
enum { PCAPIO_OPT_FILTER = 0x1000, PCAPIO_OPT_PCAPNG, PCAPIO_OPT_UDP_TUNNEL, PCAPIO_OPT_NO_IPIP };
#define PCAPIO_LONGOPTS \
	{ "filter", required_argument, NULL, PCAPIO_OPT_FILTER }, \
	{ "pcapng", no_argument, NULL, PCAPIO_OPT_PCAPNG }, \
	{ "udp-tunnel", required_argument, NULL, PCAPIO_OPT_UDP_TUNNEL }, \
	{ "no-ipip", no_argument, NULL, PCAPIO_OPT_NO_IPIP }
/* @opt (a cli_getopt() result) is one of the options above, with value
 * @val: stores it and returns 1; 0 when it is none of them; 2 on a usage
 * error (printed).  @can_write: the subcommand writes a capture (--pcapng). */
int pcapio_opt(int opt, const char *val, int can_write);
/* Whether --pcapng, --filter or -c were given. */
int pcapio_pcapng(void);
int pcapio_filtering(void);
/* The parse options of --udp-tunnel and --no-ipip (sofl_pkt_config_init()'s
 * defaults without them), for sofl_pkt_parse_cfg() and the engines'
 * configs; valid for the process's life. */
const struct sofl_pkt_config *pcapio_pkt_config(void);
/* Records skipped by --filter so far on @in. */
unsigned long long pcapin_filtered(const struct pcap_in *in);

#endif
