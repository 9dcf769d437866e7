/* Internal: test hooks of the GRO engine (hidden symbols, static library
 * only), for the differential test of its fast paths (tests/test_gro_fast.c). */
#ifndef SOFL_GRO_IMPL_H
#define SOFL_GRO_IMPL_H

#include "softoffload/gro.h"

/* sofl_gro_set_fast() : @on 0 sends every input the general way (parse,
 * classify, lookup, rules); 1 (the default under the Linux policy) lets the
 * fast paths (trains, fast hold, fast bypass, the LRU table's hash read from
 * the frame) take the inputs they recognise.  Outputs and counters must not
 * differ. */
void sofl_gro_set_fast(struct sofl_gro *g, int on);

/* sofl_gro_set_avx2() : @on 0 keeps the fast path's train compare on SSE2
 * (or portable C) even where the CPU has AVX2 (the default uses it), so
 * that the test covers both. */
void sofl_gro_set_avx2(struct sofl_gro *g, int on);

#endif
