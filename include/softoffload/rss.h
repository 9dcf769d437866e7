/*
 * softoffload — RSS: Toeplitz hash, indirection table, queue selection.
 *
 * HowTo (set the engine up once; hashing only reads it)
 *   ```c
 *   static _Alignas(64) struct sofl_rss rss;    // 38 KiB: keep it off small stacks
 *
 *   int
 *   rss_setup(void)
 *   {
 *       int err = sofl_rss_init(&rss, NULL, 0, 4, 0);   // Microsoft key, 128 entries, 4 queues
 *
 *       if (err < 0)
 *           return err;
 *       return sofl_rss_reta_set(&rss, 5, 0);   // optional: entry 5 -> queue 0 (ethtool -X)
 *   }
 *
 *   // The receive queue of a frame: queue 0 for what gets no hash (not IP).
 *   unsigned
 *   rss_queue(const void *frame, size_t len)
 *   {
 *       struct sofl_rss_out o;
 *       struct sofl_pkt p;
 *
 *       sofl_pkt_parse(&p, frame, len, SOFL_LINK_ETH);  // on error, what parsed is used
 *       return sofl_rss_pkt(&rss, &p, &o) > 0 ? o.queue : 0;    // o.hash: the Toeplitz hash
 *   }
 *   ```
 *   For a burst of parsed packets: sofl_rss_burst(&rss, pkts, n, outs).
 *
 * The hash is the Toeplitz function of Microsoft's RSS specification: for
 * every input bit (first byte first, most significant bit first) that is 1,
 * XOR the 32 key bits starting at that bit's index into the result.  A key of
 * K bytes therefore covers K - 4 input bytes; the 40-byte default key covers
 * the 36 bytes of the longest input (IPv6 4-tuple).
 *
 * Inputs, "source first" as the packet carries them (Microsoft's RSS
 * specification; Linux drivers feed the same bytes):
 *   IPv4           src(4) dst(4)                          8 bytes
 *   IPv4 TCP/UDP   src(4) dst(4) sport(2) dport(2)       12 bytes
 *   IPv6           src(16) dst(16)                       32 bytes
 *   IPv6 TCP/UDP   src(16) dst(16) sport(2) dport(2)     36 bytes
 * all in network byte order.  Fragments (even the first one: its later
 * fragments have no ports) and IP packets that are neither TCP nor UDP use
 * the 2-tuple.  Non-IP packets get no hash.
 *
 * Symmetric mode (SOFL_RSS_SYMMETRIC) sorts the input before hashing: if
 * src > dst (compared as unsigned big-endian numbers, i.e. memcmp) the two
 * addresses are swapped, and independently, if sport > dport the two ports
 * are swapped.  Both directions of a connection thus feed the same bytes and
 * get the same hash, with any key and without losing input bits.  A packet
 * whose endpoints are already in order hashes exactly as in the normal mode.
 * (Other symmetric schemes give other values: Linux's ethtool
 * "symmetric-xor" hashes src^dst and sport^dport; OpenBSD's stoeplitz
 * repeats a 16-bit key.  Neither is this mode.)
 *
 * Not modelled: NIC "IPv6 EX" hash types (home address / routing header
 * final destination), per-type field selection (e.g. UDP on 2-tuple as
 * FreeBSD does by default), tunnels (the outer header is hashed).
 *
 * Indirection: queue = reta[hash & (reta_size - 1)], i.e. the low bits of the
 * hash index the table, as NICs do.  The table size is a power of two from 1
 * to SOFL_RSS_RETA_MAX; the default is 128 entries, entry i = i % nqueues
 * (ethtool's default spread).
 *
 * Implementations: a table path (per-byte-position tables, 36 x 256 words,
 * built from the key: hash = XOR of one lookup per input byte) and, on CPUs
 * with GFNI + AVX-512 (F/BW/VL/VBMI) and BMI2, a GF2P8AFFINEQB path.  Both give
 * results bit-identical to the bit-serial definition (sofl_rss_toeplitz()).
 * sofl_rss_init() picks the fastest available: "mixed" (GFNI, except the
 * tables for single IPv4 hashes, as measured by bench/bench_rss.c) where
 * GFNI is usable, else "table".  The environment variable
 * SOFL_RSS_IMPL=table|gfni|mixed overrides that choice (an unavailable one
 * is ignored), and sofl_rss_set_impl() forces one per engine.
 *
 * Memory: the engine is caller-owned memory; nothing here allocates, and the
 * hashing calls make no system calls.
 * Thread-safety: hashing calls only read the engine: any number of threads
 * may share one.  sofl_rss_init(), sofl_rss_set_impl() and the sofl_rss_reta_*
 * setters write it and must not run concurrently with any other call on the
 * same engine.
 */
#ifndef SOFTOFFLOAD_RSS_H
#define SOFTOFFLOAD_RSS_H

#include <stddef.h>
#include <stdint.h>
#include "softoffload/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sofl_pkt;

#define SOFL_RSS_KEY_LEN      40	/* the default (Microsoft) key's length */
#define SOFL_RSS_KEY_MAX      52	/* longest key accepted (e.g. Intel E810) */
#define SOFL_RSS_INPUT_MAX    36	/* longest input: IPv6 4-tuple */
#define SOFL_RSS_RETA_DEFAULT 128
#define SOFL_RSS_RETA_MAX     512
#define SOFL_RSS_QUEUES_MAX   65535

/* sofl_rss_init() flags */
#define SOFL_RSS_SYMMETRIC 0x1	/* sort addresses and ports before hashing */

/* What a packet was hashed over (NIC "hash type"); 0 = no hash. */
enum sofl_rss_type {
	SOFL_RSS_NONE     = 0,	/* not IP (or not even an IP header): no hash */
	SOFL_RSS_IPV4     = 1,	/* IPv4 2-tuple */
	SOFL_RSS_IPV4_TCP = 2,
	SOFL_RSS_IPV4_UDP = 3,
	SOFL_RSS_IPV6     = 4,	/* IPv6 2-tuple */
	SOFL_RSS_IPV6_TCP = 5,
	SOFL_RSS_IPV6_UDP = 6,
};

enum sofl_rss_impl {
	SOFL_RSS_IMPL_TABLE = 0,	/* per-byte-position tables, portable */
	SOFL_RSS_IMPL_GFNI  = 1,	/* GF2P8AFFINEQB, x86-64 with GFNI + AVX-512 VBMI, BMI2 */
	SOFL_RSS_IMPL_MIXED = 2,	/* GFNI, but tables for single inputs up to 12 bytes */
};

/* The engine.  Its fields are private: set them only through the calls below.
 * It needs no alignment beyond its fields' own (8 bytes): static, automatic,
 * malloc() or a member of another struct are all fine.  64-byte alignment
 * (C11 _Alignas(64) on the object, or aligned_alloc(64, ...)) keeps the
 * GFNI path's matrices within 5 cache lines instead of 6. */
struct sofl_rss {
	uint32_t tab[SOFL_RSS_INPUT_MAX][256];	/* per byte position */
	uint64_t mat[40];	/* GFNI: 8x8 bit matrix per key byte position */
	uint16_t reta[SOFL_RSS_RETA_MAX];
	uint8_t  key[SOFL_RSS_KEY_MAX];
	uint16_t key_len;
	uint16_t reta_size;	/* power of two */
	uint16_t nqueues;
	uint8_t  flags;		/* SOFL_RSS_SYMMETRIC */
	uint8_t  impl;		/* enum sofl_rss_impl */
};

/* One packet's result. */
struct sofl_rss_out {
	uint32_t hash;		/* Toeplitz hash; 0 when type == SOFL_RSS_NONE */
	uint16_t queue;		/* reta[hash & (size - 1)]; 0 when type == SOFL_RSS_NONE */
	uint8_t  type;		/* enum sofl_rss_type */
	uint8_t  pad_;
};

/* The Microsoft RSS key, 40 bytes: 6d 5a 56 da ... be ac 01 fa. */
SOFL_API extern const uint8_t sofl_rss_default_key[SOFL_RSS_KEY_LEN];

/* sofl_rss_init() :
 * Sets up *r: the key (@key NULL = the Microsoft default key; @key_len must
 * then be 0 or 40), its tables, the implementation, and the default
 * indirection table (128 entries, entry i = i % @nqueues).
 * @key_len : SOFL_RSS_KEY_LEN .. SOFL_RSS_KEY_MAX bytes; the key is copied.
 *            Only its first 40 bytes influence hashes of inputs up to 36
 *            bytes; longer keys are accepted so that NIC keys can be mirrored.
 * @nqueues : 1 .. SOFL_RSS_QUEUES_MAX.
 * @flags   : 0 or SOFL_RSS_SYMMETRIC.
 * @return 0, or SOFL_E_INVAL (NULL r, bad key length, nqueues or flags; *r is
 *         then left unchanged).  Cost: some 25 us (fills 37 KiB of tables,
 *         reads CPUID and SOFL_RSS_IMPL): set up once, not per packet. */
SOFL_API int sofl_rss_init(struct sofl_rss *r, const void *key, size_t key_len,
			   unsigned nqueues, unsigned flags);

/* sofl_rss_impl_available() : 1 when this CPU and build can run @impl. */
SOFL_API int sofl_rss_impl_available(enum sofl_rss_impl impl);

/* sofl_rss_set_impl() :
 * Forces @impl for hashes computed with @r (results never change, only speed).
 * @return 0, SOFL_E_INVAL (NULL r, unknown impl) or SOFL_E_NOTSUP (unavailable
 *         here; the engine keeps its implementation). */
SOFL_API int sofl_rss_set_impl(struct sofl_rss *r, enum sofl_rss_impl impl);

/* sofl_rss_impl_name() : "table", "gfni" or "mixed": what @r uses. */
SOFL_API const char *sofl_rss_impl_name(const struct sofl_rss *r);

/* sofl_rss_toeplitz() :
 * The bit-serial reference definition (slow: one step per input bit): the
 * hash of in[0..len) under key[0..key_len).  Key bits past the key's end
 * count as 0, so any lengths are accepted (len 0 gives 0).  Pure; reentrant.
 * Meant for tests and for checking a NIC; use an engine for speed. */
SOFL_API uint32_t sofl_rss_toeplitz(const void *key, size_t key_len, const void *in, size_t len);

/* sofl_rss_hash_bytes() :
 * Hashes in[0..len) with @r's key through @r's implementation, raw: the
 * symmetric flag does not apply (the input's layout is the caller's).
 * @len : 0 .. SOFL_RSS_INPUT_MAX (0 gives hash 0; @in may then be NULL).
 * @return 0 with *hash set, or SOFL_E_INVAL (NULL argument, len too long). */
SOFL_API int sofl_rss_hash_bytes(const struct sofl_rss *r, const void *in, size_t len,
				 uint32_t *hash);

/* sofl_rss_hash_bulk() :
 * hash[i] = the hash of in[i][0..len) for i < n (as sofl_rss_hash_bytes()),
 * with the per-call set-up done once: the form for bursts of tuples.
 * n = 0 does nothing.  Tuples are read, never written; hash[] is written.
 * @return 0, or SOFL_E_INVAL (len > SOFL_RSS_INPUT_MAX, or with n > 0 a NULL
 *         r, in, hash or in[i]; nothing is written then). */
SOFL_API int sofl_rss_hash_bulk(const struct sofl_rss *r, const void *const *in, size_t len,
				size_t n, uint32_t *hash);

/* sofl_rss_pkt() :
 * Hashes a parsed packet (pkt.h; sofl_pkt_parse() may have returned an
 * error: what it parsed is used) and looks its queue up.  The input is chosen
 * from p->layers and p->key: a TCP or UDP header parsed (SOFL_LAYER_L4, not a
 * fragment) -> 4-tuple; else an IP header parsed (SOFL_LAYER_L3) -> 2-tuple;
 * else no hash.  SOFL_RSS_SYMMETRIC applies.
 * @return the enum sofl_rss_type (> 0 hashed, 0 no hash; *out is filled in
 *         both cases) or SOFL_E_INVAL (NULL argument). */
SOFL_API int sofl_rss_pkt(const struct sofl_rss *r, const struct sofl_pkt *p,
			  struct sofl_rss_out *out);

/* sofl_rss_input() :
 * The bytes sofl_rss_pkt() hashes for @p (after the symmetric sort, if the
 * engine has it): in[0..*len), *len = 8, 12, 32 or 36, or 0 for no hash.
 * For flow accounting, checking a NIC's hash, or sofl_rss_toeplitz().
 * @return the enum sofl_rss_type (0 = no hash), or SOFL_E_INVAL. */
SOFL_API int sofl_rss_input(const struct sofl_rss *r, const struct sofl_pkt *p,
			    uint8_t in[SOFL_RSS_INPUT_MAX], size_t *len);

/* sofl_rss_burst() :
 * sofl_rss_pkt() on pkts[0..n), results in out[0..n) (same values; with
 * GFNI two packets share one pass).  n = 0 does nothing.
 * @return the number of packets that got a hash (type > 0), or SOFL_E_INVAL
 *         (NULL argument with n > 0, or n > INT_MAX). */
SOFL_API int sofl_rss_burst(const struct sofl_rss *r, const struct sofl_pkt *pkts, size_t n,
			    struct sofl_rss_out *out);

/* sofl_rss_queue() : the queue of @hash: reta[hash & (size - 1)]. */
static inline unsigned
sofl_rss_queue(const struct sofl_rss *r, uint32_t hash)
{
	return r->reta[hash & (uint32_t)(r->reta_size - 1)];
}

/* sofl_rss_reta_fill() :
 * Resizes the indirection table to @size entries spread round-robin over
 * @nqueues queues (entry i = i % nqueues; what `ethtool -X equal N` does),
 * and sets the engine's queue count to @nqueues.
 * @size : power of two, 1 .. SOFL_RSS_RETA_MAX.  @nqueues : 1 .. SOFL_RSS_QUEUES_MAX.
 * @return 0 or SOFL_E_INVAL (the table is then unchanged). */
SOFL_API int sofl_rss_reta_fill(struct sofl_rss *r, unsigned size, unsigned nqueues);

/* sofl_rss_reta_weights() :
 * Resizes the table to @size entries and gives queue q a share of the
 * entries proportional to weight[q] (q = 0 .. n-1), in contiguous runs, as
 * `ethtool -X weight W0 W1 ...` does: entry i goes to the first queue q with
 * i < floor(size * (weight[0] + ... + weight[q]) / total).  A queue of
 * weight 0 gets no entry.  Sets the engine's queue count to @n.
 * @return 0, or SOFL_E_INVAL (bad size, n out of 1 .. SOFL_RSS_QUEUES_MAX,
 *         NULL weight, all weights 0, or a total above 2^32 - 1); the table
 *         is then unchanged. */
SOFL_API int sofl_rss_reta_weights(struct sofl_rss *r, unsigned size, const unsigned *weight,
				   unsigned n);

/* sofl_rss_reta_set() :
 * Sets entry @index to @queue (one entry of `ethtool -X ... ` / a NIC's RETA).
 * @return 0 or SOFL_E_INVAL (index >= table size, queue >= the queue count). */
SOFL_API int sofl_rss_reta_set(struct sofl_rss *r, unsigned index, unsigned queue);

/* sofl_rss_reta_get() : entry @index (>= 0), or SOFL_E_INVAL. */
SOFL_API int sofl_rss_reta_get(const struct sofl_rss *r, unsigned index);

/* sofl_rss_reta_size() : the table's size (a power of two). */
static inline unsigned
sofl_rss_reta_size(const struct sofl_rss *r)
{
	return r->reta_size;
}

/* sofl_rss_nqueues() : the queue count the table refers to. */
static inline unsigned
sofl_rss_nqueues(const struct sofl_rss *r)
{
	return r->nqueues;
}

#ifdef __cplusplus
}
#endif
#endif
