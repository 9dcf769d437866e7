/* Description: the L2 <-> L3 adapter (softoffload/l2.h): an ARP reply checked byte for byte against a frame built here by RFC 826's layout, neighbour advertisements (solicited and DAD) field by field with their ICMPv6 checksum verified by sofl_csum_* calls, strip/add round trips of IPv4 and IPv6 frames with the virtio header's csum_start/hdr_len moved, every malformed case counted under its reason, every truncation of valid frames counted once, the address-miss callback, the batch calls, configuration errors and the statistics' size rule. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "softoffload/l2.h"
#include "softoffload/csum.h"

static const uint8_t MY_MAC[6] = { 0x02, 0x53, 0x4f, 0x46, 0x4c, 0x01 };
static const uint8_t PEER_MAC[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
static const uint8_t MY_V4[4] = { 198, 18, 7, 2 };
static const uint8_t PEER_V4[4] = { 198, 18, 7, 1 };
static const uint8_t MY_V6[16] = { 0x20, 0x01, 0x00, 0x02, 0x00, 0x07, [15] = 0x02 };
static const uint8_t PEER_V6[16] = { 0xfe, 0x80, [8] = 0x50, [15] = 0x01 };

static struct sofl_l2 *
mk(void)
{
	struct sofl_l2_config c;
	struct sofl_l2 *l2 = (struct sofl_l2 *)1;

	sofl_l2_config_init(&c);
	memcpy(c.mac, MY_MAC, 6);
	memcpy(c.ipv4[0], MY_V4, 4);
	c.n_ipv4 = 1;
	memcpy(c.ipv6[0], MY_V6, 16);
	c.n_ipv6 = 1;
	assert_int_equal(sofl_l2_create(&c, &l2), 0);
	assert_non_null(l2);
	return l2;
}

static struct sofl_l2_stats
stats(const struct sofl_l2 *l2)
{
	struct sofl_l2_stats s;

	assert_int_equal(sofl_l2_get_stats(l2, &s, sizeof(s)), 0);
	return s;
}

/* Every frame given to the adapter is accounted for exactly once. */
static void
assert_balanced(const struct sofl_l2 *l2)
{
	struct sofl_l2_stats s = stats(l2);
	uint64_t sum = s.ip_out + s.arp_replies + s.nd_adverts, isum = s.eth_out;
	int i;

	for (i = 0; i < SOFL_L2_DROP__MAX; i++) {
		sum += s.eth_drop[i];
		isum += s.ip_drop[i];
	}
	assert_int_equal(sum, s.eth_in);
	assert_int_equal(isum, s.ip_in);
}

/* A received packet of one piece */
static void
pkt1(struct sofl_port_pkt *p, struct iovec *v, uint8_t *buf, size_t len)
{
	memset(p, 0, sizeof(*p));
	v->iov_base = buf;
	v->iov_len = len;
	p->iov = v;
	p->iovcnt = 1;
	p->len = (uint32_t)len;
}

static void
put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

/* RFC 826 request: who has @tpa, tell @spa (@sha) */
static size_t
arp_request(uint8_t *f, const uint8_t *sha, const uint8_t *spa, const uint8_t *tpa)
{
	memset(f, 0xff, 6);			/* broadcast */
	memcpy(f + 6, sha, 6);
	put16(f + 12, 0x0806);
	put16(f + 14, 1);			/* ar$hrd: Ethernet */
	put16(f + 16, 0x0800);			/* ar$pro: IP */
	f[18] = 6;				/* ar$hln */
	f[19] = 4;				/* ar$pln */
	put16(f + 20, 1);			/* ar$op: REQUEST */
	memcpy(f + 22, sha, 6);			/* ar$sha */
	memcpy(f + 28, spa, 4);			/* ar$spa */
	memset(f + 32, 0, 6);			/* ar$tha: unknown */
	memcpy(f + 38, tpa, 4);			/* ar$tpa */
	return 42;
}

/* ICMPv6 checksum of @msg (@len bytes, checksum field at +2) from @src to @dst */
static uint16_t
icmp6_csum(const uint8_t *src, const uint8_t *dst, uint8_t *msg, size_t len)
{
	msg[2] = msg[3] = 0;
	return (uint16_t)~sofl_csum_fold(sofl_csum_add(sofl_csum_pseudo_v6(src, dst, 58, (uint32_t)len),
						       msg, len));
}

/* RFC 4861 4.3 neighbour solicitation for @target from @src (NULL: DAD,
 * from ::, no source link-layer option), options after it. */
static size_t
ns_frame(uint8_t *f, const uint8_t *src, const uint8_t *target)
{
	static const uint8_t unspec[16];
	uint8_t *ip = f + 14, *ns = ip + 40;
	size_t plen = src ? 32 : 24;

	memset(f, 0, 14 + 40 + plen);
	f[0] = 0x33;
	f[1] = 0x33;
	f[2] = 0xff;
	memcpy(f + 3, target + 13, 3);
	memcpy(f + 6, PEER_MAC, 6);
	put16(f + 12, 0x86dd);
	ip[0] = 0x60;
	put16(ip + 4, (uint16_t)plen);
	ip[6] = 58;
	ip[7] = 255;
	memcpy(ip + 8, src ? src : unspec, 16);
	ip[24] = 0xff;				/* ff02::1:ffXX:XXXX */
	ip[25] = 0x02;
	ip[35] = 0x01;
	ip[36] = 0xff;
	memcpy(ip + 37, target + 13, 3);
	ns[0] = 135;
	memcpy(ns + 8, target, 16);
	if (src) {
		ns[24] = 1;			/* source link-layer address */
		ns[25] = 1;
		memcpy(ns + 26, PEER_MAC, 6);
	}
	put16(ns + 2, icmp6_csum(ip + 8, ip + 24, ns, plen));
	return 14 + 40 + plen;
}

/* Ethernet + IPv4 + TCP header + @pay payload bytes from the peer to us */
static size_t
ip4_frame(uint8_t *f, size_t pay)
{
	uint8_t *ip = f + 14;
	size_t i;

	memcpy(f, MY_MAC, 6);
	memcpy(f + 6, PEER_MAC, 6);
	put16(f + 12, 0x0800);
	memset(ip, 0, 40);
	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)(40 + pay));
	ip[8] = 64;
	ip[9] = 6;
	memcpy(ip + 12, PEER_V4, 4);
	memcpy(ip + 16, MY_V4, 4);
	ip[32] = 0x50;
	for (i = 0; i < pay; i++)
		ip[40 + i] = (uint8_t)(i * 7 + 1);
	return 14 + 40 + pay;
}

static size_t
ip6_frame(uint8_t *f, size_t pay)
{
	uint8_t *ip = f + 14;
	size_t i;

	memcpy(f, MY_MAC, 6);
	memcpy(f + 6, PEER_MAC, 6);
	put16(f + 12, 0x86dd);
	memset(ip, 0, 60);
	ip[0] = 0x60;
	put16(ip + 4, (uint16_t)(20 + pay));
	ip[6] = 6;
	ip[7] = 64;
	memcpy(ip + 8, PEER_V6, 16);
	memcpy(ip + 24, MY_V6, 16);
	ip[52] = 0x50;
	for (i = 0; i < pay; i++)
		ip[60 + i] = (uint8_t)(i * 3 + 5);
	return 14 + 60 + pay;
}

static int
eth_in(struct sofl_l2 *l2, uint8_t *buf, size_t len, struct sofl_l2_reply *r)
{
	struct sofl_port_pkt p;
	struct iovec v;

	pkt1(&p, &v, buf, len);
	return sofl_l2_eth_to_ip(l2, &p, r);
}

/* ---- tests ---- */

static void
create_errors(void **state)
{
	struct sofl_l2_config c;
	struct sofl_l2 *l2 = (struct sofl_l2 *)1;

	(void)state;
	assert_int_equal(sofl_l2_create(NULL, &l2), SOFL_E_INVAL);
	assert_null(l2);
	sofl_l2_config_init(&c);
	assert_int_equal(sofl_l2_create(&c, NULL), SOFL_E_INVAL);
	l2 = (struct sofl_l2 *)1;
	assert_int_equal(sofl_l2_create(&c, &l2), SOFL_E_CFG_ADDR);	/* no MAC */
	assert_null(l2);
	memcpy(c.mac, MY_MAC, 6);
	c.mac[0] |= 1;
	assert_int_equal(sofl_l2_create(&c, &l2), SOFL_E_CFG_ADDR);	/* multicast */
	memcpy(c.mac, MY_MAC, 6);
	c.n_ipv4 = SOFL_L2_ADDRS_MAX + 1;
	assert_int_equal(sofl_l2_create(&c, &l2), SOFL_E_CFG_ADDR);
	c.n_ipv4 = 0;
	c.n_ipv6 = SOFL_L2_ADDRS_MAX + 1;
	assert_int_equal(sofl_l2_create(&c, &l2), SOFL_E_CFG_ADDR);
	c.n_ipv6 = 0;
	c.size = 4;
	assert_int_equal(sofl_l2_create(&c, &l2), SOFL_E_CFG_SIZE);
	assert_null(l2);
	c.size = sizeof(c);
	assert_int_equal(sofl_l2_create(&c, &l2), 0);
	assert_int_equal(sofl_l2_set_addrs(l2, NULL, 1, NULL, 0), SOFL_E_INVAL);
	assert_int_equal(sofl_l2_set_addrs(l2, MY_V4, SOFL_L2_ADDRS_MAX + 1, NULL, 0), SOFL_E_INVAL);
	assert_int_equal(sofl_l2_set_addrs(NULL, NULL, 0, NULL, 0), SOFL_E_INVAL);
	assert_int_equal(sofl_l2_set_peer(l2, (const uint8_t[6]){ 1, 0, 0, 0, 0, 1 }), SOFL_E_INVAL);
	assert_int_equal(sofl_l2_eth_to_ip(l2, NULL, NULL), SOFL_E_INVAL);
	assert_int_equal(sofl_l2_ip_to_eth(NULL, NULL), SOFL_E_INVAL);
	assert_int_equal(sofl_l2_eth_to_ip_batch(l2, NULL, 1, NULL, NULL), SOFL_E_INVAL);
	assert_int_equal(sofl_l2_ip_to_eth_batch(l2, NULL, 1), SOFL_E_INVAL);
	assert_int_equal(sofl_l2_get_stats(l2, NULL, 8), SOFL_E_INVAL);
	assert_int_equal(sofl_l2_reset_stats(NULL), SOFL_E_INVAL);
	sofl_l2_destroy(l2);
	sofl_l2_destroy(NULL);
	assert_string_equal(sofl_l2_drop_name(SOFL_L2_DROP_NS_CSUM), "ns-csum");
	assert_string_equal(sofl_l2_drop_name((enum sofl_l2_drop)(SOFL_L2_DROP__MAX - 1)), "?");
	assert_string_equal(sofl_l2_drop_name((enum sofl_l2_drop)-1), "?");
}

static void
arp_reply_bytes(void **state)
{
	struct sofl_l2 *l2 = mk();
	struct sofl_l2_reply r;
	uint8_t f[60], orig[60], want[42];

	(void)state;
	memset(f, 0, sizeof(f));
	arp_request(f, PEER_MAC, PEER_V4, MY_V4);
	memcpy(orig, f, sizeof(f));
	/* the expected reply, by RFC 826's layout */
	memcpy(want, PEER_MAC, 6);		/* to the asker */
	memcpy(want + 6, MY_MAC, 6);
	want[12] = 0x08; want[13] = 0x06;
	want[14] = 0x00; want[15] = 0x01;	/* ar$hrd */
	want[16] = 0x08; want[17] = 0x00;	/* ar$pro */
	want[18] = 6; want[19] = 4;
	want[20] = 0x00; want[21] = 0x02;	/* ar$op: REPLY */
	memcpy(want + 22, MY_MAC, 6);		/* ar$sha: the answer */
	memcpy(want + 28, MY_V4, 4);		/* ar$spa */
	memcpy(want + 32, PEER_MAC, 6);		/* ar$tha */
	memcpy(want + 38, PEER_V4, 4);		/* ar$tpa */
	assert_int_equal(eth_in(l2, f, 42, &r), SOFL_L2_REPLY);
	assert_int_equal(r.len, 42);
	assert_memory_equal(r.frame, want, 42);
	assert_memory_equal(f, orig, sizeof(f));	/* the request untouched */
	/* padded to the Ethernet minimum: the same reply */
	memset(&r, 0, sizeof(r));
	assert_int_equal(eth_in(l2, f, 60, &r), SOFL_L2_REPLY);
	assert_int_equal(r.len, 42);
	assert_memory_equal(r.frame, want, 42);
	assert_int_equal(stats(l2).arp_replies, 2);
	assert_balanced(l2);
	sofl_l2_destroy(l2);
}

static void
arp_malformed(void **state)
{
	static const struct { size_t off; uint8_t val; enum sofl_l2_drop why; } c[] = {
		{ 15, 6, SOFL_L2_DROP_ARP_MALFORMED },		/* hrd 6 */
		{ 16, 0x86, SOFL_L2_DROP_ARP_MALFORMED },	/* pro */
		{ 18, 8, SOFL_L2_DROP_ARP_MALFORMED },		/* hln */
		{ 19, 16, SOFL_L2_DROP_ARP_MALFORMED },		/* pln */
		{ 21, 2, SOFL_L2_DROP_ARP_NOT_REQUEST },	/* a reply */
		{ 21, 3, SOFL_L2_DROP_ARP_NOT_REQUEST },	/* RARP */
		{ 41, 9, SOFL_L2_DROP_ARP_NOT_MINE },		/* another tpa */
	};
	struct sofl_l2 *l2 = mk();
	struct sofl_l2_reply r;
	struct sofl_l2_stats s;
	uint8_t f[42];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		arp_request(f, PEER_MAC, PEER_V4, MY_V4);
		f[c[i].off] = c[i].val;
		assert_int_equal(sofl_l2_reset_stats(l2), 0);
		assert_int_equal(eth_in(l2, f, sizeof(f), &r), SOFL_L2_DROP);
		s = stats(l2);
		assert_int_equal(s.eth_drop[c[i].why], 1);
		assert_int_equal(s.arp_replies, 0);
		assert_balanced(l2);
	}
	arp_request(f, PEER_MAC, PEER_V4, MY_V4);
	sofl_l2_reset_stats(l2);
	assert_int_equal(eth_in(l2, f, 41, &r), SOFL_L2_DROP);
	assert_int_equal(stats(l2).eth_drop[SOFL_L2_DROP_ARP_MALFORMED], 1);
	sofl_l2_destroy(l2);
}

/* The advertisement @r answers a solicitation for MY_V6 from @src (NULL: DAD). */
static void
check_na(const struct sofl_l2_reply *r, const uint8_t *src)
{
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };
	static const uint8_t all_nodes_mac[6] = { 0x33, 0x33, 0, 0, 0, 1 };
	const uint8_t *f = r->frame, *ip = f + 14, *na = ip + 40;
	uint8_t copy[32];

	assert_int_equal(r->len, 14 + 40 + 32);
	assert_memory_equal(f, src ? PEER_MAC : all_nodes_mac, 6);
	assert_memory_equal(f + 6, MY_MAC, 6);
	assert_int_equal(f[12], 0x86);
	assert_int_equal(f[13], 0xdd);
	assert_int_equal(ip[0], 0x60);
	assert_int_equal(ip[1] | ip[2] | ip[3], 0);
	assert_int_equal(ip[4] << 8 | ip[5], 32);
	assert_int_equal(ip[6], 58);
	assert_int_equal(ip[7], 255);
	assert_memory_equal(ip + 8, MY_V6, 16);
	assert_memory_equal(ip + 24, src ? src : all_nodes, 16);
	assert_int_equal(na[0], 136);
	assert_int_equal(na[1], 0);
	assert_int_equal(na[4], src ? 0x60 : 0x20);	/* S|O, or O for DAD */
	assert_int_equal(na[5] | na[6] | na[7], 0);
	assert_memory_equal(na + 8, MY_V6, 16);
	assert_int_equal(na[24], 2);			/* target link-layer address */
	assert_int_equal(na[25], 1);
	assert_memory_equal(na + 26, MY_MAC, 6);
	/* the checksum verifies, and is the one computed here */
	assert_int_equal(sofl_csum_fold(sofl_csum_add(sofl_csum_pseudo_v6(ip + 8, ip + 24, 58, 32),
						      na, 32)), 0xffff);
	memcpy(copy, na, 32);
	assert_int_equal(icmp6_csum(ip + 8, ip + 24, copy, 32), na[2] << 8 | na[3]);
}

static void
ns_advert(void **state)
{
	struct sofl_l2 *l2 = mk();
	struct sofl_l2_reply r;
	uint8_t f[128], orig[128];
	size_t n;

	(void)state;
	n = ns_frame(f, PEER_V6, MY_V6);
	memcpy(orig, f, n);
	assert_int_equal(eth_in(l2, f, n, &r), SOFL_L2_REPLY);
	check_na(&r, PEER_V6);
	assert_memory_equal(f, orig, n);
	n = ns_frame(f, NULL, MY_V6);
	assert_int_equal(eth_in(l2, f, n, &r), SOFL_L2_REPLY);
	check_na(&r, NULL);
	assert_int_equal(stats(l2).nd_adverts, 2);
	/* a valid solicitation for another address goes to the L3 side */
	n = ns_frame(f, PEER_V6, PEER_V6);
	assert_int_equal(eth_in(l2, f, n, &r), SOFL_L2_FORWARD);
	assert_int_equal(stats(l2).ip_out, 1);
	assert_balanced(l2);
	sofl_l2_destroy(l2);
}

static void
ns_malformed(void **state)
{
	struct sofl_l2 *l2 = mk();
	struct sofl_l2_reply r;
	struct sofl_port_pkt p;
	struct iovec v;
	uint8_t f[128];
	uint8_t *ip = f + 14, *ns = ip + 40;
	size_t n;
	int k;

	(void)state;
	for (k = 0; k < 11; k++) {
		enum sofl_l2_drop why = SOFL_L2_DROP_NS_MALFORMED;
		int fix = 1;

		n = ns_frame(f, k == 8 || k == 9 ? NULL : PEER_V6, MY_V6);
		switch (k) {
		case 0: ip[7] = 254; break;			/* hop limit */
		case 1: ns[1] = 1; break;			/* code */
		case 2: put16(ip + 4, 20); break;		/* ICMPv6 length < 24 */
		case 3: put16(ip + 4, 40); break;		/* past the frame */
		case 4: ns[8] = 0xff; break;			/* multicast target */
		case 5: ns[25] = 0; break;			/* option length 0 */
		case 6: ns[25] = 2; break;			/* option past the end */
		case 7: ns[2] ^= 1; fix = 0; why = SOFL_L2_DROP_NS_CSUM; break;
		case 8: ip[36] = 0; break;			/* DAD, not to solicited-node */
		case 9:						/* DAD with a source LL option */
			put16(ip + 4, 32);
			ns[24] = 1;
			ns[25] = 1;
			memcpy(ns + 26, PEER_MAC, 6);
			n = 14 + 40 + 32;
			break;
		case 10:					/* a 16-byte Ethernet address option */
			put16(ip + 4, 40);
			ns[24] = 1;
			ns[25] = 2;
			memset(ns + 32, 0, 8);
			n = 14 + 40 + 40;
			break;
		}
		if (fix)
			put16(ns + 2, icmp6_csum(ip + 8, ip + 24, ns, (size_t)(ip[4] << 8 | ip[5]) >
						 n - 54 ? n - 54 : (size_t)(ip[4] << 8 | ip[5])));
		sofl_l2_reset_stats(l2);
		assert_int_equal(eth_in(l2, f, n, &r), SOFL_L2_DROP);
		assert_int_equal(stats(l2).eth_drop[why], 1);
		assert_balanced(l2);
	}
	/* a checksum the virtio header says is not there yet is not checked */
	n = ns_frame(f, PEER_V6, MY_V6);
	ns[2] ^= 0x55;
	pkt1(&p, &v, f, n);
	p.flags = SOFL_PORT_PKT_F_VNET;
	p.vnet.flags = SOFL_VNET_HDR_F_NEEDS_CSUM;
	p.vnet.csum_start = 14 + 40;
	p.vnet.csum_offset = 2;
	assert_int_equal(sofl_l2_eth_to_ip(l2, &p, &r), SOFL_L2_REPLY);
	check_na(&r, PEER_V6);
	/* hop limit other than 255 on other ICMPv6: not ours to judge */
	n = ns_frame(f, PEER_V6, MY_V6);
	ns[0] = 128;					/* echo request */
	ip[7] = 64;
	assert_int_equal(eth_in(l2, f, n, &r), SOFL_L2_FORWARD);
	sofl_l2_destroy(l2);
}

/* A frame whose EtherType says IPv4/IPv6 but that ends before the fixed IP
 * header (a bare 14-byte Ethernet header first of all) is dropped as a
 * runt, one whose IP version is not the EtherType's as ip-version: passed on, it became an empty (or headless) packet that the TUN
 * refused (counted there as a bad virtio header).  Exactly the fixed
 * header (20 / 40 bytes) is passed on: judging the IP header is the L3
 * side's job. */
static void
runt(void **state)
{
	struct sofl_l2 *l2 = mk();
	struct sofl_l2_reply r;
	uint8_t f[128];
	size_t len;
	int v6, v;

	(void)state;
	for (v6 = 0; v6 < 2; v6++) {
		size_t hl = v6 ? 40 : 20;

		if (v6)
			ip6_frame(f, 0);
		else
			ip4_frame(f, 0);
		for (len = 14; len <= 14 + hl; len++) {
			v = eth_in(l2, f, len, &r);
			assert_int_equal(v, len < 14 + hl ? SOFL_L2_DROP : SOFL_L2_FORWARD);
		}
	}
	assert_int_equal(stats(l2).eth_drop[SOFL_L2_DROP_RUNT], 20 + 40);
	assert_int_equal(stats(l2).eth_drop[SOFL_L2_DROP_SHORT], 0);
	/* an IP version that is not the EtherType's: the TUN would refuse it
	 * (a version it does not know) or take it as the other family */
	len = ip4_frame(f, 10);
	f[14] = 0x65;
	assert_int_equal(eth_in(l2, f, len, &r), SOFL_L2_DROP);
	f[14] = 0x15;
	assert_int_equal(eth_in(l2, f, len, &r), SOFL_L2_DROP);
	len = ip6_frame(f, 10);
	f[14] = 0x45;
	assert_int_equal(eth_in(l2, f, len, &r), SOFL_L2_DROP);
	assert_int_equal(stats(l2).eth_drop[SOFL_L2_DROP_IP_VERSION], 3);
	assert_string_equal(sofl_l2_drop_name(SOFL_L2_DROP_RUNT), "runt");
	assert_balanced(l2);
	sofl_l2_destroy(l2);
}

static void
not_ip_and_short(void **state)
{
	struct sofl_l2 *l2 = mk();
	struct sofl_l2_reply r;
	struct sofl_port_pkt p;
	struct iovec v[2];
	uint8_t f[128], head[16];
	size_t n;

	(void)state;
	n = ip4_frame(f, 10);
	put16(f + 12, 0x8100);				/* VLAN tag */
	assert_int_equal(eth_in(l2, f, n, &r), SOFL_L2_DROP);
	put16(f + 12, 0x88cc);				/* LLDP */
	assert_int_equal(eth_in(l2, f, n, &r), SOFL_L2_DROP);
	assert_int_equal(stats(l2).eth_drop[SOFL_L2_DROP_NOT_IP], 2);
	assert_int_equal(eth_in(l2, f, 13, &r), SOFL_L2_DROP);
	pkt1(&p, v, f, n);
	p.iovcnt = 0;
	assert_int_equal(sofl_l2_eth_to_ip(l2, &p, &r), SOFL_L2_DROP);
	/* the header split over two pieces */
	n = ip4_frame(f, 10);
	pkt1(&p, v, f, n);
	v[0].iov_len = 10;
	v[1].iov_base = f + 10;
	v[1].iov_len = n - 10;
	p.iovcnt = 2;
	assert_int_equal(sofl_l2_eth_to_ip(l2, &p, &r), SOFL_L2_DROP);
	assert_int_equal(stats(l2).eth_drop[SOFL_L2_DROP_SHORT], 3);
	/* with a head area first, the frame is the second piece */
	pkt1(&p, v, head, sizeof(head));
	v[1].iov_base = f;
	v[1].iov_len = n;
	p.iovcnt = 2;
	p.headroom = sizeof(head);
	p.len = (uint32_t)n;
	assert_int_equal(sofl_l2_eth_to_ip(l2, &p, &r), SOFL_L2_FORWARD);
	assert_ptr_equal(v[0].iov_base, head);
	assert_ptr_equal(v[1].iov_base, f + 14);
	assert_int_equal(p.len, n - 14);
	assert_balanced(l2);
	sofl_l2_destroy(l2);
}

/* Strip, then add back: the IP bytes untouched, the header made for the
 * peer, the virtio header's offsets moved there and back. */
static void
round_trip(void **state)
{
	struct sofl_l2 *l2 = mk();
	struct sofl_l2_reply r;
	struct sofl_port_pkt p, q;
	struct iovec v, w[2];
	uint8_t f[256], orig[256], head[SOFL_L2_ETH_HLEN + 2], mac[6];
	size_t n;
	int v6;

	(void)state;
	assert_int_equal(sofl_l2_get_peer(l2, mac), 0);
	for (v6 = 0; v6 < 2; v6++) {
		n = v6 ? ip6_frame(f, 100) : ip4_frame(f, 100);
		memcpy(orig, f, n);
		pkt1(&p, &v, f, n);
		p.flags = SOFL_PORT_PKT_F_VNET | SOFL_PORT_PKT_F_CSUM_OK;
		p.vnet.flags = SOFL_VNET_HDR_F_NEEDS_CSUM;
		p.vnet.csum_start = v6 ? 14 + 40 : 14 + 20;
		p.vnet.csum_offset = 16;
		p.vnet.hdr_len = v6 ? 14 + 60 : 14 + 40;
		assert_int_equal(sofl_l2_eth_to_ip(l2, &p, &r), SOFL_L2_FORWARD);
		assert_ptr_equal(v.iov_base, f + 14);
		assert_int_equal(v.iov_len, n - 14);
		assert_int_equal(p.len, n - 14);
		assert_int_equal(p.vnet.csum_start, v6 ? 40 : 20);
		assert_int_equal(p.vnet.hdr_len, v6 ? 60 : 40);
		assert_int_equal(p.vnet.csum_offset, 16);
		assert_memory_equal(f, orig, n);		/* nothing written */
		assert_int_equal(sofl_l2_get_peer(l2, mac), 1);
		assert_memory_equal(mac, PEER_MAC, 6);
		/* back: as a TUN port with headroom gives it */
		memset(head, 0xee, sizeof(head));
		q = p;
		w[0].iov_base = head;
		w[0].iov_len = sizeof(head);
		w[1] = v;
		q.iov = w;
		q.iovcnt = 2;
		q.headroom = sizeof(head);
		assert_int_equal(sofl_l2_ip_to_eth(l2, &q), SOFL_L2_FORWARD);
		assert_int_equal(w[0].iov_len, 14);
		assert_int_equal(q.len, n);
		assert_memory_equal(head, PEER_MAC, 6);
		assert_memory_equal(head + 6, MY_MAC, 6);
		assert_int_equal(head[12] << 8 | head[13], v6 ? 0x86dd : 0x0800);
		assert_int_equal(head[14], 0xee);		/* nothing past the header */
		assert_memory_equal(w[1].iov_base, orig + 14, n - 14);
		assert_int_equal(q.vnet.csum_start, v6 ? 14 + 40 : 14 + 20);
		assert_int_equal(q.vnet.hdr_len, v6 ? 14 + 60 : 14 + 40);
	}
	/* hdr_len 0 (unknown) stays 0; no NEEDS_CSUM: csum_start left alone */
	n = ip4_frame(f, 10);
	pkt1(&p, &v, f, n);
	p.flags = SOFL_PORT_PKT_F_VNET;
	p.vnet.csum_start = 5;
	p.vnet.hdr_len = 10;
	assert_int_equal(sofl_l2_eth_to_ip(l2, &p, &r), SOFL_L2_FORWARD);
	assert_int_equal(p.vnet.csum_start, 5);
	assert_int_equal(p.vnet.hdr_len, 0);
	/* the peer moves with the frames */
	n = ip4_frame(f, 10);
	f[11] = 0x99;
	assert_int_equal(eth_in(l2, f, n, &r), SOFL_L2_FORWARD);
	assert_int_equal(sofl_l2_get_peer(l2, mac), 1);
	assert_int_equal(mac[5], 0x99);
	assert_int_equal(stats(l2).peer_changes, 2);
	assert_balanced(l2);
	sofl_l2_destroy(l2);
}

static void
vnet_and_ip_side_drops(void **state)
{
	struct sofl_l2 *l2 = mk();
	struct sofl_l2_reply r;
	struct sofl_port_pkt p;
	struct iovec v, w[2];
	uint8_t f[128], orig[128], head[14], ip[64];
	struct sofl_l2_stats s;
	size_t n;

	(void)state;
	/* csum_start inside the Ethernet header */
	n = ip4_frame(f, 10);
	memcpy(orig, f, n);
	pkt1(&p, &v, f, n);
	p.flags = SOFL_PORT_PKT_F_VNET;
	p.vnet.flags = SOFL_VNET_HDR_F_NEEDS_CSUM;
	p.vnet.csum_start = 13;
	assert_int_equal(sofl_l2_eth_to_ip(l2, &p, &r), SOFL_L2_DROP);
	assert_int_equal(p.vnet.csum_start, 13);
	assert_ptr_equal(v.iov_base, f);
	assert_int_equal(stats(l2).eth_drop[SOFL_L2_DROP_VNET], 1);
	assert_int_equal(sofl_l2_get_peer(l2, head), 0);	/* nothing learned */

	memset(ip, 0, sizeof(ip));
	ip[0] = 0x45;
	memset(&p, 0, sizeof(p));
	w[0].iov_base = head;
	w[0].iov_len = sizeof(head);
	w[1].iov_base = ip;
	w[1].iov_len = sizeof(ip);
	p.iov = w;
	p.iovcnt = 2;
	p.headroom = sizeof(head);
	p.len = sizeof(ip);
	assert_int_equal(sofl_l2_ip_to_eth(l2, &p), SOFL_L2_DROP);	/* no peer */
	assert_int_equal(sofl_l2_set_peer(l2, PEER_MAC), 0);
	p.headroom = 13;
	assert_int_equal(sofl_l2_ip_to_eth(l2, &p), SOFL_L2_DROP);	/* no room */
	p.headroom = sizeof(head);
	p.iovcnt = 1;
	assert_int_equal(sofl_l2_ip_to_eth(l2, &p), SOFL_L2_DROP);	/* no packet */
	p.iovcnt = 2;
	ip[0] = 0x55;
	assert_int_equal(sofl_l2_ip_to_eth(l2, &p), SOFL_L2_DROP);	/* version 5 */
	ip[0] = 0x45;
	p.flags = SOFL_PORT_PKT_F_VNET;
	p.vnet.flags = SOFL_VNET_HDR_F_NEEDS_CSUM;
	p.vnet.csum_start = 65530;
	assert_int_equal(sofl_l2_ip_to_eth(l2, &p), SOFL_L2_DROP);	/* past 65535 */
	assert_int_equal(w[0].iov_len, sizeof(head));
	s = stats(l2);
	assert_int_equal(s.ip_drop[SOFL_L2_DROP_NO_PEER], 1);
	assert_int_equal(s.ip_drop[SOFL_L2_DROP_NO_ROOM], 2);
	assert_int_equal(s.ip_drop[SOFL_L2_DROP_IP_VERSION], 1);
	assert_int_equal(s.ip_drop[SOFL_L2_DROP_VNET], 1);
	assert_int_equal(s.eth_out, 0);
	p.vnet.csum_start = 20;
	assert_int_equal(sofl_l2_ip_to_eth(l2, &p), SOFL_L2_FORWARD);
	assert_int_equal(p.vnet.csum_start, 34);
	assert_balanced(l2);
	sofl_l2_destroy(l2);
}

/* Every prefix of valid frames: never a read past it, each counted once. */
static void
truncations(void **state)
{
	struct sofl_l2 *l2 = mk();
	struct sofl_l2_reply r;
	uint8_t f[256];
	size_t n, len;
	int kind, v;

	(void)state;
	for (kind = 0; kind < 5; kind++) {
		switch (kind) {
		case 0: n = arp_request(f, PEER_MAC, PEER_V4, MY_V4); break;
		case 1: n = ns_frame(f, PEER_V6, MY_V6); break;
		case 2: n = ns_frame(f, NULL, MY_V6); break;
		case 3: n = ip4_frame(f, 30); break;
		default: n = ip6_frame(f, 30); break;
		}
		for (len = 0; len <= n; len++) {
			/* exactly @len bytes of heap: a tool (valgrind, ASan)
			 * sees any read past them */
			uint8_t *b = malloc(len ? len : 1);

			assert_non_null(b);
			memcpy(b, f, len);
			v = eth_in(l2, b, len, &r);
			assert_true(v == SOFL_L2_FORWARD || v == SOFL_L2_REPLY || v == SOFL_L2_DROP);
			if (len < 14)
				assert_int_equal(v, SOFL_L2_DROP);
			if (kind == 0)
				assert_int_equal(v, len < 42 ? SOFL_L2_DROP : SOFL_L2_REPLY);
			if ((kind == 1 || kind == 2) && len > 54)
				assert_int_equal(v, len < n ? SOFL_L2_DROP : SOFL_L2_REPLY);
			free(b);
		}
	}
	assert_balanced(l2);
	assert_int_equal(stats(l2).eth_drop[SOFL_L2_DROP_SHORT], 5 * 14);
	sofl_l2_destroy(l2);
}

static int miss_calls, miss_gives;

static int
miss(void *ctx, struct sofl_l2 *l2, unsigned ver, const uint8_t *addr)
{
	(void)ctx;
	miss_calls++;
	if (!miss_gives)
		return 0;
	if (ver == 4)
		assert_int_equal(sofl_l2_set_addrs(l2, addr, 1, NULL, 0), 0);
	else
		assert_int_equal(sofl_l2_set_addrs(l2, NULL, 0, addr, 1), 0);
	return 1;
}

static void
miss_callback(void **state)
{
	struct sofl_l2_config c;
	struct sofl_l2 *l2;
	struct sofl_l2_reply r;
	uint8_t f[128];
	size_t n;

	(void)state;
	sofl_l2_config_init(&c);
	memcpy(c.mac, MY_MAC, 6);
	c.miss = miss;
	assert_int_equal(sofl_l2_create(&c, &l2), 0);
	n = arp_request(f, PEER_MAC, PEER_V4, MY_V4);
	assert_int_equal(eth_in(l2, f, n, &r), SOFL_L2_DROP);
	assert_int_equal(miss_calls, 1);
	assert_int_equal(stats(l2).eth_drop[SOFL_L2_DROP_ARP_NOT_MINE], 1);
	miss_gives = 1;
	assert_int_equal(eth_in(l2, f, n, &r), SOFL_L2_REPLY);
	assert_int_equal(miss_calls, 2);
	assert_int_equal(eth_in(l2, f, n, &r), SOFL_L2_REPLY);	/* in the set now */
	assert_int_equal(miss_calls, 2);
	n = ns_frame(f, PEER_V6, MY_V6);
	assert_int_equal(eth_in(l2, f, n, &r), SOFL_L2_REPLY);
	assert_int_equal(miss_calls, 3);
	check_na(&r, PEER_V6);
	sofl_l2_destroy(l2);
}

static int replies;
static uint8_t last_reply[SOFL_L2_REPLY_MAX];

static void
on_reply(void *ctx, const uint8_t *frame, size_t len)
{
	assert_ptr_equal(ctx, &replies);
	assert_true(len <= sizeof(last_reply));
	memcpy(last_reply, frame, len);
	replies++;
}

static void
batches(void **state)
{
	struct sofl_l2 *l2 = mk();
	struct sofl_port_pkt p[5];
	struct iovec v[5], w[5][2];
	uint8_t f[5][128], head[5][14];
	size_t n[5];
	int k, i;

	(void)state;
	n[0] = ip4_frame(f[0], 8);
	n[1] = arp_request(f[1], PEER_MAC, PEER_V4, MY_V4);
	n[2] = ip6_frame(f[2], 8);
	n[3] = ip4_frame(f[3], 8);
	put16(f[3] + 12, 0x8100);
	n[4] = ns_frame(f[4], PEER_V6, MY_V6);
	for (i = 0; i < 5; i++)
		pkt1(&p[i], &v[i], f[i], n[i]);
	k = sofl_l2_eth_to_ip_batch(l2, p, 5, on_reply, &replies);
	assert_int_equal(k, 2);
	assert_ptr_equal(p[0].iov[0].iov_base, f[0] + 14);
	assert_ptr_equal(p[1].iov[0].iov_base, f[2] + 14);
	assert_int_equal(replies, 2);
	assert_int_equal(last_reply[12] << 8 | last_reply[13], 0x86dd);
	for (i = 0; i < 3; i++) {
		memset(&p[i], 0, sizeof(p[i]));
		w[i][0].iov_base = head[i];
		w[i][0].iov_len = sizeof(head[i]);
		w[i][1].iov_base = f[i] + 14;
		w[i][1].iov_len = n[i] - 14;
		p[i].iov = w[i];
		p[i].iovcnt = 2;
		p[i].headroom = i == 1 ? 4 : sizeof(head[i]);	/* the middle one: no room */
		p[i].len = (uint32_t)(n[i] - 14);
	}
	k = sofl_l2_ip_to_eth_batch(l2, p, 3);
	assert_int_equal(k, 2);
	assert_ptr_equal(p[0].iov[0].iov_base, head[0]);
	assert_ptr_equal(p[1].iov[0].iov_base, head[2]);
	assert_int_equal(head[2][12] << 8 | head[2][13], 0x86dd);
	assert_int_equal(sofl_l2_eth_to_ip_batch(l2, p, 0, on_reply, NULL), 0);
	assert_balanced(l2);
	sofl_l2_destroy(l2);
}

static void
stats_size(void **state)
{
	struct sofl_l2 *l2 = mk();
	struct sofl_l2_reply r;
	uint8_t f[64], big[sizeof(struct sofl_l2_stats) + 16];
	uint64_t first;

	(void)state;
	arp_request(f, PEER_MAC, PEER_V4, MY_V4);
	assert_int_equal(eth_in(l2, f, 42, &r), SOFL_L2_REPLY);
	memset(big, 0xaa, sizeof(big));
	assert_int_equal(sofl_l2_get_stats(l2, (struct sofl_l2_stats *)(void *)big, sizeof(big)), 0);
	memcpy(&first, big, 8);
	assert_int_equal(first, 1);				/* eth_in */
	assert_int_equal(big[sizeof(big) - 1], 0);		/* zeros past the struct */
	memset(big, 0xaa, sizeof(big));
	assert_int_equal(sofl_l2_get_stats(l2, (struct sofl_l2_stats *)(void *)big, 8), 0);
	assert_int_equal(big[8], 0xaa);				/* only 8 bytes */
	assert_int_equal(sofl_l2_reset_stats(l2), 0);
	assert_int_equal(stats(l2).eth_in, 0);
	sofl_l2_destroy(l2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(create_errors),
		cmocka_unit_test(arp_reply_bytes),
		cmocka_unit_test(arp_malformed),
		cmocka_unit_test(ns_advert),
		cmocka_unit_test(ns_malformed),
		cmocka_unit_test(not_ip_and_short),
		cmocka_unit_test(runt),
		cmocka_unit_test(round_trip),
		cmocka_unit_test(vnet_and_ip_side_drops),
		cmocka_unit_test(truncations),
		cmocka_unit_test(miss_callback),
		cmocka_unit_test(batches),
		cmocka_unit_test(stats_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
