#!/bin/bash
# generations.sh - topology verification of Debian's kernels of every
# generation the lab ships with, on the topologies whose sysfs and sched
# domains differ between generations (x86 die_id, DIE/PKG): one `lab boot`
# per kernel and topology, interleaved kernel by kernel so all see the same
# host load.  Prints a cell per boot (PASS/FAIL/verdict and seconds) and
# the differences of any FAIL.
#
# usage: bench/generations.sh [KERNELS] [TOPOLOGIES]
#   (default: debian:6.1,debian:6.12,debian:7.2 and
#    2s4c,2s8c2t,2s4c:llc=2,2s6c:llc=2,epyc-2s-nps2,tiny-smt,small-numa;
#    a ':' in a topology stands for its ',')
set -uo pipefail
cd "$(dirname "$0")/.."

kernels=${1:-debian:6.1,debian:6.12,debian:7.2}
topos=${2:-2s4c,2s8c2t,2s4c:llc=2,2s6c:llc=2,epyc-2s-nps2,tiny-smt,small-numa}
out=$(mktemp -d /tmp/generations.XXXXXX)
trap 'rm -rf "$out"' EXIT
export LAB_CACHE=${LAB_CACHE:-$PWD/.cache}
IFS=, read -ra ks <<<"$kernels"
IFS=, read -ra ts <<<"$topos"

for k in "${ks[@]}"; do
	./lab kernel "$k" >/dev/null || { echo "generations: cannot fetch $k" >&2; exit 1; }
done
printf '%-14s' topology
for k in "${ks[@]}"; do printf ' %-18s' "$k"; done
printf '\n'
fails=0
for t in "${ts[@]}"; do
	spec=${t//:/,}
	printf '%-14s' "$spec"
	for k in "${ks[@]}"; do
		start=$(date +%s)
		./lab boot "$spec" --kernel "$k" --accel tcg --results "$out" >"$out/log" 2>&1
		secs=$(( $(date +%s) - start ))
		v=$(sed -n 's/^topology: \([A-Z]*\).*/\1/p' "$out/log")
		[ -n "$v" ] || v=$(sed -n 's/^verdict: \([A-Z]*\).*/\1/p' "$out/log")
		printf ' %-18s' "${v:-?} ${secs}s"
		if [ "$v" != PASS ]; then
			fails=$((fails + 1))
			grep -E '^  |^verdict' "$out/log" | head -4 | sed "s|^|    $k $spec: |" >>"$out/why"
		fi
	done
	printf '\n'
done
[ ! -s "$out/why" ] || cat "$out/why"
echo "$fails boot(s) did not verify"
