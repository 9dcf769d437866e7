#!/bin/sh
# The portable (generic-kernel) unit tests of checksums and GRO on a
# big-endian host: cross-built for s390x and run under qemu user emulation,
# with tests/be/cmocka.h standing in for cmocka.  Needs s390x-linux-gnu-gcc
# and qemu-s390x-static (Debian: gcc-s390x-linux-gnu libc6-dev-s390x-cross
# qemu-user-static); exits 77 without them.  Not part of `make check`.
#   scripts/check-be.sh [BUILD_DIR]      (default build-be)
set -u
B=${1:-build-be}
CC=${BE_CC:-s390x-linux-gnu-gcc}
QEMU=${BE_QEMU:-qemu-s390x-static}
command -v "$CC" >/dev/null 2>&1 || { echo "check-be: no $CC" >&2; exit 77; }
command -v "$QEMU" >/dev/null 2>&1 || { echo "check-be: no $QEMU" >&2; exit 77; }
mkdir -p "$B"
LIB="src/cpu.c src/csum.c src/csum_generic.c src/error.c src/gro.c src/gso.c src/pkt.c src/rss.c src/vnet.c"
fail=0
for t in test_csum test_gro_api test_gro_fast test_gro_props test_gro_selftest test_gro_udp; do
	if ! $CC -std=c11 -O2 -static -D_GNU_SOURCE -Itests/be -Iinclude -Isrc -Itests \
		tests/$t.c tests/helpers.c $LIB -o "$B/$t" -lm; then
		echo "FAIL $t (build)"; fail=1; continue
	fi
	# test_impl_selection runs its own binary, which needs binfmt_misc
	if SOFL_RUNS=${SOFL_RUNS:-100} SHIM_SKIP="test_impl_selection" "$QEMU" "$B/$t" >"$B/$t.log" 2>&1; then
		echo "PASS $t"
	else
		echo "FAIL $t"; grep -v '^\[ OK \]' "$B/$t.log" | tail -n 20 | sed 's/^/    /'; fail=1
	fi
done
exit $fail
