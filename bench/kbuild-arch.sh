#!/bin/bash
# kbuild-arch.sh - lab kernel build per guest arch (x86_64, arm64 cross,
# ppc64le cross) from linux-source-6.1, interleaved in one run, against x86_64.
#
# usage: bench/kbuild-arch.sh [ROUNDS]          (default 2)
#        BUILD=1 bench/kbuild-arch.sh [ROUNDS]  (also full builds: 1-2 h per
#                                                round on 2 loaded cores)
#
# Each round runs the three arches in a rotated order: `--config-only`
# (tinyconfig, lab-base, arch/<arch>, $CONFIGS, olddefconfig, the option
# check) and, with BUILD=1, a full `-j$JOBS` build into a private cache (so
# nothing is a cache hit).  Reported: median wall seconds and the ratio to
# x86_64's, the host load (uptime) before and after, and the build time
# recorded in $LAB_CACHE by an earlier build of the same inputs, if any.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=${1:-2}
tarball=${KBUILD_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
configs=${CONFIGS:-sched-debug}
jobs=${JOBS:-2}
tmp=$(mktemp -d /tmp/schedlab-kbuildarch.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
archs=(x86_64 arm64 ppc64le)
cfgargs=()
for c in $configs; do cfgargs+=(--config "$c"); done

now() { date +%s.%N; }

# one MODE ARCH: appends the wall seconds of one config-only or full build
one() {
	local mode=$1 a=$2 t0 t1 out
	local -a extra=(--config-only)
	[ "$mode" = build ] && extra=(-j"$jobs")
	t0=$(now)
	if ! out=$(LAB_CACHE=${cache:-${LAB_CACHE:-.cache}} ./lab kernel build --ksrc "$tarball" --arch "$a" \
		"${cfgargs[@]}" "${extra[@]}" 2>&1 </dev/null); then
		echo "kbuild-arch: $mode $a failed: $(echo "$out" | tail -1)" >&2
		return 1
	fi
	t1=$(now)
	awk -v a="$t1" -v b="$t0" 'BEGIN { printf "%.1f\n", a - b }' >>"$tmp/$mode-$a"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

load0=$(uptime | sed 's/.*load average: //')
# unpack the tarball once outside the measurement
./lab kernel build --ksrc "$tarball" --config-only >/dev/null 2>&1 </dev/null ||
	{ echo "kbuild-arch: cannot configure $tarball" >&2; exit 1; }
modes=(config)
[ "${BUILD:-0}" = 1 ] && modes+=(build)
cache=
for ((i = 0; i < rounds; i++)); do
	for m in "${modes[@]}"; do
		if [ "$m" = build ]; then
			# a fresh cache per round: every build compiles everything
			cache=$tmp/cache-$i
			mkdir -p "$cache/kernels"
			ln -s "$(cd "${LAB_CACHE:-.cache}" && pwd)/kernels/src" "$cache/kernels/src"
		fi
		for ((k = 0; k < ${#archs[@]}; k++)); do
			one "$m" "${archs[(i + k) % ${#archs[@]}]}"
		done
		cache=
	done
done
load1=$(uptime | sed 's/.*load average: //')

echo "lab kernel build of $(basename "$tarball") with lab-base + arch/<arch> + $configs, $rounds alternating rounds, $(nproc) host CPUs"
echo "load (1, 5, 15 min) before: $load0; after: $load1"
printf "%-8s %-13s %10s %8s\n" arch step median ratio
for m in "${modes[@]}"; do
	x=$(median <"$tmp/$m-x86_64")
	for a in "${archs[@]}"; do
		v=$(median <"$tmp/$m-$a")
		awk -v a="$a" -v m="$m" -v v="$v" -v x="$x" -v j="$jobs" \
			'BEGIN { printf "%-8s %-13s %9.1fs %7.2fx\n", a, m == "build" ? "build -j" j : "config-only", v, v / x }'
	done
done
# full builds already in the cache (their own load at the time is not known)
for a in "${archs[@]}"; do
	key=$(./lab kernel build --ksrc "$tarball" --arch "$a" "${cfgargs[@]}" --key-only 2>/dev/null |
		sed -n 's/^key: //p')
	info=${LAB_CACHE:-.cache}/kernels/built/$key/info.json
	[ -n "$key" ] && [ -f "$info" ] || continue
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%-8s cached build %s: %.0f s (%dm%02ds), left out: %d" % (sys.argv[2], d["key"], d["build_seconds"], d["build_seconds"] // 60, d["build_seconds"] % 60, len(d.get("left_out", []))))' "$info" "$a"
done
