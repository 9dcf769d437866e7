/* Description: UDP GRO (Linux UDP_GRO semantics, reference §1.9): equal-size
 * datagrams merge, a shorter one merges and ends the train, a longer one
 * starts a new one, at most 64, zero checksum and padded/odd lengths are not
 * coalesced, header changes flush, the 65535 limit; completion writes the
 * UDP length, the pseudo sum (csum_offset 6) and NEEDS_CSUM, gso_type
 * UDP_L4, in both checksum modes (csum_full too: Linux takes a UDP_L4
 * super-packet's field as the pseudo sum).  IPv4 and IPv6. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "test_gro_util.h"

static struct t_spec
dgram(int ipv, int pay, uint32_t off)
{
	struct t_spec s;

	t_spec_init(&s, ipv, 17);
	s.pay_len = (size_t)pay;
	s.pay_off = off;
	s.ip_id = (uint16_t)(off / 7);	/* incrementing enough to differ */
	s.df = 0;
	return s;
}

/* Feed the list with UDP GRO on; expect payload sizes. */
static void
expect(struct tg *t, const char *name, int ipv, int udp, int full, const int *want, int n)
{
	struct sofl_gro_config cfg;
	char nm[80];

	sofl_gro_config_init(&cfg);
	cfg.udp = udp;
	cfg.csum_full = full;
	tg_run(t, &cfg, NULL);
	snprintf(nm, sizeof(nm), "%s v%d full %d", name, ipv, full);
	assert_true(tg_expect(t, nm, want, n));
}

#define CASE(name, ...) do {							\
	const int w_[] = { __VA_ARGS__ };					\
	expect(&t, name, ipv, 1, full, w_, (int)(sizeof(w_) / sizeof(w_[0])));	\
} while (0)

/* Adds one datagram of @pay bytes at payload offset @off with IP ID @id. */
static void
add_dgram(struct tg *t, int ipv, int pay, uint32_t off, uint16_t id)
{
	struct t_spec s = dgram(ipv, pay, off);

	s.ip_id = id;
	tg_add(t, &s);
}

/* IPv4 IDs must follow Linux's rule for UDP too: use incrementing IDs */
static void
add_train(struct tg *t, int ipv, const int *sizes, int n, uint32_t *off)
{
	int i;

	for (i = 0; i < n; i++) {
		struct t_spec s = dgram(ipv, sizes[i], *off);
		s.ip_id = (uint16_t)(100 + t->n);
		tg_add(t, &s);
		*off += (uint32_t)sizes[i];
	}
}

static void
cases(int ipv, int full)
{
	struct tg t;
	struct t_spec s;
	uint32_t off;
	int i;

	tg_init(&t);
	off = 0;
	add_train(&t, ipv, (const int[]){ 1000, 1000, 1000, 1000, 1000 }, 5, &off);
	CASE("equal", 5000);
	assert_int_equal(t.gso_type[0], SOFL_GSO_UDP_L4);
	assert_int_equal(t.gso_size[0], 1000);
	assert_int_equal(t.segs[0], 5);
	tg_free(&t);

	tg_init(&t);
	off = 0;
	add_train(&t, ipv, (const int[]){ 1000, 1000, 500, 1000 }, 4, &off);
	CASE("shorter ends", 2500, 1000);
	assert_int_equal(t.reason[0], SOFL_GRO_FLUSH_SHORT);
	tg_free(&t);

	tg_init(&t);
	off = 0;
	add_train(&t, ipv, (const int[]){ 500, 1000 }, 2, &off);
	CASE("longer starts new", 500, 1000);
	assert_int_equal(t.reason[0], SOFL_GRO_FLUSH_BIGGER);
	tg_free(&t);

	tg_init(&t);
	off = 0;
	for (i = 0; i < 70; i++)
		add_train(&t, ipv, (const int[]){ 100 }, 1, &off);
	CASE("64 max", 6400, 600);
	assert_int_equal(t.segs[0], 64);
	assert_int_equal(t.reason[0], SOFL_GRO_FLUSH_UDP_MAX);
	tg_free(&t);

	/* the 65535-byte IP packet limit: 44 x 1472 fit in IPv4, 44 in IPv6 (48 B hdr) */
	tg_init(&t);
	off = 0;
	for (i = 0; i < 50; i++)
		add_train(&t, ipv, (const int[]){ 1472 }, 1, &off);
	if (ipv == 4) {
		CASE("size limit", 44 * 1472, 6 * 1472);
	} else {
		CASE("size limit", 44 * 1472, 6 * 1472);
	}
	assert_int_equal(t.reason[0], SOFL_GRO_FLUSH_SIZE);
	tg_free(&t);

	/* different ports: two flows, completed oldest first */
	tg_init(&t);
	for (i = 0; i < 4; i++) {
		s = dgram(ipv, 100, (uint32_t)(i / 2) * 100);
		s.sport = (uint16_t)(i % 2 ? 7000 : 6000);
		s.ip_id = (uint16_t)(10 * (i % 2) + i / 2);
		tg_add(&t, &s);
	}
	CASE("ports", 200, 200);
	tg_free(&t);

	/* TTL change flushes */
	tg_init(&t);
	off = 0;
	add_train(&t, ipv, (const int[]){ 100 }, 1, &off);
	s = dgram(ipv, 100, off);
	s.ip_id = 101;
	s.ttl = 3;
	tg_add(&t, &s);
	CASE("ttl", 100, 100);
	assert_int_equal(t.reason[0], SOFL_GRO_FLUSH_HDR);
	tg_free(&t);

	/* bad checksum: delivered at once, the held train is kept */
	tg_init(&t);
	add_dgram(&t, ipv, 100, 0, 100);
	add_dgram(&t, ipv, 100, 500, 101);
	t.pk[1][t.len[1] - 1] ^= 0xff;
	add_dgram(&t, ipv, 100, 100, 101);
	CASE("bad csum", 100, 200);
	assert_int_equal(t.bypass[0], 1);
	assert_int_equal(t.reason[0], SOFL_GRO_BYPASS_L4_CSUM);
	tg_free(&t);

	/* Ethernet padding after a short datagram: not coalesced, train kept */
	tg_init(&t);
	add_dgram(&t, ipv, 10, 0, 100);
	s = dgram(ipv, 10, 300);
	s.ip_id = 101;
	s.eth_pad = 12;
	tg_add(&t, &s);
	add_dgram(&t, ipv, 10, 10, 101);
	CASE("padding", 10, 20);
	assert_int_equal(t.reason[0], SOFL_GRO_BYPASS_UDP_LEN);
	tg_free(&t);
}

static void
test_v4(void **state)
{
	(void)state;
	cases(4, 0);
	cases(4, 1);
}

static void
test_v6(void **state)
{
	(void)state;
	cases(6, 0);
	cases(6, 1);
}

static void
test_not_coalesced(void **state)
{
	struct tg t;
	struct t_spec s;
	int i, ipv = 4, full = 0;
	(void)state;

	/* IPv4 UDP without checksum */
	tg_init(&t);
	for (i = 0; i < 3; i++) {
		s = dgram(4, 100, (uint32_t)i * 100);
		s.udp_zero_csum = 1;
		tg_add(&t, &s);
	}
	CASE("zero csum", 100, 100, 100);
	assert_int_equal(t.reason[0], SOFL_GRO_BYPASS_UDP_CSUM0);
	tg_free(&t);

	/* UDP GRO off (the default): passed through */
	tg_init(&t);
	for (i = 0; i < 3; i++)
		add_dgram(&t, 4, 100, (uint32_t)i * 100, (uint16_t)i);
	{
		const int w[] = { 100, 100, 100 };
		expect(&t, "udp off", 4, 0, 0, w, 3);
	}
	assert_int_equal(t.reason[0], SOFL_GRO_BYPASS_UDP_OFF);
	tg_free(&t);
}

/* Completion bytes: UDP length, pseudo sum, vnet header; the same with
 * csum_full (@full) */
static void
completion_bytes(int full)
{
	struct sofl_gro_config cfg;
	struct sofl_gro *g;
	struct sofl_gro_in in[3];
	const struct sofl_gro_out *o;
	uint8_t f[3][1600], out[5000];
	struct t_spec s;
	struct sofl_pkt p;
	uint16_t ps;
	int i;

	sofl_gro_config_init(&cfg);
	cfg.udp = 1;
	cfg.csum_full = full;
	assert_int_equal(sofl_gro_create(&cfg, &g), 0);
	for (i = 0; i < 3; i++) {
		s = dgram(4, 1000, (uint32_t)i * 1000);
		s.ip_id = (uint16_t)(50 + i);
		in[i].len = (uint32_t)t_build(f[i], sizeof(f[i]), &s);
		in[i].data = f[i];
		in[i].flags = 0;
		in[i].cookie = (uint64_t)(10 + i);
	}
	assert_int_equal(sofl_gro_receive(g, in, 3, 0), 3);
	assert_int_equal(sofl_gro_poll_end(g, 0), 1);
	assert_int_equal(sofl_gro_outputs(g, &o), 1);
	assert_int_equal(o[0].segs, 3);
	assert_int_equal(o[0].iovcnt, 4);
	assert_int_equal(o[0].cookies[0], 10);
	assert_int_equal(o[0].cookies[2], 12);
	assert_int_equal(o[0].len, 14 + 20 + 8 + 3000);
	assert_int_equal(o[0].csum, SOFL_CSUM_PARTIAL);
	assert_int_equal(o[0].csum_start, 34);
	assert_int_equal(o[0].csum_offset, 6);
	assert_int_equal(o[0].vnet.flags, SOFL_VNET_HDR_F_NEEDS_CSUM);
	assert_int_equal(o[0].vnet.gso_type, SOFL_GSO_UDP_L4);
	assert_int_equal(o[0].vnet.gso_size, 1000);
	assert_int_equal(o[0].vnet.hdr_len, 42);
	assert_int_equal(o[0].vnet.csum_start, 34);
	assert_int_equal(o[0].vnet.csum_offset, 6);
	/* payload slices point into the caller's buffers (zero copy) */
	assert_ptr_equal(o[0].iov[1].iov_base, f[0] + 42);
	assert_ptr_equal(o[0].iov[3].iov_base, f[2] + 42);
	assert_int_equal(sofl_gro_out_copy(&o[0], out, sizeof(out)), o[0].len);
	assert_int_equal(sofl_pkt_parse(&p, out, o[0].len, SOFL_LINK_ETH), 0);
	assert_int_equal(sofl_get16(out + 34 + 4), 3008);
	assert_int_equal(sofl_get16(out + 14 + 2), 3028);
	assert_int_equal(sofl_get16(out + 14 + 4), 50);	/* first datagram's ID */
	assert_true(sofl_csum_ipv4_hdr_ok(out + 14, 20));
	ps = sofl_csum_fold(sofl_csum_pseudo_v4(out + 26, out + 30, 17, 3008));
	assert_int_equal(sofl_get16(out + 34 + 6), ps);
	/* completing the partial sum gives a valid datagram */
	assert_int_equal(sofl_csum_complete_partial(out, o[0].len, 34, 6), 0);
	assert_int_equal(sofl_csum_pkt_l4(&p), sofl_get16(out + 40));
	assert_int_equal(sofl_vnet_check(&o[0].vnet, &p, SOFL_VNET_F_STRICT), 1);
	assert_int_equal(sofl_gro_out_copy(&o[0], out, 100), SOFL_E_NOSPC);
	sofl_gro_release(g);
	sofl_gro_destroy(g);
}

static void
test_completion_bytes(void **state)
{
	(void)state;
	completion_bytes(0);
	completion_bytes(1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v4),
		cmocka_unit_test(test_v6),
		cmocka_unit_test(test_not_coalesced),
		cmocka_unit_test(test_completion_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
