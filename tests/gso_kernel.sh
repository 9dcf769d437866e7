#!/bin/sh
# Description: GSO byte-identical to the running kernel's software
# segmentation: crafted TCP/UDP super-packets and real TSO super-packets
# captured from iperf3 (IPv4, IPv6), and VXLAN super-packets (crafted, and
# real ones from iperf3 through a kernel VXLAN pair) with the 24-byte tunnel
# virtio header, are written into a TAP bridged to a veth
# with tso/gso/tx-checksumming off, so Linux segments them in software; the
# segments are captured on the veth peer and compared, byte for byte, with
# softoffload's.  See docs/kernel-oracle.md.  Needs root and network
# namespaces (else exit 77; a failure under SOFL_REQUIRE_ORACLE=1, as is
# any case left out).
set -u
. "$(dirname "$0")/kernel/lib.sh"
kernel_init sogso gso_kernel "kgso kgsocmp kcraft kcap kpcmp kslice"

# The oracle: TAP gt0 (vnet headers) and veth gv0 in bridge gbr; gv0 cannot
# offload anything, so the kernel segments in software on its way out
# (validate_xmit_skb -> skb_gso_segment) and completes the checksums; gv1,
# the peer, receives the segments (no GRO).  A second TAP, gt1, takes the
# UDP-tunnel super-packets with the 24-byte virtio header (kgso -T sets its
# header size and offloads); gv0 has no tx-udp_tnl-(csum-)segmentation
# either, so skb_udp_tunnel_segment() runs in software too.  Jumbo MTU: segment sizes are
# the super-packets' business, not the path's.  No IPv6 (no ND chatter on
# the capture), no br_netfilter (it would re-validate IP headers).
ip netns exec "$NSO" sh -c '
	for f in /proc/sys/net/bridge/bridge-nf-call-*; do [ -e "$f" ] && echo 0 > "$f"; done
	sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1' ||
	fail "netns sysctls"
ip -n "$NSO" link set lo up
ip -n "$NSO" tuntap add dev gt0 mode tap vnet_hdr 2>/dev/null || skip "cannot create a TAP device"
ip -n "$NSO" tuntap add dev gt1 mode tap vnet_hdr || fail "TAP gt1"
ip -n "$NSO" link add gbr type bridge || skip "no bridge support"
ip -n "$NSO" link add gv0 type veth peer name gv1 || fail "veth"
ip -n "$NSO" link set gt0 master gbr && ip -n "$NSO" link set gv0 master gbr &&
	ip -n "$NSO" link set gt1 master gbr || fail "bridge ports"
for d in gt0 gt1 gbr gv0 gv1; do ip -n "$NSO" link set $d mtu 9000 || fail "mtu $d"; done
ip netns exec "$NSO" ethtool -K gv0 tx off tso off gso off >/dev/null 2>&1 || fail "ethtool -K gv0"
ip netns exec "$NSO" ethtool -K gv0 tx-udp-segmentation off >/dev/null 2>&1
ip netns exec "$NSO" ethtool -K gv0 tx-udp_tnl-segmentation off tx-udp_tnl-csum-segmentation off \
	>/dev/null 2>&1 || fail "ethtool -K gv0 tx-udp_tnl-(csum-)segmentation off"
ip netns exec "$NSO" ethtool -K gv1 gro off >/dev/null 2>&1 || fail "ethtool -K gv1 gro off"
ip netns exec "$NSO" ethtool -k gv0 | grep -Eq '^(tx-checksumming|generic-segmentation-offload|tcp-segmentation-offload): on' &&
	fail "gv0 still offloads: the kernel would not segment in software"
ip netns exec "$NSO" ethtool -k gv0 | grep -Eq '^tx-udp_tnl-(csum-)?segmentation: on' &&
	fail "gv0 still offloads UDP-tunnel segmentation: the kernel would not segment in software"
for d in gbr gv0 gv1 gt0 gt1; do ip -n "$NSO" link set $d up; done

"$CLI" gso --help >/dev/null 2>&1 || fail "$CLI gso not available (make BUILD=$BUILD cli)"
bad=0 total_sp=0 total_seg=0

# gv0_csum on|off: gv0's checksum offload (tx-checksumming); TSO, GSO and
# USO stay off, so the kernel keeps segmenting in software.
gv0_csum() {
	ip netns exec "$NSO" ethtool -K gv0 tx "$1" >/dev/null 2>&1 || fail "ethtool -K gv0 tx $1"
	ip netns exec "$NSO" ethtool -K gv0 tso off gso off tx-udp-segmentation off >/dev/null 2>&1
	ip netns exec "$NSO" ethtool -k gv0 | grep -Eq '^(generic-segmentation-offload|tcp-segmentation-offload): on' &&
		fail "gv0 offloads segmentation: the kernel would not segment in software"
	[ "$1" = on ] || ! ip netns exec "$NSO" ethtool -k gv0 | grep -q '^tx-checksumming: on' ||
		fail "gv0 still has tx-checksumming"
	return 0
}

# oracle NAME PCAP VNET [partial|-] [tunnel]: kernel segments, then the
# library, then the CLI.  "partial": gv0 has tx-checksumming on, segments
# stay partial.  "tunnel": UDP-tunnel super-packets (24-byte virtio header,
# TAP gt1; the CLI gets --udp-tunnel 4789:vxlan).
oracle() {
	name=$1 pcap=$2 vnet=$3
	popt= copt= topt= tap=gt0
	[ "${4:-}" = partial ] && popt=-p copt="--csum partial"
	[ "${5:-}" = tunnel ] && topt=-T tap=gt1 copt="$copt --udp-tunnel 4789:vxlan"
	# shellcheck disable=SC2086
	ip netns exec "$NSO" "$K/kgso" $topt -t $tap -c gv1 -r "$pcap" -m "$vnet" -w "$dir/$name.k.pcap" \
	    -x "$dir/$name.k.vnet" -n "$dir/$name.k.counts" > "$dir/$name.kgso.log" 2>&1
	rc=$?
	[ $rc = 77 ] && skip "$(tail -n 1 "$dir/$name.kgso.log")"
	[ $rc = 0 ] || { cat "$dir/$name.kgso.log" >&2; fail "$name: kernel oracle failed"; }
	echo "$name: $(cat "$dir/$name.kgso.log")"
	# shellcheck disable=SC2086
	"$K/kgsocmp" $popt $topt -r "$pcap" -m "$vnet" -k "$dir/$name.k.pcap" -x "$dir/$name.k.vnet" \
	    -n "$dir/$name.k.counts" -w "$dir/$name.o.pcap" || {
		echo "$name: library GSO differs from the kernel" >&2; bad=1; }
	total_sp=$((total_sp + $(wc -l < "$dir/$name.k.counts")))
	total_seg=$((total_seg + $(wc -l < "$dir/$name.k.vnet")))
	# The CLI takes one size for a whole capture (--mss for TCP,
	# --udp-gso-size for UDP): a capture with a single gso_size goes in
	# whole, otherwise each run of consecutive super-packets of one size.  Those the kernel
	# refused are left out (the CLI passes them through, counted), and so
	# are UFO super-packets (gso_type 3): the CLI fragments by --mtu, not by
	# a virtio gso_size (the library's UFO is compared by kgsocmp above).
	mss=$(awk '$2 != 0 { print $4 }' "$vnet" | sort -u)
	if [ "$(echo "$mss" | wc -l)" = 1 ] && [ -n "$mss" ] &&
	   ! grep -q '^0 ' "$dir/$name.k.counts" && ! awk '$2 % 16 == 5 || $2 == 3' "$vnet" | grep -q .; then
		# shellcheck disable=SC2086
		cli_cmp "$name" "$pcap" "$dir/$name.k.pcap" $copt --mss "$mss"
	else
		i=0 cli_n=0 cli_bad=0 runs=0 run_n=0 run_key=
		# shellcheck disable=SC2034
		while read -r fl gt hl gs cs co ot inh; do
			read -r cnt first <&3
			key=
			if [ "$cnt" != 0 ] && [ "$gt" != 0 ] && [ "$gt" != 3 ]; then
				key="--mss $gs"
				[ $((gt % 16)) = 5 ] && key="--udp-gso-size $gs"
			fi
			if [ -z "$key" ] || [ "$key" != "$run_key" ]; then
				cli_run
				run_key=$key
			fi
			if [ -n "$key" ]; then
				[ $run_n = 0 ] && run_i=$i run_k=$first run_kn=0
				run_n=$((run_n + 1)) run_kn=$((run_kn + cnt))
			fi
			i=$((i + 1))
		done < "$vnet" 3< "$dir/$name.k.counts"
		cli_run
		echo "$name: softoffload gso $copt: $cli_n super-packets in $runs runs of one size, $cli_bad runs differ"
	fi
}

# cli_run: the CLI over the current run of consecutive super-packets that
# take the same option (run_key) -- records run_i.. (run_n of them), whose
# kernel segments are run_k.. (run_kn) -- then an empty run.
cli_run() {
	[ "$run_n" -gt 0 ] || return 0
	"$K/kslice" "$pcap" "$run_i" "$run_n" "$dir/one.pcap" &&
	"$K/kslice" "$dir/$name.k.pcap" "$run_k" "$run_kn" "$dir/one.k.pcap" || fail "kslice"
	# shellcheck disable=SC2086
	cli_cmp "$name#$run_i+$run_n" "$dir/one.pcap" "$dir/one.k.pcap" $copt $run_key >/dev/null
	cli_n=$((cli_n + run_n)) runs=$((runs + 1)) run_n=0
}

cli_n=0 cli_bad=0
# cli_cmp NAME IN KERNEL_SEGMENTS OPTIONS...
cli_cmp() {
	n=$1 in=$2 ks=$3; shift 3
	"$CLI" gso "$@" "$in" -o "$dir/cli.pcap" > "$dir/cli.log" 2>&1 ||
		{ cat "$dir/cli.log" >&2; echo "$n: softoffload gso failed" >&2; bad=1; }
	"$K/kpcmp" "$ks" "$dir/cli.pcap" "$n: softoffload gso $*" ||
		{ bad=1; cli_bad=$((cli_bad + 1)); }
}

# 1. Crafted super-packets (TCP v4/v6 odd remainders, MSS 1, PSH/FIN, CWR,
# URG, timestamps, 64 KB, DF=0, IPv6 extension header, USO v4/v6, one the
# kernel must refuse).
craft gso -w "$dir/craft.pcap" -m "$dir/craft.vnet"
oracle craft "$dir/craft.pcap" "$dir/craft.vnet"

# 2. Real TSO super-packets: iperf3 with the sender's offloads on (veth
# default), captured on the receiving veth (GRO off) with their virtio
# headers: gso_type, gso_size and the partial checksum of the sending stack.
iperf_pair 2

capture() {
	iperf_capture 20000 "$@"
	n=$(awk '$2 != 0' "$dir/$name.vnet" | wc -l)
	echo "$name: $(cat "$dir/$name.cap.log"), $n of them GSO super-packets"
	[ "$n" -gt 0 ] || fail "$name: no super-packet captured (TSO off on the sender?)"
}

capture tso4 -c 198.18.2.2 -n 16M
capture tso6 -c 2001:2:0:2::2 -n 16M
oracle tso4 "$dir/tso4.pcap" "$dir/tso4.vnet"
oracle tso6 "$dir/tso6.pcap" "$dir/tso6.vnet"

# 3. The same with checksum offload on gv0 (still no TSO/GSO): the kernel
# segments in software but leaves each segment CHECKSUM_PARTIAL (pseudo sum
# in the field, NEEDS_CSUM in the virtio header); ours: --csum partial.
gv0_csum on
oracle craft-partial "$dir/craft.pcap" "$dir/craft.vnet" partial
oracle tso4-partial "$dir/tso4.pcap" "$dir/tso4.vnet" partial
oracle tso6-partial "$dir/tso6.pcap" "$dir/tso6.vnet" partial

# 4. UDP tunnels, with complete checksums, then partial ones: crafted VXLAN
# super-packets (outer IPv4/IPv6, outer checksum zero/set, inner TCP v4/v6
# and USO) and real ones: TSO through a kernel VXLAN pair (the sender's
# veth segments nothing: tx-udp_tnl-* are on by default), captured on the
# wire with the 10-byte header and given their tunnel header by kcraft
# tunvnet.  Last: after the real VXLAN replays the kernel dropped the
# crafted IPv6 UFO super-packets of a later partial-checksum run (see
# docs/kernel-oracle.md, Known limits).
# A TAP takes UDP-tunnel GSO since 6.17 (TUN_F_UDP_TUNNEL_GSO).
gv0_csum off
kv=$(uname -r | awk -F. '{ print $1 * 100 + $2 }')
tuns= vxs=
if [ "$kv" -ge 617 ]; then
	craft tungso -w "$dir/tun.pcap" -m "$dir/tun.vnet"
	oracle tun "$dir/tun.pcap" "$dir/tun.vnet" - tunnel
	tuns=tun
else
	drop "UDP-tunnel GSO cases (kernel $(uname -r) < 6.17: no TUN_F_UDP_TUNNEL_GSO)"
fi
ti=0
[ -n "$tuns" ] && for v in "4 0 198.18.12.2" "4 1 2001:2:0:12::2" "6 1 198.18.12.2" "6 0 2001:2:0:12::2"; do
	# shellcheck disable=SC2086
	set -- $v
	ti=$((ti + 1))
	if ! vxlan_pair 2 "$1" "$2"; then
		drop_absent CONFIG_VXLAN "real VXLAN GSO cases (no VXLAN device in this kernel)"
		break
	fi
	vxs="$vxs vx$ti"
	capture vx$ti -c "$3" -n 4M
	"$K/kcraft" tunvnet -r "$dir/vx$ti.pcap" -i "$dir/vx$ti.vnet" -w "$dir/vx$ti.t.pcap" \
	    -m "$dir/vx$ti.t.vnet" > /dev/null 2> "$dir/vx$ti.tv.log" || fail "kcraft tunvnet"
	echo "vx$ti (outer IPv$1, outer checksum $2, to $3): $(cat "$dir/vx$ti.tv.log")"
	grep -q ': 0 of ' "$dir/vx$ti.tv.log" && fail "vx$ti: no VXLAN super-packet captured"
	oracle vx$ti "$dir/vx$ti.t.pcap" "$dir/vx$ti.t.vnet" - tunnel
done
vxlan_unpair

gv0_csum on
for c in $tuns $vxs; do
	p=$dir/$c.t
	[ "$c" = tun ] && p=$dir/tun
	oracle $c-partial "$p.pcap" "$p.vnet" partial tunnel
done

oracle_summary "$total_sp super-packets, $total_seg kernel segments compared" \
	"(each with the library and the CLI)"
[ $bad = 0 ] || fail "softoffload GSO output differs from the kernel's (see above)"
exit 0
