#!/bin/sh
# Description: the SOFL_REQUIRE_ORACLE=1 convention itself (scripts/run-tests.sh,
# tests/kernel/lib.sh): a skip passes as a skip without it and fails with it,
# a case left out (drop) is counted without it and fails with it, and the
# PASS line shows a test's last "summary: " line.  Needs nothing: the
# scripts run here are stand-ins in a scratch directory.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d /tmp/oracle_require.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
trap 'exit 1' INT TERM
bad=0
no() { echo "FAIL: $*" >&2; bad=1; }

# 1. lib.sh's skip and drop, in a shell that sources it as the oracle
# tests do (start set as kernel_init sets it).
lib() {
	env SOFL_REQUIRE_ORACLE="$1" sh -c ". '$top/tests/kernel/lib.sh'; start=\$(date +%s); $2" \
	    > "$dir/out" 2>&1
}
lib 0 'skip "no TAP here"'; rc=$?
[ $rc = 77 ] || no "skip without SOFL_REQUIRE_ORACLE: exit $rc, want 77"
lib 1 'skip "no TAP here"'; rc=$?
[ $rc = 1 ] && grep -q "no TAP here.*SOFL_REQUIRE_ORACLE=1" "$dir/out" ||
	no "skip under SOFL_REQUIRE_ORACLE=1: exit $rc, want 1 with the reason"
lib 0 'drop "UDP cases"; drop "VLAN cases"; oracle_summary "9 frames compared"'; rc=$?
[ $rc = 0 ] && grep -q "^summary: kernel $(uname -r): 9 frames compared, cases left out: 2" \
    "$dir/out" || no "drop without SOFL_REQUIRE_ORACLE: exit $rc or summary wrong: $(cat "$dir/out")"
lib 1 'drop "UDP cases"; echo reached'; rc=$?
[ $rc = 1 ] && ! grep -q reached "$dir/out" ||
	no "drop under SOFL_REQUIRE_ORACLE=1: exit $rc, want 1 before going on"

# 2. scripts/run-tests.sh on stand-in tests: one that passes with a
# summary, one that skips.
mkdir -p "$dir/t/tests" "$dir/t/b/tests"
printf '%s\n' 'echo "summary: early"' 'echo "summary: 12 frames compared"' 'echo done' \
	> "$dir/t/tests/a_pass.sh"
printf '%s\n' 'echo "SKIP: needs a unicorn" >&2' 'exit 77' > "$dir/t/tests/b_skip.sh"
rt() { (cd "$dir/t" && env SOFL_REQUIRE_ORACLE="$1" BUILD=b sh "$top/scripts/run-tests.sh") \
	> "$dir/rt" 2>&1; }
rt 0; rc=$?
[ $rc = 0 ] || no "run-tests.sh with a skip, not required: exit $rc, want 0"
grep -qx "PASS a_pass.sh: 12 frames compared" "$dir/rt" ||
	no "PASS line without the last summary: $(grep a_pass "$dir/rt")"
grep -q "^SKIP b_skip.sh: SKIP: needs a unicorn" "$dir/rt" || no "no SKIP line: $(cat "$dir/rt")"
rt 1; rc=$?
[ $rc = 1 ] || no "run-tests.sh with a skip under SOFL_REQUIRE_ORACLE=1: exit $rc, want 1"
grep -q "^FAIL b_skip.sh" "$dir/rt" && grep -q "tests: 1 passed, 1 failed, 0 skipped" "$dir/rt" ||
	no "skip not reported as a failure: $(cat "$dir/rt")"

[ $bad = 0 ] || exit 1
echo "summary: skip, drop and summary line checked with and without SOFL_REQUIRE_ORACLE=1"
