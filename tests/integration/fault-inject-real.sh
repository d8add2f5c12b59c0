#!/bin/bash
# fault-inject-real - scenarios/fault-fail-inject.ini on a kernel built with
# the `faults` fragment runs for real: not SKIP (as on Debian's kernel), the
# failslab attribute is enabled for the workload's tasks and disabled again
# in turn, the fault reports started and restored, the knobs read as before.
#
# Needs the lab-base + faults kernel in the cache (`make kernel KSRC=/usr/src/
# linux-source-6.1.tar.xz CONFIGS=faults`, about 8 minutes here); without it
# the test is SKIP unless FAULTS_BUILD=1, which builds it.  About 15 s.
. "$(dirname "$0")/lib.sh"

TARBALL=/usr/src/linux-source-6.1.tar.xz
rc=0
"$LAB" kernel build --ksrc "$TARBALL" --config faults --key-only >"$TMP/kout" 2>&1 || rc=$?
cat "$TMP/kout"
[ "$rc" -eq 0 ] || skip "cannot compute the faults kernel's key (no $TARBALL?)"
key=$(sed -n 's/^key: //p' "$TMP/kout")
if ! grep -qx 'cached: yes' "$TMP/kout"; then
	[ "${FAULTS_BUILD:-0}" = 1 ] || skip "faults kernel $key is not built (FAULTS_BUILD=1 builds it, ~8 min)"
	"$LAB" kernel build --ksrc "$TARBALL" --config faults || fail "building the faults kernel"
fi
grep -qx 'CONFIG_FAULT_INJECTION=y' "${LAB_CACHE:-$PWD/.cache}/kernels/built/$key/config" ||
	fail "kernel $key has no CONFIG_FAULT_INJECTION"

rc=0
"$LAB" run --topo 1s2c --scenario scenarios/fault-fail-inject.ini --kernel "$key" --accel tcg \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"; sed 's/^/stderr: /' "$TMP/err"
run=$(sed -n 's/^results: //p' "$TMP/out")
[ "$rc" -eq 0 ] || fail "lab run exited $rc"
python3 - "$run/cases.json" <<'PY' || fail "checks on cases.json"
import json, sys
c = json.load(open(sys.argv[1]))["cases"][0]
assert c["case"] == "fault-fail-inject", c["case"]
assert c["verdict"] == "PASS", (c["verdict"], c["reason"])
f = c["faults"][0]
assert f["kind"] == "fail_inject" and f["started"] and f["restored"], f
assert f["actions"] >= 2 and not f["failed"] and not f["errors"], f
acts = [t for t in c["timeline"] if t["kind"] == "fail_inject"]
en = [t for t in acts if t["action"] == "enable" and t["ok"]]
dis = [t for t in acts if t["action"] == "disable" and t["ok"]]
assert en and dis, acts
assert all("failslab probability 10%" in t["detail"] for t in en), en
assert all(i["ok"] for i in c["invariants"]), c["invariants"]
print("fail_inject acted: %d enables, %d disables; %s" % (
    len(en), len(dis), c["invariants"][0]["summary"]))
PY
echo ok
