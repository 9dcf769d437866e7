# make demo's small-packets experiment (sourced by scripts/demo.sh after
# scripts/demo-live.sh and scripts/demo-report.sh; uses their namespaces,
# wire, tunnel_up/tunnel_down, vxlan_up and iperf_row).
#
# Offloads do nothing for 64-256-byte packets: there a tunnel lives on
# packets per second.  Rows (name small-packets, one per mode, same run):
#   on, off       softoffload tunnel --offload on / off
#   plain         bench/tunnel/plain_tun.c: the naive tunnel, one poll(),
#                 one read() and one send() (one recv() and one write())
#                 per packet, no batching, no offloads
#   kernel-vxlan  the kernel's VXLAN on the same wire
# Each: iperf3 UDP, DEMO_SMALL_STREAMS (8) flows of DEMO_SMALL_LEN (128)
# byte payloads, unlimited rate, DEMO_SMALL_SECS (3) s; pps = datagrams the
# receiver got per second (sent - lost), with what was sent and lost.
# And the bulk baseline (name tunnel-baseline, modes off and plain): one TCP
# stream through --offload off and through the plain tunnel, same run, so
# the demo shows whether "off" is at least the naive program.
# What --offload off does is printed with the table (OFF_SAYS).
#
# TCP with TCP_NODELAY small writes is not a row: with a window of data in
# flight the sender's stack coalesces the small writes into full segments
# (TCP_NODELAY only stops waiting for ACKs), so its packet rate measures the
# stack, not the tunnel.

PLAIN_TUN=$BUILD/bench/plain_tun
SMALL_PORT=5203
DEMO_SMALL_STREAMS=${DEMO_SMALL_STREAMS:-8}
DEMO_SMALL_LEN=${DEMO_SMALL_LEN:-128}
DEMO_SMALL_SECS=${DEMO_SMALL_SECS:-3}
OFF_SAYS="--offload off: no virtio header, no GSO/GRO/checksum offload, wire-size packets only;
   one read()/write() per packet on the TUN (no batched read), up to 64 reads per wake-up;
   recvmmsg()/sendmmsg() on the socket, one datagram per packet: batched syscalls, no offload"

# plain_up : the plain tunnel in both namespaces on sofl0, addressed as
# tunnel_up addresses it.  PIDs in TUN_PIDS.
plain_up() {
	TUN_PIDS=""
	[ -x "$PLAIN_TUN" ] || { TUN_WHY="$PLAIN_TUN not built (make BUILD=$BUILD benches)"; return 1; }
	bg_start tunA ip netns exec "$NSA" "$PLAIN_TUN" sofl0 198.18.0.1 $TUN_PORT 198.18.0.2 $TUN_PORT
	TUN_PIDS=$BG_PID
	bg_start tunB ip netns exec "$NSB" "$PLAIN_TUN" sofl0 198.18.0.2 $TUN_PORT 198.18.0.1 $TUN_PORT
	TUN_PIDS="$TUN_PIDS $BG_PID"
	set -- $TUN_PIDS
	wait_up 5 "$1" A ip link show sofl0 && wait_up 5 "$2" B ip link show sofl0 ||
		{ TUN_WHY="no TUN sofl0: $(tail -n 1 "$WORK/tunA.log") $(tail -n 1 "$WORK/tunB.log")"; return 1; }
	ip -n "$NSA" link set sofl0 mtu $INNER_MTU up && ip -n "$NSB" link set sofl0 mtu $INNER_MTU up &&
	ip -n "$NSA" addr add 198.19.0.1/24 dev sofl0 && ip -n "$NSB" addr add 198.19.0.2/24 dev sofl0 ||
		{ TUN_WHY="addressing sofl0 failed"; return 1; }
}

# small_row MODE ADDR "PIDS" : iperf3 UDP small datagrams to ADDR, one row.
small_row() {
	_sr_tag="small-$1"
	bg_start "$_sr_tag-srv" ip netns exec "$NSB" iperf3 -s -1 -B "$2" -p $SMALL_PORT -J
	_sr_srv=$BG_PID
	if ! wait_for 5 listening "$NSB" tcp $SMALL_PORT; then
		bg_stop "$_sr_srv"
		row_fail small-packets "$1" 4 "iperf3 server did not start"
		return 1
	fi
	_sr_m0=$(machine_ticks)
	_sr_p0=$(proc_ticks $3)
	fg_run $((DEMO_SMALL_SECS + 15)) ip netns exec "$NSA" iperf3 -u -c "$2" -p $SMALL_PORT \
		-t "$DEMO_SMALL_SECS" -l "$DEMO_SMALL_LEN" -b 0 -P "$DEMO_SMALL_STREAMS" \
		--connect-timeout 3000 -J >"$WORK/$_sr_tag.json" 2>"$WORK/$_sr_tag.err"
	_sr_rc=$?
	_sr_p1=$(proc_ticks $3)
	_sr_m1=$(machine_ticks)
	bg_stop "$_sr_srv"
	_sr_err=$(jq -r '.error // empty' "$WORK/$_sr_tag.json" 2>/dev/null)
	if [ $_sr_rc -ne 0 ] || [ -n "$_sr_err" ]; then
		row_fail small-packets "$1" 4 "iperf3 exit $_sr_rc: ${_sr_err:-$(tail -n 1 "$WORK/$_sr_tag.err")}"
		return 1
	fi
	_sr_np=$(echo $3 | wc -w)
	jq -c --arg m "$1" --argjson st "$DEMO_SMALL_STREAMS" --argjson len "$DEMO_SMALL_LEN" \
		--argjson hz "$CLK_TCK" --argjson np "$_sr_np" \
		--arg p0 "$_sr_p0" --arg p1 "$_sr_p1" --arg m0 "$_sr_m0" --arg m1 "$_sr_m1" '
		def ticks(a; b; i): (((b | split(" ")[i] | tonumber) - (a | split(" ")[i] | tonumber)) / $hz);
		.end.sum as $s |
		{name: "small-packets", mode: $m, family: 4, streams: $st, payload: $len,
		 secs: $s.seconds, sent: $s.packets, lost: $s.lost_packets,
		 delivered: ($s.packets - $s.lost_packets),
		 pps: ((($s.packets - $s.lost_packets) / $s.seconds) | round),
		 sent_pps: (($s.packets / $s.seconds) | round),
		 cpu_s: {tunnel: (if $np > 0 then ((ticks($p0; $p1; 0) + ticks($p0; $p1; 1)) * 100 | round) / 100 else null end),
			 machine: ((ticks($m0; $m1; 0) * 100 | round) / 100)}}' "$WORK/$_sr_tag.json" >>"$OUT/rows.jsonl" ||
		row_fail small-packets "$1" 4 "iperf3 output unreadable"
}

step_small_packets() {
	say "   $DEMO_SMALL_STREAMS UDP flows of $DEMO_SMALL_LEN-byte payloads, unlimited rate, $DEMO_SMALL_SECS s per row;"
	say "   and one TCP stream through --offload off and the plain tunnel, $DEMO_RUNS x $DEMO_SECS s"
	for mode in on off plain; do
		say "   $mode ..."
		if [ $mode = plain ]; then plain_up; else tunnel_up "$mode" 1; fi
		if [ $? -ne 0 ]; then
			tunnel_down >/dev/null
			row_fail small-packets "$mode" 4 "$TUN_WHY"
			[ $mode = on ] || row_fail tunnel-baseline "$mode" 4 "$TUN_WHY"
			continue
		fi
		small_row "$mode" 198.19.0.2 "$TUN_PIDS"
		if [ $mode != on ]; then
			iperf_row tunnel-baseline "$mode" 4 1 198.19.0.2 5201 "$TUN_PIDS" &&
				row_add "$(tunnel_down)" || tunnel_down >/dev/null
		else
			tunnel_down >/dev/null
		fi
	done
	say "   kernel-vxlan ..."
	if vxlan_up; then
		small_row kernel-vxlan 198.19.1.2 ""
	else
		row_fail small-packets kernel-vxlan 4 "kernel VXLAN set-up failed (no vxlan module?)"
	fi
	A ip link del vx0 2>/dev/null
	B ip link del vx0 2>/dev/null
	return 0
}

# pps_of MODE : the small-packets row's pps (empty if none)
pps_of() {
	jq -rs --arg m "$1" 'map(select(.name == "small-packets" and .mode == $m and .pps)) | .[0].pps // empty' \
		"$OUT/rows.jsonl"
}

report_small_packets() {
	p_on=$(pps_of on) p_off=$(pps_of off) p_pl=$(pps_of plain) p_vx=$(pps_of kernel-vxlan)
	r_on=$(ratio "$p_on" "$p_pl") r_off=$(ratio "$p_off" "$p_pl") r_vx=$(ratio "$p_on" "$p_vx")
	say ""
	say "== small packets: $DEMO_SMALL_STREAMS UDP flows of $DEMO_SMALL_LEN-byte payloads through each path, packets per second delivered"
	printf '   %-13s %10s %10s %8s %13s\n' mode "pps" "sent/s" "lost %" "tunnel CPU s"
	jq -rs 'map(select(.name == "small-packets"))[] |
		if .error then "\(.mode)\tstep failed: \(.error)"
		else [.mode, .pps, .sent_pps, (if .sent > 0 then (.lost * 1000 / .sent | round) / 10 else 0 end),
		      (.cpu_s.tunnel // "-")] | map(tostring) | join("\t") end' "$OUT/rows.jsonl" |
		awk -F'\t' '{ if (NF == 2) printf "   %-13s %s\n", $1, $2
			else printf "   %-13s %10s %10s %8s %13s\n", $1, $2, $3, $4, $5 }'
	say "   verdict: tunnel (on) ${r_on} the plain tunnel's pps (target >= 2x: $(verdict_ge "$r_on" 2)), off ${r_off};"
	say "   tunnel (on) ${r_vx} kernel VXLAN's pps"
	b_off=$(avg_of tunnel-baseline off 4) b_pl=$(avg_of tunnel-baseline plain 4)
	r_b=$(ratio "$b_off" "$b_pl")
	say ""
	say "== the baseline: one TCP stream through --offload off and through the plain tunnel (same run)"
	say "   $OFF_SAYS"
	table_gbps tunnel-baseline
	say "   verdict: --offload off ${r_b} the plain tunnel (target >= 1x: $(verdict_ge "$r_b" 1))"
}
