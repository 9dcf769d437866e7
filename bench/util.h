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

#endif
