/*
 * softoffload — ports: live packet I/O that speaks the kernel's offloads.
 *
 * A port is an opaque object around one file descriptor (a TUN/TAP queue, a
 * UDP socket, an AF_PACKET socket) with the library's engines attached: it
 * reads batches of packets, segmenting super-packets (GSO) and completing
 * checksums where the kernel left them partial, and writes batches,
 * coalescing them (GRO) or grouping them (UDP_SEGMENT) into as few system
 * calls and super-packets as the kernel accepts.  Every port type is used
 * through the same calls (sofl_port_recv / sofl_port_send / sofl_port_close),
 * so a program can move packets between any two ports.
 *
 * HowTo (TUN -> UDP, zero copy)
 *   ```c
 *   #include <poll.h>
 *   #include <softoffload/port.h>
 *
 *   // Carries the packets of TUN "tun0" to @peer, one datagram each.
 *   int
 *   tun_to_udp(const struct sockaddr *peer, socklen_t peer_len)
 *   {
 *       struct sofl_tun_config tc;
 *       struct sofl_udp_config uc;
 *       struct sofl_port *tun = NULL, *udp = NULL;
 *       struct sofl_port_pkt *pk;
 *       int n, err;
 *
 *       sofl_tun_config_init(&tc);
 *       tc.name = "tun0";                 // created if missing (CAP_NET_ADMIN)
 *       sofl_udp_config_init(&uc);
 *       uc.remote = peer;
 *       uc.remote_len = peer_len;
 *       uc.connect = 1;
 *       if ((err = sofl_tun_open(&tc, &tun)) < 0 ||
 *           (err = sofl_udp_open(&uc, &udp)) < 0)
 *           goto out;                     // sofl_strerror(err), errno for SOFL_E_SYS
 *       for (;;) {
 *           struct pollfd pf = { .fd = sofl_port_fd(tun), .events = POLLIN };
 *
 *           if (poll(&pf, 1, -1) < 0)
 *               break;
 *           if ((n = sofl_port_recv(tun, &pk)) < 0) {  // wire-size packets
 *               err = n;
 *               break;
 *           }
 *           sofl_port_send(udp, pk, (size_t)n);        // UDP_SEGMENT runs
 *       }
 *   out:
 *       sofl_port_close(tun);
 *       sofl_port_close(udp);
 *       return err;
 *   }
 *   ```
 *   Nothing is copied: pk[i].iov points into the port's read buffer (the
 *   payload, as the kernel wrote it) and into its header scratch (the
 *   segments' headers), and sofl_port_send() hands those iovecs to the
 *   kernel.
 *
 * Packets (struct sofl_port_pkt)
 *   A packet is an iovec list.  On receive, the port fills an array of them
 *   and owns it: the packets, their iovec arrays and the bytes they point to
 *   stay valid, and may be modified in place (encrypt, rewrite, shorten the
 *   iovecs), until the next sofl_port_recv() on the same port or
 *   sofl_port_close().  A port configured with headroom H and tailroom T
 *   gives every received packet an H-byte writable area as iov[0] and a
 *   T-byte one as iov[iovcnt - 1]: room for an outer header and a trailer
 *   (an AEAD tag) that costs no second copy.  The caller fills them and sets
 *   their iov_len to what it used (0 is fine); sofl_port_send() sends every
 *   iovec of a packet, in order.  @len counts only the packet between them.
 *   Between the areas lie, per rx_mode: SEGMENT, 1 piece for a packet the
 *   port did not touch, 2 (headers in the port's scratch, payload in the
 *   read buffer) for a segment it cut or a checksum it completed; CONTIG,
 *   always 1, adjacent to both areas (head + packet + tail is one buffer:
 *   one-shot AEAD in place, at the cost of one fused copy+checksum,
 *   bench/bench_port_rx); SUPER, 1; UDP, 1 (the datagram).
 *   On send, the packets are the caller's and are only read; the call is
 *   synchronous: when it returns, the kernel has taken (copied) or refused
 *   every byte, and the caller may reuse the buffers.  What is sent is the
 *   iovecs: every byte of every iovec, head and tail areas included (a UDP
 *   datagram is their sum; UDP_SEGMENT runs are grouped by it).  @len is
 *   only counted (tx_bytes); set it to the bytes you want counted (the
 *   ports never size anything from it).  Received packets kept past the
 *   next receive: "Kept batches" below.
 *
 * Errors and faults
 *   Creation and argument errors are negative SOFL_E* codes (sofl_strerror);
 *   a failed system call is SOFL_E_SYS with errno left as the call set it.
 *   Faults while moving packets (a peer that is not there, a full socket
 *   buffer, a malformed datagram, a virtio header the kernel should not have
 *   produced) are never errors of the call: the packet is dropped and
 *   counted in the port's statistics by reason (enum sofl_port_drop), and
 *   the port keeps working.  An offload the kernel refuses at run time (a GSO
 *   write answered EINVAL, UDP_SEGMENT answered EIO) is disabled, logged once
 *   at SOFL_LOG_WARN (unless cfg.quiet; the library prints nothing itself:
 *   the message goes to the callback of sofl_set_log(), error.h, if the
 *   program set one), counted as a fallback, and the packets go out the
 *   plain way.
 *
 * Thread-safety: a port is single-threaded (one per queue and thread, as
 * the engines); distinct ports are independent.  sofl_port_get_stats() may
 * be called from another thread: it reads counters that are updated with
 * relaxed atomic stores, so a reader sees each counter whole (never torn),
 * though not a consistent snapshot across counters.
 * Memory: everything is allocated by the open call; recv/send never
 * allocate.  System calls: batched (recvmmsg/sendmmsg, UDP_SEGMENT, one
 * writev per super-packet, one read per super-packet: TUN has no batched
 * read).  Linux only.
 */
#ifndef SOFTOFFLOAD_PORT_H
#define SOFTOFFLOAD_PORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include <sys/socket.h>
#include "softoffload/error.h"
#include "softoffload/vnet.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Used through pointers only: gro.h and rss.h declare them. */
struct sofl_gro_config;
struct sofl_gro_stats;
struct sofl_rss;

/* ---------------------------------------------------------------------- */
/* Shared types                                                            */
/* ---------------------------------------------------------------------- */

/* struct sofl_port_pkt .flags */
#define SOFL_PORT_PKT_F_VNET    0x01	/* .vnet describes the packet: a super-packet
					 * (gso_type != NONE) or a partial checksum
					 * (NEEDS_CSUM), to be finished by the receiver */
#define SOFL_PORT_PKT_F_CSUM_OK 0x02	/* checksums known good (the kernel said
					 * DATA_VALID, or the port completed / verified
					 * them); on send to a TUN/TAP: GRO trusts them */
#define SOFL_PORT_PKT_F_HASH    0x04	/* .hash holds a flow hash (RSS) */
#define SOFL_PORT_PKT_F_UDP_CSUM 0x08	/* UDP receive: a segment of a message the
					 * kernel coalesced (UDP_GRO, more than one
					 * datagram).  Linux coalesces only datagrams
					 * with a non-zero UDP checksum that it
					 * verified (udp_gro_receive_segment(),
					 * udp4/6_gro_receive()), or its own local
					 * UDP_SEGMENT sends: the payload arrived as
					 * sent.  A single datagram never has it (its
					 * checksum may have been 0).  Ignored on send */

struct sofl_port_pkt {
	struct iovec *iov;	/* the packet (plus headroom/tailroom areas, see above) */
	uint32_t iovcnt;
	uint32_t len;		/* packet bytes, head and tail areas excluded */
	uint16_t headroom;	/* 0, or the size of the area at iov[0] (receive) */
	uint16_t tailroom;	/* 0, or the size of the area at iov[iovcnt - 1] */
	uint32_t flags;		/* SOFL_PORT_PKT_F_* */
	uint32_t hash;		/* with SOFL_PORT_PKT_F_HASH */
	struct sofl_vnet_hdr vnet; /* with SOFL_PORT_PKT_F_VNET */
	/* Datagram ports: receive: the sender (port-owned storage, valid as the
	 * packet); send: the destination, or NULL for the port's default remote. */
	const struct sockaddr *addr;
	socklen_t addrlen;
};

/* Why a packet was dropped (struct sofl_port_stats .rx_drop / .tx_drop) */
enum sofl_port_drop {
	SOFL_PORT_DROP_VNET = 0,	/* virtio header the kernel would refuse / must not send */
	SOFL_PORT_DROP_MALFORMED,	/* packet that cannot be parsed or segmented */
	SOFL_PORT_DROP_TOO_BIG,		/* longer than the buffer / MTU / EMSGSIZE */
	SOFL_PORT_DROP_TRUNC,		/* truncated by the kernel (MSG_TRUNC) */
	SOFL_PORT_DROP_NOROOM,		/* no room in the port's batch for its segments */
	SOFL_PORT_DROP_NOBUFS,		/* ENOBUFS / ENOMEM from the kernel */
	SOFL_PORT_DROP_AGAIN,		/* EAGAIN: buffer full on a non-blocking send */
	SOFL_PORT_DROP_REFUSED,		/* ECONNREFUSED (ICMP port unreachable) */
	SOFL_PORT_DROP_UNREACH,		/* EHOSTUNREACH / ENETUNREACH / EHOSTDOWN */
	SOFL_PORT_DROP_PEER,		/* datagram from a source the port does not accept */
	SOFL_PORT_DROP_RCVBUF,		/* dropped by the kernel: receive buffer full (SO_RXQ_OVFL) */
	SOFL_PORT_DROP_IO,		/* any other system-call error (errno in last_errno) */
	SOFL_PORT_DROP_DOWN,		/* device down / no carrier (EIO on a TUN) */
	SOFL_PORT_DROP_UNSUPPORTED,	/* not sendable on this port (e.g. iovcnt > IOV_MAX) */
	SOFL_PORT_DROP_RUNT,		/* received datagram shorter than the port's minimum (0.4.0) */
	SOFL_PORT_DROP__MAX = 24	/* room to grow; names for unused slots are "?" */
};

/* Counters of one port.  "super" = a super-packet (TUN/TAP: a packet with a
 * GSO virtio header; UDP: a UDP_SEGMENT send or a UDP_GRO receive that
 * carried several datagrams); "segs" = the packets inside them. */
struct sofl_port_stats {
	uint64_t rx_calls;		/* receive system calls that returned data */
	uint64_t rx_pkts;		/* packets handed to the caller */
	uint64_t rx_bytes;		/* their bytes (.len) */
	uint64_t rx_super;		/* super-packets received */
	uint64_t rx_segs;		/* packets they were split into */
	uint64_t tx_calls;		/* send/write system calls */
	uint64_t tx_pkts;		/* packets accepted by the kernel */
	uint64_t tx_bytes;		/* their bytes */
	uint64_t tx_super;		/* super-packets written / UDP_SEGMENT sends */
	uint64_t tx_segs;		/* packets inside them */
	uint64_t csum_sw;		/* checksums computed in software (partial ones completed) */
	uint64_t csum_sw_verify;	/* checksums verified in software (GRO on send) */
	uint64_t fallbacks;		/* offload refused at run time: sent the plain way */
	uint64_t rx_drop[SOFL_PORT_DROP__MAX];
	uint64_t tx_drop[SOFL_PORT_DROP__MAX];
	int32_t  last_errno;		/* errno of the last counted system-call fault */
	uint32_t pad_;
};

/* Offloads in use (sofl_port_offloads()); each one probed, never assumed. */
#define SOFL_PORT_OFF_F_VNET     0x0001	/* virtio headers on the fd (IFF_VNET_HDR, PACKET_VNET_HDR) */
#define SOFL_PORT_OFF_F_CSUM     0x0002	/* TUN_F_CSUM: packets with partial checksums */
#define SOFL_PORT_OFF_F_TSO4     0x0004	/* TUN_F_TSO4 */
#define SOFL_PORT_OFF_F_TSO6     0x0008	/* TUN_F_TSO6 */
#define SOFL_PORT_OFF_F_TSO_ECN  0x0010	/* TUN_F_TSO_ECN */
#define SOFL_PORT_OFF_F_USO      0x0020	/* TUN_F_USO4 | TUN_F_USO6 (accepted together) */
#define SOFL_PORT_OFF_F_UDP_TNL  0x0040	/* TUN_F_UDP_TUNNEL_GSO with the 24-byte virtio
					 * header (Linux 6.17+): VXLAN/Geneve super-packets
					 * read and written whole */
#define SOFL_PORT_OFF_F_UDP_TNL_CSUM 0x0080 /* TUN_F_UDP_TUNNEL_GSO_CSUM: ... with a
					 * non-zero outer UDP checksum too, on read */
#define SOFL_PORT_OFF_F_UDP_GSO  0x0100	/* UDP_SEGMENT sends */
#define SOFL_PORT_OFF_F_UDP_GRO  0x0200	/* UDP_GRO receives */
#define SOFL_PORT_OFF_F_RUNT_KERNEL 0x0400 /* UDP .min_len_kernel: runts dropped in the
					 * kernel (a reuseport sink; 0.4.0) */
#define SOFL_PORT_OFF_F_RUNT_EBPF 0x0800 /* ... by an eBPF program that tests the
					 * segment size of coalesced ones too and counts
					 * them exactly (else classic BPF: the length) */
#define SOFL_PORT_OFF_F_GRO      0x1000	/* writes coalesced by the GRO engine */
#define SOFL_PORT_OFF_F_GSO      0x2000	/* reads segmented by the GSO engine */
#define SOFL_PORT_OFF_F_TX_RING  0x4000	/* AF_PACKET sends through PACKET_TX_RING
					 * (config .tx_ring) */

/*
 * Config values: one rule for every port config struct.  A count or size
 * field (a batch, a number of reads, a ring, a buffer) means the documented
 * default when it is 0; any other value must lie in [.._MIN, .._MAX] of
 * the constants below, else the open fails with SOFL_E_CFG_BATCH.  No value
 * is silently raised or lowered.  sofl_*_config_init() writes the defaults
 * themselves, so a field left alone and a field set to 0 open the same port.
 * The config struct is copied (src/base/cfg.h's rule for its size field) by
 * the open call, so it may be freed after.
 */
#define SOFL_TUN_RX_BATCH_DEFAULT	256	/* packets per sofl_port_recv() */
#define SOFL_TUN_RX_BATCH_MIN		64	/* the floor the port has always applied */
#define SOFL_TUN_RX_BATCH_MAX		(1u << 20)
#define SOFL_TUN_RX_READS_DEFAULT	16	/* read() calls per sofl_port_recv() */
#define SOFL_TUN_RX_READS_MIN		1
#define SOFL_TUN_RX_READS_MAX		4096
#define SOFL_UDP_RX_BATCH_DEFAULT	32	/* datagram buffers per recvmmsg() */
#define SOFL_UDP_RX_BATCH_MIN		1
#define SOFL_UDP_RX_BATCH_MAX		1024
#define SOFL_UDP_RX_BUF_DEFAULT		65536	/* bytes per buffer (the minimum with .gro) */
#define SOFL_UDP_RX_BUF_MIN		64
#define SOFL_UDP_RX_BUF_MAX		(1u << 20)
#define SOFL_UDP_MAX_PKTS_MIN		1	/* default: 64 * rx_batch */
#define SOFL_UDP_MAX_PKTS_MAX		(1u << 20)
#define SOFL_AFPACKET_RX_BATCH_DEFAULT	256	/* packets per sofl_port_recv() */
#define SOFL_AFPACKET_RX_BATCH_MIN	1
#define SOFL_AFPACKET_RX_BATCH_MAX	65536
#define SOFL_AFPACKET_RING_FRAMES_DEFAULT 4096	/* receive ring slots */
#define SOFL_AFPACKET_RING_FRAMES_MIN	1
#define SOFL_AFPACKET_RING_FRAMES_MAX	65536
#define SOFL_AFPACKET_TX_BATCH_DEFAULT	256	/* messages per sendmmsg() */
#define SOFL_AFPACKET_TX_BATCH_MIN	1
#define SOFL_AFPACKET_TX_BATCH_MAX	65536
#define SOFL_AFPACKET_TX_RING_FRAMES_DEFAULT 256  /* transmit ring slots (.tx_ring) */
#define SOFL_AFPACKET_TX_RING_FRAMES_MIN 1
#define SOFL_AFPACKET_TX_RING_FRAMES_MAX 65536

/* Receive modes (config .rx_mode of ports that read virtio headers).
 * SEGMENT and CONTIG never set SOFL_PORT_PKT_F_VNET on a received packet:
 * what the header asked for (a cut, a checksum) is done; only SUPER hands
 * packets on with .vnet. */
enum sofl_port_rx_mode {
	SOFL_PORT_RX_SEGMENT = 0,	/* super-packets segmented to wire size, checksums complete;
					 * zero copy: a segment is its headers (port scratch) and
					 * its payload (the read buffer), so with head/tail room a
					 * packet is up to 4 iovecs */
	SOFL_PORT_RX_SUPER = 1,		/* packets as the kernel gave them, .vnet filled */
	SOFL_PORT_RX_CONTIG = 2,	/* as SEGMENT, but every packet copied into one piece
					 * (GSO's fused copy+checksum for what is cut or
					 * checksummed, memcpy for the rest), adjacent to its
					 * head and tail areas: iov[0] (headroom, if any),
					 * iov[1] the packet, iov[2] (tailroom, if any) lie
					 * back to back in memory, so head + packet + tail is
					 * one buffer (one-shot AEAD in place).  TUN/TAP only */
};

/* sofl_port_set_keep() bound: batches a caller may hold at once per port */
#define SOFL_PORT_KEEP_MAX	1024

struct sofl_port;

/* sofl_port_recv() :
 * Receives what is ready without blocking (non-blocking fd or MSG_DONTWAIT;
 * wait with poll() on sofl_port_fd()), up to the port's batch size, and sets
 * *pkts to the port-owned array of the packets.
 * @return their count (0: nothing ready), SOFL_E_INVAL (NULL), or SOFL_E_SYS
 *         (errno set) for a fault of the descriptor itself (EBADF, EFAULT,
 *         a TUN whose device was deleted): the port cannot go on.  Faults of
 *         single packets are counted, never returned.
 * Lifetime: *pkts, their iovecs and data until the next sofl_port_recv() or
 * sofl_port_close() of this port; modifiable in place. */
SOFL_API int sofl_port_recv(struct sofl_port *port, struct sofl_port_pkt **pkts);

/* sofl_port_send() :
 * Sends @n packets @pkts[0..n) in order, in as few system calls as the port
 * can (GRO into super-packets for TUN/TAP, UDP_SEGMENT runs and sendmmsg for
 * UDP).  Blocks while the kernel's buffers are full unless the port was
 * opened non-blocking for sends (then EAGAIN drops are counted).
 * @return the number of packets the kernel accepted (<= n; the others were
 *         dropped and counted by reason), SOFL_E_INVAL (NULL with n > 0), or
 *         SOFL_E_SYS for a fault of the descriptor itself.
 * The packets and their buffers are read only, and free again on return. */
SOFL_API int sofl_port_send(struct sofl_port *port, const struct sofl_port_pkt *pkts, size_t n);

/* sofl_port_fd() : the descriptor to poll() for input (POLLIN), or -1 (NULL).
 * Owned by the port: do not close it. */
SOFL_API int sofl_port_fd(const struct sofl_port *port);

/* sofl_port_offloads() : SOFL_PORT_OFF_F_* in use now (fallbacks clear bits). */
SOFL_API unsigned sofl_port_offloads(const struct sofl_port *port);

/* sofl_port_get_stats() :
 * Copies the first @size bytes of the counters since open or the last
 * sofl_port_reset_stats() into *s (pass sizeof(*s); a smaller size from an
 * older program gets the fields it knows, a larger one from a newer program
 * gets 0 past the fields this library has).  May be called from any thread
 * (see the top of this file).
 * @return 0, or SOFL_E_INVAL (@s NULL: nothing written; @port NULL: @size
 *         bytes of *s zeroed). */
SOFL_API int sofl_port_get_stats(const struct sofl_port *port, struct sofl_port_stats *s,
				 size_t size);

/* sofl_port_get_gro_stats() :
 * The counters of the port's GRO engine (the one that coalesces sends to a
 * TUN/TAP; UDP and AF_PACKET ports have none): the first @size bytes, as
 * sofl_gro_get_stats() copies them (pass sizeof(*s)).  @return 0, or
 * SOFL_E_NOTSUP (the port has no GRO engine; @size bytes of *s zeroed),
 * SOFL_E_INVAL (NULL).  Same thread rules as sofl_port_get_stats(). */
SOFL_API int sofl_port_get_gro_stats(const struct sofl_port *port, struct sofl_gro_stats *s,
				     size_t size);

/* sofl_port_reset_stats() :
 * Sets every counter of the port, and of its GRO engine if it has one, to
 * 0 (last_errno too).  Drops the kernel counted for an AF_PACKET socket and
 * that were not yet read (sofl_afpacket_sync_stats()) are added at the next
 * read.  Owner thread only (the thread that receives and sends); a reader
 * on another thread sees each counter either before or after the reset.
 * @return 0, or SOFL_E_INVAL (NULL). */
SOFL_API int sofl_port_reset_stats(struct sofl_port *port);

/* sofl_port_close() : closes the descriptor and frees the port (NULL is
 * fine).  Packets from its last receive become invalid, and so does every
 * batch kept from it (sofl_port_keep()): give them back, or at least stop
 * using them, first.  A TUN/TAP the port created (not persistent)
 * disappears when its last queue is closed. */
SOFL_API void sofl_port_close(struct sofl_port *port);

/*
 * Kept batches: received packets that leave the thread.
 *
 * A received batch normally lives until the next sofl_port_recv().  A port
 * given a pool with sofl_port_set_keep(port, N) lets its caller take the
 * batch the last receive returned (sofl_port_keep()): its packets, their
 * iovec arrays, the header scratch, head/tail areas and read buffers they
 * point into become the caller's, unchanged (the same pointers), and the
 * port goes on receiving into storage of its pool.  The caller may hand the
 * batch to other threads (encrypt, decrypt, write elsewhere), modify it in
 * place, send it on any port, and gives it back with sofl_port_give_back()
 * from any thread; the port reuses it for a later receive.  No copy, no
 * allocation: the pool (N batches' worth of the port's receive memory) is
 * allocated by sofl_port_set_keep().  Like an AF_XDP fill ring or an
 * io_uring buffer ring the pool is bounded: when all N are held,
 * sofl_port_keep() refuses (SOFL_E_PORT_HELD, counted as .refused) and the
 * batch stays the port's, valid until the next receive as always: process
 * it there, or give a kept batch back first (back-pressure is the caller's:
 * stop receiving while every batch is out).
 *
 * Lifetime rules:
 *   - sofl_port_keep() takes the batch of the last sofl_port_recv() (the
 *     array it set *pkts to); call it before the next receive.  Keeping an
 *     empty batch is allowed (it holds no packets).
 *   - A kept batch is valid until sofl_port_give_back(); after that the
 *     caller must not touch its packets or bytes (the port may already be
 *     receiving into them).  Give each batch back once.
 *   - sofl_port_close() frees the pool: kept batches become invalid with it.
 *   - sofl_port_keep(), sofl_port_set_keep() and sofl_port_recv() run on
 *     the port's thread; sofl_port_give_back(), sofl_port_batch_pkts() and
 *     sofl_port_get_keep_stats() on any thread.
 * Ports: TUN/TAP (any rx_mode) and UDP; an AF_PACKET port (whose packets
 * point into the kernel's ring) says SOFL_E_NOTSUP.
 */
struct sofl_port_batch;

/* Counters of a port's kept batches (sofl_port_get_keep_stats()) */
struct sofl_port_keep_stats {
	uint64_t kept;		/* batches taken by sofl_port_keep() */
	uint64_t given_back;	/* batches given back */
	uint64_t refused;	/* sofl_port_keep() calls refused: all max_kept held */
	uint64_t held;		/* held now */
	uint64_t held_max;	/* most held at once */
	uint64_t max_kept;	/* the pool's size (sofl_port_set_keep()) */
};

/* sofl_port_set_keep() :
 * Gives @port a pool of @max_kept batches that callers may keep
 * (0: none, the default; SOFL_PORT_KEEP_MAX at most), each as much memory
 * as the port's own receive batch (a TUN: rx_reads * 64 KB of read buffers
 * plus the batch's arrays; UDP: rx_batch * rx_buf).  Setup call of the
 * owner thread: allocates (a second call replaces the pool).
 * @return 0, SOFL_E_INVAL (NULL), SOFL_E_NOTSUP (an AF_PACKET port),
 *         SOFL_E_CFG_BATCH (above SOFL_PORT_KEEP_MAX), SOFL_E_PORT_KEEP_BUSY
 *         (batches of the old pool still held), SOFL_E_NOMEM. */
SOFL_API int sofl_port_set_keep(struct sofl_port *port, uint32_t max_kept);

/* sofl_port_keep() :
 * Takes the batch the last sofl_port_recv() returned (see "Kept batches"
 * above) and sets *batch to it.  Owner thread.  O(max_kept), no system call.
 * @return 0, SOFL_E_INVAL (NULL), SOFL_E_PORT_KEEP_OFF (no pool),
 *         SOFL_E_PORT_HELD (every batch of the pool is held: counted, the
 *         batch stays the port's); *batch NULL on error. */
SOFL_API int sofl_port_keep(struct sofl_port *port, struct sofl_port_batch **batch);

/* sofl_port_batch_pkts() :
 * Sets *pkts to the kept batch's packets (the array sofl_port_recv() gave)
 * and returns their count, or SOFL_E_INVAL (NULL).  Any thread. */
SOFL_API int sofl_port_batch_pkts(const struct sofl_port_batch *batch,
				  struct sofl_port_pkt **pkts);

/* sofl_port_give_back() :
 * Gives a kept batch back to its port (NULL is fine; a batch not held is
 * ignored).  Any thread; the caller's writes to the batch happen before the
 * port's reuse of it (release/acquire).  The batch is invalid afterwards. */
SOFL_API void sofl_port_give_back(struct sofl_port_batch *batch);

/* sofl_port_get_keep_stats() :
 * Copies the first @size bytes of the kept-batch counters into *s (pass
 * sizeof(*s); all 0 for a port without a pool).  Any thread.  @return 0,
 * SOFL_E_INVAL (@s NULL: nothing written; @port NULL: *s zeroed). */
SOFL_API int sofl_port_get_keep_stats(const struct sofl_port *port,
				      struct sofl_port_keep_stats *s, size_t size);

/* sofl_port_drop_name() : short static name of a drop reason ("vnet",
 * "malformed", "too-big", ...), "?" for unknown values.  Never NULL. */
SOFL_API const char *sofl_port_drop_name(enum sofl_port_drop reason);

/* sofl_port_kind() : "tun", "tap", "udp", "afpacket"; "?" for NULL. */
SOFL_API const char *sofl_port_kind(const struct sofl_port *port);

/* ---------------------------------------------------------------------- */
/* TUN / TAP                                                                */
/* ---------------------------------------------------------------------- */

/* Offload bits asked of a TUN/TAP (struct sofl_tun_config .offloads) */
#define SOFL_TUN_WANT_F_CSUM  0x01
#define SOFL_TUN_WANT_F_TSO   0x02	/* TSO4 + TSO6 */
#define SOFL_TUN_WANT_F_USO   0x04	/* USO4 + USO6, together or not at all */
#define SOFL_TUN_WANT_F_ECN   0x08	/* TSO_ECN */
#define SOFL_TUN_WANT_F_ALL   0x0f	/* the plain offloads (the default); the
					 * tunnel ones below are asked for by name */
#define SOFL_TUN_WANT_F_UDP_TNL 0x10	/* UDP-tunnel GSO (TUN_F_UDP_TUNNEL_GSO, Linux
					 * 6.17+; TAP only; needs TSO or USO granted): a
					 * 24-byte virtio header; see sofl_tun_open() */
#define SOFL_TUN_WANT_F_UDP_TNL_CSUM 0x20 /* ... and TUN_F_UDP_TUNNEL_GSO_CSUM (implies
					 * SOFL_TUN_WANT_F_UDP_TNL) */

struct sofl_tun_config {
	uint32_t size;		/* sizeof(struct sofl_tun_config); set by config_init */
	const char *name;	/* interface (< IFNAMSIZ chars); NULL or "" -> kernel's tunN/tapN */
	int tap;		/* 0: TUN (raw IP, IFF_TUN); 1: TAP (Ethernet, IFF_TAP) */
	int multi_queue;	/* 1: IFF_MULTI_QUEUE (open once per queue with the same name) */
	int vnet_hdr;		/* 1 (default): IFF_VNET_HDR and offloads; 0: one plain
				 * packet per read()/write(), no header, no engines */
	unsigned offloads;	/* SOFL_TUN_WANT_F_* to negotiate (default
				 * SOFL_TUN_WANT_F_ALL, without the UDP-tunnel
				 * bits; vnet_hdr only) */
	enum sofl_port_rx_mode rx_mode; /* SEGMENT (default) or SUPER */
	int tx_gro;		/* 1 (default with vnet_hdr): coalesce sends with GRO */
	uint32_t rx_batch;	/* packets per sofl_port_recv(): SOFL_TUN_RX_BATCH_* */
	uint32_t rx_reads;	/* read() calls at most per sofl_port_recv():
				 * SOFL_TUN_RX_READS_* */
	uint16_t headroom;	/* bytes of writable head area per received packet (0) */
	uint16_t tailroom;	/* bytes of writable tail area per received packet (0) */
	uint32_t mtu;		/* 0: no limit; else segments/packets larger are dropped
				 * (TOO_BIG); the interface's own MTU is
				 * sofl_tun_set_mtu()'s */
	int fd;			/* -1 (default): open /dev/net/tun; else an already
				 * attached TUN/TAP queue to adopt (the port closes it) */
	int quiet;		/* 1: no log message for a fallback (sofl_set_log()) */
	const struct sofl_gro_config *gro; /* NULL: GRO defaults for a TUN (raw IP or
				 * Ethernet from .tap, pseudo-header checksums, UDP
				 * super-packets when USO was accepted); copied; its
				 * flush_timeout_us is ignored (sends hold nothing
				 * unless sofl_port_set_flush_timeout(), below) */
	const struct sofl_rss *rss;	/* non-NULL: every received packet gets the
				 * Toeplitz hash of its flow in .hash (SOFL_PORT_PKT_F_HASH),
				 * from the parse the port does anyway (a plain packet is
				 * parsed for it); read only, may be shared by ports */
};

/* sofl_tun_config_init() : defaults (see each field); name NULL. */
SOFL_API void sofl_tun_config_init(struct sofl_tun_config *cfg);

/* sofl_tun_open() :
 * Opens (or creates: TUNSETIFF creates a missing interface, which needs
 * CAP_NET_ADMIN) queue of TUN/TAP @cfg->name; with vnet_hdr sets the header
 * size (12: the virtio 1.0 form) and little-endian fields (TUNSETVNETLE;
 * on a little-endian host where the ioctl is missing, native order is the
 * same), then probes TUNSETOFFLOAD: CSUM first, then TSO4|TSO6, ECN, and
 * USO4|USO6 together, keeping what the kernel accepts.  With
 * SOFL_TUN_WANT_F_UDP_TNL (opt-in: the default header stays 12 bytes, what
 * every older program and a device shared with one expects), a TAP (Linux
 * measures the tunnel offsets from an Ethernet header, which a raw-IP TUN
 * lacks: not asked there) and TSO or USO granted, the header is set to 24 bytes (virtio_net_hdr_v1_hash_tunnel)
 * and TUN_F_UDP_TUNNEL_GSO (| _CSUM with SOFL_TUN_WANT_F_UDP_TNL_CSUM) is
 * asked for; a kernel without them (before 6.17: EINVAL) gets the 12-byte
 * header back and the port works as without the bits.  Granted:
 * SOFL_PORT_OFF_F_UDP_TNL (and _CSUM) in sofl_port_offloads(); reads then
 * may carry VXLAN/Geneve super-packets, cut by GSO in rx_mode SEGMENT or
 * handed whole in SUPER (.vnet with the tunnel gso_type bits and offsets,
 * vnet.h), and GRO's VXLAN/Geneve super-packets (gro.h Tunnels) are written
 * whole.  Without it the port's GRO does not coalesce UDP tunnels (a 12-byte
 * header cannot describe them), and never IP-in-IP (virtio has no GSO type
 * for it): such frames go out as they came.  The fd is made
 * non-blocking.  On any error *out is set to NULL (when out is not NULL).
 * @return 0, SOFL_E_CFG_SIZE (the size field; see "Config values" above),
 *         SOFL_E_INVAL (NULL), SOFL_E_CFG_RX_MODE, SOFL_E_CFG_ROOM
 *         (headroom or tailroom with rx_mode SUPER), SOFL_E_CFG_NAME (name
 *         too long), SOFL_E_CFG_BATCH (rx_batch or rx_reads out of its
 *         range: SOFL_TUN_RX_*), SOFL_E_NOMEM, SOFL_E_SYS (errno from
 *         open/ioctl: ENOENT no /dev/net/tun, EPERM, EBUSY...). */
SOFL_API int sofl_tun_open(const struct sofl_tun_config *cfg, struct sofl_port **out);

/* sofl_tun_name() :
 * Sets *name to the interface's name (port-owned, valid until
 * sofl_port_close()).  @return 0, SOFL_E_INVAL (NULL argument), or
 * SOFL_E_PORT_KIND (not a TUN/TAP port); *name is NULL on error (when
 * @name is not NULL). */
SOFL_API int sofl_tun_name(const struct sofl_port *port, const char **name);

/* sofl_tun_created() :
 * Sets *created to 1 if this port's open created the interface, 0 if it
 * existed.  @return 0, SOFL_E_INVAL (NULL argument), or SOFL_E_PORT_KIND
 * (not a TUN/TAP port); *created is 0 on error (when @created is not NULL). */
SOFL_API int sofl_tun_created(const struct sofl_port *port, int *created);

/* sofl_tun_set_mtu(), sofl_tun_set_txqueuelen(), sofl_tun_set_up() :
 * Set the MTU (SIOCSIFMTU, 1..65535), the transmit queue length
 * (SIOCSIFTXQLEN, the packets the kernel queues toward this port; 5000
 * kept a 10 Gbit/s TCP stream free of drops in `softoffload tunnel`, the
 * default 500 did not) or the up/down state (IFF_UP; a new TUN is down, and
 * a write to a down TUN is dropped as SOFL_PORT_DROP_DOWN) of @port's
 * interface, as `ip link set` does.  They need CAP_NET_ADMIN; they do not
 * change the port's own .mtu (the drop limit of sofl_tun_config).  Setup
 * calls (one socket and ioctl each), any thread.
 * @return 0, SOFL_E_INVAL (NULL port, mtu 0 or above 65535, qlen above
 *         INT32_MAX), SOFL_E_PORT_KIND (not a TUN/TAP), SOFL_E_SYS (errno
 *         of the ioctl: EPERM, EINVAL for an MTU the device refuses...). */
SOFL_API int sofl_tun_set_mtu(const struct sofl_port *port, uint32_t mtu);
SOFL_API int sofl_tun_set_txqueuelen(const struct sofl_port *port, uint32_t qlen);
SOFL_API int sofl_tun_set_up(const struct sofl_port *port, int up);

/* Encapsulations (sofl_tun_inner_mtu()): what goes between the outer UDP
 * header and the caller's own head area */
enum sofl_tun_encap {
	SOFL_TUN_ENCAP_UDP = 0,		/* nothing: the inner IP packet (a TUN's) */
	SOFL_TUN_ENCAP_VXLAN = 1,	/* 8-byte VXLAN header + inner Ethernet (a TAP's) */
	SOFL_TUN_ENCAP_GENEVE = 2,	/* 8-byte Geneve header, no options + inner Ethernet */
};

/* sofl_tun_inner_mtu() :
 * The MTU to give the inner interface so that one inner packet, put in
 * @encap with @headroom bytes before it and @tailroom after (a VPN's header
 * and AEAD tag), inside UDP over @family (AF_INET: 20-byte header, AF_INET6:
 * 40, no options or extension headers) fits an underlay of @underlay_mtu
 * bytes unfragmented: underlay_mtu - IP - 8 - encap - headroom - tailroom.
 * E.g. 1500, AF_INET, UDP, 16, 16 -> 1440; AF_INET6 -> 1420.  (An IPv6
 * inner network needs 1280 or more: RFC 8200.)  Pure, any thread.
 * @return 0 (*inner set), SOFL_E_INVAL (NULL @inner, family not
 *         AF_INET/AF_INET6, unknown encap, a size above 65535),
 *         SOFL_E_TUN_MTU (less than 68 bytes left); *inner 0 on error. */
SOFL_API int sofl_tun_inner_mtu(uint32_t underlay_mtu, int family, enum sofl_tun_encap encap,
				uint32_t headroom, uint32_t tailroom, uint32_t *inner);

/* ---------------------------------------------------------------------- */
/* UDP                                                                      */
/* ---------------------------------------------------------------------- */

struct sofl_udp_config {
	uint32_t size;		/* sizeof(struct sofl_udp_config); set by config_init */
	const struct sockaddr *local;	/* bind() address (NULL: none; the family
				 * then comes from .remote) */
	socklen_t local_len;
	const struct sockaddr *remote;	/* default destination (NULL: every send
				 * names one in pkt.addr) */
	socklen_t remote_len;
	int connect;		/* 1: connect() to .remote (errors such as ECONNREFUSED
				 * are then reported back, and only the peer is heard) */
	int reuseport;		/* 1: SO_REUSEPORT before bind() */
	int gso;		/* 1 (default): UDP_SEGMENT for runs of equal-size datagrams */
	int gro;		/* 1 (default): UDP_GRO receive */
	int nonblock_send;	/* 1: sends never wait (EAGAIN drops counted) */
	int peer_only;		/* 1: unconnected with .remote: drop datagrams whose
				 * source address (any port) is not .remote's (PEER) */
	uint32_t rx_batch;	/* datagram buffers per recvmmsg(): SOFL_UDP_RX_BATCH_* */
	uint32_t rx_buf;	/* bytes per buffer: SOFL_UDP_RX_BUF_*; >= 65536 with gro */
	uint32_t max_pkts;	/* datagrams per sofl_port_recv() after splitting
				 * (0: 64 * rx_batch): SOFL_UDP_MAX_PKTS_* */
	int sndbuf;		/* SO_SNDBUF(FORCE) bytes, 0: system default */
	int rcvbuf;		/* SO_RCVBUF(FORCE) bytes, 0: system default.  The
				 * default (net.core.rmem_default, 208 KB) drops
				 * under a 10 Gbit/s tunnel's bursts (counted
				 * rcvbuf-full); `softoffload tunnel` uses 16 MB
				 * receive, 4 MB send (docs/tunnel.md).  Without
				 * CAP_NET_ADMIN Linux caps both at net.core.
				 * [rw]mem_max: the open then logs what it got
				 * (SOFL_LOG_WARN, sofl_set_log(), unless .quiet) */
	int fd;			/* -1 (default): create; else a UDP socket to adopt */
	int quiet;		/* 1: no log message for a fallback (sofl_set_log()) */
	uint16_t headroom;	/* bytes of writable head area per received datagram (0),
				 * iov[0] as on a TUN (0.4.0) */
	uint16_t tailroom;	/* bytes of writable tail area per received datagram (0) */
	uint32_t min_len;	/* 0.4.0: received datagrams shorter than this (0: none)
				 * are dropped as RUNT before they are split or handed
				 * over (a UDP_GRO message of them at once): no packet
				 * slot, no caller pass.  Up to SOFL_UDP_RX_BUF_MAX */
	int min_len_kernel;	/* 0.4.0: 1: drop them in the kernel instead, before
				 * they take receive-buffer room, a wakeup or a
				 * recvmmsg() slot: a flood of runts then costs the
				 * kernel's UDP receive only, as for the kernel's own
				 * tunnels.  Needs .min_len, .local with a specific
				 * address and a port, no .connect, no adopted .fd
				 * (else SOFL_E_CFG_ADDR).  The socket gets
				 * SO_REUSEPORT (without .reuseport the address must
				 * be free at open: EADDRINUSE as for a plain bind)
				 * and a second socket, the sink, joins its group; a
				 * BPF program on the group sends the sink what is
				 * shorter than .min_len, and the sink drops it.  With
				 * CAP_BPF the program is eBPF: it tests the segment
				 * size of a UDP_GRO-coalesced message too and counts
				 * the datagrams exactly (SOFL_PORT_OFF_F_RUNT_EBPF);
				 * else classic BPF: lone runts only, counted by the
				 * sink's drop count, where a coalesced message counts
				 * one (docs/ports.md).  Counted in rx_drop[RUNT],
				 * read from the kernel by sofl_port_get_stats().
				 * Another socket of the same user bound later to the
				 * same address and port with SO_REUSEPORT would join
				 * the group and get a share of the traffic. */
};

/* sofl_udp_config_init() : defaults (see each field). */
SOFL_API void sofl_udp_config_init(struct sofl_udp_config *cfg);

/* sofl_udp_open() :
 * Creates a UDP socket of the family of .local (or .remote), binds,
 * connects as asked, probes UDP_SEGMENT (setsockopt accepted) and UDP_GRO,
 * and asks for SO_RXQ_OVFL (receive-buffer drops counted).  Receives are
 * MSG_DONTWAIT; sends block unless nonblock_send.  On any error *out is set
 * to NULL (when out is not NULL).
 * @return 0, SOFL_E_CFG_SIZE (the size field; see "Config values" above),
 *         SOFL_E_INVAL (NULL), SOFL_E_CFG_ADDR (no address, a length above
 *         sockaddr_storage, families differ, connect without remote, not
 *         IPv4/IPv6), SOFL_E_CFG_BATCH (rx_batch, rx_buf or max_pkts out of its
 *         range: SOFL_UDP_*; rx_buf below 65536 with gro), SOFL_E_NOMEM,
 *         SOFL_E_SYS (socket, bind,
 *         connect failed; errno set). */
SOFL_API int sofl_udp_open(const struct sofl_udp_config *cfg, struct sofl_port **out);

/* sofl_udp_local() : the bound local address (getsockname) into @sa
 * (@*len in: its size, out: the address length).  @return 0, SOFL_E_INVAL
 * (NULL), SOFL_E_PORT_KIND (not a UDP port), SOFL_E_SYS. */
SOFL_API int sofl_udp_local(const struct sofl_port *port, struct sockaddr *sa, socklen_t *len);

/* ---------------------------------------------------------------------- */
/* AF_PACKET port                                                           */
/* ---------------------------------------------------------------------- */

/*
 * An AF_PACKET socket (SOCK_RAW, ETH_P_ALL) bound to one existing Ethernet
 * interface: the "NIC" of a software switch or of `softoffload relay`.
 *
 * Receive: a TPACKET_V2 ring (PACKET_RX_RING, mmap) with PACKET_VNET_HDR, so
 * the kernel writes each frame, with its virtio header, straight into memory
 * shared with us: no receive system call while frames are ready, no copy in
 * user space (packets point into the ring).  Slots are sized for the MTU
 * (2 KB: a deep ring costs little); a frame bigger than its slot (a GSO
 * super-packet from a device with GRO, or whose peer does TSO) is queued
 * whole on the socket as well (PACKET_COPY_THRESH, its slot marked
 * TP_STATUS_COPY) and read from there with recvmsg(), in ring order, so
 * nothing is truncated.  Why V2 and not V3: a V3 block is handed over only
 * when full or when its timer (a millisecond or more) expires, which holds
 * the pure ACKs of a reverse TCP stream for that long; V2 hands over every
 * frame at once.
 * Linux tpacket_rcv() writes the virtio header just before the frame in both
 * (net/packet/af_packet.c).  Slots are given back to the kernel at the next
 * sofl_port_recv() (the packets' lifetime, port.h).  VLAN tags the kernel
 * moved to metadata are put back into the frame.  In rx_mode SEGMENT the
 * port cuts super-packets to wire size and completes partial checksums
 * (GSO, zero copy); in SUPER it hands them on with .vnet (for a TUN/TAP).
 * Ring overflow drops (the kernel's PACKET_STATISTICS) are counted as
 * rx_drop[SOFL_PORT_DROP_RCVBUF].
 *
 * Send: sendmmsg(), one message per frame, each with its virtio header,
 * straight from the caller's iovecs (the kernel copies once; .tx_ring below
 * moves that copy into user space).  A super-packet
 * (SOFL_PORT_PKT_F_VNET with a GSO type) goes out whole when the device does
 * TSO for it (ethtool tx-tcp-segmentation, probed), else is segmented by the
 * GSO engine; a partial checksum (NEEDS_CSUM) is left to the device when it
 * checksums (tx-checksumming), else completed in software.  A GSO send the
 * kernel refuses (EINVAL) turns device TSO off for the port (a fallback,
 * logged once: sofl_set_log()) and the packet goes out segmented.
 *
 * Send with .tx_ring = 1: a transmit ring (PACKET_TX_RING, TPACKET_V2) on a
 * second packet socket bound to the interface (protocol 0: it receives
 * nothing) and PACKET_VNET_HDR.  Super-packets and partial checksums are
 * cut / completed by the GSO engine's copy mode (copy and checksum in one
 * pass) straight into the ring's slots; other frames are copied in; each
 * frame follows a virtio header whose hdr_len (the whole frame) has the
 * kernel copy it into a linear skb; one blocking send() per
 * sofl_port_send() (more when the ring fills) sends every slot, the kernel
 * walking the ring (Linux tpacket_snd()).  Fewer system calls and no
 * per-message msghdr than one sendmmsg() message per frame when a batch has
 * many frames (software USO); the copy into the ring is fused with the
 * checksum the GSO engine computes anyway.  Every frame the kernel refuses (TP_STATUS_WRONG_FORMAT, e.g.
 * shorter than an Ethernet header or longer than the MTU) or fails to send
 * is counted (MALFORMED, or the errno's reason) and the frames behind it
 * still go; a frame larger than a slot is dropped TOO_BIG, a super-packet
 * with more segments than the ring has slots NOROOM, a slot the kernel still
 * holds after a send (ring full) NOROOM.  Device TSO is not used on this
 * path (SOFL_PORT_OFF_F_TSO4/6 and _CSUM are clear); with .tx_offload and a
 * device that checksums (tx-checksumming, probed), the L4 checksum of each
 * segment of a TCP / UDP_L4 super-packet (not a tunnel's) and a non-GSO
 * partial checksum are left to the device (virtio NEEDS_CSUM, the copy
 * without a checksum pass), else completed in the copy.
 *
 * Without the ring (.ring = 0) every sofl_port_recv() makes one recvmsg()
 * for one frame: the plain "one frame per system call" behaviour.  Without
 * the virtio header (.vnet_hdr = 0) no offload state crosses the socket.
 */

struct sofl_afpacket_config {
	uint32_t size;		/* sizeof(struct sofl_afpacket_config); set by config_init */
	const char *ifname;	/* the interface (must exist) */
	int vnet_hdr;		/* 1 (default): PACKET_VNET_HDR */
	int ring;		/* 1 (default): TPACKET_V2 receive ring; 0: one recvmsg()
				 * per sofl_port_recv() */
	enum sofl_port_rx_mode rx_mode; /* SEGMENT (default) or SUPER */
	int promisc;		/* 1: PACKET_MR_PROMISC membership (frames for other MACs
				 * on a real NIC; a veth delivers them anyway) */
	int qdisc_bypass;	/* 1: PACKET_QDISC_BYPASS (sends skip the qdisc) */
	int ignore_outgoing;	/* 1 (default): PACKET_IGNORE_OUTGOING, so frames the host
				 * (or this port) sends are not received back */
	int tx_offload;		/* 1 (default): super-packets and partial checksums go to
				 * the device when its features take them; 0: always
				 * segmented and completed in software */
	uint32_t rx_batch;	/* packets per sofl_port_recv() after splitting:
				 * SOFL_AFPACKET_RX_BATCH_* */
	uint32_t ring_frames;	/* ring slots: SOFL_AFPACKET_RING_FRAMES_* (at most
				 * 64 MB of ring in all) */
	uint32_t tx_batch;	/* messages per sendmmsg(): SOFL_AFPACKET_TX_BATCH_* */
	uint16_t headroom;	/* bytes of writable head area per received packet (0) */
	uint16_t tailroom;	/* bytes of writable tail area per received packet (0) */
	uint32_t mtu;		/* 0: the interface's MTU; received packets (after
				 * segmentation) larger than mtu + 18 are dropped TOO_BIG */
	int sndbuf;		/* SO_SNDBUF(FORCE) bytes, 0: system default */
	int quiet;		/* 1: no log message for a fallback (sofl_set_log()) */
	uint32_t slot_size;	/* ring slot bytes; 0: from the interface MTU (2 KB for
				 * 1500); rounded up to a power of two >= 2048, or 64 KB
				 * past 32 KB */
	/* 0.4.0 */
	int tx_ring;		/* 1: sends through a transmit ring (PACKET_TX_RING,
				 * TPACKET_V2) on a second packet socket: frames are
				 * written into the ring's slots (super-packets and
				 * partial checksums cut there by the GSO engine's copy
				 * mode, never handed to the device whole; only L4
				 * checksums may be left to it, .tx_offload) and one
				 * send() per batch sends them all;
				 * SOFL_PORT_OFF_F_TX_RING.  0 (default): sendmmsg() */
	uint32_t tx_ring_frames; /* its slots: SOFL_AFPACKET_TX_RING_FRAMES_*; a slot is
				 * a power of two >= the page size holding a frame of
				 * mtu + 18 bytes */
};

/* sofl_afpacket_config_init() : defaults (see each field); ifname NULL. */
SOFL_API void sofl_afpacket_config_init(struct sofl_afpacket_config *cfg);

/* sofl_afpacket_open() :
 * Creates the socket (needs CAP_NET_RAW), sets PACKET_VNET_HDR, the ring
 * (TPACKET_V2, mmap) and the options asked for, binds it to @cfg->ifname's
 * index for every protocol, and probes the device's TSO and transmit
 * checksum features (SIOCETHTOOL), its MAC address and MTU.  On any error
 * *out is set to NULL (when out is not NULL).
 * @return 0, SOFL_E_CFG_SIZE (the size field; see "Config values" above),
 *         SOFL_E_INVAL (NULL), SOFL_E_CFG_NAME (no ifname, or too long),
 *         SOFL_E_CFG_BATCH (rx_batch, ring_frames or tx_batch out of its
 *         range: SOFL_AFPACKET_*; tx_ring_frames too), SOFL_E_CFG_RX_MODE, SOFL_E_CFG_ROOM (headroom/tailroom
 *         with rx_mode SUPER), SOFL_E_NOMEM, SOFL_E_SYS (errno: ENODEV no such interface, EPERM,
 *         ENOMEM for the ring...). */
SOFL_API int sofl_afpacket_open(const struct sofl_afpacket_config *cfg, struct sofl_port **out);

/* sofl_afpacket_mac() : copies the interface's MAC address (6 bytes, read at
 * open) to @mac.  @return 0, SOFL_E_INVAL (NULL), SOFL_E_PORT_KIND. */
SOFL_API int sofl_afpacket_mac(const struct sofl_port *port, uint8_t mac[6]);

/* sofl_afpacket_sync_stats() :
 * Reads the kernel's counters of the socket (PACKET_STATISTICS, which it
 * clears on read) and adds its drops to rx_drop[SOFL_PORT_DROP_RCVBUF].
 * sofl_port_recv() does this by itself at most every 100 ms; call it before
 * reading the final counters.  Owner thread only.
 * @return 0, SOFL_E_INVAL (NULL), SOFL_E_PORT_KIND, SOFL_E_SYS. */
SOFL_API int sofl_afpacket_sync_stats(struct sofl_port *port);

/* ---------------------------------------------------------------------- */
/* Held sends: a flush timeout (NAPI's gro_flush_timeout)                  */
/* ---------------------------------------------------------------------- */

/*
 * By default a TUN/TAP port completes every flow by the end of each
 * sofl_port_send(): a burst that reaches the caller in two reads (the
 * program woke on its first frame) leaves as two super-packets.  A NIC
 * driver's NAPI poll has the same problem, and Linux's answer is
 * gro_flush_timeout (with napi_defer_hard_irqs): at the end of a poll,
 * GRO keeps what it holds and a timer polls again later (net/core/dev.c
 * napi_complete_done(), net/core/gro.c): after a poll that did work it
 * keeps what GRO holds (only what was held since an earlier jiffy is
 * completed) and arms a timer of gro_flush_timeout; the timer's poll, if
 * it finds nothing new, completes everything.  The same here: with a
 * flush timeout of T microseconds, a send of fewer than the port's GRO
 * batch (256 packets: a read that drained its source) keeps each flow it
 * could not complete until no send came for T (the rest of the burst,
 * sent by the next calls, joins it), and never longer than 4 T after the
 * flow's first packet (the age bound, Linux's jiffy).  A flow is written
 *   - when the GRO engine completes it as it always does (a segment that
 *     ends it: PSH, FIN, a gap in sequence, a different size, 64 KB...);
 *   - at the first sofl_port_flush() at or past its deadline (T after the
 *     last send), or the first sofl_port_send() or sofl_port_flush() 4 T
 *     after its first packet (a send past T with no flush between joins
 *     its packets to what is held, as Linux's timer poll that finds new
 *     packets keeps what GRO holds: the rest of a burst that waited while
 *     the caller was away still joins it);
 *   - at the end of a send of a full batch (256 packets or more: the
 *     caller is busy, more is coming anyway), or before a packet that
 *     cannot be coalesced (a super-packet, a packet of several pieces),
 *     so the order on the device is the order of the sends;
 *   - at sofl_port_flush(port, SOFL_PORT_FLUSH_ALL) and sofl_port_close().
 * The caller's event loop waits for input with sofl_port_next_deadline()
 * as its timeout and calls sofl_port_flush() when it passes (see the
 * HowTo).  Cost: a held packet is copied into the port (packets of up to
 * 2 KB are held; a send with a larger one completes everything, as a full
 * batch does); a flow whose burst ends without PSH (rare for TCP: a
 * sender sets PSH on the last segment of each write) reaches the device
 * up to T after the last send (4 T at most).  Full batches hold nothing
 * and copy nothing.  Packets a
 * send holds count as accepted by it; a write fault at the flush is
 * counted in tx_drop.
 *
 * HowTo (the event loop of a relay from @src to TUN/TAP @dst)
 *   ```c
 *   #define _GNU_SOURCE                 // ppoll(): a timeout in nanoseconds
 *   #include <poll.h>
 *   #include <stdint.h>
 *   #include <time.h>
 *   #include <softoffload/port.h>
 *
 *   static uint64_t
 *   mono_ns(void)
 *   {
 *       struct timespec t;
 *
 *       clock_gettime(CLOCK_MONOTONIC, &t);
 *       return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
 *   }
 *
 *   int
 *   relay(struct sofl_port *src, struct sofl_port *dst)
 *   {
 *       struct pollfd pf = { .fd = sofl_port_fd(src), .events = POLLIN };
 *       struct sofl_port_pkt *pk;
 *       uint64_t d, now;
 *       int n, err;
 *
 *       if ((err = sofl_port_set_flush_timeout(dst, 50)) < 0)   // 50 us
 *           return err;
 *       for (;;) {
 *           struct timespec ts = { 1, 0 }, *tp = &ts;
 *
 *           if (sofl_port_next_deadline(dst, &d) == 1) {         // held flows
 *               now = mono_ns();
 *               d = d > now ? d - now : 0;
 *               ts.tv_sec = (time_t)(d / 1000000000u);
 *               ts.tv_nsec = (long)(d % 1000000000u);
 *           }
 *           if (ppoll(&pf, 1, tp, NULL) < 0)
 *               break;
 *           if ((n = sofl_port_recv(src, &pk)) < 0)
 *               return n;
 *           if (n > 0 && (err = sofl_port_send(dst, pk, (size_t)n)) < 0)
 *               return err;
 *           if ((err = sofl_port_flush(dst, mono_ns())) < 0)    // what is due
 *               return err;
 *       }
 *       return sofl_port_flush(dst, SOFL_PORT_FLUSH_ALL);
 *   }
 *   ```
 */

#define SOFL_PORT_FLUSH_TIMEOUT_MAX	1000000u	/* microseconds (1 s) */
#define SOFL_PORT_FLUSH_ALL		UINT64_MAX	/* sofl_port_flush(): everything */

/* sofl_port_set_flush_timeout() :
 * Sets the port's flush timeout to @usec microseconds (0, the default:
 * every send completes what it coalesced; see above).  What is held is
 * written first.  The first non-zero timeout allocates the port's room
 * for held packets (512 packets of 2 KB, about 1 MB); 0 frees it.
 * Owner thread only.
 * @return 0, SOFL_E_INVAL (NULL), SOFL_E_PORT_KIND (not a TUN/TAP port),
 *         SOFL_E_NOTSUP (the port does not coalesce: opened without
 *         vnet_hdr or tx_gro), SOFL_E_CFG_FLUSH_TIMEOUT (@usec above
 *         SOFL_PORT_FLUSH_TIMEOUT_MAX), SOFL_E_NOMEM, SOFL_E_SYS (a fault
 *         of the descriptor while writing what was held). */
SOFL_API int sofl_port_set_flush_timeout(struct sofl_port *port, uint32_t usec);

/* sofl_port_next_deadline() :
 * When the port next has something to write by its flush timeout:
 * *deadline_ns = the earlier of the last send + T and the oldest held
 * flow's first packet + 4 T, on CLOCK_MONOTONIC in nanoseconds (it may
 * have passed: flush now).  Any port type (ports that hold nothing always
 * answer 0).
 * @return 1 (something held, *deadline_ns set), 0 (nothing held,
 *         *deadline_ns = UINT64_MAX), SOFL_E_INVAL (NULL argument). */
SOFL_API int sofl_port_next_deadline(const struct sofl_port *port, uint64_t *deadline_ns);

/* sofl_port_flush() :
 * Writes what is due at @now_ns (CLOCK_MONOTONIC nanoseconds): every held
 * flow when no send came for the timeout, else the flows past their age
 * bound; all of them with SOFL_PORT_FLUSH_ALL.
 * Any port type (nothing held: nothing to do).  Owner thread only.
 * @return the packets written (0: none due), SOFL_E_INVAL (NULL), or
 *         SOFL_E_SYS for a fault of the descriptor itself; write faults of
 *         single packets are counted in tx_drop, as sofl_port_send()'s. */
SOFL_API int sofl_port_flush(struct sofl_port *port, uint64_t now_ns);

#ifdef __cplusplus
}
#endif
#endif
