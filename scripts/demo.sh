#!/bin/sh
# make demo: the before/after of a software offload on a real TCP stream.
#
# Two network namespaces joined by a veth pair (198.18.0.0/30, 2001:2::/64).
# GRO, GSO and TSO are switched off on both ends, so the wire carries
# MSS-sized segments, as from a NIC without LRO/TSO.  iperf3 runs for a
# bounded time while tcpdump captures the receiver's side; then the
# softoffload CLI reads the capture:
#   csum            what the checksums look like (partial: left for a NIC),
#   csum --fix      completing them in software ("N segments software-checksummed"),
#   gro --stats     N segments in -> M super-packets out (when the gro command exists),
#   rss --queues 4  how the flows spread over 4 queues (when the rss command exists).
# Everything it creates is removed on exit; it kills only the PIDs it started.
#
# Environment: BUILD (build dir, default build), DEMO_TIME (iperf3 seconds,
# default 3), DEMO_RATE (iperf3 -b per stream, 4 streams, default 25M), DEMO_KEEP=1 keeps the capture.
set -u
BUILD=${BUILD:-build}
CLI=$BUILD/softoffload
T=${DEMO_TIME:-3}
RATE=${DEMO_RATE:-25M}
STREAMS=4
NSA=sofl-demo-a-$$
NSB=sofl-demo-b-$$
WORK=$(mktemp -d /tmp/sofl-demo.XXXXXX)
CAP=$WORK/rx.pcap
pids=""

say() { printf '%s\n' "$*"; }
die() { say "demo: $*" >&2; exit 1; }

cleanup() {
	for p in $pids; do
		kill "$p" 2>/dev/null
	done
	for p in $pids; do
		wait "$p" 2>/dev/null
	done
	ip netns del "$NSA" 2>/dev/null
	ip netns del "$NSB" 2>/dev/null
	if [ "${DEMO_KEEP:-0}" = 1 ]; then
		say "capture kept in $WORK"
	else
		rm -rf "$WORK"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

[ "$(id -u)" = 0 ] || die "needs root (it creates network namespaces); try: sudo make demo"
[ -x "$CLI" ] || die "$CLI not built (make BUILD=$BUILD all)"
for t in ip iperf3 tcpdump ethtool; do
	command -v "$t" >/dev/null 2>&1 || die "$t not installed (make deps-demo installs it)"
done
has_cmd() { "$CLI" --help 2>/dev/null | grep -q "^  $1 "; }

# ---- the two hosts ----
ip netns add "$NSA" || die "ip netns add failed"
ip netns add "$NSB" || die "ip netns add failed"
ip link add va netns "$NSA" type veth peer name vb netns "$NSB" || die "veth failed"
A() { ip netns exec "$NSA" "$@"; }
B() { ip netns exec "$NSB" "$@"; }
A ip link set lo up
B ip link set lo up
A ip addr add 198.18.0.1/30 dev va
B ip addr add 198.18.0.2/30 dev vb
A ip -6 addr add 2001:2::1/64 dev va nodad
B ip -6 addr add 2001:2::2/64 dev vb nodad
# no offloads: MSS-sized segments on the wire, no coalescing on receive
A ethtool -K va tso off gso off gro off >/dev/null 2>&1
B ethtool -K vb tso off gso off gro off >/dev/null 2>&1
A ip link set va up
B ip link set vb up

# ---- traffic, captured on the receiver ----
# started without the A/B functions, so that $! is the process itself
# (ip netns exec execs it) and not a subshell that ignores signals
ip netns exec "$NSB" iperf3 -s -1 -B 198.18.0.2 >"$WORK/iperf3-server.log" 2>&1 &
pids="$pids $!"
ip netns exec "$NSB" tcpdump -i vb -n -s 0 -U -w "$CAP" tcp port 5201 >"$WORK/tcpdump.log" 2>&1 &
tcpdump_pid=$!
pids="$pids $tcpdump_pid"
i=0
while ! B ss -ltn 2>/dev/null | grep -q '198.18.0.2:5201'; do
	i=$((i + 1))
	[ $i -lt 50 ] || die "iperf3 server did not start"
	sleep 0.1
done
sleep 0.5	# tcpdump attaches
say "== iperf3 -t $T -P $STREAMS -b $RATE (per stream), 198.18.0.1 -> 198.18.0.2 over veth (TSO/GSO/GRO off)"
A iperf3 -c 198.18.0.2 -t "$T" -b "$RATE" -P "$STREAMS" -f m >"$WORK/iperf3.log" 2>&1 ||
	die "iperf3 failed: $(tail -n 1 "$WORK/iperf3.log")"
grep -E 'SUM.*receiver$' "$WORK/iperf3.log" | sed 's/^/   /'
sleep 0.5
kill -TERM "$tcpdump_pid" 2>/dev/null
wait "$tcpdump_pid" 2>/dev/null
[ -s "$CAP" ] || die "empty capture"
say "   tcpdump: $(grep -Eo "[0-9]+ packets captured" "$WORK/tcpdump.log" | head -1), $(du -h "$CAP" | cut -f1)B"

# ---- what the softoffload CLI makes of it ----
say ""
say "== softoffload csum (a capture where the sender left checksums to the 'NIC')"
"$CLI" csum "$CAP" >"$WORK/csum.txt" 2>&1
rc=$?
sed 's/^/   /' "$WORK/csum.txt"
say "   exit status $rc (0: nothing bad; partial checksums are not errors)"

say ""
say "== softoffload csum --fix (complete them in software, as a NIC would)"
"$CLI" csum "$CAP" --fix -o "$WORK/fixed.pcap" >"$WORK/fix.txt" 2>&1
grep -E 'software-checksummed|records written' "$WORK/fix.txt" | sed 's/^/   /'
"$CLI" csum "$WORK/fixed.pcap" >"$WORK/after.txt" 2>&1
say "   after: $(awk '/^tcp:/{t=1} t&&/with a valid checksum/{print $1; exit}' "$WORK/after.txt") TCP segments valid," \
	"$(awk '/^tcp:/{t=1} t&&/partial/{print $1; exit}' "$WORK/after.txt") partial," \
	"$(awk '/^tcp:/{t=1} t&&/bad checksum/{print $1; exit}' "$WORK/after.txt") bad"

gro_line="(no gro command in this build)"
if has_cmd gro; then
	say ""
	say "== softoffload gro --stats (software LRO on the same segments)"
	if "$CLI" gro "$WORK/fixed.pcap" -o "$WORK/gro.pcap" --stats >"$WORK/gro.txt" 2>&1; then
		sed 's/^/   /' "$WORK/gro.txt"
		gin=$(awk '/^packets in/{print $3}' "$WORK/gro.txt")
		gout=$(awk '/^packets out/{print $3}' "$WORK/gro.txt")
		gsup=$(awk '/^super-packets/{print $2}' "$WORK/gro.txt")
		gseg=$(awk '/^segments merged/{print $3}' "$WORK/gro.txt")
		gro_line="$gin packets in -> $gout out: $gsup super-packets carry $gseg segments (the rest, mostly pure ACKs, pass through)"
	else
		sed 's/^/   /' "$WORK/gro.txt"
		gro_line="(gro --stats failed, see above)"
	fi
fi

rss_line="(no rss command in this build)"
if has_cmd rss; then
	say ""
	say "== softoffload rss --queues 4 (Toeplitz spread of the flows)"
	if "$CLI" rss "$CAP" --queues 4 >"$WORK/rss.txt" 2>&1; then
		sed 's/^/   /' "$WORK/rss.txt"
		rss_line="packets per queue $(awk -F'\t' '$1 ~ /^[0-9]+$/ {printf "%s%s", sep, $2; sep="/"}' "$WORK/rss.txt"), $(awk -F'\t' '$1 == "total" {print $3}' "$WORK/rss.txt") flows"
	else
		sed 's/^/   /' "$WORK/rss.txt"
		rss_line="(rss failed, see above)"
	fi
fi

recs=$(sed -n 's/^.*: \([0-9]*\) records.*/\1/p' "$WORK/csum.txt")
partial=$(awk '/^tcp:/{t=1} t&&/partial/{print $1; exit}' "$WORK/csum.txt")
fixed=$(awk '/^tcp:/{t=1} t&&/software-checksummed/{print $1; exit}' "$WORK/fix.txt")
say ""
say "== summary"
maxpay=$(tcpdump -nn -r "$CAP" 2>/dev/null | sed -n 's/.* length \([0-9]*\)$/\1/p' | sort -n | tail -n 1)
say "   $recs TCP packets captured (data and ACKs); the largest carried $maxpay payload bytes (one MSS: no TSO/GRO)"
say "   $partial carried only the pseudo-header checksum; --fix completed $fixed in software"
say "   GRO: $gro_line"
say "   RSS: $rss_line"
exit 0
