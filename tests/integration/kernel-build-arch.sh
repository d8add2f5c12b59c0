# kernel-build-arch - lab kernel build --arch without a compile: the arm64
# configuration step of linux-source-6.1 (tinyconfig, lab-base, arch/arm64,
# a user fragment, olddefconfig, the option check) leaves out an x86-only
# option in one line, gets its own key, and kernels of one arch are refused
# for guests of another before anything boots.  The full cross-builds are
# measured by bench/kbuild-arch.sh, not here (40+ min on 2 cores).
. "$(dirname "$0")/lib.sh"

TARBALL=${KBUILD_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
[ -f "$TARBALL" ] || skip "no $TARBALL (apt-get install linux-source-6.1)"
command -v aarch64-linux-gnu-gcc >/dev/null || skip "no aarch64-linux-gnu-gcc (install-deps)"
for t in make flex bison bc perl; do
	command -v "$t" >/dev/null || skip "no '$t' (apt-get install flex bison bc libelf-dev)"
done

cat >"$TMP/x86-only" <<'FRAG'
# the local APIC in x2APIC mode: an x86 option, not one of arm64's
CONFIG_X86_X2APIC=y
# scheduler statistics: every arch has them
CONFIG_SCHEDSTATS=y
FRAG

echo "== arm64: configured and checked, the x86-only option left out"
rc=0
t0=$SECONDS
"$LAB" kernel build --ksrc "$TARBALL" --arch arm64 --config "$TMP/x86-only" --config-only \
	>"$TMP/kout" 2>"$TMP/kerr" </dev/null || rc=$?
echo "config-only took $((SECONDS - t0)) s"
sed 's/^/  out: /' "$TMP/kout"
sed 's/^/  err: /' "$TMP/kerr"
[ "$rc" -eq 0 ] || fail "arm64 --config-only exited $rc"
grep -qx "lab: CONFIG_X86_X2APIC=y ($TMP/x86-only line 2) is not an option on arch/arm64 (only on x86): left out" \
	"$TMP/kerr" || fail "the x86-only option was not reported as left out"
grep -q "every requested option survived olddefconfig (.* 1 left out: not options on arm64)" "$TMP/kerr" ||
	fail "no summary of the check"
[ "$(grep -c 'left out' "$TMP/kerr")" -eq 2 ] || fail "lab-base or arch/arm64 asked for an option arm64 lacks"
arm=$(sed -n 's/^key: //p' "$TMP/kout")

echo "== the arch is part of the key"
"$LAB" kernel build --ksrc "$TARBALL" --config "$TMP/x86-only" --key-only >"$TMP/kout" ||
	fail "x86_64 --key-only failed"
x86=$(sed -n 's/^key: //p' "$TMP/kout")
[ -n "$arm" ] && [ -n "$x86" ] && [ "$arm" != "$x86" ] || fail "arm64 key '$arm', x86_64 key '$x86'"

echo "== a kernel of one arch is refused for a guest of another, before any boot"
"$LAB" kernel --json >"$TMP/kjson" 2>"$TMP/kjerr" || skip "no Debian amd64 kernel: $(cat "$TMP/kjerr")"
bz=$(json "$TMP/kjson" 'd["bzimage"]')
expect_bad "x86 bzImage on arm64" "$LAB" boot 2s4c,llc=2 --arch arm64 --accel tcg --kernel "$bz"
grep -q "is built for x86_64, not for arm64 (give --arch x86_64)" "$TMP/err" || fail "no arch in the refusal"
img=$(ls "${LAB_CACHE:-.cache}"/kernels/debian/linux-image-*-arm64/vmlinuz 2>/dev/null | head -n 1)
if [ -n "$img" ]; then
	expect_bad "arm64 Image on x86_64" "$LAB" boot 2s4c --accel tcg --kernel "$img"
	grep -q "is built for arm64, not for x86_64 (give --arch arm64)" "$TMP/err" || fail "no arch in the refusal"
fi
echo ok
