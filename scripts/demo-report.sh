# make demo's tables, verdicts and results.json, from $OUT/rows.jsonl
# (sourced by scripts/demo.sh after scripts/demo-lib.sh).

# rows FILTER : the rows matching the jq FILTER (a boolean expression), as a
# JSON array.
rows() {
	jq -cs "map(select($1))" "$OUT/rows.jsonl"
}

# avg_of NAME MODE FAMILY : the row's average Gbit/s (empty if no such row).
avg_of() {
	jq -rs --arg n "$1" --arg m "$2" --argjson f "$3" \
		'map(select(.name == $n and .mode == $m and .family == $f and .gbps)) | .[0].gbps.avg // empty' \
		"$OUT/rows.jsonl"
}

# ratio A B : A / B as "1.23x", "n/a" when either is missing or B is 0.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print "n/a"; else printf "%.2fx\n", a / b }'
}

# verdict_ge VALUE TARGET : "met" / "missed" / "not measured".
verdict_ge() {
	awk -v v="$1" -v t="$2" 'BEGIN { if (v == "n/a" || v == "") print "not measured"; else if (v + 0 >= t + 0) print "met"; else print "missed" }'
}

# table_gbps NAME : one line per row of experiment NAME, tcpbench's columns.
table_gbps() {
	printf '   %-19s %-4s %-7s %-45s %6s  %s\n' mode fam streams "       bandwidth min/avg/max/std-dev" retr \
		"CPU s/GB: user sys (tool)  machine"
	jq -rs --arg n "$1" 'map(select(.name == $n))[] |
		if .error then "\(.mode)\t\(.family)\t-\tstep failed: \(.error)"
		else [.mode, .family, .streams,
		      "= \(.gbps.min)/\(.gbps.avg)/\(.gbps.max)/\(.gbps.stddev) Gbps",
		      .retransmits, (.cpu_s_per_gb.user // "-"), (.cpu_s_per_gb.sys // "-"),
		      .cpu_s_per_gb.machine,
		      (if .server_gbps then "= \(.server_gbps.min)/\(.server_gbps.avg)/\(.server_gbps.max)/\(.server_gbps.stddev) Gbps"
		       else "-" end)] | map(tostring) | join("\t") end' "$OUT/rows.jsonl" |
	awk -F'\t' '{
		if (NF == 4) { printf "   %-19s %-4s %-7s %s\n", $1, "v" $2, $3, $4; next }
		printf "   %-19s %-4s %-7s client %-38s %6s  %8s %6s %8s\n", $1, "v" $2, $3, $4, $5, $6, $7, $8
		if ($9 != "-") printf "   %-19s %-4s %-7s server %s\n", "", "", "", $9
	}'
}

report_tunnel() {
	on4=$(avg_of tunnel on 4) off4=$(avg_of tunnel off 4) vx4=$(avg_of tunnel kernel-vxlan 4)
	on6=$(avg_of tunnel on 6) off6=$(avg_of tunnel off 6)
	r_off4=$(ratio "$on4" "$off4") r_off6=$(ratio "$on6" "$off6") r_vx4=$(ratio "$on4" "$vx4")
	retr=$(jq -s '[.[] | select(.name == "tunnel" and .mode == "on" and .gbps) | .retransmits] | add // "none"' -r "$OUT/rows.jsonl")
	say ""
	say "== 1. throughput: one TCP stream through softoffload tunnel, 1500-byte wire ($DEMO_RUNS x $DEMO_SECS s per row)"
	say "   offload on / off: IPv4 ${r_off4}, IPv6 ${r_off6}; offload on / kernel VXLAN: IPv4 ${r_vx4}"
	table_gbps tunnel
	say "   verdict: tunnel with offloads ${r_off4} --offload off (target >= 6x: $(verdict_ge "$r_off4" 6)), ${r_vx4} kernel VXLAN (target >= 1.2x: $(verdict_ge "$r_vx4" 1.2)), $(case $retr in none) echo "retransmits with offloads not measured" ;; 0) echo "0 retransmits with offloads (target 0: met)" ;; *) echo "$retr retransmits with offloads (target 0: missed)" ;; esac)"
}

report_relay() {
	on=$(avg_of relay on 4) off=$(avg_of relay off 4) kg=$(avg_of relay kernel-gro 4)
	r=$(ratio "$on" "$off")
	say ""
	say "== 1b. relay: veth without offloads -> AF_PACKET -> softoffload relay -> TAP ($DEMO_RUNS x $DEMO_SECS s per row)"
	say "   offload on / off: ${r}; relay on / kernel GRO on the same veth: $(ratio "$on" "$kg")"
	table_gbps relay
	say "   verdict: relay with offloads ${r} without (target >= 3x: $(verdict_ge "$r" 3)); the kernel's own GRO on that veth: ${kg:-n/a} Gbit/s"
}

report_rss() {
	q1=$(jq -rs 'map(select(.name == "rss" and .queues == 1 and .gbps)) | .[0].gbps.avg // empty' "$OUT/rows.jsonl")
	q2=$(jq -rs 'map(select(.name == "rss" and .queues == 2 and .gbps)) | .[0].gbps.avg // empty' "$OUT/rows.jsonl")
	say ""
	say "== 3. RSS: iperf3 -P 4 through the tunnel, --queues 1 vs 2 ($DEMO_RUNS x $DEMO_RSS_SECS s per row)"
	say "   --queues 2 / --queues 1: $(ratio "$q2" "$q1")"
	jq -rs 'map(select(.name == "rss"))[] |
		if .error then "   --queues \(.queues): step failed: \(.error)" else
		"   --queues \(.queues): bandwidth min/avg/max/std-dev = \(.gbps.min)/\(.gbps.avg)/\(.gbps.max)/\(.gbps.stddev) Gbps, \(.retransmits) retransmits",
		"     CPU seconds per thread (user+sys; host A sends, B receives): " +
		  ([.threads[] | select(.user_s + .sys_s >= 0.05) |
		    "\(.host | ascii_upcase):\(.comm)[\(.tid)] \(.user_s + .sys_s | . * 100 | round / 100)"] | join(", ")),
		(if (.wire_sample // {} | length) > 0 then
		  "     datagrams A -> B by worker, as UDP port of the worker on A -> on B (a sample: the first \(.wire_sample | add) on the wire): " +
		  (.wire_sample | to_entries | sort_by(.key) | map("\(.key) \(.value)") | join(", "))
		 else empty end),
		(.counters | to_entries[] | .key as $side |
		  [.value | .. | objects | select(has("worker") or has("queue")) ] as $w |
		  if ($w | length) > 0 then
		    "     side \($side) per worker: " + ($w | map(tostring) | join(" "))
		  else empty end)
		end' "$OUT/rows.jsonl"
	say "   verdict: $( [ "$(ratio "$q2" "$q1")" = n/a ] && echo "not measured" || echo "two workers per host carry $(ratio "$q2" "$q1") the throughput of one (the receiving worker is picked by the flow's Toeplitz hash, the sending one by the TUN queue the kernel chose; CPU per thread above)")"
}

report_udp() {
	say ""
	say "== 2. UDP segmentation: bench_udpgso over the veth, MSS 1472, ${DEMO_UDP_SECS} s per cell"
	k=$(jq -rs 'map(select(.name == "udp-segmentation" and .mode == "udpseg" and .payload == 61824)) | .[0].mb2cpu // empty' "$OUT/rows.jsonl")
	u=$(jq -rs 'map(select(.name == "udp-segmentation" and .mode == "uso" and .payload == 61824)) | .[0].mb2cpu // empty' "$OUT/rows.jsonl")
	o=$(jq -rs 'map(select(.name == "udp-segmentation" and .mode == "single" and .payload == 61824)) | .[0].mb2cpu // empty' "$OUT/rows.jsonl")
	r=$(ratio "$u" "$k")
	say "   MB2CPU at 61824 B, offload / one datagram per call: kernel UDP_SEGMENT $(ratio "$k" "$o")," \
		"software USO + transmit ring $(ratio "$u" "$o"); software USO / kernel UDP_SEGMENT: ${r}"
	for mode in single sendmmsg udpseg uso; do
		case $mode in
		single) say "   one datagram per call:" ;;
		sendmmsg) say "   sendmmsg (all datagrams of a message in one call):" ;;
		udpseg) say "   kernel UDP_SEGMENT (software GSO in the kernel: the veth has no tx-udp-segmentation):" ;;
		uso) say "   softoffload USO (sofl_gso_segment SOFL_GSO_UDP_L4, zero-copy iovecs) + sendmmsg on AF_PACKET:" ;;
		esac
		say "   \$pkt_size	rx MB/s	MB/s	Calls/s	Msg/s	CPU	MB2CPU"
		say "   ========================================================================"
		jq -rs --arg m "$mode" 'map(select(.name == "udp-segmentation" and .mode == $m))[] |
			if .error then "   step failed: \(.error)" else
			"   \(.payload)\t\(.rx_mb_s)\t\(.mb_s)\t\(.calls_s)\t\(.msg_s)\t\(.cpu)\t\(.mb2cpu)" end' \
			"$OUT/rows.jsonl"
	done
	if [ "$r" = n/a ]; then
		v="not measured"
	else
		v=$(awk -v r="$r" 'BEGIN { printf "kernel / USO = %.2fx (target <= 1.5x: %s)", 1 / r, (1 / r <= 1.5 ? "met" : "missed") }')
	fi
	say "   verdict: software USO + transmit ring MB2CPU ${u:-n/a} vs kernel UDP_SEGMENT ${k:-n/a} at 61824 B: $v"
}

# the checksum counters of every tunnel run: any counter whose name says
# csum/checksum, as netstat -s prints them ("N name")
CSUM_DEF='def csums: [paths(scalars) as $p | select($p | map(tostring) | join(".") | test("csum|checksum"; "i")) |
	{key: ($p | map(tostring) | join(".")), value: getpath($p)}] | from_entries;
def csum_runs: map(select(.name == "tunnel" and .counters and (.mode == "off" or .mode == "on")));
def csum_name($side; $k): ({"tun.csum_sw": "output packets software-checksummed (read from the TUN, sent)",
	"tun.csum_sw_verify": "input packets software-checksum-verified (TUN)",
	"udp.csum_sw": "output datagrams software-checksummed (UDP)",
	"udp.csum_sw_verify": "input datagrams software-checksum-verified (UDP)",
	"gro.csum_sw_l4": "input packets software-checksummed (GRO)"}[$k] // ($k | gsub("[._]"; " "))) +
	" [host \($side | ascii_upcase), \($k)]";'

report_csum() {
	say ""
	say "== 4. checksum offload: software-checksummed counters of each tunnel run (netstat -s style; counters that moved in some run)"
	jq -rs "$CSUM_DEF"'csum_runs as $runs |
		([$runs[] | .counters | to_entries[] | .key as $s | .value | csums | to_entries[] |
		  select(.value != 0) | [$s, .key]] | unique) as $keys |
		$runs[] | . as $r |
		"   --offload \(.mode), IPv\(.family) (\(if .mode == "off" then "before" else "after" end)):",
		($keys[] as $k | "\t\($r.counters[$k[0]] | csums | .[$k[1]] // 0) \(csum_name($k[0]; $k[1]))"),
		"\t\(.kernel_csum_errors.tcp) TCP + \(.kernel_csum_errors.udp) UDP checksum errors at the receiving stack (/proc/net/snmp InCsumErrors)"' \
		"$OUT/rows.jsonl"
	n=$(jq -s "$CSUM_DEF"'[csum_runs[] | select(.mode == "on") | .counters[] | csums | .[] | numbers] | add // 0' "$OUT/rows.jsonl")
	e=$(jq -s '[.[] | select(.name == "tunnel") | (.kernel_csum_errors.tcp // 0) + (.kernel_csum_errors.udp // 0)] | add // 0' "$OUT/rows.jsonl")
	say "   verdict: with offloads the kernel leaves checksums to the TUN's \"NIC\" and softoffload does them ($n counted in the --offload on runs, 0 with --offload off, where the kernel checksums every packet itself); $e checksum errors at the receivers"
}

# csum_rows : the checksum experiment's own rows, from the tunnel rows.
csum_rows() {
	jq -cs "$CSUM_DEF"'csum_runs[] | {name: "csum", mode, family, streams, bytes,
		counters: (.counters | map_values(csums)), kernel_csum_errors}' "$OUT/rows.jsonl"
}

write_json() {
	cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
	jq -n --arg cpu "$cpu" --argjson cores "$(nproc)" --arg kernel "$(uname -r)" \
		--arg date "$DEMO_DATE" --arg load "$DEMO_LOAD" --argjson runs "$DEMO_RUNS" \
		--arg load1 "$(cut -d' ' -f1-3 /proc/loadavg)" \
		--argjson secs "$DEMO_SECS" --arg dur "$(($(date +%s) - DEMO_T0))" \
		--slurpfile rows "$OUT/rows.jsonl" --slurpfile csum "$WORK/csum.jsonl" \
		--arg notes "$DEMO_NOTES" '
		{machine: {cpu: $cpu, cores: $cores, kernel: $kernel, date: $date,
			   loadavg_at_start: $load, loadavg_at_end: $load1},
		 demo: {runs: $runs, secs_per_run: $secs, duration_s: ($dur | tonumber),
			notes: ($notes | split("\n") | map(select(length > 0)))},
		 experiments: ($rows + $csum)}' >"$OUT/results.json.tmp" &&
		mv "$OUT/results.json.tmp" "$OUT/results.json"
}
