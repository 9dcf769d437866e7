# make demo, step "burst" (sourced by scripts/demo.sh after demo-lib.sh and
# demo-report.sh): crafted TCP bursts through a live, unpinned relay
# (AF_PACKET veth -> TAP) with its default --gro-flush-timeout (1000 us) and
# with 0 (every read's flows written at its end), against the kernel's GRO
# of each burst as one NAPI poll.  It runs tests/relay_burst.sh (its own
# namespaces, the kernel oracle kgro) with HOLD_US=1000 and takes its
# counts.  Rows: name "burst", modes "kernel", "hold-1000", "hold-0":
# bursts, packets written ("outputs"), and for the relay whether its
# packets equal the kernel's byte for byte.

step_burst() {
	_b_out=$(HOLD_US=1000 BUILD=$BUILD sh "$here/../tests/relay_burst.sh" 2>&1)
	_b_rc=$?
	_b_n=$(printf '%s\n' "$_b_out" | sed -n 's/.*kgro: [0-9]* frames in \([0-9]*\) polls.*/\1/p')
	_b_k=$(printf '%s\n' "$_b_out" | sed -n 's/.*polls -> \([0-9]*\) frames out.*/\1/p')
	_b_h=$(printf '%s\n' "$_b_out" | sed -n 's/^hold: \([0-9]*\) packets.*/\1/p' | tail -n 1)
	_b_z=$(printf '%s\n' "$_b_out" | sed -n 's/^hold0: \([0-9]*\) packets.*/\1/p' | tail -n 1)
	if [ -z "$_b_n" ] || [ -z "$_b_k" ] || [ -z "$_b_h" ] || [ -z "$_b_z" ]; then
		row_fail burst hold-1000 4 "tests/relay_burst.sh: $(printf '%s\n' "$_b_out" | tail -n 1)"
		return 1
	fi
	# equal: the relay's packets are the kernel's (the test's kpcmp passed)
	for _b_row in "kernel $_b_k true" "hold-1000 $_b_h $([ $_b_rc = 0 ] && echo true || echo false)" \
	    "hold-0 $_b_z $([ "$_b_z" = "$_b_k" ] && echo true || echo false)"; do
		set -- $_b_row
		jq -cn --arg m "$1" --argjson n "$_b_n" --argjson o "$2" --argjson e "$3" \
			'{name: "burst", mode: $m, family: 4, bursts: $n, outputs: $o,
			  equal_to_kernel: $e}' >>"$OUT/rows.jsonl"
	done
	return 0
}

report_burst() {
	say ""
	say "== burst: crafted TCP bursts sent into a live relay (AF_PACKET veth -> TAP), vs the kernel's GRO"
	jq -rs 'map(select(.name == "burst"))[] |
		if .error then "   \(.mode): step failed: \(.error)"
		else "   \(.mode)\t\(.bursts) bursts -> \(.outputs) packets\(if .mode == "kernel" then ""
		      else ", equal to the kernel: \(.equal_to_kernel)" end)" end' "$OUT/rows.jsonl"
	_b_ok=$(jq -rs 'map(select(.name == "burst" and .mode == "hold-1000"))[0].equal_to_kernel // "n/a"' \
		"$OUT/rows.jsonl")
	say "   verdict: with the default --gro-flush-timeout the relay coalesces as the kernel (target: equal): $(
		case $_b_ok in true) echo met ;; false) echo missed ;; *) echo "not measured" ;; esac)"
}
