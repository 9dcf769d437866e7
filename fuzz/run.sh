#!/bin/sh
# Run every libFuzzer harness for FUZZ_TIME seconds (default 60) on its own
# corpus (seeded by fuzz/seeds), one after the other.  Crashes are written
# to $FUZZ_BUILD/artifacts/ and make this script fail.
#   make fuzz-run FUZZ_TIME=60           (builds first, with clang)
#   FUZZ_ONLY=fuzz_pkt make fuzz-run     one harness
#   SOFL_CSUM_IMPL=generic|avx2|avx512  pin the checksum kernel (csum.h)
set -u
B=${FUZZ_BUILD:-build-fuzz}
T=${FUZZ_TIME:-60}
fail=0
mkdir -p "$B/artifacts"
for h in "$B"/fuzz/fuzz_*; do
	[ -x "$h" ] || continue
	name=$(basename "$h")
	case ${FUZZ_ONLY:-$name} in "$name") ;; *) continue ;; esac
	corpus=$B/corpus/$name
	mkdir -p "$corpus"
	"$B/fuzz/seeds" "$name" "$corpus"
	echo "== $name: ${T}s, corpus $corpus ($(ls "$corpus" | wc -l) files)"
	if "$h" -max_total_time="$T" -max_len=4096 -print_final_stats=1 \
		-artifact_prefix="$B/artifacts/$name-" "$corpus" >"$B/$name.log" 2>&1; then
		grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' \
			"$B/$name.log" | sed 's/^/   /'
	else
		fail=1
		echo "   FAILED: see $B/$name.log"; tail -n 30 "$B/$name.log" | sed 's/^/   /'
	fi
done
exit $fail
