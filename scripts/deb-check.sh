#!/bin/sh
# The Debian packages, end to end (run by .ci/run; as root on Debian):
#   1. install the build dependencies (debian/control, from Debian's mirror)
#      and lintian;
#   2. copy this tree (without build directories) into a scratch directory
#      and build the binary packages there: dpkg-buildpackage -b -us -uc
#      (the package build runs only the unit tests: debian/rules);
#   3. lintian on the result: an error fails, warnings are printed;
#   4. install libsoftoffload3, libsoftoffload-dev and softoffload with apt,
#      build a program with pkg-config against the installed -dev, run it
#      (the loader must find libsoftoffload.so.3 on its own), run
#      "softoffload --version" and check that "man sofl_gro_receive" finds
#      its page;
#   5. purge the three packages (also when a step fails).
set -eu
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "deb-check: needs root (apt-get, dpkg)" >&2; exit 1; }
command -v apt-get >/dev/null 2>&1 || { echo "deb-check: needs Debian (apt-get)" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive
pkgs="libsoftoffload3 libsoftoffload-dev softoffload"

for p in $pkgs; do
	if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		echo "deb-check: $p is installed already: remove it first" >&2
		exit 1
	fi
done

scratch=$(mktemp -d)
installed=0
cleanup() {
	rc=$?
	if [ $installed = 1 ]; then
		apt-get purge -y -qq $pkgs >/dev/null || rc=1
	fi
	rm -rf "$scratch"
	exit $rc
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# 1. build dependencies (apt reads them from debian/control) and lintian
stamp=/var/lib/apt/periodic/softoffload-update
if [ ! -e "$stamp" ]; then
	apt-get update -qq
	mkdir -p "$(dirname "$stamp")" && touch "$stamp"
fi
apt-get install -y -qq --no-install-recommends dpkg-dev lintian >/dev/null
apt-get build-dep -y -qq "$PWD" >/dev/null

# 2. the binary packages, built from a copy: the .debs land beside it
mkdir "$scratch/src"
tar -cf - --exclude=./.git --exclude=./build --exclude='./build-*' . | tar -xf - -C "$scratch/src"
start=$(date +%s)
if ! (cd "$scratch/src" && dpkg-buildpackage -b -us -uc -J2) >"$scratch/build.log" 2>&1; then
	tail -n 60 "$scratch/build.log"
	echo "deb-check: FAIL: dpkg-buildpackage failed" >&2
	exit 1
fi
grep -E '^(PASS|FAIL|SKIP) |^tests: ' "$scratch/build.log" | grep -v '^PASS' || true
changes=$(ls "$scratch"/softoffload_*.changes)
echo "deb-check: built in $(($(date +%s) - start)) s:" $(cd "$scratch" && ls ./*.deb | sed 's|^\./||')

# 3. lintian: errors fail, the rest is shown
if ! lintian --fail-on error --display-info "$changes" >"$scratch/lintian.log" 2>&1; then
	cat "$scratch/lintian.log"
	echo "deb-check: FAIL: lintian reports errors" >&2
	exit 1
fi
if [ -s "$scratch/lintian.log" ]; then
	echo "deb-check: lintian (no errors):"
	sed 's/^/    /' "$scratch/lintian.log"
else
	echo "deb-check: lintian: nothing to report"
fi

# 4. installed: a program against the -dev, the command, the man page
debs=""
for p in $pkgs; do
	debs="$debs $(ls "$scratch"/"${p}"_*.deb)"
done
installed=1
apt-get install -y -qq --no-install-recommends $debs >/dev/null
cat >"$scratch/t.c" <<'EOF'
#include <stdio.h>
#include <softoffload/softoffload.h>
int main(void)
{
	if (sofl_version() != SOFL_VERSION)
		return 1;
	printf("libsoftoffload %s\n", sofl_version_string());
	return sofl_csum("\001\002", 2) == 0xfefd ? 0 : 1;
}
EOF
cc -std=c11 -Wall -Werror $(pkg-config --cflags softoffload) "$scratch/t.c" \
	$(pkg-config --libs softoffload) -o "$scratch/t"
"$scratch/t"
ldd "$scratch/t" | grep -Eq 'libsoftoffload\.so\.3 => (/usr)?/lib/' ||
	{ ldd "$scratch/t"; echo "deb-check: FAIL: not linked with the installed libsoftoffload.so.3" >&2; exit 1; }
softoffload --version
if command -v man >/dev/null 2>&1; then
	page=$(man -w sofl_gro_receive)
	case $page in
	/usr/share/man/man3/sofl_gro.3*) echo "deb-check: man sofl_gro_receive: $page" ;;
	*) echo "deb-check: FAIL: man sofl_gro_receive gives '$page'" >&2; exit 1 ;;
	esac
fi

# 5. purged (by cleanup), and nothing of them left
apt-get purge -y -qq $pkgs >/dev/null
installed=0
for p in $pkgs; do
	! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		{ echo "deb-check: FAIL: $p still installed after purge" >&2; exit 1; }
done
[ ! -e /usr/include/softoffload ] || { echo "deb-check: FAIL: /usr/include/softoffload left" >&2; exit 1; }
echo "deb-check: built, lintian without errors, installed, used and purged:$debs" |
	sed "s|$scratch/||g"
