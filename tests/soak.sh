#!/bin/sh
# Soak: softoffload tunnel under iperf3 -P 8 in both directions, inner IPv4
# and IPv6 at once (four iperf3 clients, 32 TCP streams), for SOAK_TIME
# seconds (60 in make check; `make soak`: 600).  Passes when both tunnels
# are still running, every client moved data, and the tunnels' resident
# memory is flat: the end within 10% (or 2 MB) of the value 3 s in.
# Prints the resident memory at start and end.  Root; exit 77 without tools.
set -u
. "$(dirname "$0")/tunnel.lib"
T=${SOAK_TIME:-60}
tl_require
trap tl_cleanup EXIT INT TERM
tl_underlay
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }

tl_start A 4 --stats-interval 10 && tl_start B 4 --stats-interval 10 || { echo "tunnel did not start"; exit 1; }
port=5301
for fam in 4 6; do
	for dir in "" -R; do
		if [ "$fam" = 6 ]; then dst=2001:2:1::2; else dst=198.18.1.2; fi
		ip netns exec "$TL_B" iperf3 -s -1 -B "$dst" -p $port >/dev/null 2>&1 &
		TL_PIDS="$TL_PIDS $!"
		port=$((port + 1))
	done
done
sleep 0.5
port=5301
cpids=""
for fam in 4 6; do
	for dir in "" -R; do
		if [ "$fam" = 6 ]; then dst=2001:2:1::2; else dst=198.18.1.2; fi
		ip netns exec "$TL_A" iperf3 -c "$dst" -p $port -P 8 -t "$T" $dir -J \
		    >"$TL_DIR/c$port.json" 2>&1 &
		cpids="$cpids $!"
		TL_PIDS="$TL_PIDS $!"
		port=$((port + 1))
	done
done
sleep 3
a0=$(rss "$TL_PID_A"); b0=$(rss "$TL_PID_B")
for p in $cpids; do wait "$p" || bad "an iperf3 client failed"; done
kill -0 "$TL_PID_A" 2>/dev/null || bad "tunnel A died"
kill -0 "$TL_PID_B" 2>/dev/null || bad "tunnel B died"
a1=$(rss "$TL_PID_A"); b1=$(rss "$TL_PID_B")
echo "resident memory (kB): A $a0 -> $a1, B $b0 -> $b1 over ${T} s"
for pair in "A $a0 $a1" "B $b0 $b1"; do
	set -- $pair
	[ "$3" -le $(( $2 + $2 / 10 + 2048 )) ] || bad "tunnel $1 grew from $2 to $3 kB"
done
for f in "$TL_DIR"/c*.json; do
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))["end"]
print("%s: %.2f Gbit/s, %d retransmits" % (sys.argv[1].split("/")[-1], d["sum_received"]["bits_per_second"]/1e9, d["sum_sent"].get("retransmits", 0)))
sys.exit(0 if d["sum_received"]["bytes"] > 1000000 else 1)' "$f" || bad "$f: no data"
done
tl_stop A; tl_stop B
for side in A B; do
	tl_json $side '"%s: super-packets read %d (%d segments), GRO super-packets %d (%d segments); drops: udp rx %s tx %s, tun rx %s tx %s, kernel TUN queue %d" % (sys.argv[1][-6], d["tun"]["rx_super"], d["tun"]["rx_segs"], d["gro"]["super_pkts"], d["gro"]["segs_merged"], d["udp"]["rx_drop"], d["udp"]["tx_drop"], d["tun"]["rx_drop"], d["tun"]["tx_drop"], d["kernel_tun_tx_dropped"])'
done
[ $fail = 0 ] && echo "soak: passed"
exit $fail
