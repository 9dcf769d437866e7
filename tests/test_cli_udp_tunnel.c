/* Description: the capture subcommands' shared parse options (tools/pcapio.h):
 * --udp-tunnel PORT[:vxlan|geneve] (repeatable, up to 8 ports, replacing the
 * defaults; "none": no UDP tunnels) and --no-ipip are accepted by gro, gso,
 * csum and rss, reach the parse (csum finds the inner TCP checksum of a
 * VXLAN or IP-in-IP packet bad, or the outer one good, as the options say),
 * and their usage errors are one line naming the problem, exit 2. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "helpers.h"
#include "helpers_encap.h"
#include "cli_util.h"

/* in.pcap: one VXLAN packet to @port and one 4in4 packet, each with a
 * good outer checksum and a bad inner TCP checksum */
static void
write_tunnels(uint16_t port)
{
	struct t_capw w;
	struct t_spec s, o;
	struct t_encap e;
	uint8_t in[2048], f[2048];
	size_t n, l;

	t_capw_open(&w, "in.pcap", DLT_EN10MB, T_CAP_PCAP);
	t_spec_init(&s, 4, 6);
	s.pay_len = 100;
	n = t_build(in, sizeof(in), &s);
	in[14 + 20 + 16] ^= 0xff;		/* the inner TCP checksum */
	t_spec_init(&o, 4, 17);
	o.dport = port;
	t_encap_init(&e, SOFL_ENCAP_VXLAN, 7);
	l = t_build_encap(f, sizeof(f), &o, &e, in, n);
	t_capw_put(&w, f, (uint32_t)l, (uint32_t)l, 1000);
	t_spec_init(&o, 4, 4);
	t_encap_init(&e, SOFL_ENCAP_IPIP, 0);
	l = t_build_encap(f, sizeof(f), &o, &e, in + 14, n - 14);
	t_capw_put(&w, f, (uint32_t)l, (uint32_t)l, 2000);
	t_capw_close(&w);
}

static void
test_reaches_parse(void **state)
{
	(void)state;
	write_tunnels(4789);
	/* csum exits 1 when it finds a bad checksum */
	assert_int_equal(t_cli_run("csum", "in.pcap"), 1);		/* both inner */
	assert_int_equal(t_cli_run("csum", "in.pcap --udp-tunnel none --no-ipip"), 0);
	assert_int_equal(t_cli_run("csum", "in.pcap --udp-tunnel 8472 --no-ipip"), 0);
	assert_int_equal(t_cli_run("csum", "in.pcap --udp-tunnel 4789:vxlan --no-ipip"), 1);
	assert_int_equal(t_cli_run("csum", "in.pcap --udp-tunnel none"), 1);	/* 4in4 */
	/* a VXLAN header on a Geneve port is no Geneve packet (protocol 0):
	 * the outer packet */
	assert_int_equal(t_cli_run("csum", "in.pcap --udp-tunnel 4789:geneve --no-ipip"), 0);
	write_tunnels(8472);
	assert_int_equal(t_cli_run("csum", "in.pcap --no-ipip"), 0);
	assert_int_equal(t_cli_run("csum", "in.pcap --no-ipip --udp-tunnel 4789 "
				   "--udp-tunnel 8472:vxlan"), 1);
}

static void
test_every_subcommand(void **state)
{
	static const struct { const char *sub, *ok; } subs[] = {
		{ "gro", "in.pcap -o out.pcap" },
		{ "gso", "in.pcap -o out.pcap --mss 500" },
		{ "csum", "in.pcap" },
		{ "rss", "in.pcap --queues 4" },
	};
	size_t k;

	(void)state;
	write_tunnels(4789);
	for (k = 0; k < sizeof(subs) / sizeof(subs[0]); k++) {
		const char *sub = subs[k].sub, *ok = subs[k].ok;

		/* accepted (exit 0 or 1, the subcommand's own verdict), not usage */
		assert_true(t_cli_run(sub, "%s --udp-tunnel none --no-ipip", ok) != 2);
		assert_true(t_cli_run(sub, "%s --udp-tunnel 4789 --udp-tunnel 6081:geneve "
				      "--udp-tunnel 8472:vxlan", ok) != 2);
		t_cli_usage_error(sub, "1..65535", "%s --udp-tunnel 0", ok);
		t_cli_usage_error(sub, "1..65535", "%s --udp-tunnel 65536", ok);
		t_cli_usage_error(sub, "1..65535", "%s --udp-tunnel 0x12b5", ok);
		t_cli_usage_error(sub, "PORT[:vxlan|geneve]", "%s --udp-tunnel :vxlan", ok);
		t_cli_usage_error(sub, "vxlan or geneve", "%s --udp-tunnel 4789:gre", ok);
		t_cli_usage_error(sub, "vxlan or geneve", "%s --udp-tunnel 4789:", ok);
		t_cli_usage_error(sub, "given twice", "%s --udp-tunnel 4789 --udp-tunnel 4789:geneve",
				  ok);
		t_cli_usage_error(sub, "given with ports", "%s --udp-tunnel 1 --udp-tunnel none", ok);
		t_cli_usage_error(sub, "given with --udp-tunnel none",
				  "%s --udp-tunnel none --udp-tunnel 1", ok);
		t_cli_usage_error(sub, "at most 8", "%s --udp-tunnel 1 --udp-tunnel 2 --udp-tunnel 3 "
				  "--udp-tunnel 4 --udp-tunnel 5 --udp-tunnel 6 --udp-tunnel 7 "
				  "--udp-tunnel 8 --udp-tunnel 9", ok);
		t_cli_usage_error(sub, "needs a value", "%s --udp-tunnel", ok);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reaches_parse),
		cmocka_unit_test(test_every_subcommand),
	};
	int rc = t_cli_init("cli-udp-tunnel");

	if (rc)
		return rc;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	return t_cli_fini() ? 1 : rc;
}
