/* libFuzzer harness: the L2 <-> L3 adapter (l2.h).
 *
 * Input: byte 0 = options (bit 0 the packet has a virtio header, bit 1 its
 * NEEDS_CSUM, bit 2 its DATA_VALID, bit 3 the adapter adopts every address
 * asked for, bit 4 a head area before the frame); bytes 1-2 csum_start and
 * 3-4 hdr_len (little-endian); then the frame received on the Ethernet
 * side, in an exact-size heap buffer.
 * Checked, beyond "no crash, no overread":
 *   - every frame is counted exactly once (passed on, answered or dropped);
 *   - a frame dropped or answered is left as it was;
 *   - one passed on is the same bytes 14 further on, with csum_start
 *     (NEEDS_CSUM) and hdr_len moved as l2.h says;
 *   - a reply is a 42-byte ARP reply or an 86-byte neighbour advertisement
 *     whose ICMPv6 checksum verifies;
 *   - the packet passed on, sent back through sofl_l2_ip_to_eth() with a
 *     head area, gets its Ethernet header (to the frame's source) and the
 *     virtio offsets back. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "softoffload/l2.h"
#include "softoffload/csum.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)
#define HDR 5

static int
adopt(void *ctx, struct sofl_l2 *l2, unsigned ver, const uint8_t *addr)
{
	(void)ctx;
	return ver == 4 ? sofl_l2_set_addrs(l2, addr, 1, NULL, 0) == 0 :
			  sofl_l2_set_addrs(l2, NULL, 0, addr, 1) == 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t mac[6] = { 0x02, 0x53, 0x4f, 0x46, 0x4c, 0x01 };
	struct sofl_l2_config c;
	struct sofl_l2 *l2;
	struct sofl_l2_stats s;
	struct sofl_l2_reply r;
	struct sofl_port_pkt p, q;
	struct iovec v[2], w[2];
	uint8_t head[16], back[SOFL_L2_ETH_HLEN], *f, *copy;
	uint16_t cs, hl;
	size_t len, fi;
	uint64_t sum;
	int verdict, i;

	if (size < HDR)
		return 0;
	len = size - HDR;
	f = malloc(len ? len : 1);
	copy = malloc(len ? len : 1);
	CHECK(f && copy);
	memcpy(f, data + HDR, len);
	memcpy(copy, f, len);
	cs = (uint16_t)(data[1] | data[2] << 8);
	hl = (uint16_t)(data[3] | data[4] << 8);

	sofl_l2_config_init(&c);
	memcpy(c.mac, mac, 6);
	if (data[0] & 8)
		c.miss = adopt;
	CHECK(sofl_l2_create(&c, &l2) == 0);

	memset(&p, 0, sizeof(p));
	fi = 0;
	if (data[0] & 16) {
		v[0].iov_base = head;
		v[0].iov_len = sizeof(head);
		p.headroom = sizeof(head);
		fi = 1;
	}
	v[fi].iov_base = f;
	v[fi].iov_len = len;
	p.iov = v;
	p.iovcnt = (uint32_t)fi + 1;
	p.len = (uint32_t)len;
	if (data[0] & 1) {
		p.flags = SOFL_PORT_PKT_F_VNET;
		p.vnet.flags = (uint8_t)((data[0] & 2 ? SOFL_VNET_HDR_F_NEEDS_CSUM : 0) |
					 (data[0] & 4 ? SOFL_VNET_HDR_F_DATA_VALID : 0));
		p.vnet.csum_start = cs;
		p.vnet.hdr_len = hl;
	}
	q = p;
	verdict = sofl_l2_eth_to_ip(l2, &p, &r);
	CHECK(sofl_l2_get_stats(l2, &s, sizeof(s)) == 0);
	sum = s.ip_out + s.arp_replies + s.nd_adverts;
	for (i = 0; i < SOFL_L2_DROP__MAX; i++)
		sum += s.eth_drop[i];
	CHECK(s.eth_in == 1 && sum == 1);
	CHECK(!memcmp(f, copy, len));			/* never written */

	if (verdict == SOFL_L2_DROP) {
		CHECK(!memcmp(&p, &q, sizeof(p)) && v[fi].iov_base == f && v[fi].iov_len == len);
	} else if (verdict == SOFL_L2_REPLY) {
		CHECK(!memcmp(&p, &q, sizeof(p)) && v[fi].iov_base == f);
		if (r.len == 86) {
			const uint8_t *ip = r.frame + 14;

			CHECK(sofl_csum_ok(sofl_csum_pseudo_v6(ip + 8, ip + 24, 58, 32), ip + 40, 32));
			CHECK(s.nd_adverts == 1);
		} else {
			CHECK(r.len == 42 && s.arp_replies == 1);
		}
		CHECK(!memcmp(r.frame + 6, mac, 6));
	} else {
		CHECK(verdict == SOFL_L2_FORWARD && len >= SOFL_L2_ETH_HLEN);
		CHECK(v[fi].iov_base == f + SOFL_L2_ETH_HLEN && v[fi].iov_len == len - 14);
		CHECK(p.len == len - 14);
		if (data[0] & 1) {
			CHECK(p.vnet.csum_start == (data[0] & 2 ? cs - 14 : cs));
			CHECK(p.vnet.hdr_len == (hl > 14 ? hl - 14 : 0));
		}
		/* and back, as a TUN port's packet with a head area */
		w[0].iov_base = back;
		w[0].iov_len = sizeof(back);
		w[1] = v[fi];
		p.iov = w;
		p.iovcnt = 2;
		p.headroom = sizeof(back);
		verdict = sofl_l2_ip_to_eth(l2, &p);
		if (len > 14 && (f[14] >> 4 == 4 || f[14] >> 4 == 6)) {
			CHECK(verdict == SOFL_L2_FORWARD);
			CHECK(w[0].iov_len == 14 && p.len == len);
			CHECK(!memcmp(back, f + 6, 6) && !memcmp(back + 6, mac, 6));
			if ((data[0] & 3) == 3)
				CHECK(p.vnet.csum_start == cs);
			if (data[0] & 1)
				CHECK(p.vnet.hdr_len == (hl > 14 ? hl : 0));
		} else {
			CHECK(verdict == SOFL_L2_DROP);
		}
	}
	sofl_l2_destroy(l2);
	free(f);
	free(copy);
	return 0;
}
