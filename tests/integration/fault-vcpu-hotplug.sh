# fault-vcpu-hotplug - vCPU hot-add and hot-remove from the host under
# schbench: a 1-socket, 4-core machine booted with 2 CPUs and 2 empty
# slots gets 2 vCPUs device_added; the guest's runner onlines them and
# reports where the kernel put them (LLC, node, scheduling domains); then
# the host device_dels one, which needs the guest's ACPI eject.  The case
# PASSes, every CPU that exists at the end is online, and every host
# action is in host-faults.jsonl with its time.  Then on two sockets
# (node 1 has no CPU at boot): the hot-added CPUs must join socket 1's
# node, LLC and scheduling domains exactly as if they had booted there.
# Last, a vcpu_add on a machine without a free slot fails its case.
. "$(dirname "$0")/lib.sh"
rc=0
"$LAB" run --topo 1s4c,hotplug=2 --scenario scenarios/fault-host-vcpu-hotplug.ini --accel tcg \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"; sed 's/^/stderr: /' "$TMP/err"
run=$(sed -n 's/^results: //p' "$TMP/out")
[ "$rc" -eq 0 ] || fail "lab run exited $rc"
grep -q '^1s4c,hotplug=2 = .* 4 CPUs, 2 at boot + 2 hot-pluggable' "$TMP/out" || fail "topology line"
# the boot view is 2 CPUs: a hot-added CPU is no topology mismatch
grep -qx 'topology: PASS' "$TMP/out" || fail "boot topology not verified"
grep -q '^verdict: PASS' "$TMP/out" || fail "verdict is not PASS"
rc=0
python3 - "$run" <<'PY' || rc=$?
import json, sys
run = sys.argv[1]
acts = [json.loads(l) for l in open(run + "/host-faults.jsonl")]
for a in acts:
    print("host %7.3f s  %-11s %-8s %s %s" % (a["t_s"], a["kind"], a["action"],
          "ok" if a["ok"] else "FAILED", a.get("detail", a.get("error", ""))))
t = [a["t_s"] for a in acts]
assert t == sorted(t), "host actions out of order"
adds = [a for a in acts if a["action"] == "device_add"]
assert len(adds) == 2 and all(a["ok"] for a in adds), adds
assert adds[0]["detail"].startswith("vCPU 2 (") and adds[1]["detail"].startswith("vCPU 3 ("), adds
dels = [a for a in acts if a["action"] == "device_del"]
assert len(dels) == 1 and dels[0]["ok"], dels
assert dels[0]["detail"].startswith("vCPU 3 ("), dels

c = json.load(open(run + "/cases.json"))["cases"][0]
assert c["verdict"] == "PASS", (c["verdict"], c["reason"])
ev = c.get("cpu_events", [])
for e in ev:
    print("guest %7.3f s  %-9s cpu%s %s" % (e["t_run_s"], e["event"], e["cpu"],
          {k: e[k] for k in ("ok", "online", "online_ms", "llc", "node", "domains", "seen_by")
           if k in e}))
added = {e["cpu"]: e for e in ev if e["event"] == "cpu_added"}
assert set(added) == {2, 3}, "the runner did not online both hot-added CPUs: %s" % ev
assert all(e["ok"] for e in added.values()), added
# the guest's own view after the run: CPU 2 online, sharing the socket's
# LLC with the boot CPUs, inside the MC domain
view = {e["cpu"]: e for e in ev if e["event"] == "cpu_view"}
assert view[2]["online"] == "1", view[2]
assert view[2]["llc"] == "0-2", view[2]
assert view[2]["node"] == 0 and view[2]["package"] == "0", view[2]
assert "MC" in view[2]["domains"], view[2]
inv = {i["kind"]: i for i in c["invariants"]}
assert inv["no_lost_work"]["ok"], inv["no_lost_work"]
assert inv["cpus_online_at_end"]["ok"], inv["cpus_online_at_end"]
print("invariant:", inv["cpus_online_at_end"]["summary"])

removed = [a for a in acts if a["action"] == "removed"]
assert len(removed) == 1, removed
if not removed[0]["ok"]:
    print("SKIP (hot-remove): " + removed[0]["error"])
    sys.exit(77)
assert view[3]["online"] == "gone", view[3]
assert inv["cpus_online_at_end"]["summary"].startswith("every CPU that exists at the end (0-2) is online")
PY
case $rc in
0) removal="checked" ;;
77) removal="skipped: the guest did not eject the vCPU" ;;
*) fail "checks on host-faults.jsonl and cases.json" ;;
esac

printf '%s\n' "[scenario]" "name = numa-add" "workload = schbench" "runs = 1" "deadline = 120" \
	"[params]" "message_threads = 1" "workers = 2" "runtime = 8" \
	"[metric wakeup_p99]" "better = lower" \
	"[fault grow]" "kind = vcpu_add" "start = 0.5" "period = 1.5" "count = 2" \
	"[invariant online]" "kind = cpus_online_at_end" >"$TMP/numa-add.ini"
rc=0
"$LAB" run --topo 2s2c,hotplug=2 --scenario "$TMP/numa-add.ini" --accel tcg >"$TMP/out" 2>&1 || rc=$?
cat "$TMP/out"
run=$(sed -n 's/^results: //p' "$TMP/out")
[ "$rc" -eq 0 ] || fail "2s2c,hotplug=2: lab run exited $rc"
python3 - "$run" <<'PY' || fail "hot-added CPUs on socket 1 are not where a boot would put them"
import json, sys
c = json.load(open(sys.argv[1] + "/cases.json"))["cases"][0]
assert c["verdict"] == "PASS", (c["verdict"], c["reason"])
view = {e["cpu"]: e for e in c.get("cpu_events", []) if e["event"] == "cpu_view"}
for cpu in (2, 3):
    v = view[cpu]
    print("cpu%d: online %s, package %s, node %d, LLC %s, domains %s"
          % (cpu, v["online"], v["package"], v["node"], v["llc"], " ".join(v["domains"])))
    # 2s2c at boot gives CPUs 2-3: package 1, node 1, LLC 2-3, domains MC NUMA
    assert (v["online"], v["package"], v["node"], v["llc"], v["domains"]) == \
        ("1", "1", 1, "2-3", ["MC", "NUMA"]), v
PY

# A host fault that cannot act fails its case, as a guest fault would: a
# machine without a free slot cannot take a vCPU.
printf '%s\n' "[scenario]" "name = no-slot" "workload = schbench" "runs = 1" "deadline = 60" \
	"[params]" "message_threads = 1" "workers = 1" "runtime = 4" \
	"[metric wakeup_p99]" "better = lower" \
	"[fault grow]" "kind = vcpu_add" "start = 0.5" "count = 1" >"$TMP/no-slot.ini"
rc=0
"$LAB" run --topo 1s2c --scenario "$TMP/no-slot.ini" --accel tcg >"$TMP/out" 2>&1 || rc=$?
cat "$TMP/out"
run=$(sed -n 's/^results: //p' "$TMP/out")
[ "$rc" -eq 1 ] || fail "no free slot: lab run exited $rc, not 1 (FAIL)"
python3 - "$run" <<'PY' || fail "a vcpu_add without a free slot did not fail its case"
import json, sys
c = json.load(open(sys.argv[1] + "/cases.json"))["cases"][0]
print("no-slot:", c["verdict"], c["reason"])
assert c["verdict"] == "FAIL", c["verdict"]
assert c["reason"].startswith("host fault 'grow' never took effect in run 0: "), c["reason"]
assert [a["ok"] for a in c["host_faults"]] == [False], c["host_faults"]
PY
echo "ok (hot-remove $removal)"
