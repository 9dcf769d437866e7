/* GSO rows of bench_vs_dpdk: rte_gso_segment (TSO, IPv4 fragmentation)
 * against sofl_gso_segment (vs.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "softoffload/softoffload.h"
#include "vs.h"
#include "softoffload/gso.h"
#include "../util.h"
#include "../../tests/helpers.h"
#include "dpdk_side.h"

/* ---- GSO rows (DPDK side) ---- */

enum gs_kind { GS_SEG, GS_SEG_FREE, GS_SEG_CSUM };

struct gso_arg {
	struct ds *s;
	int calls, kind, nseg;
};

static double
m_dpdk_gso(void *arg)
{
	struct gso_arg *a = arg;
	double v[MAXCALL];

	for (int c = 0; c < a->calls; c++) {
		uint64_t t0, t1;
		int n;

		t0 = tic();
		n = ds_run(a->s);
		if (a->kind == GS_SEG_FREE)
			ds_free(a->s);
		else if (a->kind == GS_SEG_CSUM)
			ds_csum(a->s);
		t1 = toc();
		ds_free(a->s);
		if (n != a->nseg)
			check(0, "gso: DPDK produced %d segments instead of %d", n, a->nseg);
		v[c] = (double)(t1 - t0) - timer_ovh;
	}
	return ticks_median_ns(v, a->calls) / (double)a->nseg;
}

static uint8_t *gso_tcp_frame, *gso_udp_frame;
static uint32_t gso_tcp_len, gso_udp_len;
static int dpdk_gso_row[2][3];	/* [udp][kind] */

/* The TCP super-packet's segment i as Linux/DPDK must emit it. */
static size_t
tcp_seg_expected(uint8_t *buf, size_t cap, int i, int last)
{
	return tcp4_frame(buf, cap, 0, (uint32_t)i, MSS,
			  SOFL_TCP_ACK | (last ? SOFL_TCP_PSH : 0));
}

static void
check_dpdk_gso_tcp(struct ds *s, int n)
{
	static uint8_t want[2048];
	int zc = 0, same = 0;

	for (int i = 0; i < n; i++) {
		long l = ds_out(s, i, outbuf, sizeof(outbuf));
		size_t wl = tcp_seg_expected(want, sizeof(want), i, i == n - 1);
		zc += ds_out_zero_copy(s, i);
		same += l == (long)wl && memcmp(outbuf, want, wl) == 0;
	}
	check(n == 45 && zc == n && ds_in_refcnt(s) == n + 1,
	      "gso tcp4 64K: DPDK 45 segments, zero-copy %d/%d, input refcnt %d", zc, n,
	      ds_in_refcnt(s));
	check(same == n, "gso tcp4 64K: DPDK + software checksums byte-identical %d/%d", same, n);
}

/* IPv4 fragments of the UDP super-packet (DPDK's "UDP GSO", our UFO):
 * 1480-byte units, offsets/MF/lengths, a valid header checksum, the ID kept,
 * the bytes of the original IP payload.  @return fragments correct. */
static int
frags_ok(void *eng, out_fn out, int n, uint32_t *covered)
{
	const uint32_t fpay = (1514 - 34) & ~7u;	/* 1480 */
	const uint8_t *ip0 = gso_udp_frame + 14;
	uint32_t dgram = gso_udp_len - 34, off = 0;
	int good = 0;

	for (int i = 0; i < n && off < dgram; i++) {
		long l = out(eng, i, outbuf, sizeof(outbuf));
		const uint8_t *ip = outbuf + 14;
		uint32_t plen = dgram - off < fpay ? dgram - off : fpay;
		int last = off + plen == dgram;

		good += l == (long)(34 + plen) && sofl_get16(ip + 2) == 20 + plen &&
			sofl_get16(ip + 4) == sofl_get16(ip0 + 4) &&
			sofl_get16(ip + 6) == (uint16_t)((last ? 0 : 0x2000) | off / 8) &&
			sofl_csum_ipv4_hdr_ok(ip, 20) && memcmp(ip + 20, ip0 + 20 + off, plen) == 0 &&
			memcmp(outbuf, gso_udp_frame, 14) == 0;
		off += plen;
	}
	*covered = off;
	return good;
}

static long
ds_out_fn(void *eng, int i, uint8_t *buf, size_t cap)
{
	return ds_out(eng, i, buf, cap);
}

static void
check_dpdk_gso_udp(struct ds *s, int n)
{
	uint32_t covered;
	int zc = 0, good = frags_ok(s, ds_out_fn, n, &covered);

	for (int i = 0; i < n; i++)
		zc += ds_out_zero_copy(s, i);
	check(n == 44 && zc == n && good == n && covered == gso_udp_len - 34,
	      "gso udp4 64K: DPDK 44 IPv4 fragments, %d/%d correct, zero-copy %d/%d", good, n, zc,
	      n);
}

void
setup_gso_dpdk(void)
{
	int calls = (int)iters_for(200) > MAXCALL ? MAXCALL : (int)iters_for(200);

	gso_tcp_frame = xalloc(70000);
	gso_udp_frame = xalloc(70000);
	gso_tcp_len = (uint32_t)tcp4_frame(gso_tcp_frame, 70000, 0, 0, 45 * MSS,
					   SOFL_TCP_ACK | SOFL_TCP_PSH);
	gso_udp_len = (uint32_t)udp4_frame(gso_udp_frame, 70000, 65000);
	for (int udp = 0; udp < 2; udp++) {
		struct ds *s = ds_new(udp ? gso_udp_frame : gso_tcp_frame,
				      udp ? gso_udp_len : gso_tcp_len, udp, 1514);
		int n;

		if (s == NULL)
			exit(2);
		n = ds_run(s);
		ds_csum(s);
		if (udp)
			check_dpdk_gso_udp(s, n);
		else
			check_dpdk_gso_tcp(s, n);
		ds_free(s);
		check(ds_in_refcnt(s) == 1, "gso: input refcnt back to 1 after freeing segments");
		for (int k = GS_SEG; k <= GS_SEG_CSUM; k++) {
			static const char *const kn[] = { "segment", "segment+free", "segment+swcsum" };
			struct gso_arg *a = xalloc(sizeof(*a));
			*a = (struct gso_arg){ s, calls, k, udp ? 44 : 45 };
			dpdk_gso_row[udp][k] = add_row("gso", "seg", m_dpdk_gso, a, 0, "dpdk_%s_%s",
						       udp ? "udp4_65000B_ipfrag" : "tcp4_65160B_mss1448",
						       kn[k]);
		}
	}
}

/* ---- GSO rows (softoffload) ---- */

struct og_s {
	struct sofl_gso_params gp;
	struct sofl_gso_out out;
	const uint8_t *frame;
	uint32_t len;
	int nseg, calls;
};

static int
os_run(struct og_s *e)
{
	struct sofl_pkt p;

	/* DPDK is handed l2/l3/l4_len; ours parses, inside the timed region */
	sofl_pkt_parse(&p, e->frame, e->len, SOFL_LINK_ETH);
	return sofl_gso_segment(&e->gp, &p, NULL, 0, &e->out);
}

static double
m_ours_gso(void *arg)
{
	struct og_s *e = arg;
	double v[MAXCALL];

	for (int c = 0; c < e->calls; c++) {
		uint64_t t0, t1;
		int n;

		t0 = tic();
		n = os_run(e);
		t1 = toc();
		if (n != e->nseg)
			check(0, "gso: softoffload produced %d segments instead of %d", n, e->nseg);
		v[c] = (double)(t1 - t0) - timer_ovh;
	}
	return ticks_median_ns(v, e->calls) / (double)e->nseg;
}

static long
os_out_fn(void *eng, int i, uint8_t *buf, size_t cap)
{
	struct og_s *e = eng;
	const struct sofl_gso_seg *g = &e->out.seg[i];
	size_t o = 0;

	if (g->iovcnt == 0) {
		if (g->len > cap)
			return -1;
		memcpy(buf, g->data, g->len);
		return g->len;
	}
	for (int k = 0; k < g->iovcnt; k++) {
		if (o + g->iov[k].iov_len > cap)
			return -1;
		memcpy(buf + o, g->iov[k].iov_base, g->iov[k].iov_len);
		o += g->iov[k].iov_len;
	}
	return o == g->len ? (long)o : -1;
}

/* 1 when segment i's payload iovecs all point into the input frame. */
static int
os_zero_copy(const struct og_s *e, int i)
{
	const struct sofl_gso_seg *g = &e->out.seg[i];
	const uint8_t *lo = e->frame, *hi = e->frame + e->len;

	if (g->iovcnt < 2)
		return 0;
	for (int k = 1; k < g->iovcnt; k++) {
		const uint8_t *b = g->iov[k].iov_base;
		if (b < lo || b + g->iov[k].iov_len > hi)
			return 0;
	}
	return 1;
}

static struct og_s *
os_new(const uint8_t *frame, uint32_t len, int type, int flags, uint16_t gso_size, uint16_t mtu,
       int mode, int calls)
{
	struct og_s *e = xalloc(sizeof(*e));
	struct sofl_gso_need need;
	struct sofl_pkt p;
	int err;

	e->frame = frame;
	e->len = len;
	e->calls = calls;
	e->gp.type = (uint8_t)type;
	e->gp.flags = (uint8_t)flags;
	e->gp.gso_size = gso_size;
	e->gp.mtu = mtu;
	sofl_pkt_parse(&p, frame, len, SOFL_LINK_ETH);
	err = sofl_gso_need(&e->gp, &p, mode, 0, &need);
	if (err != 0) {
		fprintf(stderr, "bench_vs_dpdk: sofl_gso_need: %s\n", sofl_strerror(err));
		exit(2);
	}
	e->out.mode = mode;
	e->out.seg_cap = need.nsegs;
	e->out.seg = xalloc(need.nsegs * sizeof(*e->out.seg));
	e->out.buf_cap = need.buf_bytes;
	e->out.buf = xalloc(need.buf_bytes);
	e->out.iov_cap = need.iovs ? need.iovs : 1;
	e->out.iov = xalloc(e->out.iov_cap * sizeof(*e->out.iov));
	e->nseg = os_run(e);
	return e;
}

/* TCP segments: byte-identical to the expected frames (full checksums), or
 * identical but for a pseudo-header-sum TCP checksum (partial). */
static void
check_ours_tcp(struct og_s *e, const char *what)
{
	static uint8_t want[2048];
	int same = 0, zc = 0, partial = e->gp.flags & SOFL_GSO_F_CSUM_PARTIAL;

	for (int i = 0; i < e->nseg; i++) {
		long l = os_out_fn(e, i, outbuf, sizeof(outbuf));
		size_t wl = tcp_seg_expected(want, sizeof(want), i, i == e->nseg - 1);
		int ok = l == (long)wl;

		if (ok && partial) {
			struct sofl_pkt p;
			sofl_pkt_parse(&p, want, wl, SOFL_LINK_ETH);
			ok = sofl_get16(outbuf + 50) == (uint16_t)sofl_csum_pkt_pseudo(&p);
			memcpy(outbuf + 50, want + 50, 2);
		}
		same += ok && memcmp(outbuf, want, wl) == 0;
		zc += os_zero_copy(e, i);
	}
	check(e->nseg == 45 && same == 45 &&
	      (e->out.mode == SOFL_GSO_COPY ? zc == 0 : zc == 45),
	      "gso tcp4 64K: softoffload (%s) %d segments, %d byte-identical, zero-copy %d", what,
	      e->nseg, same, zc);
}

/* USO datagrams: sizes, IDs, payload slices, checksums. */
static void
check_ours_uso(struct og_s *e, const char *what)
{
	const uint8_t *pay0 = gso_udp_frame + 42;
	uint32_t total = gso_udp_len - 42, off = 0, sz = e->gp.gso_size;
	int good = 0, partial = e->gp.flags & SOFL_GSO_F_CSUM_PARTIAL;

	for (int i = 0; i < e->nseg; i++) {
		long l = os_out_fn(e, i, outbuf, sizeof(outbuf));
		uint32_t plen = total - off < sz ? total - off : sz;
		enum sofl_csum_state ip, l4;
		struct sofl_pkt p;

		if (l < 0 || sofl_pkt_parse(&p, outbuf, (size_t)l, SOFL_LINK_ETH) != 0)
			continue;
		sofl_csum_pkt_check(&p, &ip, &l4);
		good += p.pay_len == plen && memcmp(outbuf + p.pay_off, pay0 + off, plen) == 0 &&
			sofl_get16(outbuf + 18) == (uint16_t)(0x1000 + i) && ip == SOFL_CSUM_VALID &&
			l4 == (partial ? SOFL_CSUM_PARTIAL : SOFL_CSUM_VALID) &&
			os_zero_copy(e, i);
		off += plen;
	}
	check(good == e->nseg && off == total,
	      "gso udp4 64K: softoffload USO (%s) %d datagrams of %u, %d correct and zero-copy",
	      what, e->nseg, sz, good);
}

static void
check_ours_frag(struct og_s *e, const char *what)
{
	uint32_t covered;
	int zc = 0, good = frags_ok(e, os_out_fn, e->nseg, &covered);

	for (int i = 0; i < e->nseg; i++)
		zc += os_zero_copy(e, i);
	check(e->nseg == 44 && good == 44 && zc == 44 && covered == gso_udp_len - 34,
	      "gso udp4 64K: softoffload UFO (%s) %d fragments, %d correct, zero-copy %d", what,
	      e->nseg, good, zc);
}

void
setup_gso_ours(void)
{
	int calls = (int)iters_for(200) > MAXCALL ? MAXCALL : (int)iters_for(200);
	struct og_s *e;
	int o;

	/* TCP: MSS 1448 (DPDK's gso_size 1514 is the whole frame) */
	e = os_new(gso_tcp_frame, gso_tcp_len, SOFL_GSO_TCPV4, SOFL_GSO_F_CSUM_PARTIAL, MSS, 0,
		   SOFL_GSO_ZEROCOPY, calls);
	check_ours_tcp(e, "zero-copy, pseudo-header checksum");
	o = add_row("gso", "seg", m_ours_gso, e, 0, "sofl_tcp4_65160B_mss1448_zerocopy_partial");
	add_cmp(dpdk_gso_row[0][GS_SEG], o);
	add_cmp(dpdk_gso_row[0][GS_SEG_FREE], o);
	e = os_new(gso_tcp_frame, gso_tcp_len, SOFL_GSO_TCPV4, 0, MSS, 0, SOFL_GSO_ZEROCOPY, calls);
	check_ours_tcp(e, "zero-copy, full checksums");
	o = add_row("gso", "seg", m_ours_gso, e, 0, "sofl_tcp4_65160B_mss1448_zerocopy_fullcsum");
	add_cmp(dpdk_gso_row[0][GS_SEG_CSUM], o);
	e = os_new(gso_tcp_frame, gso_tcp_len, SOFL_GSO_TCPV4, 0, MSS, 0, SOFL_GSO_COPY, calls);
	check_ours_tcp(e, "copy, full checksums");
	o = add_row("gso", "seg", m_ours_gso, e, 0, "sofl_tcp4_65160B_mss1448_copy_fullcsum");
	add_cmp(dpdk_gso_row[0][GS_SEG_CSUM], o);

	/* UDP: DPDK fragments; our like-for-like is UFO (SOFL_GSO_UFO) at MTU 1500.  It
	 * always completes the datagram's UDP checksum first (Linux UFO), so
	 * it has no pseudo-header-only variant */
	e = os_new(gso_udp_frame, gso_udp_len, SOFL_GSO_UFO, 0, 0, 1500, SOFL_GSO_ZEROCOPY,
		   calls);
	check_ours_frag(e, "zero-copy, full checksums");
	o = add_row("gso", "seg", m_ours_gso, e, 0, "sofl_udp4_65000B_ipfrag_zerocopy_fullcsum");
	add_cmp(dpdk_gso_row[1][GS_SEG], o);
	add_cmp(dpdk_gso_row[1][GS_SEG_CSUM], o);
	/* USO (UDP_SEGMENT): what DPDK 22.11 cannot do; other output count */
	for (int k = 0; k < 3; k++) {
		static const uint16_t sz[] = { 1472, 1472, 1200 };
		int fl = k == 0 ? SOFL_GSO_F_CSUM_PARTIAL : 0;
		e = os_new(gso_udp_frame, gso_udp_len, SOFL_GSO_UDP_L4, fl, sz[k], 0,
			   SOFL_GSO_ZEROCOPY, calls);
		check_ours_uso(e, fl ? "zero-copy, pseudo-header checksum" : "zero-copy, full checksums");
		o = add_row("gso", "seg", m_ours_gso, e, 0, "sofl_udp4_65000B_uso%u_zerocopy_%s",
			    sz[k], fl ? "partial" : "fullcsum");
		add_cmp(dpdk_gso_row[1][fl ? GS_SEG : GS_SEG_CSUM], o);
	}
}

/* ---- VXLAN TCP/IPv4 rows: DPDK's gso_tunnel_tcp4 against ours ----
 * A super-packet of vx_frame() (vs.h) carrying n x VX_MSS inner payload bytes
 * (n = 46: 64308 bytes, the largest whole-MSS one under 64 KB), outer UDP
 * checksum 0: DPDK's gso_tunnel_tcp4 leaves it as it is, ours is told so
 * (SOFL_GSO_TUNNEL_UDP).  DPDK's outputs, with the outer and inner IPv4 and
 * the inner TCP checksums computed in software, and ours must be byte for
 * byte the segments Linux sends: outer and inner IPv4 IDs + 1 per segment,
 * lengths, sequence numbers, PSH on the last only. */

static void
check_vx_seg(const char *who, const char *what, int n, int nseg, void *eng, out_fn out,
	     int partial, int zc)
{
	static uint8_t want[2048];
	int same = 0;

	for (int i = 0; i < n; i++) {
		long l = out(eng, i, outbuf, sizeof(outbuf));
		size_t wl = vx_frame(want, sizeof(want), 0, (uint32_t)i, VX_MSS,
				     SOFL_TCP_ACK | (i == n - 1 ? SOFL_TCP_PSH : 0),
				     partial ? T_CSUM_PARTIAL : T_CSUM_FULL);
		same += l == (long)wl && memcmp(outbuf, want, wl) == 0;
	}
	check(n == nseg && same == n && zc == n,
	      "gso vxlan tcp4 %d x %d B: %s (%s) %d segments, %d byte-identical, zero-copy %d", nseg,
	      VX_MSS, who, what, n, same, zc);
}

/* The DPDK side of one super-packet: its rows (@kinds: bit GS_* set) named
 * "dpdk_<name>_<kind><suffix>" in @sec, their indices in d[]. */
static void
vx_dpdk_rows(const uint8_t *frame, uint32_t len, int nseg, const char *sec, const char *name,
	     const char *suffix, unsigned kinds, int calls, int d[3])
{
	static const char *const kn[] = { "segment", "segment+free", "segment+swcsum" };
	struct ds *s = ds_new(frame, len, DS_VXLAN_TCP, 1514);
	int n, zc = 0;

	if (s == NULL)
		exit(2);
	n = ds_run(s);
	ds_csum(s);
	for (int i = 0; i < n; i++)
		zc += ds_out_zero_copy(s, i);
	check_vx_seg("DPDK + software checksums", "indirect mbufs", n, nseg, s, ds_out_fn, 0, zc);
	check(ds_in_refcnt(s) == n + 1, "gso vxlan: DPDK input refcnt %d with %d segments live",
	      ds_in_refcnt(s), n);
	ds_free(s);
	for (int k = GS_SEG; k <= GS_SEG_CSUM; k++) {
		struct gso_arg *a;

		d[k] = -1;
		if (!(kinds & (1u << k)))
			continue;
		a = xalloc(sizeof(*a));
		*a = (struct gso_arg){ s, calls, k, nseg };
		d[k] = add_row(sec, "seg", m_dpdk_gso, a, 0, "dpdk_%s_%s%s", name, kn[k], suffix);
	}
}

/* Our row: zero-copy or copy, partial or full checksums, checked. */
static int
vx_ours_row(const uint8_t *frame, uint32_t len, int nseg, int partial, int mode, int calls,
	    const char *sec, const char *name)
{
	struct og_s *e = os_new(frame, len, SOFL_GSO_TUNNEL_UDP | SOFL_GSO_TCPV4,
				partial ? SOFL_GSO_F_CSUM_PARTIAL : 0, VX_MSS, 0, mode, calls);
	int zc = 0;
	char what[64];

	for (int i = 0; i < e->nseg; i++)
		zc += os_zero_copy(e, i);
	snprintf(what, sizeof(what), "%s, %s", mode == SOFL_GSO_COPY ? "copy" : "zero-copy",
		 partial ? "pseudo-header checksum" : "full checksums");
	check_vx_seg("softoffload", what, e->nseg, nseg, e, os_out_fn, partial,
		     mode == SOFL_GSO_COPY ? (zc == 0 ? e->nseg : 0) : zc);
	return add_row(sec, "seg", m_ours_gso, e, 0, "%s", name);
}

void
setup_gso_vxlan(void)
{
	static const int sweep[] = { 2, 4, 8, 16, 32, 46 };
	int calls = (int)iters_for(200) > MAXCALL ? MAXCALL : (int)iters_for(200);
	int d[3], o;
	uint8_t *f = xalloc(70000);
	uint32_t len = (uint32_t)vx_frame(f, 70000, 0, 0, 46 * VX_MSS, SOFL_TCP_ACK | SOFL_TCP_PSH,
					  T_CSUM_FULL);

	/* the 64 KB super-packet: the rows of the plain TCP one */
	vx_dpdk_rows(f, len, 46, "gso", "vxlan_tcp4_64308B", "", 7u, calls, d);
	o = vx_ours_row(f, len, 46, 1, SOFL_GSO_ZEROCOPY, calls, "gso",
			"sofl_vxlan_tcp4_64308B_mss1398_zerocopy_partial");
	add_cmp(d[GS_SEG], o);
	add_cmp(d[GS_SEG_FREE], o);
	o = vx_ours_row(f, len, 46, 0, SOFL_GSO_ZEROCOPY, calls, "gso",
			"sofl_vxlan_tcp4_64308B_mss1398_zerocopy_fullcsum");
	add_cmp(d[GS_SEG_CSUM], o);
	o = vx_ours_row(f, len, 46, 0, SOFL_GSO_COPY, calls, "gso",
			"sofl_vxlan_tcp4_64308B_mss1398_copy_fullcsum");
	add_cmp(d[GS_SEG_CSUM], o);

	/* cost per segment against the super-packet's size (gso_vxlan_sweep,
	 * x = inner payload bytes) */
	for (size_t i = 0; i < sizeof(sweep) / sizeof(sweep[0]); i++) {
		int n = sweep[i];
		uint8_t *g = xalloc(70000);
		uint32_t gl = (uint32_t)vx_frame(g, 70000, 0, 0, (size_t)n * VX_MSS,
						 SOFL_TCP_ACK | SOFL_TCP_PSH, T_CSUM_FULL);
		char sfx[16], name[64];

		snprintf(sfx, sizeof(sfx), "@%d", n * VX_MSS);
		vx_dpdk_rows(g, gl, n, "gso_vxlan_sweep", "vxlan", sfx,
			     (1u << GS_SEG) | (1u << GS_SEG_CSUM), calls, d);
		snprintf(name, sizeof(name), "sofl_vxlan_zerocopy_partial@%d", n * VX_MSS);
		o = vx_ours_row(g, gl, n, 1, SOFL_GSO_ZEROCOPY, calls, "gso_vxlan_sweep", name);
		add_cmp(d[GS_SEG], o);
		snprintf(name, sizeof(name), "sofl_vxlan_zerocopy_fullcsum@%d", n * VX_MSS);
		o = vx_ours_row(g, gl, n, 0, SOFL_GSO_ZEROCOPY, calls, "gso_vxlan_sweep", name);
		add_cmp(d[GS_SEG_CSUM], o);
	}
}
