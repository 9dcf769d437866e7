#!/bin/sh
# Run every benchmark binary ($BUILD/bench/bench_*), keep each one's output,
# collect their result lines into one JSON file and draw the plots.
#
#   BUILD=build scripts/run-bench.sh        (make bench)
#   environment: OUT      output directory (default $BUILD/bench)
#                SOFL_BENCH_REPS  repetitions per benchmark (their default: 15)
#                SOFL_BENCH_SCALE iterations per repetition, a factor (1)
#                BENCH_PLOT=0     no plots
#
# Every benchmark prints, besides its table, one line per result:
#   CSV,<section>,<name>,<metric>,<unit>,<median>,<min>,<max>
# (bench/util.c bench_report(); the name may hold commas).  bench_vs_dpdk
# adds the same-run ratios as
#   CSV,ratio,<DPDK row>/<softoffload row>,dpdk_over_sofl,x,<median>,<min>,<max>
# Rows of a sweep are named "<series>@<x>" in a section ending in _sweep
# (csum_sweep: GB/s against bytes; gso_sweep, gso_vxlan_sweep: ns per
# segment against payload bytes) or gro_flows / gro_segs / gro_vxlan_flows
# (GRO: ns per packet against active flows / segments per super-packet /
# VXLAN flows interleaved in a burst); scripts/bench-plot.sh draws them.
#
# Writes $OUT/<bench>.txt (each output), $OUT/results.tsv (one line per row)
# and $OUT/results.json:
#   { "date", "commit", "cpu", "load", "rows": [ { "bench", "section",
#     "name", "metric", "unit", "median", "min", "max"
#     [, "series", "x"] [, "dpdk": [ { "name", "median", "ratio",
#     "ratio_min", "ratio_max" } ]] } ] }
# where "dpdk" lists the same-run DPDK rows this row was compared with
# (ratio = DPDK time / softoffload time: > 1, softoffload faster).
# Exit status: 1 when a benchmark failed (its correctness checks included).
set -eu
BUILD=${BUILD:-build}
OUT=${OUT:-$BUILD/bench}
mkdir -p "$OUT"
status=0
load0=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
for b in "$BUILD"/bench/bench_*; do
	[ -x "$b" ] && [ -f "$b" ] || continue
	n=$(basename "$b")
	case $n in
	*.o | *.d) continue ;;
	bench_udpgso) continue ;;	# a sender/receiver pair: make demo runs it
	esac
	echo "== $n"
	if ! "$b" "$@" >"$OUT/$n.txt" 2>&1; then
		echo "run-bench: $n failed (see $OUT/$n.txt)" >&2
		status=1
	fi
	grep -v '^CSV,' "$OUT/$n.txt" || true
done
load1=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
cpu=$(sh "$(dirname "$0")/cpu-name.sh")
commit=$(git rev-parse --short HEAD 2>/dev/null || echo "?")

# one TSV line per row: bench section name metric unit median min max series x
for f in "$OUT"/bench_*.txt; do
	[ -f "$f" ] || continue
	n=$(basename "$f" .txt)
	grep '^CSV,' "$f" | awk -F, -v b="$n" 'BEGIN { OFS = "\t" }
	NF >= 8 {
		name = $3
		for (i = 4; i <= NF - 5; i++) name = name "," $i
		series = ""; x = ""
		if ($2 != "ratio" && (k = index(name, "@")) > 0 && substr(name, k + 1) ~ /^[0-9]+$/) {
			series = substr(name, 1, k - 1); x = substr(name, k + 1)
		}
		gsub(/\t/, " ", name)
		print b, $2, name, $(NF - 4), $(NF - 3), $(NF - 2), $(NF - 1), $NF, series, x
	}'
done >"$OUT/results.tsv"

awk -F'\t' -v date="$(date -u '+%FT%TZ')" -v commit="$commit" -v cpu="$cpu" \
	-v load="$load0 / $load1" '
function js(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); return "\"" s "\"" }
function num(v) { return (v ~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/) ? v + 0 : "null" }
{
	line[NR] = $0
	if ($2 == "ratio") {
		split($3, pr, "/")
		k = $1 SUBSEP pr[2]
		nr[k]++
		rn[k, nr[k]] = pr[1]; rmed[k, nr[k]] = $6; rlo[k, nr[k]] = $7; rhi[k, nr[k]] = $8
	} else if ($4 ~ /^ns_per/) {
		tm[$1 SUBSEP $3] = $6
		if (!(($1 SUBSEP $3) in tmetric)) tmetric[$1 SUBSEP $3] = $4
	}
}
END {
	printf "{\n  \"date\": %s,\n  \"commit\": %s,\n  \"cpu\": %s,\n  \"load\": %s,\n  \"rows\": [", \
		js(date), js(commit), js(cpu), js(load)
	sep = "\n"
	for (i = 1; i <= NR; i++) {
		split(line[i], f, "\t")
		if (f[2] == "ratio") continue
		printf "%s    {\"bench\": %s, \"section\": %s, \"name\": %s, \"metric\": %s, \"unit\": %s, \"median\": %s, \"min\": %s, \"max\": %s", \
			sep, js(f[1]), js(f[2]), js(f[3]), js(f[4]), js(f[5]), num(f[6]), num(f[7]), num(f[8])
		if (f[9] != "") printf ", \"series\": %s, \"x\": %s", js(f[9]), num(f[10])
		k = f[1] SUBSEP f[3]
		if ((k in nr) && tmetric[k] == f[4]) {
			printf ", \"dpdk\": ["
			for (j = 1; j <= nr[k]; j++) {
				d = f[1] SUBSEP rn[k, j]
				printf "%s{\"name\": %s, \"median\": %s, \"ratio\": %s, \"ratio_min\": %s, \"ratio_max\": %s}", \
					(j > 1 ? ", " : ""), js(rn[k, j]), ((d in tm) ? num(tm[d]) : "null"), \
					num(rmed[k, j]), num(rlo[k, j]), num(rhi[k, j])
			}
			printf "]"
		}
		printf "}"
		sep = ",\n"
	}
	printf "\n  ]\n}\n"
}' "$OUT/results.tsv" >"$OUT/results.json"
echo "== $(grep -c . "$OUT/results.tsv") rows -> $OUT/results.json"
if [ "${BENCH_PLOT:-1}" != 0 ]; then
	sh scripts/bench-plot.sh "$OUT" || status=1
fi
exit $status
