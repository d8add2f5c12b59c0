# boot-arm64 - an arm64 virt guest (Debian's arm64 kernel and busybox, the
# cross-built runner): 2 sockets x 2 clusters x 2 cores, 2 nodes, verified
# as the guest sees it (clusters, an L1-only LLC, DIE and NUMA levels).
. "$(dirname "$0")/lib.sh"
command -v qemu-system-aarch64 >/dev/null || skip "no qemu-system-aarch64 (install-deps lab)"
[ -x build/guest-aarch64/runner ] || skip "no build/guest-aarch64/runner (no aarch64-linux-gnu-gcc)"
# what QEMU cannot give this arch here is refused before any boot
expect_bad "kvm" "$LAB" boot 2s4c --arch arm64 --accel kvm
expect_bad "hotplug" "$LAB" boot 2s4c,hotplug=2 --arch arm64
expect_bad "clash" "$LAB" boot 2s4c,arch=ppc64le --arch arm64
boot 2s4c,llc=2 --arch arm64 --accel tcg
expect_pass
[ "$(json "$run/run.json" 'd["arch"]')" = arm64 ] || fail "run.json arch"
[ "$(json "$run/guest-topology.json" 'd["cpus"]')" = 8 ] || fail "guest has not 8 CPUs"
[ "$(json "$run/guest-topology.json" 'd["cpu"][5]["cluster"]')" = "4-5" ] || fail "cpu5 cluster"
[ "$(json "$run/guest-topology.json" 'd["cpu"][5]["package"]')" = 1 ] || fail "cpu5 package"
[ "$(json "$run/guest-topology.json" '" ".join(d["cpu"][0]["domains"])')" = "DIE NUMA" ] || fail "cpu0 domains"
grep -q 'console=ttyAMA0' "$run/run.json" || fail "console is not ttyAMA0"
echo ok
