#!/bin/sh
# tests/bench_smoke.sh: the benchmarks build and run, and make bench's
# collection works — every $BUILD/bench/bench_* once through
# scripts/run-bench.sh with one repetition and a tiny count
# (SOFL_BENCH_REPS=1, SOFL_BENCH_SCALE=0.02), into a temp dir.  It checks
# that the benchmarks work, never how fast they are:
#   - every benchmark exits 0 (their own correctness checks included) and
#     prints result lines;
#   - results.json (checked with python3) is valid JSON with one object per
#     result line, each with a string name and unit and numbers median, min,
#     max (0 < median, min <= median <= max); a row named "<series>@<x>"
#     carries series and x; a "dpdk" list has name, median and ratio within
#     ratio_min..ratio_max for every entry;
#   - the sweeps are complete: checksum (11 lengths), GSO (7 sizes), GRO
#     against active flows (bench_gro: both tables at 1..65536 flows) and
#     against segments per super-packet (3 series at 1..32);
#   - bench_vs_dpdk (built by make all where pkg-config finds libdpdk):
#     it ran, 20 or more of its softoffload rows carry a DPDK ratio, and its
#     flows sweep has DPDK at 1..32768 flows with both tables compared to
#     it; the VXLAN rows (GRO one flow and 1..32 flows interleaved against
#     gro_vxlan_tcp4, GSO of the 64 KB super-packet and its size sweep
#     against gso_tunnel_tcp4) are there with their DPDK ratios and their
#     two plots are drawn.  Without libdpdk (CI's machine may not have it) that part is left
#     out, and the summary line says so;
#   - the four plots are PNG files.
set -u
BUILD=${BUILD:-build}
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "$*" >&2; exit 77; }

for t in python3 gnuplot; do
	command -v "$t" >/dev/null 2>&1 || skip "$t not installed (scripts/deps.sh check installs it)"
done
n=0
for b in "$BUILD"/bench/bench_*; do
	[ -x "$b" ] && [ -f "$b" ] && n=$((n + 1))
done
[ "$n" -ge 4 ] || fail "$BUILD/bench/bench_* not built (make all builds them)"
if pkg-config --exists libdpdk 2>/dev/null; then
	[ -x "$BUILD/bench/bench_vs_dpdk" ] ||
		fail "libdpdk is installed but $BUILD/bench/bench_vs_dpdk is not built (make all builds it)"
	dpdk=1
else
	dpdk=0
fi

T=$(mktemp -d /tmp/sofl-bench-smoke.XXXXXX)
trap 'rm -rf "$T"' EXIT
start=$(date +%s)
SOFL_BENCH_REPS=1 SOFL_BENCH_SCALE=0.02 OUT="$T" BUILD="$BUILD" sh scripts/run-bench.sh \
	>"$T/run.log" 2>&1 || { tail -n 30 "$T/run.log"; fail "scripts/run-bench.sh failed"; }
secs=$(($(date +%s) - start))

# result lines per benchmark (ratio lines are folded into the rows' "dpdk")
for f in "$T"/bench_*.txt; do
	b=$(basename "$f" .txt)
	printf '%s %s %s\n' "$b" "$(grep -c '^CSV,' "$f")" "$(grep -c '^CSV,ratio,' "$f")"
done >"$T/lines"

python3 - "$T/results.json" "$T/lines" "$dpdk" >"$T/check.log" 2>&1 <<'EOF' ||
import json, re, sys

path, lines, dpdk = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
errs = []
def bad(msg):
	errs.append(msg)
def num(v):
	return isinstance(v, (int, float)) and not isinstance(v, bool)

try:
	j = json.load(open(path))
except ValueError as e:
	print("results.json is not valid JSON: %s" % e)
	sys.exit(1)
for k in ("date", "commit", "cpu", "load", "rows"):
	if k not in j:
		bad("results.json has no %r" % k)
rows = j.get("rows", [])
for r in rows:
	tag = "%s %s" % (r.get("bench"), r.get("name"))
	if not isinstance(r.get("name"), str) or not isinstance(r.get("unit"), str):
		bad("%s: name and unit must be strings" % tag)
	if not all(num(r.get(k)) for k in ("median", "min", "max")):
		bad("%s: median, min, max must be numbers: %r" % (tag, r))
		continue
	if not (r["median"] > 0 and r["min"] <= r["median"] <= r["max"]):
		bad("%s: median %g not positive within min %g .. max %g" %
		    (tag, r["median"], r["min"], r["max"]))
	m = re.search(r"@([0-9]+)$", r["name"])
	if m and (r.get("series") != r["name"][:m.start()] or r.get("x") != int(m.group(1))):
		bad("%s: a sweep row without its series and x" % tag)
	for d in r.get("dpdk", []):
		if not (isinstance(d.get("name"), str) and num(d.get("median")) and
			all(num(d.get(k)) for k in ("ratio", "ratio_min", "ratio_max"))):
			bad("%s: DPDK entry without name, median or ratio: %r" % (tag, d))
		elif not d["ratio_min"] <= d["ratio"] <= d["ratio_max"]:
			bad("%s: DPDK ratio %g outside %g..%g" %
			    (tag, d["ratio"], d["ratio_min"], d["ratio_max"]))
ran = {}
for ln in open(lines):
	b, n, nr = ln.split()
	ran[b] = int(n) - int(nr)
	if int(n) == 0:
		bad("%s printed no result line" % b)
	got = sum(1 for r in rows if r.get("bench") == b)
	if got != ran[b]:
		bad("%s: %d result lines (besides %s ratios), %d rows in results.json" %
		    (b, ran[b], nr, got))
for b in ("bench_csum", "bench_gso", "bench_rss", "bench_gro") + (("bench_vs_dpdk",) if dpdk else ()):
	if b not in ran:
		bad("%s did not run" % b)

def xs(bench, sec, series=None):
	return sorted({r["x"] for r in rows if r.get("section") == sec and "x" in r and
		       (bench is None or r.get("bench") == bench) and
		       (series is None or r.get("series") == series)})
if len(xs(None, "csum_sweep")) < 11:
	bad("checksum sweep: %d lengths, 11 expected" % len(xs(None, "csum_sweep")))
if len(xs(None, "gso_sweep")) < 7:
	bad("GSO sweep: %d sizes, 7 expected" % len(xs(None, "gso_sweep")))
flows = [1 << i for i in range(17)]
segs = [1 << i for i in range(6)]
for s in ("sofl_linux_hash", "sofl_lru"):
	if xs("bench_gro", "gro_flows", s) != flows:
		bad("bench_gro flows sweep, %s: x = %s" % (s, xs("bench_gro", "gro_flows", s)))
for s in ("sofl_linux_hash_verified", "sofl_lru_verified", "sofl_linux_hash_swcsum"):
	if xs("bench_gro", "gro_segs", s) != segs:
		bad("bench_gro segments sweep, %s: x = %s" % (s, xs("bench_gro", "gro_segs", s)))
if any(r.get("unit") != "ns" or r.get("metric") != "ns_per_pkt" for r in rows
       if r.get("section") in ("gro_flows", "gro_segs")):
	bad("GRO sweep rows must be ns_per_pkt in ns")
nd = 0
if dpdk:
	v = [r for r in rows if r.get("bench") == "bench_vs_dpdk"]
	nd = sum(1 for r in v if r["name"].startswith("sofl_") and r.get("dpdk"))
	if nd < 20:
		bad("only %d softoffload rows of bench_vs_dpdk carry a DPDK ratio" % nd)
	if xs("bench_vs_dpdk", "gro_flows", "dpdk_rte_gro") != flows[:16]:
		bad("bench_vs_dpdk flows sweep: DPDK at %s" % xs("bench_vs_dpdk", "gro_flows", "dpdk_rte_gro"))
	for s in ("sofl_linux_hash", "sofl_lru"):
		cmp = sorted(r["x"] for r in v if r.get("series") == s and r.get("section") == "gro_flows"
			     and any(d["name"] == "dpdk_rte_gro@%d" % r["x"] for d in r.get("dpdk", [])))
		if cmp != flows[:16]:
			bad("bench_vs_dpdk flows sweep: %s compared with DPDK at %s" % (s, cmp))
	# VXLAN TCP/IPv4 against gro_vxlan_tcp4 / gso_tunnel_tcp4
	for name in ("sofl_VX1_vxlan_1flow_inorder_preverified",
		     "sofl_vxlan_tcp4_64308B_mss1398_zerocopy_partial",
		     "sofl_vxlan_tcp4_64308B_mss1398_zerocopy_fullcsum"):
		if not any(r["name"] == name and r.get("dpdk") for r in v):
			bad("bench_vs_dpdk: no VXLAN row %s with a DPDK ratio" % name)
	vxf = [1 << i for i in range(6)]
	for s in ("sofl_linux_hash", "sofl_lru"):
		cmp = sorted(r["x"] for r in v if r.get("series") == s and r.get("section") == "gro_vxlan_flows"
			     and any(d["name"] == "dpdk_rte_gro_vxlan@%d" % r["x"] for d in r.get("dpdk", [])))
		if cmp != vxf:
			bad("bench_vs_dpdk VXLAN GRO flows: %s compared with DPDK at %s" % (s, cmp))
	if len(xs("bench_vs_dpdk", "gso_vxlan_sweep", "sofl_vxlan_zerocopy_partial")) != 6:
		bad("bench_vs_dpdk VXLAN GSO sweep: %s" % xs("bench_vs_dpdk", "gso_vxlan_sweep"))
for e in errs[:20]:
	print(e)
if errs:
	sys.exit(1)
print("%d rows%s" % (len(rows), ", %d softoffload rows with DPDK ratios" % nd if dpdk else ""))
EOF
	{ cat "$T/check.log"; fail "results.json"; }

for p in bench-csum bench-gso bench-gro-flows bench-gro-segs; do
	[ -s "$T/$p.png" ] || fail "$p.png not drawn: $(grep bench-plot "$T/run.log")"
	[ "$(head -c 4 "$T/$p.png" | od -An -c | tr -d ' ')" = "211PNG" ] || fail "$p.png is not a PNG"
done
if [ "$dpdk" = 1 ]; then
	for p in bench-vxlan-gro bench-vxlan-gso; do
		[ -s "$T/$p.png" ] || fail "$p.png not drawn: $(grep bench-plot "$T/run.log")"
		[ "$(head -c 4 "$T/$p.png" | od -An -c | tr -d ' ')" = "211PNG" ] || fail "$p.png is not a PNG"
	done
	note="bench_vs_dpdk included, 2 VXLAN plots drawn"
else
	note="libdpdk not installed: bench_vs_dpdk not built, its DPDK rows not checked"
fi
echo "summary: $(cut -d' ' -f1 "$T/lines" | tr '\n' ' ')ran once (1 repetition, scale 0.02) in ${secs} s; $(tail -n 1 "$T/check.log"); 4 plots drawn; $note"
