/* libFuzzer harness: the GRO engine (gro.h).
 *
 * Tunnel packets (VXLAN 4789, Geneve 6081, IP-in-IP: the default parse
 * config) are coalesced too: their super-packets' outer IPv4 header
 * checksum verifies, their type carries the tunnel bit, their virtio
 * header is the UDP-tunnel form (none for IP-in-IP); the lie may hit the
 * tunnel fields.
 *
 * Input: byte 0 = configuration bits (UDP GRO, relaxed policy, full
 * checksums, partial_ok, LRU table, Ethernet/raw, input flags CSUM_OK,
 * rx hashes); byte 1: the split point (byte 1 mod (inputs + 1)), a poll end
 * at the split (bit 7), an LRU table of 8192 flows instead of 4 (bits 4-6
 * all set), at most 3 segments per output (bits 4-6 = 1), each input given
 * with its parse (bits 4-6 = 2: SOFL_GRO_F_PKT, or SOFL_GRO_F_MALFORMED
 * where the parser rejects it; every check below) or with a parse that lies
 * (bits 4-6 = 3: one field of it overwritten from the packet's last bytes;
 * checked: no overread, every input out once, never written, a lone output
 * is its input);
 * then packets, each as a 2-byte big-endian length and that many bytes (each
 * copied into its own exact-size heap buffer).  They are fed as one poll,
 * or split in two at a point chosen by byte 1.  Checked, beyond "no crash,
 * no overread":
 *   - every input appears in exactly one output (by cookie), in order within
 *     the output, and the outputs' segment counts add up to the inputs;
 *   - the engine never writes its inputs;
 *   - a super-packet parses, its payload is its members' payloads in order,
 *     its TCP checksum is complete (csum_full) or the pseudo sum, a UDP
 *     one the pseudo sum (both modes); it has at most max_segs segments and
 *     segments + 1 iovecs;
 *   - every output's virtio header passes sofl_vnet_check(). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "softoffload/softoffload.h"
#include "softoffload/gro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)
#define MAXIN 64
/* what the virtio header checks accept: a UDP-tunnel form too (24 bytes) */
#define VOPTS (SOFL_VNET_F_STRICT | SOFL_VNET_F_TUNNEL | SOFL_VNET_F_TUNNEL_CSUM)

static uint8_t out_buf[70000];

static void
check_outputs(struct sofl_gro *g, const struct sofl_gro_in *in, int *seen, int link, int full,
	      int ip_trusted, uint32_t max_segs, int lax)
{
	const struct sofl_gro_out *o;
	int k = sofl_gro_outputs(g, &o), i;
	uint32_t s;

	for (i = 0; i < k; i++) {
		struct sofl_pkt q;
		enum sofl_csum_state ip, l4;
		long len;
		uint32_t pay = 0;
		int tcp_full;

		CHECK(o[i].segs >= 1 && o[i].segs <= max_segs && o[i].iovcnt <= o[i].segs + 1);
		for (s = 0; s < o[i].segs; s++) {
			CHECK(o[i].cookies[s] < MAXIN);
			CHECK(!seen[o[i].cookies[s]]);
			seen[o[i].cookies[s]] = 1;
			if (s)
				CHECK(o[i].cookies[s] > o[i].cookies[s - 1]);
		}
		len = sofl_gro_out_copy(&o[i], out_buf, sizeof(out_buf));
		CHECK(len == (long)o[i].len);
		if (lax) {	/* a lying parse: decisions by the lie */
			if (o[i].segs == 1)
				CHECK(len == (long)in[o[i].cookies[0]].len &&
				      memcmp(out_buf, in[o[i].cookies[0]].data, (size_t)len) == 0);
			continue;
		}
		(void)sofl_pkt_parse(&q, out_buf, (size_t)len, (enum sofl_link)link);
		CHECK(sofl_vnet_check(&o[i].vnet, &q, VOPTS) >= 0);
		if (o[i].segs == 1) {	/* delivered unchanged */
			const struct sofl_gro_in *x = &in[o[i].cookies[0]];

			CHECK(len == (long)x->len && memcmp(out_buf, x->data, x->len) == 0);
			continue;
		}
		CHECK(sofl_pkt_parse(&q, out_buf, (size_t)len, (enum sofl_link)link) == 0);
		CHECK(q.layers & SOFL_LAYER_L4);
		/* a tunnel super-packet: the parse says so, its type has the bit;
		 * IP-in-IP has no virtio GSO type (its header passes, without GSO) */
		CHECK(!!(q.layers & SOFL_LAYER_ENCAP) == !!(o[i].gso_type & SOFL_GSO_TUNNEL_MASK));
		CHECK(sofl_vnet_check(&o[i].vnet, &q, VOPTS) ==
		      ((o[i].gso_type & SOFL_GSO_TUNNEL_IPIP) ? 0 : 1));
		if ((q.layers & SOFL_LAYER_ENCAP) && q.outer_ipv == 4 && !ip_trusted)
			CHECK(sofl_csum_ipv4_hdr_ok(q.data + q.outer_l3_off, q.outer_l3_len));
		for (s = 0; s < o[i].segs; s++) {
			const struct sofl_gro_in *x = &in[o[i].cookies[s]];
			struct sofl_pkt m;

			CHECK(sofl_pkt_parse(&m, x->data, x->len, (enum sofl_link)link) == 0);
			CHECK(pay + m.pay_len <= q.pay_len);
			CHECK(memcmp(out_buf + q.pay_off + pay, m.data + m.pay_off, m.pay_len) == 0);
			pay += m.pay_len;
		}
		CHECK(pay == q.pay_len);
		sofl_csum_pkt_check(&q, &ip, &l4);
		/* inputs flagged IPCSUM_OK were not verified: a bad header
		 * checksum stays bad through the incremental update */
		if (!ip_trusted)
			CHECK(ip == (q.ipv == 4 ? SOFL_CSUM_VALID : SOFL_CSUM_NONE));
		/* a pseudo sum may happen to verify as a full checksum */
		tcp_full = full && q.l4_proto == 6 && !(o[i].gso_type & SOFL_GSO_TUNNEL_MASK);
		CHECK(o[i].csum == (tcp_full ? SOFL_CSUM_VALID : SOFL_CSUM_PARTIAL));
		CHECK(l4 == SOFL_CSUM_VALID || (!tcp_full && l4 == SOFL_CSUM_PARTIAL));
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sofl_gro_config cfg;
	static const size_t lie[] = {
		offsetof(struct sofl_pkt, l3_off), offsetof(struct sofl_pkt, l3_len),
		offsetof(struct sofl_pkt, ip_end), offsetof(struct sofl_pkt, l4_off),
		offsetof(struct sofl_pkt, l4_len), offsetof(struct sofl_pkt, pay_off),
		offsetof(struct sofl_pkt, pay_len), offsetof(struct sofl_pkt, opt_ts),
		offsetof(struct sofl_pkt, ipv), offsetof(struct sofl_pkt, l4_proto),
		offsetof(struct sofl_pkt, layers), offsetof(struct sofl_pkt, tcp_flags),
		offsetof(struct sofl_pkt, outer_l3_off), offsetof(struct sofl_pkt, outer_l3_len),
		offsetof(struct sofl_pkt, outer_l4_off), offsetof(struct sofl_pkt, encap_off),
		offsetof(struct sofl_pkt, encap_len), offsetof(struct sofl_pkt, inner_l2_off),
		offsetof(struct sofl_pkt, outer_ip_end), offsetof(struct sofl_pkt, encap),
		offsetof(struct sofl_pkt, outer_ipv),
	};
	struct sofl_gro_in in[MAXIN];
	struct sofl_pkt pk[MAXIN];
	struct sofl_gro *g;
	int mode;
	uint8_t *copy[MAXIN];
	const uint8_t *orig[MAXIN];
	int seen[MAXIN] = { 0 };
	size_t n = 0, o = 2, split, i;
	uint8_t c;

	if (size < 2)
		return 0;
	c = data[0];
	mode = (data[1] >> 4) & 7;
	sofl_gro_config_init(&cfg);
	cfg.udp = c & 1;
	cfg.policy = c & 2 ? SOFL_GRO_POLICY_RELAXED : SOFL_GRO_POLICY_LINUX;
	cfg.csum_full = !!(c & 4);
	cfg.partial_ok = !!(c & 8);
	cfg.table = c & 16 ? SOFL_GRO_TABLE_LRU : SOFL_GRO_TABLE_LINUX;
	/* byte 1 bits 4-6 all set: a table past the size from which held
	 * flows' headers are copied into their entries and entries prefetched
	 * (one input in eight: creating it costs ~15 times a small one's) */
	cfg.max_flows = (data[1] & 0x70) == 0x70 ? 8192 : 4;
	cfg.max_segs = (data[1] & 0x70) == 0x10 ? 3 : 0;
	cfg.link = c & 32 ? SOFL_LINK_RAW : SOFL_LINK_ETH;
	while (n < MAXIN && o + 2 <= size) {
		size_t l = (size_t)data[o] << 8 | data[o + 1];

		o += 2;
		if (l > size - o)
			l = size - o;
		copy[n] = malloc(l ? l : 1);
		CHECK(copy[n]);
		memcpy(copy[n], data + o, l);
		orig[n] = data + o;
		memset(&in[n], 0, sizeof(in[n]));
		in[n].data = copy[n];
		in[n].len = (uint32_t)l;
		in[n].cookie = n;
		in[n].flags = c & 64 ? SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK : 0;
		if (c & 128) {
			in[n].flags |= SOFL_GRO_F_HASH;
			in[n].hash = (uint32_t)(l * 2654435761u);
		}
		if (mode == 2 || mode == 3) {
			if (sofl_pkt_parse(&pk[n], copy[n], l, cfg.link) < 0) {
				in[n].flags |= SOFL_GRO_F_MALFORMED;
			} else {
				in[n].flags |= SOFL_GRO_F_PKT;
				in[n].pkt = &pk[n];
			}
			if (mode == 3 && l >= 3) {	/* the lie: a 16-bit value into a field */
				size_t at = lie[data[o + l - 1] % (sizeof(lie) / sizeof(lie[0]))];
				uint16_t v = (uint16_t)(data[o + l - 2] << 8 | data[o + l - 3]);

				if (at == offsetof(struct sofl_pkt, ipv) ||
				    at == offsetof(struct sofl_pkt, l4_proto) ||
				    at == offsetof(struct sofl_pkt, layers) ||
				    at == offsetof(struct sofl_pkt, tcp_flags) ||
				    at == offsetof(struct sofl_pkt, encap) ||
				    at == offsetof(struct sofl_pkt, outer_ipv))
					*((uint8_t *)&pk[n] + at) = (uint8_t)v;
				else if (at == offsetof(struct sofl_pkt, ip_end) ||
					 at == offsetof(struct sofl_pkt, pay_off) ||
					 at == offsetof(struct sofl_pkt, pay_len) ||
					 at == offsetof(struct sofl_pkt, outer_ip_end)) {
					uint32_t w = v;
					memcpy((uint8_t *)&pk[n] + at, &w, 4);
				} else
					memcpy((uint8_t *)&pk[n] + at, &v, 2);
			}
		}
		o += l;
		n++;
	}
	CHECK(sofl_gro_create(&cfg, &g) == 0);
	split = n ? data[1] % (n + 1) : 0;
	CHECK(sofl_gro_receive(g, in, split, 0) == (int)split);
	if (data[1] & 0x80) {		/* two polls */
		sofl_gro_poll_end(g, 0);
		check_outputs(g, in, seen, cfg.link, cfg.csum_full, c & 64,
			      cfg.max_segs ? cfg.max_segs : SOFL_GRO_MAX_SEGS_DEFAULT, mode == 3);
		sofl_gro_release(g);
	}
	CHECK(sofl_gro_receive(g, in + split, n - split, 0) == (int)(n - split));
	sofl_gro_poll_end(g, 0);
	check_outputs(g, in, seen, cfg.link, cfg.csum_full, c & 64,
		      cfg.max_segs ? cfg.max_segs : SOFL_GRO_MAX_SEGS_DEFAULT, mode == 3);
	sofl_gro_release(g);
	CHECK(sofl_gro_held(g) == 0);
	for (i = 0; i < n; i++) {
		CHECK(seen[i]);		/* every input came out */
		CHECK(memcmp(copy[i], orig[i], in[i].len) == 0);	/* never written */
		free(copy[i]);
	}
	sofl_gro_destroy(g);
	return 0;
}
