# fault-lost-work - a workload that leaves a daemon behind (setsid: out of
# its process group, not out of the run's cgroup) breaks no_lost_work: the
# case FAILs naming the task, and the task is killed with the run.
. "$(dirname "$0")/lib.sh"
cat >"$TMP/leak.ini" <<'INI'
[scenario]
name = leak
description = test: a daemon outlives the workload
workload = exec
runs = 2
deadline = 60

[params]
cmd = /bin/busybox start-stop-daemon -S -b -m -p /tmp/leak.pid -a /bin/sleep -- 300

[metric elapsed]
better = lower

[invariant work]
kind = no_lost_work
INI
rc=0
"$LAB" run --topo 1s2c --scenario "$TMP/leak.ini" --accel tcg >"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"; sed 's/^/stderr: /' "$TMP/err"
run=$(sed -n 's/^results: //p' "$TMP/out")
[ "$rc" -eq 1 ] || fail "lab run exited $rc, expected 1"
python3 - "$run/cases.json" <<'PY' || fail "checks on cases.json"
import json, sys
c = json.load(open(sys.argv[1]))["cases"][0]
assert c["verdict"] == "FAIL", c
assert "invariant 'work' (no_lost_work) broken in run 0" in c["reason"], c["reason"]
for i in c["invariants"]:
    assert not i["ok"], i
    ev = i["evidence"][0]
    # one daemon per run: the first run's was killed with it, or the
    # second would find the pid file's process still there and start none
    assert ev["status"] == "ok" and ev["leftover_tasks"] == 1, ev
    assert "(sleep)" in ev["leftover"], ev
print("left behind:", [i["evidence"][0]["leftover"] for i in c["invariants"]])
PY
echo ok
