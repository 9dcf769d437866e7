#!/bin/sh
# tests/demo.sh: make demo works — a short run of scripts/demo.sh (one run
# of 2 s per row, two UDP payload sizes) into a temp dir, then its
# results.json is checked: every experiment and row present without error,
# throughput, bytes and CPU figures positive, the offload counters of every
# --offload on row non-zero (super-packets formed on both hosts, software
# checksums done), the UDP rows' receiver got bytes (software USO's
# checksums were accepted), the PNGs written; and the demo left no
# namespace or process behind, also when stopped by SIGTERM mid-run.  It
# checks that the demo works, not how fast.  Root (network namespaces).
set -u
BUILD=${BUILD:-build}
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "$*" >&2; exit 77; }

[ "$(id -u)" = 0 ] || skip "needs root (the demo creates network namespaces)"
for t in jq iperf3 ethtool gnuplot; do
	command -v "$t" >/dev/null 2>&1 || skip "$t not installed (scripts/deps.sh check installs it)"
done
[ -x "$BUILD/softoffload" ] && [ -x "$BUILD/bench/bench_udpgso" ] ||
	fail "$BUILD/softoffload and $BUILD/bench/bench_udpgso must be built (make all)"

# the demo's own knobs come from this test only
unset DEMO_STEPS DEMO_LONG DEMO_RUNS DEMO_SECS DEMO_RSS_SECS DEMO_UDP_SECS DEMO_UDP_SIZES \
	DEMO_TUNNEL_MODES_4 DEMO_TUNNEL_MODES_6 DEMO_VXLAN_FAMILIES DEMO_OUT DEMO_KEEP
T=$(mktemp -d /tmp/sofl-demo-test.XXXXXX)
trap 'rm -rf "$T"' EXIT

# ---- the short demo ----
DEMO_RUNS=1 DEMO_SECS=2 DEMO_UDP_SECS=0.2 DEMO_UDP_SIZES="1472 61824" DEMO_KEEP=1 \
	DEMO_OUT="$T/out" BUILD="$BUILD" sh scripts/demo.sh >"$T/demo.log" 2>&1 &
pid=$!
wait $pid
rc=$?
[ $rc -eq 0 ] || { tail -n 30 "$T/demo.log"; fail "demo exit $rc"; }
work=$(sed -n 's/^demo: work files kept in //p' "$T/demo.log")
ip netns list | grep -q -- "-$pid\b" && fail "namespaces of demo $pid left behind"
if [ -n "$work" ] && [ -f "$work/pids" ]; then
	while read -r p st; do
		[ "$(sed 's/^.*) //' "/proc/$p/stat" 2>/dev/null | awk '{ print $20 }')" = "$st" ] &&
			fail "process $p started by the demo still runs"
	done <"$work/pids"
	[ -s "$work/pids" ] || fail "the demo recorded no process"
	rm -rf "$work"
else
	fail "the demo did not keep its work directory (DEMO_KEEP=1)"
fi
grep -n "step failed" "$T/demo.log" && fail "a step failed (see above)"

J=$T/out/results.json
[ -s "$J" ] || fail "no results.json"
jq -e '.machine | (.cpu | length > 0) and .cores > 0 and (.kernel | length > 0) and (.date | length > 0)' \
	"$J" >/dev/null || fail "machine fields missing"

# check NAME MODE FAMILY [QUEUES] : that row exists, without error
check_row() {
	jq -e --arg n "$1" --arg m "$2" --argjson f "$3" --argjson q "${4:-0}" '
		[.experiments[] | select(.name == $n and .mode == $m and .family == $f and
			($q == 0 or .queues == $q))] | length == 1 and (.[0].error == null)' "$J" >/dev/null ||
		fail "row $1 $2 IPv$3${4:+ queues $4}: missing, twice or failed: $(jq -c --arg n "$1" --arg m "$2" \
			'[.experiments[] | select(.name == $n and .mode == $m) | .error]' "$J")"
}
for m in off gso gro on kernel-vxlan; do check_row tunnel $m 4; done
for m in off on; do check_row tunnel $m 6; done
for m in off on kernel-gro; do check_row relay $m 4; done
check_row rss on 4 1
check_row rss on 4 2
for m in off on; do check_row csum $m 4; check_row csum $m 6; done
for m in on off plain kernel-vxlan; do check_row small-packets $m 4; done
for m in off plain; do check_row tunnel-baseline $m 4; done
bad=$(jq -c '[.experiments[] | select(.name == "small-packets") |
	select((.pps > 0 and .sent >= .delivered and .delivered > 0 and .secs > 0) | not) | .mode]' "$J")
[ "$bad" = "[]" ] || fail "small-packets rows without packets delivered: $bad"
for m in aes-256-gcm aes-256-gcm-openssl chacha20-poly1305 chacha20-poly1305-openssl wireguard-go; do
	check_row vpn $m 4
done
for m in single sendmmsg udpseg uso; do
	n=$(jq --arg m "$m" '[.experiments[] | select(.name == "udp-segmentation" and .mode == $m and .error == null)] | length' "$J")
	[ "$n" = 2 ] || fail "udp-segmentation $m: $n rows, expected 2"
done

# every throughput row: positive figures
bad=$(jq -c '[.experiments[] | select(.gbps) |
	select((.gbps.min > 0 and .gbps.avg >= .gbps.min and .gbps.max >= .gbps.avg and .gbps.stddev >= 0 and
		.bytes > 0 and (.runs | length) >= 1 and (.runs | all(. > 0)) and .retransmits >= 0 and
		.cpu_s_per_gb.machine > 0 and
		((.cpu_s_per_gb.user == null and .cpu_s_per_gb.sys == null and (.mode | test("^kernel"))) or
		 (.cpu_s_per_gb.user + .cpu_s_per_gb.sys > 0))) | not) | [.name, .mode, .family]]' "$J")
[ "$bad" = "[]" ] || fail "rows with non-positive figures: $bad"

# offload counters of every "on" row: super-packets on both hosts, checksums done
bad=$(jq -c 'def supers: [paths(numbers) as $p | select($p | map(tostring) | join(".") | test("super")) | getpath($p)] | add // 0;
	[.experiments[] | select(.mode == "on" and (.name == "tunnel" or .name == "rss")) |
	 select((.counters.a | supers) > 0 and (.counters.b | supers) > 0 and
		([.counters.a | paths(numbers) as $p | select($p | map(tostring) | join(".") | test("csum_sw$")) |
		  getpath($p)] | add // 0) > 0 | not) | [.name, .family, .queues]] +
	[.experiments[] | select(.name == "relay" and .mode == "on") | select((.counters.relay | supers) > 0 | not) | ["relay"]]' "$J")
[ "$bad" = "[]" ] || fail "offload counters zero for: $bad"
bad=$(jq -c 'def supers: [paths(numbers) as $p | select($p | map(tostring) | join(".") | test("super")) | getpath($p)] | add // 0;
	[.experiments[] | select(.mode == "off" and (.name == "tunnel" or .name == "tunnel-baseline")) | select((.counters.a | supers) + (.counters.b | supers) > 0) | .family]' "$J")
[ "$bad" = "[]" ] || fail "super-packets counted with --offload off: IPv$bad"

# UDP rows: udpgso_bench_tx's columns positive, the receiver got the bytes
bad=$(jq -c '[.experiments[] | select(.name == "udp-segmentation") |
	select((.mb_s > 0 and .calls_s > 0 and .msg_s > 0 and .cpu > 0 and .mb2cpu > 0 and .rx_bytes > 0) | not) |
	[.mode, .payload]]' "$J")
[ "$bad" = "[]" ] || fail "UDP rows without traffic: $bad"

for p in tunnel relay rss udp-segmentation; do
	f=$T/out/$p.png
	[ -s "$f" ] && [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = "211PNG" ] || fail "$p.png not written"
done
for h in "== 1. throughput" "== 1b. relay" "== 2. UDP segmentation" "== 3. RSS" "== 4. checksum" "== 5. the capture" "== 6. VPN" "== small packets" "== the baseline"; do
	grep -q "^$h" "$T/demo.log" || fail "no table \"$h\" on stdout"
done
grep -q "offload on / off: IPv4 [0-9.]*x" "$T/demo.log" || fail "no on/off ratio"
grep -q "softoffload gro --stats: [0-9]* packets in" "$T/demo.log" || fail "capture walk-through incomplete"

# ---- SIGTERM mid-run: the trap removes everything ----
DEMO_STEPS=tunnel DEMO_RUNS=1 DEMO_SECS=30 DEMO_KEEP=1 DEMO_OUT="$T/out2" BUILD="$BUILD" \
	sh scripts/demo.sh >"$T/demo2.log" 2>&1 &
pid=$!
i=0
until grep -q "tunnel --offload" "$T/demo2.log" 2>/dev/null || [ $i -gt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 2
kill -TERM $pid
i=0
while kill -0 $pid 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -0 $pid 2>/dev/null && { kill -KILL $pid; fail "the demo did not exit within 10 s of SIGTERM"; }
wait $pid
ip netns list | grep -q -- "-$pid\b" && fail "SIGTERM: namespaces of demo $pid left behind"
work=$(sed -n 's/^demo: work files kept in //p' "$T/demo2.log")
[ -n "$work" ] && [ -s "$work/pids" ] || fail "SIGTERM: no record of the demo's processes"
while read -r p st; do
	[ "$(sed 's/^.*) //' "/proc/$p/stat" 2>/dev/null | awk '{ print $20 }')" = "$st" ] &&
		fail "SIGTERM: process $p started by the demo still runs"
done <"$work/pids"
rm -rf "$work"

echo "summary: $(jq '.experiments | length' "$J") rows, tunnel on/off IPv4 $(sed -n 's/.*offload on \/ off: IPv4 \([0-9.]*x\).*/\1/p' "$T/demo.log") (2 s runs), demo $(sed -n 's/^demo: \([0-9]*\) s .*/\1/p' "$T/demo.log") s, SIGTERM cleanup ok"
exit 0
