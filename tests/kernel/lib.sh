# Shared shell of the kernel-oracle tests (tests/gro_kernel.sh,
# tests/gso_kernel.sh), sourced, never run by itself: the prologue (checks,
# three network namespaces, temp dir, cleanup), the iperf3 veth pair and a
# bounded iperf3 run captured at the receiver.  POSIX sh.
#
#   . tests/kernel/lib.sh
#   kernel_init sogro gro_kernel "kgro kgrocmp kcraft kcap kpcmp"
#   ... namespaces $NSO (oracle), $NSC (iperf3 client), $NSS (server),
#   ... scratch dir $dir, $K (kernel binaries), $CLI, $tag, $start
#   iperf_pair 1                       # 198.18.1.1 <-> 198.18.1.2
#   iperf_capture 60000 tcp4 -c 198.18.1.2 -n 8M   # -> $dir/tcp4.pcap, .vnet
#   vxlan_pair 1 6 1                   # VXLAN over the pair: outer IPv6, checksum
#   iperf_capture 20000 vx -c 198.18.11.2 -n 2M    # the outer frames, on the wire
#   vxlan_unpair

#   ... skip REASON / drop CASE / craft KCRAFT_ARGS / oracle_summary TEXT
#
# SOFL_REQUIRE_ORACLE=1 (set by .ci/run, see scripts/run-tests.sh): the
# oracle must run in full, so a skip, or a case left out because this
# kernel cannot answer it (here or in kcraft), is a failure -- except a case
# whose kernel feature the running kernel's own configuration shows compiled
# out (drop_absent), which the PASS line then names.

fail() { echo "FAIL: $*" >&2; exit 1; }
required() { [ "${SOFL_REQUIRE_ORACLE:-0}" = 1 ]; }
skip() {
	required && fail "$* (a skip, and SOFL_REQUIRE_ORACLE=1 requires the oracle)"
	echo "SKIP: $*" >&2
	exit 77
}

# drop WHAT: the case(s) WHAT are left out on this kernel, with a note.
dropped=0
absent=
drop() {
	required && fail "$* left out, and SOFL_REQUIRE_ORACLE=1 requires every case"
	echo "note: $* left out" >&2
	dropped=$((dropped + 1))
}

# kconfig_absent CONFIG_X: true when the running kernel's own configuration
# (/proc/config.gz or /boot/config-RELEASE) says CONFIG_X is not set.  False
# when it is set, or when no configuration can be read.
kconfig_absent() {
	if [ -r /proc/config.gz ]; then
		zcat /proc/config.gz 2>/dev/null
	elif [ -r "/boot/config-$(uname -r)" ]; then
		cat "/boot/config-$(uname -r)"
	fi | grep -qx "# $1 is not set"
}

# drop_absent CONFIG_X WHAT: the case(s) WHAT cannot be asked of this kernel
# because it was built without CONFIG_X.  That is the one drop that
# SOFL_REQUIRE_ORACLE=1 accepts, and only when the kernel's configuration
# proves it (kconfig_absent); the summary line names it, so a PASS says what
# was not compared.  Anything else (a tool missing, a setup that failed, a
# configuration that cannot be read) is a plain drop, a failure there.
drop_absent() {
	cfg=$1; shift
	if kconfig_absent "$cfg"; then
		echo "note: $* left out: this kernel is built without $cfg" >&2
		dropped=$((dropped + 1))
		absent="$absent $* ($cfg not set);"
	else
		drop "$*"
	fi
}

# craft KCRAFT_ARGS...: runs $K/kcraft; the cases it leaves out for this
# kernel count as dropped (under SOFL_REQUIRE_ORACLE=1 kcraft fails instead).
craft() {
	"$K/kcraft" "$@" > /dev/null 2> "$dir/kcraft.err"
	rc=$?
	cat "$dir/kcraft.err" >&2
	[ $rc = 0 ] || fail "kcraft $*"
	dropped=$((dropped + $(grep -c "case '.*' left out" "$dir/kcraft.err")))
}

# oracle_summary TEXT: the summary line scripts/run-tests.sh shows in the
# PASS line: kernel version, what was compared, cases left out, time.
oracle_summary() {
	echo "summary: kernel $(uname -r): $*, cases left out: $dropped${absent:+ (not in this kernel:${absent%;})}," \
	     "$(( $(date +%s) - start )) s"
}

# Kills only the processes we started (by PID), deletes only our namespaces
# and the scratch directory (kept, for a look at the captures, with
# SOFL_ORACLE_KEEP=1).
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	for n in $NSO $NSC $NSS; do ip netns del "$n" 2>/dev/null; done
	if [ -n "$dir" ] && [ "${SOFL_ORACLE_KEEP:-0}" = 1 ]; then
		echo "kept: $dir" >&2
	elif [ -n "$dir" ]; then
		rm -rf "$dir"
	fi
}

# kernel_init NS_PREFIX NAME "BINARIES": checks root, the CLI, the
# tests/kernel BINARIES and the tools; creates the namespaces
# NS_PREFIX-{o,c,s}-PID and /tmp/NAME.XXXXXX.
kernel_init() {
	BUILD=${BUILD:-build}
	K=$BUILD/tests/kernel
	CLI=$BUILD/softoffload
	tag=$$
	NSO=$1-o-$tag NSC=$1-c-$tag NSS=$1-s-$tag
	dir=
	pids=
	trap cleanup EXIT
	trap 'exit 1' INT TERM

	[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, TAP)"
	[ -x "$CLI" ] || fail "$CLI not built (make BUILD=$BUILD cli)"
	for b in $3; do
		[ -x "$K/$b" ] || fail "$K/$b not built (make BUILD=$BUILD tests)"
	done
	for t in ip iperf3 ethtool; do
		command -v $t >/dev/null 2>&1 || skip "$t not installed (scripts/deps.sh check)"
	done
	[ -c /dev/net/tun ] || skip "/dev/net/tun missing"
	ip netns add "$NSO" 2>/dev/null || skip "cannot create network namespaces"
	ip netns add "$NSC" && ip netns add "$NSS" || fail "ip netns add"
	dir=$(mktemp -d "/tmp/$2.XXXXXX") || fail mktemp
	start=$(date +%s)
}

# iperf_pair N: veth sg0-$tag in $NSC (198.18.N.1, 2001:2:0:N::1) to sg1-$tag
# in $NSS (.2, ::2), both up, GRO off on the receiver so that what it
# captures is what the wire carried.
iperf_pair() {
	ip link add sg0-$tag netns "$NSC" type veth peer name sg1-$tag netns "$NSS" || fail "veth"
	ip -n "$NSC" link set lo up && ip -n "$NSS" link set lo up
	ip -n "$NSC" addr add 198.18.$1.1/24 dev sg0-$tag
	ip -n "$NSS" addr add 198.18.$1.2/24 dev sg1-$tag
	ip -n "$NSC" addr add 2001:2:0:$1::1/64 dev sg0-$tag nodad
	ip -n "$NSS" addr add 2001:2:0:$1::2/64 dev sg1-$tag nodad
	ip netns exec "$NSS" ethtool -K sg1-$tag gro off >/dev/null 2>&1 || fail "ethtool -K gro off"
	ip -n "$NSC" link set sg0-$tag up && ip -n "$NSS" link set sg1-$tag up
}

# vxlan_pair N OUTER CSUM: a kernel VXLAN pair (VNI 42, port 4789) over the
# iperf pair N, underlay IPv4 (OUTER 4) or IPv6 (6), outer UDP checksum set
# (CSUM 1: udpcsum / the IPv6 default) or zero (0: the IPv4 default /
# udp6zerocsumtx, with udp6zerocsumrx at the receiver).  Inner addresses
# 198.18.(N+10).1/.2 and 2001:2:0:(N+10)::1/::2 on svx-$tag; iperf3 through
# them is captured on the underlay by iperf_capture.  Returns 1 when the
# kernel cannot make a VXLAN device (the caller drops those cases).
vxlan_pair() {
	vxlan_unpair
	if [ "$2" = 4 ]; then
		la=198.18.$1.1 ra=198.18.$1.2
		cs=noudpcsum cr=
		[ "$3" = 1 ] && cs=udpcsum
	else
		la=2001:2:0:$1::1 ra=2001:2:0:$1::2
		cs= cr=
		[ "$3" = 0 ] && cs="udp6zerocsumtx udp6zerocsumrx" cr="udp6zerocsumtx udp6zerocsumrx"
	fi
	# shellcheck disable=SC2086
	ip -n "$NSC" link add svx-$tag type vxlan id 42 dstport 4789 local $la remote $ra \
	    dev sg0-$tag $cs && ip -n "$NSS" link add svx-$tag type vxlan id 42 dstport 4789 \
	    local $ra remote $la dev sg1-$tag $cr 2>/dev/null || return 1
	n=$(($1 + 10))
	ip -n "$NSC" addr add 198.18.$n.1/24 dev svx-$tag
	ip -n "$NSS" addr add 198.18.$n.2/24 dev svx-$tag
	ip -n "$NSC" addr add 2001:2:0:$n::1/64 dev svx-$tag nodad
	ip -n "$NSS" addr add 2001:2:0:$n::2/64 dev svx-$tag nodad
	ip -n "$NSC" link set svx-$tag up && ip -n "$NSS" link set svx-$tag up ||
		fail "VXLAN devices up"
}
vxlan_unpair() {
	ip -n "$NSC" link del svx-$tag 2>/dev/null
	ip -n "$NSS" link del svx-$tag 2>/dev/null
	return 0
}

# iperf_capture MAX_FRAMES NAME CLIENT_ARGS...: one bounded iperf3 run over
# the pair, captured at the receiver (at most MAX_FRAMES frames, 20 s) into
# $dir/NAME.pcap with the virtio headers in $dir/NAME.vnet; the capture's
# summary in $dir/NAME.cap.log.  Sets $name.
iperf_capture() {
	max=$1 name=$2; shift 2
	ip netns exec "$NSS" "$K/kcap" -i sg1-$tag -w "$dir/$name.pcap" -m "$dir/$name.vnet" \
	    -c "$max" -T 20 > "$dir/$name.cap.out" 2> "$dir/$name.cap.log" &
	cap=$!
	pids="$pids $cap"
	ip netns exec "$NSS" iperf3 -s -1 > "$dir/$name.srv.log" 2>&1 &
	srv=$!
	pids="$pids $srv"
	i=0
	until grep -q ready "$dir/$name.cap.out" 2>/dev/null &&
	      ip netns exec "$NSS" ss -ltn 2>/dev/null | grep -q ':5201 '; do
		i=$((i + 1))
		[ $i -gt 100 ] && fail "$name: iperf3 server / capture did not start"
		sleep 0.05
	done
	timeout 20 ip netns exec "$NSC" iperf3 "$@" > "$dir/$name.cli.iperf" 2>&1 ||
		{ cat "$dir/$name.cli.iperf" >&2; fail "$name: iperf3 client failed"; }
	wait "$srv" 2>/dev/null
	sleep 0.2
	kill "$cap" 2>/dev/null
	wait "$cap" 2>/dev/null
	pids=
	[ -s "$dir/$name.pcap" ] || fail "$name: nothing captured"
}
