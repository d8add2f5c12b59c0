#!/bin/bash
# pin.sh - --pin binds each vCPU thread to the host CPU the map chose (the
# vCPU threads of multi-threaded TCG are real threads too): checked from
# the outside while the guest runs (/proc/<tid>/status), and in run.json
# with "held".  A guest bigger than the host runs unpinned after one line;
# --pin=strict (or a scenario's pin = strict) refuses it before any boot.
. "$(dirname "$0")/lib.sh"

# The guest is this host's own topology, as `lab bare --topology` reads it:
# it fits by construction.  A big host gets one core, which fits too.
host=$("$LAB" bare --topology | sed -n 's/^host topology: \([^ ]*\) .*/\1/p')
[ -n "$host" ] || fail "lab bare --topology named no topology"
ncpu=$(nproc)
fits=$host
# (a lab confined to fewer CPUs than the host has gets one core too)
[ "$ncpu" -le 8 ] && [ "$ncpu" -eq "$(getconf _NPROCESSORS_ONLN)" ] || fits=1s1c
toobig=1s$((ncpu + 1))c
# the CPUs this lab may use (nproc follows a cpuset or taskset, as --pin does)
echo "host: $host ($ncpu CPUs); guest that fits: $fits; one that does not: $toobig"

# Refused before any boot: --pin=strict, a scenario's pin = strict, a bad mode.
expect_bad "strict, too big" "$LAB" boot "$toobig" --accel tcg --pin=strict
grep -q "^lab: error: --pin=strict: $toobig does not fit this host: CPUs: " "$TMP/err" ||
	fail "the strict error does not say what does not fit"
sed 's/^\[scenario\]$/[scenario]\npin = strict/' scenarios/smoke-exec.ini >"$TMP/strict.ini"
expect_bad "scenario pin = strict" "$LAB" run --topo "$toobig" --scenario "$TMP/strict.ini" --accel tcg
grep -q -- "--pin=strict: $toobig does not fit" "$TMP/err" || fail "the scenario's key was not used"
expect_bad "a bad mode" "$LAB" boot 1s1c --accel tcg --pin=loose
grep -q "unknown --pin mode 'loose'" "$TMP/err" || fail "the bad mode is not named"

# A vCPU thread's allowed CPUs, read while the guest runs: QEMU names its
# vCPU threads "CPU <n>/TCG" (or /KVM).
"$LAB" boot "$fits" --accel tcg --pin >"$TMP/out" 2>"$TMP/err" &
lab_pid=$!
seen=
for _ in $(seq 1 600); do
	qemu=$(pgrep -f "qemu-system.*schedlab-$lab_pid" | head -1)
	if [ -n "$qemu" ]; then
		seen=$(for t in /proc/"$qemu"/task/*; do
			c=$(cat "$t/comm" 2>/dev/null) || continue
			case "$c" in "CPU "*) echo "${c%%/*}=$(sed -n 's/^Cpus_allowed_list:\t//p' "$t/status")" ;; esac
		done | sort -V | tr '\n' ' ')
		# pinned once every vCPU thread allows one CPU
		[ -n "$seen" ] && ! echo "$seen" | grep -qE '=[0-9]+[-,]' && break
	fi
	kill -0 "$lab_pid" 2>/dev/null || break
	sleep 0.1
done
rc=0
wait "$lab_pid" || rc=$?
cat "$TMP/out"
sed 's/^/stderr: /' "$TMP/err"
echo "vCPU threads seen from /proc: $seen"
[ "$rc" -eq 0 ] || fail "lab boot --pin exited $rc"
run=$(sed -n 's/^results: //p' "$TMP/out")
grep -q "^pin: held for the whole run$" "$TMP/out" || fail "no 'pin: held' line"
[ -s "$TMP/err" ] && fail "a fitting guest printed on stderr"
map=$(json "$run/run.json" '",".join(str(c) for c in d["pin"]["vcpu_to_host"])')
[ "$(json "$run/run.json" 'd["pin"]["applied"] and d["pin"]["held"]')" = True ] ||
	fail "run.json does not say the pin was applied and held"
grep -qE "^pin: .* on host CPUs? $map$" "$TMP/out" || fail "the setup line does not show the map $map"
# the map as the kernel saw it: vCPU i allowed only on the map's i-th CPU
want=$(echo "$map" | tr ',' '\n' | awk '{printf "CPU %d=%s ", NR - 1, $1}')
[ "$seen" = "$want" ] || fail "vCPU threads allowed '$seen', the map says '$want'"
# each host CPU once
[ "$(echo "$map" | tr ',' '\n' | sort -u | wc -l)" -eq "$(echo "$map" | tr ',' '\n' | wc -l)" ] ||
	fail "a host CPU carries two vCPUs: $map"

# Too big for this host: one line, unpinned, the run goes on.
boot "$toobig" --accel tcg --pin
[ "$rc" -eq 0 ] || fail "lab boot --pin of $toobig exited $rc"
grep -q "^lab: warning: pin: CPUs: the guest has $((ncpu + 1)) vCPUs, this host $ncpu usable CPUs; running unpinned$" \
	"$TMP/err" || fail "no line naming the level that does not fit"
[ "$(grep -cv '^lab: warning: guest hung before userspace' "$TMP/err")" -eq 1 ] ||
	fail "more than the one pin line on stderr"
[ "$(json "$run/run.json" 'd["pin"]["applied"]')" = False ] || fail "run.json says pinned"
json "$run/run.json" 'd["pin"]["why"]' | grep -q "^CPUs: " || fail "run.json has no why"

echo ok
