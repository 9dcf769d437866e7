#!/bin/sh
# Description: GRO byte-identical to the running kernel's: real iperf3 TCP
# (IPv4, IPv6) and UDP captures between two namespaces, real VXLAN captures
# (iperf3 through a kernel VXLAN pair, outer and inner IPv4/IPv6, outer
# checksum zero and set) with loss/reorder/retransmission/bad-checksum
# variants, plus crafted flush cases, also inside VXLAN and IP-in-IP, replayed through the kernel (TAP, threaded NAPI, one poll per batch)
# and through softoffload GRO with the same poll boundaries.  See
# docs/kernel-oracle.md.  Needs root and network namespaces (else exit 77;
# a failure under SOFL_REQUIRE_ORACLE=1, as is any case left out).
set -u
. "$(dirname "$0")/kernel/lib.sh"
kernel_init sogro gro_kernel "kgro kgrocmp kcraft kcap kpcmp"
ip -n "$NSO" link set lo up

"$CLI" gro --help >/dev/null 2>&1 || fail "$CLI gro not available (make BUILD=$BUILD cli)"

total_in=0 total_out=0

# replay NAME PCAP KGRO_ARGS [udp]: kernel oracle, then the library (kgrocmp),
# then the CLI (softoffload gro --csum partial|full --poll-sizes).
replay() {
	name=$1 pcap=$2 args=$3 udp=${4:-}
	uflag=
	[ -n "$udp" ] && uflag=-u
	# shellcheck disable=SC2086
	ip netns exec "$NSO" "$K/kgro" -r "$pcap" -w "$dir/$name.k.pcap" -m "$dir/$name.k.vnet" \
	    -P "$dir/$name.polls" -O "$dir/$name.k.outs" $args $uflag > "$dir/$name.kgro.log" 2>&1
	rc=$?
	[ $rc = 77 ] && skip "$(tail -n 1 "$dir/$name.kgro.log")"
	[ $rc = 0 ] || { cat "$dir/$name.kgro.log" >&2; fail "$name: kernel oracle failed"; }
	echo "$name: $(cat "$dir/$name.kgro.log")"
	"$K/kgrocmp" $uflag -r "$pcap" -P "$dir/$name.polls" -O "$dir/$name.k.outs" \
	    -k "$dir/$name.k.pcap" -m "$dir/$name.k.vnet" -w "$dir/$name.o.pcap" \
	    -x "$dir/$name.o.vnet" 2> "$dir/$name.cmp.err" || {
		cat "$dir/$name.cmp.err" >&2
		# crafted sets: the cases (polls) that differ, by name
		[ -f "$dir/$name.labels" ] &&
			for n in $(sed -n 's/^  poll \([0-9]*\)[:,].*/\1/p' "$dir/$name.cmp.err" | sort -un); do
				grep "^poll $n:" "$dir/$name.labels" >&2
			done
		echo "$name: library GRO differs from the kernel" >&2; bad=1; }
	# real traffic (few flows): the large LRU table, which merges against
	# copies of the held headers, must give the same bytes
	[ -n "$lru" ] && { "$K/kgrocmp" $uflag -L 8192 -q -r "$pcap" -P "$dir/$name.polls" \
	    -O "$dir/$name.k.outs" \
	    -k "$dir/$name.k.pcap" -m "$dir/$name.k.vnet" || {
		echo "$name: library GRO (LRU table, 8192 flows) differs from the kernel" >&2; bad=1; }; }
	cudp=
	[ -n "$udp" ] && cudp=--udp
	# shellcheck disable=SC2086
	"$CLI" gro --csum partial $cudp $topt --poll-sizes "$(cat "$dir/$name.polls")" \
	    "$pcap" -o "$dir/$name.cli.pcap" > "$dir/$name.cli.log" 2>&1 ||
		{ cat "$dir/$name.cli.log" >&2; echo "$name: softoffload gro failed" >&2; bad=1; }
	"$K/kpcmp" "$dir/$name.k.pcap" "$dir/$name.cli.pcap" "$name: softoffload gro" || bad=1
	# --csum full: the kernel's output with its partial checksums completed.
	# shellcheck disable=SC2086
	"$CLI" gro --csum full $cudp $topt --poll-sizes "$(cat "$dir/$name.polls")" \
	    "$pcap" -o "$dir/$name.clif.pcap" > "$dir/$name.clif.log" 2>&1 ||
		{ cat "$dir/$name.clif.log" >&2; echo "$name: softoffload gro --csum full failed" >&2; bad=1; }
	"$K/kpcmp" -f "$dir/$name.k.vnet" "$dir/$name.k.pcap" "$dir/$name.clif.pcap" \
	    "$name: softoffload gro --csum full" || bad=1
	n_in=$(sed -n 's/^kgro: \([0-9]*\) frames.*/\1/p' "$dir/$name.kgro.log")
	n_out=$(sed -n 's/.*-> \([0-9]*\) frames out.*/\1/p' "$dir/$name.kgro.log")
	total_in=$((total_in + n_in)) total_out=$((total_out + n_out))
}

bad=0
lru=
topt=	# the CLI's tunnel option (section 3)

# 1. Crafted cases (selftest table and master table rows), one poll each.
# The VLAN cases need a kernel with 802.1Q (vlan_gro_receive); without it the
# kernel merges no tagged frame and they are left out, with a note.
novlan=
if ! { ip -n "$NSO" link add ov0 type veth peer name ov1 &&
       ip -n "$NSO" link add link ov0 name ov0.5 type vlan id 5; } 2>/dev/null; then
	novlan=-N
	drop_absent CONFIG_VLAN_8021Q "VLAN cases (kernel without 802.1Q VLAN support)"
fi
ip -n "$NSO" link del ov0 2>/dev/null
craft gro $novlan -w "$dir/craft.pcap" -B "$dir/craft.b" -L "$dir/craft-tcp.labels"
replay craft-tcp "$dir/craft.pcap" "-B $(cat "$dir/craft.b")"
# UDP super-packets reach AF_PACKET with PACKET_VNET_HDR only since 6.2
# (virtio_net_hdr_from_skb learnt SKB_GSO_UDP_L4 with USO; before, the
# packet socket drops them).
kv=$(uname -r | awk -F. '{ print $1 * 100 + $2 }')
if [ "$kv" -ge 602 ]; then
	craft udpgro -w "$dir/cudp.pcap" -B "$dir/cudp.b" -L "$dir/craft-udp.labels"
	replay craft-udp "$dir/cudp.pcap" "-B $(cat "$dir/cudp.b")" udp
else
	drop "crafted UDP cases (kernel $(uname -r) < 6.2 cannot report UDP GRO output)"
fi

# 2. Real traffic: iperf3 between two namespaces over veth.  The sender's
# veth has tso/gso/tx-checksumming off, so packets leave MSS-sized with
# complete checksums, as a NIC would deliver them; the receiver's veth has
# GRO off and we capture what it receives, before any GRO.
iperf_pair 1
ip netns exec "$NSC" ethtool -K sg0-$tag tx off tso off gso off >/dev/null 2>&1 ||
	fail "ethtool -K tx/tso/gso off"

# capture NAME CLIENT_ARGS...: one bounded iperf3 run, captured at the receiver.
capture() {
	iperf_capture 60000 "$@"
	echo "$name: $(cat "$dir/$name.cap.log")"
}

capture tcp4 -c 198.18.1.2 -n 8M
capture tcp6 -c 2001:2:0:1::2 -n 8M
capture tcp4p -c 198.18.1.2 -P 4 -n 4M
# Small writes with TCP_NODELAY: segments of uneven sizes, PSH everywhere.
capture tcp4n -c 198.18.1.2 -N -l 700 -n 2M
# ECN negotiated (ECE/CWR in the handshake, ECT(0) on data) and no TCP
# timestamps (no options on data segments, MSS 1460).
ip netns exec "$NSC" sysctl -qw net.ipv4.tcp_ecn=1 net.ipv4.tcp_timestamps=0
ip netns exec "$NSS" sysctl -qw net.ipv4.tcp_ecn=1 net.ipv4.tcp_timestamps=0
capture tcp4e -c 198.18.1.2 -n 4M
if [ "$kv" -ge 602 ]; then
	capture udp4 -c 198.18.1.2 -u -b 300M -l 1400 -n 3M
	capture udp6 -c 2001:2:0:1::2 -u -b 300M -l 1300 -n 3M
else
	drop "iperf3 UDP captures (kernel $(uname -r) < 6.2)"
fi

# Random poll sizes (1..max) under several seeds; an iperf3 run has one bulk
# flow (four interleaved ones with -P 4) and its control connection.
lru=1
for s in 1 2; do
	replay tcp4-s$s "$dir/tcp4.pcap" "-b 63 -S $s"
	replay tcp6-s$s "$dir/tcp6.pcap" "-b 48 -S $s"
done
replay tcp4-small "$dir/tcp4.pcap" "-b 5 -S 7"
replay tcp4-par4 "$dir/tcp4p.pcap" "-b 63 -S 4"
replay tcp4-nodelay "$dir/tcp4n.pcap" "-b 63 -S 6"
replay tcp4-ecn-nots "$dir/tcp4e.pcap" "-b 63 -S 8"
if [ "$kv" -ge 602 ]; then
	replay udp4 "$dir/udp4.pcap" "-b 63 -S 3" udp
	replay udp6 "$dir/udp6.pcap" "-b 40 -S 5" udp
fi

# 3. Tunnels.  The oracle namespace gets a VXLAN device on port 4789
# (collect-metadata mode: one IPv4 and one IPv6 socket, no address, no
# route), so udp4/6_gro_receive find a tunnel socket owning the port and
# run vxlan_gro_receive -> eth_gro_receive -> inet/ipv6 -> tcp.  The
# merged packets are not addressed to this namespace: after the packet
# socket has seen them, ip_rcv finds no route and drops them (forwarding
# is off: no ICMP); nothing is decapsulated.  IP-in-IP GRO (ipip, sit,
# ip4ip6, ip6ip6 offloads) is built into the kernel and needs no device.
novx=
if ip -n "$NSO" link add sovx0 type vxlan external dstport 4789 2>/dev/null; then
	ip -n "$NSO" link set sovx0 up || fail "VXLAN device up"
else
	novx=-I		# kcraft tungro: IP-in-IP only
	drop_absent CONFIG_VXLAN "VXLAN GRO cases (no VXLAN device in this kernel)"
fi
topt="--udp-tunnel 4789:vxlan"
lru=
# Crafted: the TCP flush table inside VXLAN (outer IPv4/IPv6, outer
# checksum zero/set) and IP-in-IP (4in4, 6in4, 4in6, 6in6), inner IPv4 and
# IPv6, plus the outer-layer cases (ports, VNI, flags, checksums, TTL, TOS,
# ID, DF, flow label, inner MAC, runt VXLAN header), one poll each.
craft tungro $novx -w "$dir/tun.pcap" -B "$dir/tun.b" -L "$dir/craft-tun.labels"
replay craft-tun "$dir/tun.pcap" "-B $(cat "$dir/tun.b")"
# The UDP table inside the same encapsulations (inner UDP GRO: forwarding
# mode, as for plain UDP above).
if [ "$kv" -ge 602 ]; then
	craft tungro -u $novx -w "$dir/tunu.pcap" -B "$dir/tunu.b" -L "$dir/craft-tunudp.labels"
	replay craft-tunudp "$dir/tunu.pcap" "-B $(cat "$dir/tunu.b")" udp
fi
# Real: iperf3 through a kernel VXLAN pair over the veth pair (the sender's
# veth segments and checksums in software: MSS-sized outer frames with
# complete checksums), captured on the underlay at the receiver.  TCP
# timestamps back on (options on every segment), ECN as by default.
ip netns exec "$NSC" sysctl -qw net.ipv4.tcp_ecn=2 net.ipv4.tcp_timestamps=1
ip netns exec "$NSS" sysctl -qw net.ipv4.tcp_ecn=2 net.ipv4.tcp_timestamps=1
vxc=
[ -z "$novx" ] && for v in "4 0 198.18.11.2" "4 1 2001:2:0:11::2" "6 1 198.18.11.2" "6 0 2001:2:0:11::2"; do
	# shellcheck disable=SC2086
	set -- $v
	vxlan_pair 1 "$1" "$2" || fail "VXLAN pair (outer IPv$1, checksum $2)"
	capture "vx$1$2" -c "$3" -n 3M
	vxc="$vxc vx$1$2"
done
vxlan_unpair
lru=1
s=20
for c in $vxc; do
	s=$((s + 1))
	replay $c "$dir/$c.pcap" "-b 63 -S $s"
	# loss, reordering, retransmissions, bad inner and outer checksums
	craft mangle -r "$dir/$c.pcap" -S $s -w "$dir/$c.m.pcap"
	replay $c-mangled "$dir/$c.m.pcap" "-b 48 -S $s"
done
topt=

oracle_summary "$total_in frames replayed, $total_out kernel outputs compared" \
	"(each with the library and the CLI)"
[ $bad = 0 ] || fail "softoffload GRO output differs from the kernel's (see above)"
exit 0
