# fault-hotplug - CPU hotplug churn under hackbench on the Debian kernel:
# CPUs really go offline and come back during the runs, the case PASSes
# and every CPU is online again when each run ends.
. "$(dirname "$0")/lib.sh"
rc=0
"$LAB" run --topo 2s2c2t,llc=1 --scenario scenarios/fault-cpu-hotplug.ini --accel tcg \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"; sed 's/^/stderr: /' "$TMP/err"
run=$(sed -n 's/^results: //p' "$TMP/out")
[ "$rc" -eq 0 ] || fail "lab run exited $rc"
[ -s "$run/cases.json" ] || fail "no cases.json"
python3 - "$run/cases.json" <<'PY' || fail "checks on cases.json"
import json, sys
c = json.load(open(sys.argv[1]))["cases"][0]
assert c["verdict"] == "PASS", (c["verdict"], c["reason"])
runs = {r for r in range(2)}
# every measured run judged every invariant, and all held
inv = {(i["run"], i["kind"]): i for i in c["invariants"]}
for r in runs:
    for k in ("cpus_online_at_end", "no_lost_work", "affinity_respected"):
        assert inv[(r, k)]["ok"], inv[(r, k)]
    assert inv[(r, "cpus_online_at_end")]["summary"].startswith("every CPU online at the start (0-7)")
# CPUs went offline and came back, in order, per run
for r in runs:
    acts = [(t["action"], t["target"]) for t in c["timeline"] if t["run"] == r and t["ok"]]
    offs = [t for a, t in acts if a == "offline"]
    ons = [t for a, t in acts if a == "online"]
    assert len(offs) >= 2, acts
    assert sorted(offs) == sorted(ons), acts
    assert "cpu0" not in offs, "cpu0 has no online file on x86"
    assert all(t["t_run_s"] >= 0.2 for t in c["timeline"] if t["run"] == r)
for f in c["faults"]:
    assert f["restored"] and f["started"] and f["actions"] >= 2 and not f["failed"], f
print("hotplug ok:", len(c["timeline"]), "actions")
PY
# the case's part of the console holds no splat (the run's verdict says
# so too); the markers show the runner charged it to the right case
grep -q "schedlab: case fault-cpu-hotplug end" "$run/console.log" || fail "no case marker"
echo ok
