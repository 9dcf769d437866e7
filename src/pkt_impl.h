/* Internal: the parser's generic path, exported (hidden) for the
 * differential test of its fast path (tests/test_pkt_fast.c). */
#ifndef SOFL_PKT_IMPL_H
#define SOFL_PKT_IMPL_H

#include <stddef.h>
#include "softoffload/pkt.h"

/* sofl_pkt_parse_generic() : sofl_pkt_parse() without its fast path (the
 * common layouts in straight-line code): same contract, same results. */
int sofl_pkt_parse_generic(struct sofl_pkt *p, const void *frame, size_t len, enum sofl_link link);

#endif
