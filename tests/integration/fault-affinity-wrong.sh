# fault-affinity-wrong - an affinity invariant with a deliberately wrong
# expectation (hackbench pinned to CPU 0, it is not) must FAIL the case
# with evidence: which task, on which CPU, when.
. "$(dirname "$0")/lib.sh"
cat >"$TMP/wrong-affinity.ini" <<'INI'
[scenario]
name = wrong-affinity
description = test: expects hackbench on CPU 0 only, which it is not
workload = hackbench
runs = 1
deadline = 90

[params]
groups = 1
loops = 100

[metric time]
better = lower

[invariant pinned]
kind = affinity_respected
cpus = 0
interval = 0.1

[invariant work]
kind = no_lost_work
INI
rc=0
"$LAB" run --topo 1s4c --scenario "$TMP/wrong-affinity.ini" --accel tcg \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"; sed 's/^/stderr: /' "$TMP/err"
run=$(sed -n 's/^results: //p' "$TMP/out")
[ "$rc" -eq 1 ] || fail "lab run exited $rc, expected 1 (FAIL)"
grep -q "^topology: PASS" "$TMP/out" || fail "the topology was not verified"
grep -q "^FAIL  *wrong-affinity .*invariant 'pinned' (affinity_respected) broken" "$TMP/out" ||
	fail "the case line does not name the broken invariant"
python3 - "$run/cases.json" "$run/verdict.json" <<'PY' || fail "checks on the evidence"
import json, sys
c = json.load(open(sys.argv[1]))["cases"][0]
assert c["verdict"] == "FAIL", c["verdict"]
assert c["reason"].startswith("invariant 'pinned' (affinity_respected) broken in run 0: "), c["reason"]
inv = {i["invariant"]: i for i in c["invariants"]}
assert inv["work"]["ok"], inv["work"]        # the work itself was fine
bad = inv["pinned"]
assert not bad["ok"]
ev = bad["evidence"]
assert 1 <= len(ev) <= 8, ev
for e in ev:
    assert e["tid"] > 1 and e["comm"], e
    assert e["cpu"] != 0 and e["expected"] == "0", e
    assert e["t_s"] >= 0 and e["why"] == "outside the expected CPUs", e
v = json.load(open(sys.argv[2]))
assert v["verdict"] == "FAIL", v
print("evidence:", ev[0])
PY
echo ok
