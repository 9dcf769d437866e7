#!/bin/sh
# Description: every code example in the documentation compiles (and runs,
# where it is a program), so that none can drift from the API.
#
# Where examples are found:
#   README.md, docs/*.md   every fenced block opened by a line "```c" and
#                          closed by a line "```" (docs/api.md is skipped:
#                          gen-api.sh copies it from the headers, whose
#                          examples are checked here at the source).
#   include/softoffload/*.h  inside a comment, the lines between
#                          " *   ```c" and " *   ```" (the same fences as in
#                          Markdown, after the comment's " *"; any indent):
#
#                              * HowTo
#                              *   ```c
#                              *   struct sofl_pkt p;
#                              *   ...
#                              *   ```
#
#                          Every header whose comments say "HowTo" must
#                          hold at least one such block.
# The common indentation of a block is removed.  What a block is decides how
# it is built (always -std=c11 -Wall -Wextra -Werror -Iinclude, with
# _POSIX_C_SOURCE 200809L for writev() and friends):
#   program   it defines main():  compiled, linked with the static library,
#             run (10 s at most); it must exit 0.
#   file      a line starting with "{" (a function definition, KNF) or
#             "#include":  compiled and linked with the library into a stub
#             program that is not run (so every call it makes must exist).
#   body      anything else: statements, compiled as the body of a function
#             "void example(void)", then linked as a file.
# A program or file without any #include gets the library's umbrella header
# and <stdio.h>, <stdlib.h>, <string.h>, <stdint.h>, <sys/uio.h>,
# <unistd.h> first; a body always does.  Errors point at the documentation's
# own file and line (#line).
#
#   BUILD=build sh tests/examples.sh     (needs $BUILD/libsoftoffload.a)
# Prints one line per example and, last, "summary: N examples: ...".
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
CC=${CC:-cc}
LIB=$BUILD/libsoftoffload.a
[ -f "$LIB" ] || { echo "FAIL: $LIB not built (make BUILD=$BUILD lib)" >&2; exit 1; }
dir=$(mktemp -d "/tmp/examples.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
trap 'exit 1' INT TERM
CFLAGS="-std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L -Iinclude"

# extract FILE KIND(md|h): writes $dir/ex.N.src (N from $count up), each
# starting with a line "FILE LINE" (the block's first line).
extract() {
	awk -v f="$1" -v kind="$2" -v dir="$dir" -v n="$count" '
	function flush(   i, pre, m, ind, line) {
		m = -1
		for (i = 1; i <= nl; i++) {
			if (buf[i] !~ /[^ \t]/)
				continue
			match(buf[i], /^[ \t]*/)
			if (m < 0 || RLENGTH < m)
				m = RLENGTH
		}
		out = dir "/ex." n ".src"
		print f, first > out
		for (i = 1; i <= nl; i++)
			print (buf[i] ~ /[^ \t]/ ? substr(buf[i], m + 1) : "") > out
		close(out)
		n++
		nl = 0
	}
	{ line = $0 }
	kind == "h" {
		if (!incom && line ~ /\/\*/) incom = 1
		if (!incom) next
		if (line ~ /\*\//) { incom = 0; if (inex) { print f ":" NR ": example not closed" > "/dev/stderr"; bad = 1; inex = 0 } next }
		if (line !~ /^ \*/) next
		line = substr(line, 3)
	}
	!inex && line ~ /^[ \t]*```c[ \t]*$/ { inex = 1; first = NR + 1; nl = 0; next }
	inex && line ~ /^[ \t]*```[ \t]*$/ { inex = 0; flush(); next }
	inex { buf[++nl] = line }
	END {
		if (inex) { print f ": example not closed" > "/dev/stderr"; bad = 1 }
		exit bad
	}' "$1" || bad=1
	count=$(ls "$dir" | grep -c '^ex\..*\.src$')
}

count=0 bad=0
for f in README.md docs/*.md; do
	[ -f "$f" ] || continue
	[ "$f" = docs/api.md ] && continue
	extract "$f" md
done
for f in include/softoffload/*.h; do
	before=$count
	extract "$f" h
	if grep -q HowTo "$f" && [ "$count" = "$before" ]; then
		echo "FAIL $f: its HowTo has no \`\`\`c example block (see tests/examples.sh)" >&2
		bad=1
	fi
done

prelude() {
	printf '%s\n' '#include <softoffload/softoffload.h>' '#include <stdint.h>' \
	    '#include <stdio.h>' '#include <stdlib.h>' '#include <string.h>' \
	    '#include <sys/uio.h>' '#include <unistd.h>'
}
# the build must be able to fail: a warning is an error here
printf 'void f(void);\nvoid f(void) { int unused; }\n' > "$dir/neg.c"
if $CC $CFLAGS -c "$dir/neg.c" -o "$dir/neg.o" 2>/dev/null; then
	echo "FAIL: $CC $CFLAGS accepts an unused variable" >&2
	exit 1
fi
printf 'int main(void) { return 0; }\n' > "$dir/stub.c"
$CC -std=c11 -c "$dir/stub.c" -o "$dir/stub.o" || exit 1

nprog=0 nfile=0 nbody=0 i=0
while [ $i -lt $count ]; do
	src=$dir/ex.$i.src c=$dir/ex.$i.c o=$dir/ex.$i.o x=$dir/ex.$i
	set -- $(head -n 1 "$src")
	where="$1:$2"
	tail -n +2 "$src" > "$dir/body"
	if grep -Eq '(^|[ \t*])main[ \t]*\(' "$dir/body"; then
		what=program
	elif grep -Eq '^(\{|#include)' "$dir/body"; then
		what=file
	else
		what=body
	fi
	{
		grep -q '^#include' "$dir/body" && [ $what != body ] || prelude
		if [ $what = body ]; then
			printf 'void example(void);\nvoid\nexample(void)\n{\n'
		fi
		printf '#line %s "%s"\n' "$2" "$1"
		cat "$dir/body"
		[ $what = body ] && printf '}\n'
	} > "$c"
	i=$((i + 1))
	if ! $CC $CFLAGS -c "$c" -o "$o" 2> "$dir/err"; then
		echo "FAIL $where: $what example does not compile:"
		sed 's/^/    /' "$dir/err"
		bad=1
		continue
	fi
	if [ $what = program ]; then
		link="$o"
	else
		link="$o $dir/stub.o"
	fi
	# shellcheck disable=SC2086
	if ! $CC -o "$x" $link "$LIB" 2> "$dir/err"; then
		echo "FAIL $where: $what example does not link:"
		sed 's/^/    /' "$dir/err"
		bad=1
		continue
	fi
	case $what in
	program)
		nprog=$((nprog + 1))
		if timeout 10 "$x" > "$dir/out" 2>&1; then
			echo "ok $where: program, ran: $(tail -n 1 "$dir/out")"
		else
			echo "FAIL $where: program exited $?:"
			sed 's/^/    /' "$dir/out"
			bad=1
		fi ;;
	file)	nfile=$((nfile + 1)); echo "ok $where: file, compiled and linked" ;;
	body)	nbody=$((nbody + 1)); echo "ok $where: body, compiled and linked" ;;
	esac
done
[ $count -gt 0 ] || { echo "FAIL: no example found" >&2; exit 1; }
echo "summary: $count examples: programs run $nprog, files compiled $nfile, bodies compiled $nbody"
[ $bad = 0 ] || { echo "FAIL: some examples do not build or run (see above)" >&2; exit 1; }
exit 0
