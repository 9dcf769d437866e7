#!/bin/sh
# softoffload tunnel --encap vxlan against the kernel's VXLAN: the endpoint
# drops nothing in a bounded transfer, in both directions (issue 22: "0
# retransmits caused by the endpoint").  Namespace A runs softoffload on a
# TAP, B a Linux vxlan device, over the demo's wire (veth, 1500 bytes,
# segmentation offloads and transmit checksumming off, GRO on).  One TCP
# stream of 400 MB each way (iperf3 -n), then every place where the endpoint
# could lose a frame must read 0 (the tunnel restarted between the two):
#   - the tunnel's own drop counters by reason (TAP and UDP ports, receive
#     and send, the VXLAN/inner checks), "down" excepted: frames the kernel's
#     VXLAN sent before the test brought the TAP up (set-up, not transfer);
#   - the TAP's queue towards the tunnel (tx_dropped: tun_net_xmit());
#   - A's Udp(6)RcvbufErrors and Udp(6)InErrors (nstat): the receive socket
#     full.  Over an IPv4 and an IPv6 underlay.
# The retransmits and the veth's own drops (its 256-entry ring towards the
# peer, veth_xmit(): the wire, not the endpoint; the kernel <-> kernel rows
# of make demo have them too) are printed, not asserted.
# SOFL_DROPS_ARGS: extra tunnel options; "--txqueuelen 8" (a TAP queue too
# short for a TSO burst) makes this test fail, which shows that it can.
# Sending, also: one UDP_SEGMENT send per super-packet read from the TAP.
# Receiving, also: no software checksum pass over coalesced receives
# (SOFL_DROPS_ARGS="--verify-inner" makes that part fail).
# Root; exit 77 without the tools.
set -u
. "$(dirname "$0")/tunnel.lib"
TL_A=t22da$TL_ID
TL_B=t22db$TL_ID
tl_require
trap tl_cleanup EXIT INT TERM
command -v ethtool >/dev/null || tl_skip "no ethtool"
command -v nstat >/dev/null || tl_skip "no nstat"
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }
VA=va$TL_ID VB=vb$TL_ID TAP=tp$TL_ID VX=vx$TL_ID
ip link add "$VA" type veth peer name "$VB"
ip link set "$VA" netns "$TL_A"
ip link set "$VB" netns "$TL_B"
ip -n "$TL_A" addr add 198.18.20.1/24 dev "$VA"
ip -n "$TL_B" addr add 198.18.20.2/24 dev "$VB"
ip -n "$TL_A" addr add 2001:2:20::1/64 dev "$VA" nodad
ip -n "$TL_B" addr add 2001:2:20::2/64 dev "$VB" nodad
for ns in "$TL_A" "$TL_B"; do ip -n "$ns" link set lo up; done
ip -n "$TL_A" link set "$VA" up
ip -n "$TL_B" link set "$VB" up
ip netns exec "$TL_A" ethtool -K "$VA" tso off gso off tx-udp-segmentation off gro on tx off >/dev/null 2>&1
ip netns exec "$TL_B" ethtool -K "$VB" tso off gso off tx-udp-segmentation off gro on tx off >/dev/null 2>&1

# kernel_b UNDERLAY: the kernel's VXLAN device in B (its MTU from the veth's)
kernel_b() {
	ip -n "$TL_B" link del "$VX" 2>/dev/null
	if [ "$1" = 6 ]; then l=2001:2:20::2 r=2001:2:20::1; else l=198.18.20.2 r=198.18.20.1; fi
	ip -n "$TL_B" link add "$VX" type vxlan id 42 dstport 4789 local $l remote $r dev "$VB"
	ip -n "$TL_B" addr add 198.18.21.2/24 dev "$VX"
	ip -n "$TL_B" link set "$VX" up
}

# start_a UNDERLAY: softoffload's endpoint in A (stdout A.json)
start_a() {
	if [ "$1" = 6 ]; then l="[2001:2:20::1]:4789" r="[2001:2:20::2]:4789"; else l=198.18.20.1:4789 r=198.18.20.2:4789; fi
	ip netns exec "$TL_A" "$SOFL" tunnel --encap vxlan --vni 42 --tun "$TAP" --local "$l" \
	    --remote "$r" --json ${SOFL_DROPS_ARGS:-} >"$TL_DIR/A.json" 2>"$TL_DIR/A.err" &
	TL_PID_A=$!
	TL_PIDS="$TL_PIDS $TL_PID_A"
	i=0
	until ip -n "$TL_A" link show "$TAP" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 50 ] && kill -0 $TL_PID_A 2>/dev/null || { cat "$TL_DIR/A.err" >&2; exit 1; }
		sleep 0.1
	done
	ip -n "$TL_A" addr add 198.18.21.1/24 dev "$TAP"
	ip -n "$TL_A" link set "$TAP" up
	ip netns exec "$TL_A" ping -c 1 -W 3 198.18.21.2 >/dev/null || bad "no ping through the tunnel"
}

wire_drops() {	# the veths' transmit drops, A's and B's
	echo "$(ip -n "$TL_A" -s link show "$VA" | awk '/TX:/ { getline; print $4; exit }')" \
	     "$(ip -n "$TL_B" -s link show "$VB" | awk '/TX:/ { getline; print $4; exit }')"
}

# xfer FROM TO DST LABEL: 400 MB of one TCP stream
xfer() {
	ip netns exec "$2" iperf3 -s -1 -B "$3" -p 5201 >/dev/null 2>&1 &
	spid=$!
	TL_PIDS="$TL_PIDS $spid"
	sleep 0.3
	w0=$(wire_drops)
	ip netns exec "$1" iperf3 -c "$3" -p 5201 -n 400M -J >"$TL_DIR/iperf.json" 2>&1 ||
	    { bad "$4: iperf3 failed"; cat "$TL_DIR/iperf.json" >&2; }
	wait "$spid" 2>/dev/null
	echo "$4: $(python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))["end"]
print("%.2f Gbit/s, %d retransmits" % (d["sum_received"]["bits_per_second"] / 1e9,
      d["sum_sent"].get("retransmits", 0)))' "$TL_DIR/iperf.json" 2>/dev/null)," \
	     "veth drops (A, B) before $w0, after $(wire_drops)"
}
# stop_a LABEL: stops A's tunnel; its drops (and A's UDP receive errors) checked
stop_a() {
	udp_err=$(ip netns exec "$TL_A" nstat 2>/dev/null | awk '$1 ~ /^Udp6?(RcvbufErrors|InErrors)$/ { n += $2 } END { print n + 0 }')
	tl_stop A || bad "$1: the tunnel exited $?"
	drops=$(tl_json A '(sum(d["tun"]["rx_drop"].values()) + sum(n for k, n in d["tun"]["tx_drop"].items() if k != "down") + sum(d["udp"]["rx_drop"].values()) + sum(d["udp"]["tx_drop"].values()) + sum(d["encap_drop"].values()) + sum(d["inner_drop"].values()) + d["kernel_tun_tx_dropped"])') ||
	    bad "$1: cannot read the counters"
	echo "$1: endpoint drops $drops ($(tl_json A '{k: v for k, v in (("tun", d["tun"]["rx_drop"] | d["tun"]["tx_drop"]), ("udp", d["udp"]["rx_drop"] | d["udp"]["tx_drop"]), ("tap_tx_dropped", d["kernel_tun_tx_dropped"]))}')), UdpRcvbufErrors + UdpInErrors $udp_err"
	[ "${drops:-x}" = 0 ] || bad "$1: the endpoint dropped $drops frames"
	[ "$udp_err" = 0 ] || bad "$1: the receive socket overflowed ($udp_err)"
}

for U in 4 6; do
kernel_b $U
start_a $U
ip netns exec "$TL_A" nstat -n
xfer "$TL_A" "$TL_B" 198.18.21.2 "underlay IPv$U, softoffload sends"
stop_a "underlay IPv$U, softoffload sends"
# one UDP_SEGMENT send per super-packet read from the TAP (the TAP's
# gso_max_segs capped at what one send holds: 1.24 sends each without)
echo "underlay IPv$U, softoffload sends: $(tl_json A 'd["udp"]["tx_super"]') UDP_SEGMENT sends for $(tl_json A 'd["tun"]["rx_super"]') super-packets"
tl_json A 'd["tun"]["rx_super"] > 0 and d["udp"]["tx_super"] <= 1.02 * d["tun"]["rx_super"]' | grep -q True ||
    bad "underlay IPv$U, softoffload sends: more than one UDP_SEGMENT send per super-packet"
start_a $U
ip netns exec "$TL_A" nstat -n
xfer "$TL_B" "$TL_A" 198.18.21.1 "underlay IPv$U, softoffload receives"
stop_a "underlay IPv$U, softoffload receives"
tl_json A 'd["tun"]["tx_super"] > 0' | grep -q True || bad "underlay IPv$U, softoffload receives: no TAP super-packets"
# the inner checksums of datagrams the kernel coalesced are trusted (it
# verified their non-zero outer checksum): software verifies (inner IP
# header and TCP/UDP: 2 each) only the datagrams received alone
echo "underlay IPv$U, softoffload receives: $(tl_json A 'd["tun"]["csum_sw_verify"]') checksums verified in software, $(tl_json A 'd["udp"]["rx_pkts"] - d["udp"]["rx_segs"]') datagrams received alone, $(tl_json A 'd["udp"]["rx_segs"]') coalesced"
tl_json A 'd["udp"]["rx_segs"] > 0 and d["tun"]["csum_sw_verify"] <= 2 * (d["udp"]["rx_pkts"] - d["udp"]["rx_segs"])' | grep -q True ||
    bad "underlay IPv$U, softoffload receives: inner checksums of coalesced receives verified again"
done
[ $fail = 0 ] && echo "summary: softoffload VXLAN <-> kernel VXLAN, 400 MB each way over IPv4 and IPv6 underlays: 0 frames dropped by the endpoint"
exit $fail
