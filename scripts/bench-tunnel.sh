#!/bin/sh
# Throughput of `softoffload tunnel` against the kernel's VXLAN over the same
# veth, in the same run (as root): one TCP stream (iperf3 -t $SECS) from
# namespace A to B for each underlay (default veth, "1500-byte wire": TSO/GSO/
# UDP segmentation off, GRO on) and each of: kernel VXLAN, tunnel --offload
# on, off, gso, gro, inner IPv6, --queues 2.  Prints Gbit/s, retransmits and
# whole-machine CPU seconds per Gbit (from /proc/stat, so anything else
# running on the machine is counted too), and of the transfer's own
# processes (iperf3 client and server, the two tunnels).
#   BUILD=build-x scripts/bench-tunnel.sh [SECS] [REPEATS]
set -u
SECS=${1:-5}
REPEATS=${2:-1}
. "$(dirname "$0")/../tests/tunnel.lib"
tl_require
trap tl_cleanup EXIT INT TERM

busy() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9}' /proc/stat; }
hz=$(getconf CLK_TCK)

# measure LABEL FAMILY [tunnel]: one iperf3 run, one result line.  CPU:
# whole machine (/proc/stat), and the transfer's own processes (both iperf3,
# both tunnels when there are: user + system, softirq work done in their
# context included; ksoftirqd's share not)
measure() {
	label=$1 fam=$2 tun=${3:-}
	b0=$(busy)
	t0=0; [ -n "$tun" ] && t0=$(echo "$(tl_cpu A) + $(tl_cpu B)" | bc)
	r=$(tl_iperf "$fam" "$SECS") || { echo "$label: iperf3 failed"; return; }
	b1=$(busy)
	t1=0; [ -n "$tun" ] && t1=$(echo "$(tl_cpu A) + $(tl_cpu B)" | bc)
	set -- $r
	echo "$label $3 $2 $b0 $b1 $4 $t0 $t1" | awk -v hz="$hz" -v s="$SECS" \
	    '{ g = $2; cpu = ($5 - $4) / hz; own = $6 / 100 * s + $8 - $7;
	       printf "%-22s %6.2f Gbit/s  retr %-5s  CPU s/Gbit: machine %.3f, transfer %.3f\n",
	       $1, g, $3, (g > 0 ? cpu / (g * s) : 0), (g > 0 ? own / (g * s) : 0) }'
}

vxlan_up() {
	for side in A B; do
		if [ $side = A ]; then ns=$TL_A me=1 peer=2 dev=va$TL_ID; else ns=$TL_B me=2 peer=1 dev=vb$TL_ID; fi
		ip -n "$ns" link add vx$TL_ID type vxlan id 42 local 198.18.0.$me remote 198.18.0.$peer \
		    dstport 4790 dev "$dev"
		ip -n "$ns" addr add 198.18.1.$me/30 dev vx$TL_ID
		ip -n "$ns" addr add 2001:2:1::$me/64 dev vx$TL_ID nodad
		ip -n "$ns" link set vx$TL_ID up
	done
}
vxlan_down() {
	ip -n "$TL_A" link del vx$TL_ID
	ip -n "$TL_B" link del vx$TL_ID
}

tunnel_run() {
	label=$1 fam=$2 ifam=$3; shift 3
	tl_start A "$fam" "$@" && tl_start B "$fam" "$@" || { echo "$label: tunnel did not start"; return; }
	sleep 0.2
	measure "$label" "$ifam" tunnel
	tl_stop A; tl_stop B
}

for wire in default wire1500; do
	ip netns del "$TL_A"; ip netns del "$TL_B"
	ip netns add "$TL_A"; ip netns add "$TL_B"
	tl_underlay $( [ $wire = wire1500 ] && echo wire1500 )
	echo "== underlay: $wire veth"
	rep=0
	while [ $rep -lt "$REPEATS" ]; do
		vxlan_up; sleep 0.3
		measure "kernel-vxlan" 4
		measure "kernel-vxlan-inner6" 6
		vxlan_down
		tunnel_run "tunnel-on" 4 4
		tunnel_run "tunnel-on-inner6" 4 6
		tunnel_run "tunnel-on-under6" 6 4
		tunnel_run "tunnel-off" 4 4 --offload off
		tunnel_run "tunnel-gso" 4 4 --offload gso
		tunnel_run "tunnel-gro" 4 4 --offload gro
		tunnel_run "tunnel-on-queues2" 4 4 --queues 2
		rep=$((rep + 1))
	done
done
