# fault-host - the host's own faults through QMP during a run: the guest is
# paused and resumed, NMI'd, and its vCPU threads throttled, every action is
# logged with its time, and the workloads still pass; a guest paused and
# never resumed is a HANG within its deadline + 10 s, not a hung lab.
. "$(dirname "$0")/lib.sh"
rc=0
"$LAB" run --topo 2s2c2t --suite host-faults --accel tcg >"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"; sed 's/^/stderr: /' "$TMP/err"
run=$(sed -n 's/^results: //p' "$TMP/out")
[ "$rc" -eq 0 ] || fail "lab run exited $rc"
python3 - "$run/host-faults.jsonl" <<'PY' || fail "host-faults.jsonl"
import json, sys
acts = [json.loads(l) for l in open(sys.argv[1])]
assert all(a["ok"] for a in acts), [a for a in acts if not a["ok"]]
seen = {(a["kind"], a["action"]) for a in acts}
for want in [("pause", "stop"), ("pause", "cont"), ("nmi", "nmi"),
             ("vcpu_throttle", "throttle"), ("vcpu_throttle", "unthrottle")]:
    assert want in seen, (want, seen)
t = [a["t_s"] for a in acts]
assert t == sorted(t), "actions out of order"
print(len(acts), "host actions")
PY
grep -q 'NMI received' "$run/console.log" || fail "the NMI left no trace on the console"

# frozen for a day: the lab's deadline thaws it, takes its backtraces and
# turns it into a HANG
printf '%s\n' "[scenario]" "name = frozen" "workload = hackbench" "deadline = 30" "runs = 1" \
	"[params]" "loops = 50" "[metric time]" "better = lower" \
	"[fault freeze]" "kind = pause" "start = 0.1" "count = 1" "hold = 86400" >"$TMP/frozen.ini"
start=$(date +%s)
rc=0
"$LAB" run --topo 1s2c --scenario "$TMP/frozen.ini" --accel tcg --timeout 40 >"$TMP/out" 2>&1 || rc=$?
took=$(($(date +%s) - start))
cat "$TMP/out"
[ "$rc" -eq 1 ] || fail "frozen guest: exit $rc"
grep -q '^verdict: HANG' "$TMP/out" || fail "frozen guest is not a HANG"
[ "$took" -le 55 ] || fail "frozen guest took $took s (deadline 40 s)"
echo ok
