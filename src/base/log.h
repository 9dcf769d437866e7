/* The library's messages (error.h: sofl_set_log()): nothing is printed;
 * a message goes to the callback the program set, or nowhere. */
#ifndef SOFL_LOG_H
#define SOFL_LOG_H

#include "softoffload/error.h"

/* Formats a message (printf style, at most 255 bytes; longer ones are
 * cut) and hands it to the callback, if one is set; does nothing, not
 * even the formatting, otherwise.  Any thread. */
void sofl_log(enum sofl_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
