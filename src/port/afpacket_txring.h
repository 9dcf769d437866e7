/*
 * Internal: the AF_PACKET port's transmit ring (PACKET_TX_RING, TPACKET_V2)
 * — src/port/port_afpacket_txring.c.  Not installed.
 */
#ifndef SOFL_PORT_AFPACKET_TXRING_H
#define SOFL_PORT_AFPACKET_TXRING_H

#include <stdint.h>
#include "softoffload/port.h"
#include "softoffload/gso.h"
#include "softoffload/pkt.h"

struct afp_txr {
	struct sofl_port *base;	/* the port whose counters are kept */
	int fd;			/* a second packet socket, protocol 0 (receives nothing) */
	uint8_t *ring;
	size_t ring_len;
	uint32_t frames;	/* slots */
	uint32_t fsize;		/* bytes per slot */
	uint32_t room;		/* bytes of frame a slot holds (fsize - data offset) */
	uint32_t mtu;		/* the interface's, at open */
	int csum_dev;		/* 1: the device completes partial checksums (its
				 * transmit checksum offload, .tx_offload): segments
				 * leave with NEEDS_CSUM, their payload copied only */
	uint32_t head;		/* next slot to write */
	uint32_t queued;	/* slots handed to the kernel (SEND_REQUEST), not yet sent */
	uint32_t *in;		/* input index (sofl_port_send()) of each slot's frame */
	uint8_t *stage;		/* segments that would wrap the ring: cut here, copied */
	uint32_t stage_segs;
	struct sofl_gso_seg *seg;
	uint8_t hdrbuf[SOFL_PKT_IOV_HDR_MAX];
	void (*drop_in)(void *arg, uint32_t in);	/* input @in lost a frame */
	void *arg;
};

/* afp_txr_open() : the socket bound to @ifindex, PACKET_QDISC_BYPASS when
 * @bypass, SO_SNDBUF @sndbuf (> 0), a ring of @frames slots each holding a
 * frame of @mtu + 18 bytes, mapped.  @return 0, SOFL_E_NOMEM, SOFL_E_SYS. */
int afp_txr_open(struct afp_txr *t, struct sofl_port *base, int ifindex, uint32_t frames,
		 uint32_t mtu, int bypass, int sndbuf);
void afp_txr_close(struct afp_txr *t);

/* afp_txr_put() : writes packet @pk (input @in) into the ring: a GSO
 * super-packet or a partial checksum cut / completed by the GSO engine's
 * copy mode straight into the slots, any other frame copied.  Frames that
 * cannot go are counted (port_drop) and reported through drop_in.
 * @return 0, or SOFL_E_SYS (the socket itself failed). */
int afp_txr_put(struct afp_txr *t, const struct sofl_port_pkt *pk, uint32_t in);

/* afp_txr_flush() : one send() for the queued slots (more when the kernel
 * refuses a frame: it is counted, dropped, and the rest sent).
 * @return 0, or SOFL_E_SYS. */
int afp_txr_flush(struct afp_txr *t);

#endif
