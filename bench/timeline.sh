#!/bin/bash
# timeline.sh - issue 15's page budget: the timeline page of a hackbench
# case on 2s8c2t (32 CPUs) stays under 5 MB and opens in headless Chromium
# in under 2 s.  One traced run (TCG), `lab trace`, then Chromium loads the
# timeline page and a blank page alternately (TL_LOADS times each): the
# page's load time is the median difference, so Chromium's own start-up
# is not counted.  Also prints trace.dat and trace.json sizes and the time
# `lab trace` took.  Exit 0 when both budgets hold, 1 otherwise, 77 without
# chromium or trace-cmd.
#
#   bench/timeline.sh                        2s8c2t, hackbench 2 groups x 100 loops
#   TL_TOPO=2s2c TL_LOADS=3 bench/timeline.sh   a quicker look
#   TL_RUN=results/<run> bench/timeline.sh   reuse a traced run
#   KEEP=1 ...                               keep the run directory
set -u
cd "$(dirname "$0")/.." || exit 2

LAB=${LAB:-./lab}
TOPO=${TL_TOPO:-2s8c2t}
LOADS=${TL_LOADS:-5}
TMP=$(mktemp -d /tmp/timeline-bench.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$TMP"' EXIT
command -v chromium >/dev/null || { echo "chromium is not installed" >&2; exit 77; }

run=${TL_RUN:-}
if [ -z "$run" ]; then
	cat >"$TMP/tl.ini" <<'EOF'
[scenario]
name = tl-hackbench
description = bench: one traced hackbench run for the timeline page
workload = hackbench
runs = 1
warmup = 0
deadline = 600
counters = schedtrace

[params]
groups = 2
loops = 100
mode = process
ipc = socket

[metric time]
better = lower
statistic = amean
unit = s
EOF
	export LAB_RESULTS=$TMP/results
	# a FAIL verdict (32 vCPUs under single-threaded TCG on a busy host can
	# give RCU stall splats) still leaves the trace to look at
	"$LAB" run --topo "$TOPO" --kernel debian --scenario "$TMP/tl.ini" --accel tcg \
		>"$TMP/out" 2>"$TMP/err"
	run=$(sed -n 's/^results: //p' "$TMP/out")
	[ -n "$run" ] && [ -d "$run/trace" ] || { cat "$TMP/out" "$TMP/err"; exit 1; }
	grep '^PASS\|^FAIL\|^verdict' "$TMP/out"
fi
t0=$(date +%s.%N)
"$LAB" trace --top 3 "$run" >"$TMP/trace" || { cat "$TMP/trace"; exit 1; }
t1=$(date +%s.%N)
cat "$TMP/trace"
page=$(sed -n 's/^  timeline.html  //p' "$TMP/trace" | head -1)
dir=$(dirname "$page")
echo '<!DOCTYPE html><html><body></body></html>' >"$TMP/blank.html"

load() {
	local a b
	a=$(date +%s%N)
	timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--window-size=1800,900 --screenshot="$TMP/shot.png" "file://$1" >/dev/null 2>&1
	b=$(date +%s%N)
	echo $(( (b - a) / 1000000 ))
}
diffs=()
for i in $(seq "$LOADS"); do
	p=$(load "$page")
	q=$(load "$TMP/blank.html")
	diffs+=($((p - q)))
	echo "load $i: timeline $p ms, blank $q ms"
done
median=$(printf '%s\n' "${diffs[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
size=$(stat -c %s "$page")
printf 'topology %s: timeline.html %.2f MB, trace.dat %.2f MB, trace.json %.2f MB, lab trace %.2f s\n' \
	"$TOPO" "$(echo "$size / 1048576" | bc -l)" \
	"$(echo "$(stat -c %s "$dir/trace.dat") / 1048576" | bc -l)" \
	"$(echo "$(stat -c %s "$dir/trace.json") / 1048576" | bc -l)" "$(echo "$t1 - $t0" | bc -l)"
echo "page load in headless chromium (median of $LOADS, minus a blank page): $median ms"
ok=0
[ "$size" -lt 5242880 ] || { echo "over the 5 MB budget"; ok=1; }
[ "$median" -lt 2000 ] || { echo "over the 2 s budget"; ok=1; }
exit $ok
