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

/* sofl_gro_set_isa() : the most the fast paths may use of what the CPU has,
 * so that the test covers every variant: @level 0 SSE2 (or portable C),
 * 1 AVX2 (a train's compare in 32-byte words), 2 (the default) also
 * AVX-512 (a train's checksums summed inline). */
void sofl_gro_set_isa(struct sofl_gro *g, int level);

/* sofl_gro_chain_max() : the longest bucket chain (held flows sharing a
 * bucket): the most entries a lookup walks.  O(buckets), for tests. */
uint32_t sofl_gro_chain_max(const struct sofl_gro *g);

#endif
