/* softoffload — command-line front end: dispatch to tools/cmd_<name>.c. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
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

long long
cli_uint(const char *opt, const char *val, unsigned long long max)
{
	char *end;
	unsigned long long v;

	if (!val || !*val || *val == '-') {
		cli_error("%s: expected a non-negative integer", opt);
		return -1;
	}
	errno = 0;
	v = strtoull(val, &end, 0);
	if (errno || *end || v > max) {
		cli_error("%s: bad value '%s' (0..%llu)", opt, val, max);
		return -1;
	}
	return (long long)v;
}

static int
usage(FILE *f)
{
	const struct cmd *c;

	fprintf(f, "usage: softoffload <command> [options]   (softoffload <command> --help)\n\ncommands:\n");
	for (c = cmds; c->name; c++)
		fprintf(f, "  %-8s %s\n", c->name, c->summary);
	return f == stdout ? 0 : 2;
}

int
main(int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help"))
		return usage(stdout);
	for (c = cmds; c->name; c++)
		if (!strcmp(argv[1], c->name))
			return c->fn(argc - 1, argv + 1);
	cli_error("unknown command '%s'", argv[1]);
	return usage(stderr);
}
