#!/bin/sh
# docs/api.md and the section-3 man pages are generated from the public
# headers (docs/gen-api.sh); this fails when a header changed and they were
# not regenerated (sh docs/gen-api.sh > docs/api.md; sh docs/gen-api.sh --man man),
# and when a public call (SOFL_API or inline, found here by its own reading of
# the headers) has no page: "man <call>" must open the page of its header,
# either its own name's page or the ".so" link make install writes
# (docs/gen-api.sh --man-links), and that page's NAME section must list it.
set -eu
cd "$(dirname "$0")/.."
if ! sh docs/gen-api.sh --check; then
	echo "FAIL: docs/api.md or man/*.3 differ from the headers: regenerate them (docs/gen-api.sh)" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sh docs/gen-api.sh --man "$tmp"
sh docs/gen-api.sh --man-links "$tmp"
awk '
	/^SOFL_API/ && match($0, /sofl_[a-z0-9_]+\)?[ \t]*[(\[;]/) {
		n = substr($0, RSTART, RLENGTH); sub(/[^a-z0-9_].*/, "", n); print n }
	/^static inline/ { want = 1 }
	want && match($0, /sofl_[a-z0-9_]+\(/) {
		n = substr($0, RSTART, RLENGTH - 1); want = 0; if (n !~ /_$/) print n }
' include/softoffload/*.h | sort -u >"$tmp/calls"
bad=0 links=0
while read -r c; do
	f=$tmp/$c.3
	if [ ! -f "$f" ]; then
		echo "FAIL: $c has no man page (docs/gen-api.sh --man-links writes none)"; bad=1; continue
	fi
	page=$f
	if head -n 1 "$f" | grep -q '^\.so '; then
		page=$tmp/$(head -n 1 "$f" | sed 's|^\.so man3/||')
		links=$((links + 1))
		[ -f "$page" ] || { echo "FAIL: $c.3 links to a missing page: $(head -n 1 "$f")"; bad=1; continue; }
	fi
	sed -n '/^\.SH NAME/{n;p;}' "$page" | sed 's/ \\- .*//' | tr -s ', ' '\n' | grep -qx "$c" ||
		{ echo "FAIL: $c is not in the NAME section of $(basename "$page")"; bad=1; }
done <"$tmp/calls"
[ $bad = 0 ] || exit 1
echo "summary: docs/api.md and $(ls man/*.3 | wc -l) man pages match the headers;" \
	"$(wc -l <"$tmp/calls") public calls, each named on its header's page ($links by a .so link)"
