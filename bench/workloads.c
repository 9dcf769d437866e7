/* Builders of the DPDK 22.11 anchor workloads (workloads.h). */
#include <string.h>
#include "softoffload/csum.h"
#include "workloads.h"

static const uint8_t mac_dst[6] = { 2, 0, 0, 0, 0, 2 }, mac_src[6] = { 2, 0, 0, 0, 0, 1 };
static const uint8_t ip_src[4] = { 10, 0, 0, 1 }, ip_dst[4] = { 10, 0, 0, 2 };

static uint32_t
isn(uint32_t flow)
{
	return 0x10000000u + flow * 0x01000000u;
}

static void
fill_csums(uint8_t *b, uint32_t pay)
{
	uint8_t *ip = b + 14, *th = b + 34;
	uint32_t l4len = 32 + pay, s;

	sofl_put16(ip + 10, 0);
	sofl_put16(ip + 10, sofl_csum_ipv4_hdr(ip, 20));
	sofl_put16(th + 16, 0);
	s = sofl_csum_pseudo_v4(ip_src, ip_dst, ip[9], l4len);
	sofl_put16(th + 16, (uint16_t)~sofl_csum_fold(sofl_csum_add(s, th, l4len)));
}

/* The TCP/IPv4 frame @b (@pay payload bytes) made a valid UDP datagram
 * of the same size: protocol 17, the TCP header's first 8 bytes the UDP
 * header (the ports kept, its length and checksum), the rest payload. */
static void
wl_udp_retype(uint8_t *b, uint32_t pay)
{
	uint8_t *ip = b + 14, *uh = b + 34;
	uint32_t l4len = 32 + pay, s;

	ip[9] = 17;
	sofl_put16(ip + 10, 0);
	sofl_put16(ip + 10, sofl_csum_ipv4_hdr(ip, 20));
	sofl_put16(uh + 4, (uint16_t)l4len);
	sofl_put16(uh + 6, 0);
	s = sofl_csum_pseudo_v4(ip + 12, ip + 16, 17, l4len);
	s = (uint16_t)~sofl_csum_fold(sofl_csum_add(s, uh, l4len));
	sofl_put16(uh + 6, (uint16_t)(s ? s : 0xffff));
}

size_t
wl_tcp4_frame(uint8_t *b, uint32_t flow, uint32_t seg, uint32_t pay, uint8_t flags)
{
	uint8_t *ip = b + 14, *th = b + 34, *p = b + WL_HDR;
	uint32_t off = seg * WL_MSS, i;

	memcpy(b, mac_dst, 6);
	memcpy(b + 6, mac_src, 6);
	sofl_put16(b + 12, 0x0800);
	memset(ip, 0, 20);
	ip[0] = 0x45;
	sofl_put16(ip + 2, (uint16_t)(20 + 32 + pay));
	sofl_put16(ip + 4, (uint16_t)(0x1000 + flow * 0x100 + seg));
	sofl_put16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = 6;
	memcpy(ip + 12, ip_src, 4);
	memcpy(ip + 16, ip_dst, 4);
	sofl_put16(th, (uint16_t)(40000 + flow));
	sofl_put16(th + 2, 5201);
	sofl_put32(th + 4, isn(flow) + off);
	sofl_put32(th + 8, 0x20000000u);
	th[12] = 8 << 4;
	th[13] = flags;
	sofl_put16(th + 14, 502);
	sofl_put16(th + 16, 0);
	sofl_put16(th + 18, 0);
	th[20] = 1;
	th[21] = 1;
	th[22] = 8;
	th[23] = 10;
	sofl_put32(th + 24, 0x00a00000u + flow);
	sofl_put32(th + 28, 0x00b00000u);
	for (i = 0; i < pay; i++)
		p[i] = (uint8_t)(off + i + 7 * flow);
	fill_csums(b, pay);
	return WL_HDR + pay;
}

void
wl_tcp4_seq_id(uint8_t *b, uint32_t flow, uint32_t seg, int csums)
{
	sofl_put16(b + 14 + 4, (uint16_t)(0x1000 + flow * 0x100 + seg));
	sofl_put32(b + 34 + 4, isn(flow) + seg * WL_MSS);
	if (csums)
		fill_csums(b, sofl_get16(b + 16) - 52u);
}

void
wl_gro_packet(enum wl_gro w, unsigned k, uint32_t *flow, uint32_t *seg, uint8_t *flags)
{
	*flags = WL_F_ACK;
	switch (w) {
	case WL_W2:
		*flow = k % 4;
		*seg = k / 4;
		break;
	case WL_W3:
		*flow = k;
		*seg = 0;
		break;
	case WL_R16:
		*flow = k % 16;
		*seg = k / 16;
		break;
	case WL_W4:
		*flow = 0;
		*seg = k;
		if (k % 8 == 7)
			*flags |= WL_F_PSH;
		break;
	default:
		*flow = 0;
		*seg = k;
		break;
	}
}

void
wl_gro_burst(enum wl_gro w, uint8_t *const bufs[WL_BURST], uint32_t lens[WL_BURST])
{
	uint32_t flow, seg;
	uint8_t flags;
	unsigned k;

	for (k = 0; k < WL_BURST; k++) {
		wl_gro_packet(w, k, &flow, &seg, &flags);
		lens[k] = (uint32_t)wl_tcp4_frame(bufs[k], flow, seg, WL_MSS, flags);
		if (w == WL_X)
			wl_udp_retype(bufs[k], WL_MSS);
	}
}

const char *
wl_gro_name(enum wl_gro w)
{
	static const char *const n[WL__COUNT] = { "W1", "W2", "W3", "W4", "X", "R16" };

	return (unsigned)w < WL__COUNT ? n[w] : "?";
}
