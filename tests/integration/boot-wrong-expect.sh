# boot-wrong-expect - verification must be able to fail: boot one machine,
# expect another, and get topology FAIL with a readable diff and exit 1.
. "$(dirname "$0")/lib.sh"
boot 1s4c2t --accel tcg --expect 1s8c
[ "$rc" -eq 1 ] || fail "exit $rc, expected 1"
grep -q '^topology: FAIL' "$TMP/out" || fail "no 'topology: FAIL'"
grep -q 'cpu 0: siblings expected 0, guest has 0-1' "$TMP/out" || fail "diff does not name the SMT siblings"
[ "$(json "$run/verdict.json" 'd["verdict"]')" = FAIL ] || fail "verdict.json says otherwise"
echo ok
