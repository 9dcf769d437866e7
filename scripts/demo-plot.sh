# make demo's plots, drawn by gnuplot from $OUT/rows.jsonl into $OUT/*.png
# (sourced by scripts/demo.sh after scripts/demo-lib.sh):
#   tunnel.png  relay.png  rss.png   Gbit/s per mode: bar = average, whiskers = min/max
#   udp-segmentation.png             MB/s and MB2CPU against payload size, one curve per way

PLOT_TERM='set terminal pngcairo size 960,540 font "sans,11" noenhanced'

plot_title_tail() {
	printf '%s, %s vCPU, Linux %s, %s' "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)" \
		"$(nproc)" "$(uname -r)" "$DEMO_DATE"
}

# plot_bars NAME TITLE SECS : bars of experiment NAME's rows (runs of SECS s).
plot_bars() {
	_d="$WORK/plot-$1.dat"
	jq -rs --arg n "$1" 'map(select(.name == $n and .gbps))[] |
		[(if .name == "rss" then "queues \(.queues)" else "\(.mode) v\(.family)" end),
		 .gbps.avg, .gbps.min, .gbps.max,
		 # colour: kernel reference grey, off red, one half orange, on green
		 (if (.mode | startswith("kernel")) then 9211020 elif .mode == "off" then 12603469
		  elif .mode == "on" then 5937738 else 15769648 end)] | map(tostring) | join("\t")' \
		"$OUT/rows.jsonl" >"$_d"
	if [ ! -s "$_d" ]; then
		say "   plot $1.png: no rows to draw"
		return 1
	fi
	_nb=$(wc -l <"$_d")
	_top=$(awk -F'\t' '$4 > m { m = $4 } END { printf "%.3f", m * 1.15 + 0.01 }' "$_d")
	gnuplot >"$WORK/gnuplot-$1.log" 2>&1 <<EOF
$PLOT_TERM
set output "$OUT/$1.png"
set title "$2\n$(plot_title_tail)"
set ylabel "Gbit/s (bar: average; whiskers: min/max over $DEMO_RUNS x $3 s)"
set style fill solid 0.6 border -1
set boxwidth 0.6
set yrange [0:$_top]
set xrange [-0.6:$_nb - 0.4]
set grid ytics
set xtics rotate by -25
set key off
set datafile separator "\t"
plot "$_d" using 0:2:5:xtic(1) with boxes lc rgb variable, \
     "" using 0:2:3:4 with yerrorbars lc rgb "black" pt 0 lw 1.5, \
     "" using 0:(\$4):(sprintf("%.2f", \$2)) with labels offset 0,0.8
EOF
	_rc=$?
	[ $_rc -eq 0 ] && [ -s "$OUT/$1.png" ] && return 0
	say "   plot $1.png failed: $(tail -n 2 "$WORK/gnuplot-$1.log" | tr '\n' ' ')"
	return 1
}

plot_udp() {
	for m in single sendmmsg udpseg uso; do
		jq -rs --arg m "$m" 'map(select(.name == "udp-segmentation" and .mode == $m and .mb_s))[] |
			[.payload, .mb_s, .mb2cpu] | map(tostring) | join("\t")' "$OUT/rows.jsonl" >"$WORK/plot-udp-$m.dat"
	done
	if ! [ -s "$WORK/plot-udp-uso.dat" ] && ! [ -s "$WORK/plot-udp-udpseg.dat" ]; then
		say "   plot udp-segmentation.png: no rows to draw"
		return 1
	fi
	_p=""
	for m in single sendmmsg udpseg uso; do
		[ -s "$WORK/plot-udp-$m.dat" ] || continue
		case $m in
		single) _t="one datagram per call" ;;
		sendmmsg) _t="sendmmsg" ;;
		udpseg) _t="kernel UDP_SEGMENT" ;;
		uso) _t="softoffload USO + transmit ring" ;;
		esac
		_p="$_p${_p:+, }\"$WORK/plot-udp-$m.dat\" using 0:COL:xtic(1) with linespoints lw 2 title \"$_t\""
	done
	gnuplot >"$WORK/gnuplot-udp.log" 2>&1 <<EOF
$PLOT_TERM
set output "$OUT/udp-segmentation.png"
set datafile separator "\t"
set multiplot layout 1,2 title "UDP segmentation over a 1500-byte veth, MSS 1472\n$(plot_title_tail)"
set xlabel "payload bytes per message"
set xtics rotate by -45
set grid
set key outside below center horizontal maxrows 2
set yrange [0:*]
set ylabel "MB/s (payload, sender)"
plot $(echo "$_p" | sed 's/COL/2/g')
set ylabel "MB2CPU (MB/s per sender CPU %)"
plot $(echo "$_p" | sed 's/COL/3/g')
unset multiplot
EOF
	_rc=$?
	[ $_rc -eq 0 ] && [ -s "$OUT/udp-segmentation.png" ] && return 0
	say "   plot udp-segmentation.png failed: $(tail -n 2 "$WORK/gnuplot-udp.log" | tr '\n' ' ')"
	return 1
}

plots() {
	if ! command -v gnuplot >/dev/null 2>&1; then
		say "   no plots: gnuplot not installed (make deps-demo installs gnuplot-nox)"
		return 1
	fi
	_ok=0
	# only the experiments of the steps that ran (want: scripts/demo.sh)
	if want tunnel; then
		plot_bars tunnel "One TCP stream through softoffload tunnel vs kernel VXLAN, 1500-byte wire" \
			"$DEMO_SECS" || _ok=1
	fi
	if want relay; then
		plot_bars relay "One TCP stream, veth without offloads -> AF_PACKET -> softoffload relay -> TAP" \
			"$DEMO_SECS" || _ok=1
	fi
	if want relay_vxlan; then
		plot_bars relay-vxlan "One TCP stream over kernel VXLAN: veth without offloads -> relay -> TAP" \
			"$DEMO_SECS" || _ok=1
	fi
	if want rss; then
		plot_bars rss "iperf3 -P 4 through softoffload tunnel: --queues 1 vs 2" "$DEMO_RSS_SECS" || _ok=1
	fi
	if want udp; then
		plot_udp || _ok=1
	fi
	for f in "$OUT"/*.png; do
		[ -f "$f" ] && say "   wrote $f"
	done
	return $_ok
}
