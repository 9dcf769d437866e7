/*
 * The TUN/TAP port (port.h): a queue of a Linux TUN/TAP device with
 * virtio-net headers (IFF_VNET_HDR).  Reads: one read() per packet (the
 * device has no batched read), super-packets of up to 64 KB cut into
 * wire-size packets by the GSO engine, zero copy.  Writes: the batch
 * coalesced by the GRO engine, one writev() per super-packet.
 * Kernel side: drivers/net/tun.c (tun_set_iff, set_offload, tun_get_user,
 * tun_put_user), drivers/net/tun_vnet.h and include/linux/virtio_net.h.
 * The virtio header is 12 bytes, or 24 when UDP-tunnel GSO was granted
 * (Linux 6.17+: set_offload() grants TUN_F_UDP_TUNNEL_GSO only with TSO or
 * USO, tun_put_user() emits the tunnel fields only when the header size is
 * at least 24, and tun_get_user() takes them from any 24-byte header).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_tun.h>
#include "softoffload/port.h"
#include "softoffload/gro.h"
#include "softoffload/vnet.h"
#include "base/cfg.h"
#include "port_impl.h"
#include "tun_uapi.h"

/* Debian's uapi headers are older than the kernel: tun_uapi.h */
#ifndef IOV_MAX
#define IOV_MAX 1024
#endif

#define VNET_LEN	SOFL_VNET_HDR_MRG_LEN	/* the 12-byte header (TUNSETVNETHDRSZ) */
#define VNET_TNL_LEN	SOFL_VNET_HDR_TNL_LEN	/* the 24-byte one, with UDP-tunnel GSO */
/* one super-packet and its header: an IPv6 outer packet of 65535 payload
 * bytes after its Ethernet and IPv6 headers, and the 24-byte header */
#define RX_BUF		(65536 + 128)

/* fallback message bits (port_fallback) */
#define FB_GSO_WRITE	0
#define FB_IOV_MAX	1

struct tun_port {
	struct sofl_port base;
	char name[IFNAMSIZ];
	int tap, created, vnet;
	int rx_mode, tx_gro;
	uint32_t vlen;			/* virtio header bytes: VNET_LEN or VNET_TNL_LEN */
	uint32_t mtu;
	enum sofl_link link;
	uint32_t nbufs;
	uint8_t **buf;			/* nbufs read buffers */
	int pending;			/* index of a buffer read but not yet taken, or -1 */
	uint32_t pending_len;
	struct port_rxq q;
	struct sofl_gro_in *gin;
	uint32_t gin_cap;
	struct iovec wv[IOV_MAX];	/* one writev */
	uint8_t vh[VNET_TNL_LEN];
	struct sofl_pkt_config pcfg;	/* the default GRO's parse config (kept: the
					 * engine config points to it) */
	struct tun_hold *hold;		/* held sends (sofl_port_set_flush_timeout), or NULL */
	struct sofl_gro_config gcfg;	/* the engine's config, for a re-creation */
};

/* Held sends: with a flush timeout, flows stay in the GRO engine across
 * sofl_port_send() calls; the packets they hold are copied into slots of
 * the port's own (the caller's buffers are free again when the call
 * returns).  Cookies of slot packets carry HOLD_COOKIE. */
#define HOLD_SLOT	2048u			/* bytes of one held packet at most */
#define HOLD_COOKIE	(1ull << 63)

#define HOLD_AGE	4u			/* a flow is held HOLD_AGE x the timeout at most */

struct tun_hold {
	uint32_t us;			/* the flush timeout */
	uint64_t last_ns;		/* the last send that could hold (CLOCK_MONOTONIC) */
	uint32_t nslots, nfree;
	uint8_t *mem;			/* nslots * HOLD_SLOT */
	struct sofl_port_pkt *pk;	/* per slot: the packet as given (flags) */
	struct iovec *v;		/* per slot: its one iovec */
	uint32_t *free;			/* free slot numbers (a stack) */
};

static int tun_recv(struct sofl_port *, struct sofl_port_pkt **);
static int tun_send(struct sofl_port *, const struct sofl_port_pkt *, size_t);
static void tun_close(struct sofl_port *);

static const struct sofl_port_ops tun_ops = { "tun", tun_recv, tun_send, tun_close, NULL, NULL };
static const struct sofl_port_ops tap_ops = { "tap", tun_recv, tun_send, tun_close, NULL, NULL };

SOFL_API void
sofl_tun_config_init(struct sofl_tun_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	cfg->vnet_hdr = 1;
	cfg->offloads = SOFL_TUN_WANT_F_ALL;
	cfg->rx_mode = SOFL_PORT_RX_SEGMENT;
	cfg->tx_gro = 1;
	cfg->rx_batch = SOFL_TUN_RX_BATCH_DEFAULT;
	cfg->rx_reads = SOFL_TUN_RX_READS_DEFAULT;
	cfg->fd = -1;
}

/* Copies the caller's @in (of its own size: an older or newer program)
 * into @c, defaults for the fields it lacks, and checks it (port.h's rule).
 * @return 0, SOFL_E_INVAL, SOFL_E_CFG_*. */
static int
tun_config_copy(struct sofl_tun_config *c, const struct sofl_tun_config *in)
{
	int err;

	if (!in)
		return SOFL_E_INVAL;
	sofl_tun_config_init(c);
	/* the smallest accepted: the first sized version's (0.3.0, up to rss) */
	err = sofl_cfg_copy(c, sizeof(*c), in, in->size,
			    offsetof(struct sofl_tun_config, rss) + sizeof(c->rss));
	if (err)
		return err;
	if (c->rx_mode != SOFL_PORT_RX_SEGMENT && c->rx_mode != SOFL_PORT_RX_SUPER &&
	    c->rx_mode != SOFL_PORT_RX_CONTIG)
		return SOFL_E_CFG_RX_MODE;
	if (c->rx_mode == SOFL_PORT_RX_SUPER && (c->headroom || c->tailroom))
		return SOFL_E_CFG_ROOM;
	if (c->name && strlen(c->name) >= IFNAMSIZ)
		return SOFL_E_CFG_NAME;
	if ((err = port_cfg_range(&c->rx_batch, SOFL_TUN_RX_BATCH_DEFAULT, SOFL_TUN_RX_BATCH_MIN,
				  SOFL_TUN_RX_BATCH_MAX)) < 0)
		return err;
	return port_cfg_range(&c->rx_reads, SOFL_TUN_RX_READS_DEFAULT, SOFL_TUN_RX_READS_MIN,
			      SOFL_TUN_RX_READS_MAX);
}

static void
hold_free(struct tun_hold *h)
{
	if (!h)
		return;
	free(h->mem);
	free(h->pk);
	free(h->v);
	free(h->free);
	free(h);
}

static void
tun_free(struct tun_port *t)
{
	uint32_t i;

	if (t->buf)
		for (i = 0; i < t->nbufs; i++)
			free(t->buf[i]);
	free(t->buf);
	free(t->gin);
	hold_free(t->hold);
	t->hold = NULL;
	port_rxq_free(&t->q);
	sofl_gro_destroy(t->base.gro);
	t->base.gro = NULL;
}

static int
tun_gro_create(struct tun_port *t, const struct sofl_tun_config *c)
{
	struct sofl_gro_config g;

	if (c->gro) {
		g = *c->gro;
	} else {
		sofl_gro_config_init(&g);
		g.link = t->link;
		/* UDP super-packets only where the device said it knows USO */
		g.udp = (t->base.offloads & SOFL_PORT_OFF_F_USO) != 0;
		/* tunnel super-packets only where a virtio header can carry them:
		 * VXLAN/Geneve with the 24-byte header, IP-in-IP never (no
		 * virtio GSO type); else those frames are coalesced as what
		 * they are without the tunnel (UDP datagrams, with USO) */
		sofl_pkt_config_init(&t->pcfg);
		t->pcfg.flags |= SOFL_PKT_F_NO_IPIP;
		if (!(t->base.offloads & SOFL_PORT_OFF_F_UDP_TNL))
			t->pcfg.n_udp = 0;
		g.parse = &t->pcfg;
	}
	/* sends are synchronous: every flow is completed by the end of the
	 * call, nothing held across calls (the packets are the caller's) */
	g.flush_timeout_us = 0;
	if (g.max_batch == 0)
		g.max_batch = 256;
	t->gcfg = g;
	t->gcfg.rules = NULL;		/* not kept: a re-creation (held sends) needs none */
	t->gcfg.n_rules = 0;
	t->gin_cap = g.max_batch;
	t->gin = calloc(t->gin_cap, sizeof(*t->gin));
	if (!t->gin)
		return SOFL_E_NOMEM;
	return sofl_gro_create(&g, &t->base.gro);
}

int
port_tun_make(const struct sofl_tun_config *cfg, int fd, unsigned offloads, const char *name,
	      struct sofl_port **out)
{
	struct sofl_tun_config c;
	struct tun_port *t;
	uint32_t i;
	int err;

	if (!out)
		return SOFL_E_INVAL;
	*out = NULL;
	if ((err = tun_config_copy(&c, cfg)) < 0)
		return err;
	if (!(t = calloc(1, sizeof(*t))))
		return SOFL_E_NOMEM;
	t->base.ops = c.tap ? &tap_ops : &tun_ops;
	t->base.fd = fd;
	t->base.quiet = c.quiet;
	/* the tunnel bits mean the 24-byte header: only with a plain GSO, and
	 * on a TAP (see negotiate_tnl) */
	if (!(offloads & SOFL_PORT_OFF_F_UDP_TNL) || !c.tap ||
	    !(offloads & (SOFL_PORT_OFF_F_TSO4 | SOFL_PORT_OFF_F_TSO6 | SOFL_PORT_OFF_F_USO)))
		offloads &= ~(unsigned)(SOFL_PORT_OFF_F_UDP_TNL | SOFL_PORT_OFF_F_UDP_TNL_CSUM);
	t->base.offloads = c.vnet_hdr ? offloads | SOFL_PORT_OFF_F_VNET : 0;
	t->tap = c.tap;
	t->vnet = c.vnet_hdr;
	t->vlen = (t->base.offloads & SOFL_PORT_OFF_F_UDP_TNL) ? VNET_TNL_LEN : VNET_LEN;
	t->rx_mode = c.rx_mode;
	t->mtu = c.mtu;
	t->link = c.tap ? SOFL_LINK_ETH : SOFL_LINK_RAW;
	t->pending = -1;
	snprintf(t->name, sizeof(t->name), "%s", name ? name : "");
	t->nbufs = c.rx_reads;
	err = SOFL_E_NOMEM;
	if (!(t->buf = calloc(t->nbufs, sizeof(*t->buf))))
		goto fail;
	for (i = 0; i < t->nbufs; i++)
		if (!(t->buf[i] = aligned_alloc(64, RX_BUF)))
			goto fail;
	/* every segment: headers (<= 256) + 1 payload slice; a batch of
	 * rx_batch segments needs at most rx_batch header slots */
	if ((err = port_rxq_init(&t->q, c.rx_batch, 2, (size_t)c.rx_batch * 128 + 512,
				 c.headroom, c.tailroom)) < 0)
		goto fail;
	t->q.rss = c.rss;
	/* what the kernel may hand us: tunnel headers, the outer checksum
	 * flag only with _CSUM (tun_vnet_hdr_from_skb) */
	if (t->base.offloads & SOFL_PORT_OFF_F_UDP_TNL)
		t->q.vnet_opts = SOFL_VNET_F_TUNNEL | (t->base.offloads & SOFL_PORT_OFF_F_UDP_TNL_CSUM ?
						       SOFL_VNET_F_TUNNEL_CSUM : 0);
	if (c.rx_mode == SOFL_PORT_RX_CONTIG && (err = port_rxq_set_contig(&t->q)) < 0)
		goto fail;
	/* kept batches (port.c): the batch and the read buffers it points into */
	t->base.rxq = &t->q;
	t->base.rxbuf = t->buf;
	t->base.nrxbuf = t->nbufs;
	t->base.rxbuf_size = RX_BUF;
	if (t->vnet && c.rx_mode != SOFL_PORT_RX_SUPER)
		t->base.offloads |= SOFL_PORT_OFF_F_GSO;
	if (t->vnet && c.tx_gro) {
		if ((err = tun_gro_create(t, &c)) < 0)
			goto fail;
		t->tx_gro = 1;
		t->base.offloads |= SOFL_PORT_OFF_F_GRO;
	}
	*out = &t->base;
	return 0;
fail:
	tun_free(t);
	free(t);
	return err;
}

/* TUNSETOFFLOAD with @f; 1 if the kernel took it. */
static int
try_offload(int fd, unsigned f)
{
	return ioctl(fd, TUNSETOFFLOAD, (unsigned long)f) == 0;
}

/* Sets the virtio header size @sz.  @return 1 done, 0 refused. */
static int
set_vnet_size(int fd, int sz)
{
	return ioctl(fd, TUNSETVNETHDRSZ, &sz) == 0;
}

/* UDP-tunnel GSO on top of the granted TUNSETOFFLOAD bits @f (@off their
 * SOFL_PORT_OFF_F_*): the 24-byte header first (so that no tunnel
 * super-packet is ever read with a 12-byte one: tun_put_user() would drop
 * it), then TUN_F_UDP_TUNNEL_GSO with _CSUM, then without; a kernel that
 * knows neither (EINVAL: before 6.17) gets the 12-byte header back.
 * TAP only: the header's offsets count from an Ethernet header
 * (virtio_net_hdr_tnl_to_skb() wants outer_th_offset >= ETH_HLEN + the
 * outer IP header, on a raw-IP TUN too), so a TUN's outer UDP header at 20
 * or 40 can be described neither way.
 * @return the SOFL_PORT_OFF_F_UDP_TNL* bits granted. */
static unsigned
negotiate_tnl(int fd, int tap, unsigned want, unsigned f, unsigned off)
{
	if (!tap || !(want & (SOFL_TUN_WANT_F_UDP_TNL | SOFL_TUN_WANT_F_UDP_TNL_CSUM)) ||
	    !(off & (SOFL_PORT_OFF_F_TSO4 | SOFL_PORT_OFF_F_TSO6 | SOFL_PORT_OFF_F_USO)))
		return 0;
	if (!set_vnet_size(fd, VNET_TNL_LEN))
		return 0;
	if ((want & SOFL_TUN_WANT_F_UDP_TNL_CSUM) &&
	    try_offload(fd, f | TUN_F_UDP_TUNNEL_GSO | TUN_F_UDP_TUNNEL_GSO_CSUM))
		return SOFL_PORT_OFF_F_UDP_TNL | SOFL_PORT_OFF_F_UDP_TNL_CSUM;
	if (try_offload(fd, f | TUN_F_UDP_TUNNEL_GSO))
		return SOFL_PORT_OFF_F_UDP_TNL;
	try_offload(fd, f);
	set_vnet_size(fd, VNET_LEN);
	return 0;
}

/* Probes the offloads one group at a time (each needs CSUM; USO4 and USO6
 * only together, as the kernel's tun_set_offload() accepts them) and sets
 * the largest accepted set, then the UDP-tunnel ones when asked for.
 * @return SOFL_PORT_OFF_F_* */
static unsigned
negotiate(int fd, int tap, unsigned want)
{
	unsigned f = 0, off = 0;

	if (!(want & SOFL_TUN_WANT_F_CSUM) || !try_offload(fd, TUN_F_CSUM)) {
		try_offload(fd, 0);
		return 0;
	}
	f = TUN_F_CSUM;
	off = SOFL_PORT_OFF_F_CSUM;
	if ((want & SOFL_TUN_WANT_F_TSO) && try_offload(fd, f | TUN_F_TSO4 | TUN_F_TSO6)) {
		f |= TUN_F_TSO4 | TUN_F_TSO6;
		off |= SOFL_PORT_OFF_F_TSO4 | SOFL_PORT_OFF_F_TSO6;
		if ((want & SOFL_TUN_WANT_F_ECN) && try_offload(fd, f | TUN_F_TSO_ECN)) {
			f |= TUN_F_TSO_ECN;
			off |= SOFL_PORT_OFF_F_TSO_ECN;
		}
	}
	if ((want & SOFL_TUN_WANT_F_USO) && try_offload(fd, f | TUN_F_USO4 | TUN_F_USO6)) {
		f |= TUN_F_USO4 | TUN_F_USO6;
		off |= SOFL_PORT_OFF_F_USO;
	}
	try_offload(fd, f);
	return off | negotiate_tnl(fd, tap, want, f, off);
}

/* Sets the 12-byte header, little-endian.  @return 0 or -1 (errno). */
static int
set_vnet(int fd)
{
	int sz = VNET_LEN, le = 1;

	if (ioctl(fd, TUNSETVNETHDRSZ, &sz) < 0)
		return -1;
	if (ioctl(fd, TUNSETVNETLE, &le) < 0) {
		/* no TUNSETVNETLE: the header is in host order, which is
		 * little-endian here or unusable */
		const uint16_t one = 1;

		if (*(const uint8_t *)&one != 1)
			return -1;
	}
	return 0;
}

SOFL_API int
sofl_tun_open(const struct sofl_tun_config *cfg, struct sofl_port **out)
{
	struct sofl_tun_config c;
	struct ifreq ifr;
	unsigned off = 0;
	int fd, err, existed = 0, e;

	if (!out)
		return SOFL_E_INVAL;
	*out = NULL;
	if ((err = tun_config_copy(&c, cfg)) < 0)
		return err;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = (c.tap ? IFF_TAP : IFF_TUN) | IFF_NO_PI;
	if (c.vnet_hdr)
		ifr.ifr_flags |= IFF_VNET_HDR;
	if (c.multi_queue)
		ifr.ifr_flags |= IFF_MULTI_QUEUE;
	if (c.name && *c.name) {
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", c.name);
		existed = if_nametoindex(c.name) != 0;
	}
	if (c.fd >= 0) {
		fd = c.fd;
		if (ioctl(fd, TUNGETIFF, &ifr) < 0)
			return SOFL_E_SYS;
		c.tap = (ifr.ifr_flags & IFF_TAP) != 0;
		c.vnet_hdr = (ifr.ifr_flags & IFF_VNET_HDR) != 0;
		existed = 1;
	} else {
		if ((fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC)) < 0)
			return SOFL_E_SYS;
		if (ioctl(fd, TUNSETIFF, &ifr) < 0)
			goto sys;
	}
	if (c.vnet_hdr) {
		if (set_vnet(fd) < 0)
			goto sys;
		off = negotiate(fd, c.tap, c.offloads);
	} else if (c.fd < 0) {
		try_offload(fd, 0);
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0)
		goto sys;
	if ((err = port_tun_make(&c, fd, off, ifr.ifr_name, out)) < 0) {
		close(fd);
		return err;
	}
	((struct tun_port *)*out)->created = !existed;
	return 0;
sys:
	e = errno;
	close(fd);
	errno = e;
	return SOFL_E_SYS;
}

SOFL_API int
sofl_tun_name(const struct sofl_port *port, const char **name)
{
	if (!name)
		return SOFL_E_INVAL;
	*name = NULL;
	if (!port)
		return SOFL_E_INVAL;
	if (port->ops->recv != tun_recv)
		return SOFL_E_PORT_KIND;
	*name = ((const struct tun_port *)port)->name;
	return 0;
}

SOFL_API int
sofl_tun_created(const struct sofl_port *port, int *created)
{
	if (!created)
		return SOFL_E_INVAL;
	*created = 0;
	if (!port)
		return SOFL_E_INVAL;
	if (port->ops->recv != tun_recv)
		return SOFL_E_PORT_KIND;
	*created = ((const struct tun_port *)port)->created;
	return 0;
}

static void
tun_close(struct sofl_port *port)
{
	struct tun_port *t = (struct tun_port *)port;

	if (t->hold)
		sofl_port_flush(port, SOFL_PORT_FLUSH_ALL);	/* nothing held is lost */
	if (port->fd >= 0)
		close(port->fd);
	tun_free(t);
}

/* ---- receive ---- */

/* Takes buffer @bi holding @len bytes (header and frame) into the batch.
 * @return packets added, or PORT_RXQ_FULL. */
static int
take(struct tun_port *t, uint8_t *buf, uint32_t len)
{
	struct sofl_vnet_hdr h;

	if (!t->vnet)
		return port_rxq_add(&t->base, &t->q, buf, len, NULL, t->link,
				    t->rx_mode, t->mtu);
	if (sofl_vnet_decode(&h, buf, len, t->vlen, 0) < 0) {
		port_drop(&t->base, 0, SOFL_PORT_DROP_VNET, 1);
		return 0;
	}
	return port_rxq_add(&t->base, &t->q, buf + t->vlen, len - t->vlen, &h, t->link,
			    t->rx_mode, t->mtu);
}

static void
count_rx(struct tun_port *t)
{
	uint64_t bytes = 0;
	uint32_t i;

	for (i = 0; i < t->q.n; i++)
		bytes += t->q.pkt[i].len;
	port_add(&t->base.st.rx_pkts, t->q.n);
	port_add(&t->base.st.rx_bytes, bytes);
}

int
port_tun_rx_buf(struct sofl_port *port, struct sofl_port_pkt **pkts, uint8_t *buf, size_t len)
{
	struct tun_port *t = (struct tun_port *)port;
	int r;

	if (!port || !pkts || !buf || len > RX_BUF)
		return SOFL_E_INVAL;
	port_rxq_reset(&t->q);
	port_add(&port->st.rx_calls, 1);
	r = take(t, buf, (uint32_t)len);
	if (r == PORT_RXQ_FULL)
		port_drop(port, 0, SOFL_PORT_DROP_NOROOM, 1);
	count_rx(t);
	*pkts = t->q.pkt;
	return (int)t->q.n;
}

static int
tun_recv(struct sofl_port *port, struct sofl_port_pkt **pkts)
{
	struct tun_port *t = (struct tun_port *)port;
	uint32_t bi = 0;
	ssize_t r;

	port_rxq_reset(&t->q);
	if (t->pending >= 0) {
		uint8_t *b = t->buf[t->pending];

		t->buf[t->pending] = t->buf[0];
		t->buf[0] = b;
		t->pending = -1;
		bi = 1;
		if (take(t, b, t->pending_len) == PORT_RXQ_FULL)
			port_drop(port, 0, SOFL_PORT_DROP_NOROOM, 1);
	}
	for (; bi < t->nbufs; bi++) {
		r = read(port->fd, t->buf[bi], RX_BUF);
		if (r < 0) {
			if (errno == EINTR) {
				bi--;
				continue;
			}
			if (errno == EAGAIN)
				break;
			if (errno == EBADF || errno == EFAULT || errno == EBADFD) {
				if (t->q.n == 0)
					return SOFL_E_SYS;
				break;
			}
			port_fault(port, 0, errno, 1);
			break;
		}
		if (r == 0)
			break;
		port_add(&port->st.rx_calls, 1);
		if (take(t, t->buf[bi], (uint32_t)r) == PORT_RXQ_FULL) {
			t->pending = (int)bi;
			t->pending_len = (uint32_t)r;
			break;
		}
	}
	count_rx(t);
	port->rx_used = bi;	/* buf[0..bi) hold this batch's bytes (kept batches) */
	*pkts = t->q.pkt;
	return (int)t->q.n;
}

/* ---- send ---- */

/* One writev of @cnt iovecs at t->wv (header included when vnet).
 * @return 0, or the errno. */
static int
write_v(struct tun_port *t, int cnt)
{
	ssize_t r;

	port_add(&t->base.st.tx_calls, 1);
	do
		r = writev(t->base.fd, t->wv, cnt);
	while (r < 0 && errno == EINTR);
	return r < 0 ? errno : 0;
}

/* Writes @pk alone: its own header when it has one, else "checksum valid"
 * (or none) and no GSO.  @return 1 written, 0 dropped (counted). */
static int
write_one(struct tun_port *t, const struct sofl_port_pkt *pk)
{
	struct sofl_vnet_hdr h;
	uint32_t k = 0, i;
	int err;

	if (pk->iovcnt + 1 > IOV_MAX) {
		port_drop(&t->base, 1, SOFL_PORT_DROP_UNSUPPORTED, 1);
		return 0;
	}
	if (t->vnet) {
		if (pk->flags & SOFL_PORT_PKT_F_VNET) {
			h = pk->vnet;
		} else {
			memset(&h, 0, sizeof(h));
			if (pk->flags & SOFL_PORT_PKT_F_CSUM_OK)
				h.flags = SOFL_VNET_HDR_F_DATA_VALID;
		}
		h.num_buffers = 0;
		if ((h.gso_type & SOFL_VNET_GSO_UDP_TUNNEL) && t->vlen < VNET_TNL_LEN) {
			/* a UDP-tunnel header needs the 24-byte form */
			port_drop(&t->base, 1, SOFL_PORT_DROP_UNSUPPORTED, 1);
			return 0;
		}
		sofl_vnet_encode(t->vh, sizeof(t->vh), &h, t->vlen, 0);
		t->wv[k++] = (struct iovec){ t->vh, t->vlen };
	}
	for (i = 0; i < pk->iovcnt; i++)
		t->wv[k++] = pk->iov[i];
	if ((err = write_v(t, (int)k)) != 0) {
		port_fault(&t->base, 1, err, 1);
		return 0;
	}
	port_add(&t->base.st.tx_pkts, 1);
	port_add(&t->base.st.tx_bytes, pk->len);
	if ((pk->flags & SOFL_PORT_PKT_F_VNET) && pk->vnet.gso_type != SOFL_GSO_NONE)
		port_add(&t->base.st.tx_super, 1);
	return 1;
}

/* The packet of GRO input cookie @c: a held slot's, or @pkts[@c]. */
static const struct sofl_port_pkt *
cookie_pkt(const struct tun_port *t, const struct sofl_port_pkt *pkts, uint64_t c)
{
	return c & HOLD_COOKIE ? &t->hold->pk[(uint32_t)c] : &pkts[c];
}

/* Writes the input packets of GRO output @o one by one.  @return written. */
static int
write_parts(struct tun_port *t, const struct sofl_port_pkt *pkts, const struct sofl_gro_out *o)
{
	uint32_t k;
	int sent = 0;

	for (k = 0; k < o->segs; k++)
		sent += write_one(t, cookie_pkt(t, pkts, o->cookies[k]));
	return sent;
}

/* Writes GRO output @o.  @return packets (inputs) written. */
static int
write_out(struct tun_port *t, const struct sofl_port_pkt *pkts, const struct sofl_gro_out *o)
{
	int err;

	/* the engine's default max_segs (SOFL_GRO_MAX_SEGS_DEFAULT) keeps
	 * outputs within IOV_MAX with the header; a caller's .gro may not */
	if (o->iovcnt + 1 > IOV_MAX) {
		port_fallback(&t->base, FB_IOV_MAX, "super-packet of more than IOV_MAX pieces "
			      "written as its segments");
		return write_parts(t, pkts, o);
	}
	/* a super-packet no header of this port describes (an IP-in-IP one,
	 * or a UDP-tunnel one without the 24-byte header: only a caller's
	 * .gro makes them) goes out as its segments */
	if (o->segs > 1 && (o->vnet.gso_type == SOFL_GSO_NONE ||
			    ((o->vnet.gso_type & SOFL_VNET_GSO_UDP_TUNNEL) && t->vlen < VNET_TNL_LEN)))
		return write_parts(t, pkts, o);
	sofl_vnet_encode(t->vh, sizeof(t->vh), &o->vnet, t->vlen, 0);
	t->wv[0] = (struct iovec){ t->vh, t->vlen };
	memcpy(t->wv + 1, o->iov, o->iovcnt * sizeof(*o->iov));
	err = write_v(t, (int)o->iovcnt + 1);
	if (err == EINVAL && o->segs > 1) {
		/* the kernel refuses GSO writes: coalesce no more */
		t->tx_gro = 0;
		__atomic_store_n(&t->base.offloads, t->base.offloads & ~SOFL_PORT_OFF_F_GRO,
				 __ATOMIC_RELAXED);
		port_fallback(&t->base, FB_GSO_WRITE, "GSO write refused (EINVAL): writing "
			      "segments from now on");
		return write_parts(t, pkts, o);
	}
	if (err) {
		port_fault(&t->base, 1, err, o->segs);
		return 0;
	}
	port_add(&t->base.st.tx_pkts, o->segs);
	port_add(&t->base.st.tx_bytes, o->len);
	if (o->segs > 1) {
		port_add(&t->base.st.tx_super, 1);
		port_add(&t->base.st.tx_segs, o->segs);
	}
	return (int)o->segs;
}

/* Writes the engine's outputs, gives the held slots in them back and ends
 * the cycle.  @return packets (inputs) written; with @callers only those
 * of the caller's buffers (a send's count: held ones were counted by the
 * send that took them). */
static int
gro_write(struct tun_port *t, const struct sofl_port_pkt *pkts, int callers)
{
	const struct sofl_gro_out *o;
	struct tun_hold *h = t->hold;
	int n, j, w, sent = 0;
	uint32_t k, held;

	n = sofl_gro_outputs(t->base.gro, &o);
	for (j = 0; j < n; j++) {
		w = t->tx_gro ? write_out(t, pkts, &o[j]) : write_parts(t, pkts, &o[j]);
		held = 0;
		if (h)
			for (k = 0; k < o[j].segs; k++)
				if (o[j].cookies[k] & HOLD_COOKIE) {
					h->free[h->nfree++] = (uint32_t)o[j].cookies[k];
					held++;
				}
		if (callers)
			w = w > (int)held ? w - (int)held : 0;
		sent += w;
	}
	sofl_gro_release(t->base.gro);
	return sent;
}

static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Coalesces pkts[from..to) (each one contiguous piece) and writes the
 * outputs.  @hold (held sends, the flush timeout): the packets are copied
 * into free slots, and only the flows due by @now are completed; else
 * everything is.  @return packets written, or with @hold taken (written
 * or held). */
static int
gro_run(struct tun_port *t, const struct sofl_port_pkt *pkts, size_t from, size_t to,
	uint64_t now, int hold)
{
	struct tun_hold *h = t->hold;
	size_t i, k = 0;
	int sent = 0;

	for (i = from; i < to; i++) {
		const struct iovec *v = port_pkt_flat(&pkts[i]);
		struct sofl_gro_in *g = &t->gin[k++];

		g->data = v->iov_base;
		g->len = (uint32_t)v->iov_len;
		g->flags = pkts[i].flags & SOFL_PORT_PKT_F_CSUM_OK ?
			   SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK : 0;
		if (pkts[i].flags & SOFL_PORT_PKT_F_HASH) {
			g->flags |= SOFL_GRO_F_HASH;
			g->hash = pkts[i].hash;
		}
		g->cookie = i;
		if (hold) {
			uint32_t sl = h->free[--h->nfree];
			uint8_t *m = h->mem + (size_t)sl * HOLD_SLOT;

			memcpy(m, v->iov_base, v->iov_len);
			h->v[sl] = (struct iovec){ m, v->iov_len };
			h->pk[sl] = pkts[i];
			h->pk[sl].iov = &h->v[sl];
			h->pk[sl].iovcnt = 1;
			h->pk[sl].headroom = h->pk[sl].tailroom = 0;
			h->pk[sl].addr = NULL;
			h->pk[sl].addrlen = 0;
			g->data = m;
			g->cookie = HOLD_COOKIE | sl;
		}
	}
	if (sofl_gro_receive(t->base.gro, t->gin, k, now) < 0) {
		/* cannot happen with k <= max_batch after a release (and, held
		 * sends, at most max_held held); write what is held first, then
		 * these plainly (the slots taken go back) */
		if (h) {
			sofl_gro_flush(t->base.gro);
			gro_write(t, pkts, 1);
		}
		for (i = 0; i < k; i++) {
			if (t->gin[i].cookie & HOLD_COOKIE)
				h->free[h->nfree++] = (uint32_t)t->gin[i].cookie;
			sent += write_one(t, &pkts[from + i]);
		}
		return sent;
	}
	if (!h)
		sofl_gro_poll_end(t->base.gro, 0);
	else if (hold)
		sofl_gro_poll_end(t->base.gro, now);
	else
		sofl_gro_flush(t->base.gro);
	sent = gro_write(t, pkts, 1);
	return hold ? (int)k : sent;
}

static int
eligible(const struct sofl_port_pkt *pk)
{
	return !(pk->flags & SOFL_PORT_PKT_F_VNET) && port_pkt_flat(pk) != NULL;
}

/* Held sends: may the packets of this send be held (copied into slots)?
 * Not for a full batch, a packet too big for a slot, or too few free
 * slots (never with the engine's max_held = the batch: a safety net). */
static int
may_hold(const struct tun_port *t, const struct sofl_port_pkt *pkts, size_t n)
{
	size_t i, want = 0;

	if (!t->hold || n >= t->gin_cap)
		return 0;
	for (i = 0; i < n; i++) {
		const struct iovec *v;

		if (!eligible(&pkts[i]))
			continue;
		v = port_pkt_flat(&pkts[i]);
		if (v->iov_len > HOLD_SLOT)
			return 0;
		want++;
	}
	return want <= t->hold->nfree;
}

/* Writes everything held (before a packet that is written alone, so the
 * order on the device is the order of the sends).  @return written. */
static int
hold_flush_all(struct tun_port *t)
{
	if (!t->hold || !sofl_gro_held(t->base.gro))
		return 0;
	sofl_gro_flush(t->base.gro);
	return gro_write(t, NULL, 0);
}

static void
mirror(struct sofl_port *port)
{
	if (port->gro) {
		port_gro_mirror(port);
		__atomic_store_n(&port->st.csum_sw_verify,
				 port->gro_st.csum_sw_l4 + port->gro_st.csum_sw_ip, __ATOMIC_RELAXED);
	}
}

static int
tun_send(struct sofl_port *port, const struct sofl_port_pkt *pkts, size_t n)
{
	struct tun_port *t = (struct tun_port *)port;
	size_t i = 0, j;
	int sent = 0, hold = may_hold(t, pkts, n);
	uint64_t now = t->hold ? mono_ns() : 0;

	/* A send after the timeout passed with no sofl_port_flush() (the
	 * caller was late: preempted, or busy with the other direction) joins
	 * its packets to what is held first and completes only the flows past
	 * their age bound, as Linux's timer poll that finds new packets keeps
	 * what GRO holds (napi_complete_done() with work done); completing
	 * everything first would split a burst whose rest waited in the
	 * caller's ring while it was away. */
	if (hold)
		t->hold->last_ns = now;
	while (i < n) {
		if (!t->tx_gro || !eligible(&pkts[i])) {
			hold_flush_all(t);
			sent += write_one(t, &pkts[i++]);
			continue;
		}
		for (j = i; j < n && j - i < t->gin_cap && eligible(&pkts[j]); j++)
			;
		sent += gro_run(t, pkts, i, j, now, hold);
		i = j;
	}
	if (t->hold && !hold)
		hold_flush_all(t);	/* a full batch: nothing stays */
	mirror(port);
	return sent;
}

/* ---- held sends (port.h: sofl_port_set_flush_timeout) ---- */

static struct tun_hold *
hold_alloc(uint32_t nslots)
{
	struct tun_hold *h = calloc(1, sizeof(*h));
	uint32_t i;

	if (!h)
		return NULL;
	h->nslots = h->nfree = nslots;
	h->mem = malloc((size_t)nslots * HOLD_SLOT);
	h->pk = calloc(nslots, sizeof(*h->pk));
	h->v = calloc(nslots, sizeof(*h->v));
	h->free = calloc(nslots, sizeof(*h->free));
	if (!h->mem || !h->pk || !h->v || !h->free) {
		hold_free(h);
		return NULL;
	}
	for (i = 0; i < nslots; i++)
		h->free[i] = nslots - 1 - i;
	return h;
}

static struct tun_port *
tun_cast(struct sofl_port *port)
{
	return port && port->ops->recv == tun_recv ? (struct tun_port *)port : NULL;
}

SOFL_API int
sofl_port_set_flush_timeout(struct sofl_port *port, uint32_t usec)
{
	struct tun_port *t = tun_cast(port);
	struct tun_hold *h = NULL;
	int err;

	if (!port)
		return SOFL_E_INVAL;
	if (!t)
		return SOFL_E_PORT_KIND;
	if (!port->gro)
		return SOFL_E_NOTSUP;
	if (usec > SOFL_PORT_FLUSH_TIMEOUT_MAX)
		return SOFL_E_CFG_FLUSH_TIMEOUT;
	if (usec == (t->hold ? t->hold->us : 0))
		return 0;
	/* slots for what the engine may hold (max_held: one batch, as it
	 * was created with; poll ends complete the oldest past it) and for
	 * the next batch */
	if (usec && !t->hold && !(h = hold_alloc(2 * t->gin_cap)))
		return SOFL_E_NOMEM;
	if ((err = sofl_port_flush(port, SOFL_PORT_FLUSH_ALL)) < 0) {
		hold_free(h);
		return err;
	}
	/* the engine's timeout is the age bound; the idle rule is the port's */
	if ((err = sofl_gro_set_flush_timeout(port->gro, usec * HOLD_AGE)) < 0) {
		hold_free(h);
		return err;
	}
	if (!usec) {
		hold_free(t->hold);
		t->hold = NULL;
		return 0;
	}
	if (h)
		t->hold = h;
	t->hold->us = usec;
	return 0;
}

SOFL_API int
sofl_port_next_deadline(const struct sofl_port *port, uint64_t *deadline_ns)
{
	const struct tun_port *t;
	uint64_t idle;
	int r;

	if (!port || !deadline_ns)
		return SOFL_E_INVAL;
	*deadline_ns = UINT64_MAX;
	t = port->ops->recv == tun_recv ? (const struct tun_port *)port : NULL;
	if (!t || !t->hold)
		return 0;
	/* the earlier of: idle for the timeout, the oldest flow's age bound */
	if ((r = sofl_gro_next_deadline(port->gro, deadline_ns)) != 1)
		return r;
	idle = t->hold->last_ns + (uint64_t)t->hold->us * 1000;
	if (idle < *deadline_ns)
		*deadline_ns = idle;
	return 1;
}

SOFL_API int
sofl_port_flush(struct sofl_port *port, uint64_t now_ns)
{
	struct tun_port *t = tun_cast(port);
	int sent;

	if (!port)
		return SOFL_E_INVAL;
	if (!t || !t->hold || !sofl_gro_held(port->gro))
		return 0;
	/* idle for the timeout: everything (Linux: the timer's poll found no
	 * work); else the flows past their age bound (Linux: what was held
	 * since an earlier jiffy, napi_gro_flush(n, true)) */
	if (now_ns < t->hold->last_ns)
		now_ns = t->hold->last_ns;	/* a clock read before our last send */
	if (now_ns == SOFL_PORT_FLUSH_ALL ||
	    now_ns - t->hold->last_ns >= (uint64_t)t->hold->us * 1000)
		sofl_gro_flush(port->gro);
	else
		sofl_gro_poll_end(port->gro, now_ns);
	sent = gro_write(t, NULL, 0);
	mirror(port);
	return sent;
}
