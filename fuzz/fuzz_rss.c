/* libFuzzer harness: RSS on parsed frames and on tuples.
 *
 * Input: byte 0 bit 0 picks the link type (0 Ethernet, 1 raw IP), bit 1 the
 * symmetric mode, bit 2 a key of the input's own (the next 40 bytes; else
 * the Microsoft key), bit 3 inner RSS (SOFL_RSS_F_INNER); the rest is the
 * frame (parsed with the default tunnel ports: VXLAN, Geneve, IP-in-IP), copied into a heap buffer of
 * exactly its size so that ASan catches any read past the end.  Beyond "no
 * crash, no overread" it checks what must hold for every input, under every
 * implementation this CPU has:
 *   - sofl_rss_pkt(), sofl_rss_pkt_batch() of one, and the Toeplitz hash of the
 *     bytes sofl_rss_input() reports agree (type, hash, queue);
 *   - sofl_rss_hash_tuple() and sofl_rss_hash_tuple_batch() on the flow key
 *     sofl_rss_pkt_key() reports give the same result (4-tuple for the
 *     TCP/UDP types, else the 2-tuple); that key is the parser's p->key
 *     unless the packet is a tunnel packet hashed on its outer header;
 *   - in symmetric mode the reversed tuple gets the same hash;
 *   - a tunnel packet hashed on its outer header (no SOFL_RSS_F_INNER, or an
 *     inner packet without IP) gets the hash the same frame gets when
 *     parsed without tunnels (the RSS it had before tunnels were parsed). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "softoffload/softoffload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

static struct sofl_rss *def[4];	/* Microsoft key: plain, symmetric; + inner */

/* Is @p hashed on its outer header by @r (a tunnel packet without inner
 * RSS, or whose inner packet has no IP header)? */
static int
outer_hashed(struct sofl_rss *r, const struct sofl_pkt *p)
{
	struct sofl_rss_out o;
	struct sofl_pkt q = *p;

	if (!(p->layers & SOFL_LAYER_ENCAP))
		return 0;
	if (!(p->layers & SOFL_LAYER_L3))
		return 1;
	/* ask the engine: a key-only change to the inner flow moves an inner hash */
	q.key.family = 0;
	return sofl_rss_pkt(r, &q, &o) > 0;
}

static void
check_tuple(struct sofl_rss *r, const struct sofl_pkt *p, const struct sofl_rss_out *o, int sym)
{
	struct sofl_flow_key k;
	struct sofl_rss_out t, t2;
	int ports = o->type != SOFL_RSS_IPV4 && o->type != SOFL_RSS_IPV6;
	uint8_t a[16];
	uint16_t sp;

	CHECK(sofl_rss_pkt_key(r, p, &k) == o->type);
	if (!outer_hashed(r, p)) {
		CHECK(k.family == p->key.family && !memcmp(k.src, p->key.src, 16) &&
		      !memcmp(k.dst, p->key.dst, 16));
		CHECK(!ports || (k.sport == p->key.sport && k.dport == p->key.dport));
		if (ports)
			CHECK(k.proto == p->l4_proto);
	}
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
		if (outer_hashed(r, p)) {
			/* the RSS the frame had before tunnels were parsed */
			struct sofl_pkt_config c;
			struct sofl_pkt q;
			struct sofl_rss_out po;

			sofl_pkt_config_init(&c);
			c.n_udp = 0;
			c.flags |= SOFL_PKT_F_NO_IPIP;
			CHECK(sofl_pkt_parse_cfg(&q, p->data, p->len, (enum sofl_link)p->link, &c) <= 0);
			CHECK(sofl_rss_pkt(r, &q, &po) == type);
			CHECK(po.hash == o.hash && po.queue == o.queue);
		}
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
	int sym, inner;

	if (size < 1)
		return 0;
	flags = data[0];
	data++;
	size--;
	link = (flags & 1) ? SOFL_LINK_RAW : SOFL_LINK_ETH;
	sym = (flags >> 1) & 1;
	inner = (flags >> 3) & 1;
	if (!def[0]) {
		unsigned i;

		for (i = 0; i < 4; i++) {
			sofl_rss_config_init(&cfg);
			cfg.nqueues = 7;
			cfg.flags = (i & 1 ? SOFL_RSS_F_SYMMETRIC : 0) | (i & 2 ? SOFL_RSS_F_INNER : 0);
			CHECK(sofl_rss_create(&cfg, &def[i]) == 0);
		}
	}
	if (flags & 4) {
		if (size < SOFL_RSS_KEY_LEN)
			return 0;
		key = data;
		sofl_rss_config_init(&cfg);
		cfg.key = key;
		cfg.key_len = SOFL_RSS_KEY_LEN;
		cfg.nqueues = 5;
		cfg.flags = (sym ? SOFL_RSS_F_SYMMETRIC : 0) | (inner ? SOFL_RSS_F_INNER : 0);
		CHECK(sofl_rss_create(&cfg, &own) == 0);
		data += SOFL_RSS_KEY_LEN;
		size -= SOFL_RSS_KEY_LEN;
	}
	f = malloc(size ? size : 1);
	CHECK(f);
	memcpy(f, data, size);
	CHECK(sofl_pkt_parse(&p, f, size, link) <= 0);	/* on error, what parsed is used */
	check_engine(own ? own : def[sym | inner << 1], key, &p, sym);
	sofl_rss_destroy(own);
	free(f);
	return 0;
}
