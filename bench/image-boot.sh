#!/bin/bash
# image-boot.sh - what booting a distro disk image costs against the initrd
# path: `lab boot`, `lab boot --image` (the lab's kernel and stage1) and
# `lab boot --image --kernel image` (the image's own kernel and initramfs)
# interleaved, same topology and runner probe, with the image paths' parts
# broken down.
#
# usage: bench/image-boot.sh [ROUNDS] [SPEC]    (default: 2 rounds, 1s2c)
#
# The images are the test images of host-tools/mkimage: Debian minbase, and
# the same with linux-image-amd64 and initramfs-tools (--kernel) for the
# "own" row.  Per round and side: the whole command's wall time; QEMU start
# to the guest's init marker and to the runner's END record (verdict.json);
# for the images also the libguestfs overlay preparation (inspect + copy-in,
# plus the kernel and initramfs copied out for "own": one appliance boot),
# the read-back after poweroff (a second appliance boot) and QEMU start to
# the guest's own poweroff after syncing its results.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=${1:-2}
spec=${2:-1s2c}
img=$(host-tools/mkimage)
kimg=$(host-tools/mkimage --kernel)
tmp=$(mktemp -d /tmp/schedlab-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export LAB_RESULTS=$tmp/results

now() { date +%s.%N; }

# one SIDE [ARGS...]: prints "side wall to_init to_end prepare collect poweroff"
one() {
	local side=$1 t0 t1 run
	shift
	t0=$(now)
	./lab boot "$spec" --accel tcg "$@" >"$tmp/out" 2>"$tmp/err" ||
		{ cat "$tmp/out" "$tmp/err" >&2; echo "bench: lab boot ($side) failed" >&2; exit 1; }
	t1=$(now)
	run=$(sed -n 's/^results: //p' "$tmp/out")
	python3 - "$side" "$(echo "$t1 - $t0" | bc)" "$run/verdict.json" <<'PY'
import json, sys
side, wall, v = sys.argv[1], float(sys.argv[2]), json.load(open(sys.argv[3]))
g = lambda k: v.get(k, float("nan"))
print("%-7s %7.1f %8.1f %7.1f %8.1f %8.1f %9.1f" % (side, wall, g("wall_to_runner_s"),
      g("wall_to_end_s"), g("image_prepare_s"), g("image_collect_s"), g("wall_to_poweroff_s")))
PY
}

echo "spec $spec, kernel $(./lab kernel | sed -n 's/^kernel: //p'), image $(basename "$img"), $rounds rounds"
echo "own: the image's own kernel and initramfs, image $(basename "$kimg")"
echo "side      wall  to_init  to_end  prepare  collect  poweroff   (seconds)"
for r in $(seq "$rounds"); do
	one initrd | tee -a "$tmp/rows"
	one image --image "$img" | tee -a "$tmp/rows"
	one own --image "$kimg" --kernel image | tee -a "$tmp/rows"
done
awk '{ n[$1]++; for (i = 2; i <= 7; i++) s[$1, i] += $i }
END {
	printf "mean:\n"
	for (side in n) {
		printf "%-7s", side
		for (i = 2; i <= 7; i++) printf " %8.1f", s[side, i] / n[side]
		printf "\n"
	}
	d = s["image", 2] / n["image"] - s["initrd", 2] / n["initrd"]
	b = s["image", 4] / n["image"] - s["initrd", 4] / n["initrd"]
	a = (s["image", 5] + s["image", 6]) / n["image"]
	for (k = 0; k < 2; k++) {
		side = k ? "own" : "image"
		d = s[side, 2] / n[side] - s["initrd", 2] / n["initrd"]
		b = s[side, 4] / n[side] - s["initrd", 4] / n["initrd"]
		a = (s[side, 5] + s[side, 6]) / n[side]
		printf "%s extra per run: %.1f s wall = %.1f s libguestfs (overlay + read-back) + %.1f s guest boot to END + %.1f s rest (poweroff, verification)\n", side, d, a, b, d - a - b
	}
}' "$tmp/rows"
