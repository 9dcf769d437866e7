/* DPDK's header-inline kernels (checksum, Toeplitz), compiled twice: once with
 * Debian's flags (`pkg-config --cflags libdpdk`, -march=corei7: suffix
 * _generic) and once more with -march=native (suffix _native), because these
 * functions run at whatever ISA the *caller* is compiled for.  This header
 * uses no DPDK type so the harness can include it with our own flags.
 *
 * The *_loop functions repeat a call @iters times on the same input, with a
 * compiler barrier so the call cannot be hoisted, and return an accumulated
 * value the caller must consume (bench_sink). */
#ifndef SOFL_BENCH_DPDK_KERN_H
#define SOFL_BENCH_DPDK_KERN_H

#include <stddef.h>
#include <stdint.h>

#define DK_DECLARE(sfx)								\
uint16_t dk_raw_cksum_##sfx(const void *buf, size_t len);			\
uint64_t dk_raw_cksum_loop_##sfx(const void *buf, size_t len, size_t iters);	\
uint64_t dk_raw_cksum_chunks_##sfx(const void *buf, size_t len, size_t chunk);	\
/* frame: Ethernet + IPv4 (IHL 5) + TCP/UDP */					\
uint16_t dk_l4_cksum_##sfx(const void *frame);					\
int dk_l4_cksum_verify_##sfx(const void *frame);				\
uint64_t dk_l4_cksum_loop_##sfx(const void *frame, size_t iters);		\
uint64_t dk_l4_verify_loop_##sfx(const void *frame, size_t iters);		\
uint64_t dk_ip_cksum_loop_##sfx(const void *frame, size_t iters);		\
/* Toeplitz over n tuples of tlen bytes (12 or 36) stored back to back */	\
uint32_t dk_softrss_##sfx(const uint8_t *tuple, int tlen, const uint8_t *key);	\
uint32_t dk_softrss_be_##sfx(const uint8_t *tuple, int tlen, const uint8_t *key);\
uint64_t dk_softrss_loop_##sfx(const uint8_t *tuples, int tlen, size_t n,	\
			       const uint8_t *key);				\
uint64_t dk_softrss_be_loop_##sfx(const uint8_t *tuples, int tlen, size_t n,	\
				  const uint8_t *key);

DK_DECLARE(generic)
DK_DECLARE(native)

/* GFNI (native build only; 0 / no-ops when the compiler lacked GFNI+AVX-512F).
 * dk_thash_gfni_prepare() expands the 40-byte key (rte_thash_complete_matrix). */
int dk_thash_gfni_built(void);
void dk_thash_gfni_prepare(const uint8_t *key40);
uint32_t dk_thash_gfni(const uint8_t *tuple, int tlen);
uint64_t dk_thash_gfni_loop(const uint8_t *tuples, int tlen, size_t n);
/* rte_thash_gfni_bulk in bursts of 32 */
uint64_t dk_thash_gfni_bulk_loop(const uint8_t *tuples, int tlen, size_t n);

#endif
