/* kcraft — small crafted captures for the kernel-oracle tests
 * (docs/kernel-oracle.md), built with the shared test builders.
 *
 *   kcraft gro -w cases.pcap -B cases.batches [-N]  TCP GRO flush paths
 *                                                   (-N: without the VLAN cases,
 *                                                   for a kernel without 802.1Q)
 *   kcraft udpgro -w cases.pcap -B cases.batches    UDP GRO trains
 *   kcraft gso -w supers.pcap -m supers.vnet        GSO/USO super-packets
 *   (gro, udpgro, tungro: -L labels.txt names each case, "poll N: ...")
 *   kcraft tungro -w cases.pcap -B cases.batches    the TCP flush table inside
 *                                                   VXLAN (outer IPv4/IPv6, checksum
 *                                                   0/set) and IP-in-IP (4in4, 6in4,
 *                                                   4in6, 6in6), plus outer-layer cases
 *                                                   (-u: the UDP table instead; -I:
 *                                                   IP-in-IP only; -X: with the VXLAN
 *                                                   flag cases of a known difference)
 *   kcraft tungso -w supers.pcap -m supers.vnet     VXLAN super-packets with the
 *                                                   24-byte tunnel virtio header
 *   kcraft tunvnet -r in.pcap -i in.vnet -w out.pcap -m out.vnet
 *                                                   a real VXLAN TSO capture's super-
 *                                                   packets given tunnel virtio headers
 *   kcraft mangle -r in.pcap -S seed -w out.pcap    loss/reorder/retransmission/bad-
 *                                                   checksum variant of a capture
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

static void out_frame(const uint8_t *f, size_t len);
static int encap_ipip(void);

static void
emit(const struct t_spec *s)
{
	size_t len = t_build(buf, sizeof(buf), s);

	out_frame(buf, len);
}

/* Emit with the TCP checksum field decremented (invalid). */
static void
emit_badcsum(const struct t_spec *s)
{
	size_t len = t_build(buf, sizeof(buf), s), l4 = 14 + (s->ipv == 4 ? 20 : 40);

	sofl_put16(buf + l4 + 16, (uint16_t)(sofl_get16(buf + l4 + 16) - 1));
	out_frame(buf, len);
}

/* -L: one line per case ("poll N: what"), to name the case of a poll
 * where kgrocmp reports a difference. */
static FILE *labels;
static char ctx[96];		/* the table and encapsulation being crafted */
static int ctx_case;		/* case number within it */
static const char *case_name;	/* a named case, or NULL */

static void
end_case(void)
{
	if (set.n == case_start)
		return;
	if (labels)
		fprintf(labels, "poll %zu: %s, case %d%s%s\n", ncases, ctx[0] ? ctx : "plain",
			ctx_case, case_name ? ": " : "", case_name ? case_name : "");
	ctx_case++;
	case_name = NULL;
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
	for (f = 0; f < 3 && !no_vlan && !encap_ipip(); f++) {
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
			out_frame(buf, len);
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

/* ---- Tunnels: kcraft tungro, tungso, tunvnet, mangle ----
 *
 * Crafted tunnel frames are an inner Ethernet frame from t_build() wrapped
 * in the outer headers of `enc`: VXLAN (outer Ethernet, IPv4/IPv6, UDP to
 * 4789, the 8-byte VXLAN header, the inner frame with its Ethernet header)
 * or IP-in-IP (outer Ethernet and IPv4/IPv6, protocol 4 or 41, the inner IP
 * packet).  Outer IPv4 IDs count up from enc.id by enc.id_step, as Linux's
 * VXLAN (DF clear) sends them. */
enum { ENC_NONE, ENC_VXLAN, ENC_IPIP };

struct encap {
	int kind, oipv;
	int csum;		/* VXLAN: outer UDP checksum set (else 0) */
	int bad_csum;		/* VXLAN: that checksum wrong */
	int runt;		/* VXLAN: the UDP payload cut to 4 bytes of VXLAN header */
	uint16_t sport, id, id_step;
	uint32_t vni, flow_label;
	uint8_t vxflags, ttl, tos, df;
	uint8_t odst;		/* last byte of the outer destination address */
	uint8_t imac;		/* XORed into the inner destination MAC's last byte */
};
static struct encap enc;
static uint8_t wbuf[sizeof(buf) + 128];

static int
encap_ipip(void)
{
	return enc.kind == ENC_IPIP;
}

static void
enc_set(int kind, int oipv, int csum)
{
	memset(&enc, 0, sizeof(enc));
	enc.kind = kind;
	enc.oipv = oipv;
	enc.csum = csum;
	enc.sport = 51000;
	enc.id = 0x1000;
	enc.id_step = 1;
	enc.vni = 42;
	enc.vxflags = 0x08;
	enc.ttl = 64;
	enc.odst = 2;
}

static uint32_t
sum16(uint32_t s, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static uint16_t
fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* The outer UDP pseudo-header sum (not complemented) of @ulen bytes. */
static uint32_t
pseudo(const uint8_t *ip, int ipv, uint32_t ulen)
{
	uint32_t s = ipv == 4 ? sum16(0, ip + 12, 8) : sum16(0, ip + 8, 32);

	return s + 17 + (ulen >> 16) + (ulen & 0xffff);
}

/* Wrap the Ethernet frame @f in enc's outer headers, into wbuf.  @partial
 * (GSO super-packets): a set outer UDP checksum holds the pseudo-header sum,
 * as Linux's udp_set_csum() leaves it on a GSO skb; else it is complete.
 * *outer_th, *inner_nh: the outer L4 and inner L3 offsets (may be NULL). */
static size_t
wrap(const uint8_t *f, size_t len, int partial, uint16_t *outer_th, uint16_t *inner_nh)
{
	static const uint8_t omd[6] = { 0x02, 0, 0, 0, 0x09, 0x02 }, oms[6] = { 0x02, 0, 0, 0, 0x09, 0x01 };
	const size_t l3 = 14, iph = enc.oipv == 4 ? 20 : 40, l4 = l3 + iph;
	uint16_t et = sofl_get16(f + 12);
	const uint8_t *in = f;
	size_t inlen = len, pl;
	uint8_t proto = 17, *ip = wbuf + l3;

	if (enc.kind == ENC_IPIP) {
		if (et != 0x0800 && et != 0x86DD)
			k_die("kcraft: IP-in-IP of a frame that is not plain IP (ethertype %#x)", et);
		proto = et == 0x0800 ? 4 : 41;
		in = f + 14;
		inlen = len - 14;
	}
	pl = enc.kind == ENC_VXLAN ? (enc.runt ? 12 : 16 + inlen) : inlen;
	if (l4 + pl > sizeof(wbuf))
		k_die("kcraft: tunnel frame too large");
	memcpy(wbuf, omd, 6);
	memcpy(wbuf + 6, oms, 6);
	sofl_put16(wbuf + 12, enc.oipv == 4 ? 0x0800 : 0x86DD);
	if (enc.oipv == 4) {
		ip[0] = 0x45;
		ip[1] = enc.tos;
		sofl_put16(ip + 2, (uint16_t)(iph + pl));
		sofl_put16(ip + 4, enc.id);
		sofl_put16(ip + 6, enc.df ? 0x4000 : 0);
		ip[8] = enc.ttl;
		ip[9] = proto;
		sofl_put16(ip + 10, 0);
		memcpy(ip + 12, (const uint8_t[4]){ 198, 18, 9, 1 }, 4);
		memcpy(ip + 16, (const uint8_t[4]){ 198, 18, 9, enc.odst }, 4);
		sofl_put16(ip + 10, (uint16_t)~fold(sum16(0, ip, 20)));
		enc.id = (uint16_t)(enc.id + enc.id_step);
	} else {
		sofl_put32(ip, 0x60000000u | (uint32_t)enc.tos << 20 | (enc.flow_label & 0xfffff));
		sofl_put16(ip + 4, (uint16_t)pl);
		ip[6] = proto;
		ip[7] = enc.ttl;
		memcpy(ip + 8, (const uint8_t[16]){ 0x20, 0x01, 0, 2, 0, 0, 0, 9, [15] = 1 }, 16);
		memcpy(ip + 24, (const uint8_t[16]){ 0x20, 0x01, 0, 2, 0, 0, 0, 9, [15] = enc.odst }, 16);
	}
	if (enc.kind == ENC_VXLAN) {
		uint8_t *u = wbuf + l4;

		sofl_put16(u, enc.sport);
		sofl_put16(u + 2, 4789);
		sofl_put16(u + 4, (uint16_t)pl);
		sofl_put16(u + 6, 0);
		memset(u + 8, 0, 8);
		u[8] = enc.vxflags;
		sofl_put32(u + 12, enc.vni << 8);
		if (!enc.runt) {
			memcpy(u + 16, in, inlen);
			u[16 + 5] ^= enc.imac;
		}
		if (enc.csum) {
			uint16_t c;

			if (partial) {
				c = fold(pseudo(ip, enc.oipv, (uint32_t)pl));
			} else {
				c = (uint16_t)~fold(sum16(pseudo(ip, enc.oipv, (uint32_t)pl), u, pl));
				if (c == 0)
					c = 0xffff;
				if (enc.bad_csum)
					c = (uint16_t)(c == 0x0101 ? 0x0202 : c ^ 0x0101);
			}
			sofl_put16(u + 6, c);
		}
		if (outer_th)
			*outer_th = (uint16_t)l4;
		if (inner_nh)
			*inner_nh = (uint16_t)(l4 + 16 + 14);
	} else {
		memcpy(wbuf + l4, in, inlen);
		if (outer_th)
			*outer_th = 0;
		if (inner_nh)
			*inner_nh = (uint16_t)l4;
	}
	return l4 + pl;
}

static void
out_frame(const uint8_t *f, size_t len)
{
	if (enc.kind == ENC_NONE) {
		kset_add(&set, f, (uint32_t)len, NULL);
		return;
	}
	kset_add(&set, wbuf, (uint32_t)wrap(f, len, 0, NULL, NULL), NULL);
}

/* Outer-layer variants of a 4-segment train, applied to the 3rd frame
 * (the outer ID is never restored: it keeps counting). */
enum {
	V_PLAIN, V_SPORT, V_VNI, V_VXFLAGS, V_CSUM_MIX, V_BAD_CSUM, V_TTL, V_TOS, V_ECN,
	V_ID_JUMP, V_DF, V_FLOW, V_IMAC, V_ODST, V_RUNT,
	V_ALL_DF_FIXED, V_ALL_NODF_FIXED, V_ALL_NO_I, V_N
};

static const char *const variant_names[V_N] = {
	"4-segment train", "outer source port differs on the 3rd", "VNI differs on the 3rd",
	"VXLAN flags 0x0c (reserved bit) on the 3rd", "outer checksum zero/set mixed on the 3rd",
	"bad outer UDP checksum on the 3rd", "outer TTL differs on the 3rd",
	"outer TOS differs on the 3rd", "outer ECN CE on the 3rd", "outer IPv4 ID jumps on the 3rd",
	"outer DF differs on the 3rd", "outer flow label differs on the 3rd",
	"inner destination MAC differs on the 3rd", "outer destination address differs on the 3rd",
	"runt VXLAN header (3rd)", "outer DF set, fixed ID", "outer DF clear, fixed ID",
	"VXLAN I flag clear on all",
};

static void
mutate(int v)
{
	switch (v) {
	case V_SPORT: enc.sport++; break;
	case V_VNI: enc.vni++; break;
	case V_VXFLAGS: enc.vxflags |= 0x04; break;
	case V_CSUM_MIX: enc.csum = !enc.csum; break;
	case V_BAD_CSUM: enc.bad_csum = 1; break;
	case V_TTL: enc.ttl--; break;
	case V_TOS: enc.tos = 0x20; break;
	case V_ECN: enc.tos = 0x03; break;
	case V_ID_JUMP: enc.id = (uint16_t)(enc.id + 100); break;
	case V_DF: enc.df = !enc.df; break;
	case V_FLOW: enc.flow_label ^= 0x12345; break;
	case V_IMAC: enc.imac = 0x10; break;
	case V_ODST: enc.odst = 3; break;
	case V_RUNT: enc.runt = 1; break;
	}
}

static int with_known_diffs;	/* -X: the cases of documented differences too */
static int ipip_only;		/* -I: tungro without VXLAN (a kernel without it) */
static int udp_table;		/* -u: tungro with the UDP table instead */

static int
variant_applies(int v)
{
	int vx = enc.kind == ENC_VXLAN;

	switch (v) {
	case V_SPORT: case V_VNI: case V_CSUM_MIX: case V_IMAC: case V_RUNT:
		return vx;
	case V_VXFLAGS: case V_ALL_NO_I:
		/* Linux's vxlan_gro_receive only compares the flags (I flag clear
		 * or a reserved bit set: still coalesced); the library passes such
		 * a header through (SOFL_ENCAP_ERR_VXLAN_FLAGS), a difference
		 * gro.h lists.  Crafted only with -X (kcraft tungro -X). */
		return vx && with_known_diffs;
	case V_BAD_CSUM:
		return vx && enc.csum;
	case V_ID_JUMP: case V_DF: case V_ALL_DF_FIXED:
		return enc.oipv == 4;
	case V_ALL_NODF_FIXED:
		return enc.oipv == 4 && since(618, "outer IPv4 fixed ID with DF=0");
	case V_FLOW:
		return enc.oipv == 6;
	default:
		return 1;
	}
}

static void
tun_cases(int ipv)
{
	const uint32_t base = 100;
	struct t_spec b, s;
	int v, i;

	t_spec_init(&b, ipv, 6);
	b.ip_id = 0;
	b.seq = base;
	for (v = 0; v < V_N; v++) {
		struct encap save = enc;

		if (!variant_applies(v))
			continue;
		if (v == V_ALL_DF_FIXED || v == V_ALL_NODF_FIXED) {
			enc.df = v == V_ALL_DF_FIXED;
			enc.id_step = 0;
		} else if (v == V_ALL_NO_I) {
			enc.vxflags = 0;
		}
		s = b;
		for (i = 0; i < 4; i++) {
			struct encap keep = enc;

			s.ip_id = (uint16_t)i;
			if (i == 2)
				mutate(v);
			seg(&s, base, (uint32_t)i * 100, 100);
			if (i == 2 && v != V_ID_JUMP) {
				uint16_t id = enc.id;

				enc = keep;
				enc.id = id;
			}
		}
		case_name = variant_names[v];
		end_case();
		enc = save;
	}
	/* the same train under two outer source ports, interleaved (two
	 * outer flows, one inner flow: Linux keeps them apart) */
	if (enc.kind == ENC_VXLAN) {
		s = b;
		for (i = 0; i < 6; i++) {
			enc.sport = (uint16_t)(51000 + (i & 1));
			s.ip_id = (uint16_t)i;
			seg(&s, base, (uint32_t)(i / 2) * 100 + (i & 1) * 1000, 100);
		}
		enc.sport = 51000;
		case_name = "two outer source ports interleaved";
		end_case();
	}
}

static const struct { int kind, oipv, csum; const char *name; } encaps[] = {
	{ ENC_VXLAN, 4, 0, "VXLAN/IPv4, outer checksum 0" },
	{ ENC_VXLAN, 4, 1, "VXLAN/IPv4, outer checksum" },
	{ ENC_VXLAN, 6, 1, "VXLAN/IPv6, outer checksum" },
	{ ENC_VXLAN, 6, 0, "VXLAN/IPv6, outer checksum 0" },
	{ ENC_IPIP, 4, 0, "IP-in-IPv4" },
	{ ENC_IPIP, 6, 0, "IP-in-IPv6" },
};

/* kcraft tungro: the whole TCP flush table (tcp_cases) inside every
 * encapsulation, inner IPv4 and IPv6, plus the outer-layer variants. */
static void
tungro_cases(void)
{
	size_t e;
	int ipv;

	for (e = 0; e < sizeof(encaps) / sizeof(encaps[0]); e++)
		for (ipv = 4; ipv <= 6; ipv += 2) {
			if (ipip_only && encaps[e].kind != ENC_IPIP)
				continue;
			enc_set(encaps[e].kind, encaps[e].oipv, encaps[e].csum);
			snprintf(ctx, sizeof(ctx), "%s, inner IPv%d, TCP table", encaps[e].name, ipv);
			ctx_case = 0;
			tcp_cases(ipv);
			enc_set(encaps[e].kind, encaps[e].oipv, encaps[e].csum);
			snprintf(ctx, sizeof(ctx), "%s, inner IPv%d, outer-layer table", encaps[e].name,
				 ipv);
			ctx_case = 0;
			tun_cases(ipv);
		}
	enc.kind = ENC_NONE;
}

/* kcraft tungro -u: the UDP GRO table (udp_cases) inside every
 * encapsulation, inner IPv4 and IPv6 (replayed with UDP GRO forwarding on). */
static void
tunudpgro_cases(void)
{
	size_t e;
	int ipv;

	for (e = 0; e < sizeof(encaps) / sizeof(encaps[0]); e++)
		for (ipv = 4; ipv <= 6; ipv += 2) {
			if (ipip_only && encaps[e].kind != ENC_IPIP)
				continue;
			enc_set(encaps[e].kind, encaps[e].oipv, encaps[e].csum);
			snprintf(ctx, sizeof(ctx), "%s, inner IPv%d, UDP table", encaps[e].name, ipv);
			ctx_case = 0;
			udp_cases(ipv);
		}
	enc.kind = ENC_NONE;
}

/* A tunnel super-packet: the inner packet with its partial checksum, the
 * outer headers of enc, and the 24-byte virtio header (tunnel fields in
 * the sidecar).  IP-in-IP has no virtio GSO type: not made here. */
static void
tun_super(struct t_spec *s, uint16_t mss, int extra_flags)
{
	struct sofl_vnet_hdr vh;
	uint16_t oth, inh;
	size_t len, ilen, l4;
	s->csum = T_CSUM_PARTIAL;
	ilen = t_build(buf, sizeof(buf), s);
	len = wrap(buf, ilen, 1, &oth, &inh);
	l4 = (size_t)inh + (s->ipv == 4 ? 20 : 40);
	memset(&vh, 0, sizeof(vh));
	vh.flags = (uint8_t)(SOFL_VNET_HDR_F_NEEDS_CSUM | (enc.csum ? 8 : 0));
	vh.gso_type = (uint8_t)((s->proto == 17 ? SOFL_GSO_UDP_L4 :
				 s->ipv == 4 ? SOFL_GSO_TCPV4 : SOFL_GSO_TCPV6) | extra_flags);
	if (enc.kind == ENC_VXLAN)
		vh.gso_type |= (uint8_t)(enc.oipv == 4 ? 0x20 : 0x40);
	else
		inh = 0;	/* IP-in-IP: a plain header, no tunnel fields */
	vh.gso_size = mss;
	vh.hdr_len = (uint16_t)(l4 + (s->proto == 17 ? 8 : 20 + s->tcp_opts_len));
	vh.csum_start = (uint16_t)l4;
	vh.csum_offset = s->proto == 17 ? 6 : 16;
	vh.outer_th_offset = oth;
	vh.inner_nh_offset = inh;
	kset_add(&set, wbuf, (uint32_t)len, &vh);
}

/* kcraft tungso: case by case (consecutive super-packets share a size, so
 * gso_kernel.sh can give them to the CLI together), each under the four
 * VXLAN encapsulations with inner IPv4 and IPv6. */
static void
tungso_cases(void)
{
	static const uint16_t sizes[] = { 1398, 1000, 536, 1 };
	uint8_t ts[12];
	struct t_spec s;
	size_t e;
	int ipv, c;

	t_opt_ts_set(ts, 0x01020304, 0x0a0b0c0d);
	for (c = 0; c < 10; c++)
		for (e = c == 9 ? 4 : 0; e < (c == 9 ? 6u : 4u); e++)
			for (ipv = 4; ipv <= 6; ipv += 2) {
				enc_set(encaps[e].kind, encaps[e].oipv, encaps[e].csum);
				enc.id = (uint16_t)(0xfffe - c);	/* the outer ID wraps */
				switch (c) {
				case 0: case 1: case 2: case 3:	/* odd remainders, MSS 1 */
					t_spec_init(&s, ipv, 6);
					s.ip_id = (uint16_t)(0xfffc + c);
					s.pay_len = sizes[c] == 1 ? 40 : (size_t)sizes[c] * 5 + 333;
					tun_super(&s, sizes[c], 0);
					break;
				case 4:		/* exact multiple, PSH|FIN, timestamps */
					t_spec_init(&s, ipv, 6);
					s.flags = SOFL_TCP_ACK | SOFL_TCP_PSH | SOFL_TCP_FIN;
					s.tcp_opts = ts;
					s.tcp_opts_len = 12;
					s.pay_len = 1386 * 8;
					tun_super(&s, 1386, 0);
					break;
				case 5:		/* CWR and the ECN gso bit */
					t_spec_init(&s, ipv, 6);
					s.flags = SOFL_TCP_ACK | SOFL_TCP_CWR | SOFL_TCP_ECE;
					s.pay_len = 3000;
					tun_super(&s, 1300, SOFL_GSO_ECN);
					break;
				case 6:		/* the largest: outer IP length near 65535 */
					t_spec_init(&s, ipv, 6);
					s.pay_len = 65535 - (enc.oipv == 4 ? 20 : 0) - 8 - 8 - 14 -
						    (ipv == 4 ? 40 : 60);
					s.seq = 0xfffff000u;
					tun_super(&s, 1398, 0);
					break;
				case 7:		/* outer DF set (IPv4); IDs still count up */
					enc.df = 1;
					t_spec_init(&s, ipv, 6);
					s.pay_len = 5000;
					tun_super(&s, 1398, 0);
					break;
				case 8:		/* inner UDP: USO in a tunnel */
					t_spec_init(&s, ipv, 17);
					s.dport = 9000;
					s.pay_len = 1400 * 3 + 7;
					tun_super(&s, 1400, 0);
					break;
				case 9:		/* IP-in-IP with the inner TCP type */
					t_spec_init(&s, ipv, 6);
					s.pay_len = 5000;
					tun_super(&s, 1398, 0);
					break;
				}
			}
	enc.kind = ENC_NONE;
}

/* Minimal outer parse of a VXLAN frame: Ethernet, IPv4 (any IHL) or IPv6
 * (no extension headers), UDP to @port.  @return the outer UDP offset, or 0. */
static size_t
vxlan_udp_off(const uint8_t *f, size_t len, int *oipv, uint16_t port)
{
	size_t l4;

	if (len < 14 + 40 + 8 + 8 + 14)
		return 0;
	if (sofl_get16(f + 12) == 0x0800 && (f[14] >> 4) == 4 && f[14 + 9] == 17 &&
	    !(sofl_get16(f + 14 + 6) & 0x3fff)) {
		*oipv = 4;
		l4 = 14 + (size_t)(f[14] & 15) * 4;
	} else if (sofl_get16(f + 12) == 0x86DD && f[14 + 6] == 17) {
		*oipv = 6;
		l4 = 14 + 40;
	} else {
		return 0;
	}
	return l4 + 16 + 14 <= len && sofl_get16(f + l4 + 2) == port ? l4 : 0;
}

/* kcraft tunvnet: the TSO super-packets of a real VXLAN capture (kcap's 10-byte
 * virtio headers) given their tunnel virtio header: the outer family bit,
 * UDP_TUNNEL_CSUM when the outer UDP checksum is set, outer_th and inner_nh. */
static void
tunvnet(const char *r, const char *m)
{
	struct kset in = { 0 };
	size_t i, n = 0;

	kset_read(&in, r, m);
	for (i = 0; i < in.n; i++) {
		struct krec *k = &in.r[i];
		int oipv;
		size_t l4 = vxlan_udp_off(k->data, k->len, &oipv, 4789);

		kset_add(&set, k->data, k->len, &k->vh);
		if (!k->vh.gso_type || !l4)
			continue;
		set.r[set.n - 1].vh.gso_type |= (uint8_t)(oipv == 4 ? 0x20 : 0x40);
		if (sofl_get16(k->data + l4 + 6))
			set.r[set.n - 1].vh.flags |= 8;
		set.r[set.n - 1].vh.outer_th_offset = (uint16_t)l4;
		set.r[set.n - 1].vh.inner_nh_offset = (uint16_t)(l4 + 16 + 14);
		n++;
	}
	fprintf(stderr, "kcraft tunvnet: %zu of %zu records are VXLAN super-packets\n", n, in.n);
	kset_free(&in);
}

/* kcraft mangle -S seed: the loss/reorder/retransmit/bad-checksum variant of
 * a real capture, per frame with a seeded generator: 2% dropped, 2% swapped
 * with the next, 2% sent again two frames later (a retransmission), 1% with
 * the last byte flipped (inner TCP checksum and a set outer UDP checksum
 * wrong), 1% with only a set outer UDP checksum wrong (VXLAN frames). */
static void
mangle(const char *r, unsigned long seed)
{
	struct kset in = { 0 };
	uint64_t st = seed * 0x9E3779B97F4A7C15ULL + 7;
	size_t i, late = (size_t)-1, nd = 0, ns = 0, nr = 0, nb = 0, no = 0;

	kset_read(&in, r, NULL);
	for (i = 0; i < in.n; i++) {
		struct krec *k = &in.r[i];
		unsigned x = (unsigned)(t_rand(&st) % 1000);
		int oipv;
		size_t l4;

		if (x < 20) {
			nd++;
			continue;
		}
		if (x < 40 && i + 1 < in.n) {
			struct krec t = in.r[i];

			in.r[i] = in.r[i + 1];
			in.r[i + 1] = t;
			k = &in.r[i];
			ns++;
		} else if (x < 60 && late == (size_t)-1) {
			late = i;
			nr++;
		} else if (x < 70 && k->len > 60) {
			k->data[k->len - 1] ^= 0x5a;
			nb++;
		} else if (x < 80 && (l4 = vxlan_udp_off(k->data, k->len, &oipv, 4789)) &&
			   sofl_get16(k->data + l4 + 6)) {
			uint16_t c = sofl_get16(k->data + l4 + 6);

			sofl_put16(k->data + l4 + 6, (uint16_t)(c == 0x0101 ? 0x0202 : c ^ 0x0101));
			no++;
		}
		kset_add(&set, k->data, k->len, NULL);
		if (late != (size_t)-1 && late + 2 == i) {
			kset_add(&set, in.r[late].data, in.r[late].len, NULL);
			late = (size_t)-1;
		}
	}
	fprintf(stderr, "kcraft mangle: %zu frames -> %zu: %zu dropped, %zu swapped, %zu sent again, "
		"%zu with a bad checksum, %zu with a bad outer UDP checksum\n", in.n, set.n, nd, ns,
		nr, nb, no);
	kset_free(&in);
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
	const char *w = NULL, *m = NULL, *bl = NULL, *r = NULL, *im = NULL, *what;
	unsigned long seed = 1;
	int c;

	if (argc < 2)
		k_die("usage: kcraft gro|udpgro|tungro -w out.pcap -B out.batches | gso|tungso -w "
		      "out.pcap -m out.vnet | tunvnet -r in.pcap -i in.vnet -w out.pcap -m out.vnet | "
		      "mangle -r in.pcap -S seed -w out.pcap");
	what = argv[1];
	{
		struct utsname u;
		int maj = 0, min = 0;

		if (uname(&u) == 0 && sscanf(u.release, "%d.%d", &maj, &min) == 2)
			kver = maj * 100 + min;
	}
	optind = 2;
	while ((c = getopt(argc, argv, "w:m:B:Nr:i:S:L:XIu")) != -1) {
		switch (c) {
		case 'r': r = optarg; break;
		case 'i': im = optarg; break;
		case 'S': seed = strtoul(optarg, NULL, 10); break;
		case 'X': with_known_diffs = 1; break;
		case 'I': ipip_only = 1; break;
		case 'u': udp_table = 1; break;
		case 'L':
			if (!(labels = fopen(optarg, "w")))
				k_die("%s: %s", optarg, strerror(errno));
			break;
		case 'N': no_vlan = 1; break;
		case 'w': w = optarg; break;
		case 'm': m = optarg; break;
		case 'B': bl = optarg; break;
		default: return 2;
		}
	}
	if (!w)
		k_die("kcraft: -w is required");
	if (!strcmp(what, "tungro")) {
		if (!bl)
			k_die("kcraft %s: -B is required", what);
		no_vlan = 1;	/* VLAN GRO is the plain table's (tcp_cases) */
		if (udp_table)
			tunudpgro_cases();
		else
			tungro_cases();
		kset_write(&set, w, NULL);
		write_list(bl);
	} else if (!strcmp(what, "tungso")) {
		if (!m)
			k_die("kcraft tungso: -m is required");
		tungso_cases();
		kset_write(&set, w, m);
	} else if (!strcmp(what, "tunvnet")) {
		if (!r || !im || !m)
			k_die("kcraft tunvnet: -r, -i and -m are required");
		tunvnet(r, im);
		kset_write(&set, w, m);
	} else if (!strcmp(what, "mangle")) {
		if (!r)
			k_die("kcraft mangle: -r is required");
		mangle(r, seed);
		kset_write(&set, w, NULL);
	} else if (!strcmp(what, "gro") || !strcmp(what, "udpgro")) {
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
	if (labels && fclose(labels) != 0)
		k_die("-L: write failed");
	kset_free(&set);
	free(cases);
	return 0;
}
