#!/bin/sh
# Description: what `softoffload gso` produces is accepted by a real Linux
# receiver: UDP super-packets captured as a sending host leaves them (UDP
# checksum = pseudo-header sum) are cut by the CLI — IPv4 and IPv6 IP
# fragmentation (--mtu 1500), UDP segmentation (--udp-gso-size 1000) — and
# the frames are sent over a veth into another network namespace, whose
# kernel must reassemble/verify them and deliver exactly the original
# datagrams (lengths and bytes) to UDP sockets.  Needs root, network
# namespaces and python3 (else exit 77).  Addresses 198.18.4.0/24 and
# 2001:2:0:4::/64; every step bounded; namespaces and processes removed.
set -u
BUILD=${BUILD:-build}
CLI=$BUILD/softoffload
tag=$$
NSA=sogsocli-a-$tag NSB=sogsocli-b-$tag
dir=
rpid=

skip() { echo "SKIP: $*" >&2; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

cleanup() {
	[ -n "$rpid" ] && kill "$rpid" 2>/dev/null && wait "$rpid" 2>/dev/null
	ip netns del "$NSA" 2>/dev/null
	ip netns del "$NSB" 2>/dev/null
	[ -n "$dir" ] && rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

[ "$(id -u)" = 0 ] || skip "needs root (network namespaces)"
[ -x "$CLI" ] || fail "$CLI not built (make BUILD=$BUILD cli)"
command -v python3 >/dev/null 2>&1 || skip "python3 not installed"
command -v ip >/dev/null 2>&1 || skip "iproute2 not installed"
ip netns add "$NSA" 2>/dev/null || skip "cannot create network namespaces"
ip netns add "$NSB" || fail "ip netns add"
dir=$(mktemp -d /tmp/cli_gso.XXXXXX) || fail mktemp

ip link add va-$tag netns "$NSA" type veth peer name vb-$tag netns "$NSB" || fail veth
for n in $NSA $NSB; do ip -n "$n" link set lo up; done
ip -n "$NSA" addr add 198.18.4.1/24 dev va-$tag
ip -n "$NSB" addr add 198.18.4.2/24 dev vb-$tag
ip -n "$NSA" addr add 2001:2:0:4::1/64 dev va-$tag nodad
ip -n "$NSB" addr add 2001:2:0:4::2/64 dev vb-$tag nodad
ip -n "$NSA" link set va-$tag up && ip -n "$NSB" link set vb-$tag up || fail "link up"
# frames arrive as sent: no GRO merging them on the receiving side
ip netns exec "$NSB" ethtool -K vb-$tag gro off >/dev/null 2>&1
mac_a=$(ip -n "$NSA" -o link show va-$tag | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
mac_b=$(ip -n "$NSB" -o link show vb-$tag | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
[ -n "$mac_a" ] && [ -n "$mac_b" ] || fail "no MAC addresses"

# The super-packets, as pcap, with pseudo-header checksums (CHECKSUM_PARTIAL).
cat > "$dir/mk.py" <<'EOF'
import struct, sys
mac_a, mac_b, out = sys.argv[1], sys.argv[2], sys.argv[3]
def mac(m): return bytes(int(x, 16) for x in m.split(':'))
def fold(s):
    while s >> 16: s = (s & 0xffff) + (s >> 16)
    return s
def words(b):
    if len(b) % 2: b += b'\0'
    return sum(struct.unpack('!%dH' % (len(b) // 2), b))
def payload(n, seed): return bytes((seed + 7 * i + (i >> 8)) & 0xff for i in range(n))
def udp4(n, seed, df, sport):
    src, dst = bytes([198, 18, 4, 1]), bytes([198, 18, 4, 2])
    ulen = 8 + n
    ph = fold(words(src + dst + struct.pack('!BBH', 0, 17, ulen)))
    u = struct.pack('!HHHH', sport, 9999, ulen, ph) + payload(n, seed)
    ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + ulen, 0x1234, 0x4000 if df else 0,
                     64, 17, 0, src, dst)
    ip = ip[:10] + struct.pack('!H', 0xffff ^ fold(words(ip))) + ip[12:]
    return mac(mac_b) + mac(mac_a) + b'\x08\x00' + ip + u
def udp6(n, seed, sport):
    src = bytes.fromhex('20010002000000040000000000000001')
    dst = bytes.fromhex('20010002000000040000000000000002')
    ulen = 8 + n
    ph = fold(words(src + dst + struct.pack('!IxxxB', ulen, 17)))
    u = struct.pack('!HHHH', sport, 9999, ulen, ph) + payload(n, seed)
    ip = struct.pack('!IHBB16s16s', 0x60000000, ulen, 17, 64, src, dst)
    return mac(mac_b) + mac(mac_a) + b'\x86\xdd' + ip + u
def pcap(name, frames):
    with open(name, 'wb') as f:
        f.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 262144, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack('<IIII', 1000 + i, 0, len(fr), len(fr)) + fr)
pcap(out + '/frag.pcap', [udp4(6000, 1, False, 40001), udp6(5000, 2, 40002)])
pcap(out + '/uso.pcap', [udp4(4000, 3, True, 40003), udp6(3500, 4, 40004)])
# what the receiver must get: (source port, length, bytes)
with open(out + '/want.txt', 'w') as f:
    f.write('40001 6000 %s\n' % payload(6000, 1).hex())
    f.write('40002 5000 %s\n' % payload(5000, 2).hex())
    p = payload(4000, 3)
    for k in range(4): f.write('40003 1000 %s\n' % p[k * 1000:(k + 1) * 1000].hex())
    p = payload(3500, 4)
    for k in range(4): f.write('40004 %d %s\n' % (len(p[k * 1000:(k + 1) * 1000]), p[k * 1000:(k + 1) * 1000].hex()))
EOF
python3 "$dir/mk.py" "$mac_a" "$mac_b" "$dir" || fail "building the captures"

"$CLI" gso "$dir/frag.pcap" -o "$dir/frag.out.pcap" --mtu 1500 --stats > "$dir/frag.log" 2>&1 ||
	{ cat "$dir/frag.log" >&2; fail "softoffload gso --mtu"; }
"$CLI" gso "$dir/uso.pcap" -o "$dir/uso.out.pcap" --udp-gso-size 1000 --stats > "$dir/uso.log" 2>&1 ||
	{ cat "$dir/uso.log" >&2; fail "softoffload gso --udp-gso-size"; }
grep -q '^	2 super-packets$' "$dir/frag.log" || { cat "$dir/frag.log" >&2; fail "frag: not 2 super-packets"; }
grep -q '^	2 super-packets$' "$dir/uso.log" || { cat "$dir/uso.log" >&2; fail "uso: not 2 super-packets"; }

# Receiver: two UDP sockets on port 9999; stops after 3 s of silence.
cat > "$dir/rx.py" <<'EOF'
import select, socket, sys
s4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s4.bind(('198.18.4.2', 9999))
s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); s6.bind(('2001:2:0:4::2', 9999))
open(sys.argv[2], 'w').write('ready\n')
with open(sys.argv[1], 'w') as out:
    while True:
        r, _, _ = select.select([s4, s6], [], [], 3.0)
        if not r: break
        for s in r:
            d, a = s.recvfrom(70000)
            out.write('%d %d %s\n' % (a[1], len(d), d.hex())); out.flush()
EOF
ip netns exec "$NSB" timeout 30 python3 "$dir/rx.py" "$dir/got.txt" "$dir/rx.ready" &
rpid=$!
i=0
until [ -s "$dir/rx.ready" ]; do
	i=$((i + 1)); [ $i -gt 100 ] && fail "receiver did not start"; sleep 0.05
done

# Sender: every output record as one frame on the veth.
cat > "$dir/tx.py" <<'EOF'
import socket, struct, sys
ifname = sys.argv[1]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW); s.bind((ifname, 0))
n = 0
for name in sys.argv[2:]:
    b = open(name, 'rb').read()
    magic = struct.unpack('<I', b[:4])[0]
    assert magic in (0xa1b2c3d4, 0xa1b23c4d), hex(magic)  # us or ns timestamps
    o = 24
    while o < len(b):
        _, _, cap, _ = struct.unpack('<IIII', b[o:o + 16]); o += 16
        s.send(b[o:o + cap]); o += cap; n += 1
print(n)
EOF
sent=$(ip netns exec "$NSA" timeout 10 python3 "$dir/tx.py" va-$tag "$dir/frag.out.pcap" "$dir/uso.out.pcap") ||
	fail "sending the frames"
wait "$rpid"
rpid=
# fragments: 6008 B in 1480 B units (v4) = 5, 5008 B in 1448 B units (v6) = 4;
# datagrams: 4 + 4
[ "$sent" = 17 ] || fail "expected 17 frames out of the CLI, sent $sent"
sort "$dir/want.txt" > "$dir/want.s"
sort "$dir/got.txt" > "$dir/got.s"
if ! cmp -s "$dir/want.s" "$dir/got.s"; then
	echo "wanted (port len):" >&2; cut -d' ' -f1-2 "$dir/want.s" >&2
	echo "received (port len):" >&2; cut -d' ' -f1-2 "$dir/got.s" >&2
	fail "the receiving kernel did not deliver exactly the original datagrams"
fi
echo "cli_gso: 17 frames (UFO v4/v6, USO v4/v6) accepted by the kernel, 10 datagrams delivered intact"
exit 0
