/* Option and operand helpers shared by the CLI subcommands (cli.h). */
#include <string.h>
#include "cli.h"

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
