/* Shared declarations for the softoffload CLI (tools/). */
#ifndef SOFL_CLI_H
#define SOFL_CLI_H

#include <stdio.h>
#include <stdint.h>

#define CMD(name, summary) int cmd_##name(int argc, char **argv);
#include "cmds.h"
#undef CMD

/* Print "softoffload: <msg>" to stderr (printf-style) and return 2. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Parse an unsigned integer option value; on failure prints an error and returns -1. */
long long cli_uint(const char *opt, const char *val, unsigned long long max);

#endif
