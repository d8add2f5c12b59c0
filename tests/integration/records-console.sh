# records-console - the LAVA transport without LAVA: the smoke suite on
# 1s2c2t twice, records on the second serial and as SLRT lines on the one
# console (LAB_RECORDS=console); both result directories must hold the same
# files, cases and verdicts.  About 1 min under TCG (two 25-30 s runs).
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
echo ok
