#!/bin/sh
# softoffload tunnel between two namespaces: TCP over IPv4 and IPv6 (inner)
# in each --offload mode, over an IPv4 and an IPv6 underlay, with --queues 2,
# a UDP flow sent with UDP_SEGMENT; each checks that the data arrived intact
# (iperf3 byte counts; a file's sha256 through iperf3 -F; the UDP flow's
# bytes hashed by the receiver) and that the offload counters say what the
# mode promises (--json).  Root; exit 77 without the tools.
set -u
. "$(dirname "$0")/tunnel.lib"
tl_require
trap tl_cleanup EXIT INT TERM
tl_underlay
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }

# expect SIDE EXPR: the final counters of SIDE satisfy EXPR (Python)
expect() {
	v=$(tl_json "$1" "$2") || { bad "$1: cannot read counters"; return; }
	[ "$v" = True ] || bad "$MODE: $1: $2 is false ($(tl_json "$1" "$3" 2>/dev/null))"
}

# a 3 MB file carried A -> B over one TCP connection; compares sha256
file_check() {
	fam=$1
	if [ "$fam" = 6 ]; then dst=2001:2:1::2; af=AF_INET6; else dst=198.18.1.2; af=AF_INET; fi
	head -c 3000000 /dev/urandom >"$TL_DIR/in.bin"
	ip netns exec "$TL_B" python3 -c '
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
	sleep 0.3
	ip netns exec "$TL_A" python3 -c '
import socket, sys, time
end = time.monotonic() + 10
while True:	# the listener may still be starting on a loaded machine
    try:
        s = socket.create_connection((sys.argv[1], 5202), timeout=10)
        break
    except ConnectionRefusedError:
        if time.monotonic() > end: raise
        time.sleep(0.05)
s.sendall(open(sys.argv[2], "rb").read()); s.close()' "$dst" "$TL_DIR/in.bin" ||
	    bad "$MODE: sending the file over IPv$fam failed"
	wait "$spid"
	a=$(sha256sum <"$TL_DIR/in.bin" | cut -d" " -f1); b=$(cat "$TL_DIR/out.sum")
	[ "$a" = "$b" ] || bad "$MODE: file over IPv$fam: sha256 $b, expected $a"
}

# TCP over inner IPv4 and IPv6, 2 s each: bytes arrived, none lost
tcp_check() {
	for fam in 4 6; do
		r=$(tl_iperf $fam 2 "$@") || { bad "$MODE: iperf3 over inner IPv$fam failed"; continue; }
		set -- $r
		[ "$1" -gt 10000000 ] || bad "$MODE: inner IPv$fam: only $1 bytes"
		echo "$MODE inner IPv$fam: $3 Gbit/s, $2 retransmits"
	done
}

run_mode() {
	MODE="$1 (underlay IPv$2)"
	mode=$1 fam=$2; shift 2
	tl_start A "$fam" --offload "$mode" "$@" && tl_start B "$fam" --offload "$mode" "$@" || { bad "$MODE: tunnel did not start"; return 1; }
	tcp_check
	file_check 4
	file_check 6
	tl_stop A || bad "$MODE: A exited $?"
	tl_stop B || bad "$MODE: B exited $?"
	grep -q . "$TL_DIR/A.err" && { echo "A stderr:"; cat "$TL_DIR/A.err"; }
	return 0
}

# --- offload on: super-packets read and split on A, formed on B ---
run_mode on 4
expect A 'd["tun"]["rx_super"] > 0 and d["tun"]["rx_segs"] > d["tun"]["rx_super"]' 'd["tun"]'
expect A 'd["udp"]["tx_super"] > 0 and d["udp"]["tx_segs"] > d["udp"]["tx_super"]' 'd["udp"]'
expect A 'd["tun"]["csum_sw"] > 0' 'd["tun"]'
expect B 'd["udp"]["rx_super"] > 0 and d["gro"]["super_pkts"] > 0' 'd["gro"]'
expect B 'd["tun"]["tx_super"] > 0 and d["tun"]["tx_segs"] > d["tun"]["tx_super"]' 'd["tun"]'
expect B '"tso4" in d["tun"]["offloads"] and "udp-gro" in d["udp"]["offloads"]' 'd["tun"]["offloads"]'
expect B 'sum(d["tun"]["tx_drop"].values()) == 0 and sum(d["udp"]["rx_drop"].values()) == 0' 'd'
# a TUN the tunnel created is gone once it exits
ip -n "$TL_A" link show "tA$TL_ID" >/dev/null 2>&1 && bad "TUN tA$TL_ID left behind"

run_mode on 6
expect A 'd["udp"]["tx_super"] > 0' 'd["udp"]'
expect B 'd["gro"]["super_pkts"] > 0' 'd["gro"]'

# --- offload off: nothing coalesced or segmented anywhere, no virtio header ---
run_mode off 4
expect A 'd["tun"]["rx_super"] == 0 and d["udp"]["tx_super"] == 0 and d["tun"]["offloads"] == []' 'd'
expect B 'd["tun"]["tx_super"] == 0 and d["udp"]["rx_super"] == 0 and d["tun"]["rx_pkts"] > 0' 'd'
# one datagram per packet read from the TUN (sent in batches: calls <= packets)
expect A 'abs(d["udp"]["tx_pkts"] - d["tun"]["rx_pkts"]) <= sum(d["udp"]["tx_drop"].values()) and d["udp"]["tx_calls"] <= d["udp"]["tx_pkts"]' 'd'

# --- gso: the sending half only ---
run_mode gso 4
expect A 'd["tun"]["rx_super"] > 0 and d["udp"]["tx_super"] > 0' 'd'
expect B 'd["tun"]["tx_super"] == 0 and d["udp"]["rx_super"] == 0' 'd'

# --- gro: the receiving half only ---
run_mode gro 4
expect A 'd["tun"]["rx_super"] == 0 and d["udp"]["tx_super"] == 0' 'd'
expect B 'd["gro"]["super_pkts"] > 0 and d["tun"]["tx_super"] > 0' 'd'

# --- two queues: flows spread by their Toeplitz hash, data intact ---
MODE="queues 2"
tl_start A 4 --queues 2 && tl_start B 4 --queues 2 || bad "queues 2: tunnel did not start"
r=$(tl_iperf 4 2 -P 4) || bad "queues 2: iperf3 -P 4 failed"
set -- $r
[ "${1:-0}" -gt 10000000 ] || bad "queues 2: only ${1:-0} bytes"
echo "queues 2, 4 streams: ${3:-?} Gbit/s, ${2:-?} retransmits"
file_check 4
tl_stop A; tl_stop B
expect B 'd["queues"] == 2 and d["gro"]["super_pkts"] > 0' 'd'
expect A 'd["steered"] > 0' 'd'

# --- a UDP flow sent with UDP_SEGMENT (USO through the TUN) ---
MODE="udp-segment"
tl_start A 4 && tl_start B 4 || bad "udp: tunnel did not start"
ip netns exec "$TL_B" python3 - "$TL_DIR/udp.out" <<'PY' &
import hashlib, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)   # SO_RCVBUFFORCE: the reader is slow
s.bind(("198.18.1.2", 9000)); s.settimeout(3)
h = hashlib.sha256(); n = 0
try:
    while True:
        d = s.recv(65535)
        if d == b"END": break
        h.update(d); n += len(d)
except socket.timeout:
    pass
open(sys.argv[1], "w").write("%d %s\n" % (n, h.hexdigest()))
PY
rpid=$!
TL_PIDS="$TL_PIDS $rpid"
sleep 0.3
exp=$(ip netns exec "$TL_A" python3 - <<'PY'
import hashlib, socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_UDP, 103, 1200)       # UDP_SEGMENT: 1200-byte datagrams
s.connect(("198.18.1.2", 9000))
h = hashlib.sha256(); n = 0
for i in range(200):
    buf = bytes((i * 7 + j) & 255 for j in range(1200)) * 40      # 40 datagrams per send
    s.send(buf); h.update(buf); n += len(buf)
    time.sleep(0.002)
s.setsockopt(socket.SOL_UDP, 103, 0)
time.sleep(0.2)
s.send(b"END")
print(n, h.hexdigest())
PY
)
wait "$rpid"
got=$(cat "$TL_DIR/udp.out" 2>/dev/null)
[ "$exp" = "$got" ] || { bad "udp-segment flow: sent '$exp', received '$got' (a datagram lost or changed)"
	ip netns exec "$TL_B" nstat -az UdpRcvbufErrors UdpInErrors >&2; }
tl_stop A; tl_stop B
expect A '"uso" in d["tun"]["offloads"] and d["tun"]["rx_super"] >= 150' 'd["tun"]'
expect A 'd["udp"]["tx_super"] >= 150' 'd["udp"]'
expect B 'd["gro"]["super_pkts"] > 0' 'd["gro"]'

[ $fail = 0 ] && echo "tunnel: all checks passed"
exit $fail
