/* libFuzzer harness: virtio-net headers (vnet.h) and what follows them.
 *
 * Input: byte 0 = options (bit 0 native byte order, bit 1 strict, bit 2
 * 12-byte header, bit 3 raw IP, bit 4 the 24-byte UDP-tunnel header with
 * SOFL_VNET_F_TUNNEL (bit 0 then ignored: that form is little-endian only),
 * bit 5 SOFL_VNET_F_TUNNEL_CSUM); then the wire header and the frame, as a
 * TAP read() returns them (the frame in an exact-size heap buffer).
 * Checked, beyond "no crash, no overread":
 *   - decode then encode gives back the header bytes (the 24-byte form's
 *     hash report, not kept, comes back as zeros);
 *   - an accepted UDP-tunnel header had the feature, NEEDS_CSUM, no
 *     DATA_VALID and ordered offsets, and to_gso() gives it a UDP-tunnel
 *     type with the same inner type;
 *   - to_gso() is at least as strict as check(), and GSO only where check() says so;
 *   - an accepted GSO header segments (sized by sofl_gso_need());
 *   - a header from_pkt() builds for a parsed packet passes check() (and,
 *     a UDP-tunnel one, to_gso() and the 24-byte wire form). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "softoffload/softoffload.h"
#include "softoffload/vnet.h"
#include "softoffload/gso.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

static void
segment(const struct sofl_gso_params *gp, const struct sofl_pkt *p)
{
	struct sofl_gso_need need;
	struct sofl_gso_out o;
	int n;

	if (sofl_gso_need(gp, p, SOFL_GSO_COPY, 0, &need) < 0)
		return;
	memset(&o, 0, sizeof(o));
	o.mode = SOFL_GSO_COPY;
	o.seg = malloc(need.nsegs * sizeof(*o.seg));
	o.seg_cap = need.nsegs;
	o.buf = malloc(need.buf_bytes ? need.buf_bytes : 1);
	o.buf_cap = need.buf_bytes;
	CHECK(o.seg && o.buf);
	n = sofl_gso_segment(gp, p, NULL, 0, &o);
	CHECK(n == (int)need.nsegs);
	free(o.seg);
	free(o.buf);
}

/* SOFL_GSO_F_CSUM_AT with partial checksums: one segment, the input's bytes */
static void
same_partial(const struct sofl_gso_params *gp, const struct sofl_pkt *p)
{
	struct sofl_gso_seg seg;
	struct sofl_gso_out o;
	static uint8_t buf[70000];
	int n;

	memset(&o, 0, sizeof(o));
	o.mode = SOFL_GSO_COPY;
	o.seg = &seg;
	o.seg_cap = 1;
	o.buf = buf;
	o.buf_cap = sizeof(buf);
	n = sofl_gso_segment(gp, p, NULL, 0, &o);
	if (n < 0)
		return;
	CHECK(n == 1 && seg.len <= p->len && memcmp(seg.data, p->data, seg.len) == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sofl_vnet_hdr h, h2;
	struct sofl_gso_params gp;
	struct sofl_pkt p;
	unsigned opts;
	size_t hs, flen;
	uint8_t wire[SOFL_VNET_HDR_TNL_LEN], *f;
	unsigned feat;
	enum sofl_link link;
	int n, chk, tg, perr;

	if (size < 1)
		return 0;
	opts = (data[0] & 1 ? SOFL_VNET_F_NATIVE : 0) | (data[0] & 2 ? SOFL_VNET_F_STRICT : 0);
	hs = data[0] & 4 ? SOFL_VNET_HDR_MRG_LEN : SOFL_VNET_HDR_LEN;
	feat = data[0] & 0x20 ? SOFL_VNET_F_TUNNEL_CSUM : 0;
	if (data[0] & 0x10) {
		hs = SOFL_VNET_HDR_TNL_LEN;
		feat |= SOFL_VNET_F_TUNNEL;
		CHECK(sofl_vnet_decode(&h, data + 1, size - 1, hs, opts | SOFL_VNET_F_NATIVE) ==
		      SOFL_E_INVAL);
		opts &= ~(unsigned)SOFL_VNET_F_NATIVE;
	}
	opts |= feat;
	link = data[0] & 8 ? SOFL_LINK_RAW : SOFL_LINK_ETH;
	data++;
	size--;
	n = sofl_vnet_decode(&h, data, size, hs, opts);
	if (n < 0) {
		CHECK(n == SOFL_E_VNET_SHORT && size < hs);
		return 0;
	}
	CHECK((size_t)n == hs);
	CHECK(sofl_vnet_encode(wire, sizeof(wire), &h, hs, opts) == (int)hs);
	if (hs == SOFL_VNET_HDR_TNL_LEN) {
		static const uint8_t zero[8];

		CHECK(memcmp(wire, data, 12) == 0 && memcmp(wire + 12, zero, 8) == 0 &&
		      memcmp(wire + 20, data + 20, 4) == 0);
	} else {
		CHECK(memcmp(wire, data, hs) == 0);
		CHECK(h.outer_th_offset == 0 && h.inner_nh_offset == 0);
	}

	flen = size - hs;
	f = malloc(flen ? flen : 1);
	CHECK(f);
	memcpy(f, data + hs, flen);
	perr = sofl_pkt_parse(&p, f, flen, link);
	chk = sofl_vnet_check(&h, &p, opts);
	CHECK(chk >= -127 && chk <= 1);
	tg = sofl_vnet_to_gso(&h, &p, opts, &gp);
	if (chk < 0)
		CHECK(tg < 0);
	if (tg >= 0)
		CHECK(chk >= 0);
	/* not tg == chk: for a frame with bytes after the IP packet, check()
	 * counts them as payload (as Linux's skb->len does) and to_gso() does
	 * not, so a header check() calls GSO may pass through */
	if (tg == 1)
		CHECK(chk == 1);
	if (chk >= 0 && (h.gso_type & SOFL_VNET_GSO_UDP_TUNNEL)) {
		CHECK(feat & SOFL_VNET_F_TUNNEL);
		CHECK((h.gso_type & SOFL_VNET_GSO_UDP_TUNNEL) != SOFL_VNET_GSO_UDP_TUNNEL);
		CHECK((h.flags & SOFL_VNET_HDR_F_NEEDS_CSUM) && !(h.flags & SOFL_VNET_HDR_F_DATA_VALID));
		CHECK(h.outer_th_offset >= 34 && h.inner_nh_offset >= h.outer_th_offset + 8 &&
		      h.csum_start >= h.inner_nh_offset + 20);
	}
	if (tg == 1) {
		CHECK(!(gp.type & SOFL_GSO_TUNNEL_IPIP));
		CHECK(!!(gp.type & SOFL_GSO_TUNNEL_MASK) == !!(h.gso_type & SOFL_VNET_GSO_UDP_TUNNEL));
		if (h.gso_type & SOFL_VNET_GSO_UDP_TUNNEL)
			CHECK(SOFL_GSO_INNER(gp.type) ==
			      (h.gso_type & ~(SOFL_GSO_ECN | SOFL_VNET_GSO_UDP_TUNNEL)));
		segment(&gp, &p);
	}
	if (tg == 0 && (gp.flags & SOFL_GSO_F_CSUM_AT)) {
		/* a non-GSO NEEDS_CSUM header: the one checksum it names
		 * (skb_checksum_help), or with partial checksums, unchanged */
		CHECK(gp.type == SOFL_GSO_NONE && (h.flags & SOFL_VNET_HDR_F_NEEDS_CSUM) &&
		      gp.csum_start == h.csum_start && gp.csum_offset == h.csum_offset &&
		      gp.frag_id == 0);
		segment(&gp, &p);
		gp.flags |= SOFL_GSO_F_CSUM_PARTIAL;
		same_partial(&gp, &p);
	}
	if (perr == 0 && (p.layers & SOFL_LAYER_L4) &&
	    sofl_vnet_from_pkt(&h2, &p, h.gso_size, SOFL_VNET_F_MK_CSUM | feat) == 0) {
		CHECK(sofl_vnet_check(&h2, &p, feat) >= 0);
		if (h2.gso_type & SOFL_VNET_GSO_UDP_TUNNEL) {
			struct sofl_vnet_hdr h3;

			CHECK(sofl_vnet_to_gso(&h2, &p, feat, &gp) == 1);
			CHECK(gp.type & (SOFL_GSO_TUNNEL_UDP | SOFL_GSO_TUNNEL_UDP_CSUM));
			CHECK(sofl_vnet_encode(wire, sizeof(wire), &h2, SOFL_VNET_HDR_TNL_LEN, 0) ==
			      SOFL_VNET_HDR_TNL_LEN);
			CHECK(sofl_vnet_decode(&h3, wire, sizeof(wire), SOFL_VNET_HDR_TNL_LEN, 0) ==
			      SOFL_VNET_HDR_TNL_LEN);
			CHECK(memcmp(&h3, &h2, sizeof(h3)) == 0);
		}
	}
	free(f);
	return 0;
}
