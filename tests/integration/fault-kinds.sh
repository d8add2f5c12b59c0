# fault-kinds - the faults suite in one small 2-node guest: every guest
# fault kind acts at least once under load and puts everything back, every
# invariant kind is judged; fail_inject SKIPs on a kernel without
# CONFIG_FAULT_INJECTION (Debian's) with the reason, and runs on one with it.
. "$(dirname "$0")/lib.sh"
rc=0
"$LAB" run --topo 2s2c2t,llc=1 --suite faults --accel tcg ${KERNEL:+--kernel "$KERNEL"} \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"; sed 's/^/stderr: /' "$TMP/err"
run=$(sed -n 's/^results: //p' "$TMP/out")
[ "$rc" -eq 0 ] || fail "lab run exited $rc"
# the runner's own registry names the kinds
kinds=$("${O:-build}"/guest/runner --list-faults | awk -F'\t' '!/^ / { print $1 }' | tr '\n' ' ')
invs=$("${O:-build}"/guest/runner --list-invariants | awk -F'\t' '!/^ / { print $1 }' | tr '\n' ' ')
[ -n "$kinds" ] && [ -n "$invs" ] || fail "cannot read the registries"
python3 - "$run/cases.json" "$kinds" "$invs" <<'PY' || fail "checks on cases.json"
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
kinds, invs = sys.argv[2].split(), sys.argv[3].split()
acted, judged = set(), set()
for c in cases:
    if c["verdict"] == "SKIP":
        continue
    assert c["verdict"] == "PASS", (c["case"], c["reason"])
    for t in c["timeline"]:
        if t["ok"]:
            acted.add(t["kind"])
    for f in c["faults"]:
        assert f["started"] and f["restored"] and f["actions"] >= 1, (c["case"], f)
    for i in c["invariants"]:
        assert i["ok"], (c["case"], i)
        judged.add(i["kind"])
fi = [c for c in cases if c["case"] == "fault-fail-inject"][0]
if fi["verdict"] == "SKIP":
    assert "CONFIG_FAULT_INJECTION" in fi["reason"], fi["reason"]
    kinds.remove("fail_inject")
    print("fail_inject:", fi["reason"])
missing = [k for k in kinds if k not in acted]
assert not missing, "fault kinds that never acted: %s" % missing
unjudged = [k for k in invs if k not in judged]
assert not unjudged, "invariant kinds never judged: %s" % unjudged
print("acted:", sorted(acted), "judged:", sorted(judged))
PY
echo ok
