# accel-probe - --accel auto trusts KVM only once a guest booted under it:
# a KVM that fails falls back to TCG with one line and the run PASSes;
# --accel kvm there is one line and exit 2 within 30 s; the answer is
# cached, so the second run does not pay for the probe again.
#
# Run on every host, with what each has: no /dev/kvm (auto is TCG, no
# line; kvm refused), a /dev/kvm whose QEMU cannot even create a vCPU, a
# KVM whose guest never gets anywhere, and a working KVM.  The third is
# made real where /dev/kvm exists: a LAB_QEMU wrapper turns "-cpu host"
# into "-cpu qemu64", which passes query-kvm; on a nested KVM that cannot
# run it (this kind of host) the guest hangs in its first instructions,
# and only the probe's boot catches that.
. "$(dirname "$0")/lib.sh"

qemu=$(command -v qemu-system-x86_64) || skip "qemu-system-x86_64 is not installed"

# auto: PASS whatever this host's KVM does, and say why when it is not KVM
auto_run() {
	local label=$1
	shift
	"$@" "$LAB" boot 1s2c >"$TMP/out" 2>"$TMP/err" || fail "$label: auto: exit $?: $(cat "$TMP/err")"
	sed "s/^/$label: /" "$TMP/out" "$TMP/err"
	grep -qx 'topology: PASS' "$TMP/out" || fail "$label: auto: topology"
	accel=$(sed -n 's/^accel: \([a-z]*\).*/\1/p' "$TMP/out")
	if [ "$accel" = tcg ] && [ -e /dev/kvm ]; then
		[ "$(grep -c '^lab: kvm: .*; using tcg$' "$TMP/err")" -eq 1 ] ||
			fail "$label: auto fell back to tcg without one line saying why"
	elif [ "$accel" = tcg ]; then
		! grep -q '^lab: kvm:' "$TMP/err" || fail "$label: a line about KVM on a host without /dev/kvm"
	fi
}

# kvm: where KVM fails, one line and exit 2 within 30 s; else a PASS
kvm_run() {
	local label=$1 t0 took rc=0
	shift
	t0=$(date +%s.%N)
	"$@" "$LAB" boot 1s2c --accel kvm >"$TMP/out" 2>"$TMP/err" || rc=$?
	took=$(echo "$(date +%s.%N) - $t0" | bc)
	echo "$label: --accel kvm: exit $rc in $took s: $(cat "$TMP/err")"
	if [ "$rc" -eq 0 ]; then
		grep -qx 'accel: kvm' "$TMP/out" || fail "$label: kvm: PASS but not under kvm"
		return
	fi
	[ "$rc" -eq 2 ] || fail "$label: kvm: exit $rc, expected 2"
	[ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "$label: kvm: not one line"
	grep -q '^lab: error: ACCEL=kvm but KVM is not usable here: ' "$TMP/err" || fail "$label: kvm: the line"
	[ "$(echo "$took <= 30" | bc)" = 1 ] || fail "$label: kvm: $took s to refuse"
	kvm_took=$took
}

auto_run host env
kvm_run host env
if [ ! -e /dev/kvm ]; then
	echo "no /dev/kvm here: the probe's boot is not reached (skip of that part)"
	echo ok
	exit 0
fi

cat >"$TMP/qemu64" <<EOF
#!/bin/bash
args=()
for a in "\$@"; do
	[ \${#args[@]} -gt 0 ] && [ "\${args[-1]}" = -cpu ] && [[ \$a == host* ]] && a=qemu64\${a#host}
	args+=("\$a")
done
exec $qemu "\${args[@]}"
EOF
chmod +x "$TMP/qemu64"
# a new wrapper path is a new cache key: this probe runs now
LAB_QEMU=$TMP/qemu64 "$LAB" doctor --json >"$TMP/doctor" || fail "doctor: exit $?"
cached=$(json "$TMP/doctor" 'd["kvm"]["cached"]')
cache_file=$(json "$TMP/doctor" 'd["kvm"]["cache_file"]')
trap 'rm -f "$cache_file"; keep_on_failure' EXIT
works=$(json "$TMP/doctor" 'd["kvm"]["works"]')
echo "qemu64 probe: works $works, $(json "$TMP/doctor" 'd["kvm"]["probe_s"]') s: $(json "$TMP/doctor" 'd["kvm"]["why"]')"
[ "$cached" = False ] || fail "the first probe of a new QEMU came from the cache"
[ "$works" = True ] || [ -n "$(json "$TMP/doctor" 'd["kvm"]["why"]')" ] || fail "qemu64 probe: no why"
# cached now: the refusal and the fallback cost no probe
kvm_run qemu64 env LAB_QEMU="$TMP/qemu64"
[ "$works" = True ] || [ "$(echo "${kvm_took:-0} < 5" | bc)" = 1 ] ||
	fail "qemu64: the cached answer took ${kvm_took} s"
auto_run qemu64 env LAB_QEMU="$TMP/qemu64"
echo ok
