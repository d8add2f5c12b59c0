# boot-ppc64le - a ppc64le pseries guest (Debian's powerpc64le kernel and
# busybox, the cross-built runner): 2 chips x 4 cores, 2 nodes at distance
# 40, verified as the guest sees it; SMT under TCG is refused.
. "$(dirname "$0")/lib.sh"
command -v qemu-system-ppc64 >/dev/null || skip "no qemu-system-ppc64 (install-deps lab)"
[ -x build/guest-ppc64le/runner ] || skip "no build/guest-ppc64le/runner (no powerpc64le-linux-gnu-gcc)"
# what QEMU cannot give this arch here is refused before any boot
expect_bad "smt under tcg" "$LAB" boot 2s4c8t --arch ppc64le --accel tcg
expect_bad "llc inside a chip" "$LAB" boot 2s4c,llc=2 --arch ppc64le
boot 2s4c,dist=40 --arch ppc64le --accel tcg
expect_pass
[ "$(json "$run/run.json" 'd["arch"]')" = ppc64le ] || fail "run.json arch"
[ "$(json "$run/guest-topology.json" 'd["cpus"]')" = 8 ] || fail "guest has not 8 CPUs"
[ "$(json "$run/guest-topology.json" 'd["cpu"][4]["package"]')" = 1 ] || fail "cpu4 package"
[ "$(json "$run/guest-topology.json" 'd["distances"][0][1]')" = 40 ] || fail "distance 0-1"
[ "$(json "$run/guest-topology.json" '" ".join(d["cpu"][0]["domains"])')" = "DIE NUMA" ] || fail "cpu0 domains"
grep -q 'lab.out=/dev/hvc1' "$run/run.json" || fail "records not on hvc1"
echo ok
