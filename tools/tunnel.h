/* softoffload tunnel: what its files share (cmd_tunnel.c options and
 * set-up, tunnel_path.c the two directions, tunnel_stats.c the counters). */
#ifndef SOFL_TOOLS_TUNNEL_H
#define SOFL_TOOLS_TUNNEL_H

#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>
#include "softoffload/port.h"
#include "tunnel_hdr.h"

#define TN_MAX_QUEUES  64
#define TN_MAX_BATCH   4096
#define TN_MAX_REMOTES 16
#define TN_MAX_SPORTS  256
/* --gro-flush-timeout default, microseconds: the relay's (a burst read in
 * pieces on a loaded 2-core host still joined with 1000, not with 200) */
#define TN_HOLD_US     1000

enum tn_mode { MODE_ON, MODE_OFF, MODE_GSO, MODE_GRO };
extern const char *const tn_mode_names[4];
extern const char *const tn_encap_names[3];

struct tn_opts {
	const char *tun;
	struct sockaddr_storage local, remote[TN_MAX_REMOTES];
	socklen_t local_len, remote_len;
	unsigned nremotes;
	int mode, json, verify_inner, trust_inner, encap, inner_eth, udp_csum;
	int runt_kernel;		/* --runt-drop kernel (VXLAN/Geneve) */
	uint32_t vni;
	unsigned sport_min, sport_max;	/* Ethernet encaps: outer source ports [min, max] */
	unsigned mtu, queues, interval, duration, txqlen;
	uint32_t hold_us;		/* --gro-flush-timeout */
};

struct tn_worker {
	unsigned idx;
	const struct tn_opts *o;
	struct sofl_port *tun, *udp;
	struct sofl_port **tx;		/* VXLAN/Geneve: one send socket per source port */
	unsigned ntx;
	pthread_t th;
	int started, failed;
	struct sockaddr_storage *dst;	/* the peer's N ports */
	struct tn_rx_rule rule;
	int trust;			/* inner checksums covered by the outer one */
	int trust_gro;			/* ... in coalesced receives (SOFL_PORT_PKT_F_UDP_CSUM) */
	struct tn_mac_table *macs;	/* VXLAN/Geneve with several remotes */
	struct sofl_port_pkt in[TN_MAX_BATCH];
	struct sofl_port_pkt *out;	/* TN_MAX_BATCH * nremotes (flooding) */
	uint64_t drop[TN_DROP__MAX];	/* relaxed atomic stores */
	uint64_t steered;		/* packets sent to another worker's peer port */
	uint64_t flooded;		/* packets sent to every remote (MAC unknown or group) */
	uint64_t macs_learned;
};

/* tunnel_path.c */
void *tn_worker_main(void *arg);

/* tunnel_stats.c: @return 0, or 2 having printed the write error */
int tn_report(struct tn_worker *ws, const struct tn_opts *o, double secs, int final);

#endif
