#!/bin/bash
# migration-cost.sh - is the demo patch (kernel-patches/0001-sched-fair-demo-
# migration-cost-0.patch) visible in task migrations, and reliably so?  Boots
# the baseline and the patched kernel in turn, ROUNDS times each, runs
# bench/scenarios/migration-cost.ini (hackbench, 3 runs per boot) and prints
# per boot the mean task migrations, cache-hot refusals of the load balancer
# (nr_failed_migrations_hot), wakeup migrations and time per run, then
# the range of each kernel and whether the ranges are apart.
#
# usage: bench/migration-cost.sh BASE_KERNEL PATCHED_KERNEL [ROUNDS] [TOPO]
#        (kernels: keys from lab kernel build; defaults: 4 rounds, 1s4c2t,llc=2)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: $0 BASE_KERNEL PATCHED_KERNEL [ROUNDS] [TOPO]" >&2; exit 2; }
base=$1 patched=$2 rounds=${3:-4} topo=${4:-1s4c2t,llc=2}
tmp=$(mktemp -d /tmp/schedlab-migcost.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

for r in $(seq 1 "$rounds"); do
	for k in "$base" "$patched"; do
		./lab run --topo "$topo" --scenario bench/scenarios/migration-cost.ini --kernel "$k" \
			--accel tcg --results "$tmp/$k" >"$tmp/out" 2>&1 || { cat "$tmp/out"; exit 1; }
		run=$(sed -n 's/^results: //p' "$tmp/out")
		python3 - "$run/cases.json" "$k" "$r" <<'PY' | tee -a "$tmp/rows"
import json, sys
c = json.load(open(sys.argv[1]))["cases"][0]
t = c["tasks"]
print("%s round %s  migrations/run %7.1f  failed_hot/run %7.1f  wakeups_migrate/run %6.1f"
      "  time %.3f s" % (sys.argv[2], sys.argv[3], t["nr_migrations"],
                         t.get("nr_failed_migrations_hot", float("nan")),
                         t["nr_wakeups_migrate"], c["metrics"]["time"]["mean"]))
PY
	done
done
python3 - "$tmp/rows" "$base" "$patched" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1])]
for name, col in (("migrations/run", 4), ("failed_hot/run", 6)):
    v = {k: [float(r[col]) for r in rows if r[0] == k] for k in sys.argv[2:]}
    b, p = v[sys.argv[2]], v[sys.argv[3]]
    print("%s: baseline %.1f..%.1f, patched %.1f..%.1f: %s" % (
        name, min(b), max(b), min(p), max(p),
        "apart, patched higher" if min(p) > max(b) else
        "apart, patched lower" if max(p) < min(b) else "overlapping"))
PY
