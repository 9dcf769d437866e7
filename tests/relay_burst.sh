#!/bin/sh
# Description: crafted TCP bursts sent into a live, unpinned `softoffload
# relay` (AF_PACKET veth -> TAP) coalesce as the kernel's GRO coalesces the
# same bursts, each taken whole by one NAPI poll (kgro: the oracle, TAP with
# IFF_NAPI; docs/kernel-oracle.md).  Each burst leaves the sender in one
# sendmmsg() (tests/kernel/kburst.c) and crosses the veth frame by frame;
# the relay wakes on its first frame and reads the rest in later reads,
# which without a flush timeout come out as 2-3 super-packets where the
# kernel makes one.  With a flush timeout (HOLD_US, 5000 us: the sender is
# a program on a shared CI machine, whose burst can be preempted for longer
# than the relay's default 1000 us; bursts are 20 ms apart) the
# captures (what the relay wrote to the TAP, read back with AF_PACKET) must
# equal the kernel's record for record, byte for byte, in every round; with
# --gro-flush-timeout 0 (the behaviour before it existed) they must differ,
# or nothing was tested.  Nothing is pinned: the relay and the sender run
# wherever the scheduler puts them.  Needs root and network namespaces
# (else 77).
set -u
. "$(dirname "$0")/kernel/lib.sh"
kernel_init sorb relay_burst "kburst kgro kcap kpcmp"
ROUNDS=${ROUNDS:-8}
HOLD_US=${HOLD_US:-5000}

# The oracle: each burst as one NAPI poll of the kernel's GRO
"$K/kburst" make "$dir/b.pcap" "$dir/sizes" "$ROUNDS" || fail "kburst make"
ip -n "$NSO" link set lo up
ip netns exec "$NSO" "$K/kgro" -r "$dir/b.pcap" -w "$dir/k.pcap" -m "$dir/k.vnet" \
    -P "$dir/k.polls" -B "$(cat "$dir/sizes")" > "$dir/kgro.log" 2>&1
rc=$?
[ $rc = 77 ] && skip "$(tail -n 1 "$dir/kgro.log")"
[ $rc = 0 ] || { cat "$dir/kgro.log" >&2; fail "kernel oracle failed"; }
kout=$("$CLI" rss "$dir/k.pcap" --queues 1 --format tsv | tail -n +2 | wc -l)
echo "kernel: $(cat "$dir/kgro.log")"

# The wire: VA (sender, NSC) -> VB (the relay's NIC, NSS), offloads off
# (wire-size frames), IPv6 off on both and on the TAP (no chatter).
VA=sorba$tag VB=sorbb$tag DEV=sorbt$tag
ip link add "$VA" netns "$NSC" type veth peer name "$VB" netns "$NSS" || fail "veth"
for ns_if in "$NSC $VA" "$NSS $VB"; do
	set -- $ns_if
	ip netns exec "$1" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1" || fail "sysctl"
	ip netns exec "$1" ethtool -K "$2" tso off gso off gro off tx off >/dev/null 2>&1 ||
		fail "ethtool -K $2"
	ip -n "$1" link set "$2" arp off up || fail "$2 up"
done

# run NAME FLUSH_TIMEOUT_ARGS...: the relay, a capture on its TAP, the bursts;
# the capture in $dir/NAME.pcap
run() {
	name=$1; shift
	ip netns exec "$NSS" "$CLI" relay "afpacket:$VB" "tap:$DEV" "$@" \
		> "$dir/$name.relay" 2>&1 &
	relay=$!
	pids="$pids $relay"
	for i in $(seq 50); do ip -n "$NSS" link show "$DEV" >/dev/null 2>&1 && break; sleep 0.1; done
	ip netns exec "$NSS" sysctl -qw "net.ipv6.conf.$DEV.disable_ipv6=1" || fail "sysctl $DEV"
	ip -n "$NSS" link set "$DEV" arp off up || fail "$DEV up"
	ip netns exec "$NSS" "$K/kcap" -i "$DEV" -w "$dir/$name.pcap" -m "$dir/$name.vnet" \
		-c 100000 -T 30 > "$dir/$name.kcap" 2>&1 &
	cap=$!
	pids="$pids $cap"
	for i in $(seq 50); do grep -q ready "$dir/$name.kcap" && break; sleep 0.1; done
	ip netns exec "$NSC" "$K/kburst" send "$VA" "$dir/b.pcap" "$dir/sizes" 20 ||
		fail "$name: kburst send"
	sleep 0.5
	kill -TERM "$cap" "$relay"
	wait "$cap"
	wait "$relay" || { cat "$dir/$name.relay" >&2; fail "$name: relay exited with $?"; }
	n=$("$CLI" rss "$dir/$name.pcap" --queues 1 --format tsv | tail -n +2 | wc -l)
	echo "$name: $n packets written to the TAP (kernel: $kout)"
}

bursts=$(tr ',' '\n' < "$dir/sizes" | wc -l)
run hold --gro-flush-timeout "$HOLD_US"
# Before the flush timeout (every read's flows written at its end) the
# relay splits bursts, or this test could not have failed.
run hold0 --gro-flush-timeout 0
"$K/kpcmp" "$dir/k.pcap" "$dir/hold.pcap" "relay, --gro-flush-timeout $HOLD_US" ||
	fail "the relay's GRO of $bursts bursts differs from the kernel's"
if "$K/kpcmp" "$dir/k.pcap" "$dir/hold0.pcap" "relay, --gro-flush-timeout 0" >/dev/null 2>&1; then
	fail "with --gro-flush-timeout 0 the relay also matched the kernel: no burst was split," \
	     "nothing was tested"
fi
oracle_summary "$bursts bursts ($ROUNDS rounds), $kout kernel outputs equal to the relay's" \
	"(--gro-flush-timeout $HOLD_US);" \
	"--gro-flush-timeout 0 split them into $n"
exit 0
