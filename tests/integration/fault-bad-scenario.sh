# fault-bad-scenario - a fault or invariant the runner cannot run (unknown
# kind, bad kind-specific option, wrong target) is refused before any boot:
# one line naming the file and line, exit 2, nothing under results/.
. "$(dirname "$0")/lib.sh"
check() {
	local want=$1 rc=0
	"$LAB" run --topo 1s2c --accel tcg --scenario "$TMP/t.ini" >"$TMP/out" 2>"$TMP/err" </dev/null || rc=$?
	cat "$TMP/err"
	[ "$rc" -eq 2 ] || fail "exit $rc, expected 2"
	[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "not one line on stderr"
	grep -q "$want" "$TMP/err" || fail "stderr does not say '$want'"
	[ ! -e "$LAB_RESULTS" ] || fail "results were written"
}
mk() { printf '%s\n' "[scenario]" "name = t" "workload = hackbench" "[metric time]" \
	"better = lower" "$@" >"$TMP/t.ini"; }
mk "[fault f]" "kind = cpu_hotplug" "period = 1" "nr = 0"
check "t.ini:9: \[fault f\] (cpu_hotplug): 'nr' must be an integer"
mk "[fault f]" "kind = cpu_hotplg" "period = 1"
check "t.ini:6: \[fault f\]: unknown fault kind 'cpu_hotplg'"
mk "[fault f]" "kind = affinity_storm" "target = 1-2" "period = 1"
check "t.ini:6: \[fault f\]: affinity_storm cannot target a CPU list"
mk "[fault f]" "kind = rt_hog" "period = 1"
check "t.ini:6: \[fault f\] (rt_hog): needs 'hold'"
mk "[fault f]" "kind = rt_hog" "period = 1" "hold = 1"
check "t.ini:9: \[fault f\]: 'hold' must be shorter than 'period'"
mk "[invariant i]" "kind = spread" "level = rack"
check "t.ini:8: \[invariant i\] (spread): 'level' must be one of llc|node"
echo ok
