/*
 * Ports (port.h): the calls shared by every port type, the counters, and
 * the receive batch that turns a frame with its virtio header into
 * wire-size packets (GSO, zero copy) with head and tail areas.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "softoffload/port.h"
#include "softoffload/gso.h"
#include "softoffload/pkt.h"
#include "softoffload/rss.h"
#include "softoffload/vnet.h"
#include "base/log.h"
#include "gso/gso_room.h"
#include "port_impl.h"

static const char *const drop_names[SOFL_PORT_DROP__MAX] = {
	[SOFL_PORT_DROP_VNET] = "vnet",
	[SOFL_PORT_DROP_MALFORMED] = "malformed",
	[SOFL_PORT_DROP_TOO_BIG] = "too-big",
	[SOFL_PORT_DROP_TRUNC] = "truncated",
	[SOFL_PORT_DROP_NOROOM] = "no-room",
	[SOFL_PORT_DROP_NOBUFS] = "nobufs",
	[SOFL_PORT_DROP_AGAIN] = "again",
	[SOFL_PORT_DROP_REFUSED] = "refused",
	[SOFL_PORT_DROP_UNREACH] = "unreachable",
	[SOFL_PORT_DROP_PEER] = "peer",
	[SOFL_PORT_DROP_RCVBUF] = "rcvbuf-full",
	[SOFL_PORT_DROP_IO] = "io",
	[SOFL_PORT_DROP_DOWN] = "down",
	[SOFL_PORT_DROP_UNSUPPORTED] = "unsupported",
	[SOFL_PORT_DROP_RUNT] = "runt",
};

SOFL_API const char *
sofl_port_drop_name(enum sofl_port_drop reason)
{
	if ((int)reason < 0 || reason >= SOFL_PORT_DROP__MAX || !drop_names[reason])
		return "?";
	return drop_names[reason];
}

SOFL_API const char *
sofl_port_kind(const struct sofl_port *port)
{
	return port ? port->ops->kind : "?";
}

SOFL_API int
sofl_port_recv(struct sofl_port *port, struct sofl_port_pkt **pkts)
{
	if (!port || !pkts)
		return SOFL_E_INVAL;
	return port->ops->recv(port, pkts);
}

SOFL_API int
sofl_port_send(struct sofl_port *port, const struct sofl_port_pkt *pkts, size_t n)
{
	if (!port || (!pkts && n > 0))
		return SOFL_E_INVAL;
	if (n == 0)
		return 0;
	return port->ops->send(port, pkts, n);
}

SOFL_API int
sofl_port_fd(const struct sofl_port *port)
{
	return port ? port->fd : -1;
}

SOFL_API unsigned
sofl_port_offloads(const struct sofl_port *port)
{
	return port ? __atomic_load_n(&port->offloads, __ATOMIC_RELAXED) : 0;
}

/* Reads @n 64-bit counters one by one, each whole. */
static void
load_counters(uint64_t *dst, const uint64_t *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

SOFL_API int
sofl_port_get_stats(const struct sofl_port *port, struct sofl_port_stats *s, size_t size)
{
	struct sofl_port_stats t;

	if (!s)
		return SOFL_E_INVAL;
	memset(&t, 0, sizeof(t));
	if (port) {
		load_counters((uint64_t *)&t, (const uint64_t *)&port->st,
			      offsetof(struct sofl_port_stats, last_errno) / sizeof(uint64_t));
		t.last_errno = __atomic_load_n(&port->st.last_errno, __ATOMIC_RELAXED);
		if (port->ops->stats)
			port->ops->stats(port, &t);
	}
	memcpy(s, &t, size < sizeof(t) ? size : sizeof(t));
	if (size > sizeof(t))
		memset((uint8_t *)s + sizeof(t), 0, size - sizeof(t));
	return port ? 0 : SOFL_E_INVAL;
}

SOFL_API int
sofl_port_get_gro_stats(const struct sofl_port *port, struct sofl_gro_stats *s, size_t size)
{
	struct sofl_gro_stats t;

	if (!port || !s)
		return SOFL_E_INVAL;
	memset(&t, 0, sizeof(t));
	if (port->gro)
		load_counters((uint64_t *)&t, (const uint64_t *)&port->gro_st,
			      sizeof(t) / sizeof(uint64_t));
	memcpy(s, &t, size < sizeof(t) ? size : sizeof(t));
	if (size > sizeof(t))
		memset((uint8_t *)s + sizeof(t), 0, size - sizeof(t));
	return port->gro ? 0 : SOFL_E_NOTSUP;
}

/* Sets @n 64-bit counters to 0 one by one, each store whole. */
static void
zero_counters(uint64_t *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		__atomic_store_n(&c[i], 0, __ATOMIC_RELAXED);
}

SOFL_API int
sofl_port_reset_stats(struct sofl_port *port)
{
	if (!port)
		return SOFL_E_INVAL;
	zero_counters((uint64_t *)&port->st,
		      offsetof(struct sofl_port_stats, last_errno) / sizeof(uint64_t));
	__atomic_store_n(&port->st.last_errno, 0, __ATOMIC_RELAXED);
	if (port->ops->reset)
		port->ops->reset(port);
	if (port->gro) {
		sofl_gro_reset_stats(port->gro);
		zero_counters((uint64_t *)&port->gro_st, sizeof(port->gro_st) / sizeof(uint64_t));
	}
	return 0;
}

SOFL_API void
sofl_port_close(struct sofl_port *port)
{
	if (!port)
		return;
	port_keep_free(port);
	port->ops->close(port);
	free(port);
}

void
port_gro_mirror(struct sofl_port *port)
{
	struct sofl_gro_stats s;
	uint64_t *d = (uint64_t *)&port->gro_st;
	const uint64_t *v = (const uint64_t *)&s;
	size_t i;

	if (!port->gro)
		return;
	sofl_gro_get_stats(port->gro, &s, sizeof(s));
	for (i = 0; i < sizeof(s) / sizeof(uint64_t); i++)
		__atomic_store_n(&d[i], v[i], __ATOMIC_RELAXED);
}

void
port_drop(struct sofl_port *port, int tx, int reason, uint64_t n)
{
	uint64_t *c = tx ? port->st.tx_drop : port->st.rx_drop;

	if (reason < 0 || reason >= SOFL_PORT_DROP__MAX)
		reason = SOFL_PORT_DROP_IO;
	port_add(&c[reason], n);
}

int
port_errno_reason(int err)
{
	switch (err) {
	case ENOBUFS:
	case ENOMEM:
		return SOFL_PORT_DROP_NOBUFS;
	case EAGAIN:
		return SOFL_PORT_DROP_AGAIN;
	case ECONNREFUSED:
		return SOFL_PORT_DROP_REFUSED;
	case EHOSTUNREACH:
	case ENETUNREACH:
	case EHOSTDOWN:
	case ENETDOWN:
	case EADDRNOTAVAIL:
		return SOFL_PORT_DROP_UNREACH;
	case EMSGSIZE:
		return SOFL_PORT_DROP_TOO_BIG;
	case EIO:
		return SOFL_PORT_DROP_DOWN;
	case EINVAL:
		return SOFL_PORT_DROP_VNET;
	}
	return SOFL_PORT_DROP_IO;
}

void
port_fault(struct sofl_port *port, int tx, int err, uint64_t n)
{
	port_drop(port, tx, port_errno_reason(err), n);
	__atomic_store_n(&port->st.last_errno, err, __ATOMIC_RELAXED);
}

void
port_fallback(struct sofl_port *port, unsigned what, const char *msg)
{
	port_add(&port->st.fallbacks, 1);
	if (what < 32 && !(port->logged & (1u << what))) {
		port->logged |= 1u << what;
		if (!port->quiet)
			sofl_log(SOFL_LOG_WARN, "%s: %s", port->ops->kind, msg);
	}
}

/* ---- the receive batch ---- */

int
port_rxq_init(struct port_rxq *q, uint32_t cap, uint32_t iov_per_pkt, size_t hdr_bytes,
	      uint16_t headroom, uint16_t tailroom)
{
	size_t room = (size_t)headroom + tailroom;

	memset(q, 0, sizeof(*q));
	q->cap = cap;
	q->iov_cap = cap * (iov_per_pkt + 2);
	q->hdr_cap = hdr_bytes;
	q->headroom = headroom;
	q->tailroom = tailroom;
	q->iov_per_pkt = iov_per_pkt;
	q->pkt = calloc(cap, sizeof(*q->pkt));
	q->iov = calloc(q->iov_cap, sizeof(*q->iov));
	q->seg = calloc(cap, sizeof(*q->seg));
	q->tiov = calloc(2 * (size_t)cap, sizeof(*q->tiov));
	q->hdr = hdr_bytes ? malloc(hdr_bytes) : NULL;
	q->room = room ? calloc(cap, room) : NULL;
	if (!q->pkt || !q->iov || !q->seg || !q->tiov || (hdr_bytes && !q->hdr) ||
	    (room && !q->room)) {
		port_rxq_free(q);
		return SOFL_E_NOMEM;
	}
	return 0;
}

void
port_rxq_free(struct port_rxq *q)
{
	free(q->pkt);
	free(q->iov);
	free(q->seg);
	free(q->tiov);
	free(q->hdr);
	free(q->room);
	free(q->arena);
	memset(q, 0, sizeof(*q));
}

int
port_rxq_set_contig(struct port_rxq *q)
{
	size_t room = (size_t)q->headroom + q->tailroom;

	q->arena_cap = (size_t)q->cap * (room + 1600) + 2 * (65536 + 256 + room);
	q->arena_used = 0;
	free(q->arena);
	q->arena = aligned_alloc(64, (q->arena_cap + 63) & ~(size_t)63);
	return q->arena ? 0 : SOFL_E_NOMEM;
}

int
port_rxq_clone(struct port_rxq *q, const struct port_rxq *src)
{
	int err = port_rxq_init(q, src->cap, src->iov_per_pkt, src->hdr_cap, src->headroom,
				src->tailroom);

	if (err < 0)
		return err;
	q->rss = src->rss;
	q->vnet_opts = src->vnet_opts;
	if (src->arena && (err = port_rxq_set_contig(q)) < 0)
		port_rxq_free(q);
	return err;
}

/* Appends packet q->pkt[q->n] made of the @cnt iovecs @v (its bytes), with
 * the head/tail areas around them.  The caller checked the room. */
static void
rxq_push(struct port_rxq *q, const struct iovec *v, uint32_t cnt, uint32_t len, uint32_t flags)
{
	struct sofl_port_pkt *pk = &q->pkt[q->n];
	struct iovec *o = q->iov + q->niov;
	uint8_t *room = q->room ? q->room + (size_t)q->n * (q->headroom + q->tailroom) : NULL;
	uint8_t *tail = room ? room + q->headroom : NULL;
	uint32_t k = 0;

	memset(pk, 0, sizeof(*pk));
	if (q->arena) {
		/* contiguous: the areas are the bytes around the one piece */
		room = (uint8_t *)v[0].iov_base - q->headroom;
		tail = (uint8_t *)v[0].iov_base + v[0].iov_len;
	}
	if (q->headroom)
		o[k++] = (struct iovec){ room, q->headroom };
	memcpy(o + k, v, cnt * sizeof(*v));
	k += cnt;
	if (q->tailroom)
		o[k++] = (struct iovec){ tail, q->tailroom };
	pk->iov = o;
	pk->iovcnt = k;
	pk->len = len;
	pk->headroom = q->headroom;
	pk->tailroom = q->tailroom;
	pk->flags = flags;
	q->niov += k;
	q->n++;
}

static uint32_t
rxq_room_iov(const struct port_rxq *q)
{
	return (q->headroom ? 1 : 0) + (q->tailroom ? 1 : 0);
}

int
port_rxq_add_plain(struct port_rxq *q, uint8_t *data, uint32_t len, uint32_t flags)
{
	struct iovec v = { data, len };

	if (q->n >= q->cap || q->niov + 1 + rxq_room_iov(q) > q->iov_cap)
		return PORT_RXQ_FULL;
	if (q->arena) {
		size_t need = ((size_t)q->headroom + len + q->tailroom + 7) & ~(size_t)7;

		if (need > q->arena_cap - q->arena_used)
			return PORT_RXQ_FULL;
		v.iov_base = q->arena + q->arena_used + q->headroom;
		memcpy(v.iov_base, data, len);
		q->arena_used += need;
	}
	rxq_push(q, &v, 1, len, flags);
	return 1;
}

/* Gives pkt[from..n) the Toeplitz hash of @p's flow (none when not IP). */
static void
rxq_hash(struct port_rxq *q, const struct sofl_pkt *p, uint32_t from)
{
	struct sofl_rss_out o;
	uint32_t i;

	if (sofl_rss_pkt(q->rss, p, &o) <= 0)
		return;
	for (i = from; i < q->n; i++) {
		q->pkt[i].hash = o.hash;
		q->pkt[i].flags |= SOFL_PORT_PKT_F_HASH;
	}
}

/* Cuts (or checksums) a parsed frame into the batch as @gp says. */
static int
rxq_segment(struct sofl_port *port, struct port_rxq *q, const struct sofl_gso_params *gp,
	    const struct sofl_pkt *p)
{
	struct sofl_gso_out out;
	uint32_t extra = rxq_room_iov(q), i;
	size_t used, adv = 0;
	int n;

	memset(&out, 0, sizeof(out));
	out.seg = q->seg;
	out.seg_cap = q->cap - q->n;
	if (q->arena) {
		/* contiguous: each segment copied (and checksummed in the same
		 * pass) into the arena, between its head and tail areas */
		out.mode = SOFL_GSO_COPY;
		out.buf = q->arena + q->arena_used;
		out.buf_cap = q->arena_cap - q->arena_used;
		n = gso_segment_room(gp, p, &out, q->headroom, q->tailroom);
		if (n > 0) {
			for (i = 0; i < (uint32_t)n; i++) {
				q->tiov[i] = (struct iovec){ q->seg[i].data, q->seg[i].len };
				q->seg[i].iov = &q->tiov[i];
				q->seg[i].iovcnt = 1;
			}
			adv = (size_t)(q->seg[n - 1].data + q->seg[n - 1].len + q->tailroom -
				       out.buf);
			adv = (adv + 7) & ~(size_t)7;
		}
		goto cut;
	}
	out.mode = SOFL_GSO_ZEROCOPY;
	out.buf = q->hdr + q->hdr_used;
	out.buf_cap = q->hdr_cap - q->hdr_used;
	out.iov = q->tiov;
	out.iov_cap = 2 * (size_t)(q->cap - q->n);
	n = sofl_gso_segment(gp, p, NULL, 0, &out);
cut:
	if (n == SOFL_E_NOSPC)
		return q->n > 0 ? PORT_RXQ_FULL : (port_drop(port, 0, SOFL_PORT_DROP_NOROOM, 1), 0);
	if (n < 0) {
		port_drop(port, 0, n == SOFL_E_GSO_SIZE && gp->mtu ? SOFL_PORT_DROP_TOO_BIG :
			  SOFL_PORT_DROP_MALFORMED, 1);
		return 0;
	}
	for (i = 0, used = 0; i < (uint32_t)n; i++)
		used += q->seg[i].iovcnt + extra;
	if (q->niov + used > q->iov_cap)
		return q->n > 0 ? PORT_RXQ_FULL : (port_drop(port, 0, SOFL_PORT_DROP_NOROOM, 1), 0);
	q->arena_used += adv;
	if (q->arena_used > q->arena_cap)
		q->arena_used = q->arena_cap;
	if (!q->arena) {
		used = (size_t)(q->seg[n - 1].data - out.buf) + q->seg[n - 1].hdr_len;
		q->hdr_used += (used + 7) & ~(size_t)7;
		if (q->hdr_used > q->hdr_cap)
			q->hdr_used = q->hdr_cap;
	}
	for (i = 0; i < (uint32_t)n; i++)
		rxq_push(q, q->seg[i].iov, q->seg[i].iovcnt, q->seg[i].len, SOFL_PORT_PKT_F_CSUM_OK);
	if (gp->type != SOFL_GSO_NONE) {
		port_add(&port->st.rx_super, 1);
		port_add(&port->st.rx_segs, (uint64_t)n);
	}
	if (p->layers & SOFL_LAYER_L4)
		port_add(&port->st.csum_sw, (uint64_t)n);
	return n;
}

int
port_rxq_add(struct sofl_port *port, struct port_rxq *q, uint8_t *frame, uint32_t len,
	     const struct sofl_vnet_hdr *h, enum sofl_link link, int mode, uint32_t mtu)
{
	struct sofl_gso_params gp;
	struct sofl_pkt p;
	uint32_t fl, first;
	int r;

	if (q->n >= q->cap)
		return PORT_RXQ_FULL;
	if (!h || (mode != SOFL_PORT_RX_SUPER && h->gso_type == SOFL_GSO_NONE &&
		   !(h->flags & SOFL_VNET_HDR_F_NEEDS_CSUM))) {
		/* nothing to finish: the packet as it is */
		if (mtu && len > mtu + (link == SOFL_LINK_ETH ? 18u : 0u)) {
			port_drop(port, 0, SOFL_PORT_DROP_TOO_BIG, 1);
			return 0;
		}
		fl = h && (h->flags & SOFL_VNET_HDR_F_DATA_VALID) ? SOFL_PORT_PKT_F_CSUM_OK : 0;
		if (q->rss)
			sofl_pkt_parse(&p, frame, len, link);
		r = port_rxq_add_plain(q, frame, len, fl);
		if (r > 0 && q->rss)
			rxq_hash(q, &p, q->n - 1);
		return r;
	}
	sofl_pkt_parse(&p, frame, len, link);
	r = sofl_vnet_to_gso(h, &p, q->vnet_opts, &gp);
	if (r < 0) {
		port_drop(port, 0, SOFL_PORT_DROP_VNET, 1);
		return 0;
	}
	if (mode == SOFL_PORT_RX_SUPER) {
		r = port_rxq_add_plain(q, frame, len, SOFL_PORT_PKT_F_VNET |
				       (h->flags & SOFL_VNET_HDR_F_DATA_VALID ? SOFL_PORT_PKT_F_CSUM_OK : 0));
		if (r > 0) {
			q->pkt[q->n - 1].vnet = *h;
			if (q->rss)
				rxq_hash(q, &p, q->n - 1);
			if (h->gso_type != SOFL_GSO_NONE)
				port_add(&port->st.rx_super, 1);
		}
		return r;
	}
	gp.mtu = mtu > 0xffff ? 0 : (uint16_t)mtu;
	first = q->n;
	r = rxq_segment(port, q, &gp, &p);
	if (r > 0 && q->rss)
		rxq_hash(q, &p, first);
	return r;
}

/* ---- kept batches (sofl_port_keep) ---- */

struct sofl_port_batch {
	struct sofl_port *port;
	struct port_rxq q;		/* packets, iovecs, header scratch, areas, arena */
	uint8_t **buf;			/* read buffers (port->nrxbuf of them) */
	uint32_t held;			/* 1 while the caller holds it (atomic) */
};

struct port_keep {
	uint32_t n;
	struct sofl_port_batch *b;
	struct sofl_port_keep_stats st;	/* kept/refused: owner; given_back/held: any thread */
};

static void
keep_free(struct port_keep *k, uint32_t nbuf)
{
	uint32_t i, j;

	if (!k)
		return;
	for (i = 0; i < k->n; i++) {
		port_rxq_free(&k->b[i].q);
		if (k->b[i].buf)
			for (j = 0; j < nbuf; j++)
				free(k->b[i].buf[j]);
		free(k->b[i].buf);
	}
	free(k->b);
	free(k);
}

void
port_keep_free(struct sofl_port *port)
{
	keep_free(port->keep, port->nrxbuf);
	port->keep = NULL;
}

SOFL_API int
sofl_port_set_keep(struct sofl_port *port, uint32_t max_kept)
{
	struct port_keep *k;
	uint32_t i, j;

	if (!port)
		return SOFL_E_INVAL;
	if (!port->rxq)
		return SOFL_E_NOTSUP;
	if (max_kept > SOFL_PORT_KEEP_MAX)
		return SOFL_E_CFG_BATCH;
	if (port->keep && __atomic_load_n(&port->keep->st.held, __ATOMIC_ACQUIRE) > 0)
		return SOFL_E_PORT_KEEP_BUSY;
	port_keep_free(port);
	if (max_kept == 0)
		return 0;
	if (!(k = calloc(1, sizeof(*k))) || !(k->b = calloc(max_kept, sizeof(*k->b)))) {
		free(k);
		return SOFL_E_NOMEM;
	}
	k->st.max_kept = max_kept;
	for (i = 0; i < max_kept; i++) {
		struct sofl_port_batch *b = &k->b[i];

		k->n = i + 1;
		b->port = port;
		if (port_rxq_clone(&b->q, port->rxq) < 0)
			goto nomem;
		if (port->nrxbuf && !(b->buf = calloc(port->nrxbuf, sizeof(*b->buf))))
			goto nomem;
		for (j = 0; j < port->nrxbuf; j++)
			if (!(b->buf[j] = aligned_alloc(64, (port->rxbuf_size + 63) & ~(size_t)63)))
				goto nomem;
	}
	port->keep = k;
	return 0;
nomem:
	keep_free(k, port->nrxbuf);
	return SOFL_E_NOMEM;
}

SOFL_API int
sofl_port_keep(struct sofl_port *port, struct sofl_port_batch **batch)
{
	struct port_keep *k;
	struct sofl_port_batch *b = NULL;
	struct port_rxq t;
	uint64_t held;
	uint32_t i;

	if (batch)
		*batch = NULL;
	if (!port || !batch)
		return SOFL_E_INVAL;
	if (!(k = port->keep))
		return SOFL_E_PORT_KEEP_OFF;
	for (i = 0; i < k->n; i++)
		if (!__atomic_load_n(&k->b[i].held, __ATOMIC_ACQUIRE)) {
			b = &k->b[i];
			break;
		}
	if (!b) {
		port_add(&k->st.refused, 1);
		return SOFL_E_PORT_HELD;
	}
	/* the batch's storage goes with it; the port goes on with the free one's */
	t = *port->rxq;
	*port->rxq = b->q;
	b->q = t;
	for (i = 0; i < port->rx_used && i < port->nrxbuf; i++) {
		uint8_t *x = port->rxbuf[i];

		port->rxbuf[i] = b->buf[i];
		b->buf[i] = x;
	}
	port->rx_used = 0;
	port_rxq_reset(port->rxq);
	__atomic_store_n(&b->held, 1, __ATOMIC_RELAXED);
	port_add(&k->st.kept, 1);
	held = __atomic_add_fetch(&k->st.held, 1, __ATOMIC_RELAXED);
	if (held > k->st.held_max)
		__atomic_store_n(&k->st.held_max, held, __ATOMIC_RELAXED);
	*batch = b;
	return 0;
}

SOFL_API int
sofl_port_batch_pkts(const struct sofl_port_batch *batch, struct sofl_port_pkt **pkts)
{
	if (pkts)
		*pkts = NULL;
	if (!batch || !pkts)
		return SOFL_E_INVAL;
	*pkts = batch->q.pkt;
	return (int)batch->q.n;
}

SOFL_API void
sofl_port_give_back(struct sofl_port_batch *batch)
{
	struct port_keep *k;

	if (!batch || !__atomic_load_n(&batch->held, __ATOMIC_RELAXED))
		return;
	k = batch->port->keep;
	__atomic_fetch_add(&k->st.given_back, 1, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&k->st.held, 1, __ATOMIC_RELAXED);
	/* release: the caller's writes to the batch happen before the port
	 * reuses it (the owner's acquire load in sofl_port_keep) */
	__atomic_store_n(&batch->held, 0, __ATOMIC_RELEASE);
}

SOFL_API int
sofl_port_get_keep_stats(const struct sofl_port *port, struct sofl_port_keep_stats *s,
			 size_t size)
{
	struct sofl_port_keep_stats t;

	if (!s)
		return SOFL_E_INVAL;
	memset(&t, 0, sizeof(t));
	if (port && port->keep)
		load_counters((uint64_t *)&t, (const uint64_t *)&port->keep->st,
			      sizeof(t) / sizeof(uint64_t));
	memcpy(s, &t, size < sizeof(t) ? size : sizeof(t));
	if (size > sizeof(t))
		memset((uint8_t *)s + sizeof(t), 0, size - sizeof(t));
	return port ? 0 : SOFL_E_INVAL;
}

int
port_gso_prepare(const struct sofl_port_pkt *pk, uint8_t *hdrbuf, struct sofl_pkt *p,
		 struct sofl_gso_params *gp, const struct iovec **src, int *cnt)
{
	const struct iovec *one = port_pkt_flat(pk);
	struct sofl_pkt q;
	int r;

	*src = pk->iov;
	*cnt = (int)pk->iovcnt;
	if (one) {	/* one piece (a TAP read, a ring slot): parsed where it lies */
		r = sofl_pkt_parse(p, one->iov_base, one->iov_len, SOFL_LINK_ETH);
		*src = NULL;
		*cnt = 0;
	} else {
		r = pk->iovcnt > IOV_MAX ? SOFL_E_INVAL :
		    sofl_pkt_parse_iov(p, hdrbuf, pk->iov, *cnt, SOFL_LINK_ETH);
	}
	if (r < 0)
		return SOFL_PORT_DROP_MALFORMED;
	/* the virtio rules measure the whole frame; p->len of a gathered
	 * parse is only its first bytes */
	q = *p;
	q.len = (uint32_t)port_pkt_bytes(pk);
	if (sofl_vnet_to_gso(&pk->vnet, &q, SOFL_VNET_F_TUNNEL | SOFL_VNET_F_TUNNEL_CSUM, gp) < 0)
		return SOFL_PORT_DROP_VNET;
	return 0;
}
