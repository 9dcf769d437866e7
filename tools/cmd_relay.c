/*
 * softoffload relay PORT_A PORT_B [--offload on|off] [--json] ...
 *
 * A software NIC: forwards packets both ways between two ports (tun:NAME,
 * tap:NAME, afpacket:IFNAME), coalescing (GRO) towards a port that takes
 * super-packets and segmenting (GSO, checksums completed) towards one that
 * does not.  Between an L3 port (tun) and an L2 one (tap, afpacket) the
 * L2 adapter (softoffload/l2.h) strips or supplies the Ethernet header and
 * answers ARP and neighbour solicitations for the TUN (docs/relay.md).
 */
#include <errno.h>
#include <getopt.h>
#include <ifaddrs.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cli.h"
#include "softoffload/csum.h"
#include "softoffload/gro.h"
#include "softoffload/port.h"
#include "softoffload/l2.h"

#define BURSTS 16		/* receive batches per port per wake-up */
/* --gro-flush-timeout default, microseconds: how long a TUN/TAP port keeps
 * a flow whose burst was read in pieces after the last packet that came
 * (port.h, held sends; 4 x that after its first at most).  A 64 KB
 * burst takes 53 us at 10 Gbit/s, but a burst sent by a program on a busy
 * host, and the relay's own wake-up, can take several hundred: with 200 us
 * tests/relay_burst.sh still saw bursts split on a loaded 2-core machine,
 * with 1000 none.  It is also what a flow whose burst ends without PSH
 * waits at most (pure ACKs and PSH segments are written at once); Linux
 * bounds what it keeps across polls by one jiffy (1-4 ms). */
#define RELAY_HOLD_US 1000

enum kind { K_TUN, K_TAP, K_AFP };

struct end {
	const char *spec;	/* "afpacket:veth0" as given */
	const char *name;
	enum kind kind;
	struct sofl_port *port;
	uint8_t mac[6];		/* afpacket: the interface's address */
};

/* What the relay itself did to packets between the ports (per direction). */
struct dir_stats {
	uint64_t pkts, bytes;	/* handed to the destination port */
	uint64_t sent;		/* accepted by it */
};

/* What the L2 adapter did in one direction (from its counters) */
struct l2_dir {
	uint64_t non_ip;	/* L2 -> tun: not IPv4/IPv6 (ARP, VLAN...) dropped */
	uint64_t no_peer;	/* tun -> L2: no peer MAC learned yet, dropped */
	uint64_t short_hdr;	/* L2 -> tun: Ethernet header not in the first piece;
				 * tun -> L2: no head area for it */
	uint64_t arp_replies;	/* L2 -> tun: ARP requests for the TUN's addresses answered */
	uint64_t nd_adverts;	/* L2 -> tun: neighbour solicitations answered */
	uint64_t malformed;	/* invalid solicitations, virtio headers, IP versions */
	uint64_t runt;		/* L2 -> tun: IP EtherType but no IP header after it */
};

#define MAX_ADDRS SOFL_L2_ADDRS_MAX

/* The TUN's own addresses: the ones the relay answers ARP and neighbour
 * solicitations for on its behalf (an L3 device has no link layer). */
struct tun_addrs {
	uint8_t v4[MAX_ADDRS][4];
	uint8_t v6[MAX_ADDRS][16];
	int n4, n6;
	double when;		/* last read (elapsed seconds), < 0: never */
};

struct relay {
	struct end e[2];
	struct dir_stats d[2];	/* d[0]: A -> B, d[1]: B -> A */
	struct sofl_l2 *l2;	/* tun <-> L2: the adapter, else NULL */
	int offload;
	int tnl_gso;		/* --tunnel-gso: UDP-tunnel GSO asked of a TUN/TAP */
	int json;
	uint32_t ring_slots;	/* 0: the port's default */
	uint32_t busy_us;	/* --busy-poll */
	uint32_t hold_us;	/* --gro-flush-timeout (RELAY_HOLD_US) */
	int tx_ring;		/* --tx-ring: an AF_PACKET port sends through PACKET_TX_RING */
	uint8_t tun_mac[6];	/* --tun-mac: source of frames from a TUN */
	int have_tun_mac;
	struct tun_addrs ta;
	double interval;
	double duration;
	struct timespec t0;
	int out_err;		/* the counters could not be written (exit 2) */
};

static int
usage(FILE *f)
{
	fprintf(f,
	    "usage: softoffload relay PORT_A PORT_B [--offload on|off] [--json]\n"
	    "                         [--stats-interval S] [--time S] [--promisc] [--qdisc-bypass]\n"
	    "                         [--ring-slots N] [--busy-poll US] [--tun-mac MAC]\n"
	    "                         [--tunnel-gso on|off] [--gro-flush-timeout US]\n"
	    "                         [--tx-ring on|off]\n"
	    "ports: tun:NAME  tap:NAME  afpacket:IFNAME\n"
	    "Forwards both ways.  --offload on (default): AF_PACKET ring with virtio headers,\n"
	    "GRO towards a TUN/TAP, GSO and checksums towards an AF_PACKET device without TSO;\n"
	    "off: one frame per system call, no GRO/GSO.  A TUN/TAP that does not exist is\n"
	    "created (and removed at exit).  Counters every S seconds (0: at exit only) and at\n"
	    "exit, netstat -s style or one JSON object per line with --json.  --time S: stop\n"
	    "after S seconds.  --ring-slots: AF_PACKET receive ring slots (default 4096, sized\n"
	    "for the MTU: 2 KB each at 1500).  --busy-poll US: after traffic, keep polling\n"
	    "without sleeping for US microseconds (default 0).  --gro-flush-timeout US: a TUN/TAP\n"
	    "keeps a flow whose burst was read in pieces until nothing came for US microseconds\n"
	    "(4 x US at most), so that the rest joins it (default 1000; 0: every read's flows\n"
	    "are written at its end; what it costs: a burst that ends without PSH waits that\n"
	    "long).  --tunnel-gso on (default with --offload on): a TAP negotiates UDP-tunnel\n"
	    "GSO (Linux 6.17+, 24-byte virtio header), so VXLAN/Geneve frames are coalesced into\n"
	    "tunnel super-packets towards it and its tunnel super-packets are read whole (cut\n"
	    "for an AF_PACKET port); off, or a kernel without it: not.\n"
	    "--tx-ring on (with --offload on): an AF_PACKET port sends through a transmit ring\n"
	    "(PACKET_TX_RING: frames copied into it, super-packets cut there, one send() per\n"
	    "batch) instead of one sendmmsg() message per frame; off (default): sendmmsg().\n"
	    "--tun-mac: source address of the frames made from a TUN's packets (default: the\n"
	    "other port's MAC).  SIGINT/SIGTERM end it.\n");
	return f == stdout ? 0 : 2;
}

static int
parse_end(struct end *e, const char *spec)
{
	static const struct { const char *p; enum kind k; } pre[] = {
		{ "tun:", K_TUN }, { "tap:", K_TAP }, { "afpacket:", K_AFP },
	};
	size_t i, l;

	e->spec = spec;
	for (i = 0; i < sizeof(pre) / sizeof(pre[0]); i++) {
		l = strlen(pre[i].p);
		if (!strncmp(spec, pre[i].p, l) && spec[l]) {
			e->kind = pre[i].k;
			e->name = spec + l;
			return 0;
		}
	}
	return cli_error("relay: bad port '%s' (tun:NAME, tap:NAME or afpacket:IFNAME)", spec);
}

static int
is_l2(const struct end *e)
{
	return e->kind != K_TUN;
}

static int
open_end(struct relay *r, int i, int promisc, int bypass)
{
	struct end *e = &r->e[i], *o = &r->e[1 - i];
	/* a TUN next to an L2 port reads wire-size segments with room for the
	 * Ethernet header the relay puts in front of them */
	int conv = e->kind == K_TUN && is_l2(o);
	/* with offloads every destination takes super-packets: a TUN/TAP
	 * coalesces and writes them whole, an AF_PACKET port hands them to a
	 * TSO device or segments them itself */
	int super = r->offload && !conv;
	int err;

	if (e->kind == K_AFP) {
		struct sofl_afpacket_config c;

		sofl_afpacket_config_init(&c);
		c.ifname = e->name;
		c.promisc = promisc;
		c.qdisc_bypass = bypass;
		c.rx_mode = super ? SOFL_PORT_RX_SUPER : SOFL_PORT_RX_SEGMENT;
		if (r->ring_slots)
			c.ring_frames = r->ring_slots;
		c.tx_ring = r->offload && r->tx_ring;
		if (!r->offload) {
			c.ring = 0;
			c.tx_offload = 0;
			c.tx_batch = 1;
			c.rx_batch = 64;
		}
		err = sofl_afpacket_open(&c, &e->port);
		if (err == 0)
			sofl_afpacket_mac(e->port, e->mac);
	} else {
		struct sofl_tun_config c;

		sofl_tun_config_init(&c);
		c.name = e->name;
		c.tap = e->kind == K_TAP;
		c.vnet_hdr = r->offload;
		c.tx_gro = r->offload;
		if (r->offload && r->tnl_gso)
			c.offloads |= SOFL_TUN_WANT_F_UDP_TNL | SOFL_TUN_WANT_F_UDP_TNL_CSUM;
		c.rx_mode = super ? SOFL_PORT_RX_SUPER : SOFL_PORT_RX_SEGMENT;
		if (conv)
			c.headroom = SOFL_L2_ETH_HLEN;
		/* a read of 8 super-packets is ~360 wire frames: the other
		 * direction gets its turn soon after */
		c.rx_reads = 8;
		err = sofl_tun_open(&c, &e->port);
	}
	if (err < 0)
		return cli_lib_error(err, "relay: %s", e->spec);
	return 0;
}

static double elapsed(const struct relay *r);

/* The MAC address the TUN side answers with and sends from: --tun-mac, else
 * an AF_PACKET port's own, else a fixed locally administered one. */
static const uint8_t *
tun_side_mac(const struct relay *r)
{
	static const uint8_t def[6] = { 0x02, 0x53, 0x4f, 0x46, 0x4c, 0x00 };
	int i;

	if (r->have_tun_mac)
		return r->tun_mac;
	for (i = 0; i < 2; i++)
		if (r->e[i].kind == K_AFP)
			return r->e[i].mac;
	return def;
}

static void
read_tun_addrs(struct relay *r)
{
	const char *name = r->e[0].kind == K_TUN ? r->e[0].name : r->e[1].name;
	struct ifaddrs *ifa, *i;

	r->ta.n4 = r->ta.n6 = 0;
	r->ta.when = elapsed(r);
	if (getifaddrs(&ifa) < 0)
		return;
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || strcmp(i->ifa_name, name))
			continue;
		if (i->ifa_addr->sa_family == AF_INET && r->ta.n4 < MAX_ADDRS)
			memcpy(r->ta.v4[r->ta.n4++],
			       &((const struct sockaddr_in *)(const void *)i->ifa_addr)->sin_addr, 4);
		else if (i->ifa_addr->sa_family == AF_INET6 && r->ta.n6 < MAX_ADDRS)
			memcpy(r->ta.v6[r->ta.n6++],
			       &((const struct sockaddr_in6 *)(const void *)i->ifa_addr)->sin6_addr, 16);
	}
	freeifaddrs(ifa);
}

/* The adapter met an ARP request or neighbour solicitation for an address
 * it does not know: the TUN's addresses are read again, at most once a
 * second (the user assigns them after the relay created the TUN), and the
 * adapter searches once more when they were. */
static int
on_miss(void *ctx, struct sofl_l2 *l2, unsigned ip_version, const uint8_t *addr)
{
	struct relay *r = ctx;

	(void)ip_version;
	(void)addr;
	if (r->ta.when >= 0 && elapsed(r) - r->ta.when < 1.0)
		return 0;
	read_tun_addrs(r);
	return sofl_l2_set_addrs(l2, r->ta.v4[0], (size_t)r->ta.n4, r->ta.v6[0],
				 (size_t)r->ta.n6) == 0;
}

/* An ARP reply or neighbour advertisement, back out of the L2 port @ctx */
static void
reply_send(void *ctx, const uint8_t *frame, size_t len)
{
	struct end *l2 = ctx;
	struct sofl_port_pkt pk;
	struct iovec v = { (void *)(uintptr_t)frame, len };

	memset(&pk, 0, sizeof(pk));
	pk.iov = &v;
	pk.iovcnt = 1;
	pk.len = (uint32_t)len;
	sofl_port_send(l2->port, &pk, 1);
}

/* Between a TUN and an L2 port: the adapter that strips and adds Ethernet
 * headers (in place: received packets are ours to modify; a TUN's packets
 * are read with a head area for the header) and answers for the TUN. */
static int
open_l2(struct relay *r)
{
	struct sofl_l2_config c;
	int err;

	sofl_l2_config_init(&c);
	memcpy(c.mac, tun_side_mac(r), sizeof(c.mac));
	c.miss = on_miss;
	c.miss_ctx = r;
	if ((err = sofl_l2_create(&c, &r->l2)) < 0)
		return cli_error("relay: L2 adapter (TUN side MAC %02x:%02x:%02x:%02x:%02x:%02x): %s",
				 c.mac[0], c.mac[1], c.mac[2], c.mac[3], c.mac[4], c.mac[5],
				 sofl_strerror(err));
	return 0;
}

/* What the adapter did to the packets going from port @i to the other. */
static void
l2_dir_get(const struct relay *r, int i, struct l2_dir *o)
{
	struct sofl_l2_stats s;

	memset(o, 0, sizeof(*o));
	if (!r->l2 || sofl_l2_get_stats(r->l2, &s, sizeof(s)) < 0)
		return;
	if (is_l2(&r->e[i])) {
		o->non_ip = s.eth_drop[SOFL_L2_DROP_NOT_IP] +
			    s.eth_drop[SOFL_L2_DROP_ARP_MALFORMED] +
			    s.eth_drop[SOFL_L2_DROP_ARP_NOT_REQUEST] +
			    s.eth_drop[SOFL_L2_DROP_ARP_NOT_MINE];
		o->short_hdr = s.eth_drop[SOFL_L2_DROP_SHORT];
		o->runt = s.eth_drop[SOFL_L2_DROP_RUNT];
		o->arp_replies = s.arp_replies;
		o->nd_adverts = s.nd_adverts;
		o->malformed = s.eth_drop[SOFL_L2_DROP_NS_MALFORMED] +
			       s.eth_drop[SOFL_L2_DROP_NS_CSUM] + s.eth_drop[SOFL_L2_DROP_VNET] +
			       s.eth_drop[SOFL_L2_DROP_IP_VERSION];
	} else {
		o->no_peer = s.ip_drop[SOFL_L2_DROP_NO_PEER];
		o->short_hdr = s.ip_drop[SOFL_L2_DROP_NO_ROOM];
		o->malformed = s.ip_drop[SOFL_L2_DROP_VNET] + s.ip_drop[SOFL_L2_DROP_IP_VERSION];
	}
}

/* One batch from port @i to the other.  @return packets received, or < 0. */
static int
forward(struct relay *r, int i)
{
	struct end *src = &r->e[i], *dst = &r->e[1 - i];
	struct dir_stats *d = &r->d[i];
	struct sofl_port_pkt *p;
	size_t n, k, j;
	int got, sent, kept;

	got = sofl_port_recv(src->port, &p);
	if (got <= 0)
		return got;
	n = (size_t)got;
	k = n;
	if (r->l2) {
		kept = src->kind == K_TUN ? sofl_l2_ip_to_eth_batch(r->l2, p, n) :
		       sofl_l2_eth_to_ip_batch(r->l2, p, n, reply_send, src);
		if (kept < 0)
			return kept;
		k = (size_t)kept;
	}
	for (j = 0; j < k; j++)
		d->bytes += p[j].len;
	d->pkts += k;
	if (k == 0)
		return got;
	sent = sofl_port_send(dst->port, p, k);
	if (sent < 0)
		return sent;
	d->sent += (uint64_t)sent;
	return got;
}

/* ---- counters ---- */

static double
elapsed(const struct relay *r)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - r->t0.tv_sec) + (double)(t.tv_nsec - r->t0.tv_nsec) / 1e9;
}

static void
line(unsigned long long v, const char *what)
{
	cli_line(stdout, v, what);
}

static void
print_port(const struct end *e)
{
	struct sofl_port_stats s;
	struct sofl_gro_stats g;

	sofl_port_get_stats(e->port, &s, sizeof(s));
	printf("%s:\n\toffloads: ", e->spec);
	cli_port_offloads(stdout, sofl_port_offloads(e->port));
	printf("\n");
	line(s.rx_pkts, "packets received");
	line(s.rx_bytes, "bytes received");
	line(s.rx_calls, e->kind == K_AFP ? "receive batches (ring reads or recvmsg calls)" :
	     "receive system calls");
	line(s.rx_super, "super-packets received");
	line(s.rx_segs, "segments cut from them");
	line(s.tx_pkts, "packets sent");
	line(s.tx_bytes, "bytes sent");
	line(s.tx_calls, "send system calls");
	line(s.tx_super, "super-packets sent (coalesced, or segmented for the device)");
	line(s.tx_segs, "segments inside them");
	line(s.csum_sw, "checksums completed in software");
	line(s.csum_sw_verify, "checksums verified in software");
	line(s.fallbacks, "offload fallbacks");
	cli_port_drops(stdout, &s, "received packets dropped", "packets not sent");
	if (sofl_port_get_gro_stats(e->port, &g, sizeof(g)) == 0)
		cli_gro_lines(stdout, &g, "GRO: ");
}

static void
print_dir(const struct relay *r, int i)
{
	const struct dir_stats *d = &r->d[i];
	struct l2_dir a;

	l2_dir_get(r, i, &a);
	printf("relay %s -> %s:\n", r->e[i].spec, r->e[1 - i].spec);
	line(d->pkts, "packets forwarded");
	line(d->bytes, "bytes forwarded");
	line(d->sent, "packets accepted by the destination");
	if (a.non_ip)
		line(a.non_ip, "frames dropped: not IPv4/IPv6 (towards a TUN)");
	if (a.no_peer)
		line(a.no_peer, "packets dropped: no peer MAC learned yet");
	if (a.short_hdr)
		line(a.short_hdr, "packets dropped: no room for the Ethernet header");
	if (a.malformed)
		line(a.malformed, "packets dropped: malformed (neighbour solicitation, "
		     "virtio header or IP version)");
	if (a.runt)
		line(a.runt, "frames dropped: runt (IPv4/IPv6 EtherType, no IP header after it)");
	if (a.arp_replies)
		line(a.arp_replies, "ARP requests answered for the TUN");
	if (a.nd_adverts)
		line(a.nd_adverts, "neighbour solicitations answered for the TUN");
}

static void
json_port(struct cli_json *j, const struct end *e)
{
	struct sofl_port_stats s;
	struct sofl_gro_stats g;

	sofl_port_get_stats(e->port, &s, sizeof(s));
	cli_json_obj(j, NULL);
	cli_json_str(j, "port", e->spec);
	cli_json_str(j, "kind", sofl_port_kind(e->port));
	cli_port_offloads_json(j, "offloads", sofl_port_offloads(e->port));
	cli_port_counters_json(j, &s);
	if (sofl_port_get_gro_stats(e->port, &g, sizeof(g)) == 0)
		cli_gro_json(j, &g, 0);
	cli_json_end(j);
}

static void
json_dir(struct cli_json *j, const struct relay *r, int i)
{
	const struct dir_stats *d = &r->d[i];
	struct l2_dir a;

	l2_dir_get(r, i, &a);
	cli_json_obj(j, NULL);
	cli_json_str(j, "from", r->e[i].spec);
	cli_json_str(j, "to", r->e[1 - i].spec);
	cli_json_u64(j, "pkts", d->pkts);
	cli_json_u64(j, "bytes", d->bytes);
	cli_json_u64(j, "sent", d->sent);
	cli_json_u64(j, "non_ip", a.non_ip);
	cli_json_u64(j, "no_peer_mac", a.no_peer);
	cli_json_u64(j, "short_hdr", a.short_hdr);
	cli_json_u64(j, "arp_replies", a.arp_replies);
	cli_json_u64(j, "nd_adverts", a.nd_adverts);
	cli_json_u64(j, "malformed", a.malformed);
	cli_json_u64(j, "runt", a.runt);
	cli_json_end(j);
}

/* The counters, text or one JSON line.  @return 0, or 2 having printed
 * the write error (the relay goes on; the exit status says it). */
static int
report(struct relay *r, int final)
{
	struct cli_json j;
	int i;

	for (i = 0; i < 2; i++)
		if (r->e[i].kind == K_AFP)
			sofl_afpacket_sync_stats(r->e[i].port);
	if (r->json) {
		cli_json_begin(&j, stdout);
		cli_json_dbl(&j, "time", elapsed(r), 3);
		cli_json_bool(&j, "final", final);
		cli_json_str(&j, "offload", r->offload ? "on" : "off");
		cli_json_arr(&j, "ports");
		for (i = 0; i < 2; i++)
			json_port(&j, &r->e[i]);
		cli_json_end(&j);
		cli_json_arr(&j, "relay");
		for (i = 0; i < 2; i++)
			json_dir(&j, r, i);
		cli_json_end(&j);
		return cli_json_finish(&j, "stdout");
	}
	printf("softoffload relay, offload %s, %.3f s%s\n", r->offload ? "on" : "off",
	       elapsed(r), final ? " (exit)" : "");
	for (i = 0; i < 2; i++)
		print_port(&r->e[i]);
	for (i = 0; i < 2; i++)
		print_dir(r, i);
	if (fflush(stdout) != 0 || ferror(stdout))
		return cli_error("stdout: write error");
	return 0;
}

/* ---- main loop ---- */

/* Writes what the ports hold that is due (their flush timeout). */
static int
flush_due(struct relay *r)
{
	uint64_t now = cli_mono_ns();
	int i, err;

	for (i = 0; i < 2; i++)
		if ((err = sofl_port_flush(r->e[i].port, now)) < 0)
			return cli_lib_error(err, "relay: %s", r->e[i].spec);
	return 0;
}

/* --gro-flush-timeout on the TUN/TAP ports that coalesce (offload on) */
static int
set_hold(struct relay *r)
{
	int i, err;

	for (i = 0; i < 2; i++) {
		if (r->e[i].kind == K_AFP || !r->offload)
			continue;
		err = sofl_port_set_flush_timeout(r->e[i].port, r->hold_us);
		if (err < 0 && err != SOFL_E_NOTSUP)
			return cli_lib_error(err, "relay: %s: --gro-flush-timeout %u",
					     r->e[i].spec, r->hold_us);
	}
	return 0;
}

static int
run(struct relay *r)
{
	struct pollfd pf[2];
	struct timespec ts;
	double next = r->interval > 0 ? r->interval : -1;
	int i, b, got, tmo, busy[2], moved;
	double last_busy = 0;

	if (set_hold(r))
		return 2;
	for (i = 0; i < 2; i++) {
		pf[i].fd = sofl_port_fd(r->e[i].port);
		pf[i].events = POLLIN;
	}
	while (!cli_stop) {
		double t = elapsed(r);

		if (r->duration > 0 && t >= r->duration)
			break;
		if (next > 0 && t >= next) {
			if (!r->out_err)
				r->out_err = report(r, 0);
			next += r->interval;
		}
		/* --busy-poll: after traffic, look again (without sleeping)
		 * for that long before paying a wake-up per packet */
		tmo = 200;
		if (r->busy_us && elapsed(r) - last_busy < r->busy_us / 1e6)
			tmo = 0;
		/* held flows (--gro-flush-timeout): wake at the earliest
		 * deadline, as the NAPI timer of gro_flush_timeout does */
		{
			struct sofl_port *const pp[2] = { r->e[0].port, r->e[1].port };

			cli_wait_ts(pp, 2, (uint64_t)tmo * 1000000u, &ts);
		}
		if (ppoll(pf, 2, &ts, NULL) < 0) {
			if (errno == EINTR)
				continue;
			return cli_error("relay: poll: %s", strerror(errno));
		}
		/* the two directions in turn, one batch each, so that a long
		 * run of sends (whose ACKs come back into the other port's
		 * ring at once) never starves the other side */
		busy[0] = (pf[0].revents & (POLLIN | POLLERR)) != 0;
		busy[1] = (pf[1].revents & (POLLIN | POLLERR)) != 0;
		moved = 0;
		for (b = 0; b < BURSTS && (busy[0] || busy[1]); b++)
			for (i = 0; i < 2; i++) {
				if (!busy[i])
					continue;
				got = forward(r, i);
				if (got < 0)
					return cli_lib_error(got, "relay: %s", r->e[i].spec);
				busy[i] = got > 0;
				moved |= got > 0;
			}
		if (moved)
			last_busy = elapsed(r);
		if (flush_due(r))
			return 2;
	}
	return 0;
}

static int
parse_mac(const char *v, uint8_t mac[6])
{
	unsigned b[6];
	char end;
	int i;

	if (sscanf(v, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
		   &end) != 6)
		return cli_error("--tun-mac: expected xx:xx:xx:xx:xx:xx, not '%s'", v);
	for (i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	if (mac[0] & 1)
		return cli_error("--tun-mac: '%s' is a multicast address", v);
	if (!(mac[0] | mac[1] | mac[2] | mac[3] | mac[4] | mac[5]))
		return cli_error("--tun-mac: '%s' is not an address", v);
	return 0;
}

static int
parse_secs(const char *opt, const char *v, double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(v, &end);
	if (errno || end == v || *end || d < 0 || d > 1e7)
		return cli_error("%s: bad number of seconds '%s'", opt, v);
	*out = d;
	return 0;
}

int
cmd_relay(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "offload", required_argument, NULL, 'o' },
		{ "json", no_argument, NULL, 'j' },
		{ "stats-interval", required_argument, NULL, 's' },
		{ "time", required_argument, NULL, 't' },
		{ "promisc", no_argument, NULL, 'p' },
		{ "qdisc-bypass", no_argument, NULL, 'q' },
		{ "ring-slots", required_argument, NULL, 'r' },
		{ "busy-poll", required_argument, NULL, 'b' },
		{ "gro-flush-timeout", required_argument, NULL, 'g' },
		{ "tun-mac", required_argument, NULL, 'm' },
		{ "tunnel-gso", required_argument, NULL, 'T' },
		{ "tx-ring", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct relay r;
	const struct cli_num nums[] = {
		{ 'b', "--busy-poll", 0, 1000000, &r.busy_us },
		{ 'g', "--gro-flush-timeout", 0, SOFL_PORT_FLUSH_TIMEOUT_MAX, &r.hold_us },
		{ 'r', "--ring-slots", 1, 65536, &r.ring_slots },
	};
	int c, promisc = 0, bypass = 0, rc, i;

	memset(&r, 0, sizeof(r));
	r.offload = 1;
	r.tnl_gso = 1;
	r.hold_us = RELAY_HOLD_US;
	r.ta.when = -1;
	optind = 1;
	while ((c = cli_getopt(argc, argv, ":h", opts)) != -1) {
		switch (c) {
		case 'o':
			if (!strcmp(optarg, "on"))
				r.offload = 1;
			else if (!strcmp(optarg, "off"))
				r.offload = 0;
			else
				return cli_error("--offload: expected on or off, not '%s'", optarg);
			break;
		case 'T':
			if (!strcmp(optarg, "on"))
				r.tnl_gso = 1;
			else if (!strcmp(optarg, "off"))
				r.tnl_gso = 0;
			else
				return cli_error("--tunnel-gso: expected on or off, not '%s'", optarg);
			break;
		case 'R':
			if (!strcmp(optarg, "on"))
				r.tx_ring = 1;
			else if (!strcmp(optarg, "off"))
				r.tx_ring = 0;
			else
				return cli_error("--tx-ring: expected on or off, not '%s'", optarg);
			break;
		case 'j': r.json = 1; break;
		case 's':
			if (parse_secs("--stats-interval", optarg, &r.interval))
				return 2;
			break;
		case 't':
			if (parse_secs("--time", optarg, &r.duration))
				return 2;
			break;
		case 'p': promisc = 1; break;
		case 'm':
			if (parse_mac(optarg, r.tun_mac))
				return 2;
			r.have_tun_mac = 1;
			break;
		case 'q': bypass = 1; break;
		case 'h': return usage(stdout);
		default:
			if (cli_num_opt(nums, CLI_NELEM(nums), c, optarg))
				return 2;
		}
	}
	if (argc - optind != 2) {
		cli_error("relay: expected two ports, got %d", argc - optind);
		return usage(stderr);
	}
	if (parse_end(&r.e[0], argv[optind]) || parse_end(&r.e[1], argv[optind + 1]))
		return 2;
	if (r.e[0].kind == r.e[1].kind && !strcmp(r.e[0].name, r.e[1].name))
		return cli_error("relay: both ports are '%s'", r.e[0].spec);
	for (i = 0; i < 2; i++)
		if (open_end(&r, i, promisc, bypass)) {
			if (i == 1)
				sofl_port_close(r.e[0].port);
			return 2;
		}
	if ((r.e[0].kind == K_TUN) != (r.e[1].kind == K_TUN) && open_l2(&r)) {
		sofl_port_close(r.e[0].port);
		sofl_port_close(r.e[1].port);
		return 2;
	}
	cli_catch_stop();
	clock_gettime(CLOCK_MONOTONIC, &r.t0);
	if (!r.json)
		fprintf(stderr, "relay: %s <-> %s, offload %s\n", r.e[0].spec, r.e[1].spec,
			r.offload ? "on" : "off");
	rc = run(&r);
	if (!r.out_err)
		r.out_err = report(&r, 1);
	sofl_port_close(r.e[0].port);
	sofl_port_close(r.e[1].port);
	sofl_l2_destroy(r.l2);
	return rc || r.out_err ? 2 : 0;
}
