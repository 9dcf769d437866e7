/* Zeroed tables backed on first use (zalloc.h) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "zalloc.h"

#define HUGE_SZ (2u << 20)

void *
sofl_zalloc(size_t bytes, size_t *mapped)
{
	uint8_t *p, *a;
	size_t len, head;

	*mapped = 0;
	if (bytes < HUGE_SZ) {
		bytes = (bytes + 63) & ~(size_t)63;
		p = aligned_alloc(64, bytes);
		if (p)
			memset(p, 0, bytes);
		return p;
	}
	bytes = (bytes + HUGE_SZ - 1) & ~(size_t)(HUGE_SZ - 1);
	len = bytes + HUGE_SZ;		/* room to align */
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	a = (uint8_t *)(((uintptr_t)p + HUGE_SZ - 1) & ~(uintptr_t)(HUGE_SZ - 1));
	head = (size_t)(a - p);
	if (head)
		(void)munmap(p, head);
	if (len - head > bytes)
		(void)munmap(a + bytes, len - head - bytes);
#ifdef MADV_HUGEPAGE
	(void)madvise(a, bytes, MADV_HUGEPAGE);	/* a hint: failure is harmless */
#endif
	*mapped = bytes;
	return a;
}

void
sofl_zfree(void *p, size_t mapped)
{
	if (mapped)
		(void)munmap(p, mapped);
	else
		free(p);
}
