# make demo, step relay_vxlan (sourced by demo.sh): the relay with VXLAN
# frames.  A kernel VXLAN device in each namespace; in $NSA its underlay is
# the veth ra without offloads (1500-byte VXLAN frames on the wire), in $NSB
# it is the relay's TAP (afpacket:rb -> relay -> tap:sofx0), so every frame
# of the tunnel crosses the relay.  Rows "relay-vxlan": --offload off, on
# (the TAP's GRO coalesces the VXLAN frames into tunnel super-packets written
# whole with the 24-byte virtio header: the VXLAN device above it receives
# 64 KB packets), and the kernel's own GRO on rb with the VXLAN device right
# on it (no relay).  One TCP stream over the inner addresses 198.18.31.1 ->
# .2, the same columns as the relay rows (iperf_row).

# vx_pair UNDERLAY_DEV_B : the VXLAN devices, A over ra, B over the given one
vx_pair() {
	A ip link add sofvx type vxlan id 42 local 198.18.1.1 remote 198.18.1.2 dstport 4789 dev ra &&
	B ip link add sofvx type vxlan id 42 local 198.18.1.2 remote 198.18.1.1 dstport 4789 dev "$1" &&
	A ip addr add 198.18.31.1/24 dev sofvx && B ip addr add 198.18.31.2/24 dev sofvx &&
	A ip link set sofvx up && B ip link set sofvx up
}

vx_unpair() {
	A ip link del sofvx 2>/dev/null
	B ip link del sofvx 2>/dev/null
}

# vx_rx : B's VXLAN device's received packets and bytes as a JSON object
vx_rx() {
	B ip -s -j link show sofvx 2>/dev/null |
		jq -c '.[0].stats64.rx | {packets: .packets, bytes: .bytes}' 2>/dev/null || echo '{}'
}

# vx_counters RX0 RX1 : what B's VXLAN device received during the row
vx_counters() {
	jq -cn --argjson a "$1" --argjson b "$2" '($b.packets - $a.packets) as $p |
		{vxlan_rx: {packets: $p, bytes: ($b.bytes - $a.bytes),
		 avg_bytes: (if $p > 0 then (($b.bytes - $a.bytes) / $p | round) else null end)}}'
}

step_relay_vxlan() {
	say "   one TCP stream over kernel VXLAN, veth without offloads -> AF_PACKET -> relay -> TAP" \
		"-> kernel VXLAN, $DEMO_RUNS x $DEMO_SECS s"
	for mode in off on; do
		say "   relay --offload $mode, VXLAN frames ..."
		if [ "$HAVE_RELAY" != 1 ]; then
			row_fail relay-vxlan "$mode" 4 "$CLI has no relay command"
			continue
		fi
		bg_start relayvx ip netns exec "$NSB" "$CLI" relay afpacket:rb tap:sofx0 --offload "$mode" --json
		_rv=$BG_PID
		if ! wait_up 5 "$_rv" B ip link show sofx0 ||
		   ! B ip addr add 198.18.1.2/24 dev sofx0 || ! B ip link set sofx0 up || ! vx_pair sofx0 ||
		   ! fg_run 10 ip netns exec "$NSA" ping -c 1 -W 5 198.18.31.2 >/dev/null 2>&1; then
			row_fail relay-vxlan "$mode" 4 "setup failed: $(tail -n 2 "$WORK/relayvx.log" | tr '\n' ' ')"
			vx_unpair
			bg_stop "$_rv"
			B ip link del sofx0 2>/dev/null
			A ip neigh flush dev ra 2>/dev/null
			continue
		fi
		_x0=$(vx_rx)
		iperf_row relay-vxlan "$mode" 4 1 198.18.31.2 5212 "$_rv"
		_ok=$?
		_x=$(vx_counters "$_x0" "$(vx_rx)")
		vx_unpair
		bg_stop "$_rv"
		_c=$(jq -cn --argjson r "$(last_json "$WORK/relayvx.log")" '{counters: {relay: $r}}')
		B ip link del sofx0 2>/dev/null
		A ip neigh flush dev ra 2>/dev/null
		[ $_ok -eq 0 ] && row_add "$_c" "$_x"
	done
	say "   kernel GRO on the veth (no relay), VXLAN frames ..."
	B ip addr add 198.18.1.2/24 dev rb
	B ip link set rb arp on
	B ethtool -K rb gro on >/dev/null 2>&1
	if vx_pair rb; then
		_x0=$(vx_rx)
		iperf_row relay-vxlan kernel-gro 4 1 198.18.31.2 5212 "" &&
			row_add '{"counters": {}}' "$(vx_counters "$_x0" "$(vx_rx)")"
	else
		row_fail relay-vxlan kernel-gro 4 "VXLAN devices could not be created"
	fi
	vx_unpair
	B ethtool -K rb gro off >/dev/null 2>&1
	B ip addr del 198.18.1.2/24 dev rb
	B ip link set rb arp off
	A ip neigh flush dev ra 2>/dev/null
	return 0
}

report_relay_vxlan() {
	on=$(avg_of relay-vxlan on 4) off=$(avg_of relay-vxlan off 4) kg=$(avg_of relay-vxlan kernel-gro 4)
	r=$(ratio "$on" "$off")
	say ""
	say "== 1c. relay with VXLAN frames: kernel VXLAN over a veth without offloads -> AF_PACKET ->" \
		"relay -> TAP -> kernel VXLAN ($DEMO_RUNS x $DEMO_SECS s per row)"
	say "   offload on / off: ${r}; relay on / kernel GRO on the same veth: $(ratio "$on" "$kg")"
	table_gbps relay-vxlan
	jq -rs 'map(select(.name == "relay-vxlan" and .vxlan_rx.avg_bytes))[] |
		"   \(.mode): the VXLAN device above received \(.vxlan_rx.packets) packets of" +
		" \(.vxlan_rx.avg_bytes) bytes on average" +
		(([.counters.relay.ports[]? | select(.kind == "tap") | .gro.tun_super_pkts // 0] | add) as $t |
		 if $t > 0 then ", \($t) tunnel super-packets written to the TAP" else "" end)' "$OUT/rows.jsonl"
	say "   verdict: relay with VXLAN frames, offloads ${r} without (target >= 3x: $(verdict_ge "$r" 3));" \
		"the kernel's own GRO on that veth: ${kg:-n/a} Gbit/s"
}
