#!/bin/bash
# matrix.sh - lab matrix, 2 kernels x 2 topologies x 1 tiny suite: killed
# (SIGKILL) once its first job finished, resumed from the same directory
# without redoing that job, completed, and read back by lab compare.
. "$(dirname "$0")/lib.sh"

# The second kernel: a lab-base build from the cache if there is one (it
# boots in ~3 s), else Debian's kernel again under another label.
k2=
for d in "${LAB_CACHE:-.cache}"/kernels/built/*/; do
	[ -f "$d/bzImage" ] && k2=$(basename "$d") && break
done
k2=${k2:+lab-base=$k2}
k2=${k2:-again=debian}
kernels="debian,$k2"
m=$TMP/matrix

echo "bad input: one line, exit 2, nothing run"
for args in "--kernels debian --topos 1s2c --suites ''" "--kernels debian,,x --topos 1s2c --suites ab-tiny" \
	    "--kernels no-such-kernel --topos 1s2c --suites ab-tiny" "--kernels debian --topos 1s2q --suites ab-tiny" \
	    "--kernels debian --topos 1s2c --suites no-such-suite"; do
	rc=0
	eval "\"$LAB\" matrix $args --dir \"$TMP/bad\"" >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ "$rc" -eq 2 ] || fail "lab matrix $args exited $rc, not 2"
	[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "lab matrix $args: $(cat "$TMP/err")"
	[ ! -e "$TMP/bad" ] || fail "lab matrix $args created its directory"
	echo "  $args -> $(cat "$TMP/err")"
done

echo "lab matrix --kernels $kernels --topos 1s2c,2s1c --suites ab-tiny --dir $m (killed after one job)"
"$LAB" matrix --kernels "$kernels" --topos 1s2c,2s1c --suites ab-tiny --dir "$m" \
	>"$TMP/out1" 2>"$TMP/err1" &
matrix_kill_after "$m" 1 $! "$TMP/out1" "$TMP/err1"
first=$(json "$m/matrix.json" '[j["id"] for j in d["jobs"] if j["state"] == "done"][0]')
first_run=$(json "$m/matrix.json" "[j['run'] for j in d['jobs'] if j['id'] == '$first'][0]")
running=$(json "$m/matrix.json" '" ".join(j["id"] for j in d["jobs"] if j["state"] == "running")')
echo "killed with $first done ($first_run), running: ${running:-none}"

echo "lab matrix --dir $m (resume)"
rc=0
"$LAB" matrix --dir "$m" >"$TMP/out2" 2>"$TMP/err2" || rc=$?
cat "$TMP/out2"
sed 's/^/stderr: /' "$TMP/err2"
[ "$rc" -eq 0 ] || fail "the resumed matrix exited $rc"
grep -q '^matrix: resuming: 1 of 4 jobs were done before' "$TMP/err2" || fail "no resume message"
[ "$(matrix_done "$m")" = 4 ] || fail "not every job is done"
for j in 0 1 2 3; do
	[ "$(json "$m/matrix.json" "d['jobs'][$j]['verdict']")" = PASS ] || fail "job $j did not pass"
done
[ "$(json "$m/matrix.json" "[j['run'] for j in d['jobs'] if j['id'] == '$first'][0]")" = "$first_run" ] ||
	fail "the finished job $first was run again"
[ "$(json "$m/matrix.json" "[j['attempts'] for j in d['jobs'] if j['id'] == '$first'][0]")" = 1 ] ||
	fail "the finished job $first was started again"
for id in $running; do
	ls -d "$m/aside/$id-attempt-1" >/dev/null 2>&1 || fail "the cut-short job $id was not set aside"
	[ "$(json "$m/matrix.json" "[j['attempts'] for j in d['jobs'] if j['id'] == '$id'][0]")" = 2 ] ||
		fail "the cut-short job $id was not rerun"
	echo "  $id: the killed attempt is in aside/, the rerun is a new run directory"
done

# lab compare reads the matrix's results: both kernels on 1s2c
matrix_compare_1s2c "$TMP/out2"
echo "PASS: matrix killed after one job, resumed without redoing it, compared"
