/* Shared test helpers: packet builders (one place, no copy-pasted byte arrays)
 * and small assertions.  Used by every tests/test_*.c and by bench/ and fuzz/
 * seed generation.  Exit codes: PASS 0, FAIL 1, SKIP 77. */
#ifndef SOFL_TEST_HELPERS_H
#define SOFL_TEST_HELPERS_H

#include <stddef.h>
#include <stdint.h>
#include "softoffload/softoffload.h"

#define T_SKIP 77

struct t_ext {			/* one IPv6 extension header */
	uint8_t type;		/* 0 HBH, 43 routing, 60 dest opts, 44 fragment */
	uint8_t len;		/* total bytes, multiple of 8 (fragment: 8) */
	uint8_t fill;		/* option data byte (HBH/DstOpts PadN contents) */
	uint16_t frag_off;	/* fragment: offset in 8-byte units */
	uint8_t frag_mf;	/* fragment: more-fragments */
};

struct t_spec {
	int link;		/* SOFL_LINK_ETH (default) or SOFL_LINK_RAW */
	int ipv;		/* 4 or 6 */
	int proto;		/* 6 TCP, 17 UDP, or another (no L4 header written) */
	uint8_t src[16], dst[16];	/* defaults 198.18.0.1 -> 198.18.0.2, 2001:2::1 -> 2001:2::2 */
	uint8_t mac_dst[6], mac_src[6];
	int nvlan;
	uint16_t vlan_tci[2];
	uint16_t vlan_tpid[2];	/* default 0x8100 */
	/* IPv4 */
	uint8_t ttl, tos;	/* IPv6: hop limit, traffic class */
	uint16_t ip_id;
	int df;			/* default 1 */
	uint16_t frag;		/* extra frag_off bits (MF 0x2000, offset, reserved 0x8000) */
	const uint8_t *ip_opts;	/* IPv4 options, multiple of 4 bytes */
	size_t ip_opts_len;
	/* IPv6 */
	uint32_t flow_label;
	struct t_ext ext[4];
	int n_ext;
	/* TCP/UDP */
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;		/* default ACK */
	uint16_t win;		/* default 65535 */
	uint16_t urg;
	const uint8_t *tcp_opts;	/* multiple of 4 bytes */
	size_t tcp_opts_len;
	/* payload: byte i = (pay_seed + pay_off + i) & 0xff */
	size_t pay_len;
	uint32_t pay_off;
	uint8_t pay_seed;
	/* checksums: T_CSUM_FULL (default), T_CSUM_ZERO, T_CSUM_PARTIAL */
	int csum;
	int udp_zero_csum;	/* UDP: store 0 (IPv4 "no checksum") */
	uint16_t l3_len_delta;	/* added to tot_len / payload_len (malformed tests) */
	size_t eth_pad;		/* bytes of Ethernet padding after the IP packet */
};
#define T_CSUM_FULL    0
#define T_CSUM_ZERO    1
#define T_CSUM_PARTIAL 2

/* Fill *s with defaults for @ipv (4/6) and @proto (6/17). */
void t_spec_init(struct t_spec *s, int ipv, int proto);
/* Build the packet into buf (cap bytes). @return its length; aborts if it doesn't fit. */
size_t t_build(uint8_t *buf, size_t cap, const struct t_spec *s);
/* Standard TCP option blocks */
extern const uint8_t t_opt_ts[12];	/* NOP NOP TS(10) tsval=1 tsecr=2 */
void t_opt_ts_set(uint8_t opt[12], uint32_t tsval, uint32_t tsecr);

/* Deterministic PRNG (splitmix64). */
uint64_t t_rand(uint64_t *state);
/* Print a hex dump of a buffer to stderr (for failures). */
void t_hexdump(const char *what, const void *buf, size_t len);

/* Build an Ethernet ARP request (with s->nvlan VLAN tags) from s->mac_src to
 * broadcast, asking for s->dst from s->src (IPv4 addresses).  A non-IP frame
 * for the parser and the CLI.  @return its length (42 + 4 * nvlan). */
size_t t_build_arp(uint8_t *buf, size_t cap, const struct t_spec *s);

#endif
