/* Shared benchmark helpers: monotonic clock, medians, result lines.
 * Benchmarks measure several repetitions and report median/min/max; absolute
 * figures vary ±25 % on this shared machine, so compare ratios from one run. */
#ifndef SOFL_BENCH_UTIL_H
#define SOFL_BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>

uint64_t bench_ns(void);			/* CLOCK_MONOTONIC_RAW in ns */
double bench_median(double *v, int n);	/* sorts v */
double bench_min(const double *v, int n);
double bench_max(const double *v, int n);
/* Keeps a value alive so the compiler cannot drop the computation. */
void bench_sink(uint64_t v);
/* Print one result: human-readable row + a machine-readable CSV line
 * "CSV,<section>,<name>,<metric>,<unit>,<median>,<min>,<max>". */
void bench_report(const char *section, const char *name, const char *metric, const char *unit,
		  double *samples, int n);
/* Repetitions from $SOFL_BENCH_REPS (default @def). */
int bench_reps(int def);
/* The same for a benchmark's main(): a first argument "-q" makes the default
 * 3; the result is capped at @max (the size of the caller's sample arrays). */
int bench_reps_args(int argc, char **argv, int def, int max);
/* Median of v[0..n) without reordering v (n <= 1024). */
double bench_median_of(const double *v, int n);

/* splitmix64: the deterministic generator of the DPDK 22.11 anchor workloads. */
uint64_t bench_splitmix64(uint64_t *state);
/* Fills buf with splitmix64 outputs from @seed, 8 little-endian bytes each
 * (a tail shorter than 8 gets the low byte of one output per byte). */
void bench_fill_random(uint8_t *buf, size_t len, uint64_t seed);
/* 4 KiB-aligned memory (len rounded up); exits with a message when there is
 * none.  Free with free(). */
void *bench_alloc(size_t len);

#endif
