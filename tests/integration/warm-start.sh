# warm-start - lab run --warm on 1s4c2t: the first run boots, verifies,
# saves the parked guest; the second restores it ("start": "warm") and its
# results are valid; a corrupted snapshot is deleted with one line and the
# run boots cold (and saves a new one); a guest saved before its runner
# looked at fw_cfg again restores without the nudge.
. "$(dirname "$0")/lib.sh"
# a private cache for snapshots; kernels, initrds, the lab's apt lists and
# the virtual clock's QEMU come from the shared one (fetched once a run)
shared=${LAB_CACHE:-$PWD/.cache}
mkdir -p "$TMP/cache"
for d in kernels initrd apt qemu; do
	mkdir -p "$shared/$d"
	ln -s "$shared/$d" "$TMP/cache/$d"
done
export LAB_CACHE=$TMP/cache

warm_run() {
	local label=$1 rc=0
	"$LAB" run --topo 1s4c2t --scenario scenarios/smoke-hackbench.ini --accel tcg --warm \
		>"$TMP/out" 2>"$TMP/err" || rc=$?
	sed "s/^/$label: /" "$TMP/out"
	sed "s/^/$label stderr: /" "$TMP/err"
	[ "$rc" -eq 0 ] || fail "$label: lab run --warm exited $rc"
	grep -qx 'topology: PASS' "$TMP/out" || fail "$label: topology not verified"
	run=$(sed -n 's/^results: //p' "$TMP/out")
	[ -n "$run" ] && [ -s "$run/cases.json" ] || fail "$label: no results"
}

warm_run first
[ "$(json "$run/run.json" 'd["start"]')" = cold ] || fail "first run did not boot"
key=$(json "$run/run.json" 'd["snapshot"]')
snap=$TMP/cache/snapshots/$key
[ -s "$snap/state.zst" ] && [ -s "$snap/prefix.bin" ] || fail "no snapshot saved in $snap"
ls -la "$snap"
# guest RAM's zero pages are left out of the stream (backend/migstream.h)
[ "$(json "$snap/meta.json" 'd["zero_pages_left_out"] > 0 and d["ram_pages"] > 0')" = True ] ||
	fail "meta.json: no zero pages left out"

# LAB_PLAN_NUDGE_MS=1: the restored guest has not spoken 1 ms after its
# plan went into fw_cfg, so the host sends the plan on the record port
# too (what rescues a restored runner that never wakes): the runner reads
# whichever comes first, and the other copy harms nothing
LAB_PLAN_NUDGE_MS=1 warm_run second
grep -q "said nothing for .* sending it on the record port too" "$TMP/err" ||
	fail "no plan sent on the record port after 1 ms of silence"
[ "$(json "$run/verdict.json" 'd["plan_via"], d["plan_nudged_after_s"] < 1')" = "('fw_cfg', True)" ] ||
	fail "verdict.json does not say the plan was nudged"
[ "$(json "$run/run.json" 'd["start"]')" = warm ] || fail "second run was not a warm start"
[ "$(json "$run/run.json" 'd["snapshot"]')" = "$key" ] || fail "second run names another snapshot"
[ "$(json "$run/verdict.json" 'd["start"]')" = warm ] || fail "verdict.json does not say warm"
python3 - "$run/cases.json" <<'PY' || fail "results of the warm run are not valid"
import json, sys
cases = {c["case"]: c for c in json.load(open(sys.argv[1]))["cases"]}
for mode in ("process", "thread"):
    c = cases["smoke-hackbench/mode=" + mode]
    assert c["verdict"] == "PASS", c
    assert c["metrics"]["time"]["n"] == 2 and c["metrics"]["time"]["mean"] > 0, c["metrics"]
print("warm results valid:", len(cases), "cases")
PY
# the guest topology of a warm run is the verified one of its snapshot
[ -s "$run/guest-topology.json" ] || fail "warm run has no guest topology"
[ "$(json "$run/verdict.json" 'd["warm_phases"]["start_s"] > 0')" = True ] ||
	fail "verdict.json has no warm_phases"

# virtual time: icount's state travels with the guest; the restored run
# passes and says it ran on the virtual clock.  The plan waits in fw_cfg,
# read by port I/O, and the guest's seed follows --seed: two restores with
# one seed are the same run, byte for byte; another seed restores the same
# snapshot and samples the guest's randomness anew.  2s2c: on one vCPU the
# restores repeated even while QEMU's self-announce timer let host time
# into the vCPUs' turns; on four they did not (docs/warm-start.md)
for label in vsave vrestore vrestore2 vseed2; do
	rc=0
	seed=()
	[ "$label" != vseed2 ] || seed=(--seed 2)
	"$LAB" run --topo 2s2c --scenario scenarios/bench/decide-hackbench.ini --accel tcg --clock virtual --warm \
		"${seed[@]}" >"$TMP/out" 2>"$TMP/err" || rc=$?
	sed "s/^/$label: /" "$TMP/out"
	[ "$rc" -eq 0 ] || { cat "$TMP/err"; fail "$label: lab run --clock virtual --warm exited $rc"; }
	eval "$label=\$(sed -n 's/^results: //p' "\$TMP/out")"
	[ "$label" = vsave ] || [ "$(json "${!label}/verdict.json" 'd["plan_via"]')" = fw_cfg ] ||
		fail "$label: the plan did not go by fw_cfg"
done
vrun=$vrestore
[ "$(json "$vrun/run.json" 'd["start"] + " " + d["clock"]')" = "warm virtual" ] ||
	fail "the second virtual run was not a warm start on the virtual clock"
[ "$(json "$vseed2/run.json" 'd["start"], d["seed"]')" = "('warm', 2)" ] ||
	fail "a restore with --seed 2 did not restore the saved guest"
cmp "$vrestore/records.bin" "$vrestore2/records.bin" || fail "two restores with one seed differ"
! cmp -s "$vrestore/records.bin" "$vseed2/records.bin" || fail "a restore with another seed is the same run"

# a truncated stream: deleted, one line, a cold boot, a new snapshot
truncate -s 4096 "$snap/state.zst"
warm_run corrupt
n=$(grep -c 'did not restore' "$TMP/out")
[ "$n" -eq 1 ] || fail "expected one 'did not restore' line, got $n"
grep -q "^start: snapshot ${key:0:12} did not restore (.*); deleted, booting cold$" "$TMP/out" ||
	fail "fallback line not as documented"
[ "$(json "$run/run.json" 'd["start"]')" = cold ] || fail "fallback run.json does not say cold"
[ "$(json "$run/verdict.json" 'd["verdict"]')" = PASS ] || fail "fallback run did not pass"
[ -s "$snap/state.zst" ] && [ "$(stat -c %s "$snap/state.zst")" -gt 4096 ] ||
	fail "the fallback run did not save a new snapshot"

# a guest saved before its runner looked at fw_cfg again (lab.park_delay_ms:
# the runner waits a second after its PARKED record, and the host saves in
# that wait): its restore still finds the plan in fw_cfg, no nudge.  A
# runner that read fw_cfg's directory only after the wait stalled here
# until the nudge, every time (docs/warm-start.md)
for label in dsave drestore; do
	rc=0
	"$LAB" run --topo 1s2c --scenario scenarios/smoke-exec.ini --accel tcg --warm \
		--append lab.park_delay_ms=1000 >"$TMP/out" 2>"$TMP/err" || rc=$?
	sed "s/^/$label: /" "$TMP/out"
	sed "s/^/$label stderr: /" "$TMP/err"
	[ "$rc" -eq 0 ] || fail "$label: lab run --warm exited $rc"
	run=$(sed -n 's/^results: //p' "$TMP/out")
done
[ "$(json "$run/verdict.json" 'd["start"], d["plan_via"], "plan_nudged_after_s" in d')" = "('warm', 'fw_cfg', False)" ] ||
	fail "a guest saved in its park delay did not find its plan in fw_cfg"
! grep -q 'said nothing' "$TMP/err" || fail "the delayed guest's restore needed the nudge"
echo ok
