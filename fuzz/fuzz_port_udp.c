/* libFuzzer harness: the UDP port's receive path, as the tunnel uses it.
 *
 * Input: bytes 0-1 = the UDP_GRO gso_size the kernel reported (little
 * endian; 0 = none), byte 2 = options (bit 0 "checksums known good", as the
 * tunnel's default); then the received buffer (exact-size heap copy).
 * Path: port_udp_rx_buf() (the code sofl_port_recv() runs on each message:
 * the split by gso_size) -> every datagram that starts like an IP packet
 * handed to a TUN port on /dev/null (GRO, virtio headers, writev), as
 * softoffload tunnel does.
 * Checked: the datagrams tile the buffer exactly, in order, each of
 * gso_size bytes but the last (or the rest is counted as a no-room drop:
 * the kernel's UDP_GRO never coalesces more than 64, the port holds 64 per
 * buffer); the send accounts for every packet. */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include "softoffload/softoffload.h"
#include "port/port_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

static struct sofl_port *udp, *tun;
static struct sofl_port_pkt in[4096];

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
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sofl_port_stats s0, s1;
	struct sofl_port_pkt *pk;
	size_t len, off = 0;
	uint8_t *buf;
	int gso, n, i, k = 0, sent;

	if (size < 3 || size - 3 > 65536)
		return 0;
	if (!udp)
		setup();
	gso = data[0] | data[1] << 8;
	len = size - 3;
	buf = malloc(len ? len : 1);
	CHECK(buf);
	memcpy(buf, data + 3, len);
	sofl_port_get_stats(udp, &s0, sizeof(s0));
	n = port_udp_rx_buf(udp, &pk, buf, len, gso);
	sofl_port_get_stats(udp, &s1, sizeof(s1));
	CHECK(n >= 1);
	for (i = 0; i < n; i++) {
		CHECK(pk[i].iovcnt == 1 && pk[i].iov[0].iov_base == buf + off);
		CHECK(pk[i].len == pk[i].iov[0].iov_len);
		if (i < n - 1)
			CHECK(gso > 0 && pk[i].len == (uint32_t)gso);
		off += pk[i].len;
		if (pk[i].len >= 20 && ((buf[off - pk[i].len] >> 4) == 4 ||
					(buf[off - pk[i].len] >> 4) == 6)) {
			in[k] = pk[i];
			if (data[2] & 1)
				in[k].flags |= SOFL_PORT_PKT_F_CSUM_OK;
			k++;
		}
	}
	/* all of it, unless more datagrams than the batch holds (counted) */
	CHECK(off == len || s1.rx_drop[SOFL_PORT_DROP_NOROOM] > s0.rx_drop[SOFL_PORT_DROP_NOROOM]);
	sent = sofl_port_send(tun, in, (size_t)k);
	CHECK(sent >= 0 && sent <= k);
	free(buf);
	return 0;
}
