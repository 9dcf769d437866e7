#!/bin/sh
# softoffload tunnel --encap vxlan against the kernel's own VXLAN device.
# Namespace A runs `softoffload tunnel --encap vxlan` on a TAP, namespace B
# a Linux vxlan device (`ip link add ... type vxlan id 42 dstport 4789`),
# joined by a veth with a 1500-byte MTU, segmentation offloads off and GRO
# on (the wire a NIC without TSO makes), over an IPv4 and an IPv6 underlay:
#   - ping both ways (inner IPv4 and IPv6);
#   - a file carried over TCP both ways, compared by sha256;
#   - iperf3 over inner IPv4 and IPv6, both directions, with the counters
#     showing super-packets formed both ways (TSO from the TAP cut and sent
#     with UDP_SEGMENT; UDP_GRO buffers coalesced by GRO into TAP
#     super-packets);
#   - bad input from the underlay: VXLAN with the I flag clear, reserved
#     bits set, a VNI not ours, an inner frame too short, a datagram from an
#     address that is not the remote: each dropped, counted by its reason,
#     never written to the TAP;
#   - two remotes (two kernel VXLAN devices behind one softoffload
#     endpoint): broadcasts flooded to both, the inner MACs learned, unicast
#     frames sent only to the remote their MAC lives behind;
#   - Geneve (Linux here has no geneve module: softoffload on both ends),
#     Ethernet and IP payloads, and a Geneve datagram with the C bit
#     (critical options) dropped and counted.
# The veths also have transmit checksumming off: a veth hands a packet whose
# checksum is still partial to the other namespace as it is, so the inner
# TCP checksum that a NIC (or the sender's software fallback) would have
# completed arrives unfinished; with it off the kernel completes it, as on a
# real wire.  Root; exit 77 without the tools (never in CI: root, 6.x).
set -u
. "$(dirname "$0")/tunnel.lib"
TL_A=t22a$TL_ID
TL_B=t22b$TL_ID
tl_require
TL_C=t22c$TL_ID
cleanup() { ip netns del "$TL_C" 2>/dev/null; tl_cleanup; }
trap cleanup EXIT INT TERM
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }
expect() {
	v=$(tl_json "$1" "$2") || { bad "$MODE: $1: cannot read counters"; return; }
	[ "$v" = True ] || bad "$MODE: $1: $2 is false ($(tl_json "$1" "$3" 2>/dev/null))"
}
command -v ethtool >/dev/null || tl_skip "no ethtool"
command -v ping >/dev/null || tl_skip "no ping"
VA=va$TL_ID VB=vb$TL_ID TAP=tp$TL_ID VX=vx$TL_ID
A4=198.18.20.1 B4=198.18.20.2 A6=2001:2:20::1 B6=2001:2:20::2
IA4=198.18.21.1 IB4=198.18.21.2 IA6=2001:2:21::1 IB6=2001:2:21::2
ip link add "$VA" type veth peer name "$VB"
ip link set "$VA" netns "$TL_A"
ip link set "$VB" netns "$TL_B"
ip -n "$TL_A" addr add $A4/24 dev "$VA"
ip -n "$TL_B" addr add $B4/24 dev "$VB"
ip -n "$TL_B" addr add 198.18.20.9/32 dev "$VB"		# a stranger
ip -n "$TL_A" addr add $A6/64 dev "$VA" nodad
ip -n "$TL_B" addr add $B6/64 dev "$VB" nodad
for ns in "$TL_A" "$TL_B"; do ip -n "$ns" link set lo up; done
ip -n "$TL_A" link set "$VA" up
ip -n "$TL_B" link set "$VB" up
ip netns exec "$TL_A" ethtool -K "$VA" tso off gso off tx-udp-segmentation off gro on tx off >/dev/null 2>&1
ip netns exec "$TL_B" ethtool -K "$VB" tso off gso off tx-udp-segmentation off gro on tx off >/dev/null 2>&1
ip -n "$TL_A" route add 198.18.20.9/32 dev "$VA"

# start_sofl UNDERLAY(4|6) [options]: softoffload on a TAP in A
start_sofl() {
	fam=$1; shift
	if [ "$fam" = 6 ]; then l="[$A6]:4789" r="[$B6]:4789"; else l="$A4:4789" r="$B4:4789"; fi
	ip netns exec "$TL_A" "$SOFL" tunnel --tun "$TAP" --local "$l" --remote "$r" --json "$@" \
	    >"$TL_DIR/A.json" 2>"$TL_DIR/A.err" &
	TL_PID_A=$!
	TL_PIDS="$TL_PIDS $TL_PID_A"
	i=0
	until ip -n "$TL_A" link show "$TAP" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 50 ] && kill -0 $TL_PID_A 2>/dev/null || { cat "$TL_DIR/A.err" >&2; return 1; }
		sleep 0.1
	done
	ip -n "$TL_A" addr add $IA4/24 dev "$TAP"
	ip -n "$TL_A" addr add $IA6/64 dev "$TAP" nodad
	ip -n "$TL_A" link set "$TAP" up
}

# kernel_vxlan UNDERLAY: the kernel's VXLAN device in B (MTU from the veth)
kernel_vxlan() {
	ip -n "$TL_B" link del "$VX" 2>/dev/null
	if [ "$1" = 6 ]; then
		ip -n "$TL_B" link add "$VX" type vxlan id 42 dstport 4789 local $B6 remote $A6 dev "$VB" || return 1
	else
		ip -n "$TL_B" link add "$VX" type vxlan id 42 dstport 4789 local $B4 remote $A4 dev "$VB" || return 1
	fi
	ip -n "$TL_B" addr add $IB4/24 dev "$VX"
	ip -n "$TL_B" addr add $IB6/64 dev "$VX" nodad
	ip -n "$TL_B" link set "$VX" up
}

# file_check FROM TO DST: a 3 MB file over TCP, sha256 compared
file_check() {
	from=$1 to=$2 dst=$3
	case $dst in *:*) af=AF_INET6 ;; *) af=AF_INET ;; esac
	head -c 3000000 /dev/urandom >"$TL_DIR/in.bin"
	ip netns exec "$to" python3 -c '
import hashlib, socket, sys
s = socket.socket(getattr(socket, sys.argv[2]), socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], 5202)); s.listen(1); s.settimeout(10)
c, _ = s.accept(); c.settimeout(10)
h = hashlib.sha256()
while True:
    d = c.recv(1 << 16)
    if not d: break
    h.update(d)
print(h.hexdigest())' "$dst" "$af" >"$TL_DIR/out.sum" 2>&1 &
	spid=$!
	TL_PIDS="$TL_PIDS $spid"
	ip netns exec "$from" python3 -c '
import socket, sys, time
end = time.monotonic() + 10
while True:
    try:
        s = socket.create_connection((sys.argv[1], 5202), timeout=10)
        break
    except ConnectionRefusedError:
        if time.monotonic() > end: raise
        time.sleep(0.05)
s.sendall(open(sys.argv[2], "rb").read()); s.close()' "$dst" "$TL_DIR/in.bin" ||
	    bad "$MODE: sending the file to $dst failed"
	wait "$spid"
	a=$(sha256sum <"$TL_DIR/in.bin" | cut -d" " -f1); b=$(cat "$TL_DIR/out.sum")
	[ "$a" = "$b" ] || bad "$MODE: file to $dst: sha256 $b, expected $a"
}

# iperf FROM TO DST: 2 s of one TCP stream; prints "<bytes> <retransmits> <Gbit/s>"
iperf() {
	ip netns exec "$2" iperf3 -s -1 -B "$3" -p 5201 >/dev/null 2>&1 &
	spid=$!
	TL_PIDS="$TL_PIDS $spid"
	sleep 0.3
	ip netns exec "$1" iperf3 -c "$3" -p 5201 -t 2 -J >"$TL_DIR/iperf.json" 2>&1
	rc=$?
	wait "$spid" 2>/dev/null
	[ $rc = 0 ] || { cat "$TL_DIR/iperf.json" >&2; return 1; }
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))["end"]
print(int(d["sum_received"]["bytes"]), int(d["sum_sent"].get("retransmits", 0)),
      "%.2f" % (d["sum_received"]["bits_per_second"] / 1e9))' "$TL_DIR/iperf.json"
}

pings() {
	for d in $IB4 $IB6; do
		ip netns exec "$TL_A" ping -c 2 -i 0.2 -W 2 $d >/dev/null || bad "$MODE: ping A -> $d"
	done
	for d in $IA4 $IA6; do
		ip netns exec "$TL_B" ping -c 2 -i 0.2 -W 2 $d >/dev/null || bad "$MODE: ping B -> $d"
	done
}

# ---- interop with the kernel's VXLAN, over IPv4 and IPv6 underlays ----
for fam in 4 6; do
	MODE="vxlan interop, underlay IPv$fam"
	kernel_vxlan $fam || { bad "$MODE: cannot create a vxlan device"; continue; }
	start_sofl $fam --encap vxlan --vni 42 || { bad "$MODE: tunnel did not start"; continue; }
	pings
	file_check "$TL_A" "$TL_B" $IB4
	file_check "$TL_B" "$TL_A" $IA6
	for p in "$TL_A $TL_B $IB4" "$TL_A $TL_B $IB6" "$TL_B $TL_A $IA4" "$TL_B $TL_A $IA6"; do
		set -- $p
		r=$(iperf "$1" "$2" "$3") || { bad "$MODE: iperf3 to $3 failed"; continue; }
		set -- $r
		[ "$1" -gt 10000000 ] || bad "$MODE: iperf3 to $p: only $1 bytes"
		echo "$MODE, to ${p##* }: $3 Gbit/s, $2 retransmits"
	done
	tl_stop A || bad "$MODE: A exited $?"
	grep -q . "$TL_DIR/A.err" && { echo "A stderr:"; cat "$TL_DIR/A.err"; }
	# TAP -> kernel: TSO super-packets read, cut, sent with UDP_SEGMENT
	expect A 'd["tun"]["rx_super"] > 0 and d["tun"]["rx_segs"] > d["tun"]["rx_super"]' 'd["tun"]'
	expect A 'd["udp"]["tx_super"] > 0 and d["udp"]["tx_segs"] > d["udp"]["tx_super"]' 'd["udp"]'
	# kernel -> TAP: UDP_GRO buffers, GRO super-packets written
	expect A 'd["udp"]["rx_super"] > 0 and d["gro"]["super_pkts"] > 0' 'd["gro"]'
	expect A 'd["tun"]["tx_super"] > 0 and d["tun"]["tx_segs"] > d["tun"]["tx_super"]' 'd["tun"]'
	expect A 'sum(d["encap_drop"].values()) == 0 and sum(d["inner_drop"].values()) == 0' 'd'
	# the kernel's side saw frames, received none with errors
	ip -n "$TL_B" -s link show "$VX" | awk 'f { if ($3 != 0) exit 1; f = 0 } /RX:/ { f = 1 }' ||
	    bad "$MODE: the vxlan device counted receive errors"
done

# ---- two remotes: flooding and MAC learning ----
MODE="vxlan, two remotes"
kernel_vxlan 4
ip netns add "$TL_C"
ip link add "vc$TL_ID" type veth peer name "vd$TL_ID"
ip link set "vc$TL_ID" netns "$TL_A"
ip link set "vd$TL_ID" netns "$TL_C"
ip -n "$TL_C" link set lo up
ip -n "$TL_A" link set "vc$TL_ID" up
ip -n "$TL_C" link set "vd$TL_ID" up
ip -n "$TL_C" addr add 198.18.20.3/32 dev "vd$TL_ID"
ip -n "$TL_A" route add 198.18.20.3/32 dev "vc$TL_ID"
ip -n "$TL_C" route add 198.18.20.1/32 dev "vd$TL_ID"
ip netns exec "$TL_A" ethtool -K "vc$TL_ID" tso off gso off tx-udp-segmentation off gro on tx off >/dev/null 2>&1
ip netns exec "$TL_C" ethtool -K "vd$TL_ID" tso off gso off tx-udp-segmentation off gro on tx off >/dev/null 2>&1
ip -n "$TL_C" link add "$VX" type vxlan id 42 dstport 4789 local 198.18.20.3 remote $A4 dev "vd$TL_ID"
ip -n "$TL_C" link set "$VX" mtu 1450 up
ip -n "$TL_C" addr add 198.18.21.3/24 dev "$VX"
start_sofl 4 --encap vxlan --vni 42 --remote 198.18.20.3:4789 || bad "$MODE: tunnel did not start"
ip netns exec "$TL_A" ping -c 2 -i 0.2 -W 2 $IB4 >/dev/null || bad "$MODE: ping B"
ip netns exec "$TL_A" ping -c 2 -i 0.2 -W 2 198.18.21.3 >/dev/null || bad "$MODE: ping C"
c0=$(ip -n "$TL_C" -s link show "$VX" | awk '/RX:/ { getline; print $2; exit }')
r=$(iperf "$TL_A" "$TL_B" $IB4) || bad "$MODE: iperf3 to B failed"
c1=$(ip -n "$TL_C" -s link show "$VX" | awk '/RX:/ { getline; print $2; exit }')
echo "$MODE: to B $(echo "$r" | cut -d" " -f3) Gbit/s; C's VXLAN device received $((c1 - c0)) packets meanwhile"
[ $((c1 - c0)) -lt 100 ] || bad "$MODE: C received $((c1 - c0)) packets of the stream to B (not learned?)"
file_check "$TL_C" "$TL_A" $IA4
tl_stop A || bad "$MODE: A exited $?"
expect A 'd["macs_learned"] >= 2 and d["flooded"] > 0' 'd'
ip -n "$TL_B" link del "$VX"
ip -n "$TL_C" link del "$VX"

# ---- bad input from the underlay (underlay IPv4, the kernel device gone) ----
inject() {	# PROTO: sends the crafted datagrams from B (and 198.18.20.9)
	ip netns exec "$TL_B" python3 - "$1" <<'PY'
import socket, struct, sys
geneve = sys.argv[1] == "geneve"
good_eth = bytes.fromhex("ffffffffffff020000000001") + b"\x08\x06" + b"\x00" * 28
def vx(flags=0x08000000, vni=42, low=0):
    return struct.pack("!II", flags, vni << 8 | low)
def gnv(optlen=0, flags=0, proto=0x6558, vni=42, ver=0):
    return struct.pack("!BBHI", ver << 6 | optlen, flags, proto, vni << 8) + b"\x00" * (4 * optlen)
if geneve:
    bad = {"geneve_critical": gnv(optlen=1, flags=0x40) + good_eth,
           "geneve_oam": gnv(flags=0x80) + good_eth,
           "geneve_version": gnv(ver=1) + good_eth,
           "geneve_proto": gnv(proto=0x0800) + good_eth,
           "vni": gnv(vni=43) + good_eth,
           "eth_short": gnv(optlen=1) + good_eth[:10],
           "hdr_short": gnv(optlen=5)[:24],
           # below the header plus an Ethernet header: the UDP port's runts
           "runt": gnv() + good_eth[:10],
           "runt ": gnv(optlen=3)[:12]}
else:
    bad = {"vxlan_flags": vx(flags=0) + good_eth,
           "vxlan_flags ": vx(flags=0x08000100) + good_eth,
           "vxlan_flags  ": vx(low=1) + good_eth,
           "vni": vx(vni=43) + good_eth,
           # below the header plus an Ethernet header: the UDP port's runts
           "runt": vx() + good_eth[:10],
           "runt ": vx()[:5]}
peer = socket.socket(); peer = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
peer.bind(("198.18.20.2", 0))
stranger = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
stranger.bind(("198.18.20.9", 0))
for i in range(50):
    for d in bad.values():
        peer.sendto(d, ("198.18.20.1", 4789))
    stranger.sendto((gnv() if geneve else vx()) + good_eth, ("198.18.20.1", 4789))
PY
}
for enc in vxlan geneve; do
	MODE="bad $enc datagrams"
	start_sofl 4 --encap $enc --vni 42 || { bad "$MODE: no start"; continue; }
	inject $enc
	sleep 0.3
	tl_stop A || bad "$MODE: A exited $?"
	expect A 'd["tun"]["tx_pkts"] == 0' 'd["tun"]'
	if [ $enc = vxlan ]; then
		expect A 'all(d["encap_drop"][k] == n for k, n in (("vxlan_flags", 150), ("vni", 50), ("unknown_remote", 50)))' 'd["encap_drop"]'
	else
		expect A 'all(d["encap_drop"][k] == 50 for k in ("geneve_critical", "geneve_oam", "geneve_version", "geneve_proto", "vni", "eth_short", "hdr_short", "unknown_remote"))' 'd["encap_drop"]'
	fi
	expect A 'd["udp"]["rx_drop"].get("runt", 0) == 100' 'd["udp"]["rx_drop"]'
done

# ---- Geneve, softoffload at both ends: Ethernet and IP payloads ----
for inner in eth ip; do
	MODE="geneve --inner $inner"
	if [ $inner = ip ]; then dev=tun; else dev=tap; fi
	start_sofl 4 --encap geneve --vni 7 --inner $inner || { bad "$MODE: A did not start"; continue; }
	ip netns exec "$TL_B" "$SOFL" tunnel --tun "$VX" --local "$B4:4789" --remote "$A4:4789" \
	    --encap geneve --vni 7 --inner $inner --json >"$TL_DIR/B.json" 2>"$TL_DIR/B.err" &
	TL_PID_B=$!; TL_PIDS="$TL_PIDS $TL_PID_B"
	i=0; until ip -n "$TL_B" link show "$VX" >/dev/null 2>&1 || [ $i -gt 50 ]; do i=$((i + 1)); sleep 0.1; done
	ip -n "$TL_B" addr add $IB4/24 dev "$VX"
	ip -n "$TL_B" addr add $IB6/64 dev "$VX" nodad
	ip -n "$TL_B" link set "$VX" up
	pings
	file_check "$TL_A" "$TL_B" $IB6
	r=$(iperf "$TL_B" "$TL_A" $IA4) || bad "$MODE: iperf3 failed"
	echo "$MODE: $(echo "$r" | cut -d" " -f3) Gbit/s"
	tl_stop A; tl_stop B
	expect A 'd["encap"] == "geneve" and d["gro"]["super_pkts"] > 0 and d["tun"]["tx_super"] > 0' 'd'
	expect B 'd["tun"]["rx_super"] > 0 and d["udp"]["tx_super"] > 0' 'd'
done

[ $fail = 0 ] && echo "summary: softoffload VXLAN <-> kernel VXLAN (IPv4 and IPv6 underlays): ping, sha256 files, iperf3 both ways; malformed VXLAN/Geneve dropped by reason; Geneve eth and ip"
exit $fail
