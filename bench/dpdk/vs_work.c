/* The GRO and GSO workloads of the DPDK 22.11 anchor run (frames, bursts)
 * and the output checker shared by the GRO and GSO rows (vs.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "softoffload/softoffload.h"
#include "vs.h"
#include "../workloads.h"
#include "../../tests/helpers.h"

/* ---- the workloads of the DPDK 22.11 anchor run ---- */

static uint32_t
flow_isn(int flow)
{
	return 0x10000000u + (uint32_t)flow * 0x01000000u;
}

/* TCP/IPv4 segment @seg of flow @flow carrying @pay bytes (build_tcp4_frame). */
size_t
tcp4_frame(uint8_t *buf, size_t cap, int flow, uint32_t seg, size_t pay, uint8_t flags)
{
	static const uint8_t s4[4] = { 10, 0, 0, 1 }, d4[4] = { 10, 0, 0, 2 };
	uint8_t opt[12];
	struct t_spec s;

	t_spec_init(&s, 4, 6);
	memcpy(s.src, s4, 4);
	memcpy(s.dst, d4, 4);
	s.sport = (uint16_t)(40000 + flow);
	s.dport = 5201;
	s.seq = flow_isn(flow) + seg * MSS;
	s.ack = 0x20000000u;
	s.win = 502;
	s.flags = flags;
	s.ip_id = (uint16_t)(0x1000 + flow * 0x100 + seg);
	t_opt_ts_set(opt, 0x00a00000u + (uint32_t)flow, 0x00b00000u);
	s.tcp_opts = opt;
	s.tcp_opts_len = sizeof(opt);
	s.pay_len = pay;
	s.pay_off = seg * MSS;
	s.pay_seed = (uint8_t)(7 * flow);
	return t_build(buf, cap, &s);
}

/* UDP/IPv4 datagram, DF clear, for the GSO (fragmentation / USO) rows. */
size_t
udp4_frame(uint8_t *buf, size_t cap, size_t pay)
{
	static const uint8_t s4[4] = { 10, 0, 0, 1 }, d4[4] = { 10, 0, 0, 2 };
	struct t_spec s;

	t_spec_init(&s, 4, 17);
	memcpy(s.src, s4, 4);
	memcpy(s.dst, d4, 4);
	s.sport = 40000;
	s.dport = 5201;
	s.df = 0;
	s.ip_id = 0x1000;
	s.pay_len = pay;
	return t_build(buf, cap, &s);
}

/* VXLAN TCP/IPv4: the inner frame is tcp4_frame's with VX_MSS (vs.h). */
size_t
vx_frame(uint8_t *buf, size_t cap, int flow, uint32_t seg, size_t pay, uint8_t flags, int csum)
{
	static const uint8_t s4[4] = { 10, 0, 0, 1 }, d4[4] = { 10, 0, 0, 2 };
	static const uint8_t omac[12] = { 2, 0, 0, 0, 1, 2, 2, 0, 0, 0, 1, 1 };
	uint8_t opt[12], *ip = buf + 14, *udp = buf + 34, *vx = buf + 42;
	struct t_spec s;
	size_t in;

	if (cap < 50)
		abort();
	t_spec_init(&s, 4, 6);
	memcpy(s.src, s4, 4);
	memcpy(s.dst, d4, 4);
	s.sport = (uint16_t)(40000 + flow);
	s.dport = 5201;
	s.seq = flow_isn(flow) + seg * VX_MSS;
	s.ack = 0x20000000u;
	s.win = 502;
	s.flags = flags;
	s.ip_id = (uint16_t)(0x1000 + flow * 0x100 + seg);
	t_opt_ts_set(opt, 0x00a00000u + (uint32_t)flow, 0x00b00000u);
	s.tcp_opts = opt;
	s.tcp_opts_len = sizeof(opt);
	s.pay_len = pay;
	s.pay_off = seg * VX_MSS;
	s.pay_seed = (uint8_t)(7 * flow);
	s.csum = csum;
	in = t_build(buf + 50, cap - 50, &s);
	memcpy(buf, omac, 12);
	sofl_put16(buf + 12, 0x0800);
	memset(ip, 0, 20);
	ip[0] = 0x45;
	sofl_put16(ip + 2, (uint16_t)(20 + 8 + 8 + in));
	sofl_put16(ip + 4, (uint16_t)(0x2000 + flow * 0x100 + seg));
	ip[8] = 64;
	ip[9] = 17;
	memcpy(ip + 12, (const uint8_t[]){ 10, 1, 0, 1, 10, 1, 0, 2 }, 8);
	sofl_put16(ip + 10, sofl_csum_ipv4_hdr(ip, 20));
	sofl_put16(udp, (uint16_t)(49152 + 37 * flow));
	sofl_put16(udp + 2, 4789);
	sofl_put16(udp + 4, (uint16_t)(8 + 8 + in));
	sofl_put16(udp + 6, 0);
	memset(vx, 0, 8);
	vx[0] = 0x08;
	sofl_put32(vx + 4, VX_VNI << 8);
	return 50 + in;
}

struct burst bursts[NW];
struct burst heavy;		/* W2 pattern x 1024 */

static uint8_t *
frame_slot(void)
{
	static uint8_t *arena;
	static size_t used, cap;

	if (used == cap) {
		cap = 256;
		arena = xalloc(cap * SLOT);
		used = 0;
	}
	return arena + SLOT * used++;
}

void
build_vx_burst(struct burst *b, const char *id, int flows, int segs)
{
	b->id = id;
	b->n = flows * segs;
	for (int k = 0; k < b->n; k++) {
		b->frame[k] = frame_slot();
		b->len[k] = (uint32_t)vx_frame(b->frame[k], SLOT, k % flows, (uint32_t)(k / flows),
					       VX_MSS, SOFL_TCP_ACK, T_CSUM_FULL);
	}
}

void
build_bursts(void)
{
	static const enum wl_gro wl[] = { WL_W1, WL_W2, WL_W3, WL_W4 };
	int same = 0;

	/* W1-W4 and the heavyweight stream: bench/workloads.h, shared with
	 * bench_gro, so both benchmarks feed the same bytes */
	for (int w = W1; w <= W4; w++) {
		for (int k = 0; k < WL_BURST; k++)
			bursts[w].frame[k] = frame_slot();
		wl_gro_burst(wl[w], bursts[w].frame, bursts[w].len);
		bursts[w].n = WL_BURST;
	}
	for (int k = 0; k < 1024; k++) {
		uint32_t flow, seg;
		wl_many_packet((uint64_t)k, 4, &flow, &seg);
		heavy.frame[k] = frame_slot();
		heavy.len[k] = (uint32_t)wl_tcp4_frame(heavy.frame[k], flow, seg, WL_MSS, WL_F_ACK);
	}
	heavy.n = 1024;
	/* X: UDP datagrams of the same size; DPDK is told so by packet_type,
	 * ours finds out by parsing (UDP GRO off) */
	for (int k = 0; k < WL_BURST; k++) {
		bursts[WX].frame[k] = frame_slot();
		bursts[WX].len[k] = (uint32_t)udp4_frame(bursts[WX].frame[k], 2048, MSS + 24);
	}
	bursts[WX].n = WL_BURST;
	/* our own builder (GSO super-packets, expected segments) must agree */
	for (int k = 0; k < WL_BURST; k++) {
		uint8_t f[2048];
		uint32_t flow, seg;
		uint8_t fl;
		size_t l;

		wl_gro_packet(WL_W4, (unsigned)k, &flow, &seg, &fl);
		l = tcp4_frame(f, sizeof(f), (int)flow, seg, MSS, fl);
		same += l == bursts[W4].len[k] && memcmp(f, bursts[W4].frame[k], l) == 0;
	}
	check(same == WL_BURST, "workloads: wl_gro_burst(W4) == this harness's builder, %d/%d",
	      same, WL_BURST);
	bursts[W1].id = "W1_1flow_inorder";
	bursts[W1].expect_dpdk = "f0:s0-31";
	bursts[W1].nout_dpdk = 1;
	bursts[W2].id = "W2_4flows_rr";
	bursts[W2].expect_dpdk = "f0:s0-7 f1:s0-7 f2:s0-7 f3:s0-7";
	bursts[W2].nout_dpdk = 4;
	bursts[W3].id = "W3_32flows_nomerge";
	bursts[W3].nout_dpdk = 32;
	bursts[W4].id = "W4_1flow_psh_every8";
	/* DPDK 22.11 returns PSH segments unmerged, after the merged runs */
	bursts[W4].expect_dpdk = "f0:s0-6 f0:s8-14 f0:s16-22 f0:s24-30 f0:s7P f0:s15P f0:s23P f0:s31P";
	bursts[W4].nout_dpdk = 8;
	bursts[WX].id = "X_32_not_eligible";
	bursts[WX].nout_dpdk = 32;
	heavy.id = "H_W2x1024";
}

/* Describes one TCP/IPv4 output packet of the anchor flows as
 * "f<flow>:s<first>[-<last>][P]" after checking it: IPv4 total length =
 * frame - 14, payload = the contiguous stream bytes of its flow, whole
 * segments.  *ipsum_ok tells whether its IPv4 header checksum verifies.
 * @return 0, or -1 (with a reason in @out) when the packet is wrong. */
/* describe() for a VXLAN TCP/IPv4 packet of vx_frame()'s flows, read at
 * the fixed offsets of that layout (independent of the parser under test):
 * outer IPv4 and UDP lengths = the frame's, outer UDP checksum 0, outer
 * source port of its flow, VXLAN header, inner Ethernet and IPv4 lengths,
 * then the TCP segment as describe() checks it.  *ipsum_ok: both IPv4
 * header checksums verify. */
static int
describe_vx(const uint8_t *pkt, long len, char *out, size_t cap, int *ipsum_ok)
{
	static const uint8_t vxh[8] = { 0x08, 0, 0, 0, VX_VNI >> 16, (VX_VNI >> 8) & 0xff,
					VX_VNI & 0xff, 0 };
	const uint8_t *oip = pkt + 14, *udp = pkt + 34, *ip = pkt + 64, *th = pkt + 84;
	int flow;
	uint32_t off, first, nseg, pay;

	if (len < VX_HDRS + 1 || oip[0] != 0x45 || sofl_get16(oip + 2) != len - 14 ||
	    sofl_get16(udp + 4) != len - 34 || sofl_get16(udp + 6) != 0 ||
	    memcmp(pkt + 42, vxh, 8) != 0 || sofl_get16(pkt + 62) != 0x0800 || ip[0] != 0x45 ||
	    sofl_get16(ip + 2) != len - 64 || ip[9] != 6 || (th[12] >> 4) != 8) {
		snprintf(out, cap, "<not a whole VXLAN TCP/IPv4 packet, %ld B>", len);
		return -1;
	}
	flow = (int)sofl_get16(th) - 40000;
	off = sofl_get32(th + 4) - flow_isn(flow);
	pay = (uint32_t)len - VX_HDRS;
	if (flow < 0 || flow > 31 || sofl_get16(udp) != 49152 + 37 * flow || off % VX_MSS ||
	    pay % VX_MSS) {
		snprintf(out, cap, "<unexpected flow/seq/len %d %u %u>", flow, off, pay);
		return -1;
	}
	for (uint32_t i = 0; i < pay; i++)
		if (pkt[VX_HDRS + i] != (uint8_t)(off + i + 7u * (unsigned)flow)) {
			snprintf(out, cap, "<payload byte %u of f%d wrong>", i, flow);
			return -1;
		}
	*ipsum_ok = sofl_csum_ipv4_hdr_ok(oip, 20) && sofl_csum_ipv4_hdr_ok(ip, 20);
	first = off / VX_MSS;
	nseg = pay / VX_MSS;
	if (nseg == 1)
		snprintf(out, cap, "f%d:s%u%s", flow, first, th[13] & SOFL_TCP_PSH ? "P" : "");
	else
		snprintf(out, cap, "f%d:s%u-%u%s", flow, first, first + nseg - 1,
			 th[13] & SOFL_TCP_PSH ? "P" : "");
	return 0;
}

static int
describe(const uint8_t *pkt, long len, char *out, size_t cap, int *ipsum_ok)
{
	struct sofl_pkt p;
	int flow;
	uint32_t off, first, nseg;

	if (len < 0) {
		snprintf(out, cap, "<inconsistent mbuf chain>");
		return -1;
	}
	/* VXLAN (UDP to 4789 right after a 20-byte IPv4 header) */
	if (len >= 50 && sofl_get16(pkt + 12) == 0x0800 && pkt[14] == 0x45 && pkt[23] == 17 &&
	    sofl_get16(pkt + 36) == 4789)
		return describe_vx(pkt, len, out, cap, ipsum_ok);
	if (sofl_pkt_parse(&p, pkt, (size_t)len, SOFL_LINK_ETH) != 0 || p.ipv != 4 ||
	    p.l4_proto != 6 || !(p.layers & SOFL_LAYER_L4) || p.ip_end != (uint32_t)len) {
		snprintf(out, cap, "<not a whole TCP/IPv4 packet, %ld B>", len);
		return -1;
	}
	flow = (int)p.key.sport - 40000;
	off = p.tcp_seq - flow_isn(flow);
	if (flow < 0 || flow > 31 || off % MSS || p.pay_len % MSS || p.pay_len == 0) {
		snprintf(out, cap, "<unexpected flow/seq/len %d %u %u>", flow, off, p.pay_len);
		return -1;
	}
	for (uint32_t i = 0; i < p.pay_len; i++)
		if (pkt[p.pay_off + i] != (uint8_t)(off + i + 7u * (unsigned)flow)) {
			snprintf(out, cap, "<payload byte %u of f%d wrong>", i, flow);
			return -1;
		}
	*ipsum_ok = sofl_csum_ipv4_hdr_ok(pkt + p.l3_off, p.l3_len);
	first = off / MSS;
	nseg = p.pay_len / MSS;
	if (nseg == 1)
		snprintf(out, cap, "f%d:s%u%s", flow, first, p.tcp_flags & SOFL_TCP_PSH ? "P" : "");
	else
		snprintf(out, cap, "f%d:s%u-%u%s", flow, first, first + nseg - 1,
			 p.tcp_flags & SOFL_TCP_PSH ? "P" : "");
	return 0;
}

uint8_t outbuf[1 << 17];

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Joins @n words into @out, space-separated, sorted first when @sorted. */
static void
join(char **w, int n, int sorted, char *out, size_t cap)
{
	size_t o = 0;

	if (sorted)
		qsort(w, (size_t)n, sizeof(w[0]), cmp_str);
	out[0] = 0;
	for (int i = 0; i < n; i++)
		o += (size_t)snprintf(out + o, o < cap ? cap - o : 0, "%s%s", i ? " " : "", w[i]);
}

/* Sorts the space-separated words of @in into @out. */
void
sort_words(const char *in, char *out, size_t cap)
{
	static char copy[65536];
	char *w[1024], *save = NULL, *t;
	int n = 0;

	snprintf(copy, sizeof(copy), "%s", in);
	for (t = strtok_r(copy, " ", &save); t && n < 1024; t = strtok_r(NULL, " ", &save))
		w[n++] = t;
	join(w, n, 1, out, cap);
}

/* Builds the description of outputs 0..n-1 (sorted when @sorted: the heavy
 * table flushes flows in table order, which is not part of the contract).
 * @return the number of outputs whose IPv4 header checksum is stale. */
int
describe_all(void *eng, out_fn out, int n, int sorted, char *desc, size_t cap, int *bad)
{
	static char tok[1024][96];
	char *p[1024];
	int stale = 0;

	*bad = 0;
	if (n > 1024)
		n = 1024;
	for (int i = 0; i < n; i++) {
		int ok = 1;
		if (describe(outbuf, out(eng, i, outbuf, sizeof(outbuf)), tok[i], sizeof(tok[i]),
			     &ok) != 0)
			(*bad)++;
		stale += !ok;
		p[i] = tok[i];
	}
	join(p, n, sorted, desc, cap);
	return stale;
}

/* "f0:s0-7 f1:s0-7 ..." for the W3 / X shapes: every input a singleton. */
void
singletons(const struct burst *b, char *desc, size_t cap)
{
	size_t o = 0;

	for (int i = 0; i < b->n; i++) {
		char t[96];
		int ok;
		describe(b->frame[i], b->len[i], t, sizeof(t), &ok);
		o += (size_t)snprintf(desc + o, o < cap ? cap - o : 0, "%s%s", i ? " " : "", t);
	}
}

/* 1 when the engine's outputs are the burst's inputs, unchanged, in order. */
int
passed_through(void *eng, out_fn out, int n, const struct burst *b)
{
	int same = 0;

	for (int i = 0; i < n && i < b->n; i++) {
		long l = out(eng, i, outbuf, sizeof(outbuf));
		same += l == (long)b->len[i] && memcmp(outbuf, b->frame[i], b->len[i]) == 0;
	}
	return n == b->n && same == n;
}

/* Heavyweight expectation (sorted): per flow, runs of @run segments over 256. */
void
heavy_expect(int run, char *desc, size_t cap)
{
	static char tok[1024][96];
	char *p[1024];
	int n = 0;

	for (int f = 0; f < 4; f++)
		for (int s = 0; s < 256; s += run) {
			int last = s + run - 1 < 255 ? s + run - 1 : 255;
			snprintf(tok[n], sizeof(tok[n]), "f%d:s%d-%d", f, s, last);
			p[n] = tok[n];
			n++;
		}
	join(p, n, 1, desc, cap);
}
