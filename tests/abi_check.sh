#!/bin/sh
# The built shared library against the ABI of the last release
# (abi/libsoftoffload.so.N.abi, made by abidw: abi/README.md) with abidiff
# (Debian: abigail-tools).  abidiff's exit status is a bit mask: 1 error,
# 2 usage error, 4 ABI change, 8 incompatible ABI change.  A change (4 or 8)
# with the release's SONAME unchanged fails: bump SOVERSION in the Makefile
# (and say why there) or undo the change.  With a bumped SONAME the change is
# allowed, and the summary says so.  Only the types of the public headers
# (include/softoffload/) count, and added calls are compatible
# (--no-added-syms: new calls alone keep the SONAME).
#
# abidiff compares the library's objects relinked without the version script:
# it does not match a versioned symbol (sofl_x@@SOFTOFFLOAD_0.4.0) with the
# same unversioned one of 0.3.0 and then reports nothing at all; the symbol
# versions are tests/abi_symbols.sh's business.
#   sh tests/abi_check.sh --dump   (at a release) writes the baseline
#                                  abi/libsoftoffload.so.N.abi of this build
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
so=$BUILD/libsoftoffload.so
[ -e "$so" ] || { echo "FAIL: $so missing (make all builds it)"; exit 1; }
command -v abidiff >/dev/null 2>&1 ||
	{ echo "abidiff not installed (Debian: abigail-tools; scripts/deps.sh check installs it)"; exit 77; }
base=$(ls abi/libsoftoffload.so.*.abi 2>/dev/null | sort -t. -k3,3n | tail -n 1)
[ -n "$base" ] || { echo "FAIL: no release baseline abi/libsoftoffload.so.N.abi"; exit 1; }
old_soname=$(sed -n "1s/.* soname='\([^']*\)'.*/\1/p" "$base")
old_arch=$(sed -n "1s/.* architecture='\([^']*\)'.*/\1/p" "$base")
new_soname=$(readelf -dW "$so" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
machine=$(readelf -hW "$so" | sed -n 's/^ *Machine: *//p')
case "$old_arch:$machine" in
*x86_64:*X86-64*|*aarch64:*AArch64*) ;;
*) echo "the baseline $base is for $old_arch, this build for $machine"; exit 77 ;;
esac
readelf -SW "$so" | grep -q '\.debug_info' ||
	{ echo "$so has no debug information (built without -g): abidiff needs it"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -shared -Wl,-soname,"$new_soname" -o "$tmp/$new_soname" \
	-Wl,--whole-archive "$BUILD/libsoftoffload.a" -Wl,--no-whole-archive ||
	{ echo "FAIL: cannot relink $BUILD/libsoftoffload.a"; exit 1; }
if [ "${1:-}" = --dump ]; then
	abidw --no-corpus-path --no-comp-dir-path --short-locs --headers-dir include/softoffload \
		--drop-private-types --type-id-style hash --out-file "abi/$new_soname.abi" \
		"$tmp/$new_soname" || exit 1
	echo "wrote abi/$new_soname.abi"
	exit 0
fi
out=$(abidiff --no-added-syms --headers-dir2 include/softoffload "$base" "$tmp/$new_soname" 2>&1); rc=$?
echo "$out"
[ $((rc & 3)) = 0 ] || { echo "FAIL: abidiff failed (exit $rc)"; exit 1; }
fn=$(echo "$out" | sed -n 's/^Functions changes summary: //p' | head -n 1)
var=$(echo "$out" | sed -n 's/^Variables changes summary: //p' | head -n 1)
what="functions: ${fn:-0 changes}; variables: ${var:-0 changes}"
if [ $rc = 0 ]; then
	echo "summary: ABI compatible with $base ($old_soname); SONAME $new_soname"
	exit 0
fi
kind="an ABI change (abidiff exit $rc)"
[ $((rc & 8)) = 0 ] || kind="an incompatible ABI change (abidiff exit $rc)"
if [ "$new_soname" = "$old_soname" ]; then
	echo "FAIL: $kind against $base with the same SONAME $new_soname ($what):" \
		"bump SOVERSION in the Makefile or undo the change"
	exit 1
fi
echo "summary: $kind against $base ($old_soname), allowed: SONAME bumped to $new_soname ($what)"
