#!/bin/bash
# bisect-demo.sh - lab bisect on a real kernel history: Debian's
# linux-source-6.1 plus 8 commits (bench/bisect-demo-repo.sh), the fifth of
# which sets the scheduler's migration cost to 0.  Every kernel is built
# through the lab's cache, incrementally (one kept build directory and
# ccache), and booted on 1s2c under TCG; the metric is the migration cost
# the guest reads.  The first build is a full one (6-10 minutes on 2 idle
# cores, more on a loaded machine); the others rebuild what a commit changed.
#
#   LAB_CACHE=/work/main/.cache bench/bisect-demo.sh [DEMO_DIR]
# Prints lab bisect's result and one line: the named commit, builds, boots
# and wall time.  Exit 0 when the named commit is the demo commit, 1 when
# not, 2 when it could not run.
set -u
cd "$(dirname "$0")/.." || exit 2
LAB=${LAB:-./lab}
DEMO=${1:-${LAB_CACHE:-.cache}/bisect-demo}
REPO=$DEMO/linux
OUT=$DEMO/bisect-$(date +%Y%m%d-%H%M%S)

die() { echo "bisect-demo: $*" >&2; exit 2; }
mkdir -p "$DEMO" || die "cannot create $DEMO"
bench/bisect-demo-repo.sh "$REPO" || die "cannot make the demo repository"
culprit=$(git -C "$REPO" log --format=%H --grep='^sched/fair: migration cost 0' -1)
[ -n "$culprit" ] || die "the demo repository has no demo commit"

start=$(date +%s)
rc=0
"$LAB" bisect --ksrc "$REPO" --good HEAD~8 --bad HEAD --topo 1s2c \
	--scenario bench/scenarios/bisect-migration-cost.ini \
	--metric bisect-migration-cost:migration_cost_ns --dir "$OUT" --jobs "${JOBS:-2}" || rc=$?
wall=$(($(date +%s) - start))
[ -s "$OUT/bisect.json" ] || die "lab bisect exited $rc and left no bisect.json"
python3 - "$OUT/bisect.json" "$culprit" "$wall" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
named = d.get("first_bad") or "nothing"
print("bisect-demo: named %s (%s), the demo commit is %s: %s; %d builds (%.0f s), %d boots, "
      "%d steps, wall %s s" % (named[:12], d.get("first_bad_subject") or d.get("message"),
      sys.argv[2][:12], "right" if named == sys.argv[2] else "WRONG", d["builds"],
      d["build_seconds"], len(d["boots"]), len(d["steps"]), sys.argv[3]))
sys.exit(0 if named == sys.argv[2] else 1)
PY
