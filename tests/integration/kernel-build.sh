# kernel-build - kernels built from Debian's linux-source-6.1 with lab-base:
# bad inputs fail clearly and cache nothing, a build is cached by content and
# boots a verified 2-socket SMT/NUMA guest, and (KBUILD_E2E=full) the demo
# patch's kernel shows its changed scheduler knob beside the baseline's.
#
# In `make check` (the default) it uses the cached baseline kernel, or builds
# it once (~8-11 min on 2 cores).  `make kernel-e2e` (KBUILD_E2E=full) also
# builds the patched kernel and compares both; two builds do not fit in
# `make check`'s budget on a 2-core machine.
. "$(dirname "$0")/lib.sh"

TARBALL=${KBUILD_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
PATCH=kernel-patches/0001-sched-fair-demo-migration-cost-0.patch
TOPO=2s4c2t,llc=2
MODE=${KBUILD_E2E:-check}
JOBS=${KBUILD_JOBS:-2}

[ -f "$TARBALL" ] || skip "no $TARBALL (apt-get install linux-source-6.1)"
for t in make gcc flex bison bc perl patch; do
	command -v "$t" >/dev/null || skip "no '$t' (apt-get install flex bison bc libelf-dev)"
done
[ -f /usr/include/gelf.h ] || skip "no libelf headers (apt-get install libelf-dev)"

built=${LAB_CACHE:-$PWD/.cache}/kernels/built
entries() { ls "$built" 2>/dev/null | sort; }

# kbuild ARGS...: lab kernel build; stdout in $TMP/kout, stderr in $TMP/kerr,
# exit code in $rc, wall seconds in $secs.
kbuild() {
	local t0 t1
	rc=0
	t0=$(date +%s.%N)
	"$LAB" kernel build "$@" >"$TMP/kout" 2>"$TMP/kerr" </dev/null || rc=$?
	t1=$(date +%s.%N)
	secs=$(echo "$t1 - $t0" | bc)
	sed 's/^/  out: /' "$TMP/kout"
	sed 's/^/  err: /' "$TMP/kerr"
}
key_of() { sed -n 's/^key: //p' "$TMP/kout"; }

echo "== a KSRC that is not a kernel tree"
before=$(entries)
kbuild --ksrc /etc --config lab-base
[ "$rc" -eq 2 ] || fail "exit $rc for /etc, expected 2"
grep -q "'/etc' is not a kernel tree" "$TMP/kerr" || fail "no 'not a kernel tree' message"
printf 'not a tarball\n' >"$TMP/linux.tar.xz"
kbuild --ksrc "$TMP/linux.tar.xz"
[ "$rc" -eq 2 ] || fail "exit $rc for a broken tarball, expected 2"
grep -q "linux.tar.xz' is not a kernel tree (tar cannot unpack it" "$TMP/kerr" ||
	fail "no 'not a kernel tree' message for a broken tarball"

echo "== a patch that does not apply names the patch and the hunk"
sed 's/^-const_debug unsigned int sysctl_sched_migration_cost\t= 500000UL;/-const_debug unsigned int sysctl_sched_migration_cost\t= 123UL;/' \
	"$PATCH" >"$TMP/0001-stale.patch"
cmp -s "$PATCH" "$TMP/0001-stale.patch" && fail "could not make a stale patch"
kbuild --ksrc "$TARBALL" --patch "$TMP/0001-stale.patch"
[ "$rc" -eq 2 ] || fail "exit $rc for a stale patch, expected 2"
grep -q "patch '$TMP/0001-stale.patch' does not apply: hunk #1 of kernel/sched/fair.c FAILED" "$TMP/kerr" ||
	fail "the error does not name the patch and the hunk"
[ "$(entries)" = "$before" ] || fail "a failed build left something in $built"

echo "== an option that does not survive olddefconfig names what it depends on"
printf '# fail_function without its dependencies\nCONFIG_FAIL_FUNCTION=y\n' >"$TMP/bad-frag"
kbuild --ksrc "$TARBALL" --config "$TMP/bad-frag" --config-only
[ "$rc" -eq 2 ] || fail "exit $rc for a dropped option, expected 2"
grep -q "CONFIG_FAIL_FUNCTION=y .* is n after olddefconfig: depends on .*unmet: .*MODULES" "$TMP/kerr" ||
	fail "the error does not explain the missing dependency"
[ "$(entries)" = "$before" ] || fail "--config-only left something in $built"

echo "== the user's tree is never written (a plain tree, patched)"
src=$(ls -d "${LAB_CACHE:-$PWD/.cache}"/kernels/src/*/linux-source-6.1 | head -n 1)
[ -d "$src" ] || fail "the tarball was not unpacked into the cache"
fair="$src/kernel/sched/fair.c"
sum0=$(sha256sum "$fair" | cut -d' ' -f1)
ino0=$(stat -c %i "$fair")
kbuild --ksrc "$src" --patch "$PATCH" --config-only
[ "$rc" -eq 0 ] || fail "config-only of the patched plain tree exited $rc"
[ "$(sha256sum "$fair" | cut -d' ' -f1)" = "$sum0" ] || fail "patching changed the original $fair"
[ "$(stat -c %i "$fair")" = "$ino0" ] || fail "the original $fair was replaced"
[ "$(stat -c %h "$fair")" = 1 ] || fail "a copy still links to the original $fair"
[ ! -e "$src/.config" ] || fail "the build wrote .config into the source tree"
grep -q '500000UL' "$fair" || fail "the original lost its migration cost"

echo "== a build that fails shows its errors and the log, caches nothing"
mkdir -p "$TMP/a/arch/x86/kernel" "$TMP/b/arch/x86/kernel"
cp "$src/arch/x86/kernel/asm-offsets.c" "$TMP/a/arch/x86/kernel/"
{ cat "$src/arch/x86/kernel/asm-offsets.c"; echo '#error schedlab: deliberately broken'; } \
	>"$TMP/b/arch/x86/kernel/asm-offsets.c"
(cd "$TMP" && diff -u a/arch/x86/kernel/asm-offsets.c b/arch/x86/kernel/asm-offsets.c) >"$TMP/0001-break.patch"
kbuild --ksrc "$TARBALL" --patch "$TMP/0001-break.patch" -j"$JOBS"
[ "$rc" -eq 2 ] || fail "exit $rc for a build that cannot compile, expected 2"
echo "the broken build stopped after ${secs}s"
grep -q 'error: #error schedlab: deliberately broken' "$TMP/kerr" || fail "the compiler's error was not shown"
log=$(sed -n "s/.*'make bzImage' of kernel [0-9a-f]* failed; full log: //p" "$TMP/kerr")
[ -s "$log" ] || fail "no full log named, or it is empty"
[ "$(entries)" = "$before" ] || fail "a failed build left something in $built"

echo "== the baseline kernel: built once, then a cache hit"
kbuild --ksrc "$TARBALL" --config lab-base -j"$JOBS"
[ "$rc" -eq 0 ] || fail "the baseline build exited $rc"
base=$(key_of)
first=$secs
echo "baseline key $base: ${first}s"
kbuild --ksrc "$TARBALL" --config lab-base -j"$JOBS"
[ "$rc" -eq 0 ] || fail "the cached baseline exited $rc"
[ "$(key_of)" = "$base" ] || fail "the same inputs gave another key: $(key_of)"
grep -q "cached, nothing built" "$TMP/kerr" || fail "the second build was not a cache hit"
hit=$secs
echo "cache hit: ${hit}s"
[ "$(echo "$hit < 30" | bc)" = 1 ] || fail "a cache hit took ${hit}s"
for f in bzImage vmlinux config build.log info.json key-inputs.txt; do
	[ -s "$built/$base/$f" ] || fail "missing $built/$base/$f"
done
[ ! -e "$built/$base/obj" ] || fail "the object tree was kept in the cache"
for o in SMP NUMA SCHED_SMT SCHED_MC PVH SCHEDSTATS SCHED_DEBUG NUMA_BALANCING SERIAL_8250_CONSOLE; do
	grep -qx "CONFIG_$o=y" "$built/$base/config" || fail "the kernel lacks CONFIG_$o"
done
"$LAB" kernel "$base" || fail "lab kernel $base"

# cost SCENARIO KEY: runs the migration-cost scenario on kernel KEY and
# prints the value the guest read.
cat >"$TMP/migration-cost.ini" <<'EOF'
# reads the scheduler's migration cost; the demo patch sets it to 0
[scenario]
name = kbuild-migration-cost
description = the scheduler's migration cost as the guest kernel reports it
workload = exec
runs = 1
warmup = 0
deadline = 60
counters = none

[params]
cmd = /bin/busybox grep -H . /sys/kernel/debug/sched/migration_cost_ns
pattern1 = migration_cost_ns=migration_cost_ns:
unit1 = ns

[metric migration_cost_ns]
better = lower
statistic = amean
unit = ns
EOF
run_cost() {
	rc=0
	"$LAB" run --topo "$TOPO" --scenario "$TMP/migration-cost.ini" --kernel "$1" --accel tcg \
		>"$TMP/rout" 2>"$TMP/rerr" || rc=$?
	cat "$TMP/rout" >&2
	sed 's/^/stderr: /' "$TMP/rerr" >&2
	[ "$rc" -eq 0 ] || fail "lab run on kernel $1 exited $rc"
	grep -qx 'topology: PASS' "$TMP/rout" || fail "topology not verified on kernel $1"
	run=$(sed -n 's/^results: //p' "$TMP/rout")
	json "$run/cases.json" 'int([c for c in d["cases"] if c["case"] == "kbuild-migration-cost"][0]["metrics"]["migration_cost_ns"]["mean"])'
}

echo "== the baseline boots $TOPO and passes"
boot "$TOPO" --kernel "$base" --accel tcg
expect_pass
case $(json "$run/run.json" 'd["kernel_image"]') in
*/"$base"/*) ;;
*) fail "the guest did not boot kernel $base" ;;
esac
cost_base=$(run_cost "$base")
echo "baseline migration_cost_ns=$cost_base"
[ "$cost_base" = 500000 ] || fail "baseline migration cost $cost_base, expected 500000"

if [ "$MODE" != full ]; then
	echo "ok (KBUILD_E2E=full or 'make kernel-e2e' also builds and compares the patched kernel)"
	exit 0
fi

echo "== the patched kernel (full end to end)"
kbuild --ksrc "$TARBALL" --config lab-base --patch "$PATCH" -j"$JOBS"
[ "$rc" -eq 0 ] || fail "the patched build exited $rc"
patched=$(key_of)
[ "$patched" != "$base" ] || fail "the patch did not change the key"
echo "patched key $patched: ${secs}s"
boot "$TOPO" --kernel "$patched" --accel tcg
expect_pass
cost_patched=$(run_cost "$patched")
echo "patched migration_cost_ns=$cost_patched"
[ "$cost_patched" = 0 ] || fail "patched migration cost $cost_patched, expected 0"

# The behaviour the patch is about, shown (not judged: TCG timing is noisy).
for k in "$base" "$patched"; do
	rc=0
	"$LAB" run --topo "$TOPO" --scenario scenarios/smoke-hackbench.ini --kernel "$k" --accel tcg \
		>"$TMP/hout" 2>"$TMP/herr" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$TMP/hout" "$TMP/herr"; fail "hackbench on $k exited $rc"; }
	run=$(sed -n 's/^results: //p' "$TMP/hout")
	echo "kernel $k hackbench:" $(json "$run/cases.json" \
		'"; ".join("%s time=%.3fs migrations=%s" % (c["case"], c["metrics"]["time"]["mean"], c["tasks"]["nr_migrations"]) for c in d["cases"])')
done
echo ok
