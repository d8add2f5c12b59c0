# trace-outputs - a small sched-trace run, then `lab trace`: its trace.dat is
# opened by Debian's trace-cmd report with the same events and CPU count as
# our reader decoded, trace.json is Chrome trace event JSON, timeline.html
# an SVG page without script; --keep keeps the slowest run, and so does
# lab run itself with trace_keep_mb; the TCG guest traced on the local
# clock, which trace.dat says; bad arguments are one line and exit 2.
# lab compare --html links the row to the kept run's timeline (drawing it
# when missing), relative to the page.  A second guest is paused (freeze)
# for 250 ms during a traced run: the timeline shows the gap, no CPU
# recording anything, and marks the action.
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
for e in sched_switch sched_waking sched_migrate_task; do
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

# lab compare --html: a missing timeline is drawn; the row links to it
# relative to the page, and the links work once both are moved together
rm -f "$dir/timeline.html"
res=$(dirname "$run")
"$LAB" compare --html "$res/cmp.html" "$run" "$run" >/dev/null 2>"$TMP/cerr" ||
	fail "lab compare --html exited non-zero: $(head -3 "$TMP/cerr")"
[ -s "$dir/timeline.html" ] || fail "lab compare --html did not draw the missing timeline"
mv "$res" "$res.moved"
python3 - "$res.moved/cmp.html" <<'PY' || fail "checks on the compare page's timeline links"
import os, re, sys
page = open(sys.argv[1]).read()
links = re.findall(r'<a class=tl [^>]*href="([^"]+)"', page)
# every row (case, metric) links the case's one kept run, on both sides
assert len(links) >= 2 and len(links) % 2 == 0 and len(set(links)) == 1, links
for l in set(links):
    assert not l.startswith(("/", "file:")), l
    assert os.path.isfile(os.path.join(os.path.dirname(sys.argv[1]), l)), l
print(len(links), "row links to the timeline:", links[0])
PY
mv "$res.moved" "$res"

# a host pause in a traced run (freeze, the default mode): guest time runs on
sed 's/^name = tr-out/name = tr-pause/' "$TMP/trace.ini" >"$TMP/pause.ini"
printf '%s\n' "[fault hold]" "kind = pause" "start = 0.3" "count = 1" "hold = 0.25" >>"$TMP/pause.ini"
rc=0
"$LAB" run --topo 1s2c --kernel debian --scenario "$TMP/pause.ini" --accel tcg \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"; sed 's/^/stderr: /' "$TMP/err"
prun=$(sed -n 's/^results: //p' "$TMP/out")
[ "$rc" -eq 0 ] || fail "lab run with a pause exited $rc"
"$LAB" trace "$prun" >"$TMP/ptrace" 2>&1 || fail "lab trace of the paused run: $(head -3 "$TMP/ptrace")"
grep -q "fault actions: 2 marked on the timeline" "$TMP/ptrace" || fail "lab trace marks no pause: $(cat "$TMP/ptrace")"
python3 - "$prun/host-faults.jsonl" "$prun/trace/tr-pause/run0/trace.json" \
	"$prun/trace/tr-pause/run0/timeline.html" <<'PY' || fail "the pause gap"
import json, re, sys
acts = [json.loads(l) for l in open(sys.argv[1])]
stop = [a for a in acts if a["action"] == "stop"][0]
cont = [a for a in acts if a["action"] == "cont"][0]
assert stop["ok"] and stop["detail"].startswith("SIGSTOP to QEMU pid"), stop
ev = json.load(open(sys.argv[2]))["traceEvents"]
# every event's time: slices start and end at switches, wakeups are instants
t = sorted({e["ts"] for e in ev if e["ph"] in "Xi"} | {e["ts"] + e["dur"] for e in ev if e["ph"] == "X"})
# a loaded host stalls a TCG guest too (gaps of its own): the pause's gap is
# the one around the action, as long as the hold at least
s0, s1 = stop["t_run_s"] * 1e6, cont["t_run_s"] * 1e6
gaps = [(a, b) for a, b in zip(t, t[1:]) if a - 100e3 <= s0 <= b and s1 <= b + 100e3]
print("stop at %.3f s, cont at %.3f s into the run; gap around them: %s"
      % (s0 / 1e6, s1 / 1e6, ["%.3f-%.3f s" % (a / 1e6, b / 1e6) for a, b in gaps]))
assert gaps and gaps[0][1] - gaps[0][0] >= 200e3, "no gap of the 250 ms pause at the action"
page = open(sys.argv[3]).read()
# the hatched stretch and the dashed stop mark on the page: the mark in the band
marks = re.findall(r'<line x1="([0-9.]+)"[^>]*><title>pause (stop|cont) \(host\) at ([0-9.]+) s', page)
assert [m[1] for m in marks[:2]] == ["stop", "cont"], marks
bands = [(float(x), float(w), float(ms)) for x, w, ms in re.findall(
    r'<rect x="([0-9.]+)" y="[0-9]+" width="([0-9.]+)"[^>]*fill="url\(#gap\)"><title>no events for ([0-9.]+) ms', page)]
x = float(marks[0][0])
around = [b for b in bands if b[0] - 10 <= x <= b[0] + b[1] + 2 and b[2] >= 200]
assert around, ("no hatched band of 200 ms or more at the stop mark", x, bands)
print("timeline: stop mark at x=%.1f in a hatched band of %.1f ms" % (x, around[0][2]))
PY
echo "ok"
