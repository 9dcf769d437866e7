/*
 * softoffload — RSS: Toeplitz hash, indirection table, queue selection.
 *
 * HowTo (set the engine up once; hashing only reads it)
 *   ```c
 *   static struct sofl_rss *rss;
 *
 *   int
 *   rss_setup(void)
 *   {
 *       struct sofl_rss_config cfg;
 *       int err;
 *
 *       sofl_rss_config_init(&cfg);     // Microsoft key, 128 entries, 1 queue
 *       cfg.nqueues = 4;
 *       cfg.flags = SOFL_RSS_F_SYMMETRIC;
 *       if ((err = sofl_rss_create(&cfg, &rss)) < 0)
 *           return err;
 *       return sofl_rss_reta_set(rss, 5, 0);    // optional: entry 5 -> queue 0 (ethtool -X)
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
 *       return sofl_rss_pkt(rss, &p, &o) > 0 ? o.queue : 0;     // o.hash: the Toeplitz hash
 *   }
 *
 *   // A flow without a frame: 198.18.0.1:40000 -> 198.18.0.2:443 over TCP;
 *   // symmetric, so the reply direction gets the same queue.
 *   unsigned
 *   flow_queue(void)
 *   {
 *       struct sofl_flow_key k = { .family = 4, .proto = 6, .sport = 40000, .dport = 443 };
 *       struct sofl_rss_out o;
 *
 *       memcpy(k.src, (const uint8_t[]){ 198, 18, 0, 1 }, 4);
 *       memcpy(k.dst, (const uint8_t[]){ 198, 18, 0, 2 }, 4);
 *       return sofl_rss_hash_tuple(rss, &k, 1, &o) > 0 ? o.queue : 0;
 *   }
 *
 *   void
 *   rss_teardown(void)
 *   {
 *       sofl_rss_destroy(rss);
 *       rss = NULL;
 *   }
 *   ```
 *   For a batch of parsed packets: sofl_rss_pkt_batch(rss, pkts, n, outs); of
 *   flow keys: sofl_rss_hash_tuple_batch(rss, keys, n, 1, outs); of raw
 *   inputs: sofl_rss_hash_bytes_batch().
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
 * Symmetric mode (SOFL_RSS_F_SYMMETRIC) sorts the input before hashing: if
 * src > dst (compared as unsigned big-endian numbers, i.e. memcmp) the two
 * addresses are swapped, and independently, if sport > dport the two ports
 * are swapped.  Both directions of a connection thus feed the same bytes and
 * get the same hash, with any key and without losing input bits.  A packet
 * whose endpoints are already in order hashes exactly as in the normal mode.
 * (Other symmetric schemes give other values: Linux's ethtool
 * "symmetric-xor" hashes src^dst and sport^dport; OpenBSD's stoeplitz
 * repeats a 16-bit key.  Neither is this mode.)
 *
 * Tunnels (pkt.h "Tunnels": a VXLAN, Geneve or IP-in-IP packet parsed
 * through to its inner packet, SOFL_LAYER_ENCAP): by default the OUTER
 * header is hashed, as a NIC does without inner RSS.  The input then comes
 * from the frame (p->outer_l3_off, outer_ipv, outer_l4_off), not from
 * p->key (which holds the inner flow), under the rules above: VXLAN and
 * Geneve get the outer UDP 4-tuple (SOFL_RSS_IPV4_UDP / _IPV6_UDP),
 * IP-in-IP the outer 2-tuple (its protocol, 4 or 41, is neither TCP nor
 * UDP).  The hash is thus exactly the one the packet got before tunnels were
 * parsed (or with a struct sofl_pkt_config that parses none).  With
 * SOFL_RSS_F_INNER the inner flow (p->key) is hashed instead, as NICs'
 * inner RSS does: the inner 4-tuple or 2-tuple by the same rules, or the
 * outer tuple when the inner packet has no IP header (an inner ARP frame).
 * A packet whose tunnel was recognised but not parsed into
 * (SOFL_LAYER_ENCAP_ERR) is a plain outer packet in both modes.  Senders
 * choose the outer UDP source port from the inner flow's hash with
 * sofl_rss_encap_sport() (below), so that the outer hash spreads the inner
 * flows too.
 *
 * Not modelled: NIC "IPv6 EX" hash types (home address / routing header
 * final destination), per-type field selection (e.g. UDP on 2-tuple as
 * FreeBSD does by default).
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
 * sofl_rss_create() picks the fastest available: "mixed" (GFNI, except the
 * tables for single IPv4 hashes, as measured by bench/bench_rss.c) where
 * GFNI is usable, else "table".  The environment variable
 * SOFL_RSS_IMPL=table|gfni|mixed overrides that choice (an unavailable one
 * is ignored), and sofl_rss_set_impl() forces one per engine.
 *
 * The engine is opaque (struct sofl_rss is only declared here): it holds
 * 38 KiB of key-derived tables whose size and layout depend on the
 * implementations (per-byte tables, GFNI matrices, the longest key and
 * table accepted).  Were the caller to allocate it, every new implementation
 * or limit would change its size and break compiled callers; behind a
 * pointer it can grow without an ABI change.  The price is one allocation at
 * sofl_rss_create() and that the engine's scalars (sofl_rss_queue(),
 * sofl_rss_reta_size(), sofl_rss_nqueues()) are library calls rather than
 * inline reads: a few instructions each, no locking.  sofl_rss_pkt() and
 * sofl_rss_pkt_batch() look the queue up inside the library, with no extra call.
 *
 * Memory: sofl_rss_create() allocates the engine once (one aligned_alloc()
 * of about 38 KiB, 64-byte aligned); sofl_rss_destroy() frees it.  Nothing
 * else allocates, and the hashing calls make no system calls.
 * Thread-safety: hashing calls only read the engine: any number of threads
 * may share one.  sofl_rss_set_impl(), the sofl_rss_reta_* setters and
 * sofl_rss_destroy() write it and must not run concurrently with any other
 * call on the same engine.
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
struct sofl_flow_key;

#define SOFL_RSS_KEY_LEN      40	/* the default (Microsoft) key's length */
#define SOFL_RSS_KEY_MAX      52	/* longest key accepted (e.g. Intel E810) */
#define SOFL_RSS_INPUT_MAX    36	/* longest input: IPv6 4-tuple */
#define SOFL_RSS_RETA_DEFAULT 128
#define SOFL_RSS_RETA_MAX     512
#define SOFL_RSS_QUEUES_MAX   65535

/* struct sofl_rss_config flags (no flag: the normal, asymmetric hash) */
#define SOFL_RSS_F_SYMMETRIC 0x1	/* sort addresses and ports before hashing */
#define SOFL_RSS_F_INNER     0x2	/* tunnel packets: hash the inner flow, not the outer header */

/* The default source port range of sofl_rss_encap_sport(): Linux's
 * net.ipv4.ip_local_port_range default (32768 60999), which its UDP tunnels
 * use when no range is configured. */
#define SOFL_RSS_SPORT_MIN 32768
#define SOFL_RSS_SPORT_MAX 60999

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

/* The engine: opaque (see above); made by sofl_rss_create(). */
struct sofl_rss;

/* One packet's result. */
struct sofl_rss_out {
	uint32_t hash;		/* Toeplitz hash; 0 when type == SOFL_RSS_NONE */
	uint16_t queue;		/* reta[hash & (size - 1)]; 0 when type == SOFL_RSS_NONE */
	uint8_t  type;		/* enum sofl_rss_type */
	uint8_t  pad_;
};

/* The Microsoft RSS key, 40 bytes: 6d 5a 56 da ... be ac 01 fa. */
SOFL_API extern const uint8_t sofl_rss_default_key[SOFL_RSS_KEY_LEN];

/* An engine's configuration.  It starts with its own size so that it can
 * grow at its end without breaking compiled programs (softoffload.h: an
 * older, smaller struct gets the defaults for the fields it lacks; a newer,
 * larger one is accepted only when the bytes this library does not know are
 * zero).  Always fill it with sofl_rss_config_init() first, then change
 * fields; sofl_rss_create() copies it (and the key), so it may be freed
 * after. */
struct sofl_rss_config {
	uint32_t size;		/* sizeof(struct sofl_rss_config); set by config_init */
	uint32_t nqueues;	/* 1 .. SOFL_RSS_QUEUES_MAX; default 1 */
	uint32_t flags;		/* 0 (default), SOFL_RSS_F_SYMMETRIC, SOFL_RSS_F_INNER */
	uint32_t key_len;	/* bytes at key: SOFL_RSS_KEY_LEN .. SOFL_RSS_KEY_MAX;
				 * with key NULL it must be 0 or SOFL_RSS_KEY_LEN */
	const void *key;	/* NULL (default) = sofl_rss_default_key */
};

/* sofl_rss_config_init() : fills *cfg with the defaults (size set, the
 * Microsoft key, 1 queue, no flags).  NULL does nothing. */
SOFL_API void sofl_rss_config_init(struct sofl_rss_config *cfg);

/* sofl_rss_create() :
 * Allocates an engine for @cfg (NULL = the defaults of
 * sofl_rss_config_init()) and sets it up: the key (copied), its tables, the
 * implementation, and the default indirection table (128 entries, entry i =
 * i % nqueues).  On success *out owns the engine until sofl_rss_destroy().
 * cfg->key_len : SOFL_RSS_KEY_LEN .. SOFL_RSS_KEY_MAX bytes.  Only the key's
 *            first 40 bytes influence hashes of inputs up to 36 bytes;
 *            longer keys are accepted so that NIC keys can be mirrored.
 * cfg->nqueues : 1 .. SOFL_RSS_QUEUES_MAX.
 * cfg->flags   : 0, or SOFL_RSS_F_SYMMETRIC and/or SOFL_RSS_F_INNER.
 * @return 0, SOFL_E_CFG_SIZE (cfg->size below the first version's, or
 *         unknown non-zero bytes past the known fields), SOFL_E_INVAL (NULL
 *         out, bad key length, nqueues or flags) or SOFL_E_NOMEM; on any
 *         error *out is set to NULL (when out is not NULL) and nothing is
 *         allocated.  Cost: some 25 us (the allocation, 37 KiB of tables,
 *         CPUID and SOFL_RSS_IMPL): set up once, not per packet.
 * Thread-safety: reentrant (engines share nothing). */
SOFL_API int sofl_rss_create(const struct sofl_rss_config *cfg, struct sofl_rss **out);

/* sofl_rss_destroy() :
 * Frees @r (NULL does nothing).  No call may use @r afterwards; ports
 * (port.h) that refer to it must be closed or given another engine first. */
SOFL_API void sofl_rss_destroy(struct sofl_rss *r);

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
 * bytes are hashed as given and SOFL_RSS_F_SYMMETRIC does not apply, since
 * the input's layout is the caller's and the call cannot know where
 * addresses and ports lie.  For a flow's symmetric hash use
 * sofl_rss_hash_tuple(), which knows the layout.
 * @len : 0 .. SOFL_RSS_INPUT_MAX (0 gives hash 0; @in may then be NULL).
 * @return 0 with *hash set, or SOFL_E_INVAL (NULL argument, len too long). */
SOFL_API int sofl_rss_hash_bytes(const struct sofl_rss *r, const void *in, size_t len,
				 uint32_t *hash);

/* sofl_rss_hash_bytes_batch() :
 * hash[i] = the hash of in[i][0..len) for i < n (as sofl_rss_hash_bytes()),
 * with the per-call set-up done once: the form for batches of tuples.
 * n = 0 does nothing.  Tuples are read, never written; hash[] is written.
 * @return 0, or SOFL_E_INVAL (len > SOFL_RSS_INPUT_MAX, or with n > 0 a NULL
 *         r, in, hash or in[i]; nothing is written then). */
SOFL_API int sofl_rss_hash_bytes_batch(const struct sofl_rss *r, const void *const *in,
				       size_t len, size_t n, uint32_t *hash);

/* sofl_rss_pkt() :
 * Hashes a parsed packet (pkt.h; sofl_pkt_parse() may have returned an
 * error: what it parsed is used) and looks its queue up.  The input is chosen
 * from p->layers and p->key: a TCP or UDP header parsed (SOFL_LAYER_L4, not a
 * fragment) -> 4-tuple; else an IP header parsed (SOFL_LAYER_L3) -> 2-tuple;
 * else no hash.  A tunnel packet (SOFL_LAYER_ENCAP) is hashed on its outer
 * header, read from p->data, or with SOFL_RSS_F_INNER on its inner flow
 * ("Tunnels" above); outer headers that do not lie within p->data[0..p->len)
 * (a hand-made *p) get no hash.  SOFL_RSS_F_SYMMETRIC applies.
 * @return the enum sofl_rss_type (> 0 hashed, 0 no hash; *out is filled in
 *         both cases) or SOFL_E_INVAL (NULL argument). */
SOFL_API int sofl_rss_pkt(const struct sofl_rss *r, const struct sofl_pkt *p,
			  struct sofl_rss_out *out);

/* sofl_rss_hash_tuple() :
 * Hashes a flow given as its tuple, without a frame, exactly as
 * sofl_rss_pkt() hashes a packet of that flow: the same input bytes, the
 * same symmetric sort (SOFL_RSS_F_SYMMETRIC applies), the same implementation,
 * and the queue looked up.  From @k it reads family (4 or 6) and src, dst
 * (network byte order; IPv4: the first 4 bytes), and with @with_ports also
 * proto (6 TCP or 17 UDP: the type) and sport, dport (host order); the
 * other fields are ignored.  A key filled by sofl_pkt_parse() (p->key)
 * gives sofl_rss_pkt()'s result: with_ports 1 when the packet has a TCP or
 * UDP header and is no fragment, else 0.
 * @with_ports : 1 = the 4-tuple (12 or 36 bytes), 0 = the 2-tuple (8 or 32).
 * @return the enum sofl_rss_type (> 0; *out filled), or SOFL_E_INVAL (NULL
 *         argument, family neither 4 nor 6, with_ports neither 0 nor 1, or
 *         with_ports and proto neither 6 nor 17; *out is then unchanged).
 * Pure with respect to @r: any number of threads may share it. */
SOFL_API int sofl_rss_hash_tuple(const struct sofl_rss *r, const struct sofl_flow_key *k,
				 int with_ports, struct sofl_rss_out *out);

/* sofl_rss_hash_tuple_batch() :
 * sofl_rss_hash_tuple() on k[0..n), all with @with_ports, results in
 * out[0..n) (same values; with GFNI two tuples share one pass): the form
 * for a batch of flows.  A key sofl_rss_hash_tuple() would refuse (family
 * neither 4 nor 6; with ports, proto neither TCP nor UDP) gets no hash, as
 * sofl_rss_pkt_batch() treats a non-IP packet: out[i].type SOFL_RSS_NONE, hash
 * and queue 0.  n = 0 does nothing.  Keys are read, never written.
 * @return the number of keys that got a hash (type > 0), or SOFL_E_INVAL
 *         (NULL argument with n > 0, n > INT_MAX, with_ports neither 0 nor
 *         1; nothing is written then). */
SOFL_API int sofl_rss_hash_tuple_batch(const struct sofl_rss *r, const struct sofl_flow_key *k,
				       size_t n, int with_ports, struct sofl_rss_out *out);

/* sofl_rss_input() :
 * The bytes sofl_rss_pkt() hashes for @p (after the symmetric sort, if the
 * engine has it): in[0..*len), *len = 8, 12, 32 or 36, or 0 for no hash.
 * For flow accounting, checking a NIC's hash, or sofl_rss_toeplitz().
 * @return the enum sofl_rss_type (0 = no hash), or SOFL_E_INVAL. */
SOFL_API int sofl_rss_input(const struct sofl_rss *r, const struct sofl_pkt *p,
			    uint8_t in[SOFL_RSS_INPUT_MAX], size_t *len);

/* sofl_rss_pkt_key() :
 * The flow key sofl_rss_pkt() hashes for @p, in the packet's own order (no
 * symmetric sort): p->key's family, proto, src, dst, sport, dport, or for a
 * tunnel packet hashed on its outer header ("Tunnels") the outer IP
 * addresses, outer protocol and outer UDP ports read from the frame.  *k is
 * zeroed first; sport and dport stay 0 when the type has no ports.  Then
 * sofl_rss_hash_tuple(r, k, type has ports, out) gives sofl_rss_pkt()'s result.
 * For showing or accounting what was hashed.
 * @return the enum sofl_rss_type (0 = no hash, *k zeroed), or SOFL_E_INVAL
 *         (NULL argument). */
SOFL_API int sofl_rss_pkt_key(const struct sofl_rss *r, const struct sofl_pkt *p,
			      struct sofl_flow_key *k);

/* sofl_rss_encap_sport() :
 * The outer UDP source port (host order) a tunnel sender gives a packet
 * whose inner flow hashes to @hash, so that routers' ECMP and receivers'
 * RSS on the outer header spread the inner flows: Linux's udp_flow_src_port()
 * (include/net/udp.h) on a given hash: hash ^= hash << 16, then
 * min + ((hash * (max - min)) >> 32) with a 64-bit product, i.e. a port in
 * [min, max).  @min >= @max means the default range SOFL_RSS_SPORT_MIN ..
 * SOFL_RSS_SPORT_MAX (Linux: the local port range, used by VXLAN and Geneve
 * when their port_min/port_max are unset).  @hash: any 32-bit flow hash,
 * e.g. the Toeplitz hash of the inner flow (sofl_rss_hash_tuple(), or
 * sofl_rss_pkt() with SOFL_RSS_F_INNER); Linux uses its own skb hash, so
 * the ports differ from a Linux sender's while the spread is the same.  A
 * hash of 0 gives @min (Linux substitutes a hash of the MAC addresses or a
 * random value there).  Pure; reentrant. */
SOFL_API uint16_t sofl_rss_encap_sport(uint32_t hash, uint16_t min, uint16_t max);

/* sofl_rss_pkt_batch() :
 * sofl_rss_pkt() on pkts[0..n), results in out[0..n) (same values; with
 * GFNI two packets share one pass).  n = 0 does nothing.
 * @return the number of packets that got a hash (type > 0), or SOFL_E_INVAL
 *         (NULL argument with n > 0, or n > INT_MAX). */
SOFL_API int sofl_rss_pkt_batch(const struct sofl_rss *r, const struct sofl_pkt *pkts, size_t n,
				struct sofl_rss_out *out);

/* sofl_rss_queue() :
 * The queue of @hash: reta[hash & (size - 1)], as sofl_rss_pkt() fills
 * out->queue.  For hashes computed elsewhere (sofl_rss_hash_bytes(), a
 * NIC's).  0 for a NULL @r. */
SOFL_API unsigned sofl_rss_queue(const struct sofl_rss *r, uint32_t hash);

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

/* sofl_rss_reta_size() : the table's size (a power of two); 0 for a NULL @r. */
SOFL_API unsigned sofl_rss_reta_size(const struct sofl_rss *r);

/* sofl_rss_nqueues() : the queue count the table refers to; 0 for a NULL @r. */
SOFL_API unsigned sofl_rss_nqueues(const struct sofl_rss *r);

#ifdef __cplusplus
}
#endif
#endif
