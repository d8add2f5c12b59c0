#!/bin/bash
# eevdf-knobs.sh - the EEVDF-generation knobs on Debian's 6.1 (CI's kernel):
# base_slice_ns, slice_us and preempt=lazy are refused before any boot in
# one line, so is a preemption mode of a kernel built without
# PREEMPT_DYNAMIC; lab matrix --variant preempt=none boots 6.1 plain and
# with preempt=none (2 boots on 1s2c), the guest shows the mode, and lab
# compare titles the two columns.  eevdf-612.sh and eevdf-72.sh do the
# rest on newer kernels.
. "$(dirname "$0")/lib.sh"
scen=scenarios/smoke-exec.ini

expect_bad "base_slice_ns on 6.1" "$LAB" run --topo 1s2c --accel tcg --scenario $scen --sched-knob base_slice_ns=3000000
grep -q "kernel 6.1.0-.* has no base_slice_ns: it came with Linux 6.6 (before it: min_granularity_ns)" "$TMP/err" ||
	fail "the refusal does not name the release and the knob"
expect_bad "a knob out of range" "$LAB" run --topo 1s2c --accel tcg --scenario $scen --sched-knob base_slice_ns=5
expect_bad "an unknown knob" "$LAB" run --topo 1s2c --accel tcg --scenario $scen --sched-knob latency_ns=1
grep -q "known: base_slice_ns" "$TMP/err" || fail "the refusal does not list the knobs"
expect_bad "preempt=lazy on 6.1" "$LAB" run --topo 1s2c --accel tcg --scenario $scen --preempt lazy
grep -q "has no CONFIG_PREEMPT_LAZY" "$TMP/err" || fail "the refusal does not name the option"
expect_bad "a mode that is none" "$LAB" run --topo 1s2c --accel tcg --scenario $scen --preempt rt
expect_bad "preempt= through --append" "$LAB" run --topo 1s2c --accel tcg --scenario $scen --append preempt=full

# slice_us: refused by the runner's check of the plan against the release
expect_bad "slice_us on 6.1" "$LAB" run --topo 1s2c --accel tcg --suite slice
grep -q "slice_us needs Linux 6.12 or later: 6.1.0-.* ignores sched_attr.sched_runtime" "$TMP/err" ||
	fail "the refusal does not say why"
# the scenarios themselves are fine: only the kernel is too old
"$LAB" scenarios --plan slice >/dev/null || fail "lab scenarios rejects the slice suite"

# the variants of lab ab and lab matrix are checked the same way
expect_bad "an ab variant 6.1 lacks" "$LAB" ab --topo 1s2c --base debian --test debian --suite ab-tiny \
	--variant base_slice_ns=3000000
grep -q "^lab: error: --variant base_slice_ns=3000000: kernel 6.1.0-" "$TMP/err" || fail "lab ab: $(cat "$TMP/err")"
expect_bad "an unknown variant" "$LAB" ab --topo 1s2c --base debian --test debian --suite ab-tiny --variant hz=100
grep -q "known: smt=off, sched_feat=NO_X,Y, preempt=none|voluntary|full|lazy, scx=NAME|none, base_slice_ns=N" "$TMP/err" ||
	fail "the refusal does not list the kinds"
expect_bad "a matrix variant 6.1 lacks" "$LAB" matrix --kernels debian --topos 1s2c --suites ab-tiny \
	--variant preempt=lazy --dir "$TMP/results/m-bad"
expect_bad "smt=off on a topology without SMT" "$LAB" matrix --kernels debian --topos 1s2c --suites ab-tiny \
	--variant smt=off --dir "$TMP/results/m-bad"

# a kernel without PREEMPT_DYNAMIC: 6.1's image beside a config that says so
kdir=$TMP/static-kernel
mkdir -p "$kdir"
img=$(json <("$LAB" kernel debian --json) 'd["bzimage"]')
cfg=$(json <("$LAB" kernel debian --json) 'd["config"]')
cp "$img" "$kdir/vmlinuz"
sed -e 's/^CONFIG_PREEMPT_DYNAMIC=y/# CONFIG_PREEMPT_DYNAMIC is not set/' "$cfg" >"$kdir/config"
expect_bad "preempt= without PREEMPT_DYNAMIC" "$LAB" run --topo 1s2c --accel tcg --scenario $scen --kernel "$kdir/vmlinuz" \
	--preempt full
grep -q "has no CONFIG_PREEMPT_DYNAMIC: its preemption mode is fixed at build time" "$TMP/err" ||
	fail "the refusal does not say why"

# two boots: 6.1 as it is and with preempt=none, one compare line
m=$TMP/results/matrix
rc=0
"$LAB" matrix --kernels debian --topos 1s2c --suites ab-tiny --variant preempt=none --dir "$m" \
	>"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/out"
sed 's/^/stderr: /' "$TMP/err"
[ "$rc" -eq 0 ] || fail "lab matrix --variant preempt=none exited $rc"
grep -q "^matrix: 1 kernel x (plain + 1 variant) x 1 topology x 1 suite = 2 jobs" "$TMP/out" ||
	fail "the matrix is not 2 jobs"
[ "$(json "$m/matrix.json" 'd["variants"]')" = "['preempt=none']" ] || fail "matrix.json has no variants"
for i in 0 1; do
	run=$(json "$m/matrix.json" "d['jobs'][$i]['run']")
	variant=$(json "$m/matrix.json" "d['jobs'][$i].get('variant', '')")
	active=$(json "$run/sched-knobs.json" 'd["preempt"]["active"]')
	offered=$(json "$run/sched-knobs.json" '" ".join(d["preempt"]["offered"])')
	echo "  job $((i + 1)): variant '${variant}', the guest runs preempt=$active of: $offered"
	[ "$offered" = "none voluntary full" ] || fail "6.1 offers '$offered'"
	if [ -n "$variant" ]; then
		[ "$active" = none ] || fail "preempt=none is not in effect"
		[ "$(json "$run/run.json" 'd["preempt"]')" = none ] || fail "run.json does not record it"
		json "$run/run.json" 'd["cmdline"]' | grep -qw 'preempt=none' || fail "not on the command line"
	else
		[ "$active" = voluntary ] || fail "Debian's 6.1 runs '$active', not voluntary, by default"
		[ "$(json "$run/run.json" 'd.get("preempt")')" = None ] || fail "a plain job records a mode"
	fi
done
matrix_compare_1s2c "$TMP/out"
grep -q '^Case: *6.1.0-[^ ]*\[.*6.1.0-[^ ]*-preempt=none\[' "$TMP/cmp" ||
	fail "the columns are not titled by release and mode"
a=$(json "$m/matrix.json" "d['jobs'][0]['run']")
b=$(json "$m/matrix.json" "d['jobs'][1]['run']")
rc=0
"$LAB" compare "$a+$b" "$a" >"$TMP/cmp" 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q "cannot pool runs with scheduler knobs 'default'" "$TMP/cmp" ||
	fail "pooling a preempt=none run with a plain one was not refused: $(cat "$TMP/cmp")"
echo "PASS: 6.1 refuses base_slice_ns, slice_us, lazy and a static kernel's modes before boot; preempt=none in effect as a matrix variant"
