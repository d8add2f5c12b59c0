#!/bin/bash
# eevdf-612.sh - the EEVDF knobs on a Linux 6.12 kernel ($LAB_TEST_KERNEL_612,
# a path or a name; default debian:6.12, SKIP when it cannot be fetched): one 1s2c boot with base_slice_ns=3000000, preempt=full
# and slice_us=300 on exec, hackbench and schbench, each confirmed by the
# guest; lazy refused before boot by the config; lab ab --variant
# base_slice_ns=3000000 --warm (6 restores of one saved guest) gives a
# third column whose boots, and only theirs, ran with it.
. "$(dirname "$0")/lib.sh"
k=${LAB_TEST_KERNEL_612:-debian:6.12}
"$LAB" kernel "$k" --json >"$TMP/kernel.json" 2>"$TMP/err" || skip "no kernel $k here: $(cat "$TMP/err")"
rel=$(json "$TMP/kernel.json" 'd["release"]')
case $rel in 6.12.*) ;; *) fail "LAB_TEST_KERNEL_612 is $rel, not 6.12" ;; esac

expect_bad "preempt=lazy on 6.12" "$LAB" run --topo 1s2c --accel tcg --suite slice --kernel "$k" --preempt lazy
grep -q "has no CONFIG_PREEMPT_LAZY" "$TMP/err" || fail "the refusal does not say why"

rc=0
"$LAB" run --topo 1s2c --accel tcg --suite slice --kernel "$k" \
	--sched-knob base_slice_ns=3000000 --preempt full >"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"
sed 's/^/stderr: /' "$TMP/err"
[ "$rc" -eq 0 ] || fail "lab run on $rel exited $rc"
run=$(sed -n 's/^results: //p' "$TMP/out")
grep -qx 'sched_knob: base_slice_ns=3000000' "$TMP/out" || fail "the setup does not show the knob"
grep -qx 'preempt: full' "$TMP/out" || fail "the setup does not show the mode"
[ "$(json "$run/run.json" 'd["sched_knob"]')" = "{'base_slice_ns': 3000000}" ] || fail "run.json: no sched_knob"
[ "$(json "$run/sched-knobs.json" 'd["knobs"]["base_slice_ns"]')" = 3000000 ] ||
	fail "the guest does not read base_slice_ns 3000000"
[ "$(json "$run/sched-knobs.json" 'd["preempt"]["active"]')" = full ] || fail "the guest does not run preempt=full"
python3 - "$run" <<'PY' || fail "a case did not run with its slice"
import json, sys
cases = json.load(open(sys.argv[1] + "/cases.json"))["cases"]
assert len(cases) == 4, [c["case"] for c in cases]
for line in open(sys.argv[1] + "/results.jsonl"):
    r = json.loads(line)
    print("  %s: %s, counters %s" % (r["case"], r["status"], r.get("counters")))
    assert r["status"] == "ok" and r["counters"]["slice_us"] == 300, r
PY
echo "  the guest: base_slice_ns $(json "$run/sched-knobs.json" 'd["knobs"]["base_slice_ns"]'), preempt" \
	"$(json "$run/sched-knobs.json" 'd["preempt"]["active"]') of $(json "$run/sched-knobs.json" 'd["preempt"]["offered"]')"

rc=0
# warm: all six boots restore the one guest saved without the knob, and
# the variant's boots set it after their restore
"$LAB" ab --topo 1s2c --base "$k" --test "$k" --suite ab-tiny --rounds 1 --variant base_slice_ns=3000000 \
	--warm --label-base tip --label-test patched >"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"
sed 's/^/stderr: /' "$TMP/err"
[ "$rc" -le 1 ] || fail "lab ab exited $rc"
dir=$(sed -n 's/^ab: directory //p' "$TMP/out")
order=$(json "$dir/ab.json" '",".join(d["order"])')
[ "$order" = "base,test,base-slice-ns,base-slice-ns,test,base" ] || fail "boot order is $order"
[ "$(json "$dir/ab.json" 'd["sides"][2]["variant"]')" = base_slice_ns=3000000 ] || fail "ab.json: no variant"
grep -q '^Case: *tip\[pct imp\](CV) *patched\[pct imp\](CV) *tip-base_slice_ns=3000000\[pct imp\](CV)' "$TMP/out" ||
	fail "the table has no tip-base_slice_ns=3000000 column"
for i in 0 1 2 3 4 5; do
	run=$(json "$dir/ab.json" "d['boots'][$i]['run']")
	side=$(json "$dir/ab.json" "d['boots'][$i]['side']")
	slice=$(json "$run/sched-knobs.json" 'd["knobs"]["base_slice_ns"]')
	echo "  boot $((i + 1)): $side, base_slice_ns $slice"
	[ "$(json "$dir/ab.json" "d['boots'][$i]['verdict']")" = PASS ] || fail "boot $((i + 1)) did not pass"
	if [ "$side" = base-slice-ns ]; then
		[ "$slice" = 3000000 ] || fail "boot $((i + 1)): the variant runs $slice"
	else
		[ "$slice" != 3000000 ] || fail "boot $((i + 1)): 3000000 without the variant"
	fi
	json "$run/run.json" 'd["snapshot"]' >>"$TMP/keys"
done
[ "$(sort -u "$TMP/keys" | wc -l)" -eq 1 ] || fail "the boots restored more than one saved guest: $(sort -u "$TMP/keys")"
! grep -q 'two saved guests' "$TMP/err" || fail "the ab warned of two saved guests"
pool_refused "$dir" "cannot pool runs with scheduler knobs 'default'"
echo "PASS: $rel: base_slice_ns, preempt=full and slice_us in effect in the guest; lazy refused; an ab column with the knob, set after restoring one saved guest"
