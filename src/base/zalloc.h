/* Internal: zeroed tables that cost memory only where they are used. */
#ifndef SOFL_ZALLOC_H
#define SOFL_ZALLOC_H

#include <stddef.h>

/* sofl_zalloc() : @bytes of zeroed memory, 64-byte aligned.  Tables of
 * 2 MB and more are mapped from the kernel, 2 MB-aligned and marked for
 * transparent huge pages (random lookups then do not also miss the TLB),
 * and never written here: the kernel backs them as they are first used.
 * *@mapped: what sofl_zfree() needs.  @return NULL when out of memory. */
void *sofl_zalloc(size_t bytes, size_t *mapped);

/* sofl_zfree() : frees what sofl_zalloc() returned (NULL is fine). */
void sofl_zfree(void *p, size_t mapped);

#endif
