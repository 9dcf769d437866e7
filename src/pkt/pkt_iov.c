/* The parser for a packet given as an iovec list (pkt.h,
 * sofl_pkt_parse_iov()): the headers gathered into a caller's buffer and
 * parsed there by sofl_pkt_parse_cfg(), with the lengths given back.
 *
 * The copy holds the first SOFL_PKT_IOV_HDR_MAX bytes of a super-packet
 * whose length fields describe the whole of it, so a length field reaching
 * past the copy is trimmed in the copy to end where the copy ends and the
 * copy parsed again; at most four fields, outermost first: the (outer) IP
 * length, the (outer) UDP length, and for a tunnel the inner IP and UDP
 * lengths.  Each trimmed field's real extent must lie within the real extent
 * of the one that carries it, as the parser checks it in a contiguous frame;
 * at the end the fields are put back and the result's lengths set to the
 * real ones. */
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

/* A parse error that means "the headers go on past what we gathered" */
static int
is_trunc(int err)
{
	switch (err) {
	case SOFL_E_TRUNC_L3:
	case SOFL_E_IPV4_HDR_TRUNC:
	case SOFL_E_EXTHDR_TRUNC:
	case SOFL_E_TCP_TRUNC:
	case SOFL_E_TCP_DOFF_LONG:
	case SOFL_E_UDP_TRUNC:
		return 1;
	default:
		return 0;
	}
}

static int
trunc_err(int err)
{
	return err != SOFL_E_TRUNC_L3 && err != SOFL_E_IPV4_HDR_TRUNC && is_trunc(err) ?
	       SOFL_E_GSO_HDR : err;
}

/* The length fields trimmed, by level */
enum { OUTER_IP, OUTER_UDP, INNER_IP, INNER_UDP, NLEVEL };
struct trim {
	uint32_t at;		/* offset of the field in the copy; 0: not trimmed */
	uint16_t val;		/* its real value */
	uint32_t end;		/* the real end of what it measures */
};

/* The IP length field of the IP header at @l3 (@v6): offset */
static uint32_t
ip_field(uint32_t l3, int v6)
{
	return l3 + (v6 ? 4 : 2);
}

static void
put_back(uint8_t *b, const struct trim *t)
{
	int i;

	for (i = 0; i < NLEVEL; i++)
		if (t[i].at)
			sofl_put16(b + t[i].at, t[i].val);
}

/* The real end of the IP packet at @l3 of version @v and of its payload
 * (UDP length or IP end) in the restored copy */
static uint32_t
ip_end_of(const uint8_t *b, uint32_t l3, int v)
{
	return v == 4 ? l3 + sofl_get16(b + l3 + 2) : l3 + 40 + sofl_get16(b + l3 + 4);
}

static void
real_pay(struct sofl_pkt *p, const uint8_t *b)
{
	if ((p->layers & SOFL_LAYER_L4) && p->l4_proto == 17)
		p->pay_len = (uint32_t)sofl_get16(b + p->l4_off + 4) - 8;
	else
		p->pay_len = p->ip_end - p->pay_off;
}

/* The real lengths back into *p (the copy restored) */
static void
real_lengths(struct sofl_pkt *p, const uint8_t *b)
{
	if (p->layers & SOFL_LAYER_ENCAP) {
		p->outer_ip_end = ip_end_of(b, p->outer_l3_off, p->outer_ipv);
		if (p->layers & SOFL_LAYER_L3) {
			p->ip_end = ip_end_of(b, p->l3_off, p->ipv);
			real_pay(p, b);
		}
		return;
	}
	p->ip_end = ip_end_of(b, p->l3_off, p->ipv);
	real_pay(p, b);
	if (p->layers & SOFL_LAYER_ENCAP_ERR)
		p->outer_ip_end = p->ip_end;
}

/* The inner IP header of a tunnel packet that failed on it: offset */
static uint32_t
inner_l3(const struct sofl_pkt *p)
{
	return p->inner_l2_off + ((p->encap_flags & SOFL_ENCAP_F_INNER_ETH) ? PK_ETH_HLEN : 0);
}

SOFL_API int
sofl_pkt_parse_iov_cfg(struct sofl_pkt *p, uint8_t *hdrbuf, const struct iovec *iov, int cnt,
		       enum sofl_link link, const struct sofl_pkt_config *cfg)
{
	struct trim t[NLEVEL];
	size_t total, n;
	int err, round;

	if (!p || !hdrbuf || !iov || cnt < 0)
		return SOFL_E_INVAL;
	if (cfg && (err = sofl_pkt_config_check(cfg)) < 0)
		return err;
	total = pk_iov_total(iov, cnt);
	n = gather(hdrbuf, SOFL_PKT_IOV_HDR_MAX, iov, cnt);
	err = sofl_pkt_parse_cfg(p, hdrbuf, n, link, cfg);
	if (n == total)
		return err;
	memset(t, 0, sizeof(t));
	for (round = 0; round < NLEVEL; round++) {
		int e = err, inner = 0, lv, cont, v6;
		uint32_t l3, l4, at, end, cend;
		uint16_t val;

		if (err == 0 && (p->layers & SOFL_LAYER_ENCAP_ERR) &&
		    p->encap_err == SOFL_ENCAP_ERR_INNER) {
			e = p->encap_inner_err;
			inner = 1;
		}
		if (e == SOFL_E_IPV4_TOTLEN_LONG || e == SOFL_E_IPV6_PLEN_LONG) {
			v6 = e == SOFL_E_IPV6_PLEN_LONG;
			lv = inner ? INNER_IP : OUTER_IP;
			cont = !inner ? -1 : p->encap == SOFL_ENCAP_IPIP ? OUTER_IP : OUTER_UDP;
			l3 = inner ? inner_l3(p) :
			     link == SOFL_LINK_RAW ? 0 : PK_ETH_HLEN + 4u * p->key.nvlan;
			at = ip_field(l3, v6);
			val = sofl_get16(hdrbuf + at);
			end = l3 + (v6 ? 40u : 0u) + val;
			if (n < (size_t)l3 + (v6 ? 40 : 20))
				break;	/* (cannot be: the parser read the header) */
		} else if (e == SOFL_E_UDP_LEN) {
			lv = inner ? INNER_UDP : OUTER_UDP;
			cont = inner ? INNER_IP : OUTER_IP;
			if (inner) {
				struct sofl_pkt q;

				pk_zero(&q);	/* the inner IP header again: where its UDP is */
				q.data = hdrbuf;
				q.len = p->pay_off + p->pay_len;
				q.link = p->link;
				l3 = inner_l3(p);
				if (sofl_pkt_parse_ip(&q, l3, hdrbuf[l3] >> 4 == 6 ? 6 : 4) !=
				    SOFL_E_UDP_LEN)
					break;
				l4 = q.l4_off;
			} else {
				l4 = p->l4_off;
			}
			at = l4 + 4;
			val = sofl_get16(hdrbuf + at);
			end = l4 + (uint32_t)val;
			if (val < 8)
				break;	/* a real error */
		} else {
			break;
		}
		/* its real extent within what carries it (trimmed before it) */
		cend = cont < 0 ? (uint32_t)(total < UINT32_MAX ? total : UINT32_MAX) :
		       t[cont].at ? t[cont].end : 0;
		if (t[lv].at || end > cend || end <= n)
			break;	/* a real error: as the contiguous parse finds it */
		t[lv].at = at;
		t[lv].val = val;
		t[lv].end = end;
		/* the new length: from the header to the copy's end */
		sofl_put16(hdrbuf + at, (uint16_t)(n - (end - val)));
		err = sofl_pkt_parse_cfg(p, hdrbuf, n, link, cfg);
	}
	put_back(hdrbuf, t);
	if (!t[OUTER_IP].at)
		return err == 0 ? 0 : trunc_err(err);	/* nothing trimmed */
	if (err) {
		/* the outer layers were parsed with trimmed lengths: not usable */
		p->layers &= SOFL_LAYER_L2;
		return trunc_err(err);
	}
	if (p->layers & SOFL_LAYER_ENCAP_ERR) {
		int cont = p->encap == SOFL_ENCAP_IPIP ? OUTER_IP : OUTER_UDP;

		/* a tunnel cut by the copy's end (its container trimmed to it):
		 * the headers are longer than we gathered */
		const int ie = p->encap_inner_err,
			  l3cut = ie == SOFL_E_TRUNC_L3 || ie == SOFL_E_IPV4_HDR_TRUNC;

		if ((t[cont].at && (p->encap_err == SOFL_ENCAP_ERR_TRUNC ||
				    p->encap_err == SOFL_ENCAP_ERR_GENEVE_OPTLEN ||
				    p->encap_err == SOFL_ENCAP_ERR_INNER_L2 ||
				    (p->encap_err == SOFL_ENCAP_ERR_INNER && l3cut))) ||
		    (t[INNER_IP].at && p->encap_err == SOFL_ENCAP_ERR_INNER && is_trunc(ie))) {
			p->layers &= SOFL_LAYER_L2;
			return SOFL_E_GSO_HDR;
		}
	}
	real_lengths(p, hdrbuf);
	return 0;
}

SOFL_API int
sofl_pkt_parse_iov(struct sofl_pkt *p, uint8_t *hdrbuf, const struct iovec *iov, int cnt,
		   enum sofl_link link)
{
	return sofl_pkt_parse_iov_cfg(p, hdrbuf, iov, cnt, link, NULL);
}
