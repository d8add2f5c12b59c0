#!/bin/bash
# trace-sensitivity.sh - do the decision rows see a scheduler change the
# timings cannot, and stay quiet when nothing changed?  One `lab ab` of the
# Debian kernel against itself (the A/A column) with a sched_feat variant
# (the column that changed), over the `trace` suite (hackbench, schedtrace).
#
#   bench/trace-sensitivity.sh                  3 rounds on 2s2c2t, NO_WA_IDLE
#   ROUNDS=3 TOPO=2s8c2t FEAT=NO_WA_IDLE bench/trace-sensitivity.sh
#
# Every boot is TCG (ACCEL=tcg unless set): the automatic choice probes
# /dev/kvm for 1.5 s per boot, and on a loaded host a QEMU that cannot run
# KVM vCPUs (nested, no vmx) may not have failed yet, so one boot of the
# series got KVM and QEMU's assertion (seen on 2s8c2t at load 30).
#
# Prints per column the decision rows (every metric but "time") flagged
# (improvement or regression: q < 0.05 and outside the no-change band),
# their share, and the timing rows' verdicts of the same runs.  Exit 0 when
# the A/A column flags at most 5 % of its decision rows and the variant
# flags at least one placement or idle-found row, else 1.
set -u
cd "$(dirname "$0")/.." || exit 2

LAB=${LAB:-./lab}
ROUNDS=${ROUNDS:-3}
TOPO=${TOPO:-2s2c2t}
FEAT=${FEAT:-NO_WA_IDLE}
export ACCEL=${ACCEL:-tcg}
TMP=$(mktemp -d /tmp/trace-sensitivity.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$TMP"' EXIT

die() { echo "trace-sensitivity: $*" >&2; exit 2; }
[ -x "$LAB" ] || die "no lab at $LAB (make all)"
command -v python3 >/dev/null || die "python3 is needed to read the JSON"

rc=0
echo "load before: $(uptime)"
t0=$(date +%s)
"$LAB" ab --topo "$TOPO" --base debian --test debian --suite trace --rounds "$ROUNDS" \
	--variant "sched_feat=$FEAT" --label-base A --label-test A2 --results "$TMP" \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
ab=$(ls -d "$TMP"/*-ab-* 2>/dev/null | head -1)
if [ -z "$ab" ] || [ ! -s "$ab/compare.json" ]; then
	sed 's/^/  /' "$TMP/out" "$TMP/err" >&2
	die "lab ab exited $rc without a compare.json"
fi
t1=$(date +%s)
echo "load after:  $(uptime)"
nboots=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["boots"]))' "$ab/ab.json")
echo "lab ab exited $rc (1: some row or case differs), $ab"
echo "$nboots boots in $(( (t1 - t0) / 60 )) min $(( (t1 - t0) % 60 )) s, $(( (t1 - t0) / (nboots ? nboots : 1) )) s a boot (boot, case, trace shipping, metrics)"
# A boot whose case did not pass (a busy host gives TCG guests RCU stall
# splats) leaves its whole side without data in lab ab's pooled compare:
# compare again, every side pooled from its passing boots, and say so.
cmp=$ab/compare.json
read -r -a sides < <(python3 - "$ab/ab.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
by, bad = {}, []
for b in a["boots"]:
    by.setdefault(b["label"], [])
    if b["verdict"] == "PASS":
        by[b["label"]].append(b["run"])
    else:
        bad.append("boot %d (%s): %s" % (b["boot"], b["label"], b["verdict"]))
for x in bad:
    print("left out:", x, file=sys.stderr)
if bad:
    print(" ".join("%s=%s" % (k, "+".join(v)) for k, v in by.items()))
PY
)
if [ ${#sides[@]} -gt 0 ]; then
	args=()
	for s in "${sides[@]}"; do args+=(--label "${s%%=*}"); done
	for s in "${sides[@]}"; do args+=("${s#*=}"); done
	"$LAB" compare --json "${args[@]}" >"$TMP/compare.json" 2>"$TMP/cmp.err"
	[ -s "$TMP/compare.json" ] || die "lab compare of the passing boots failed: $(head -1 "$TMP/cmp.err")"
	cmp=$TMP/compare.json
fi

python3 - "$cmp" "$TOPO" "$ROUNDS" "$FEAT" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
print("trace sensitivity: %s, %s rounds, base A vs A2 (same kernel) and A-%s" % (
    sys.argv[2], sys.argv[3], sys.argv[4]))
cols = {}
for r in c["rows"]:
    cols.setdefault(r["test"]["run"], []).append(r)
flagged_kinds = ("improvement", "regression")
def num(cell):
    v = cell.get("mean")
    return float("nan") if v is None else v
def q(r):
    v = r["comparison"].get("q")
    return float("nan") if v is None else v
ok = True
for run, rows in cols.items():
    dec = [r for r in rows if r["metric"] != "time"]
    tim = [r for r in rows if r["metric"] == "time"]
    fl = [r for r in dec if r["verdict"] in flagged_kinds]
    share = 100.0 * len(fl) / len(dec) if dec else 0
    print("\ncolumn %s: %d of %d decision rows flagged (%.1f %%)" % (run, len(fl), len(dec), share))
    for r in sorted(fl, key=q):
        print("  %-22s %-11s base %10.3f  test %10.3f  q %.2g" % (
            r["metric"], r["verdict"], num(r["base"]), num(r["test"]), q(r)))
    for r in tim:
        print("  timing %-15s %-11s base %.4f s  test %.4f s  q %.2g" % (
            r["metric"], r["verdict"], num(r["base"]), num(r["test"]), q(r)))
    if run == "A2":
        ok &= share <= 5.0
    else:
        ok &= any(r["metric"].startswith(("wake_", "idle_found")) for r in fl)
sys.exit(0 if ok else 1)
PY
