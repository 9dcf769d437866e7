#!/bin/sh
# Description: VXLAN LRO in `softoffload relay afpacket:NIC tap:TAP`, live,
# against the kernel's own VXLAN devices.  Namespace A: a kernel VXLAN
# device over a veth with every offload off (the "NIC without LRO": only
# 1500-byte VXLAN frames on the wire).  Namespace B: the relay between the
# other veth end and a TAP, and a kernel VXLAN device whose underlay is that
# TAP.  With --offload on and a kernel with TUN UDP-tunnel GSO (6.17+), the
# TAP's GRO coalesces the VXLAN frames into tunnel super-packets written
# whole behind the 24-byte virtio header (B's VXLAN device receives packets
# far larger than the MTU: its rx counters), and B's VXLAN device hands its
# own encapsulated super-packets to the TAP whole (read whole, cut by the
# AF_PACKET port for the veth).  Files sent over TCP (inner IPv4 and IPv6,
# both directions) arrive intact (sha256); iperf3 -t 2 each way; the same
# with the outer UDP checksum on (UDP_TUNNEL_CSUM) and over an IPv6
# underlay; then --tunnel-gso off and --offload off: intact, no tunnel
# super-packet, B's VXLAN device sees wire-size packets.  A kernel without
# TUN UDP-tunnel GSO is the fallback case: intact, no tunnel super-packet
# (said, not skipped).  Needs root, iperf3, ethtool, jq, /dev/net/tun and
# the vxlan driver (else 77).  Removes its namespaces, kills only its PIDs.
set -u
BUILD=${BUILD:-build}
CLI=$BUILD/softoffload
KTCP=$BUILD/tests/kernel/ktcp
P=$$
A=sorxa$P B=sorxb$P VA=sorxva$P VB=sorxvb$P TB=sorxt$P
PIDS=""
RELAY=""
LOG=$(mktemp -d /tmp/relay-vxlan-test.XXXXXX)

skip() { echo "relay_vxlan.sh: skipped: $*" >&2; exit 77; }
fail() { echo "relay_vxlan.sh: FAIL: $*" >&2; [ -f "$LOG/relay.err" ] && tail -5 "$LOG/relay.err" >&2; exit 1; }
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	ip netns del "$A" 2>/dev/null
	ip netns del "$B" 2>/dev/null
	rm -rf "$LOG"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, AF_PACKET, TAP)"
for t in ip iperf3 ethtool jq sha256sum timeout; do
	command -v $t >/dev/null 2>&1 || skip "$t not installed"
done
[ -c /dev/net/tun ] || skip "/dev/net/tun missing"
[ -x "$CLI" ] || fail "$CLI missing (make BUILD=$BUILD cli)"
[ -x "$KTCP" ] || fail "$KTCP missing (make BUILD=$BUILD tests)"
ip netns add "$A" 2>/dev/null || skip "cannot create a network namespace"
ip netns add "$B" || fail "netns $B"
ip -n "$A" link add sorxprobe type vxlan id 1 dstport 4789 2>/dev/null ||
	skip "no vxlan driver"
ip -n "$A" link del sorxprobe

ip link add "$VA" netns "$A" type veth peer name "$VB" netns "$B" || fail "veth"
ip -n "$A" link set lo up && ip -n "$B" link set lo up || fail "lo"
ip netns exec "$A" ethtool -K "$VA" tso off gso off gro off tx off >/dev/null 2>&1 ||
	fail "ethtool -K $VA"
ip netns exec "$B" ethtool -K "$VB" tso off gso off gro off tx off >/dev/null 2>&1 ||
	fail "ethtool -K $VB"
ip netns exec "$B" sysctl -qw "net.ipv6.conf.$VB.disable_ipv6=1" || fail "sysctl"
ip -n "$B" link set "$VB" arp off
ip -n "$A" addr add 198.18.30.1/24 dev "$VA"
ip -n "$A" addr add 2001:2:30::1/64 dev "$VA" nodad
ip -n "$A" link set "$VA" up && ip -n "$B" link set "$VB" up || fail "links up"

recv_file() {
	rm -f "$4.ready"
	timeout 30 ip netns exec "$1" "$KTCP" recv "$2" "$3" "$4" > "$4.ready" 2>"$4.err" &
	RECV=$!
	PIDS="$PIDS $RECV"
	for i in $(seq 50); do grep -q ready "$4.ready" 2>/dev/null && return 0; sleep 0.1; done
	fail "receiver on $2 did not start: $(cat "$4.err")"
}
head -c 6000000 /dev/urandom > "$LOG/data" || fail "test data"
SUM=$(sha256sum < "$LOG/data")
# transfer NAME FROM_NS TO_NS TO_ADDR PORT
transfer() {
	recv_file "$3" "$4" "$5" "$LOG/out.$1"
	timeout 30 ip netns exec "$2" "$KTCP" send "$4" "$5" "$LOG/data" || fail "$1: sender failed"
	wait "$RECV" || fail "$1: receiver failed"
	[ "$(sha256sum < "$LOG/out.$1")" = "$SUM" ] ||
		fail "$1: data differs after the relay ($(wc -c < "$LOG/out.$1") bytes)"
	echo "  $1: 6000000 bytes intact"
}
# iperf NAME CLIENT_NS SERVER_NS ADDR [-R]
iperf() {
	ip netns exec "$3" iperf3 -s -1 -B "$4" -p 5399 >/dev/null 2>&1 &
	s=$!
	PIDS="$PIDS $s"
	sleep 0.3
	timeout 20 ip netns exec "$2" iperf3 -c "$4" -p 5399 -t 2 ${5:-} > "$LOG/iperf.$1" 2>&1 ||
		fail "$1: iperf3 failed: $(tail -2 "$LOG/iperf.$1")"
	wait "$s"
	echo "  $1: $(grep receiver "$LOG/iperf.$1" | awk '{print $7, $8}')"
}

# start RELAY_OPTIONS UNDERLAY(4|6) VXLAN_OPTIONS: the relay in B with TB
# holding B's underlay address, a kernel VXLAN device at each end
start() {
	ip netns exec "$B" "$CLI" relay "afpacket:$VB" "tap:$TB" $1 --json \
		> "$LOG/relay.json" 2> "$LOG/relay.err" &
	RELAY=$!
	PIDS="$PIDS $RELAY"
	for i in $(seq 50); do ip -n "$B" link show "$TB" >/dev/null 2>&1 && break; sleep 0.1; done
	ip -n "$B" link show "$TB" >/dev/null 2>&1 || fail "relay did not create $TB"
	ip -n "$B" addr add 198.18.30.2/24 dev "$TB"
	ip -n "$B" addr add 2001:2:30::2/64 dev "$TB" nodad
	ip -n "$B" link set "$TB" up || fail "$TB up"
	# what the kernel made of the TAP's TUNSETOFFLOAD (its features)
	ip netns exec "$B" ethtool -k "$TB" > "$LOG/features" 2>&1
	if [ "$2" = 4 ]; then la=198.18.30.1 lb=198.18.30.2; else la=2001:2:30::1 lb=2001:2:30::2; fi
	ip -n "$A" link add vxa type vxlan id 42 local "$la" remote "$lb" dstport 4789 dev "$VA" $3 ||
		fail "vxlan in A"
	ip -n "$B" link add vxb type vxlan id 42 local "$lb" remote "$la" dstport 4789 dev "$TB" $3 ||
		fail "vxlan in B"
	ip -n "$A" addr add 198.18.31.1/24 dev vxa
	ip -n "$B" addr add 198.18.31.2/24 dev vxb
	ip -n "$A" addr add 2001:2:31::1/64 dev vxa nodad
	ip -n "$B" addr add 2001:2:31::2/64 dev vxb nodad
	ip -n "$A" link set vxa up && ip -n "$B" link set vxb up || fail "vxlan up"
	ip netns exec "$A" ping -c 1 -W 5 198.18.31.2 >/dev/null 2>&1 ||
		fail "no ping over VXLAN through the relay"
}
# stop: the VXLAN devices' counters into VXB_*, the relay's final JSON into $STATS
stop() {
	set -- $(ip -n "$B" -s -j link show vxb | jq -r '.[0].stats64 | "\(.rx.bytes) \(.rx.packets) \(.tx.bytes) \(.tx.packets)"')
	VXB_RXB=$1 VXB_RXP=$2 VXB_TXB=$3 VXB_TXP=$4
	ip -n "$A" link del vxa
	ip -n "$B" link del vxb
	kill -TERM "$RELAY"
	wait "$RELAY" || fail "relay exited with $?"
	ip -n "$A" neigh flush dev "$VA" 2>/dev/null
	STATS=$(tail -n 1 "$LOG/relay.json")
	echo "$STATS" | grep -q '"final":true' || fail "no final JSON object: $STATS"
}
field() {
	path=".ports[$1].$2"
	[ $# -ge 3 ] && path="$path[\"$3\"]"
	echo "$STATS" | jq -r "$path // 0"
}
has_tnl() {
	echo "$STATS" | jq -e '.ports[1].offloads | index("udp-tnl-gso")' >/dev/null
}

# run NAME RELAY_OPTIONS UNDERLAY VXLAN_OPTIONS EXPECT(tnl|plain)
run() {
	echo "relay afpacket <-> tap, $1 (relay ${2:-defaults}, underlay IPv$3, vxlan ${4:-defaults})"
	start "$2" "$3" "$4"
	transfer "$1-v4-to-B" "$A" "$B" 198.18.31.2 5401
	transfer "$1-v6-to-B" "$A" "$B" 2001:2:31::2 5402
	transfer "$1-v4-to-A" "$B" "$A" 198.18.31.1 5403
	transfer "$1-v6-to-A" "$B" "$A" 2001:2:31::1 5404
	[ "$5" = tnl ] && { iperf "$1-iperf" "$A" "$B" 198.18.31.2; iperf "$1-iperf-R" "$A" "$B" 198.18.31.2 -R; }
	stop
	tsup=$(field 1 gro tun_super_pkts) tsegs=$(field 1 gro tun_segs_merged)
	rsup=$(field 1 rx_super) cut=$(field 0 tx_super) cuts=$(field 0 tx_segs)
	avg_rx=$((VXB_RXB / (VXB_RXP + 1))) avg_tx=$((VXB_TXB / (VXB_TXP + 1)))
	echo "  counters: TAP GRO $tsup tunnel super-packets of $tsegs VXLAN frames written;" \
	     "$rsup super-packets read whole from the TAP, AF_PACKET cut $cut into $cuts frames"
	echo "  B's VXLAN device: received $VXB_RXP packets, $avg_rx bytes on average;" \
	     "sent $VXB_TXP, $avg_tx bytes on average"
	[ "$(field 0 rx_pkts)" -gt 10000 ] || fail "$1: too few frames from the veth"
	if has_tnl; then
		grep -q '^tx-udp_tnl-segmentation: on' "$LOG/features" ||
			fail "$1: UDP-tunnel GSO said granted, the TAP's features disagree"
	else
		grep -q '^tx-udp_tnl-segmentation: on' "$LOG/features" &&
			fail "$1: the TAP has UDP-tunnel GSO the port did not report"
	fi
	if [ "$5" = tnl ] && has_tnl; then
		[ "$tsup" -gt 100 ] && [ "$tsegs" -gt $((tsup * 4)) ] ||
			fail "$1: $tsup tunnel super-packets of $tsegs frames written to the TAP"
		[ "$avg_rx" -gt 4000 ] ||
			fail "$1: B's VXLAN device received $avg_rx-byte packets on average (no LRO)"
		[ "$rsup" -gt 50 ] && [ "$cut" -gt 50 ] && [ "$cuts" -gt $((cut * 4)) ] ||
			fail "$1: $rsup super-packets read from the TAP, $cut cut into $cuts"
		[ "$avg_tx" -gt 4000 ] ||
			fail "$1: B's VXLAN device sent $avg_tx-byte packets on average"
	elif [ "$5" = tnl ]; then
		echo "  this kernel does not grant TUN UDP-tunnel GSO (6.17+): fallback checked"
		[ "$tsup" = 0 ] || fail "$1: $tsup tunnel super-packets without UDP-tunnel GSO"
		[ "$(field 1 tx_drop unsupported)" = 0 ] || fail "$1: writes refused"
	else
		[ "$tsup" = 0 ] || fail "$1: $tsup tunnel super-packets written"
		[ "$avg_rx" -lt 1600 ] ||
			fail "$1: B's VXLAN device received $avg_rx-byte packets on average"
		has_tnl && fail "$1: UDP-tunnel GSO negotiated"
	fi
	[ "$(field 1 fallbacks)" = 0 ] || fail "$1: $(field 1 fallbacks) offload fallbacks on the TAP"
	[ "$5" = tnl ] && SUMMARY="$SUMMARY $1: $tsup tunnel super-packets written, $rsup read, VXLAN rx $avg_rx B avg;"
	return 0
}
SUMMARY=""

run vxlan "" 4 "" tnl
run vxlan-udpcsum "" 4 "udpcsum" tnl
run vxlan-v6-underlay "" 6 "" tnl
run tunnel-gso-off "--tunnel-gso off" 4 "" plain
run offload-off "--offload off" 4 "" plain
echo "summary:$SUMMARY 5 cases x 4 files intact"
echo "relay_vxlan.sh: ok"
