#!/bin/bash
# boot.sh - boot-to-runner wall time of `lab boot` against a naive QEMU
# command line (q35, SeaBIOS, bzImage, gzip initrd), interleaved in one run.
#
# usage: bench/boot.sh [ROUNDS] [SPEC...]     (default: 3 rounds, 1s4c2t and 2s64c)
#
# Both sides boot the same Debian kernel and the same initrd contents and
# stop at the same point: the lab's /init printing "schedlab: init start"
# (the runner starts right after).  The naive side differs only in what a
# user would type first: bzImage (real-mode entry + decompression), a gzip
# initrd, SeaBIOS with the default devices.  For the lab both are shown:
# QEMU start to that marker, and the whole `lab boot` command (kernel and
# initrd lookup, boot, runner probe, QMP quit, verification).
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=${1:-3}
shift || true
specs=("$@")
[ ${#specs[@]} -gt 0 ] || specs=(1s4c2t 2s64c)

tmp=$(mktemp -d /tmp/schedlab-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export LAB_RESULTS=$tmp/results

bzimage=$(./lab kernel | sed -n 's/^bzImage: //p')
initrd=$(./lab initrd)
gzip -1 -c "$initrd" >"$tmp/initrd.gz"

now() { date +%s.%N; }

# naive SPEC: seconds until the init marker appears on the console.
naive() {
	local spec=$1 t0 t1 pid
	local -a topo
	mapfile -t topo < <(./lab topo "$spec" --qemu --accel tcg | sed -n '2,$p')
	mkfifo "$tmp/con"
	t0=$(now)
	qemu-system-x86_64 -machine q35 "${topo[@]}" -kernel "$bzimage" \
		-initrd "$tmp/initrd.gz" -append "console=ttyS0 panic=-1" \
		-display none -serial stdio -monitor none -no-reboot \
		</dev/null >"$tmp/con" 2>/dev/null &
	pid=$!
	if timeout 300 grep -a -m1 -q 'schedlab: init start' <"$tmp/con"; then
		t1=$(now)
	else
		t1=
	fi
	kill -9 $pid 2>/dev/null || true
	wait $pid 2>/dev/null || true
	rm -f "$tmp/con"
	[ -n "$t1" ] || { echo "naive boot of $spec never reached init" >&2; return 1; }
	awk -v a="$t1" -v b="$t0" 'BEGIN { printf "%.3f\n", a - b }'
}

# lab SPEC: "<boot-to-runner> <whole command>" seconds of `lab boot` (must
# PASS); boot-to-runner is from QEMU's start to the same init marker.
lab() {
	local t0 t1 b
	t0=$(now)
	./lab boot "$1" --accel tcg >"$tmp/lab.out" 2>&1 || { cat "$tmp/lab.out" >&2; return 1; }
	t1=$(now)
	b=$(sed -n 's/^boot: \([0-9.]*\) s to the runner,.*/\1/p' "$tmp/lab.out")
	awk -v a="$t1" -v b="$t0" -v r="$b" 'BEGIN { printf "%s %.3f\n", r, a - b }'
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

printf '%-10s %6s %9s %9s %7s %12s %7s\n' spec rounds naive_s lab_s ratio lab_command_s ratio
for spec in "${specs[@]}"; do
	: >"$tmp/n" ; : >"$tmp/l"
	for ((r = 0; r < rounds; r++)); do
		# alternate the order so slow drift of the host cancels
		if ((r % 2)); then
			lab "$spec" >>"$tmp/l"; naive "$spec" >>"$tmp/n"
		else
			naive "$spec" >>"$tmp/n"; lab "$spec" >>"$tmp/l"
		fi
	done
	n=$(median <"$tmp/n"); l=$(cut -d' ' -f1 "$tmp/l" | median); c=$(cut -d' ' -f2 "$tmp/l" | median)
	printf '%-10s %6d %9.2f %9.2f %7.2f %12.2f %7.2f\n' "$spec" "$rounds" "$n" "$l" \
		"$(awk -v a="$l" -v b="$n" 'BEGIN { print a / b }')" "$c" \
		"$(awk -v a="$c" -v b="$n" 'BEGIN { print a / b }')"
	echo "  naive runs: $(tr '\n' ' ' <"$tmp/n")" >&2
	echo "  lab runs (to runner, whole command): $(tr '\n' ',' <"$tmp/l")" >&2
done
