/*
 * The UDP port (port.h): a UDP socket, IPv4 or IPv6, connected or not.
 * Sends: runs of equal-size datagrams (the last may be shorter) to one
 * destination become one message with UDP_SEGMENT, the others one message
 * each, and all of them go in sendmmsg() calls.  Receives: recvmmsg() into
 * 64 KB buffers with UDP_GRO, each coalesced message split by its gso_size.
 * Kernel side: net/ipv4/udp.c (udp_sendmsg, udp_send_skb's UDP_SEGMENT
 * checks, udp_cmsg_recv), net/ipv4/udp_offload.c (__udp_gso_segment).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "softoffload/port.h"
#include "base/cfg.h"
#include "base/log.h"
#include "port_impl.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef IOV_MAX
#define IOV_MAX 1024
#endif

#define GSO_MAX_SEGS	64	/* datagrams per UDP_SEGMENT send (UDP_MAX_SEGMENTS is
				   128 from 6.11, 64 before) */
#define RX_CTL		64	/* control bytes per received message */
#define RX_ADDR(u, i)	((struct sockaddr_storage *)((u)->buf[i] + (u)->addr_off))
#define TX_MSGS		256	/* messages per sendmmsg() */
#define TX_IOVS		4096	/* iovecs per sendmmsg() */

#define FB_GSO_EIO	0
#define FB_GSO_EINVAL	1

struct udp_port {
	struct sofl_port base;
	int family, connected, gso, nonblock, peer_only, plain;
	struct sockaddr_storage remote;
	socklen_t remote_len;
	uint32_t nb, buf_size, max_dgram;
	uint32_t min_len;		/* shorter datagrams are RUNT drops (0: none) */
	struct udp_sink sink;		/* the runt sink (udp_sink.c); fd -1: none */
	uint64_t sink_base;		/* its count at the last reset (atomic) */
	uint32_t addr_off;		/* buf_size rounded up to 64: the address's offset */
	uint8_t **buf;			/* nb buffers: buf_size bytes of datagrams, then the
					 * sender's address (RX_ADDR), so that a kept batch
					 * (port.c) takes its addresses along */
	struct mmsghdr *rmsg;
	struct iovec *riov;
	uint8_t *rctl;
	uint32_t ovfl;			/* SO_RXQ_OVFL count last seen */
	struct port_rxq q;
	struct mmsghdr smsg[TX_MSGS];
	uint32_t scount[TX_MSGS];	/* packets in each message */
	size_t sfirst[TX_MSGS];		/* index of the first */
	struct iovec siov[TX_IOVS];
	uint8_t sctl[TX_MSGS][CMSG_SPACE(sizeof(uint16_t))];
};

static int udp_recv(struct sofl_port *, struct sofl_port_pkt **);
static int udp_send(struct sofl_port *, const struct sofl_port_pkt *, size_t);
static void udp_close(struct sofl_port *);

static void udp_stats(const struct sofl_port *, struct sofl_port_stats *);
static void udp_reset(struct sofl_port *);
static const struct sofl_port_ops udp_ops = {
	"udp", udp_recv, udp_send, udp_close, udp_stats, udp_reset
};

SOFL_API void
sofl_udp_config_init(struct sofl_udp_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	cfg->gso = 1;
	cfg->gro = 1;
	cfg->rx_batch = SOFL_UDP_RX_BATCH_DEFAULT;
	cfg->rx_buf = SOFL_UDP_RX_BUF_DEFAULT;
	cfg->fd = -1;
}

/* @sa is the wildcard address (or port 0: no port to share) */
static int
addr_is_any(const struct sockaddr *sa)
{
	static const uint8_t any6[16];

	if (sa->sa_family == AF_INET)
		return ((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr == 0 ||
		       ((const struct sockaddr_in *)(const void *)sa)->sin_port == 0;
	if (sa->sa_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, any6,
			       16) ||
		       ((const struct sockaddr_in6 *)(const void *)sa)->sin6_port == 0;
	return 1;
}

/* Copies the caller's @in (of its own size: an older or newer program)
 * into @c, defaults for the fields it lacks, and checks it (port.h's rule).
 * @return 0, SOFL_E_INVAL, SOFL_E_CFG_*. */
static int
udp_config_copy(struct sofl_udp_config *c, const struct sofl_udp_config *in)
{
	int err;

	if (!in)
		return SOFL_E_INVAL;
	sofl_udp_config_init(c);
	/* the smallest accepted: the first sized version's (0.3.0, up to quiet) */
	err = sofl_cfg_copy(c, sizeof(*c), in, in->size,
			    offsetof(struct sofl_udp_config, quiet) + sizeof(c->quiet));
	if (err)
		return err;
	if ((err = port_cfg_range(&c->rx_batch, SOFL_UDP_RX_BATCH_DEFAULT, SOFL_UDP_RX_BATCH_MIN,
				  SOFL_UDP_RX_BATCH_MAX)) < 0 ||
	    (err = port_cfg_range(&c->rx_buf, SOFL_UDP_RX_BUF_DEFAULT, SOFL_UDP_RX_BUF_MIN,
				  SOFL_UDP_RX_BUF_MAX)) < 0 ||
	    (err = port_cfg_range(&c->max_pkts, 64 * c->rx_batch, SOFL_UDP_MAX_PKTS_MIN,
				  SOFL_UDP_MAX_PKTS_MAX)) < 0)
		return err;
	if (c->min_len > SOFL_UDP_RX_BUF_MAX)
		return SOFL_E_CFG_BATCH;
	if (c->min_len_kernel && (!c->min_len || c->connect || c->fd >= 0 || !c->local ||
				  addr_is_any(c->local)))
		return SOFL_E_CFG_ADDR;
	if (c->gro && c->rx_buf < 65536)	/* a UDP_GRO receive is up to 64 KB */
		return SOFL_E_CFG_BATCH;
	if ((c->local && c->local_len > sizeof(struct sockaddr_storage)) ||
	    (c->remote && c->remote_len > sizeof(struct sockaddr_storage)))
		return SOFL_E_CFG_ADDR;
	if (c->local && c->remote && c->local->sa_family != c->remote->sa_family)
		return SOFL_E_CFG_ADDR;
	if (c->connect && !c->remote)
		return SOFL_E_CFG_ADDR;
	return 0;
}

static void
udp_free(struct udp_port *u)
{
	uint32_t i;

	if (u->buf)
		for (i = 0; i < u->nb; i++)
			free(u->buf[i]);
	free(u->buf);
	free(u->rmsg);
	free(u->riov);
	free(u->rctl);
	port_rxq_free(&u->q);
}

int
port_udp_make(const struct sofl_udp_config *cfg, int fd, unsigned offloads,
	      struct sofl_port **out)
{
	struct sofl_udp_config c;
	struct udp_port *u;
	uint32_t i;
	int err;

	if (!out)
		return SOFL_E_INVAL;
	*out = NULL;
	if ((err = udp_config_copy(&c, cfg)) < 0)
		return err;
	if (!(u = calloc(1, sizeof(*u))))
		return SOFL_E_NOMEM;
	u->base.ops = &udp_ops;
	u->base.fd = fd;
	u->base.quiet = c.quiet;
	u->base.offloads = offloads;
	u->gso = (offloads & SOFL_PORT_OFF_F_UDP_GSO) != 0;
	u->connected = c.connect;
	u->nonblock = c.nonblock_send;
	u->peer_only = c.peer_only && c.remote && !c.connect;
	u->plain = c.rx_batch == 1 && !u->gso;
	u->family = c.remote ? c.remote->sa_family : c.local ? c.local->sa_family : AF_INET;
	if (c.remote) {
		memcpy(&u->remote, c.remote, c.remote_len);
		u->remote_len = c.remote_len;
	}
	u->max_dgram = u->family == AF_INET6 ? 65527 : 65507;
	u->nb = c.rx_batch;
	u->buf_size = c.rx_buf;
	u->min_len = c.min_len;
	u->sink.fd = u->sink.map = -1;
	err = SOFL_E_NOMEM;
	u->buf = calloc(u->nb, sizeof(*u->buf));
	u->rmsg = calloc(u->nb, sizeof(*u->rmsg));
	u->riov = calloc(u->nb, sizeof(*u->riov));
	u->rctl = calloc(u->nb, RX_CTL);
	if (!u->buf || !u->rmsg || !u->riov || !u->rctl)
		goto fail;
	/* the address behind the datagram bytes, aligned */
	u->addr_off = (u->buf_size + 63) & ~63u;
	for (i = 0; i < u->nb; i++)
		if (!(u->buf[i] = aligned_alloc(64, u->addr_off + sizeof(struct sockaddr_storage))))
			goto fail;
	if ((err = port_rxq_init(&u->q, c.max_pkts, 1, 0, c.headroom, c.tailroom)) < 0)
		goto fail;
	/* kept batches (port.c): the batch and the buffers it points into */
	u->base.rxq = &u->q;
	u->base.rxbuf = u->buf;
	u->base.nrxbuf = u->nb;
	u->base.rxbuf_size = u->addr_off + sizeof(struct sockaddr_storage);
	*out = &u->base;
	return 0;
fail:
	udp_free(u);
	free(u);
	return err;
}

/* Sets a socket buffer to @bytes: the FORCE option (CAP_NET_ADMIN), else the
 * plain one, which Linux caps at net.core.[rw]mem_max (sock_setsockopt());
 * a buffer smaller than asked is not silent: logged (sofl_set_log) unless
 * @quiet.  Linux doubles the value it stores (the bookkeeping overhead), so
 * what it reads back is compared with twice the request. */
static void
set_buf(int fd, int force, int plain, int bytes, const char *name, int quiet)
{
	socklen_t sl = sizeof(int);
	int got = 0;

	if (bytes <= 0)
		return;
	if (setsockopt(fd, SOL_SOCKET, force, &bytes, sizeof(bytes)) < 0)
		setsockopt(fd, SOL_SOCKET, plain, &bytes, sizeof(bytes));
	if (!quiet && getsockopt(fd, SOL_SOCKET, plain, &got, &sl) == 0 &&
	    (got < 0 || got / 2 < bytes))
		sofl_log(SOFL_LOG_WARN, "udp: %s of %d bytes asked, the kernel gave %d "
			 "(net.core.%s; CAP_NET_ADMIN sets more)", name, bytes, got / 2,
			 plain == SO_RCVBUF ? "rmem_max" : "wmem_max");
}

/* A plain socket binds to @sa: 0, or -1 with errno (EADDRINUSE) */
static int
addr_free(const struct sockaddr *sa, socklen_t len)
{
	int s = socket(sa->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_UDP), r, e;

	if (s < 0)
		return -1;
	r = bind(s, sa, len);
	e = errno;
	close(s);
	errno = e;
	return r;
}

/* Probes UDP_SEGMENT and UDP_GRO on @fd as asked.  @return SOFL_PORT_OFF_F_* */
static unsigned
probe(int fd, const struct sofl_udp_config *c)
{
	unsigned off = 0;
	socklen_t sl;
	int one = 1, v;

	sl = sizeof(v);
	if (c->gso && getsockopt(fd, SOL_UDP, UDP_SEGMENT, &v, &sl) == 0)
		off |= SOFL_PORT_OFF_F_UDP_GSO;
	if (c->gro && setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof(one)) == 0)
		off |= SOFL_PORT_OFF_F_UDP_GRO;
	return off;
}

SOFL_API int
sofl_udp_open(const struct sofl_udp_config *cfg, struct sofl_port **out)
{
	struct sofl_udp_config c;
	unsigned off;
	struct udp_sink sink = { -1, -1 };
	int fd, err, one = 1, e;

	if (!out)
		return SOFL_E_INVAL;
	*out = NULL;
	if ((err = udp_config_copy(&c, cfg)) < 0)
		return err;
	if (c.fd >= 0) {
		fd = c.fd;
	} else {
		int fam = c.local ? c.local->sa_family : c.remote ? c.remote->sa_family : 0;

		if (fam != AF_INET && fam != AF_INET6)
			return SOFL_E_CFG_ADDR;
		if ((fd = socket(fam, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_UDP)) < 0)
			return SOFL_E_SYS;
		/* (the sink needs SO_REUSEPORT; without .reuseport the address
		 * must still be free, as a plain bind() would find it) */
		if (c.min_len_kernel && !c.reuseport && addr_free(c.local, c.local_len) < 0)
			goto sys;
		if ((c.reuseport || c.min_len_kernel) &&
		    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0)
			goto sys;
		set_buf(fd, SO_SNDBUFFORCE, SO_SNDBUF, c.sndbuf, "SO_SNDBUF", c.quiet);
		set_buf(fd, SO_RCVBUFFORCE, SO_RCVBUF, c.rcvbuf, "SO_RCVBUF", c.quiet);
		if (c.local && bind(fd, c.local, c.local_len) < 0)
			goto sys;
		if (c.connect && connect(fd, c.remote, c.remote_len) < 0)
			goto sys;
	}
	setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &one, sizeof(one));
	off = probe(fd, &c);
	if (c.min_len_kernel) {
		if (udp_sink_open(&sink, fd, c.min_len) < 0)
			goto sys;
		off |= SOFL_PORT_OFF_F_RUNT_KERNEL | (sink.map >= 0 ? SOFL_PORT_OFF_F_RUNT_EBPF : 0);
	}
	if ((err = port_udp_make(&c, fd, off, out)) < 0) {
		udp_sink_close(&sink);
		if (c.fd < 0)
			close(fd);
		return err;
	}
	((struct udp_port *)*out)->sink = sink;
	if (sink.fd >= 0 && sink.map < 0 && !c.quiet)
		sofl_log(SOFL_LOG_INFO, "udp: runts dropped in the kernel by their length "
			 "only (no eBPF: CAP_BPF); coalesced ones reach the port");
	return 0;
sys:
	e = errno;
	close(fd);
	errno = e;
	return SOFL_E_SYS;
}

SOFL_API int
sofl_udp_local(const struct sofl_port *port, struct sockaddr *sa, socklen_t *len)
{
	if (!port || !sa || !len)
		return SOFL_E_INVAL;
	if (port->ops != &udp_ops)
		return SOFL_E_PORT_KIND;
	return getsockname(port->fd, sa, len) < 0 ? SOFL_E_SYS : 0;
}

static void
udp_close(struct sofl_port *port)
{
	struct udp_port *u = (struct udp_port *)port;

	udp_sink_close(&u->sink);
	if (port->fd >= 0)
		close(port->fd);
	udp_free(u);
}

/* The runt sink's datagrams (udp_sink.c): RUNT drops, read from the kernel */
static void
udp_stats(const struct sofl_port *port, struct sofl_port_stats *s)
{
	const struct udp_port *u = (const struct udp_port *)port;

	if (u->sink.fd >= 0)
		s->rx_drop[SOFL_PORT_DROP_RUNT] +=
			udp_sink_count(&u->sink) - __atomic_load_n(&u->sink_base, __ATOMIC_RELAXED);
}

static void
udp_reset(struct sofl_port *port)
{
	struct udp_port *u = (struct udp_port *)port;

	if (u->sink.fd >= 0)
		__atomic_store_n(&u->sink_base, udp_sink_count(&u->sink), __ATOMIC_RELAXED);
}

/* ---- receive ---- */

static int
same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return 0;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr, 16);
	return 0;
}

/* Splits one received message (@len bytes at @buf, from @sa) into
 * datagrams of @gso bytes (0: one datagram).  Datagrams shorter than
 * min_len are RUNT drops: a message of them (every segment but the last is
 * @gso bytes, the last no longer) at once, unsplit; else only the last can
 * be one.  The segments of a coalesced message (more than one datagram) are
 * marked SOFL_PORT_PKT_F_UDP_CSUM (port.h: what the kernel verified). */
static void
split(struct udp_port *u, uint8_t *buf, uint32_t len, int gso, const struct sockaddr *sa,
      socklen_t salen)
{
	uint32_t off = 0, k = 0, d, fl = 0;

	if (gso <= 0 || (uint32_t)gso >= len)
		gso = (int)len;
	else
		fl = SOFL_PORT_PKT_F_UDP_CSUM;
	if (len == 0)
		gso = 0;
	if ((uint32_t)gso < u->min_len) {
		port_drop(&u->base, 0, SOFL_PORT_DROP_RUNT, gso ? (len + gso - 1) / gso : 1);
		return;
	}
	do {
		d = len - off < (uint32_t)gso ? len - off : (uint32_t)gso;
		if (d < u->min_len) {	/* the last segment of a message */
			port_drop(&u->base, 0, SOFL_PORT_DROP_RUNT, 1);
			break;
		}
		if (port_rxq_add_plain(&u->q, buf + off, d, fl) < 0) {
			port_drop(&u->base, 0, SOFL_PORT_DROP_NOROOM,
				  gso ? (len - off + gso - 1) / gso : 1);
			break;
		}
		u->q.pkt[u->q.n - 1].addr = sa;
		u->q.pkt[u->q.n - 1].addrlen = salen;
		port_add(&u->base.st.rx_bytes, d);
		off += d;
		k++;
	} while (off < len);
	port_add(&u->base.st.rx_pkts, k);
	if (k > 1) {
		port_add(&u->base.st.rx_super, 1);
		port_add(&u->base.st.rx_segs, k);
	}
}

/* Reads the control messages of @m: the UDP_GRO segment size, and the
 * kernel's receive-buffer drop count.  @return gso_size or 0. */
static int
cmsgs(struct udp_port *u, struct msghdr *m)
{
	struct cmsghdr *c;
	int gso = 0;

	for (c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO &&
		    c->cmsg_len >= CMSG_LEN(sizeof(int))) {
			memcpy(&gso, CMSG_DATA(c), sizeof(int));
		} else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL &&
			   c->cmsg_len >= CMSG_LEN(sizeof(uint32_t))) {
			uint32_t v;

			memcpy(&v, CMSG_DATA(c), sizeof(v));
			if (v != u->ovfl)
				port_drop(&u->base, 0, SOFL_PORT_DROP_RCVBUF, v - u->ovfl);
			u->ovfl = v;
		}
	}
	return gso;
}

/* One received message: checks, then splits. */
static void
take(struct udp_port *u, uint32_t i, uint32_t len)
{
	struct msghdr *m = &u->rmsg[i].msg_hdr;
	int gso = cmsgs(u, m);

	if (m->msg_flags & MSG_TRUNC) {
		port_drop(&u->base, 0, SOFL_PORT_DROP_TRUNC, 1);
		return;
	}
	if (u->peer_only && !same_host(RX_ADDR(u, i), &u->remote)) {
		port_drop(&u->base, 0, SOFL_PORT_DROP_PEER, 1);
		return;
	}
	split(u, u->riov[i].iov_base, len, gso, (const struct sockaddr *)RX_ADDR(u, i),
	      m->msg_namelen);
}

int
port_udp_rx_buf(struct sofl_port *port, struct sofl_port_pkt **pkts, uint8_t *buf,
		size_t len, int gso_size)
{
	struct udp_port *u = (struct udp_port *)port;

	if (!port || !pkts || !buf || len > u->buf_size)
		return SOFL_E_INVAL;
	port_rxq_reset(&u->q);
	port_add(&port->st.rx_calls, 1);
	split(u, buf, (uint32_t)len, gso_size, (const struct sockaddr *)&u->remote,
	      u->remote_len);
	*pkts = u->q.pkt;
	return (int)u->q.n;
}

/* A receive error: the port goes on unless the descriptor is unusable. */
static int
rx_error(struct udp_port *u, int err)
{
	switch (err) {
	case EAGAIN:
	case EINTR:
		return 0;
	case EBADF:
	case EFAULT:
	case ENOTSOCK:
	case EINVAL:
		return SOFL_E_SYS;
	}
	/* an ICMP error reported for an earlier send: that datagram was lost */
	port_fault(&u->base, 1, err, 1);
	return 0;
}

static int
udp_recv(struct sofl_port *port, struct sofl_port_pkt **pkts)
{
	struct udp_port *u = (struct udp_port *)port;
	uint32_t i;
	int r;

	port_rxq_reset(&u->q);
	*pkts = u->q.pkt;
	for (i = 0; i < u->nb; i++) {
		struct msghdr *m = &u->rmsg[i].msg_hdr;

		m->msg_name = RX_ADDR(u, i);
		m->msg_namelen = sizeof(struct sockaddr_storage);
		u->riov[i] = (struct iovec){ u->buf[i], u->buf_size };
		m->msg_iov = &u->riov[i];
		m->msg_iovlen = 1;
		m->msg_control = u->rctl + (size_t)i * RX_CTL;
		m->msg_controllen = RX_CTL;
		m->msg_flags = 0;
	}
	if (u->plain) {
		ssize_t n = recvmsg(port->fd, &u->rmsg[0].msg_hdr, MSG_DONTWAIT);

		r = n < 0 ? -1 : 1;
		if (n >= 0)
			u->rmsg[0].msg_len = (unsigned)n;
	} else {
		r = recvmmsg(port->fd, u->rmsg, u->nb, MSG_DONTWAIT, NULL);
	}
	if (r < 0)
		return rx_error(u, errno);
	port_add(&port->st.rx_calls, 1);
	for (i = 0; i < (uint32_t)r; i++)
		take(u, i, u->rmsg[i].msg_len);
	port->rx_used = (uint32_t)r;	/* buf[0..r) hold this batch (kept batches) */
	return (int)u->q.n;
}

/* ---- send ---- */

static size_t
pkt_bytes(const struct sofl_port_pkt *pk)
{
	size_t s = 0;
	uint32_t i;

	for (i = 0; i < pk->iovcnt; i++)
		s += pk->iov[i].iov_len;
	return s;
}

static int
same_dst(const struct sofl_port_pkt *a, const struct sofl_port_pkt *b)
{
	if (a->addr == b->addr)
		return 1;
	return a->addr && b->addr && a->addrlen == b->addrlen &&
	       !memcmp(a->addr, b->addr, a->addrlen);
}

/* Sets message @m up for pkts[i..i+cnt) (iovecs already at siov[v0..]). */
static void
msg_init(struct udp_port *u, uint32_t m, const struct sofl_port_pkt *pk, uint32_t v0,
	 uint32_t nv, uint32_t cnt, size_t dlen)
{
	struct msghdr *h = &u->smsg[m].msg_hdr;

	memset(h, 0, sizeof(*h));
	if (!u->connected) {
		h->msg_name = (void *)(uintptr_t)(pk->addr ? pk->addr :
						  (const struct sockaddr *)&u->remote);
		h->msg_namelen = pk->addr ? pk->addrlen : u->remote_len;
	}
	h->msg_iov = u->siov + v0;
	h->msg_iovlen = nv;
	if (cnt > 1) {
		struct cmsghdr *c = (struct cmsghdr *)u->sctl[m];
		uint16_t gs = (uint16_t)dlen;

		h->msg_control = u->sctl[m];
		h->msg_controllen = CMSG_SPACE(sizeof(uint16_t));
		c->cmsg_level = SOL_UDP;
		c->cmsg_type = UDP_SEGMENT;
		c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
		memcpy(CMSG_DATA(c), &gs, sizeof(gs));
	}
	u->scount[m] = cnt;
}

/* Sends @pk alone with sendmsg() (the batch's arrays untouched: this runs
 * in the middle of a sendmmsg batch too).  @return 1 sent, 0 dropped. */
static int
send_one(struct udp_port *u, const struct sofl_port_pkt *pk)
{
	struct msghdr h;
	ssize_t r;

	if (pk->iovcnt > IOV_MAX) {
		port_drop(&u->base, 1, SOFL_PORT_DROP_UNSUPPORTED, 1);
		return 0;
	}
	memset(&h, 0, sizeof(h));
	if (!u->connected) {
		h.msg_name = (void *)(uintptr_t)(pk->addr ? pk->addr :
						 (const struct sockaddr *)&u->remote);
		h.msg_namelen = pk->addr ? pk->addrlen : u->remote_len;
	}
	h.msg_iov = (struct iovec *)(uintptr_t)pk->iov;
	h.msg_iovlen = pk->iovcnt;
	port_add(&u->base.st.tx_calls, 1);
	do
		r = sendmsg(u->base.fd, &h, u->nonblock ? MSG_DONTWAIT : 0);
	while (r < 0 && errno == EINTR);
	if (r < 0) {
		port_fault(&u->base, 1, errno, 1);
		return 0;
	}
	port_add(&u->base.st.tx_pkts, 1);
	port_add(&u->base.st.tx_bytes, pk->len);
	return 1;
}

/* A UDP_SEGMENT message the kernel refused: EIO means the device cannot
 * checksum it (give the offload up), EINVAL/EMSGSIZE a run it does not
 * take (larger than the path MTU...): its datagrams go one by one. */
static int
gso_refused(struct udp_port *u, const struct sofl_port_pkt *pkts, uint32_t m, int err)
{
	size_t i;
	int sent = 0;

	if (err == EIO) {
		u->gso = 0;
		__atomic_store_n(&u->base.offloads, u->base.offloads & ~SOFL_PORT_OFF_F_UDP_GSO,
				 __ATOMIC_RELAXED);
		port_fallback(&u->base, FB_GSO_EIO, "UDP_SEGMENT refused (EIO): disabled");
	} else {
		port_fallback(&u->base, FB_GSO_EINVAL, "UDP_SEGMENT run refused: sent as "
			      "single datagrams");
	}
	for (i = u->sfirst[m]; i < u->sfirst[m] + u->scount[m]; i++)
		sent += send_one(u, &pkts[i]);
	return sent;
}

/* Counts message @m as sent. */
static void
sent_msg(struct udp_port *u, const struct sofl_port_pkt *pkts, uint32_t m)
{
	uint64_t bytes = 0;
	size_t i;

	for (i = u->sfirst[m]; i < u->sfirst[m] + u->scount[m]; i++)
		bytes += pkts[i].len;
	port_add(&u->base.st.tx_pkts, u->scount[m]);
	port_add(&u->base.st.tx_bytes, bytes);
	if (u->scount[m] > 1) {
		port_add(&u->base.st.tx_super, 1);
		port_add(&u->base.st.tx_segs, u->scount[m]);
	}
}

/* Sends the @nm messages built.  @return packets sent. */
static int
flush_msgs(struct udp_port *u, const struct sofl_port_pkt *pkts, uint32_t nm)
{
	uint32_t k = 0, j;
	int r, sent = 0, err;

	while (k < nm) {
		port_add(&u->base.st.tx_calls, 1);
		r = sendmmsg(u->base.fd, u->smsg + k, nm - k, u->nonblock ? MSG_DONTWAIT : 0);
		if (r < 0) {
			if ((err = errno) == EINTR)
				continue;
			if (u->scount[k] > 1 && (err == EIO || err == EINVAL || err == EMSGSIZE))
				sent += gso_refused(u, pkts, k, err);
			else
				port_fault(&u->base, 1, err, u->scount[k]);
			k++;
			continue;
		}
		for (j = k; j < k + (uint32_t)r; j++) {
			sent_msg(u, pkts, j);
			sent += (int)u->scount[j];
		}
		k += (uint32_t)r;
	}
	return sent;
}

/* How many of pkts[i+1..n) join the UDP_SEGMENT run that pkts[i] (@dlen
 * bytes, @nv iovecs so far) starts. */
static uint32_t
run_len(struct udp_port *u, const struct sofl_port_pkt *pkts, size_t i, size_t n, size_t dlen,
	uint32_t nv, uint32_t room_iov)
{
	size_t total = dlen, j;
	uint32_t cnt = 1;

	if (!u->gso || dlen == 0)
		return 1;
	for (j = i + 1; j < n && cnt < GSO_MAX_SEGS; j++) {
		size_t d = pkt_bytes(&pkts[j]);

		if (d > dlen || d == 0 || !same_dst(&pkts[i], &pkts[j]) ||
		    total + d > u->max_dgram || nv + pkts[j].iovcnt > IOV_MAX ||
		    nv + pkts[j].iovcnt > room_iov)
			break;
		total += d;
		nv += pkts[j].iovcnt;
		cnt++;
		if (d < dlen)
			break;
	}
	return cnt;
}

static int
udp_send(struct sofl_port *port, const struct sofl_port_pkt *pkts, size_t n)
{
	struct udp_port *u = (struct udp_port *)port;
	uint32_t nm = 0, nv = 0, cnt, v0, k;
	size_t i = 0, dlen;
	int sent = 0;

	if (u->plain) {
		for (i = 0; i < n; i++)
			sent += send_one(u, &pkts[i]);
		return sent;
	}
	while (i < n) {
		const struct sofl_port_pkt *pk = &pkts[i];

		if (pk->iovcnt > IOV_MAX || (!u->connected && !pk->addr && !u->remote_len)) {
			port_drop(port, 1, SOFL_PORT_DROP_UNSUPPORTED, 1);
			i++;
			continue;
		}
		if (nm == TX_MSGS || nv + pk->iovcnt > TX_IOVS) {
			sent += flush_msgs(u, pkts, nm);
			nm = nv = 0;
		}
		dlen = pkt_bytes(pk);
		cnt = run_len(u, pkts, i, n, dlen, pk->iovcnt, TX_IOVS - nv);
		v0 = nv;
		for (k = 0; k < cnt; k++) {
			memcpy(u->siov + nv, pkts[i + k].iov, pkts[i + k].iovcnt * sizeof(struct iovec));
			nv += pkts[i + k].iovcnt;
		}
		u->sfirst[nm] = i;
		msg_init(u, nm, pk, v0, nv - v0, cnt, dlen);
		nm++;
		i += cnt;
	}
	if (nm)
		sent += flush_msgs(u, pkts, nm);
	return sent;
}
