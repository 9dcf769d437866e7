/* The parser for a packet given as an iovec list (pkt.h,
 * sofl_pkt_parse_iov()): the headers gathered into a caller's buffer and
 * parsed there by sofl_pkt_parse(), with the lengths given back. */
#include <string.h>
#include "softoffload/pkt.h"
#include "softoffload/bytes.h"
#include "pkt_impl.h"

static size_t
gather(uint8_t *dst, size_t cap, const struct iovec *iov, int cnt)
{
	size_t n = 0;
	int i;

	for (i = 0; i < cnt && n < cap; i++) {
		size_t k = iov[i].iov_len < cap - n ? iov[i].iov_len : cap - n;

		memcpy(dst + n, iov[i].iov_base, k);
		n += k;
	}
	return n;
}

static int
trunc_err(int err)
{
	switch (err) {
	case SOFL_E_EXTHDR_TRUNC:
	case SOFL_E_TCP_TRUNC:
	case SOFL_E_TCP_DOFF_LONG:
	case SOFL_E_UDP_TRUNC:
		return SOFL_E_GSO_HDR;	/* the headers go on past what we gathered */
	default:
		return err;
	}
}

SOFL_API int
sofl_pkt_parse_iov_cfg(struct sofl_pkt *p, uint8_t *hdrbuf, const struct iovec *iov, int cnt,
		       enum sofl_link link, const struct sofl_pkt_config *cfg)
{
	size_t total, n;
	uint32_t l3, ip_len, l4 = 0;
	uint16_t ip_field, ulen = 0;
	int err, v6;

	if (!p || !hdrbuf || !iov || cnt < 0)
		return SOFL_E_INVAL;
	total = pk_iov_total(iov, cnt);
	n = gather(hdrbuf, SOFL_PKT_IOV_HDR_MAX, iov, cnt);
	err = sofl_pkt_parse_cfg(p, hdrbuf, n, link, cfg);
	if (n == total || (err != SOFL_E_IPV4_TOTLEN_LONG && err != SOFL_E_IPV6_PLEN_LONG))
		return err == 0 || n == total ? err : trunc_err(err);
	/* the IP packet goes on past the copy: trim its length to the copy,
	 * parse, then give the packet its real lengths back */
	v6 = err == SOFL_E_IPV6_PLEN_LONG;
	l3 = link == SOFL_LINK_RAW ? 0 : 14 + 4u * p->key.nvlan;
	ip_field = sofl_get16(hdrbuf + l3 + (v6 ? 4 : 2));
	ip_len = v6 ? 40u + ip_field : ip_field;
	if (l3 + ip_len > total)
		return err;
	sofl_put16(hdrbuf + l3 + (v6 ? 4 : 2), (uint16_t)(n - l3 - (v6 ? 40 : 0)));
	err = sofl_pkt_parse_cfg(p, hdrbuf, n, link, cfg);
	if (err == SOFL_E_UDP_LEN) {
		l4 = p->l4_off;
		ulen = sofl_get16(hdrbuf + l4 + 4);
		if (ulen < 8 || l4 + ulen > l3 + ip_len) {
			sofl_put16(hdrbuf + l3 + (v6 ? 4 : 2), ip_field);
			p->layers &= SOFL_LAYER_L2;
			return SOFL_E_UDP_LEN;
		}
		sofl_put16(hdrbuf + l4 + 4, (uint16_t)(n - l4));
		err = sofl_pkt_parse_cfg(p, hdrbuf, n, link, cfg);
		sofl_put16(hdrbuf + l4 + 4, ulen);
	}
	sofl_put16(hdrbuf + l3 + (v6 ? 4 : 2), ip_field);
	if (err) {
		/* the layers were parsed with trimmed lengths: not usable */
		p->layers &= SOFL_LAYER_L2;
		return trunc_err(err);
	}
	p->ip_end = l3 + ip_len;
	if ((p->layers & SOFL_LAYER_L4) && p->l4_proto == 17)
		p->pay_len = (uint32_t)sofl_get16(hdrbuf + p->l4_off + 4) - 8;
	else
		p->pay_len = p->ip_end - p->pay_off;
	return 0;
}

SOFL_API int
sofl_pkt_parse_iov(struct sofl_pkt *p, uint8_t *hdrbuf, const struct iovec *iov, int cnt,
		   enum sofl_link link)
{
	return sofl_pkt_parse_iov_cfg(p, hdrbuf, iov, cnt, link, NULL);
}
