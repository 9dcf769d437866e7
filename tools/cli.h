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
/* The same for a count: 0 is refused too ("<opt>: must be at least 1"). */
long long cli_count(const char *opt, const char *val, unsigned long long max);
/* An argument that is no known option: the one input file.  Sets *in, or
 * prints "<cmd>: unknown option" (it starts with '-' and is not "-") or
 * "<cmd>: more than one input file" and returns 2.  @return 0 or 2 */
int cli_operand(const char *cmd, const char *arg, const char **in);
/* "--csum full|partial": sets *partial to 0 or 1.  @return 0, or 2 (printed) */
int cli_csum_mode(const char *opt, const char *val, int *partial);

#endif
