#!/bin/bash
# tcg-stale-int3.sh - QEMU 7.2's multi-threaded TCG running a stale
# translation of kernel text the guest live-patched, without the lab: for a
# QEMU or kernel developer (docs/tcg.md).  Boots KERNEL with no initrd, so
# each boot ends in the VFS panic after the late initcalls (where the
# sched_clock keys flip), under thread=multi and thread=single alternately,
# and counts the boots that died of an int3 or hung first.
#
# usage: bench/tcg-stale-int3.sh KERNEL [BOOTS] [SMP]
#        (default: 20 boots each way, -smp 8,sockets=2,cores=4)
#
# A 7.2 kernel (Debian 7.2.13) dies "Oops: int3: 0000 [#1]" at a static
# branch site that memory already holds patched (RIP +1 past it, "Code:"
# shows the new bytes); 6.1 hangs there instead.
set -uo pipefail

kernel=${1:?usage: $0 KERNEL [BOOTS] [SMP]}
boots=${2:-20}
smp=${3:-8,sockets=2,cores=4}
qemu=${LAB_QEMU:-qemu-system-x86_64}
out=$(mktemp -d /tmp/tcg-stale-int3.XXXXXX)
trap 'rm -rf "$out"' EXIT

declare -A int3 hung ok
for ((i = 1; i <= boots; i++)); do
	for t in multi single; do
		log=$out/$t-$i.log
		# the command line a lab guest gets under TCG (host-tools/run/labrun.c)
		timeout 120 "$qemu" -nodefaults -no-user-config -display none -no-reboot \
			-machine q35 -accel tcg,thread=$t -cpu max,vendor=GenuineIntel \
			-smp "$smp" -m 1G -kernel "$kernel" -serial "file:$log" \
			-append "console=ttyS0 loglevel=5 panic=-1 tsc=reliable cpu_init_udelay=0 pti=off" \
			>/dev/null 2>&1
		rc=$?
		if grep -q 'int3: 0000 \[#1\]' "$log"; then
			int3[$t]=$(( ${int3[$t]:-0} + 1 ))
			what="int3 at $(sed -n 's/.*RIP: 0010:\([^ ]*\).*/\1/p' "$log" | head -1)"
		elif [ $rc -eq 124 ]; then
			hung[$t]=$(( ${hung[$t]:-0} + 1 ))
			what="hung (no panic within 120 s)"
		else
			ok[$t]=$(( ${ok[$t]:-0} + 1 ))
			what="reached the VFS panic"
		fi
		printf 'boot %2d thread=%-6s %s\n' "$i" "$t" "$what"
	done
done
for t in multi single; do
	printf 'thread=%-6s %d of %d boots died of an int3, %d hung\n' "$t" "${int3[$t]:-0}" \
		"$boots" "${hung[$t]:-0}"
done
