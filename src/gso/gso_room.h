/*
 * Internal: segmentation into frames with room around each one, for the
 * ports' contiguous receive mode (src/port/port.c) and the AF_PACKET
 * transmit ring.  Not installed.
 */
#ifndef SOFL_GSO_ROOM_H
#define SOFL_GSO_ROOM_H

#include <stdint.h>
#include "softoffload/gso.h"

/* gso_segment_room() :
 * sofl_gso_segment() of the contiguous packet @p in mode SOFL_GSO_COPY (the
 * payload copied and its checksums computed in one pass), each segment's
 * frame with @head writable bytes before it and @tail after it, all three
 * adjacent: segment k's slot is out->buf + k * (stride + head + tail)
 * (stride from sofl_gso_need()), its frame (seg[k].data) @head bytes into
 * the slot, so seg[k].data - head .. seg[k].data + seg[k].len + tail lies
 * in the slot.  out->buf_cap must hold n such slots.
 * @return as sofl_gso_segment(); SOFL_E_INVAL for another mode with room. */
int gso_segment_room(const struct sofl_gso_params *gp, const struct sofl_pkt *p,
		     struct sofl_gso_out *out, uint32_t head, uint32_t tail);

/* gso_segment_room_iov() :
 * gso_segment_room() of a packet given as iovecs (@in/@in_cnt as
 * sofl_gso_segment() takes them; @in NULL: p->data), for the AF_PACKET
 * transmit ring (src/port/port_afpacket_txring.c), whose slots are the
 * frames' rooms. */
int gso_segment_room_iov(const struct sofl_gso_params *gp, const struct sofl_pkt *p,
			 const struct iovec *in, int in_cnt, struct sofl_gso_out *out,
			 uint32_t head, uint32_t tail);

#endif
