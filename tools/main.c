/* softoffload — command-line front end: dispatch to tools/cmd_<name>.c. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "softoffload/error.h"
#include "softoffload/version.h"
#include "cli.h"

struct cmd {
	const char *name;
	int (*fn)(int, char **);
	const char *summary;
};

static const struct cmd cmds[] = {
#define CMD(name, summary) { #name, cmd_##name, summary },
#include "cmds.h"
#undef CMD
	{ NULL, NULL, NULL }
};

const char *cli_cmd;

int
cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("softoffload: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

/* The library is quiet unless asked: the CLI asks, and prints its
 * messages (a port's offload fallback) as "softoffload: <msg>" on stderr. */
static void
lib_log(void *arg, enum sofl_log_level level, const char *msg)
{
	(void)arg;
	(void)level;
	fprintf(stderr, "softoffload: %s\n", msg);
}

static int
vusage(const char *cmd, const char *fmt, va_list ap)
{
	const char *sp = cmd ? " " : "";

	if (!cmd)
		cmd = "";
	fprintf(stderr, "softoffload%s%s: ", sp, cmd);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\nTry 'softoffload%s%s --help'\n", sp, cmd);
	return 2;
}

int
cli_usage_of(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vusage(cmd, fmt, ap);
	va_end(ap);
	return 2;
}

int
cli_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vusage(cli_cmd, fmt, ap);
	va_end(ap);
	return 2;
}

int
cli_dec(const char *s, unsigned long long max, unsigned long long *v)
{
	unsigned long long x = 0;

	if (!s || !*s)
		return -1;
	for (; *s; s++) {
		unsigned d = (unsigned)(unsigned char)*s - '0';

		if (d > 9 || d > max || x > (max - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

long long
cli_uint(const char *opt, const char *val, unsigned long long max)
{
	unsigned long long v;

	if (!val || !*val) {
		cli_usage_of(cli_cmd, "%s: expected a decimal number (0..%llu)", opt, max);
		return -1;
	}
	if (cli_dec(val, max, &v) != 0) {
		cli_usage_of(cli_cmd, "%s: '%s' is not a decimal number in 0..%llu", opt, val, max);
		return -1;
	}
	return (long long)v;
}

/* "softoffload X.Y.Z (libsoftoffload A.B.C)": the CLI's version as compiled
 * and the library's as linked (the same unless the library was replaced). */
static int
version(void)
{
	if (printf("softoffload %s (libsoftoffload %s)\n", SOFL_VERSION_STRING,
	    sofl_version_string()) < 0 || fflush(stdout) != 0)
		return cli_error("stdout: write error");
	return 0;
}

static int
usage(FILE *f)
{
	const struct cmd *c;

	fprintf(f, "usage: softoffload <command> [options]   (softoffload <command> --help)\n       softoffload --version\n\ncommands:\n");
	for (c = cmds; c->name; c++)
		fprintf(f, "  %-8s %s\n", c->name, c->summary);
	return f == stdout ? 0 : 2;
}

int
main(int argc, char **argv)
{
	const struct cmd *c;

	sofl_set_log(lib_log, NULL);
	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help"))
		return usage(stdout);
	if (!strcmp(argv[1], "--version"))
		return version();
	for (c = cmds; c->name; c++)
		if (!strcmp(argv[1], c->name)) {
			cli_cmd = c->name;
			return c->fn(argc - 1, argv + 1);
		}
	return cli_usage_of(NULL, "unknown command '%s'", argv[1]);
}
