# boot-concurrent - two labs started at the same moment with the same spec
# share nothing: separate QEMUs, channels and run directories, both PASS.
. "$(dirname "$0")/lib.sh"
"$LAB" boot 1s4c2t --accel tcg >"$TMP/a" 2>&1 & a=$!
"$LAB" boot 1s4c2t --accel tcg >"$TMP/b" 2>&1 & b=$!
ra=0; rb=0
wait $a || ra=$?
wait $b || rb=$?
cat "$TMP/a" "$TMP/b"
[ $ra -eq 0 ] && [ $rb -eq 0 ] || fail "exit codes $ra and $rb"
da=$(sed -n 's/^results: //p' "$TMP/a"); db=$(sed -n 's/^results: //p' "$TMP/b")
[ -n "$da" ] && [ -n "$db" ] && [ "$da" != "$db" ] || fail "run directories collide: '$da' '$db'"
grep -qx 'topology: PASS' "$TMP/a" && grep -qx 'topology: PASS' "$TMP/b" || fail "a run did not pass"
echo ok
