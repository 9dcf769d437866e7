#!/bin/sh
# tests/bench_smoke.sh: the benchmarks build and run, and make bench's
# collection works — every $BUILD/bench/bench_* (bench_vs_dpdk too when it
# was built) once through scripts/run-bench.sh with one repetition and a
# tiny count (SOFL_BENCH_REPS=1, SOFL_BENCH_SCALE=0.02), into a temp dir.
# Checked: every benchmark exits 0 (their own correctness checks
# included), prints result lines, results.json is valid JSON with one
# object per result line and the fields name, unit, median, min, max, every
# median a positive number, the sweep rows carry series and x, the DPDK
# ratios (when bench_vs_dpdk ran) sit on softoffload rows, and the checksum
# and GSO plots are written (the GRO plots are skipped, with a message,
# when no benchmark prints their rows).  It checks that the benchmarks
# work, never how fast they are.
set -u
BUILD=${BUILD:-build}
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "$*" >&2; exit 77; }

for t in jq gnuplot; do
	command -v "$t" >/dev/null 2>&1 || skip "$t not installed (scripts/deps.sh check installs it)"
done
n=0
for b in "$BUILD"/bench/bench_*; do
	[ -x "$b" ] && [ -f "$b" ] && n=$((n + 1))
done
[ "$n" -ge 4 ] || fail "$BUILD/bench/bench_* not built (make all builds them)"

T=$(mktemp -d /tmp/sofl-bench-smoke.XXXXXX)
trap 'rm -rf "$T"' EXIT
start=$(date +%s)
SOFL_BENCH_REPS=1 SOFL_BENCH_SCALE=0.02 OUT="$T" BUILD="$BUILD" sh scripts/run-bench.sh \
	>"$T/run.log" 2>&1 || { tail -n 30 "$T/run.log"; fail "scripts/run-bench.sh failed"; }
secs=$(($(date +%s) - start))

J=$T/results.json
jq -e . "$J" >/dev/null 2>&1 || fail "results.json is not valid JSON"
ran=""
for f in "$T"/bench_*.txt; do
	b=$(basename "$f" .txt)
	lines=$(grep -c '^CSV,' "$f")
	[ "$lines" -gt 0 ] || fail "$b printed no result line"
	rows=$(jq --arg b "$b" '[.rows[] | select(.bench == $b)] | length' "$J")
	ratios=$(grep -c '^CSV,ratio,' "$f")
	[ "$rows" -eq $((lines - ratios)) ] ||
		fail "$b: $lines result lines ($ratios ratios), $rows rows in results.json"
	ran="$ran $b"
done
for b in bench_csum bench_gso bench_rss bench_gro; do
	case " $ran " in *" $b "*) ;; *) fail "$b did not run" ;; esac
done
bad=$(jq '[.rows[] | select((.name | type) != "string" or (.unit | type) != "string"
	or (.median | type) != "number" or (.min | type) != "number" or (.max | type) != "number"
	or .median <= 0 or .min > .median or .median > .max)] | length' "$J")
[ "$bad" = 0 ] || fail "$bad rows without a name, unit or a positive median within min..max: $(
	jq -c '[.rows[] | select((.median | type) != "number" or .median <= 0)][0]' "$J")"
sweep=$(jq '[.rows[] | select(.section == "csum_sweep" and (.series | type) == "string"
	and (.x | type) == "number")] | length' "$J")
[ "$sweep" -ge 11 ] || fail "$sweep checksum sweep rows with series and x (11 lengths expected)"
gso=$(jq '[.rows[] | select(.section == "gso_sweep" and .metric == "ns_per_segment")] | length' "$J")
[ "$gso" -ge 7 ] || fail "$gso GSO sweep rows"
dpdk=""
if [ -f "$T/bench_vs_dpdk.txt" ]; then
	r=$(jq '[.rows[] | select(.dpdk) | select(.bench == "bench_vs_dpdk"
		and (.name | startswith("sofl_")) and (.dpdk[0].ratio | type) == "number"
		and (.dpdk[0].median | type) == "number")] | length' "$J")
	[ "$r" -ge 20 ] || fail "only $r softoffload rows of bench_vs_dpdk carry a DPDK ratio"
	dpdk=", $r rows with DPDK ratios"
fi
for p in bench-csum bench-gso; do
	[ -s "$T/$p.png" ] || fail "$p.png not drawn: $(grep bench-plot "$T/run.log")"
	[ "$(head -c 4 "$T/$p.png" | od -An -c | tr -d ' ')" = "211PNG" ] || fail "$p.png is not a PNG"
done
for p in gro_flows gro_segs; do
	has=$(jq --arg s "$p" '[.rows[] | select(.section == $s)] | length' "$J")
	if [ "$has" = 0 ]; then
		grep -q "no $p rows" "$T/run.log" || fail "no $p rows, and the plot step did not say so"
	else
		[ -s "$T/bench-${p#gro_}.png" ] || [ -s "$T/bench-gro-${p#gro_}.png" ] ||
			fail "$p rows present but their plot not drawn"
	fi
done
echo "summary:$ran ran once (1 repetition, scale 0.02) in ${secs} s; $(jq '.rows | length' "$J") rows in results.json$dpdk; plots drawn"
