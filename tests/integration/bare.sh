# bare - bare-metal mode on this host: the smoke suite runs through `lab bare`
# into the layout of a guest run (lab compare reads two of them); then CPU
# hotplug churn on cpu1 plus a sysctl change, ended normally, by SIGTERM to
# lab, and by SIGKILL of everything (lab, runner, fault driver) followed by
# `lab bare --restore` and by a plain next `lab bare`: each time cpu1 must
# be online and the sysctl back.  The machine is restored even on failure.
. "$(dirname "$0")/lib.sh"

CPU1=/sys/devices/system/cpu/cpu1/online
KNOB=/proc/sys/kernel/sched_rr_timeslice_ms
SCEN=scenarios/bare-hotplug-sysctl.ini
export LAB_STATE=$TMP/state
orig_knob=$(cat "$KNOB" 2>/dev/null || echo)
sid=

# every process of the lab session we started, by id
session_pids() { [ -n "$sid" ] && ps -eo pid=,sid= | awk -v s="$sid" '$2 == s { print $1 }'; }

put_back() {
	local rc=$? p
	for p in $(session_pids); do kill -CONT "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done
	[ -w "$CPU1" ] && [ "$(cat "$CPU1")" != 1 ] && echo 1 >"$CPU1"
	[ -n "$orig_knob" ] && [ "$(cat "$KNOB")" != "$orig_knob" ] && echo "$orig_knob" >"$KNOB"
	(exit $rc)
	keep_on_failure
}
trap put_back EXIT

check_restored() {
	local c k
	c=$(cat "$CPU1"); k=$(cat "$KNOB")
	echo "after $1: cpu1 online=$c, $(basename "$KNOB")=$k (was $orig_knob)"
	[ "$c" = 1 ] || fail "$1: cpu1 is still offline"
	[ "$k" = "$orig_knob" ] || fail "$1: sched_rr_timeslice_ms is $k, not $orig_knob"
	grep -q '^1$' /sys/devices/system/cpu/cpu1/online || fail "$1: cpu1 not online"
}

# ---- the smoke suite, and lab compare on two bare runs ----
for i in 1 2; do
	rc=0
	"$LAB" bare --suite smoke >"$TMP/out" 2>"$TMP/err" || rc=$?
	cat "$TMP/out"; sed 's/^/stderr: /' "$TMP/err"
	[ "$rc" -eq 0 ] || fail "lab bare --suite smoke exited $rc"
	eval "run$i=\$(sed -n 's/^results: //p' \"\$TMP/out\")"
done
grep -q '^host topology: [0-9]*s[0-9]*c' "$TMP/out" || fail "no host topology line"
grep -q '^closest preset: ' "$TMP/out" || fail "no closest preset line"
grep -q 'cpufreq governor' "$TMP/err" || fail "no cpufreq hygiene warning"
grep -q 'SMT' "$TMP/err" || fail "no SMT hygiene warning"
# the files of a guest run (qemu.log aside: there is no QEMU)
for f in run.json console.log records.bin plan.txt guest-topology.json expected-topology.json \
	 cases.json results.jsonl verdict.json; do
	[ -s "$run1/$f" ] || fail "missing $run1/$f"
done
python3 - "$run1" <<'PY' || fail "checks on run.json / cases.json"
import json, sys
d = sys.argv[1]
run = json.load(open(d + "/run.json"))
assert run["backend"] == "bare", run["backend"]
assert run["spec"] and run["host_topology"]["cpus"] >= 1, run["spec"]
h = run["hygiene"]
for k in ("cpufreq_governor", "smt_control", "busy_pct", "loadavg"):
    assert k in h, k
cases = json.load(open(d + "/cases.json"))["cases"]
assert len(cases) >= 10, len(cases)
assert all(c["verdict"] in ("PASS", "SKIP") for c in cases), [(c["id"], c["verdict"]) for c in cases]
assert json.load(open(d + "/verdict.json"))["verdict"] == "PASS"
print("bare smoke layout ok:", len(cases), "cases, host", run["spec"])
PY
rc=0
"$LAB" compare "$run1" "$run2" >"$TMP/cmp" 2>&1 || rc=$?
head -n 12 "$TMP/cmp"
[ "$rc" -le 1 ] || fail "lab compare rejected two bare runs (exit $rc)"
grep -q 'smoke-hackbench' "$TMP/cmp" || fail "lab compare has no hackbench table"

# --fidelity wants guest runs in the guest slots
rc=0
"$LAB" bare --fidelity "$run1" "$run2" "$run1" "$run2" >/dev/null 2>"$TMP/err" || rc=$?
[ "$rc" -eq 2 ] || fail "--fidelity took bare runs as guest runs (exit $rc)"
grep -q 'expected a guest run' "$TMP/err" || fail "--fidelity: $(cat "$TMP/err")"

# ---- the sched trace on this host: recorded, decision rows, pruned to the
# plan's budget as lab run does, the host's tracefs as it was ----
if [ "$(id -u)" = 0 ] && { [ -d /sys/kernel/tracing/events/sched ] || [ -d /sys/kernel/debug/tracing/events/sched ]; }; then
	T=/sys/kernel/tracing
	[ -d "$T/events/sched" ] || T=/sys/kernel/debug/tracing
	before=$(cat "$T/trace_clock" "$T/tracing_on" "$T/buffer_size_kb" "$T/events/sched/sched_switch/enable")
	sed 's/^counters = .*/counters = tasks schedtrace/; s/^name = smoke-hackbench/name = bare-trace/;
	     s/^runs = .*/runs = 6/; s/^mode = .*/mode = process/; s/^\[params\]/trace_keep_mb = 1\n\n[params]/' \
		scenarios/smoke-hackbench.ini >"$TMP/bare-trace.ini"
	rc=0
	"$LAB" bare --scenario "$TMP/bare-trace.ini" >"$TMP/out" 2>"$TMP/err" || rc=$?
	cat "$TMP/out"
	[ "$rc" -eq 0 ] || fail "traced lab bare exited $rc: $(tail -3 "$TMP/err")"
	run=$(sed -n 's/^results: //p' "$TMP/out")
	grep -q '^trace: bare-trace: kept run[0-9].* (budget 1 MiB)' "$TMP/out" ||
		fail "lab bare did not prune the traces to the plan's budget"
	[ -s "$run/trace/bare-trace/kept.json" ] || fail "no kept.json after lab bare"
	left=$(ls -d "$run"/trace/bare-trace/run* | wc -l)
	[ "$left" -ge 1 ] && [ "$left" -lt 6 ] || fail "$left of 6 runs' traces left after pruning"
	python3 - "$run/cases.json" <<'PY' || fail "no decision rows from the host's trace"
import json, sys
c = json.load(open(sys.argv[1]))["cases"][0]
assert c["verdict"] == "PASS", c.get("reason")
m = c["metrics"]
assert m["wakeups"]["mean"] > 0 and "idle_found_pct" in m, sorted(m)
share = sum(v["mean"] for k, v in m.items() if k.startswith("wake_") and k.endswith("_pct"))
assert abs(share - 100) < 0.01, share
print("bare decision rows:", {k: round(m[k]["mean"], 1) for k in ("wakeups", "idle_found_pct")})
PY
	# --trace: the flight recorder on a scenario that does not ask for it
	rc=0
	"$LAB" bare --scenario scenarios/smoke-hackbench.ini --trace --quiet >"$TMP/out2" 2>"$TMP/err" || rc=$?
	[ "$rc" -eq 0 ] || fail "lab bare --trace exited $rc: $(tail -3 "$TMP/err")"
	run2=$(sed -n 's/^results: //p' "$TMP/out2")
	[ "$(grep -c '^counters	.*schedtrace' "$run2/plan.txt")" = 2 ] || fail "--trace did not add schedtrace to both cases"
	grep -q '^trace: smoke-hackbench_mode=thread: kept ' "$TMP/out2" || fail "--trace kept no trace"
	grep -q '"wake_prev_pct"' "$run2/cases.json" || fail "--trace gave no decision rows"
	after=$(cat "$T/trace_clock" "$T/tracing_on" "$T/buffer_size_kb" "$T/events/sched/sched_switch/enable")
	[ "$before" = "$after" ] || fail "tracefs not put back: '$before' became '$after'"
	# lab trace --keep after the fact takes the plan's budget too
	rc=0
	"$LAB" trace --keep "$run" >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ "$rc" -eq 0 ] || fail "lab trace --keep exited $rc: $(cat "$TMP/err")"
	grep -q '^bare-trace: kept .* (budget 1 MiB)' "$TMP/out" ||
		fail "lab trace --keep did not take the plan's budget: $(grep 'kept' "$TMP/out")"
else
	echo "SKIP part: the traced lab bare needs root and tracefs with sched events"
fi

# ---- faults that change the host ----
rc=0
"$LAB" bare --scenario "$SCEN" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ "$rc" -eq 2 ] || fail "host-changing faults without --allow-faults: exit $rc, not 2"
grep -q 'allow-faults' "$TMP/err" || fail "no --allow-faults hint: $(cat "$TMP/err")"
echo "without --allow-faults: exit 2: $(cat "$TMP/err")"

[ "$(id -u)" = 0 ] || skip "the fault part needs root"
[ -w "$CPU1" ] || skip "cpu1 cannot be taken offline here (no writable $CPU1)"
[ -n "$orig_knob" ] || skip "no $KNOB on this kernel"
[ "$(cat "$CPU1")" = 1 ] || fail "cpu1 is offline before the test"

# (a) a normal end
rc=0
"$LAB" bare --scenario "$SCEN" --allow-faults >"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"
[ "$rc" -eq 0 ] || fail "normal run exited $rc: $(tail -3 "$TMP/err")"
run=$(sed -n 's/^results: //p' "$TMP/out")
python3 - "$run/cases.json" <<'PY' || fail "the faults did not act"
import json, sys
c = json.load(open(sys.argv[1]))["cases"][0]
acts = [(t["action"], t["target"]) for t in c["timeline"] if t["ok"]]
assert ("offline", "cpu1") in acts and ("online", "cpu1") in acts, acts
assert any(a == "write" for a, _ in acts), acts
assert all(f["restored"] for f in c["faults"]), c["faults"]
print("faults acted:", len(acts), "actions")
PY
check_restored "a normal end"

# start_faulted: lab bare in a session of its own, back when cpu1 is
# offline and the sysctl changed (both at once)
start_faulted() {
	setsid "$LAB" bare --scenario "$SCEN" --allow-faults >"$TMP/out" 2>"$TMP/err" &
	lab_pid=$!
	sid=$lab_pid
	for _ in $(seq 1 400); do
		[ "$(cat "$CPU1")" = 0 ] && [ "$(cat "$KNOB")" != "$orig_knob" ] && return 0
		kill -0 "$lab_pid" 2>/dev/null || fail "lab ended before the faults acted"
		sleep 0.02
	done
	fail "cpu1 never went offline with the sysctl changed"
}

# (b) SIGTERM to lab during the faults
start_faulted
kill -TERM "$lab_pid"
rc=0
wait "$lab_pid" || rc=$?
cat "$TMP/out"
[ "$rc" -ne 0 ] || fail "a SIGTERMed run exited 0"
grep -q 'stopped by signal 15' "$TMP/out" || fail "no 'stopped by signal 15' verdict"
[ -z "$(session_pids)" ] || fail "processes left after SIGTERM: $(session_pids)"
check_restored "SIGTERM"

# (c) SIGKILL of everything in lab's session (lab, runner, fault driver,
# workload): stopped first so nobody gets to restore anything
kill_all_faulted() {
	local p ok=0
	for _ in 1 2 3 4 5; do
		start_faulted_wait
		for p in $(session_pids); do kill -STOP "$p" 2>/dev/null; done
		if [ "$(cat "$CPU1")" = 0 ] && [ "$(cat "$KNOB")" != "$orig_knob" ]; then
			ok=1
			break
		fi
		for p in $(session_pids); do kill -CONT "$p" 2>/dev/null; done
	done
	[ "$ok" = 1 ] || fail "could not catch cpu1 offline"
	for p in $(session_pids); do kill -KILL "$p" 2>/dev/null; done
	wait "$lab_pid" 2>/dev/null
	for _ in $(seq 1 100); do [ -z "$(session_pids)" ] && break; sleep 0.05; done
	[ -z "$(session_pids)" ] || fail "processes survived SIGKILL: $(session_pids)"
	echo "killed: cpu1 online=$(cat "$CPU1"), $(basename "$KNOB")=$(cat "$KNOB")"
	[ "$(cat "$CPU1")" = 0 ] || fail "the kill left cpu1 online: nothing to test"
	[ "$(cat "$KNOB")" != "$orig_knob" ] || fail "the kill left the sysctl restored"
	grep -q '^set ' "$LAB_STATE/journal" || fail "no journal records"
}
start_faulted_wait() {
	for _ in $(seq 1 400); do
		[ "$(cat "$CPU1")" = 0 ] && [ "$(cat "$KNOB")" != "$orig_knob" ] && return 0
		kill -0 "$lab_pid" 2>/dev/null || fail "lab ended before the faults acted"
		sleep 0.02
	done
	fail "cpu1 never went offline with the sysctl changed"
}

start_faulted
kill_all_faulted
sed 's/^/journal: /' "$LAB_STATE/journal"
rc=0
"$LAB" bare --restore >"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"; sed 's/^/stderr: /' "$TMP/err"
[ "$rc" -eq 0 ] || fail "lab bare --restore exited $rc"
grep -q "restored $CPU1" "$TMP/out" || fail "--restore did not say it restored cpu1"
grep -q "restored $KNOB" "$TMP/out" || fail "--restore did not say it restored the sysctl"
check_restored "SIGKILL + lab bare --restore"
[ ! -e "$LAB_STATE/journal" ] || fail "the journal is still there after --restore"

# the same, put back by the next plain start instead
start_faulted
kill_all_faulted
rc=0
"$LAB" bare --suite smoke >"$TMP/out" 2>"$TMP/err" || rc=$?
sed -n '/^leftover: /p' "$TMP/out"
grep -q "^leftover: restored $CPU1" "$TMP/out" || fail "the next start did not restore cpu1"
grep -q "^leftover: restored $KNOB" "$TMP/out" || fail "the next start did not restore the sysctl"
[ "$rc" -eq 0 ] || fail "the next lab bare exited $rc"
check_restored "SIGKILL + next lab bare start"
echo ok
