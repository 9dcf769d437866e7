#!/bin/sh
# Description: hostile live traffic into the ASan builds of a running
# `softoffload tunnel` pair and a `softoffload relay` (AF_PACKET veth <->
# TUN), while sha256-checked TCP transfers run through both, IPv4 and IPv6.
# tests/kernel/khostile.c sends, with AF_PACKET (the tunnel's datagrams
# from its peer's own address), malformed and mutated datagrams into each
# tunnel (empty, short, not IP, wrong length, valid TCP packets with bytes
# flipped, cut or grown) and frames into the relay (runts: an IPv4/IPv6
# EtherType without the IP header, the bare 14-byte header first of all;
# other EtherTypes; mutated IPv4), each classified by the rule the receiver
# must apply.  Checked: every transfer arrives intact; the tunnels'
# inner_drop counters equal what was sent by reason; the relay counts the
# runts as runt, the other EtherTypes as non_ip and an IP version that is
# not the EtherType's as malformed, and its TUN refuses nothing (a runt, or
# a version the TUN does not know, passed on was refused: tx_drop vnet);
# ASan/UBSan/LeakSanitizer report nothing and every process exits 0.
# After that, with --stats-interval 1 and no traffic, no process may grow
# (the tunnel's periodic report grew ~10 kB/s under ASan: a FILE per read
# of a sysfs counter, freed into the quarantine).  Builds the ASan CLI in
# $BUILD-san (as make check-sanitize does) if it is not there.  Needs root,
# network namespaces, /dev/net/tun, jq, ethtool (else 77).
set -u
BUILD=${BUILD:-build}
SAN=${SAN_BUILD:-$BUILD-san}
K=$BUILD/tests/kernel
N=${HOSTILE_COUNT:-6000}
P=$$
HA=sohla$P HB=sohlb$P HC=sohlc$P HD=sohld$P
PIDS=""
LOG=$(mktemp -d /tmp/hostile-live.XXXXXX)
start=$(date +%s)

skip() { echo "hostile_live.sh: skipped: $*" >&2; exit 77; }
fail() {
	echo "hostile_live.sh: FAIL: $*" >&2
	for f in "$LOG"/*.err; do [ -s "$f" ] && { echo "== $f" >&2; tail -20 "$f" >&2; }; done
	exit 1
}
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	for n in $HA $HB $HC $HD; do ip netns del "$n" 2>/dev/null; done
	rm -rf "$LOG"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, AF_PACKET, TUN)"
for t in ip jq ethtool sha256sum timeout; do
	command -v $t >/dev/null 2>&1 || skip "$t not installed"
done
[ -c /dev/net/tun ] || skip "/dev/net/tun missing"
for b in khostile ktcp; do [ -x "$K/$b" ] || fail "$K/$b missing (make BUILD=$BUILD tests)"; done
if [ ! -x "$SAN/softoffload" ]; then
	make BUILD="$SAN" SAN=1 OPT=-O1 -j2 cli > "$LOG/make.log" 2>&1 ||
		{ tail -20 "$LOG/make.log" >&2; fail "building the ASan CLI in $SAN"; }
fi
CLI=$SAN/softoffload
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=66
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_OPTIONS UBSAN_OPTIONS
ip netns add "$HA" 2>/dev/null || skip "cannot create network namespaces"
for n in $HB $HC $HD; do ip netns add "$n" || fail "netns $n"; done
for n in $HA $HB $HC $HD; do ip -n "$n" link set lo up; done

# tunnel underlay HA <-> HB; the relay's wire HC <-> HD (offloads off: wire-size frames)
ip link add va$P netns "$HA" type veth peer name vb$P netns "$HB" || fail veth
ip link add vc$P netns "$HC" type veth peer name vd$P netns "$HD" || fail veth
ip -n "$HA" addr add 198.18.50.1/28 dev va$P
ip -n "$HB" addr add 198.18.50.2/28 dev vb$P
ip -n "$HC" addr add 198.18.50.17/28 dev vc$P
ip -n "$HC" addr add 2001:2:50::1/64 dev vc$P nodad
ip netns exec "$HC" ethtool -K vc$P tso off gso off gro off tx off >/dev/null 2>&1 || fail "ethtool"
ip netns exec "$HD" ethtool -K vd$P tso off gso off gro off tx off >/dev/null 2>&1 || fail "ethtool"
ip netns exec "$HD" sysctl -qw "net.ipv6.conf.vd$P.disable_ipv6=1" || fail sysctl
ip -n "$HD" link set vd$P arp off
# vc comes up after the relay's TUN: HC's link-up chatter (IPv6 router
# solicitations, MLD reports) reaching a TUN still down would be counted as
# tx_drop.down (a race this test lost on a busy machine)
for x in "$HA va" "$HB vb" "$HD vd"; do
	set -- $x
	ip -n "$1" link set "$2$P" up || fail "$2 up"
done
mac() { ip -n "$1" -j link show "$2" | jq -r '.[0].address'; }
MAC_A=$(mac "$HA" va$P) MAC_B=$(mac "$HB" vb$P) MAC_D=$(mac "$HD" vd$P)

# wait_dev NS DEV PID: the process created DEV
wait_dev() {
	for i in $(seq 100); do
		ip -n "$1" link show "$2" >/dev/null 2>&1 && return 0
		kill -0 "$3" 2>/dev/null || break
		sleep 0.1
	done
	fail "$2 did not appear"
}
# tunnel SIDE NS ME PEER
tunnel() {
	ip netns exec "$2" "$CLI" tunnel --tun th$1$P --local 198.18.50.$3:4789 \
		--remote 198.18.50.$4:4789 --stats-interval 1 --json \
		> "$LOG/$1.json" 2> "$LOG/$1.err" &
	eval "PID_$1=$!"
	PIDS="$PIDS $!"
	wait_dev "$2" th$1$P $!
	ip -n "$2" addr add 198.18.51.$3/28 dev th$1$P
	ip -n "$2" addr add 2001:2:51::$3/64 dev th$1$P nodad
	ip -n "$2" link set th$1$P up || fail "th$1 up"
}
tunnel A "$HA" 1 2
tunnel B "$HB" 2 1
ip netns exec "$HD" "$CLI" relay afpacket:vd$P tun:tr$P --tun-mac 02:48:32:34:00:0d \
	--stats-interval 1 --json > "$LOG/R.json" 2> "$LOG/R.err" &
PID_R=$!
PIDS="$PIDS $PID_R"
wait_dev "$HD" tr$P $PID_R
ip -n "$HD" addr add 198.18.50.18/28 dev tr$P
ip -n "$HD" addr add 2001:2:50::2/64 dev tr$P nodad
ip -n "$HD" link set tr$P up || fail "tr up"
ip -n "$HC" link set vc$P up || fail "vc up"

# 1. transfers both ways through both, and the hostile traffic meanwhile
head -c 3000000 /dev/urandom > "$LOG/data" || fail "test data"
SUM=$(sha256sum < "$LOG/data")
# recv NAME NS ADDR PORT / send NAME NS ADDR PORT
recv() {
	timeout 90 ip netns exec "$2" "$K/ktcp" recv "$3" "$4" "$LOG/out.$1" > "$LOG/$1.ready" \
		2> "$LOG/$1.rerr" &
	eval "RPID_$1=$!"
	PIDS="$PIDS $!"
	for i in $(seq 100); do grep -q ready "$LOG/$1.ready" 2>/dev/null && return 0; sleep 0.1; done
	fail "$1: receiver did not start: $(cat "$LOG/$1.rerr")"
}
send() {
	timeout 90 ip netns exec "$2" "$K/ktcp" send "$3" "$4" "$LOG/data" 2> "$LOG/$1.serr" &
	eval "SPID_$1=$!"
	PIDS="$PIDS $!"
}
XFERS="tun4 tun6 rel4 rel6"
recv tun4 "$HB" 198.18.51.2 5401;   send tun4 "$HA" 198.18.51.2 5401
recv tun6 "$HA" 2001:2:51::1 5402;  send tun6 "$HB" 2001:2:51::1 5402
recv rel4 "$HD" 198.18.50.18 5403;  send rel4 "$HC" 198.18.50.18 5403
recv rel6 "$HC" 2001:2:50::1 5404;  send rel6 "$HD" 2001:2:50::1 5404
ip netns exec "$HA" "$K/khostile" udp va$P "$MAC_B" 198.18.50.1 198.18.50.2 4789 "$N" 1 \
	> "$LOG/toB" 2> "$LOG/hB.err" &
h1=$!
ip netns exec "$HB" "$K/khostile" udp vb$P "$MAC_A" 198.18.50.2 198.18.50.1 4789 "$N" 2 \
	> "$LOG/toA" 2> "$LOG/hA.err" &
h2=$!
ip netns exec "$HC" "$K/khostile" eth vc$P "$MAC_D" "$N" 3 > "$LOG/toR" 2> "$LOG/hR.err" &
h3=$!
PIDS="$PIDS $h1 $h2 $h3"
for h in $h1 $h2 $h3; do wait $h || fail "khostile failed: $(cat "$LOG"/h?.err)"; done
for x in $XFERS; do
	eval "s=\$SPID_$x r=\$RPID_$x"
	wait "$s" || fail "$x: sender failed: $(cat "$LOG/$x.serr")"
	wait "$r" || fail "$x: receiver failed: $(cat "$LOG/$x.rerr")"
	[ "$(sha256sum < "$LOG/out.$x")" = "$SUM" ] ||
		fail "$x: data differs ($(wc -c < "$LOG/out.$x") bytes)"
done
echo "transfers: $XFERS: 3000000 bytes each, sha256 intact"
echo "sent to tunnel B: $(cat "$LOG/toB")"
echo "sent to tunnel A: $(cat "$LOG/toA")"
echo "sent to the relay: $(cat "$LOG/toR")"

# 3. idle after the traffic (every buffer touched, the links' IPv6 chatter
# over), reports every second: memory must stay flat
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
sleep 2
r0A=$(rss $PID_A) r0B=$(rss $PID_B) r0R=$(rss $PID_R)
sleep 12
for s in A B R; do
	eval "p=\$PID_$s r0=\$r0$s"
	r1=$(rss "$p")
	echo "idle 12 s, --stats-interval 1: $s RSS $r0 -> $r1 kB"
	[ $((r1 - r0)) -le 32 ] || fail "$s grew $((r1 - r0)) kB in 12 s with nothing but its reports"
done

# 4. stop; clean exits (ASan/LSan exit 66), the final counters
for s in A B R; do
	eval "p=\$PID_$s"
	kill -TERM "$p"
	wait "$p"
	rc=$?
	grep -E "AddressSanitizer|LeakSanitizer|runtime error" "$LOG/$s.err" >&2 &&
		fail "$s: sanitizer report"
	[ $rc = 0 ] || fail "$s exited with $rc"
done
PIDS=
final() { tail -n 1 "$LOG/$1.json" | jq -r "$2"; }
# want NAME GOT EXPECTED
want() { [ "$2" = "$3" ] || fail "$1: $2, expected $3"; }
for s in A B; do
	sent=$(cat "$LOG/to$s")
	rcvbuf=$(final $s '.udp.rx_drop.rcvbuf // 0')
	for r in short not_ip bad_len; do
		exp=$(echo "$sent" | awk -v k=$r '{ for (i = 1; i < NF; i += 2) if ($i == k) print $(i + 1) }')
		got=$(final $s ".inner_drop.$r")
		if [ "$rcvbuf" = 0 ]; then
			want "tunnel $s inner_drop.$r" "$got" "$exp"
		else
			[ "$got" -le "$exp" ] || fail "tunnel $s inner_drop.$r: $got > $exp sent"
		fi
	done
	echo "tunnel $s: inner_drop $(final $s '.inner_drop | tojson'), udp rcvbuf drops $rcvbuf," \
	     "tun tx_drop $(final $s '.tun.tx_drop | tojson')"
done
sent=$(cat "$LOG/toR")
runt=$(echo "$sent" | awk '{ print $2 }') nonip=$(echo "$sent" | awk '{ print $4 }')
ver=$(echo "$sent" | awk '{ print $6 }')
want "relay runt" "$(final R '.relay[0].runt')" "$runt"
want "relay non_ip" "$(final R '.relay[0].non_ip')" "$nonip"
want "relay malformed (IP version not the EtherType's)" "$(final R '.relay[0].malformed')" "$ver"
want "relay tun tx_drop" "$(final R '.ports[1].tx_drop | tojson')" "{}"
echo "relay: runt $(final R '.relay[0].runt'), non_ip $(final R '.relay[0].non_ip')," \
     "malformed $(final R '.relay[0].malformed'), afpacket" \
     "rx_drop $(final R '.ports[0].rx_drop | tojson'), tun tx_drop $(final R '.ports[1].tx_drop | tojson')"
echo "summary: ASan builds: 3 x $N hostile datagrams/frames, 4 sha256 transfers intact," \
     "counters by reason equal, memory flat with --stats-interval 1, $(( $(date +%s) - start )) s"
exit 0
