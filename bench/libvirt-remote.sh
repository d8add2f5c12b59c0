#!/bin/bash
# libvirt-remote.sh - what the remote path of the libvirt backend costs:
# `lab boot` of one topology through the QEMU backend, libvirt's local
# socket path (qemu:///system), the pool-and-streams path on the same URI
# (LIBVIRT_REMOTE=1), and the same over qemu+ssh:// to this machine,
# interleaved round by round.  Prints, per path, the guest's boot time to
# the runner as lab boot reports it and the whole command's wall time.
#
# usage: bench/libvirt-remote.sh [ROUNDS] [SPEC]     (default: 3 rounds, 2s2c,llc=1)
set -uo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
spec=${2:-2s2c,llc=1}
TMP=$(mktemp -d /tmp/schedlab-bench.XXXXXX)
export LAB_RESULTS=$TMP/results
skip() { echo "bench: cannot run: $*" >&2; exit 77; }
. tests/integration/lib-sshd.bash
trap 'ssh_stop; libvirtd_down; rm -rf "$TMP"' EXIT
ssh_start >/dev/null
libvirtd_up

paths=(qemu libvirt-socket libvirt-streams libvirt-ssh)
declare -A boot wall
one() {
	local path=$1 t0 t1 out
	local -a args=(boot "$spec" --accel tcg --timeout 120)
	case $path in
	qemu) ;;
	libvirt-socket) args+=(--backend libvirt --uri qemu:///system) ;;
	libvirt-streams) args+=(--backend libvirt --uri qemu:///system) ;;
	libvirt-ssh) args+=(--backend libvirt --uri "$SSH_URI") ;;
	esac
	t0=$(date +%s.%N)
	if [ "$path" = libvirt-streams ]; then
		out=$(LIBVIRT_REMOTE=1 ./lab "${args[@]}" </dev/null 2>&1)
	else
		out=$(./lab "${args[@]}" </dev/null 2>&1)
	fi
	t1=$(date +%s.%N)
	grep -qx 'topology: PASS' <<<"$out" || { echo "$path: no PASS:"; echo "$out"; exit 1; }
	boot[$path]+=" $(sed -n 's/^boot: \([0-9.]*\) s to the runner.*/\1/p' <<<"$out")"
	wall[$path]+=" $(echo "$t1 - $t0" | bc -l)"
}
for r in $(seq "$rounds"); do
	for p in "${paths[@]}"; do
		one "$p"
	done
done
stats() { python3 -c 'import sys,statistics as s; v=[float(x) for x in sys.argv[1:]]; print("mean %5.2f s  min %5.2f  max %5.2f" % (s.mean(v), min(v), max(v)))' $1; }
echo "lab boot $spec, $rounds rounds, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for p in "${paths[@]}"; do
	printf '%-16s boot to runner: %s   whole lab boot: %s\n' "$p" "$(stats "${boot[$p]}")" "$(stats "${wall[$p]}")"
done
