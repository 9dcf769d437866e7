/*
 * The AF_PACKET port's transmit ring (config .tx_ring): PACKET_TX_RING with
 * TPACKET_V2 on a second packet socket bound to the same interface.  The
 * GSO engine's copy mode (payload copied and checksummed in one pass)
 * writes each segment straight into its ring slot; one send() hands every
 * slot marked TP_STATUS_SEND_REQUEST to the kernel, which builds its skbs
 * from the ring's pages (net/packet/af_packet.c tpacket_snd(),
 * tpacket_fill_skb()) instead of one sendmsg() per frame.
 *
 * The kernel walks the ring from its own head and stops at the first slot
 * that is not SEND_REQUEST.  A frame it refuses (tpacket_parse_header(),
 * dev_validate_header(): TP_STATUS_WRONG_FORMAT) or fails to send stays at
 * that head: it is counted, and the frames queued behind it move down one
 * slot so the next send() goes on from there.  A blocking send() returns
 * once every frame has left (its skb destructor, tpacket_destruct_skb(),
 * set the slot back to TP_STATUS_AVAILABLE).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

#include "softoffload/error.h"
#include "softoffload/vnet.h"
#include "gso/gso_room.h"
#include "port_impl.h"
#include "afpacket_txring.h"

/* where a TPACKET_V2 frame's data starts without PACKET_TX_HAS_OFF
 * (tpacket_parse_header(): tp_hdrlen - sizeof(struct sockaddr_ll)) */
#define TXR_DATA	TPACKET_ALIGN(sizeof(struct tpacket2_hdr))
#define TXR_STAGE_MAX	512u	/* segments of one packet that may wrap the ring */
/* Each frame follows a virtio header (PACKET_VNET_HDR on the ring's socket)
 * whose hdr_len is the whole frame: tpacket_snd() copies hdr_len bytes into
 * the skb's linear part (copylen) and attaches the rest as fragments of the
 * ring's pages.  Measured on a veth (bench_udpgso -R, software USO): frames
 * left as ring page fragments (hdr_len = the headers only) cost 20% more
 * CPU per byte than frames copied whole, which also free the slot at once
 * (no page reference held downstream). */
#define TXR_VH		10u
#define TXR_FRAME	(TXR_DATA + TXR_VH)	/* the frame's offset in its slot */

static struct tpacket2_hdr *
txr_slot(const struct afp_txr *t, uint32_t i)
{
	return (struct tpacket2_hdr *)(void *)(t->ring + (size_t)i * t->fsize);
}

static uint32_t
txr_status(const struct tpacket2_hdr *h)
{
	return __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
}

static void
txr_set_status(struct tpacket2_hdr *h, uint32_t st)
{
	__atomic_store_n(&h->tp_status, st, __ATOMIC_RELEASE);
}

int
afp_txr_open(struct afp_txr *t, struct sofl_port *base, int ifindex, uint32_t frames,
	     uint32_t mtu, int bypass, int sndbuf)
{
	struct tpacket_req req;
	struct sockaddr_ll sll;
	long page = sysconf(_SC_PAGESIZE);
	uint32_t need = (uint32_t)TXR_FRAME + mtu + 18, fs = page > 0 ? (uint32_t)page : 4096;
	int v = TPACKET_V2, one = 1;

	t->base = base;
	t->fd = -1;
	/* one slot per block: any slot count is a valid ring */
	while (fs < need)
		fs <<= 1;
	t->fsize = fs;
	t->room = fs - (uint32_t)TXR_FRAME;
	t->mtu = mtu;
	t->frames = frames;
	t->stage_segs = frames < TXR_STAGE_MAX ? frames : TXR_STAGE_MAX;
	t->in = calloc(frames, sizeof(*t->in));
	t->seg = calloc(frames, sizeof(*t->seg));
	t->stage = malloc((size_t)t->stage_segs * fs);
	if (!t->in || !t->seg || !t->stage)
		return SOFL_E_NOMEM;
	t->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (t->fd < 0)
		return SOFL_E_SYS;
	if (setsockopt(t->fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)) < 0)
		return SOFL_E_SYS;
	if (bypass && setsockopt(t->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)) < 0)
		return SOFL_E_SYS;
	if (setsockopt(t->fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) < 0)
		return SOFL_E_SYS;
	if (sndbuf > 0 &&
	    setsockopt(t->fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)) < 0 &&
	    setsockopt(t->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)) < 0)
		return SOFL_E_SYS;
	memset(&req, 0, sizeof(req));
	req.tp_block_size = fs;
	req.tp_frame_size = fs;
	req.tp_block_nr = frames;
	req.tp_frame_nr = frames;
	if (setsockopt(t->fd, SOL_PACKET, PACKET_TX_RING, &req, sizeof(req)) < 0)
		return SOFL_E_SYS;
	t->ring_len = (size_t)frames * fs;
	t->ring = mmap(NULL, t->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, 0);
	if (t->ring == MAP_FAILED) {
		t->ring = NULL;
		return SOFL_E_SYS;
	}
	/* protocol 0: bound for sending, never receives */
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = ifindex;
	if (bind(t->fd, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		return SOFL_E_SYS;
	return 0;
}

void
afp_txr_close(struct afp_txr *t)
{
	if (t->ring)
		munmap(t->ring, t->ring_len);
	if (t->fd >= 0)
		close(t->fd);
	free(t->in);
	free(t->seg);
	free(t->stage);
	memset(t, 0, sizeof(*t));
	t->fd = -1;
}

static void
txr_drop(struct afp_txr *t, uint32_t in, int reason)
{
	port_drop(t->base, 1, reason, 1);
	t->drop_in(t->arg, in);
}

/* The first queued slot could not be sent: the frames behind it move down
 * one slot (the kernel goes on from the refused slot's place). */
static void
txr_remove_first(struct afp_txr *t)
{
	uint32_t first = (t->head + t->frames - t->queued) % t->frames, i, k, nx;

	for (k = 1, i = first; k < t->queued; k++, i = nx) {
		struct tpacket2_hdr *d = txr_slot(t, i);
		const struct tpacket2_hdr *s = txr_slot(t, nx = (i + 1) % t->frames);

		memcpy((uint8_t *)d + TXR_DATA, (const uint8_t *)s + TXR_DATA, s->tp_len);
		d->tp_len = s->tp_len;
		t->in[i] = t->in[nx];
		/* d stays SEND_REQUEST; its bytes are written before the
		 * next send() (a system call orders them) */
		txr_set_status(d, TP_STATUS_SEND_REQUEST);
	}
	txr_set_status(txr_slot(t, i), TP_STATUS_AVAILABLE);
	t->head = i;
	t->queued--;
}

int
afp_txr_flush(struct afp_txr *t)
{
	uint32_t tries = 0;

	while (t->queued > 0) {
		uint32_t first = (t->head + t->frames - t->queued) % t->frames, done = 0;
		uint64_t bytes = 0;
		struct tpacket2_hdr *h;
		ssize_t r;
		int err;

		r = send(t->fd, NULL, 0, 0);
		err = r < 0 ? errno : 0;
		port_add(&t->base->st.tx_calls, 1);
		while (t->queued > 0 &&
		       txr_status(h = txr_slot(t, first)) == TP_STATUS_AVAILABLE) {
			bytes += h->tp_len - TXR_VH;
			done++;
			t->queued--;
			first = (first + 1) % t->frames;
		}
		port_add(&t->base->st.tx_pkts, done);
		port_add(&t->base->st.tx_bytes, bytes);
		if (t->queued == 0)
			break;
		if (done > 0)
			tries = 0;
		if (err == EBADF || err == ENOTSOCK || err == EFAULT) {
			port_fault(t->base, 1, err, t->queued);
			while (t->queued > 0) {
				h = txr_slot(t, first);
				t->drop_in(t->arg, t->in[first]);
				txr_set_status(h, TP_STATUS_AVAILABLE);
				first = (first + 1) % t->frames;
				t->queued--;
			}
			return SOFL_E_SYS;
		}
		if (err == EINTR && ++tries < 8)
			continue;
		h = txr_slot(t, first);
		if (txr_status(h) == TP_STATUS_WRONG_FORMAT) {
			/* refused as it was written: bad input */
			txr_drop(t, t->in[first], SOFL_PORT_DROP_MALFORMED);
		} else if (err) {
			port_fault(t->base, 1, err, 1);
			t->drop_in(t->arg, t->in[first]);
		} else if (++tries < 8) {
			continue;	/* still the kernel's: ask again */
		} else {
			txr_drop(t, t->in[first], SOFL_PORT_DROP_AGAIN);
		}
		txr_remove_first(t);
		tries = 0;
	}
	return 0;
}

/* Room for @n slots from head, none of them still the kernel's: flushes
 * when the ring is full.  @return 1 (room), 0 (the kernel still holds a
 * slot after a send: ring full), SOFL_E_SYS. */
static int
txr_room(struct afp_txr *t, uint32_t n)
{
	uint32_t k;
	int r;

	if (t->queued + n > t->frames && (r = afp_txr_flush(t)) < 0)
		return r;
	for (k = 0; k < n; k++)
		if (txr_status(txr_slot(t, (t->head + k) % t->frames)) != TP_STATUS_AVAILABLE)
			return 0;
	return 1;
}

/* The slot at head holds a frame of @len bytes: its virtio header (with
 * NEEDS_CSUM at @cs_start/@cs_off when @cs_start is not 0), and it goes to
 * the kernel. */
static void
txr_queue(struct afp_txr *t, uint32_t len, uint32_t in, uint16_t cs_start, uint16_t cs_off)
{
	struct tpacket2_hdr *h = txr_slot(t, t->head);
	struct sofl_vnet_hdr v = { .hdr_len = (uint16_t)len };

	if (cs_start) {
		v.flags = SOFL_VNET_HDR_F_NEEDS_CSUM;
		v.csum_start = cs_start;
		v.csum_offset = cs_off;
	}
	/* a packet socket's header, in the host's order (as afp_send's) */
	sofl_vnet_encode((uint8_t *)h + TXR_DATA, TXR_VH, &v, TXR_VH, SOFL_VNET_F_NATIVE);
	h->tp_len = TXR_VH + len;
	t->in[t->head] = in;
	txr_set_status(h, TP_STATUS_SEND_REQUEST);
	t->head = (t->head + 1) % t->frames;
	t->queued++;
}

/* Is the frame's EtherType a VLAN tag (802.1Q / 802.1ad)? */
static int
vlan_tpid(const struct sofl_port_pkt *pk)
{
	uint8_t et[2];
	size_t off = 0, k = 0;
	uint32_t i;

	for (i = 0; i < pk->iovcnt && k < 2; off += pk->iov[i].iov_len, i++)
		while (k < 2 && 12 + k >= off && 12 + k < off + pk->iov[i].iov_len) {
			et[k] = ((const uint8_t *)pk->iov[i].iov_base)[12 + k - off];
			k++;
		}
	return k == 2 && ((et[0] == 0x81 && et[1] == 0x00) || (et[0] == 0x88 && et[1] == 0xa8));
}

/* A frame as it is: its bytes copied into the next slot. */
static int
txr_copy(struct afp_txr *t, const struct sofl_port_pkt *pk, uint32_t in)
{
	size_t len = port_pkt_bytes(pk), off = 0;
	uint8_t *d;
	uint32_t i;
	int r;

	/* with a virtio header the kernel leaves the MTU to the device
	 * (tpacket_snd()), which drops longer frames: checked here, an
	 * Ethernet header (+ one VLAN tag) past the MTU */
	if (len == 0 || len > t->room || len > t->mtu + 14u + (len >= 14 && vlan_tpid(pk) ? 4u : 0u)) {
		txr_drop(t, in, len ? SOFL_PORT_DROP_TOO_BIG : SOFL_PORT_DROP_MALFORMED);
		return 0;
	}
	if ((r = txr_room(t, 1)) <= 0) {
		if (r == 0)
			txr_drop(t, in, SOFL_PORT_DROP_NOROOM);
		return r;
	}
	d = (uint8_t *)txr_slot(t, t->head) + TXR_FRAME;
	for (i = 0; i < pk->iovcnt; i++) {
		memcpy(d + off, pk->iov[i].iov_base, pk->iov[i].iov_len);
		off += pk->iov[i].iov_len;
	}
	txr_queue(t, (uint32_t)len, in, 0, 0);
	return 0;
}

int
afp_txr_put(struct afp_txr *t, const struct sofl_port_pkt *pk, uint32_t in)
{
	const struct iovec *src;
	struct sofl_gso_params gp;
	struct sofl_gso_need need;
	struct sofl_gso_out out;
	struct sofl_pkt p;
	uint32_t k, tail;
	uint16_t cs_start = 0, cs_off = 0;
	int r, n, cnt, direct;

	if (!(pk->flags & SOFL_PORT_PKT_F_VNET) ||
	    (pk->vnet.gso_type == SOFL_GSO_NONE && !(pk->vnet.flags & SOFL_VNET_HDR_F_NEEDS_CSUM)))
		return txr_copy(t, pk, in);
	if ((r = port_gso_prepare(pk, t->hdrbuf, &p, &gp, &src, &cnt)) != 0) {
		txr_drop(t, in, r);
		return 0;
	}
	/* the device completes the one checksum a virtio header names: the
	 * L4 checksum of each segment (not a tunnel's: two checksums) */
	if (t->csum_dev && (gp.type == SOFL_GSO_UDP_L4 || gp.type == SOFL_GSO_TCPV4 ||
			    gp.type == SOFL_GSO_TCPV6)) {
		gp.flags |= SOFL_GSO_F_CSUM_PARTIAL;
		cs_start = p.l4_off;
		cs_off = gp.type == SOFL_GSO_UDP_L4 ? 6 : 16;
	} else if (t->csum_dev && gp.type == SOFL_GSO_NONE && (gp.flags & SOFL_GSO_F_CSUM_AT) &&
		   gp.csum_start > 0) {
		gp.flags |= SOFL_GSO_F_CSUM_PARTIAL;
		cs_start = gp.csum_start;
		cs_off = gp.csum_offset;
	}
	if (sofl_gso_need(&gp, &p, SOFL_GSO_COPY, cnt, &need) < 0) {
		txr_drop(t, in, SOFL_PORT_DROP_MALFORMED);
		return 0;
	}
	if (need.stride > t->room || need.nsegs > t->frames) {
		txr_drop(t, in, need.stride > t->room ? SOFL_PORT_DROP_TOO_BIG :
			 SOFL_PORT_DROP_NOROOM);
		return 0;
	}
	if ((r = txr_room(t, need.nsegs)) <= 0) {
		if (r == 0)
			txr_drop(t, in, SOFL_PORT_DROP_NOROOM);
		return r;
	}
	/* each slot is the frame's room: the tpacket2 header before it, the
	 * rest of the slot after it */
	direct = t->head + need.nsegs <= t->frames;
	if (!direct && need.nsegs > t->stage_segs) {
		txr_drop(t, in, SOFL_PORT_DROP_NOROOM);
		return 0;
	}
	tail = t->fsize - (uint32_t)TXR_FRAME - need.stride;
	memset(&out, 0, sizeof(out));
	out.mode = SOFL_GSO_COPY;
	out.seg = t->seg;
	out.seg_cap = t->frames;
	out.buf = direct ? (uint8_t *)txr_slot(t, t->head) : t->stage;
	out.buf_cap = (size_t)need.nsegs * t->fsize;
	n = gso_segment_room_iov(&gp, &p, src, cnt, &out, (uint32_t)TXR_FRAME, tail);
	if (n < 0) {
		txr_drop(t, in, n == SOFL_E_NOSPC ? SOFL_PORT_DROP_NOROOM : SOFL_PORT_DROP_MALFORMED);
		return 0;
	}
	for (k = 0; k < (uint32_t)n; k++) {
		if (!direct)
			memcpy((uint8_t *)txr_slot(t, t->head) + TXR_FRAME, t->seg[k].data,
			       t->seg[k].len);
		txr_queue(t, t->seg[k].len, in, cs_start, cs_off);
	}
	if (gp.type != SOFL_GSO_NONE) {
		port_add(&t->base->st.tx_super, 1);
		port_add(&t->base->st.tx_segs, (uint64_t)n);
	}
	if (!cs_start)
		port_add(&t->base->st.csum_sw, (uint64_t)n);
	return 0;
}
