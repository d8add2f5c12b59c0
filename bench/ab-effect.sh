#!/bin/bash
# ab-effect.sh - how soon lab ab --until-decided finds a change whose size
# is known, and what it says when there is none.  One kernel on both
# sides; the test side gets hackbench's `work` (xorshift steps a receiver
# takes per message: lab ab --test-param), so the change is made, not
# hoped for.
#
#   1. Calibration: for each work value, a fixed-round lab ab (CAL rounds
#      of ABBA) measures the change it makes, with its 95 % interval: the
#      "known" effect the experiments are held against.
#   2. Experiments: N times per work value, lab ab --until-decided (effect
#      +-2 %, at most MAXR rounds, BUDGET): the decision, its round, its
#      wall time, and whether its interval covers the calibrated change.
#   3. A/A: NAA times the same without --test-param: rows flagged changed
#      (should be at most 5 %), and the time until "= within +-2 %".
#
#   bench/ab-effect.sh                       2s8c2t, debian, works 15 and 28,
#                                            10 experiments each, 20 A/A
#   N=3 NAA=5 CAL=3 bench/ab-effect.sh       a shorter look
#   WORKS="28" NAA=0 ...                     one effect, no A/A
#   WORKS="variant:sched_feat=NO_X" ...      a scheduler variant as the effect
#                                            (lab ab --test-variant): warm, the
#                                            test side sets it after restoring
#                                            the guest both sides share
#   SEED=5001 ...                            experiments seeded apart from an
#                                            earlier run's (default 1)
#   START=cold ...                           seeded cold boots instead of warm
#                                            restores (each experiment has
#                                            seeds of its own either way)
#
# Every lab ab runs on the virtual clock with the lab's default --jobs
# (JOBS= to set it); wall times depend on what else the host runs, and the
# load average at each experiment's end is printed beside it.
set -euo pipefail
cd "$(dirname "$0")/.."

TOPO=${TOPO:-2s8c2t}
KERNEL=${KERNEL:-debian}
SUITE=${SUITE:-ab-decide}
CASE=${CASE:-decide-hackbench}
WORKS=${WORKS:-15 28}
N=${N:-10}
NAA=${NAA:-20}
CAL=${CAL:-4}
MAXR=${MAXR:-20}
BUDGET=${BUDGET:-30m}
START=${START:-warm}
JOBS=${JOBS:-}
tmp=${OUT:-$(mktemp -d /tmp/schedlab-abeffect.XXXXXX)}
mkdir -p "$tmp"
export LAB_RESULTS=$tmp/results
LAB=${LAB:-./lab}
jobs_arg=()
[ -z "$JOBS" ] || jobs_arg=(--jobs "$JOBS")
echo "ab-effect: $TOPO, $KERNEL on both sides, $CASE, works '$WORKS', $N experiments each, $NAA A/A," \
	"calibration $CAL rounds, start $START; everything in $tmp"

# a warm start needs its saved guest: made here, not in the first measured ab
[ "$START" = cold ] || "$LAB" run --topo "$TOPO" --kernel "$KERNEL" --suite "$SUITE" --clock virtual --warm \
	>"$tmp/prewarm.log" 2>&1 || { tail -5 "$tmp/prewarm.log"; echo "ab-effect: the warm-up run failed" >&2; exit 1; }

# SEED: the first experiment's seed (another value adds experiments
# independent of an earlier run's)
seed=${SEED:-1}
# ab KIND WORK ARGS...: one lab ab; appends "KIND WORK DIR EXIT WALL LOAD" to $tmp/runs
ab() {
	local kind=$1 work=$2 rc=0 t0 t1 dir start=()
	shift 2
	local param=()
	case $work in
	0) ;;
	variant:*) param=(--test-variant "${work#variant:}") ;;
	*) param=(--test-param "$CASE:work=$work") ;;
	esac
	# another experiment, other seeds: lab ab seeds boot i with --seed
	# N+i-1, cold boots and warm restores alike
	start=("--$START" --seed "$seed")
	seed=$((seed + 200))
	t0=$(date +%s.%N)
	"$LAB" ab --topo "$TOPO" --base "$KERNEL" --test "$KERNEL" --suite "$SUITE" --clock virtual \
		"${start[@]}" "${param[@]}" "${jobs_arg[@]}" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	t1=$(date +%s.%N)
	dir=$(sed -n 's/^ab: directory //p' "$tmp/out")
	[ -f "$dir/decisions.json" ] || { tail -5 "$tmp/err"; echo "ab-effect: lab ab made no decisions.json" >&2; exit 1; }
	echo "$kind $work $dir $rc $(echo "$t1 - $t0" | bc) $(cut -d' ' -f1 /proc/loadavg)" >>"$tmp/runs"
	python3 - "$dir" "$kind" "$work" "$(echo "$t1 - $t0" | bc)" <<'PY'
import json, os, sys
d, kind, work, wall = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
r = json.load(open(os.path.join(d, "decisions.json")))["rows"][0]
print(f"  {kind:5} work={work:>3}: {r['state']:9} at round {r['decided_at']:2}, "
      f"{100 * r['change']:+6.2f}% [{100 * r['ci_lo']:+6.2f}, {100 * r['ci_hi']:+6.2f}], {wall:5.0f} s wall",
      flush=True)
PY
}

: >"$tmp/runs"
echo "calibration: $CAL fixed rounds a work value"
for w in $WORKS; do
	ab cal "$w" --rounds "$CAL"
done
for w in $WORKS; do
	echo "experiments: work=$w, until decided"
	for _ in $(seq "$N"); do
		ab exp "$w" --until-decided --effect 2% --max-rounds "$MAXR" --budget "$BUDGET"
	done
done
if [ "$NAA" -gt 0 ]; then
	echo "A/A: until decided"
	for _ in $(seq "$NAA"); do
		ab aa 0 --until-decided --effect 2% --max-rounds "$MAXR" --budget "$BUDGET"
	done
fi

python3 - "$tmp/runs" <<'PY'
import json, os, statistics, sys

rows = []
for line in open(sys.argv[1]):
    kind, work, d, rc, wall, load = line.split()
    r = json.load(open(os.path.join(d, "decisions.json")))["rows"][0]
    ab = json.load(open(os.path.join(d, "ab.json")))
    rows.append(dict(kind=kind, work=work, rc=int(rc), wall=float(wall), load=float(load), r=r,
                     boots=len(ab["boots"])))

cal = {x["work"]: x["r"] for x in rows if x["kind"] == "cal"}
print()
print("calibration (the known effects):")
for w, r in cal.items():
    print(f"  work={w}: {100 * r['change']:+.2f}% [{100 * r['ci_lo']:+.2f}, {100 * r['ci_hi']:+.2f}] "
          f"over {r['boots_base']}+{r['boots_test']} boots")

def summary(xs, label):
    if not xs:
        return
    walls = sorted(x["wall"] for x in xs)
    states = [x["r"]["state"] for x in xs]
    rounds = [x["r"]["decided_at"] for x in xs if x["r"]["state"] != "open"]
    print(f"  {label}: {len(xs)} experiments; " +
          ", ".join(f"{s} {states.count(s)}" for s in sorted(set(states))))
    print(f"    wall: median {statistics.median(walls) / 60:.1f} min, worst {walls[-1] / 60:.1f} min; "
          f"rounds: median {statistics.median(rounds) if rounds else 0:g}, worst {max(rounds) if rounds else 0}; "
          f"load at the ends {min(x['load'] for x in xs):.1f}..{max(x['load'] for x in xs):.1f}")

print("until decided:")
for w in sorted({x["work"] for x in rows if x["kind"] == "exp"}):
    xs = [x for x in rows if x["kind"] == "exp" and x["work"] == w]
    summary(xs, f"work={w}")
    if w in cal:
        c = cal[w]["change"]
        cover = sum(1 for x in xs if x["r"]["ci_lo"] <= c <= x["r"]["ci_hi"])
        ests = [100 * x["r"]["change"] for x in xs]
        print(f"    the calibrated {100 * c:+.2f}% inside the interval in {cover} of {len(xs)}; "
              f"estimates {min(ests):+.2f}% .. {max(ests):+.2f}%")
aa = [x for x in rows if x["kind"] == "aa"]
if aa:
    summary(aa, "A/A")
    flagged = sum(1 for x in aa if x["r"]["state"] == "changed")
    same = [x["wall"] for x in aa if x["r"]["state"] == "same"]
    print(f"    flagged changed: {flagged} of {len(aa)} ({100 * flagged / len(aa):.0f} %); "
          f"'= within +-2%' in {len(same)}, median {statistics.median(same) / 60 if same else 0:.1f} min")
PY
