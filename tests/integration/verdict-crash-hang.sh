# verdict-crash-hang - a guest that panics is CRASH with the console line
# that shows it, within 10 s of the panic line reaching the host; a guest
# that never reports is HANG within its deadline + 10 s, with the NMI
# backtraces on the console; the lab itself exits 1 each time.
. "$(dirname "$0")/lib.sh"

boot 1s2c --accel tcg --timeout 60 --append lab.mode=crash
[ "$rc" -eq 1 ] || fail "crash: exit $rc"
grep -q '^verdict: CRASH: kernel crashed at console line [0-9]*: .*Kernel panic - not syncing: sysrq triggered crash' "$TMP/out" ||
	fail "crash: verdict line"
[ "$(json "$run/verdict.json" 'd["verdict"]')" = CRASH ] || fail "crash: verdict.json"
# the host's clock from the panic line's arrival to the verdict; the
# guest's own stamp of that line shows it is the panic we asked for
python3 - "$run/verdict.json" <<'PY' || fail "crash: verdict later than 10 s after the panic"
import json, sys
d = json.load(open(sys.argv[1]))
print("crash: panic line at guest %.3f s, host %.3f s; verdict at host %.3f s, %.3f s after"
      % (d["guest_first_failure_s"], d["t_first_failure_s"], d["t_verdict_s"],
         d["verdict_after_failure_s"]))
assert 0 <= d["verdict_after_failure_s"] <= 10, d
assert d["guest_first_failure_s"] > 0
PY

start=$(date +%s)
boot 1s2c --accel tcg --timeout 15 --append lab.mode=hang
took=$(($(date +%s) - start))
[ "$rc" -eq 1 ] || fail "hang: exit $rc"
grep -q '^verdict: HANG: no END record within 15 s (guest reached userspace); NMI injected and the guest dumped its CPUs' "$TMP/out" ||
	fail "hang: verdict line"
grep -q 'NMI' "$run/console.log" || fail "hang: no NMI evidence on the console"
grep -q 'RIP=' "$run/hang-vcpus.txt" || fail "hang: no vCPU registers in hang-vcpus.txt"
[ "$took" -lt 40 ] || fail "hang: the lab took $took s to give up"
python3 - "$run/verdict.json" <<'PY' || fail "hang: verdict later than deadline + 10 s"
import json, sys
d = json.load(open(sys.argv[1]))
print("hang: deadline passed at host %.3f s (timeout 15 s); verdict at %.3f s, %.3f s after"
      % (d["t_deadline_s"], d["t_verdict_s"], d["verdict_after_deadline_s"]))
assert 15 <= d["t_deadline_s"] <= 16, d
assert 0 <= d["verdict_after_deadline_s"] <= 10, d
PY
echo ok
