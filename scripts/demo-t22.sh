# make demo: softoffload's VXLAN endpoint against the kernel's (sourced by
# scripts/demo.sh after demo-lib.sh and demo-live.sh; step "vxlan").
#
# The wire is the tunnel's veth (va/vb, 1500 bytes, segmentation offloads
# off, GRO on) with transmit checksumming off on both ends for the whole
# step, kernel <-> kernel rows included (a veth passes a packet whose
# checksum is still partial to the other namespace unfinished: the inner
# TCP checksum that a wire would carry complete is then missing for a
# receiver in user space).  One TCP stream from A to B, three rows:
#   kernel         the kernel's vxlan device at both ends
#   sofl-sends     softoffload tunnel --encap vxlan in A, the kernel's in B
#   sofl-receives  the kernel's in A, softoffload tunnel --encap vxlan in B
# Inner addresses 198.18.21.1 (A) and 198.18.21.2 (B), VNI 42, UDP 4789.

VXI_A=198.18.21.1
VXI_B=198.18.21.2

# vxi_kernel SIDE(A|B) : the kernel's vxlan device vxi0 on that host
vxi_kernel() {
	if [ "$1" = A ]; then _l=198.18.0.1 _r=198.18.0.2 _d=va _a=$VXI_A; else _l=198.18.0.2 _r=198.18.0.1 _d=vb _a=$VXI_B; fi
	$1 ip link add vxi0 type vxlan id 42 local $_l remote $_r dstport 4789 dev $_d &&
	$1 ip link set vxi0 mtu $VX_MTU up && $1 ip addr add $_a/24 dev vxi0
}

# vxi_sofl SIDE : softoffload's endpoint on TAP vxi0 of that host; VXI_PID
vxi_sofl() {
	if [ "$1" = A ]; then _l=198.18.0.1 _r=198.18.0.2 _a=$VXI_A _n=$NSA; else _l=198.18.0.2 _r=198.18.0.1 _a=$VXI_B _n=$NSB; fi
	bg_start "vxi$1" ip netns exec "$_n" "$CLI" tunnel --encap vxlan --vni 42 --tun vxi0 \
		--local $_l:4789 --remote $_r:4789 --json
	VXI_PID=$BG_PID
	wait_up 5 "$VXI_PID" ip -n "$_n" link show vxi0 || return 1
	$1 ip addr add $_a/24 dev vxi0 && $1 ip link set vxi0 up
}

vxi_down() {
	[ -n "${VXI_PID:-}" ] && bg_stop "$VXI_PID"
	A ip link del vxi0 2>/dev/null
	B ip link del vxi0 2>/dev/null
	A ip neigh flush dev va 2>/dev/null
	B ip neigh flush dev vb 2>/dev/null
}

# the veth's transmit drops, both ways (its peer's 256-entry ring full:
# veth_xmit()), which TCP sees as losses whichever endpoint is behind it:
# the wire's, in the kernel <-> kernel row too
vxi_wire_drops() {
	echo $(($(A ip -s link show va | awk '/TX:/ { getline; print $4; exit }') +
		$(B ip -s link show vb | awk '/TX:/ { getline; print $4; exit }')))
}

# the frames the softoffload endpoint dropped, from its counters (jq on the
# --json object): every drop reason of its TAP and UDP ports, the VXLAN and
# inner checks, and the TAP's queue towards it (tx_dropped); a TAP write
# refused while the TAP was still down ("down": set-up, before the row's
# traffic) aside
VXI_EP_DROPS='([.tun.rx_drop[]] | add // 0) +
	([.tun.tx_drop | to_entries[] | select(.key != "down") | .value] | add // 0) +
	([.udp.rx_drop[]] | add // 0) + ([.udp.tx_drop[]] | add // 0) +
	([.encap_drop[]] | add // 0) + ([.inner_drop[]] | add // 0) + (.kernel_tun_tx_dropped // 0)'

# vxi_row MODE : one row; the softoffload side's counters go with it
vxi_row() {
	VXI_PID=""
	case $1 in
	kernel) vxi_kernel A && vxi_kernel B ;;
	sofl-sends) vxi_kernel B && vxi_sofl A ;;
	sofl-receives) vxi_kernel A && vxi_sofl B ;;
	esac || { vxi_down; row_fail vxlan-interop "$1" 4 "set-up failed"; return 0; }
	_side=; case $1 in sofl-sends) _side=A ;; sofl-receives) _side=B ;; esac
	_vd0=$(vxi_wire_drops)
	if iperf_row vxlan-interop "$1" 4 1 $VXI_B 5203 "$VXI_PID"; then
		_vd=$(($(vxi_wire_drops) - _vd0))
		vxi_down
		if [ -n "$_side" ]; then
			row_add "$(jq -cn --argjson c "$(last_json "$WORK/vxi$_side.log")" --arg d "$_vd" \
				"{counters: {sofl: \$c}, wire_drops: (\$d | tonumber? // null),
				  endpoint_drops: (\$c | $VXI_EP_DROPS)}")"
		else
			row_add "{\"counters\": {}, \"wire_drops\": ${_vd:-null}}"
		fi
	else
		vxi_down
	fi
}

step_vxlan() {
	say "   one TCP stream A -> B: softoffload's VXLAN endpoint against the kernel's, $DEMO_RUNS x $DEMO_SECS s per row"
	say "   (both veths: transmit checksumming off for this step)"
	A ethtool -K va tx off >/dev/null 2>&1
	B ethtool -K vb tx off >/dev/null 2>&1
	for _m in kernel sofl-sends sofl-receives; do
		say "   vxlan $_m ..."
		vxi_row $_m
	done
	A ethtool -K va tx on >/dev/null 2>&1
	B ethtool -K vb tx on >/dev/null 2>&1
	return 0
}

report_vxlan() {
	_k=$(avg_of vxlan-interop kernel 4)
	_s=$(avg_of vxlan-interop sofl-sends 4)
	_r=$(avg_of vxlan-interop sofl-receives 4)
	say ""
	say "== VXLAN interop: softoffload tunnel --encap vxlan <-> the kernel's vxlan, 1500-byte wire ($DEMO_RUNS x $DEMO_SECS s per row)"
	table_gbps vxlan-interop
	_rs=$(ratio "$_s" "$_k") _rr=$(ratio "$_r" "$_k")
	say "   verdict: softoffload sending $_rs, receiving $_rr of kernel <-> kernel (target >= 0.7x: $(verdict_ge "$_rs" 0.7), $(verdict_ge "$_rr" 0.7))"
	say "   retransmits: $(jq -rs 'map(select(.name == "vxlan-interop" and .gbps)) |
		map("\(.mode) \(.retransmits) (the wire dropped \(.wire_drops // "?")" +
		    (if .mode == "kernel" then ")" else ", the endpoint \(.endpoint_drops // "?"))" end)) |
		join(", ")' "$OUT/rows.jsonl")"
	_ep=$(jq -rs 'map(select(.name == "vxlan-interop" and .gbps and .mode != "kernel") |
		.endpoint_drops) | if length == 2 and all(. == 0) then "met" elif length < 2 then
		"not measured" else "missed" end' "$OUT/rows.jsonl")
	say "   verdict: frames dropped by the softoffload endpoint, both directions: 0 (target): $_ep"
}
