# The live-traffic experiments of make demo (sourced by scripts/demo.sh after
# scripts/demo-lib.sh).  Each step_* function is independent: it sets up
# what it needs in the two namespaces, writes its rows to $OUT/rows.jsonl
# (a failed row says why) and tears down what it started.
#
# Topology (addresses from 198.18.0.0/15 and 2001:2::/48 only):
#   $NSA va 198.18.0.1 2001:2::1  ==veth (the wire)==  vb 198.18.0.2 2001:2::2 $NSB
#   tunnel:        sofl0 198.19.0.1 2001:2:0:1::1   <-UDP 7000->  sofl0 198.19.0.2 2001:2:0:1::2
#   kernel VXLAN:  vx0   198.19.1.1 2001:2:0:2::1   <-UDP 4789->  vx0   198.19.1.2 2001:2:0:2::2
#   relay:         ra 198.18.1.1  ==veth==  rb (no address) <- relay -> tap sofr0 198.18.1.2
# The wire: TSO, GSO and UDP (tunnel) segmentation off on both veths, so
# only frames of at most 1500 bytes cross.  va/vb (the tunnels' wire): GRO
# on, checksum offload on.  ra/rb (the relay's, set up as docs/relay.md
# describes): GRO off (the relay's AF_PACKET socket must see wire-size
# frames, as from a NIC without LRO) and transmit checksum offload off
# (frames carry complete checksums, as from a real wire); rb has no
# address, ARP and IPv6 off, so that only the TAP behind the relay answers.
# The kernel-gro row gives rb the address and turns its GRO on instead.

TUN_PORT=7000
TUN_PIDS=""
RELAY_PID=""
INNER_MTU=1472		# 1500 - IPv4 - UDP: what the tunnel carries in one datagram
VX_MTU=1450		# 1500 - IPv4 - UDP - VXLAN - Ethernet

wire_off() {	# NS DEV: no segmentation offloads on DEV
	ip netns exec "$1" ethtool -K "$2" tso off gso off tx-udp-segmentation off \
		tx-udp_tnl-segmentation off tx-udp_tnl-csum-segmentation off >/dev/null 2>&1
	ip netns exec "$1" ethtool -K "$2" tso off gso off >/dev/null 2>&1
}

net_setup() {
	ip netns add "$NSA" && ip netns add "$NSB" || return 1
	ip link add va netns "$NSA" type veth peer name vb netns "$NSB" || return 1
	ip link add ra netns "$NSA" type veth peer name rb netns "$NSB" || return 1
	for n in "$NSA" "$NSB"; do
		ip -n "$n" link set lo up
	done
	ip -n "$NSA" addr add 198.18.0.1/24 dev va
	ip -n "$NSB" addr add 198.18.0.2/24 dev vb
	ip -n "$NSA" -6 addr add 2001:2::1/64 dev va nodad
	ip -n "$NSB" -6 addr add 2001:2::2/64 dev vb nodad
	ip -n "$NSA" addr add 198.18.1.1/24 dev ra
	wire_off "$NSA" va
	wire_off "$NSB" vb
	wire_off "$NSA" ra
	wire_off "$NSB" rb
	A ethtool -K va gro on >/dev/null 2>&1
	B ethtool -K vb gro on >/dev/null 2>&1
	A ethtool -K ra gro off tx off >/dev/null 2>&1
	B ethtool -K rb gro off tx off >/dev/null 2>&1
	B sysctl -qw net.ipv6.conf.rb.disable_ipv6=1 >/dev/null 2>&1
	B ip link set rb arp off
	for d in va ra; do ip -n "$NSA" link set "$d" up; done
	for d in vb rb; do ip -n "$NSB" link set "$d" up; done
}

# ---- the tunnel ----

ns_of() {	# A|B: the namespace of that host
	if [ "$1" = A ]; then echo "$NSA"; else echo "$NSB"; fi
}

# tunnel_up MODE QUEUES : one softoffload tunnel per namespace; PIDs in TUN_PIDS.
tunnel_up() {
	TUN_PIDS=""
	if [ "$HAVE_TUNNEL" != 1 ]; then
		TUN_WHY="$CLI has no tunnel command"
		return 1
	fi
	bg_start tunA ip netns exec "$NSA" "$CLI" tunnel --tun sofl0 --local 198.18.0.1:$TUN_PORT \
		--remote 198.18.0.2:$TUN_PORT --offload "$1" --mtu $INNER_MTU --queues "$2" --json
	TUN_PIDS=$BG_PID
	bg_start tunB ip netns exec "$NSB" "$CLI" tunnel --tun sofl0 --local 198.18.0.2:$TUN_PORT \
		--remote 198.18.0.1:$TUN_PORT --offload "$1" --mtu $INNER_MTU --queues "$2" --json
	TUN_PIDS="$TUN_PIDS $BG_PID"
	set -- $TUN_PIDS
	for side in A B; do
		if ! wait_up 5 "$1" ip -n "$(ns_of $side)" link show sofl0; then
			if bg_alive "$1"; then
				TUN_WHY="no TUN sofl0 on host $side after 5 s"
			else
				TUN_WHY="the tunnel on host $side exited"
			fi
			TUN_WHY="$TUN_WHY: $(tail -n 2 "$WORK/tun$side.log" | tr '\n' ' ')"
			return 1
		fi
		shift
	done
	ip -n "$NSA" link set sofl0 mtu $INNER_MTU up && ip -n "$NSB" link set sofl0 mtu $INNER_MTU up &&
	ip -n "$NSA" addr add 198.19.0.1/24 dev sofl0 && ip -n "$NSB" addr add 198.19.0.2/24 dev sofl0 &&
	ip -n "$NSA" -6 addr add 2001:2:0:1::1/64 dev sofl0 nodad &&
	ip -n "$NSB" -6 addr add 2001:2:0:1::2/64 dev sofl0 nodad || { TUN_WHY="addressing sofl0 failed"; return 1; }
	set -- $TUN_PIDS
	for side in A B; do
		bg_alive "$1" ||
			{ TUN_WHY="the tunnel on host $side exited: $(tail -n 2 "$WORK/tun$side.log" | tr '\n' ' ')"; return 1; }
		shift
	done
}

# last_json LOG : the last JSON object the tool printed ({} if none).
last_json() {
	[ -s "$1" ] || { echo '{}'; return 0; }
	_j=$(jq -cs 'map(objects) | last // {}' "$1" 2>/dev/null) ||
		_j=$(grep '^{' "$1" | jq -cs 'map(objects) | last // {}' 2>/dev/null)
	printf '%s\n' "${_j:-{\}}"
}

# tunnel_down : stop both ends (they print their exit counters), collect
# them as {"counters": {"a": ..., "b": ...}}; the TUNs go with the tools.
tunnel_down() {
	bg_stop $TUN_PIDS
	TUN_PIDS=""
	jq -cn --argjson a "$(last_json "$WORK/tunA.log")" --argjson b "$(last_json "$WORK/tunB.log")" \
		'{counters: {a: $a, b: $b}}'
	for n in "$NSA" "$NSB"; do
		ip -n "$n" link del sofl0 2>/dev/null
	done
	return 0
}

snmp_csum() {	# NS: "tcp_in_csum_errors udp_in_csum_errors" of the namespace
	ip netns exec "$1" cat /proc/net/snmp | awk '
		$1 == "Tcp:" && !th { for (i = 2; i <= NF; i++) tc[$i] = i; th = 1; next }
		$1 == "Tcp:" { t = $tc["InCsumErrors"] }
		$1 == "Udp:" && !uh { for (i = 2; i <= NF; i++) uc[$i] = i; uh = 1; next }
		$1 == "Udp:" { u = $uc["InCsumErrors"] }
		END { print t + 0, u + 0 }'
}

# tun_threads : "HOST TID COMM user sys" for every thread of both tunnels
tun_threads() {
	set -- $TUN_PIDS
	[ $# -ge 1 ] && thread_ticks "$1" | sed 's/^/a /'
	[ $# -ge 2 ] && thread_ticks "$2" | sed 's/^/b /'
	return 0
}

# tunnel_row MODE FAMILY QUEUES STREAMS NAME
tunnel_row() {
	_addr=198.19.0.2
	[ "$2" = 6 ] && _addr=2001:2:0:1::2
	if ! tunnel_up "$1" "$3"; then
		tunnel_down >/dev/null
		row_fail "$5" "$1" "$2" "$TUN_WHY" "{\"queues\": $3}"
		return 1
	fi
	_k0=$(snmp_csum "$NSB")
	_t0=$(tun_threads)
	_cap=""
	if [ "$5" = rss ] && command -v tcpdump >/dev/null 2>&1; then
		# which worker carries what: a sample of the wire's first
		# datagrams, by UDP port pair (worker i sends from and to PORT+i)
		bg_start "rsscap-$3" ip netns exec "$NSB" tcpdump -i vb -nn -c 20000 -s 64 \
			-w "$WORK/rss-$3.pcap" udp
		_cap=$BG_PID
		sleep 0.3
	fi
	iperf_row "$5" "$1" "$2" "$4" "$_addr" 5201 "$TUN_PIDS"
	_ok=$?
	_t1=$(tun_threads)
	_k1=$(snmp_csum "$NSB")
	_c=$(tunnel_down)
	[ -n "$_cap" ] && bg_stop "$_cap"
	[ $_ok -eq 0 ] || return 1
	_ws='{}'
	if [ -n "$_cap" ] && [ -s "$WORK/rss-$3.pcap" ]; then
		_ws=$(tcpdump -nn -r "$WORK/rss-$3.pcap" 2>/dev/null | awk '
			$2 == "IP" && $3 ~ /^198\.18\.0\.1\./ {
				n = split($3, a, "."); m = split($5, b, "."); sub(":", "", b[m])
				c[a[n] "->" b[m]]++
			}
			END {
				printf "{\"wire_sample\":{"
				for (k in c) { printf "%s\"%s\":%d", sep, k, c[k]; sep = "," }
				printf "}}"
			}')
	fi
	_w=$(printf '%s\n' "$_t0" | awk -v hz="$CLK_TCK" -v now="$_t1" '
		{ u[$2] = $4; s[$2] = $5 }
		END {
			n = split(now, l, "\n"); printf "["
			for (i = 1; i <= n; i++) {
				split(l[i], f, " "); if (!(f[2] in u)) continue
				printf "%s{\"host\":\"%s\",\"tid\":%s,\"comm\":\"%s\",\"user_s\":%.2f,\"sys_s\":%.2f}",
				    sep, f[1], f[2], f[3], (f[4] - u[f[2]]) / hz, (f[5] - s[f[2]]) / hz; sep = ","
			}
			printf "]"
		}')
	row_add "$_c" "{\"queues\": $3, \"threads\": $_w}" "$_ws" \
		"$(echo "$_k0 $_k1" | awk '{ printf "{\"kernel_csum_errors\": {\"tcp\": %d, \"udp\": %d}}", $3 - $1, $4 - $2 }')"
}

vxlan_up() {
	A ip link add vx0 type vxlan id 42 local 198.18.0.1 remote 198.18.0.2 dstport 4789 dev va &&
	B ip link add vx0 type vxlan id 42 local 198.18.0.2 remote 198.18.0.1 dstport 4789 dev vb || return 1
	A ip link set vx0 mtu $VX_MTU up && B ip link set vx0 mtu $VX_MTU up &&
	A ip addr add 198.19.1.1/24 dev vx0 && B ip addr add 198.19.1.2/24 dev vx0 &&
	A ip -6 addr add 2001:2:0:2::1/64 dev vx0 nodad && B ip -6 addr add 2001:2:0:2::2/64 dev vx0 nodad
}

vxlan_row() {	# FAMILY
	_addr=198.19.1.2
	[ "$1" = 6 ] && _addr=2001:2:0:2::2
	iperf_row tunnel kernel-vxlan "$1" 1 "$_addr" 5201 "" && row_add '{"counters": {}}'
}

step_tunnel() {
	say "   one TCP stream through the tunnel and through kernel VXLAN, $DEMO_RUNS x $DEMO_SECS s per row"
	for fam in 4 6; do
		for mode in $(eval echo "\$DEMO_TUNNEL_MODES_$fam"); do
			say "   tunnel --offload $mode, IPv$fam ..."
			tunnel_row "$mode" "$fam" 1 1 tunnel
		done
	done
	if vxlan_up; then
		for fam in $DEMO_VXLAN_FAMILIES; do
			say "   kernel VXLAN, IPv$fam ..."
			vxlan_row "$fam"
		done
	else
		for fam in $DEMO_VXLAN_FAMILIES; do
			row_fail tunnel kernel-vxlan "$fam" "kernel VXLAN set-up failed (no vxlan module?)"
		done
	fi
	A ip link del vx0 2>/dev/null
	B ip link del vx0 2>/dev/null
	return 0
}

step_rss() {
	say "   iperf3 -P 4 through the tunnel (--offload on), --queues 1 and 2, $DEMO_RUNS x $DEMO_RSS_SECS s"
	ROW_SECS=$DEMO_RSS_SECS
	for q in 1 2; do
		say "   --queues $q ..."
		tunnel_row on 4 "$q" 4 rss
	done
	ROW_SECS=""
	return 0
}

# ---- the relay ----

relay_up() {	# MODE
	if [ "$HAVE_RELAY" != 1 ]; then
		RELAY_WHY="$CLI has no relay command"
		return 1
	fi
	bg_start relay ip netns exec "$NSB" "$CLI" relay afpacket:rb tap:sofr0 --offload "$1" --json
	RELAY_PID=$BG_PID
	if ! wait_up 5 "$RELAY_PID" B ip link show sofr0; then
		RELAY_WHY="no TAP sofr0 after 5 s: $(tail -n 2 "$WORK/relay.log" | tr '\n' ' ')"
		return 1
	fi
	B ip addr add 198.18.1.2/24 dev sofr0 && B ip link set sofr0 up ||
		{ RELAY_WHY="addressing sofr0 failed"; return 1; }
	bg_alive "$RELAY_PID" || { RELAY_WHY="relay exited: $(tail -n 2 "$WORK/relay.log" | tr '\n' ' ')"; return 1; }
}

relay_down() {
	bg_stop $RELAY_PID
	RELAY_PID=""
	jq -cn --argjson r "$(last_json "$WORK/relay.log")" '{counters: {relay: $r}}'
	B ip link del sofr0 2>/dev/null
	A ip neigh flush dev ra 2>/dev/null
	return 0
}

step_relay() {
	say "   one TCP stream, veth without offloads -> AF_PACKET -> relay -> TAP, $DEMO_RUNS x $DEMO_SECS s"
	for mode in off on; do
		say "   relay --offload $mode ..."
		if ! relay_up "$mode"; then
			relay_down >/dev/null
			row_fail relay "$mode" 4 "$RELAY_WHY"
			continue
		fi
		iperf_row relay "$mode" 4 1 198.18.1.2 5202 "$RELAY_PID"
		_ok=$?
		_c=$(relay_down)
		[ $_ok -eq 0 ] && row_add "$_c"
	done
	say "   kernel GRO on the veth (no relay) ..."
	B ip addr add 198.18.1.2/24 dev rb
	B ip link set rb arp on
	B ethtool -K rb gro on >/dev/null 2>&1
	iperf_row relay kernel-gro 4 1 198.18.1.2 5202 "" && row_add '{"counters": {}}'
	B ethtool -K rb gro off >/dev/null 2>&1
	B ip addr del 198.18.1.2/24 dev rb
	B ip link set rb arp off
	A ip neigh flush dev ra 2>/dev/null
	return 0
}

# ---- UDP segmentation ----

# udp_rx_lines : the receiver's burst lines so far
udp_rx_lines() {
	wc -l <"$WORK/udprx.log" 2>/dev/null || echo 0
}

step_udp() {
	say "   bench_udpgso over the veth (MSS 1472), $DEMO_UDP_SECS s per cell, receiver in the other namespace;"
	say "   software USO writes its frames into an AF_PACKET transmit ring (PACKET_TX_RING,"
	say "   PACKET_QDISC_BYPASS) on the veth, one send() per message"
	_mac=$(ip -n "$NSB" -br link show vb | awk '{ print $3 }')
	# one receiver for every cell: a line per burst, a burst ends after
	# 250 ms without a datagram
	bg_start udprx ip netns exec "$NSB" "$UDPGSO" rx -p 9000 -l 900 -i 250 -k -r
	_rx=$BG_PID
	if ! wait_for 3 listening "$NSB" udp 9000; then
		bg_stop "$_rx"
		for mode in single sendmmsg udpseg uso; do
			row_fail udp-segmentation "$mode" 4 "receiver did not start: $(tail -n 1 "$WORK/udprx.log")"
		done
		return 1
	fi
	for mode in single sendmmsg udpseg uso; do
		_x=""
		# software USO: the AF_PACKET port's transmit ring (-R)
		[ "$mode" = uso ] && _x="-I va -E $_mac -R"
		for size in $DEMO_UDP_SIZES; do
			_n0=$(udp_rx_lines)
			fg_run 20 ip netns exec "$NSA" "$UDPGSO" tx -D 198.18.0.2 -p 9000 -m "$mode" $_x \
				-s "$size" -l "$DEMO_UDP_SECS" -k >"$WORK/udptx.log" 2>"$WORK/udptx.err"
			_rc=$?
			_tx=$(cat "$WORK/udptx.log")
			# the sender has stopped: its last burst is reported 250 ms
			# after its last datagram (a stall inside the run may have
			# split it: every line since the cell began is summed)
			sleep 0.3
			_i=0
			while [ "$(udp_rx_lines)" -le "$_n0" ] && [ $_i -lt 10 ] && bg_alive "$_rx"; do
				sleep 0.1
				_i=$((_i + 1))
			done
			if [ $_rc -ne 0 ] || [ -z "$_tx" ]; then
				row_fail udp-segmentation "$mode" 4 "payload $size: exit $_rc: $(tail -n 1 "$WORK/udptx.err")"
				continue
			fi
			_rxs=$(sed -n "$((_n0 + 1)),\$p" "$WORK/udprx.log" | awk '
				{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] += kv[2] } }
				END {
					printf "rx_bytes=%d rx_datagrams=%d rx_secs=%.3f rx_mb_s=%.1f\n", v["bytes"],
					    v["datagrams"], v["secs"], (v["secs"] > 0 ? v["bytes"] / 1048576 / v["secs"] : 0)
				}')
			printf '%s %s\n' "$_tx" "$_rxs" | awk '{
				printf "{\"name\":\"udp-segmentation\",\"family\":4,\"streams\":1"
				for (i = 1; i <= NF; i++) {
					split($i, kv, "=")
					if (kv[1] == "mode") printf ",\"mode\":\"%s\"", kv[2]
					else printf ",\"%s\":%s", kv[1], kv[2]
				}
				print "}"
			}' >>"$OUT/rows.jsonl"
		done
	done
	bg_stop "$_rx"
	return 0
}
