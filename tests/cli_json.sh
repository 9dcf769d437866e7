#!/bin/sh
# Description: --json of csum, rss, gro and gso: each prints one JSON document
# (jq parses it, exactly one value, on one line) whose counters equal the text
# output's (the netstat -s style "\t<n> <what>" lines, section by section, and
# rss's queue table), on crafted captures (tests/kernel/kcraft: the GRO cases,
# the GSO super-packets and the segments gso makes of them); a --json that
# cannot be written is exit 2.  Needs jq (scripts/deps.sh check installs it).
set -u
BUILD=${BUILD:-build}
CLI=$BUILD/softoffload
KCRAFT=$BUILD/tests/kernel/kcraft
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null 2>&1 || { echo "jq not installed (scripts/deps.sh check)"; exit 77; }
[ -x "$CLI" ] || fail "$CLI not built (make BUILD=$BUILD cli)"
[ -x "$KCRAFT" ] || fail "$KCRAFT not built (make BUILD=$BUILD tests)"
dir=$(mktemp -d /tmp/sofl-cli-json-XXXXXX) || fail "mktemp"
trap 'rm -rf "$dir"' EXIT INT TERM
"$KCRAFT" gro -w "$dir/gro.pcap" -B "$dir/gro.b" >/dev/null || fail "kcraft gro"
"$KCRAFT" gso -w "$dir/sup.pcap" -m "$dir/sup.vnet" >/dev/null || fail "kcraft gso"
checked=0

# txt FILE SECTION WHAT: the counter "\t<n> WHAT" of section "SECTION:"
txt() {
	awk -v sec="$2:" -v what="$3" '
		$0 == sec { s = 1; next }
		/^[^\t]/ { s = 0 }
		s { n = $1; sub(/^\t[0-9.]+ /, ""); if ($0 == what) { print n; exit } }' "$1"
}
# eq FILE.txt SECTION WHAT FILE.json JQ: the text counter equals the JSON's
eq() {
	t=$(txt "$1" "$2" "$3")
	j=$(jq -e "$5" "$4") || fail "$4: no $5"
	[ -n "$t" ] || fail "$1: no '$3' in section '$2'"
	[ "$t" = "$j" ] || fail "$1 '$2: $3' = $t, $4 $5 = $j"
	checked=$((checked + 1))
}
# doc FILE: exactly one JSON value, on one line, an object
doc() {
	[ "$(wc -l <"$1")" = 1 ] || fail "$1: not one line"
	[ "$(jq -s 'length' "$1")" = 1 ] || fail "$1: not one JSON document"
	jq -e 'type == "object"' "$1" >/dev/null || fail "$1: not an object"
}

# csum
for c in gro sup; do
	"$CLI" csum "$dir/$c.pcap" >"$dir/csum.txt"; rc=$?
	"$CLI" csum "$dir/$c.pcap" --json >"$dir/csum.json"; jrc=$?
	[ $rc = $jrc ] || fail "csum $c: exit $rc, with --json $jrc"
	doc "$dir/csum.json"
	n=$(sed -n 's/^.*: \([0-9]*\) records.*/\1/p' "$dir/csum.txt")
	[ "$n" = "$(jq .records "$dir/csum.json")" ] || fail "csum $c: records"
	eq "$dir/csum.txt" ip "IPv4 headers checked" "$dir/csum.json" .ip.ipv4_checked
	eq "$dir/csum.txt" ip "with a valid header checksum" "$dir/csum.json" .ip.ipv4_valid
	eq "$dir/csum.txt" ip "with a bad header checksum" "$dir/csum.json" .ip.ipv4_bad
	eq "$dir/csum.txt" ip "IPv6 packets (no header checksum)" "$dir/csum.json" .ip.ipv6
	for p in tcp udp; do
		u=segments; [ $p = udp ] && u=datagrams
		eq "$dir/csum.txt" $p "$u checked" "$dir/csum.json" .$p.checked
		eq "$dir/csum.txt" $p "with a valid checksum" "$dir/csum.json" .$p.valid
		eq "$dir/csum.txt" $p "with a bad checksum" "$dir/csum.json" .$p.bad
		eq "$dir/csum.txt" $p "with a partial checksum (pseudo-header only)" \
			"$dir/csum.json" .$p.partial
	done
	eq "$dir/csum.txt" other "packets not IP (ARP, ...)" "$dir/csum.json" .other.not_ip
	eq "$dir/csum.txt" other "IP fragments (transport checksum not checked)" \
		"$dir/csum.json" .other.fragments
	eq "$dir/csum.txt" capture "malformed packets" "$dir/csum.json" .capture.malformed
	# tunnels (none in these captures: the names and zeros must agree)
	eq "$dir/csum.txt" tunnels "VXLAN packets (ip, tcp, udp above: their inner headers)" \
		"$dir/csum.json" .tunnels.vxlan
	eq "$dir/csum.txt" tunnels "Geneve packets" "$dir/csum.json" .tunnels.geneve
	eq "$dir/csum.txt" tunnels "IP-in-IP packets" "$dir/csum.json" .tunnels.ipip
	eq "$dir/csum.txt" tunnels "tunnel packets not parsed into (counted as plain packets)" \
		"$dir/csum.json" .tunnels.not_parsed
	eq "$dir/csum.txt" "outer ip" "outer IPv4 headers checked" "$dir/csum.json" .outer_ip.ipv4_checked
	eq "$dir/csum.txt" "outer ip" "with a bad header checksum" "$dir/csum.json" .outer_ip.ipv4_bad
	eq "$dir/csum.txt" "outer ip" "outer IPv6 headers (no header checksum)" "$dir/csum.json" \
		.outer_ip.ipv6
	eq "$dir/csum.txt" "outer udp" "outer UDP headers checked" "$dir/csum.json" .outer_udp.checked
	eq "$dir/csum.txt" "outer udp" "with a valid checksum" "$dir/csum.json" .outer_udp.valid
	eq "$dir/csum.txt" "outer udp" "with a bad checksum" "$dir/csum.json" .outer_udp.bad
	eq "$dir/csum.txt" "outer udp" "without checksum (zero)" "$dir/csum.json" .outer_udp.absent
done
jq -e '.tcp.partial > 0' "$dir/csum.json" >/dev/null ||
	fail "csum: the GSO super-packets carry partial checksums, none counted"

# gso: the super-packets, then gro: the GRO cases and gso's segments
"$CLI" gso "$dir/sup.pcap" -o "$dir/seg.pcap" --mss 1000 --stats >"$dir/gso.txt" || fail "gso --stats"
"$CLI" gso "$dir/sup.pcap" -o "$dir/seg2.pcap" --mss 1000 --json >"$dir/gso.json" || fail "gso --json"
cmp -s "$dir/seg.pcap" "$dir/seg2.pcap" || fail "gso: --json changed the output capture"
doc "$dir/gso.json"
eq "$dir/gso.txt" gso "records in" "$dir/gso.json" .records_in
eq "$dir/gso.txt" gso "bytes in" "$dir/gso.json" .bytes_in
eq "$dir/gso.txt" gso "records out" "$dir/gso.json" .records_out
eq "$dir/gso.txt" gso "bytes out" "$dir/gso.json" .bytes_out
eq "$dir/gso.txt" gso "super-packets" "$dir/gso.json" .super_pkts.total
eq "$dir/gso.txt" gso "TCP super-packets segmented (TSO)" "$dir/gso.json" .super_pkts.tcp
eq "$dir/gso.txt" gso "UDP super-packets segmented (USO)" "$dir/gso.json" .super_pkts.udp
eq "$dir/gso.txt" gso "segments out" "$dir/gso.json" .segs_out
eq "$dir/gso.txt" gso "packets passed through" "$dir/gso.json" .passed
eq "$dir/gso.txt" checksums "TCP/UDP checksums computed" "$dir/gso.json" .csum_computed.l4
eq "$dir/gso.txt" checksums "IPv4 header checksums computed" "$dir/gso.json" .csum_computed.ipv4_hdr
eq "$dir/gso.txt" unchanged "malformed packets" "$dir/gso.json" .unchanged.malformed
eq "$dir/gso.txt" unchanged "packets refused by the segmenter" "$dir/gso.json" .unchanged.refused
eq "$dir/gso.txt" trailers "trailer bytes dropped" "$dir/gso.json" .trailer.bytes_dropped
jq -e '.super_pkts.total > 0 and .segs_out > .super_pkts.total' "$dir/gso.json" >/dev/null ||
	fail "gso: nothing segmented"

for c in gro seg; do
	"$CLI" gro "$dir/$c.pcap" -o "$dir/g1.pcap" --stats >"$dir/gro.txt" || fail "gro $c --stats"
	"$CLI" gro "$dir/$c.pcap" -o "$dir/g2.pcap" --json >"$dir/gro.json" || fail "gro $c --json"
	cmp -s "$dir/g1.pcap" "$dir/g2.pcap" || fail "gro: --json changed the output capture"
	doc "$dir/gro.json"
	eq "$dir/gro.txt" gro "packets in" "$dir/gro.json" .gro.pkts_in
	eq "$dir/gro.txt" gro "bytes in" "$dir/gro.json" .gro.bytes_in
	eq "$dir/gro.txt" gro "packets out" "$dir/gro.json" .gro.pkts_out
	eq "$dir/gro.txt" gro "super-packets" "$dir/gro.json" .gro.super_pkts
	eq "$dir/gro.txt" gro "segments merged into super-packets" "$dir/gro.json" .gro.segs_merged
	eq "$dir/gro.txt" gro "records written" "$dir/gro.json" .written
	eq "$dir/gro.txt" checksums "TCP/UDP checksums verified in software" \
		"$dir/gro.json" .gro.csum_sw_l4
	eq "$dir/gro.txt" checksums "outer UDP checksums verified in software" \
		"$dir/gro.json" .gro.csum_sw_outer
	eq "$dir/gro.txt" tunnels "tunnel packets in" "$dir/gro.json" .gro.tunnel.pkts_in
	eq "$dir/gro.txt" tunnels "tunnel super-packets" "$dir/gro.json" .gro.tunnel.super_pkts
	eq "$dir/gro.txt" tunnels "segments merged into tunnel super-packets" \
		"$dir/gro.json" .gro.tunnel.segs_merged
	for b in 1 2-3 4-7 8-15 16-31 32-63 64+; do
		s=s; [ $b = 1 ] && s=
		eq "$dir/gro.txt" "segments per output" "with $b segment$s" "$dir/gro.json" ".gro.hist[\"$b\"]"
	done
	# every reason the text lists, and the JSON's non-zero ones are listed
	for sec in flush bypass; do
		awk -v sec="$sec reasons:" '$0 == sec { s = 1; next } /^[^\t]/ { s = 0 }
			s { print $2 }' "$dir/gro.txt" >"$dir/t.$sec"
		jq -r ".gro.$sec | to_entries[] | select(.value > 0) | .key" "$dir/gro.json" >"$dir/j.$sec"
		cmp -s "$dir/t.$sec" "$dir/j.$sec" || fail "gro $c: $sec reasons differ"
		while read -r r; do
			eq "$dir/gro.txt" "$sec reasons" "$r" "$dir/gro.json" ".gro.$sec[\"$r\"]"
		done <"$dir/t.$sec"
	done
done
jq -e '.gro.super_pkts > 0' "$dir/gro.json" >/dev/null || fail "gro: no super-packet"

# rss: the counters and the queue table
"$CLI" rss "$dir/gro.pcap" --queues 4 >"$dir/rss.txt" || fail "rss"
"$CLI" rss "$dir/gro.pcap" --queues 4 --json >"$dir/rss.json" || fail "rss --json"
doc "$dir/rss.json"
eq "$dir/rss.txt" hashed "packets hashed" "$dir/rss.json" .hashed
eq "$dir/rss.txt" hashed "IPv4/TCP" "$dir/rss.json" .by_type.ipv4_tcp
eq "$dir/rss.txt" hashed "IPv6/TCP" "$dir/rss.json" .by_type.ipv6_tcp
eq "$dir/rss.txt" "no hash" "packets not IP" "$dir/rss.json" .no_hash.not_ip
eq "$dir/rss.txt" tunnels "VXLAN packets hashed" "$dir/rss.json" .tunnels.vxlan
eq "$dir/rss.txt" tunnels "Geneve packets hashed" "$dir/rss.json" .tunnels.geneve
eq "$dir/rss.txt" tunnels "IP-in-IP packets hashed" "$dir/rss.json" .tunnels.ipip
eq "$dir/rss.txt" tunnels "tunnel packets hashed on the inner flow" "$dir/rss.json" .tunnels.inner
eq "$dir/rss.txt" tunnels "tunnel packets not parsed into (hashed as plain packets)" \
	"$dir/rss.json" .tunnels.not_parsed
eq "$dir/rss.txt" "no hash" "malformed packets" "$dir/rss.json" .no_hash.malformed
eq "$dir/rss.txt" settings "queues" "$dir/rss.json" .queue_count
eq "$dir/rss.txt" settings "indirection table entries" "$dir/rss.json" .table_size
awk -F'\t' '$1 ~ /^[0-9]+$/ { print $1, $2, $3 }' "$dir/rss.txt" >"$dir/t.q"
jq -r '.queues[] | "\(.queue) \(.packets) \(.flows)"' "$dir/rss.json" >"$dir/j.q"
cmp -s "$dir/t.q" "$dir/j.q" || fail "rss: the queue table differs from .queues"
[ "$(awk -F'\t' '$1 == "total" { print $3 }' "$dir/rss.txt")" = "$(jq .flows "$dir/rss.json")" ] ||
	fail "rss: total flows"
[ "$("$CLI" rss "$dir/gro.pcap" --queues 4 --format json)" = "$(cat "$dir/rss.json")" ] ||
	fail "rss: --format json differs from --json"
checked=$((checked + 2))

# a JSON document that cannot be written is an error
for c in "csum $dir/gro.pcap" "rss $dir/gro.pcap --queues 2" \
	 "gro $dir/gro.pcap -o $dir/x.pcap" "gso $dir/sup.pcap -o $dir/x.pcap --mss 1000"; do
	# shellcheck disable=SC2086
	"$CLI" $c --json >/dev/full 2>"$dir/err"; rc=$?
	[ $rc = 2 ] || fail "$c --json >/dev/full: exit $rc, not 2"
	grep -q "write error" "$dir/err" || fail "$c --json >/dev/full: $(cat "$dir/err")"
done
echo "summary: csum, gso, gro, rss: $checked text counters equal to their --json fields"
exit 0
