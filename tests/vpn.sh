#!/bin/sh
# examples/vpn between two namespaces, once per cipher (AES-256-GCM over an
# IPv4 underlay, ChaCha20-Poly1305 over IPv6; side A on OpenSSL's EVP,
# side B on ipsec-mb on x86-64): a 2 MB file each way over
# inner IPv4 and inner IPv6, compared by sha256; then, with side A stopped,
# datagrams captured on the wire are replayed (two far behind the window,
# two inside it), tampered with (a ciphertext byte, a tag byte, and the
# authenticated flags, session and counter) and cut short, and side A is
# restarted with a wrong key: B must count each (replayed, auth-fail,
# malformed) and write none of them to its TUN (its interface counters do
# not move); A restarted with the right key (a new session) gets through.
# Root; exit 77 without the tools.
#   ns A: veth 198.18.40.1/24 2001:2:40::1   tun 198.18.41.1/24 2001:2:41::1
#   ns B: veth 198.18.40.2/24 2001:2:40::2   tun 198.18.41.2/24 2001:2:41::2
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
VPN=$BUILD/examples/vpn
ID=$$
A=v23a$ID B=v23b$ID
DIR=$(mktemp -d "${TMPDIR:-/tmp}/sofl-vpn.XXXXXX")
PIDS=""
fail=0
bad() { echo "FAIL: $*" >&2; fail=1; }
skip() { echo "$*" >&2; exit 77; }
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	ip netns del "$A" 2>/dev/null
	ip netns del "$B" 2>/dev/null
	rm -rf "$DIR"
}
[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, TUN devices)"
[ -x "$VPN" ] || skip "no $VPN (make BUILD=$BUILD examples)"
[ -c /dev/net/tun ] || skip "no /dev/net/tun"
for t in ip python3 tcpdump ping sha256sum; do
	command -v $t >/dev/null || skip "no $t"
done
trap cleanup EXIT INT TERM
ip netns add "$A" 2>/dev/null || skip "cannot create network namespaces"
ip netns add "$B"
ip link add "va$ID" type veth peer name "vb$ID"
ip link set "va$ID" netns "$A"
ip link set "vb$ID" netns "$B"
ip -n "$A" addr add 198.18.40.1/24 dev "va$ID"
ip -n "$B" addr add 198.18.40.2/24 dev "vb$ID"
ip -n "$A" addr add 2001:2:40::1/64 dev "va$ID" nodad
ip -n "$B" addr add 2001:2:40::2/64 dev "vb$ID" nodad
for ns in "$A" "$B"; do ip -n "$ns" link set lo up; done
ip -n "$A" link set "va$ID" up
ip -n "$B" link set "vb$ID" up
head -c 32 /dev/urandom >"$DIR/key"
head -c 32 /dev/urandom >"$DIR/wrong"

# start SIDE FAM CIPHER KEYFILE: vpn of side a|b in the background; waits
# for its TUN (which vpn sets up) and gives it the inner addresses
start() {
	side=$1 fam=$2 cipher=$3 key=$4
	if [ "$side" = a ]; then ns=$A me=1 peer=2; else ns=$B me=2 peer=1; fi
	if [ "$fam" = 6 ]; then
		loc="[2001:2:40::$me]:5400" rem="[2001:2:40::$peer]:5400"
	else
		loc="198.18.40.$me:5400" rem="198.18.40.$peer:5400"
	fi
	tun=t$side$ID
	# both crypto paths: worker threads for AES-256-GCM, the I/O thread
	# (--workers 0, the default) for ChaCha20-Poly1305
	if [ "$cipher" = aes-256-gcm ]; then w=2; else w=0; fi
	# A by OpenSSL's EVP, B by what vpn picks (ipsec-mb on x86-64,
	# checked below): the two must interoperate both ways
	if [ "$side" = a ]; then lib="--crypto openssl"; else lib=""; fi
	ip netns exec "$ns" "$VPN" --side "$side" --tun "$tun" --local "$loc" --remote "$rem" \
	    --key "$key" --cipher "$cipher" --workers $w $lib >"$DIR/$side.out" 2>"$DIR/$side.err" &
	pid=$!
	PIDS="$PIDS $pid"
	eval "PID_$side=$pid"
	i=0
	until ip -n "$ns" link show "$tun" 2>/dev/null | grep -q ",UP"; do
		i=$((i + 1))
		if [ $i -ge 50 ] || ! kill -0 "$pid" 2>/dev/null; then
			cat "$DIR/$side.err" >&2
			return 1
		fi
		sleep 0.1
	done
	ip -n "$ns" addr add "198.18.41.$me/24" dev "$tun"
	ip -n "$ns" addr add "2001:2:41::$me/64" dev "$tun" nodad
}

# stop SIDE: SIGTERM; its counters line is then in $DIR/SIDE.out
stop() {
	eval "pid=\$PID_$1"
	kill -TERM "$pid" 2>/dev/null
	wait "$pid" || bad "vpn $1 exited $?: $(cat "$DIR/$1.err")"
	PIDS=$(echo "$PIDS" | sed "s/ $pid\b//")
}

# count SIDE NAME: a counter of the side's final line ("... NAME N ...")
count() {
	sed -n "s/.* $2 \([0-9]*\).*/\1/p" "$DIR/$1.out" | tail -n 1
}

# xfer FROM TO FAM: 2 MB over TCP, sha256 compared
xfer() {
	from=$1 to=$2 fam=$3
	if [ "$to" = a ]; then tns=$A me=1; else tns=$B me=2; fi
	if [ "$from" = a ]; then fns=$A; else fns=$B; fi
	if [ "$fam" = 6 ]; then dst=2001:2:41::$me af=AF_INET6; else dst=198.18.41.$me af=AF_INET; fi
	head -c 2000000 /dev/urandom >"$DIR/in.bin"
	ip netns exec "$tns" python3 -c '
import hashlib, socket, sys
s = socket.socket(getattr(socket, sys.argv[2]), socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], 5401)); s.listen(1); s.settimeout(20)
c, _ = s.accept(); c.settimeout(20)
h = hashlib.sha256()
while True:
    d = c.recv(1 << 16)
    if not d: break
    h.update(d)
print(h.hexdigest())' "$dst" "$af" >"$DIR/out.sum" 2>&1 &
	spid=$!
	PIDS="$PIDS $spid"
	ip netns exec "$fns" python3 -c '
import socket, sys, time
end = time.monotonic() + 10
while True:
    try:
        s = socket.create_connection((sys.argv[1], 5401), timeout=20)
        break
    except (ConnectionRefusedError, OSError):
        if time.monotonic() > end: raise
        time.sleep(0.1)
s.sendall(open(sys.argv[2], "rb").read()); s.close()' "$dst" "$DIR/in.bin" ||
	    bad "$CIPHER: $from -> $to over inner IPv$fam: send failed"
	wait "$spid"
	PIDS=$(echo "$PIDS" | sed "s/ $spid\b//")
	x=$(sha256sum <"$DIR/in.bin" | cut -d" " -f1) y=$(cat "$DIR/out.sum")
	[ "$x" = "$y" ] || bad "$CIPHER: $from -> $to over inner IPv$fam: sha256 $y, expected $x"
}

# capture FILE: the next two datagrams A -> B on the wire (two pings)
capture() {
	ip netns exec "$B" tcpdump -i "vb$ID" -Q in -c 2 -U -w "$1" \
	    "udp dst port 5400 and src host $SRC" 2>/dev/null &
	tpid=$!
	PIDS="$PIDS $tpid"
	sleep 1
	ip netns exec "$A" ping -c 2 -i 0.2 -W 2 198.18.41.2 >/dev/null || bad "$CIPHER: ping A -> B failed"
	i=0
	while kill -0 "$tpid" 2>/dev/null && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
	kill "$tpid" 2>/dev/null
	wait "$tpid" 2>/dev/null
	PIDS=$(echo "$PIDS" | sed "s/ $tpid\b//")
}

SUM=""
for CIPHER in aes-256-gcm chacha20-poly1305; do
	if [ $CIPHER = aes-256-gcm ]; then FAM=4 SRC=198.18.40.1 DST=198.18.40.2
	else FAM=6 SRC=2001:2:40::1 DST=2001:2:40::2; fi
	start a $FAM $CIPHER "$DIR/key" && start b $FAM $CIPHER "$DIR/key" ||
	    { bad "$CIPHER: vpn did not start"; continue; }
	if [ "$(uname -m)" = x86_64 ]; then
		grep -q "by ipsec-mb" "$DIR/b.err" ||
		    bad "$CIPHER: B does not use ipsec-mb on x86-64 ($(head -n 1 "$DIR/b.err")): build with libipsec-mb-dev (scripts/deps.sh)"
		grep -q "by OpenSSL EVP" "$DIR/a.err" || bad "$CIPHER: A does not use OpenSSL: $(head -n 1 "$DIR/a.err")"
	fi
	capture "$DIR/old.pcap"
	for fam in 4 6; do
		xfer a b $fam
		xfer b a $fam
	done
	capture "$DIR/new.pcap"
	stop a
	tunb=/sys/class/net/tb$ID/statistics/rx_packets
	before=$(ip netns exec "$B" cat "$tunb")
	# replays (old: far behind the window; new: inside it), tampered copies, a runt
	ip netns exec "$A" python3 -c '
import socket, struct, sys
def dgrams(path):
    b = open(path, "rb").read(); off = 24; out = []
    while off + 16 <= len(b):
        n = struct.unpack("<I", b[off + 8:off + 12])[0]; f = b[off + 16:off + 16 + n]; off += 16 + n
        ip = 14 + (40 if f[14] >> 4 == 6 else (f[14] & 15) * 4)
        out.append(f[ip + 8:])
    return out
src, dst, fam = sys.argv[1], sys.argv[2], socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM); s.bind((src, 0))
old, new = dgrams(sys.argv[3]), dgrams(sys.argv[4])
assert len(old) == 2 and len(new) == 2, (len(old), len(new))
for d in old + new: s.sendto(d, (dst, 5400))                    # 4 replays
d = bytearray(new[1])
for pos in (40, len(d) - 1, 1, 7, 15):  # ciphertext, tag, flags, session, counter
    t = bytearray(d); t[pos] ^= 0x01; s.sendto(bytes(t), (dst, 5400))
s.sendto(d[:20], (dst, 5400))                                   # a runt
' "$SRC" "$DST" "$DIR/old.pcap" "$DIR/new.pcap" || bad "$CIPHER: injecting failed"
	# a peer with a wrong key
	start a $FAM $CIPHER "$DIR/wrong" || bad "$CIPHER: vpn (wrong key) did not start"
	ip netns exec "$A" ping -c 3 -i 0.2 -W 1 198.18.41.2 >/dev/null 2>&1 &&
	    bad "$CIPHER: ping through a peer with the wrong key answered"
	stop a
	sleep 0.3
	after=$(ip netns exec "$B" cat "$tunb")
	[ "$before" = "$after" ] || bad "$CIPHER: B's TUN received $((after - before)) packets from rejected datagrams"
	# A restarted with the right key: a new session, which B follows
	start a $FAM $CIPHER "$DIR/key" || bad "$CIPHER: vpn did not restart"
	ip netns exec "$A" ping -c 2 -i 0.2 -W 2 198.18.41.2 >/dev/null ||
	    bad "$CIPHER: ping A -> B failed after A restarted"
	stop a
	stop b
	rep=$(count b replayed) auth=$(count b auth-fail) mal=$(count b malformed)
	[ "$rep" = 4 ] || bad "$CIPHER: B counted $rep replayed, expected 4"
	[ "${auth:-0}" -ge 8 ] || bad "$CIPHER: B counted $auth auth-fail, expected 5 tampered + >= 3 wrong key"
	[ "$mal" = 1 ] || bad "$CIPHER: B counted $mal malformed, expected 1 (the runt)"
	echo "$CIPHER: $(cat "$DIR/b.out")"
	SUM="$SUM $CIPHER: replayed $rep auth-fail $auth malformed $mal;"
done
# the counter's limit: A stops by itself before it would pass it
CIPHER=limit FAM=4
start a 4 aes-256-gcm "$DIR/key" && start b 4 aes-256-gcm "$DIR/key" || bad "limit: vpn did not start"
kill -TERM "$PID_a" 2>/dev/null; wait "$PID_a"
PIDS=$(echo "$PIDS" | sed "s/ $PID_a\b//")
ip netns exec "$A" "$VPN" --side a --tun ta$ID --local 198.18.40.1:5400 --remote 198.18.40.2:5400 \
    --key "$DIR/key" --max-packets 30 >"$DIR/a.out" 2>"$DIR/a.err" &
PID_a=$!
PIDS="$PIDS $PID_a"
i=0
until ip -n "$A" link show ta$ID 2>/dev/null | grep -q ",UP" || [ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done
ip -n "$A" addr add 198.18.41.1/24 dev ta$ID
ip netns exec "$A" ping -c 60 -i 0.02 -W 1 198.18.41.2 >/dev/null 2>&1
i=0
while kill -0 "$PID_a" 2>/dev/null && [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done
if kill -0 "$PID_a" 2>/dev/null; then
	bad "limit: vpn --max-packets 30 still runs after 60 packets"
	stop a
else
	wait "$PID_a"
	PIDS=$(echo "$PIDS" | sed "s/ $PID_a\b//")
fi
stop b
sealed=$(count a sealed) exh=$(count a exhausted) opened=$(count b opened)
[ "${sealed:-99}" -le 30 ] && [ "${exh:-0}" -gt 0 ] ||
    bad "limit: A sealed $sealed, exhausted $exh (expected <= 30, > 0)"
[ "${opened:-99}" -le 30 ] || bad "limit: B opened $opened (expected <= 30)"
grep -q "reached its limit" "$DIR/a.err" || bad "limit: A did not say why it stopped"
[ $fail = 0 ] || exit 1
echo "summary: 2 ciphers x 4 file transfers (inner IPv4 and IPv6, both ways) sha256-equal;$SUM none written to the TUN; --max-packets 30 stopped A after $sealed"
