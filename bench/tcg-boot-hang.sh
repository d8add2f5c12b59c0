#!/bin/bash
# tcg-boot-hang.sh - how often a boot under multi-threaded TCG hangs before
# userspace (QEMU 7.2 running a stale translation of live-patched kernel
# text: docs/results.md), counted from the attempt-N/ directories that
# `lab boot` keeps of each hung attempt.  With a second lab binary, the two
# alternate boot by boot, so both see the same host load.
#
# usage: bench/tcg-boot-hang.sh [ROUNDS] [SPEC] [OTHER_LAB]
#        (default: 6 rounds of 2s64c with ./lab alone)
#
# OTHER_LAB is a lab binary built from another revision (git worktree add
# /tmp/old REV && make -C /tmp/old); it shares this tree's kernel cache.
set -uo pipefail
cd "$(dirname "$0")/.."

rounds=${1:-6}
spec=${2:-2s64c}
other=${3:-}
out=$(mktemp -d /tmp/tcg-boot-hang.XXXXXX)
trap 'rm -rf "$out"' EXIT
export LAB_CACHE=${LAB_CACHE:-$PWD/.cache}
bins=(./lab)
[ -z "$other" ] || bins+=("$other")

declare -A hung boots
for ((i = 1; i <= rounds; i++)); do
	for b in "${bins[@]}"; do
		start=$(date +%s)
		"$b" boot "$spec" --accel tcg --tcg-threads multi --results "$out/$i" >"$out/log" 2>&1
		rc=$?
		run=$(sed -n 's/^results: //p' "$out/log")
		h=$(ls -d "$run"/attempt-* 2>/dev/null | wc -l)
		# the last attempt counts as hung too when the verdict is HANG
		last=$(grep -c '^verdict: HANG' "$out/log")
		hung[$b]=$(( ${hung[$b]:-0} + h + last ))
		boots[$b]=$(( ${boots[$b]:-0} + h + 1 ))
		printf '%-28s round %d: exit %d, %3d s, %d hung attempt(s) %s\n' "$b" "$i" "$rc" \
			$(( $(date +%s) - start )) $((h + last)) "$(grep '^verdict' "$out/log" | cut -c1-50)"
	done
done
for b in "${bins[@]}"; do
	printf '%-28s %d of %d attempts hung before userspace\n' "$b" "${hung[$b]}" "${boots[$b]}"
done
