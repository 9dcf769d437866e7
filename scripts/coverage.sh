#!/bin/sh
# make coverage: line coverage of src/ (the library only) by the unit tests.
#   COV_BUILD=build-cov COVERAGE_MIN=88.0 scripts/coverage.sh
# COV_BUILD must hold a --coverage build (the Makefile's coverage target
# makes it).  The counters are reset, the unit tests run (UNIT=1
# scripts/run-tests.sh; the scripted tests add a line or two and need
# namespaces), gcovr reports every file of src/ into $COV_BUILD/coverage.txt,
# and the total is compared with COVERAGE_MIN (the Makefile's, the figure
# README.md states): below it fails.
#
# The per-ISA files run only on a CPU that has the ISA (src/base/cpu.c), so
# the ones this CPU cannot run are left out of the figure (and named): the
# same tests then give about the same figure on any x86_64 machine.
set -eu
COV_BUILD=${COV_BUILD:-build-cov}
: "${COVERAGE_MIN:?COVERAGE_MIN (the Makefile sets it)}"
command -v gcovr >/dev/null 2>&1 ||
	{ echo "coverage: gcovr not installed (scripts/deps.sh check installs it)" >&2; exit 1; }
find "$COV_BUILD" -name '*.gcda' -delete
BUILD=$COV_BUILD UNIT=1 scripts/run-tests.sh

flags=$(sed -n 's/^flags[ \t]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
has() { for f; do case " $flags " in *" $f "*) ;; *) return 1 ;; esac; done; }
excl=""
has avx2 || excl="$excl src/csum/csum_avx2.c"
has avx512f avx512bw avx512vl || excl="$excl src/csum/csum_avx512.c src/csum/csum_avx512_pkt.h"
has avx512f avx512bw avx512vl gfni || excl="$excl src/rss/rss_gfni.c"
set --
for f in $excl; do set -- "$@" --exclude "$f"; done
[ -z "$excl" ] || echo "coverage: left out, this CPU cannot run them:$excl"

gcovr --root . --filter 'src/' "$@" --object-directory "$COV_BUILD" \
	--txt "$COV_BUILD/coverage.txt" --print-summary >"$COV_BUILD/coverage-summary.txt"
cat "$COV_BUILD/coverage.txt" "$COV_BUILD/coverage-summary.txt"
awk -v min="$COVERAGE_MIN" '
	/^lines:/ { v = $2; sub(/%.*/, "", v); v += 0; found = 1 }
	END {
		if (!found) { print "coverage: no total from gcovr"; exit 1 }
		if (v < min) { printf "coverage: FAIL: src/ lines %.1f%% is below COVERAGE_MIN %.1f%%\n", v, min; exit 1 }
		printf "coverage: src/ lines %.1f%% >= COVERAGE_MIN %.1f%%\n", v, min
	}' "$COV_BUILD/coverage-summary.txt"
