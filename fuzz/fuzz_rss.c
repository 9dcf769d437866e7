/* libFuzzer harness: RSS on parsed frames and on tuples.
 *
 * Input: byte 0 bit 0 picks the link type (0 Ethernet, 1 raw IP), bit 1 the
 * symmetric mode, bit 2 a key of the input's own (the next 40 bytes; else
 * the Microsoft key); the rest is the frame, copied into a heap buffer of
 * exactly its size so that ASan catches any read past the end.  Beyond "no
 * crash, no overread" it checks what must hold for every input, under every
 * implementation this CPU has:
 *   - sofl_rss_pkt(), sofl_rss_pkt_batch() of one, and the Toeplitz hash of the
 *     bytes sofl_rss_input() reports agree (type, hash, queue);
 *   - sofl_rss_hash_tuple() and sofl_rss_hash_tuple_batch() on the parser's flow
 *     key give the same result (4-tuple for the TCP/UDP types, else the
 *     2-tuple);
 *   - in symmetric mode the reversed tuple gets the same hash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "softoffload/softoffload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

static struct sofl_rss *def[2];	/* Microsoft key: plain, symmetric */

static void
check_tuple(struct sofl_rss *r, const struct sofl_pkt *p, const struct sofl_rss_out *o, int sym)
{
	struct sofl_flow_key k = p->key;
	struct sofl_rss_out t, t2;
	int ports = o->type != SOFL_RSS_IPV4 && o->type != SOFL_RSS_IPV6;
	uint8_t a[16];
	uint16_t sp;

	k.proto = p->l4_proto;	/* what sofl_rss_pkt() types the 4-tuple by */
	CHECK(sofl_rss_hash_tuple(r, &k, ports, &t) == o->type);
	CHECK(t.hash == o->hash && t.queue == o->queue && t.type == o->type);
	CHECK(sofl_rss_hash_tuple_batch(r, &k, 1, ports, &t2) == 1);
	CHECK(!memcmp(&t, &t2, sizeof(t)));
	memcpy(a, k.src, 16);
	memcpy(k.src, k.dst, 16);
	memcpy(k.dst, a, 16);
	sp = k.sport;
	k.sport = k.dport;
	k.dport = sp;
	CHECK(sofl_rss_hash_tuple(r, &k, ports, &t) == o->type);
	if (sym)
		CHECK(t.hash == o->hash && t.queue == o->queue);
}

static void
check_engine(struct sofl_rss *r, const uint8_t *key, const struct sofl_pkt *p, int sym)
{
	int impl, first = 1;
	struct sofl_rss_out ref = { 0, 0, 0, 0 };

	for (impl = SOFL_RSS_IMPL_TABLE; impl <= SOFL_RSS_IMPL_MIXED; impl++) {
		struct sofl_rss_out o, b;
		uint8_t in[SOFL_RSS_INPUT_MAX];
		size_t len = 99;
		int type;

		if (sofl_rss_set_impl(r, (enum sofl_rss_impl)impl) != 0)
			continue;
		type = sofl_rss_pkt(r, p, &o);
		CHECK(type >= 0 && type == o.type && type <= SOFL_RSS_IPV6_UDP);
		CHECK(sofl_rss_pkt_batch(r, p, 1, &b) == (type > 0));
		CHECK(b.type == o.type && b.hash == o.hash && b.queue == o.queue);
		CHECK(sofl_rss_input(r, p, in, &len) == type);
		if (type == 0) {
			CHECK(len == 0 && o.hash == 0 && o.queue == 0);
			continue;
		}
		CHECK(len == 8 || len == 12 || len == 32 || len == 36);
		CHECK(o.hash == sofl_rss_toeplitz(key, SOFL_RSS_KEY_LEN, in, len));
		CHECK(o.queue == sofl_rss_queue(r, o.hash) && o.queue < sofl_rss_nqueues(r));
		if (first)
			ref = o;
		first = 0;
		CHECK(o.hash == ref.hash && o.queue == ref.queue);
		check_tuple(r, p, &o, sym);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *key = sofl_rss_default_key;
	struct sofl_rss_config cfg;
	struct sofl_rss *own = NULL;
	enum sofl_link link;
	struct sofl_pkt p;
	uint8_t flags, *f;
	int sym;

	if (size < 1)
		return 0;
	flags = data[0];
	data++;
	size--;
	link = (flags & 1) ? SOFL_LINK_RAW : SOFL_LINK_ETH;
	sym = (flags >> 1) & 1;
	if (!def[0]) {
		sofl_rss_config_init(&cfg);
		cfg.nqueues = 7;
		CHECK(sofl_rss_create(&cfg, &def[0]) == 0);
		cfg.flags = SOFL_RSS_F_SYMMETRIC;
		CHECK(sofl_rss_create(&cfg, &def[1]) == 0);
	}
	if (flags & 4) {
		if (size < SOFL_RSS_KEY_LEN)
			return 0;
		key = data;
		sofl_rss_config_init(&cfg);
		cfg.key = key;
		cfg.key_len = SOFL_RSS_KEY_LEN;
		cfg.nqueues = 5;
		cfg.flags = sym ? SOFL_RSS_F_SYMMETRIC : 0;
		CHECK(sofl_rss_create(&cfg, &own) == 0);
		data += SOFL_RSS_KEY_LEN;
		size -= SOFL_RSS_KEY_LEN;
	}
	f = malloc(size ? size : 1);
	CHECK(f);
	memcpy(f, data, size);
	CHECK(sofl_pkt_parse(&p, f, size, link) <= 0);	/* on error, what parsed is used */
	check_engine(own ? own : def[sym], key, &p, sym);
	sofl_rss_destroy(own);
	free(f);
	return 0;
}
