/* Description: the GRO fast paths of tunnel flows (trains of VXLAN, Geneve
 * and IP-in-IP segments: src/gro/gro_train.c; docs/overlay-gro.md) held to
 * the general path.  Random tunnel streams — runs of one flow's segments
 * (trains), flows in turn, with outer IPv4 ID gaps, fixed outer IDs, outer
 * TTL changes, outer UDP checksums zero / non-zero / bad, bad outer IPv4
 * header checksums, inner gaps, PSH, short segments, pure ACKs, another
 * outer port, another inner ACK number or timestamp, size and segment
 * limits in the middle of a train, headers up to 224 bytes — go through
 * an engine with the fast paths off (the reference), with them on at each
 * instruction-set level, and with the input flags every way a receive
 * path sets them (none, inner checksums verified, outer too, mixed; rx hash
 * or none); every output must be the same: bytes (outer IP ID, outer
 * lengths and checksums, outer UDP length and checksum field), length,
 * segments, reason, GSO type and size, checksum state and offsets, virtio
 * header, cookies, and every counter.  Streams of full-size segments in
 * order must take the trains (the fast paths' count says so). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "helpers.h"
#include "helpers_encap.h"
#include "softoffload/gro.h"
#include "softoffload/bytes.h"
#include "softoffload/csum.h"

/* test hooks (src/gro/gro_engine.h) */
void sofl_gro_set_fast(struct sofl_gro *g, int on);
void sofl_gro_set_isa(struct sofl_gro *g, int level);
void sofl_gro_fast_counts(const struct sofl_gro *g, uint64_t *segs, uint64_t *runs);
uint64_t sofl_gro_fast_tun_holds(const struct sofl_gro *g);
int sofl_gro_set_rule(struct sofl_gro *g, unsigned hdr, unsigned byte, uint8_t mask);

#define NPK 96
#define FRAME 4096

/* A stream's shape */
struct shape {
	int type;		/* SOFL_ENCAP_VXLAN, _GENEVE, _IPIP */
	int ov, iv;		/* outer, inner IP version */
	int ocsum;		/* outer UDP checksum filled (else zero) */
	int ofixed;		/* outer IPv4 IDs all equal (DF set) */
	int ts;			/* inner TCP timestamps (12 option bytes); 2: and 28 more
				 * option bytes (NOPs and a SACK-permitted, 40 in all) */
	size_t gopt;		/* Geneve option bytes */
	size_t mss;
	int flows;
};

/* What one packet carries besides its flow's next segment */
enum ev {
	EV_NONE, EV_OID_GAP, EV_OTTL, EV_OCSUM_FLIP, EV_OCSUM_BAD, EV_OIPSUM_BAD, EV_SEQ_GAP,
	EV_PSH, EV_SHORT, EV_IID_GAP, EV_OSPORT, EV_ACK, EV_VNI,
	EV_IACK, EV_ITS,	/* inner TCP ack number, timestamp value: past 128
				 * header bytes in the long shapes */
	EV__N,
	EV_OULEN	/* the outer UDP length one short of the frame (not drawn
			 * at random) */
};

struct stream {
	uint8_t *pk[NPK];
	uint32_t len[NPK], flags[NPK], hash[NPK];
	int brk[NPK];
	int n;
};

struct outs {
	int n;
	uint8_t *b[NPK];
	struct sofl_gro_out o[NPK];
	uint64_t ck[NPK][NPK];
	struct sofl_gro_stats st;
	uint64_t fsegs, fruns, tholds;
};

static const uint8_t gopts[40] = {
	0x01, 0x02, 0x80, 0x01, 0xaa, 0xbb, 0xcc, 0xdd, 0x01, 0x03, 0x00, 0x07,
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
	25, 26, 27, 28,
};

/* Packet of flow @f, inner segment @j (sequence @seq), outer ID @oid, under
 * @sh with event @ev, appended to @s */
static void
add_pkt(struct stream *s, const struct shape *sh, int f, uint32_t seq, uint16_t iid, uint16_t oid,
	enum ev ev)
{
	uint8_t inner[FRAME], b[FRAME];
	struct t_spec in, out;
	struct t_encap e;
	size_t il, l;
	static uint8_t opt[40];

	t_spec_init(&in, sh->iv, 6);
	in.link = sh->type == SOFL_ENCAP_IPIP ? SOFL_LINK_RAW : SOFL_LINK_ETH;
	in.sport = (uint16_t)(1000 + f);
	in.dport = 5201;
	in.seq = seq;
	in.ack = 0x20000000u + (ev == EV_IACK ? 1u : 0u);
	in.ip_id = iid;
	in.pay_len = sh->mss;
	in.pay_off = seq;
	in.pay_seed = (uint8_t)f;
	if (sh->ts) {
		t_opt_ts_set(opt, 0x100u + (uint32_t)f + (ev == EV_ITS ? 1u : 0u), 0x200u);
		in.tcp_opts = opt;
		in.tcp_opts_len = 12;
	}
	if (sh->ts == 2) {	/* 26 NOPs, SACK-permitted (kind 4, length 2) */
		memset(opt + 12, 1, 26);
		opt[38] = 4;
		opt[39] = 2;
		in.tcp_opts_len = 40;
	}
	if (ev == EV_PSH)
		in.flags |= SOFL_TCP_PSH;
	if (ev == EV_SHORT)
		in.pay_len = sh->mss / 3;
	if (ev == EV_ACK)
		in.pay_len = 0;
	il = t_build(inner, sizeof(inner), &in);

	t_spec_init(&out, sh->ov, sh->type == SOFL_ENCAP_IPIP ? (sh->iv == 4 ? 4 : 41) : 17);
	out.sport = (uint16_t)(50000 + f + (ev == EV_OSPORT ? 7 : 0));
	out.dport = sh->type == SOFL_ENCAP_GENEVE ? 6081 : 4789;
	out.ip_id = oid;
	out.df = sh->ofixed || (f & 1);
	out.ttl = ev == EV_OTTL ? 9 : 64;
	out.udp_zero_csum = !(sh->ocsum ^ (ev == EV_OCSUM_FLIP));
	t_encap_init(&e, sh->type, 0x4242u + (ev == EV_VNI ? 1u : 0u));
	if (sh->type == SOFL_ENCAP_GENEVE && sh->gopt) {
		e.gn_opts = gopts;
		e.gn_opts_len = sh->gopt;
	}
	l = t_build_encap(b, sizeof(b), &out, &e, inner, il);
	if (ev == EV_OCSUM_BAD && sh->type != SOFL_ENCAP_IPIP && sh->ocsum) {
		const size_t o6 = 14 + (sh->ov == 4 ? 20 : 40) + 6;
		b[o6 + 1] ^= 0x10;
	}
	if (ev == EV_OULEN && sh->type != SOFL_ENCAP_IPIP) {
		uint8_t *ul = b + 14 + (sh->ov == 4 ? 20 : 40) + 4;

		sofl_put16(ul, (uint16_t)(sofl_get16(ul) - 1));
	}
	if (ev == EV_OIPSUM_BAD && sh->ov == 4)
		b[14 + 10] ^= 0x01;
	assert_true(s->n < NPK);
	s->pk[s->n] = malloc(l);
	assert_non_null(s->pk[s->n]);
	memcpy(s->pk[s->n], b, l);
	s->len[s->n] = (uint32_t)l;
	s->n++;
}

/* A random stream of @sh: runs of one flow's segments, events with odds
 * 1 in @odds (0: none), flags by @fmode (0 none, 1 inner checksums
 * verified, 2 and outer, 3 mixed), with an rx hash when @hashed */
static void
make_stream(struct stream *s, const struct shape *sh, uint64_t *rng, int odds, int fmode,
	    int hashed)
{
	uint32_t seq[4];
	uint16_t iid[4], oid[4];
	int f, k;

	memset(s, 0, sizeof(*s));
	for (f = 0; f < sh->flows; f++) {
		seq[f] = 0x1000u * (uint32_t)(f + 1);
		iid[f] = (uint16_t)(100 * f);
		oid[f] = (uint16_t)(0xfff0 + 0x300 * f);	/* (wraps within a train) */
	}
	while (s->n < NPK - 1) {
		int run = 1 + (int)(t_rand(rng) % 14);

		f = (int)(t_rand(rng) % (uint64_t)sh->flows);
		for (k = 0; k < run && s->n < NPK - 1; k++) {
			enum ev ev = odds && t_rand(rng) % (uint64_t)odds == 0 ?
					     (enum ev)(1 + t_rand(rng) % (EV__N - 1)) : EV_NONE;
			uint32_t fl;

			if (ev == EV_OID_GAP)
				oid[f] = (uint16_t)(oid[f] + 3);
			if (ev == EV_SEQ_GAP)
				seq[f] += 1;
			if (ev == EV_IID_GAP)
				iid[f] = (uint16_t)(iid[f] + 2);
			add_pkt(s, sh, f, seq[f], iid[f], oid[f], ev);
			seq[f] += ev == EV_SHORT ? (uint32_t)(sh->mss / 3) : ev == EV_ACK ? 0u :
										   (uint32_t)sh->mss;
			iid[f]++;
			if (!sh->ofixed)
				oid[f]++;
			switch (fmode) {
			case 0: fl = 0; break;
			case 1: fl = SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK; break;
			case 2: fl = SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK | SOFL_GRO_F_OUTER_CSUM_OK;
				break;
			default:
				fl = (uint32_t)(t_rand(rng) % 8);
				fl = ((fl & 1) ? SOFL_GRO_F_CSUM_OK : 0u) |
				     ((fl & 2) ? SOFL_GRO_F_IPCSUM_OK : 0u) |
				     ((fl & 4) ? SOFL_GRO_F_OUTER_CSUM_OK : 0u);
			}
			if (hashed) {
				fl |= SOFL_GRO_F_HASH;
				s->hash[s->n - 1] = 0x1234567u * (uint32_t)(f + 1);
			}
			s->flags[s->n - 1] = fl;
		}
		if (t_rand(rng) % 5 == 0)
			s->brk[s->n - 1] = 1;
	}
}

static void
stream_free(struct stream *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->pk[i]);
}

static void
outs_free(struct outs *o)
{
	for (int i = 0; i < o->n; i++)
		free(o->b[i]);
	o->n = 0;
}

/* Engine setups a stream goes through */
struct how {
	int table;		/* SOFL_GRO_TABLE_LINUX or _LRU */
	uint32_t max_size, max_segs;
	int ttl_free;		/* the rule "TTL may differ" (sofl_gro_set_rule) */
};

/* @s through an engine of @h; @fast 0: the general path, else the fast
 * paths at instruction-set level @isa; outputs and counters into @o */
static void
run(const struct stream *s, const struct how *h, int fast, int isa, struct outs *o)
{
	struct sofl_gro_config cfg;
	struct sofl_gro *g;
	struct sofl_gro_in in[NPK];
	int i, j, k, start = 0, seen[NPK] = { 0 };

	sofl_gro_config_init(&cfg);
	cfg.table = (enum sofl_gro_table)h->table;
	if (h->max_size)
		cfg.max_size = h->max_size;
	if (h->max_segs)
		cfg.max_segs = h->max_segs;
	assert_int_equal(sofl_gro_create(&cfg, &g), 0);
	sofl_gro_set_fast(g, fast);
	sofl_gro_set_isa(g, isa);
	if (h->ttl_free)
		assert_int_equal(sofl_gro_set_rule(g, 4, 8, 0), 0);
	memset(in, 0, sizeof(in));
	memset(o, 0, sizeof(*o));
	for (i = 0; i < s->n; i++) {
		in[i].data = s->pk[i];
		in[i].len = s->len[i];
		in[i].flags = s->flags[i];
		in[i].hash = s->hash[i];
		in[i].cookie = (uint64_t)i;
	}
	for (i = 0; i < s->n; i++) {
		const struct sofl_gro_out *out;

		if (!s->brk[i] && i + 1 < s->n)
			continue;
		assert_int_equal(sofl_gro_receive(g, in + start, (size_t)(i + 1 - start), 0),
				 i + 1 - start);
		start = i + 1;
		sofl_gro_poll_end(g, 0);
		k = sofl_gro_outputs(g, &out);
		for (j = 0; j < k; j++) {
			const int at = o->n++;

			assert_true(at < NPK);
			o->o[at] = out[j];
			o->b[at] = malloc(out[j].len);
			assert_non_null(o->b[at]);
			assert_int_equal(sofl_gro_out_copy(&out[j], o->b[at], out[j].len),
					 (int)out[j].len);
			assert_true(out[j].segs >= 1 && out[j].segs <= NPK);
			for (uint32_t c = 0; c < out[j].segs; c++) {
				assert_true(out[j].cookies[c] < (uint64_t)s->n);
				o->ck[at][c] = out[j].cookies[c];
				seen[out[j].cookies[c]]++;
			}
		}
		sofl_gro_release(g);
	}
	for (i = 0; i < s->n; i++)
		assert_int_equal(seen[i], 1);	/* every input exactly once */
	assert_int_equal(sofl_gro_get_stats(g, &o->st, sizeof(o->st)), 0);
	sofl_gro_fast_counts(g, &o->fsegs, &o->fruns);
	o->tholds = sofl_gro_fast_tun_holds(g);
	sofl_gro_destroy(g);
}

/* @b (a fast path's) is @a (the general path's) */
static void
same_outs(const struct outs *a, const struct outs *b)
{
	int i;

	assert_int_equal(b->n, a->n);
	for (i = 0; i < a->n; i++) {
		const struct sofl_gro_out *x = &a->o[i], *y = &b->o[i];

		assert_int_equal(y->len, x->len);
		if (memcmp(b->b[i], a->b[i], x->len)) {
			t_hexdump("general", a->b[i], 160);
			t_hexdump("fast", b->b[i], 160);
		}
		assert_memory_equal(b->b[i], a->b[i], x->len);
		assert_int_equal(y->segs, x->segs);
		assert_memory_equal(b->ck[i], a->ck[i], x->segs * sizeof(uint64_t));
		assert_int_equal(y->gso_type, x->gso_type);
		assert_int_equal(y->gso_size, x->gso_size);
		assert_int_equal(y->csum, x->csum);
		assert_int_equal(y->csum_start, x->csum_start);
		assert_int_equal(y->csum_offset, x->csum_offset);
		assert_int_equal(y->bypass, x->bypass);
		assert_int_equal(y->bypass ? y->bypass_reason : y->flush_reason,
				 x->bypass ? x->bypass_reason : x->flush_reason);
		assert_memory_equal(&y->vnet, &x->vnet, sizeof(x->vnet));
	}
	/* every counter: a fast merge counts what the general way would */
	assert_memory_equal(&b->st, &a->st, sizeof(a->st));
}

static uint64_t last_tholds;	/* check_stream's level-2 run: fast_hold_tun's holds */

/* @s through the general path and the fast paths at every level, under
 * @h: the same outputs; @return the fast paths' merged segments (level 2),
 * the trains that merged in *runs */
static uint64_t
check_stream(const struct stream *s, const struct how *h, uint64_t *runs)
{
	struct outs *ref = malloc(sizeof(*ref)), *x = malloc(sizeof(*x));
	uint64_t segs;

	assert_non_null(ref);
	assert_non_null(x);
	run(s, h, 0, 2, ref);
	for (int isa = 0; isa <= 2; isa++) {
		run(s, h, 1, isa, x);
		same_outs(ref, x);
		outs_free(x);
	}
	run(s, h, 1, 2, x);
	segs = x->fsegs;
	*runs = x->fruns;
	last_tholds = x->tholds;
	outs_free(x);
	outs_free(ref);
	free(ref);
	free(x);
	return segs;
}

static const struct shape shapes[] = {
	/* type, ov, iv, ocsum, ofixed, ts, gopt, mss, flows */
	{ SOFL_ENCAP_VXLAN, 4, 4, 0, 0, 1, 0, 1398, 1 },	/* the benchmark's: 116 bytes */
	{ SOFL_ENCAP_VXLAN, 4, 4, 1, 0, 1, 0, 1000, 2 },
	{ SOFL_ENCAP_VXLAN, 4, 4, 0, 1, 0, 0, 700, 3 },		/* fixed outer IDs, 104 bytes */
	{ SOFL_ENCAP_VXLAN, 6, 4, 1, 0, 1, 0, 900, 2 },
	{ SOFL_ENCAP_VXLAN, 4, 6, 0, 0, 1, 0, 900, 1 },
	{ SOFL_ENCAP_VXLAN, 6, 6, 0, 0, 0, 0, 600, 2 },
	{ SOFL_ENCAP_VXLAN, 6, 6, 1, 0, 2, 0, 700, 2 },		/* 40 option bytes: 184 bytes */
	{ SOFL_ENCAP_VXLAN, 4, 4, 0, 0, 2, 0, 800, 1 },		/* 144 bytes */
	{ SOFL_ENCAP_GENEVE, 4, 4, 1, 0, 1, 8, 800, 2 },	/* 124 bytes */
	{ SOFL_ENCAP_GENEVE, 4, 4, 0, 0, 1, 40, 800, 1 },	/* 156 */
	{ SOFL_ENCAP_GENEVE, 6, 6, 1, 0, 2, 40, 600, 2 },	/* 224 bytes */
	{ SOFL_ENCAP_GENEVE, 6, 4, 0, 0, 0, 0, 800, 2 },
	{ SOFL_ENCAP_IPIP, 4, 4, 0, 0, 1, 0, 1000, 2 },		/* 86 bytes */
	{ SOFL_ENCAP_IPIP, 4, 6, 0, 1, 0, 0, 1000, 1 },
	{ SOFL_ENCAP_IPIP, 6, 6, 0, 0, 1, 0, 1000, 2 },
};

/* The headers' length of a segment of @sh */
static size_t
hdr_len(const struct shape *sh)
{
	return 14 + (sh->ov == 4 ? 20u : 40u) +
	       (sh->type == SOFL_ENCAP_IPIP ? 0u : 8 + 8 + sh->gopt + 14) +
	       (sh->iv == 4 ? 20u : 40u) + 20 + (sh->ts == 2 ? 40u : sh->ts ? 12u : 0u);
}

/* A size limit between what 6 segments of @sh need measured from the inner
 * IP header and from the outer one (the limit is the outer IP length's:
 * Linux's p->len at the outer layer) */
static uint32_t
size_edge(const struct shape *sh)
{
	const size_t inner = (sh->iv == 4 ? 20u : 40u) + 20 + (sh->ts == 2 ? 40u : sh->ts ? 12u : 0u);
	const size_t before = hdr_len(sh) - 14 - inner;

	return (uint32_t)(inner + 6 * sh->mss + before / 2);
}

/* Every shape, flag mode and rx hash choice, with and without events,
 * both tables, the general path's outputs from the fast paths */
static void
test_tun_train_random(void **state)
{
	const struct how hows[] = {
		{ SOFL_GRO_TABLE_LINUX, 0, 0, 0 },
		{ SOFL_GRO_TABLE_LRU, 0, 0, 0 },
		{ SOFL_GRO_TABLE_LINUX, 1, 0, 0 },	/* the size limit inside trains */
		{ SOFL_GRO_TABLE_LINUX, 0, 5, 0 },	/* the segment cap inside trains */
		{ SOFL_GRO_TABLE_LINUX, 0, 0, 1 },	/* TTL may differ: outer too */
	};
	uint64_t rng = 0x5eed21;
	size_t si, hi;
	int fmode, hashed, odds;

	(void)state;
	for (si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++)
		for (fmode = 0; fmode < 4; fmode++)
			for (hashed = 0; hashed < 2; hashed++)
				for (odds = 0; odds <= 10; odds += 10)
					for (hi = 0; hi < sizeof(hows) / sizeof(hows[0]); hi++) {
						struct stream s;
						uint64_t runs;

						if (hi >= 2 && (odds || fmode == 3))
							continue;	/* (enough) */
						struct how h = hows[hi];

						if (h.max_size == 1)
							h.max_size = size_edge(&shapes[si]);
						make_stream(&s, &shapes[si], &rng, odds, fmode, hashed);
						check_stream(&s, &h, &runs);
						stream_free(&s);
					}
}

/* One flow's full-size segments in order, rx hash, checksums flagged: the
 * tunnel flow's segments go by trains (every segment after the first
 * merged by the fast paths; the LRU table's, found by the frame's hash,
 * one at a time), into one super-packet per poll, the same as the general
 * path's — headers over 128 bytes too (an outer IPv6 header's VXLAN with
 * timestamps, 40 TCP option bytes, Geneve with 40 option bytes: up to 224
 * bytes), compared from memory */
static void
test_tun_train_taken(void **state)
{
	uint64_t rng = 1;
	size_t si;
	int lru;

	(void)state;
	for (lru = 0; lru < 2; lru++)
	for (si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++) {
		const struct how h = { lru ? SOFL_GRO_TABLE_LRU : SOFL_GRO_TABLE_LINUX, 0, 0, 0 };
		struct shape sh = shapes[si];
		struct stream s;
		uint64_t segs, runs;

		sh.flows = 1;
		sh.mss = 500;		/* 95 segments fit 65535 */
		/* the LRU table without an rx hash: the frame's (raw_tun_hash) */
		make_stream(&s, &sh, &rng, 0, sh.ocsum ? 2 : 1, !lru);
		memset(s.brk, 0, sizeof(s.brk));
		segs = check_stream(&s, &h, &runs);
		/* all but the first (and the second of fixed outer IDs, whose
		 * mode the general way latches) */
		assert_int_equal(segs, (uint64_t)s.n - (sh.ofixed ? 2 : 1));
		assert_int_equal(runs, lru ? 0 : 1);	/* one train (the LRU table:
							 * one at a time) */
		stream_free(&s);
	}
}

/* Two tunnel flows in runs of 8 (A B A B ...), one receive call: each run
 * after a flow's first is a train, found by the compare of fast_find with
 * the outer IPv4 ID the flow's last train left (a train that did not
 * write it back would send every later run the general way) */
static void
test_tun_train_runs(void **state)
{
	const struct how h = { SOFL_GRO_TABLE_LINUX, 0, 0, 0 };
	struct shape sh = shapes[0];
	uint64_t segs, runs;
	uint32_t seq[2] = { 0x1000, 0x2000 };
	uint16_t iid[2] = { 0, 100 }, oid[2] = { 0xfff0, 0x2f0 };
	struct stream s;
	int f, k;

	(void)state;
	sh.flows = 2;
	sh.mss = 500;
	memset(&s, 0, sizeof(s));
	while (s.n + 8 <= 64) {
		f = (s.n / 8) & 1;
		for (k = 0; k < 8; k++) {
			add_pkt(&s, &sh, f, seq[f], iid[f], oid[f], EV_NONE);
			seq[f] += (uint32_t)sh.mss;
			iid[f]++;
			oid[f]++;
			s.flags[s.n - 1] = SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK | SOFL_GRO_F_HASH;
			s.hash[s.n - 1] = 0x1234567u * (uint32_t)(f + 1);
		}
	}
	segs = check_stream(&s, &h, &runs);
	assert_int_equal(segs, (uint64_t)s.n - 2);	/* all but each flow's first */
	stream_free(&s);
}

/* @flows tunnel flows of @sh in turn, 4 segments each (the benchmark's
 * 32-flow VXLAN row: no two inputs in a row of one flow), rx hash, flags
 * @fl; each flow's first segment with event @ev0 */
static void
rr_stream(struct stream *s, const struct shape *sh, int flows, uint32_t fl, enum ev ev0)
{
	memset(s, 0, sizeof(*s));
	for (int k = 0; k < 4; k++)
		for (int f = 0; f < flows; f++) {
			add_pkt(s, sh, f, 0x1000u * (uint32_t)(f + 1) + (uint32_t)(k * (int)sh->mss),
				(uint16_t)(100 * f + k), (uint16_t)(0xfffe + 0x300 * f + (sh->ofixed ? 0 : k)),
				k ? EV_NONE : ev0);
			s->flags[s->n - 1] = fl | SOFL_GRO_F_HASH;
			s->hash[s->n - 1] = 0x1234567u * (uint32_t)(f + 1);
		}
}

/* Tunnel flows in turn on the Linux table: each flow's first segment is held
 * without the full parse (fast_hold_tun) when its checksums come flagged,
 * its later ones merged by the fast paths, and the outputs and counters are
 * the general path's; first segments that the general way delivers at once
 * or must verify (a bad or unflagged outer checksum, a bad outer IPv4
 * header checksum not flagged, PSH, a short or empty segment, an outer
 * UDP length short of the frame, no flags)
 * are not held by it, and still give the general path's outputs */
static void
test_tun_hold_rr(void **state)
{
	const struct how h = { SOFL_GRO_TABLE_LINUX, 0, 0, 0 };
	static const enum ev evs[] = { EV_OCSUM_BAD, EV_OCSUM_FLIP, EV_OIPSUM_BAD, EV_PSH,
				       EV_SHORT, EV_ACK, EV_VNI, EV_OSPORT, EV_OULEN };
	const uint32_t ok = SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK;
	size_t si, e;

	(void)state;
	for (si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++) {
		struct shape sh = shapes[si];
		struct stream s;
		uint64_t segs, runs;

		if (sh.type == SOFL_ENCAP_IPIP)
			continue;	/* (no UDP tunnel: the general way) */
		sh.mss = 500;
		/* flagged (an outer checksum too): every flow held fast */
		rr_stream(&s, &sh, 16, ok | (sh.ocsum ? SOFL_GRO_F_OUTER_CSUM_OK : 0u), EV_NONE);
		segs = check_stream(&s, &h, &runs);
		assert_int_equal(last_tholds, 16);
		assert_int_equal(segs, 16 * 3 - (sh.ofixed ? 16 : 0));
		stream_free(&s);
		/* a non-zero outer checksum not flagged, or nothing flagged:
		 * the general way verifies and holds */
		rr_stream(&s, &sh, 16, sh.ocsum ? ok : 0u, EV_NONE);
		check_stream(&s, &h, &runs);
		assert_int_equal(last_tholds, 0);
		stream_free(&s);
		for (e = 0; e < sizeof(evs) / sizeof(evs[0]); e++)
			for (uint32_t fl = 0; fl < 2; fl++) {
				rr_stream(&s, &sh, 8, fl ? ok | SOFL_GRO_F_OUTER_CSUM_OK : ok, evs[e]);
				check_stream(&s, &h, &runs);
				stream_free(&s);
			}
	}
}

/* Flows of two tunnel layouts in turn on the Linux table (@a's flows 0-3,
 * @b's 4-7), checksums flagged: the fast paths keep each layout's mask
 * apart (fast_setup remembers the last layout's: tun_mask) and give the
 * general path's outputs.  The pairs differ in the outer checksum only, in
 * the inner or outer IP version, in the tunnel; the zero-checksum flows'
 * third segments carry a non-zero outer checksum (EV_OCSUM_FLIP), which
 * Linux never merges into a zero-checksum flow (the mask keeps those bytes
 * for such a flow; the other layout's mask would let it through). */
static void
test_tun_layouts_rr(void **state)
{
	static const int pairs[][2] = { { 1, 0 }, { 0, 1 }, { 3, 5 }, { 8, 9 }, { 1, 8 }, { 4, 0 } };
	const struct how h = { SOFL_GRO_TABLE_LINUX, 0, 0, 0 };
	const uint32_t fl = SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK | SOFL_GRO_F_OUTER_CSUM_OK |
			    SOFL_GRO_F_HASH;

	(void)state;
	for (size_t pi = 0; pi < sizeof(pairs) / sizeof(pairs[0]); pi++)
		for (int flip = 0; flip < 2; flip++) {
			struct stream s;
			uint64_t segs, runs;

			memset(&s, 0, sizeof(s));
			for (int k = 0; k < 4; k++)
				for (int f = 0; f < 8; f++) {
					struct shape sh = shapes[pairs[pi][f >= 4]];
					enum ev ev = flip && k == 2 && !sh.ocsum ? EV_OCSUM_FLIP : EV_NONE;

					sh.mss = 500;
					add_pkt(&s, &sh, f,
						0x1000u * (uint32_t)(f + 1) + (uint32_t)(k * (int)sh.mss),
						(uint16_t)(100 * f + k),
						(uint16_t)(0x300 * f + (sh.ofixed ? 0 : k)), ev);
					s.flags[s.n - 1] = fl;
					s.hash[s.n - 1] = 0x1234567u * (uint32_t)(f + 1);
				}
			segs = check_stream(&s, &h, &runs);
			assert_true(segs >= 8);	/* the fast paths took part */
			stream_free(&s);
		}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tun_hold_rr),
		cmocka_unit_test(test_tun_layouts_rr),
		cmocka_unit_test(test_tun_train_runs),
		cmocka_unit_test(test_tun_train_taken),
		cmocka_unit_test(test_tun_train_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
