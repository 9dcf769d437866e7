/* kcraft — small crafted captures for the kernel-oracle tests
 * (docs/kernel-oracle.md), built with the shared test builders.
 *
 *   kcraft gro -w cases.pcap -B cases.batches [-N]  TCP GRO flush paths
 *                                                   (-N: without the VLAN cases,
 *                                                   for a kernel without 802.1Q)
 *   kcraft udpgro -w cases.pcap -B cases.batches    UDP GRO trains
 *   kcraft gso -w supers.pcap -m supers.vnet        GSO/USO super-packets
 *
 * GRO: each case is one NAPI poll; the -B file gets the comma-separated case
 * sizes (the poll sizes).  The cases follow the kernel selftest table
 * (tools/testing/selftests/net/gro.c) plus a few rules of docs/gro-rules.md
 * the selftest lacks (window/ack change, reordering,
 * more flows than a GRO bucket holds, Ethernet padding, bad IP checksum,
 * sequence wrap-around, IPv6 flow label / hop limit, VLAN and QinQ tags).
 *
 * GSO: super-packets with the partial (pseudo-header) checksum a TSO sender
 * puts there and their virtio_net_hdr in the sidecar: TCP v4/v6 with odd
 * remainders, PSH/FIN/CWR/URG, options, DF=0, IPv6 extension headers,
 * VLAN/QinQ tags; USO v4/v6.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "../helpers.h"
#include "kutil.h"

static struct kset set;
static size_t case_start;
static size_t *cases;
static size_t ncases, capcases;
static uint8_t buf[70000];
static int kver;	/* running kernel, major * 100 + minor */
static int no_vlan;	/* -N: the kernel has no 802.1Q support (no VLAN GRO) */

/* Cases whose kernel answer changed across versions are only crafted when
 * the running kernel has the 6.18 behaviour the library implements
 * (docs/gro-rules.md: CWR, fixed IPv4 IDs; docs/kernel-oracle.md): the oracle is whatever
 * kernel runs, e.g. Debian 12's 6.1 in CI. */
static int
since(int want, const char *what)
{
	if (kver >= want)
		return 1;
	if (k_required())
		k_die("kcraft: kernel %d.%d < %d.%d: case '%s' cannot be checked here, and "
		      "SOFL_REQUIRE_ORACLE=1 requires every case", kver / 100, kver % 100,
		      want / 100, want % 100, what);
	fprintf(stderr, "kcraft: kernel %d.%d < %d.%d: case '%s' left out (its answer "
		"changed in %d.%d)\n", kver / 100, kver % 100, want / 100, want % 100, what,
		want / 100, want % 100);
	return 0;
}

static void
emit(const struct t_spec *s)
{
	size_t len = t_build(buf, sizeof(buf), s);

	kset_add(&set, buf, (uint32_t)len, NULL);
}

/* Emit with the TCP checksum field decremented (invalid). */
static void
emit_badcsum(const struct t_spec *s)
{
	size_t len = t_build(buf, sizeof(buf), s), l4 = 14 + (s->ipv == 4 ? 20 : 40);

	sofl_put16(buf + l4 + 16, (uint16_t)(sofl_get16(buf + l4 + 16) - 1));
	kset_add(&set, buf, (uint32_t)len, NULL);
}

static void
end_case(void)
{
	if (set.n == case_start)
		return;
	if (ncases == capcases) {
		capcases = capcases ? 2 * capcases : 64;
		cases = realloc(cases, capcases * sizeof(*cases));
		if (!cases)
			k_die("out of memory");
	}
	cases[ncases++] = set.n - case_start;
	case_start = set.n;
}

/* A TCP segment of @len payload bytes at sequence offset @off of the flow. */
static void
seg(struct t_spec *s, uint32_t base, uint32_t off, size_t len)
{
	s->seq = base + off;
	s->pay_off = off;
	s->pay_len = len;
	emit(s);
}

static void
tcp_cases(int ipv)
{
	static const uint8_t ipts[8] = { 68, 8, 5, 0, 0, 0, 0, 0 };	/* IPv4 timestamp option */
	uint8_t ts0[12], ts100[12], ts_o1[12], ts_o2[12], tswsc[12];
	struct t_spec s, b;
	const uint32_t base = 100;
	int i, f;

	t_spec_init(&b, ipv, 6);
	b.ttl = 8;
	b.ip_id = 0;
	b.seq = base;
	b.ack = 100;

	/* data_same, data_lrg_sml, data_sml_lrg */
	s = b; seg(&s, base, 0, 100); seg(&s, base, 100, 100); end_case();
	s = b; seg(&s, base, 0, 100); seg(&s, base, 100, 50); end_case();
	s = b; seg(&s, base, 0, 50); seg(&s, base, 50, 100); end_case();
	/* pure ACKs: never held */
	s = b; seg(&s, base, 0, 0); seg(&s, base, 0, 0); s.ack++; seg(&s, base, 0, 0); end_case();
	/* PSH in the middle */
	s = b;
	for (i = 0; i < 5; i++) {
		s.flags = (uint8_t)(SOFL_TCP_ACK | (i == 2 ? SOFL_TCP_PSH : 0));
		seg(&s, base, (uint32_t)i * 100, 100);
	}
	end_case();
	/* SYN / RST / URG zero-length in the middle, FIN with payload */
	for (f = 0; f < 4; f++) {
		static const uint8_t fl[4] = { SOFL_TCP_SYN, SOFL_TCP_RST, SOFL_TCP_URG, SOFL_TCP_FIN };

		s = b;
		seg(&s, base, 0, 100);
		seg(&s, base, 100, 100);
		s.flags = (uint8_t)(SOFL_TCP_ACK | fl[f]);
		seg(&s, base, 200, fl[f] == SOFL_TCP_FIN ? 100 : 0);
		s.flags = SOFL_TCP_ACK;
		seg(&s, base, 300, 100);
		seg(&s, base, 400, 100);
		end_case();
	}
	/* CWR in the 2nd and 3rd segment */
	if (since(615, "CWR")) {
		s = b;
		for (i = 0; i < 5; i++) {
			s.flags = (uint8_t)(SOFL_TCP_ACK | (i == 1 || i == 2 ? SOFL_TCP_CWR : 0));
			seg(&s, base, (uint32_t)i * 100, 100);
		}
		end_case();
	}
	/* ECE on all segments (flags equal: merge) */
	s = b; s.flags = SOFL_TCP_ACK | SOFL_TCP_ECE;
	seg(&s, base, 0, 100); seg(&s, base, 100, 100); seg(&s, base, 200, 100); end_case();
	/* bad TCP checksum on the 2nd */
	s = b; seg(&s, base, 0, 100); s.seq = base + 100; s.pay_off = 100; emit_badcsum(&s);
	seg(&s, base, 200, 100); end_case();
	/* sequence gap, overlap (retransmission), reordering */
	s = b; seg(&s, base, 0, 100); seg(&s, base, 101, 100); end_case();
	s = b; seg(&s, base, 0, 100); seg(&s, base, 100, 100); seg(&s, base, 100, 100);
	seg(&s, base, 200, 100); end_case();
	s = b; seg(&s, base, 100, 100); seg(&s, base, 0, 100); seg(&s, base, 200, 100);
	seg(&s, base, 300, 100); end_case();
	/* timestamps: equal, different value, different option layouts */
	t_opt_ts_set(ts0, 0, 0);
	t_opt_ts_set(ts100, 100, 0);
	memcpy(ts_o1, (const uint8_t[12]){ 1, 8, 10, 0, 0, 0, 100, 0, 0, 0, 0, 1 }, 12);
	memcpy(ts_o2, (const uint8_t[12]){ 8, 10, 0, 0, 0, 100, 0, 0, 0, 0, 1, 1 }, 12);
	s = b; s.tcp_opts_len = 12;
	s.tcp_opts = ts0; seg(&s, base, 0, 100); seg(&s, base, 100, 100);
	s.tcp_opts = ts100; seg(&s, base, 200, 100);
	s.tcp_opts = ts_o1; seg(&s, base, 300, 100);
	s.tcp_opts = ts_o2; seg(&s, base, 400, 100);
	end_case();
	/* different options size (window scale appended) */
	memcpy(tswsc, (const uint8_t[12]){ 1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 7 }, 12);
	s = b; s.tcp_opts = ts0; s.tcp_opts_len = 12;
	seg(&s, base, 0, 100); seg(&s, base, 100, 100);
	s.tcp_opts = tswsc; seg(&s, base, 200, 100); end_case();
	/* window change, ack change */
	s = b; seg(&s, base, 0, 100); s.win = 1000; seg(&s, base, 100, 100); end_case();
	s = b; seg(&s, base, 0, 100); s.ack += 1; seg(&s, base, 100, 100); end_case();
	/* ECN codepoint (ECT(0)) on the 2nd, TOS, TTL */
	s = b; seg(&s, base, 0, 100); s.tos = 2; seg(&s, base, 100, 100); end_case();
	s = b; seg(&s, base, 0, 100); s.tos = ipv == 4 ? 1 : 0xf0; seg(&s, base, 100, 100); end_case();
	s = b; seg(&s, base, 0, 100); s.ttl = 7; seg(&s, base, 100, 100); end_case();
	/* sequence number wrap-around */
	s = b; seg(&s, 0xffffff00u, 0, 100); seg(&s, 0xffffff00u, 100, 100);
	seg(&s, 0xffffff00u, 200, 100); seg(&s, 0xffffff00u, 300, 100); end_case();
	/* Ethernet padding: a short segment padded to 60 bytes (length mismatch) */
	s = b; seg(&s, base, 0, 4); s.eth_pad = 2; seg(&s, base, 4, 4); s.eth_pad = 0;
	seg(&s, base, 8, 4); end_case();
	/* more flows than a GRO bucket holds (the TAP's rx hash is 0: one bucket) */
	for (i = 0; i < 30; i++) {
		s = b;
		s.sport = (uint16_t)(40000 + i % 10);
		s.ip_id = (uint16_t)(i / 10);
		seg(&s, base, (uint32_t)(i / 10) * 100, 100);
	}
	end_case();
	/* VLAN: a tagged train with another VLAN's train interleaved, the same
	 * VID with another priority (PCP: a different TCI, another flow), and
	 * a QinQ (802.1ad outer) train; GRO looks through the tags. */
	for (f = 0; f < 3 && !no_vlan; f++) {
		for (i = 0; i < 8; i++) {
			s = b;
			s.nvlan = f == 2 ? 2 : 1;
			s.vlan_tpid[0] = f == 2 ? 0x88A8 : 0x8100;
			s.vlan_tci[0] = (uint16_t)(f == 1 ? (i & 1) << 13 | 100 : 100 + (i & 1));
			s.vlan_tci[1] = 7;
			s.ip_id = (uint16_t)(i / 2);
			seg(&s, base, (uint32_t)(i / 2) * 100, 100);
		}
		end_case();
	}
	/* long train of MSS-sized segments then a short one */
	s = b;
	for (i = 0; i < 40; i++) {
		s.ip_id = (uint16_t)i;
		seg(&s, base, (uint32_t)i * 1448, 1448);
	}
	s.ip_id = 40;
	seg(&s, base, 40 * 1448, 17);
	end_case();
	/* large: MSS 4036, 16 full + remainder, then the next one (size limit) */
	for (f = 0; f < 2; f++) {
		size_t rem = (ipv == 4 ? 919 : 899) + (size_t)f;

		s = b;
		for (i = 0; i < 16; i++)
			seg(&s, base, (uint32_t)i * 4036, 4036);
		seg(&s, base, 16 * 4036, rem);
		seg(&s, base, 16 * 4036 + (uint32_t)rem, rem);
		end_case();
	}
	if (ipv == 4) {
		/* IP options on the 2nd */
		s = b; seg(&s, base, 0, 100); s.ip_opts = ipts; s.ip_opts_len = 8;
		seg(&s, base, 100, 100); s.ip_opts = NULL; s.ip_opts_len = 0;
		seg(&s, base, 200, 100); end_case();
		/* fragment (DF+MF) after a segment */
		s = b; seg(&s, base, 0, 100); s.frag = 0x2000; seg(&s, base, 100, 100); end_case();
		/* reserved ("evil") bit */
		s = b; seg(&s, base, 0, 100); s.frag = 0x8000; seg(&s, base, 100, 100);
		s.frag = 0; seg(&s, base, 200, 100); end_case();
		/* IP ID modes: DF x {inc, fixed}, then switches */
		for (f = 0; f < 2; f++) {
			static const uint16_t ids[4][3] = { { 8, 9, 0 }, { 8, 8, 0 }, { 8, 9, 9 }, { 8, 8, 9 } };
			int k;

			for (k = 0; k < 4; k++) {
				if (f == 0 && k != 0 && !since(618, "IPv4 fixed ID with DF=0"))
					continue;
				s = b;
				s.df = f;
				for (i = 0; i < (ids[k][2] ? 3 : 2); i++) {
					s.ip_id = ids[k][i];
					seg(&s, base, (uint32_t)i * 100, 100);
				}
				end_case();
			}
		}
		/* ID wrap-around in incrementing mode */
		s = b;
		for (i = 0; i < 4; i++) {
			s.ip_id = (uint16_t)(0xfffe + i);
			seg(&s, base, (uint32_t)i * 100, 100);
		}
		end_case();
		/* bad IPv4 header checksum on the 2nd */
		s = b; seg(&s, base, 0, 100);
		s.seq = base + 100; s.pay_off = 100; s.pay_len = 100;
		{
			size_t len = t_build(buf, sizeof(buf), &s);

			buf[14 + 10] ^= 0x01;
			kset_add(&set, buf, (uint32_t)len, NULL);
		}
		seg(&s, base, 200, 100); end_case();
	} else {
		/* fragment header on the 3rd */
		s = b; seg(&s, base, 0, 100); seg(&s, base, 100, 100);
		s.n_ext = 1; s.ext[0] = (struct t_ext){ .type = 44, .len = 8 };
		seg(&s, base, 200, 100); s.n_ext = 0; seg(&s, base, 300, 100); end_case();
		/* identical / different destination options */
		s = b; s.n_ext = 1; s.ext[0] = (struct t_ext){ .type = 60, .len = 8, .fill = 0 };
		seg(&s, base, 0, 100); seg(&s, base, 100, 100); end_case();
		s = b; s.n_ext = 1; s.ext[0] = (struct t_ext){ .type = 60, .len = 8, .fill = 0 };
		seg(&s, base, 0, 100); s.ext[0].fill = 0x11; seg(&s, base, 100, 100); end_case();
		/* flow label differs (not the same flow), hop limit differs */
		s = b; s.flow_label = 1; seg(&s, base, 0, 100); s.flow_label = 2;
		seg(&s, base, 100, 100); s.flow_label = 1; seg(&s, base, 200, 100); end_case();
	}
}

static void
udp_cases(int ipv)
{
	struct t_spec s, b;
	int i;

	t_spec_init(&b, ipv, 17);
	b.dport = 9000;
	/* equal datagrams, then a shorter last one */
	s = b;
	for (i = 0; i < 5; i++) {
		s.ip_id = (uint16_t)i;
		s.pay_off = (uint32_t)i * 1000;
		s.pay_len = i == 4 ? 300 : 1000;
		emit(&s);
	}
	end_case();
	/* a longer one starts a new train */
	s = b;
	for (i = 0; i < 4; i++) {
		s.ip_id = (uint16_t)i;
		s.pay_len = i == 2 ? 1200 : 1000;
		emit(&s);
	}
	end_case();
	/* zero checksum (IPv4 only: IPv6 forbids it) */
	if (ipv == 4) {
		s = b; s.pay_len = 500; emit(&s); s.ip_id = 1; s.udp_zero_csum = 1; emit(&s);
		s.ip_id = 2; s.udp_zero_csum = 0; emit(&s); end_case();
	}
	/* two flows interleaved, TTL change */
	s = b;
	for (i = 0; i < 6; i++) {
		s.sport = (uint16_t)(40000 + (i & 1));
		s.ip_id = (uint16_t)(i / 2);
		s.pay_len = 700;
		emit(&s);
	}
	end_case();
	/* TTL change: UDP GRO checks the IP header like TCP only since the
	 * network-flush rework (6.10, net/core/gro.c) */
	if (since(610, "UDP TTL change")) {
		s = b; s.pay_len = 600; emit(&s); s.ip_id = 1; s.ttl = 9; emit(&s); end_case();
	}
	/* one-byte datagrams */
	s = b;
	for (i = 0; i < 10; i++) {
		s.ip_id = (uint16_t)i;
		s.pay_len = 1;
		emit(&s);
	}
	end_case();
}

/* super()'s extra_flags for UFO (VIRTIO_NET_HDR_GSO_UDP): no ECN there */
#define UFO 0x100

/* A super-packet with the partial checksum and its virtio header. */
static void
super(struct t_spec *s, uint16_t mss, int extra_flags)
{
	struct sofl_vnet_hdr vh;
	struct sofl_pkt p;
	size_t len;

	s->csum = T_CSUM_PARTIAL;
	len = t_build(buf, sizeof(buf), s);
	if (sofl_pkt_parse(&p, buf, len, SOFL_LINK_ETH) < 0)
		k_die("kcraft: built an unparsable super-packet");
	memset(&vh, 0, sizeof(vh));
	vh.flags = SOFL_VNET_HDR_F_NEEDS_CSUM;
	vh.gso_type = (uint8_t)((s->proto == 17 ? SOFL_GSO_UDP_L4 :
				 s->ipv == 4 ? SOFL_GSO_TCPV4 : SOFL_GSO_TCPV6) | extra_flags);
	if (extra_flags == UFO)
		vh.gso_type = SOFL_GSO_UFO;
	vh.gso_size = mss;
	vh.hdr_len = (uint16_t)p.pay_off;
	vh.csum_start = p.l4_off;
	vh.csum_offset = s->proto == 17 ? 6 : 16;
	kset_add(&set, buf, (uint32_t)len, &vh);
}

static void
gso_cases(void)
{
	static const uint16_t sizes[] = { 1448, 1000, 536, 1 };
	uint8_t ts[12];
	struct t_spec s;
	int ipv, i;

	t_opt_ts_set(ts, 0x01020304, 0x0a0b0c0d);
	for (ipv = 4; ipv <= 6; ipv += 2) {
		for (i = 0; i < 4; i++) {
			t_spec_init(&s, ipv, 6);
			s.ip_id = (uint16_t)(0xfffc + i);	/* ID wraps during the run */
			s.pay_len = sizes[i] == 1 ? 40 : (size_t)sizes[i] * 7 + 333;
			super(&s, sizes[i], 0);
		}
		/* exact multiple of the MSS, PSH|FIN, timestamps */
		t_spec_init(&s, ipv, 6);
		s.flags = SOFL_TCP_ACK | SOFL_TCP_PSH | SOFL_TCP_FIN;
		s.tcp_opts = ts;
		s.tcp_opts_len = 12;
		s.pay_len = 1448 * 10;
		super(&s, 1448, 0);
		/* CWR (and the ECN gso flag), URG */
		t_spec_init(&s, ipv, 6);
		s.flags = SOFL_TCP_ACK | SOFL_TCP_CWR | SOFL_TCP_ECE;
		s.pay_len = 3000;
		super(&s, 1400, SOFL_GSO_ECN);
		t_spec_init(&s, ipv, 6);
		s.flags = SOFL_TCP_ACK | SOFL_TCP_URG;
		s.urg = 10;
		s.pay_len = 3000;
		super(&s, 1400, 0);
		/* largest IP packet */
		t_spec_init(&s, ipv, 6);
		s.pay_len = 65535 - (ipv == 4 ? 40 : 20);
		s.seq = 0xfffff000u;			/* sequence wraps */
		super(&s, 1448, 0);
		if (ipv == 4) {
			t_spec_init(&s, 4, 6);
			s.df = 0;
			s.pay_len = 5000;
			super(&s, 1460, 0);
		} else {
			t_spec_init(&s, 6, 6);
			s.n_ext = 1;
			s.ext[0] = (struct t_ext){ .type = 60, .len = 16, .fill = 0 };
			s.pay_len = 5000;
			super(&s, 1400, 0);
		}
		/* 802.1Q and QinQ tagged (segmentation looks through the tags) */
		t_spec_init(&s, ipv, 6);
		s.nvlan = 1;
		s.vlan_tci[0] = 0x2000 | 42;
		s.pay_len = 4000;
		super(&s, 1300, 0);
		t_spec_init(&s, ipv, 6);
		s.nvlan = 2;
		s.vlan_tpid[0] = 0x88A8;
		s.vlan_tci[0] = 7;
		s.vlan_tci[1] = 42;
		s.pay_len = 4000;
		super(&s, 1300, 0);
		/* USO (TAP accepts VIRTIO_NET_HDR_GSO_UDP_L4 since 6.2) */
		if (!since(602, "USO through a TAP"))
			continue;
		t_spec_init(&s, ipv, 17);
		s.dport = 9000;
		s.pay_len = 1472 * 3 + 5;
		super(&s, 1472, 0);
		t_spec_init(&s, ipv, 17);
		s.dport = 9000;
		s.pay_len = 8000;
		super(&s, 1000, 0);
		t_spec_init(&s, ipv, 17);
		s.dport = 9000;
		s.pay_len = 129;
		super(&s, 1, 0);	/* above UDP_MAX_SEGMENTS (128): the kernel refuses it */
	}
	/* UFO (VIRTIO_NET_HDR_GSO_UDP): IP fragments of gso_size bytes; over
	 * IPv6 the kernel picks each datagram's identification (kgsocmp
	 * compares all but it, and checks it) */
	for (ipv = 4; ipv <= 6; ipv += 2) {
		t_spec_init(&s, ipv, 17);
		s.dport = 9000;
		s.df = 1;	/* UFO fragments regardless */
		s.pay_len = 3000;
		super(&s, 1200, UFO);
		t_spec_init(&s, ipv, 17);
		s.dport = 9000;
		s.pay_len = 8000;
		super(&s, 1448, UFO);
	}
}

static void
write_list(const char *path)
{
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f)
		k_die("%s: %s", path, strerror(errno));
	for (i = 0; i < ncases; i++)
		fprintf(f, "%s%zu", i ? "," : "", cases[i]);
	fputc('\n', f);
	if (fclose(f) != 0)
		k_die("%s: write failed", path);
}

int
main(int argc, char **argv)
{
	const char *w = NULL, *m = NULL, *bl = NULL, *what;
	int c;

	if (argc < 2)
		k_die("usage: kcraft gro|udpgro -w out.pcap -B out.batches | gso -w out.pcap -m out.vnet");
	what = argv[1];
	{
		struct utsname u;
		int maj = 0, min = 0;

		if (uname(&u) == 0 && sscanf(u.release, "%d.%d", &maj, &min) == 2)
			kver = maj * 100 + min;
	}
	optind = 2;
	while ((c = getopt(argc, argv, "w:m:B:N")) != -1) {
		switch (c) {
		case 'N': no_vlan = 1; break;
		case 'w': w = optarg; break;
		case 'm': m = optarg; break;
		case 'B': bl = optarg; break;
		default: return 2;
		}
	}
	if (!w)
		k_die("kcraft: -w is required");
	if (!strcmp(what, "gro") || !strcmp(what, "udpgro")) {
		if (!bl)
			k_die("kcraft %s: -B is required", what);
		if (!strcmp(what, "gro")) {
			if (no_vlan)
				fprintf(stderr, "kcraft: VLAN cases left out (-N)\n");
			tcp_cases(4);
			tcp_cases(6);
		} else {
			udp_cases(4);
			udp_cases(6);
		}
		kset_write(&set, w, NULL);
		write_list(bl);
	} else if (!strcmp(what, "gso")) {
		if (!m)
			k_die("kcraft gso: -m is required");
		gso_cases();
		kset_write(&set, w, m);
	} else {
		k_die("kcraft: unknown set '%s'", what);
	}
	printf("kcraft %s: %zu frames%s", what, set.n, ncases ? "" : "\n");
	if (ncases)
		printf(" in %zu cases\n", ncases);
	kset_free(&set);
	free(cases);
	return 0;
}
