# libvirt-vcpu-hotplug - vCPU hot-add and hot-remove under the libvirt
# backend go through libvirt's own API (virDomainSetVcpu), not QMP
# device_add: 1s4c booted with 2 CPUs and 2 hotpluggable slots; the host
# adds vCPUs 2 and 3, the guest's runner onlines them, the host removes 3.
# The domain XML must declare the spare vCPUs hotpluggable, every action
# must say it went through libvirt, and the guest must see CPU 2 online in
# the socket's LLC.
. "$(dirname "$0")/lib.sh"
command -v libvirtd >/dev/null || skip "libvirtd is not installed (libvirt-daemon-system)"
rc=0
"$LAB" run --topo 1s4c,hotplug=2 --scenario scenarios/fault-host-vcpu-hotplug.ini --accel tcg \
	--backend libvirt >"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"; sed 's/^/stderr: /' "$TMP/err"
if [ "$rc" -ne 0 ] && grep -q 'cannot start libvirtd' "$TMP/err"; then
	skip "libvirtd cannot start here: $(grep -m1 'cannot start' "$TMP/err")"
fi
run=$(sed -n 's/^results: //p' "$TMP/out")
[ "$rc" -eq 0 ] || fail "lab run exited $rc"
grep -q "<vcpu placement='static' current='2'>4</vcpu>" "$run/domain.xml" || fail "domain.xml: vcpu current"
grep -q "<vcpu id='3' enabled='no' hotpluggable='yes'/>" "$run/domain.xml" ||
	fail "domain.xml: vCPU 3 is not a hotpluggable slot"
python3 - "$run" <<'PY' || fail "host-faults.jsonl / cases.json"
import json, sys
run = sys.argv[1]
acts = [json.loads(l) for l in open(run + "/host-faults.jsonl")]
for a in acts:
    print("host %7.3f s  %-11s %-8s %s %s" % (a["t_s"], a["kind"], a["action"],
          "ok" if a["ok"] else "FAILED", a.get("detail", a.get("error", ""))))
adds = [a for a in acts if a["action"] == "device_add"]
assert len(adds) == 2 and all(a["ok"] for a in adds), adds
assert adds[0]["detail"].startswith("vCPU 2 (") and adds[1]["detail"].startswith("vCPU 3 ("), adds
assert all(" through libvirt in " in a["detail"] for a in adds), "hot-add did not use libvirt"
dels = [a for a in acts if a["action"] == "device_del"]
assert len(dels) == 1 and dels[0]["ok"] and " through libvirt in " in dels[0]["detail"], dels
c = json.load(open(run + "/cases.json"))["cases"][0]
assert c["verdict"] == "PASS", (c["verdict"], c["reason"])
ev = c.get("cpu_events", [])
added = {e["cpu"]: e for e in ev if e["event"] == "cpu_added"}
assert set(added) == {2, 3} and all(e["ok"] for e in added.values()), ev
view = {e["cpu"]: e for e in ev if e["event"] == "cpu_view"}
assert view[2]["online"] == "1" and view[2]["llc"] == "0-2", view[2]
print("guest: cpu2 online, LLC %s, domains %s" % (view[2]["llc"], " ".join(view[2]["domains"])))
removed = [a for a in acts if a["action"] == "removed"]
assert len(removed) == 1, removed
if removed[0]["ok"]:
    assert view[3]["online"] == "gone", view[3]
    print("guest: cpu3 gone after the unplug")
else:
    print("hot-remove: the guest did not eject vCPU 3: " + removed[0]["error"])
PY
echo ok
