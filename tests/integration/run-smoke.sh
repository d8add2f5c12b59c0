# run-smoke - the smoke suite in a small 2-node SMT guest: every scenario
# reports, and the numbers are sane (positive times and bandwidths, ordered
# percentiles, migrations counted, NUMA counters present).
. "$(dirname "$0")/lib.sh"
rc=0
"$LAB" run --topo 2s4c2t,llc=2 --suite smoke --accel tcg >"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"; sed 's/^/stderr: /' "$TMP/err"
run=$(sed -n 's/^results: //p' "$TMP/out")
[ "$rc" -eq 0 ] || fail "lab run exited $rc"
grep -qx 'topology: PASS' "$TMP/out" || fail "topology not verified"
for f in run.json plan.txt records.bin console.log results.jsonl cases.json verdict.json; do
	[ -s "$run/$f" ] || fail "missing $run/$f"
done
python3 - "$run/cases.json" <<'PY' || fail "sanity checks on cases.json"
import json, sys
cases = {c["case"]: c for c in json.load(open(sys.argv[1]))["cases"]}
def metric(case, name, stat="mean"):
    return cases[case]["metrics"][name][stat]
bad = [c for c, v in cases.items() if v["verdict"] not in ("PASS", "SKIP")]
assert not bad, bad
for mode in ("process", "thread"):
    c = "smoke-hackbench/mode=" + mode
    assert metric(c, "time") > 0, c
    assert cases[c]["tasks"]["tasks"] >= 40, cases[c]["tasks"]
    assert cases[c]["tasks"]["nr_migrations"] >= 0
    assert cases[c]["metrics"]["time"]["n"] == 2
for kind in ("wakeup", "request"):
    p = [metric("smoke-schbench", "%s_%s" % (kind, q)) for q in ("p50", "p90", "p99", "p999")]
    assert p == sorted(p) and p[0] > 0, p
for m in ("copy_mb_s", "scale_mb_s", "add_mb_s", "triad_mb_s"):
    assert metric("smoke-stream", m, "hmean") > 0, m
assert metric("smoke-tbench", "mb_s") > 0
assert metric("smoke-netperf", "tps") > 0
assert metric("smoke-iperf", "gbit_s") > 0 and "migrations_per_s" in cases["smoke-iperf"]["metrics"]
assert "migrations" not in cases["smoke-iperf"]["metrics"]
# 2 nodes: the NUMA case runs, and the kernel's NUMA counters were collected
assert cases["smoke-numa"]["verdict"] == "PASS", cases["smoke-numa"]["reason"]
assert "numa_hit" in cases["smoke-numa"]["vmstat_delta"], cases["smoke-numa"]["vmstat_delta"]
assert cases["smoke-hackbench/mode=process"]["schedstat"], "no schedstat delta"
assert metric("smoke-sysbench-cpu", "latency_p95", "median") > 0
print("sane:", len(cases), "cases")
PY
echo ok
