/* Shared helpers of the CLI tests (tests/test_*cli*.c): find the softoffload
 * binary, a private temp directory, capture writers (pcap through libpcap,
 * pcapng by hand since libpcap cannot write it) and running one subcommand
 * with its stdout, stderr and exit code captured.
 *
 * HowTo:
 *	rc = t_cli_init("cli-foo");	// 0, or T_SKIP (reason printed) / 1
 *	t_capw_open(&w, "in.pcap", DLT_EN10MB, T_CAP_PCAP);
 *	t_capw_put(&w, frame, caplen, len, ts_us); ...
 *	t_capw_close(&w);
 *	assert_int_equal(t_cli_run("foo", "in.pcap -o %s", "out.pcap"), 0);
 *	... check t_cli_out / t_cli_err ...
 *	t_cli_fini();
 *
 * Failures are cmocka assertions, so everything but t_cli_init/t_cli_fini
 * must run inside a test.  Not thread-safe (one temp dir, one output buffer). */
#ifndef SOFL_TEST_CLI_UTIL_H
#define SOFL_TEST_CLI_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <limits.h>
#include <pcap/pcap.h>

extern char t_cli_path[PATH_MAX];	/* the CLI binary */
extern char t_cli_dir[64];		/* the temp dir; CLI runs start in it */
extern char t_cli_out[1 << 16];		/* stdout of the last t_cli_run() */
extern char t_cli_err[4096];		/* stderr of the last t_cli_run() */

/* t_cli_init() : finds the CLI ($SOFTOFFLOAD, else softoffload in the parent
 * of the test binary's directory, else $BUILD/softoffload) and creates
 * /tmp/sofl-<tag>-XXXXXX.
 * @return 0; T_SKIP with the reason as the last line on stderr when there is
 * no CLI; 1 when the directory cannot be made. */
int t_cli_init(const char *tag);
/* t_cli_fini() : removes the temp dir and everything in it. @return 0 or -1 */
int t_cli_fini(void);

/* t_cli_file() : "<temp dir>/<name>" into buf (cap bytes). @return buf */
char *t_cli_file(char *buf, size_t cap, const char *name);
/* t_cli_write_file() : writes @text to the file @name of the temp dir. */
void t_cli_write_file(const char *name, const char *text);
/* t_cli_slurp() : reads the file @name of the temp dir into buf, at most
 * cap - 1 bytes, NUL-terminated. */
void t_cli_slurp(const char *name, char *buf, size_t cap);

/* t_cli_run() : runs "softoffload SUB ARGS" (ARGS printf-style, at most 511
 * bytes, split by the shell) in the temp dir; its stdout goes to t_cli_out,
 * its stderr to t_cli_err (each cut to the buffer's size).  Asserts that it
 * exited normally (no signal).  @return its exit status */
int t_cli_run(const char *sub, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* t_cli_num_after() : the integer that follows the first @label in t_cli_out;
 * fails the test (printing the output) when @label is absent. */
long long t_cli_num_after(const char *label);

/* t_cli_counter() : the counter "\t<n> @what" (the whole line) in section
 * "@section:" of t_cli_out (the netstat -s style of csum, gro, gso, rss);
 * fails the test (printing the output) when there is no such line. */
long long t_cli_counter(const char *section, const char *what);

/* t_cli_usage_error() : runs "softoffload SUB ARGS" (as t_cli_run) and
 * asserts the usage-error form: exit 2, nothing on stdout, stderr exactly
 * "softoffload SUB: <problem>" and "Try 'softoffload SUB --help'", @want
 * (unless NULL) within the first line. */
void t_cli_usage_error(const char *sub, const char *want, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* t_cli_file_error() : the same for a file, I/O or data error: exit 2 and
 * stderr exactly one line "softoffload: ..." containing @want (unless NULL);
 * stdout is not checked (counts may precede the error). */
void t_cli_file_error(const char *sub, const char *want, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- writing captures ---- */

enum t_cap_fmt { T_CAP_PCAP, T_CAP_PCAPNG };

struct t_capw {			/* one capture being written */
	pcap_t *pcap;		/* T_CAP_PCAP */
	pcap_dumper_t *dump;	/* T_CAP_PCAP */
	FILE *f;		/* T_CAP_PCAPNG */
};

/* t_capw_open() : creates the capture @name in the temp dir (or @name
 * itself when it starts with '/').  @link is a DLT_ value for T_CAP_PCAP
 * (libpcap maps it to the file's link type) and the LINKTYPE_ value itself
 * for T_CAP_PCAPNG (Ethernet 1, raw IP 101).  Snap length 262144. */
void t_capw_open(struct t_capw *w, const char *name, int link, enum t_cap_fmt fmt);
/* t_capw_put() : appends one record: caplen bytes of @d, original length @len,
 * timestamp @ts_us microseconds after the epoch. */
void t_capw_put(struct t_capw *w, const void *d, uint32_t caplen, uint32_t len, uint64_t ts_us);
/* t_capw_close() : flushes and closes the capture (asserts it was written). */
void t_capw_close(struct t_capw *w);

/* t_cli_open_pcap() : opens the capture @name of the temp dir for reading
 * (close it with pcap_close()); asserts that it opens. */
pcap_t *t_cli_open_pcap(const char *name);

#endif
