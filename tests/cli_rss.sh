#!/bin/sh
# Description: `softoffload rss` on real kernel traffic: iperf3 (4 TCP streams
# + its control connection) between two network namespaces, captured with a
# 128-byte snap length (TSO super-packets on veth: caplen << len).  Checks that
# every packet is hashed from its captured headers, that the 5 connections
# are 10 flows (one per direction) and 5 flows with --symmetric, that both
# directions of each connection share a queue with --symmetric, and that the
# tsv has one line per packet.  Then the same through a kernel VXLAN pair
# (VNI 42, UDP 4789) over the veths, captured on the underlay: every packet is
# a VXLAN packet hashed on its outer header by default, and with --inner the
# 5 connections are again 10 flows (5 with --symmetric), each direction of a
# connection on one queue.  Needs root, ip, iperf3, tcpdump (else skip 77).
set -u
BUILD=${BUILD:-build}
CLI=$BUILD/softoffload
skip() { echo "skip: $*" >&2; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root for network namespaces"
for t in ip iperf3 tcpdump timeout; do
	command -v $t >/dev/null 2>&1 || skip "$t not installed"
done
[ -x "$CLI" ] || skip "$CLI not built"

A=sofl-rss-a-$$ B=sofl-rss-b-$$
TMP=$(mktemp -d /tmp/sofl-cli-rss-sh.XXXXXX)
SRV= TD=
cleanup() {
	[ -n "$TD" ] && kill "$TD" 2>/dev/null
	[ -n "$SRV" ] && kill "$SRV" 2>/dev/null
	ip netns del "$A" 2>/dev/null
	ip netns del "$B" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

ip netns add "$A" && ip netns add "$B" || skip "cannot create network namespaces"
ip link add va netns "$A" type veth peer name vb netns "$B" || skip "no veth"
ip -n "$A" addr add 198.18.91.1/24 dev va
ip -n "$B" addr add 198.18.91.2/24 dev vb
ip -n "$A" link set va up
ip -n "$B" link set vb up
ip -n "$A" link set lo up
ip -n "$B" link set lo up

ip netns exec "$B" timeout 20 iperf3 -s -1 -p 5301 >/dev/null 2>&1 &
SRV=$!
ip netns exec "$B" timeout 20 tcpdump -q -i vb -s 128 -w "$TMP/cap.pcap" tcp >/dev/null 2>&1 &
TD=$!
sleep 1
ip netns exec "$A" timeout 15 iperf3 -c 198.18.91.2 -p 5301 -t 1 -P 4 >/dev/null 2>&1 ||
	fail "iperf3 client failed"
sleep 1
kill "$TD" 2>/dev/null
wait "$TD" 2>/dev/null
TD=
wait "$SRV" 2>/dev/null
SRV=
[ -s "$TMP/cap.pcap" ] || fail "no capture"

"$CLI" rss "$TMP/cap.pcap" --queues 4 >"$TMP/plain.txt" || fail "rss exited $?"
"$CLI" rss "$TMP/cap.pcap" --queues 4 --symmetric >"$TMP/sym.txt" || fail "rss --symmetric exited $?"
"$CLI" rss "$TMP/cap.pcap" --queues 4 --symmetric --format tsv >"$TMP/sym.tsv" || fail "tsv exited $?"
cat "$TMP/plain.txt"

pkts=$(sed -n 's/^.*: \([0-9]*\) packets (Ethernet)$/\1/p' "$TMP/plain.txt")
hashed=$(awk '$0 == "hashed:" { s = 1; next } s && /^\t/ && $2 == "packets" && $3 == "hashed" { print $1; exit }' "$TMP/plain.txt")
[ -n "$pkts" ] && [ "$pkts" -gt 100 ] || fail "too few packets captured ($pkts)"
[ "$hashed" = "$pkts" ] || fail "hashed $hashed of $pkts TCP packets"
[ "$(awk '$0 == "no hash:" { s = 1; next } /^[^\t]/ { s = 0 } s { n += $1 } END { print n + 0 }' "$TMP/plain.txt")" = 0 ] ||
	fail "unexpected unhashed packets"
grep -q "^total	$pkts	10$" "$TMP/plain.txt" || fail "expected 10 flows (5 connections x 2 directions)"
grep -q "^total	$pkts	5$" "$TMP/sym.txt" || fail "expected 5 symmetric flows"
[ "$(wc -l <"$TMP/sym.tsv")" -eq $((pkts + 1)) ] || fail "tsv lines != packets + the header"

# both directions of each connection on one queue: pair tsv lines with the
# connections tcpdump prints, keyed by the sorted endpoint pair
tcpdump -nn -q -r "$TMP/cap.pcap" 2>/dev/null | awk '{
	s = $3; d = $5; sub(/:$/, "", d)
	print (s < d) ? s " " d : d " " s }' >"$TMP/conn.txt"
[ "$(wc -l <"$TMP/conn.txt")" -eq "$pkts" ] || fail "tcpdump printed a different packet count"
tail -n +2 "$TMP/sym.tsv" | paste "$TMP/conn.txt" - | awk -F'\t' '{
	if (($1 in q) && q[$1] != $4) bad++
	q[$1] = $4; n[$1]++ }
	END { c = 0; for (k in n) c++
	      if (bad || c != 5) { print "conns " c " mismatches " bad > "/dev/stderr"; exit 1 } }' ||
	fail "a connection's packets reached different queues in symmetric mode"
echo "ok: $pkts packets, 5 connections, symmetric queues consistent"

# ---- VXLAN: the same traffic inside a tunnel, captured on the underlay ----
if ! ip -n "$A" link add vx0 type vxlan id 42 local 198.18.91.1 remote 198.18.91.2 \
	dstport 4789 dev va 2>/dev/null; then
	echo "skip: no vxlan device in this kernel (the plain part passed)"
	exit 0
fi
ip -n "$B" link add vx0 type vxlan id 42 local 198.18.91.2 remote 198.18.91.1 \
	dstport 4789 dev vb || fail "vxlan in $B"
ip -n "$A" addr add 198.18.92.1/24 dev vx0
ip -n "$B" addr add 198.18.92.2/24 dev vx0
ip -n "$A" link set vx0 up
ip -n "$B" link set vx0 up
ip netns exec "$B" timeout 20 iperf3 -s -1 -p 5302 >/dev/null 2>&1 &
SRV=$!
# only VXLAN packets carrying TCP/IPv4 (inner ethertype at UDP offset 28,
# inner protocol at 39): not the overlay's ARP and neighbour discovery
ip netns exec "$B" timeout 20 tcpdump -q -i vb -s 160 -w "$TMP/vx.pcap" \
	'udp port 4789 and udp[28:2] = 0x0800 and udp[39] = 6' >/dev/null 2>&1 &
TD=$!
sleep 1
ip netns exec "$A" timeout 15 iperf3 -c 198.18.92.2 -p 5302 -t 1 -P 4 >/dev/null 2>&1 ||
	fail "iperf3 client through VXLAN failed"
sleep 1
kill "$TD" 2>/dev/null
wait "$TD" 2>/dev/null
TD=
wait "$SRV" 2>/dev/null
SRV=
[ -s "$TMP/vx.pcap" ] || fail "no VXLAN capture"
"$CLI" rss "$TMP/vx.pcap" --queues 4 >"$TMP/vx.txt" || fail "rss (VXLAN) exited $?"
"$CLI" rss "$TMP/vx.pcap" --queues 4 --inner >"$TMP/vxi.txt" || fail "rss --inner exited $?"
"$CLI" rss "$TMP/vx.pcap" --queues 4 --inner --symmetric >"$TMP/vxis.txt" ||
	fail "rss --inner --symmetric exited $?"
"$CLI" rss "$TMP/vx.pcap" --queues 4 --inner --symmetric --format tsv >"$TMP/vxis.tsv" ||
	fail "tsv exited $?"
cat "$TMP/vxi.txt"
cnt() { awk -v sec="$2:" -v what="$3" '$0 == sec { s = 1; next } /^[^\t]/ { s = 0 }
	s { n = $1; sub(/^\t[0-9.]+ /, ""); if ($0 == what) { print n; exit } }' "$1"; }
vpk=$(sed -n 's/^.*: \([0-9]*\) packets (Ethernet)$/\1/p' "$TMP/vx.txt")
[ -n "$vpk" ] && [ "$vpk" -gt 100 ] || fail "too few VXLAN packets captured ($vpk)"
[ "$(cnt "$TMP/vx.txt" tunnels "VXLAN packets hashed")" = "$vpk" ] || fail "not every packet hashed as VXLAN"
[ "$(cnt "$TMP/vx.txt" hashed "IPv4/UDP")" = "$vpk" ] || fail "outer hash: not the outer UDP 4-tuple"
[ "$(cnt "$TMP/vxi.txt" tunnels "tunnel packets hashed on the inner flow")" = "$vpk" ] ||
	fail "--inner: not every packet hashed on its inner flow"
[ "$(cnt "$TMP/vxi.txt" hashed "IPv4/TCP")" = "$vpk" ] || fail "--inner: not the inner TCP 4-tuple"
grep -q "^total	$vpk	10$" "$TMP/vxi.txt" || fail "--inner: expected 10 flows"
grep -q "^total	$vpk	5$" "$TMP/vxis.txt" || fail "--inner --symmetric: expected 5 flows"
# the inner tuples of the tsv: 5 connections, each on one queue
tail -n +2 "$TMP/vxis.tsv" | awk -F'\t' '{
	a = $5 ":" $7; b = $6 ":" $8; k = (a < b) ? a " " b : b " " a
	if ((k in q) && q[k] != $3) bad++
	q[k] = $3; n[k]++ }
	END { c = 0; for (k in n) c++
	      if (bad || c != 5) { print "conns " c " mismatches " bad > "/dev/stderr"; exit 1 } }' ||
	fail "--inner --symmetric: a connection's packets reached different queues"
echo "ok: $vpk VXLAN packets, outer hash by default, 5 inner connections with --inner"
exit 0
