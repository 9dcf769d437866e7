/* Shared declarations for the softoffload CLI (tools/).
 *
 * Error forms (docs/cli.md, "Errors"):
 *   usage error   "softoffload CMD: <problem>" then "Try 'softoffload CMD --help'",
 *                 exit 2 (cli_usage(), cli_usage_of() and every option parser below);
 *   other errors  "softoffload: <message>" (cli_error()): files, I/O, memory;
 *                 a file's path is named once, at the start of the message.
 * Numbers given on the command line or read from option files are decimal
 * (leading zeros allowed and still decimal); hexadecimal only where the
 * value is naturally hex (an RSS key).  Not thread-safe (cli_cmd). */
#ifndef SOFL_CLI_H
#define SOFL_CLI_H

#include <signal.h>
#include <stdio.h>
#include <stdint.h>

#define CMD(name, summary) int cmd_##name(int argc, char **argv);
#include "cmds.h"
#undef CMD

/* The running subcommand ("gro", ...), set by main() before it calls
 * cmd_<name>(); NULL before.  Usage errors name it. */
extern const char *cli_cmd;

/* Print "softoffload: <msg>" to stderr (printf-style) and return 2. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A usage error of the running subcommand (cli_cmd): prints
 * "softoffload CMD: <msg>" and "Try 'softoffload CMD --help'" to stderr.
 * @return 2 */
int cli_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same for subcommand @cmd (NULL: "softoffload: <msg>" and
 * "Try 'softoffload --help'"). @return 2 */
int cli_usage_of(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Strict decimal: @s is one or more digits 0-9 and nothing else (no sign,
 * blank or 0x; leading zeros are decimal), at most @max.  Prints nothing.
 * @return 0 with *v set, or -1 */
int cli_dec(const char *s, unsigned long long max, unsigned long long *v);
/* Parse a decimal option value 0..@max (cli_dec); on failure prints a usage
 * error and returns -1. */
long long cli_uint(const char *opt, const char *val, unsigned long long max);
/* The same for a count: 0 is refused too ("<opt>: must be at least 1"). */
long long cli_count(const char *opt, const char *val, unsigned long long max);
/* A comma-separated list of decimal numbers 0..@max ("1,2,3"): calls
 * @add(@ctx, v) for each, in order.  An empty list or element (",1", "1,,2",
 * a trailing comma) is a usage error.  @add returns 0, or 2 having printed
 * its own error.  @return 0, or 2 (printed) */
int cli_list(const char *opt, const char *val, unsigned long long max,
	     int (*add)(void *ctx, unsigned long long v), void *ctx);
struct option;
/* getopt_long() with the usage errors above: @shortopts starts with ':'.
 * Call it with optind = 1 before the first option.
 * @return the next option (its val), -1 after the last (the operands are
 * argv[optind..]), or '?' having printed "unknown option '<arg>'" or
 * "<option> needs a value" (cli_usage: the caller returns 2). */
int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts);
/* A decimal option stored as it is: cli_getopt()'s @opt for option @name,
 * @min 0 (cli_uint()) or 1 (cli_count()) .. @max, into *@dst. */
struct cli_num {
	int opt;
	const char *name;
	int min;
	unsigned long long max;
	uint32_t *dst;
};
#define CLI_NELEM(a) (sizeof(a) / sizeof((a)[0]))
/* If @opt is one of the @n @nums, parses @val into its dst.
 * @return 0, 2 on a usage error (printed), or -1 when @opt is none of them */
int cli_num_opt(const struct cli_num *nums, size_t n, int opt, const char *val);
/* An argument that is no known option: the one input file.  Sets *in, or
 * prints the usage error "unknown option" (it starts with '-' and is not "-")
 * or "more than one input file" for subcommand @cmd and returns 2.
 * @return 0 or 2 */
int cli_operand(const char *cmd, const char *arg, const char **in);
/* After the options (cli_getopt() returned -1): the operands
 * argv[optind..] must be exactly one input file, stored in *in (NULL
 * before); else the usage error "more than one input file" or
 * "no input file".  @return 0 or 2 */
int cli_input(int argc, char **argv, const char **in);
/* "--csum full|partial": sets *partial to 0 or 1.  @return 0, or 2 (printed) */
int cli_csum_mode(const char *opt, const char *val, int *partial);


/* ---- JSON output (--json): one compact document, the conventions of
 * `ip -j` and `ethtool --json`: an object per section, counters as numbers,
 * keys written as given (the text output's names, e.g. the library's reason
 * names "psh-fin"), strings escaped as RFC 8259 requires.  Usage:
 *	struct cli_json j;
 *	cli_json_begin(&j, stdout);	// {
 *	cli_json_u64(&j, "records", n);
 *	cli_json_obj(&j, "tcp"); ... cli_json_end(&j);
 *	return cli_json_finish(&j, "stdout");	// }\n, flush: 0, or 2 on a write error
 * Nesting is at most CLI_JSON_DEPTH levels (deeper calls are ignored and
 * make cli_json_finish() fail).  Not thread-safe per writer. */
#define CLI_JSON_DEPTH 8
struct cli_json {
	FILE *f;
	int depth, bad;
	unsigned char first[CLI_JSON_DEPTH];	/* no member yet at this level */
	char close[CLI_JSON_DEPTH];		/* '}' or ']' */
};
/* Starts the document (the outer object) on @f. */
void cli_json_begin(struct cli_json *j, FILE *f);
/* A member "@key": { (or, @key NULL, an element of an array) */
void cli_json_obj(struct cli_json *j, const char *key);
/* A member "@key": [ (or an element of an array) */
void cli_json_arr(struct cli_json *j, const char *key);
/* Closes the innermost object or array. */
void cli_json_end(struct cli_json *j);
/* Members (@key NULL: array elements): a number, a string (NULL: null),
 * a fixed-point number with @prec decimals, a boolean. */
void cli_json_u64(struct cli_json *j, const char *key, unsigned long long v);
void cli_json_i64(struct cli_json *j, const char *key, long long v);
void cli_json_str(struct cli_json *j, const char *key, const char *s);
void cli_json_dbl(struct cli_json *j, const char *key, double v, int prec);
void cli_json_bool(struct cli_json *j, const char *key, int v);
/* Closes everything still open, ends the line and flushes.  @return 0, or 2
 * having printed "softoffload: <what>: write error" when the output failed. */
int cli_json_finish(struct cli_json *j, const char *what);

/* One hex digit's value, or -1 (keys on the command line). */
int cli_hexdigit(int c);

/* ---- the ports' counters, shared by tunnel and relay ---- */
struct sofl_port_stats;
/* The offloads (SOFL_PORT_OFF_F_* bits) as names: "vnet-hdr csum ..." (or
 * "none"). */
void cli_port_offloads(FILE *f, unsigned off);
/* The same as a JSON array member "@key": ["vnet-hdr","csum",...] ([] for none). */
void cli_port_offloads_json(struct cli_json *j, const char *key, unsigned off);
/* A port's counters as members of the current JSON object: "rx_calls":N,
 * ...,"fallbacks":N,"rx_drop":{reason:N...},"tx_drop":{...} (the field
 * names of struct sofl_port_stats and sofl_port_drop_name(); the drop maps
 * list the non-zero reasons only). */
void cli_port_counters_json(struct cli_json *j, const struct sofl_port_stats *s);
/* One counter line of the text output: "\t<n> <what>\n". */
void cli_line(FILE *f, unsigned long long n, const char *what);
/* The unsigned number in sysfs/procfs file @path, or 0 when it cannot be
 * read.  No allocation (open/read/close into the stack, no FILE): a
 * periodic report calls it, and under ASan every fopen()'s FILE and buffer
 * went to the quarantine (~10 kB/s of growth at --stats-interval 1). */
unsigned long long cli_read_u64(const char *path);

struct sofl_port;
struct timespec;
/* CLOCK_MONOTONIC in nanoseconds (the clock of sofl_port_flush()) */
uint64_t cli_mono_ns(void);
/* ppoll()'s timeout in *ts: @tmo_ns, shortened to the earliest deadline of
 * the flows the @n ports hold (sofl_port_next_deadline(): the flush
 * timeout, as NAPI's timer) */
void cli_wait_ts(struct sofl_port *const *ports, int n, uint64_t tmo_ns, struct timespec *ts);
/* A port's non-zero drop counters as text lines, reason by reason:
 * "\t<n> <rx>: <reason>" (receive) then "\t<n> <tx>: <reason>" (send). */
void cli_port_drops(FILE *f, const struct sofl_port_stats *s, const char *rx, const char *tx);

/* ---- a port's GRO counters, shared by tunnel and relay ---- */
struct sofl_gro_stats;
/* The four text lines "\t<n> <prefix>packets in" ... "segments merged into them". */
void cli_gro_lines(FILE *f, const struct sofl_gro_stats *g, const char *prefix);
/* The JSON member "gro":{"pkts_in":N,"pkts_out":N,"super_pkts":N,
 * "segs_merged":N,"csum_sw_l4":N[,"bypass":{reason:N,...}]} (@bypass: with
 * every bypass reason, zeros included). */
void cli_gro_json(struct cli_json *j, const struct sofl_gro_stats *g, int bypass);

/* ---- running until told to stop ---- */
/* Set to 1 by SIGINT and SIGTERM once cli_catch_stop() installed the handler. */
extern volatile sig_atomic_t cli_stop;
void cli_catch_stop(void);

/* A library call's failure: "softoffload: <fmt>: <sofl_strerror(err)>" and,
 * for SOFL_E_SYS, ": <strerror(errno)>" (errno as on entry).  @return 2 */
int cli_lib_error(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
