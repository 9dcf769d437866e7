#!/bin/sh
# The portable (generic-kernel) unit tests of checksums, the parser, GRO and GSO on a
# big-endian host: cross-built for s390x against Debian's s390x cmocka and
# run under qemu user emulation.  Needs s390x-linux-gnu-gcc, the s390x
# cmocka and qemu-s390x-static (Debian, as root:
#   dpkg --add-architecture s390x && apt-get update &&
#   apt-get install gcc-s390x-linux-gnu libc6-dev-s390x-cross \
#           libcmocka-dev:s390x qemu-user-static);
# exits 77 without them.  Not part of `make check`.
#   scripts/check-be.sh [BUILD_DIR]      (default build-be)
set -u
B=${1:-build-be}
CC=${BE_CC:-s390x-linux-gnu-gcc}
QEMU=${BE_QEMU:-qemu-s390x-static}
LIBDIR=/usr/lib/s390x-linux-gnu
command -v "$CC" >/dev/null 2>&1 || { echo "check-be: no $CC" >&2; exit 77; }
command -v "$QEMU" >/dev/null 2>&1 || { echo "check-be: no $QEMU" >&2; exit 77; }
[ -e "$LIBDIR/libcmocka.so" ] || { echo "check-be: no s390x cmocka (libcmocka-dev:s390x)" >&2; exit 77; }
mkdir -p "$B"
LIB="$(ls src/base/*.c src/pkt/*.c src/csum/*.c src/gso/*.c src/rss/*.c src/gro/*.c | grep -v '_avx2\.c\|_avx512\.c\|_gfni\.c' | tr '\n' ' ')"
fail=0
for t in test_csum test_gro_api test_gro_fast test_gro_props test_gro_rules test_gro_selftest test_gro_udp \
	test_pkt test_pkt_fast test_gso; do
	if ! $CC -std=c11 -O2 -D_GNU_SOURCE -Iinclude -Isrc -Itests \
		tests/$t.c tests/helpers.c $LIB -o "$B/$t" \
		-L"$LIBDIR" -Wl,-rpath-link,"$LIBDIR" -lcmocka -lm; then
		echo "FAIL $t (build)"; fail=1; continue
	fi
	# -L /: the s390x loader and libraries from Debian's multiarch paths;
	# SOFL_NO_REEXEC: the checksum test cannot start itself under qemu
	if SOFL_RUNS=${SOFL_RUNS:-100} SOFL_NO_REEXEC=1 "$QEMU" -L / "$B/$t" >"$B/$t.log" 2>&1; then
		echo "PASS $t"
	else
		echo "FAIL $t"; grep -v '^\[       OK \]' "$B/$t.log" | tail -n 20 | sed 's/^/    /'; fail=1
	fi
done
exit $fail
