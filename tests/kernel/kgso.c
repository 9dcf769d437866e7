/* kgso — the running kernel's software GSO as a test oracle
 * (docs/kernel-oracle.md).
 *
 * Writes each super-packet (frame + its virtio_net_hdr from the sidecar) into
 * a TAP that is a port of a bridge; the bridge forwards it to a veth whose
 * tso/gso/tx-checksumming are off, so validate_xmit_skb() segments it in
 * software (skb_gso_segment: tcp_gso_segment / __udp_gso_segment with
 * inet_gso_segment / ipv6_gso_segment) and completes the checksums in
 * software.  The segments are read on the veth's peer with AF_PACKET.  A
 * sentinel frame (broadcast, flooded the same way) follows every
 * super-packet and marks the end of its segments.
 *
 * The topology is made by tests/gso_kernel.sh: run us inside its namespace.
 *
 * -T: UDP-tunnel super-packets.  The TAP is switched to the 24-byte
 * virtio_net_hdr_v1_hash_tunnel (TUNSETVNETHDRSZ) and negotiates
 * TUN_F_UDP_TUNNEL_GSO(_CSUM) (TUNSETOFFLOAD), so the kernel turns each header
 * into a SKB_GSO_UDP_TUNNEL(_CSUM) skb (virtio_net_hdr_tnl_to_skb); the
 * sidecar's two extra numbers are outer_th_offset and inner_nh_offset.  The
 * veth must also lack tx-udp_tnl-segmentation and tx-udp_tnl-csum-segmentation,
 * so skb_udp_tunnel_segment() runs in software.
 *
 * usage: kgso -t tap -c capture_if -r in.pcap -m in.vnet -w out.pcap -x out.vnet -n out.counts [-T]
 *   out.counts: one line per input record, "<segments> <first output index>";
 *   a super-packet the kernel refused (dropped) has 0 segments.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "kutil.h"

#define BUF_SIZE (256 * 1024)

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static size_t hsz = 10;	/* virtio header bytes: 10, or 24 with -T */

static void
tap_write(int fd, uint8_t *wbuf, const struct krec *r)
{
	uint32_t len = r->len;
	ssize_t n;

	if (len + hsz > BUF_SIZE)
		k_die("frame of %u bytes too large", len);
	if (hsz == K_VNET_TNL_LEN)
		k_vnet_tnl_encode(wbuf, &r->vh);
	else
		k_vnet_encode(wbuf, &r->vh);
	memcpy(wbuf + hsz, r->data, len);
	n = write(fd, wbuf, len + hsz);
	/* The TAP refuses a header it considers invalid with EINVAL: that is
	 * the kernel's verdict on this super-packet, recorded as 0 segments. */
	if (n < 0 && errno == EINVAL)
		return;
	if (n != (ssize_t)(len + hsz))
		k_die("write to TAP (%zu bytes): %s", len + hsz, n < 0 ? strerror(errno) : "short");
}

/* A segment (or fragment) of a super-packet carries its addresses and
 * protocol, and for TCP/UDP its ports.  Unparseable frames count as ours
 * (so that the comparison reports them). */
static int
same_flow(const uint8_t *sp, uint32_t splen, const uint8_t *f, size_t n)
{
	struct sofl_pkt a, b;

	if (sofl_pkt_parse(&a, sp, splen, SOFL_LINK_ETH) < 0 ||
	    sofl_pkt_parse(&b, f, n, SOFL_LINK_ETH) < 0)
		return 1;
	if (a.ipv != b.ipv || a.key.proto != b.key.proto ||
	    memcmp(a.key.src, b.key.src, 16) || memcmp(a.key.dst, b.key.dst, 16))
		return 0;
	if ((a.layers & SOFL_LAYER_L4) && (b.layers & SOFL_LAYER_L4) &&
	    (a.key.sport != b.key.sport || a.key.dport != b.key.dport))
		return 0;
	return 1;
}

/* Attaching to the persistent TAP turns its carrier on, and the bridge
 * makes the port forward only when linkwatch gets to it, a moment later:
 * what is written before is dropped.  So probe with sentinels of a tag no
 * record has until one comes through (at most 5 s). */
#define PROBE_TAG 0xfffffff0u

static void
wait_forwarding(int tfd, int pfd, uint8_t *wbuf, uint8_t *rbuf, struct krec *s, const char *cif)
{
	long long end = now_ms() + 5000;
	uint32_t tag;

	s->len = (uint32_t)k_sentinel(s->data, PROBE_TAG);
	while (now_ms() < end) {
		long long d = now_ms() + 100;

		tap_write(tfd, wbuf, s);
		while (now_ms() < d) {
			struct pollfd p = { .fd = pfd, .events = POLLIN };
			struct sofl_vnet_hdr vh;
			uint8_t *f;
			long n;

			if (poll(&p, 1, (int)(d - now_ms())) <= 0)
				break;
			n = k_packet_recv(pfd, rbuf, BUF_SIZE, 0, &vh, &f);
			if (n > 0 && k_is_sentinel(f, (size_t)n, &tag) && tag == PROBE_TAG) {
				/* later copies of the probe are ignored as stale sentinels */
				return;
			}
		}
	}
	k_die("kgso: the TAP does not forward to %s within 5 s", cif);
}

int
main(int argc, char **argv)
{
	const char *tap = NULL, *cif = NULL, *r = NULL, *m = NULL, *w = NULL, *x = NULL, *cn = NULL;
	struct kset in = { 0 }, out = { 0 };
	struct krec sentinel;
	uint8_t *wbuf, *rbuf, sent[64];
	cpu_set_t set;
	size_t i, refused = 0, foreign = 0;
	int resent;
	int c, tfd, pfd, tnl = 0;
	FILE *cf;

	while ((c = getopt(argc, argv, "t:c:r:m:w:x:n:T")) != -1) {
		switch (c) {
		case 't': tap = optarg; break;
		case 'c': cif = optarg; break;
		case 'r': r = optarg; break;
		case 'm': m = optarg; break;
		case 'w': w = optarg; break;
		case 'x': x = optarg; break;
		case 'n': cn = optarg; break;
		case 'T': tnl = 1; break;
		default:
			fprintf(stderr, "usage: kgso -t tap -c capture_if -r in.pcap -m in.vnet "
				"-w out.pcap -x out.vnet -n out.counts [-T]\n");
			return 2;
		}
	}
	if (!tap || !cif || !r || !m || !w || !x || !cn)
		k_die("kgso: all of -t -c -r -m -w -x -n are required");
	kset_read(&in, r, m);
	wbuf = malloc(BUF_SIZE);
	rbuf = malloc(BUF_SIZE);
	if (!wbuf || !rbuf)
		k_die("out of memory");
	/* One CPU: the TAP write, the bridge, the veth and the receive backlog
	 * all run on it, so segments and sentinel arrive in order. */
	CPU_ZERO(&set);
	CPU_SET(sched_getcpu(), &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		k_die("sched_setaffinity: %s", strerror(errno));
	tfd = k_tap_open(tap, 0);
	if (tnl) {
		k_tap_tunnel(tfd);
		hsz = K_VNET_TNL_LEN;
	}
	pfd = k_packet_open(cif, 1);
	memset(&sentinel, 0, sizeof(sentinel));
	sentinel.data = sent;
	wait_forwarding(tfd, pfd, wbuf, rbuf, &sentinel, cif);
	cf = fopen(cn, "w");
	if (!cf)
		k_die("%s: %s", cn, strerror(errno));
	for (i = 0; i < in.n; i++) {
		size_t first = out.n;
		long long deadline;
		uint32_t tag;

		tap_write(tfd, wbuf, &in.r[i]);
		sentinel.len = (uint32_t)k_sentinel(sent, (uint32_t)i);
		tap_write(tfd, wbuf, &sentinel);
		deadline = now_ms() + 3000;
		resent = 0;
		for (;;) {
			struct pollfd p = { .fd = pfd, .events = POLLIN };
			struct sofl_vnet_hdr vh;
			uint8_t *f;
			long n;

			if (now_ms() >= deadline || poll(&p, 1, (int)(deadline - now_ms())) <= 0) {
				/* Seen rarely on a loaded machine: the sentinel, not the
				 * super-packet, went missing.  Send it again (the segments
				 * already read stay; any that are missing show up as a
				 * difference in the comparison). */
				if (resent++ == 2)
					k_die("kgso: sentinel after record %zu not seen on %s within 3 s, "
					      "sent 3 times", i, cif);
				fprintf(stderr, "kgso: record %zu: no sentinel within 3 s, sent again\n", i);
				tap_write(tfd, wbuf, &sentinel);
				deadline = now_ms() + 3000;
				continue;
			}
			n = k_packet_recv(pfd, rbuf, BUF_SIZE, 0, &vh, &f);
			if (n < 0)
				continue;
			if (k_is_sentinel(f, (size_t)n, &tag)) {
				if (tag == (uint32_t)i)
					break;
				continue;
			}
			if (!same_flow(in.r[i].data, in.r[i].len, f, (size_t)n)) {
				/* not a segment of this super-packet (the kernel's own
				 * traffic in the namespace): reported, not compared */
				foreign++;
				fprintf(stderr, "kgso: record %zu: foreign %ld-byte frame ignored:", i, n);
				for (long b = 0; b < n && b < 64; b++)
					fprintf(stderr, " %02x", f[b]);
				fprintf(stderr, "\n");
				continue;
			}
			kset_add(&out, f, (uint32_t)n, &vh);
		}
		refused += out.n == first;
		fprintf(cf, "%zu %zu\n", out.n - first, first);
	}
	if (fclose(cf) != 0)
		k_die("%s: write failed", cn);
	kset_write(&out, w, x);
	printf("kgso: %zu super-packets -> %zu segments (%zu refused or dropped by the kernel, "
	       "%zu foreign frames ignored)\n", in.n, out.n, refused, foreign);
	close(tfd);
	close(pfd);
	kset_free(&in);
	kset_free(&out);
	free(wbuf);
	free(rbuf);
	return 0;
}
