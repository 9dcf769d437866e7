/* libFuzzer harness: softoffload tunnel's receive path for --encap ip,
 * vxlan and geneve (tools/tunnel_hdr.c), as tools/tunnel_path.c runs it.
 *
 * Input: byte 0 = mode (bits 0-1: 0 ip, 1 vxlan, 2 geneve with Ethernet,
 * 3 geneve with IP; bit 2: "checksums known good", as the tunnel sets when
 * the outer checksum was required), bytes 1-2 = the UDP_GRO gso_size the
 * kernel reported (little endian; 0 = none); then the received buffer
 * (exact-size heap copy).  VNI 42.
 * Path: port_udp_rx_buf() (the UDP port's split) -> tn_rx_check() on every
 * datagram -> the accepted ones, header stripped in place, handed to a TAP
 * (Ethernet inside) or TUN (IP inside) port on /dev/null (GRO, virtio
 * headers, writev); their inner source MACs learned and looked up.
 * Checked: every datagram is accepted or dropped with a reason in range;
 * an accepted one's header lies inside it, its inner packet is at least an
 * Ethernet header (or a whole IP packet of its own length); a VXLAN header
 * accepted is byte for byte the one tn_hdr_build() makes; a MAC learned is
 * found behind its remote; the send accounts for every packet. */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include "softoffload/softoffload.h"
#include "softoffload/bytes.h"
#include "port/port_impl.h"
#include "../tools/tunnel_hdr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

static struct sofl_port *udp, *tap, *tun;
static struct sofl_port_pkt in[4096];
static struct tn_mac_table macs;

static void
setup(void)
{
	static struct sockaddr_in peer = { .sin_family = AF_INET };
	struct sofl_udp_config uc;
	struct sofl_tun_config tc;

	sofl_udp_config_init(&uc);
	uc.remote = (const struct sockaddr *)&peer;
	uc.remote_len = sizeof(peer);
	uc.rx_buf = 65536;
	CHECK(port_udp_make(&uc, -1, SOFL_PORT_OFF_F_UDP_GRO, &udp) == 0);
	sofl_tun_config_init(&tc);
	tc.quiet = 1;
	CHECK(port_tun_make(&tc, open("/dev/null", O_WRONLY), SOFL_PORT_OFF_F_CSUM |
			    SOFL_PORT_OFF_F_USO, "fuzz", &tun) == 0);
	tc.tap = 1;
	CHECK(port_tun_make(&tc, open("/dev/null", O_WRONLY), SOFL_PORT_OFF_F_CSUM |
			    SOFL_PORT_OFF_F_TSO4 | SOFL_PORT_OFF_F_TSO6 | SOFL_PORT_OFF_F_USO,
			    "fuzz", &tap) == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tn_rx_rule r = { .vni = 42 };
	struct sofl_port_pkt *pk;
	size_t len, hl;
	uint8_t *buf, h[8];
	int gso, n, i, k = 0, sent, why;

	if (size < 3 || size - 3 > 65536)
		return 0;
	if (!udp)
		setup();
	r.encap = (data[0] & 3) == 0 ? TN_ENCAP_IP : (data[0] & 3) == 1 ? TN_ENCAP_VXLAN :
		  TN_ENCAP_GENEVE;
	r.inner_eth = (data[0] & 3) == 1 || (data[0] & 3) == 2;
	gso = data[1] | data[2] << 8;
	len = size - 3;
	buf = malloc(len ? len : 1);
	CHECK(buf);
	memcpy(buf, data + 3, len);
	n = port_udp_rx_buf(udp, &pk, buf, len, gso);
	CHECK(n >= 1);
	for (i = 0; i < n; i++) {
		struct iovec *v = &pk[i].iov[0];
		const uint8_t *b = v->iov_base;

		why = tn_rx_check(&r, b, v->iov_len, &hl);
		CHECK(why >= -1 && why < TN_DROP__MAX);
		if (why >= 0)
			continue;
		CHECK(hl <= v->iov_len);
		if (r.encap == TN_ENCAP_VXLAN) {
			CHECK(hl == TN_VXLAN_HLEN && tn_hdr_build(r.encap, 42, 0, h) == 8);
			CHECK(!memcmp(h, b, 8));
		}
		if (r.encap == TN_ENCAP_GENEVE)
			CHECK(hl >= TN_GENEVE_HLEN && (b[1] & 0xc0) == 0 && (sofl_get32(b + 4) >> 8) == 42);
		v->iov_base = (uint8_t *)v->iov_base + hl;
		v->iov_len -= hl;
		pk[i].len -= (uint32_t)hl;
		b = v->iov_base;
		if (r.inner_eth) {
			CHECK(v->iov_len >= 14);
			tn_mac_learn(&macs, b + 6, (unsigned)i % 3);
			CHECK((b[6] & 1) || tn_mac_lookup(&macs, b + 6) == i % 3);
		} else {
			CHECK(v->iov_len >= 20 && ((b[0] >> 4) == 4 || (b[0] >> 4) == 6));
			CHECK((b[0] >> 4) == 4 ? sofl_get16(b + 2) == v->iov_len :
			      sofl_get16(b + 4) + 40u == v->iov_len);
		}
		in[k] = pk[i];
		in[k].addr = NULL;
		if (data[0] & 4)
			in[k].flags |= SOFL_PORT_PKT_F_CSUM_OK;
		k++;
	}
	sent = sofl_port_send(r.inner_eth ? tap : tun, in, (size_t)k);
	CHECK(sent >= 0 && sent <= k);
	free(buf);
	return 0;
}
