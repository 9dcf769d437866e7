#!/bin/sh
# softoffload vs DPDK 22.11, side by side (bench/dpdk/bench_vs_dpdk.c).
# Builds the benchmark, runs it $RUNS times as separate processes (a pause
# between them, so one slow phase of the shared host does not hit them all),
# keeps the raw outputs and aggregates the CSV lines: for each row, the median
# of the per-process medians and their spread (min..max).
#
#   BUILD=build-x RUNS=5 scripts/bench-vs-dpdk.sh [bench_vs_dpdk options]
#     options: -r reps  -s scale  -o csum,rss,gro,gso  -v  [-- EAL args]
#   environment: RUNS (default 1), PAUSE seconds between runs (default 5),
#                OUT directory for run-N.txt and summary.txt ($BUILD/bench-vs-dpdk),
#                SOFL_BENCH_REPS repetitions per process (default 15).
# Exit status: 0; 1 when a run failed a correctness check; 77 when libdpdk
# is missing (scripts/deps.sh bench installs it).
set -eu
BUILD=${BUILD:-build}
RUNS=${RUNS:-1}
PAUSE=${PAUSE:-5}
OUT=${OUT:-$BUILD/bench-vs-dpdk}
if ! pkg-config --exists libdpdk 2>/dev/null; then
	echo "bench-vs-dpdk: skipped, libdpdk not found (scripts/deps.sh bench installs it)" >&2
	exit 77
fi
make -s BUILD="$BUILD" bench-dpdk
mkdir -p "$OUT"
rm -f "$OUT"/run-*.txt
status=0
# other processes share these 2 vCPUs: record how busy the machine was
load0=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
i=1
while [ "$i" -le "$RUNS" ]; do
	[ "$i" -gt 1 ] && sleep "$PAUSE"
	echo "== run $i/$RUNS -> $OUT/run-$i.txt"
	if ! "$BUILD/bench/bench_vs_dpdk" "$@" >"$OUT/run-$i.txt"; then
		echo "bench-vs-dpdk: run $i failed (see $OUT/run-$i.txt)" >&2
		status=1
	fi
	i=$((i + 1))
done
# CSV,<section>,<name>,<metric>,<unit>,<median>,<min>,<max> -> per row: median of
# the runs' medians, min..max of the runs' medians, best single repetition;
# summary.md: the DPDK / softoffload pairs as a Markdown table.
grep -h '^CSV,' "$OUT"/run-*.txt |
awk -F, -v md="$OUT/summary.md" -v runs="$RUNS" '
function median(key,    m, i, j, x) {
	m = n[key]
	for (i = 1; i <= m; i++) a[i] = v[key, i] + 0
	for (i = 2; i <= m; i++) { x = a[i]; j = i - 1
		while (j > 0 && a[j] > x) { a[j + 1] = a[j]; j-- }
		a[j + 1] = x }
	lo = a[1]; hi = a[m]
	return (m % 2) ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
}
{
	key = $2 FS $3 FS $4 FS $5
	if (!(key in n)) { order[++nk] = key }
	v[key, ++n[key]] = $6
	best_lo[key] = (key in best_lo && best_lo[key] < $7) ? best_lo[key] : $7
	best_hi[key] = (key in best_hi && best_hi[key] > $8) ? best_hi[key] : $8
}
END {
	printf "%-8s %-58s %-14s %10s %22s %10s\n", "section", "row", "metric", "median", "spread (per-run)", "best"
	for (k = 1; k <= nk; k++) {
		key = order[k]
		med = median(key)
		split(key, f, FS)
		# best: the lowest time, the highest rate or ratio
		best = (f[4] == "ns") ? best_lo[key] : best_hi[key]
		printf "%-8s %-58s %-14s %10.4g %10.4g..%-10.4g %10.4g\n", f[1], f[2], f[3], med, lo, hi, best
		if (f[3] ~ /^ns_per_/) { ns[f[2]] = med; unit[f[2]] = substr(f[3], 8) }
		if (f[3] == "GBps") gbs[f[2]] = med
	}
	printf "| DPDK 22.11 | ns | softoffload | ns | DPDK / softoffload |\n" > md
	printf "|---|---:|---|---:|---:|\n" >> md
	for (k = 1; k <= nk; k++) {
		key = order[k]
		split(key, f, FS)
		if (f[1] != "ratio") continue
		med = median(key)
		split(f[2], pr, "/")
		d = sprintf("%.4g", ns[pr[1]]); o = sprintf("%.4g", ns[pr[2]])
		if (pr[1] in gbs) { d = d sprintf(" (%.3g GB/s)", gbs[pr[1]]); o = o sprintf(" (%.3g GB/s)", gbs[pr[2]]) }
		sp = (runs > 1) ? sprintf(" (%.3g..%.3g)", lo, hi) : ""
		printf "| `%s` | %s | `%s` | %s | **%.3gx**%s |\n", pr[1], d, pr[2], o, med, sp >> md
	}
}' >"$OUT/summary.txt"
load1=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
printf '# %s, %s, %s run(s), load average %s at start, %s at end\n' "$(date -u '+%F %H:%M UTC')" \
	"$(sh "$(dirname "$0")/cpu-name.sh")" "$RUNS" "$load0" "$load1" >>"$OUT/summary.txt"
echo "== summary of $RUNS run(s): $OUT/summary.txt, $OUT/summary.md"
cat "$OUT/summary.txt"
exit $status
