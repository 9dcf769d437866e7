#!/bin/sh
# Run every test: the unit test binaries ($BUILD/tests/test_*) and the
# scripted tests (tests/*.sh, which may need root and network namespaces).
# A test exits 0 (pass), 77 (skip, with its reason on stderr) or anything
# else (fail).  With SANITIZE=1 only the unit tests run.
set -u
BUILD=${BUILD:-build}
pass=0 fail=0 skip=0 failed=""
run() {
	name=$1; shift
	out=$("$@" 2>&1); rc=$?
	case $rc in
	0)  pass=$((pass + 1)); echo "PASS $name" ;;
	77) skip=$((skip + 1)); echo "SKIP $name: $(echo "$out" | tail -n 1)" ;;
	*)  fail=$((fail + 1)); failed="$failed $name"; echo "FAIL $name (exit $rc)"
	    echo "$out" | tail -n 40 | sed 's/^/    /' ;;
	esac
}
for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	run "$(basename "$t")" "$t"
done
if [ "${SANITIZE:-0}" != 1 ]; then
	for t in tests/*.sh; do
		[ -f "$t" ] || continue
		run "$(basename "$t")" env BUILD="$BUILD" sh "$t"
	done
fi
echo "tests: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ] || { echo "failed:$failed"; exit 1; }
