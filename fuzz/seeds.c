/* Seed corpora for the fuzz harnesses, built with the test packet builders.
 *   seeds HARNESS DIR   writes one file per seed into DIR (which must exist)
 * Each harness documents its input format; here each seed is made in it. */
#include <stdio.h>
#include <string.h>
#include "../tests/helpers.h"
#include "../tests/encap_build.h"
#include "../tests/helpers_encap.h"
#include "softoffload/rss.h"
#include "softoffload/vnet.h"

#define MAXF 4096

static const char *dir;
static int nseed;

static void
put(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/seed-%03d", dir, nseed++);
	f = fopen(path, "wb");
	if (!f || fwrite(a, 1, alen, f) != alen || (blen && fwrite(b, 1, blen, f) != blen)) {
		perror(path);
		if (f)
			fclose(f);
		return;
	}
	fclose(f);
}

/* fuzz_vnet's UDP-tunnel seeds: a VXLAN (4789) or Geneve (6081) packet,
 * outer and inner IPv4 or IPv6, inner TCP or UDP, outer UDP checksum zero or
 * not (not computed: only its being non-zero counts here), with the 24-byte
 * header sofl_vnet_from_pkt() builds for it. */
static void
vnet_tunnel_seeds(void)
{
	static uint8_t in[MAXF], f[MAXF];
	struct t_spec s;
	struct sofl_pkt p;
	struct sofl_vnet_hdr h;
	uint8_t w[1 + SOFL_VNET_HDR_TNL_LEN];
	int k;

	for (k = 0; k < 16; k++) {
		int ov = k & 1 ? 6 : 4, iv = k & 2 ? 6 : 4, pr = k & 4 ? 17 : 6, gen = k & 8;
		size_t n, len, po;

		t_spec_init(&s, iv, pr);
		s.pay_len = 1800;
		s.csum = T_CSUM_PARTIAL;
		n = t_build(in, sizeof(in), &s);
		t_spec_init(&s, ov, 17);
		s.dport = gen ? 6081 : 4789;
		s.sport = 49153;
		s.pay_len = 8 + n;
		s.udp_zero_csum = k == 0;
		len = t_build(f, sizeof(f), &s);
		po = len - s.pay_len;
		memset(f + po, 0, 8);
		if (gen) {
			f[po + 2] = 0x65;
			f[po + 3] = 0x58;
		} else {
			f[po] = 0x08;
		}
		f[po + 6] = 0x2a;		/* VNI 42 */
		memcpy(f + po + 8, in, n);
		if (sofl_pkt_parse(&p, f, len, SOFL_LINK_ETH) < 0 ||
		    sofl_vnet_from_pkt(&h, &p, 500, SOFL_VNET_F_MK_CSUM | SOFL_VNET_F_TUNNEL |
				       SOFL_VNET_F_TUNNEL_CSUM) < 0)
			continue;
		w[0] = 0x10 | 0x20;
		sofl_vnet_encode(w + 1, SOFL_VNET_HDR_TNL_LEN, &h, SOFL_VNET_HDR_TNL_LEN, 0);
		put(w, sizeof(w), f, len);
		w[0] = 0x10;			/* without the checksum feature */
		put(w, sizeof(w), f, len);
	}
}

/* Tunnel shapes (pkt.h "Tunnels"): VXLAN TCP/IPv4 in IPv4, VXLAN TCP/IPv6
 * in IPv6 with outer checksum zero, Geneve with options and an IPv4
 * payload, Geneve Ethernet UDP/IPv6, 4in4, 6in6 (raw link), VXLAN in VXLAN */
static size_t
tunnel_shape(int i, uint8_t *buf, int *link)
{
	static const uint8_t opts[8] = { 0x01, 0x02, 0x80, 0x01, 0xde, 0xad, 0xbe, 0xef };
	uint8_t in[MAXF], mid[MAXF];
	struct t_spec s, o;
	struct t_encap e;
	size_t n;
	int iv = i == 1 || i == 3 || i == 5 ? 6 : 4, ov = i == 1 || i == 5 ? 6 : 4;
	int type = i == 2 || i == 3 ? SOFL_ENCAP_GENEVE : i == 4 || i == 5 ? SOFL_ENCAP_IPIP :
		   SOFL_ENCAP_VXLAN;

	t_spec_init(&s, iv, i == 3 ? 17 : 6);
	s.link = type == SOFL_ENCAP_IPIP || i == 2 ? SOFL_LINK_RAW : SOFL_LINK_ETH;
	s.pay_len = 1000;
	if (s.proto == 6) {
		s.tcp_opts = t_opt_ts;
		s.tcp_opts_len = 12;
	}
	n = t_build(in, MAXF, &s);
	t_encap_init(&e, type, 0x10203);
	if (i == 2) {
		e.gn_proto = 0x0800;
		e.gn_opts = opts;
		e.gn_opts_len = sizeof(opts);
	}
	t_spec_init(&o, ov, type == SOFL_ENCAP_IPIP ? (iv == 4 ? 4 : 41) : 17);
	o.dport = type == SOFL_ENCAP_GENEVE ? 6081 : 4789;
	o.udp_zero_csum = i == 1;
	o.link = i == 5 ? SOFL_LINK_RAW : SOFL_LINK_ETH;
	*link = o.link;
	if (i == 6) {		/* the VXLAN packet of shape 0 inside another */
		size_t m = t_build_encap(mid, MAXF, &o, &e, in, n);

		return t_build_encap(buf, MAXF, &o, &e, mid, m);
	}
	return t_build_encap(buf, MAXF, &o, &e, in, n);
}

/* The packet shapes every harness starts from. */
static size_t
shape(int i, uint8_t *buf, int *link)
{
	static const uint8_t syn[20] = {
		2, 4, 0x05, 0xb4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7 };
	static const uint8_t ra[4] = { 0x94, 4, 0, 0 };
	struct t_spec s;

	switch (i) {
	case 0: t_spec_init(&s, 4, 6); s.pay_len = 1400; s.tcp_opts = t_opt_ts; s.tcp_opts_len = 12; break;
	case 1: t_spec_init(&s, 6, 6); s.pay_len = 1400; s.csum = T_CSUM_PARTIAL; break;
	case 2: t_spec_init(&s, 4, 6); s.flags = SOFL_TCP_SYN; s.tcp_opts = syn; s.tcp_opts_len = 20; break;
	case 3: t_spec_init(&s, 4, 17); s.pay_len = 1200; break;
	case 4: t_spec_init(&s, 6, 17); s.pay_len = 1200; s.nvlan = 2; s.vlan_tpid[0] = 0x88A8; break;
	case 5: t_spec_init(&s, 4, 17); s.pay_len = 4; s.eth_pad = 14; s.udp_zero_csum = 1; break;
	case 6: t_spec_init(&s, 4, 6); s.ip_opts = ra; s.ip_opts_len = 4; s.pay_len = 100; break;
	case 7: t_spec_init(&s, 4, 17); s.df = 0; s.frag = 0x2000; s.pay_len = 64; break;
	case 8:
		t_spec_init(&s, 6, 6); s.pay_len = 300; s.n_ext = 3;
		s.ext[0].type = 0; s.ext[0].len = 8;
		s.ext[1].type = 43; s.ext[1].len = 24;
		s.ext[2].type = 60; s.ext[2].len = 16;
		break;
	case 9: t_spec_init(&s, 6, 17); s.n_ext = 1; s.ext[0].type = 44; s.ext[0].frag_mf = 1; s.pay_len = 100; break;
	case 10: t_spec_init(&s, 4, 6); s.link = SOFL_LINK_RAW; s.pay_len = 3000; break;
	case 11: t_spec_init(&s, 6, 17); s.link = SOFL_LINK_RAW; s.pay_len = 3000; break;
	case 12: t_spec_init(&s, 4, 1); s.pay_len = 56; break;
	case 13: t_spec_init(&s, 4, 6); *link = SOFL_LINK_ETH; return t_build_arp(buf, MAXF, &s);
	case 14: case 15: case 16: case 17: case 18: case 19: case 20:
		return tunnel_shape(i - 14, buf, link);
	default: return 0;
	}
	*link = s.link;
	return t_build(buf, MAXF, &s);
}

/* fuzz_gso: IPv6 UFO of a datagram whose SOFL_PKT_EXTHDR_MAX extension
 * headers (hop-by-hop, routing ...) are all repeated in every fragment, no
 * upper-layer header: the fragments carry one header more than the parser
 * takes (the harness once failed on this). */
static void
gso_ufo6_chain_seed(void)
{
	static const uint8_t hdr[4] = { 1 | 3 << 1 | 8 << 3, 0, 64, 0 };	/* raw, UFO 64, IGNORE_DF */
	uint8_t f[40 + 8 * SOFL_PKT_EXTHDR_MAX + 200];
	size_t o = 40;
	int i;

	memset(f, 0, sizeof(f));
	f[0] = 0x60;
	f[7] = 64;
	memset(f + 8, 0x20, 32);
	f[6] = 0;		/* hop-by-hop, PadN */
	f[o] = 43;
	f[o + 2] = 1;
	f[o + 3] = 4;
	for (o += 8, i = 1; i < SOFL_PKT_EXTHDR_MAX; i++, o += 8)
		f[o] = i + 1 < SOFL_PKT_EXTHDR_MAX ? 43 : 59;
	for (i = 0; i < 200; i++)
		f[o++] = (uint8_t)i;
	sofl_put16(f + 4, (uint16_t)(o - 40));
	put(hdr, 4, f, o);
}

/* fuzz_gso: tunnel super-packets (VXLAN over IPv4 with the outer UDP
 * checksum, Geneve with an option over IPv6 without, IP-in-IP 6in4), inner
 * TCP or UDP, each with the gso header bytes of a TCP and a UDP cut; the
 * tunnel bit is picked by bytes 1 ^ 2 ^ 3 (fuzz_gso.c). */
static void
gso_tun_seeds(void)
{
	static const uint8_t hdr[2][4] = {
		{ 1 << 1, 0x02, 0x18, 0 },	/* TCP 536; 0x02 ^ 0x18 = 0x1a: UDP_CSUM */
		{ 2 << 1, 0x01, 0xf4, 0 },	/* UDP_L4 500; 0x01 ^ 0xf4 = 0xf5: UDP */
	};
	uint8_t in[MAXF], f[MAXF];
	struct t_spec s;
	int k;

	for (k = 0; k < 6; k++) {
		int encap = k % 3, ov = encap == 1 ? 6 : 4, iv = encap == 2 ? 6 : 4;
		int proto = k < 3 ? 6 : 17;
		size_t il, o = 14, ol3 = 14, ip_len, hl;
		uint8_t *ip = f + ol3;

		t_spec_init(&s, iv, proto);
		s.link = encap == 2 ? SOFL_LINK_RAW : SOFL_LINK_ETH;
		s.pay_len = 1600;
		s.csum = T_CSUM_PARTIAL;
		il = t_build(in, sizeof(in), &s);
		memset(f, 0, 14 + 40 + 8 + 16);
		f[0] = 2; f[11] = 1;
		f[12] = ov == 4 ? 0x08 : 0x86; f[13] = ov == 4 ? 0x00 : 0xdd;
		o += ov == 4 ? 20 : 40;
		hl = encap == 2 ? 0 : 8 + (encap == 1 ? 8 : 0);
		if (encap != 2) {
			uint8_t *uh = f + o, *th = uh + 8;

			sofl_put16(uh, 50000);
			sofl_put16(uh + 2, encap == 1 ? 6081 : 4789);
			sofl_put16(uh + 4, (uint16_t)(8 + hl + il));
			if (encap == 0) {
				th[0] = 0x08;
				th[6] = 0x42;
			} else {
				th[0] = 2;		/* 8 bytes of options */
				sofl_put16(th + 2, 0x6558);
				th[6] = 0x42;
				sofl_put16(th + 8, 0x0102);
				th[10] = 0x80;
				th[11] = 1;
			}
			o += 8 + hl;
		}
		memcpy(f + o, in, il);
		ip_len = o + il - ol3;
		if (ov == 4) {
			ip[0] = 0x45;
			sofl_put16(ip + 2, (uint16_t)ip_len);
			ip[6] = 0x40;
			ip[8] = 64;
			ip[9] = encap == 2 ? 41 : 17;
			ip[12] = 198; ip[13] = 18; ip[15] = 1;
			ip[16] = 198; ip[17] = 18; ip[19] = 2;
			sofl_put16(ip + 10, (uint16_t)~sofl_csum_fold(sofl_csum_add(0, ip, 20)));
		} else {
			ip[0] = 0x60;
			sofl_put16(ip + 4, (uint16_t)(ip_len - 40));
			ip[6] = 17;
			ip[7] = 64;
			ip[8] = 0x20; ip[9] = 0x01; ip[11] = 2; ip[23] = 1;
			ip[24] = 0x20; ip[25] = 0x01; ip[27] = 2; ip[39] = 2;
		}
		if (encap == 0) {	/* the outer UDP checksum over the datagram */
			uint8_t *uh = f + ol3 + 20;
			uint32_t ulen = (uint32_t)(ip_len - 20);
			uint16_t c = (uint16_t)~sofl_csum_fold(sofl_csum_add(
				sofl_csum_pseudo_v4(ip + 12, ip + 16, 17, ulen), uh, ulen));

			sofl_put16(uh + 6, c ? c : 0xffff);
		}
		put(hdr[proto == 17], 4, f, o + il);
	}
}

/* fuzz_gro: config byte, split byte, then 2-byte-length-prefixed frames:
 * a train of @n consecutive segments of one flow (TCP, or UDP datagrams of
 * equal size), interleaved with a second flow when @mix. */
static void
gro_seed(uint8_t cfg, int ipv, int proto, int n, int mix, int link)
{
	static uint8_t blob[64 * 1600];
	uint8_t f[MAXF];
	size_t o = 2, len;
	struct t_spec s;
	int i, k;

	blob[0] = cfg;
	blob[1] = (uint8_t)(n / 2);
	for (i = 0; i < n; i++) {
		for (k = 0; k < (mix ? 2 : 1); k++) {
			t_spec_init(&s, ipv, proto);
			s.link = link;
			s.pay_len = 1000;
			s.seq = 1000 + (uint32_t)i * 1000;
			s.ip_id = (uint16_t)i;
			s.sport = (uint16_t)(40000 + k);
			s.pay_off = (uint32_t)i * 1000;
			if (i == n - 1 && proto == 6)
				s.flags |= SOFL_TCP_PSH;
			if (proto == 6) {
				s.tcp_opts = t_opt_ts;
				s.tcp_opts_len = 12;
			}
			len = t_build(f, MAXF, &s);
			if (o + 2 + len > sizeof(blob))
				break;
			blob[o] = (uint8_t)(len >> 8);
			blob[o + 1] = (uint8_t)len;
			memcpy(blob + o + 2, f, len);
			o += 2 + len;
		}
	}
	put(blob, o, NULL, 0);
}

/* fuzz_gro, tunnels: @n segments of one inner TCP flow (IPv@iv) under
 * @type (VXLAN, Geneve, IP-in-IP) over outer IPv@ov, the outer UDP checksum
 * zero or not (@ocsum), outer IPv4 IDs incrementing; with @bad the fourth
 * has a bad outer checksum */
static void
gro_tun_seed(uint8_t cfg, int type, int ov, int iv, int ocsum, int n, int bad)
{
	static uint8_t blob[64 * 1700];
	uint8_t f[MAXF], in[MAXF];
	size_t o = 2, len, il;
	struct t_spec s, os;
	struct t_encap e;
	int i;

	blob[0] = cfg;
	blob[1] = (uint8_t)(n / 2);
	for (i = 0; i < n; i++) {
		t_spec_init(&s, iv, 6);
		s.link = type == SOFL_ENCAP_IPIP ? SOFL_LINK_RAW : SOFL_LINK_ETH;
		s.pay_len = 900;
		s.seq = 1000 + (uint32_t)i * 900;
		s.pay_off = (uint32_t)i * 900;
		s.ip_id = (uint16_t)i;
		il = t_build(in, sizeof(in), &s);
		t_spec_init(&os, ov, type == SOFL_ENCAP_IPIP ? (iv == 4 ? 4 : 41) : 17);
		os.dport = type == SOFL_ENCAP_GENEVE ? 6081 : 4789;
		os.sport = 50000;
		os.ip_id = (uint16_t)(100 + i);
		os.udp_zero_csum = !ocsum;
		t_encap_init(&e, type, 0x123456);
		len = t_build_encap(f, MAXF, &os, &e, in, il);
		if (bad && i == 3 && type != SOFL_ENCAP_IPIP && ocsum)
			f[14 + (ov == 4 ? 20 : 40) + 6] ^= 0x11;
		if (o + 2 + len > sizeof(blob))
			break;
		blob[o] = (uint8_t)(len >> 8);
		blob[o + 1] = (uint8_t)len;
		memcpy(blob + o + 2, f, len);
		o += 2 + len;
	}
	put(blob, o, NULL, 0);
}

/* fuzz_port_afpacket: options, VLAN TCI, then records (2-byte length, the
 * 10-byte virtio header in host order, the frame): the Ethernet shapes as
 * plain frames, and each TCP/UDP one also as a super-packet with its GSO
 * header (gso_size 500), in SEGMENT and SUPER mode. */
static void
port_afpacket_seed(const uint8_t *f, size_t len, int link)
{
	static uint8_t blob[2 * (2 + SOFL_VNET_HDR_LEN + MAXF) + 3];
	struct sofl_vnet_hdr h;
	struct sofl_pkt p;
	size_t o;
	int k;

	if (link != SOFL_LINK_ETH || sofl_pkt_parse(&p, f, len, SOFL_LINK_ETH) < 0)
		return;
	for (k = 0; k < 2; k++) {
		memset(&h, 0, sizeof(h));
		if (k && ((p.layers & SOFL_LAYER_L4) == 0 ||
			  sofl_vnet_from_pkt(&h, &p, 500, SOFL_VNET_F_MK_CSUM) < 0))
			continue;
		blob[0] = (uint8_t)(k ? 0 : 1);
		blob[1] = 0x20;
		blob[2] = 0x05;
		o = 3;
		blob[o++] = (uint8_t)(len >> 8);
		blob[o++] = (uint8_t)len;
		sofl_vnet_encode(blob + o, SOFL_VNET_HDR_LEN, &h, SOFL_VNET_HDR_LEN, SOFL_VNET_F_NATIVE);
		o += SOFL_VNET_HDR_LEN;
		memcpy(blob + o, f, len);
		o += len;
		put(blob, o, NULL, 0);
		blob[0] = (uint8_t)(blob[0] ^ 1);
		put(blob, o, NULL, 0);
	}
}

/* fuzz_port_tun: options byte (bit 0 TAP), virtio header, frame: plain
 * and, when the frame can carry it, a GSO header of 500-byte segments.
 * fuzz_port_udp: gso_size (LE16), options, three copies of a raw-IP frame
 * (a UDP_GRO train of equal datagrams). */
static void
port_tun_udp_seed(int tun, const uint8_t *f, size_t len, int link)
{
	uint8_t w[1 + SOFL_VNET_HDR_MRG_LEN], train[3 * 1400];
	struct sofl_vnet_hdr h;
	struct sofl_pkt p;
	int k;

	if (!tun) {
		if (link != SOFL_LINK_RAW || len > 1400)
			return;
		train[0] = (uint8_t)len;
		train[1] = (uint8_t)(len >> 8);
		train[2] = 1;
		for (k = 0; k < 3; k++)
			memcpy(train + 3 + k * len, f, len);
		put(train, 3 + 3 * len, NULL, 0);
		return;
	}
	if (sofl_pkt_parse(&p, f, len, (enum sofl_link)link) < 0)
		return;
	for (k = 0; k < 2; k++) {
		if (sofl_vnet_from_pkt(&h, &p, k ? 500 : 0,
		    (p.layers & SOFL_LAYER_L4) ? SOFL_VNET_F_MK_CSUM : 0) < 0)
			continue;
		w[0] = (uint8_t)(link == SOFL_LINK_ETH ? 1 : 0) | (k ? 4 : 0);
		sofl_vnet_encode(w + 1, SOFL_VNET_HDR_MRG_LEN, &h, SOFL_VNET_HDR_MRG_LEN,
		    0);
		put(w, sizeof(w), f, len);
	}
}

/* fuzz_rss: tunnel packets (VXLAN, Geneve with options, IP-in-IP; both
 * families outside and inside), hashed outer and inner (bit 3). */
static void
rss_tunnel_seeds(void)
{
	static const int k[][4] = {	/* encap, outer ipv, inner ipv, inner proto */
		{ SOFL_ENCAP_VXLAN, 4, 4, 6 }, { SOFL_ENCAP_VXLAN, 6, 6, 17 },
		{ SOFL_ENCAP_GENEVE, 4, 6, 6 }, { SOFL_ENCAP_GENEVE, 6, 4, 17 },
		{ SOFL_ENCAP_IPIP, 4, 4, 6 }, { SOFL_ENCAP_IPIP, 6, 4, 17 },
	};
	uint8_t f[MAXF], h;
	size_t i, len;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		struct te_spec e;
		struct t_spec s;

		te_spec_init(&e, k[i][0], k[i][1]);
		e.udp_csum = (int)(i & 1);
		e.geneve_opt_len = k[i][0] == SOFL_ENCAP_GENEVE ? 8 : 0;
		t_spec_init(&s, k[i][2], k[i][3]);
		s.pay_len = 64;
		len = te_build(f, MAXF, &e, &s, NULL);
		h = 0;
		put(&h, 1, f, len);
		h = 8;
		put(&h, 1, f, len);
		h = 8 | 2;
		put(&h, 1, f, len);
	}
}

/* fuzz_port_tun with UDP-tunnel GSO (options bit 4): VXLAN and Geneve
 * super-packets behind their 24-byte header (both outer families, the outer
 * checksum zero or not), SEGMENT and SUPER. */
static void
port_tun_tnl_seeds(void)
{
	static const int k[][4] = {	/* encap, outer ipv, inner ipv, outer csum */
		{ SOFL_ENCAP_VXLAN, 4, 4, 0 }, { SOFL_ENCAP_VXLAN, 6, 6, 1 },
		{ SOFL_ENCAP_GENEVE, 4, 6, 1 }, { SOFL_ENCAP_GENEVE, 6, 4, 0 },
	};
	uint8_t f[MAXF], w[1 + SOFL_VNET_HDR_TNL_LEN];
	struct sofl_vnet_hdr h;
	struct sofl_pkt p;
	size_t i, len;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		struct te_spec e;
		struct t_spec s;

		te_spec_init(&e, k[i][0], k[i][1]);
		e.udp_csum = k[i][3];
		t_spec_init(&s, k[i][2], 6);
		s.pay_len = 1800;
		s.csum = T_CSUM_PARTIAL;
		len = te_build(f, MAXF, &e, &s, NULL);
		if (sofl_pkt_parse(&p, f, len, SOFL_LINK_ETH) < 0 ||
		    sofl_vnet_from_pkt(&h, &p, 600, SOFL_VNET_F_TUNNEL | SOFL_VNET_F_TUNNEL_CSUM |
				       SOFL_VNET_F_MK_CSUM) < 0)
			continue;
		sofl_vnet_encode(w + 1, SOFL_VNET_HDR_TNL_LEN, &h, SOFL_VNET_HDR_TNL_LEN, 0);
		w[0] = 16 | 1;
		put(w, sizeof(w), f, len);
		w[0] = 16 | 2 | 1;
		put(w, sizeof(w), f, len);
/* fuzz_tunnel_rx: mode, gso_size (LE16), then the frame under a VXLAN or
 * Geneve header (VNI 42) for Ethernet frames, bare (ip) or under Geneve for
 * IP packets; a two-datagram train of each too. */
static void
tunnel_rx_seed(const uint8_t *f, size_t len, int link)
{
	static const uint8_t vx[8] = { 0x08, 0, 0, 0, 0, 0, 42, 0 };
	static const uint8_t gn_eth[8] = { 0, 0, 0x65, 0x58, 0, 0, 42, 0 };
	uint8_t gn_ip[8] = { 0, 0, 0x08, 0x00, 0, 0, 42, 0 };
	uint8_t w[3 + 2 * (8 + 1600)];
	const uint8_t *hdr[2];
	uint8_t mode[2];
	size_t hl, d, k, m;

	if (len > 1600 || !len)
		return;
	if (link == SOFL_LINK_ETH) {
		hdr[0] = vx, mode[0] = 1;
		hdr[1] = gn_eth, mode[1] = 2;
	} else {
		if ((f[0] >> 4) == 6)
			gn_ip[2] = 0x86, gn_ip[3] = 0xdd;
		hdr[0] = NULL, mode[0] = 0;
		hdr[1] = gn_ip, mode[1] = 3;
	}
	for (m = 0; m < 2; m++) {
		hl = hdr[m] ? 8 : 0;
		d = hl + len;
		for (k = 0; k < 2; k++) {
			w[0] = mode[m];
			w[1] = (uint8_t)(k ? d : 0);
			w[2] = (uint8_t)(k ? d >> 8 : 0);
			if (hl)
				memcpy(w + 3, hdr[m], hl);
			memcpy(w + 3 + hl, f, len);
			if (k)
				memcpy(w + 3 + d, w + 3, d);
			put(w, 3 + (k + 1) * d, NULL, 0);
		}
	}
}

int
main(int argc, char **argv)
{
	uint8_t f[MAXF];
	size_t len;
	int i, link;

	if (argc != 3) {
		fprintf(stderr, "usage: seeds HARNESS DIR\n");
		return 2;
	}
	dir = argv[2];
	if (!strcmp(argv[1], "fuzz_rss"))
		rss_tunnel_seeds();
	if (!strcmp(argv[1], "fuzz_gro")) {
		gro_seed(0, 4, 6, 8, 0, SOFL_LINK_ETH);
		gro_seed(4 | 64, 6, 6, 6, 1, SOFL_LINK_ETH);
		gro_seed(2 | 16, 4, 6, 5, 1, SOFL_LINK_ETH);
		gro_seed(1 | 4, 4, 17, 6, 0, SOFL_LINK_ETH);
		gro_seed(1 | 32 | 128, 6, 17, 4, 1, SOFL_LINK_RAW);
		gro_seed(32 | 8, 4, 6, 7, 0, SOFL_LINK_RAW);
		gro_tun_seed(0, SOFL_ENCAP_VXLAN, 4, 4, 0, 6, 0);
		gro_tun_seed(0, SOFL_ENCAP_VXLAN, 6, 6, 1, 6, 1);
		gro_tun_seed(2, SOFL_ENCAP_GENEVE, 4, 6, 1, 5, 0);
		gro_tun_seed(16, SOFL_ENCAP_IPIP, 4, 4, 0, 5, 0);
		gro_tun_seed(0, SOFL_ENCAP_IPIP, 6, 4, 0, 4, 0);
		return 0;
	}
	if (!strcmp(argv[1], "fuzz_vnet"))
		vnet_tunnel_seeds();
	if (!strcmp(argv[1], "fuzz_port_tun"))
		port_tun_tnl_seeds();
	if (!strcmp(argv[1], "fuzz_gso")) {
		gso_tun_seeds();
		gso_ufo6_chain_seed();
	}
	for (i = 0; (len = shape(i, f, &link)) > 0; i++) {
		if (!strcmp(argv[1], "fuzz_pkt")) {
			uint8_t l = (uint8_t)link;
			put(&l, 1, f, len);
			if (i >= 14) {	/* the tunnel shapes: each config, split */
				int k;

				for (k = 1; k < 6; k++) {
					l = (uint8_t)(link | k << 1 | (k & 1) << 4);
					put(&l, 1, f, len);
				}
			}
		} else if (!strcmp(argv[1], "fuzz_gso")) {
			/* link | type << 1 | flags << 3, gso_size, mtu / 8 */
			static const uint8_t v[][4] = {
				{ 1 << 1, 0x05, 0xa8, 0 },		/* TCP 1448 */
				{ 1 << 1 | 2 << 3, 0x02, 0x18, 0 },	/* TCP 536, CSUM_PARTIAL */
				{ 2 << 1, 0x01, 0xf4, 0 },		/* UDP_L4 500 */
				{ 3 << 1 | 8 << 3, 0, 0, 160 },		/* UFO mtu 1280, IGNORE_DF */
				{ 0, 0, 0, 0 },				/* NONE */
			};
			size_t k;

			for (k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
				uint8_t h[4];

				memcpy(h, v[k], 4);
				h[0] = (uint8_t)(h[0] | link);
				put(h, 4, f, len);
			}
		} else if (!strcmp(argv[1], "fuzz_vnet")) {
			struct sofl_pkt p;
			struct sofl_vnet_hdr h;
			uint8_t w[1 + SOFL_VNET_HDR_MRG_LEN];
			int k;

			if (sofl_pkt_parse(&p, f, len, (enum sofl_link)link) < 0)
				continue;
			for (k = 0; k < 2; k++) {
				if (sofl_vnet_from_pkt(&h, &p, k ? 500 : 0,
				    (p.layers & SOFL_LAYER_L4) ? SOFL_VNET_F_MK_CSUM : 0) < 0)
					continue;
				w[0] = (uint8_t)((k ? 4 : 0) | (link == SOFL_LINK_RAW ? 8 : 0));
				sofl_vnet_encode(w + 1, SOFL_VNET_HDR_MRG_LEN, &h,
				    k ? SOFL_VNET_HDR_MRG_LEN : SOFL_VNET_HDR_LEN, 0);
				put(w, k ? 1 + SOFL_VNET_HDR_MRG_LEN : 1 + SOFL_VNET_HDR_LEN, f, len);
			}
		} else if (!strcmp(argv[1], "fuzz_rss")) {
			/* link | symmetric << 1; with bit 2 a 40-byte key first */
			uint8_t h[1 + SOFL_RSS_KEY_LEN];

			h[0] = (uint8_t)link;
			put(h, 1, f, len);
			h[0] = (uint8_t)(link | 2);
			put(h, 1, f, len);
			h[0] = (uint8_t)(link | 2 | 4);
			memcpy(h + 1, sofl_rss_default_key, SOFL_RSS_KEY_LEN);
			h[1] ^= 0x80;
			put(h, sizeof(h), f, len);
		} else if (!strcmp(argv[1], "fuzz_l2")) {
			/* options, csum_start, hdr_len (LE16 each), the frame */
			static const uint8_t o[][5] = {
				{ 0, 0, 0, 0, 0 },
				{ 8, 0, 0, 0, 0 },				/* adopt addresses */
				{ 1 | 2, 34, 0, 66, 0 },			/* NEEDS_CSUM */
				{ 1 | 4 | 8 | 16, 0, 0, 0, 0 },			/* DATA_VALID, head area */
			};
			size_t k;

			if (link != SOFL_LINK_ETH)
				continue;
			for (k = 0; k < sizeof(o) / sizeof(o[0]); k++)
				put(o[k], sizeof(o[k]), f, len);
		} else if (!strcmp(argv[1], "fuzz_port_afpacket")) {
			port_afpacket_seed(f, len, link);
		} else if (!strcmp(argv[1], "fuzz_port_tun") ||
			   !strcmp(argv[1], "fuzz_port_udp")) {
			port_tun_udp_seed(argv[1][10] == 't', f, len, link);
		} else if (!strcmp(argv[1], "fuzz_tunnel_rx")) {
			tunnel_rx_seed(f, len, link);
		} else {
			fprintf(stderr, "seeds: no seeds for %s\n", argv[1]);
			return 0;
		}
	}
	return 0;
}
