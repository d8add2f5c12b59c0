#!/bin/bash
# runner-overhead.sh - the runner's own CPU time while workloads run, as a
# share of one CPU: the same runner binary and plan path as in a guest,
# here on the host (a TCG guest would only slow everything alike).
#
# usage: bench/runner-overhead.sh        (target: < 1 % of one CPU)
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d /tmp/schedlab-overhead.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
for s in bench/scenarios/overhead*.ini; do
	name=$(basename "$s" .ini)
	mkdir -p "$tmp/$name"
	./lab scenarios --plan "$s" >"$tmp/$name/plan.txt"
	build/guest/runner --plan "$tmp/$name/plan.txt" --out "$tmp/$name/records.bin" --no-snapshot
	: >"$tmp/$name/console.log"
	./lab report "$tmp/$name" >/dev/null
	python3 - "$tmp/$name/cases.json" <<'PY'
import json, sys
for c in json.load(open(sys.argv[1]))["cases"]:
    print("%-22s verdict %-4s measured %6.2f s  runner cpu %.4f s  = %.3f %% of one CPU" % (
        c["case"], c["verdict"], c["measured_s"],
        c["runner_cpu_s"], c["runner_cpu_pct"]))
PY
done
