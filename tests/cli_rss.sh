#!/bin/sh
# Description: `softoffload rss` on real kernel traffic: iperf3 (4 TCP streams
# + its control connection) between two network namespaces, captured with a
# 128-byte snap length (TSO super-packets on veth: caplen << len).  Checks that
# every packet is hashed from its captured headers, that the 5 connections
# are 10 flows (one per direction) and 5 flows with --symmetric, that both
# directions of each connection share a queue with --symmetric, and that the
# tsv has one line per packet.  Needs root, ip, iperf3, tcpdump (else skip 77).
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
exit 0
