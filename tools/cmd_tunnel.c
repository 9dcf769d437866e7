/* softoffload tunnel: IP over UDP between two hosts, on the library's ports.
 *
 * Each worker owns one TUN queue, one UDP socket and their engines:
 *   TUN -> peer: super-packets read from the TUN are cut to the inner MTU
 *   by GSO (zero copy, checksums the kernel left partial completed) and
 *   sent as runs of equal-size datagrams with UDP_SEGMENT;
 *   peer -> TUN: datagrams received with UDP_GRO are split, coalesced by GRO
 *   and written to the TUN as super-packets.
 * No payload byte is copied in user space: iovecs go from the TUN read
 * buffer to sendmmsg() and from the UDP receive buffer to writev().
 * With --queues N, worker i uses local port P+i; a packet goes to the peer's
 * port Q+q, q = Toeplitz hash of its inner flow mod N, so a flow reaches the
 * same worker on the peer every time (its GRO sees the whole flow). */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "softoffload/bytes.h"
#include "softoffload/gro.h"
#include "softoffload/port.h"
#include "softoffload/rss.h"

#define MAX_QUEUES 64
#define MAX_BATCH  4096

enum mode { MODE_ON, MODE_OFF, MODE_GSO, MODE_GRO };
static const char *const mode_names[] = { "on", "off", "gso", "gro" };

/* inner packets from the peer refused before the TUN */
enum inner_drop { IN_SHORT, IN_NOT_IP, IN_BAD_LEN, IN__MAX };
static const char *const inner_names[] = { "shorter than an IP header", "not IPv4 or IPv6",
	"IP length not the datagram's" };

struct opts {
	const char *tun;
	struct sockaddr_storage local, remote;
	socklen_t local_len, remote_len;
	int mode, json, verify_inner;
	unsigned mtu, queues, interval, duration, txqlen;
};

struct worker {
	unsigned idx;
	const struct opts *o;
	struct sofl_port *tun, *udp;
	pthread_t th;
	int started, failed;
	struct sockaddr_storage *dst;	/* the peer's N ports */
	struct sofl_port_pkt in[MAX_BATCH];
	uint64_t inner_drop[IN__MAX];	/* relaxed atomic stores */
	uint64_t steered;		/* packets sent to another worker's peer port */
};

static struct sofl_rss *rss;

static int
usage(FILE *f)
{
	fprintf(f,
"usage: softoffload tunnel --tun NAME --local ADDR:PORT --remote ADDR:PORT\n"
"                          [--offload on|off|gso|gro] [--mtu N] [--queues N]\n"
"                          [--stats-interval S] [--json] [--verify-inner]\n"
"                          [--txqueuelen N] [--duration S]\n"
"\n"
"Carries every IPv4/IPv6 packet of TUN NAME in one UDP datagram to the peer\n"
"(an IPv4 or IPv6 underlay) and writes the peer's packets to the TUN.  The TUN\n"
"is created if it does not exist (and then removed at exit); give it its\n"
"addresses and bring it up with ip(8).\n"
"\n"
"  --offload on    TSO/USO from the TUN cut by GSO and sent with UDP_SEGMENT;\n"
"                  UDP_GRO receives coalesced by GRO into TUN super-packets\n"
"                  (default)\n"
"  --offload off   one packet per read/write/send/receive, no virtio header\n"
"  --offload gso   only the sending half (TUN -> peer) uses offloads\n"
"  --offload gro   only the receiving half (peer -> TUN) uses offloads\n"
"  --mtu N         inner MTU, set on the TUN (default 1500 minus the outer\n"
"                  IP and UDP headers: 1472 over IPv4, 1452 over IPv6)\n"
"  --queues N      N workers, each with its own TUN queue and UDP socket;\n"
"                  worker i uses local port PORT+i and sends a flow to the\n"
"                  peer's port PORT+q, q from the Toeplitz hash of the flow\n"
"  --stats-interval S  print the counters every S seconds (0: at exit only)\n"
"  --json          counters as one JSON object per line\n"
"  --verify-inner  verify the inner TCP/UDP checksums of received packets in\n"
"                  software (default: trusted, the outer UDP checksum covered\n"
"                  them; the kernel verifies the IPv4 header itself)\n"
"  --txqueuelen N  the TUN's queue towards the tunnel, in packets (default\n"
"                  5000; the kernel's 500 drops bursts of wire-size packets)\n"
"  --duration S    stop after S seconds (default: until SIGINT/SIGTERM)\n");
	return f == stdout ? 0 : 2;
}

/* "ADDR:PORT" or "[ADDR6]:PORT" */
static int
parse_addr(const char *opt, const char *s, struct sockaddr_storage *ss, socklen_t *len)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon, *h = s;
	size_t hl;
	long long port;

	memset(ss, 0, sizeof(*ss));
	if (*s == '[') {
		const char *e = strchr(s, ']');

		if (!e || e[1] != ':')
			return cli_usage("%s: expected [ADDR]:PORT, got '%s'", opt, s);
		h = s + 1;
		hl = (size_t)(e - h);
		colon = e + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			return cli_usage("%s: expected ADDR:PORT, got '%s'", opt, s);
		hl = (size_t)(colon - s);
	}
	if (hl >= sizeof(host))
		return cli_usage("%s: bad address '%s'", opt, s);
	memcpy(host, h, hl);
	host[hl] = 0;
	if ((port = cli_uint(opt, colon + 1, 65535)) < 0)
		return 2;
	if (inet_pton(AF_INET, host, &((struct sockaddr_in *)ss)->sin_addr) == 1) {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		*len = sizeof(*a);
	} else if (inet_pton(AF_INET6, host, &((struct sockaddr_in6 *)ss)->sin6_addr) == 1) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		*len = sizeof(*a);
	} else {
		return cli_usage("%s: bad address '%s'", opt, host);
	}
	return 0;
}

static uint16_t
addr_port(const struct sockaddr_storage *ss)
{
	return ntohs(ss->ss_family == AF_INET ? ((const struct sockaddr_in *)ss)->sin_port :
		     ((const struct sockaddr_in6 *)ss)->sin6_port);
}

static void
set_port(struct sockaddr_storage *ss, unsigned port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
}

static int
parse_mode(const char *s, int *mode)
{
	int i;

	for (i = 0; i < 4; i++)
		if (!strcmp(s, mode_names[i])) {
			*mode = i;
			return 0;
		}
	return cli_usage("--offload: expected on, off, gso or gro, got '%s'", s);
}

enum { O_TUN = 0x100, O_LOCAL, O_REMOTE, O_OFFLOAD, O_MTU, O_QUEUES, O_INTERVAL,
       O_TXQLEN, O_DURATION };

static int
parse_opts(int argc, char **argv, struct opts *o)
{
	const struct option lopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, &o->json, 1 },
		{ "verify-inner", no_argument, &o->verify_inner, 1 },
		{ "tun", required_argument, NULL, O_TUN },
		{ "local", required_argument, NULL, O_LOCAL },
		{ "remote", required_argument, NULL, O_REMOTE },
		{ "offload", required_argument, NULL, O_OFFLOAD },
		{ "mtu", required_argument, NULL, O_MTU },
		{ "queues", required_argument, NULL, O_QUEUES },
		{ "stats-interval", required_argument, NULL, O_INTERVAL },
		{ "txqueuelen", required_argument, NULL, O_TXQLEN },
		{ "duration", required_argument, NULL, O_DURATION },
		{ NULL, 0, NULL, 0 }
	};
	const struct cli_num nums[] = {
		{ O_QUEUES, "--queues", 1, MAX_QUEUES, &o->queues },
		{ O_INTERVAL, "--stats-interval", 0, 86400, &o->interval },
		{ O_TXQLEN, "--txqueuelen", 1, 1 << 20, &o->txqlen },
		{ O_DURATION, "--duration", 0, 86400 * 365, &o->duration },
	};
	long long v;
	int c, have_l = 0, have_r = 0, err;

	memset(o, 0, sizeof(*o));
	o->queues = 1;
	o->txqlen = 5000;
	optind = 1;
	while ((c = cli_getopt(argc, argv, ":h", lopts)) != -1) {
		const char *val = optarg;

		switch (c) {
		case 'h':
			return usage(stdout) ? 2 : -1;
		case 0:
			break;
		case O_TUN:
			if (!*val || strlen(val) >= IFNAMSIZ)
				return cli_usage("--tun: a name of 1 to %d characters", IFNAMSIZ - 1);
			o->tun = val;
			break;
		case O_LOCAL:
			if ((err = parse_addr("--local", val, &o->local, &o->local_len)))
				return err;
			have_l = 1;
			break;
		case O_REMOTE:
			if ((err = parse_addr("--remote", val, &o->remote, &o->remote_len)))
				return err;
			have_r = 1;
			break;
		case O_OFFLOAD:
			if ((err = parse_mode(val, &o->mode)))
				return err;
			break;
		case O_MTU:
			if ((v = cli_uint("--mtu", val, 65535 - 48)) < 0)
				return 2;
			if (v < 576)
				return cli_usage("--mtu: at least 576");
			o->mtu = (unsigned)v;
			break;
		default:
			if (cli_num_opt(nums, CLI_NELEM(nums), c, val))
				return 2;
		}
	}
	if (optind < argc)
		return cli_usage("unexpected argument '%s'", argv[optind]);
	if (!o->tun || !have_l || !have_r)
		return cli_usage("--tun, --local and --remote are required");
	if (o->local.ss_family != o->remote.ss_family)
		return cli_usage("--local and --remote must be both IPv4 or both IPv6");
	if (addr_port(&o->local) + o->queues - 1 > 65535 ||
	    addr_port(&o->remote) + o->queues - 1 > 65535 ||
	    (o->queues > 1 && (!addr_port(&o->local) || !addr_port(&o->remote))))
		return cli_usage("--queues %u: ports PORT..PORT+%u must exist (and not be 0)",
				 o->queues, o->queues - 1);
	if (!o->mtu)
		o->mtu = o->remote.ss_family == AF_INET6 ? 1452 : 1472;
	return 0;
}

/* ---- set-up ---- */

/* SIOCSIFMTU or SIOCSIFTXQLEN on interface @name */
static int
set_if(const char *name, unsigned long req, unsigned v)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), r;

	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (req == SIOCSIFMTU)
		ifr.ifr_mtu = (int)v;
	else
		ifr.ifr_qlen = (int)v;
	r = ioctl(fd, req, &ifr);
	close(fd);
	return r;
}

/* The kernel's count of packets the TUN dropped because its queue to us
 * was full (tun_net_xmit), or 0 when unknown. */
static uint64_t
tun_kernel_drops(const char *name)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/tx_dropped", name);
	return cli_read_u64(path);	/* no FILE: called at every report */
}

static int
open_tun(const struct opts *o, struct worker *w)
{
	struct sofl_tun_config c;
	int err;

	sofl_tun_config_init(&c);
	c.name = o->tun;
	c.multi_queue = o->queues > 1;
	c.rss = o->queues > 1 ? rss : NULL;
	switch (o->mode) {
	case MODE_OFF:
		c.vnet_hdr = 0;
		c.rx_reads = 1;
		break;
	case MODE_GSO:
		c.tx_gro = 0;
		break;
	case MODE_GRO:
		c.offloads = 0;		/* wire-size packets, complete checksums */
		break;
	}
	if ((err = sofl_tun_open(&c, &w->tun)) < 0) {
		cli_lib_error(err, "--tun %s", o->tun);
		return -1;
	}
	return 0;
}

static int
open_udp(const struct opts *o, struct worker *w)
{
	struct sofl_udp_config c;
	struct sockaddr_storage local = o->local;
	unsigned i;
	int err;

	sofl_udp_config_init(&c);
	set_port(&local, addr_port(&o->local) + (o->queues > 1 ? w->idx : 0));
	w->dst = calloc(o->queues, sizeof(*w->dst));
	if (!w->dst)
		return cli_error("out of memory"), -1;
	for (i = 0; i < o->queues; i++) {
		w->dst[i] = o->remote;
		set_port(&w->dst[i], addr_port(&o->remote) + i);
	}
	c.local = (const struct sockaddr *)&local;
	c.local_len = o->local_len;
	c.remote = (const struct sockaddr *)&w->dst[o->queues > 1 ? w->idx : 0];
	c.remote_len = o->remote_len;
	c.connect = o->queues == 1;
	c.peer_only = 1;
	c.sndbuf = 4 << 20;
	c.rcvbuf = 16 << 20;
	switch (o->mode) {
	case MODE_OFF:
		c.gso = c.gro = 0;
		c.rx_batch = 1;
		c.rx_buf = 65536;
		break;
	case MODE_GSO:
		c.gro = 0;
		break;
	case MODE_GRO:
		c.gso = 0;
		break;
	}
	if ((err = sofl_udp_open(&c, &w->udp)) < 0) {
		cli_lib_error(err, "--local/--remote (queue %u)", w->idx);
		return -1;
	}
	return 0;
}

/* ---- the two directions ---- */

static void
count(uint64_t *c, uint64_t v)
{
	__atomic_store_n(c, *c + v, __ATOMIC_RELAXED);
}

/* TUN -> peer.  @return packets read (0: nothing, < 0: TUN gone) */
static int
tun_to_udp(struct worker *w)
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

/* Is the datagram an IP packet of its own length?  @return -1 yes, else
 * the enum inner_drop reason.  (Two header fields, not a parse: GRO parses.) */
static int
inner_check(const struct iovec *v)
{
	const uint8_t *b = v->iov_base;
	size_t len = v->iov_len;

	if (len < 20)
		return IN_SHORT;
	switch (b[0] >> 4) {
	case 4:
		return (b[0] & 15) >= 5 && sofl_get16(b + 2) == len ? -1 : IN_BAD_LEN;
	case 6:
		return len >= 40 && (size_t)sofl_get16(b + 4) + 40 == len ? -1 : IN_BAD_LEN;
	}
	return IN_NOT_IP;
}

/* peer -> TUN.  @return datagrams received (0: nothing, < 0: socket unusable) */
static int
udp_to_tun(struct worker *w)
{
	struct sofl_port_pkt *pk;
	uint64_t bad[IN__MAX] = { 0 };
	int n, i, k = 0, r;

	n = sofl_port_recv(w->udp, &pk);
	if (n <= 0)
		return n;
	for (i = 0; i < n; i++) {
		if ((r = inner_check(&pk[i].iov[0])) >= 0) {
			bad[r]++;
			continue;
		}
		w->in[k] = pk[i];
		w->in[k].addr = NULL;
		if (!w->o->verify_inner)
			w->in[k].flags |= SOFL_PORT_PKT_F_CSUM_OK;
		if (++k == MAX_BATCH) {
			sofl_port_send(w->tun, w->in, (size_t)k);
			k = 0;
		}
	}
	for (i = 0; i < IN__MAX; i++)
		if (bad[i])
			count(&w->inner_drop[i], bad[i]);
	if (k)
		sofl_port_send(w->tun, w->in, (size_t)k);
	return n;
}

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	struct pollfd pf[2];
	int a, b, r;

	pf[0] = (struct pollfd){ .fd = sofl_port_fd(w->tun), .events = POLLIN };
	pf[1] = (struct pollfd){ .fd = sofl_port_fd(w->udp), .events = POLLIN };
	while (!cli_stop) {
		/* drain both while there is traffic, poll when both are idle */
		do {
			a = tun_to_udp(w);
			b = udp_to_tun(w);
		} while ((a > 0 || b > 0) && !cli_stop);
		if (a < 0 || b < 0) {
			cli_error("queue %u: %s: %s", w->idx, a < 0 ? "tun" : "udp",
				  strerror(errno));
			w->failed = 1;
			cli_stop = 1;
			break;
		}
		r = poll(pf, 2, 200);
		if (r < 0 && errno != EINTR) {
			w->failed = 1;
			break;
		}
	}
	return NULL;
}

/* ---- counters ---- */

struct totals {
	struct sofl_port_stats tun, udp;
	struct sofl_gro_stats gro;
	uint64_t inner_drop[IN__MAX], steered, kernel_drops;
	unsigned tun_off, udp_off;
};

static void
add_port(struct sofl_port_stats *d, const struct sofl_port_stats *s)
{
	int r;

	d->rx_calls += s->rx_calls;
	d->rx_pkts += s->rx_pkts;
	d->rx_bytes += s->rx_bytes;
	d->rx_super += s->rx_super;
	d->rx_segs += s->rx_segs;
	d->tx_calls += s->tx_calls;
	d->tx_pkts += s->tx_pkts;
	d->tx_bytes += s->tx_bytes;
	d->tx_super += s->tx_super;
	d->tx_segs += s->tx_segs;
	d->csum_sw += s->csum_sw;
	d->csum_sw_verify += s->csum_sw_verify;
	d->fallbacks += s->fallbacks;
	for (r = 0; r < SOFL_PORT_DROP__MAX; r++) {
		d->rx_drop[r] += s->rx_drop[r];
		d->tx_drop[r] += s->tx_drop[r];
	}
}

static void
add_gro(struct sofl_gro_stats *d, const struct sofl_gro_stats *s)
{
	int i;

	d->pkts_in += s->pkts_in;
	d->pkts_out += s->pkts_out;
	d->super_pkts += s->super_pkts;
	d->segs_merged += s->segs_merged;
	d->bytes_in += s->bytes_in;
	for (i = 0; i < SOFL_GRO_HIST_BINS; i++)
		d->hist[i] += s->hist[i];
	for (i = 0; i < SOFL_GRO_FLUSH_SLOTS; i++)
		d->flush[i] += s->flush[i];
	for (i = 0; i < SOFL_GRO_BYPASS_SLOTS; i++)
		d->bypass[i] += s->bypass[i];
	d->csum_sw_ip += s->csum_sw_ip;
	d->csum_sw_l4 += s->csum_sw_l4;
	d->csum_partial_ok += s->csum_partial_ok;
}

static void
gather(struct worker *ws, unsigned n, struct totals *t)
{
	struct sofl_port_stats s;
	struct sofl_gro_stats g;
	unsigned i, k;

	memset(t, 0, sizeof(*t));
	t->kernel_drops = tun_kernel_drops(ws[0].o->tun);
	for (i = 0; i < n; i++) {
		sofl_port_get_stats(ws[i].tun, &s, sizeof(s));
		add_port(&t->tun, &s);
		sofl_port_get_stats(ws[i].udp, &s, sizeof(s));
		add_port(&t->udp, &s);
		if (sofl_port_get_gro_stats(ws[i].tun, &g, sizeof(g)) == 0)
			add_gro(&t->gro, &g);
		for (k = 0; k < IN__MAX; k++)
			t->inner_drop[k] += __atomic_load_n(&ws[i].inner_drop[k], __ATOMIC_RELAXED);
		t->steered += __atomic_load_n(&ws[i].steered, __ATOMIC_RELAXED);
		t->tun_off |= sofl_port_offloads(ws[i].tun);
		t->udp_off |= sofl_port_offloads(ws[i].udp);
	}
}

static void
print_text(FILE *f, const struct opts *o, const struct totals *t, double secs, int final)
{
	int i;

	fprintf(f, "tunnel %s: %u queue%s, offload %s, %.1f s%s\n", o->tun, o->queues,
		o->queues > 1 ? "s" : "", mode_names[o->mode], secs, final ? " (exit)" : "");
	fprintf(f, "tun (");
	cli_port_offloads(f, t->tun_off);
	fprintf(f, "):\n");
	cli_line(f, t->tun.rx_calls, "packets read from the kernel");
	cli_line(f, t->tun.rx_super, "super-packets read");
	cli_line(f, t->tun.rx_segs, "segments cut from them");
	cli_line(f, t->tun.csum_sw, "checksums completed in software");
	cli_line(f, t->tun.rx_pkts, "packets sent towards the peer");
	cli_line(f, t->tun.tx_pkts, "packets written to the kernel");
	cli_line(f, t->tun.tx_calls, "write calls");
	cli_line(f, t->tun.tx_super, "super-packets written");
	cli_line(f, t->tun.tx_segs, "packets coalesced into them");
	cli_line(f, t->tun.csum_sw_verify, "checksums verified in software");
	cli_line(f, t->tun.fallbacks, "fallbacks");
	cli_port_drops(f, &t->tun, "packets dropped on receive", "packets dropped on send");
	cli_line(f, t->kernel_drops, "packets the kernel dropped: TUN queue full (tx_dropped)");
	fprintf(f, "udp (");
	cli_port_offloads(f, t->udp_off);
	fprintf(f, "):\n");
	cli_line(f, t->udp.tx_pkts, "datagrams sent");
	cli_line(f, t->udp.tx_calls, "send calls");
	cli_line(f, t->udp.tx_super, "UDP_SEGMENT sends");
	cli_line(f, t->udp.tx_segs, "datagrams in them");
	cli_line(f, t->udp.rx_pkts, "datagrams received");
	cli_line(f, t->udp.rx_calls, "receive calls");
	cli_line(f, t->udp.rx_super, "coalesced receives (UDP_GRO)");
	cli_line(f, t->udp.rx_segs, "datagrams split from them");
	cli_line(f, t->udp.fallbacks, "fallbacks");
	cli_port_drops(f, &t->udp, "datagrams dropped on receive", "datagrams dropped on send");
	fprintf(f, "gro:\n");
	cli_gro_lines(f, &t->gro, "");
	for (i = 0; i < SOFL_GRO_BYPASS__MAX; i++)
		if (t->gro.bypass[i]) {
			char b[64];

			snprintf(b, sizeof(b), "passed through: %s", sofl_gro_bypass_name(i));
			cli_line(f, t->gro.bypass[i], b);
		}
	fprintf(f, "inner:\n");
	for (i = 0; i < IN__MAX; i++) {
		char b[80];

		snprintf(b, sizeof(b), "packets from the peer dropped: %s", inner_names[i]);
		cli_line(f, t->inner_drop[i], b);
	}
	if (o->queues > 1)
		cli_line(f, t->steered, "packets steered to another queue's peer port");
	fflush(f);
}

static void
json_port(struct cli_json *j, const char *name, const struct sofl_port_stats *s, unsigned off)
{
	cli_json_obj(j, name);
	cli_port_offloads_json(j, "offloads", off);
	cli_port_counters_json(j, s);
	cli_json_end(j);
}

/* @return 0, or 2 having printed the write error */
static int
print_json(FILE *f, const struct opts *o, const struct totals *t, double secs, int final)
{
	struct cli_json j;

	cli_json_begin(&j, f);
	cli_json_str(&j, "tunnel", o->tun);
	cli_json_u64(&j, "queues", o->queues);
	cli_json_str(&j, "offload", mode_names[o->mode]);
	cli_json_dbl(&j, "time", secs, 3);
	cli_json_bool(&j, "final", final);
	json_port(&j, "tun", &t->tun, t->tun_off);
	json_port(&j, "udp", &t->udp, t->udp_off);
	cli_gro_json(&j, &t->gro, 1);
	cli_json_obj(&j, "inner_drop");
	cli_json_u64(&j, "short", t->inner_drop[IN_SHORT]);
	cli_json_u64(&j, "not_ip", t->inner_drop[IN_NOT_IP]);
	cli_json_u64(&j, "bad_len", t->inner_drop[IN_BAD_LEN]);
	cli_json_end(&j);
	cli_json_u64(&j, "steered", t->steered);
	cli_json_u64(&j, "kernel_tun_tx_dropped", t->kernel_drops);
	return cli_json_finish(&j, "stdout");
}

/* @return 0, or 2 having printed the write error (the tunnel goes on; the
 * exit status says it) */
static int
report(struct worker *ws, const struct opts *o, double secs, int final)
{
	struct totals t;

	gather(ws, o->queues, &t);
	if (o->json)
		return print_json(stdout, o, &t, secs, final);
	print_text(stdout, o, &t, secs, final);
	if (fflush(stdout) != 0 || ferror(stdout))
		return cli_error("stdout: write error");
	return 0;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- main ---- */

static int
setup(struct worker *ws, const struct opts *o)
{
	struct sofl_rss_config rcfg;
	unsigned i;

	sofl_rss_config_init(&rcfg);
	rcfg.nqueues = o->queues;
	if (sofl_rss_create(&rcfg, &rss) < 0)
		return cli_error("RSS set-up failed"), -1;
	for (i = 0; i < o->queues; i++) {
		ws[i].idx = i;
		ws[i].o = o;
		if (open_tun(o, &ws[i]) < 0 || open_udp(o, &ws[i]) < 0)
			return -1;
	}
	if (set_if(o->tun, SIOCSIFMTU, o->mtu) < 0)
		cli_error("tunnel: cannot set the MTU of %s to %u: %s", o->tun, o->mtu,
			  strerror(errno));
	if (set_if(o->tun, SIOCSIFTXQLEN, o->txqlen) < 0)
		cli_error("tunnel: cannot set the queue length of %s to %u: %s", o->tun,
			  o->txqlen, strerror(errno));
	return 0;
}

static void
teardown(struct worker *ws, const struct opts *o)
{
	unsigned i;

	for (i = 0; i < o->queues; i++) {
		sofl_port_close(ws[i].tun);
		sofl_port_close(ws[i].udp);
		free(ws[i].dst);
	}
	free(ws);
	sofl_rss_destroy(rss);	/* after the ports that refer to it */
	rss = NULL;
}

static int
run(struct worker *ws, const struct opts *o)
{
	double t0 = now_s(), next = t0 + o->interval;
	sigset_t all, old;
	unsigned i;
	int failed = 0, out_err = 0;	/* out_err: the counters could not be written */

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (i = 0; i < o->queues; i++) {
		if (pthread_create(&ws[i].th, NULL, worker_main, &ws[i]) != 0) {
			cli_error("cannot start worker %u", i);
			cli_stop = 1;
			break;
		}
		ws[i].started = 1;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	while (!cli_stop) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		double t;

		nanosleep(&ts, NULL);
		t = now_s();
		if (o->duration && t - t0 >= o->duration)
			cli_stop = 1;
		if (o->interval && t >= next && !cli_stop) {
			if (!out_err)
				out_err = report(ws, o, t - t0, 0);
			next += o->interval;
		}
	}
	for (i = 0; i < o->queues; i++)
		if (ws[i].started) {
			pthread_join(ws[i].th, NULL);
			failed |= ws[i].failed;
		}
	if (!out_err)
		out_err = report(ws, o, now_s() - t0, 1);
	return failed ? 1 : out_err;
}

int
cmd_tunnel(int argc, char **argv)
{
	struct worker *ws;
	struct opts o;
	int err;

	if ((err = parse_opts(argc, argv, &o)))
		return err < 0 ? 0 : err;
	ws = calloc(o.queues, sizeof(*ws));
	if (!ws)
		return cli_error("out of memory");
	if (setup(ws, &o) < 0) {
		teardown(ws, &o);
		return 2;
	}
	cli_catch_stop();
	signal(SIGPIPE, SIG_IGN);
	err = run(ws, &o);
	teardown(ws, &o);
	return err;
}
