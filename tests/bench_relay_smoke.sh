#!/bin/sh
# tests/bench_relay_smoke.sh: scripts/bench-relay.sh runs and says what
# docs/relay.md quotes from it — never how fast anything is.  One round of
# 1 s with MODES="kernel on@--gro-flush-timeout=0,--busy-poll=10":
#   - one line per set-up, in order, each with its Gbit/s and the host's
#     busy share ("host N% busy");
#   - the relay's line (a set-up with options, on@...) carries its CPU-s per
#     GB and its frames per ring read and per TAP write, so the options
#     reached the relay (a relay that refused them would end the run with
#     "iperf3 failed") and its final counters were read;
#   - with perf installed, PERF=PREFIX leaves a perf.data of the relay run
#     (PREFIX.on@....1) and none of the kernel run.
# Needs root, iperf3, ethtool and jq (exit 77 with the reason otherwise).
set -u
BUILD=${BUILD:-build}
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "$*" >&2; exit 77; }

[ "$(id -u)" = 0 ] || skip "needs root (network namespaces)"
for t in iperf3 ethtool jq; do
	command -v "$t" >/dev/null 2>&1 || skip "$t not installed"
done
[ -x "$BUILD/softoffload" ] || fail "$BUILD/softoffload not built"
D=$(mktemp -d /tmp/bench-relay-smoke.XXXXXX)
trap 'rm -rf "$D"' EXIT
M="on@--gro-flush-timeout=0,--busy-poll=10"
P=""
command -v perf >/dev/null 2>&1 && P="$D/perf"
env BUILD="$BUILD" MODES="kernel $M" PERF="$P" sh scripts/bench-relay.sh 1 1 > "$D/out" 2>&1 ||
	{ cat "$D/out" >&2; fail "bench-relay.sh exited $?"; }
cat "$D/out"
grep -q '^round 1$' "$D/out" || fail "no round line"
k=$(grep -n '^kernel ' "$D/out" | cut -d: -f1)
r=$(grep -n "^$M " "$D/out" | cut -d: -f1)
[ -n "$k" ] && [ -n "$r" ] && [ "$k" -lt "$r" ] || fail "expected a kernel line, then an '$M' line"
grep "^kernel " "$D/out" | grep -Eq ' [0-9]+\.[0-9]+ Gbit/s .* host +[0-9]+% busy$' ||
	fail "kernel line: Gbit/s and host busy share expected"
grep "^$M " "$D/out" | grep -Eq ' [0-9]+\.[0-9]+ Gbit/s .* host +[0-9]+% busy relay [0-9.]+ CPU-s/GB, [0-9]+ frames/read, [0-9]+ frames/write$' ||
	fail "relay line: Gbit/s, host busy, CPU-s/GB, frames per read and per write expected"
if [ -n "$P" ]; then
	[ -s "$P.$M.1" ] || fail "PERF: no recording of the relay run ($P.$M.1)"
	[ -e "$P.kernel.1" ] && fail "PERF: the kernel run has no relay to record"
fi
echo "bench_relay_smoke: ok"
