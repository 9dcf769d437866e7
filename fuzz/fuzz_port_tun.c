/* libFuzzer harness: the TUN/TAP port's receive path and its write path.
 *
 * Input: byte 0 = options (bit 0 TAP (Ethernet) else TUN (raw IP), bit 1
 * rx mode SUPER, bit 2 head/tail areas of 24/16 bytes (bits 1 and 2: rx
 * mode CONTIG with them), bit 3 write back
 * without "checksum known good", bit 4 UDP-tunnel GSO negotiated: on a
 * TAP the 24-byte header, VXLAN/Geneve super-packets read and written
 * whole; a TUN does not take it, the 12-byte header stays);
 * then what a read() of a TUN with IFF_VNET_HDR returns: the 12- (or 24-)
 * byte virtio header and the frame (in an exact-size heap buffer, so an
 * overread is caught).
 * Path: port_tun_rx_buf() (the code sofl_port_recv() runs on each read:
 * header checks, GSO cut, checksums) -> the packets handed to a second port
 * on /dev/null with sofl_port_send() (GRO, virtio headers, writev).
 * Checked, beyond "no crash, no overread":
 *   - every packet's iovecs hold exactly .len bytes plus its head/tail areas;
 *   - in SEGMENT and CONTIG mode, a packet cut from a GSO frame parses and
 *     its TCP/UDP checksum verifies (the wire must carry valid packets);
 *   - in CONTIG mode, a packet is one piece adjacent to its areas;
 *   - the send accounts for every packet (sent + dropped).
 * Bit 5: the send goes to a port with held sends (a flush timeout of 1 s:
 * flows stay held across inputs, their packets copied into the port while
 * the input buffer is freed after each input, so a reference kept to it is
 * a use after free); bit 6 then flushes everything after the send.
 * Checked there: what the sends took is what was written plus what is held. */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "softoffload/softoffload.h"
#include "softoffload/csum.h"
#include "port/port_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

static struct sofl_port *rx[16], *tx[4], *txh[4];
static uint64_t taken[4];
static uint8_t flat[70000];

static struct sofl_port *
make(unsigned opts, int fd)
{
	struct sofl_tun_config c;
	struct sofl_port *p;

	sofl_tun_config_init(&c);
	c.tap = opts & 1;
	c.rx_mode = (opts & 6) == 6 ? SOFL_PORT_RX_CONTIG :
		    opts & 2 ? SOFL_PORT_RX_SUPER : SOFL_PORT_RX_SEGMENT;
	if (opts & 4) {
		c.headroom = 24;
		c.tailroom = 16;
	}
	c.rx_reads = 1;
	c.quiet = 1;
	CHECK(port_tun_make(&c, fd, SOFL_PORT_OFF_F_CSUM | SOFL_PORT_OFF_F_TSO4 |
			    SOFL_PORT_OFF_F_TSO6 | SOFL_PORT_OFF_F_USO |
			    (opts & 16 ? SOFL_PORT_OFF_F_UDP_TNL | SOFL_PORT_OFF_F_UDP_TNL_CSUM : 0),
			    "fuzz", &p) == 0);
	CHECK(!!(sofl_port_offloads(p) & SOFL_PORT_OFF_F_UDP_TNL) == ((opts & 16) && (opts & 1)));
	return p;
}

static void
check_pkt(const struct sofl_port_pkt *pk, int link, int cut, int contig)
{
	uint32_t i, first = pk->headroom ? 1 : 0, last = pk->iovcnt - (pk->tailroom ? 1 : 0);
	enum sofl_csum_state ip, l4;
	struct sofl_pkt p;
	size_t n = 0;

	CHECK(pk->iovcnt >= first + (pk->tailroom ? 1u : 0u));
	if (pk->headroom)
		CHECK(pk->iov[0].iov_len == pk->headroom);
	if (pk->tailroom)
		CHECK(pk->iov[pk->iovcnt - 1].iov_len == pk->tailroom);
	for (i = first; i < last; i++) {
		CHECK(n + pk->iov[i].iov_len <= sizeof(flat));
		memcpy(flat + n, pk->iov[i].iov_base, pk->iov[i].iov_len);
		n += pk->iov[i].iov_len;
	}
	CHECK(n == pk->len);
	if (contig) {
		CHECK(last - first == 1);
		CHECK((uint8_t *)pk->iov[0].iov_base + pk->headroom == pk->iov[1].iov_base);
		CHECK((uint8_t *)pk->iov[1].iov_base + pk->len == pk->iov[2].iov_base);
	}
	if (!cut)
		return;
	CHECK(sofl_pkt_parse(&p, flat, n, (enum sofl_link)link) == 0);
	sofl_csum_pkt_check(&p, &ip, &l4);
	CHECK(l4 == SOFL_CSUM_VALID || l4 == SOFL_CSUM_ABSENT || l4 == SOFL_CSUM_NONE);
	CHECK(ip == SOFL_CSUM_VALID || ip == SOFL_CSUM_NONE);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sofl_port_stats s0, s1;
	struct sofl_port_pkt *pk;
	unsigned opts, ri, ti;
	uint8_t *buf;
	int n, i, link, cut, sent;

	if (size < 1)
		return 0;
	opts = data[0] & 31;
	ri = (opts & 7) | (opts & 16) >> 1;	/* receive port: TAP, SUPER, areas, tunnel */
	ti = (opts & 1) | (opts & 16) >> 3;	/* send port: TAP, tunnel */
	if (!rx[ri]) {
		int fd = open("/dev/null", O_WRONLY);

		CHECK(fd >= 0);
		rx[ri] = make(opts & 23, dup(fd));
		if (!tx[ti])
			tx[ti] = make(opts & 17, dup(fd));
		close(fd);
	}
	if ((data[0] & 32) && !txh[ti]) {
		int fd = open("/dev/null", O_WRONLY);

		CHECK(fd >= 0);
		txh[ti] = make(opts & 17, fd);
		CHECK(sofl_port_set_flush_timeout(txh[ti], 1000000) == 0);
	}
	link = opts & 1 ? SOFL_LINK_ETH : SOFL_LINK_RAW;
	buf = malloc(size - 1 ? size - 1 : 1);
	CHECK(buf);
	memcpy(buf, data + 1, size - 1);
	sofl_port_get_stats(rx[ri], &s0, sizeof(s0));
	n = port_tun_rx_buf(rx[ri], &pk, buf, size - 1);
	CHECK(n >= 0);
	sofl_port_get_stats(rx[ri], &s1, sizeof(s1));
	cut = s1.rx_super > s0.rx_super && (opts & 6) != 2;
	for (i = 0; i < n; i++) {
		check_pkt(&pk[i], link, cut, (opts & 6) == 6);
		if (opts & 8)
			pk[i].flags &= ~SOFL_PORT_PKT_F_CSUM_OK;
	}
	if (data[0] & 32) {
		struct sofl_port *hp = txh[ti];
		uint64_t d;

		sent = sofl_port_send(hp, pk, (size_t)n);
		CHECK(sent >= 0 && sent <= n);
		taken[ti] += (uint64_t)sent;
		if (data[0] & 64) {
			CHECK(sofl_port_flush(hp, SOFL_PORT_FLUSH_ALL) >= 0);
			CHECK(sofl_port_next_deadline(hp, &d) == 0);
		}
		sofl_port_get_stats(hp, &s1, sizeof(s1));
		/* /dev/null takes every write: nothing dropped after the take */
		CHECK(s1.tx_pkts + sofl_gro_held(hp->gro) == taken[ti]);
		free(buf);
		return 0;
	}
	sofl_port_get_stats(tx[ti], &s0, sizeof(s0));
	sent = sofl_port_send(tx[ti], pk, (size_t)n);
	CHECK(sent >= 0 && sent <= n);
	sofl_port_get_stats(tx[ti], &s1, sizeof(s1));
	CHECK(s1.tx_pkts - s0.tx_pkts == (uint64_t)sent);
	free(buf);
	return 0;
}
