/* Description: the AF_PACKET port's transmit ring (.tx_ring) on a live veth
 * pair in a private network namespace (unshare(CLONE_NEWNET); needs root and
 * the ip(8) tool, else exit 77 with the reason, a failure under
 * SOFL_REQUIRE_ORACLE=1).  Software USO super-packets (virtio UDP_L4
 * headers, contiguous and as header + payload iovecs) go through a ring much
 * smaller than the batch (the ring fills and is flushed mid-batch, the
 * segments that would wrap its end are staged), and a packet socket on the
 * peer checks that every frame arrives exactly once, in order, byte for byte
 * what the GSO engine's copy mode makes of the same super-packet.  A
 * super-packet with more segments than the ring has slots is dropped NOROOM
 * while the others go; frames the kernel refuses (shorter than an Ethernet
 * header: TP_STATUS_WRONG_FORMAT), frames longer than the MTU or than a
 * slot are counted and the frames behind them still arrive. */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include "softoffload/port.h"
#include "softoffload/gso.h"
#include "softoffload/pkt.h"
#include "softoffload/vnet.h"

#define NSUPER	5
#define PAY	61824u		/* the demo's message size */
#define MSS	1472u
#define HDRS	42u
#define MAXF	1024
#define DPORT	9000

static int fails;

#define CHECK(c, ...) do { if (!(c)) { fails++; fprintf(stderr, "FAIL line %d: ", __LINE__); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static uint8_t exp_f[MAXF][2048];
static uint32_t exp_len[MAXF];
static int nexp;

static int
skip(const char *why)
{
	fprintf(stderr, "test_afpacket_txring: skipped: %s\n", why);
	return getenv("SOFL_REQUIRE_ORACLE") && atoi(getenv("SOFL_REQUIRE_ORACLE")) ? 1 : 77;
}

static void
mac_of(const char *ifn, uint8_t mac[6])
{
	char path[128];
	unsigned v[6];
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/sys/class/net/%s/address", ifn);
	memset(mac, 0, 6);
	if (!(f = fopen(path, "r")))
		return;
	if (fscanf(f, "%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) == 6)
		for (i = 0; i < 6; i++)
			mac[i] = (uint8_t)v[i];
	fclose(f);
}

/* Ethernet + IPv4 + UDP header of a super-packet of @pay payload bytes. */
static void
headers(uint8_t *h, const uint8_t dst[6], const uint8_t src[6], uint32_t pay, uint16_t id)
{
	uint32_t tot = 28 + pay;

	memcpy(h, dst, 6);
	memcpy(h + 6, src, 6);
	h[12] = 0x08;
	h[13] = 0x00;
	memset(h + 14, 0, 28);
	h[14] = 0x45;
	h[16] = (uint8_t)(tot >> 8);
	h[17] = (uint8_t)tot;
	h[18] = (uint8_t)(id >> 8);
	h[19] = (uint8_t)id;
	h[20] = 0x40;
	h[22] = 64;
	h[23] = 17;
	h[26] = 198; h[27] = 18; h[28] = 0; h[29] = 1;
	h[30] = 198; h[31] = 18; h[32] = 0; h[33] = 2;
	h[34] = 0x30; h[35] = 0x39;
	h[36] = DPORT >> 8; h[37] = DPORT & 0xff;
	h[38] = (uint8_t)((tot - 20) >> 8);
	h[39] = (uint8_t)(tot - 20);
}

static void
vnet_uso(struct sofl_port_pkt *pk, uint16_t mss)
{
	pk->flags = SOFL_PORT_PKT_F_VNET;
	memset(&pk->vnet, 0, sizeof(pk->vnet));
	pk->vnet.flags = SOFL_VNET_HDR_F_NEEDS_CSUM;
	pk->vnet.gso_type = SOFL_GSO_UDP_L4;
	pk->vnet.hdr_len = HDRS;
	pk->vnet.gso_size = mss;
	pk->vnet.csum_start = 34;
	pk->vnet.csum_offset = 6;
}

/* Does the ring leave L4 checksums partial (the device completes them)? */
static int partial;

/* What the GSO engine's copy mode makes of frame @f (checksums left partial
 * when @partial): appended to exp_f. */
static void
expect(const uint8_t *f, uint32_t len, const struct sofl_vnet_hdr *vh)
{
	static uint8_t buf[256 * 2048];
	static struct sofl_gso_seg seg[256];
	struct sofl_gso_out out = { .mode = SOFL_GSO_COPY, .seg = seg, .seg_cap = 256,
				    .buf = buf, .buf_cap = sizeof(buf) };
	struct sofl_gso_params gp;
	struct sofl_pkt p;
	int n, i;

	if (sofl_pkt_parse(&p, f, len, SOFL_LINK_ETH) < 0 || sofl_vnet_to_gso(vh, &p, 0, &gp) < 0 ||
	    (gp.flags |= partial ? SOFL_GSO_F_CSUM_PARTIAL : 0,
	     n = sofl_gso_segment(&gp, &p, NULL, 0, &out)) < 0) {
		CHECK(0, "reference segmentation failed");
		return;
	}
	for (i = 0; i < n && nexp < MAXF; i++, nexp++) {
		memcpy(exp_f[nexp], seg[i].data, seg[i].len);
		exp_len[nexp] = seg[i].len;
	}
}

static void
expect_plain(const uint8_t *f, uint32_t len)
{
	memcpy(exp_f[nexp], f, len);
	exp_len[nexp++] = len;
}

/* Reads the peer's frames (IPv4 UDP to DPORT) and compares them with
 * exp_f[0..nexp) in order.  @return frames matched. */
static int
receive_check(int rx, const char *what)
{
	static uint8_t f[65536];
	struct pollfd pfd = { .fd = rx, .events = POLLIN };
	int got = 0, bad = 0;
	ssize_t n;

	while (poll(&pfd, 1, 300) > 0) {
		n = recv(rx, f, sizeof(f), MSG_DONTWAIT);
		if (n < 0)
			break;
		if (n < 42 || f[12] != 0x08 || f[13] != 0 || f[23] != 17 ||
		    f[36] != (DPORT >> 8) || f[37] != (DPORT & 0xff))
			continue;	/* not ours (IPv6 neighbour discovery...) */
		if (got >= nexp) {
			CHECK(0, "%s: frame %d more than the %d sent", what, got, nexp);
			got++;
			continue;
		}
		if ((uint32_t)n != exp_len[got] || memcmp(f, exp_f[got], (size_t)n) != 0) {
			if (bad++ < 3)
				CHECK(0, "%s: frame %d differs (len %zd, want %u)", what, got, n,
				      exp_len[got]);
		}
		got++;
	}
	CHECK(got == nexp, "%s: %d frames arrived, %d sent", what, got, nexp);
	return got - bad;
}

/* ethtool tx-checksumming of @ifn on (1) or off (0). */
static int
tx_csum(const char *ifn, int on)
{
	struct ethtool_value ev = { .cmd = ETHTOOL_STXCSUM, .data = (uint32_t)on };
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM, 0), r;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifn);
	ifr.ifr_data = (void *)&ev;
	r = fd < 0 ? -1 : ioctl(fd, SIOCETHTOOL, &ifr);
	if (fd >= 0)
		close(fd);
	return r;
}

static int
setup(void)
{
	FILE *f;

	if (geteuid() != 0)
		return skip("needs root (a network namespace, CAP_NET_RAW)");
	if (unshare(CLONE_NEWNET) < 0)
		return skip("unshare(CLONE_NEWNET) refused");
	if ((f = fopen("/proc/sys/net/ipv6/conf/default/disable_ipv6", "w"))) {
		fputs("1", f);
		fclose(f);
	}
	if (system("ip link add va type veth peer name vb >/dev/null 2>&1 && "
		   "ip link set va up && ip link set vb up") != 0)
		return skip("cannot create a veth pair (ip link add ... type veth)");
	return 0;
}

/* Every case through a port opened on va now (its transmit checksum
 * offload as set: partial). */
static void
ring_cases(int rx, const uint8_t ma[6], const uint8_t mb[6])
{
	static uint8_t big[NSUPER][14 + 28 + PAY];
	static uint8_t plain[4][9100];
	struct sofl_afpacket_config cfg;
	struct sofl_port_stats st;
	struct sofl_port_pkt pk[NSUPER + 1];
	struct iovec iov[NSUPER + 1][2];
	struct sofl_port *port;
	int r, i;
	uint32_t k, segs;

	nexp = 0;
	sofl_afpacket_config_init(&cfg);
	cfg.ifname = "va";
	cfg.ring = 0;
	cfg.tx_ring = 1;
	cfg.tx_ring_frames = 64;	/* five 42-segment super-packets: 210 frames */
	cfg.qdisc_bypass = 1;
	cfg.quiet = 1;
	r = sofl_afpacket_open(&cfg, &port);
	if (r < 0) {
		CHECK(0, "open: %s", sofl_strerror(r));
		return;
	}
	CHECK(sofl_port_offloads(port) & SOFL_PORT_OFF_F_TX_RING, "SOFL_PORT_OFF_F_TX_RING not set");

	/* 1. USO super-packets through a ring smaller than the batch */
	srand(7);
	for (i = 0; i < NSUPER; i++) {
		headers(big[i], mb, ma, PAY, (uint16_t)(100 * i));
		for (k = 0; k < PAY; k++)
			big[i][42 + k] = (uint8_t)rand();
		memset(&pk[i], 0, sizeof(pk[i]));
		vnet_uso(&pk[i], MSS);
		pk[i].len = 42 + PAY;
		if (i % 2) {	/* header + payload iovecs */
			iov[i][0] = (struct iovec){ big[i], 42 };
			iov[i][1] = (struct iovec){ big[i] + 42, PAY };
			pk[i].iovcnt = 2;
		} else {
			iov[i][0] = (struct iovec){ big[i], 42 + PAY };
			pk[i].iovcnt = 1;
		}
		pk[i].iov = iov[i];
		expect(big[i], 42 + PAY, &pk[i].vnet);
	}
	segs = (uint32_t)nexp;
	sofl_port_reset_stats(port);
	r = sofl_port_send(port, pk, NSUPER);
	CHECK(r == NSUPER, "send returned %d", r);
	sofl_port_get_stats(port, &st, sizeof(st));
	CHECK(st.tx_pkts == segs, "tx_pkts %llu, want %u", (unsigned long long)st.tx_pkts, segs);
	CHECK(st.tx_super == NSUPER && st.tx_segs == segs, "tx_super/segs");
	CHECK(st.tx_calls >= 4 && st.tx_calls <= 8, "tx_calls %llu: one send() per full ring",
	      (unsigned long long)st.tx_calls);
	CHECK(st.csum_sw == (partial ? 0 : segs), "csum_sw %llu, want %u (partial %d)",
	      (unsigned long long)st.csum_sw, partial ? 0 : segs, partial);
	receive_check(rx, "uso");

	/* 2. more segments than the ring has slots: NOROOM, the rest goes */
	nexp = 0;
	headers(big[0], mb, ma, 64 * 600 + 100, 1);
	pk[0].len = 42 + 64 * 600 + 100;
	iov[0][0] = (struct iovec){ big[0], pk[0].len };
	pk[0].iovcnt = 1;
	vnet_uso(&pk[0], 600);		/* 65 segments > 64 slots */
	headers(big[1], mb, ma, 3000, 2);
	pk[1].len = 42 + 3000;
	iov[1][0] = (struct iovec){ big[1], pk[1].len };
	pk[1].iovcnt = 1;
	vnet_uso(&pk[1], MSS);
	expect(big[1], pk[1].len, &pk[1].vnet);
	sofl_port_reset_stats(port);
	r = sofl_port_send(port, pk, 2);
	sofl_port_get_stats(port, &st, sizeof(st));
	CHECK(r == 1, "ring too small: send returned %d, want 1", r);
	CHECK(st.tx_drop[SOFL_PORT_DROP_NOROOM] == 1, "NOROOM %llu",
	      (unsigned long long)st.tx_drop[SOFL_PORT_DROP_NOROOM]);
	receive_check(rx, "ring too small");

	/* 3. bad frames counted, the frames behind them still sent */
	nexp = 0;
	for (i = 0; i < 4; i++) {
		headers(plain[i], mb, ma, 200, (uint16_t)(50 + i));
		memset(&pk[i], 0, sizeof(pk[i]));
		pk[i].iov = iov[i];
		pk[i].iovcnt = 1;
	}
	iov[0][0] = (struct iovec){ plain[0], 242 };	/* good */
	iov[1][0] = (struct iovec){ plain[1], 5 };	/* shorter than Ethernet: the kernel
							 * refuses it (WRONG_FORMAT) */
	headers(plain[2], mb, ma, 1700, 52);
	iov[2][0] = (struct iovec){ plain[2], 1742 };	/* past the MTU: TOO_BIG */
	iov[3][0] = (struct iovec){ plain[3], 242 };	/* good */
	pk[4] = pk[3];
	iov[4][0] = (struct iovec){ plain[3], 9000 };	/* larger than a slot */
	pk[4].iov = iov[4];
	for (i = 0; i < 5; i++)
		pk[i].len = (uint32_t)iov[i][0].iov_len;
	expect_plain(plain[0], 242);
	expect_plain(plain[3], 242);
	sofl_port_reset_stats(port);
	r = sofl_port_send(port, pk, 5);
	sofl_port_get_stats(port, &st, sizeof(st));
	CHECK(r == 2, "bad frames: send returned %d, want 2", r);
	CHECK(st.tx_pkts == 2, "tx_pkts %llu", (unsigned long long)st.tx_pkts);
	for (i = 0; i < SOFL_PORT_DROP__MAX; i++)
		if (st.tx_drop[i])
			fprintf(stderr, "  drop[%d] = %llu (errno %d)\n", i, (unsigned long long)st.tx_drop[i], st.last_errno);
	CHECK(st.tx_drop[SOFL_PORT_DROP_MALFORMED] == 1, "MALFORMED %llu, want 1",
	      (unsigned long long)st.tx_drop[SOFL_PORT_DROP_MALFORMED]);
	CHECK(st.tx_drop[SOFL_PORT_DROP_TOO_BIG] == 2, "TOO_BIG %llu, want 2",
	      (unsigned long long)st.tx_drop[SOFL_PORT_DROP_TOO_BIG]);
	receive_check(rx, "bad frames");

	/* 4. the ring goes on after a refused frame; a partial checksum
	 * without GSO (NEEDS_CSUM) is left to the device or completed */
	nexp = 0;
	pk[0] = (struct sofl_port_pkt){ .iov = iov[0], .iovcnt = 1, .len = 42 + 3000 };
	iov[0][0] = (struct iovec){ big[1], 42 + 3000 };
	vnet_uso(&pk[0], MSS);
	expect(big[1], 42 + 3000, &pk[0].vnet);
	headers(plain[0], mb, ma, 200, 77);
	plain[0][40] = 0x12;		/* the pseudo-header sum a sender left */
	plain[0][41] = 0x34;
	pk[1] = (struct sofl_port_pkt){ .iov = iov[1], .iovcnt = 1, .len = 242 };
	iov[1][0] = (struct iovec){ plain[0], 242 };
	vnet_uso(&pk[1], 0);
	pk[1].vnet.gso_type = SOFL_GSO_NONE;
	pk[1].vnet.hdr_len = 0;
	expect(plain[0], 242, &pk[1].vnet);
	r = sofl_port_send(port, pk, 2);
	CHECK(r == 2, "after the refused frames: send returned %d", r);
	receive_check(rx, "after refused");

	sofl_port_close(port);
}

int
main(void)
{
	struct sockaddr_ll ll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	uint8_t ma[6], mb[6];
	int r, rx, rb = 32 << 20;

	if ((r = setup()) != 0)
		return r;
	mac_of("va", ma);
	mac_of("vb", mb);
	rx = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	ll.sll_ifindex = (int)if_nametoindex("vb");
	if (rx < 0 || bind(rx, (struct sockaddr *)&ll, sizeof(ll)) < 0)
		return skip("no packet socket on the peer");
	if (setsockopt(rx, SOL_SOCKET, SO_RCVBUFFORCE, &rb, sizeof(rb)) < 0)
		(void)setsockopt(rx, SOL_SOCKET, SO_RCVBUF, &rb, sizeof(rb));

	/* a veth completes partial checksums (tx-checksumming on): the ring
	 * leaves each segment's UDP checksum partial (NEEDS_CSUM) */
	partial = 1;
	ring_cases(rx, ma, mb);
	/* without it every checksum is completed in software */
	CHECK(tx_csum("va", 0) == 0, "ethtool tx-checksumming off on va: %s", strerror(errno));
	partial = 0;
	ring_cases(rx, ma, mb);

	close(rx);
	if (fails)
		fprintf(stderr, "test_afpacket_txring: %d failures\n", fails);
	else
		printf("test_afpacket_txring: ok\n");
	return fails ? 1 : 0;
}
