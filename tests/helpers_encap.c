/* Test helpers: tunnel packets (helpers_encap.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "softoffload/softoffload.h"
#include "helpers_encap.h"

void
t_encap_init(struct t_encap *e, int type, uint32_t vni)
{
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->vni = vni;
	e->vx_flags = 0x08;
	e->gn_proto = 0x6558;
}

size_t
t_encap_hdr(uint8_t *buf, const struct t_encap *e)
{
	if (e->type == SOFL_ENCAP_VXLAN) {
		buf[0] = e->vx_flags;
		buf[1] = e->vx_rsvd[0];
		buf[2] = e->vx_rsvd[1];
		buf[3] = e->vx_rsvd[2];
		buf[4] = (uint8_t)(e->vni >> 16);
		buf[5] = (uint8_t)(e->vni >> 8);
		buf[6] = (uint8_t)e->vni;
		buf[7] = e->vx_rsvd[3];
		return 8;
	}
	if (e->type == SOFL_ENCAP_GENEVE) {
		buf[0] = (uint8_t)(e->gn_ver << 6 | ((e->gn_opts_len / 4) & 0x3f));
		buf[1] = e->gn_flags;
		sofl_put16(buf + 2, e->gn_proto);
		buf[4] = (uint8_t)(e->vni >> 16);
		buf[5] = (uint8_t)(e->vni >> 8);
		buf[6] = (uint8_t)e->vni;
		buf[7] = 0;
		if (e->gn_opts_len)
			memcpy(buf + 8, e->gn_opts, e->gn_opts_len);
		return 8 + e->gn_opts_len;
	}
	return 0;
}

size_t
t_build_encap(uint8_t *buf, size_t cap, const struct t_spec *outer, const struct t_encap *e,
	      const uint8_t *inner, size_t n)
{
	uint8_t *pay = malloc(n + 8 + 256);
	struct t_spec s = *outer;
	size_t h, len, po;

	if (!pay)
		abort();
	h = t_encap_hdr(pay, e);
	memcpy(pay + h, inner, n);
	s.pay_len = h + n;
	len = t_build(buf, cap, &s);
	po = len - s.eth_pad - s.pay_len;
	memcpy(buf + po, pay, s.pay_len);
	free(pay);
	if (s.proto == 17 && s.csum == T_CSUM_FULL && !s.udp_zero_csum) {
		uint8_t *uh = buf + po - 8;
		uint32_t ulen = (uint32_t)(8 + s.pay_len);
		uint32_t ps = s.ipv == 4 ? sofl_csum_pseudo_v4(s.src, s.dst, 17, ulen) :
					   sofl_csum_pseudo_v6(s.src, s.dst, 17, ulen);
		uint16_t c;

		sofl_put16(uh + 6, 0);
		c = (uint16_t)~sofl_csum_fold(sofl_csum_add(ps, uh, ulen));
		sofl_put16(uh + 6, c ? c : 0xffff);
	}
	return len;
}
