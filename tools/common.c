/* Option and operand helpers shared by the CLI subcommands (cli.h). */
#include <string.h>
#include "cli.h"

long long
cli_count(const char *opt, const char *val, unsigned long long max)
{
	long long v = cli_uint(opt, val, max);

	if (v == 0) {
		cli_error("%s: must be at least 1", opt);
		return -1;
	}
	return v;
}

int
cli_operand(const char *cmd, const char *arg, const char **in)
{
	if (arg[0] == '-' && arg[1] != '\0')
		return cli_error("%s: unknown option '%s' (see --help)", cmd, arg);
	if (*in)
		return cli_error("%s: more than one input file ('%s')", cmd, arg);
	*in = arg;
	return 0;
}

int
cli_csum_mode(const char *opt, const char *val, int *partial)
{
	if (!strcmp(val, "full"))
		*partial = 0;
	else if (!strcmp(val, "partial"))
		*partial = 1;
	else
		return cli_error("%s: expected full or partial, not '%s'", opt, val);
	return 0;
}
