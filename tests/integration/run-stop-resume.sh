# run-stop-resume - a lab run stopped by SIGTERM keeps its finished cases
# (verdict STOPPED naming the last case, cases.json, a clean compare), and
# lab run --resume runs the rest, booted as the first part was (its
# --preempt, its virtual clock and --seed); a resume on another topology,
# mode or seed is refused.
. "$(dirname "$0")/lib.sh"
suite=tests/integration/stop-resume.suite
rc=0
"$LAB" run --topo 1s2c --suite "$suite" --accel tcg --preempt full --clock virtual --seed 7 >"$TMP/out" 2>"$TMP/err" &
pid=$!
# stop it once two cases finished (stderr is no terminal: a line per case)
for _ in $(seq 240); do
	[ "$(grep -c ' done in ' "$TMP/err")" -ge 2 ] && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.5
done
[ "$(grep -c ' done in ' "$TMP/err")" -ge 2 ] || { kill -9 $pid; fail "no two finished cases in 2 minutes: $(cat "$TMP/err")"; }
kill -TERM $pid
wait $pid || rc=$?
sed 's/^/first: /' "$TMP/out"; sed 's/^/first stderr: /' "$TMP/err"
run=$(sed -n 's/^results: //p' "$TMP/out")
[ "$rc" -eq 1 ] || fail "a stopped run exited $rc, expected 1"
[ -n "$run" ] && [ -d "$run" ] || fail "no run directory"
grep -q '^run: case 1/6 .* ETA ' "$TMP/err" || fail "no progress line with an ETA"
[ "$(json "$run/verdict.json" 'd["verdict"]')" = STOPPED ] || fail "verdict is not STOPPED"
last=$(json "$run/verdict.json" 'd["last_case"]')
[ -n "$last" ] && [ "$last" != None ] || fail "verdict.json names no last case"
grep -q "^verdict: STOPPED: stopped by SIGTERM .*last case finished: $last" "$TMP/out" ||
	fail "the verdict line does not name the last case"
done=$(json "$run/cases.json" 'len(d["cases"])')
[ "$done" -ge 2 ] && [ "$done" -lt 6 ] || fail "cases.json holds $done cases"
[ "$(json "$run/cases.json" 'd["cases"][-1]["case"]')" = "$last" ] || fail "the last case in cases.json is not $last"
[ "$(json "$run/cases.json" 'all(c["verdict"] == "PASS" for c in d["cases"])')" = True ] ||
	fail "a finished case did not pass"
[ "$(json "$run/cases.json" 'len(d["stopped"]["not_run"])')" -eq $((6 - done)) ] ||
	fail "cases.json does not name the cases not run"
[ -s "$run/results.jsonl" ] || fail "no results.jsonl"
rc=0
"$LAB" compare "$run" "$run" >"$TMP/cmp" 2>&1 || rc=$?
cat "$TMP/cmp"
[ "$rc" -eq 0 ] || fail "lab compare of the stopped run exited $rc"
grep -q "^Test *: smoke-sysbench-cpu" "$TMP/cmp" || fail "lab compare printed no table"

# the same run on another topology: one line, exit 2, nothing written
rc=0
"$LAB" run --resume "$run" --topo 1s4c --accel tcg >"$TMP/out" 2>"$TMP/err" || rc=$?
echo "other topology: exit $rc: $(cat "$TMP/err")"
[ "$rc" -eq 2 ] || fail "a resume on another topology exited $rc"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "not one line on stderr"
[ ! -d "$run/resume-1" ] || fail "a refused resume created $run/resume-1"

# ... or with another preemption mode
rc=0
"$LAB" run --resume "$run" --preempt none --accel tcg >"$TMP/out" 2>"$TMP/err" || rc=$?
echo "other mode: exit $rc: $(cat "$TMP/err")"
[ "$rc" -eq 2 ] || fail "a resume with another mode exited $rc"
grep -q "ran with --preempt full: resume it without --preempt or with that" "$TMP/err" ||
	fail "the refusal does not name the mode"
[ ! -d "$run/resume-1" ] || fail "a refused resume created $run/resume-1"

# ... or with another seed
rc=0
"$LAB" run --resume "$run" --seed 8 --accel tcg >"$TMP/out" 2>"$TMP/err" || rc=$?
echo "other seed: exit $rc: $(cat "$TMP/err")"
[ "$rc" -eq 2 ] || fail "a resume with another seed exited $rc"
grep -q "ran with --seed 7: resume it with that seed, or without --seed" "$TMP/err" ||
	fail "the refusal does not name the seed"
[ ! -d "$run/resume-1" ] || fail "a refused resume created $run/resume-1"

rc=0
"$LAB" run --resume "$run" --accel tcg >"$TMP/out" 2>"$TMP/err" || rc=$?
sed 's/^/resume: /' "$TMP/out"; sed 's/^/resume stderr: /' "$TMP/err"
[ "$rc" -eq 0 ] || fail "the resumed run exited $rc"
[ "$(sed -n 's/^results: //p' "$TMP/out")" = "$run" ] || fail "the resume did not write into $run"
[ "$(json "$run/verdict.json" 'd["verdict"]')" = PASS ] || fail "the resumed run did not pass"
[ "$(json "$run/resume-1/run.json" 'd["preempt"]')" = full ] || fail "the resumed part did not ask for preempt=full"
[ "$(json "$run/resume-1/run.json" 'd["clock"], d["seed"]')" = "('virtual', 7)" ] ||
	fail "the resumed part did not boot on the virtual clock with seed 7"
json "$run/resume-1/run.json" 'd["cmdline"]' | grep -qw 'preempt=full' || fail "the resumed part booted without preempt=full"
# rewritten from the last part's guest
[ "$(json "$run/sched-knobs.json" 'd["preempt"]["active"]')" = full ] || fail "the resumed guest does not run preempt=full"
[ "$(json "$run/cases.json" 'len(d["cases"])')" -eq 6 ] || fail "cases.json does not hold all 6 cases"
[ "$(json "$run/cases.json" '"stopped" in d')" = False ] || fail "a complete run is still marked stopped"
[ "$(json "$run/cases.json" 'sorted(set(c["case"] for c in d["cases"])) == sorted(c["case"] for c in d["cases"])')" = True ] ||
	fail "a case is in cases.json twice"
[ "$(json "$run/cases.json" 'all(c["duration_s"] > 0 for c in d["cases"])')" = True ] ||
	fail "a case has no duration"
echo ok
