#!/bin/sh
# The CPU benchmarks ran on, as one line for their reports and plots: its
# model name, family and model (a guest may name only "AMD EPYC") and which
# of the vector extensions the library's per-ISA code uses it has.
#   scripts/cpu-name.sh    e.g. "AMD EPYC (family 25 model 1; avx2)"
f=/proc/cpuinfo
field() { sed -n "s/^$1[[:space:]]*: //p" "$f" 2>/dev/null | head -n 1; }
name=$(field 'model name')
fam=$(field 'cpu family')
mod=$(field 'model')
flags=" $(field flags) "
isa=""
for x in avx2 avx512f avx512bw avx512vl avx512_vnni gfni; do
	case $flags in *" $x "*) isa="${isa:+$isa }$x" ;; esac
done
echo "${name:-unknown CPU} (family ${fam:-?} model ${mod:-?}; ${isa:-no AVX2})"
