#!/bin/sh
# src/ is one folder per layer (README.md, Layout): a file may include only
# its own folder and the folders below it, in this order (lowest first):
#   base pkt csum gso rss gro port
# Checks every #include "..." of every file under src/; fails naming the
# file and the include that reaches up (or into a folder not in the list).
set -u
cd "$(dirname "$0")/.."
order="base pkt csum gso rss gro port"
rank() {
	i=0
	for l in $order; do
		[ "$l" = "$1" ] && { echo $i; return; }
		i=$((i + 1))
	done
	echo -1
}
bad=0 files=0 incs=0
for f in src/*/*.c src/*/*.h; do
	[ -f "$f" ] || continue
	files=$((files + 1))
	me=$(basename "$(dirname "$f")")
	rme=$(rank "$me")
	if [ "$rme" -lt 0 ]; then
		echo "FAIL: $f: folder src/$me is not a layer ($order)"; bad=1; continue
	fi
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		incs=$((incs + 1))
		case $inc in
		softoffload/*) continue ;;		# the public headers
		*/*) dir=${inc%%/*} ;;
		*) [ -f "$(dirname "$f")/$inc" ] && continue	# its own folder
		   echo "FAIL: $f: #include \"$inc\" is not in src/$me"; bad=1; continue ;;
		esac
		r=$(rank "$dir")
		if [ "$r" -lt 0 ] || [ "$r" -gt "$rme" ]; then
			echo "FAIL: $f (layer $me): #include \"$inc\" reaches up"; bad=1
		fi
	done
done
# and the calls: no object of a layer may use a symbol that an object of a
# higher layer defines (the objects of the build: make all first)
BUILD=${BUILD:-build}
objs=0 refs=0
if ls "$BUILD"/src/*/*.o >/dev/null 2>&1; then
	defs=$(mktemp)
	for o in "$BUILD"/src/*/*.o; do
		l=$(basename "$(dirname "$o")")
		nm --defined-only "$o" | awk -v l="$l" -v r="$(rank "$l")" '$2 ~ /^[TDBR]$/ { print $3, l, r }'
	done | sort >"$defs"
	for o in "$BUILD"/src/*/*.o; do
		objs=$((objs + 1))
		l=$(basename "$(dirname "$o")")
		rl=$(rank "$l")
		for s in $(nm --undefined-only "$o" | awk '{ print $2 }'); do
			hit=$(awk -v s="$s" '$1 == s { print $2, $3; exit }' "$defs")
			[ -n "$hit" ] || continue
			refs=$((refs + 1))
			set -- $hit
			if [ "$2" -gt "$rl" ]; then
				echo "FAIL: $o (layer $l) calls $s, defined in layer $1"; bad=1
			fi
		done
	done
	rm -f "$defs"
else
	echo "no objects under $BUILD/src: calls not checked (make all first)"
	[ "${SOFL_REQUIRE_ORACLE:-0}" = 1 ] && bad=1
fi
[ $bad = 0 ] || exit 1
echo "summary: $files files in $(echo $order | wc -w) layers, $incs includes and $refs calls across $objs objects, none reaching up"
