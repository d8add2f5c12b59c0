# verdict-crash-hang - a guest that panics is CRASH with the console line
# that shows it; a guest that never reports is HANG after its deadline,
# with the NMI backtraces on the console; the lab itself exits 1 each time.
. "$(dirname "$0")/lib.sh"

boot 1s2c --accel tcg --timeout 60 --append lab.mode=crash
[ "$rc" -eq 1 ] || fail "crash: exit $rc"
grep -q '^verdict: CRASH: kernel crashed at console line [0-9]*: .*Kernel panic - not syncing: sysrq triggered crash' "$TMP/out" ||
	fail "crash: verdict line"
[ "$(json "$run/verdict.json" 'd["verdict"]')" = CRASH ] || fail "crash: verdict.json"

start=$(date +%s)
boot 1s2c --accel tcg --timeout 15 --append lab.mode=hang
took=$(($(date +%s) - start))
[ "$rc" -eq 1 ] || fail "hang: exit $rc"
grep -q '^verdict: HANG: no END record within 15 s (guest reached userspace); NMI injected and the guest dumped its CPUs' "$TMP/out" ||
	fail "hang: verdict line"
grep -q 'NMI' "$run/console.log" || fail "hang: no NMI evidence on the console"
grep -q 'RIP=' "$run/hang-vcpus.txt" || fail "hang: no vCPU registers in hang-vcpus.txt"
[ "$took" -lt 40 ] || fail "hang: the lab took $took s to give up"
echo ok
