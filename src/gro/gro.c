/* GRO / software LRO engine (gro.h).  Rules follow Linux 6.18 layer by
 * layer: L2/L3 same-flow filter (gro_list_prepare, inet/ipv6_gro_receive),
 * L3 bypass checks, L4 lookup and flush accumulation (tcp_gro_receive,
 * udp_gro_receive_segment), completion (inet/ipv6/tcp/udp_gro_complete).
 * Rule numbers "#n" are those of docs/gro-rules.md. */
#include <stdlib.h>
#include "base/cfg.h"
#include "gro_table.h"
#include "csum/csum_kern.h"
#include "base/zalloc.h"

/* ---- public API ---- */

#define SEG_CHUNK 1024	/* segment entries linked in at a time */

/* Makes sure @n more inputs find free segment entries (each takes at most
 * one), linking in entries never used, at least SEG_CHUNK at a time, at
 * the head of the free list (consecutive, as out_super's walk likes them):
 * a timeout engine's max_held can be millions, mostly never used.  Entries
 * in use are those of held flows but their first segments. */
static void
segs_grow(struct sofl_gro *g, uint32_t n)
{
	uint32_t used = g->held_segs - g->held_flows, lo = g->seg_init, hi, i;

	if (g->seg_init - used >= n || g->seg_init == g->seg_cap)
		return;
	hi = lo + (n > SEG_CHUNK ? n : SEG_CHUNK);
	if (hi > g->seg_cap)
		hi = g->seg_cap;
	for (i = lo; i + 1 < hi; i++)
		g->segs[i].next = i + 1;
	g->segs[hi - 1].next = g->free_seg;
	g->free_seg = lo;
	g->seg_init = hi;
}

SOFL_API void
sofl_gro_config_init(struct sofl_gro_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	cfg->link = SOFL_LINK_ETH;
	cfg->policy = SOFL_GRO_POLICY_LINUX;
	cfg->table = SOFL_GRO_TABLE_AUTO;
	cfg->max_size = 65535;
}

/* The smallest struct sofl_gro_config accepted: the first one with a size
 * field (0.3.0, up to hash_key).  Fields appended later get their defaults
 * when an older program's struct ends before them. */
#define GRO_CONFIG_SIZE0 (offsetof(struct sofl_gro_config, hash_key) + 16)

static int
config_check(const struct sofl_gro_config *c)
{
	uint32_t i;

	if (c->link != SOFL_LINK_ETH && c->link != SOFL_LINK_RAW)
		return SOFL_E_CFG_LINK;
	if (c->policy != SOFL_GRO_POLICY_LINUX && c->policy != SOFL_GRO_POLICY_RELAXED)
		return SOFL_E_CFG_POLICY;
	if ((unsigned)c->table > SOFL_GRO_TABLE_LRU)
		return SOFL_E_CFG_TABLE;
	if (c->max_flows > (1u << 24))
		return SOFL_E_CFG_MAX_FLOWS;
	if (c->max_size && (c->max_size > 65535 || c->max_size < 128))
		return SOFL_E_CFG_MAX_SIZE;
	if (c->max_batch > (1u << 24))
		return SOFL_E_CFG_MAX_BATCH;
	if (c->max_held > (1u << 26))
		return SOFL_E_CFG_MAX_HELD;
	if (c->max_segs > 65535)
		return SOFL_E_CFG_MAX_SEGS;
	if (c->n_rules && !c->rules)
		return SOFL_E_CFG_RULES;
	for (i = 0; i < c->n_rules; i++) {
		const struct sofl_gro_rule *r = &c->rules[i];
		if ((r->family != 0 && r->family != 4 && r->family != 6) ||
		    r->prefix > (r->family == 4 ? 32 : 128) || (r->family == 0 && r->prefix))
			return SOFL_E_CFG_RULES;
	}
	return 0;
}

/* cfg.parse (NULL: the defaults) into *pc, checked as sofl_pkt_parse_cfg()
 * checks it: @return 0, SOFL_E_CFG_SIZE, SOFL_E_INVAL */
static int
parse_cfg_copy(struct sofl_pkt_config *pc, const struct sofl_pkt_config *src)
{
	int err;

	sofl_pkt_config_init(pc);
	if (!src)
		return 0;
	if ((err = sofl_pkt_config_check(src)) < 0)
		return err;
	memcpy(pc, src, sizeof(*pc));
	return 0;
}

SOFL_API int
sofl_gro_create(const struct sofl_gro_config *cfg, struct sofl_gro **out)
{
	struct sofl_gro_config c;
	struct sofl_gro *g;
	uint32_t nb, i, nsuper;
	int err;

	if (!cfg || !out)
		return SOFL_E_INVAL;
	*out = NULL;
	sofl_gro_config_init(&c);
	err = sofl_cfg_copy(&c, sizeof(c), cfg, cfg->size, GRO_CONFIG_SIZE0);
	if (!err)
		err = config_check(&c);
	if (err)
		return err;
	g = calloc(1, sizeof(*g));
	if (!g)
		return SOFL_E_NOMEM;
	if ((err = parse_cfg_copy(&g->pcfg, c.parse)) != 0) {
		free(g);
		return err;
	}
	g->pcp = c.parse ? &g->pcfg : NULL;	/* NULL: the parser's constants */
	c.parse = &g->pcfg;
	g->ntport = g->pcfg.n_udp;
	for (i = 0; i < g->ntport; i++) {
		g->tport[i] = g->pcfg.udp[i].port;
		g->tport_bits |= 1ull << (g->tport[i] & 63);
		g->tport_lo[g->tport[i] & 0xff] = 1;
	}
	g->ipip = !(g->pcfg.flags & SOFL_PKT_F_NO_IPIP);
	g->cfg = c;
	g->tun_l3 = c.link == SOFL_LINK_RAW ? 0u : 22u;
	g->tl_mk = NO_MASK;	/* (fast_setup's last tunnel layout: none) */
	if ((err = sofl_sip_key(g->hkey, c.hash_key)) != 0) {
		free(g);
		return err;
	}
	memset(g->cfg.hash_key, 0, sizeof(g->cfg.hash_key));	/* not kept twice */
	if (!g->cfg.max_size)
		g->cfg.max_size = 65535;
	if (!g->cfg.max_batch)
		g->cfg.max_batch = 256;
	if (!g->cfg.max_segs)
		g->cfg.max_segs = SOFL_GRO_MAX_SEGS_DEFAULT;
	g->lnx = c.table == SOFL_GRO_TABLE_LINUX ||
		 (c.table == SOFL_GRO_TABLE_AUTO && (c.max_flows == 0 || c.max_flows == 64));
	if (g->lnx) {
		g->nflows = LNX_BUCKETS * LNX_PER_BUCKET;
		nb = LNX_BUCKETS;
		g->per_bucket = LNX_PER_BUCKET;
	} else {
		g->nflows = c.max_flows ? c.max_flows : 64;
		for (nb = 8; nb < 2 * g->nflows; nb <<= 1)
			;
		g->per_bucket = UINT32_MAX;
	}
	g->cfg.max_flows = g->nflows;
	if (!g->cfg.max_held) {
		if (c.flush_timeout_us)
			g->cfg.max_held = 4 * g->nflows > 1024 ? 4 * g->nflows : 1024;
		else
			g->cfg.max_held = g->cfg.max_batch;
	}
	g->mask = nb - 1;
	g->fast = c.policy == SOFL_GRO_POLICY_LINUX;
#if GRO_AVX2
	sofl_gro_set_isa(g, 2);
#endif
	g->timeout_ns = (uint64_t)c.flush_timeout_us * 1000;
	g->use_age = !g->lnx || g->timeout_ns;
	/* prefetching flow entries pays where they miss the cache; where all
	 * are cached the prefetches are pure cost (docs/benchmarks.md) */
	g->pf = !g->lnx && (size_t)g->nflows * sizeof(struct flow) > PF_BYTES;
	g->seg_cap = g->cfg.max_batch + g->cfg.max_held;
	nsuper = g->seg_cap / 2 + 1;
	if (nsuper > g->nflows + g->cfg.max_batch)
		nsuper = g->nflows + g->cfg.max_batch;
	g->scap = (size_t)nsuper * SOFL_GRO_HDR_MAX;

	/* only what the table kind uses; the large arrays are written only
	 * as they are used (table_alloc, fstack_grow, segs_grow) */
	g->head = sofl_zalloc(nb * sizeof(*g->head), &g->head_map);
	if (g->lnx) {
		g->cnt = calloc(nb, sizeof(*g->cnt));
		g->tags = calloc((size_t)nb * TAGS * 2, 1);	/* tags, then tagfi */
		g->tagfi = g->tags ? g->tags + (size_t)nb * TAGS : NULL;
		g->tail = malloc(nb * sizeof(*g->tail));
	}
	g->flows = sofl_zalloc((size_t)g->nflows * sizeof(*g->flows), &g->flows_map);
	g->tun = sofl_zalloc((size_t)g->nflows * sizeof(*g->tun), &g->tun_map);
	g->fstack = malloc((size_t)g->nflows * sizeof(*g->fstack));
	g->segs = malloc(((size_t)g->seg_cap + 1) * sizeof(*g->segs));	/* + SINK */
	g->outs = malloc((size_t)g->seg_cap * sizeof(*g->outs));
	g->iov = malloc((size_t)g->seg_cap * 2 * sizeof(*g->iov));
	g->cookies = malloc((size_t)g->seg_cap * sizeof(*g->cookies));
	g->scratch = malloc(g->scap);
	if (c.n_rules) {
		g->rules = malloc(c.n_rules * sizeof(*g->rules));
		if (g->rules)
			memcpy(g->rules, c.rules, c.n_rules * sizeof(*g->rules));
	}
	if (!g->head || (g->lnx && (!g->cnt || !g->tags || !g->tail)) || !g->flows || !g->tun ||
	    !g->fstack ||
	    !g->segs || !g->outs || !g->iov || !g->cookies || !g->scratch ||
	    (c.n_rules && !g->rules)) {
		sofl_gro_destroy(g);
		return SOFL_E_NOMEM;
	}
	g->cfg.rules = g->rules;
	for (i = 0; g->lnx && i < nb; i++)
		g->tail[i] = NIL;
	g->nfree = g->fs_lo = g->nflows;
	gro_fstack_grow(g);				/* entry 0 first */
	memcpy(g->ip4_same, gro_ip4_rule, sizeof(g->ip4_same));
	memcpy(g->ip6_same, gro_ip6_rule, sizeof(g->ip6_same));
	memcpy(g->tcp_same, gro_tcp_rule, sizeof(g->tcp_same));
	g->segs[SINK(g)].next = NIL;
	g->free_seg = NIL;	/* linked in by receive (segs_grow) */
	g->last_fi = NIL;
	g->out1.iovcnt = 1;
	g->out1.segs = 1;
	g->out1.csum = SOFL_CSUM_VALID;
	g->out1.vnet.flags = SOFL_VNET_HDR_F_DATA_VALID;
	g->age.head = g->age.tail = NIL;
	*out = g;
	return 0;
}

void
sofl_gro_set_fast(struct sofl_gro *g, int on)
{
	g->fast = on && g->cfg.policy == SOFL_GRO_POLICY_LINUX;
}

void
sofl_gro_set_isa(struct sofl_gro *g, int level)
{
#if GRO_AVX2
	g->isa = 0;
	/* the CPU features asked of the checksum implementations are the
	 * fast paths' (AVX2 with BMI2; AVX-512 F/BW/VL with VNNI and BMI2) */
	if (level >= 1 && sofl_csum_impl_available(SOFL_CSUM_AVX2))
		g->isa = 1;
	/* AVX-512 (the flow-key hash eight at a time): only while the
	 * AVX-512 checksum implementation is in use, so that forcing a lower
	 * one (sofl_csum_set_impl, SOFL_CSUM_IMPL) lowers the fast paths too */
	if (level >= 2 && sofl_csum_impl_current() == SOFL_CSUM_AVX512)
		g->isa = 2;
#else
	(void)g;
	(void)level;
#endif
}

int
sofl_gro_set_rule(struct sofl_gro *g, unsigned hdr, unsigned byte, uint8_t mask)
{
	uint8_t *m;

	if (!g || g->held_flows || (hdr != 0 && hdr != 4 && hdr != 6) || byte >= (hdr == 6 ? 8u : 20u))
		return SOFL_E_INVAL;
	m = hdr == 4 ? g->ip4_same : hdr == 6 ? g->ip6_same : g->tcp_same;
	m[byte] = mask;
	g->nmask = 0;		/* the fast path's masks derive from the rules */
	g->tl_mk = NO_MASK;
	return 0;
}

void
sofl_gro_fast_counts(const struct sofl_gro *g, uint64_t *segs, uint64_t *runs)
{
	*segs = g->fast_segs;
	*runs = g->fast_runs;
}

uint64_t
sofl_gro_fast_tun_holds(const struct sofl_gro *g)
{
	return g->fast_tun_holds;
}

uint32_t
sofl_gro_chain_max(const struct sofl_gro *g)
{
	uint32_t b, fi, n, most = 0;

	for (b = 0; b <= g->mask; b++) {
		for (n = 0, fi = bhead(g, b); fi != NIL; fi = g->flows[fi].chain)
			n++;
		most = n > most ? n : most;
	}
	return most;
}

SOFL_API void
sofl_gro_destroy(struct sofl_gro *g)
{
	if (!g)
		return;
	sofl_zfree(g->head, g->head_map);
	free(g->cnt);
	free(g->tags);
	free(g->tail);
	sofl_zfree(g->flows, g->flows_map);
	sofl_zfree(g->tun, g->tun_map);
	free(g->fstack);
	free(g->segs);
	free(g->outs);
	free(g->iov);
	free(g->cookies);
	free(g->scratch);
	free(g->rules);
	free(g);
}

SOFL_API int
sofl_gro_receive(struct sofl_gro *g, const struct sofl_gro_in *in, size_t n, uint64_t now_ns)
{
	uint64_t bytes = 0;
	size_t i;

	if (!g || (!in && n))
		return SOFL_E_INVAL;
	if (n > g->cfg.max_batch - g->cycle_in)
		return SOFL_E_GRO_BATCH;
	if ((uint64_t)g->held_at_start + g->cycle_in + n > g->seg_cap)
		return SOFL_E_GRO_HELD;
	segs_grow(g, (uint32_t)n);
	g->now = now_ns;
	g->cycle_in += (uint32_t)n;
	g->st.pkts_in += n;
	for (i = 0; i + 4 <= n; i += 4)	/* four a turn (fewer loop branches) */
		bytes += (uint64_t)in[i].len + in[i + 1].len + in[i + 2].len + in[i + 3].len;
	for (; i < n; i++)
		bytes += in[i].len;
	g->st.bytes_in += bytes;
	if (g->lnx) {
#if GRO_AVX2
		if (g->isa == 2 && n && !(in[0].flags & SOFL_GRO_F_CSUM_OK))
			gro_rx_linux_sw(g, in, n);
		else
#endif
			gro_rx_linux(g, in, n);
	} else
		for (i = 0; i < n; i += RX_CHUNK)
			gro_rx_chunk(g, in + i, n - i < RX_CHUNK ? n - i : RX_CHUNK);
	return (int)n;
}

SOFL_API int
sofl_gro_poll_end(struct sofl_gro *g, uint64_t now_ns)
{
	if (!g)
		return SOFL_E_INVAL;
	g->now = now_ns;
	if (!g->timeout_ns) {
		if (g->lnx)
			gro_flush_linux(g, SOFL_GRO_FLUSH_POLL, 0);
		else
			gro_flush_lru(g, SOFL_GRO_FLUSH_POLL, 0);
		return (int)g->nout;
	}
	if (g->lnx)
		gro_flush_linux(g, SOFL_GRO_FLUSH_TIMEOUT, 1);
	else
		gro_flush_lru(g, SOFL_GRO_FLUSH_TIMEOUT, 1);
	while (g->held_segs > g->cfg.max_held)
		gro_complete(g, g->age.head, SOFL_GRO_FLUSH_CAPACITY);
	return (int)g->nout;
}

SOFL_API int
sofl_gro_set_flush_timeout(struct sofl_gro *g, uint32_t usec)
{
	if (!g)
		return SOFL_E_INVAL;
	if (g->held_segs)
		return SOFL_E_GRO_HELD;
	g->cfg.flush_timeout_us = usec;
	g->timeout_ns = (uint64_t)usec * 1000;
	g->use_age = !g->lnx || g->timeout_ns;
	g->age.head = g->age.tail = NIL;	/* nothing held: the list is empty */
	return 0;
}

SOFL_API int
sofl_gro_flush(struct sofl_gro *g)
{
	if (!g)
		return SOFL_E_INVAL;
	if (g->lnx)
		gro_flush_linux(g, SOFL_GRO_FLUSH_EXPLICIT, 0);
	else
		gro_flush_lru(g, SOFL_GRO_FLUSH_EXPLICIT, 0);
	return (int)g->nout;
}

SOFL_API int
sofl_gro_outputs(const struct sofl_gro *g, const struct sofl_gro_out **out)
{
	if (!g || !out)
		return SOFL_E_INVAL;
	*out = g->outs;
	return (int)g->nout;
}

SOFL_API void
sofl_gro_release(struct sofl_gro *g)
{
	if (!g)
		return;
	g->nout = g->niov = g->ncook = 0;
	g->sused = 0;
	g->cycle_in = 0;
	g->held_at_start = g->held_segs;
}

SOFL_API uint32_t
sofl_gro_held(const struct sofl_gro *g)
{
	return g ? g->held_segs : 0;
}

/* The flows are in hold-time order on the age list (kept with a timeout
 * by either table), so the oldest is its head. */
SOFL_API int
sofl_gro_next_deadline(const struct sofl_gro *g, uint64_t *deadline_ns)
{
	uint64_t t;

	if (!g || !deadline_ns)
		return SOFL_E_INVAL;
	if (!g->held_segs || (g->timeout_ns && g->age.head == NIL)) {
		*deadline_ns = UINT64_MAX;
		return 0;
	}
	if (!g->timeout_ns) {
		*deadline_ns = 0;	/* NAPI: due at this poll's end */
		return 1;
	}
	t = g->flows[g->age.head].age;
	*deadline_ns = t > UINT64_MAX - g->timeout_ns ? UINT64_MAX : t + g->timeout_ns;
	return 1;
}

SOFL_API int
sofl_gro_held_cookies(const struct sofl_gro *g, uint64_t *cookies, size_t cap)
{
	if (!g || (!cookies && cap))
		return SOFL_E_INVAL;
	if (cap < g->held_segs)
		return SOFL_E_NOSPC;
	return (int)gro_held_cookies(g, cookies);
}

SOFL_API int
sofl_gro_discard(struct sofl_gro *g, uint64_t *cookies, size_t cap)
{
	uint32_t n;

	if (!g || (!cookies && cap))
		return SOFL_E_INVAL;
	if (cap < g->held_segs)
		return SOFL_E_NOSPC;
	n = gro_discard(g, cookies);
	/* receive's room check counts the cycle's inputs and those held at
	 * its start, all of which could become outputs; the discarded never
	 * will, so their room is free again within the cycle */
	g->held_at_start -= n < g->held_at_start ? n : g->held_at_start;
	return (int)n;
}

SOFL_API int
sofl_gro_out_copy(const struct sofl_gro_out *o, void *buf, size_t cap)
{
	uint8_t *d = buf;
	uint32_t i;

	if (!o || (!buf && cap))
		return SOFL_E_INVAL;
	if (o->len > cap)
		return SOFL_E_NOSPC;
	for (i = 0; i < o->iovcnt; i++) {
		memcpy(d, o->iov[i].iov_base, o->iov[i].iov_len);
		d += o->iov[i].iov_len;
	}
	return (int)o->len;
}

SOFL_API int
sofl_gro_get_stats(const struct sofl_gro *g, struct sofl_gro_stats *st, size_t size)
{
	if (!g || !st)
		return SOFL_E_INVAL;
	memcpy(st, &g->st, size < sizeof(g->st) ? size : sizeof(g->st));
	if (size > sizeof(g->st))
		memset((uint8_t *)st + sizeof(g->st), 0, size - sizeof(g->st));
	return 0;
}

SOFL_API int
sofl_gro_reset_stats(struct sofl_gro *g)
{
	if (!g)
		return SOFL_E_INVAL;
	memset(&g->st, 0, sizeof(g->st));
	return 0;
}

_Static_assert(SOFL_GRO_FLUSH__MAX <= SOFL_GRO_FLUSH_SLOTS, "a flush reason without a counter");
_Static_assert(SOFL_GRO_BYPASS__MAX <= SOFL_GRO_BYPASS_SLOTS, "a bypass reason without a counter");

static const char *const flush_names[SOFL_GRO_FLUSH__MAX] = {
	"poll", "timeout", "explicit", "evict", "capacity", "psh-fin", "short", "udp-max",
	"size", "seq", "bigger", "header", "ip-id", "cwr", "no-payload", "bad-len", "max-segs",
	"outer-header", "outer-ip-id",
};

static const char *const bypass_names[SOFL_GRO_BYPASS__MAX] = {
	"malformed", "not-ip", "proto", "udp-off", "rule", "ip-opts", "fragment", "ip-csum",
	"l4-csum", "bad-len", "no-payload", "flags", "udp-csum0", "udp-len", "hdr-long",
	"encap-malformed", "encap-nested", "outer-ip-opts", "outer-ip-csum", "outer-csum",
};
_Static_assert(SOFL_ENCAP_ERR__MAX <= sizeof(((struct sofl_gro_stats *)0)->encap_err) / sizeof(uint64_t),
	       "an encap_err without a counter");

/* (an enum argument may hold any int: compared as unsigned, a negative
 * one is out of range too) */
SOFL_API const char *
sofl_gro_flush_name(enum sofl_gro_flush reason)
{
	return (unsigned)reason < SOFL_GRO_FLUSH__MAX ? flush_names[reason] : "?";
}

SOFL_API const char *
sofl_gro_bypass_name(enum sofl_gro_bypass reason)
{
	return (unsigned)reason < SOFL_GRO_BYPASS__MAX ? bypass_names[reason] : "?";
}
