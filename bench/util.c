/* Shared benchmark helpers (util.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "util.h"

static volatile uint64_t sink;

uint64_t
bench_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double
bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double
bench_min(const double *v, int n)
{
	double m = v[0];
	for (int i = 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

double
bench_max(const double *v, int n)
{
	double m = v[0];
	for (int i = 1; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}

void
bench_sink(uint64_t v)
{
	sink ^= v;
}

void
bench_report(const char *section, const char *name, const char *metric, const char *unit,
	     double *samples, int n)
{
	double lo = bench_min(samples, n), hi = bench_max(samples, n);
	double med = bench_median(samples, n);

	printf("%-8s %-40s %10.3g %-6s (%s; min %.3g max %.3g, n=%d)\n", section, name, med, unit,
	       metric, lo, hi, n);
	printf("CSV,%s,%s,%s,%s,%.4g,%.4g,%.4g\n", section, name, metric, unit, med, lo, hi);
	fflush(stdout);
}

int
bench_reps(int def)
{
	const char *e = getenv("SOFL_BENCH_REPS");
	int n = e ? atoi(e) : def;
	return n > 0 ? n : def;
}

int
bench_reps_args(int argc, char **argv, int def, int max)
{
	int n = bench_reps(argc > 1 && !strcmp(argv[1], "-q") ? 3 : def);

	return n > max ? max : n;
}

double
bench_median_of(const double *v, int n)
{
	double tmp[1024];

	if (n > 1024)
		n = 1024;
	memcpy(tmp, v, sizeof(double) * (size_t)n);
	return bench_median(tmp, n);
}

uint64_t
bench_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void
bench_fill_random(uint8_t *buf, size_t len, uint64_t seed)
{
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		uint64_t v = bench_splitmix64(&seed);

		memcpy(buf + i, &v, 8);	/* little-endian bytes on x86 */
	}
	for (; i < len; i++)
		buf[i] = (uint8_t)bench_splitmix64(&seed);
}

void *
bench_alloc(size_t len)
{
	void *p = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);

	if (!p) {
		fprintf(stderr, "bench: out of memory (%zu bytes)\n", len);
		exit(2);
	}
	return p;
}
