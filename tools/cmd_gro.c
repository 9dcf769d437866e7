/* softoffload gro: replay a capture as NIC receive polls through the GRO
 * engine and write what the stack would receive.
 *
 * Poll boundaries: with --poll-sizes, exactly the listed sizes (the kernel
 * oracle's NAPI polls), then, for packets past the list, the default rules;
 * otherwise a poll ends after --poll-max packets or before a packet whose
 * capture timestamp is more than --poll-gap-us after the previous one (only
 * when --poll-gap-us is given).  Everything held is flushed at the end of each
 * poll, so every output references packets of its own poll only.
 *
 * NAPI weight: a Linux poll handles at most its weight (--napi-weight, 64)
 * packets per ->poll() call; when a call used the whole weight, __napi_poll()
 * (net/core/dev.c) flushes GRO with gro_flush_normal(&n->gro, HZ >= 1000) and
 * polls again.  With HZ < 1000 that completes everything held, so a poll of
 * more than the weight is replayed as consecutive rounds of at most the
 * weight, each completed like a poll; with HZ >= 1000 it completes only
 * packets held since an earlier jiffy, and a replayed poll runs within one
 * jiffy (see docs/cli.md), so nothing is completed at the weight and the
 * poll is replayed whole.  --hz gives the kernel's HZ (default 250).
 *
 * A capture cut inside a record: the records before it are replayed and
 * written (the poll being filled ends there), then the error, exit 2.
 *
 * Output timestamp: that of the newest input packet the output carries. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "pcapio.h"
#include "softoffload/csum.h"
#include "softoffload/gro.h"
#include "softoffload/pkt.h"
#include "softoffload/rss.h"

struct gro_opts {
	const char *in, *out;
	struct sofl_gro_config cfg;
	int stats, json, assume_valid;
	uint32_t poll_max;
	uint32_t weight;		/* NAPI weight: packets per ->poll() call */
	uint32_t hz;			/* the kernel's HZ: what a full round flushes */
	long long gap_ns;		/* -1: no gap rule */
	uint32_t *sizes;
	size_t nsizes;
	struct sofl_gro_rule rules[16];
	const struct sofl_rss *rss;	/* --rx-hash toeplitz */
};

/* One input record, owned by the replay until the output carrying it is
 * released (with --flush-timeout-us that may be several polls later). */
struct rec {
	uint32_t caplen, len;
	struct timeval ts;
	uint64_t ts_ns;
	uint8_t data[];
};

static int
usage(FILE *f)
{
	fprintf(f,
"usage: softoffload gro IN.pcap -o OUT.pcap [--policy linux|relaxed] [--udp]\n"
"         [--csum partial|full] [--poll-max N] [--poll-gap-us N]\n"
"         [--poll-sizes FILE|a,b,c] [--napi-weight N] [--hz N]\n"
"         [--assume-valid] [--partial-ok]\n"
"         [--flows N] [--rule TYPE[,dst=ADDR[/LEN]][,dport=N]]... [--stats] [--json]\n"
"         [--flush-timeout-us N] [--max-segs N] [--rx-hash toeplitz|none]\n"
"         [--hash-key HEX|random]\n"
"         [-c N] [--filter EXPR] [--pcapng]\n"
"\n"
"Replays IN (pcap/pcapng, Ethernet or raw IP) as NIC receive polls through\n"
"the GRO engine (Linux 6.18 rules) and writes the packets the stack would\n"
"receive, in Linux's delivery order, to OUT (same link type; '-' = stdout).\n"
"\n"
"  --policy P      linux (default): Linux's decisions and bytes;\n"
"                  relaxed: ACK/window/timestamps may advance (BSD LRO)\n"
"  --udp           UDP GRO as for a socket with UDP_GRO (off by default)\n"
"  --csum M        full (default): complete TCP/UDP checksums of the outputs;\n"
"                  partial: leave Linux's pseudo-header sum in super-packets\n"
"  --poll-max N    a poll ends after N packets (default 64, the NAPI weight)\n"
"  --poll-gap-us N a poll also ends where consecutive timestamps are more\n"
"                  than N microseconds apart (default: no gap rule)\n"
"  --poll-sizes S  polls of exactly these sizes (a,b,c, or a FILE: on each\n"
"                  line the first word, a number or a list a,b,c, counts and\n"
"                  the rest is ignored; lines starting with # are comments);\n"
"                  packets past the list are split by the rules above; a\n"
"                  size 0 is an empty poll.  Numbers are decimal\n"
"  --napi-weight N packets per NAPI ->poll() call (default 64, Linux's\n"
"                  NAPI_POLL_WEIGHT); a poll of more than N packets is\n"
"                  replayed as the kernel runs it: rounds of N, and after\n"
"                  each full round __napi_poll() flushes GRO as --hz says\n"
"  --hz N          the kernel's CONFIG_HZ (default 250, the Kconfig default;\n"
"                  see zcat /proc/config.gz or /boot/config-*): below 1000 a\n"
"                  full round completes everything held; at 1000 and above\n"
"                  only packets held since an earlier jiffy, i.e. none in a\n"
"                  replay (a poll takes less than a jiffy)\n"
"  --assume-valid  treat every checksum as verified (NIC DATA_VALID)\n"
"  --partial-ok    a checksum holding only the pseudo-header sum (capture on\n"
"                  the sending host) counts as valid, as CHECKSUM_PARTIAL does\n"
"  --flows N       a hashed table of N flows with LRU eviction instead of\n"
"                  Linux's 8 buckets of 8 (the per-queue LRO use case)\n"
"  --rule R        coalesce only flows matching a rule (repeatable, up to 16;\n"
"                  like ethtool -N ... flow-type tcp4 dst-ip X): TYPE is\n"
"                  tcp4, tcp6, udp4, udp6, ip4, ip6 or any, then optionally\n"
"                  dst=ADDR or dst=ADDR/LEN and dport=N, comma-separated;\n"
"                  other flows pass through (counted as bypass 'rule')\n"
"  --flush-timeout-us N  the timeout mode (Linux gro_flush_timeout): a poll\n"
"                  completes only flows held N microseconds or more, by the\n"
"                  capture's timestamps; the rest stays held across polls\n"
"                  (0: the default, every poll completes everything)\n"
"  --max-segs N    at most N segments per super-packet (1..65535; default\n"
"                  1022, what one writev() takes)\n"
"  --rx-hash H     toeplitz: give each packet the Toeplitz RSS hash (default\n"
"                  key) as a NIC's rx hash, which places flows in Linux's\n"
"                  buckets; none (default): the engine hashes flows itself\n"
"  --hash-key K    the key of that hash (LRU table): 32 hex digits, or random\n"
"                  (a fresh key per run, as a live engine has); default: a\n"
"                  fixed key, so every run of a capture gives the same output\n"
PCAPIO_OPTS_USAGE PCAPIO_PCAPNG_USAGE
"  --stats         print the statistics (to stderr when OUT is stdout)\n"
"  --json          print the statistics as one JSON document instead\n"
"                  (docs/cli.md; to stderr when OUT is stdout)\n"
"\n"
"Exit status: 0 ok, 2 usage, file or write error, or a file cut inside a\n"
"record (every packet before it is replayed and written first).\n");
	return f == stdout ? 0 : 2;
}

#define SIZE_MAX_POLL 1000000

static int
add_size(void *ctx, unsigned long long v)
{
	struct gro_opts *o = ctx;
	uint32_t *n;

	n = realloc(o->sizes, (o->nsizes + 1) * sizeof(*n));
	if (!n)
		return cli_error("out of memory");
	o->sizes = n;
	o->sizes[o->nsizes++] = (uint32_t)v;
	return 0;
}

/* On each line the first word (a number or a list a,b,c: kgro's -P file is
 * one such line) counts; '#' comment lines and blank lines are skipped. */
static int
sizes_file(struct gro_opts *o, FILE *f, const char *path)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	int rc = 0;

	/* getline(): kgro writes all its polls on one line, of any length */
	while (!rc && getline(&line, &cap, f) >= 0) {
		char *p = line;

		lineno++;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#' || *p == '\n' || *p == '\r' || *p == 0)
			continue;
		p[strcspn(p, " \t\r\n")] = '\0';
		if (*p < '0' || *p > '9')
			rc = cli_usage("--poll-sizes %s:%u: expected a number or a list a,b,c",
				       path, lineno);
		else
			rc = cli_list("--poll-sizes", p, SIZE_MAX_POLL, add_size, o);
	}
	if (!rc && ferror(f))
		rc = cli_error("%s: read error", path);
	free(line);
	return rc;
}

static int
parse_sizes(struct gro_opts *o, const char *arg)
{
	FILE *f = fopen(arg, "r");
	int rc;

	if (f) {
		rc = sizes_file(o, f, arg);
		fclose(f);
		return rc;
	}
	if (*arg < '0' || *arg > '9')
		return cli_usage("--poll-sizes: '%s' is neither a file nor a list a,b,c", arg);
	return cli_list("--poll-sizes", arg, SIZE_MAX_POLL, add_size, o);
}

/* TYPE[,dst=ADDR[/LEN]][,dport=N] -> one rule (sofl_gro_rule). */
static int
parse_rule(struct gro_opts *o, const char *arg)
{
	static const struct { const char *name; uint8_t family, proto; } types[] = {
		{ "tcp4", 4, 6 }, { "tcp6", 6, 6 }, { "udp4", 4, 17 }, { "udp6", 6, 17 },
		{ "ip4", 4, 0 }, { "ip6", 6, 0 }, { "any", 0, 0 },
	};
	struct sofl_gro_rule *r;
	char buf[128], *tok, *save = NULL;
	size_t i;

	if (o->cfg.n_rules == sizeof(o->rules) / sizeof(o->rules[0]))
		return cli_usage("--rule: at most %zu rules", sizeof(o->rules) / sizeof(o->rules[0]));
	if (strlen(arg) >= sizeof(buf))
		return cli_usage("--rule: '%s' is too long", arg);
	if (!*arg || *arg == ',' || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,"))
		return cli_usage("--rule: '%s': an empty field (a stray or trailing comma)", arg);
	strcpy(buf, arg);
	r = &o->rules[o->cfg.n_rules];
	memset(r, 0, sizeof(*r));
	tok = strtok_r(buf, ",", &save);
	for (i = 0; tok && i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(tok, types[i].name))
			break;
	if (!tok || i == sizeof(types) / sizeof(types[0]))
		return cli_usage("--rule: '%s': expected tcp4, tcp6, udp4, udp6, ip4, ip6 or any first",
				 arg);
	r->family = types[i].family;
	r->proto = types[i].proto;
	while ((tok = strtok_r(NULL, ",", &save))) {
		if (!strncmp(tok, "dst=", 4)) {
			char *slash = strchr(tok + 4, '/');
			unsigned maxlen, len;
			int fam;

			if (slash)
				*slash = 0;
			if (inet_pton(AF_INET, tok + 4, r->dst) == 1)
				fam = 4;
			else if (inet_pton(AF_INET6, tok + 4, r->dst) == 1)
				fam = 6;
			else
				return cli_usage("--rule: bad address '%s'", tok + 4);
			if (r->family && r->family != fam)
				return cli_usage("--rule: address family does not match '%s'", arg);
			r->family = (uint8_t)fam;
			maxlen = fam == 4 ? 32 : 128;
			len = maxlen;
			if (slash) {
				unsigned long long v;

				if (cli_dec(slash + 1, maxlen, &v) != 0)
					return cli_usage("--rule: bad prefix length '/%s' (0..%u)",
							 slash + 1, maxlen);
				len = (unsigned)v;
			}
			r->prefix = (uint8_t)len;
		} else if (!strncmp(tok, "dport=", 6)) {
			long long v = cli_count("--rule dport", tok + 6, 65535);
			if (v < 0)
				return 2;
			r->dport = (uint16_t)v;
		} else {
			return cli_usage("--rule: unknown field '%s' (dst=, dport=)", tok);
		}
	}
	o->cfg.n_rules++;
	o->cfg.rules = o->rules;
	return 0;
}

/* --rx-hash toeplitz|none: toeplitz gives every input the Toeplitz hash of
 * the default (Microsoft) key, as a NIC with RSS would (SOFL_GRO_F_HASH);
 * none (the default) lets the engine hash the flow itself. */
static int
parse_rx_hash(struct gro_opts *o, const char *val)
{
	static struct sofl_rss *rss;	/* made once, kept until exit */

	if (!strcmp(val, "none")) {
		o->rss = NULL;
		return 0;
	}
	if (strcmp(val, "toeplitz"))
		return cli_usage("--rx-hash: toeplitz or none, not '%s'", val);
	if (!rss && sofl_rss_create(NULL, &rss) != 0)
		return cli_error("out of memory (RSS engine)");
	o->rss = rss;
	return 0;
}

/* The LRU table's flow hash key of a replay.  The library draws a random key
 * per engine unless given one (so that senders cannot aim flows at one
 * bucket); a replay takes this fixed key by default instead, so that the
 * same capture gives the same outputs in every run.  --hash-key random asks
 * for the library's random key, --hash-key HEX (32 hex digits) for another. */
static const uint8_t replay_key[16] = {
	0x73, 0x6f, 0x66, 0x74, 0x6f, 0x66, 0x66, 0x6c,	/* "softoffl" */
	0x6f, 0x61, 0x64, 0x2d, 0x67, 0x72, 0x6f, 0x31,	/* "oad-gro1" */
};

static int
parse_hash_key(struct gro_opts *o, const char *val)
{
	uint8_t k[16], any = 0;
	int i, hi, lo;

	if (!strcmp(val, "random")) {
		memset(o->cfg.hash_key, 0, sizeof(o->cfg.hash_key));
		return 0;
	}
	if (strlen(val) != 32)
		return cli_usage("--hash-key: 32 hex digits or 'random', not '%s'", val);
	for (i = 0; i < 16; i++) {
		hi = cli_hexdigit((unsigned char)val[2 * i]);
		lo = cli_hexdigit((unsigned char)val[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return cli_usage("--hash-key: not a hex byte at '%.2s'", val + 2 * i);
		k[i] = (uint8_t)(hi << 4 | lo);
		any |= k[i];
	}
	if (!any)
		return cli_usage("--hash-key: an all-zero key means 'random'; say so");
	memcpy(o->cfg.hash_key, k, sizeof(k));
	return 0;
}

enum { O_POLICY = 0x100, O_CSUM,
       O_POLL_MAX, O_POLL_GAP, O_POLL_SIZES, O_FLOWS, O_RULE, O_WEIGHT, O_HZ,
       O_FLUSH_TIMEOUT, O_MAX_SEGS, O_RX_HASH, O_HASH_KEY };

static int
parse_args(struct gro_opts *o, int argc, char **argv)
{
	const struct option lopts[] = {
		PCAPIO_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ "udp", no_argument, &o->cfg.udp, 1 },
		{ "stats", no_argument, &o->stats, 1 },
		{ "json", no_argument, &o->json, 1 },
		{ "assume-valid", no_argument, &o->assume_valid, 1 },
		{ "partial-ok", no_argument, &o->cfg.partial_ok, 1 },
		{ "policy", required_argument, NULL, O_POLICY },
		{ "csum", required_argument, NULL, O_CSUM },
		{ "poll-max", required_argument, NULL, O_POLL_MAX },
		{ "poll-gap-us", required_argument, NULL, O_POLL_GAP },
		{ "poll-sizes", required_argument, NULL, O_POLL_SIZES },
		{ "flows", required_argument, NULL, O_FLOWS },
		{ "rule", required_argument, NULL, O_RULE },
		{ "napi-weight", required_argument, NULL, O_WEIGHT },
		{ "hz", required_argument, NULL, O_HZ },
		{ "flush-timeout-us", required_argument, NULL, O_FLUSH_TIMEOUT },
		{ "max-segs", required_argument, NULL, O_MAX_SEGS },
		{ "rx-hash", required_argument, NULL, O_RX_HASH },
		{ "hash-key", required_argument, NULL, O_HASH_KEY },
		{ NULL, 0, NULL, 0 }
	};
	const struct cli_num nums[] = {
		{ O_POLL_MAX, "--poll-max", 1, 1000000, &o->poll_max },
		{ O_WEIGHT, "--napi-weight", 1, SIZE_MAX_POLL, &o->weight },
		{ O_HZ, "--hz", 1, 100000, &o->hz },
		{ O_FLUSH_TIMEOUT, "--flush-timeout-us", 0, 4294967295ull, &o->cfg.flush_timeout_us },
		{ O_MAX_SEGS, "--max-segs", 1, 65535, &o->cfg.max_segs },
	};
	int c, partial;
	long long v;

	sofl_gro_config_init(&o->cfg);
	memcpy(o->cfg.hash_key, replay_key, sizeof(replay_key));
	o->cfg.csum_full = 1;
	o->poll_max = 64;
	o->weight = 64;
	o->hz = 250;
	o->gap_ns = -1;
	optind = 1;
	while ((c = cli_getopt(argc, argv, ":ho:" PCAPIO_SHORTOPTS, lopts)) != -1) {
		const char *val = optarg;

		switch (c) {
		case 'h':
			return usage(stdout) - 1;
		case 'o':
			o->out = val;
			break;
		case O_POLICY:
			if (!strcmp(val, "linux"))
				o->cfg.policy = SOFL_GRO_POLICY_LINUX;
			else if (!strcmp(val, "relaxed"))
				o->cfg.policy = SOFL_GRO_POLICY_RELAXED;
			else
				return cli_usage("--policy: linux or relaxed, not '%s'", val);
			break;
		case O_CSUM:
			if (cli_csum_mode("--csum", val, &partial))
				return 2;
			o->cfg.csum_full = !partial;
			break;
		case O_POLL_GAP:
			if ((v = cli_uint("--poll-gap-us", val, 1000000000ull)) < 0)
				return 2;
			o->gap_ns = v * 1000;
			break;
		case O_FLOWS:
			if ((v = cli_count("--flows", val, 1u << 24)) < 0)
				return 2;
			o->cfg.table = SOFL_GRO_TABLE_LRU;
			o->cfg.max_flows = (uint32_t)v;
			break;
		case O_RX_HASH:
			if (parse_rx_hash(o, val))
				return 2;
			break;
		case O_HASH_KEY:
			if (parse_hash_key(o, val))
				return 2;
			break;
		case O_RULE:
			if (parse_rule(o, val))
				return 2;
			break;
		case O_POLL_SIZES:
			if (parse_sizes(o, val))
				return 2;
			break;
		case 0:
			break;
		case '?':
			return 2;
		default:	/* a number, else a capture option */
			if (cli_num_opt(nums, CLI_NELEM(nums), c, val) && pcapio_opt(c, val, 1) != 1)
				return 2;
		}
	}
	if (cli_input(argc, argv, &o->in))
		return 2;
	if (!o->out)
		return cli_usage("no output file (-o OUT.pcap)");
	return 0;
}

static const char *const hist_bins[SOFL_GRO_HIST_BINS] = {
	"1", "2-3", "4-7", "8-15", "16-31", "32-63", "64+",
};

static void
line(FILE *f, unsigned long long n, const char *what)
{
	fprintf(f, "\t%llu %s\n", n, what);
}

/* enum sofl_encap_err by name (pkt.h), for the tunnel section */
static const char *const encap_err_names[] = {
	"none", "truncated", "vxlan-flags", "geneve-version", "geneve-oam", "geneve-optlen",
	"geneve-proto", "inner-l2", "inner-vlan", "inner-malformed",
};
_Static_assert(sizeof(encap_err_names) / sizeof(encap_err_names[0]) == SOFL_ENCAP_ERR__MAX,
	       "a name per enum sofl_encap_err");

/* netstat -s style: a section per concern, one counter per line. */
static void
print_stats(FILE *f, const struct sofl_gro_stats *s, uint64_t written,
	    unsigned long long filtered)
{
	char b[64];
	int i;

	fprintf(f, "gro:\n");
	line(f, s->pkts_in, "packets in");
	line(f, s->bytes_in, "bytes in");
	line(f, s->pkts_out, "packets out");
	line(f, s->super_pkts, "super-packets");
	line(f, s->segs_merged, "segments merged into super-packets");
	line(f, written, "records written");
	if (pcapio_filtering())
		line(f, filtered, "records filtered out (--filter)");
	fprintf(f, "checksums:\n");
	line(f, s->csum_sw_ip, "IPv4 header checksums verified in software");
	line(f, s->csum_sw_l4, "TCP/UDP checksums verified in software");
	line(f, s->csum_partial_ok, "pseudo-header checksums accepted (partial-ok)");
	line(f, s->csum_sw_outer, "outer UDP checksums verified in software");
	fprintf(f, "tunnels:\n");
	line(f, s->tun_in, "tunnel packets in");
	line(f, s->tun_super_pkts, "tunnel super-packets");
	line(f, s->tun_segs_merged, "segments merged into tunnel super-packets");
	for (i = 1; i < SOFL_ENCAP_ERR__MAX; i++)
		if (s->encap_err[i]) {
			snprintf(b, sizeof(b), "tunnel headers not parsed: %s", encap_err_names[i]);
			line(f, s->encap_err[i], b);
		}
	fprintf(f, "segments per output:\n");
	for (i = 0; i < SOFL_GRO_HIST_BINS; i++) {
		snprintf(b, sizeof(b), "with %s segment%s", hist_bins[i], i ? "s" : "");
		line(f, s->hist[i], b);
	}
	fprintf(f, "flush reasons:\n");
	for (i = 0; i < SOFL_GRO_FLUSH__MAX; i++)
		if (s->flush[i])
			line(f, s->flush[i], sofl_gro_flush_name((enum sofl_gro_flush)i));
	fprintf(f, "bypass reasons:\n");
	for (i = 0; i < SOFL_GRO_BYPASS__MAX; i++)
		if (s->bypass[i])
			line(f, s->bypass[i], sofl_gro_bypass_name((enum sofl_gro_bypass)i));
}

/* The same counters as one JSON document; the "gro" object uses the names
 * of struct sofl_gro_stats, as `softoffload tunnel --json` does. */
static int
print_json(FILE *f, const struct gro_opts *o, const struct sofl_gro_stats *s, uint64_t written,
	   unsigned long long filtered)
{
	struct cli_json j;
	int i;

	cli_json_begin(&j, f);
	cli_json_str(&j, "file", o->in);
	cli_json_u64(&j, "written", written);
	cli_json_u64(&j, "filtered", filtered);
	cli_json_obj(&j, "gro");
	cli_json_u64(&j, "pkts_in", s->pkts_in);
	cli_json_u64(&j, "bytes_in", s->bytes_in);
	cli_json_u64(&j, "pkts_out", s->pkts_out);
	cli_json_u64(&j, "super_pkts", s->super_pkts);
	cli_json_u64(&j, "segs_merged", s->segs_merged);
	cli_json_u64(&j, "csum_sw_ip", s->csum_sw_ip);
	cli_json_u64(&j, "csum_sw_l4", s->csum_sw_l4);
	cli_json_u64(&j, "csum_partial_ok", s->csum_partial_ok);
	cli_json_u64(&j, "csum_sw_outer", s->csum_sw_outer);
	cli_json_obj(&j, "tunnel");
	cli_json_u64(&j, "pkts_in", s->tun_in);
	cli_json_u64(&j, "super_pkts", s->tun_super_pkts);
	cli_json_u64(&j, "segs_merged", s->tun_segs_merged);
	cli_json_obj(&j, "encap_err");
	for (i = 1; i < SOFL_ENCAP_ERR__MAX; i++)
		cli_json_u64(&j, encap_err_names[i], s->encap_err[i]);
	cli_json_end(&j);
	cli_json_end(&j);
	cli_json_obj(&j, "hist");
	for (i = 0; i < SOFL_GRO_HIST_BINS; i++)
		cli_json_u64(&j, hist_bins[i], s->hist[i]);
	cli_json_end(&j);
	cli_json_obj(&j, "flush");
	for (i = 0; i < SOFL_GRO_FLUSH__MAX; i++)
		cli_json_u64(&j, sofl_gro_flush_name((enum sofl_gro_flush)i), s->flush[i]);
	cli_json_end(&j);
	cli_json_obj(&j, "bypass");
	for (i = 0; i < SOFL_GRO_BYPASS__MAX; i++)
		cli_json_u64(&j, sofl_gro_bypass_name((enum sofl_gro_bypass)i), s->bypass[i]);
	cli_json_end(&j);
	cli_json_end(&j);
	return cli_json_finish(&j, f == stdout ? "stdout" : "stderr");
}

struct run {
	struct gro_opts *o;
	struct sofl_gro *g;
	struct pcap_out *out;
	struct pcap_in *pin;
	struct rec **recs;	/* the poll being filled */
	struct sofl_gro_in *in;
	struct sofl_pkt *pkts;	/* in[i]'s parse (--rx-hash), handed to the engine */
	struct rec **done;	/* inputs of the cycle's outputs: freed after release */
	size_t ndone, done_cap;
	uint8_t *buf;		/* contiguous copy for outputs that need fixing */
	uint64_t written;
	int err;
};

/* An output's input, by its cookie (the record itself). */
static struct rec *
rec_of(uint64_t cookie)
{
	return (struct rec *)(uintptr_t)cookie;
}

static int
done_add(struct run *r, struct rec *x)
{
	if (r->ndone == r->done_cap) {
		size_t cap = r->done_cap ? 2 * r->done_cap : 256;
		struct rec **d = realloc(r->done, cap * sizeof(*d));

		if (!d)
			return -1;
		r->done = d;
		r->done_cap = cap;
	}
	r->done[r->ndone++] = x;
	return 0;
}

/* Writes the cycle's outputs and notes their inputs for freeing.
 * @return 0, or -1 when a write failed (printed). */
static int
write_outputs(struct run *r)
{
	const struct sofl_gro_out *out;
	int n = sofl_gro_outputs(r->g, &out), i, w = 0;
	uint32_t j;

	for (i = 0; i < n; i++) {
		const struct sofl_gro_out *x = &out[i];
		const struct rec *newest = rec_of(x->cookies[0]);
		uint32_t wire = 0;

		for (j = 0; j < x->segs; j++) {
			if (rec_of(x->cookies[j])->ts_ns > newest->ts_ns)
				newest = rec_of(x->cookies[j]);
			if (done_add(r, rec_of(x->cookies[j]))) {
				cli_error("out of memory");
				return -1;
			}
		}
		if (w)
			continue;	/* a write failed: only collect the inputs */
		if (x->segs == 1)
			wire = rec_of(x->cookies[0])->len;
		if (r->o->cfg.csum_full && x->csum == SOFL_CSUM_PARTIAL) {
			/* left with the pseudo sum (a UDP super-packet, which the
			 * engine gives NEEDS_CSUM in both modes, or a packet held
			 * with one under --partial-ok): complete it */
			long l = sofl_gro_out_copy(x, r->buf, 65536 + 256);
			if (l < 0 || sofl_csum_complete_partial(r->buf, (size_t)l, x->csum_start,
								x->csum_offset) < 0)
				w = pcapout_writev(r->out, &newest->ts, x->iov, (int)x->iovcnt);
			else
				w = pcapout_write(r->out, &newest->ts, r->buf, (uint32_t)l, wire);
		} else if (x->iovcnt == 1) {
			w = pcapout_write(r->out, &newest->ts, x->iov[0].iov_base,
					  (uint32_t)x->iov[0].iov_len, wire);
		} else {
			w = pcapout_writev(r->out, &newest->ts, x->iov, (int)x->iovcnt);
		}
		if (!w)
			r->written++;
	}
	return w ? -1 : 0;
}

/* Ends a cycle: writes the outputs, releases them, frees their inputs. */
static int
cycle_end(struct run *r)
{
	int w = write_outputs(r);
	size_t i;

	sofl_gro_release(r->g);
	for (i = 0; i < r->ndone; i++)
		free(r->done[i]);
	r->ndone = 0;
	return w;
}

/* The rx hash of --rx-hash toeplitz: the Toeplitz hash a NIC with the
 * default key would give the record (sofl_rss_pkt()); none for non-IP.
 * The parse it takes (into *p) goes to the engine with the input, so that
 * each frame is parsed once: SOFL_GRO_F_PKT, or SOFL_GRO_F_MALFORMED when
 * the parser rejected the frame. */
static void
rx_hash(const struct run *r, struct sofl_gro_in *x, struct sofl_pkt *p)
{
	struct sofl_rss_out o;
	int err;

	if (!r->o->rss)
		return;
	err = sofl_pkt_parse_cfg(p, x->data, x->len, r->o->cfg.link, pcapio_pkt_config());
	if (err < 0) {
		x->flags |= SOFL_GRO_F_MALFORMED;
	} else {
		x->flags |= SOFL_GRO_F_PKT;
		x->pkt = p;
	}
	if (err < 0 && p->ipv == 0)
		return;
	if (sofl_rss_pkt(r->o->rss, p, &o) > 0) {
		x->flags |= SOFL_GRO_F_HASH;
		x->hash = o.hash;
	}
}

/* One ->poll() call's worth (a round) of packets recs[off, off + n): merged,
 * then completed (everything held, or with --flush-timeout-us what was held
 * long enough), written and released. */
static int
run_round(struct run *r, uint32_t off, uint32_t n)
{
	uint64_t now = n ? r->recs[off + n - 1]->ts_ns : 0;
	uint32_t i;
	int rc;

	for (i = 0; i < n; i++) {
		struct sofl_gro_in *x = &r->in[i];

		x->data = r->recs[off + i]->data;
		x->len = r->recs[off + i]->caplen;
		x->flags = r->o->assume_valid ? SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK : 0;
		x->hash = 0;
		x->cookie = (uint64_t)(uintptr_t)r->recs[off + i];
		x->pkt = NULL;
		rx_hash(r, x, &r->pkts[i]);
	}
	if (n && (rc = sofl_gro_receive(r->g, r->in, n, now)) != (int)n) {
		for (i = 0; i < n; i++)
			free(r->recs[off + i]);
		return cli_error("internal: engine refused a poll of %u packets: %s", n,
				 sofl_strerror(rc));
	}
	sofl_gro_poll_end(r->g, now);
	return cycle_end(r) ? 2 : 0;
}

/* One NAPI poll of @n packets (recs[0, n)), as __napi_poll() runs it: a
 * ->poll() call takes at most the weight; one that takes all of it is
 * followed by gro_flush_normal(&n->gro, HZ >= 1000) and another call.  With
 * HZ < 1000 that flush completes everything held: rounds of at most the
 * weight, each completed.  With HZ >= 1000 it completes only packets held
 * since an earlier jiffy, none within a poll replayed at one instant: the
 * poll is one round, completed by napi_complete_done() at its end.  The
 * records belong to the engine from here on: freed when their output is. */
static int
run_poll(struct run *r, uint32_t n)
{
	uint32_t off = 0, step = r->o->hz >= 1000 ? n : r->o->weight;
	int rc = 0;

	do {			/* once at least: an empty poll is a poll */
		uint32_t k = n - off < step ? n - off : step;

		rc = run_round(r, off, k);
		off += k;
	} while (!rc && off < n);
	for (; off < n; off++)		/* a failed round: the rest was never fed */
		free(r->recs[off]);
	return rc;
}

/* Polls as --poll-sizes, --poll-max and --poll-gap-us say.  A read error
 * (a file cut inside a record) ends the poll being filled: it is replayed
 * and written, then 2 is returned. */
static int
replay(struct gro_opts *o, struct pcap_in *in, struct run *r)
{
	struct pcap_rec rec;
	size_t si = 0;
	uint32_t n = 0, target;
	uint64_t prev_ns = 0;
	int rc;

	/* the size of the poll being filled; 0-sized listed polls are empty polls */
	for (;;) {
		while (si < o->nsizes && o->sizes[si] == 0) {
			if (run_poll(r, 0))
				return 2;
			si++;
		}
		target = si < o->nsizes ? o->sizes[si] : o->poll_max;
		rc = pcapin_next(in, &rec);
		if (rc <= 0)
			break;
		if (n && si >= o->nsizes && o->gap_ns >= 0 && rec.ts_ns - prev_ns > (uint64_t)o->gap_ns) {
			if (run_poll(r, n))
				return 2;
			n = 0;
		}
		r->recs[n] = malloc(sizeof(struct rec) + rec.caplen);
		if (!r->recs[n]) {
			run_poll(r, n);
			return cli_error("out of memory");
		}
		memcpy(r->recs[n]->data, rec.data, rec.caplen);
		r->recs[n]->caplen = rec.caplen;
		r->recs[n]->len = rec.len;
		r->recs[n]->ts = rec.ts;
		r->recs[n]->ts_ns = rec.ts_ns;
		prev_ns = rec.ts_ns;
		n++;
		if (n == target) {
			if (run_poll(r, n))
				return 2;
			n = 0;
			if (si < o->nsizes)
				si++;
		}
	}
	if (n && run_poll(r, n))
		return 2;
	return rc < 0 ? 2 : 0;
}

/* The end of the capture (or an error): what the timeout mode still holds
 * is completed (reason "explicit") and written; nothing stays allocated.
 * @write: 0 after an error that ends the output. */
static int
drain(struct run *r, int write)
{
	struct pcap_out *out = r->out;
	int rc;

	if (!r->g || !sofl_gro_held(r->g))
		return 0;
	sofl_gro_flush(r->g);
	if (!write)
		r->out = NULL;	/* collect the inputs only */
	rc = r->out ? cycle_end(r) : 0;
	if (!r->out) {
		const struct sofl_gro_out *x;
		int n = sofl_gro_outputs(r->g, &x), i;
		uint32_t j;

		for (i = 0; i < n; i++)
			for (j = 0; j < x[i].segs; j++)
				free(rec_of(x[i].cookies[j]));
		sofl_gro_release(r->g);
	}
	r->out = out;
	return rc ? 2 : 0;
}

int
cmd_gro(int argc, char **argv)
{
	struct gro_opts o;
	struct run r;
	struct pcap_in *in = NULL;
	struct sofl_gro_stats st;
	enum sofl_link link;
	uint32_t maxpoll;
	size_t i;
	int rc, err;

	memset(&o, 0, sizeof(o));
	memset(&r, 0, sizeof(r));
	rc = parse_args(&o, argc, argv);
	if (rc)
		goto done;
	maxpoll = o.poll_max;
	for (i = 0; i < o.nsizes; i++)
		if (o.sizes[i] > maxpoll)
			maxpoll = o.sizes[i];
	rc = 2;
	if (pcapio_open(o.in, o.out, &in, &r.out, &link))
		goto done;
	o.cfg.link = link;
	o.cfg.max_batch = maxpoll;
	o.cfg.parse = pcapio_pkt_config();	/* --udp-tunnel, --no-ipip: the engine's parses too */
	err = sofl_gro_create(&o.cfg, &r.g);
	if (err) {
		cli_error("gro engine: %s", sofl_strerror(err));
		goto done;
	}
	r.o = &o;
	r.recs = calloc(maxpoll, sizeof(*r.recs));
	r.in = calloc(maxpoll, sizeof(*r.in));
	r.pkts = calloc(maxpoll, sizeof(*r.pkts));
	r.buf = malloc(65536 + 256);
	if (!r.recs || !r.in || !r.pkts || !r.buf) {
		cli_error("out of memory");
		goto done;
	}
	rc = replay(&o, in, &r);
	if (drain(&r, !rc) && !rc)
		rc = 2;
	if (o.stats || o.json) {
		FILE *f = strcmp(o.out, "-") ? stdout : stderr;

		sofl_gro_get_stats(r.g, &st, sizeof(st));
		if (!o.json)
			print_stats(f, &st, r.written, pcapin_filtered(in));
		else if (print_json(f, &o, &st, r.written, pcapin_filtered(in)) && !rc)
			rc = 2;
	}
done:
	drain(&r, 0);
	if (pcapout_close(r.out) && !rc)
		rc = 2;
	pcapin_close(in);
	sofl_gro_destroy(r.g);
	free(r.recs);
	free(r.in);
	free(r.pkts);
	free(r.done);
	free(r.buf);
	free(o.sizes);
	return rc < 0 ? 0 : rc;
}
