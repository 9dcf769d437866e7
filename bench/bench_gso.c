/* bench_gso: segmentation cost per super-packet and per output segment, on
 * the GSO workloads of the DPDK 22.11 anchor run:
 *   tcp4  the anchor frame: Ethernet + IPv4 + TCP with NOP NOP TS (66 B of
 *         headers), 45 x 1448 = 65160 B payload, PSH|ACK, gso_size 1448
 *         -> 45 segments (DPDK: rte_gso_segment with gso_size 1514);
 *   tcp6  the same over IPv6 (86 B of headers) -> 45 segments;
 *   udp4/udp6  UDP_SEGMENT: 65000 B payload, gso_size 1200 -> 55 datagrams;
 *   ufo4  the anchor's "UDP GSO": IPv4 fragmentation of a 65000 B UDP
 *         datagram at MTU 1500 -> 44 fragments of 1480 B;
 *   vxlan_tcp4  the tcp4 frame in VXLAN over IPv4 (50 B more of outer
 *         headers: Ethernet, IPv4, UDP, VXLAN), SOFL_GSO_TUNNEL_UDP_CSUM
 *         (outer UDP checksum per segment), -> 45 segments; vxlan0_tcp4
 *         the same with outer UDP checksum 0 (SOFL_GSO_TUNNEL_UDP).
 * Modes: zero-copy with partial L4 checksums (headers only: what
 * rte_gso_segment does, which computes no checksum), zero-copy with complete
 * checksums (payload summed in place), copy with complete checksums (fused
 * copy+checksum into one frame per segment, ready for sendmmsg), copy with
 * partial checksums (plain copy).
 *
 * In-process baselines of the same run: memcpy of the payload, and
 * sofl_csum_add over it (the floor of the "full" rows).  The DPDK figures of
 * the anchor (another day, possibly another host CPU) are printed as ratios:
 * rte_gso_segment 38.8 ns/segment (tcp4), 32.7 ns/fragment (ufo4); DPDK plus
 * its software checksums (1747 + 4531 ns per super-packet) 139.5 ns/segment.
 *
 * Timing: one sample = CALLS segmentations of one super-packet (parsed once
 * before; the parse is its own row, ns per super-packet), warm cache
 * (the anchor's method); repetitions interleaved across rows so that slow
 * phases of the shared host hit all rows alike.  $SOFL_BENCH_REPS sets the
 * count (default 15); "-q" runs 3. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "softoffload/softoffload.h"
#include "util.h"

#define CALLS  200
#define MAXREP 64
#define MAXSEG 64

struct row {
	const char *sec;	/* "gso", or "gso_sweep" for the size sweep */
	const char *name;
	const uint8_t *frame;
	uint32_t len;
	struct sofl_gso_params gp;
	int mode;
	int nseg;		/* expected */
	double anchor;		/* DPDK ns per segment, 0 = none */
	double ns_pkt[MAXREP], ns_seg[MAXREP];
};

static struct sofl_gso_seg segs[MAXSEG];
static struct iovec iovs[2 * MAXSEG];
static uint8_t *obuf;

/* The anchor's frame (the anchor run's "build_tcp4_frame"), flow 0, as a
 * sending stack hands it over: partial TCP checksum. */
static uint32_t
build_tcp(uint8_t *f, int ipv, uint32_t pay)
{
	static const uint8_t mac[12] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1 };
	uint32_t l3 = 14, l4 = ipv == 4 ? 34 : 54, i;
	uint8_t *th = f + l4;

	memcpy(f, mac, 12);
	memset(f + 12, 0, l4 - 12);
	sofl_put16(f + 12, ipv == 4 ? 0x0800 : 0x86dd);
	if (ipv == 4) {
		f[l3] = 0x45;
		sofl_put16(f + l3 + 2, (uint16_t)(20 + 32 + pay));
		sofl_put16(f + l3 + 4, 0x1000);
		sofl_put16(f + l3 + 6, 0x4000);
		f[l3 + 8] = 64;
		f[l3 + 9] = 6;
		sofl_put32(f + l3 + 12, 0x0a000001);
		sofl_put32(f + l3 + 16, 0x0a000002);
		sofl_put16(f + l3 + 10, sofl_csum_ipv4_hdr(f + l3, 20));
	} else {
		f[l3] = 0x60;
		sofl_put16(f + l3 + 4, (uint16_t)(32 + pay));
		f[l3 + 6] = 6;
		f[l3 + 7] = 64;
		f[l3 + 8] = 0xfd;
		f[l3 + 23] = 1;
		f[l3 + 24] = 0xfd;
		f[l3 + 39] = 2;
	}
	memset(th, 0, 32);
	sofl_put16(th, 40000);
	sofl_put16(th + 2, 5201);
	sofl_put32(th + 4, 0x10000000);
	sofl_put32(th + 8, 0x20000000);
	th[12] = 8 << 4;
	th[13] = SOFL_TCP_PSH | SOFL_TCP_ACK;
	sofl_put16(th + 14, 502);
	th[20] = 1;
	th[21] = 1;
	th[22] = 8;
	th[23] = 10;
	sofl_put32(th + 24, 0x00a00000);
	sofl_put32(th + 28, 0x00b00000);
	for (i = 0; i < pay; i++)
		th[32 + i] = (uint8_t)i;
	return l4 + 32 + pay;
}

static uint32_t
build_udp(uint8_t *f, int ipv, uint32_t pay)
{
	uint32_t len = build_tcp(f, ipv, 0), l3 = 14, l4 = ipv == 4 ? 34 : 54, i;
	uint8_t *uh = f + l4;

	(void)len;
	if (ipv == 4) {
		f[l3 + 9] = 17;
		sofl_put16(f + l3 + 2, (uint16_t)(28 + pay));
		sofl_put16(f + l3 + 6, 0);	/* DF clear, as the anchor */
		sofl_put16(f + l3 + 10, 0);
		sofl_put16(f + l3 + 10, sofl_csum_ipv4_hdr(f + l3, 20));
	} else {
		f[l3 + 6] = 17;
		sofl_put16(f + l3 + 4, (uint16_t)(8 + pay));
	}
	memset(uh, 0, 8);
	sofl_put16(uh, 40000);
	sofl_put16(uh + 2, 5201);
	sofl_put16(uh + 4, (uint16_t)(8 + pay));
	for (i = 0; i < pay; i++)
		uh[8 + i] = (uint8_t)(i * 7);
	return l4 + 8 + pay;
}

/* @inner (the tcp4 frame, @ilen bytes) in VXLAN over IPv4 to port 4789,
 * VNI 42; the outer UDP checksum the pseudo-header sum when @csum (as a
 * sending stack leaves a GSO packet's), else 0. */
static uint32_t
build_vxlan(uint8_t *f, const uint8_t *inner, uint32_t ilen, int csum)
{
	static const uint8_t mac[12] = { 2, 0, 0, 0, 0, 4, 2, 0, 0, 0, 0, 3 };
	uint8_t *ip = f + 14, *uh = f + 34, *vx = f + 42;
	uint32_t ulen = 16 + ilen;

	memcpy(f, mac, 12);
	sofl_put16(f + 12, 0x0800);
	memset(ip, 0, 20);
	ip[0] = 0x45;
	sofl_put16(ip + 2, (uint16_t)(20 + ulen));
	sofl_put16(ip + 4, 0x2000);
	sofl_put16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = 17;
	sofl_put32(ip + 12, 0xc6120001);
	sofl_put32(ip + 16, 0xc6120002);
	sofl_put16(ip + 10, sofl_csum_ipv4_hdr(ip, 20));
	sofl_put16(uh, 49152);
	sofl_put16(uh + 2, 4789);
	sofl_put16(uh + 4, (uint16_t)ulen);
	sofl_put16(uh + 6, csum ? sofl_csum_fold(sofl_csum_pseudo_v4(ip + 12, ip + 16, 17, ulen)) : 0);
	memset(vx, 0, 8);
	vx[0] = 0x08;
	vx[6] = 42;
	memcpy(f + 50, inner, ilen);
	return 50 + ilen;
}

/* A tunnel segment's outer headers verify (the inner ones are checked by
 * sofl_csum_pkt_check on the inner parse). */
static int
outer_ok(const struct sofl_pkt *q, const struct row *r)
{
	const uint8_t *ip = q->data + q->outer_l3_off, *uh = q->data + q->outer_l4_off;
	uint32_t ulen = q->outer_ip_end - q->outer_l4_off;

	if (!(q->layers & SOFL_LAYER_ENCAP) || sofl_csum_fold(sofl_csum_add(0, ip, 20)) != 0xffff ||
	    sofl_get16(uh + 4) != ulen)
		return 0;
	if ((r->gp.type & SOFL_GSO_TUNNEL_MASK) == SOFL_GSO_TUNNEL_UDP)
		return sofl_get16(uh + 6) == 0;
	if (r->gp.flags & SOFL_GSO_F_CSUM_PARTIAL)	/* complete once the inner is */
		return sofl_get16(uh + 6) != 0;
	return sofl_csum_fold(sofl_csum_add(sofl_csum_pseudo_v4(ip + 12, ip + 16, 17, ulen),
					    uh, ulen)) == 0xffff;
}

static int
run(struct row *r, struct sofl_pkt *p)
{
	struct sofl_gso_out out = { .mode = r->mode, .seg = segs, .seg_cap = MAXSEG,
				    .buf = obuf, .buf_cap = MAXSEG * 2048, .iov = iovs,
				    .iov_cap = 2 * MAXSEG };

	return sofl_gso_segment(&r->gp, p, NULL, 0, &out);
}

static void
measure(struct row *r, int rep)
{
	struct sofl_pkt p;
	uint64_t t0, t1, acc = 0;
	int i;

	sofl_pkt_parse(&p, r->frame, r->len, SOFL_LINK_ETH);
	t0 = bench_ns();
	for (i = 0; i < CALLS; i++) {
		acc += (unsigned)run(r, &p);
		acc += segs[0].data[20];
	}
	t1 = bench_ns();
	bench_sink(acc);
	r->ns_pkt[rep] = (double)(t1 - t0) / CALLS;
	r->ns_seg[rep] = r->ns_pkt[rep] / r->nseg;
}

/* Every output segment must verify: a benchmark of wrong output is void. */
static void
verify(struct row *r)
{
	struct sofl_pkt p, q;
	static uint8_t flat[65536];
	int n, i, k;

	sofl_pkt_parse(&p, r->frame, r->len, SOFL_LINK_ETH);
	n = run(r, &p);
	if (n != r->nseg) {
		fprintf(stderr, "bench_gso: %s: %d segments, expected %d (%s)\n", r->name, n,
			r->nseg, n < 0 ? sofl_strerror(n) : "");
		exit(1);
	}
	for (i = 0; i < n; i++) {
		enum sofl_csum_state a, b;
		size_t o = 0;

		if (r->mode == SOFL_GSO_COPY) {
			memcpy(flat, segs[i].data, segs[i].len);
		} else {
			for (k = 0; k < segs[i].iovcnt; k++) {
				memcpy(flat + o, segs[i].iov[k].iov_base, segs[i].iov[k].iov_len);
				o += segs[i].iov[k].iov_len;
			}
		}
		sofl_pkt_parse(&q, flat, segs[i].len, SOFL_LINK_ETH);
		sofl_csum_pkt_check(&q, &a, &b);
		if ((r->gp.type & SOFL_GSO_TUNNEL_MASK) && !outer_ok(&q, r)) {
			fprintf(stderr, "bench_gso: %s: segment %d outer headers\n", r->name, i);
			exit(1);
		}
		if ((q.ipv == 4 && a != SOFL_CSUM_VALID) ||
		    (!q.is_frag && b != ((r->gp.flags & SOFL_GSO_F_CSUM_PARTIAL) ?
					 SOFL_CSUM_PARTIAL : SOFL_CSUM_VALID))) {
			fprintf(stderr, "bench_gso: %s: segment %d checksums %d/%d\n", r->name,
				i, a, b);
			exit(1);
		}
	}
}

int
main(int argc, char **argv)
{
	static struct row rows[64];
	static double base_cpy[MAXREP], base_sum[MAXREP], base_parse[MAXREP];
	uint8_t *tcp4 = bench_alloc(70000), *tcp6 = bench_alloc(70000);
	uint8_t *udp4 = bench_alloc(70000), *udp6 = bench_alloc(70000);
	uint8_t *src = bench_alloc(70000), *dst = bench_alloc(70000);
	uint8_t *vx4 = bench_alloc(70000), *vx0 = bench_alloc(70000);
	uint32_t l_t4, l_t6, l_u4, l_u6, l_vx4, l_vx0;
	int nrows = 0, reps, rep, i;
	char name[64];
	static const struct { const char *tag; int mode; uint8_t flags; } modes[] = {
		{ "zerocopy_partial", SOFL_GSO_ZEROCOPY, SOFL_GSO_F_CSUM_PARTIAL },
		{ "zerocopy_full", SOFL_GSO_ZEROCOPY, 0 },
		{ "copy_full", SOFL_GSO_COPY, 0 },
		{ "copy_partial", SOFL_GSO_COPY, SOFL_GSO_F_CSUM_PARTIAL },
	};
	static char names[64][64];
	/* the size sweep (section gso_sweep, rows "<workload>_<mode>@<payload
	 * bytes>"): TCP/IPv4 super-packets of 1 to 45 full segments */
	static const int sweep_segs[] = { 1, 2, 4, 8, 16, 32, 45 };
	enum { NSWEEP = sizeof(sweep_segs) / sizeof(sweep_segs[0]) };
	uint8_t *sweep_frame[NSWEEP];

	reps = bench_reps_args(argc, argv, 15, MAXREP);
	obuf = bench_alloc(MAXSEG * 2048);
	l_t4 = build_tcp(tcp4, 4, 65160);
	l_t6 = build_tcp(tcp6, 6, 65160);
	l_u4 = build_udp(udp4, 4, 65000);
	l_u6 = build_udp(udp6, 6, 65000);
	l_vx4 = build_vxlan(vx4, tcp4, l_t4, 1);
	l_vx0 = build_vxlan(vx0, tcp4, l_t4, 0);
	for (i = 0; i < 4; i++) {
		struct {
			const char *w; const uint8_t *f; uint32_t l; int type, size, n;
			double a;
		} w[4] = {
			{ "tcp4_64k_mss1448", tcp4, l_t4, SOFL_GSO_TCPV4, 1448, 45,
			  modes[i].flags ? 38.8 : 139.5 },
			{ "tcp6_64k_mss1448", tcp6, l_t6, SOFL_GSO_TCPV6, 1448, 45, 0 },
			{ "udp4_64k_gso1200", udp4, l_u4, SOFL_GSO_UDP_L4, 1200, 55, 0 },
			{ "udp6_64k_gso1200", udp6, l_u6, SOFL_GSO_UDP_L4, 1200, 55, 0 },
		};
		for (int k = 0; k < 4; k++) {
			struct row *r = &rows[nrows];

			snprintf(names[nrows], sizeof(names[nrows]), "%s_%s", w[k].w, modes[i].tag);
			r->name = names[nrows];
			r->frame = w[k].f;
			r->len = w[k].l;
			r->gp.type = (uint8_t)w[k].type;
			r->gp.gso_size = (uint16_t)w[k].size;
			r->gp.flags = modes[i].flags;
			r->mode = modes[i].mode;
			r->nseg = w[k].n;
			r->anchor = w[k].a;
			nrows++;
		}
	}
	for (i = 0; i < 6; i++) {	/* VXLAN: 4 modes with the outer checksum, 2 without */
		struct row *r = &rows[nrows];
		int m = i < 4 ? i : i - 4;

		snprintf(names[nrows], sizeof(names[nrows]), "%s_64k_mss1448_%s",
			 i < 4 ? "vxlan_tcp4" : "vxlan0_tcp4", modes[m].tag);
		r->name = names[nrows];
		r->frame = i < 4 ? vx4 : vx0;
		r->len = i < 4 ? l_vx4 : l_vx0;
		r->gp.type = (uint8_t)((i < 4 ? SOFL_GSO_TUNNEL_UDP_CSUM : SOFL_GSO_TUNNEL_UDP) |
				       SOFL_GSO_TCPV4);
		r->gp.gso_size = 1448;
		r->gp.flags = modes[m].flags;
		r->mode = modes[m].mode;
		r->nseg = 45;
		nrows++;
	}
	for (i = 0; i < 2; i++) {
		struct row *r = &rows[nrows++];

		r->name = i ? "ufo4_64k_mtu1500_copy" : "ufo4_64k_mtu1500_zerocopy";
		r->frame = udp4;
		r->len = l_u4;
		r->gp = (struct sofl_gso_params){ .type = SOFL_GSO_UFO, .mtu = 1500 };
		r->mode = i ? SOFL_GSO_COPY : SOFL_GSO_ZEROCOPY;
		r->nseg = 44;
		r->anchor = i ? 0 : 32.7;
	}
	for (i = 0; i < NSWEEP; i++) {
		uint32_t pay = 1448u * (uint32_t)sweep_segs[i];
		uint32_t len;

		sweep_frame[i] = bench_alloc(70000);
		len = build_tcp(sweep_frame[i], 4, pay);
		for (int m = 0; m < 3; m++) {
			struct row *r = &rows[nrows];

			snprintf(names[nrows], sizeof(names[nrows]), "tcp4_mss1448_%s@%u",
				 modes[m].tag, pay);
			r->sec = "gso_sweep";
			r->name = names[nrows];
			r->frame = sweep_frame[i];
			r->len = len;
			r->gp.type = SOFL_GSO_TCPV4;
			r->gp.gso_size = 1448;
			r->gp.flags = modes[m].flags;
			r->mode = modes[m].mode;
			r->nseg = sweep_segs[i];
			nrows++;
		}
	}
	for (i = 0; i < nrows; i++)
		verify(&rows[i]);
	memcpy(src, tcp4 + 66, 65160);

	printf("bench_gso: checksum implementation %s, %d repetitions x %d calls\n",
	       sofl_csum_impl_name(), reps, CALLS);
	for (rep = 0; rep < reps; rep++) {
		uint64_t t0, acc = 0;

		for (i = 0; i < nrows; i++)
			measure(&rows[i], rep);
		t0 = bench_ns();
		for (i = 0; i < CALLS; i++) {
			memcpy(dst, src, 65160);
			acc += dst[i];
		}
		base_cpy[rep] = (double)(bench_ns() - t0) / CALLS / 45;
		t0 = bench_ns();
		for (i = 0; i < CALLS; i++)
			acc += sofl_csum_add(0, src, 65160);
		base_sum[rep] = (double)(bench_ns() - t0) / CALLS / 45;
		t0 = bench_ns();
		for (i = 0; i < CALLS; i++) {
			struct sofl_pkt p;
			acc += (uint64_t)sofl_pkt_parse(&p, tcp4, l_t4, SOFL_LINK_ETH) + p.pay_len;
		}
		base_parse[rep] = (double)(bench_ns() - t0) / CALLS;
		bench_sink(acc);
	}
	for (i = 0; i < nrows; i++) {
		struct row *r = &rows[i];

		const char *sec = r->sec ? r->sec : "gso";

		bench_report(sec, r->name, "ns_per_superpkt", "ns", r->ns_pkt, reps);
		snprintf(name, sizeof(name), "%s", r->name);
		bench_report(sec, name, "ns_per_segment", "ns", r->ns_seg, reps);
		if (r->anchor > 0)
			printf("         %-40s DPDK anchor %.1f ns/seg -> %.2fx faster\n", "",
			       r->anchor, r->anchor / bench_median(r->ns_seg, reps));
	}
	bench_report("gso", "baseline_memcpy_1448B", "ns_per_segment", "ns", base_cpy, reps);
	bench_report("gso", "baseline_csum_add_1448B", "ns_per_segment", "ns", base_sum, reps);
	bench_report("gso", "parse_tcp4_superpkt (outside the rows above)", "ns_per_superpkt", "ns",
		     base_parse, reps);
	free(tcp4);
	free(tcp6);
	free(udp4);
	free(udp6);
	free(vx4);
	free(vx0);
	free(src);
	free(dst);
	free(obuf);
	for (i = 0; i < NSWEEP; i++)
		free(sweep_frame[i]);
	return 0;
}
