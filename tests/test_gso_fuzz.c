/* Description: GSO and virtio-header robustness: random valid super-packets with random header bytes corrupted, cut short or split into random iovecs, segmented with random parameters (tiny sizes, MTUs, every type and mode) into buffers sized exactly by sofl_gso_need(); every call either fails with a negative code leaving the canaries around the output intact, or produces segments whose bytes cover the input exactly once; the vnet checks never crash.  Meant to run under ASan (make check-sanitize). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "helpers.h"
#include "helpers_encap.h"
#include "softoffload/gso.h"
#include "softoffload/vnet.h"

#define ITER 60000
#define CANARY 0xc3

static uint8_t frame[70000];
static long tun_segmented;	/* tunnel types that produced segments */

static size_t
random_packet(uint64_t *r)
{
	struct t_spec s;
	static const int protos[] = { 6, 17, 1 };
	size_t len;

	t_spec_init(&s, t_rand(r) & 1 ? 6 : 4, protos[t_rand(r) % 3]);
	s.link = t_rand(r) % 4 ? SOFL_LINK_ETH : SOFL_LINK_RAW;
	s.pay_len = t_rand(r) % 4 ? t_rand(r) % 3000 : t_rand(r) % 65000;
	s.df = (int)(t_rand(r) & 1);
	if (s.ipv == 6 && t_rand(r) % 3 == 0) {
		s.n_ext = 2;
		s.ext[0] = (struct t_ext){ .type = 0, .len = 8 };
		s.ext[1] = (struct t_ext){ .type = t_rand(r) & 1 ? 43 : 60, .len = 16 };
	}
	if (s.link == SOFL_LINK_ETH && t_rand(r) % 4 == 0)
		s.nvlan = 1;
	s.csum = (int)(t_rand(r) % 3);
	s.flags = (uint8_t)t_rand(r);
	len = t_build(frame, sizeof(frame), &s);
	if (t_rand(r) % 3 == 0 && len < 65000 - 400) {
		/* a tunnel packet carrying it: VXLAN, Geneve (options), IP-in-IP */
		static uint8_t inner[70000];
		static const uint8_t opts[12] = { 1, 2, 0x80, 2, 9, 9, 9, 9, 3, 4, 0x81, 0 };
		struct t_spec o;
		struct t_encap e;
		int type = 1 + (int)(t_rand(r) % 3);

		if (type == SOFL_ENCAP_IPIP) {	/* IP-in-IP carries the IP packet */
			s.link = SOFL_LINK_RAW;
			s.nvlan = 0;
			len = t_build(frame, sizeof(frame), &s);
		} else if (s.link != SOFL_LINK_ETH) {
			s.link = SOFL_LINK_ETH;
			len = t_build(frame, sizeof(frame), &s);
		}
		memcpy(inner, frame, len);
		t_spec_init(&o, t_rand(r) & 1 ? 6 : 4,
			    type == SOFL_ENCAP_IPIP ? (s.ipv == 4 ? 4 : 41) : 17);
		o.dport = type == SOFL_ENCAP_GENEVE ? 6081 : 4789;
		o.udp_zero_csum = (int)(t_rand(r) & 1);
		o.df = (int)(t_rand(r) & 1);
		t_encap_init(&e, type, (uint32_t)t_rand(r) & 0xffffff);
		if (type == SOFL_ENCAP_GENEVE && t_rand(r) & 1) {
			e.gn_opts = opts;
			e.gn_opts_len = sizeof(opts);
		}
		len = t_build_encap(frame, sizeof(frame), &o, &e, inner, len);
	}
	return len;
}

static void
corrupt(uint8_t *f, size_t *len, uint64_t *r)
{
	int n = (int)(t_rand(r) % 4), i;

	for (i = 0; i < n && *len; i++) {
		size_t at = t_rand(r) % (*len < 120 ? *len : 120);	/* mostly headers */
		f[at] = (uint8_t)t_rand(r);
	}
	if (t_rand(r) % 5 == 0 && *len)
		*len = t_rand(r) % *len;			/* cut short */
}

static void
random_params(struct sofl_gso_params *gp, uint64_t *r)
{
	static const uint16_t sizes[] = { 0, 1, 7, 8, 9, 100, 536, 1200, 1448, 9000, 65535 };
	static const uint16_t mtus[] = { 0, 0, 0, 1, 28, 68, 576, 1280, 1500, 9000 };

	memset(gp, 0, sizeof(*gp));
	gp->type = (uint8_t)(t_rand(r) % 5);		/* 4 = invalid */
	if (t_rand(r) % 3 == 0)		/* a tunnel bit (or two: invalid) */
		gp->type |= (uint8_t)(0x10 << (t_rand(r) % 3) | (t_rand(r) % 8 ? 0 : 0x20));
	gp->flags = (uint8_t)(t_rand(r) & 0x1f);
	gp->gso_size = t_rand(r) & 1 ? sizes[t_rand(r) % 11] : (uint16_t)t_rand(r);
	gp->mtu = mtus[t_rand(r) % 10];
	gp->max_segs = t_rand(r) % 4 ? 0 : (uint16_t)(t_rand(r) % 300);
	gp->frag_id = (uint32_t)t_rand(r);
}

static int
canaries_ok(const uint8_t *buf_end, const uint8_t *seg_end, const uint8_t *iov_end)
{
	for (int i = 0; i < 16; i++)
		if (buf_end[i] != CANARY)
			return 0;
	return seg_end[0] == CANARY && iov_end[0] == CANARY;
}

static void
one(uint64_t *r)
{
	struct sofl_pkt p;
	struct sofl_gso_params gp;
	struct sofl_gso_need need;
	struct sofl_gso_out out;
	struct iovec in[4];
	uint8_t hb[SOFL_PKT_IOV_HDR_MAX];
	size_t len = random_packet(r), total, i;
	int split = (int)(t_rand(r) % 3) == 0, mode = (int)(t_rand(r) & 1), n, err;
	uint8_t *f;

	corrupt(frame, &len, r);
	f = malloc(len ? len : 1);	/* exact size: ASan sees any overread */
	memcpy(f, frame, len);
	if (split && len >= 3) {
		size_t a = t_rand(r) % len, b = a + t_rand(r) % (len - a);
		in[0] = (struct iovec){ f, a };
		in[1] = (struct iovec){ f + a, b - a };
		in[2] = (struct iovec){ f + b, len - b };
		err = sofl_pkt_parse_iov(&p, hb, in, 3, t_rand(r) & 1 ? SOFL_LINK_ETH : SOFL_LINK_RAW);
	} else {
		split = 0;
		err = sofl_pkt_parse(&p, f, len, t_rand(r) & 1 ? SOFL_LINK_ETH : SOFL_LINK_RAW);
	}
	/* the virtio rules on whatever was parsed, with a random header */
	{
		struct sofl_vnet_hdr h;
		struct sofl_gso_params g2;
		uint8_t w[12];

		for (i = 0; i < 12; i++)
			w[i] = (uint8_t)t_rand(r);
		sofl_vnet_decode(&h, w, 12, 12, 0);
		if (t_rand(r) & 1)
			h.gso_type &= 0x85;
		sofl_vnet_check(&h, &p, (unsigned)(t_rand(r) & 2));
		sofl_vnet_to_gso(&h, &p, 0, &g2);
	}
	random_params(&gp, r);
	if ((p.layers & SOFL_LAYER_ENCAP) && t_rand(r) % 3) {
		/* mostly the type the parse calls for, as the CLI picks it */
		gp.type = (uint8_t)((p.encap == SOFL_ENCAP_IPIP ? SOFL_GSO_TUNNEL_IPIP :
				     (p.encap_flags & SOFL_ENCAP_F_UDP_CSUM) ?
				     SOFL_GSO_TUNNEL_UDP_CSUM : SOFL_GSO_TUNNEL_UDP) |
				    (p.l4_proto == 17 ? SOFL_GSO_UDP_L4 :
				     p.ipv == 4 ? SOFL_GSO_TCPV4 : SOFL_GSO_TCPV6));
		if (t_rand(r) & 1)
			gp.gso_size = (uint16_t)(1 + t_rand(r) % 2000);
	}
	if (sofl_gso_need(&gp, &p, mode, split ? 3 : 0, &need) == 0 && need.nsegs <= 70000) {
		uint8_t *buf = malloc(need.buf_bytes + 16);
		struct sofl_gso_seg *seg = malloc((need.nsegs + 1) * sizeof(*seg));
		struct iovec *iov = malloc((need.iovs + 1) * sizeof(*iov));

		memset(buf, CANARY, need.buf_bytes + 16);
		memset(seg, CANARY, (need.nsegs + 1) * sizeof(*seg));
		memset(iov, CANARY, (need.iovs + 1) * sizeof(*iov));
		out = (struct sofl_gso_out){ .mode = mode, .seg = seg, .seg_cap = need.nsegs,
					     .buf = buf, .buf_cap = need.buf_bytes, .iov = iov,
					     .iov_cap = need.iovs };
		n = sofl_gso_segment(&gp, &p, split ? in : NULL, split ? 3 : 0, &out);
		if (n < 0 && split && n == SOFL_E_GSO_HDR)
			n = 0;	/* the iovecs hold less than the parsed IP length says */
		assert_true(n >= 0);
		if (n > 0) {
			assert_int_equal(n, need.nsegs);
			for (total = 0, i = 0; i < (size_t)n; i++) {
				size_t t = 0;
				assert_true(seg[i].hdr_len <= seg[i].len);
				if (mode == SOFL_GSO_ZEROCOPY)
					for (int k = 0; k < seg[i].iovcnt; k++)
						t += seg[i].iov[k].iov_len;
				else
					t = seg[i].len;
				assert_int_equal(t, seg[i].len);
				total += seg[i].len - seg[i].hdr_len;
			}
			/* payload bytes out = payload bytes in, exactly once */
			if (gp.type & SOFL_GSO_TUNNEL_MASK) {	/* the inner payload */
				assert_int_equal(total, p.pay_len);
				tun_segmented++;
			}
			else if (p.layers & SOFL_LAYER_ENCAP)	/* the outer packet's */
				assert_true(total < p.outer_ip_end);
			else if (n == 1 && gp.type != SOFL_GSO_UFO)
				assert_int_equal(total, p.ip_end - p.pay_off);
			else if (gp.type == SOFL_GSO_TCPV4 || gp.type == SOFL_GSO_TCPV6 ||
				 gp.type == SOFL_GSO_UDP_L4)
				assert_int_equal(total, p.pay_len);
			else
				assert_true(total < p.ip_end);
		}
		if (!canaries_ok(buf + need.buf_bytes, (uint8_t *)&seg[need.nsegs],
				 (uint8_t *)&iov[need.iovs])) {
			fprintf(stderr, "overrun: type %d flags %x gso %u mtu %u mode %d split %d "
				"n %d ipv %d proto %d layers %x pay_off %u pay_len %u ip_end %u\n",
				gp.type, gp.flags, gp.gso_size, gp.mtu, mode, split, n, p.ipv,
				p.l4_proto, p.layers, p.pay_off, p.pay_len, p.ip_end);
			fail();
		}
		free(buf);
		free(seg);
		free(iov);
	} else {
		struct sofl_gso_seg seg[2];
		uint8_t buf[64];
		struct iovec iov[4];

		out = (struct sofl_gso_out){ .mode = mode, .seg = seg, .seg_cap = 2, .buf = buf,
					     .buf_cap = sizeof(buf), .iov = iov, .iov_cap = 4 };
		n = sofl_gso_segment(&gp, &p, split ? in : NULL, split ? 3 : 0, &out);
		assert_true(n < 0);
		(void)err;
	}
	free(f);
}

static void
test_random(void **state)
{
	uint64_t r = 0xf00d;
	(void)state;

	for (int i = 0; i < ITER; i++)
		one(&r);
	fprintf(stderr, "tunnel segmentations: %ld\n", tun_segmented);
	assert_true(tun_segmented > ITER / 200);	/* the tunnel path was exercised */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
