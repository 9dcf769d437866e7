#!/bin/sh
# One TCP stream through a tunnel while the receiving end is flooded with
# malformed 20-byte datagrams from the sender's own address, against the
# same stream without the flood, for: the kernel's VXLAN at both ends;
# softoffload --encap vxlan receiving from the kernel's VXLAN; softoffload
# --encap ip at both ends (--queues 2: unconnected sockets, which hear any
# source port).  The flood: bench_udpgso tx (one sendmmsg per 20-byte datagram,
# flat out) from namespace A to B's UDP 4789 for the stream's duration; with
# FLOOD_RATE=N, tests/kernel/kflood instead: exactly N * SECS datagrams at N a
# second (the same flood in every row; a flat-out flooder gets a different
# share of the CPUs in each).  FLOOD_NS prefixes the namespaces' names.
# Root; run under the bench lock.  Usage: bench-tunnel-flood.sh [SECS]
set -u
BUILD=${BUILD:-build}
SOFL=$BUILD/softoffload
FLOOD=$BUILD/bench/bench_udpgso
KFLOOD=${KFLOOD:-$BUILD/tests/kernel/kflood}
FLOOD_RATE=${FLOOD_RATE:-}
SECS=${1:-5}
ID=$$
NS=${FLOOD_NS:-sofl-flood}
A=${NS}a$ID B=${NS}b$ID
PIDS=""
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	ip netns del $A 2>/dev/null; ip netns del $B 2>/dev/null
}
trap cleanup EXIT INT TERM
[ -x "$SOFL" ] && [ -x "$FLOOD" ] || { echo "make cli benches first"; exit 2; }
[ -z "$FLOOD_RATE" ] || [ -x "$KFLOOD" ] || { echo "FLOOD_RATE: make tests first ($KFLOOD)"; exit 2; }
ip netns add $A && ip netns add $B || exit 2
ip link add va$ID type veth peer name vb$ID
ip link set va$ID netns $A; ip link set vb$ID netns $B
ip -n $A addr add 198.18.20.1/24 dev va$ID; ip -n $B addr add 198.18.20.2/24 dev vb$ID
for n in $A $B; do ip -n $n link set lo up; done
ip -n $A link set va$ID up; ip -n $B link set vb$ID up
ip netns exec $A ethtool -K va$ID tso off gso off tx-udp-segmentation off gro on tx off >/dev/null 2>&1
ip netns exec $B ethtool -K vb$ID tso off gso off tx-udp-segmentation off gro on tx off >/dev/null 2>&1

kvx() {	# NS LOCAL REMOTE INNER
	ip -n $1 link add vx$ID type vxlan id 42 dstport 4789 local $2 remote $3 dev $(ip -n $1 -o link | awk -F': ' '/v[ab]'$ID'/ { sub(/@.*/, "", $2); print $2 }')
	ip -n $1 link set vx$ID mtu 1450 up; ip -n $1 addr add $4/24 dev vx$ID
}
sofl() {	# NS LOCAL REMOTE INNER OPTIONS...
	ns=$1 l=$2 r=$3 in=$4; shift 4
	ip netns exec $ns "$SOFL" tunnel --tun vx$ID --local $l:4789 --remote $r:4789 --json "$@" \
	    >${TMPDIR:-/tmp}/sofl-flood.$ns.json 2>&1 &
	PIDS="$PIDS $!"
	i=0; until ip -n $ns link show vx$ID >/dev/null 2>&1 || [ $i -gt 50 ]; do i=$((i + 1)); sleep 0.1; done
	ip -n $ns addr add $in/24 dev vx$ID; ip -n $ns link set vx$ID up
}
down() {
	for p in $PIDS; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	PIDS=""
	ip -n $A link del vx$ID 2>/dev/null; ip -n $B link del vx$ID 2>/dev/null
}
# stream FLOOD(0|1): Gbit/s received, retransmits
stream() {
	ip netns exec $B timeout $((SECS + 20)) iperf3 -s -1 -B 198.18.21.2 >/dev/null 2>&1 &
	s=$!; sleep 0.3
	ip netns exec $A ping -c 1 -W 2 198.18.21.2 >/dev/null 2>&1
	if [ "$1" = 1 ]; then
		if [ -n "$FLOOD_RATE" ]; then
			ip netns exec $A timeout $((SECS + 30)) "$KFLOOD" 198.18.20.1 198.18.20.2 4789 20 \
			    $((FLOOD_RATE * SECS)) $FLOOD_RATE >${TMPDIR:-/tmp}/sofl-flood.tx 2>&1 &
		else
			ip netns exec $A "$FLOOD" tx -D 198.18.20.2 -p 4789 -s 20 -m sendmmsg -l $SECS >${TMPDIR:-/tmp}/sofl-flood.tx 2>&1 &
		fi
		f=$!
	fi
	ip netns exec $A timeout $((SECS + 15)) iperf3 -c 198.18.21.2 -t $SECS -J >${TMPDIR:-/tmp}/sofl-flood.iperf 2>&1
	[ "$1" = 1 ] && wait $f
	wait $s
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))["end"]
print("%.2f Gbit/s, %d retransmits" % (d["sum_received"]["bits_per_second"] / 1e9, d["sum_sent"].get("retransmits", 0)), end="")' ${TMPDIR:-/tmp}/sofl-flood.iperf
	[ "$1" = 1 ] && printf ', flood: %s' "$(awk '/^sendmmsg/ { print $4 " datagrams/s" } /^sent/ { print $2 " datagrams in " $4 " s" }' ${TMPDIR:-/tmp}/sofl-flood.tx)"
	echo
}
row() {	# LABEL: quiet, flooded, and the ratio of the two (same run)
	q=$(stream 0); f=$(stream 1)
	printf '%-36s quiet: %s\n' "$1" "$q"
	printf '%-36s flood: %s\n' "" "$f"
	printf '%-36s kept:  %s\n' "" "$(echo "$q $f" | awk '$1 > 0 { printf "%.0f%%", 100 * $5 / $1 }')"
}
sh "$(dirname "$0")/cpu-name.sh"
kvx $A 198.18.20.1 198.18.20.2 198.18.21.1; kvx $B 198.18.20.2 198.18.20.1 198.18.21.2
row "kernel vxlan <-> kernel vxlan"; down
kvx $A 198.18.20.1 198.18.20.2 198.18.21.1; sofl $B 198.18.20.2 198.18.20.1 198.18.21.2 --encap vxlan --vni 42
row "kernel vxlan -> softoffload vxlan"; down
tail -1 ${TMPDIR:-/tmp}/sofl-flood.$B.json | python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); print("   receiver: udp rx_drop", d["udp"]["rx_drop"], "encap_drop", {k: v for k, v in d["encap_drop"].items() if v})'
sofl $A 198.18.20.1 198.18.20.2 198.18.21.1 --encap vxlan --vni 42; sofl $B 198.18.20.2 198.18.20.1 198.18.21.2 --encap vxlan --vni 42
row "softoffload vxlan <-> softoffload vxlan"; down
tail -1 ${TMPDIR:-/tmp}/sofl-flood.$B.json | python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); print("   receiver: udp rx_drop", d["udp"]["rx_drop"], "encap_drop", {k: v for k, v in d["encap_drop"].items() if v})'
sofl $A 198.18.20.1 198.18.20.2 198.18.21.1 --queues 2; sofl $B 198.18.20.2 198.18.20.1 198.18.21.2 --queues 2
row "softoffload ip <-> softoffload ip"; down
tail -1 ${TMPDIR:-/tmp}/sofl-flood.$B.json | python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); print("   receiver: udp rx_drop", d["udp"]["rx_drop"], "inner_drop", {k: v for k, v in d["inner_drop"].items() if v})'
rm -f ${TMPDIR:-/tmp}/sofl-flood.*
