#!/bin/sh
# The relay experiment of docs/relay.md, measured: one TCP stream (iperf3
# -t T) from namespace A to namespace B over a veth whose sending side has
# no TSO/GSO/checksum offload and whose receiving side has no GRO, in three
# set-ups run one after the other in each round:
#   kernel  the kernel's own GRO on the veth (B's address on it): the reference
#   on      softoffload relay afpacket:VETH tap:TAP (ring, GRO, GSO)
#   off     the same relay with --offload off (one frame per system call)
# Prints Gbit/s, retransmissions, how busy the host's CPUs were during the
# transfer (all processes, ours and anyone else's), the relay's CPU seconds
# per GB moved and its frames per ring read and per TAP write.
#   sudo BUILD=build scripts/bench-relay.sh [ROUNDS] [SECONDS] [relay options...]
# Environment: TXCSUM=1 leaves A's transmit checksum offload on (frames with
# partial checksums); NICE=-15 runs the measured processes at that nice level
# (default 0); MODES="kernel on off" (the default) lists the set-ups of a
# round, where on@OPT,OPT... is a relay with offloads and those options too
# (e.g. on@--busy-poll=50), so variants are compared in the same run;
# PERF=PREFIX records the relay of each --offload on run with perf record
# $PERF_ARGS (default -g) into PREFIX.MODE.N (N: the round).  Namespaces and devices are named after this script's PID,
# addresses are 198.18.5.0/24; everything is removed at exit, and only the
# processes started here are killed.
set -u
BUILD=${BUILD:-build}
CLI=$(cd "$(dirname "$0")/.." && pwd)/$BUILD/softoffload
ROUNDS=${1:-3}
T=${2:-5}
[ $# -ge 2 ] && shift 2 || shift $#
EXTRA="$*"
NICE=${NICE:-0}
P=$$
A=sobra$P B=sobrb$P VA=sobva$P VB=sobvb$P TP=sobt$P
OUT=$(mktemp -d /tmp/bench-relay.XXXXXX)
RP=""

[ "$(id -u)" = 0 ] || { echo "bench-relay.sh: needs root" >&2; exit 2; }
[ -x "$CLI" ] || { echo "bench-relay.sh: $CLI missing (make BUILD=$BUILD cli)" >&2; exit 2; }
for t in iperf3 ethtool jq; do
	command -v $t >/dev/null 2>&1 || { echo "bench-relay.sh: $t not installed" >&2; exit 2; }
done

down() {
	[ -n "$RP" ] && kill "$RP" 2>/dev/null && wait "$RP" 2>/dev/null
	RP=""
	ip netns del "$A" 2>/dev/null
	ip netns del "$B" 2>/dev/null
}
trap 'down; rm -rf "$OUT"' EXIT
trap 'exit 1' INT TERM

up() {
	ip netns add "$A" && ip netns add "$B" || exit 2
	ip link add "$VA" netns "$A" type veth peer name "$VB" netns "$B" || exit 2
	ip -n "$A" link set lo up
	ip -n "$B" link set lo up
	ip netns exec "$A" ethtool -K "$VA" tso off gso off gro off tx off >/dev/null 2>&1
	[ -n "${TXCSUM:-}" ] && ip netns exec "$A" ethtool -K "$VA" tx on >/dev/null 2>&1
	ip netns exec "$B" ethtool -K "$VB" tso off gso off gro off tx off >/dev/null 2>&1
	ip -n "$A" addr add 198.18.5.1/24 dev "$VA"
	ip -n "$A" link set "$VA" up
	ip -n "$B" link set "$VB" up
}

# run MODE: one measurement; prints one line
run() {
	up
	mode=${1%%@*}
	mopt=""
	case $1 in *@*) mopt=$(echo "${1#*@}" | tr , ' ') ;; esac
	if [ "$1" = kernel ]; then
		ip netns exec "$B" ethtool -K "$VB" gro on >/dev/null 2>&1
		ip -n "$B" addr add 198.18.5.2/24 dev "$VB"
	else
		ip netns exec "$B" sysctl -qw "net.ipv6.conf.$VB.disable_ipv6=1"
		ip -n "$B" link set "$VB" arp off
		nice -n "$NICE" ip netns exec "$B" "$CLI" relay "afpacket:$VB" "tap:$TP" \
			--offload "$mode" --json $EXTRA $mopt > "$OUT/relay.json" 2> "$OUT/relay.err" &
		RP=$!
		for i in $(seq 50); do ip -n "$B" link show "$TP" >/dev/null 2>&1 && break; sleep 0.1; done
		ip -n "$B" addr add 198.18.5.2/24 dev "$TP"
		ip -n "$B" link set "$TP" up
	fi
	nice -n "$NICE" ip netns exec "$B" iperf3 -s -1 -p 5201 -B 198.18.5.2 >/dev/null 2>&1 &
	sp=$!
	sleep 0.3
	pp=""
	if [ -n "${PERF:-}" ] && [ "$mode" = on ] && [ -n "$RP" ]; then
		perf record -q ${PERF_ARGS:--g} -o "$PERF.$1.$r" -p "$(pgrep -P "$RP" softoffload || echo "$RP")" \
			-- sleep "$T" >/dev/null 2>&1 &
		pp=$!
	fi
	s0=$(head -n 1 /proc/stat)
	timeout $((T + 15)) nice -n "$NICE" ip netns exec "$A" iperf3 -c 198.18.5.2 -p 5201 \
		-t "$T" -J > "$OUT/iperf.json" 2>/dev/null
	s1=$(head -n 1 /proc/stat)
	wait "$sp"
	[ -n "$pp" ] && wait "$pp"
	cpu=0
	extra=""
	if [ -n "$RP" ]; then
		pid=$(pgrep -P "$RP" softoffload || echo "$RP")
		cpu=$(awk '{print ($14 + $15) / 100}' "/proc/$pid/stat" 2>/dev/null || echo 0)
		kill -INT "$RP"
		wait "$RP"
		RP=""
		# frames per ring read and per TAP write, from the final counters
		extra=$(tail -n 1 "$OUT/relay.json" | jq -r '.ports as $p |
			"\(($p[0].rx_pkts / ([$p[0].rx_calls, 1] | max)) | floor) frames/read, \(($p[0].rx_pkts / ([$p[1].tx_calls, 1] | max)) | floor) frames/write"' 2>/dev/null)
	fi
	if v=$(jq -r '.end | "\(.sum_received.bits_per_second) \(.sum_sent.retransmits) \(.sum_received.bytes)"' \
	    "$OUT/iperf.json" 2>/dev/null) && [ -n "$v" ]; then
		busy=$(echo "$s0 $s1" | awk '{ n = (NF - 2) / 2; t = 0; i = 0
			for (k = 2; k <= n + 1; k++) { d = $(k + n + 1) - $k; t += d; if (k == 5 || k == 6) i += d }
			printf "%.0f", (t > 0 ? 100 * (t - i) / t : 0) }')
		echo "$1 $cpu $v" | awk -v x="$extra" -v b="$busy" '{ per = ($2 > 0 && $5 > 0) ? sprintf(" relay %.2f CPU-s/GB", $2 / ($5 / 1e9)) : ""
			printf "%-9s %6.2f Gbit/s  %6d retransmits  host %3d%% busy%s%s\n", $1, $3 / 1e9, $4, b, per, x == "" ? "" : ", " x }'
	else
		printf "%-9s iperf3 failed\n" "$1"
	fi
	ip netns del "$A"
	ip netns del "$B"
}

echo "bench-relay: $ROUNDS rounds of ${T}s; $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
r=1
while [ $r -le "$ROUNDS" ]; do
	echo "round $r"
	for m in ${MODES:-kernel on off}; do
		run $m
	done
	r=$((r + 1))
done
