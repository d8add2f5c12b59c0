# trace-outputs - a small sched-trace run, then `lab trace`: its trace.dat is
# opened by Debian's trace-cmd report with the same events and CPU count as
# our reader decoded, trace.json is Chrome trace event JSON, timeline.html
# an SVG page without script; --keep keeps the slowest run, and so does
# lab run itself with trace_keep_mb; the TCG guest traced on the local
# clock, which trace.dat says; bad arguments are one line and exit 2.
. "$(dirname "$0")/lib.sh"
command -v trace-cmd >/dev/null || skip "trace-cmd is not installed (make deps-check)"
sed 's/^counters = .*/counters = schedstat tasks schedtrace/; s/^name = smoke-hackbench/name = tr-out/;
     s/^mode = .*/mode = process/; s/^runs = .*/runs = 1/' scenarios/smoke-hackbench.ini >"$TMP/trace.ini"
sed -i 's/^counters = .*/&\ntrace_keep_mb = 8/' "$TMP/trace.ini"
rc=0
"$LAB" run --topo 2s2c2t --kernel debian --scenario "$TMP/trace.ini" --accel tcg \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"; sed 's/^/stderr: /' "$TMP/err"
run=$(sed -n 's/^results: //p' "$TMP/out")
[ "$rc" -eq 0 ] || fail "lab run exited $rc"
grep -q "^trace: tr-out: kept run0 (slowest); dropped 0 runs, 0.0 MiB (budget 8 MiB)$" "$TMP/out" ||
	fail "lab run did not keep its traces (trace_keep_mb)"
[ -s "$run/trace/tr-out/kept.json" ] || fail "lab run wrote no kept.json"

rc=0
"$LAB" trace "$run" >"$TMP/trace" 2>"$TMP/terr" || rc=$?
cat "$TMP/trace"; sed 's/^/stderr: /' "$TMP/terr"
[ "$rc" -eq 0 ] || fail "lab trace exited $rc"
dir=$run/trace/tr-out/run0
for f in trace.dat trace.json timeline.html; do
	[ -s "$dir/$f" ] || fail "lab trace wrote no $f"
	grep -q "  $f *$dir/$f\$" "$TMP/trace" || fail "lab trace does not say where $f is"
done
grep -aq "\[local\] global" "$dir/trace.dat" || fail "trace.dat does not say the local clock"
for s in "busiest CPUs: cpu" "longest runnable waits" "top migrations:"; do
	grep -q "$s" "$TMP/trace" || fail "the digest has no '$s'"
done
ours=$(sed -n 's/^  \([0-9]*\) events on 8 CPUs over .*/\1/p' "$TMP/trace")
[ -n "$ours" ] && [ "$ours" -gt 0 ] || fail "the digest has no event count on 8 CPUs"

# Debian's trace-cmd reads the file as it is
trace-cmd report "$dir/trace.dat" >"$TMP/report" 2>"$TMP/rerr" || fail "trace-cmd report failed: $(head -3 "$TMP/rerr")"
head -3 "$TMP/report"
grep -qx "cpus=8" "$TMP/report" || fail "trace-cmd report does not see 8 CPUs"
theirs=$(grep -c ': sched_' "$TMP/report")
[ "$theirs" -eq "$ours" ] || fail "trace-cmd report shows $theirs sched events, lab trace decoded $ours"
for e in sched_switch sched_waking sched_wakeup sched_migrate_task; do
	grep -q " $e: " "$TMP/report" || fail "trace-cmd report has no $e"
done
grep -q 'runner-[0-9]' "$TMP/report" || fail "trace-cmd report names no task (cmdlines)"
trace-cmd report --stat "$dir/trace.dat" 2>/dev/null | grep -q "^overrun: " || fail "no CPU stats in trace.dat"
echo "trace-cmd report: $theirs events, cpus=8"

python3 - "$dir/trace.json" "$dir/timeline.html" <<'PY' || fail "checks on trace.json and timeline.html"
import json, sys
doc = json.load(open(sys.argv[1]))
ev = doc["traceEvents"]
names = {e["tid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
assert sorted(names) == list(range(8)), names
assert all(e["dur"] >= 0 and e["ts"] >= 0 for e in ev if e["ph"] == "X")
assert sum(e["ph"] == "X" for e in ev) > 100 and sum(e["ph"] == "i" for e in ev) > 10
page = open(sys.argv[2]).read()
assert "<script" not in page and "<svg" in page and "node 1 llc" in page
print("trace.json:", len(ev), "events; timeline.html:", len(page), "bytes")
PY

# --keep: the one measured run is the case's slowest; nothing to drop
"$LAB" trace --keep --top 1 "$run" >"$TMP/keep" 2>&1 || fail "lab trace --keep exited non-zero: $(cat "$TMP/keep")"
grep -q "^tr-out: kept run0 (slowest); dropped 0 runs" "$TMP/keep" || fail "lab trace --keep: $(head -1 "$TMP/keep")"
python3 - "$run/trace/tr-out/kept.json" <<'PY' || fail "checks on kept.json"
import json, sys
k = json.load(open(sys.argv[1]))
assert [r["run"] for r in k["kept"]] == [0] and k["dropped_runs"] == 0, k
PY

# bad arguments: one line, exit 2 (the run directory above is left as it was)
bad() {
	local what=$1 rc=0
	shift
	"$LAB" trace "$@" >/dev/null 2>"$TMP/err" || rc=$?
	echo "$what: exit $rc: $(cat "$TMP/err")"
	[ "$rc" -eq 2 ] && [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "$what: exit $rc, expected 2 and one line"
}
bad "no such case" "$run" --case nope
bad "no such run" "$run" --run 7
bad "bad run number" "$run" --run x
bad "not a run directory" "$TMP/nothing"
mkdir -p "$TMP/empty"
bad "no kept trace" "$TMP/empty"
echo "ok"
