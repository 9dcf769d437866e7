/* bench_port_rx: what a TUN port's receive costs per 64 KB TSO super-packet
 * (IPv4/TCP, 45 segments of 1448 bytes, NEEDS_CSUM, as a TUN with TSO hands
 * it over), without the read() system call (port_tun_rx_buf(), the entry
 * point the unit tests use):
 *   segment       rx_mode SEGMENT: zero copy, each segment's headers in the
 *                 port's scratch and its payload an iovec into the read
 *                 buffer, the TCP checksum summed over the payload in place;
 *   contig        rx_mode CONTIG with a 12-byte head and 16-byte tail area
 *                 (a VPN's header and AEAD tag): each segment copied into
 *                 one piece, the checksum computed in the same pass (GSO's
 *                 fused copy+checksum);
 *   segment+copy  SEGMENT, then the caller gathers each segment into a
 *                 buffer of its own (what a one-buffer AEAD needs without
 *                 CONTIG): checksum pass and copy pass separate.
 * Reports ns per super-packet and GB/s of payload (median of the reps); the
 * difference contig - segment is the price of one contiguous piece. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "softoffload/port.h"
#include "softoffload/vnet.h"
#include "port/port_impl.h"
#include "util.h"

#define MSS	1448
#define NSEG	45
#define PAY	(MSS * NSEG)
#define REPS_MAX 64

static uint8_t buf[12 + 40 + PAY];
static uint8_t gathered[2048];

static void
frame_init(void)
{
	struct sofl_vnet_hdr h;
	uint8_t *ip = buf + 12, *tcp = ip + 20;

	memset(&h, 0, sizeof(h));
	h.flags = SOFL_VNET_HDR_F_NEEDS_CSUM;
	h.gso_type = SOFL_GSO_TCPV4;
	h.gso_size = MSS;
	h.hdr_len = 40;
	h.csum_start = 20;
	h.csum_offset = 16;
	sofl_vnet_encode(buf, 12, &h, 12, 0);
	memset(ip, 0, 40);
	ip[0] = 0x45;
	ip[2] = (uint8_t)((40 + PAY) >> 8);
	ip[3] = (uint8_t)(40 + PAY);
	ip[8] = 64;
	ip[9] = 6;
	memcpy(ip + 12, "\xc6\x12\x28\x01\xc6\x12\x28\x02", 8);
	tcp[0] = 0x9c;
	tcp[1] = 0x40;
	tcp[2] = 0x14;
	tcp[3] = 0x51;
	tcp[12] = 5 << 4;
	tcp[13] = 0x18;		/* ACK, PSH */
	tcp[14] = 0xff;
	bench_fill_random(tcp + 20, PAY, 23);
}

/* One row: @iters receives of the super-packet in @mode. */
static void
run(const char *name, enum sofl_port_rx_mode mode, int copy, int reps, long iters)
{
	double ns[REPS_MAX], gbs[REPS_MAX];
	struct sofl_tun_config c;
	struct sofl_port *port;
	struct sofl_port_pkt *pk;
	uint64_t sink = 0;
	int r, n, k;
	long i;

	sofl_tun_config_init(&c);
	c.rx_mode = mode;
	if (mode == SOFL_PORT_RX_CONTIG) {
		c.headroom = 12;
		c.tailroom = 16;
	}
	if (port_tun_make(&c, -1, SOFL_PORT_OFF_F_CSUM | SOFL_PORT_OFF_F_TSO4, "bench", &port) < 0) {
		fprintf(stderr, "bench_port_rx: port_tun_make failed\n");
		exit(1);
	}
	for (r = 0; r < reps; r++) {
		uint64_t t0 = bench_ns();

		for (i = 0; i < iters; i++) {
			n = port_tun_rx_buf(port, &pk, buf, sizeof(buf));
			if (n != NSEG) {
				fprintf(stderr, "bench_port_rx: %s: %d segments\n", name, n);
				exit(1);
			}
			for (k = 0; copy && k < n; k++) {
				size_t off = 0;

				for (uint32_t v = 0; v < pk[k].iovcnt; v++) {
					memcpy(gathered + off, pk[k].iov[v].iov_base,
					       pk[k].iov[v].iov_len);
					off += pk[k].iov[v].iov_len;
				}
				sink += gathered[off - 1];
			}
			sink += pk[n - 1].len;
		}
		ns[r] = (double)(bench_ns() - t0) / (double)iters;
		gbs[r] = PAY / ns[r];
	}
	bench_sink(sink);
	sofl_port_close(port);
	bench_report("port_rx", name, "ns_per_64k", "ns", ns, reps);
	bench_report("port_rx", name, "payload_GBps", "GB/s", gbs, reps);
}

int
main(int argc, char **argv)
{
	int reps = bench_reps_args(argc, argv, 15, REPS_MAX);
	const char *sc = getenv("SOFL_BENCH_SCALE");
	long iters = (long)(2000 * (sc ? atof(sc) : 1.0));

	if (iters < 1)
		iters = 1;
	frame_init();
	run("segment", SOFL_PORT_RX_SEGMENT, 0, reps, iters);
	run("contig", SOFL_PORT_RX_CONTIG, 0, reps, iters);
	run("segment+copy", SOFL_PORT_RX_SEGMENT, 1, reps, iters);
	return 0;
}
