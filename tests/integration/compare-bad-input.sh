# compare-bad-input - `lab compare` on missing, broken or mismatched result
# directories: one line on stderr, exit 2, nothing on stdout; no guest needed.
. "$(dirname "$0")/lib.sh"

"$LAB" compare --help >/dev/null 2>&1 || skip "this lab has no compare command"

# run NAME SUITE SPEC CASES_JSON: a result directory under $LAB_RESULTS
run() {
	mkdir -p "$LAB_RESULTS/$1"
	printf '{"kernel": "6.1.0-test", "spec": "%s", "spec_resolved": "%s", "suite": "%s"}\n' \
		"$3" "$3" "$2" >"$LAB_RESULTS/$1/run.json"
	[ -z "$4" ] || printf '%s\n' "$4" >"$LAB_RESULTS/$1/cases.json"
}
case_json() {
	printf '{"cases": [{"case": "%s", "verdict": "PASS", "metrics": {"time": {"unit": "s", "better": "lower", "statistic": "amean", "values": [%s]}}}]}' "$1" "$2"
}

run base smoke 2s4c "$(case_json smoke-x/n=1 '1.0, 1.1, 0.9, 1.0, 1.05')"
run same smoke 2s4c "$(case_json smoke-x/n=1 '1.0, 1.02, 0.98, 1.01, 1.0')"
run slow smoke 2s4c "$(case_json smoke-x/n=1 '2.0, 2.2, 1.8, 2.0, 2.1')"
run other-suite seeds 2s4c "$(case_json smoke-x/n=1 '1.0, 1.0, 1.0')"
run other-topo smoke 2s8c "$(case_json smoke-x/n=1 '1.0, 1.0, 1.0')"
run other-cases smoke 2s4c "$(case_json smoke-x/n=2 '1.0, 1.0, 1.0')"
run boot-only smoke 2s4c ""
run broken smoke 2s4c '{"cases": [{"case": "smoke-x/n=1", "verdict": "PASS", "metrics": {"time": {"better": "lower", "values": [1, 2'
run nan smoke 2s4c "$(case_json smoke-x/n=1 '1.0, "NaN"')"
mkdir -p "$LAB_RESULTS/empty"

check_bad() {
	local rc=0
	"$LAB" compare "$@" >"$TMP/out" 2>"$TMP/err" </dev/null || rc=$?
	[ "$rc" -eq 2 ] || { cat "$TMP/err"; fail "'compare $*' exited $rc, expected 2"; }
	[ "$(wc -l <"$TMP/err")" -eq 1 ] || { cat "$TMP/err"; fail "'compare $*' printed not exactly one stderr line"; }
	[ ! -s "$TMP/out" ] || fail "'compare $*' printed on stdout"
	if [ -n "${want:-}" ]; then
		grep -qF -- "$want" "$TMP/err" || fail "'compare $*' said '$(cat "$TMP/err")', not '$want'"
	fi
	echo "ok: compare $* -> $(cat "$TMP/err")"
	want=
}

R=$LAB_RESULTS
want="a baseline and at least one run" check_bad
want="a baseline and at least one run" check_bad base
want="no run 'no-such-run'" check_bad base no-such-run
want="no run directory '/nonexistent/run'" check_bad /nonexistent/run base
# a relative path, outside the results root, that nothing here creates
rel=../schedlab-no-such-run-$$
want="no run directory '$rel'" check_bad base "$rel"
want="it has no run.json" check_bad base empty
want="has no cases.json" check_bad base boot-only
want="truncated" check_bad base broken
want="not a finite number" check_bad base "$R/nan"
want="runs differ: base ran suite 'smoke' on '2s4c', other-suite ran suite 'seeds' on '2s4c'" \
	check_bad base other-suite
want="runs differ: base ran suite 'smoke' on '2s4c', other-topo ran suite 'smoke' on '2s8c'" \
	check_bad "$R/base" "$R/same" other-topo
want="runs differ: case 'smoke-x/n=1' is only in base" check_bad base other-cases
want="unknown option '--bogus'" check_bad --bogus base same
want="3 labels for 2 runs" check_bad --label a --label b --label c base same
want="option '--label' needs a value" check_bad base same --label
want="cannot create '/nonexistent/dir/x.xml" check_bad --junit /nonexistent/dir/x.xml base same
[ ! -e /nonexistent/dir/x.xml ] || fail "a JUnit file appeared"

# and the good inputs around them: run ids and directories, both exit codes
rc=0
"$LAB" compare base same --label tip --label patched >"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"
[ "$rc" -eq 0 ] || fail "an A/A-like comparison exited $rc"
[ ! -s "$TMP/err" ] || fail "stderr: $(cat "$TMP/err")"
grep -q '^Case: .*tip\[pct imp\](CV) .*patched\[pct imp\](CV)$' "$TMP/out" || fail "no header with the labels"
rc=0
"$LAB" compare "$R/base" "$R/slow" --json --junit "$TMP/junit.xml" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ "$rc" -eq 1 ] || fail "a 2x slowdown exited $rc, expected 1"
[ "$(json "$TMP/out" 'd["rows"][0]["verdict"]')" = regression ] || fail "the slowdown is no regression"
grep -q '<failure message="100.00% worse' "$TMP/junit.xml" || fail "JUnit lacks the regression"
echo ok
