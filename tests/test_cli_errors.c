/* Description: the CLI fails loudly and the same way in every subcommand
 * (csum, rss, gro, gso): an output that cannot be written (-o /dev/full) is
 * exit 2 with one message; an output that is the input (same path, ./path,
 * a hard link, a symbolic link) is refused before anything is truncated;
 * a capture cut inside a record (in a record header or in its data) has
 * everything before the damage processed and written, then one identical
 * message and exit 2; usage errors are one line naming the subcommand and
 * the problem, then "Try 'softoffload SUB --help'", exit 2; a missing file
 * is named once; numbers are decimal. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "helpers.h"
#include "cli_util.h"

#define NSEG 12
#define PAY  1000

/* in.pcap of the temp dir: @n in-order TCP segments of one flow, @pay bytes
 * each; returns each record's length in len[] (may be NULL). */
static void
write_flow(const char *name, int n, int pay, uint32_t *len)
{
	struct t_capw w;
	struct t_spec s;
	uint8_t b[2048];
	int i;

	t_capw_open(&w, name, DLT_EN10MB, T_CAP_PCAP);
	for (i = 0; i < n; i++) {
		size_t l;

		t_spec_init(&s, 4, 6);
		s.seq = 1000 + (uint32_t)(i * pay);
		s.pay_off = (uint32_t)(i * pay);
		s.pay_len = (size_t)pay;
		s.ip_id = (uint16_t)(7 + i);
		l = t_build(b, sizeof(b), &s);
		if (len)
			len[i] = (uint32_t)l;
		t_capw_put(&w, b, (uint32_t)l, (uint32_t)l, 1000000 + (uint64_t)i);
	}
	t_capw_close(&w);
}

/* Records of @name and the sum of their TCP payloads. */
static int
count_out(const char *name, long *payload)
{
	struct pcap_pkthdr *h;
	const u_char *d;
	pcap_t *p = t_cli_open_pcap(name);
	int n = 0;

	*payload = 0;
	while (pcap_next_ex(p, &h, &d) == 1) {
		struct sofl_pkt q;

		assert_int_equal(sofl_pkt_parse(&q, d, h->caplen, SOFL_LINK_ETH), 0);
		*payload += (long)q.pay_len;
		n++;
	}
	pcap_close(p);
	return n;
}

static char *
slurp_file(const char *name, size_t *len)
{
	char path[PATH_MAX];
	FILE *f = fopen(t_cli_file(path, sizeof(path), name), "rb");
	char *b = malloc(1 << 20);

	assert_non_null(f);
	assert_non_null(b);
	*len = fread(b, 1, 1 << 20, f);
	fclose(f);
	return b;
}

/* The three subcommands that write a capture, with the arguments that make
 * them write IN to OUT (printf: IN, OUT). */
static const struct { const char *sub, *fmt; } writers[] = {
	{ "gro", "%s -o %s" },
	{ "gso", "%s -o %s --mss 500" },
	{ "csum", "%s --fix -o %s" },
};
#define NWRITERS (sizeof(writers) / sizeof(writers[0]))

static int
run_writer(size_t k, const char *in, const char *out)
{
	char args[600];

	snprintf(args, sizeof(args), writers[k].fmt, in, out);
	return t_cli_run(writers[k].sub, "%s", args);
}

/* -o /dev/full: exit 2, one message naming the output and the reason; for a
 * small capture (the failure shows at the final flush) and a large one (it
 * shows while records are written). */
static void
test_write_errors(void **state)
{
	int sizes[] = { 1, 200 }, i;
	size_t k;
	(void)state;

	if (access("/dev/full", W_OK) != 0) {
		fprintf(stderr, "note: no /dev/full; write errors not tested\n");
		skip();
	}
	for (i = 0; i < 2; i++) {
		write_flow("in.pcap", sizes[i], PAY, NULL);
		for (k = 0; k < NWRITERS; k++) {
			int rc = run_writer(k, "in.pcap", "/dev/full");

			if (rc != 2 || !strstr(t_cli_err, "/dev/full: write failed: No space left")) {
				fprintf(stderr, "%s, %d records, -o /dev/full: exit %d, stderr '%s'\n",
					writers[k].sub, sizes[i], rc, t_cli_err);
				fail();
			}
			assert_non_null(strchr(t_cli_err, '\n'));
			assert_int_equal(strchr(t_cli_err, '\n')[1], '\0');	/* once */
		}
	}
}

/* The input given as the output, by any name: refused, exit 2, input intact. */
static void
test_input_as_output(void **state)
{
	static const char *names[] = { "a.pcap", "./a.pcap", "hard.pcap", "sym.pcap" };
	char pa[PATH_MAX], ph[PATH_MAX], ps[PATH_MAX];
	size_t k, j, len0, len1;
	char *before, *after;
	(void)state;

	write_flow("a.pcap", NSEG, PAY, NULL);
	before = slurp_file("a.pcap", &len0);
	t_cli_file(pa, sizeof(pa), "a.pcap");
	unlink(t_cli_file(ph, sizeof(ph), "hard.pcap"));
	unlink(t_cli_file(ps, sizeof(ps), "sym.pcap"));
	assert_int_equal(link(pa, ph), 0);
	assert_int_equal(symlink("a.pcap", ps), 0);
	for (k = 0; k < NWRITERS; k++) {
		for (j = 0; j < sizeof(names) / sizeof(names[0]); j++) {
			int rc = run_writer(k, "a.pcap", names[j]);

			if (rc != 2 || !strstr(t_cli_err, "is the input file")) {
				fprintf(stderr, "%s a.pcap -o %s: exit %d, stderr '%s'\n",
					writers[k].sub, names[j], rc, t_cli_err);
				fail();
			}
			assert_int_equal(strchr(t_cli_err, '\n')[1], '\0');
			after = slurp_file("a.pcap", &len1);
			assert_int_equal(len1, len0);
			assert_memory_equal(after, before, len0);
			free(after);
		}
		/* a different file is fine */
		assert_int_equal(run_writer(k, "a.pcap", "b.pcap"), 0);
	}
	free(before);
}

/* A capture cut after 5 good records, inside the 6th record's header or
 * data: every subcommand processes and writes the 5, then prints the same
 * one-line message and exits 2. */
static void
test_cut_capture(void **state)
{
	uint32_t len[NSEG];
	char path[PATH_MAX], msg[4][sizeof(t_cli_err)];
	long cut[2], payload;
	int c;
	(void)state;

	write_flow("full.pcap", NSEG, PAY, len);
	cut[0] = 24 + 5 * (16 + (long)len[0]) + 10;		/* inside the 6th header */
	cut[1] = 24 + 5 * (16 + (long)len[0]) + 16 + 100;	/* inside its data */
	for (c = 0; c < 2; c++) {
		write_flow("cut.pcap", NSEG, PAY, NULL);
		assert_int_equal(truncate(t_cli_file(path, sizeof(path), "cut.pcap"), cut[c]), 0);

		assert_int_equal(t_cli_run("gro", "cut.pcap -o out.pcap --stats"), 2);
		snprintf(msg[0], sizeof(msg[0]), "%s", t_cli_err);
		assert_int_equal(t_cli_counter("gro", "packets in"), 5);
		assert_int_equal(count_out("out.pcap", &payload), 1);	/* one super-packet */
		assert_int_equal(payload, 5 * PAY);

		assert_int_equal(t_cli_run("gso", "cut.pcap -o out.pcap --mss 500"), 2);
		snprintf(msg[1], sizeof(msg[1]), "%s", t_cli_err);
		assert_int_equal(count_out("out.pcap", &payload), 10);
		assert_int_equal(payload, 5 * PAY);

		assert_int_equal(t_cli_run("csum", "cut.pcap --fix -o out.pcap"), 2);
		snprintf(msg[2], sizeof(msg[2]), "%s", t_cli_err);
		assert_int_equal(count_out("out.pcap", &payload), 5);
		assert_int_equal(t_cli_num_after("cut.pcap: "), 5);	/* the counts, too */

		assert_int_equal(t_cli_run("rss", "cut.pcap --queues 4 --format tsv"), 2);
		snprintf(msg[3], sizeof(msg[3]), "%s", t_cli_err);
		assert_non_null(strstr(t_cli_out, "\n5\t"));
		assert_null(strstr(t_cli_out, "\n6\t"));

		assert_string_equal(msg[0], msg[1]);
		assert_string_equal(msg[0], msg[2]);
		assert_string_equal(msg[0], msg[3]);
		if (strncmp(msg[0], "softoffload: cut.pcap: record 6: ", 33) ||
		    !strstr(msg[0], "the 5 records before it were processed\n") ||
		    strchr(msg[0], '\n')[1]) {
			fprintf(stderr, "message: '%s'\n", msg[0]);
			fail();
		}
	}
}

/* Each subcommand's usage errors: two lines, exit 2, nothing on stdout. */
static void
test_usage_form(void **state)
{
	static const struct { const char *sub, *ok, *valued; } subs[] = {
		{ "gro", "in.pcap -o out.pcap", "--poll-sizes" },
		{ "gso", "in.pcap -o out.pcap --mss 500", "--mss" },
		{ "csum", "in.pcap", "-o" },
		{ "rss", "in.pcap --queues 4", "--queues" },
	};
	size_t k;
	(void)state;

	write_flow("in.pcap", 2, PAY, NULL);
	for (k = 0; k < sizeof(subs) / sizeof(subs[0]); k++) {
		const char *sub = subs[k].sub, *ok = subs[k].ok;
		int n;
		const char *p;

		assert_int_equal(t_cli_run(sub, "%s", ok), 0);
		t_cli_usage_error(sub, "unknown option '--bogus'", "%s --bogus", ok);
		t_cli_usage_error(sub, "more than one input file", "%s other.pcap", ok);
		t_cli_usage_error(sub, "no input file", "%s", "");
		t_cli_usage_error(sub, "needs a value", "%s %s", ok, subs[k].valued);
		/* a missing file is named once, in one line */
		t_cli_file_error(sub, "nosuch.pcap: No such file or directory", "nosuch.pcap%s",
				 ok + strlen("in.pcap"));
		for (n = 0, p = t_cli_err; (p = strstr(p, "nosuch.pcap")); p++)
			n++;
		assert_int_equal(n, 1);
	}
	t_cli_usage_error("gro", "--poll-max", "in.pcap -o out.pcap --poll-max 0");
	t_cli_usage_error("gro", "--csum", "in.pcap -o out.pcap --csum none");
	t_cli_usage_error("gso", "--mtu", "in.pcap -o out.pcap --mtu 40");
	t_cli_usage_error("csum", "--fix needs -o", "in.pcap --fix");
	/* the dispatcher */
	assert_int_equal(t_cli_run("nosuchcmd", "%s", ""), 2);
	assert_string_equal(t_cli_err, "softoffload: unknown command 'nosuchcmd'\n"
			    "Try 'softoffload --help'\n");
}

/* Numbers are decimal everywhere; lists have no empty elements; gso needs
 * something to do. */
static void
test_numbers(void **state)
{
	long payload;
	(void)state;

	write_flow("in.pcap", 1, 100, NULL);
	/* --mss 010 is ten (octal would be 8: 13 segments), 08 is eight */
	assert_int_equal(t_cli_run("gso", "in.pcap -o out.pcap --mss 010"), 0);
	assert_int_equal(count_out("out.pcap", &payload), 10);
	assert_int_equal(t_cli_run("gso", "in.pcap -o out.pcap --mss 08"), 0);
	assert_int_equal(count_out("out.pcap", &payload), 13);
	t_cli_usage_error("gso", "--mss", "in.pcap -o out.pcap --mss 0x10");
	t_cli_usage_error("gso", "--mss", "in.pcap -o out.pcap --mss +10");
	t_cli_usage_error("gso", "--mss", "in.pcap -o out.pcap --mss ' 10'");
	t_cli_usage_error("gso", "--mss", "in.pcap -o out.pcap --mss 99999999999999999999999");
	t_cli_usage_error("gso", "nothing to do", "in.pcap -o out.pcap");
	t_cli_usage_error("gso", "nothing to do", "in.pcap -o out.pcap --csum partial");

	write_flow("in.pcap", NSEG, PAY, NULL);
	t_cli_usage_error("gro", "trailing comma", "in.pcap -o out.pcap --poll-sizes 1,2,");
	t_cli_usage_error("gro", "trailing comma", "in.pcap -o out.pcap --poll-sizes 1,,2");
	t_cli_usage_error("gro", "neither a file nor a list", "in.pcap -o out.pcap --poll-sizes ,1");
	t_cli_usage_error("gro", "not a decimal", "in.pcap -o out.pcap --poll-sizes 1,0x2");
	t_cli_usage_error("gro", "--poll-max", "in.pcap -o out.pcap --poll-max 0x40");
	t_cli_usage_error("gro", "--rule", "in.pcap -o out.pcap --rule tcp4,");
	t_cli_usage_error("gro", "--rule", "in.pcap -o out.pcap --rule tcp4,dport=0x50");
	t_cli_usage_error("gro", "prefix", "in.pcap -o out.pcap --rule tcp4,dst=198.18.0.0/+15");
	/* 012 polls of twelve: one super-packet; decimal --poll-max 010 too */
	assert_int_equal(t_cli_run("gro", "in.pcap -o out.pcap --poll-sizes 012"), 0);
	assert_int_equal(count_out("out.pcap", &payload), 1);
	assert_int_equal(t_cli_run("gro", "in.pcap -o out.pcap --poll-max 010"), 0);
	assert_int_equal(count_out("out.pcap", &payload), 2);
	assert_int_equal(payload, NSEG * PAY);
	/* a poll file: a trailing comma there too */
	t_cli_write_file("polls", "4,4,\n");
	t_cli_usage_error("gro", "trailing comma", "in.pcap -o out.pcap --poll-sizes polls");
	t_cli_write_file("polls", "4,4,4\n");
	assert_int_equal(t_cli_run("gro", "in.pcap -o out.pcap --poll-sizes polls"), 0);
	assert_int_equal(count_out("out.pcap", &payload), 3);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_errors),
		cmocka_unit_test(test_input_as_output),
		cmocka_unit_test(test_cut_capture),
		cmocka_unit_test(test_usage_form),
		cmocka_unit_test(test_numbers),
	};
	int rc = t_cli_init("cli-errors");

	if (rc)
		return rc;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	return t_cli_fini() ? 1 : rc;
}
