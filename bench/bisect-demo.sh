#!/bin/bash
# bisect-demo.sh - lab bisect on a real kernel history: Debian's
# linux-source-6.1 plus 8 commits (bench/bisect-demo-repo.sh).  Every kernel
# is built through the lab's cache, incrementally (one kept build directory
# and ccache), and booted under TCG.  The first build is a full one (6-10
# minutes on 2 idle cores, more on a loaded machine); the others rebuild what
# a commit changed.  Two variants:
#   migration-cost (default): branch master, whose fifth commit sets the
#     migration cost to 0; the metric is the cost the guest reads (no noise),
#     on 1s2c;
#   wa-idle: branch wa-idle (same tree, same base), whose sixth commit turns
#     WA_IDLE off; the metric is a scheduler decision counted by the kernel,
#     schedstat's ttwu_move_affine (wakeups wake_affine() pulled to the
#     waker's CPU) over 5 hackbench runs a boot, noisy under TCG, on 2s2c2t
#     (the waker's CPU and the previous one share an LLC: 2 cores x 2 threads
#     a socket).
#
#   LAB_CACHE=/work/main/.cache bench/bisect-demo.sh [DEMO_DIR]
#   VARIANT=wa-idle MAX_RUNS=10 LAB_CACHE=/work/main/.cache bench/bisect-demo.sh [DEMO_DIR]
#   VARIANT=wa-idle RESUME=DIR bench/bisect-demo.sh [DEMO_DIR]   goes on with a stopped one
# Prints lab bisect's result, the steps (boots, p values) and one line: the
# named commit, builds, boots and wall time, with the host's load before and
# after.  Exit 0 when the named commit is the demo commit, 1 when not, 2 when
# it could not run or lab bisect was stopped before the end (RESUME=DIR goes on).
set -u
cd "$(dirname "$0")/.." || exit 2
LAB=${LAB:-./lab}
DEMO=${1:-${LAB_CACHE:-.cache}/bisect-demo}
REPO=$DEMO/linux
OUT=${RESUME:-$DEMO/bisect-$(date +%Y%m%d-%H%M%S)}

die() { echo "bisect-demo: $*" >&2; exit 2; }
mkdir -p "$DEMO" || die "cannot create $DEMO"
VARIANT=${VARIANT:-migration-cost}
case $VARIANT in
migration-cost)
	branch=master topo=1s2c scenario=bench/scenarios/bisect-migration-cost.ini
	metric=bisect-migration-cost:migration_cost_ns grep='^sched/fair: migration cost 0' ;;
wa-idle)
	branch=wa-idle topo=2s2c2t scenario=bench/scenarios/bisect-wakeup.ini
	metric=bisect-wakeup:${METRIC:-ttwu_move_affine} grep='^sched/features: WA_IDLE off' ;;
*) die "VARIANT is migration-cost or wa-idle, not '$VARIANT'" ;;
esac
VARIANT=$VARIANT bench/bisect-demo-repo.sh "$REPO" || die "cannot make the demo repository"
culprit=$(git -C "$REPO" log --format=%H --grep="$grep" -1 "$branch")
[ -n "$culprit" ] || die "the demo repository has no demo commit on $branch"

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s)
rc=0
if [ -n "${RESUME:-}" ]; then
	[ -s "$OUT/bisect.json" ] || die "no bisection to resume in $OUT"
	"$LAB" bisect --dir "$OUT" || rc=$?
else
	"$LAB" bisect --ksrc "$REPO" --good "$branch~8" --bad "$branch" --topo "$topo" \
		--scenario "$scenario" --metric "$metric" --max-runs "${MAX_RUNS:-10}" \
		--dir "$OUT" --jobs "${JOBS:-2}" || rc=$?
fi
wall=$(($(date +%s) - start))
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
[ -s "$OUT/bisect.json" ] || die "lab bisect exited $rc and left no bisect.json"
python3 - "$OUT/bisect.json" "$culprit" "$wall" "$load_before" "$load_after" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
named = d.get("first_bad") or "nothing"
if d["phase"] in ("endpoints", "stepping"):
    print("bisect-demo: lab bisect stopped in phase %s after %d boots and %d steps; go on with "
          "RESUME=%s" % (d["phase"], len(d["boots"]), len(d["steps"]), sys.argv[1].rsplit("/", 1)[0]))
    sys.exit(2)
subj = {c["sha"]: c.get("subject", "") for c in d["commits"]}
nan = lambda v: float("nan") if v is None else v
for i, s in enumerate(d["steps"]):
    boots = [b for b in d["boots"] if b["step"] == i + 1]
    print("bisect-demo: step %d %s %s: %s after %d candidate boots (%d in the step), p like good "
          "%.3g, like bad %.3g" % (i + 1, s["sha"][:12], subj.get(s["sha"], ""), s["decision"],
          s["runs"], len(boots), nan(s["p_like_good"]), nan(s["p_like_bad"])))
print("bisect-demo: named %s (%s), the demo commit is %s: %s; %d builds (%.0f s), %d boots, "
      "%d steps, wall %s s (%.0f s over every run of it), load %s before, %s after" % (named[:12],
      d.get("first_bad_subject") or d.get("message"), sys.argv[2][:12],
      "right" if named == sys.argv[2] else "WRONG", d["builds"], d["build_seconds"],
      len(d["boots"]), len(d["steps"]), sys.argv[3], d.get("wall_seconds", 0), sys.argv[4],
      sys.argv[5]))
sys.exit(0 if named == sys.argv[2] else 1)
PY
