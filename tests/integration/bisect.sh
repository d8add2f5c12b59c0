#!/bin/bash
# bisect.sh - lab bisect: bad input is refused before any build; then a
# bisection over a small git tree whose commits change a scheduler feature
# (LAB_BISECT_KERNEL boots Debian's kernel with each commit's `sched-feat`
# instead of building it), killed half-way and resumed: it must name the
# commit that turned WA_IDLE off, and its log must replay in git bisect.
. "$(dirname "$0")/lib.sh"

repo=$TMP/repo
mkdir -p "$repo"
g() { git -C "$repo" -c user.name=lab -c user.email=lab@localhost "$@"; }
g init -q
n=0
commit() {
	n=$((n + 1))
	GIT_AUTHOR_DATE="2026-01-01T00:0$n:00Z" GIT_COMMITTER_DATE="2026-01-01T00:0$n:00Z" \
		g commit -q -a -m "$1"
}
echo WA_IDLE >"$repo/sched-feat"
echo one >"$repo/notes"
g add sched-feat notes
commit "base: WA_IDLE on"
echo two >>"$repo/notes"
commit "notes: a second line"
echo NO_WA_IDLE >"$repo/sched-feat"
commit "sched: WA_IDLE off"
echo three >>"$repo/notes"
commit "notes: a third line"
good=$(g rev-parse HEAD~3)
culprit=$(g rev-parse HEAD~1)
bad=$(g rev-parse HEAD)

scen=$TMP/wa-idle.ini
cat >"$scen" <<'INI'
# 1 when the guest's scheduler has WA_IDLE off, else 0
[scenario]
name = bisect-wa-idle
description = whether WA_IDLE is off, as the guest's features file says
workload = exec
runs = 1
warmup = 0
deadline = 30
counters = none

[params]
; grep exits 1 when nothing matches: its own command line always does
cmd = /bin/busybox grep -c NO_WA_IDLE /sys/kernel/debug/sched/features /proc/self/cmdline
pattern1 = wa_idle_off=/sys/kernel/debug/sched/features:

[metric wa_idle_off]
better = lower
statistic = amean
INI
export LAB_BISECT_KERNEL=debian
args=(--topo 1s1c --scenario "$scen" --metric bisect-wa-idle:wa_idle_off)

expect_bad "not a git tree" "$LAB" bisect --ksrc "$TMP" --good "$good" --bad "$bad" "${args[@]}"
grep -q "is not a git tree" "$TMP/err" || fail "the error does not say it is not a git tree"
expect_bad "an unknown revision" "$LAB" bisect --ksrc "$repo" --good v9.9 --bad "$bad" "${args[@]}"
grep -q "unknown revision 'v9.9'" "$TMP/err" || fail "the error does not name the revision"
expect_bad "good after bad" "$LAB" bisect --ksrc "$repo" --good "$bad" --bad "$good" "${args[@]}"
grep -q "is not an ancestor of bad" "$TMP/err" || fail "the error does not say good is not an ancestor"
expect_bad "a case no scenario has" "$LAB" bisect --ksrc "$repo" --good "$good" --bad "$bad" \
	--topo 1s1c --scenario "$scen" --metric nocase:wa_idle_off
grep -q "no case 'nocase'" "$TMP/err" || fail "the error does not name the case"
expect_bad "a metric the case lacks" "$LAB" bisect --ksrc "$repo" --good "$good" --bad "$bad" \
	--topo 1s1c --scenario "$scen" --metric bisect-wa-idle:time
grep -q "has no metric 'time'" "$TMP/err" || fail "the error does not name the metric"
# a kernel counter is a metric only of a case that collects it
expect_bad "a counter the case does not collect" "$LAB" bisect --ksrc "$repo" --good "$good" \
	--bad "$bad" --topo 1s1c --scenario "$scen" --metric bisect-wa-idle:ttwu_move_affine
grep -q "has no metric 'ttwu_move_affine' (it has: wa_idle_off)" "$TMP/err" ||
	fail "the error does not list the case's metrics alone"
expect_bad "no scenario" "$LAB" bisect --ksrc "$repo" --good "$good" --bad "$bad" --topo 1s1c \
	--metric bisect-wa-idle:wa_idle_off
expect_bad "resume of nothing" "$LAB" bisect --dir "$TMP/nothing"

dir=$TMP/bisect  # not under results/: expect_bad checks that stays empty
start=$(date +%s)
"$LAB" bisect --ksrc "$repo" --good "$good" --bad "$bad" "${args[@]}" --dir "$dir" \
	>"$TMP/out1" 2>"$TMP/err1" &
pid=$!
# stop it after its fifth boot, as a crash would
for _ in $(seq 300); do
	[ -s "$dir/bisect.json" ] && [ "$(json "$dir/bisect.json" 'len(d["boots"])')" -ge 5 ] && break
	kill -0 $pid 2>/dev/null || break
	sleep 1
done
kill -KILL $pid 2>/dev/null
wait $pid 2>/dev/null
cat "$TMP/out1"
sed 's/^/first stderr: /' "$TMP/err1"
before=$(json "$dir/bisect.json" 'len(d["boots"])')
[ "$(json "$dir/bisect.json" 'd["phase"]')" != done ] || fail "the first run finished before it was stopped"
echo "stopped after $before boots"

rc=0
"$LAB" bisect --dir "$dir" >"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"
sed 's/^/stderr: /' "$TMP/err"
[ "$rc" -eq 0 ] || fail "the resumed lab bisect exited $rc"
grep -q "resuming the bisection" "$TMP/err" || fail "it did not say it resumed"
[ "$(json "$dir/bisect.json" 'd["first_bad"]')" = "$culprit" ] ||
	fail "the first bad commit is $(json "$dir/bisect.json" 'd["first_bad"]'), not $culprit"
grep -q "^first bad commit: $culprit sched: WA_IDLE off" "$TMP/out" || fail "the text does not name it"
after=$(json "$dir/bisect.json" 'len(d["boots"])')
[ "$after" -gt "$before" ] || fail "the resumed run booted nothing"
[ "$(json "$dir/bisect.json" 'len(d["steps"])')" = 2 ] || fail "not two steps"
for f in bisect.txt bisect-log.txt compare.txt bisect.html; do
	[ -s "$dir/$f" ] || fail "no $f"
done
grep -q "^Case:" "$dir/compare.txt" || grep -q "wa_idle_off" "$dir/compare.txt" ||
	fail "compare.txt has no comparison: $(head -3 "$dir/compare.txt")"
# the log replays in git, which then names the same commit
g bisect replay "$dir/bisect-log.txt" >"$TMP/replay" 2>&1 || { cat "$TMP/replay"; fail "git bisect replay failed"; }
grep -q "^$culprit is the first bad commit" "$TMP/replay" || { cat "$TMP/replay"; fail "git disagrees"; }
g bisect reset >/dev/null 2>&1
# a finished bisection resumed prints it again and boots nothing
"$LAB" bisect --dir "$dir" --json >"$TMP/out" 2>"$TMP/err" || fail "a finished bisection resumed exited non-zero"
[ "$(json "$TMP/out" 'len(d["boots"])')" = "$after" ] || fail "a finished bisection booted again"
expect_bad "a second bisection into the same directory" "$LAB" bisect --ksrc "$repo" --good "$good" \
	--bad "$bad" "${args[@]}" --dir "$dir"
echo "ok: $after boots, $(($(date +%s) - start)) s"
