#!/bin/bash
# arch-boot.sh - boot-to-runner time of an 8-vCPU guest per architecture
# (x86_64, arm64, ppc64le) under TCG, interleaved in one run, against x86_64.
#
# usage: bench/arch-boot.sh [ROUNDS]     (default 3)
#
# Each round boots the three archs in a rotated order with `lab boot`
# (which must PASS its topology check): 2 sockets x 4 cores, 2 NUMA nodes;
# arm64 in clusters of 2 cores.  Reported: the median of `lab boot`'s
# "s to the runner" (QEMU start to the guest's /init starting the runner)
# and of the whole command, and the ratio to x86_64's.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=${1:-3}
tmp=$(mktemp -d /tmp/schedlab-archboot.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export LAB_RESULTS=$tmp/results

archs=(x86_64 arm64 ppc64le)
declare -A spec=([x86_64]=2s4c [arm64]=2s4c,llc=2 [ppc64le]=2s4c)

now() { date +%s.%N; }

# one ARCH: appends "<to runner> <whole>" to $tmp/ARCH
one() {
	local a=$1 t0 t1 out r
	t0=$(now)
	if ! out=$(./lab boot "${spec[$a]}" --arch "$a" --accel tcg 2>&1); then
		echo "arch-boot: $a boot failed: $(echo "$out" | tail -1)" >&2
		return 1
	fi
	t1=$(now)
	r=$(echo "$out" | sed -n 's/^boot: \([0-9.]*\) s to the runner.*/\1/p')
	[ -n "$r" ] || { echo "arch-boot: $a printed no boot time" >&2; return 1; }
	awk -v r="$r" -v a="$t1" -v b="$t0" 'BEGIN { printf "%s %.3f\n", r, a - b }' >>"$tmp/$a"
}

# warm the caches (kernels, busybox, initrds) outside the measurement
for a in "${archs[@]}"; do
	./lab boot "${spec[$a]}" --arch "$a" --accel tcg >/dev/null 2>&1 ||
		{ echo "arch-boot: $a does not boot" >&2; exit 1; }
done

for ((i = 0; i < rounds; i++)); do
	for ((k = 0; k < ${#archs[@]}; k++)); do
		one "${archs[(i + k) % ${#archs[@]}]}"
	done
done

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "8 vCPUs (2 sockets x 4 cores, 2 nodes), TCG, $rounds alternating rounds, $(nproc) host CPUs"
printf "%-8s %-14s %10s %8s %10s %8s\n" arch spec to-runner ratio whole ratio
bx=$(cut -d' ' -f1 "$tmp/x86_64" | median)
wx=$(cut -d' ' -f2 "$tmp/x86_64" | median)
for a in "${archs[@]}"; do
	b=$(cut -d' ' -f1 "$tmp/$a" | median)
	w=$(cut -d' ' -f2 "$tmp/$a" | median)
	awk -v a="$a" -v s="${spec[$a]}" -v b="$b" -v w="$w" -v bx="$bx" -v wx="$wx" \
		'BEGIN { printf "%-8s %-14s %9.2fs %7.2fx %9.2fs %7.2fx\n", a, s, b, b / bx, w, w / wx }'
done
