/* Description: the AF_PACKET port without a device: a port whose receive
 * ring is heap memory (port_afpacket_make), slots filled as Linux tpacket_rcv()
 * fills them (tpacket2_hdr, virtio header before the frame), and a hook in
 * place of sendmmsg().  Receive: plain frames handed out in place,
 * DATA_VALID -> CSUM_OK, GSO super-packets cut into wire-size segments with
 * valid checksums and the original payload (SEGMENT) or handed whole
 * (SUPER), partial checksums of frames handed on whole completed in place,
 * VLAN tags put back, truncated / corrupt / invalid-header slots
 * dropped by reason, slots returned to the kernel at the next receive (at
 * once when all were dropped), each slot read once when the ring is full.
 * Send: zero virtio header per frame, super-packets segmented when the
 * device has no TSO and sent whole when it has, a GSO send refused with
 * EINVAL retried as segments (fallback), ENOBUFS on one message counted
 * while the rest go out, partial checksums completed or left to the device. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/if_packet.h>
#include "helpers.h"
#include "helpers_encap.h"
#include "softoffload/port.h"
#include "softoffload/csum.h"
#include "port/port_impl.h"

#define MAC_OFF 80		/* tp_mac as tpacket_rcv() puts it (maclen 14, vnet) */

static const uint8_t mac0[6] = { 2, 0, 0, 0, 0, 1 };

static struct sofl_port *
make(int mode, unsigned offloads)
{
	struct sofl_afpacket_config c;
	struct sofl_port *p = NULL;

	sofl_afpacket_config_init(&c);
	c.rx_mode = mode;
	c.ring_frames = 32;
	c.rx_batch = 128;
	c.tx_batch = 64;
	c.quiet = 1;
	assert_int_equal(port_afpacket_make(&c, offloads, mac0, &p), 0);
	return p;
}

/* Writes frame @f (@len bytes) with virtio header @vh into slot @i. */
static uint8_t *
put_slot(struct sofl_port *p, uint32_t i, const void *f, uint32_t len,
	 const struct sofl_vnet_hdr *vh, uint32_t status, uint16_t tci)
{
	uint32_t size;
	uint8_t *s = port_afpacket_slot(p, i, &size);
	struct tpacket2_hdr *h = (struct tpacket2_hdr *)(void *)s;
	struct sofl_vnet_hdr z;

	assert_non_null(s);
	assert_true(MAC_OFF + len <= size);
	memset(&z, 0, sizeof(z));
	memcpy(s + MAC_OFF, f, len);
	sofl_vnet_encode(s + MAC_OFF - 10, 10, vh ? vh : &z, 10, SOFL_VNET_F_NATIVE);
	h->tp_len = len;
	h->tp_snaplen = len;
	h->tp_mac = MAC_OFF;
	h->tp_net = MAC_OFF + 14;
	h->tp_vlan_tci = tci;
	h->tp_vlan_tpid = 0;
	h->tp_status = TP_STATUS_USER | status;
	return s;
}

static struct t_spec
tcp_spec(int ipv, size_t pay)
{
	struct t_spec s;

	t_spec_init(&s, ipv, 6);
	s.pay_len = pay;
	s.seq = 1000;
	return s;
}

/* Gathers packet @pk into @buf.  @return its length. */
static size_t
gather(const struct sofl_port_pkt *pk, uint8_t *buf, size_t cap)
{
	size_t n = 0;
	uint32_t i;

	for (i = 0; i < pk->iovcnt; i++) {
		assert_true(n + pk->iov[i].iov_len <= cap);
		memcpy(buf + n, pk->iov[i].iov_base, pk->iov[i].iov_len);
		n += pk->iov[i].iov_len;
	}
	return n;
}

/* Checks that segments seg[0..n) of a TCP super-packet built from @s are
 * valid wire packets (parse, checksums) carrying its payload in order. */
static void
check_segments(uint8_t (*seg)[2048], const size_t *len, int n, const struct t_spec *s,
	       uint32_t mss)
{
	size_t off = 0;
	int i;

	for (i = 0; i < n; i++) {
		struct sofl_pkt p;
		enum sofl_csum_state ip, l4;
		uint32_t k;

		assert_int_equal(sofl_pkt_parse(&p, seg[i], len[i], SOFL_LINK_ETH), 0);
		assert_true(p.pay_len <= mss);
		assert_int_equal(p.tcp_seq, s->seq + off);
		sofl_csum_pkt_check(&p, &ip, &l4);
		assert_int_equal(l4, SOFL_CSUM_VALID);
		if (s->ipv == 4)
			assert_int_equal(ip, SOFL_CSUM_VALID);
		for (k = 0; k < p.pay_len; k++)
			assert_int_equal(seg[i][p.pay_off + k], (uint8_t)(s->pay_seed + off + k));
		off += p.pay_len;
	}
	assert_int_equal(off, s->pay_len);
}

static void
test_rx_plain(void **state)
{
	struct sofl_port *p = make(SOFL_PORT_RX_SEGMENT, 0);
	struct sofl_port_pkt *pk;
	struct sofl_vnet_hdr vh;
	struct sofl_port_stats st;
	struct t_spec s = tcp_spec(4, 100);
	uint8_t f[256], *slot0;
	size_t len = t_build(f, sizeof(f), &s);

	(void)state;
	slot0 = put_slot(p, 0, f, (uint32_t)len, NULL, 0, 0);
	memset(&vh, 0, sizeof(vh));
	vh.flags = SOFL_VNET_HDR_F_DATA_VALID;
	put_slot(p, 1, f, (uint32_t)len, &vh, 0, 0);
	assert_int_equal(sofl_port_recv(p, &pk), 2);
	/* in place: the packet is the slot's frame, no copy */
	assert_int_equal(pk[0].iovcnt, 1);
	assert_ptr_equal(pk[0].iov[0].iov_base, slot0 + MAC_OFF);
	assert_int_equal(pk[0].len, len);
	assert_int_equal(pk[0].flags & SOFL_PORT_PKT_F_CSUM_OK, 0);
	assert_int_equal(pk[1].flags & SOFL_PORT_PKT_F_CSUM_OK, SOFL_PORT_PKT_F_CSUM_OK);
	/* still held by us until the next receive, then the kernel's */
	assert_true(((struct tpacket2_hdr *)(void *)slot0)->tp_status & TP_STATUS_USER);
	assert_int_equal(sofl_port_recv(p, &pk), 0);
	assert_int_equal(((struct tpacket2_hdr *)(void *)slot0)->tp_status, TP_STATUS_KERNEL);
	sofl_port_get_stats(p, &st, sizeof(st));
	assert_int_equal(st.rx_pkts, 2);
	assert_int_equal(st.rx_bytes, 2 * len);
	sofl_port_close(p);
}

static void
rx_super_packet(int ipv)
{
	struct sofl_port *p = make(SOFL_PORT_RX_SEGMENT, 0);
	static uint8_t f[70000], seg[64][2048];
	struct sofl_port_pkt *pk;
	struct sofl_vnet_hdr vh;
	struct sofl_port_stats st;
	struct t_spec s = tcp_spec(ipv, 20000);
	struct sofl_pkt q;
	size_t len, sl[64];
	int n, i;

	s.csum = T_CSUM_PARTIAL;
	len = t_build(f, sizeof(f), &s);
	assert_int_equal(sofl_pkt_parse(&q, f, len, SOFL_LINK_ETH), 0);
	assert_int_equal(sofl_vnet_from_pkt(&vh, &q, 1448, SOFL_VNET_F_MK_CSUM), 0);
	put_slot(p, 0, f, (uint32_t)len, &vh, 0, 0);
	n = sofl_port_recv(p, &pk);
	assert_int_equal(n, (20000 + 1447) / 1448);
	for (i = 0; i < n; i++) {
		sl[i] = gather(&pk[i], seg[i], sizeof(seg[i]));
		assert_int_equal(sl[i], pk[i].len);
		assert_int_equal(pk[i].flags & SOFL_PORT_PKT_F_VNET, 0);
	}
	check_segments(seg, sl, n, &s, 1448);
	sofl_port_get_stats(p, &st, sizeof(st));
	assert_int_equal(st.rx_super, 1);
	assert_int_equal(st.rx_segs, (uint64_t)n);
	sofl_port_close(p);
}

static void
test_rx_super_v4(void **state)
{
	(void)state;
	rx_super_packet(4);
}

static void
test_rx_super_v6(void **state)
{
	(void)state;
	rx_super_packet(6);
}

static void
test_rx_super_mode(void **state)
{
	struct sofl_port *p = make(SOFL_PORT_RX_SUPER, 0);
	static uint8_t f[70000];
	struct sofl_port_pkt *pk;
	struct sofl_vnet_hdr vh;
	struct t_spec s = tcp_spec(6, 9000);
	struct sofl_pkt q;
	size_t len;

	(void)state;
	s.csum = T_CSUM_PARTIAL;
	len = t_build(f, sizeof(f), &s);
	assert_int_equal(sofl_pkt_parse(&q, f, len, SOFL_LINK_ETH), 0);
	assert_int_equal(sofl_vnet_from_pkt(&vh, &q, 1428, SOFL_VNET_F_MK_CSUM), 0);
	put_slot(p, 0, f, (uint32_t)len, &vh, 0, 0);
	assert_int_equal(sofl_port_recv(p, &pk), 1);
	assert_int_equal(pk[0].len, len);
	assert_true(pk[0].flags & SOFL_PORT_PKT_F_VNET);
	assert_int_equal(pk[0].vnet.gso_type, SOFL_GSO_TCPV6);
	assert_int_equal(pk[0].vnet.gso_size, 1428);
	assert_memory_equal(pk[0].iov[0].iov_base, f, len);
	sofl_port_close(p);
}

static void
test_rx_super_partial(void **state)
{
	struct sofl_port *p = make(SOFL_PORT_RX_SUPER, 0);
	struct sofl_port_pkt *pk;
	struct sofl_port_stats st;
	struct sofl_vnet_hdr vh;
	struct t_spec s = tcp_spec(6, 1000);
	struct sofl_pkt q;
	uint8_t f[2048], want[2048], *s0;
	size_t len;

	(void)state;
	s.csum = T_CSUM_PARTIAL;
	len = t_build(f, sizeof(f), &s);
	s.csum = T_CSUM_FULL;
	assert_int_equal(t_build(want, sizeof(want), &s), len);
	assert_int_equal(sofl_pkt_parse(&q, f, len, SOFL_LINK_ETH), 0);
	assert_int_equal(sofl_vnet_from_pkt(&vh, &q, 0, SOFL_VNET_F_MK_CSUM), 0);
	s0 = put_slot(p, 0, f, (uint32_t)len, &vh, 0, 0);
	/* a partial checksum handed on whole: completed in place, a plain
	 * packet with a good checksum that GRO can merge */
	assert_int_equal(sofl_port_recv(p, &pk), 1);
	assert_int_equal(pk[0].iovcnt, 1);
	assert_ptr_equal(pk[0].iov[0].iov_base, s0 + MAC_OFF);
	assert_int_equal(pk[0].flags, SOFL_PORT_PKT_F_CSUM_OK);
	assert_memory_equal(pk[0].iov[0].iov_base, want, len);
	sofl_port_get_stats(p, &st, sizeof(st));
	assert_int_equal(st.csum_sw, 1);
	sofl_port_close(p);
}

static void
test_rx_vlan(void **state)
{
	struct sofl_port *p = make(SOFL_PORT_RX_SUPER, 0);
	struct sofl_port_pkt *pk;
	struct sofl_vnet_hdr vh;
	struct t_spec s = tcp_spec(4, 64);
	struct sofl_pkt q;
	uint8_t f[256], g[256];
	size_t len;

	(void)state;
	s.csum = T_CSUM_PARTIAL;
	len = t_build(f, sizeof(f), &s);
	assert_int_equal(sofl_pkt_parse(&q, f, len, SOFL_LINK_ETH), 0);
	assert_int_equal(sofl_vnet_from_pkt(&vh, &q, 0, SOFL_VNET_F_MK_CSUM), 0);
	/* the kernel hands the tag as metadata (TP_STATUS_VLAN_VALID) */
	put_slot(p, 0, f, (uint32_t)len, &vh, TP_STATUS_VLAN_VALID, 0x2005);
	assert_int_equal(sofl_port_recv(p, &pk), 1);
	assert_int_equal(pk[0].len, len + 4);
	assert_int_equal(gather(&pk[0], g, sizeof(g)), len + 4);
	assert_memory_equal(g, f, 12);
	assert_int_equal(g[12], 0x81);
	assert_int_equal(g[13], 0x00);
	assert_int_equal(g[14], 0x20);
	assert_int_equal(g[15], 0x05);
	assert_memory_equal(g + 16, f + 12, len - 12);
	assert_int_equal(pk[0].vnet.csum_start, vh.csum_start + 4);
	sofl_port_close(p);
}

static void
test_rx_drops(void **state)
{
	struct sofl_port *p = make(SOFL_PORT_RX_SEGMENT, 0);
	struct sofl_port_pkt *pk;
	struct sofl_port_stats st;
	struct sofl_vnet_hdr vh;
	struct t_spec s = tcp_spec(4, 3000);
	struct tpacket2_hdr *h;
	uint8_t f[4096];
	size_t len;

	(void)state;
	len = t_build(f, sizeof(f), &s);
	/* 1: truncated by the kernel (snaplen < len) */
	h = (struct tpacket2_hdr *)(void *)put_slot(p, 0, f, (uint32_t)len, NULL, 0, 0);
	h->tp_len = (uint32_t)len + 100;
	/* 2: tp_mac past the slot */
	h = (struct tpacket2_hdr *)(void *)put_slot(p, 1, f, (uint32_t)len, NULL, 0, 0);
	h->tp_mac = 0xfff0;
	/* 3: snaplen running past the slot */
	h = (struct tpacket2_hdr *)(void *)put_slot(p, 2, f, (uint32_t)len, NULL, 0, 0);
	h->tp_snaplen = h->tp_len = 0xffffff;
	/* 4: a GSO header with gso_size 0, which the kernel would refuse */
	memset(&vh, 0, sizeof(vh));
	vh.gso_type = SOFL_GSO_TCPV4;
	put_slot(p, 3, f, (uint32_t)len, &vh, 0, 0);
	/* 5: a good one after them */
	put_slot(p, 4, f, 200, NULL, 0, 0);
	assert_int_equal(sofl_port_recv(p, &pk), 1);
	assert_int_equal(pk[0].len, 200);
	sofl_port_get_stats(p, &st, sizeof(st));
	assert_int_equal(st.rx_drop[SOFL_PORT_DROP_TRUNC], 1);
	assert_int_equal(st.rx_drop[SOFL_PORT_DROP_MALFORMED], 2);
	assert_int_equal(st.rx_drop[SOFL_PORT_DROP_VNET], 1);
	assert_int_equal(st.rx_pkts, 1);
	sofl_port_close(p);
}

static void
test_rx_batch_full(void **state)
{
	struct sofl_afpacket_config c;
	struct sofl_port *p;
	struct sofl_port_pkt *pk;
	struct t_spec s = tcp_spec(4, 100);
	uint8_t f[256];
	size_t len = t_build(f, sizeof(f), &s);
	uint32_t i;

	(void)state;
	sofl_afpacket_config_init(&c);
	c.ring_frames = 32;
	c.rx_batch = 4;
	assert_int_equal(port_afpacket_make(&c, 0, mac0, &p), 0);
	for (i = 0; i < 10; i++) {
		f[len - 1] = (uint8_t)i;
		put_slot(p, i, f, (uint32_t)len, NULL, 0, 0);
	}
	/* 10 frames, batches of 4: 4, 4, 2, in ring order */
	assert_int_equal(sofl_port_recv(p, &pk), 4);
	assert_int_equal(((uint8_t *)pk[3].iov[0].iov_base)[len - 1], 3);
	assert_int_equal(sofl_port_recv(p, &pk), 4);
	assert_int_equal(((uint8_t *)pk[0].iov[0].iov_base)[len - 1], 4);
	assert_int_equal(sofl_port_recv(p, &pk), 2);
	assert_int_equal(((uint8_t *)pk[1].iov[0].iov_base)[len - 1], 9);
	assert_int_equal(sofl_port_recv(p, &pk), 0);
	sofl_port_close(p);
}

static void
test_rx_ring_full(void **state)
{
	struct sofl_afpacket_config c;
	struct sofl_port *p;
	struct sofl_port_pkt *pk;
	struct t_spec s = tcp_spec(4, 100);
	uint8_t f[256], *s0;
	size_t len = t_build(f, sizeof(f), &s);
	uint32_t i;

	(void)state;
	sofl_afpacket_config_init(&c);
	c.ring_frames = 8;
	c.rx_batch = 64;
	assert_int_equal(port_afpacket_make(&c, 0, mac0, &p), 0);
	for (i = 0; i < 8; i++)
		put_slot(p, i, f, (uint32_t)len, NULL, 0, 0);
	/* every slot ready: each read once, not again after the wrap
	 * (held slots are still TP_STATUS_USER) */
	assert_int_equal(sofl_port_recv(p, &pk), 8);
	assert_int_equal(sofl_port_recv(p, &pk), 0);
	/* a batch of frames that are all dropped gives its slots back at once */
	s0 = put_slot(p, 0, f, (uint32_t)len, NULL, 0, 0);
	((struct tpacket2_hdr *)(void *)s0)->tp_len = (uint32_t)len + 1;	/* truncated */
	assert_int_equal(sofl_port_recv(p, &pk), 0);
	assert_int_equal(((struct tpacket2_hdr *)(void *)s0)->tp_status, TP_STATUS_KERNEL);
	sofl_port_close(p);
}

/* ---- send ---- */

struct sent {
	int n;
	uint8_t vh[256][10];
	uint8_t frame[256][2048];
	size_t len[256];
	int fail_at;		/* message index (over all calls) to refuse, -1 none */
	int fail_errno;
	int total;
};

/* sendmmsg() stand-in: records each message, refuses one as asked. */
static int
hook(void *arg, struct mmsghdr *m, unsigned n)
{
	struct sent *s = arg;
	unsigned i, k;

	for (i = 0; i < n; i++, s->total++) {
		const struct msghdr *h = &m[i].msg_hdr;
		size_t off = 0;

		if (s->total == s->fail_at) {
			/* as Linux: the messages before it count, the next
			 * call reports its error */
			if (i > 0)
				return (int)i;
			s->fail_at = -1;
			s->total++;
			errno = s->fail_errno;
			return -1;
		}
		assert_true(s->n < 256);
		assert_true(h->msg_iovlen >= 1);
		assert_int_equal(h->msg_iov[0].iov_len, 10);
		memcpy(s->vh[s->n], h->msg_iov[0].iov_base, 10);
		for (k = 1; k < h->msg_iovlen; k++) {
			assert_true(off + h->msg_iov[k].iov_len <= sizeof(s->frame[0]) ||
				    h->msg_iov[k].iov_len > 2048);
			if (off + h->msg_iov[k].iov_len <= sizeof(s->frame[0]))
				memcpy(s->frame[s->n] + off, h->msg_iov[k].iov_base,
				       h->msg_iov[k].iov_len);
			off += h->msg_iov[k].iov_len;
		}
		s->len[s->n] = off;
		m[i].msg_len = (unsigned)(off + 10);
		s->n++;
	}
	return (int)n;
}

static struct sent *
sent_new(void)
{
	struct sent *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	s->fail_at = -1;
	return s;
}

static int
zero_vh(const uint8_t *vh)
{
	static const uint8_t z[10];

	return memcmp(vh, z, 10) == 0;
}

static void
test_tx_plain(void **state)
{
	struct sofl_port *p = make(SOFL_PORT_RX_SEGMENT, 0);
	struct sent *s = sent_new();
	struct sofl_port_pkt pk[3];
	struct sofl_port_stats st;
	struct iovec v[3][2];
	struct t_spec sp = tcp_spec(4, 500);
	uint8_t f[1024];
	size_t len = t_build(f, sizeof(f), &sp);
	int i;

	(void)state;
	port_afpacket_tx_hook(p, hook, s);
	memset(pk, 0, sizeof(pk));
	for (i = 0; i < 3; i++) {
		/* in two pieces: the port sends iovecs as they are */
		v[i][0] = (struct iovec){ f, 14 };
		v[i][1] = (struct iovec){ f + 14, len - 14 };
		pk[i].iov = v[i];
		pk[i].iovcnt = 2;
		pk[i].len = (uint32_t)len;
	}
	assert_int_equal(sofl_port_send(p, pk, 3), 3);
	assert_int_equal(s->n, 3);
	for (i = 0; i < 3; i++) {
		assert_true(zero_vh(s->vh[i]));
		assert_int_equal(s->len[i], len);
		assert_memory_equal(s->frame[i], f, len);
	}
	sofl_port_get_stats(p, &st, sizeof(st));
	assert_int_equal(st.tx_pkts, 3);
	assert_int_equal(st.tx_calls, 1);
	assert_int_equal(st.tx_bytes, 3 * len);
	sofl_port_close(p);
	free(s);
}

/* A TCP super-packet with its GSO header, as a TAP read gives it. */
static size_t
super_pkt(uint8_t *f, size_t cap, int ipv, size_t pay, struct sofl_port_pkt *pk,
	  struct iovec *v, struct t_spec *sp)
{
	struct sofl_pkt q;
	size_t len;

	*sp = tcp_spec(ipv, pay);
	sp->csum = T_CSUM_PARTIAL;
	len = t_build(f, cap, sp);
	assert_int_equal(sofl_pkt_parse(&q, f, len, SOFL_LINK_ETH), 0);
	memset(pk, 0, sizeof(*pk));
	assert_int_equal(sofl_vnet_from_pkt(&pk->vnet, &q, 1448, SOFL_VNET_F_MK_CSUM), 0);
	v->iov_base = f;
	v->iov_len = len;
	pk->iov = v;
	pk->iovcnt = 1;
	pk->len = (uint32_t)len;
	pk->flags = SOFL_PORT_PKT_F_VNET;
	return len;
}

static void
tx_segmented(int ipv, int pieces)
{
	struct sofl_port *p = make(SOFL_PORT_RX_SEGMENT, SOFL_PORT_OFF_F_VNET | SOFL_PORT_OFF_F_GSO);
	struct sent *s = sent_new();
	static uint8_t f[70000];
	struct sofl_port_pkt pk;
	struct sofl_port_stats st;
	struct t_spec sp;
	struct iovec v[3];
	int i, n;

	port_afpacket_tx_hook(p, hook, s);
	super_pkt(f, sizeof(f), ipv, 30000, &pk, v, &sp);
	if (pieces) {
		/* headers and payload in separate pieces (gathered parse) */
		v[1] = (struct iovec){ f + 100, v[0].iov_len - 100 };
		v[0].iov_len = 100;
		v[2] = (struct iovec){ NULL, 0 };
		pk.iovcnt = 3;
	}
	assert_int_equal(sofl_port_send(p, &pk, 1), 1);
	n = (30000 + 1447) / 1448;
	assert_int_equal(s->n, n);
	for (i = 0; i < n; i++)
		assert_true(zero_vh(s->vh[i]));
	check_segments(s->frame, s->len, n, &sp, 1448);
	sofl_port_get_stats(p, &st, sizeof(st));
	assert_int_equal(st.tx_super, 1);
	assert_int_equal(st.tx_segs, (uint64_t)n);
	assert_int_equal(st.tx_pkts, (uint64_t)n);
	assert_int_equal(st.csum_sw, (uint64_t)n);
	sofl_port_close(p);
	free(s);
}

static void
test_tx_segment_v4(void **state)
{
	(void)state;
	tx_segmented(4, 0);
}

static void
test_tx_segment_v6_pieces(void **state)
{
	(void)state;
	tx_segmented(6, 1);
}

/* A UDP-tunnel super-packet with its 24-byte header's fields, as a TAP with
 * UDP-tunnel GSO hands it over (VXLAN, IPv4 outer without checksum; Geneve,
 * IPv6 outer with it): cut in software into wire-size tunnel segments whose
 * inner and outer checksums and lengths are right. */
static void
test_tx_segment_tunnel(void **state)
{
	static uint8_t f[70000], inner[66000];
	int k;
	(void)state;

	for (k = 0; k < 2; k++) {
		struct sofl_port *p = make(SOFL_PORT_RX_SEGMENT, SOFL_PORT_OFF_F_VNET | SOFL_PORT_OFF_F_GSO);
		struct sent *s = sent_new();
		struct sofl_port_pkt pk;
		struct sofl_port_stats st;
		struct t_spec in, out;
		struct t_encap e;
		struct sofl_pkt q;
		struct iovec v;
		size_t n, len;
		int i, segs = (20000 + 1399) / 1400;

		port_afpacket_tx_hook(p, hook, s);
		t_spec_init(&in, 4, 6);
		in.pay_len = 20000;
		in.csum = T_CSUM_PARTIAL;
		n = t_build(inner, sizeof(inner), &in);
		t_spec_init(&out, k ? 6 : 4, 17);
		out.dport = k ? 6081 : 4789;
		out.udp_zero_csum = 1;
		t_encap_init(&e, k ? SOFL_ENCAP_GENEVE : SOFL_ENCAP_VXLAN, 42);
		len = t_build_encap(f, sizeof(f), &out, &e, inner, n);
		assert_int_equal(sofl_pkt_parse(&q, f, len, SOFL_LINK_ETH), 0);
		if (k) {	/* the outer checksum field holds the pseudo-header sum */
			uint32_t ul = (uint32_t)(len - q.outer_l4_off);

			sofl_put16(f + q.outer_l4_off + 6,
				   sofl_csum_fold(sofl_csum_pseudo_v6(out.src, out.dst, 17, ul)));
			assert_int_equal(sofl_pkt_parse(&q, f, len, SOFL_LINK_ETH), 0);
		}
		memset(&pk, 0, sizeof(pk));
		assert_int_equal(sofl_vnet_from_pkt(&pk.vnet, &q, 1400, SOFL_VNET_F_TUNNEL |
						    SOFL_VNET_F_TUNNEL_CSUM | SOFL_VNET_F_MK_CSUM), 0);
		assert_true(pk.vnet.gso_type & SOFL_VNET_GSO_UDP_TUNNEL);
		v = (struct iovec){ f, len };
		pk.iov = &v;
		pk.iovcnt = 1;
		pk.len = (uint32_t)len;
		pk.flags = SOFL_PORT_PKT_F_VNET;
		assert_int_equal(sofl_port_send(p, &pk, 1), 1);
		assert_int_equal(s->n, segs);
		for (i = 0; i < segs; i++) {
			enum sofl_csum_state ip, l4;
			struct sofl_pkt r;
			uint32_t ul;

			assert_true(zero_vh(s->vh[i]));
			assert_int_equal(sofl_pkt_parse(&r, s->frame[i], s->len[i], SOFL_LINK_ETH), 0);
			assert_true(r.layers & SOFL_LAYER_ENCAP);
			assert_int_equal(r.pay_len, i < segs - 1 ? 1400 : 20000 - 1400 * (segs - 1));
			sofl_csum_pkt_check(&r, &ip, &l4);
			assert_int_equal(l4, SOFL_CSUM_VALID);
			ul = (uint32_t)(s->len[i] - r.outer_l4_off);
			assert_int_equal(sofl_get16(s->frame[i] + r.outer_l4_off + 4), ul);
			if (k) {
				const uint8_t *o6 = s->frame[i] + 14;

				assert_int_equal(sofl_csum_fold(sofl_csum_add(
					sofl_csum_pseudo_v6(o6 + 8, o6 + 24, 17, ul),
					s->frame[i] + r.outer_l4_off, ul)), 0xffff);
			} else {
				assert_int_equal(sofl_get16(s->frame[i] + r.outer_l4_off + 6), 0);
			}
		}
		sofl_port_get_stats(p, &st, sizeof(st));
		assert_int_equal(st.tx_super, 1);
		assert_int_equal(st.tx_segs, (uint64_t)segs);
		assert_int_equal(st.tx_drop[SOFL_PORT_DROP_VNET], 0);
		sofl_port_close(p);
		free(s);
	}
}

static void
test_tx_tso(void **state)
{
	struct sofl_port *p = make(SOFL_PORT_RX_SEGMENT, SOFL_PORT_OFF_F_VNET |
				   SOFL_PORT_OFF_F_TSO4 | SOFL_PORT_OFF_F_TSO6 | SOFL_PORT_OFF_F_CSUM);
	struct sent *s = sent_new();
	static uint8_t f[70000];
	struct sofl_port_pkt pk;
	struct sofl_vnet_hdr h;
	struct t_spec sp;
	struct iovec v;
	size_t len;

	(void)state;
	port_afpacket_tx_hook(p, hook, s);
	len = super_pkt(f, sizeof(f), 4, 1800, &pk, &v, &sp);
	assert_int_equal(sofl_port_send(p, &pk, 1), 1);
	/* the device segments: one message, the GSO header as given */
	assert_int_equal(s->n, 1);
	assert_int_equal(s->len[0], len);
	assert_int_equal(sofl_vnet_decode(&h, s->vh[0], 10, 10, SOFL_VNET_F_NATIVE), 10);
	assert_int_equal(h.gso_type, SOFL_GSO_TCPV4);
	assert_int_equal(h.gso_size, 1448);
	assert_int_equal(h.flags, SOFL_VNET_HDR_F_NEEDS_CSUM);
	sofl_port_close(p);
	free(s);
}

static void
test_tx_tso_refused(void **state)
{
	struct sofl_port *p = make(SOFL_PORT_RX_SEGMENT, SOFL_PORT_OFF_F_VNET | SOFL_PORT_OFF_F_TSO4);
	struct sent *s = sent_new();
	static uint8_t f[70000];
	struct sofl_port_pkt pk;
	struct sofl_port_stats st;
	struct t_spec sp;
	struct iovec v;

	(void)state;
	port_afpacket_tx_hook(p, hook, s);
	super_pkt(f, sizeof(f), 4, 5000, &pk, &v, &sp);
	s->fail_at = 0;
	s->fail_errno = EINVAL;
	assert_int_equal(sofl_port_send(p, &pk, 1), 1);
	assert_int_equal(s->n, 4);	/* sent again as 4 segments */
	check_segments(s->frame, s->len, 4, &sp, 1448);
	sofl_port_get_stats(p, &st, sizeof(st));
	assert_int_equal(st.fallbacks, 1);
	assert_int_equal(sofl_port_offloads(p) & SOFL_PORT_OFF_F_TSO4, 0);
	assert_int_equal(st.tx_drop[SOFL_PORT_DROP_VNET], 0);
	sofl_port_close(p);
	free(s);
}

static void
test_tx_nobufs(void **state)
{
	struct sofl_port *p = make(SOFL_PORT_RX_SEGMENT, 0);
	struct sent *s = sent_new();
	struct sofl_port_pkt pk[5];
	struct sofl_port_stats st;
	struct iovec v[5];
	uint8_t f[5][128];
	int i;

	(void)state;
	port_afpacket_tx_hook(p, hook, s);
	memset(pk, 0, sizeof(pk));
	for (i = 0; i < 5; i++) {
		memset(f[i], i, sizeof(f[i]));
		v[i] = (struct iovec){ f[i], sizeof(f[i]) };
		pk[i].iov = &v[i];
		pk[i].iovcnt = 1;
		pk[i].len = sizeof(f[i]);
	}
	s->fail_at = 2;
	s->fail_errno = ENOBUFS;
	assert_int_equal(sofl_port_send(p, pk, 5), 4);
	assert_int_equal(s->n, 4);
	assert_int_equal(s->frame[2][0], 3);	/* the third one skipped */
	sofl_port_get_stats(p, &st, sizeof(st));
	assert_int_equal(st.tx_drop[SOFL_PORT_DROP_NOBUFS], 1);
	assert_int_equal(st.last_errno, ENOBUFS);
	assert_int_equal(st.tx_pkts, 4);
	sofl_port_close(p);
	free(s);
}

static void
test_tx_partial_csum(void **state)
{
	struct sent *s = sent_new();
	struct sofl_port *p;
	uint8_t f[512], want[512];
	struct sofl_port_pkt pk;
	struct sofl_pkt q;
	struct t_spec sp = tcp_spec(6, 300);
	struct iovec v;
	size_t len;

	(void)state;
	sp.csum = T_CSUM_PARTIAL;
	len = t_build(f, sizeof(f), &sp);
	sp.csum = T_CSUM_FULL;
	assert_int_equal(t_build(want, sizeof(want), &sp), len);
	assert_int_equal(sofl_pkt_parse(&q, f, len, SOFL_LINK_ETH), 0);
	memset(&pk, 0, sizeof(pk));
	assert_int_equal(sofl_vnet_from_pkt(&pk.vnet, &q, 0, SOFL_VNET_F_MK_CSUM), 0);
	v = (struct iovec){ f, len };
	pk.iov = &v;
	pk.iovcnt = 1;
	pk.len = (uint32_t)len;
	pk.flags = SOFL_PORT_PKT_F_VNET;
	/* no device checksum: completed in software, the input untouched */
	p = make(SOFL_PORT_RX_SEGMENT, SOFL_PORT_OFF_F_VNET);
	port_afpacket_tx_hook(p, hook, s);
	assert_int_equal(sofl_port_send(p, &pk, 1), 1);
	assert_int_equal(s->n, 1);
	assert_true(zero_vh(s->vh[0]));
	assert_int_equal(s->len[0], len);
	assert_memory_equal(s->frame[0], want, len);
	sofl_port_close(p);
	/* device checksum: header passed on, bytes as given */
	s->n = 0;
	p = make(SOFL_PORT_RX_SEGMENT, SOFL_PORT_OFF_F_VNET | SOFL_PORT_OFF_F_CSUM);
	port_afpacket_tx_hook(p, hook, s);
	assert_int_equal(sofl_port_send(p, &pk, 1), 1);
	assert_int_equal(s->n, 1);
	assert_false(zero_vh(s->vh[0]));
	assert_memory_equal(s->frame[0], f, len);
	sofl_port_close(p);
	free(s);
}

static void
test_api_args(void **state)
{
	struct sofl_afpacket_config c;
	struct sofl_port *p = NULL;
	uint8_t mac[6];

	(void)state;
	sofl_afpacket_config_init(&c);
	assert_int_equal(sofl_afpacket_open(&c, &p), SOFL_E_CFG_NAME);	/* no ifname */
	assert_int_equal(sofl_afpacket_open(NULL, &p), SOFL_E_INVAL);
	c.ifname = "x";
	c.size = 3;
	assert_int_equal(sofl_afpacket_open(&c, &p), SOFL_E_CFG_SIZE);
	{	/* a newer program's larger struct: a zero tail is accepted, a
		 * field this library does not know refused */
		struct { struct sofl_afpacket_config c; uint8_t more[8]; } big;

		memset(&big, 0, sizeof(big));
		sofl_afpacket_config_init(&big.c);
		big.c.size = sizeof(big);
		assert_int_equal(port_afpacket_make(&big.c, 0, mac0, &p), 0);
		sofl_port_close(p);
		p = NULL;
		big.more[7] = 1;
		assert_int_equal(port_afpacket_make(&big.c, 0, mac0, &p), SOFL_E_CFG_SIZE);
		assert_null(p);
	}
	sofl_afpacket_config_init(&c);
	c.ifname = "soflnosuchif0";
	assert_int_equal(sofl_afpacket_open(&c, &p), SOFL_E_SYS);
	assert_int_equal(errno, ENODEV);
	c.rx_mode = SOFL_PORT_RX_SUPER;
	c.headroom = 14;
	assert_int_equal(sofl_afpacket_open(&c, &p), SOFL_E_CFG_ROOM);
	assert_null(p);
	c.headroom = 0;
	c.rx_mode = 7;
	assert_int_equal(sofl_afpacket_open(&c, &p), SOFL_E_CFG_RX_MODE);
	c.rx_mode = SOFL_PORT_RX_SEGMENT;
	c.ring_frames = 65537;
	assert_int_equal(sofl_afpacket_open(&c, &p), SOFL_E_CFG_BATCH);
	c.ring_frames = 0;	/* 0 = the default: the config passes, the interface does not */
	assert_int_equal(sofl_afpacket_open(&c, &p), SOFL_E_SYS);
	assert_int_equal(errno, ENODEV);
	sofl_afpacket_config_init(&c);
	c.tx_batch = 0;
	c.rx_batch = 0;
	assert_int_equal(port_afpacket_make(&c, 0, NULL, &p), 0);
	sofl_port_close(p);
	c.tx_batch = SOFL_AFPACKET_TX_BATCH_MAX + 1;
	assert_int_equal(port_afpacket_make(&c, 0, NULL, &p), SOFL_E_CFG_BATCH);
	assert_null(p);
	c.tx_batch = 0;
	c.rx_batch = SOFL_AFPACKET_RX_BATCH_MAX + 1;
	assert_int_equal(port_afpacket_make(&c, 0, NULL, &p), SOFL_E_CFG_BATCH);
	c.rx_batch = SOFL_AFPACKET_RX_BATCH_MIN;
	c.ring_frames = 8;
	assert_int_equal(port_afpacket_make(&c, 0, NULL, &p), 0);
	sofl_port_close(p);
	sofl_afpacket_config_init(&c);
	c.ifname = "a-name-that-is-far-too-long-for-ifnamsiz";
	assert_int_equal(sofl_afpacket_open(&c, &p), SOFL_E_CFG_NAME);
	assert_null(p);
	p = make(SOFL_PORT_RX_SEGMENT, 0);
	assert_int_equal(sofl_afpacket_mac(p, mac), 0);
	assert_memory_equal(mac, mac0, 6);
	assert_string_equal(sofl_port_kind(p), "afpacket");
	assert_int_equal(sofl_afpacket_mac(NULL, mac), SOFL_E_INVAL);
	sofl_port_close(p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rx_plain),
		cmocka_unit_test(test_rx_super_v4),
		cmocka_unit_test(test_rx_super_v6),
		cmocka_unit_test(test_rx_super_mode),
		cmocka_unit_test(test_rx_super_partial),
		cmocka_unit_test(test_rx_vlan),
		cmocka_unit_test(test_rx_drops),
		cmocka_unit_test(test_rx_batch_full),
		cmocka_unit_test(test_rx_ring_full),
		cmocka_unit_test(test_tx_plain),
		cmocka_unit_test(test_tx_segment_v4),
		cmocka_unit_test(test_tx_segment_v6_pieces),
		cmocka_unit_test(test_tx_segment_tunnel),
		cmocka_unit_test(test_tx_tso),
		cmocka_unit_test(test_tx_tso_refused),
		cmocka_unit_test(test_tx_nobufs),
		cmocka_unit_test(test_tx_partial_csum),
		cmocka_unit_test(test_api_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
