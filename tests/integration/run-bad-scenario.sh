# run-bad-scenario - a scenario with a syntax error or a bad workload value
# is refused before any boot: one line naming file and line, exit 2, and
# nothing written under results/.
. "$(dirname "$0")/lib.sh"
check() {
	local want=$1 rc=0
	shift
	"$LAB" run --topo 1s2c --accel tcg "$@" >"$TMP/out" 2>"$TMP/err" </dev/null || rc=$?
	cat "$TMP/err"
	[ "$rc" -eq 2 ] || fail "exit $rc, expected 2"
	[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "not one line on stderr"
	grep -q "$want" "$TMP/err" || fail "stderr does not say '$want'"
	[ ! -e "$LAB_RESULTS" ] || fail "results were written"
}
mk() { printf '%s\n' "[scenario]" "name = t" "workload = hackbench" "" "[params]" "$1" "" \
	"[metric time]" "better = lower" >"$TMP/t.ini"; }
mk "grups = 2";         check "t.ini:6: .*grups" --scenario "$TMP/t.ini"
mk "groups = 0";        check "t.ini:6: .*groups" --scenario "$TMP/t.ini"
mk "mode = fibers";     check "t.ini:6: .*mode" --scenario "$TMP/t.ini"
printf '[scenario]\nname = t\nworkload = nosuch\n[metric x]\nbetter = lower\n' >"$TMP/t.ini"
check "t.ini:.*nosuch" --scenario "$TMP/t.ini"
check "no-such-suite" --suite no-such-suite
check "scenario" --scenario /nonexistent.ini
echo ok
