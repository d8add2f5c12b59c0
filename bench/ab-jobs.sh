#!/bin/bash
# ab-jobs.sh - lab ab --jobs 2 against --jobs 1 on the virtual clock: the
# same A/B twice, one guest at a time and two, side by side in one run.
# Prints each boot's primary value under both (and their difference), the
# decisions of both, and the wall time of each.  Under icount a seeded
# guest's results do not depend on the host, cold boots and warm restores
# alike, so every boot's value must be the same to the digit and the
# decisions identical.
#
#   bench/ab-jobs.sh                      2s8c2t, debian:6.1 against debian:7.2,
#                                         suite ab-decide, until decided (at most
#                                         3 rounds, effect 2%), warm start
#   TOPO=1s4c BASE=debian TEST=debian MAXR=2 bench/ab-jobs.sh
#   JOBS="1 2 3" ...                      more settings, each against the first
#   START=cold TOPO=1s1c ...              seeded cold boots instead of restores
set -euo pipefail
cd "$(dirname "$0")/.."

TOPO=${TOPO:-2s8c2t}
BASE=${BASE:-debian:6.1}
TEST=${TEST:-debian:7.2}
SUITE=${SUITE:-ab-decide}
MAXR=${MAXR:-3}
JOBS=${JOBS:-1 2}
START=${START:-warm}
tmp=$(mktemp -d /tmp/schedlab-abjobs.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
export LAB_RESULTS=$tmp/results
LAB=${LAB:-./lab}

# a warm start needs its saved guest: made here, not in the first measured ab
[ "$START" = warm ] && for k in "$BASE" "$TEST"; do
	"$LAB" run --topo "$TOPO" --kernel "$k" --suite "$SUITE" --clock virtual --warm >"$tmp/prewarm.log" 2>&1 ||
		{ tail -5 "$tmp/prewarm.log"; echo "ab-jobs: the warm-up run of $k failed" >&2; exit 1; }
done

for j in $JOBS; do
	t0=$(date +%s.%N)
	rc=0
	"$LAB" ab --topo "$TOPO" --base "$BASE" --test "$TEST" --suite "$SUITE" --clock virtual "--$START" \
		--until-decided --max-rounds "$MAXR" --budget 2h --jobs "$j" >"$tmp/out-$j" 2>"$tmp/err-$j" || rc=$?
	t1=$(date +%s.%N)
	dir=$(sed -n 's/^ab: directory //p' "$tmp/out-$j")
	[ -f "$dir/ab.json" ] || { cat "$tmp/err-$j"; echo "ab-jobs: --jobs $j made no ab.json" >&2; exit 1; }
	echo "$j $dir $rc $(echo "$t1 - $t0" | bc) $(cut -d' ' -f1 /proc/loadavg)" >>"$tmp/runs"
	grep '^ab: [0-9]* guests\? at a time' "$tmp/out-$j" || true
done

python3 - "$tmp/runs" <<'PY'
import json, os, sys

runs = [l.split() for l in open(sys.argv[1])]

def boots(d):
    ab = json.load(open(os.path.join(d, "ab.json")))
    out = []
    for b in ab["boots"]:
        vals = {}
        if b.get("run"):
            for c in json.load(open(os.path.join(b["run"], "cases.json")))["cases"]:
                for name, m in c.get("metrics", {}).items():
                    if m.get("declared"):
                        vals[(c["case"], name)] = m["mean"]
        out.append((b["side"], b["round"], b["verdict"], vals))
    return ab, out

def decisions(d):
    x = json.load(open(os.path.join(d, "decisions.json")))
    return [(r["case"], r["metric"], r["state"], r["decided_at"], r["change"]) for r in x["rows"]]

ref_jobs, ref_dir = runs[0][0], runs[0][1]
ref_ab, ref = boots(ref_dir)
for jobs, d, rc, wall, load in runs:
    ab, bs = boots(d)
    print(f"--jobs {jobs}: exit {rc}, {len(bs)} boots, wall {float(wall):.0f} s "
          f"(boots' own seconds {ab['spent_s']:.0f}), load at the end {load}")
    for (case, metric, state, at, change) in decisions(d):
        print(f"  decision {case}:{metric}: {state} at round {at}, change {100 * change:+.2f}%")
worst = 0.0
for jobs, d, rc, wall, load in runs[1:]:
    ab, bs = boots(d)
    print(f"boot by boot, --jobs {ref_jobs} against --jobs {jobs} (value, value, difference):")
    for i, (a, b) in enumerate(zip(ref, bs)):
        for k in sorted(set(a[3]) & set(b[3])):
            va, vb = a[3][k], b[3][k]
            diff = 100 * (vb - va) / va if va else 0.0
            worst = max(worst, abs(diff))
            print(f"  boot {i + 1:2d} {a[0]:4s} r{a[1]} {k[0]}:{k[1]}  {va:.6g}  {vb:.6g}  {diff:+.3f}%")
    same = decisions(ref_dir) == decisions(d) or \
        [x[:4] for x in decisions(ref_dir)] == [x[:4] for x in decisions(d)]
    print(f"  decisions {'the same' if same else 'DIFFER'} (state and round)")
print(f"largest difference of a boot's value: {worst:.3f}%")
# boot by boot is chaos plus the clock's noise; what must agree is each
# side's distribution: mean and between-boot CV, and Welch's t of the means
import math
def side_values(d):
    out = {}
    for side, rnd, verdict, vals in boots(d)[1]:
        for k, v in vals.items():
            out.setdefault((side, k), []).append(v)
    return out
def mcv(x):
    m = sum(x) / len(x)
    sd = math.sqrt(sum((v - m) ** 2 for v in x) / (len(x) - 1)) if len(x) > 1 else 0.0
    return m, sd
ref_sv = side_values(ref_dir)
for jobs, d, rc, wall, load in runs[1:]:
    sv = side_values(d)
    for key in sorted(set(ref_sv) & set(sv)):
        a, b = ref_sv[key], sv[key]
        (ma, sa), (mb, sb) = mcv(a), mcv(b)
        se = math.sqrt(sa * sa / len(a) + sb * sb / len(b)) if len(a) > 1 and len(b) > 1 else float("nan")
        t = (mb - ma) / se if se and se == se else float("nan")
        print(f"  {key[0]:4s} {key[1][0]}:{key[1][1]}: --jobs {ref_jobs} mean {ma:.6g} (CV {100 * sa / ma:.2f}%, "
              f"{len(a)} boots), --jobs {jobs} mean {mb:.6g} (CV {100 * sb / mb:.2f}%, {len(b)} boots): "
              f"{100 * (mb - ma) / ma:+.2f}%, Welch t {t:.2f}")
PY
