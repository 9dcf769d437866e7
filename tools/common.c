/* Helpers shared by the CLI subcommands (cli.h): options and operands, JSON,
 * the ports' counters, signals, errors. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "softoffload/gro.h"
#include "softoffload/port.h"

long long
cli_count(const char *opt, const char *val, unsigned long long max)
{
	long long v = cli_uint(opt, val, max);

	if (v == 0) {
		cli_usage("%s: must be at least 1", opt);
		return -1;
	}
	return v;
}

int
cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts)
{
	const char *arg;
	int c;

	opterr = 0;
	c = getopt_long(argc, argv, shortopts, longopts, NULL);
	if (c != '?' && c != ':')
		return c;
	arg = argv[optind - 1];
	if (c == ':' && strncmp(arg, "--", 2))
		cli_usage("-%c needs a value", optopt);
	else if (c == ':')
		cli_usage("%s needs a value", arg);
	/* optopt: an unknown short option's letter, 0 for an unknown long
	 * option, the option's val for "--flag=value" */
	else if (optopt && !(!strncmp(arg, "--", 2) && strchr(arg, '=')))
		cli_usage("unknown option '-%c'", optopt);
	else
		cli_usage("unknown option '%s'", arg);
	return '?';
}

int
cli_num_opt(const struct cli_num *nums, size_t n, int opt, const char *val)
{
	long long v;
	size_t i;

	for (i = 0; i < n; i++) {
		if (nums[i].opt != opt)
			continue;
		v = nums[i].min ? cli_count(nums[i].name, val, nums[i].max) :
				  cli_uint(nums[i].name, val, nums[i].max);
		if (v < 0)
			return 2;
		*nums[i].dst = (uint32_t)v;
		return 0;
	}
	return -1;
}

int
cli_operand(const char *cmd, const char *arg, const char **in)
{
	if (arg[0] == '-' && arg[1] != '\0')
		return cli_usage_of(cmd, "unknown option '%s'", arg);
	if (*in)
		return cli_usage_of(cmd, "more than one input file ('%s' and '%s')", *in, arg);
	*in = arg;
	return 0;
}

int
cli_input(int argc, char **argv, const char **in)
{
	for (; optind < argc; optind++)
		if (cli_operand(cli_cmd, argv[optind], in))
			return 2;
	return *in ? 0 : cli_usage("no input file");
}

int
cli_csum_mode(const char *opt, const char *val, int *partial)
{
	if (!strcmp(val, "full"))
		*partial = 0;
	else if (!strcmp(val, "partial"))
		*partial = 1;
	else
		return cli_usage("%s: expected full or partial, not '%s'", opt, val);
	return 0;
}

int
cli_list(const char *opt, const char *val, unsigned long long max,
	 int (*add)(void *ctx, unsigned long long v), void *ctx)
{
	const char *p = val;

	if (!*p)
		return cli_usage("%s: empty list", opt);
	for (;;) {
		char num[24];
		size_t len = strcspn(p, ",");
		unsigned long long v;

		if (len == 0 || len >= sizeof(num))
			return cli_usage("%s: '%s': %s", opt, val,
					 len ? "a number is too long" :
					 "an empty element (a stray or trailing comma)");
		memcpy(num, p, len);
		num[len] = '\0';
		if (cli_dec(num, max, &v) != 0)
			return cli_usage("%s: '%s' is not a decimal number in 0..%llu", opt, num, max);
		if (add(ctx, v))
			return 2;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

/* ---- JSON writer (cli.h) ---- */

static void
json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* The separator and "key": of the next member at the current level. */
static void
json_member(struct cli_json *j, const char *key)
{
	if (j->depth == 0) {
		j->bad = 1;
		return;
	}
	if (!j->first[j->depth - 1])
		fputc(',', j->f);
	j->first[j->depth - 1] = 0;
	if (key) {
		json_string(j->f, key);
		fputc(':', j->f);
	}
}

static void
json_open(struct cli_json *j, const char *key, char open, char close)
{
	if (j->depth == CLI_JSON_DEPTH) {
		j->bad = 1;
		return;
	}
	if (j->depth)
		json_member(j, key);
	fputc(open, j->f);
	j->first[j->depth] = 1;
	j->close[j->depth] = close;
	j->depth++;
}

void
cli_json_begin(struct cli_json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	json_open(j, NULL, '{', '}');
}

void
cli_json_obj(struct cli_json *j, const char *key)
{
	json_open(j, key, '{', '}');
}

void
cli_json_arr(struct cli_json *j, const char *key)
{
	json_open(j, key, '[', ']');
}

void
cli_json_end(struct cli_json *j)
{
	if (j->depth == 0) {
		j->bad = 1;
		return;
	}
	j->depth--;
	fputc(j->close[j->depth], j->f);
}

void
cli_json_u64(struct cli_json *j, const char *key, unsigned long long v)
{
	json_member(j, key);
	fprintf(j->f, "%llu", v);
}

void
cli_json_i64(struct cli_json *j, const char *key, long long v)
{
	json_member(j, key);
	fprintf(j->f, "%lld", v);
}

void
cli_json_str(struct cli_json *j, const char *key, const char *s)
{
	json_member(j, key);
	if (s)
		json_string(j->f, s);
	else
		fputs("null", j->f);
}

void
cli_json_dbl(struct cli_json *j, const char *key, double v, int prec)
{
	json_member(j, key);
	/* JSON has no NaN or infinity */
	if (v != v || v > 1e300 || v < -1e300)
		fputs("null", j->f);
	else
		fprintf(j->f, "%.*f", prec, v);
}

void
cli_json_bool(struct cli_json *j, const char *key, int v)
{
	json_member(j, key);
	fputs(v ? "true" : "false", j->f);
}

int
cli_json_finish(struct cli_json *j, const char *what)
{
	while (j->depth)
		cli_json_end(j);
	fputc('\n', j->f);
	if (fflush(j->f) != 0 || ferror(j->f))
		return cli_error("%s: write error", what);
	if (j->bad)
		return cli_error("internal: JSON nesting deeper than %d", CLI_JSON_DEPTH);
	return 0;
}

int
cli_hexdigit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static const struct { unsigned bit; const char *name; } port_off_names[] = {
	{ SOFL_PORT_OFF_F_VNET, "vnet-hdr" }, { SOFL_PORT_OFF_F_CSUM, "csum" },
	{ SOFL_PORT_OFF_F_TSO4, "tso4" }, { SOFL_PORT_OFF_F_TSO6, "tso6" },
	{ SOFL_PORT_OFF_F_TSO_ECN, "tso-ecn" }, { SOFL_PORT_OFF_F_USO, "uso" },
	{ SOFL_PORT_OFF_F_UDP_TNL, "udp-tnl-gso" },
	{ SOFL_PORT_OFF_F_UDP_TNL_CSUM, "udp-tnl-gso-csum" },
	{ SOFL_PORT_OFF_F_UDP_GSO, "udp-segment" }, { SOFL_PORT_OFF_F_UDP_GRO, "udp-gro" },
	{ SOFL_PORT_OFF_F_RUNT_KERNEL, "runt-drop-kernel" },
	{ SOFL_PORT_OFF_F_RUNT_EBPF, "runt-drop-ebpf" },
	{ SOFL_PORT_OFF_F_GRO, "gro" }, { SOFL_PORT_OFF_F_GSO, "gso" },
	{ SOFL_PORT_OFF_F_TX_RING, "tx-ring" },
};

void
cli_port_offloads(FILE *f, unsigned off)
{
	size_t i;
	int first = 1;

	for (i = 0; i < sizeof(port_off_names) / sizeof(port_off_names[0]); i++) {
		if (!(off & port_off_names[i].bit))
			continue;
		fprintf(f, "%s%s", first ? "" : " ", port_off_names[i].name);
		first = 0;
	}
	if (first)
		fputs("none", f);
}

void
cli_port_offloads_json(struct cli_json *j, const char *key, unsigned off)
{
	size_t i;

	cli_json_arr(j, key);
	for (i = 0; i < sizeof(port_off_names) / sizeof(port_off_names[0]); i++)
		if (off & port_off_names[i].bit)
			cli_json_str(j, NULL, port_off_names[i].name);
	cli_json_end(j);
}

void
cli_port_counters_json(struct cli_json *j, const struct sofl_port_stats *s)
{
	int r, tx;

	cli_json_u64(j, "rx_calls", s->rx_calls);
	cli_json_u64(j, "rx_pkts", s->rx_pkts);
	cli_json_u64(j, "rx_bytes", s->rx_bytes);
	cli_json_u64(j, "rx_super", s->rx_super);
	cli_json_u64(j, "rx_segs", s->rx_segs);
	cli_json_u64(j, "tx_calls", s->tx_calls);
	cli_json_u64(j, "tx_pkts", s->tx_pkts);
	cli_json_u64(j, "tx_bytes", s->tx_bytes);
	cli_json_u64(j, "tx_super", s->tx_super);
	cli_json_u64(j, "tx_segs", s->tx_segs);
	cli_json_u64(j, "csum_sw", s->csum_sw);
	cli_json_u64(j, "csum_sw_verify", s->csum_sw_verify);
	cli_json_u64(j, "fallbacks", s->fallbacks);
	for (tx = 0; tx < 2; tx++) {
		const uint64_t *d = tx ? s->tx_drop : s->rx_drop;

		cli_json_obj(j, tx ? "tx_drop" : "rx_drop");
		for (r = 0; r < SOFL_PORT_DROP__MAX; r++)
			if (d[r])
				cli_json_u64(j, sofl_port_drop_name(r), d[r]);
		cli_json_end(j);
	}
}

/* ---- signals, library errors, the ports' text counters (cli.h) ---- */

volatile sig_atomic_t cli_stop;

static void
on_stop(int sig)
{
	(void)sig;
	cli_stop = 1;
}

void
cli_catch_stop(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int
cli_lib_error(int err, const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	fputs("softoffload: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s", sofl_strerror(err));
	if (err == SOFL_E_SYS)
		fprintf(stderr, ": %s", strerror(e));
	fputc('\n', stderr);
	return 2;
}

unsigned long long
cli_read_u64(const char *path)
{
	char b[32];
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	do
		r = read(fd, b, sizeof(b) - 1);
	while (r < 0 && errno == EINTR);
	close(fd);
	if (r <= 0)
		return 0;
	b[r] = 0;
	return strtoull(b, NULL, 10);
}

void
cli_line(FILE *f, unsigned long long n, const char *what)
{
	fprintf(f, "\t%llu %s\n", n, what);
}

void
cli_port_drops(FILE *f, const struct sofl_port_stats *s, const char *rx, const char *tx)
{
	int r;

	for (r = 0; r < SOFL_PORT_DROP__MAX; r++) {
		if (s->rx_drop[r])
			fprintf(f, "\t%llu %s: %s\n", (unsigned long long)s->rx_drop[r], rx,
				sofl_port_drop_name(r));
		if (s->tx_drop[r])
			fprintf(f, "\t%llu %s: %s\n", (unsigned long long)s->tx_drop[r], tx,
				sofl_port_drop_name(r));
	}
}

void
cli_gro_lines(FILE *f, const struct sofl_gro_stats *g, const char *prefix)
{
	fprintf(f, "\t%llu %spackets in\n", (unsigned long long)g->pkts_in, prefix);
	fprintf(f, "\t%llu %spackets out\n", (unsigned long long)g->pkts_out, prefix);
	fprintf(f, "\t%llu %ssuper-packets formed\n", (unsigned long long)g->super_pkts, prefix);
	fprintf(f, "\t%llu %ssegments merged into them\n", (unsigned long long)g->segs_merged,
		prefix);
	if (g->tun_in)
		fprintf(f, "\t%llu %stunnel super-packets (VXLAN/Geneve/IP-in-IP) of %llu segments\n",
			(unsigned long long)g->tun_super_pkts, prefix,
			(unsigned long long)g->tun_segs_merged);
}

void
cli_gro_json(struct cli_json *j, const struct sofl_gro_stats *g, int bypass)
{
	int i;

	cli_json_obj(j, "gro");
	cli_json_u64(j, "pkts_in", g->pkts_in);
	cli_json_u64(j, "pkts_out", g->pkts_out);
	cli_json_u64(j, "super_pkts", g->super_pkts);
	cli_json_u64(j, "segs_merged", g->segs_merged);
	cli_json_u64(j, "csum_sw_l4", g->csum_sw_l4);
	cli_json_u64(j, "tun_in", g->tun_in);
	cli_json_u64(j, "tun_super_pkts", g->tun_super_pkts);
	cli_json_u64(j, "tun_segs_merged", g->tun_segs_merged);
	if (bypass) {
		cli_json_obj(j, "bypass");
		for (i = 0; i < SOFL_GRO_BYPASS__MAX; i++)
			cli_json_u64(j, sofl_gro_bypass_name(i), g->bypass[i]);
		cli_json_end(j);
	}
	cli_json_end(j);
}

uint64_t
cli_mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void
cli_wait_ts(struct sofl_port *const *ports, int n, uint64_t tmo_ns, struct timespec *ts)
{
	uint64_t t = tmo_ns, d, now;
	int i;

	for (i = 0; i < n && t > 0; i++)
		if (sofl_port_next_deadline(ports[i], &d) == 1) {
			now = cli_mono_ns();
			d = d > now ? d - now : 0;
			if (d < t)
				t = d;
		}
	ts->tv_sec = (time_t)(t / 1000000000u);
	ts->tv_nsec = (long)(t % 1000000000u);
}
