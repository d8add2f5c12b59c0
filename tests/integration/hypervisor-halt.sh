# hypervisor-halt - a guest that QEMU stops by itself ends the run at once
# with CRASH and QEMU's run state, never a deadline HANG.
#
# The stop is QEMU's own: a LAB_QEMU wrapper starts the real QEMU with a
# pvpanic device whose panic action is "pause", and, 0.5 s after its
# monitor answers (early in the boot: a 1s2c boot to the runner's report
# takes 1.9 s on a quiet host, 4 s on a busy one; at 1.5 s a quiet host's
# guest had finished first), writes the panic bit to its I/O port from a
# second monitor (HMP "o", a port write as the guest's pvpanic driver would
# make it).
# QEMU's device model then stops the guest in run state guest-panicked
# and sends GUEST_PANICKED and STOP, which the lab's own "stop" cannot
# produce.  A second case stops the guest from that other monitor: paused,
# but not by the lab.  A KVM internal error takes the same path (its
# stderr lines are quoted: tests/unit/test-qmp.c); the lab's own pauses
# (fault-host.sh) must still PASS.
. "$(dirname "$0")/lib.sh"

qemu=$(command -v qemu-system-x86_64) || skip "qemu-system-x86_64 is not installed"
cat >"$TMP/qemu-wrap" <<EOF
#!/bin/bash
# the lab asks for --version; everything else is a guest
case "\$*" in *-kernel*) ;; *) exec $qemu "\$@" ;; esac
sock=$TMP/wrap-\$\$.sock
$qemu "\$@" -device pvpanic -action panic=pause -qmp unix:\$sock,server=on,wait=off &
qemu_pid=\$!
python3 - "\$sock" "\$WRAP_HMP" "$TMP/trigger" <<'PY' &
import json, socket, sys, time
sock, hmp, stamp = sys.argv[1:]
for _ in range(200):
    try:
        s = socket.socket(socket.AF_UNIX)
        s.connect(sock)
        break
    except OSError:
        time.sleep(0.05)
f = s.makefile("rw")
def ask(cmd, **args):
    f.write(json.dumps({"execute": cmd, "arguments": args}) + "\n")
    f.flush()
    while True:
        m = json.loads(f.readline())
        if "return" in m or "error" in m:
            return m
f.readline()
ask("qmp_capabilities")
time.sleep(0.5)
open(stamp, "w").write("%.6f\n" % time.clock_gettime(time.CLOCK_REALTIME))
print("wrapper:", hmp, ask("human-monitor-command", **{"command-line": hmp}), file=sys.stderr)
PY
wait \$qemu_pid
EOF
chmod +x "$TMP/qemu-wrap"

halted() {
	local what=$1 state=$2 event=$3 t0 took
	t0=$SECONDS
	WRAP_HMP=$4 LAB_QEMU=$TMP/qemu-wrap boot 1s2c --accel tcg --timeout 300
	took=$((SECONDS - t0))
	[ -s "$TMP/trigger" ] || fail "$what: the wrapper never stopped the guest"
	[ "$rc" -eq 1 ] || fail "$what: exit $rc, expected 1"
	grep -q "^verdict: CRASH: the hypervisor stopped the guest: run state $state$event" "$TMP/out" ||
		fail "$what: verdict line"
	[ "$(json "$run/verdict.json" 'd["hypervisor_halt"]["run_state"]')" = "$state" ] ||
		fail "$what: verdict.json has no hypervisor_halt"
	# the host's clock from the wrapper's stop to the verdict
	python3 - "$run/verdict.json" "$TMP/trigger" "$run" <<'PY' || fail "$what: verdict too late"
import json, os, sys
d = json.load(open(sys.argv[1]))
h = d["hypervisor_halt"]
stop = float(open(sys.argv[2]).read())
end = os.stat(sys.argv[1]).st_mtime
print("halt seen %.3f s after start; verdict %.3f s later; verdict.json written %.3f s after the stop"
      % (h["t_s"], h["verdict_after_s"], end - stop))
assert 0 <= h["verdict_after_s"] <= 2, h
assert end - stop <= 5, end - stop
PY
	[ "$took" -lt 60 ] || fail "$what: the lab took $took s"
	rm -f "$TMP/trigger"
}

halted "guest-panicked" guest-panicked ' after GUEST_PANICKED (action pause)' "o /b 0x505 1"
halted "paused elsewhere" paused '$' "stop"
echo ok
