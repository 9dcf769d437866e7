/* Description: GRO inputs delivered at once without the full parse (runs of
 * IPv4 packets that are not TCP: other protocols, UDP with UDP GRO off or
 * with a bad UDP length) change nothing: random streams dominated by such
 * runs (up to 80 in a row), mixed with what must take the general way
 * (UDP fragments, Ethernet padding, IPv4 options, a VLAN tag, IPv6, short
 * frames, TCP segments that are held), through two engines, fast path on
 * and off, both tables, UDP GRO on and off, Ethernet and raw IP: every
 * output and every counter identical; and each fast-path kind checked
 * against its expected reason, checksum state and virtio flags, the bypass
 * counters and the input bytes against the stream's counts. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "helpers.h"
#include "gro/gro_engine.h"	/* sofl_gro_set_fast() */

/* an output's reason: bypass_reason or flush_reason, as bypass says */
#define WHY(o) ((o)->bypass ? (int)(o)->bypass_reason : (int)(o)->flush_reason)

#define NIN 400
#define FRAME 256

enum kind {
	K_UDP,		/* a valid UDP datagram: UDP_OFF, or UDP GRO's */
	K_UDP_SHORT,	/* UDP length field below 8: MALFORMED */
	K_UDP_LONG,	/* UDP length field past the packet: MALFORMED */
	K_ICMP,		/* protocol 1: PROTO */
	K_GRE,		/* protocol 47: PROTO */
	K_FRAG,		/* UDP, more fragments: the general way */
	K_PAD,		/* UDP with Ethernet padding: the general way */
	K_OPTS,		/* UDP with IPv4 options: the general way */
	K_VLAN,		/* UDP behind a VLAN tag: the general way */
	K_V6,		/* IPv6 UDP */
	K_CUT,		/* UDP cut to fewer than 60 bytes from the IP header */
	K_TCP,		/* a TCP segment (held) */
	K__N
};

struct stream {
	uint8_t buf[NIN][FRAME];
	struct sofl_gro_in in[NIN];
	enum kind kind[NIN];
	int brk[NIN];
	int n;
};

static uint64_t seed0 = 0xb1ba55ull;
static int runs = 300;

static uint32_t
rnd(uint64_t *r, uint32_t n)
{
	return (uint32_t)(t_rand(r) % n);
}

static void
add(struct stream *st, uint64_t *r, enum kind k, int link, uint32_t flags)
{
	struct t_spec s;
	uint8_t *b = st->buf[st->n];
	const size_t l3 = link == SOFL_LINK_RAW ? 0 : 14;
	size_t len;

	if (link == SOFL_LINK_RAW && (k == K_PAD || k == K_VLAN))
		k = K_UDP;	/* no Ethernet header */
	t_spec_init(&s, k == K_V6 ? 6 : 4, k == K_TCP ? 6 : k == K_ICMP ? 1 : k == K_GRE ? 47 : 17);
	s.link = link;
	s.pay_len = 20 + rnd(r, 120);
	s.sport = (uint16_t)(1000 + rnd(r, 4));
	s.seq = rnd(r, 1u << 30);
	s.ip_id = (uint16_t)rnd(r, 65536);
	if (k == K_FRAG)
		s.frag = 0x2000;
	if (k == K_PAD && link != SOFL_LINK_RAW)
		s.eth_pad = 1 + rnd(r, 8);
	if (k == K_OPTS) {
		static const uint8_t opts[4] = { 0x94, 4, 0, 0 };
		s.ip_opts = opts;
		s.ip_opts_len = 4;
	}
	if (k == K_VLAN && link != SOFL_LINK_RAW) {
		s.nvlan = 1;
		s.vlan_tci[0] = 7;
	}
	len = t_build(b, FRAME, &s);
	if (k == K_UDP_SHORT)
		b[l3 + 20 + 5] = (uint8_t)rnd(r, 8), b[l3 + 20 + 4] = 0;
	if (k == K_UDP_LONG)
		b[l3 + 20 + 4] = 0x7f;
	if (k == K_CUT)
		len = l3 + 28 + rnd(r, 32);
	st->in[st->n] = (struct sofl_gro_in){ .data = b, .len = (uint32_t)len,
		.flags = flags, .hash = flags & SOFL_GRO_F_HASH ? (uint32_t)t_rand(r) : 0,
		.cookie = (uint64_t)st->n };
	st->kind[st->n] = k;
	st->brk[st->n] = rnd(r, 40) == 0;
	st->n++;
}

/* Runs of one kind, mostly of the kinds the fast path delivers */
static void
make_stream(struct stream *st, uint64_t *r, int link)
{
	st->n = 0;
	while (st->n < NIN) {
		enum kind k = rnd(r, 3) ? (enum kind)rnd(r, K_FRAG) : (enum kind)rnd(r, K__N);
		uint32_t len = rnd(r, 4) ? 1 + rnd(r, 80) : 1 + rnd(r, 3), i;
		uint32_t fl = rnd(r, 8);	/* HASH, CSUM_OK, IPCSUM_OK at random */

		for (i = 0; i < len && st->n < NIN; i++)
			add(st, r, k, link, rnd(r, 3) ? fl : rnd(r, 8));
	}
}

static void
same_out(const struct sofl_gro_out *a, const struct sofl_gro_out *b, int run, int k)
{
	static uint8_t ba[65536], bb[65536];
	long la = sofl_gro_out_copy(a, ba, sizeof(ba)), lb = sofl_gro_out_copy(b, bb, sizeof(bb));

	if (la != lb || la < 0 || memcmp(ba, bb, (size_t)la) != 0 || a->iovcnt != b->iovcnt ||
	    a->segs != b->segs || memcmp(a->cookies, b->cookies, a->segs * sizeof(uint64_t)) != 0 ||
	    a->gso_size != b->gso_size || a->gso_type != b->gso_type || a->csum != b->csum ||
	    a->csum_start != b->csum_start || a->csum_offset != b->csum_offset ||
	    a->bypass != b->bypass || a->flush_reason != b->flush_reason ||
	    a->bypass_reason != b->bypass_reason ||
	    memcmp(&a->vnet, &b->vnet, sizeof(a->vnet)) != 0) {
		fprintf(stderr, "run %d output %d: fast path and general way differ (cookie %llu: "
			"reason %d/%d, bypass %d/%d, csum %d/%d)\n", run, k,
			(unsigned long long)a->cookies[0], WHY(a), WHY(b), a->bypass, b->bypass,
			a->csum, b->csum);
		fail();
	}
}

/* The fast-path kinds' outputs: reason, checksum state, virtio flags */
static void
check_kind(const struct stream *st, const struct sofl_gro_out *o, int udp, int run)
{
	const uint64_t c = o->cookies[0];
	const enum kind k = st->kind[c];
	const int ok = !!(st->in[c].flags & SOFL_GRO_F_CSUM_OK);
	int want;

	if (k == K_UDP && !udp)
		want = SOFL_GRO_BYPASS_UDP_OFF;
	else if (k == K_UDP_SHORT || k == K_UDP_LONG)
		want = SOFL_GRO_BYPASS_MALFORMED;
	else if (k == K_ICMP || k == K_GRE)
		want = SOFL_GRO_BYPASS_PROTO;
	else
		return;
	if (o->segs != 1 || !o->bypass || (int)o->bypass_reason != want || o->iovcnt != 1 ||
	    o->len != st->in[c].len || o->iov[0].iov_base != st->in[c].data ||
	    o->csum != (ok ? SOFL_CSUM_VALID : SOFL_CSUM_UNKNOWN) ||
	    o->vnet.flags != (ok ? SOFL_VNET_HDR_F_DATA_VALID : 0) || o->gso_type || o->gso_size) {
		fprintf(stderr, "run %d, input %llu (kind %d): reason %d (want %d), bypass %d, csum %d, "
			"vnet flags %d, len %u/%u\n", run, (unsigned long long)c, k, WHY(o), want,
			o->bypass, o->csum, o->vnet.flags, o->len, st->in[c].len);
		fail();
	}
}

static void
compare(const struct stream *st, const struct sofl_gro_config *cfg, int run)
{
	struct sofl_gro *a, *b;
	struct sofl_gro_stats sa, sb;
	const struct sofl_gro_out *oa, *ob;
	uint64_t want[SOFL_GRO_BYPASS__MAX] = { 0 }, bytes = 0;
	int i, start = 0, k, na, nb;

	assert_int_equal(sofl_gro_create(cfg, &a), 0);
	assert_int_equal(sofl_gro_create(cfg, &b), 0);
	sofl_gro_set_fast(b, 0);
	for (i = 0; i < st->n; i++) {
		if (i != st->n - 1 && !st->brk[i] && i + 1 - start < 64)
			continue;
		assert_int_equal(sofl_gro_receive(a, st->in + start, (size_t)(i + 1 - start), 0),
				 i + 1 - start);
		assert_int_equal(sofl_gro_receive(b, st->in + start, (size_t)(i + 1 - start), 0),
				 i + 1 - start);
		sofl_gro_poll_end(a, 0);
		sofl_gro_poll_end(b, 0);
		na = sofl_gro_outputs(a, &oa);
		nb = sofl_gro_outputs(b, &ob);
		if (na != nb) {
			fprintf(stderr, "run %d, inputs %d..%d: %d outputs fast, %d general\n", run,
				start, i, na, nb);
			fail();
		}
		for (k = 0; k < na; k++) {
			same_out(&oa[k], &ob[k], run, k);
			check_kind(st, &oa[k], cfg->udp, run);
		}
		sofl_gro_release(a);
		sofl_gro_release(b);
		start = i + 1;
	}
	for (i = 0; i < st->n; i++) {
		bytes += st->in[i].len;
		if (st->kind[i] == K_UDP && !cfg->udp)
			want[SOFL_GRO_BYPASS_UDP_OFF]++;
		if (st->kind[i] == K_UDP_SHORT || st->kind[i] == K_UDP_LONG)
			want[SOFL_GRO_BYPASS_MALFORMED]++;
		if (st->kind[i] == K_ICMP || st->kind[i] == K_GRE)
			want[SOFL_GRO_BYPASS_PROTO]++;
	}
	sofl_gro_get_stats(a, &sa, sizeof(sa));
	sofl_gro_get_stats(b, &sb, sizeof(sb));
	if (memcmp(&sa, &sb, sizeof(sa)) != 0 || sa.pkts_in != (uint64_t)st->n ||
	    sa.bytes_in != bytes) {
		fprintf(stderr, "run %d: counters differ (out %llu/%llu)\n", run,
			(unsigned long long)sa.pkts_out, (unsigned long long)sb.pkts_out);
		fail();
	}
	/* PROTO comes from these kinds only; UDP_OFF and MALFORMED from
	 * the general way's kinds too (UDP behind a VLAN tag, IPv6; short
	 * frames): at least the fast path's */
	assert_int_equal(sa.bypass[SOFL_GRO_BYPASS_PROTO], want[SOFL_GRO_BYPASS_PROTO]);
	assert_true(sa.bypass[SOFL_GRO_BYPASS_UDP_OFF] >= want[SOFL_GRO_BYPASS_UDP_OFF]);
	assert_true(sa.bypass[SOFL_GRO_BYPASS_MALFORMED] >= want[SOFL_GRO_BYPASS_MALFORMED]);
	sofl_gro_destroy(a);
	sofl_gro_destroy(b);
}

static void
test_bypass_runs(void **state)
{
	static struct stream st;
	uint64_t r = seed0;
	int run;

	(void)state;
	for (run = 0; run < runs; run++) {
		struct sofl_gro_config cfg;
		const int link = rnd(&r, 4) ? SOFL_LINK_ETH : SOFL_LINK_RAW;

		make_stream(&st, &r, link);
		sofl_gro_config_init(&cfg);
		cfg.link = link;
		cfg.udp = (int)rnd(&r, 2);
		cfg.max_batch = 64;
		if (rnd(&r, 2)) {
			cfg.table = SOFL_GRO_TABLE_LRU;
			cfg.max_flows = 1 + rnd(&r, 64);
		}
		compare(&st, &cfg, run);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bypass_runs),
	};
	const char *e;

	if ((e = getenv("SOFL_SEED")) != NULL)
		seed0 = strtoull(e, NULL, 0);
	if ((e = getenv("SOFL_RUNS")) != NULL)
		runs = atoi(e);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
