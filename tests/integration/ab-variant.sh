#!/bin/bash
# ab-variant.sh - lab ab --variant smt=off on 1s2c2t: a third column, the
# base kernel booted with nosmt, whose guest really has its siblings offline.
. "$(dirname "$0")/lib.sh"

echo "lab ab --topo 1s2c2t --base debian --test debian --suite ab-tiny --variant smt=off"
rc=0
"$LAB" ab --topo 1s2c2t --base debian --test debian --suite ab-tiny --rounds 1 --variant smt=off \
	--label-base tip --label-test patched >"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"
sed 's/^/stderr: /' "$TMP/err"
[ "$rc" -le 1 ] || fail "lab ab exited $rc"
dir=$(sed -n 's/^ab: directory //p' "$TMP/out")
order=$(json "$dir/ab.json" '",".join(d["order"])')
echo "order recorded: $order"
[ "$order" = "base,test,smt-off,smt-off,test,base" ] || fail "boot order is $order"

grep -q '^Case: *tip\[pct imp\](CV) *patched\[pct imp\](CV) *tip-smt-off\[pct imp\](CV)' "$TMP/out" ||
	fail "the table has no tip, patched and tip-smt-off columns"

for i in 0 1 2 3 4 5; do
	run=$(json "$dir/ab.json" "d['boots'][$i]['run']")
	side=$(json "$dir/ab.json" "d['boots'][$i]['side']")
	[ "$(json "$dir/ab.json" "d['boots'][$i]['verdict']")" = PASS ] || fail "boot $((i + 1)) did not pass"
	[ "$(json "$run/verdict.json" 'd["topology"]')" = PASS ] || fail "boot $((i + 1)): topology not verified"
	cpus=$(json "$run/guest-topology.json" 'd["cpus"]')
	sibs=$(json "$run/guest-topology.json" '" ".join(c["siblings"] for c in d["cpu"])')
	smt=$(json "$run/run.json" 'd["smt"]')
	echo "  boot $((i + 1)): $side, smt $smt, $cpus CPUs online, siblings: $sibs"
	if [ "$side" = smt-off ]; then
		[ "$smt" = off ] || fail "run.json of an SMT-off boot says smt '$smt'"
		json "$run/run.json" 'd["cmdline"]' | grep -qw nosmt || fail "no nosmt on the command line"
		[ "$cpus" -eq 2 ] || fail "SMT off: $cpus CPUs online, not 2"
		[ "$sibs" = "0 2" ] || fail "SMT off: siblings '$sibs', not each CPU alone"
		[ "$(json "$run/expected-topology.json" 'd["smt"]')" = off ] || fail "expected view is not the SMT-off one"
	else
		[ "$smt" = on ] || fail "run.json of an SMT boot says smt '$smt'"
		[ "$cpus" -eq 4 ] || fail "SMT on: $cpus CPUs online, not 4"
		[ "$sibs" = "0-1 0-1 2-3 2-3" ] || fail "SMT on: siblings '$sibs'"
	fi
done

# lab compare refuses to pool an SMT-off run into an SMT side
pool_refused "$dir" 'cannot pool runs with SMT on'
echo "PASS: SMT-off column from nosmt boots with siblings offline"
