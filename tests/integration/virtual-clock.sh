#!/bin/bash
# virtual-clock.sh - lab run --clock virtual: what cannot run under icount is
# refused before boot in one line; a 2-vCPU x86 guest runs a case in virtual
# time on the lab's QEMU (10.0, never kicked), and run.json says so (clock,
# icount shift, QEMU, kicks, one TCG thread); LAB_VIRTUAL_QEMU=host runs
# Debian 12's 7.2 with kicks at boot; lab compare refuses to put a run
# beside a wall-clock run of the same case; two 2-vCPU boots write
# byte-identical records although the host reads one of them late (its
# lab stopped again and again).
. "$(dirname "$0")/lib.sh"
scen=scenarios/smoke-exec.ini

expect_bad "an unknown clock" "$LAB" run --topo 1s2c --scenario $scen --clock cpu
grep -q "unknown clock 'cpu' (wall or virtual)" "$TMP/err" || fail "the error does not say what is known"
expect_bad "virtual with multi-threaded TCG" "$LAB" run --topo 1s2c --scenario $scen --clock virtual \
	--accel tcg --tcg-threads multi
grep -q "one TCG thread" "$TMP/err" || fail "the error does not say why"
expect_bad "virtual with host-side faults" "$LAB" run --topo 1s2c --scenario scenarios/fault-host-pause.ini \
	--clock virtual --accel tcg
grep -q "host-side faults" "$TMP/err" || fail "the error does not say why"
expect_bad "virtual with libvirt" "$LAB" run --topo 1s2c --scenario $scen --clock virtual --accel tcg \
	--backend libvirt
grep -q "needs the qemu backend" "$TMP/err" || fail "the error does not say why"
expect_bad "an unknown kick mode" env LAB_ICOUNT_KICK=sometimes "$LAB" run --topo 1s2c --scenario $scen \
	--clock virtual --accel tcg
grep -q "LAB_ICOUNT_KICK must be boot, always or never" "$TMP/err" || fail "the error does not say what is known"
expect_bad "lab ab with an unknown clock" "$LAB" ab --topo 1s2c --base debian --test debian --suite ab-tiny \
	--clock cpu

runs=()
for clock in virtual wall; do
	rc=0
	"$LAB" run --topo 1s2c --scenario $scen --accel tcg --clock $clock >"$TMP/out" 2>"$TMP/err" || rc=$?
	sed "s/^/$clock: /" "$TMP/out"
	sed "s/^/$clock stderr: /" "$TMP/err"
	[ "$rc" -eq 0 ] || fail "lab run --clock $clock exited $rc"
	runs+=("$(sed -n 's/^results: //p' "$TMP/out")")
done
v=${runs[0]}
[ "$(json "$v/run.json" 'd["clock"]')" = virtual ] || fail "run.json has no clock virtual"
[ "$(json "$v/run.json" 'd["icount_shift"]')" = 2 ] || fail "run.json has no icount_shift"
json "$v/run.json" 'd["qemu"]' | grep -q '^QEMU emulator version 10\.' ||
	fail "the virtual clock did not run the lab's QEMU 10: $(json "$v/run.json" 'd["qemu"]')"
[ "$(json "$v/run.json" 'd["icount_kick"]')" = never ] || fail "QEMU 10 needs no kick"
[ "$(json "$v/run.json" '"icount_kick_ms" in d')" = False ] || fail "a kick period without kicks"
[ "$(json "$v/run.json" 'd["tcg_threads"]')" = single ] || fail "icount needs one TCG thread"
# the guest's TSC counts virtual nanoseconds: 1 GHz, lpj = 10^9 / HZ
json "$v/run.json" 'd["cmdline"]' | grep -Eq 'lpj=(1000000|4000000|3333333|10000000)( |$)' ||
	fail "lpj is not derived from a 1 GHz TSC: $(json "$v/run.json" 'd["cmdline"]')"
[ "$(json "$v/verdict.json" 'd.get("icount_kicks", 0)')" = 0 ] || fail "a kick was sent"
[ "$(json "${runs[1]}/run.json" 'd["clock"]')" = wall ] || fail "the wall-clock run does not say so"

# the host's QEMU 7.2 still boots an SMP guest, with kicks until it is up
LAB_VIRTUAL_QEMU=host "$LAB" run --topo 1s2c --scenario $scen --accel tcg --clock virtual \
	>"$TMP/out" 2>"$TMP/err" || fail "LAB_VIRTUAL_QEMU=host: $(cat "$TMP/err")"
h=$(sed -n 's/^results: //p' "$TMP/out")
json "$h/run.json" 'd["qemu"]' | grep -q '^QEMU emulator version 7\.' || fail "LAB_VIRTUAL_QEMU=host did not run 7.2"
[ "$(json "$h/run.json" 'd["icount_kick_ms"]')" = 20 ] || fail "QEMU 7.2's SMP guest must be kicked"
[ "$(json "$h/run.json" 'd["icount_kick"]')" = boot ] || fail "the kicks do not stop once the guest is up"
[ "$(json "$h/verdict.json" 'd["icount_kicks"] > 0')" = True ] || fail "no kick was sent"

rc=0
"$LAB" compare "$v" "${runs[1]}" >"$TMP/out" 2>"$TMP/err" || rc=$?
echo "compare across clocks: exit $rc: $(cat "$TMP/err")"
[ "$rc" -eq 2 ] || fail "lab compare of a virtual and a wall-clock run exited $rc, not 2"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "lab compare: not one line on stderr"
grep -q "cannot compare or pool runs on different clocks" "$TMP/err" || fail "compare does not say why"

# The host reading late must not reach the guest: QEMU's UART would retry
# on host time once the socket's buffer is full (docs/tcg.md).
for n in 1 2; do
	"$LAB" run --topo 1s2c --scenario $scen --accel tcg --clock virtual --results "$TMP/det$n" \
		>"$TMP/det$n.out" 2>&1 &
	pid=$!
	while [ "$n" = 2 ] && kill -STOP "$pid" 2>/dev/null; do
		sleep 0.3
		kill -CONT "$pid" 2>/dev/null
		sleep 0.1
	done
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$TMP/det$n.out"; fail "1s2c boot $n under --clock virtual exited $rc"; }
done
d1=$(ls -d "$TMP"/det1/*/) d2=$(ls -d "$TMP"/det2/*/)
cmp "$d1/records.bin" "$d2/records.bin" || fail "two 2-vCPU virtual-time boots wrote different records"
# after the END record the lab stops QEMU when it gets to it, on host time,
# so how much of the guest's power-off each console holds may differ:
# what both hold must be the same, and both hold the case's end
n1=$(wc -c <"$d1/console.log") n2=$(wc -c <"$d2/console.log")
cmp -n $((n1 < n2 ? n1 : n2)) "$d1/console.log" "$d2/console.log" ||
	fail "two 2-vCPU virtual-time boots wrote different consoles"
for d in "$d1" "$d2"; do
	grep -q "schedlab: case smoke-exec end" "$d/console.log" || fail "$d/console.log ends before the case does"
done
echo "two 1s2c boots, one read late: records identical ($(wc -c <"$d1/records.bin") bytes)"
echo "PASS"
