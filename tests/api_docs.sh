#!/bin/sh
# docs/api.md and the section-3 man pages are generated from the public
# headers (docs/gen-api.sh); this fails when a header changed and they were
# not regenerated (sh docs/gen-api.sh > docs/api.md; sh docs/gen-api.sh --man man).
set -eu
cd "$(dirname "$0")/.."
if ! sh docs/gen-api.sh --check; then
	echo "FAIL: docs/api.md or man/*.3 differ from the headers: regenerate them (docs/gen-api.sh)" >&2
	exit 1
fi
echo "summary: docs/api.md and $(ls man/*.3 | wc -l) man pages match the headers"
