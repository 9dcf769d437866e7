#!/bin/sh
# Run every test: the unit test binaries ($BUILD/tests/test_*) and the
# scripted tests (tests/*.sh, which may need root and network namespaces).
# With SANITIZE=1 or UNIT=1 only the unit tests run; with NO_NETNS=1 the
# unit tests that create a network namespace (their source calls
# unshare(CLONE_NEWNET)) are skipped too (the Debian package build).
#
# What a test tells this script:
#   exit status   0 pass, 77 skip (its reason on the last output line),
#                 anything else fail.
#   summary line  the last output line that starts with "summary: " is shown
#                 in the PASS line ("PASS name: the rest of that line"): say
#                 there what was checked, e.g. the kernel-oracle tests'
#                 "summary: kernel 6.18.0: 35120 frames replayed, 6893 kernel
#                 outputs compared ..., cases left out: 0, 7 s".
#   SOFL_REQUIRE_ORACLE=1  (set by .ci/run) the machine must be able to run
#                 everything: a skip (exit 77) fails, and a test that would
#                 leave out cases it cannot check here (e.g. on an older
#                 kernel) must fail instead (tests/kernel/lib.sh: skip, drop;
#                 kutil.c: k_skip, k_required).  Tests that need root,
#                 namespaces, a TUN or the kernel as oracle use that
#                 convention; docs/kernel-oracle.md.
set -u
BUILD=${BUILD:-build}
REQ=${SOFL_REQUIRE_ORACLE:-0}
pass=0 fail=0 skip=0 failed=""
run() {
	name=$1; shift
	out=$("$@" 2>&1); rc=$?
	if [ $rc = 77 ] && [ "$REQ" = 1 ]; then
		out="$out
skipped, but SOFL_REQUIRE_ORACLE=1: every test must run"
		rc=1
	fi
	case $rc in
	0)  pass=$((pass + 1))
	    sum=$(echo "$out" | sed -n 's/^summary: //p' | tail -n 1)
	    echo "PASS $name${sum:+: $sum}" ;;
	77) skip=$((skip + 1)); echo "SKIP $name: $(echo "$out" | tail -n 1)" ;;
	*)  fail=$((fail + 1)); failed="$failed $name"; echo "FAIL $name (exit $rc)"
	    echo "$out" | tail -n 40 | sed 's/^/    /' ;;
	esac
}
for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	if [ "${NO_NETNS:-0}" = 1 ] && grep -q CLONE_NEWNET "tests/$(basename "$t").c" 2>/dev/null; then
		skip=$((skip + 1)); echo "SKIP $(basename "$t"): creates a network namespace (NO_NETNS=1)"
		continue
	fi
	run "$(basename "$t")" "$t"
done
if [ "${SANITIZE:-0}" != 1 ] && [ "${UNIT:-0}" != 1 ]; then
	for t in tests/*.sh; do
		[ -f "$t" ] || continue
		run "$(basename "$t")" env BUILD="$BUILD" sh "$t"
	done
fi
echo "tests: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ] || { echo "failed:$failed"; exit 1; }
