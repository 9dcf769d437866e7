# make demo, experiment "vpn" (sourced by scripts/demo.sh): one TCP stream
# through examples/vpn (AES-256-GCM, then ChaCha20-Poly1305, each by the
# crypto vpn picks, ipsec-mb on x86-64, and by OpenSSL's EVP: rows
# CIPHER-openssl) and through
# Debian's wireguard-go (the 2022 package: its TUN has no offloads, one
# packet per read and write), on the demo's 1500-byte veth, IPv4 inside
# and out, $DEMO_RUNS x $DEMO_SECS s per row, the tunnel's columns.  The
# plain tunnel's row of the same run is the "tunnel"/"on" row (step
# tunnel).  Inner addresses: 198.18.41.0/24 (vpn), 198.18.40.0/24
# (wireguard-go).

VPN=${DEMO_VPN:-$BUILD/examples/vpn}	# DEMO_VPN: another build of it, to compare
VPN_PORT=7200
VPN_MTU=1452		# sofl_tun_inner_mtu(1500, AF_INET, UDP, 16, 16): what vpn sets
WG_MTU=1420		# wg-quick's default
VPN_WORKERS=${DEMO_VPN_WORKERS:-0}	# crypto threads per side: 0 (on the I/O thread) measured best on 2 vCPUs
VPN_ROWS=${DEMO_VPN_ROWS:-aes-256-gcm aes-256-gcm-openssl chacha20-poly1305 chacha20-poly1305-openssl wireguard-go}	# the rows, in order

# vpn_row MODE: a cipher, or CIPHER-openssl (vpn --crypto openssl)
vpn_row() {
	case $1 in
	*-openssl) _cipher=${1%-openssl} _lib="--crypto openssl" ;;
	*) _cipher=$1 _lib="" ;;
	esac
	if [ ! -x "$VPN" ]; then
		row_fail vpn "$1" 4 "$VPN not built (make BUILD=$BUILD examples)"
		return 1
	fi
	head -c 32 /dev/urandom >"$WORK/vpn.key"
	bg_start vpnA ip netns exec "$NSA" "$VPN" --side a --tun vpn0 --local 198.18.0.1:$VPN_PORT \
		--remote 198.18.0.2:$VPN_PORT --key "$WORK/vpn.key" --cipher "$_cipher" --workers $VPN_WORKERS $_lib
	_va=$BG_PID
	bg_start vpnB ip netns exec "$NSB" "$VPN" --side b --tun vpn0 --local 198.18.0.2:$VPN_PORT \
		--remote 198.18.0.1:$VPN_PORT --key "$WORK/vpn.key" --cipher "$_cipher" --workers $VPN_WORKERS $_lib
	_vb=$BG_PID
	if ! wait_up 5 "$_va" sh -c "ip -n $NSA link show vpn0 | grep -q ,UP" ||
	   ! wait_up 5 "$_vb" sh -c "ip -n $NSB link show vpn0 | grep -q ,UP"; then
		bg_stop "$_va" "$_vb"
		row_fail vpn "$1" 4 "vpn did not come up: $(tail -n 1 "$WORK/vpnA.log") $(tail -n 1 "$WORK/vpnB.log")"
		return 1
	fi
	A ip addr add 198.18.41.1/24 dev vpn0
	B ip addr add 198.18.41.2/24 dev vpn0
	iperf_row vpn "$1" 4 1 198.18.41.2 5201 "$_va $_vb"
	_ok=$?
	bg_stop "$_va" "$_vb"
	[ $_ok -eq 0 ] || return 1
	# each side's final counters line, as {"a": "...", "b": "..."}, and
	# the crypto it ran ("OpenSSL EVP", "ipsec-mb AVX-512", ...)
	row_add "$(jq -cn --arg a "$(grep '^vpn: sealed' "$WORK/vpnA.log" | tail -n 1)" \
		--arg b "$(grep '^vpn: sealed' "$WORK/vpnB.log" | tail -n 1)" \
		--arg c "$(sed -n 's/.* by \(.*\), [0-9]* worker.*/\1/p' "$WORK/vpnA.log" | head -n 1)" \
		'{counters: {a: $a, b: $b}, crypto: $c, mtu: '$VPN_MTU'}')"
}

wg_row() {
	if ! command -v wireguard-go >/dev/null 2>&1 || ! command -v wg >/dev/null 2>&1; then
		row_fail vpn wireguard-go 4 "wireguard-go or wg not installed (scripts/deps.sh demo installs them)"
		return 1
	fi
	umask 077
	wg genkey >"$WORK/wgA.key" && wg genkey >"$WORK/wgB.key" || return 1
	for s in A B; do
		if [ $s = A ]; then ns=$NSA me=1 peer=B pa=2; else ns=$NSB me=2 peer=A pa=1; fi
		# -f: stay in the foreground, so the demo knows (and stops) its PID
		# one name per side: wireguard-go's control socket
		# (/var/run/wireguard/NAME.sock) is not per namespace
		wgif=wgsofl$s
		bg_start "wg$s" ip netns exec "$ns" env WG_PROCESS_FOREGROUND=1 wireguard-go -f $wgif
		eval "_w$s=\$BG_PID"
		if ! wait_up 5 "$BG_PID" ip -n "$ns" link show $wgif; then
			row_fail vpn wireguard-go 4 "wireguard-go did not create $wgif: $(tail -n 1 "$WORK/wg$s.log")"
			bg_stop $_wA ${_wB:-}
			return 1
		fi
		ip netns exec "$ns" wg set $wgif listen-port $((VPN_PORT + 1)) private-key "$WORK/wg$s.key" \
			peer "$(wg pubkey <"$WORK/wg$peer.key")" endpoint "198.18.0.$pa:$((VPN_PORT + 1))" \
			allowed-ips 0.0.0.0/0 &&
		ip -n "$ns" addr add "198.18.40.$me/24" dev $wgif &&
		ip -n "$ns" link set $wgif mtu $WG_MTU up || {
			row_fail vpn wireguard-go 4 "configuring $wgif failed"
			bg_stop $_wA ${_wB:-}
			return 1
		}
	done
	iperf_row vpn wireguard-go 4 1 198.18.40.2 5201 "$_wA $_wB"
	_ok=$?
	bg_stop "$_wA" "$_wB"
	[ $_ok -eq 0 ] || return 1
	row_add '{"counters": {}, "mtu": '$WG_MTU', "note": "Debian wireguard-go 0.0.20220316: no TUN offloads (one packet per read/write)"}'
}

step_vpn() {
	say "   one TCP stream through examples/vpn (--workers $VPN_WORKERS) and wireguard-go, $DEMO_RUNS x $DEMO_SECS s per row"
	for c in $VPN_ROWS; do
		if [ "$c" = wireguard-go ]; then
			say "   wireguard-go (Debian's, no TUN offloads), IPv4 ..."
			wg_row
		else
			say "   vpn --cipher ${c%-openssl}$(case $c in *-openssl) echo " --crypto openssl" ;; esac), IPv4 ..."
			vpn_row "$c"
		fi
	done
	return 0
}

report_vpn() {
	aes=$(avg_of vpn aes-256-gcm 4) cha=$(avg_of vpn chacha20-poly1305 4)
	evp=$(avg_of vpn aes-256-gcm-openssl 4) cevp=$(avg_of vpn chacha20-poly1305-openssl 4)
	wg=$(avg_of vpn wireguard-go 4) plain=$(avg_of tunnel on 4)
	r_plain=$(ratio "$aes" "$plain") r_wg=$(ratio "$aes" "$wg")
	say ""
	say "== 6. VPN: one TCP stream through examples/vpn and wireguard-go, 1500-byte wire ($DEMO_RUNS x $DEMO_SECS s per row)"
	say "   CPU: $(sh "$here/cpu-name.sh" 2>/dev/null)"
	say "   aes-256-gcm / plain tunnel (--offload on, this run): ${r_plain}; aes-256-gcm / wireguard-go: ${r_wg}; chacha20-poly1305 / wireguard-go: $(ratio "$cha" "$wg")"
	say "   AES-256-GCM by $(jq -r 'select(.name == "vpn" and .mode == "aes-256-gcm") | .crypto' "$OUT/rows.jsonl" 2>/dev/null | head -n 1); by OpenSSL's EVP (row aes-256-gcm-openssl): $(ratio "$evp" "$plain") the plain tunnel; ChaCha20-Poly1305 / its EVP row: $(ratio "$cha" "$cevp")"
	say "   (wireguard-go is Debian's 2022 package: its TUN has no offloads, one packet per read and write)"
	table_gbps vpn
	say "   verdict: AES-256-GCM ${r_plain} the plain tunnel (target >= 0.75x: $(verdict_ge "$r_plain" 0.75)), ${r_wg} wireguard-go (target >= 10x: $(verdict_ge "$r_wg" 10))"
}
