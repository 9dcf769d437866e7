/* libFuzzer harness: segmentation (gso.h).
 *
 * Input: byte 0 = link (bit 0), type (bits 1-2), flags (bits 3-6);
 * bytes 1-2 = gso_size (big endian); byte 3 = mtu / 8 (0: none); the rest is
 * the frame, in a heap buffer of exactly its size.  Each input is segmented
 * twice, in COPY and in ZEROCOPY mode, into memory sized by sofl_gso_need().
 * Checked, beyond "no crash, no overread/overwrite":
 *   - both modes give the same segments, byte for byte;
 *   - need() and segment() agree (count, or the same error);
 *   - every segment parses (when the input did; but an IPv6 fragment one
 *     header past the parser's SOFL_PKT_EXTHDR_MAX); TCP/UDP segments carry the input's payload
 *     exactly once, in order, with verifying checksums unless CSUM_PARTIAL;
 *   - type NONE with the IGNORE_DF bit becomes SOFL_GSO_F_CSUM_AT (csum_start
 *     from bytes 1-2, csum_offset from byte 3): the output is the input but
 *     for that one field (all of it with CSUM_PARTIAL).
 * A tunnel parse (VXLAN, Geneve, IP-in-IP on the default ports) gets a
 * tunnel bit too, picked by (byte 1 ^ byte 2 ^ byte 3) & 3 (none, UDP,
 * UDP_CSUM, IPIP: matching the parse or not); its segments' outer IPv4
 * header and outer UDP checksums are verified as well. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "softoffload/softoffload.h"
#include "softoffload/gso.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

static int
run(const struct sofl_gso_params *gp, const struct sofl_pkt *p, int mode,
    struct sofl_gso_out *o)
{
	struct sofl_gso_need need;
	int err = sofl_gso_need(gp, p, mode, 0, &need), n;

	memset(o, 0, sizeof(*o));
	o->mode = mode;
	if (err < 0) {
		struct sofl_gso_seg s1;
		uint8_t b1[1];
		struct iovec v1;

		/* segment() must refuse with the same code, writing nothing */
		o->seg = &s1; o->seg_cap = 1; o->buf = b1; o->buf_cap = 1;
		o->iov = &v1; o->iov_cap = 1;
		CHECK(sofl_gso_segment(gp, p, NULL, 0, o) == err);
		memset(o, 0, sizeof(*o));
		return err;
	}
	o->seg = malloc(need.nsegs * sizeof(*o->seg));
	o->seg_cap = need.nsegs;
	o->buf = malloc(need.buf_bytes ? need.buf_bytes : 1);
	o->buf_cap = need.buf_bytes;
	o->iov = mode == SOFL_GSO_ZEROCOPY ? malloc((need.iovs ? need.iovs : 1) * sizeof(*o->iov)) : NULL;
	o->iov_cap = mode == SOFL_GSO_ZEROCOPY ? need.iovs : 0;
	CHECK(o->seg && o->buf && (mode == SOFL_GSO_COPY || o->iov));
	n = sofl_gso_segment(gp, p, NULL, 0, o);
	CHECK(n == (int)need.nsegs);
	return n;
}

/* The outer headers of tunnel segment @q: IPv4 header checksum, UDP length
 * and checksum (complete for _CSUM unless the inner one is partial: the
 * outer one then counts the inner as complete, so it is not checked). */
static void
check_outer(const struct sofl_pkt *q, unsigned tb, int partial)
{
	const uint8_t *oh = q->data + q->outer_l3_off;

	CHECK(q->layers & SOFL_LAYER_ENCAP);
	if (q->outer_ipv == 4)
		CHECK(sofl_csum_fold(sofl_csum_add(0, oh, q->outer_l3_len)) == 0xffff);
	if (tb == SOFL_GSO_TUNNEL_IPIP)
		return;
	{
		const uint8_t *uh = q->data + q->outer_l4_off;
		uint32_t ulen = q->outer_ip_end - q->outer_l4_off;
		uint32_t ps = q->outer_ipv == 4 ? sofl_csum_pseudo_v4(oh + 12, oh + 16, 17, ulen) :
						  sofl_csum_pseudo_v6(oh + 8, oh + 24, 17, ulen);

		CHECK(sofl_get16(uh + 4) == ulen);
		if (tb == SOFL_GSO_TUNNEL_UDP)
			CHECK(sofl_get16(uh + 6) == 0);
		else if (!partial)
			CHECK(sofl_csum_fold(sofl_csum_add(ps, uh, ulen)) == 0xffff);
	}
}

static void
release(struct sofl_gso_out *o)
{
	free(o->seg);
	free(o->buf);
	free(o->iov);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t type_of[4] = { SOFL_GSO_NONE, SOFL_GSO_TCPV4, SOFL_GSO_UDP_L4,
					      SOFL_GSO_UFO };
	static const uint8_t tun_of[4] = { 0, SOFL_GSO_TUNNEL_UDP, SOFL_GSO_TUNNEL_UDP_CSUM,
					     SOFL_GSO_TUNNEL_IPIP };
	unsigned tb = 0;
	struct sofl_pkt_config plain;
	struct sofl_gso_params gp;
	struct sofl_gso_out c, z;
	struct sofl_pkt p;
	enum sofl_link link;
	uint8_t *f;
	size_t flen, pay = 0;
	int n, i, perr;

	if (size < 4)
		return 0;
	memset(&gp, 0, sizeof(gp));
	link = (data[0] & 1) ? SOFL_LINK_RAW : SOFL_LINK_ETH;
	gp.type = type_of[(data[0] >> 1) & 3];
	if (gp.type == SOFL_GSO_TCPV4 && (data[0] & 0x80))
		gp.type = SOFL_GSO_TCPV6;	/* either family, matching or not */
	gp.flags = (uint8_t)((data[0] >> 3) & 0x0f);
	gp.gso_size = (uint16_t)(data[1] << 8 | data[2]);
	gp.mtu = (uint16_t)(data[3] * 8);
	gp.frag_id = 0x01020304;
	flen = size - 4;
	f = malloc(flen ? flen : 1);
	CHECK(f);
	memcpy(f, data + 4, flen);
	perr = sofl_pkt_parse(&p, f, flen, link);
	if (perr < 0 && !(p.layers & SOFL_LAYER_L3)) {
		free(f);
		return 0;
	}
	if (gp.type == SOFL_GSO_NONE && (gp.flags & SOFL_GSO_F_IGNORE_DF)) {
		/* a virtio header's one checksum (SOFL_GSO_F_CSUM_AT):
		 * csum_start from bytes 1-2, csum_offset from byte 3 */
		gp.flags = (uint8_t)((gp.flags & ~SOFL_GSO_F_IGNORE_DF) | SOFL_GSO_F_CSUM_AT);
		gp.csum_start = (uint16_t)((data[1] << 8 | data[2]) % (flen + 1));
		gp.csum_offset = data[3];	/* frag_id stays set: ignored here */
		gp.mtu = 0;
	} else if (p.layers & SOFL_LAYER_ENCAP) {
		tb = tun_of[(data[1] ^ data[2] ^ data[3]) & 3];
		gp.type |= (uint8_t)tb;
	}
	sofl_pkt_config_init(&plain);
	plain.n_udp = 0;
	plain.flags = SOFL_PKT_F_NO_IPIP;
	n = run(&gp, &p, SOFL_GSO_COPY, &c);
	CHECK(run(&gp, &p, SOFL_GSO_ZEROCOPY, &z) == n);
	for (i = 0; i < n; i++) {
		struct sofl_gso_seg *s = &c.seg[i], *t = &z.seg[i];
		struct sofl_pkt q;
		enum sofl_csum_state ip, l4;
		int qerr;
		size_t off = 0;
		uint32_t k;

		CHECK(s->len == t->len);
		for (k = 0; k < t->iovcnt; k++) {	/* zero-copy gathers to the same bytes */
			CHECK(off + t->iov[k].iov_len <= s->len);
			CHECK(memcmp(s->data + off, t->iov[k].iov_base, t->iov[k].iov_len) == 0);
			off += t->iov[k].iov_len;
		}
		CHECK(off == s->len);
		if (gp.flags & SOFL_GSO_F_CSUM_AT) {
			/* the input but for the one field; unchanged when partial */
			uint32_t at = (uint32_t)gp.csum_start + gp.csum_offset;

			CHECK(n == 1 && s->len <= p.len && at + 2 <= s->len);
			if (gp.flags & SOFL_GSO_F_CSUM_PARTIAL)
				CHECK(memcmp(s->data, p.data, s->len) == 0);
			CHECK(memcmp(s->data, p.data, at) == 0 &&
			      memcmp(s->data + at + 2, p.data + at + 2, s->len - at - 2) == 0);
			continue;
		}
		/* a packet the parser faulted past L3 may pass through as it is;
		 * segments of a plain type are parsed without tunnels (a cut
		 * may make a tunnel header the parser refused whole look valid) */
		qerr = sofl_pkt_parse_cfg(&q, s->data, s->len, link, tb ? NULL : &plain);
		if (qerr < 0) {
			/* or an IPv6 fragment of a datagram whose chain already
			 * had SOFL_PKT_EXTHDR_MAX headers, all in the part every
			 * fragment repeats (hop-by-hop, routing: Linux
			 * ip6_find_1stfragopt()): with the fragment header it is
			 * one more than the parser takes, a valid packet all the
			 * same (RFC 8200 sets no limit) */
			CHECK(perr < 0 ||
			      (gp.type == SOFL_GSO_UFO && p.ipv == 6 &&
			       qerr == SOFL_E_EXTHDR_CHAIN && p.n_exthdr == SOFL_PKT_EXTHDR_MAX));
			continue;
		}
		if (tb)
			check_outer(&q, tb, gp.flags & SOFL_GSO_F_CSUM_PARTIAL);
		else if (p.layers & SOFL_LAYER_ENCAP)
			continue;	/* a plain type: the outer packet was cut */
		if (gp.type == SOFL_GSO_UFO || !(p.layers & SOFL_LAYER_L4))
			continue;
		/* TCP / UDP: the payload, in order, exactly once */
		CHECK(q.layers & SOFL_LAYER_L4);
		CHECK(pay + q.pay_len <= p.pay_len);
		CHECK(memcmp(s->data + q.pay_off, p.data + p.pay_off + pay, q.pay_len) == 0);
		pay += q.pay_len;
		sofl_csum_pkt_check(&q, &ip, &l4);
		CHECK(ip == (q.ipv == 4 ? SOFL_CSUM_VALID : SOFL_CSUM_NONE));
		if (!(gp.flags & SOFL_GSO_F_CSUM_PARTIAL))
			CHECK(l4 == SOFL_CSUM_VALID || l4 == SOFL_CSUM_ABSENT);
	}
	if (n > 0 && gp.type != SOFL_GSO_UFO && (p.layers & SOFL_LAYER_L4) &&
	    !(gp.flags & SOFL_GSO_F_CSUM_AT) &&
	    (tb || !(p.layers & SOFL_LAYER_ENCAP)))
		CHECK(pay == p.pay_len);
	release(&c);
	release(&z);
	free(f);
	return 0;
}
