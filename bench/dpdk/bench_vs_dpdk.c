/* bench_vs_dpdk: softoffload and DPDK 22.11 side by side, in one process, on
 * identical input bytes, with the workloads and the method of
 * the DPDK 22.11 anchor run:
 *
 *   - every row is registered and checked first (both sides must produce the
 *     expected output), then repetitions are interleaved: rep 1 of every row,
 *     rep 2 of every row, ... so slow phases of the shared host hit all rows;
 *   - per-call rows (GRO bursts, GSO super-packets) time only the call with
 *     lfence/rdtsc ... rdtscp/lfence and subtract the median cost of an empty
 *     timer pair; the input restore before each call is untimed; one
 *     repetition = the median over its calls;
 *   - loop rows (checksums, Toeplitz) time a loop in 16 slices and keep
 *     the median slice (a slice another process interrupted is left out);
 *   - headline = median over repetitions; the ratio DPDK / softoffload is
 *     computed per repetition (both rows ran within milliseconds of each
 *     other) and reported as median [min..max].
 *
 * This file: the timer, the rows and comparisons, the report and main();
 * the row families are in vs_csum.c, vs_rss.c, vs_parse.c, vs_gro.c,
 * vs_gro_sweep.c (-o flows: GRO against active flows, run after the
 * others) and vs_gso.c, the workloads and output checker in vs_work.c
 * (vs.h).
 *
 * Usage: bench_vs_dpdk [-r reps] [-s scale] [-o csum,rss,gro,gso,sweep,flows] [-v]
 *                      [-- EAL arguments]
 * Without EAL arguments it uses the flags that work on this machine without
 * hugepages: -l <cpu> --no-huge --no-pci -m 512 --no-shconf --no-telemetry
 * --log-level=1.  $SOFL_BENCH_REPS sets the repetitions (default 15),
 * $SOFL_BENCH_SCALE the default of -s; $SOFL_BENCH_ROW=text times and
 * reports only the rows whose name contains text ("name$": that row alone;
 * every row is still set up and checked): for instruction counts of one row
 * under callgrind.
 * Exit status: 0, 1 when a correctness check failed, 2 on set-up failure. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "softoffload/softoffload.h"
#include "softoffload/gso.h"
#include "softoffload/rss.h"
#include "softoffload/gro.h"
#include "../util.h"
#include "../../tests/helpers.h"
#include "dpdk_side.h"
#include "vs.h"

/* ---- timing ---- */

double tsc_per_ns;	/* TSC ticks per ns, calibrated at start */
double timer_ovh;	/* ticks of an empty tic()/toc() pair */

static void
calibrate(void)
{
	double v[101];
	uint64_t n0 = bench_ns(), t0 = tic(), n1, t1;

	do {
		n1 = bench_ns();
	} while (n1 - n0 < 100000000);
	t1 = toc();
	tsc_per_ns = (double)(t1 - t0) / (double)(n1 - n0);
	for (int i = 0; i < 101; i++) {
		uint64_t a = tic(), b = toc();
		v[i] = (double)(b - a);
	}
	timer_ovh = bench_median(v, 101);
}

/* Median over @calls of one call's ticks (minus the timer), in ns. */
double
ticks_median_ns(double *v, int calls)
{
	return bench_median(v, calls) / tsc_per_ns;
}

/* ---- rows and comparisons ---- */

struct row rows[MAXROW];
static int nrows;
static struct cmp cmps[MAXCMP];
static int ncmps;
static int failures;
int verbose;
static double scale = 1.0;

int
add_row(const char *sec, const char *unit, measure_fn fn, void *arg, double bytes,
	const char *fmt, ...)
{
	struct row *r;
	va_list ap;

	if (nrows == MAXROW) {
		fprintf(stderr, "bench_vs_dpdk: too many rows\n");
		exit(2);
	}
	r = &rows[nrows];
	r->sec = sec;
	r->unit = unit;
	r->fn = fn;
	r->arg = arg;
	r->bytes = bytes;
	va_start(ap, fmt);
	vsnprintf(r->name, sizeof(r->name), fmt, ap);
	va_end(ap);
	return nrows++;
}

void
add_cmp(int d, int o)
{
	if (ncmps < MAXCMP && d >= 0 && o >= 0)
		cmps[ncmps++] = (struct cmp){ d, o };
}

void
check(int ok, const char *what, ...)
{
	va_list ap;

	if (ok && !verbose)
		return;
	va_start(ap, what);
	printf("check %-4s ", ok ? "ok" : "FAIL");
	vprintf(what, ap);
	printf("\n");
	va_end(ap);
	if (!ok)
		failures++;
}

void *
xalloc(size_t len)
{
	void *p = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);

	if (p == NULL) {
		fprintf(stderr, "bench_vs_dpdk: out of memory\n");
		exit(2);
	}
	memset(p, 0, len);
	return p;
}

size_t
iters_for(double want)
{
	double n = want * scale;

	return n < 1 ? 1 : (size_t)n;
}

uint64_t
splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void
fill_random(uint8_t *buf, size_t len, uint64_t seed)
{
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		uint64_t v = splitmix64(&seed);
		memcpy(buf + i, &v, 8);	/* little-endian bytes on x86 */
	}
	for (; i < len; i++)
		buf[i] = (uint8_t)splitmix64(&seed);
}

/* ---- machine probe: is the host in a slow phase? ---- */

static double
m_probe(void *arg)
{
	uint64_t x = 1, t0, t1, n = 20000000;

	(void)arg;
	t0 = tic();
	for (uint64_t i = 0; i < n; i++)
		__asm__ volatile("add %1, %0" : "+r"(x) : "r"(i));
	t1 = toc();
	bench_sink(x);
	/* one dependent add per cycle (plus loop overhead on a separate chain):
	 * report the clock in GHz as "ns per unit" = adds per ns */
	return (double)n / (((double)(t1 - t0) - timer_ovh) / tsc_per_ns);
}

/* ---- main ---- */

static int
want_sec(const char *only, const char *sec)
{
	const char *p;
	size_t l = strlen(sec);

	if (only == NULL)
		return 1;
	for (p = only; (p = strstr(p, sec)) != NULL; p += l)
		if ((p == only || p[-1] == ',') && (p[l] == 0 || p[l] == ','))
			return 1;
	return 0;
}

/* 1 when row @i is timed and reported ($SOFL_BENCH_ROW) */
static int
row_on(int i)
{
	static const char *only;

	if (only == NULL)
		only = getenv("SOFL_BENCH_ROW") ? getenv("SOFL_BENCH_ROW") : "";
	if (*only && only[strlen(only) - 1] == '$')	/* "name$": that row alone */
		return strncmp(rows[i].name, only, strlen(only) - 1) == 0 &&
		       rows[i].name[strlen(only) - 1] == 0;
	return !*only || strstr(rows[i].name, only) != NULL;
}

static void
report(int reps)
{
	double tmp[MAXREP];

	printf("\n# results: median of %d interleaved repetitions (min..max)\n", reps);
	for (int i = 0; i < nrows; i++) {
		struct row *r = &rows[i];
		char metric[32];

		if (!row_on(i))
			continue;
		if (strcmp(r->unit, "probe") == 0) {
			memcpy(tmp, r->s, sizeof(double) * (size_t)reps);
			bench_report("probe", r->name, "dep_adds_per_ns", "GHz", tmp, reps);
			continue;
		}
		snprintf(metric, sizeof(metric), "ns_per_%s", r->unit);
		memcpy(tmp, r->s, sizeof(double) * (size_t)reps);
		bench_report(r->sec, r->name, metric, "ns", tmp, reps);
		if (r->bytes > 0) {
			for (int k = 0; k < reps; k++)
				tmp[k] = r->bytes / r->s[k];
			bench_report(r->sec, r->name, "GBps", "GB/s", tmp, reps);
		}
	}
	printf("\n# DPDK / softoffload: time ratio per repetition (> 1: softoffload faster)\n");
	printf("%-44s %10s  %-44s %10s %8s  %s\n", "DPDK", "ns", "softoffload", "ns", "ratio",
	       "min..max");
	for (int c = 0; c < ncmps; c++) {
		struct row *d = &rows[cmps[c].d], *o = &rows[cmps[c].o];
		double rt[MAXREP], dm, om, lo, hi, med;
		char name[200];

		if (!row_on(cmps[c].d) || !row_on(cmps[c].o))
			continue;
		for (int k = 0; k < reps; k++)
			rt[k] = d->s[k] / o->s[k];
		memcpy(tmp, d->s, sizeof(double) * (size_t)reps);
		dm = bench_median(tmp, reps);
		memcpy(tmp, o->s, sizeof(double) * (size_t)reps);
		om = bench_median(tmp, reps);
		lo = bench_min(rt, reps);
		hi = bench_max(rt, reps);
		memcpy(tmp, rt, sizeof(double) * (size_t)reps);
		med = bench_median(tmp, reps);
		printf("%-44s %10.4g  %-44s %10.4g %7.3gx  %.3g..%.3g\n", d->name, dm, o->name, om,
		       med, lo, hi);
		snprintf(name, sizeof(name), "%s/%s", d->name, o->name);
		printf("CSV,ratio,%s,dpdk_over_sofl,x,%.4g,%.4g,%.4g\n", name, med, lo, hi);
	}
}

int
main(int argc, char **argv)
{
	char *eal[32], lcore[24];
	const char *only = NULL;
	int neal = 0, reps = bench_reps(15), sep = 0, opt;

	if (getenv("SOFL_BENCH_SCALE"))
		scale = atof(getenv("SOFL_BENCH_SCALE"));

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			sep = i;
	eal[neal++] = argv[0];
	if (sep) {
		for (int i = sep + 1; i < argc && neal < 31; i++)
			eal[neal++] = argv[i];
		argc = sep;
	} else {
		static char *def[] = { "-l", NULL, "--no-huge", "--no-pci", "-m", "512",
				       "--no-shconf", "--no-telemetry", "--log-level=1" };
		/* the last CPU: with 2 vCPUs, CPU 1, away from most interrupts */
		snprintf(lcore, sizeof(lcore), "%ld", sysconf(_SC_NPROCESSORS_ONLN) - 1);
		def[1] = lcore;
		for (size_t i = 0; i < sizeof(def) / sizeof(def[0]); i++)
			eal[neal++] = def[i];
	}
	eal[neal] = NULL;
	while ((opt = getopt(argc, argv, "r:s:o:v")) != -1) {
		switch (opt) {
		case 'r':
			reps = atoi(optarg);
			break;
		case 's':
			scale = atof(optarg);
			break;
		case 'o':
			only = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [-r reps] [-s scale] [-o csum,rss,gro,gso,sweep,flows] [-v] "
				"[-- EAL args]\n", argv[0]);
			return 2;
		}
	}
	if (reps < 1 || reps > MAXREP || !(scale > 0)) {
		fprintf(stderr, "bench_vs_dpdk: reps 1..%d, scale > 0\n", MAXREP);
		return 2;
	}
	if (dpdk_init(neal, eal) < 0)
		return 2;
	calibrate();
	printf("# bench_vs_dpdk: softoffload vs DPDK 22.11, one process, interleaved\n");
	printf("# TSC %.4f GHz, timer pair %.0f ticks (subtracted), %d repetitions, scale %g\n",
	       tsc_per_ns, timer_ovh, reps, scale);
	add_row("probe", "probe", m_probe, NULL, 0, "dep_add_clock");
	if (want_sec(only, "csum"))
		setup_csum();
	if (want_sec(only, "rss"))
		setup_rss();
	if (want_sec(only, "sweep"))
		setup_sweep();
	if (want_sec(only, "gro") || want_sec(only, "gso"))
		build_bursts();
	if (want_sec(only, "gro")) {
		setup_gro_dpdk();
		setup_gro_ours();
		setup_gro_vxlan();
	}
	if (want_sec(only, "gso")) {
		setup_gso_dpdk();
		setup_gso_ours();
		setup_gso_vxlan();
	}
	if (want_sec(only, "flows"))
		setup_gro_flows();
	printf("# %d rows, %d comparisons, %d failed checks\n", nrows, ncmps, failures);
	fflush(stdout);
	/* one untimed round first: page faults, caches, branch predictors */
	for (int i = 0; i < nrows; i++)
		if (rows[i].fn && row_on(i))
			rows[i].fn(rows[i].arg);
	for (int k = 0; k < reps; k++)
		for (int i = 0; i < nrows; i++)
			if (rows[i].fn && row_on(i))
				rows[i].s[k] = rows[i].fn(rows[i].arg);
	/* the flows sweep: point by point, its engines interleaved per poll */
	run_gro_flows(reps);
	report(reps);
	if (failures)
		printf("# %d correctness check(s) FAILED\n", failures);
	dpdk_fini();
	return failures ? 1 : 0;
}
