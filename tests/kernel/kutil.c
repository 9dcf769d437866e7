/* Shared pieces of the kernel-oracle programs (see kutil.h). */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <pcap/pcap.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "kutil.h"

#define SENTINEL_TYPE 0x88B5

void
k_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

int
k_required(void)
{
	const char *v = getenv("SOFL_REQUIRE_ORACLE");

	return v && !strcmp(v, "1");
}

/* Under SOFL_REQUIRE_ORACLE=1 a skip is a failure (exit 1). */
void
k_skip(const char *fmt, ...)
{
	va_list ap;

	fputs(k_required() ? "FAIL (SOFL_REQUIRE_ORACLE=1), would skip: " : "SKIP: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(k_required() ? 1 : K_SKIP);
}

void
kset_add(struct kset *s, const void *frame, uint32_t len, const struct sofl_vnet_hdr *vh)
{
	struct krec *r;

	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->r = realloc(s->r, s->cap * sizeof(*s->r));
		if (!s->r)
			k_die("out of memory");
	}
	r = &s->r[s->n++];
	r->data = malloc(len ? len : 1);
	if (!r->data)
		k_die("out of memory");
	memcpy(r->data, frame, len);
	r->len = len;
	if (vh)
		r->vh = *vh;
	else
		memset(&r->vh, 0, sizeof(r->vh));
}

void
kset_free(struct kset *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->r[i].data);
	free(s->r);
	memset(s, 0, sizeof(*s));
}

void
kset_read(struct kset *s, const char *pcap, const char *side)
{
	char eb[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *d;
	pcap_t *p;
	FILE *f = NULL;
	size_t i;
	int rc;

	p = pcap_open_offline(pcap, eb);
	if (!p)
		k_die("%s: %s", pcap, eb);
	if (pcap_datalink(p) != DLT_EN10MB)
		k_die("%s: not an Ethernet capture", pcap);
	while ((rc = pcap_next_ex(p, &h, &d)) == 1) {
		if (h->caplen != h->len)
			k_die("%s: record %zu truncated (caplen %u < len %u): capture with -s 0",
			      pcap, s->n, h->caplen, h->len);
		kset_add(s, d, h->caplen, NULL);
	}
	if (rc == -1)
		k_die("%s: %s", pcap, pcap_geterr(p));
	pcap_close(p);
	if (!side)
		return;
	f = fopen(side, "r");
	if (!f)
		k_die("%s: %s", side, strerror(errno));
	for (i = 0; i < s->n; i++) {
		unsigned fl, gt, hl, gs, cs, co, ot = 0, in = 0;
		char line[256];
		int got;

		if (!fgets(line, sizeof(line), f) ||
		    ((got = sscanf(line, "%u %u %u %u %u %u %u %u", &fl, &gt, &hl, &gs, &cs, &co,
				   &ot, &in)) != 6 && got != 8))
			k_die("%s: line %zu: expected 6 or 8 numbers", side, i + 1);
		memset(&s->r[i].vh, 0, sizeof(s->r[i].vh));
		s->r[i].vh.outer_th_offset = (uint16_t)ot;
		s->r[i].vh.inner_nh_offset = (uint16_t)in;
		s->r[i].vh.flags = (uint8_t)fl;
		s->r[i].vh.gso_type = (uint8_t)gt;
		s->r[i].vh.hdr_len = (uint16_t)hl;
		s->r[i].vh.gso_size = (uint16_t)gs;
		s->r[i].vh.csum_start = (uint16_t)cs;
		s->r[i].vh.csum_offset = (uint16_t)co;
	}
	fclose(f);
	s->has_vh = 1;
}

void
kset_write(const struct kset *s, const char *pcap, const char *side)
{
	struct pcap_pkthdr h;
	pcap_dumper_t *d;
	pcap_t *dead;
	FILE *f = NULL;
	size_t i;

	dead = pcap_open_dead(DLT_EN10MB, 262144);
	if (!dead)
		k_die("pcap_open_dead failed");
	d = pcap_dump_open(dead, pcap);
	if (!d)
		k_die("%s: %s", pcap, pcap_geterr(dead));
	if (side && !(f = fopen(side, "w")))
		k_die("%s: %s", side, strerror(errno));
	memset(&h, 0, sizeof(h));
	for (i = 0; i < s->n; i++) {
		const struct sofl_vnet_hdr *v = &s->r[i].vh;

		/* Timestamps carry the record number: stable files, easy lookup. */
		h.ts.tv_sec = (time_t)(i / 1000000);
		h.ts.tv_usec = (suseconds_t)(i % 1000000);
		h.caplen = h.len = s->r[i].len;
		pcap_dump((u_char *)d, &h, s->r[i].data);
		if (f && (v->outer_th_offset || v->inner_nh_offset))
			fprintf(f, "%u %u %u %u %u %u %u %u\n", v->flags, v->gso_type, v->hdr_len,
				v->gso_size, v->csum_start, v->csum_offset, v->outer_th_offset,
				v->inner_nh_offset);
		else if (f)
			fprintf(f, "%u %u %u %u %u %u\n", v->flags, v->gso_type, v->hdr_len,
				v->gso_size, v->csum_start, v->csum_offset);
	}
	if (pcap_dump_flush(d) != 0)
		k_die("%s: write failed", pcap);
	pcap_dump_close(d);
	pcap_close(dead);
	if (f && fclose(f) != 0)
		k_die("%s: write failed", side);
}

static void
put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static uint16_t
get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* The oracle's own virtio header codec (10-byte form, little-endian, as the
 * TAP and AF_PACKET use here), written apart from sofl_vnet_encode/decode on
 * purpose: a bug in the library's codec must not cancel out in the comparison. */
void
k_vnet_encode(uint8_t out[10], const struct sofl_vnet_hdr *vh)
{
	out[0] = vh->flags;
	out[1] = vh->gso_type;
	put_le16(out + 2, vh->hdr_len);
	put_le16(out + 4, vh->gso_size);
	put_le16(out + 6, vh->csum_start);
	put_le16(out + 8, vh->csum_offset);
}

void
k_vnet_decode(const uint8_t in[10], struct sofl_vnet_hdr *vh)
{
	memset(vh, 0, sizeof(*vh));
	vh->flags = in[0];
	vh->gso_type = in[1];
	vh->hdr_len = get_le16(in + 2);
	vh->gso_size = get_le16(in + 4);
	vh->csum_start = get_le16(in + 6);
	vh->csum_offset = get_le16(in + 8);
}

void
k_vnet_tnl_encode(uint8_t out[K_VNET_TNL_LEN], const struct sofl_vnet_hdr *vh)
{
	memset(out, 0, K_VNET_TNL_LEN);
	k_vnet_encode(out, vh);
	put_le16(out + 20, vh->outer_th_offset);
	put_le16(out + 22, vh->inner_nh_offset);
}

/* Debian 12's uapi headers are 6.1's: the 6.17 additions, guarded. */
#ifndef TUN_F_UDP_TUNNEL_GSO
#define TUN_F_UDP_TUNNEL_GSO 0x080
#endif
#ifndef TUN_F_UDP_TUNNEL_GSO_CSUM
#define TUN_F_UDP_TUNNEL_GSO_CSUM 0x100
#endif

void
k_tap_tunnel(int fd)
{
	int sz = K_VNET_TNL_LEN;
	unsigned long off = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_UDP_TUNNEL_GSO |
			    TUN_F_UDP_TUNNEL_GSO_CSUM;

	if (ioctl(fd, TUNSETVNETHDRSZ, &sz) < 0)
		k_die("TUNSETVNETHDRSZ %d: %s", sz, strerror(errno));
	if (ioctl(fd, TUNSETOFFLOAD, off) < 0)
		k_skip("TUNSETOFFLOAD with TUN_F_UDP_TUNNEL_GSO(_CSUM): %s (kernel before 6.17?)",
		       strerror(errno));
}

int
k_tap_open(const char *name, int extra_flags)
{
	struct ifreq ifr;
	int fd, le = 1;

	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		k_skip("cannot open /dev/net/tun: %s", strerror(errno));
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ifr.ifr_flags = (short)(IFF_TAP | IFF_NO_PI | IFF_VNET_HDR | extra_flags);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		if (errno == EPERM || errno == ENOTTY || errno == ENODEV)
			k_skip("TUNSETIFF %s: %s", name, strerror(errno));
		k_die("TUNSETIFF %s: %s", name, strerror(errno));
	}
	/* Little-endian vnet header fields whatever the host: one encoding. */
	if (ioctl(fd, TUNSETVNETLE, &le) < 0 && errno != EINVAL)
		k_die("TUNSETVNETLE: %s", strerror(errno));
	return fd;
}

int
k_packet_open(const char *ifname, int vnet)
{
	struct sockaddr_ll sll;
	int fd, one = 1, buf = 32 << 20;
	unsigned idx;

	idx = if_nametoindex(ifname);
	if (!idx)
		k_die("%s: no such interface", ifname);
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	if (fd < 0)
		k_skip("AF_PACKET socket: %s", strerror(errno));
	if (vnet && setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) < 0)
		k_die("PACKET_VNET_HDR: %s", strerror(errno));
	/* VLAN tags the kernel moved to metadata come back as auxiliary data. */
	if (setsockopt(fd, SOL_PACKET, PACKET_AUXDATA, &one, sizeof(one)) < 0)
		k_die("PACKET_AUXDATA: %s", strerror(errno));
	/* Ignored outgoing packets are never queued: only what the stack received. */
	if (setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)) < 0)
		k_die("PACKET_IGNORE_OUTGOING: %s", strerror(errno));
	/* Large enough for a whole batch of 64 KB super-packets: never drop. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = (int)idx;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		k_die("bind AF_PACKET to %s: %s", ifname, strerror(errno));
	return fd;
}

long
k_packet_recv(int fd, uint8_t *buf, size_t cap, int flags, struct sofl_vnet_hdr *vh,
	      uint8_t **frame)
{
	union {
		struct cmsghdr c;
		char b[CMSG_SPACE(sizeof(struct tpacket_auxdata))];
	} ctl;
	struct tpacket_auxdata aux;
	struct cmsghdr *c;
	struct msghdr mh;
	struct iovec iov;
	uint8_t *f;
	ssize_t n;
	int have_aux = 0;

	/* 4 bytes of headroom for a tag to put back. */
	iov.iov_base = buf + 4;
	iov.iov_len = cap - 4;
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = &ctl;
	mh.msg_controllen = sizeof(ctl);
	n = recvmsg(fd, &mh, flags | MSG_TRUNC);
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return -1;
		k_die("recvmsg: %s", strerror(errno));
	}
	if ((size_t)n > cap - 4 || (mh.msg_flags & MSG_TRUNC))
		k_die("recvmsg: frame of %zd bytes truncated", n);
	if (n < 10 + 14)
		k_die("recvmsg: %zd bytes, shorter than virtio + Ethernet headers", n);
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_PACKET && c->cmsg_type == PACKET_AUXDATA &&
		    c->cmsg_len >= CMSG_LEN(sizeof(aux))) {
			memcpy(&aux, CMSG_DATA(c), sizeof(aux));
			have_aux = 1;
		}
	k_vnet_decode(buf + 4, vh);
	f = buf + 4 + 10;
	n -= 10;
	if (have_aux && (aux.tp_status & TP_STATUS_VLAN_VALID)) {
		uint16_t tpid = (aux.tp_status & TP_STATUS_VLAN_TPID_VALID) ? aux.tp_vlan_tpid : 0x8100;

		memmove(f - 4, f, 12);
		f -= 4;
		f[12] = (uint8_t)(tpid >> 8);
		f[13] = (uint8_t)tpid;
		f[14] = (uint8_t)(aux.tp_vlan_tci >> 8);
		f[15] = (uint8_t)aux.tp_vlan_tci;
		n += 4;
		if (vh->flags & SOFL_VNET_HDR_F_NEEDS_CSUM)
			vh->csum_start += 4;
	}
	*frame = f;
	return (long)n;
}

void
k_link_up(const char *ifname)
{
	struct ifreq ifr;
	int fd;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		k_die("socket: %s", strerror(errno));
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		k_die("SIOCGIFFLAGS %s: %s", ifname, strerror(errno));
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		k_die("SIOCSIFFLAGS %s: %s", ifname, strerror(errno));
	close(fd);
}

size_t
k_sentinel(uint8_t *buf, uint32_t tag)
{
	static const char magic[8] = "SOFLSENT";

	memset(buf, 0, 60);
	memset(buf, 0xff, 6);
	buf[6] = 0x02;
	buf[11] = 0x5e;
	buf[12] = SENTINEL_TYPE >> 8;
	buf[13] = SENTINEL_TYPE & 0xff;
	memcpy(buf + 14, magic, 8);
	buf[22] = (uint8_t)(tag >> 24);
	buf[23] = (uint8_t)(tag >> 16);
	buf[24] = (uint8_t)(tag >> 8);
	buf[25] = (uint8_t)tag;
	return 60;
}

int
k_is_sentinel(const uint8_t *frame, size_t len, uint32_t *tag)
{
	if (len < 26 || frame[12] != (SENTINEL_TYPE >> 8) || frame[13] != (SENTINEL_TYPE & 0xff) ||
	    memcmp(frame + 14, "SOFLSENT", 8) != 0)
		return 0;
	*tag = (uint32_t)frame[22] << 24 | (uint32_t)frame[23] << 16 | (uint32_t)frame[24] << 8 |
	       frame[25];
	return 1;
}

int
k_write_file(const char *path, const char *val)
{
	ssize_t n;
	int fd, e;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	e = n < 0 ? -errno : 0;
	close(fd);
	return e;
}

long
k_proc_field(const char *path, const char *key)
{
	char line[256];
	size_t kl = strlen(key);
	long v = -1;
	FILE *f;

	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ':') {
			v = strtol(line + kl + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

int
k_run(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

int
k_tcp_sport(const uint8_t *d, size_t n)
{
	size_t l4;

	if (n < 14 + 20)
		return -1;
	if (d[12] == 0x08 && d[13] == 0x00 && (d[14] >> 4) == 4 && d[23] == 6)
		l4 = 14 + (size_t)(d[14] & 15) * 4;
	else if (d[12] == 0x86 && d[13] == 0xdd && n >= 14 + 40 && d[20] == 6)
		l4 = 14 + 40;
	else
		return -1;
	return n < l4 + 20 ? -1 : d[l4] << 8 | d[l4 + 1];
}
