/* Copying a caller's configuration struct that starts with a size field.
 *
 * Every config struct of the library begins with `uint32_t size`, set to
 * sizeof() by its config_init call, so the struct can grow at its end
 * without breaking programs built against an older header (the scheme of
 * Linux's clone3, openat2 and perf_event_attr):
 *   - a size below @min (the first version's size) is refused;
 *   - a smaller, older struct gets the defaults already in *dst for the
 *     fields it does not have;
 *   - a larger, newer struct is accepted only when every byte this library
 *     does not know is zero (a newer program asking for a feature this
 *     library lacks gets an error, not silence).
 */
#ifndef SOFL_CFG_H
#define SOFL_CFG_H

#include <stdint.h>
#include <string.h>
#include "softoffload/error.h"

/* @src is the caller's struct, src_size (its size field) bytes long; this
 * library knows @known bytes of it.  @return 0 or SOFL_E_CFG_SIZE. */
static inline int
sofl_cfg_size_ok(const void *src, size_t src_size, size_t known, size_t min)
{
	const uint8_t *s = src;
	size_t i;

	if (src_size < min)
		return SOFL_E_CFG_SIZE;
	for (i = known; i < src_size; i++)
		if (s[i])
			return SOFL_E_CFG_SIZE;
	return 0;
}

/* @dst holds the defaults (dst_size bytes); checks @src as above and copies
 * what both know.  @return 0 or SOFL_E_CFG_SIZE (*dst untouched). */
static inline int
sofl_cfg_copy(void *dst, size_t dst_size, const void *src, size_t src_size, size_t min)
{
	int err = sofl_cfg_size_ok(src, src_size, dst_size, min);

	if (err)
		return err;
	memcpy(dst, src, src_size < dst_size ? src_size : dst_size);
	*(uint32_t *)dst = (uint32_t)dst_size;
	return 0;
}

#endif
