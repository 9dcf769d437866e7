/* Shared by tests/test_gro_*.c: a packet list with poll boundaries, fed
 * through a GRO engine; every output is copied, re-parsed and checked
 * (lengths, IPv4 header checksum, L4 checksum full or pseudo, payload
 * continuity, each input exactly once).  Header-only so that each test
 * stays a standalone program. */
#ifndef TEST_GRO_UTIL_H
#define TEST_GRO_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "helpers.h"
#include "softoffload/gro.h"

#define TG_MAXPK  256
#define TG_ARENA  (4u << 20)
#define TG_MAXOUT 512

struct tg {
	uint8_t *arena;
	size_t used;
	uint8_t *pk[TG_MAXPK];
	uint32_t len[TG_MAXPK];
	uint32_t flags[TG_MAXPK];
	uint32_t hash[TG_MAXPK];
	int brk[TG_MAXPK];	/* poll ends after this packet */
	int n;
	/* results */
	int nout;
	int pay[TG_MAXOUT];	/* payload bytes of each output (TCP/UDP), -1 other */
	int segs[TG_MAXOUT];
	int bypass[TG_MAXOUT];
	int reason[TG_MAXOUT];
	uint8_t gso_type[TG_MAXOUT];
	uint16_t gso_size[TG_MAXOUT];
	int seen[TG_MAXPK];
	int errors;
	int keep_fin;		/* 0: drop 0-payload FIN outputs (selftest terminator) */
	const int *flow_of;	/* optional: flow id per input; checks per-flow order */
	int last[TG_MAXPK];	/* last cookie seen per flow id */
	uint64_t poll_ns;	/* time advance per poll (timeout mode) */
	uint64_t pay_out;	/* payload bytes in parsed outputs */
};

static inline void
tg_init(struct tg *t)
{
	memset(t, 0, sizeof(*t));
	t->arena = malloc(TG_ARENA);
	if (!t->arena)
		abort();
}

static inline void
tg_free(struct tg *t)
{
	free(t->arena);
	t->arena = NULL;
}

static inline int
tg_add(struct tg *t, const struct t_spec *s)
{
	size_t l = t_build(t->arena + t->used, TG_ARENA - t->used, s);

	t->pk[t->n] = t->arena + t->used;
	t->len[t->n] = (uint32_t)l;
	t->used += (l + 63) & ~(size_t)63;
	return t->n++;
}

static inline void
tg_brk(struct tg *t)
{
	if (t->n)
		t->brk[t->n - 1] = 1;
}

static inline void
tg_fail(struct tg *t, const char *what, int o)
{
	fprintf(stderr, "output %d: %s\n", o, what);
	t->errors++;
}

/* Check one output and record it. */
static inline void
tg_check_out(struct tg *t, const struct sofl_gro_config *cfg, const struct sofl_gro_out *o)
{
	static uint8_t b[70000];
	struct sofl_pkt p;
	long l = sofl_gro_out_copy(o, b, sizeof(b));
	int k = t->nout, i;
	uint32_t j;

	if (l < 0 || (uint32_t)l != o->len) {
		tg_fail(t, "copy", k);
		return;
	}
	for (j = 0; j < o->segs; j++) {
		uint64_t c = o->cookies[j];
		if (c >= (uint64_t)t->n || t->seen[c]++) {
			tg_fail(t, "cookie twice or unknown", k);
			continue;
		}
		if (t->flow_of) {
			int fl = t->flow_of[c];
			if ((int)c <= t->last[fl])
				tg_fail(t, "per-flow order", k);
			t->last[fl] = (int)c;
		}
	}
	if (o->segs > (cfg->max_segs ? cfg->max_segs : SOFL_GRO_MAX_SEGS_DEFAULT) ||
	    o->iovcnt > o->segs + 1)
		tg_fail(t, "more segments or iovecs than max_segs allows", k);
	i = sofl_pkt_parse(&p, b, (size_t)l, cfg->link);
	/* every output's virtio header, super-packet or not (TUN write) */
	if (sofl_vnet_check(&o->vnet, &p, SOFL_VNET_F_STRICT) < 0)
		tg_fail(t, "virtio header rejected by Linux's rules", k);
	if (i < 0 || !(p.layers & SOFL_LAYER_L4)) {
		if (o->segs > 1)
			tg_fail(t, "super-packet does not parse", k);
		if (p.is_frag && p.l4_proto == 6)
			i = (int)p.pay_len - 20;
		else
			i = -1;
		goto record;
	}
	if (o->segs > 1) {
		enum sofl_csum_state ip, l4;
		sofl_csum_pkt_check(&p, &ip, &l4);
		if (p.ipv == 4 && ip != SOFL_CSUM_VALID)
			tg_fail(t, "IPv4 header checksum", k);
		/* complete checksums only for TCP with csum_full (a UDP
		 * super-packet carries the pseudo sum in both modes: gro.h);
		 * partial: the field is exactly the pseudo sum (a payload that sums
		 * to -0 makes that a valid full checksum too, hence no state check) */
		if (o->csum != (cfg->csum_full && p.l4_proto == 6 ? SOFL_CSUM_VALID :
				SOFL_CSUM_PARTIAL))
			tg_fail(t, "output checksum mode", k);
		if (o->csum == SOFL_CSUM_VALID ? l4 != SOFL_CSUM_VALID :
		    sofl_get16(b + p.l4_off + (p.l4_proto == 6 ? 16 : 6)) != sofl_csum_pkt_pseudo(&p))
			tg_fail(t, "L4 checksum state", k);
		if (p.ip_end != (uint32_t)l)
			tg_fail(t, "IP length != output length", k);
		if (o->gso_size == 0 || o->segs != (p.pay_len + o->gso_size - 1) / o->gso_size)
			tg_fail(t, "gso_size / segment count", k);
		/* the virtio header is one Linux accepts for this frame (TUN write) */
		if (sofl_vnet_check(&o->vnet, &p, SOFL_VNET_F_STRICT) != 1)
			tg_fail(t, "virtio header rejected by Linux's rules", k);
		/* payload continuity: t_build writes seed + stream offset + i */
		for (j = 1; j < p.pay_len; j++)
			if ((uint8_t)(b[p.pay_off + j] - b[p.pay_off + j - 1]) != 1) {
				tg_fail(t, "payload not contiguous", k);
				break;
			}
	}
	i = (int)p.pay_len;
	t->pay_out += p.pay_len;
	if (!t->keep_fin && p.l4_proto == 6 && p.pay_len == 0 && (p.tcp_flags & SOFL_TCP_FIN))
		return;
record:
	if (k >= TG_MAXOUT)
		return;
	t->pay[k] = i;
	t->segs[k] = (int)o->segs;
	t->bypass[k] = o->bypass;
	t->reason[k] = o->bypass ? (int)o->bypass_reason : (int)o->flush_reason;
	t->gso_type[k] = o->gso_type;
	t->gso_size[k] = o->gso_size;
	t->nout++;
}

/* Feeds the list through a new engine; one poll per tg_brk() (and one at
 * the end).  @return 0 when every check passed. */
static inline int
tg_run(struct tg *t, const struct sofl_gro_config *cfg, struct sofl_gro_stats *st)
{
	struct sofl_gro *g;
	struct sofl_gro_in in[TG_MAXPK];
	const struct sofl_gro_out *o;
	int i, start = 0, k, m;

	t->nout = 0;
	t->pay_out = 0;
	memset(t->seen, 0, sizeof(t->seen));
	for (i = 0; i < TG_MAXPK; i++)
		t->last[i] = -1;
	if (sofl_gro_create(cfg, &g) != 0)
		return -1;
	for (i = 0; i < t->n; i++) {
		in[i].data = t->pk[i];
		in[i].len = t->len[i];
		in[i].flags = t->flags[i];
		in[i].hash = t->hash[i];
		in[i].cookie = (uint64_t)i;
		if (i == t->n - 1 || t->brk[i]) {
			uint64_t now = (uint64_t)(i + 1) * t->poll_ns;
			if (sofl_gro_receive(g, in + start, (size_t)(i + 1 - start), now) != i + 1 - start)
				t->errors++;
			sofl_gro_poll_end(g, now);
			m = sofl_gro_outputs(g, &o);
			for (k = 0; k < m; k++)
				tg_check_out(t, cfg, &o[k]);
			sofl_gro_release(g);
			start = i + 1;
		}
	}
	sofl_gro_flush(g);		/* timeout mode: what is still held */
	m = sofl_gro_outputs(g, &o);
	for (k = 0; k < m; k++)
		tg_check_out(t, cfg, &o[k]);
	sofl_gro_release(g);
	if (sofl_gro_held(g) != 0)
		t->errors++;
	for (i = 0; i < t->n; i++)
		if (t->seen[i] != 1) {
			fprintf(stderr, "input %d delivered %d times\n", i, t->seen[i]);
			t->errors++;
		}
	if (st)
		sofl_gro_get_stats(g, st, sizeof(*st));
	sofl_gro_destroy(g);
	return t->errors;
}

/* Compare the recorded payload sizes with @want (n entries). */
static inline int
tg_expect(const struct tg *t, const char *name, const int *want, int n)
{
	int i, ok = t->nout == n && !t->errors;

	for (i = 0; ok && i < n; i++)
		ok = t->pay[i] == want[i];
	if (!ok) {
		fprintf(stderr, "%s: got [", name);
		for (i = 0; i < t->nout; i++)
			fprintf(stderr, "%s%d", i ? ", " : "", t->pay[i]);
		fprintf(stderr, "] want [");
		for (i = 0; i < n; i++)
			fprintf(stderr, "%s%d", i ? ", " : "", want[i]);
		fprintf(stderr, "] errors %d\n", t->errors);
	}
	return ok;
}

#endif
