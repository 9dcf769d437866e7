/* khostile — malformed and mutated datagrams and frames for
 * tests/hostile_live.sh, sent with an AF_PACKET socket (so the source can
 * be any address: the tunnel's own peer), each classified by the rule the
 * receiver must apply, so the test can compare the receiver's counters by
 * reason with what was sent.
 *
 *   khostile udp IFNAME DST_MAC SRC_IP DST_IP PORT COUNT SEED
 *       IPv4/UDP datagrams from SRC_IP:PORT to DST_IP:PORT (a softoffload
 *       tunnel's peer and itself) whose payload (the "inner packet") is
 *       empty, short, not IP, of a wrong length, or a valid IPv4/IPv6 TCP
 *       packet mutated (bytes flipped, cut, grown).  Prints the counts by
 *       the tunnel's reasons: "short N not_ip N bad_len N passed N"
 *       (passed: an IP packet of its own length, which goes to the TUN).
 *   khostile eth IFNAME DST_MAC COUNT SEED
 *       Ethernet frames for `softoffload relay afpacket:... tun:...`: runts
 *       (an IPv4/IPv6 EtherType with less than the fixed IP header after
 *       it, the bare 14-byte header first of all), frames of other
 *       EtherTypes (LLDP, a VLAN tag, random), and IPv4 TCP frames mutated
 *       after the Ethernet header.  Prints "runt N not_ip N ip_version N
 *       passed N" (ip_version: the IP version is not the EtherType's).
 *
 * Mutations are seeded (splitmix64): a run is reproducible.  Every frame is
 * sent alone (sendto); at most 64 KB.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <linux/if_ether.h>
#include "../helpers.h"
#include "kutil.h"

static uint8_t fr[2048], inner[1600];
static uint64_t rng;

static int
sock_for(const char *ifname, struct sockaddr_ll *sa)
{
	int fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));

	if (fd < 0)
		k_die("socket: %s", strerror(errno));
	memset(sa, 0, sizeof(*sa));
	sa->sll_family = AF_PACKET;
	sa->sll_protocol = htons(ETH_P_ALL);
	sa->sll_ifindex = (int)if_nametoindex(ifname);
	sa->sll_halen = 6;
	if (!sa->sll_ifindex || bind(fd, (struct sockaddr *)sa, sizeof(*sa)) < 0)
		k_die("%s: %s", ifname, strerror(errno));
	return fd;
}

static void
xsend(int fd, const struct sockaddr_ll *sa, const uint8_t *b, size_t len)
{
	struct timespec ts = { 0, 20000 };	/* 20 us: no burst fills a queue */

	while (sendto(fd, b, len, 0, (const struct sockaddr *)sa, sizeof(*sa)) < 0) {
		if (errno != ENOBUFS && errno != EAGAIN && errno != EINTR)
			k_die("sendto (%zu bytes): %s", len, strerror(errno));
		nanosleep(&ts, NULL);
	}
	nanosleep(&ts, NULL);
}

static void
parse_mac(const char *s, uint8_t mac[6])
{
	unsigned b[6];
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) != 6)
		k_die("bad MAC '%s'", s);
	for (i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
}

/* A valid TCP packet (raw IP, @ipv) with a random port pair: the template
 * of the mutations.  @return its length. */
static size_t
template(uint8_t *b, size_t cap, int ipv, int link, const uint8_t dmac[6])
{
	struct t_spec t;

	t_spec_init(&t, ipv, 6);
	t.link = link;
	if (dmac)
		memcpy(t.mac_dst, dmac, 6);
	t.sport = (uint16_t)(40000 + t_rand(&rng) % 20000);
	t.dport = (uint16_t)(1 + t_rand(&rng) % 1000);
	t.seq = (uint32_t)t_rand(&rng);
	t.pay_len = (size_t)(t_rand(&rng) % 1200);
	return t_build(b, cap, &t);
}

/* Flips 1-8 random bytes of b[from..len), then maybe cuts or grows it.
 * @return the new length (<= cap). */
static size_t
mutate(uint8_t *b, size_t len, size_t cap, size_t from)
{
	int k, n = 1 + (int)(t_rand(&rng) % 8);
	uint64_t r = t_rand(&rng) % 4;

	for (k = 0; k < n && len > from; k++)
		b[from + t_rand(&rng) % (len - from)] ^= (uint8_t)(1 + t_rand(&rng) % 255);
	if (r == 0 && len > from)
		len = from + (size_t)(t_rand(&rng) % (len - from + 1));
	else if (r == 1 && len + 64 <= cap) {
		memset(b + len, 0x5a, 64);
		len += (size_t)(t_rand(&rng) % 65);
	}
	return len;
}

/* ---- udp: the tunnel ---- */

enum { U_SHORT, U_NOT_IP, U_BAD_LEN, U_PASSED, U__N };

/* The tunnel's rule (tools/cmd_tunnel.c inner_check) */
static int
inner_class(const uint8_t *b, size_t len)
{
	if (len < 20)
		return U_SHORT;
	switch (b[0] >> 4) {
	case 4:
		return (b[0] & 15) >= 5 && (size_t)(b[2] << 8 | b[3]) == len ? U_PASSED : U_BAD_LEN;
	case 6:
		return len >= 40 && (size_t)(b[4] << 8 | b[5]) + 40 == len ? U_PASSED : U_BAD_LEN;
	}
	return U_NOT_IP;
}

static uint16_t
ip_csum(const uint8_t *b, size_t len)
{
	uint32_t s = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(b[i] << 8 | b[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static void
udp_mode(char **argv)
{
	struct sockaddr_ll sa;
	struct in_addr src, dst;
	uint8_t dmac[6];
	unsigned long cnt[U__N] = { 0 }, i, count;
	unsigned port;
	int fd;

	fd = sock_for(argv[2], &sa);
	parse_mac(argv[3], dmac);
	memcpy(sa.sll_addr, dmac, 6);
	if (inet_pton(AF_INET, argv[4], &src) != 1 || inet_pton(AF_INET, argv[5], &dst) != 1)
		k_die("bad IPv4 address");
	port = (unsigned)atoi(argv[6]);
	count = strtoul(argv[7], NULL, 10);
	rng = strtoull(argv[8], NULL, 10);
	for (i = 0; i < count; i++) {
		uint8_t *ip = fr + 14, *udp = ip + 20;
		size_t n;

		switch (i % 6) {
		case 0:				/* short: 0..19 bytes */
			n = (size_t)(t_rand(&rng) % 20);
			memset(inner, (int)(t_rand(&rng) & 0xff), n);
			break;
		case 1:				/* not IP */
			n = 20 + (size_t)(t_rand(&rng) % 200);
			memset(inner, 0, n);
			inner[0] = (uint8_t)((t_rand(&rng) % 14 + (t_rand(&rng) % 2 ? 7 : 0)) << 4);
			if (inner[0] >> 4 == 4 || inner[0] >> 4 == 6)
				inner[0] = 0x10;
			break;
		case 2:				/* IP of a wrong length */
			n = template(inner, sizeof(inner), i % 12 == 2 ? 6 : 4, SOFL_LINK_RAW, NULL);
			inner[i % 12 == 2 ? 5 : 3] ^= 0x40;
			break;
		default:			/* mutated */
			n = template(inner, sizeof(inner) - 64, i % 2 ? 4 : 6, SOFL_LINK_RAW, NULL);
			n = mutate(inner, n, sizeof(inner), 0);
			break;
		}
		cnt[inner_class(inner, n)]++;
		memcpy(fr, dmac, 6);
		memcpy(fr + 6, "\x02\x48\x32\x34\x00\x01", 6);
		fr[12] = 0x08;
		fr[13] = 0x00;
		memset(ip, 0, 20);
		ip[0] = 0x45;
		ip[2] = (uint8_t)((28 + n) >> 8);
		ip[3] = (uint8_t)(28 + n);
		ip[6] = 0x40;			/* DF */
		ip[8] = 64;
		ip[9] = 17;
		memcpy(ip + 12, &src, 4);
		memcpy(ip + 16, &dst, 4);
		{
			uint16_t c = ip_csum(ip, 20);

			ip[10] = (uint8_t)(c >> 8);
			ip[11] = (uint8_t)c;
		}
		udp[0] = (uint8_t)(port >> 8);
		udp[1] = (uint8_t)port;
		udp[2] = (uint8_t)(port >> 8);
		udp[3] = (uint8_t)port;
		udp[4] = (uint8_t)((8 + n) >> 8);
		udp[5] = (uint8_t)(8 + n);
		udp[6] = udp[7] = 0;		/* IPv4: no checksum */
		memcpy(udp + 8, inner, n);
		xsend(fd, &sa, fr, 14 + 28 + n);
	}
	close(fd);
	printf("short %lu not_ip %lu bad_len %lu passed %lu\n", cnt[U_SHORT], cnt[U_NOT_IP],
	       cnt[U_BAD_LEN], cnt[U_PASSED]);
}

/* ---- eth: the relay ---- */

static void
eth_mode(char **argv)
{
	struct sockaddr_ll sa;
	uint8_t dmac[6];
	unsigned long runt = 0, not_ip = 0, version = 0, passed = 0, i, count;
	int fd;

	fd = sock_for(argv[2], &sa);
	parse_mac(argv[3], dmac);
	memcpy(sa.sll_addr, dmac, 6);
	count = strtoul(argv[4], NULL, 10);
	rng = strtoull(argv[5], NULL, 10);
	for (i = 0; i < count; i++) {
		size_t n;
		uint16_t type;

		n = template(fr, sizeof(fr) - 64, i % 5 == 1 ? 6 : 4, SOFL_LINK_ETH, dmac);
		switch (i % 5) {
		case 0:				/* runt IPv4: 14..33 bytes */
			n = 14 + (size_t)(t_rand(&rng) % 20);
			break;
		case 1:				/* runt IPv6: 14..53 bytes */
			n = 14 + (size_t)(t_rand(&rng) % 40);
			break;
		case 2:				/* another EtherType */
			type = (uint16_t)(i % 3 == 0 ? 0x88cc : i % 3 == 1 ? 0x8100 :
					  0x9000 + t_rand(&rng) % 0x1000);
			fr[12] = (uint8_t)(type >> 8);
			fr[13] = (uint8_t)type;
			break;
		default:			/* IPv4, mutated after the Ethernet header */
			n = mutate(fr, n, sizeof(fr), 14);
			break;
		}
		type = (uint16_t)(fr[12] << 8 | fr[13]);
		if (type != 0x0800 && type != 0x86dd)
			not_ip++;
		else if (n - 14 < (type == 0x0800 ? 20u : 40u))
			runt++;
		else if (fr[14] >> 4 != (type == 0x0800 ? 4 : 6))
			version++;
		else
			passed++;
		xsend(fd, &sa, fr, n);
	}
	close(fd);
	printf("runt %lu not_ip %lu ip_version %lu passed %lu\n", runt, not_ip, version, passed);
}

int
main(int argc, char **argv)
{
	if (argc == 9 && !strcmp(argv[1], "udp"))
		udp_mode(argv);
	else if (argc == 6 && !strcmp(argv[1], "eth"))
		eth_mode(argv);
	else {
		fprintf(stderr, "usage: khostile udp IFNAME DST_MAC SRC_IP DST_IP PORT COUNT SEED\n"
				"       khostile eth IFNAME DST_MAC COUNT SEED\n");
		return 2;
	}
	return 0;
}
