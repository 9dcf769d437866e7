# make demo's last part, the capture walk-through (sourced by scripts/demo.sh
# after scripts/demo-lib.sh): the softoffload CLI on a capture of TCP
# segments as a NIC without offloads sees them —
#   csum            the checksums the sender left for the "NIC" (partial),
#   csum --fix      completing them in software,
#   gro --stats     software LRO: N segments in, M super-packets out,
#   rss --queues 4  the Toeplitz spread of the flows over 4 queues.
# With root the capture is live (iperf3 -P 4, rate-capped, over the
# tunnels' wire, captured by tcpdump where the frames leave the sender: cut
# to wire size by the kernel's software GSO, checksums left partial for the
# veth's checksum offload); without root or namespaces, a synthetic capture
# written by synth_pcap below.

# capture_live FILE : 2 s of iperf3 -P 4 (25 Mbit/s per stream) A -> B over
# va/vb, captured on va.
capture_live() {
	bg_start capsrv ip netns exec "$NSB" iperf3 -s -1 -B 198.18.0.2 -p 5203
	_srv=$BG_PID
	bg_start tcpdump ip netns exec "$NSA" tcpdump -i va -n -s 0 -U -w "$1" tcp port 5203
	_td=$BG_PID
	_ok=0
	if wait_for 5 listening "$NSB" tcp 5203; then
		sleep 0.5	# tcpdump attaches
		fg_run 15 ip netns exec "$NSA" iperf3 -c 198.18.0.2 -p 5203 -t 2 -b 25M -P 4 \
			>"$WORK/capture-iperf3.log" 2>&1 || _ok=1
		sleep 0.3
	else
		_ok=1
	fi
	bg_stop "$_td" "$_srv"
	[ $_ok -eq 0 ] && [ -s "$1" ]
}

# synth_pcap FILE : 4 TCP/IPv4 flows (198.18.2.1:40000+f -> 198.18.2.2:5201),
# 64 full-MSS segments each, interleaved 8 at a time, as a sending host's
# capture with checksum offload shows them: valid IPv4 header checksums, TCP
# checksums holding only the pseudo-header sum (what CHECKSUM_PARTIAL leaves).
synth_pcap() {
	awk 'function b(v) { return sprintf("\\%03o", v % 256) }
	function w16(v) { return b(int(v / 256)) b(v) }
	function w32(v) { return w16(int(v / 65536)) w16(v % 65536) }
	function le32(v) { return b(v) b(int(v / 256)) b(int(v / 65536)) b(int(v / 16777216)) }
	function fold(s) { while (s > 65535) s = int(s / 65536) + s % 65536; return s }
	BEGIN {
		mss = 1448; iplen = 20 + 20 + mss; flen = 14 + iplen
		# pcap header: magic, v2.4, zone 0, sigfigs 0, snaplen 65535, DLT_EN10MB
		printf "%s\n", le32(2712847316) b(2) b(0) b(4) b(0) le32(0) le32(0) le32(65535) le32(1)
		for (k = 0; k < 256; k++) {
			f = int(k / 8) % 4; s = int(k / 32) * 8 + k % 8
			sport = 40000 + f; seq = 268435456 + f * 16777216 + s * mss
			id = 4096 + f * 256 + s
			# IPv4 header checksum over: 4500 len id 4000 4006 src(c612 0201) dst(c612 0202)
			ck = fold(17664 + iplen + id + 16384 + 16390 + 50706 + 513 + 50706 + 514)
			ck = 65535 - ck
			# partial TCP checksum: the pseudo-header sum, not complemented
			ps = fold(50706 + 513 + 50706 + 514 + 6 + 20 + mss)
			pay = ""
			for (i = 0; i < 32; i++) pay = pay b(k + i)
			rec = le32(1700000000 + int(k / 100)) le32((k % 100) * 10000) le32(flen) le32(flen)
			eth = b(2) b(0) b(0) b(0) b(0) b(2) b(2) b(0) b(0) b(0) b(0) b(1) b(8) b(0)
			ip = b(69) b(0) w16(iplen) w16(id) b(64) b(0) b(64) b(6) w16(ck) \
			     b(198) b(18) b(2) b(1) b(198) b(18) b(2) b(2)
			tcp = w16(sport) w16(5201) w32(seq) w32(536870912) b(80) b(16) w16(502) w16(ps) w16(0)
			printf "%s", rec eth ip tcp
			for (i = 0; i < int(mss / 32); i++) printf "%s", pay
			printf "%s\n", substr(pay, 1, 4 * (mss % 32))
		}
	}' | while IFS= read -r line; do printf "$line"; done >"$1"
	[ -s "$1" ]
}

# walkthrough FILE : the CLI on the capture, shortened to its summary lines.
walkthrough() {
	_cap=$1
	"$CLI" csum "$_cap" >"$WORK/csum.txt" 2>&1
	_rc=$?
	_n=$(sed -n 's/^.*: \([0-9]*\) records.*/\1/p' "$WORK/csum.txt")
	_part=$(awk '/^tcp:/ { t = 1 } t && /partial/ { print $1; exit }' "$WORK/csum.txt")
	_bad=$(awk '/^tcp:/ { t = 1 } t && /bad checksum/ { print $1; exit }' "$WORK/csum.txt")
	say "   softoffload csum: ${_n:-?} records; TCP: ${_part:-?} with a partial checksum (pseudo-header only, left for the NIC), ${_bad:-?} bad (exit $_rc)"
	if "$CLI" csum "$_cap" --fix -o "$WORK/fixed.pcap" >"$WORK/fix.txt" 2>&1; then
		"$CLI" csum "$WORK/fixed.pcap" >"$WORK/after.txt" 2>&1
		say "   softoffload csum --fix: $(awk '/^tcp:/ { t = 1 } t && /software-checksummed/ { print $1; exit }' "$WORK/fix.txt") segments software-checksummed;" \
			"after: $(awk '/^tcp:/ { t = 1 } t && /with a valid checksum/ { print $1; exit }' "$WORK/after.txt") valid," \
			"$(awk '/^tcp:/ { t = 1 } t && /partial/ { print $1; exit }' "$WORK/after.txt") partial"
	else
		say "   step failed: csum --fix: $(tail -n 1 "$WORK/fix.txt")"
		cp "$_cap" "$WORK/fixed.pcap"
	fi
	if "$CLI" gro "$WORK/fixed.pcap" -o "$WORK/gro.pcap" --stats >"$WORK/gro.txt" 2>&1; then
		say "   softoffload gro --stats: $(awk '/^\t[0-9]+ packets in$/ { print $1 }' "$WORK/gro.txt") packets in ->" \
			"$(awk '/^\t[0-9]+ packets out$/ { print $1 }' "$WORK/gro.txt") out, $(awk '/^\t[0-9]+ super-packets$/ { print $1 }' "$WORK/gro.txt") super-packets" \
			"carrying $(awk '/^\t[0-9]+ segments merged/ { print $1 }' "$WORK/gro.txt") segments (pure ACKs pass through)"
	else
		say "   step failed: gro --stats: $(tail -n 1 "$WORK/gro.txt")"
	fi
	if "$CLI" rss "$_cap" --queues 4 >"$WORK/rss.txt" 2>&1; then
		say "   softoffload rss --queues 4: packets per queue" \
			"$(awk -F'\t' '$1 ~ /^[0-9]+$/ { printf "%s%s", sep, $2; sep = "/" }' "$WORK/rss.txt")," \
			"$(awk -F'\t' '$1 == "total" { print $3 }' "$WORK/rss.txt") flows"
	else
		say "   step failed: rss: $(tail -n 1 "$WORK/rss.txt")"
	fi
}

# step_capture LIVE : LIVE=1 captures in the namespaces, else synthesizes.
step_capture() {
	_cap="$WORK/rx.pcap"
	if [ "$1" = 1 ]; then
		say "   iperf3 -t 2 -P 4 -b 25M over the 1500-byte wire, captured by tcpdump where the frames leave the sender"
		if ! capture_live "$_cap"; then
			say "   step failed: live capture: $(tail -n 1 "$WORK/capture-iperf3.log" 2>/dev/null); using a synthetic capture"
			synth_pcap "$_cap" || { say "   step failed: synthetic capture"; return 1; }
		fi
	else
		say "   a synthetic capture: 4 TCP/IPv4 flows x 64 segments of 1448 bytes, checksums as a sending host leaves them"
		synth_pcap "$_cap" || { say "   step failed: synthetic capture"; return 1; }
	fi
	walkthrough "$_cap"
}
