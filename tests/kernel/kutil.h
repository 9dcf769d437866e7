/* Shared pieces of the kernel-oracle programs (tests/kernel/, see
 * docs/kernel-oracle.md): capture files with a virtio-net metadata sidecar,
 * TAP and AF_PACKET sockets, the sentinel frame, small sysfs/proc helpers.
 *
 * A "record set" is a pcap file (Ethernet) plus an optional sidecar text file
 * with one line per record: "flags gso_type hdr_len gso_size csum_start
 * csum_offset" (decimal), the virtio_net_hdr that came with (or goes with) the
 * frame, and for a UDP-tunnel super-packet two more numbers, "outer_th_offset
 * inner_nh_offset" (the tunnel header's fields at bytes 20 and 22).  pcap cannot carry that metadata; the sidecar keeps the pcap usable
 * by every other tool. */
#ifndef SOFL_KUTIL_H
#define SOFL_KUTIL_H

#include <stddef.h>
#include <stdint.h>
#include "softoffload/vnet.h"

struct krec {
	uint8_t *data;
	uint32_t len;
	struct sofl_vnet_hdr vh;	/* its outer_th_offset and inner_nh_offset: the
					   24-byte tunnel form's, 0 when none */
};

struct kset {
	struct krec *r;
	size_t n, cap;
	int has_vh;		/* the sidecar was read / should be written */
};

/* Exit codes shared with scripts/run-tests.sh. */
#define K_SKIP 77

void k_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void k_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* 1 when SOFL_REQUIRE_ORACLE=1: no skip, no case left out (docs/kernel-oracle.md). */
int k_required(void);
/* The TCP source port of the Ethernet frame @d (@n bytes: IPv4 or IPv6,
 * untagged), or -1 when it is no such frame */
int k_tcp_sport(const uint8_t *d, size_t n);

/* Append a copy of frame[0..len) (and *vh, may be NULL) to the set. */
void kset_add(struct kset *s, const void *frame, uint32_t len, const struct sofl_vnet_hdr *vh);
void kset_free(struct kset *s);
/* Read @pcap (Ethernet) and, when @side is not NULL, its sidecar. Dies on error. */
void kset_read(struct kset *s, const char *pcap, const char *side);
/* Write the set as a pcap (and the sidecar when @side is not NULL). */
void kset_write(const struct kset *s, const char *pcap, const char *side);

/* Wire form of the legacy 10-byte virtio_net_hdr, little-endian (x86 and the
 * kernel's vio_le() for AF_PACKET / TAP with TUNSETVNETLE agree here). */
void k_vnet_encode(uint8_t out[10], const struct sofl_vnet_hdr *vh);
void k_vnet_decode(const uint8_t in[10], struct sofl_vnet_hdr *vh);

/* The 24-byte tunnel form (struct virtio_net_hdr_v1_hash_tunnel, always
 * little-endian): the 10 legacy bytes, num_buffers and the hash fields 0,
 * outer_th_offset at 20, inner_nh_offset at 22. */
#define K_VNET_TNL_LEN 24
void k_vnet_tnl_encode(uint8_t out[K_VNET_TNL_LEN], const struct sofl_vnet_hdr *vh);
/* Switch a TAP fd to the 24-byte header and negotiate UDP-tunnel GSO
 * (TUNSETVNETHDRSZ 24; TUNSETOFFLOAD TUN_F_CSUM|TSO4|TSO6|UDP_TUNNEL_GSO|
 * UDP_TUNNEL_GSO_CSUM).  Skips (or fails under SOFL_REQUIRE_ORACLE=1) when
 * the kernel (< 6.17) refuses it. */
void k_tap_tunnel(int fd);

/* Open a TAP named @name with IFF_TAP|IFF_NO_PI|IFF_VNET_HDR|@extra_flags
 * (IFF_NAPI...). Existing persistent devices are attached. Dies on error,
 * or skips when /dev/net/tun is unusable. */
int k_tap_open(const char *name, int extra_flags);
/* An AF_PACKET socket bound to @ifname receiving every ethertype, with
 * PACKET_VNET_HDR when @vnet, ignoring outgoing packets. */
int k_packet_open(const char *ifname, int vnet);
/* Receive one packet from a k_packet_open(..., 1) socket into @buf (@cap
 * bytes, at least 14 more than the largest frame): decodes the virtio header
 * into *vh and puts the frame, with its outermost VLAN tag put back where
 * the kernel had taken it off (it moves it to skb metadata before AF_PACKET
 * sees the packet; PACKET_AUXDATA reports it, as libpcap does), at *frame.
 * csum_start is shifted by the re-inserted tag.  @flags go to recvmsg().
 * @return the frame length, or -1 for EAGAIN/EINTR; dies on other errors. */
long k_packet_recv(int fd, uint8_t *buf, size_t cap, int flags, struct sofl_vnet_hdr *vh,
		   uint8_t **frame);
/* Bring @ifname up (SIOCSIFFLAGS). */
void k_link_up(const char *ifname);

/* The sentinel: a broadcast frame of the IEEE local-experimental ethertype
 * 0x88B5 carrying @tag. No GRO handler, no GSO: passes through unchanged. */
size_t k_sentinel(uint8_t *buf, uint32_t tag);
/* 1 when frame is a sentinel, with its tag in *tag. */
int k_is_sentinel(const uint8_t *frame, size_t len, uint32_t *tag);

/* Write a string to a sysfs/procfs file. @return 0 or -errno. */
int k_write_file(const char *path, const char *val);
/* Read a decimal field "key:\t123" from a /proc status-like file. -1 on error. */
long k_proc_field(const char *path, const char *key);
/* Run a shell command (formatted); @return its exit status. */
int k_run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
