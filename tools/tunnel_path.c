/* softoffload tunnel: the two directions of one worker.
 *
 * --encap ip (the tunnel's own framing): an IP packet per datagram.
 *   TUN -> peer: super-packets read from the TUN are cut to the inner MTU
 *   by GSO (zero copy, checksums the kernel left partial completed) and
 *   sent as runs of equal-size datagrams with UDP_SEGMENT;
 *   peer -> TUN: datagrams received with UDP_GRO are split, checked (two
 *   header fields), coalesced by GRO and written to the TUN as
 *   super-packets.
 * --encap vxlan|geneve: the same, with the tunnel header in front of every
 *   datagram: the TAP (or TUN, Geneve with IP inside) port gives each
 *   segment a writable head area of the header's size, filled here, and the
 *   datagram goes out of the send socket whose port is the inner flow's
 *   (udp_flow_src_port(): sofl_rss_encap_sport()) to the remote that the
 *   inner destination MAC was learned behind (or to every remote).  On
 *   receive the header (and inner packet) is checked, the inner source MAC
 *   learned, the header stripped in place and the inner packet handed to
 *   the TAP port's GRO.
 * No payload byte is copied in user space: iovecs go from the TUN read
 * buffer to sendmmsg() and from the UDP receive buffer to writev(). */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "softoffload/rss.h"
#include "tunnel.h"

static void
count(uint64_t *c, uint64_t v)
{
	__atomic_store_n(c, *c + v, __ATOMIC_RELAXED);
}

static void
count_drops(struct tn_worker *w, const uint64_t *bad)
{
	int i;

	for (i = 0; i < TN_DROP__MAX; i++)
		if (bad[i])
			count(&w->drop[i], bad[i]);
}

/* ---- --encap ip ---- */

/* TUN -> peer.  @return packets read (0: nothing, < 0: TUN gone) */
static int
ip_tun_to_udp(struct tn_worker *w)
{
	struct sofl_port_pkt *pk;
	unsigned nq = w->o->queues;
	int n, i;

	n = sofl_port_recv(w->tun, &pk);
	if (n <= 0)
		return n;
	if (nq > 1) {
		uint64_t other = 0;

		for (i = 0; i < n; i++) {
			unsigned q = pk[i].flags & SOFL_PORT_PKT_F_HASH ? pk[i].hash % nq : 0;

			pk[i].addr = (const struct sockaddr *)&w->dst[q];
			pk[i].addrlen = w->o->remote_len;
			other += q != w->idx;
		}
		count(&w->steered, other);
	}
	sofl_port_send(w->udp, pk, (size_t)n);
	return n;
}

/* peer -> TUN.  @return datagrams received (0: nothing, < 0: socket unusable) */
static int
ip_udp_to_tun(struct tn_worker *w)
{
	struct sofl_port_pkt *pk;
	uint64_t bad[TN_DROP__MAX] = { 0 };
	size_t hl;
	int n, i, k = 0, r;

	n = sofl_port_recv(w->udp, &pk);
	if (n <= 0)
		return n;
	for (i = 0; i < n; i++) {
		if ((r = tn_rx_check(&w->rule, pk[i].iov[0].iov_base, pk[i].iov[0].iov_len,
				     &hl)) >= 0) {
			bad[r]++;
			continue;
		}
		w->in[k] = pk[i];
		w->in[k].addr = NULL;
		if (!w->o->verify_inner)
			w->in[k].flags |= SOFL_PORT_PKT_F_CSUM_OK;
		if (++k == TN_MAX_BATCH) {
			sofl_port_send(w->tun, w->in, (size_t)k);
			k = 0;
		}
	}
	count_drops(w, bad);
	if (k)
		sofl_port_send(w->tun, w->in, (size_t)k);
	return n;
}

/* ---- --encap vxlan|geneve ---- */

static int
same_host(const struct sockaddr *a, const struct sockaddr_storage *b)
{
	if (a->sa_family != b->ss_family)
		return 0;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		       &((const struct sockaddr_in6 *)b)->sin6_addr, 16);
}

/* the first @n bytes of the packet after the head area (n <= 16), into @tmp
 * when they span iovecs; NULL when the packet is shorter */
static const uint8_t *
pkt_head(const struct sofl_port_pkt *p, uint8_t *tmp, size_t n)
{
	uint32_t i = p->headroom ? 1 : 0;
	size_t got = 0;

	if (i < p->iovcnt && p->iov[i].iov_len >= n)
		return p->iov[i].iov_base;
	for (; i < p->iovcnt && got < n; i++) {
		size_t c = p->iov[i].iov_len < n - got ? p->iov[i].iov_len : n - got;

		memcpy(tmp + got, p->iov[i].iov_base, c);
		got += c;
	}
	return got == n ? tmp : NULL;
}

/* Sends out[0..n) (tx[] the send socket of each) in runs of one socket. */
static void
send_runs(struct tn_worker *w, const uint16_t *tx, size_t n)
{
	size_t i = 0, j;

	while (i < n) {
		for (j = i + 1; j < n && tx[j] == tx[i]; j++)
			;
		sofl_port_send(w->tx[tx[i]], w->out + i, j - i);
		i = j;
	}
}

/* TAP -> remotes.  @return packets read (0: nothing, < 0: TAP gone) */
static int
eth_tun_to_udp(struct tn_worker *w)
{
	const struct tn_opts *o = w->o;
	struct sofl_port_pkt *pk;
	static __thread uint16_t tx[TN_MAX_BATCH];
	uint64_t flood = 0, bad[TN_DROP__MAX] = { 0 };
	size_t k = 0;
	int n, i;

	n = sofl_port_recv(w->tun, &pk);
	if (n <= 0)
		return n;
	for (i = 0; i < n; i++) {
		struct sofl_port_pkt *p = &pk[i];
		uint8_t tmp[16];
		const uint8_t *head = pkt_head(p, tmp, o->inner_eth ? 14 : 1);
		uint16_t proto = TN_ETH_TEB, s = 0;
		int r = 0;
		unsigned q;

		if (!head) {
			bad[o->inner_eth ? TN_DROP_ETH_SHORT : TN_DROP_IP_SHORT]++;
			continue;
		}
		if (!o->inner_eth && !(proto = tn_inner_proto(head, 1))) {
			bad[TN_DROP_NOT_IP]++;
			continue;
		}
		p->iov[0].iov_len = tn_hdr_build(o->encap, o->vni, proto, p->iov[0].iov_base);
		if (w->ntx > 1)
			s = (uint16_t)(sofl_rss_encap_sport(p->flags & SOFL_PORT_PKT_F_HASH ?
							    p->hash : 0, (uint16_t)o->sport_min,
							    (uint16_t)(o->sport_max + 1)) -
				       o->sport_min);
		if (o->nremotes > 1 && o->inner_eth)
			r = tn_mac_lookup(w->macs, head);
		if (r < 0)
			flood++;
		for (q = r < 0 ? 0 : (unsigned)r; q < (r < 0 ? o->nremotes : (unsigned)r + 1);
		     q++) {
			w->out[k] = *p;
			w->out[k].addr = (const struct sockaddr *)&o->remote[q];
			w->out[k].addrlen = o->remote_len;
			tx[k++] = s;
		}
		if (k + o->nremotes > TN_MAX_BATCH) {
			send_runs(w, tx, k);
			k = 0;
		}
	}
	if (k)
		send_runs(w, tx, k);
	if (flood)
		count(&w->flooded, flood);
	count_drops(w, bad);
	return n;
}

/* remotes -> TAP.  @return datagrams received (0: nothing, < 0: socket unusable) */
static int
eth_udp_to_tun(struct tn_worker *w)
{
	const struct tn_opts *o = w->o;
	struct sofl_port_pkt *pk;
	uint64_t bad[TN_DROP__MAX] = { 0 };
	size_t hl;
	int n, i, k = 0, r;
	unsigned q;

	n = sofl_port_recv(w->udp, &pk);
	if (n <= 0)
		return n;
	for (i = 0; i < n; i++) {
		struct iovec *v = &pk[i].iov[0];

		for (q = 0; q < o->nremotes; q++)
			if (pk[i].addr && same_host(pk[i].addr, &o->remote[q]))
				break;
		if (q == o->nremotes) {
			bad[TN_DROP_REMOTE]++;
			continue;
		}
		if ((r = tn_rx_check(&w->rule, v->iov_base, v->iov_len, &hl)) >= 0) {
			bad[r]++;
			continue;
		}
		v->iov_base = (uint8_t *)v->iov_base + hl;
		v->iov_len -= hl;
		pk[i].len -= (uint32_t)hl;
		if (w->macs)
			tn_mac_learn(w->macs, (const uint8_t *)v->iov_base + 6, q);
		w->in[k] = pk[i];
		w->in[k].addr = NULL;
		/* trusted when the outer checksum was required (it covers them),
		 * or when the kernel verified it: it coalesces only datagrams
		 * with a non-zero UDP checksum that passed (net/ipv4/
		 * udp_offload.c: udp_gro_receive_segment(), udp4_gro_receive();
		 * IPv6 alike); else verified by GRO (a lone datagram's outer
		 * checksum may have been 0) */
		if (w->trust || (w->trust_gro && (pk[i].flags & SOFL_PORT_PKT_F_UDP_CSUM)))
			w->in[k].flags |= SOFL_PORT_PKT_F_CSUM_OK;
		if (++k == TN_MAX_BATCH) {
			sofl_port_send(w->tun, w->in, (size_t)k);
			k = 0;
		}
	}
	if (w->macs)
		__atomic_store_n(&w->macs_learned, w->macs->learned, __ATOMIC_RELAXED);
	count_drops(w, bad);
	if (k)
		sofl_port_send(w->tun, w->in, (size_t)k);
	return n;
}

/* ---- the loop ---- */

static const char *
tun_fault(int e)
{
	/* a deleted TUN/TAP: read()/write() on its queue say EBADFD (tun_get()
	 * finds no device: drivers/net/tun.c), a device gone under us ENODEV */
	return e == EBADFD || e == ENODEV || e == ENXIO ? "the device was deleted" : strerror(e);
}

void *
tn_worker_main(void *arg)
{
	struct tn_worker *w = arg;
	int eth = w->o->encap != TN_ENCAP_IP;
	struct pollfd pf[2];
	struct timespec ts;
	int a, b = 0, r, e;

	pf[0] = (struct pollfd){ .fd = sofl_port_fd(w->tun), .events = POLLIN };
	pf[1] = (struct pollfd){ .fd = sofl_port_fd(w->udp), .events = POLLIN };
	while (!cli_stop) {
		/* drain both while there is traffic, poll when both are idle */
		do {
			a = eth ? eth_tun_to_udp(w) : ip_tun_to_udp(w);
			if (a < 0)
				break;
			b = eth ? eth_udp_to_tun(w) : ip_udp_to_tun(w);
			if (b < 0)
				break;
			/* held flows whose deadline passed (--gro-flush-timeout);
			 * a fault of the TUN descriptor is the TUN's error */
			if ((r = sofl_port_flush(w->tun, cli_mono_ns())) < 0) {
				a = r;
				break;
			}
		} while ((a > 0 || b > 0) && !cli_stop);
		if (a < 0 || b < 0) {
			/* errno is the failed call's: nothing ran after it */
			e = errno;
			if (a < 0)
				cli_error("queue %u: %s %s: %s", w->idx, eth && w->o->inner_eth ?
					  "tap" : "tun", w->o->tun, tun_fault(e));
			else
				cli_error("queue %u: udp: %s", w->idx, strerror(e));
			w->failed = 1;
			cli_stop = 1;
			break;
		}
		cli_wait_ts(&w->tun, 1, 200 * 1000000u, &ts);	/* 200 ms or the deadline */
		r = ppoll(pf, 2, &ts, NULL);
		if (r < 0 && errno != EINTR && errno != ENOMEM && errno != EAGAIN) {
			/* never silently: a worker that stops stops the tunnel */
			cli_error("queue %u: poll: %s", w->idx, strerror(errno));
			w->failed = 1;
			cli_stop = 1;
			break;
		}
	}
	return NULL;
}
