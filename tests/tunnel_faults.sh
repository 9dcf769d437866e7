#!/bin/sh
# softoffload tunnel under faults, in every --encap mode (ip, vxlan,
# geneve, softoffload at both ends): each must leave the tunnel running,
# the data that TCP carries intact, and its counters saying what happened.
#   1. the peer stopped and restarted in the middle of a TCP transfer (its
#      TUN/TAP persistent, so the connection survives); with --encap ip (a
#      connected socket) ICMP port unreachable comes back as ECONNREFUSED,
#      counted as "refused" drops;
#   2. a flood of malformed datagrams at the tunnel's port during a TCP
#      transfer, from the peer's address and from another (198.18.0.9):
#      --encap ip: not IP, wrong lengths, short, IP packets with bad TCP
#      checksums; vxlan/geneve: every malformed header kind, short inner
#      frames, and frames with bad TCP checksums in valid headers: each
#      counted by its reason (and bad checksums as GRO's l4-csum bypasses
#      when checksums are verified);
#   3. a full socket buffer: the receiving tunnel stopped (SIGSTOP) while a
#      UDP flood comes in, so its receive buffer overflows: counted as
#      rcvbuf-full drops (SO_RXQ_OVFL), and TCP works again afterwards;
#   4. the TUN/TAP deleted under a running tunnel: it exits 1 and says the
#      device was deleted (not a misleading "Resource temporarily
#      unavailable");
#   5. a bounded flood of 20-byte datagrams from the peer's own address
#      (tests/kernel/kflood: FLOOD_N at 100,000 a second) during a
#      sha256-checked transfer: every one counted by its reason (VXLAN and
#      Geneve: the UDP port's "runt", below the tunnel header plus the inner
#      Ethernet header, before any header check; ip: not_ip), none lost
#      uncounted, none a header-check or GRO drop; the transfer intact and
#      at least a tenth as fast as the same transfer without the flood (the
#      same run; the issue's failure was 0.17 of 7 Gbit/s); VXLAN and
#      Geneve drop them in the kernel (--runt-drop kernel, the default);
#   5b. VXLAN/Geneve, IPv4 and IPv6 underlays: runts alone; with
#      --runt-drop kernel the tunnel's UDP port never wakes for them (fewer
#      than 100 receive calls) and each one is counted, exactly; with
#      --runt-drop port each is read and counted by the port.
# Root; exit 77 without the tools.  TL_ENCAPS limits the modes.
set -u
. "$(dirname "$0")/tunnel.lib"
tl_require
trap tl_cleanup EXIT INT TERM
tl_underlay
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }
expect() {
	v=$(tl_json "$1" "$2") || { bad "$MODE: $1: cannot read counters"; return; }
	[ "$v" = True ] || bad "$MODE: $1: $2 is false ($(tl_json "$1" "$3" 2>/dev/null))"
}
alive() {
	eval "p=\$TL_PID_$1"
	kill -0 "$p" 2>/dev/null || bad "$MODE: tunnel $1 died ($(cat "$TL_DIR/$1.err"))"
}
K=$BUILD/tests/kernel
for b in kflood ktcp; do [ -x "$K/$b" ] || { echo "FAIL: $K/$b missing (make BUILD=$BUILD tests)" >&2; exit 1; }; done
FLOOD_N=${FLOOD_N:-200000}
head -c 48000000 /dev/urandom >"$TL_DIR/data"
SUM=$(sha256sum <"$TL_DIR/data")
# xfer: the file A -> B through the tunnel (sha256 checked); prints its seconds
xfer() {
	rm -f "$TL_DIR/out"
	timeout 120 ip netns exec "$TL_B" "$K/ktcp" recv 198.18.1.2 5301 "$TL_DIR/out" >"$TL_DIR/kr" 2>&1 &
	kr=$!; TL_PIDS="$TL_PIDS $kr"
	i=0; until grep -q ready "$TL_DIR/kr" 2>/dev/null || [ $i -gt 50 ]; do i=$((i + 1)); sleep 0.1; done
	t0=$(date +%s.%N)
	timeout 120 ip netns exec "$TL_A" "$K/ktcp" send 198.18.1.2 5301 "$TL_DIR/data" 2>"$TL_DIR/ks" ||
		bad "$MODE: transfer failed: $(cat "$TL_DIR/ks" "$TL_DIR/kr")"
	t1=$(date +%s.%N)
	wait "$kr" || bad "$MODE: receiver failed: $(cat "$TL_DIR/kr")"
	[ "$(sha256sum <"$TL_DIR/out")" = "$SUM" ] || bad "$MODE: data differs ($(wc -c <"$TL_DIR/out") bytes)"
	echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }'
}
# wire_drops: datagrams the veth itself dropped (never reached B's socket)
wire_drops() {
	a=$(ip -n "$TL_A" -s -j link show "va$TL_ID" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["tx"]["dropped"])')
	b=$(ip -n "$TL_B" -s -j link show "vb$TL_ID" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["rx"]["dropped"])')
	echo $((a + b))
}
ip -n "$TL_A" addr add 198.18.0.9/32 dev "va$TL_ID"
ip -n "$TL_B" route add 198.18.0.9/32 dev "vb$TL_ID"

# iperf_bg: a 3 s TCP transfer A -> B in the background (spid, cpid)
iperf_bg() {
	ip netns exec "$TL_B" iperf3 -s -1 -B 198.18.1.2 -p 5201 >/dev/null 2>&1 &
	spid=$!; TL_PIDS="$TL_PIDS $spid"
	sleep 0.3
	ip netns exec "$TL_A" iperf3 -c 198.18.1.2 -p 5201 -t "$1" -J >"$TL_DIR/ip.json" 2>&1 &
	cpid=$!; TL_PIDS="$TL_PIDS $cpid"
}
got_through() {
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))["end"]; sys.exit(0 if d["sum_received"]["bytes"] > 1000000 else 1)' \
	    "$TL_DIR/ip.json" || bad "$MODE: TCP did not get through"
}

# flood ENCAP: 20000 rounds of malformed datagrams at B's port(s) from the
# peer's address, one in ten also from 198.18.0.9
flood() {
	ip netns exec "$TL_A" python3 - "$1" <<'PY'
import os, socket, struct, sys
enc = sys.argv[1]
def sock(src):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((src, 0))
    return s
peer, stranger = sock("198.18.0.1"), sock("198.18.0.9")
def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16: s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
def ip4(payload, tot=None, proto=6):
    tot = tot if tot is not None else 20 + len(payload)
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, tot, 1, 0, 64, proto, 0,
                    socket.inet_aton("198.18.1.1"), socket.inet_aton("198.18.1.2"))
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]     # a valid IP header
    return h + payload
tcp_bad = struct.pack("!HHIIBBHHH", 40000, 5201, 1, 1, 0x50, 0x10, 512, 0xdead, 0) + b"x" * 100
eth = lambda p: b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x09" + b"\x08\x00" + p
vx = lambda flags=0x08000000, vni=42: struct.pack("!II", flags, vni << 8)
gnv = lambda b0=0, b1=0, proto=0x6558, vni=42: struct.pack("!BBHI", b0, b1, proto, vni << 8)
if enc == "ip":
    ports = (4789, 4790)
    kinds = [lambda: os.urandom(100) if os.urandom(1)[0] & 1 else b"\x00" * 64,   # not IP
             lambda: ip4(b"y" * 50, tot=999),                                  # bad length
             lambda: b"\x45\x00",                                              # short
             lambda: ip4(tcp_bad)]                                             # bad TCP checksum
elif enc == "vxlan":
    ports = (4789,)
    kinds = [lambda: vx(flags=0) + eth(ip4(tcp_bad)),                          # I flag clear
             lambda: vx(flags=0x08000001) + eth(ip4(tcp_bad)),                 # reserved bit
             lambda: vx(vni=43) + eth(ip4(tcp_bad)),                           # not our VNI
             lambda: vx()[:6],                                                 # short header: a runt
             lambda: vx() + b"\x00" * 9,                                       # short frame: a runt
             lambda: os.urandom(64),                                           # noise
             lambda: vx() + eth(ip4(tcp_bad))]                                 # bad TCP checksum
else:
    ports = (4789,)
    kinds = [lambda: gnv(b0=1, b1=0x40) + b"\x01\x02\x83\x00" + eth(ip4(tcp_bad)),  # critical option
             lambda: gnv(b1=0x80) + eth(ip4(tcp_bad)),                         # OAM
             lambda: gnv(b0=0x40) + eth(ip4(tcp_bad)),                         # version 1
             lambda: gnv(proto=0x0800) + ip4(tcp_bad),                         # IP inside, not ours
             lambda: gnv(vni=43) + eth(ip4(tcp_bad)),                          # not our VNI
             lambda: gnv(b0=4) + b"\x00" * 8,                                  # options past the end
             lambda: gnv() + b"\x00" * 9,                                      # short: a runt
             lambda: gnv(b0=0x3f) + b"\x00" * 20,                              # options past the end
             lambda: gnv(b0=1) + b"\x01\x02\x03\x00" + b"\x00" * 10,          # a 10-byte frame after an option
             lambda: gnv(b0=1) + b"\x01\x02\x03\x00" + eth(ip4(tcp_bad))]      # a non-critical option, bad checksum
for i in range(20000):
    d = kinds[i % len(kinds)]()
    for port in ports:
        peer.sendto(d, ("198.18.0.2", port))
    if i % 10 == 0:
        stranger.sendto(d, ("198.18.0.2", 4789))
PY
}

for TL_ENCAP in ${TL_ENCAPS:-ip vxlan geneve}; do
if [ $TL_ENCAP = ip ]; then devmode=tun; else devmode=tap; fi

# --- 1. peer stopped and restarted mid-run ---
MODE="$TL_ENCAP: peer restart"
ip -n "$TL_B" tuntap add dev "tB$TL_ID" mode $devmode
tl_start A 4 && tl_start B 4 || bad "$MODE: tunnel did not start"
iperf_bg 5
sleep 1.5
tl_stop B || bad "$MODE: B exited $? on SIGTERM"
ip -n "$TL_B" link show "tB$TL_ID" >/dev/null 2>&1 || bad "$MODE: B removed a TUN it had not created"
sleep 1
alive A
# restart B on the same (persistent, already configured) TUN/TAP
ip netns exec "$TL_B" "$SOFL" tunnel --tun "tB$TL_ID" --local 198.18.0.2:4789 \
    --remote 198.18.0.1:4789 $(tl_encap_args) --json >"$TL_DIR/B.json" 2>"$TL_DIR/B.err" &
TL_PID_B=$!; TL_PIDS="$TL_PIDS $TL_PID_B"
wait "$cpid" || bad "$MODE: iperf3 failed across the restart ($(tail -3 "$TL_DIR/ip.json"))"
wait "$spid"
alive A
tl_stop A; tl_stop B
[ $TL_ENCAP = ip ] && expect A 'd["udp"]["tx_drop"].get("refused", 0) > 0' 'd["udp"]'
expect A 'd["udp"]["tx_pkts"] > 10000' 'd["udp"]'
expect B 'd["udp"]["rx_pkts"] > 1000 and d["tun"]["tx_pkts"] > 1000' 'd'
ip -n "$TL_B" link del "tB$TL_ID"

# --- 2. malformed flood (--encap ip: unconnected sockets, --queues 2) ---
if [ $TL_ENCAP = ip ]; then q="--queues 2"; else q=""; fi
for run in plain verify; do
	case $run in
	plain) opts="" ;;
	verify) [ $TL_ENCAP = ip ] || continue; opts="--verify-inner" ;;
	esac
	MODE="$TL_ENCAP: malformed flood $opts"
	tl_start A 4 $q $opts && tl_start B 4 $q $opts || bad "$MODE: tunnel did not start"
	iperf_bg 3
	flood $TL_ENCAP
	wait "$cpid" || bad "$MODE: iperf3 failed during the flood"
	wait "$spid"
	alive B
	tl_stop A; tl_stop B
	case $TL_ENCAP in
	ip)
		expect B 'd["inner_drop"]["not_ip"] > 0 and d["inner_drop"]["bad_len"] > 0 and d["inner_drop"]["short"] > 0' 'd["inner_drop"]'
		expect B 'd["udp"]["rx_drop"].get("peer", 0) > 0' 'd["udp"]' ;;
	vxlan)
		expect B 'all(d["encap_drop"][k] > 0 for k in ("vxlan_flags", "vni", "unknown_remote")) and d["udp"]["rx_drop"]["runt"] > 0' 'd["encap_drop"], d["udp"]["rx_drop"]' ;;
	geneve)
		expect B 'all(d["encap_drop"][k] > 0 for k in ("geneve_critical", "geneve_oam", "geneve_version", "geneve_proto", "vni", "hdr_short", "eth_short", "unknown_remote")) and d["udp"]["rx_drop"]["runt"] > 0' 'd["encap_drop"], d["udp"]["rx_drop"]' ;;
	esac
	case $TL_ENCAP-$run in
	ip-verify|vxlan-plain|geneve-plain)
		# checksums verified (--verify-inner; vxlan/geneve by default):
		# the bad ones bypass GRO
		expect B 'd["gro"]["bypass"]["l4-csum"] >= 2000 and d["tun"]["csum_sw_verify"] > 0' 'd["gro"]' ;;
	esac
	got_through
done

# --- 3. full receive buffer ---
MODE="$TL_ENCAP: full rcvbuf"
tl_start A 4 && tl_start B 4 || bad "$MODE: tunnel did not start"
# wait for the path (vxlan/geneve: ARP through the tunnel) before stopping B
ip netns exec "$TL_A" ping -c 1 -W 3 198.18.1.2 >/dev/null 2>&1 ||
	ip netns exec "$TL_A" python3 -c 'import socket,time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.connect(("198.18.1.2", 9)); s.send(b"x"); time.sleep(1)'
kill -STOP "$TL_PID_B"
ip netns exec "$TL_A" python3 - <<'PY'
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.connect(("198.18.1.2", 9))
b = b"z" * 1400
# for a second, not a count: a loaded machine's tunnel A forwards more
# slowly, and B's receive buffer must still fill
end = time.monotonic() + 1.0
while time.monotonic() < end:
    try: s.send(b)
    except OSError: pass
PY
sleep 0.3
kill -CONT "$TL_PID_B"
r=$(tl_iperf 4 1) || bad "$MODE: TCP after the overflow failed"
alive B
tl_stop A; tl_stop B
expect B 'd["udp"]["rx_drop"].get("rcvbuf-full", 0) > 0' 'd["udp"]'
expect B 'd["tun"]["tx_pkts"] > 1000' 'd["tun"]'

# --- 4. the TUN/TAP deleted under the tunnel ---
MODE="$TL_ENCAP: device deleted"
tl_start A 4 && tl_start B 4 || bad "$MODE: tunnel did not start"
ip netns exec "$TL_A" ping -c 1 -W 2 198.18.1.2 >/dev/null 2>&1
ip -n "$TL_A" link del "tA$TL_ID"
i=0
while kill -0 "$TL_PID_A" 2>/dev/null && [ $i -lt 50 ]; do i=$((i + 1)); sleep 0.1; done
tl_stop A
rc=$?
[ $rc = 1 ] || bad "$MODE: exit status $rc after its device was deleted, expected 1"
grep -q "device was deleted" "$TL_DIR/A.err" ||
	bad "$MODE: stderr does not say the device was deleted: $(cat "$TL_DIR/A.err")"
grep -q "temporarily unavailable" "$TL_DIR/A.err" && bad "$MODE: EAGAIN reported: $(cat "$TL_DIR/A.err")"
tl_stop B

# --- 5. a bounded flood of 20-byte datagrams during a sha256-checked transfer ---
MODE="$TL_ENCAP: flood of $FLOOD_N runts"
tl_start A 4 $q && tl_start B 4 $q || bad "$MODE: tunnel did not start"
ip netns exec "$TL_A" ping -c 1 -W 3 198.18.1.2 >/dev/null 2>&1
quiet=$(xfer)
w0=$(wire_drops)
ip netns exec "$TL_A" timeout 60 "$K/kflood" 198.18.0.1 198.18.0.2 4789 20 "$FLOOD_N" 100000 \
    >"$TL_DIR/flood" 2>&1 &
fpid=$!; TL_PIDS="$TL_PIDS $fpid"
sleep 0.2
flooded=$(xfer)
wait "$fpid" || bad "$MODE: kflood failed: $(cat "$TL_DIR/flood")"
sleep 0.5
wire=$(($(wire_drops) - w0))
alive B
tl_stop A; tl_stop B
echo "$MODE: transfer ${quiet} s quiet, ${flooded} s flooded; $(cat "$TL_DIR/flood"); dropped on the veth $wire;" \
     "B: $(tl_json B 'd["udp"]["rx_drop"]') $(tl_json B '{k: v for k, v in list(d.get("encap_drop", {}).items()) + list(d["inner_drop"].items()) if v}')"
python3 -c 'import sys; q, f = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if f <= 10 * q + 1 else 1)' "$quiet" "$flooded" ||
	bad "$MODE: the transfer took $flooded s under the flood, $quiet s without (more than 10 times)"
if [ $TL_ENCAP = ip ]; then
	expect B "d['inner_drop']['not_ip'] + d['udp']['rx_drop'].get('rcvbuf-full', 0) >= $FLOOD_N - $wire and d['inner_drop']['not_ip'] <= $FLOOD_N" 'd["udp"], d["inner_drop"]'
else
	expect B "d['udp']['rx_drop'].get('runt', 0) + d['udp']['rx_drop'].get('rcvbuf-full', 0) >= $FLOOD_N - $wire and d['udp']['rx_drop'].get('runt', 0) <= $FLOOD_N" 'd["udp"]'
	# the runts never reached a header check or GRO
	expect B 'd["encap_drop"]["vxlan_flags"] + d["encap_drop"]["hdr_short"] + d["encap_drop"]["eth_short"] + d["encap_drop"]["geneve_version"] == 0 and sum(d["gro"]["bypass"].values()) < 1000' 'd["encap_drop"], d["gro"]["bypass"]'
	# dropped in the kernel (the default --runt-drop kernel)
	expect B '"runt-drop-kernel" in d["udp"]["offloads"]' 'd["udp"]["offloads"]'
fi

# --- 5b. runts alone, IPv4 and IPv6 underlays: with --runt-drop kernel none
# reaches the tunnel (its UDP port never wakes for them) and each is counted,
# exactly (the eBPF program counts coalesced ones by their segments); with
# --runt-drop port each is read and counted by the port ---
[ $TL_ENCAP = ip ] && continue
for fam in 4 6; do
for rd in kernel port; do
	MODE="$TL_ENCAP: IPv$fam runts alone, --runt-drop $rd"
	tl_start B $fam --runt-drop $rd || { bad "$MODE: tunnel did not start"; continue; }
	sleep 0.3
	w0=$(wire_drops)
	if [ $fam = 4 ]; then
		n=$FLOOD_N
		ip netns exec "$TL_A" timeout 60 "$K/kflood" 198.18.0.1 198.18.0.2 4789 20 $n 100000 \
		    >"$TL_DIR/flood" 2>&1 || bad "$MODE: kflood failed: $(cat "$TL_DIR/flood")"
	else
		n=20000	# (bursts of 64, as kflood's sendmmsg() batches: coalesced by GRO)
		ip netns exec "$TL_A" python3 -c 'import socket, time
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.bind(("2001:2::1", 0))
for i in range(20000):
    s.sendto(bytes(20), ("2001:2::2", 4789))
    if i % 64 == 63:
        time.sleep(0.0005)' || bad "$MODE: the IPv6 sender failed"
	fi
	sleep 0.5
	wire=$(($(wire_drops) - w0))
	alive B
	tl_stop B
	echo "$MODE: $n sent, dropped on the veth $wire; B: rx_calls $(tl_json B 'd["udp"]["rx_calls"]'), $(tl_json B 'd["udp"]["rx_drop"]'), offloads $(tl_json B 'd["udp"]["offloads"]')"
	if [ $rd = kernel ] && [ "$(tl_json B '"runt-drop-ebpf" in d["udp"]["offloads"]')" = True ]; then
		expect B "d['udp']['rx_drop'].get('runt', 0) == $n - $wire and d['udp']['rx_calls'] < 100" 'd["udp"]'
	elif [ $rd = kernel ]; then
		# no eBPF here (bpf() refused, e.g. by a container's seccomp): the
		# classic program takes the lone runts, coalesced ones reach the port
		echo "$MODE: classic BPF only (no eBPF here): lone runts dropped in the kernel"
		expect B "'runt-drop-kernel' in d['udp']['offloads'] and d['udp']['rx_drop'].get('runt', 0) + d['udp']['rx_drop'].get('rcvbuf-full', 0) <= $n and d['udp']['rx_drop'].get('runt', 0) > 0" 'd["udp"]'
	else
		expect B "'runt-drop-kernel' not in d['udp']['offloads'] and d['udp']['rx_drop'].get('runt', 0) + d['udp']['rx_drop'].get('rcvbuf-full', 0) >= $n - $wire and d['udp']['rx_calls'] > 100" 'd["udp"]'
	fi
done
done
done

[ $fail = 0 ] && echo "summary: tunnel faults (peer restart, malformed flood, full buffer, device deleted, runt flood during a sha256 transfer, runts dropped in the kernel) in encap modes ${TL_ENCAPS:-ip vxlan geneve}: all checks passed"
exit $fail
