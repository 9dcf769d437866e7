/* Description: GRO in an event loop.  The timeout mode driven by a real
 * timerfd (CLOCK_MONOTONIC, absolute times) armed at
 * sofl_gro_next_deadline(), over many flows, on both tables, fast paths on
 * and off: after every step the held cookies (sofl_gro_held_cookies) are
 * exactly those fed and in no output yet, every cookie leaves exactly once
 * (outputs + held + discarded = fed), the deadline is the oldest held
 * input's feed time + flush_timeout_us, a poll end 1 ns before it completes
 * nothing and one when the timer fires completes that input's flow.
 * Buffers are recycled by cookie the moment they leave (released outputs,
 * sofl_gro_discard) and poisoned: an output still pointing into one fails
 * its payload check.  Also: the flush order of held_cookies, NOSPC and
 * INVAL paths, the NAPI mode's deadline, saturation; switching a running
 * engine between the modes (sofl_gro_set_flush_timeout). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>
#include <sys/timerfd.h>
#include "test_gro_util.h"

void sofl_gro_set_fast(struct sofl_gro *g, int on);	/* test hook (gro_engine.h) */

#define NBUF	 4096
#define BUFSZ	 1600
#define NFLOWS	 160
#define MSS	 1000
#define TIMEOUT_US 1000
#define POISON	 0xa5

struct flowgen {
	uint32_t off;		/* payload bytes sent so far */
	uint32_t hash;
	uint16_t id;		/* IPv4 ID */
	uint8_t ipv, hashed, csum_ok;
};

struct rig {
	struct sofl_gro *g;
	uint64_t timeout_ns;
	uint8_t *buf;		/* NBUF x BUFSZ */
	uint8_t state[NBUF];	/* 0 free, 1 fed and not left, 2 left (until recycled) */
	uint32_t gen[NBUF];
	uint64_t fed_ns[NBUF];
	uint64_t fed_seq[NBUF];	/* feed order */
	uint32_t len[NBUF], pay_len[NBUF], pay_off[NBUF];
	uint16_t flow[NBUF];
	int freel[NBUF], nfree;
	int left[NBUF], nleft;	/* left in this cycle's outputs: recycled at release */
	int ntaken;		/* this cycle's outputs checked so far */
	struct flowgen fl[NFLOWS];
	uint64_t fed, out, discarded, seq, rng;
	uint32_t nheld;
	uint64_t list[NBUF + 1], list2[NBUF + 1];
	unsigned timer_fires, timeout_outs;
};

static uint64_t
mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void
rig_init(struct rig *r, const struct sofl_gro_config *cfg, int fast, uint64_t seed)
{
	int i;

	memset(r, 0, sizeof(*r));
	r->buf = malloc((size_t)NBUF * BUFSZ);
	assert_non_null(r->buf);
	assert_int_equal(sofl_gro_create(cfg, &r->g), 0);
	sofl_gro_set_fast(r->g, fast);
	r->timeout_ns = (uint64_t)cfg->flush_timeout_us * 1000;
	for (i = 0; i < NBUF; i++)
		r->freel[r->nfree++] = NBUF - 1 - i;
	r->rng = seed;
	for (i = 0; i < NFLOWS; i++) {
		uint64_t x = t_rand(&r->rng);
		r->fl[i].hash = (uint32_t)x;
		r->fl[i].ipv = i % 3 == 2 ? 6 : 4;
		r->fl[i].hashed = (x >> 32) % 4 != 0;	/* the LRU table hashes the rest */
		r->fl[i].csum_ok = (x >> 40) % 2;
	}
}

static void
rig_free(struct rig *r)
{
	sofl_gro_destroy(r->g);
	free(r->buf);
}

static uint8_t *
bufp(struct rig *r, int b)
{
	return r->buf + (size_t)b * BUFSZ;
}

static uint64_t
cookie_of(const struct rig *r, int b)
{
	return (uint64_t)r->gen[b] << 32 | (uint32_t)b;
}

/* The buffer of a cookie still fed and not left, or -1 */
static int
buf_of(const struct rig *r, uint64_t c)
{
	uint32_t b = (uint32_t)c;

	if (b >= NBUF || r->state[b] != 1 || r->gen[b] != (uint32_t)(c >> 32))
		return -1;
	return (int)b;
}

/* One segment of flow @f into a free buffer: mostly full-size, sometimes
 * short (ends the train), PSH, or UDP (passed through, UDP GRO off). */
static void
make_in(struct rig *r, int f, struct sofl_gro_in *in)
{
	struct flowgen *fg = &r->fl[f];
	uint64_t x = t_rand(&r->rng);
	struct t_spec s;
	int b;

	assert_true(r->nfree > 0);
	b = r->freel[--r->nfree];
	t_spec_init(&s, fg->ipv, x % 61 == 0 ? 17 : 6);
	s.sport = (uint16_t)(1000 + f);
	s.seq = 7000 + fg->off;
	s.pay_off = fg->off;
	s.pay_seed = (uint8_t)f;
	s.pay_len = x % 17 == 0 ? MSS / 2 : MSS;
	s.ip_id = fg->id++;
	if (s.proto == 6 && (x >> 8) % 29 == 0)
		s.flags |= SOFL_TCP_PSH;
	r->len[b] = (uint32_t)t_build(bufp(r, b), BUFSZ, &s);
	r->pay_len[b] = (uint32_t)s.pay_len;
	r->pay_off[b] = fg->off;
	r->flow[b] = (uint16_t)f;
	if (s.proto == 6)
		fg->off += (uint32_t)s.pay_len;
	r->gen[b]++;
	r->state[b] = 1;
	r->fed_seq[b] = r->seq++;
	in->data = bufp(r, b);
	in->len = r->len[b];
	in->cookie = cookie_of(r, b);
	in->flags = fg->csum_ok ? SOFL_GRO_F_CSUM_OK | SOFL_GRO_F_IPCSUM_OK : 0;
	in->hash = 0;
	if (fg->hashed) {
		in->flags |= SOFL_GRO_F_HASH;
		in->hash = fg->hash;
	}
}

static void
check_payload(const struct rig *r, int b, const uint8_t *p, size_t len)
{
	size_t i;

	assert_int_equal(len, r->pay_len[b]);
	for (i = 0; i < len; i++)
		if (p[i] != (uint8_t)(r->flow[b] + r->pay_off[b] + i)) {
			fprintf(stderr, "buffer %d: payload byte %zu is 0x%02x (poison 0x%02x)\n", b,
				i, p[i], POISON);
			fail();
		}
}

/* Every output since the last release: its cookies fed and not left, of
 * one flow in feed order, its payload slices the inputs' own bytes (not
 * poisoned), TIMEOUT ones held at least the timeout at @now.  @return the
 * outputs; *has_c: whether cookie @c is among them. */
static int
take_outputs(struct rig *r, uint64_t now, uint64_t c, int *has_c)
{
	const struct sofl_gro_out *o;
	int n = sofl_gro_outputs(r->g, &o), i;
	uint32_t j;

	assert_true(n >= 0);
	if (has_c)
		*has_c = 0;
	for (i = r->ntaken; i < n; i++) {
		int first = -1;

		assert_true(o[i].segs >= 1);
		for (j = 0; j < o[i].segs; j++) {
			int b = buf_of(r, o[i].cookies[j]);

			if (b < 0) {
				fprintf(stderr, "output %d: cookie %#llx not held or left twice\n", i,
					(unsigned long long)o[i].cookies[j]);
				fail();
			}
			if (has_c && o[i].cookies[j] == c)
				*has_c = 1;
			if (first < 0)
				first = b;
			else
				assert_int_equal(r->flow[b], r->flow[first]);
			if (j && r->fed_seq[b] <= r->fed_seq[(uint32_t)o[i].cookies[j - 1]])
				fail_msg("output %d: cookies not in feed order", i);
			if (o[i].segs == 1) {
				assert_int_equal(o[i].iovcnt, 1);
				assert_int_equal(o[i].len, r->len[b]);
				check_payload(r, b, (const uint8_t *)o[i].iov[0].iov_base + r->len[b] -
					      r->pay_len[b], r->pay_len[b]);
			} else {
				assert_int_equal(o[i].iovcnt, o[i].segs + 1);
				check_payload(r, b, o[i].iov[j + 1].iov_base, o[i].iov[j + 1].iov_len);
			}
			r->state[b] = 2;
			r->left[r->nleft++] = b;
			r->out++;
			r->nheld--;
		}
		if (!o[i].bypass && o[i].flush_reason == SOFL_GRO_FLUSH_TIMEOUT) {
			r->timeout_outs++;
			if (r->fed_ns[first] + r->timeout_ns > now)
				fail_msg("output %d: completed by the timeout %llu ns early", i,
					 (unsigned long long)(r->fed_ns[first] + r->timeout_ns - now));
		}
	}
	n -= r->ntaken;
	r->ntaken += n;
	return n;
}

/* sofl_gro_release(), then the buffers that left go back, poisoned */
static void
release(struct rig *r)
{
	int i;

	sofl_gro_release(r->g);
	for (i = 0; i < r->nleft; i++) {
		int b = r->left[i];

		memset(bufp(r, b), POISON, BUFSZ);
		r->state[b] = 0;
		r->freel[r->nfree++] = b;
	}
	r->nleft = 0;
	r->ntaken = 0;
}

/* held_cookies = exactly the cookies fed and not left, each once, and
 * the deadline = the oldest of them's feed time + timeout.  @return the
 * oldest's cookie (0 if none). */
static uint64_t
check_held(struct rig *r)
{
	static uint8_t seen[NBUF];
	uint64_t d, oldest_ns = UINT64_MAX, oldest_c = 0;
	int n = sofl_gro_held_cookies(r->g, r->list, NBUF + 1), i, rc;

	assert_int_equal(n, (int)r->nheld);
	assert_int_equal(sofl_gro_held(r->g), r->nheld);
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < n; i++) {
		int b = buf_of(r, r->list[i]);

		if (b < 0 || seen[b]++)
			fail_msg("held_cookies[%d] = %#llx: not held or listed twice", i,
				 (unsigned long long)r->list[i]);
		if (r->fed_ns[b] < oldest_ns) {
			oldest_ns = r->fed_ns[b];
			oldest_c = r->list[i];
		}
	}
	/* (n == nheld and each listed once: the set is the held set) */
	rc = sofl_gro_next_deadline(r->g, &d);
	if (!n) {
		assert_int_equal(rc, 0);
		assert_true(d == UINT64_MAX);
		return 0;
	}
	assert_int_equal(rc, 1);
	if (!r->timeout_ns) {
		assert_true(d == 0);
		return oldest_c;
	}
	if (d != oldest_ns + r->timeout_ns)
		fail_msg("deadline %llu, oldest held input fed at %llu + timeout %llu",
			 (unsigned long long)d, (unsigned long long)oldest_ns,
			 (unsigned long long)r->timeout_ns);
	return oldest_c;
}

/* One receive of 1..24 segments of the flows around a drifting window (so
 * that flows go idle and time out), then the poll end, outputs, release. */
static void
step_rx(struct rig *r, unsigned step)
{
	struct sofl_gro_in in[24];
	uint64_t now = mono_ns();
	int k = 1 + (int)(t_rand(&r->rng) % 24), i;

	for (i = 0; i < k; i++) {
		int f = (int)((step / 4 + t_rand(&r->rng) % 48) % NFLOWS);
		make_in(r, f, &in[i]);
		r->fed_ns[(uint32_t)in[i].cookie] = now;
	}
	assert_int_equal(sofl_gro_receive(r->g, in, (size_t)k, now), k);
	r->fed += (uint64_t)k;
	r->nheld += (uint32_t)k;
	assert_true(sofl_gro_poll_end(r->g, now) >= 0);
	take_outputs(r, now, 0, NULL);
	release(r);
}

/* The timer armed at the deadline, waited for up to @wait_ms (the next
 * packets' arrival); when it fires, a poll end 1 ns before the deadline
 * completes nothing and one at the firing time completes the oldest. */
static void
step_timer(struct rig *r, int tfd, uint64_t oldest_c, int wait_ms)
{
	const struct sofl_gro_out *o;
	struct itimerspec its;
	struct pollfd p = { .fd = tfd, .events = POLLIN };
	uint64_t d, x, t;
	int has, k;

	memset(&its, 0, sizeof(its));
	if (sofl_gro_next_deadline(r->g, &d) == 1) {
		its.it_value.tv_sec = (time_t)(d / 1000000000u);
		its.it_value.tv_nsec = (long)(d % 1000000000u);
	}
	assert_int_equal(timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL), 0);
	if (poll(&p, 1, wait_ms) <= 0)
		return;
	assert_int_equal(read(tfd, &x, sizeof(x)), (ssize_t)sizeof(x));
	t = mono_ns();
	assert_true(t >= d);
	r->timer_fires++;
	assert_int_equal(sofl_gro_poll_end(r->g, d - 1), 0);
	k = sofl_gro_poll_end(r->g, t);
	assert_int_equal(k, sofl_gro_outputs(r->g, &o));
	assert_true(take_outputs(r, t, oldest_c, &has) >= 1);
	assert_true(has);
	release(r);
}

static void
expect_nospc(struct rig *r)
{
	uint32_t h = r->nheld, i;

	assert_true(h >= 1);
	for (i = 0; i <= NBUF; i++)
		r->list2[i] = 0xeeeeeeeeeeeeeeeeull;
	assert_int_equal(sofl_gro_held_cookies(r->g, r->list2, h - 1), SOFL_E_NOSPC);
	assert_int_equal(sofl_gro_held_cookies(r->g, NULL, 0), SOFL_E_NOSPC);
	assert_int_equal(sofl_gro_held_cookies(r->g, NULL, 5), SOFL_E_INVAL);
	assert_int_equal(sofl_gro_held_cookies(NULL, r->list2, 5), SOFL_E_INVAL);
	assert_int_equal(sofl_gro_discard(r->g, r->list2, h - 1), SOFL_E_NOSPC);
	assert_int_equal(sofl_gro_discard(r->g, NULL, 3), SOFL_E_INVAL);
	for (i = 0; i <= NBUF; i++)
		assert_true(r->list2[i] == 0xeeeeeeeeeeeeeeeeull);
	assert_int_equal(sofl_gro_held(r->g), h);	/* nothing discarded */
	assert_int_equal(sofl_gro_held_cookies(r->g, r->list2, h), (int)h);
}

/* sofl_gro_flush() delivers the held inputs in held_cookies' order */
static void
end_flush(struct rig *r)
{
	const struct sofl_gro_out *o;
	int n = sofl_gro_held_cookies(r->g, r->list, NBUF + 1), k, i;
	uint32_t j;
	int at = 0;

	k = sofl_gro_flush(r->g);
	assert_int_equal(k, sofl_gro_outputs(r->g, &o));
	for (i = r->ntaken; i < k; i++)
		for (j = 0; j < o[i].segs; j++) {
			assert_true(at < n);
			if (o[i].cookies[j] != r->list[at])
				fail_msg("flush output %d cookie %u is not held_cookies[%d]", i, j, at);
			at++;
		}
	assert_int_equal(at, n);
	take_outputs(r, mono_ns(), 0, NULL);
	release(r);
}

/* FNV-1a over the bytes of the cycle's outputs */
static uint64_t
outputs_digest(const struct rig *r)
{
	static uint8_t b[70000];
	const struct sofl_gro_out *o;
	uint64_t h = 0xcbf29ce484222325ull;
	int n = sofl_gro_outputs(r->g, &o), i;
	long l, j;

	for (i = 0; i < n; i++) {
		l = sofl_gro_out_copy(&o[i], b, sizeof(b));
		assert_true(l > 0);
		for (j = 0; j < l; j++)
			h = (h ^ b[j]) * 0x100000001b3ull;
	}
	return h;
}

/* sofl_gro_discard() while the cycle's outputs are pending: they stay
 * intact, the discarded buffers are poisoned at once, nothing is held. */
static void
mid_discard(struct rig *r, unsigned step)
{
	struct sofl_gro_in in[16];
	uint64_t now = mono_ns(), d, digest;
	int i, n;

	for (i = 0; i < 16; i++) {
		make_in(r, (int)((step + (unsigned)i * 7) % NFLOWS), &in[i]);
		r->fed_ns[(uint32_t)in[i].cookie] = now;
	}
	assert_int_equal(sofl_gro_receive(r->g, in, 16, now), 16);
	r->fed += 16;
	r->nheld += 16;
	take_outputs(r, now, 0, NULL);
	digest = outputs_digest(r);
	if (r->nheld)
		expect_nospc(r);
	n = sofl_gro_held_cookies(r->g, r->list, NBUF + 1);
	assert_true(n >= 1);
	assert_int_equal(sofl_gro_discard(r->g, r->list2, NBUF + 1), n);
	assert_memory_equal(r->list, r->list2, (size_t)n * sizeof(*r->list));
	for (i = 0; i < n; i++) {
		int b = buf_of(r, r->list2[i]);
		assert_true(b >= 0);
		memset(bufp(r, b), POISON, BUFSZ);	/* the engine must not look again */
		r->state[b] = 0;
		r->freel[r->nfree++] = b;
	}
	r->discarded += (uint64_t)n;
	r->nheld -= (uint32_t)n;
	assert_int_equal(sofl_gro_held(r->g), 0);
	assert_int_equal(sofl_gro_next_deadline(r->g, &d), 0);
	assert_true(d == UINT64_MAX);
	assert_int_equal(sofl_gro_discard(r->g, NULL, 0), 0);
	assert_int_equal(sofl_gro_held_cookies(r->g, NULL, 0), 0);
	assert_true(outputs_digest(r) == digest);	/* the cycle's outputs, intact */
	release(r);
	check_held(r);
}

static void
run_loop(int table, int fast, uint32_t max_held, int discard, uint64_t seed)
{
	static struct rig r;
	struct sofl_gro_config cfg;
	struct sofl_gro_stats st;
	unsigned step;
	int tfd;

	sofl_gro_config_init(&cfg);
	cfg.table = table;
	/* fewer entries than a batch's flows (LRU) or a bucket's (Linux: the
	 * flows without an rx hash share bucket 0): evictions, whatever the timing */
	cfg.max_flows = table == SOFL_GRO_TABLE_LRU ? 16 : 0;
	cfg.flush_timeout_us = TIMEOUT_US;
	cfg.max_held = max_held;
	rig_init(&r, &cfg, fast, seed);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (tfd < 0)
		fail_msg("timerfd_create: %s", strerror(errno));
	for (step = 0; step < 300; step++) {
		uint64_t oldest;

		step_rx(&r, step);
		oldest = check_held(&r);
		step_timer(&r, tfd, oldest, (int)(t_rand(&r.rng) % 3));
		check_held(&r);
		if (discard && step == 150)
			mid_discard(&r, step);
	}
	if (r.nheld == 0)
		step_rx(&r, step);	/* (something to list) */
	check_held(&r);
	if (r.nheld)
		expect_nospc(&r);
	end_flush(&r);
	check_held(&r);
	assert_int_equal(r.nheld, 0);
	assert_true(r.fed == r.out + r.discarded);
	sofl_gro_get_stats(r.g, &st, sizeof(st));
	assert_true(st.pkts_in == r.fed);
	/* flows did merge, and were completed early by the table or capacity */
	assert_true(st.super_pkts >= 100);
	assert_true(st.flush[SOFL_GRO_FLUSH_EVICT] > 0);
	assert_true(!max_held || st.flush[SOFL_GRO_FLUSH_CAPACITY] > 0);
	/* the loop did exercise the timer: most steps wait long enough */
	assert_true(r.timer_fires >= 20);
	assert_true(r.timeout_outs >= 20);
	printf("summary: table %s, fast %d, max_held %u: %llu inputs, %u timer expiries, "
	       "%u timeout outputs, %llu discarded\n", table == SOFL_GRO_TABLE_LRU ? "lru" : "linux",
	       fast, max_held, (unsigned long long)r.fed, r.timer_fires, r.timeout_outs,
	       (unsigned long long)r.discarded);
	close(tfd);
	rig_free(&r);
}

static void
test_loop_linux(void **state)
{
	(void)state;
	run_loop(SOFL_GRO_TABLE_LINUX, 1, 0, 0, 1);
	run_loop(SOFL_GRO_TABLE_LINUX, 0, 0, 1, 2);
}

static void
test_loop_lru(void **state)
{
	(void)state;
	run_loop(SOFL_GRO_TABLE_LRU, 1, 0, 1, 3);
	run_loop(SOFL_GRO_TABLE_LRU, 0, 0, 0, 4);
}

/* max_held below what the loop holds: CAPACITY completes flows early,
 * never late, and the deadline still names the oldest left */
static void
test_loop_capacity(void **state)
{
	(void)state;
	run_loop(SOFL_GRO_TABLE_LRU, 1, 24, 0, 5);
	run_loop(SOFL_GRO_TABLE_LINUX, 1, 24, 1, 6);
}

/* NAPI mode: held until the poll end, deadline 0 meanwhile */
static void
test_napi(void **state)
{
	static struct rig r;
	int t;

	(void)state;
	for (t = SOFL_GRO_TABLE_LINUX; t <= SOFL_GRO_TABLE_LRU; t++) {
		struct sofl_gro_config cfg;
		struct sofl_gro_in in[32];
		uint64_t d = 1;
		int i, rep;

		sofl_gro_config_init(&cfg);
		cfg.table = t;
		cfg.max_flows = t == SOFL_GRO_TABLE_LRU ? 16 : 0;
		rig_init(&r, &cfg, 1, 7 + (uint64_t)t);
		assert_int_equal(sofl_gro_next_deadline(NULL, &d), SOFL_E_INVAL);
		assert_int_equal(sofl_gro_next_deadline(r.g, NULL), SOFL_E_INVAL);
		assert_int_equal(sofl_gro_discard(NULL, NULL, 0), SOFL_E_INVAL);
		check_held(&r);
		for (rep = 0; rep < 20; rep++) {
			for (i = 0; i < 32; i++)
				make_in(&r, (rep * 5 + i % 20) % NFLOWS, &in[i]);
			assert_int_equal(sofl_gro_receive(r.g, in, 32, 0), 32);
			r.fed += 32;
			r.nheld += 32;
			take_outputs(&r, 0, 0, NULL);
			assert_true(r.nheld > 0);
			check_held(&r);			/* deadline 0 */
			if (rep == 10) {
				expect_nospc(&r);
				end_flush(&r);
			} else {
				assert_true(sofl_gro_poll_end(r.g, 0) >= 0);
				take_outputs(&r, 0, 0, NULL);
				release(&r);
			}
			check_held(&r);			/* nothing held */
			assert_int_equal(r.nheld, 0);
		}
		assert_true(r.fed == r.out);
		rig_free(&r);
	}
}

/* Discarding gives every entry back: an engine with room for one batch
 * discards full flows many times over (a leaked segment or flow entry
 * would run it out of room), and then still merges */
static void
test_discard_reuse(void **state)
{
	static struct rig r;
	int t;

	(void)state;
	for (t = SOFL_GRO_TABLE_LINUX; t <= SOFL_GRO_TABLE_LRU; t++) {
		struct sofl_gro_config cfg;
		struct sofl_gro_in in[32];
		struct sofl_gro_stats st;
		int i, rep, n;

		sofl_gro_config_init(&cfg);
		cfg.table = t;
		cfg.max_flows = t == SOFL_GRO_TABLE_LRU ? 4 : 0;
		cfg.flush_timeout_us = 1000000;
		cfg.max_batch = 32;
		cfg.max_held = 32;
		rig_init(&r, &cfg, t == SOFL_GRO_TABLE_LRU, 11);
		for (rep = 0; rep < 400; rep++) {
			for (i = 0; i < 32; i++) {
				make_in(&r, rep % 3 == 0 ? i % 4 : 0, &in[i]);
				in[i].flags |= SOFL_GRO_F_HASH;
				in[i].hash = (uint32_t)(rep % 3 == 0 ? i % 4 : 0);
			}
			assert_int_equal(sofl_gro_receive(r.g, in, 32, 1000), 32);
			r.fed += 32;
			r.nheld += 32;
			take_outputs(&r, 1000, 0, NULL);
			n = sofl_gro_discard(r.g, r.list, NBUF);
			assert_int_equal(n, (int)r.nheld);
			for (i = 0; i < n; i++) {
				int b = buf_of(&r, r.list[i]);
				assert_true(b >= 0);
				r.state[b] = 2;
				r.left[r.nleft++] = b;
			}
			r.discarded += (uint64_t)n;
			r.nheld = 0;
			release(&r);
		}
		/* still merging: one flow's 32 segments in one output */
		for (i = 0; i < 32; i++)
			make_in(&r, 5, &in[i]);
		sofl_gro_reset_stats(r.g);
		assert_int_equal(sofl_gro_receive(r.g, in, 32, 2000), 32);
		r.fed += 32;
		r.nheld += 32;
		take_outputs(&r, 2000, 0, NULL);
		end_flush(&r);
		sofl_gro_get_stats(r.g, &st, sizeof(st));
		assert_true(st.super_pkts >= 1 && st.segs_merged >= 8);
		assert_true(r.fed == r.out + r.discarded);
		rig_free(&r);
	}
}

/* A discard frees its inputs' room within the cycle: an engine holding
 * more than max_held at a release (no poll end) refuses a full batch with
 * SOFL_E_GRO_HELD, consuming nothing, and takes it after the discard */
static void
test_discard_room(void **state)
{
	static struct rig r;
	struct sofl_gro_config cfg;
	struct sofl_gro_in in[32];
	int i, n;

	(void)state;
	sofl_gro_config_init(&cfg);
	cfg.table = SOFL_GRO_TABLE_LRU;
	cfg.max_flows = 64;
	cfg.flush_timeout_us = 1000000;
	cfg.max_batch = 32;
	cfg.max_held = 8;
	rig_init(&r, &cfg, 1, 13);
	for (i = 0; i < 32; i++) {
		make_in(&r, i, &in[i]);		/* 32 flows: 32 held */
		r.fed_ns[(uint32_t)in[i].cookie] = 1000;
	}
	assert_int_equal(sofl_gro_receive(r.g, in, 32, 1000), 32);
	r.fed += 32;
	r.nheld += 32;
	take_outputs(&r, 1000, 0, NULL);
	release(&r);
	assert_true(r.nheld > 8);
	for (i = 0; i < 32; i++) {
		make_in(&r, 40 + i, &in[i]);
		r.fed_ns[(uint32_t)in[i].cookie] = 2000;
	}
	assert_int_equal(sofl_gro_receive(r.g, in, 32, 2000), SOFL_E_GRO_HELD);
	check_held(&r);				/* nothing consumed */
	n = sofl_gro_discard(r.g, r.list, NBUF);
	assert_int_equal(n, (int)r.nheld);
	for (i = 0; i < n; i++) {
		int b = buf_of(&r, r.list[i]);
		assert_true(b >= 0);
		r.state[b] = 2;
		r.left[r.nleft++] = b;
	}
	r.discarded += (uint64_t)n;
	r.nheld = 0;
	assert_int_equal(sofl_gro_receive(r.g, in, 32, 2000), 32);
	r.fed += 32;
	r.nheld += 32;
	take_outputs(&r, 2000, 0, NULL);
	end_flush(&r);
	assert_true(r.fed == r.out + r.discarded);
	rig_free(&r);
}

/* A hold time near the clock's end: the deadline saturates */
static void
test_saturate(void **state)
{
	struct sofl_gro_config cfg;
	struct sofl_gro *g;
	struct sofl_gro_in in;
	struct t_spec s;
	uint8_t b[1600];
	uint64_t d, c;

	(void)state;
	sofl_gro_config_init(&cfg);
	cfg.flush_timeout_us = 50;
	assert_int_equal(sofl_gro_create(&cfg, &g), 0);
	t_spec_init(&s, 4, 6);
	s.pay_len = MSS;
	memset(&in, 0, sizeof(in));
	in.data = b;
	in.len = (uint32_t)t_build(b, sizeof(b), &s);
	in.cookie = 42;
	assert_int_equal(sofl_gro_receive(g, &in, 1, UINT64_MAX - 10), 1);
	assert_int_equal(sofl_gro_poll_end(g, UINT64_MAX - 10), 0);
	assert_int_equal(sofl_gro_next_deadline(g, &d), 1);
	assert_true(d == UINT64_MAX);
	assert_int_equal(sofl_gro_held_cookies(g, &c, 1), 1);
	assert_true(c == 42);
	sofl_gro_release(g);
	sofl_gro_destroy(g);
}

/* sofl_gro_set_flush_timeout(): NAPI -> timeout -> NAPI on a running
 * engine, both tables; refused while something is held; statistics kept. */
static void
test_set_timeout(void **state)
{
	static uint8_t seg[4][1600];
	struct sofl_gro_config cfg;
	struct sofl_gro_in in[4];
	struct sofl_gro_stats st;
	const struct sofl_gro_out *o;
	struct sofl_gro *g;
	uint64_t d;
	int table, k;

	(void)state;
	for (k = 0; k < 4; k++) {
		struct t_spec s;

		t_spec_init(&s, 4, 6);
		s.seq = 1 + (uint32_t)k * MSS;
		s.pay_len = MSS;
		s.pay_off = (uint32_t)k * MSS;
		memset(&in[k], 0, sizeof(in[k]));
		in[k].data = seg[k];
		in[k].len = (uint32_t)t_build(seg[k], sizeof(seg[k]), &s);
		in[k].cookie = (uint64_t)k;
	}
	assert_int_equal(sofl_gro_set_flush_timeout(NULL, 1), SOFL_E_INVAL);
	for (table = SOFL_GRO_TABLE_LINUX; table <= SOFL_GRO_TABLE_LRU; table++) {
		sofl_gro_config_init(&cfg);
		cfg.table = table;
		assert_int_equal(sofl_gro_create(&cfg, &g), 0);
		/* NAPI: held until this poll's end, and no change meanwhile */
		assert_int_equal(sofl_gro_receive(g, in, 2, 0), 2);
		assert_int_equal(sofl_gro_set_flush_timeout(g, 10), SOFL_E_GRO_HELD);
		assert_int_equal(sofl_gro_poll_end(g, 0), 1);
		sofl_gro_release(g);
		/* timeout mode: held across poll ends until 10 us after the hold */
		assert_int_equal(sofl_gro_set_flush_timeout(g, 10), 0);
		assert_int_equal(sofl_gro_receive(g, in, 2, 5000), 2);
		assert_int_equal(sofl_gro_poll_end(g, 5000), 0);
		sofl_gro_release(g);
		assert_int_equal(sofl_gro_next_deadline(g, &d), 1);
		assert_true(d == 15000);
		assert_int_equal(sofl_gro_receive(g, in + 2, 2, 9000), 2);
		assert_int_equal(sofl_gro_poll_end(g, 14999), 0);
		assert_int_equal(sofl_gro_poll_end(g, 15000), 1);
		assert_int_equal(sofl_gro_outputs(g, &o), 1);
		assert_int_equal(o[0].segs, 4);
		sofl_gro_release(g);
		/* back to NAPI */
		assert_int_equal(sofl_gro_set_flush_timeout(g, 0), 0);
		assert_int_equal(sofl_gro_receive(g, in, 1, 0), 1);
		assert_int_equal(sofl_gro_next_deadline(g, &d), 1);
		assert_true(d == 0);
		assert_int_equal(sofl_gro_poll_end(g, 0), 1);
		sofl_gro_release(g);
		assert_int_equal(sofl_gro_get_stats(g, &st, sizeof(st)), 0);
		assert_int_equal(st.pkts_in, 7);
		assert_int_equal(st.flush[SOFL_GRO_FLUSH_TIMEOUT], 1);
		assert_int_equal(st.flush[SOFL_GRO_FLUSH_POLL], 2);
		sofl_gro_destroy(g);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loop_linux),
		cmocka_unit_test(test_loop_lru),
		cmocka_unit_test(test_loop_capacity),
		cmocka_unit_test(test_napi),
		cmocka_unit_test(test_discard_reuse),
		cmocka_unit_test(test_discard_room),
		cmocka_unit_test(test_saturate),
		cmocka_unit_test(test_set_timeout),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
