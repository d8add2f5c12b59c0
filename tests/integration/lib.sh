# lib.sh - helpers for integration tests: each test boots real guests with
# ./lab into a private results directory and checks what came back.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 2
LAB=${LAB:-./lab}
TMP=$(mktemp -d /tmp/schedlab-it.XXXXXX)
# Keep the run directories of a failed test for the post-mortem.
keep_on_failure() {
	local rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 77 ] && [ -d "$TMP/results" ]; then
		mkdir -p "${O:-build}/test-logs/runs"
		cp -r "$TMP/results/." "${O:-build}/test-logs/runs/"
		echo "kept run directories in ${O:-build}/test-logs/runs/" >&2
	fi
	rm -rf "$TMP"
}
trap keep_on_failure EXIT
export LAB_RESULTS=$TMP/results

fail() { echo "FAIL: $*" >&2; exit 1; }
# skip REASON: the test cannot run here; run-tests shows REASON in its
# summary, so it is one line (a captured error's newlines become spaces).
skip() {
	local why="$*"
	printf 'SKIP: %s\n' "${why//$'\n'/ }" >&2
	exit 77
}

# boot SPEC [args...]: runs lab boot, leaves stdout in $TMP/out, stderr in
# $TMP/err, the exit code in $rc and the run directory in $run.
boot() {
	rc=0
	"$LAB" boot "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	cat "$TMP/out"
	sed 's/^/stderr: /' "$TMP/err"
	run=$(sed -n 's/^results: //p' "$TMP/out")
}

# expect_bad NAME ARGS...: exit 2, one line on stderr, no run directory
expect_bad() {
	expect_bad_lines "" "$@"
}

# expect_bad_boot NAME ARGS...: the same for an error that only a boot can
# find; the boot's progress lines ("run: ...") and a retried TCG boot's
# warning may come before the one error line.
expect_bad_boot() {
	expect_bad_lines '^run: |^lab: warning: guest hung before userspace' "$@"
}

expect_bad_lines() {
	local skip=$1 what=$2 rc=0 n
	shift 2
	"$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	echo "$what: exit $rc: $(cat "$TMP/err")"
	[ "$rc" -eq 2 ] || fail "$what: exit $rc, expected 2"
	if [ -n "$skip" ]; then
		n=$(grep -cvE "$skip" "$TMP/err")
	else
		n=$(wc -l <"$TMP/err")
	fi
	[ "$n" -eq 1 ] || fail "$what: not exactly one line on stderr"
	[ ! -d "$TMP/results" ] || [ -z "$(ls -A "$TMP/results")" ] ||
		fail "$what: something was written under results/"
}

# smoke_run TOPO LABEL ARGS...: lab run of the smoke suite on TOPO (under
# TCG, with ARGS), its output prefixed with LABEL; it must exit 0 with a
# verified topology and results.  The run directory is left in $run.
smoke_run() {
	local topo=$1 label=$2 rc=0
	shift 2
	"$LAB" run --topo "$topo" --suite smoke --accel tcg "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	sed "s/^/$label: /" "$TMP/out"
	sed "s/^/$label stderr: /" "$TMP/err"
	[ "$rc" -eq 0 ] || fail "$label: lab run exited $rc"
	grep -qx 'topology: PASS' "$TMP/out" || fail "$label: topology not verified"
	run=$(sed -n 's/^results: //p' "$TMP/out")
	[ -n "$run" ] && [ -s "$run/cases.json" ] || fail "$label: no results"
}

expect_pass() {
	[ "$rc" -eq 0 ] || fail "lab boot exited $rc"
	grep -qx 'topology: PASS' "$TMP/out" || fail "no 'topology: PASS'"
	for f in run.json console.log records.bin guest-topology.json expected-topology.json verdict.json; do
		[ -s "$run/$f" ] || fail "missing $run/$f"
	done
}

# json FILE EXPR: a value from a JSON file (python3 is only a test tool).
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {"d": d}))' "$1" "$2"; }

# pool_refused ABDIR WHY: lab compare must refuse to pool the variant's
# first boot (the third) into the base side's first, saying WHY (exit 2).
pool_refused() {
	local on off rc=0
	on=$(json "$1/ab.json" "d['boots'][0]['run']")
	off=$(json "$1/ab.json" "d['boots'][2]['run']")
	"$LAB" compare "$on+$off" "$on" >"$TMP/cmp" 2>&1 || rc=$?
	[ "$rc" -eq 2 ] && grep -q "$2" "$TMP/cmp" ||
		fail "pooling the base with the variant was not refused (exit $rc): $(cat "$TMP/cmp")"
}

# matrix_done DIR: how many jobs of the matrix in DIR are done.
matrix_done() {
	[ -f "$1/matrix.json" ] && json "$1/matrix.json" 'sum(j["state"] == "done" for j in d["jobs"])'
}

# matrix_kill_after DIR N PID OUT ERR: waits (5 minutes at most) until N
# jobs of the matrix in DIR are done, kills the matrix (PID, with SIGKILL),
# shows its OUT and ERR, and checks that no process of its jobs outlives it.
matrix_kill_after() {
	local m=$1 n=$2 pid=$3 out=$4 err=$5
	for _ in $(seq 600); do
		[ "$(matrix_done "$m")" = "$n" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.5
	done
	[ "$(matrix_done "$m")" = "$n" ] || { kill -9 "$pid"; fail "$n jobs did not finish in 5 minutes: $(cat "$err")"; }
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
	sed 's/^/first: /' "$out" "$err"
	# the children die with the matrix (PR_SET_PDEATHSIG): nothing of ours runs on
	for _ in $(seq 20); do
		pgrep -f "$m/jobs" >/dev/null || break
		sleep 0.5
	done
	! pgrep -f "$m/jobs" >/dev/null || fail "processes of the killed matrix still run: $(pgrep -af "$m/jobs")"
}

# matrix_compare_1s2c OUT: lab compare reads the two runs that the matrix
# summary in OUT names for 1s2c and the ab-tiny suite, and prints a table.
matrix_compare_1s2c() {
	local line a b rc=0
	line=$(grep '^compare (1s2c, ab-tiny): ' "$1") || fail "no compare line for 1s2c"
	a=$(echo "$line" | awk '{print $6}')
	b=$(echo "$line" | awk '{print $7}')
	"$LAB" compare "$a" "$b" >"$TMP/cmp" 2>&1 || rc=$?
	cat "$TMP/cmp"
	[ "$rc" -le 1 ] || fail "lab compare of two matrix results exited $rc"
	grep -q '^Test *: smoke-exec' "$TMP/cmp" || fail "lab compare printed no table"
}
