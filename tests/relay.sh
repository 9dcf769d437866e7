#!/bin/sh
# Description: `softoffload relay` between an AF_PACKET veth without
# offloads (wire-size frames, like a NIC without LRO) and a TAP or TUN, in
# namespaces of its own: files sent over TCP, IPv4 and IPv6, in both
# directions, arrive intact (sha256), with --offload on (the GRO engine
# coalesces towards the TAP/TUN: super-packets formed; super-packets read
# from the TAP/TUN are segmented for the veth: segments split) and off (one
# frame per system call, no GRO/GSO), and on with --tx-ring on (the
# AF_PACKET port sends through PACKET_TX_RING); an iperf3 -t 2 run each way.  The
# counters come from --json.  Needs root, iperf3, ethtool, jq and
# /dev/net/tun (else 77).  Removes its namespaces, kills only its own PIDs.
set -u
BUILD=${BUILD:-build}
CLI=$BUILD/softoffload
KTCP=$BUILD/tests/kernel/ktcp
P=$$
A=sorla$P B=sorlb$P VA=sorva$P VB=sorvb$P
PIDS=""
LOG=$(mktemp -d /tmp/relay-test.XXXXXX)

skip() { echo "relay.sh: skipped: $*" >&2; exit 77; }
fail() { echo "relay.sh: FAIL: $*" >&2; [ -f "$LOG/relay.err" ] && tail -5 "$LOG/relay.err" >&2; exit 1; }
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

# A (the peer host): VA with every offload off, so only wire-size frames
# with complete checksums cross the veth.  B: VB without address, ARP or
# IPv6 (the relay's "NIC"), and the relay's TAP/TUN holding B's addresses.
ip link add "$VA" netns "$A" type veth peer name "$VB" netns "$B" || fail "veth"
ip -n "$A" link set lo up && ip -n "$B" link set lo up || fail "lo"
ip netns exec "$A" ethtool -K "$VA" tso off gso off gro off tx off >/dev/null 2>&1 ||
	fail "ethtool -K $VA"
ip netns exec "$B" ethtool -K "$VB" tso off gso off gro off tx off >/dev/null 2>&1 ||
	fail "ethtool -K $VB"
ip netns exec "$B" sysctl -qw "net.ipv6.conf.$VB.disable_ipv6=1" || fail "sysctl"
ip -n "$B" link set "$VB" arp off
ip -n "$A" addr add 198.18.7.1/24 dev "$VA"
ip -n "$A" addr add 2001:2:7::1/64 dev "$VA" nodad
ip -n "$A" link set "$VA" up && ip -n "$B" link set "$VB" up || fail "links up"

# TCP file transfer, byte for byte (tests/kernel/ktcp.c):
# recv_file NS ADDR PORT OUT (returns once listening), send_file NS ADDR PORT IN
recv_file() {
	rm -f "$4.ready"
	timeout 30 ip netns exec "$1" "$KTCP" recv "$2" "$3" "$4" > "$4.ready" 2>"$4.err" &
	RECV=$!
	PIDS="$PIDS $RECV"
	for i in $(seq 50); do grep -q ready "$4.ready" 2>/dev/null && return 0; sleep 0.1; done
	fail "receiver on $2 did not start: $(cat "$4.err")"
}
send_file() {
	timeout 30 ip netns exec "$1" "$KTCP" send "$2" "$3" "$4"
}

head -c 6000000 /dev/urandom > "$LOG/data" || fail "test data"
SUM=$(sha256sum < "$LOG/data")

# transfer NAME FROM_NS TO_NS TO_ADDR PORT
transfer() {
	recv_file "$3" "$4" "$5" "$LOG/out.$1"
	send_file "$2" "$4" "$5" "$LOG/data" || fail "$1: sender failed"
	wait "$RECV" || fail "$1: receiver failed"
	[ "$(sha256sum < "$LOG/out.$1")" = "$SUM" ] ||
		fail "$1: data differs after the relay ($(wc -c < "$LOG/out.$1") bytes)"
	echo "  $1: 6000000 bytes intact"
}

# iperf NAME CLIENT_NS SERVER_NS ADDR [-R]
iperf() {
	ip netns exec "$3" iperf3 -s -1 -B "$4" -p 5299 >/dev/null 2>&1 &
	s=$!
	PIDS="$PIDS $s"
	sleep 0.3
	timeout 20 ip netns exec "$2" iperf3 -c "$4" -p 5299 -t 2 ${5:-} > "$LOG/iperf.$1" 2>&1 ||
		fail "$1: iperf3 failed: $(tail -2 "$LOG/iperf.$1")"
	wait "$s"
	echo "  $1: $(grep receiver "$LOG/iperf.$1" | awk '{print $7, $8}')"
}

# start_relay KIND(tap|tun) OFFLOAD: the relay in B, its device up with B's addresses
start_relay() {
	DEV=sorl$1$P
	ip netns exec "$B" "$CLI" relay "afpacket:$VB" "$1:$DEV" --offload "$2" --json $TUNMAC ${RELAYOPT:-} \
		> "$LOG/relay.json" 2> "$LOG/relay.err" &
	RELAY=$!
	PIDS="$PIDS $RELAY"
	for i in $(seq 50); do ip -n "$B" link show "$DEV" >/dev/null 2>&1 && break; sleep 0.1; done
	ip -n "$B" link show "$DEV" >/dev/null 2>&1 || fail "relay did not create $DEV"
	ip -n "$B" addr add 198.18.7.2/24 dev "$DEV"
	ip -n "$B" addr add 2001:2:7::2/64 dev "$DEV" nodad
	ip -n "$B" link set "$DEV" up || fail "$DEV up"
	# An L3 device has no MAC: the relay answers ARP and neighbour
	# solicitations for the TUN's addresses with the one given by
	# --tun-mac, not VB's (frames to VB's own MAC would be taken by B's
	# stack straight from VB, past the relay, since the TUN's addresses
	# are local to B).  No static neighbour entries: that is tested too.
}

# stop_relay: SIGTERM, clean exit, the final JSON line parsed into $STATS
stop_relay() {
	kill -TERM "$RELAY"
	wait "$RELAY" || fail "relay exited with $?"
	ip -n "$B" link show "$DEV" >/dev/null 2>&1 && fail "$DEV left behind"
	# the TUN case's static entries too (flush leaves permanent ones)
	ip -n "$A" neigh del 198.18.7.2 dev "$VA" 2>/dev/null
	ip -n "$A" -6 neigh del 2001:2:7::2 dev "$VA" 2>/dev/null
	ip -n "$A" neigh flush dev "$VA" 2>/dev/null
	STATS=$(tail -n 1 "$LOG/relay.json")
	echo "$STATS" | grep -q '"final":true' || fail "no final JSON object: $STATS"
}

# field PORT_INDEX KEY [SUBKEY]: a counter of the final JSON object
field() {
	path=".ports[$1].$2"
	[ $# -ge 3 ] && path="$path[\"$3\"]"
	echo "$STATS" | jq -r "$path // 0"
}

TUNMAC_ADDR=02:53:4f:46:4c:01
run_case() {
	kind=$1 mode=$2
	TUNMAC=
	[ "$kind" = tun ] && TUNMAC="--tun-mac $TUNMAC_ADDR"
	echo "relay afpacket <-> $kind, offload $mode"
	start_relay "$kind" "$mode"
	transfer "$kind-$mode-v4-to-B" "$A" "$B" 198.18.7.2 5301
	transfer "$kind-$mode-v6-to-B" "$A" "$B" 2001:2:7::2 5302
	transfer "$kind-$mode-v4-to-A" "$B" "$A" 198.18.7.1 5303
	transfer "$kind-$mode-v6-to-A" "$B" "$A" 2001:2:7::1 5304
	iperf "$kind-$mode-iperf-v4" "$A" "$B" 198.18.7.2
	[ "$kind" = tap ] && iperf "$kind-$mode-iperf-v6-reverse" "$A" "$B" 2001:2:7::2 -R
	stop_relay
	afp_rx=$(field 0 rx_pkts) afp_tx=$(field 0 tx_pkts) dev_tx=$(field 1 tx_pkts)
	[ "$afp_rx" -gt 10000 ] && [ "$afp_tx" -gt 10000 ] ||
		fail "$kind $mode: too few frames through the veth (rx $afp_rx, tx $afp_tx)"
	# 4 x 6 MB to B (and iperf3) through the relay: at least 16000
	# full-size segments' worth written to the TAP/TUN
	[ "$(field 1 tx_bytes)" -gt 24000000 ] ||
		fail "$kind $mode: only $(field 1 tx_bytes) bytes written to $kind ($dev_tx packets)"
	super=$(field 1 gro super_pkts) merged=$(field 1 gro segs_merged)
	# split by the AF_PACKET port's send (super-packets read whole from a
	# TAP) or by the TUN/TAP port's read (segments with room for Ethernet)
	split=$(field 0 tx_super) segs=$(field 0 tx_segs) dsegs=$(field 1 rx_segs)
	[ "$dsegs" -gt 0 ] && split=$((split + $(field 1 rx_super))) segs=$((segs + dsegs))
	calls=$(field 0 tx_calls) ring=$(field 0 rx_calls)
	echo "  counters: GRO $super super-packets of $merged segments; AF_PACKET sent" \
	     "$afp_tx frames in $calls calls, $split super-packets split into $segs segments"
	if [ "$kind" = tun ]; then
		arp=$(echo "$STATS" | jq -r '.relay[0] | "\(.arp_replies) \(.nd_adverts)"')
		echo "  proxy for the TUN: ARP replies, neighbour adverts: $arp"
		[ "${arp% *}" -gt 0 ] && [ "${arp#* }" -gt 0 ] || fail "$kind $mode: no ARP/ND answers ($arp)"
	fi
	if [ "$mode" = on ]; then
		[ "$super" -gt 100 ] || fail "$kind on: GRO formed $super super-packets"
		[ "$merged" -gt $((super * 4)) ] || fail "$kind on: $merged segments in $super super-packets"
		[ "$split" -gt 100 ] && [ "$segs" -gt $((split * 2)) ] ||
			fail "$kind on: $split super-packets split into $segs segments"
		[ "$calls" -lt "$afp_tx" ] || fail "$kind on: sends not batched ($calls calls, $afp_tx frames)"
	else
		[ "$super" = 0 ] && [ "$split" = 0 ] ||
			fail "$kind off: offloads used ($super coalesced, $split split)"
		[ "$calls" -ge "$afp_tx" ] || fail "$kind off: $afp_tx frames in $calls calls"
		[ "$ring" -ge "$afp_rx" ] || fail "$kind off: $afp_rx frames in $ring receive calls"
	fi
}

run_case tap on
# the ACK direction (TAP -> veth) through the AF_PACKET transmit ring:
# the same transfers intact, the port says it sends through the ring
RELAYOPT="--tx-ring on" run_case tap on
echo "$STATS" | jq -e '.ports[0].offloads | index("tx-ring")' >/dev/null ||
	fail "--tx-ring on: the AF_PACKET port does not send through its ring ($(field 0 offloads))"
run_case tap off
run_case tun on
run_case tun off

# A peer that does TSO: 64 KB frames cross the veth, bigger than a ring slot
# (sized for the MTU), so the kernel queues them whole on the socket too
# (TP_STATUS_COPY); the relay reads them from there and hands them to the
# TAP as the super-packets they are.
echo "relay afpacket <-> tap, offload on, peer with TSO"
ip netns exec "$A" ethtool -K "$VA" tso on gso on tx on >/dev/null 2>&1 || fail "ethtool -K $VA tso on"
start_relay tap on
transfer "tap-tso-v4-to-B" "$A" "$B" 198.18.7.2 5305
transfer "tap-tso-v6-to-B" "$A" "$B" 2001:2:7::2 5306
stop_relay
big=$(field 0 rx_super) drops=$(field 0 rx_drop truncated)
echo "  counters: $big super-packets received whole by the AF_PACKET port"
[ "$big" -gt 50 ] || fail "peer with TSO: $big super-packets received"
[ "$drops" = 0 ] || fail "peer with TSO: $drops frames truncated"
echo "relay.sh: ok"
