#!/bin/bash
# eevdf-72.sh - a Linux 7.x kernel with lazy preemption ($LAB_TEST_KERNEL_72,
# a path or a name; default debian:7.2, SKIP when it cannot be fetched; in
# the slow lane: the first fetch is 125 MB): preempt=lazy and a 300 us slice in effect in one
# 1s2c boot; preempt=none refused before boot by its config, and by the
# boot itself when the kernel comes without its config (one line, exit 2,
# nothing kept).
. "$(dirname "$0")/lib.sh"
k=${LAB_TEST_KERNEL_72:-debian:7.2}
"$LAB" kernel "$k" --json >"$TMP/kernel.json" 2>"$TMP/err" || skip "no kernel $k here: $(cat "$TMP/err")"
rel=$(json "$TMP/kernel.json" 'd["release"]')
cfg=$(json "$TMP/kernel.json" 'd["config"]')
img=$(json "$TMP/kernel.json" 'd["bzimage"] or d["vmlinux"]')
[ -n "$cfg" ] || skip "$k has no config beside it (config or config-$rel)"
grep -q '^CONFIG_PREEMPT_LAZY=y' "$cfg" || skip "$rel has no CONFIG_PREEMPT_LAZY"
scen=scenarios/slice-hackbench.ini

expect_bad "preempt=none on $rel" "$LAB" run --topo 1s2c --accel tcg --scenario "$scen" --kernel "$k" --preempt none
grep -q "does not offer preempt=none: its config has no CONFIG_PREEMPT_NONE" "$TMP/err" || fail "the refusal does not say why"

rc=0
"$LAB" run --topo 1s2c --accel tcg --scenario "$scen" --kernel "$k" --preempt lazy \
	--sched-knob base_slice_ns=2000000 >"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"
sed 's/^/stderr: /' "$TMP/err"
[ "$rc" -eq 0 ] || fail "lab run on $rel exited $rc"
run=$(sed -n 's/^results: //p' "$TMP/out")
[ "$(json "$run/sched-knobs.json" 'd["preempt"]["active"]')" = lazy ] || fail "the guest does not run preempt=lazy"
[ "$(json "$run/sched-knobs.json" 'd["knobs"]["base_slice_ns"]')" = 2000000 ] || fail "base_slice_ns not in effect"
[ "$(json "$run/run.json" 'd["preempt"]')" = lazy ] || fail "run.json does not record the mode"
python3 - "$run" <<'PY' || fail "the case did not run with its slice"
import json, sys
for line in open(sys.argv[1] + "/results.jsonl"):
    r = json.loads(line)
    print("  %s: %s, counters %s" % (r["case"], r["status"], r.get("counters")))
    assert r["status"] == "ok" and r["counters"]["slice_us"] == 300, r
PY
echo "  the guest: preempt $(json "$run/sched-knobs.json" 'd["preempt"]["active"]') of" \
	"$(json "$run/sched-knobs.json" 'd["preempt"]["offered"]')"

# without its config the lab cannot tell: the boot does, and nothing is kept
rm -rf "$TMP/results"
mkdir -p "$TMP/k"
cp "$img" "$TMP/k/vmlinuz"
expect_bad_boot "preempt=none, no config" "$LAB" run --topo 1s2c --accel tcg --scenario "$scen" \
	--kernel "$TMP/k/vmlinuz" --preempt none
grep -q "does not offer preempt=none (it offers: full lazy)" "$TMP/err" || fail "the boot's refusal does not say why"
echo "PASS: $rel: preempt=lazy, base_slice_ns and slice_us in effect; preempt=none refused by the config, and by the boot without it"
