/* Description: `softoffload gro` on a VXLAN capture: the tunnel port table of
 * --udp-tunnel reaches the engine (a stream on a port not in the table is
 * plain UDP, not coalesced; with the port given, one tunnel super-packet
 * whose outer lengths cover its four segments), the tunnel counters in the
 * text output (section "tunnels") and in --json (gro.tunnel) agree, and the
 * output record is the same shape as a plain super-packet's: one record,
 * the frame's bytes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcap/pcap.h>
#include "helpers.h"
#include "helpers_encap.h"
#include "cli_util.h"
#include "softoffload/bytes.h"

#define NSEG 4
#define MSS 1000

/* in.pcap: NSEG in-order segments of one inner TCP/IPv4 flow in VXLAN to
 * UDP @port over outer IPv4 (outer checksum set, outer IDs incrementing) */
static size_t
write_stream(uint16_t port)
{
	struct t_capw w;
	struct t_spec s, o;
	struct t_encap e;
	uint8_t in[2048], f[2048];
	size_t n, l = 0;
	int k;

	t_capw_open(&w, "in.pcap", DLT_EN10MB, T_CAP_PCAP);
	for (k = 0; k < NSEG; k++) {
		t_spec_init(&s, 4, 6);
		s.pay_len = MSS;
		s.seq = 1000 + (uint32_t)k * MSS;
		s.pay_off = (uint32_t)k * MSS;
		s.ip_id = (uint16_t)(10 + k);
		n = t_build(in, sizeof(in), &s);
		t_spec_init(&o, 4, 17);
		o.dport = port;
		o.sport = 49152;
		o.ip_id = (uint16_t)(500 + k);
		t_encap_init(&e, SOFL_ENCAP_VXLAN, 42);
		l = t_build_encap(f, sizeof(f), &o, &e, in, n);
		t_capw_put(&w, f, (uint32_t)l, (uint32_t)l, 1000 + (uint64_t)k);
	}
	t_capw_close(&w);
	return l - MSS;		/* the headers */
}

static void
test_port_reaches_engine(void **state)
{
	struct pcap_pkthdr *h;
	const u_char *d;
	pcap_t *p;
	size_t hl;

	(void)state;
	hl = write_stream(8472);
	assert_int_equal(t_cli_run("gro", "in.pcap -o out.pcap --stats"), 0);
	assert_int_equal(t_cli_counter("gro", "super-packets"), 0);
	assert_int_equal(t_cli_counter("tunnels", "tunnel packets in"), 0);
	assert_int_equal(t_cli_counter("bypass reasons", "udp-off"), NSEG);
	assert_int_equal(t_cli_run("gro", "in.pcap -o out.pcap --stats --udp-tunnel 8472:vxlan"), 0);
	assert_int_equal(t_cli_counter("gro", "super-packets"), 1);
	assert_int_equal(t_cli_counter("tunnels", "tunnel packets in"), NSEG);
	assert_int_equal(t_cli_counter("tunnels", "tunnel super-packets"), 1);
	assert_int_equal(t_cli_counter("tunnels", "segments merged into tunnel super-packets"), NSEG);
	assert_int_equal(t_cli_counter("checksums", "outer UDP checksums verified in software"), NSEG);
	p = t_cli_open_pcap("out.pcap");
	assert_int_equal(pcap_next_ex(p, &h, &d), 1);
	assert_int_equal(h->caplen, hl + NSEG * MSS);
	assert_int_equal(sofl_get16(d + 14 + 2), h->caplen - 14);		/* outer tot_len */
	assert_int_equal(sofl_get16(d + 34 + 4), h->caplen - 34);		/* outer UDP length */
	assert_int_equal(pcap_next_ex(p, &h, &d), -2);				/* one record */
	pcap_close(p);
	/* the JSON's tunnel object */
	assert_int_equal(t_cli_run("gro", "in.pcap -o out.pcap --json --udp-tunnel 8472:vxlan"), 0);
	assert_non_null(strstr(t_cli_out, "\"tunnel\":{\"pkts_in\":4,\"super_pkts\":1,"
				"\"segs_merged\":4"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_port_reaches_engine),
	};
	int rc = t_cli_init("gro-encap-cli");

	if (rc)
		return rc;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	return t_cli_fini() ? 1 : rc;
}
