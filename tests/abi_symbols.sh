#!/bin/sh
# The linker version script softoffload.map lists exactly the symbols the
# library exports: fails when
#   - a symbol the library's objects mark for export (SOFL_API: global, default
#     visibility, in $BUILD/libsoftoffload.a) is missing from the map (the
#     map's "local: *" would hide it from the shared library),
#   - the map lists a symbol the shared library does not export,
#   - the shared library exports a symbol the map does not list, or one
#     without a version node of the map,
#   - the map lists a symbol twice.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
map=softoffload.map
so=$BUILD/libsoftoffload.so
a=$BUILD/libsoftoffload.a
for f in "$map" "$so" "$a"; do
	[ -e "$f" ] || { echo "FAIL: $f missing (make all builds it)"; exit 1; }
done
command -v readelf >/dev/null 2>&1 || { echo "readelf (binutils) not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

sed -n 's/^[ \t]*\([A-Za-z_][A-Za-z0-9_]*\);.*/\1/p' "$map" | LC_ALL=C sort >"$tmp/listed.all"
sed -n 's/^\([A-Za-z_][A-Za-z0-9_.]*\)[ \t]*{.*/\1/p' "$map" >"$tmp/nodes"
LC_ALL=C sort -u "$tmp/listed.all" >"$tmp/listed"
# readelf -s columns: Num Value Size Type Bind Vis Ndx Name
readelf -sW "$a" | awk '($5 == "GLOBAL" || $5 == "WEAK") && $6 == "DEFAULT" && $7 != "UND" && NF >= 8 { print $8 }' |
	LC_ALL=C sort -u >"$tmp/marked"
readelf --dyn-syms -W "$so" | awk '($5 == "GLOBAL" || $5 == "WEAK") && $6 == "DEFAULT" && $7 != "UND" && NF >= 8 { print $8 }' |
	LC_ALL=C sort -u >"$tmp/dyn"
# the version nodes themselves appear as absolute symbols NODE@@NODE
sed 's/@.*//' "$tmp/dyn" | grep -vxF -f "$tmp/nodes" | LC_ALL=C sort -u >"$tmp/exported"
# every exported symbol carries a node of the map: name@@NODE
bad_ver=$(grep -v '@@' "$tmp/dyn" | sed 's/@.*//' | grep -vxF -f "$tmp/nodes")
bad_node=$(sed -n 's/^[^@]*@@\{0,1\}//p' "$tmp/dyn" | LC_ALL=C sort -u | grep -vxF -f "$tmp/nodes")

fail=0
report() {	# report WHAT LIST
	[ -n "$2" ] || return 0
	echo "FAIL: $1:"
	echo "$2" | sed 's/^/    /'
	fail=1
}
report "marked SOFL_API in the objects but not listed in $map (add one line each)" \
	"$(LC_ALL=C comm -23 "$tmp/marked" "$tmp/listed")"
report "listed in $map but not exported by $so (remove or rename the line)" \
	"$(LC_ALL=C comm -13 "$tmp/exported" "$tmp/listed")"
report "exported by $so but not listed in $map" \
	"$(LC_ALL=C comm -23 "$tmp/exported" "$tmp/listed")"
report "listed twice in $map" "$(uniq -d "$tmp/listed.all")"
report "exported without a version node" "$bad_ver"
report "exported with a version node $map does not define" "$bad_node"
[ -s "$tmp/nodes" ] || { echo "FAIL: no version node in $map"; fail=1; }
[ $fail = 0 ] || exit 1
echo "summary: $(wc -l <"$tmp/exported") symbols exported, each listed in $map and versioned" \
	"($(paste -sd, "$tmp/nodes")); nothing marked SOFL_API left out"
