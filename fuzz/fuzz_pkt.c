/* libFuzzer harness: the packet parser and the packet checksum helpers.
 *
 * Input: byte 0 bit 0 picks the link type (0 Ethernet, 1 raw IP), bits 1-3
 * the tunnel options (0 sofl_pkt_parse()'s defaults; 1 no tunnels; 2 VXLAN
 * on 8472 and Geneve on 4789, no IP-in-IP; 3 a full table of eight ports,
 * 4789 and 6081 among them with their types swapped; 4 NULL to
 * sofl_pkt_parse_cfg(); 5..7 the defaults by sofl_pkt_config_init()), bits
 * 4-7 a split point for sofl_pkt_parse_iov_cfg() (0: none); the rest is
 * the frame, copied into a heap buffer of exactly its size so that ASan
 * catches any read past the end.  Beyond "no crash, no overread" it checks
 * what must hold for every input:
 *   - a successful parse has consistent offsets inside the frame (a
 *     tunnel's outer, tunnel-header and inner offsets in their order, the
 *     inner packet within the outer UDP payload or IP packet);
 *   - the generic path gives the same result; a tunnel recognised but not
 *     parsed into (SOFL_LAYER_ENCAP_ERR) is the outer packet of a parse
 *     with no tunnels; the iovec parse of a frame within
 *     SOFL_PKT_IOV_HDR_MAX bytes is the contiguous one;
 *   - sofl_csum_pkt_fill() then makes every checksum verify (a tunnel
 *     packet's outer ones too: sofl_csum_pkt_check_outer()), and changes
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

static void
check_tunnel(const struct sofl_pkt *p)
{
	uint32_t bound;

	if (!(p->layers & SOFL_LAYER_ENCAP))
		return;
	CHECK(p->encap >= SOFL_ENCAP_VXLAN && p->encap <= SOFL_ENCAP_IPIP);
	CHECK(p->encap_err == SOFL_ENCAP_ERR_NONE);
	CHECK(p->outer_ipv == 4 || p->outer_ipv == 6);
	CHECK(p->outer_ip_end <= p->len);
	CHECK((uint32_t)p->outer_l3_off + p->outer_l3_len <= p->outer_ip_end);
	if (p->encap == SOFL_ENCAP_IPIP) {
		CHECK(p->outer_proto == 4 || p->outer_proto == 41);
		CHECK(p->outer_l4_off == 0 && p->encap_len == 0);
		CHECK(p->encap_off == p->outer_l3_off + p->outer_l3_len);
		bound = p->outer_ip_end;
	} else {
		CHECK(p->outer_proto == 17);
		CHECK(p->outer_l4_off == p->outer_l3_off + p->outer_l3_len);
		CHECK(p->encap_off == p->outer_l4_off + 8);
		CHECK(p->encap_len >= 8 && p->vni < (1u << 24));
		bound = p->outer_l4_off + sofl_get16(p->data + p->outer_l4_off + 4);
		CHECK(bound <= p->outer_ip_end);
	}
	CHECK(p->inner_l2_off == p->encap_off + p->encap_len);
	CHECK(p->l3_off == p->inner_l2_off +
	      ((p->encap_flags & SOFL_ENCAP_F_INNER_ETH) ? 14u : 0u));
	if (p->layers & SOFL_LAYER_L3)
		CHECK(p->ip_end <= bound);
}

/* The parse options of the config selector @k (the header above) */
static const struct sofl_pkt_config *
pick_cfg(int k, struct sofl_pkt_config *c)
{
	uint32_t i;

	if (k == 4)
		return NULL;
	sofl_pkt_config_init(c);
	if (k == 1) {
		c->n_udp = 0;
		c->flags = SOFL_PKT_F_NO_IPIP;
	} else if (k == 2) {
		c->udp[0].port = 8472;
		c->udp[1].port = 4789;
		c->flags = SOFL_PKT_F_NO_IPIP;
	} else if (k == 3) {
		c->n_udp = SOFL_PKT_UDP_ENCAP_MAX;
		for (i = 0; i < SOFL_PKT_UDP_ENCAP_MAX; i++) {
			c->udp[i].port = (uint16_t)(4000 + 97 * i);
			c->udp[i].type = i & 1 ? SOFL_ENCAP_GENEVE : SOFL_ENCAP_VXLAN;
		}
		c->udp[2].port = 4789;
		c->udp[3].port = 6081;
		c->udp[2].type = SOFL_ENCAP_GENEVE;
		c->udp[3].type = SOFL_ENCAP_VXLAN;
	}
	return c;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sofl_pkt p, q;
	struct sofl_pkt_config cbuf, none;
	const struct sofl_pkt_config *cfg;
	enum sofl_csum_state ip, l4;
	enum sofl_link link;
	uint8_t *f;
	int err, sel, split;

	if (size < 1)
		return 0;
	link = (data[0] & 1) ? SOFL_LINK_RAW : SOFL_LINK_ETH;
	sel = (data[0] >> 1) & 7;
	split = data[0] >> 4;
	cfg = pick_cfg(sel, &cbuf);
	data++;
	size--;
	f = malloc(size ? size : 1);
	CHECK(f);
	memcpy(f, data, size);

	err = sel ? sofl_pkt_parse_cfg(&p, f, size, link, cfg) : sofl_pkt_parse(&p, f, size, link);
	CHECK(err <= 0);
	CHECK(memcmp(f, data, size) == 0);	/* the parser never writes */
	check_offsets(&p);
	check_tunnel(&p);
	memset(&q, 0xa5, sizeof(q));
	CHECK(sofl_pkt_parse_generic_cfg(&q, f, size, link, sel ? cfg : NULL) == err);
	CHECK(memcmp(&p, &q, pk_named_len(&p)) == 0);
	if (err == 0 && (p.layers & SOFL_LAYER_ENCAP_ERR)) {
		CHECK(p.encap_err > SOFL_ENCAP_ERR_NONE && p.encap_err < SOFL_ENCAP_ERR__MAX);
		pick_cfg(1, &none);
		CHECK(sofl_pkt_parse_cfg(&q, f, size, link, &none) == 0);
		q.layers |= SOFL_LAYER_ENCAP_ERR;
		CHECK(memcmp(&p, &q, offsetof(struct sofl_pkt, encap)) == 0);
	}
	if (split) {
		uint8_t hb[SOFL_PKT_IOV_HDR_MAX];
		size_t a = size * (size_t)split / 16;
		struct iovec iov[2] = { { f, a }, { f + a, size - a } };
		int e2 = sofl_pkt_parse_iov_cfg(&q, hb, iov, 2, link, sel ? cfg : NULL);

		CHECK(e2 <= 0);
		if (size <= SOFL_PKT_IOV_HDR_MAX) {
			CHECK(e2 == err);
			q.data = p.data;
			CHECK(memcmp(&p, &q, pk_named_len(&p)) == 0);
		}
		if (e2 == 0)
			CHECK(q.ip_end <= size || !(q.layers & SOFL_LAYER_L3));
	}
	sofl_csum_pkt_check(&p, &ip, &l4);	/* also valid on a partial parse */
	if (err == 0) {
		(void)sofl_csum_pkt_pseudo(&p);
		CHECK(sofl_csum_pkt_fill(f, &p, 1) == 0);
		CHECK(sofl_pkt_parse_cfg(&q, f, size, link, sel ? cfg : NULL) == 0);
		/* (filling may give a zero outer UDP checksum a value) */
		q.encap_flags = (uint8_t)((q.encap_flags & ~SOFL_ENCAP_F_UDP_CSUM) |
					  (p.encap_flags & SOFL_ENCAP_F_UDP_CSUM));
		CHECK(memcmp(&p, &q, pk_named_len(&p)) == 0);
		sofl_csum_pkt_check(&q, &ip, &l4);
		CHECK(ip == (p.ipv == 4 ? SOFL_CSUM_VALID : SOFL_CSUM_NONE));
		CHECK(l4 == ((p.layers & SOFL_LAYER_L4) ? SOFL_CSUM_VALID : SOFL_CSUM_NONE));
		/* a tunnel packet's outer checksums too (zero ones were asked
		 * to be filled as well) */
		sofl_csum_pkt_check_outer(&q, &ip, &l4);
		CHECK(ip == ((q.layers & SOFL_LAYER_ENCAP) && q.outer_ipv == 4 ? SOFL_CSUM_VALID :
			     SOFL_CSUM_NONE));
		CHECK(l4 == ((q.layers & SOFL_LAYER_ENCAP) && q.outer_l4_off ? SOFL_CSUM_VALID :
			     SOFL_CSUM_NONE));
	}
	free(f);
	return 0;
}
