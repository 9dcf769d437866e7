#!/bin/sh
# Install the Debian packages a target needs, when missing and when root.
#   scripts/deps.sh check   build + test dependencies
#   scripts/deps.sh demo    + what `make demo` uses (iperf3, iproute2, ethtool, gnuplot, tcpdump, jq)
#   scripts/deps.sh bench   + DPDK for the side-by-side benchmark
set -eu
what=${1:-check}
pkgs="gcc clang make pkg-config libcmocka-dev libpcap-dev iproute2 iperf3 procps ethtool tcpdump"  # ethtool: tests/*_kernel.sh; tcpdump: tests/cli_rss.sh; clang: .ci/run
pkgs="$pkgs jq gnuplot-nox"  # tests/demo.sh
pkgs="$pkgs iputils-ping"  # tests/vpn.sh, tests/tunnel_vxlan.sh: ping both ways
pkgs="$pkgs python3"  # tests/tunnel.sh, tests/soak.sh, tests/cli_gso.sh: traffic helpers
pkgs="$pkgs abigail-tools"  # tests/abi_check.sh: abidiff against the last release
pkgs="$pkgs cppcheck gcovr"  # make lint, make coverage
pkgs="$pkgs libssl-dev"  # make examples: examples/vpn.c (OpenSSL EVP; the library never links it)
pkgs="$pkgs wireguard-go wireguard-tools"  # tests/demo.sh, make demo: the vpn experiment's reference
# make examples: examples/vpn's AEAD (Intel's ipsec-mb; Debian builds it for amd64 only)
[ "$(dpkg --print-architecture 2>/dev/null)" = amd64 ] && pkgs="$pkgs libipsec-mb-dev"
case $what in
demo)  pkgs="$pkgs ethtool gnuplot-nox tcpdump jq" ;;
bench) pkgs="$pkgs libdpdk-dev" ;;
esac
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing Debian packages:$missing (run as root, or apt-get install them)" >&2
	exit 0
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
stamp=/var/lib/apt/periodic/softoffload-update
if [ ! -e "$stamp" ]; then
	apt-get update -qq
	mkdir -p "$(dirname "$stamp")" && touch "$stamp"
fi
# iperf3 asks whether to start a daemon; answer no
echo "iperf3 iperf3/start_daemon boolean false" | debconf-set-selections 2>/dev/null || true
apt-get install -y -qq --no-install-recommends $missing >/dev/null
