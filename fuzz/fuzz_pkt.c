/* libFuzzer harness: the packet parser and the packet checksum helpers.
 *
 * Input: byte 0 bit 0 picks the link type (0 Ethernet, 1 raw IP); the rest is
 * the frame, copied into a heap buffer of exactly its size so that ASan
 * catches any read past the end.  Beyond "no crash, no overread" it checks
 * what must hold for every input:
 *   - a successful parse has consistent offsets inside the frame;
 *   - sofl_csum_pkt_fill() then makes every checksum verify, and changes
 *     nothing the parser looks at (a re-parse gives the same result). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "softoffload/softoffload.h"
#include "pkt/pkt_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

static void
check_offsets(const struct sofl_pkt *p)
{
	uint32_t hend = p->l4_off + p->l4_len;

	if (!(p->layers & SOFL_LAYER_L3))
		return;
	CHECK(p->l3_off + p->l3_len <= p->ip_end);
	CHECK(p->ip_end <= p->len);
	CHECK(p->l4_off == p->l3_off + p->l3_len);
	CHECK((uint64_t)p->pay_off + p->pay_len <= p->ip_end);
	if (p->layers & SOFL_LAYER_L4) {
		CHECK(hend <= p->pay_off);
		CHECK(!p->is_frag);
	}
	CHECK(!p->opt_mss || p->opt_mss + 4u <= hend);
	CHECK(!p->opt_ws || p->opt_ws + 3u <= hend);
	CHECK(!p->opt_sackok || p->opt_sackok + 2u <= hend);
	CHECK(!p->opt_sack || p->opt_sack + 10u <= hend);
	CHECK(!p->opt_ts || p->opt_ts + 10u <= hend);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sofl_pkt p, q;
	enum sofl_csum_state ip, l4;
	enum sofl_link link;
	uint8_t *f;
	int err;

	if (size < 1)
		return 0;
	link = (data[0] & 1) ? SOFL_LINK_RAW : SOFL_LINK_ETH;
	data++;
	size--;
	f = malloc(size ? size : 1);
	CHECK(f);
	memcpy(f, data, size);

	err = sofl_pkt_parse(&p, f, size, link);
	CHECK(err <= 0);
	CHECK(memcmp(f, data, size) == 0);	/* the parser never writes */
	check_offsets(&p);
	sofl_csum_pkt_check(&p, &ip, &l4);	/* also valid on a partial parse */
	if (err == 0) {
		(void)sofl_csum_pkt_pseudo(&p);
		CHECK(sofl_csum_pkt_fill(f, &p, 1) == 0);
		CHECK(sofl_pkt_parse(&q, f, size, link) == 0);
		CHECK(memcmp(&p, &q, pk_named_len(&p)) == 0);
		sofl_csum_pkt_check(&q, &ip, &l4);
		CHECK(ip == (p.ipv == 4 ? SOFL_CSUM_VALID : SOFL_CSUM_NONE));
		CHECK(l4 == ((p.layers & SOFL_LAYER_L4) ? SOFL_CSUM_VALID : SOFL_CSUM_NONE));
	}
	free(f);
	return 0;
}
