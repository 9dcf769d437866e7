/*
 * vpn: a point-to-point encrypted tunnel on softoffload's ports.
 *
 *   vpn --side a|b --tun NAME --local IP:PORT --remote IP:PORT --key FILE
 *       [--cipher aes-256-gcm|chacha20-poly1305] [--crypto openssl|ipsec-mb]
 *       [--workers N] [--underlay-mtu 1500] [--max-packets N]
 *   (IPv6 endpoints as [ADDR]:PORT; both sides use the same key file,
 *   at least 32 bytes, and opposite sides.)
 *
 * Data path, each direction on kept batches (port.h "Kept batches"):
 *   TUN --recv (CONTIG: each packet one piece between a 16-byte head area
 *   and a 16-byte tail area)--> keep --> a worker seals every packet in
 *   place --> the I/O thread sends the batch to the peer in order, gives it
 *   back.  UDP --recv--> keep --> a worker opens every datagram in place -->
 *   the I/O thread checks the replay window, writes what passed to the TUN
 *   (GRO coalesces it), gives the batch back.
 * With --workers 0 (the default: measured faster on 2 vCPUs, README.md)
 * there are no workers: the I/O thread does each kept batch's crypto.
 *
 * Datagram: [type 1][flags][0][0][session, 4 bytes][counter, 8 bytes]
 *           [inner packet, encrypted][16-byte tag]        (big-endian)
 * The 16 header bytes are the AEAD's associated data; the nonce is the
 * session and the counter.  A sender's session is the second it started in
 * (it waits that second out before sending, so two runs never share one);
 * its key is HKDF-SHA256(key file, salt, "a->b" or "b->a", the cipher, the
 * session): a restart never reuses a key with a nonce, and a receiver
 * follows the newest session that authenticates, never an older one.  See
 * README.md for what this protects against and what it does not.
 * The AEAD (OpenSSL's EVP, or Intel's ipsec-mb where built with it) is
 * vpn_aead.h.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <softoffload/port.h>
#include "vpn_aead.h"

#define HDR	16		/* type, flags, 2 zero bytes, session, counter */
#define TAG	AEAD_TAG
#define KEEP	8		/* batches in flight per direction */
#define MAX_PKTS 2048		/* packets per batch: the UDP port's max_pkts (TUN: 256) */
#define F_CSUM	0x01		/* header flag: the sender knew the checksums good */
#define REJECT_AFTER (UINT64_MAX - (1u << 13))	/* as WireGuard: stop well before a wrap */
#define WIN_WORDS 32		/* replay window: 32 x 64 bits (2048 - 64 usable) */

enum { TX, RX };		/* TUN -> peer (seal), peer -> TUN (open) */

struct job {
	struct sofl_port_batch *b;
	struct sofl_port_pkt *pk;
	int n, dir;
	uint64_t first;		/* TX: the counter of pk[0] */
	uint64_t ctr[MAX_PKTS];	/* RX: each datagram's counter, or UINT64_MAX: rejected */
	uint32_t ses[MAX_PKTS];	/* RX: its session */
	atomic_int done;
};

static struct {
	const char *cipher_name;
	uint8_t psk[1024];
	size_t psk_len;
	const char *label[2];	/* HKDF info: [TX] this side's direction, [RX] the peer's */
	uint32_t session;	/* this sender's */
	uint32_t cur;		/* the peer's session the replay window belongs to */
	struct sofl_port *tun, *udp;
	int efd;		/* workers -> I/O thread: "a job is done" */
	uint64_t max_packets;
	/* the work queue: jobs in submission order, taken by any worker */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct job *queue[2 * KEEP];
	unsigned qhead, qlen, idle;	/* idle: workers waiting for a job */
	int stop;
	struct crypto *self;	/* the I/O thread's, for jobs no worker is free for */
	/* per direction, the jobs in flight, oldest first (I/O thread) */
	struct job *ring[2][KEEP];
	unsigned rhead[2], rlen[2];
	uint64_t tx_next;	/* next counter to send */
	uint64_t top, win[WIN_WORDS];	/* RFC 6479 window: highest counter, bitmap */
	atomic_ulong auth_fail, malformed;
	unsigned long replayed, sealed, opened, exhausted;
} g;

static volatile sig_atomic_t quit;

static void
on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

static void
die(const char *what, int err)
{
	fprintf(stderr, "vpn: %s: %s\n", what, err == SOFL_E_SYS ? strerror(errno) :
		sofl_strerror(err));
	exit(1);
}

/* ---- keys: HKDF-SHA256 from the pre-shared key, one per direction ---- */

/* The key of direction @dir (TX, RX) for @session. */
static void
derive(int dir, uint32_t session, uint8_t out[32])
{
	EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
	EVP_KDF_CTX *kc = kdf ? EVP_KDF_CTX_new(kdf) : NULL;
	OSSL_PARAM p[5];
	static char salt[] = "softoffload examples/vpn v1";
	char info[64];

	snprintf(info, sizeof(info), "%s %s %u", g.label[dir], g.cipher_name, session);
	p[0] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, "SHA256", 0);
	p[1] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, g.psk, g.psk_len);
	p[2] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, salt, sizeof(salt) - 1);
	p[3] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)info,
						 strlen(info));
	p[4] = OSSL_PARAM_construct_end();
	if (!kc || EVP_KDF_derive(kc, out, 32, p) != 1) {
		fprintf(stderr, "vpn: HKDF failed\n");
		exit(1);
	}
	EVP_KDF_CTX_free(kc);
	EVP_KDF_free(kdf);
}

static void
load_psk(const char *file, char side)
{
	FILE *f = fopen(file, "rb");

	if (!f || (g.psk_len = fread(g.psk, 1, sizeof(g.psk), f)) < 32) {
		fprintf(stderr, "vpn: %s: need a key file of at least 32 bytes\n", file);
		exit(1);
	}
	fclose(f);
	/* side a seals with "a->b" and opens with "b->a"; side b the reverse */
	g.label[TX] = side == 'a' ? "a->b" : "b->a";
	g.label[RX] = side == 'a' ? "b->a" : "a->b";
	/* this run's session: the current second, waited out (see the top) */
	g.session = (uint32_t)time(NULL);
	while ((uint32_t)time(NULL) == g.session)
		usleep(20000);
}

/* ---- the crypto of a batch ---- */

static void
put64(uint8_t *b, uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		b[i] = (uint8_t)v;
}

static uint64_t
getn(const uint8_t *b, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | b[i];
	return v;
}

/* A thread's AEADs: [TX] keyed once, [RX] for the peer's session @rx_ses. */
struct crypto {
	struct aead a[2];
	uint32_t rx_ses;	/* 0: none yet */
};

/* A worker's share of a TX job: header into the head area, packet sealed,
 * tag into the tail area (three adjacent pieces, port.h RX_CONTIG). */
static void
do_tx(struct aead *a, struct job *j)
{
	for (int i = 0; i < j->n; i++) {
		struct sofl_port_pkt *pk = &j->pk[i];
		uint8_t *h = pk->iov[0].iov_base, *p = pk->iov[1].iov_base;

		put64(h, g.session);	/* h[0..3] 0, h[4..7] the session */
		h[0] = 1;
		h[1] = pk->flags & SOFL_PORT_PKT_F_CSUM_OK ? F_CSUM : 0;
		put64(h + 8, j->first + (uint64_t)i);
		if (!aead_seal(a, h + 4, h, HDR, p, (int)pk->len, pk->iov[2].iov_base)) {
			fprintf(stderr, "vpn: seal failed\n");
			exit(1);
		}
		/* header, packet and tag lie back to back: send them as one piece */
		pk->iov[0].iov_len = HDR + pk->len + TAG;
		pk->iovcnt = 1;
	}
}

/* A worker's share of an RX job: every datagram opened in place (or its
 * counter marked rejected); the replay window is the I/O thread's. */
static void
do_rx(struct aead *a, uint32_t *ses, struct job *j)
{
	for (int i = 0; i < j->n; i++) {
		struct iovec *v = &j->pk[i].iov[0];
		uint8_t *d = v->iov_base, key[AEAD_KEY];

		j->ctr[i] = UINT64_MAX;
		if (j->pk[i].iovcnt != 1 || v->iov_len < HDR + TAG + 20 || d[0] != 1 || d[2] ||
		    d[3] || getn(d + 8, 8) >= g.max_packets) {
			atomic_fetch_add(&g.malformed, 1);
			continue;
		}
		j->ses[i] = (uint32_t)getn(d + 4, 4);
		if (j->ses[i] != *ses) {	/* another session: its key (an HKDF) */
			derive(RX, j->ses[i], key);
			if (!aead_key(a, key))
				exit(1);
			OPENSSL_cleanse(key, sizeof(key));
			*ses = j->ses[i];
		}
		/* header authenticated, the body opened in place, the tag after it */
		if (!aead_open(a, d + 4, d, HDR, d + HDR, (int)v->iov_len - HDR - TAG,
			       d + v->iov_len - TAG)) {
			atomic_fetch_add(&g.auth_fail, 1);
			continue;
		}
		j->ctr[i] = getn(d + 8, 8);
	}
}

static void
crypto_init(struct crypto *k)
{
	uint8_t key[AEAD_KEY];

	derive(TX, g.session, key);
	k->rx_ses = 0;
	if (!aead_init(&k->a[TX], 1) || !aead_init(&k->a[RX], 0) || !aead_key(&k->a[TX], key)) {
		fprintf(stderr, "vpn: AEAD init failed\n");
		exit(1);
	}
	OPENSSL_cleanse(key, sizeof(key));
}

static void
crypto_free(struct crypto *k)
{
	aead_free(&k->a[TX]);
	aead_free(&k->a[RX]);
}

static void
run_job(struct crypto *k, struct job *j)
{
	if (j->dir == TX)
		do_tx(&k->a[TX], j);
	else
		do_rx(&k->a[RX], &k->rx_ses, j);
	atomic_store_explicit(&j->done, 1, memory_order_release);
}

static void *
worker(void *arg)
{
	struct crypto k;
	uint64_t one = 1;

	(void)arg;
	crypto_init(&k);
	for (;;) {
		struct job *j;

		pthread_mutex_lock(&g.mu);
		while (g.qlen == 0 && !g.stop) {
			g.idle++;
			pthread_cond_wait(&g.cv, &g.mu);
			g.idle--;
		}
		if (g.qlen == 0) {
			pthread_mutex_unlock(&g.mu);
			break;
		}
		j = g.queue[g.qhead];
		g.qhead = (g.qhead + 1) % (2 * KEEP);
		g.qlen--;
		pthread_mutex_unlock(&g.mu);
		run_job(&k, j);
		if (write(g.efd, &one, sizeof(one)) < 0)
			perror("vpn: eventfd");
	}
	crypto_free(&k);
	return NULL;
}

/* ---- the I/O thread ---- */

/* RFC 6479: accepts @ctr once, within the window behind the highest seen. */
static int
replay_ok(uint64_t ctr)
{
	uint64_t idx = ctr / 64, top = g.top / 64, bit = 1ull << (ctr % 64), *w;

	if (g.top >= (WIN_WORDS - 1) * 64 && ctr <= g.top - (WIN_WORDS - 1) * 64)
		return 0;	/* too old to tell */
	if (ctr > g.top) {	/* ahead: clear the words the window slides over */
		for (uint64_t i = 1; i <= idx - top && i <= WIN_WORDS; i++)
			g.win[(top + i) % WIN_WORDS] = 0;
		g.top = ctr;
	}
	w = &g.win[idx % WIN_WORDS];
	if (*w & bit)
		return 0;
	*w |= bit;
	return 1;
}

/* Takes the batch just received on @dir's port and queues it for a worker. */
static void
submit(int dir, struct sofl_port_pkt *pk, int n)
{
	struct sofl_port *port = dir == TX ? g.tun : g.udp;
	struct job *j = g.ring[dir][(g.rhead[dir] + g.rlen[dir]) % KEEP];
	int err;

	if ((err = sofl_port_keep(port, &j->b)) < 0)
		die("sofl_port_keep", err);	/* cannot be: at most KEEP in flight */
	j->pk = pk;
	j->n = n;
	j->dir = dir;
	atomic_store(&j->done, 0);
	if (dir == TX) {
		if (g.tx_next + (uint64_t)n > g.max_packets) {	/* never past the limit */
			fprintf(stderr, "vpn: the counter reached its limit: stopping (a restart "
				"starts a new session, hence a new key)\n");
			g.exhausted += (unsigned long)n;
			sofl_port_give_back(j->b);
			quit = 1;
			return;
		}
		j->first = g.tx_next;
		g.tx_next += (uint64_t)n;
	}
	g.rlen[dir]++;
	pthread_mutex_lock(&g.mu);
	if (g.qlen >= g.idle) {
		/* every worker is busy: rather than wait for one, the I/O thread
		 * does this job itself (order is kept by the ring either way) */
		pthread_mutex_unlock(&g.mu);
		run_job(g.self, j);
		return;
	}
	g.queue[(g.qhead + g.qlen) % (2 * KEEP)] = j;
	g.qlen++;
	pthread_cond_signal(&g.cv);
	pthread_mutex_unlock(&g.mu);
}

/* Sends the finished jobs of @dir, oldest first, and gives their batches back. */
static void
complete(int dir)
{
	while (g.rlen[dir]) {
		struct job *j = g.ring[dir][g.rhead[dir]];
		int k = 0;

		if (!atomic_load_explicit(&j->done, memory_order_acquire))
			break;
		if (dir == TX) {
			sofl_port_send(g.udp, j->pk, (size_t)j->n);	/* drops are counted */
			g.sealed += (unsigned long)j->n;
		} else {
			for (int i = 0; i < j->n; i++) {
				struct sofl_port_pkt *pk = &j->pk[i];
				uint8_t *d = pk->iov[0].iov_base;

				if (j->ctr[i] == UINT64_MAX)
					continue;
				if (j->ses[i] > g.cur) {	/* the peer restarted */
					g.cur = j->ses[i];
					g.top = 0;
					memset(g.win, 0, sizeof(g.win));
				}
				if (j->ses[i] < g.cur || !replay_ok(j->ctr[i])) {
					g.replayed++;
					continue;
				}
				/* the inner packet: between header and tag, in place */
				j->pk[k] = *pk;
				j->pk[k].iov[0].iov_base = d + HDR;
				j->pk[k].iov[0].iov_len = pk->len - HDR - TAG;
				j->pk[k].len = pk->len - HDR - TAG;
				j->pk[k].addr = NULL;
				j->pk[k].flags = d[1] & F_CSUM ? SOFL_PORT_PKT_F_CSUM_OK : 0;
				k++;
			}
			if (k)
				sofl_port_send(g.tun, j->pk, (size_t)k);
			g.opened += (unsigned long)k;
		}
		sofl_port_give_back(j->b);
		g.rhead[dir] = (g.rhead[dir] + 1) % KEEP;
		g.rlen[dir]--;
	}
}

/* "IP:PORT" or "[IPv6]:PORT" into @ss.  @return its length, 0 if not one. */
static socklen_t
parse_addr(const char *s, struct sockaddr_storage *ss)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
				  .ai_socktype = SOCK_DGRAM }, *ai;
	const char *port = strrchr(s, ':');
	char host[128];
	int n = port ? (int)(port - s) : 0;
	socklen_t len;

	if (n >= 2 && s[0] == '[' && s[n - 1] == ']')
		s++, n -= 2;
	if (n <= 0 || n >= (int)sizeof(host))
		return 0;
	memcpy(host, s, (size_t)n);
	host[n] = 0;
	if (getaddrinfo(host, port + 1, &hints, &ai) != 0)
		return 0;
	memcpy(ss, ai->ai_addr, len = ai->ai_addrlen);
	freeaddrinfo(ai);
	return len;
}

static void
usage(void)
{
	fprintf(stderr, "usage: vpn --side a|b --tun NAME --local IP:PORT --remote IP:PORT "
		"--key FILE [--cipher aes-256-gcm|chacha20-poly1305] [--crypto openssl|ipsec-mb] "
		"[--workers N] "
		"[--underlay-mtu N] [--max-packets N]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	const char *tun_name = NULL, *local = NULL, *remote = NULL, *keyf = NULL;
	const char *cipher = "aes-256-gcm", *lib = NULL, *path;
	struct sockaddr_storage la, ra;
	socklen_t ll = 0, rl = 0;
	struct sofl_tun_config tc;
	struct sofl_udp_config uc;
	struct sofl_port_stats ts, us;
	static struct job jobs[2][KEEP];
	static struct crypto self;
	pthread_t th[64];
	uint32_t mtu, underlay = 1500;
	int workers = 0, side = 0, err, i, d;

	g.max_packets = REJECT_AFTER;
	for (i = 1; i + 1 < argc; i += 2) {
		const char *o = argv[i], *v = argv[i + 1];

		if (!strcmp(o, "--side") && (v[0] == 'a' || v[0] == 'b') && !v[1])
			side = v[0];
		else if (!strcmp(o, "--tun"))
			tun_name = v;
		else if (!strcmp(o, "--local"))
			local = v;
		else if (!strcmp(o, "--remote"))
			remote = v;
		else if (!strcmp(o, "--key"))
			keyf = v;
		else if (!strcmp(o, "--cipher"))
			cipher = v;
		else if (!strcmp(o, "--crypto") && (!strcmp(v, "openssl") || !strcmp(v, "ipsec-mb")))
			lib = v;
		else if (!strcmp(o, "--workers") && v[0] >= '0' && v[0] <= '9' &&
			 (workers = atoi(v)) <= 64)
			;
		else if (!strcmp(o, "--underlay-mtu") && (underlay = (uint32_t)atoi(v)) > 0)
			;
		else if (!strcmp(o, "--max-packets") && (g.max_packets = strtoull(v, NULL, 0)) > 0 &&
			 g.max_packets <= REJECT_AFTER)
			;
		else
			usage();
	}
	if (i != argc || !side || !tun_name || !local || !remote || !keyf ||
	    !(ll = parse_addr(local, &la)) || !(rl = parse_addr(remote, &ra)) ||
	    la.ss_family != ra.ss_family)
		usage();
	if (!(path = aead_pick(cipher, lib)))
		usage();
	g.cipher_name = cipher;
	load_psk(keyf, (char)side);

	/* the TUN: packets one piece each, with room for header and tag */
	sofl_tun_config_init(&tc);
	tc.name = tun_name;
	tc.rx_mode = SOFL_PORT_RX_CONTIG;
	tc.headroom = HDR;
	tc.tailroom = TAG;
	if ((err = sofl_tun_inner_mtu(underlay, ra.ss_family, SOFL_TUN_ENCAP_UDP, HDR, TAG,
				      &mtu)) < 0)
		die("inner MTU", err);
	tc.mtu = mtu;
	if ((err = sofl_tun_open(&tc, &g.tun)) < 0)
		die("sofl_tun_open", err);
	if ((err = sofl_tun_set_mtu(g.tun, mtu)) < 0 ||
	    (err = sofl_tun_set_txqueuelen(g.tun, 5000)) < 0 ||
	    (err = sofl_tun_set_up(g.tun, 1)) < 0)
		die("TUN setup", err);
	/* the UDP socket: datagrams from the peer's host only; docs/tunnel.md's buffers */
	sofl_udp_config_init(&uc);
	uc.local = (struct sockaddr *)&la;
	uc.local_len = ll;
	uc.remote = (struct sockaddr *)&ra;
	uc.remote_len = rl;
	uc.peer_only = 1;
	uc.max_pkts = MAX_PKTS;
	uc.rcvbuf = 16 << 20;
	uc.sndbuf = 4 << 20;
	if ((err = sofl_udp_open(&uc, &g.udp)) < 0)
		die("sofl_udp_open", err);
	if ((err = sofl_port_set_keep(g.tun, KEEP)) < 0 ||
	    (err = sofl_port_set_keep(g.udp, KEEP)) < 0)
		die("sofl_port_set_keep", err);
	fprintf(stderr, "vpn: %s up, MTU %u, %s by %s, %d worker(s)\n", tun_name, mtu, cipher,
		path, workers);

	if ((g.efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0)
		die("eventfd", SOFL_E_SYS);
	crypto_init(&self);
	g.self = &self;
	pthread_mutex_init(&g.mu, NULL);
	pthread_cond_init(&g.cv, NULL);
	for (d = 0; d < 2; d++)
		for (i = 0; i < KEEP; i++)
			g.ring[d][i] = &jobs[d][i];
	for (i = 0; i < workers; i++)
		if (pthread_create(&th[i], NULL, worker, NULL) != 0)
			die("pthread_create", SOFL_E_SYS);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	while (!quit) {
		struct pollfd pf[3] = {
			{ .fd = g.efd, .events = POLLIN },
			/* a direction with every batch in flight reads no more */
			{ .fd = g.rlen[TX] < KEEP ? sofl_port_fd(g.tun) : -1, .events = POLLIN },
			{ .fd = g.rlen[RX] < KEEP ? sofl_port_fd(g.udp) : -1, .events = POLLIN },
		};
		struct sofl_port_pkt *pk;
		uint64_t v;
		int n;

		if (poll(pf, 3, 1000) < 0 && errno != EINTR)
			die("poll", SOFL_E_SYS);
		if ((pf[0].revents & POLLIN) && read(g.efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			die("eventfd", SOFL_E_SYS);
		complete(TX);
		complete(RX);
		for (d = 0; d < 2; d++) {
			if (!(pf[1 + d].revents & POLLIN) || g.rlen[d] >= KEEP)
				continue;
			if ((n = sofl_port_recv(d == TX ? g.tun : g.udp, &pk)) < 0)
				die("sofl_port_recv", n);
			if (n > 0)
				submit(d, pk, n);
		}
		complete(TX);	/* what the I/O thread did itself */
		complete(RX);
	}

	pthread_mutex_lock(&g.mu);
	g.stop = 1;
	pthread_cond_broadcast(&g.cv);
	pthread_mutex_unlock(&g.mu);
	for (i = 0; i < workers; i++)
		pthread_join(th[i], NULL);
	complete(TX);
	complete(RX);
	sofl_port_get_stats(g.tun, &ts, sizeof(ts));
	sofl_port_get_stats(g.udp, &us, sizeof(us));
	printf("vpn: sealed %lu opened %lu auth-fail %lu replayed %lu malformed %lu "
	       "exhausted %lu tun-rx %llu tun-tx %llu udp-rx %llu udp-tx %llu\n",
	       g.sealed, g.opened, atomic_load(&g.auth_fail), g.replayed,
	       atomic_load(&g.malformed), g.exhausted, (unsigned long long)ts.rx_pkts,
	       (unsigned long long)ts.tx_pkts, (unsigned long long)us.rx_pkts,
	       (unsigned long long)us.tx_pkts);
	sofl_port_close(g.tun);
	sofl_port_close(g.udp);
	crypto_free(&self);
	return 0;
}
