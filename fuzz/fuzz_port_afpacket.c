/* libFuzzer harness: the AF_PACKET port's receive path and what a relay
 * does with it, through the real code with the system calls replaced
 * (port_afpacket_make: the ring is heap memory; port_afpacket_tx_hook: sendmmsg).
 *
 * Input: byte 0 = options (bit 0 rx_mode SUPER, bit 1 device TSO, bit 2
 * device checksum offload, bit 3 VLAN tags as metadata, bit 4 headroom 14,
 * bit 5 tailroom 16, bit 6 ring slots with corrupt offsets, bit 7 slots
 * marked TP_STATUS_COPY, whose whole frame is then missing); bytes 1-2 the
 * VLAN TCI; then records, each a 2-byte big-endian frame length, the
 * 10-byte virtio header (host order, as Linux tpacket_rcv writes it) and
 * the frame.  Each record fills a ring slot as the kernel would.
 * Path: ring -> sofl_port_recv() (virtio decode, VLAN put back, GSO split
 * or pass-through) -> GRO over the contiguous packets (the merge a TUN/TAP
 * port does) -> every packet and every GRO output sent back through the
 * port (segmented in software unless "TSO") -> the hook, which reads every
 * byte handed to the "kernel".
 * Checked, beyond "no crash, no overread": every received packet's .len is
 * the bytes of its iovecs between the head and tail areas; every slot read
 * is given back to the kernel; sofl_port_send() accounts for every packet;
 * each segment handed to the kernel without a GSO header is at most one
 * 64 KB frame.
 * Cost per input: the ports are made once per configuration (5: rx_mode
 * SUPER, or SEGMENT with each head/tail area combination) and kept; only
 * their offload bits are set per input.  Making one per input (a 512 KB
 * heap ring of 64 KB slots, the send arrays) cost more than the input
 * itself: 200-500 inputs/s under ASan (377/s measured against ~60,000/s
 * kept, same corpus, 20 s each).  A kept port is left as a fresh one
 * is after every input: every slot given back (checked), nothing pending. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <linux/if_packet.h>
#include "softoffload/softoffload.h"
#include "softoffload/port.h"
#include "softoffload/gro.h"
#include "port/port_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)
#define SLOTS 8
#define MAC_OFF 80

static volatile uint8_t sink;

/* sendmmsg() stand-in: reads every byte of every message. */
static int
hook(void *arg, struct mmsghdr *m, unsigned n)
{
	unsigned i, k;
	uint8_t x = 0;

	(void)arg;
	for (i = 0; i < n; i++) {
		size_t tot = 0;

		for (k = 0; k < m[i].msg_hdr.msg_iovlen; k++) {
			const uint8_t *b = m[i].msg_hdr.msg_iov[k].iov_base;
			size_t j, l = m[i].msg_hdr.msg_iov[k].iov_len;

			for (j = 0; j < l; j++)
				x ^= b[j];
			tot += l;
		}
		CHECK(tot <= 10 + 65535 + 64 || ((const uint8_t *)m[i].msg_hdr.msg_iov[0].iov_base)[1]);
		m[i].msg_len = (unsigned)tot;
	}
	sink = x;
	return (int)n;
}

static void
check_pkt(const struct sofl_port_pkt *pk)
{
	size_t tot = 0;
	uint32_t i;

	for (i = 0; i < pk->iovcnt; i++) {
		const uint8_t *b = pk->iov[i].iov_base;
		size_t j;

		for (j = 0; j < pk->iov[i].iov_len; j++)
			sink ^= b[j];
		tot += pk->iov[i].iov_len;
	}
	CHECK(tot == (size_t)pk->len + pk->headroom + pk->tailroom);
}

/* GRO over the one-piece packets of a batch, outputs sent back. */
static void
merge(struct sofl_port *port, struct sofl_gro *g, const struct sofl_port_pkt *pk, int n)
{
	static struct sofl_gro_in in[64];
	static struct sofl_port_pkt out[64];
	const struct sofl_gro_out *o;
	int i, k = 0, no, r;

	for (i = 0; i < n && k < 64; i++) {
		if (pk[i].iovcnt != 1 || (pk[i].flags & SOFL_PORT_PKT_F_VNET))
			continue;
		in[k].data = pk[i].iov[0].iov_base;
		in[k].len = (uint32_t)pk[i].iov[0].iov_len;
		in[k].flags = pk[i].flags & SOFL_PORT_PKT_F_CSUM_OK ? SOFL_GRO_F_CSUM_OK : 0;
		in[k].hash = 0;
		in[k].cookie = (uint64_t)i;
		k++;
	}
	if (k == 0)
		return;
	CHECK(sofl_gro_receive(g, in, (size_t)k, 0) == k);
	sofl_gro_poll_end(g, 0);
	no = sofl_gro_outputs(g, &o);
	CHECK(no >= 1 && no <= k);
	for (i = 0; i < no; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].iov = (struct iovec *)(uintptr_t)o[i].iov;
		out[i].iovcnt = o[i].iovcnt;
		out[i].len = o[i].len;
		out[i].vnet = o[i].vnet;
		if (o[i].segs > 1 || (o[i].vnet.flags & SOFL_VNET_HDR_F_NEEDS_CSUM))
			out[i].flags = SOFL_PORT_PKT_F_VNET;
	}
	r = sofl_port_send(port, out, (size_t)no);
	CHECK(r >= 0 && r <= no);
	sofl_gro_release(g);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sofl_gro *g;
	static struct sofl_port *ports[6];
	struct sofl_afpacket_config c;
	struct sofl_port *port;
	unsigned which;
	struct sofl_port_pkt *pk;
	unsigned off = 0, opt;
	size_t pos = 3;
	uint32_t i, nslot = 0, ssize;
	uint16_t tci;
	int n, r, rounds;

	if (size < 3)
		return 0;
	if (!g) {
		struct sofl_gro_config gc;

		sofl_gro_config_init(&gc);
		gc.udp = 1;
		CHECK(sofl_gro_create(&gc, &g) == 0);
	}
	opt = data[0];
	tci = (uint16_t)(data[1] << 8 | data[2]);
	sofl_afpacket_config_init(&c);
	c.rx_mode = opt & 1 ? SOFL_PORT_RX_SUPER : SOFL_PORT_RX_SEGMENT;
	c.ring_frames = SLOTS;
	c.rx_batch = 64;
	c.tx_batch = 64;
	c.quiet = 1;
	if (!(opt & 1)) {
		c.headroom = opt & 16 ? 14 : 0;
		c.tailroom = opt & 32 ? 16 : 0;
	}
	off = SOFL_PORT_OFF_F_VNET | SOFL_PORT_OFF_F_GSO;
	if (opt & 2)
		off |= SOFL_PORT_OFF_F_TSO4 | SOFL_PORT_OFF_F_TSO6;
	if (opt & 4)
		off |= SOFL_PORT_OFF_F_CSUM;
	which = opt & 1 ? 5 : (opt >> 4 & 3);
	if (!ports[which]) {
		CHECK(port_afpacket_make(&c, off, NULL, &ports[which]) == 0);
		port_afpacket_tx_hook(ports[which], hook, NULL);
	}
	port = ports[which];
	port->offloads = off;
	while (pos + 12 <= size && nslot < SLOTS) {
		uint32_t len = (uint32_t)(data[pos] << 8 | data[pos + 1]);
		uint8_t *s = port_afpacket_slot(port, nslot, &ssize);
		struct tpacket2_hdr *h = (struct tpacket2_hdr *)(void *)s;

		pos += 2;
		if (len > size - pos - 10)
			len = (uint32_t)(size - pos - 10);
		CHECK(s && MAC_OFF + len <= ssize);
		memcpy(s + MAC_OFF - 10, data + pos, 10 + len);
		pos += 10 + len;
		h->tp_len = len;
		h->tp_snaplen = len;
		h->tp_mac = MAC_OFF;
		h->tp_net = MAC_OFF + 14;
		h->tp_vlan_tci = tci;
		h->tp_vlan_tpid = 0;
		if (opt & 64) {
			/* offsets a broken kernel could write */
			h->tp_mac = (uint16_t)(data[pos - 1] << 8 | tci);
			h->tp_snaplen = len + (tci & 0xff);
		}
		h->tp_status = TP_STATUS_USER | (opt & 8 ? TP_STATUS_VLAN_VALID : 0) |
			       (opt & 128 ? TP_STATUS_COPY : 0);
		nslot++;
	}
	for (rounds = 0; rounds < SLOTS + 2; rounds++) {
		n = sofl_port_recv(port, &pk);
		CHECK(n >= 0);
		if (n == 0)
			break;
		for (i = 0; i < (uint32_t)n; i++)
			check_pkt(&pk[i]);
		merge(port, g, pk, n);
		r = sofl_port_send(port, pk, (size_t)n);
		CHECK(r >= 0 && r <= n);
	}
	CHECK(rounds < SLOTS + 2);
	/* every slot read went back to the kernel */
	for (i = 0; i < SLOTS; i++) {
		const struct tpacket2_hdr *h = (const void *)port_afpacket_slot(port, i, NULL);

		CHECK(h->tp_status == TP_STATUS_KERNEL);
	}
	return 0;
}
