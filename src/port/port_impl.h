/*
 * Internal interface of the ports (port.h): the object every port type
 * extends, its operations, and the helpers the types share (src/port/port.c).
 * Not installed.  A port type embeds struct sofl_port as its first member
 * and fills ->ops; port.c dispatches the public calls through it.
 */
#ifndef SOFL_PORT_IMPL_H
#define SOFL_PORT_IMPL_H

#include <stdint.h>
#include <sys/uio.h>
#include "softoffload/port.h"
#include "softoffload/gso.h"
#include "softoffload/gro.h"

struct sofl_port_ops {
	const char *kind;		/* "tun", "tap", "udp", "afpacket" */
	int (*recv)(struct sofl_port *, struct sofl_port_pkt **);
	int (*send)(struct sofl_port *, const struct sofl_port_pkt *, size_t);
	void (*close)(struct sofl_port *);	/* frees the type's state, closes the fd;
						 * port.c then frees the object */
	/* optional: adds counters kept outside port->st (any thread), and
	 * takes them back to 0 (owner thread) */
	void (*stats)(const struct sofl_port *, struct sofl_port_stats *);
	void (*reset)(struct sofl_port *);
};

struct sofl_port {
	const struct sofl_port_ops *ops;
	int fd;
	unsigned offloads;		/* SOFL_PORT_OFF_F_*; written by the owner thread only */
	int quiet;
	unsigned logged;		/* fallback messages printed (bit per kind) */
	struct sofl_port_stats st;	/* updated through port_add() / port_drop() */
	struct sofl_gro *gro;		/* the port's GRO engine, or NULL */
	struct sofl_gro_stats gro_st;	/* mirror of gro's counters, see port_gro_mirror() */
	/* Kept batches (sofl_port_keep, port.c): a type that supports them
	 * sets rxq (its receive batch) and, when its packets point into read
	 * buffers, rxbuf[0..nrxbuf) (pointers, each rxbuf_size bytes, swapped
	 * with a kept batch's) and after every receive rx_used (buffers
	 * 0..rx_used-1 hold the batch's bytes). */
	struct port_rxq *rxq;
	uint8_t **rxbuf;
	uint32_t nrxbuf, rx_used;
	size_t rxbuf_size;
	struct port_keep *keep;		/* NULL until sofl_port_set_keep() */
};

/* The one rule for a count or size field of a port config (port.h): 0 is
 * @def, anything else must lie in [@min, @max].  @return 0 (*v set) or
 * SOFL_E_CFG_BATCH. */
static inline int
port_cfg_range(uint32_t *v, uint32_t def, uint32_t min, uint32_t max)
{
	if (*v == 0)
		*v = def;
	return *v < min || *v > max ? SOFL_E_CFG_BATCH : 0;
}

/* A counter update that a reader on another thread sees whole. */
static inline void
port_add(uint64_t *c, uint64_t v)
{
	__atomic_store_n(c, *c + v, __ATOMIC_RELAXED);
}

/* The one non-empty iovec of @pk, or NULL when it has several (a packet a
 * port can hand to the kernel, or checksum, as one buffer). */
static inline const struct iovec *
port_pkt_flat(const struct sofl_port_pkt *pk)
{
	const struct iovec *one = NULL;
	uint32_t i;

	for (i = 0; i < pk->iovcnt; i++) {
		if (pk->iov[i].iov_len == 0)
			continue;
		if (one)
			return NULL;
		one = &pk->iov[i];
	}
	return one;
}

/* Bytes in @pk's iovecs. */
static inline size_t
port_pkt_bytes(const struct sofl_port_pkt *pk)
{
	size_t t = 0;
	uint32_t i;

	for (i = 0; i < pk->iovcnt; i++)
		t += pk->iov[i].iov_len;
	return t;
}

/* Counts @n dropped packets for @reason (enum sofl_port_drop): @tx 0
 * receive, 1 send. */
void port_drop(struct sofl_port *port, int tx, int reason, uint64_t n);
/* Counts a system-call fault with errno @err as a drop of @n packets (the
 * reason from port_errno_reason()) and remembers @err in last_errno. */
void port_fault(struct sofl_port *port, int tx, int err, uint64_t n);
/* The drop reason for errno @err (ENOBUFS -> NOBUFS, ECONNREFUSED -> REFUSED...). */
int port_errno_reason(int err);
/* An offload given up at run time: counts a fallback and, the first time
 * for bit @what (0..31) and unless port->quiet, logs "<kind>: <msg>" at
 * SOFL_LOG_WARN (base/log.h: to the program's callback, if any). */
void port_fallback(struct sofl_port *port, unsigned what, const char *msg);
/* Copies the GRO engine's counters into port->gro_st with relaxed atomic
 * stores (call after each batch; cheap: a few hundred bytes). */
void port_gro_mirror(struct sofl_port *port);

/*
 * The receive batch: packets handed to the caller, their iovecs, the
 * headers of the segments cut by GSO and the head/tail areas.  Reset at
 * every sofl_port_recv(); sized once at open.
 */
struct port_rxq {
	struct sofl_port_pkt *pkt;
	uint32_t n, cap;
	struct iovec *iov;
	uint32_t niov, iov_cap;
	uint8_t *hdr;			/* GSO header scratch */
	size_t hdr_used, hdr_cap;
	struct sofl_gso_seg *seg;	/* sofl_gso_segment() output, copied into pkt[] */
	struct iovec *tiov;		/* its iovecs (2 per segment), copied likewise */
	uint8_t *room;			/* cap * (headroom + tailroom) bytes */
	uint16_t headroom, tailroom;
	const struct sofl_rss *rss;	/* non-NULL: hash every packet added */
	unsigned vnet_opts;		/* SOFL_VNET_F_TUNNEL(_CSUM) the port negotiated:
					 * the features its virtio headers are checked with */
	uint8_t *arena;			/* contiguous mode (port_rxq_set_contig): packets
					 * copied here, each between its head and tail area */
	size_t arena_used, arena_cap;
	uint32_t iov_per_pkt;		/* port_rxq_init()'s arguments (port_rxq_clone) */
};

/* Allocates a batch of @cap packets (segments), with @iov_per_pkt iovecs
 * each on average, @hdr_bytes of header scratch.  @return 0, SOFL_E_NOMEM. */
int port_rxq_init(struct port_rxq *q, uint32_t cap, uint32_t iov_per_pkt, size_t hdr_bytes,
		  uint16_t headroom, uint16_t tailroom);
void port_rxq_free(struct port_rxq *q);
/* Gives @q an arena for rx_mode SOFL_PORT_RX_CONTIG: room for its cap
 * packets of a 1500-byte MTU and two 64 KB frames, with their head and
 * tail areas.  @return 0, SOFL_E_NOMEM. */
int port_rxq_set_contig(struct port_rxq *q);
/* Allocates @q as a second batch shaped like @src (same sizes, areas,
 * arena, rss).  @return 0, SOFL_E_NOMEM. */
int port_rxq_clone(struct port_rxq *q, const struct port_rxq *src);
static inline void
port_rxq_reset(struct port_rxq *q)
{
	q->n = 0;
	q->niov = 0;
	q->hdr_used = 0;
	q->arena_used = 0;
}
/* Frees the kept-batch pool (sofl_port_close() calls it). */
void port_keep_free(struct sofl_port *port);

/* What port_rxq_add() did with a frame */
#define PORT_RXQ_FULL	(-1000)		/* no room: keep the frame for the next batch */

/*
 * Adds one received frame @frame/@len (@link) whose virtio header is @h
 * (NULL: none, a plain packet) to the batch: in @mode CONTIG as in SEGMENT
 * but every packet copied into the arena (GSO's fused copy+checksum for a
 * GSO or NEEDS_CSUM frame, memcpy for the others) between its head and tail
 * areas; in @mode SEGMENT a GSO frame
 * is cut into segments (zero copy, checksums completed in software) and a
 * NEEDS_CSUM frame gets its checksum completed (its headers copied to
 * scratch); in mode SUPER the frame goes as it is with .vnet.  With
 * q->rss the packets get the flow's Toeplitz hash (the frame is parsed once
 * for both).  @mtu > 0:
 * larger outputs are dropped (TOO_BIG).  Faults are counted as receive
 * drops on @port.
 * @return packets added (0: dropped and counted), or PORT_RXQ_FULL when the
 *         batch cannot take the frame's segments and is not empty (nothing
 *         added: offer the frame again after the batch was handed out; an
 *         empty batch that cannot take it drops it as NOROOM).
 */
int port_rxq_add(struct sofl_port *port, struct port_rxq *q, uint8_t *frame, uint32_t len,
		 const struct sofl_vnet_hdr *h, enum sofl_link link, int mode, uint32_t mtu);

/* Adds @len bytes at @data as one packet with no header processing (a
 * datagram, a plain read); the head/tail areas are attached.  @return 1, or
 * PORT_RXQ_FULL. */
int port_rxq_add_plain(struct port_rxq *q, uint8_t *data, uint32_t len, uint32_t flags);

/* Internal constructors and entry points for the tests and fuzzers: a
 * TUN/TAP port on descriptor @fd (any writable fd, e.g. /dev/null) with
 * offloads @offloads taken as negotiated, without any ioctl; a received
 * buffer processed as if read() / recvmsg() had returned it. */
int port_tun_make(const struct sofl_tun_config *cfg, int fd, unsigned offloads,
		  const char *name, struct sofl_port **out);
int port_tun_rx_buf(struct sofl_port *port, struct sofl_port_pkt **pkts, uint8_t *buf,
		    size_t len);
int port_udp_make(const struct sofl_udp_config *cfg, int fd, unsigned offloads,
		  struct sofl_port **out);
/* (Debian 12's libc headers predate these) */
#ifndef UDP_GRO
#define UDP_GRO 104
#endif
#ifndef SOL_UDP
#define SOL_UDP 17
#endif

/* udp_sink.c: the runt sink of .min_len_kernel, for a UDP socket bound to
 * a specific address and port with SO_REUSEPORT, not connected */
struct udp_sink {
	int fd;		/* the sink socket, or -1 */
	int map;	/* the eBPF program's counter map, or -1: classic BPF */
};
/* Opens @s for @fd, datagrams shorter than @min_len.  @return 0, or -1 with
 * errno set (@s closed). */
int udp_sink_open(struct udp_sink *s, int fd, uint32_t min_len);
/* The datagrams the sink took since it was opened (classic BPF: its drop
 * count, modulo 2^32).  Any thread. */
uint64_t udp_sink_count(const struct udp_sink *s);
void udp_sink_close(struct udp_sink *s);
int port_udp_rx_buf(struct sofl_port *port, struct sofl_port_pkt **pkts, uint8_t *buf,
		    size_t len, int gso_size);

/* AF_PACKET (src/port/port_afpacket.c), for the tests and fuzzers: a port without
 * a socket whose receive ring is heap memory; port_afpacket_slot() is the @i-th
 * slot from the next one sofl_port_recv() reads (@*size its bytes), to be
 * filled as Linux tpacket_rcv() would (struct tpacket2_hdr, tp_status
 * TP_STATUS_USER last); port_afpacket_tx_hook() replaces sendmmsg() (@fn returns
 * what sendmmsg would, errno set on -1). */
struct mmsghdr;
int port_afpacket_make(const struct sofl_afpacket_config *cfg, unsigned offloads, const uint8_t mac[6],
		  struct sofl_port **out);
uint8_t *port_afpacket_slot(struct sofl_port *port, uint32_t i, uint32_t *size);
void port_afpacket_tx_hook(struct sofl_port *port, int (*fn)(void *, struct mmsghdr *, unsigned),
		      void *arg);

/* port_gso_prepare() : the GSO parameters of the super-packet or partial
 * checksum @pk (an Ethernet frame with its virtio header) for a port that
 * cuts it in software: parsed once, where it lies when it is one piece,
 * else from its first bytes gathered into @hdrbuf (SOFL_PKT_IOV_HDR_MAX);
 * the virtio rules measure the whole frame (any header Linux takes,
 * UDP-tunnel ones included).  *@src and *@cnt are the engine's input
 * (NULL and 0: contiguous at p->data).  @return 0, or the drop reason
 * (SOFL_PORT_DROP_MALFORMED, SOFL_PORT_DROP_VNET). */
int port_gso_prepare(const struct sofl_port_pkt *pk, uint8_t *hdrbuf, struct sofl_pkt *p,
		     struct sofl_gso_params *gp, const struct iovec **src, int *cnt);

#endif
