/* softoffload tunnel: IP or Ethernet over UDP between hosts, on the
 * library's ports.  This file: the options, the set-up and the main loop.
 * tunnel_path.c moves the packets (both directions of one worker),
 * tunnel_hdr.c checks and builds the VXLAN/Geneve headers, tunnel_stats.c
 * prints the counters.
 *
 * Each worker owns one TUN/TAP queue, its UDP sockets and their engines.
 * --encap ip (default): an IP packet per datagram, no header; with
 * --queues N, worker i uses local port P+i; a packet goes to the peer's
 * port Q+q, q = Toeplitz hash of its inner flow mod N, so a flow reaches the
 * same worker on the peer every time (its GRO sees the whole flow).
 * --encap vxlan|geneve: RFC 7348 / RFC 8926 frames that the kernel's own
 * vxlan and geneve devices take and send: a TAP (Geneve: or a TUN with
 * --inner ip), one receiving socket on --local, and one sending socket per
 * outer source port of --src-ports (the port of a packet: Linux's
 * udp_flow_src_port() on its inner flow's Toeplitz hash). */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"
#include "softoffload/rss.h"
#include "tunnel.h"

const char *const tn_mode_names[4] = { "on", "off", "gso", "gro" };
const char *const tn_encap_names[3] = { "ip", "vxlan", "geneve" };

static struct sofl_rss *rss;

static int
usage(FILE *f)
{
	fprintf(f,
"usage: softoffload tunnel --tun NAME --local ADDR:PORT --remote ADDR:PORT\n"
"                          [--encap ip|vxlan|geneve] [--vni N] [--inner eth|ip]\n"
"                          [--src-ports MIN-MAX] [--udp-csum on|off]\n"
"                          [--trust-inner]\n"
"                          [--offload on|off|gso|gro] [--mtu N] [--queues N]\n"
"                          [--stats-interval S] [--json] [--verify-inner]\n"
"                          [--txqueuelen N] [--gro-flush-timeout US]\n"
"                          [--duration S] [--runt-drop kernel|port]\n"
"\n"
"--encap ip (default): carries every IPv4/IPv6 packet of TUN NAME in one UDP\n"
"datagram to the peer (another softoffload tunnel; an IPv4 or IPv6 underlay)\n"
"and writes the peer's packets to the TUN.\n"
"--encap vxlan: carries the Ethernet frames of TAP NAME in VXLAN (RFC 7348) to\n"
"the remotes and back: the peer may be Linux's vxlan device (dstport = the\n"
"port of --remote, id = --vni).  --encap geneve: Geneve (RFC 8926), Ethernet\n"
"in a TAP, or with --inner ip IP packets in a TUN.\n"
"The TUN/TAP is created if it does not exist (and then removed at exit); give\n"
"it its addresses and bring it up with ip(8).\n"
"\n"
"  --offload on    TSO/USO from the TUN cut by GSO and sent with UDP_SEGMENT;\n"
"                  UDP_GRO receives coalesced by GRO into TUN super-packets\n"
"                  (default)\n"
"  --offload off   no offloads: one packet per read/write and per datagram,\n"
"                  no virtio header; syscalls batched (recvmmsg/sendmmsg)\n"
"  --offload gso   only the sending half (TUN -> peer) uses offloads\n"
"  --offload gro   only the receiving half (peer -> TUN) uses offloads\n"
"  --remote A:P    the peer; VXLAN/Geneve: up to %d remotes (repeat the\n"
"                  option), frames go to the remote their destination MAC was\n"
"                  learned behind (inner source MACs of what each sends), to\n"
"                  every remote when unknown or a group address; datagrams\n"
"                  from any other address are dropped\n"
"  --vni N         VXLAN/Geneve network identifier, 0..16777215 (required)\n"
"  --inner eth|ip  Geneve's payload: Ethernet frames (TAP, default) or IP\n"
"                  packets (TUN)\n"
"  --src-ports MIN-MAX  VXLAN/Geneve: outer UDP source ports, one sending\n"
"                  socket each; a flow's port from the hash of its inner\n"
"                  headers (default 49152-49167)\n"
"  --udp-csum on|off  VXLAN/Geneve: outer UDP checksum (default on; off:\n"
"                  sent without, and without UDP_SEGMENT, which Linux refuses\n"
"                  without checksums; zero-checksum IPv6 datagrams accepted)\n"
"  --trust-inner   VXLAN/Geneve: treat the inner checksums as verified (the\n"
"                  outer one covered them; default: only those of datagrams\n"
"                  the kernel coalesced (UDP_GRO), whose non-zero outer\n"
"                  checksum it verified; GRO verifies the others, as a\n"
"                  datagram's outer checksum may have been 0)\n"
"  --mtu N         inner MTU, set on the TUN/TAP (default 1500 minus the\n"
"                  outer headers: 1472/1452 for ip, 1450/1430 for VXLAN and\n"
"                  Geneve, 1464/1444 for Geneve with IP, over IPv4/IPv6)\n"
"  --queues N      N workers, each with its own TUN queue and UDP socket;\n"
"                  worker i uses local port PORT+i and sends a flow to the\n"
"                  peer's port PORT+q, q from the Toeplitz hash of the flow\n"
"                  (--encap ip only)\n"
"  --stats-interval S  print the counters every S seconds (0: at exit only)\n"
"  --json          counters as one JSON object per line\n"
"  --verify-inner  verify the inner TCP/UDP checksums of received packets in\n"
"                  software (default, ip: trusted, the outer UDP checksum\n"
"                  covered them; the kernel verifies the IPv4 header itself;\n"
"                  vxlan/geneve: those of coalesced receives trusted)\n"
"  --txqueuelen N  the TUN's queue towards the tunnel, in packets (default\n"
"                  5000; the kernel's 500 drops bursts of wire-size packets)\n"
"  --gro-flush-timeout US  --offload on|gro: a flow whose datagrams came in\n"
"                  pieces is kept until nothing came for US microseconds (4 x\n"
"                  US after its first packet at most) so that the rest joins\n"
"                  it, as the kernel's gro_flush_timeout (default 1000; 0:\n"
"                  every receive's flows are written at its end).  Cost: a\n"
"                  burst that ends without PSH reaches the TUN that late\n"
"  --runt-drop kernel|port  VXLAN/Geneve: datagrams too short for the tunnel\n"
"                  header and the inner header are dropped in the kernel\n"
"                  (default, with a specific --local address: a second\n"
"                  socket on the port takes them, steered by a BPF program;\n"
"                  a flood of them never wakes the tunnel) or by the tunnel\n"
"                  after it read them (port); both count them as runt\n"
"  --duration S    stop after S seconds (default: until SIGINT/SIGTERM)\n",
		TN_MAX_REMOTES);
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

/* a specific address with a port: one the kernel runt drop can share */
static int
addr_specific(const struct sockaddr_storage *ss)
{
	static const struct in6_addr any6;

	if (!addr_port(ss))
		return 0;
	return ss->ss_family == AF_INET ?
	       ((const struct sockaddr_in *)ss)->sin_addr.s_addr != 0 :
	       memcmp(&((const struct sockaddr_in6 *)ss)->sin6_addr, &any6, sizeof(any6)) != 0;
}

static void
set_port(struct sockaddr_storage *ss, unsigned port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
}

/* @val one of @names[0..n): its index into *out */
static int
parse_word(const char *opt, const char *val, const char *const *names, int n, int *out)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(val, names[i])) {
			*out = i;
			return 0;
		}
	return cli_usage("%s: '%s' is not one of the choices (--help)", opt, val);
}

static const char *const onoff[2] = { "off", "on" };
static const char *const runt_names[2] = { "port", "kernel" };
static const char *const inner_names[2] = { "ip", "eth" };

static int
parse_ports(const char *val, struct tn_opts *o)
{
	unsigned long long a, b;
	const char *dash = strchr(val, '-');
	char lo[8];

	if (!dash || (size_t)(dash - val) >= sizeof(lo))
		return cli_usage("--src-ports: expected MIN-MAX, got '%s'", val);
	memcpy(lo, val, (size_t)(dash - val));
	lo[dash - val] = 0;
	if (cli_dec(lo, 65535, &a) < 0 || cli_dec(dash + 1, 65535, &b) < 0 || !a || a > b ||
	    b - a + 1 > TN_MAX_SPORTS)
		return cli_usage("--src-ports: MIN-MAX, 1 <= MIN <= MAX <= 65535, at most %d ports",
				 TN_MAX_SPORTS);
	o->sport_min = (unsigned)a;
	o->sport_max = (unsigned)b;
	return 0;
}

enum { O_TUN = 0x100, O_LOCAL, O_REMOTE, O_OFFLOAD, O_MTU, O_QUEUES, O_INTERVAL,
       O_TXQLEN, O_DURATION, O_ENCAP, O_VNI, O_INNER, O_SPORTS, O_UDPCSUM, O_HOLD,
       O_RUNT };

/* checks between options; defaults that depend on others */
static int
check_opts(struct tn_opts *o, int have_l, int have_vni)
{
	unsigned i;

	if (!o->tun || !have_l || !o->nremotes)
		return cli_usage("--tun, --local and --remote are required");
	for (i = 0; i < o->nremotes; i++)
		if (o->local.ss_family != o->remote[i].ss_family)
			return cli_usage("--local and --remote must be both IPv4 or both IPv6");
	if (o->encap == TN_ENCAP_IP) {
		if (o->nremotes > 1)
			return cli_usage("--encap ip: one --remote");
		if (have_vni || o->trust_inner || o->sport_min)
			return cli_usage("--vni, --src-ports and --trust-inner are for vxlan and geneve");
	} else {
		if (!have_vni)
			return cli_usage("--encap %s: --vni is required", tn_encap_names[o->encap]);
		if (o->queues > 1)
			return cli_usage("--queues: --encap ip only");
		if (o->verify_inner && o->trust_inner)
			return cli_usage("--verify-inner and --trust-inner exclude each other");
		if (o->encap == TN_ENCAP_VXLAN && !o->inner_eth)
			return cli_usage("--inner ip: geneve only (VXLAN carries Ethernet)");
		if (!o->sport_min) {
			o->sport_min = 49152;
			o->sport_max = 49167;
		}
	}
	if (addr_port(&o->local) + o->queues - 1 > 65535 ||
	    addr_port(&o->remote[0]) + o->queues - 1 > 65535 ||
	    (o->queues > 1 && (!addr_port(&o->local) || !addr_port(&o->remote[0]))))
		return cli_usage("--queues %u: ports PORT..PORT+%u must exist (and not be 0)",
				 o->queues, o->queues - 1);
	if (!o->mtu) {
		/* a 1500-byte underlay; Geneve with IP inside: its 8-byte
		 * header in front of the inner packet, no Ethernet */
		enum sofl_tun_encap e = o->encap == TN_ENCAP_IP || !o->inner_eth ?
					SOFL_TUN_ENCAP_UDP : o->encap == TN_ENCAP_VXLAN ?
					SOFL_TUN_ENCAP_VXLAN : SOFL_TUN_ENCAP_GENEVE;
		uint32_t head = o->encap != TN_ENCAP_IP && !o->inner_eth ? TN_GENEVE_HLEN : 0;
		int err = sofl_tun_inner_mtu(1500, o->remote[0].ss_family, e, head, 0, &o->mtu);

		if (err < 0)
			return cli_lib_error(err, "--mtu: default"), 2;
	}
	return 0;
}

static int
parse_opts(int argc, char **argv, struct tn_opts *o)
{
	const struct option lopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, &o->json, 1 },
		{ "verify-inner", no_argument, &o->verify_inner, 1 },
		{ "trust-inner", no_argument, &o->trust_inner, 1 },
		{ "tun", required_argument, NULL, O_TUN },
		{ "local", required_argument, NULL, O_LOCAL },
		{ "remote", required_argument, NULL, O_REMOTE },
		{ "offload", required_argument, NULL, O_OFFLOAD },
		{ "mtu", required_argument, NULL, O_MTU },
		{ "queues", required_argument, NULL, O_QUEUES },
		{ "stats-interval", required_argument, NULL, O_INTERVAL },
		{ "txqueuelen", required_argument, NULL, O_TXQLEN },
		{ "duration", required_argument, NULL, O_DURATION },
		{ "encap", required_argument, NULL, O_ENCAP },
		{ "vni", required_argument, NULL, O_VNI },
		{ "inner", required_argument, NULL, O_INNER },
		{ "src-ports", required_argument, NULL, O_SPORTS },
		{ "udp-csum", required_argument, NULL, O_UDPCSUM },
		{ "gro-flush-timeout", required_argument, NULL, O_HOLD },
		{ "runt-drop", required_argument, NULL, O_RUNT },
		{ NULL, 0, NULL, 0 }
	};
	const struct cli_num nums[] = {
		{ O_QUEUES, "--queues", 1, TN_MAX_QUEUES, &o->queues },
		{ O_INTERVAL, "--stats-interval", 0, 86400, &o->interval },
		{ O_TXQLEN, "--txqueuelen", 1, 1 << 20, &o->txqlen },
		{ O_DURATION, "--duration", 0, 86400 * 365, &o->duration },
		{ O_HOLD, "--gro-flush-timeout", 0, SOFL_PORT_FLUSH_TIMEOUT_MAX, &o->hold_us },
	};
	long long v;
	int c, have_l = 0, have_vni = 0, err;

	memset(o, 0, sizeof(*o));
	o->queues = 1;
	o->txqlen = 5000;
	o->hold_us = TN_HOLD_US;
	o->inner_eth = 1;
	o->udp_csum = 1;
	o->runt_kernel = 1;
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
			if (o->nremotes == TN_MAX_REMOTES)
				return cli_usage("--remote: at most %d", TN_MAX_REMOTES);
			if ((err = parse_addr("--remote", val, &o->remote[o->nremotes],
					      &o->remote_len)))
				return err;
			o->nremotes++;
			break;
		case O_OFFLOAD:
			if ((err = parse_word("--offload", val, tn_mode_names, 4, &o->mode)))
				return err;
			break;
		case O_ENCAP:
			if ((err = parse_word("--encap", val, tn_encap_names, 3, &o->encap)))
				return err;
			break;
		case O_INNER:
			if ((err = parse_word("--inner", val, inner_names, 2, &o->inner_eth)))
				return err;
			break;
		case O_UDPCSUM:
			if ((err = parse_word("--udp-csum", val, onoff, 2, &o->udp_csum)))
				return err;
			break;
		case O_RUNT:
			if ((err = parse_word("--runt-drop", val, runt_names, 2, &o->runt_kernel)))
				return err;
			break;
		case O_VNI:
			if ((v = cli_uint("--vni", val, 0xffffff)) < 0)
				return 2;
			o->vni = (uint32_t)v;
			have_vni = 1;
			break;
		case O_SPORTS:
			if ((err = parse_ports(val, o)))
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
	return check_opts(o, have_l, have_vni);
}

/* ---- set-up ---- */

static int
open_tun(const struct tn_opts *o, struct tn_worker *w)
{
	struct sofl_tun_config c;
	int err;

	sofl_tun_config_init(&c);
	c.name = o->tun;
	c.multi_queue = o->queues > 1;
	c.rss = o->queues > 1 || o->encap != TN_ENCAP_IP ? rss : NULL;
	if (o->encap != TN_ENCAP_IP) {
		c.tap = o->inner_eth;
		c.headroom = TN_VXLAN_HLEN;	/* = TN_GENEVE_HLEN */
	}
	switch (o->mode) {
	case MODE_OFF:
		c.vnet_hdr = 0;
		c.rx_reads = 64;	/* no offload, but up to 64 read()s per wake-up */
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
	/* held sends (--gro-flush-timeout) where writes to the TUN coalesce;
	 * a port that does not (no virtio header) says SOFL_E_NOTSUP */
	if ((o->mode == MODE_ON || o->mode == MODE_GRO) && o->hold_us &&
	    (err = sofl_port_set_flush_timeout(w->tun, o->hold_us)) < 0 && err != SOFL_E_NOTSUP) {
		cli_lib_error(err, "--gro-flush-timeout %u", o->hold_us);
		return -1;
	}
	return 0;
}

static void
udp_mode(const struct tn_opts *o, struct sofl_udp_config *c)
{
	c->sndbuf = 4 << 20;
	c->rcvbuf = 16 << 20;
	switch (o->mode) {
	case MODE_OFF:
		c->gso = c->gro = 0;
		c->rx_batch = 64;	/* recvmmsg() and sendmmsg(), one datagram a packet */
		c->rx_buf = 65536;
		break;
	case MODE_GSO:
		c->gro = 0;
		break;
	case MODE_GRO:
		c->gso = 0;
		break;
	}
}

/* the outer checksum off (Linux: SO_NO_CHECK for IPv4, UDP_NO_CHECK6_TX and
 * _RX for IPv6) */
static int
csum_off(const struct tn_opts *o, int fd, int tx)
{
	int one = 1;

	if (o->local.ss_family == AF_INET)
		return tx ? setsockopt(fd, SOL_SOCKET, SO_NO_CHECK, &one, sizeof(one)) : 0;
	return setsockopt(fd, IPPROTO_UDP, tx ? UDP_NO_CHECK6_TX : UDP_NO_CHECK6_RX, &one,
			  sizeof(one));
}

/* VXLAN/Geneve: the bytes of a datagram before its inner IP packet (the
 * tunnel header, options aside, then the inner Ethernet header if any;
 * VXLAN's and Geneve's are the same size) */
static unsigned
tn_inner_off(const struct tn_opts *o)
{
	return TN_VXLAN_HLEN + (o->inner_eth ? 14 : 0);
}

/* VXLAN/Geneve: the receiving socket on --local, one sending socket per
 * outer source port */
static int
open_udp_encap(const struct tn_opts *o, struct tn_worker *w)
{
	struct sofl_udp_config c;
	struct sockaddr_storage local = o->local;
	unsigned i;
	int err;

	sofl_udp_config_init(&c);
	udp_mode(o, &c);
	c.local = (const struct sockaddr *)&o->local;
	c.local_len = o->local_len;
	c.gso = 0;
	/* shorter than the tunnel header and the inner Ethernet (or IP)
	 * header: dropped as runts by the port, before a packet slot or a
	 * header check (a flood of them costs the receive and a compare) */
	c.min_len = tn_inner_off(o) + (o->inner_eth ? 0 : 20);
	c.min_len_kernel = o->runt_kernel && addr_specific(&o->local);
	if ((err = sofl_udp_open(&c, &w->udp)) < 0)
		return cli_lib_error(err, "--local"), -1;
	if (!o->udp_csum && csum_off(o, sofl_port_fd(w->udp), 0) < 0)
		return cli_error("--udp-csum off: %s", strerror(errno)), -1;
	w->ntx = o->sport_max - o->sport_min + 1;
	if (!(w->tx = calloc(w->ntx, sizeof(*w->tx))))
		return cli_error("out of memory"), -1;
	for (i = 0; i < w->ntx; i++) {
		sofl_udp_config_init(&c);
		udp_mode(o, &c);
		set_port(&local, o->sport_min + i);
		c.local = (const struct sockaddr *)&local;
		c.local_len = o->local_len;
		c.remote = (const struct sockaddr *)&o->remote[0];
		c.remote_len = o->remote_len;
		c.gro = 0;
		c.rcvbuf = 0;
		c.rx_batch = 1;
		c.rx_buf = 64;
		if (!o->udp_csum)
			c.gso = 0;	/* udp_send_skb(): no UDP_SEGMENT without a checksum */
		if ((err = sofl_udp_open(&c, &w->tx[i])) < 0)
			return cli_lib_error(err, "--src-ports: port %u", o->sport_min + i), -1;
		if (!o->udp_csum && csum_off(o, sofl_port_fd(w->tx[i]), 1) < 0)
			return cli_error("--udp-csum off: %s", strerror(errno)), -1;
	}
	w->rule.encap = o->encap;
	w->rule.inner_eth = o->inner_eth;
	w->trust = o->trust_inner;
	w->trust_gro = !o->verify_inner;
	w->rule.vni = o->vni;
	if (!(w->out = calloc((size_t)TN_MAX_BATCH * o->nremotes + o->nremotes, sizeof(*w->out))))
		return cli_error("out of memory"), -1;
	if (o->nremotes > 1 && o->inner_eth && !(w->macs = calloc(1, sizeof(*w->macs))))
		return cli_error("out of memory"), -1;
	return 0;
}

static int
open_udp(const struct tn_opts *o, struct tn_worker *w)
{
	struct sofl_udp_config c;
	struct sockaddr_storage local = o->local;
	unsigned i;
	int err;

	if (o->encap != TN_ENCAP_IP)
		err = open_udp_encap(o, w);
	else {
		sofl_udp_config_init(&c);
		set_port(&local, addr_port(&o->local) + (o->queues > 1 ? w->idx : 0));
		w->dst = calloc(o->queues, sizeof(*w->dst));
		if (!w->dst)
			return cli_error("out of memory"), -1;
		for (i = 0; i < o->queues; i++) {
			w->dst[i] = o->remote[0];
			set_port(&w->dst[i], addr_port(&o->remote[0]) + i);
		}
		c.local = (const struct sockaddr *)&local;
		c.local_len = o->local_len;
		c.remote = (const struct sockaddr *)&w->dst[o->queues > 1 ? w->idx : 0];
		c.remote_len = o->remote_len;
		c.connect = o->queues == 1;
		c.peer_only = 1;
		udp_mode(o, &c);
		if ((err = sofl_udp_open(&c, &w->udp)) < 0) {
			cli_lib_error(err, "--local/--remote (queue %u)", w->idx);
			return -1;
		}
		w->rule.encap = TN_ENCAP_IP;
	}
	return err;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- the TUN/TAP's super-packet size ----
 *
 * One UDP_SEGMENT send carries at most 65535 bytes of IP packet: 65507
 * bytes of UDP payload over IPv4, 65527 over IPv6 (udp_send_skb() refuses
 * more).  A 64 KB TCP super-packet of the TUN/TAP cut into datagrams of
 * the inner MTU plus the tunnel's headers does not fit (46 x 1472 bytes at
 * MTU 1450 over VXLAN) and goes out as two sends, the second of one or two
 * datagrams.  Capping the device's gso_max_segs at what fits makes the
 * kernel's TCP build super-packets of that many segments at most
 * (tcp_tso_autosize(), tcp_xmit_size_goal(): sk_gso_max_segs comes from the
 * device), so that each is one send. */

/* VXLAN/Geneve: the datagrams of MTU + headers one UDP_SEGMENT send holds */
static unsigned
tn_gso_segs(const struct tn_opts *o)
{
	unsigned max = o->remote[0].ss_family == AF_INET6 ? 65527 : 65507;

	return max / (o->mtu + tn_inner_off(o));
}

/* IFLA_GSO_MAX_SEGS of @name by rtnetlink.  @return 0 or an errno */
static int
set_gso_max_segs(const char *name, unsigned segs)
{
	struct {
		struct nlmsghdr n;
		struct ifinfomsg i;
		struct rtattr a;
		uint32_t v;
	} req;
	struct {
		struct nlmsghdr n;
		struct nlmsgerr e;
		char more[64];
	} ack;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	unsigned idx = if_nametoindex(name);
	ssize_t r;
	int fd, e;

	if (!idx)
		return errno;
	memset(&req, 0, sizeof(req));
	req.n.nlmsg_len = sizeof(req);
	req.n.nlmsg_type = RTM_NEWLINK;
	req.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.n.nlmsg_seq = 1;
	req.i.ifi_family = AF_UNSPEC;
	req.i.ifi_index = (int)idx;
	req.a.rta_type = IFLA_GSO_MAX_SEGS;
	req.a.rta_len = RTA_LENGTH(sizeof(req.v));
	req.v = segs;
	if ((fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE)) < 0)
		return errno;
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		e = errno;
		close(fd);
		return e;
	}
	r = recv(fd, &ack, sizeof(ack), 0);
	e = r < 0 ? errno : 0;
	close(fd);
	if (r < 0)
		return e;
	if ((size_t)r < sizeof(ack.n) + sizeof(ack.e) || ack.n.nlmsg_type != NLMSG_ERROR)
		return EPROTO;
	return -ack.e.error;
}

/* ---- main ---- */

static int
setup(struct tn_worker *ws, const struct tn_opts *o)
{
	struct sofl_rss_config rcfg;
	unsigned i;
	int err;

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
	/* not fatal: an existing interface the user configured may refuse */
	if ((err = sofl_tun_set_mtu(ws[0].tun, o->mtu)) < 0)
		cli_lib_error(err, "tunnel: cannot set the MTU of %s to %u", o->tun, o->mtu);
	if ((err = sofl_tun_set_txqueuelen(ws[0].tun, o->txqlen)) < 0)
		cli_lib_error(err, "tunnel: cannot set the queue length of %s to %u", o->tun,
			      o->txqlen);
	/* VXLAN/Geneve, where the TUN/TAP hands over super-packets (--offload
	 * on|gso); not --encap ip, where one locked run measured no gain */
	if (o->encap != TN_ENCAP_IP && (o->mode == MODE_ON || o->mode == MODE_GSO) &&
	    tn_gso_segs(o) < 64 &&
	    (err = set_gso_max_segs(o->tun, tn_gso_segs(o))) != 0)
		cli_error("tunnel: cannot set gso_max_segs of %s to %u (super-packets "
			  "then go out in two sends): %s", o->tun, tn_gso_segs(o), strerror(err));
	return 0;
}

static void
teardown(struct tn_worker *ws, const struct tn_opts *o)
{
	unsigned i, k;

	for (i = 0; i < o->queues; i++) {
		sofl_port_close(ws[i].tun);
		sofl_port_close(ws[i].udp);
		for (k = 0; ws[i].tx && k < ws[i].ntx; k++)
			sofl_port_close(ws[i].tx[k]);
		free(ws[i].tx);
		free(ws[i].out);
		free(ws[i].macs);
		free(ws[i].dst);
	}
	free(ws);
	sofl_rss_destroy(rss);	/* after the ports that refer to it */
	rss = NULL;
}

static int
run(struct tn_worker *ws, const struct tn_opts *o)
{
	double t0 = now_s(), next = t0 + o->interval;
	sigset_t all, old;
	unsigned i;
	int failed = 0, out_err = 0;	/* out_err: the counters could not be written */

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (i = 0; i < o->queues; i++) {
		if (pthread_create(&ws[i].th, NULL, tn_worker_main, &ws[i]) != 0) {
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
				out_err = tn_report(ws, o, t - t0, 0);
			next += o->interval;
		}
	}
	for (i = 0; i < o->queues; i++)
		if (ws[i].started) {
			pthread_join(ws[i].th, NULL);
			failed |= ws[i].failed;
		}
	if (!out_err)
		out_err = tn_report(ws, o, now_s() - t0, 1);
	return failed ? 1 : out_err;
}

int
cmd_tunnel(int argc, char **argv)
{
	struct tn_worker *ws;
	struct tn_opts o;
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
