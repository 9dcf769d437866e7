/*
 * The AF_PACKET port (port.h): a TPACKET_V2 receive ring with virtio
 * headers, sendmmsg() sends, software GSO and checksums where the device
 * lacks them.  The layout of a ring slot is Linux tpacket_rcv()'s
 * (net/packet/af_packet.c): struct tpacket2_hdr, struct sockaddr_ll, then at
 * tp_mac the frame, with the 10-byte virtio header just before it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <linux/ethtool.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/sockios.h>
#include "softoffload/port.h"
#include "csum/csum_impl.h"
#include "softoffload/gso.h"
#include "softoffload/pkt.h"
#include "softoffload/vnet.h"
#include "base/cfg.h"
#include "port_impl.h"
#include "afpacket_txring.h"

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif
#ifndef TP_STATUS_VLAN_TPID_VALID
#define TP_STATUS_VLAN_TPID_VALID (1 << 6)
#endif

#define AFP_HDRLEN	(TPACKET_ALIGN(sizeof(struct tpacket2_hdr)) + sizeof(struct sockaddr_ll))
/* The largest frame Linux hands over, with the slot's own headers: tp_mac
 * (at most 80 with the virtio header) + 14 + 4 (a VLAN tag in the frame) +
 * 65535. */
#define AFP_SLOT_MAX	65664u
#define AFP_SLOT_MIN	2048u
#define AFP_BLOCK	(1u << 20)
#define AFP_RING_MAX	(64u << 20)	/* bytes of ring at most */
#define AFP_VH		SOFL_VNET_HDR_LEN
#define AFP_BIG		(65536u + 64u)	/* a frame read with recvmsg() */
#define AFP_NBIG	16		/* such frames per batch */
#define AFP_RCVBUF	(16 << 20)	/* socket queue for frames bigger than a slot */
#define AFP_SYNC_NS	100000000ull

struct afp_msg {
	uint32_t in;		/* index of the input packet in the current send */
	uint8_t gso;		/* sent as a super-packet with its GSO header */
};

struct afp {
	struct sofl_port base;	/* first: the port object (port_impl.h) */
	int ifindex;
	uint8_t mac[6];
	int vnet;		/* PACKET_VNET_HDR on */
	int rx_mode;
	uint32_t mtu;

	/* receive ring (or, without ring, one buffer) */
	uint8_t *ring;
	size_t ring_len;
	int ring_heap;		/* the ring is malloc'd memory (tests, fuzzers) */
	uint32_t slots, per_block, slot_size;
	uint32_t head;		/* next slot to look at */
	uint32_t held;		/* slots handed out since the last release */
	uint8_t *big;		/* AFP_NBIG buffers for recvmsg(): frames bigger
				 * than a slot (TP_STATUS_COPY), or every frame
				 * without the ring */
	uint32_t big_used;
	int sock_empty;		/* the last recvmsg() found nothing (EAGAIN) */
	struct port_rxq q;
	uint32_t since_sync;
	uint64_t last_sync;

	/* send */
	uint32_t tx_cap, nmsg;
	struct mmsghdr *msg;
	struct afp_msg *mi;
	struct iovec *iov;
	uint32_t iov_cap, niov;
	uint8_t *vh;		/* tx_cap encoded virtio headers */
	uint8_t *scratch;	/* segment headers (GSO) */
	size_t scratch_cap, scratch_used;
	struct sofl_gso_seg *seg;
	struct iovec *giov;
	uint8_t hdrbuf[SOFL_PKT_IOV_HDR_MAX];
	uint32_t *retry;	/* inputs to send again segmented (TSO refused) */
	uint32_t nretry;
	uint32_t bad_in;	/* last input counted as dropped, + 1 */
	uint32_t dropped_in;
	int (*hook)(void *, struct mmsghdr *, unsigned);
	void *hook_arg;
	struct afp_txr *txr;	/* transmit ring (.tx_ring), or NULL */
};

static const uint8_t vh_zero[AFP_VH];

static struct afp *
afp_of(struct sofl_port *port)
{
	return (struct afp *)(void *)port;
}

static uint8_t *
slot(const struct afp *a, uint32_t i)
{
	return a->ring + (size_t)(i / a->per_block) * AFP_BLOCK +
	       (size_t)(i % a->per_block) * a->slot_size;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- receive ---- */

/* The slots of the previous batch go back to the kernel, in ring order. */
static void
ring_release(struct afp *a)
{
	uint32_t i = (a->head + a->slots - a->held) % a->slots;

	for (; a->held > 0; a->held--, i = (i + 1) % a->slots) {
		struct tpacket2_hdr *h = (struct tpacket2_hdr *)(void *)slot(a, i);

		__atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
	}
}

/* A frame with a partial checksum (a local stack's CHECKSUM_PARTIAL, e.g.
 * a veth whose peer checksums in "hardware") handed on whole: completed in
 * place (the slot is ours until the next receive), so that it goes on as
 * a plain packet with a good checksum, which a TUN/TAP port's GRO can
 * merge.  Only untagged IPv4/IPv6 frames whose checksum field lies in the
 * IP packet; the IP length is read from its header (no parse).
 * @return 1 completed, 0 not handled here (the general path takes it),
 *         -1 dropped (counted). */
static int
finish_in_place(struct afp *a, uint8_t *f, uint32_t len, const struct sofl_vnet_hdr *h)
{
	uint32_t end;

	if (len < 14 + 40)
		return 0;
	if (f[12] == 0x08 && f[13] == 0x00 && (f[14] >> 4) == 4)
		end = 14u + (uint32_t)(f[16] << 8 | f[17]);
	else if (f[12] == 0x86 && f[13] == 0xdd && (f[14] >> 4) == 6)
		end = 14u + 40u + (uint32_t)(f[18] << 8 | f[19]);
	else
		return 0;
	if (end > len || h->csum_start < 14 + 20 || (uint32_t)h->csum_start + 2 > end) {
		port_drop(&a->base, 0, SOFL_PORT_DROP_VNET, 1);
		return -1;
	}
	if (sofl_csum_complete_partial(f, end, h->csum_start, h->csum_offset) < 0) {
		port_drop(&a->base, 0, SOFL_PORT_DROP_VNET, 1);
		return -1;
	}
	port_add(&a->base.st.csum_sw, 1);
	return 1;
}

/* One frame (@len bytes at @f, @room writable bytes before it, the virtio
 * header, when on, in the last 10 of them) into the batch. */
static int
rx_frame(struct afp *a, uint8_t *f, uint32_t len, uint32_t room, int vlan, uint16_t tpid,
	 uint16_t tci)
{
	struct sofl_vnet_hdr vh;
	uint32_t fl;

	if (a->vnet)
		sofl_vnet_decode(&vh, f - AFP_VH, AFP_VH, AFP_VH, SOFL_VNET_F_NATIVE);
	if (vlan) {
		/* the tag the kernel took out (skb->vlan_tci) back in the frame;
		 * the virtio header, decoded, may be overwritten */
		if (room < 4 || len < 12) {
			port_drop(&a->base, 0, SOFL_PORT_DROP_MALFORMED, 1);
			return 0;
		}
		memmove(f - 4, f, 12);
		f -= 4;
		f[12] = (uint8_t)(tpid >> 8);
		f[13] = (uint8_t)tpid;
		f[14] = (uint8_t)(tci >> 8);
		f[15] = (uint8_t)tci;
		len += 4;
		if (a->vnet && (vh.flags & SOFL_VNET_HDR_F_NEEDS_CSUM))
			vh.csum_start = (uint16_t)(vh.csum_start + 4);
	}
	/* cppcheck-suppress uninitvar ; read only when a->vnet: decoded above,
	 * and sofl_vnet_decode() of AFP_VH bytes always fills vh */
	if (!a->vnet || (vh.gso_type == SOFL_GSO_NONE &&
			 !(vh.flags & SOFL_VNET_HDR_F_NEEDS_CSUM))) {
		/* nothing to finish: no parse, the frame as it is */
		if (a->mtu && len > a->mtu + 18u) {
			port_drop(&a->base, 0, SOFL_PORT_DROP_TOO_BIG, 1);
			return 0;
		}
		fl = a->vnet && (vh.flags & SOFL_VNET_HDR_F_DATA_VALID) ? SOFL_PORT_PKT_F_CSUM_OK : 0;
		return port_rxq_add_plain(&a->q, f, len, fl);
	}
	if (a->rx_mode == SOFL_PORT_RX_SUPER && vh.gso_type == SOFL_GSO_NONE) {
		int r = finish_in_place(a, f, len, &vh);

		if (r != 0)
			return r > 0 ? port_rxq_add_plain(&a->q, f, len, SOFL_PORT_PKT_F_CSUM_OK) : 0;
	}
	return port_rxq_add(&a->base, &a->q, f, len, &vh, SOFL_LINK_ETH, a->rx_mode, a->mtu);
}

static int copy_recv(struct afp *a);

/* Slot @s as tpacket_rcv() left it.  Every offset is checked against the
 * slot, so a corrupt slot is a counted drop, never a stray read. */
static int
rx_slot(struct afp *a, uint8_t *s, uint32_t status)
{
	const struct tpacket2_hdr *h = (const struct tpacket2_hdr *)(void *)s;
	uint32_t mac = h->tp_mac, snap = h->tp_snaplen;
	uint16_t tpid;

	if (status & TP_STATUS_COPY)
		return copy_recv(a);
	if (mac < AFP_HDRLEN + (a->vnet ? AFP_VH : 0) || mac > a->slot_size ||
	    snap > a->slot_size - mac) {
		port_drop(&a->base, 0, SOFL_PORT_DROP_MALFORMED, 1);
		return 0;
	}
	if (snap < h->tp_len) {
		port_drop(&a->base, 0, SOFL_PORT_DROP_TRUNC, 1);
		return 0;
	}
	tpid = (status & TP_STATUS_VLAN_TPID_VALID) && h->tp_vlan_tpid ? h->tp_vlan_tpid :
	       ETH_P_8021Q;
	return rx_frame(a, s + mac, snap, mac - (uint32_t)AFP_HDRLEN,
			(status & TP_STATUS_VLAN_VALID) != 0, tpid, h->tp_vlan_tci);
}

static void
ring_recv(struct afp *a)
{
	/* held slots are still TP_STATUS_USER: never walk into them again */
	while (a->q.n < a->q.cap && a->held < a->slots) {
		uint8_t *s = slot(a, a->head);
		struct tpacket2_hdr *h = (struct tpacket2_hdr *)(void *)s;
		uint32_t st = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);

		if (!(st & TP_STATUS_USER))
			break;
		if (rx_slot(a, s, st) == PORT_RXQ_FULL)
			break;		/* stays in the ring for the next batch */
		a->head = (a->head + 1) % a->slots;
		a->held++;
	}
}

/* One recvmsg() for one frame into @buf (AFP_BIG bytes): every frame
 * without the ring, the full copy of a frame too big for its slot with it. */
static int
sock_recv(struct afp *a, uint8_t *buf)
{
	union {
		struct cmsghdr c;
		char b[CMSG_SPACE(sizeof(struct tpacket_auxdata))];
	} ctl;
	struct tpacket_auxdata aux;
	struct cmsghdr *c;
	struct msghdr mh;
	struct iovec v;
	uint32_t pre = 4 + (a->vnet ? AFP_VH : 0);
	ssize_t n;
	int vlan = 0;

	v.iov_base = buf + 4;
	v.iov_len = AFP_BIG - 4;
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &v;
	mh.msg_iovlen = 1;
	mh.msg_control = &ctl;
	mh.msg_controllen = sizeof(ctl);
	a->sock_empty = 0;
	n = recvmsg(a->base.fd, &mh, MSG_DONTWAIT | MSG_TRUNC);
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR) {
			a->sock_empty = 1;
			return 0;
		}
		if (errno == EBADF || errno == EFAULT || errno == ENOTSOCK)
			return SOFL_E_SYS;
		port_fault(&a->base, 0, errno, 1);
		return 0;
	}
	if (!a->ring)
		port_add(&a->base.st.rx_calls, 1);
	if ((size_t)n > v.iov_len || (mh.msg_flags & MSG_TRUNC)) {
		port_drop(&a->base, 0, SOFL_PORT_DROP_TRUNC, 1);
		return 0;
	}
	if ((uint32_t)n < pre - 4) {
		port_drop(&a->base, 0, SOFL_PORT_DROP_VNET, 1);
		return 0;
	}
	memset(&aux, 0, sizeof(aux));
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_PACKET && c->cmsg_type == PACKET_AUXDATA &&
		    c->cmsg_len >= CMSG_LEN(sizeof(aux))) {
			memcpy(&aux, CMSG_DATA(c), sizeof(aux));
			vlan = (aux.tp_status & TP_STATUS_VLAN_VALID) != 0;
		}
	return rx_frame(a, buf + pre, (uint32_t)n - (pre - 4), pre, vlan,
			(aux.tp_status & TP_STATUS_VLAN_TPID_VALID) && aux.tp_vlan_tpid ?
			aux.tp_vlan_tpid : ETH_P_8021Q, aux.tp_vlan_tci);
}

/* A slot marked TP_STATUS_COPY holds the start of a frame bigger than a
 * slot; Linux tpacket_rcv() queued the whole frame on the socket as well
 * (PACKET_COPY_THRESH), in ring order: read it from there. */
static int
copy_recv(struct afp *a)
{
	int r;

	if (a->big_used >= AFP_NBIG)
		return PORT_RXQ_FULL;	/* the rest in the next batch */
	r = sock_recv(a, a->big + (size_t)a->big_used * AFP_BIG);
	if (r > 0)
		a->big_used++;
	else if (r < 0 || a->sock_empty)
		/* the whole frame is not there: only its cut start is */
		port_drop(&a->base, 0, SOFL_PORT_DROP_TRUNC, 1);
	return r < 0 ? 0 : r;
}

static int
kstats(struct afp *a)
{
	struct tpacket_stats ks;
	socklen_t l = sizeof(ks);

	a->last_sync = now_ns();
	a->since_sync = 0;
	if (a->base.fd < 0)
		return 0;
	if (getsockopt(a->base.fd, SOL_PACKET, PACKET_STATISTICS, &ks, &l) < 0)
		return SOFL_E_SYS;
	if (ks.tp_drops)
		port_drop(&a->base, 0, SOFL_PORT_DROP_RCVBUF, ks.tp_drops);
	return 0;
}

static int
afp_recv(struct sofl_port *port, struct sofl_port_pkt **pkts)
{
	struct afp *a = afp_of(port);
	uint64_t bytes = 0;
	uint32_t i;
	int r = 0;

	if (a->ring)
		ring_release(a);
	port_rxq_reset(&a->q);
	a->big_used = 0;
	if (a->ring)
		ring_recv(a);
	else
		r = sock_recv(a, a->big);
	*pkts = a->q.pkt;
	if (a->ring && a->q.n == 0)
		ring_release(a);	/* all dropped: nothing handed out holds them */
	if (r < 0)
		return r;
	for (i = 0; i < a->q.n; i++)
		bytes += a->q.pkt[i].len;
	if (a->q.n) {
		if (a->ring)
			port_add(&port->st.rx_calls, 1);
		port_add(&port->st.rx_pkts, a->q.n);
		port_add(&port->st.rx_bytes, bytes);
	}
	if ((a->q.n == 0 || ++a->since_sync >= 64) && now_ns() - a->last_sync >= AFP_SYNC_NS)
		kstats(a);
	return (int)a->q.n;
}

/* ---- send ---- */

static void
tx_drop_in(struct afp *a, uint32_t in)
{
	if (a->bad_in != in + 1) {
		a->bad_in = in + 1;
		a->dropped_in++;
	}
}

static void
txr_drop_in(void *arg, uint32_t in)
{
	tx_drop_in(arg, in);
}

static int
kernel_send(struct afp *a, struct mmsghdr *m, unsigned n)
{
	if (a->hook)
		return a->hook(a->hook_arg, m, n);
	return sendmmsg(a->base.fd, m, n, 0);
}

/* Hands the queued messages to the kernel.  A message the kernel refuses
 * is counted and skipped (sendmmsg stops at it; calling again from it
 * reports its error); the others go on.  @return 0 or SOFL_E_SYS. */
static int
tx_flush(struct afp *a)
{
	uint32_t i = 0, j, tries = 0;
	uint64_t bytes;
	int r, err;

	while (i < a->nmsg) {
		r = kernel_send(a, a->msg + i, a->nmsg - i);
		port_add(&a->base.st.tx_calls, 1);
		if (r > 0) {
			for (j = i, bytes = 0; j < i + (uint32_t)r; j++)
				bytes += a->msg[j].msg_len - (a->vnet ? AFP_VH : 0);
			port_add(&a->base.st.tx_pkts, (uint64_t)r);
			port_add(&a->base.st.tx_bytes, bytes);
			i += (uint32_t)r;
			tries = 0;
			continue;
		}
		err = r < 0 ? errno : EIO;
		if (err == EINTR && ++tries < 8)
			continue;
		if (err == EBADF || err == ENOTSOCK || err == EFAULT) {
			port_fault(&a->base, 1, err, a->nmsg - i);
			for (; i < a->nmsg; i++)
				tx_drop_in(a, a->mi[i].in);
			a->nmsg = a->niov = 0;
			a->scratch_used = 0;
			return SOFL_E_SYS;
		}
		if (err == EINVAL && a->mi[i].gso && a->nretry < a->tx_cap) {
			/* the kernel took the header as invalid for a GSO send:
			 * no more device TSO on this port; send it segmented */
			__atomic_store_n(&a->base.offloads, a->base.offloads &
					 ~(unsigned)(SOFL_PORT_OFF_F_TSO4 | SOFL_PORT_OFF_F_TSO6),
					 __ATOMIC_RELAXED);
			port_fallback(&a->base, 0, "GSO send refused (EINVAL): segmenting in software");
			a->retry[a->nretry++] = a->mi[i].in;
		} else {
			port_fault(&a->base, 1, err, 1);
			tx_drop_in(a, a->mi[i].in);
		}
		i++;
		tries = 0;
	}
	a->nmsg = a->niov = 0;
	a->scratch_used = 0;
	return 0;
}

/* Queues one message: virtio header @vh (NULL: none on the socket) and
 * @cnt iovecs.  The caller made sure there is room. */
static void
tx_queue(struct afp *a, const uint8_t *vh, const struct iovec *v, uint32_t cnt, uint32_t in,
	 int gso)
{
	struct mmsghdr *m = &a->msg[a->nmsg];
	struct iovec *o = a->iov + a->niov;
	uint32_t k = 0;

	if (a->vnet)
		o[k++] = (struct iovec){ (void *)(uintptr_t)(vh ? vh : vh_zero), AFP_VH };
	memcpy(o + k, v, cnt * sizeof(*v));
	k += cnt;
	memset(m, 0, sizeof(*m));
	m->msg_hdr.msg_iov = o;
	m->msg_hdr.msg_iovlen = k;
	a->mi[a->nmsg].in = in;
	a->mi[a->nmsg].gso = (uint8_t)gso;
	a->nmsg++;
	a->niov += k;
}

/* Room for @msgs messages of @iovs iovecs in all: flush when there is not. */
static int
tx_room(struct afp *a, uint32_t msgs, size_t iovs)
{
	if (a->nmsg + msgs <= a->tx_cap && a->niov + iovs + (a->vnet ? msgs : 0) <= a->iov_cap)
		return 0;
	return tx_flush(a);
}

/* A super-packet or a partial checksum the device will not finish: cut
 * (GSO_NONE: only checksummed) in software into the queue. */
static int
tx_segment(struct afp *a, const struct sofl_port_pkt *pk, uint32_t in)
{
	const struct iovec *src;
	struct sofl_gso_params gp;
	struct sofl_gso_need need;
	struct sofl_gso_out out;
	struct sofl_pkt p;
	int r, n, i, cnt;

	/* cut in software: any header Linux takes, UDP-tunnel ones included
	 * (a TUN/TAP with UDP-tunnel GSO hands them over) */
	if ((r = port_gso_prepare(pk, a->hdrbuf, &p, &gp, &src, &cnt)) != 0) {
		port_drop(&a->base, 1, r, 1);
		tx_drop_in(a, in);
		return 0;
	}
	if (sofl_gso_need(&gp, &p, SOFL_GSO_ZEROCOPY, cnt, &need) < 0) {
		port_drop(&a->base, 1, SOFL_PORT_DROP_MALFORMED, 1);
		tx_drop_in(a, in);
		return 0;
	}
	if (need.nsegs > a->tx_cap || need.buf_bytes > a->scratch_cap ||
	    need.iovs + need.nsegs > a->iov_cap) {
		port_drop(&a->base, 1, SOFL_PORT_DROP_NOROOM, 1);
		tx_drop_in(a, in);
		return 0;
	}
	if (a->scratch_used + need.buf_bytes > a->scratch_cap ||
	    a->nmsg + need.nsegs > a->tx_cap ||
	    a->niov + need.iovs + (a->vnet ? need.nsegs : 0) > a->iov_cap)
		if ((r = tx_flush(a)) < 0)
			return r;
	memset(&out, 0, sizeof(out));
	out.mode = SOFL_GSO_ZEROCOPY;
	out.seg = a->seg;
	out.seg_cap = a->tx_cap;
	out.buf = a->scratch + a->scratch_used;
	out.buf_cap = a->scratch_cap - a->scratch_used;
	out.iov = a->giov;
	out.iov_cap = a->iov_cap;
	n = sofl_gso_segment(&gp, &p, src, cnt, &out);
	if (n < 0) {
		port_drop(&a->base, 1, n == SOFL_E_NOSPC ? SOFL_PORT_DROP_NOROOM :
			  SOFL_PORT_DROP_MALFORMED, 1);
		tx_drop_in(a, in);
		return 0;
	}
	a->scratch_used += need.buf_bytes;
	for (i = 0; i < n; i++)
		tx_queue(a, NULL, a->seg[i].iov, a->seg[i].iovcnt, in, 0);
	if (gp.type != SOFL_GSO_NONE) {
		port_add(&a->base.st.tx_super, 1);
		port_add(&a->base.st.tx_segs, (uint64_t)n);
	}
	port_add(&a->base.st.csum_sw, (uint64_t)n);
	return 0;
}

/* Does the device finish this packet itself (TSO / checksum offload)? */
static int
device_takes(const struct afp *a, const struct sofl_vnet_hdr *h)
{
	unsigned off = a->base.offloads;

	if (!a->vnet)
		return 0;
	switch (h->gso_type & ~SOFL_GSO_ECN) {
	case SOFL_GSO_NONE:
		return !(h->flags & SOFL_VNET_HDR_F_NEEDS_CSUM) || (off & SOFL_PORT_OFF_F_CSUM);
	case SOFL_GSO_TCPV4:
		return (off & SOFL_PORT_OFF_F_TSO4) != 0;
	case SOFL_GSO_TCPV6:
		return (off & SOFL_PORT_OFF_F_TSO6) != 0;
	}
	return 0;
}

static int
tx_one(struct afp *a, const struct sofl_port_pkt *pk, uint32_t in, int whole)
{
	int gso = (pk->flags & SOFL_PORT_PKT_F_VNET) && pk->vnet.gso_type != SOFL_GSO_NONE;
	uint8_t *vh;
	int r;

	if ((pk->flags & SOFL_PORT_PKT_F_VNET) &&
	    (pk->vnet.gso_type != SOFL_GSO_NONE || (pk->vnet.flags & SOFL_VNET_HDR_F_NEEDS_CSUM)) &&
	    (!whole || !device_takes(a, &pk->vnet)))
		return tx_segment(a, pk, in);
	if (pk->iovcnt + 1 > IOV_MAX || pk->iovcnt + 1 > a->iov_cap) {
		port_drop(&a->base, 1, SOFL_PORT_DROP_UNSUPPORTED, 1);
		tx_drop_in(a, in);
		return 0;
	}
	if ((r = tx_room(a, 1, pk->iovcnt)) < 0)
		return r;
	vh = NULL;
	if (a->vnet && (pk->flags & SOFL_PORT_PKT_F_VNET)) {
		vh = a->vh + (size_t)a->nmsg * AFP_VH;
		sofl_vnet_encode(vh, AFP_VH, &pk->vnet, AFP_VH, SOFL_VNET_F_NATIVE);
		if (gso) {
			uint32_t pay = pk->len > pk->vnet.hdr_len ? pk->len - pk->vnet.hdr_len : 0;

			port_add(&a->base.st.tx_super, 1);
			port_add(&a->base.st.tx_segs, (pay + pk->vnet.gso_size - 1) /
				 (pk->vnet.gso_size ? pk->vnet.gso_size : 1));
		}
	}
	tx_queue(a, vh, pk->iov, pk->iovcnt, in, gso);
	return 0;
}

static int
afp_send(struct sofl_port *port, const struct sofl_port_pkt *pkts, size_t n)
{
	struct afp *a = afp_of(port);
	uint32_t k;
	size_t i;
	int r = 0;

	a->bad_in = 0;
	a->dropped_in = 0;
	a->nretry = 0;
	if (a->txr) {
		for (i = 0; i < n && r == 0; i++)
			r = afp_txr_put(a->txr, &pkts[i], (uint32_t)i);
		if (r == 0)
			r = afp_txr_flush(a->txr);
		return r < 0 ? r : (int)(n - a->dropped_in);
	}
	for (i = 0; i < n && r == 0; i++)
		r = tx_one(a, &pkts[i], (uint32_t)i, 1);
	if (r == 0)
		r = tx_flush(a);
	/* super-packets the kernel refused: segmented now */
	while (r == 0 && a->nretry > 0) {
		uint32_t cnt = a->nretry;

		a->nretry = 0;
		for (k = 0; k < cnt && r == 0; k++)
			r = tx_one(a, &pkts[a->retry[k]], a->retry[k], 0);
		if (r == 0)
			r = tx_flush(a);
	}
	if (r < 0)
		return r;
	return (int)(n - a->dropped_in);
}

/* ---- open / close ---- */

static void
afp_free(struct afp *a)
{
	if (a->ring && a->ring_heap)
		free(a->ring);
	else if (a->ring)
		munmap(a->ring, a->ring_len);
	free(a->big);
	port_rxq_free(&a->q);
	free(a->msg);
	free(a->mi);
	free(a->iov);
	free(a->vh);
	free(a->scratch);
	free(a->seg);
	free(a->giov);
	free(a->retry);
	if (a->txr) {
		afp_txr_close(a->txr);
		free(a->txr);
		a->txr = NULL;
	}
}

static void
afp_close(struct sofl_port *port)
{
	struct afp *a = afp_of(port);

	afp_free(a);
	if (port->fd >= 0)
		close(port->fd);
	port->fd = -1;
}

static const struct sofl_port_ops afp_ops = {
	.kind = "afpacket",
	.recv = afp_recv,
	.send = afp_send,
	.close = afp_close,
};

SOFL_API void
sofl_afpacket_config_init(struct sofl_afpacket_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	cfg->vnet_hdr = 1;
	cfg->ring = 1;
	cfg->rx_mode = SOFL_PORT_RX_SEGMENT;
	cfg->ignore_outgoing = 1;
	cfg->tx_offload = 1;
	cfg->rx_batch = SOFL_AFPACKET_RX_BATCH_DEFAULT;
	cfg->ring_frames = SOFL_AFPACKET_RING_FRAMES_DEFAULT;
	cfg->tx_batch = SOFL_AFPACKET_TX_BATCH_DEFAULT;
	cfg->tx_ring_frames = SOFL_AFPACKET_TX_RING_FRAMES_DEFAULT;
}

/* Copies the caller's @in (of its own size: an older or newer program)
 * into @cfg, defaults for the fields it lacks, and checks it (port.h's rule).
 * @return 0, SOFL_E_INVAL, SOFL_E_CFG_*. */
static int
afpacket_config_copy(struct sofl_afpacket_config *cfg, const struct sofl_afpacket_config *in)
{
	int err;

	if (!in)
		return SOFL_E_INVAL;
	sofl_afpacket_config_init(cfg);
	/* the smallest accepted: the first sized version's (0.3.0, up to slot_size) */
	err = sofl_cfg_copy(cfg, sizeof(*cfg), in, in->size,
			    offsetof(struct sofl_afpacket_config, slot_size) + sizeof(cfg->slot_size));
	if (err)
		return err;
	if ((err = port_cfg_range(&cfg->rx_batch, SOFL_AFPACKET_RX_BATCH_DEFAULT,
				  SOFL_AFPACKET_RX_BATCH_MIN, SOFL_AFPACKET_RX_BATCH_MAX)) < 0 ||
	    (err = port_cfg_range(&cfg->ring_frames, SOFL_AFPACKET_RING_FRAMES_DEFAULT,
				  SOFL_AFPACKET_RING_FRAMES_MIN, SOFL_AFPACKET_RING_FRAMES_MAX)) < 0 ||
	    (err = port_cfg_range(&cfg->tx_batch, SOFL_AFPACKET_TX_BATCH_DEFAULT,
				  SOFL_AFPACKET_TX_BATCH_MIN, SOFL_AFPACKET_TX_BATCH_MAX)) < 0 ||
	    (err = port_cfg_range(&cfg->tx_ring_frames, SOFL_AFPACKET_TX_RING_FRAMES_DEFAULT,
				  SOFL_AFPACKET_TX_RING_FRAMES_MIN,
				  SOFL_AFPACKET_TX_RING_FRAMES_MAX)) < 0)
		return err;
	if (cfg->rx_mode != SOFL_PORT_RX_SEGMENT && cfg->rx_mode != SOFL_PORT_RX_SUPER)
		return SOFL_E_CFG_RX_MODE;
	if (cfg->rx_mode == SOFL_PORT_RX_SUPER && (cfg->headroom || cfg->tailroom))
		return SOFL_E_CFG_ROOM;
	return 0;
}

/* Everything but the socket: batches, send arrays, the ring in heap
 * memory when @heap_ring (tests).  @return 0, SOFL_E_NOMEM. */
static int
afp_alloc(struct afp *a, const struct sofl_afpacket_config *cfg, uint32_t slot_size, int heap_ring)
{
	uint32_t segs = cfg->rx_batch;

	a->base.ops = &afp_ops;
	a->base.quiet = cfg->quiet;
	a->vnet = cfg->vnet_hdr != 0;
	a->rx_mode = cfg->rx_mode;
	a->mtu = cfg->mtu;
	a->slot_size = slot_size;
	a->per_block = AFP_BLOCK / slot_size;
	a->slots = cfg->ring_frames;
	if ((size_t)a->slots * slot_size > AFP_RING_MAX)
		a->slots = AFP_RING_MAX / slot_size;
	a->tx_cap = cfg->tx_batch;
	/* a 64 KB super-packet cut to 1448-byte segments makes 46; room for
	 * several per batch, headers of up to 128 bytes each */
	a->iov_cap = a->tx_cap * 4 < 1024 ? 1024 : a->tx_cap * 4;
	a->scratch_cap = (size_t)(a->tx_cap < 64 ? 64 : a->tx_cap) * 192;
	if (port_rxq_init(&a->q, segs, 2, (size_t)segs * 192, cfg->headroom, cfg->tailroom) < 0)
		return SOFL_E_NOMEM;
	a->msg = calloc(a->tx_cap, sizeof(*a->msg));
	a->mi = calloc(a->tx_cap, sizeof(*a->mi));
	a->iov = calloc(a->iov_cap, sizeof(*a->iov));
	a->vh = calloc(a->tx_cap, AFP_VH);
	a->scratch = malloc(a->scratch_cap);
	a->seg = calloc(a->tx_cap, sizeof(*a->seg));
	a->giov = calloc(a->iov_cap, sizeof(*a->giov));
	a->retry = calloc(a->tx_cap, sizeof(*a->retry));
	if (!a->msg || !a->mi || !a->iov || !a->vh || !a->scratch || !a->seg || !a->giov ||
	    !a->retry)
		return SOFL_E_NOMEM;
	a->big = malloc((size_t)AFP_NBIG * AFP_BIG);
	if (!a->big)
		return SOFL_E_NOMEM;
	if (!cfg->ring)
		return 0;
	a->ring_len = (size_t)((a->slots + a->per_block - 1) / a->per_block) * AFP_BLOCK;
	if (heap_ring) {
		a->ring = calloc(1, a->ring_len);
		a->ring_heap = 1;
		if (!a->ring)
			return SOFL_E_NOMEM;
	}
	return 0;
}

static int
sockopt(int fd, int name, int v)
{
	return setsockopt(fd, SOL_PACKET, name, &v, sizeof(v));
}

static int
ethtool_get(int fd, const char *ifname, uint32_t cmd)
{
	struct ethtool_value ev = { .cmd = cmd };
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&ev;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		return 0;
	return ev.data != 0;
}

/* MAC, MTU and the transmit features of the device. */
static int
afp_probe(struct afp *a, const struct sofl_afpacket_config *cfg)
{
	struct ifreq ifr;
	int fd = a->base.fd;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", cfg->ifname);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0)
		return SOFL_E_SYS;
	memcpy(a->mac, ifr.ifr_hwaddr.sa_data, 6);
	if (a->vnet)
		a->base.offloads |= SOFL_PORT_OFF_F_VNET | SOFL_PORT_OFF_F_GSO;
	if (a->vnet && cfg->tx_offload) {
		if (ethtool_get(fd, cfg->ifname, ETHTOOL_GTXCSUM))
			a->base.offloads |= SOFL_PORT_OFF_F_CSUM;
		if (ethtool_get(fd, cfg->ifname, ETHTOOL_GTSO))
			a->base.offloads |= SOFL_PORT_OFF_F_TSO4 | SOFL_PORT_OFF_F_TSO6;
	}
	if (cfg->tx_ring) {
		struct ifreq mr;
		int r;

		/* the ring's frames are cut in software, never by the device */
		memset(&mr, 0, sizeof(mr));
		snprintf(mr.ifr_name, sizeof(mr.ifr_name), "%s", cfg->ifname);
		if (ioctl(fd, SIOCGIFMTU, &mr) < 0)
			return SOFL_E_SYS;
		a->txr = calloc(1, sizeof(*a->txr));
		if (!a->txr)
			return SOFL_E_NOMEM;
		a->txr->fd = -1;
		a->txr->drop_in = txr_drop_in;
		a->txr->arg = a;
		if ((r = afp_txr_open(a->txr, &a->base, a->ifindex, cfg->tx_ring_frames,
				      (uint32_t)mr.ifr_mtu, cfg->qdisc_bypass, cfg->sndbuf)) < 0)
			return r;
		a->base.offloads &= ~(unsigned)(SOFL_PORT_OFF_F_CSUM | SOFL_PORT_OFF_F_TSO4 |
						SOFL_PORT_OFF_F_TSO6);
		a->base.offloads |= SOFL_PORT_OFF_F_TX_RING;
	}
	return 0;
}

/* Slot size: a power of two (at least AFP_SLOT_MIN) that holds a frame of
 * @mtu with the slot's headers, or the 64 KB maximum past 32 KB. */
static uint32_t
slot_for(uint32_t want, uint32_t mtu)
{
	uint32_t need = want ? want : 96 + 18 + mtu, sz = AFP_SLOT_MIN;

	if (need > 32768)
		return AFP_SLOT_MAX;
	while (sz < need)
		sz <<= 1;
	return sz;
}

static int
afp_socket(struct afp *a, const struct sofl_afpacket_config *cfg)
{
	struct tpacket_req req;
	struct sockaddr_ll sll;
	struct packet_mreq mr;
	int fd;

	fd = a->base.fd;
	if (a->vnet && sockopt(fd, PACKET_VNET_HDR, 1) < 0)
		return SOFL_E_SYS;
	if (cfg->ignore_outgoing && sockopt(fd, PACKET_IGNORE_OUTGOING, 1) < 0)
		return SOFL_E_SYS;
	if (cfg->qdisc_bypass && sockopt(fd, PACKET_QDISC_BYPASS, 1) < 0)
		return SOFL_E_SYS;
	if (cfg->sndbuf > 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &cfg->sndbuf, sizeof(cfg->sndbuf)) < 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &cfg->sndbuf, sizeof(cfg->sndbuf)) < 0)
		return SOFL_E_SYS;
	if (cfg->ring) {
		if (sockopt(fd, PACKET_VERSION, TPACKET_V2) < 0)
			return SOFL_E_SYS;
		memset(&req, 0, sizeof(req));
		req.tp_block_size = AFP_BLOCK;
		req.tp_frame_size = a->slot_size;
		req.tp_block_nr = (unsigned)(a->ring_len / AFP_BLOCK);
		req.tp_frame_nr = req.tp_block_nr * a->per_block;
		a->slots = req.tp_frame_nr;
		if (setsockopt(fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)) < 0)
			return SOFL_E_SYS;
		if (a->slot_size < AFP_SLOT_MAX) {
			int rb = AFP_RCVBUF;

			/* frames bigger than a slot also go whole to the
			 * socket's queue, which must have room for them */
			if (sockopt(fd, PACKET_COPY_THRESH, 1) < 0)
				return SOFL_E_SYS;
			if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rb, sizeof(rb)) < 0)
				(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rb, sizeof(rb));
		}
		a->ring = mmap(NULL, a->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (a->ring == MAP_FAILED) {
			a->ring = NULL;
			return SOFL_E_SYS;
		}
	} else {
		int rb = AFP_RCVBUF;

		/* every frame waits on the socket's queue: as deep as a ring */
		if (sockopt(fd, PACKET_AUXDATA, 1) < 0)
			return SOFL_E_SYS;
		if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rb, sizeof(rb)) < 0)
			(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rb, sizeof(rb));
	}
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = a->ifindex;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		return SOFL_E_SYS;
	if (cfg->promisc) {
		memset(&mr, 0, sizeof(mr));
		mr.mr_ifindex = a->ifindex;
		mr.mr_type = PACKET_MR_PROMISC;
		if (setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr)) < 0)
			return SOFL_E_SYS;
	}
	return afp_probe(a, cfg);
}

SOFL_API int
sofl_afpacket_open(const struct sofl_afpacket_config *in, struct sofl_port **out)
{
	struct sofl_afpacket_config c;
	const struct sofl_afpacket_config *cfg = &c;
	struct afp *a;
	int r, e;

	if (!out)
		return SOFL_E_INVAL;
	*out = NULL;
	if ((r = afpacket_config_copy(&c, in)) < 0)
		return r;
	if (!cfg->ifname || !*cfg->ifname || strlen(cfg->ifname) >= IFNAMSIZ)
		return SOFL_E_CFG_NAME;
	a = calloc(1, sizeof(*a));
	if (!a)
		return SOFL_E_NOMEM;
	a->base.fd = -1;
	a->ifindex = (int)if_nametoindex(cfg->ifname);
	if (a->ifindex == 0) {
		free(a);
		errno = ENODEV;
		return SOFL_E_SYS;
	}
	/* protocol 0 until bound: nothing is queued before the ring exists */
	a->base.fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	r = a->base.fd < 0 ? SOFL_E_SYS : 0;
	if (r == 0) {
		struct ifreq ifr;

		memset(&ifr, 0, sizeof(ifr));
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", cfg->ifname);
		if (ioctl(a->base.fd, SIOCGIFMTU, &ifr) < 0)
			r = SOFL_E_SYS;
		else
			r = afp_alloc(a, cfg, slot_for(cfg->slot_size, (uint32_t)ifr.ifr_mtu), 0);
	}
	if (r == 0)
		r = afp_socket(a, cfg);
	if (r < 0) {
		e = errno;
		afp_close(&a->base);
		free(a);
		errno = e;
		return r;
	}
	a->last_sync = now_ns();
	*out = &a->base;
	return 0;
}

static struct afp *
afp_cast(const struct sofl_port *port)
{
	if (!port || port->ops != &afp_ops)
		return NULL;
	return (struct afp *)(uintptr_t)port;
}

SOFL_API int
sofl_afpacket_mac(const struct sofl_port *port, uint8_t mac[6])
{
	const struct afp *a = afp_cast(port);

	if (!port || !mac)
		return SOFL_E_INVAL;
	if (!a)
		return SOFL_E_PORT_KIND;
	memcpy(mac, a->mac, 6);
	return 0;
}

SOFL_API int
sofl_afpacket_sync_stats(struct sofl_port *port)
{
	struct afp *a = afp_cast(port);

	if (!port)
		return SOFL_E_INVAL;
	if (!a)
		return SOFL_E_PORT_KIND;
	return kstats(a);
}

/* ---- internal entry points for the tests and fuzzers (port_impl.h) ---- */

int
port_afpacket_make(const struct sofl_afpacket_config *in, unsigned offloads, const uint8_t mac[6],
	      struct sofl_port **out)
{
	struct sofl_afpacket_config c;
	const struct sofl_afpacket_config *cfg = &c;
	struct afp *a;
	int r;

	if (!out)
		return SOFL_E_INVAL;
	*out = NULL;
	if ((r = afpacket_config_copy(&c, in)) < 0)
		return r;
	a = calloc(1, sizeof(*a));
	if (!a)
		return SOFL_E_NOMEM;
	a->base.fd = -1;
	r = afp_alloc(a, cfg, cfg->slot_size ? slot_for(cfg->slot_size, 0) : AFP_SLOT_MAX, 1);
	if (r < 0) {
		afp_close(&a->base);
		free(a);
		return r;
	}
	a->base.offloads = offloads;
	if (mac)
		memcpy(a->mac, mac, 6);
	*out = &a->base;
	return 0;
}

uint8_t *
port_afpacket_slot(struct sofl_port *port, uint32_t i, uint32_t *size)
{
	struct afp *a = afp_cast(port);

	if (!a || !a->ring || !a->ring_heap || i >= a->slots)
		return NULL;
	if (size)
		*size = a->slot_size;
	return slot(a, (a->head + i) % a->slots);
}

void
port_afpacket_tx_hook(struct sofl_port *port, int (*fn)(void *, struct mmsghdr *, unsigned),
		 void *arg)
{
	struct afp *a = afp_cast(port);

	if (a) {
		a->hook = fn;
		a->hook_arg = arg;
	}
}
