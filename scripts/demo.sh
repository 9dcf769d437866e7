#!/bin/sh
# make demo: what softoffload does to real traffic on this machine, in the
# formats offloads are measured with (OpenBSD tcpbench's min/avg/max/std-dev,
# udpgso_bench_tx's MB/s calls/s msg/s CPU MB2CPU, netstat -s counters).
#
# Two network namespaces joined by a veth without segmentation offloads (a
# 1500-byte wire); in them, each experiment a step of its own:
#   1. tunnel   one TCP stream through softoffload tunnel, IPv4 and IPv6,
#               --offload off/gso/gro/on, and kernel VXLAN as the reference
#      relay    veth without offloads -> AF_PACKET -> softoffload relay -> TAP,
#               off vs on, and the kernel's own GRO on that veth
#      relay_vxlan  the same with kernel VXLAN at both ends (scripts/demo-p22.sh)
#   2. udp      bench_udpgso: one datagram per call, sendmmsg, UDP_SEGMENT,
#               softoffload USO into an AF_PACKET transmit ring, payloads 1472..61824
#   3. rss      iperf3 -P 4 through the tunnel, --queues 1 vs 2
#   4. csum     the checksum counters of the tunnel runs (no traffic of its own)
#   5. capture  the capture walk-through: csum, csum --fix, gro, rss on a capture
#   6. vpn      examples/vpn (AES-256-GCM, ChaCha20-Poly1305) and wireguard-go
#               (scripts/demo-v23.sh)
# Then a table per experiment with its verdict, $OUT/results.json and
# $OUT/*.png (gnuplot).  Without root or namespaces only step 5 runs, on a
# synthetic capture, and says why.  See docs/demo.md.
#
# Environment: BUILD (default build), DEMO_OUT (default $BUILD/demo),
# DEMO_RUNS (3) x DEMO_SECS (5): the runs of each row (intervals of one
# iperf3 run); DEMO_LONG=1 (make demo-long): 5 x 10 s and every row;
# DEMO_NS (sofl-demo): the namespaces are DEMO_NS-a-PID and DEMO_NS-b-PID;
# DEMO_STEPS (default "tunnel vxlan relay relay_vxlan burst udp rss small-packets csum
# capture vpn"); DEMO_UDP_SECS
# (0.4: seconds per UDP cell); DEMO_RSS_SECS (3: the RSS rows' runs).  Each step is bounded in time; a failing step
# prints "step failed: ..." and the others still run.  Ctrl-C removes the
# namespaces and kills only the processes the demo started (by PID).
set -u
BUILD=${BUILD:-build}
CLI=$BUILD/softoffload
UDPGSO=$BUILD/bench/bench_udpgso
OUT=${DEMO_OUT:-$BUILD/demo}
if [ "${DEMO_LONG:-0}" = 1 ]; then
	DEMO_RUNS=${DEMO_RUNS:-5} DEMO_SECS=${DEMO_SECS:-10}
	DEMO_TUNNEL_MODES_6=${DEMO_TUNNEL_MODES_6:-off gso gro on}
	DEMO_VXLAN_FAMILIES=${DEMO_VXLAN_FAMILIES:-4 6}
	DEMO_UDP_SECS=${DEMO_UDP_SECS:-2}
	DEMO_RSS_SECS=${DEMO_RSS_SECS:-$DEMO_SECS}
fi
DEMO_RUNS=${DEMO_RUNS:-3}
DEMO_SECS=${DEMO_SECS:-5}
DEMO_STEPS=${DEMO_STEPS:-tunnel vxlan relay relay_vxlan burst udp rss small-packets csum capture vpn}
DEMO_TUNNEL_MODES_4=${DEMO_TUNNEL_MODES_4:-off gso gro on}
DEMO_TUNNEL_MODES_6=${DEMO_TUNNEL_MODES_6:-off on}
DEMO_VXLAN_FAMILIES=${DEMO_VXLAN_FAMILIES:-4}
DEMO_UDP_SECS=${DEMO_UDP_SECS:-0.4}
DEMO_RSS_SECS=${DEMO_RSS_SECS:-3}
ROW_SECS=""
DEMO_UDP_SIZES=${DEMO_UDP_SIZES:-1472 2944 5888 11776 23552 47104 61824}
NSA=${DEMO_NS:-sofl-demo}-a-$$
NSB=${DEMO_NS:-sofl-demo}-b-$$
DEMO_T0=$(date +%s)
DEMO_DATE=$(date -u +%Y-%m-%dT%H:%M:%SZ)
DEMO_LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
DEMO_NOTES=""

here=$(dirname "$0")
. "$here/demo-lib.sh"
. "$here/demo-live.sh"
. "$here/demo-report.sh"
. "$here/demo-plot.sh"
. "$here/demo-capture.sh"
. "$here/demo-p22.sh"
. "$here/demo-t22.sh"
. "$here/demo-s25.sh"
. "$here/demo-h24.sh"
. "$here/demo-v23.sh"	# 6. vpn: examples/vpn against wireguard-go

demo_cleanup() {
	trap - EXIT INT TERM
	# every process the demo started that still runs (and is still the
	# process it started: start times compared), TERM then KILL
	signal TERM $(cut -d' ' -f1 "$WORK/pids")
	sleep 0.2
	signal KILL $(cut -d' ' -f1 "$WORK/pids")
	ip netns del "$NSA" 2>/dev/null
	ip netns del "$NSB" 2>/dev/null
	if [ "${DEMO_KEEP:-0}" = 1 ]; then
		say "demo: work files kept in $WORK"
	else
		rm -rf "$WORK"
	fi
}
WORK=$(mktemp -d /tmp/sofl-demo.XXXXXX) || exit 1
: >"$WORK/pids"
trap demo_cleanup EXIT
trap 'say "demo: interrupted"; exit 130' INT TERM

note() {
	DEMO_NOTES="$DEMO_NOTES$*
"
	say "demo: $*"
}

want() {
	case " $DEMO_STEPS " in *" $1 "*) return 0 ;; esac
	return 1
}

# run_step NAME TITLE : the step_NAME function, timed, its failure reported.
run_step() {
	say ""
	say "-- step $1: $2"
	_rs_t=$(date +%s)
	"step_$1"
	_rs_rc=$?
	[ $_rs_rc -eq 0 ] || say "   step failed: $1 (exit $_rs_rc)"
	say "   ($1: $(($(date +%s) - _rs_t)) s)"
}

mkdir -p "$OUT" || exit 1
rm -f "$OUT/rows.jsonl" "$OUT/results.json" "$OUT"/*.png
: >"$OUT/rows.jsonl"
: >"$WORK/csum.jsonl"
say "softoffload demo, $DEMO_DATE: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)," \
	"$(nproc) CPUs, Linux $(uname -r), load average $DEMO_LOAD"

live=1
why=""
if [ "$(id -u)" != 0 ]; then
	why="not root (the live experiments create network namespaces; try: sudo make demo)"
elif ! ip netns add "$NSA" 2>/dev/null; then
	why="cannot create network namespaces here (ip netns add failed)"
else
	ip netns del "$NSA"
	for t in iperf3 ethtool jq timeout; do
		command -v "$t" >/dev/null 2>&1 || why="${why:+$why; }$t not installed (make deps-demo installs it)"
	done
	[ -x "$CLI" ] || why="${why:+$why; }$CLI not built (make BUILD=$BUILD cli)"
	[ -x "$UDPGSO" ] || why="${why:+$why; }$UDPGSO not built (make BUILD=$BUILD benches)"
fi
[ -n "$why" ] && live=0
if [ $live = 1 ] && ! net_setup; then
	live=0
	why="setting up the namespaces and the veth failed"
fi

if [ $live = 1 ]; then
	say "   wire: veth $NSA/va <-> $NSB/vb, TSO/GSO/UDP segmentation off (1500-byte frames only)"
	HAVE_TUNNEL=1 HAVE_RELAY=1
	"$CLI" tunnel --help >/dev/null 2>&1 ||
		{ HAVE_TUNNEL=0; note "this build's softoffload has no 'tunnel' command: the tunnel and rss rows fail"; }
	"$CLI" relay --help >/dev/null 2>&1 ||
		{ HAVE_RELAY=0; note "this build's softoffload has no 'relay' command: the relay rows fail"; }
	want tunnel && run_step tunnel "throughput through the tunnel and kernel VXLAN"
	want vxlan && run_step vxlan "softoffload VXLAN endpoint against the kernel's"
	want relay && run_step relay "the relay: software LRO for a NIC without it"
	want relay_vxlan && run_step relay_vxlan "the relay with VXLAN frames: VXLAN LRO"
	want burst && run_step burst "bursts through a live relay vs the kernel's GRO"
	want udp && run_step udp "UDP segmentation"
	want rss && run_step rss "RSS over the tunnel's queues"
	want small-packets && run_step small_packets "small packets: packets per second through each path"
	want vpn && run_step vpn "examples/vpn and wireguard-go"
	csum_rows >"$WORK/csum.jsonl" 2>/dev/null
else
	note "live experiments skipped: $why"
fi

# ---- the tables ----
if [ $live = 1 ]; then
	say ""
	say "================ results ($DEMO_RUNS x $DEMO_SECS s per row; load average at start $DEMO_LOAD) ================"
	want tunnel && report_tunnel
	want vxlan && report_vxlan
	want relay && report_relay
	want relay_vxlan && report_relay_vxlan
	want burst && report_burst
	want udp && report_udp
	want rss && report_rss
	want small-packets && report_small_packets
	want csum && report_csum
	want vpn && report_vpn
fi

if want capture; then
	say ""
	say "== 5. the capture walk-through"
	if [ -x "$CLI" ]; then
		step_capture $live || say "   step failed: capture"
	else
		say "   step failed: capture: $CLI not built (make BUILD=$BUILD cli)"
	fi
fi

say ""
write_json && say "   wrote $OUT/results.json" || say "   step failed: results.json: jq failed"
if [ $live = 1 ]; then
	plots || say "   step failed: plots (see above)"
fi
say "demo: $(($(date +%s) - DEMO_T0)) s (load average at the end $(cut -d' ' -f1-3 /proc/loadavg))"
exit 0
