#!/bin/sh
# Draws the "how cost grows" plots from the rows scripts/run-bench.sh
# collected in DIR/results.tsv (bench section name metric unit median min
# max series x), with gnuplot, into DIR/bench-*.png:
#   bench-csum.png       checksum GB/s against length (section csum_sweep,
#                        metric GBps): every implementation, DPDK alongside;
#                        bench_vs_dpdk's rows (same run as DPDK) when there
#                        are any, else bench_csum's
#   bench-gso.png        GSO ns per segment against super-packet payload
#                        (section gso_sweep, metric ns_per_segment)
#   bench-gro-flows.png  GRO ns per packet against active flows (section
#                        gro_flows, metric ns_per_pkt): both tables, DPDK
#                        alongside; bench_vs_dpdk's rows (same run as
#                        DPDK) when there are any, else bench_gro's
#   bench-gro-segs.png   GRO ns per packet against segments per super-packet
#                        (section gro_segs, metric ns_per_pkt; bench_gro)
#   bench-vxlan-gro.png  VXLAN TCP/IPv4 GRO ns per packet against flows
#                        interleaved in one burst, 4 segments each (section
#                        gro_vxlan_flows, metric ns_per_pkt; bench_vs_dpdk:
#                        DPDK's gro_vxlan_tcp4 and ours, same run)
#   bench-vxlan-gso.png  VXLAN TCP/IPv4 GSO ns per segment against the inner
#                        payload of the super-packet (section gso_vxlan_sweep,
#                        metric ns_per_seg; bench_vs_dpdk: DPDK's
#                        gso_tunnel_tcp4, with and without software
#                        checksums, and ours, same run)
# A plot whose rows are absent is skipped with a message.  Each series is
# drawn as its medians with min..max error bars (log y: one preempted
# repetition does not flatten the rest).
#   scripts/bench-plot.sh DIR
# Exit status: 0; 1 when gnuplot is missing or failed.
set -eu
DIR=${1:?usage: bench-plot.sh DIR}
TSV=$DIR/results.tsv
[ -f "$TSV" ] || { echo "bench-plot: $TSV not found (scripts/run-bench.sh writes it)" >&2; exit 1; }
if ! command -v gnuplot >/dev/null 2>&1; then
	echo "bench-plot: gnuplot not installed (scripts/deps.sh bench installs it)" >&2
	exit 1
fi
cpu=$(sh "$(dirname "$0")/cpu-name.sh")
stamp="$(date -u '+%F') $(git rev-parse --short HEAD 2>/dev/null || echo '?'), ${cpu:-unknown CPU}"
status=0

# x tics: bytes (the default), flows, segments
XT_BYTES='("64" 64, "256" 256, "1K" 1024, "4K" 4096, "16K" 16384, "64K" 65536, "256K" 262144, "1M" 1048576, "4M" 4194304, "16M" 16777216, "64M" 67108864)'
XT_FLOWS='("1" 1, "4" 4, "16" 16, "64" 64, "256" 256, "1K" 1024, "4K" 4096, "16K" 16384, "64K" 65536)'
XT_SEGS='(1, 2, 4, 8, 16, 32)'

# plot NAME SECTION METRIC TITLE XLABEL YLABEL LOGY [BENCH_PREFERRED [XTICS]]
plot() {
	name=$1 sec=$2 metric=$3 title=$4 xl=$5 yl=$6 logy=$7 pref=${8:-} xt=${9:-$XT_BYTES}
	dat=$DIR/$name.dat
	src=$(awk -F'\t' -v s="$sec" -v m="$metric" -v p="$pref" '
		$2 == s && $4 == m && $9 != "" { any = 1; if ($1 == p) pp = 1 }
		END { if (pp) print p; else if (any) print "*" }' "$TSV")
	if [ -z "$src" ]; then
		echo "bench-plot: no $sec rows ($metric) in $TSV: $name.png skipped"
		return 0
	fi
	# one gnuplot data block per series (two blank lines apart), sorted by x
	awk -F'\t' -v s="$sec" -v m="$metric" -v b="$src" '
		$2 == s && $4 == m && $9 != "" && (b == "*" || $1 == b) {
			if (!($9 in seen)) { seen[$9] = 1; order[++n] = $9 }
			row[$9] = row[$9] $10 " " $6 " " $7 " " $8 "\n"
		}
		END {
			for (i = 1; i <= n; i++) {
				printf "# %s\n", order[i]
				printf "%s", row[order[i]] | "sort -n"
				close("sort -n")
				printf "\n\n"
			}
			for (i = 1; i <= n; i++) print order[i] > "/dev/stderr"
		}' "$TSV" >"$dat" 2>"$dat.names"
	{
		echo 'set terminal pngcairo size 960,600 font "sans,10" noenhanced'
		echo "set output '$DIR/$name.png'"
		printf 'set title "%s\\n%s"\n' "$title" "$stamp"
		echo "set xlabel '$xl'"
		echo "set ylabel '$yl'"
		echo 'set logscale x 2'
		echo "set xtics $xt"
		echo 'set mxtics default'
		[ "$logy" = 1 ] && echo 'set logscale y 10'
		echo 'set grid'
		echo 'set offsets graph 0.03, graph 0.03, 0, 0'
		echo 'set key outside right top'
		printf 'plot '
		i=0
		while read -r s; do
			[ $i -gt 0 ] && printf ', \\\n     '
			printf "'%s' index %d using 1:2:3:4 with yerrorlines title '%s'" "$dat" "$i" "$s"
			i=$((i + 1))
		done <"$dat.names"
		echo
	} >"$DIR/$name.gp"
	if gnuplot "$DIR/$name.gp"; then
		echo "bench-plot: $DIR/$name.png ($(wc -l <"$dat.names") series${src:+, from $src})"
	else
		echo "bench-plot: gnuplot failed on $DIR/$name.gp" >&2
		status=1
	fi
	rm -f "$dat.names"
}

plot bench-csum csum_sweep GBps "Internet checksum: throughput against buffer length" \
	"bytes per call (beyond 64 KiB: DPDK in 64 KiB calls)" "GB/s" 1 bench_vs_dpdk
plot bench-gso gso_sweep ns_per_segment "TCP/IPv4 GSO (MSS 1448): cost per output segment" \
	"super-packet payload, bytes" "ns per segment" 1
plot bench-gro-flows gro_flows ns_per_pkt "GRO (TCP/IPv4, MSS 1448): cost per packet against flows held" \
	"flows held between polls (2 segments per output from 16 flows)" "ns per input packet" 1 \
	bench_vs_dpdk "$XT_FLOWS"
plot bench-gro-segs gro_segs ns_per_pkt "GRO (TCP/IPv4, MSS 1448): cost per packet against segments per super-packet" \
	"segments per super-packet (PSH every S-th segment, one flow, polls of 64)" \
	"ns per input packet" 0 "" "$XT_SEGS"
XT_VXFLOWS='(1, 2, 4, 8, 16, 32)'
XT_VXPAY='("2.8K" 2796, "5.6K" 5592, "11K" 11184, "22K" 22368, "45K" 44736, "64K" 64308)'
plot bench-vxlan-gro gro_vxlan_flows ns_per_pkt \
	"GRO of VXLAN TCP/IPv4 (inner MSS 1398): cost per packet against flows interleaved" \
	"flows in one burst, 4 segments each, round robin (4 to 128 packets)" \
	"ns per input packet" 1 bench_vs_dpdk "$XT_VXFLOWS"
plot bench-vxlan-gso gso_vxlan_sweep ns_per_seg \
	"GSO of VXLAN TCP/IPv4 (inner MSS 1398, outer UDP checksum 0): cost per output segment" \
	"super-packet inner payload, bytes" "ns per segment" 1 bench_vs_dpdk "$XT_VXPAY"
exit $status
