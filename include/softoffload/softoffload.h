/* softoffload — umbrella header: software network offloads.
 * Link with -lsoftoffload (pkg-config softoffload).
 *
 * Conventions every header follows:
 *   - Calls return int: 0 or a count on success, a negative SOFL_E_* code
 *     (error.h) on failure, one code per cause; sofl_strerror() names it.
 *     Calls that cannot fail return their value (a sum, a hash, a count)
 *     or nothing.
 *   - One enum per concept across headers: enum sofl_csum_state (csum.h)
 *     for every checksum state, enum sofl_gso_type (gso.h, the virtio
 *     values) for every GSO type.
 *   - How each struct can grow without breaking a program built against an
 *     older header, decided by who allocates it and how it is passed:
 *       engines (struct sofl_gro, sofl_rss, sofl_port, sofl_l2): opaque, made by a
 *         create/open call and freed by destroy/close;
 *       configurations (sofl_gro_config, sofl_rss_config,
 *         sofl_tun/udp/afpacket_config, sofl_l2_config): start
 *         with a size field set by their config_init call and grow at the
 *         end; the library reads `size` bytes;
 *       statistics (sofl_gro_stats, sofl_port_stats, sofl_l2_stats): grow at the end and
 *         are copied by the size the caller passes (bytes past the
 *         library's struct zeroed); their per-reason arrays have spare
 *         slots (SOFL_GRO_FLUSH_SLOTS, SOFL_GRO_BYPASS_SLOTS,
 *         SOFL_PORT_DROP__MAX, SOFL_L2_DROP__MAX), so a new reason moves no counter;
 *       per-packet records the caller keeps in arrays (sofl_pkt, sofl_gro_in,
 *         sofl_gro_out, sofl_gso_params, sofl_gso_seg, sofl_rss_out,
 *         sofl_vnet_hdr, sofl_port_pkt, sofl_l2_reply), the 24-byte per-thread
 *         sofl_gso_frag_ids, and the fixed descriptors sofl_flow_key (inside
 *         sofl_pkt), sofl_gro_rule (arrays of them in sofl_gro_config),
 *         sofl_gso_out and sofl_gso_need: their size is part of the ABI and
 *         changes only with the SONAME (version.h); sofl_pkt, the one
 *         expected to gain fields, carries reserved space for them.
 *   - GRO engines and ports are single-threaded objects: one per thread or
 *     RSS queue.  An RSS engine is only read once set up: threads and ports
 *     may share it, but its set-up calls (sofl_rss_set_impl, the reta_*
 *     calls, destroy) must not run while another thread uses it (rss.h).
 *     The other calls are reentrant, except sofl_csum_set_impl(), which
 *     sets the process-wide checksum implementation (csum.h), and
 *     sofl_set_log() (error.h), the process-wide log callback.
 *   - The library prints nothing: what it has to tell goes to the callback
 *     a program sets with sofl_set_log(), or nowhere. */
#ifndef SOFTOFFLOAD_H
#define SOFTOFFLOAD_H
#include "softoffload/version.h"
#include "softoffload/bytes.h"
#include "softoffload/error.h"
#include "softoffload/csum.h"
#include "softoffload/pkt.h"
#include "softoffload/rss.h"
#include "softoffload/gro.h"
#include "softoffload/gso.h"
#include "softoffload/vnet.h"
#include "softoffload/port.h"
#include "softoffload/l2.h"
#endif
