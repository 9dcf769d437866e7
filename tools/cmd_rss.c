/* softoffload rss: which receive queue would each packet of a capture reach
 * under Toeplitz RSS, and how evenly do packets and flows spread?
 *
 * Each record is parsed once with sofl_pkt_parse_cfg() (the tunnels of
 * --udp-tunnel and --no-ipip) and hashed with
 * sofl_rss_pkt().  A record cut short by the capture (caplen < len) is parsed
 * as if its missing bytes were zero, so that its headers are still read; its
 * hash is reported only if every byte the hash uses was captured.  A flow is
 * one hash input (sofl_rss_input()): in symmetric mode both directions of a
 * connection are one flow.  Tunnel packets (VXLAN, Geneve, IP-in-IP, parsed
 * through to their inner packet) are hashed on their outer header, or with
 * --inner on their inner flow, and counted per tunnel kind. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "pcapio.h"
#include "softoffload/pkt.h"
#include "softoffload/rss.h"

#define WIRE_MAX 262144		/* longest record we widen to its wire length */

struct rss_opts {
	const char *in, *table;
	const char *key_hex;
	unsigned long queues;
	int symmetric, inner, tsv, json;
};

/* distinct hash inputs: open addressing, keyed by type + input bytes */
struct flow {
	uint8_t used, type, len;
	uint16_t queue;
	uint8_t in[SOFL_RSS_INPUT_MAX];
	uint32_t hash;
};

struct flowset {
	struct flow *f;
	size_t cap, n;		/* cap: power of two */
};

struct rss_stats {
	unsigned long long records, hashed, not_ip, malformed, trunc, filtered;
	unsigned long long by_type[SOFL_RSS_IPV6_UDP + 1];
	/* tunnel packets: [encap] by kind, hashed on the inner flow, tunnel
	 * recognised but not parsed into (hashed as a plain packet) */
	unsigned long long tun[SOFL_ENCAP_IPIP + 1], tun_inner, tun_err;
	unsigned long long *pkts, *flows;	/* per queue */
};

static int
usage(FILE *f)
{
	fprintf(f,
"usage: softoffload rss FILE --queues N [--key HEX] [--symmetric] [--inner]\n"
"                           [--table TFILE] [--format text|tsv|json] [--json]\n"
"                           [-c N] [--filter EXPR]\n"
"\n"
"Computes the Toeplitz RSS hash of every packet in FILE (pcap or pcapng;\n"
"Ethernet or raw IP) and the receive queue an indirection table maps it to,\n"
"as a NIC would, and prints per-queue packet and flow counts.\n"
"\n"
"Hash input (source first): IPv4/IPv6 src dst, plus sport dport for TCP and\n"
"UDP.  Fragments (first one included) and other protocols use the addresses\n"
"only.  Non-IP packets get no hash.  Queue = table[hash & (entries - 1)].\n"
"Tunnel packets (VXLAN on UDP port 4789, Geneve on 6081, IP-in-IP) are\n"
"hashed on their outer header, as a NIC without inner RSS does: VXLAN and\n"
"Geneve on the outer UDP 4-tuple, IP-in-IP on the outer addresses.\n"
"\n"
"  --queues N      number of receive queues (1..65535); the default table\n"
"                  has 128 entries, entry i -> queue i %% N\n"
"  --key HEX       Toeplitz key, 40 to 52 bytes in hex ('6d5a56da...',\n"
"                  ':' '-' and blanks between bytes allowed);\n"
"                  default: the Microsoft key 6d5a56da...beac01fa\n"
"  --symmetric     sort the two addresses and, separately, the two ports\n"
"                  before hashing: both directions of a flow hash alike\n"
"  --inner         tunnel packets: hash the inner packet's flow instead of\n"
"                  the outer header (a NIC's inner RSS); an inner packet\n"
"                  that is not IP keeps the outer hash\n"
"  --table TFILE   indirection table, in one of two forms ('#' starts a\n"
"                  comment; blank lines are ignored):\n"
"                    queue numbers, one per entry, in entry order (whitespace\n"
"                    separated, usually one per line); the count is the table\n"
"                    size and must be a power of two, 1..512\n"
"                  or a single line\n"
"                    weight W0 W1 ...\n"
"                  128 entries shared out in proportion to the weights of\n"
"                  queues 0, 1, ... in contiguous runs (ethtool -X weight)\n"
"  --format text   per-queue table and summary (default)\n"
"  --format tsv    a header line, then one line per packet: packet, hash,\n"
"                  queue, type, src, dst, sport, dport (TAB-separated);\n"
"                  packets numbered from 1, hash as 0x%%08x, queue from 0,\n"
"                  type IPv4, IPv4/TCP, ... (what the hash covers), the\n"
"                  tuple the hash covers ('-' for ports it does not use);\n"
"                  every field after the number '-' when a packet has no\n"
"                  hash (not IP, malformed, or its hash input not captured)\n"
PCAPIO_OPTS_USAGE
"  --format json, --json\n"
"                  the text output's counters as one JSON document\n"
"                  (docs/cli.md)\n"
"\n"
"Text output: for each queue its packets and flows (distinct hash inputs:\n"
"in symmetric mode both directions are one flow), then the spread:\n"
"max/mean of the per-queue counts (1.00 = perfectly even, N = all on one\n"
"queue; the mean is over all N queues).\n"
"\n"
"Records cut short by the snap length (caplen < len) are parsed as far as\n"
"they go; their hash is printed only if the headers it depends on (IP\n"
"header chain, and the TCP/UDP header when ports are used) were captured.\n"
"A file that ends inside a record: the records before it are reported, then\n"
"the error, exit 2.\n"
"\n"
"Exit status: 0 ok, 2 usage error, unreadable or cut-off file, or\n"
"unsupported link type.\n");
	return f == stdout ? 0 : 2;
}

static int
parse_args(int argc, char **argv, struct rss_opts *o)
{
	enum { O_QUEUES = 0x100, O_KEY, O_TABLE, O_FORMAT };
	const struct option lopts[] = {
		PCAPIO_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ "symmetric", no_argument, &o->symmetric, 1 },
		{ "inner", no_argument, &o->inner, 1 },
		{ "json", no_argument, &o->json, 1 },
		{ "queues", required_argument, NULL, O_QUEUES },
		{ "key", required_argument, NULL, O_KEY },
		{ "table", required_argument, NULL, O_TABLE },
		{ "format", required_argument, NULL, O_FORMAT },
		{ NULL, 0, NULL, 0 }
	};
	long long q;
	int c;

	memset(o, 0, sizeof(*o));
	optind = 1;
	while ((c = cli_getopt(argc, argv, ":h" PCAPIO_SHORTOPTS, lopts)) != -1) {
		const char *v = optarg;

		switch (c) {
		case 'h':
			return 1;
		case O_QUEUES:
			if ((q = cli_count("--queues", v, SOFL_RSS_QUEUES_MAX)) < 0)
				return 2;
			o->queues = (unsigned long)q;
			break;
		case O_KEY:
			o->key_hex = v;
			break;
		case O_TABLE:
			o->table = v;
			break;
		case O_FORMAT:
			if (!strcmp(v, "tsv"))
				o->tsv = 1;
			else if (!strcmp(v, "json"))
				o->json = 1;
			else if (strcmp(v, "text"))
				return cli_usage("--format: '%s' is not text, tsv or json", v);
			break;
		case 0:
			break;
		case '?':
			return 2;
		default:
			if (pcapio_opt(c, v, 0) != 1)
				return 2;
		}
	}
	if (cli_input(argc, argv, &o->in))
		return 2;
	if (!o->queues)
		return cli_usage("--queues N is required");
	if (o->tsv && o->json)
		return cli_usage("--format tsv and --json exclude each other");
	return 0;
}

/* "6d5a..." or "6d:5a:..."; @return the length, or -1 (message printed). */
static int
parse_key(const char *s, uint8_t *key)
{
	int n = 0, hi, lo;

	if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2))
		s += 2;
	while (*s) {
		if (*s == ':' || *s == '-' || *s == ' ' || *s == '\t') {
			s++;
			continue;
		}
		hi = cli_hexdigit((unsigned char)s[0]);
		lo = s[1] ? cli_hexdigit((unsigned char)s[1]) : -1;
		if (hi < 0 || lo < 0) {
			cli_usage("--key: not a hex byte at '%.8s'", s);
			return -1;
		}
		if (n == SOFL_RSS_KEY_MAX) {
			cli_usage("--key: longer than %d bytes", SOFL_RSS_KEY_MAX);
			return -1;
		}
		key[n++] = (uint8_t)(hi << 4 | lo);
		s += 2;
	}
	if (n < SOFL_RSS_KEY_LEN) {
		cli_usage("--key: %d bytes; need %d to %d", n, SOFL_RSS_KEY_LEN,
			  SOFL_RSS_KEY_MAX);
		return -1;
	}
	return n;
}

/* One number of TFILE into vals[] (@cap entries), bounded by both the
 * form's limit (@limit: --queues weights, or 512 entries) and @cap.
 * @return 0, or 2 (printed). */
static int
table_word(const char *w, const char *path, unsigned lineno, int weights, unsigned nq,
	   unsigned *vals, unsigned cap, unsigned *n)
{
	unsigned limit = weights ? nq : SOFL_RSS_RETA_MAX;
	unsigned long long v;

	if (cli_dec(w, weights ? 0xffffffffULL : nq - 1, &v) != 0) {
		if (cli_dec(w, ~0ULL, &v) != 0)
			return cli_usage("--table %s:%u: '%s' is not a decimal number", path, lineno,
					 w);
		return cli_usage("--table %s:%u: %s %s is out of range (%s)", path, lineno,
				 weights ? "weight" : "queue", w,
				 weights ? "0..4294967295" : "below --queues");
	}
	if (*n >= limit || *n >= cap)
		return cli_usage(weights ? "--table %s:%u: more weights than --queues" :
				 "--table %s:%u: more than 512 entries", path, lineno);
	vals[(*n)++] = (unsigned)v;
	return 0;
}

/* The weights' sum must fit sofl_rss_reta_weights()'s 32 bits. */
static int
table_weights(struct sofl_rss *r, const char *path, const unsigned *vals, unsigned n)
{
	unsigned long long total = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		total += vals[i];
	if (total > 0xffffffffULL)
		return cli_usage("--table %s: the weights add up to %llu, more than 4294967295",
				 path, total);
	/* queues past the listed weights get no entry */
	if (total == 0 || sofl_rss_reta_weights(r, SOFL_RSS_RETA_DEFAULT, vals, n) != 0)
		return cli_usage("--table %s: weights must not all be 0", path);
	return 0;
}

/* Reads TFILE into the engine (see usage()); @return 0 or 2 (printed). */
static int
load_table(struct sofl_rss *r, const char *path, unsigned nq)
{
	unsigned cap = nq > SOFL_RSS_RETA_MAX ? nq : SOFL_RSS_RETA_MAX;
	unsigned *vals = calloc(cap, sizeof(*vals)), n = 0, i;
	int weights = 0, words = 0, err = 0;
	char *line = NULL;
	size_t lcap = 0;
	unsigned lineno = 0;
	FILE *f;

	if (!vals)
		return cli_error("out of memory");
	f = fopen(path, "r");
	if (!f) {
		free(vals);
		return cli_error("%s: %s", path, strerror(errno));
	}
	/* getline(): a line of 65535 weights is one line, never cut in a number */
	while (!err && getline(&line, &lcap, f) >= 0) {
		char *save = NULL, *w, *c = strchr(line, '#');

		lineno++;
		if (c)
			*c = '\0';
		for (w = strtok_r(line, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
			if (!strcmp(w, "weight") && words == 0) {
				weights = 1;
				words++;
				continue;
			}
			words++;
			if ((err = table_word(w, path, lineno, weights, nq, vals, cap, &n)) != 0)
				break;
		}
	}
	if (!err && ferror(f))
		err = cli_error("%s: read error", path);
	free(line);
	fclose(f);
	if (!err && weights)
		err = table_weights(r, path, vals, n);
	else if (!err && (n == 0 || (n & (n - 1))))
		err = cli_usage("--table %s: %u entries; need a power of two from 1 to 512", path,
				n);
	else if (!err && sofl_rss_reta_fill(r, n, nq) != 0)
		err = cli_error("%s: cannot size the table", path);
	for (i = 0; !err && !weights && i < n; i++)
		sofl_rss_reta_set(r, i, vals[i]);
	free(vals);
	return err ? 2 : 0;
}

static int
flow_add(struct flowset *s, const uint8_t *in, size_t len, int type, uint32_t hash, unsigned q)
{
	size_t i, j;

	if (2 * (s->n + 1) > s->cap) {
		size_t ncap = s->cap ? 2 * s->cap : 1024;
		struct flow *nf = calloc(ncap, sizeof(*nf));

		if (!nf)
			return -1;
		for (i = 0; i < s->cap; i++) {
			if (!s->f[i].used)
				continue;
			for (j = s->f[i].hash & (ncap - 1); nf[j].used; j = (j + 1) & (ncap - 1))
				;
			nf[j] = s->f[i];
		}
		free(s->f);
		s->f = nf;
		s->cap = ncap;
	}
	/* the Toeplitz hash itself spreads the slots */
	for (j = hash & (s->cap - 1); s->f[j].used; j = (j + 1) & (s->cap - 1))
		if (s->f[j].type == type && s->f[j].len == len && !memcmp(s->f[j].in, in, len))
			return 0;
	s->f[j].used = 1;
	s->f[j].type = (uint8_t)type;
	s->f[j].len = (uint8_t)len;
	s->f[j].queue = (uint16_t)q;
	s->f[j].hash = hash;
	memcpy(s->f[j].in, in, len);
	s->n++;
	return 1;
}

/* For a record cut by the snap length: were the whole IP header chain and,
 * when the hash uses them, the ports captured (inside the first @caplen
 * bytes)?  Then the zeros standing in for the rest changed nothing. */
static int
input_captured(const struct sofl_pkt *p, int type, int inner, uint32_t caplen)
{
	uint32_t need = (uint32_t)p->l3_off + p->l3_len;
	uint32_t l4 = p->l4_off;

	/* a tunnel packet hashed on its outer header: the outer headers */
	if ((p->layers & SOFL_LAYER_ENCAP) && (!inner || !(p->layers & SOFL_LAYER_L3))) {
		need = (uint32_t)p->outer_l3_off + p->outer_l3_len;
		l4 = p->outer_l4_off;
	}
	if (type != SOFL_RSS_IPV4 && type != SOFL_RSS_IPV6 && l4 + 4 > need)
		need = l4 + 4;
	return need <= caplen;
}

static const char *const type_name[] = {
	"", "IPv4", "IPv4/TCP", "IPv4/UDP", "IPv6", "IPv6/TCP", "IPv6/UDP",
};

/* JSON keys of the same types */
static const char *const type_key[] = {
	"", "ipv4", "ipv4_tcp", "ipv4_udp", "ipv6", "ipv6_tcp", "ipv6_udp",
};

static void
tsv_header(void)
{
	printf("packet\thash\tqueue\ttype\tsrc\tdst\tsport\tdport\n");
}

/* One packet: its hash, queue, hash type and the tuple the hash covers (the
 * packet's own order, also in symmetric mode); '-' where there is none. */
static void
tsv_line(unsigned long long n, const struct sofl_rss_out *o, const struct sofl_flow_key *k,
	 int type)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	int af = k && k->family == 6 ? AF_INET6 : AF_INET;

	if (!o || !inet_ntop(af, k->src, src, sizeof(src)) ||
	    !inet_ntop(af, k->dst, dst, sizeof(dst))) {
		printf("%llu\t-\t-\t-\t-\t-\t-\t-\n", n);
		return;
	}
	printf("%llu\t0x%08x\t%u\t%s\t%s\t%s\t", n, o->hash, o->queue, type_name[type], src, dst);
	if (type == SOFL_RSS_IPV4 || type == SOFL_RSS_IPV6)
		printf("-\t-\n");
	else
		printf("%u\t%u\n", k->sport, k->dport);
}

/* One record: @n bytes at @data to parse, of which the first @caplen are real. */
static int
rss_record(const struct sofl_rss *r, const struct rss_opts *o, struct rss_stats *st,
	   struct flowset *fs, const uint8_t *data, uint32_t n, uint32_t caplen,
	   enum sofl_link link)
{
	struct sofl_pkt p;
	struct sofl_rss_out out;
	uint8_t in[SOFL_RSS_INPUT_MAX];
	size_t len;
	int err, type;

	st->records++;
	err = sofl_pkt_parse_cfg(&p, data, n, link, pcapio_pkt_config());
	type = sofl_rss_pkt(r, &p, &out);
	if (type <= 0) {
		if (err == 0 && p.ipv == 0)
			st->not_ip++;
		else
			st->malformed++;
		if (o->tsv)
			tsv_line(st->records, NULL, NULL, 0);
		return 0;
	}
	/* in a widened record a parse error may come from the zeros: only an
	 * error-free parse of captured headers is trusted */
	if (n != caplen && (err != 0 || !input_captured(&p, type, o->inner, caplen))) {
		st->trunc++;
		if (o->tsv)
			tsv_line(st->records, NULL, NULL, 0);
		return 0;
	}
	st->hashed++;
	st->by_type[type]++;
	st->pkts[out.queue]++;
	if (p.layers & SOFL_LAYER_ENCAP) {
		st->tun[p.encap <= SOFL_ENCAP_IPIP ? p.encap : 0]++;
		st->tun_inner += o->inner && (p.layers & SOFL_LAYER_L3);
	} else if (p.layers & SOFL_LAYER_ENCAP_ERR)
		st->tun_err++;
	if (o->tsv) {
		struct sofl_flow_key k;

		sofl_rss_pkt_key(r, &p, &k);	/* what was hashed: outer or inner */
		tsv_line(st->records, &out, &k, type);
		return 0;
	}
	sofl_rss_input(r, &p, in, &len);
	switch (flow_add(fs, in, len, type, out.hash, out.queue)) {
	case 1:
		st->flows[out.queue]++;
		return 0;
	case 0:
		return 0;
	default:
		return cli_error("out of memory");
	}
}

static int
run(const struct sofl_rss *r, const struct rss_opts *o, struct rss_stats *st,
    enum sofl_link *link)
{
	struct pcap_in *in;
	struct pcap_rec rec;
	struct flowset fs = { NULL, 0, 0 };
	uint8_t *wide = calloc(1, WIRE_MAX);
	int rc, ret = 0;

	if (!wide)
		return cli_error("out of memory");
	in = pcapin_open(o->in, link, NULL);
	if (!in) {
		free(wide);
		return 2;
	}
	if (o->tsv)
		tsv_header();
	while ((rc = pcapin_next(in, &rec)) == 1) {
		const uint8_t *d = rec.data;
		uint32_t n = rec.caplen;

		/* a record cut by the snap length: give the parser its wire
		 * length with zeros for the missing bytes, so the headers that
		 * were captured are still read (input_captured() then checks
		 * that the hash did not use any of the zeros) */
		if (rec.len > rec.caplen && rec.caplen < WIRE_MAX) {
			n = rec.len < WIRE_MAX ? rec.len : WIRE_MAX;
			memcpy(wide, rec.data, rec.caplen);
			memset(wide + rec.caplen, 0, n - rec.caplen);
			d = wide;
		}
		if (rss_record(r, o, st, &fs, d, n, rec.caplen, *link) != 0) {
			ret = 2;
			break;
		}
	}
	st->filtered = pcapin_filtered(in);
	if (rc < 0)
		ret = 2;
	pcapin_close(in);
	free(fs.f);
	free(wide);
	return ret;
}

static double
max_over_mean(const unsigned long long *v, unsigned n)
{
	unsigned long long max = 0, sum = 0;
	unsigned i;

	for (i = 0; i < n; i++) {
		sum += v[i];
		if (v[i] > max)
			max = v[i];
	}
	return sum ? (double)max * n / (double)sum : 0.0;
}

static void
line(unsigned long long n, const char *what)
{
	printf("\t%llu %s\n", n, what);
}

/* netstat -s style sections, then the per-queue table (TAB-separated). */
static void
print_text(const struct sofl_rss *r, const struct rss_opts *o, const struct rss_stats *st,
	   enum sofl_link link)
{
	unsigned long long nflows = 0;
	unsigned q, nq = (unsigned)o->queues;
	int t;

	for (q = 0; q < nq; q++)
		nflows += st->flows[q];
	printf("%s: %llu packets (%s)\n", o->in, st->records,
	       link == SOFL_LINK_ETH ? "Ethernet" : "raw IP");
	printf("settings:\n");
	printf("\tkey %s\n", o->key_hex ? "from --key" : "Microsoft default");
	printf("\t%s\n", o->symmetric ? "symmetric (sorted addresses and ports)" : "not symmetric");
	printf("\ttunnels hashed on the %s\n", o->inner ? "inner flow (--inner)" : "outer header");
	line(sofl_rss_reta_size(r), "indirection table entries");
	line(nq, "queues");
	printf("\timplementation %s\n", sofl_rss_impl_name(r));
	printf("hashed:\n");
	line(st->hashed, "packets hashed");
	for (t = SOFL_RSS_IPV4; t <= SOFL_RSS_IPV6_UDP; t++)
		line(st->by_type[t], type_name[t]);
	printf("tunnels:\n");
	line(st->tun[SOFL_ENCAP_VXLAN], "VXLAN packets hashed");
	line(st->tun[SOFL_ENCAP_GENEVE], "Geneve packets hashed");
	line(st->tun[SOFL_ENCAP_IPIP], "IP-in-IP packets hashed");
	line(st->tun_inner, "tunnel packets hashed on the inner flow");
	line(st->tun_err, "tunnel packets not parsed into (hashed as plain packets)");
	printf("no hash:\n");
	line(st->not_ip, "packets not IP");
	line(st->malformed, "malformed packets");
	line(st->trunc, "packets whose hash input was not captured");
	if (pcapio_filtering())
		line(st->filtered, "records filtered out (--filter)");
	printf("queue\tpackets\tflows\n");
	for (q = 0; q < nq; q++)
		printf("%u\t%llu\t%llu\n", q, st->pkts[q], st->flows[q]);
	printf("total\t%llu\t%llu\n", st->hashed, nflows);
	printf("spread (max/mean per queue; 1.00 = even, %u = all on one queue):\n", nq);
	printf("\t%.2f packets\n", max_over_mean(st->pkts, nq));
	printf("\t%.2f flows\n", max_over_mean(st->flows, nq));
}

/* The same counters as one JSON document (docs/cli.md). */
static int
print_json(const struct sofl_rss *r, const struct rss_opts *o, const struct rss_stats *st,
	   enum sofl_link link)
{
	struct cli_json j;
	unsigned long long nflows = 0;
	unsigned q, nq = (unsigned)o->queues;
	int t;

	for (q = 0; q < nq; q++)
		nflows += st->flows[q];
	cli_json_begin(&j, stdout);
	cli_json_str(&j, "file", o->in);
	cli_json_str(&j, "link", link == SOFL_LINK_ETH ? "ethernet" : "raw_ip");
	cli_json_u64(&j, "packets", st->records);
	cli_json_str(&j, "key", o->key_hex ? "given" : "default");
	cli_json_bool(&j, "symmetric", o->symmetric);
	cli_json_bool(&j, "inner", o->inner);
	cli_json_u64(&j, "table_size", sofl_rss_reta_size(r));
	cli_json_u64(&j, "queue_count", nq);
	cli_json_str(&j, "impl", sofl_rss_impl_name(r));
	cli_json_u64(&j, "hashed", st->hashed);
	cli_json_obj(&j, "by_type");
	for (t = SOFL_RSS_IPV4; t <= SOFL_RSS_IPV6_UDP; t++)
		cli_json_u64(&j, type_key[t], st->by_type[t]);
	cli_json_end(&j);
	cli_json_obj(&j, "tunnels");
	cli_json_u64(&j, "vxlan", st->tun[SOFL_ENCAP_VXLAN]);
	cli_json_u64(&j, "geneve", st->tun[SOFL_ENCAP_GENEVE]);
	cli_json_u64(&j, "ipip", st->tun[SOFL_ENCAP_IPIP]);
	cli_json_u64(&j, "inner", st->tun_inner);
	cli_json_u64(&j, "not_parsed", st->tun_err);
	cli_json_end(&j);
	cli_json_obj(&j, "no_hash");
	cli_json_u64(&j, "not_ip", st->not_ip);
	cli_json_u64(&j, "malformed", st->malformed);
	cli_json_u64(&j, "not_captured", st->trunc);
	cli_json_end(&j);
	cli_json_u64(&j, "filtered", st->filtered);
	cli_json_arr(&j, "queues");
	for (q = 0; q < nq; q++) {
		cli_json_obj(&j, NULL);
		cli_json_u64(&j, "queue", q);
		cli_json_u64(&j, "packets", st->pkts[q]);
		cli_json_u64(&j, "flows", st->flows[q]);
		cli_json_end(&j);
	}
	cli_json_end(&j);
	cli_json_u64(&j, "flows", nflows);
	cli_json_obj(&j, "spread");
	cli_json_dbl(&j, "packets", max_over_mean(st->pkts, nq), 2);
	cli_json_dbl(&j, "flows", max_over_mean(st->flows, nq), 2);
	cli_json_end(&j);
	return cli_json_finish(&j, "stdout");
}

int
cmd_rss(int argc, char **argv)
{
	struct sofl_rss_config rcfg;
	struct sofl_rss *rss;
	struct rss_opts o;
	struct rss_stats st;
	enum sofl_link link = SOFL_LINK_ETH;
	uint8_t key[SOFL_RSS_KEY_MAX];
	int klen = 0, rc;

	rc = parse_args(argc, argv, &o);
	if (rc == 1)
		return usage(stdout);
	if (rc)
		return rc;
	if (o.key_hex && (klen = parse_key(o.key_hex, key)) < 0)
		return 2;
	sofl_rss_config_init(&rcfg);
	rcfg.key = o.key_hex ? key : NULL;
	rcfg.key_len = (uint32_t)klen;
	rcfg.nqueues = (uint32_t)o.queues;
	rcfg.flags = (o.symmetric ? SOFL_RSS_F_SYMMETRIC : 0) | (o.inner ? SOFL_RSS_F_INNER : 0);
	rc = sofl_rss_create(&rcfg, &rss);
	if (rc == SOFL_E_NOMEM)
		return cli_error("out of memory");
	if (rc != 0)
		return cli_usage("bad key or queue count");
	if (o.table && (rc = load_table(rss, o.table, (unsigned)o.queues)) != 0) {
		sofl_rss_destroy(rss);
		return rc;
	}
	memset(&st, 0, sizeof(st));
	st.pkts = calloc(o.queues, sizeof(*st.pkts));
	st.flows = calloc(o.queues, sizeof(*st.flows));
	if (!st.pkts || !st.flows) {
		free(st.pkts);
		free(st.flows);
		sofl_rss_destroy(rss);
		return cli_error("out of memory");
	}
	rc = run(rss, &o, &st, &link);
	if (o.json && !(rc == 2 && st.records == 0)) {
		if (print_json(rss, &o, &st, link))
			rc = 2;
	} else if (!o.tsv && !(rc == 2 && st.records == 0))
		print_text(rss, &o, &st, link);
	free(st.pkts);
	free(st.flows);
	sofl_rss_destroy(rss);
	return rc;
}
