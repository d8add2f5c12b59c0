# sched-trace - the smoke hackbench scenario with the sched tracepoints on,
# in a 2-socket guest: the raw per-CPU pages and format files land under
# trace/, our libtraceevent reader decodes them, and the wakeup placement and migration rows
# are in cases.json with placement shares summing to 100 %, the preemptions
# of the case's own tasks are the kernel's nivcsw of them; a 64 KiB buffer
# loses events, and trace_run_mb = 1 cuts a longer run to its last MiB.
. "$(dirname "$0")/lib.sh"
sed 's/^counters = .*/counters = schedstat tasks schedtrace/; s/^name = smoke-hackbench/name = trace-hackbench/' \
	scenarios/smoke-hackbench.ini >"$TMP/trace.ini"
rc=0
start=$(date +%s)
"$LAB" run --topo 2s2c --kernel debian --scenario "$TMP/trace.ini" --accel tcg \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"; sed 's/^/stderr: /' "$TMP/err"
run=$(sed -n 's/^results: //p' "$TMP/out")
[ "$rc" -eq 0 ] || fail "lab run exited $rc"
echo "wall: $(( $(date +%s) - start )) s, records.bin: $(stat -c %s "$run/records.bin") bytes"
for f in header_page header_event sched_switch sched_waking sched_wakeup_new sched_migrate_task page_size; do
	[ -s "$run/trace/format/$f" ] || fail "missing trace/format/$f"
done
raw=$(ls "$run"/trace/trace-hackbench_mode=process/run0/cpu*.raw 2>/dev/null | wc -l)
[ "$raw" -eq 4 ] || fail "expected 4 cpu*.raw files of run0, found $raw"
# no trace_keep_mb: lab run keeps within the default 4 MiB per case, and
# counts what it dropped (two runs a case: the slowest and the fastest stay)
for m in process thread; do
	grep -q "^trace: trace-hackbench_mode=$m: kept run[01] .*; dropped [01] runs\?, [0-9.]* MiB (budget 4 MiB)\$" "$TMP/out" ||
		fail "lab run did not keep mode=$m's traces within the default budget"
	[ -s "$run/trace/trace-hackbench_mode=$m/kept.json" ] || fail "no kept.json of mode=$m"
done
python3 - "$run/cases.json" <<'PY' || fail "checks on the decision metrics"
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
assert len(cases) == 2, [c["case"] for c in cases]
for c in cases:
    assert c["verdict"] == "PASS", (c["case"], c["reason"])
    m = c["metrics"]
    assert "skip" not in c["schedtrace"], c["schedtrace"]
    assert c["schedtrace"]["wakeups_from"] == "sched_waking", c["schedtrace"]
    assert m["wakeups"]["mean"] > 0, m.get("wakeups")
    share = sum(v["mean"] for k, v in m.items() if k.startswith("wake_") and k.endswith("_pct"))
    assert abs(share - 100) < 0.01, share
    for k in ("migr_smt", "migr_llc", "migr_node", "migr_numa", "trace_lost_events"):
        assert k in m, k
    assert m["migr_smt"]["mean"] == 0, "2s2c has no SMT siblings"
    for k in ("idle_found_pct", "wake_lat_p50_us", "wake_lat_p99_us", "wc_llc_pct",
              "wc_node_pct", "wc_machine_pct", "wc_llc_episodes", "rq_imbalance_llc",
              "rq_imbalance_node"):
        assert k in m, k
    for v in zip(*(m["wc_%s_pct" % l]["values"] for l in ("llc", "node", "machine"))):
        assert v[0] <= v[1] + 1e-9 <= v[2] + 2e-9, v
    for l in ("llc", "numa"):
        tot = [a + b for a, b in zip(m["migr_wakeup_" + l]["values"], m["migr_balance_" + l]["values"])]
        assert tot == m["migr_" + l]["values"], (l, tot)
    assert 0 <= m["idle_found_pct"]["mean"] <= 100
    assert m["wake_lat_p50_us"]["mean"] <= m["wake_lat_p99_us"]["mean"]
    print(c["case"], {k: round(v["mean"], 1) for k, v in m.items() if k != "time"})
PY
# the events are on from boot, so the run keeps one TCG thread per vCPU
python3 - "$run/run.json" <<'PY' || fail "checks on run.json"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["tcg_threads"] == "multi", r["tcg_threads"]
assert "trace_event=sched:sched_switch," in r["cmdline"] and "lab.schedtrace=boot" in r["cmdline"], r["cmdline"]
PY
# trace-cmd reads raw pages only inside its trace.dat container, and
# `trace-cmd restore -c -t DIR` (which would build one from a tracefs-like
# directory of our format files) crashes in trace-cmd 3.1.6; so the reader
# checked here is ours: every measured run decoded events.
python3 - "$run/results.jsonl" <<'PY' || fail "checks on results.jsonl"
import json, sys
runs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
traced = [r for r in runs if not r.get("warmup")]
assert len(traced) == 4, len(traced)
for r in traced:
    st = r["schedtrace"]
    assert "absent" not in st and st["events"] > 0 and st["bytes"] > 0, st
    assert "degraded" not in st, st["degraded"]
    m, t = r["metrics"], r["tasks"]
    # every task of the run listed, and its preemptions are the kernel's
    # count of them: exactly for processes (reaped whole); for threads
    # within one per thread, whatever the run's length: a thread's counts
    # join its process's in release_task, before its last switches, and
    # the container's main thread is in the reaped count but not listed.
    # Measured gaps (own - reaped): 17-30 for 40 threads over runs of
    # 259-1239 preemptions, and 27 of 294 in a CI run; a bound of 10 + 5 %
    # had assumed a gap that grows with the run, and failed there
    assert st["own_tasks"] == t["tasks"] == 40, (st, t)
    own, ref = m["own_preemptions"]["value"], t["reaped_involuntary_switches"]
    assert m["preemptions"]["value"] >= own > 0, m
    assert m["own_preemptions"]["better"] == "none", m["own_preemptions"]
    if r["case"].endswith("process"):
        assert own == ref, (r["case"], own, ref)
    else:
        assert abs(own - ref) <= st["own_tasks"], (r["case"], own, ref)
    for k in ("preempt_per_wakeup", "preempt_per_s", "own_preempt_per_wakeup", "own_preempt_per_s"):
        assert m[k]["value"] > 0, k
print("events per run:", [r["schedtrace"]["events"] for r in traced])
print("own preemptions, reaped nivcsw:",
      [(r["metrics"]["own_preemptions"]["value"], r["tasks"]["reaped_involuntary_switches"]) for r in traced])
PY
# the decision metrics are rows of lab compare like the timings
"$LAB" compare "$run" "$run" >"$TMP/cmp" 2>&1 || fail "lab compare exited non-zero"
for m in wake_prev_pct wake_remote_pct migr_numa trace_lost_events preemptions own_preempt_per_wakeup; do
	grep -q "^Test *: trace-hackbench $m\$" "$TMP/cmp" || fail "lab compare has no $m row"
done
# the preemption rows only go up or down
grep -q "^Interpretation: no better direction" "$TMP/cmp" ||
	fail "lab compare gives the preemption rows a better direction"
# so do the decision rows (placement, idle found, migrations, work
# conservation); the wake latency and the lost events keep theirs
for m in wake_prev_pct idle_found_pct migr_llc wc_llc_pct; do
	grep -A2 "^Test *: trace-hackbench $m\$" "$TMP/cmp" | grep -q "^Interpretation: no better direction" ||
		fail "lab compare gives $m a better direction"
done
grep -A2 "^Test *: trace-hackbench trace_lost_events\$" "$TMP/cmp" | grep -q "^Interpretation: Lower is better" ||
	fail "trace_lost_events lost its direction"

# a 64 KiB buffer per CPU cannot hold a run of 200 loops (20 filled it
# with five events, not always with four): lost events are counted and
# the case says so in its reason
sed 's/^mode = .*/mode = process/; s/^loops = .*/loops = 200/; /^counters/a trace_buffer_kb = 64' \
	"$TMP/trace.ini" >"$TMP/small.ini"
rc=0
"$LAB" run --topo 2s2c --kernel debian --scenario "$TMP/small.ini" --accel tcg \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"; sed 's/^/stderr: /' "$TMP/err"
run=$(sed -n 's/^results: //p' "$TMP/out")
[ "$rc" -eq 0 ] || fail "lab run with a 64 KiB trace buffer exited $rc"
python3 - "$run/cases.json" <<'PY' || fail "checks on a buffer that overflowed"
import json, sys
c = json.load(open(sys.argv[1]))["cases"][0]
assert c["metrics"]["trace_lost_events"]["mean"] > 0, c["metrics"]
assert c["schedtrace"]["lost_runs"] > 0 and "lost events" in c["reason"], c["reason"]
print("lost:", c["metrics"]["trace_lost_events"]["values"], "-", c["reason"])
PY

# trace_run_mb: the flight recorder.  1 MiB over 4 CPUs is a 256 KiB ring
# per CPU, which 300 loops overflow about three times over (100 did with
# five events, not always with four): the guest overwrote the run's start,
# shipped at most its budget, and the cut is counted and said
sed 's/^mode = .*/mode = process/; s/^loops = .*/loops = 300/; s/^runs = .*/runs = 1/;
     /^counters/a trace_run_mb = 1' "$TMP/trace.ini" >"$TMP/cut.ini"
rc=0
"$LAB" run --topo 2s2c --kernel debian --scenario "$TMP/cut.ini" --accel tcg \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"; sed 's/^/stderr: /' "$TMP/err"
run=$(sed -n 's/^results: //p' "$TMP/out")
[ "$rc" -eq 0 ] || fail "lab run with trace_run_mb = 1 exited $rc"
grep -q "^trace: trace-hackbench: kept run0 (slowest); dropped 0 runs, 0.0 MiB (budget 4 MiB); cut 1 run to the last 1 MiB (ring buffer, [0-9]* events overwritten)\$" "$TMP/out" ||
	fail "lab run did not say the run was cut"
python3 - "$run" <<'PY' || fail "checks on a run cut by trace_run_mb"
import glob, json, os, sys
run = sys.argv[1]
c = json.load(open(run + "/cases.json"))["cases"][0]
assert c["metrics"]["trace_lost_events"]["mean"] > 0, c["metrics"]
assert "cut to the last 1 MiB in 1 run (trace_run_mb" in c["reason"], c["reason"]
d = run + "/trace/trace-hackbench"
k = json.load(open(d + "/kept.json"))
assert k["run_budget_bytes"] == 1 << 20 and k["cut_runs"] == 1 and k["cut_events"] > 0, k
assert k["kept"][0]["cut_events"] == k["cut_events"], k
raw = sum(os.path.getsize(f) for f in glob.glob(d + "/run0/cpu*.raw"))
# each CPU's ring: 256 KiB, plus the reader's spare page
assert 0 < raw <= (1 << 20) + 4 * 4096, raw
print("cut:", k["cut_events"], "events overwritten,", raw, "bytes shipped -", c["reason"])
PY
echo "ok"
