# kernel-generations - Debian's kernels by version through the lab's own
# apt configuration: a bad name is one line and exit 2; debian:6.12 is
# fetched (the host's apt sources and lists untouched) and boots a
# machine of three dies per socket whose topology verifies against 6.12's
# generation: die_id counted across packages, the package level PKG.
. "$(dirname "$0")/lib.sh"
host_apt() {
	{ cat /etc/apt/sources.list /etc/apt/sources.list.d/* 2>/dev/null; stat -c '%Y' /var/lib/apt/lists; } |
		sha256sum
}
before=$(host_apt)
expect_bad "unknown flavour" "$LAB" kernel debian:6.12-lowlatency
expect_bad "not a version" "$LAB" kernel debian:six
rc=0
"$LAB" kernel debian:9.9 >"$TMP/out" 2>"$TMP/err" || rc=$?
cat "$TMP/err"
if grep -q "apt-get update.*failed" "$TMP/err"; then
	skip "the Debian archive is not reachable: $(cat "$TMP/err")"
fi
[ "$rc" -eq 2 ] || fail "debian:9.9: exit $rc, expected 2"
[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "debian:9.9: not one line"
grep -q "it has 6.1 (.*), 6.12 (" "$TMP/err" || fail "debian:9.9: the existing series are not named"
"$LAB" kernel --list >"$TMP/list" || fail "lab kernel --list failed"
grep -qE '^6\.12 +- +6\.12\.' "$TMP/list" || fail "lab kernel --list has no 6.12 row"
"$LAB" kernel debian:6.12 >"$TMP/k612" || fail "cannot fetch debian:6.12"
grep -q '^generation: 6.12 (EEVDF)' "$TMP/k612" || fail "debian:6.12 is not generation 6.12"
grep -q '^vmlinux: /' "$TMP/k612" || fail "debian:6.12 has no extracted vmlinux (zstd payload)"
[ "$(host_apt)" = "$before" ] || fail "the host's apt sources or lists changed"

boot 2s6c,llc=2 --kernel debian:6.12 --accel tcg
expect_pass
[ "$(json "$run/expected-topology.json" 'd["generation"]')" = 6.12 ] || fail "expected view not of 6.12"
# socket 1's first die: 1 << 2 bits of die number (three dies per socket)
[ "$(json "$run/guest-topology.json" 'd["cpu"][6]["die"]')" = 4 ] || fail "cpu6 die_id is not 4"
[ "$(json "$run/guest-topology.json" '" ".join(d["cpu"][0]["domains"])')" = "MC PKG NUMA" ] ||
	fail "cpu0 domains are not MC PKG NUMA"
echo ok
