#!/bin/sh
# Run every benchmark binary ($BUILD/bench/bench_*); each prints its own table.
set -eu
BUILD=${BUILD:-build}
for b in "$BUILD"/bench/bench_*; do
	[ -x "$b" ] || continue
	echo "== $(basename "$b")"
	"$b" "$@"
done
