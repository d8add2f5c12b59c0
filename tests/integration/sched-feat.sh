#!/bin/bash
# sched-feat.sh - lab run --sched-feat on 1s2c: a bad name is refused before
# boot; an unknown feature after the boot that reports the kernel's list
# (nothing kept) and before boot once that list is cached; NO_WA_IDLE is
# set by the runner before the first case, confirmed by the guest and in run.json;
# lab ab --variant sched_feat=NO_WA_IDLE adds a column with it, and stops
# after its first boot when that boot shows a feature unknown; --warm sets
# the feature after restoring the one guest saved without it.
. "$(dirname "$0")/lib.sh"
scen=scenarios/smoke-exec.ini

expect_bad "a name with a blank" "$LAB" run --topo 1s2c --scenario $scen --sched-feat 'bad name'
grep -q "not a scheduler feature name" "$TMP/err" || fail "the error does not say why"
expect_bad "a lower-case name" "$LAB" run --topo 1s2c --scenario $scen --sched-feat no_wa_idle
expect_bad "a feature twice" "$LAB" run --topo 1s2c --scenario $scen --sched-feat WA_IDLE,NO_WA_IDLE

# The kernel's list is cached per kernel image after every boot; without it
# an unknown feature is found by the boot itself.
cache=${LAB_CACHE:-.cache}/sched-features
rm -f "$cache"/*
start=$(date +%s)
expect_bad_boot "an unknown feature, no list cached" \
	"$LAB" run --topo 1s2c --scenario $scen --accel tcg --sched-feat NO_WA_IDLE,NO_NOT_A_FEATURE
grep -q "unknown scheduler feature 'NOT_A_FEATURE' in kernel .*(it has: .*WA_IDLE" "$TMP/err" ||
	fail "the error does not name the feature and the kernel's list"
grep -q '^sched_feat: NO_WA_IDLE NO_NOT_A_FEATURE$' "$TMP/out" || fail "no boot was made"
ls "$cache"/* >/dev/null 2>&1 || fail "the boot cached no feature list"
echo "  (found after a boot of $(($(date +%s) - start)) s; list cached: $(ls "$cache"))"

expect_bad "an unknown feature, list cached" \
	"$LAB" run --topo 1s2c --scenario $scen --accel tcg --sched-feat NO_NOT_A_FEATURE
grep -q "unknown scheduler feature 'NOT_A_FEATURE'" "$TMP/err" || fail "the error does not name the feature"
[ ! -s "$TMP/out" ] || fail "refused, but it printed a setup: $(cat "$TMP/out")"

# lab ab without a cached list: the base's first boot caches it and the ab
# stops there, before the variant boots, and removes its directory
rm -f "$cache"/*
rc=0
"$LAB" ab --topo 1s2c --base debian --test debian --suite ab-tiny --variant sched_feat=NO_NOT_A_FEATURE \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
sed 's/^/lab ab, no list cached: /' "$TMP/err"
[ "$rc" -eq 2 ] || fail "lab ab with an unknown feature exited $rc, not 2"
tail -n 1 "$TMP/err" | grep -q "^lab: error: --variant sched_feat: unknown scheduler feature 'NOT_A_FEATURE'" ||
	fail "lab ab does not end with the unknown feature"
grep -q "boot 2/6" "$TMP/err" && fail "lab ab booted on after the kernel's list was known"
[ -z "$(ls -A "$TMP/results")" ] || fail "lab ab left its directory: $(ls "$TMP/results")"

expect_bad "an unknown variant feature, list cached" "$LAB" ab --topo 1s2c --base debian --test debian \
	--suite ab-tiny --variant sched_feat=NO_NOT_A_FEATURE
grep -q "^lab: error: --variant sched_feat: unknown scheduler feature 'NOT_A_FEATURE'" "$TMP/err" ||
	fail "lab ab does not name the unknown feature"

rc=0
"$LAB" run --topo 1s2c --scenario $scen --accel tcg --sched-feat NO_WA_IDLE >"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"
sed 's/^/stderr: /' "$TMP/err"
[ "$rc" -eq 0 ] || fail "lab run --sched-feat NO_WA_IDLE exited $rc"
run=$(sed -n 's/^results: //p' "$TMP/out")
[ "$(json "$run/run.json" 'd["sched_feat"]')" = "['NO_WA_IDLE']" ] || fail "run.json does not record it"
json "$run/run.json" 'd["cmdline"]' | grep -qw 'lab.sched_feat=NO_WA_IDLE' || fail "not on the command line"
# the guest read the features file back after writing it
[ "$(json "$run/sched-features.json" 'd["features"]["WA_IDLE"]')" = False ] ||
	fail "the guest does not report WA_IDLE off"
[ "$(json "$run/sched-features.json" 'd["features"]["SIS_UTIL"]')" = True ] ||
	fail "the guest reports SIS_UTIL changed"
[ "$(json "$run/verdict.json" 'd["verdict"]')" = PASS ] || fail "the run did not pass"

# lab ab --variant sched_feat=: a third column, the base kernel with the feature off
rc=0
"$LAB" ab --topo 1s2c --base debian --test debian --suite ab-tiny --rounds 1 \
	--variant sched_feat=NO_WA_IDLE --label-base tip --label-test patched >"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"
sed 's/^/stderr: /' "$TMP/err"
[ "$rc" -le 1 ] || fail "lab ab exited $rc"
dir=$(sed -n 's/^ab: directory //p' "$TMP/out")
order=$(json "$dir/ab.json" '",".join(d["order"])')
[ "$order" = "base,test,sched-feat,sched-feat,test,base" ] || fail "boot order is $order"
grep -q '^Case: *tip\[pct imp\](CV) *patched\[pct imp\](CV) *tip-NO_WA_IDLE\[pct imp\](CV)' "$TMP/out" ||
	fail "the table has no tip, patched and tip-NO_WA_IDLE columns"
for i in 0 1 2 3 4 5; do
	run=$(json "$dir/ab.json" "d['boots'][$i]['run']")
	side=$(json "$dir/ab.json" "d['boots'][$i]['side']")
	[ "$(json "$dir/ab.json" "d['boots'][$i]['verdict']")" = PASS ] || fail "boot $((i + 1)) did not pass"
	wa=$(json "$run/sched-features.json" 'd["features"]["WA_IDLE"]')
	echo "  boot $((i + 1)): $side, WA_IDLE $wa"
	if [ "$side" = sched-feat ]; then
		[ "$wa" = False ] || fail "boot $((i + 1)): WA_IDLE is on in the variant"
	else
		[ "$wa" = True ] || fail "boot $((i + 1)): WA_IDLE is off without the variant"
	fi
done
# lab compare refuses to pool a run with the feature off into a default side
pool_refused "$dir" "cannot pool runs with scheduler features 'default'"

# --warm: one saved guest for every variant, the feature set after the
# restore (from the plan's header, not the command line); the saved guest
# keeps the kernel's defaults
warm_one() {
	local rc=0
	"$LAB" run --topo 1s2c --scenario $scen --accel tcg --warm "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	sed 's/^/warm: /' "$TMP/out"
	[ "$rc" -eq 0 ] || { cat "$TMP/err"; fail "lab run --warm $* exited $rc"; }
	run=$(sed -n 's/^results: //p' "$TMP/out")
}
warm_one
key=$(json "$run/run.json" 'd["snapshot"]')
for feat in NO_WA_IDLE ""; do
	warm_one ${feat:+--sched-feat $feat}
	[ "$(json "$run/run.json" 'd["start"], d["snapshot"]')" = "('warm', '$key')" ] ||
		fail "--warm ${feat:-without a feature} did not restore the one saved guest"
	! json "$run/run.json" 'd["cmdline"]' | grep -q 'lab.sched_feat=' || fail "a warm run put it on the command line"
	want=True
	[ -z "$feat" ] || want=False
	[ "$(json "$run/sched-features.json" 'd["features"]["WA_IDLE"]')" = $want ] ||
		fail "warm ${feat:-without a feature}: WA_IDLE is not $want"
	[ "$(json "$run/verdict.json" 'd["verdict"]')" = PASS ] || fail "the warm run did not pass"
done
# a feature the kernel lacks, found by the restored guest (no list cached):
# nothing kept of that run.  Should a restore stall, the lab sends the plan
# on the record port as well (docs/warm-start.md, item 5): that warning is
# the rescue working, not a second error
rm -f "$cache"/*
rm -rf "${TMP:?}/results"
expect_bad_lines '^run: |^lab: warning: the restored guest said nothing for ' "an unknown feature after a restore" \
	"$LAB" run --topo 1s2c --scenario $scen --accel tcg --warm --sched-feat NO_NOT_A_FEATURE
grep -q "unknown scheduler feature 'NOT_A_FEATURE' in kernel" "$TMP/err" ||
	fail "the restored guest's refusal is not the error"
grep -q "^start: warm (snapshot ${key:0:12})" "$TMP/out" || fail "the unknown feature did not go to a restore"
echo "PASS: bad names refused before boot, unknown features after at most one boot, NO_WA_IDLE in effect, a third ab column, warm variants on one saved guest"
