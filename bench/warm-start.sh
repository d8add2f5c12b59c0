#!/bin/bash
# warm-start.sh - what a warm start saves: time from `lab run` to the first
# case, warm (restored guest) against cold (boot + verification), taken in
# alternating rounds, and the snapshot's size against the guest's RAM.
#
# usage: bench/warm-start.sh [ROUNDS] [SPEC...]   (default: 3 rounds, 1s4c2t and 2s64c;
#                                                  BENCH_TIMEOUT=S: S seconds for each run)
#        bench/warm-start.sh aa [N]                A/A: N warm and N cold smoke runs on
#                                                  2s2c2t (default 5), lab compare of the pools
#        bench/warm-start.sh repeat [N] [SPEC]    N restores (default 6) of one saved virtual-clock
#                                                  guest (default 2s2c) with one seed: their
#                                                  decide-hackbench times, which must be identical
#                                                  (a restore takes no input from the host)
#        BACKEND=libvirt bench/warm-start.sh [ROUNDS] [SPEC...]
#                                                  the same through libvirt (qemu:///system or
#                                                  LIBVIRT_URI; default specs 1s4c2t and 2s2c2t):
#                                                  libvirt's save and restore against its cold boot
#
# Snapshots go into a private cache (kernels and initrds are shared with
# $LAB_CACHE), so the first --warm run of each SPEC boots and saves; its
# save time and the snapshot size are shown.  Every later run is measured:
# "first case" is verdict.json's wall_to_first_case_s, from the command's
# start (scenario compiled, kernel found, QEMU started or restored) to the
# first case_start record.  Both sides run one short case (smoke-exec).
# A warm run's time is split as verdict.json's warm_phases does (median of
# each part): start (QEMU started, the stream loaded) and plan (plan sent
# to the first case).  Every line ends with the host's load average.
set -euo pipefail
cd "$(dirname "$0")/.."

tmp=$(mktemp -d /tmp/schedlab-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export LAB_RESULTS=$tmp/results
shared=${LAB_CACHE:-$PWD/.cache}
mkdir -p "$tmp/cache" "$shared/kernels" "$shared/initrd"
ln -s "$shared/kernels" "$tmp/cache/kernels"
ln -s "$shared/initrd" "$tmp/cache/initrd"
export LAB_CACHE=$tmp/cache
backend=(--backend "${BACKEND:-qemu}")
# libvirt's QEMU (another user) reaches the run's files under the cache
[ "${BACKEND:-qemu}" = qemu ] || chmod 711 "$tmp"

json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {"d": d}))' "$1" "$2"; }

# one SPEC SCENARIO|SUITE ARGS...: a lab run that must pass; its run directory on stdout
# (a TCG boot on a host loaded far beyond its cores now and then panics in
# the kernel's early timer check: such a run is shown and taken once more)
one() {
	local spec=$1 what=$2 rc kind=--scenario try
	shift 2
	case $what in *.ini) ;; *) kind=--suite ;; esac
	# a 2s64c boot on a host loaded far beyond its cores can outlast the
	# default deadline: BENCH_TIMEOUT=S gives every run S seconds
	[ -z "${BENCH_TIMEOUT:-}" ] || set -- "$@" --timeout "$BENCH_TIMEOUT"
	for try in 1 2; do
		rc=0
		./lab run --topo "$spec" "$kind" "$what" --accel tcg --quiet "${backend[@]}" "$@" \
			>"$tmp/out" 2>"$tmp/err" || rc=$?
		[ "$rc" -eq 0 ] && break
		echo "lab run $spec $* exited $rc (attempt $try): $(grep '^verdict:' "$tmp/out")" >&2
	done
	[ "$rc" -eq 0 ] || return 1
	sed -n 's/^results: //p' "$tmp/out"
}

load() { cut -d' ' -f1-3 /proc/loadavg; }

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

timing() {
	local rounds=$1 spec run key snap i
	shift
	for spec in "$@"; do
		run=$(one "$spec" scenarios/smoke-exec.ini --warm)
		[ "$(json "$run/run.json" 'd["start"]')" = cold ] || { echo "first --warm run of $spec was not cold" >&2; return 1; }
		key=$(json "$run/run.json" 'd["snapshot"]')
		snap=$LAB_CACHE/snapshots/$key
		python3 - "$snap" "$spec" <<'PY'
import json, os, sys
snap, spec = sys.argv[1], sys.argv[2]
m = json.load(open(snap + "/meta.json"))
size = sum(os.stat(os.path.join(snap, f)).st_blocks * 512 for f in os.listdir(snap))
ram = m["guest_ram_mib"] << 20
print("%-8s snapshot %s: %.1f MiB on disk for %d MiB of guest RAM = %.1f %% (saved in %.1f s)" %
      (spec, m["key"][:12], size / 2**20, m["guest_ram_mib"], 100.0 * size / ram, m["save_s"]))
if "libvirt_image_bytes" in m:
    raw = m["libvirt_image_bytes"]
    print("%-8s libvirt's save image before zstd: %.1f MiB = %.1f %% of guest RAM" %
          (spec, raw / 2**20, 100.0 * raw / ram))
PY
		: >"$tmp/cold" && : >"$tmp/warm" && : >"$tmp/start" && : >"$tmp/plan"
		for i in $(seq "$rounds"); do
			# alternating, so a busy host weighs on both sides alike
			for side in cold warm; do
				if [ $side = warm ]; then
					run=$(one "$spec" scenarios/smoke-exec.ini --warm)
					[ "$(json "$run/run.json" 'd["start"]')" = warm ] || { echo "round $i of $spec did not restore" >&2; return 1; }
					json "$run/verdict.json" 'd["warm_phases"]["start_s"]' >>"$tmp/start"
					json "$run/verdict.json" 'd["warm_phases"]["plan_to_first_case_s"]' >>"$tmp/plan"
				else
					run=$(one "$spec" scenarios/smoke-exec.ini --cold)
				fi
				json "$run/verdict.json" 'd["wall_to_first_case_s"]' >>"$tmp/$side"
			done
		done
		c=$(median <"$tmp/cold"); w=$(median <"$tmp/warm")
		printf '%-8s first case: cold %s s (%s), warm %s s (%s): %.1fx faster (median of %d); load %s\n' \
			"$spec" "$c" "$(paste -sd' ' "$tmp/cold")" "$w" "$(paste -sd' ' "$tmp/warm")" \
			"$(awk -v c="$c" -v w="$w" 'BEGIN { print c / w }')" "$rounds" "$(load)"
		printf '%-8s warm: start (QEMU + stream loaded) %s s, plan to first case %s s (medians)\n' \
			"$spec" "$(median <"$tmp/start")" "$(median <"$tmp/plan")"
	done
}

aa() {
	local n=$1 i cold=() warm=() run rc=0
	one 2s2c2t smoke --warm >/dev/null	# boots and saves
	for i in $(seq "$n"); do
		cold+=("$(one 2s2c2t smoke --cold)")
		run=$(one 2s2c2t smoke --warm)
		[ "$(json "$run/run.json" 'd["start"]')" = warm ] || { echo "aa run $i did not restore" >&2; return 1; }
		warm+=("$run")
	done
	./lab compare --label cold --label warm --json "$(IFS=+; echo "${cold[*]}")" \
		"$(IFS=+; echo "${warm[*]}")" >"$tmp/aa.json" 2>"$tmp/aa.err" || rc=$?
	[ "$rc" -le 1 ] || { cat "$tmp/aa.err" >&2; return 1; }
	python3 - "$tmp/aa.json" "$n" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
flagged = [r for r in rows if r["verdict"] in ("improvement", "regression")]
print("A/A 2s2c2t smoke, %s cold vs %s warm runs pooled: %d rows, %d flagged (%.1f %%)" %
      (sys.argv[2], sys.argv[2], len(rows), len(flagged), 100.0 * len(flagged) / max(1, len(rows))))
for r in flagged:
    print("  flagged %s %s: %s, ratio %.3f" % (r["case"], r["metric"], r["verdict"], r["test"]["normalized"]))
PY
}

repeat() {
	local n=$1 spec=$2 i run vals=()
	one "$spec" scenarios/bench/decide-hackbench.ini --clock virtual --warm --seed 1 >/dev/null
	for i in $(seq "$n"); do
		run=$(one "$spec" scenarios/bench/decide-hackbench.ini --clock virtual --warm --seed 1)
		[ "$(json "$run/run.json" 'd["start"]')" = warm ] || { echo "restore $i did not restore" >&2; return 1; }
		vals+=("$(json "$run/cases.json" 'repr(d["cases"][0]["metrics"]["time"]["mean"])')")
		echo "$spec restore $i, seed 1: decide-hackbench $(json "$run/cases.json" 'd["cases"][0]["metrics"]["time"]["mean"]') s; load $(load)"
	done
	printf '%s\n' "${vals[@]}" | sort -u | wc -l | sed "s/^/$spec: $n restores with one seed, distinct values: /"
}

if [ "${1:-}" = aa ]; then
	aa "${2:-5}"
elif [ "${1:-}" = repeat ]; then
	shared_qemu=$shared/qemu
	[ -d "$shared_qemu" ] && ln -s "$shared_qemu" "$tmp/cache/qemu"
	[ -d "$shared/apt" ] && ln -s "$shared/apt" "$tmp/cache/apt"
	repeat "${2:-6}" "${3:-2s2c}"
else
	rounds=${1:-3}
	shift || true
	if [ $# -eq 0 ] && [ "${BACKEND:-qemu}" != qemu ]; then
		set -- 1s4c2t 2s2c2t
	fi
	[ $# -gt 0 ] || set -- 1s4c2t 2s64c
	echo "backend ${BACKEND:-qemu}"
	timing "$rounds" "$@"
fi
