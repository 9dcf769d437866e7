# Shared by scripts/demo*.sh (sourced, POSIX sh): processes started by PID,
# bounded commands, CPU accounting from /proc, iperf3 runs, result rows.
#
# Needs: WORK (scratch dir), OUT (results dir), NSA/NSB (namespace names).
# Every background process is started by bg_start or fg_run, which record
# its PID and start time in $WORK/pids; signals go only to a PID whose start
# time still matches (ours: a PID the kernel reused for someone else's
# process is left alone), and demo_cleanup (the demo's trap) kills exactly
# those.

CLK_TCK=$(getconf CLK_TCK 2>/dev/null || echo 100)

say() { printf '%s\n' "$*"; }
warn() { printf '%s\n' "$*" >&2; }

A() { ip netns exec "$NSA" "$@"; }
B() { ip netns exec "$NSB" "$@"; }

# start_time PID : the process's start time (clock ticks after boot,
# /proc/PID/stat field 22), empty when there is no such process.
start_time() {
	sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $20 }'
}

# record PID : remember PID as started by the demo.
record() {
	echo "$1 $(start_time "$1")" >>"$WORK/pids"
}

# ours PID : PID is a process the demo started and still the same process.
ours() {
	_o_t=$(start_time "$1")
	[ -n "$_o_t" ] && grep -q "^$1 $_o_t\$" "$WORK/pids"
}

# signal SIG PID... : SIG to each PID that is ours.
signal() {
	_sg_s=$1
	shift
	for _sg_p in "$@"; do
		ours "$_sg_p" && kill "-$_sg_s" "$_sg_p" 2>/dev/null
	done
	return 0
}

# bg_start NAME CMD... : CMD in the background, stdout+stderr to
# $WORK/NAME.log; its PID in $BG_PID, recorded.  CMD is exec'd (ip netns
# exec execs too), so the PID is the process itself.
bg_start() {
	_bg_n=$1
	shift
	"$@" >"$WORK/$_bg_n.log" 2>&1 &
	BG_PID=$!
	record "$BG_PID"
}

# fg_run SECS CMD... : CMD bounded to SECS seconds (timeout(1)), run as a
# recorded background process that the shell waits for, so that a signal
# to the demo is handled at once (its trap kills CMD) rather than after CMD.
# Returns CMD's status (124: timed out).
fg_run() {
	_fr_t=$1
	shift
	timeout --foreground "$_fr_t" "$@" &
	_fr_p=$!
	record "$_fr_p"
	wait "$_fr_p"
}

# bg_stop PID... : SIGTERM, up to 3 s for each to exit, then SIGKILL.
bg_stop() {
	signal TERM "$@"
	for _bs_p in "$@"; do
		_bs_i=0
		while bg_alive "$_bs_p" && [ $_bs_i -lt 30 ]; do
			sleep 0.1
			_bs_i=$((_bs_i + 1))
		done
		signal KILL "$_bs_p"
		wait "$_bs_p" 2>/dev/null
	done
	return 0
}

# bg_alive PID : the process is ours and still runs (not a zombie).
bg_alive() {
	ours "$1" || return 1
	! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null
}

# wait_for SECS CMD... : retry CMD every 0.1 s until it succeeds or SECS pass.
wait_for() {
	_wf_t=$(($1 * 10))
	shift
	_wf_i=0
	until "$@" >/dev/null 2>&1; do
		_wf_i=$((_wf_i + 1))
		[ $_wf_i -lt $_wf_t ] || return 1
		sleep 0.1
	done
}

# wait_up SECS PID CMD... : as wait_for, but gives up as soon as PID exits.
wait_up() {
	_wu_t=$(($1 * 10))
	_wu_p=$2
	shift 2
	_wu_i=0
	until "$@" >/dev/null 2>&1; do
		_wu_i=$((_wu_i + 1))
		[ $_wu_i -lt $_wu_t ] && bg_alive "$_wu_p" || return 1
		sleep 0.1
	done
}

# listening NS PROTO PORT : a socket listens on PORT in namespace NS.
listening() {
	ip netns exec "$1" ss -ln"$(echo "$2" | cut -c1)" 2>/dev/null |
		awk -v p=":$3" '{ for (i = 1; i <= NF; i++) if (substr($i, length($i) - length(p) + 1) == p) f = 1 } END { exit !f }'
}

# ---- CPU accounting (clock ticks from /proc) ----

# machine_ticks : "busy user sys" of the whole machine (all CPUs):
# busy = user + nice + system + irq + softirq + steal, sys = system + irq + softirq.
machine_ticks() {
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3, $4 + $7 + $8; exit }' /proc/stat
}

# proc_ticks PID... : "user sys" summed over the processes (all threads).
proc_ticks() {
	for _pt_p in "$@"; do
		sed 's/^.*) //' "/proc/$_pt_p/stat" 2>/dev/null
	done | awk '{ u += $12; s += $13 } END { print u + 0, s + 0 }'
}

# thread_ticks PID : one line per thread: "TID COMM user sys" (one awk
# over every /proc/PID/task/TID/stat; COMM's blanks become _).
thread_ticks() {
	set -- /proc/"$1"/task/*/stat
	[ -r "$1" ] || return 0
	awk '{
		c = $0; sub(/^[^(]*\(/, "", c); sub(/\) [^)]*$/, "", c); gsub(/[ \t]/, "_", c)
		r = $0; sub(/^.*\) /, "", r); split(r, f, " ")
		print $1, c, f[12], f[13]
	}' "$@" 2>/dev/null
}

# ---- statistics ----

# stats : numbers on stdin -> "min avg max stddev n" (population std-dev,
# as tcpbench prints it).
stats() {
	awk '{ v[n++] = $1 + 0; s += $1 }
	END {
		if (n == 0) { print "0 0 0 0 0"; exit }
		mn = mx = v[0]
		for (i = 0; i < n; i++) { if (v[i] < mn) mn = v[i]; if (v[i] > mx) mx = v[i] }
		a = s / n
		for (i = 0; i < n; i++) d += (v[i] - a) ^ 2
		printf "%.3f %.3f %.3f %.3f %d\n", mn, a, mx, sqrt(d / n), n
	}'
}

# ---- result rows (one JSON object per line in $OUT/rows.jsonl) ----

# row_fail NAME MODE FAMILY WHY [JSON_OBJECT] : a row whose step failed
# (the object, e.g. {"queues": 2}, merged in).
row_fail() {
	say "   step failed: $1 $2${3:+ (IPv$3)}: $4"
	jq -cn --arg n "$1" --arg m "$2" --arg f "${3:-0}" --arg why "$4" --argjson x "${5:-{\}}" \
		'{name: $n, mode: $m, family: ($f | tonumber), error: $why} + $x' >>"$OUT/rows.jsonl"
}

# ---- iperf3 through whatever path is set up ----
#
# iperf_row NAME MODE FAMILY STREAMS SERVER_ADDR PORT "PIDS"
# One iperf3 client in $NSA for $DEMO_RUNS x $DEMO_SECS s (intervals of
# DEMO_SECS, or ROW_SECS when set: the runs; the sender's rates, the
# receiver's as server_gbps), server in $NSB.  CPU of the processes PIDS (the
# tunnel/relay; empty for kernel paths) and of the machine over the client's
# lifetime, per GB received.  The row goes to $WORK/row.json (row_add
# appends it); returns 1 (row_fail written) when iperf3 fails.
iperf_row() {
	_ir_name=$1 _ir_mode=$2 _ir_fam=$3 _ir_streams=$4 _ir_addr=$5 _ir_port=$6 _ir_pids=$7
	_ir_secs=${ROW_SECS:-$DEMO_SECS}
	_ir_t=$((DEMO_RUNS * _ir_secs))
	_ir_tag="iperf-$_ir_name-$_ir_mode-$_ir_fam"
	bg_start "$_ir_tag-srv" ip netns exec "$NSB" iperf3 -s -1 -B "$_ir_addr" -p "$_ir_port" -J
	_ir_srv=$BG_PID
	if ! wait_for 5 listening "$NSB" tcp "$_ir_port"; then
		bg_stop "$_ir_srv"
		row_fail "$_ir_name" "$_ir_mode" "$_ir_fam" "iperf3 server did not start: $(tail -n 1 "$WORK/$_ir_tag-srv.log")"
		return 1
	fi
	_ir_m0=$(machine_ticks)
	_ir_p0=$(proc_ticks $_ir_pids)
	_ir_s0=$(date +%s.%N)
	fg_run $((_ir_t + 15)) ip netns exec "$NSA" iperf3 -c "$_ir_addr" -p "$_ir_port" -t "$_ir_t" \
		-i "$_ir_secs" -P "$_ir_streams" --connect-timeout 3000 -J >"$WORK/$_ir_tag.json" 2>"$WORK/$_ir_tag.err"
	_ir_rc=$?
	_ir_s1=$(date +%s.%N)
	_ir_p1=$(proc_ticks $_ir_pids)
	_ir_m1=$(machine_ticks)
	bg_stop "$_ir_srv"
	_ir_err=$(jq -r '.error // empty' "$WORK/$_ir_tag.json" 2>/dev/null)
	if [ $_ir_rc -ne 0 ] || [ -n "$_ir_err" ]; then
		[ $_ir_rc -eq 124 ] && _ir_err="timed out after $((_ir_t + 15)) s"
		row_fail "$_ir_name" "$_ir_mode" "$_ir_fam" "iperf3 exit $_ir_rc: ${_ir_err:-$(tail -n 1 "$WORK/$_ir_tag.err")}"
		return 1
	fi
	# the runs: each full interval's Gbit/s (a last interval shorter than
	# half an interval, which iperf3 may add, is not a run)
	jq -r --argjson i "$_ir_secs" '.intervals[].sum | select(.seconds >= $i / 2) |
		.bits_per_second / 1e9' "$WORK/$_ir_tag.json" >"$WORK/$_ir_tag.runs"
	# the receiver's view of the same intervals (tcpbench's "server" line)
	jq -r --argjson i "$_ir_secs" '.intervals[].sum | select(.seconds >= $i / 2) |
		.bits_per_second / 1e9' "$WORK/$_ir_tag-srv.log" >"$WORK/$_ir_tag.rxruns" 2>/dev/null ||
		: >"$WORK/$_ir_tag.rxruns"
	_ir_rx=$(stats <"$WORK/$_ir_tag.rxruns")
	set -- $(stats <"$WORK/$_ir_tag.runs")
	_ir_bytes=$(jq '.end.sum_received.bytes' "$WORK/$_ir_tag.json")
	_ir_retr=$(jq '.end.sum_sent.retransmits // 0' "$WORK/$_ir_tag.json")
	_ir_np=$(echo $_ir_pids | wc -w)
	jq -cn --arg n "$_ir_name" --arg m "$_ir_mode" --argjson f "$_ir_fam" --argjson st "$_ir_streams" \
		--argjson min "$1" --argjson avg "$2" --argjson max "$3" --argjson sd "$4" \
		--argjson bytes "$_ir_bytes" --argjson retr "$_ir_retr" \
		--argjson secs "$(echo "$_ir_s0 $_ir_s1" | awk '{ printf "%.3f", $2 - $1 }')" \
		--argjson hz "$CLK_TCK" --argjson np "$_ir_np" \
		--arg p0 "$_ir_p0" --arg p1 "$_ir_p1" --arg m0 "$_ir_m0" --arg m1 "$_ir_m1" \
		--slurpfile runs "$WORK/$_ir_tag.runs" --slurpfile rxruns "$WORK/$_ir_tag.rxruns" \
		--arg rx "$_ir_rx" '
		def ticks(a; b; i): (((b | split(" ")[i] | tonumber) - (a | split(" ")[i] | tonumber)) / $hz);
		($bytes / 1e9) as $gb |
		{name: $n, mode: $m, family: $f, streams: $st, runs: $runs,
		 gbps: {min: $min, avg: $avg, max: $max, stddev: $sd},
		 server_runs: $rxruns,
		 server_gbps: ($rx | split(" ") | map(tonumber) |
			if .[4] > 0 then {min: .[0], avg: .[1], max: .[2], stddev: .[3]} else null end),
		 retransmits: $retr, bytes: $bytes, secs: $secs,
		 cpu_s: {user: (if $np > 0 then ticks($p0; $p1; 0) else null end),
			 sys: (if $np > 0 then ticks($p0; $p1; 1) else null end),
			 machine: ticks($m0; $m1; 0),
			 machine_user: ticks($m0; $m1; 1), machine_sys: ticks($m0; $m1; 2)}} |
		.cpu_s_per_gb = (.cpu_s | with_entries(.value |= (if . == null or $gb == 0 then null
			else (. / $gb * 1000 | round / 1000) end)))' >"$WORK/row.json"
}

# row_add [JSON_OBJECT...] : $WORK/row.json with the objects merged in,
# appended to the rows.
row_add() {
	_ra_r=$(cat "$WORK/row.json")
	for _ra_o in "$@"; do
		_ra_r=$(jq -cn --argjson a "$_ra_r" --argjson b "$_ra_o" '$a + $b') || return 1
	done
	printf '%s\n' "$_ra_r" >>"$OUT/rows.jsonl"
}
