# records-console - the LAVA transport without LAVA: the smoke suite on
# 1s2c2t twice, records on the second serial and as SLRT lines on the one
# console (LAB_RECORDS=console); both result directories must hold the same
# files, cases and verdicts.  Then the console run's console.log, wrapped as
# a LAVA job log (lava-log.py), goes through lab lava import: the same
# records.bin, cases and verdicts, and lab compare pairs it with the local
# run; an Incomplete job is a HANG with LAVA's message; scheduler settings
# the job asked for are checked against the guest's report.  About 1 min under
# TCG (two 25-30 s runs, the imports take a second).
. "$(dirname "$0")/lib.sh"
smoke() {
	rc=0
	"$LAB" run --topo 1s2c2t --suite smoke --accel tcg >"$TMP/out" 2>"$TMP/err" || rc=$?
	cat "$TMP/out"; sed 's/^/stderr: /' "$TMP/err"
	run=$(sed -n 's/^results: //p' "$TMP/out")
	[ "$rc" -eq 0 ] || fail "lab run ($1) exited $rc"
	[ -d "$run" ] || fail "no run directory ($1)"
}
smoke port; port=$run
LAB_RECORDS=console smoke console; cons=$run
grep -q '^SLRT ' "$cons/console.log" || fail "no SLRT line on the console"
grep -q '^SLRT ' "$port/console.log" && fail "SLRT lines on the console of a port run"
python3 - "$port" "$cons" <<'PY' || fail "the two transports differ"
import json, os, sys
a, b = sys.argv[1:]
fa, fb = sorted(os.listdir(a)), sorted(os.listdir(b))
assert fa == fb, (fa, fb)
def cases(d):
    return {c["case"]: c["verdict"] for c in json.load(open(d + "/cases.json"))["cases"]}
assert cases(a) == cases(b), (cases(a), cases(b))
va, vb = (json.load(open(d + "/verdict.json")) for d in (a, b))
assert va["verdict"] == vb["verdict"] == "PASS", (va, vb)
assert va.get("topology") == vb.get("topology") == "PASS", (va.get("topology"), vb.get("topology"))
ra, rb = (json.load(open(d + "/run.json")) for d in (a, b))
assert rb.get("records") == "console" and "records" not in ra, (ra.get("records"), rb.get("records"))
print("same:", len(fa), "files,", len(cases(a)), "cases")
PY
grep -q '^topology: PASS' "$TMP/out" || fail "topology not verified over the console"

# lab lava import of the same console, as LAVA would have logged it
python3 tests/integration/lava-log.py "$cons/console.log" >"$TMP/job.yaml"
printf '{"server": "http://lava.test", "job_id": 7, "device": "qemu-01", "device_type": "qemu",
 "health": "Complete", "spec": "1s2c2t", "suite": "smoke", "kernel": "%s"}\n' \
	"$(json "$cons/run.json" 'd["kernel"]')" >"$TMP/job.json"
rc=0
"$LAB" lava import --job "$TMP/job.json" --plan "$cons/plan.txt" "$TMP/job.yaml" >"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"; sed 's/^/stderr: /' "$TMP/err"
[ "$rc" -eq 0 ] || fail "lab lava import exited $rc"
imp=$(sed -n 's/^results: //p' "$TMP/out")
cmp "$cons/records.bin" "$imp/records.bin" || fail "records.bin differs after the import"
grep -qx 'topology: PASS' "$TMP/out" || fail "imported topology not verified"
python3 - "$cons" "$imp" <<'PY' || fail "the import differs from the run"
import json, sys
a, b = sys.argv[1:]
def cases(d):
    return {c["case"]: c["verdict"] for c in json.load(open(d + "/cases.json"))["cases"]}
assert cases(a) == cases(b), (cases(a), cases(b))
lava = json.load(open(b + "/run.json"))["lava"]
assert lava["job_id"] == "7" and lava["device_type"] == "qemu", lava
assert json.load(open(b + "/verdict.json"))["verdict"] == "PASS"
# the scheduler's report, from the snapshot the records carry
for f in ("sched-features.json", "sched-knobs.json"):
    ja, jb = (json.load(open(d + "/" + f)) for d in (a, b))
    assert ja == jb, (f, ja, jb)
print("same sched-features.json and sched-knobs.json")
PY
"$LAB" compare "$port" "$imp" >"$TMP/cmp" 2>&1 || { cat "$TMP/cmp"; fail "lab compare of a local and an imported run"; }
"$LAB" report "$imp" >/dev/null || fail "lab report of the import"

# settings the job asked for, checked against the guest's report: the run
# had WA_IDLE on, so a job that asked for NO_WA_IDLE is a FAIL, and one
# that asked for a feature the kernel lacks too
for want in NO_WA_IDLE:'not in effect' NO_NOSUCHFEAT:'unknown scheduler feature'; do
	sed "s/\"health\"/\"sched_feat\": \"${want%%:*}\", \"smt\": \"on\", \"health\"/" "$TMP/job.json" >"$TMP/job3.json"
	rc=0
	"$LAB" lava import --job "$TMP/job3.json" --plan "$cons/plan.txt" "$TMP/job.yaml" >"$TMP/out" 2>&1 || rc=$?
	tail -2 "$TMP/out"
	[ "$rc" -eq 1 ] || fail "a job that asked for ${want%%:*} imported with exit $rc"
	grep -q "^verdict: FAIL: .*${want#*:}" "$TMP/out" || fail "the import does not say ${want#*:}"
	imp3=$(sed -n 's/^results: //p' "$TMP/out")
	python3 - "$imp3" "${want%%:*}" <<'PY' || fail "run.json or sched-features.json of the import"
import json, sys
d, want = sys.argv[1:]
run = json.load(open(d + "/run.json"))
assert run["sched_feat"] == [want] and run["smt"] == "on", run
assert json.load(open(d + "/sched-features.json"))["requested"] == [want]
PY
done

python3 tests/integration/lava-log.py "$cons/console.log" --incomplete >"$TMP/job2.yaml"
sed 's/"Complete"/"Incomplete"/' "$TMP/job.json" >"$TMP/job2.json"
rc=0
"$LAB" lava import --job "$TMP/job2.json" --plan "$cons/plan.txt" "$TMP/job2.yaml" >"$TMP/out" 2>&1 || rc=$?
cat "$TMP/out"
[ "$rc" -eq 1 ] || fail "an incomplete job imported with exit $rc"
grep -q '^verdict: HANG: LAVA job incomplete: lava-test-monitor timed out' "$TMP/out" ||
	fail "an incomplete job is not a HANG with LAVA's message"
"$LAB" lava export --topo 1s2c2t --suite smoke --artifacts "file://$TMP/export" \
	--out "$TMP/export" >/dev/null || fail "lab lava export"
for f in job.json bzImage initrd.cpio plan.txt; do
	[ -s "$TMP/export/$f" ] || fail "lab lava export wrote no $f"
done
cmp -s "$TMP/export/plan.txt" "$cons/plan.txt" || fail "the exported plan is not lab run's"
python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); assert j["device_type"] == "qemu"' \
	"$TMP/export/job.json" || fail "job.json"
n=$(ls -a "$LAB_RESULTS" | grep -c '^\.lava-import' || true)
[ "$n" -eq 0 ] || fail "a temporary import directory was left"
echo ok
